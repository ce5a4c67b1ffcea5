"""Bad input gets a clear error naming what was wrong, when the op is recorded."""

import numpy as np
import pytest

import lazytensor as lt


def f32(shape):
    return lt.asarray(np.zeros(shape, dtype=np.float32))


def test_shapes_that_do_not_broadcast_name_both_shapes():
    with pytest.raises(ValueError, match=r"add: operands could not be broadcast together with shapes \(3,\) \(4,\)"):
        f32(3) + f32(4)
    with pytest.raises(ValueError, match=r"multiply: operands could not be broadcast together with shapes \(2, 3\) \(3, 2\)"):
        lt.multiply(f32((2, 3)), f32((3, 2)))
    with pytest.raises(ValueError, match="where"):
        lt.where(f32(3) > 0, f32(4), 1.0)
    with pytest.raises(ValueError, match="broadcast_shapes"):
        lt.broadcast_shapes((2,), (3,))
    assert lt.broadcast_shapes((2, 1), (3,)) == (2, 3)


def test_error_is_raised_when_recording_not_when_evaluating():
    x = f32(3)
    with pytest.raises(TypeError):
        lt.bitwise_and(x, x)      # nothing has been evaluated: the error is at this line
    assert not (x + 1).is_evaluated


@pytest.mark.parametrize("call,op,dtype", [
    # (exp/sqrt of integers give NumPy's float result: tests/test_numpy_names.py)
    (lambda: lt.nn.silu(lt.asarray(np.arange(3))), "silu", "int64"),
    (lambda: lt.nn.gelu(lt.asarray(np.array([True]))), "gelu", "bool"),
    (lambda: lt.bitwise_and(f32(2), f32(2)), "bitwise_and", "float32"),
    # (arithmetic and comparisons of bool follow NumPy: tests/test_numpy_names.py)
    (lambda: lt.negative(lt.asarray([True])), "negative", "bool"),
    (lambda: lt.nn.relu(lt.asarray(np.array([1], np.uint8))), "relu", "uint8"),
    (lambda: lt.bitwise_invert(f32(2)), "bitwise_invert", "float32"),
])
def test_dtype_an_op_does_not_take(call, op, dtype):
    with pytest.raises(TypeError, match=f"{op} does not take {dtype}"):
        call()


@pytest.mark.parametrize("cond", [
    np.array([0.0, np.nan, -0.0, 2.5, np.inf], np.float32),
    np.array([0, 1, -3, 0, 7], np.int16),
    np.array([0, 255, 0, 1, 2], np.uint8),
    np.array([0, 1j, -0.0, 1 + 0j, np.nan], np.complex64),
    np.float64(0.0), 1, 0,
])
def test_where_condition_of_any_dtype_is_numpys(cond):
    # the standard says the condition "should" be bool: NumPy's rule, nonzero is true
    a, b = np.arange(5, dtype=np.float32), -np.arange(5, dtype=np.float32)
    cond_t = lt.asarray(cond) if isinstance(cond, np.ndarray) else cond
    for got in (lt.where(cond_t, lt.asarray(a), lt.asarray(b)),
                np.where(cond_t, lt.asarray(a), b)):
        assert isinstance(got, lt.Tensor)
        np.testing.assert_array_equal(np.asarray(got), np.where(cond, a, b))


@pytest.mark.parametrize("spec,word", [("bfloat16", "bfloat16"), ("float8_e4m3fn", "float8")])
def test_unserved_dtypes_are_unsupported(spec, word):
    with pytest.raises(lt.Unsupported, match=word):
        lt.asarray(np.zeros(2), dtype=spec)
    with pytest.raises(lt.Unsupported, match=word):
        f32(2).astype(spec)


@pytest.mark.parametrize("array,word", [
    (np.array(["a", "b"]), "strings"), (np.array([b"a"]), "byte strings"),
    (np.array([1, "x"], dtype=object), "Python objects"),
    (np.zeros(2).astype("M8[s]"), "datetimes"),
])
def test_unserved_arrays_are_unsupported(array, word):
    with pytest.raises(lt.Unsupported, match=word):
        lt.asarray(array)


def test_ragged_lists_are_a_clear_value_error():
    with pytest.raises(ValueError, match="inhomogeneous"):
        lt.asarray([[1, 2], [3]])


def test_complex_is_stored_cast_and_computed_by_numpy():
    z = lt.asarray(np.array([1 + 2j, 3 - 1j], dtype=np.complex64))
    np.testing.assert_array_equal(z.astype(lt.complex128).numpy(), [1 + 2j, 3 - 1j])
    np.testing.assert_array_equal(z.astype(lt.bool).numpy(), [True, True])
    np.testing.assert_array_equal(lt.asarray([1.5, 2.0]).astype(lt.complex64).numpy(), [1.5, 2])
    with pytest.raises(TypeError, match="imaginary"):
        z.astype(lt.float32)
    zs = np.array([1 + 2j, 3 - 1j], dtype=np.complex64)
    np.testing.assert_allclose((z * z + 1).numpy(), zs * zs + 1, rtol=1e-6)
    assert (z * z).dtype == lt.complex64 and lt.abs(z).dtype == lt.float32
    np.testing.assert_allclose(lt.exp(z).numpy(), np.exp(zs), rtol=1e-6)
    np.testing.assert_array_equal(lt.real(z).numpy(), zs.real)
    np.testing.assert_array_equal(lt.imag(z).numpy(), zs.imag)
    np.testing.assert_array_equal(lt.conj(z).numpy(), np.conj(zs))
    with pytest.raises(TypeError, match="maximum does not take complex64"):
        lt.maximum(z, z)
    assert issubclass(lt.Unsupported, TypeError) and issubclass(lt.Unsupported, NotImplementedError)


def test_bad_arguments():
    with pytest.raises(ValueError, match="approximate"):
        lt.nn.gelu(f32(2), approximate="fast")
    with pytest.raises(TypeError, match="expected a lazytensor Tensor"):
        lt.add(f32(2), "text")
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        lt.add(f32(2))
    with pytest.raises(ValueError, match="fmod"):
        lt.onnx.Mod(f32(2), f32(2), fmod=2)
    with pytest.raises(TypeError, match="fmod=0 is for integers"):
        lt.onnx.Mod(f32(2), f32(2))
    with pytest.raises(TypeError, match="one element type"):
        lt.onnx.Add(f32(2), lt.asarray(np.zeros(2)))
    with pytest.raises(IndexError, match="shape"):
        f32(3)[5]
    with pytest.raises(ValueError, match="permutation"):
        lt.permute_dims(f32((2, 3)), (0, 0))
    with pytest.raises(ValueError, match="align"):
        f32((2, 3)) @ f32((2, 3))
    assert (f32(2) == "x") is False


def test_integer_division_by_zero_gives_zero_and_no_signal():
    a = lt.asarray(np.array([7, -7, np.iinfo(np.int32).min], dtype=np.int32))
    z = lt.zeros_like(a)
    np.testing.assert_array_equal((a // z).numpy(), [0, 0, 0])
    np.testing.assert_array_equal((a % z).numpy(), [0, 0, 0])
    m1 = lt.full_like(a, -1)
    np.testing.assert_array_equal((a // m1).numpy(), [-7, 7, np.iinfo(np.int32).min])
    np.testing.assert_array_equal((a % m1).numpy(), [0, 0, 0])
