"""The reference side of tests/test_ops_reference.py and test_ops_reference_nn.py: dtypes
and bits, input values per dtype, the NumPy/SciPy reference of every table op (never
lazytensor), and the runner that compares lazytensor's result with it."""

from __future__ import annotations

import itertools
import os
import sys
import zlib
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.special as sps

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


def _val(t):
    return np.array(t)


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
