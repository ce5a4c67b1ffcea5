"""Sorting functions: ``argsort`` and ``sort``.

They are not elementwise: each evaluates its input and uses NumPy on the value.  Ascending
order is NumPy's (NaNs last; complex values lexicographically); descending order is its
exact reverse, except that equal elements still keep their original order when
``stable`` is true.
"""

from __future__ import annotations

import numpy as np

from .._engine.dtypes import int64
from .args import normalize_axis, tensor_value, wrap

__all__ = ['argsort', 'sort']


def _sort_args(x, axis, stable, what):
    """The value, the axis as a non-negative int, and NumPy's sort kind."""
    v = tensor_value(x, what)
    ax = normalize_axis(axis, x.ndim, what, x.shape)
    return v, ax, ("stable" if stable else "quicksort")


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """Indices that sort ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input with at least one dimension.
    axis : int
        The axis to sort along (default: the last).
    descending : bool
        Sort in descending instead of ascending order.
    stable : bool
        Keep equal elements in their original order (in both directions).  When false the
        order of equal elements is unspecified.

    Returns
    -------
    Tensor
        int64 indices, shaped like ``x``.
    """
    v, ax, kind = _sort_args(x, axis, stable, "argsort")
    if not descending:
        return wrap(np.argsort(v, axis=ax, kind=kind), int64)
    # Sort the reversed input ascending and reverse the result: equal elements then come
    # out in their original order.  Indices into the reversed input map back as n-1-i.
    n = x.shape[ax]
    rev = np.flip(np.argsort(np.flip(v, axis=ax), axis=ax, kind=kind), axis=ax)
    return wrap((n - 1) - rev, int64)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """A sorted copy of ``x``.

    Parameters
    ----------
    x : Tensor
        Input with at least one dimension.
    axis : int
        The axis to sort along (default: the last).
    descending : bool
        Sort in descending instead of ascending order.
    stable : bool
        Keep equal elements in their original order (matters only for elements that
        compare equal but differ, such as -0.0 and +0.0).

    Returns
    -------
    Tensor
        The sorted values, of ``x``'s dtype and shape.
    """
    v, ax, kind = _sort_args(x, axis, stable, "sort")
    if not descending:
        return wrap(np.sort(v, axis=ax, kind=kind))
    # reversed, sorted ascending, reversed back: descending, and stable (see argsort)
    return wrap(np.flip(np.sort(np.flip(v, axis=ax), axis=ax, kind=kind), axis=ax))
