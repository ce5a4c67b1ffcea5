"""The Markdown report of bench_peers.py, its plots and the formatting of its figures."""

from __future__ import annotations

import datetime
import os
import platform
import shlex

import _peers_libs as L
from _benchutil import cpu_model, fmt_n, fmt_time, lscpu_facts, usable_cpus
from _peers_workloads import WORKLOADS


FAMILY_ORDER = ["numpy", "lt-exact", "lt-fast", "lt-jit", "numexpr", "onnxruntime", "torch",
                "torch.compile", "jax"]
FAMILY_NAME = {"numpy": "NumPy", "lt-exact": "lt exact", "lt-fast": "lt fast",
               "lt-jit": "lt fast jit", "numexpr": "numexpr", "onnxruntime": "ONNX Runtime",
               "torch": "PyTorch eager", "torch.compile": "torch.compile", "jax": "jax.jit"}
# "best peer": the fastest of these (NumPy included) whose result passed the check
PEER_FAMILIES = [f for f in FAMILY_ORDER if not f.startswith("lt-")]
EXACT_FAST_GOAL = 1.3           # issue 41: exact mode within 1.3x of fast mode


def ordered_labels(rows):
    """Implementation labels in family order, then in order of appearance."""
    seen = {}
    for i, r in enumerate(rows):
        if r["label"] not in seen:
            fam = FAMILY_ORDER.index(r["family"]) if r["family"] in FAMILY_ORDER else 99
            seen[r["label"]] = (fam, i)
    return sorted(seen, key=seen.get)


def primary(rows, family):
    """The row of ``family``'s first variant among ``rows`` (one workload, size and thread
    count), or None: the one the summaries show."""
    return next((r for r in rows if r["family"] == family), None)


def time_ratio(a, b):
    """Median time of row ``a`` over that of row ``b`` (NaN if either is missing)."""
    return a["median"] / b["median"] if a and b else float("nan")


def fmt_ratio(x):
    return "–" if x != x else f"{x:.2f}"


