"""Recording: an op on tensors and Python scalars becomes a node of the DAG.

Recording an op checks dtypes and shapes at once (so an error points at the user's line),
promotes the operands, inserts casts where an operand's dtype differs from the computation
dtype, and returns a tensor over a new (or shared) node.  Nothing is computed here.  The
lean cases (tensors of one shape or broadcast, Python int and float scalars, a signature
seen before) are recorded in C (kernels_c/lt_fastpath.c: ``binary``, ``unary``,
``result``), which hands everything else to the Python functions here.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import dtypes as _dtypes
from . import graph as _graph
from .fpenv import library_state
from .native import fastpath as _fastpath
from .ops import OPS
from .shapes import broadcast_shapes_cached, broadcast_shapes_or_raise, check_size
from .tensor import Tensor, leaf_of

_KIND_NAMES = {"b": "bool", "i": "signed integer", "u": "unsigned integer",
               "f": "real floating-point"}


def _kinds_text(kinds: str) -> str:
    return ", ".join(_KIND_NAMES[k] for k in kinds if k in _KIND_NAMES)


def _as_tensor(x, what: str):
    """A Tensor, or a Python scalar kept aside for weak promotion; a NumPy array or scalar
    becomes a leaf over it."""
    if isinstance(x, Tensor):
        return x
    if _dtypes.python_scalar_type(x) is not None:
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return leaf_of(x, what)
    raise TypeError(f"{what}: expected a lazytensor Tensor or a Python scalar, got "
                    f"{type(x).__name__}")


def real_arg(value, what: str, name: str) -> float:
    """``value`` (a real number: int, float or a NumPy real scalar) as a Python float;
    TypeError naming ``what``, the argument and the value's type otherwise (bools, strings,
    complex numbers, arrays...).  The one check of scalar attributes: op attributes
    (``leaky_relu``'s alpha...), clip bounds."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
            value, (bool, np.bool_)):
        return float(value)
    raise TypeError(f"{what}: {name} must be a real number (int or float), got "
                    f"{type(value).__name__} {value!r}")


def cast_node(node, dtype):
    """``node`` converted to ``dtype`` (constants are converted now, others lazily)."""
    if node.dtype == dtype:
        return node
    if node.op == "const":
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


# Operands lazytensor does not hold but another library runs block by block (a dask array):
# lazytensor/_api/dask_arrays.py adds its handler (the engine imports nothing from the API).
# A handler takes ``(fn, args)``, ``fn`` the op on blocks (picklable), and returns the result
# or NotImplemented.  It is asked only after an operand failed to convert, so recording on
# Tensors never meets it.
foreign_handlers = []


def foreign_call(fn, args, error):
    """``fn`` over ``args`` by the handler of their foreign operands, or ``error`` raised."""
    for handler in foreign_handlers:
        out = handler(fn, args)
        if out is not NotImplemented:
            return out
    raise error


def apply(name: str, *args, attrs: tuple = ()) -> Tensor:
    """Record the table op ``name`` on ``args`` and return the result tensor."""
    types, shapes = [], []
    for i, a in enumerate(args):
        if type(a) is not Tensor:
            if type(a) not in (float, int, bool):
                try:
                    a = _as_tensor(a, name)
                except TypeError as error:
                    return foreign_call(functools.partial(apply, name, attrs=attrs), args,
                                        error)
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
        return apply(name, leaf_of(args[0], name), *args[1:], attrs=attrs)
    dtype, out_dtype, shape = _signature(name, tuple(types), tuple(shapes))
    if attrs:
        attrs = _attributes(name, attrs)
    if dtype.kind == "c" and not OPS[name].cc:   # not in the kernel yet: NumPy, now
        fn_name = OPS[name].cplx
        return _complex_now(getattr(np, fn_name), args, dtype, out_dtype)
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


