"""Every operator of the table against an independent, eager NumPy/SciPy reference.

The reference never uses lazytensor: each op name maps (in ``REFERENCES``) to a NumPy or
SciPy function, evaluated in float64 and rounded once to the target dtype where that is
the right reference, or to the rule of the semantics reference written out here in NumPy
where NumPy differs (integer division by zero, MIN / -1, Sign(-0), Max/Min signed zeros
and NaN, the saturating float -> int cast, canonical NaN bits in exact mode).

* ops marked exact in the table must agree bit for bit (NaNs mapped to the canonical
  quiet NaN in the reference); ops marked not exact (platform libm) within a few ulp;
* float16 ops are computed in float32 and rounded once: the float16 reference is the
  float32 reference rounded to float16;
* fast mode is compared with the same references within a tolerance.

Run: python -m pytest tests/test_ops_reference.py -q
"""

from __future__ import annotations

import itertools
import os
import sys
import zlib
from dataclasses import dataclass


import numpy as np
import pytest
import scipy.special as sps
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazytensor as lt
from lazytensor._engine import ops as _ops
from lazytensor._api.elementwise import apply

# --------------------------------------------------------------------------------------
# dtypes, bits, canonical NaN
# --------------------------------------------------------------------------------------
DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float16", "float32", "float64")
FLOAT_NAMES = ("float16", "float32", "float64")
INT_NAMES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
# the operator table's kind letters (float16 is a real float for the ops)
TABLE_KIND = {"bool": "b", "float16": "f", "float32": "f", "float64": "f",
              **{n: ("i" if n.startswith("int") else "u") for n in INT_NAMES}}
UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
CANONICAL_NAN_BITS = {np.dtype(np.float16): 0x7E00, np.dtype(np.float32): 0x7FC00000,
                      np.dtype(np.float64): 0x7FF8000000000000}
CHUNK_LENGTHS = (0, 1, 255, 256, 257, 511, 513, 4097)


def accepted_dtypes(op):
    return [d for d in DTYPE_NAMES if TABLE_KIND[d] in op.kinds]


def c_array(a):
    """``a`` as a C-contiguous array of the same shape (0-d stays 0-d)."""
    return np.asarray(a, order="C")


def bits_of(a):
    a = c_array(a)
    return a.view(UINT_OF_SIZE[a.dtype.itemsize])


def from_bits(values, dtype):
    dtype = np.dtype(dtype)
    return np.array(values, dtype=UINT_OF_SIZE[dtype.itemsize]).view(dtype)


def canonical_nans(a):
    """``a`` with every NaN replaced by the canonical quiet NaN (floats only)."""
    a = c_array(a)
    if a.dtype.kind != "f":
        return a
    b = bits_of(a).copy()
    b[np.isnan(a)] = CANONICAL_NAN_BITS[a.dtype]
    return b.view(a.dtype)


def seeded_rng(*parts):
    return np.random.default_rng(zlib.crc32("/".join(map(str, parts)).encode()))


# --------------------------------------------------------------------------------------
# inputs: special values and random values per dtype
# --------------------------------------------------------------------------------------
def special_values(dtname):
    dt = np.dtype(dtname)
    if dt.kind == "b":
        return np.array([False, True])
    if dt.kind in "iu":
        ii = np.iinfo(dt)
        bits = ii.bits
        vals = {0, 1, 2, 3, 5, 7, 10, 100, bits - 1, bits, bits + 1, ii.max, ii.max - 1,
                ii.max // 2, ii.max // 2 + 1}
        if dt.kind == "i":
            vals |= {-1, -2, -3, -7, -100, -bits, ii.min, ii.min + 1, -(ii.max // 2)}
        if bits >= 32:
            vals |= {2 ** 24 + 1, 2 ** 24 - 1, -(2 ** 24 + 1)}
        if bits >= 64:
            vals |= {2 ** 53 + 1, 2 ** 62 + 2 ** 40 + 1, -(2 ** 53 + 1)}
        vals = sorted(v for v in vals if ii.min <= v <= ii.max)
        return np.array(vals, dtype=dt)
    fi = np.finfo(dt)
    mant = fi.nmant  # 10, 23, 52
    big = float(2 ** mant)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -7.0, 0.1, -0.3,
            2.0, 6.0, -3.0, 10.0, 100.0, np.pi, -np.e, 0.75, -0.25,
            np.inf, -np.inf, np.nan,
            float(fi.max), float(fi.min), float(fi.tiny), -float(fi.tiny),
            float(fi.smallest_subnormal), -float(fi.smallest_subnormal),
            float(fi.tiny) - float(fi.smallest_subnormal),           # largest subnormal
            float(fi.eps), 1.0 + float(fi.eps), 1.0 - float(fi.epsneg),
            0.5 - float(fi.epsneg) / 2,                              # just below 1/2
            big - 0.5, -(big - 0.5), big, big + 2.0, -big,
            300.75, -129.5, 255.9, 65504.0, 1e10, -1e10, 2.0 ** 31, -2.0 ** 31,
            2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1e30, -1e-30, 7e-45]
    with np.errstate(all="ignore"):
        arr = np.array(vals, dtype=np.float64).astype(dt)
    w = dt.itemsize * 8
    sign = 1 << (w - 1)
    qnan = CANONICAL_NAN_BITS[dt]
    expo = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}[w]
    odd_nans = from_bits([qnan | sign, qnan | 1, expo | 1, expo | 1 | sign], dt)
    return np.concatenate([arr, odd_nans])


def random_values(dtname, n, rng):
    dt = np.dtype(dtname)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        ii = np.iinfo(dt)
        full = rng.integers(ii.min, ii.max, size=n, endpoint=True, dtype=dt)
        lo = -20 if dt.kind == "i" else 0
        small = rng.integers(lo, 41, size=n).astype(dt)
        return np.where(rng.random(n) < 0.5, full, small)
    w = dt.itemsize * 8
    u = UINT_OF_SIZE[dt.itemsize]
    raw = rng.integers(0, np.iinfo(u).max, size=n, endpoint=True, dtype=u).view(dt)
    top = {16: 4.8, 32: 38.5, 64: 308.0}[w]
    bottom = {16: -7.9, 32: -45.0, 64: -323.0}[w]
    with np.errstate(all="ignore"):
        wide = (rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(bottom, top, n)).astype(dt)
        moderate = rng.uniform(-10.0, 10.0, n).astype(dt)
        unit = rng.uniform(-1.5, 1.5, n).astype(dt)
    pick = rng.integers(0, 4, n)
    return np.choose(pick, [raw, wide, moderate, unit])


def table_inputs(op, dtname, rng, n_random=1000):
    """Special values (all pairs for binary ops) followed by random values."""
    s = special_values(dtname)
    if op.arity == 1:
        return [np.concatenate([s, random_values(dtname, n_random, rng)])]
    if len(s) ** op.arity <= 6000:
        grid = [np.array(c, dtype=s.dtype) for c in zip(*itertools.product(s, repeat=op.arity))]
    else:
        grid = [np.concatenate([s] * op.arity)[: len(s)] for _ in range(op.arity)]
    return [np.concatenate([g, random_values(dtname, n_random, rng)]) for g in grid]


def pool_values(dtname, n, rng):
    """n values drawn from the specials and random values (used for shaped inputs)."""
    pool = np.concatenate([special_values(dtname), random_values(dtname, 600, rng)])
    return pool[rng.integers(0, len(pool), n)]


# --------------------------------------------------------------------------------------
# the references
# --------------------------------------------------------------------------------------
F64 = np.float64


QUIET_BIT = {2: 0x0200, 4: 0x00400000, 8: 0x0008000000000000}


def signaling_nans(x):
    """Mask of the signaling NaNs of a float array."""
    if x.dtype.kind != "f":
        return np.zeros(x.shape, bool)
    return np.isnan(x) & ((bits_of(x) & QUIET_BIT[x.dtype.itemsize]) == 0)


def quiet_nans(x):
    """``x`` with its signaling NaNs made quiet (sign and payload kept): what an IEEE
    format conversion does, e.g. the float16 -> float32 widening."""
    b = bits_of(x).copy()
    b[np.isnan(x)] |= QUIET_BIT[x.dtype.itemsize]
    return b.view(x.dtype)


def _f64(fn, ieee_snan=True):
    """fn evaluated in float64 and rounded once to the operands' dtype.

    Widening to float64 quiets a signaling NaN, so with ``ieee_snan`` an operand that is
    a signaling NaN gives NaN, as IEEE 754 requires of arithmetic operations (it matters
    for pow(1, sNaN), pow(sNaN, 0)); copysign is a bit operation.
    """
    def ref(*xs):
        r = np.asarray(fn(*(x.astype(F64) for x in xs)), dtype=F64)
        if ieee_snan:
            r = np.where(np.logical_or.reduce([signaling_nans(x) for x in xs]), np.nan, r)
        return r.astype(xs[0].dtype)
    return ref


def _native(fn):
    """fn evaluated by NumPy in the operands' own dtype."""
    def ref(*xs):
        return np.asarray(fn(*xs)).astype(xs[0].dtype)
    return ref


def _modular(fn):
    """fn on the unsigned twins (arithmetic modulo 2**bits), read back as the dtype."""
    def ref(*xs):
        dt = xs[0].dtype
        u = UINT_OF_SIZE[dt.itemsize]
        r = fn(*(c_array(x).view(u) for x in xs))
        return c_array(np.asarray(r).astype(u)).view(dt)
    return ref


def _by_kind(f=None, i=None, u=None, b=None):
    table = {"f": f, "i": i, "u": u if u is not None else i, "b": b}

    def ref(*xs):
        fn = table[xs[0].dtype.kind]
        assert fn is not None, f"no reference branch for {xs[0].dtype}"
        return fn(*xs)
    return ref


def _neg_wrap(a):
    return _modular(lambda x: np.zeros_like(x) - x)(a)


def _max_rule(a, b):
    """Max: NaN wins (the first operand's if both), on a tie the second operand."""
    if a.dtype.kind == "f":
        return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a > b, a, b)))
    return np.where(a > b, a, b)


def _min_rule(a, b):
    if a.dtype.kind == "f":
        return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a < b, a, b)))
    return np.where(a < b, a, b)


def _sign_rule(a):
    """-1, 0 or +1; both zeros give +0; NaN gives NaN; unsigned: 0 or 1."""
    dt = a.dtype
    if dt.kind == "f":
        one, zero = dt.type(1), dt.type(0)
        return np.where(a > 0, one, np.where(a < 0, -one, np.where(a == 0, zero, a)))
    return ((a > 0).astype(np.int64) - (a < 0).astype(np.int64)).astype(dt)


