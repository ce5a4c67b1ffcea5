"""Elementwise functions and operators, generated from the operator table.

Recording an op checks dtypes and shapes at once (so an error points at the user's line),
promotes the operands, inserts casts where an operand's dtype differs from the computation
dtype, and returns a tensor over a new (or shared) node.  Nothing is computed here.
"""

from __future__ import annotations

import functools

import numpy as np

from . import complex_functions as _complex
from .._engine import dtypes as _dtypes
from .._engine import graph as _graph
from .._engine.fpenv import library_state
from .._engine.ops import OPS
from .._engine.replay import memoized
from .args import check_size, real_arg
from .._engine.tensor import Tensor

_KIND_NAMES = {"b": "bool", "i": "signed integer", "u": "unsigned integer",
               "f": "real floating-point"}


def _kinds_text(kinds: str) -> str:
    return ", ".join(_KIND_NAMES[k] for k in kinds if k in _KIND_NAMES)


@functools.lru_cache(maxsize=4096)
def broadcast_shapes_cached(shapes: tuple):
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for d in range(-ndim, 0):
        n = 1
        for s in shapes:
            if len(s) >= -d:
                m = s[d]
                if m != 1:
                    if n != 1 and m != n:
                        return None
                    n = m
        out.append(n)
    return tuple(out)


def broadcast_shapes_or_raise(shapes, what: str, dtype=None) -> tuple:
    """The shape ``shapes`` broadcast to; ValueError naming ``what`` and the shapes when
    they do not broadcast, or when the result (of ``dtype``) is too large to exist."""
    out = broadcast_shapes_cached(tuple(tuple(s) for s in shapes))
    if out is None:
        listed = " and ".join(str(tuple(s)) for s in shapes)
        raise ValueError(f"{what}: shapes {listed} do not broadcast together")
    return check_size(out, what, dtype)


def _as_tensor(x, what: str):
    """A Tensor, or a Python scalar kept aside for weak promotion."""
    if isinstance(x, Tensor):
        return x
    if _dtypes.python_scalar_type(x) is not None:
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        from .creation import asarray

        return asarray(x)
    raise TypeError(f"{what}: expected a lazytensor Tensor or a Python scalar, got "
                    f"{type(x).__name__}")


def cast_node(node, dtype):
    """``node`` converted to ``dtype`` (constants are converted now, others lazily)."""
    if node.dtype == dtype:
        return node
    if node.op == "const" and dtype.kind != "c" and node.dtype.kind != "c":
        # fold: the value is one element, converted by the same kernel rules
        return _graph.constant(_convert_now(node.value, dtype))
    return _graph.op_node("cast", (node,), (), dtype, node.shape)


def _convert_now(array0d, dtype):
    t = Tensor._from_node(_graph.op_node("cast", (_graph.leaf(array0d),), (), dtype, ()))
    return np.array(t._value())


