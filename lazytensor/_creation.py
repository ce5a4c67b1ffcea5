"""Creation functions: asarray and the fills.

Fills (``zeros``, ``ones``, ``full`` and their ``_like`` forms) are one value broadcast
with zero strides: they use no memory and the kernel reads them as a scalar.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _dtypes
from ._errors import Unsupported
from ._tensor import Tensor, _check_device

__all__ = ['arange', 'asarray', 'empty', 'empty_like', 'eye', 'from_dlpack', 'full', 'full_like', 'linspace', 'ones', 'ones_like', 'zeros', 'zeros_like']

_INT64 = np.iinfo(np.int64)


def _numpy_from(obj) -> np.ndarray:
    if isinstance(obj, (bytes, bytearray)):
        return np.frombuffer(obj, dtype=np.uint8)
    if isinstance(obj, int) and not isinstance(obj, bool) and not _INT64.min <= obj <= _INT64.max:
        raise OverflowError(f"asarray: Python integer {obj} is out of range for int64")
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray) and not hasattr(obj, "__array__"):
        return np.from_dlpack(obj)
    try:
        arr = np.asarray(obj)
    except OverflowError as exc:
        raise OverflowError(f"asarray: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"asarray: cannot make a tensor from this object: {exc}") from None
    if arr.dtype == object:
        raise Unsupported("asarray: the input holds Python objects (ragged lists, integers "
                          "beyond 64 bits, or other non-numeric values), which lazytensor "
                          "does not store")
    return arr


def asarray(obj, /, *, dtype=None, device=None, copy=None) -> Tensor:
    """Convert ``obj`` to a Tensor.

    Parameters
    ----------
    obj : Tensor, array-like, buffer, Python scalar or nested sequence
        NumPy arrays, objects with ``__array__`` or ``__dlpack__``, buffers (``bytes``,
        ``memoryview``...), Python scalars and nested lists of them.
    dtype : dtype, optional
        The result's dtype.  Conversions follow lazytensor's cast rules (float to integer
        truncates and saturates; integer to integer wraps), except that a Python integer
        that does not fit raises ``OverflowError``.
    device : {"cpu", None}
    copy : bool or None
        ``True`` always copies; ``False`` never does (``ValueError`` if it must);
        ``None`` copies only when needed.  A tensor made without a copy reads the source
        buffer when it is evaluated, so later writes to that buffer are seen by tensors
        that are still lazy.
    """
    _check_device(device, "asarray")
    target = _dtypes.canonical_dtype(dtype, where="asarray") if dtype is not None else None
    if isinstance(obj, Tensor):
        t = obj
        if target is not None and target != t.dtype:
            if copy is False:
                raise ValueError(f"asarray: converting {t.dtype.name} to {target.name} needs "
                                 f"a copy, but copy=False was given")
            return t.astype(target)
        if copy and t._node.op == "leaf":   # a leaf may view a buffer the caller owns
            return Tensor._from_array(np.array(t._node.value, copy=True))
        return t
    python_ints = target is not None and target.kind in "iu" and _is_python_ints(obj)
    if python_ints:   # let NumPy range-check Python integers against the target
        try:
            arr = np.asarray(obj, dtype=target)
        except OverflowError as exc:
            raise OverflowError(f"asarray: {exc}") from None
    else:
        arr = _numpy_from(obj)
    src = _dtypes.canonical_dtype(arr.dtype, where="asarray")
    if arr.dtype != src:  # non-native byte order
        arr = arr.astype(src)
    if target is not None and target != src:
        if copy is False:
            raise ValueError(f"asarray: converting {src.name} to {target.name} needs a copy, "
                             f"but copy=False was given")
        return Tensor._from_array(arr).astype(target)
    if copy:
        arr = np.array(arr, copy=True)
    elif copy is False and not _shares(obj, arr):
        raise ValueError("asarray: copy=False was given but the input cannot be used "
                         "without a copy")
    return Tensor._from_array(arr)


def _is_python_ints(obj) -> bool:
    if isinstance(obj, (bool, int)):
        return True
    if isinstance(obj, (list, tuple)) and obj:
        first = obj[0]
        while isinstance(first, (list, tuple)) and first:
            first = first[0]
        return isinstance(first, (bool, int))
    return False


def _shares(obj, arr) -> bool:
    try:
        return np.shares_memory(np.asarray(obj), arr) or arr.size == 0
    except Exception:
        return False


def _shape_arg(shape, what):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"{what}: shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(n < 0 for n in shape):
        raise ValueError(f"{what}: negative dimension in shape {shape}")
    return shape


def full(shape, fill_value, *, dtype=None, device=None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (stored once, broadcast)."""
    _check_device(device, "full")
    shape = _shape_arg(shape, "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value._value()[()]
    if isinstance(fill_value, np.generic):   # a NumPy scalar keeps its dtype
        if dtype is None:
            dtype = fill_value.dtype
        fill_value = fill_value.item()
    if dtype is None:
        kind = _dtypes.python_scalar_type(fill_value)
        if kind is None:
            raise TypeError(f"full: fill_value must be a scalar, got {type(fill_value).__name__}")
        dtype = _dtypes.result_type_of((), (kind,))
    dtype = _dtypes.canonical_dtype(dtype, where="full")
    value = _dtypes.scalar_to_array(fill_value, dtype) if dtype.kind in "iu" and \
        isinstance(fill_value, (int, np.integer)) else np.array(fill_value).astype(dtype)
    arr = np.broadcast_to(value, shape)
    return Tensor._from_array(arr)


def zeros(shape, *, dtype=None, device=None) -> Tensor:
    """A tensor of zeros (default dtype float64)."""
    return full(shape, 0, dtype=dtype if dtype is not None else _dtypes.float64, device=device)


def ones(shape, *, dtype=None, device=None) -> Tensor:
    """A tensor of ones (default dtype float64)."""
    return full(shape, 1, dtype=dtype if dtype is not None else _dtypes.float64, device=device)


def empty(shape, *, dtype=None, device=None) -> Tensor:
    """An uninitialised tensor (here: zeros, which cost no memory)."""
    return zeros(shape, dtype=dtype, device=device)


def _like(name, fill):
    def fn(x, /, *, dtype=None, device=None):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: expected a Tensor, got {type(x).__name__}")
        return full(x.shape, fill, dtype=dtype if dtype is not None else x.dtype, device=device)
    fn.__name__ = name
    fn.__doc__ = f"A tensor of {fill} with the shape (and by default the dtype) of ``x``."
    return fn


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)
empty_like = _like("empty_like", 0)