def _int_div_parts(a, b):
    """(floor quotient, floor remainder, trunc quotient, trunc remainder) with the rules:
    x/0 and x%0 give 0, MIN/-1 wraps to MIN, MIN%-1 is 0."""
    dt = a.dtype
    zero = b == 0
    m1 = (b == -1) if dt.kind == "i" else np.zeros(b.shape, bool)
    sb = np.where(zero | m1, 1, b).astype(dt)          # no 0 and no -1: nothing traps
    qf = np.floor_divide(a, sb)
    rf = np.remainder(a, sb)                            # sign of the divisor
    adjust = (rf != 0) & ((a < 0) != (sb < 0))          # floor and trunc differ
    qt = np.where(adjust, qf + dt.type(1), qf).astype(dt)
    rt = np.where(adjust, rf - sb, rf).astype(dt)
    neg_a = _neg_wrap(a)
    qf = np.where(zero, 0, np.where(m1, neg_a, qf)).astype(dt)
    qt = np.where(zero, 0, np.where(m1, neg_a, qt)).astype(dt)
    rf = np.where(zero | m1, 0, rf).astype(dt)
    rt = np.where(zero | m1, 0, rt).astype(dt)
    return qf, rf, qt, rt


def _ipow(a, b):
    """Integer power with wrap-around (Python integers, reduced modulo 2**bits).

    A negative exponent truncates 1 / a**|b|: 1 for a == 1, +-1 for a == -1, else 0.
    """
    dt = a.dtype
    mod = 1 << (8 * dt.itemsize)

    def one(x, y):
        if y < 0:
            if x == 1:
                return 1
            if x == -1:
                return -1 if y & 1 else 1
            return 0
        return pow(x, y, mod)

    out = [one(x, y) % mod for x, y in zip(a.ravel().tolist(), b.ravel().tolist())]
    return np.array(out, dtype=UINT_OF_SIZE[dt.itemsize]).view(dt).reshape(a.shape)


def _shift_left(a, b):
    bits = 8 * a.dtype.itemsize
    ok = (b >= 0) & (b < bits)
    u = UINT_OF_SIZE[a.dtype.itemsize]
    sh = np.where(ok, b, 0).astype(u)
    r = np.left_shift(c_array(a).view(u), sh).view(a.dtype)
    return np.where(ok, r, 0).astype(a.dtype)


def _shift_right(a, b):
    bits = 8 * a.dtype.itemsize
    ok = (b >= 0) & (b < bits)
    sh = np.where(ok, b, 0).astype(a.dtype)
    r = np.right_shift(a, sh)                           # arithmetic for signed types
    fill = np.where(a < 0, -1, 0) if a.dtype.kind == "i" else 0
    return np.where(ok, r, fill).astype(a.dtype)


def _clamp01(t):
    T = t.dtype.type
    return _min_rule(_max_rule(t, np.zeros_like(t)), np.full_like(t, T(1)))


def _leaky_relu(a, alpha):
    T = a.dtype.type
    return np.where(a < 0, T(alpha) * a, a).astype(a.dtype)


def _hard_sigmoid(a, alpha, beta):
    T = a.dtype.type
    return _clamp01(T(alpha) * a + T(beta)).astype(a.dtype)     # two roundings in T


def _hardswish(a):
    T = a.dtype.type
    return (a * _clamp01(a * T(1.0 / 6.0) + T(0.5))).astype(a.dtype)


def _sigmoid64(x):
    """1 / (1 + exp(-x)) in float64, as exp(x) / (1 + exp(x)) for x < 0.

    (scipy.special.expit flushes to 0 below x = -709, where the true value is subnormal.)
    """
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _silu64(x):
    """x * sigmoid(x) in float64; -inf -> -0."""
    return np.where(x == -np.inf, -0.0, x * _sigmoid64(x))


def _gelu64(x):
    """x * Phi(x) = x/2 * erfc(-x / sqrt 2) (no cancellation for negative x); -inf -> -0."""
    r = 0.5 * x * sps.erfc(-x / np.sqrt(2.0))
    return np.where(x == -np.inf, -0.0, r)


def _gelu_tanh64(x):
    """0.5 x (1 + tanh(u)) = x * expit(2u), u = sqrt(2/pi) (x + 0.044715 x^3); -inf -> -0."""
    u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)
    r = x * _sigmoid64(2.0 * u)
    return np.where(x == -np.inf, -0.0, r)


@dataclass(frozen=True)
class Ref:
    fn: object
    attrs: tuple = ()          # attribute values passed to the op and to fn
    rtol64: float = 0.0        # extra relative tolerance for float64 (ill-conditioned)


REFERENCES = {
    # arithmetic
    "add": Ref(_by_kind(f=_f64(np.add), i=_modular(np.add))),
    "subtract": Ref(_by_kind(f=_f64(np.subtract), i=_modular(np.subtract))),
    "multiply": Ref(_by_kind(f=_f64(np.multiply), i=_modular(np.multiply))),
    "divide": Ref(_f64(np.divide)),
    "div_trunc": Ref(_by_kind(f=_f64(np.divide), i=lambda a, b: _int_div_parts(a, b)[2])),
    # floats: NumPy's floor division, except floor(a / b) = a / b where an operand is
    # infinite (the Array API special cases; NumPy gives NaN and -1 there)
    "floor_divide": Ref(_by_kind(f=_native(lambda a, b: np.where(np.isinf(a) | np.isinf(b),
                                                                a / b, np.floor_divide(a, b))),
                                 i=lambda a, b: _int_div_parts(a, b)[0])),
    "remainder": Ref(_by_kind(f=_native(np.remainder), i=lambda a, b: _int_div_parts(a, b)[1])),
    "fmod": Ref(_by_kind(f=_f64(np.fmod), i=lambda a, b: _int_div_parts(a, b)[3])),
    "pow": Ref(_by_kind(f=_f64(np.power), i=_ipow)),
    "maximum": Ref(_max_rule),
    "minimum": Ref(_min_rule),
    "clip": Ref(lambda a, b, c: _min_rule(_max_rule(a, b), c)),
    "copysign": Ref(_f64(np.copysign, ieee_snan=False)),
    # the Array API (and C99): when x == y the result is y, so nextafter(+0, -0) is -0
    # (NumPy's float16 loop returns x there)
    "nextafter": Ref(_native(lambda x, y: np.where(x == y, y, np.nextafter(x, y)))),
    "atan2": Ref(_f64(np.arctan2)),
    # the Array API: an infinite operand gives +inf even with a NaN, signaling or not
    "hypot": Ref(_f64(lambda a, b: np.where(np.isinf(a) | np.isinf(b), np.inf, np.hypot(a, b)),
                      ieee_snan=False)),
    # NumPy's float64 logaddexp cancels where the result is near zero (ours is double-double)
    "logaddexp": Ref(_f64(np.logaddexp), rtol64=1e-12),
    # unary numeric
    "negative": Ref(_by_kind(f=_f64(np.negative), i=_neg_wrap)),
    "abs": Ref(_by_kind(f=_f64(np.abs), i=lambda a: np.where(a < 0, _neg_wrap(a), a),
                        u=lambda a: a.copy())),
    "sign": Ref(_sign_rule),
    "square": Ref(_by_kind(f=_f64(np.square), i=_modular(lambda a: a * a))),
    "reciprocal": Ref(_f64(lambda a: 1.0 / a)),
    "sqrt": Ref(_f64(np.sqrt)),
    "floor": Ref(_f64(np.floor)),
    "ceil": Ref(_f64(np.ceil)),
    "trunc": Ref(_f64(np.trunc)),
    "round": Ref(_f64(np.rint)),                       # half to even, keeps -0
    # transcendentals
    "exp": Ref(_f64(np.exp)),
    "expm1": Ref(_f64(np.expm1)),
    "log": Ref(_f64(np.log)),
    "log1p": Ref(_f64(np.log1p)),
    "log2": Ref(_f64(np.log2)),
    "log10": Ref(_f64(np.log10)),
    "sin": Ref(_f64(np.sin)),
    "cos": Ref(_f64(np.cos)),
    "tan": Ref(_f64(np.tan)),
    "asin": Ref(_f64(np.arcsin)),
    "acos": Ref(_f64(np.arccos)),
    "atan": Ref(_f64(np.arctan)),
    "sinh": Ref(_f64(np.sinh)),
    "cosh": Ref(_f64(np.cosh)),
    "tanh": Ref(_f64(np.tanh)),
    "asinh": Ref(_f64(np.arcsinh)),
    "acosh": Ref(_f64(np.arccosh)),
    "atanh": Ref(_f64(np.arctanh)),
    "erf": Ref(_f64(sps.erf)),
    # activations
    "sigmoid": Ref(_f64(_sigmoid64)),
    "silu": Ref(_f64(_silu64)),
    "relu": Ref(_by_kind(f=lambda a: _max_rule(a, np.zeros_like(a)),
                         i=lambda a: np.where(a < 0, 0, a).astype(a.dtype))),
    "leaky_relu": Ref(_leaky_relu, attrs=(0.01,)),
    "hard_sigmoid": Ref(_hard_sigmoid, attrs=(0.2, 0.5)),
    "hardswish": Ref(_hardswish),
    # float64 gelu is ill-conditioned for x << 0 (erfc / exp of a rounded argument: a
    # relative error of about 2 u^2 ulp, tens of ulp near x = -10): allow 1e-12 relative
    "gelu": Ref(_f64(_gelu64), rtol64=1e-12),
    "gelu_tanh": Ref(_f64(_gelu_tanh64), rtol64=1e-12),
    # classification
    "isnan": Ref(np.isnan),
    "isinf": Ref(np.isinf),
    "isfinite": Ref(np.isfinite),
    "signbit": Ref(np.signbit),
    # comparisons (NaN compares false, -0 == +0)
    "equal": Ref(np.equal),
    "not_equal": Ref(np.not_equal),
    "less": Ref(np.less),
    "less_equal": Ref(np.less_equal),
    "greater": Ref(np.greater),
    "greater_equal": Ref(np.greater_equal),
    # logical and bitwise
    "logical_and": Ref(np.logical_and),
    "logical_or": Ref(np.logical_or),
    "logical_xor": Ref(np.logical_xor),
    "logical_not": Ref(np.logical_not),
    "bitwise_and": Ref(np.bitwise_and),
    "bitwise_or": Ref(np.bitwise_or),
    "bitwise_xor": Ref(np.bitwise_xor),
    "bitwise_invert": Ref(_by_kind(b=np.logical_not, i=np.invert)),
    "bitwise_left_shift": Ref(_shift_left),
    "bitwise_right_shift": Ref(_shift_right),
}


