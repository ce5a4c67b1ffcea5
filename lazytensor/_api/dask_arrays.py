"""lazytensor's functions on dask arrays: the result is a dask array whose blocks
lazytensor computes, one block at a time, on whatever runs the dask graph (docs/dask.md).

Nothing here imports dask: a dask array can only reach lazytensor once ``dask.array`` is
imported, so ``sys.modules`` answers whether an operand is one.  The functions route dask
operands here only after their Tensor path failed (the elementwise ops through
``record.foreign_handlers``, ``where`` likewise, the reductions by one check of a
non-Tensor input), so calls on Tensors never meet this module.
"""

from __future__ import annotations

import sys

import numpy as np

from .._engine import record as _record
from .._engine.errors import Unsupported
from .._engine.tensor import Tensor, leaf_of
from .ndarray_args import NoValue


def is_dask(x) -> bool:
    """Whether ``x`` is a dask array (without importing dask)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(x, da.Array)


class _AsTensor:
    """A block as a Tensor (a NumPy block becomes a leaf over it, without a copy); picklable,
    so that it runs on a cluster's workers.  ``what`` names the function in errors."""

    def __init__(self, what: str):
        self.what = what
        self.__name__ = f"as_tensor_for_{what}"   # dask's key names

    def __call__(self, block):
        if isinstance(block, Tensor):
            return block
        return leaf_of(block, self.what)

    def __dask_tokenize__(self):
        return ("lazytensor-as-tensor", self.what)


def _empty_meta(ndim: int, dtype, what: str) -> Tensor:
    return leaf_of(np.empty((0,) * ndim, dtype=dtype), what)


def tensor_blocks(d, what: str):
    """The dask array ``d`` with Tensor blocks (as it is if its blocks are Tensors)."""
    if isinstance(d._meta, Tensor):
        return d
    return d.map_blocks(_AsTensor(what), dtype=d.dtype,
                        meta=_empty_meta(d.ndim, d.dtype, what))


def _fn_name(fn) -> str:
    """The op's name for errors and dask keys: ``apply``'s partials carry it first."""
    args = getattr(fn, "args", ())
    return args[0] if args and isinstance(args[0], str) else getattr(fn, "__name__", "op")


def _meta_of(a, what):
    """An empty stand-in of operand ``a`` for computing the result's meta: a dask array's
    meta, an empty Tensor of an array's ndim and dtype (shapes of zeros broadcast with any
    other), a scalar as it is."""
    if is_dask(a):
        return a._meta
    ndim = getattr(a, "ndim", 0)
    return _empty_meta(ndim, a.dtype, what) if ndim else a


def elementwise(fn, args):
    """``fn`` (an elementwise op taking blocks) over ``args`` when one is a dask array: a dask
    array of Tensor blocks (dask's ``elemwise``: its broadcasting and chunk alignment);
    NotImplemented when none is."""
    if not any(is_dask(a) for a in args):
        return NotImplemented
    import dask.array as da
    from dask.base import tokenize

    what = _fn_name(fn)
    args = [tensor_blocks(a, what) if is_dask(a) else a for a in args]
    # the result's meta and dtype from the blocks' metas: a dtype the op does not take
    # raises here, at the user's line, with the op's own error
    meta = fn(*[_meta_of(a, what) for a in args])
    name = f"{what}-{tokenize(fn, *args)}"
    out = da.core.elemwise(fn, *args, dtype=meta.dtype, name=name)
    if not isinstance(out._meta, Tensor):   # elemwise's meta where it made its own
        out._meta = _empty_meta(out.ndim, meta.dtype, what)
    return out


_record.foreign_handlers.append(elementwise)


def reduction(name: str, x, axis=None, keepdims=False, *, out=None, where=True,
              initial=NoValue, mean=NoValue, **kwargs):
    """lazytensor's reduction ``name`` of the dask array ``x``: dask's tree reduction of the
    same name over Tensor blocks, whose per-block steps (``np.sum``, ``np.max``...) are
    lazytensor's through ``Tensor.__array_function__``.  ``kwargs``: ``dtype``, ``ddof``."""
    import dask.array as da

    for given, arg in ((out is not None, "out"), (where is not True, "where"),
                       (initial is not NoValue, "initial"), (mean is not NoValue, "mean")):
        if given:
            raise Unsupported(f"{name}: {arg}= is not served for a dask array (reduce, then "
                              f"apply it to the dask array the reduction gives)")
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    return getattr(da, name)(tensor_blocks(x, name), axis=axis, keepdims=keepdims, **kwargs)
