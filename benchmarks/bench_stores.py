"""Streaming stores against normal stores for large outputs, or prefetching the inputs
against not, both ways in one process.

Each workload's kernels are built once; then calls alternate between the two settings
(``--knob stores``: ``lt_program.plain_stores`` set to 0 and to 3 on the kernels' call
structures; ``--knob prefetch``: ``lt_program.prefetch`` set to 3 and to 0; ``--knob both``:
the four combinations) for a few
seconds, and the medians are compared.  The rules that pick one way
(``lazytensor/_engine/cost.py``) were set from these figures.

    python benchmarks/bench_stores.py --n 1e7 --threads 1 --mode fast --workloads x+1,gelu
    python benchmarks/bench_stores.py --knob prefetch --workloads a*b+c,exp_log1p
    python benchmarks/bench_stores.py --knob both --workloads where    # the four combinations

``--flush MiB`` writes a buffer of that size before each timed call, so that the call finds
its data in memory rather than in a large L3 (as in bench_peers.py, where the other
libraries' calls come between two of lazytensor's).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import lazytensor as lt
from lazytensor._engine import kernel as _kernel
from lazytensor._api.elementwise import apply

from _benchutil import Flush


def workloads(n: int):
    rng = np.random.default_rng(0)
    x = lt.asarray((rng.standard_normal(n) * 2).astype(np.float32))
    y, z, w = (lt.asarray(rng.standard_normal(n).astype(np.float32)) for _ in range(3))
    u = lt.asarray(rng.uniform(0.05, 0.95, n).astype(np.float32))   # in log's and atanh's domain
    v = lt.asarray(rng.uniform(1.0, 20.0, n).astype(np.float32))    # in acosh's
    return {
        "x+1": lambda: x + 1,
        "a*b+c": lambda: x * y + z,
        "a+b+c+d": lambda: x + y + z + w,
        "exp": lambda: lt.exp(x),
        "expm1": lambda: lt.expm1(x),
        "log": lambda: lt.log(u),
        "tan": lambda: lt.tan(x),
        "asin": lambda: lt.asin(u),
        "acos": lambda: lt.acos(u),
        "atan": lambda: lt.atan(x),
        "atan2": lambda: lt.atan2(x, y),
        "acosh": lambda: lt.acosh(v),
        "atanh": lambda: lt.atanh(u),
        "nextafter": lambda: lt.nextafter(x, y),
        "fmod": lambda: apply("fmod", x, y),        # ONNX Mod's fmod=1 (lazytensor.onnx)
        "sigmoid": lambda: lt.nn.sigmoid(x),
        "silu": lambda: x * lt.nn.sigmoid(x),
        "nn.silu": lambda: lt.nn.silu(x),
        "tanh": lambda: lt.tanh(x),
        "sin": lambda: lt.sin(x),
        "cos": lambda: lt.cos(x),
        "erf": lambda: lt.erf(x),
        "gelu": lambda: lt.nn.gelu(x),
        "gelu_tanh": lambda: lt.nn.gelu(x, approximate="tanh"),
        "gelu_erf_expr": lambda: 0.5 * x * (1 + lt.erf(x / 2 ** 0.5)),   # a fused body
        "silu_expr": lambda: x / (1 + lt.exp(-x)),
        "hardswish": lambda: lt.nn.hardswish(x),
        "exp_log1p": lambda: lt.exp(-x * x) * lt.log1p(lt.abs(x)),
        "quantize": lambda: lt.astype(lt.clip(lt.round(x / 0.05) + 128, 0, 255), lt.uint8),
        "where": lambda: lt.where(x < y, 2 * x, y - 1),
        "bias_relu": lambda: lt.maximum(lt.reshape(x, (-1, 1000)) + z[:1000], 0),
        "sum": lambda: lt.sum(x),
        "sum(a+b+c)": lambda: lt.sum(x + y + z),
        "mean_gelu": lambda: lt.mean(lt.nn.gelu(x)),
        "sum_exp": lambda: lt.sum(lt.exp(x)),
        "max_rows": lambda: lt.max(lt.reshape(x, (-1, 1000)), axis=1),
    }

# per knob: its settings, each a name and the lt_program fields it sets; the first is the
# baseline of the printed ratios
KNOBS = {
    "stores": (("streaming", {"plain_stores": 0}), ("normal", {"plain_stores": 3})),
    "prefetch": (("prefetch", {"prefetch": 3}), ("none", {"prefetch": 0})),
    "both": (("stream+prefetch", {"plain_stores": 0, "prefetch": 3}),
             ("stream", {"plain_stores": 0, "prefetch": 0}),
             ("normal+prefetch", {"plain_stores": 3, "prefetch": 3}),
             ("normal", {"plain_stores": 3, "prefetch": 0})),
}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--mode", choices=("fast", "exact"), default="fast")
    ap.add_argument("--workloads", default=None, help="comma-separated; default: all")
    ap.add_argument("--seconds", type=float, default=4.0, help="per workload")
    ap.add_argument("--knob", choices=tuple(KNOBS), default="stores")
    Flush.add_option(ap)
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
    settings = KNOBS[args.knob]
    flush = Flush(args.flush)
    print(f"# n = {n}, {args.threads} thread(s), {args.mode} mode; ns per element, medians"
          + flush.note)
    for name in (args.workloads.split(",") if args.workloads else w):
        fn = w[name]
        made.clear()
        fn().numpy()                       # builds (or finds) the kernels
        kernels = list(made)
        times = {label: [] for label, _ in settings}
        end = time.time() + args.seconds
        while time.time() < end or not times[settings[-1][0]]:
            for label, fields in settings:
                for k in kernels:
                    for field, value in fields.items():
                        setattr(k._proto, field, value)
                        setattr(k._call[0], field, value)
                flush()
                t0 = time.perf_counter()
                fn().numpy()
                times[label].append(time.perf_counter() - t0)
        med = {label: np.median(t) / n * 1e9 for label, t in times.items()}
        base = settings[0][0]
        print(f"{name:10s} " + "  ".join(f"{label} {m:.3f}" for label, m in med.items())
              + "  " + "  ".join(f"{label}/{base} {med[label] / med[base]:.2f}"
                                 for label, _ in settings[1:])
              + ("" if kernels else "  (kernel kept from before: not switched)"))
    _kernel.CompiledKernel.__init__ = init


if __name__ == "__main__":
    main()
