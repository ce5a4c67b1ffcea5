"""Writes into tensors from the NumPy layer: ``out=`` of ufuncs, reductions and lazytensor's
functions, ``ufunc.at``, NumPy's functions that write into an argument (``copyto``,
``place``, ``putmask``, ``put``, ``fill_diagonal``, ``put_along_axis``) and the in-place
methods (``fill``, ``sort``, ``partition``, ``put``, ``x.flat[...] = v``).

All of them go through the memory model of ``_engine/views.py``, in one of two ways:

* :func:`assign` writes a whole lazy result into a tensor (``out=``, in-place operators):
  a tensor that shares memory is written in place after its pending readers got what they
  read; any other tensor takes the result's node (the write stays lazy).
* ``views.writable`` hands out a tensor's memory for NumPy to write into (what NumPy
  computes in place, with its own checks and error messages).
"""

from __future__ import annotations

import inspect

import numpy as np

from .._engine import views as _views
from .._engine.foreign import refuse_dask_in
from .._engine.tensor import Tensor

__all__ = ["copyto", "place", "putmask", "put", "fill_diagonal", "put_along_axis"]


def assign(t, result, what: str, casting: str = "same_kind", broadcast: bool = False):
    """Write the Tensor ``result`` into the whole of ``t`` and return ``t``.

    ``result`` is cast to ``t``'s dtype where ``casting`` allows it (NumPy's rule for
    ``out=`` and in-place operators; a TypeError otherwise) and must have ``t``'s shape
    (``broadcast``: or broadcast to it, as a ufunc's inputs do to its ``out``)."""
    if result.dtype != t.dtype:
        if not np.can_cast(result.dtype, t.dtype, casting):
            raise TypeError(f"{what}: cannot cast the result from dtype "
                            f"{result.dtype.name} to dtype {t.dtype.name} with casting "
                            f"rule {casting!r} (as in NumPy)")
        # lazytensor's cast (the astype method: no import of the elementwise functions,
        # which take out= through this module)
        result = result.astype(t.dtype, copy=False)
    stretched = False
    if result.shape != t.shape:
        if not broadcast or _broadcast(result.shape, t.shape) != t.shape:
            raise ValueError(f"{what}: the result has shape {result.shape}, which does not "
                             f"match the output's shape {t.shape}")
        stretched = True
    _views.check_writable(t, what)
    mem = _views.memory(t)
    if mem is None and not stretched:
        # no other tensor or array sees t's value: t takes the result (a copy of memory
        # others may write, so that t does not alias it)
        node = result._node
        t._node = node if node.value is None else _views.fresh(result)._node
        return t
    value = result._value()
    if mem is None:
        mem = _views.own(t)
    _views.protect_pending_readers(mem)
    mem[...] = value
    return t


def _broadcast(a, b):
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        return None


def values_of(obj):
    """Tensors (also inside tuples and lists) replaced by their values (NumPy's arrays)."""
    if isinstance(obj, Tensor):
        return obj._value()
    if isinstance(obj, (tuple, list)):
        for o in obj:
            if isinstance(o, (Tensor, tuple, list)):
                return type(obj)([values_of(o) for o in obj])
    return obj


def in_place(t, what: str, write) -> None:
    """``write(memory of t)``: NumPy's in-place function on ``t``'s memory (``t`` becomes
    memory-backed; pending results read before keep their values)."""
    write(_views.writable(t, what))


def _numpy_writer(name: str):
    """lazytensor's ``name``: NumPy's function that writes into its first argument, run on
    the tensor's memory (NumPy's checks, casting and error messages)."""
    np_fn = getattr(np, name)
    sig = inspect.signature(np_fn)
    first = next(iter(sig.parameters))

    def fn(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        refuse_dask_in(bound.arguments.values(), name)   # NumPy would compute it whole
        target = bound.arguments[first]
        rest = {k: values_of(v) for k, v in bound.arguments.items() if k != first}
        if isinstance(target, Tensor):
            mem = _views.writable(target, f"{name}")
            np_fn(mem, **rest)
        else:                        # a NumPy array (or what NumPy refuses), as NumPy does
            np_fn(target, **rest)

    fn.__name__ = fn.__qualname__ = name
    fn.__signature__ = sig
    fn.__doc__ = (f"NumPy's ``numpy.{name}``: writes into its first argument, in place.\n\n"
                  f"A tensor is written as NumPy writes an array: every view of its memory "
                  f"sees the write; results computed from it before keep their values.  "
                  f"Read-only views (``broadcast_to``, ``diagonal``) raise NumPy's "
                  f"ValueError.\n\nSee Also\n--------\nnumpy.{name}\n")
    return fn


FUNCTIONS = {name: _numpy_writer(name) for name in __all__}
globals().update(FUNCTIONS)
