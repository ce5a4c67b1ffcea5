"""ONNX operators under their ONNX names, with ONNX semantics where they differ from the
Array API: truncating integer ``Div``, ``Mod`` with ``fmod``, variadic ``Sum``/``Mean``/
``Max``/``Min`` folded left to right, ``Clip`` whose omitted bounds are the dtype's finite
extremes, ``Cast``/``CastLike``, and no implicit type promotion between tensors.

This is the one place an ONNX graph runner would call; see docs/semantics.md.
"""

from __future__ import annotations

import functools

import numpy as np

from . import nn
from ._engine import dtypes as _dtypes
from ._api.elementwise import FUNCTIONS, cast, where as _where
from ._engine.record import apply
from ._engine.tensor import Tensor


def _same_dtype(name, *xs):
    tensors = [x for x in xs if isinstance(x, Tensor)]
    if len(tensors) != len(xs):
        raise TypeError(f"onnx.{name}: inputs must be Tensors")
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise TypeError(f"onnx.{name}: inputs must share one element type, got "
                        f"{', '.join(sorted(d.name for d in dtypes))}")


def _binary(name, table_op):
    def fn(a, b):
        _same_dtype(name, a, b)
        return apply(table_op, a, b)
    fn.__name__ = name
    fn.__doc__ = f"ONNX {name} (same element type on both inputs, NumPy broadcasting)."
    return fn


def _unary(name, fn_):
    def fn(x):
        _same_dtype(name, x)
        return fn_(x)
    fn.__name__ = name
    fn.__doc__ = f"ONNX {name}."
    return fn


Add = _binary("Add", "add")
Sub = _binary("Sub", "subtract")
Mul = _binary("Mul", "multiply")
Div = _binary("Div", "div_trunc")   # integers truncate toward zero; x/0 is 0
Equal = _binary("Equal", "equal")
Less = _binary("Less", "less")
Greater = _binary("Greater", "greater")
LessOrEqual = _binary("LessOrEqual", "less_equal")
GreaterOrEqual = _binary("GreaterOrEqual", "greater_equal")
And = _binary("And", "logical_and")
Or = _binary("Or", "logical_or")
Xor = _binary("Xor", "logical_xor")

Not = _unary("Not", FUNCTIONS["logical_not"])
Neg = _unary("Neg", FUNCTIONS["negative"])
Abs = _unary("Abs", FUNCTIONS["abs"])
Sign = _unary("Sign", FUNCTIONS["sign"])
Reciprocal = _unary("Reciprocal", FUNCTIONS["reciprocal"])
Sqrt = _unary("Sqrt", FUNCTIONS["sqrt"])
Floor = _unary("Floor", FUNCTIONS["floor"])
Ceil = _unary("Ceil", FUNCTIONS["ceil"])
Round = _unary("Round", FUNCTIONS["round"])
Exp = _unary("Exp", FUNCTIONS["exp"])
Log = _unary("Log", FUNCTIONS["log"])
Tanh = _unary("Tanh", FUNCTIONS["tanh"])
Erf = _unary("Erf", FUNCTIONS["erf"])
Sigmoid = _unary("Sigmoid", nn.sigmoid)
Relu = _unary("Relu", nn.relu)
HardSwish = _unary("HardSwish", nn.hardswish)


def Gelu(x, approximate="none"):
    """ONNX Gelu-20."""
    return nn.gelu(x, approximate=approximate)


def LeakyRelu(x, alpha=0.01):
    """ONNX LeakyRelu."""
    return nn.leaky_relu(x, alpha=alpha)


def HardSigmoid(x, alpha=0.2, beta=0.5):
    """ONNX HardSigmoid."""
    return nn.hard_sigmoid(x, alpha=alpha, beta=beta)


