"""The inspection API: ``__array_namespace_info__()`` and ``__array_api_version__``."""

from __future__ import annotations

from .._engine import dtypes as _dtypes
from .data_type_functions import kind_matches
from .._engine.tensor import CPU, _check_device

__all__ = ["__array_namespace_info__", "__array_api_version__"]

#: the version of the Array API standard that lazytensor implements
__array_api_version__ = "2025.12"

# The standard's dtypes, in its order; float16 is a lazytensor extension and the standard
# forbids listing dtypes it does not define.
_STANDARD_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64", "complex64", "complex128")


class Info:
    """What lazytensor supports: capabilities, devices and dtypes (Array API inspection)."""

    __slots__ = ()

    def __repr__(self):
        return "lazytensor.__array_namespace_info__()"

    def capabilities(self) -> dict:
        """Boolean indexing and data-dependent shapes are supported; at most 64 dims."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        """The CPU, the only device."""
        return CPU

    def devices(self) -> tuple:
        """The devices tensors can live on: the CPU only.  A tuple, as the 2025.12 standard
        says (a list before it), that also concatenates with a list, as SciPy's test
        fixtures do (``devices() + [None]``)."""
        return _Devices((CPU,))

    def default_dtypes(self, *, device=None) -> dict:
        """The default dtypes: float64, complex128, int64 (also for indexing)."""
        _check_device(device, "default_dtypes")
        return {"real floating": _dtypes.float64, "complex floating": _dtypes.complex128,
                "integral": _dtypes.int64, "indexing": _dtypes.int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The standard's dtypes that lazytensor supports, by name.

        Parameters
        ----------
        device : device, optional
            Only the CPU (or None).
        kind : str or tuple of str, optional
            Keep only dtypes of this kind (the kinds of :func:`isdtype`).
        """
        _check_device(device, "dtypes")
        out = {}
        for name in _STANDARD_DTYPES:
            dtype = _dtypes.canonical_dtype(name)
            if kind is None or kind_matches(dtype, kind, "dtypes"):
                out[name] = dtype
        return out


_INFO = Info()


def __array_namespace_info__() -> Info:
    """The inspection namespace: ``capabilities()``, ``default_device()``,
    ``default_dtypes()``, ``devices()`` and ``dtypes()``."""
    return _INFO


class _Devices(tuple):
    """``devices()``'s tuple; ``+ list`` gives a list (what code written for the 2024.12
    standard's list does), ``+ tuple`` a tuple."""

    __slots__ = ()

    def __add__(self, other):
        if isinstance(other, list):
            return list(self) + other
        return tuple.__add__(self, other)
