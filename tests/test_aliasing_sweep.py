"""What writes reach, side by side with NumPy, for every function lazytensor shares with NumPy.

One row per function (creation, manipulation, elementwise, statistics, linalg, fft, the
ndarray methods, the functions that write into their argument): the same call on a NumPy
array and on a tensor, through ``lt.<name>`` and through ``np.<name>`` on tensors.  The
input is a caller's writable array (``lt.asarray(a)``: memory), a pending result
(``lt.asarray(a) * 1``; NumPy's twin is the fresh ``a * 1``), a view of a caller's array,
or a caller's read-only array.  Then, in two separate runs, a write into every result
NumPy lets one write (its first element), or a write into the whole input; afterwards the
values of the input and of every result, ``np.shares_memory(result, input)``, and whether
each write raised must be NumPy's.  A write reaching a tensor that NumPy's does not reach
is a silent wrong value; one that does not reach where NumPy's does is a copy where NumPy
gives a view (docs/memory-model.md lists those that remain, as ``DOCUMENTED`` below).

``python tests/test_aliasing_sweep.py`` prints the mismatches as a table.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import views

F, I, C = "float64", "int32", "complex128"


def _data(kind, dtype):
    """The input's values: 'm' a 3 x 4 matrix, 'v' a vector, 'sq' a square well-conditioned
    matrix, 'spd' a symmetric positive definite one, 'c' a 2 x 3 x 4 block, '0d' a 0-d."""
    if kind == "m":
        a = np.arange(12.0).reshape(3, 4) * 0.5 - 2.0
    elif kind == "v":
        a = np.array([3.0, -1.0, 0.0, 2.5, 3.0, -4.0])
    elif kind == "c":
        a = np.arange(24.0).reshape(2, 3, 4) - 7.0
    elif kind == "0d":
        a = np.array(2.5)
    else:
        a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 5.0]])
        if kind == "sq":
            a[0, 2] = -1.0
    if dtype == C:
        return (a + 1j * (a[::-1] if a.ndim else a) * 0.5).astype(C)
    return a.astype(dtype)


# the inputs: a caller's writable array (memory), a pending result (NumPy's twin: a new
# array), a view of a caller's array, a caller's read-only array
KINDS = ("memory", "pending", "view", "read-only")


class Row:
    """``call(xp, x)``: xp is lazytensor or NumPy (given tensors in the "np" runs: NumPy's
    functions on tensors, by ``__array_function__``)."""

    def __init__(self, name, call, data="m", dtypes=(F, I), kinds=KINDS, vias=("lt", "np")):
        self.name, self.call, self.data, self.dtypes = name, call, data, dtypes
        self.kinds, self.vias = kinds, vias


ROWS: list[Row] = []


def row(name, call, data="m", dtypes=(F, I), **kw):
    ROWS.append(Row(name, call, data, dtypes, **kw))


# ---- elementwise (NumPy: a new array each; here pending results) -------------------------
for _name in ["abs", "absolute", "negative", "positive", "sign", "square", "conj",
              "conjugate", "invert", "bitwise_not", "bitwise_invert"]:
    row(_name, lambda xp, x, n=_name: getattr(xp, n)(x),
        dtypes=(I,) if "invert" in _name or "not" in _name else (F, I, C))
for _name in ["exp", "sqrt", "sin", "log1p", "floor", "ceil", "trunc", "rint", "fix",
              "isnan", "isfinite", "signbit", "spacing", "degrees", "cbrt", "reciprocal",
              "acos", "acosh", "arcsin", "arctanh", "atan", "cos", "cosh", "tanh", "exp2",
              "expm1", "fabs", "log", "log2", "log10", "rad2deg", "deg2rad", "isinf",
              "isposinf", "isneginf", "isreal", "iscomplex"]:
    row(_name, lambda xp, x, n=_name: getattr(xp, n)(x), dtypes=(F,))
for _name in ["add", "subtract", "multiply", "maximum", "minimum", "fmax", "hypot",
              "arctan2", "copysign", "power", "true_divide", "equal", "logaddexp", "atan2",
              "divide", "floor_divide", "fmin", "fmod", "mod", "remainder", "float_power",
              "greater", "less_equal", "not_equal", "logaddexp2", "nextafter", "pow"]:
    row(_name, lambda xp, x, n=_name: getattr(xp, n)(x, x[:1]), dtypes=(F,))
for _name in ["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "left_shift",
              "right_shift", "bitwise_left_shift", "bitwise_right_shift"]:
    row(_name, lambda xp, x, n=_name: getattr(xp, n)(x, 1), dtypes=(I,))
row("bitwise_count", lambda xp, x: xp.bitwise_count(x), dtypes=(I,))
for _name in ["logical_and", "logical_or", "logical_xor"]:
    row(_name, lambda xp, x, n=_name: getattr(xp, n)(x > 0, x < 1))
row("logical_not", lambda xp, x: xp.logical_not(x > 0))
row("ldexp", lambda xp, x: xp.ldexp(x, 2), dtypes=(F,))
row("modf", lambda xp, x: xp.modf(x), dtypes=(F,))
row("frexp", lambda xp, x: xp.frexp(x), dtypes=(F,))
row("divmod", lambda xp, x: xp.divmod(x, 3), dtypes=(F, I))
row("around", lambda xp, x: xp.around(x), dtypes=(F, I, C))
row("round", lambda xp, x: xp.round(x, 1), dtypes=(F, I))
row("clip", lambda xp, x: xp.clip(x, -1, 2))
row("nan_to_num", lambda xp, x: xp.nan_to_num(x), dtypes=(F, I, C))
row("real", lambda xp, x: xp.real(x), dtypes=(F, I, C))
row("imag", lambda xp, x: xp.imag(x), dtypes=(F, C))
row("angle", lambda xp, x: xp.angle(x), dtypes=(F, C))
row("real_if_close", lambda xp, x: xp.real_if_close(x), dtypes=(F, C))
row("where3", lambda xp, x: xp.where(x > 0, x, 0))
row("where1", lambda xp, x: xp.where(x > 0))
row("heaviside", lambda xp, x: xp.heaviside(x, 0.5), dtypes=(F,))
row("sinc", lambda xp, x: xp.sinc(x), dtypes=(F,))
row("i0", lambda xp, x: xp.i0(x), dtypes=(F,))
row("unwrap", lambda xp, x: xp.unwrap(x), dtypes=(F,))
row("isclose", lambda xp, x: xp.isclose(x, 1.0))
row("astype_fn", lambda xp, x: xp.astype(x, x.dtype, copy=False))
row("astype_fn_copy", lambda xp, x: xp.astype(x, x.dtype))
row("astype_fn_other", lambda xp, x: xp.astype(x, "float32"))

# ---- creation -----------------------------------------------------------------------------
row("asarray", lambda xp, x: xp.asarray(x), dtypes=(F, I, C))
row("asarray_copy", lambda xp, x: xp.asarray(x, copy=True))
row("asarray_dtype", lambda xp, x: xp.asarray(x, dtype="float32"))
row("asanyarray", lambda xp, x: xp.asanyarray(x))
row("array", lambda xp, x: xp.array(x))
row("array_nocopy", lambda xp, x: xp.array(x, copy=False))
row("array_copy_none", lambda xp, x: xp.array(x, copy=None))
row("copy", lambda xp, x: xp.copy(x), dtypes=(F, I, C))
row("ascontiguousarray", lambda xp, x: xp.ascontiguousarray(x))
row("ascontiguousarray_T", lambda xp, x: xp.ascontiguousarray(x.T))
row("asfortranarray", lambda xp, x: xp.asfortranarray(x))
row("asarray_chkfinite", lambda xp, x: xp.asarray_chkfinite(x))
# (0-d: NumPy's a * 1 is a scalar, so no pending input)
_0D = dict(data="0d", kinds=("memory", "view", "read-only"))
row("ascontiguousarray_0d", lambda xp, x: xp.ascontiguousarray(x), **_0D)
row("asfortranarray_0d", lambda xp, x: xp.asfortranarray(x), **_0D)
row("atleast_1d_0d", lambda xp, x: xp.atleast_1d(x), **_0D)
row("atleast_3d_0d", lambda xp, x: xp.atleast_3d(x), **_0D)
row("x[()]", lambda xp, x: x[()], **_0D)
row("x[None]_0d", lambda xp, x: x[None], **_0D)
row("reshape_0d", lambda xp, x: xp.reshape(x, (1, 1)), **_0D)
for _name in ["empty_like", "zeros_like", "ones_like"]:
    row(_name, lambda xp, x, n=_name: getattr(xp, n)(x) * 0 if n == "empty_like"
        else getattr(xp, n)(x))
row("full_like", lambda xp, x: xp.full_like(x, 7))
# (no tensor input: whether NumPy lets one write the result)
row("arange", lambda xp, x: xp.arange(5), dtypes=(F,))
row("linspace", lambda xp, x: xp.linspace(0, 1, 5), dtypes=(F,))
row("geomspace", lambda xp, x: xp.geomspace(1, 8, 4), dtypes=(F,))
row("logspace", lambda xp, x: xp.logspace(0, 2, 3), dtypes=(F,))
row("zeros", lambda xp, x: xp.zeros((2, 3)), dtypes=(F,))
row("ones", lambda xp, x: xp.ones(3, dtype="int32"), dtypes=(F,))
row("full", lambda xp, x: xp.full((2, 2), 7.0), dtypes=(F,))
row("empty", lambda xp, x: xp.empty(3) * 0, dtypes=(F,))
row("eye", lambda xp, x: xp.eye(3, k=1), dtypes=(F,))
row("identity", lambda xp, x: xp.identity(2), dtypes=(F,))
row("tri", lambda xp, x: xp.tri(3), dtypes=(F,))
row("indices", lambda xp, x: xp.indices((2, 3)), dtypes=(F,))
row("tril_indices", lambda xp, x: xp.tril_indices(3), dtypes=(F,))
row("triu_indices_from", lambda xp, x: xp.triu_indices_from(x), dtypes=(F,))
row("diag_indices", lambda xp, x: xp.diag_indices(3), dtypes=(F,))
row("unravel_index", lambda xp, x: xp.unravel_index([1, 5], (2, 3)), dtypes=(F,))
row("ravel_multi_index", lambda xp, x: xp.ravel_multi_index(([0, 1], [2, 0]), (2, 3)),
    dtypes=(F,))
row("mask_indices", lambda xp, x: xp.mask_indices(3, np.triu), dtypes=(F,))
row("bartlett", lambda xp, x: xp.bartlett(5), dtypes=(F,))
row("hanning", lambda xp, x: xp.hanning(4), dtypes=(F,))
row("frombuffer", lambda xp, x: xp.frombuffer(b"\x01\x02\x03\x04", dtype="uint8"),
    dtypes=(F,))
row("fromiter", lambda xp, x: xp.fromiter(range(4), dtype="int32"), dtypes=(F,))
row("from_dlpack", lambda xp, x: xp.from_dlpack(x), dtypes=(F, I, C))
# (functions that write into their first argument: what the write reaches; not into a
# caller's read-only array, which NumPy refuses and lazytensor writes as a copy of its own,
# memory-model.md)
_W = KINDS[:3]
row("copyto_view", lambda xp, x: (xp.copyto(x[1:], 5), x[1:])[1])
row("put", lambda xp, x: (xp.put(x, [0, 5], 9), x[::2])[1], kinds=_W)
row("putmask", lambda xp, x: (xp.putmask(x, x > 1, 9), x.T)[1], kinds=_W)
row("place", lambda xp, x: (xp.place(x, x > 1, [9]), x[1])[1], kinds=_W)
row("put_along_axis", lambda xp, x: (xp.put_along_axis(x, xp.asarray([[0], [1], [2]]), 9,
                                                        1), x[:, :2])[1], kinds=_W)
row("fill_diagonal", lambda xp, x: (xp.fill_diagonal(x, 9), x.T)[1], data="sq", kinds=_W)
row("meshgrid", lambda xp, x: xp.meshgrid(x, x[:3]), data="v")
row("meshgrid_ij", lambda xp, x: xp.meshgrid(x, x[:2], indexing="ij"), data="v")
row("meshgrid_sparse", lambda xp, x: xp.meshgrid(x, x[:3], sparse=True), data="v")
row("meshgrid_sparse_nocopy",
    lambda xp, x: xp.meshgrid(x, x[:3], sparse=True, copy=False), data="v")
row("diag_of_m", lambda xp, x: xp.diag(x), dtypes=(F, I, C))
row("diag_of_v", lambda xp, x: xp.diag(x), data="v")
row("diagflat", lambda xp, x: xp.diagflat(x), data="v")
row("tril", lambda xp, x: xp.tril(x))
row("triu", lambda xp, x: xp.triu(x, 1))
row("vander", lambda xp, x: xp.vander(x, 3), data="v")
row("frombuffer_like", lambda xp, x: xp.asarray(x).reshape(-1))

# ---- manipulation -------------------------------------------------------------------------
row("reshape", lambda xp, x: xp.reshape(x, (4, 3)), dtypes=(F, I, C))
row("reshape_T", lambda xp, x: xp.reshape(x.T, (12,)))
row("ravel", lambda xp, x: xp.ravel(x), dtypes=(F, I, C))
row("ravel_T", lambda xp, x: xp.ravel(x.T))
row("squeeze", lambda xp, x: xp.squeeze(x[None]))
row("expand_dims", lambda xp, x: xp.expand_dims(x, 1))
row("flip", lambda xp, x: xp.flip(x, 0))
row("fliplr", lambda xp, x: xp.fliplr(x))
row("flipud", lambda xp, x: xp.flipud(x))
row("rot90", lambda xp, x: xp.rot90(x))
row("roll", lambda xp, x: xp.roll(x, 1))
row("moveaxis", lambda xp, x: xp.moveaxis(x, 0, -1), data="c")
row("rollaxis", lambda xp, x: xp.rollaxis(x, 2), data="c")
row("swapaxes", lambda xp, x: xp.swapaxes(x, 0, 1))
row("transpose", lambda xp, x: xp.transpose(x), dtypes=(F, I, C))
row("permute_dims", lambda xp, x: xp.permute_dims(x, (1, 0)))
row("matrix_transpose", lambda xp, x: xp.matrix_transpose(x))
row("atleast_1d", lambda xp, x: xp.atleast_1d(x))
row("atleast_1d_2", lambda xp, x: xp.atleast_1d(x, x[0]))
row("atleast_2d", lambda xp, x: xp.atleast_2d(x), data="v")
row("atleast_3d", lambda xp, x: xp.atleast_3d(x))
row("broadcast_to", lambda xp, x: xp.broadcast_to(x, (2, 3, 4)))
row("broadcast_arrays", lambda xp, x: xp.broadcast_arrays(x, x[:1]))
row("broadcast_to_same", lambda xp, x: xp.broadcast_to(x, x.shape))
row("reshape_of_sum_keepdims", lambda xp, x: xp.sum(x, axis=1, keepdims=True).reshape(3))
row("reshape_of_copy_T", lambda xp, x: x.T.copy().reshape(12))
row("meshgrid_nocopy", lambda xp, x: xp.meshgrid(x, x[:3], copy=False), data="v")
row("split", lambda xp, x: xp.split(x, 2, axis=1))
row("array_split", lambda xp, x: xp.array_split(x, 3, axis=1))
row("hsplit", lambda xp, x: xp.hsplit(x, 2))
row("vsplit", lambda xp, x: xp.vsplit(x, 3))
row("dsplit", lambda xp, x: xp.dsplit(x, 2), data="c")
row("unstack", lambda xp, x: tuple(xp.unstack(x)) if xp is lt else tuple(x))
row("concatenate", lambda xp, x: xp.concatenate([x, x]))
row("concatenate_one", lambda xp, x: xp.concatenate([x]))
row("concat", lambda xp, x: xp.concat([x, x], axis=1))
row("stack", lambda xp, x: xp.stack([x, x]))
row("hstack", lambda xp, x: xp.hstack([x, x]))
row("vstack", lambda xp, x: xp.vstack([x]))
row("dstack", lambda xp, x: xp.dstack([x]))
row("column_stack", lambda xp, x: xp.column_stack([x]), data="v")
row("block", lambda xp, x: xp.block([x, x]))
row("append", lambda xp, x: xp.append(x, x))
row("insert", lambda xp, x: xp.insert(x, 1, 9), data="v")
row("delete", lambda xp, x: xp.delete(x, 1), data="v")
row("pad", lambda xp, x: xp.pad(x, 1))
row("pad_zero", lambda xp, x: xp.pad(x, 0))
row("take", lambda xp, x: xp.take(x, [0, 2]))
row("take_axis", lambda xp, x: xp.take(x, [0, 2], axis=1))
row("take_along_axis", lambda xp, x: xp.take_along_axis(x, xp.argsort(x, axis=1), 1))
row("compress", lambda xp, x: xp.compress([True, False, True], x, axis=0))
row("extract", lambda xp, x: xp.extract(x > 0, x))
row("choose", lambda xp, x: xp.choose(xp.asarray([0, 1, 0, 1]), x[:2]))
row("select", lambda xp, x: xp.select([x > 0], [x]))
row("repeat", lambda xp, x: xp.repeat(x, 2))
row("repeat_1", lambda xp, x: xp.repeat(x, 1, axis=0))
row("tile", lambda xp, x: xp.tile(x, 2))
row("tile_1", lambda xp, x: xp.tile(x, 1))
row("resize", lambda xp, x: xp.resize(x, (2, 6)))
row("trim_zeros", lambda xp, x: xp.trim_zeros(x), data="v")
row("ediff1d", lambda xp, x: xp.ediff1d(x), data="v")
row("diff", lambda xp, x: xp.diff(x))
row("diff_0", lambda xp, x: xp.diff(x, 0))
row("diagonal", lambda xp, x: xp.diagonal(x), dtypes=(F, I, C))
row("kron", lambda xp, x: xp.kron(x, x[:1, :1]))
row("sort", lambda xp, x: xp.sort(x), dtypes=(F, I, C))
row("argsort", lambda xp, x: xp.argsort(x))
row("partition", lambda xp, x: xp.partition(x, 1))
row("argpartition", lambda xp, x: xp.argpartition(x, 1))
row("lexsort", lambda xp, x: xp.lexsort(x))
row("sort_complex", lambda xp, x: xp.sort_complex(x), data="v", dtypes=(F, C))
row("searchsorted", lambda xp, x: xp.searchsorted(xp.sort(x), x), data="v")
row("unique", lambda xp, x: xp.unique(x))
row("unique_all", lambda xp, x: tuple(xp.unique_all(x)), data="v")
row("unique_counts", lambda xp, x: tuple(xp.unique_counts(x)), data="v")
row("unique_inverse", lambda xp, x: tuple(xp.unique_inverse(x)), data="v")
row("unique_values", lambda xp, x: xp.sort(xp.unique_values(x)), data="v")  # (any order)
row("intersect1d", lambda xp, x: xp.intersect1d(x, x), data="v")
row("union1d", lambda xp, x: xp.union1d(x, x[:2]), data="v")
row("setdiff1d", lambda xp, x: xp.setdiff1d(x, x[:2]), data="v")
row("setxor1d", lambda xp, x: xp.setxor1d(x, x[:2]), data="v")
row("isin", lambda xp, x: xp.isin(x, x[:1]))
row("nonzero", lambda xp, x: xp.nonzero(x))
row("argwhere", lambda xp, x: xp.argwhere(x))
row("flatnonzero", lambda xp, x: xp.flatnonzero(x))
row("count_nonzero", lambda xp, x: xp.asarray(xp.count_nonzero(x, axis=0)))
row("digitize", lambda xp, x: xp.digitize(x, [0.0, 1.0]), data="v", dtypes=(F,))
row("bincount", lambda xp, x: xp.bincount(x[2:4]), data="v", dtypes=(I,))
row("packbits", lambda xp, x: xp.packbits(x > 0))
row("interp", lambda xp, x: xp.interp(x, [0.0, 1.0], [1.0, 2.0]), data="v", dtypes=(F,))
row("ix_", lambda xp, x: xp.ix_(x, x[:2]), data="v", dtypes=(I,))
row("trapezoid", lambda xp, x: xp.trapezoid(x), dtypes=(F,))
row("gradient", lambda xp, x: xp.gradient(x), data="v", dtypes=(F,))
row("convolve", lambda xp, x: xp.convolve(x, x[:2]), data="v")
row("correlate", lambda xp, x: xp.correlate(x, x[:2]), data="v")
row("outer", lambda xp, x: xp.outer(x, x), data="v")
row("inner", lambda xp, x: xp.inner(x, x))
row("dot", lambda xp, x: xp.dot(x, x.T))
row("vdot", lambda xp, x: xp.asarray(xp.vdot(x, x)))
row("matmul", lambda xp, x: xp.matmul(x, x.T), dtypes=(F, I, C))
row("tensordot", lambda xp, x: xp.tensordot(x, x, 2))
row("einsum_ii", lambda xp, x: xp.einsum("ii->i", x), data="sq")
row("einsum_ij", lambda xp, x: xp.einsum("ij->ji", x))
row("einsum_ij_ij", lambda xp, x: xp.einsum("ij", x))
row("cross", lambda xp, x: xp.cross(x, x[::-1]), data="sq")
row("trace", lambda xp, x: xp.asarray(xp.trace(x)))
row("cumsum", lambda xp, x: xp.cumsum(x, axis=0))
row("cumulative_sum", lambda xp, x: xp.cumulative_sum(x, axis=0))
row("nancumsum", lambda xp, x: xp.nancumsum(x), dtypes=(F,))
row("piecewise", lambda xp, x: xp.piecewise(x, [x > 0], [1.0, 0.0]), dtypes=(F,))
row("apply_along_axis", lambda xp, x: xp.apply_along_axis(lambda r: r, 0, x))
row("fromfunction", lambda xp, x: xp.fromfunction(lambda i, j: i + j, (2, 3)) + x[:2, :3])
row("polyval", lambda xp, x: xp.polyval(x[:3], x), data="v", dtypes=(F,))
row("polyadd", lambda xp, x: xp.polyadd(x, x[:2]), data="v", dtypes=(F,))
row("polyder", lambda xp, x: xp.polyder(x, 0), data="v", dtypes=(F,))
row("histogram", lambda xp, x: xp.histogram(x, 3), data="v", dtypes=(F,))
row("histogram2d", lambda xp, x: xp.histogram2d(x, x, 2), data="v", dtypes=(F,))
row("polyint", lambda xp, x: xp.polyint(x), data="v", dtypes=(F,))
row("polymul", lambda xp, x: xp.polymul(x, x[:2]), data="v", dtypes=(F,))
row("polysub", lambda xp, x: xp.polysub(x, x), data="v", dtypes=(F,))
row("polydiv", lambda xp, x: xp.polydiv(x, x[:2]), data="v", dtypes=(F,))
row("polyfit", lambda xp, x: xp.polyfit(x, x, 1), data="v", dtypes=(F,))
row("poly", lambda xp, x: xp.poly(x[:3]), data="v", dtypes=(F,))
row("roots", lambda xp, x: xp.roots(x[:3]), data="v", dtypes=(F,))
row("nanpercentile", lambda xp, x: xp.nanpercentile(x, 50), data="v", dtypes=(F,))
row("nanquantile", lambda xp, x: xp.nanquantile(x, [0.5]), data="v", dtypes=(F,))
row("vecdot", lambda xp, x: xp.vecdot(x, x), dtypes=(F,))
row("apply_over_axes", lambda xp, x: xp.apply_over_axes(xp.sum, x, [0]))
row("unpackbits", lambda xp, x: xp.unpackbits(xp.asarray(x, dtype="uint8")), data="v",
    dtypes=(I,))
row("row_stack", lambda xp, x: xp.vstack([x, x]))
# NumPy's functions that lazytensor does not serve (NumPy's code on the values)
row("sliding_window_view",
    lambda xp, x: np.lib.stride_tricks.sliding_window_view(x, 2, axis=1), vias=("np",))
row("require", lambda xp, x: np.require(x), vias=("np",))
row("emath.sqrt", lambda xp, x: np.emath.sqrt(x), dtypes=(F,), vias=("np",))

# ---- statistics -----------------------------------------------------------------------------
for _name in ["sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "ptp",
              "median", "all", "any", "argmax", "argmin", "nansum", "nanmax", "nanmean",
              "nanmedian", "cumprod", "average", "nanargmax", "nanargmin", "nanmin",
              "nanprod", "nanstd", "nanvar", "nancumprod", "cumulative_prod"]:
    row(_name, lambda xp, x, n=_name: getattr(xp, n)(x, axis=0))
row("sum_keepdims", lambda xp, x: xp.sum(x, axis=1, keepdims=True))
row("max_all", lambda xp, x: xp.asarray(xp.max(x)))
row("percentile", lambda xp, x: xp.percentile(x, 50, axis=0), dtypes=(F,))
row("quantile", lambda xp, x: xp.quantile(x, [0.5], axis=1), dtypes=(F,))
row("cov", lambda xp, x: xp.cov(x), dtypes=(F,))
row("corrcoef", lambda xp, x: xp.corrcoef(x), dtypes=(F,))
row("histogram_bin_edges", lambda xp, x: xp.histogram_bin_edges(x, 3), data="v", dtypes=(F,))

# ---- linalg, fft -----------------------------------------------------------------------------
for _name in ["inv", "pinv", "cholesky", "matrix_power2", "eigvalsh", "eigh", "qr", "svd",
              "svdvals", "slogdet", "det", "norm", "eig", "eigvals", "matrix_rank",
              "diagonal", "matrix_transpose", "tensorinv"]:
    def _la(xp, x, n=_name):
        if n == "matrix_power2":
            return xp.linalg.matrix_power(x, 1)
        if n == "tensorinv":
            return xp.linalg.tensorinv(x, ind=1)
        if n == "svdvals" and xp is np:
            return np.linalg.svd(x, compute_uv=False)
        out = getattr(xp.linalg, n)(x)
        return tuple(out) if isinstance(out, tuple) else xp.asarray(out)
    # (eig, eigvals: complex input; lt's are complex always, numpy-numerics.md)
    row("linalg." + _name, _la, data="spd", dtypes=(C,) if "eig" in _name[:3] else (F,))
row("linalg.solve", lambda xp, x: xp.linalg.solve(x, x[:, 0]), data="sq", dtypes=(F,))
row("linalg.lstsq", lambda xp, x: xp.linalg.lstsq(x, x[:, 0])[0], data="sq", dtypes=(F,))
row("linalg.multi_dot", lambda xp, x: xp.linalg.multi_dot([x, x]), data="sq", dtypes=(F,))
row("linalg.matrix_power0", lambda xp, x: xp.linalg.matrix_power(x, 0), data="sq")
for _name in ["fft", "ifft", "rfft", "fft2", "fftn", "ihfft", "fftshift", "ifftshift"]:
    row("fft." + _name, lambda xp, x, n=_name: getattr(xp.fft, n)(x), dtypes=(F,)
        if _name in ("rfft", "ihfft") else (F, C))
row("fft.irfft", lambda xp, x: xp.fft.irfft(x), dtypes=(C,))
row("fft.hfft", lambda xp, x: xp.fft.hfft(x), dtypes=(C,))

# ---- ndarray methods and attributes ------------------------------------------------------
row("x.copy", lambda xp, x: x.copy(), dtypes=(F, I, C))
row("x.flatten", lambda xp, x: x.flatten())
row("x.ravel", lambda xp, x: x.ravel(), dtypes=(F, I, C))
row("x.ravel_T", lambda xp, x: x.T.ravel())
row("x.view", lambda xp, x: x.view())
row("x.view_dtype", lambda xp, x: x.view("uint32" if x.dtype == np.int32 else "int64"))
# (views as a dtype of pending work over inputs of other dtypes: the bytes of the result)
row("x.view_of_a_cast", lambda xp, x: xp.astype(x > 0, "int64").view("int64"))
row("x.view_of_a_cast_other", lambda xp, x: xp.astype(x, "float64").view("int64"))
row("x.reshape", lambda xp, x: x.reshape(2, 6), dtypes=(F, I, C))
row("x.reshape_T", lambda xp, x: x.T.reshape(12))
row("x.T", lambda xp, x: x.T, dtypes=(F, I, C))
row("x.mT", lambda xp, x: x.mT)
row("x.transpose", lambda xp, x: x.transpose())
row("x.astype_nocopy", lambda xp, x: x.astype(x.dtype, copy=False), dtypes=(F, I, C))
row("x.astype", lambda xp, x: x.astype(x.dtype))
row("x.astype_other", lambda xp, x: x.astype("float32", copy=False))
row("x.squeeze", lambda xp, x: x[:, None].squeeze())
row("x.swapaxes", lambda xp, x: x.swapaxes(0, 1))
row("x.diagonal", lambda xp, x: x.diagonal(), dtypes=(F, I, C))
row("x.real", lambda xp, x: x.real, dtypes=(F, I, C))
row("x.imag", lambda xp, x: x.imag, dtypes=(F, C))
row("x.conj", lambda xp, x: x.conj(), dtypes=(F, I, C))
row("x.conjugate", lambda xp, x: x.conjugate(), dtypes=(F, C))
row("x.item", lambda xp, x: x.item(1))
row("x.tolist", lambda xp, x: x.tolist())
row("x.__array__", lambda xp, x: x.__array__())
row("np.asarray(x)", lambda xp, x: np.asarray(x), dtypes=(F, I, C))
row("np.array(x)", lambda xp, x: np.array(x))
row("x.round", lambda xp, x: x.round(), dtypes=(F, I))
row("x.clip", lambda xp, x: x.clip(0, 1))
row("x.repeat", lambda xp, x: x.repeat(1))
row("x.take", lambda xp, x: x.take([1]))
row("x.compress", lambda xp, x: x.compress([True, True]))
row("x.sum", lambda xp, x: x.sum(axis=0))
row("x.cumsum", lambda xp, x: x.cumsum())
row("x.max", lambda xp, x: x.max(axis=1))
row("x.nonzero", lambda xp, x: x.nonzero())
row("x.trace", lambda xp, x: xp.asarray(x.trace()))
row("x.searchsorted", lambda xp, x: xp.sort(x).searchsorted(x), data="v")
row("x.argsort", lambda xp, x: x.argsort())
row("x[1]", lambda xp, x: x[1])
row("x[1:]", lambda xp, x: x[1:, ::2])
row("x[None]", lambda xp, x: x[None, ..., None])
row("x[mask]", lambda xp, x: x[x > 0])
row("x[[0,1]]", lambda xp, x: x[[0, 1]])
row("x[0,0]", lambda xp, x: xp.asarray(x[0, 0]))
row("x+0", lambda xp, x: x + 0)
row("+x", lambda xp, x: +x)
row("x.flat", lambda xp, x: xp.asarray(x.flat[1:3]) if xp is np else x.flat[1:3])


# ---- the harness ------------------------------------------------------------------------------

def _leaves(obj):
    """The arrays (or scalars/lists) a call gave, in order."""
    if isinstance(obj, tuple) or isinstance(obj, list) and any(
            isinstance(o, (np.ndarray, lt.Tensor, tuple, list)) for o in obj):
        return [leaf for o in obj for leaf in _leaves(o)]
    return [obj]


def _sentinel(dtype, old):
    if dtype.kind == "b":
        return not old
    return {"c": 77 + 5j, "f": 77.0}.get(dtype.kind, 77)


def _write(r, value):
    """Write one element (NumPy's deprecation warning on a broadcast array is an error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            r[(0,) * r.ndim] = value
            return "ok"
        except (ValueError, DeprecationWarning, FutureWarning):
            return "read-only"


def _values(obj):
    if isinstance(obj, (np.ndarray, lt.Tensor)):
        return np.array(obj)
    return np.array(obj, dtype=object) if isinstance(obj, list) else obj


def _run(row, dtype, kind, what, xp, numpys=None):
    """One run: the call, the writes, and what it all reads afterwards.  ``numpys``:
    NumPy's run of the same (its results that are arrays are those written and asked
    about; NumPy's scalars are 0-d tensors here)."""
    a = _data(row.data, dtype)
    if kind == "view":          # a view of a bigger base: x's memory is not all of it
        a = np.stack([a, a])[1]
    elif kind == "read-only":
        a.setflags(write=False)
    x = (np.asarray if xp is np else lt.asarray)(a)
    if kind == "pending":
        x = x * 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = row.call(np if xp == "np on tensors" else xp, x)
        except ValueError:          # (a write into a read-only input)
            return "ValueError", [_values(x)], [], ([], [])
    leaves = _leaves(out)
    arrays = [isinstance(r, np.ndarray) for r in leaves] if numpys is None else numpys[0]
    arrays = arrays + [False] * (len(leaves) - len(arrays))
    events = []
    if what == "results":
        for i, r in enumerate(leaves):
            if numpys is not None and (i, "read-only") in numpys[1] and \
                    isinstance(r, lt.Tensor) and views.is_read_only_source(r):
                # a tensor over a caller's read-only array (x itself, frombuffer's) is
                # written as a copy of its own where NumPy raises (memory-model.md)
                events.append((i, "read-only"))
            elif arrays[i] and r.size:
                old = np.array(r).reshape(-1)[0] if r.dtype.kind == "b" else None
                events.append((i, _write(r, _sentinel(r.dtype, old))))
    else:                       # (not of a read-only one: memory-model.md's difference)
        x[...] = _data(row.data, dtype) * 3 + 11
        events.append(("input", "ok"))
    shares = [bool(np.shares_memory(r, x)) if arrays[i] else None
              for i, r in enumerate(leaves)]
    return events, [_values(x)] + [_values(r) for r in leaves], shares, (arrays, events)


def _same(got, want):
    if isinstance(want, np.ndarray):
        got = np.asarray(got)
        if want.dtype == object or got.dtype == object:
            return got.shape == want.shape and all(
                _same(g, w) for g, w in zip(got.reshape(-1), want.reshape(-1)))
        if got.shape != want.shape:
            return False
        if want.dtype.kind in "fc":
            return np.allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
        return np.array_equal(got, want)
    if isinstance(want, (float, complex, np.inexact)):
        return bool(np.isclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True))
    return bool(np.all(np.asarray(got) == np.asarray(want)))


