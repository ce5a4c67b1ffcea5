"""Complex pow in the kernel (kernels_c/math/lt_cpow.h): NumPy's semantics (npy_cpow: b == 0
gives 1, a == 0 gives 0 or NaN, integer exponents |n| < 100 by its repeated products) and
exp(b log a) otherwise, within the op table's normwise bound of mpmath; the same bits on every
kernel path and thread count and in both modes; fused with real ops; NumPy's result dtypes
for mixed operands (docs/complex.md)."""

import itertools
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


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def pow_everywhere(a, b):
    """lt.pow(a, b) on every kernel path at 1 and 2 threads, and in fast mode: one result,
    the bits equal (NaN bits aside in fast mode)."""
    outs = []
    for path in PATHS:
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads):
                outs.append(np.asarray(lt.pow(lt.asarray(a), lt.asarray(b))))
    assert all(o.tobytes() == outs[0].tobytes() for o in outs)
    with lt.mode("fast"):
        fast = np.asarray(lt.pow(lt.asarray(a), lt.asarray(b)))
    np.testing.assert_array_equal(fast, outs[0])
    return outs[0]


def _mp(z):
    """z for mpmath: a zero imaginary part as +-2^-2300 (the side of log's branch cut that its
    sign chooses; mpmath has no signed zero)"""
    im = float(z.imag) if z.imag != 0 else np.copysign(1.0, z.imag) * mpmath.mpf(2) ** -2300
    return mpmath.mpc(float(z.real), im)


