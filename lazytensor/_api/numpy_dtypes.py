"""The dtype names as NumPy's scalar types: ``lt.float32(1.5)`` is ``np.float32(1.5)`` while
``lt.float32`` still works everywhere a dtype does.

Each public dtype name (``lt.float32``, ``lt.int64``, ``lt.bool`` ...) is a small class of
the metaclass :class:`ScalarType`.  It

- calls as NumPy's scalar type (``lt.float32(1.5)`` gives ``np.float32(1.5)``;
  ``isinstance(np.float32(1), lt.float32)`` is true);
- compares equal to the NumPy dtype, to NumPy's scalar type and to the dtype's name, and
  hashes as the NumPy dtype, so it is the same dict key as ``x.dtype`` (the Array API suite
  compares ``x.dtype == xp.float32`` and keys dicts by dtypes);
- has the dtype's attributes (``.name``, ``.itemsize``, ``.kind``, ``.char`` ...) and a
  ``.dtype`` attribute, through which NumPy converts it (``np.dtype(lt.float32)``,
  ``np.zeros(3, lt.float32)``).

A tensor's ``.dtype`` stays a ``numpy.dtype``, as in NumPy.
"""

from __future__ import annotations

import numpy as np

from .._engine import dtypes as _dtypes


class ScalarType(type):
    """Metaclass of lazytensor's dtype names (see the module docstring)."""

    def __call__(cls, *args, **kwargs):
        return cls.dtype.type(*args, **kwargs)

    def __eq__(cls, other):
        if isinstance(other, ScalarType):
            return cls.dtype == other.dtype
        try:
            return bool(cls.dtype == other)
        except TypeError:
            return NotImplemented

    def __ne__(cls, other):
        eq = ScalarType.__eq__(cls, other)
        return eq if eq is NotImplemented else not eq

    def __hash__(cls):
        return hash(cls.dtype)

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(cls.__dict__["dtype"], name)

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls.dtype.type)

    def __subclasscheck__(cls, sub):
        if isinstance(sub, ScalarType):
            return sub.dtype == cls.dtype
        return isinstance(sub, type) and issubclass(sub, cls.dtype.type)

    def __repr__(cls):
        return f"lazytensor.{cls.__name__}"

    def __str__(cls):
        return cls.dtype.name


def _scalar_type(name, dtype):
    doc = (f"``{name}``: the {dtype.name} dtype, callable as NumPy's scalar type "
           f"(``lazytensor.{name}(x)`` is ``numpy.{dtype.type.__name__}(x)``).")
    return ScalarType(name, (), {"dtype": dtype, "type": dtype.type, "__doc__": doc,
                                 "__module__": "lazytensor", "__qualname__": name})


def as_dtype(x):
    """``x.dtype`` for a dtype name of lazytensor (a :class:`ScalarType`), else ``x``."""
    return x.dtype if isinstance(x, ScalarType) else x


_NAMES = {"bool": _dtypes.bool_, "int8": _dtypes.int8, "int16": _dtypes.int16,
          "int32": _dtypes.int32, "int64": _dtypes.int64, "uint8": _dtypes.uint8,
          "uint16": _dtypes.uint16, "uint32": _dtypes.uint32, "uint64": _dtypes.uint64,
          "float16": _dtypes.float16, "float32": _dtypes.float32, "float64": _dtypes.float64,
          "complex64": _dtypes.complex64, "complex128": _dtypes.complex128}
SCALAR_TYPES = {name: _scalar_type(name, dt) for name, dt in _NAMES.items()}
for _type in SCALAR_TYPES.values():       # canonical_dtype takes them by identity
    _dtypes.register_alias(_type, _type.dtype)

# NumPy's other spellings of the same types (C names and platform aliases, as in NumPy 2)
_ALIASES = {"bool_": "bool", "byte": "int8", "ubyte": "uint8", "short": "int16",
            "ushort": "uint16", "intc": "int32", "uintc": "uint32", "int_": "int64",
            "intp": "int64", "uint": "uint64", "uintp": "uint64", "long": "int64",
            "ulong": "uint64", "half": "float16", "single": "float32",
            "double": "float64", "csingle": "complex64", "cdouble": "complex128"}
ALIASES = {alias: SCALAR_TYPES[name] for alias, name in _ALIASES.items()
           if np.dtype(getattr(np, alias)) == SCALAR_TYPES[name].dtype}

# NumPy's abstract scalar types, for issubdtype(x.dtype, lt.floating) and isinstance
ABSTRACT = {n: getattr(np, n) for n in ("generic", "number", "integer", "signedinteger",
                                         "unsignedinteger", "inexact", "floating",
                                         "complexfloating")}


def issubdtype(arg1, arg2):
    """Whether dtype ``arg1`` is of ``arg2`` (NumPy's ``issubdtype``).

    Parameters
    ----------
    arg1, arg2 : dtype, dtype name or abstract type
        ``arg2`` may be an abstract type (``lt.floating``, ``lt.integer``, ``lt.number``...).

    Returns
    -------
    bool
    """
    return bool(np.issubdtype(as_dtype(arg1), as_dtype(arg2)))


def promote_types(type1, type2):
    """NumPy's ``promote_types`` of two dtypes (or dtype names)."""
    return np.promote_types(as_dtype(type1), as_dtype(type2))


dtype = np.dtype

# the names themselves are bound in numpy_names.py (``bool`` here would shadow the builtin)
NAMES = {**SCALAR_TYPES, **ALIASES, **ABSTRACT}
