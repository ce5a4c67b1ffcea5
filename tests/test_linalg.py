"""lt.linalg against NumPy: values, result dtypes and shapes, stacks, empty inputs, errors."""

import numpy as np
import pytest

import lazytensor as lt

L = lt.linalg
FLOATS = [np.float32, np.float64, np.complex64, np.complex128]
REAL_OF = {np.float16: np.float16, np.float32: np.float32, np.float64: np.float64,
           np.complex64: np.float32, np.complex128: np.float64}
COMPLEX_OF = {np.float16: np.complex64, np.float32: np.complex64, np.float64: np.complex128,
              np.complex64: np.complex64, np.complex128: np.complex128}
FLOAT_ONLY = ["cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matrix_norm",
              "matrix_rank", "pinv", "qr", "slogdet", "svd", "svdvals"]


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def well_conditioned(shape, dtype, seed=0):
    """Random matrices plus a multiple of the identity: comfortably invertible."""
    return (rand(shape, dtype, seed) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64, np.float16) else 1e-10


def close(actual, expected, dtype, *, exact_dtype=None):
    """``actual`` (a Tensor) matches ``expected`` in value, shape and dtype."""
    assert isinstance(actual, lt.Tensor)
    assert actual.dtype == np.dtype(exact_dtype or dtype)
    assert actual.shape == np.shape(expected)
    np.testing.assert_allclose(actual.numpy(), expected, rtol=tol(dtype), atol=tol(dtype))


def t(a):
    return lt.asarray(a)


def mT(a):
    return np.swapaxes(a, -1, -2)


# ---- decompositions -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2), (2, 0, 0)])
def test_det_inv_slogdet(dtype, shape):
    a = well_conditioned(shape, dtype)
    close(L.det(t(a)), np.linalg.det(a), dtype)
    close(L.inv(t(a)), np.linalg.inv(a), dtype)
    res = L.slogdet(t(a))
    assert type(res).__name__ == "SlogdetResult" and res.sign is res[0]
    sign, logabsdet = np.linalg.slogdet(a)
    close(res.sign, sign, dtype)
    close(res.logabsdet, logabsdet, dtype, exact_dtype=REAL_OF[dtype])


def test_slogdet_of_a_singular_matrix():
    sign, logabsdet = L.slogdet(t(np.ones((2, 2))))
    assert float(sign) == 0 and float(logabsdet) == -np.inf


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper):
    a = rand((2, 4, 4), dtype)
    pd = (a @ mT(a).conj() + 4 * np.eye(4)).astype(dtype)
    out = L.cholesky(t(pd), upper=upper)
    close(out, np.linalg.cholesky(pd, upper=upper), dtype)
    f = out.numpy()
    assert np.array_equal(f, np.triu(f) if upper else np.tril(f))
    assert L.cholesky(t(np.zeros((0, 0), dtype))).shape == (0, 0)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 5, 5), (0, 3, 3)])
def test_eigh_eigvalsh(dtype, shape):
    a = rand(shape, dtype)
    h = (a + mT(a).conj()) / 2
    res = L.eigh(t(h))
    assert type(res).__name__ == "EighResult" and res.eigenvalues is res[0]
    w, q = res.eigenvalues.numpy(), res.eigenvectors.numpy()
    assert res.eigenvalues.dtype == REAL_OF[dtype] and res.eigenvectors.dtype == dtype
    np.testing.assert_allclose((q * w[..., None, :]) @ mT(q).conj(), h, atol=10 * tol(dtype))
    close(L.eigvalsh(t(h)), np.linalg.eigvalsh(h), dtype, exact_dtype=REAL_OF[dtype])


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_eigvals_are_complex(dtype):
    a = rand((2, 4, 4), dtype)
    res = L.eig(t(a))
    assert type(res).__name__ == "EigResult" and res.eigenvectors is res[1]
    w, v = res.eigenvalues.numpy(), res.eigenvectors.numpy()
    assert w.dtype == v.dtype == COMPLEX_OF[dtype]
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=10 * tol(dtype))
    vals = L.eigvals(t(a))
    assert vals.dtype == COMPLEX_OF[dtype] and vals.shape == (2, 4)
    np.testing.assert_allclose(np.sort_complex(vals.numpy()), np.sort_complex(w),
                               atol=10 * tol(dtype))
    # real eigenvalues still come back complex (NumPy would return a real array)
    diag = L.eigvals(t(np.diag([1.0, 2.0]).astype(dtype)))
    assert diag.dtype == COMPLEX_OF[dtype]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 2, 3), (3, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(dtype, shape, mode):
    a = rand(shape, dtype)
    res = L.qr(t(a), mode=mode)
    assert type(res).__name__ == "QRResult" and res.Q is res[0] and res.R is res[1]
    q, r = np.linalg.qr(a, mode=mode)
    assert res.Q.shape == q.shape and res.R.shape == r.shape
    assert res.Q.dtype == res.R.dtype == dtype
    np.testing.assert_allclose(res.Q.numpy() @ res.R.numpy(), a, atol=10 * tol(dtype))
    assert np.array_equal(res.R.numpy(), np.triu(res.R.numpy()))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 2, 3), (1, 5)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_svdvals(dtype, shape, full):
    a = rand(shape, dtype)
    res = L.svd(t(a), full_matrices=full)
    assert type(res).__name__ == "SVDResult" and res.U is res[0] and res.Vh is res[2]
    u, s, vh = np.linalg.svd(a, full_matrices=full)
    assert (res.U.shape, res.S.shape, res.Vh.shape) == (u.shape, s.shape, vh.shape)
    assert res.U.dtype == res.Vh.dtype == dtype and res.S.dtype == REAL_OF[dtype]
    k = min(shape[-2:])
    recon = (res.U.numpy()[..., :k] * res.S.numpy()[..., None, :]) @ res.Vh.numpy()[..., :k, :]
    np.testing.assert_allclose(recon, a, atol=10 * tol(dtype))
    close(L.svdvals(t(a)), s, dtype, exact_dtype=REAL_OF[dtype])
    assert np.all(np.diff(res.S.numpy(), axis=-1) <= 0)


