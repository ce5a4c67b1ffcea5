"""Evaluations in several threads at once (docs/architecture.md, "Evaluation in several
threads"): a large kernel runs with the evaluation lock let go, its thread having claimed
every pending node its evaluations reach; another thread's evaluation of unrelated tensors
goes on meanwhile, and one that reaches a claimed node waits for it.  Values are compared
with NumPy (+ - * and maximum bit for bit in float32, sums within rounding).

The overlap tests are deterministic: the kernel of one thread is held at its start (a
stand-in for ``lib.lt_run`` that waits for an event) while the other thread runs; nothing
here passes or fails on a time."""

import multiprocessing
import threading

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import evaluate as _eval
from lazytensor._engine import kernel as _kernel

BIG = _kernel.RELEASE_MIN + 4099     # a kernel that lets go of the lock (not a whole chunk)


class _HeldLib:
    """``kernel.lib`` whose ``lt_run`` holds the calls of one thread at their start until
    released (those calls have let go of the evaluation lock: kernel.run_pointers suspends
    it first), and can make them fail instead."""

    def __init__(self, real):
        self._real = real
        self.thread = None
        self.started = threading.Event()
        self.release = threading.Event()
        self.fail = False

    def __getattr__(self, name):
        return getattr(self._real, name)

    def lt_run(self, p):
        if threading.current_thread() is self.thread:
            self.started.set()
            self.release.wait(60)      # (on a build that serialises, the test fails below)
            if self.fail:
                return 7               # check_status raises for it
        return self._real.lt_run(p)


@pytest.fixture
def held(monkeypatch):
    """A _HeldLib in place of kernel.lib; fresh kernel caches, so that the first evaluation
    of each expression runs on Python's path (run_pointers), where the stand-in is."""
    _kernel.clear_cache()
    h = _HeldLib(_kernel.lib)
    monkeypatch.setattr(_kernel, "lib", h)
    yield h
    h.release.set()
    monkeypatch.undo()
    _kernel.clear_cache()


def _start(target, held=None, daemon=False):
    """Run target in a new thread (held in its kernels when ``held`` is given; a daemon
    thread where a failing test could leave it blocked for good)."""
    errors = []

    def guarded():
        try:
            target()
        except BaseException as exc:   # reported by the test
            errors.append(exc)
    t = threading.Thread(target=guarded, daemon=daemon)
    if held is not None:
        held.thread = t
    t.start()
    return t, errors


def _f32(n, seed):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def test_an_unrelated_evaluation_completes_while_another_holds_its_claim(held):
    a, b = _f32(BIG, 1), _f32(BIG, 2)
    ta = lt.asarray(a) * 3 + 1
    out = {}
    ta_thread, errors_a = _start(lambda: out.setdefault("a", np.asarray(ta)), held)
    assert held.started.wait(60)
    claims = _eval.lock.stats()["claims"]
    assert claims >= 1                  # thread A is inside its kernel, its node claimed
    tb = lt.asarray(b) * 2 - 5          # recorded and evaluated in this thread meanwhile
    got_b = np.asarray(tb)
    assert "a" not in out               # B completed while A held its claim
    assert _eval.lock.stats()["claims"] == claims
    held.release.set()
    ta_thread.join(60)
    assert not errors_a, errors_a
    np.testing.assert_array_equal(got_b, b * np.float32(2) - np.float32(5))
    np.testing.assert_array_equal(out["a"], a * np.float32(3) + np.float32(1))
    assert _eval.lock.stats()["claims"] == 0


def test_a_shared_pending_node_is_waited_for_not_computed_again(held):
    a = _f32(BIG, 3)
    shared = lt.asarray(a) * 3 + 1
    got = {}
    ta_thread, errors_a = _start(lambda: got.setdefault("a", shared.numpy()), held)
    assert held.started.wait(60)
    waits = _eval.lock.stats()["waits"]
    above = shared * 2                  # reaches the node thread A is computing
    tb, errors_b = _start(lambda: got.setdefault("b", above.numpy()))
    for _ in range(6000):               # until B waits for A's claim (it cannot finish first)
        if _eval.lock.stats()["waits"] > waits or not tb.is_alive():
            break
        tb.join(0.01)
    assert "b" not in got and _eval.lock.stats()["waits"] > waits
    held.release.set()
    ta_thread.join(60)
    tb.join(60)
    assert not errors_a and not errors_b, errors_a + errors_b
    assert shared.numpy() is got["a"]   # its value was given once, by A
    ref = a * np.float32(3) + np.float32(1)
    np.testing.assert_array_equal(got["a"], ref)
    np.testing.assert_array_equal(got["b"], ref * np.float32(2))


