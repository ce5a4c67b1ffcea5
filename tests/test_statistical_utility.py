"""Statistical and utility functions and the top-level linear-algebra functions against
NumPy: result dtypes (the Array API defaults), shapes (0-d and empty included), axes,
keepdims, special values and error messages."""

import numpy as np
import pytest

import lazytensor as lt

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
NUMERIC = INTS + FLOATS + COMPLEX
ALL = ["bool"] + NUMERIC
AXES = [None, 0, -1, (0, 2), (2, 0), (), (0, 1, 2)]


def sample(dtype, shape, rng, low=-3, high=4):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind == "u":
        low = 0
    if dtype.kind == "f":
        return rng.uniform(low, high, size=shape).astype(dtype)
    vals = rng.integers(low, high, size=shape)
    if dtype.kind == "c":
        return (rng.uniform(low, high, size=shape)
                + 1j * rng.uniform(low, high, size=shape)).astype(dtype)
    return vals.astype(dtype)


def check(out, expected, exact=True, rtol=1e-6):
    expected = np.asarray(expected)
    assert isinstance(out, lt.Tensor)
    assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    if exact:
        np.testing.assert_array_equal(out.numpy(), expected)
    else:
        np.testing.assert_allclose(out.numpy(), expected, rtol=rtol, equal_nan=True)


def default_accumulator(dtype):
    """The Array API's sum/prod dtype for dtype=None (default integer int64)."""
    dtype = np.dtype(dtype)
    return {"b": np.dtype("int64"), "i": np.dtype("int64"),
            "u": np.dtype("uint64")}.get(dtype.kind, dtype)


# ---- sum / prod ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fname", ["sum", "prod"])
def test_sum_prod_default_dtypes_and_axes(fname, dtype, rng):
    x = sample(dtype, (2, 3, 4), rng, -2, 3)
    fn, ref = getattr(lt, fname), getattr(np, fname)
    t = lt.asarray(x)
    acc = default_accumulator(dtype)
    exact = np.dtype(dtype).kind not in "fc"
    for axis in AXES:
        for keepdims in (False, True):
            out = fn(t, axis=axis, keepdims=keepdims)
            check(out, ref(x, axis=axis, dtype=acc, keepdims=keepdims), exact, rtol=1e-2)
    assert fn(t).ndim == 0


@pytest.mark.parametrize("fname,identity", [("sum", 0), ("prod", 1)])
def test_sum_prod_explicit_dtype_empty_and_0d(fname, identity):
    fn, ref = getattr(lt, fname), getattr(np, fname)
    x8 = lt.asarray([100, 100, 100], dtype=lt.int8)
    check(fn(x8, dtype=lt.int16), ref(np.full(3, 100, np.int16), dtype=np.int16))   # wraps
    check(fn(x8, dtype=lt.float32), ref(np.full(3, 100, np.float32)))
    check(fn(x8, dtype="int8"), ref(np.full(3, 100, np.int8), dtype=np.int8))        # wraps
    check(fn(lt.asarray([1.5, 2.5]), dtype=lt.float32), ref(np.array([1.5, 2.5], np.float32)))
    # float to integer first casts by lazytensor's rules (truncate, saturate, NaN -> 0)
    check(fn(lt.asarray([2.7, np.nan, 1e30]), dtype=lt.int32),
          ref(np.array([2, 0, 2**31 - 1]), dtype=np.int32))
    check(fn(lt.zeros((0,), dtype=lt.float32)), np.float32(identity))
    check(fn(lt.zeros((2, 0), dtype=lt.uint8), axis=1), np.full(2, identity, np.uint64))
    check(fn(lt.zeros((0, 3), dtype=lt.complex64), axis=0), np.full(3, identity, np.complex64))
    check(fn(lt.asarray(3, dtype=lt.int16)), np.int64(3))
    check(fn(lt.asarray(True)), np.int64(1))


def test_sum_is_a_fusion_boundary_of_a_lazy_input():
    x = lt.asarray([1.0, 2.0, 3.0], dtype=lt.float32)
    out = lt.sum(x * 2.0 + 1.0)
    check(out, np.float32(15.0))


@pytest.mark.parametrize("fname", ["sum", "prod", "cumulative_sum", "cumulative_prod"])
def test_accumulation_errors(fname):
    fn = getattr(lt, fname)
    x = lt.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match=f"{fname}: expected a Tensor(, | or an array-like, )got object"):
        fn(object())
    with pytest.raises(TypeError, match=f"{fname}.*complex128.*float32.*imaginary"):
        fn(lt.asarray([1j]), dtype=lt.float32)
    with pytest.raises(TypeError, match=fname):
        fn(x, dtype="U3")
    if not fname.startswith("cumulative"):
        with pytest.raises(IndexError, match=rf"{fname}: axis 1 is out of range .*\(2,\)"):
            fn(x, axis=1)
        with pytest.raises(ValueError, match="more than once"):
            fn(lt.zeros((2, 2)), axis=(1, -1))
        with pytest.raises(TypeError, match="axis must be an integer"):
            fn(x, axis=0.5)