def full_like(x, /, fill_value, *, dtype=None, device=None) -> Tensor:
    """A tensor of ``fill_value`` with the shape (and by default the dtype) of ``x``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"full_like: expected a Tensor, got {type(x).__name__}")
    return full(x.shape, fill_value, dtype=dtype if dtype is not None else x.dtype,
                device=device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None) -> Tensor:
    """Evenly spaced values in ``[start, stop)``."""
    _check_device(device, "arange")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    arr = np.arange(start, stop, step) if stop is not None else np.arange(start, step=step)
    if dtype is not None:
        arr = arr.astype(_dtypes.canonical_dtype(dtype, where="arange"))
    return Tensor._from_array(arr)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    _check_device(device, "linspace")
    arr = np.linspace(start, stop, num, endpoint=endpoint)
    if dtype is not None:
        arr = arr.astype(_dtypes.canonical_dtype(dtype, where="linspace"))
    return Tensor._from_array(arr)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None) -> Tensor:
    """A 2-d tensor with ones on the ``k``-th diagonal."""
    _check_device(device, "eye")
    dtype = _dtypes.canonical_dtype(dtype if dtype is not None else "float64", where="eye")
    return Tensor._from_array(np.eye(n_rows, n_cols, k=k, dtype=dtype))


def from_dlpack(x, /, *, device=None, copy=None) -> Tensor:
    """A tensor from an object that exports DLPack."""
    _check_device(device, "from_dlpack")
    arr = np.from_dlpack(x)
    if copy:
        arr = arr.copy()
    return Tensor._from_array(arr)
