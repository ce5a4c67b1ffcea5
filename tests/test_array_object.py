"""The array object: indexing, assignment, take, DLPack, in-place operators, conversions.

NumPy is the reference wherever the Array API standard agrees with it; the tests that
check a rule where the two differ say so.
"""

import operator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazytensor as lt

A3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def t3():
    return lt.asarray(A3.copy())     # a tensor over memory of its own (writes go into it)


def check_same(out, expected):
    assert isinstance(out, lt.Tensor)
    assert out.dtype == expected.dtype
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)


# ---- basic indexing ------------------------------------------------------------------
BASIC_KEYS = [
    0, 1, -1, -2, (1, 2), (1, 2, 3), (-1, -1, -1), (0, -3, 0),
    slice(None), slice(1, None), slice(None, 1), slice(None, None, -1), slice(5, None, -2),
    (slice(None), slice(None, None, 2)), (slice(None), slice(2, 0, -1)),
    (slice(None), slice(-100, 100)), (slice(None), slice(100, None)),
    (slice(None), slice(None, -100, -1)), (0, slice(10, 20)), (slice(None), slice(1, 1)),
    (slice(None), slice(-1, -3, -1), slice(None, None, 3)),
    Ellipsis, (Ellipsis, 0), (0, Ellipsis), (0, Ellipsis, 1), (Ellipsis, slice(None, None, -1)),
    (0, 1, 2, Ellipsis), (Ellipsis, 0, 1, 2),
    None, (None, 0), (0, None, slice(None), None), (Ellipsis, None), (None, Ellipsis, None),
    (None, None, 1, None, 2, 3), (),
]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
def test_basic_indexing_matches_numpy_and_is_a_view(key):
    x = t3()
    out = x[key]
    expected = np.asarray(A3[key])
    check_same(out, expected)
    if expected.size:
        # basic indexing is a view of x's memory, but an integer for every axis gives
        # NumPy's scalar, a copy
        assert np.shares_memory(out.numpy(), x.numpy()) == np.shares_memory(A3[key], A3)


def test_single_element_is_a_copy_as_numpys_scalar():
    x = t3()
    out = x[1, 2, 3]
    assert out.shape == () and out.ndim == 0
    assert not np.shares_memory(out, x)
    x[1, 2, 3] = -1.0               # NumPy's scalar keeps its value
    assert float(out) == 23.0


def test_0d_tensor_indexing():
    x = lt.asarray(np.float64(5.0))
    for key in [(), Ellipsis]:
        out = x[key]
        assert out.shape == () and float(out) == 5.0
    assert x[None].shape == (1,)
    assert x[None, ..., None].shape == (1, 1)
    with pytest.raises(IndexError, match="too many indices"):
        x[0]


@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
def test_basic_indexing_random(data, shape):
    a = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    check_same(lt.asarray(a)[key], np.asarray(a[key]))


def test_basic_indexing_of_a_lazy_tensor_feeds_the_next_kernel():
    x = lt.asarray(A3) * 2.0 + 1.0          # lazy
    y = x[:, ::-1, 1::2] - 1.0              # the view is read in place by the next kernel
    np.testing.assert_array_equal(y.numpy(), (A3 * 2 + 1)[:, ::-1, 1::2] - 1)


def test_slice_bounds_may_be_0d_integer_tensors():
    x = t3()
    check_same(x[:, lt.asarray(1):lt.asarray(3)], A3[:, 1:3])


def test_an_object_with_index_is_an_integer():
    class Two:
        def __index__(self):
            return 2

    check_same(t3()[0, Two()], A3[0, 2])


# ---- integer array indexing ----------------------------------------------------------
def ix(a, dtype=np.int64):
    return lt.asarray(np.asarray(a, dtype=dtype))


@pytest.mark.parametrize("key_np", [
    (np.array([1, 0, 1]),),
    (np.array([0, 1]), np.array([2, 0])),
    (np.array([[0, 1], [1, 0]]), np.array([2, 0]), np.array([[3], [-1]])),
    (1, np.array([0, 2, -1])),
    (np.array([0, 1]), 0, np.array([3, 2])),
    (np.array([-1, -2]), slice(None), np.array([0, 3])),      # NumPy: separated arrays go first
    (slice(None), np.array([2, 2, 0])),                      # NumPy: array after a slice
    (Ellipsis, np.array([[3, 0]])),
    (None, np.array([1]), Ellipsis),
    (np.array([], dtype=np.int64),),
], ids=repr)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_integer_array_indexing_matches_numpy(key_np, dtype):
    key_np = tuple(k.astype(dtype) if isinstance(k, np.ndarray) and (dtype != np.uint8 or
                                                                   (k >= 0).all()) else k
                   for k in key_np)
    key_lt = tuple(lt.asarray(k) if isinstance(k, np.ndarray) else k for k in key_np)
    check_same(t3()[key_lt], A3[key_np])


