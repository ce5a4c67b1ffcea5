"""Complex prod and vecdot as fused reductions (docs/complex.md): values against NumPy and
mpmath at error bounds derived below, NumPy's dtypes and shapes, one reducing kernel with
the expression in it, the same bits on every kernel path and thread count."""

import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lazytensor as lt

CDTYPES = [np.complex64, np.complex128]
U = {np.complex64: 2.0 ** -24, np.complex128: 2.0 ** -53}   # unit roundoff
SQRT5 = 5 ** 0.5


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def near_unit(shape, dtype, seed):
    """Values of modulus 0.99 .. 1.01 and any argument: long products neither overflow nor
    underflow."""
    rng = np.random.default_rng(seed)
    r = rng.uniform(0.99, 1.01, shape) * np.exp(2j * np.pi * rng.random(shape))
    return r.astype(dtype)


def prod_tolerance(dtype, n):
    """Normwise bound of |ours - NumPy's| relative to the product's modulus, for n factors.

    A textbook complex multiplication has a normwise relative error of at most sqrt(5) u
    (Brent, Percival and Zimmermann 2007); relative errors of a product's factors add up to
    first order, and a multiplication by 1 + 0i is exact.  NumPy multiplies n - 1 times in
    the input's dtype; ours n - 1 times in complex128 and rounds once to the dtype (u per
    part).  Twice the sum, for the second-order terms and the reference's own modulus."""
    m = max(n - 1, 0)
    return 2 * (m * SQRT5 * (U[dtype] + U[np.complex128]) + U[dtype])


def assert_normwise_close(got, want, tol):
    scale = np.abs(want.astype(np.complex128))
    err = np.abs(got.astype(np.complex128) - want.astype(np.complex128))
    assert np.all(err <= tol * scale + 1e-300), (np.max(err / np.maximum(scale, 1e-300)), tol)


def ev(t):
    return np.asarray(t)


# ---- prod: values -----------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 9), min_size=0, max_size=3).map(tuple),
       data=st.data(), seed=st.integers(0, 2 ** 16), dtype=st.sampled_from(CDTYPES))
def test_prod_of_an_expression_is_numpys(shape, data, seed, dtype):
    z = near_unit(shape, dtype, seed)
    w = near_unit(shape, dtype, seed + 1)
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1) if ndim else st.none(),
                               st.sets(st.integers(0, max(ndim - 1, 0)), max_size=ndim)
                               .map(tuple)))
    keepdims = data.draw(st.booleans())
    Z, W = lt.asarray(z), lt.asarray(w)
    got = ev(lt.prod(Z * W + 0.25j, axis=axis, keepdims=keepdims))
    want = np.prod(z * w + 0.25j, axis=axis, keepdims=keepdims)
    assert got.dtype == want.dtype and got.shape == want.shape
    n = z.size // max(want.size, 1) if z.size else 0
    # and the factors themselves: NumPy's z * w may use an FMA and ours does not, each within
    # sqrt(5) u of |z w| <= 1.03, while |z w + 0.25j| >= 0.75: 4 sqrt(5) u a factor covers it
    assert_normwise_close(got, want, prod_tolerance(dtype, n) + n * 4 * SQRT5 * U[dtype])


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape, axis", [((70_000,), None), ((3, 20_000), 1),
                                         ((600, 3), 0), ((5, 700), 0), ((3, 5, 300), (0, 2))])
