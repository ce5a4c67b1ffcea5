"""lt.nn.softmax and lt.nn.logsumexp: one pass per row (lazytensor/_api/softmax.py).

Exact mode must give the bits of the same expression written with lt.max, lt.exp, lt.sum
(and lt.log, lt.where) and evaluated kernel by kernel, on every kernel path and at any
thread count; both modes must agree with NumPy in float64 (and SciPy's logsumexp) within
float rounding, including the special rows (NaN, +-inf, empty).
"""

import numpy as np
import pytest
import scipy.special

import lazytensor as lt

F32, F64 = np.float32, np.float64
# (shape, axis): rows shorter than a chunk, with a tail, longer than one block of 64 chunks
# (16387 = 64 * 256 + 3), a single column, trailing axes of a 3-d array, more rows than
# log-sum-exp finishes at a time (256), and a row too long for the softmax kernel's scratch
# buffer (1 MiB), whose exp then goes to the output
LAST_AXES = [((1, 1024), -1), ((3, 5), 1), ((7, 300), -1), ((2, 16387), 1), ((4, 1), -1),
             ((5, 6, 7), (1, 2)), ((6, 7), None), ((9,), 0), ((600, 7), -1),
             ((2, 300_000), -1)]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def _softmax_expression(x, axis):
    e = lt.exp(x - lt.max(x, axis=axis, keepdims=True))
    return e / lt.sum(e, axis=axis, keepdims=True)


def _logsumexp_expression(x, axis):
    m = lt.max(x, axis=axis, keepdims=True)
    shift = lt.where(lt.isfinite(m), m, lt.zeros_like(m))
    s = lt.log(lt.sum(lt.exp(x - shift), axis=axis, keepdims=True)) + shift
    return lt.squeeze(s, axis=axis if axis is not None else tuple(range(x.ndim)))


def _softmax64(x, axis):
    x = x.astype(F64)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == F32 else np.uint64)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape,axis", LAST_AXES)
def test_exact_bits_are_the_expressions(shape, axis, dtype):
    x = lt.asarray(_data(shape, dtype))
    with lt.config(mode="exact"):
        np.testing.assert_array_equal(_bits(lt.nn.softmax(x, axis=axis).numpy()),
                                      _bits(_softmax_expression(x, axis).numpy()))
        np.testing.assert_array_equal(_bits(lt.nn.logsumexp(x, axis=axis).numpy()),
                                      _bits(_logsumexp_expression(x, axis).numpy()))


@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape,axis", LAST_AXES + [((6, 7, 8), 0), ((6, 7, 300), 1),
                                                    ((5, 6, 7), (0, 2))])
def test_close_to_float64(shape, axis, dtype, mode):
    a = _data(shape, dtype, seed=1)
    x = lt.asarray(a)
    rtol = 1e-5 if dtype == F32 else 1e-13
    with lt.config(mode=mode):
        got = lt.nn.softmax(x, axis=axis).numpy()
        lse = lt.nn.logsumexp(x, axis=axis).numpy()
    assert got.dtype == dtype and got.shape == a.shape
    np.testing.assert_allclose(got, _softmax64(a, axis), rtol=rtol, atol=1e-37)
    ref = scipy.special.logsumexp(a.astype(F64), axis=axis)
    assert lse.dtype == dtype and lse.shape == np.shape(ref)
    # log(sum) + m cancels where the result is near 0: the error is relative to m
    np.testing.assert_allclose(lse, ref, rtol=rtol, atol=rtol * np.max(np.abs(a)))


def test_same_bits_on_every_path_and_thread_count():
    # 64 rows of 2048: enough work for two threads to split the rows
    a = _data((64, 2048), F32, seed=2)
    a[3, 5] = np.nan
    a[7, :] = -np.inf
    x = lt.asarray(a)
    results = []
    for path in lt.kernel_paths():
        for threads in (1, 2):
            with lt.config(mode="exact", kernel_path=path, num_threads=threads):
                results.append((_bits(lt.nn.softmax(x).numpy()),
                                _bits(lt.nn.logsumexp(x, axis=1).numpy())))
    for sm, lse in results[1:]:
        np.testing.assert_array_equal(sm, results[0][0])
        np.testing.assert_array_equal(lse, results[0][1])


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_large_output_is_streamed_and_right(mode):
    # 4 MiB and more of output takes the streaming stores
    a = _data((1100, 1024), F32, seed=3)
    with lt.config(mode=mode):
        got = lt.nn.softmax(lt.asarray(a), axis=1).numpy()
    np.testing.assert_allclose(got, _softmax64(a, 1), rtol=1e-5, atol=1e-37)