# ---- solvers, inverses, powers ---------------------------------------------------------

@pytest.mark.parametrize("a_shape,b_shape,out_shape", [
    ((3, 3), (3,), (3,)),
    ((2, 3, 3), (3,), (2, 3)),
    ((3, 3), (3, 2), (3, 2)),
    ((2, 3, 3), (3, 1), (2, 3, 1)),
    ((3, 3), (4, 3, 2), (4, 3, 2)),
    ((2, 1, 3, 3), (5, 3, 2), (2, 5, 3, 2)),
    ((0, 3, 3), (3, 0), (0, 3, 0)),
])
def test_solve_shapes(a_shape, b_shape, out_shape):
    a, b = well_conditioned(a_shape, np.float64), rand(b_shape, np.float64, 1)
    out = L.solve(t(a), t(b))
    assert out.shape == out_shape
    expected = (np.linalg.solve(a, b[..., None])[..., 0] if b.ndim == 1
                else np.linalg.solve(a, b))
    close(out, expected, np.float64)


@pytest.mark.parametrize("da,db,dout", [
    (np.float32, np.float32, np.float32), (np.float32, np.float64, np.float64),
    (np.complex64, np.float32, np.complex64), (np.float64, np.complex64, np.complex128),
    (np.float16, np.float16, np.float16),
])
def test_solve_dtype_promotion(da, db, dout):
    a, b = well_conditioned((3, 3), da), rand((3,), db)
    out = L.solve(t(a), t(b))
    assert out.dtype == dout
    np.testing.assert_allclose(a.astype(dout) @ out.numpy(), b, rtol=1e-2, atol=1e-2)


def test_solve_errors():
    a = t(np.eye(3))
    with pytest.raises(ValueError, match=r"linalg.solve: x2 of shape \(4,\) does not match"):
        L.solve(a, t(np.ones(4)))
    with pytest.raises(ValueError, match="do not broadcast"):
        L.solve(t(np.ones((2, 3, 3))), t(np.ones((3, 3, 1))))
    with pytest.raises(np.linalg.LinAlgError, match="linalg.solve: Singular matrix"):
        L.solve(t(np.ones((3, 3))), t(np.ones(3)))
    with pytest.raises(ValueError, match="square"):
        L.solve(t(np.ones((3, 2))), t(np.ones(3)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 5])
def test_matrix_power(dtype, n):
    a = well_conditioned((2, 3, 3), dtype) / 3
    close(L.matrix_power(t(a), n), np.linalg.matrix_power(a, n), dtype)


def test_matrix_power_needs_an_integer_exponent():
    with pytest.raises(TypeError, match="exponent must be an integer"):
        L.matrix_power(t(np.eye(2)), 1.5)
    assert L.matrix_power(t(np.eye(2)), np.int64(2)).shape == (2, 2)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (0, 2, 2), (3, 0)])
def test_pinv(dtype, shape):
    a = rand(shape, dtype)
    close(L.pinv(t(a)), np.linalg.pinv(a), dtype)