def test_integer_arrays_broadcast_and_repeat_as_the_standard_says():
    x = lt.asarray(np.arange(16).reshape(4, 4))
    out = x[ix([0, 1]), ix([2, 3])]
    np.testing.assert_array_equal(out.numpy(), [2, 7])
    out = x[ix([[0], [3]]), ix([1, 1, 2])]                # shapes (2,1) and (3,) -> (2,3)
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out.numpy(), [[1, 1, 2], [13, 13, 14]])


def test_0d_integer_tensor_is_an_integer_index():
    x = t3()
    out = x[lt.asarray(1), lt.asarray(-1)]
    check_same(out, A3[1, -1])
    assert np.shares_memory(out.numpy(), x.numpy())       # a view, unlike NumPy's
    check_same(x[lt.asarray(np.uint8(1)), ix([0, 2])], A3[1, [0, 2]])


def test_lists_index_like_numpy():
    check_same(t3()[[1, 0]], A3[[1, 0]])
    check_same(t3()[0, [2, 0], [1, 3]], A3[0, [2, 0], [1, 3]])
    check_same(t3()[[]], A3[np.array([], dtype=np.intp)])
    check_same(t3()[[True, False]], A3[[True, False]])


def test_index_tensor_is_evaluated():
    idx = lt.asarray(np.array([2, 0])) * 1 - 0     # lazy index
    check_same(t3()[0, idx], A3[0, [2, 0]])


# ---- boolean masks ---------------------------------------------------------------------
@pytest.mark.parametrize("mask_np", [
    A3 > 10, A3[:, :, 0] > 5, np.array([True, False]), np.array([False, False]),
    np.ones((2, 3, 4), bool), np.array(True), np.array(False),
], ids=lambda m: f"mask{m.shape}")
def test_boolean_mask_matches_numpy(mask_np):
    out = t3()[lt.asarray(mask_np)]
    check_same(out, A3[mask_np])


def test_0d_masks_add_an_axis():
    x = t3()
    assert x[lt.asarray(True)].shape == (1, 2, 3, 4)
    assert x[lt.asarray(False)].shape == (0, 2, 3, 4)
    assert x[True].shape == (1, 2, 3, 4)      # a Python bool is a 0-d mask, as in NumPy
    assert x[False].shape == (0, 2, 3, 4)


def test_mask_with_size_0_axes_selects_nothing():
    # Array API: each mask axis must match the tensor's or be 0 (NumPy raises here)
    x = t3()
    assert x[lt.asarray(np.zeros((0,), bool))].shape == (0, 3, 4)
    assert x[lt.asarray(np.zeros((2, 0), bool))].shape == (0, 4)
    assert x[lt.asarray(np.zeros((0, 3, 0), bool))].shape == (0,)


def test_mask_combined_like_numpy():
    m = A3[0] > 4
    check_same(t3()[1, lt.asarray(m)], A3[1, m])
    check_same(t3()[..., lt.asarray(A3[0, 0] > 1)], A3[..., A3[0, 0] > 1])


def test_mask_that_does_not_fit_is_an_index_error():
    x = t3()
    with pytest.raises(IndexError, match=r"axis 1: the axis has size 3, the mask 2"):
        x[lt.asarray(np.ones((2, 2), bool))]
    with pytest.raises(IndexError, match="too many indices"):
        x[lt.asarray(np.ones((2, 3, 4, 1), bool))]
    with pytest.raises(IndexError):
        x[lt.asarray(np.ones((2, 1), bool))]      # mask axes do not broadcast


def test_mask_result_is_row_major():
    a = np.arange(6).reshape(2, 3)
    mask = np.array([[True, False, True], [False, True, True]])
    np.testing.assert_array_equal(lt.asarray(a)[lt.asarray(mask)].numpy(), [0, 2, 4, 5])