def promote(what, args):
    """Common dtype and broadcast shape of ``args`` (Tensors and Python scalars)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    scalars = [a for a in args if not isinstance(a, Tensor)]
    dtype = _dtypes.result_type_of([t.dtype for t in tensors],
                                   [_dtypes.python_scalar_type(s) for s in scalars])
    shape = broadcast_shapes_or_raise([t.shape for t in tensors], what) if len(tensors) > 1 \
        else (tensors[0].shape if tensors else ())
    return dtype, shape


def operand_node(x, dtype):
    if isinstance(x, Tensor):
        node = x._node
        return node if node.dtype == dtype else cast_node(node, dtype)
    return _constant_node(type(x), x, repr(x) if type(x) is float else None, dtype)


@functools.lru_cache(maxsize=2048)
def _constant_node(kind, value, spelling, dtype):
    # keyed by type and spelling too: 1 == 1.0 == True and 0.0 == -0.0 compare equal
    return _graph.constant(_dtypes.scalar_to_array(value, dtype))


@functools.lru_cache(maxsize=8192)
def _signature(name: str, operand_types: tuple, shapes: tuple):
    """Compute dtype, result dtype and shape of op ``name`` on operands of these types.

    ``operand_types`` holds a dtype per tensor operand and a Python type per scalar; the
    answer (or the error) depends on nothing else, so it is cached.
    """
    op = OPS[name]
    dtypes = [t for t in operand_types if isinstance(t, np.dtype)]
    scalars = [t for t in operand_types if not isinstance(t, np.dtype)]
    dtype = _dtypes.result_type_of(dtypes, scalars)
    shape = broadcast_shapes_or_raise(shapes, name) if len(shapes) > 1 else shapes[0]
    if dtype.kind == "c":
        if not op.cplx:
            raise TypeError(f"{name} does not take {dtype.name}: it takes "
                            f"{_kinds_text(op.kinds)} tensors")
        out = {"same": dtype, "bool": _dtypes.bool_,
               "real": np.dtype(dtype.char.lower())}[op.cplx_result]
        return dtype, out, check_size(shape, name, out)
    if name == "divide" and dtype.kind != "f":
        dtype = _dtypes.float64   # true division of integers gives the default float
    if _dtypes.kind(dtype) not in op.kinds:
        hint = " (cast with astype first)" if "f" in op.kinds and dtype.kind in "iub" else ""
        raise TypeError(f"{name} does not take {dtype.name}: it takes "
                        f"{_kinds_text(op.kinds)} tensors{hint}")
    out = _dtypes.bool_ if op.result == "bool" else dtype
    # a broadcast shape is new: its bytes must fit (C's broadcast_pair leaves large ones here)
    return dtype, out, check_size(shape, name, out) if len(shapes) > 1 else shape


def apply(name: str, *args, attrs: tuple = ()) -> Tensor:
    """Record the table op ``name`` on ``args`` and return the result tensor."""
    types, shapes = [], []
    for i, a in enumerate(args):
        if type(a) is not Tensor:
            if type(a) not in (float, int, bool):
                a = _as_tensor(a, name)
                if not isinstance(a, Tensor):
                    types.append(type(a))
                    continue
                args = args[:i] + (a,) + args[i + 1:]
            else:
                types.append(type(a))
                continue
        types.append(a._node.dtype)
        shapes.append(a._node.shape)
    if not shapes:   # only Python scalars: the first one becomes a 0-d tensor
        from .creation import asarray

        return apply(name, asarray(args[0]), *args[1:], attrs=attrs)
    dtype, out_dtype, shape = _signature(name, tuple(types), tuple(shapes))
    if attrs:
        attrs = _attributes(name, attrs)
    if dtype.kind == "c":
        fn_name = OPS[name].cplx
        return _complex_now(getattr(_complex, fn_name, None) or getattr(np, fn_name), args,
                            dtype, out_dtype)
    inputs = tuple(operand_node(a, dtype) for a in args)
    # float attributes are keyed by their bits: leaky_relu(x, -0.0) is not leaky_relu(x, 0.0)
    attrs = tuple(_graph.FloatAttr(a) if isinstance(a, float) else a for a in attrs)
    return Tensor._from_node(_graph.op_node(name, inputs, attrs, out_dtype, shape))


def _attributes(name: str, attrs: tuple) -> tuple:
    """Op ``name``'s attribute values as floats (the C bodies' ``p0``, ``p1``), checked one
    by one against the names in its table row: a clear TypeError for a string, None..."""
    names = OPS[name].attrs
    if len(attrs) != len(names):
        raise TypeError(f"{name} takes {len(names)} attributes ({', '.join(names)}), got "
                        f"{len(attrs)}")
    return tuple(real_arg(v, name, n) for n, v in zip(names, attrs))


# The lean path of recording an op on Tensors of one shape and Python int/float scalars:
# (op, operand dtype or scalar type, ...) -> (computation dtype, result dtype), filled from
# _signature (which raises the errors); real dtypes only (complex goes through apply).
_FAST_SIGNATURES: dict = {}
_FAST_SIGNATURES_MAX = 8192
# (scalar type, value, dtype) -> constant node, for nonzero values (0.0 == -0.0 as a key)
_FAST_CONSTANTS: dict = {}
_new_tensor = object.__new__


def _fast_signature(key, shape):
    sig = _FAST_SIGNATURES.get(key)
    if sig is None:
        dtype, out_dtype, _ = _signature(key[0], key[1:], (shape,))
        if dtype.kind == "c":
            return None
        if len(_FAST_SIGNATURES) >= _FAST_SIGNATURES_MAX:
            _FAST_SIGNATURES.clear()
        sig = _FAST_SIGNATURES[key] = (dtype, out_dtype)
    return sig


def _fast_operand(node, x, dtype):
    """The node of operand ``x`` (a Tensor's node, or None for a Python scalar) as ``dtype``."""
    if node is not None:
        return node if node.dtype is dtype or node.dtype == dtype else cast_node(node, dtype)
    if x:
        key = (type(x), x, dtype)
        const = _FAST_CONSTANTS.get(key)
        if const is None:
            const = _constant_node(type(x), x, repr(x) if type(x) is float else None, dtype)
            if len(_FAST_CONSTANTS) >= _FAST_SIGNATURES_MAX:
                _FAST_CONSTANTS.clear()
            _FAST_CONSTANTS[key] = const
        return const
    return _constant_node(type(x), x, repr(x) if type(x) is float else None, dtype)


# A broadcast shape with more elements than this (2**63 - 1 bytes over the widest itemsize,
# complex128's 16) is left to apply, which checks its bytes; C's broadcast_pair does the same.
LEAN_MAX_ELEMENTS = (2**63 - 1) // 16


def _too_large(shape) -> bool:
    n = 1
    for d in shape:
        if d:
            n *= d
    return n > LEAN_MAX_ELEMENTS


def _result(name, inputs, dtype, shape) -> Tensor:
    t = _new_tensor(Tensor)
    t._node = _graph.op_node(name, inputs, (), dtype, shape)
    return t


def unary(name: str, x) -> Tensor:
    """``apply(name, x)``, lean for a Tensor of a real dtype."""
    if type(x) is Tensor:
        node = x._node
        sig = _fast_signature((name, node.dtype), node.shape)
        if sig is not None:
            return _result(name, (_fast_operand(node, x, sig[0]),), sig[1], node.shape)
    return apply(name, x)


def binary(name: str, a, b) -> Tensor:
    """``apply(name, a, b)``, lean for Tensors (broadcast together) and Python int/float
    scalars."""
    ta, tb = type(a), type(b)
    if ta is Tensor:
        na = a._node
        shape = na.shape
        if tb is Tensor:
            nb = b._node
            if nb.shape != shape:
                shape = broadcast_shapes_cached((shape, nb.shape))
                if shape is None or _too_large(shape):   # apply raises the error
                    return apply(name, a, b)
            key = (name, na.dtype, nb.dtype)
        elif tb is float or tb is int:
            nb = None
            key = (name, na.dtype, tb)
        else:
            return apply(name, a, b)
    elif tb is Tensor and (ta is float or ta is int):
        na, nb = None, b._node
        shape = nb.shape
        key = (name, ta, nb.dtype)
    else:
        return apply(name, a, b)
    sig = _FAST_SIGNATURES.get(key) or _fast_signature(key, shape)
    if sig is None:
        return apply(name, a, b)
    dtype = sig[0]
    if na is None or na.dtype is not dtype:
        na = _fast_operand(na, a, dtype)
    if nb is None or nb.dtype is not dtype:
        nb = _fast_operand(nb, b, dtype)
    t = _new_tensor(Tensor)
    t._node = _graph.op_node(name, (na, nb), (), sig[1], shape)
    return t


def _complex_now(np_fn, args, dtype, out_dtype) -> Tensor:
    """Complex operands are computed now by NumPy (the kernel has no complex types yet), in
    the library's floating-point state."""
    values = [a._value() if isinstance(a, Tensor) else a for a in args]
    with np.errstate(all="ignore"), library_state():
        arrays = [np.asarray(v, dtype=dtype) for v in values]
        out = np.asarray(np_fn(*arrays)).astype(out_dtype, copy=False)
    return Tensor._from_array(out)


def conj(x, /):
    """Complex conjugate (real tensors are returned unchanged)."""
    x = _as_tensor(x, "conj")
    if not isinstance(x, Tensor):
        raise TypeError("conj: expected a Tensor")
    if x.dtype.kind == "c":
        return _complex_now(np.conj, [x], x.dtype, x.dtype)
    if _dtypes.kind(x.dtype) not in "iuf":
        raise TypeError(f"conj does not take {x.dtype.name}: it takes numeric tensors")
    return x


def _component(name, np_fn):
    def fn(x, /):
        x = _as_tensor(x, name)
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: expected a Tensor")
        if x.dtype.kind == "c":
            return _complex_now(np_fn, [x], x.dtype, np.dtype(x.dtype.char.lower()))
        if _dtypes.kind(x.dtype) not in "iuf":
            raise TypeError(f"{name} does not take {x.dtype.name}: it takes numeric tensors")
        if name == "real":
            return x
        from .creation import zeros_like

        return zeros_like(x)
    fn.__name__ = name
    fn.__doc__ = (f"The {name} part of a complex tensor (a tensor of the matching real "
                  f"dtype); a real tensor's {name} part is " + ("itself." if name == "real"
                                                                 else "zero."))
    return fn


real = _component("real", np.real)
imag = _component("imag", np.imag)


# ---- functions that need more than one table row -----------------------------------
def astype(x, dtype, /, *, copy=True, device=None):
    """Copy of ``x`` converted to ``dtype`` (the Cast rules of docs/semantics.md).

    Float to integer truncates toward zero and saturates at the target's range (NaN gives
    0); integer to integer wraps; anything to bool is ``x != 0``.
    """
    if type(x) is Tensor and x._node.op == "clip":
        x = _unclipped_for_cast(x, dtype)
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
    try:
        bounds = _integer_range(dtype)
    except TypeError:                      # unhashable or not a dtype: astype says so
        return x
    if bounds is not None and float(lo.value) <= bounds[0] and float(hi.value) >= bounds[1]:
        return Tensor._from_node(v)
    return x


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
            out = np.array(node.value)
            out.setflags(False)
            return Tensor._from_array(out)
        return x  # a pending result gets a buffer of its own: sharing the node is a copy
    check_size(x.shape, "astype", dtype)      # a wider dtype: more bytes
    if x.dtype.kind == "c" or dtype.kind == "c":
        if x.dtype.kind == "c" and dtype.kind != "c" and dtype != _dtypes.bool_:
            raise TypeError(f"astype: casting {x.dtype.name} to {dtype.name} would drop the "
                            f"imaginary part; take .real or abs() first")
        src = np.asarray(x._value())
        with np.errstate(all="ignore"), library_state():
            out = (src != 0) if dtype == _dtypes.bool_ else src.astype(dtype)
        return Tensor._from_array(out)
    return Tensor._from_node(cast_node(x._node, dtype))


def where(condition, x1, x2, /):
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (broadcast together)."""
    if type(condition) is Tensor and type(x1) is Tensor and type(x2) is Tensor:
        nc, n1, n2 = condition._node, x1._node, x2._node
        if (nc.dtype == _dtypes.bool_ and n1.dtype is n2.dtype and n1.dtype.kind != "c"
                and nc.shape == n1.shape == n2.shape):   # the common case, lean
            return _result("where", (nc, n1, n2), n1.dtype, n1.shape)
    condition = _as_tensor(condition, "where")
    if not isinstance(condition, Tensor) or condition.dtype != _dtypes.bool_:
        got = condition.dtype.name if isinstance(condition, Tensor) else type(condition).__name__
        raise TypeError(f"where: condition must be a bool tensor, got {got}")
    x1, x2 = _as_tensor(x1, "where"), _as_tensor(x2, "where")
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        from .creation import asarray

        x1 = asarray(x1)
    dtype, _ = promote("where", [x1, x2])
    shape = broadcast_shapes_or_raise(
        [condition.shape] + [a.shape for a in (x1, x2) if isinstance(a, Tensor)], "where",
        dtype)
    if dtype.kind == "c":
        a1, a2 = (np.asarray(a._value() if isinstance(a, Tensor) else a).astype(dtype)
                  for a in (x1, x2))
        return Tensor._from_array(np.where(condition._value(), a1, a2))
    inputs = (condition._node, operand_node(x1, dtype), operand_node(x2, dtype))
    return Tensor._from_node(_graph.op_node("where", inputs, (), dtype, shape))


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
def clip(x, /, min=None, max=None):
    """Clamp ``x`` to ``[min, max]``: ``minimum(maximum(x, min), max)`` (one op when both
    bounds are given).

    A bound that is ``None`` does not clamp (the Array API rule; ONNX Clip's finite
    extremes are ``lazytensor.onnx.Clip``).  If ``min > max`` the upper bound wins.
    NaN in ``x`` passes through.  The result has ``x``'s dtype.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"clip: expected a Tensor, got {type(x).__name__}")
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
    if out.shape != shape:
        from .manipulation import broadcast_to

        out = broadcast_to(out, shape)
    return out


def positive(x, /):
    """+x (a numeric tensor, unchanged)."""
    x = _as_tensor(x, "positive")
    if not isinstance(x, Tensor) or _dtypes.kind(x.dtype) not in "iufc":
        raise TypeError("positive takes a numeric tensor")
    return x


def _integer_identity(name):
    """floor/ceil/round/trunc: integers are already integral (Array API)."""
    def fn(x, /):
        if type(x) is Tensor and x._node.dtype.kind == "f":
            return unary(name, x)
        x = _as_tensor(x, name)
        if isinstance(x, Tensor) and x.dtype.kind in "iu":
            return x
        return apply(name, x)
    fn.__name__ = name
    fn.__doc__ = OPS[name].doc + " Integer tensors are returned unchanged."
    return fn


def _classify(name, int_value):
    """isnan/isinf/isfinite: an integer tensor has a known answer everywhere."""
    def fn(x, /):
        x = _as_tensor(x, name)
        if isinstance(x, Tensor) and x.dtype.kind in "iub":
            from .creation import full

            return full(x.shape, int_value, dtype=_dtypes.bool_)
        return apply(name, x)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}; for integer tensors the answer is {int_value}."
    return fn


