"""Complex64 exp's first pass (ltm_cf_exp_f32_chunk, kernels_c/math/lt_cfunc.h): a double
evaluation with Ziv's test, the open elements and those outside its range redone by the
double-double path.  Both give each part correctly rounded (the first pass by its proven
bound, the accurate one within 2^-95), so the reference is the correctly rounded float32
of each part: NumPy's complex128 exp rounded to float32 where that is unambiguous, mpmath
elsewhere.  Inputs: random, and the boundaries of the first pass (x near -87 and 88, |y|
near 2^18, y next to multiples of pi/2 where cos y or sin y is small, zeros of both signs,
subnormal parts and results), every kernel path, 1 and 2 threads, the same bits."""

import os
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lazytensor as lt
from lazytensor._engine.ops import OPS

PATHS = [p for p in ("generic", "avx2") if p in lt.kernel_paths()]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def cr_part(v):
    """An mpmath value correctly rounded to float32 (overflow to inf, subnormals)."""
    with mpmath.workprec(300):
        if v == 0:
            return np.float32(0.0)
        f = np.float32(float(v))            # within a double rounding of the truth: fix up
        cands = [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
        finite = [c for c in cands if np.isfinite(c)]
        best = min(finite, key=lambda c: abs(mpmath.mpf(float(c)) - v))
        if abs(v) >= mpmath.mpf(2) ** 128 - mpmath.mpf(2) ** 103:      # past FLT_MAX's midpoint
            return np.float32(np.inf if v > 0 else -np.inf)
        return best


def reference(z):
    """The correctly rounded parts of exp(z), z complex64 with finite parts."""
    w = np.exp(z.astype(np.complex128))
    out = w.astype(np.complex64)
    parts = out.view(np.float32).reshape(-1, 2)        # (re, im) of out, written in place
    for j, v in enumerate((w.real, w.imag)):
        err = np.abs(v) * 2.0**-48                     # NumPy's error is a few ulp of double
        lo, hi = (v - err).astype(np.float32), (v + err).astype(np.float32)
        for i in np.nonzero((lo != hi) & np.isfinite(v) & (v != 0))[0]:
            with mpmath.workprec(300):
                e = mpmath.exp(mpmath.mpc(float(z[i].real), float(z[i].imag)))
                parts[i, j] = cr_part(e.real if j == 0 else e.imag)
    return out


def everywhere(z):
    outs = []
    for path in PATHS:
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads):
                outs.append(np.asarray(lt.exp(lt.asarray(z))))
    assert all(o.tobytes() == outs[0].tobytes() for o in outs)
    return outs[0]


def check(z):
    got, want = everywhere(z), reference(z)
    g = got.view(np.uint32).reshape(-1, 2)
    w = want.view(np.uint32).reshape(-1, 2)
    bad = np.nonzero((g != w).any(axis=1))[0]
    assert len(bad) == 0, [(z[i], got[i], want[i]) for i in bad[:5]]


def boundary_inputs():
    f32 = np.float32
    xs = np.array([-0.0, 0.0, 1e-30, -1e-45, 1.0, -1.0, -86.99999, -87.0, -87.00001,
                   -87.5, -100.0, -104.0, -110.0, 87.99999, 88.0, 88.00001, 88.5, 88.72,
                   88.73, 89.0, 60.0, -60.0], f32)
    k = np.arange(-160000, 160001, 997)
    near = (k * (np.pi / 2)).astype(f32)
    ys = np.concatenate([near, np.nextafter(near, f32(np.inf)), np.nextafter(near, f32(-np.inf)),
                         np.array([0.0, -0.0, 2.0**18, -2.0**18, 1e-40, -1e-40, 1e-30, 1e30,
                                   np.nextafter(f32(2.0**18), f32(0)), 3e38, 1e-45], f32)])
    X, Y = np.meshgrid(xs, ys)
    z = np.empty(X.size, np.complex64)
    z.real, z.imag = X.ravel(), Y.ravel()
    return z


def test_boundaries():
    check(boundary_inputs())


def test_hard_cases():
    """Parts within 2^-47 of a float32 midpoint (some closer than the first pass's error):
    Ziv's test must leave them open."""
    path = os.path.join(os.path.dirname(__file__), "testdata", "cexp32_hard.txt")
    bits = np.loadtxt(path, dtype=str, comments="#")
    pairs = np.array([[int(a, 16), int(b, 16)] for a, b in bits], np.uint32)
    check(pairs.view(np.complex64).ravel())


@pytest.mark.parametrize("scale", [1.0, 1e3, 3e5])
def test_random(scale):
    rng = np.random.default_rng(int(scale))
    n = 100_000
    z = np.empty(n, np.complex64)
    z.real = rng.uniform(-95, 95, n)
    z.imag = rng.uniform(-scale, scale, n)
    check(z)


def test_random_bits():
    rng = np.random.default_rng(7)
    b = rng.integers(0, 2**32, (2, 100_000), dtype=np.uint64).astype(np.uint32).view(np.float32)
    b = np.where(np.isfinite(b), b, np.float32(1.5))
    z = np.empty(b.shape[1], np.complex64)
    z.real = np.clip(b[0], -200, 200)
    z.imag = b[1]
    check(z)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-120, 120, width=32), st.floats(width=32, allow_nan=False,
                                                                   allow_infinity=False)),
                min_size=1, max_size=300))
def test_hypothesis(pairs):
    z = np.array([complex(a, b) for a, b in pairs], np.complex64)
    check(z)


# ---- complex128: the chunk loop (x in [-600, 690], 2^-500 <= |y| < 2^25) and the scalar path
def inputs128():
    rng = np.random.default_rng(128)
    xs = np.concatenate([rng.uniform(-605, 695, 300), [-600.0, np.nextafter(-600.0, -1e9), 690.0,
                         np.nextafter(690.0, 1e9), 0.0, -0.0, 1e-300, 700.0, -650.0]])
    k = rng.integers(-2**24, 2**24, 300)
    near = k * (np.pi / 2)
    ys = np.concatenate([rng.uniform(-10, 10, 300), np.exp2(rng.uniform(-510, 26, 300)),
                         near, np.nextafter(near, np.inf),
                         [2.0**25, np.nextafter(2.0**25, 0), 2.0**-500, np.nextafter(2.0**-500, 0),
                          -(2.0**-500), 3.0, -3.0]])
    z = np.empty(len(ys), np.complex128)
    z.real = rng.choice(xs, len(ys))
    z.imag = ys
    return z


def test_complex128_within_bound():
    """Each part within the op table's complex128 bound (in ulps of the part, mpmath), the
    same bits on every path and thread count; zeros, subnormals and infinities as NumPy's."""
    bound = OPS["exp"].cc_ulp[1]
    z = inputs128()
    got = everywhere(z)
    want = np.exp(z)
    for i in range(len(z)):
        with mpmath.workprec(300):
            e = mpmath.exp(mpmath.mpc(float(z[i].real), float(z[i].imag)))
            for g, v, n in ((got[i].real, e.real, want[i].real), (got[i].imag, e.imag, want[i].imag)):
                if abs(n) >= 2.0**-1022 and np.isfinite(n):
                    ulp = np.spacing(abs(float(v)))
                    assert abs(mpmath.mpf(float(g)) - v) / ulp <= bound, (z[i], got[i])
                elif abs(n) < 2.0**-1022:
                    assert abs(g - n) <= 2.0**-1074 * 2, (z[i], got[i], want[i])
                else:
                    assert g == n, (z[i], got[i], want[i])