# ---- indexing errors -------------------------------------------------------------------
@pytest.mark.parametrize("key, exc, match", [
    (2, IndexError, r"index 2 is out of bounds for axis 0 of size 2 \(tensor shape \(2, 3, 4\)\)"),
    (-3, IndexError, "index -3 is out of bounds for axis 0"),
    ((0, 3), IndexError, "index 3 is out of bounds for axis 1 of size 3"),
    ((Ellipsis, 4), IndexError, "index 4 is out of bounds for axis 2 of size 4"),
    ((0, 0, 0, 0), IndexError, r"too many indices: .* 4 axes, .* \(3 axes\)"),
    ((None, 0, 0, 0, 0), IndexError, "too many indices"),
    ((Ellipsis, 0, Ellipsis), IndexError, "more than one ellipsis"),
    ((0, lt.asarray([0, 3])), IndexError, "index 3 is out of bounds for axis 1"),
    (lt.asarray([-3]), IndexError, "index -3 is out of bounds for axis 0"),
    ((lt.asarray([0, 1]), lt.asarray([0, 1, 2])), IndexError, "cannot index"),
    (1.0, TypeError, "invalid index 1.0"),
    ((0, 1.5), TypeError, r"invalid index 1.5 \(of type float\) in index \(0, 1.5\)"),
    ("a", TypeError, "invalid index 'a'"),
    (np.float64(1), TypeError, "invalid index"),
    (lt.asarray([1.0]), TypeError, "integer or boolean dtype, not float64"),
    (slice(0, 2.0), TypeError, "slice bound 2.0"),
    (slice(None, None, 0), ValueError, "slice step cannot be zero"),
    ({0: 1}, TypeError, "invalid index"),
], ids=repr)
def test_indexing_errors(key, exc, match):
    with pytest.raises(exc, match=match):
        t3()[key]


@pytest.mark.parametrize("key", [1.0, (0, 1.5), "a", np.float64(1), {0: 1}, [1.5],
                                 np.array([1.0]), (0, np.array([0.5]))], ids=repr)
def test_an_index_of_a_type_indexing_does_not_take_is_numpys_indexerror(key):
    """NumPy raises IndexError for such a key, Python's sequences TypeError: the error is
    both, so code written against either catches it."""
    a = np.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(IndexError):
        a[key]
    for exc in (IndexError, TypeError):
        with pytest.raises(exc):
            lt.asarray(a)[key]
        with pytest.raises(exc):
            lt.asarray(a)[key] = 1.0


# ---- assignment ------------------------------------------------------------------------
def assign_both(key_np, value_np, key_lt=None, value_lt=None, a=A3):
    """Assign in NumPy and in lazytensor; check x's new value, dtype and shape."""
    expected = a.copy()
    expected[key_np] = value_np
    x = lt.asarray(a)
    x[key_np if key_lt is None else key_lt] = value_np if value_lt is None else value_lt
    check_same(x, expected)
    return x


@pytest.mark.parametrize("key", [
    0, -1, (1, 2), (1, 2, 3), slice(None, None, -1), (slice(None), slice(1, None, 2)),
    (Ellipsis, 0), (0, Ellipsis, slice(None, None, 3)), (), Ellipsis, (None, 0),
    (slice(None), slice(5, 10)),
], ids=repr)
def test_setitem_basic_keys_with_scalar_and_broadcast_values(key):
    assign_both(key, 7.0)
    target_shape = np.asarray(A3[key]).shape
    value = np.arange(int(np.prod(target_shape[-1:])), dtype=np.float32).reshape(target_shape[-1:])
    assign_both(key, value, value_lt=lt.asarray(value))
    full = np.full(target_shape, -1, dtype=np.float32)
    assign_both(key, full, value_lt=lt.asarray(full))


def test_setitem_boolean_mask():
    mask = A3 > 11.5
    assign_both(mask, 0.0, key_lt=lt.asarray(mask))
    values = -np.arange(int(mask.sum()), dtype=np.float32)
    assign_both(mask, values, key_lt=lt.asarray(mask), value_lt=lt.asarray(values))
    assign_both(mask, np.float32(3), key_lt=lt.asarray(mask), value_lt=lt.asarray(np.float32(3)))
    partial = A3[:, :, 0] > 5                 # covers the first two axes
    row = np.arange(4, dtype=np.float32)
    assign_both(partial, row, key_lt=lt.asarray(partial), value_lt=lt.asarray(row))
    assign_both(np.array(True), 1.0, key_lt=lt.asarray(True))
    assign_both(np.array(False), 1.0, key_lt=lt.asarray(False))


def test_setitem_with_a_size_0_mask_changes_nothing():
    x = t3()
    x[lt.asarray(np.zeros((0, 3), bool))] = 5.0
    check_same(x, A3)


def test_setitem_integer_arrays():
    i, j = np.array([0, 1, 1]), np.array([2, 0, -1])
    assign_both((i, j), 9.0, key_lt=(lt.asarray(i), lt.asarray(j)))
    v = np.arange(12, dtype=np.float32).reshape(3, 4)
    assign_both((i, j), v, key_lt=(lt.asarray(i), lt.asarray(j)), value_lt=lt.asarray(v))
    assign_both((0, [1, 2]), 4.0)


