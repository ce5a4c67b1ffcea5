"""The Array API ``linalg`` extension (``lt.linalg``).

None of these functions is elementwise: each evaluates its inputs and runs NumPy on the
values (LAPACK for the decompositions).  Single precision stays single precision
(float32 in, float32 out; complex64 in, complex64/float32 out).  float16 tensors are
factorised in float32, since LAPACK has no half precision, and the results cast back.

``matmul``, ``matrix_transpose``, ``tensordot`` and ``vecdot`` are the top-level
functions of the same names.

NumPy's ``numpy.linalg`` is served beside the standard: the functions take array_likes
and NumPy's extra arguments (``UPLO``, ``compute_uv``, ``hermitian``, ``tol``, ``rcond``,
``qr``'s ``mode='r'``/``'raw'``), integer and bool input is factorised in float64 as in
NumPy, and ``norm``, ``lstsq``, ``multi_dot``, ``cond``, ``tensorinv`` and
``tensorsolve`` (from ``_api/numpy_linalg.py``) complete NumPy's list.  Where NumPy's
default differs from the standard's (``pinv``'s cut-off), the standard's is kept.
"""

from __future__ import annotations

import contextlib
import numbers
import operator
from typing import NamedTuple

import numpy as np

from ._api.numpy_linalg import LINALG_NAMES, cond, lstsq, multi_dot, norm, tensorinv, tensorsolve
from ._api.elementwise import cast
from ._api.numpy_values import as_tensor
from ._engine.dtypes import canonical_dtype
from ._engine.shapes import check_size
from ._engine.tensor import Tensor

__all__ = ['cholesky', 'cross', 'det', 'diagonal', 'eig', 'eigh', 'eigvals', 'eigvalsh', 'inv',
           'matmul', 'matrix_norm', 'matrix_power', 'matrix_rank', 'matrix_transpose', 'outer',
           'pinv', 'qr', 'slogdet', 'solve', 'svd', 'svdvals', 'tensordot', 'trace', 'vecdot',
           'vector_norm'] + LINALG_NAMES + ['LinAlgError']

LinAlgError = np.linalg.LinAlgError


class EighResult(NamedTuple):
    """Result of :func:`eigh`."""
    eigenvalues: Tensor
    eigenvectors: Tensor


class EigResult(NamedTuple):
    """Result of :func:`eig`."""
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    """Result of :func:`qr`."""
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    """Result of :func:`slogdet`."""
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    """Result of :func:`svd`."""
    U: Tensor
    S: Tensor
    Vh: Tensor


# ---- helpers ---------------------------------------------------------------------------

def _numpy_input(x, name: str):
    """``x`` as a Tensor, integer and bool tensors as float64 (NumPy factorises those in
    float64; the standard leaves them unspecified)."""
    x = as_tensor(x, f"linalg.{name}")
    if x.dtype.kind in "biu":
        x = cast(x, np.float64)
    return x


def _uplo(UPLO, name: str) -> str:
    if UPLO not in ("L", "U"):
        raise ValueError(f"linalg.{name}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO


def _value(x, name: str) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"linalg.{name}: expected a Tensor, got {type(x).__name__}")
    return x._value()


def _numeric(x, name: str) -> np.ndarray:
    """The value of ``x``, which must have a numeric (not boolean) dtype."""
    v = _value(x, name)
    if v.dtype.kind not in "iufc":
        raise TypeError(f"linalg.{name} needs a numeric tensor, got {x.dtype.name}")
    return v


def _floating(x, name: str, *, square: bool = False, matrices: bool = True) -> np.ndarray:
    """The value of a floating-point ``x`` (a stack of matrices unless ``matrices=False``).

    float16 comes back widened to float32: LAPACK has no half precision.
    """
    v = _value(x, name)
    if v.dtype.kind not in "fc":
        raise TypeError(f"linalg.{name} needs a floating-point tensor (real or complex), "
                        f"got {x.dtype.name}")
    if matrices:
        if v.ndim < 2:
            raise ValueError(f"linalg.{name} needs a matrix or a stack of matrices (at least "
                             f"2 dimensions), got shape {x.shape}")
        if square and v.shape[-1] != v.shape[-2]:
            raise ValueError(f"linalg.{name} needs square matrices, got shape {x.shape}")
    return v.astype(np.float32) if v.dtype == np.float16 else v