def reference(name, arrays, attrs=None):
    """The reference result of table op ``name`` on NumPy ``arrays`` (one dtype).

    float16 operands are computed as float32 and the result rounded once to float16,
    except for ops with a float16 body of their own ("h" kind), computed in float16.
    """
    op = _ops.OPS[name]
    ref = REFERENCES[name]
    attrs = ref.attrs if attrs is None else tuple(attrs)
    dt = arrays[0].dtype
    arrays = [c_array(a) for a in np.broadcast_arrays(*arrays)]
    with np.errstate(all="ignore"):
        if dt == np.float16 and "h" not in op.kinds:
            r = np.asarray(ref.fn(*(quiet_nans(a.astype(np.float32)) for a in arrays), *attrs))
            if r.dtype == np.float32:
                r = r.astype(np.float16)
        else:
            r = np.asarray(ref.fn(*arrays, *attrs))
    want = np.dtype(bool) if op.result == "bool" else dt
    assert r.dtype == want, f"test bug: reference for {name} gave {r.dtype}, not {want}"
    assert r.shape == arrays[0].shape, f"test bug: reference for {name} has shape {r.shape}"
    return r


# --------------------------------------------------------------------------------------
# running lazytensor and comparing
# --------------------------------------------------------------------------------------
def run_op(name, arrays, attrs=(), mode="exact"):
    """Record table op ``name`` on fresh leaf tensors and evaluate it in ``mode``."""
    tensors = [lt.asarray(a) for a in arrays]
    with lt.mode(mode):
        t = apply(name, *tensors, attrs=tuple(attrs))
        out = np.array(t)
    return t.dtype, out


def _show(v):
    v = np.asarray(v)
    if v.dtype.kind in "fiu" and v.dtype != np.bool_:
        w = 2 * v.dtype.itemsize
        return f"{v.item()!r}<0x{int(bits_of(v.reshape(1))[0]):0{w}x}>"
    return repr(v.item())


def _report(what, bad, inputs, expected, actual, limit=8):
    shape = expected.shape
    idx = np.argwhere(bad.reshape(shape)) if shape else [()]
    ins = [np.broadcast_to(x, shape) for x in inputs]
    lines = [f"{what}: {int(bad.sum())} of {bad.size} elements differ"]
    for k in list(idx)[:limit]:
        k = tuple(k)
        args = ", ".join(_show(x[k]) for x in ins)
        lines.append(f"  at {k}: f({args}) expected {_show(expected[k])}, got {_show(actual[k])}")
    return "\n".join(lines)


def check_exact(what, actual, expected, inputs, canonical=True):
    """Bit-for-bit equality, with every NaN of the reference canonical (unless the
    result is an identity of the input: then the input's bits are expected)."""
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    want = canonical_nans(expected) if canonical else c_array(expected)
    bad = bits_of(actual) != bits_of(want)
    if bad.any():
        pytest.fail(_report(what, bad, inputs, want, actual), pytrace=False)


ULPS = {np.dtype(np.float16): 1, np.dtype(np.float32): 4, np.dtype(np.float64): 8}


def check_close(what, actual, expected, inputs, *, ulps=None, rtol=0.0, atol=0.0,
                zero_sign=True, nan_bits=True):
    """Floats within ``ulps`` units in the last place of the reference (plus ``rtol``);
    NaN where the reference is NaN (canonical bits if ``nan_bits``), infinities equal,
    the sign of a zero equal if ``zero_sign``.  Integers and bools must be equal."""
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    if actual.dtype.kind != "f":
        bad = actual != expected
        if np.any(bad):
            pytest.fail(_report(what, np.asarray(bad), inputs, expected, actual), pytrace=False)
        return
    dt = actual.dtype
    ulps = ULPS[dt] if ulps is None else ulps
    shape = expected.shape
    actual, expected = actual.reshape(-1), expected.reshape(-1)   # 0-d too
    atol = np.broadcast_to(atol, shape).reshape(-1)
    with np.errstate(all="ignore"):      # widening a signaling NaN raises 'invalid'
        a = actual.astype(F64)
        e = expected.astype(F64)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    bad = nan_a != nan_e
    if nan_bits:
        bad |= nan_a & (bits_of(actual) != CANONICAL_NAN_BITS[dt])
    both = ~nan_a & ~nan_e
    inf = both & (np.isinf(a) | np.isinf(e))
    bad |= inf & (a != e)
    fin = both & ~inf
    with np.errstate(all="ignore"):
        mag = np.abs(expected)
        spacing = np.spacing(mag)
        top = np.isinf(spacing)                 # the largest finite value
        spacing[top] = (mag - np.nextafter(mag, mag.dtype.type(0)))[top]
        tol = ulps * spacing.astype(F64) + rtol * np.abs(e) + atol
        bad |= fin & ~(np.abs(a - e) <= tol)
    if zero_sign:
        bad |= fin & (a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e))
    if bad.any():
        pytest.fail(_report(what, bad, inputs, expected.reshape(shape), actual.reshape(shape)),
                    pytrace=False)


def compare(name, dtname, arrays, actual_dtype, actual, mode="exact", attrs=None, what=None):
    """Check lazytensor's result of table op ``name`` against the reference."""
    op = _ops.OPS[name]
    expected = reference(name, arrays, attrs)
    what = what or f"{name}[{dtname}] ({mode})"
    assert actual_dtype == expected.dtype, f"{what}: result dtype {actual_dtype}, expected {expected.dtype}"
    ref = REFERENCES[name]
    if op.ulp and expected.dtype.kind == "f":
        check_math_bound(op, what, actual, expected, arrays, mode,
                         rtol=ref.rtol64 if expected.dtype == np.float64 else 0.0)
    elif mode == "exact":
        check_exact(what, actual, expected, arrays)
    else:  # fast mode: within tolerance, any NaN bits, either sign of zero
        rtol = ref.rtol64 if expected.dtype == np.float64 else 0.0
        check_close(what, actual, expected, arrays, rtol=rtol, zero_sign=False,
                    nan_bits=False)


def _mpfr_where_differs(op, actual, expected, inputs):
    """The float64 reference rounded to float32 can be wrong by double rounding (the
    float64 value lands on a float32 midpoint): where it differs from the result, take
    the MPFR value rounded once instead."""
    import gmpy2

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools"))
    import verify_float32
    import verify_float64

    differs = (bits_of(actual) != bits_of(canonical_nans(expected))) & ~np.isnan(expected)
    if not differs.any():
        return expected
    mp_fn = verify_float64.functions()[op.name][2]
    ctx = gmpy2.get_context()
    # enough bits that f(x) = x/2 - O(x^3) for a subnormal x is not rounded onto x/2
    ctx.precision, ctx.emin, ctx.emax = 1000, -20000, 20000
    fixed = np.array(expected, copy=True)
    ins = [np.broadcast_to(x, expected.shape) for x in inputs]
    for idx in zip(*np.nonzero(differs)):
        v = mp_fn(gmpy2, *(gmpy2.mpfr(float(x[idx])) for x in ins))
        fixed[idx] = verify_float32.mp_to_f32(gmpy2, v)
    return fixed


def check_math_bound(op, what, actual, expected, inputs, mode, rtol=0.0):
    """An op of the library's own math against float64 NumPy rounded once: bit for bit
    where the op is correctly rounded (float32 bound 0.5), else within its documented
    bound in ulps, plus one ulp for the float64 reference's own error (NumPy's float64
    functions are not correctly rounded either).  Float16 is the float32 result rounded
    once more: within one float16 ulp.  ``rtol`` widens the bound where the float64
    reference itself is ill-conditioned (the Gelu's)."""
    dt = expected.dtype
    if mode == "exact" and dt == np.float32 and op.ulp_bound("float32") == 0.5:
        check_exact(what, actual, _mpfr_where_differs(op, actual, expected, inputs), inputs)
        return
    if dt == np.float16:
        bound = 1
    else:
        bound = op.ulp_bound(dt.name if mode == "exact" else "fast")
        bound = int(np.ceil(bound)) + (1 if dt == np.float64 else 0)
    check_close(what, actual, expected, inputs, ulps=bound, rtol=rtol,
                zero_sign=mode == "exact", nan_bits=mode == "exact")


def _require_reference(name):
    if name not in REFERENCES:
        pytest.fail(f"operator {name!r} of lazytensor._engine.ops.OPS has no reference in "
                    f"REFERENCES of {__file__}: add one", pytrace=False)


OP_DTYPE_CASES = [pytest.param(name, dt, id=f"{name}-{dt}")
                  for name, op in _ops.OPS.items() for dt in accepted_dtypes(op)]


# --------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------
def test_every_table_op_has_a_reference():
    missing = sorted(set(_ops.OPS) - set(REFERENCES))
    assert not missing, f"ops without a reference in REFERENCES: {missing}"


def test_every_table_op_takes_some_dtype():
    for name, op in _ops.OPS.items():
        assert accepted_dtypes(op), f"{name}: kinds {op.kinds!r} match none of {DTYPE_NAMES}"


@pytest.mark.parametrize("name,dtname", OP_DTYPE_CASES)
def test_op_special_and_random_values(name, dtname):
    """All pairs of special values plus random values, exact mode."""
    _require_reference(name)
    op = _ops.OPS[name]
    arrays = table_inputs(op, dtname, seeded_rng("table", name, dtname))
    attrs = REFERENCES[name].attrs
    dtype, out = run_op(name, arrays, attrs)
    compare(name, dtname, arrays, dtype, out, attrs=attrs)


@pytest.mark.parametrize("name,dtname", OP_DTYPE_CASES)
def test_op_fast_mode_within_tolerance(name, dtname):
    """Fast mode: the same references, within a few ulp; NaN bits are free."""
    _require_reference(name)
    op = _ops.OPS[name]
    arrays = table_inputs(op, dtname, seeded_rng("fast", name, dtname), n_random=500)
    attrs = REFERENCES[name].attrs
    dtype, out = run_op(name, arrays, attrs, mode="fast")
    compare(name, dtname, arrays, dtype, out, mode="fast", attrs=attrs)


def _divisors(dt):
    """Divisors for the division by a scalar: ordinary ones, ones whose reciprocal is
    subnormal or overflows (the fast form must fall back to the division), and specials."""
    fi = np.finfo(dt)
    tiny, sub = float(fi.tiny), float(fi.smallest_subnormal)
    return [0.05, 3.0, -7.0, 0.1, 1e-30, 1.5 * tiny, tiny, 2.0 * sub, sub, 0.75 / tiny,
            float(fi.max), 1.5, -0.0, 0.0, np.inf, -np.inf, np.nan]