# ---- exp(b log a): accuracy against mpmath ----------------------------------------------------------
def _general_operands(dtype, n, seed):
    """Random a (parts of any sign, 2^-30..2^30 / 2^-200..2^200) and b with |b log a| up to
    2^8 (a quarter up to 2^18, the bound's range, on the imaginary side), and hard ones: |a| near 1, a on the negative axis on
    either side of the cut, tiny and large b, parts at the range's ends, results near
    overflow; no exponent real with an integer value (NumPy's products: the next test)."""
    rng = np.random.default_rng(seed)
    emax = 30 if dtype == np.complex64 else 200
    m = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-emax, emax, (2, n))
    a = m[0] + 1j * m[1]
    size = 2.0 ** rng.uniform(-6, 8, n)
    size[: n // 4] *= 2.0 ** 10
    lim = np.minimum(size, 60.0 if dtype == np.complex64 else 600.0)
    re = rng.uniform(-1, 1, n) * lim
    t = re + 1j * rng.choice([-1.0, 1.0], n) * np.sqrt(size ** 2 - re ** 2)
    b = t / np.log(a)
    fi = np.finfo(PART[dtype])
    big = float(fi.max) ** 0.5
    hard = [(np.exp(1j * th), w) for th in (0.1, 1.0, 2.0, 3.1, -3.1) for w in (0.5 + 3j, 1e3j, 7.25)]
    hard += [(complex(-4.0, s), w) for s in (0.0, -0.0) for w in (0.5, 1.5 - 0.25j, 1e-3j)]
    hard += [(complex(2.0, 0.0), w) for w in (0.5, -2.5, 1e-20, 1e-20j, 99.5, 100.0, 127.9)]
    hard += [(complex(1 + 2.0 ** -k, 2.0 ** -k), 0.5 + 0.5j) for k in (10, 20, 40)]
    hard += [(complex(x, y), w) for x, y in ((big, big), (1 / big, -1 / big), (big, 1.0), (-1.0, 1 / big))
             for w in (0.5 + 0.1j, -0.25j, 1.5)]
    if dtype == np.complex128:
        hard += [(complex(2.0, 0.0), 1023.9), (complex(0.5, 0.0), 1021.5), (1e-300 + 1e-300j, -1.02),
                 (np.exp(1j) * (1 + 2.0 ** -40), 2.0 ** 17 + 0.5j)]
    a = np.concatenate([a, [h[0] for h in hard]]).astype(dtype)
    b = np.concatenate([b, [h[1] for h in hard]]).astype(dtype)
    integer = (b.imag == 0) & (b.real == np.round(b.real)) & (np.abs(b.real) < 100)
    return a[~integer], b[~integer]


@pytest.mark.parametrize("dtype", CDTYPES)
def test_general_case_within_the_tables_bound_of_mpmath(dtype):
    """|got - exact| / |exact| within the op table's normwise bound (cc_ulp, in u = eps/2),
    a subnormal part within its own spacing; results that overflow left out."""
    mpmath.mp.prec = 200
    a, b = _general_operands(dtype, 400, seed=1)
    got = pow_everywhere(a, b)
    fi = np.finfo(PART[dtype])
    u, bound = float(fi.eps) / 2, OPS["pow"].cc_ulp[CDTYPES.index(dtype)]
    worst = 0.0
    for x, y, g in zip(a, b, got):
        e = mpmath.power(_mp(x), mpmath.mpc(complex(y)))
        if max(abs(e.real), abs(e.imag)) > fi.max or abs(e) < fi.tiny:
            continue
        err = abs(mpmath.mpc(complex(g)) - e)
        assert err <= bound * u * abs(e) + float(fi.smallest_subnormal), (x, y, g, complex(e))
        worst = max(worst, float(err / abs(e)) / u)
    assert worst > 0.3   # the sample reaches the bound's order


@pytest.mark.parametrize("dtype", CDTYPES)
def test_more_accurate_than_numpy_for_large_b_log_a(dtype):
    """Where |b log a| is large NumPy's exp(b log a) in the dtype loses ~|b log a| u; the
    kernel's double-double product keeps the bound (docs/complex.md)."""
    mpmath.mp.prec = 200
    a = np.exp(1j * np.linspace(0.1, 3.0, 20)).astype(dtype)
    b = np.full(20, 3000.5 + 0.25j).astype(dtype)
    got = pow_everywhere(a, b)
    ref = [mpmath.power(mpmath.mpc(complex(x)), mpmath.mpc(complex(y))) for x, y in zip(a, b)]
    u = float(np.finfo(PART[dtype]).eps) / 2
    ours = max(float(abs(mpmath.mpc(complex(g)) - e) / abs(e)) for g, e in zip(got, ref)) / u
    theirs = max(float(abs(mpmath.mpc(complex(g)) - e) / abs(e)) for g, e in
                 zip(np.power(a, b), ref)) / u
    assert ours <= OPS["pow"].cc_ulp[CDTYPES.index(dtype)] < 100 < theirs


# ---- NumPy's cases: integer exponents, zeros, infinities, NaN ---------------------------------------
@pytest.mark.parametrize("dtype", CDTYPES)
def test_integer_exponents_are_numpys_bits(dtype):
    """b real with an integer value n, 0 < |n| < 100 (either zero sign of its imaginary part):
    NumPy's repeated products, bit for bit, on ordinary operands (no overflow)."""
    rng = np.random.default_rng(2)
    n = np.concatenate([np.arange(1, 100), -np.arange(1, 100)])
    a = 2.0 ** (rng.uniform(-3, 3, n.size) / np.abs(n)) * np.exp(1j * rng.uniform(-np.pi, np.pi, n.size))
    a = np.concatenate([a, rng.standard_normal(n.size) + 1j * rng.standard_normal(n.size)])
    b = np.concatenate([n, n]).astype(complex)
    b[::2] = np.conj(b[::2])          # imaginary parts -0 and +0
    a, b = a.astype(dtype), b.astype(dtype)
    want = np.power(a, b)
    ok = np.isfinite(want) & (np.abs(want) < np.finfo(PART[dtype]).max / 4)
    got = pow_everywhere(a, b)
    np.testing.assert_array_equal(got[ok], want[ok])
    assert ok.mean() > 0.9
    A = lt.asarray(a[:50])
    for k in (2, 3, -1, -7, 99):    # Python ints through the operator and NumPy's ufunc
        w = np.power(a[:50], dtype(k))
        np.testing.assert_array_equal(np.asarray(A ** k), w)
        np.testing.assert_array_equal(np.asarray(np.power(A, k)), w)


SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5, INF, -INF, NAN]


