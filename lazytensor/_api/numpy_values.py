"""Running a NumPy function on the values of tensors: the frame shared by the NumPy names
that lazytensor does not record (order statistics, histograms, polynomials, convolutions,
einsum ...).

``on_values(name, np_fn)`` makes a function with NumPy's signature that evaluates every
Tensor among its arguments, calls ``np_fn`` on the values, and returns NumPy's arrays as
tensors (tuples and lists of arrays as tuples and lists of tensors).  Its errors name the
function; ``out=`` (a Tensor or a NumPy array) is written in place by NumPy and returned.
Results computed this way are NumPy's, so they are outside exact mode's bit-for-bit promise.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from .._engine import views as _views
from .._engine.foreign import refuse_dask_in
from .ndarray_args import operand as as_tensor  # noqa: F401  (re-exported)
from .._engine.tensor import Tensor
from .args import quiet, wrap
from .writes import values_of as to_numpy

_ERRORS = (ValueError, TypeError, IndexError, ZeroDivisionError)


def _out_memory(out, name: str):
    """``out=`` for NumPy's function: a Tensor's memory (NumPy writes into it in place), a
    NumPy array (or None) as it is; into tuples."""
    if isinstance(out, tuple):
        return tuple(_out_memory(o, name) for o in out)
    if isinstance(out, Tensor):
        return _views.writable(out, f"{name}(..., out=)")
    return out


def to_tensors(obj, computed_by=None, views=None):
    """NumPy's arrays and array scalars (also inside tuples and lists) as tensors;
    ``computed_by``: the NumPy function whose arithmetic made them (see ``args.wrap``);
    ``views``: id(array) -> the tensor to give for an array that is a view."""
    if views and id(obj) in views:
        return views[id(obj)]
    if isinstance(obj, (np.ndarray, np.generic)) and obj.dtype.kind in "biufc":
        return wrap(obj, computed_by=computed_by)
    if isinstance(obj, tuple) and type(obj) is not tuple:    # a NamedTuple result
        return type(obj)(*(to_tensors(o, computed_by, views) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(to_tensors(o, computed_by, views) for o in obj)
    return obj


def renamed(exc: Exception, name: str) -> Exception:
    """``exc`` with ``name`` in front of its message, of the same type when possible."""
    try:
        new = type(exc)(f"{name}: {exc}")
    except Exception:     # an exception type with another constructor
        return exc
    return new


def call_numpy(name: str, np_fn, *args, **kwargs):
    """``np_fn`` on the values of ``args``/``kwargs``, quietly; errors name ``name``."""
    out = kwargs.pop("out", None)
    refuse_dask_in((args, tuple(kwargs.values())), name)   # NumPy would compute it whole
    targs, tkwargs = args, kwargs
    tensors = tensors_in((args, kwargs))
    values = [t._value() for t in tensors]
    args, kwargs = to_numpy(args), {k: to_numpy(v) for k, v in kwargs.items()}
    if out is not None:
        kwargs["out"] = _out_memory(out, name)
    try:
        with quiet():
            result = np_fn(*args, **kwargs)
    except np.linalg.LinAlgError as exc:
        raise np.linalg.LinAlgError(f"{name}: {exc}") from None
    except _ERRORS as exc:
        raise renamed(exc, name) from None
    if out is not None:     # NumPy's answer with out=: the out itself (a Tensor or an array)
        return out[0] if type(out) is tuple and type(result) is not tuple else out
    views = viewed(result, tensors, lambda m, t: np_fn(
        *values_with(targs, t, m), **{k: values_with(v, t, m) for k, v in tkwargs.items()}),
        values)
    return to_tensors(result, f"numpy.{name}", views)


def tensors_in(obj, found=None) -> list:
    """The tensors in ``obj``, also inside tuples, lists and dicts."""
    found = [] if found is None else found
    if isinstance(obj, Tensor):
        found.append(obj)
    elif isinstance(obj, (tuple, list, dict)):
        for o in obj.values() if isinstance(obj, dict) else obj:
            tensors_in(o, found)
    return found


def values_with(obj, t, m):
    """``to_numpy(obj)`` with ``m`` as the value of the tensor ``t``."""
    if obj is t:
        return m
    if isinstance(obj, (tuple, list)) and any(isinstance(o, (Tensor, tuple, list)) for o in obj):
        return type(obj)(values_with(o, t, m) for o in obj)
    return to_numpy(obj)


def viewed(result, tensors, rerun, values=None) -> dict:
    """id(array) -> Tensor for NumPy's results that are views of an input tensor's value
    (``split``, ``diag``, ``trim_zeros`` ...): views of its memory, as NumPy's are views of
    its array (a write through either reaches the other).  Wrapped as values they would be
    read-only copies that still read memory a write may change: a silent wrong value.
    ``rerun(m, t)`` is NumPy's call with ``m`` as ``t``'s value; ``values``: the tensors'
    values it was given."""
    if not tensors:
        return {}
    values = [t._value() for t in tensors] if values is None else values
    leaves = []
    _arrays_in(result, (), leaves)
    found = {}
    # the inputs' values and the arrays they view: an array of its own memory (base None)
    # that is none of these is a new result, a view of nothing
    owners = set()
    for v in values:
        while isinstance(v, np.ndarray):
            owners.add(id(v))
            v = v.base
    for path, arr in leaves:
        if arr.base is None and id(arr) not in owners:
            continue
        for t, v in zip(tensors, values):
            if isinstance(v, np.ndarray) and np.may_share_memory(arr, v):
                def make(m, t=t, v=v, arr=arr, path=path, writable=v.flags.writeable):
                    if m is v and writable:          # NumPy's view of this memory already
                        return arr
                    out = rerun(m, t)
                    for k in path:
                        out = out[k]
                    return out
                # NumPy's flags on writable memory (v, or a writable copy of its values)
                probe = arr if v.flags.writeable else make(np.array(v))
                found[id(arr)] = _views.view(t, make, push=False,
                                             read_only=_read_only(probe))
                break
    return found


def _read_only(arr) -> bool:
    """Whether NumPy's view of writable memory is read-only (diag's), or warns on a write
    (broadcast_arrays', which NumPy deprecates: read-only here, as broadcast_to's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return not arr.flags.writeable
        except (FutureWarning, DeprecationWarning):
            return True


def _arrays_in(obj, path, found):
    if isinstance(obj, np.ndarray):
        found.append((path, obj))
    elif isinstance(obj, (tuple, list)):
        for k, o in enumerate(obj):
            _arrays_in(o, path + (k,), found)


def on_values(name: str, np_fn, summary: str):
    """A function named ``name`` with ``np_fn``'s signature, computed by NumPy on values."""
    def fn(*args, **kwargs):
        return call_numpy(name, np_fn, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name.rsplit(".", 1)[-1]
    try:
        fn.__signature__ = inspect.signature(np_fn)
    except (TypeError, ValueError):   # a ufunc-like object without one
        pass
    fn.__doc__ = f"""{summary}

    NumPy's ``numpy.{name}``, with its signature and defaults: the tensor arguments are
    evaluated and NumPy computes on their values (so the result is outside exact mode's
    bit-for-bit promise).  Array results are returned as tensors.  ``out=`` (where
    NumPy's function takes it) is written in place and returned, a Tensor as NumPy writes
    an array.

    See Also
    --------
    numpy.{name}
    """
    return fn
