"""NumPy's creation and manipulation names beside the Array API's: ``array``,
``concatenate``, the ``*stack`` and ``*split`` families, ``pad``, ``rot90``, ``atleast_*d``,
``append``/``insert``/``delete``, NumPy's ``unique``, ``diag``, ``tri``, ``indices``,
``fromfunction``, ``mgrid``/``ogrid``/``r_``/``c_``, ``logspace``/``geomspace``, ``identity``,
the ``as*array`` conversions, window functions.

Views of an input (``fliplr``, ``flipud``, ``rot90``, ``atleast_*d``) are recorded through
lazytensor's own functions and stay lazy; functions that build new values run NumPy's own on
the values (as ``lt.concat`` does) and return tensors.
"""

from __future__ import annotations

import numpy as np

from .._engine import views as _views
from .._engine.tensor import Tensor
from .args import integer_arg, normalize_axis
from .creation import asarray, eye
from .manipulation import flip, permute_dims, reshape, stack as _std_stack, unstack
from .numpy_dtypes import as_dtype
from .numpy_values import call_numpy, on_values, to_numpy, to_tensors


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """A tensor from ``object`` (NumPy's ``array``: a copy by default).

    Parameters
    ----------
    object : Tensor, array-like, Python scalar or nested sequence
    dtype : dtype, optional
        Inferred as NumPy does by default (Python ints give int64, floats float64).
    copy : bool or None
        ``True`` (the default) copies; ``None`` only when needed; ``False`` never
        (``ValueError`` if a copy is needed), as in NumPy 2.
    order : {"K", "A", "C", "F"}
        Accepted for compatibility; a tensor's layout is lazytensor's to choose (values
        are the same).
    ndmin : int
        Leading axes of length one are added up to this many dimensions.
    """
    if order not in ("K", "A", "C", "F", None):
        raise ValueError(f"array: order must be one of 'K', 'A', 'C', 'F', got {order!r}")
    t = asarray(object, dtype=as_dtype(dtype), copy=copy)
    ndmin = integer_arg(ndmin, "array", "ndmin")
    if t.ndim < ndmin:
        t = reshape(t, (1,) * (ndmin - t.ndim) + t.shape)
    return t


def identity(n, dtype=None, *, like=None):
    """The ``n`` by ``n`` identity matrix (float64 by default)."""
    return eye(integer_arg(n, "identity", "n"), dtype=as_dtype(dtype))


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function(*indices)``: the function is called once with one tensor of coordinates
    per axis (of ``dtype``, float64 by default), as NumPy does; lazytensor functions in it
    are recorded lazily."""
    return function(*unstack(indices(shape, dtype=dtype)), **kwargs)


class _Grid:
    """``mgrid`` / ``ogrid``: NumPy's index tricks, returning tensors."""

    def __init__(self, np_grid, name):
        self._grid, self._name = np_grid, name

    def __getitem__(self, key):
        return to_tensors(self._grid[key])

    def __repr__(self):
        return f"lazytensor.{self._name}"


mgrid = _Grid(np.mgrid, "mgrid")
ogrid = _Grid(np.ogrid, "ogrid")


def _tensor(x, what):
    return x if isinstance(x, Tensor) else asarray(x)


def fliplr(m, /):
    """``m`` with its columns reversed (axis 1; a view)."""
    m = _tensor(m, "fliplr")
    if m.ndim < 2:
        raise ValueError(f"fliplr: the input must have at least 2 dimensions, got shape "
                         f"{m.shape}")
    return flip(m, axis=1)


def flipud(m, /):
    """``m`` with its rows reversed (axis 0; a view)."""
    m = _tensor(m, "flipud")
    if m.ndim < 1:
        raise ValueError("flipud: the input must have at least 1 dimension, got a 0-d tensor")
    return flip(m, axis=0)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``, from the first
    axis toward the second (NumPy's ``rot90``; a view)."""
    m = _tensor(m, "rot90")
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: axes must have 2 entries, got {axes!r}")
    a0, a1 = (normalize_axis(a, m.ndim, "rot90", name="axes") for a in axes)
    if a0 == a1:
        raise ValueError(f"rot90: axes must be different, got {axes!r}")
    k = integer_arg(k, "rot90", "k") % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, axis=a0), axis=a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return permute_dims(flip(m, axis=a1), tuple(perm))
    return flip(permute_dims(m, tuple(perm)), axis=a1)


