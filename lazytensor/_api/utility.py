"""Utility functions (``all``, ``any``, ``diff``) and the argument checks that the
non-elementwise chapters share (searching, sorting, sets, statistics, linear algebra).

None of these functions is elementwise: each evaluates its input and uses NumPy on the
computed value.
"""

from __future__ import annotations

import builtins

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine.record import reduce_node
from . import dask_arrays as _dask
from .args import integer_arg, normalize_axes, normalize_axis, quiet, reduction, tensor_value, wrap
from .elementwise import FUNCTIONS
from .ndarray_args import check_out, mask, operand, to_reduction_out, zero_d_axis
from .._engine.replay import memoized
from .._engine.tensor import Tensor

__all__ = ['all', 'any', 'diff']

# ---- all, any, diff --------------------------------------------------------------------
def _truth(name, x, axis, out, keepdims, where):
    """any/all with NumPy's arguments: the max/min of ``x != 0`` (bool), reduced in the
    kernel computing ``x``; a ``where=`` mask is recorded (masked elements count as the
    identity: False for any, True for all).  Complex input is computed by NumPy."""
    if type(x) is not Tensor and _dask.is_dask(x):
        return _dask.reduction(name, x, axis, keepdims, out=out, where=where)
    x = operand(x, name)
    check_out(out, name)
    axis = zero_d_axis(axis, x)
    m = mask(where, x, name)
    if x.dtype.kind == "c":
        result = reduction(name, x, axis, keepdims,
                           lambda v, axes: getattr(np, name)(
                               v, axis=axes, keepdims=keepdims,
                               where=True if m is None else m._value()))
        return to_reduction_out(result, out, name)
    axes = normalize_axes(axis, x.ndim, name, x.shape)
    truth = x if x.dtype == _dtypes.bool_ else x != 0
    if m is not None:
        truth = FUNCTIONS["where"](m, truth, name == "all")
    result = reduce_node("max" if name == "any" else "min", truth, axes, keepdims,
                         _dtypes.bool_)
    return to_reduction_out(result, out, name)


@memoized
def all(x, /, axis=None, out=None, keepdims=False, *, where=True):
    """Test whether all elements along ``axis`` are true (non-zero).

    Parameters
    ----------
    x : Tensor or array-like
        Input of any dtype; NaN and complex values with a non-zero component count as true.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default).
    out : Tensor or numpy.ndarray, optional
        NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
    keepdims : bool
        Keep the reduced axes as length-one axes.
    where : bool tensor or array-like, optional
        NumPy's: only the elements where it is true are tested.

    Returns
    -------
    Tensor
        A bool tensor; an empty reduction gives True.
    """
    return _truth("all", x, axis, out, keepdims, where)


@memoized
def any(x, /, axis=None, out=None, keepdims=False, *, where=True):
    """Test whether any element along ``axis`` is true (non-zero).

    Parameters
    ----------
    x : Tensor or array-like
        Input of any dtype; NaN and complex values with a non-zero component count as true.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default).
    out : Tensor or numpy.ndarray, optional
        NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
    keepdims : bool
        Keep the reduced axes as length-one axes.
    where : bool tensor or array-like, optional
        NumPy's: only the elements where it is true are tested.

    Returns
    -------
    Tensor
        A bool tensor; an empty reduction gives False.
    """
    return _truth("any", x, axis, out, keepdims, where)


def _edge(value, x, axis: int, name: str) -> np.ndarray:
    """``prepend``/``append`` as an array: a tensor must match ``x`` except along ``axis``;
    a Python scalar is repeated across the other axes (as in NumPy) and promotes weakly."""
    if isinstance(value, Tensor):
        v = value._value()
        if v.ndim != x.ndim or builtins.any(
                a != b for i, (a, b) in enumerate(zip(v.shape, x.shape)) if i != axis):
            raise ValueError(f"diff: {name} has shape {v.shape}, which does not match the "
                             f"shape {x.shape} of x except along axis {axis}")
        return v
    kind = _dtypes.python_scalar_type(value)
    if kind is None:
        raise TypeError(f"diff: {name} must be a Tensor or a Python scalar, got "
                        f"{type(value).__name__}")
    shape = list(x.shape)
    shape[axis] = 1
    dtype = _dtypes.result_type_of((x.dtype,), (kind,))
    return np.broadcast_to(_dtypes.scalar_to_array(value, dtype), shape)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The ``n``-th forward difference along ``axis``: ``out[i] = x[i+1] - x[i]``, applied
    ``n`` times.

    Parameters
    ----------
    x : Tensor
        Input with at least one dimension.  For bool input the difference is ``!=``
        (as in NumPy).
    axis : int
        Axis along which to take differences (default: the last).
    n : int
        Number of times to difference (``n=0`` returns ``x``).
    prepend, append : Tensor or Python scalar, optional
        Values joined to ``x`` along ``axis`` first; a tensor must have the shape of ``x``
        except along ``axis``.  Dtypes are promoted with ``x``'s.

    Returns
    -------
    Tensor
        Shape of ``x`` except along ``axis``: ``M + N1 + N2 - n`` (never below zero).
    """
    v = tensor_value(x, "diff")
    n = integer_arg(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if n == 0:
        return x            # NumPy's a itself, before any check (prepend and append unused)
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one dimension, got a 0-d tensor")
    ax = normalize_axis(axis, x.ndim, "diff", x.shape)
    parts = [v]
    if prepend is not None:
        parts.insert(0, _edge(prepend, x, ax, "prepend"))
    if append is not None:
        parts.append(_edge(append, x, ax, "append"))
    if len(parts) > 1:
        dtype = _dtypes.result_type_of(tuple(p.dtype for p in parts))
        v = np.concatenate([p.astype(dtype, copy=False) for p in parts], axis=ax)
    with quiet():
        return wrap(np.diff(v, n=n, axis=ax))
