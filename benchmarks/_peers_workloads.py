"""The workloads of bench_peers.py, their float64 references and the check of a result.

A workload makes its float32 inputs (a dict, in argument order) from a size n, and says how
each implementation computes it.  Peers use their natural API (F.gelu, jax.nn.softmax, the
ONNX Softmax op...); numexpr gets float32 constants as variables so it stays in float32.
The lambdas read the peers' modules from ``_peers_libs`` at call time.
"""

from __future__ import annotations

import copy
import math

import numpy as np

import _peers_libs as L

ROW = 1024                      # row length of the 2-D (row-wise) workloads
F32 = np.float32
SQRT2 = F32(2 ** 0.5)
K_TANH = F32((2 / np.pi) ** 0.5)
C_TANH = F32(0.044715)
QSCALE = F32(0.05)
# The written-out forms take their constants as Python floats, as a user writes them (each
# library keeps float32 with them).
R_SQRT2 = math.sqrt(2)
R_TANH = math.sqrt(2 / math.pi)


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
    return 0.5 * x * (1 + L.erf(x / np.sqrt(2.0)))


def _ne_logsumexp(X):
    m = X.max(axis=1, keepdims=True)
    s = L.ne.evaluate("sum(exp(X - m), axis=1)", local_dict={"X": X, "m": m})
    return np.log(s) + m[:, 0]


def _ne_softmax(X):
    m = X.max(axis=1, keepdims=True)
    e = L.ne.evaluate("exp(X - m)", local_dict={"X": X, "m": m})
    s = e.sum(axis=1, keepdims=True)
    return L.ne.evaluate("e / s", local_dict={"e": e, "s": s})


def _lt_logsumexp(X):
    m = L.lt.max(X, axis=1, keepdims=True)
    return L.lt.log(L.lt.sum(L.lt.exp(X - m), axis=1)) + L.lt.reshape(m, (-1,))


def _lt_softmax(X):
    e = L.lt.exp(X - L.lt.max(X, axis=1, keepdims=True))
    return e / L.lt.sum(e, axis=1, keepdims=True)


NE_CONST = {"h": F32(0.5), "one": F32(1), "zero": F32(0), "six": F32(6), "k": K_TANH,
            "c": C_TANH, "q": QSCALE, "off": F32(128), "top": F32(255), "two": F32(2)}


class Workload:
    """One workload.  ``user_form``: it is spelled as a user writes it out (operators and
    elementwise functions, no ``nn.*`` call), each library in its own spelling: the ten of
    docs/benchmarks-peers.md in that form get the report's own summary."""

    def __init__(self, name, formula, make, ref, numpy, lt_variants, numexpr=None,
                 torch=None, jax=None, onnx=None, out_dtype="float32", integer=False,
                 note="", user_form=False):
        self.name, self.formula, self.make, self.ref = name, formula, make, ref
        self.numpy, self.lt_variants, self.numexpr = numpy, lt_variants, numexpr
        self.torch, self.jax, self.onnx = torch, jax, onnx
        self.out_dtype, self.integer, self.note = np.dtype(out_dtype), integer, note
        self.user_form = user_form

    def written_out(self, formula, lt, torch, jax, onnx=None):
        """This workload as a user writes it out, named ``<name>_expr``: the same inputs,
        reference, NumPy and numexpr spellings (already written out), and the given
        lazytensor, PyTorch, jax and (where it differs) ONNX ones."""
        w = copy.copy(self)
        w.name, w.formula, w.user_form = f"{self.name}_expr", formula, True
        w.lt_variants, w.torch, w.jax = [("expr", lt)], torch, jax
        w.onnx = onnx or self.onnx
        return w