# ---- cumulative_sum / cumulative_prod -------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_functions(fname, dtype, rng):
    x = sample(dtype, (3, 4), rng, -2, 3)
    fn = getattr(lt, fname)
    ref = np.cumsum if fname == "cumulative_sum" else np.cumprod
    identity = 0 if fname == "cumulative_sum" else 1
    acc = default_accumulator(dtype)
    exact = np.dtype(dtype).kind not in "fc"
    t = lt.asarray(x)
    for axis in (0, 1, -1, -2):
        expected = ref(x, axis=axis, dtype=acc)
        check(fn(t, axis=axis), expected, exact, rtol=1e-2)
        pad = [(0, 0), (0, 0)]
        pad[axis] = (1, 0)
        check(fn(t, axis=axis, include_initial=True),
              np.pad(expected, pad, constant_values=identity), exact, rtol=1e-2)
    one_d = lt.asarray(x[0])
    check(fn(one_d), ref(x[0], dtype=acc), exact, rtol=1e-2)
    if np.dtype(dtype).kind != "c":
        check(fn(one_d, dtype=lt.float64), ref(x[0].astype(np.float64)), exact=False)


def test_cumulative_shapes_and_errors():
    check(lt.cumulative_sum(lt.zeros((0,)), include_initial=True), np.zeros(1))
    check(lt.cumulative_prod(lt.zeros((2, 0)), axis=1, include_initial=True), np.ones((2, 1)))
    check(lt.cumulative_sum(lt.zeros((0, 3)), axis=1), np.zeros((0, 3)))
    check(lt.cumulative_sum(lt.asarray(5)), np.array([5]))   # 0-d: one element (NumPy)
    check(lt.cumulative_sum(lt.asarray(5), include_initial=True), np.array([0, 5]))
    with pytest.raises(ValueError, match=r"cumulative_sum: axis is required .*\(2, 2\)"):
        lt.cumulative_sum(lt.zeros((2, 2)))
    with pytest.raises(IndexError, match="cumulative_prod: axis 2"):
        lt.cumulative_prod(lt.zeros((2, 2)), axis=2)


# ---- max / min -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fname", ["max", "min"])
def test_max_min(fname, dtype, rng):
    x = sample(dtype, (2, 3, 4), rng)
    fn, ref = getattr(lt, fname), getattr(np, fname)
    t = lt.asarray(x)
    for axis in AXES:
        for keepdims in (False, True):
            check(fn(t, axis=axis, keepdims=keepdims), ref(x, axis=axis, keepdims=keepdims))


def test_max_min_special_values_and_errors():
    x = lt.asarray([[1.0, np.nan], [-np.inf, 2.0]])
    check(lt.max(x, axis=1), np.array([np.nan, 2.0]))
    check(lt.min(x, axis=0), np.array([-np.inf, np.nan]))
    check(lt.max(lt.asarray(7, dtype=lt.uint8)), np.uint8(7))
    check(lt.min(lt.zeros((3, 0)), axis=0), np.zeros((0,)))   # nothing reduced is empty
    with pytest.raises(ValueError, match=r"max: the maximum of zero elements .*\(0, 3\)"):
        lt.max(lt.zeros((0, 3)))
    with pytest.raises(ValueError, match="min: the minimum of zero elements"):
        lt.min(lt.zeros((2, 0)), axis=1)
    with pytest.raises(IndexError, match="min: axis -3"):
        lt.min(lt.zeros((2, 2)), axis=-3)


# ---- mean / var / std ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_mean(dtype, rng):
    x = sample(dtype, (2, 3, 4), rng)
    t = lt.asarray(x)
    want = np.dtype(dtype) if np.dtype(dtype).kind in "fc" else np.dtype("float64")
    for axis in AXES:
        for keepdims in (False, True):
            check(lt.mean(t, axis=axis, keepdims=keepdims),
                  np.mean(x, axis=axis, keepdims=keepdims).astype(want), exact=False,
                  rtol=1e-3)


