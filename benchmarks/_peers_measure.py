"""How bench_peers.py measures: the bandwidth floor, the interleaved rounds of one
workload, size and thread count, and lazytensor's one-against-two-threads pass."""

from __future__ import annotations

import concurrent.futures
import gc
import os
import random
import statistics
import time
import traceback

import numpy as np

import _peers_libs as L
from _benchutil import calls_per_sample
from _peers_impls import Skip
from _peers_workloads import F32, make_inputs, reference


def stream_bandwidth(threads_list, mib, reps=10):
    """Best-of-`reps` STREAM-style Copy (b = a) and Add (c = a + b) bandwidth in GB/s,
    NumPy into preallocated float32 buffers of `mib` MiB each, split into T contiguous
    parts run by T Python threads (NumPy releases the GIL).  Bytes counted as STREAM does:
    8 per element for Copy, 12 for Add (no write-allocate traffic)."""
    n = mib * 2 ** 20 // 4
    a = np.full(n, 1.0, F32)
    b = np.full(n, 2.0, F32)
    c = np.zeros(n, F32)
    res = {}
    for t in threads_list:
        parts = [slice(i * n // t, (i + 1) * n // t) for i in range(t)]
        with concurrent.futures.ThreadPoolExecutor(t) as pool:
            kernels = {
                "copy": (lambda s: np.copyto(b[s], a[s]), 8),
                "add": (lambda s: np.add(a[s], b[s], out=c[s]), 12),
            }
            for name, (k, bytes_per) in kernels.items():
                best = float("inf")
                for _ in range(reps):
                    t0 = time.perf_counter()
                    list(pool.map(k, parts))
                    best = min(best, time.perf_counter() - t0)
                res[(name, t)] = bytes_per * n / best / 1e9
    return res


# ---- measurement -------------------------------------------------------------------------

WARM_MAX_N = 10**6   # a timed sample follows an untimed call of the same implementation


def measure(wl, n, threads, impls, repeat, seed, log):
    """Result rows for one workload, size and thread count."""
    n_used, inputs = make_inputs(wl, n, seed)
    ref = reference(wl, inputs)
    bytes_per_elem = (sum(v.nbytes for v in inputs.values())
                      + ref.size * wl.out_dtype.itemsize) / n_used
    rows, variants, skipped = [], [], []
    for impl in impls:
        impl._n, impl._out_shape = n, ref.shape
        try:
            vs = impl.variants(wl, inputs, threads)
        except Skip as exc:
            skipped.append((impl.label, str(exc)))
            continue
        except Exception as exc:
            skipped.append((impl.label, f"failed to build: {type(exc).__name__}: {exc}"))
            log(f"    {impl.label}: {type(exc).__name__}: {exc}")
            continue
        for v in vs:
            try:
                first, chk = v.first(wl, ref)
                v.warm()
            except Exception as exc:
                msg = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                skipped.append((v.label, f"failed: {msg}"))
                log(f"    {v.label}: failed: {msg}")
                if os.environ.get("BENCH_PEERS_DEBUG"):
                    traceback.print_exc()
                v.close()
                continue
            if not chk["ok"]:
                log(f"    WARNING {v.label} on {wl.name} N={n_used}: WRONG result ({chk['why']})")
            variants.append((v, first, chk))
    del ref
    times = {id(v): [] for v, _, _ in variants}
    # The call before leaves the caches (and the thread pools) in its own state: with the
    # order rotating each round, each implementation mostly followed the same one (lt exact
    # followed NumPy in two rounds of three and took twice lt fast's time at 10^5).  So up to
    # WARM_MAX_N elements each sample follows an untimed call of its own implementation, and
    # the order is a new random one each round (seeded).
    order = random.Random(seed)
    for r in range(repeat):
        gc.collect()
        for v, _, _ in order.sample(variants, len(variants)):
            if n_used <= WARM_MAX_N:
                v.run_timed(1)
            times[id(v)].append(v.run_timed(calls_per_sample(n_used)))
    for v, first, chk in variants:
        v.close()
        med = statistics.median(times[id(v)]) if times[id(v)] else float("nan")
        rows.append(dict(workload=wl.name, family=v.family, label=v.label, n=n_used,
                         threads=threads, median=med, per_elem=med / n_used, first=first,
                         repeat=repeat, bytes_per_elem=bytes_per_elem, **{
                             "ok": chk["ok"], "why": chk["why"], "ulp": chk["ulp"],
                             "abs": chk["abs"], "norm": chk.get("norm", float("nan")),
                             "dtype": chk["dtype"]}))
    np_med = next((r["median"] for r in rows if r["family"] == "numpy"), float("nan"))
    for r in rows:
        r["vs_numpy"] = np_med / r["median"]
    del inputs
    gc.collect()
    if L.torch is not None:
        L.torch._dynamo.reset()
    return rows, skipped


def measure_scaling(wl, n, repeat, seed):
    """lazytensor's speed-up from one thread to two, per mode: the workload's first lt
    variant with 1 and 2 threads called alternately within each round, so that a slow phase
    of the machine (they last seconds to minutes) falls on both sides of the ratio.  The
    tables above time T=1 and T=2 in separate passes, minutes apart."""
    n_used, inputs = make_inputs(wl, n, seed)
    xs = [L.lt.asarray(v) for v in inputs.values()]
    fn = wl.lt_variants[0][1]
    rows = []
    for mode in ("fast", "exact"):
        times = {1: [], 2: []}
        with L.lt.mode(mode):
            for r in range(repeat + 1):
                for t in ((1, 2) if r % 2 == 0 else (2, 1)):
                    with L.lt.config(num_threads=t):
                        t0 = time.perf_counter()
                        fn(*xs).numpy()
                        if r:                    # round 0 warms both plans and the pool
                            times[t].append(time.perf_counter() - t0)
        t1, t2 = (statistics.median(times[t]) for t in (1, 2))
        rows.append(dict(workload=wl.name, mode=mode, n=n_used, repeat=repeat,
                         t1_per_elem=t1 / n_used, t2_per_elem=t2 / n_used, speedup=t1 / t2))
    del inputs, xs
    gc.collect()
    return rows

