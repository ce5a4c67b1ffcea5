"""Complex functions: the Array API special cases NumPy misses."""

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


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_log1p_is_accurate_near_zero(dtype):
    """NumPy's complex log1p is log(1 + z): its real part is 0 below |z| ~ 2^-53."""
    import gmpy2

    gmpy2.get_context().precision = 200
    rng = np.random.default_rng(3)
    z = (10.0 ** rng.uniform(-30, -0.4, 600) * np.exp(1j * rng.uniform(-np.pi, np.pi, 600)))
    z = np.concatenate([z, [1e-20 + 1e-20j, -1.2116922049054679e-11 - 1.99e-12j,
                            -6.3e-08 + 0.0016j]]).astype(dtype)
    got = run(lt.log1p, z, dtype)
    assert got.dtype == dtype
    eps = float(np.finfo(dtype).eps)
    for zi, gi in zip(z, got):
        want = gmpy2.log(1 + gmpy2.mpc(complex(zi)))
        err = float(abs(gmpy2.mpc(complex(gi)) - want) / abs(want))
        assert err < 2 * eps, (complex(zi), complex(gi), want)


def test_log1p_away_from_zero_and_special_values_stay_numpy():
    z = np.array([0.7 + 0.1j, -0.9 + 0.2j, 3 - 4j, 1e300 + 1e300j, complex(-1.0, 0.0),
                  complex(0.0, 0.0), complex(-0.0, -0.0), complex(2.0, INF), complex(NAN, 1.0)])
    with np.errstate(all="ignore"):
        want = np.log1p(z)
    np.testing.assert_array_equal(run(lt.log1p, z), want)


def test_sign_with_a_nan_part_is_nan():
    got = run(lt.sign, [complex(INF, NAN), complex(-INF, NAN), complex(NAN, INF),
                        complex(NAN, -INF), complex(NAN, 0.0), complex(1.0, NAN)])
    assert np.all(np.isnan(got.real)) and np.all(np.isnan(got.imag))
    ordinary = np.array([3 + 4j, -2j, complex(0.0, 0.0)])
    np.testing.assert_allclose(run(lt.sign, ordinary), [0.6 + 0.8j, -1j, 0j])
