"""Set functions: ``isin`` and the ``unique_*`` family.

They are not elementwise: each evaluates its input and uses NumPy on the value.  Results
whose shape depends on the data (the unique values) are computed at once.

Uniqueness is value equality, as in ``equal``: every NaN (and every complex value with a
NaN component) is distinct from all others, while -0.0 and +0.0 are one value.  Unique
values come out sorted (NaNs last).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._engine.dtypes import int64, python_scalar_type, result_type_of, scalar_to_array
from .._engine.tensor import Tensor
from .args import tensor_value, wrap
from .ndarray_args import operand

__all__ = ['isin', 'unique_all', 'unique_counts', 'unique_inverse', 'unique_values']


class UniqueAllResult(NamedTuple):
    """The result of :func:`unique_all`."""

    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    """The result of :func:`unique_counts`."""

    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    """The result of :func:`unique_inverse`."""

    values: Tensor
    inverse_indices: Tensor


def _unique(x, what, **returns):
    """NumPy's ``unique`` of the flattened value of ``x``, with NaNs kept distinct."""
    v = tensor_value(operand(x, what), what)
    return np.unique(v.reshape(-1), equal_nan=False, **returns)


def unique_all(x, /):
    """The unique elements of ``x``, where each first occurs, the indices that rebuild
    ``x`` from them, and how often each occurs.

    Parameters
    ----------
    x : Tensor
        Input of any shape; it is flattened.

    Returns
    -------
    UniqueAllResult
        ``values`` (1-d, ``x``'s dtype, sorted), ``indices`` (int64 index of each value's
        first occurrence in the flattened ``x``), ``inverse_indices`` (int64, shaped like
        ``x``: ``values[inverse_indices]`` equals ``x``) and ``counts`` (int64).  Each NaN
        is its own value with count 1.
    """
    values, index, inverse, counts = _unique(x, "unique_all", return_index=True,
                                             return_inverse=True, return_counts=True)
    return UniqueAllResult(wrap(values), wrap(index, int64),
                           wrap(inverse.reshape(x.shape), int64), wrap(counts, int64))


def unique_counts(x, /):
    """The unique elements of ``x`` and how often each occurs.

    Parameters
    ----------
    x : Tensor
        Input of any shape; it is flattened.

    Returns
    -------
    UniqueCountsResult
        ``values`` (1-d, ``x``'s dtype, sorted) and ``counts`` (int64); each NaN is its
        own value with count 1.
    """
    values, counts = _unique(x, "unique_counts", return_counts=True)
    return UniqueCountsResult(wrap(values), wrap(counts, int64))


def unique_inverse(x, /):
    """The unique elements of ``x`` and the indices that rebuild ``x`` from them.

    Parameters
    ----------
    x : Tensor
        Input of any shape; it is flattened.

    Returns
    -------
    UniqueInverseResult
        ``values`` (1-d, ``x``'s dtype, sorted) and ``inverse_indices`` (int64, shaped
        like ``x``, so that ``values[inverse_indices]`` equals ``x``).
    """
    values, inverse = _unique(x, "unique_inverse", return_inverse=True)
    return UniqueInverseResult(wrap(values), wrap(inverse.reshape(x.shape), int64))


def unique_values(x, /):
    """The unique elements of ``x``.

    Parameters
    ----------
    x : Tensor
        Input of any shape; it is flattened.

    Returns
    -------
    Tensor
        1-d, ``x``'s dtype, sorted; each NaN is its own value.
    """
    return wrap(_unique(x, "unique_values"))


def _scalar_operand(value, dtype):
    """Python scalar ``value`` as a 0-d array to compare with a tensor of ``dtype``, or
    None for an integer outside an integer ``dtype``'s range (it equals nothing there)."""
    kind = python_scalar_type(value)
    if kind is None:
        raise TypeError(f"isin: expected a Tensor or a Python scalar, got "
                        f"{type(value).__name__}")
    if kind is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array(value, dtype) if info.min <= value <= info.max else None
    return scalar_to_array(value, result_type_of((dtype,), (kind,)))   # rounded as constants are


def _array_like(x):
    if isinstance(x, (list, tuple, np.ndarray)):
        from .creation import asarray

        return asarray(x)
    return x


def isin(x1, x2, /, assume_unique=False, invert=False, *, kind=None):
    """Test, for each element of ``x1``, whether it equals an element of ``x2``.

    Parameters
    ----------
    x1 : Tensor or Python scalar
        The elements to look up.
    x2 : Tensor or Python scalar
        The elements to look in (any shape).  At least one of ``x1`` and ``x2`` must be a
        tensor.
    invert : bool
        Test for *not* being in ``x2`` instead.
    assume_unique, kind
        NumPy's hints, accepted (the answer does not depend on them).

    Returns
    -------
    Tensor
        bool, shaped like ``x1`` (0-d for a scalar ``x1``).

    Notes
    -----
    Equality is exact across integer dtypes (an int64 never equals a uint64 beyond its
    range); other mixed dtypes are compared after promotion.  NaN is in nothing.
    """
    # NumPy's array-likes (lists, tuples, arrays) as tensors; Python scalars stay weak
    x1, x2 = (_array_like(x) for x in (x1, x2))
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        raise TypeError(f"isin: at least one of x1 and x2 must be a Tensor, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    a1 = x1._value() if isinstance(x1, Tensor) else _scalar_operand(x1, x2.dtype)
    a2 = x2._value() if isinstance(x2, Tensor) else _scalar_operand(x2, x1.dtype)
    if a1 is None or a2 is None:   # an out-of-range integer: nothing matches
        return wrap(np.full(() if a1 is None else a1.shape, bool(invert)))
    a2 = a2.reshape(-1)
    if a1.dtype != a2.dtype:
        if a1.dtype.kind in "iu" and a2.dtype.kind in "iu":
            # compare exactly: keep the x2 values x1's dtype can hold, then cast them
            info = np.iinfo(a1.dtype)
            a2 = a2[(a2 >= info.min) & (a2 <= info.max)].astype(a1.dtype)
        else:
            dtype = result_type_of((a1.dtype, a2.dtype))
            a1, a2 = a1.astype(dtype, copy=False), a2.astype(dtype, copy=False)
    return wrap(np.isin(a1, a2, invert=bool(invert)))
