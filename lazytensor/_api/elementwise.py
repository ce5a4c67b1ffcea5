"""The Array API's elementwise functions: those served straight from the operator table,
and the ones with rules of their own (astype, where, clip, positive, real, imag, conj and
the rounding and classifying functions of integers).  They record through
``lazytensor/_engine/record.py``; nothing is computed here.
"""

from __future__ import annotations

import functools

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine import graph as _graph
from .._engine import views as _views
from .._engine.foreign import is_dask
from .._engine.native import fastpath as _fastpath
from .._engine.ops import OPS, OPS_LIST
from .._engine.record import (_as_tensor, _fast_operand, _kinds_text, _result,
                              apply, binary, cast_node, foreign_call, operand_node, promote,
                              real_arg, unary)
from .._engine.replay import memoized
from .._engine.shapes import broadcast_shapes_or_raise, check_size
from .._engine.tensor import Tensor
from .args import integer_arg
from .dask_arrays import on_dask
from .ndarray_args import NoValue, check_out, operand, to_out
from .ufunc_args import ufunc_call


def conj(x, /):
    """Complex conjugate (real tensors are returned unchanged)."""
    x = operand(x, "conj") if isinstance(x, (list, tuple)) else _as_tensor(x, "conj")
    if not isinstance(x, Tensor):
        raise TypeError("conj: expected a Tensor")
    if x.dtype.kind == "c":
        return complex_part("conj", x)
    if _dtypes.kind(x.dtype) not in "iuf":
        raise TypeError(f"conj does not take {x.dtype.name}: it takes numeric tensors")
    return _views.fresh(x)   # a new tensor (x += 1 on it must leave x alone)


def complex_part(name, x):
    """``real``, ``imag`` or ``conj`` of complex tensor ``x``, recorded (a kernel op)."""
    dtype = x.dtype if name == "conj" else np.dtype(x.dtype.char.lower())
    return Tensor._from_node(_graph.op_node(name, (x._node,), (), dtype, x.shape))


def complex_of(re, im):
    """The complex tensor of real tensors ``re`` and ``im`` (one float dtype, one shape),
    recorded (a kernel op)."""
    dtype = np.result_type(re.dtype, np.complex64)
    return Tensor._from_node(_graph.op_node("complex", (re._node, im._node), (), dtype,
                                            re.shape))


def _component(name):
    def fn(x, /):
        x = operand(x, name) if isinstance(x, (list, tuple)) else _as_tensor(x, name)
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: expected a Tensor")
        if x.dtype.kind == "c":          # NumPy's view of the memory (x.real, x.imag)
            return _views.dtype_view(x, lambda m: getattr(m, name),
                                     lambda t: complex_part(name, t))
        if _dtypes.kind(x.dtype) not in "iuf":
            raise TypeError(f"{name} does not take {x.dtype.name}: it takes numeric tensors")
        if name == "real":
            return x
        from .creation import zeros_like

        # NumPy's read-only zeros: a write raises rather than going nowhere
        return _views.view(zeros_like(x), lambda m: m, read_only=True)
    fn.__name__ = name
    fn.__doc__ = (f"The {name} part of a complex tensor (a tensor of the matching real "
                  f"dtype); a real tensor's {name} part is " + ("itself." if name == "real"
                                                                 else "zero (read-only)."))
    return fn


real = _component("real")
imag = _component("imag")


# ---- functions that need more than one table row -----------------------------------
def astype(x, dtype, /, *, copy=True, device=None):
    """Copy of ``x`` converted to ``dtype`` (the Cast rules of docs/semantics.md).

    Float to integer truncates toward zero and saturates at the target's range (NaN gives
    0); integer to integer wraps; anything to bool is ``x != 0``.
    """
    if type(x) is Tensor and x._node.op == "clip":
        x = _unclipped_for_cast(x, dtype)
    elif type(x) is not Tensor and is_dask(x):
        return on_dask("astype", (x, dtype), {})
    elif not copy and device is None and type(x) is Tensor and x.dtype == dtype and \
            x.dtype == _dtypes.canonical_dtype(dtype, where="astype"):
        return x        # NumPy's x itself (the memo would give a new tensor of its node)
    return _astype(x, dtype, copy=copy, device=device)


def cast(x, dtype):
    """``astype(x, dtype, copy=False)``: the library's own conversions, which never need a copy
    of a value that already has the dtype."""
    return astype(x, dtype, copy=False)