def Mod(a, b, fmod=0):
    """ONNX Mod: ``fmod=0`` takes the divisor's sign (integers only); ``fmod=1`` the dividend's."""
    _same_dtype("Mod", a, b)
    if fmod not in (0, 1):
        raise ValueError(f"onnx.Mod: fmod must be 0 or 1, not {fmod!r}")
    if fmod == 0 and a.dtype.kind == "f":
        raise TypeError(f"onnx.Mod: fmod=0 is for integers; {a.dtype.name} needs fmod=1")
    return apply("remainder" if fmod == 0 else "fmod", a, b)


def Pow(x, y):
    """ONNX Pow (not exact): the exponent is converted to the base's type; an integer base
    is computed in double and converted back with saturation."""
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError("onnx.Pow: inputs must be Tensors")
    if x.dtype.kind == "f":
        return apply("pow", x, cast(y, x.dtype))
    if x.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"onnx.Pow does not take a {x.dtype.name} base (int32, int64, "
                        f"float32, float64 and float16)")
    r = apply("pow", cast(x, _dtypes.float64), cast(y, _dtypes.float64))
    return cast(r, x.dtype)


def _fold(name, table_op, xs):
    if not xs:
        raise TypeError(f"onnx.{name} needs at least one input")
    _same_dtype(name, *xs)
    return functools.reduce(lambda acc, x: apply(table_op, acc, x), xs[1:], xs[0])


def Max(*xs):
    """ONNX Max of any number of inputs, folded left to right."""
    return _fold("Max", "maximum", xs)


def Min(*xs):
    """ONNX Min of any number of inputs, folded left to right."""
    return _fold("Min", "minimum", xs)


def Sum(*xs):
    """ONNX Sum (float types), folded left to right.  float16 inputs are summed in float32
    and the result rounded to float16 once (half precision is computed in single)."""
    if xs and isinstance(xs[0], Tensor) and xs[0].dtype.kind != "f":
        raise TypeError(f"onnx.Sum takes float16, float32 or float64, not {xs[0].dtype.name}")
    return _in_single_for_half("Sum", xs, lambda ys: _fold("Sum", "add", ys))


def Mean(*xs):
    """ONNX Mean: the Sum folded left to right, divided by the number of inputs (one
    correctly rounded division); float16 is computed in float32 and rounded once."""
    if xs and isinstance(xs[0], Tensor) and xs[0].dtype.kind != "f":
        raise TypeError(f"onnx.Mean takes float16, float32 or float64, not {xs[0].dtype.name}")
    return _in_single_for_half(
        "Mean", xs, lambda ys: apply("divide", _fold("Mean", "add", ys), float(len(ys))))


def _in_single_for_half(name, xs, compute):
    """compute(xs), in float32 and rounded once when the inputs are float16."""
    if not xs:
        raise TypeError(f"onnx.{name} needs at least one input")
    _same_dtype(name, *xs)
    if xs[0].dtype == _dtypes.float16 and (len(xs) > 1 or name == "Mean"):
        return cast(compute([cast(x, _dtypes.float32) for x in xs]), _dtypes.float16)
    return compute(xs)


def Clip(x, min=None, max=None):
    """ONNX Clip: an omitted bound is the dtype's finite extreme, so ``Clip(+inf)`` with no
    bounds is the largest finite value; NaN passes through; the upper bound wins."""
    _same_dtype("Clip", x)
    info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
    lo = min if min is not None else info.min
    hi = max if max is not None else info.max
    return apply("minimum", apply("maximum", x, lo), hi)


def Where(condition, x, y):
    """ONNX Where (same element type for x and y)."""
    _same_dtype("Where", x, y)
    return _where(condition, x, y)


def Cast(x, to):
    """ONNX Cast to dtype ``to`` (the rules of docs/semantics.md)."""
    return cast(x, to)


def CastLike(x, target_type):
    """Cast ``x`` to the element type of ``target_type`` (whose values are never read)."""
    if not isinstance(target_type, Tensor):
        raise TypeError("onnx.CastLike: target_type must be a Tensor")
    return cast(x, target_type.dtype)
