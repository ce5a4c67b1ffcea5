"""Creation functions (all sixteen of the Array API).

Fills (``zeros``, ``ones``, ``full``, ``empty`` and their ``_like`` forms) are one value
broadcast with zero strides: they use no memory and the kernel reads them as a scalar.
Their values are read-only like every tensor value; operations that need a buffer of their
own (``x[i] = v``, ``np.array(x)``, ...) make one.

The other creation functions build their value with NumPy at once: they are not
elementwise expressions, so there is nothing to fuse.
"""

from __future__ import annotations

import math

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine.errors import Unsupported
from .._engine.foreign import is_dask, refuse_dask
from .._engine.fpenv import library_state
from .._engine.shapes import MAX_SIZE, check_size
from .args import integer_arg, wrap
from .._engine.tensor import Tensor, _check_device
from .._engine import views as _views
from .._engine.views import source_tensor as _source_tensor

__all__ = ['arange', 'asarray', 'empty', 'empty_like', 'eye', 'from_dlpack', 'full',
           'full_like', 'linspace', 'meshgrid', 'ones', 'ones_like', 'tril', 'triu', 'zeros',
           'zeros_like']


# ---- helpers ---------------------------------------------------------------------------
def operand(x, what: str) -> Tensor:
    """``x`` as a Tensor: tensors as they are, anything NumPy's ``asarray`` takes (lists,
    tuples, NumPy arrays and scalars, Python scalars) converted as ``asarray`` would."""
    if isinstance(x, Tensor):
        return x
    refuse_dask(x, what)    # (asarray gives a dask array; the namespace's functions take it)
    try:
        return asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}: expected a Tensor or an array-like, got "
                        f"{type(x).__name__} ({exc})") from None


def _shape_arg(shape, what) -> tuple:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        shape = tuple(integer_arg(n, what, "shape") for n in shape)
    except TypeError:
        raise TypeError(f"{what}: shape must be an int or a tuple of ints, got "
                        f"{shape!r}") from None
    if any(n < 0 for n in shape):
        raise ValueError(f"{what}: negative dimension in shape {shape}")
    return shape


def _dtype_or(dtype, default, what) -> np.dtype:
    return _dtypes.canonical_dtype(dtype if dtype is not None else default, where=what)


def _order(order, what):
    """NumPy's ``order=``: accepted (a tensor's layout is lazytensor's to choose; values are
    the same), checked as NumPy checks it."""
    if order not in ("C", "F", "K", "A", None):
        raise ValueError(f"{what}: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def _copy_value(v: np.ndarray) -> np.ndarray:
    """A copy of ``v`` that keeps its zero strides: a fill's copy is still one element."""
    if v.size and 0 in v.strides:
        core = v[tuple(slice(0, 1) if s == 0 else slice(None) for s in v.strides)]
        return np.broadcast_to(core.copy(), v.shape)
    return v.copy()


def _scalar_as(value, dtype: np.dtype, what: str) -> np.ndarray:
    """A 0-d array holding ``value`` converted to ``dtype``.

    Value-preserving conversions are exact (a Python int that does not fit an integer
    dtype raises ``OverflowError``); lossy ones (float to integer, complex to real, ...)
    follow ``astype``'s rules, so ``full`` agrees with ``astype(full(...))``.
    """
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"{what}: fill_value must be a scalar or a 0-d tensor, got a "
                             f"tensor of shape {value.shape}")
        value = value._value()
    kind = _dtypes.python_scalar_type(value)
    if kind is None and not (isinstance(value, (np.generic, np.ndarray))
                             and np.ndim(value) == 0):
        raise TypeError(f"{what}: fill_value must be a bool, int, float or complex, got "
                        f"{type(value).__name__}")
    if kind is int and dtype.kind in "iu":
        try:
            return _dtypes.scalar_to_array(value, dtype)
        except OverflowError as exc:
            raise OverflowError(f"{what}: {exc}") from None
    if kind is bool or (kind in (int, float) and dtype.kind in "fc") or \
            (kind is complex and dtype.kind == "c"):
        with np.errstate(over="ignore"), library_state():
            try:
                return np.array(value, dtype=dtype)
            except OverflowError as exc:
                raise OverflowError(f"{what}: {value!r} does not fit {dtype.name}: "
                                    f"{exc}") from None
    src = np.array(value)   # a copy: the fill must not follow writes to a caller's array
    if src.dtype == dtype:
        return src
    return np.asarray(Tensor._from_array(src).astype(dtype)._value())