def test_a_failed_kernel_lets_the_waiting_thread_compute(held):
    a = _f32(BIG, 4)
    shared = lt.asarray(a) - 2
    held.fail = True
    ta_thread, errors_a = _start(lambda: shared.numpy(), held)
    assert held.started.wait(60)
    waits = _eval.lock.stats()["waits"]
    got = {}
    tb, errors_b = _start(lambda: got.setdefault("b", np.asarray(shared + 1)))
    for _ in range(6000):
        if _eval.lock.stats()["waits"] > waits or not tb.is_alive():
            break
        tb.join(0.01)
    held.release.set()
    ta_thread.join(60)
    tb.join(60)
    assert len(errors_a) == 1 and "status 7" in str(errors_a[0])    # A's own error
    assert not errors_b, errors_b                                   # B is not poisoned
    np.testing.assert_array_equal(got["b"], (a - np.float32(2)) + np.float32(1))
    np.testing.assert_array_equal(shared.numpy(), a - np.float32(2))
    assert _eval.lock.stats()["claims"] == 0


def _fork_child(queue, a):
    queue.put(np.asarray(lt.asarray(a) * 5 + 2).tobytes())


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="the platform has no fork")
def test_fork_while_another_thread_holds_claims(held):
    a = _f32(BIG, 5)
    ta = lt.asarray(a) + 7
    ta_thread, errors_a = _start(lambda: ta.numpy(), held)
    assert held.started.wait(60)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_fork_child, args=(queue, a))
    child.start()
    got = queue.get(timeout=120)
    child.join(60)
    held.release.set()
    ta_thread.join(60)
    assert child.exitcode == 0 and not errors_a
    np.testing.assert_array_equal(np.frombuffer(got, np.float32), a * np.float32(5) + np.float32(2))
    np.testing.assert_array_equal(ta.numpy(), a + np.float32(7))


def test_nested_evaluations_waiting_for_each_other_raise_instead_of_deadlocking():
    """Two threads, each in the middle of an evaluation (its pending nodes claimed, the lock
    let go for a kernel), each then nesting an evaluation of what the other has claimed: the
    second wait would close a cycle, so it raises; once that thread lets its claims go, the
    first one's wait ends.  Driven step by step on a lock of its own (no kernel runs)."""
    lock = _kernel._fastpath.EvalLock()
    x = lt.asarray(_f32(64, 6)) * 3 + 1        # pending: what A evaluates
    y = lt.asarray(_f32(64, 7)) - 2            # pending: what B evaluates
    steps = {k: threading.Event() for k in ("a_claimed", "b_claimed", "a_nests")}
    got = {}

    def thread_a():
        lock.enter(x._node)
        token = lock.suspend()                 # A's "kernel": x's nodes claimed, lock let go
        steps["a_claimed"].set()
        assert steps["b_claimed"].wait(60)
        lock.resume(token)
        steps["a_nests"].set()
        lock.enter(y._node)                    # claimed by B: A waits for B
        got["a_waited"] = True
        lock.release()
        lock.release()

    def thread_b():
        assert steps["a_claimed"].wait(60)
        lock.enter(y._node)
        token = lock.suspend()
        steps["b_claimed"].set()
        assert steps["a_nests"].wait(60)
        for _ in range(6000):                  # until A waits (it cannot finish first)
            if lock.stats()["waits"] > 0:
                break
            threading.Event().wait(0.01)
        lock.resume(token)
        try:
            lock.enter(x._node)                # claimed by A, who waits for B: a cycle
        except RuntimeError as exc:
            got["b_error"] = str(exc)
        lock.release()                         # B's claims go: A's wait ends

    ta, errors_a = _start(thread_a, daemon=True)
    tb, errors_b = _start(thread_b, daemon=True)
    ta.join(60)
    tb.join(60)
    assert not ta.is_alive() and not tb.is_alive(), "the threads deadlocked"
    assert not errors_a and not errors_b, errors_a + errors_b
    assert "wait for each other" in got.get("b_error", ""), got
    assert got.get("a_waited") and lock.stats()["waits"] >= 1
    assert lock.stats()["claims"] == 0
    # the tensors are untouched: both evaluate normally afterwards
    np.testing.assert_array_equal(x.numpy(), _f32(64, 6) * np.float32(3) + np.float32(1))
    np.testing.assert_array_equal(y.numpy(), _f32(64, 7) - np.float32(2))


# ---- many threads, random DAGs -----------------------------------------------------------

_OPS = [
    (lambda x, y: x + y, lambda x, y: x + y),
    (lambda x, y: x - y, lambda x, y: x - y),
    (lambda x, y: x * y, lambda x, y: x * y),
    (lambda x, y: lt.maximum(x, y), lambda x, y: np.maximum(x, y)),
    (lambda x, y: x * 0.5 + y, lambda x, y: x * np.float32(0.5) + y),
]


