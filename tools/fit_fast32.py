"""Polynomial coefficients of the float32 fast-mode functions (kernels_c/math/lt_exp.h, lt_erf.h,
lt_log.h, the `ltm_*_f32_fast` forms; lt_trig32_fma.h's sin, cos and tan), fitted here and
pasted into the C sources as float literals.

    python tools/fit_fast32.py

Each fit is a near-minimax polynomial by Lawson's algorithm (iteratively reweighted least
squares on a dense grid), of the relative error of the function it approximates, with the
coefficients then rounded to float32; the script prints the coefficients as C hex-float
literals and the relative error of the rounded polynomial evaluated in float64 (the float32
evaluation adds its own rounding, which the exhaustive sweeps of tools/verify_float32.py
measure).  References: float64 NumPy/SciPy (accurate to ~1e-15 relative here, far below
the 2^-24 that matters) or mpmath.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def lawson(basis, target, weight, iters=80):
    """Coefficients c minimising max |weight * (basis @ c - target)| (Lawson's IRLS)."""
    w = np.full(target.size, 1.0 / target.size)
    c = None
    for _ in range(iters):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(basis * (sw * weight)[:, None], target * sw * weight, rcond=None)
        e = np.abs(weight * (basis @ c - target))
        w = w * e
        w /= w.sum()
    return c


def f32(c):
    return np.asarray(c, np.float64).astype(np.float32).astype(np.float64)


def fit_f32(basis, target, weight):
    """lawson() with float32 coefficients: round the lowest-order free coefficient, refit
    the higher ones with it fixed, and so on (the low orders matter most)."""
    n = basis.shape[1]
    fixed = []
    for j in range(n):
        rest = target - (basis[:, :j] @ np.array(fixed) if fixed else 0.0)
        c = lawson(basis[:, j:], rest, weight)
        fixed.append(float(f32(c[0])))
    return np.array(fixed)


def hexf(v):
    """A float32 value as a C hex-float literal (0x1.abcp-3f)."""
    if v == 0:
        return "0.0f"
    m, e = float(np.float32(v)).hex().split("p")
    m = m.rstrip("0").rstrip(".")
    return f"{m}p{e}f"


def show(name, coefs, err):
    print(f"{name}: max relative error {err:.3g} (2^{np.log2(err):.2f})")
    for i, c in enumerate(coefs):
        print(f"    c{i} = {hexf(c)}  /* {float(np.float32(c))!r} */")


def horner(c, x):
    y = np.zeros_like(x)
    for ci in c[::-1]:
        y = y * x + ci
    return y


def fit_expm1(deg=6):
    """expm1(r) = r + r^2 (c2 + c3 r + ... + c_deg r^(deg-2)), |r| <= ln2/2 (+ margin)."""
    h = 0.5 * np.log(2.0) * 1.0005
    r = np.linspace(-h, h, 4001)
    r = r[r != 0]
    em = np.expm1(r)
    B = np.stack([r ** (j + 2) for j in range(deg - 1)], axis=1)
    c = fit_f32(B, em - r, 1.0 / np.abs(em))
    err = np.max(np.abs((r + r * r * horner(c, r) - em) / em))
    show(f"expm1 degree {deg} on |r| <= ln2/2 (c2..c{deg})", c, err)
    return c


def fit_erf_small(deg=5, top=0.5):
    """erf(x) = x + x (a0 + a1 z + ... + a_deg z^deg), z = x^2, |x| <= top (a0 = 2/sqrt(pi) - 1:
    its float32 rounding costs 2^-28 relative instead of 2^-25)."""
    x = np.linspace(1e-6, top * 1.0005, 4001)
    z = x * x
    y = special.erf(x)
    B = np.stack([x * z ** j for j in range(deg + 1)], axis=1)
    c = fit_f32(B, y - x, 1.0 / y)
    err = np.max(np.abs((x + x * horner(c, z) - y) / y))
    show(f"erf small degree {deg} in x^2 on [0, {top}]", c, err)
    return c


def fit_erf_pieces(deg=6, width=0.5, top=3.92):
    """erf(x) = x F(|x|), F = erf(x)/x on the pieces [i w, (i + 1) w) (i < 8 for w = 1/2; the
    last ends at top, above which erf rounds to 1): F = hi + (lo + s (c1 + ... + c_deg
    s^(deg-1))), s = |x| - (i + 1/2) w, hi + lo = F at the centre as a float pair (a single
    float32 there alone costs up to 2^-25 relative).  Prints the C table of
    ltm_erf32_fast_vec (lt_erf32_fma.h): one row of 8 per coefficient, hi, lo, c1 ...; each
    row is written twice, so that 16 float lanes (AVX-512) and 8 (AVX2) pick with the same
    index."""
    rows, worst = [], 0.0
    for i in range(int(np.ceil(top / width))):
        lo, hi_x = i * width, min((i + 1) * width, top)
        c = (i + 0.5) * width
        x = np.linspace(lo, hi_x, 6001)
        x[0] = max(x[0], 1e-12)
        F = special.erf(x) / x
        c0 = float(special.erf(c) / c)
        h = float(f32(c0))
        lw = float(f32(c0 - h))
        s = x - c
        B = np.stack([s ** k for k in range(1, deg + 1)], axis=1)
        co = fit_f32(B, F - h - lw, 1.0 / F)
        worst = max(worst, np.max(np.abs(h + lw + B @ co - F) / F))
        rows.append([h, lw, *co])
    print(f"erf pieces: degree {deg}, width {width}: max relative error of F "
          f"2^{np.log2(worst):.2f}")
    for j in range(deg + 2):
        col = [hexf(r[j]) for r in rows]
        print("    {" + ", ".join(col + col) + "},")
    return rows


def fit_erfcx(deg, lo, hi, alpha):
    """erfcx(u) ~ P(t), t = (u - alpha) / (u + alpha), u in [lo, hi]."""
    u = np.linspace(lo, hi, 8001)
    t = (u - alpha) / (u + alpha)
    y = special.erfcx(u)
    B = np.stack([t ** j for j in range(deg + 1)], axis=1)
    c = fit_f32(B, y, 1.0 / y)
    err = np.max(np.abs((horner(c, t) - y) / y))
    show(f"erfcx degree {deg} in t = (u - {alpha})/(u + {alpha}) on [{lo}, {hi}]", c, err)
    return c, err


def fit_log1p(deg=9):
    """log1p(f) = f - f^2/2 + f^3 (c0 + c1 f + ...), f in [sqrt(1/2) - 1, sqrt(2) - 1]."""
    f = np.linspace(np.sqrt(0.5) - 1 - 1e-4, np.sqrt(2) - 1 + 1e-4, 8001)
    f = f[np.abs(f) > 1e-7]
    y = np.log1p(f)
    B = np.stack([f ** (j + 3) for j in range(deg - 2)], axis=1)
    c = fit_f32(B, y - f + 0.5 * f * f, 1.0 / np.abs(y))
    err = np.max(np.abs((f - 0.5 * f * f + f ** 3 * horner(c, f) - y) / y))
    show(f"log1p degree {deg} on [sqrt(1/2)-1, sqrt(2)-1] (c3..c{deg})", c, err)
    return c


def fit_log_erfc(deg, lo=0.921875, hi=4.0, center=1.75):
    """log(erfc(u)) = Q(u - center) on [lo, hi], for erf(u) = 1 - exp(Q): fitted in the
    absolute error of Q weighted by erfc(u)/erf(u), the relative error it makes in erf."""
    u = np.linspace(lo, hi, 40001)
    y = np.log(special.erfc(u))
    B = np.stack([(u - center) ** j for j in range(deg + 1)], axis=1)
    c = fit_f32(B, y, special.erfc(u) / special.erf(u))
    err = np.max(np.abs((1 - np.exp(horner(c, u - center))) / special.erf(u) - 1))
    show(f"log erfc(u) degree {deg} in u - {center} on [{lo}, {hi}] (relative error of erf)",
         c, err)
    return c


def fit_gelu_small(deg=3, top=0.5):
    """gelu(x) = x/2 + x^2 Y(x^2) for |x| < top, Y(z) = (Phi(x) - 1/2)/x = y0 + y1 z + ...
    (Y(0) = 1/sqrt(2 pi), whose float32 rounding, 2^-25.1, is the floor of this fit)."""
    x = np.linspace(1e-6, top * 1.0005, 4001)
    z = x * x
    y = (special.ndtr(x) - 0.5) / x
    series = (1 / np.sqrt(2 * np.pi)) * (1 - z / 6 + z * z / 40 - z ** 3 / 336 + z ** 4 / 3456)
    y = np.where(x < 0.05, series, y)               # no cancellation in Phi(x) - 1/2 there
    B = np.stack([z ** j for j in range(deg + 1)], axis=1)
    c = fit_f32(B, y, 1.0 / y)
    err = np.max(np.abs(horner(c, z) / y - 1))
    show(f"gelu small Y degree {deg} in x^2 on [0, {top}]", c, err)
    return c


def fit_gelu_mills(n=4, lo=0.5, hi=14.5, iters=150):
    """The Mills-ratio part of the float32 fast Gelu: with R(a) = Phi(-a) exp(a^2/2) and
    k = 1/f32(1/sqrt(2 pi)) (the kernel multiplies by the rounded 1/sqrt(2 pi)),
        k a R(a) = M/(M + N),  M = m1 a + ... + m_(n+1) a^(n+1),  N = 1 + n1 a + ... + n_n a^n,
    on [lo, hi], minimising the relative error of M/(M + N).  Linearised (Loeb /
    Sanathanan-Koerner): G = 1/(k a R) - 1 ~ N/M, weighted least squares of N - G M with
    weight (k a R)/M_previous, reweighted as in Lawson's algorithm; the coefficients are
    then rounded to float32 one at a time (m1, n1, m2, n2, ...), the free ones refitted."""
    k = 1.0 / float(np.float32(1.0 / np.sqrt(2.0 * np.pi)))
    a = np.unique(np.concatenate([np.linspace(lo, hi, 20001),
                                  lo + (hi - lo) * np.sin(np.linspace(1e-4, np.pi / 2, 20001)) ** 2]))
    F = k * a * special.erfcx(a / np.sqrt(2.0)) / 2
    G = 1.0 / F - 1.0
    names = [("n", j) for j in range(1, n + 1)] + [("m", j) for j in range(1, n + 2)]
    cols = {("n", j): a ** j for j in range(n + 1)}
    cols.update({("m", j): -G * a ** j for j in range(1, n + 2)})

    def values(full, x):
        N = sum(full[("n", j)] * x ** j for j in range(n + 1))
        M = sum(full[("m", j)] * x ** j for j in range(1, n + 2))
        return N, M

    def solve(fixed):
        free = [nm for nm in names if nm not in fixed]
        rhs = -sum(cols[nm] * v for nm, v in fixed.items())
        A = np.stack([cols[nm] for nm in free], axis=1)
        sc = np.max(np.abs(A), axis=0)
        A = A / sc
        w = np.full(a.size, 1.0 / a.size)
        Mp = np.ones_like(a)
        best = None
        for _ in range(iters):
            wt = np.sqrt(w) * F / Mp
            c, *_ = np.linalg.lstsq(A * wt[:, None], rhs * wt, rcond=None)
            full = dict(fixed)
            full.update(zip(free, c / sc))
            N, M = values(full, a)
            e = (N / M - G) * F
            me = np.max(np.abs(e))
            if best is None or me < best[0]:
                best = (me, full)
            Mp = M
            w = w * np.abs(e)
            w /= w.sum()
        return best[1]

    fixed = {("n", 0): 1.0}
    for j in range(1, n + 2):
        for nm in (("m", j), ("n", j)):
            if nm in names:
                fixed[nm] = float(f32(solve(fixed)[nm]))
    x = np.linspace(lo, hi, 400001)
    N, M = values(fixed, x)
    err = np.max(np.abs(M / (M + N) / (k * x * special.erfcx(x / np.sqrt(2.0)) / 2) - 1))
    show(f"gelu N (n0..n{n}) for k a R(a) = M/(M + N) on [{lo}, {hi}]",
         [fixed[("n", j)] for j in range(n + 1)], err)
    show(f"gelu M (m1..m{n + 1})", [fixed[("m", j)] for j in range(1, n + 2)], err)
    return fixed


def fit_odd(name, fn, deg, top):
    """fn(a) = a + a z (c0 + c1 z + ... + c_deg z^deg), z = a^2, 0 <= a <= top: atan on [0, 1]
    (atan and atan2 reduce to it by 1/u and pi/2 - atan), asin on [0, 1/2] (above, pi/2 -
    2 asin(s) with s = sqrt((1 - |x|)/2); acos too), asinh and atanh on [0, 1/2] (where their
    log1p forms lose an ulp to the rounding of log1p's argument)."""
    a = np.linspace(1e-4, top * 1.0005, 8001)
    z = a * a
    y = fn(a)
    B = np.stack([a * z ** (j + 1) for j in range(deg + 1)], axis=1)
    c = fit_f32(B, y - a, 1.0 / y)
    err = np.max(np.abs((a + a * z * horner(c, z) - y) / y))
    show(f"{name} degree {2 * deg + 3} on [0, {top}] (c0..c{deg} of z = a^2)", c, err)
    return c


def fit_sin_cos(top, deg_s=2, deg_c=2):
    """sin r = r + r z (s0 + ... + s_deg z^deg) and cos r = 1 - z/2 + z^2 (c0 + ... + c_deg
    z^deg), z = r^2, |r| <= top: the float32 fast sin, cos and tan's FMA pass
    (lt_trig32_fma.h), whose reduction leaves |r| <= pi/4 + 2^-8.5 for |x| < 2^16 (2/pi
    rounded to float32 moves 2|x|/pi by up to 2^-9.2)."""
    a = np.linspace(1e-4, top * 1.0005, 8001)
    z = a * a
    s = fit_odd("sin", np.sin, deg_s, top)
    y = np.cos(a)
    B = np.stack([z ** (j + 2) for j in range(deg_c + 1)], axis=1)
    c = fit_f32(B, y - 1 + 0.5 * z, 1.0 / y)
    err = np.max(np.abs((1 - 0.5 * z + z * z * horner(c, z) - y) / y))
    show(f"cos degree {2 * deg_c + 4} on [0, {top}] (c0..c{deg_c} of z = r^2)", c, err)
    return s, c


if __name__ == "__main__":
    fit_odd("atan", np.arctan, 7, 1.0)
    fit_odd("asin", np.arcsin, 4, 0.5)
    fit_odd("asinh", np.arcsinh, 4, 0.5)
    fit_odd("atanh", np.arctanh, 5, 0.5)
    fit_expm1(6)
    fit_erf_small(5, 0.921875)
    fit_log_erfc(6, 0.921875, 4.0, 1.75)
    fit_erf_pieces(6, 0.5, 3.92)
    fit_log1p(10)
    fit_gelu_small(3, 0.5)
    fit_gelu_mills(4, 0.5, 14.5)
    fit_sin_cos(np.pi / 4 + 2 ** -8, 2, 2)
