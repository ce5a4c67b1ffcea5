"""Indexing: ``Tensor.__getitem__``/``__setitem__``, ``take`` and ``take_along_axis``.

Indexing is not elementwise: it evaluates the tensor and indexes its value with NumPy.
Basic indexing (integers, slices, ``...``, ``None``) returns a NumPy view, which the next
kernel reads in place through its strides; integer-array and boolean-mask indexing copy.

A key is checked against the shape before NumPy sees it, so that errors name the index,
the axis and the shape, and so that the Array API rules that differ from NumPy hold:

* a zero-dimensional integer tensor is an integer index (NumPy would copy);
* a boolean mask may have size 0 along an axis whose size is not 0 (it selects nothing);
* an index that is not an integer, slice, ``...``, ``None`` or an integer/boolean array
  is a ``TypeError`` (NumPy raises ``IndexError``).

Fewer indices than dimensions index the leading axes, as in NumPy (the standard only
recommends an error there).  Assignment never writes into a buffer: ``x[key] = v`` gives
``x`` a new value, so tensors computed from the old value keep it.
"""

from __future__ import annotations

import operator

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine import views as _views
from .._engine.errors import InvalidIndex
from .args import normalize_axis, tensor_value, wrap
from .ndarray_args import check_out, operand, to_out, zero_d_axis
from .._engine.fpenv import library_state
from .._engine.tensor import Tensor

__all__ = ["take", "take_along_axis"]

_VALID = ("integers, slices, ... (Ellipsis), None, integer tensors and boolean tensors "
          "are valid indices")


# ---- keys ---------------------------------------------------------------------------
def _index_array(item):
    """The NumPy array for an array-valued index item, or None if ``item`` is not one."""
    if isinstance(item, Tensor):
        return item._value()
    if isinstance(item, np.ndarray):
        return item
    if isinstance(item, (list, tuple)):   # NumPy-style sequences of ints or bools
        try:
            arr = np.asarray(item)
        except ValueError:
            raise TypeError(f"index {item!r} is a ragged sequence; {_VALID}") from None
        if arr.size == 0:
            arr = arr.astype(np.intp)     # [] selects nothing, as in NumPy
        return arr
    return None


def _within(key):
    return f" in index {key!r}" if isinstance(key, tuple) else ""


def _slice_bound(b, key):
    if b is None:
        return None
    if isinstance(b, (bool, np.bool_)):
        raise TypeError(f"slice bound {b!r} in index {key!r} is a bool; slice bounds must "
                        f"be integers or None")
    try:
        return operator.index(b)
    except TypeError:
        raise TypeError(f"slice bound {b!r} in index {key!r} is not an integer; slice "
                        f"bounds must be integers or None") from None


