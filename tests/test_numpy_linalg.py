"""NumPy's linear-algebra and FFT names (lazytensor/_api/numpy_linalg.py, the NumPy
signatures of lt.linalg and lt.fft) against NumPy on the same data: values, dtypes,
shapes; the lazy ``linalg.norm``; errors.

Known differences from NumPy (asserted below): ``lt.linalg.eig``/``eigvals`` are always
complex (the standard's result; NumPy returns real arrays when every eigenvalue is real);
``lt.linalg.pinv`` without ``rcond``/``rtol`` cuts at the standard's ``max(M, N) * eps``
(NumPy: ``1e-15``).
"""

import numpy as np
import pytest

import lazytensor as lt

rng = np.random.default_rng(3)
A = rng.uniform(-2, 2, (3, 4))
M = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
S = rng.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
V = np.array([1.0, 4.0, 2.0, 8.0, 5.0, 7.0])
C = rng.uniform(-1, 1, (3, 3)) + 1j * rng.uniform(-1, 1, (3, 3))
I = np.array([[1, 2], [3, 4]], np.int32)


def check(got, want, rtol=1e-10):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, rtol)
        return
    want = np.asarray(want)
    assert isinstance(got, lt.Tensor), type(got)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=rtol)


def tensors(args):
    return tuple(lt.asarray(a) if isinstance(a, np.ndarray) else
                 [lt.asarray(b) for b in a] if isinstance(a, list) and
                 isinstance(a[0], np.ndarray) else a for a in args)


