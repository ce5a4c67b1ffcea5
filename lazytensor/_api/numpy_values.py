"""NumPy's functions run on the values of tensors, for the NumPy names that lazytensor does
not record as ops (splits, pads, set operations, io ...): tensors in, tensors out.

These run eagerly (the inputs are evaluated) and their values are NumPy's own, so they are
outside exact mode's promise (docs/numpy-compatibility.md).
"""

from __future__ import annotations

import functools

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine.errors import Unsupported
from .._engine.tensor import Tensor
from .numpy_dtypes import as_dtype


def writes_unsupported(what: str, instead: str = "use the returned tensor") -> Unsupported:
    """The error for a NumPy call that would write into a tensor."""
    return Unsupported(f"{what}: writing into tensors (out=, in-place functions) is not "
                       f"supported yet; {instead}")


def no_out(what: str, out) -> None:
    """Raise for ``out=`` given a value: lazytensor returns new tensors."""
    if out is not None:
        raise writes_unsupported(f"{what}(..., out=...)", f"write y = lt.{what}(...) instead")


def to_values(obj):
    """Tensors (also inside lists and tuples) as their NumPy values; dtype names of
    lazytensor as NumPy dtypes; anything else unchanged."""
    if isinstance(obj, Tensor):
        return obj._value()
    if isinstance(obj, (list, tuple)) and any(isinstance(o, (Tensor, list, tuple)) for o in obj):
        return type(obj)(to_values(o) for o in obj)
    return as_dtype(obj)


def wrap(obj, what: str):
    """NumPy's result as tensors: arrays and NumPy scalars become tensors (lists and tuples
    of them, lists and tuples of tensors); other results pass through."""
    if isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
        arr = np.asarray(obj)
        dt = _dtypes.canonical_dtype(arr.dtype, where=what)   # Unsupported for objects...
        if arr.dtype != dt:
            arr = arr.astype(dt)
        if arr.flags.writeable:      # tensor values are read-only
            arr = arr.view()
            arr.flags.writeable = False
        return Tensor._from_array(arr)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):          # NumPy's named tuples
        return type(obj)(*(wrap(o, what) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(wrap(o, what) for o in obj)
    return obj


def on_values(name: str, np_fn=None, *, doc: str = ""):
    """``lt.<name>``: NumPy's ``np_fn`` (``numpy.<name>``) on the values of tensors."""
    np_fn = np_fn or getattr(np, name)

    @functools.wraps(np_fn)
    def fn(*args, **kwargs):
        if "out" in kwargs:
            no_out(name, kwargs.pop("out"))
        args = tuple(to_values(a) for a in args)
        kwargs = {k: to_values(v) for k, v in kwargs.items()}
        return wrap(np_fn(*args, **kwargs), name)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "lazytensor"
    fn.__doc__ = (f"NumPy's ``{name}`` on the values of tensors; returns tensors "
                  f"(computed by NumPy, eagerly).{(' ' + doc) if doc else ''}\n\n"
                  f"Signature and defaults: NumPy's ``numpy.{name}``.")
    return fn