def test_float32_remainder_family_where_the_quotient_is_hard():
    """float32 fmod, remainder and floor division compute the truncated quotient in double
    below |a/b| = 2^29 and call the C library above: NumPy's bits on both sides of that
    bound, where a/b is an integer or one ulp of a away from one (where a rounded quotient
    would truncate to the wrong integer if it could), for subnormal operands and at the
    special values, on every kernel path, in both modes (floor division by infinities aside:
    docs/semantics.md)."""
    rng = np.random.default_rng(12)
    b = (rng.standard_normal(40000) * 7).astype(np.float32)
    b[:100] = rng.uniform(-1e-40, 1e-40, 100).astype(np.float32)
    a = []
    for top in (2 ** 12, 2 ** 28, 2 ** 29, 2 ** 31):
        k = (rng.integers(-top, top, b.size) * b.astype(np.float64)).astype(np.float32)
        a += [k, np.nextafter(k, np.float32(np.inf)), np.nextafter(k, np.float32(-np.inf))]
    a = np.concatenate(a)
    b = np.tile(b, len(a) // b.size)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, 3.4e38, 0.5, -7.0],
                  np.float32)
    ga, gb = np.meshgrid(sp, sp)
    a, b = np.concatenate([a, ga.ravel()]), np.concatenate([b, gb.ravel()])
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(all="ignore"):
        want = {"fmod": np.fmod(a, b), "remainder": np.remainder(a, b),
                "floor_divide": np.where(finite, np.floor_divide(a, b), np.float32(0))}
    for mode in ("exact", "fast"):
        for path in lt.kernel_paths():
            with lt.config(mode=mode, kernel_path=path):
                got = {"fmod": lt.onnx.Mod(lt.asarray(a), lt.asarray(b), fmod=1).numpy(),
                       "remainder": lt.remainder(lt.asarray(a), lt.asarray(b)).numpy(),
                       "floor_divide": lt.floor_divide(lt.asarray(a), lt.asarray(b)).numpy()}
            got["floor_divide"] = np.where(finite, got["floor_divide"], np.float32(0))
            for name, g in got.items():
                w = want[name]
                same = (g.view(np.uint32) == w.view(np.uint32)) | (np.isnan(g) & np.isnan(w))
                assert same.all(), (f"{name} {mode} {path}: {np.count_nonzero(~same)} differ, "
                                    f"a={a[~same][:3]} b={b[~same][:3]} got={g[~same][:3]} "
                                    f"want={w[~same][:3]}")


@pytest.mark.parametrize("dtname", ["float32", "float64"])
def test_divide_by_a_scalar(dtname):
    """x / c with c one value for the whole kernel (a Python float, a 0-d tensor, an operand
    broadcast along every axis) has its own kernel function: exact mode is the IEEE
    quotient bit for bit; fast mode, a multiply by the reciprocal, is within 1.5 ulp of the
    exact quotient (computed with fractions), with the quotient's special values."""
    from fractions import Fraction
    dt = np.dtype(dtname)
    fi = np.finfo(dt)
    x = np.concatenate([special_values(dtname),
                        random_values(dtname, 1000, seeded_rng("divide_by_scalar", dtname))])
    tx = lt.asarray(x)
    assert "divide_by_scalar" in str(lt.explain(tx / 0.05))   # the function under test runs
    for c in _divisors(dt):
        cd = dt.type(c)
        forms = {"python float": lambda: tx / float(cd),
                 "0-d tensor": lambda: tx / lt.asarray(cd),
                 "broadcast (1,)": lambda: tx / lt.asarray(np.array([cd]))}
        with np.errstate(all="ignore"):
            expected = x / cd
        for form, make in forms.items():
            check_exact(f"{dtname} x / {c!r} ({form}, exact)", _val(make()), expected, [x])
            with lt.mode("fast"):
                y = _val(make())
            what = f"{dtname} x / {c!r} ({form}, fast)"
            nan = np.isnan(expected)
            assert np.array_equal(np.isnan(y), nan), what
            special = ~nan & (np.isinf(x) | ~np.isfinite(cd) | (cd == 0) | (x == 0))
            assert np.array_equal(y[special], expected[special]), what
            assert np.array_equal(np.signbit(y[special]), np.signbit(expected[special])), what
            for k in np.flatnonzero(~nan & ~special):
                q = Fraction(float(x[k])) / Fraction(float(cd))
                if abs(q) >= Fraction(float(fi.max)) * (1 - Fraction(2) ** -fi.nmant):
                    assert abs(float(y[k])) >= float(fi.max) and np.signbit(y[k]) == (q < 0), what
                    continue
                # the spacing of floats at |q| (that of the larger neighbour at a power of 2)
                ulp = Fraction(float(np.spacing(abs(dt.type(float(q))))))
                err = abs(Fraction(float(y[k])) - q) / ulp
                assert err <= Fraction(3, 2), f"{what}: x = {x[k]!r}: {float(err):.3f} ulp"


@pytest.mark.parametrize("dst", _ops.QUANTIZE_DTYPES)
@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_quantize_chain(dst, mode):
    """astype(clip(round(x / s) + z, lo, hi), dst) runs as one fused quantize function
    (_lower._fuse_quantize) on every kernel path and gives NumPy's values: x / s (in fast mode
    x times the float32 reciprocal of s, the documented rule of division by a scalar), rounded
    half to even, z added in float32, NaN to 0, saturated, truncated."""
    info = np.iinfo(dst)
    x = np.concatenate([special_values("float32"),
                        random_values("float32", 3000, seeded_rng("quantize", dst)),
                        np.float32([0.025, -0.025, 0.075, 6.375, 6.425, 12.775, -6.4,
                                    2.5, -2.5, 0.5, -0.5, 1.5, 12.8, 12.75]),
                        (seeded_rng("quantize tails", dst).standard_normal(2000) * 4000
                         ).astype(np.float32)])
    # 3e38: its reciprocal is subnormal, so fast mode divides too
    for k, (s, z) in enumerate(((0.05, 128.0), (0.1, 0.0), (3.0, -7.5), (0.05, None),
                                (1e-3, 3.0), (3e38, 1.0))):
        sf = np.float32(s)
        multiplies = mode == "fast" and abs(np.float32(1) / sf) >= np.finfo(np.float32).tiny
        with np.errstate(all="ignore"):
            t = np.rint(x * (np.float32(1) / sf) if multiplies else x / sf)
            if z is not None:
                t = t + np.float32(z)
        want = np.trunc(np.clip(np.nan_to_num(t, nan=0.0), info.min, info.max)).astype(dst)
        for path in lt.kernel_paths():
            with lt.config(kernel_path=path, mode=mode):
                for n in (1, 255, 257, len(x)):
                    tx = lt.asarray(x[:n])
                    q = lt.round(tx / s)
                    if z is not None:                   # the zero point on either side
                        q = q + z if k % 2 else z + q
                    q = lt.astype(lt.clip(q, info.min, info.max), getattr(lt, dst))
                    assert f"quantize[float32_{dst}]" in str(lt.explain(q)), (s, z, path)
                    np.testing.assert_array_equal(np.asarray(q), want[:n],
                                                  err_msg=f"{mode} {dst} {s} {z} {path} n={n}")


def test_quantize_chain_not_fused_when_a_step_is_read_elsewhere():
    """A step of the chain that is also an output, or read by another op, keeps the ops
    apart; the values stay those of the chain."""
    x = random_values("float32", 1000, seeded_rng("quantize shared"))
    tx = lt.asarray(x)
    r = lt.round(tx / 0.05)
    q = lt.astype(lt.clip(r + 128, 0, 255), lt.uint8)
    assert "quantize[" not in str(lt.explain(q, r))
    got_q, got_r = (np.asarray(v) for v in lt.eval(q, r))    # one kernel writes both
    want_r = np.rint(x / np.float32(0.05))
    np.testing.assert_array_equal(got_r, want_r)
    np.testing.assert_array_equal(got_q, np.clip(want_r + np.float32(128), 0, 255).astype(np.uint8))
    # a value added that is not a scalar: no fusion either
    y = lt.asarray(x[::-1].copy())
    q2 = lt.astype(lt.clip(lt.round(tx / 0.05) + y, 0, 255), lt.uint8)
    assert "quantize[" not in str(lt.explain(q2))
    want2 = np.clip(np.nan_to_num(np.rint(x / np.float32(0.05)) + x[::-1]), 0, 255)
    np.testing.assert_array_equal(np.asarray(q2), np.trunc(want2).astype(np.uint8))


@pytest.mark.parametrize("name,dtname", OP_DTYPE_CASES)
def test_op_lengths_around_the_chunk(name, dtname):
    """Lengths 0, 1, 255, 256, 257, 511, 513, 4097, contiguous and against a 0-d operand."""
    _require_reference(name)
    op = _ops.OPS[name]
    rng = seeded_rng("lengths", name, dtname)
    attrs = REFERENCES[name].attrs
    for n in CHUNK_LENGTHS:
        arrays = [pool_values(dtname, n, rng) for _ in range(op.arity)]
        dtype, out = run_op(name, arrays, attrs)
        compare(name, dtname, arrays, dtype, out, attrs=attrs,
                what=f"{name}[{dtname}] length {n}")
        assert out.shape == (n,)
        if op.arity == 2:   # a 0-d operand on either side (scalar registers)
            for k in (0, 1):
                mixed = list(arrays)
                mixed[k] = pool_values(dtname, 1, rng).reshape(())
                dtype, out = run_op(name, mixed, attrs)
                compare(name, dtname, mixed, dtype, out, attrs=attrs,
                        what=f"{name}[{dtname}] length {n}, operand {k} 0-d")


@pytest.mark.parametrize("name", sorted(_ops.OPS))
def test_op_rejects_dtypes_it_does_not_take(name):
    op = _ops.OPS[name]
    for dtname in DTYPE_NAMES:
        if TABLE_KIND[dtname] in op.kinds:
            continue
        xs = [lt.asarray(np.zeros(3, dtype=dtname)) for _ in range(op.arity)]
        if name == "divide":   # true division promotes integers and bool to float64
            assert apply(name, *xs).dtype == np.float64
            continue
        with pytest.raises(TypeError):
            apply(name, *xs, attrs=REFERENCES.get(name, Ref(None)).attrs)


# --------------------------------------------------------------------------------------
# non-contiguous inputs and broadcasting
# --------------------------------------------------------------------------------------
LAYOUT_DTYPES = ("bool", "int8", "int64", "uint16", "uint64", "float16", "float32", "float64")
LAYOUT_CASES = [pytest.param(name, dt, id=f"{name}-{dt}")
                for name, op in _ops.OPS.items() for dt in accepted_dtypes(op)
                if dt in LAYOUT_DTYPES]