CALLS = [
    # top-level products
    ("inner", (V, V), {}), ("inner", (A, A), {}), ("inner", (I, I), {}),
    ("outer", (V, V[:3]), {}), ("outer", (A, V), {}), ("kron", (M, M), {}),
    ("kron", (I, np.eye(2)), {}),
    ("einsum", ("ij,kj->ik", A, A), {}), ("einsum", ("ii", M), {}),
    ("einsum", ("...ij,...jk", S, S), {}), ("einsum", ("i,i", V, V), {"optimize": True}),
    ("vdot", (C, C), {}), ("vdot", (V, V), {}),
    ("cross", (M[0], M[1]), {}), ("cross", (M, M[::-1]), {}),
    ("cross", (M, M[::-1]), {"axis": 0}), ("cross", (M.T, M), {"axisa": 0}),
    ("tensordot", (A, A, ([1], [1])), {}), ("tensordot", (A, A.T), {"axes": 1}),
    ("tensordot", (S, S.transpose(1, 2, 0), 2), {}),
    # numpy.linalg with NumPy's signatures
    ("linalg.norm", (A,), {}), ("linalg.norm", (A,), {"axis": 1}),
    ("linalg.norm", (A,), {"axis": (0, 1), "keepdims": True}), ("linalg.norm", (V, 1), {}),
    ("linalg.norm", (V, np.inf), {}), ("linalg.norm", (V, -np.inf), {}),
    ("linalg.norm", (V, 0), {}), ("linalg.norm", (V, 3.5), {}),
    ("linalg.norm", (A, "fro"), {}), ("linalg.norm", (A, "nuc"), {}),
    ("linalg.norm", (A, 2), {}), ("linalg.norm", (A, -1), {}),
    ("linalg.norm", (A, np.inf), {}), ("linalg.norm", (S,), {"axis": (1, 2)}),
    ("linalg.norm", (I,), {}), ("linalg.norm", (C,), {}), ("linalg.norm", (I > 2,), {}),
    ("linalg.norm", (A.astype(np.float16),), {}), ("linalg.norm", (np.zeros((0, 3)),), {}),
    ("linalg.norm", (A.astype(np.float32),), {"axis": 0}),
    ("linalg.lstsq", (M, np.array([1.0, 2.0, 3.0])), {"rcond": None}),
    ("linalg.lstsq", (A.T, V[:4].reshape(4, 1)), {}),
    ("linalg.multi_dot", ([A, A.T, M],), {}), ("linalg.multi_dot", ([V[:3], M, M],), {}),
    ("linalg.cond", (M,), {}), ("linalg.cond", (M, "fro"), {}),
    ("linalg.tensorinv", (np.eye(4).reshape(4, 2, 2),), {"ind": 1}),
    ("linalg.tensorsolve", (np.eye(6).reshape(6, 2, 3), V), {}),
    ("linalg.solve", (M, np.array([1.0, 2.0, 3.0])), {}), ("linalg.solve", (M, M), {}),
    ("linalg.inv", (I,), {}), ("linalg.det", (I,), {}), ("linalg.det", (S,), {}),
    ("linalg.slogdet", (M,), {}), ("linalg.eigh", (M,), {}), ("linalg.eigh", (M, "U"), {}),
    ("linalg.eigvalsh", (S,), {"UPLO": "U"}), ("linalg.svd", (A,), {}),
    ("linalg.svd", (A, False), {}), ("linalg.svd", (A,), {"compute_uv": False}),
    ("linalg.svd", (M,), {"hermitian": True, "compute_uv": False}),
    ("linalg.qr", (A,), {}), ("linalg.qr", (A, "r"), {}), ("linalg.qr", (A.T, "complete"), {}),
    ("linalg.qr", (A,), {"mode": "raw"}), ("linalg.cholesky", (M,), {}),
    ("linalg.cholesky", (M,), {"upper": True}),
    ("linalg.pinv", (A, 1e-10), {}), ("linalg.pinv", (M,), {"hermitian": True, "rcond": 1e-12}),
    ("linalg.matrix_rank", (A,), {}), ("linalg.matrix_rank", (M, 2.5), {}),
    ("linalg.matrix_rank", (V,), {}), ("linalg.matrix_rank", (M,), {"hermitian": True}),
    ("linalg.matrix_power", (I, 3), {}), ("linalg.matrix_power", (M, -2), {}),
    ("linalg.matrix_power", (I, 0), {}),
    # numpy.fft with NumPy's signatures
    ("fft.fft", (V,), {}), ("fft.fft", (V, 8), {}), ("fft.fft", (A, None, 0), {}),
    ("fft.fft", (V,), {"norm": None}), ("fft.fft", (V,), {"norm": "ortho"}),
    ("fft.fft", (I,), {}), ("fft.ifft", (C, 4, -1, "forward"), {}),
    ("fft.rfft", (V, 5), {}), ("fft.irfft", (C[0], 4), {}), ("fft.hfft", (C[0],), {}),
    ("fft.ihfft", (V,), {}), ("fft.fftn", (S,), {}), ("fft.fftn", (S, (2, 4), (0, 2)), {}),
    ("fft.ifftn", (S,), {"axes": (1,)}), ("fft.rfftn", (A,), {}), ("fft.irfftn", (C,), {}),
    ("fft.fft2", (A,), {}), ("fft.fft2", (S, (4, 4)), {}), ("fft.fft2", (S,), {"axes": (0, 2)}),
    ("fft.ifft2", (C,), {"norm": "ortho"}), ("fft.rfft2", (A,), {}),
    ("fft.rfft2", (A.astype(np.float32),), {}), ("fft.irfft2", (C,), {}),
    ("fft.irfft2", (C, (3, 4)), {}), ("fft.fft2", (I,), {}),
    ("fft.fftfreq", (6, 0.5), {}), ("fft.rfftfreq", (7,), {"d": 2.0}),
    ("fft.fftshift", (A, 1), {}), ("fft.ifftshift", (V,), {}),
]


def resolve(module, name):
    for part in name.split("."):
        module = getattr(module, part)
    return module


@pytest.mark.parametrize("name, args, kwargs", CALLS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(CALLS)])
def test_matches_numpy(name, args, kwargs):
    want = resolve(np, name)(*args, **kwargs)
    dtypes = [a.dtype for a in args if isinstance(a, np.ndarray)]
    rtol = (2e-3 if np.dtype(np.float16) in dtypes else 1e-5 if np.dtype(np.float32) in dtypes
            else 1e-9)
    check(resolve(lt, name)(*tensors(args), **kwargs), want, rtol)


def test_eig_is_complex_as_the_standard_says():
    w = lt.linalg.eigvals(lt.asarray(M))
    assert w.dtype == lt.complex128                     # NumPy: float64 here
    np.testing.assert_allclose(np.sort(w.numpy().real), np.sort(np.linalg.eigvals(M)))


