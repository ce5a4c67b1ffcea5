"""The implementations bench_peers.py times: NumPy, lazytensor (exact, fast, ``lt.jit``),
numexpr, ONNX Runtime, PyTorch eager and torch.compile in this process, and jax.jit in a
helper process pinned to T CPUs; and ``load_peers()``, which imports the peers asked for.

An implementation family prepares, for one workload, size and thread count, a list of
variants.  A variant's setup() does any compile/session work and returns a no-argument
callable giving a fully materialised NumPy array (or a jax worker handle).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time

import numpy as np

import _peers_libs as L
from _benchutil import git_commit, import_lazytensor, timed_calls, usable_cpus
from _peers_workloads import F32, NE_CONST, WL, check, make_inputs, reference


class Skip(Exception):
    """This implementation does not do this workload (with the reason)."""


class Variant:
    """An implementation's call of a workload.  `prepare`, if given, runs untimed before each
    batch of calls: the state a program sets once, not per expression (lazytensor's mode:
    `with lt.mode(...)` around each call cost about 0.2 us, which a program does not pay
    per expression)."""

    def __init__(self, family, label, setup, prepare=None):
        self.family, self.label, self._setup = family, label, setup
        self._prepare = prepare or (lambda: None)
        self.call = None

    def first(self, wl, ref):
        """Setup + first call, timed together; returns (seconds, check dict)."""
        t0 = time.perf_counter()
        self._prepare()
        self.call = self._setup()
        out = self.call()
        t = time.perf_counter() - t0
        return t, check(wl, out, ref)

    def warm(self):
        self._prepare()
        self.call()

    def run_timed(self, k=1):
        self._prepare()
        return timed_calls(self.call, k)

    def close(self):
        self.call = None


class NumpyImpl:
    key, label = "numpy", "NumPy"
    threads_note = "elementwise ufuncs are single-threaded"

    def version(self):
        return f"numpy {np.__version__}" + (f", scipy {L.scipy.__version__}" if L.scipy else "")

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
        return f"lazytensor {L.lt.__version__} (commit {git_commit()})"

    def variants(self, wl, inputs, threads):
        xs = [L.lt.asarray(v) for v in inputs.values()]
        out = []
        for vname, fn in wl.lt_variants:
            def setup(fn=fn):
                return lambda: fn(*xs).numpy()
            label = f"lt {self.mode}" + (f" {vname}" if len(wl.lt_variants) > 1 else "")
            out.append(Variant(self.key, label, setup, self.set_mode))
        return out

    def set_mode(self):
        L.lt.set_mode(self.mode)


class LazyJitImpl(LazyImpl):
    """lazytensor in fast mode with the workload's (first) function wrapped in ``lt.jit``:
    traced on the first call, its kernels replayed on the next ones."""

    key, label = "lt-jit", "lazytensor lt.jit"

    def __init__(self):
        super().__init__("fast")
        self.key = "lt-jit"

    def variants(self, wl, inputs, threads):
        xs = [L.lt.asarray(v) for v in inputs.values()]
        jitted = L.lt.jit(wl.lt_variants[0][1])

        def setup():
            return lambda: jitted(*xs).numpy()
        return [Variant(self.key, "lt fast jit", setup, self.set_mode)]


class NumexprImpl:
    key, label = "numexpr", "numexpr"
    threads_note = "numexpr.set_num_threads(T)"

    def version(self):
        return f"numexpr {L.ne.__version__}"

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
                fn = lambda: L.ne.evaluate(expr, local_dict=local).astype(cast)  # noqa: E731
            else:
                fn = lambda: L.ne.evaluate(expr, local_dict=local)  # noqa: E731
        return [Variant(self.key, "numexpr", lambda: fn)]


class TorchImpl:
    threads_note = "torch.set_num_threads(T)"

    def __init__(self, compiled):
        self.compiled = compiled
        self.key = "torch.compile" if compiled else "torch"
        self.label = "torch.compile" if compiled else "PyTorch eager"

    def version(self):
        return f"torch {L.torch.__version__}"

    def variants(self, wl, inputs, threads):
        ts = [L.torch.from_numpy(v) for v in inputs.values()]
        fn = wl.torch

        def setup():
            if self.compiled:
                L.torch._dynamo.reset()   # fresh compile for this shape and thread count
                cfn = L.torch.compile(fn, dynamic=False, fullgraph=True)
            else:
                cfn = fn

            def call():
                with L.torch.inference_mode():
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
        self.nodes.append(L.onnx.helper.make_node(kind, list(ins), [out], **attrs))
        return out

    def c(self, value):
        name = self._name("c")
        self.inits.append(L.onnx.numpy_helper.from_array(np.asarray(value, F32), name))
        return name

    def i64(self, values):
        name = self._name("k")
        self.inits.append(L.onnx.numpy_helper.from_array(np.asarray(values, np.int64), name))
        return name


ONNX_OPSET = 18


def build_onnx(wl, inputs, out_shape):
    g = OnnxGraph()
    out = wl.onnx(g, *inputs.keys())
    h = L.onnx.helper
    g_in = [h.make_tensor_value_info(k, L.onnx.TensorProto.FLOAT, list(v.shape))
            for k, v in inputs.items()]
    g.nodes.append(h.make_node("Identity", [out], ["out"]))
    elem = L.onnx.TensorProto.UINT8 if wl.out_dtype == np.uint8 else L.onnx.TensorProto.FLOAT
    g_out = [h.make_tensor_value_info("out", elem, list(out_shape))]
    graph = h.make_graph(g.nodes, wl.name, g_in, g_out, initializer=g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", ONNX_OPSET)])
    model.ir_version = 8
    L.onnx.checker.check_model(model)
    return model.SerializeToString()


class OrtImpl:
    key, label = "onnxruntime", "ONNX Runtime"
    threads_note = "SessionOptions.intra_op_num_threads = T, spinning off"

    def version(self):
        return f"onnxruntime {L.ort.__version__}, onnx {L.onnx.__version__} (opset {ONNX_OPSET})"

    def variants(self, wl, inputs, threads):
        model = build_onnx(wl, inputs, self._out_shape)

        def setup():
            so = L.ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            so.execution_mode = L.ort.ExecutionMode.ORT_SEQUENTIAL
            so.graph_optimization_level = L.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            sess = L.ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
            feeds = dict(inputs)
            return lambda: sess.run(None, feeds)[0]
        return [Variant(self.key, "ONNX Runtime", setup)]


# ---- jax, in a helper process pinned to T CPUs --------------------------------------------

class JaxWorker:
    """A child process running jax, pinned to `threads` CPUs, timed call by call."""

    def __init__(self, threads, seed):
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        self.proc = subprocess.Popen(
            [sys.executable, L.SCRIPT, "--jax-worker", str(threads),
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
    try:
        import jax
        import jax.numpy
        import jax.scipy.special  # noqa: F401  (the written-out erf GELU)
        L.jax, L.jnp = jax, jax.numpy
        try:
            from importlib.metadata import version as _dist_version
            jaxlib_v = _dist_version("jaxlib")
        except Exception:
            jaxlib_v = "?"
        version = f"jax {L.jax.__version__}, jaxlib {jaxlib_v}"
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
                args = [L.jax.device_put(v) for v in inputs.values()]
                fn = L.jax.jit(wl.jax)
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
                L.jax.clear_caches()
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
    impls, notes = [], []
    L.lt = import_lazytensor()
    impls.append(NumpyImpl())
    for mode in ("exact", "fast"):
        if f"lt-{mode}" in wanted:
            impls.append(LazyImpl(mode))
    if "lt-jit" in wanted:
        impls.append(LazyJitImpl())
    if "numexpr" in wanted:
        try:
            import numexpr
            L.ne = numexpr
            impls.append(NumexprImpl())
        except ImportError as exc:
            notes.append(f"numexpr skipped: {exc}")
    if "onnxruntime" in wanted:
        try:
            import onnx
            import onnx.numpy_helper  # noqa: F401
            import onnxruntime
            L.onnx, L.ort = onnx, onnxruntime
            impls.append(OrtImpl())
        except ImportError as exc:
            notes.append(f"ONNX Runtime skipped: {exc}")
    if "torch" in wanted or "torch.compile" in wanted:
        try:
            import torch
            import torch.nn.functional
            L.torch, L.F = torch, torch.nn.functional
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
    L.lt.set_num_threads(threads)
    for impl in impls:
        if impl.key == "numexpr":
            L.ne.set_num_threads(threads)
        elif impl.key in ("torch", "torch.compile"):
            L.torch.set_num_threads(threads)