# ONNX graphs are written with a tiny builder `g`: g.op("Mul", a, b), g.c(0.5) a float32
# constant, g.i64([1]) an int64 constant.
_AS_CALLED = [
    Workload(
        "gelu_erf", "0.5*x*(1+erf(x/sqrt(2)))", _vec("x"),
        ref=_gelu64,
        numpy=lambda x: F32(0.5) * x * (1 + L.erf(x / SQRT2)),
        lt_variants=[("nn.gelu", lambda x: L.lt.nn.gelu(x))],
        numexpr=None,
        torch=lambda x: L.F.gelu(x),
        jax=lambda x: L.jax.nn.gelu(x, approximate=False),
        onnx=lambda g, x: g.op("Mul", g.op("Mul", x, g.c(0.5)),
                               g.op("Add", g.c(1.0), g.op("Erf", g.op("Div", x, g.c(SQRT2))))),
        note="numexpr has no erf"),
    Workload(
        "gelu_tanh", "0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))", _vec("x"),
        ref=lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
        numpy=lambda x: F32(0.5) * x * (1 + np.tanh(K_TANH * (x + C_TANH * x * x * x))),
        lt_variants=[("nn.gelu tanh", lambda x: L.lt.nn.gelu(x, approximate="tanh"))],
        numexpr="h*x*(one + tanh(k*(x + c*x*x*x)))",
        torch=lambda x: L.F.gelu(x, approximate="tanh"),
        jax=lambda x: L.jax.nn.gelu(x, approximate=True),
        onnx=lambda g, x: g.op("Mul", g.op("Mul", x, g.c(0.5)), g.op("Add", g.c(1.0), g.op(
            "Tanh", g.op("Mul", g.c(K_TANH), g.op("Add", x, g.op(
                "Mul", g.c(C_TANH), g.op("Mul", x, g.op("Mul", x, x)))))))),
    ),
    Workload(
        "hardswish", "x*clip(x/6+0.5, 0, 1)", _vec("x"),
        ref=lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
        numpy=lambda x: x * np.clip(x / F32(6) + F32(0.5), F32(0), F32(1)),
        lt_variants=[("nn.hardswish", lambda x: L.lt.nn.hardswish(x))],
        numexpr="x*where(x/six + h < zero, zero, where(x/six + h > one, one, x/six + h))",
        torch=lambda x: L.F.hardswish(x),
        jax=lambda x: L.jax.nn.hard_swish(x),
        onnx=lambda g, x: g.op("HardSwish", x),
    ),
    Workload(
        "silu", "x*sigmoid(x)", _vec("x"),
        ref=lambda x: x / (1 + np.exp(-x)),
        numpy=lambda x: x / (F32(1) + np.exp(-x)),
        lt_variants=[("nn.silu", lambda x: L.lt.nn.silu(x)),
                     ("x*nn.sigmoid(x)", lambda x: x * L.lt.nn.sigmoid(x))],
        numexpr="x/(one + exp(-x))",
        torch=lambda x: L.F.silu(x),
        jax=lambda x: L.jax.nn.silu(x),
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
        user_form=True),
    Workload(
        "bias_relu", "relu(X + b), X (N/1024, 1024), b (N/1024, 1) one bias per row", _bias_make,
        ref=lambda X, b: np.maximum(X + b, 0),
        numpy=lambda X, b: np.maximum(X + b, F32(0)),
        lt_variants=[("nn.relu(X+b)", lambda X, b: L.lt.nn.relu(X + b))],
        numexpr="where(X + b > zero, X + b, zero)",
        torch=lambda X, b: L.torch.relu(X + b),
        jax=lambda X, b: L.jax.nn.relu(X + b),
        onnx=lambda g, X, b: g.op("Relu", g.op("Add", X, b)),
    ),
    Workload(
        "where", "where(x<y, 2x, y-1)", _vec("xy", 1.0),
        ref=lambda x, y: np.where(x < y, 2 * x, y - 1),
        numpy=lambda x, y: np.where(x < y, F32(2) * x, y - F32(1)),
        lt_variants=[("where", lambda x, y: L.lt.where(x < y, 2 * x, y - 1))],
        numexpr="where(x < y, two*x, y - one)",
        torch=lambda x, y: L.torch.where(x < y, 2 * x, y - 1),
        jax=lambda x, y: L.jnp.where(x < y, 2 * x, y - 1),
        onnx=lambda g, x, y: g.op("Where", g.op("Less", x, y), g.op("Mul", x, g.c(2.0)),
                                  g.op("Sub", y, g.c(1.0))),
        user_form=True),
    Workload(
        "quantize", "uint8(clip(round(x/0.05)+128, 0, 255)), round half to even", _vec("x", 2.0),
        # the float32 quotient, as every implementation computes it, then exact rounding
        ref=lambda x: np.clip(np.round((x.astype(F32) / QSCALE).astype(np.float64)) + 128, 0, 255),
        numpy=lambda x: np.clip(np.round(x / QSCALE) + F32(128), F32(0), F32(255)).astype(np.uint8),
        lt_variants=[("astype(clip(round))",
                      lambda x: L.lt.astype(L.lt.clip(L.lt.round(x / 0.05) + 128, 0, 255),
                                            L.lt.uint8))],
        numexpr=("where(round(x/q) + off < zero, zero, where(round(x/q) + off > top, top, "
                 "round(x/q) + off))", "uint8"),
        torch=lambda x: L.torch.clamp(L.torch.round(x / 0.05) + 128, 0, 255).to(L.torch.uint8),
        jax=lambda x: L.jnp.clip(L.jnp.round(x / 0.05) + 128, 0, 255).astype(L.jnp.uint8),
        onnx=lambda g, x: g.op("Cast", g.op("Clip", g.op("Add", g.op("Round", g.op(
            "Div", x, g.c(QSCALE))), g.c(128.0)), g.c(0.0), g.c(255.0)), to=2),  # 2 = UINT8
        out_dtype="uint8", integer=True, user_form=True,
        note="numexpr's round() is float64 only: its result is cast to uint8 afterwards"),
    Workload(
        "transpose_add", "X.T + Y, X and Y square (sqrt(N), sqrt(N))", _square_make,
        ref=lambda X, Y: X.T + Y,
        numpy=lambda X, Y: X.T + Y,
        lt_variants=[("X.T + Y", lambda X, Y: X.T + Y)],
        numexpr=lambda X, Y: L.ne.evaluate("XT + Y", local_dict={"XT": X.T, "Y": Y}),
        torch=lambda X, Y: X.T + Y,
        jax=lambda X, Y: X.T + Y,
        onnx=lambda g, X, Y: g.op("Add", g.op("Transpose", X, perm=[1, 0]), Y),
        user_form=True),
    Workload(
        "exp_log1p", "exp(-x*x)*log1p(|x|)", _vec("x", 1.0),
        ref=lambda x: np.exp(-x * x) * np.log1p(np.abs(x)),
        numpy=lambda x: np.exp(-x * x) * np.log1p(np.abs(x)),
        lt_variants=[("exp*log1p", lambda x: L.lt.exp(-x * x) * L.lt.log1p(L.lt.abs(x)))],
        numexpr="exp(-x*x)*log1p(abs(x))",
        torch=lambda x: L.torch.exp(-x * x) * L.torch.log1p(L.torch.abs(x)),
        jax=lambda x: L.jnp.exp(-x * x) * L.jnp.log1p(L.jnp.abs(x)),
        onnx=lambda g, x: g.op("Mul", g.op("Exp", g.op("Neg", g.op("Mul", x, x))),
                               g.op("Log", g.op("Add", g.op("Abs", x), g.c(1.0)))),
        user_form=True, note="ONNX has no Log1p: the graph uses Log(1+|x|)"),
    Workload(
        "logsumexp_rows", "logsumexp over rows of X (N/1024, 1024), max-shifted", _rows_make,
        ref=_np_logsumexp,
        numpy=_np_logsumexp,
        lt_variants=[("nn.logsumexp", lambda X: L.lt.nn.logsumexp(X, axis=1)),
                     ("max/exp/sum/log", _lt_logsumexp)],
        numexpr=_ne_logsumexp,
        torch=lambda X: L.torch.logsumexp(X, dim=1),
        jax=lambda X: L.jax.nn.logsumexp(X, axis=1),
        onnx=lambda g, X: g.op("ReduceLogSumExp", X, g.i64([1]), keepdims=0),
        note="numexpr: row max with NumPy, then numexpr sum(exp(X-m), axis=1)"),
    Workload(
        "softmax_rows", "softmax over rows of X (N/1024, 1024), max-shifted", _rows_make,
        ref=_np_softmax,
        numpy=_np_softmax,
        lt_variants=[("nn.softmax", lambda X: L.lt.nn.softmax(X, axis=1)),
                     ("exp/sum/divide", _lt_softmax)],
        numexpr=_ne_softmax,
        torch=lambda X: L.torch.softmax(X, dim=1),
        jax=lambda X: L.jax.nn.softmax(X, axis=1),
        onnx=lambda g, X: g.op("Softmax", X, axis=1),
        note="numexpr: exp and divide with numexpr, max and sum with NumPy"),
    Workload(
        "mean_gelu", "mean(gelu(x)) over the whole vector (erf GELU)", _vec("x"),
        ref=lambda x: np.mean(_gelu64(x)),
        numpy=lambda x: np.mean(F32(0.5) * x * (1 + L.erf(x / SQRT2))),
        lt_variants=[("mean(nn.gelu)", lambda x: L.lt.mean(L.lt.nn.gelu(x)))],
        numexpr=None,
        torch=lambda x: L.F.gelu(x).mean(),
        jax=lambda x: L.jnp.mean(L.jax.nn.gelu(x, approximate=False)),
        onnx=lambda g, x: g.op("ReduceMean", g.op("Mul", g.op("Mul", x, g.c(0.5)), g.op(
            "Add", g.c(1.0), g.op("Erf", g.op("Div", x, g.c(SQRT2))))), keepdims=0),
        note="numexpr has no erf"),
]

