"""The lean call path: recording ops on Tensors and scalars, and evaluating one
single-group expression through the quick kernel table.  Every result is compared with
NumPy, and the cases are those where a cache key that forgot something would hand back a
kernel compiled for something else."""

import gc

import numpy as np
import pytest

import lazytensor as lt
from lazytensor import _elementwise, _graph, _kernel

rng = np.random.default_rng(7)


def _f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_same_structure_different_sharing_is_a_different_kernel():
    a, b = _f32(1000), _f32(1000)
    x, y = lt.asarray(a), lt.asarray(b)
    np.testing.assert_array_equal(np.asarray(x * y), a * b)
    np.testing.assert_array_equal(np.asarray(x * x), a * a)   # one input read twice
    np.testing.assert_array_equal(np.asarray(y * x), b * a)


def test_same_structure_different_layouts():
    a = _f32(64, 64)
    b = _f32(64, 64)
    x, y = lt.asarray(a), lt.asarray(b)
    for _ in range(2):    # the second round hits the quick table
        np.testing.assert_array_equal(np.asarray(x + y), a + b)
        np.testing.assert_array_equal(np.asarray(x.T + y), a.T + b)
        np.testing.assert_array_equal(np.asarray(x[::-1] + y), a[::-1] + b)
        np.testing.assert_array_equal(np.asarray(x[:, ::2] + y[:, 1::2]), a[:, ::2] + b[:, 1::2])


def test_same_structure_different_dtypes_and_constants():
    a = _f32(300)
    x32, x64 = lt.asarray(a), lt.asarray(a.astype(np.float64))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(x32 * 2 + 1), a * np.float32(2) + np.float32(1))
        np.testing.assert_array_equal(np.asarray(x64 * 2 + 1), a.astype(np.float64) * 2 + 1)
        np.testing.assert_array_equal(np.asarray(x32 * 3 + 1), a * np.float32(3) + np.float32(1))
        np.testing.assert_array_equal(np.asarray(x32 * -0.0), a * np.float32(-0.0))
        np.testing.assert_array_equal(np.asarray(x32 * 0.0), a * np.float32(0.0))
        np.testing.assert_array_equal(np.asarray(x32 * 2.0 + 1), a * np.float32(2) + np.float32(1))


def test_int_and_bool_scalars_keep_their_rules():
    u = lt.asarray(np.arange(10, dtype=np.uint8))
    np.testing.assert_array_equal(np.asarray(u + 250), np.arange(10, dtype=np.uint8) + np.uint8(250))
    with pytest.raises(OverflowError, match="out of range for uint8"):
        u + 300
    mixed = u + 1.5                 # the general path's answer, whichever path records it
    assert mixed.dtype == _elementwise.apply("add", u, 1.5).dtype
    np.testing.assert_array_equal(np.asarray(mixed), np.arange(10) + 1.5)
    b = lt.asarray(np.array([True, False]))
    np.testing.assert_array_equal(np.asarray(b & True), np.array([True, False]))


def test_misaligned_input_is_copied_once():
    raw = np.zeros(4 * 300 + 1, np.uint8)
    view = np.frombuffer(raw.data, dtype=np.float32, count=300, offset=1)
    x = lt.asarray(view)
    np.testing.assert_array_equal(np.asarray(x + 1), view + np.float32(1))


def test_where_lean_path_and_errors():
    a, b = _f32(513), _f32(513)
    x, y = lt.asarray(a), lt.asarray(b)
    np.testing.assert_array_equal(np.asarray(lt.where(x < y, 2 * x, y - 1)),
                                  np.where(a < b, 2 * a, b - 1))
    with pytest.raises(TypeError, match="condition must be a bool"):
        lt.where(x, x, y)


