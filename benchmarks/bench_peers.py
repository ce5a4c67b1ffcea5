"""Peer benchmark: lazytensor against NumPy, numexpr, ONNX Runtime, PyTorch, torch.compile and jax.jit.

Float32 elementwise workloads and a few reductions over them, at several sizes and thread
counts.  Every implementation runs in one process (jax in a helper process pinned to the
thread count, driven call by call), interleaved round by round (below 10^5 elements a
sample is a short run of back-to-back calls); the report gives medians,
time per element, the ratio to NumPy, the first-call (setup/compile) cost, and each
implementation's error against a float64 NumPy/SciPy reference.  A STREAM-style copy/add
bandwidth measured with NumPy gives the memory floor of the streaming workloads.

    python benchmarks/bench_peers.py --out docs/benchmarks-peers.md

Peers that cannot be imported are skipped with a note.  This is a measurement, not a test.

This file is the command line and the measurement loop; the workloads, the implementations
(and the jax helper), the measurement of one workload and the report are in the
``_peers_*.py`` modules beside it (benchmarks/README.md lists them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

# Before any library with an OpenMP/thread pool is imported: idle worker threads sleep instead
# of spinning, so one implementation's spinning threads do not steal the CPU from the next one
# in the interleaved rounds.  An explicit setting in the environment is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from _benchutil import default_repeat, fmt_n, fmt_time, parse_int_list, parse_sizes  # noqa: E402
import _peers_libs as L  # noqa: E402
from _peers_impls import ALL_IMPLS, JaxImpl, jax_worker_main, load_peers, set_threads  # noqa: E402
from _peers_measure import measure, measure_scaling, stream_bandwidth  # noqa: E402
from _peers_report import fmt_err, fmt_ns, write_report, written_out_summary  # noqa: E402
from _peers_workloads import WL  # noqa: E402

DEFAULT_SIZES = "1e3,1e5,1e6,1e7"


# ---- command line ------------------------------------------------------------------------

def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=parse_sizes, default=parse_sizes(DEFAULT_SIZES),
                    help=f"element counts (default {DEFAULT_SIZES})")
    ap.add_argument("--threads", type=parse_int_list, default=[1, 2],
                    help="thread counts (default 1,2)")
    ap.add_argument("--repeats", type=int, default=None,
                    help="timed rounds (default 31 up to 1e5, 21 up to 1e6, 7 above)")
    ap.add_argument("--workloads", default=",".join(WL),
                    help="comma-separated subset of: " + ",".join(WL))
    ap.add_argument("--impls", default=",".join(ALL_IMPLS),
                    help="comma-separated subset of: " + ",".join(ALL_IMPLS)
                         + " (NumPy always runs)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stream-mib", type=int, default=128,
                    help="MiB per buffer of the bandwidth measurement (default 128; 0: skip)")
    ap.add_argument("--out", default="docs/benchmarks-peers.md", help="Markdown report path")
    ap.add_argument("--img-dir", default=None, help="plot folder (default: <out dir>/img)")
    ap.add_argument("--no-plots", dest="plots", action="store_false")
    ap.add_argument("--no-scaling", dest="scaling", action="store_false",
                    help="skip lazytensor's interleaved one-against-two-threads measurement "
                         "(run when the threads include 1 and 2 and the largest size is at "
                         "least 10^6)")
    ap.add_argument("--json", default=None,
                    help="raw results file (default: <img dir>/benchmarks-peers.json)")
    ap.add_argument("--jax-worker", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.jax_worker is not None:
        return jax_worker_main(args.jax_worker, args.seed)
    if L.erf is None:
        ap.error("scipy is needed (the NumPy side of the erf workloads and the reference)")
    if args.repeats is not None and args.repeats < 1:
        ap.error("--repeats must be at least 1")
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in workloads if w not in WL]
    if unknown:
        ap.error(f"unknown workloads {unknown}")
    wanted = {w.strip() for w in args.impls.split(",") if w.strip()}
    if wanted - set(ALL_IMPLS) - {"numpy"}:
        ap.error(f"unknown implementations {sorted(wanted - set(ALL_IMPLS))}")
    img_dir = args.img_dir or os.path.join(os.path.dirname(os.path.abspath(args.out)), "img")
    os.makedirs(img_dir, exist_ok=True)
    json_path = args.json or os.path.join(img_dir, "benchmarks-peers.json")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    impls, notes = load_peers(wanted, args.seed)
    for note in notes:
        log(note)
    bw = {}
    if args.stream_mib > 0:
        bw = stream_bandwidth(args.threads, args.stream_mib)
        log("bandwidth: " + ", ".join(f"{k} T={t}: {v:.1f} GB/s" for (k, t), v in bw.items()))

    results, skipped = [], []
    try:
        for t in args.threads:
            set_threads(impls, t)
            for n in args.sizes:
                repeat = args.repeats or default_repeat(n)
                for name in workloads:
                    wl = WL[name]
                    log(f"T={t} N={fmt_n(n)} {name}")
                    active = list(impls)
                    rows, sk = measure(wl, n, t, active, repeat, args.seed, log)
                    results += rows
                    skipped += [(name, lab, why) for lab, why in sk]
                    for r in rows:
                        log(f"    {r['label']:24s} {fmt_ns(r['per_elem']):>7s} ns/elem  "
                            f"x{r['vs_numpy']:5.2f} vs NumPy  first {fmt_time(r['first']):>9s}  "
                            f"err {fmt_err(r)}{'' if r['ok'] else '  WRONG'}")
                    # a jax worker that died is not asked again
                    for impl in impls:
                        if isinstance(impl, JaxImpl):
                            for tt, w in list(impl.workers.items()):
                                if w.proc.poll() is not None:
                                    log(f"jax helper for T={tt} exited; jax dropped at T={tt}")
                                    notes.append(f"the jax helper process (T={tt}) exited "
                                                 f"during the run (at {name}, N={fmt_n(n)})")
                                    impl.failed[tt] = "jax helper process exited"
                                    del impl.workers[tt]
            for impl in impls:          # this thread count is done: stop its jax helper
                if isinstance(impl, JaxImpl) and t in impl.workers:
                    impl.workers.pop(t).close()
    finally:
        for impl in impls:
            if isinstance(impl, JaxImpl):
                impl.close()
    scaling = []
    big = max(args.sizes)
    if {1, 2} <= set(args.threads) and big >= 10 ** 6 and args.scaling:
        for name in workloads:
            log(f"two threads against one, N={fmt_n(big)} {name}")
            rows = measure_scaling(WL[name], big, args.repeats or 2 * default_repeat(big),
                                   args.seed)
            scaling += rows
            for r in rows:
                log(f"    lt {r['mode']:5s} T=1 {fmt_ns(r['t1_per_elem']):>7s}  T=2 "
                    f"{fmt_ns(r['t2_per_elem']):>7s} ns/elem  speed-up {r['speedup']:.2f}")
    elapsed = time.perf_counter() - t_start
    with open(json_path, "w", encoding="utf-8") as fh:
        json.dump({"argv": argv, "bandwidth": {f"{k}@{t}": v for (k, t), v in bw.items()},
                   "results": results, "scaling": scaling, "skipped": skipped}, fh, indent=1,
                  default=str)
    write_report(args, argv, impls, notes, bw, results, skipped, args.out, img_dir, elapsed,
                 scaling)
    for t in args.threads:          # the report's summary lines of the written-out workloads
        for line in written_out_summary(results, t):
            if line.startswith("- At "):
                log(f"T={t}, written out: {line[2:]}")
    log(f"wrote {args.out}, plots in {img_dir}, raw results {json_path} "
        f"({elapsed / 60:.1f} min)")
    bad = [r for r in results if not r["ok"]]
    if bad:
        log(f"{len(bad)} results failed the check: " + ", ".join(
            sorted({f"{r['label']} on {r['workload']}" for r in bad})))


if __name__ == "__main__":
    main()