@pytest.mark.parametrize("x_dtype, value, expected", [
    ("float32", 2, 2.0),                       # Python int into a float tensor
    ("float32", True, 1.0),
    ("float32", 1e300, np.inf),                # rounds like NumPy's float32(1e300)
    ("int8", -128, -128),
    ("int8", True, 1),
    ("uint8", 255, 255),
    ("bool", False, False),
    ("complex64", 1.5, 1.5 + 0j),
    ("complex128", 2 - 1j, 2 - 1j),
    ("float16", 0.1, np.float16(0.1)),
])
def test_setitem_python_scalar_takes_the_tensor_dtype(x_dtype, value, expected):
    x = lt.zeros((3,), dtype=x_dtype)
    with np.errstate(over="ignore"):
        x[1] = value
    assert x.dtype == x_dtype
    assert x.numpy()[1] == expected and x.numpy()[0] == 0


@pytest.mark.parametrize("x_dtype, value, exc", [
    ("int32", 1.5, TypeError),                 # promotion would give a float
    ("int32", 1.0, TypeError),
    ("bool", 1, TypeError),
    ("float64", 1j, TypeError),
    ("uint8", 256, OverflowError),
    ("int8", -129, OverflowError),
    ("float32", "1", TypeError),
    ("float32", [1.0, 2.0, 3.0], TypeError),
    ("float32", None, TypeError),
])
def test_setitem_rejects_values_the_dtype_cannot_hold(x_dtype, value, exc):
    x = lt.zeros((3,), dtype=x_dtype)
    with pytest.raises(exc):
        x[:] = value
    assert x.dtype == x_dtype and not x.numpy().any()


@pytest.mark.parametrize("x_dtype, v_dtype", [
    ("float32", "float64"), ("float64", "float16"), ("int8", "int64"), ("int64", "uint32"),
    ("int16", "bool"), ("float32", "int64"), ("complex64", "float64"), ("int8", "uint16"),
])
def test_setitem_tensor_value_is_converted_within_its_kind(x_dtype, v_dtype):
    v = np.array([1, 300, -2], dtype=np.int64)
    value = (v > 0) if v_dtype == "bool" else v.astype(v_dtype)
    expected = np.zeros(3, dtype=x_dtype)
    expected[:] = value                        # NumPy's conversion (int64 -> int8 wraps)
    x = lt.zeros((3,), dtype=x_dtype)
    x[:] = lt.asarray(value)
    check_same(x, expected)


@pytest.mark.parametrize("x_dtype, v_dtype", [
    ("int32", "float32"), ("bool", "int8"), ("float64", "complex64"), ("uint8", "float16"),
    ("uint8", "int16"),                        # signed into unsigned: not NumPy's same_kind
])
def test_setitem_tensor_value_of_another_kind_is_a_type_error(x_dtype, v_dtype):
    x = lt.zeros((2,), dtype=x_dtype)
    with pytest.raises(TypeError, match=f"cannot assign {v_dtype} values into a {x_dtype}"):
        x[:] = lt.ones((2,), dtype=v_dtype)


def test_setitem_value_that_does_not_broadcast_is_a_value_error():
    x = t3()
    with pytest.raises(ValueError, match=r"value of shape \(5,\)"):
        x[0] = lt.ones((5,), dtype="float32")
    with pytest.raises(ValueError):
        x[lt.asarray(A3 > 3)] = lt.ones((2,), dtype="float32")
    check_same(x, A3)


def test_setitem_errors_name_the_index():
    x = t3()
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 of size 3"):
        x[0, 5] = 1.0
    with pytest.raises(TypeError, match="invalid index"):
        x[0.5] = 1.0
    with pytest.raises(IndexError, match="more than one ellipsis"):
        x[..., ...] = 1.0


@pytest.mark.parametrize("start", [lambda: t3(), lambda: t3() * 1.0])
def test_setitem_is_seen_by_views_and_not_by_results_recorded_before(start):
    """NumPy's program, run on NumPy and on lazytensor: a view sees the writes into its
    base; a result recorded before a write (still pending) keeps the value it read."""
    x = start()
    alias = x
    lazy = x * 1.0                       # built from the old value, not yet evaluated
    view = x[0]                          # a view: shares x's memory
    gathered = x[lt.asarray([1])]        # a gather: a copy
    x[0, 0, 0] = -1.0
    x[lt.asarray(A3 > 20)] = 0.0
    ref = A3.copy()
    ref_view = ref[0]
    ref[0, 0, 0] = -1.0
    ref[A3 > 20] = 0.0
    assert alias is x and float(alias[0, 0, 0]) == -1.0
    check_same(x, ref)
    np.testing.assert_array_equal(lazy.numpy(), A3)
    np.testing.assert_array_equal(view.numpy(), ref_view)
    np.testing.assert_array_equal(gathered.numpy(), A3[[1]])