def _unclipped_for_cast(x, dtype):
    """``v`` for ``x = clip(v, lo, hi)`` when casting either to ``dtype`` gives the same
    values, else ``x``.  A float-to-integer cast truncates, saturates at the target's range
    and sends NaN to 0, so a clip whose constant bounds hold that range (lo <= min,
    hi >= max, neither NaN) changes no result: what it moves stays beyond the same end of
    the range, and NaN stays NaN.  Dropping it saves a pass (quantization code writes
    ``astype(clip(q, 0, 255), uint8)``).  Decided here, before the recording memo, because
    it depends on the input's node and not only on its dtype and shape."""
    node = x._node
    if node.value is not None or len(node.inputs) != 3:
        return x
    v, lo, hi = node.inputs
    if v.dtype.kind != "f" or lo.op != "const" or hi.op != "const":
        return x
    known = _RANGE_BY_ID.get(id(dtype))    # by identity: lt's dtype names hash in Python
    if known is not None and known[0] is dtype:
        bounds = known[1]
    else:
        try:
            bounds = _integer_range(dtype)
        except TypeError:                  # unhashable or not a dtype: astype says so
            return x
        if len(_RANGE_BY_ID) >= 64:       # specs made afresh each call must not pile up
            _RANGE_BY_ID.clear()
        _RANGE_BY_ID[id(dtype)] = (dtype, bounds)
    if bounds is not None and float(lo.value) <= bounds[0] and float(hi.value) >= bounds[1]:
        return Tensor._from_node(v)
    return x


_RANGE_BY_ID = {}      # id -> (the dtype spec, kept alive; _integer_range of it)


@functools.lru_cache(maxsize=64)
def _integer_range(dtype):
    """(min, max) of an integer dtype spec, None for other dtypes; TypeError if not a dtype."""
    dtype = _dtypes.canonical_dtype(dtype, where="astype")
    if dtype.kind not in "iu":
        return None
    info = np.iinfo(dtype)
    return float(info.min), float(info.max)


@memoized
def _astype(x, dtype, /, *, copy=True, device=None):
    from .._engine.tensor import _check_device

    _check_device(device, "astype")
    if not isinstance(x, Tensor):
        raise TypeError(f"astype: expected a Tensor, got {type(x).__name__}")
    dtype = _dtypes.canonical_dtype(dtype, where="astype")
    if dtype == x.dtype:
        node = x._node
        if copy and node.value is not None:
            # a value may be the caller's own array (asarray without a copy), which the
            # caller can still write to: a copy must not follow it
            out = np.array(node.value, order="C")   # NumPy's copy: row-major
            out.setflags(False)
            return Tensor._from_array(out)
        # a pending result gets a buffer of its own: sharing the node is a copy; a new
        # tensor object, so that an in-place operator on the copy leaves x alone
        return _views.fresh(x) if copy else x
    check_size(x.shape, "astype", dtype)      # a wider dtype: more bytes
    if x.dtype.kind == "c" and dtype.kind != "c" and dtype != _dtypes.bool_:
        raise TypeError(f"astype: casting {x.dtype.name} to {dtype.name} would drop the "
                        f"imaginary part; take .real or abs() first")
    return Tensor._from_node(cast_node(x._node, dtype))