def test_mean_empty_and_nan():
    with np.errstate(all="ignore"):
        check(lt.mean(lt.zeros((0,))), np.float64(np.nan))
        out = lt.mean(lt.zeros((0, 2), dtype=lt.complex64), axis=0)
        assert out.dtype == lt.complex64 and out.shape == (2,)
        assert np.isnan(out.numpy().real).all() and np.isnan(out.numpy().imag).all()
    check(lt.mean(lt.asarray([1.0, np.nan])), np.float64(np.nan))
    check(lt.mean(lt.asarray([1, 2], dtype=lt.int8)), np.float64(1.5))
    with pytest.raises(TypeError, match="mean: expected a Tensor"):
        lt.mean(object())


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "bool",
                                   "complex64", "complex128"])
@pytest.mark.parametrize("fname", ["var", "std"])
def test_var_std(fname, dtype, rng):
    x = sample(dtype, (3, 4, 5), rng)
    fn, ref = getattr(lt, fname), getattr(np, fname)
    t = lt.asarray(x)
    kind = np.dtype(dtype).kind
    want = {"f": np.dtype(dtype), "c": np.dtype(np.dtype(dtype).char.lower())}.get(
        kind, np.dtype("float64"))
    for axis in AXES[:5]:
        for correction in (0, 1, 1.5, 0.0):
            for keepdims in (False, True):
                check(fn(t, axis=axis, correction=correction, keepdims=keepdims),
                      ref(x, axis=axis, ddof=correction, keepdims=keepdims).astype(want),
                      exact=False, rtol=1e-2 if dtype == "float16" else 1e-5)


@pytest.mark.parametrize("fname", ["var", "std"])
def test_var_std_nan_when_too_few_elements(fname):
    fn = getattr(lt, fname)
    x = lt.asarray([[1.0, 2.0, 4.0], [0.0, 1.0, 1.0]], dtype=lt.float32)
    check(fn(x, axis=1, correction=3), np.full(2, np.nan, np.float32))
    check(fn(x, axis=1, correction=3.5, keepdims=True), np.full((2, 1), np.nan, np.float32))
    # computed in float64 and rounded once (NumPy's float32 pass can be an ulp off)
    check(fn(x, axis=1, correction=2.5),
          getattr(np, fname)(x.numpy().astype(np.float64), axis=1, ddof=2.5).astype(np.float32))
    check(fn(lt.asarray([5.0])), np.float64(0.0))
    check(fn(lt.asarray([5.0]), correction=1), np.float64(np.nan))
    check(fn(lt.zeros((0,))), np.float64(np.nan))
    check(fn(lt.asarray([1.0, np.nan])), np.float64(np.nan))
    with pytest.raises(TypeError, match=f"{fname}: correction must be a real number"):
        fn(x, correction="1")
    with pytest.raises(TypeError, match=f"{fname}: correction must be a real number"):
        fn(x, correction=True)


# ---- all / any ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fname", ["all", "any"])
def test_all_any(fname, dtype, rng):
    x = sample(dtype, (2, 3, 4), rng, -1, 2)
    fn, ref = getattr(lt, fname), getattr(np, fname)
    t = lt.asarray(x)
    for axis in AXES:
        for keepdims in (False, True):
            check(fn(t, axis=axis, keepdims=keepdims), ref(x, axis=axis, keepdims=keepdims))


def test_all_any_special_values():
    check(lt.all(lt.asarray([np.nan, np.inf, -np.inf])), np.True_)
    check(lt.any(lt.asarray([0.0, -0.0])), np.False_)
    check(lt.any(lt.asarray([0j, complex(0, -1)])), np.True_)
    check(lt.all(lt.zeros((0,))), np.True_)
    check(lt.any(lt.zeros((0,))), np.False_)
    check(lt.all(lt.zeros((2, 0)), axis=1), np.ones(2, bool))
    check(lt.any(lt.asarray(3)), np.True_)
    with pytest.raises(IndexError, match="all: axis 1"):
        lt.all(lt.asarray([True]), axis=1)


# ---- diff --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_diff(dtype, rng):
    x = sample(dtype, (4, 5), rng)
    t = lt.asarray(x)
    for axis in (0, 1, -1, -2):
        for n in (0, 1, 2, 4, 7):
            check(lt.diff(t, axis=axis, n=n), np.diff(x, axis=axis, n=n))
    pre, app = sample(dtype, (4, 2), rng), sample(dtype, (4, 1), rng)
    check(lt.diff(t, prepend=lt.asarray(pre), append=lt.asarray(app), n=2),
          np.diff(x, prepend=pre, append=app, n=2))