def _atleast(n):
    def one(x):
        x = _tensor(x, f"atleast_{n}d")
        if x.ndim >= n:
            return x
        if n == 3 and x.ndim == 1:
            return reshape(x, (1, x.shape[0], 1))
        if n == 3 and x.ndim == 2:
            return reshape(x, x.shape + (1,))
        return reshape(x, (1,) * (n - x.ndim) + x.shape)

    def fn(*arys):
        out = tuple(one(x) for x in arys)
        return out[0] if len(out) == 1 else out
    fn.__name__ = fn.__qualname__ = f"atleast_{n}d"
    fn.__doc__ = (f"The inputs viewed with at least {n} dimensions, as NumPy's "
                  f"``atleast_{n}d`` (one tensor for one input, else a tuple).")
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def stack(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join tensors of one shape along a new axis ``axis`` of the result.

    The standard's ``stack`` (recorded lazily) for a list or tuple of tensors; with NumPy's
    ``out``, ``dtype`` or ``casting``, or other array-likes (a tensor is a sequence of its
    rows, as in NumPy), NumPy's ``stack`` on the values.
    """
    if out is None and dtype is None and casting == "same_kind" \
            and isinstance(arrays, (list, tuple)) and arrays \
            and all(isinstance(a, Tensor) for a in arrays):
        return _std_stack(arrays, axis=axis)
    if isinstance(arrays, Tensor):
        arrays = list(arrays)
    return call_numpy("stack", np.stack, arrays, axis=axis, out=out, dtype=dtype,
                      casting=casting)


def indices(dimensions, dtype=int, sparse=False):
    """The coordinates of a grid of shape ``dimensions`` (NumPy's ``indices``)."""
    return to_tensors(np.indices(tuple(dimensions), dtype=as_dtype(dtype), sparse=sparse))


def asanyarray(a, dtype=None, order=None, *, like=None):
    """``asarray`` (tensors have no subclasses to keep)."""
    return asarray(a, dtype=as_dtype(dtype))


def ascontiguousarray(a, dtype=None, *, like=None):
    """``asarray``, copied where NumPy's copies: a tensor over memory that is not row-major
    (a transposed or strided view).  Otherwise the tensor itself, as NumPy's array."""
    return _in_layout(asarray(a, dtype=as_dtype(dtype)), "C_CONTIGUOUS")


def asfortranarray(a, dtype=None, *, like=None):
    """``asarray``, copied where NumPy's copies: a tensor with more than one axis longer
    than 1, unless its memory is column-major (a transposed view).  The copy's layout is
    lazytensor's (row-major; values are the same)."""
    return _in_layout(asarray(a, dtype=as_dtype(dtype)), "F_CONTIGUOUS")


def _in_layout(t, flag: str):
    if t.ndim == 0:             # NumPy's ndmin=1: a view of the element
        return reshape(t, (1,))
    mem = _views.shared_memory(t)
    if mem is None:             # pending: NumPy's twin is a new row-major array
        laid_out = flag == "C_CONTIGUOUS" or sum(n > 1 for n in t.shape) <= 1
    else:
        laid_out = mem.flags[flag]
    return t if laid_out else _views.fresh(t)


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray``, then ``ValueError`` if an element is infinite or NaN (this reads the
    values, as NumPy's does)."""
    t = asarray(a, dtype=as_dtype(dtype))
    if t.dtype.kind in "fc" and not np.isfinite(t._value()).all():
        raise ValueError("array must not contain infs or NaNs")
    return t


class _Concatenator:
    """``r_`` / ``c_``: NumPy's index tricks on tensors, returning a tensor."""

    def __init__(self, np_obj, name):
        self._obj, self._name = np_obj, name

    def __getitem__(self, key):
        return to_tensors(self._obj[to_numpy(key)])

    def __len__(self):
        return 0

    def __repr__(self):
        return f"lazytensor.{self._name}"


r_ = _Concatenator(np.r_, "r_")
c_ = _Concatenator(np.c_, "c_")


FUNCTIONS = {f.__name__: f for f in (array, identity, fromfunction, fliplr, flipud, rot90, stack,
                                     atleast_1d, atleast_2d, atleast_3d, indices, asanyarray,
                                     ascontiguousarray, asfortranarray, asarray_chkfinite)}
# index expressions hold no arrays: NumPy's own objects
FUNCTIONS.update(mgrid=mgrid, ogrid=ogrid, r_=r_, c_=c_, s_=np.s_, index_exp=np.index_exp)
# built by NumPy on the values
_SUMMARIES = {
    "concatenate": "Join tensors along an existing axis (NumPy's ``concatenate``).",
    "vstack": "Stack tensors vertically (row-wise).",
    "hstack": "Stack tensors horizontally (column-wise).",
    "dstack": "Stack tensors depth-wise (along the third axis).",
    "column_stack": "Stack 1-d tensors as the columns of a 2-d tensor.",
    "block": "Assemble a tensor from nested lists of blocks.",
    "split": "Split a tensor into equal parts or at indices.",
    "array_split": "Split a tensor into parts that may differ in length by one.",
    "hsplit": "Split a tensor horizontally (column-wise).",
    "vsplit": "Split a tensor vertically (row-wise).",
    "dsplit": "Split a tensor along the third axis.",
    "pad": "Pad a tensor (modes constant, edge, reflect, symmetric, wrap, linear_ramp ...).",
    "append": "Values appended to the end of a tensor.",
    "insert": "Values inserted before the given indices.",
    "delete": "A tensor with the given entries removed.",
    "unique": "The sorted unique elements (NumPy's ``unique``, with its return_* options).",
    "resize": "A tensor of a new shape, filled by repeating the input.",
    "trim_zeros": "A 1-d tensor without its leading and/or trailing zeros.",
    "diag": "Extract a diagonal, or build a diagonal matrix from a 1-d tensor.",
    "diagflat": "A 2-d tensor with the flattened input on a diagonal.",
    "tri": "Ones at and below a diagonal, zeros elsewhere.",
    "vander": "The Vandermonde matrix of a 1-d tensor.",
    "logspace": "Numbers spaced evenly on a log scale.",
    "geomspace": "Numbers spaced evenly on a log scale (a geometric progression).",
    "tril_indices": "The indices of the lower triangle of an (n, m) array.",
    "triu_indices": "The indices of the upper triangle of an (n, m) array.",
    "diag_indices": "The indices of the main diagonal of an n-dimensional array.",
    "tril_indices_from": "The indices of the lower triangle of a 2-d tensor.",
    "triu_indices_from": "The indices of the upper triangle of a 2-d tensor.",
    "diag_indices_from": "The indices of the main diagonal of a tensor.",
    "mask_indices": "The indices of an (n, n) array selected by a masking function.",
    "unravel_index": "Flat indices as tuples of coordinate tensors.",
    "ravel_multi_index": "Coordinate tensors as flat indices.",
    "ix_": "An open mesh from sequences (for cross-indexing).",
    "rollaxis": "A tensor with an axis rolled backwards to a position.",
    "compress": "The slices along an axis where a condition holds.",
    "choose": "A tensor built from an index tensor and a list of choices.",
    "packbits": "The elements of a bool/integer tensor packed into bits of uint8.",
    "unpackbits": "The bits of a uint8 tensor unpacked.",
    "bartlett": "The Bartlett window.", "blackman": "The Blackman window.",
    "hamming": "The Hamming window.", "hanning": "The Hann window.",
    "kaiser": "The Kaiser window.",
}
FUNCTIONS.update({name: on_values(name, getattr(np, name), summary)
                  for name, summary in _SUMMARIES.items()})
FUNCTIONS["row_stack"] = FUNCTIONS["vstack"]     # NumPy's deprecated name of vstack
