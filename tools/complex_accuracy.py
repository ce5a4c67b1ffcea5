"""Measure the error of the kernel's complex ops against mpmath (200 bits), for complex64
and complex128, beside NumPy's.

    python tools/complex_accuracy.py [N] [--functions] [--only asin,acos] [--pow]
    # --functions: the functions only; --only: those functions; --pow: pow only

Arithmetic (multiply, divide, square, reciprocal, abs): the normwise relative error, in
units of roundoff u = eps/2, on N pairs (default 5000) with parts of random sign and
magnitude 2^-E .. 2^E (E = 30 for complex64, 200 for complex128).
Functions (exp, expm1, log, log1p, log2, log10, sqrt, sign, sinh, cosh, tanh, sin, cos, tan,
asinh, asin, atanh, atan, acosh, acos): the componentwise error, in ulps of each part of the
exact result rounded to the part's type (parts that overflow, and subnormal ones, left
out; they are checked by tests/test_complex_functions.py), and the normwise one, on N
random operands (exp and the (hyperbolic) sines, cosines and tangents: |parts| < 2^6) plus the hard ones of tests/test_complex_functions.py
(the inverse functions: mpmath at 2600 bits, signed zero parts as +-2^-2300, as the tests).
pow (--pow): the normwise error of a ** b for N pairs per band of |b log a| (2^-4..2^4,
2^4..2^10, 2^10..2^20, 2^20..2^30, 2^30..2^45, 2^45..2^60), a with parts of random sign and magnitude 2^-E .. 2^E,
results that overflow or underflow left out; and of the integer powers n = 2..99 and
-99..-2 (NumPy's repeated products) on a of modulus 2^(+-4/n) (no overflow).
The figures go to docs/exact-math.md and docs/complex.md.
"""

from __future__ import annotations

import os
import sys
import warnings

import mpmath
import numpy as np

import lazytensor as lt


def main(n: int) -> None:
    warnings.simplefilter("ignore")
    mpmath.mp.prec = 200
    rng = np.random.default_rng(7)
    for dt, ft in ((np.complex64, np.float32), (np.complex128, np.float64)):
        u = float(np.finfo(ft).eps) / 2
        emax = 30 if ft is np.float32 else 200

        def draw():
            m = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-emax, emax, (2, n))
            return (m[0] + 1j * m[1]).astype(dt)

        a, b = draw(), draw()
        ta, tb = lt.asarray(a), lt.asarray(b)
        ours = {"multiply": ta * tb, "divide": ta / tb, "square": lt.square(ta),
                "reciprocal": lt.reciprocal(tb), "abs": abs(ta)}
        numpy = {"multiply": a * b, "divide": a / b, "square": np.square(a), "reciprocal": np.reciprocal(b),
                 "abs": np.abs(a)}
        exact = {"multiply": lambda x, y: x * y, "divide": lambda x, y: x / y,
                 "square": lambda x, y: x * x, "reciprocal": lambda x, y: 1 / y,
                 "abs": lambda x, y: abs(x)}
        for name, t in ours.items():
            got = np.asarray(t)
            worst = worst_np = 0.0
            for i in range(n):
                e = exact[name](mpmath.mpc(complex(a[i])), mpmath.mpc(complex(b[i])))
                if e == 0:
                    continue
                worst = max(worst, float(abs(mpmath.mpc(complex(got[i])) - e) / abs(e)) / u)
                worst_np = max(worst_np, float(abs(mpmath.mpc(complex(numpy[name][i])) - e)
                                              / abs(e)) / u)
            print(f"{dt.__name__:10} {name:10} lazytensor {worst:.3f} u   numpy {worst_np:.3f} u")


FUNCTIONS = {"exp": (np.exp, mpmath.exp), "log": (np.log, mpmath.log),
             "sqrt": (np.sqrt, mpmath.sqrt), "sign": (np.sign, lambda z: z / abs(z)),
             "sinh": (np.sinh, mpmath.sinh), "cosh": (np.cosh, mpmath.cosh),
             "tanh": (np.tanh, mpmath.tanh), "sin": (np.sin, mpmath.sin),
             "cos": (np.cos, mpmath.cos), "tan": (np.tan, mpmath.tan),
             "log2": (np.log2, lambda z: mpmath.log(z) / mpmath.log(2)),
             "log10": (np.log10, lambda z: mpmath.log(z) / mpmath.log(10)),
             "expm1": (np.expm1, mpmath.expm1), "log1p": (np.log1p, mpmath.log1p),
             "asinh": (np.arcsinh, mpmath.asinh), "asin": (np.arcsin, mpmath.asin),
             "atanh": (np.arctanh, mpmath.atanh), "atan": (np.arctan, mpmath.atan),
             "acosh": (np.arccosh, mpmath.acosh), "acos": (np.arccos, mpmath.acos)}


