"""The caches kept between evaluations are bounded by the size of what they hold, and
``lt.empty_cache()`` releases them (issue 37, defect 8: plans of big DAGs stayed in memory)."""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import evaluate as _eval
from lazytensor._engine import jit as _jit
from lazytensor._engine import kernel as _kernel

BUDGET = 4000          # key items, for the quick table in these tests (its default is larger)


def _chain(x, n, c):
    """n steps of ``y = y * c + x``, a DAG of 2n pending nodes (its key lists each)."""
    y = x
    for _ in range(n):
        y = y * c + x
    return y


def _chain_ref(a, n, c):
    y = a
    for _ in range(n):
        y = y * c + a
    return y


def _plan_items():
    """What the quick table C reads holds, counted from its keys themselves."""
    return sum(len(k) for k in list(_kernel._quick))


@pytest.fixture
def small_budget(monkeypatch):
    table = getattr(_kernel, "_quick_table", None)     # (absent before the bound existed)
    if table is not None:
        monkeypatch.setattr(table, "budget", BUDGET)
    lt.empty_cache()
    _kernel.clear_cache()
    yield
    lt.empty_cache()
    _kernel.clear_cache()


def test_plans_of_big_dags_are_bounded_by_size(small_budget):
    a = np.linspace(-1, 1, 16)
    x = lt.asarray(a)
    small = lambda: (x * 2.0 + 1.0).numpy()          # noqa: E731  (a repeated expression)
    small()
    gc.collect()
    objects_before = len(gc.get_objects())
    for k in range(10):
        n = 700 + 13 * k        # distinct structures: each DAG gets a plan of its own
        y = _chain(x, n, 1.0 + 2.0 ** -(k + 3))
        np.testing.assert_array_equal(y.numpy(), _chain_ref(a, n, 1.0 + 2.0 ** -(k + 3)))
        del y
        gc.collect()
        held = _plan_items()
        assert held <= BUDGET, f"the quick table holds {held} key items after DAG {k}"
        if hasattr(_kernel, "cache_sizes"):
            assert _kernel.cache_sizes()["plan_items"] == held    # its own accounting agrees
    # independent of any accounting: what stays alive after the DAGs are gone is bounded
    # by the budget (a key item is a tuple or two), not by the DAGs evaluated
    assert len(gc.get_objects()) - objects_before <= 4 * BUDGET + 3000
    # the small entry survived the big plans, and hits
    _eval.flush_counts()
    hits = _kernel.cache_stats["hits"]
    for _ in range(20):
        np.testing.assert_array_equal(small(), a * 2.0 + 1.0)
    _eval.flush_counts()
    assert _kernel.cache_stats["hits"] - hits >= 20


def test_jit_traces_are_bounded_by_size(monkeypatch):
    monkeypatch.setattr(_jit, "_MAX_NODES", BUDGET, raising=False)
    f = lt.jit(_chain)
    a = np.linspace(-1, 1, 8)
    x = lt.asarray(a)
    for k in range(12):
        n = 300 + k             # a plain argument: a signature (and a trace) of its own
        np.testing.assert_array_equal(f(x, n, 0.5).numpy(), _chain_ref(a, n, 0.5))
    traced = f.programs.values()
    nodes = sum(len(p.templates) for p in traced if hasattr(p, "templates"))
    assert nodes <= BUDGET, f"{len(f.programs)} traces of {nodes} nodes kept"
    # a repeated call still replays
    _eval.flush_counts()
    replayed = _jit.stats["replayed"]
    for _ in range(3):
        np.testing.assert_array_equal(f(x, 311, 0.5).numpy(), _chain_ref(a, 311, 0.5))
    _eval.flush_counts()
    assert _jit.stats["replayed"] - replayed >= 2


def _kept_kernels():
    """Weak references to every compiled kernel the quick table holds (directly, or as a
    step of a kept plan)."""
    refs = []
    for value in list(_kernel._quick.values()):
        if isinstance(value, _kernel.CompiledKernel):
            refs.append(weakref.ref(value))
        elif isinstance(value, list):
            refs += [weakref.ref(s.kernel) for s in value if s.kernel is not None]
    return refs


def test_empty_cache_releases_kernels_plans_traces_and_recipes():
    lt.empty_cache()
    gc.collect()
    tracemalloc.start()
    try:
        a = np.linspace(-1, 1, 32)
        x = lt.asarray(a)
        for _ in range(3):     # a small expression, through the C quick path and its memo
            (x * 3.0 - 1.0).numpy()
        y = _chain(x, 1500, 0.75)          # a plan of several kernels
        np.testing.assert_array_equal(y.numpy(), _chain_ref(a, 1500, 0.75))
        lt.sum(x * 2.0).numpy()            # a memoized function
        g = lt.jit(lambda t: t * 2.0 + 1.0)
        g(x).numpy()
        del y
        refs = _kept_kernels()
        assert len(refs) >= 2
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        lt.empty_cache()
        gc.collect()
        released = before - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert [r for r in refs if r() is not None] == [], "kernels survived lt.empty_cache()"
    assert len(_kernel._quick) == 0
    assert len(g.programs) == 0
    assert all(len(getattr(fn, "recipes", ())) == 0 for fn in (lt.sum, lt.mean, lt.astype))
    # the plan's key alone is 3000 tuples of five and more items
    assert released > 3000 * 100, f"lt.empty_cache() released {released} bytes"
    # and everything is rebuilt when needed
    np.testing.assert_array_equal((x * 3.0 - 1.0).numpy(), a * 3.0 - 1.0)
    np.testing.assert_array_equal(g(x).numpy(), a * 2.0 + 1.0)
