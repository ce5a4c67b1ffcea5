"""Data type functions: ``can_cast``, ``finfo``, ``iinfo``, ``isdtype``, ``result_type``.

(``astype`` is elementwise and lives in ``elementwise.py``.)  Promotion follows the Array
API table, which NumPy 2 implements; where the standard leaves a case open (mixed kinds,
such as ``int32`` with ``float32``) lazytensor does what NumPy does.  Python scalars are
weak: they take the dtype of the tensors and dtypes they meet when their kind fits.

Extension (allowed by the standard): ``float16`` is a lazytensor dtype and belongs to the
``"real floating"`` and ``"numeric"`` kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine.tensor import Tensor
from .numpy_dtypes import as_dtype

__all__ = ["can_cast", "finfo", "iinfo", "isdtype", "result_type"]

# The kinds of isdtype and __array_namespace_info__().dtypes(kind=...): name -> dtype kinds
_KINDS = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def kind_matches(dtype: np.dtype, kind, where: str) -> bool:
    """Whether ``dtype`` is ``kind``: a dtype, a kind name, or a tuple of them."""
    if isinstance(kind, tuple):
        return any(kind_matches(dtype, k, where) for k in kind)
    kind = as_dtype(kind)     # lt.float32 is a dtype name callable as np.float32
    if isinstance(kind, str):
        letters = _KINDS.get(kind)
        if letters is None:
            raise ValueError(f"{where}: unknown dtype kind {kind!r}; the kinds are "
                             f"{', '.join(map(repr, _KINDS))}")
        return dtype.kind in letters
    if isinstance(kind, np.dtype):
        return dtype == kind
    raise TypeError(f"{where}: kind must be a dtype, a kind name or a tuple of them, got "
                    f"{type(kind).__name__}")


def _dtype_of(x, where: str) -> np.dtype:
    """The dtype of a Tensor, a NumPy array or scalar, or a dtype spec, as one of
    lazytensor's dtypes."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, (np.ndarray, np.generic)):       # NumPy's arrays, as np.result_type
        return _dtypes.canonical_dtype(x.dtype, where=where)
    return _dtypes.canonical_dtype(x, where=where)


def isdtype(dtype, kind) -> bool:
    """Whether ``dtype`` is of ``kind``.

    Parameters
    ----------
    dtype : dtype
        The dtype to test.
    kind : dtype, str or tuple of them
        A dtype (equality), a kind name (``"bool"``, ``"signed integer"``,
        ``"unsigned integer"``, ``"integral"``, ``"real floating"``,
        ``"complex floating"``, ``"numeric"``), or a tuple meaning any of them.

    Returns
    -------
    bool
    """
    dtype = as_dtype(dtype)
    if not isinstance(dtype, np.dtype):
        raise TypeError(f"isdtype: expected a dtype, got {type(dtype).__name__} "
                        f"{dtype!r}")
    return bool(kind_matches(dtype, kind, "isdtype"))


def result_type(*arrays_and_dtypes) -> np.dtype:
    """The dtype that type promotion gives for tensors, dtypes and Python scalars.

    Parameters
    ----------
    *arrays_and_dtypes : Tensor, dtype, bool, int, float or complex
        Python scalars are weak: ``result_type(int8, 1)`` is ``int8`` and
        ``result_type(float32, 1.0)`` is ``float32``; scalars alone give NumPy's default
        dtypes (``result_type(1, 1.0)`` is ``float64``).

    Returns
    -------
    dtype
    """
    dtypes, scalar_types = [], []
    for arg in arrays_and_dtypes:
        scalar = _dtypes.python_scalar_type(arg)
        if scalar is not None:
            scalar_types.append(scalar)
        else:
            dtypes.append(_dtype_of(arg, "result_type"))
    if not arrays_and_dtypes:
        raise ValueError("result_type: at least one tensor, dtype or scalar is required")
    if not dtypes:
        # the standard leaves scalars alone unspecified: NumPy's answer, the default dtypes
        return np.result_type(*arrays_and_dtypes)
    return _dtypes.result_type_of(dtypes, scalar_types)


def can_cast(from_, to, /) -> bool:
    """Whether ``from_`` (a dtype or tensor) casts to ``to`` by type promotion.

    True exactly when promoting ``from_`` with ``to`` gives ``to``: ``int8`` to ``int16``
    and ``float32`` to ``complex64`` can, ``int16`` to ``uint16`` and ``complex64`` to
    ``float64`` cannot.  Across kinds the answer is NumPy's ``safe`` casting
    (``int32`` to ``float64`` can, ``int64`` to ``float32`` cannot).

    Returns
    -------
    bool
    """
    src = _dtype_of(from_, "can_cast")
    dst = _dtypes.canonical_dtype(to, where="can_cast")
    return bool(_dtypes.result_type_of((src, dst)) == dst)


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating-point dtype (Python floats, as the standard asks)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype (Python ints)."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type, /) -> finfo_object:
    """Machine limits of a floating-point dtype (or of a tensor's dtype).

    For a complex dtype the limits are those of its real component: ``finfo(complex64)``
    describes ``float32``.

    Returns
    -------
    finfo_object
        With ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` and ``dtype``.
    """
    dtype = _dtype_of(type, "finfo")
    if dtype.kind not in "fc":
        raise TypeError(f"finfo: {dtype.name} is not a floating-point dtype"
                        + ("; use iinfo" if dtype.kind in "iu" else ""))
    info = np.finfo(dtype)
    real = _dtypes.canonical_dtype(info.dtype)
    return finfo_object(bits=int(info.bits), eps=float(info.eps), max=float(info.max),
                        min=float(info.min), smallest_normal=float(info.smallest_normal),
                        dtype=real)


def iinfo(type, /) -> iinfo_object:
    """Machine limits of an integer dtype (or of a tensor's dtype).

    Returns
    -------
    iinfo_object
        With ``bits``, ``max``, ``min`` and ``dtype``.
    """
    dtype = _dtype_of(type, "iinfo")
    if dtype.kind not in "iu":
        raise TypeError(f"iinfo: {dtype.name} is not an integer dtype"
                        + ("; use finfo" if dtype.kind in "fc" else ""))
    info = np.iinfo(dtype)
    return iinfo_object(bits=int(info.bits), max=int(info.max), min=int(info.min),
                        dtype=dtype)
