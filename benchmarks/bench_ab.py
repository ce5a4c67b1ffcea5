"""Two builds of lazytensor side by side in one process: the installed one and an older one.

On a shared machine the speed drifts by tens of percent between runs, so a change is timed
against the build before it in one process, calls alternating, and the ratio is read.  The
old build is a copy of its ``lazytensor`` package directory renamed ``lazytensor_old``:

    git worktree add /tmp/oldwt <rev> && (cd /tmp/oldwt && python setup.py build_ext --inplace)
    mkdir -p /tmp/oldpkg && cp -r /tmp/oldwt/lazytensor /tmp/oldpkg/lazytensor_old
    python benchmarks/bench_ab.py --old /tmp/oldpkg --n 1e6 --workloads max_rows,sum --modes exact

The installed build is imported first: both compiled modules register under the name they
were built with, and the first import decides which one ``lazytensor`` gets.

``--flush MiB`` writes a buffer of that size before each timed call (as in bench_stores.py), so
that a large input comes from memory rather than from a large L3.  ``--record-only`` times the
recording of each expression alone (built, never evaluated; reductions evaluate their input
when called, so use it on elementwise workloads).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from _benchutil import Flush


def workloads(lt, n: int):
    """name -> zero-argument function of float32 inputs of n elements (rows of 1024; square
    for transpose_add_square)."""
    rng = np.random.default_rng(0)
    x = lt.asarray((rng.standard_normal(n) * 2).astype(np.float32))
    y, z = (lt.asarray(rng.standard_normal(n).astype(np.float32)) for _ in range(2))
    X = lt.asarray(rng.standard_normal((max(n // 1024, 1), 1024)).astype(np.float32))
    Y = lt.asarray(rng.standard_normal((1024, max(n // 1024, 1))).astype(np.float32))
    b = lt.asarray(rng.standard_normal((max(n // 1024, 1), 1)).astype(np.float32))
    side = max(int(round(n ** 0.5)), 1)
    Xs, Ys = (lt.asarray(rng.standard_normal((side, side)).astype(np.float32)) for _ in range(2))
    far = lt.asarray(rng.uniform(-15, -13, n).astype(np.float32))   # Gelu's subnormal results

    def softmax():
        e = lt.exp(X - lt.max(X, axis=1, keepdims=True))
        return e / lt.sum(e, axis=1, keepdims=True)

    def logsumexp():
        m = lt.max(X, axis=1, keepdims=True)
        return lt.log(lt.sum(lt.exp(X - m), axis=1)) + lt.reshape(m, (-1,))

    return {
        "exp": lambda: lt.exp(x),
        "erf": lambda: lt.erf(x),
        "x+1": lambda: x + 1,
        "a*b+c": lambda: x * y + z,
        "hardswish": lambda: lt.nn.hardswish(x),
        "bias_relu": lambda: lt.nn.relu(X + b),
        "where": lambda: lt.where(x < y, 2 * x, y - 1),
        "silu": lambda: x * lt.nn.sigmoid(x),
        "gelu": lambda: lt.nn.gelu(x),
        "log": lambda: lt.log(lt.abs(x)),
        "log1p": lambda: lt.log1p(lt.abs(x)),
        "log_both_signs": lambda: lt.log(x),          # half NaN: outside the first pass's range
        "log1p_both_signs": lambda: lt.log1p(x),
        "gelu_far_left": lambda: lt.nn.gelu(far),
        "gelu_tanh": lambda: lt.nn.gelu(x, approximate="tanh"),
        # activations written out by hand (the fused bodies of ops.FUSED_BODIES)
        "gelu_erf_expr": lambda: 0.5 * x * (1 + lt.erf(x / 2 ** 0.5)),
        "gelu_tanh_expr": lambda: 0.5 * x * (1 + lt.tanh((2 / np.pi) ** 0.5
                                                         * (x + 0.044715 * x * x * x))),
        "silu_expr": lambda: x / (1 + lt.exp(-x)),
        "exp_log1p": lambda: lt.exp(-x * x) * lt.log1p(lt.abs(x)),
        "transpose_add": lambda: X.T + Y,
        "transpose_add_square": lambda: Xs.T + Ys,
        # views of a caller's array in the expression, and alone (with --record-only)
        "diff": lambda: x[1:] - x[:-1],
        "column_scale": lambda: Xs[:, 0] * 2,
        "reshape_scale": lambda: x.reshape(-1, 8) * 2,
        "view_slice": lambda: x[1:],
        "view_column": lambda: Xs[:, 0],
        "view_T": lambda: Xs.T,
        "view_transpose": lambda: Xs.transpose(),
        "view_reshape": lambda: x.reshape(-1, 8),
        "element": lambda: Xs[2, 3],
        "quantize": lambda: lt.astype(lt.clip(lt.round(x / 0.05) + 128, 0, 255), lt.uint8),
        "softmax": softmax,
        "logsumexp": logsumexp,
        "nn_softmax": lambda: lt.nn.softmax(X, axis=1),
        "nn_logsumexp": lambda: lt.nn.logsumexp(X, axis=1),
        "mean_gelu": lambda: lt.mean(lt.nn.gelu(x)),
        "sum": lambda: lt.sum(x),
        "max_rows": lambda: lt.max(X, axis=1),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="folder holding the lazytensor_old package")
    ap.add_argument("--n", type=float, default=1e6, help="elements per input")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workloads", default="exp,softmax,logsumexp")
    ap.add_argument("--modes", default="fast,exact")
    ap.add_argument("--seconds", type=float, default=3.0, help="per workload and mode")
    ap.add_argument("--record-only", action="store_true",
                    help="time building the expression, without evaluating it")
    Flush.add_option(ap)
    args = ap.parse_args(argv)
    flush = Flush(args.flush)

    import lazytensor as new                      # first: see the module docstring
    sys.path.insert(0, args.old)
    import lazytensor_old as old

    n = int(args.n)
    builds = {"new": new, "old": old}
    funcs = {}
    for tag, lt in builds.items():
        lt.set_num_threads(args.threads)
        funcs[tag] = workloads(lt, n)
    call = (lambda fn: fn()) if args.record_only else (lambda fn: np.asarray(fn()))
    print(f"# n = {n}, {args.threads} thread(s); ns per element, calls alternating; "
          "ratio new/old of the medians and of the minima"
          + (" (recording only)" if args.record_only else "") + flush.note)
    for mode in args.modes.split(","):
        for name in args.workloads.split(","):
            times = {"new": [], "old": []}
            for tag, lt in builds.items():
                with lt.mode(mode):
                    np.asarray(funcs[tag][name]())    # plan and pool warm-up
            start = time.time()
            while time.time() - start < args.seconds:
                for tag, lt in builds.items():
                    with lt.mode(mode):
                        flush()
                        t0 = time.perf_counter()
                        call(funcs[tag][name])
                        times[tag].append(time.perf_counter() - t0)
            a, b = (np.array(times[t]) / n * 1e9 for t in ("new", "old"))
            print(f"{mode:5s} {name:10s} new min {a.min():7.3f} med {np.median(a):7.3f} | "
                  f"old min {b.min():7.3f} med {np.median(b):7.3f} | new/old med "
                  f"{np.median(a) / np.median(b):5.2f} min {a.min() / b.min():5.2f}")


if __name__ == "__main__":
    main()