def written_out_summary(results, t):
    """The summary of the user-written workloads (``Workload.user_form``) at ``t`` threads:
    a table of lt fast against the best peer and lt exact against lt fast at the largest and
    the smallest size, lt fast against NumPy and PyTorch eager at the smallest, and a few
    lines counting where lazytensor is ahead."""
    rows = [r for r in results if r["threads"] == t]
    wls = [w for w in WORKLOADS if w.user_form and any(r["workload"] == w.name for r in rows)]
    if not wls:
        return []
    sizes = sorted({r["n"] for r in rows if r["workload"] == wls[0].name})
    groups = [("large", sizes[-1])] + ([("small", sizes[0])] if len(sizes) > 1 else [])
    table, tally = [], {}
    for wl in wls:
        rs = [r for r in rows if r["workload"] == wl.name]
        cells = []
        for g, _ in groups:
            n = (max if g == "large" else min)(r["n"] for r in rs)
            at = [r for r in rs if r["n"] == n]
            fast = primary(at, "lt-fast")
            peers = [r for r in at if r["family"] in PEER_FAMILIES and r["ok"]]
            best = min(peers, key=lambda r: r["median"]) if peers else None
            ratios = {"peer": time_ratio(fast, best),
                      "exact": time_ratio(primary(at, "lt-exact"), fast)}
            if g == "small":
                ratios["numpy"] = time_ratio(fast, primary(at, "numpy"))
                ratios["torch"] = time_ratio(fast, primary(at, "torch"))
            for k, x in ratios.items():
                tally.setdefault((g, k), []).append((wl.name, x))
            cells += ["–" if best is None else f"{FAMILY_NAME[best['family']]} "
                      f"{fmt_time(best['median'])}",
                      "–" if fast is None else
                      f"{fmt_time(fast['median'])}{'' if fast['ok'] else ' ✗'}"]
            cells += [fmt_ratio(x) for x in ratios.values()]
        table.append(f"| {wl.name} | " + " | ".join(cells) + " |")
    head, align = "| workload |", "|---|"
    for g, n in groups:
        head += (f" best peer, {fmt_n(n)} | lt fast | fast/peer | exact/fast |"
                 + (" fast/NumPy | fast/PyTorch eager |" if g == "small" else ""))
        align += "---:|" * (4 + 2 * (g == "small"))
    lines = [f"## Written out, {t} thread{'s' if t > 1 else ''}", "",
             "The workloads as a user writes them: the `*_expr` forms and those with only one "
             "form, each library in its own spelling. Time per call (median) at the largest "
             "and the smallest size; best peer = the fastest of NumPy and the peers whose "
             "result passed the check; fast/peer = lt fast time / best peer time (< 1: "
             "lazytensor ahead), likewise fast/NumPy and fast/PyTorch eager; exact/fast = "
             "lt exact time / lt fast time.", "", head, align] + table + [""]

    def ahead(key):
        got = [(w, x) for w, x in tally[key] if x == x]
        if not got:
            return "not run"
        behind = ", ".join(f"{w} {x:.2f}" for w, x in got if x >= 1)
        return (f"lt fast ahead on {sum(x < 1 for _, x in got)} of {len(got)}"
                + (f" (behind: {behind})" if behind else ""))

    def exact_fast(key):
        got = [(w, x) for w, x in tally[key] if x == x]
        if not got:
            return "exact/fast: not run"
        over = ", ".join(f"{w} {x:.2f}" for w, x in got if x > EXACT_FAST_GOAL)
        return (f"exact/fast {min(x for _, x in got):.2f}-{max(x for _, x in got):.2f}"
                + (f", above {EXACT_FAST_GOAL} on {over}" if over
                   else f", all within {EXACT_FAST_GOAL}"))

    for g, n in groups:
        against = [f"against the best peer, {ahead((g, 'peer'))}"]
        if g == "small":
            against += [f"against NumPy, {ahead((g, 'numpy'))}",
                        f"against PyTorch eager, {ahead((g, 'torch'))}"]
        lines.append(f"- At {fmt_n(n)}: " + "; ".join(against + [exact_fast((g, "exact"))])
                     + ".")
    return lines + [""]


def fmt_ns(s):
    ns = s * 1e9
    if ns != ns:
        return "–"
    return f"{ns:.3g}" if ns < 100 else f"{ns:.0f}"


def fmt_err(row):
    if row["ulp"] != row["ulp"]:
        return "–"
    if row["workload"] == "quantize":
        return f"{row['ulp']:.0f} lvl"
    u = row["ulp"]
    return f"{u:.3g}" if u < 1e4 else f"{u:.1e}"


def fmt_norm(v, wl):
    if v != v or wl.integer:
        return "–"
    return f"{v:.2g}"


def machine_lines():
    f = lscpu_facts()
    model = f.get("Model name", cpu_model())
    cores = (f"{f.get('CPU(s)', os.cpu_count())} CPUs ({f.get('Socket(s)', '?')} socket × "
             f"{f.get('Core(s) per socket', '?')} cores × {f.get('Thread(s) per core', '?')} "
             "threads)")
    caches = ", ".join(f"{k} {f[k]}" for k in ("L1d cache", "L2 cache", "L3 cache") if k in f)
    hv = f" · virtualised ({f['Hypervisor vendor']})" if "Hypervisor vendor" in f else ""
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
        memtxt = f" · {mem:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        memtxt = ""
    return [f"- Machine: {model}, {cores}; {caches}{hv}{memtxt}; "
            f"{platform.system()} {platform.release()}, usable CPUs {usable_cpus()}"]


