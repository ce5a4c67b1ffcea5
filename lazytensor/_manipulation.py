"""Shape functions and indexing.

These are not elementwise: they evaluate their input and return a NumPy view of the value
wherever one exists (reshape of a contiguous value, transposes, slices with any step,
broadcast_to), so the next kernel reads it in place through its strides.
"""

from __future__ import annotations

import numpy as np

from ._tensor import Tensor


__all__ = ['broadcast_to', 'expand_dims', 'matrix_transpose', 'permute_dims', 'reshape', 'squeeze']

def _value(x, what):
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    return x._value()


def reshape(x, /, shape, *, copy=None):
    """``x`` with a new shape (a view when the value's layout allows it)."""
    v = _value(x, "reshape")
    try:
        out = v.reshape(shape)
    except ValueError:
        raise ValueError(f"reshape: cannot reshape a tensor of shape {x.shape} "
                         f"({x.size} elements) into shape {tuple(np.atleast_1d(shape))}") from None
    if copy:
        out = out.copy()
    elif copy is False and not np.shares_memory(out, v) and out.size:
        raise ValueError("reshape: copy=False but this reshape needs a copy")
    return Tensor._from_array(out)


def permute_dims(x, /, axes):
    """``x`` with its axes permuted (a view)."""
    v = _value(x, "permute_dims")
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} are not a permutation of the "
                         f"{x.ndim} axes of shape {x.shape}")
    return Tensor._from_array(np.transpose(v, axes))


def matrix_transpose(x, /):
    """Transpose of the last two axes."""
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got shape {x.shape}")
    return Tensor._from_array(np.swapaxes(_value(x, "matrix_transpose"), -1, -2))


def broadcast_to(x, /, shape):
    """``x`` broadcast to ``shape`` (zero strides, no copy)."""
    v = _value(x, "broadcast_to")
    try:
        return Tensor._from_array(np.broadcast_to(v, tuple(shape)))
    except ValueError:
        raise ValueError(f"broadcast_to: shape {x.shape} does not broadcast to "
                         f"{tuple(shape)}") from None


def expand_dims(x, /, axis=0):
    """``x`` with a new axis of length one at ``axis``."""
    return Tensor._from_array(np.expand_dims(_value(x, "expand_dims"), axis))


def squeeze(x, /, axis):
    """``x`` without the length-one axes ``axis``."""
    v = _value(x, "squeeze")
    try:
        return Tensor._from_array(np.squeeze(v, axis))
    except ValueError:
        raise ValueError(f"squeeze: axis {axis} of shape {x.shape} does not have length 1") from None
