"""Run SciPy's and scikit-learn's own array-API tests with lazytensor as a backend.

    python tools/run_consumer_suites.py                      # everything, -n 2
    python tools/run_consumer_suites.py --suite scipy --submodules signal,fft
    python tools/run_consumer_suites.py --backends lazytensor --timeout 600

Nothing of SciPy's or scikit-learn's is committed or edited in place:

* SciPy: the installed ``scipy`` package is copied to ``<scratch>/site/scipy`` and its
  ``conftest.py`` gains a ``lazytensor`` entry in ``xp_known_backends`` and
  ``xp_available_backends`` (the ``xp`` fixture's params, marked ``array_api_backends``).
  Each run is ``pytest <scratch>/site/scipy/<sub> -m array_api_backends`` with
  ``SCIPY_ARRAY_API='["<backend>"]'`` (what SciPy's ``-b <backend>`` sets), so only that
  backend's parametrizations run.
* scikit-learn: a pytest plugin written to ``<scratch>/lt_consumer_plugin.py`` makes
  ``sklearn.utils._array_api.yield_namespaces`` yield only the chosen namespace
  (lazytensor with device None and dtypes float64 and float32, as array_api_strict gets
  two combinations), and the runs select ``-k <backend>`` over the installed sklearn's
  test files that parametrize over namespaces.

The same plugin logs every test report to a JSON-lines file as it arrives, so a run cut
by ``--timeout`` still counts what finished.  The table counts tests, not phases: a test
is ``error`` when its setup or teardown failed, ``failed`` when its call failed.
Run it from any directory but the repository root would import the worktree's
lazytensor; the script runs pytest with ``cwd=<scratch>`` so the installed one is used.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, OrderedDict
from pathlib import Path

SCIPY_SUBMODULES = ("_lib", "cluster", "constants", "differentiate", "fft", "integrate",
                    "interpolate", "linalg", "ndimage", "optimize", "signal", "spatial",
                    "special", "stats")
BACKENDS = ("lazytensor", "array_api_strict")

PLUGIN = r'''
"""pytest plugin written by tools/run_consumer_suites.py (lazytensor): logs each test
report to $LT_CONSUMER_LOG; with $LT_SKLEARN_NAMESPACE set, sklearn's array-API tests
parametrize over that namespace only."""
import json
import os

_NS = os.environ.get("LT_SKLEARN_NAMESPACE")
if _NS:
    import sys
    import sklearn.utils._array_api as _aa

    _combos = _aa.yield_namespace_device_dtype_combinations

    def yield_namespaces(include_numpy_namespaces=True):
        yield _NS

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        if _NS == "lazytensor":  # CPU only; both float dtypes, as array_api_strict gets
            yield _NS, None, "float64"
            yield _NS, None, "float32"
        else:
            yield from _combos(include_numpy_namespaces)

    patched = {"yield_namespaces": yield_namespaces,
               "yield_namespace_device_dtype_combinations":
                   yield_namespace_device_dtype_combinations}
    # the module itself and any sklearn module that took the names by `from ... import`
    # before this plugin ran (test modules are imported later and see the patch)
    for _mod in list(sys.modules.values()):
        if getattr(_mod, "__name__", "").startswith("sklearn"):
            for _name, _fn in patched.items():
                if getattr(_mod, _name, None) is not None:
                    setattr(_mod, _name, _fn)


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    text = str(report.longrepr)
    return text.strip().splitlines()[-1] if text.strip() else ""


def pytest_runtest_logreport(report):
    config = _CONFIG[0]
    if config is None or hasattr(config, "workerinput"):
        return  # xdist workers: the controller logs their forwarded reports
    outcome = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    if outcome == "passed" and report.when != "call":
        return
    rec = {"nodeid": report.nodeid, "when": report.when, "outcome": outcome}
    if outcome == "failed":
        rec["message"] = _message(report)[:2000]
        rec["location"] = _location(report)
    with open(os.environ["LT_CONSUMER_LOG"], "a") as f:
        f.write(json.dumps(rec) + "\n")


def _location(report):
    entries = getattr(getattr(report.longrepr, "reprtraceback", None), "reprentries", None)
    if not entries:
        return ""
    locs = []
    for e in entries:
        loc = getattr(e, "reprfileloc", None)
        if loc is not None:
            locs.append(f"{loc.path}:{loc.lineno}")
    # innermost first: where it broke, then who called
    return " <- ".join(reversed(locs[-6:]))


_CONFIG = [None]


def pytest_configure(config):
    _CONFIG[0] = config
'''

CONFTEST_KNOWN = "xp_known_backends = {'numpy', 'array_api_strict',"
CONFTEST_ANCHOR = "    xp_available_backend_ids = {p.id for p in xp_available_backends}"
CONFTEST_ADDITION = """    try:  # added by lazytensor's tools/run_consumer_suites.py (scratch copy only)
        import lazytensor
        xp_available_backends.append(
            pytest.param(lazytensor, id='lazytensor',
                         marks=pytest.mark.array_api_backends))
    except ImportError:
        pass