def _prepare(key, shape):
    """Check ``key`` against ``shape`` and return the tuple NumPy indexes with."""
    ndim = len(shape)
    if type(key) is slice and ndim and key.step != 0 and all(
            type(b) is int or b is None for b in (key.start, key.stop, key.step)):
        return (key,)                # fast path for x[a:b:c]: NumPy's slice is ours
    items = key if isinstance(key, tuple) else (key,)
    if len(items) <= ndim and all(type(k) is int for k in items):
        # fast path for element access (x[i, j], iteration): only bounds to check
        for axis, (k, n) in enumerate(zip(items, shape)):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {axis} of size {n} "
                                 f"(tensor shape {shape})")
        return items + (Ellipsis,)   # a 0-d view rather than a NumPy scalar
    out = []          # converted items
    width = []        # number of axes each item consumes
    ellipses = 0
    for item in items:
        if item is None:
            out.append(None)
            width.append(0)
        elif item is Ellipsis:
            ellipses += 1
            if ellipses > 1:
                raise IndexError(f"index {key!r} has more than one ellipsis ('...'); an "
                                 f"index may contain at most one")
            out.append(Ellipsis)
            width.append(0)
        elif isinstance(item, slice):
            step = _slice_bound(item.step, key)
            if step == 0:
                raise ValueError(f"slice step cannot be zero (index {key!r})")
            out.append(slice(_slice_bound(item.start, key), _slice_bound(item.stop, key),
                             step))
            width.append(1)
        elif isinstance(item, (bool, np.bool_)):
            # NumPy's rule: a Python bool is a 0-d boolean mask, not the integer 0 or 1
            out.append(np.asarray(item))
            width.append(0)
        elif isinstance(item, (int, np.integer)):
            out.append(int(item))
            width.append(1)
        else:
            arr = _index_array(item)
            if arr is None:
                try:   # any object with __index__ is an integer index
                    out.append(operator.index(item))
                except TypeError:
                    raise InvalidIndex(f"invalid index {item!r} (of type "
                                    f"{type(item).__name__}){_within(key)}: "
                                    f"{_VALID}") from None
                width.append(1)
                continue
            if arr.dtype.kind == "b":
                out.append(arr)
                width.append(arr.ndim)
            elif arr.dtype.kind in "iu":
                # a 0-d integer array is the integer it holds (Array API), which keeps
                # the result a view
                out.append(int(arr) if arr.ndim == 0 else arr)
                width.append(1)
            else:
                raise InvalidIndex(f"an index array must have an integer or boolean dtype, "
                                f"not {arr.dtype.name}{_within(key)}")
    used = sum(width)
    if used > ndim:
        raise IndexError(f"too many indices: key {key!r} indexes {used} axes, but the "
                         f"tensor has shape {shape} ({ndim} axes)")

    # walk the axes each item covers, checking bounds and mask shapes
    axis, basic = 0, True
    for i, (item, w) in enumerate(zip(out, width)):
        if item is Ellipsis:
            axis += ndim - used
        elif isinstance(item, int):
            n = shape[axis]
            if not -n <= item < n:
                raise IndexError(f"index {item} is out of bounds for axis {axis} of size "
                                 f"{n} (tensor shape {shape})")
        elif isinstance(item, np.ndarray):
            basic = False
            if item.dtype.kind == "b":
                out[i] = _check_mask(item, shape[axis:axis + w], axis, shape)
            else:
                _check_int_array(item, shape[axis], axis, shape)
        axis += w
    if basic and ellipses == 0:
        # a trailing ... makes NumPy return a (0-d) view where it would return a scalar
        out.append(Ellipsis)
    return tuple(out)


def _check_mask(mask, axes_shape, axis, shape):
    """A boolean mask checked against the axes it covers (size-0 mask axes select nothing)."""
    axes_shape = tuple(axes_shape)
    if mask.shape == axes_shape:
        return mask
    for k, (m, n) in enumerate(zip(mask.shape, axes_shape)):
        if m != n and m != 0:
            raise IndexError(f"boolean index of shape {mask.shape} does not match the tensor "
                             f"along axis {axis + k}: the axis has size {n}, the mask {m} "
                             f"(tensor shape {shape})")
    # the Array API lets a mask axis have size 0 where the tensor's does not: it has no
    # True element, which an all-False mask of the matching shape says to NumPy
    return np.zeros(axes_shape, dtype=bool)


def _check_int_array(idx, n, axis, shape, what="index"):
    if idx.size == 0:
        return
    lo, hi = idx.min(), idx.max()
    if lo < -n or hi >= n:
        bad = int(lo) if lo < -n else int(hi)
        raise IndexError(f"{what} {bad} is out of bounds for axis {axis} of size {n} "
                         f"(tensor shape {shape})")


def _is_view_key(key, np_key, ndim: int) -> bool:
    """Whether NumPy's ``a[key]`` is a view: basic indexing (slices, ``...``, ``None``,
    integers), unless integers pick one element of every axis (NumPy gives a scalar, a
    copy; lazytensor a 0-d tensor of its own)."""
    for k in np_key:
        if not (type(k) is int or type(k) is slice or k is Ellipsis or k is None):
            return False
    raw = key if type(key) is tuple else (key,)
    return not (len(raw) == ndim and all(type(k) is int or isinstance(k, np.integer)
                                         for k in raw))


