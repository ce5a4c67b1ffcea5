"""pow, the library's own (kernels_c/math/lt_pow.h): float32 correctly rounded and float64
within 1 ulp against MPFR, NumPy's special values, the same bits on every kernel path and
thread count, and every exponent form a user writes reaching it.

The references are MPFR (gmpy2) at float32's and float64's precision and exponent range with
subnormals, so correctly rounded: NumPy's float32 power is not (it misrounds a few pairs in
10^5, and the exact midpoints).  The full sweeps are tools/verify_pow.py
(docs/verification/pow-*.txt).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import lazytensor as lt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools"))
import verify_pow  # noqa: E402

gmpy2 = pytest.importorskip("gmpy2")

PATHS = [p for p in ("generic", "avx2", "avx512") if p in lt.kernel_paths()]


def _pow(x, y, path=None, mode="exact"):
    with lt.config(kernel_path=path) if path else lt.config():
        with lt.mode(mode):
            return lt.pow(lt.asarray(x), lt.asarray(y)).numpy()


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _nan_canonical(a):
    return np.isnan(a) & (_bits(a) == (0x7FC00000 if a.dtype == np.float32 else 0x7FF8000000000000))


def _mpfr(x, y, dtype):
    return verify_pow.mpfr_pow(np.ravel(x), np.ravel(y), dtype).reshape(np.shape(x))


def _grid(dtype):
    v = verify_pow.grid_values(dtype)
    return np.repeat(v, len(v)), np.tile(v, len(v))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_value_grid_matches_mpfr_and_numpy(dtype, path):
    """Every pair of +-0, +-inf, NaN, +-1, +-0.5, integers and non-integers of both signs,
    subnormals, the largest finite value, 1 +- ulp: float32 bit for bit with MPFR; float64 the
    same class, sign and NaN-ness, finite values within 1 ulp; the special values also as
    NumPy has them (pow(1, nan) = pow(nan, 0) = 1, (-1)^inf = 1, signed zeros)."""
    x, y = _grid(dtype)
    got = _pow(x, y, path)
    want = _mpfr(x, y, dtype)
    with np.errstate(all="ignore"):
        npy = np.power(x, y)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert _nan_canonical(got)[np.isnan(got)].all()
    # a result of +-1 is a special case only where |x| = 1 or y = 0: 1.0000001^0.5 rounds to 1,
    # which NumPy's own float32 power misses where it is SVML's (AVX-512 machines)
    exactly_one = (np.abs(want) == 1) & ((np.abs(x) == 1) | (y == 0))
    special = (~np.isfinite(want) | (want == 0) | exactly_one) & ~np.isnan(want)
    assert np.array_equal(_bits(got)[special], _bits(npy)[special])
    if dtype == np.float32:
        ok = (_bits(got) == _bits(want)) | np.isnan(want)
    else:
        with np.errstate(all="ignore"):
            ok = ((_bits(got) == _bits(want)) | np.isnan(want)
                  | ((np.abs(got - want) <= np.spacing(np.abs(want))) & (np.sign(got) == np.sign(want))))
    assert ok.all(), [(x[i], y[i], got[i], want[i]) for i in np.nonzero(~ok)[0][:5]]


def _random_pairs(seed, n):
    x, y = verify_pow.random_pairs(np.random.default_rng(seed), n)
    return x, y


@pytest.mark.parametrize("path", PATHS)
def test_float32_random_pairs_correctly_rounded(path):
    """Pairs spanning underflow to overflow, integer and half-integer exponents, small
    integer bases (exact results and exact midpoints): bit for bit with MPFR."""
    x, y = _random_pairs(5, 20000)
    got = _pow(x, y, path)
    want = _mpfr(x, y, np.float32)
    bad = (_bits(got) != _bits(want)) & ~(np.isnan(got) & np.isnan(want))
    assert not bad.any(), [(float(x[i]).hex(), float(y[i]).hex(), got[i], want[i])
                           for i in np.nonzero(bad)[0][:5]]


def test_float32_exact_cases_and_midpoints():
    """x^y exactly a float32 or exactly halfway between two (y an integer, or k/2^j with x a
    perfect power; subnormal results and the midpoint 2^-150 included): ties to even."""
    xs, ys = [], []
    for m in range(1, 4097, 2):                      # odd mantissas: m^2 up to 24 bits
        for y in (2, 3, 0.5, 1.5, -1, -2):
            xs.append(m * 2.0 ** -6)
            ys.append(y)
    for m in range(4097, 8193, 2):                   # m^2 has 25 or 26 bits: midpoints
        xs.append(float(m))
        ys.append(2)
    for e in (-75, -74, -76, -50, 63, 64):          # 2^-150 is a midpoint (rounds to 0)
        xs.append(2.0 ** e)
        ys.append(2)
    x, y = np.array(xs, np.float32), np.array(ys, np.float32)
    x = np.concatenate([x, -x])
    y = np.concatenate([y, y])
    with np.errstate(over="ignore"):
        x = np.concatenate([x, x * x])              # squares: their square roots are exact
    y = np.concatenate([y, np.where(np.abs(y) == 2, np.float32(0.5), y / 2)])
    got = _pow(x, y)
    want = _mpfr(x, y, np.float32)
    bad = (_bits(got) != _bits(want)) & ~(np.isnan(got) & np.isnan(want))
    assert not bad.any(), [(float(x[i]).hex(), float(y[i]).hex(), got[i], want[i])
                           for i in np.nonzero(bad)[0][:5]]


def test_float64_within_one_ulp():
    """float64 against MPFR at 200 bits: within 1 ulp (normal results within 0.5 ulp +
    2^-37 by the bound, subnormal ones within 0.75)."""
    worst = verify_pow.random64(lt, np.random.default_rng(7), 4000)
    assert worst <= 1.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_bits_on_every_path_thread_count_and_mode(dtype):
    """The same operations on every path; fast mode computes pow the same way (NaN bits
    aside); results do not depend on the thread count or on the element's position."""
    rng = np.random.default_rng(11)
    n = 3 * 256 + 17
    x, y = _random_pairs(11, n)
    x, y = x.astype(dtype), y.astype(dtype)
    x[::7] = np.float32(2.5)
    y[::5] = rng.integers(-5, 5, len(y[::5]))
    ref = _pow(x, y, PATHS[0])
    for path in PATHS:
        assert np.array_equal(_bits(_pow(x, y, path)), _bits(ref)), path
        fast = _pow(x, y, path, mode="fast")
        assert np.array_equal(_bits(fast)[~np.isnan(ref)], _bits(ref)[~np.isnan(ref)])
    old = lt.get_num_threads()
    try:
        lt.set_num_threads(2)
        big_x, big_y = np.tile(x, 200), np.tile(y, 200)
        assert np.array_equal(_bits(_pow(big_x, big_y)), _bits(np.tile(ref, 200)))
    finally:
        lt.set_num_threads(old)
    # one element alone gives the bits it has among others (a chunk of exponent 2 or 0.5
    # takes the vectorised x*x or square root: the same bits)
    for i in range(0, n, 97):
        assert _bits(_pow(x[i:i + 1], y[i:i + 1]))[0] == _bits(ref)[i]