@pytest.mark.parametrize("name,dtname", LAYOUT_CASES)
def test_op_non_contiguous_views(name, dtname):
    """Transposes, stepped and reversed slices (lazytensor views), mixed with contiguous."""
    _require_reference(name)
    op = _ops.OPS[name]
    rng = seeded_rng("layout", name, dtname)
    attrs = REFERENCES[name].attrs
    # (numpy view, lazytensor view) builders over a fresh base
    rows, cols = 37, 29
    layouts = {
        "T": (lambda: pool_values(dtname, rows * cols, rng).reshape(rows, cols),
              lambda x: x.T),
        "step3": (lambda: pool_values(dtname, 3 * 300 + 2, rng), lambda x: x[::3]),
        "reversed": (lambda: pool_values(dtname, 301, rng), lambda x: x[::-1]),
        "reversed-step2": (lambda: pool_values(dtname, 1030, rng), lambda x: x[::-2]),
        "2d-slice": (lambda: pool_values(dtname, 40 * 31, rng).reshape(40, 31),
                     lambda x: x[1::2, ::-3]),
    }
    for lname, (make, view) in layouts.items():
        bases = [make() for _ in range(op.arity)]
        np_views = [view(b) for b in bases]
        lt_views = [view(lt.asarray(b)) for b in bases]
        # every operand a view, then each one in turn replaced by a contiguous operand
        patterns = [tuple(range(op.arity))] + [
            tuple(None if j == k else j for j in range(op.arity))
            for k in range(op.arity) if op.arity > 1]
        for pat in patterns:
            arrays, tensors = [], []
            for k in range(op.arity):
                if pat[k] is None:    # a contiguous operand of the same shape
                    c = c_array(pool_values(dtname, np_views[k].size, rng)
                                .reshape(np_views[k].shape))
                    arrays.append(c)
                    tensors.append(lt.asarray(c))
                else:
                    arrays.append(np_views[k])
                    tensors.append(lt_views[k])
            assert all(t.shape == a.shape for t, a in zip(tensors, arrays))
            t = apply(name, *tensors, attrs=attrs)
            out = np.array(t)
            compare(name, dtname, arrays, t.dtype, out, attrs=attrs,
                    what=f"{name}[{dtname}] layout {lname} pattern {pat}")


BROADCAST_SHAPES = [
    ((), ()), ((), (5,)), ((7,), ()), ((1,), (300,)), ((300,), (1,)),
    ((0,), ()), ((0,), (1,)), ((2, 0), (1,)), ((2, 0, 3), (1, 3)), ((0, 1, 4), (5, 1)),
    ((3, 1), (1, 4)), ((2, 1, 4), (3, 1)), ((1, 1, 1, 1), (5,)), ((2, 3, 4, 5), (4, 1)),
    ((2, 1, 4, 1), (1, 3, 1, 70)), ((1, 4, 1, 3), (2, 1, 5, 1)), ((4, 1, 1, 257), (1, 2, 3, 1)),
    ((1,), (1, 1, 1, 1)), ((6, 1, 1, 1), ()), ((2, 2, 2, 2), (2, 2, 2, 2)),
]
BROADCAST_OPS = ("add", "subtract", "multiply", "divide", "remainder", "fmod", "maximum",
                 "minimum", "less_equal", "not_equal", "bitwise_xor",
                 "bitwise_right_shift", "copysign", "atan2", "pow", "logical_or")
BROADCAST_DTYPES = ("bool", "int8", "uint32", "int64", "float16", "float32", "float64")


@pytest.mark.parametrize("name", BROADCAST_OPS)
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_broadcasting_ranks_0_to_4(shapes, name):
    op = _ops.OPS[name]
    for dtname in accepted_dtypes(op):
        if dtname not in BROADCAST_DTYPES:
            continue
        rng = seeded_rng("broadcast", name, dtname, shapes)
        arrays = [pool_values(dtname, int(np.prod(s)), rng).reshape(s) for s in shapes]
        dtype, out = run_op(name, arrays)
        assert out.shape == np.broadcast_shapes(*shapes)
        compare(name, dtname, arrays, dtype, out, what=f"{name}[{dtname}] shapes {shapes}")


@st.composite
def _op_case(draw):
    name = draw(st.sampled_from(sorted(_ops.OPS)))
    op = _ops.OPS[name]
    dtname = draw(st.sampled_from(accepted_dtypes(op)))
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=op.arity, min_dims=0,
                                                    max_dims=4, min_side=0, max_side=4))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return name, dtname, shapes.input_shapes, seed


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.too_slow])
@given(_op_case())
def test_hypothesis_any_op_any_broadcast(case):
    name, dtname, shapes, seed = case
    _require_reference(name)
    rng = np.random.default_rng(seed)
    arrays = [pool_values(dtname, int(np.prod(s)), rng).reshape(s) for s in shapes]
    attrs = REFERENCES[name].attrs
    dtype, out = run_op(name, arrays, attrs)
    compare(name, dtname, arrays, dtype, out, attrs=attrs,
            what=f"{name}[{dtname}] shapes {shapes}")


# --------------------------------------------------------------------------------------
# the cast table
# --------------------------------------------------------------------------------------
def cast_reference(x, dst):
    """The Cast rules of the semantics reference, in NumPy.

    float -> float: round to nearest even (overflow gives infinity); float -> integer:
    truncate toward zero, saturate, NaN gives 0; integer -> integer: wrap modulo 2**n;
    integer -> float: round to nearest even; anything -> bool: x != 0; bool -> 0 or 1.
    A cast to the same dtype is the identity (no NaN rewriting).
    """
    src = x.dtype
    dst = np.dtype(dst)
    if src == dst:
        return x.copy()
    with np.errstate(all="ignore"):
        if dst == np.bool_:
            return x != 0
        if src == np.bool_:
            return x.astype(np.uint8).astype(dst)
        if dst.kind == "f":
            return x.astype(dst)                # correctly rounded, ties to even
        if src.kind in "iu":                    # integer -> integer: wrap
            return (np.array([int(v) % (1 << (8 * dst.itemsize)) for v in x.tolist()],
                             dtype=UINT_OF_SIZE[dst.itemsize]).view(dst)
                    if x.size else np.zeros(0, dst))
        # float -> integer
        ii = np.iinfo(dst)
        t = np.trunc(x.astype(F64))
        lo, hi = float(ii.min), float(ii.max) + 1.0    # both powers of two: exact
        out = np.zeros(x.shape, dst)
        out[t >= hi] = ii.max
        out[t <= lo] = ii.min
        mid = (t > lo) & (t < hi)
        out[mid] = t[mid].astype(dst)
        return out


def cast_inputs(src):
    rng = seeded_rng("cast", src)
    vals = [special_values(src), random_values(src, 1500, rng)]
    dt = np.dtype(src)
    if dt.kind == "f":
        b = []
        for k in (7, 8, 15, 16, 31, 32, 63, 64):
            for d in (-1.0, -0.5, 0.0, 0.5, 0.99, 1.0):
                b += [2.0 ** k + d, -(2.0 ** k) + d, -(2.0 ** k) - d]
        b += [65519.0, 65519.99, 65520.0, 65536.0, 2.0 ** -25, 3 * 2.0 ** -25, 2.0 ** -24,
              1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 2.0 ** -14 - 2.0 ** -25,
              3.4028234663852886e38, 3.4028235677973366e38, 3.402823567797337e38,
              1.401298464324817e-45, 7.006492321624085e-46, 2.0 ** -150,
              1 + 2.0 ** -24, 1 + 2.0 ** -24 + 2.0 ** -52, -0.9, -0.5, 0.9, 255.5, 256.0]
        with np.errstate(all="ignore"):
            vals.append(np.array(b, F64).astype(dt))
    return np.concatenate(vals)


CAST_CASES = [pytest.param(s, d, id=f"{s}->{d}") for s in DTYPE_NAMES for d in DTYPE_NAMES]


@pytest.mark.parametrize("src,dst", CAST_CASES)
def test_cast_table(src, dst):
    x = cast_inputs(src)
    expected = cast_reference(x, dst)
    t = lt.asarray(x).astype(dst)
    assert t.dtype == np.dtype(dst)
    out = np.array(t)
    same = src == dst      # astype to the same dtype is the identity: bits kept
    check_exact(f"cast {src}->{dst}", out, expected, [x], canonical=not same)
    # fast mode: the same values, NaN bits free
    with lt.mode("fast"):
        out = np.array(lt.asarray(x).astype(dst))
    check_close(f"cast {src}->{dst} (fast)", out, expected, [x], ulps=0, nan_bits=False)
    # through a fused chain and on a reversed view
    v = x[::-1]
    with lt.mode("exact"):
        out = np.array(lt.asarray(x)[::-1].astype(dst))
    check_exact(f"cast {src}->{dst} reversed view", out, cast_reference(v, dst), [v],
                canonical=not same)


def test_cast_documented_examples():
    def cast(values, src, dst):
        return np.array(lt.asarray(np.array(values, dtype=src)).astype(dst))

    assert cast([300, -1], "int32", "uint8").tolist() == [44, 255]
    assert cast([np.nan, 1e20, -1e20, -2.9, 2.9], "float32", "int32").tolist() == \
        [0, 2 ** 31 - 1, -2 ** 31, -2, 2]
    assert cast([np.nan, -0.0, 0.0, 0.5], "float64", "bool").tolist() == [True, False, False, True]
    assert cast([-1.0, 1e30, 255.9], "float64", "uint8").tolist() == [0, 255, 255]
    assert cast([2 ** 64 - 1], "uint64", "float64").tolist() == [2.0 ** 64]
    assert bits_of(cast([65520.0, 1e6, -1e6], "float32", "float16")).tolist() == \
        [0x7C00, 0x7C00, 0xFC00]
    assert bits_of(cast([np.nan], "float64", "float32")).tolist() == [0x7FC00000]
    payload = from_bits([0xFFF8000000000001], np.float64)
    out = np.array(lt.asarray(payload).astype("float16"))
    assert bits_of(out).tolist() == [0x7E00]


