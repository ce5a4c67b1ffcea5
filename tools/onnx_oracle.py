"""ONNX Runtime oracle for the elementwise ONNX operators of ``lazytensor.onnx``.

What it does
------------
Builds crafted cases for every operator and element type of the operator table in the
reference notes (seed 000, "Element-wise operators, activations, comparisons, Where and
Cast"): Add, Sub, Mul, Div, Mod (fmod 0 and 1), Pow, Max, Min, Sum, Mean, Exp, Log, Tanh,
Sigmoid, Erf, Gelu (both forms), LeakyRelu, HardSigmoid, HardSwish, Neg, Abs, Sign,
Reciprocal, Sqrt, Floor, Ceil, Round, Clip, Equal, Less, Greater, LessOrEqual,
GreaterOrEqual, Not, And, Or, Xor, Where, Cast, CastLike (and Relu, which lazytensor.onnx
also serves).  The inputs cover shapes of size 0 and 1, 0-d scalars, NumPy broadcasting of
rank 0 to 4, odd lengths around the vector widths (1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 255,
257), NaN (with payloads and both signs), +-inf, +-0, subnormals, integer MIN/MAX, and 0 and
-1 divisors.

Each case is run as a one-node ONNX graph in ONNX Runtime on the CPU execution provider
(one intra-op thread).  Integer Div/Mod cases whose result C++ leaves undefined (a zero
divisor, MIN / -1) can kill the process with SIGFPE, so those run in a child process; a
crash (``"ort": {"status": "crashed", "signal": ...}``) or a run-time error of ORT
(``{"status": "error", "error": ...}``) is recorded with ``"outputs": null`` instead of an
output.  Type combinations that ONNX Runtime does not implement are listed under
``"ort_unsupported"`` and have no case.

The result is written to ``tests/testdata/ops-elementwise/cases.json.gz``: a gzip'd JSON
object with the run's metadata and a list of cases, each with its id, op name, opset,
attributes, the graph (node, opset import, IR version), the inputs and ORT's outputs
(``{"name", "dtype", "shape", "data"}``, data = base64 of the raw little-endian bytes, so
NaN payloads, signed zeros and subnormals survive; an omitted optional input is ``null``),
and the ORT version.  ``tests/test_onnx_oracle.py`` replays the file against
``lazytensor.onnx`` without needing onnx or onnxruntime.

The script is deterministic: every case draws from its own generator seeded by SEED and
the case id, JSON keys are sorted and the gzip header carries no time stamp, so the same
ONNX Runtime on the same kind of CPU regenerates the same bytes.

How to run
----------
    pip install onnx onnxruntime
    python tools/onnx_oracle.py            # regenerates the file (about 15 s)
    python tools/onnx_oracle.py --check    # also prints a summary per operator
"""

from __future__ import annotations

import base64
import gzip
import json
import pickle
import platform
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np

try:
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
except ImportError as exc:  # pragma: no cover - a tool, not a test
    sys.exit(f"tools/onnx_oracle.py needs onnx and onnxruntime: pip install onnx onnxruntime ({exc})")

SEED = 20260000
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "testdata" / "ops-elementwise" / "cases.json.gz"

OPSET = 21          # the default opset of the cases (Gelu needs 20+, CastLike 15+)

BOOL = ("bool",)
SINTS = ("int8", "int16", "int32", "int64")
UINTS = ("uint8", "uint16", "uint32", "uint64")
INTS = SINTS + UINTS
FLOATS = ("float16", "float32", "float64")
NUMERIC = INTS + FLOATS
SIGNED = SINTS + FLOATS
ALL = BOOL + NUMERIC

LENGTHS = (1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 255, 257)

UNARY_SHAPES = [(), (0,), (1,), (1, 1, 1), (2, 3), (3, 1, 5), (2, 1, 3, 2), (4, 0, 2),
                (1, 1, 1, 1), (2, 2, 2, 2)]

# broadcasting pairs, rank 0 to 4, size 0 and 1 included
BINARY_SHAPES = [
    ((), ()), ((), (7,)), ((9,), ()), ((1,), (17,)), ((3, 1), (1, 5)), ((2, 3), (3,)),
    ((4,), (3, 1)), ((2, 1, 3), (1, 4, 1)), ((1, 3, 1, 2), (2, 1, 4, 1)), ((2, 3, 2, 3), ()),
    ((), (2, 1, 3, 2)), ((0,), (1,)), ((2, 0), (2, 1)), ((0, 3), (3,)), ((1, 1, 1, 1), (1,)),
    ((3, 1, 1), (1, 1, 5)), ((5, 1, 1, 1), (3, 1, 1)), ((1,), ()), ((1, 1), (1, 1, 1)),
    ((2, 1, 1, 3), (1, 2, 3)),
]

TERNARY_SHAPES = [((), (3,), (2, 1)), ((2, 1, 3), (4, 1), ()), ((1, 3, 1, 2), (2, 1, 4, 1), (1, 1, 1, 2)),
                  ((0,), (1,), ()), ((5,), (5,), (5,)), ((), (), ()), ((3, 1), (), (1, 4)),
                  ((2, 3, 2, 3), (3,), (2, 1, 1, 1)), ((1,), (0, 1), (1,))]

VARIADIC_SHAPES = [[(3,), (2, 1), ()], [(1, 4), (3, 1), (1, 1, 1, 4), (2, 1, 1)],
                   [(), (), ()], [(2, 0), (1,), (2, 1)], [(17,), (17,), (17,), (17,)],
                   [(1, 3, 1, 2), (2, 1, 4, 1), (1,)]]

ONNX_TYPE = {name: helper.np_dtype_to_tensor_dtype(np.dtype(name)) for name in ALL}

CHILD = r"""
import pickle, sys
import onnxruntime as ort
model, feeds = pickle.load(sys.stdin.buffer)
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
so.log_severity_level = 3
sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
outs = sess.run(None, feeds)
sys.stdout.buffer.write(pickle.dumps(outs))
"""


# --------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------
def _uint_of(dt):
    return {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dt).itemsize]


def from_bits(dt, bits):
    return np.array(bits, dtype=_uint_of(dt)).view(np.dtype(dt))