def test_setitem_on_a_lazy_tensor_and_from_itself():
    x = lt.asarray(np.arange(5.0)) + 1.0
    x[1:] = x[:-1]                       # the value read is the old one
    np.testing.assert_array_equal(x.numpy(), [1, 1, 2, 3, 4])


def test_setitem_on_a_view_changes_its_source():
    x = t3()
    row = x[1]
    row[0] = 100.0
    assert float(row[0, 0]) == 100.0
    ref = A3.copy()
    ref[1][0] = 100.0
    check_same(x, ref)


def test_after_setitem_the_value_is_the_tensors_memory():
    x = t3() * 1.0
    y = x + 0.0                  # pending: reads x's value before the write
    x[0] = 1.0                   # x's value became its memory (written in place)
    x.numpy()[0, 0, 0] = 2.0     # as np.asarray's array of x is
    assert float(x[0, 0, 0]) == 2.0
    check_same(y, A3)


# ---- take / take_along_axis ------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_take_matches_numpy(axis):
    idx = np.array([0, -1, 1, 0])
    idx = idx[:A3.shape[axis] + 2]
    check_same(lt.take(t3(), lt.asarray(idx), axis=axis), np.take(A3, idx, axis=axis))


def test_take_1d_axis_optional():
    x = lt.asarray(np.array([10, 20, 30], dtype=np.int16))
    check_same(lt.take(x, lt.asarray([2, -3, 2])), np.array([30, 10, 30], dtype=np.int16))
    check_same(lt.take(x, lt.asarray(np.array([], dtype=np.int64))), np.array([], np.int16))
    check_same(lt.take(x, lt.asarray(np.array([1], dtype=np.uint8)), axis=0),
               np.array([20], np.int16))


def test_take_lazy_inputs_and_other_dtypes():
    x = lt.asarray(np.array([1.0, 2.0, 3.0])) * 2.0
    idx = lt.asarray([2, 0]) + 0
    check_same(lt.take(x, idx), np.array([6.0, 2.0]))
    b = lt.asarray(np.array([[True, False], [False, False]]))
    check_same(lt.take(b, lt.asarray([1, 0]), axis=1), np.array([[False, True], [False, False]]))


def test_take_errors():
    with pytest.raises(IndexError, match="take: index 99 is out of bounds"):
        lt.take(t3(), lt.asarray([99]))    # axis=None: NumPy's flat take
    with pytest.raises(IndexError, match="take: index 3 is out of bounds for axis 1 of size 3"):
        lt.take(t3(), lt.asarray([0, 3]), axis=1)
    with pytest.raises(IndexError, match="index -4 is out of bounds"):
        lt.take(t3(), lt.asarray([-4]), axis=1)
    with pytest.raises(TypeError, match="integer dtype"):
        lt.take(t3(), lt.asarray([0.0]), axis=0)
    with pytest.raises(TypeError, match="integer dtype"):
        lt.take(t3(), lt.asarray([True]), axis=0)
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        lt.take(t3(), lt.asarray([0]), axis=3)
    with pytest.raises(TypeError, match="axis must be an integer"):
        lt.take(t3(), lt.asarray([0]), axis=1.0)
    with pytest.raises(TypeError, match="expected a Tensor"):
        lt.take(object(), lt.asarray([0]), axis=0)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2])
def test_take_along_axis_matches_numpy(axis):
    rng = np.random.default_rng(0)
    ax = -1 if axis is None else axis
    n = A3.shape[ax]
    shape = list(A3.shape)
    shape[ax] = 5
    idx = rng.integers(-n, n, size=shape)
    kw = {} if axis is None else {"axis": axis}
    check_same(lt.take_along_axis(t3(), lt.asarray(idx), **kw),
               np.take_along_axis(A3, idx, axis=ax))


def test_take_along_axis_broadcasts_other_axes():
    idx = np.array([[[0, 3]]])                              # shape (1, 1, 2)
    check_same(lt.take_along_axis(t3(), lt.asarray(idx), axis=2),
               np.take_along_axis(A3, idx, axis=2))
    x = lt.asarray(np.arange(4.0).reshape(1, 4))
    idx = np.array([[1, 0], [3, 3], [2, 2]])              # x broadcasts along axis 0
    check_same(lt.take_along_axis(x, lt.asarray(idx), axis=1),
               np.take_along_axis(np.arange(4.0).reshape(1, 4), idx, axis=1))