def _make_function(name):
    op = OPS[name]
    if op.arity == 1:
        def fn(x, /):
            return unary(name, x)
    else:
        def fn(x1, x2, /):
            return binary(name, x1, x2)

    fn.__name__ = fn.__qualname__ = name
    mode = "exact" if op.exact else "not yet exact (platform C library)"
    fn.__doc__ = (f"Elementwise {name}. {op.doc}\n\nTakes {_kinds_text(op.kinds)} tensors"
                  f"{' (and complex)' if op.cplx else ''}; mode: {mode}.").strip()
    return fn


# Array API elementwise functions served straight from the table.
_TABLE_FUNCTIONS = [
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "maximum",
    "minimum", "copysign", "nextafter", "atan2", "hypot", "logaddexp", "negative", "abs", "sign",
    "square", "reciprocal", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin",
    "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "erf", "signbit", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift",
    "bitwise_right_shift",
]
FUNCTIONS = {name: _make_function(name) for name in _TABLE_FUNCTIONS}
for _name in ("floor", "ceil", "round", "trunc"):
    FUNCTIONS[_name] = _integer_identity(_name)
FUNCTIONS["isnan"] = _classify("isnan", False)
FUNCTIONS["isinf"] = _classify("isinf", False)
FUNCTIONS["isfinite"] = _classify("isfinite", True)
FUNCTIONS.update(astype=astype, where=where, clip=clip, positive=positive, conj=conj,
                 real=real, imag=imag)


