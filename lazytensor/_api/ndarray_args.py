"""NumPy's extra arguments of the functions that are also ndarray methods: array-like
operands, ``out=`` and ``where=`` masks, checked the same way everywhere.

The functions take NumPy's signature as a superset of the Array API's (docs/numpy-methods.md):
these helpers keep the standard's arguments untouched and only add NumPy's.
"""

from __future__ import annotations

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine.shapes import broadcast_shapes_cached
from .._engine.tensor import Tensor
from .creation import operand   # noqa: F401  (the API modules take it from here)
from .writes import assign

# NumPy's own "argument not given" marker, so that signatures print as NumPy's do
NoValue = np._NoValue


def check_out(out, what: str) -> None:
    """``out`` must be None, a NumPy array or a Tensor (a 1-tuple of one)."""
    if out is None or isinstance(out, (np.ndarray, Tensor)):
        return
    if isinstance(out, tuple) and len(out) == 1:
        return check_out(out[0], what)
    raise TypeError(f"{what}: out must be None, a Tensor or a NumPy array, got "
                    f"{type(out).__name__}")


def to_out(result, out, what: str, casting: str = "same_kind"):
    """``result``, or, with ``out`` given, ``result`` written into it (NumPy's
    ``same_kind`` casting, unless told; the shape must be the result's) and ``out`` itself,
    as NumPy returns it.  A Tensor ``out`` is written as an in-place operator writes
    (``writes.assign``: every view of its memory sees the write)."""
    if out is None:
        return result
    check_out(out, what)
    if isinstance(out, tuple):
        out = out[0]
    if isinstance(out, Tensor):
        return assign(out, result, f"{what}(..., out=)", casting)
    value = result._value()
    if out.shape != value.shape:
        raise ValueError(f"{what}: out has shape {out.shape}, but the result has shape "
                         f"{value.shape}")
    np.copyto(out, value, casting=casting)
    return out


def to_reduction_out(result, out, what: str):
    """:func:`to_out` for a reduction or a scan: NumPy casts their result into ``out``
    with the ``unsafe`` rule (``x.sum(out=<int64 array>)`` of floats is allowed)."""
    return to_out(result, out, what, "unsafe")


def mask(where, x: Tensor, what: str):
    """A ``where=`` argument as a bool Tensor that broadcasts to ``x``'s shape; None for
    ``where=True`` (nothing masked)."""
    if where is True:
        return None
    m = operand(where, what)
    if m.dtype != _dtypes.bool_:
        raise TypeError(f"{what}: where must be a bool mask, got {m.dtype.name} values")
    if broadcast_shapes_cached((m.shape, x.shape)) != x.shape:
        raise ValueError(f"{what}: operands could not be broadcast together with shapes "
                         f"{x.shape} (the input) {m.shape} (where)")
    return m


def zero_d_axis(axis, x: Tensor):
    """NumPy's reductions take the int axis 0 or -1 of a 0-d input (as of one element):
    that is None (all of its no axes); any other axis is left to the usual check."""
    if x.ndim == 0 and isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) \
            and axis in (0, -1):
        return None
    return axis


def identity_of(dtype, value):
    """The Python scalar ``value`` (0 or 1, or an ``initial``) in ``dtype``'s kind: a bool
    for bool tensors, so that masking keeps the dtype."""
    return bool(value) if dtype == _dtypes.bool_ else value
