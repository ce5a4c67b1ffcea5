"""NEP 13 and NEP 18 on Tensor: ``__array_ufunc__`` and ``__array_function__``.

NumPy functions and ufuncs applied to tensors return tensors.

* A ufunc lazytensor computes (an operator-table row names the NumPy ufunc it implements,
  ``OpDef.ufunc``; a few more are below) is recorded through lazytensor's own function, so
  ``np.exp(t) * 2 + np.sin(t)`` is one fused kernel.  The operands are first cast to the
  dtypes of the loop NumPy would pick (``ufunc.resolve_dtypes``), so the result has NumPy's
  dtype (``np.sqrt`` of an int64 tensor is float64); where lazytensor's function would give
  another dtype, or does not take the dtype, NumPy computes the values.
* ``reduce`` of add/multiply/maximum/minimum/logical_and/logical_or is ``lt.sum`` /
  ``prod`` / ``max`` / ``min`` / ``all`` / ``any`` where the dtype agrees with NumPy's;
  ``outer`` is the ufunc on a reshaped operand (lazy where the ufunc is); ``accumulate`` of
  add/multiply is ``lt.cumulative_sum``/``cumulative_prod``; the rest runs NumPy on the values.
* A NumPy function dispatches to lazytensor's function of the same name in the matching
  namespace (``numpy`` -> ``lazytensor``, ``numpy.linalg`` -> ``lazytensor.linalg``,
  ``numpy.fft`` -> ``lazytensor.fft``), looked up at call time, when the call binds to its
  signature (NumPy arrays, pandas objects and the array-likes given as its ``arrays`` are
  passed as tensors); otherwise NumPy runs on the values and array results come back as
  tensors.
* Writes into a tensor (``out=`` a Tensor, ``ufunc.at`` on a Tensor, ``np.copyto`` and the
  other functions that write into an argument, lazytensor's functions of the same names)
  follow the memory model (``_engine/views.py``, ``writes.py``): ``np.add(a, b, out=t)``
  records the sum and writes it into ``t`` (lazily when nothing else sees ``t``'s memory)
  and returns ``t``; the rest runs NumPy on ``t``'s memory, in place, with NumPy's checks.
  An ``out=`` NumPy array is written as NumPy writes it.

See docs/numpy-protocols.md.
"""

from __future__ import annotations

import inspect
import sys
import threading

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from .._engine import dtypes as _dtypes
from .._engine import views as _views
from .._engine.foreign import refuse_dask
from .._engine.ops import OPS_LIST
from .._engine.record import binary, unary
from .._engine.tensor import Tensor, leaf_of
from . import numpy_values as _numpy_values
from . import writes as _writes

# NumPy ufuncs served by a lazytensor function that is not an op row: ufunc -> lt name
_EXTRA_UFUNCS = {"conjugate": "conj", "positive": "positive", "matmul": "matmul",
                 "vecdot": "vecdot"}
# SciPy's ufuncs that an op row computes: scipy.special name -> row name
_SCIPY_UFUNCS = {"erf": "erf", "expit": "sigmoid"}
# ufunc methods served by a lazytensor reduction or scan: (method, ufunc) -> lt name
_METHODS = {("reduce", "add"): "sum", ("reduce", "multiply"): "prod",
            ("reduce", "maximum"): "max", ("reduce", "minimum"): "min",
            ("reduce", "logical_and"): "all", ("reduce", "logical_or"): "any",
            ("accumulate", "add"): "cumulative_sum",
            ("accumulate", "multiply"): "cumulative_prod"}
# the lt functions of _METHODS that take dtype=
_TAKE_DTYPE = frozenset(("sum", "prod", "cumulative_sum", "cumulative_prod"))
# ufunc keywords that change nothing at their default values
_NEUTRAL_KWARGS = {"casting": "same_kind", "order": "K", "subok": True, "where": True,
                   "dtype": None, "signature": None}
