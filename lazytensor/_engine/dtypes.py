"""Data types, their kinds, and type promotion (Array API rules, Python scalars weak).

lazytensor's dtypes are NumPy dtype objects, so they compare equal to NumPy's and to
strings such as ``"float32"``.
"""

from __future__ import annotations

import functools

import numpy as np

from .errors import Unsupported
from .fpenv import library_state
from .ops import DTYPES as _TABLE

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)

#: dtypes the C kernel computes on or casts between
KERNEL_DTYPES = tuple(np.dtype(row[0]) for row in _TABLE)
#: every dtype a tensor may hold (complex ones included: the kernel computes on them too)
ALL_DTYPES = KERNEL_DTYPES
_BY_NAME = {dt.name: dt for dt in ALL_DTYPES}
_BY_NAME["bool"] = bool_
# the native dtype objects themselves: canonical_dtype returns them without a lookup by name
_SERVED = {dt: dt for dt in _BY_NAME.values() if dt.isnative}
# other objects that stand for a served dtype (the API's dtype names, whose hash is a Python
# method), by identity: id -> (the object, kept alive, its dtype)
_ALIASES_BY_ID = {}


def register_alias(obj, dtype: np.dtype) -> None:
    """Let ``canonical_dtype`` turn ``obj`` into ``dtype`` by identity, first."""
    _ALIASES_BY_ID[id(obj)] = (obj, _SERVED[dtype])

# op kind letter of each dtype, as used by the operator table; float16 ops run in
# float32 (see lower.py), so float16 is of kind "f" here
_KIND = {np.dtype(row[0]): ("f" if row[3] == "h" else row[3]) for row in _TABLE}


def kind(dtype: np.dtype) -> str:
    """The operator-table kind of a dtype: b, i, u, f, or c (complex)."""
    return _KIND.get(dtype, "c")


def canonical_dtype(dtype, *, where: str = "dtype") -> np.dtype:
    """Turn a user's dtype spec into one of lazytensor's dtypes, or raise a clear error."""
    alias = _ALIASES_BY_ID.get(id(dtype))
    if alias is not None and alias[0] is dtype:
        return alias[1]
    try:   # one of ours already (the common case: dtype.name is slow in NumPy)
        served = _SERVED.get(dtype)
    except TypeError:   # unhashable: not a dtype spec, let NumPy say so below
        served = None
    if served is not None:
        return served
    if dtype is bool:
        return bool_
    if dtype is int:
        return int64
    if dtype is float:
        return float64
    if dtype is complex:
        return complex128
    name = getattr(dtype, "name", None) if not isinstance(dtype, str) else dtype
    if isinstance(name, str):
        low = name.lower()
        if "bfloat16" in low:
            raise Unsupported(f"{where}: bfloat16 is not served by lazytensor (no bf16 storage "
                              f"or arithmetic yet); cast to float32 first")
        if low.startswith("float8") or low.startswith("float4") or low.startswith("int4") \
                or low.startswith("uint4"):
            raise Unsupported(f"{where}: {name} (a float8/4-bit type) is not served by lazytensor")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise Unsupported(f"{where}: {dtype!r} is not a dtype lazytensor serves") from None
    if dt.name in _BY_NAME and dt.byteorder in "=|" + ("<" if np.little_endian else ">"):
        return _BY_NAME[dt.name]
    if dt.name in _BY_NAME:  # non-native byte order: same values, native storage
        return _BY_NAME[dt.name]
    what = {"U": "strings", "S": "byte strings", "O": "Python objects", "M": "datetimes",
            "m": "timedeltas", "V": "structured/void data"}.get(dt.kind, dt.name)
    raise Unsupported(f"{where}: dtype {dt.name} ({what}) is not served by lazytensor")


# Representative Python scalars: under NEP 50 promotion depends on the type only.
_SCALAR_PROBE = {bool: True, int: 1, float: 1.0, complex: 1j}


@functools.lru_cache(maxsize=4096)
def _result_type_cached(dtypes: tuple, scalar_types: tuple) -> np.dtype:
    probes = [_SCALAR_PROBE[t] for t in scalar_types]
    if not dtypes:
        return canonical_dtype(np.result_type(*probes))
    return canonical_dtype(np.result_type(*dtypes, *probes))


def result_type_of(dtypes, scalar_types=()) -> np.dtype:
    """Promoted dtype of tensors with ``dtypes`` and Python scalars of ``scalar_types``.

    Tensor dtypes promote by the Array API table (which NumPy 2 follows); Python scalars
    are weak: they take the tensors' dtype when their kind fits (``float32 + 1.0`` stays
    float32).  Mixed kinds follow NumPy (``int32 + float32`` is float64).
    """
    return _result_type_cached(tuple(dtypes), tuple(scalar_types))


def python_scalar_type(x):
    """bool/int/float/complex for a Python scalar, else None.

    NumPy scalars are not Python scalars here: like 0-d arrays they keep their dtype in
    promotion (as in NumPy), so ``float32_tensor * np.float64(2)`` is float64.
    """
    if isinstance(x, np.generic):
        return None
    if isinstance(x, bool):
        return bool
    if isinstance(x, int):
        return int
    if isinstance(x, float):
        return float
    if isinstance(x, complex):
        return complex
    return None


def scalar_to_array(value, dtype: np.dtype) -> np.ndarray:
    """A 0-d array holding Python scalar ``value`` as ``dtype``; OverflowError if it won't fit.

    The conversion is rounded in the library's floating-point state, not the caller's: the
    result is cached (constant nodes), so it must not depend on when it was first made.
    """
    if dtype.kind in "iu" and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise OverflowError(f"Python integer {value} is out of range for {dtype.name} "
                                f"[{info.min}, {info.max}]")
    if dtype.kind in "iub" and isinstance(value, (float, np.floating)):
        raise TypeError(f"cannot use the Python float {value!r} with a {dtype.name} tensor "
                        f"without a cast")
    with np.errstate(over="ignore"), library_state():
        out = np.array(value, dtype=dtype)
    out.flags.writeable = False
    return out