@pytest.mark.parametrize("path", lt.kernel_paths())
@pytest.mark.parametrize("dtype,cols", [(F32, 1024), (F32, 1023), (F32, 40), (F64, 1021)])
def test_fast_rows_on_every_path(path, dtype, cols):
    # fast mode's one pass for exp(x - m) and its sum, and (5 MiB of output) its division
    # written with streaming stores: rows of 1023 and 1021 start off the vector boundaries
    rows = (5 << 20) // (cols * np.dtype(dtype).itemsize)
    a = _data((rows, cols), dtype, seed=5)
    a[::7] *= 30                  # x - m below the common range of float32 exp
    a[3, ::5] = -np.inf
    a[4, 1:] = -np.inf            # one finite value: softmax 1 there, 0 elsewhere
    x = lt.asarray(a)
    results = []
    for threads in (1, 2):
        with lt.config(mode="fast", kernel_path=path, num_threads=threads):
            results.append((lt.nn.softmax(x, axis=1).numpy(),
                            lt.nn.logsumexp(x, axis=1).numpy()))
    got, lse = results[0]
    # the same bits at one and two threads (a row's order of summation is fixed)
    np.testing.assert_array_equal(_bits(results[1][0]), _bits(got))
    np.testing.assert_array_equal(_bits(results[1][1]), _bits(lse))
    rtol = 1e-5 if dtype == F32 else 1e-13
    with np.errstate(under="ignore"):
        ref = _softmax64(a, 1)
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=1e-37)
    assert got[4, 0] == 1 and not got[4, 1:].any() and not got[3, ::5].any()
    np.testing.assert_allclose(lse, scipy.special.logsumexp(a.astype(F64), axis=1),
                               rtol=rtol, atol=rtol * np.max(np.abs(a[np.isfinite(a)])))


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_special_rows(mode):
    inf, nan = np.inf, np.nan
    a = np.array([[1.0, 2.0, 3.0, 4.0],
                  [-inf, -inf, -inf, -inf],     # softmax NaN (as the expression), lse -inf
                  [0.0, inf, 1.0, 2.0],         # softmax NaN, lse +inf
                  [0.0, nan, 1.0, 2.0],         # NaN
                  [-inf, 0.0, -inf, 1.0],       # -inf entries give 0
                  [1e30, -1e30, 0.0, 3e38]], F32)
    with lt.config(mode=mode):
        sm = lt.nn.softmax(lt.asarray(a)).numpy()
        lse = lt.nn.logsumexp(lt.asarray(a), axis=-1).numpy()
    with np.errstate(all="ignore"):
        ref = _softmax64(a, -1)
    np.testing.assert_allclose(sm, ref, rtol=1e-6, atol=0, equal_nan=True)
    assert np.isnan(sm[1:4]).all() and sm[4, 0] == 0 and sm[5, 3] == 1
    expected = scipy.special.logsumexp(a.astype(F64), axis=-1)
    np.testing.assert_allclose(lse, expected, rtol=1e-6, equal_nan=True)
    assert lse[1] == -inf and lse[2] == inf and np.isnan(lse[3])


def test_axes_keepdims_and_layouts():
    a = _data((4, 5, 6), F64, seed=4)
    x = lt.asarray(a)
    for axis in (0, 1, 2, -1, (0, 2), (0, 1, 2), None):
        np.testing.assert_allclose(lt.nn.softmax(x, axis=axis).numpy(), _softmax64(a, axis),
                                   rtol=1e-13)
        for keep in (False, True):
            got = lt.nn.logsumexp(x, axis=axis, keepdims=keep).numpy()
            ref = scipy.special.logsumexp(a, axis=axis, keepdims=keep)
            assert got.shape == np.shape(ref)
            np.testing.assert_allclose(got, ref, rtol=1e-13)
    # a transposed (non-contiguous) input, a pending expression and a strided view
    t = lt.asarray(a[:, :, ::2].copy()).mT
    np.testing.assert_allclose(lt.nn.softmax(t, axis=-1).numpy(),
                               _softmax64(np.swapaxes(a[:, :, ::2], -1, -2), -1), rtol=1e-13)
    np.testing.assert_allclose(lt.nn.softmax(x * 2 + 1, axis=1).numpy(),
                               _softmax64(a * 2 + 1, 1), rtol=1e-13)
    np.testing.assert_allclose(lt.nn.logsumexp(x[:, ::2, 1:], axis=-1).numpy(),
                               scipy.special.logsumexp(a[:, ::2, 1:], axis=-1), rtol=1e-13)


def test_float16_rounds_once():
    a = _data((3, 50), np.float16, seed=5)
    got = lt.nn.softmax(lt.asarray(a), axis=1).numpy()
    lse = lt.nn.logsumexp(lt.asarray(a), axis=1).numpy()
    assert got.dtype == np.float16 and lse.dtype == np.float16
    # computed in float32, rounded once: within one float16 rounding of the float64 value
    np.testing.assert_allclose(got, _softmax64(a, 1), rtol=2 ** -10, atol=2 ** -24)
    np.testing.assert_allclose(lse, scipy.special.logsumexp(a.astype(F64), axis=1),
                               rtol=2 ** -10)


def test_empty():
    for shape, axis in [((0, 4), 1), ((3, 0), 1), ((0,), 0)]:
        x = lt.asarray(np.zeros(shape, F32))
        assert lt.nn.softmax(x, axis=axis).shape == shape
        got = lt.nn.logsumexp(x, axis=axis).numpy()
        ref = scipy.special.logsumexp(np.zeros(shape), axis=axis)
        assert got.shape == np.shape(ref) and got.dtype == F32
        np.testing.assert_array_equal(got, ref.astype(F32))
    # a 0-d tensor over no axes: exp(0) / exp(0)
    assert lt.nn.softmax(lt.asarray(F32(3.0)), axis=None).numpy() == 1.0
    assert lt.nn.logsumexp(lt.asarray(F32(3.0))).numpy() == 3.0


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="softmax does not take int32"):
        lt.nn.softmax(lt.asarray(np.arange(4, dtype=np.int32)))
    with pytest.raises(TypeError, match="logsumexp does not take complex64"):
        lt.nn.logsumexp(lt.asarray(np.ones(3, np.complex64)))
    with pytest.raises(TypeError, match="softmax: expected a Tensor, got ndarray"):
        lt.nn.softmax(np.ones(3, F32))
    with pytest.raises(np.exceptions.AxisError, match="softmax: axis 2 is out of range"):
        lt.nn.softmax(lt.asarray(np.ones((2, 2), F32)), axis=2)
    with pytest.raises(ValueError, match="more than once"):
        lt.nn.logsumexp(lt.asarray(np.ones((2, 2), F32)), axis=(1, -1))
    with pytest.raises(TypeError, match="axis must be an integer"):
        lt.nn.softmax(lt.asarray(np.ones((2, 2), F32)), axis=1.0)
