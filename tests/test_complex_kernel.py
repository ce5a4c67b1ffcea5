"""Complex operands in the kernel: values against NumPy, exact rationals and mpmath; the
special values (C99 Annex G where it fixes NumPy's NaN + NaN j); bits equal on every kernel
path and thread count; fusion with real ops (docs/complex.md)."""

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest

import lazytensor as lt

CDTYPES = [np.complex64, np.complex128]
PART = {np.complex64: np.float32, np.complex128: np.float64}
SPECIAL = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e300, 1e-310, 3e38, 1e-40]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def special_grid(dtype):
    zs = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL], dtype=dtype)
    a, b = np.meshgrid(zs, zs)
    return zs, a.ravel(), b.ravel()


def random_complex(dtype, n, spread, seed=0):
    """Parts of random sign and magnitude 2^-spread .. 2^spread."""
    rng = np.random.default_rng(seed)
    m = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-spread, spread, (2, n))
    return (m[0] + 1j * m[1]).astype(dtype)


def same(got, want):
    """Elementwise: equal values with equal signs of zero, or both NaN (per part)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind == "c":
        return same(got.real, want.real) & same(got.imag, want.imag)
    if got.dtype.kind == "b":
        return got == want
    return (np.isnan(got) & np.isnan(want)) | ((got == want) & (np.signbit(got) == np.signbit(want)))


def ev(t):
    return np.asarray(t)


# ---- the exact ops: every special value as NumPy -------------------------------------------
@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name,fn", [("add", lambda a, b: a + b), ("subtract", lambda a, b: a - b),
                                     ("equal", lambda a, b: a == b),
                                     ("not_equal", lambda a, b: a != b)])
def test_binary_exact_ops_match_numpy_on_special_values(dtype, name, fn):
    _, a, b = special_grid(dtype)
    got = ev(fn(lt.asarray(a), lt.asarray(b)))
    want = fn(a, b)
    assert got.dtype == want.dtype
    assert same(got, want).all()


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name,fn,np_fn", [
    ("negative", lambda z: -z, np.negative), ("positive", lt.positive, np.positive),
    ("abs", abs, np.abs), ("conj", lt.conj, np.conj), ("real", lt.real, np.real),
    ("imag", lt.imag, np.imag), ("real_attr", lambda z: lt.conj(lt.conj(z)).real, np.real),
    ("imag_attr", lambda z: lt.conj(lt.conj(z)).imag, np.imag), ("isnan", lt.isnan, np.isnan),
    ("isinf", lt.isinf, np.isinf), ("isfinite", lt.isfinite, np.isfinite)])
def test_unary_ops_match_numpy_on_special_values(dtype, name, fn, np_fn):
    zs, _, _ = special_grid(dtype)
    got = ev(fn(lt.asarray(zs)))
    want = np_fn(zs)
    assert got.dtype == want.dtype
    if name == "abs":   # NumPy's own hypot is not correctly rounded: the values are below
        assert same(got, want)[~np.isfinite(want) | (want == 0)].all()
    else:
        assert same(got, want).all()


# ---- the formulas: NumPy's, without contraction -----------------------------------------------
@pytest.mark.parametrize("dtype", CDTYPES)
def test_multiply_and_square_are_the_textbook_products_without_fma(dtype):
    """NumPy's SIMD loops fuse a*c - b*d into an FMA on FMA machines, so its bits depend on
    the CPU; exact mode computes two products and a difference on every path: NumPy's real
    float ops (never contracted) are the reference."""
    a, b = random_complex(dtype, 4000, 30, seed=1), random_complex(dtype, 4000, 30, seed=2)
    ar, ai, br, bi = a.real.copy(), a.imag.copy(), b.real.copy(), b.imag.copy()
    got = ev(lt.asarray(a) * lt.asarray(b))
    np.testing.assert_array_equal(got.real, ar * br - ai * bi)
    np.testing.assert_array_equal(got.imag, ar * bi + ai * br)
    sq = ev(lt.square(lt.asarray(a)))
    np.testing.assert_array_equal(sq.real, ar * ar - ai * ai)
    np.testing.assert_array_equal(sq.imag, ar * ai + ai * ar)
    rtol = 1e-6 if dtype == np.complex64 else 1e-15
    np.testing.assert_allclose(got, a * b, rtol=rtol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_divide_and_reciprocal_are_numpys_smith_bits(dtype):
    a, b = random_complex(dtype, 4000, 30, seed=3), random_complex(dtype, 4000, 30, seed=4)
    np.testing.assert_array_equal(ev(lt.asarray(a) / lt.asarray(b)), a / b)
    np.testing.assert_array_equal(ev(lt.reciprocal(lt.asarray(b))), np.reciprocal(b))


# ---- special values of * / and reciprocal --------------------------------------------------------
def _exact(op, a, b):
    ar, ai, br, bi = (Fraction(float(v)) for v in (a.real, a.imag, b.real, b.imag))
    if op == "multiply":
        return ar * br - ai * bi, ar * bi + ai * br
    den = br * br + bi * bi
    return (ar * br + ai * bi) / den, (ai * br - ar * bi) / den


def _rounded(q, ftype):
    try:
        return ftype(float(q))
    except OverflowError:
        return ftype(np.inf if q > 0 else -np.inf)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", ["multiply", "divide"])
def test_finite_operands_never_overflow_needlessly(dtype, op):
    """Finite operands: within 3 units of roundoff of the exact result (normwise), and
    infinite only where the exact result overflows; NumPy gives NaN or inf from
    intermediate products there ((1e300 + 1e300j) * (1e10 - 1e10j), x / x for |x| ~ 1e308)."""
    ftype = PART[dtype]
    huge = float(np.finfo(ftype).max) / 2
    vals = [0.0, -1.0, 2.5, huge, -huge, 1e-300 if ftype is np.float64 else 1e-38,
            float(np.finfo(ftype).smallest_subnormal) * 3]
    zs = np.array([complex(x, y) for x, y in itertools.product(vals, vals)], dtype=dtype)
    a, b = (g.ravel() for g in np.meshgrid(zs, zs))
    fn = (lambda x, y: x * y) if op == "multiply" else (lambda x, y: x / y)
    got = ev(fn(lt.asarray(a), lt.asarray(b)))
    u = float(np.finfo(ftype).eps) / 2
    for x, y, g in zip(a, b, got):
        if op == "divide" and y == 0:
            continue
        re, im = _exact(op, x, y)
        want = (_rounded(re, ftype), _rounded(im, ftype))
        if not (np.isfinite(want[0]) and np.isfinite(want[1])):
            for gp, wp in zip((g.real, g.imag), want):      # overflowing parts overflow
                assert (np.isinf(gp) and gp == wp) if np.isinf(wp) else np.isfinite(gp), (x, y, g)
            continue
        assert np.isfinite(g.real) and np.isfinite(g.imag), (x, y, g, want)
        size = max(abs(Fraction(float(want[0]))), abs(Fraction(float(want[1]))))
        if size == 0:
            assert g == 0, (x, y, g)
            continue
        err = max(abs(Fraction(float(g.real)) - re), abs(Fraction(float(g.imag)) - im))
        tiny = Fraction(float(np.finfo(ftype).smallest_subnormal))   # a subnormal part
        assert err <= 3 * u * size + 2 * tiny, (x, y, g, want)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", ["multiply", "divide", "square", "reciprocal"])
def test_special_values_follow_annex_g_and_numpy_where_numpy_is_right(dtype, op):
    """Annex G (G.5.1): a product with an infinite factor and a nonzero other is infinite; a
    quotient of an infinity by a finite is infinite, of a finite by an infinity zero, of a
    nonzero by zero infinite.  NumPy's textbook loops give NaN + NaN j there.  Everywhere
    NumPy's result has no NaN part, it is ours."""
    zs, a, b = special_grid(dtype)
    if op in ("square", "reciprocal"):
        a = b = zs
    fns = {"multiply": lambda x, y: x * y, "divide": lambda x, y: x / y,
           "square": lambda x, y: lt.square(x) if isinstance(x, lt.Tensor) else np.square(x),
           "reciprocal": lambda x, y: (lt.reciprocal(x) if isinstance(x, lt.Tensor)
                                       else np.reciprocal(x))}
    fn = fns[op]
    got = ev(fn(lt.asarray(a), lt.asarray(b)))
    want = fn(a, b)
    if op == "reciprocal":
        a, b = np.ones_like(zs), zs
    numpy_right = ~np.isnan(want.real) & ~np.isnan(want.imag)
    finite = np.isfinite(a) & np.isfinite(b)
    # where NumPy is right and no intermediate overflow can differ, we agree with NumPy
    assert same(got, want)[numpy_right & ~finite].all()
    inf = lambda z: np.isinf(z.real) | np.isinf(z.imag)   # noqa: E731
    nan_free = lambda z: ~np.isnan(z.real) & ~np.isnan(z.imag)   # noqa: E731
    nonzero = lambda z: (z.real != 0) | (z.imag != 0)   # noqa: E731
    if op in ("multiply", "square"):
        must_be_inf = (inf(a) & nan_free(b) & nonzero(b)) | (inf(b) & nan_free(a) & nonzero(a))
    else:
        must_be_inf = (inf(a) & np.isfinite(b)) | (nan_free(a) & nonzero(a) & (b == 0))
        must_be_zero = np.isfinite(a) & inf(b) & nan_free(b)
        assert (got[must_be_zero] == 0).all()
    assert inf(got[must_be_inf]).all()
    # NaN operands give NaN + NaN j unless an infinity decides (Annex G)
    nan_in = ~nan_free(a) | ~nan_free(b)
    assert (~nan_free(got[nan_in & ~inf(a) & ~inf(b)])).all()