# What C's lean recording reads (kernels_c/ext/record.c), filled by the cold paths below:
# (op, operand dtype or scalar type, ...) -> (computation dtype, result dtype), from
# _signature (which raises the errors); real dtypes only (complex goes through apply).
_FAST_SIGNATURES: dict = {}
_FAST_SIGNATURES_MAX = 8192
# (scalar type, value, dtype) -> constant node; a float zero's value is "0.0" or "-0.0"
# (0.0 == -0.0 as a key)
_FAST_CONSTANTS: dict = {}


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
    """The node of operand ``x`` (a Tensor's node, or None for a Python scalar) as ``dtype``;
    a scalar's constant is kept where C's recording finds it."""
    if node is not None:
        return node if node.dtype is dtype or node.dtype == dtype else cast_node(node, dtype)
    value = x if x or type(x) is not float else ("-0.0" if math.copysign(1.0, x) < 0 else "0.0")
    key = (type(x), value, dtype)
    const = _FAST_CONSTANTS.get(key)
    if const is None:
        const = _constant_node(type(x), x, repr(x) if type(x) is float else None, dtype)
        if len(_FAST_CONSTANTS) >= _FAST_SIGNATURES_MAX:
            _FAST_CONSTANTS.clear()
        _FAST_CONSTANTS[key] = const
    return const


# A broadcast shape with more elements than this (2**63 - 1 bytes over the widest itemsize,
# complex128's 16) is left to apply, which checks its bytes; C's broadcast_pair does the same.
LEAN_MAX_ELEMENTS = (2**63 - 1) // 16


def _too_large(shape) -> bool:
    n = 1
    for d in shape:
        if d:
            n *= d
    return n > LEAN_MAX_ELEMENTS


_result = _fastpath.result     # the tensor of an op node without attributes (in C)


def _python_unary(name: str, x) -> Tensor:
    """What C's ``unary`` hands over (the first call of a signature, an operand that is not a
    Tensor, a complex dtype): keep the signature for C, then record through ``apply``."""
    if type(x) is Tensor:
        _fast_signature((name, x._node.dtype), x._node.shape)
    return apply(name, x)


def _python_binary(name: str, a, b) -> Tensor:
    """What C's ``binary`` hands over (the first call of a signature or of a scalar's
    constant, operands other than Tensors and Python int/float scalars, shapes that do not
    broadcast, complex dtypes, a cast of a constant): keep the signature and the scalars'
    constants for C, then record through ``apply``."""
    ta, tb = type(a), type(b)
    if (ta is Tensor or ta is float or ta is int) and (tb is Tensor or tb is float or tb is int) \
            and (ta is Tensor or tb is Tensor):
        shapes = tuple(t._node.shape for t in (a, b) if type(t) is Tensor)
        shape = broadcast_shapes_cached(shapes) if len(shapes) == 2 else shapes[0]
        if shape is not None and not _too_large(shape):
            key = (name, *(t._node.dtype if type(t) is Tensor else type(t) for t in (a, b)))
            sig = _fast_signature(key, shape)
            if sig is not None:
                for t in (a, b):
                    if type(t) is not Tensor:
                        _fast_operand(None, t, sig[0])
    return apply(name, a, b)


def _complex_now(np_fn, args, dtype, out_dtype) -> Tensor:
    """Complex operands of an op the kernel does not compute on them yet (``cc`` empty in its
    row: the transcendental functions) are computed now by NumPy, pending operands evaluated
    first, in the library's floating-point state."""
    values = [a._value() if isinstance(a, Tensor) else a for a in args]
    with np.errstate(all="ignore"), library_state():
        arrays = [np.asarray(v, dtype=dtype) for v in values]
        out = np.asarray(np_fn(*arrays)).astype(out_dtype, copy=False)
    return Tensor._computed_by_numpy(out, f"complex {np_fn.__name__}")


def reduce_node(op, v, axes, keepdims, acc_dtype) -> Tensor:
    """A lazy reduction of ``v`` over ``axes`` (normalized, sorted) by ``op`` (``sum``,
    ``prod``, ``max``, ``min``), giving ``acc_dtype`` values: the fused kernel's
    accumulators.  ``v``'s dtype must be one the kernel reduces (``_kernel.REDUCTIONS``)."""
    if keepdims:
        shape = tuple(1 if d in axes else n for d, n in enumerate(v.shape))
    else:
        shape = tuple(n for d, n in enumerate(v.shape) if d not in axes)
    return Tensor._from_node(_graph.op_node("reduce", (v._node,), (op, tuple(axes),
                                                                 bool(keepdims)),
                                            np.dtype(acc_dtype), shape))


# The lean cases in C; they hand the rest to _python_binary and _python_unary.
_fastpath.setup_recording(Tensor, _FAST_SIGNATURES, _FAST_CONSTANTS, _python_binary,
                          _python_unary, _graph)
binary, unary = _fastpath.binary, _fastpath.unary
