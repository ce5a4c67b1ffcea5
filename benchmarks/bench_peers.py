"""Peer benchmark: lazytensor against NumPy, numexpr, ONNX Runtime, PyTorch, torch.compile and jax.jit.

Float32 elementwise workloads and a few reductions over them, at several sizes and thread
counts.  Every implementation runs in one process (jax in a helper process pinned to the
thread count, driven call by call), interleaved round by round (below 10^5 elements a
sample is a short run of back-to-back calls); the report gives medians,
time per element, the ratio to NumPy, the first-call (setup/compile) cost, and each
implementation's error against a float64 NumPy/SciPy reference.  A STREAM-style copy/add
bandwidth measured with NumPy gives the memory floor of the streaming workloads.

    python benchmarks/bench_peers.py --out docs/benchmarks-peers.md

Peers that cannot be imported are skipped with a note.  This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import gc
import json
import os
import platform
import random
import shlex
import statistics
import subprocess
import sys
import time
import traceback

# Before any library with an OpenMP/thread pool is imported: idle worker threads sleep instead
# of spinning, so one implementation's spinning threads do not steal the CPU from the next one
# in the interleaved rounds.  An explicit setting in the environment is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from _benchutil import (fmt_n, fmt_time, git_commit, import_lazytensor, lscpu_facts,  # noqa: E402
                        calls_per_sample, cpu_model, parse_int_list, parse_sizes,
                        timed_calls, usable_cpus)

try:
    import scipy
    from scipy.special import erf as _erf
except ImportError:  # pragma: no cover
    scipy = None
    _erf = None

# Optional modules, bound by load_peers() (main process) or the jax worker.
lt = ne = torch = F = jax = jnp = onnx = ort = None

DEFAULT_SIZES = "1e3,1e5,1e6,1e7"
ROW = 1024                      # row length of the 2-D (row-wise) workloads
F32 = np.float32
SQRT2 = F32(2 ** 0.5)
K_TANH = F32((2 / np.pi) ** 0.5)
C_TANH = F32(0.044715)
QSCALE = F32(0.05)


# ---- workloads ---------------------------------------------------------------------------
# A workload makes its float32 inputs (a dict, in argument order) from a size n, and says how
# each implementation computes it.  Peers use their natural API (F.gelu, jax.nn.softmax, the
# ONNX Softmax op...); numexpr gets float32 constants as variables so it stays in float32.

def _act(n, rng):
    return (3.0 * rng.standard_normal(n)).astype(F32)


def _vec(names, scale=3.0):
    def make(n, rng):
        return n, {k: (scale * rng.standard_normal(n)).astype(F32) for k in names}
    return make


def _rows_make(n, rng):
    rows = max(1, round(n / ROW))
    return rows * ROW, {"X": (2.0 * rng.standard_normal((rows, ROW))).astype(F32)}


def _bias_make(n, rng):
    rows = max(1, round(n / ROW))
    return rows * ROW, {"X": rng.standard_normal((rows, ROW)).astype(F32),
                        "b": rng.standard_normal((rows, 1)).astype(F32)}


def _square_make(n, rng):
    m = max(1, round(n ** 0.5))
    return m * m, {"X": rng.standard_normal((m, m)).astype(F32),
                   "Y": rng.standard_normal((m, m)).astype(F32)}


def _np_logsumexp(X):
    m = X.max(axis=1, keepdims=True)
    return np.log(np.exp(X - m).sum(axis=1)) + m[:, 0]


def _np_softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _gelu64(x):
    return 0.5 * x * (1 + _erf(x / np.sqrt(2.0)))


def _ne_logsumexp(X):
    m = X.max(axis=1, keepdims=True)
    s = ne.evaluate("sum(exp(X - m), axis=1)", local_dict={"X": X, "m": m})
    return np.log(s) + m[:, 0]


def _ne_softmax(X):
    m = X.max(axis=1, keepdims=True)
    e = ne.evaluate("exp(X - m)", local_dict={"X": X, "m": m})
    s = e.sum(axis=1, keepdims=True)
    return ne.evaluate("e / s", local_dict={"e": e, "s": s})


def _lt_logsumexp(X):
    m = lt.max(X, axis=1, keepdims=True)
    return lt.log(lt.sum(lt.exp(X - m), axis=1)) + lt.reshape(m, (-1,))


def _lt_softmax(X):
    e = lt.exp(X - lt.max(X, axis=1, keepdims=True))
    return e / lt.sum(e, axis=1, keepdims=True)


NE_CONST = {"h": F32(0.5), "one": F32(1), "zero": F32(0), "six": F32(6), "k": K_TANH,
            "c": C_TANH, "q": QSCALE, "off": F32(128), "top": F32(255), "two": F32(2)}


class Workload:
    def __init__(self, name, formula, make, ref, numpy, lt_variants, numexpr=None,
                 torch=None, jax=None, onnx=None, out_dtype="float32", integer=False,
                 note=""):
        self.name, self.formula, self.make, self.ref = name, formula, make, ref
        self.numpy, self.lt_variants, self.numexpr = numpy, lt_variants, numexpr
        self.torch, self.jax, self.onnx = torch, jax, onnx
        self.out_dtype, self.integer, self.note = np.dtype(out_dtype), integer, note


# ONNX graphs are written with a tiny builder `g`: g.op("Mul", a, b), g.c(0.5) a float32
# constant, g.i64([1]) an int64 constant.
WORKLOADS = [
    Workload(
        "gelu_erf", "0.5*x*(1+erf(x/sqrt(2)))", _vec("x"),
        ref=_gelu64,
        numpy=lambda x: F32(0.5) * x * (1 + _erf(x / SQRT2)),
        lt_variants=[("nn.gelu", lambda x: lt.nn.gelu(x)),
                     ("expr", lambda x: 0.5 * x * (1 + lt.erf(x / SQRT2)))],
        numexpr=None,
        torch=lambda x: F.gelu(x),
        jax=lambda x: jax.nn.gelu(x, approximate=False),
        onnx=lambda g, x: g.op("Mul", g.op("Mul", x, g.c(0.5)),
                               g.op("Add", g.c(1.0), g.op("Erf", g.op("Div", x, g.c(SQRT2))))),
        note="numexpr has no erf"),
    Workload(
        "gelu_tanh", "0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))", _vec("x"),
        ref=lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
        numpy=lambda x: F32(0.5) * x * (1 + np.tanh(K_TANH * (x + C_TANH * x * x * x))),
        lt_variants=[("nn.gelu tanh", lambda x: lt.nn.gelu(x, approximate="tanh"))],
        numexpr="h*x*(one + tanh(k*(x + c*x*x*x)))",
        torch=lambda x: F.gelu(x, approximate="tanh"),
        jax=lambda x: jax.nn.gelu(x, approximate=True),
        onnx=lambda g, x: g.op("Mul", g.op("Mul", x, g.c(0.5)), g.op("Add", g.c(1.0), g.op(
            "Tanh", g.op("Mul", g.c(K_TANH), g.op("Add", x, g.op(
                "Mul", g.c(C_TANH), g.op("Mul", x, g.op("Mul", x, x)))))))),
    ),
    Workload(
        "hardswish", "x*clip(x/6+0.5, 0, 1)", _vec("x"),
        ref=lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
        numpy=lambda x: x * np.clip(x / F32(6) + F32(0.5), F32(0), F32(1)),
        lt_variants=[("nn.hardswish", lambda x: lt.nn.hardswish(x))],
        numexpr="x*where(x/six + h < zero, zero, where(x/six + h > one, one, x/six + h))",
        torch=lambda x: F.hardswish(x),
        jax=lambda x: jax.nn.hard_swish(x),
        onnx=lambda g, x: g.op("HardSwish", x),
    ),
    Workload(
        "silu", "x*sigmoid(x)", _vec("x"),
        ref=lambda x: x / (1 + np.exp(-x)),
        numpy=lambda x: x / (F32(1) + np.exp(-x)),
        lt_variants=[("nn.silu", lambda x: lt.nn.silu(x)),
                     ("x*nn.sigmoid(x)", lambda x: x * lt.nn.sigmoid(x))],
        numexpr="x/(one + exp(-x))",
        torch=lambda x: F.silu(x),
        jax=lambda x: jax.nn.silu(x),
        onnx=lambda g, x: g.op("Mul", x, g.op("Sigmoid", x)),
    ),
    Workload(
        "a*b+c", "a*b+c, three vectors", _vec("abc", 1.0),
        ref=lambda a, b, c: a * b + c,
        numpy=lambda a, b, c: a * b + c,
        lt_variants=[("a*b+c", lambda a, b, c: a * b + c)],
        numexpr="a*b + c",
        torch=lambda a, b, c: a * b + c,
        jax=lambda a, b, c: a * b + c,
        onnx=lambda g, a, b, c: g.op("Add", g.op("Mul", a, b), c),
    ),
    Workload(
        "bias_relu", "relu(X + b), X (N/1024, 1024), b (N/1024, 1) one bias per row", _bias_make,
        ref=lambda X, b: np.maximum(X + b, 0),
        numpy=lambda X, b: np.maximum(X + b, F32(0)),
        lt_variants=[("nn.relu(X+b)", lambda X, b: lt.nn.relu(X + b))],
        numexpr="where(X + b > zero, X + b, zero)",
        torch=lambda X, b: torch.relu(X + b),
        jax=lambda X, b: jax.nn.relu(X + b),
        onnx=lambda g, X, b: g.op("Relu", g.op("Add", X, b)),
    ),
    Workload(
        "where", "where(x<y, 2x, y-1)", _vec("xy", 1.0),
        ref=lambda x, y: np.where(x < y, 2 * x, y - 1),
        numpy=lambda x, y: np.where(x < y, F32(2) * x, y - F32(1)),
        lt_variants=[("where", lambda x, y: lt.where(x < y, 2 * x, y - 1))],
        numexpr="where(x < y, two*x, y - one)",
        torch=lambda x, y: torch.where(x < y, 2 * x, y - 1),
        jax=lambda x, y: jnp.where(x < y, 2 * x, y - 1),
        onnx=lambda g, x, y: g.op("Where", g.op("Less", x, y), g.op("Mul", x, g.c(2.0)),
                                  g.op("Sub", y, g.c(1.0))),
    ),
    Workload(
        "quantize", "uint8(clip(round(x/0.05)+128, 0, 255)), round half to even", _vec("x", 2.0),
        # the float32 quotient, as every implementation computes it, then exact rounding
        ref=lambda x: np.clip(np.round((x.astype(F32) / QSCALE).astype(np.float64)) + 128, 0, 255),
        numpy=lambda x: np.clip(np.round(x / QSCALE) + F32(128), F32(0), F32(255)).astype(np.uint8),
        lt_variants=[("astype(clip(round))",
                      lambda x: lt.astype(lt.clip(lt.round(x / 0.05) + 128, 0, 255), lt.uint8))],
        numexpr=("where(round(x/q) + off < zero, zero, where(round(x/q) + off > top, top, "
                 "round(x/q) + off))", "uint8"),
        torch=lambda x: torch.clamp(torch.round(x / 0.05) + 128, 0, 255).to(torch.uint8),
        jax=lambda x: jnp.clip(jnp.round(x / 0.05) + 128, 0, 255).astype(jnp.uint8),
        onnx=lambda g, x: g.op("Cast", g.op("Clip", g.op("Add", g.op("Round", g.op(
            "Div", x, g.c(QSCALE))), g.c(128.0)), g.c(0.0), g.c(255.0)), to=2),  # 2 = UINT8
        out_dtype="uint8", integer=True,
        note="numexpr's round() is float64 only: its result is cast to uint8 afterwards"),
    Workload(
        "transpose_add", "X.T + Y, X and Y square (sqrt(N), sqrt(N))", _square_make,
        ref=lambda X, Y: X.T + Y,
        numpy=lambda X, Y: X.T + Y,
        lt_variants=[("X.T + Y", lambda X, Y: X.T + Y)],
        numexpr=lambda X, Y: ne.evaluate("XT + Y", local_dict={"XT": X.T, "Y": Y}),
        torch=lambda X, Y: X.T + Y,
        jax=lambda X, Y: X.T + Y,
        onnx=lambda g, X, Y: g.op("Add", g.op("Transpose", X, perm=[1, 0]), Y),
    ),
    Workload(
        "exp_log1p", "exp(-x*x)*log1p(|x|)", _vec("x", 1.0),
        ref=lambda x: np.exp(-x * x) * np.log1p(np.abs(x)),
        numpy=lambda x: np.exp(-x * x) * np.log1p(np.abs(x)),
        lt_variants=[("exp*log1p", lambda x: lt.exp(-x * x) * lt.log1p(lt.abs(x)))],
        numexpr="exp(-x*x)*log1p(abs(x))",
        torch=lambda x: torch.exp(-x * x) * torch.log1p(torch.abs(x)),
        jax=lambda x: jnp.exp(-x * x) * jnp.log1p(jnp.abs(x)),
        onnx=lambda g, x: g.op("Mul", g.op("Exp", g.op("Neg", g.op("Mul", x, x))),
                               g.op("Log", g.op("Add", g.op("Abs", x), g.c(1.0)))),
        note="ONNX has no Log1p: the graph uses Log(1+|x|)"),
    Workload(
        "logsumexp_rows", "logsumexp over rows of X (N/1024, 1024), max-shifted", _rows_make,
        ref=_np_logsumexp,
        numpy=_np_logsumexp,
        lt_variants=[("nn.logsumexp", lambda X: lt.nn.logsumexp(X, axis=1)),
                     ("max/exp/sum/log", _lt_logsumexp)],
        numexpr=_ne_logsumexp,
        torch=lambda X: torch.logsumexp(X, dim=1),
        jax=lambda X: jax.nn.logsumexp(X, axis=1),
        onnx=lambda g, X: g.op("ReduceLogSumExp", X, g.i64([1]), keepdims=0),
        note="numexpr: row max with NumPy, then numexpr sum(exp(X-m), axis=1)"),
    Workload(
        "softmax_rows", "softmax over rows of X (N/1024, 1024), max-shifted", _rows_make,
        ref=_np_softmax,
        numpy=_np_softmax,
        lt_variants=[("nn.softmax", lambda X: lt.nn.softmax(X, axis=1)),
                     ("exp/sum/divide", _lt_softmax)],
        numexpr=_ne_softmax,
        torch=lambda X: torch.softmax(X, dim=1),
        jax=lambda X: jax.nn.softmax(X, axis=1),
        onnx=lambda g, X: g.op("Softmax", X, axis=1),
        note="numexpr: exp and divide with numexpr, max and sum with NumPy"),
    Workload(
        "mean_gelu", "mean(gelu(x)) over the whole vector (erf GELU)", _vec("x"),
        ref=lambda x: np.mean(_gelu64(x)),
        numpy=lambda x: np.mean(F32(0.5) * x * (1 + _erf(x / SQRT2))),
        lt_variants=[("mean(nn.gelu)", lambda x: lt.mean(lt.nn.gelu(x)))],
        numexpr=None,
        torch=lambda x: F.gelu(x).mean(),
        jax=lambda x: jnp.mean(jax.nn.gelu(x, approximate=False)),
        onnx=lambda g, x: g.op("ReduceMean", g.op("Mul", g.op("Mul", x, g.c(0.5)), g.op(
            "Add", g.c(1.0), g.op("Erf", g.op("Div", x, g.c(SQRT2))))), keepdims=0),
        note="numexpr has no erf"),
]
WL = {w.name: w for w in WORKLOADS}


def make_inputs(wl, n, seed):
    rng = np.random.default_rng([seed, n, sum(map(ord, wl.name))])
    return wl.make(n, rng)


def reference(wl, inputs):
    return np.asarray(wl.ref(*[v.astype(np.float64) for v in inputs.values()]), np.float64)


# ---- checking ----------------------------------------------------------------------------

ULP_FLOOR = 2.0 ** -20          # ulps are counted at max(|ref|, this)


def check(wl, got, ref):
    """Error of ``got`` against the float64 reference, and whether it is acceptable.

    Acceptable: the dtype is the workload's, the size matches, and every element is within
    rtol 1e-4 (about 800 float32 ulp) plus atol 1e-5 * max|ref| of the reference; for
    integer outputs (quantize) within one level.  These bounds are loose on purpose: they
    catch a wrong computation, not a last-bit difference; the error columns show the rest.
    """
    got = np.asarray(got)
    res = {"dtype": str(got.dtype), "ok": True, "why": ""}
    if got.size != ref.size:
        return {**res, "ok": False, "why": f"shape {got.shape} vs {ref.shape}",
                "ulp": float("nan"), "abs": float("nan"), "norm": float("nan")}
    g = got.reshape(ref.shape).astype(np.float64)
    diff = np.abs(g - ref)
    bad_nan = np.isnan(g) != np.isnan(ref)
    diff = np.where(np.isnan(diff), 0.0, diff)
    res["abs"] = float(diff.max()) if diff.size else 0.0
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    # normwise: the largest error relative to the largest |ref|, in float32 epsilons (2^-23)
    res["norm"] = res["abs"] / max(scale, 1e-30) / 2.0 ** -23
    if wl.integer:
        res["ulp"] = res["abs"]                     # in quantisation levels
        res["mismatch"] = int(np.count_nonzero(diff))
        tol = np.full(ref.shape, 1.0)
    else:
        spacing = np.spacing(np.maximum(np.abs(ref), ULP_FLOOR).astype(F32)).astype(np.float64)
        res["ulp"] = float((diff / spacing).max()) if diff.size else 0.0
        tol = 1e-4 * np.abs(ref) + 1e-5 * max(scale, 1e-30)
    if got.dtype != wl.out_dtype:
        res.update(ok=False, why=f"dtype {got.dtype}, expected {wl.out_dtype}")
    elif bad_nan.any():
        res.update(ok=False, why=f"{int(bad_nan.sum())} NaNs differ")
    elif (diff > tol).any():
        res.update(ok=False, why=f"{int((diff > tol).sum())} elements off, max abs err "
                                 f"{res['abs']:.3g}")
    return res


# ---- implementations ---------------------------------------------------------------------
# An implementation family prepares, for one workload, size and thread count, a list of
# variants.  A variant's setup() does any compile/session work and returns a no-argument
# callable giving a fully materialised NumPy array (or a jax worker handle).


class Skip(Exception):
    """This implementation does not do this workload (with the reason)."""


class Variant:
    def __init__(self, family, label, setup):
        self.family, self.label, self._setup = family, label, setup
        self.call = None

    def first(self, wl, ref):
        """Setup + first call, timed together; returns (seconds, check dict)."""
        t0 = time.perf_counter()
        self.call = self._setup()
        out = self.call()
        t = time.perf_counter() - t0
        return t, check(wl, out, ref)

    def warm(self):
        self.call()

    def run_timed(self, k=1):
        return timed_calls(self.call, k)

    def close(self):
        self.call = None


class NumpyImpl:
    key, label = "numpy", "NumPy"
    threads_note = "elementwise ufuncs are single-threaded"

    def version(self):
        return f"numpy {np.__version__}" + (f", scipy {scipy.__version__}" if scipy else "")

    def variants(self, wl, inputs, threads):
        args = list(inputs.values())
        return [Variant(self.key, "NumPy", lambda: (lambda: np.asarray(wl.numpy(*args))))]


class LazyImpl:
    key, label = "lazytensor", "lazytensor"
    threads_note = "lt.set_num_threads(T)"

    def __init__(self, mode):
        self.mode = mode
        self.key = f"lt-{mode}"

    def version(self):
        return f"lazytensor {lt.__version__} (commit {git_commit()})"

    def variants(self, wl, inputs, threads):
        xs = [lt.asarray(v) for v in inputs.values()]
        out = []
        for vname, fn in wl.lt_variants:
            def setup(fn=fn):
                def call():
                    with lt.mode(self.mode):
                        return fn(*xs).numpy()
                return call
            label = f"lt {self.mode}" + (f" {vname}" if len(wl.lt_variants) > 1 else "")
            out.append(Variant(self.key, label, setup))
        return out


class LazyJitImpl(LazyImpl):
    """lazytensor in fast mode with the workload's (first) function wrapped in ``lt.jit``:
    traced on the first call, its kernels replayed on the next ones."""

    key, label = "lt-jit", "lazytensor lt.jit"

    def __init__(self):
        super().__init__("fast")
        self.key = "lt-jit"

    def variants(self, wl, inputs, threads):
        xs = [lt.asarray(v) for v in inputs.values()]
        jitted = lt.jit(wl.lt_variants[0][1])

        def setup():
            def call():
                with lt.mode("fast"):
                    return jitted(*xs).numpy()
            return call
        return [Variant(self.key, "lt fast jit", setup)]


class NumexprImpl:
    key, label = "numexpr", "numexpr"
    threads_note = "numexpr.set_num_threads(T)"

    def version(self):
        return f"numexpr {ne.__version__}"

    def variants(self, wl, inputs, threads):
        spec = wl.numexpr
        if spec is None:
            raise Skip(wl.note or "not expressible")
        args = list(inputs.values())
        if callable(spec):
            fn = lambda: np.asarray(spec(*args))  # noqa: E731
        else:
            expr, cast = (spec, None) if isinstance(spec, str) else spec
            local = {**NE_CONST, **inputs}
            if cast:
                fn = lambda: ne.evaluate(expr, local_dict=local).astype(cast)  # noqa: E731
            else:
                fn = lambda: ne.evaluate(expr, local_dict=local)  # noqa: E731
        return [Variant(self.key, "numexpr", lambda: fn)]


class TorchImpl:
    threads_note = "torch.set_num_threads(T)"

    def __init__(self, compiled):
        self.compiled = compiled
        self.key = "torch.compile" if compiled else "torch"
        self.label = "torch.compile" if compiled else "PyTorch eager"

    def version(self):
        return f"torch {torch.__version__}"

    def variants(self, wl, inputs, threads):
        ts = [torch.from_numpy(v) for v in inputs.values()]
        fn = wl.torch

        def setup():
            if self.compiled:
                torch._dynamo.reset()   # fresh compile for this shape and thread count
                cfn = torch.compile(fn, dynamic=False, fullgraph=True)
            else:
                cfn = fn

            def call():
                with torch.inference_mode():
                    return cfn(*ts).numpy()
            return call
        return [Variant(self.key, self.label, setup)]


class OnnxGraph:
    """A small builder for single-output ONNX graphs."""

    def __init__(self):
        self.nodes, self.inits, self._k = [], [], 0

    def _name(self, p):
        self._k += 1
        return f"{p}{self._k}"

    def op(self, kind, *ins, **attrs):
        out = self._name("t")
        self.nodes.append(onnx.helper.make_node(kind, list(ins), [out], **attrs))
        return out

    def c(self, value):
        name = self._name("c")
        self.inits.append(onnx.numpy_helper.from_array(np.asarray(value, F32), name))
        return name

    def i64(self, values):
        name = self._name("k")
        self.inits.append(onnx.numpy_helper.from_array(np.asarray(values, np.int64), name))
        return name


ONNX_OPSET = 18


def build_onnx(wl, inputs, out_shape):
    g = OnnxGraph()
    out = wl.onnx(g, *inputs.keys())
    h = onnx.helper
    g_in = [h.make_tensor_value_info(k, onnx.TensorProto.FLOAT, list(v.shape))
            for k, v in inputs.items()]
    g.nodes.append(h.make_node("Identity", [out], ["out"]))
    elem = onnx.TensorProto.UINT8 if wl.out_dtype == np.uint8 else onnx.TensorProto.FLOAT
    g_out = [h.make_tensor_value_info("out", elem, list(out_shape))]
    graph = h.make_graph(g.nodes, wl.name, g_in, g_out, initializer=g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", ONNX_OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


class OrtImpl:
    key, label = "onnxruntime", "ONNX Runtime"
    threads_note = "SessionOptions.intra_op_num_threads = T, spinning off"

    def version(self):
        return f"onnxruntime {ort.__version__}, onnx {onnx.__version__} (opset {ONNX_OPSET})"

    def variants(self, wl, inputs, threads):
        model = build_onnx(wl, inputs, self._out_shape)

        def setup():
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
            feeds = dict(inputs)
            return lambda: sess.run(None, feeds)[0]
        return [Variant(self.key, "ONNX Runtime", setup)]


# ---- jax, in a helper process pinned to T CPUs --------------------------------------------

class JaxWorker:
    """A child process running jax, pinned to `threads` CPUs, timed call by call."""

    def __init__(self, threads, seed):
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--jax-worker", str(threads),
             "--seed", str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        hello = self.ask({"op": "hello"})
        self.version, self.cpus = hello["version"], hello["cpus"]

    def ask(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("jax worker exited")
        ans = json.loads(line)
        if "error" in ans:
            raise RuntimeError(ans["error"])
        return ans

    def close(self):
        try:
            self.ask({"op": "quit"})
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class JaxVariant(Variant):
    def __init__(self, worker, wl, n):
        super().__init__("jax", "jax.jit", None)
        self.worker, self.wl, self.n = worker, wl, n

    def first(self, wl, ref):
        ans = self.worker.ask({"op": "setup", "workload": wl.name, "n": self.n})
        return ans["first"], ans["check"]

    def warm(self):
        self.worker.ask({"op": "time"})

    def run_timed(self, k=1):
        return self.worker.ask({"op": "time", "k": k})["t"]

    def close(self):
        try:
            self.worker.ask({"op": "drop"})
        except Exception:
            pass


class JaxImpl:
    key, label = "jax", "jax.jit"
    threads_note = "separate process pinned to T CPUs (sched_setaffinity)"

    def __init__(self, seed):
        self.seed, self.workers, self._version, self.failed = seed, {}, None, {}

    def version(self):
        return self._version or "jax (not started)"

    def worker(self, threads):
        if threads in self.failed:
            raise Skip(self.failed[threads])
        if threads not in self.workers:
            try:
                self.workers[threads] = JaxWorker(threads, self.seed)
            except Exception as exc:
                self.failed[threads] = f"jax helper process failed to start: {exc}"
                raise Skip(self.failed[threads]) from None
            self._version = self.workers[threads].version
        return self.workers[threads]

    def variants(self, wl, inputs, threads):
        return [JaxVariant(self.worker(threads), wl, self._n)]

    def close(self):
        for w in self.workers.values():
            w.close()


def jax_worker_main(threads, seed):
    """The jax helper process: JSON requests on stdin, answers on stdout."""
    cpus = usable_cpus()[:threads]
    os.sched_setaffinity(0, cpus)
    answer_to = sys.stdout
    sys.stdout = sys.stderr            # stray prints must not corrupt the protocol
    global jax, jnp
    try:
        import jax as _jax
        import jax.numpy as _jnp
        jax, jnp = _jax, _jnp
        try:
            from importlib.metadata import version as _dist_version
            jaxlib_v = _dist_version("jaxlib")
        except Exception:
            jaxlib_v = "?"
        version = f"jax {jax.__version__}, jaxlib {jaxlib_v}"
    except Exception as exc:
        version = None
        err = f"{type(exc).__name__}: {exc}"
    cur = None
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["op"] == "hello":
                if version is None:
                    raise RuntimeError(err)
                ans = {"version": version, "cpus": cpus}
            elif msg["op"] == "setup":
                wl = WL[msg["workload"]]
                _, inputs = make_inputs(wl, msg["n"], seed)
                ref = reference(wl, inputs)
                t0 = time.perf_counter()
                args = [jax.device_put(v) for v in inputs.values()]
                fn = jax.jit(wl.jax)
                out = fn(*args).block_until_ready()
                first = time.perf_counter() - t0
                chk = check(wl, np.asarray(out), ref)
                del out, ref
                cur = (fn, args)
                ans = {"first": first, "check": chk}
            elif msg["op"] == "time":
                fn, args = cur
                ans = {"t": timed_calls(lambda: fn(*args).block_until_ready(), msg.get("k", 1))}
            elif msg["op"] == "drop":
                cur = None
                jax.clear_caches()
                gc.collect()
                ans = {}
            elif msg["op"] == "quit":
                answer_to.write("{}\n")
                answer_to.flush()
                return
            else:
                raise ValueError(msg)
        except Exception as exc:
            ans = {"error": f"{type(exc).__name__}: {exc}"}
        answer_to.write(json.dumps(ans) + "\n")
        answer_to.flush()


# ---- peers -------------------------------------------------------------------------------

def load_peers(wanted, seed):
    """(implementations, notes about skipped ones)."""
    global lt, ne, torch, F, onnx, ort
    impls, notes = [], []
    lt = import_lazytensor()
    impls.append(NumpyImpl())
    for mode in ("exact", "fast"):
        if f"lt-{mode}" in wanted:
            impls.append(LazyImpl(mode))
    if "lt-jit" in wanted:
        impls.append(LazyJitImpl())
    if "numexpr" in wanted:
        try:
            import numexpr
            ne = numexpr
            impls.append(NumexprImpl())
        except ImportError as exc:
            notes.append(f"numexpr skipped: {exc}")
    if "onnxruntime" in wanted:
        try:
            import onnx as _onnx
            import onnx.numpy_helper  # noqa: F401
            import onnxruntime as _ort
            onnx, ort = _onnx, _ort
            impls.append(OrtImpl())
        except ImportError as exc:
            notes.append(f"ONNX Runtime skipped: {exc}")
    if "torch" in wanted or "torch.compile" in wanted:
        try:
            import torch as _torch
            import torch.nn.functional as _F
            torch, F = _torch, _F
            if "torch" in wanted:
                impls.append(TorchImpl(False))
            if "torch.compile" in wanted:
                impls.append(TorchImpl(True))
        except ImportError as exc:
            notes.append(f"PyTorch skipped: {exc}")
    if "jax" in wanted:
        try:
            import importlib.util
            if importlib.util.find_spec("jax") is None:
                raise ImportError("No module named 'jax'")
            impls.append(JaxImpl(seed))
        except ImportError as exc:
            notes.append(f"jax skipped: {exc}")
    return impls, notes


ALL_IMPLS = ["lt-exact", "lt-fast", "lt-jit", "numexpr", "onnxruntime", "torch", "torch.compile", "jax"]


def set_threads(impls, threads):
    lt.set_num_threads(threads)
    for impl in impls:
        if impl.key == "numexpr":
            ne.set_num_threads(threads)
        elif impl.key in ("torch", "torch.compile"):
            torch.set_num_threads(threads)


# ---- memory bandwidth floor --------------------------------------------------------------

def stream_bandwidth(threads_list, mib, reps=10):
    """Best-of-`reps` STREAM-style Copy (b = a) and Add (c = a + b) bandwidth in GB/s,
    NumPy into preallocated float32 buffers of `mib` MiB each, split into T contiguous
    parts run by T Python threads (NumPy releases the GIL).  Bytes counted as STREAM does:
    8 per element for Copy, 12 for Add (no write-allocate traffic)."""
    n = mib * 2 ** 20 // 4
    a = np.full(n, 1.0, F32)
    b = np.full(n, 2.0, F32)
    c = np.zeros(n, F32)
    res = {}
    for t in threads_list:
        parts = [slice(i * n // t, (i + 1) * n // t) for i in range(t)]
        with concurrent.futures.ThreadPoolExecutor(t) as pool:
            kernels = {
                "copy": (lambda s: np.copyto(b[s], a[s]), 8),
                "add": (lambda s: np.add(a[s], b[s], out=c[s]), 12),
            }
            for name, (k, bytes_per) in kernels.items():
                best = float("inf")
                for _ in range(reps):
                    t0 = time.perf_counter()
                    list(pool.map(k, parts))
                    best = min(best, time.perf_counter() - t0)
                res[(name, t)] = bytes_per * n / best / 1e9
    return res


# ---- measurement -------------------------------------------------------------------------

def default_repeat(n):
    if n <= 100_000:
        return 31
    if n <= 1_000_000:
        return 21
    return 7


WARM_MAX_N = 10**6   # a timed sample follows an untimed call of the same implementation


def measure(wl, n, threads, impls, repeat, seed, log):
    """Result rows for one workload, size and thread count."""
    n_used, inputs = make_inputs(wl, n, seed)
    ref = reference(wl, inputs)
    bytes_per_elem = (sum(v.nbytes for v in inputs.values())
                      + ref.size * wl.out_dtype.itemsize) / n_used
    rows, variants, skipped = [], [], []
    for impl in impls:
        impl._n, impl._out_shape = n, ref.shape
        try:
            vs = impl.variants(wl, inputs, threads)
        except Skip as exc:
            skipped.append((impl.label, str(exc)))
            continue
        except Exception as exc:
            skipped.append((impl.label, f"failed to build: {type(exc).__name__}: {exc}"))
            log(f"    {impl.label}: {type(exc).__name__}: {exc}")
            continue
        for v in vs:
            try:
                first, chk = v.first(wl, ref)
                v.warm()
            except Exception as exc:
                msg = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                skipped.append((v.label, f"failed: {msg}"))
                log(f"    {v.label}: failed: {msg}")
                if os.environ.get("BENCH_PEERS_DEBUG"):
                    traceback.print_exc()
                v.close()
                continue
            if not chk["ok"]:
                log(f"    WARNING {v.label} on {wl.name} N={n_used}: WRONG result ({chk['why']})")
            variants.append((v, first, chk))
    del ref
    times = {id(v): [] for v, _, _ in variants}
    # The call before leaves the caches (and the thread pools) in its own state: with the
    # order rotating each round, each implementation mostly followed the same one (lt exact
    # followed NumPy in two rounds of three and took twice lt fast's time at 10^5).  So up to
    # WARM_MAX_N elements each sample follows an untimed call of its own implementation, and
    # the order is a new random one each round (seeded).
    order = random.Random(seed)
    for r in range(repeat):
        gc.collect()
        for v, _, _ in order.sample(variants, len(variants)):
            if n_used <= WARM_MAX_N:
                v.run_timed(1)
            times[id(v)].append(v.run_timed(calls_per_sample(n_used)))
    for v, first, chk in variants:
        v.close()
        med = statistics.median(times[id(v)]) if times[id(v)] else float("nan")
        rows.append(dict(workload=wl.name, family=v.family, label=v.label, n=n_used,
                         threads=threads, median=med, per_elem=med / n_used, first=first,
                         repeat=repeat, bytes_per_elem=bytes_per_elem, **{
                             "ok": chk["ok"], "why": chk["why"], "ulp": chk["ulp"],
                             "abs": chk["abs"], "norm": chk.get("norm", float("nan")),
                             "dtype": chk["dtype"]}))
    np_med = next((r["median"] for r in rows if r["family"] == "numpy"), float("nan"))
    for r in rows:
        r["vs_numpy"] = np_med / r["median"]
    del inputs
    gc.collect()
    if torch is not None:
        torch._dynamo.reset()
    return rows, skipped


def measure_scaling(wl, n, repeat, seed):
    """lazytensor's speed-up from one thread to two, per mode: the workload's first lt
    variant with 1 and 2 threads called alternately within each round, so that a slow phase
    of the machine (they last seconds to minutes) falls on both sides of the ratio.  The
    tables above time T=1 and T=2 in separate passes, minutes apart."""
    n_used, inputs = make_inputs(wl, n, seed)
    xs = [lt.asarray(v) for v in inputs.values()]
    fn = wl.lt_variants[0][1]
    rows = []
    for mode in ("fast", "exact"):
        times = {1: [], 2: []}
        with lt.mode(mode):
            for r in range(repeat + 1):
                for t in ((1, 2) if r % 2 == 0 else (2, 1)):
                    with lt.config(num_threads=t):
                        t0 = time.perf_counter()
                        fn(*xs).numpy()
                        if r:                    # round 0 warms both plans and the pool
                            times[t].append(time.perf_counter() - t0)
        t1, t2 = (statistics.median(times[t]) for t in (1, 2))
        rows.append(dict(workload=wl.name, mode=mode, n=n_used, repeat=repeat,
                         t1_per_elem=t1 / n_used, t2_per_elem=t2 / n_used, speedup=t1 / t2))
    del inputs, xs
    gc.collect()
    return rows


# ---- report ------------------------------------------------------------------------------

FAMILY_ORDER = ["numpy", "lt-exact", "lt-fast", "lt-jit", "numexpr", "onnxruntime", "torch",
                "torch.compile", "jax"]


def ordered_labels(rows):
    """Implementation labels in family order, then in order of appearance."""
    seen = {}
    for i, r in enumerate(rows):
        if r["label"] not in seen:
            fam = FAMILY_ORDER.index(r["family"]) if r["family"] in FAMILY_ORDER else 99
            seen[r["label"]] = (fam, i)
    return sorted(seen, key=seen.get)


def fmt_ns(s):
    ns = s * 1e9
    if ns != ns:
        return "–"
    return f"{ns:.3g}" if ns < 100 else f"{ns:.0f}"


def fmt_err(row):
    if row["ulp"] != row["ulp"]:
        return "–"
    if row["workload"] == "quantize":
        return f"{row['ulp']:.0f} lvl"
    u = row["ulp"]
    return f"{u:.3g}" if u < 1e4 else f"{u:.1e}"


def fmt_norm(v, wl):
    if v != v or wl.integer:
        return "–"
    return f"{v:.2g}"


def machine_lines():
    f = lscpu_facts()
    model = f.get("Model name", cpu_model())
    cores = (f"{f.get('CPU(s)', os.cpu_count())} CPUs ({f.get('Socket(s)', '?')} socket × "
             f"{f.get('Core(s) per socket', '?')} cores × {f.get('Thread(s) per core', '?')} "
             "threads)")
    caches = ", ".join(f"{k} {f[k]}" for k in ("L1d cache", "L2 cache", "L3 cache") if k in f)
    hv = f" · virtualised ({f['Hypervisor vendor']})" if "Hypervisor vendor" in f else ""
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
        memtxt = f" · {mem:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        memtxt = ""
    return [f"- Machine: {model}, {cores}; {caches}{hv}{memtxt}; "
            f"{platform.system()} {platform.release()}, usable CPUs {usable_cpus()}"]


def plot_workload(wl, rows, threads_list, bw, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = ordered_labels(rows)
    cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
    color = {lab: cmap(i % cmap.N) for i, lab in enumerate(labels)}
    color["NumPy"] = "black"
    fig, axes = plt.subplots(1, len(threads_list), figsize=(5.2 * len(threads_list), 4.2),
                             sharey=True, squeeze=False)
    for ax, t in zip(axes[0], threads_list):
        for lab in labels:
            pts = sorted((r["n"], r["per_elem"] * 1e9, r["ok"]) for r in rows
                         if r["label"] == lab and r["threads"] == t)
            if not pts:
                continue
            style = "-" if lab.startswith("lt ") else "--"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3,
                    color=color[lab], label=lab)
            for p in pts:
                if not p[2]:
                    ax.plot(p[0], p[1], "x", color="red", ms=9)
        bpe = next((r["bytes_per_elem"] for r in rows), None)
        if bpe and ("add", t) in bw:
            floor = bpe / bw[("add", t)]       # ns per element, GB/s = bytes/ns
            ax.axhline(floor, color="black", ls=":", lw=1,
                       label=f"memory floor ({bw[('add', t)]:.1f} GB/s)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("N (elements)")
        ax.set_title(f"{wl.name}, {t} thread{'s' if t > 1 else ''}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("ns per element (median)")
    axes[0][-1].legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def write_report(args, argv, impls, notes, bw, results, skipped, out, img_dir, elapsed,
                 scaling=()):
    lines = ["# lazytensor against peer libraries (float32)", ""]
    cmd = shlex.join(["python", os.path.relpath(os.path.abspath(__file__))] + list(argv))
    lines += ["Generated by `benchmarks/bench_peers.py`; see `benchmarks/README.md` for how it "
              "measures. This is a measurement on one machine, not a test.", ""]
    lines += [f"- Command: `{cmd}`",
              f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
              f"total run time {elapsed / 60:.1f} min"]
    lines += machine_lines()
    versions = []
    for i in impls:
        if i.version() not in versions:
            versions.append(i.version())
    try:
        import matplotlib
        versions.append(f"matplotlib {matplotlib.__version__}")
    except ImportError:
        pass
    lines += [f"- Python {platform.python_version()}; " + "; ".join(versions)]
    lines += [f"- lazytensor kernel path: `{lt.kernel_path()}` (available: "
              f"{', '.join(map(str, lt.kernel_paths()))})",
              "- Thread control: " + "; ".join(
                  f"{i.label}: {i.threads_note}" for i in impls if i.key not in ("lt-fast", "lt-jit")),
              f"- OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}; sizes "
              f"{', '.join(fmt_n(n) for n in args.sizes)}; threads {args.threads}; repeats "
              + (str(args.repeats) if args.repeats else "31 up to 10^5, 21 up to 10^6, 7 above")]
    for note in notes:
        lines.append(f"- {note}")
    lines.append("")

    lines += ["## Memory bandwidth floor", "",
              f"STREAM-style, NumPy into preallocated float32 buffers of {args.stream_mib} MiB, "
              "best of 10, split over T Python threads:", "",
              "| kernel | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in args.threads)
              + " |", "|---|" + "---:|" * len(args.threads)]
    for k, desc in (("copy", "Copy b = a (8 B/elem)"), ("add", "Add c = a + b (12 B/elem)")):
        lines.append(f"| {desc} | " + " | ".join(
            f"{bw[(k, t)]:.1f} GB/s" if (k, t) in bw else "–" for t in args.threads) + " |")
    lines += ["", "The floor of a workload is (input + output bytes per element) / Add bandwidth: "
              "no implementation that reads its inputs and writes its output once from memory "
              "can go below it at large N (at small N the data sits in cache).", ""]

    fams = ordered_labels(results)
    # summary columns: one per family, the workload's first (primary) variant
    fam_keys = [f for f in FAMILY_ORDER if any(r["family"] == f for r in results)]
    fam_name = {"numpy": "NumPy", "lt-exact": "lt exact", "lt-fast": "lt fast",
                "lt-jit": "lt fast jit",
                "numexpr": "numexpr", "onnxruntime": "ONNX Runtime", "torch": "PyTorch eager",
                "torch.compile": "torch.compile", "jax": "jax.jit"}
    for t in args.threads:
        big = [r for r in results if r["threads"] == t]
        if not big:
            continue
        lines += [f"## Summary at the largest size, {t} thread{'s' if t > 1 else ''}", "",
                  "ns per element (median); in brackets the speed-up over NumPy (> 1: faster "
                  "than NumPy). ✗ = result failed the check; n/a = not run (see the "
                  "workload's section). For gelu_erf, silu, logsumexp_rows and softmax_rows "
                  "the lazytensor columns are `lt.nn.gelu`, `lt.nn.silu`, `lt.nn.logsumexp` "
                  "and `lt.nn.softmax`; the expression forms are in their sections. "
                  "Floor = memory-bandwidth floor.", ""]
        cols = [f for f in fam_keys if any(r["family"] == f for r in big)]
        lines += ["| workload | N | floor | " + " | ".join(fam_name[f] for f in cols) + " |",
                  "|---|---:|---:|" + "---:|" * len(cols)]
        for wl in WORKLOADS:
            rs = [r for r in big if r["workload"] == wl.name]
            if not rs:
                continue
            n_top = max(r["n"] for r in rs)
            rs = [r for r in rs if r["n"] == n_top]
            bpe = rs[0]["bytes_per_elem"]
            floor = fmt_ns(bpe / bw[("add", t)] * 1e-9) if ("add", t) in bw else "–"
            cells = []
            for f in cols:
                r = next((r for r in rs if r["family"] == f), None)
                cells.append("n/a" if r is None else
                             f"{fmt_ns(r['per_elem'])} ({r['vs_numpy']:.2f}){'' if r['ok'] else ' ✗'}")
            lines.append(f"| {wl.name} | {fmt_n(n_top)} | {floor} | " + " | ".join(cells) + " |")
        lines.append("")

    if scaling:
        lines += ["## Two threads against one (lazytensor, interleaved)", "",
                  "ns per element (median) of the workload's first lazytensor form with one "
                  "and two threads, the two called alternately within each of "
                  f"{scaling[0]['repeat']} rounds (`measure_scaling`), and the speed-up "
                  "T=1 / T=2. The summaries above time T=1 and T=2 in separate passes minutes "
                  "apart, so their ratio also carries the machine's drift between the passes.",
                  "", "| workload | N | fast T=1 | fast T=2 | speed-up | exact T=1 | exact T=2 "
                  "| speed-up |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for wl in WORKLOADS:
            rs = {r["mode"]: r for r in scaling if r["workload"] == wl.name}
            if not rs:
                continue
            cells = []
            for mode in ("fast", "exact"):
                r = rs.get(mode)
                cells += (["–"] * 3 if r is None else
                          [fmt_ns(r["t1_per_elem"]), fmt_ns(r["t2_per_elem"]),
                           f"{r['speedup']:.2f}"])
            n_used = next(iter(rs.values()))["n"]
            lines.append(f"| {wl.name} | {fmt_n(n_used)} | " + " | ".join(cells) + " |")
        lines.append("")

    lines += ["## Per workload", "",
              "Each table: ns per element (median) and, in brackets, the speed-up over NumPy "
              "at the same size and thread count; the first call (setup: ONNX session, "
              "compile or trace, kernel plan; plus the first run) at the largest size; the "
              "largest error over all sizes, elementwise in float32 ulps of the float64 "
              "reference (counted at max(|ref|, 2^-20); quantize: in levels) and normwise "
              "(max |err| / max |ref|, in float32 ε = 2^-23); and the check. Large "
              "elementwise errors that every implementation shares come from the formula "
              "itself in float32 (e.g. 1+erf(x) cancelling for negative x), not from the "
              "implementation.", ""]
    for wl in WORKLOADS:
        rs = [r for r in results if r["workload"] == wl.name]
        if not rs:
            continue
        lines += [f"### {wl.name}: `{wl.formula}`", ""]
        if wl.note:
            lines += [f"Note: {wl.note}.", ""]
        img = f"peers_{wl.name.replace('*', 'x').replace('+', 'p')}.png"
        if args.plots:
            try:
                plot_workload(wl, rs, args.threads, bw, os.path.join(img_dir, img))
                rel = os.path.relpath(os.path.join(img_dir, img), os.path.dirname(out) or ".")
                lines += [f"![{wl.name}]({rel})", ""]
            except Exception as exc:
                lines += [f"(plot failed: {type(exc).__name__}: {exc})", ""]
        sizes = sorted({r["n"] for r in rs})
        lines += ["| T | implementation | " + " | ".join(fmt_n(n) for n in sizes)
                  + " | first call | max err (ulp) | normwise err (ε) | check |",
                  "|---:|---|" + "---:|" * len(sizes) + "---:|---:|---:|---|"]
        for t in args.threads:
            for lab in fams:
                mine = [r for r in rs if r["label"] == lab and r["threads"] == t]
                if not mine:
                    continue
                by_n = {r["n"]: r for r in mine}
                cells = [f"{fmt_ns(by_n[n]['per_elem'])} ({by_n[n]['vs_numpy']:.2f})"
                         if n in by_n else "–" for n in sizes]
                top = by_n[max(by_n)]
                worst = max(mine, key=lambda r: (r["ulp"] if r["ulp"] == r["ulp"] else -1))
                worst_norm = max((r["norm"] for r in mine if r["norm"] == r["norm"]),
                                 default=float("nan"))
                bad = [r for r in mine if not r["ok"]]
                chk = "ok" if not bad else "**WRONG**: " + "; ".join(
                    f"N={fmt_n(r['n'])}: {r['why']}" for r in bad)
                lines.append(f"| {t} | {lab} | " + " | ".join(cells)
                             + f" | {fmt_time(top['first'])} | {fmt_err(worst)} "
                             f"| {fmt_norm(worst_norm, wl)} | {chk} |")
        sk = sorted({(lab, why) for (w, lab, why) in skipped if w == wl.name})
        for lab, why in sk:
            lines.append(f"\nNot run: {lab}: {why}.")
        lines.append("")

    lines += ["## How to read this", "",
              "- Timing: one process; inputs are made once per workload and size; every "
              "implementation is called once untimed after its first call, then all run in "
              "interleaved rounds (in a new random order each round; up to 10^6 elements "
              "each sample follows an untimed call of its own implementation) and each "
              "median is taken over "
              "its rounds. A sample is the mean of k back-to-back calls, k = min(100, "
              "10^5 / N) (at least 1): at 10^3 a single call measures cold caches more than "
              "the call. A lazytensor call builds the lazy expression and evaluates it "
              "(`.numpy()`); torch calls return `.numpy()` of the result; ONNX Runtime "
              "returns a NumPy array; jax calls end with `block_until_ready()` in a helper "
              "process pinned to T CPUs (its data stays in jax buffers).",
              "- NumPy's elementwise ufuncs are single-threaded: its T=2 numbers are T=1 work "
              "measured again; the ratios use NumPy at the same T.",
              "- The check compares each implementation's first result with a float64 "
              "NumPy/SciPy reference computed from the same float32 inputs: same size, the "
              "expected dtype, and within rtol 1e-4 + atol 1e-5·max|ref| (quantize: one "
              "level). Results failing it are marked ✗/WRONG and must not be read as timings "
              "of the same work.",
              "- The first-call column includes everything done once: building the ONNX "
              "session, torch.compile's tracing and C++ code generation (its on-disk cache may "
              "make repeated runs warmer), jax's trace and XLA compile, lazytensor's plan.",
              ""]
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


# ---- command line ------------------------------------------------------------------------

def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=parse_sizes, default=parse_sizes(DEFAULT_SIZES),
                    help=f"element counts (default {DEFAULT_SIZES})")
    ap.add_argument("--threads", type=parse_int_list, default=[1, 2],
                    help="thread counts (default 1,2)")
    ap.add_argument("--repeats", type=int, default=None,
                    help="timed rounds (default 31 up to 1e5, 21 up to 1e6, 7 above)")
    ap.add_argument("--workloads", default=",".join(WL),
                    help="comma-separated subset of: " + ",".join(WL))
    ap.add_argument("--impls", default=",".join(ALL_IMPLS),
                    help="comma-separated subset of: " + ",".join(ALL_IMPLS)
                         + " (NumPy always runs)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stream-mib", type=int, default=128,
                    help="MiB per buffer of the bandwidth measurement (default 128; 0: skip)")
    ap.add_argument("--out", default="docs/benchmarks-peers.md", help="Markdown report path")
    ap.add_argument("--img-dir", default=None, help="plot folder (default: <out dir>/img)")
    ap.add_argument("--no-plots", dest="plots", action="store_false")
    ap.add_argument("--no-scaling", dest="scaling", action="store_false",
                    help="skip lazytensor's interleaved one-against-two-threads measurement "
                         "(run when the threads include 1 and 2 and the largest size is at "
                         "least 10^6)")
    ap.add_argument("--json", default=None,
                    help="raw results file (default: <img dir>/benchmarks-peers.json)")
    ap.add_argument("--jax-worker", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.jax_worker is not None:
        return jax_worker_main(args.jax_worker, args.seed)
    if _erf is None:
        ap.error("scipy is needed (the NumPy side of the erf workloads and the reference)")
    if args.repeats is not None and args.repeats < 1:
        ap.error("--repeats must be at least 1")
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in workloads if w not in WL]
    if unknown:
        ap.error(f"unknown workloads {unknown}")
    wanted = {w.strip() for w in args.impls.split(",") if w.strip()}
    if wanted - set(ALL_IMPLS) - {"numpy"}:
        ap.error(f"unknown implementations {sorted(wanted - set(ALL_IMPLS))}")
    img_dir = args.img_dir or os.path.join(os.path.dirname(os.path.abspath(args.out)), "img")
    os.makedirs(img_dir, exist_ok=True)
    json_path = args.json or os.path.join(img_dir, "benchmarks-peers.json")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    impls, notes = load_peers(wanted, args.seed)
    for note in notes:
        log(note)
    bw = {}
    if args.stream_mib > 0:
        bw = stream_bandwidth(args.threads, args.stream_mib)
        log("bandwidth: " + ", ".join(f"{k} T={t}: {v:.1f} GB/s" for (k, t), v in bw.items()))

    results, skipped = [], []
    try:
        for t in args.threads:
            set_threads(impls, t)
            for n in args.sizes:
                repeat = args.repeats or default_repeat(n)
                for name in workloads:
                    wl = WL[name]
                    log(f"T={t} N={fmt_n(n)} {name}")
                    active = list(impls)
                    rows, sk = measure(wl, n, t, active, repeat, args.seed, log)
                    results += rows
                    skipped += [(name, lab, why) for lab, why in sk]
                    for r in rows:
                        log(f"    {r['label']:24s} {fmt_ns(r['per_elem']):>7s} ns/elem  "
                            f"x{r['vs_numpy']:5.2f} vs NumPy  first {fmt_time(r['first']):>9s}  "
                            f"err {fmt_err(r)}{'' if r['ok'] else '  WRONG'}")
                    # a jax worker that died is not asked again
                    for impl in impls:
                        if isinstance(impl, JaxImpl):
                            for tt, w in list(impl.workers.items()):
                                if w.proc.poll() is not None:
                                    log(f"jax helper for T={tt} exited; jax dropped at T={tt}")
                                    notes.append(f"the jax helper process (T={tt}) exited "
                                                 f"during the run (at {name}, N={fmt_n(n)})")
                                    impl.failed[tt] = "jax helper process exited"
                                    del impl.workers[tt]
            for impl in impls:          # this thread count is done: stop its jax helper
                if isinstance(impl, JaxImpl) and t in impl.workers:
                    impl.workers.pop(t).close()
    finally:
        for impl in impls:
            if isinstance(impl, JaxImpl):
                impl.close()
    scaling = []
    big = max(args.sizes)
    if {1, 2} <= set(args.threads) and big >= 10 ** 6 and args.scaling:
        for name in workloads:
            log(f"two threads against one, N={fmt_n(big)} {name}")
            rows = measure_scaling(WL[name], big, args.repeats or 2 * default_repeat(big),
                                   args.seed)
            scaling += rows
            for r in rows:
                log(f"    lt {r['mode']:5s} T=1 {fmt_ns(r['t1_per_elem']):>7s}  T=2 "
                    f"{fmt_ns(r['t2_per_elem']):>7s} ns/elem  speed-up {r['speedup']:.2f}")
    elapsed = time.perf_counter() - t_start
    with open(json_path, "w", encoding="utf-8") as fh:
        json.dump({"argv": argv, "bandwidth": {f"{k}@{t}": v for (k, t), v in bw.items()},
                   "results": results, "scaling": scaling, "skipped": skipped}, fh, indent=1,
                  default=str)
    write_report(args, argv, impls, notes, bw, results, skipped, args.out, img_dir, elapsed,
                 scaling)
    log(f"wrote {args.out}, plots in {img_dir}, raw results {json_path} "
        f"({elapsed / 60:.1f} min)")
    bad = [r for r in results if not r["ok"]]
    if bad:
        log(f"{len(bad)} results failed the check: " + ", ".join(
            sorted({f"{r['label']} on {r['workload']}" for r in bad})))


if __name__ == "__main__":
    main()