# ---- accuracy against mpmath ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", CDTYPES)
def test_abs_and_division_accuracy_against_mpmath(dtype):
    """Normwise relative error in units of roundoff u = eps/2 (measured over 10^5 pairs:
    abs below 1 u, the correctly rounded hypot of float32 and within 0.51 ulp for float64;
    divide 2.8 u; multiply 1.9 u; docs/exact-math.md)."""
    import mpmath

    mpmath.mp.prec = 160
    a = random_complex(dtype, 400, 100 if dtype == np.complex128 else 40, seed=5)
    b = random_complex(dtype, 400, 100 if dtype == np.complex128 else 40, seed=6)
    u = float(np.finfo(PART[dtype]).eps) / 2
    q, m, h = (ev(lt.asarray(a) / lt.asarray(b)), ev(lt.asarray(a) * lt.asarray(b)),
               ev(abs(lt.asarray(a))))
    for i in range(len(a)):
        x, y = mpmath.mpc(complex(a[i])), mpmath.mpc(complex(b[i]))
        for got, exact, bound in ((q[i], x / y, 3.0), (m[i], x * y, 2.25), (h[i], abs(x), 1.0)):
            err = abs(mpmath.mpc(complex(got)) - exact) / abs(exact)
            assert err <= bound * u, (complex(a[i]), complex(b[i]), got, float(err / u))


