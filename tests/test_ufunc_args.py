"""NumPy's ufunc arguments (out=, a positional out, where=, dtype=, casting=) on lazytensor's
functions of NumPy's ufunc names, each call run side by side with NumPy's on ndarrays."""

import numpy as np
import pytest

import lazytensor as lt

A = np.array([[0.5, -1.25, 2.0], [3.5, 0.0, -4.0]])
B = np.array([[1.5, 2.0, -0.5], [0.25, 3.0, 1.0]])
MASK = np.array([[True, False, True], [False, True, True]])

UNARY = ["exp", "sin", "sqrt", "negative", "absolute", "floor", "isnan", "square", "exp2",
         "deg2rad", "fabs", "rint", "signbit", "log1p", "tanh", "reciprocal", "conjugate"]
BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "fmin", "arctan2",
          "hypot", "logaddexp", "copysign", "greater", "logical_and", "heaviside", "fmod",
          "float_power", "nextafter"]


def _inputs(name):
    return [np.abs(A) + 0.5, np.abs(B) + 0.5] if name in ("power", "float_power", "sqrt",
                                                          "log1p") else [A, B]


def _same(got, want):
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).dtype == want.dtype


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_out_tensor_positional_out_and_out_array(name):
    ufunc = getattr(np, name)
    args = _inputs(name)[:ufunc.nin]
    want = ufunc(*args)
    tensors = [lt.asarray(a) for a in args]
    out = lt.empty(want.shape, dtype=want.dtype)
    assert getattr(lt, name)(*tensors, out=out) is out     # returned as NumPy returns out
    _same(out, want)
    out2 = lt.empty(want.shape, dtype=want.dtype)
    assert getattr(lt, name)(*tensors, out2) is out2       # out given by position
    _same(out2, want)
    arr = np.empty_like(want)
    assert getattr(lt, name)(*tensors, out=arr) is arr     # a NumPy array written
    _same(arr, want)


@pytest.mark.parametrize("name", ["exp", "add", "multiply", "sqrt", "maximum"])
def test_where_and_dtype(name):
    ufunc = getattr(np, name)
    args = _inputs(name)[:ufunc.nin]
    tensors = [lt.asarray(a) for a in args]
    base = np.full(A.shape, -7.0)
    want = base.copy()
    ufunc(*args, where=MASK, out=want)
    got = lt.asarray(base.copy())
    getattr(lt, name)(*tensors, where=lt.asarray(MASK), out=got)
    _same(got, want)
    got = getattr(lt, name)(*tensors, dtype=np.float32)
    assert isinstance(got, lt.Tensor)
    _same(got, ufunc(*args, dtype=np.float32))


def test_several_outputs_and_gufuncs():
    q, r = lt.empty(A.shape), lt.empty(A.shape)
    got = lt.divmod(lt.asarray(A), lt.asarray(B), out=(q, r))
    assert got[0] is q and got[1] is r
    wq, wr = np.divmod(A, B)
    _same(q, wq)
    _same(r, wr)
    out = lt.empty((2, 2))
    assert lt.matmul(lt.asarray(A), lt.asarray(B.T), out=out) is out
    _same(out, np.matmul(A, B.T))


def test_array_like_operands_give_tensors_and_errors_are_numpys():
    got = lt.add([1, 2], [3, 4], dtype=np.float32)
    assert isinstance(got, lt.Tensor)
    _same(got, np.add([1, 2], [3, 4], dtype=np.float32))
    with pytest.raises(TypeError, match="bogus"):
        lt.exp(lt.asarray(A), bogus=1)
    with pytest.raises(TypeError, match="cannot cast"):           # NumPy's kind of error
        lt.exp(lt.asarray(A), out=lt.empty(A.shape, dtype=lt.int32))
    with pytest.raises(TypeError, match="x2"):
        lt.add(lt.asarray(A))


def test_a_call_with_the_operands_alone_stays_lazy():
    x = lt.asarray(A)
    y = lt.exp(x) + 1
    assert not y.is_evaluated
    np.testing.assert_allclose(np.asarray(y), np.exp(A) + 1, rtol=1e-15)


def test_a_functions_own_keywords_stay_its_own():
    # vecdot's axis= is lazytensor's (its errors and conjugation), not np.vecdot's
    with pytest.raises(IndexError, match="vecdot: axis -3 is out of bounds"):
        lt.vecdot(lt.ones((2, 3, 4)), lt.ones((3, 4)), axis=-3)
    x = np.array([[1j, 2.0], [3.0, -1j]])
    got = lt.vecdot(lt.asarray(x), lt.asarray(x), axis=0)
    np.testing.assert_allclose(np.asarray(got), np.vecdot(x, x, axis=0))
    out = lt.empty(2, dtype=lt.complex128)
    assert lt.vecdot(lt.asarray(x), lt.asarray(x), out=out) is out
    np.testing.assert_allclose(np.asarray(out), np.vecdot(x, x))
