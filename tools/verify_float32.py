"""Exhaustive float32 check: every one of the 2^32 inputs of a function, through the kernel,
against a correctly rounded reference.

    python tools/verify_float32.py sigmoid [exp tanh ...] [--bits 32] [--path avx2]

The reference is the float64 NumPy/SciPy function rounded once to float32.  Where the
float64 value lies so close to the midpoint between two float32 numbers that its own error
could decide the rounding, the input is recomputed with MPFR (gmpy2, 120 bits) when gmpy2 is
installed, and counted as "undecided" otherwise.  Prints, per function, the number of
misrounded inputs (results that differ from the correctly rounded value), the largest error
in float32 ulps, the undecided count and the time.  ``--bits 24`` sweeps a stratified
sample instead (every 2^(32-bits)-th bit pattern) for a quick look.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

try:
    from scipy import special
except ImportError:  # pragma: no cover
    special = None


def _gelu64(x):
    with np.errstate(all="ignore"):
        out = np.where(x < 0, 0.5 * x * special.erfc(-x / np.sqrt(2.0)),
                       0.5 * x * (1.0 + special.erf(x / np.sqrt(2.0))))
    return np.where(np.isneginf(x), -0.0, out)


def _gelu_tanh64(x):
    with np.errstate(all="ignore"):
        u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x * x * x)
        out = x * special.expit(2.0 * u)
    return np.where(np.isneginf(x), -0.0, out)


def _silu64(x):
    with np.errstate(all="ignore"):
        out = x * special.expit(x)
    return np.where(np.isneginf(x), -0.0, out)


def mp_to_f32(gmpy2, v):
    """An MPFR value correctly rounded to float32 (ties to even).  Not through float64:
    rounding to double first can land on a float32 midpoint and round the wrong way."""
    if gmpy2.is_nan(v):
        return np.float32(np.nan)
    if abs(v) >= gmpy2.mpfr(2) ** 128 - gmpy2.mpfr(2) ** 103:   # at or past the midpoint
        return np.float32(np.inf if v > 0 else -np.inf)
    with np.errstate(all="ignore"):
        f = np.float32(float(v))
    best = None
    for c in (f, np.nextafter(f, np.float32(-np.inf)), np.nextafter(f, np.float32(np.inf))):
        if np.isinf(c):
            continue
        d = abs(gmpy2.mpfr(float(c)) - v)
        even = (int(np.array(c, np.float32).view(np.uint32)) & 1) == 0
        if best is None or d < best[0] or (d == best[0] and even):
            best = (d, c)
    r = best[1]
    return np.float32(np.copysign(0.0, float(v))) if r == 0 else r


def references():
    """name -> (float64 reference on a NumPy array, MPFR reference of one float or None)."""
    try:
        import gmpy2
    except ImportError:
        gmpy2 = None

    if gmpy2 is not None:
        ctx = gmpy2.get_context()
        # far more than float64: near a float32 midpoint the deciding term can be as small
        # as x^3 for a subnormal x (atan2(y, 2) = y/2 - (y/2)^3/3 ...)
        ctx.precision, ctx.emin, ctx.emax = 1000, -20000, 20000

    def mp(fn):
        if gmpy2 is None:
            return None

        def ref(x):
            return mp_to_f32(gmpy2, fn(gmpy2, gmpy2.mpfr(float(x))))
        return ref

    return {name: (ref64, ref_mp) for name, (_, ref64, ref_mp) in _table(mp).items()}


def _table(mp):
    """name -> (the lazytensor function, given the module; float64 ref; MPFR ref)."""
    return {
        "exp": (lambda lt: lt.exp, np.exp, mp(lambda g, x: g.exp(x))),
        "expm1": (lambda lt: lt.expm1, np.expm1, mp(lambda g, x: g.expm1(x))),
        "log": (lambda lt: lt.log, np.log, mp(lambda g, x: g.log(x))),
        "log1p": (lambda lt: lt.log1p, np.log1p, mp(lambda g, x: g.log1p(x))),
        "tanh": (lambda lt: lt.tanh, np.tanh, mp(lambda g, x: g.tanh(x))),
        "erf": (lambda lt: lt.erf, special.erf, mp(lambda g, x: g.erf(x))),
        "sigmoid": (lambda lt: lt.nn.sigmoid, special.expit, mp(lambda g, x: 1 / (1 + g.exp(-x)))),
        "silu": (lambda lt: lt.nn.silu, _silu64, mp(lambda g, x: x / (1 + g.exp(-x)))),
        "gelu": (lambda lt: lt.nn.gelu, _gelu64,
                 mp(lambda g, x: x / 2 * g.erfc(-x / g.sqrt(2)))),
        "gelu_tanh": (lambda lt: lambda t: lt.nn.gelu(t, approximate="tanh"), _gelu_tanh64,
                      mp(lambda g, x: x / (1 + g.exp(-2 * g.sqrt(2 / g.const_pi()) *
                                                     (x + g.mpfr("0.044715") * x ** 3))))),
        "log2": (lambda lt: lt.log2, np.log2, mp(lambda g, x: g.log2(x))),
        "log10": (lambda lt: lt.log10, np.log10, mp(lambda g, x: g.log10(x))),
        "sinh": (lambda lt: lt.sinh, np.sinh, mp(lambda g, x: g.sinh(x))),
        "cosh": (lambda lt: lt.cosh, np.cosh, mp(lambda g, x: g.cosh(x))),
        "asinh": (lambda lt: lt.asinh, np.arcsinh, mp(lambda g, x: g.asinh(x))),
        "acosh": (lambda lt: lt.acosh, np.arccosh, mp(lambda g, x: g.acosh(x))),
        "atanh": (lambda lt: lt.atanh, np.arctanh, mp(lambda g, x: g.atanh(x))),
        "sin": (lambda lt: lt.sin, np.sin, mp(lambda g, x: g.sin(x))),
        "cos": (lambda lt: lt.cos, np.cos, mp(lambda g, x: g.cos(x))),
        "tan": (lambda lt: lt.tan, np.tan, mp(lambda g, x: g.tan(x))),
        "asin": (lambda lt: lt.asin, np.arcsin, mp(lambda g, x: g.asin(x))),
        "acos": (lambda lt: lt.acos, np.arccos, mp(lambda g, x: g.acos(x))),
        "atan": (lambda lt: lt.atan, np.arctan, mp(lambda g, x: g.atan(x))),
    }


def _functions():
    """name -> (the kernel through lazytensor on a NumPy array, float64 ref, MPFR ref)."""
    import lazytensor as lt

    refs = references()

    def kernel(f):
        return lambda x: np.asarray(f(lt.asarray(x)))

    return {name: (kernel(get(lt)), *refs[name])
            for name, (get, *_) in _table(lambda fn: None).items()}


def _round_to_f32(v64):
    with np.errstate(all="ignore"):
        return v64.astype(np.float32)


# The float64 references are good to about 2^-50 relative, except where the argument of a
# steep function is rounded first: SciPy's erfc(-x/sqrt(2)) for the Gelu, whose relative
# error grows like x^2 2^-53; for those a wider band goes to MPFR.
NEAR_MIDPOINT = {"gelu": 2.0 ** -36, "gelu_tanh": 2.0 ** -36}


def _near_midpoint(v64, tol=2.0 ** -45):
    """float64 values within ``tol`` (relative) of a float32 rounding boundary."""
    with np.errstate(all="ignore"):
        f = v64.astype(np.float32)
        up = np.nextafter(f, np.float32(np.inf)).astype(np.float64)
        down = np.nextafter(f, np.float32(-np.inf)).astype(np.float64)
        f64 = f.astype(np.float64)
        mid = np.where(v64 >= f64, (f64 + up) / 2, (f64 + down) / 2)
        return np.isfinite(v64) & (np.abs(v64 - mid) <= np.abs(v64) * tol)


def compare(x, got, ref64, ref_mp, tol=2.0 ** -45):
    """Results ``got`` of float32 inputs ``x`` against the correctly rounded values.

    Returns (misrounded count, max ulp distance from the correctly rounded result,
    undecided count, worst (x, got, want) or None)."""
    with np.errstate(all="ignore"):
        v64 = ref64(x.astype(np.float64))
    want = _round_to_f32(v64)
    near = _near_midpoint(v64, tol)
    undecided = 0
    if near.any():
        idx = np.nonzero(near)[0]
        if ref_mp is None:
            undecided = idx.size
        else:
            want = want.copy()
            want[idx] = np.array([ref_mp(v) for v in x[idx]], np.float32)
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    if same.all():
        return 0, 0, undecided, None
    bad = np.nonzero(~same)[0]
    gi = got[bad].view(np.int32).astype(np.int64)
    wi = want[bad].view(np.int32).astype(np.int64)
    gi = np.where(gi < 0, -(gi & 0x7FFFFFFF), gi)   # ordered integer line
    wi = np.where(wi < 0, -(wi & 0x7FFFFFFF), wi)
    ulps = np.where(np.isnan(got[bad]) | np.isnan(want[bad]), 1 << 31, np.abs(gi - wi))
    k = int(np.argmax(ulps))
    return bad.size, int(ulps[k]), undecided, (float(x[bad[k]]), float(got[bad[k]]),
                                               float(want[bad[k]]))


def verify(name, fn, ref64, ref_mp, bits, block=1 << 22, tol=None):
    """Sweep 2^bits float32 inputs; ``fn`` maps a float32 NumPy array to a float32 array
    (the kernel through lazytensor here; a standalone build of a C function works too)."""
    step = 1 << (32 - bits)
    misrounded, max_ulp, undecided, worst = 0, 0, 0, None
    start = time.perf_counter()
    for base in range(0, 1 << 32, block * step):
        pattern = np.arange(base, min(base + block * step, 1 << 32), step, dtype=np.uint64)
        x = pattern.astype(np.uint32).view(np.float32)
        bad, ulps, und, bad_worst = compare(x, fn(x), ref64, ref_mp,
                                            tol or NEAR_MIDPOINT.get(name, 2.0 ** -45))
        misrounded += bad
        undecided += und
        if ulps > max_ulp:
            max_ulp, worst = ulps, bad_worst
    seconds = time.perf_counter() - start
    total = (1 << 32) // step
    print(f"{name:10s} inputs {total:>10d}  misrounded {misrounded:>8d}  max ulp {max_ulp:>3d}  "
          f"undecided {undecided:>6d}  {seconds:7.1f} s"
          + (f"  worst x={worst[0]!r} got {worst[1]!r} want {worst[2]!r}" if worst else ""),
          flush=True)
    return misrounded


def main(argv=None):
    import lazytensor as lt

    funcs = _functions()
    names = list(funcs)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("functions", nargs="+", choices=names)
    ap.add_argument("--bits", type=int, default=32, help="sweep 2^bits inputs (32: all)")
    ap.add_argument("--path", default=None, help="kernel path (default: the best)")
    ap.add_argument("--mode", default="exact", choices=("exact", "fast"))
    args = ap.parse_args(argv)
    print(f"lazytensor kernel path {args.path or lt.kernel_path()}, mode {args.mode}, "
          f"2^{args.bits} inputs per function", flush=True)
    with lt.config(kernel_path=args.path, mode=args.mode):
        for name in args.functions:
            fn, ref64, ref_mp = funcs[name]
            verify(name, fn, ref64, ref_mp, args.bits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
