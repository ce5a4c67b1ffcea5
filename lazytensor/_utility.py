"""Utility functions (``all``, ``any``, ``diff``) and the argument checks that the
non-elementwise chapters share (searching, sorting, sets, statistics, linear algebra).

None of these functions is elementwise: each evaluates its input and uses NumPy on the
computed value.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from contextlib import contextmanager

import numpy as np

from . import _dtypes
from ._tensor import Tensor

__all__ = ['all', 'any', 'diff']

_AxisError = np.exceptions.AxisError


# ---- shared argument checks ----------------------------------------------------------
def tensor_value(x, what: str) -> np.ndarray:
    """The value of Tensor ``x`` (evaluated); TypeError naming ``what`` if it is not one."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    return x._value()


def check_kind(x, what: str, kinds: str, allowed: str) -> None:
    """TypeError unless ``x.dtype.kind`` is one of ``kinds``; ``allowed`` says which in words."""
    if x.dtype.kind not in kinds:
        raise TypeError(f"{what} does not take {x.dtype.name} tensors: it takes {allowed} "
                        f"tensors")


def integer_arg(value, what: str, name: str) -> int:
    """``value`` as a Python int; TypeError naming the argument if it is not an integer
    (bools are refused: ``axis=True`` is a mistake, not axis 1)."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{what}: {name} must be an integer, got {value!r}")


def normalize_axis(axis, ndim: int, what: str, shape) -> int:
    """``axis`` as an int in ``[0, ndim)`` (``shape`` is named in the error).

    A non-integer raises TypeError; an integer outside ``[-ndim, ndim)`` raises NumPy's
    ``AxisError``, which is both a ValueError and an IndexError (as in NumPy).
    """
    a = integer_arg(axis, what, "axis")
    if not -ndim <= a < ndim:
        valid = f"valid axes are {-ndim} to {ndim - 1}" if ndim else "a 0-d tensor has no axes"
        raise _AxisError(f"{what}: axis {a} is out of bounds for a tensor of shape "
                         f"{tuple(shape)} ({valid})")
    return a % ndim


def normalize_axes(axis, ndim: int, what: str, shape) -> tuple:
    """``axis`` (None, an int or a sequence of ints) as a sorted tuple of axes in
    ``[0, ndim)``; None means all axes.  Repeated axes raise ValueError."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim, what, shape) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{what}: axis {tuple(axis)} names an axis more than once")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, what, shape),)


def reduced_size(shape, axes) -> int:
    """How many elements each result of a reduction over ``axes`` combines."""
    return math.prod(shape[a] for a in axes)


@contextmanager
def quiet():
    """Silence NumPy's floating-point warnings (empty means, overflow): the results
    (NaN, inf, wrap-around) are the specified ones, so the warnings would be noise."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def wrap(array, dtype=None) -> Tensor:
    """A Tensor around a NumPy result (a scalar becomes a 0-d tensor), as ``dtype``.

    The array is made read-only: a tensor's value never changes under it.
    """
    out = np.asarray(array)
    if dtype is not None and out.dtype != dtype:
        out = out.astype(dtype)
    out.flags.writeable = False
    return Tensor._from_array(out)


def reduction(what: str, x, axis, keepdims: bool, compute, dtype=None) -> Tensor:
    """The common frame of a reduction: check ``x``, normalize ``axis`` and run
    ``compute(value, axes)`` (a NumPy reduction taking an axis tuple) quietly."""
    v = tensor_value(x, what)
    axes = normalize_axes(axis, x.ndim, what, x.shape)
    with quiet():
        out = compute(v, axes)
    return wrap(out, dtype)


# ---- all, any, diff --------------------------------------------------------------------
def all(x, /, *, axis=None, keepdims=False):
    """Test whether all elements along ``axis`` are true (non-zero).

    Parameters
    ----------
    x : Tensor
        Input of any dtype; NaN and complex values with a non-zero component count as true.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default).
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        A bool tensor; an empty reduction gives True.
    """
    return reduction("all", x, axis, keepdims,
                  lambda v, axes: np.all(v, axis=axes, keepdims=keepdims))


def any(x, /, *, axis=None, keepdims=False):
    """Test whether any element along ``axis`` is true (non-zero).

    Parameters
    ----------
    x : Tensor
        Input of any dtype; NaN and complex values with a non-zero component count as true.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default).
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        A bool tensor; an empty reduction gives False.
    """
    return reduction("any", x, axis, keepdims,
                  lambda v, axes: np.any(v, axis=axes, keepdims=keepdims))


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
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one dimension, got a 0-d tensor")
    ax = normalize_axis(axis, x.ndim, "diff", x.shape)
    n = integer_arg(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
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