# NumPy submodule -> lazytensor attribute holding its functions ("" is the package)
_NAMESPACES = {"numpy": "", "numpy.linalg": "linalg", "numpy.fft": "fft"}
_PYTHON_SCALARS = (int, float, complex)
# Python scalar type -> the loop kinds it joins weakly (NEP 50); else it is converted first
_WEAK_KINDS = {int: "iufc", float: "fc", complex: "c"}

_MISSING = object()
_state = threading.local()      # the NumPy functions being dispatched on this thread


def _package():
    """The ``lazytensor`` namespace as the user sees it: looked up at call time (not
    imported, which would be a cycle: the package imports this module), so names other
    modules add to it are seen."""
    return sys.modules[__name__.partition("._api")[0]]


def _resolve(path: str):
    """``lt.a.b`` spelled as in OpDef.expose -> the object, None if it is not a plain path."""
    obj = _package()
    for part in path.split(".")[1:]:
        if not part.isidentifier():
            return None
        obj = getattr(obj, part, None)
    return obj


# ---- the ufunc table --------------------------------------------------------------------
def _row_function(op):
    """The function that records op row ``op`` as a user would call it."""
    fn = _resolve(op.spelling) if op.expose is None or op.expose.startswith("lt.") else None
    if fn is not None:
        return fn
    record = unary if op.arity == 1 else binary      # e.g. fmod: lt.onnx.Mod(fmod=1)
    return lambda *args: record(op.name, *args)


def _build_table() -> dict:
    table = {getattr(np, op.ufunc): _row_function(op) for op in OPS_LIST if op.ufunc}
    for ufunc, name in _EXTRA_UFUNCS.items():
        table[getattr(np, ufunc)] = getattr(_package(), name)
    return table


_TABLE = None
_SCIPY_ADDED = False


def ufunc_table() -> dict:
    """ufunc -> the lazytensor function that records it (built on first use: the functions
    of ``lt.nn`` and the rest exist only once the package is imported).  SciPy's ufuncs
    join once ``scipy.special`` is imported: a caller passing one has imported it, and
    importing SciPy here would cost a second on the first ufunc call."""
    global _TABLE, _SCIPY_ADDED
    if _TABLE is None:
        _TABLE = _build_table()
    if not _SCIPY_ADDED:
        # the ufuncs themselves: scipy.special.erf is one, unless SCIPY_ARRAY_API=1 makes
        # it a wrapper that dispatches on the namespace (and calls the ufunc for NumPy)
        special = sys.modules.get("scipy.special._ufuncs")
        if special is not None:
            rows = {op.name: op for op in OPS_LIST}
            _TABLE.update({getattr(special, ufunc): _row_function(rows[row])
                           for ufunc, row in _SCIPY_UFUNCS.items()
                           if isinstance(getattr(special, ufunc, None), np.ufunc)})
            _SCIPY_ADDED = True
    return _TABLE


def _ufunc_function(ufunc):
    fn = _TABLE.get(ufunc) if _SCIPY_ADDED else ufunc_table().get(ufunc)
    if fn is None and getattr(np, ufunc.__name__, None) is ufunc:
        # a NumPy ufunc a NumPy-named lt function computes (added by the NumPy layer)
        fn = getattr(_package(), ufunc.__name__, None)
        if fn is ufunc or not callable(fn) or isinstance(fn, type):
            fn = None
    return fn


# ---- values ------------------------------------------------------------------------------
def _evaluate_together(tensors):
    pending = [t for t in tensors if t._node.value is None]
    if len(pending) > 1:
        _package().eval(*pending)     # shared work runs once


def _map(fn, obj):
    """``fn`` applied to every leaf of ``obj``, into lists, tuples and dicts."""
    if type(obj) in (list, tuple):
        return type(obj)(_map(fn, x) for x in obj)
    if type(obj) is dict:
        return {k: _map(fn, v) for k, v in obj.items()}
    return fn(obj)


