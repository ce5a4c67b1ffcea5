"""Small calls against NumPy, side by side in one process: the whole call (recording, plan
lookup, kernel, result) of a one-op expression, a short chain, a transpose and views, at
10^3 elements, with NumPy's own call of the same expression timed in alternation.

    python benchmarks/bench_small_calls.py [--rounds 41] [--calls 2000] [--mode fast]

Prints the medians over the rounds (µs per call) and lazytensor's time over NumPy's (< 1:
faster than NumPy).  The host's speed drifts between runs: read the ratio, not the times.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def cases(lt):
    """name -> (NumPy's call, lazytensor's call), both giving a NumPy array or scalar."""
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(1000).astype(np.float32) for _ in range(3))
    X, Y = (rng.standard_normal((32, 32)).astype(np.float32) for _ in range(2))
    A, B, C, XT, YT = (lt.asarray(v) for v in (a, b, c, X, Y))
    return {
        "x + 1": (lambda: a + 1, lambda: (A + 1).numpy()),
        "a*b+c": (lambda: a * b + c, lambda: (A * B + C).numpy()),
        "X.T + Y (32 x 32)": (lambda: X.T + Y, lambda: (XT.T + YT).numpy()),
        "x[1:] - x[:-1]": (lambda: a[1:] - a[:-1], lambda: (A[1:] - A[:-1]).numpy()),
        "X[2, 3]": (lambda: X[2, 3], lambda: XT[2, 3].numpy()),
        "float(X[2, 3])": (lambda: float(X[2, 3]), lambda: float(XT[2, 3])),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--calls", type=int, default=2000, help="calls per timed round")
    ap.add_argument("--mode", default="fast", choices=("fast", "exact"))
    args = ap.parse_args(argv)

    import lazytensor as lt
    lt.set_num_threads(1)
    print(f"# µs per call, medians of {args.rounds} rounds of {args.calls} calls, "
          f"NumPy and lazytensor ({args.mode} mode) alternating; kernel path {lt.kernel_path()}")
    with lt.mode(args.mode):
        for name, (numpy_call, lt_call) in cases(lt).items():
            times = ([], [])
            for _ in range(args.rounds):
                for fn, out in zip((numpy_call, lt_call), times):
                    t0 = time.perf_counter()
                    for _ in range(args.calls):
                        fn()
                    out.append((time.perf_counter() - t0) / args.calls * 1e6)
            np_med, lt_med = (statistics.median(t) for t in times)
            print(f"{name:20s} NumPy {np_med:7.3f}  lazytensor {lt_med:7.3f}  "
                  f"lazytensor/NumPy {lt_med / np_med:5.2f}")


if __name__ == "__main__":
    main()