def _special_pairs(dtype):
    pairs = list(itertools.product(SPECIAL, repeat=4))
    a = np.array([complex(p[0], p[1]) for p in pairs], dtype)
    b = np.array([complex(p[2], p[3]) for p in pairs], dtype)
    return a, b


def _same(g, w):
    if np.isnan(w):
        return np.isnan(g)
    return g == w and np.signbit(g) == np.signbit(w)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_special_values_are_numpys(dtype):
    """Every pair of special values in each part (6561 pairs): NumPy's result wherever it has
    no NaN part, but a zero's sign where an operand is not finite (exp's table leaves it
    open) and finite parts within NumPy's error (its exp(b log a) is off by ~20 u); where NumPy's has a NaN part, ours too but
    for the integer powers of an infinite a (Annex G's products: 1 / (inf j) is 0)."""
    a, b = _special_pairs(dtype)
    got = pow_everywhere(a, b)
    want = np.power(a, b)
    u = float(np.finfo(PART[dtype]).eps) / 2
    for x, y, g, w in zip(a, b, got, want):
        if np.isnan(w.real) or np.isnan(w.imag):
            if not (np.isnan(g.real) or np.isnan(g.imag)):
                assert np.isinf(x) and y.imag == 0 and y.real == int(y.real), (x, y, g, w)
            continue
        if np.isfinite(g) and np.isfinite(w) and g != 0 and w != 0 and abs(g - w) <= 100 * u * abs(w):
            continue
        open_sign = not (np.isfinite(x) and np.isfinite(y))
        for gp, wp in ((g.real, w.real), (g.imag, w.imag)):
            assert _same(gp, wp) or (open_sign and gp == 0 and wp == 0), (x, y, g, w)
    # NumPy's first two rules, whatever the other operand
    np.testing.assert_array_equal(got[(b == 0)], dtype(1))
    zero = (a == 0) & (b != 0)
    assert (got[zero & (b.real > 0)] == 0).all() and not np.signbit(got[zero & (b.real > 0)].real).any()
    assert np.isnan(got[zero & ~(b.real > 0)]).all()
    # exact mode: every NaN part is the canonical quiet NaN
    ftype = PART[dtype]
    bits = np.uint32 if ftype == np.float32 else np.uint64
    parts = np.concatenate([got.real, got.imag])
    assert (parts[np.isnan(parts)].view(bits) == np.array(np.nan, ftype).view(bits)).all()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_non_finite_operands_are_exp_of_b_log_a(dtype):
    """The standard defines pow's special cases by exp(b log a): off NumPy's cases (b == 0,
    a == 0, integer b), operands with a non-finite part give exactly exp(b * log(a)) of the
    library's own exp, log and multiplication."""
    a, b = _special_pairs(dtype)
    keep = ~(np.isfinite(a) & np.isfinite(b)) & (a != 0) & (b != 0)
    keep &= ~((b.imag == 0) & np.isfinite(b.real) & (b.real == np.round(b.real)))
    a, b = a[keep], b[keep]
    got = pow_everywhere(a, b)
    A, B = lt.asarray(a), lt.asarray(b)
    np.testing.assert_array_equal(got, np.asarray(lt.exp(B * lt.log(A))))


