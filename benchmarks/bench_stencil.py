"""The heat stencil of docs/memory-model.md on lazytensor and on NumPy, side by side.

    python benchmarks/bench_stencil.py [--n 512] [--steps 50] [--repeats 7] [--threads 1]

Each step is ``v = u.copy(); v[1:-1, 1:-1] = 0.25 * (four shifted views of u); u = v``,
written the same way for both libraries (float32).  Prints the median time of the 50 steps
for each, the ratio, the kernels lazytensor ran per step (one: the four views are read in
place by one fused kernel) and whether the results are the same bits.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import lazytensor as lt
from _benchutil import cpu_model, fmt_time


def run(xp, u0, steps):
    u = xp.asarray(u0.copy())
    quarter = np.float32(0.25)
    for _ in range(steps):
        v = u.copy()
        v[1:-1, 1:-1] = quarter * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u = v
    return np.asarray(u)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--mode", default="exact", choices=["exact", "fast"])
    args = p.parse_args()
    lt.set_num_threads(args.threads)
    lt.set_mode(args.mode)
    u0 = np.random.default_rng(0).random((args.n, args.n), dtype=np.float32)
    want, got = run(np, u0, args.steps), run(lt, u0, args.steps)     # warm-up, and bits
    before = lt.stats()["kernels"]
    run(lt, u0, args.steps)
    kernels = (lt.stats()["kernels"] - before) / args.steps
    times = {"numpy": [], "lazytensor": []}
    for _ in range(args.repeats):              # alternating, so both see the same machine
        for name, xp in (("numpy", np), ("lazytensor", lt)):
            t0 = time.perf_counter()
            run(xp, u0, args.steps)
            times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"# {cpu_model()}; {args.n}x{args.n} float32, {args.steps} steps, "
          f"{args.threads} thread(s), {args.mode} mode; medians of {args.repeats}")
    print(f"numpy       {fmt_time(med['numpy'])}")
    print(f"lazytensor  {fmt_time(med['lazytensor'])}   ({kernels:g} kernel(s) per step)")
    print(f"lazytensor/numpy  {med['lazytensor'] / med['numpy']:.2f}")
    print(f"same bits as NumPy: {np.array_equal(want.view(np.uint32), got.view(np.uint32))}")


if __name__ == "__main__":
    main()
