"""The polynomial of the float32 exact exp's first pass on the FMA paths (``ltm_exp32_vec``,
kernels_c/math/lt_exp.h), fitted here and pasted into the C source as hex literals.

    python tools/fit_exp32_fma.py

E(r) of degree 8 approximates e^r on |r| <= ln2/2 (1 + 2^-12): the Chebyshev interpolant
(mpmath.chebyfit, 40 digits), coefficients rounded to double.  Prints them and the method
error of the rounded polynomial, relative to e^r, the largest over a scan of 6001 points
(the error curve is smooth: its extrema are a few, well inside the scan's resolution), which
the Ziv bound in the C comment takes.
"""

from __future__ import annotations

import mpmath as mp

DEGREE = 8


def fit(degree: int = DEGREE, points: int = 6001):
    """(coefficients as floats, lowest first; log2 of the method error)."""
    mp.mp.dps = 40
    h = mp.log(2) / 2 * (1 + mp.mpf(2) ** -12)
    poly = mp.chebyfit(mp.exp, [-h, h], degree + 1)
    c = [float(x) for x in poly[::-1]]
    worst = mp.mpf(0)
    for i in range(points):
        r = -h + 2 * h * i / (points - 1)
        y = mp.mpf(0)
        for ci in reversed(c):
            y = y * r + mp.mpf(ci)
        worst = max(worst, abs(y - mp.exp(r)) / mp.exp(r))
    return c, float(mp.log(worst, 2))


def main() -> None:
    c, err = fit()
    print("E[%d] = { %s };" % (len(c), ", ".join(x.hex() for x in c)))
    print("method error 2^%.2f relative" % err)


if __name__ == "__main__":
    main()
