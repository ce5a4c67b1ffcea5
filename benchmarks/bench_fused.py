"""Fused-expression benchmark: lazytensor against NumPy (+ scipy.special.erf) on float32.

Each timed call builds the lazy expression and evaluates it (``.numpy()``), which is what a
user pays.  NumPy and lazytensor run in the same process, interleaved call by call, and the
median of each side is reported together with the ratio NumPy / lazytensor (> 1 means
lazytensor is faster).  The first lazytensor call (which builds and caches the kernel plan)
is timed on its own, and each result is checked once against a float64 reference.

    python benchmarks/bench_fused.py --sizes 1e3,1e4,1e5,1e6,1e7 --out report.md

This is a measurement, not a test: it has no pass/fail threshold.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import statistics
import sys
import time

import numpy as np

from _benchutil import (cpu_model, fmt_n, fmt_time, git_commit, import_lazytensor,
                        parse_sizes, timed as _timed, calls_per_sample, default_repeat,
                        timed_calls)

lt = import_lazytensor()

try:
    from scipy.special import erf as _scipy_erf
    import scipy
    _SCIPY = f"scipy {scipy.__version__}"
except ImportError:  # pragma: no cover - scipy is a bench dependency
    _scipy_erf = None
    _SCIPY = "scipy missing"

DEFAULT_SIZES = "1e3,1e4,1e5,1e6,1e7"
ROW = 1000                          # the broadcast row length of the 2-D workloads
SQRT2 = np.float32(2 ** 0.5)
SQRT_2_OVER_PI = np.float32((2 / np.pi) ** 0.5)
GELU_CUBIC = np.float32(0.044715)


# ---- workloads ---------------------------------------------------------------------------
# Each workload builds its inputs once from a size n and returns
#   (N actually used, numpy fn, float64 reference fn, [(variant name, lazytensor fn), ...]).
# All fns take no arguments and return a NumPy array; the lazytensor fns build the lazy
# expression and evaluate it inside the call.

def _activation_input(n, rng):
    return (3.0 * rng.standard_normal(n)).astype(np.float32)   # spans the bends of gelu/hardswish


def _rows(n):
    return max(1, round(n / ROW))


def w_gelu_erf(n, rng):
    x_np = _activation_input(n, rng)
    x = lt.asarray(x_np)

    def numpy_fn():
        return 0.5 * x_np * (1 + _scipy_erf(x_np / SQRT2))

    def ref():
        x64 = x_np.astype(np.float64)
        return 0.5 * x64 * (1 + _scipy_erf(x64 / np.sqrt(2.0)))

    return n, numpy_fn, ref, [
        ("primitives", lambda: (0.5 * x * (1 + lt.erf(x / SQRT2))).numpy()),
        ("nn.gelu", lambda: lt.nn.gelu(x).numpy()),
    ]


def w_gelu_tanh(n, rng):
    x_np = _activation_input(n, rng)
    x = lt.asarray(x_np)

    def numpy_fn():
        return 0.5 * x_np * (1 + np.tanh(SQRT_2_OVER_PI * (x_np + GELU_CUBIC * x_np * x_np * x_np)))

    def ref():
        x64 = x_np.astype(np.float64)
        return 0.5 * x64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64 ** 3)))

    return n, numpy_fn, ref, [
        ("primitives", lambda: (0.5 * x * (1 + lt.tanh(
            SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x)))).numpy()),
        ("nn.gelu tanh", lambda: lt.nn.gelu(x, approximate="tanh").numpy()),
    ]


def w_hardswish(n, rng):
    x_np = _activation_input(n, rng)
    x = lt.asarray(x_np)

    def numpy_fn():
        return x_np * np.clip(x_np / 6 + 0.5, 0, 1)

    def ref():
        x64 = x_np.astype(np.float64)
        return x64 * np.clip(x64 / 6 + 0.5, 0, 1)

    return n, numpy_fn, ref, [
        ("nn.hardswish", lambda: lt.nn.hardswish(x).numpy()),
        ("primitives", lambda: (x * lt.clip(x / 6 + 0.5, 0, 1)).numpy()),
    ]


def w_axb_plus_c(n, rng):
    rows = _rows(n)
    a_np = rng.standard_normal((rows, ROW), dtype=np.float32)
    b_np = rng.standard_normal(ROW, dtype=np.float32)
    c_np = rng.standard_normal((rows, ROW), dtype=np.float32)
    a, b, c = lt.asarray(a_np), lt.asarray(b_np), lt.asarray(c_np)

    def ref():
        return a_np.astype(np.float64) * b_np.astype(np.float64) + c_np.astype(np.float64)

    return rows * ROW, lambda: a_np * b_np + c_np, ref, [
        ("a*b+c", lambda: (a * b + c).numpy()),
    ]


def w_bias_relu(n, rng):
    rows = _rows(n)
    X_np = rng.standard_normal((rows, ROW), dtype=np.float32)
    b_np = rng.standard_normal(ROW, dtype=np.float32)
    X, b = lt.asarray(X_np), lt.asarray(b_np)

    def ref():
        return np.maximum(X_np.astype(np.float64) + b_np.astype(np.float64), 0.0)

    return rows * ROW, lambda: np.maximum(X_np + b_np, 0), ref, [
        ("nn.relu(X+b)", lambda: lt.nn.relu(X + b).numpy()),
    ]


WORKLOADS = {
    "gelu_erf": (w_gelu_erf, "0.5*x*(1+erf(x/sqrt(2)))"),
    "gelu_tanh": (w_gelu_tanh, "0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x*x*x)))"),
    "hardswish": (w_hardswish, "x*clip(x/6+0.5, 0, 1)"),
    "a*b+c": (w_axb_plus_c, "a (N/1000,1000) * b (1000,) + c (N/1000,1000)"),
    "bias_relu": (w_bias_relu, "relu(X + b), X (N/1000,1000), b (1000,)"),
}


# ---- measurement -------------------------------------------------------------------------

def _max_abs_err(got, ref):
    got = np.asarray(got)
    if got.shape != ref.shape:
        return float("nan")
    return float(np.max(np.abs(got.astype(np.float64) - ref)))


def measure(build, n, repeat, seed):
    """Rows of results for one workload at one size."""
    rng = np.random.default_rng(seed)
    n_used, numpy_fn, ref_fn, variants = build(n, rng)
    ref = ref_fn()

    # Warm-up.  NumPy twice; each lazytensor variant once timed as "first call" (this builds
    # and caches its kernel plan for this shape) and once more untimed.
    np_out = numpy_fn()
    numpy_fn()
    first, errs, dtypes = {}, {}, {}
    for name, fn in variants:
        misses = lt.stats()["misses"]
        first[name], out = _timed(fn)
        first[name] = (first[name], lt.stats()["misses"] > misses)
        errs[name] = _max_abs_err(out, ref)
        dtypes[name] = np.asarray(out).dtype
        del out
        fn()
    np_err = _max_abs_err(np_out, ref)
    del np_out, ref

    # Interleaved: per repetition, each variant is followed by a NumPy call; the variant
    # order rotates between repetitions so neither side always runs first after the other.
    np_times, lt_times = [], {name: [] for name, _ in variants}
    for r in range(repeat):
        k = r % len(variants)
        for name, fn in variants[k:] + variants[:k]:
            lt_times[name].append(timed_calls(fn, calls_per_sample(n_used)))
            np_times.append(timed_calls(numpy_fn, calls_per_sample(n_used)))

    np_med = statistics.median(np_times)
    rows = []
    for name, _ in variants:
        lt_med = statistics.median(lt_times[name])
        rows.append(dict(variant=name, n=n_used, np_med=np_med, lt_med=lt_med,
                         ratio=np_med / lt_med, first=first[name][0],
                         built=first[name][1], err=errs[name], np_err=np_err,
                         dtype=dtypes[name], repeat=repeat))
    return rows


# ---- report ------------------------------------------------------------------------------









def header(args, argv):
    cmd = shlex.join(["python"] + [sys.argv[0]] + list(argv))
    facts = [
        f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs)",
        f"Python {platform.python_version()}",
        f"numpy {np.__version__}",
        _SCIPY,
        f"lazytensor {lt.__version__} (commit {git_commit()})",
        f"kernel path: {lt.kernel_path()}",
        f"mode: {args.mode}",
        f"lazytensor threads: {args.threads}",
        f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
    ]
    return ["# lazytensor fused-expression benchmark (float32)", "",
            " · ".join(facts), "", f"Command: `{cmd}`", ""]


def table(results):
    lines = [
        "| workload | lazytensor variant | N | NumPy median | lazytensor median "
        "| ratio NumPy/lt | lt first call | lt max abs err vs f64 | NumPy max abs err vs f64 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for wname, row in results:
        first = fmt_time(row["first"]) + ("" if row["built"] else " (cached)")
        err = f"{row['err']:.3g}"
        if row["dtype"] != np.float32:
            err += f" ({row['dtype']}!)"
        lines.append(
            f"| {wname} | {row['variant']} | {fmt_n(row['n'])} | {fmt_time(row['np_med'])} "
            f"| {fmt_time(row['lt_med'])} | {row['ratio']:.2f} | {first} | {err} "
            f"| {row['np_err']:.3g} |")
    return lines


def legend(repeats):
    rep = ", ".join(f"{fmt_n(n)}: {r}" for n, r in repeats)
    lines = ["", "Workloads (lazytensor side as named in the variant column, NumPy side "
                 "written the same way with `scipy.special.erf`):", ""]
    lines += [f"- `{name}`: `{formula}`" for name, (_, formula) in WORKLOADS.items()]
    lines += [
        "",
        f"Medians over interleaved timed samples (repetitions per size: {rep}; NumPy is "
        "sampled once after each lazytensor variant, so it has more samples); below 10^5 "
        "elements a sample is the mean of k = min(100, 10^5/N) back-to-back calls. Every timed "
        "call builds the lazy expression and evaluates it. Ratio > 1: lazytensor faster. "
        "\"lt first call\" is the first call at that shape, which builds and caches the "
        "kernel plan (\"(cached)\" if a plan was already cached). Errors are max |result - "
        "float64 reference|. Activation inputs are float32 normal samples with standard "
        "deviation 3; NumPy's elementwise ops are single-threaded.",
    ]
    return lines


# ---- command line ------------------------------------------------------------------------



def parse_workloads(text):
    names = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in names if w not in WORKLOADS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}")
    return names


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=parse_sizes, default=parse_sizes(DEFAULT_SIZES),
                    help=f"comma-separated element counts, e.g. 1e3,1e6 (default {DEFAULT_SIZES})")
    ap.add_argument("--repeat", type=int, default=None,
                    help="timed repetitions per workload and size (default: 31 up to 1e5, "
                         "21 up to 1e6, 7 above)")
    ap.add_argument("--threads", type=int, default=1, help="lazytensor kernel threads (default 1)")
    ap.add_argument("--mode", choices=("exact", "fast"), default="exact",
                    help="lazytensor evaluation mode (default exact)")
    ap.add_argument("--workloads", type=parse_workloads, default=list(WORKLOADS),
                    help="comma-separated subset of: " + ",".join(WORKLOADS) + " (default all)")
    ap.add_argument("--seed", type=int, default=0, help="random seed for the inputs (default 0)")
    ap.add_argument("--out", default=None,
                    help="write the Markdown report to this file (default: print it)")
    args = ap.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.threads < 1:
        ap.error("--threads must be at least 1")
    if _scipy_erf is None:
        ap.error("scipy is needed for the NumPy side of gelu_erf (pip install scipy)")

    lt.set_num_threads(args.threads)
    results, repeats = [], []
    t_start = time.perf_counter()
    with lt.mode(args.mode):
        for n in args.sizes:
            repeat = args.repeat or default_repeat(n)
            repeats.append((n, repeat))
            for wname in args.workloads:
                build = WORKLOADS[wname][0]
                rows = measure(build, n, repeat, args.seed)
                for row in rows:
                    results.append((wname, row))
                    print(f"  {wname:10s} {row['variant']:14s} N={fmt_n(row['n']):>7s}  "
                          f"numpy {fmt_time(row['np_med']):>10s}  lt {fmt_time(row['lt_med']):>10s}"
                          f"  ratio {row['ratio']:5.2f}", file=sys.stderr, flush=True)
    print(f"  (total {time.perf_counter() - t_start:.1f} s)", file=sys.stderr)

    report = "\n".join(header(args, argv) + table(results) + legend(repeats)) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(report)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(report)


if __name__ == "__main__":
    main()