def test_abs_has_no_overflow_or_underflow():
    for dtype in CDTYPES:
        big = float(np.finfo(PART[dtype]).max)
        tiny = float(np.finfo(PART[dtype]).smallest_subnormal)
        z = np.array([complex(big, big / 2), complex(tiny, tiny), complex(3 * tiny, 4 * tiny),
                      complex(-big, 0.0), complex(np.inf, np.nan), complex(np.nan, -np.inf)],
                     dtype=dtype)
        got = ev(abs(lt.asarray(z)))
        assert np.isinf(got[0]) == (dtype == np.complex64 or big * 1.118 > big)  # overflows
        assert got[1] == PART[dtype](tiny) and got[2] == PART[dtype](5 * tiny)
        assert got[3] == big and np.isinf(got[4]) and np.isinf(got[5])


# ---- exact mode: bits on every path and thread count; canonical NaN -----------------------
def test_bits_equal_on_every_kernel_path_and_thread_count():
    z = random_complex(np.complex128, 3 * 4096 + 17, 300, seed=8)
    z[::97] = complex(np.inf, np.nan)
    z[1::89] = complex(np.nan, 1.0)
    x = random_complex(np.complex64, len(z), 20, seed=9)
    outs = []
    for path in [p for p in ("generic", "avx2") if p in lt.kernel_paths()]:
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads):
                Z, X = lt.asarray(z), lt.asarray(x)
                r = Z * Z / (Z + X) - lt.reciprocal(X) + abs(Z) * lt.square(X) + (Z == X)
                outs.append(ev(r).tobytes())
    assert len(outs) >= 2 and all(o == outs[0] for o in outs)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_nan_results_are_canonical_in_exact_mode(dtype):
    ftype = PART[dtype]
    bits = np.uint32 if ftype is np.float32 else np.uint64
    sign = bits(1) << bits(8 * np.dtype(ftype).itemsize - 1)
    odd = np.array([sign, sign | bits(0x12345), bits(0x12345)], dtype=bits)
    odd_nan = (np.array(np.nan, ftype).view(bits) | odd).view(ftype)   # negative, payload
    z = np.empty(3, dtype)
    z.real, z.imag = odd_nan, 1.0
    canonical = np.array(np.nan, ftype).view(bits)
    for fn in (lambda t: t * 2, lambda t: t + 1, lambda t: t / 3, lambda t: -t,
               lambda t: lt.conj(t), lambda t: abs(t)):
        got = ev(fn(lt.asarray(z)))
        parts = [got] if got.dtype.kind == "f" else [got.real, got.imag]
        for p in parts:
            p = np.ascontiguousarray(p)
            assert (p.view(bits)[np.isnan(p)] == canonical).all()


