"""Statistical functions: reductions and cumulative sums and products.

They are not elementwise, so each evaluates its input and uses NumPy on the value.  Each is
a fusion boundary: the elementwise expression feeding it runs as its own kernel first.
(Fusing reductions into the kernel is a later step.)
"""

from __future__ import annotations

import numpy as np

from ._dtypes import canonical_dtype, float64, int64, uint64
from ._elementwise import astype
from ._tensor import Tensor
from ._args import check_kind, normalize_axis, quiet, reduced_size, wrap
from ._utility import reduction

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
        x = astype(x, dt)
    return x, dt


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
        The sums; an empty sum is 0.  Integer sums wrap around on overflow.
    """
    x, dt = _accumulation_input(x, dtype, "sum")
    return reduction("sum", x, axis, keepdims,
                  lambda v, axes: np.sum(v, axis=axes, dtype=dt, keepdims=keepdims), dt)


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
    """
    x, dt = _accumulation_input(x, dtype, "prod")
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


max = _extremum("max", np.max)
min = _extremum("min", np.min)


def _float_result(x, what):
    """The dtype of a mean, variance or standard deviation of ``x``: floating ``x`` keeps
    its dtype, integers and bools give the default float64."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    check_kind(x, what, _NUMERIC, "numeric")
    return x.dtype if x.dtype.kind in "fc" else float64


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


var = _spread("var", np.var)
std = _spread("std", np.std)