def test_take_along_axis_sorted_order():
    a = np.array([[3.0, 1.0, 2.0], [0.5, 9.0, -1.0]])
    order = np.argsort(a, axis=1)
    np.testing.assert_array_equal(
        lt.take_along_axis(lt.asarray(a), lt.asarray(order)).numpy(), np.sort(a, axis=1))


def test_take_along_axis_errors():
    x = t3()
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        lt.take_along_axis(x, lt.asarray(np.zeros((2, 3, 4), np.int64)), axis=3)
    with pytest.raises(ValueError, match="as many dimensions"):
        lt.take_along_axis(x, lt.asarray([0]), axis=0)
    with pytest.raises(ValueError, match="do not broadcast"):
        lt.take_along_axis(x, lt.asarray(np.zeros((2, 2, 1), np.int64)), axis=2)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 2 of size 4"):
        lt.take_along_axis(x, lt.asarray(np.full((2, 3, 1), 4)), axis=-1)
    with pytest.raises(TypeError, match="integer dtype"):
        lt.take_along_axis(x, lt.asarray(np.zeros((2, 3, 1))), axis=-1)
    with pytest.raises(ValueError, match="at least one dimension"):
        lt.take_along_axis(lt.asarray(1.0), lt.asarray(0))


# ---- DLPack ----------------------------------------------------------------------------
class Producer:
    """Hands a fixed set of ``__dlpack__`` keywords to NumPy's importer."""

    def __init__(self, t, **kw):
        self.t, self.kw = t, kw

    def __dlpack__(self, **ignored):
        return self.t.__dlpack__(**self.kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


DTYPES = ["bool", "int8", "uint16", "int32", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_round_trips_with_numpy_and_itself(dtype):
    a = (np.arange(6) % 3).reshape(2, 3).astype(dtype)
    t = lt.asarray(a)[:, ::-1]                  # a strided view
    back = np.from_dlpack(t)
    np.testing.assert_array_equal(back, a[:, ::-1])
    # writable as NumPy's own export of the same view is
    assert back.dtype == a.dtype
    assert back.flags.writeable == np.from_dlpack(a[:, ::-1]).flags.writeable
    assert np.shares_memory(back, t.numpy())    # versioned protocol: no copy
    again = lt.from_dlpack(t)
    check_same(again, a[:, ::-1])
    check_same(lt.from_dlpack(a), a)


def test_dlpack_of_a_lazy_tensor():
    t = lt.asarray(np.arange(4.0)) * 3.0
    np.testing.assert_array_equal(np.from_dlpack(t), [0, 3, 6, 9])


@pytest.mark.parametrize("kw, shares", [
    ({}, True), ({"max_version": (0, 8)}, True),       # writable memory: legacy shares it
    ({"copy": False}, True), ({"max_version": (0, 8), "copy": False}, True),
    ({"copy": True}, False),
    ({"max_version": (1, 0)}, True), ({"max_version": (1, 0), "copy": False}, True),
    ({"max_version": (1, 0), "copy": True}, False), ({"max_version": (2, 0)}, True),
    ({"dl_device": (1, 0)}, True), ({"dl_device": (1, 0), "max_version": (1, 0)}, True),
])
def test_dunder_dlpack_keywords(kw, shares):
    t = lt.asarray(np.arange(5.0)) + 1.0
    out = np.from_dlpack(Producer(t, **kw))
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 5])
    assert np.shares_memory(out, t.numpy()) == shares


@pytest.mark.parametrize("kw, shares", [({}, False), ({"max_version": (0, 8)}, False),
                                        ({"max_version": (1, 0)}, True)])
def test_dunder_dlpack_of_read_only_memory(kw, shares):
    """A read-only view's memory: the versioned protocol flags it read-only; the legacy one
    cannot, so it gets a copy."""
    t = lt.broadcast_to(lt.asarray(np.arange(5.0)) + 1.0, (2, 5))
    out = np.from_dlpack(Producer(t, **kw))
    np.testing.assert_array_equal(out, np.broadcast_to(np.arange(5.0) + 1, (2, 5)))
    assert np.shares_memory(out, t.numpy()) == shares
    if shares:
        assert not out.flags.writeable


def test_dunder_dlpack_errors():
    t = lt.asarray([1.0])
    with pytest.raises(BufferError, match="device"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="device"):
        t.__dlpack__(dl_device=(1, 1), max_version=(1, 0))
    with pytest.raises(ValueError, match="stream"):
        t.__dlpack__(stream=1)
    assert t.__dlpack_device__() == (1, 0)


