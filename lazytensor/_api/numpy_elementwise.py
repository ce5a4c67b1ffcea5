"""NumPy's elementwise names: aliases of the Array API functions (``arcsin`` for ``asin``,
``power`` for ``pow`` ...) and NumPy's own ufunc-like functions (``fmax``, ``deg2rad``,
``sinc``, ``nan_to_num``, ``heaviside`` ...).

The NumPy-only functions are recorded lazily through lazytensor's ops, so they fuse with
what surrounds them; the few lazytensor has no op for (``cbrt``, ``logaddexp2``, ``gcd``
...) are computed by NumPy on the values.  Result dtypes are NumPy's: the dtype NumPy's
own function gives for the operands' dtypes, looked up once per dtype by calling it on
empty arrays (``np.sinc(int8)`` is float64, ``np.rint(int8)`` float16, ``np.fix(int8)`` int8).
"""

from __future__ import annotations

import math

import numpy as np

from .._engine import views as _views
from .._engine.record import _as_tensor, binary
from .._engine.tensor import Tensor
from .creation import asarray
from .elementwise import FUNCTIONS as _F
from .elementwise import _numpy_dtype, astype, where
from .numpy_values import on_values

# NumPy's names for the Array API functions (the same function objects)
_ALIASES = {"absolute": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
            "arctan2": "atan2", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
            "power": "pow", "mod": "remainder", "true_divide": "divide",
            "bitwise_not": "bitwise_invert", "invert": "bitwise_invert",
            "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
            "conjugate": "conj"}
ALIASES = {alias: _F[name] for alias, name in _ALIASES.items()}


def _operands(name, np_name, *xs):
    """The operands as tensors or Python scalars, cast to NumPy's result dtype of
    ``np_name`` (so that ints go into float functions as NumPy's floats)."""
    # NumPy's array-likes: lists and tuples become tensors, Python scalars stay weak
    xs = [asarray(x) if isinstance(x, (list, tuple)) else _as_tensor(x, name) for x in xs]
    if not any(isinstance(x, Tensor) for x in xs):
        xs[0] = asarray(xs[0])
    kinds = tuple(x.dtype if isinstance(x, Tensor) else type(x) for x in xs)
    dt = _numpy_dtype(np_name, kinds)
    if dt.kind in "fc":
        xs = [astype(x, dt, copy=False) if isinstance(x, Tensor) and x.dtype != dt else x
              for x in xs]
    return xs, dt


def _tensor(x, name):
    """``x`` as a tensor: NumPy's array-likes (lists, tuples, arrays, scalars) too."""
    x = asarray(x) if isinstance(x, (list, tuple)) else _as_tensor(x, name)
    return x if isinstance(x, Tensor) else asarray(x)


def exp2(x, /):
    """``2**x`` elementwise (NumPy's ``exp2``), recorded as ``pow(2, x)``."""
    (x,), _ = _operands("exp2", "exp2", x)
    return binary("pow", 2.0, x) if x.dtype.kind == "f" else _np("exp2", x)


def _fminmax(name, pick):
    def fn(x1, x2, /):
        (a, b), dt = _operands(name, name, x1, x2)
        if dt.kind != "f":
            return pick(a, b)
        if not isinstance(a, Tensor):       # a scalar operand: its NaN-ness is known
            a, b = b, a
        # NaN loses: the other operand where one is NaN, the ordinary extremum elsewhere
        if not isinstance(b, Tensor):
            if b != b:
                return astype(a, dt, copy=False)
            return where(_F["isnan"](a), b, pick(a, b))
        return where(_F["isnan"](b), a, where(_F["isnan"](a), b, pick(a, b)))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise {'maximum' if name == 'fmax' else 'minimum'} that ignores NaN "
                  f"(NumPy's ``{name}``): where one operand is NaN the other is returned.")
    return fn


fmax = _fminmax("fmax", _F["maximum"])
fmin = _fminmax("fmin", _F["minimum"])


def _scaled(name, factor, doc):
    def fn(x, /):
        (x,), _ = _operands(name, name, x)
        return x * factor
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


deg2rad = _scaled("deg2rad", math.pi / 180, "Degrees to radians: ``x * (pi / 180)`` as NumPy.")
radians = _scaled("radians", math.pi / 180, "Degrees to radians (NumPy's ``radians``).")
rad2deg = _scaled("rad2deg", 180 / math.pi, "Radians to degrees: ``x * (180 / pi)`` as NumPy.")
degrees = _scaled("degrees", 180 / math.pi, "Radians to degrees (NumPy's ``degrees``).")


def _float_unary(name, op, doc):
    def fn(x, /):
        (x,), dt = _operands(name, name, x)
        return op(x) if x.dtype.kind == "f" else astype(x, dt)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


rint = _float_unary("rint", _F["round"], "Round to the nearest integer, halves to even "
                    "(NumPy's ``rint``; integers give NumPy's float dtype).")
fix = _float_unary("fix", _F["trunc"], "Round toward zero (NumPy's ``fix``; integers are "
                   "returned unchanged).")
fabs = _float_unary("fabs", _F["abs"], "Absolute value as a float (NumPy's ``fabs``).")


