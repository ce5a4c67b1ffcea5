"""Searching functions: ``argmax``, ``argmin``, ``count_nonzero``, ``nonzero`` and
``searchsorted``.  (``where`` is elementwise and lives in ``elementwise.py``.)

They are not elementwise: each evaluates its input and uses NumPy on the value.  Results
whose shape depends on the data (``nonzero``) are computed at once.
"""

from __future__ import annotations

import numpy as np

from .._engine.dtypes import int64, python_scalar_type
from .._engine.tensor import Tensor
from .args import check_kind, normalize_axis, quiet, reduced_size, tensor_value, wrap
from .ndarray_args import check_out, operand, to_out, zero_d_axis
from .utility import reduction

__all__ = ['argmax', 'argmin', 'count_nonzero', 'nonzero', 'searchsorted']


def _arg_extremum(name, np_fn):
    def fn(x, /, axis=None, out=None, *, keepdims=False):
        x = operand(x, name)
        check_out(out, name)
        axis = zero_d_axis(axis, x)
        v = tensor_value(x, name)
        ax = None if axis is None else normalize_axis(axis, x.ndim, name, x.shape)
        if reduced_size(x.shape, range(x.ndim) if ax is None else (ax,)) == 0:
            raise ValueError(f"{name}: the tensor of shape {x.shape} has no elements along "
                             f"axis {axis}, so there is no {name[3:]}imum to point at")
        return to_out(wrap(np_fn(v, axis=ax, keepdims=bool(keepdims)), int64), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""Index of the first {name[3:]}imum of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input.  A NaN counts as the {name[3:]}imum (its first occurrence wins); complex values
        are ordered lexicographically, as in NumPy.
    axis : int, optional
        The axis to search; by default the flattened tensor is searched.
    out : Tensor or numpy.ndarray, optional
        NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
    keepdims : bool
        Keep the searched axis (all axes when ``axis`` is None) as length-one axes.

    Returns
    -------
    Tensor
        int64 indices.

    Raises
    ------
    ValueError
        If the searched axis has length zero.
    """
    return fn


argmax = _arg_extremum("argmax", np.argmax)
argmin = _arg_extremum("argmin", np.argmin)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input of any dtype: True counts for bools, a non-zero real or imaginary part for
        complex values.
    axis : int or tuple of ints, optional
        Axes to count over (all by default).
    keepdims : bool
        Keep the counted axes as length-one axes.

    Returns
    -------
    Tensor
        int64 counts.
    """
    x = operand(x, "count_nonzero")
    return reduction("count_nonzero", x, zero_d_axis(axis, x), keepdims,
                  lambda v, axes: np.count_nonzero(v, axis=axes, keepdims=bool(keepdims)),
                  int64)


def nonzero(x, /):
    """Indices of the non-zero elements of ``x``, one int64 tensor per axis, in row-major
    order.

    Parameters
    ----------
    x : Tensor
        Input with at least one dimension, of any dtype (non-zero as in
        :func:`count_nonzero`).

    Returns
    -------
    tuple of Tensor
        ``x.ndim`` one-dimensional tensors, all as long as the number of non-zero elements.

    Raises
    ------
    ValueError
        If ``x`` is 0-d.
    """
    x = operand(x, "nonzero")
    v = tensor_value(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: x must have at least one dimension, got a 0-d tensor; "
                         "reshape it to shape (1,) first")
    return tuple(wrap(ix, int64) for ix in np.nonzero(v))


def searchsorted(x1, x2, /, side="left", sorter=None):
    """Indices at which to insert ``x2``'s elements into sorted ``x1`` to keep it sorted.

    Parameters
    ----------
    x1 : Tensor
        One-dimensional, sorted ascending (NaNs last, as :func:`sort` puts them) unless
        ``sorter`` is given.
    x2 : Tensor, Python scalar or array-like
        Values to insert; compared with ``x1`` after promotion (a Python scalar is weak:
        it takes ``x1``'s dtype where its kind allows).
    side : {"left", "right"}
        For values equal to elements of ``x1``: the index of the first such element
        (``"left"``) or one past the last (``"right"``).
    sorter : Tensor, optional
        Integer indices that sort ``x1`` ascending (for example ``argsort(x1)``).

    Returns
    -------
    Tensor
        int64 indices, shaped like ``x2`` (0-d for a scalar).
    """
    x1 = operand(x1, "searchsorted")
    v1 = tensor_value(x1, "searchsorted")
    if isinstance(x2, (list, tuple, np.ndarray, np.generic)):   # NumPy's array-likes
        x2 = operand(x2, "searchsorted")
    if isinstance(sorter, (list, tuple, np.ndarray)):
        sorter = operand(sorter, "searchsorted")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be one-dimensional, got shape {x1.shape}")
    if isinstance(x2, Tensor):
        v2 = x2._value()
    elif python_scalar_type(x2) is not None:
        v2 = x2   # NumPy promotes a Python scalar weakly, as lazytensor does
    else:
        raise TypeError(f"searchsorted: x2 must be a Tensor or a Python scalar, got "
                        f"{type(x2).__name__}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if sorter is not None:
        s = tensor_value(sorter, "searchsorted (sorter)")
        check_kind(sorter, "searchsorted (sorter)", "iu", "integer")
        if sorter.shape != x1.shape:
            raise ValueError(f"searchsorted: sorter has shape {sorter.shape} but x1 has "
                             f"shape {x1.shape}")
        if s.size and (s.min() < 0 or s.max() >= x1.shape[0]):
            raise ValueError(f"searchsorted: sorter holds indices outside [0, "
                             f"{x1.shape[0]}) for x1 of shape {x1.shape}")
        sorter = s
    with quiet():
        return wrap(np.searchsorted(v1, v2, side=side, sorter=sorter), int64)
