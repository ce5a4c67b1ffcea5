"""lt.fft against NumPy: values, result dtypes (single precision kept), n/s/axes/norm, errors."""

import numpy as np
import pytest

import lazytensor as lt

F = lt.fft
NORMS = ["backward", "ortho", "forward"]
COMPLEX_OF = {np.float16: np.complex64, np.float32: np.complex64, np.float64: np.complex128,
              np.complex64: np.complex64, np.complex128: np.complex128}
REAL_OF = {np.float16: np.float16, np.float32: np.float32, np.float64: np.float64,
           np.complex64: np.float32, np.complex128: np.float64}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def wide(x):
    """``x`` in double precision: the reference is computed there."""
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def check(out, expected, dtype):
    """``out`` matches NumPy's ``expected`` in shape and value, and has ``dtype``."""
    assert isinstance(out, lt.Tensor)
    assert out.dtype == np.dtype(dtype)
    assert out.shape == expected.shape
    single = np.dtype(dtype) in (np.float32, np.complex64, np.float16)
    tol = 1e-2 if np.dtype(dtype) == np.float16 else 1e-4 if single else 1e-10
    np.testing.assert_allclose(out.numpy(), expected, rtol=tol, atol=tol * 10)


# ---- one-dimensional transforms --------------------------------------------------------

FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


def cases(table, dtypes):
    """(name, dtype, result dtype) for each transform and each input dtype it takes."""
    return [(name, dtype, out_of[dtype]) for name, kinds, out_of in table for dtype in dtypes
            if np.dtype(dtype).kind in kinds]


ONE_D = [("fft", "fc", COMPLEX_OF), ("ifft", "fc", COMPLEX_OF), ("rfft", "f", COMPLEX_OF),
         ("irfft", "fc", REAL_OF), ("hfft", "fc", REAL_OF), ("ihfft", "f", COMPLEX_OF)]


@pytest.mark.parametrize("name,dtype,out_dtype", cases(ONE_D, FLOATS))
@pytest.mark.parametrize("n", [None, 3, 11])
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("norm", NORMS)
def test_one_d_transforms(name, dtype, out_dtype, n, axis, norm):
    x = rand((4, 6, 2), dtype)
    expected = getattr(np.fft, name)(wide(x), n=n, axis=axis, norm=norm)
    check(getattr(F, name)(lt.asarray(x), n=n, axis=axis, norm=norm), expected, out_dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("norm", NORMS)
def test_round_trips(dtype, norm):
    x = rand((3, 8), dtype)
    tx = lt.asarray(x)
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    back = F.ifft(F.fft(tx, norm=norm), norm=norm)
    np.testing.assert_allclose(back.numpy(), x, atol=tol)
    assert back.dtype == COMPLEX_OF[dtype]
    back = F.ifftn(F.fftn(tx, norm=norm), norm=norm)
    np.testing.assert_allclose(back.numpy(), x, atol=tol)
    if dtype in (np.float32, np.float64):
        for n in (7, 8):
            back = F.irfft(F.rfft(tx, n=n, norm=norm), n=n, norm=norm)
            np.testing.assert_allclose(back.numpy(), x[:, :n], atol=tol)
            assert back.dtype == dtype
            back = F.hfft(F.ihfft(tx, n=n, norm=norm), n=n, norm=norm)
            np.testing.assert_allclose(back.numpy(), x[:, :n], atol=tol)
        back = F.irfftn(F.rfftn(tx, norm=norm), s=x.shape, axes=(0, 1), norm=norm)
        np.testing.assert_allclose(back.numpy(), x, atol=tol)


# ---- n-dimensional transforms ----------------------------------------------------------

ND = [("fftn", "fc", COMPLEX_OF), ("ifftn", "fc", COMPLEX_OF), ("rfftn", "f", COMPLEX_OF),
      ("irfftn", "fc", REAL_OF)]


@pytest.mark.parametrize("name,dtype,out_dtype",
                         cases(ND, FLOATS))
@pytest.mark.parametrize("s,axes", [
    (None, None), (None, (0,)), (None, (-1, 0)), ((3, 5), (0, 2)), ((2,), (1,)),
    ((7, -1), (2, 1)), ((4, 6, 3), (0, 1, 2)),
])
@pytest.mark.parametrize("norm", NORMS)
def test_n_d_transforms(name, dtype, out_dtype, s, axes, norm):
    x = rand((4, 3, 6), dtype)
    expected = getattr(np.fft, name)(wide(x), s=s, axes=axes, norm=norm)
    check(getattr(F, name)(lt.asarray(x), s=s, axes=axes, norm=norm), expected, out_dtype)


def test_size_zero_batches_and_lazy_inputs():
    x = lt.asarray(np.zeros((0, 4), np.complex64))
    assert F.fft(x).shape == (0, 4) and F.fft(x).dtype == lt.complex64
    assert F.rfftn(lt.asarray(np.zeros((0, 4), np.float32)), axes=(1,)).shape == (0, 3)
    lazy = lt.asarray(np.arange(4.0)) * 2.0
    assert not lazy.is_evaluated
    np.testing.assert_allclose(F.rfft(lazy).numpy(), np.fft.rfft(np.arange(4.0) * 2))


def test_input_dtypes():
    ints, c = lt.asarray(np.arange(4)), lt.asarray(np.ones(4, np.complex64))
    for name in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn",
                 "irfftn"]:
        # the standard leaves integer input unspecified: NumPy's float64 transform
        got, want = getattr(F, name)(ints), getattr(np.fft, name)(np.arange(4))
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    for name in ["rfft", "ihfft", "rfftn"]:
        with pytest.raises(TypeError, match=f"fft.{name} needs a real floating-point tensor, "
                                            f"got complex64"):
            getattr(F, name)(c)
    with pytest.raises(TypeError, match="fft.fft: expected a Tensor or an array-like"):
        F.fft(object())
    # real input to the complex transforms is taken as complex, keeping its precision
    assert F.fft(lt.asarray(np.ones(4, np.float32))).dtype == lt.complex64
    assert F.irfft(lt.asarray(np.ones(4, np.float32))).dtype == lt.float32
    assert F.fft(lt.asarray(np.ones(4, np.float16))).dtype == lt.complex64