@pytest.mark.parametrize("expr", ["scalar int", "scalar float", "tensor f64", "rpow", "exp2",
                                  "float_power", "int tensor, float exponent"])
def test_every_exponent_form_goes_through_the_exact_pow(expr):
    """lt.pow(x_f32, 3), x ** 2.5, x ** y_f64, 2 ** x, lt.exp2, float_power and an integer
    base with a float exponent record the table's pow; results correctly rounded (float32)
    or within 1 ulp (float64) against MPFR."""
    rng = np.random.default_rng(3)
    xf = (rng.random(600) * 4).astype(np.float32)
    yf = (rng.standard_normal(600) * 6).astype(np.float32)
    X, Y = lt.asarray(xf), lt.asarray(yf)
    cases = {
        "scalar int": (lambda: lt.pow(X, 3), xf, np.full_like(xf, 3)),
        "scalar float": (lambda: X ** 2.5, xf, np.full_like(xf, 2.5)),
        "tensor f64": (lambda: X ** lt.asarray(yf.astype(np.float64)), xf.astype(np.float64),
                       yf.astype(np.float64)),
        "rpow": (lambda: 2 ** Y, np.full_like(yf, 2), yf),
        "exp2": (lambda: lt.exp2(Y), np.full_like(yf, 2), yf),
        "float_power": (lambda: lt.float_power(X, Y), xf.astype(np.float64), yf.astype(np.float64)),
        "int tensor, float exponent": (lambda: lt.asarray(np.arange(600) % 13) ** 0.75,
                                       (np.arange(600) % 13).astype(np.float64),
                                       np.full(600, 0.75)),
    }
    fn, x, y = cases[expr]
    t = fn()
    assert "pow" in lt.explain(t).kernels[0]["ops"]
    got = t.numpy()
    assert got.dtype == np.result_type(x, y)
    want = _mpfr(x, y, got.dtype.type)
    if got.dtype == np.float32:
        assert np.array_equal(_bits(got), _bits(want))
    else:
        assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))


def test_explain_marks_nothing_not_exact():
    x = lt.asarray(np.float32([1.5, 2.0]))
    text = str(lt.explain(x ** 1.7 + lt.sin(x)))
    assert "not yet exact" not in text and "*" not in text.split("ops:")[1].splitlines()[0]
    assert "mode: exact" in lt.pow.__doc__