# --------------------------------------------------------------------------------------
# NaN bits in exact mode, tolerance in fast mode
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtname", FLOAT_NAMES)
def test_exact_mode_nan_bits_are_canonical(dtname):
    dt = np.dtype(dtname)
    w = dt.itemsize * 8
    qnan = CANONICAL_NAN_BITS[dt]
    odd = from_bits([qnan | (1 << (w - 1)), qnan | 5, qnan | 5 | (1 << (w - 1))], dt)
    one = np.ones(3, dt)
    cases = {
        "add": (odd, one), "multiply": (one, odd), "maximum": (odd, one),
        "minimum": (one, odd), "copysign": (odd, -one), "negative": (odd,), "abs": (odd,),
        "sign": (odd,), "floor": (odd,), "round": (odd,), "sqrt": (-one,), "exp": (odd,),
        "relu": (odd,), "gelu": (odd,), "sigmoid": (odd,), "silu": (odd,),
        "hardswish": (odd,),
    }
    for name, arrays in cases.items():
        _, out = run_op(name, arrays, REFERENCES[name].attrs)
        assert bits_of(out).tolist() == [qnan] * 3, f"{name}[{dtname}]: {bits_of(out)}"
        with lt.mode("fast"):
            _, out = run_op(name, arrays, REFERENCES[name].attrs, mode="fast")
        assert np.isnan(out).all(), f"{name}[{dtname}] fast: {out}"
    # 0/0, inf-inf, 0*inf produce the hardware's default NaN (negative on x86)
    z, inf = np.zeros(1, dt), np.full(1, np.inf, dt)
    for name, arrays in {"divide": (z, z), "subtract": (inf, inf), "multiply": (z, inf)}.items():
        _, out = run_op(name, arrays)
        assert bits_of(out).tolist() == [qnan], f"{name}[{dtname}]: {bits_of(out)}"


# --------------------------------------------------------------------------------------
# lt.nn
# --------------------------------------------------------------------------------------
def _nn_input(dtname, n=3000):
    rng = seeded_rng("nn", dtname)
    return np.concatenate([special_values(dtname), random_values(dtname, n, rng),
                           np.linspace(-12, 12, 2001).astype(dtname)])


@pytest.mark.parametrize("dtname", FLOAT_NAMES)
def test_nn_activations_against_float64(dtname):
    x = _nn_input(dtname)
    dt = np.dtype(dtname)
    with np.errstate(all="ignore"):
        x64 = x.astype(F64)
    T = np.float32 if dt == np.float16 else dt.type
    xt = x.astype(T)

    def rounded(r64):
        return np.asarray(r64, F64).astype(dt)

    def got(t):
        assert t.dtype == dt
        return np.array(t)

    with np.errstate(all="ignore"):
        # not exact: within a few ulp of float64 math (rounded once)
        check_close(f"nn.sigmoid[{dtname}]", got(lt.nn.sigmoid(lt.asarray(x))),
                    rounded(_sigmoid64(x64)), [x])
        moderate = np.abs(x64) < 700      # scipy's expit is accurate away from underflow
        check_close(f"nn.sigmoid[{dtname}] vs scipy expit",
                    got(lt.nn.sigmoid(lt.asarray(x[moderate]))),
                    rounded(sps.expit(x64[moderate])), [x[moderate]])
        check_close(f"nn.silu[{dtname}]", got(lt.nn.silu(lt.asarray(x))),
                    rounded(_silu64(x64)), [x])
        check_close(f"nn.gelu[{dtname}]", got(lt.nn.gelu(lt.asarray(x))),
                    rounded(_gelu64(x64)), [x], rtol=1e-12 * (dt == F64))
        check_close(f"nn.gelu(tanh)[{dtname}]",
                    got(lt.nn.gelu(lt.asarray(x), approximate="tanh")),
                    rounded(_gelu_tanh64(x64)), [x], rtol=1e-12 * (dt == F64))
        # erf form against scipy erf where 1 + erf does not cancel
        pos = x64 >= 0
        check_close(f"nn.gelu[{dtname}] x >= 0 via erf",
                    got(lt.nn.gelu(lt.asarray(x[pos]))),
                    rounded(0.5 * x64[pos] * (1.0 + sps.erf(x64[pos] / np.sqrt(2.0)))),
                    [x[pos]], rtol=1e-12 * (dt == F64))
        # exact: bit for bit with the documented roundings in T (f16 via f32)
        check_exact(f"nn.relu[{dtname}]", got(lt.nn.relu(lt.asarray(x))),
                    _max_rule(xt, np.zeros_like(xt)).astype(dt), [x])
        for alpha in (0.01, 0.1, 1 / 3, -2.0):
            check_exact(f"nn.leaky_relu(alpha={alpha})[{dtname}]",
                        got(lt.nn.leaky_relu(lt.asarray(x), alpha=alpha)),
                        _leaky_relu(xt, alpha).astype(dt), [x])
            check_close(f"nn.leaky_relu(alpha={alpha})[{dtname}] vs float64",
                        got(lt.nn.leaky_relu(lt.asarray(x), alpha=alpha)),
                        rounded(np.where(x64 < 0, alpha * x64, x64)), [x], ulps=2)
        for alpha, beta in ((0.2, 0.5), (1 / 6, 0.5), (0.3, -0.1)):
            check_exact(f"nn.hard_sigmoid({alpha}, {beta})[{dtname}]",
                        got(lt.nn.hard_sigmoid(lt.asarray(x), alpha=alpha, beta=beta)),
                        _hard_sigmoid(xt, alpha, beta).astype(dt), [x])
            check_close(f"nn.hard_sigmoid({alpha}, {beta})[{dtname}] vs float64",
                        got(lt.nn.hard_sigmoid(lt.asarray(x), alpha=alpha, beta=beta)),
                        rounded(np.clip(alpha * x64 + beta, 0.0, 1.0)), [x], ulps=2,
                        atol=4 * float(np.finfo(dt).eps) * (np.abs(alpha * x64) + abs(beta)),
                        zero_sign=False)
        check_exact(f"nn.hardswish[{dtname}]", got(lt.nn.hardswish(lt.asarray(x))),
                    _hardswish(xt).astype(dt), [x])
        check_close(f"nn.hardswish[{dtname}] vs float64", got(lt.nn.hardswish(lt.asarray(x))),
                    rounded(x64 * np.clip(x64 / 6.0 + 0.5, 0.0, 1.0)), [x], ulps=2,
                    atol=4 * float(np.finfo(dt).eps) * np.abs(x64), zero_sign=False)