def mismatches(row, dtype, via="lt"):
    """What differs from NumPy for one row and dtype, as messages."""
    found = []
    xp = lt if via == "lt" else "np on tensors"
    for kind in row.kinds:
        for what in ("results",) if kind == "read-only" else ("results", "input"):
            want = _run(row, dtype, kind, what, np)
            got = _run(row, dtype, kind, what, xp, want[3])
            tag = f"{row.name} {dtype} {via} {kind} write-{what}"
            if got[0] != want[0]:
                found.append(f"{tag}: writes {got[0]}, NumPy's {want[0]}")
            if got[2] != want[2]:
                found.append(f"{tag}: shares_memory {got[2]}, NumPy's {want[2]}")
            if len(got[1]) != len(want[1]):
                found.append(f"{tag}: {len(got[1]) - 1} results, NumPy's {len(want[1]) - 1}")
                continue
            for i, (g, w) in enumerate(zip(got[1], want[1])):
                if not _same(g, w):
                    name = "input" if i == 0 else f"result {i - 1}"
                    found.append(f"{tag}: {name} reads {g!r}, NumPy's {w!r}")
    return found


# The differences docs/memory-model.md lists ("Where lazytensor differs from NumPy"): the
# row, and the input kinds whose mismatches it explains.
DOCUMENTED = {
    # a tensor of its own over the same pending node (it fuses), not a read-only view
    "broadcast_to_same": ("pending",),
}


CASES = [pytest.param(r, d, v, id=f"{r.name}-{d}-{v}") for r in ROWS for d in r.dtypes
         for v in r.vias]


@pytest.mark.parametrize("row,dtype,via", CASES)
def test_writes_reach_what_numpys_reach(row, dtype, via):
    found = mismatches(row, dtype, via)
    kinds = DOCUMENTED.get(row.name)
    if kinds is not None:
        assert found, f"{row.name} now gives NumPy's aliasing: drop it from DOCUMENTED and docs"
        found = [m for m in found if m.split()[3] not in kinds]
    assert not found, "\n".join(found)


if __name__ == "__main__":          # the sweep's table: python tests/test_aliasing_sweep.py
    import re
    for r, d, v in (c.values for c in CASES):
        try:
            found = mismatches(r, d, v)
        except Exception as exc:     # noqa: BLE001  (a row that errors is a finding)
            print(f"{r.name} {d} {v}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        if found:
            kinds = sorted({re.sub(r"^\S+ \S+ \S+ (\S+) write-(\S+): (\w+( \d+)?).*",
                                   r"\1/\2:\3", m, flags=re.S) for m in found})
            print(f"{r.name} {d} {v}: " + "; ".join(kinds))
