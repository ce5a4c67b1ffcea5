"""The polynomials of the float32 exact exp family's first passes on the FMA paths
(kernels_c/math/lt_exp32_fma.h), fitted here and pasted into the C source as hex literals.

    python tools/fit_exp32_fma.py

Both on |r| <= ln2/2 (1 + 2^-12), the Chebyshev interpolant (mpmath.chebyfit, 40 digits),
coefficients rounded to double:

- E(r) of degree 8 approximates e^r (the exp core, ``ltm_exp32_core``);
- T(r) of degree 7 approximates (e^r - 1 - r) / r^2, so that p = r + r^2 T(r) approximates
  e^r - 1 (the expm1 core, ``ltm_expm1_32_core``).

Prints the coefficients and the method error of the rounded polynomial, relative to e^r or
to e^r - 1, the largest over a scan of 6001 points (the error curve is smooth: its extrema
are a few, well inside the scan's resolution), which the Ziv bounds in the C comments take.
"""

from __future__ import annotations

import mpmath as mp

DEGREE = 8          # E
DEGREE_EXPM1 = 7    # T


def _horner(c, r):
    y = mp.mpf(0)
    for ci in reversed(c):
        y = y * r + mp.mpf(ci)
    return y


def _t(r):
    """(e^r - 1 - r) / r^2, its limit 1/2 at 0."""
    return (mp.expm1(r) - r) / r ** 2 if r != 0 else mp.mpf(1) / 2


def fit(degree: int = DEGREE, points: int = 6001, expm1: bool = False):
    """(coefficients as floats, lowest first; log2 of the method error): E of the exp core,
    or with ``expm1`` T of the expm1 core (the error is p's, relative to e^r - 1)."""
    mp.mp.dps = 40
    h = mp.log(2) / 2 * (1 + mp.mpf(2) ** -12)
    poly = mp.chebyfit(_t if expm1 else mp.exp, [-h, h], degree + 1)
    c = [float(x) for x in poly[::-1]]
    worst = mp.mpf(0)
    for i in range(points):
        r = -h + 2 * h * i / (points - 1)
        if expm1:
            if r == 0:
                continue
            err = abs(r + r * r * _horner(c, r) - mp.expm1(r)) / abs(mp.expm1(r))
        else:
            err = abs(_horner(c, r) - mp.exp(r)) / mp.exp(r)
        worst = max(worst, err)
    return c, float(mp.log(worst, 2))


def main() -> None:
    for name, degree, expm1 in (("E", DEGREE, False), ("T", DEGREE_EXPM1, True)):
        c, err = fit(degree, expm1=expm1)
        print("%s[%d] = { %s };" % (name, len(c), ", ".join(x.hex() for x in c)))
        print("method error 2^%.2f relative" % err)


if __name__ == "__main__":
    main()
