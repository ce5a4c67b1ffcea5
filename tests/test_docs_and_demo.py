"""The docs' operator table is current; the README demo runs."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_operator_table_in_docs_is_current():
    tool = ROOT / "tools" / "gen_op_table.py"
    if not tool.exists():
        pytest.fail("tools/gen_op_table.py is missing")
    r = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_demo_runs_and_reports_both_timings():
    r = subprocess.run([sys.executable, "-m", "lazytensor", "--n", "20000", "--repeat", "2"],
                       capture_output=True, text=True, timeout=120, cwd="/")
    assert r.returncode == 0, r.stderr
    for part in ("kernel path:", "mode: exact", "lazytensor (one fused kernel)", "NumPy",
                 "kernel 0:"):
        assert part in r.stdout, part