# The workloads above that call a library function (lt.nn.gelu, F.silu, ONNX HardSwish...),
# written out as a user writes them, each library in its own spelling; each runs right after
# its called form.
_WRITTEN_OUT = {
    "gelu_erf": dict(
        formula="0.5 * x * (1 + erf(x / sqrt(2))), written out",
        lt=lambda x: 0.5 * x * (1 + L.lt.erf(x / R_SQRT2)),
        torch=lambda x: 0.5 * x * (1 + L.torch.erf(x / R_SQRT2)),
        jax=lambda x: 0.5 * x * (1 + L.jax.scipy.special.erf(x / R_SQRT2))),
    "gelu_tanh": dict(
        formula="0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715*x*x*x))), written out",
        lt=lambda x: 0.5 * x * (1 + L.lt.tanh(R_TANH * (x + 0.044715 * x * x * x))),
        torch=lambda x: 0.5 * x * (1 + L.torch.tanh(R_TANH * (x + 0.044715 * x * x * x))),
        jax=lambda x: 0.5 * x * (1 + L.jnp.tanh(R_TANH * (x + 0.044715 * x * x * x)))),
    "hardswish": dict(
        formula="x * clip(x / 6 + 0.5, 0, 1), written out",
        lt=lambda x: x * L.lt.clip(x / 6 + 0.5, 0, 1),
        torch=lambda x: x * L.torch.clamp(x / 6 + 0.5, 0, 1),
        jax=lambda x: x * L.jnp.clip(x / 6 + 0.5, 0, 1),
        onnx=lambda g, x: g.op("Mul", x, g.op("Clip", g.op("Add", g.op("Div", x, g.c(6.0)),
                                                           g.c(0.5)), g.c(0.0), g.c(1.0)))),
    "silu": dict(
        formula="x / (1 + exp(-x)), written out",
        lt=lambda x: x / (1 + L.lt.exp(-x)),
        torch=lambda x: x / (1 + L.torch.exp(-x)),
        jax=lambda x: x / (1 + L.jnp.exp(-x)),
        onnx=lambda g, x: g.op("Div", x, g.op("Add", g.c(1.0), g.op("Exp", g.op("Neg", x))))),
    "bias_relu": dict(
        formula="maximum(X + b, 0), X (N/1024, 1024), b (N/1024, 1), written out",
        lt=lambda X, b: L.lt.maximum(X + b, 0),
        torch=lambda X, b: L.torch.clamp(X + b, min=0),
        jax=lambda X, b: L.jnp.maximum(X + b, 0),
        onnx=lambda g, X, b: g.op("Max", g.op("Add", X, b), g.c(0.0))),
}
WORKLOADS = [form for w in _AS_CALLED
             for form in ([w, w.written_out(**_WRITTEN_OUT[w.name])] if w.name in _WRITTEN_OUT
                          else [w])]
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