# ---- operators on Tensor ------------------------------------------------------------
_BINARY_DUNDERS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
_COMPARE_DUNDERS = {"lt": "less", "le": "less_equal", "gt": "greater",
                    "ge": "greater_equal", "eq": "equal", "ne": "not_equal"}


def _install_operators():
    def dunders(fname):
        record = FUNCTIONS[fname]   # a table function: binary(fname, ...)

        def forward(self, other):
            if type(other) in _LEAN_OPERANDS or _is_operand(other):
                return binary(fname, self, other)
            return NotImplemented

        def reflected(self, other):
            if type(other) in _LEAN_OPERANDS or _is_operand(other):
                return binary(fname, other, self)
            return NotImplemented

        def inplace(self, other):
            if not _is_operand(other):
                return NotImplemented
            result = record(self, other)
            if result.dtype != self.dtype:
                raise TypeError(f"in-place {fname} would change the dtype from "
                                f"{self.dtype.name} to {result.dtype.name}")
            if result.shape != self.shape:
                raise ValueError(f"in-place {fname} would change the shape from "
                                 f"{self.shape} to {result.shape}")
            self._node = result._node   # tensors built from the old value keep it
            return self

        return forward, reflected, inplace

    for dunder, fname in _BINARY_DUNDERS.items():
        f, r, i = dunders(fname)
        setattr(Tensor, f"__{dunder}__", f)
        setattr(Tensor, f"__r{dunder}__", r)
        setattr(Tensor, f"__i{dunder}__", i)
    for dunder, fname in _COMPARE_DUNDERS.items():
        setattr(Tensor, f"__{dunder}__", dunders(fname)[0])
    Tensor.__neg__ = lambda self: unary("negative", self)
    Tensor.__pos__ = lambda self: positive(self)
    Tensor.__abs__ = lambda self: unary("abs", self)
    Tensor.__invert__ = lambda self: FUNCTIONS["bitwise_invert"](self)
    Tensor.astype = lambda self, dtype, copy=True, device=None: astype(self, dtype, copy=copy,
                                                                       device=device)