# ---- in-place operators ----------------------------------------------------------------
@pytest.mark.parametrize("op, dtype, other", [
    ("iadd", "float32", 1.5), ("isub", "int16", 3), ("imul", "float64", -2.0),
    ("itruediv", "float32", 4.0), ("ifloordiv", "int32", 2), ("imod", "int64", 3),
    ("ipow", "float64", 2.0), ("iand", "uint8", 6), ("ior", "bool", True),
    ("ixor", "int8", 5), ("ilshift", "int32", 1), ("irshift", "uint16", 1),
])
def test_inplace_operator_keeps_dtype_and_equals_the_binary_op(op, dtype, other):
    a = (np.arange(1, 7).reshape(2, 3) % 5).astype(dtype)
    a0 = a.copy()
    x = lt.asarray(a)                                 # a's memory (as np.asarray(a) is)
    alias = x
    before = x + 0 if dtype != "bool" else x | False
    binary = getattr(operator, op[1:] if op[1:] not in ("and", "or") else op[1:] + "_")(x, other)
    result = getattr(operator, op)(x, other)
    assert result is x and alias is x                 # the same object, with a new value
    check_same(x, binary.numpy())
    np.testing.assert_array_equal(a, binary.numpy())  # written into a, as NumPy writes
    assert x.dtype == dtype and x.shape == (2, 3)
    check_same(before, a0)                            # built earlier: keeps the old value


def test_inplace_with_a_broadcast_tensor():
    x = lt.asarray(np.ones((2, 3), np.float32))
    x += lt.asarray(np.arange(3, dtype=np.float32))
    check_same(x, 1 + np.arange(3, dtype=np.float32)[None].repeat(2, 0))


def test_inplace_matmul():
    a = np.arange(4.0).reshape(2, 2)
    a0 = a.copy()
    x = lt.asarray(a)
    before = x * 1.0
    x @= lt.asarray(a0)
    check_same(x, a0 @ a0)
    np.testing.assert_array_equal(a, a0 @ a0)         # x's memory is a's
    check_same(before, a0)
    with pytest.raises(ValueError, match="shape"):
        x @= lt.ones((2, 3))


def test_inplace_that_would_change_dtype_or_shape_raises():
    x = lt.asarray(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="dtype"):
        x += 1.5
    with pytest.raises(TypeError, match="dtype"):
        x /= 2
    y = lt.asarray(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="shape"):
        y += lt.asarray(np.zeros((2, 3), np.float32))
    check_same(x, np.arange(3, dtype=np.int32))
    check_same(y, np.zeros(3, np.float32))


# ---- attributes, conversions, namespace ------------------------------------------------
def test_attributes():
    x = t3()
    assert (x.dtype, x.shape, x.ndim, x.size) == (lt.float32, (2, 3, 4), 3, 24)
    assert x.device == "cpu" and str(x.device) == "cpu"
    check_same(x.mT, np.swapaxes(A3, -1, -2))
    m = lt.asarray(A3[0])
    check_same(m.T, A3[0].T)
    check_same(x.T, A3.T)      # NumPy's: the axes reversed, for every rank
    with pytest.raises(ValueError):
        lt.asarray([1.0]).mT
    assert lt.asarray(3).size == 1 and lt.asarray(3).shape == ()


def test_to_device():
    x = t3()
    assert x.to_device("cpu") is x
    assert x.to_device(x.device) is x
    with pytest.raises(ValueError, match="CPU only"):
        x.to_device("cuda")
    with pytest.raises(ValueError, match="stream"):
        x.to_device("cpu", stream=0)


def test_array_namespace():
    x = t3()
    assert x.__array_namespace__() is lt
    for v in ["2021.12", "2022.12", "2023.12", "2024.12", "2025.12"]:
        assert x.__array_namespace__(api_version=v) is lt
    for bad in ["2026.12", "2020.10", "latest", 2025.12]:
        with pytest.raises(ValueError, match="does not serve"):
            x.__array_namespace__(api_version=bad)


@pytest.mark.parametrize("value, dtype, fn, expected", [
    (True, "bool", bool, True), (0.0, "float32", bool, False), (np.nan, "float64", bool, True),
    (-0.0, "float64", bool, False), (1j, "complex64", bool, True), (0j, "complex128", bool, False),
    (True, "bool", int, 1), (-2.7, "float64", int, -2), (-0.0, "float32", int, 0),
    (2**64 - 1, "uint64", int, 2**64 - 1), (True, "bool", float, 1.0), (7, "int8", float, 7.0),
    (False, "bool", complex, 0j), (np.inf, "float64", complex, complex(np.inf, 0)),
    (1.5, "float16", complex, 1.5 + 0j), (1 - 2j, "complex64", complex, 1 - 2j),
    (-5, "int16", operator.index, -5), (9, "uint8", operator.index, 9),
])
def test_scalar_conversions(value, dtype, fn, expected):
    out = fn(lt.asarray(np.array(value, dtype=dtype)))
    assert type(out) is type(expected) and out == expected


