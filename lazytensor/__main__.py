"""The demo: a Gelu written from primitives over 10^7 float32, fused into one kernel,
timed next to NumPy (with SciPy's erf, or a vectorised math.erf when SciPy is absent).

    python -m lazytensor [--n N] [--repeat R]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

import lazytensor as lt


def _numpy_erf():
    try:
        from scipy.special import erf

        return erf, "scipy.special.erf"
    except ImportError:
        return np.vectorize(math.erf, otypes=[np.float32]), "math.erf (vectorised, slow)"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m lazytensor", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="number of float32 elements")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs of each side")
    args = ap.parse_args(argv)

    x_np = np.random.default_rng(0).standard_normal(args.n, dtype=np.float32)
    x = lt.asarray(x_np)
    erf, erf_name = _numpy_erf()

    def lazy():
        y = 0.5 * x * (1 + lt.erf(x / np.float32(2 ** 0.5)))
        return y.numpy()

    def eager():
        return 0.5 * x_np * (1 + erf(x_np / np.float32(2 ** 0.5)))

    print(lt.explain(0.5 * x * (1 + lt.erf(x / np.float32(2 ** 0.5)))))
    ref = eager()
    got = lazy()
    lt_times, np_times = [], []
    for _ in range(args.repeat):       # interleaved, so drift hits both sides alike
        t0 = time.perf_counter(); lazy(); lt_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter(); eager(); np_times.append(time.perf_counter() - t0)
    t_lt, t_np = statistics.median(lt_times), statistics.median(np_times)
    err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
    print()
    print(f"Gelu (erf form, written from primitives) over {args.n:,} float32 elements")
    print(f"  kernel path: {lt.kernel_path()}, mode: {lt.get_mode()}, threads: {lt.get_num_threads()}")
    print(f"  lazytensor (one fused kernel): {t_lt * 1e3:8.2f} ms  (median of {args.repeat})")
    print(f"  NumPy + {erf_name}: {t_np * 1e3:8.2f} ms")
    print(f"  ratio NumPy / lazytensor: {t_np / t_lt:.2f}x;  max |difference| {err:.3g}")


if __name__ == "__main__":
    main()