def nans(dt):
    """quiet NaN, negative NaN, a NaN with a payload, a signalling NaN."""
    return from_bits(dt, {
        "float16": [0x7E00, 0xFE00, 0x7E15, 0x7C01],
        "float32": [0x7FC00000, 0xFFC00000, 0x7FC01234, 0x7F800001],
        "float64": [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000001234, 0x7FF0000000000001],
    }[dt])


def float_specials(dt):
    """A 1-D pool of awkward values of float type ``dt``."""
    fi = np.finfo(dt)
    t = np.dtype(dt).type
    sub_min = from_bits(dt, [1])[0]
    sub_max = from_bits(dt, [{"float16": 0x03FF, "float32": 0x007FFFFF,
                              "float64": 0x000FFFFFFFFFFFFF}[dt]])[0]
    big_int = t(2.0 ** (fi.nmant + 1) - 1)       # largest odd integer, floor is identity
    vals = [np.inf, -np.inf, 0.0, -0.0, sub_min, -sub_min, sub_max, -sub_max, fi.tiny, -fi.tiny,
            fi.max, -fi.max, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -7.25, 0.1, -0.3,
            np.nextafter(t(0.5), t(0)), np.nextafter(t(1), t(2)), np.pi, -np.e, fi.eps,
            big_int, -big_int, 100.5, -1000.0]
    return np.concatenate([nans(dt)[:3], np.array(vals, dtype=np.float64).astype(dt)])


def float_pair_pool(dt):
    """16 values whose cross product is the 'pairs' case of a binary float op."""
    fi = np.finfo(dt)
    sub_min = from_bits(dt, [1])[0]
    vals = [np.nan, np.inf, -np.inf, 0.0, -0.0, sub_min, -fi.tiny, fi.max, -fi.max, 1.0, -1.0,
            0.5, -1.5, 3.0, -7.25, 2.5]
    return np.array(vals, dtype=np.float64).astype(dt)


def int_pool(dt):
    ii = np.iinfo(dt)
    if ii.min < 0:
        vals = [ii.min, ii.min + 1, -100, -7, -2, -1, 0, 1, 2, 3, 7, 100, ii.max - 1, ii.max]
    else:
        vals = [0, 1, 2, 3, 7, 100, ii.max // 2, ii.max // 2 + 1, ii.max - 1, ii.max]
    return np.array(vals, dtype=dt)


def specials(dt):
    if dt == "bool":
        return np.array([False, True, True, False, False, True])
    if dt in FLOATS:
        return float_specials(dt)
    return int_pool(dt)


def random_values(rng, dt, shape, domain="default"):
    """Random values of ``dt``: for floats a spread of magnitudes with specials sprinkled in."""
    n = int(np.prod(shape, dtype=np.int64))
    if dt == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt in INTS:
        ii = np.iinfo(dt)
        big = rng.integers(ii.min, ii.max, n, endpoint=True, dtype=np.dtype(dt))
        small = rng.integers(max(ii.min, -20), min(ii.max, 20), n, endpoint=True).astype(dt)
        pick = rng.random(n) < 0.5
        vals = np.where(pick, big, small)
        if domain == "divisor":
            vals[vals == 0] = 1
        if domain == "pow_base":
            vals = rng.integers(max(ii.min, -6), 7, n).astype(dt)
        if domain == "pow_exp":
            vals = rng.integers(0 if ii.min == 0 else -2, 12, n).astype(dt)
        if domain == "compare":
            pool = int_pool(dt)
            vals = np.where(rng.random(n) < 0.5, pool[rng.integers(0, pool.size, n)],
                            rng.integers(max(ii.min, -3), min(ii.max, 3), n, endpoint=True).astype(dt))
        return vals.astype(dt).reshape(shape)
    # floats
    fdt = np.dtype(dt)
    if domain == "default":
        mag = 10.0 ** rng.uniform(-4, 4 if dt == "float16" else 8, n)
        v = rng.standard_normal(n) * mag
    elif domain == "unit":
        v = rng.standard_normal(n) * 3
    elif domain == "exp":
        v = rng.uniform(-110, 92, n)
    elif domain == "log":
        v = 10.0 ** rng.uniform(-44, 38, n)
        v[rng.random(n) < 0.1] *= -1
    elif domain == "tanh":
        v = rng.uniform(-12, 12, n)
    elif domain == "sigmoid":
        v = rng.uniform(-30, 30, n)
    elif domain == "erf":
        v = rng.uniform(-5, 5, n)
    elif domain == "gelu":
        v = rng.uniform(-12, 12, n)
    elif domain == "hard":
        v = rng.uniform(-6, 6, n)
    elif domain == "sqrt":
        v = 10.0 ** rng.uniform(-8, 8, n)
        v[rng.random(n) < 0.1] *= -1
    elif domain == "round":
        v = rng.integers(-4000, 4000, n) / rng.choice([1.0, 2.0, 4.0, 8.0, 10.0], n)
        v[rng.random(n) < 0.1] *= 2.0 ** (np.finfo(fdt).nmant - 2)
    elif domain == "compare":
        pool = float_pair_pool(dt).astype(np.float64)
        v = np.where(rng.random(n) < 0.4, pool[rng.integers(0, pool.size, n)],
                     rng.integers(-3, 4, n) * 0.5)
    elif domain == "pow_base":
        v = rng.uniform(0, 8, n)
        neg = rng.random(n) < 0.25
        v[neg] = -v[neg]
    elif domain == "pow_exp":
        v = rng.uniform(-6, 6, n)
        whole = rng.random(n) < 0.5
        v[whole] = np.round(v[whole])
    elif domain == "cast":
        v = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 4, n)
    else:
        raise ValueError(domain)
    with np.errstate(over="ignore"):
        out = v.astype(fdt)
    if domain in ("default", "unit", "compare", "gelu", "tanh", "sigmoid", "erf", "hard", "exp"):
        pool = float_specials(dt)
        if domain == "gelu":                 # Gelu(-inf) has its own case (a known deviation)
            pool = pool[~np.isneginf(pool)]
        k = rng.random(n) < 0.08
        out[k] = pool[rng.integers(0, pool.size, int(k.sum()))]
    return out.reshape(shape)


