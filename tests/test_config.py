"""Settings (lazytensor/_engine/config.py): the mode, threads and kernel path, their checks,
their scope (context and thread) and lt.config's restoring them."""

import os
import subprocess
import sys
import threading

import pytest

import lazytensor as lt


def test_set_mode_checks_the_name_and_keeps_the_canonical_one():
    with pytest.raises(ValueError, match="mode must be one of"):
        lt.set_mode("quick")
    try:
        lt.set_mode("".join(["fa", "st"]))      # an equal string, not the interned one
        from lazytensor._engine.config import _MODES
        assert lt.get_mode() is _MODES[1]          # C compares the mode by identity first
    finally:
        lt.set_mode("exact")


def test_the_mode_is_per_thread_and_context():
    seen = []
    with lt.mode("fast"):
        t = threading.Thread(target=lambda: seen.append(lt.get_mode()))
        t.start()
        t.join()
        assert lt.get_mode() == "fast"
    assert seen == ["exact"] and lt.get_mode() == "exact"


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", None])
def test_set_num_threads_takes_positive_integers(bad):
    before = lt.get_num_threads()
    with pytest.raises(ValueError, match="positive integer"):
        lt.set_num_threads(bad)
    assert lt.get_num_threads() == before


def test_config_restores_every_setting_even_after_an_error():
    before = (lt.kernel_path(), lt.get_num_threads(), lt.get_mode())
    path = lt.kernel_paths()[0]
    with pytest.raises(KeyError):
        with lt.config(kernel_path=path, num_threads=3, mode="fast"):
            assert (lt.kernel_path(), lt.get_num_threads(), lt.get_mode()) == (path, 3, "fast")
            raise KeyError("inside")
    assert (lt.kernel_path(), lt.get_num_threads(), lt.get_mode()) == before
    with pytest.raises(ValueError):
        lt.config(kernel_path="no-such-path").__enter__()
    assert (lt.kernel_path(), lt.get_num_threads(), lt.get_mode()) == before


def test_thread_count_from_the_environment():
    env = dict(os.environ, LAZYTENSOR_NUM_THREADS="3")
    out = subprocess.run([sys.executable, "-c", "import lazytensor as lt; print(lt.get_num_threads())"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"
