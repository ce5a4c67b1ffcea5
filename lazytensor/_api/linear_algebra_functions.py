"""Linear-algebra functions of the main namespace: ``matmul`` (and the ``@`` operator),
``tensordot`` and ``vecdot``.  (``matrix_transpose`` is a shape function and lives with
them in ``manipulation.py``.)

They are not elementwise: each evaluates its operands and uses NumPy on the values, except
``vecdot`` of complex operands, which is the sum of ``conj(x1) * x2`` recorded as a fused
reduction (docs/complex.md).  The operands are promoted to one dtype first by lazytensor's
promotion rules.
"""

from __future__ import annotations

import numpy as np

from .._engine.dtypes import result_type_of
from .._engine.shapes import broadcast_shapes_cached
from .._engine.tensor import Tensor
from .._engine.shapes import check_size
from .elementwise import cast, complex_part
from .statistical import sum as _sum
from .args import check_kind, integer_arg, normalize_axis, quiet, tensor_value, wrap
from .ndarray_args import operand
__all__ = ['matmul', 'tensordot', 'vecdot']


def _operands(x1, x2, what):
    """The two values, promoted to their common dtype, and that dtype."""
    v1, v2 = tensor_value(x1, what), tensor_value(x2, what)
    for x in (x1, x2):
        check_kind(x, what, "biufc", "numeric")
    dtype = result_type_of((x1.dtype, x2.dtype))
    return v1.astype(dtype, copy=False), v2.astype(dtype, copy=False), dtype


def _check_stacks(what, shape1, shape2, x1, x2):
    """ValueError unless the stack (non-contracted) shapes broadcast together."""
    if broadcast_shapes_cached((tuple(shape1), tuple(shape2))) is None:
        raise ValueError(f"{what}: the stack shapes {tuple(shape1)} of x1 (shape {x1.shape}) "
                         f"and {tuple(shape2)} of x2 (shape {x2.shape}) do not broadcast "
                         f"together")


def matmul(x1, x2, /):
    """Matrix product of ``x1`` and ``x2`` (the ``@`` operator).

    Parameters
    ----------
    x1, x2 : Tensor
        Numeric tensors with at least one dimension.  The last axis of ``x1`` is contracted
        with the second-to-last of ``x2`` (its only axis if ``x2`` is 1-d); a 1-d ``x1``
        is a row vector and a 1-d ``x2`` a column vector, whose added axis is dropped from
        the result.  Leading (stack) axes broadcast.  Complex operands are not conjugated.

    Returns
    -------
    Tensor
        The products, of the promoted dtype of ``x1`` and ``x2``.

    Raises
    ------
    ValueError
        If an operand is 0-d, the contracted lengths differ, or the stacks do not broadcast.
    """
    x1, x2 = operand(x1, "matmul"), operand(x2, "matmul")     # NumPy's array-likes too
    a, b, dtype = _operands(x1, x2, "matmul")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"matmul: operands must have at least one dimension, got shapes "
                         f"{x1.shape} and {x2.shape}")
    k1 = x1.shape[-1]
    k2 = x2.shape[-2] if x2.ndim > 1 else x2.shape[0]
    if k1 != k2:
        which = "second-to-last" if x2.ndim > 1 else "only"
        raise ValueError(f"matmul: shapes {x1.shape} and {x2.shape} do not align: the last "
                         f"axis of x1 has length {k1} but the {which} axis of x2 has length "
                         f"{k2}")
    _check_stacks("matmul", x1.shape[:-2], x2.shape[:-2], x1, x2)
    check_size(broadcast_shapes_cached((x1.shape[:-2], x2.shape[:-2])) + x1.shape[-2:-1] +
               x2.shape[-1:] * (x2.ndim > 1), "matmul", dtype)
    with quiet():
        return wrap(np.matmul(a, b), dtype, computed_by="numpy.matmul")