def _python_where(condition, x1, x2, /):
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (broadcast together):
    what C's ``where`` hands over (anything but tensors of one shape and real dtype with a
    bool condition, which C records itself).  (NumPy's one-argument form: numpy_logic.py.)"""
    args = (condition, x1, x2)
    try:
        condition = _as_tensor(condition, "where")
    except TypeError as error:     # a dask array: by its handler, block by block
        return foreign_call(where, args, error)
    if not isinstance(condition, Tensor):
        from .creation import asarray

        condition = asarray(condition)
    if condition.dtype != _dtypes.bool_:
        # the standard only says "should be bool": NumPy's rule, nonzero (NaN too) is true
        condition = cast(condition, _dtypes.bool_)
    try:
        x1, x2 = _as_tensor(x1, "where"), _as_tensor(x2, "where")
    except TypeError as error:
        return foreign_call(where, args, error)
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        from .creation import asarray

        x1 = asarray(x1)
    dtype, _ = promote("where", [x1, x2])
    shape = broadcast_shapes_or_raise(
        [condition.shape] + [a.shape for a in (x1, x2) if isinstance(a, Tensor)], "where",
        dtype)
    # (a Python int or float's constant kept where C's where finds it next time)
    inputs = (condition._node,) + tuple(
        _fast_operand(None, x, dtype) if type(x) in (int, float) else operand_node(x, dtype)
        for x in (x1, x2))
    return Tensor._from_node(_graph.op_node("where", inputs, (), dtype, shape))


# where() in C for tensors of one shape and dtype; it hands the rest to _python_where
_fastpath.setup_where(_python_where, _dtypes.bool_)
where = _fastpath.where


def _bound(x, bound, name):
    """A clip bound as a tensor or scalar of x's dtype, or None when it cannot bind."""
    if bound is None:
        return None
    if isinstance(bound, np.generic):   # the bound takes x's dtype, whatever its own
        bound = bound.item()
    if isinstance(bound, Tensor):
        if bound.dtype != x.dtype:
            bound = cast(bound, x.dtype)
        return bound
    real_arg(bound, "clip", name)       # the check only: an int bound stays an exact int
    if x.dtype.kind in "iu":
        if isinstance(bound, float) and not float(bound).is_integer():
            bound = np.floor(bound) if name == "max" else np.ceil(bound)
        if isinstance(bound, float) and not np.isfinite(bound):
            return None if (bound > 0) == (name == "max") else bound
        info = np.iinfo(x.dtype)
        b = int(bound)
        if name == "max" and b >= info.max or name == "min" and b <= info.min:
            return None   # cannot bind: all values are inside
        return max(min(b, int(info.max)), int(info.min))
    return bound


@memoized
def clip(x, /, min=None, max=None, out=None, *, a_min=NoValue, a_max=NoValue):
    """Clamp ``x`` to ``[min, max]``: ``minimum(maximum(x, min), max)`` (one op when both
    bounds are given).

    A bound that is ``None`` does not clamp (the Array API rule; ONNX Clip's finite
    extremes are ``lazytensor.onnx.Clip``).  If ``min > max`` the upper bound wins.
    NaN in ``x`` passes through.  The result has ``x``'s dtype (NumPy would promote an
    integer ``x`` with a float bound to float64).

    NumPy's spellings are taken too: the bounds positionally (NumPy's ``a_min`` and
    ``a_max``) or as ``a_min=``/``a_max=``, array-like bounds and ``x``, and ``out=`` (a
    NumPy array or a Tensor, written and returned).
    """
    if a_min is not NoValue or a_max is not NoValue:
        if a_min is not NoValue and min is not None or a_max is not NoValue and max is not None:
            raise TypeError("clip: give each bound once (min= or a_min=, max= or a_max=)")
        min = min if a_min is NoValue else a_min
        max = max if a_max is NoValue else a_max
    if type(x) is not Tensor and is_dask(x):
        return on_dask("clip", (x, min, max), {"out": out})
    if out is not None:
        check_out(out, "clip")
        return to_out(clip(x, min, max), out, "clip")
    if not isinstance(x, Tensor):
        x = operand(x, "clip")
    min, max = (operand(b, f"clip: the {name} bound") if isinstance(b, (list, tuple,
                                                                         np.ndarray)) else b
                for b, name in ((min, "min"), (max, "max")))
    if _dtypes.kind(x.dtype) not in "iuf":
        raise TypeError(f"clip does not take {x.dtype.name}: it takes numeric tensors")
    lo, hi = _bound(x, min, "min"), _bound(x, max, "max")
    shape = broadcast_shapes_or_raise(
        [x.shape] + [b.shape for b in (lo, hi) if isinstance(b, Tensor)], "clip", x.dtype)
    if lo is not None and hi is not None:       # one op: maximum then minimum, one pass
        nodes = [x._node]
        for b in (lo, hi):
            if isinstance(b, Tensor):
                nodes.append(b._node)
            elif type(b) in (int, float):
                nodes.append(_fast_operand(None, b, x.dtype))
            else:
                nodes = None
                break
        if nodes is not None:
            return _result("clip", tuple(nodes), x.dtype, shape)
    out = x
    if lo is not None:
        out = binary("maximum", out, lo)
    if hi is not None:
        out = binary("minimum", out, hi)
    if out.shape != shape:          # (shapes checked above): broadcast_to's read-only view
        out = _views.view(out, lambda m: np.broadcast_to(m, shape), read_only=True)
    return _views.fresh(x) if out is x else out   # no bound: a new tensor


def positive(x, /):
    """+x (a numeric tensor, unchanged)."""
    x = _as_tensor(x, "positive")
    if not isinstance(x, Tensor) or _dtypes.kind(x.dtype) not in "iufc":
        raise TypeError("positive takes a numeric tensor")
    return _views.fresh(x)   # NumPy's copy: a write into +x must not reach x


def _integer_identity(name):
    """floor/ceil/round/trunc: integers are already integral (Array API)."""
    def fn(x, /):
        if type(x) is Tensor and x._node.dtype.kind == "f":
            return unary(name, x)
        if is_dask(x):
            return on_dask(name, (x,), {})
        x = _as_tensor(x, name)
        if isinstance(x, Tensor) and x.dtype.kind in "iub":
            return _views.fresh(x)      # a new tensor, as NumPy gives a new array
        return apply(name, x)
    fn.__name__ = name
    fn.__doc__ = OPS[name].doc + " Integer and bool tensors are returned unchanged."
    return fn


def _classify(name, int_value):
    """isnan/isinf/isfinite: an integer tensor has a known answer everywhere."""
    ufunc = getattr(np, name)

    def fn(x, /, *args, **kwargs):
        if args or kwargs:          # NumPy's ufunc arguments (out=, where= ...), inline
            return ufunc_call(ufunc, name, (x, *args), kwargs)
        if type(x) is Tensor and x._node.dtype.kind in "fc":
            return unary(name, x)   # (C's lean path, as the other ops')
        if type(x) is not Tensor and is_dask(x):
            return on_dask(name, (x,), {})
        x = _as_tensor(x, name)
        if isinstance(x, Tensor) and x.dtype.kind in "iub":
            from .creation import full

            return full(x.shape, int_value, dtype=_dtypes.bool_)
        return apply(name, x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise {name}; for integer tensors the answer is {int_value}.\n\n"
                  f"Also takes NumPy's ufunc arguments (``out=``, ``where=`` ...) as "
                  f"``numpy.{name}`` does.")
    return fn


# ---- NumPy's answers for integer and bool operands the standard leaves unspecified ------
@functools.lru_cache(maxsize=512)
def _numpy_dtype(np_name: str, dtypes: tuple) -> np.dtype:
    """The result dtype of NumPy's ufunc ``np_name`` on operands of ``dtypes`` (Python
    scalar types stand for weak scalars); TypeError where NumPy has no loop."""
    args = [np.zeros(0, d) if isinstance(d, np.dtype) else d(1) for d in dtypes]
    with np.errstate(all="ignore"):
        return getattr(np, np_name)(*args).dtype


def _integer_reciprocal(x):
    """NumPy's ``reciprocal`` of integers: ``1 / x`` truncated (bool as int8), and 0 for 0
    (the seeds' rule for division by zero; NumPy's result there is undefined)."""
    return binary("div_trunc", 1, astype(x, _dtypes.int8) if x.dtype == _dtypes.bool_ else x)


# unary ops with a rule of their own for the integers their rows refuse
_INTEGER_RULES = {"reciprocal": _integer_reciprocal,
                  "abs": lambda x: x if x.dtype == _dtypes.bool_ else None}   # abs(bool) is x


def _numpy_fallback(name, args):
    """NumPy's result of op ``name`` on integer or bool tensors its row refuses (the standard
    leaves them unspecified), recorded with the op; None when this is not such a call.

    Float functions take NumPy's float dtype (``sqrt(int8)`` is float16, ``sqrt(int64)``
    float64, as ``np.sqrt``); logical functions take any number as its truth (``x != 0``,
    NaN true, a complex number true when either part is), as NumPy's do; arithmetic on
    bool is done in int8 and gives bool where NumPy does (``add(bool, bool)`` is ``or``)
    or int8 (``square(bool)``); comparisons of bool compare False < True."""
    op = OPS[name]
    try:
        args = [_as_tensor(a, name) for a in args]
    except TypeError:
        return None
    dts = tuple(a.dtype if isinstance(a, Tensor) else type(a) for a in args)
    if op.kinds == "b" and all(not isinstance(d, np.dtype) or d.kind in "biufc" for d in dts):
        return apply(name, *[astype(a, _dtypes.bool_) if isinstance(a, Tensor) else bool(a)
                             for a in args])
    if not any(isinstance(d, np.dtype) and d.kind in "biu" for d in dts) \
            or any(d is complex or isinstance(d, np.dtype) and d.kind not in "biuf"
                   for d in dts):
        return None
    if name in _INTEGER_RULES:
        return _INTEGER_RULES[name](args[0])
    float_only = "i" not in op.kinds and "b" not in op.kinds
    np_name = op.ufunc or ("sqrt" if op.arity == 1 else "arctan2")
    try:
        dt = _numpy_dtype("sqrt" if float_only and op.arity == 1 else
                          "arctan2" if float_only else np_name, dts)
    except TypeError:      # NumPy has no loop either: the row's error stands
        return None
    back = None
    if float_only:                                  # into NumPy's float
        to = lambda a: astype(a, dt) if a.dtype.kind in "biu" else a  # noqa: E731
    elif op.kinds == "b":                           # logical: integers as x != 0
        to = lambda a: astype(a, _dtypes.bool_)  # noqa: E731
    else:                                           # bool as int8 (and back where NumPy is)
        to = lambda a: astype(a, _dtypes.int8) if a.dtype == _dtypes.bool_ else a  # noqa: E731
        back = _dtypes.bool_ if dt == _dtypes.bool_ and op.result == "same" else None
    args = [to(a) if isinstance(a, Tensor) else bool(a) if op.kinds == "b" else a
            for a in args]
    try:
        out = apply(name, *args)
    except TypeError:
        return None
    return astype(out, back) if back is not None else out


def _make_function(name):
    op = OPS[name]
    # where the row refuses integer or bool operands (the standard leaves them unspecified)
    # NumPy's result is recorded instead; the common call pays nothing, the refused one is
    # recognized by its TypeError
    # NumPy's ufunc arguments (out=, where=, dtype= ...): NumPy's ufunc of the name, which
    # hands them to Tensor.__array_ufunc__ (checked inline: a wrapper costs a call)
    ufunc = getattr(np, op.ufunc or name, None)
    ufunc = ufunc if isinstance(ufunc, np.ufunc) and ufunc.nin == op.arity else None
    if op.arity == 1:
        def fn(x, /, *args, **kwargs):
            if args or kwargs:
                return ufunc_call(ufunc, name, (x, *args), kwargs)
            try:
                return unary(name, x)
            except TypeError:
                out = _numpy_fallback(name, (x,))
                if out is None:
                    raise
            return out
    else:
        def fn(x1, x2, /, *args, **kwargs):
            if args or kwargs:
                return ufunc_call(ufunc, name, (x1, x2, *args), kwargs)
            try:
                return binary(name, x1, x2)
            except TypeError:
                out = _numpy_fallback(name, (x1, x2))
                if out is None:
                    raise
            return out

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise {name}. {op.doc}\n\nTakes {_kinds_text(op.kinds)} tensors"
                  f"{' (and complex)' if op.cplx else ''}; mode: exact.").strip()
    return fn