def test_standard_signatures_still_work():
    x = lt.asarray(A)
    check(lt.tensordot(x, x, axes=([1], [1])), np.tensordot(A, A, axes=([1], [1])))
    check(lt.linalg.cross(lt.asarray(M), lt.asarray(M[::-1]), axis=-1), np.cross(M, M[::-1]))
    check(lt.linalg.svd(x, full_matrices=False), np.linalg.svd(A, full_matrices=False))
    check(lt.linalg.pinv(x, rtol=1e-3), np.linalg.pinv(A, rtol=1e-3))
    check(lt.linalg.matrix_rank(x, rtol=0.5), np.linalg.matrix_rank(A, rtol=0.5))
    check(lt.fft.fft(lt.asarray(V), n=4, axis=-1, norm="backward"), np.fft.fft(V, n=4))
    check(lt.fft.fftfreq(4, d=2.0, dtype=lt.float32), np.fft.fftfreq(4, 2.0).astype(np.float32))


def test_default_norm_is_recorded_and_fuses():
    x = lt.asarray(A)
    y = lt.linalg.norm(x * 2.0 - 1.0, axis=1)
    assert not y.is_evaluated
    plan = str(lt.explain(y))     # x*2-1, its square and the sum in one kernel; sqrt after
    assert plan.count("kernel ") == 2 and "fused: the reduced value is not stored" in plan
    check(y, np.linalg.norm(A * 2 - 1, axis=1))


@pytest.mark.parametrize("call, error, match", [
    (lambda: lt.inner(lt.asarray(V), lt.asarray(A)), ValueError, "inner: "),
    (lambda: lt.einsum("ij,jk", lt.asarray(A), lt.asarray(A)), ValueError, "einsum: "),
    (lambda: lt.kron(object(), lt.asarray(A)), TypeError, "kron: "),
    (lambda: lt.cross(lt.asarray(V), lt.asarray(V)), ValueError, "cross: "),
    (lambda: lt.tensordot(lt.asarray(A), lt.asarray(A), 1), ValueError, "tensordot: "),
    (lambda: lt.linalg.norm(lt.asarray(A), "bogus"), ValueError, "linalg.norm: "),
    (lambda: lt.linalg.norm(lt.asarray(A), axis=3), np.exceptions.AxisError,
     "linalg.norm: axis 3"),
    (lambda: lt.linalg.norm(lt.asarray(A), axis=()), ValueError, "linalg.norm: Improper"),
    (lambda: lt.linalg.lstsq(lt.asarray(M), lt.asarray(V)), np.linalg.LinAlgError,
     "linalg.lstsq: "),
    (lambda: lt.linalg.multi_dot([lt.asarray(V)]), ValueError, "linalg.multi_dot: "),
    (lambda: lt.linalg.inv(lt.asarray(np.zeros((2, 2)))), lt.linalg.LinAlgError,
     "linalg.inv: Singular"),
    (lambda: lt.linalg.qr(lt.asarray(A), "full"), ValueError, "linalg.qr: mode must be"),
    (lambda: lt.linalg.eigh(lt.asarray(M), "X"), ValueError, "linalg.eigh: UPLO must be"),
    (lambda: lt.linalg.pinv(lt.asarray(A), 1e-3, rtol=1e-3), ValueError, "linalg.pinv: "),
    (lambda: lt.linalg.matrix_power(lt.asarray(A.astype(int)), 2), ValueError,
     "linalg.matrix_power needs square"),
    (lambda: lt.fft.fft2(lt.asarray(V)), IndexError, "fft.fftn: axis -2"),
    (lambda: lt.fft.fft(lt.asarray(V), 0), ValueError, "fft.fft: n must be at least 1"),
    (lambda: lt.fft.fft(lt.asarray(V), out=lt.zeros(6)), TypeError,
     r"fft.fft\(..., out=\): cannot cast the result from dtype complex128 to dtype float64"),
])
def test_errors_name_the_function(call, error, match):
    with pytest.raises(error, match=match):
        call()