def _real(dtype) -> np.dtype:
    """The real dtype of ``dtype``'s precision (complex64 -> float32)."""
    return np.dtype(dtype).type(0).real.dtype


def _complex(dtype) -> np.dtype:
    """The complex dtype of ``dtype``'s precision (float32 -> complex64)."""
    return np.result_type(dtype, np.complex64)


def _wrap(array, dtype) -> Tensor:
    return Tensor._computed_by_numpy(np.asarray(array).astype(dtype, copy=False),
                                     "numpy.linalg (LAPACK)")


@contextlib.contextmanager
def _lapack(name: str):
    """Name the function in LAPACK's errors (singular matrix, no convergence, ...)."""
    try:
        yield
    except np.linalg.LinAlgError as exc:   # a ValueError subclass
        raise np.linalg.LinAlgError(f"linalg.{name}: {exc}") from None


def _is_real_number(value) -> bool:
    """A Python or NumPy int or float, not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _rtol(rtol, x, name: str):
    """``rtol`` of matrix_rank/pinv as NumPy takes it: a float, or a real floating array
    broadcasting against the stack shape.  Default: ``max(M, N) * eps`` of ``x``'s dtype.
    """
    if rtol is None:
        return max(x.shape[-2:]) * float(np.finfo(x.dtype).eps)
    if isinstance(rtol, Tensor):
        if rtol.dtype.kind != "f":
            raise TypeError(f"linalg.{name}: rtol must have a real floating-point dtype, "
                            f"got {rtol.dtype.name}")
        rtol = rtol._value()
        try:
            np.broadcast_shapes(rtol.shape, x.shape[:-2])
        except ValueError:
            raise ValueError(f"linalg.{name}: rtol of shape {rtol.shape} does not broadcast "
                             f"against the stack shape {x.shape[:-2]}") from None
        return rtol
    if not _is_real_number(rtol):
        raise TypeError(f"linalg.{name}: rtol must be None, a float or a Tensor, "
                        f"got {type(rtol).__name__}")
    return float(rtol)


# ---- decompositions and solvers ------------------------------------------------------

def cholesky(x, /, *, upper=False):
    """Cholesky factor of Hermitian positive-definite matrices.

    Parameters
    ----------
    x : Tensor
        Shape ``(..., M, M)``, floating-point.
    upper : bool
        Return the upper factor ``U`` (``x = U^H U``) instead of the lower ``L``
        (``x = L L^H``).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``.  ``LinAlgError`` (a ``ValueError``) if a matrix is
        not positive definite.
    """
    x = _numpy_input(x, "cholesky")
    v = _floating(x, "cholesky", square=True)
    with _lapack("cholesky"):
        return _wrap(np.linalg.cholesky(v, upper=bool(upper)), x.dtype)


def det(x, /):
    """Determinant of each square matrix in ``x`` (shape ``(..., M, M)``), dtype of ``x``."""
    x = _numpy_input(x, "det")
    v = _floating(x, "det", square=True)
    with _lapack("det"):
        return _wrap(np.linalg.det(v), x.dtype)


def slogdet(x, /):
    """Sign and log of the absolute value of the determinant of each square matrix.

    Returns
    -------
    SlogdetResult
        ``(sign, logabsdet)``, each of shape ``x.shape[:-2]``; ``sign`` has the dtype of
        ``x``, ``logabsdet`` the real dtype of its precision.  A singular matrix gives
        ``sign = 0`` and ``logabsdet = -inf``.
    """
    x = _numpy_input(x, "slogdet")
    v = _floating(x, "slogdet", square=True)
    with _lapack("slogdet"):
        sign, logabsdet = np.linalg.slogdet(v)
    return SlogdetResult(_wrap(sign, x.dtype), _wrap(logabsdet, _real(x.dtype)))


def inv(x, /):
    """Inverse of each square matrix in ``x``; ``LinAlgError`` if one is singular."""
    x = _numpy_input(x, "inv")
    v = _floating(x, "inv", square=True)
    with _lapack("inv"):
        return _wrap(np.linalg.inv(v), x.dtype)


def solve(x1, x2, /):
    """Solve ``x1 @ X = x2`` for ``X``.

    Parameters
    ----------
    x1 : Tensor
        Coefficients, shape ``(..., M, M)``, floating-point, invertible.
    x2 : Tensor
        Shape ``(M,)`` (one right-hand side for every matrix) or ``(..., M, K)``, whose
        leading dimensions broadcast against those of ``x1``.

    Returns
    -------
    Tensor
        Shape ``x1.shape[:-2] + (M,)`` for a 1-d ``x2``, else
        ``broadcast(x1.shape[:-2], x2.shape[:-2]) + (M, K)``; the promoted dtype.
    """
    x1, x2 = _numpy_input(x1, "solve"), _numpy_input(x2, "solve")
    a = _floating(x1, "solve", square=True)
    b = _floating(x2, "solve", matrices=False)
    m = x1.shape[-1]
    if b.ndim == 0 or b.shape[-1 if b.ndim == 1 else -2] != m:
        raise ValueError(f"linalg.solve: x2 of shape {x2.shape} does not match x1 of shape "
                         f"{x1.shape} (x2 must have shape ({m},) or (..., {m}, K))")
    if b.ndim >= 2:
        try:
            np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise ValueError(f"linalg.solve: the stack dimensions of x1 {x1.shape} and x2 "
                             f"{x2.shape} do not broadcast together") from None
    dtype = np.result_type(x1.dtype, x2.dtype)
    work = np.result_type(a.dtype, b.dtype)
    with _lapack("solve"):
        return _wrap(np.linalg.solve(a.astype(work, copy=False), b.astype(work, copy=False)),
                     dtype)


def eigh(x, /, UPLO="L"):
    """Eigenvalues and eigenvectors of Hermitian (real symmetric) matrices.

    Only the lower triangle of each matrix is read (the upper with NumPy's ``UPLO="U"``).

    Returns
    -------
    EighResult
        ``(eigenvalues, eigenvectors)``: eigenvalues in ascending order, shape
        ``(..., M)``, real dtype of ``x``'s precision; eigenvectors as the columns of a
        ``(..., M, M)`` tensor of ``x``'s dtype.
    """
    x = _numpy_input(x, "eigh")
    v = _floating(x, "eigh", square=True)
    with _lapack("eigh"):
        w, q = np.linalg.eigh(v, UPLO=_uplo(UPLO, "eigh"))
    return EighResult(_wrap(w, _real(x.dtype)), _wrap(q, x.dtype))


def eigvalsh(x, /, UPLO="L"):
    """Eigenvalues (ascending) of Hermitian matrices; real dtype of ``x``'s precision.
    ``UPLO`` ("L" or "U", NumPy's) names the triangle that is read."""
    x = _numpy_input(x, "eigvalsh")
    v = _floating(x, "eigvalsh", square=True)
    with _lapack("eigvalsh"):
        return _wrap(np.linalg.eigvalsh(v, UPLO=_uplo(UPLO, "eigvalsh")), _real(x.dtype))


def eig(x, /):
    """Eigenvalues and eigenvectors of general square matrices.

    Returns
    -------
    EigResult
        ``(eigenvalues, eigenvectors)`` of shapes ``(..., M)`` and ``(..., M, M)``, both
        complex of ``x``'s precision (complex64 for float32), even when every eigenvalue
        is real.  Eigenvectors are the columns, normalised to unit length.
    """
    x = _numpy_input(x, "eig")
    v = _floating(x, "eig", square=True)
    with _lapack("eig"):
        w, q = np.linalg.eig(v)
    dtype = _complex(x.dtype)
    return EigResult(_wrap(w, dtype), _wrap(q, dtype))


def eigvals(x, /):
    """Eigenvalues of general square matrices, complex of ``x``'s precision."""
    x = _numpy_input(x, "eigvals")
    v = _floating(x, "eigvals", square=True)
    with _lapack("eigvals"):
        return _wrap(np.linalg.eigvals(v), _complex(x.dtype))


def qr(x, /, mode="reduced"):
    """QR decomposition of each matrix in ``x`` (shape ``(..., M, N)``).

    Parameters
    ----------
    mode : {"reduced", "complete"}
        ``"reduced"``: ``Q`` is ``(..., M, K)`` and ``R`` is ``(..., K, N)`` with
        ``K = min(M, N)``; ``"complete"``: ``Q`` is ``(..., M, M)``, ``R`` ``(..., M, N)``.
        NumPy's ``"r"`` returns ``R`` alone and ``"raw"`` LAPACK's ``(h, tau)``.

    Returns
    -------
    QRResult
        ``(Q, R)`` in ``x``'s dtype; ``R`` is upper triangular.
    """
    x = _numpy_input(x, "qr")
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"linalg.qr: mode must be 'reduced', 'complete', 'r' or 'raw', "
                         f"got {mode!r}")
    v = _floating(x, "qr")
    if mode in ("r", "raw"):
        with _lapack("qr"):
            out = np.linalg.qr(v, mode=mode)
        return (_wrap(out, x.dtype) if mode == "r" else
                tuple(_wrap(o, x.dtype) for o in out))
    with _lapack("qr"):
        q, r = np.linalg.qr(v, mode=mode)
    return QRResult(_wrap(q, x.dtype), _wrap(r, x.dtype))


def svd(x, /, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition ``x = U @ diag(S) @ Vh``.

    Parameters
    ----------
    x : Tensor
        Shape ``(..., M, N)``, floating-point.
    full_matrices : bool
        ``True``: ``U`` is ``(..., M, M)`` and ``Vh`` ``(..., N, N)``; ``False``: ``U`` is
        ``(..., M, K)`` and ``Vh`` ``(..., K, N)`` with ``K = min(M, N)``.
    compute_uv, hermitian : bool
        NumPy's: ``compute_uv=False`` returns ``S`` alone; ``hermitian=True`` uses the
        faster eigenvalue route for Hermitian input.

    Returns
    -------
    SVDResult
        ``(U, S, Vh)``; ``S`` (shape ``(..., K)``, descending) has the real dtype of
        ``x``'s precision, ``U`` and ``Vh`` the dtype of ``x``.
    """
    x = _numpy_input(x, "svd")
    v = _floating(x, "svd")
    if not compute_uv:
        with _lapack("svd"):
            return _wrap(np.linalg.svd(v, compute_uv=False, hermitian=bool(hermitian)),
                         _real(x.dtype))
    with _lapack("svd"):
        u, s, vh = np.linalg.svd(v, full_matrices=bool(full_matrices),
                                 hermitian=bool(hermitian))
    return SVDResult(_wrap(u, x.dtype), _wrap(s, _real(x.dtype)), _wrap(vh, x.dtype))


def svdvals(x, /):
    """Singular values (descending, shape ``(..., min(M, N))``), real dtype of ``x``."""
    x = _numpy_input(x, "svdvals")
    v = _floating(x, "svdvals")
    with _lapack("svdvals"):
        return _wrap(np.linalg.svd(v, compute_uv=False), _real(x.dtype))


def matrix_rank(x, /, tol=None, hermitian=False, *, rtol=None):
    """Rank of each matrix: the number of singular values above ``rtol * largest``.

    Parameters
    ----------
    x : Tensor
        Shape ``(..., M, N)``, floating-point.
    rtol : float, Tensor or None
        Relative tolerance, a float or a real floating tensor broadcasting against
        ``x.shape[:-2]``; by default ``max(M, N) * eps`` of ``x``'s precision.
    tol, hermitian : NumPy's
        ``tol``: an absolute threshold instead of ``rtol``; ``hermitian``: take the
        singular values from ``eigvalsh``.  A 0-d or 1-d ``x`` has rank 1 unless all
        zero, as in NumPy.

    Returns
    -------
    Tensor
        int64 ranks of shape ``x.shape[:-2]``.
    """
    x = _numpy_input(x, "matrix_rank")
    if tol is not None or hermitian or x.ndim < 2:
        v = _floating(x, "matrix_rank", matrices=False)
        with _lapack("matrix_rank"):
            return _wrap(np.linalg.matrix_rank(v, tol=tol, hermitian=bool(hermitian),
                                               rtol=_value(rtol, "matrix_rank") if
                                               isinstance(rtol, Tensor) else rtol), np.int64)
    v = _floating(x, "matrix_rank")
    rtol = np.asarray(_rtol(rtol, x, "matrix_rank"))
    with _lapack("matrix_rank"):
        s = np.linalg.svd(v, compute_uv=False)
    # initial=0: a matrix with no singular values (an M x 0 matrix) has rank 0
    tol = s.max(axis=-1, keepdims=True, initial=0) * rtol[..., np.newaxis]
    return _wrap(np.count_nonzero(s > tol, axis=-1), np.int64)


def pinv(x, /, rcond=None, hermitian=False, *, rtol=None):
    """Moore-Penrose pseudo-inverse of each matrix (shape ``(..., M, N)`` -> ``(..., N, M)``).

    Singular values up to ``rtol * largest`` count as zero; ``rtol`` is as in
    :func:`matrix_rank`.  The result has the dtype of ``x``.  NumPy's ``rcond`` is the
    same as ``rtol`` (give one); ``hermitian`` uses the eigenvalue route.  Without either,
    the cut-off is the standard's ``max(M, N) * eps``, not NumPy's ``1e-15``.
    """
    x = _numpy_input(x, "pinv")
    if rcond is not None:
        if rtol is not None:
            raise ValueError("linalg.pinv: rtol and rcond can't be both set")
        rtol = rcond
    v = _floating(x, "pinv")
    rtol = _rtol(rtol, x, "pinv")
    with _lapack("pinv"):
        return _wrap(np.linalg.pinv(v, rtol=rtol, hermitian=bool(hermitian)), x.dtype)


def matrix_power(x, n, /):
    """Raise each square matrix to the integer power ``n``.

    ``n = 0`` gives identity matrices; ``n < 0`` the power of the inverse (``LinAlgError``
    for a singular matrix).  The result has the shape and dtype of ``x``; integer
    matrices stay integer for ``n >= 0`` (as in NumPy; a negative power of one is float64).
    """
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"linalg.matrix_power: the exponent must be an integer, got "
                        f"{type(n).__name__}") from None
    x = as_tensor(x, "linalg.matrix_power")
    if n == 1 and x.ndim >= 2 and x.shape[-1] == x.shape[-2] and x.dtype.kind in "biufc":
        return x            # NumPy's a itself
    if x.dtype.kind in "biu" and n >= 0:
        v = _numeric(x, "matrix_power") if x.dtype.kind != "b" else x._value()
        if v.ndim < 2 or v.shape[-1] != v.shape[-2]:
            raise ValueError(f"linalg.matrix_power needs square matrices, got shape {x.shape}")
        with np.errstate(all="ignore"):   # integer wrap-around, as in NumPy
            return _wrap(np.linalg.matrix_power(v, n), x.dtype)
    x = _numpy_input(x, "matrix_power")
    v = _floating(x, "matrix_power", square=True)
    with _lapack("matrix_power"):
        return _wrap(np.linalg.matrix_power(v, n), x.dtype)


# ---- norms ---------------------------------------------------------------------------

def _is_matrix_ord(ord) -> bool:
    if isinstance(ord, str):
        return ord in ("fro", "nuc")
    return _is_real_number(ord) and ord in (1, -1, 2, -2, np.inf, -np.inf)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Norm of each matrix in ``x`` (shape ``(..., M, N)``).

    Parameters
    ----------
    keepdims : bool
        Keep the two matrix axes as size-1 axes.
    ord : {"fro", "nuc", 1, -1, 2, -2, inf, -inf}
        Frobenius, nuclear, max/min column sum (1/-1), largest/smallest singular value
        (2/-2), max/min row sum (inf/-inf).

    Returns
    -------
    Tensor
        Real dtype of ``x``'s precision, shape ``x.shape[:-2]`` (``+ (1, 1)`` with
        ``keepdims``).  Every norm of an empty (M x 0 or 0 x N) matrix is 0.
    """
    x = _numpy_input(x, "matrix_norm")
    if not _is_matrix_ord(ord):
        raise ValueError(f"linalg.matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, "
                         f"-2, inf, -inf; got {ord!r}")
    v = _floating(x, "matrix_norm")
    dtype = _real(x.dtype)
    if v.shape[-1] == 0 or v.shape[-2] == 0:   # NumPy would take the max of nothing
        shape = v.shape[:-2] + ((1, 1) if keepdims else ())
        return _wrap(np.zeros(shape), dtype)
    with _lapack("matrix_norm"), np.errstate(over="ignore"):
        return _wrap(np.linalg.matrix_norm(v, keepdims=bool(keepdims), ord=ord), dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm of ``x`` over ``axis`` (all axes by default).

    Parameters
    ----------
    axis : int, tuple of ints or None
        The axes making up each vector (negative values count from the end).
    keepdims : bool
        Keep the reduced axes as size-1 axes.
    ord : int or float, including inf and -inf
        ``p`` of the p-norm; 0 counts the non-zero elements, negative values give
        ``sum(abs(x)**ord)**(1/ord)``, ``inf``/``-inf`` the largest/smallest ``abs(x)``.

    Returns
    -------
    Tensor
        Real dtype of ``x``'s precision.
    """
    x = _numpy_input(x, "vector_norm")
    if not _is_real_number(ord):
        raise TypeError(f"linalg.vector_norm: ord must be an int or float, got {ord!r}")
    v = _floating(x, "vector_norm", matrices=False)
    if isinstance(axis, list):
        axis = tuple(axis)
    # a zero ord**-1 element or a huge ord overflow are IEEE results, not errors
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        try:
            out = np.linalg.vector_norm(v, axis=axis, keepdims=bool(keepdims), ord=ord)
        except np.exceptions.AxisError as exc:
            raise np.exceptions.AxisError(f"linalg.vector_norm: {exc} (tensor shape "
                                          f"{x.shape}, axis={axis})") from None
        except ValueError as exc:   # repeated axes
            raise ValueError(f"linalg.vector_norm: {exc} (axis={axis})") from None
        except TypeError:
            raise TypeError(f"linalg.vector_norm: axis must be None, an int or a tuple of "
                            f"ints, got {axis!r}") from None
    return _wrap(out, _real(x.dtype))


# ---- products, diagonals, the trace --------------------------------------------------

def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis``.

    Parameters
    ----------
    x1, x2 : Tensor
        Numeric; size 3 along ``axis`` in both, the other axes broadcasting.
    axis : int
        A negative axis in ``[-min(x1.ndim, x2.ndim), -1]``, counted from the end of
        each input.  (A non-negative axis is accepted only when both have the same rank.)

    Returns
    -------
    Tensor
        The broadcast shape and the promoted dtype.
    """
    a, b = _numeric(x1, "cross"), _numeric(x2, "cross")
    axis = operator.index(axis)
    n = min(a.ndim, b.ndim)
    if axis >= 0:
        if a.ndim != b.ndim:
            raise ValueError(f"linalg.cross: axis {axis} is ambiguous for inputs of shapes "
                             f"{x1.shape} and {x2.shape}; use a negative axis")
        axis -= a.ndim
    if not -n <= axis < 0:
        raise np.exceptions.AxisError(f"linalg.cross: axis {axis} is out of range for shapes "
                                      f"{x1.shape} and {x2.shape}")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(f"linalg.cross: axis {axis} must have size 3 in both inputs, got "
                         f"shapes {x1.shape} and {x2.shape}")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"linalg.cross: shapes {x1.shape} and {x2.shape} do not broadcast "
                         f"together") from None
    with np.errstate(all="ignore"):   # integer wrap-around is the defined result
        out = np.cross(a, b, axis=axis)
    return _wrap(out, np.result_type(a.dtype, b.dtype))


def outer(x1, x2, /):
    """Outer product of two 1-d numeric tensors: shape ``(N, M)``, the promoted dtype."""
    a, b = _numeric(x1, "outer"), _numeric(x2, "outer")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"linalg.outer needs two 1-d tensors, got shapes {x1.shape} and "
                         f"{x2.shape}")
    check_size((a.size, b.size), "linalg.outer", np.result_type(a.dtype, b.dtype))
    return _wrap(np.multiply.outer(a, b), np.result_type(a.dtype, b.dtype))


def diagonal(x, /, *, offset=0):
    """Diagonal of each matrix in ``x`` (shape ``(..., M, N)``), as a view.

    ``offset > 0`` selects a diagonal above the main one, ``offset < 0`` one below; an
    offset past the edge gives an empty last axis.
    """
    v = _value(x, "diagonal")
    if v.ndim < 2:
        raise ValueError(f"linalg.diagonal needs a matrix or a stack of matrices, got shape "
                         f"{x.shape}")
    from ._api.manipulation import diagonal as _diagonal

    return _diagonal(x, offset=operator.index(offset), axis1=-2, axis2=-1)   # a read-only view


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the diagonal (selected by ``offset``) of each matrix in ``x``.

    Parameters
    ----------
    x : Tensor
        Shape ``(..., M, N)``, numeric.
    offset : int
        As in :func:`diagonal`.
    dtype : dtype, optional
        The accumulation and result dtype.  By default the dtype of ``x``, except that
        signed integers narrower than int64 give int64 and unsigned ones uint64.

    Returns
    -------
    Tensor
        Shape ``x.shape[:-2]``.
    """
    v = _numeric(x, "trace")
    if v.ndim < 2:
        raise ValueError(f"linalg.trace needs a matrix or a stack of matrices, got shape "
                         f"{x.shape}")
    if dtype is not None:
        dtype = canonical_dtype(dtype, where="linalg.trace")
    elif v.dtype.kind == "i":
        dtype = np.dtype(np.int64)
    elif v.dtype.kind == "u":
        dtype = np.dtype(np.uint64)
    else:
        dtype = v.dtype
    diag = np.diagonal(v, offset=operator.index(offset), axis1=-2, axis2=-1)
    # cast first (the dtype is there to prevent overflow), then sum in that dtype
    return _wrap(np.sum(diag.astype(dtype, copy=False), axis=-1, dtype=dtype), dtype)


# ---- the top-level functions, under their linalg names ---------------------------------

def matmul(x1, x2, /):
    """Matrix product; the same function as ``lazytensor.matmul``."""
    from . import matmul as top_level  # looked up at call time: it lives in the namespace
    return top_level(x1, x2)


def matrix_transpose(x, /):
    """Transpose of the last two axes; the same function as ``lazytensor.matrix_transpose``."""
    from . import matrix_transpose as top_level
    return top_level(x)


def tensordot(x1, x2, /, *, axes=2):
    """Tensor contraction over ``axes``; the same function as ``lazytensor.tensordot``."""
    from . import tensordot as top_level
    return top_level(x1, x2, axes=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot product (conjugating ``x1``) along ``axis``; the same as ``lazytensor.vecdot``."""
    from . import vecdot as top_level
    return top_level(x1, x2, axis=axis)