_LEAN_OPERANDS = frozenset((Tensor, int, float))


def _is_operand(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic)) or _dtypes.python_scalar_type(x) is not None


_install_operators()


# The lean cases of binary() and unary() in C (kernels_c/lt_fastpath.c): every caller above
# looks these names up when it runs, so they all take the C versions, which hand anything
# but the lean case back to the Python functions.
from .._engine.native import fastpath as _fastpath   # noqa: E402

if True:
    _fastpath.setup_recording(Tensor, _FAST_SIGNATURES, _FAST_CONSTANTS, binary, unary, _graph)
    # every caller looks _graph.op_node up when it runs: the C one, with its own table
    _graph.python_op_node, _graph.op_node = _graph.op_node, _fastpath.op_node
    _graph._forget = _fastpath.forget
    python_binary, python_unary = binary, unary
    binary, unary, _result = _fastpath.binary, _fastpath.unary, _fastpath.result
    # where() too: its Python frame and checks cost about 0.45 us of a 1.2 us call
    python_where = where
    _fastpath.setup_where(python_where, _dtypes.bool_)
    where = FUNCTIONS["where"] = _fastpath.where
    # Tensor._value, numpy() and __array__() as C methods: np.asarray(t) of a small result
    # spent about a microsecond in their two Python frames (the C versions hand a trace, or
    # __array__ with a dtype or copy=True, to the Python methods kept here)
    from .._engine import evaluate as _eval  # noqa: E402
    from .._engine import tensor as _tensor
    python_value, python_array = Tensor._value, Tensor.__array__
    _methods = _fastpath.setup_value(_tensor, python_value, python_array, _eval.lock,
                                     _eval.evaluate_one)
    for _name, _method in _methods.items():
        setattr(Tensor, _name, _method)
    # + - * / and the comparisons as C methods too (a Python frame each, about 0.2 us, in
    # front of binary()); the Python dunders stay for operands other than Tensor, int, float.
    # It also gives __neg__ and __abs__, which call unary() directly.
    _methods = _fastpath.setup_operators({name: getattr(Tensor, name) for name in (
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
        "__rtruediv__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")})
    for _name, _method in _methods.items():
        setattr(Tensor, _name, _method)