# --------------------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------------------
class Case:
    def __init__(self, cid, op, inputs, attrs=None, opset=OPSET, note=None):
        self.id = cid
        self.op = op
        self.inputs = inputs          # list of np.ndarray or None (omitted optional input)
        self.attrs = dict(attrs or {})
        self.opset = opset
        self.note = note


def case_rng(cid):
    return np.random.default_rng([SEED, zlib.crc32(cid.encode())])


class Builder:
    def __init__(self):
        self.cases: list[Case] = []
        self.ids: set[str] = set()
        self.counter = 0          # rotates lengths and shapes across (op, type) combinations

    def add(self, cid, op, inputs, attrs=None, opset=OPSET, note=None):
        if opset != OPSET and not cid.endswith(f"@{opset}"):
            cid = f"{cid}@{opset}"
        base, k = cid, 2
        while cid in self.ids:
            cid, k = f"{base}#{k}", k + 1
        self.ids.add(cid)
        inputs = [None if a is None else np.array(a, order="C", copy=True) for a in inputs]
        self.cases.append(Case(cid, op, inputs, attrs, opset, note))

    def next_rot(self):
        self.counter += 1
        return self.counter

    # ----- families -----------------------------------------------------------------
    def unary(self, op, dt, domain="default", attrs=None, tag="", opset=OPSET, pool=None):
        name = f"{op}{tag}/{dt}"
        pool = specials(dt) if pool is None else pool
        self.add(f"{name}/specials", op, [pool], attrs, opset)
        rot = self.next_rot()
        for j in range(2):
            n = LENGTHS[(2 * rot + j) % len(LENGTHS)]
            cid = f"{name}/len{n}"
            self.add(cid, op, [random_values(case_rng(cid), dt, (n,), domain)], attrs, opset)
        for j in range(2):
            shape = UNARY_SHAPES[(2 * rot + j) % len(UNARY_SHAPES)]
            cid = f"{name}/shape{'x'.join(map(str, shape)) or 'scalar'}"
            self.add(cid, op, [random_values(case_rng(cid), dt, shape, domain)], attrs, opset)

    def binary(self, op, dt, dt2=None, domain=("default", "default"), attrs=None, tag="",
               opset=OPSET, pool=None, pool2=None, skip_pair=None):
        dt2 = dt2 or dt
        name = f"{op}{tag}/{dt}" if dt2 == dt else f"{op}{tag}/{dt}^{dt2}"
        p1 = (float_pair_pool(dt) if dt in FLOATS else specials(dt)) if pool is None else pool
        p2 = (float_pair_pool(dt2) if dt2 in FLOATS else specials(dt2)) if pool2 is None else pool2
        a, b = np.meshgrid(np.arange(p1.size), np.arange(p2.size), indexing="ij")
        a, b = p1[a.ravel()], p2[b.ravel()]
        if skip_pair is not None:
            keep = ~skip_pair(a, b)
            a, b = a[keep], b[keep]
        self.add(f"{name}/pairs", op, [a, b], attrs, opset)
        rot = self.next_rot()
        for j in range(2):
            n = LENGTHS[(2 * rot + j) % len(LENGTHS)]
            cid = f"{name}/len{n}"
            rng = case_rng(cid)
            x = random_values(rng, dt, (n,), domain[0])
            y = random_values(rng, dt2, (n,), domain[1])
            if skip_pair is not None:
                y = _repair(x, y, skip_pair)
            self.add(cid, op, [x, y], attrs, opset)
        for j in range(2):
            s1, s2 = BINARY_SHAPES[(2 * rot + j) % len(BINARY_SHAPES)]
            cid = f"{name}/bcast{_shape_tag(s1)}_{_shape_tag(s2)}"
            rng = case_rng(cid)
            x = random_values(rng, dt, s1, domain[0])
            y = random_values(rng, dt2, s2, domain[1])
            if skip_pair is not None:
                y = _repair(x, y, skip_pair)
            self.add(cid, op, [x, y], attrs, opset)


def _repair(x, y, skip_pair):
    """``y`` with every element that meets a skipped pair (a zero divisor, MIN / -1, an integer
    power out of range) replaced by 1, broadcasting included."""
    xb, yb = np.broadcast_arrays(x, y)
    bad = np.asarray(skip_pair(xb, yb))
    if not bad.any():
        return y
    lead = bad.ndim - y.ndim
    bad = bad.any(axis=tuple(range(lead))) if lead else bad
    axes = tuple(i for i, n in enumerate(y.shape) if n == 1 and bad.shape[i] != 1)
    if axes:
        bad = bad.any(axis=axes, keepdims=True)
    y = np.array(y, copy=True)
    y[bad.reshape(y.shape)] = 1
    return y


def _shape_tag(s):
    return "x".join(map(str, s)) if s else "s"


