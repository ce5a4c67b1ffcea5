"""Small calls right after scalar work: lazytensor on each kernel path against NumPy.

A sample is K calls timed together right after ``--busy-ms`` of a Python busy loop (as when a
program does other work between calls, or the garbage collector has run), and K calls timed
together after 300 more calls back to back; the table gives the medians of the two per call
and their ratio.  The variants take turns within each round, and each pays its own busy loop.
Each lazytensor call enters ``lt.mode(...)`` itself, as bench_peers.py's calls do: in one run
with the mode set once around the loop instead (calls about 0.3 us shorter), no workload
showed the effect below, so how closely the calls follow one another matters too.

    python benchmarks/bench_after_scalar.py --n 1e3 --workloads exp_log1p,silu,gelu_tanh

On the Xeon with AVX-512 some fused kernels heavy in 512-bit arithmetic (exp(-x*x)*log1p|x|
above all) took about twice their back-to-back time for the first hundred or so calls after
the busy loop, on the AVX-512 path only (benchmarks/README.md).  This is a measurement, not a
test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from _benchutil import import_lazytensor, parse_sizes
from bench_ab import workloads


def numpy_workloads(n: int):
    """The NumPy form of a few of bench_ab's workloads, on the same inputs."""
    rng = np.random.default_rng(0)       # as bench_ab.workloads draws them
    x = (rng.standard_normal(n) * 2).astype(np.float32)
    y, z = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    return {
        "exp_log1p": lambda: np.exp(-x * x) * np.log1p(np.abs(x)),
        "a*b+c": lambda: x * y + z,
        "silu": lambda: x / (1 + np.exp(-x)),
        "exp": lambda: np.exp(x),
    }


def busy(ms: float) -> None:
    end = time.perf_counter() + ms / 1e3
    while time.perf_counter() < end:
        pass


def per_call(fn, k: int) -> float:
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=parse_sizes, default=[1000], help="elements per input")
    ap.add_argument("--workloads", default="exp_log1p,silu,a*b+c")
    ap.add_argument("--modes", default="fast,exact")
    ap.add_argument("--busy-ms", type=float, default=5.0)
    ap.add_argument("--calls", type=int, default=30, help="K, calls per timed sample")
    ap.add_argument("--rounds", type=int, default=25)
    args = ap.parse_args(argv)
    lt = import_lazytensor()
    print(f"# busy loop {args.busy_ms} ms, then {args.calls} calls timed together; "
          f"back to back: {args.calls} calls after 300 more; medians of {args.rounds} rounds, "
          f"us per call")
    for n in args.n:
        lt_fns, np_fns = workloads(lt, n), numpy_workloads(n)
        for name in args.workloads.split(","):
            variants = []      # (label, settings of its samples, call)
            for mode in args.modes.split(","):
                for path in lt.kernel_paths():
                    def call(fn=lt_fns[name], mode=mode):
                        with lt.mode(mode):          # per call, as bench_peers.py calls it
                            return fn().numpy()
                    variants.append((f"lt {mode} {path}", dict(kernel_path=path, num_threads=1),
                                     call))
            if name in np_fns:
                variants.append(("NumPy", {}, np_fns[name]))
            after = {label: [] for label, _, _ in variants}
            steady = {label: [] for label, _, _ in variants}
            for _ in range(args.rounds):
                for label, settings, fn in variants:
                    with lt.config(**settings):
                        fn()
                        busy(args.busy_ms)
                        after[label].append(per_call(fn, args.calls))
                        per_call(fn, 300)
                        steady[label].append(per_call(fn, args.calls))
            for label, _, _ in variants:
                a, s = statistics.median(after[label]), statistics.median(steady[label])
                print(f"n={n:<8d} {name:10s} {label:18s} after busy {a * 1e6:7.2f}  "
                      f"back to back {s * 1e6:7.2f}  ratio {a / s:5.2f}")


if __name__ == "__main__":
    main()