def test_rank_and_pinv_tolerances():
    # singular values 10, 1, 1e-3
    a = np.diag([10.0, 1.0, 1e-3])
    assert L.matrix_rank(t(a)).dtype == lt.int64
    assert int(L.matrix_rank(t(a))) == 3
    assert int(L.matrix_rank(t(a), rtol=1e-3)) == 2
    assert int(L.matrix_rank(t(a), rtol=0.5)) == 1
    stack = np.stack([a, a])
    ranks = L.matrix_rank(t(stack), rtol=t(np.array([1e-5, 0.05])))
    assert ranks.tolist() == [3, 2]
    np.testing.assert_allclose(L.pinv(t(a), rtol=1e-3).numpy(), np.diag([0.1, 1.0, 0.0]))
    with pytest.raises(ValueError, match="rtol of shape"):
        L.matrix_rank(t(stack), rtol=t(np.ones(3)))
    with pytest.raises(TypeError, match="rtol"):
        L.pinv(t(a), rtol=t(np.array([1])))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 3), (0, 2, 2), (3, 0), (2, 0, 4)])
def test_matrix_rank(dtype, shape):
    a = rand(shape, dtype)
    if a.size:
        a[..., -1] = a[..., 0]   # drop one rank where there is a column to spare
    expected = (np.linalg.matrix_rank(a) if a.size
                else np.zeros(shape[:-2], dtype=np.int64))
    out = L.matrix_rank(t(a))
    assert out.dtype == lt.int64 and out.shape == shape[:-2]
    assert np.array_equal(out.numpy(), expected)


# ---- norms --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(dtype, ord, keepdims):
    a = rand((2, 3, 4), dtype)
    expected = np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims)
    close(L.matrix_norm(t(a), ord=ord, keepdims=keepdims), expected, dtype,
          exact_dtype=REAL_OF[dtype])


@pytest.mark.parametrize("ord", ["fro", 2, -np.inf])
def test_matrix_norm_of_empty_matrices_is_zero(ord):
    out = L.matrix_norm(t(np.zeros((2, 3, 0), np.float32)), ord=ord)
    assert out.dtype == lt.float32 and out.tolist() == [0.0, 0.0]
    assert L.matrix_norm(t(np.zeros((0, 2, 2))), keepdims=True).shape == (0, 1, 1)


def test_matrix_norm_rejects_other_orders():
    for ord in (3, 0, "max", True, None):
        with pytest.raises(ValueError, match="linalg.matrix_norm: ord must be one of"):
            L.matrix_norm(t(np.eye(2)), ord=ord)


@pytest.mark.parametrize("dtype", FLOATS + [np.float16])
@pytest.mark.parametrize("ord", [2, 1, 0, -1, -2, np.inf, -np.inf, 3, 0.5, -1.5])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (-1, 0), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm(dtype, ord, axis, keepdims):
    a = rand((2, 3, 4), dtype)
    a[0, 1, 2] = 0
    wide = a.astype(COMPLEX_OF[dtype] if np.dtype(dtype).kind == "c" else np.float64)
    with np.errstate(divide="ignore"):
        expected = np.linalg.vector_norm(wide, ord=ord, axis=axis, keepdims=keepdims)
    out = L.vector_norm(t(a), ord=ord, axis=axis, keepdims=keepdims)
    assert out.dtype == REAL_OF[dtype] and out.shape == expected.shape
    rtol = 5e-3 if dtype == np.float16 else tol(dtype)
    np.testing.assert_allclose(out.numpy().astype(np.float64), expected, rtol=rtol, atol=rtol)


def test_vector_norm_widens_float16():
    # sum(x**2) overflows float16 (max 65504); the norm itself fits
    out = L.vector_norm(t(np.full(4, 300.0, np.float16)))
    assert out.dtype == lt.float16 and float(out) == 600.0


def test_vector_norm_axis_errors():
    x = t(np.ones((2, 3)))
    with pytest.raises(IndexError, match=r"linalg.vector_norm: axis 2 is out of bounds"):
        L.vector_norm(x, axis=2)
    with pytest.raises(ValueError, match="axis"):
        L.vector_norm(x, axis=(-3,))
    with pytest.raises(ValueError, match="repeated axis"):
        L.vector_norm(x, axis=(1, -1))
    with pytest.raises(TypeError, match="ord"):
        L.vector_norm(x, ord="fro")


# ---- products, diagonals, the trace ----------------------------------------------------

@pytest.mark.parametrize("shapes,axis", [
    (((3,), (3,)), -1), (((4, 3), (3,)), -1), (((2, 1, 3), (4, 3)), -1),
    (((3, 4), (3, 4)), -2), (((2, 3, 5), (3, 1)), -2), (((0, 3), (3,)), -1),
])
@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float64),
                                    (np.int8, np.uint8), (np.int32, np.int32),
                                    (np.complex64, np.complex64)])