# The table's ops exposed as ``lt.<name>`` (OpDef.expose None), each a function made from
# its row; the rounding and classifying functions have rules of their own for integers.
FUNCTIONS = {op.name: _make_function(op.name) for op in OPS_LIST if op.expose is None}
for _name in ("floor", "ceil", "round", "trunc"):
    FUNCTIONS[_name] = _integer_identity(_name)


def _round_with_decimals(standard):
    def round(x, /, decimals=0, out=None):
        """Round to the nearest integer, half to even (the Array API's ``round``), or, with
        NumPy's ``decimals``, to that many decimal places.

        Parameters
        ----------
        x : Tensor or array-like
        decimals : int
            NumPy's: the number of decimal places; negative rounds to tens, hundreds...
            As NumPy does it: ``round(x * 10**decimals) / 10**decimals`` in ``x``'s
            dtype (so 2.675 gives 2.67: the float is below 2.675).  Integers are
            unchanged for ``decimals >= 0`` and rounded in float64 otherwise.
        out : Tensor or numpy.ndarray, optional
            NumPy's: written with the result and returned (a Tensor as NumPy writes an array).
        """
        decimals = integer_arg(decimals, "round", "decimals")
        if type(x) is not Tensor and is_dask(x):
            return on_dask("round", (x, decimals), {"out": out})
        if out is not None:
            check_out(out, "round")
            return to_out(round(x, decimals), out, "round")
        if decimals == 0:
            x = x if isinstance(x, Tensor) or _dtypes.python_scalar_type(x) else operand(
                x, "round")
            out = standard(x)
            return _views.fresh(x) if out is x else out   # a new tensor
        x = operand(x, "round")
        if x.dtype.kind in "iub":
            if decimals >= 0:
                return _views.fresh(x)
            f = 10.0 ** -decimals   # NumPy's: in float64, cast back (half to even)
            return cast(standard(cast(x, _dtypes.float64) / f) * f, x.dtype)
        if decimals > 0:
            f = 10.0 ** decimals
            return standard(x * f) / f
        f = 10.0 ** -decimals
        return standard(x / f) * f

    round.__qualname__ = "round"
    return round


FUNCTIONS["round"] = _round_with_decimals(FUNCTIONS["round"])
FUNCTIONS["isnan"] = _classify("isnan", False)
FUNCTIONS["isinf"] = _classify("isinf", False)
FUNCTIONS["isfinite"] = _classify("isfinite", True)
FUNCTIONS.update(astype=astype, where=where, clip=clip, positive=positive, conj=conj,
                 real=real, imag=imag)
