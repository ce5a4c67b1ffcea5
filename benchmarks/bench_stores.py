"""Streaming stores against normal stores for large outputs, both in one process.

Each workload's kernel is built once; then calls alternate between the two ways of writing
its outputs (``lt_program.plain_stores`` set to 0 and to 3 on the kernel's call structure)
for a few seconds, and the medians are compared.  The rule that picks one way
(``lazytensor/_cost.py``) was set from these figures.

    python benchmarks/bench_stores.py --n 1e7 --threads 1 --mode fast --workloads x+1,gelu
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import lazytensor as lt
from lazytensor import _kernel


def workloads(n: int):
    rng = np.random.default_rng(0)
    x = lt.asarray((rng.standard_normal(n) * 2).astype(np.float32))
    y, z = (lt.asarray(rng.standard_normal(n).astype(np.float32)) for _ in range(2))
    return {
        "x+1": lambda: x + 1,
        "a*b+c": lambda: x * y + z,
        "exp": lambda: lt.exp(x),
        "sigmoid": lambda: lt.nn.sigmoid(x),
        "silu": lambda: x * lt.nn.sigmoid(x),
        "nn.silu": lambda: lt.nn.silu(x),
        "tanh": lambda: lt.tanh(x),
        "sin": lambda: lt.sin(x),
        "erf": lambda: lt.erf(x),
        "gelu": lambda: lt.nn.gelu(x),
        "gelu_tanh": lambda: lt.nn.gelu(x, approximate="tanh"),
        "exp_log1p": lambda: lt.exp(-x * x) * lt.log1p(lt.abs(x)),
        "quantize": lambda: lt.astype(lt.clip(lt.round(x / 0.05) + 128, 0, 255), lt.uint8),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--mode", choices=("fast", "exact"), default="fast")
    ap.add_argument("--workloads", default=None, help="comma-separated; default: all")
    ap.add_argument("--seconds", type=float, default=4.0, help="per workload")
    args = ap.parse_args(argv)
    n = int(args.n)
    lt.set_mode(args.mode)
    lt.set_num_threads(args.threads)
    made = []
    init = _kernel.CompiledKernel.__init__

    def spy(self, *a, **k):
        init(self, *a, **k)
        made.append(self)

    _kernel.CompiledKernel.__init__ = spy
    w = workloads(n)
    print(f"# n = {n}, {args.threads} thread(s), {args.mode} mode; ns per element, medians")
    for name in (args.workloads.split(",") if args.workloads else w):
        fn = w[name]
        made.clear()
        fn().numpy()                       # builds (or finds) the kernels
        kernels = list(made)
        times = {0: [], 3: []}
        end = time.time() + args.seconds
        while time.time() < end or not times[3]:
            for bits in times:
                for k in kernels:
                    k._proto.plain_stores = bits
                    k._call[0].plain_stores = bits
                t0 = time.perf_counter()
                fn().numpy()
                times[bits].append(time.perf_counter() - t0)
        s, p = (np.median(times[b]) / n * 1e9 for b in (0, 3))
        print(f"{name:10s} streaming {s:.3f}  normal {p:.3f}  normal/streaming {p / s:.2f}"
              + ("" if kernels else "  (kernel kept from before: not switched)"))
    _kernel.CompiledKernel.__init__ = init


if __name__ == "__main__":
    main()
