"""Evaluation by blocks of rows against kernel by kernel, interleaved in one process.

    python benchmarks/bench_rows.py [--rows 9766] [--cols 1024] [--threads 1,2] [--rounds 9]

Row-wise workloads (softmax, logsumexp with keepdims, a layer norm) over float32, in fast and
exact mode: the median time per element of each evaluation order, and their ratio.  Both
orders give the same bits (tests/test_row_blocks.py); this only measures the time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import lazytensor as lt
from lazytensor._engine import rows as _rows


def softmax(X):
    e = lt.exp(X - lt.max(X, axis=1, keepdims=True))
    return e / lt.sum(e, axis=1, keepdims=True)


def logsumexp(X):
    m = lt.max(X, axis=1, keepdims=True)
    return lt.log(lt.sum(lt.exp(X - m), axis=1, keepdims=True)) + m


def layer_norm(X):
    d = X - lt.mean(X, axis=1, keepdims=True)
    return d / lt.sqrt(lt.mean(d * d, axis=1, keepdims=True) + 1e-5)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=9766)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args(argv)
    X = lt.asarray((2 * np.random.default_rng(0).standard_normal((args.rows, args.cols)))
                   .astype(np.float32))
    n = args.rows * args.cols
    print(f"{args.rows} x {args.cols} float32, ns per element, median of {args.rounds} "
          f"interleaved rounds")
    print("| workload | mode | threads | kernel by kernel | by blocks of rows | ratio |")
    print("|---|---|---|---|---|---|")
    for threads in [int(t) for t in args.threads.split(",")]:
        for mode in ("fast", "exact"):
            for f in (softmax, logsumexp, layer_norm):
                times = {False: [], True: []}
                with lt.config(num_threads=threads, mode=mode):
                    for _ in range(args.rounds):
                        for enabled in (False, True):
                            _rows.enabled = enabled
                            t0 = time.perf_counter()
                            np.asarray(f(X))
                            times[enabled].append(time.perf_counter() - t0)
                _rows.enabled = True
                a, b = (np.median(times[k]) / n * 1e9 for k in (False, True))
                print(f"| {f.__name__} | {mode} | {threads} | {a:.3f} | {b:.3f} | {a / b:.2f} |")


if __name__ == "__main__":
    main()