def getitem(x, key, /):
    """``x[key]``: the Array API's indexing rules, extended as NumPy extends them.

    Integers, slices, ``...`` and ``None`` give a view of ``x``'s value; integer tensors
    gather (they broadcast together, as in NumPy), and a boolean tensor selects the
    elements where it is true, in row-major order.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"__getitem__: expected a Tensor, got {type(x).__name__}")
    np_key = _prepare(key, x.shape)
    if _is_view_key(key, np_key, x.ndim):
        try:
            return _views.view(x, lambda mem: mem[np_key])
        except IndexError as exc:
            raise IndexError(f"cannot index a tensor of shape {x.shape} with {key!r}: "
                             f"{exc}") from None
    v = x._value()
    try:
        out = v[np_key]
    except IndexError as exc:   # e.g. index arrays that do not broadcast together
        raise IndexError(f"cannot index a tensor of shape {x.shape} with {key!r}: "
                         f"{exc}") from None
    if out.ndim == 0 and np.may_share_memory(out, v):
        out = out.copy()        # x[i, j]: NumPy's scalar, not a 0-d view of memory
    return wrap(out)


# ---- assignment ---------------------------------------------------------------------
def _assigned_value(x, value):
    """``value`` as a NumPy array or 0-d array ready to store into ``x``.

    Tensors (and NumPy arrays) of another dtype are converted when NumPy's ``same_kind``
    rule allows it (``float64`` into ``float32``, ``int64`` into ``int8``, ``bool`` into
    anything); Python scalars when type promotion with ``x``'s dtype gives ``x``'s dtype.
    A float into an integer tensor, an int into a bool tensor, or a complex into a real
    one is a ``TypeError``.
    """
    dtype = x.dtype
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        arr = value._value() if isinstance(value, Tensor) else np.asarray(value)
        if arr.dtype != dtype and not np.can_cast(arr.dtype, dtype, casting="same_kind"):
            raise TypeError(f"cannot assign {arr.dtype.name} values into a {dtype.name} "
                            f"tensor: the conversion would lose the kind of value; cast "
                            f"with astype first")
        return arr
    kind = _dtypes.python_scalar_type(value)
    if kind is None:
        raise TypeError(f"cannot assign a {type(value).__name__} into a tensor: the value "
                        f"must be a Tensor or a Python bool, int, float or complex")
    if _dtypes.result_type_of([dtype], [kind]) != dtype:
        raise TypeError(f"cannot assign the Python {kind.__name__} {value!r} into a "
                        f"{dtype.name} tensor without a cast")
    return _dtypes.scalar_to_array(value, dtype)


def setitem(x, key, value, /):
    """``x[key] = value``, NumPy's assignment.

    ``value`` broadcasts to ``x[key]``'s shape and takes ``x``'s dtype (see
    :func:`_assigned_value` for the conversions allowed).  Where an integer-array key
    repeats an index, the last assignment wins (NumPy's behaviour).  A tensor that shares
    memory (a view, or one whose value was handed out) is written in place, so every view
    of that memory sees the write.  Otherwise its value becomes its memory (taken over, or
    copied once), so that a loop of assignments writes in place.  Pending results read
    before the write keep the values they read.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"__setitem__: expected a Tensor, got {type(x).__name__}")
    _views.check_writable(x, "__setitem__")
    np_key = _prepare(key, x.shape)
    arr = _assigned_value(x, value)
    mem = _views.writable(x, "__setitem__")   # x's value taken over (or copied) as memory
    try:
        with library_state():   # a conversion to x's dtype is rounded as a cast's would be
            mem[np_key] = arr
    except ValueError as exc:   # the value does not broadcast to the selection
        raise ValueError(f"cannot assign a value of shape {arr.shape} to {key!r} of a "
                         f"tensor of shape {x.shape}: {exc}") from None
    except IndexError as exc:
        raise IndexError(f"cannot index a tensor of shape {x.shape} with {key!r}: "
                         f"{exc}") from None