def _errors(got, exact, ft):
    """(worst componentwise ulps over the normal finite parts, normwise in u)"""
    u = float(np.finfo(ft).eps) / 2
    comp = 0.0
    for g, e in ((got.real, exact.real), (got.imag, exact.imag)):
        with np.errstate(all="ignore"):
            ef = ft(float(e)) if abs(e) < 1e400 else ft(np.inf)
        if np.isfinite(ef) and (abs(ef) >= np.finfo(ft).tiny or e == 0):
            comp = max(comp, float(abs(mpmath.mpf(float(g)) - e)) / float(np.spacing(np.abs(ef))))
    big = float(np.finfo(ft).max)
    fits = abs(exact.real) <= big and abs(exact.imag) <= big and abs(exact) >= np.finfo(ft).tiny
    norm = float(abs(mpmath.mpc(complex(got)) - exact) / abs(exact)) / u if fits else 0.0
    return comp, norm


def functions(n: int, only=None) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    from test_complex_functions import GROWING, INVERSE, _hard, _mp_operand   # the tests'

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(8)
    for dt, ft in ((np.complex64, np.float32), (np.complex128, np.float64)):
        for name, (np_fn, mp_fn) in FUNCTIONS.items():
            if only and name not in only:
                continue
            mpmath.mp.prec = 2600 if name in INVERSE else 200
            emax = 6 if name in GROWING else (30 if ft is np.float32 else 200)
            m = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-emax, emax, (2, n))
            z = np.concatenate([(m[0] + 1j * m[1]).astype(dt), _hard(dt, name)])
            ours = np.asarray(getattr(lt, name)(lt.asarray(z)))
            theirs = np_fn(z)
            w = [0.0] * 4
            for i in range(len(z)):
                if not np.isfinite(z[i]) or z[i] == 0:
                    continue
                on, off = (z[i].real, z[i].imag) if name != "atan" else (z[i].imag, z[i].real)
                if name in ("atanh", "atan") and abs(on) == 1 and off == 0:
                    continue   # the poles (the special cases' tests)
                e = mp_fn(_mp_operand(complex(z[i]), name))
                if not (mpmath.isfinite(e.real) and mpmath.isfinite(e.imag)):
                    continue
                a, b = _errors(ours[i], e, ft), _errors(theirs[i], e, ft)
                w = [max(w[0], a[0]), max(w[1], a[1]), max(w[2], b[0]), max(w[3], b[1])]
            print(f"{dt.__name__:10} {name:5} lazytensor {w[0]:.3f} ulp/part, {w[1]:.3f} u "
                  f"normwise   numpy {w[2]:.3f} ulp/part, {w[3]:.3f} u normwise")


def _pow_operands(rng, n, dt, emax, lo, hi):
    """n pairs (a, b) with |b log a| in [2^lo, 2^hi): a random, b = t / log a rounded to the
    dtype, t of that size with a real part that does not overflow exp"""
    m = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-emax, emax, (2, n))
    a = (m[0] + 1j * m[1]).astype(dt)
    size = 2.0 ** rng.uniform(lo, hi, n)
    lim = np.minimum(size, 80.0 if dt == np.complex64 else 700.0)   # Re t: no overflow
    re = rng.uniform(-1, 1, n) * lim
    t = re + 1j * rng.choice([-1.0, 1.0], n) * np.sqrt(size ** 2 - re ** 2)
    b = (t / np.log(a.astype(np.complex128))).astype(dt)
    return a, b


def powers(n: int) -> None:
    warnings.simplefilter("ignore")
    mpmath.mp.prec = 200
    rng = np.random.default_rng(9)
    for dt, ft in ((np.complex64, np.float32), (np.complex128, np.float64)):
        emax = 30 if ft is np.float32 else 200
        bands = [(-4, 4), (4, 10), (10, 20), (20, 30), (30, 45), (45, 60)]
        for lo, hi in bands:
            a, b = _pow_operands(rng, n, dt, emax, lo, hi)
            _report_pow(dt, ft, f"|b log a| 2^{lo}..2^{hi}", a, b)
        k = np.concatenate([np.arange(2, 100), -np.arange(2, 100)])
        k = np.repeat(k, max(1, n // 200))
        arg = rng.uniform(-np.pi, np.pi, len(k))
        a = (2.0 ** (rng.uniform(-4, 4, len(k)) / np.abs(k)) * np.exp(1j * arg)).astype(dt)
        _report_pow(dt, ft, "integer n, 2 <= |n| < 100", a, k.astype(dt))


def _report_pow(dt, ft, what, a, b):
    ours = np.asarray(lt.pow(lt.asarray(a), lt.asarray(b)))
    with np.errstate(all="ignore"):
        theirs = np.power(a, b)
    w, w_np = 0.0, 0.0
    for i in range(len(a)):
        e = mpmath.power(mpmath.mpc(complex(a[i])), mpmath.mpc(complex(b[i])))
        if b[i].imag == 0 and b[i].real == int(b[i].real):   # mpmath's integer power: exact
            e = mpmath.mpc(complex(a[i])) ** int(b[i].real)
        w = max(w, _errors(ours[i], e, ft)[1])
        w_np = max(w_np, _errors(theirs[i], e, ft)[1])
    print(f"{dt.__name__:10} pow  {what:28} lazytensor {w:.3f} u   numpy {w_np:.3f} u  (normwise)")


if __name__ == "__main__":
    if "--pow" in sys.argv:
        powers(int(sys.argv[1]) if sys.argv[1].isdigit() else 2000)
        sys.exit(0)
    count = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 5000
    pick = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    if "--functions" not in sys.argv and not pick:
        main(count)
    functions(count, pick)
