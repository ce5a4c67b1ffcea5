"""Complex functions whose NumPy version misses the Array API's special cases (or, for
log1p, its accuracy near 0).

``record._complex_now`` looks an op's ``cplx`` name up here first, then in NumPy.
"""

from __future__ import annotations

import numpy as np


def expm1(z: np.ndarray) -> np.ndarray:
    """exp(z) - 1 without cancellation near 0, with the standard's special cases."""
    wide = z.astype(np.complex128)   # complex64 is computed in double, rounded once
    x, y = wide.real, wide.imag
    with np.errstate(all="ignore"):
        # exp(x) cis(y) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i exp(x) sin y
        re = np.expm1(x) * np.cos(y) - 2.0 * np.sin(y / 2) ** 2
        im = np.exp(x) * np.sin(y)
        zero_y = y == 0                   # real axis: expm1(x) + i*y (keeps y's sign)
        re = np.where(zero_y, np.where(x == 0, 0.0, np.expm1(x)), re)   # expm1(-0+0j) is 0+0j
        im = np.where(zero_y, y, im)
        neg_inf = x == -np.inf            # 0 * cis(y) - 1
        re = np.where(neg_inf, -1.0, re)
        im = np.where(neg_inf, np.where(np.isfinite(y), 0.0 * np.sin(y), 0.0), im)
        inf_nonfinite = (x == np.inf) & ~np.isfinite(y)
        re = np.where(inf_nonfinite, np.inf, re)
        im = np.where(inf_nonfinite, np.nan, im)
    return _compose(re, im, z.dtype)   # re + 1j*im would turn inf*1j into nan


def _compose(re, im, dtype):
    out = np.empty(re.shape, dtype=dtype)
    out.real = re
    out.imag = im
    return out


def log1p(z: np.ndarray) -> np.ndarray:
    """log(1 + z) without cancellation near 0: NumPy takes the logarithm of |1 + z|, whose
    real part is 0 for |z| below 2^-53 (the standard says not to compute log(1 + x)).  For
    finite nonzero z with |re|, |im| < 1/2, log|1 + z| = log1p(x (2 + x) + y^2) / 2 (no
    overflow there); the imaginary part atan2(y, 1 + x), the zeros and the special values
    stay NumPy's."""
    wide = z.astype(np.complex128)   # complex64 is computed in double, rounded once
    x, y = wide.real, wide.imag
    with np.errstate(all="ignore"):
        out = np.log1p(wide)
        near = (np.abs(x) < 0.5) & (np.abs(y) < 0.5) & ((x != 0) | (y != 0))
        re = np.where(near, 0.5 * np.log1p(x * (2.0 + x) + y * y), out.real)
    return _compose(re, out.imag, z.dtype)