# ---- take / take_along_axis ---------------------------------------------------------
def _indices_array(indices, what):
    if isinstance(indices, Tensor):
        idx = indices._value()
    elif isinstance(indices, np.ndarray):
        idx = indices
    elif isinstance(indices, (list, tuple, int, np.integer)) and not isinstance(indices, bool):
        idx = np.asarray(indices)          # NumPy's array-likes
        if idx.size == 0:
            idx = idx.astype(np.intp)
    else:
        raise TypeError(f"{what}: indices must be an integer Tensor, got "
                        f"{type(indices).__name__}")
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{what}: indices must have an integer dtype, got {idx.dtype.name}")
    return idx


def take(x, indices, /, axis=None, out=None, mode="raise"):
    """Elements of ``x`` at ``indices`` along ``axis``.

    Parameters
    ----------
    x : Tensor
    indices : Tensor or array-like
        Integers (one-dimensional in the standard; an n-d one replaces the axis by its
        shape, as in NumPy).  Negative indices count from the end; an index out of
        bounds is an ``IndexError``.
    axis : int, optional
        By default the flattened ``x`` is indexed (NumPy's; the standard requires an
        axis when ``x`` has more than one dimension).
    out : Tensor or numpy.ndarray, optional
        NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
    mode : {"raise", "wrap", "clip"}
        NumPy's treatment of indices out of bounds: an error, wrapped around, or clipped
        to the ends.

    Returns
    -------
    Tensor
        ``x``'s dtype; ``x``'s shape with ``axis`` replaced by ``indices``' shape.
    """
    x = operand(x, "take")
    check_out(out, "take")
    v = tensor_value(x, "take")
    idx = _indices_array(indices, "take")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if zero_d_axis(axis, x) is None:
        n, axis_shown = x.size, 0   # NumPy's flat take (a 0-d or n-d x)
        axis = 0 if x.ndim == 1 else None
    else:
        axis = normalize_axis(axis, x.ndim, "take", x.shape)
        n, axis_shown = x.shape[axis], axis
    if mode == "raise":
        _check_int_array(idx, n, axis_shown, x.shape, what="take: index")
    elif n == 0 and idx.size:
        raise IndexError(f"take: cannot take from an empty axis (tensor shape {x.shape})")
    return to_out(wrap(np.take(v, idx, axis=axis, mode=mode)), out, "take")


def take_along_axis(x, indices, /, axis=-1):
    """Elements of ``x`` at the one-dimensional ``indices`` along ``axis``.

    ``indices`` has as many dimensions as ``x`` and broadcasts against it along every
    other axis; the result has the broadcast shape, with ``indices``' length along
    ``axis``.  Negative indices count from the end; an index out of bounds is an
    ``IndexError``.
    """
    v = tensor_value(x, "take_along_axis")
    idx = _indices_array(indices, "take_along_axis")
    if x.ndim == 0:
        raise ValueError("take_along_axis: x must have at least one dimension")
    axis = normalize_axis(axis, x.ndim, "take_along_axis", x.shape)
    if idx.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices must have as many dimensions as x; got "
                         f"shapes {idx.shape} and {x.shape}")
    for d, (m, n) in enumerate(zip(idx.shape, x.shape)):
        if d != axis and m != n and 1 not in (m, n):
            raise ValueError(f"take_along_axis: indices of shape {idx.shape} do not "
                             f"broadcast against x of shape {x.shape} along axis {d}")
    _check_int_array(idx, x.shape[axis], axis, x.shape, what="take_along_axis: index")
    return wrap(np.take_along_axis(v, idx, axis))