def test_diff_prepend_append_variants_and_errors():
    x = lt.asarray([[1, 4, 9]], dtype=lt.int8)
    check(lt.diff(x, prepend=0), np.array([[1, 3, 5]], np.int8))     # a scalar stays weak
    check(lt.diff(x, axis=0, append=lt.asarray([[0, 0, 0]], dtype=lt.int32)),
          np.array([[-1, -4, -9]], np.int32))                          # tensors promote
    check(lt.diff(lt.asarray([True, False, False])), np.array([True, False]))
    check(lt.diff(lt.asarray([1.0])), np.zeros((0,)))
    with pytest.raises(ValueError, match="diff: .*0-d"):
        lt.diff(lt.asarray(1.0))
    with pytest.raises(ValueError, match="diff: n must be non-negative"):
        lt.diff(x, n=-1)
    with pytest.raises(TypeError, match="diff: n must be an integer"):
        lt.diff(x, n=1.0)
    with pytest.raises(ValueError, match=r"diff: append has shape \(2, 1\)"):
        lt.diff(x, append=lt.zeros((2, 1)))
    # NumPy's: an array_like edge is joined as an array (here of the wrong rank)
    with pytest.raises(ValueError, match=r"diff: prepend has shape \(1,\)"):
        lt.diff(x, prepend=[1])
    with pytest.raises(TypeError, match="diff: expected a Tensor or an array-like"):
        lt.diff(x, prepend=object())
    with pytest.raises(IndexError, match="diff: axis 2"):
        lt.diff(x, axis=2)


# ---- matmul / tensordot / vecdot -----------------------------------------------------------------
MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)),
                 ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)), ((1, 2, 3), (6, 3, 2)),
                 ((2, 0), (0, 3)), ((0, 3), (3, 2)), ((4, 1, 2, 3), (3, 3, 2))]


@pytest.mark.parametrize("dtype", NUMERIC + ["bool"])
def test_matmul(dtype, rng):
    for s1, s2 in MATMUL_SHAPES:
        a, b = sample(dtype, s1, rng), sample(dtype, s2, rng)
        exact = np.dtype(dtype).kind not in "fc"
        check(lt.matmul(lt.asarray(a), lt.asarray(b)), np.matmul(a, b), exact, rtol=1e-2)
        check(lt.asarray(a) @ lt.asarray(b), np.matmul(a, b), exact, rtol=1e-2)


def test_matmul_promotion_operator_and_errors():
    a = lt.asarray([[1, 2], [3, 4]], dtype=lt.int8)
    b = lt.asarray([[1.0, 0.0], [0.0, 1.0]], dtype=lt.float32)
    check(lt.matmul(a, lt.asarray([[1, 0], [0, 1]], dtype=lt.uint8)),
          np.array([[1, 2], [3, 4]], np.int16))
    check(a @ b, np.array([[1, 2], [3, 4]], np.float32))
    check(np.eye(2) @ b, np.eye(2))                  # a NumPy operand on the left
    check(lt.asarray([1j, 1]) @ lt.asarray([1j, 1]), np.complex128(0))   # no conjugation
    c = lt.asarray([[1.0, 2.0], [3.0, 4.0]])
    alias = c
    c @= lt.asarray([[0.0, 1.0], [1.0, 0.0]])
    assert c is alias
    check(c, np.array([[2.0, 1.0], [4.0, 3.0]]))
    with pytest.raises(TypeError):
        c @= lt.asarray([[1j, 0], [0, 1]])
    with pytest.raises(ValueError, match="in-place matmul: the result has shape"):
        c @= lt.ones((2, 3))
    with pytest.raises(TypeError, match="unsupported operand"):
        c @ 2
    with pytest.raises(ValueError, match=r"matmul: operands must have at least one dim"):
        lt.matmul(lt.asarray(1.0), c)
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(2, 3\) do not align"):
        lt.matmul(lt.ones((2, 3)), lt.ones((2, 3)))
    with pytest.raises(ValueError, match=r"the only axis of x2 has length 2"):
        lt.matmul(lt.ones((2, 3)), lt.ones((2,)))
    with pytest.raises(ValueError, match=r"stack shapes \(2,\) .* and \(3,\)"):
        lt.matmul(lt.ones((2, 2, 3)), lt.ones((3, 3, 2)))
    check(lt.matmul([1.0, 2.0], c), np.matmul([1.0, 2.0], np.asarray(c)))   # NumPy's array-likes
    with pytest.raises(TypeError, match="matmul: expected a Tensor or an array-like, got object"):
        lt.matmul(object(), c)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_tensordot(dtype, rng):
    cases = [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0),
             ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])), ((2, 3, 4), (4, 2), ([-1, 0], [0, -1])),
             ((), (2, 3), 0), ((2, 0), (0, 3), 1), ((3,), (3,), ([0], [0])),
             ((2, 3), (4,), ([], []))]
    exact = np.dtype(dtype).kind not in "fc"
    for s1, s2, axes in cases:
        a, b = sample(dtype, s1, rng), sample(dtype, s2, rng)
        check(lt.tensordot(lt.asarray(a), lt.asarray(b), axes=axes),
              np.tensordot(a, b, axes=axes), exact, rtol=1e-2)
    a, b = sample(dtype, (2, 3), rng), sample(dtype, (2, 3), rng)
    check(lt.tensordot(lt.asarray(a), lt.asarray(b)), np.tensordot(a, b), exact, rtol=1e-2)