# ---- asarray and from_dlpack ---------------------------------------------------------
def asarray(obj, /, *, dtype=None, device=None, copy=None) -> Tensor:
    """Convert ``obj`` to a Tensor.

    Parameters
    ----------
    obj : Tensor, array-like, buffer, Python scalar or nested sequence
        NumPy arrays, objects with ``__array__`` or ``__dlpack__``, buffers (``bytes``,
        ``bytearray``, ``memoryview``...), Python scalars and nested sequences of them.
        A dask array is not computed: the result is the dask array with Tensor blocks
        (``dtype`` applied per block; docs/dask.md).
    dtype : dtype, optional
        The result's dtype; by default inferred (Python bools give ``bool``, ints
        ``int64``, floats ``float64``, complex numbers ``complex128``).  Conversions follow
        ``astype``'s rules, except that a Python integer that does not fit raises
        ``OverflowError``.
    device : {CPU device, "cpu", None}
    copy : bool or None
        ``True`` always copies; ``False`` never does (``ValueError`` if it must);
        ``None`` copies only when needed.  A tensor made without a copy reads the source
        buffer when it is evaluated, so later writes to that buffer are seen by tensors
        that are still lazy.

    Returns
    -------
    Tensor
        (a dask array of Tensor blocks for a dask array)
    """
    if type(obj) is np.ndarray and dtype is None and device is None and copy is None:
        src = _dtypes._SERVED.get(obj.dtype)   # the common case, lean: a native
        if src is not None and obj.dtype is src:    # array of one of our dtypes, no copy
            # a view: it reads the caller's memory, but reshaping the caller's array object
            # in place (a.shape = ...) must not change the shape the tensor has recorded
            return _source_tensor(obj.view())
    _check_device(device, "asarray")
    target = _dtypes.canonical_dtype(dtype, where="asarray") if dtype is not None else None
    if isinstance(obj, Tensor):
        return _from_tensor(obj, target, copy)
    if is_dask(obj):          # a dask array of Tensor blocks, nothing computed (docs/dask.md)
        from .dask_arrays import as_tensor_blocks

        return as_tensor_blocks(obj, target)
    arr = _numpy_from(obj, target, copy)
    src = _dtypes.canonical_dtype(arr.dtype, where="asarray")
    if arr.dtype != src:  # non-native byte order
        if copy is False:   # its values can be read, but not handed out without a copy
            raise ValueError("asarray: the input's byte order is not native, so it needs a "
                             "copy, but copy=False was given")
        if copy:          # our own copy: native storage
            arr = arr.astype(src)
        # else the caller's array is kept as any other layout is: the tensor (of the native
        # dtype) reads it when evaluated (_kernel.operand_of converts it then)
    if target is not None and target != src:
        if copy is False:
            raise ValueError(f"asarray: converting {src.name} to {target.name} needs a copy, "
                             f"but copy=False was given")
        # convert now: the result must not depend on later writes to the source
        return Tensor._from_array(np.asarray(Tensor._from_array(arr).astype(target)._value()))
    if arr is obj:
        # as above: the caller's array object may be reshaped in place
        return _source_tensor(arr.view(np.ndarray))
    elif arr.flags.writeable:
        # an array made here (a copy, a conversion, a view of a buffer): what the tensor
        # hands out is read-only, so its value cannot be changed through it.  The caller's
        # own array object is left as it is (asarray without a copy reads the source).
        arr.setflags(False)
    return Tensor._from_array(arr)


def _from_tensor(t: Tensor, target, copy) -> Tensor:
    if target is not None and target != t.dtype:
        if copy is False:
            raise ValueError(f"asarray: converting {t.dtype.name} to {target.name} needs "
                             f"a copy, but copy=False was given")
        return t.astype(target)
    if not copy:
        return t
    node = t._node
    if node.op == "leaf":   # a leaf may view a buffer the caller owns: copy it
        return wrap(_copy_value(node.value))
    # a pending or read-only value is never written, so a new tensor on its node is a copy
    return _views.fresh(t)


_INT64 = np.iinfo(np.int64)