def test_prod_over_every_loop_family(dtype, shape, axis):
    """Long rows (blocks of chunks), short rows, columns into a kept inner run."""
    z = near_unit(shape, dtype, 1)
    got, want = ev(lt.prod(lt.asarray(z) * 1j, axis=axis)), np.prod(z * 1j, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert_normwise_close(got, want, prod_tolerance(dtype, z.size // max(want.size, 1)))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_prod_against_mpmath(dtype):
    """The exact product of the values (mpmath, 200 bits): ours within the first-order bound
    of its own n - 1 complex128 multiplications and one rounding, NumPy's argument aside."""
    mpmath.mp.prec = 200
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 31, 32, 33, 257, 600):
        # moduli 2^-1 .. 2^1 (the products stay in range), any argument
        z = (2.0 ** rng.uniform(-1, 1, n) * np.exp(2j * np.pi * rng.random(n))).astype(dtype)
        exact = mpmath.mpc(1)
        for v in z.tolist():
            exact *= mpmath.mpc(v.real, v.imag)
        got = complex(ev(lt.prod(lt.asarray(z))))
        err = abs(mpmath.mpc(got.real, got.imag) - exact) / abs(exact)
        assert err <= 1.01 * ((n - 1) * SQRT5 * U[np.complex128] + U[dtype]) * 2 ** 0.5, (n, err)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_prod_arguments_as_numpys(dtype):
    rng = np.random.default_rng(3)
    z = near_unit((4, 6), dtype, 2)
    m = rng.random((4, 6)) > 0.4
    Z, M = lt.asarray(z), lt.asarray(m)
    cases = [(lambda mod, x, w: mod.prod(x, axis=1, where=w)),
             (lambda mod, x, w: mod.prod(x, axis=0, initial=2 - 1j)),
             (lambda mod, x, w: mod.prod(x, axis=0, dtype=mod.complex128)),
             (lambda mod, x, w: mod.prod(x.real, axis=1, dtype=mod.complex64)),
             (lambda mod, x, w: mod.prod(x[:, :0], axis=1)),
             (lambda mod, x, w: mod.prod(x[:0], axis=0, keepdims=True))]
    for fn in cases:
        got, want = ev(fn(lt, Z, M)), fn(np, z, m)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert_normwise_close(got, want, prod_tolerance(want.dtype.type, 6))
    assert ev(Z.prod(axis=0)).dtype == dtype          # the method too
    with pytest.raises(TypeError, match="imaginary"):
        lt.prod(Z, dtype=lt.float64)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_prod_overflow_and_nan_as_numpys(dtype):
    big = 1e30 if dtype == np.complex64 else 1e300
    z = np.array([[big, big * 1j, 1], [big, 1 / big, 1j], [np.nan, 1, 2], [np.inf, 1, 1]],
                 dtype=dtype)
    got, want = ev(lt.prod(lt.asarray(z), axis=1)), np.prod(z, axis=1)
    assert np.isinf(got[0]).any() and np.isinf(want[0]).any()   # overflow: infinite
    np.testing.assert_allclose(got[1], want[1], rtol=4 * U[dtype])
    assert np.isnan(got[2]).any() and np.isnan(want[2]).any()   # NaN propagates
    assert not np.isfinite(got[3]) and not np.isfinite(want[3])
    # a single infinite factor: NumPy's product starts at 1 + 0i, and so does ours
    np.testing.assert_array_equal(ev(lt.prod(lt.asarray(z[3:, :1]))), np.prod(z[3:, :1]))


def test_prod_of_complex64_does_not_overflow_midway():
    """complex128 accumulators: the product is finite when it is, whatever the order
    (NumPy's complex64 accumulator overflows at the second factor here)."""
    z = np.array([1e30, 1e30, 1e-30, 1e-30], dtype=np.complex64)
    assert complex(ev(lt.prod(lt.asarray(z)))) == pytest.approx(1.0, rel=1e-6)


# ---- prod: fusion and exactness -------------------------------------------------------------
@pytest.mark.parametrize("dtype", CDTYPES)
def test_prod_is_one_reducing_kernel_with_its_expression(dtype):
    z = near_unit((30, 41), dtype, 5)
    Z = lt.asarray(z)
    e = lt.explain(lt.prod(Z * Z + 1, axis=0))
    reducing = [k for k in e.kernels if k["reductions"]]
    assert len(reducing) == 1 and len(reducing[0]["reductions"]) == 1
    assert {"multiply", "add"} <= set(reducing[0]["ops"])
    before = lt.stats()["kernels"]
    ev(lt.prod(Z * Z + 1, axis=0))
    assert lt.stats()["kernels"] - before == len(e.kernels) <= 2   # and a cast to the dtype


def test_complex_prod_has_the_same_bits_on_every_path_and_thread_count():
    cases = [((3, 70_000), 1), ((2_000, 3), 0), ((4, 3_000), 0), ((64, 200), 1),
             ((100_000,), None)]
    outs = []
    for path in [p for p in ("generic", "avx2", "avx512") if p in lt.kernel_paths()]:
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads):
                got = []
                for k, (shape, axis) in enumerate(cases):
                    z = near_unit(shape, np.complex128, k)
                    Z = lt.asarray(z)
                    got.append(ev(lt.prod(Z * (1 + 0.5j) / 1.118, axis=axis)).tobytes())
                    got.append(ev(lt.prod(Z.astype(lt.complex64), axis=axis)).tobytes())
                outs.append(b"".join(got))
    assert len(outs) >= 2 and all(o == outs[0] for o in outs)


# ---- vecdot ---------------------------------------------------------------------------------
def vecdot_tolerance(x1, x2, axis):
    """|ours - NumPy's| per part: each sums n products, whose errors are at most 2u (one
    product and one sum of two) of sum |x1_i| |x2_i| per part, and n sums at most n u of it
    (recursive summation; ours adds in float64 and rounds once).  Twice that, in the
    operands' dtype's u, for both results."""
    dt = np.result_type(x1, x2)
    u = U[np.complex64] if dt == np.complex64 else U[np.complex128]
    mags = np.abs(x1.astype(np.complex128)) * np.abs(x2.astype(np.complex128))
    n = x1.shape[axis]
    return 2 * 2 * (n + 2) * u * np.sum(mags, axis=axis) + 1e-300


@settings(max_examples=40, deadline=None)
@given(stack1=st.lists(st.integers(1, 4), max_size=2).map(tuple),
       stack2=st.lists(st.integers(1, 4), max_size=2).map(tuple),
       n=st.integers(0, 40), seed=st.integers(0, 2 ** 16),
       dt1=st.sampled_from([np.complex64, np.complex128, np.float32]),
       dt2=st.sampled_from([np.complex64, np.complex128]), data=st.data())
def test_vecdot_of_complex_is_numpys(stack1, stack2, n, seed, dt1, dt2, data):
    # stacks that broadcast: a 1 wherever the two differ
    k = min(len(stack1), len(stack2))
    s2 = tuple(b if a == b else 1 for a, b in zip(stack1[len(stack1) - k:], stack2[len(stack2) - k:]))
    stack2 = stack2[:len(stack2) - k] + s2
    rng = np.random.default_rng(seed)
    pos = data.draw(st.integers(0, min(len(stack1), len(stack2))))
    shape1 = stack1[:len(stack1) - pos] + (n,) + stack1[len(stack1) - pos:]
    shape2 = stack2[:len(stack2) - pos] + (n,) + stack2[len(stack2) - pos:]
    axis = -1 - pos
    x1 = (rng.standard_normal(shape1) + (1j * rng.standard_normal(shape1) if dt1 != np.float32
                                         else 0)).astype(dt1)
    x2 = (rng.standard_normal(shape2) + 1j * rng.standard_normal(shape2)).astype(dt2)
    X1, X2 = lt.asarray(x1), lt.asarray(x2)
    got = ev(lt.vecdot(X1 * 2 - 1, X2 + 0.5j, axis=axis))
    a, b = x1 * 2 - 1, x2 + 0.5j
    want = np.vecdot(a, b, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = vecdot_tolerance(a, b, axis)
    assert np.all(np.abs(got.real - want.real) <= tol)
    assert np.all(np.abs(got.imag - want.imag) <= tol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_vecdot_conjugates_the_first_and_is_one_reducing_kernel(dtype):
    x = np.array([[1 + 2j, 3 - 1j, -2j]], dtype=dtype)
    y = np.array([2 - 1j, 1j, 4 + 0.5j], dtype=dtype)
    X, Y = lt.asarray(x), lt.asarray(y)
    np.testing.assert_array_equal(ev(lt.vecdot(X, Y)), np.vecdot(x, y))   # exact here
    np.testing.assert_array_equal(ev(lt.vecdot(Y, X)), np.vecdot(y, x))
    e = lt.explain(lt.vecdot(X * 2, Y - 1))
    reducing = [k for k in e.kernels if k["reductions"]]
    assert len(reducing) == 1 and {"conj", "multiply", "subtract"} <= set(reducing[0]["ops"])
    before = lt.stats()["kernels"]
    ev(lt.vecdot(X * 2, Y - 1))
    assert lt.stats()["kernels"] - before == len(e.kernels) <= 2   # and the join of the parts


def test_vecdot_errors_are_unchanged():
    x = lt.asarray(np.ones((2, 3), dtype=np.complex64))
    with pytest.raises(ValueError, match="contracted axis"):
        lt.vecdot(x, lt.asarray(np.ones((2, 4), dtype=np.complex64)))
    with pytest.raises(ValueError, match="do not broadcast"):
        lt.vecdot(x, lt.asarray(np.ones((3, 3), dtype=np.complex64)))
    with pytest.raises(TypeError, match="vecdot"):
        lt.vecdot(x, "abc")
    # NumPy's array-likes, as NumPy takes them
    np.testing.assert_array_equal(ev(lt.vecdot(x, [1j, 2, 3])), np.vecdot(ev(x), [1j, 2, 3]))


def test_vecdot_has_the_same_bits_on_every_path_and_thread_count():
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((6, 50_000)) + 1j * rng.standard_normal((6, 50_000)))
    y = (rng.standard_normal((50_000,)) + 1j * rng.standard_normal((50_000,)))
    outs = []
    for path in [p for p in ("generic", "avx2", "avx512") if p in lt.kernel_paths()]:
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads):
                X, Y = lt.asarray(x), lt.asarray(y)
                outs.append(ev(lt.vecdot(X * 1j, Y)).tobytes()
                            + ev(lt.vecdot(X.astype(lt.complex64), Y.astype(lt.complex64)))
                            .tobytes())
    assert len(outs) >= 2 and all(o == outs[0] for o in outs)
