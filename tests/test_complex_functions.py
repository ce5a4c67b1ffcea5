"""Complex functions in the kernel (kernels_c/math/lt_cfunc.h, lt_cfunc_inv.h): every special
case of the Array API 2025.12 tables, on every kernel path and thread count with the same
bits; accuracy against mpmath within the bounds of the op table (componentwise, in ulps of
each part); fusion with real ops (docs/complex.md)."""

import warnings

import mpmath
import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine.ops import OPS

CDTYPES = [np.complex64, np.complex128]
PART = {np.complex64: np.float32, np.complex128: np.float64}
PATHS = [p for p in ("generic", "avx2") if p in lt.kernel_paths()]
INF, NAN = float("inf"), float("nan")
PI = np.pi


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


FN = {"exp": lt.exp, "log": lt.log, "sqrt": lt.sqrt, "sign": lt.sign, "sinh": lt.sinh,
      "cosh": lt.cosh, "tanh": lt.tanh, "sin": lt.sin, "cos": lt.cos, "tan": lt.tan,
      "log2": lt.log2, "log10": lt.log10, "expm1": lt.expm1, "log1p": lt.log1p,
      "asinh": lt.asinh, "asin": lt.asin, "atanh": lt.atanh, "atan": lt.atan,
      "acosh": lt.acosh, "acos": lt.acos}
INVERSE = ("asinh", "asin", "atanh", "atan", "acosh", "acos")


def run_everywhere(name, z):
    """The op on z on every kernel path at 1 and 2 threads: one result, the bits equal."""
    outs = []
    for path in PATHS:
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads):
                outs.append(np.asarray(FN[name](lt.asarray(z))))
    assert all(o.tobytes() == outs[0].tobytes() for o in outs), name
    return outs[0]


# ---- the standard's special cases ---------------------------------------------------------------
# value classes of the tables' wording
FINITE = [0.0, -0.0, 0.75, -2.5, 3.0]
NONZERO_FINITE = [0.75, -2.5, 3.0, -1e-3]
POS_FINITE = [0.75, 3.0, 1e-3]
ANY = FINITE + [INF, -INF, NAN]