def build_cases() -> list[Case]:
    B = Builder()

    # ---- arithmetic --------------------------------------------------------------
    for op in ("Add", "Sub", "Mul"):
        for dt in NUMERIC:
            B.binary(op, dt)
    B.add("Add/float32/len1@7", "Add", [np.array([1.5], np.float32), np.array([-0.0], np.float32)], opset=7)
    B.add("Sub/float64/bcast@7", "Sub", [random_values(case_rng("sub7"), "float64", (2, 3), "default"),
                                         np.array([-0.0, 0.0, np.inf])], opset=7)
    B.add("Mul/int32/wrap@7", "Mul", [np.array([2 ** 30, -2 ** 31, 65536], np.int32),
                                      np.array([4, -1, 65536], np.int32)], opset=7)

    def int_div_bad(a, b):
        a, b = np.asarray(a), np.asarray(b)
        bad = b == 0
        if a.dtype.kind == "i":
            bad |= (a == np.iinfo(a.dtype).min) & (b == -1)
        return bad

    for dt in NUMERIC:
        skip = int_div_bad if dt in INTS else None
        dom = ("default", "divisor" if dt in INTS else "default")
        B.binary("Div", dt, domain=dom, skip_pair=skip)
    for dt in FLOATS:
        B.binary("Mod", dt, attrs={"fmod": 1}, tag="_fmod1")
    for dt in INTS:
        B.binary("Mod", dt, attrs={"fmod": 1}, tag="_fmod1", domain=("default", "divisor"), skip_pair=int_div_bad)
        B.binary("Mod", dt, attrs={"fmod": 0}, tag="_fmod0", domain=("default", "divisor"), skip_pair=int_div_bad)
    # the cases C++ leaves undefined: zero divisors, MIN / -1 (run in a child process)
    for dt in INTS:
        pool = int_pool(dt)
        for op, attrs, tag in (("Div", {}, ""), ("Mod", {"fmod": 0}, "_fmod0"), ("Mod", {"fmod": 1}, "_fmod1")):
            B.add(f"{op}{tag}/{dt}/divisor_zero", op, [pool, np.zeros_like(pool)], attrs)
            if dt in SINTS:
                ii = np.iinfo(dt)
                B.add(f"{op}{tag}/{dt}/min_by_minus_one", op,
                      [np.array([ii.min, ii.min], dt), np.array([-1, -1], dt)], attrs)
    B.add("Div/int32/len9@7", "Div", [np.array([7, -7, 7, -7, 100, -100, 2 ** 31 - 1, -2 ** 31, 0], np.int32),
                                      np.array([2, 2, -2, -2, 7, 7, -1, 1, 5], np.int32)], opset=7)
    B.add("Mod_fmod1/float32/pairs@10", "Mod", [float_pair_pool("float32"), float_pair_pool("float32")[::-1].copy()],
          {"fmod": 1}, opset=10)
    B.add("Mod_fmod0/int64/len8@10", "Mod", [np.array([7, -7, 7, -7, 0, 5, -5, 9], np.int64),
                                             np.array([3, 3, -3, -3, 3, -2, 2, 9], np.int64)], {"fmod": 0}, opset=10)

    # ---- Pow -------------------------------------------------------------------------
    pow_combos = [("float32", "float32"), ("float32", "float64"), ("float32", "int32"), ("float32", "int64"),
                  ("float64", "float64"), ("float64", "float32"), ("float64", "int32"), ("float64", "int64"),
                  ("int32", "int32"), ("int32", "int64"), ("int32", "float32"), ("int32", "float64"),
                  ("int64", "int64"), ("int64", "int32"), ("int64", "float32"), ("int64", "float64")]
    pow_exps_f = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, -0.5, -2.0, 1.5,
                           -3.0, 0.25, 10.0])
    pow_bases_i = {"int32": np.array([-3, -2, -1, 0, 1, 2, 3, 5, 10, 46340], np.int32),
                   "int64": np.array([-3, -2, -1, 0, 1, 2, 3, 5, 10, 3037000499], np.int64)}
    for base, ex in pow_combos:
        if base in FLOATS:
            p1 = float_pair_pool(base)
            p2 = pow_exps_f.astype(ex) if ex in FLOATS else np.array([-3, -2, -1, 0, 1, 2, 3, 4, 7, 10], ex)
            B.binary("Pow", base, ex, domain=("pow_base", "pow_exp"), pool=p1, pool2=p2)
        else:
            p1 = pow_bases_i[base]
            p2 = (np.array([0, 1, 2, 3, -1, -2], ex) if ex in INTS else
                  np.array([0.0, 1.0, 2.0, 3.0, -1.0, 0.5, 1.5, -0.0], ex))

            def no_overflow(a, b, _base=base):
                a = np.asarray(a, np.float64)
                b = np.asarray(b, np.float64)
                with np.errstate(all="ignore"):
                    r = np.power(a, b)
                ii = np.iinfo(_base)
                return ~((r >= ii.min) & (r <= ii.max))     # skip: overflow, 0^-n, NaN
            B.binary("Pow", base, ex, domain=("pow_base", "pow_exp"), pool=p1, pool2=p2, skip_pair=no_overflow)
    # the exponent as a 0-d scalar: ORT has special paths for 2 and 3
    for base in ("float32", "float64"):
        for e in (2.0, 3.0, 0.5, -1.0):
            B.add(f"Pow/{base}^{base}/scalar_exp_{e:g}", "Pow", [float_specials(base), np.array(e, base)])
    for base in ("int32", "int64"):
        for e in (2, 3):
            B.add(f"Pow/{base}^{base}/scalar_exp_{e}", "Pow",
                  [np.array([-1000, -7, -1, 0, 1, 2, 5, 1000], base), np.array(e, base)])
    # integer results out of range (C++ leaves the conversion undefined; lazytensor saturates)
    for base in ("int32", "int64"):
        ii = np.iinfo(base)
        B.add(f"Pow/{base}^{base}/overflow", "Pow",
              [np.array([2, -2, 10, -10, 0, 0, ii.max, ii.min], base),
               np.array([70, 71, 30, 31, -1, -3, 2, 3], base)])
    # an integer base whose double result is NaN (negative base, fractional exponent) or
    # infinite (0 to a negative power): the C cast back is undefined, lazytensor's is the Cast rule
    B.add("Pow/int32^float32/nan_or_inf", "Pow", [np.array([-3, -2, 0, 0, -1, 4], np.int32),
                                                  np.array([0.5, -1.5, -1.0, -0.5, 0.25, 0.5], np.float32)])
    # exponent types of the table that ORT has no kernel for (recorded under ort_unsupported)
    for base in ("float32", "int32"):
        for ex in ("uint32", "uint64"):
            B.add(f"Pow/{base}^{ex}/len3", "Pow", [np.array([2, 3, 4], base), np.array([0, 1, 5], ex)])
    B.add("Pow/float32^float32/len7@7", "Pow", [np.array([2, 0.5, 3, -2, 1e-3, 100, 0], np.float32),
                                                np.array([10, -2, 0.5, 3, 1.5, -0.5, 0], np.float32)], opset=7)

    # ---- Max, Min, Sum, Mean ---------------------------------------------------------------
    for op in ("Max", "Min"):
        for dt in NUMERIC:
            B.binary(op, dt)
            for k, shapes in enumerate(VARIADIC_SHAPES[:3]):
                cid = f"{op}/{dt}/variadic{len(shapes)}_{k}"
                rng = case_rng(cid)
                B.add(cid, op, [random_values(rng, dt, s, "compare") for s in shapes])
            cid = f"{op}/{dt}/single"
            B.add(cid, op, [random_values(case_rng(cid), dt, (5,), "compare")])
        for dt in FLOATS:   # ties of signed zeros in the vector body and in the tail
            z = np.array([0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0], dt)
            B.add(f"{op}/{dt}/signed_zeros_len7", op, [z, -z])
        B.add(f"{op}/float32/signed_zeros@8", op, [np.array([-0.0, 0.0, -0.0, 0.0], np.float32),
                                                   np.array([0.0, -0.0, -0.0, 0.0], np.float32)], opset=8)
    for op in ("Sum", "Mean"):
        for dt in FLOATS:
            B.binary(op, dt)
            for k, shapes in enumerate(VARIADIC_SHAPES):
                cid = f"{op}/{dt}/variadic{len(shapes)}_{k}"
                rng = case_rng(cid)
                B.add(cid, op, [random_values(rng, dt, s, "default") for s in shapes])
            cid = f"{op}/{dt}/single"
            B.add(cid, op, [random_values(case_rng(cid), dt, (9,), "default")])
        B.add(f"{op}/float32/len5@8", op, [np.array([1, 2, 3, 1e30, -0.0], np.float32),
                                           np.array([1, 2, 3, -1e30, -0.0], np.float32),
                                           np.array([1, 2, 4, 1e30, -0.0], np.float32)], opset=8)

    # ---- transcendental and activation functions (float32) ---------------------------------
    f32 = "float32"
    gelu_pool = float_specials(f32)[~np.isneginf(float_specials(f32))]
    B.unary("Exp", f32, "exp")
    B.unary("Log", f32, "log")
    B.unary("Tanh", f32, "tanh")
    B.unary("Sigmoid", f32, "sigmoid")
    B.unary("Erf", f32, "erf")
    B.unary("Gelu", f32, "gelu", tag="", pool=gelu_pool)
    B.unary("Gelu", f32, "gelu", {"approximate": "tanh"}, tag="_tanh", pool=gelu_pool)
    B.unary("LeakyRelu", f32, "unit")
    B.unary("LeakyRelu", f32, "unit", {"alpha": float(np.float32(0.3))}, tag="_alpha0.3")
    B.unary("HardSigmoid", f32, "hard")
    B.unary("HardSigmoid", f32, "hard", {"alpha": float(np.float32(1 / 6)), "beta": float(np.float32(0.3))},
            tag="_alpha1_6_beta0.3")
    B.unary("HardSwish", f32, "hard")
    # threshold and far-tail values
    B.add("Exp/float32/thresholds", "Exp", [np.array([88.72283, 88.72284, 88.7229, 89.0, -87.33654, -87.3366,
                                                      -103.27893, -103.97208, -104.0, -745.0, 1e-8, -1e-8],
                                                     np.float32)])
    B.add("Log/float32/thresholds", "Log", [np.array([1.0, np.nextafter(np.float32(1), np.float32(2)),
                                                      np.nextafter(np.float32(1), np.float32(0)), 2.0, 0.5,
                                                      1e-45, 1e-38, 3.4e38, 10.0, np.e], np.float32)])
    far = np.concatenate([-np.geomspace(10, 200, 40), [-88.0, -88.8, -103.0, -104.0, -1e4, -1e30]]).astype(f32)
    B.add("Sigmoid/float32/far_negative", "Sigmoid", [far])
    B.add("Gelu_tanh/float32/far_negative", "Gelu", [far], {"approximate": "tanh"})
    B.add("Gelu/float32/far_negative", "Gelu", [far])
    B.add("Tanh/float32/near_zero", "Tanh", [np.array([1e-3, -1e-3, 1e-5, 1e-30, 0.0, -0.0, 0.55, -0.55, 9.0,
                                                        9.1, 1e-45], f32)])
    B.add("Erf/float32/tails", "Erf", [np.array([3.9, 3.92, 4.0, -4.0, 1e-30, -1e-30, 0.84, 2.0, 6.0, -6.0], f32)])
    # Gelu(-inf): ORT computes -inf * 0 = NaN, lazytensor the limit -0 (a known deviation)
    B.add("Gelu/float32/neg_inf", "Gelu", [np.array([-np.inf, -np.inf, -np.inf], f32)])
    B.add("Gelu_tanh/float32/neg_inf", "Gelu", [np.array([-np.inf, -np.inf, -np.inf], f32)],
          {"approximate": "tanh"})
    for op, opset in (("Exp", 6), ("Log", 6), ("Tanh", 6), ("Sigmoid", 6), ("Erf", 9), ("LeakyRelu", 6),
                      ("HardSigmoid", 6), ("HardSwish", 14), ("Gelu", 20)):
        cid = f"{op}/float32/len17"
        B.add(cid, op, [random_values(case_rng(cid), f32, (17,), "unit")], opset=max(opset, 7))

    # ---- Neg, Abs, Sign, Reciprocal, Sqrt, Floor, Ceil, Round, Relu --------------------------
    for dt in SIGNED:
        B.unary("Neg", dt)
    for dt in NUMERIC:
        B.unary("Abs", dt)
        B.unary("Sign", dt)
    for dt in FLOATS:
        B.unary("Reciprocal", dt)
        B.unary("Sqrt", dt, "sqrt")
        for op in ("Floor", "Ceil", "Round"):
            B.unary(op, dt, "round")
    for dt in ("int8", "int16", "int32", "int64") + FLOATS:
        B.unary("Relu", dt)
    for op in ("Neg", "Abs", "Reciprocal", "Sqrt", "Floor", "Ceil", "Relu"):
        cid = f"{op}/float32/len9"
        B.add(cid, op, [random_values(case_rng(cid), f32, (9,), "default")], opset=7)
    B.add("Sign/float32/len9@9", "Sign", [random_values(case_rng("sign9"), f32, (9,), "default")], opset=9)
    B.add("Round/float32/halves@11", "Round", [np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.4, 1e7 + 0.5],
                                                        f32)], opset=11)

    # ---- Clip ------------------------------------------------------------------------------
    for dt in NUMERIC:
        x = specials(dt)
        if dt in FLOATS:
            lo, hi = np.array(-1.5, dt), np.array(2.5, dt)
        elif dt in SINTS:
            lo, hi = np.array(-7, dt), np.array(100, dt)
        else:
            lo, hi = np.array(2, dt), np.array(100, dt)
        B.add(f"Clip/{dt}/both", "Clip", [x, lo, hi])
        B.add(f"Clip/{dt}/min_only", "Clip", [x, lo])
        B.add(f"Clip/{dt}/max_only", "Clip", [x, None, hi])
        B.add(f"Clip/{dt}/none", "Clip", [x])
        B.add(f"Clip/{dt}/lo_gt_hi", "Clip", [x, hi, lo])
        rot = B.next_rot()
        n = LENGTHS[rot % len(LENGTHS)]
        cid = f"Clip/{dt}/len{n}"
        B.add(cid, "Clip", [random_values(case_rng(cid), dt, (n,), "default"), lo, hi])
        shape = UNARY_SHAPES[rot % len(UNARY_SHAPES)]
        cid = f"Clip/{dt}/shape{_shape_tag(shape)}"
        B.add(cid, "Clip", [random_values(case_rng(cid), dt, shape, "default"), lo, hi])
        if dt in FLOATS:
            B.add(f"Clip/{dt}/zero_bounds", "Clip", [x, np.array(0.0, dt), np.array(-0.0, dt)])
            B.add(f"Clip/{dt}/nan_bound", "Clip", [x[:12], np.array(np.nan, dt), hi])
    B.add("Clip/float32/attrs", "Clip", [float_specials(f32)], {"min": -1.5, "max": 2.5}, opset=10)
    B.add("Clip/float32/attr_min", "Clip", [float_specials(f32)], {"min": 0.0}, opset=10)
    B.add("Clip/float32/attr_none", "Clip", [float_specials(f32)], {}, opset=10)
    B.add("Clip/float32/both", "Clip", [float_specials(f32), np.array(-1.0, f32), np.array(1.0, f32)], opset=11)
    B.add("Clip/int32/both", "Clip", [int_pool("int32"), np.array(-2, np.int32), np.array(2, np.int32)], opset=12)

    # ---- comparisons -------------------------------------------------------------------------
    for op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
        for dt in (ALL if op == "Equal" else NUMERIC):
            B.binary(op, dt, domain=("compare", "compare"))
    B.add("Equal/int32/len7@7", "Equal", [np.arange(7, dtype=np.int32), np.array([0, 2, 2, 3, 5, 5, 6], np.int32)],
          opset=7)
    B.add("Equal/float32/pairs@11", "Equal", [float_pair_pool(f32), float_pair_pool(f32)[::-1].copy()], opset=11)
    B.add("Less/float32/pairs@9", "Less", [float_pair_pool(f32), float_pair_pool(f32)[::-1].copy()], opset=9)
    B.add("Greater/int64/len5@9", "Greater", [np.array([-1, 0, 1, 2, 3], np.int64), np.array(1, np.int64)], opset=9)
    B.add("LessOrEqual/float64/pairs@12", "LessOrEqual", [float_pair_pool("float64"),
                                                          float_pair_pool("float64")[::-1].copy()], opset=12)
    B.add("GreaterOrEqual/uint8/len5@12", "GreaterOrEqual", [np.array([0, 1, 2, 254, 255], np.uint8),
                                                             np.array(2, np.uint8)], opset=12)

    # ---- logical -------------------------------------------------------------------------
    B.unary("Not", "bool")
    for op in ("And", "Or", "Xor"):
        B.binary(op, "bool", pool=np.array([False, True]), pool2=np.array([False, True]))
        B.add(f"{op}/bool/pairs@7", op, [np.array([False, False, True, True]), np.array([False, True, False, True])],
              opset=7)
    B.add("Not/bool/len3@7", "Not", [np.array([True, False, True])], opset=7)

    # ---- Where -------------------------------------------------------------------------------
    for dt in ALL:
        for k, (sc, sx, sy) in enumerate(TERNARY_SHAPES):
            cid = f"Where/{dt}/bcast{k}"
            rng = case_rng(cid)
            B.add(cid, "Where", [random_values(rng, "bool", sc), random_values(rng, dt, sx, "compare"),
                                 random_values(rng, dt, sy, "compare")])
        pool = specials(dt)
        cid = f"Where/{dt}/specials"
        rng = case_rng(cid)
        B.add(cid, "Where", [rng.integers(0, 2, pool.size).astype(bool), pool, pool[::-1].copy()])
        rot = B.next_rot()
        n = LENGTHS[rot % len(LENGTHS)]
        cid = f"Where/{dt}/len{n}"
        rng = case_rng(cid)
        B.add(cid, "Where", [random_values(rng, "bool", (n,)), random_values(rng, dt, (n,)),
                             random_values(rng, dt, (n,))])
    for dt in FLOATS:
        B.add(f"Where/{dt}/signed_zeros", "Where",
              [np.array([True, False, True, False, True]), np.array([-0.0, -0.0, 0.0, 1.0, -0.0], dt),
               np.array([1.0, -0.0, -0.0, -0.0, np.nan], dt)])
    B.add("Where/float32/len3@9", "Where", [np.array([True, False, True]), np.array([1, 2, 3], np.float32),
                                            np.array([-0.0, np.nan, np.inf], np.float32)], opset=9)

    # ---- Cast, CastLike ------------------------------------------------------------------
    for src in ALL:
        for dst in ALL:
            x = cast_values(src, dst)
            B.add(f"Cast/{src}->{dst}/values", "Cast", [x], {"to": ONNX_TYPE[dst]})
            rot = B.next_rot()
            shape = (UNARY_SHAPES + [(n,) for n in LENGTHS])[rot % (len(UNARY_SHAPES) + len(LENGTHS))]
            cid = f"Cast/{src}->{dst}/shape{_shape_tag(shape)}"
            y = random_values(case_rng(cid), src, shape, "cast")
            if src in FLOATS and dst in INTS:
                y = in_range_for(y, dst)
            B.add(cid, "Cast", [y], {"to": ONNX_TYPE[dst]})
            if src in FLOATS and dst in INTS:
                B.add(f"Cast/{src}->{dst}/out_of_range", "Cast", [out_of_range_values(src, dst)],
                      {"to": ONNX_TYPE[dst]})
    # rounding traps of float64 -> float16 (one rounding vs float64 -> float32 -> float16)
    B.add("Cast/float64->float16/double_rounding", "Cast",
          [np.array([1 + 2.0 ** -11 + 2.0 ** -40, -(1 + 2.0 ** -11 + 2.0 ** -40), 65519.99999999,
                     2.0 ** -25 + 2.0 ** -60, 2048 + 1 + 2.0 ** -30, 1 + 2.0 ** -11, 65520.0])],
          {"to": TensorProto.FLOAT16})
    B.add("Cast/float32->float16/rounding", "Cast",
          [np.array([1 + 2.0 ** -11, 1 + 2.0 ** -11 + 2.0 ** -20, 65519.0, 65520.0, 2.0 ** -25,
                     2.0 ** -25 + 2.0 ** -40, 2.0 ** -24, 6.1e-5, 1e-8, -1e-8, 70000.0], np.float32)],
          {"to": TensorProto.FLOAT16})
    B.add("Cast/float64->float32/rounding", "Cast",
          [np.array([1 + 2.0 ** -24, 1 + 2.0 ** -24 + 2.0 ** -50, 3.4028235677973366e38, 3.5e38, 2.0 ** -150,
                     2.0 ** -150 + 2.0 ** -170, 2.0 ** -149, 1e-50, -1e-50, 0.1])],
          {"to": TensorProto.FLOAT})
    B.add("Cast/int64->float32/rounding", "Cast",
          [np.array([2 ** 24 + 1, 2 ** 24 + 3, 2 ** 53 + 1, -(2 ** 63), 2 ** 63 - 1, 2 ** 31 + 2 ** 7],
                    np.int64)], {"to": TensorProto.FLOAT})
    B.add("Cast/uint64->float64/rounding", "Cast",
          [np.array([2 ** 64 - 1, 2 ** 63, 2 ** 53 + 1, 2 ** 63 + 1025, 0], np.uint64)], {"to": TensorProto.DOUBLE})
    B.add("Cast/int32->float16/rounding", "Cast",
          [np.array([2049, 2051, 65504, 65519, 65520, 70000, -65520, 4097], np.int32)], {"to": TensorProto.FLOAT16})
    B.add("Cast/float32->int32/values@9", "Cast", [np.array([1.9, -1.9, -0.5, 2147483520.0], np.float32)],
          {"to": TensorProto.INT32}, opset=9)
    for k, src in enumerate(ALL):
        for j in range(4):
            dst = ALL[(k + 3 * j + 1) % len(ALL)]
            x = cast_values(src, dst)
            target = np.zeros((2,), dtype=dst)
            B.add(f"CastLike/{src}->{dst}/values", "CastLike", [x, target])
    B.add("CastLike/float32->int32/out_of_range", "CastLike",
          [out_of_range_values("float32", "int32"), np.zeros((1,), np.int32)])
    B.add("CastLike/float16->float32/scalar@15", "CastLike", [np.array(1.5, np.float16), np.array(0, np.float32)],
          opset=15)
    return B.cases


