"""lazytensor's functions on dask arrays: the result is a dask array whose blocks
lazytensor computes, one block at a time, on whatever runs the dask graph (docs/dask.md).

Nothing here imports dask: a dask array can only reach lazytensor once ``dask.array`` is
imported, so ``sys.modules`` answers whether an operand is one.  The functions route dask
operands here only after their Tensor path failed (the elementwise ops through
``record.foreign_handlers``, ``where`` likewise, the reductions by one check of a
non-Tensor input, the others of ``DASK_CALLS`` by the TypeError their conversion of it
raises), so calls on Tensors never meet this module.
"""

from __future__ import annotations

import functools
import importlib

import numpy as np

from .._engine import record as _record
from .._engine.errors import Unsupported
from .._engine.foreign import is_dask
from .._engine.tensor import Tensor, leaf_of

NoValue = np._NoValue      # (ndarray_args' name; importing it would make a cycle)


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


# ---- the namespace's other functions ------------------------------------------------------
class _BlockCall:
    """lazytensor's function ``name`` with keyword arguments ``kwargs``, on blocks; picklable
    (it finds the function by name where it runs, a cluster's worker among them)."""

    def __init__(self, name: str, kwargs: dict):
        self.name, self.kwargs = name, kwargs
        self.__name__ = name              # dask's key names, errors

    def __call__(self, *blocks):
        return getattr(importlib.import_module("lazytensor"), self.name)(*blocks, **self.kwargs)

    def __dask_tokenize__(self):
        return ("lazytensor-call", self.name, sorted(self.kwargs.items(), key=str))


def as_tensor_blocks(d, dtype):
    """``lt.asarray`` of a dask array: its blocks as Tensors (cast to ``dtype`` per block
    unless it is None), nothing computed."""
    out = tensor_blocks(d, "asarray")
    return out if dtype is None or dtype == out.dtype else out.astype(dtype)


def _da(name):
    """dask's function ``name`` (dask.array imported when the call needs it)."""
    def call(*args, **kwargs):
        return getattr(importlib.import_module("dask.array"), name)(*args, **kwargs)
    return call


def _concat(arrays, /, *, axis=0):
    da = importlib.import_module("dask.array")
    if axis is None:                      # the Array API's: the flattened arrays, joined
        return da.concatenate([da.ravel(a) for a in arrays])
    return da.concatenate(arrays, axis=axis)


def _take(x, indices, /, axis=None):
    da = importlib.import_module("dask.array")
    return da.take(da.ravel(x), indices) if axis is None else da.take(x, indices, axis=axis)


def _searchsorted(x1, x2, /, *, side="left", sorter=None):
    da = importlib.import_module("dask.array")
    if not is_dask(x2):                   # dask's takes its values as a dask array only
        x2 = da.from_array(leaf_of(np.asarray(x2), "searchsorted"), chunks=-1)
    return da.searchsorted(x1, x2, side=side, sorter=sorter)


def _vecdot(x1, x2, /, *, axis=-1):
    return (x1.conj() * x2).sum(axis=axis)


def _cumulative(name):
    def call(x, /, *, axis=None, dtype=None, include_initial=False):
        if include_initial:
            raise Unsupported(f"{name}: include_initial=True is not served for a dask array")
        if axis is None:
            if x.ndim != 1:
                raise ValueError(f"{name}: axis is required for a {x.ndim}-d array")
            axis = 0
        return getattr(importlib.import_module("dask.array"),
                       "cumsum" if name == "cumulative_sum" else "cumprod")(x, axis=axis,
                                                                            dtype=dtype)
    return call