# rows: (a values, b values, re, im); a part is a number (its sign checked), NAN, a callable
# of (a, b), or ("|.|", v) where the standard leaves the sign unspecified
ZERO_ANY_SIGN, INF_ANY_SIGN = ("|.|", 0.0), ("|.|", INF)
TABLES = {
    "exp": [
        ([0.0, -0.0], [0.0], 1.0, 0.0),
        (FINITE, [INF], NAN, NAN),
        (FINITE, [NAN], NAN, NAN),
        ([INF], [0.0], INF, 0.0),
        ([-INF], FINITE, lambda a, b: 0.0 * np.cos(b), lambda a, b: 0.0 * np.sin(b)),
        ([INF], NONZERO_FINITE, lambda a, b: INF * np.cos(b), lambda a, b: INF * np.sin(b)),
        ([-INF], [INF], ZERO_ANY_SIGN, ZERO_ANY_SIGN),
        ([INF], [INF], INF_ANY_SIGN, NAN),
        ([-INF], [NAN], ZERO_ANY_SIGN, ZERO_ANY_SIGN),
        ([INF], [NAN], INF_ANY_SIGN, NAN),
        ([NAN], [0.0], NAN, 0.0),
        ([NAN], NONZERO_FINITE + [INF, -INF], NAN, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "sqrt": [
        ([0.0, -0.0], [0.0], 0.0, 0.0),
        (ANY, [INF], INF, INF),
        (FINITE, [NAN], NAN, NAN),
        ([-INF], POS_FINITE, 0.0, INF),
        ([INF], POS_FINITE, INF, 0.0),
        ([-INF], [NAN], NAN, INF_ANY_SIGN),
        ([INF], [NAN], INF, NAN),
        ([NAN], FINITE + [NAN], NAN, NAN),     # "any value" but +-infinity (the row above)
    ],
    "log": [
        ([-0.0], [0.0], -INF, PI),
        ([0.0], [0.0], -INF, 0.0),
        (FINITE, [INF], INF, PI / 2),
        (FINITE, [NAN], NAN, NAN),
        ([-INF], POS_FINITE, INF, PI),
        ([INF], POS_FINITE, INF, 0.0),
        ([-INF], [INF], INF, 3 * PI / 4),
        ([INF], [INF], INF, PI / 4),
        ([INF, -INF], [NAN], INF, NAN),
        ([NAN], FINITE, NAN, NAN),
        ([NAN], [INF], INF, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "sign": [
        ([0.0, -0.0], [0.0, -0.0], 0.0, 0.0),
        ([NAN], ANY, NAN, NAN),
        (ANY, [NAN], NAN, NAN),
        # the remaining cases by division's rules: z / |z|
        ([INF, -INF], FINITE, lambda a, b: np.sign(a), lambda a, b: np.copysign(0.0, b)),
        (FINITE, [INF, -INF], lambda a, b: np.copysign(0.0, a), lambda a, b: np.sign(b)),
        ([INF, -INF], [INF, -INF], NAN, NAN),
    ],
    # the tables for +0 <= a (sinh is odd, cosh even: the test also runs -z and conj(z))
    "sinh": [
        ([0.0], [0.0], 0.0, 0.0),
        ([0.0], [INF], ZERO_ANY_SIGN, NAN),
        ([0.0], [NAN], ZERO_ANY_SIGN, NAN),
        (POS_FINITE, [INF], NAN, NAN),
        (POS_FINITE, [NAN], NAN, NAN),
        ([INF], [0.0], INF, 0.0),
        ([INF], POS_FINITE, lambda a, b: INF * np.cos(b), lambda a, b: INF * np.sin(b)),
        ([INF], [INF], INF_ANY_SIGN, NAN),
        ([INF], [NAN], INF_ANY_SIGN, NAN),
        ([NAN], [0.0], NAN, 0.0),
        ([NAN], NONZERO_FINITE, NAN, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "cosh": [
        ([0.0], [0.0], 1.0, 0.0),
        ([0.0], [INF], NAN, ZERO_ANY_SIGN),
        ([0.0], [NAN], NAN, ZERO_ANY_SIGN),
        (NONZERO_FINITE, [INF], NAN, NAN),
        (NONZERO_FINITE, [NAN], NAN, NAN),
        ([INF], [0.0], INF, 0.0),
        ([INF], NONZERO_FINITE, lambda a, b: INF * np.cos(b), lambda a, b: INF * np.sin(b)),
        ([INF], [INF], INF_ANY_SIGN, NAN),
        ([INF], [NAN], INF, NAN),
        ([NAN], [0.0, -0.0], NAN, ZERO_ANY_SIGN),
        ([NAN], NONZERO_FINITE, NAN, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "tanh": [
        ([0.0], [0.0], 0.0, 0.0),
        (NONZERO_FINITE, [INF], NAN, NAN),
        ([0.0], [INF], 0.0, NAN),
        (NONZERO_FINITE, [NAN], NAN, NAN),
        ([0.0], [NAN], 0.0, NAN),
        ([INF], POS_FINITE, 1.0, 0.0),
        ([INF], [INF], 1.0, ZERO_ANY_SIGN),
        ([INF], [NAN], 1.0, ZERO_ANY_SIGN),
        ([NAN], [0.0], NAN, 0.0),
        ([NAN], NONZERO_FINITE + [INF, -INF], NAN, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "expm1": [
        ([0.0, -0.0], [0.0], 0.0, 0.0),      # as exp(z) - 1: +0
        (FINITE, [INF], NAN, NAN),
        (FINITE, [NAN], NAN, NAN),
        ([INF], [0.0], INF, 0.0),
        ([-INF], FINITE, lambda a, b: 0.0 * np.cos(b) - 1.0, lambda a, b: 0.0 * np.sin(b)),
        ([INF], NONZERO_FINITE, lambda a, b: INF * np.cos(b) - 1.0, lambda a, b: INF * np.sin(b)),
        ([-INF], [INF], -1.0, ZERO_ANY_SIGN),
        ([INF], [INF], INF_ANY_SIGN, NAN),
        ([-INF], [NAN], -1.0, ZERO_ANY_SIGN),
        ([INF], [NAN], INF_ANY_SIGN, NAN),
        ([NAN], [0.0], NAN, 0.0),
        ([NAN], NONZERO_FINITE + [INF, -INF], NAN, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "log1p": [
        ([-1.0], [0.0], -INF, 0.0),
        (FINITE, [INF], INF, PI / 2),
        (FINITE, [NAN], NAN, NAN),
        ([-INF], POS_FINITE, INF, PI),
        ([INF], POS_FINITE, INF, 0.0),
        ([-INF], [INF], INF, 3 * PI / 4),
        ([INF], [INF], INF, PI / 4),
        ([INF, -INF], [NAN], INF, NAN),
        ([NAN], FINITE, NAN, NAN),
        ([NAN], [INF], INF, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    # the inverse functions (asin and atan: the identities' test below); asinh and atanh are
    # odd (rows for +0 <= a, the test runs -z), every one conjugate-symmetric
    "asinh": [
        ([0.0], [0.0], 0.0, 0.0),
        (POS_FINITE, [INF], INF, PI / 2),
        (FINITE, [NAN], NAN, NAN),
        ([INF], POS_FINITE, INF, 0.0),
        ([INF], [INF], INF, PI / 4),
        ([INF], [NAN], INF, NAN),                # C99 Annex G (the standard has no row)
        ([NAN], [0.0], NAN, 0.0),
        ([NAN], NONZERO_FINITE, NAN, NAN),
        ([NAN], [INF], INF_ANY_SIGN, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "atanh": [
        ([0.0], [0.0], 0.0, 0.0),
        ([0.0], [NAN], 0.0, NAN),
        ([1.0], [0.0], INF, 0.0),
        (POS_FINITE, [INF], 0.0, PI / 2),
        (NONZERO_FINITE, [NAN], NAN, NAN),
        ([INF], POS_FINITE, 0.0, PI / 2),
        ([INF], [INF], 0.0, PI / 2),
        ([INF], [NAN], 0.0, NAN),
        ([NAN], FINITE, NAN, NAN),
        ([NAN], [INF], ZERO_ANY_SIGN, PI / 2),
        ([NAN], [NAN], NAN, NAN),
    ],
    "acosh": [
        ([0.0, -0.0], [0.0], 0.0, PI / 2),
        (FINITE, [INF], INF, PI / 2),
        (NONZERO_FINITE, [NAN], NAN, NAN),
        ([0.0], [NAN], NAN, ("|.|", PI / 2)),
        ([-INF], POS_FINITE, INF, PI),
        ([INF], POS_FINITE, INF, 0.0),
        ([-INF], [INF], INF, 3 * PI / 4),
        ([INF], [INF], INF, PI / 4),
        ([INF, -INF], [NAN], INF, NAN),
        ([NAN], FINITE, NAN, NAN),
        ([NAN], [INF], INF, NAN),
        ([NAN], [NAN], NAN, NAN),
    ],
    "acos": [
        ([0.0, -0.0], [0.0], PI / 2, -0.0),
        ([0.0, -0.0], [NAN], PI / 2, NAN),
        (FINITE, [INF], PI / 2, -INF),
        (NONZERO_FINITE, [NAN], NAN, NAN),
        ([-INF], POS_FINITE, PI, -INF),
        ([INF], POS_FINITE, 0.0, -INF),
        ([-INF], [INF], 3 * PI / 4, -INF),
        ([INF], [INF], PI / 4, -INF),
        ([INF, -INF], [NAN], NAN, INF_ANY_SIGN),
        ([NAN], FINITE, NAN, NAN),
        ([NAN], [INF], NAN, -INF),
        ([NAN], [NAN], NAN, NAN),
    ],
}
PARITY = {"sinh": -1, "tanh": -1, "cosh": 1, "asinh": -1, "atanh": -1}   # f(-z) = parity * f(z)


def _over(spec, k):
    """A table entry of log divided by ln b (the standard's change of base for log2, log10)."""
    if callable(spec):
        return lambda a, b: spec(a, b) / k
    return ("|.|", spec[1] / k) if isinstance(spec, tuple) else spec / k


for _name, _base in (("log2", 2.0), ("log10", 10.0)):
    TABLES[_name] = [(a, b, _over(re, np.log(_base)), _over(im, np.log(_base)))
                     for a, b, re, im in TABLES["log"]]


def _check_part(got, want, a, b, ftype):
    if callable(want):
        want = want(a, b)
    if isinstance(want, tuple):
        return np.abs(got) == ftype(want[1])
    if np.isnan(want):
        return np.isnan(got)
    want = ftype(want)
    return got == want and np.signbit(got) == np.signbit(want)


def _cases(name):
    for a_vals, b_vals, re, im in TABLES[name]:
        for a in a_vals:
            for b in b_vals:
                yield a, b, re, im


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", list(TABLES))
def test_every_special_case_of_the_standard(name, dtype):
    """Each row of the function's table, and its conjugate where the standard says
    f(conj(z)) = conj(f(z)) (exp, sqrt, log), on every path and thread count."""
    ftype = PART[dtype]
    cases = list(_cases(name))
    z = np.empty(len(cases), dtype)
    z.real = [c[0] for c in cases]
    z.imag = [c[1] for c in cases]
    got = run_everywhere(name, z)
    for (a, b, re, im), g in zip(cases, got):
        ok = _check_part(g.real, re, a, b, ftype) and _check_part(g.imag, im, a, b, ftype)
        assert ok, (name, dtype.__name__, complex(a, b), complex(g), re, im)
    if name in PARITY:   # the rows for a < 0 by symmetry (NaN's sign means nothing)
        neg = run_everywhere(name, -z)
        for (a, b, re, im), g, h in zip(cases, got, neg):
            for gp, hp, spec in ((g.real, h.real, re), (g.imag, h.imag, im)):
                if isinstance(spec, tuple) or np.isnan(gp):
                    assert np.isnan(gp) == np.isnan(hp)
                else:
                    want = PARITY[name] * gp
                    assert hp == want and np.signbit(hp) == np.signbit(want), (name, -complex(a, b))
    if name != "sign":
        zc = np.conj(z)
        gc = run_everywhere(name, zc)
        np.testing.assert_array_equal(gc.real, got.real)
        signed = np.array([not isinstance(c[3], tuple) for c in cases])   # specified
        assert ((np.isnan(got.imag) & np.isnan(gc.imag)) | (gc.imag == -got.imag) | ~signed).all()
        both = ~np.isnan(got.imag) & signed
        assert (np.signbit(gc.imag[both]) != np.signbit(got.imag[both])).all()


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name,hyp", [("sin", "sinh"), ("cos", "cosh"), ("tan", "tanh"),
                                      ("asin", "asinh"), ("atan", "atanh")])
def test_circular_functions_are_the_standards_identities(name, hyp, dtype):
    """sin z = -1j sinh(1j z), cos z = cosh(1j z), tan z = -1j tanh(1j z), asin z = -1j
    asinh(1j z), atan z = -1j atanh(1j z), bit for bit on every special value pair (the
    standard defines their special cases so), 1j z being the exact rotation -b + aj."""
    vals = [0.0, -0.0, 0.75, -2.5, 1e30, 1.0, -1.0, INF, -INF, NAN]
    z = np.array([complex(a, b) for a in vals for b in vals], dtype)
    rot = np.empty_like(z)
    rot.real, rot.imag = -z.imag, z.real
    got = run_everywhere(name, z)
    w = run_everywhere(hyp, rot)
    want = np.empty_like(w)
    if name == "cos":
        want = w
    else:
        want.real, want.imag = w.imag, -w.real
    for part in ("real", "imag"):
        g, h = getattr(got, part), getattr(want, part)
        assert ((np.isnan(g) & np.isnan(h)) | ((g == h) & (np.signbit(g) == np.signbit(h)))).all()


# ---- accuracy against mpmath -----------------------------------------------------------------------
MP = {"exp": mpmath.exp, "log": mpmath.log, "sqrt": mpmath.sqrt, "sign": lambda z: z / abs(z),
      "sinh": mpmath.sinh, "cosh": mpmath.cosh, "tanh": mpmath.tanh, "sin": mpmath.sin,
      "cos": mpmath.cos, "tan": mpmath.tan, "log2": lambda z: mpmath.log(z) / mpmath.log(2),
      "log10": lambda z: mpmath.log(z) / mpmath.log(10), "expm1": mpmath.expm1,
      "log1p": mpmath.log1p, "asinh": mpmath.asinh, "asin": mpmath.asin, "atanh": mpmath.atanh,
      "atan": mpmath.atan, "acosh": mpmath.acosh, "acos": mpmath.acos}
# operands of exp-like growth: parts of magnitude below 2^6 in the random sample
GROWING = ("exp", "expm1", "sinh", "cosh", "tanh", "sin", "cos", "tan")


def _hard(dtype, name):
    """Operands where a formula loses accuracy: exp near the zeros of cos and sin, far
    arguments, x beyond the overflow of exp(x) with a tiny y; log, sqrt, sign near |z| = 1,
    on the axes, at the extremes of the range."""
    ftype = PART[dtype]
    fi = np.finfo(ftype)
    tiny, big = float(fi.smallest_subnormal), float(fi.max)
    vals = [tiny, 3 * tiny, float(fi.tiny), 1e-20, 0.5, 1.0, 2.5, 1e20, big]
    if name in GROWING:
        xs = [0.0, 1e-30, -0.7, 30.0, 88.5, -103.5, 705.0, 709.9, 710.5, 1000.0, 1400.0,
              -1000.0, tiny, 1e-5, 21.9, 22.1, -40.5]
        ys = [tiny, 1e-300, 1e-20, 1.0, PI / 2, PI, 3 * PI / 2, 1e5 * PI / 2, 1e22, big, -2.5]
        zs = [complex(x, y) for x in xs for y in ys]
        if name in ("sin", "cos", "tan"):
            zs = [complex(z.imag, z.real) for z in zs]
    else:
        zs = [complex(s1 * a, s2 * b) for a in vals for b in vals for s1 in (1, -1)
              for s2 in (1, -1)]
        t = np.random.default_rng(11).uniform(0, 2 * PI, 200)   # |z| ~ 1
        zs += list(np.cos(t) + 1j * np.sin(t))
        zs += [complex(1 + 2.0 ** -k, 2.0 ** -(k // 2 + 1)) for k in range(5, 50)]
        if name in INVERSE:   # near the branch points +-1, +-i, on the cuts, zero parts
            near = [0.0, 2.0 ** -1074, 1e-300, 2.0 ** -60, 2.0 ** -30, 1e-8]
            w = [complex(1 + s1 * d, s2 * e) for d in near for e in near for s1 in (1, -1)
                 for s2 in (1, -1)]
            w += [complex(s1 * a, s2 * b) for a in (0.0, 0.5, 1.0, 2.0 ** 60, 2.0 ** 61)
                  for b in (0.0, 2.0 ** -401, 2.0 ** -59, 2.0 ** 59) for s1 in (1, -1) for s2 in (1, -1)]
            zs += w + [-z for z in w] + [complex(-z.imag, z.real) for z in w]
        if name == "log1p":   # |1 + z| ~ 1, z ~ -1, z ~ 0
            zs = [z - 1 for z in zs] + zs + [complex(-1 + 2.0 ** -k, 2.0 ** -k) for k in range(1, 60)]
    return np.array(zs, dtype)


def _random(dtype, n, spread, seed):
    rng = np.random.default_rng(seed)
    m = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-spread, spread, (2, n))
    return (m[0] + 1j * m[1]).astype(dtype)


def part_error_ulps(got, exact, ftype):
    """|got - exact| in ulps of the exact value rounded to the part's type (of the least
    normal value's spacing for a subnormal or zero one); None where it overflows."""
    with np.errstate(all="ignore"):
        ef = ftype(float(exact)) if abs(exact) < 1e400 else ftype(np.inf)
    if not np.isfinite(ef):
        return None if got == ef else np.inf
    ulp = float(np.spacing(np.abs(ef)))
    return float(abs(mpmath.mpf(float(got)) - exact)) / ulp


def _mp_operand(z, name):
    """z for mpmath: a zero part of an inverse function's operand as +-2^-2300 (mpmath has no
    signed zeros: this picks the side of a branch cut, and moves a branch point's value by
    less than the least subnormal)."""
    if name not in INVERSE:
        return mpmath.mpc(z)
    tz = mpmath.mpf(2) ** -2300
    part = [(tz if np.copysign(1.0, v) > 0 else -tz) if v == 0 else mpmath.mpf(v)
            for v in (z.real, z.imag)]
    return mpmath.mpc(*part)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", list(MP))
def test_componentwise_accuracy_against_mpmath(name, dtype):
    """Each part within the op table's bound (ulps of that part; a subnormal part within one
    of its ulps: two roundings), on random and hard operands.  The inverse functions at 2600
    bits: mpmath's formulas cancel near 0 (asinh of 1e-63 + 1e-76j lost its real part at
    200 bits) and the signed zeros above need the room."""
    mpmath.mp.prec = 2600 if name in INVERSE else 200
    ftype = PART[dtype]
    bound = OPS[name].cc_ulp[CDTYPES.index(dtype)]
    spread = 6 if name in GROWING else (40 if dtype == np.complex64 else 300)
    z = np.concatenate([_random(dtype, 300, spread, seed=list(MP).index(name)), _hard(dtype, name)])
    got = run_everywhere(name, z)
    fi = np.finfo(ftype)
    for zi, g in zip(z, got):
        on, off = (zi.real, zi.imag) if name == "atanh" else (zi.imag, zi.real)
        if name in ("atanh", "atan") and abs(on) == 1 and off == 0:
            continue   # the poles +-1 (+-i): the table's
        e = MP[name](_mp_operand(complex(zi), name))
        for k, (gp, ep) in enumerate(((g.real, e.real), (g.imag, e.imag))):
            err = part_error_ulps(gp, ep, ftype)
            if err is None:
                continue
            allowed = bound if abs(ep) >= fi.tiny or ep == 0 else max(bound, 1.0)
            if name == "expm1" and k == 0:   # near e^x cos y = 1: relative to the terms
                x, y = mpmath.mpf(float(zi.real)), mpmath.mpf(float(zi.imag))
                terms = abs(mpmath.exp(x) * mpmath.cos(y)) + 2 * mpmath.sin(y / 2) ** 2
                allowed += float(terms * 2.0 ** -52) / float(np.spacing(ftype(abs(float(ep)))))
            assert err <= allowed, (name, complex(zi), complex(g), complex(e), err)


# ---- fusion ------------------------------------------------------------------------------------------
def test_exp_of_a_phase_is_one_kernel_with_the_real_ops():
    rng = np.random.default_rng(0)
    phase = rng.uniform(-4, 4, 1000)
    amp = rng.uniform(0, 2, 1000)
    z = rng.standard_normal(1000) + 1j * rng.standard_normal(1000)
    P, A, Z = lt.asarray(phase), lt.asarray(amp), lt.asarray(z)
    r = lt.exp(1j * P) * A + Z
    e = lt.explain(r)
    assert len(e) == 1 and "exp" in e.kernels[0]["ops"]
    np.testing.assert_allclose(np.asarray(r), np.exp(1j * phase) * amp + z, rtol=1e-15, atol=1e-15)
    s = lt.sqrt(lt.log(Z) * 2) + lt.sign(Z) - abs(Z)
    assert len(lt.explain(s)) == 1
    np.testing.assert_allclose(np.asarray(s), np.sqrt(np.log(z) * 2) + z / np.abs(z) - np.abs(z),
                               rtol=1e-14)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_inverse_functions_are_one_kernel_and_numpys_values(dtype):
    """The six inverse functions fused with real and complex ops in one kernel, their values
    NumPy's on ordinary operands (off the branch cuts, where NumPy's formulas are accurate)."""
    rng = np.random.default_rng(3)
    z = (rng.uniform(-3, 3, 500) + 1j * rng.uniform(-3, 3, 500)).astype(dtype)
    x = rng.uniform(-1, 1, 500).astype(PART[dtype])
    Z, X = lt.asarray(z), lt.asarray(x)
    r = lt.asinh(Z) + lt.asin(Z) * 2 - lt.atanh(Z) + lt.atan(Z) * X + lt.acosh(Z) - lt.acos(Z)
    e = lt.explain(r)
    assert len(e) == 1
    assert {"asinh", "asin", "atanh", "atan", "acosh", "acos"} <= set(e.kernels[0]["ops"])
    tol = 2e-5 if dtype == np.complex64 else 1e-13
    for name, f in (("asinh", np.arcsinh), ("asin", np.arcsin), ("atanh", np.arctanh),
                    ("atan", np.arctan), ("acosh", np.arccosh), ("acos", np.arccos)):
        np.testing.assert_allclose(np.asarray(FN[name](Z)), f(z), rtol=tol, atol=0, err_msg=name)
    want = (np.arcsinh(z) + np.arcsin(z) * 2 - np.arctanh(z) + np.arctan(z) * x + np.arccosh(z)
            - np.arccos(z))
    np.testing.assert_allclose(np.asarray(r), want, rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_inverse_functions_special_values_are_numpys(dtype):
    """On every pair of special values (signed zeros on the cuts, +-1, infinities, NaN) the
    inverse functions give NumPy's values and signs, but asin(+-inf + nanj) = nan - infj and
    atan(+-inf + nanj) = +-pi/2 - 0j by the standard's -1j * f(1j z) from asinh's and atanh's
    unspecified signs, taken + (NumPy: nan + infj, +-pi/2 + 0j, though its asinh and atanh
    give + there too)."""
    vals = [0.0, -0.0, 0.5, -2.5, 1.0, -1.0, 1e30, INF, -INF, NAN]
    z = np.array([complex(a, b) for a in vals for b in vals], dtype)
    npf = {"asinh": np.arcsinh, "asin": np.arcsin, "atanh": np.arctanh, "atan": np.arctan,
           "acosh": np.arccosh, "acos": np.arccos}
    ftype = PART[dtype]
    for name in INVERSE:
        got, want = run_everywhere(name, z), npf[name](z)
        for zi, g, w in zip(z, got, want):
            if name in ("asin", "atan") and np.isinf(zi.real) and np.isnan(zi.imag):
                want = (NAN, -INF) if name == "asin" else (np.copysign(PI / 2, zi.real), -0.0)
                assert _check_part(g.real, want[0], 0, 0, ftype)
                assert _check_part(g.imag, want[1], 0, 0, ftype)
                continue
            for gp, wp in ((g.real, w.real), (g.imag, w.imag)):
                ok = (np.isnan(gp) and np.isnan(wp)) or (
                    np.signbit(gp) == np.signbit(wp)
                    and (gp == wp or abs(gp - wp) <= 4 * np.spacing(np.abs(wp))))
                assert ok, (name, complex(zi), complex(g), complex(w))


# ---- the arithmetic's rare paths: the same bits on every path --------------------------------------
@pytest.mark.parametrize("dtype", CDTYPES)
def test_arithmetic_rare_paths_have_the_same_bits_on_every_path(dtype):
    """Operands that take the scaled and Annex G paths of * / reciprocal and square (products
    that overflow, quotients beyond the safe range, infinite operands) and random ones: gcc
    fused a product and the alternating +/- of a complex formula into FMADDSUB on the avx2
    path (lt_complex.h, LTM_OPAQUE), which only a comparison of the paths shows."""
    fi = np.finfo(PART[dtype])
    big, tiny = float(fi.max) / 3, float(fi.smallest_subnormal) * 5
    vals = [0.0, -1.5, 2.5e-3, 7.0, big, -big, tiny, float(fi.tiny) * 3, 1e30, INF, NAN]
    zs = np.array([complex(a, b) for a in vals for b in vals], dtype)
    x, y = (g.ravel() for g in np.meshgrid(zs, zs))
    rng = np.random.default_rng(5)
    r = (rng.standard_normal((2, 4000)) * 2.0 ** rng.integers(-60, 60, (2, 4000))).astype(PART[dtype])
    x = np.concatenate([x, (r[0] + 1j * r[1]).astype(dtype)])
    y = np.concatenate([y, (r[1] - 1j * r[0]).astype(dtype)])
    outs = []
    for path in PATHS:
        with lt.config(kernel_path=path):
            X, Y = lt.asarray(x), lt.asarray(y)
            outs.append([np.asarray(t).tobytes() for t in (X * Y, X / Y, lt.reciprocal(X),
                                                         lt.square(X))])
    assert all(o == outs[0] for o in outs)