def tensordot(x1, x2, /, *, axes=2):
    """Tensor contraction of ``x1`` and ``x2`` over the given axes.

    Parameters
    ----------
    x1, x2 : Tensor
        Numeric tensors.
    axes : int or (sequence of ints, sequence of ints)
        An int ``N >= 0`` contracts the last ``N`` axes of ``x1`` with the first ``N`` of
        ``x2`` (0 gives the outer product).  A pair of sequences names the axes of ``x1``
        and of ``x2`` to contract, pairwise; negative axes count from the end.

    Returns
    -------
    Tensor
        The non-contracted axes of ``x1`` followed by those of ``x2``, of the promoted
        dtype.  Complex operands are not conjugated.

    Raises
    ------
    ValueError
        If contracted axes differ in length (they are not broadcast), an axis repeats, or
        ``axes`` asks for more axes than an operand has.
    """
    x1, x2 = operand(x1, "tensordot"), operand(x2, "tensordot")     # NumPy's array-likes too
    a, b, dtype = _operands(x1, x2, "tensordot")
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair of sequences of "
                             f"axes, got {axes!r}")
        ax1, ax2 = (tuple(normalize_axis(i, x.ndim, "tensordot", x.shape)
                          for i in (seq if isinstance(seq, (tuple, list)) else (seq,)))
                    for seq, x in zip(axes, (x1, x2)))
        if len(ax1) != len(ax2):
            raise ValueError(f"tensordot: axes {tuple(axes[0])} of x1 and {tuple(axes[1])} "
                             f"of x2 are not the same number of axes")
        for ax, x in ((ax1, x1), (ax2, x2)):
            if len(set(ax)) != len(ax):
                raise ValueError(f"tensordot: axes {axes!r} name an axis of the tensor of "
                                 f"shape {x.shape} more than once")
    else:
        n = integer_arg(axes, "tensordot", "axes")
        if n < 0:
            raise ValueError(f"tensordot: axes must be non-negative, got {n}")
        if n > x1.ndim or n > x2.ndim:
            raise ValueError(f"tensordot: cannot contract {n} axes of tensors of shapes "
                             f"{x1.shape} and {x2.shape}")
        ax1, ax2 = tuple(range(x1.ndim - n, x1.ndim)), tuple(range(n))
    for i, j in zip(ax1, ax2):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError(f"tensordot: axis {i} of x1 (shape {x1.shape}) has length "
                             f"{x1.shape[i]} but axis {j} of x2 (shape {x2.shape}) has length "
                             f"{x2.shape[j]}; contracted axes are not broadcast")
    check_size(tuple(n for i, n in enumerate(x1.shape) if i not in ax1) +
               tuple(n for j, n in enumerate(x2.shape) if j not in ax2), "tensordot", dtype)
    with quiet():
        return wrap(np.tensordot(a, b, axes=(ax1, ax2)), dtype, computed_by="numpy.tensordot")


def vecdot(x1, x2, /, *, axis=-1):
    r"""Vector dot product :math:`\sum_i \overline{a_i} b_i` along ``axis``.

    Parameters
    ----------
    x1, x2 : Tensor
        Numeric tensors with at least one dimension; ``x1`` is complex-conjugated.  The
        other axes broadcast; the contracted one is not.
    axis : int
        The axis holding the vectors, counted from the end: ``-1`` (default) to ``-N`` for
        ``N = min(x1.ndim, x2.ndim)``.  A non-negative axis is taken only when both
        operands have the same number of dimensions.

    Returns
    -------
    Tensor
        The broadcast shape without ``axis``, of the promoted dtype.  Complex results are
        recorded, not computed: the products and their sum are one fused reduction (the
        parts summed in float64, in a fixed order, as :func:`sum` does); real ones are
        NumPy's.

    Raises
    ------
    ValueError
        If the lengths along ``axis`` differ or the other axes do not broadcast.
    """
    x1, x2 = operand(x1, "vecdot"), operand(x2, "vecdot")     # NumPy's array-likes too
    for x in (x1, x2):
        check_kind(x, "vecdot", "biufc", "numeric")
    dtype = result_type_of((x1.dtype, x2.dtype))
    n = min(x1.ndim, x2.ndim)
    if n == 0:
        raise ValueError(f"vecdot: operands must have at least one dimension, got shapes "
                         f"{x1.shape} and {x2.shape}")
    ax = integer_arg(axis, "vecdot", "axis")
    if ax >= 0:
        if x1.ndim != x2.ndim:
            raise ValueError(f"vecdot: a non-negative axis ({ax}) is ambiguous for tensors "
                             f"of shapes {x1.shape} and {x2.shape}; use a negative axis")
        ax -= n
    if not -n <= ax < 0:
        raise np.exceptions.AxisError(
            f"vecdot: axis {axis} is out of bounds for tensors of shapes {x1.shape} and "
            f"{x2.shape} (valid axes are {-n} to -1)")
    if x1.shape[ax] != x2.shape[ax]:
        raise ValueError(f"vecdot: axis {ax} has length {x1.shape[ax]} in x1 (shape "
                         f"{x1.shape}) but {x2.shape[ax]} in x2 (shape {x2.shape}); the "
                         f"contracted axis is not broadcast")
    _check_stacks("vecdot", _drop(x1.shape, ax), _drop(x2.shape, ax), x1, x2)
    if dtype.kind == "c":
        return _sum(complex_part("conj", cast(x1, dtype)) * cast(x2, dtype), axis=ax)
    a, b, dtype = _operands(x1, x2, "vecdot")
    with quiet():
        return wrap(np.vecdot(a, b, axis=ax), dtype, computed_by="numpy.vecdot")


def _drop(shape, axis):
    """``shape`` without the (negative) ``axis``."""
    shape = list(shape)
    del shape[axis]
    return shape


# ---- the @ operator ------------------------------------------------------------------------
def _matmul_operand(other):
    """A Tensor for a NumPy operand of ``@``; None for anything else (Python scalars
    included: ``@`` takes no scalars)."""
    if isinstance(other, Tensor):
        return other
    if isinstance(other, np.ndarray):
        from .creation import asarray

        return asarray(other)
    return None


def _matmul_op(self, other):
    other = _matmul_operand(other)
    return NotImplemented if other is None else matmul(self, other)


def _rmatmul_op(self, other):
    other = _matmul_operand(other)
    return NotImplemented if other is None else matmul(other, self)