def test_cross(shapes, axis, dtypes):
    a = (rand(shapes[0], np.float64) * 50).astype(dtypes[0])
    b = (rand(shapes[1], np.float64, 1) * 50).astype(dtypes[1])
    with np.errstate(over="ignore"):
        expected = np.cross(a, b, axis=axis)
    out = L.cross(t(a), t(b), axis=axis)
    assert out.dtype == np.result_type(*dtypes) and out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_cross_errors():
    with pytest.raises(ValueError, match=r"axis -1 must have size 3 in both inputs, got shapes "
                                         r"\(2,\) and \(2,\)"):
        L.cross(t(np.ones(2)), t(np.ones(2)))
    with pytest.raises(ValueError, match="size 3"):   # the compute axis does not broadcast
        L.cross(t(np.ones((2, 3))), t(np.ones((2, 1))))
    with pytest.raises(IndexError, match="axis -2 is out of range"):
        L.cross(t(np.ones((2, 3))), t(np.ones(3)), axis=-2)
    with pytest.raises(ValueError, match="do not broadcast"):
        L.cross(t(np.ones((2, 3))), t(np.ones((4, 3))))
    with pytest.raises(ValueError, match="use a negative axis"):
        L.cross(t(np.ones((2, 3))), t(np.ones(3)), axis=1)
    assert L.cross(t(np.ones((3, 2))), t(np.ones((3, 2))), axis=0).shape == (3, 2)
    with pytest.raises(TypeError, match="numeric"):
        L.cross(t(np.ones(3, bool)), t(np.ones(3, bool)))


@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.int8, np.uint8),
                                    (np.int64, np.float32), (np.complex128, np.float32)])
@pytest.mark.parametrize("n,m", [(3, 4), (1, 1), (0, 3)])
def test_outer(dtypes, n, m):
    a = (rand((n,), np.float64) * 9).astype(dtypes[0])
    b = rand((m,), np.float64, 1).astype(dtypes[1])
    out = L.outer(t(a), t(b))
    expected = np.outer(a, b)
    assert out.dtype == expected.dtype and out.shape == (n, m)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_outer_needs_vectors():
    with pytest.raises(ValueError, match=r"two 1-d tensors, got shapes \(2, 2\) and \(2,\)"):
        L.outer(t(np.ones((2, 2))), t(np.ones(2)))
    with pytest.raises(ValueError, match="1-d"):
        L.outer(t(np.float64(1)), t(np.ones(2)))


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint8, np.float32, np.complex128])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (0, 2, 2), (1, 5)])
@pytest.mark.parametrize("offset", [0, 1, -1, 3, -3, 1000, -1000])
def test_diagonal(dtype, shape, offset):
    a = (rand(shape, np.float64) * 9).astype(dtype)
    expected = np.diagonal(a, offset=offset, axis1=-2, axis2=-1)
    out = L.diagonal(t(a), offset=offset)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("dtype,expected_dtype", [
    (np.int8, np.int64), (np.int32, np.int64), (np.int64, np.int64), (np.uint8, np.uint64),
    (np.uint32, np.uint64), (np.uint64, np.uint64), (np.float16, np.float16),
    (np.float32, np.float32), (np.complex64, np.complex64), (np.float64, np.float64),
])
@pytest.mark.parametrize("offset", [0, 2, -1, 50])
def test_trace_default_dtype(dtype, expected_dtype, offset):
    a = (rand((2, 4, 5), np.float64) * 9).astype(dtype)
    out = L.trace(t(a), offset=offset)
    assert out.dtype == expected_dtype and out.shape == (2,)
    expected = np.trace(a.astype(expected_dtype), offset=offset, axis1=-2, axis2=-1)
    np.testing.assert_allclose(out.numpy(), expected, rtol=tol(dtype))


def test_trace_dtype_argument_casts_before_summing():
    a = np.full((3, 3), 100, np.int8)
    assert L.trace(t(a), dtype=lt.int8).tolist() == np.int8(300 - 256)
    assert L.trace(t(a), dtype=lt.int16).tolist() == 300
    assert L.trace(t(a.astype(np.float64)), dtype=lt.float32).dtype == lt.float32
    assert L.trace(t(np.ones((0, 3, 3), np.int32))).shape == (0,)
    assert float(L.trace(t(np.ones((2, 0))))) == 0.0


# ---- the top-level functions under linalg ----------------------------------------------