# ---- fusion, promotion, casts, where ---------------------------------------------------------
def test_complex_chains_fuse_with_real_ops():
    c = lt.asarray(random_complex(np.complex128, 1000, 4))
    x = lt.asarray(random_complex(np.complex128, 1000, 4, seed=1))
    e = lt.explain(abs(c) ** 2 + x.real)
    assert len(e) == 1 and e.kernels[0]["ops"][:1] == ["abs"]
    assert len(lt.explain(c * c + 1)) == 1
    r = lt.where(c.real > 0, lt.conj(c) / (c + 1j), lt.imag(c) * 2.0)
    assert len(lt.explain(r)) == 1
    cv, xv = ev(c), ev(x)
    np.testing.assert_allclose(ev(abs(c) ** 2 + x.real), np.abs(cv) ** 2 + xv.real, rtol=1e-13,
                               atol=1e-14)
    np.testing.assert_allclose(ev(r), np.where(cv.real > 0, np.conj(cv) / (cv + 1j),
                                               cv.imag * 2.0), rtol=1e-14)


def test_eager_functions_stay_numpys_and_say_so():
    c = lt.asarray(random_complex(np.complex128, 100, 3))
    p = c * c * 10                                   # pending: evaluated for round
    got = lt.round(p) + 1
    np.testing.assert_array_equal(ev(got), np.round(ev(p)) + 1)
    assert "computed by NumPy (complex round)" in str(lt.explain(lt.round(p) + 1))


@pytest.mark.parametrize("a,b", [(np.complex64, np.float64), (np.complex64, np.float32),
                                 (np.complex64, np.int64), (np.complex128, np.float32),
                                 (np.complex64, np.complex128), (np.float16, np.complex64),
                                 (np.bool_, np.complex64)])