@pytest.mark.parametrize("dtname", FLOAT_NAMES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_nn_gelu_minus_inf_is_minus_zero(dtname, approximate):
    x = np.array([-np.inf, np.inf, np.nan, -0.0, 0.0, -1e30 if dtname != "float16" else -6e4],
                 dtype=dtname)
    out = np.array(lt.nn.gelu(lt.asarray(x), approximate=approximate))
    w = 2 * np.dtype(dtname).itemsize
    sign = 1 << (8 * np.dtype(dtname).itemsize - 1)
    assert bits_of(out[:1]).tolist() == [sign], f"gelu(-inf) = {out[0]!r} ({w})"
    assert out[1] == np.inf
    assert bits_of(out[2:3]).tolist() == [CANONICAL_NAN_BITS[np.dtype(dtname)]]
    assert bits_of(out[3:5]).tolist() == [sign, 0], "gelu keeps the sign of zero"
    assert out[5] == 0 and np.signbit(out[5]), "gelu of a large negative value is -0"


def test_nn_relu_integers_and_signed_zero():
    x = np.array([-128, -1, 0, 1, 127], np.int8)
    assert np.array(lt.nn.relu(lt.asarray(x))).tolist() == [0, 0, 0, 1, 127]
    f = np.array([-0.0, 0.0, np.nan, -np.inf], np.float32)
    out = np.array(lt.nn.relu(lt.asarray(f)))
    assert bits_of(out).tolist() == [0, 0, 0x7FC00000, 0]
    with pytest.raises(ValueError):
        lt.nn.gelu(lt.asarray(f), approximate="erf")


# --------------------------------------------------------------------------------------
# lt.onnx
# --------------------------------------------------------------------------------------
def _onnx_pairs(dtname, n=800):
    op = _ops.OPS["div_trunc"]
    return table_inputs(op, dtname, seeded_rng("onnx", dtname), n_random=n)


@pytest.mark.parametrize("dtname", INT_NAMES + FLOAT_NAMES)
def test_onnx_div_and_mod(dtname):
    a, b = _onnx_pairs(dtname)
    dt = np.dtype(dtname)
    ta, tb = lt.asarray(a), lt.asarray(b)
    with np.errstate(all="ignore"):
        if dt.kind in "iu":
            qf, rf, qt, rt = _int_div_parts(a, b)
            check_exact(f"onnx.Div[{dtname}]", np.array(lt.onnx.Div(ta, tb)), qt, [a, b])
            check_exact(f"onnx.Mod(fmod=0)[{dtname}]", np.array(lt.onnx.Mod(ta, tb)), rf, [a, b])
            check_exact(f"onnx.Mod(fmod=1)[{dtname}]", np.array(lt.onnx.Mod(ta, tb, fmod=1)),
                        rt, [a, b])
        else:
            T = np.float32 if dt == np.float16 else dt
            a32, b32 = a.astype(T), b.astype(T)
            quo = (a32.astype(F64) / b32.astype(F64)).astype(T).astype(dt)
            check_exact(f"onnx.Div[{dtname}]", np.array(lt.onnx.Div(ta, tb)), quo, [a, b])
            check_exact(f"onnx.Mod(fmod=1)[{dtname}]", np.array(lt.onnx.Mod(ta, tb, fmod=1)),
                        np.fmod(a32, b32).astype(dt), [a, b])
            with pytest.raises(TypeError):
                lt.onnx.Mod(ta, tb)


def test_onnx_div_mod_documented_integer_cases():
    i8 = np.int8
    a = lt.asarray(np.array([7, -7, 7, -7, -128, -128, 5, 0], i8))
    b = lt.asarray(np.array([2, 2, -2, -2, -1, 0, 0, 0], i8))
    assert np.array(lt.onnx.Div(a, b)).tolist() == [3, -3, -3, 3, -128, 0, 0, 0]
    assert np.array(lt.onnx.Mod(a, b)).tolist() == [1, 1, -1, -1, 0, 0, 0, 0]
    assert np.array(lt.onnx.Mod(a, b, fmod=1)).tolist() == [1, -1, 1, -1, 0, 0, 0, 0]
    with pytest.raises(TypeError):
        lt.onnx.Div(a, lt.asarray(np.array([1] * 8, np.int16)))


def _fold_ref(rule, xs):
    acc = xs[0]
    for x in xs[1:]:
        acc = rule(acc, x)
    return acc


@pytest.mark.parametrize("dtname", ["int8", "uint64", "int64"] + list(FLOAT_NAMES))
def test_onnx_max_min_variadic(dtname):
    rng = seeded_rng("onnx-maxmin", dtname)
    s = special_values(dtname)
    for k in (1, 2, 3, 4):
        xs = [np.concatenate([s[rng.permutation(len(s))],
                              pool_values(dtname, 300, rng)]) for _ in range(k)]
        if dtname.startswith("float"):
            # the signed-zero ties: -0, +0, -0 ... in every input order
            zeros = np.array(list(itertools.product([-0.0, 0.0], repeat=k)), dtname).T
            xs = [np.concatenate([x, z]) for x, z in zip(xs, zeros)]
        ts = [lt.asarray(x) for x in xs]
        T = np.float32 if dtname == "float16" else np.dtype(dtname)
        up = [x.astype(T) for x in xs]
        with np.errstate(all="ignore"):
            want_max = _fold_ref(_max_rule, up).astype(dtname)
            want_min = _fold_ref(_min_rule, up).astype(dtname)
        # one input: the identity (its bits are kept)
        check_exact(f"onnx.Max of {k} [{dtname}]", np.array(lt.onnx.Max(*ts)), want_max, xs,
                    canonical=k > 1)
        check_exact(f"onnx.Min of {k} [{dtname}]", np.array(lt.onnx.Min(*ts)), want_min, xs,
                    canonical=k > 1)
    if dtname.startswith("float"):
        z = [lt.asarray(np.array([v], dtname)) for v in (-0.0, 0.0, -0.0)]
        assert np.signbit(np.array(lt.onnx.Max(z[0], z[1]))[0]) == False  # noqa: E712
        assert np.signbit(np.array(lt.onnx.Max(z[1], z[0]))[0]) == True  # noqa: E712
        assert np.signbit(np.array(lt.onnx.Max(*z))[0]) == True  # noqa: E712
        assert np.signbit(np.array(lt.onnx.Min(z[0], z[1]))[0]) == False  # noqa: E712


@pytest.mark.parametrize("dtname", FLOAT_NAMES)
def test_onnx_sum_mean_variadic(dtname):
    rng = seeded_rng("onnx-sum", dtname)
    dt = np.dtype(dtname)
    T = np.float32 if dt == np.float16 else dt
    for k in (1, 2, 3, 5):
        xs = [pool_values(dtname, 700, rng) for _ in range(k)]
        xs = [np.concatenate([x, np.array([1.0, 2.0 ** -11, 2.0 ** -11], dtname)[:3]])
              for x in xs]
        ts = [lt.asarray(x) for x in xs]
        with np.errstate(all="ignore"):
            # left to right, each sum rounded to T (float32 for float16: the whole Sum is
            # computed in single precision and rounded to half once, as ONNX Runtime does)
            acc = xs[0].astype(T)
            for x in xs[1:]:
                acc = (acc.astype(F64) + x.astype(F64)).astype(T)
            mean = (acc.astype(F64) / float(k)).astype(T).astype(dt)
            acc = acc.astype(dt)
        check_exact(f"onnx.Sum of {k} [{dtname}]", np.array(lt.onnx.Sum(*ts)), acc, xs,
                    canonical=k > 1)
        check_exact(f"onnx.Mean of {k} [{dtname}]", np.array(lt.onnx.Mean(*ts)), mean, xs)
    with pytest.raises(TypeError):
        lt.onnx.Sum(lt.asarray(np.ones(3, np.int32)))


@pytest.mark.parametrize("dtname", INT_NAMES + FLOAT_NAMES)
def test_onnx_clip(dtname):
    dt = np.dtype(dtname)
    x = pool_values(dtname, 2000, seeded_rng("onnx-clip", dtname))
    x = np.concatenate([special_values(dtname), x])
    info = np.finfo(dt) if dt.kind == "f" else np.iinfo(dt)
    T = np.float32 if dt == np.float16 else dt
    xt = x.astype(T)

    def ref(lo, hi):
        with np.errstate(all="ignore"):
            return _min_rule(_max_rule(xt, np.full_like(xt, lo)), np.full_like(xt, hi)).astype(dt)

    tx = lt.asarray(x)
    check_exact(f"onnx.Clip[{dtname}] no bounds", np.array(lt.onnx.Clip(tx)),
                ref(info.min, info.max), [x])
    lo, hi = (dt.type(-3), dt.type(100)) if dt.kind != "u" else (dt.type(3), dt.type(100))
    tlo, thi = lt.asarray(np.array(lo, dt)), lt.asarray(np.array(hi, dt))
    check_exact(f"onnx.Clip[{dtname}] both", np.array(lt.onnx.Clip(tx, tlo, thi)), ref(lo, hi), [x])
    check_exact(f"onnx.Clip[{dtname}] min only", np.array(lt.onnx.Clip(tx, min=tlo)),
                ref(lo, info.max), [x])
    check_exact(f"onnx.Clip[{dtname}] max only", np.array(lt.onnx.Clip(tx, max=thi)),
                ref(info.min, hi), [x])
    check_exact(f"onnx.Clip[{dtname}] lo > hi", np.array(lt.onnx.Clip(tx, thi, tlo)),
                ref(hi, lo), [x])


def test_onnx_clip_infinities_become_finite_extremes():
    x = np.array([np.inf, -np.inf, np.nan, -0.0, 1.0], np.float32)
    out = np.array(lt.onnx.Clip(lt.asarray(x)))
    f32 = np.finfo(np.float32)
    assert out[0] == f32.max and out[1] == f32.min
    assert bits_of(out[2:]).tolist() == [0x7FC00000, 0x80000000, 0x3F800000]
    h = np.array(lt.onnx.Clip(lt.asarray(np.array([np.inf, -np.inf], np.float16))))
    assert h.tolist() == [65504.0, -65504.0]


@pytest.mark.parametrize("src,dst", [("float64", "int32"), ("float32", "uint8"),
                                     ("float16", "int64"), ("int64", "float16"),
                                     ("uint64", "float32"), ("int32", "bool"),
                                     ("bool", "float64"), ("float64", "float16"),
                                     ("int16", "uint16"), ("float32", "float32")])
def test_onnx_castlike_and_cast(src, dst):
    x = cast_inputs(src)
    target = lt.asarray(np.array([np.nan if np.dtype(dst).kind == "f" else 0], dst))
    expected = cast_reference(x, dst)
    out = lt.onnx.CastLike(lt.asarray(x), target)
    assert out.dtype == np.dtype(dst)
    same = src == dst
    check_exact(f"onnx.CastLike {src}->{dst}", np.array(out), expected, [x], canonical=not same)
    check_exact(f"onnx.Cast {src}->{dst}", np.array(lt.onnx.Cast(lt.asarray(x), dst)),
                expected, [x], canonical=not same)


def test_onnx_pow_integer_base_saturates():
    a = np.array([2, 3, -2, 10, 0, 7], np.int32)
    b = np.array([3, 40, 31, 2, 0, -1], np.int32)
    out = np.array(lt.onnx.Pow(lt.asarray(a), lt.asarray(b)))
    want = cast_reference(np.power(a.astype(F64), b.astype(F64)), "int32")
    assert out.dtype == np.int32
    assert out.tolist() == want.tolist() == [8, 2 ** 31 - 1, -2 ** 31, 100, 1, 0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_pow_two_and_half_are_correctly_rounded(dtype, mode):
    """x**2 and x**0.5 are the correctly rounded x*x and square root (with the Array API's
    pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf), for a scalar exponent (the vectorised
    chunk) and for the same exponents among others in one array (element by element)."""
    rng = np.random.default_rng(5)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 2.25, 1e-30, 1e30])
    x = np.concatenate([special, rng.standard_normal(600) * 10.0 ** rng.integers(-8, 8, 600)])
    x = x.astype(dtype)
    # references: NumPy's IEEE multiply and sqrt are correctly rounded (float32 squares
    # also through float64, where the product is exact)
    with np.errstate(all="ignore"):
        square = (x.astype(np.float64) * x.astype(np.float64)).astype(dtype) \
            if dtype == np.float32 else x * x
        root = np.sqrt(x) + dtype(0)                          # IEEE sqrt; -0 -> +0
    root[np.isneginf(x)] = np.inf
    mixed_exp = np.where(np.arange(x.size) % 3 == 0, 2.0, np.where(np.arange(x.size) % 3 == 1,
                                                                   0.5, 3.0)).astype(dtype)
    with lt.mode(mode):
        got2 = np.asarray(lt.asarray(x) ** 2)
        got_half = np.asarray(lt.asarray(x) ** 0.5)
        got_mixed = np.asarray(lt.pow(lt.asarray(x), lt.asarray(mixed_exp)))
    assert got2.dtype == got_half.dtype == dtype
    np.testing.assert_array_equal(got2, square)
    np.testing.assert_array_equal(got_half, root)
    real = ~np.isnan(root)
    assert np.array_equal(np.signbit(got_half[real]), np.signbit(root[real]))
    two, half = mixed_exp == 2, mixed_exp == 0.5
    np.testing.assert_array_equal(got_mixed[two], square[two])
    np.testing.assert_array_equal(got_mixed[half], root[half])


# --------------------------------------------------------------------------------------
# Python-scalar promotion, lt.where, lt.clip
# --------------------------------------------------------------------------------------
def _val(t):
    return np.array(t)


def test_python_scalar_promotion():
    f32 = np.array([1.5, -0.0, 3.4e38, np.nan, 0.1], np.float32)
    x = lt.asarray(f32)
    with np.errstate(all="ignore"):
        cases = [(x + 1.0, (f32.astype(F64) + 1.0).astype(np.float32)),
                 (1.0 + x, (1.0 + f32.astype(F64)).astype(np.float32)),
                 (x * 3.0, (f32.astype(F64) * 3.0).astype(np.float32)),
                 (2.0 - x, (2.0 - f32.astype(F64)).astype(np.float32)),
                 (x / 3.0, (f32.astype(F64) / np.float64(np.float32(3.0))).astype(np.float32))]
    for t, want in cases:
        assert t.dtype == np.float32
        check_exact("float32 with Python float", _val(t), want, [f32])
    # the scalar is rounded to float32 first: f32(0.1) < 0.1 is False
    assert _val(x < 0.1).tolist() == [False, True, False, False, False]

    h = np.array([1.0, 2049.0, -0.0, 65504.0], np.float16)
    t = lt.asarray(h) + 1.0
    assert t.dtype == np.float16
    assert _val(t).tolist() == (h.astype(np.float32) + 1).astype(np.float16).tolist()

    i8 = lt.asarray(np.array([127, -128, 0], np.int8))
    assert (i8 + 1).dtype == np.int8 and _val(i8 + 1).tolist() == [-128, -127, 1]
    assert (i8 - 1).dtype == np.int8 and _val(i8 - 1).tolist() == [126, 127, -1]
    assert (2 * i8).dtype == np.int8 and _val(2 * i8).tolist() == [-2, 0, 0]
    u8 = lt.asarray(np.array([0, 255], np.uint8))
    assert (u8 - 1).dtype == np.uint8 and _val(u8 - 1).tolist() == [255, 254]
    with pytest.raises(OverflowError):
        i8 + 300

    a = np.array([7, -7, 1, 0, 2 ** 31 - 1], np.int32)
    b = np.array([2, 2, 3, 0, -1], np.int32)
    q = lt.asarray(a) / lt.asarray(b)
    assert q.dtype == np.float64
    with np.errstate(all="ignore"):
        check_exact("int32 / int32", _val(q), a.astype(F64) / b.astype(F64), [a, b])
    q8 = lt.asarray(np.array([1, 2], np.int8)) / lt.asarray(np.array([3, 0], np.int8))
    assert q8.dtype == np.float64 and _val(q8).tolist() == [1 / 3, np.inf]

    # mixed kinds between tensors follow NumPy: int32 + float32 is float64
    m = lt.asarray(np.array([2 ** 24 + 1], np.int32)) + lt.asarray(np.array([0.5], np.float32))
    assert m.dtype == np.float64 and _val(m).tolist() == [2 ** 24 + 1.5]