def in_range_for(x, dst):
    """The elements of float array ``x`` whose truncation fits ``dst`` (others replaced)."""
    ii = np.iinfo(dst)
    above = 2.0 ** ii.bits if ii.min == 0 else 2.0 ** (ii.bits - 1)    # the first value that does not fit
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
        ok = np.isfinite(t) & (t >= float(ii.min)) & (t < above)
    out = x.copy()
    out[~ok] = np.asarray(7, dtype=x.dtype)
    return out


def cast_values(src, dst):
    """The values case of Cast src -> dst (float -> integer keeps to what truncates in range)."""
    x = specials(src)
    if src in FLOATS and dst in INTS:
        x = x[~np.isnan(x)]
        x = in_range_for(x, dst)
        ii = np.iinfo(dst)
        edge = [ii.max - 0.5 if ii.max < 2 ** 24 else 0.75, ii.min - 0.5 if ii.min > -2 ** 24 else -0.75, 0.9999,
                -0.9999, float(ii.max) if ii.max < 2 ** 53 else 0.25, float(ii.min),
                2.0 ** 63, 1.5 * 2.0 ** 63, 9.2e18, -9.2e18, 2147483520.0, 4294967040.0, 65535.5, -32768.9]
        with np.errstate(over="ignore"):
            extra = in_range_for(np.array(edge, np.float64).astype(src), dst)
        x = np.concatenate([x, extra])
    if src in INTS and dst in INTS + ("bool",):
        ii = np.iinfo(src)
        extra = [ii.max // 3, ii.min // 3, ii.max // 2 + 129] + ([300, 65535 + 300] if ii.max > 65535 else [])
        x = np.concatenate([x, np.array([v for v in extra if ii.min <= v <= ii.max], src)])
    return x


def out_of_range_values(src, dst):
    """NaN, infinities and values whose truncation does not fit integer type ``dst``."""
    ii = np.iinfo(dst)
    fmax = float(np.finfo(src).max)
    cand = [np.nan, -np.nan, np.inf, -np.inf, fmax, -fmax,
            float(ii.max) + 1.0, float(ii.max) * 2.0, float(ii.min) - 1.0, float(ii.min) * 2.0 - 1.0,
            -1.5, -1.0, 1e10, -1e10, 1e19, 2.0 ** 63, 2.0 ** 64, -(2.0 ** 63) * 1.5]
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(cand, np.float64).astype(src)
        t = np.trunc(x.astype(np.float64))
        bad = np.isnan(x) | ~((t >= float(ii.min)) & (t <= float(ii.max)) & (t < 2.0 ** 64))
        # float(ii.max) rounds up for 64-bit types: 2**63 and 2**64 do not fit
        if ii.bits == 64:
            bad |= t >= float(2 ** (63 if ii.min < 0 else 64))
    x = x[bad]
    _, first = np.unique(x.view(_uint_of(src)), return_index=True)
    return x[np.sort(first)]


# --------------------------------------------------------------------------------------
# ONNX Runtime
# --------------------------------------------------------------------------------------
def make_model(case: Case):
    names = [f"X{i}" for i in range(len(case.inputs))]
    node_inputs = ["" if a is None else n for n, a in zip(names, case.inputs)]
    while node_inputs and node_inputs[-1] == "":
        node_inputs.pop()
    node = helper.make_node(case.op, node_inputs, ["Y"], **case.attrs)
    vis = [helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype.name], list(a.shape))
           for n, a in zip(names, case.inputs) if a is not None]
    schema = onnx.defs.get_schema(case.op, case.opset)
    types = {vi.name: vi.type for vi in vis}
    out_types = onnx.shape_inference.infer_node_outputs(schema, node, types)
    if case.op in ("Clip", "CastLike"):
        out_shape = case.inputs[0].shape
    else:
        out_shape = np.broadcast_shapes(*[a.shape for a in case.inputs if a is not None])
    out = helper.make_tensor_value_info("Y", out_types["Y"].tensor_type.elem_type, list(out_shape))
    graph = helper.make_graph([node], f"oracle_{case.op}", vis, [out])
    opsets = [helper.make_opsetid("", case.opset)]
    ir = max(helper.find_min_ir_version_for(opsets), 7)
    model = helper.make_model(graph, opset_imports=opsets, ir_version=ir,
                              producer_name="lazytensor tools/onnx_oracle.py")
    onnx.checker.check_model(model)
    graph_desc = {"node": {"op_type": case.op, "domain": "", "inputs": node_inputs, "outputs": ["Y"],
                           "attributes": case.attrs},
                  "opset_import": [{"domain": "", "version": case.opset}], "ir_version": ir}
    feeds = {n: a for n, a in zip(names, case.inputs) if a is not None}
    return model.SerializeToString(), feeds, graph_desc


