"""Argument checks and result wrapping shared by the functions: the tensor check, dtype
kinds, integer and real arguments, axes, the size of a shape, and read-only results."""

from __future__ import annotations

import math
import operator
import sys
import warnings
from contextlib import contextmanager

import numpy as np

from .._engine.fpenv import library_state
from .._engine.tensor import Tensor

_AxisError = np.exceptions.AxisError


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


def normalize_axis(axis, ndim: int, what: str, shape=None, name: str = "axis") -> int:
    """``axis`` as an int in ``[0, ndim)``; ``name`` is the argument's name and ``shape``
    (when given) is named in the error.

    A non-integer raises TypeError; an integer outside ``[-ndim, ndim)`` raises NumPy's
    ``AxisError``, which is both a ValueError and an IndexError (as in NumPy).
    """
    a = integer_arg(axis, what, name)
    if not -ndim <= a < ndim:
        valid = f"valid axes are {-ndim} to {ndim - 1}" if ndim else "a 0-d tensor has no axes"
        of_shape = f" of shape {tuple(shape)}" if shape is not None else ""
        raise _AxisError(f"{what}: {name} {a} is out of range for a {ndim}-d tensor{of_shape} "
                         f"({valid})")
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


# the filter warnings.simplefilter("ignore", RuntimeWarning) puts first
_IGNORE_RUNTIME_WARNINGS = ("ignore", None, RuntimeWarning, None, 0)


class quiet:
    """Silence NumPy's floating-point warnings (empty means, overflow): the results
    (NaN, inf, wrap-around) are the specified ones, so the warnings would be noise.

    What ``np.errstate(all="ignore")`` with ``warnings.catch_warnings()`` and
    ``simplefilter("ignore", RuntimeWarning)`` inside did, without the copies of the
    filters and of the display hooks that cost about 2.5 us of every NumPy-computed call:
    the filter list is swapped for one with that filter first, and swapped back."""

    __slots__ = ("_errstate", "_filters")

    def __enter__(self):
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()
        self._filters = warnings.filters
        warnings.filters = [_IGNORE_RUNTIME_WARNINGS, *self._filters]
        _filters_mutated()
        return self

    def __exit__(self, *exc_info):
        warnings.filters = self._filters
        _filters_mutated()
        return self._errstate.__exit__(*exc_info)


# (the warnings module's own hook, which catch_warnings calls: each filter change
# invalidates the registries of warnings already shown.  Python 3.14 made the filters
# per context and the hook a locked one: there, the documented way)
_filters_mutated = (getattr(warnings, "_filters_mutated", None)
                    if sys.version_info < (3, 14) else None)
if _filters_mutated is None:
    @contextmanager
    def quiet():
        """Silence NumPy's floating-point warnings (see above)."""
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            yield


def wrap(array, dtype=None, computed_by=None) -> Tensor:
    """A Tensor around a NumPy result (a scalar becomes a 0-d tensor), as ``dtype``.

    The array is made read-only: a tensor's value never changes under it.  The conversion
    to ``dtype`` is rounded in the library's floating-point state (round to nearest, no
    flush-to-zero), whatever the caller's.  ``computed_by``: NumPy's function, when NumPy's
    arithmetic made the value (outside exact mode's promise: ``lt.explain`` says so).
    """
    out = np.asarray(array)
    if dtype is not None and out.dtype != dtype:
        with library_state():
            out = out.astype(dtype)
    out.setflags(False)                 # write=False (by position: cheaper)
    if computed_by is not None:
        return Tensor._computed_by_numpy(out, computed_by)
    return Tensor._from_array(out)


def reduction(what: str, x, axis, keepdims: bool, compute, dtype=None) -> Tensor:
    """The common frame of a reduction: check ``x``, normalize ``axis`` and run
    ``compute(value, axes)`` (a NumPy reduction taking an axis tuple) quietly."""
    v = tensor_value(x, what)
    axes = normalize_axes(axis, x.ndim, what, x.shape)
    with quiet():
        out = compute(v, axes)
    return wrap(out, dtype)
