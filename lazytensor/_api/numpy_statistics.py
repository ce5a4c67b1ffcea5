"""NumPy's statistics that are not ndarray methods: the ``nan*`` family, ``average``,
``diff`` with NumPy's signature, and the order statistics, histograms and covariances.

Recorded lazily (they fuse with the expression they reduce, nothing runs until a value is
read): ``nansum``, ``nanprod``, ``nanmean``, ``nanvar``, ``nanstd``, ``nanmax``, ``nanmin``
and ``average`` of real input, built from ``where(isnan(x), identity, x)`` and the
Array API reductions.  Computed by NumPy on the values (outside exact mode's promise):
``median``, ``percentile``, ``quantile`` and their ``nan`` forms, ``nanargmax``,
``nanargmin``, ``nancumsum``, ``nancumprod``, ``histogram`` (and ``2d``/``dd``/
``_bin_edges``), ``bincount``, ``cov``, ``corrcoef``, ``gradient``, ``ediff1d``,
``trapezoid``.  Complex input to the lazy ones is also computed by NumPy.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from .._engine.dtypes import float64
from .elementwise import FUNCTIONS, cast
from .._engine.dtypes import python_scalar_type
from .._engine.tensor import Tensor
from .args import normalize_axes, normalize_axis, reduced_size
from .creation import full
from .manipulation import broadcast_to, permute_dims, reshape
from .ndarray_args import to_reduction_out, zero_d_axis
from .numpy_values import as_tensor, call_numpy, on_values
from .statistical import max as _max, mean as _mean, min as _min, prod as _prod, sum as _sum
from .utility import all as _all, any as _any, diff as _std_diff

__all__ = ['average', 'bincount', 'corrcoef', 'cov', 'diff', 'ediff1d', 'gradient',
           'histogram', 'histogram2d', 'histogram_bin_edges', 'histogramdd', 'median',
           'nanargmax', 'nanargmin', 'nancumprod', 'nancumsum', 'nanmax', 'nanmean',
           'nanmedian', 'nanmin', 'nanpercentile', 'nanprod', 'nanquantile', 'nanstd',
           'nansum', 'nanvar', 'percentile', 'quantile', 'trapezoid']

_where, _isnan, _sqrt = FUNCTIONS["where"], FUNCTIONS["isnan"], FUNCTIONS["sqrt"]
_NoValue = np._NoValue


# ---- computed by NumPy on the values -----------------------------------------------------

_ON_VALUES = {
    "median": (np.median, "Median along ``axis``."),
    "percentile": (np.percentile, "The ``q``-th percentiles (0-100) along ``axis``."),
    "quantile": (np.quantile, "The ``q``-th quantiles (0-1) along ``axis``."),
    "nanmedian": (np.nanmedian, "Median along ``axis``, ignoring NaNs."),
    "nanpercentile": (np.nanpercentile, "Percentiles along ``axis``, ignoring NaNs."),
    "nanquantile": (np.nanquantile, "Quantiles along ``axis``, ignoring NaNs."),
    "nanargmax": (np.nanargmax, "Index of the largest value, ignoring NaNs (ValueError for "
                                "an all-NaN slice)."),
    "nanargmin": (np.nanargmin, "Index of the smallest value, ignoring NaNs (ValueError for "
                                "an all-NaN slice)."),
    "nancumsum": (np.nancumsum, "Cumulative sum with NaNs counted as zero (the flattened "
                                "input when ``axis`` is None)."),
    "nancumprod": (np.nancumprod, "Cumulative product with NaNs counted as one."),
    "histogram": (np.histogram, "Histogram of ``a``: ``(hist, bin_edges)``."),
    "histogram2d": (np.histogram2d, "Two-dimensional histogram: ``(H, xedges, yedges)``."),
    "histogramdd": (np.histogramdd, "Multidimensional histogram: ``(H, edges)``."),
    "histogram_bin_edges": (np.histogram_bin_edges, "The bin edges ``histogram`` would use."),
    "bincount": (np.bincount, "Number of occurrences of each non-negative integer (the "
                              "summed ``weights``), at least ``minlength`` bins."),
    "cov": (np.cov, "Covariance matrix of the variables in ``m`` (rows by default)."),
    "corrcoef": (np.corrcoef, "Pearson correlation coefficients of the variables in ``x``."),
    "gradient": (np.gradient, "Gradient by central differences (one-sided at the edges)."),
    "ediff1d": (np.ediff1d, "Differences between consecutive elements of the flattened "
                            "input."),
    "trapezoid": (np.trapezoid, "Integral along ``axis`` by the trapezoidal rule."),
}
globals().update({name: on_values(name, fn, doc) for name, (fn, doc) in _ON_VALUES.items()})


# ---- recorded lazily ---------------------------------------------------------------------

def _writes_out(fn):
    """``fn`` (a lazy reduction taking NumPy's ``out=``) with its result written into
    ``out`` when one is given, and ``out`` returned, as NumPy does (``to_reduction_out``)."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        out = bound.arguments.pop("out", None)
        return to_reduction_out(fn(*bound.args, **bound.kwargs), out, fn.__name__)
    return wrapped


def _real_input(a, name: str, out, extra):
    """``a`` as a Tensor for the lazy path; None when NumPy must compute instead (complex
    input).  ``extra`` holds NumPy's ``initial=``/``where=``, which are not supported."""
    for key, value in extra.items():
        if value is not _NoValue:
            raise TypeError(f"{name}: {key}= is not supported; mask the input with "
                            f"lt.where(...) first")
    a = as_tensor(a, name)
    if a.dtype.kind not in "biufc":
        raise TypeError(f"{name} needs a numeric tensor, got {a.dtype.name}")
    return None if a.dtype.kind == "c" else a


def _axes(axis, x, name: str) -> tuple:
    """The reduced axes, normalized; a 0-d ``x`` takes axis 0 or -1 as NumPy's reductions do."""
    return normalize_axes(zero_d_axis(axis, x), x.ndim, name, x.shape)


def _nan_filled(a, fill):
    """``where(isnan(a), fill, a)`` for floating ``a``; integers have no NaN."""
    return _where(_isnan(a), fill, a) if a.dtype.kind == "f" else a


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue,
           where=_NoValue):
    """Sum along ``axis`` treating NaNs as zero (recorded lazily: one fused reduction).

    Parameters
    ----------
    a : Tensor or array_like
    axis : int or tuple of ints, optional
        Axes to reduce (all by default).
    dtype : dtype, optional
        As in :func:`lazytensor.sum` (integers widen to int64/uint64).
    keepdims : bool
        Keep the reduced axes as length-one axes.

    Returns
    -------
    Tensor
        The sums; an all-NaN or empty slice sums to 0.  ``initial=`` and ``where=`` are
        not supported; ``out=`` is written as NumPy writes it.
    """
    x = _real_input(a, "nansum", out, {"initial": initial, "where": where})
    if x is None:
        return call_numpy("nansum", np.nansum, a, axis=axis, dtype=dtype, keepdims=keepdims)
    axes = _axes(axis, x, "nansum")
    return _sum(_nan_filled(x, 0), axis=axes, dtype=dtype, keepdims=bool(keepdims))


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue,
            where=_NoValue):
    """Product along ``axis`` treating NaNs as one (recorded lazily).

    Parameters and results as in :func:`nansum`; an all-NaN or empty slice gives 1.
    """
    x = _real_input(a, "nanprod", out, {"initial": initial, "where": where})
    if x is None:
        return call_numpy("nanprod", np.nanprod, a, axis=axis, dtype=dtype, keepdims=keepdims)
    axes = _axes(axis, x, "nanprod")
    return _prod(_nan_filled(x, 1), axis=axes, dtype=dtype, keepdims=bool(keepdims))


