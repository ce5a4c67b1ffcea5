"""Run the official Array API conformance suite (data-apis/array-api-tests) on lazytensor.

    python tools/run_array_api_tests.py PATH_TO_ARRAY_API_TESTS [--max-examples N]
                                        [--workers N] [-- extra pytest arguments]

PATH_TO_ARRAY_API_TESTS is a checkout of the suite with the spec repository (data-apis/
array-api) checked out in its ``array-api/`` folder at the commit the suite pins (the
suite's ``array-api`` submodule).  The suite needs ``pip install hypothesis ndindex
pytest-json-report`` (and pytest-xdist for --workers).  Nothing is skipped or marked
xfail here beyond what the suite skips itself.  Prints the pass/fail counts and the time.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Arguments after -- are passed to pytest.")
    ap.add_argument("suite", type=pathlib.Path, help="checkout of data-apis/array-api-tests")
    ap.add_argument("--max-examples", type=int, default=20, help="hypothesis examples per test")
    ap.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (0: none)")
    ap.add_argument("--version", default="2025.12", help="Array API version to test")
    argv = list(sys.argv[1:] if argv is None else argv)
    # what follows "--" goes to pytest as it is (argparse would refuse its options)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)

    suite = args.suite.resolve()
    if not (suite / "array_api_tests").is_dir():
        ap.error(f"{suite} is not a checkout of array-api-tests (no array_api_tests/ folder)")
    if not any((suite / "array-api").glob("src/array_api_stubs/_*")):
        ap.error(f"{suite}/array-api has no spec: clone data-apis/array-api there at the commit "
                 f"the suite pins (git submodule status shows it)")
    env = dict(os.environ, ARRAY_API_TESTS_MODULE="lazytensor",
               ARRAY_API_TESTS_VERSION=args.version)
    cmd = [sys.executable, "-m", "pytest", "array_api_tests", "-p", "no:cacheprovider",
           f"--max-examples={args.max_examples}", "-q", "-rf", "--disable-warnings"]
    if args.workers:
        cmd += ["-n", str(args.workers)]
    cmd += extra
    print("running:", " ".join(cmd), f"(in {suite})", flush=True)
    start = time.perf_counter()
    rc = subprocess.call(cmd, cwd=suite, env=env)
    print(f"array-api-tests at --max-examples={args.max_examples}: exit {rc}, "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