"""


def prepare_scipy(scratch: Path) -> Path:
    """Copy the installed scipy to scratch/site/scipy with lazytensor in its conftest."""
    import scipy
    src = Path(scipy.__file__).parent
    site = scratch / "site"
    dst = site / "scipy"
    stamp = dst / ".lt_patched"
    if not stamp.exists() or stamp.read_text() != str(src):
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"), symlinks=True)
        libs = src.parent / "scipy.libs"  # the wheel's vendored OpenBLAS, found via rpath
        if libs.exists() and not (site / "scipy.libs").exists():
            (site / "scipy.libs").symlink_to(libs)
        conftest = dst / "conftest.py"
        text = conftest.read_text()
        if CONFTEST_KNOWN not in text or CONFTEST_ANCHOR not in text:
            sys.exit(f"scipy {scipy.__version__}: conftest.py changed; update the anchors")
        text = text.replace(CONFTEST_KNOWN, "xp_known_backends = {'numpy', 'array_api_strict', "
                            "'lazytensor',", 1)
        text = text.replace(CONFTEST_ANCHOR, CONFTEST_ADDITION + CONFTEST_ANCHOR, 1)
        conftest.write_text(text)
        stamp.write_text(str(src))
    return site


def sklearn_test_files() -> list[str]:
    """sklearn's test files that parametrize over array namespaces (plus test_common,
    whose estimator checks include check_array_api_input)."""
    import sklearn
    root = Path(sklearn.__file__).parent
    files = []
    for path in sorted(root.rglob("test_*.py")):
        text = path.read_text(errors="replace")
        if "yield_namespace" in text or "array_api" in text:
            files.append(str(path))
    common = str(root / "tests" / "test_common.py")
    if common not in files:
        files.append(common)
    return files


def ensure_strict(scratch: Path) -> str:
    """array-api-strict, the reference backend: the installed one, else one pip puts in
    <scratch>/pydeps (never into the shared environment)."""
    deps = scratch / "pydeps"
    probe = [sys.executable, "-c", "import array_api_strict"]
    if subprocess.run(probe, capture_output=True).returncode == 0:
        return ""
    if not (deps / "array_api_strict").exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                        str(deps), "array-api-strict>=2.4"], check=True)
    return str(deps)


def write_plugin(scratch: Path) -> None:
    (scratch / "lt_consumer_plugin.py").write_text(PLUGIN)


def run_pytest(args, env, log: Path, timeout: float, cwd: Path):
    if log.exists():
        log.unlink()
    env = dict(os.environ, **env, LT_CONSUMER_LOG=str(log))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH_PREPEND"),
                                                    str(cwd), env.get("LT_PYDEPS")) if p)
    cmd = [sys.executable, "-m", "pytest", "-p", "lt_consumer_plugin", "-p",
           "no:cacheprovider", "-q", "--no-header", "-o", "addopts=", *args]
    t0 = time.time()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, text=True)
    capped = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        capped = True
        os.killpg(proc.pid, 15)  # our own session: pytest and its xdist workers
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            out, _ = proc.communicate()
    return {"cmd": cmd, "seconds": time.time() - t0, "capped": capped,
            "returncode": proc.returncode, "tail": out[-3000:]}


def tally(log: Path):
    """Per test: error if setup/teardown failed, else its call's outcome."""
    per_test: dict[str, str] = OrderedDict()
    failures = []
    if not log.exists():
        return Counter(), failures
    for line in log.read_text().splitlines():
        rec = json.loads(line)
        node, when, outcome = rec["nodeid"], rec["when"], rec["outcome"]
        if outcome == "failed":
            kind = "failed" if when == "call" else "error"
            failures.append(dict(rec, kind=kind))
            if per_test.get(node) != "error":
                per_test[node] = kind
        elif node not in per_test or when == "call":
            if per_test.get(node) not in ("failed", "error"):
                per_test[node] = outcome
    return Counter(per_test.values()), failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scratch", default="/tmp/lt_consumer_suites")
    ap.add_argument("--suite", choices=("scipy", "sklearn", "both"), default="both")
    ap.add_argument("--submodules", default=",".join(SCIPY_SUBMODULES))
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("-n", "--workers", default="2", help="pytest-xdist workers; 0 = no xdist")
    ap.add_argument("--timeout", type=float, default=900,
                    help="seconds per pytest run; a run over it is cut and marked capped")
    ap.add_argument("--results", default=None, help="JSON file for the counts and failures")
    ap.add_argument("--groups", metavar="RESULTS_JSON", default=None,
                    help="do not run: print the failures of --backends' first backend in "
                         "RESULTS_JSON grouped by normalized message, largest first")
    opts = ap.parse_args()
    if opts.groups:
        backend = opts.backends.split(",")[0]
        print_groups(json.loads(Path(opts.groups).read_text())["results"], backend)
        return

    scratch = Path(opts.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    write_plugin(scratch)
    os.environ["LT_PYDEPS"] = ensure_strict(scratch)
    backends = [b for b in opts.backends.split(",") if b]
    xdist = [] if opts.workers in ("0", "") else ["-n", opts.workers]
    runs = []  # (suite label, backend, pytest args, env): backend by backend, so a
    # deadline cuts the reference runs last
    site = prepare_scipy(scratch) if opts.suite in ("scipy", "both") else None
    files = sklearn_test_files() if opts.suite in ("sklearn", "both") else None
    for b in backends:
        if site is not None:
            for sub in [s for s in opts.submodules.split(",") if s]:
                runs.append((f"scipy.{sub}", b, [str(site / "scipy" / sub), "--rootdir",
                             str(site), "--confcutdir", str(site), "-m",
                             "array_api_backends", *xdist],
                             {"SCIPY_ARRAY_API": json.dumps([b]),
                              "PYTHONPATH_PREPEND": str(site)}))
        if files is not None:
            runs.append(("sklearn", b, [*files, "-k", b, *xdist],
                         {"SCIPY_ARRAY_API": "1", "LT_SKLEARN_NAMESPACE": b}))

    results = {}
    out = Path(opts.results) if opts.results else scratch / "results.json"
    t_all = time.time()
    for label, backend, args, env in runs:
        log = scratch / "logs" / f"{label}.{backend}.jsonl"
        log.parent.mkdir(exist_ok=True)
        info = run_pytest(args, env, log, opts.timeout, scratch)
        counts, failures = tally(log)
        if not counts and info["returncode"] not in (0, 5):
            counts["error"] = 1  # the run itself broke (conftest, collection): see tail
            print(info["tail"][-1500:])
        results.setdefault(label, {})[backend] = {
            "counts": dict(counts), "failures": failures, "seconds": info["seconds"],
            "capped": info["capped"], "cmd": info["cmd"], "env": env,
            "tail": info["tail"]}
        summary = re.findall(r"^=*\s*(\d+ \w+.*in [\d.]+s.*)$", info["tail"], re.M)
        print(f"{label:22s} {backend:17s} {dict(counts)} {info['seconds']:.0f}s"
              f"{' CAPPED' if info['capped'] else ''}  {summary[-1] if summary else ''}",
              flush=True)
        out.write_text(json.dumps({"wall_seconds": time.time() - t_all,
                                   "results": results}, indent=1))  # partial results kept
    wall = time.time() - t_all

    print()
    print_table(results, backends)
    print(f"\nwall time {wall / 60:.1f} min")
    out.write_text(json.dumps({"wall_seconds": wall, "results": results}, indent=1))
    print(f"counts and failure messages: {out}")


def _cell(r):
    if r is None:
        return "not run"
    c = r["counts"]
    s = f"{c.get('passed', 0)} / {c.get('failed', 0)} / {c.get('error', 0)}"
    return s + (" (capped)" if r["capped"] else "")


def print_table(results, backends):
    head = "| suite | " + " | ".join(f"{b} passed / failed / errors" for b in backends) + " |"
    print(head)
    print("|---" * (len(backends) + 1) + "|")
    totals = {b: Counter() for b in backends}
    for label, per in results.items():
        print(f"| {label} | " + " | ".join(_cell(per.get(b)) for b in backends) + " |")
        if label.startswith("scipy."):
            for b in backends:
                if b in per:
                    totals[b].update(per[b]["counts"])
    if any(totals.values()):
        print("| scipy total | " + " | ".join(
            f"{t.get('passed', 0)} / {t.get('failed', 0)} / {t.get('error', 0)}"
            for t in totals.values()) + " |")


_NORMALIZE = [
    (re.compile(r"0x[0-9a-f]+"), "0x?"),
    (re.compile(r"\(\d+(, \d*)*\)"), "(shape)"),
    (re.compile(r"\[[^\]]*\]"), "[...]"),
    (re.compile(r"'[^']*'"), "'?'"),
    (re.compile(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?"), "N"),
]


def normalize(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "(no message)"
    for pattern, repl in _NORMALIZE:
        line = pattern.sub(repl, line)
    return line[:160]


def print_groups(results, backend, top=40):
    groups: dict[str, list] = {}
    for label, per in results.items():
        for f in per.get(backend, {}).get("failures", []):
            groups.setdefault(normalize(f["message"]), []).append((label, f))
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    print(f"{sum(len(v) for v in groups.values())} failing phases of {backend}, "
          f"{len(groups)} groups")
    for key, items in ranked[:top]:
        where = Counter(label for label, _ in items)
        print(f"\n{len(items):5d}  {key}\n       in {dict(where.most_common(5))}")
        for label, f in items[:2]:
            print(f"       e.g. {f['nodeid']}\n            at {f.get('location', '')}")


if __name__ == "__main__":
    main()