# ---- recording, promotion, fusion ----------------------------------------------------------------
def test_pow_is_one_kernel_with_real_ops():
    rng = np.random.default_rng(4)
    z = (rng.standard_normal(300) + 1j * rng.standard_normal(300)).astype(np.complex64)
    w = (rng.standard_normal(300) + 1j * rng.standard_normal(300)).astype(np.complex64)
    x = rng.uniform(0.5, 2, 300).astype(np.float32)
    Z, W, X = lt.asarray(z), lt.asarray(w), lt.asarray(x)
    for r, ops in ((abs(Z ** 2) + X, ["pow", "abs", "add"]), (Z ** W + 1, ["pow", "add"]),
                   (2 ** Z * X ** Z, ["pow", "multiply"])):
        e = lt.explain(r)
        assert len(e) == 1 and set(ops) <= set(e.kernels[0]["ops"]), str(e)
        assert "computed by NumPy" not in str(e)
    np.testing.assert_allclose(np.asarray(abs(Z ** 2) + X), np.abs(z ** 2) + x, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(Z ** W + 1), z ** w + 1, rtol=2e-5, atol=1e-6)
    Y = lt.asarray(z.copy())
    Y **= 3
    np.testing.assert_array_equal(np.asarray(Y), np.power(z, np.complex64(3)))
    assert isinstance(np.power(Z, W), lt.Tensor)


OPERANDS = {"complex64": np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], np.complex64),
            "complex128": np.array([0.5 - 2j, 2 + 0.5j, -1.5 + 1j]),
            "float32": np.array([0.5, 1.5, 2.25], np.float32),
            "float64": np.array([1.25, 0.75, 3.0]),
            "int64": np.array([1, 2, 3]), "int8": np.array([1, -2, 3], np.int8),
            "uint8": np.array([1, 2, 3], np.uint8), "float16": np.array([0.5, 1.5, 2], np.float16),
            "bool": np.array([True, False, True])}
SCALARS = [2, -1, 0.5, 1j, 2.5 - 1j]


@pytest.mark.parametrize("left", list(OPERANDS))
def test_mixed_operands_dtypes_and_values_are_numpys(left):
    """Tensors of every dtype with complex ones and Python scalars (weak), both ways: NumPy's
    result dtype, and its values within the general case's rounding."""
    cases = [(OPERANDS[left], OPERANDS[r]) for r in OPERANDS] + \
            [(OPERANDS[left], s) for s in SCALARS] + [(s, OPERANDS[left]) for s in SCALARS]
    for x, y in cases:
        if not (np.iscomplexobj(x) or np.iscomplexobj(y)):
            continue
        want = np.power(x, y)
        got = lt.asarray(x) ** y if np.isscalar(y) else (
            x ** lt.asarray(y) if np.isscalar(x) else lt.asarray(x) ** lt.asarray(y))
        assert got.dtype == want.dtype, (x.dtype if not np.isscalar(x) else x, y, got.dtype)
        tol = 1e-5 if want.dtype == np.complex64 else 1e-13
        np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def test_complex64_parts_near_a_rounding_boundary_are_correctly_rounded():
    """complex64's first pass (lt_cpow.h, Ziv's test) must leave open every part that a
    float32 rounding boundary may separate from the exact value: operands whose parts lie
    within 2^-50..2^-38 of a midpoint (relative to |a^b|, found with NumPy in complex128)
    get the correctly rounded parts of mpmath's value."""
    mpmath.mp.prec = 200
    rng = np.random.default_rng(6)
    n = 1 << 20
    a = (rng.uniform(-4, 4, n) + 1j * rng.uniform(-4, 4, n)).astype(np.complex64)
    b = (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(np.complex64)
    ref = np.power(a.astype(np.complex128), b.astype(np.complex128))
    mod = np.abs(ref)
    near = np.zeros(n, bool)
    for part in (ref.real, ref.imag):
        f = part.astype(np.float32)
        nb = np.nextafter(f, np.where(part > f, np.float32(np.inf), np.float32(-np.inf)))
        mid = (f.astype(np.float64) + nb.astype(np.float64)) / 2
        d = np.abs(part - mid) / mod
        near |= (d > 2.0 ** -50) & (d < 2.0 ** -38) & (np.abs(part) > 2.0 ** -100)
    a, b = a[near], b[near]
    assert len(a) >= 10
    got = pow_everywhere(a, b)
    for x, y, g in zip(a, b, got):
        e = mpmath.power(mpmath.mpc(complex(x)), mpmath.mpc(complex(y)))
        for gp, ep in ((g.real, e.real), (g.imag, e.imag)):
            assert gp == np.float32(float(ep)), (x, y, g, complex(e))