def _values(objs):
    """(objs with every Tensor, also inside lists, tuples and dicts, replaced by its value;
    the NumPy arrays they now hold)."""
    tensors, arrays = [], []
    _map(lambda x: tensors.append(x) if isinstance(x, Tensor) else None, objs)
    _evaluate_together(tensors)

    def swap(x):
        if isinstance(x, Tensor):
            x = x._value()
        if isinstance(x, np.ndarray):
            arrays.append(x)
        return x
    return _map(swap, objs), arrays


def _servable(dtype) -> bool:
    return dtype in _dtypes.ALL_DTYPES and dtype.isnative


def _wrap(result, sources, what: str, views=None):
    """NumPy's result with arrays (and NumPy scalars) as tensors, marked as computed by
    NumPy's ``what``.  ``views``: id(array) -> the tensor for NumPy's views of a tensor's
    value (``numpy_values.viewed``).  Another result that shares memory with a writable
    array it was computed from (a caller's array) is copied: tensors do not change under
    their users."""
    if views and id(result) in views:
        return views[id(result)]
    if isinstance(result, np.ndarray):
        if not _servable(result.dtype):
            return result
        if any(s.flags.writeable and np.may_share_memory(result, s) for s in sources):
            result = result.copy()
        return Tensor._computed_by_numpy(result, what)
    if isinstance(result, np.generic):
        return (Tensor._computed_by_numpy(np.asarray(result), what)
                if _servable(result.dtype) else result)
    if isinstance(result, tuple):
        items = [_wrap(r, sources, what, views) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
    if isinstance(result, list):
        return [_wrap(r, sources, what, views) for r in result]
    return result


# ---- __array_ufunc__ ---------------------------------------------------------------------
def _known(x) -> bool:
    """NEP 13: operands whose own __array_ufunc__ would not defer to ours are unknown."""
    override = getattr(type(x), "__array_ufunc__", _MISSING)
    return (override is _MISSING or override is np.ndarray.__array_ufunc__
            or isinstance(x, Tensor))


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: ``ufunc`` (or its ``method``) applied to operands of which one is a Tensor.

    Recorded lazily through lazytensor's function when it has one that gives NumPy's
    dtype; computed by NumPy on the values otherwise, array results returned as tensors.
    ``out=`` NumPy arrays and tensors are written and returned as NumPy does; ``ufunc.at``
    on a Tensor writes into its memory (``_into_tensors``)."""
    if method == "__call__" and not kwargs:
        # the common case, once seen: tensors and Python scalars whose dtypes need no cast
        # (C's __array_ufunc__ takes it first); then NumPy arrays among them (made leaves)
        # or operands cast to NumPy's loop dtypes
        key = _lean_key(ufunc, inputs)
        fn = LEAN_UFUNCS.get(key)
        if fn is not None:
            return fn(*inputs)
        plan = LEAN_WITH_CASTS.get(key)
        if plan is not None:
            fn, loop = plan
            return fn(*(_cast_to(leaf_of(x, "ufunc") if type(x) is np.ndarray else x, d)
                        for x, d in zip(inputs, loop)))
    out = kwargs.get("out", ())
    out = out if isinstance(out, tuple) else (out,)
    if not all(_known(x) for x in inputs + out):
        return NotImplemented
    name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    if any(isinstance(o, Tensor) for o in out) or (
            method == "at" and isinstance(inputs[0], Tensor)):
        return _into_tensors(ufunc, method, name, inputs, kwargs, out)
    if any(o is not None for o in out) or method in ("at", "reduceat"):
        return _ufunc_on_values(ufunc, method, inputs, kwargs)
    kwargs.pop("out", None)
    if method == "__call__":
        return _call(ufunc, inputs, kwargs)
    if method == "outer":
        return _outer(ufunc, inputs, kwargs)
    return _reduce_or_scan(ufunc, method, inputs, kwargs)


def _into_tensors(ufunc, method, name, inputs, kwargs, out):
    """A ufunc call that writes into a tensor: ``out=`` (a Tensor among them) or ``at``.

    A plain call with one ``out`` records the ufunc as without it and writes the result
    into the tensor (``writes.assign``: lazy where nothing else sees its memory); the rest
    (several outputs, ``where=``, ``casting=``, methods, ``at``) runs NumPy on the
    tensors' memory, in place.  The out tensors are returned as NumPy returns its outs."""
    if method == "__call__" and len(out) == 1 and ufunc.nout == 1 and set(kwargs) == {"out"}:
        result = _call(ufunc, inputs, {})
        if isinstance(result, Tensor):
            return _writes.assign(out[0], result, f"{name}(..., out=)", broadcast=True)
    if method == "at":
        inputs = (_views.writable(inputs[0], name),) + tuple(inputs[1:])
    mems = tuple(_views.writable(o, f"{name}(..., out=)") if isinstance(o, Tensor) else o
                 for o in out)
    if "out" in kwargs:
        kwargs = {**kwargs, "out": mems}
    result = _ufunc_on_values(ufunc, method, inputs, kwargs)
    if method == "at":
        return result
    return _outs_back(result, out, mems, name)


def _outs_back(result, out, mems, name):
    """NumPy's result of a call given ``out=`` the memory ``mems`` of tensors ``out``: each
    memory as its tensor, other arrays as NumPy gave them (new ones as tensors)."""
    def back(r):
        for o, m in zip(out, mems):
            if r is m:
                return o
        if isinstance(r, np.ndarray):       # an output not given: a new tensor
            return _wrap(r, [], f"numpy.{name}")
        return r
    if isinstance(result, tuple):
        return tuple(back(r) for r in result)
    return back(result)


def _ufunc_on_values(ufunc, method, inputs, kwargs):
    (inputs, kwargs), sources = _values((inputs, kwargs))
    result = getattr(ufunc, method)(*inputs, **kwargs)
    if kwargs.get("out") is not None or method == "at":
        return result           # NumPy's answer: the out array(s), or None
    return _wrap(result, sources,
                 f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}"))


def _neutral(kwargs) -> bool:
    for k, v in kwargs.items():
        default = _NEUTRAL_KWARGS.get(k, _MISSING)
        if default is _MISSING or not (v is default or (type(v) is type(default)
                                                          and v == default)):
            return False
    return True


def _operand(x, dtypes):
    """A Tensor or Python scalar for recording; its dtype (or weak type) into ``dtypes``.
    None if lazytensor cannot hold it."""
    if isinstance(x, Tensor):
        dtypes.append(x.dtype)
        return x
    if type(x) in _PYTHON_SCALARS:
        dtypes.append(type(x))
        return x
    arr = np.asarray(x)
    if not _servable(arr.dtype):
        return None
    dtypes.append(arr.dtype)
    return leaf_of(arr, "ufunc")


_PLANS: dict = {}     # (ufunc, operand dtypes) -> (loop input dtypes, result dtypes) or None
# (ufunc, operand dtypes) -> lazytensor's function, for operands (Tensors and Python scalars)
# that it takes as they are and gives NumPy's dtypes for (read by C's __array_ufunc__ too,
# kernels_c/ext/protocols.c: cleared, never rebound)
LEAN_UFUNCS: dict = {}
# the same key, with NumPy arrays among the operands ((np.ndarray, dtype) in the key) or
# operands to cast -> (lazytensor's function, NumPy's loop dtypes): the arrays made leaves
# (leaf_of), each operand cast to its loop dtype (_cast_to), then the function
LEAN_WITH_CASTS: dict = {}


def _lean_key(ufunc, inputs) -> tuple:
    """The key of a plain call in LEAN_UFUNCS and LEAN_WITH_CASTS: each operand's dtype, an
    exact NumPy array's (np.ndarray, dtype), anything else its type (C's __array_ufunc__
    makes the same for tensors and scalars)."""
    return (ufunc, *(x._node.dtype if type(x) is Tensor else
                     (np.ndarray, x.dtype) if type(x) is np.ndarray else type(x)
                     for x in inputs))


def _plan(ufunc, types):
    key = (ufunc, types)
    plan = _PLANS.get(key, _MISSING)
    if plan is _MISSING:
        try:
            resolved = ufunc.resolve_dtypes(types + (None,) * ufunc.nout)
        except (TypeError, ValueError, OverflowError):    # no loop: NumPy says why
            resolved = None
        plan = None if resolved is None else (resolved[:ufunc.nin], resolved[ufunc.nin:])
        if len(_PLANS) > 4096:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _cast_to(x, dtype):
    if isinstance(x, Tensor):
        return x if x.dtype == dtype else x.astype(dtype)
    if dtype.kind in _WEAK_KINDS[type(x)]:
        return x       # a Python scalar joins weakly, as in NumPy
    return leaf_of(np.asarray(x, dtype=dtype), "ufunc")


def _call(ufunc, inputs, kwargs):
    fn = _ufunc_function(ufunc) if _neutral(kwargs) else None
    if fn is None:
        return _ufunc_on_values(ufunc, "__call__", inputs, kwargs)
    types = []
    operands = [_operand(x, types) for x in inputs]
    plan = None if any(o is None for o in operands) else _plan(ufunc, tuple(types))
    if plan is None:
        return _ufunc_on_values(ufunc, "__call__", inputs, kwargs)
    loop, results = plan
    args = [_cast_to(x, d) for x, d in zip(operands, loop)]
    try:
        # recording only: elementwise functions check dtypes and build nodes, they compute
        # nothing, so a TypeError is lazytensor not taking these dtypes
        out = fn(*args)
    except TypeError:
        out = None
    got = out if isinstance(out, tuple) else (out,)
    if out is None or len(got) != len(results) or any(
            not isinstance(r, Tensor) or r.dtype != d for r, d in zip(got, results)):
        _PLANS[(ufunc, tuple(types))] = None       # NumPy's dtype differs: values from now on
        return _ufunc_on_values(ufunc, "__call__", inputs, kwargs)
    # operands whose conversion their key decides (tensors, exact arrays, Python scalars)
    if not kwargs and all(type(x) is Tensor or type(x) is np.ndarray or
                          type(x) in _PYTHON_SCALARS for x in inputs):
        plain = all(a is x for a, x in zip(args, inputs))      # no leaf made, no cast
        lean = LEAN_UFUNCS if plain else LEAN_WITH_CASTS
        if len(lean) > 4096:
            lean.clear()
        lean[_lean_key(ufunc, inputs)] = fn if plain else (fn, loop)
    return out


def _outer(ufunc, inputs, kwargs):
    """``ufunc.outer(a, b)`` is ``ufunc(a[..., None, None...], b)``: lazy where the call is."""
    if len(inputs) != 2 or ufunc.nin != 2 or ufunc.signature is not None:
        return _ufunc_on_values(ufunc, "outer", inputs, kwargs)
    a, b = (x if isinstance(x, Tensor) else np.asarray(x) for x in inputs)
    if b.ndim:
        a = a.reshape(a.shape + (1,) * b.ndim)
    return _call(ufunc, (a, b), kwargs)


_METHOD_DTYPES: dict = {}   # (ufunc, method, dtype, dtype=) -> NumPy's result dtype or None


def _method_dtype(ufunc, method, dtype, want):
    key = (ufunc, method, dtype, want)
    if key not in _METHOD_DTYPES:
        try:      # one element of the dtype tells: the result dtype needs no values
            probe = getattr(ufunc, method)(np.ones(1, dtype), axis=0, dtype=want)
            _METHOD_DTYPES[key] = np.asarray(probe).dtype
        except (TypeError, ValueError):
            _METHOD_DTYPES[key] = None
    return _METHOD_DTYPES[key]


def _reduce_or_scan(ufunc, method, inputs, kwargs):
    """``reduce``/``accumulate`` by lazytensor's reduction or scan where it gives NumPy's
    result; NumPy on the values otherwise."""
    values = lambda: _ufunc_on_values(ufunc, method, inputs, kwargs)   # noqa: E731
    name = _METHODS.get((method, ufunc.__name__))
    x = inputs[0]
    extra = set(kwargs) - {"axis", "dtype", "keepdims"} - (
        {"where"} if kwargs.get("where", True) is True else set())
    if (name is None or len(inputs) != 1 or not isinstance(x, Tensor) or x.ndim == 0
            or extra or getattr(np, ufunc.__name__, None) is not ufunc):
        return values()
    axis, want = kwargs.get("axis", 0), kwargs.get("dtype")
    if want is not None and name not in _TAKE_DTYPE:
        return values()
    try:
        axes = tuple(range(x.ndim)) if axis is None else normalize_axis_tuple(axis, x.ndim)
    except (TypeError, ValueError):
        return values()                 # NumPy raises its own error
    if method == "accumulate" and (axis is None or len(axes) != 1 or "keepdims" in kwargs):
        return values()
    if ufunc.identity is None and any(x.shape[a] == 0 for a in axes):
        return values()                 # "zero-size array to reduction operation ..."
    expected = _method_dtype(ufunc, method, x.dtype, want)
    fn = getattr(_package(), name)
    kw = {"axis": axes[0]} if method == "accumulate" else {
        "axis": axes, "keepdims": bool(kwargs.get("keepdims", False))}
    if want is not None:
        kw["dtype"] = want
    try:
        # lazytensor's reductions record (or compute in NumPy for what they do not fuse);
        # a TypeError is the dtype check of a dtype they do not take
        out = fn(x, **kw)
    except TypeError:
        out = None
    if expected is None or not isinstance(out, Tensor) or out.dtype != expected:
        return values()
    return out


# ---- __array_function__ -----------------------------------------------------------------
_SIGNATURES: dict = {}
_BINDS: dict = {}     # (fn, number of positional arguments, keyword names) -> bool


def _binds(fn, args, kwargs) -> bool:
    """Whether lazytensor's ``fn`` takes this call: its signature binds the arguments
    (which depends only on how many are positional and the keywords' names)."""
    key = (fn, len(args), tuple(kwargs))
    ok = _BINDS.get(key)
    if ok is None:
        sig = _SIGNATURES.get(fn, _MISSING)
        if sig is _MISSING:
            try:
                sig = inspect.signature(fn)
            except (TypeError, ValueError):     # no signature to read: call it
                sig = None
            _SIGNATURES[fn] = sig
        try:
            ok = sig is None or sig.bind(*args, **kwargs) is not None
        except TypeError:
            ok = False
        if len(_BINDS) > 4096:
            _BINDS.clear()
        _BINDS[key] = ok
    return ok


def _lt_namespace(func):
    """lazytensor's namespace (``lt``, ``lt.linalg``, ``lt.fft``) for the functions of
    NumPy function ``func``'s module, or None."""
    where = _NAMESPACES.get(getattr(func, "__module__", None))
    if where is None:
        return None
    ns = _package()
    return getattr(ns, where, None) if where else ns


def _lt_function(func):
    """lazytensor's function for NumPy function ``func``, or None."""
    fn = getattr(_lt_namespace(func), func.__name__, None)
    if fn is None or fn is func or not callable(fn) or isinstance(fn, type):
        return None
    return fn


_FOREIGN: dict = {}    # type -> whether NumPy converts its objects through __array__


def _foreign_array(x) -> bool:
    """An array NumPy reads through ``__array__`` that is neither a Tensor nor a NumPy
    array or scalar (a pandas Series or DataFrame...): NEP 18 does not list its type, as
    it has no ``__array_function__``."""
    t = type(x)
    foreign = _FOREIGN.get(t)
    if foreign is None:
        foreign = _FOREIGN[t] = (hasattr(t, "__array__") and not issubclass(t, type) and
                                 not issubclass(t, (Tensor, np.ndarray, np.generic)))
    return foreign


def _has_foreign_array(items) -> bool:
    """Whether such an array is among ``items`` (also inside lists, tuples and dicts)."""
    for x in items:
        t = type(x)
        if t is Tensor or t is int or t is float or x is None:
            continue
        if t is list or t is tuple:
            if _has_foreign_array(x):
                return True
        elif t is dict:
            if _has_foreign_array(x.values()):
                return True
        elif _foreign_array(x):
            return True
    return False


def _as_tensors(obj):
    """NumPy arrays in the arguments (also inside lists, tuples and dicts), and objects
    NumPy converts through ``__array__`` (pandas Series...), as tensors, for lazytensor's
    functions."""
    return _map(lambda x: _leaf_of_array(x) if isinstance(x, np.ndarray) or _foreign_array(x)
                else x, obj)


def _leaf_of_array(x):
    refuse_dask(x, "asarray")       # np.asarray would compute a dask array whole
    return leaf_of(np.asarray(x), "asarray")


_ARRAYS_PARAMETER: dict = {}    # lazytensor function -> its "arrays" parameter, or None


def _arrays_parameter(fn):
    """The parameter of ``fn`` named ``arrays`` (``*arrays`` or a sequence of arrays, as
    ``broadcast_arrays``, ``meshgrid`` and ``stack`` take), or None."""
    param = _ARRAYS_PARAMETER.get(fn, _MISSING)
    if param is _MISSING:
        sig = _SIGNATURES.get(fn)
        param = sig.parameters.get("arrays") if sig is not None else None
        _ARRAYS_PARAMETER[fn] = param
    return param


def _tensors_already(param, args, kwargs) -> bool:
    """Whether whatever the ``arrays`` parameter is given is tensors already (every list or
    tuple among the arguments holds only tensors, and so do the positional arguments for a
    ``*arrays``): then nothing is converted, and binding the signature (a few µs) is not
    needed to find it."""
    if param.kind == param.VAR_POSITIONAL and not all(isinstance(a, Tensor) for a in args):
        return False
    return all(isinstance(x, Tensor) for v in (*args, *kwargs.values())
               if type(v) is list or type(v) is tuple for x in v)


def _array_likes_as_tensors(fn, args, kwargs):
    """The call with the array-likes given as ``fn``'s ``arrays`` (lists, scalars) made
    tensors as NumPy's ``asarray`` makes them: NumPy's function takes them, lazytensor's
    (the Array API's) takes tensors.  TypeError for one lazytensor cannot hold (None or
    strings, which NumPy makes object or string arrays)."""
    param = _arrays_parameter(fn)
    if param is None or _tensors_already(param, args, kwargs):
        return args, kwargs
    bound = _SIGNATURES[fn].bind(*args, **kwargs)
    given = bound.arguments.get(param.name, _MISSING)
    if given is _MISSING or (param.kind != param.VAR_POSITIONAL
                             and type(given) not in (list, tuple)):
        return args, kwargs
    bound.arguments[param.name] = type(given)(
        x if isinstance(x, Tensor) else leaf_of(np.asarray(x), "asarray") for x in given)
    return bound.args, bound.kwargs


# (func, number of positional arguments) -> (lazytensor's function, the namespace dict and
# name it was found under), for a call of NumPy's func with tensors and Python scalars
# alone, no keywords, that lazytensor's function was seen to take as it is (no conversion
# of its arguments): such calls go straight to it while the namespace still holds it
_LEAN_FUNCTIONS: dict = {}
_LEAN_ARG_TYPES = frozenset({Tensor, int, float, bool, type(None)})


def _lean_args(args) -> bool:
    return all(type(a) in _LEAN_ARG_TYPES for a in args)


def _call_lt(func, fn, args, kwargs, active):
    """lazytensor's ``fn`` for NumPy's ``func``: while it runs, ``func`` called again (by
    lazytensor's function itself) is NumPy's."""
    active.add(func)
    try:
        return fn(*args, **kwargs)
    finally:
        active.discard(func)


def array_function(self, func, types, args, kwargs):
    """NEP 18: NumPy function ``func`` called with a Tensor among its arguments.

    Dispatches to lazytensor's function of the same name (``lt.<name>``,
    ``lt.linalg.<name>``, ``lt.fft.<name>``) when there is one whose signature takes the
    call; otherwise runs NumPy on the values and returns array results as tensors."""
    if not kwargs:
        lean = _LEAN_FUNCTIONS.get((func, len(args)))
        if lean is not None and _lean_args(args) and lean[1].get(lean[2]) is lean[0]:
            active = getattr(_state, "active", None)
            if active is not None and func not in active:
                return _call_lt(func, lean[0], args, kwargs, active)
    if not all(issubclass(t, (Tensor, np.ndarray)) for t in types):
        return NotImplemented
    name = func.__name__
    out = kwargs.get("out")
    outs = out if isinstance(out, tuple) else (out,)
    if any(isinstance(o, Tensor) for o in outs):
        # NumPy's function writes into the out tensors' memory, in place
        mems = tuple(_views.writable(o, f"np.{name}(..., out=)") if isinstance(o, Tensor)
                     else o for o in outs)
        kwargs = {**kwargs, "out": mems if isinstance(out, tuple) else mems[0]}
        (vargs, vkwargs), _ = _values((args, kwargs))
        return _outs_back(func(*vargs, **vkwargs), outs, mems, name)
    if out is None and "out" in kwargs:      # passed on by wrappers: NumPy's default
        kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    active = getattr(_state, "active", None)
    if active is None:
        active = _state.active = set()
    fn = _lt_function(func) if out is None and func not in active else None
    if fn is not None:
        targs, tkwargs = args, kwargs
        # NumPy arrays or other objects NumPy converts among the arguments
        if (len(types) > 1 or Tensor not in types or _has_foreign_array(args)
                or (kwargs and _has_foreign_array(kwargs.values()))):
            try:
                targs, tkwargs = _as_tensors(args), _as_tensors(kwargs)
            except (TypeError, ValueError):   # one lazytensor cannot hold (strings, objects)
                fn = None
        if fn is not None and not _binds(fn, targs, tkwargs):
            fn = None
        if fn is not None:
            try:
                targs, tkwargs = _array_likes_as_tensors(fn, targs, tkwargs)
            except (TypeError, ValueError):   # None, strings, ragged lists: NumPy's
                fn = None
        if fn is not None:
            names = getattr(_lt_namespace(func), "__dict__", None)
            if (not kwargs and _arrays_parameter(fn) is None and _lean_args(args)
                    and targs is args and names is not None):
                if len(_LEAN_FUNCTIONS) > 4096:
                    _LEAN_FUNCTIONS.clear()
                # the next such call: above
                _LEAN_FUNCTIONS[func, len(args)] = (fn, names, func.__name__)
            return _call_lt(func, fn, targs, tkwargs, active)
    tensors = _numpy_values.tensors_in((args, kwargs))
    (vargs, vkwargs), sources = _values((args, kwargs))
    result = func(*vargs, **vkwargs)
    if out is not None:
        return result
    # NumPy's views of a tensor's value (sliding_window_view ...): views of its memory
    views = _numpy_values.viewed(result, tensors, lambda m, t: func(
        *_numpy_values.values_with(args, t, m),
        **{k: _numpy_values.values_with(v, t, m) for k, v in kwargs.items()}))
    return _wrap(result, sources, f"numpy.{name}", views)
