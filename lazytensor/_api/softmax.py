"""Softmax and log-sum-exp along axes, one pass over each row (``lt.nn.softmax``,
``lt.nn.logsumexp``).

Written as an expression, softmax is ``exp(x - max(x)) / sum(exp(x - max(x)))``: three
kernels (a row maximum, exp with a row sum, a division), each a call with its own
overhead, and at large sizes each a pass over memory.  Here one C call
(``lt_run_rowwise``, kernels_c/lt_kernel.c) does all of it row by row while the row is
in L1.  In exact mode it runs the op functions and reduction functions that the
expression's kernels run, in the same order of summation, so each result has the bits of
the expression evaluated by lazytensor, on any kernel path and at any thread count.  Fast
mode makes ``exp(x - m)`` and its sum in one pass, in an order of its own (the same at
any thread count on a kernel path), and multiplies by the reciprocal of the sum.

The reduced axes are moved last and flattened into rows; an input whose rows are not
contiguous is copied first.  float16 is computed in float32 and rounded once at the end
(the expression would round each intermediate to float16).
"""

from __future__ import annotations

import math

import numpy as np

from .._engine import config as _config
from .._engine import cost as _cost
from .._engine import kernel as _kernel
from .._engine import memory as _memory
from .args import normalize_axes, tensor_value, wrap
from .._engine.kernel import check_status, data_address, ffi, lib
from .._engine.native import fastpath
from .._engine.lower import OPCODE
from .._engine.tensor import Tensor

# the lt_rowfns of each (dtype, logsumexp), and its address
_FUNCTIONS: dict = {}
# the C path of _run's common case (lt_fastpath.c)
fastpath.setup_rowwise(int(ffi.cast("uintptr_t", ffi.addressof(lib, "lt_run_rowwise"))))
_rowwise = fastpath.rowwise


def _check(x, what: str):
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    if x.dtype.kind != "f":
        raise TypeError(f"{what} does not take {x.dtype.name} tensors: it takes real "
                        f"floating-point tensors")


def _functions(dtype: np.dtype, logsumexp: bool):
    """The lt_rowfns of (dtype, kind), the numbers of its op and reduction functions, and
    its address."""
    key = (dtype, logsumexp)
    found = _FUNCTIONS.get(key)
    if found is None:
        dt = dtype.name
        fns = ffi.new("lt_rowfns *")
        fns.logsumexp = 1 if logsumexp else 0
        fns.itemsize = dtype.itemsize
        fns.op_subtract = OPCODE[("subtract", dt)]
        fns.op_exp = OPCODE[("exp", dt)]
        fns.op_divide = OPCODE[("divide_by_scalar", dt)]   # a row's sum is one value
        fns.op_log = OPCODE[("log", dt)]
        fns.op_add = OPCODE[("add", dt)]
        fns.red_max = _kernel.REDUCTIONS[f"max:{dt}"]
        fns.red_sum = _kernel.REDUCTIONS[f"sum:{dt}"]
        # the work per element, for the thread split (lt_thread_count): what the expression
        # form's kernels run, and the row read and the row (softmax) or nothing written
        ops = [("max", dt), ("subtract", dt), ("exp", dt), ("sum", dt)]
        fns.work_ps = _cost.work_ps(ops if logsumexp else ops + [("divide_by_scalar", dt)])
        fns.work_bytes = dtype.itemsize * (1 if logsumexp else 2)
        found = _FUNCTIONS[key] = (fns, int(ffi.cast("uintptr_t", fns)))
    return found


def _axes(x, axis, what: str) -> tuple:
    if type(axis) is int and -x.ndim <= axis < x.ndim:     # the common call, checked cheaply
        return (axis % x.ndim,)
    return normalize_axes(axis, x.ndim, what, x.shape)


def _trailing(axes: tuple, ndim: int) -> bool:
    """Whether sorted, distinct ``axes`` are the last ones."""
    return not axes or axes[0] == ndim - len(axes)


