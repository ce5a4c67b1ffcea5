"""Gelu and Black-Scholes over float32 arrays on a dask LocalCluster: dask with lazytensor
blocks against dask with NumPy blocks, and lazytensor in one process (docs/dask.md).

The inputs are drawn on the workers (``da.random.default_rng(seed)``, with the "lazytensor"
array backend for the lazytensor side, the "numpy" one for NumPy's: the same draws) and
persisted before the timing; each timed call computes the workload and reduces it to one
number (``sum``) on the cluster, which is what comes back.  lazytensor in one process draws
the same sizes with ``lt.random`` and does the same.  Each dask implementation runs on fresh
worker processes (``client.restart()``), so a worker's peak resident memory
(``ru_maxrss``) is that implementation's, its persisted inputs included; the one-process
run goes first, before the cluster starts, and its peak is the process's.

    python benchmarks/bench_dask.py                       # 10^8 float32, 2 workers
    python benchmarks/bench_dask.py --n 1e7 --repeats 3   # a smaller run
    python benchmarks/bench_dask.py --scheduler threads --workers 2   # one process, dask's
                                                          # threaded scheduler, 2 threads

With ``--scheduler threads`` there is no cluster: dask's threaded scheduler runs the blocks in
this process on ``--workers`` threads (lazytensor's evaluations overlap in their kernels,
docs/dask.md "Threads under dask"), and the peak memory is this process's, all runs included.

This is a measurement, not a test: it has no pass/fail threshold.
"""

from __future__ import annotations

import argparse
import math
import resource
import statistics
import time

import numpy as np

from _benchutil import fmt_n, git_commit, import_lazytensor, lscpu_facts

lt = import_lazytensor()

SEED = 12345
R, SIGMA = 0.02, 0.3


SQRT2 = math.sqrt(2.0)   # a Python float: float32 stays float32 (np.sqrt(2.0) would promote)


def black_scholes(np_, erf, S, K, T, r=R, sigma=SIGMA):
    """The call price, one source for NumPy's functions and lazytensor's (as in
    bench_numpy_protocols.py, but all in float32)."""
    d1 = (np_.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * np_.sqrt(T))
    d2 = d1 - sigma * np_.sqrt(T)
    cdf1 = 0.5 * (1 + erf(d1 / SQRT2))
    cdf2 = 0.5 * (1 + erf(d2 / SQRT2))
    return S * cdf1 - K * np_.exp(-r * T) * cdf2


def gelu_numpy(erf, x):
    return 0.5 * x * (1 + erf(x / SQRT2))


def draw(rng, n, chunks=None):
    """x for the Gelu, S, K, T for Black-Scholes: float32 draws of ``rng`` (dask's or
    lazytensor's default_rng)."""
    kw = {} if chunks is None else {"chunks": chunks}
    x = rng.standard_normal((n,), dtype=np.float32, **kw)
    S = rng.uniform(5.0, 30.0, (n,), **kw).astype(np.float32)
    K = rng.uniform(1.0, 100.0, (n,), **kw).astype(np.float32)
    T = rng.uniform(0.25, 10.0, (n,), **kw).astype(np.float32)
    return {"x": x, "S": S, "K": K, "T": T}


def workloads(impl, scipy_erf):
    """name -> (inputs -> the reduced result, lazily for dask)."""
    if impl == "dask+NumPy":
        return {"gelu": lambda d: gelu_numpy(scipy_erf, d["x"]).sum(),
                "black_scholes": lambda d: black_scholes(np, scipy_erf, d["S"], d["K"],
                                                         d["T"]).sum()}
    return {"gelu": lambda d: lt.sum(lt.nn.gelu(d["x"])),
            "black_scholes": lambda d: lt.sum(black_scholes(lt, lt.erf, d["S"], d["K"],
                                                            d["T"]))}


