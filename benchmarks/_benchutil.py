"""Helpers shared by the benchmark scripts (formatting, machine facts, option parsing).

Not part of the lazytensor package; imported by the ``bench_*.py`` scripts, which put this
folder first on ``sys.path`` by being run as scripts.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import subprocess
import time


def fmt_time(s):
    """A duration in seconds as µs, ms or s with a few significant digits."""
    if s != s:  # NaN
        return "–"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def fmt_n(n):
    """10^k for powers of ten, else the number with thousands separators."""
    e = len(str(n)) - 1
    return f"10^{e}" if n == 10 ** e else f"{n:,}"


def cpu_model():
    """The CPU model name from /proc/cpuinfo (or what platform knows)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def lscpu_facts():
    """A few lines of ``lscpu`` (model, cores, caches) as a dict; empty if lscpu is missing."""
    keys = ("Model name", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Socket(s)",
            "L1d cache", "L2 cache", "L3 cache", "Hypervisor vendor")
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    facts = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            if k.strip() in keys:
                facts[k.strip()] = v.strip()
    return facts


def usable_cpus():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return list(range(os.cpu_count() or 1))


def git_commit():
    """The short commit of the work tree this script sits in, with "+dirty" if modified."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here,
                             capture_output=True, text=True, timeout=5)
        commit = out.stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True, timeout=5).stdout
        return commit + ("+dirty" if dirty.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def timed(fn):
    """``(seconds, result)`` of one call of ``fn``."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def calls_per_sample(n):
    """Back-to-back calls averaged into one timed sample: one at 10^6 and up, more below so
    that a sample is a hot loop of at least ~10^5 elements' work (a single call of a small
    size measures cold caches and branch predictors more than the call)."""
    return max(1, min(100, 100_000 // max(n, 1)))


def default_repeat(n):
    """Timed repetitions per size when --repeat is not given (keeps a default run short)."""
    if n <= 100_000:
        return 31
    if n <= 1_000_000:
        return 21
    return 7


def timed_calls(fn, k):
    """Mean seconds per call of ``k`` back-to-back calls of ``fn``."""
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k


def parse_sizes(text):
    """``"1e3,1e6"`` -> ``[1000, 1000000]`` (for argparse ``type=``)."""
    sizes = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            n = int(float(part))
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a size: {part!r}") from None
        if n < 1:
            raise argparse.ArgumentTypeError(f"sizes must be positive, not {part!r}")
        sizes.append(n)
    if not sizes:
        raise argparse.ArgumentTypeError("no sizes given")
    return sizes


def parse_int_list(text):
    """``"1,2"`` -> ``[1, 2]``, each at least 1."""
    try:
        vals = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"need positive integers, not {text!r}")
    return vals


def import_lazytensor(retries=10, delay=3.0):
    """``import lazytensor``, retrying for a while: the extension may be being rebuilt."""
    last = None
    for _ in range(retries):
        try:
            return importlib.import_module("lazytensor")
        except Exception as exc:  # ImportError, OSError from cffi while the .so is rewritten
            last = exc
            time.sleep(delay)
    raise last


class Flush:
    """``--flush MiB``: a buffer of that size written before each timed call, so that a large
    input comes from memory rather than from a large L3 (as between the peers' calls in
    bench_peers.py).  ``flush()`` writes it (nothing for 0 MiB); ``note`` is for a header."""

    @staticmethod
    def add_option(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--flush", type=float, default=0,
                        help="MiB written before each timed call (default 0: none)")

    def __init__(self, mib: float):
        import numpy as np

        self.buffer = np.zeros(int(mib * 2**20) // 8)
        self.note = f"; {mib:g} MiB written before each call" if self.buffer.size else ""

    def __call__(self) -> None:
        if self.buffer.size:
            self.buffer += 1.0
