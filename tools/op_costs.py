"""Measure the time per element of every float32 op function on one kernel path, in L1.

Prints each op's ``cost`` (ns per element, fast mode and exact mode), the figure its row in
``lazytensor/_engine/ops.py`` holds (``divide_by_scalar``'s is in ``_engine/cost.py``):
each op function runs over one chunk of 256 elements held in L1, 4000 times; the best of 5
rounds in each of 3 runs of the program, a few seconds apart (a shared machine has slow
phases).  Needs gcc; compiles the generated op source with the build's flags.

    python tools/op_costs.py [--path avx512] [--inputs normal] [op ...]

``--inputs normal`` draws the chunk from a normal distribution of sd 2 (most of it in
[-4, 4], as the benchmarks' inputs) instead of the even spread over [-4, 4); naming ops
measures only those.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "kernels_c"))
sys.path.insert(0, ROOT)

import build_kernels  # noqa: E402
from lazytensor._engine import ops as _ops  # noqa: E402

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void)
{
    static float a[256] __attribute__((aligned(64))), b[256] __attribute__((aligned(64))),
                 c[256] __attribute__((aligned(64))), o[1024] __attribute__((aligned(64)));
    double p[4] = {0.5, 0.25, 0, 0};
    for (int i = 0; i < 256; i++) {
#if NORMAL_INPUTS   /* sd 2: the sum of 12 uniforms (fixed seed) */
        double u = 0;
        for (int j = 0; j < 12; j++) u += rand() / (double)RAND_MAX;
        a[i] = (float)((u - 6) * 2);
#else
        a[i] = (float)((i * 37 % 256) / 32.0 - 4.0);
#endif
        b[i] = (float)((i * 53 % 256) / 64.0 + 0.5);
        c[i] = (float)(i % 7);
    }
    static const int idx[] = {IDX};
    static const char *const name[] = {NAMES};
    const lt_opfn *tab = lt_op_tables[PATH];
    for (int k = 0; k < (int)(sizeof idx / sizeof idx[0]); k++) {
        double best[2] = {1e9, 1e9};
        for (int rep = 0; rep < 5; rep++)
            for (int exact = 0; exact < 2; exact++) {
                double t0 = now();
                for (int r = 0; r < 4000; r++) tab[idx[k]](256, o, a, b, c, c, p, exact);
                double t = (now() - t0) / 4000 / 256 * 1e9;
                if (t < best[exact]) best[exact] = t;
            }
        printf("%s %.3f %.3f\n", name[k], best[0], best[1]);
    }
    return 0;
}
"""


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", default="avx512", choices=[p for p, _ in build_kernels.X86_PATHS])
    ap.add_argument("--inputs", default="spread", choices=("spread", "normal"))
    ap.add_argument("ops", nargs="*", help="only these ops (default: all)")
    args = ap.parse_args(argv)
    path = [p for p, _ in build_kernels.X86_PATHS].index(args.path)
    entries = [(i, op) for i, (op, dt) in enumerate(_ops.kernel_entries())
               if dt == "float32" and (not args.ops or op in args.ops)]
    main_src = (MAIN.replace("IDX", ", ".join(str(i) for i, _ in entries))
                .replace("NAMES", ", ".join(f'"{op}"' for _, op in entries))
                .replace("PATH", str(path)))
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "costs.c"), os.path.join(tmp, "costs")
        with open(src, "w") as f:
            f.write(build_kernels.generate_ops_source() + main_src)
        flags = [a for a in build_kernels.EXTRA_COMPILE_ARGS if a != "-std=c11"]
        subprocess.run(["gcc", *flags, "-std=gnu11", "-w",
                        f"-DNORMAL_INPUTS={int(args.inputs == 'normal')}", "-I", os.path.join(ROOT, "kernels_c"),
                        "-I", os.path.join(ROOT, "kernels_c", "math"), src, "-o", exe, "-lm"], check=True)
        best = {}
        for _ in range(3):
            out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
            for line in out.split("\n"):
                if line:
                    op, *ns = line.split()
                    ns = [float(t) for t in ns]
                    best[op] = [min(t, b) for t, b in zip(ns, best.get(op, ns))]
    for op, (fast, exact) in best.items():
        print(f"{op}: cost=({fast:.3g}, {exact:.3g})")


if __name__ == "__main__":
    main()
