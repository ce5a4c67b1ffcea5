"""Bit-for-bit comparison of two builds of lazytensor on float32 inputs: every one of the
2^32 bit patterns (or every 2^(32-bits)-th) through a function in each build, per kernel path.

    python tools/compare_builds_float32.py --old /tmp/old_tree --new . gelu log log1p \\
        [--paths generic,avx2] [--bits 32] [--mode exact]
    python tools/compare_builds_float32.py --new . --reference-path avx2 --paths avx512 exp
    python tools/compare_builds_float32.py --old /tmp/old_tree --new . --reference-path avx2 \\
        --paths avx2,avx512 exp

The second form compares one build's kernel paths with each other: each path of ``--paths``
against ``--reference-path``; the third, each path of the new build against one path of the
old build (run once per function).  A path whose every result equals a path verified correctly
rounded on all 2^32 inputs (``tools/verify_float32.py``) is correctly rounded too, and this
costs the kernel and a digest per input instead of a float64 and MPFR reference.

A package cannot be imported twice under one name in one process, so each build runs in its
own child process (``PYTHONPATH`` = its tree, one after the other, one thread each), which
writes a SHA-256 digest of the result bits of each block of 2^24 inputs to a file; the parent
compares the two files.  A block whose digests differ is run again in both builds to name
the inputs that differ.  Exits 1 when any result differs.  (Used when a change must keep
every bit: for example a new way of loading a first pass's table, issue 41.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

BLOCK = 1 << 24


def _inputs(base, step, count):
    return np.arange(base, base + count * step, step, dtype=np.uint32).view(np.float32)


def _function(lt, name):
    """lt.NAME, else lt.nn.NAME (gelu, sigmoid, silu)"""
    return getattr(lt, name) if hasattr(lt, name) else getattr(lt.nn, name)


def _run(lt, name, x):
    return np.asarray(_function(lt, name)(lt.asarray(x))).view(np.uint32)


def child(args) -> int:
    """Digest every block (``--block -1``) or dump one block's results (``--block k``)."""
    import lazytensor as lt

    lt.set_num_threads(1)
    step = 1 << (32 - args.bits)
    per = BLOCK // step if step <= BLOCK else 1
    total = (1 << 32) // step
    out = {"build": os.path.dirname(os.path.dirname(os.path.abspath(lt.__file__))),
           "kernel_path": args.paths, "digests": {}}
    with lt.config(kernel_path=args.paths, mode=args.mode):
        assert lt.kernel_path() == args.paths, (lt.kernel_path(), args.paths)
        for name in args.functions:
            if args.block >= 0:
                x = _inputs(args.block * per * step, step, min(per, total - args.block * per))
                np.save(args.out, _run(lt, name, x))
                return 0
            digests = []
            first = _inputs(0, step, min(per, total)).view(np.uint32)
            x = np.empty_like(first)
            for k in range(0, total, per):   # the bit patterns k step + first, in place
                np.add(first, np.uint32(k * step), out=x)
                digests.append(hashlib.sha256(_run(lt, name, x.view(np.float32))).hexdigest())
            out["digests"][name] = digests
    with open(args.out, "w") as f:
        json.dump(out, f)
    return 0


def _spawn(tree, args, path, out, functions, block=-1):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--paths", path,
           "--bits", str(args.bits), "--mode", args.mode, "--out", out, "--block", str(block),
           *functions]
    # from a neutral folder, so that the current directory's package is not the one imported
    subprocess.run(cmd, env=env, check=True, cwd=tempfile.gettempdir())


def _sides(args, path):
    """(tag, source tree, kernel path) of the two runs compared on ``path``."""
    old_path = args.reference_path or path
    return (("old", args.old or args.new, old_path), ("new", args.new, path))


def _differing(args, tmp, name, path, k):
    """Print the inputs of block ``k`` whose results differ between the two sides."""
    got = {}
    for tag, tree, on in _sides(args, path):
        out = os.path.join(tmp, f"{tag}.npy")
        _spawn(tree, args, on, out, [name], block=k)
        got[tag] = np.load(out)
    step = 1 << (32 - args.bits)
    x = _inputs(k * (BLOCK // step if step <= BLOCK else 1) * step, step, len(got["old"]))
    idx = np.flatnonzero(got["old"] != got["new"])
    print(f"    block {k}: {len(idx)} inputs differ, first: "
          + ", ".join(f"x={x[i]!r} (0x{x.view(np.uint32)[i]:08x}) old "
                      f"0x{got['old'][i]:08x} new 0x{got['new'][i]:08x}"
                      for i in idx[:4]), flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("functions", nargs="+", help="lazytensor functions of one argument "
                    "(lt.NAME, else lt.nn.NAME: gelu, sigmoid, silu)")
    ap.add_argument("--old", help="source tree of the old build (holding lazytensor/)")
    ap.add_argument("--new", help="source tree of the new build")
    ap.add_argument("--paths", default="generic,avx2", help="kernel paths, comma-separated")
    ap.add_argument("--reference-path", help="the old side's kernel path for every path of "
                    "--paths (default: the same path); without --old, the old side is the "
                    "--new build on this path")
    ap.add_argument("--bits", type=int, default=32, help="compare 2^bits inputs (32: all)")
    ap.add_argument("--mode", default="exact", choices=("exact", "fast"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--block", type=int, default=-1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args)
    if not args.new or not (args.old or args.reference_path):
        ap.error("--new and one of --old, --reference-path are required")
    differ = 0
    old_label = os.path.abspath(args.old or args.new) + (
        f" on path {args.reference_path}" if args.reference_path else "")
    print(f"old {old_label}, new {os.path.abspath(args.new)}, mode {args.mode}, "
          f"2^{args.bits} inputs per function and path, blocks of 2^24", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.functions:
            kept = None      # the old side's digests, when every path compares with one run
            for path in args.paths.split(","):
                res, seconds = {}, {"old": 0.0}
                for tag, tree, on in _sides(args, path):
                    if tag == "old" and kept is not None:
                        res[tag] = kept
                        continue
                    out = os.path.join(tmp, f"{tag}.json")
                    start = time.perf_counter()
                    _spawn(tree, args, on, out, [name])
                    seconds[tag] = time.perf_counter() - start
                    with open(out) as f:
                        res[tag] = json.load(f)
                if args.reference_path:
                    kept = res["old"]
                a, b = res["old"]["digests"][name], res["new"]["digests"][name]
                bad = [k for k in range(len(a)) if a[k] != b[k]]
                print(f"{path:8s} {name:8s} blocks {len(a):4d}  differing blocks {len(bad):4d}  "
                      f"old {seconds['old']:6.1f} s  new {seconds['new']:6.1f} s", flush=True)
                for k in bad[:3]:
                    _differing(args, tmp, name, path, k)
                differ += len(bad)
    print("identical" if not differ else f"{differ} blocks differ", flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