def _numpy_from(obj, target, copy) -> np.ndarray:
    refuse_dask(obj, "asarray")     # NumPy's asarray would compute the whole dask array
    if isinstance(obj, (bytes, bytearray)):   # a buffer of bytes, never a string
        arr = np.frombuffer(obj, dtype=np.uint8)
        return arr.copy() if copy else arr
    if hasattr(obj, "__dlpack__") and not hasattr(obj, "__array__"):
        return np.from_dlpack(obj, copy=copy)
    python_ints = _is_python_ints(obj)
    if python_ints and isinstance(obj, int) and target is None and \
            not _INT64.min <= obj <= _INT64.max:
        raise OverflowError(f"asarray: Python integer {obj} is out of range for int64 (pass "
                            f"dtype=uint64 for values up to 2**64 - 1)")
    try:
        if python_ints and target is not None and target.kind in "iu":
            # let NumPy range-check Python integers against the target
            arr = np.asarray(obj, dtype=target, copy=copy)
        else:
            arr = np.asarray(obj, copy=copy)
    except OverflowError as exc:
        raise OverflowError(f"asarray: {exc}") from None
    except ValueError as exc:
        if copy is False and "copy" in str(exc):
            raise ValueError("asarray: copy=False was given but the input cannot be used "
                             "without a copy") from None
        raise ValueError(f"asarray: cannot make a tensor from this object: {exc}") from None
    if arr.dtype == object:
        raise Unsupported("asarray: the input holds Python objects (ragged lists, integers "
                          "beyond 64 bits, or other non-numeric values), which lazytensor "
                          "does not store")
    if python_ints and target is None and arr.dtype in (np.uint64, np.float64) and \
            _all_python_ints(obj):
        # NumPy turns integers beyond int64 into uint64 or float64; the standard wants int64
        raise OverflowError("asarray: a Python integer is out of range for int64 (pass "
                            "dtype=uint64 for values up to 2**64 - 1)")
    return arr


def _is_python_ints(obj) -> bool:
    """Whether ``obj`` is a Python int or a nested sequence starting with one."""
    while isinstance(obj, (list, tuple)) and obj:
        obj = obj[0]
    return isinstance(obj, int) and not isinstance(obj, bool)


def _all_python_ints(obj) -> bool:
    """Whether every leaf of the nested sequence ``obj`` is a Python int (or bool)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif not isinstance(item, int):
            return False
    return True


# DLPack's device types (dlpack.h, DLDeviceType), for errors; those NumPy reads in place
_DL_DEVICES = {1: "CPU", 2: "CUDA", 3: "CUDA host", 4: "OpenCL", 7: "Vulkan", 8: "Metal",
               9: "VPI", 10: "ROCm", 11: "ROCm host", 12: "ext_dev", 13: "CUDA managed",
               14: "oneAPI", 15: "WebGPU", 16: "Hexagon", 17: "MAIA"}
_DL_HOST = (1, 3, 11, 13)


def _check_dlpack_device(dl_device, exporter: str) -> None:
    """BufferError naming the device when an exporter's data is not in host memory (the
    Array API's error for data that cannot be exchanged), before asking for a capsule."""
    try:
        kind, index = (int(v) for v in dl_device)
    except (TypeError, ValueError):
        raise BufferError(f"from_dlpack: {exporter}.__dlpack_device__() returned "
                          f"{dl_device!r}, not (device type, device id)") from None
    if kind not in _DL_HOST:
        name = _DL_DEVICES.get(kind, "unknown")
        raise BufferError(f"from_dlpack: the {exporter} is on device {name} {index} "
                          f"(DLPack device type {kind}); lazytensor reads CPU memory only: "
                          f"copy it to the CPU first")