def session_options():
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return so


def is_undefined_integer_division(case: Case):
    if case.op not in ("Div", "Mod") or case.inputs[0].dtype.name not in INTS:
        return False
    a, b = np.broadcast_arrays(*case.inputs)
    bad = b == 0
    if a.dtype.kind == "i":
        bad |= (a == np.iinfo(a.dtype).min) & (b == -1)
    return bool(bad.any())


def run_ort(case: Case):
    """(status dict, outputs or None, graph description) for one case."""
    model, feeds, graph_desc = make_model(case)
    if is_undefined_integer_division(case):
        proc = subprocess.run([sys.executable, "-c", CHILD], input=pickle.dumps((model, feeds)),
                              capture_output=True)
        if proc.returncode < 0:     # killed by a signal (SIGFPE for MIN / -1)
            return ({"status": "crashed", "signal": _signal_name(-proc.returncode), "isolated": True},
                    None, graph_desc)
        if proc.returncode != 0:    # ORT refused at run time (e.g. "Integer division by zero")
            msg = proc.stderr.decode(errors="replace").strip().splitlines()[-1]
            return {"status": "error", "error": msg[:300], "isolated": True}, None, graph_desc
        return {"status": "ok", "isolated": True}, pickle.loads(proc.stdout), graph_desc
    sess = ort.InferenceSession(model, session_options(), providers=["CPUExecutionProvider"])
    return {"status": "ok"}, sess.run(None, feeds), graph_desc