def test_scalar_conversion_special_cases_and_errors():
    nan = lt.asarray(np.nan)
    z = complex(nan)
    assert np.isnan(z.real) and np.isnan(z.imag)          # Array API: NaN + NaN j
    with pytest.raises(ValueError):
        int(nan)
    with pytest.raises(OverflowError):
        int(lt.asarray(np.float16(np.inf)))
    with pytest.raises(TypeError):
        int(lt.asarray(np.complex64(1)))
    with pytest.raises(TypeError):
        float(lt.asarray(np.complex128(1)))
    with pytest.raises(TypeError, match="integer tensors"):
        operator.index(lt.asarray(1.0))
    with pytest.raises(TypeError, match="integer tensors"):
        operator.index(lt.asarray(True))
    with pytest.raises(TypeError, match="0-d"):
        int(lt.asarray([1, 2]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(lt.asarray([True, False]))
    lazy = lt.asarray(np.float32(2.5)) * 2.0
    assert float(lazy) == 5.0 and bool(lazy) and int(lazy) == 5


def _values_of(dtype):
    if dtype.kind == "b":
        return [True, False]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [info.min, info.max, 0, 1, info.max // 3]
    info = np.finfo(dtype)
    return [0.0, -0.0, 1.5, -2.75, float(info.max), float(info.tiny), float(info.smallest_subnormal),
            np.nan, np.inf, -np.inf, 1e10 if dtype.itemsize > 2 else 1e4]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32",
                                   "uint32", "int64", "uint64", "float16", "float32",
                                   "float64"])
def test_python_scalars_of_one_element_are_numpys(dtype):
    """float(t), int(t), operator.index(t) and bool(t) (C for real dtypes, ext/values.c)
    give what the same conversions of NumPy's array give, value and type, or the same
    error type: every real dtype, its extremes, NaN and infinities, a 0-d value, an element
    read by indexing, a pending result, and bool of one-element tensors of any shape."""
    dt = np.dtype(dtype)
    for v in _values_of(dt):
        a = np.array(v, dtype=dt)
        cases = [(lt.asarray(a), a), (lt.asarray(np.array([v, v], dt))[1], a),
                 (lt.where(lt.asarray(True), lt.asarray(a), lt.asarray(a)), a)]
        assert not cases[2][0].is_evaluated
        for fn in (float, int, operator.index, bool):
            for t, ref in cases:
                try:
                    want = fn(ref)
                except Exception as exc:                # noqa: BLE001
                    with pytest.raises(type(exc)):
                        fn(t)
                    continue
                got = fn(t)
                assert type(got) is type(want), (fn, v, dtype)
                assert got == want or (got != got and want != want), (fn, v, dtype, got, want)
        for shape in [(1,), (1, 1, 1), (2,)]:
            b = np.full(shape, v, dt)
            if b.size == 1:
                assert bool(lt.asarray(b)) is bool(b)
            else:
                with pytest.raises(ValueError):
                    bool(lt.asarray(b))


def test_iteration():
    x = lt.asarray(np.array([1, 2, 3], dtype=np.int8))
    items = list(x)
    assert all(isinstance(i, lt.Tensor) and i.shape == () for i in items)
    assert [int(i) for i in items] == [1, 2, 3]
    assert [r.shape for r in t3()] == [(3, 4), (3, 4)]
    with pytest.raises(TypeError, match="0-d"):
        iter(lt.asarray(1.0))


def test_repr():
    assert repr(lt.asarray(np.array([1, 2], np.int16))) == "Tensor([1, 2], dtype=int16)"
    assert repr(lt.asarray(np.float32(1.5))) == "Tensor(1.5, dtype=float32)"
    assert repr(lt.asarray(np.zeros((0, 3)))) == "Tensor([], shape=(0, 3), dtype=float64)"
    assert repr(lt.asarray(np.zeros((0,)))) == "Tensor([], dtype=float64)"
    assert "dtype=bool" in repr(lt.asarray([True])) and "..." in repr(lt.zeros((10000,)))


def test_metadata_and_namespace_do_not_evaluate():
    y = t3() * 2.0
    assert (y.shape, y.dtype, y.device, y.ndim, y.size) == ((2, 3, 4), lt.float32, "cpu", 3, 24)
    assert y.__array_namespace__() is lt and y.to_device("cpu") is y
    assert not y.is_evaluated