def from_dlpack(x, /, *, device=None, copy=None) -> Tensor:
    """A tensor holding the data of an object that exports DLPack (``__dlpack__``).

    Parameters
    ----------
    x : object
        Any DLPack exporter on the CPU (NumPy arrays, tensors of other libraries...).
    device : {CPU device, "cpu", None}
    copy : bool or None
        ``True`` always copies; ``False`` never does (an error if it must); ``None``
        shares the exporter's memory when it can.

    Returns
    -------
    Tensor
    """
    _check_device(device, "from_dlpack")
    if not hasattr(x, "__dlpack__"):
        raise AttributeError(f"from_dlpack: {type(x).__name__} does not export DLPack "
                             f"(it has no __dlpack__ method)")
    if device is None and hasattr(x, "__dlpack_device__"):
        _check_dlpack_device(x.__dlpack_device__(), type(x).__name__)
    try:
        arr = np.from_dlpack(x, device="cpu" if device is not None else None, copy=copy)
    except (BufferError, ValueError, TypeError, RuntimeError):
        if hasattr(x, "__dlpack_device__"):   # device='cpu': the exporter made no CPU copy
            _check_dlpack_device(x.__dlpack_device__(), type(x).__name__)
        raise
    dtype = _dtypes.canonical_dtype(arr.dtype, where="from_dlpack")
    if arr.dtype != dtype:
        return Tensor._from_array(arr.astype(dtype))
    # the exporter's memory, as asarray's of a caller's array: writable memory, or a
    # read-only source (not a plain value that still reads memory a write may change)
    return _source_tensor(arr)


# ---- fills -----------------------------------------------------------------------------
def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (stored once, broadcast).

    Parameters
    ----------
    shape : int or tuple of ints
    fill_value : bool, int, float or complex
        Or, as in NumPy, an array (tensor, ndarray, list) broadcast to ``shape``.
    dtype : dtype, optional
        By default ``bool``, ``int64``, ``float64`` or ``complex128`` after the type of
        ``fill_value`` (a NumPy scalar or an array keeps its dtype).
    order : {"C", "F"}
        NumPy's memory order, accepted for compatibility (the values are the same).
    device : {CPU device, "cpu", None}
    like : ignored (NumPy's dispatch argument)

    Returns
    -------
    Tensor
    """
    _order(order, "full")
    return _full(shape, fill_value, dtype, device, "full")


def _full(shape, fill_value, dtype, device, what) -> Tensor:
    """full() for the function ``what`` (named in errors)."""
    kind = type(fill_value)
    if (device is None and type(shape) is tuple and (kind is int or kind is bool or kind is float)
            and (dtype is None or isinstance(dtype, np.dtype))
            and all(type(n) is int for n in shape)):
        # the common case, kept: the same arguments give the same read-only array (each call
        # still gets a leaf of its own); floats by their bits, NaN not kept
        key = (shape, kind, fill_value.hex() if kind is float else fill_value, dtype)
        kept = _FULL_KEPT.get(key)
        if kept is None and not (kind is float and fill_value != fill_value):
            kept = _full_array(shape, fill_value, dtype, None, what)
            if len(_FULL_KEPT) >= 1024:
                _FULL_KEPT.clear()
            _FULL_KEPT[key] = kept
        if kept is not None:
            return Tensor._from_array(kept)
    return Tensor._from_array(_full_array(shape, fill_value, dtype, device, what))


# (shape, fill type, fill value, dtype) -> the read-only broadcast array full() made for them
_FULL_KEPT: dict = {}


def _full_array(shape, fill_value, dtype, device, what) -> np.ndarray:
    """full()'s value: the fill converted once and broadcast to ``shape`` (read-only)."""
    _check_device(device, what)
    shape = _shape_arg(shape, what)
    if _is_array(fill_value):
        return _filled_with_array(shape, fill_value, dtype, what)
    if dtype is None:
        if isinstance(fill_value, (Tensor, np.generic, np.ndarray)):
            dtype = fill_value.dtype
        else:
            kind = _dtypes.python_scalar_type(fill_value)
            if kind is None:
                raise TypeError(f"{what}: fill_value must be a bool, int, float or complex, "
                                f"got {type(fill_value).__name__}")
            dtype = _dtypes.result_type_of((), (kind,))
    dtype = _dtypes.canonical_dtype(dtype, where=what)
    check_size(shape, what, dtype)
    return np.broadcast_to(_scalar_as(fill_value, dtype, what), shape)


def _linspace_of_arrays(start, stop, num, endpoint, retstep, dtype, axis):
    """NumPy's ``linspace`` of array endpoints (the standard takes scalars only)."""
    ends = [v._value() if isinstance(v, Tensor) else v for v in (start, stop)]
    if dtype is not None:
        dtype = _dtypes.canonical_dtype(dtype, where="linspace")
    try:
        with np.errstate(all="ignore"), library_state():
            out = np.linspace(*ends, num, endpoint=bool(endpoint), retstep=bool(retstep),
                              dtype=dtype, axis=axis)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"linspace: {exc}") from None
    if retstep:
        return wrap(out[0]), wrap(out[1])
    return wrap(out)