def _run(a: np.ndarray, axes: tuple, logsumexp: bool) -> np.ndarray:
    """The row kernel over ``a`` (float16 computed as float32) with ``axes`` moved last
    and flattened into rows: softmax as an array of those moved axes' shape, log-sum-exp
    as one value per row."""
    if a.dtype.char not in "fd":
        a = a.astype(np.float32)
    nd, k = a.ndim, len(axes)
    if k == 1 and axes[0] == nd - 1:
        out = _rowwise(a, _functions(a.dtype, logsumexp)[1], logsumexp)   # C-contiguous
        if out is not None:
            return out
    if not _trailing(axes, nd):
        a = np.moveaxis(a, axes, range(nd - k, nd))
    shape = a.shape
    cols = math.prod(shape[nd - k:])
    rows = a.size // cols
    flags = a.flags
    if flags.c_contiguous and flags.aligned:      # rows in place
        row_bytes = cols * a.itemsize
    else:
        a = a.reshape(rows, cols)       # a copy where a view cannot do
        if (a.strides[1] != a.itemsize and cols > 1) or not a.flags.aligned:
            a = np.ascontiguousarray(a)
        row_bytes = a.strides[0]
    out = _memory.empty((rows,) if logsumexp else shape, a.dtype)
    check_status(lib.lt_run_rowwise(
        _functions(a.dtype, logsumexp)[0], rows, cols, data_address(a), row_bytes,
        data_address(out), _config._mode.get() == "exact", _config._num_threads,
        _kernel._path))
    return out


def softmax(x, /, axis=-1):
    """``exp(x - m) / sum(exp(x - m))`` along ``axis``, with m the maximum along it.

    ``axis`` is an int, a tuple of ints (softmax over those axes together) or None (all
    axes).  Takes real floating-point tensors.  One pass over each row computes what the
    expression written with ``lt.max``, ``lt.exp`` and ``lt.sum`` computes in three
    kernels.  In exact mode a float32 or float64 result has that expression's bits when
    the reduced axes are the last ones (over leading axes lazytensor's sums add in index
    order, not pairwise, so a float64 sum may differ in its last bit); fast mode sums in
    an order of its own and divides by the row sum through its reciprocal.  float16 is computed in float32 and rounded
    once.  A row holding +inf or only -inf gives NaN, as the expression does (and torch
    and jax).  Evaluates ``x``; the result is an evaluated tensor.
    """
    _check(x, "softmax")
    axes = _axes(x, axis, "softmax")
    a = tensor_value(x, "softmax")
    if a.size == 0:
        return wrap(np.empty(a.shape, a.dtype))
    out = _run(a, axes, False)
    if not _trailing(axes, a.ndim):     # back from the rows' axis order
        out = np.moveaxis(out, range(a.ndim - len(axes), a.ndim), axes)
    return wrap(out, a.dtype)


def logsumexp(x, /, axis=None, keepdims=False):
    """``log(sum(exp(x - m))) + m`` along ``axis``, m the maximum along it where that is
    finite and 0 where it is not.

    ``axis`` is an int, a tuple of ints or None (all axes); ``keepdims`` keeps the
    reduced axes with length 1.  Takes real floating-point tensors.  A row of -inf gives
    -inf, a row holding +inf gives +inf, a row holding NaN gives NaN, and an empty row
    gives -inf (as ``scipy.special.logsumexp`` does).  One pass over each row computes
    what that expression, written with ``lt.max``, ``lt.where``, ``lt.exp``, ``lt.sum`` and
    ``lt.log``, computes in several kernels, with its bits in exact mode when the reduced
    axes are the last ones (see :func:`softmax`).  float16 is computed in float32 and
    rounded once.  Evaluates ``x``; the result is an evaluated tensor.
    """
    _check(x, "logsumexp")
    axes = _axes(x, axis, "logsumexp")
    a = tensor_value(x, "logsumexp")
    if _trailing(axes, a.ndim):
        kept = a.shape[:a.ndim - len(axes)]
    else:
        kept = tuple(s for d, s in enumerate(a.shape) if d not in axes)
    if a.size == 0:
        out = np.full(kept, -np.inf, a.dtype)         # log(0) for empty rows
    else:
        out = _run(a, axes, True).reshape(kept)
    return wrap(np.expand_dims(out, axes) if keepdims else out, a.dtype)