def _signal_name(sig):
    import signal
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def encode(name, a):
    a = np.asarray(a)
    le = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return {"name": name, "dtype": a.dtype.name, "shape": list(a.shape),
            "data": base64.b64encode(le.tobytes(order="C")).decode("ascii")}


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv):
    cases = build_cases()
    records, unsupported = [], []
    for case in cases:
        try:
            status, outputs, graph_desc = run_ort(case)
        except Exception as exc:   # ORT has no kernel for the type combination, or rejects it
            msg = str(exc).strip().splitlines()[0][:300]
            unsupported.append({"id": case.id, "op": case.op, "opset": case.opset,
                                "input_dtypes": [None if a is None else a.dtype.name for a in case.inputs],
                                "attributes": case.attrs, "error": msg})
            continue
        rec = {
            "id": case.id, "op": case.op, "opset": case.opset, "attributes": case.attrs,
            "graph": graph_desc,
            "inputs": [None if a is None else encode(f"X{i}", a) for i, a in enumerate(case.inputs)],
            "outputs": None if outputs is None else [encode("Y", o) for o in outputs],
            "ort": status, "ort_version": ort.__version__,
        }
        if case.note:
            rec["note"] = case.note
        records.append(rec)

    # one row per (op, type signature) that ORT could not run
    unsupported_sigs = {}
    for u in unsupported:
        key = (u["op"], tuple(d for d in u["input_dtypes"] if d), json.dumps(u["attributes"], sort_keys=True))
        unsupported_sigs.setdefault(key, {"op": u["op"], "input_dtypes": list(key[1]),
                                          "attributes": u["attributes"], "error": u["error"], "cases_dropped": 0})
        unsupported_sigs[key]["cases_dropped"] += 1
    doc = {
        "format": "lazytensor ONNX Runtime oracle, ops-elementwise, version 1",
        "generator": "tools/onnx_oracle.py",
        "seed": SEED,
        "ort_version": ort.__version__,
        "onnx_version": onnx.__version__,
        "numpy_version": np.__version__,
        "provider": "CPUExecutionProvider",
        "session_options": {"intra_op_num_threads": 1, "inter_op_num_threads": 1,
                            "graph_optimization_level": "ORT_ENABLE_ALL (default)"},
        "machine": {"platform": platform.platform(terse=True), "machine": platform.machine(), "cpu": cpu_model()},
        "encoding": "data = base64 of the array's raw little-endian bytes (C order); null input = omitted",
        "case_count": len(records),
        "ort_unsupported": sorted(unsupported_sigs.values(), key=lambda u: (u["op"], u["input_dtypes"])),
        "cases": records,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    with open(OUT, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as gz:
            gz.write(payload)
    size = OUT.stat().st_size
    print(f"{len(records)} cases, {len(unsupported)} dropped (ORT has no kernel), "
          f"{sum(r['outputs'] is None for r in records)} cases where ORT failed or crashed (recorded); "
          f"ORT {ort.__version__}; wrote {OUT.relative_to(ROOT)} ({size} bytes)")
    if "--check" in argv:
        from collections import Counter
        per_op = Counter(r["op"] for r in records)
        for op, n in sorted(per_op.items()):
            print(f"  {op:16s} {n}")
        for u in doc["ort_unsupported"]:
            print(f"  ORT unsupported: {u['op']} {u['input_dtypes']} {u['attributes'] or ''}: {u['error'][:100]}")
    return 0


if __name__ == "__main__":
    ort.set_default_logger_severity(3)
    sys.exit(main(sys.argv[1:]))