def test_mixed_shapes_and_reductions_still_evaluate():
    a, b = _f32(8, 300), _f32(300)
    x, y = lt.asarray(a), lt.asarray(b)
    np.testing.assert_allclose(np.asarray(lt.sum(x * y + 1, axis=1)),
                               (a.astype(np.float64) * b + 1).sum(axis=1), rtol=1e-6)
    t = x + y          # broadcast: one group of shape (8, 300)
    np.testing.assert_array_equal(np.asarray(t), a + b)


def test_quick_table_counts_hits_and_is_cleared():
    a = _f32(100)
    x = lt.asarray(a)
    _kernel.clear_cache()
    before = dict(lt.stats())
    for _ in range(3):
        np.asarray(lt.exp(x) * 2)
    after = lt.stats()
    assert after["misses"] - before["misses"] == 1
    assert after["hits"] - before["hits"] == 2
    assert after["kernels"] - before["kernels"] == 3


def test_hash_consing_survives_sweeps():
    a = _f32(10)
    x = lt.asarray(a)
    keep = x * 3
    for i in range(3 * _graph._SWEEP_MIN):
        x + float(i + 1)         # dies at once: its table entry becomes dead
    gc.collect()
    assert len(_graph._INTERN) < 3 * _graph._SWEEP_MIN   # dead entries were swept
    assert (x * 3)._node is keep._node                   # live entries still shared
    np.testing.assert_array_equal(np.asarray(x * 3), a * np.float32(3))


def test_reductions_take_the_quick_path():
    a, b = _f32(6, 700), _f32(700)
    x, y = lt.asarray(a), lt.asarray(b)
    _kernel.clear_cache()
    before = dict(lt.stats())
    for _ in range(3):    # max and min end in the reduction itself: one quick kernel each
        np.testing.assert_array_equal(np.asarray(lt.max(x * y + 1, axis=1)),
                                      (a * b + np.float32(1)).max(axis=1))
        np.testing.assert_array_equal(np.asarray(lt.max(x, axis=0)), a.max(axis=0))
        np.testing.assert_array_equal(np.asarray(lt.min(x.T, axis=1)), a.T.min(axis=1))
    after = lt.stats()
    assert after["misses"] - before["misses"] == 3
    assert after["hits"] - before["hits"] == 6
    # a float32 sum rounds its float64 accumulator in a second group: two quick kernels
    before = dict(lt.stats())
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(lt.sum(x * y + 1, axis=1)),
                                   (a.astype(np.float64) * b + 1).sum(axis=1), rtol=1e-6)
    after = lt.stats()
    assert after["misses"] - before["misses"] == 2
    assert after["hits"] - before["hits"] == 4
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(lt.sum(x * y + 1, axis=1)),
                                   (a.astype(np.float64) * b + 1).sum(axis=1), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(lt.mean(lt.exp(x))),
                                   np.exp(a.astype(np.float64)).mean(), rtol=1e-6)


def test_reduction_of_a_reduction_uses_the_general_path():
    a = _f32(5, 300)
    x = lt.asarray(a)
    m = lt.max(x, axis=1, keepdims=True)
    out = lt.log(lt.sum(lt.exp(x - m), axis=1)) + lt.reshape(m, (-1,))
    ref = np.log(np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True)).sum(axis=1)) \
        + a.max(axis=1)
    np.testing.assert_allclose(np.asarray(out), ref, rtol=2e-6)


def test_broadcasting_ops_on_the_lean_path():
    a, b, c = _f32(7, 300), _f32(300), _f32(7, 1)
    x, y, z = lt.asarray(a), lt.asarray(b), lt.asarray(c)
    np.testing.assert_array_equal(np.asarray(x * y + z), a * b + c)
    np.testing.assert_array_equal(np.asarray(y * z), b * c)          # (300,) with (7, 1)
    np.testing.assert_array_equal(np.asarray(z - x), c - a)
    with pytest.raises(ValueError, match=r"add: shapes \(7, 300\) and \(7,\) do not broadcast"):
        x + lt.asarray(_f32(7))
