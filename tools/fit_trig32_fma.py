"""The polynomials and the reduction constants of the float32 exact sin, cos and tan's first
pass on the FMA paths (kernels_c/math/lt_trig32_fma.h), fitted and checked here, pasted into the C
source as hex literals.

    python tools/fit_trig32_fma.py

- S(z) of degree DEGREE, the Chebyshev interpolant (mpmath.chebyfit, 40 digits) of
  (sin r - r) / r^3 in z = r^2 on |r| <= pi/2 (1 + 2^-12), coefficients rounded to double, so
  that p = r + r^3 S(r^2) approximates sin r.  The method error of p relative to sin r is the
  largest over a scan of 6001 points in r (the error curve is smooth).
- C(z) of degree DEGREE_COS, the Chebyshev interpolant of (cos r - 1 + r^2/2) / r^4 in z = r^2
  on |r| <= pi/4 (1 + 2^-12), so that 1 + z (-1/2 + z C(z)) approximates cos r (tan's
  denominator or numerator); its method error relative to cos r, and S's relative to sin r on
  that range (tan's), by the same scan.
- pi/2 = P1 + P2 + P3 with P1, P2 doubles: the reduction's parts, and |P3|.
- The smallest |x - n pi/2| over the float32 x with 1 <= |x| <= 2^18 and n >= 1 (every n, the
  two float32 neighbours of n pi/2, in exact integer arithmetic): the reduction's dropped term
  n |P3| is taken relative to it.
"""

from __future__ import annotations

import mpmath as mp

DEGREE = 5
DEGREE_COS = 4
XMAX = 2 ** 18


def _horner(c, z):
    y = mp.mpf(0)
    for ci in reversed(c):
        y = y * z + mp.mpf(ci)
    return y


def _s(z):
    """(sin r - r) / r^3 at z = r^2, its limit -1/6 at 0."""
    if z == 0:
        return -mp.mpf(1) / 6
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / r ** 3


def _c(z):
    """(cos r - 1 + r^2/2) / r^4 at z = r^2, its limit 1/24 at 0."""
    if z == 0:
        return mp.mpf(1) / 24
    return (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z ** 2


def _worst(c, h, cos, points):
    """log2 of the largest relative error of the sine (or cosine) form on 0 < r <= h."""
    worst = mp.mpf(0)
    for i in range(1, points):
        r = h * i / (points - 1)
        z = r * r
        if cos:
            err = abs(1 + z * (-mp.mpf(1) / 2 + z * _horner(c, z)) - mp.cos(r)) / mp.cos(r)
        else:
            err = abs(r + r ** 3 * _horner(c, z) - mp.sin(r)) / abs(mp.sin(r))
        worst = max(worst, err)
    return float(mp.log(worst, 2))


def fit(degree: int = DEGREE, points: int = 6001, cos: bool = False):
    """(coefficients as floats, lowest first; log2 of the method error): S on |r| <= pi/2,
    or with ``cos`` C on |r| <= pi/4."""
    mp.mp.dps = 40
    h = mp.pi / (4 if cos else 2) * (1 + mp.mpf(2) ** -12)
    poly = mp.chebyfit(_c if cos else _s, [0, h * h], degree + 1)
    c = [float(x) for x in poly[::-1]]
    return c, _worst(c, h, cos, points)


def pio2_parts():
    mp.mp.dps = 60
    p1 = float(mp.pi / 2)
    p2 = float(mp.pi / 2 - p1)
    p3 = mp.pi / 2 - p1 - p2
    return p1, p2, float(mp.log(abs(p3), 2))


def min_reduced(xmax: int = XMAX):
    """(log2 of the smallest |x - n pi/2|, its x) over float32 x in [1, xmax], n >= 1."""
    mp.mp.dps = 80
    scale = 200
    pio2 = int(mp.floor(mp.pi / 2 * mp.mpf(2) ** scale))     # pi/2 2^200, below by < 1
    best, at = None, None
    n = 1
    while True:
        v = n * pio2                                            # n pi/2 2^200 (to n 2^-200)
        if v > xmax << scale:
            break
        e = v.bit_length() - 1 - scale                          # 2^e <= n pi/2 < 2^(e+1)
        ulp_shift = scale + e - 23                              # ulp of the binade, 2^-200 units
        lo = (v >> ulp_shift) << ulp_shift
        for f in (lo, lo + (1 << ulp_shift)):
            d = abs(v - f)
            if best is None or d < best:
                best, at = d, f / 2 ** scale
        n += 1
    return float(mp.log(mp.mpf(best) / mp.mpf(2) ** scale, 2)), at


def main() -> None:
    c, err = fit()
    print("S[%d] = { %s };" % (len(c), ", ".join(x.hex() for x in c)))
    print("method error 2^%.2f relative" % err)
    quarter = mp.pi / 4 * (1 + mp.mpf(2) ** -12)
    print("S's method error on |r| <= pi/4: 2^%.2f relative" % _worst(c, quarter, False, 6001))
    c, err = fit(DEGREE_COS, cos=True)
    print("C[%d] = { %s };" % (len(c), ", ".join(x.hex() for x in c)))
    print("method error 2^%.2f relative" % err)
    p1, p2, p3 = pio2_parts()
    print("P1 = %s, P2 = %s, |P3| = 2^%.2f" % (p1.hex(), p2.hex(), p3))
    m, x = min_reduced()
    print("min |x - n pi/2| over float32 1 <= |x| <= 2^18: 2^%.2f at x = %r" % (m, x))


if __name__ == "__main__":
    main()