_ELEMENTWISE = "elementwise"
# lazytensor's functions that convert their operands in Python (the table's ops recorded in C
# take dask arrays through record.foreign_handlers), and how a call with a dask operand runs:
# lazytensor's own function over dask's aligned blocks, or dask's function over Tensor blocks
# (whose per-block steps call NumPy's functions on Tensors: lazytensor's, through
# ``Tensor.__array_function__``).  A function that is not here refuses a dask operand with
# a TypeError (ForeignOperand where it would have converted it).
DASK_CALLS = {
    **dict.fromkeys(("angle", "around", "bitwise_count", "cbrt", "ceil", "clip", "conj",
                     "conjugate", "deg2rad", "degrees", "exp2", "fabs", "fix", "float_power",
                     "floor", "fmax", "fmin", "fmod", "gcd", "heaviside", "i0", "imag",
                     "iscomplex", "isclose", "isfinite", "isinf", "isnan", "isneginf",
                     "isposinf", "isreal", "lcm", "ldexp", "logaddexp2", "nan_to_num",
                     "positive", "rad2deg", "radians", "real", "rint", "round", "sinc",
                     "spacing", "trunc"), _ELEMENTWISE),
    **{name: _da(name) for name in (   # (lt.asarray takes a dask array itself)
        "allclose", "append", "apply_along_axis", "apply_over_axes", "argmax", "argmin",
        "argwhere", "atleast_1d", "atleast_2d", "atleast_3d", "average", "bincount", "block",
        "broadcast_arrays", "broadcast_to", "choose", "compress", "corrcoef", "count_nonzero",
        "cov", "cumprod", "cumsum", "delete", "diag", "diagonal", "diff", "digitize", "dot",
        "dstack", "ediff1d", "einsum", "empty_like", "expand_dims", "extract", "flatnonzero",
        "flip", "fliplr", "flipud", "frexp", "full_like", "gradient", "histogram",
        "histogram2d", "histogramdd", "hstack", "insert", "isin", "matmul", "median", "modf",
        "moveaxis", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
        "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum",
        "nanvar", "nonzero", "ones_like", "outer", "pad", "percentile", "piecewise", "ptp",
        "quantile", "ravel", "ravel_multi_index", "repeat", "reshape", "roll", "rollaxis",
        "rot90", "select", "squeeze", "stack", "swapaxes", "tensordot", "tile",
        "trace", "transpose", "tril", "triu", "union1d", "unique", "unravel_index", "vdot",
        "vstack", "zeros_like")},
    "astype": lambda x, dtype, /, *, copy=True, device=None: x.astype(np.dtype(dtype)),
    "concat": _concat, "concatenate": _concat,
    "copy": lambda x, /, order="K", *, subok=False: x.copy(),
    "cumulative_prod": _cumulative("cumulative_prod"),
    "cumulative_sum": _cumulative("cumulative_sum"),
    "matrix_transpose": lambda x, /: x.swapaxes(-1, -2),
    "permute_dims": _da("transpose"), "row_stack": _da("vstack"), "searchsorted": _searchsorted,
    "take": _take, "unique_values": _da("unique"), "vecdot": _vecdot,
}
# keyword arguments a dask array makes moot (it is never written: every copy is one; its
# blocks are on the CPU), dropped when they say so
_MOOT = frozenset(("copy", "device"))


def _dask_operands(args, kwargs) -> bool:
    values = list(args) + list(kwargs.values())
    return any(is_dask(a) or isinstance(a, (list, tuple)) and any(is_dask(b) for b in a)
               for a in values)


def _blocks(a, what):
    if is_dask(a):
        return tensor_blocks(a, what)
    if isinstance(a, (list, tuple)) and any(is_dask(b) for b in a):
        return type(a)(tensor_blocks(b, what) if is_dask(b) else b for b in a)
    return a


def _on_dask(name, how, args, kwargs):
    """``name(*args, **kwargs)`` with a dask operand, as ``DASK_CALLS`` says."""
    if kwargs.get("out") is not None:
        raise Unsupported(f"{name}: out= is not served for a dask array (dask arrays are not "
                          f"written; use the result)")
    kwargs = {k: v for k, v in kwargs.items()
              if not (k in _MOOT and v in (None, "cpu", True, False) or k == "out")}
    if how == _ELEMENTWISE:
        out = elementwise(_BlockCall(name, kwargs), args)
        if out is NotImplemented:         # the dask operand is a keyword's value
            raise Unsupported(f"{name}: a dask array is served as a positional operand")
        return out
    return how(*[_blocks(a, name) for a in args], **{k: _blocks(v, name)
                                                     for k, v in kwargs.items()})


# the functions of DASK_CALLS whose own code sends a dask operand to ``on_dask``, on a path that
# a call on Tensors does not take (hot in small calls: no wrapper)
ROUTED_IN_CODE = frozenset(("astype", "around", "ceil", "clip", "floor", "isfinite", "isinf",
                            "isnan", "round", "trunc"))


def on_dask(name: str, args: tuple, kwargs: dict):
    """lazytensor's ``name(*args, **kwargs)`` where an operand is a dask array."""
    return _on_dask(name, DASK_CALLS[name], args, kwargs)


def _served(name, fn, how):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError:
            if not _dask_operands(args, kwargs):
                raise
        return _on_dask(name, how, args, kwargs)
    return call


def serve(namespace: dict) -> None:
    """Let the functions of ``DASK_CALLS`` in ``namespace`` (lazytensor's) take dask arrays."""
    for name, how in DASK_CALLS.items():
        fn = namespace.get(name)
        if fn is not None and name not in ROUTED_IN_CODE:
            namespace[name] = _served(name, fn, how)