def _is_array(v) -> bool:
    """Whether ``v`` is an array of values (not a scalar or a 0-d array)."""
    return isinstance(v, (list, tuple)) or isinstance(v, (Tensor, np.ndarray)) and v.ndim > 0


def _filled_with_array(shape, fill, dtype, what) -> np.ndarray:
    """NumPy's ``full`` of an array fill: broadcast to ``shape``, cast as ``copyto`` casts
    (unsafe), by default in the fill's dtype (the standard takes scalars only)."""
    fill = fill._value() if isinstance(fill, Tensor) else np.asarray(fill)
    dtype = _dtypes.canonical_dtype(fill.dtype if dtype is None else dtype, where=what)
    check_size(shape, what, dtype)
    try:
        fits = np.broadcast_shapes(fill.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{what}: a fill_value of shape {fill.shape} does not broadcast to "
                         f"the shape {shape}")
    out = np.empty(shape, dtype)
    with np.errstate(all="ignore"), library_state():
        np.copyto(out, fill, casting="unsafe")
    return out


def zeros(shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """A tensor of zeros of ``shape`` (default dtype float64)."""
    _order(order, "zeros")
    return _full(shape, 0, _dtype_or(dtype, _dtypes.float64, "zeros"), device, "zeros")


def ones(shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """A tensor of ones of ``shape`` (default dtype float64)."""
    _order(order, "ones")
    return _full(shape, 1, _dtype_or(dtype, _dtypes.float64, "ones"), device, "ones")


def empty(shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """An uninitialised tensor of ``shape`` (default dtype float64).

    Here it holds zeros, which, stored once and broadcast, cost no memory.
    """
    _order(order, "empty")
    return _full(shape, 0, _dtype_or(dtype, _dtypes.float64, "empty"), device, "empty")


def full_like(x, /, fill_value, dtype=None, order="K", subok=True, shape=None, *,
              device=None) -> Tensor:
    """A tensor of ``fill_value`` with the shape (and by default the dtype) of ``x``
    (NumPy's ``shape=`` overrides the shape; ``order`` and ``subok`` are accepted)."""
    x = operand(x, "full_like")
    _order(order, "full_like")
    return _full(x.shape if shape is None else shape, fill_value,
                 _dtype_or(dtype, x.dtype, "full_like"), device, "full_like")


def _like(name, fill, what):
    def fn(x, /, dtype=None, order="K", subok=True, shape=None, *, device=None):
        x = operand(x, name)
        _order(order, name)
        return _full(x.shape if shape is None else shape, fill,
                     _dtype_or(dtype, x.dtype, name), device, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"A tensor of {what} with the shape (and by default the dtype) of ``x`` "
                  f"(NumPy's ``shape=`` overrides the shape; ``order``, ``subok`` accepted).")
    return fn


zeros_like = _like("zeros_like", 0, "zeros")
ones_like = _like("ones_like", 1, "ones")
empty_like = _like("empty_like", 0, "uninitialised values (here zeros, stored once)")


# ---- ranges and grids --------------------------------------------------------------------
def _real_arg(value, name, what):
    if isinstance(value, Tensor):
        value = value._scalar(f"{what}'s {name}")
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"{what}: {name} must be a real number, got {value!r}")
    if not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}: {name} must be an int or a float, got "
                        f"{type(value).__name__}")
    return value.item() if isinstance(value, np.generic) else value


