"""Statistical functions: reductions and cumulative sums and products.

``sum``, ``prod``, ``max``, ``min``, ``mean``, ``var`` and ``std`` (and ``any``/``all`` in
``utility.py``) record a ``reduce`` node: the kernel that computes the elementwise input
reduces it chunk by chunk, so the input is never stored (see docs/architecture.md,
"Fused reductions").  Accumulation: float sums, products and means in float64 (float32
and float16 values are rounded once at the end); integer sums and products wrap around in
64 bits; max and min in the input's dtype.  Complex sums and means add the parts in
float64, complex products multiply in complex128 (docs/complex.md); complex max and min
still evaluate and use NumPy.
The cumulative functions evaluate their input and use NumPy.
"""

from __future__ import annotations

import numpy as np

from .._engine.dtypes import canonical_dtype, float32, float64, int64, uint64
from .elementwise import FUNCTIONS, astype, cast, complex_of, complex_part
from .._engine.fpenv import library_state
from .._engine.tensor import Tensor
from .._engine.record import reduce_node
from .args import (check_kind, normalize_axes, normalize_axis, quiet, reduced_size, reduction,
                   wrap)
from . import dask_arrays as _dask
from .creation import full
from .manipulation import broadcast_to, diagonal, reshape
from .ndarray_args import (NoValue, check_out, identity_of, mask, operand, to_reduction_out,
                           zero_d_axis)
from .._engine.replay import memoized

__all__ = ['amax', 'amin', 'cumprod', 'cumsum', 'cumulative_prod', 'cumulative_sum', 'max',
           'mean', 'min', 'prod', 'ptp', 'std', 'sum', 'trace', 'var']

_where = FUNCTIONS["where"]

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
    x = operand(x, what)
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
    """sum or prod of ``x`` in ``dt``: cast to ``dt``, reduce in float64 (complex128 for a
    complex prod) or in 64-bit integers, round once to ``dt``."""
    v = cast(x, dt)
    if dt.kind == "c":
        acc = np.dtype(np.complex128)
    elif dt.kind == "f":
        if dt.itemsize == 2:
            v = cast(v, float32)   # exact; the float16 result is rounded once at the end
        acc = float64
    else:
        v = cast(v, uint64 if dt.kind == "u" else int64)
        acc = v.dtype
    return cast(reduce_node(op, v, axes, keepdims, acc), dt)


def _np_mask(m):
    """A mask tensor as NumPy's ``where=`` (for the reductions NumPy computes)."""
    return True if m is None else m._value()


def _initial_in(initial, dt, what):
    """NumPy's ``initial=`` as a Python scalar of ``dt`` (NumPy casts it to the reduction's
    dtype first, unsafely: 2.5 is 2 for an integer reduction)."""
    try:
        with quiet():
            value = np.asarray(initial)
            if value.ndim or value.dtype.kind not in "biufc":
                raise TypeError
            return value.astype(dt).item()
    except (TypeError, ValueError):
        raise TypeError(f"{what}: initial must be a number, got {initial!r}") from None


def _reduced_shape(shape, axes, keepdims):
    return tuple(1 if d in axes else n for d, n in enumerate(shape)
                 if keepdims or d not in axes)


def _full_mask(m, shape):
    """The mask ``m`` broadcast to the input's ``shape`` (for counting the elements)."""
    return m if m.shape == shape else broadcast_to(m, shape)