def test_mixed_promotion_and_values_as_numpy(a, b):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(50) * 10 + (1j * rng.standard_normal(50) if np.dtype(a).kind == "c"
                                         else 0)).astype(a)
    y = (rng.standard_normal(50) * 10 + (1j * rng.standard_normal(50) if np.dtype(b).kind == "c"
                                         else 0)).astype(b)
    for fn in (lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p / q):
        got, want = ev(fn(lt.asarray(x), lt.asarray(y))), fn(x, y)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
    for s in (2, 2.5, 1j, -0.5 - 2j):
        got, want = ev(lt.asarray(x) * s), x * s
        assert got.dtype == want.dtype, s
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("src", ["bool", "int8", "uint16", "int64", "uint64", "float16",
                                 "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("dst", ["complex64", "complex128"])
def test_casts_to_complex_as_numpy(src, dst):
    vals = np.array([0, 1, -3, 7, 100, 2**40, 2**63 - 1, 0.5, -0.0, np.inf, np.nan, 1e300, 65504,
                     1 + 2j, complex(-0.0, np.inf)])
    if np.dtype(src).kind != "c":
        vals = vals.real
    x = vals.astype(src)
    pending = lt.conj(lt.conj(lt.asarray(x))) if x.dtype.kind == "c" else \
        lt.asarray(x) * 1 if src != "bool" else lt.asarray(x) | False
    got = ev(lt.astype(pending, dst))
    assert same(got, x.astype(dst)).all()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_complex_to_bool_and_the_drop_of_the_imaginary_part(dtype):
    z = np.array([0, 1j, complex(-0.0, 0.0), complex(np.nan, 0), 2], dtype=dtype)
    pending = lt.conj(lt.conj(lt.asarray(z)))
    np.testing.assert_array_equal(ev(lt.astype(pending, lt.bool)), z.astype(bool))
    with pytest.raises(TypeError, match="imaginary part"):
        lt.astype(pending, lt.float64)


def test_real_of_a_pending_complex_is_a_view_of_it():
    c = lt.asarray(np.array([1 + 2j, 3 - 4j]))
    z = c * 2
    r, i = z.real, z.imag
    assert len(lt.explain(r + i)) == 1            # recorded, fused with its readers
    r[0] = 10.0                                   # NumPy's aliasing: z sees the write
    np.testing.assert_array_equal(ev(z), [10 + 4j, 6 - 8j])
    np.testing.assert_array_equal(ev(i), [4.0, -8.0])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_where_and_strided_inputs(dtype):
    z = random_complex(dtype, 2 * 300 * 7, 5).reshape(600, 7)
    Z = lt.asarray(z)
    got = ev(lt.where(Z[::2, ::3].real > 0, Z[::2, ::3] * 1j, Z[1::2, ::3].T.T))
    want = np.where(z[::2, ::3].real > 0, z[::2, ::3] * 1j, z[1::2, ::3])
    np.testing.assert_array_equal(got, want)
    got = ev(Z.T * (1 + 1j) + Z.T.real)     # a transposed (tiled) walk of 16-byte elements
    assert same(got, z.T * (1 + 1j) + z.T.real).all()


# ---- reductions: sum and mean of the parts, fused (prod: test_complex_reductions.py) -------
@pytest.mark.parametrize("dtype", CDTYPES)
def test_sum_and_mean_of_complex_expressions_fuse(dtype):
    rng = np.random.default_rng(4)
    z = random_complex(dtype, 30 * 41, 3).reshape(30, 41)
    mask = rng.random((30, 41)) > 0.3
    Z = lt.asarray(z)
    e = lt.explain(lt.sum(Z * Z + 1, axis=0))
    assert len(e.kernels[0]["reductions"]) == 2 and "multiply" in e.kernels[0]["ops"]
    rtol = 1e-5 if dtype == np.complex64 else 1e-13
    cases = [(lambda m, x: m.sum(x * x + 1), {}), (lambda m, x: m.sum(x * x, axis=0), {}),
             (lambda m, x: m.sum(x / 3, axis=1, keepdims=True), {}),
             (lambda m, x: m.sum(x * 1j, axis=0, dtype=m.complex128), {}),
             (lambda m, x, w: m.sum(x * x, axis=1, where=w), {"w": True}),
             (lambda m, x: m.sum(x, axis=0, initial=2 - 1j), {}),
             (lambda m, x: m.mean(lt.conj(x) if m is lt else np.conj(x), axis=1), {}),
             (lambda m, x, w: m.mean(x * x, axis=0, where=w), {"w": True}),
             (lambda m, x: m.mean(x[:0] * 2, axis=0), {}),
             (lambda m, x: m.prod(x / 2, axis=0), {})]
    for fn, kw in cases:
        got = ev(fn(lt, Z, lt.asarray(mask)) if kw else fn(lt, Z))
        want = fn(np, z, mask) if kw else fn(np, z)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def test_complex_sums_have_the_same_bits_on_every_path_and_thread_count():
    z = random_complex(np.complex128, 64 * 4099, 20, seed=11).reshape(64, 4099)
    outs = []
    for path in [p for p in ("generic", "avx2") if p in lt.kernel_paths()]:
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads):
                Z = lt.asarray(z)
                outs.append(b"".join(ev(r).tobytes() for r in (
                    lt.sum(Z * Z), lt.sum(Z / (Z + 1), axis=1), lt.mean(Z * 1j, axis=0))))
    assert all(o == outs[0] for o in outs)
