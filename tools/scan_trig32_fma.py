"""Every float32 input that the first pass of the exact sin, cos and tan on the FMA paths
(ltm_trig32_vec, ltm_tan32_vec: kernels_c/math/lt_trig32_fma.h) flags, and those of them it
misrounds.

    python tools/scan_trig32_fma.py [--out FILE]

Compiles the pass alone (its text taken from the header, AVX2 and FMA, the vector helpers it
uses restated as in lt_exp.h and lt_exp32_fma.h) into a small program that runs it on every
float32 0 <= x <= 2^18 (the pass is odd for sin and tan and even for cos, exactly: it works
on |x| and puts the sign back) and prints the inputs Ziv's test flags with the pass's own rounding.
Each is then compared with MPFR (gmpy2, 120 bits, rounded once to float32).  Prints, per
function, the count of inputs scanned, flagged and misrounded by the pass alone; with --all,
also the kept results that are misrounded (the pass alone, on [0, 2^18]: a check of the pass
in a minute, beside the exhaustive one of the whole function); with --out,
appends every misrounded input (its bit pattern; -x is as hard) to
tests/testdata/trig32_fma_hard.txt.  The exhaustive check of the whole function (flagged
elements redone) is tools/verify_float32.py.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "kernels_c", "math", "lt_trig32_fma.h")

PRELUDE = r"""
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define LTM_GW 4
typedef double ltm_gvd __attribute__((vector_size(32)));
typedef int64_t ltm_gvl __attribute__((vector_size(32)));
typedef float ltm_gvf __attribute__((vector_size(16)));
typedef int32_t ltm_gvi __attribute__((vector_size(16)));
#define LTM_VFMA(a, b, c) ((ltm_gvd)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
static inline ltm_gvd ltm_vwiden(ltm_gvf xf) { return (ltm_gvd)_mm256_cvtps_pd((__m128)xf); }
static inline ltm_gvl ltm_exp32_clear_w(ltm_gvd y, int64_t w)
{
    return (((ltm_gvl)y + ((int64_t)0x10000000 + w)) & 0x1FFFFFFF) > 2 * w;
}
"""

MAIN = r"""
#include <math.h>
/* mode 0: the flagged inputs ("f x y"); mode 1 (--all): also the kept ones whose rounding
 * differs from libm's double function rounded once ("m x y"), and those where that double
 * lies within 2^-48 of a float32 midpoint, to be decided with MPFR ("u x y") */
int main(int argc, char **argv)
{
    int which = argv[1][0] - '0', all = argc > 2;
    for (uint32_t b = 0; b <= 0x48800000u; b += 4) {
        uint32_t bb[4] = { b, b + 1, b + 2, b + 3 };
        ltm_gvf v;
        ltm_gvl m;
        memcpy(&v, bb, 16);
        ltm_gvf y = which == 2 ? ltm_tan32_vec(v, &m) : ltm_trig32_vec(which, v, &m);
        for (int j = 0; j < 4; j++) {
            if (bb[j] > 0x48800000u)
                continue;
            uint32_t yb;
            memcpy(&yb, (float *)&y + j, 4);
            if (!m[j]) {
                printf("f %08x %08x\n", bb[j], yb);
                continue;
            }
            if (!all)
                continue;
            double x = v[j];
            double r = which == 0 ? sin(x) : which == 1 ? cos(x) : tan(x);
            float f = (float)r;
            double g = nextafterf(f, r > f ? INFINITY : -INFINITY);
            uint32_t fb;
            memcpy(&fb, &f, 4);
            if (r != f && fabs(r - ((double)f + g) / 2) <= 0x1p-48 * fabs(r))
                printf("u %08x %08x\n", bb[j], yb);
            else if (fb != yb)
                printf("m %08x %08x\n", bb[j], yb);
        }
    }
    return 0;
}
"""


def _pass_source() -> str:
    text = open(HEADER).read()
    start = text.index("static inline __attribute__((always_inline)) ltm_gvd ltm_trig32_sin_poly")
    end = text.index("\n}\n", text.index("ltm_tan32_vec(ltm_gvf xf")) + 3
    return PRELUDE + text[start:end] + MAIN


def scan(which: int, exe: str, all_: bool):
    """{kind: (x bits, the pass's float32 result bits)} for kind "f" (flagged) and, with
    all_, "m" and "u" (see MAIN)."""
    out = subprocess.run([exe, str(which)] + (["all"] if all_ else []), check=True,
                         capture_output=True, text=True).stdout
    rows = [line.split() for line in out.splitlines()]
    return {k: (np.array([int(a, 16) for t, a, _ in rows if t == k], np.uint32),
                np.array([int(b, 16) for t, _, b in rows if t == k], np.uint32))
            for k in "fmu"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--all", action="store_true",
                    help="also check every kept result (not flagged) against libm's double "
                         "function rounded once, and MPFR where that is too close to call")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    import verify_float32
    refs = verify_float32.references()
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "scan.c"), os.path.join(tmp, "scan")
        with open(src, "w") as f:
            f.write(_pass_source())
        subprocess.run(["gcc", "-O2", "-mavx2", "-mfma", "-ffp-contract=off", "-o", exe, src,
                        "-lm"], check=True)
        lines = []
        for which, name in enumerate(("sin", "cos", "tan")):
            found = scan(which, exe, args.all)
            ref_mp = refs[name][1]

            def wrong(kind):
                xb, yb = found[kind]
                want = np.array([ref_mp(v) for v in xb.view(np.float32)], np.float32)
                return xb[want.view(np.uint32) != yb]

            bad = wrong("f")
            print(f"{name}: scanned {0x48800000 + 1} inputs (0 <= x <= 2^18), flagged "
                  f"{found['f'][0].size}, misrounded by the pass alone {bad.size}")
            if args.all:
                print(f"{name}: kept (not flagged) and misrounded: {found['m'][0].size} against "
                      f"libm's double, {wrong('u').size} of {found['u'][0].size} decided by MPFR")
            lines += [f"{name} 0x{b:08x}" for b in bad]
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
