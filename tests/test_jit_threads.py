"""lt.jit and threads (lazytensor/_engine/jit.py): a traced function runs without the evaluation
lock, so that threads it starts, and every other thread, can evaluate while it runs; the
trace is still right when other threads record and evaluate the same expressions meanwhile
(hash-consing shares their nodes), and their value reads are not the trace's.

Waits are bounded by timeouts, so that a deadlock fails the test instead of hanging it."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import lazytensor as lt
from lazytensor._engine import jit as _jit

WAIT = 10.0    # seconds: far above what any step here takes, only a bound on a deadlock


def f32(seed, shape):
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(np.float32)


def call_in_thread(fn, *args):
    """``fn(*args)`` in a daemon thread joined with a timeout: (result, error)."""
    box = {}

    def run():
        try:
            box["out"] = fn(*args)
        except BaseException as exc:       # reported by the caller
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(WAIT)
    assert not t.is_alive(), "the jitted call did not finish: deadlock"
    return box.get("out"), box.get("error")


def test_a_thread_started_by_the_function_can_evaluate():
    data = f32(1, (500,))

    def fn(x):
        pool = ThreadPoolExecutor(1)
        try:     # result(timeout): before the fix this waited for ever on the held lock
            inner = pool.submit(lambda: np.array(lt.asarray(data) * 2 + 1)).result(WAIT / 2)
        finally:
            pool.shutdown(wait=False)
        np.testing.assert_array_equal(inner, data * np.float32(2) + np.float32(1))
        return x * 3 - 1

    f = lt.jit(fn)
    for seed in range(3):                  # a trace, then replays
        x = f32(seed, (500,))
        out, error = call_in_thread(f, lt.asarray(x))
        assert error is None, repr(error)
        np.testing.assert_array_equal(out.numpy(), x * np.float32(3) - np.float32(1))
    # the worker thread's value read is not the trace's: the signature is replayed
    assert [type(p) for p in f.programs.values()] == [_jit._Program]


def test_other_threads_evaluate_while_a_function_is_traced():
    inside, evaluated = threading.Event(), threading.Event()
    seen = []

    def fn(x):
        inside.set()
        # the other thread's evaluation completes while fn is still running
        seen.append(evaluated.wait(WAIT / 2))
        return lt.exp(x) + 1

    f = lt.jit(fn)
    x = f32(2, (300,))
    other = f32(3, (300,))
    box = {}
    t = threading.Thread(target=lambda: box.update(out=f(lt.asarray(x))), daemon=True)
    t.start()
    assert inside.wait(WAIT)
    got = (lt.asarray(other) * 2 - 1).numpy()      # needs an evaluation, now
    evaluated.set()
    t.join(WAIT)
    assert not t.is_alive()
    np.testing.assert_array_equal(got, other * np.float32(2) - np.float32(1))
    assert seen == [True], "another thread's evaluation waited for the trace"
    assert box["out"].dtype == lt.float32
    # the main thread's read during the trace did not make the signature plain
    assert [type(p) for p in f.programs.values()] == [_jit._Program]


def np_fn(x, y):
    return (x * y + x) / (y * y + np.float32(1.5)) - np.sqrt(np.abs(x)) + np.maximum(x, y)


def lt_fn(x, y):
    time.sleep(0.0005)                     # let other threads in while the trace records
    return (x * y + x) / (y * y + 1.5) - lt.sqrt(lt.abs(x)) + lt.maximum(x, y)


def test_jitted_calls_from_threads_give_numpys_bits():
    f = lt.jit(lt_fn)
    shapes = [(n,) for n in (7, 64, 300, 1000)] + [(3, 5), (16, 33)]
    errors = []
    start = threading.Barrier(4)

    def work(k):
        try:
            start.wait(WAIT)
            for rep in range(3):
                for i, shape in enumerate(shapes):
                    x, y = f32(100 * k + i, shape), f32(100 * k + i + 50, shape)
                    want = np_fn(x, y)
                    # the plain expression records the trace's very nodes (hash-consing)
                    plain = lt_fn(lt.asarray(x), lt.asarray(y))
                    if k % 2:
                        plain.numpy()
                    jitted = f(lt.asarray(x), lt.asarray(y))
                    assert np.asarray(jitted).tobytes() == want.tobytes(), (k, rep, shape)
                    assert np.asarray(plain).tobytes() == want.tobytes(), (k, rep, shape)
        except BaseException as exc:       # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(6 * WAIT)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors
    # traces that overlapped other threads' evaluations were still kept for replay
    assert set(f.programs.values()) and all(type(p) is _jit._Program
                                            for p in f.programs.values())
