"""Time per element of each math function: lazytensor exact, lazytensor fast and NumPy's
own function of the same dtype (SciPy's for erf, expit for sigmoid), side by side in one
process.

    python benchmarks/bench_math.py [--n 1000000] [--repeats 15] [--threads 1]
                                    [--dtype float32|float64] [--inputs domain|wide]
                                    [--out FILE]

Rounds are interleaved (exact, fast, NumPy for one function, then the next round), and
the median of the rounds is reported, in ns per element, with the ratios.  Inputs are
drawn where the function does its work (|x| < 10, or its domain); ``--inputs wide`` draws
them from [-200, 200] for every function instead: NaN results outside a domain, overflow and
underflow, which a first pass hands to its slower path.  A function much slower there than on
its domain has a cliff (the exact float32 log took 25 ns per element on inputs of both signs,
issue 41).
"""

from __future__ import annotations

import argparse
import statistics
import sys

import numpy as np

from _benchutil import timed  # (benchmarks/ is on sys.path: the script's folder)

import lazytensor as lt

try:
    from scipy import special
except ImportError:  # pragma: no cover
    special = None


def _numpy_funcs():
    f = {
        "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
        "log2": np.log2, "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan,
        "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
        "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
        "atanh": np.arctanh, "atan2": np.arctan2, "hypot": np.hypot,
        "logaddexp": np.logaddexp,
    }
    if special is not None:
        f["erf"] = special.erf
        f["sigmoid"] = special.expit

        def gelu(x):
            return np.float32(0.5) * x * (np.float32(1) + special.erf(x * np.float32(2 ** -0.5)))

        def gelu_tanh(x):
            c = np.float32(np.sqrt(2 / np.pi))
            return np.float32(0.5) * x * (np.float32(1) + np.tanh(c * (x + np.float32(0.044715) * x ** 3)))
        f["gelu"] = gelu
        f["gelu_tanh"] = gelu_tanh
        f["silu"] = lambda x: x * special.expit(x)
    return f


def _lt_func(name):
    if name in ("sigmoid", "silu", "gelu"):
        return getattr(lt.nn, name)
    if name == "gelu_tanh":
        return lambda t: lt.nn.gelu(t, approximate="tanh")
    return getattr(lt, name)


def _inputs(name, n, rng, dtype, kind="domain"):
    if kind == "wide":
        count = 2 if name in ("atan2", "hypot", "logaddexp") else 1
        return tuple(rng.uniform(-200, 200, n).astype(dtype) for _ in range(count))
    if name in ("log", "log2", "log10"):
        return (rng.uniform(1e-3, 100, n).astype(dtype),)
    if name == "log1p":
        return (rng.uniform(-0.9, 100, n).astype(dtype),)
    if name in ("asin", "acos", "atanh"):
        return (rng.uniform(-0.999, 0.999, n).astype(dtype),)
    if name == "acosh":
        return (rng.uniform(1, 100, n).astype(dtype),)
    if name in ("atan2", "hypot", "logaddexp"):
        return tuple(rng.uniform(-10, 10, n).astype(dtype) for _ in range(2))
    return (rng.uniform(-10, 10, n).astype(dtype),)


def _time(fn, repeats):
    return [timed(fn)[0] for _ in range(repeats)]


def run(names, n, repeats, threads, dtype="float32", inputs="domain"):
    numpy_funcs = _numpy_funcs()
    rng = np.random.default_rng(0)
    rows = []
    lt.set_num_threads(threads)
    for name in names:
        xs = _inputs(name, n, rng, dtype, inputs)
        ts = [lt.asarray(x) for x in xs]
        f = _lt_func(name)
        ref = numpy_funcs.get(name)
        out = {"exact": [], "fast": [], "numpy": []}

        def run_lt(mode):
            with lt.mode(mode):
                np.asarray(f(*ts))

        with np.errstate(all="ignore"):
            for _ in range(2):                                  # warm up: plans, pool
                run_lt("exact"), run_lt("fast")
                if ref is not None:
                    ref(*xs)
            for _ in range(repeats):                            # interleaved rounds
                out["exact"] += _time(lambda: run_lt("exact"), 1)
                out["fast"] += _time(lambda: run_lt("fast"), 1)
                if ref is not None:
                    out["numpy"] += _time(lambda: ref(*xs), 1)
        med = {k: statistics.median(v) * 1e9 / n if v else float("nan") for k, v in out.items()}
        rows.append((name, med["exact"], med["fast"], med["numpy"]))
    return rows


def report(rows, n, threads, dtype="float32", inputs="domain"):
    drawn = "on each function's domain" if inputs == "domain" else "from [-200, 200]"
    lines = [f"Time per element (ns), {n} {dtype} elements {drawn}, {threads} thread(s), "
             f"kernel path {lt.kernel_path()}; median of interleaved rounds.", "",
             f"| function | exact | fast | NumPy/SciPy {dtype} | exact/fast | NumPy/exact |",
             "|---|---|---|---|---|---|"]
    for name, e, f, n_ in rows:
        lines.append(f"| {name} | {e:.2f} | {f:.2f} | {n_:.2f} | {e / f:.2f} | {n_ / e:.2f} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("functions", nargs="*", help="default: every math op of the table")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    ap.add_argument("--inputs", choices=("domain", "wide"), default="domain",
                    help="where the inputs are drawn (module docstring)")
    ap.add_argument("--out", default=None, help="also write the Markdown table here")
    args = ap.parse_args(argv)
    from lazytensor._engine import ops as _ops

    names = args.functions or [op.name for op in _ops.OPS_LIST if op.math]
    rows = run(names, args.n, args.repeats, args.threads, args.dtype, args.inputs)
    text = report(rows, args.n, args.threads, args.dtype, args.inputs)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
