"""Searching, sorting and set functions against NumPy: dtypes, shapes (0-d and empty
included), axes, NaN handling and error messages."""

import numpy as np
import pytest

import lazytensor as lt

REAL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64"]
ALL = REAL + ["complex64", "complex128"]


def sample(dtype, shape, rng, low=-5, high=5):
    """Values with repeats (small range) in ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind == "u":
        low = 0
    vals = rng.integers(low, high, size=shape)
    if dtype.kind == "c":
        return (vals + 1j * rng.integers(low, high, size=shape)).astype(dtype)
    return vals.astype(dtype)


def check(out, expected):
    expected = np.asarray(expected)
    assert isinstance(out, lt.Tensor)
    assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    np.testing.assert_array_equal(out.numpy(), expected)


# ---- argmax / argmin ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_arg_extrema_match_numpy(fname, dtype, rng):
    x = sample(dtype, (3, 4, 5), rng)
    fn, ref = getattr(lt, fname), getattr(np, fname)
    t = lt.asarray(x)
    check(fn(t), ref(x).astype(np.int64))
    for axis in (0, 1, -1, -3):
        for keepdims in (False, True):
            check(fn(t, axis=axis, keepdims=keepdims),
                  ref(x, axis=axis, keepdims=keepdims).astype(np.int64))
    check(fn(t, keepdims=True), np.zeros((1, 1, 1), np.int64) + ref(x))


def test_arg_extrema_first_occurrence_nan_and_0d():
    x = lt.asarray([1.0, 3.0, 3.0, np.nan, np.nan])
    assert int(lt.argmax(lt.asarray([1, 3, 3]))) == 1
    assert int(lt.argmin(lt.asarray([2, 0, 0]))) == 1
    assert int(lt.argmax(x)) == 3 and int(lt.argmin(x)) == 3   # NaN wins (NumPy)
    check(lt.argmax(lt.asarray(5.0)), np.int64(0))
    # an empty tensor whose searched axis is not empty is fine
    check(lt.argmax(lt.zeros((0, 3)), axis=1), np.zeros((0,), np.int64))


def test_arg_extrema_errors():
    with pytest.raises(ValueError, match=r"argmax: .*shape \(0, 3\).*axis 0"):
        lt.argmax(lt.zeros((0, 3)), axis=0)
    with pytest.raises(ValueError, match="argmin"):
        lt.argmin(lt.zeros((0,)))
    with pytest.raises(IndexError, match=r"argmax: axis 2 is out of range .*\(2, 3\)"):
        lt.argmax(lt.zeros((2, 3)), axis=2)
    with pytest.raises(TypeError, match="argmax: axis must be an integer"):
        lt.argmax(lt.zeros((2, 3)), axis=(0, 1))
    with pytest.raises(TypeError, match="argmin: expected a Tensor or an array-like, got object"):
        lt.argmin(object())


# ---- count_nonzero / nonzero -------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_count_nonzero(dtype, rng):
    x = sample(dtype, (2, 3, 4), rng, -1, 2)
    t = lt.asarray(x)
    check(lt.count_nonzero(t), np.int64(np.count_nonzero(x)))
    for axis in (0, -1, (0, 2), (2, 0, 1)):
        for keepdims in (False, True):
            check(lt.count_nonzero(t, axis=axis, keepdims=keepdims),
                  np.count_nonzero(x, axis=axis, keepdims=keepdims).astype(np.int64))
    check(lt.count_nonzero(t, keepdims=True), np.full((1, 1, 1), np.count_nonzero(x)))


def test_count_nonzero_special_values():
    x = lt.asarray([0.0, -0.0, np.nan, np.inf, 1e-300])
    assert int(lt.count_nonzero(x)) == 3
    assert int(lt.count_nonzero(lt.asarray([0j, 1j, 1 + 0j, complex(0, -0.0)]))) == 2
    check(lt.count_nonzero(lt.zeros((0, 2)), axis=0), np.zeros(2, np.int64))
    check(lt.count_nonzero(lt.asarray(3)), np.int64(1))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 0, 3), (2, 2, 2)])
def test_nonzero(dtype, shape, rng):
    x = sample(dtype, shape, rng, -1, 2)
    out = lt.nonzero(lt.asarray(x))
    expected = np.nonzero(x)
    assert isinstance(out, tuple) and len(out) == len(shape)
    for o, e in zip(out, expected):
        check(o, e.astype(np.int64))


def test_nonzero_of_lazy_input_and_0d_error():
    x = lt.asarray([1.0, -1.0, 2.0])
    (i,) = lt.nonzero(x + 1.0)   # evaluates the pending expression first
    check(i, np.array([0, 2], np.int64))
    with pytest.raises(ValueError, match="nonzero: .*0-d"):
        lt.nonzero(lt.asarray(1.0))


# ---- searchsorted ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(dtype, side, rng):
    x1 = np.sort(sample(dtype, (9,), rng))
    x2 = sample(dtype, (2, 3), rng)
    check(lt.searchsorted(lt.asarray(x1), lt.asarray(x2), side=side),
          np.searchsorted(x1, x2, side=side).astype(np.int64))
    perm = rng.permutation(9)
    shuffled = x1[perm]
    sorter = np.argsort(shuffled, kind="stable")
    check(lt.searchsorted(lt.asarray(shuffled), lt.asarray(x2), side=side,
                          sorter=lt.asarray(sorter)),
          np.searchsorted(shuffled, x2, side=side, sorter=sorter).astype(np.int64))


def test_searchsorted_scalars_edges_and_nan():
    x1 = lt.asarray([1.0, 2.0, 2.0, 3.0, np.nan])
    check(lt.searchsorted(x1, 2), np.int64(1))
    check(lt.searchsorted(x1, 2.0, side="right"), np.int64(3))
    check(lt.searchsorted(x1, -10.0), np.int64(0))
    check(lt.searchsorted(x1, lt.asarray([np.nan, 10.0])), np.array([4, 4], np.int64))
    u8 = lt.asarray([1, 2, 250], dtype=lt.uint8)
    check(lt.searchsorted(u8, 1000), np.int64(3))   # beyond the dtype's range: past the end
    check(lt.searchsorted(u8, -1), np.int64(0))
    check(lt.searchsorted(lt.asarray([0, 1]), lt.zeros((0,), dtype=lt.int64)),
          np.zeros((0,), np.int64))
    # consistent with sort: inserting and sorting again keeps the order
    x = lt.sort(lt.asarray([3.0, np.nan, 1.0]))
    check(lt.searchsorted(x, lt.asarray([np.nan])), np.array([2], np.int64))


def test_searchsorted_errors():
    x1 = lt.asarray([1, 2, 3])
    with pytest.raises(ValueError, match=r"x1 must be one-dimensional, got shape \(1, 3\)"):
        lt.searchsorted(lt.reshape(x1, (1, 3)), 1)
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        lt.searchsorted(x1, 1, side="middle")
    with pytest.raises(ValueError, match=r"sorter has shape \(2,\)"):
        lt.searchsorted(x1, 1, sorter=lt.asarray([0, 1]))
    with pytest.raises(TypeError, match="sorter.*float64"):
        lt.searchsorted(x1, 1, sorter=lt.asarray([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="outside"):
        lt.searchsorted(x1, 1, sorter=lt.asarray([0, 1, 5]))
    with pytest.raises(TypeError, match="x2 must be a Tensor or a Python scalar"):
        lt.searchsorted(x1, object())


# ---- sort / argsort ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_sort_and_argsort_match_numpy(dtype, rng):
    x = sample(dtype, (4, 5, 6), rng)
    t = lt.asarray(x)
    for axis in (0, 1, -1):
        check(lt.sort(t, axis=axis), np.sort(x, axis=axis, kind="stable"))
        check(lt.argsort(t, axis=axis), np.argsort(x, axis=axis, kind="stable").astype(np.int64))
        desc = lt.sort(t, axis=axis, descending=True)
        check(desc, np.flip(np.sort(x, axis=axis), axis=axis))
        idx = lt.argsort(t, axis=axis, descending=True).numpy()
        np.testing.assert_array_equal(np.take_along_axis(x, idx, axis=axis), desc.numpy())
        # unstable sorts still sort
        check(lt.sort(t, axis=axis, stable=False), np.sort(x, axis=axis))
        np.testing.assert_array_equal(
            np.take_along_axis(x, lt.argsort(t, axis=axis, stable=False).numpy(), axis=axis),
            np.sort(x, axis=axis))


def test_descending_sort_is_stable():
    x = np.array([1, 3, 1, 2, 3, 1], np.int32)
    expected = sorted(range(6), key=lambda i: -x[i])   # Python's sort is stable
    check(lt.argsort(lt.asarray(x), descending=True), np.array(expected, np.int64))
    check(lt.argsort(lt.asarray(x)), np.array(sorted(range(6), key=lambda i: x[i]), np.int64))
    z = lt.asarray([0.0, -0.0, 1.0, -0.0, 0.0])
    out = lt.sort(z, descending=True).numpy()
    np.testing.assert_array_equal(np.signbit(out), [False, False, True, True, False])
    out = lt.sort(z).numpy()
    np.testing.assert_array_equal(np.signbit(out), [False, True, True, False, False])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint64", "bool"])
def test_sort_gives_the_stable_sorts_bits(dtype, rng):
    """lt.sort takes NumPy's unstable kind where stability cannot show in the values;
    its bits are those of NumPy's stable sort every time: values with and without signed
    zeros and NaNs of several payloads, many sizes, both directions, several axes."""
    nan_payloads = np.array([0x7FF8000000000001, 0xFFF8000000000002, 0x7FF8000000000003],
                            np.uint64).view(np.float64)
    for n in (2, 3, 17, 64, 300):
        x = (rng.standard_normal((3, n)) * 5).astype(dtype)
        cases = [x]
        if x.dtype.kind == "f":
            z = x.copy()
            z[:, ::4] = 0.0
            z[:, 1::7] = -0.0
            w = x.astype(np.float64)
            w[:, ::5] = nan_payloads[np.arange(w[:, ::5].size) % 3].reshape(w[:, ::5].shape)
            cases += [z, w.astype(dtype)]
        for a in cases:
            t = lt.asarray(a)
            for axis in (0, -1, None):
                want = np.sort(a, axis=axis, kind="stable")
                got = lt.sort(t, axis=axis).numpy()
                assert got.tobytes() == want.tobytes(), (dtype, n, axis)
                down = np.flip(np.sort(np.flip(a, axis=axis), axis=axis, kind="stable"),
                               axis=axis) if axis is not None else None
                if down is not None:
                    assert lt.sort(t, axis=axis, descending=True).numpy().tobytes() == \
                        down.tobytes()


def test_sort_nan_empty_and_errors():
    x = lt.asarray([np.nan, 1.0, -np.inf, np.nan, 0.5])
    check(lt.sort(x), np.array([-np.inf, 0.5, 1.0, np.nan, np.nan]))
    check(lt.sort(x, descending=True), np.array([np.nan, np.nan, 1.0, 0.5, -np.inf]))
    check(lt.argsort(x), np.array([2, 4, 1, 0, 3], np.int64))
    check(lt.sort(lt.zeros((0, 3)), axis=0), np.zeros((0, 3)))
    check(lt.argsort(lt.zeros((2, 0)), descending=True), np.zeros((2, 0), np.int64))
    with pytest.raises(IndexError, match=r"sort: axis -1 .*0-d tensor has no axes"):
        lt.sort(lt.asarray(1.0))
    with pytest.raises(ValueError, match=r"argsort: axis 3 is out of range .*\(2, 3\)"):
        lt.argsort(lt.zeros((2, 3)), axis=3)


# ---- unique_* ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(), (0,), (10,), (3, 4), (2, 0, 2)])
def test_unique_family(dtype, shape, rng):
    x = sample(dtype, shape, rng, -3, 3)
    t = lt.asarray(x)
    values, index, inverse, counts = np.unique(x.reshape(-1), return_index=True,
                                               return_inverse=True, return_counts=True)
    res = lt.unique_all(t)
    assert res._fields == ("values", "indices", "inverse_indices", "counts")
    check(res.values, values)
    check(res.indices, index.astype(np.int64))
    check(res.inverse_indices, inverse.reshape(shape).astype(np.int64))
    check(res.counts, counts.astype(np.int64))
    uc = lt.unique_counts(t)
    assert uc._fields == ("values", "counts")
    check(uc.values, values)
    check(uc.counts, counts.astype(np.int64))
    ui = lt.unique_inverse(t)
    assert ui._fields == ("values", "inverse_indices")
    check(ui.values, values)
    check(ui.inverse_indices, inverse.reshape(shape).astype(np.int64))
    check(lt.unique_values(t), values)
    # the inverse rebuilds x
    np.testing.assert_array_equal(res.values.numpy()[res.inverse_indices.numpy()], x)


def test_unique_nans_are_distinct_and_signed_zeros_are_not():
    x = lt.asarray([[np.nan, 0.0], [-0.0, np.nan]])
    res = lt.unique_all(x)
    v = res.values.numpy()
    assert v.shape == (3,) and v[0] == 0 and np.isnan(v[1:]).all()
    check(res.counts, np.array([2, 1, 1], np.int64))
    check(res.indices, np.array([1, 0, 3], np.int64))
    check(res.inverse_indices, np.array([[1, 0], [0, 2]], np.int64))
    assert lt.unique_values(x).shape == (3,)
    c = lt.asarray([complex(np.nan, 0), complex(np.nan, 0), 1j, complex(0, np.nan), 1j])
    vals, counts = lt.unique_counts(c)
    assert vals.shape == (4,)
    np.testing.assert_array_equal(np.sort(counts.numpy()), [1, 1, 1, 2])


def test_unique_errors():
    np.testing.assert_array_equal(lt.unique_values([2, 1, 2]).numpy(), [1, 2])  # array-likes
    with pytest.raises(TypeError, match="unique_values: expected a Tensor or an array-like"):
        lt.unique_values(object())


# ---- isin ----------------------------------------------------------------------------------
@pytest.mark.parametrize("d1", ["int8", "uint8", "int32", "int64", "uint64"])
@pytest.mark.parametrize("d2", ["int8", "uint16", "int64", "uint64"])
def test_isin_integer_dtypes_exact(d1, d2, rng):
    x1 = sample(d1, (3, 4), rng, -4, 4)
    x2 = sample(d2, (5,), rng, -4, 4)
    expected = np.array([[int(a) in {int(b) for b in x2} for a in row] for row in x1])
    check(lt.isin(lt.asarray(x1), lt.asarray(x2)), expected)
    check(lt.isin(lt.asarray(x1), lt.asarray(x2), invert=True), ~expected)


def test_isin_values_beyond_the_other_dtype():
    big = lt.asarray([2**64 - 1, 255, 2**63], dtype=lt.uint64)
    check(lt.isin(lt.asarray([-1, 255], dtype=lt.int16), big), np.array([False, True]))
    check(lt.isin(big, lt.asarray([-1, 255], dtype=lt.int64)), np.array([False, True, False]))
    check(lt.isin(lt.asarray([2**63 - 1], dtype=lt.int64),
                  lt.asarray([2**63 - 1], dtype=lt.uint64)), np.array([True]))


def test_isin_scalars_floats_and_shapes():
    x = lt.asarray([[1, 2], [3, 4]], dtype=lt.int8)
    check(lt.isin(x, 3), np.array([[False, False], [True, False]]))
    check(lt.isin(x, 300), np.zeros((2, 2), bool))                  # out of int8's range
    check(lt.isin(x, 300, invert=True), np.ones((2, 2), bool))
    check(lt.isin(4, x), np.bool_(True))
    check(lt.isin(1000, x), np.bool_(False))
    check(lt.isin(lt.asarray(2), x), np.bool_(True))
    f = lt.asarray([np.nan, 1.5, 2.0, -0.0])
    check(lt.isin(f, lt.asarray([np.nan, 0.0, 2.0])), np.array([False, False, True, True]))
    check(lt.isin(f, 2), np.array([False, False, True, False]))
    check(lt.isin(lt.asarray([1, 2]), lt.asarray([2.0, 3.5])), np.array([False, True]))
    check(lt.isin(lt.zeros((0, 3)), f), np.zeros((0, 3), bool))
    check(lt.isin(f, lt.zeros((0,))), np.zeros(4, bool))
    check(lt.isin(lt.asarray([1j, 2]), lt.asarray([1j])), np.array([True, False]))


def test_isin_errors():
    with pytest.raises(TypeError, match="at least one of x1 and x2 must be a Tensor"):
        lt.isin(1, 2)
    with pytest.raises(TypeError, match="isin: expected a Tensor or a Python scalar"):
        lt.isin(lt.asarray([1]), {1, 2})        # (lists are NumPy's array-likes: served)