def arange(start, /, stop=None, step=1, dtype=None, *, device=None, like=None) -> Tensor:
    """Evenly spaced values in ``[start, stop)``, ``step`` apart.

    Parameters
    ----------
    start : int or float
        The start, or (without ``stop``) the end with start 0.
    stop : int or float, optional
    step : int or float
        Not zero.  The length is ``ceil((stop - start) / step)`` (0 if negative).
    dtype : dtype, optional
        By default ``int64`` if all arguments are ints, else ``float64``.
    device : {CPU device, "cpu", None}

    Returns
    -------
    Tensor
        One-dimensional.
    """
    _check_device(device, "arange")
    start = _real_arg(start, "start", "arange")
    step = _real_arg(step, "step", "arange")
    if stop is None:
        start, stop = 0, start
    else:
        stop = _real_arg(stop, "stop", "arange")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    all_int = all(isinstance(v, int) for v in (start, stop, step))
    dtype = _dtype_or(dtype, _dtypes.int64 if all_int else _dtypes.float64, "arange")
    if all_int and dtype.kind in "iu":
        # compute in a 64-bit integer type that holds the arguments, so that start + step
        # cannot overflow a narrow dtype on the way
        work = np.uint64 if max(start, stop) > _INT64.max else np.int64
    elif dtype.kind == "c":
        work = np.complex128
    else:
        work = np.float64   # round each value once, from float64
    check_size((_arange_length(start, stop, step),), "arange", dtype)
    try:
        with library_state():
            arr = np.arange(start, stop, step, dtype=work)
    except (ValueError, OverflowError, MemoryError) as exc:
        raise type(exc)(f"arange({start}, {stop}, {step}): {exc}") from None
    if arr.dtype != dtype:
        if dtype.kind in "iu" and arr.size:
            info = np.iinfo(dtype)
            lo, hi = sorted((arr[0], arr[-1]))
            if lo < info.min or hi > info.max:
                raise OverflowError(f"arange({start}, {stop}, {step}): values from {arr[0]} "
                                    f"to {arr[-1]} do not fit {dtype.name}")
        with np.errstate(all="ignore"), library_state():
            arr = arr.astype(dtype)
    return Tensor._from_array(arr)


