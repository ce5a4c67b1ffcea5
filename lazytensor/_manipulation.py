"""Shape functions and indexing.

These are not elementwise: they evaluate their input and return a NumPy view of the value
wherever one exists (reshape of a contiguous value, transposes, slices with any step,
broadcast_to), so the next kernel reads it in place through its strides.
"""

from __future__ import annotations

import numpy as np

from ._tensor import Tensor


def _value(x, what):
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    return x._value()


def _index_key(key):
    if isinstance(key, Tensor):
        return np.asarray(key._value())
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    return key


def getitem(x, key):
    v = _value(x, "__getitem__")
    try:
        return Tensor._from_array(v[_index_key(key)])
    except IndexError as exc:
        raise IndexError(f"index {key!r} into a tensor of shape {x.shape}: {exc}") from None


def setitem(x, key, value):
    """x[key] = value: the tensor gets a new value; tensors built from the old one keep it."""
    new = np.array(_value(x, "__setitem__"), copy=True)
    if isinstance(value, Tensor):
        value = value._value()
    try:
        new[_index_key(key)] = value
    except (IndexError, ValueError) as exc:
        raise type(exc)(f"setting {key!r} of a tensor of shape {x.shape}: {exc}") from None
    x._node = Tensor._from_array(new)._node


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


def _install():
    Tensor.__getitem__ = getitem
    Tensor.__setitem__ = setitem
    Tensor.T = property(lambda self: permute_dims(self, tuple(reversed(range(self.ndim))))
                        if self.ndim != 2 else matrix_transpose(self),
                        doc="The tensor with its axes reversed.")
    Tensor.mT = property(matrix_transpose, doc="Transpose of the last two axes.")
    Tensor.reshape = lambda self, *shape: reshape(
        self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)


_install()