def _random_dag(rng, leaves, n_ops):
    """Pairs (tensor, ndarray) of a random expression DAG over ``leaves`` (pairs too); any
    node may be an input of several later ones."""
    nodes = list(leaves)
    for _ in range(n_ops):
        f, g = _OPS[rng.integers(len(_OPS))]
        (x, xv), (y, yv) = (nodes[rng.integers(len(nodes))] for _ in range(2))
        nodes.append((f(x, y), g(xv, yv)))
    return nodes[len(leaves):]


def test_many_threads_random_dags_shared_and_unrelated(run_threads):
    """Each thread evaluates DAGs of its own and, in its own order, pending tensors shared
    by all (recorded in this thread): every value is NumPy's, and each shared tensor has one
    value object whichever thread evaluated it (a second computation would have replaced
    it)."""
    n = BIG
    rng = np.random.default_rng(6)
    base = [(lt.asarray(v), v) for v in (_f32(n, 10 + k) for k in range(3))]
    for round_ in range(3):
        shared = _random_dag(rng, base, 8)
        seen = [[] for _ in shared]

        def work(seed):
            r = np.random.default_rng(seed)
            own = [(lt.asarray(v), v) for v in (_f32(n, seed * 7 + k) for k in range(2))]
            for idx in r.permutation(len(shared)):
                t, ref = shared[idx]
                if r.integers(2):
                    value = t.numpy()
                else:                   # with another root that reads it
                    twice, _ = lt.eval(t + t, t)
                    np.testing.assert_array_equal(np.asarray(twice), ref + ref)
                    value = t.numpy()
                np.testing.assert_array_equal(value, ref)
                seen[idx].append(value)
                t2, ref2 = _random_dag(r, own + [shared[idx]], 4)[-1]
                np.testing.assert_array_equal(np.asarray(t2), ref2)

        run_threads(work, [(100 * round_ + k,) for k in range(4)])
        for values in seen:
            assert len(values) == 4 and all(v is values[0] for v in values)


def test_threads_reading_views_and_concatenations_of_shared_pending_tensors(run_threads):
    """Views of a pending base, concat of pending parts (kernels written into blocks of the
    result), reductions and a sort (NumPy's, on the value it evaluates first: a nested
    evaluation), from several threads at once."""
    a, b = _f32(BIG, 20), _f32(BIG, 21)
    A, B = lt.asarray(a), lt.asarray(b)
    ref_p = a * b + np.float32(1)
    ref_q = a - b
    for _ in range(3):
        p, q = A * B + 1, A - B

        def work(k):
            if k % 3 == 0:
                np.testing.assert_array_equal(np.asarray(p[::2]), ref_p[::2])
            elif k % 3 == 1:
                np.testing.assert_array_equal(np.asarray(lt.concat([p, q])),
                                              np.concatenate([ref_p, ref_q]))
            else:
                np.testing.assert_allclose(float(lt.sum(q)), ref_q.astype(np.float64).sum(),
                                           rtol=1e-4)
                np.testing.assert_array_equal(np.asarray(lt.sort(p + q)),
                                              np.sort(ref_p + ref_q))
            np.testing.assert_array_equal(np.asarray(q), ref_q)

        run_threads(work, [(k,) for k in range(6)])


def test_dask_threaded_scheduler_on_tensor_blocks():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    x = _f32(8 * BIG, 30)
    y = _f32(8 * BIG, 31)
    dx = da.from_array(lt.asarray(x), chunks=BIG)
    dy = da.from_array(lt.asarray(y), chunks=BIG)
    with dask.config.set(scheduler="threads", num_workers=4):
        z = (dx * dy + 1).compute()
        s = (dx - dy).sum().compute()
    np.testing.assert_array_equal(np.asarray(z), x * y + np.float32(1))
    np.testing.assert_allclose(float(np.asarray(s)), (x.astype(np.float64) - y).sum(),
                               rtol=1e-4)


def test_writes_in_threads_while_others_record_and_drop_pending_readers(run_threads):
    """Writes into memory in two threads, each with pending readers of its own that it keeps
    and drops: the table of moved readers (views._moved) changes under one thread's write
    while the other's loops over it (it raised "dictionary changed size during iteration",
    within 0.3-2.4 s of this loop).  Each thread's values are NumPy's, and no write raises."""
    import sys
    import time

    def work(deadline):
        while time.perf_counter() < deadline:
            keep = []
            for j in range(100):
                t = lt.asarray(np.arange(6.0))
                keep.append(t * 2)
                t[0] = 5.0
            np.testing.assert_array_equal(keep[-1].numpy(), np.arange(6.0) * 2)
            del keep

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        deadline = time.perf_counter() + 3.0
        run_threads(work, [(deadline,), (deadline,)])
    finally:
        sys.setswitchinterval(old)