def _accumulate(op, x, axis, dtype, out, keepdims, initial, where):
    """sum or prod with NumPy's arguments: ``where=`` masks to the identity (recorded, so
    the reduction stays fused), ``initial=`` is combined with the result."""
    if type(x) is not Tensor and _dask.is_dask(x):
        return _dask.reduction(op, x, axis, keepdims, out=out, where=where, initial=initial,
                               dtype=dtype)
    x = operand(x, op)
    check_out(out, op)
    axis = zero_d_axis(axis, x)
    x, dt = _accumulation_input(x, dtype, op)
    m = mask(where, x, op)
    unit = 0 if op == "sum" else 1
    # complex: a prod multiplies complex accumulators; a sum adds the parts apart
    fused = x.dtype.kind != "c" and dt.kind in "iuf" or op == "prod" and dt.kind == "c"
    if fused or op == "sum" and dt.kind == "c":
        if m is not None:
            x = _where(m, x, identity_of(x.dtype, unit))
        axes = normalize_axes(axis, x.ndim, op, x.shape)
        if fused:
            result = _fused_accumulation(op, x, dt, axes, keepdims)
        else:   # complex: the sums of the parts, fused into x's kernel, joined
            x, part = cast(x, dt), np.dtype(dt.char.lower())
            result = complex_of(*(_fused_accumulation(op, complex_part(p, x), part, axes,
                                                      keepdims) for p in ("real", "imag")))
        if initial is not NoValue:
            init = _initial_in(initial, dt, op)
            result = cast(result + init if op == "sum" else result * init, dt)
    else:
        np_fn = np.sum if op == "sum" else np.prod
        result = reduction(op, x, axis, keepdims,
                           lambda v, axes: np_fn(v, axis=axes, dtype=dt, keepdims=keepdims,
                                                 initial=initial, where=_np_mask(m)), dt)
    return to_reduction_out(result, out, op)


