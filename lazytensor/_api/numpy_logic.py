"""NumPy's logic, comparison, search and set names beside the Array API's: ``select``,
``piecewise``, ``isclose``/``allclose``, ``array_equal``/``array_equiv``,
``iscomplexobj``/``isrealobj``/``isscalar``, ``argwhere``, ``flatnonzero``, ``extract``,
``digitize``, ``lexsort``, ``partition``, the ``*1d`` set functions.

One-argument ``where(c)`` is ``nonzero(c)``.  ``select`` and ``isclose`` are elementwise and recorded lazily (they fuse); the comparisons
that answer one bool (``allclose``, ``array_equal``) read a fused reduction; searches and
sets run NumPy's own on the values.
"""

from __future__ import annotations

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine.native import fastpath as _fastpath
from .._engine.record import _as_tensor
from .._engine.shapes import broadcast_shapes_cached
from .._engine.tensor import Tensor
from .creation import asarray
from .elementwise import FUNCTIONS as _F
from .elementwise import _python_where, astype, where
from .numpy_values import call_numpy, on_values
from .searching import nonzero
from .utility import all as _all


def _tensor(x, what):
    """``x`` as a tensor: NumPy's array-likes (lists, tuples, arrays, scalars) too."""
    if isinstance(x, (list, tuple)):
        return asarray(x)
    x = _as_tensor(x, what)
    return x if isinstance(x, Tensor) else asarray(x)


def _numpy_where(condition, *xy):
    """What C's ``where`` hands over: NumPy's one-argument ``where(c)`` is ``nonzero(c)``
    (the standard has only the three-argument form, which ``_python_where`` records)."""
    if not xy:
        return nonzero(_tensor(condition, "where"))
    if len(xy) == 1:
        raise ValueError("where: either both or neither of x and y should be given")
    return _python_where(condition, *xy)


# lt.where stays C's; only the calls it hands over come here first
_fastpath.setup_where(_numpy_where, _dtypes.bool_)


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds, else ``default`` (NumPy's
    ``select``; recorded lazily as a chain of ``where``).

    The result dtype is NumPy's: that of the choices and of ``default`` taken as an array
    (so a Python int default with float32 choices gives float64, as in NumPy).
    """
    if len(condlist) != len(choicelist):
        raise ValueError("select: list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    conds = [_tensor(c, "select") for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype.kind != "b":
            raise TypeError(f"select: invalid entry {i} in condlist: should be boolean "
                            f"ndarray, got {c.dtype.name}")
    # NumPy's promotion: Python scalars are weak, anything else counts by its dtype
    values = [v if type(v) in (int, float, complex) else _tensor(v, "select")
              for v in (*choicelist, default)]
    dtype = np.result_type(*(v.dtype if isinstance(v, Tensor) else v for v in values))
    values = [astype(v, dtype, copy=False) if isinstance(v, Tensor) else v for v in values]
    out = values[-1] if isinstance(values[-1], Tensor) else asarray(values[-1], dtype=dtype)
    for c, ch in zip(reversed(conds), reversed(values[:-1])):
        out = where(c, ch, out)
    tensors = [v for v in values if isinstance(v, Tensor)]
    shape = broadcast_shapes_cached(tuple(t.shape for t in conds + tensors))
    if shape is not None and out.shape != shape:
        from .manipulation import broadcast_to

        out = broadcast_to(out, shape)
    return out


def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """Whether ``|a - b| <= atol + rtol * |b|`` elementwise (NumPy's ``isclose``: infinities
    are close only to themselves, NaN to NaN only with ``equal_nan``); recorded lazily."""
    a, b = _tensor(a, "isclose"), _tensor(b, "isclose")
    dt = np.result_type(a.dtype, b.dtype, 1.0)
    if dt.kind == "c":
        return call_numpy("isclose", np.isclose, a, b, rtol=rtol, atol=atol,
                          equal_nan=equal_nan)
    a, b = astype(a, dt, copy=False), astype(b, dt, copy=False)
    close = _F["less_equal"](_F["abs"](a - b), atol + rtol * _F["abs"](b))
    out = _F["logical_or"](_F["logical_and"](close, _F["isfinite"](b)), a == b)
    if equal_nan:
        out = _F["logical_or"](out, _F["logical_and"](_F["isnan"](a), _F["isnan"](b)))
    return out


def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """Whether every element of ``a`` is close to ``b`` (``all(isclose(...))``, a Python
    bool as in NumPy)."""
    return bool(_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """Whether ``a1`` and ``a2`` have the same shape and elements (a Python bool)."""
    a1, a2 = _tensor(a1, "array_equal"), _tensor(a2, "array_equal")
    if a1.shape != a2.shape:
        return False
    eq = a1 == a2
    if equal_nan and a1.dtype.kind in "fc" and a2.dtype.kind in "fc":
        eq = _F["logical_or"](eq, _F["logical_and"](_F["isnan"](a1), _F["isnan"](a2)))
    return bool(_all(eq))


def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` broadcast together and are equal (a Python bool)."""
    a1, a2 = _tensor(a1, "array_equiv"), _tensor(a2, "array_equiv")
    if broadcast_shapes_cached((a1.shape, a2.shape)) is None:
        return False
    return bool(_all(a1 == a2))


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (its values are not read)."""
    dt = getattr(x, "dtype", None)
    return np.iscomplexobj(x) if dt is None else np.dtype(dt).kind == "c"


def isrealobj(x):
    """Whether ``x`` does not have a complex dtype (its values are not read)."""
    return not iscomplexobj(x)


def isscalar(element):
    """NumPy's ``isscalar``: true for Python and NumPy scalars, false for tensors (also 0-d
    ones, as for NumPy's 0-d arrays)."""
    return False if isinstance(element, Tensor) else bool(np.isscalar(element))


def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's ``piecewise`` on the values of ``x`` and the conditions: each function is
    called, as in NumPy, on the elements where its condition holds (an array of them)."""
    return call_numpy("piecewise", np.piecewise, _tensor(x, "piecewise"), condlist, funclist,
                      *args, **kw)


FUNCTIONS = {f.__name__: f for f in (select, isclose, allclose, array_equal, array_equiv,
                                     iscomplexobj, isrealobj, isscalar, piecewise)}
# searches and sets: NumPy's own on the values
FUNCTIONS.update({name: on_values(name, getattr(np, name), summary) for name, summary in {
    "argwhere": "The indices of the nonzero elements, one row per element.",
    "flatnonzero": "The indices of the nonzero elements of the flattened tensor.",
    "extract": "The elements where a condition holds (flattened).",
    "digitize": "The indices of the bins each element falls into.",
    "lexsort": "An indirect stable sort on several keys (the last is the primary).",
    "partition": "A copy with the k-th element in its sorted place, smaller ones before.",
    "argpartition": "The indices that would partition a tensor.",
    "intersect1d": "The sorted unique values in both tensors.",
    "union1d": "The sorted unique values in either tensor.",
    "setdiff1d": "The sorted unique values in the first tensor and not in the second.",
    "setxor1d": "The sorted unique values in exactly one of the tensors.",
    "sort_complex": "Sorted by the real part, then the imaginary part.",
}.items()})
