"""Complex chains: lazytensor (exact and fast mode) against NumPy, PyTorch and jax.

    python benchmarks/bench_complex.py [--sizes 1e3,1e7] [--dtypes complex64,complex128]
        [--peers torch,jax] [--threads 1] [--repeat R] [--smoke]

The workloads, each written as its library's users write it:

- ``exp(1j * phase) * amp + z``: a phasor from float phase and amplitude, added to a
  complex array;
- ``abs(f) ** 2`` and ``f.real**2 + f.imag**2``: the power spectrum of a stored complex
  array (an FFT's result), two spellings;
- ``z * w + v``: complex multiply-add;
- ``sum(conj(x) * y)``: the conjugated dot product (NumPy ``np.vdot``, PyTorch
  ``torch.vdot``, jax ``jnp.vdot``, lazytensor ``lt.vecdot``).

By default complex64 at 10^3 and 10^7 and complex128 at 10^7 (``--sizes``/``--dtypes``
give a full grid instead).  Before timing, every library's result is checked against
NumPy's (a check of meaning, not of accuracy: tolerances are ~100 u of the operands'
magnitudes for the elementwise chains and 1e-2 (complex64) / 1e-9 (complex128) of
sum |x| |y| for the dot product); a library whose check fails is reported and not timed.
Each cell is the best of ``--repeat`` samples, a sample the mean of back-to-back calls
(more of them at small sizes); ``x NumPy`` is NumPy's time over the library's (above 1:
faster than NumPy).  Inputs are converted to each library's arrays before timing;
lazytensor's time includes recording the expression and evaluating it to an array,
PyTorch's is eager, jax's is a jitted function (compiled before timing), waited for.

Peers are optional: a missing one is skipped with a line saying so.  ``--threads`` sets
lazytensor's and PyTorch's threads and, for jax, XLA's intra-op threads (set before jax is
imported).  Timings on a shared or busy machine are not meaningful.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from _benchutil import (calls_per_sample, cpu_model, default_repeat, fmt_n, fmt_time,
                        git_commit, import_lazytensor, parse_sizes, timed_calls)

PART = {"complex64": np.float32, "complex128": np.float64}
RTOL = {"complex64": 1e-5, "complex128": 1e-13}          # elementwise: ~100 u
DOT_RTOL = {"complex64": 1e-2, "complex128": 1e-9}       # of sum |x| |y|


def inputs(n, dtype, seed=0):
    """The arrays of every workload, as NumPy arrays of ``dtype`` (and its part dtype)."""
    rng = np.random.default_rng(seed)
    part = PART[dtype]

    def c(scale=1.0):
        return (scale * (rng.standard_normal(n) + 1j * rng.standard_normal(n))).astype(dtype)

    x = c()
    return {"phase": (rng.random(n) * 2 * np.pi).astype(part),
            "amp": rng.random(n).astype(part), "z": c(), "w": c(), "v": c(), "f": c(10.0),
            # y correlated with x, so that sum(conj(x) * y) is of the size of sum |x| |y|
            # and a missing conjugation shows
            "x": x, "y": (x * (1 + 0.5j) + c(0.3)).astype(dtype)}


# name: (arrays read, the reference's error scale (NumPy, float64) for the check, per lib
# the function of its arrays)
WORKLOADS = {
    "exp(1j*phase)*amp + z": (
        ("phase", "amp", "z"), lambda a: np.abs(a["amp"]) + np.abs(a["z"]),
        {"numpy": lambda np_, d: np.exp(1j * d["phase"]) * d["amp"] + d["z"],
         "lt": lambda lt, d: lt.exp(1j * d["phase"]) * d["amp"] + d["z"],
         "torch": lambda torch, d: torch.exp(1j * d["phase"]) * d["amp"] + d["z"],
         "jax": lambda jnp, d: jnp.exp(1j * d["phase"]) * d["amp"] + d["z"]}),
    "abs(f)**2": (
        ("f",), lambda a: np.abs(a["f"]) ** 2,
        {"numpy": lambda np_, d: np.abs(d["f"]) ** 2,
         "lt": lambda lt, d: lt.abs(d["f"]) ** 2,
         "torch": lambda torch, d: d["f"].abs() ** 2,
         "jax": lambda jnp, d: jnp.abs(d["f"]) ** 2}),
    "f.real**2 + f.imag**2": (
        ("f",), lambda a: np.abs(a["f"]) ** 2,
        {"numpy": lambda np_, d: d["f"].real ** 2 + d["f"].imag ** 2,
         "lt": lambda lt, d: d["f"].real ** 2 + d["f"].imag ** 2,
         "torch": lambda torch, d: d["f"].real ** 2 + d["f"].imag ** 2,
         "jax": lambda jnp, d: d["f"].real ** 2 + d["f"].imag ** 2}),
    "z*w + v": (
        ("z", "w", "v"), lambda a: np.abs(a["z"]) * np.abs(a["w"]) + np.abs(a["v"]),
        {"numpy": lambda np_, d: d["z"] * d["w"] + d["v"],
         "lt": lambda lt, d: d["z"] * d["w"] + d["v"],
         "torch": lambda torch, d: d["z"] * d["w"] + d["v"],
         "jax": lambda jnp, d: d["z"] * d["w"] + d["v"]}),
    "sum(conj(x)*y)": (
        ("x", "y"), lambda a: np.sum(np.abs(a["x"]).astype(np.float64)
                                     * np.abs(a["y"]).astype(np.float64)),
        {"numpy": lambda np_, d: np.vdot(d["x"], d["y"]),
         "lt": lambda lt, d: lt.vecdot(d["x"], d["y"]),
         "torch": lambda torch, d: torch.vdot(d["x"], d["y"]),
         "jax": lambda jnp, d: jnp.vdot(d["x"], d["y"])}),
}


class Lib:
    """One column: how to convert inputs, run a workload to a finished result, read it."""

    def __init__(self, key, label, module, put, finish, to_numpy, around=None):
        self.key, self.label, self.module = key, label, module
        self.put, self.finish, self.to_numpy = put, finish, to_numpy
        self.around = around        # a context manager factory (lazytensor's mode)

    def runner(self, workload, arrays):
        names, _, fns = WORKLOADS[workload]
        body = fns["lt" if self.key.startswith("lt") else self.key]
        d = {k: self.put(arrays[k]) for k in names}
        if self.key == "jax":   # positional arguments: jax dispatches keywords slower
            import jax
            jitted = jax.jit(lambda *args: body(self.module, dict(zip(names, args))))
            args = [d[k] for k in names]
            return lambda: self.finish(jitted(*args))
        if self.around is not None:
            def call():
                with self.around():
                    return self.finish(body(self.module, d))
            return call
        return lambda: self.finish(body(self.module, d))


def load_libs(peers, threads, notes):
    lt = import_lazytensor()
    lt.set_num_threads(threads)
    libs = [Lib("numpy", "NumPy", np, lambda a: a, lambda r: r, np.asarray)]
    for mode in ("exact", "fast"):
        libs.append(Lib(f"lt-{mode}", f"lt {mode}", lt, lt.asarray, np.asarray, np.asarray,
                        around=(lambda m=mode: lt.mode(m))))
    notes.append(f"lazytensor {git_commit()}, kernel path {lt.kernel_path()}, "
                 f"{threads} thread(s)")
    if "torch" in peers:
        try:
            import torch
        except ImportError as exc:
            notes.append(f"PyTorch skipped: not installed ({exc})")
        else:
            torch.set_num_threads(threads)
            libs.append(Lib("torch", "PyTorch", torch, torch.from_numpy,
                            lambda r: r, lambda r: r.numpy()))
            notes.append(f"torch {torch.__version__} (eager), {threads} thread(s)")
    if "jax" in peers:
        if threads == 1:   # before jax is imported: XLA reads it once
            os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                       " --xla_cpu_multi_thread_eigen=false"
                                       " intra_op_parallelism_threads=1").strip()
        try:
            import jax
            import jax.numpy as jnp
        except ImportError as exc:
            notes.append(f"jax skipped: not installed ({exc})")
        else:
            jax.config.update("jax_enable_x64", True)   # complex128
            libs.append(Lib("jax", "jax.jit", jnp, jax.device_put,
                            lambda r: r.block_until_ready(), np.asarray))
            notes.append(f"jax {jax.__version__} (jit, x64 enabled)")
    return libs


def check(workload, got, want, scale, dtype):
    """None when ``got`` matches NumPy's ``want``, else what is wrong."""
    got = np.asarray(got)
    if got.shape != np.shape(want):
        return f"shape {got.shape}, NumPy's {np.shape(want)}"
    if got.dtype != np.asarray(want).dtype:
        return f"dtype {got.dtype}, NumPy's {np.asarray(want).dtype}"
    rtol = DOT_RTOL[dtype] if workload.startswith("sum") else RTOL[dtype]
    err = np.abs(got.astype(np.complex128) - np.asarray(want).astype(np.complex128))
    bad = ~(err <= rtol * scale)
    if np.any(bad):
        return (f"{int(np.sum(bad))} value(s) off by more than {rtol:g} of their scale "
                f"(worst {np.max(err / scale):.3g})")
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=parse_sizes, default=None,
                    help="sizes (default: complex64 at 1e3 and 1e7, complex128 at 1e7)")
    ap.add_argument("--dtypes", default=None, help="complex64,complex128")
    ap.add_argument("--peers", default="torch,jax", help="torch,jax (or none)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--smoke", action="store_true",
                    help="a short run: 10^3 and 10^5, 2 samples (checks that all runs)")
    a = ap.parse_args(argv)
    dtypes = (a.dtypes or "complex64,complex128").split(",")
    for dt in dtypes:
        if dt not in PART:
            ap.error(f"not a complex dtype: {dt}")
    if a.smoke:
        grid = [(dt, n) for dt in dtypes for n in (a.sizes or [1000, 100_000])]
    elif a.sizes or a.dtypes:
        grid = [(dt, n) for dt in dtypes for n in (a.sizes or [1000, 10 ** 7])]
    else:
        grid = [("complex64", 1000), ("complex64", 10 ** 7), ("complex128", 10 ** 7)]
    notes = []
    libs = load_libs([p for p in a.peers.split(",") if p and p != "none"], a.threads, notes)
    print(f"bench_complex: {cpu_model()}")
    for note in notes:
        print(f"  {note}")
    if a.smoke:
        print("  smoke run: 2 samples per cell; not a measurement")
    for dtype, n in grid:
        arrays = inputs(n, dtype)
        repeat = 2 if a.smoke else a.repeat or default_repeat(n)
        k = calls_per_sample(n)
        print(f"\n{dtype}, n = {fmt_n(n)}: best of {repeat} samples of {k} call(s)")
        print(f"  {'workload':24s}" + "".join(f"{lib.label:>18s}" for lib in libs))
        for name, (_, scale_of, fns) in WORKLOADS.items():
            want = fns["numpy"](np, arrays)
            scale = scale_of(arrays)
            times, cells = {}, []
            for lib in libs:
                try:
                    run = lib.runner(name, arrays)
                    problem = check(name, lib.to_numpy(run()), want, scale, dtype)
                except Exception as exc:   # a peer without the op: say so, time nothing
                    problem = f"{type(exc).__name__}: {exc}"
                if problem:
                    print(f"  ! {lib.label} {name}: check failed: {problem}", file=sys.stderr)
                    cells.append("check failed")
                    continue
                times[lib.key] = min(timed_calls(run, k) for _ in range(repeat))
                cells.append(fmt_time(times[lib.key]))
            print(f"  {name:24s}" + "".join(f"{c:>18s}" for c in cells))
            base = times.get("numpy")
            ratios = [f"{base / times[lib.key]:.2f}x" if base and lib.key in times else "–"
                      for lib in libs]
            print(f"  {'  x NumPy':24s}" + "".join(f"{r:>18s}" for r in ratios))


if __name__ == "__main__":
    main()
