"""Indexing: ``Tensor.__getitem__``/``__setitem__``, ``take`` and ``take_along_axis``.

Indexing is not elementwise: it evaluates the tensor and indexes its value.  Basic indexing
returns a NumPy view, which the next kernel reads in place through its strides.
"""

from __future__ import annotations

import numpy as np

from ._tensor import Tensor

__all__ = []


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



Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