def test_aliases_match_the_top_level_functions():
    a, b = rand((2, 3, 4), np.float64), rand((4, 5), np.float64, 1)
    assert np.array_equal(L.matmul(t(a), t(b)).numpy(), lt.matmul(t(a), t(b)).numpy())
    assert np.array_equal(L.matrix_transpose(t(a)).numpy(), mT(a))
    np.testing.assert_allclose(L.tensordot(t(a), t(b), axes=1).numpy(),
                               np.tensordot(a, b, axes=1))
    c = rand((3, 4), np.complex128, 2)
    np.testing.assert_allclose(L.vecdot(t(c), t(c), axis=-1).numpy(),
                               np.sum(c.conj() * c, axis=-1))
    assert complex(L.vecdot(t(np.array([1j, 2j, 3j])), t(np.array([1, 2j, 3])))) == 4 - 10j


# ---- input checking -----------------------------------------------------------------

@pytest.mark.parametrize("name", FLOAT_ONLY + ["matrix_power", "solve"])
def test_integer_input_is_factorised_as_numpy_does(name):
    # the standard leaves integer input unspecified: NumPy's float64 results (and integer
    # matrix powers) are served
    a = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], np.int32)
    args = {"matrix_power": (a, 2), "solve": (a, a)}.get(name, (a,))
    got = getattr(L, name)(*(t(v) if isinstance(v, np.ndarray) else v for v in args))
    want = getattr(np.linalg, name)(*args)
    for g, w in zip(*((tuple(r) if isinstance(r, tuple) else (r,)) for r in (got, want))):
        if name in ("eig", "eigvals"):   # difference: the standard's result is always complex
            w = w.astype(np.complex128)
        assert g.dtype == w.dtype, name
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh",
                                  "inv", "slogdet"])
def test_square_only_functions_reject_other_shapes(name):
    with pytest.raises(ValueError, match=rf"linalg.{name} needs square matrices, got shape "
                                         rf"\(2, 3\)"):
        getattr(L, name)(t(np.ones((2, 3))))
    with pytest.raises(ValueError, match=rf"linalg.{name} needs a matrix"):
        getattr(L, name)(t(np.ones(3)))


@pytest.mark.parametrize("name", ["inv", "matrix_power"])
def test_singular_matrices_raise_linalg_errors_naming_the_function(name):
    args = (t(np.zeros((2, 2))),) + ((-1,) if name == "matrix_power" else ())
    with pytest.raises(np.linalg.LinAlgError, match=f"linalg.{name}: Singular matrix"):
        getattr(L, name)(*args)
    with pytest.raises(ValueError):   # LinAlgError is a ValueError
        getattr(L, name)(*args)


def test_not_positive_definite_and_bad_modes():
    with pytest.raises(np.linalg.LinAlgError, match="linalg.cholesky: .*positive definite"):
        L.cholesky(t(-np.eye(2)))
    with pytest.raises(ValueError, match="mode must be 'reduced', 'complete', 'r' or 'raw', "
                                         "got 'full'"):
        L.qr(t(np.eye(2)), mode="full")


def test_array_likes_are_taken_and_booleans_rejected():
    assert float(L.det(np.eye(2) * 2)) == np.linalg.det(np.eye(2) * 2)
    with pytest.raises(TypeError, match="linalg.det: expected a Tensor or an array-like"):
        L.det(object())
    with pytest.raises(TypeError, match="linalg.trace needs a numeric tensor, got bool"):
        L.trace(t(np.eye(2, dtype=bool)))
    with pytest.raises(TypeError, match="linalg.outer needs a numeric tensor"):
        L.outer(t(np.ones(2, bool)), t(np.ones(2)))


def test_half_precision_is_factorised_in_single_and_cast_back():
    a = well_conditioned((3, 3), np.float16)
    for name in ["det", "inv", "pinv", "svdvals", "eigvalsh"]:
        out = getattr(L, name)(t(a))
        assert out.dtype == lt.float16, name
    assert L.eig(t(a)).eigenvalues.dtype == lt.complex64
    np.testing.assert_allclose(L.inv(t(a)).numpy(), np.linalg.inv(a.astype(np.float32)),
                               rtol=2e-3, atol=2e-3)


def test_lazy_inputs_are_evaluated():
    x = t(np.eye(3)) * 2.0 + 1.0          # recorded, not run
    assert not x.is_evaluated
    np.testing.assert_allclose(L.det(x).numpy(), np.linalg.det(np.eye(3) * 2 + 1))
    assert set(L.__all__) >= {"eig", "eigvals", "matmul", "vecdot", "vector_norm"}
    assert all(getattr(L, name).__doc__ for name in L.__all__)
