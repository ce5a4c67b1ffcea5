"""Statistical functions: reductions and cumulative sums and products.

``sum``, ``prod``, ``max``, ``min``, ``mean``, ``var`` and ``std`` (and ``any``/``all`` in
``utility.py``) record a ``reduce`` node: the kernel that computes the elementwise input
reduces it chunk by chunk, so the input is never stored (see docs/architecture.md,
"Fused reductions").  Accumulation: float sums, products and means in float64 (float32
and float16 values are rounded once at the end); integer sums and products wrap around in
64 bits; max and min in the input's dtype.  Complex input still evaluates and uses NumPy.
The cumulative functions evaluate their input and use NumPy.
"""

from __future__ import annotations

import numpy as np

from .._engine.dtypes import canonical_dtype, float32, float64, int64, uint64
from .elementwise import FUNCTIONS, cast
from .._engine.fpenv import library_state
from .._engine.tensor import Tensor
from .._engine.record import reduce_node
from .args import (check_kind, normalize_axes, normalize_axis, quiet, reduced_size, reduction,
                   wrap)
from .._engine.replay import memoized

__all__ = ['cumulative_prod', 'cumulative_sum', 'max', 'mean', 'min', 'prod', 'std', 'sum',
           'var']

# NumPy also reduces bools (counting True as 1), so these functions take them too
_NUMERIC = "biufc"


def _accumulation_input(x, dtype, what):
    """``(x, dtype)`` for sum, prod and the cumulative functions.

    ``dtype`` is the given one, or by default ``x``'s, except that bool and signed integers
    widen to the default integer int64 and unsigned integers to uint64 (the Array API
    rule).  A cast NumPy would do by other rules than lazytensor's (float to integer,
    complex to real) is done first with ``astype``, so its results and errors are
    lazytensor's; widening casts are left to NumPy's reduction, which casts in chunks.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    check_kind(x, what, _NUMERIC, "numeric")
    if dtype is not None:
        dt = canonical_dtype(dtype, where=what)
    elif x.dtype.kind in "bi":
        dt = int64
    elif x.dtype.kind == "u":
        dt = uint64
    else:
        dt = x.dtype
    if x.dtype.kind == "c" and dt.kind != "c":
        raise TypeError(f"{what}: cannot compute the {what} of a {x.dtype.name} tensor in "
                        f"{dt.name}: that would drop the imaginary part; take real() first")
    if not np.can_cast(x.dtype, dt, "safe"):
        x = cast(x, dt)
    return x, dt


def _fused_accumulation(op, x, dt, axes, keepdims):
    """sum or prod of ``x`` in ``dt`` (real): cast to ``dt``, reduce in float64 or in
    64-bit integers, round once to ``dt``."""
    v = cast(x, dt)
    if dt.kind == "f":
        if dt.itemsize == 2:
            v = cast(v, float32)   # exact; the float16 result is rounded once at the end
        acc = float64
    else:
        v = cast(v, uint64 if dt.kind == "u" else int64)
        acc = v.dtype
    return cast(reduce_node(op, v, axes, keepdims, acc), dt)


@memoized
def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    """Sum of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Numeric (or bool) input.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    dtype : dtype, optional
        Dtype to compute and return in.  By default ``x``'s, except that integers narrower
        than 64 bits widen to int64 (signed, and bool) or uint64 (unsigned).
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        The sums; an empty sum is 0.  Integer sums wrap around on overflow.  Float sums
        are accumulated in float64 and rounded once to ``dtype``, in a fixed order
        (the same bits for every thread count and kernel path).
    """
    x, dt = _accumulation_input(x, dtype, "sum")
    if x.dtype.kind != "c" and dt.kind in "iuf":
        axes = normalize_axes(axis, x.ndim, "sum", x.shape)
        return _fused_accumulation("sum", x, dt, axes, keepdims)
    return reduction("sum", x, axis, keepdims,
                  lambda v, axes: np.sum(v, axis=axes, dtype=dt, keepdims=keepdims), dt)


@memoized
def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """Product of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Numeric (or bool) input.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    dtype : dtype, optional
        Dtype to compute and return in; the default is as for :func:`sum`.
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        The products; an empty product is 1.  Integer products wrap around on overflow.
        Float products are accumulated in float64 and rounded once to ``dtype``.
    """
    x, dt = _accumulation_input(x, dtype, "prod")
    if x.dtype.kind != "c" and dt.kind in "iuf":
        axes = normalize_axes(axis, x.ndim, "prod", x.shape)
        return _fused_accumulation("prod", x, dt, axes, keepdims)
    return reduction("prod", x, axis, keepdims,
                  lambda v, axes: np.prod(v, axis=axes, dtype=dt, keepdims=keepdims), dt)


def _cumulative(name, np_fn, identity):
    def fn(x, /, *, axis=None, dtype=None, include_initial=False):
        x, dt = _accumulation_input(x, dtype, name)
        if axis is None and x.ndim > 1:
            raise ValueError(f"{name}: axis is required for a tensor of more than one "
                             f"dimension (shape {x.shape})")
        # a 0-d tensor is taken as one element (as NumPy does): axis 0 or -1 or None
        ax = 0 if axis is None else normalize_axis(axis, x.ndim or 1, name, x.shape)
        v = x._value()
        with quiet():
            out = np_fn(v if x.ndim else v.reshape(1), axis=ax, dtype=dt,
                        include_initial=bool(include_initial))
        return wrap(out, dt)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""Cumulative {name.split('_')[1]} of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Numeric (or bool) input; a 0-d tensor is taken as a tensor of one element.
    axis : int, optional
        The axis to accumulate along; required when ``x`` has more than one dimension.
    dtype : dtype, optional
        Dtype to compute and return in; the default is as for :func:`sum`.
    include_initial : bool
        Start the result with the identity ({identity}), making that axis one longer.

    Returns
    -------
    Tensor
        The running {name.split('_')[1]}s, shaped like ``x`` (but for ``include_initial``).
    """
    return fn