def _count(x, axes, keepdims):
    """float64 number of non-NaN elements of float ``x`` over ``axes`` (lazy)."""
    return cast(_sum(~_isnan(x), axis=axes, keepdims=keepdims), float64)


def _result_dtype(x, dtype):
    """NumPy's dtype of a mean or spread: ``dtype`` if given, float64 for integers and
    bools, else ``x``'s."""
    if dtype is not None:
        return np.dtype(dtype)
    return float64 if x.dtype.kind in "biu" else x.dtype


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NoValue):
    """Mean along ``axis`` ignoring NaNs (recorded lazily: sums and counts fuse).

    Parameters
    ----------
    a : Tensor or array_like
    axis : int or tuple of ints, optional
    dtype : dtype, optional
        The result dtype; by default float64 for integer input, else ``a``'s.
    keepdims : bool

    Returns
    -------
    Tensor
        The means, summed in float64 and rounded once; an all-NaN (or empty) slice gives
        NaN (NumPy also warns; a lazy result cannot).
    """
    x = _real_input(a, "nanmean", out, {"where": where})
    if x is None:
        return call_numpy("nanmean", np.nanmean, a, axis=axis, dtype=dtype, keepdims=keepdims)
    dt = _result_dtype(x, dtype)
    axes = _axes(axis, x, "nanmean")
    if x.dtype.kind != "f":
        return cast(_mean(x, axis=axes, keepdims=bool(keepdims)), dt)
    total = _sum(cast(_nan_filled(x, 0), float64), axis=axes, keepdims=bool(keepdims))
    return cast(total / _count(x, axes, bool(keepdims)), dt)