def test_tensordot_promotion_and_errors():
    a = lt.ones((2, 3), dtype=lt.int16)
    b = lt.ones((3, 2), dtype=lt.uint16)
    check(lt.tensordot(a, b, axes=1), np.full((2, 2), 3, np.int32))
    with pytest.raises(ValueError, match=r"axis 1 of x1 .* has length 3 but axis 0 of x2"):
        lt.tensordot(a, a, axes=1)
    with pytest.raises(ValueError, match="tensordot: axes must be non-negative"):
        lt.tensordot(a, b, axes=-1)
    with pytest.raises(ValueError, match="cannot contract 3 axes"):
        lt.tensordot(a, b, axes=3)
    with pytest.raises(ValueError, match="not the same number of axes"):
        lt.tensordot(a, b, axes=([0, 1], [1]))
    with pytest.raises(ValueError, match="more than once"):
        lt.tensordot(lt.ones((2, 2)), lt.ones((2, 2)), axes=([0, -2], [0, 1]))
    with pytest.raises(IndexError, match=r"tensordot: axis 2 is out of range .*\(2, 3\)"):
        lt.tensordot(a, b, axes=([2], [0]))
    with pytest.raises(ValueError, match="pair of sequences"):
        lt.tensordot(a, b, axes=([1], [0], [0]))
    with pytest.raises(TypeError, match="tensordot: axes must be an integer"):
        lt.tensordot(a, b, axes=1.5)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_vecdot(dtype, rng):
    exact = np.dtype(dtype).kind not in "fc"
    for s1, s2, axis in [((3,), (3,), -1), ((2, 3), (3,), -1), ((4, 1, 3), (5, 3), -1),
                         ((3, 2), (3, 2), -2), ((2, 3, 4), (3, 4), -2), ((0, 3), (3,), -1),
                         ((2, 0), (2, 0), -1), ((3, 4), (3, 4), 0)]:
        a, b = sample(dtype, s1, rng), sample(dtype, s2, rng)
        expected = np.sum(np.conj(a) * b if np.dtype(dtype).kind == "c" else a * b,
                          axis=axis, dtype=np.result_type(a, b))
        out = lt.vecdot(lt.asarray(a), lt.asarray(b), axis=axis)
        if dtype == "float16":   # summation order matters at this precision
            assert out.dtype == expected.dtype and out.shape == expected.shape
            np.testing.assert_allclose(out.numpy(), expected, atol=0.05)
        else:
            check(out, expected, exact, rtol=1e-5)


def test_vecdot_conjugates_x1_and_errors():
    out = lt.vecdot(lt.asarray([1j, 2j, 3j]), lt.asarray([1, 2j, 3]))
    check(out, np.complex128(4 - 10j))
    check(lt.vecdot(lt.ones((2, 3), dtype=lt.float32), lt.ones(3, dtype=lt.int8)),
          np.full(2, 3.0, np.float32))
    with pytest.raises(ValueError, match=r"vecdot: axis -1 has length 3 in x1"):
        lt.vecdot(lt.ones((2, 3)), lt.ones((3, 2)))
    with pytest.raises(ValueError, match="the contracted axis is not broadcast"):
        lt.vecdot(lt.ones((2, 1)), lt.ones((2, 3)))
    with pytest.raises(ValueError, match=r"stack shapes \(2,\) .* and \(3,\)"):
        lt.vecdot(lt.ones((2, 4)), lt.ones((3, 4)))
    with pytest.raises(IndexError, match="vecdot: axis -3 is out of bounds"):
        lt.vecdot(lt.ones((2, 3, 4)), lt.ones((3, 4)), axis=-3)
    with pytest.raises(ValueError, match="non-negative axis .* ambiguous"):
        lt.vecdot(lt.ones((2, 3)), lt.ones((3,)), axis=0)
    with pytest.raises(ValueError, match="at least one dimension"):
        lt.vecdot(lt.asarray(1.0), lt.asarray(1.0))