def peak_rss_mib():
    """The process's peak resident memory: VmHWM, which starts afresh at exec (ru_maxrss
    does not: a worker spawned by this process would report this process's peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def time_calls(call, repeats):
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - t0)
    return times, float(np.asarray(value))


def one_process(n, repeats, names):
    base = peak_rss_mib()
    data = draw(lt.random.default_rng(SEED), n)
    results = {}
    for name, run in workloads("lazytensor", None).items():
        if name in names:
            results[name] = time_calls(lambda: run(data).numpy(), repeats)
    return results, peak_rss_mib(), base


def on_cluster(client, impl, n, chunk, repeats, names, scipy_erf):
    import dask
    import dask.array as da
    from distributed import wait

    client.restart()
    backend = "numpy" if impl == "dask+NumPy" else "lazytensor"
    with dask.config.set({"array.backend": backend}):
        data = draw(da.random.default_rng(SEED), n, chunks=chunk)
    data = dict(zip(data, dask.persist(*data.values())))
    wait(list(data.values()))
    results = {}
    for name, build in workloads(impl, scipy_erf).items():
        if name in names:
            results[name] = time_calls(lambda: client.compute(build(data)).result(), repeats)
    peaks = client.run(peak_rss_mib)
    threads = client.run(lambda: __import__("lazytensor").get_num_threads()
                         if "lazytensor" in __import__("sys").modules else None)
    return results, peaks, sorted(set(threads.values()), key=str)


def threaded(impl, n, chunk, repeats, names, scipy_erf, workers):
    """on_cluster's runs on dask's threaded scheduler in this process."""
    import dask

    backend = "numpy" if impl == "dask+NumPy" else "lazytensor"
    with dask.config.set({"array.backend": backend, "scheduler": "threads",
                          "num_workers": workers}):
        import dask.array as da
        data = draw(da.random.default_rng(SEED), n, chunks=chunk)
        data = dict(zip(data, dask.persist(*data.values())))
        results = {}
        for name, build in workloads(impl, scipy_erf).items():
            if name in names:
                results[name] = time_calls(lambda: build(data).compute(), repeats)
    return results, {"this process": peak_rss_mib()}, [lt.get_num_threads()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=lambda s: int(float(s)), default=10**8,
                    help="elements per array (default 1e8)")
    ap.add_argument("--chunk", type=lambda s: int(float(s)), default=10**6,
                    help="elements per block (default 1e6: 100 blocks of the 10^8 run)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads-per-worker", type=int, default=1)
    ap.add_argument("--worker-saturation", type=float, default=None,
                    help="dask's distributed.scheduler.worker-saturation for the cluster "
                         "(default: dask's own, 1.1; inf sends every ready task to the "
                         "workers at once, as dask did before 2022.11)")
    ap.add_argument("--repeats", type=int, default=5, help="timed calls per workload")
    ap.add_argument("--workloads", default="gelu,black_scholes")
    ap.add_argument("--scheduler", choices=("cluster", "threads"), default="cluster",
                    help="a LocalCluster of worker processes, or dask's threaded scheduler "
                         "in this process with --workers threads")
    args = ap.parse_args(argv)

    import scipy.special
    from distributed import Client, LocalCluster

    scipy_erf = scipy.special._ufuncs.erf      # the ufunc, also under SCIPY_ARRAY_API=1
    names = [w.strip() for w in args.workloads.split(",") if w.strip()]
    chunk = min(args.chunk, args.n)
    blocks = -(-args.n // chunk)
    facts = lscpu_facts()
    where = (f"{args.workers} workers x {args.threads_per_worker} thread(s)"
             if args.scheduler == "cluster" else
             f"threaded scheduler, {args.workers} threads, one process")
    if args.worker_saturation is not None:
        where += f", worker-saturation {args.worker_saturation}"
    print(f"# bench_dask: {fmt_n(args.n)} float32 per array in {blocks} blocks, {where}, "
          f"best/median of {args.repeats}; commit {git_commit()}; "
          f"{facts.get('Model name', '?')}")

    rows = {}
    res, peak, base = one_process(args.n, args.repeats, names)
    rows["lazytensor, one process"] = (res, {"this process": peak})
    print(f"lazytensor in one process: peak RSS {peak:.0f} MiB (before the inputs "
          f"{base:.0f} MiB), {lt.get_num_threads()} kernel threads", flush=True)

    if args.scheduler == "threads":
        for impl in ("dask+lazytensor", "dask+NumPy"):
            res, peaks, threads = threaded(impl, args.n, chunk, args.repeats, names,
                                           scipy_erf, args.workers)
            rows[impl] = (res, peaks)
            print(f"{impl}: done (lazytensor kernel threads: {threads})", flush=True)
        _table(names, rows)
        return
    import dask
    # the scheduler reads it when made (set around its making only: the workers, spawned
    # again by each restart, would inherit it through dask's config, which fails on inf)
    saturation = ({} if args.worker_saturation is None else
                  {"distributed.scheduler.worker-saturation": args.worker_saturation})
    with dask.config.set(saturation):
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=args.threads_per_worker,
                               processes=True, host="127.0.0.1", dashboard_address=None,
                               silence_logs=50)
    client = Client(cluster)
    try:
        for impl in ("dask+lazytensor", "dask+NumPy"):
            res, peaks, threads = on_cluster(client, impl, args.n, chunk, args.repeats,
                                             names, scipy_erf)
            rows[impl] = (res, peaks)
            print(f"{impl}: done (lazytensor kernel threads per worker: {threads})",
                  flush=True)
    finally:
        client.close()
        cluster.close()

    _table(names, rows)


def _table(names, rows):
    print()
    print("| workload | implementation | best | median | x dask+NumPy (median) "
          "| peak RSS per worker (MiB) | result |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        ref = statistics.median(rows["dask+NumPy"][0][name][0])
        for impl, (res, peaks) in rows.items():
            times, value = res[name]
            med = statistics.median(times)
            mem = ", ".join(f"{v:.0f}" for v in peaks.values())
            print(f"| {name} | {impl} | {min(times):.3f} s | {med:.3f} s | {ref / med:.2f} "
                  f"| {mem} | {value:.6g} |")


if __name__ == "__main__":
    main()
