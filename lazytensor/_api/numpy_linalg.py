"""NumPy's linear-algebra names: the top-level products (``inner``, ``outer``, ``kron``,
``einsum``, ``vdot``, NumPy's ``cross`` and ``tensordot``) and the ``numpy.linalg``
functions the Array API's ``linalg`` lacks (``norm``, ``lstsq``, ``multi_dot``, ``cond``,
``tensorinv``, ``tensorsolve``), which ``lt.linalg`` serves beside the standard's.

Like ``matmul``, they evaluate their operands and NumPy (BLAS/LAPACK) computes on the
values, outside exact mode's promise; ``linalg.norm`` with the default ``ord`` of a real
tensor is recorded lazily instead (``sqrt(sum(x*x))``, one fused reduction).
"""

from __future__ import annotations

import numpy as np

from .._engine.dtypes import float64
from .args import normalize_axes
from .elementwise import FUNCTIONS, cast
from .linear_algebra_functions import tensordot as _std_tensordot
from .numpy_values import as_tensor, call_numpy, on_values
from .statistical import sum as _sum

__all__ = ['cross', 'einsum', 'einsum_path', 'inner', 'kron', 'outer', 'tensordot', 'vdot']

_ON_VALUES = {
    "inner": (np.inner, "Inner product over the last axes of ``a`` and ``b``."),
    "outer": (np.outer, "Outer product of the flattened ``a`` and ``b``."),
    "kron": (np.kron, "Kronecker product of ``a`` and ``b``."),
    "einsum": (np.einsum, "Einstein summation over the operands, as the subscripts say."),
    "einsum_path": (np.einsum_path, "The contraction order ``einsum`` would use (a list and "
                                    "a report, as NumPy returns them)."),
    "vdot": (np.vdot, "Dot product of the flattened operands, conjugating the first."),
    "cross": (np.cross, "Cross product of 2- or 3-element vectors (NumPy's ``cross``, with "
                        "``axisa``/``axisb``/``axisc``/``axis``; ``lt.linalg.cross`` is the "
                        "standard's)."),
}
globals().update({name: on_values(name, fn, doc) for name, (fn, doc) in _ON_VALUES.items()})


def tensordot(a, b, axes=2):
    """Tensor contraction over ``axes``: the Array API ``tensordot`` with ``axes`` also
    positional and array_like operands, as in NumPy.

    See :func:`lazytensor._api.linear_algebra_functions.tensordot` for the rules.
    """
    return _std_tensordot(as_tensor(a, "tensordot"), as_tensor(b, "tensordot"), axes=axes)


# ---- numpy.linalg names the standard does not have (served as lt.linalg.*) ---------------

def _lazy_frobenius(x, axis, keepdims):
    """``sqrt(sum(x*x))`` over ``axis`` for a real ``x`` (float64 for integers)."""
    if x.dtype.kind in "biu":
        x = cast(x, float64)
    return FUNCTIONS["sqrt"](_sum(x * x, axis=axis, keepdims=bool(keepdims)))


def norm(x, ord=None, axis=None, keepdims=False):
    """Matrix or vector norm, with NumPy's ``numpy.linalg.norm`` signature and results.

    Parameters
    ----------
    x : Tensor or array_like
    ord : {None, 'fro', 'nuc', inf, -inf, int, float}
        As in NumPy: ``None`` is the 2-norm of vectors and the Frobenius norm of
        matrices.
    axis : None, int or 2-tuple of ints
        ``None``: the whole (flattened) input unless ``ord`` is given for a 2-d input.
    keepdims : bool

    Returns
    -------
    Tensor
        Real; float64 for integer input.  The default ``ord`` of a real tensor is recorded
        lazily (``sqrt(sum(x*x))``, one fused reduction); other norms are computed by NumPy
        on the values.
    """
    t = as_tensor(x, "linalg.norm")
    if ord is None and t.dtype.kind in "biuf" and (
            axis is None or isinstance(axis, int) or
            (isinstance(axis, (tuple, list)) and 1 <= len(axis) <= 2)):
        axes = normalize_axes(axis, t.ndim, "linalg.norm", t.shape)
        return _lazy_frobenius(t, axes, keepdims)
    return call_numpy("linalg.norm", np.linalg.norm, t, ord=ord, axis=axis,
                      keepdims=keepdims)


def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b``: ``(x, residuals, rank, s)``.

    NumPy's ``numpy.linalg.lstsq`` (``rcond=None``: machine precision times
    ``max(M, N)``), computed by LAPACK on the values; ``rank`` is a 0-d int tensor.
    """
    return call_numpy("linalg.lstsq", np.linalg.lstsq, as_tensor(a, "linalg.lstsq"),
                      as_tensor(b, "linalg.lstsq"), rcond=rcond)


def multi_dot(arrays, *, out=None):
    """Product of two or more matrices in the cheapest order (NumPy's
    ``numpy.linalg.multi_dot``, computed on the values); the first may be 1-d (a row), the
    last 1-d (a column)."""
    return call_numpy("linalg.multi_dot", np.linalg.multi_dot,
                      [as_tensor(a, "linalg.multi_dot") for a in arrays], out=out)


cond = on_values("linalg.cond", np.linalg.cond, "Condition number of ``x`` in the ``p`` "
                                                "norm.")
tensorinv = on_values("linalg.tensorinv", np.linalg.tensorinv, "The inverse of ``a`` "
                                                               "under ``tensordot``.")
tensorsolve = on_values("linalg.tensorsolve", np.linalg.tensorsolve,
                        "Solve ``tensordot(a, x, x.ndim) = b`` for ``x``.")

LINALG_NAMES = ['cond', 'lstsq', 'multi_dot', 'norm', 'tensorinv', 'tensorsolve']
