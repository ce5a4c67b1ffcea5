"""pow against an older build (the C library's pow) and NumPy, in one process, calls alternating.

    python benchmarks/bench_pow.py --old /tmp/oldpkg [--n 1000000] [--repeat 15]

``--old`` is a folder holding an older build's package renamed ``lazytensor_old`` (as for
bench_ab.py).  Prints, per case, ns per element (best of --repeat) for lazytensor (exact
mode), the old build (exact mode) and NumPy, on one thread.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from _benchutil import timed  # (benchmarks/ is on sys.path: the script's folder)


def cases(n):
    rng = np.random.default_rng(0)
    x32 = (rng.random(n) * 4 + 0.01).astype(np.float32)
    y32 = (rng.standard_normal(n) * 4).astype(np.float32)
    return {
        "f32 x ** y (tensors)": (x32, y32),
        "f32 x ** 2.5": (x32, np.float32(2.5)),
        "f32 x ** 3": (x32, np.float32(3)),
        "f64 x ** y (tensors)": (x32.astype(np.float64), y32.astype(np.float64)),
        "f64 x ** 2.5": (x32.astype(np.float64), np.float64(2.5)),
    }


def best(fn, repeat):
    return min(timed(fn)[0] for _ in range(repeat))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--old", required=True)
    p.add_argument("--n", type=int, default=10 ** 6)
    p.add_argument("--repeat", type=int, default=15)
    a = p.parse_args()
    import lazytensor as lt
    sys.path.insert(0, a.old)
    import lazytensor_old as old
    for m in (lt, old):
        m.set_num_threads(1)
    print(f"n = {a.n}, kernel path {lt.kernel_path()}, best of {a.repeat}, ns per element")
    print(f"{'case':24s} {'new':>8s} {'old (libm)':>11s} {'numpy':>8s}")
    for name, (x, y) in cases(a.n).items():
        row = []
        for m in (lt, old):
            X = m.asarray(x)
            Y = m.asarray(y) if isinstance(y, np.ndarray) else y
            row.append(best(lambda: (X ** Y).numpy(), a.repeat))
        row.append(best(lambda: np.power(x, y), a.repeat))
        print(f"{name:24s} " + " ".join(f"{t / a.n * 1e9:8.2f}" for t in row))


if __name__ == "__main__":
    main()
