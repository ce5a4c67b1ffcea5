"""asarray, creation functions, dtypes and promotion, modes and threads."""

import array

import numpy as np
import pytest

import lazytensor as lt

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", ALL)
def test_asarray_keeps_every_dtype(name):
    src = np.arange(6).reshape(2, 3).astype(name)
    t = lt.asarray(src)
    assert t.dtype == np.dtype(name) and t.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(t), src)


def test_asarray_sources():
    assert lt.asarray(True).dtype == lt.bool
    assert lt.asarray(3).dtype == lt.int64
    assert lt.asarray(3.0).dtype == lt.float64
    assert lt.asarray(1 + 2j).dtype == lt.complex128
    assert lt.asarray([[1, 2], [3, 4]]).shape == (2, 2)
    np.testing.assert_array_equal(lt.asarray(b"\x01\x02\xff").numpy(), [1, 2, 255])
    np.testing.assert_array_equal(lt.asarray(array.array("f", [1.5, 2.5])).numpy(), [1.5, 2.5])
    np.testing.assert_array_equal(lt.asarray(memoryview(bytearray(b"\x07"))).numpy(), [7])


def test_asarray_dtype_and_copy():
    src = np.array([1.7, -2.7, np.nan, 1e10])
    t = lt.asarray(src, dtype=lt.int32)
    np.testing.assert_array_equal(t.numpy(), [1, -2, 0, 2**31 - 1])  # truncate, NaN->0, saturate
    with pytest.raises(OverflowError, match="300"):
        lt.asarray([300], dtype=lt.uint8)
    with pytest.raises(ValueError, match="copy=False"):
        lt.asarray(src, dtype=lt.float32, copy=False)
    shared = lt.asarray(src, copy=False)
    assert np.shares_memory(shared.numpy(), src)
    own = lt.asarray(src, copy=True)
    assert not np.shares_memory(own.numpy(), src)
    t2 = lt.asarray(shared, copy=True)
    assert not np.shares_memory(t2.numpy(), src)
    with pytest.raises(ValueError, match="CPU only"):
        lt.asarray([1], device="gpu")


def test_non_native_byte_order_is_converted():
    src = np.array([1.0, 2.0], dtype=">f4")
    t = lt.asarray(src) + 1.0
    np.testing.assert_array_equal(t.numpy(), [2.0, 3.0])
    assert t.dtype == lt.float32


def test_fills_and_ranges():
    z = lt.zeros((2, 3), dtype=lt.float32)
    assert z.shape == (2, 3) and z.dtype == lt.float32
    np.testing.assert_array_equal((z + 1.0).numpy(), np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(lt.full((2,), 7, dtype=lt.int8).numpy(), [7, 7])
    np.testing.assert_array_equal(lt.ones_like(z).numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(lt.arange(5).numpy(), np.arange(5))
    np.testing.assert_array_equal(lt.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5))
    np.testing.assert_array_equal(lt.eye(3).numpy(), np.eye(3))
    assert lt.zeros((0, 4)).size == 0
    with pytest.raises(ValueError, match="negative"):
        lt.zeros((-1,))


@pytest.mark.parametrize("a,b", [
    ("int8", "uint8"), ("int16", "int32"), ("uint8", "uint32"), ("float16", "float32"),
    ("float32", "float64"), ("int32", "float32"), ("bool", "int8"), ("uint64", "int64"),
])
def test_tensor_promotion_matches_numpy(a, b):
    x = lt.asarray(np.ones(3, dtype=a))
    y = lt.asarray(np.ones(3, dtype=b))
    assert (x * y).dtype == np.result_type(np.dtype(a), np.dtype(b)) or a == "bool"


@pytest.mark.parametrize("dtype,scalar,expected", [
    ("float32", 1.0, "float32"), ("float16", 2, "float16"), ("int8", 3, "int8"),
    ("uint16", 7, "uint16"), ("int32", 1.5, "float64"), ("bool", True, "bool"),
    ("float64", 1, "float64"),
])
def test_python_scalars_are_weak(dtype, scalar, expected):
    x = lt.asarray(np.ones(3, dtype=dtype))
    op = lt.logical_and if dtype == "bool" else lt.add
    assert op(x, scalar).dtype == np.dtype(expected)
    assert (lt.maximum(scalar, x) if dtype != "bool" else op(scalar, x)).dtype == np.dtype(expected)


def test_python_int_out_of_range_for_dtype():
    with pytest.raises(OverflowError, match="int8"):
        lt.asarray(np.ones(3, dtype=np.int8)) + 1000


def test_modes():
    assert lt.get_mode() == "exact"
    with lt.mode("fast"):
        assert lt.get_mode() == "fast"
    assert lt.get_mode() == "exact"
    lt.set_mode("fast")
    try:
        assert lt.get_mode() == "fast"
    finally:
        lt.set_mode("exact")
    with pytest.raises(ValueError, match="mode"):
        lt.set_mode("quick")


def test_thread_count_does_not_change_bits():
    x = np.random.default_rng(1).standard_normal(300_001).astype(np.float32)
    t = lt.asarray(x)
    results = []
    old = lt.get_num_threads()
    try:
        for n in (1, 2, 3, 7):
            lt.set_num_threads(n)
            results.append(np.asarray(lt.nn.hardswish(t) * 3.0 + t).view(np.uint32).copy())
    finally:
        lt.set_num_threads(old)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    with pytest.raises(ValueError):
        lt.set_num_threads(0)


def test_dlpack_round_trip():
    t = lt.asarray(np.arange(5, dtype=np.float32)) * 2.0
    back = np.from_dlpack(t)
    np.testing.assert_array_equal(back, [0, 2, 4, 6, 8])
    assert t.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(lt.from_dlpack(np.arange(3)).numpy(), [0, 1, 2])


def test_reductions_and_views_are_boundaries():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = lt.asarray(x)
    np.testing.assert_allclose(lt.sum(t * 2.0, axis=1).numpy(), (x * 2).sum(axis=1))
    np.testing.assert_allclose(lt.mean(t).numpy(), x.mean())
    np.testing.assert_allclose((t @ t.T).numpy(), x @ x.T)
    np.testing.assert_array_equal(lt.reshape(t, (4, 3)).numpy(), x.reshape(4, 3))
    np.testing.assert_array_equal(lt.permute_dims(t, (1, 0)).numpy(), x.T)
    np.testing.assert_array_equal(t.mT.numpy(), x.T)
    with pytest.raises(ValueError, match="reshape"):
        lt.reshape(t, (5, 3))
