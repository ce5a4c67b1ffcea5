"""Black-Scholes written with ``np.*`` and ``scipy.special.erf`` on tensors (NEP 13/18:
recorded through lazytensor and fused into one kernel), against the same written with
``lt.*`` and against NumPy itself on the arrays.

Each timed call builds the expression and evaluates it (``np.asarray``), which is what a user
pays.  The three forms run in the same process, interleaved call by call (a round is one
call of each, in rotating order); the median over the rounds is reported, with the ratios.
Each lazytensor result is checked once against NumPy's.

    python benchmarks/bench_numpy_protocols.py --sizes 1e6,1e7 --dtypes float32,float64

This is a measurement, not a test: it has no pass/fail threshold.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys

import numpy as np
import scipy
import scipy.special

from _benchutil import (fmt_n, fmt_time, git_commit, import_lazytensor, lscpu_facts,
                        parse_sizes, timed)

lt = import_lazytensor()


def black_scholes(np_, erf, S, K, T, r, sigma):
    """The call price: the same source for NumPy, for np.* on tensors and for lt.*."""
    d1 = (np_.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * np_.sqrt(T))
    d2 = d1 - sigma * np_.sqrt(T)
    cdf1 = 0.5 * (1 + erf(d1 / np_.sqrt(2.0)))
    cdf2 = 0.5 * (1 + erf(d2 / np_.sqrt(2.0)))
    return S * cdf1 - K * np_.exp(-r * T) * cdf2


def forms(S, K, T, r, sigma):
    """name -> a call giving the result as a NumPy array."""
    tS, tK, tT = lt.asarray(S), lt.asarray(K), lt.asarray(T)
    # the ufunc itself, also when SCIPY_ARRAY_API=1 makes scipy.special.erf a wrapper
    erf = scipy.special._ufuncs.erf
    return {
        "np.* on tensors": lambda: np.asarray(black_scholes(np, erf, tS, tK, tT, r, sigma)),
        "lt.*": lambda: np.asarray(black_scholes(lt, lt.erf, tS, tK, tT, r, sigma)),
        "NumPy": lambda: black_scholes(np, erf, S, K, T, r, sigma),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=parse_sizes, default=[10**6, 10**7])
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args(argv)

    facts = lscpu_facts()
    print(f"command: python {' '.join(shlex.quote(a) for a in sys.argv)}")
    print(f"CPU: {facts.get('Model name', 'unknown')} ({facts.get('CPU(s)', '?')} CPUs); "
          f"lazytensor {git_commit()} mode {lt.get_mode()} threads {lt.get_num_threads()}, "
          f"kernel path {lt.kernel_path()}; numpy {np.__version__}, scipy {scipy.__version__}")
    print(f"median of {args.rounds} interleaved rounds; ratio = NumPy time / this time\n")
    print("| n | dtype | np.* on tensors | lt.* | NumPy | NumPy/np.* | NumPy/lt.* | "
          "kernels (np.*) |")
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in args.sizes:
        for dtype in args.dtypes.split(","):
            S = rng.uniform(10, 100, n).astype(dtype)
            K = rng.uniform(10, 100, n).astype(dtype)
            T = rng.uniform(0.1, 2, n).astype(dtype)
            r, sigma = np.asarray(0.05, dtype)[()], np.asarray(0.2, dtype)[()]
            calls = forms(S, K, T, r, sigma)
            want = calls["NumPy"]()
            tol = 1e-4 if dtype == "float32" else 1e-10    # the call price cancels: atol too
            for name in ("np.* on tensors", "lt.*"):       # warm-up and check
                got = calls[name]()
                assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol * abs(want).max())
            kernels = len(lt.explain(black_scholes(np, scipy.special._ufuncs.erf,
                                                   lt.asarray(S), lt.asarray(K),
                                                   lt.asarray(T), r, sigma)))
            times = {name: [] for name in calls}
            names = list(calls)
            for i in range(args.rounds):
                for name in names[i % 3:] + names[:i % 3]:
                    times[name].append(timed(calls[name])[0])
            med = {name: statistics.median(ts) for name, ts in times.items()}
            print(f"| {fmt_n(n)} | {dtype} | {fmt_time(med['np.* on tensors'])} | "
                  f"{fmt_time(med['lt.*'])} | {fmt_time(med['NumPy'])} | "
                  f"{med['NumPy'] / med['np.* on tensors']:.2f} | "
                  f"{med['NumPy'] / med['lt.*']:.2f} | {kernels} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
