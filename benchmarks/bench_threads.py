"""Two threads against one at small and middle sizes, in one process, calls alternating.

Whether a second thread pays depends on more than the work: a worker asleep on a virtual CPU
takes tens of microseconds to wake, one awake (lingering after a job) joins at once.  So
each workload is timed two ways: calls back to back (a loop over lazytensor calls), and
calls each after ``--gap-us`` microseconds of other work (a busy wait that touches no
memory, as when other code runs between the calls):

    python benchmarks/bench_threads.py --sizes 1e4,3e4,1e5,3e5 --gap-us 0,1000

Prints the median time per call with one and two threads and their ratio (> 1: two threads
faster).  Workloads as in bench_ab.py.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench_ab import workloads


def _wait(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1e4,3e4,1e5,3e5", help="elements per input")
    ap.add_argument("--workloads", default="a*b+c,hardswish,exp_log1p,gelu,sum")
    ap.add_argument("--modes", default="fast,exact")
    ap.add_argument("--gap-us", default="0,1000",
                    help="microseconds of other work before each call (0: back to back)")
    ap.add_argument("--seconds", type=float, default=1.0, help="per case")
    args = ap.parse_args(argv)

    import lazytensor as lt

    default_threads = lt.get_num_threads()
    print("# median µs per call, one and two threads alternating; 1T/2T > 1: two faster")
    for n in (int(float(s)) for s in args.sizes.split(",")):
        funcs = workloads(lt, n)
        for gap in (float(g) * 1e-6 for g in args.gap_us.split(",")):
            for name in args.workloads.split(","):
                for mode in args.modes.split(","):
                    times = {1: [], 2: []}
                    with lt.mode(mode):
                        for threads in times:        # plans and workers warm
                            lt.set_num_threads(threads)
                            np.asarray(funcs[name]())
                        start = time.time()
                        while time.time() - start < args.seconds:
                            for threads, out in times.items():
                                lt.set_num_threads(threads)
                                for _ in range(32):   # back to back within a thread count
                                    _wait(gap)
                                    t0 = time.perf_counter()
                                    np.asarray(funcs[name]())
                                    out.append(time.perf_counter() - t0)
                    one, two = (np.median(times[t]) * 1e6 for t in (1, 2))
                    print(f"n={n:<8d} gap {gap * 1e6:6.0f} µs  {name:10s} {mode:5s}  "
                          f"1T {one:9.1f}  2T {two:9.1f}  1T/2T {one / two:5.2f}", flush=True)
    lt.set_num_threads(default_threads)


if __name__ == "__main__":
    main()
