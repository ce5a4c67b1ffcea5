"""Complex operands: computed by NumPy, with the Array API special cases NumPy misses."""

import numpy as np
import pytest

import lazytensor as lt

INF, NAN = np.inf, np.nan


def run(fn, values, dtype=np.complex128):
    return np.asarray(fn(lt.asarray(np.array(values, dtype=dtype))))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_expm1_values(dtype):
    z = np.array([0.5 - 2j, 3 + 0.1j, -1 + 1j, 1e-9 + 1e-9j], dtype=np.complex128)
    series = z + z * z / 2 + z ** 3 / 6              # accurate for the tiny element
    want = np.where(np.abs(z) < 1e-6, series, np.exp(z) - 1)
    got = run(lt.expm1, z, dtype)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want.astype(dtype), rtol=2e-7 if dtype == np.complex64 else 1e-14)


@pytest.mark.parametrize("z,want", [
    (complex(-0.0, 0.0), complex(0.0, 0.0)),
    (complex(INF, 0.0), complex(INF, 0.0)),
    (complex(-INF, INF), complex(-1.0, 0.0)),
    (complex(-INF, NAN), complex(-1.0, 0.0)),
    (complex(NAN, 0.0), complex(NAN, 0.0)),
    (complex(2.0, INF), complex(NAN, NAN)),
])
def test_expm1_special_cases(z, want):
    got = run(lt.expm1, [z])[0]
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if np.isnan(w):
            assert np.isnan(g)
        else:
            assert g == w and np.signbit(g) == np.signbit(w), (z, got, want)


def test_expm1_inf_with_nonfinite_imaginary_part():
    got = run(lt.expm1, [complex(INF, INF), complex(INF, NAN)])
    assert np.all(np.isinf(got.real)) and np.all(np.isnan(got.imag))


@pytest.mark.parametrize("b", [1e-30, 1.0, 1e10, 3e38])
def test_tanh_at_infinity_keeps_the_sign_of_b(b):
    got = run(lt.tanh, [complex(INF, b), complex(INF, -b), complex(-INF, b)])
    np.testing.assert_array_equal(got.real, [1.0, 1.0, -1.0])
    np.testing.assert_array_equal(np.signbit(got.imag), [False, True, False])


def test_complex_where_and_promotion():
    z = lt.asarray(np.array([1 + 1j, 2 - 2j], np.complex64))
    f = lt.asarray(np.array([0.5, 0.25], np.float64))
    assert (z + f).dtype == lt.complex128
    got = lt.where(lt.asarray([True, False]), z, 0)
    np.testing.assert_array_equal(got.numpy(), [1 + 1j, 0])