def _nan_spread(name, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    x = _real_input(a, name, out, {"where": where, "mean": mean})
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError(f"{name}: ddof and correction can't be provided simultaneously")
        ddof = correction
    if x is None:
        fn = np.nanvar if name == "nanvar" else np.nanstd
        return call_numpy(name, fn, a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    dt = _result_dtype(x, dtype)
    axes = _axes(axis, x, name)
    v = cast(x, float64)
    if x.dtype.kind == "f":
        missing = _isnan(x)
        count = _count(x, axes, True)    # counted again below without kept dims: both
        # counts run in the kernel of the first pass (a reshape would evaluate here)
        avg = _sum(_where(missing, 0.0, v), axis=axes, keepdims=True) / count
        dev = _where(missing, 0.0, v - avg)
        dof = _count(x, axes, bool(keepdims)) - float(ddof)
        ss = _sum(dev * dev, axis=axes, keepdims=bool(keepdims))
        # NumPy's: no degrees of freedom left gives NaN (and a warning)
        out_ = _where(dof > 0, ss / dof, float("nan"))
    else:   # integers: NumPy's var, dividing by M - ddof even when that is <= 0
        dev = v - _sum(v, axis=axes, keepdims=True) / float(reduced_size(x.shape, axes))
        out_ = _sum(dev * dev, axis=axes, keepdims=bool(keepdims)) / (
            float(reduced_size(x.shape, axes)) - float(ddof))
    if name == "nanstd":
        out_ = _sqrt(out_)
    return cast(out_, dt)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NoValue,
           mean=_NoValue, correction=_NoValue):
    """Variance along ``axis`` ignoring NaNs (recorded lazily, in float64).

    Parameters
    ----------
    a : Tensor or array_like
    axis : int or tuple of ints, optional
    dtype : dtype, optional
        The result dtype; by default float64 for integer input, else ``a``'s.
    ddof, correction : int or float
        The divisor is ``N - ddof`` for ``N`` non-NaN elements (give one of the two).
    keepdims : bool

    Returns
    -------
    Tensor
        NaN where ``N - ddof <= 0`` (all-NaN slices included).  ``where=`` and ``mean=``
        are not supported.
    """
    return _nan_spread("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NoValue,
           mean=_NoValue, correction=_NoValue):
    """Standard deviation along ``axis`` ignoring NaNs: ``sqrt(nanvar(...))``, recorded
    lazily; parameters as in :func:`nanvar`."""
    return _nan_spread("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def _nan_extremum(name, reduce, fill):
    def fn(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=_NoValue):
        x = _real_input(a, name, out, {"initial": initial, "where": where})
        if x is None:
            return call_numpy(name, getattr(np, name), a, axis=axis, keepdims=keepdims)
        axes = _axes(axis, x, name)
        if x.dtype.kind != "f":
            return reduce(x, axis=axes, keepdims=bool(keepdims))
        missing = _isnan(x)
        best = reduce(_where(missing, fill, x), axis=axes, keepdims=bool(keepdims))
        # an all-NaN slice gives NaN (NumPy also warns; a lazy result cannot)
        return _where(_all(missing, axis=axes, keepdims=bool(keepdims)), float("nan"), best)

    word = "largest" if fill < 0 else "smallest"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""The {word} value along ``axis``, ignoring NaNs (recorded lazily).

    Parameters
    ----------
    a : Tensor or array_like
    axis : int or tuple of ints, optional
    keepdims : bool

    Returns
    -------
    Tensor
        Of ``a``'s dtype; NaN for an all-NaN slice, ValueError for an empty one.
        ``initial=`` and ``where=`` are not supported; ``out=`` is written as NumPy
        writes it.
    """
    return fn


nanmax = _nan_extremum("nanmax", _max, -np.inf)
nanmin = _nan_extremum("nanmin", _min, np.inf)
nansum, nanprod, nanmean, nanvar, nanstd, nanmax, nanmin = map(
    _writes_out, (nansum, nanprod, nanmean, nanvar, nanstd, nanmax, nanmin))


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted average along ``axis`` (recorded lazily).

    Parameters
    ----------
    a : Tensor or array_like
    axis : int or tuple of ints, optional
    weights : Tensor or array_like, optional
        The shape of ``a``, or (with ``axis``) the shape of ``a`` along ``axis``.
    returned : bool
        Also return the sum of the weights (broadcast to the result's shape).
    keepdims : bool

    Returns
    -------
    Tensor or (Tensor, Tensor)
        Float64 for integer input, else NumPy's promoted dtype.  Weights that sum to
        zero raise ZeroDivisionError, as in NumPy: that check reads the sum of the weights
        (the average itself stays pending).
    """
    x = as_tensor(a, "average")
    axes = normalize_axes(axis, x.ndim, "average", x.shape)
    keep = bool(keepdims)
    if weights is None:
        avg = _mean(x, axis=axes, keepdims=keep)
        scale = full(avg.shape, x.size / avg.size if avg.size else float("nan"),
                     dtype=avg.dtype)
    else:
        w = as_tensor(weights, "average")
        dt = np.result_type(x.dtype, w.dtype, *(["f8"] if x.dtype.kind in "biu" else []))
        if w.shape != x.shape:
            if axis is None:
                raise TypeError("average: axis must be specified when the shapes of a "
                                f"{x.shape} and weights {w.shape} differ")
            given = tuple(ax % x.ndim for ax in (axis if isinstance(axis, (tuple, list))
                                                  else (axis,)))
            if w.shape != tuple(x.shape[ax] for ax in given):
                raise ValueError(f"average: the shape of weights {w.shape} must be the shape "
                                 f"of a {x.shape} along axis {axis}")
            # weights' axes in a's order, then size-1 axes where a is not reduced
            order = tuple(sorted(range(len(given)), key=lambda i: given[i]))
            w = reshape(permute_dims(w, order),
                        tuple(n if i in axes else 1 for i, n in enumerate(x.shape)))
        w = cast(w, dt)
        scale = _sum(broadcast_to(w, x.shape) if w.shape != x.shape else w, axis=axes,
                     keepdims=keep)
        if bool(_any(scale == 0)):
            raise ZeroDivisionError("average: weights sum to zero, can't be normalized")
        avg = _sum(cast(x, dt) * w, axis=axes, keepdims=keep) / scale
        if returned and scale.shape != avg.shape:
            scale = broadcast_to(scale, avg.shape)
    return (avg, scale) if returned else avg


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis``, with NumPy's signature.

    ``lazytensor.diff`` of the Array API with ``n`` and ``axis`` also positional (as in
    NumPy) and array_like input; see that function for the rules (bool input differences
    with ``!=``; ``prepend``/``append`` join values first).
    """
    x = as_tensor(a, "diff")
    edges = {}
    for key, value in (("prepend", prepend), ("append", append)):
        if value is None or isinstance(value, Tensor) or python_scalar_type(value):
            edges[key] = value
            continue
        edge = as_tensor(value, "diff")       # an array_like, joined as an array (NumPy's)
        if edge.ndim == 0 and x.ndim:         # a 0-d one is repeated across the other axes
            ax = normalize_axis(axis, x.ndim, "diff", x.shape)
            edge = broadcast_to(edge, x.shape[:ax] + (1,) + x.shape[ax + 1:])
        edges[key] = edge
    return _std_diff(x, axis=axis, n=n, **edges)