@memoized
def sum(x, /, axis=None, dtype=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Sum of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor or array-like
        Numeric (or bool) input.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    dtype : dtype, optional
        Dtype to compute and return in.  By default ``x``'s, except that integers narrower
        than 64 bits widen to int64 (signed, and bool) or uint64 (unsigned).
    out : numpy.ndarray, optional
        NumPy's: a NumPy array to write the result into (and return).  A Tensor cannot be
        written into yet: ``lazytensor.Unsupported``.
    keepdims : bool
        Keep the reduced axes as length-one axes.
    initial : scalar, optional
        NumPy's: a value added to each sum (cast to ``dtype`` first).
    where : bool tensor or array-like, optional
        NumPy's: only the elements where it is true are summed (it broadcasts to ``x``).

    Returns
    -------
    Tensor
        The sums; an empty sum is 0.  Integer sums wrap around on overflow.  Float sums
        are accumulated in float64 and rounded once to ``dtype``, in a fixed order
        (the same bits for every thread count and kernel path).
    """
    return _accumulate("sum", x, axis, dtype, out, keepdims, initial, where)


@memoized
def prod(x, /, axis=None, dtype=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Product of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor or array-like
        Numeric (or bool) input.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    dtype : dtype, optional
        Dtype to compute and return in; the default is as for :func:`sum`.
    out : numpy.ndarray, optional
        As for :func:`sum`.
    keepdims : bool
        Keep the reduced axes as length-one axes.
    initial : scalar, optional
        NumPy's: a factor of each product (cast to ``dtype`` first).
    where : bool tensor or array-like, optional
        NumPy's: only the elements where it is true are multiplied.

    Returns
    -------
    Tensor
        The products; an empty product is 1.  Integer products wrap around on overflow.
        Float products are accumulated in float64 and complex products in complex128 (the
        library's complex multiplication, in a fixed order: the same bits for every thread
        count and kernel path), rounded once to ``dtype``.
    """
    return _accumulate("prod", x, axis, dtype, out, keepdims, initial, where)


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


def _numpy_cumulative(name, standard):
    def fn(x, /, axis=None, dtype=None, out=None):
        x = operand(x, name)
        check_out(out, name)
        if axis is None:       # NumPy's: the flattened tensor
            x, axis = reshape(x, (-1,)), 0
        return to_reduction_out(standard(x, axis=axis, dtype=dtype), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""NumPy's {name}: the running {standard.__name__.split('_')[1]}s of ``x`` along
    ``axis``, of the flattened ``x`` when ``axis`` is None (the Array API's
    :func:`{standard.__name__}` requires an axis for more than one dimension).

    Parameters
    ----------
    x : Tensor or array-like
    axis : int, optional
    dtype : dtype, optional
        As for :func:`sum`.
    out : Tensor or numpy.ndarray, optional
        Written with the result and returned (a Tensor as NumPy writes an array).
    """
    return fn


cumsum = _numpy_cumulative("cumsum", cumulative_sum)
cumprod = _numpy_cumulative("cumprod", cumulative_prod)


def _extremum(name, np_fn):
    def fn(x, /, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
        if type(x) is not Tensor and _dask.is_dask(x):
            return _dask.reduction(name, x, axis, keepdims, out=out, where=where,
                                   initial=initial)
        x = operand(x, name)
        check_out(out, name)
        axis = zero_d_axis(axis, x)
        m = mask(where, x, name)
        if m is not None and initial is NoValue:
            raise ValueError(f"{name}: reduction operation '{name}imum' does not have an "
                             f"identity, so to use a where mask one has to specify 'initial'")
        if x.dtype.kind in "biuf":
            axes = normalize_axes(axis, x.ndim, name, x.shape)
            init = None if initial is NoValue else _initial_in(initial, x.dtype, name)
            if reduced_size(x.shape, axes) == 0:
                if init is None:
                    raise ValueError(f"{name}: the {name}imum of zero elements is undefined "
                                     f"(tensor shape {x.shape}, axis {axis})")
                return to_reduction_out(full(_reduced_shape(x.shape, axes, keepdims), init,
                                   dtype=x.dtype), out, name)
            if m is not None:
                x = _where(m, x, init)
            v = cast(x, float32) if x.dtype.kind == "f" and x.dtype.itemsize == 2 else x
            result = cast(reduce_node(name, v, axes, keepdims, v.dtype), x.dtype)
            if init is not None:   # (bools: or/and, the max/min of truth values)
                result = FUNCTIONS[("logical_or" if name == "max" else "logical_and")
                                   if x.dtype.kind == "b" else name + "imum"](result, init)
            return to_reduction_out(result, out, name)

        def compute(v, axes):
            if reduced_size(v.shape, axes) == 0 and initial is NoValue:
                raise ValueError(f"{name}: the {name}imum of zero elements is undefined "
                                 f"(tensor shape {x.shape}, axis {axis})")
            return np_fn(v, axis=axes, keepdims=keepdims, initial=initial,
                         where=_np_mask(m))

        return to_reduction_out(reduction(name, x, axis, keepdims, compute), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""{name.capitalize()}imum of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor or array-like
        Input; NaNs propagate.  Complex values are ordered lexicographically (real part
        first) and bools as 0 and 1, as in NumPy.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    out : Tensor or numpy.ndarray, optional
        NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
    keepdims : bool
        Keep the reduced axes as length-one axes.
    initial : scalar, optional
        NumPy's: a value that takes part in every {name}imum (cast to ``x``'s dtype); it
        is the result of an empty one.
    where : bool tensor or array-like, optional
        NumPy's: only the elements where it is true take part (needs ``initial``).

    Returns
    -------
    Tensor
        The {name}ima, of ``x``'s dtype.

    Raises
    ------
    ValueError
        If an axis to reduce has length zero and no ``initial`` is given (the {name}imum
        of nothing is undefined).
    """
    return fn


max = memoized(_extremum("max", np.max))
min = memoized(_extremum("min", np.min))
amax, amin = max, min   # NumPy's aliases


def _float_result(x, what):
    """The dtype of a mean, variance or standard deviation of ``x``: floating ``x`` keeps
    its dtype, integers and bools give the default float64."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    check_kind(x, what, _NUMERIC, "numeric")
    return x.dtype if x.dtype.kind in "fc" else float64


def _given_float(dt, dtype, what):
    """NumPy's ``dtype=`` of mean, var and std: a real float one is the result's dtype,
    rounded once from the float64 computation (``(dt, None)``); another (an integer...)
    is a cast of the default result (``(dt, dtype)``)."""
    if dtype is None:
        return dt, None
    given = canonical_dtype(dtype, where=what)
    return (given, None) if given.kind == "f" and dt.kind == "f" else (dt, given)


@memoized
def mean(x, /, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor or array-like
        Numeric input; integer (and bool) input gives a float64 result.
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    dtype : dtype, optional
        NumPy's: the result's dtype (computed as by default, then cast once).
    out : Tensor or numpy.ndarray, optional
        NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
    keepdims : bool
        Keep the reduced axes as length-one axes.
    where : bool tensor or array-like, optional
        NumPy's: the mean of the elements where it is true (recorded: it stays fused).

    Returns
    -------
    Tensor
        The means, of ``x``'s floating dtype; the mean of zero elements is NaN
        (NaN + NaN j for complex input).
    """
    if type(x) is not Tensor and _dask.is_dask(x):
        return _dask.reduction("mean", x, axis, keepdims, out=out, where=where, dtype=dtype)
    x = operand(x, "mean")
    check_out(out, "mean")
    dt = _float_result(x, "mean")
    dt, dtype = _given_float(dt, dtype, "mean")
    m = mask(where, x, "mean")
    if x.dtype.kind == "c":   # the means of the parts (fused into x's kernel), joined
        result = complex_of(*(mean(complex_part(p, x), axis, keepdims=keepdims, where=where)
                              for p in ("real", "imag")))
    else:
        axes = normalize_axes(axis, x.ndim, "mean", x.shape)
        v = cast(x, float32 if x.dtype.kind == "f" and x.dtype.itemsize == 2
                   else dt if x.dtype.kind in "biu" else x.dtype)
        if m is None:
            total = reduce_node("sum", v, axes, keepdims, float64)
            # float64 sum / M (0 / 0 is NaN for an empty mean), rounded once to the dtype
            result = cast(total / float(reduced_size(x.shape, axes)), dt)
        else:
            total = reduce_node("sum", _where(m, v, 0), axes, keepdims, float64)
            count = reduce_node("sum", cast(_full_mask(m, x.shape), float64), axes,
                                keepdims, float64)
            result = cast(total / count, dt)
    if dtype is not None:
        result = astype(result, dtype, copy=False)
    return to_reduction_out(result, out, "mean")


def _spread(name, np_fn):
    def fn(x, /, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
           mean=NoValue, correction=NoValue):
        if type(x) is not Tensor and _dask.is_dask(x):
            return _dask.reduction(name, x, axis, keepdims, out=out, where=where, mean=mean,
                                   dtype=dtype,
                                   ddof=ddof if correction is NoValue else correction)
        x = operand(x, name)
        check_out(out, name)
        if correction is NoValue:
            correction = ddof
        elif ddof != 0:
            raise ValueError(f"{name}: ddof and correction can't be provided "
                             f"simultaneously (ddof is NumPy's name for correction)")
        dt = _float_result(x, name)
        if x.dtype.kind == "c":   # NumPy's: the spread of complex values is real
            dt = np.dtype(dt.char.lower())
        dt, dtype = _given_float(dt, dtype, name)
        if isinstance(correction, bool) or not isinstance(correction, (int, float, np.integer,
                                                                       np.floating)):
            raise TypeError(f"{name}: correction must be a real number, got {correction!r}")
        m = mask(where, x, name)

        if x.dtype.kind != "c":
            result = _fused_spread(name, x, axis, correction, keepdims, dt, m, mean)
        else:
            def compute(v, axes):
                out = np_fn(v, axis=axes, ddof=correction, keepdims=keepdims,
                            where=_np_mask(m), mean=mean)
                n = reduced_size(v.shape, axes) if m is None else np.sum(
                    np.broadcast_to(m._value(), v.shape), axis=axes, keepdims=keepdims)
                # the standard asks for NaN here; NumPy divides by zero (inf)
                return np.where(n - correction <= 0, np.nan, out)

            result = reduction(name, x, axis, keepdims, compute, dt)
        if dtype is not None:
            result = astype(result, dtype, copy=False)
        return to_reduction_out(result, out, name)

    what = "variance" if name == "var" else "standard deviation"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""The {what} of the elements of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor or array-like
        Numeric input; integer (and bool) input gives a float64 result, complex input the
        real dtype of the same precision (as in NumPy).
    axis : int or tuple of ints, optional
        Axes to reduce (all by default); negative axes count from the end.
    dtype : dtype, optional
        NumPy's: the result's dtype (computed in float64, then cast once).
    out : Tensor or numpy.ndarray, optional
        NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
    ddof : int or float
        NumPy's name for ``correction`` (give one of the two).
    keepdims : bool
        Keep the reduced axes as length-one axes.
    where : bool tensor or array-like, optional
        NumPy's: the {what} of the elements where it is true.
    mean : Tensor or array-like, optional
        NumPy's: the mean, already computed (shaped as with ``keepdims=True``).
    correction : int or float
        Degrees-of-freedom adjustment: the divisor is ``M - correction`` for ``M``
        elements (0 for the population {what}, 1 for Bessel's correction).

    Returns
    -------
    Tensor
        The {what}s; NaN where ``M - correction <= 0`` (the standard's rule; NumPy gives
        inf where the sum of squares is not zero).
    """
    return fn


def _fused_spread(name, x, axis, correction, keepdims, dt, m=None, given_mean=NoValue):
    """var or std in two passes over the (recomputed, never stored) input: the float64
    mean, then the float64 sum of squared deviations from it.  A mask ``m`` (NumPy's
    ``where=``) is recorded: masked elements count neither in the mean nor in the sum."""
    axes = normalize_axes(axis, x.ndim, name, x.shape)
    v = cast(x, float64)
    if m is None:
        size = reduced_size(x.shape, axes)
        mean = reduce_node("sum", v, axes, True, float64) / float(size)
    else:
        weight = cast(_full_mask(m, x.shape), float64)
        size = reduce_node("sum", weight, axes, keepdims, float64)
        mean = (reduce_node("sum", _where(m, v, 0.0), axes, True, float64)
                / reduce_node("sum", weight, axes, True, float64))
    if given_mean is not NoValue:
        mean = cast(operand(given_mean, name), float64)
    mean._value()   # the first pass runs now, so the second recomputes v instead of storing it
    d = v - mean
    if m is not None:
        d = _where(m, d, 0.0)
    ss = reduce_node("sum", d * d, axes, keepdims, float64)
    if m is None:
        with library_state():      # a fractional correction: rounded as the kernels round
            divisor = size - float(correction)
        out = ss / divisor if divisor > 0 else ss * float("nan")   # the standard's NaN
    else:
        divisor = size - float(correction)
        out = _where(divisor > 0, ss / divisor, float("nan"))
    if name == "std":
        out = FUNCTIONS["sqrt"](out)
    return cast(out, dt)


var = _spread("var", np.var)   # evaluates its mean on the way: nothing to replay
std = _spread("std", np.std)


def ptp(x, /, axis=None, out=None, keepdims=False):
    """NumPy's peak to peak: ``max(x) - min(x)`` along ``axis`` (recorded: both
    reductions and the difference stay lazy).

    Parameters
    ----------
    x : Tensor or array-like
        Numeric input (bools are refused, as NumPy refuses to subtract them).
    axis : int or tuple of ints, optional
    out : numpy.ndarray, optional
    keepdims : bool

    Returns
    -------
    Tensor
        ``x``'s dtype; integers wrap around as NumPy's do.
    """
    x = operand(x, "ptp")
    check_out(out, "ptp")
    if x.dtype.kind == "b":
        raise TypeError("ptp does not take bool tensors: NumPy's boolean subtract is not "
                        "supported; cast with astype first")
    result = max(x, axis=axis, keepdims=keepdims) - min(x, axis=axis, keepdims=keepdims)
    return to_reduction_out(result, out, "ptp")


def trace(x, /, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's trace: the sum along the diagonal of ``x`` (over ``axis1`` and ``axis2``).

    Parameters
    ----------
    x : Tensor or array-like
        At least two dimensions.
    offset : int
        The diagonal's offset from the main one (positive: above it).
    axis1, axis2 : int
        The axes of the 2-d planes whose diagonals are summed.
    dtype : dtype, optional
        As for :func:`sum` (integers widen to 64 bits by default, as in NumPy).
    out : numpy.ndarray, optional

    Returns
    -------
    Tensor
        The traces: ``x``'s shape without ``axis1`` and ``axis2``.
    """
    check_out(out, "trace")
    d = diagonal(operand(x, "trace"), offset, axis1, axis2)
    return to_reduction_out(sum(d, axis=-1, dtype=dtype), out, "trace")