def test_dunders_match_the_references():
    rng = seeded_rng("dunders")
    a = pool_values("int16", 600, rng)
    b = pool_values("int16", 600, rng)
    ta, tb = lt.asarray(a), lt.asarray(b)
    cases = {"add": ta + tb, "subtract": ta - tb, "multiply": ta * tb,
             "floor_divide": ta // tb, "remainder": ta % tb, "bitwise_and": ta & tb,
             "bitwise_or": ta | tb, "bitwise_xor": ta ^ tb, "bitwise_left_shift": ta << tb,
             "bitwise_right_shift": ta >> tb, "less": ta < tb, "equal": ta == tb,
             "greater_equal": ta >= tb, "not_equal": ta != tb}
    for name, t in cases.items():
        check_exact(f"dunder {name}", _val(t), reference(name, [a, b]), [a, b])
    check_exact("dunder neg", _val(-ta), reference("negative", [a]), [a])
    check_exact("dunder abs", _val(abs(ta)), reference("abs", [a]), [a])
    check_exact("dunder invert", _val(~ta), reference("bitwise_invert", [a]), [a])


def test_integer_identity_and_classification_functions():
    x = np.array([-128, 0, 127], np.int8)
    for fn in (lt.floor, lt.ceil, lt.round, lt.trunc):
        t = fn(lt.asarray(x))
        assert t.dtype == np.int8 and _val(t).tolist() == x.tolist()
    assert _val(lt.isnan(lt.asarray(x))).tolist() == [False] * 3
    assert _val(lt.isinf(lt.asarray(x))).tolist() == [False] * 3
    assert _val(lt.isfinite(lt.asarray(x))).tolist() == [True] * 3


@pytest.mark.parametrize("dtname", ["int8", "uint16", "int64", "float16", "float32", "float64"])
def test_where(dtname):
    rng = seeded_rng("where", dtname)
    x1 = pool_values(dtname, 4 * 5 * 257, rng).reshape(4, 5, 257)
    x2 = pool_values(dtname, 257, rng)
    c = rng.random((5, 1)) < 0.5
    out = lt.where(lt.asarray(c), lt.asarray(x1), lt.asarray(x2))
    assert out.dtype == np.dtype(dtname)
    want = np.where(c, x1, x2)
    np.testing.assert_array_equal(bits_of(_val(out)), bits_of(want))
    # reversed / transposed views, a Python scalar on either side
    v1 = x1[:, ::-1, ::2]
    cv = c[::-1]
    out = lt.where(lt.asarray(c)[::-1], lt.asarray(x1)[:, ::-1, ::2], 0)
    np.testing.assert_array_equal(bits_of(_val(out)), bits_of(np.where(cv, v1, np.zeros((), dtname))))
    scalar = 1.5 if dtname.startswith("float") else 3
    out = lt.where(lt.asarray(c), scalar, lt.asarray(x2))
    assert out.dtype == np.dtype(dtname)
    np.testing.assert_array_equal(bits_of(_val(out)),
                                  bits_of(np.where(c, np.array(scalar, dtname), x2)))
    # size-0 and 0-d
    e = lt.where(lt.asarray(np.zeros((0, 3), bool)), lt.asarray(x2[:3]), lt.asarray(x2[:1]))
    assert e.shape == (0, 3) and _val(e).dtype == np.dtype(dtname)
    z = lt.where(lt.asarray(np.array(True)), lt.asarray(x2[0]), lt.asarray(x2[1]))
    assert bits_of(_val(z).reshape(1)).tolist() == bits_of(x2[:1]).tolist()
    # a non-bool condition: NumPy's truth (the standard only says it should be bool)
    ci = np.array([0, 3, -1], np.int8)
    out = lt.where(lt.asarray(ci), lt.asarray(x2[:3]), lt.asarray(x2[3:6]))
    np.testing.assert_array_equal(bits_of(_val(out)), bits_of(np.where(ci, x2[:3], x2[3:6])))


def test_where_promotes_like_the_operators():
    a = lt.asarray(np.array([1, 2], np.int8))
    b = lt.asarray(np.array([0.5, 1.5], np.float32))
    c = lt.asarray(np.array([True, False]))
    t = lt.where(c, a, b)
    assert t.dtype == np.float32 and _val(t).tolist() == [1.0, 1.5]
    t = lt.where(c, a, 1000 - 1000)
    assert t.dtype == np.int8 and _val(t).tolist() == [1, 0]


@pytest.mark.parametrize("dtname", ["float16", "float32", "float64"])
def test_clip_floats(dtname):
    rng = seeded_rng("clip", dtname)
    x = np.concatenate([special_values(dtname), pool_values(dtname, 1500, rng)])
    T = np.float32 if dtname == "float16" else np.dtype(dtname)
    xt = x.astype(T)
    tx = lt.asarray(x)

    def ref(lo, hi):
        r = xt
        with np.errstate(all="ignore"):
            if lo is not None:
                r = _max_rule(r, np.full_like(r, lo))
            if hi is not None:
                r = _min_rule(r, np.full_like(r, hi))
        return r.astype(dtname)

    # both bounds given: signed zeros on either side, NaN bounds, crossed bounds
    both = [(0.0, 255.0), (-0.0, 1.0), (-1.0, 0.0), (-1.0, -0.0), (0.0, 0.0),
               (-0.0, -0.0), (0.0, -0.0), (-0.0, 0.0), (np.nan, 1.0), (-1.0, np.nan),
               (np.nan, np.nan), (np.inf, -np.inf), (1.0, 1.0)]
    for lo, hi in [(None, None), (-1.0, None), (None, 2.5), (-1.0, 2.5), (2.5, -1.0),
                   (0.0, None), (None, -0.0), (-np.inf, np.inf), (0.1, 0.2)] + both:
        t = lt.clip(tx, lo, hi)
        assert t.dtype == np.dtype(dtname)
        check_exact(f"clip({lo}, {hi})[{dtname}]", _val(t), ref(lo, hi), [x],
                    canonical=(lo, hi) != (None, None))     # no bounds: the identity
        with lt.mode("fast"):                # the same values (NaN payloads may differ)
            check_close(f"clip({lo}, {hi})[{dtname}] fast", _val(lt.clip(tx, lo, hi)),
                        ref(lo, hi), [x], ulps=0, nan_bits=False)
    # tensor bounds that broadcast
    lo = np.array([[-1.0], [0.0], [np.nan]], dtname)
    hi = np.array(3.0, dtname)
    t = lt.clip(tx, lt.asarray(lo), lt.asarray(hi))
    assert t.shape == (3, x.size)
    with np.errstate(all="ignore"):
        want = _min_rule(_max_rule(xt[None, :], lo.astype(T)), hi.astype(T)).astype(dtname)
    check_exact(f"clip(tensor bounds)[{dtname}]", _val(t), want, [x[None, :], lo])


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_cast_of_clip(src):
    """astype(clip(x, lo, hi), int) drops a clip whose bounds hold the target's range (the
    cast saturates by itself); every pair of bounds must give the clip-then-cast values."""
    x = cast_inputs(src)
    tx = lt.asarray(x)
    for dst in ["uint8", "int8", "int16", "uint16", "int32", "uint64"]:
        ii = np.iinfo(dst)
        pairs = [(0.0, 255.0), (-128.0, 127.0), (float(ii.min), float(ii.max)), (-1e30, 1e30),
                 (-np.inf, np.inf), (0.5, 255.0), (-1.0, 254.5), (np.nan, 1e30),
                 (-1e30, np.nan), (300.0, -5.0), (-0.0, 65535.0), (1.0, 1.0)]
        for lo, hi in pairs:
            with np.errstate(all="ignore"):
                clipped = _min_rule(_max_rule(x, np.full_like(x, lo)), np.full_like(x, hi))
            want = cast_reference(clipped.astype(x.dtype), dst)
            t = lt.astype(lt.clip(tx, lo, hi), dst)
            expl = str(lt.explain(t))
            dropped = "clip" not in expl
            check_exact(f"astype(clip({lo}, {hi}), {dst})[{src}]", np.asarray(t), want, [x])
            covers = (lo == lo and hi == hi and np.array(lo, src) <= ii.min
                      and np.array(hi, src) >= ii.max)
            assert dropped == bool(covers), (src, dst, lo, hi, expl)


def test_clip_signed_zero_nan_and_none():
    x = lt.asarray(np.array([-0.0, 0.0, np.nan, np.inf, -np.inf], np.float32))
    assert bits_of(_val(lt.clip(x, 0.0, None))).tolist() == \
        [0, 0, 0x7FC00000, 0x7F800000, 0]
    assert bits_of(_val(lt.clip(x, None, -0.0))).tolist() == \
        [0x80000000, 0x80000000, 0x7FC00000, 0x80000000, 0xFF800000]
    # None means no clamp at all (Array API), not the finite extremes of onnx.Clip
    assert bits_of(_val(lt.clip(x))).tolist() == \
        [0x80000000, 0, 0x7FC00000, 0x7F800000, 0xFF800000]


@pytest.mark.parametrize("dtname", INT_NAMES)
def test_clip_integers(dtname):
    dt = np.dtype(dtname)
    ii = np.iinfo(dt)
    x = np.concatenate([special_values(dtname), pool_values(dtname, 1000, seeded_rng("clipi", dtname))])
    tx = lt.asarray(x)
    for lo, hi in [(None, None), (3, None), (None, 50), (3, 50), (50, 3),
                   (ii.min, ii.max), (int(ii.min) - 1000, int(ii.max) + 1000)]:
        t = lt.clip(tx, lo, hi)
        assert t.dtype == dt
        want = x
        if lo is not None:
            want = np.where(x < lo, max(lo, int(ii.min)), want)
        if hi is not None:
            want = np.where(want > hi, min(hi, int(ii.max)), want)
        check_exact(f"clip({lo}, {hi})[{dtname}]", _val(t), want.astype(dt), [x])
