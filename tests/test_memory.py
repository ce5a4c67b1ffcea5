"""The output pool: memory of dead tensors is reused, never while any view still uses it."""

import gc

import numpy as np

import lazytensor as lt
from lazytensor._engine import memory as _memory

N = 200_000   # 800 KB of float32: pooled


def evaluate_once(x):
    return (x * 2.0 + 1.0).numpy()


def assert_a_loop_reuses_its_buffer():
    x = lt.asarray(np.arange(N, dtype=np.float32))
    evaluate_once(x)
    gc.collect()
    hits = lt.stats()["pool_hits"]
    for _ in range(5):
        out = evaluate_once(x)
        np.testing.assert_array_equal(out, np.arange(N, dtype=np.float32) * 2 + 1)
        del out
        gc.collect()
    assert lt.stats()["pool_hits"] >= hits + 5


def test_repeated_evaluation_reuses_the_output_buffer():
    assert_a_loop_reuses_its_buffer()


def test_a_live_view_keeps_its_buffer_out_of_the_pool():
    x = lt.asarray(np.arange(N, dtype=np.float32))
    y = x * 3.0
    view = lt.reshape(y, (N // 2, 2))[::2]     # a view of y's value
    expected = np.asarray(view).copy()
    del y
    gc.collect()
    for _ in range(4):                          # would overwrite y's memory if it were reused
        evaluate_once(x)
        gc.collect()
    np.testing.assert_array_equal(np.asarray(view), expected)


def test_empty_cache_releases_pooled_memory():
    x = lt.asarray(np.arange(N, dtype=np.float32))
    evaluate_once(x)
    gc.collect()
    assert lt.stats()["pooled_bytes"] > 0
    lt.empty_cache()
    assert lt.stats()["pooled_bytes"] == 0


def test_pool_is_bounded(monkeypatch):
    lt.empty_cache()
    monkeypatch.setattr(_memory, "POOL_LIMIT", 1 << 20)
    outs = [evaluate_once(lt.asarray(np.full(N, float(i), dtype=np.float32))) for i in range(6)]
    del outs
    gc.collect()
    assert lt.stats()["pooled_bytes"] <= 1 << 20
    lt.empty_cache()


def test_a_full_pool_makes_room_for_the_sizes_in_use(monkeypatch):
    """A pool filled by buffers of other sizes (an earlier phase of the program) frees the
    least recently used ones for the buffers of the loop that runs now, which then hits."""
    lt.empty_cache()
    monkeypatch.setattr(_memory, "POOL_LIMIT", 4 << 20)
    olds = [lt.asarray(np.full(300_000, float(i), dtype=np.float32)) * 2.0 for i in range(4)]
    lt.eval(*olds)                                     # 4 buffers of ~1.2 MB: the pool is full
    del olds
    gc.collect()
    assert lt.stats()["pooled_bytes"] > 3 << 20
    assert_a_loop_reuses_its_buffer()
    assert lt.stats()["pooled_bytes"] <= 4 << 20
    lt.empty_cache()


def test_size_classes_round_up_by_at_most_an_eighth():
    for nbytes in (131072, 131073, 800_000, 40_000_000, 123_456_789):
        size = _memory._size_class(nbytes)
        assert nbytes <= size <= nbytes * 1.125 + 4096
