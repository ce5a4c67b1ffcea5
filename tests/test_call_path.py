"""The lean call path: recording ops on Tensors and scalars, and evaluating one
single-group expression through the quick kernel table.  Every result is compared with
NumPy, and the cases are those where a cache key that forgot something would hand back a
kernel compiled for something else."""

import gc

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import record as _record
from lazytensor._engine import evaluate as _eval
from lazytensor._engine import graph as _graph
from lazytensor._engine import kernel as _kernel

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
    assert mixed.dtype == _record.apply("add", u, 1.5).dtype
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
    # a non-bool condition is NumPy's: nonzero is true
    np.testing.assert_array_equal(np.asarray(lt.where(x, x, y)), np.where(a, a, b))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "complex64"])
def test_where_with_a_python_scalar_is_numpys_on_every_call(dtype):
    """lt.where(c, x, s) and lt.where(c, s, x) with a Python int or float s: NumPy's values
    and dtype (its weak scalar promotion), on the first call (Python's where, which keeps the
    scalar's constant) and on the repeated ones (C's for a float tensor: no Python call)."""
    import sys
    a = (rng.standard_normal(300) * 4).astype(dtype)
    c = a.real > 0
    x, cond = lt.asarray(a), lt.asarray(c)
    scalars = [0, 2, -3, 0.5, -0.0, float("inf"), float("nan"), 1e300, 70000.0]
    for s in scalars:
        if dtype == "int32" and isinstance(s, float):
            continue
        for args_np, args_lt in (((c, a, s), (cond, x, s)), ((c, s, a), (cond, s, x))):
            with np.errstate(all="ignore"):
                want = np.where(*args_np)
            for call in range(3):
                python_calls = []
                sys.setprofile(lambda frame, event, arg: python_calls.append(
                    frame.f_code.co_name) if event == "call" else None)
                try:
                    t = lt.where(*args_lt)
                finally:
                    sys.setprofile(None)
                assert not (call and dtype.startswith("float") and python_calls), python_calls
                got = np.asarray(t)
                assert got.dtype == want.dtype, (s, call)
                np.testing.assert_array_equal(got, want)


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


def test_hash_consing_lets_dead_nodes_go():
    a = _f32(10)
    x = lt.asarray(a)
    keep = x * 3
    table_size = _eval._fastpath.intern_size() if _eval._fastpath else None
    for i in range(3 * _graph._SWEEP_MIN):
        x + float(i + 1)         # dies at once
    gc.collect()
    if table_size is not None:   # the C table: a node leaves it when it dies
        assert _eval._fastpath.intern_size() == table_size
    else:                        # _INTERN: dead entries are swept
        assert len(_graph._INTERN) < 3 * _graph._SWEEP_MIN
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
    # a float32 sum rounds its float64 accumulator in a second group, a lone cast of a
    # value: converted without a kernel, so one quick kernel
    before = dict(lt.stats())
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(lt.sum(x * y + 1, axis=1)),
                                   (a.astype(np.float64) * b + 1).sum(axis=1), rtol=1e-6)
    after = lt.stats()
    assert after["misses"] - before["misses"] == 1
    assert after["hits"] - before["hits"] == 2
    assert after["kernels"] - before["kernels"] == 3
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
    with pytest.raises(ValueError, match=r"add: operands could not be broadcast together with shapes \(7, 300\) \(7,\)"):
        x + lt.asarray(_f32(7))


def _softmax64(a, axis=-1):
    a = a.astype(np.float64)
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_multi_kernel_plans_are_kept_and_keyed_by_layout_and_request():
    # softmax is four kernels; a repeat with inputs of the same layouts reuses the plan
    def softmax(x):
        e = lt.exp(x - lt.max(x, axis=1, keepdims=True))
        return e, e / lt.sum(e, axis=1, keepdims=True)

    a = _f32(5, 70)
    first = np.asarray(softmax(lt.asarray(a))[1])
    np.testing.assert_allclose(first, _softmax64(a), rtol=1e-6, atol=1e-7)
    before = lt.stats()
    b = _f32(5, 70)
    again = np.asarray(softmax(lt.asarray(b))[1])
    after = lt.stats()
    assert after["misses"] == before["misses"] and after["hits"] == before["hits"] + 1
    np.testing.assert_allclose(again, _softmax64(b), rtol=1e-6, atol=1e-7)
    _kernel.clear_cache()
    assert np.asarray(softmax(lt.asarray(b))[1]).tobytes() == again.tobytes()
    # the same structure over a transposed view, a reversed one, and with e requested too
    for x, ref in [(lt.asarray(a.T.copy()).T, a), (lt.asarray(a)[::-1], a[::-1])]:
        for _ in range(2):
            np.testing.assert_allclose(np.asarray(softmax(x)[1]), _softmax64(ref),
                                       rtol=1e-6, atol=1e-7)
    for _ in range(2):
        e, s = lt.eval(*softmax(lt.asarray(a)))
        a64 = a.astype(np.float64)
        np.testing.assert_allclose(np.asarray(e), np.exp(a64 - a64.max(1, keepdims=True)),
                                   rtol=1e-6)
        np.testing.assert_allclose(np.asarray(s), _softmax64(a), rtol=1e-6, atol=1e-7)
    # which nodes are requested is part of the key: an intermediate asked for gets its value
    for request_d in (False, True):
        x = lt.asarray(a)
        d = x - lt.max(x, axis=1, keepdims=True)
        out = lt.exp(d) / lt.sum(lt.exp(d), axis=1, keepdims=True)
        lt.eval(d, out) if request_d else lt.eval(out)
        assert (d._node.value is not None) == request_d
        np.testing.assert_allclose(np.asarray(out), _softmax64(a), rtol=1e-6, atol=1e-7)
