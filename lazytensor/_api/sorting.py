"""Sorting functions: ``argsort`` and ``sort``.

They are not elementwise: each evaluates its input and uses NumPy on the value.  Ascending
order is NumPy's (NaNs last; complex values lexicographically); descending order is its
exact reverse, except that equal elements still keep their original order when
``stable`` is true.
"""

from __future__ import annotations

import numpy as np

from .._engine.dtypes import int64
from .._engine.errors import Unsupported
from .args import normalize_axis, tensor_value, wrap
from .manipulation import reshape
from .ndarray_args import operand, zero_d_axis

__all__ = ['argsort', 'sort']


_KINDS = {"stable": True, "mergesort": True, "quicksort": False, "heapsort": False}


def _sort_args(x, axis, kind, order, stable, what):
    """The tensor (flattened for NumPy's ``axis=None``), the value, the axis as a
    non-negative int, and NumPy's sort kind.  NumPy's ``kind`` decides stability when
    ``stable`` is left at its default (the standard's True)."""
    x = operand(x, what)
    if order is not None:
        raise Unsupported(f"{what}: order= sorts structured arrays by field, and lazytensor "
                          f"has no structured dtypes")
    if kind is not None:
        if kind not in _KINDS:
            raise ValueError(f"{what}: kind must be one of {', '.join(_KINDS)}, got {kind!r}")
        if stable is None:
            stable = _KINDS[kind]
    stable = True if stable is None else stable
    if axis is None or what == "argsort" and zero_d_axis(axis, x) is None:
        x, axis = reshape(x, (-1,)), 0   # NumPy's: the flattened tensor (0-d: argsort's)
    v = tensor_value(x, what)
    ax = normalize_axis(axis, x.ndim, what, x.shape)
    return x, v, ax, ("stable" if stable else "quicksort")


def _value_sort_kind(v, kind: str) -> str:
    """The sort kind for sorting values: NumPy's faster unstable one where stability cannot
    show in the values, which is when no two elements compare equal while their bits differ
    (integers and bools; floats with no zero, whose sign it could swap, and no NaN, whose
    payloads it could); the kind asked for otherwise.  Indices (argsort) always keep it."""
    if kind != "stable" or v.size < 2:
        return kind
    if v.dtype.kind in "biu" or (v.dtype.kind == "f" and np.count_nonzero(v) == v.size
                                  and not np.isnan(v.min())):   # (no temporaries: min is NaN
        return "quicksort"                                      # if any element is)
    return kind


def argsort(x, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Indices that sort ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input with at least one dimension.
    axis : int or None
        The axis to sort along (default: the last); None sorts the flattened tensor
        (NumPy's).
    kind : {"stable", "mergesort", "quicksort", "heapsort"}, optional
        NumPy's: decides ``stable`` when that is not given ("quicksort" and "heapsort"
        give NumPy's unstable order of equal elements).
    order : None
        NumPy's field order for structured dtypes, which lazytensor does not have.
    descending : bool
        Sort in descending instead of ascending order.
    stable : bool
        Keep equal elements in their original order (in both directions); the default
        (None) is True, the standard's, unless ``kind`` says otherwise.  When false the
        order of equal elements is NumPy's unstable one.

    Returns
    -------
    Tensor
        int64 indices, shaped like ``x``.
    """
    x, v, ax, kind = _sort_args(x, axis, kind, order, stable, "argsort")
    if not descending:
        return wrap(np.argsort(v, axis=ax, kind=kind), int64)
    # Sort the reversed input ascending and reverse the result: equal elements then come
    # out in their original order.  Indices into the reversed input map back as n-1-i.
    n = x.shape[ax]
    rev = np.flip(np.argsort(np.flip(v, axis=ax), axis=ax, kind=kind), axis=ax)
    return wrap((n - 1) - rev, int64)


def sort(x, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """A sorted copy of ``x``.

    Parameters
    ----------
    x : Tensor
        Input with at least one dimension.
    axis : int or None
        The axis to sort along (default: the last); None sorts the flattened tensor
        (NumPy's).
    kind, order :
        NumPy's, as for :func:`argsort`.
    descending : bool
        Sort in descending instead of ascending order.
    stable : bool
        Keep equal elements in their original order (matters only for elements that
        compare equal but differ, such as -0.0 and +0.0); default True.

    Returns
    -------
    Tensor
        The sorted values, of ``x``'s dtype and shape.
    """
    x, v, ax, kind = _sort_args(x, axis, kind, order, stable, "sort")
    kind = _value_sort_kind(v, kind)
    if not descending:
        return wrap(np.sort(v, axis=ax, kind=kind))
    # reversed, sorted ascending, reversed back: descending, and stable (see argsort)
    return wrap(np.flip(np.sort(np.flip(v, axis=ax), axis=ax, kind=kind), axis=ax))