def plot_workload(wl, rows, threads_list, bw, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = ordered_labels(rows)
    cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
    color = {lab: cmap(i % cmap.N) for i, lab in enumerate(labels)}
    color["NumPy"] = "black"
    fig, axes = plt.subplots(1, len(threads_list), figsize=(5.2 * len(threads_list), 4.2),
                             sharey=True, squeeze=False)
    for ax, t in zip(axes[0], threads_list):
        for lab in labels:
            pts = sorted((r["n"], r["per_elem"] * 1e9, r["ok"]) for r in rows
                         if r["label"] == lab and r["threads"] == t)
            if not pts:
                continue
            style = "-" if lab.startswith("lt ") else "--"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3,
                    color=color[lab], label=lab)
            for p in pts:
                if not p[2]:
                    ax.plot(p[0], p[1], "x", color="red", ms=9)
        bpe = next((r["bytes_per_elem"] for r in rows), None)
        if bpe and ("add", t) in bw:
            floor = bpe / bw[("add", t)]       # ns per element, GB/s = bytes/ns
            ax.axhline(floor, color="black", ls=":", lw=1,
                       label=f"memory floor ({bw[('add', t)]:.1f} GB/s)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("N (elements)")
        ax.set_title(f"{wl.name}, {t} thread{'s' if t > 1 else ''}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("ns per element (median)")
    axes[0][-1].legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def write_report(args, argv, impls, notes, bw, results, skipped, out, img_dir, elapsed,
                 scaling=()):
    lines = ["# lazytensor against peer libraries (float32)", ""]
    cmd = shlex.join(["python", os.path.relpath(L.SCRIPT)] + list(argv))
    lines += ["Generated by `benchmarks/bench_peers.py`; see `benchmarks/README.md` for how it "
              "measures. This is a measurement on one machine, not a test.", ""]
    lines += [f"- Command: `{cmd}`",
              f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
              f"total run time {elapsed / 60:.1f} min"]
    lines += machine_lines()
    versions = []
    for i in impls:
        if i.version() not in versions:
            versions.append(i.version())
    try:
        import matplotlib
        versions.append(f"matplotlib {matplotlib.__version__}")
    except ImportError:
        pass
    lines += [f"- Python {platform.python_version()}; " + "; ".join(versions)]
    lines += [f"- lazytensor kernel path: `{L.lt.kernel_path()}` (available: "
              f"{', '.join(map(str, L.lt.kernel_paths()))})",
              "- Thread control: " + "; ".join(
                  f"{i.label}: {i.threads_note}" for i in impls if i.key not in ("lt-fast", "lt-jit")),
              f"- OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}; sizes "
              f"{', '.join(fmt_n(n) for n in args.sizes)}; threads {args.threads}; repeats "
              + (str(args.repeats) if args.repeats else "31 up to 10^5, 21 up to 10^6, 7 above")]
    for note in notes:
        lines.append(f"- {note}")
    lines.append("")

    lines += ["## Memory bandwidth floor", "",
              f"STREAM-style, NumPy into preallocated float32 buffers of {args.stream_mib} MiB, "
              "best of 10, split over T Python threads:", "",
              "| kernel | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in args.threads)
              + " |", "|---|" + "---:|" * len(args.threads)]
    for k, desc in (("copy", "Copy b = a (8 B/elem)"), ("add", "Add c = a + b (12 B/elem)")):
        lines.append(f"| {desc} | " + " | ".join(
            f"{bw[(k, t)]:.1f} GB/s" if (k, t) in bw else "–" for t in args.threads) + " |")
    lines += ["", "The floor of a workload is (input + output bytes per element) / Add bandwidth: "
              "no implementation that reads its inputs and writes its output once from memory "
              "can go below it at large N (at small N the data sits in cache).", ""]

    fams = ordered_labels(results)
    # summary columns: one per family, the workload's first (primary) variant
    fam_keys = [f for f in FAMILY_ORDER if any(r["family"] == f for r in results)]
    for t in args.threads:
        big = [r for r in results if r["threads"] == t]
        if not big:
            continue
        lines += [f"## Summary at the largest size, {t} thread{'s' if t > 1 else ''}", "",
                  "ns per element (median); in brackets the speed-up over NumPy (> 1: faster "
                  "than NumPy). ✗ = result failed the check; n/a = not run (see the "
                  "workload's section). A workload `<name>_expr` is `<name>` written out as a "
                  "user writes it (`0.5 * x * (1 + lt.erf(x / sqrt(2)))` for `lt.nn.gelu`), "
                  "each library in its own spelling. For silu, logsumexp_rows and "
                  "softmax_rows the lazytensor columns are `lt.nn.silu`, `lt.nn.logsumexp` "
                  "and `lt.nn.softmax`; their other forms are in their sections. "
                  "Floor = memory-bandwidth floor; exact/fast = lt exact time / lt fast "
                  "time.", ""]
        cols = [f for f in fam_keys if any(r["family"] == f for r in big)]
        both = "lt-exact" in cols and "lt-fast" in cols
        lines += ["| workload | N | floor | " + " | ".join(FAMILY_NAME[f] for f in cols)
                  + (" | exact/fast" if both else "") + " |",
                  "|---|---:|---:|" + "---:|" * (len(cols) + both)]
        for wl in WORKLOADS:
            rs = [r for r in big if r["workload"] == wl.name]
            if not rs:
                continue
            n_top = max(r["n"] for r in rs)
            rs = [r for r in rs if r["n"] == n_top]
            bpe = rs[0]["bytes_per_elem"]
            floor = fmt_ns(bpe / bw[("add", t)] * 1e-9) if ("add", t) in bw else "–"
            cells = []
            for f in cols:
                r = primary(rs, f)
                cells.append("n/a" if r is None else
                             f"{fmt_ns(r['per_elem'])} ({r['vs_numpy']:.2f}){'' if r['ok'] else ' ✗'}")
            if both:
                cells.append(fmt_ratio(time_ratio(primary(rs, "lt-exact"),
                                                  primary(rs, "lt-fast"))))
            lines.append(f"| {wl.name} | {fmt_n(n_top)} | {floor} | " + " | ".join(cells) + " |")
        lines.append("")
        lines += written_out_summary(results, t)

    if scaling:
        lines += ["## Two threads against one (lazytensor, interleaved)", "",
                  "ns per element (median) of the workload's first lazytensor form with one "
                  "and two threads, the two called alternately within each of "
                  f"{scaling[0]['repeat']} rounds (`measure_scaling`), and the speed-up "
                  "T=1 / T=2. The summaries above time T=1 and T=2 in separate passes minutes "
                  "apart, so their ratio also carries the machine's drift between the passes.",
                  "", "| workload | N | fast T=1 | fast T=2 | speed-up | exact T=1 | exact T=2 "
                  "| speed-up |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for wl in WORKLOADS:
            rs = {r["mode"]: r for r in scaling if r["workload"] == wl.name}
            if not rs:
                continue
            cells = []
            for mode in ("fast", "exact"):
                r = rs.get(mode)
                cells += (["–"] * 3 if r is None else
                          [fmt_ns(r["t1_per_elem"]), fmt_ns(r["t2_per_elem"]),
                           f"{r['speedup']:.2f}"])
            n_used = next(iter(rs.values()))["n"]
            lines.append(f"| {wl.name} | {fmt_n(n_used)} | " + " | ".join(cells) + " |")
        lines.append("")

    lines += ["## Per workload", "",
              "Each table: ns per element (median) and, in brackets, the speed-up over NumPy "
              "at the same size and thread count; the first call (setup: ONNX session, "
              "compile or trace, kernel plan; plus the first run) at the largest size; the "
              "largest error over all sizes, elementwise in float32 ulps of the float64 "
              "reference (counted at max(|ref|, 2^-20); quantize: in levels) and normwise "
              "(max |err| / max |ref|, in float32 ε = 2^-23); and the check. Large "
              "elementwise errors that every implementation shares come from the formula "
              "itself in float32 (e.g. 1+erf(x) cancelling for negative x), not from the "
              "implementation.", ""]
    for wl in WORKLOADS:
        rs = [r for r in results if r["workload"] == wl.name]
        if not rs:
            continue
        lines += [f"### {wl.name}: `{wl.formula}`", ""]
        if wl.note:
            lines += [f"Note: {wl.note}.", ""]
        img = f"peers_{wl.name.replace('*', 'x').replace('+', 'p')}.png"
        if args.plots:
            try:
                plot_workload(wl, rs, args.threads, bw, os.path.join(img_dir, img))
                rel = os.path.relpath(os.path.join(img_dir, img), os.path.dirname(out) or ".")
                lines += [f"![{wl.name}]({rel})", ""]
            except Exception as exc:
                lines += [f"(plot failed: {type(exc).__name__}: {exc})", ""]
        sizes = sorted({r["n"] for r in rs})
        lines += ["| T | implementation | " + " | ".join(fmt_n(n) for n in sizes)
                  + " | first call | max err (ulp) | normwise err (ε) | check |",
                  "|---:|---|" + "---:|" * len(sizes) + "---:|---:|---:|---|"]
        for t in args.threads:
            for lab in fams:
                mine = [r for r in rs if r["label"] == lab and r["threads"] == t]
                if not mine:
                    continue
                by_n = {r["n"]: r for r in mine}
                cells = [f"{fmt_ns(by_n[n]['per_elem'])} ({by_n[n]['vs_numpy']:.2f})"
                         if n in by_n else "–" for n in sizes]
                top = by_n[max(by_n)]
                worst = max(mine, key=lambda r: (r["ulp"] if r["ulp"] == r["ulp"] else -1))
                worst_norm = max((r["norm"] for r in mine if r["norm"] == r["norm"]),
                                 default=float("nan"))
                bad = [r for r in mine if not r["ok"]]
                chk = "ok" if not bad else "**WRONG**: " + "; ".join(
                    f"N={fmt_n(r['n'])}: {r['why']}" for r in bad)
                lines.append(f"| {t} | {lab} | " + " | ".join(cells)
                             + f" | {fmt_time(top['first'])} | {fmt_err(worst)} "
                             f"| {fmt_norm(worst_norm, wl)} | {chk} |")
        sk = sorted({(lab, why) for (w, lab, why) in skipped if w == wl.name})
        for lab, why in sk:
            lines.append(f"\nNot run: {lab}: {why}.")
        lines.append("")

    lines += ["## How to read this", "",
              "- Timing: one process; inputs are made once per workload and size; every "
              "implementation is called once untimed after its first call, then all run in "
              "interleaved rounds (in a new random order each round; up to 10^6 elements "
              "each sample follows an untimed call of its own implementation) and each "
              "median is taken over "
              "its rounds. A sample is the mean of k back-to-back calls, k = min(100, "
              "10^5 / N) (at least 1): at 10^3 a single call measures cold caches more than "
              "the call. A lazytensor call builds the lazy expression and evaluates it "
              "(`.numpy()`); torch calls return `.numpy()` of the result; ONNX Runtime "
              "returns a NumPy array; jax calls end with `block_until_ready()` in a helper "
              "process pinned to T CPUs (its data stays in jax buffers).",
              "- NumPy's elementwise ufuncs are single-threaded: its T=2 numbers are T=1 work "
              "measured again; the ratios use NumPy at the same T.",
              "- The check compares each implementation's first result with a float64 "
              "NumPy/SciPy reference computed from the same float32 inputs: same size, the "
              "expected dtype, and within rtol 1e-4 + atol 1e-5·max|ref| (quantize: one "
              "level). Results failing it are marked ✗/WRONG and must not be read as timings "
              "of the same work.",
              "- The first-call column includes everything done once: building the ONNX "
              "session, torch.compile's tracing and C++ code generation (its on-disk cache may "
              "make repeated runs warmer), jax's trace and XLA compile, lazytensor's plan.",
              ""]
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