cumulative_sum = _cumulative("cumulative_sum", np.cumulative_sum, 0)
cumulative_prod = _cumulative("cumulative_prod", np.cumulative_prod, 1)


def _extremum(name, np_fn):
    def fn(x, /, *, axis=None, keepdims=False):
        if isinstance(x, Tensor) and x.dtype.kind in "biuf":
            axes = normalize_axes(axis, x.ndim, name, x.shape)
            if reduced_size(x.shape, axes) == 0:
                raise ValueError(f"{name}: the {name}imum of zero elements is undefined "
                                 f"(tensor shape {x.shape}, axis {axis})")
            v = cast(x, float32) if x.dtype.kind == "f" and x.dtype.itemsize == 2 else x
            return cast(reduce_node(name, v, axes, keepdims, v.dtype), x.dtype)

        def compute(v, axes):
            if reduced_size(v.shape, axes) == 0:
                raise ValueError(f"{name}: the {name}imum of zero elements is undefined "
                                 f"(tensor shape {x.shape}, axis {axis})")
            return np_fn(v, axis=axes, keepdims=keepdims)

        return reduction(name, x, axis, keepdims, compute)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""{name.capitalize()}imum of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input; NaNs propagate.  Complex values are ordered lexicographically (real part
        first) and bools as 0 and 1, as in NumPy.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        The {name}ima, of ``x``'s dtype.

    Raises
    ------
    ValueError
        If an axis to reduce has length zero (the {name}imum of nothing is undefined).
    """
    return fn


max = memoized(_extremum("max", np.max))
min = memoized(_extremum("min", np.min))


def _float_result(x, what):
    """The dtype of a mean, variance or standard deviation of ``x``: floating ``x`` keeps
    its dtype, integers and bools give the default float64."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    check_kind(x, what, _NUMERIC, "numeric")
    return x.dtype if x.dtype.kind in "fc" else float64


@memoized
def mean(x, /, *, axis=None, keepdims=False):
    """Arithmetic mean of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Numeric input; integer (and bool) input gives a float64 result.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        The means, of ``x``'s floating dtype; the mean of zero elements is NaN
        (NaN + NaN j for complex input).
    """
    dt = _float_result(x, "mean")
    if x.dtype.kind != "c":
        axes = normalize_axes(axis, x.ndim, "mean", x.shape)
        v = cast(x, float32 if x.dtype.kind == "f" and x.dtype.itemsize == 2
                   else dt if x.dtype.kind in "biu" else x.dtype)
        total = reduce_node("sum", v, axes, keepdims, float64)
        # float64 sum / M (0 / 0 is NaN for an empty mean), rounded once to the dtype
        return cast(total / float(reduced_size(x.shape, axes)), dt)
    return reduction("mean", x, axis, keepdims,
                  lambda v, axes: np.mean(v, axis=axes, keepdims=keepdims), dt)


def _spread(name, np_fn):
    def fn(x, /, *, axis=None, correction=0.0, keepdims=False):
        dt = _float_result(x, name)
        if x.dtype.kind == "c":   # NumPy's: the spread of complex values is real
            dt = np.dtype(dt.char.lower())
        if isinstance(correction, bool) or not isinstance(correction, (int, float, np.integer,
                                                                       np.floating)):
            raise TypeError(f"{name}: correction must be a real number, got {correction!r}")

        if x.dtype.kind != "c":
            return _fused_spread(name, x, axis, correction, keepdims, dt)

        def compute(v, axes):
            out = np_fn(v, axis=axes, ddof=correction, keepdims=keepdims)
            if reduced_size(v.shape, axes) - correction <= 0:
                # the standard asks for NaN here; NumPy divides by zero (inf)
                out = np.full_like(out, np.nan)
            return out

        return reduction(name, x, axis, keepdims, compute, dt)

    what = "variance" if name == "var" else "standard deviation"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""The {what} of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Numeric input; integer (and bool) input gives a float64 result, complex input the
        real dtype of the same precision (as in NumPy).
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    correction : int or float
        Degrees-of-freedom adjustment: the divisor is ``M - correction`` for ``M``
        elements (0 for the population {what}, 1 for Bessel's correction).
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        The {what}s; NaN where ``M - correction <= 0``.
    """
    return fn


def _fused_spread(name, x, axis, correction, keepdims, dt):
    """var or std in two passes over the (recomputed, never stored) input: the float64
    mean, then the float64 sum of squared deviations from it."""
    axes = normalize_axes(axis, x.ndim, name, x.shape)
    m = reduced_size(x.shape, axes)
    v = cast(x, float64)
    mean = reduce_node("sum", v, axes, True, float64) / float(m)
    mean._value()   # the first pass runs now, so the second recomputes v instead of storing it
    d = v - mean
    ss = reduce_node("sum", d * d, axes, keepdims, float64)
    with library_state():      # a fractional correction: rounded as the kernels round
        divisor = m - float(correction)
    out = ss / divisor if divisor > 0 else ss * float("nan")   # the standard's NaN
    if name == "std":
        out = FUNCTIONS["sqrt"](out)
    return cast(out, dt)


var = _spread("var", np.var)   # evaluates its mean on the way: nothing to replay
std = _spread("std", np.std)