def test_argument_errors():
    c = lt.asarray(np.ones((2, 4), np.complex64))
    with pytest.raises(ValueError, match="fft.fft: n must be at least 1, got 0"):
        F.fft(c, n=0)
    with pytest.raises(TypeError, match="n must be an integer"):
        F.fft(c, n=2.0)
    with pytest.raises(IndexError, match="fft.ifft: axis 2 is out of range"):
        F.ifft(c, axis=2)
    with pytest.raises(ValueError, match="axis -3 is out of range"):
        F.ifft(c, axis=-3)
    with pytest.raises(ValueError, match="norm must be 'backward', 'ortho' or 'forward', "
                                         "got 'none'"):
        F.fft(c, norm="none")
    with pytest.raises(ValueError, match="fft.fftn: s was given without axes"):
        F.fftn(c, s=(2, 2))
    with pytest.raises(ValueError, match=r"s \(2, 2\) and axes \(0,\) have different lengths"):
        F.fftn(c, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="each entry of s must be at least 1, got 0"):
        F.ifftn(c, s=(0,), axes=(0,))
    with pytest.raises(IndexError, match="fft.rfftn: axis 5"):
        F.rfftn(lt.asarray(np.ones((2, 4))), axes=(5,))
    with pytest.raises(TypeError, match="axes must be a sequence"):
        F.fftn(c, axes=0)
    with pytest.raises(ValueError, match=r"fft.irfft: the default output length 2\*\(m - 1\) "
                                         r"is 0"):
        F.irfft(lt.asarray(np.ones((3, 1), np.complex64)))
    with pytest.raises(IndexError, match="out of range for a 0-d tensor"):
        F.fft(lt.asarray(np.complex64(1)))
    with pytest.raises(ValueError, match="at least one axis"):
        F.irfftn(c, axes=())


# ---- frequencies and shifts ----------------------------------------------------------

@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 7, 10])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
@pytest.mark.parametrize("dtype", [None, lt.float32, lt.float64, lt.float16])
def test_frequencies(name, n, d, dtype):
    out = getattr(F, name)(n, d=d, dtype=dtype)
    expected = getattr(np.fft, name)(n, d)
    check(out, expected, dtype or np.float64)


def test_frequency_arguments():
    assert F.fftfreq(4, device=lt.asarray(1.0).device).shape == (4,)
    assert F.fftfreq(4, device="cpu").shape == (4,)
    with pytest.raises(ValueError, match="fft.fftfreq: lazytensor runs on the CPU only"):
        F.fftfreq(4, device="gpu")
    with pytest.raises(TypeError, match="fft.rfftfreq: dtype must be a real floating-point "
                                        "dtype, got complex64"):
        F.rfftfreq(4, dtype=lt.complex64)
    with pytest.raises(TypeError, match="dtype must be a real floating-point dtype, got int32"):
        F.fftfreq(4, dtype=lt.int32)
    with pytest.raises(ValueError, match="n must be at least 1, got 0"):
        F.fftfreq(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        F.fftfreq(2.5)
    with pytest.raises(ValueError, match="sample spacing d must not be zero"):
        F.rfftfreq(4, d=0)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128, np.int16, np.bool_])
@pytest.mark.parametrize("shape,axes", [
    ((5,), None), ((5,), 0), ((5,), [-1]), ((4, 3), None), ((4, 3), -1), ((4, 3), (1, 0)),
    ((2, 3, 5), None), ((2, 3, 5), [0, -1]), ((0, 3), None), ((), None), ((), ()),
])
def test_shifts(name, dtype, shape, axes):
    x = (rand(shape, np.float64) * 9).astype(dtype)
    out = getattr(F, name)(lt.asarray(x), axes=axes)
    assert out.dtype == dtype
    expected = getattr(np.fft, name)(x, axes=axes) if shape else x   # NumPy fails on 0-d
    np.testing.assert_array_equal(out.numpy(), expected)


def test_shift_errors():
    with pytest.raises(IndexError, match="fft.fftshift: axis 2 is out of range"):
        F.fftshift(lt.asarray(np.ones((2, 2))), axes=2)
    with pytest.raises(ValueError, match="fft.ifftshift: axis -3 is out of range"):
        F.ifftshift(lt.asarray(np.ones((2, 2))), axes=[0, -3])
    assert F.fftshift([1, 2, 3]).tolist() == np.fft.fftshift([1, 2, 3]).tolist()  # NumPy's
    with pytest.raises(TypeError, match="fft.fftshift: expected a Tensor or an array-like"):
        F.fftshift(object())


def test_namespace():
    assert F.__all__ == ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn",
                         "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
                         "fft2", "ifft2", "rfft2", "irfft2"]
    assert all(getattr(F, name).__doc__ for name in F.__all__)