def sinc(x, /):
    """The normalized sinc, ``sin(pi x) / (pi x)`` and 1 at 0, computed as NumPy does."""
    (x,), dt = _operands("sinc", "sinc", x)
    if x.dtype.kind != "f":
        x = astype(x, dt)
    x = math.pi * x
    y = where(x == 0, float(np.finfo(x.dtype).eps), x)     # NumPy's: sin(eps)/eps is 1
    return _F["sin"](y) / y


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, +inf to ``posinf`` (default the largest float), -inf to ``neginf``
    (default the most negative float); integers unchanged.  ``copy=False`` (NumPy's in-place
    replacement) is accepted and gives a new tensor too."""
    x = _tensor(x, "nan_to_num")
    if x.dtype.kind == "c":
        return _np("nan_to_num", x, nan=nan, posinf=posinf, neginf=neginf)
    if x.dtype.kind != "f":
        return _views.fresh(x) if copy else x    # NumPy's copy, or x itself
    big = float(np.finfo(x.dtype).max)
    out = where(_F["isnan"](x), float(nan), x)
    out = where(x == math.inf, big if posinf is None else float(posinf), out)
    return where(x == -math.inf, -big if neginf is None else float(neginf), out)


def angle(z, deg=False):
    """The angle of complex ``z`` (``arctan2(z.imag, z.real)``), in degrees if ``deg``;
    for real ``z`` 0 or pi, recorded lazily."""
    z = asarray(z) if isinstance(z, (list, tuple)) else _as_tensor(z, "angle")
    if isinstance(z, Tensor) and z.dtype.kind == "c":
        out = _np("angle", z)     # (not through _operands: its cast would drop z.imag)
    else:
        (z,), dt = _operands("angle", "angle", z)
        if z.dtype != dt:
            z = astype(z, dt)
        out = binary("atan2", 0.0, z)
    return out * (180 / math.pi) if deg else out


def heaviside(x1, x2, /):
    """The Heaviside step: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where
    ``x1 > 0``, NaN where ``x1`` is NaN (NumPy's ``heaviside``)."""
    (a, b), dt = _operands("heaviside", "heaviside", x1, x2)
    if isinstance(a, Tensor) and a.dtype != dt:
        a = astype(a, dt)
    return where(a < 0, 0.0, where(a > 0, 1.0, where(a == 0, b, a)))


def divmod(x1, x2, /):
    """``(floor_divide(x1, x2), remainder(x1, x2))`` (NumPy's ``divmod``)."""
    return _F["floor_divide"](x1, x2), _F["remainder"](x1, x2)


def fmod(x1, x2, /):
    """The C remainder, with the sign of ``x1`` (NumPy's ``fmod``; integer division by zero
    gives 0, the seeds' rule)."""
    (a, b), _ = _operands("fmod", "fmod", x1, x2)
    return binary("fmod", a, b)


def float_power(x1, x2, /):
    """``x1 ** x2`` in float64 (complex128 for complex operands), as NumPy's
    ``float_power``."""
    (a, b), _ = _operands("float_power", "float_power", x1, x2)
    return _F["pow"](a, b)


def isposinf(x, /):
    """Whether each element is +inf (NumPy's ``isposinf``)."""
    x = _tensor(x, "isposinf")
    inf = _F["isinf"](x)
    return inf if x.dtype.kind != "f" else _F["logical_and"](inf, ~_F["signbit"](x))


def isneginf(x, /):
    """Whether each element is -inf (NumPy's ``isneginf``)."""
    x = _tensor(x, "isneginf")
    inf = _F["isinf"](x)
    return inf if x.dtype.kind != "f" else _F["logical_and"](inf, _F["signbit"](x))


def _np(name, *args, **kwargs):
    return _BY_NUMPY[name](*args, **kwargs)


# NumPy-only ufuncs lazytensor has no op for: NumPy computes them on the values
_BY_NUMPY = {name: on_values(name, getattr(np, name), summary) for name, summary in {
    "cbrt": "The cube root, elementwise.",
    "logaddexp2": "``log2(2**x1 + 2**x2)``, elementwise.",
    "ldexp": "``x1 * 2**x2``, elementwise.",
    "frexp": "The mantissa and the exponent of each element.",
    "modf": "The fractional and the integral part of each element.",
    "gcd": "The greatest common divisor, elementwise.",
    "lcm": "The least common multiple, elementwise.",
    "i0": "The modified Bessel function of the first kind, order 0.",
    "spacing": "The distance to the nearest adjacent number, elementwise.",
    "exp2": "``2**x``, elementwise (complex operands).",
    "nan_to_num": "NaN and infinities replaced (complex operands).",
    "angle": "The angle of complex numbers.",
    "isreal": "Whether each element has a zero imaginary part.",
    "iscomplex": "Whether each element has a nonzero imaginary part.",
    "real_if_close": "The real part if every imaginary part is close to zero.",
    "bitwise_count": "The number of 1-bits in the absolute value of each element.",
}.items()}

FUNCTIONS = {**ALIASES, **{n: f for n, f in _BY_NUMPY.items()
                           if n not in ("exp2", "nan_to_num", "angle")},
             **{f.__name__: f for f in (exp2, fmax, fmin, deg2rad, radians, rad2deg, degrees,
                                        rint, fix, fabs, sinc, nan_to_num, angle, heaviside,
                                        divmod, fmod, float_power, isposinf, isneginf)}}
