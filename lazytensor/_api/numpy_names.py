"""NumPy's top-level names on lazytensor (those that are not ndarray methods): one place that
gathers them from the modules by concern and lists them in ``__all__``, and the
``AttributeError`` that says what to use instead for a NumPy name lazytensor does not serve.

- numpy_dtypes.py: the dtype names as NumPy's scalar types, ``dtype``, ``issubdtype``;
- numpy_elementwise.py: aliases (``arcsin``, ``power`` ...) and NumPy-only ufuncs;
- numpy_arrays.py: creation and manipulation (``array``, ``concatenate``, ``pad`` ...);
- numpy_logic.py: logic, comparison, search and sets (``select``, ``isclose`` ...);
- numpy_utils.py: ``shape``, ``vectorize``, ``errstate``, print options, io;
- writes.py: the functions that write into their first argument (``copyto``, ``put`` ...);
- ufunc_args.py: NumPy's ufunc arguments (``out=``, ``where=`` ...) on the ufunc names.
"""

from __future__ import annotations

import numpy as np

from .._engine.errors import Unsupported
from .._engine.tensor import Tensor
from . import numpy_arrays, numpy_elementwise, numpy_logic, numpy_utils, writes
from .elementwise import FUNCTIONS as _ELEMENTWISE
from .linear_algebra_functions import matmul, vecdot
from .numpy_dtypes import NAMES as _DTYPE_NAMES
from .numpy_dtypes import dtype, issubdtype, promote_types
from .ufunc_args import with_ufunc_args

ndarray = Tensor          # isinstance(x, lt.ndarray) for NumPy code
euler_gamma = 0.5772156649015329
True_, False_, little_endian = np.True_, np.False_, np.little_endian

_NAMES = {**_DTYPE_NAMES, **numpy_elementwise.FUNCTIONS, **numpy_arrays.FUNCTIONS,
          **numpy_logic.FUNCTIONS, **numpy_utils.FUNCTIONS, **writes.FUNCTIONS}
# the functions of NumPy's ufunc names also take its ufunc arguments (out=, where=, dtype= ...)
_NAMES.update(with_ufunc_args({**_ELEMENTWISE, **_NAMES, "matmul": matmul, "vecdot": vecdot}))
globals().update(_NAMES)

__all__ = ["dtype", "issubdtype", "promote_types", "ndarray", "euler_gamma", "True_", "False_",
           "little_endian", "UnsupportedName", "__getattr__", *_NAMES]


class UnsupportedName(AttributeError, Unsupported):
    """A NumPy name that lazytensor does not serve: an ``AttributeError`` (so ``hasattr``
    and ``getattr(lt, name, default)`` work) that is also ``lt.Unsupported``."""


# NumPy names that lazytensor does not serve, and what to use instead
UNSUPPORTED = {
    "matrix": "use 2-d tensors and the @ operator",
    "asmatrix": "use 2-d tensors and the @ operator",
    "bmat": "use lt.block or lt.concatenate on 2-d tensors",
    "recarray": "tensors hold numbers only; use a dict of tensors",
    "rec": "tensors hold numbers only; use a dict of tensors",
    "record": "tensors hold numbers only; use a dict of tensors",
    "char": "tensors hold numbers only; use numpy.char on NumPy arrays",
    "chararray": "tensors hold numbers only; use NumPy arrays of strings",
    "strings": "tensors hold numbers only; use numpy.strings on NumPy arrays",
    "ma": "masked arrays are not served; use lt.where with a bool mask",
    "memmap": "use lt.load(file, mmap_mode='r'), or numpy.memmap and lt.asarray",
    "object_": "tensors hold numbers only (bool, integers, floats, complex)",
    "str_": "tensors hold numbers only (bool, integers, floats, complex)",
    "bytes_": "tensors hold numbers only (bool, integers, floats, complex)",
    "void": "tensors hold numbers only (no structured dtypes)",
    "datetime64": "tensors hold numbers only; store int64 timestamps",
    "timedelta64": "tensors hold numbers only; store int64 durations",
    "isnat": "tensors hold numbers only (no datetimes)",
    "longdouble": "the widest float is float64", "float128": "the widest float is float64",
    "clongdouble": "the widest complex is complex128",
    "complex256": "the widest complex is complex128",
    "nditer": "iterate over np.asarray(t), or write the loop with tensor operations",
    "nested_iters": "iterate over np.asarray(t)",
    "frompyfunc": "use lt.vectorize (it returns tensors)",
    "einsum_path": "use numpy.einsum_path on the shapes",
    "ctypeslib": "use np.asarray(t) with numpy.ctypeslib",
    "polynomial": "use numpy.polynomial on np.asarray(t)",
    "testing": "use numpy.testing on np.asarray(t) (it accepts tensors)",
    "emath": "use numpy.emath on np.asarray(t)",
    "lib": "use the lazytensor function of that name, or numpy.lib on np.asarray(t)",
    "ufunc": "lazytensor's functions are plain functions; numpy's ufuncs accept tensors",
}


def __getattr__(name):
    """The error for a name lazytensor does not have (PEP 562, installed as the package's
    module ``__getattr__``): for NumPy's names it says what to use instead."""
    if name.startswith("__") or name not in UNSUPPORTED and not hasattr(np, name):
        raise AttributeError(f"module 'lazytensor' has no attribute {name!r}")
    advice = UNSUPPORTED.get(name)
    if advice is None and callable(getattr(np, name)):
        advice = (f"compute it with NumPy on the values: numpy.{name}(np.asarray(t)) "
                  f"(lt.asarray(...) turns the result back into a tensor)")
    elif advice is None:
        advice = f"use numpy.{name} with np.asarray(t)"
    raise UnsupportedName(f"lazytensor has no {name!r} (numpy.{name}); {advice}",
                          name=name, obj=None)