def _arange_length(start, stop, step) -> int:
    """arange's length, ``ceil((stop - start) / step)`` (at least 0), for the size check;
    0 when it cannot be computed (NaN: NumPy says so)."""
    if all(isinstance(v, int) for v in (start, stop, step)):
        return max(0, -((start - stop) // step))
    try:
        q = (stop - start) / step
    except OverflowError:
        q = math.inf
    if q != q:
        return 0
    return MAX_SIZE + 1 if q == math.inf else max(0, math.ceil(q))


def linspace(start, stop, /, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced values from ``start`` to ``stop``.

    Parameters
    ----------
    start, stop : int, float or complex
        Or, as in NumPy, arrays (tensors, ndarrays, lists) broadcast together: the values
        run along a new axis ``axis`` of the result (NumPy's ``linspace`` computes them).
    num : int
        The number of values, at least 0.
    dtype : dtype, optional
        By default ``complex128`` if ``start`` or ``stop`` is complex, else ``float64``.
        Values are computed in double precision and rounded once.
    device : {CPU device, "cpu", None}
    endpoint : bool
        Whether ``stop`` is the last value (else the interval is ``[start, stop)``).
    retstep : bool
        NumPy's: also return the step (a NumPy scalar, as NumPy's).
    axis : int
        NumPy's: the axis of the values (0 or -1 for scalar ``start`` and ``stop``).

    Returns
    -------
    Tensor
        One-dimensional, of length ``num`` (with the step if ``retstep``).
    """
    _check_device(device, "linspace")
    num = integer_arg(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    if _is_array(start) or _is_array(stop):
        return _linspace_of_arrays(start, stop, num, endpoint, retstep, dtype, axis)
    values = []
    for name, v in (("start", start), ("stop", stop)):
        if isinstance(v, Tensor):
            v = v._scalar(f"linspace's {name}")
        if not isinstance(v, (int, float, complex, np.number)) or isinstance(v, bool):
            raise TypeError(f"linspace: {name} must be an int, float or complex, got "
                            f"{type(v).__name__}")
        values.append(v)
    is_complex = any(isinstance(v, (complex, np.complexfloating)) for v in values)
    dtype = _dtype_or(dtype, _dtypes.complex128 if is_complex else _dtypes.float64,
                      "linspace")
    if is_complex and dtype.kind != "c":
        raise TypeError(f"linspace: a complex start or stop needs a complex dtype, not "
                        f"{dtype.name}")
    check_size((num,), "linspace", dtype)
    if axis not in (0, -1):
        raise ValueError(f"linspace: axis {axis} is out of bounds for the 1-d result")
    with np.errstate(over="ignore", invalid="ignore"), library_state():
        arr, step = np.linspace(values[0], values[1], num, endpoint=bool(endpoint),
                                dtype=dtype, retstep=True)
    return (Tensor._from_array(arr), step) if retstep else Tensor._from_array(arr)


def eye(n_rows, n_cols=None, /, k=0, dtype=None, order="C", *, device=None,
        like=None) -> Tensor:
    """A 2-d tensor with ones on the ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    n_rows : int
    n_cols : int, optional
        By default ``n_rows``.
    k : int
        The diagonal: 0 the main one, positive above it, negative below.
    dtype : dtype, optional
        By default float64.
    device : {CPU device, "cpu", None}

    Returns
    -------
    Tensor
    """
    _check_device(device, "eye")
    n_rows = integer_arg(n_rows, "eye", "n_rows")
    n_cols = n_rows if n_cols is None else integer_arg(n_cols, "eye", "n_cols")
    k = integer_arg(k, "eye", "k")
    if n_rows < 0 or n_cols < 0:
        raise ValueError(f"eye: n_rows and n_cols must be non-negative, got {n_rows} and "
                         f"{n_cols}")
    _order(order, "eye")
    dtype = _dtype_or(dtype, _dtypes.float64, "eye")
    check_size((n_rows, n_cols), "eye", dtype)
    return Tensor._from_array(np.eye(n_rows, n_cols, k=k, dtype=dtype))


def meshgrid(*arrays, indexing="xy", sparse=False, copy=True) -> tuple:
    """Coordinate grids from one-dimensional coordinate tensors.

    Parameters
    ----------
    *arrays : Tensor or array_like
        Coordinate tensors of sizes ``N1, N2, ..., Nn``: one-dimensional in the standard;
        others are flattened, as NumPy's ``meshgrid`` does.
    indexing : {"xy", "ij"}
        ``"ij"`` gives grids of shape ``(N1, N2, ..., Nn)``; ``"xy"`` (Cartesian) swaps
        the first two: ``(N2, N1, N3, ..., Nn)``.
    sparse : bool
        NumPy's: grids of shape 1 along all axes but their own (broadcastable).
    copy : bool
        True (the default): grids of their own, as NumPy's copies.  False: views of the
        inputs, as NumPy's: reshaped views when ``sparse`` (writes reach the input), else
        broadcast views, read-only (NumPy's warn on a write).

    Returns
    -------
    tuple of Tensor
        One grid per input, with its dtype.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    arrays = [operand(x, "meshgrid") for x in arrays]
    shape = [x.size for x in arrays]
    if indexing == "xy" and len(shape) > 1:
        shape[:2] = shape[1], shape[0]
    for x in arrays:
        check_size(tuple(shape), "meshgrid", x.dtype)
    if copy:                                  # grids of their own, as NumPy's copies
        grids = np.meshgrid(*(x._value() for x in arrays), indexing=indexing, copy=True,
                            sparse=bool(sparse))
        return tuple(Tensor._from_array(g) for g in grids)
    # NumPy's views of the inputs: sparse, reshaped views (writes reach the input); else
    # broadcast views, read-only here (NumPy's warn on a write, and will refuse it)
    out = []
    for k, x in enumerate(arrays):
        axis = (1 - k if k < 2 else k) if indexing == "xy" and len(arrays) > 1 else k
        grid = [1] * len(arrays)
        grid[axis] = x.size

        def make(m, grid=tuple(grid)):
            g = m.reshape(grid)
            return g if sparse else np.broadcast_to(g, tuple(shape))
        out.append(_views.view(x, make, read_only=not sparse))
    return tuple(out)


def _triangle(name, np_fn, keep):
    def fn(x, /, k=0):
        x = operand(x, name)
        k = integer_arg(k, name, "k")
        if x.ndim < 2:
            raise ValueError(f"{name}: x must have at least 2 dimensions, got shape "
                             f"{x.shape}")
        return Tensor._from_array(np_fn(x._value(), k=k))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The {keep} triangular part of the matrices in ``x`` (shape ``(..., M, "
                  f"N)``): the elements {'on and below' if keep == 'lower' else 'on and above'}"
                  f" diagonal ``k`` are kept, the others set to zero.")
    return fn


tril = _triangle("tril", np.tril, "lower")
triu = _triangle("triu", np.triu, "upper")
