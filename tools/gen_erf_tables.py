"""Generate kernels_c/math/lt_erf_data.h: the coefficient tables of the erf family (erf, gelu).

    python tools/gen_erf_tables.py            # writes kernels_c/math/lt_erf_data.h, prints errors

Everything is derived here with mpmath (no coefficients copied from elsewhere):

* lt_tab_erf_small: erf(t) = t * (C0 + z * Q(z)), z = t^2, |t| < 0.5.  Q (degree QDEG) is the
  Chebyshev interpolant (in z on [0, 1/4]) of (erf(t)/t - C0)/z, computed from the Taylor
  series at 160 bits, converted to monomials and rounded to double.  C0 = 2/sqrt(pi) is
  stored as a double-double (hi, lo) in the first two slots.

* lt_tab_erf_cx: the scaled complementary error function erfcx(t) = exp(t^2) erfc(t) on
  [0.5, 32), cut into 48 intervals, 8 per binade (the interval index is the exponent and the
  top 3 mantissa bits of t: (bits(t) >> 49) - 0x1FF0).  On each interval, with centre c
  (a short binary number) and s = t - c, erfcx(c + s) = sum_k a_k s^k, degree CXDEG, the
  Chebyshev interpolant at 160 bits.  Row layout (stride 16 doubles):
  [a0 hi, a0 lo, a1, ..., a_CXDEG, c, 0 ...].

* lt_tab_erf_small_fast, lt_tab_erf_cx_fast: the same with degrees QDEG_FAST and
  CXDEG_FAST (rows of 8: a0 hi, a0 lo, a1 .. a5, c), for the float32 fast functions.

* lt_tab_erf_const: 1/sqrt(2) as (hi, lo); ln2/64 as hi (36 bits) + lo; 64/ln2.

* lt_tab_erf_exp: 2^(j/64), j = 0..63, as double-double pairs (hi, lo), for the private
  exp of the erf family (exp(-t^2) in erfc(t) = exp(-t^2) * erfcx(t)).

* lt_tab_gelu32_r, lt_tab_gelu32_const: the exact float32 Gelu, one formula
  for every a = |x| in [0, 14.5]: T = a Phi(-a) = a exp(-a^2/2) R(a), R(a) = Phi(-a) exp(a^2/2).
  R is cut into 16 intervals by i = round(g(a)), g(a) = al a - be a^2 - 1/2 (concave, so the
  intervals widen with a, where R is smoother; al and be are doubles and define the intervals
  exactly); on each, R(c + s) = sum_k r_k s^k of degree GDEG, the Chebyshev interpolant on the
  interval widened by 1e-9 (g is rounded in the kernel).  Layout: GDEG + 1 rows of 16 (the
  coefficient of s^k for the 16 intervals, so that one row is one table lookup), then the 16
  centres.  exp(-a^2/2) takes the exp family's lt_tab_exp16 tables (tools/gen_exp_tables.py).
  Constants: al, be, the clamp 14.5.  The printed bounds are the method error and the
  condition number (max sum |r_k s^k| / R) used in kernels_c/math/lt_erf.h.

* lt_tab_erf32, lt_tab_erf32_rows: the first pass of the exact float32 erf, evaluated in
  double with FMA where the kernel path has it (ltm_erf32_vec).  t = |x| in [0, 4) is cut into
  the 16 pieces [k/4, (k+1)/4] (k = floor(4t), taken from the bits of t + 4); on each, erf(t)
  is a polynomial of degree E32_DEG in s = t - c: for k >= 1, c = k/4 + 1/8 and the Chebyshev
  interpolant of erf; for k = 0, c = 0 and t times the Chebyshev interpolant (degree
  E32_DEG - 1) of erf(t)/t, re-expanded around 0, so the constant term is 0 and the error
  relative down to t = 0.  Layout: lt_tab_erf32 has E32_DEG + 1 rows of 16 (the coefficient
  of s^k for the 16 pieces: one row is one table lookup), then the 16 centres;
  lt_tab_erf32_rows the same by piece (rows of 12: a_0 .. a_9, c, 0; the AVX2 lookups).  The
  printed bounds are the method error (relative) and the condition number max sum |a_k s^k| /
  erf(t) used in the rounding-error bound of kernels_c/math/lt_erf.h.

The printed errors are the relative errors of the double-coefficient polynomials (evaluated
exactly) against the function, over a dense grid: the method errors used in the bounds of
kernels_c/math/lt_erf.h.
"""

from __future__ import annotations

import os
import sys

import mpmath as mp

mp.mp.prec = 160

QDEG = 9          # degree of Q in z for |t| < 0.5 (erf = t (C0 + z Q(z)))
CXDEG = 11        # degree of the erfcx polynomials
QDEG_FAST = 4     # the same for the float32 fast functions (relative error ~2^-30 suffices)
CXDEG_FAST = 5
CXSTRIDE = 16
NCX = 48          # intervals [0.5, 32), 8 per binade
GDEG = 9          # degree of the float32 Gelu's R polynomials
GTOP = 14.6       # the 16 intervals of R cover [0, GTOP]; the kernel clamps a to 14.5
E32_DEG = 9       # exact float32 erf, first pass: degree of the 16 pieces on [0, 4)
GWIDEN = 1.1      # g'(GTOP) = al (1 - 1/GWIDEN): how much the intervals widen along a

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "kernels_c", "math", "lt_erf_data.h")


def dbl(v):
    return float(mp.mpf(v))


def hexd(v):
    return float(v).hex()


def split_dd(v):
    hi = dbl(v)
    lo = dbl(mp.mpf(v) - mp.mpf(hi))
    return hi, lo


def cheb_fit(f, a, b, n):
    """Coefficients (monomial in s = x - c, c = (a+b)/2) of the degree-n interpolant of f at
    the Chebyshev nodes of [a, b]."""
    a, b = mp.mpf(a), mp.mpf(b)
    c, h = (a + b) / 2, (b - a) / 2
    us = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / (n + 1)) for k in range(n + 1)]
    vals = [f(c + h * u) for u in us]
    # solve the Vandermonde system in u = s / h (well conditioned at these nodes for n ~ 12)
    A = mp.matrix([[u ** j for j in range(n + 1)] for u in us])
    coef_u = mp.lu_solve(A, mp.matrix(vals))
    return [coef_u[j] / h ** j for j in range(n + 1)]


def erfcx(t):
    t = mp.mpf(t)
    return mp.exp(t * t) * mp.erfc(t)


C0 = 2 / mp.sqrt(mp.pi)


def small_F(z):
    """(erf(t)/t - C0)/z as a series in z = t^2 (exact to 160 bits for z <= 1/4)."""
    z = mp.mpf(z)
    s, term, n = mp.mpf(0), mp.mpf(1), 1
    while True:
        term = term * (-z) / n if n > 1 else mp.mpf(-1)
        add = term / (2 * n + 1)
        s += add
        if abs(add) < mp.mpf(2) ** -170:
            break
        n += 1
        if n > 200:
            break
    return C0 * s


def gen_small(qdeg=QDEG):
    q = cheb_fit(small_F, 0, mp.mpf(1) / 4, qdeg)
    # the fit is centred at z = 1/8: re-expand around z = 0 (binomial shift)
    c = mp.mpf(1) / 8
    n = len(q)
    mono = [mp.mpf(0)] * n
    for j in range(n):
        for i in range(j + 1):
            mono[i] += q[j] * mp.binomial(j, i) * (-c) ** (j - i)
    qd = [dbl(v) for v in mono]
    c0h, c0l = split_dd(C0)
    worst = 0
    for i in range(1, 2001):
        t = mp.mpf(i) / 4000
        z = t * t
        p = sum(mp.mpf(qd[k]) * z ** k for k in range(n))
        approx = t * (mp.mpf(c0h) + mp.mpf(c0l) + z * p)
        worst = max(worst, abs(approx / mp.erf(t) - 1))
    return [c0h, c0l] + qd, worst


def cx_interval(i):
    e, j = divmod(i, 8)
    lo = mp.mpf(2) ** (e - 1)
    a = lo * (1 + mp.mpf(j) / 8)
    b = lo * (1 + mp.mpf(j + 1) / 8)
    return a, b


def gen_cx(deg=CXDEG, stride=CXSTRIDE):
    rows, worst = [], 0
    for i in range(NCX):
        a, b = cx_interval(i)
        co = cheb_fit(erfcx, a, b, deg)
        c = (a + b) / 2
        assert mp.mpf(dbl(c)) == c
        a0h, a0l = split_dd(co[0])
        ad = [dbl(v) for v in co[1:]]
        row = [a0h, a0l] + ad + [dbl(c)]
        row += [0.0] * (stride - len(row))
        rows.append(row)
        w = 0
        for k in range(81):
            t = a + (b - a) * k / 80
            s = t - c
            p = mp.mpf(a0h) + mp.mpf(a0l) + sum(mp.mpf(ad[m - 1]) * s ** m for m in range(1, deg + 1))
            w = max(w, abs(p / erfcx(t) - 1))
        worst = max(worst, w)
    return rows, worst


def gen_exp():
    out = []
    for j in range(64):
        h, l = split_dd(mp.mpf(2) ** (mp.mpf(j) / 64))
        out += [h, l]
    return out


def gen_const():
    """1/sqrt(2) (hi, lo); ln2/64 split as hi (36 significant bits, so k * hi is exact for
    |k| < 2^17) + lo; 64/ln2 rounded."""
    rs_h, rs_l = split_dd(1 / mp.sqrt(2))
    L = mp.log(2) / 64
    Lh = mp.floor(L * 2 ** 42 + mp.mpf(1) / 2) / 2 ** 42
    assert mp.mpf(dbl(Lh)) == Lh
    return [rs_h, rs_l, dbl(Lh), dbl(L - Lh), dbl(64 / mp.log(2))]


def gelu_R(a):
    a = mp.mpf(a)
    return mp.erfc(a / mp.sqrt(2)) / 2 * mp.exp(a * a / 2)


def gen_gelu32():
    """The float32 Gelu's tables (see the module docstring); returns (r table, constants,
    R's method error, condition number)."""
    n, top = 16, mp.mpf(GTOP)
    be = dbl(n / (top * top * (2 * mp.mpf(GWIDEN) - 1)))
    al = dbl(2 * mp.mpf(be) * top * mp.mpf(GWIDEN))
    A, B = mp.mpf(al), mp.mpf(be)
    assert A * top - B * top * top - mp.mpf(1) / 2 < mp.mpf(n) - mp.mpf(1) / 2  # round(g) <= 15
    bnd = [mp.mpf(0)] + [(A - mp.sqrt(A * A - 4 * B * i)) / (2 * B) for i in range(1, n)] + [top]
    coef, centres, worst, cond = [], [], 0, 0
    for i in range(n):
        a, b = bnd[i] - mp.mpf(10) ** -9, bnd[i + 1] + mp.mpf(10) ** -9
        co = [dbl(v) for v in cheb_fit(gelu_R, a, b, GDEG)]
        c = dbl((a + b) / 2)
        coef.append(co)
        centres.append(c)
        for k in range(161):
            t = a + (b - a) * k / 160
            s = t - mp.mpf(c)
            terms = [mp.mpf(co[m]) * s ** m for m in range(GDEG + 1)]
            r = gelu_R(t)
            worst = max(worst, abs(sum(terms) / r - 1))
            cond = max(cond, sum(abs(v) for v in terms) / r)
    rtab = [coef[i][k] for k in range(GDEG + 1) for i in range(n)] + centres
    return rtab, [al, be, 14.5], worst, cond


def gelu32_rows(rtab):
    """lt_tab_gelu32_r (rows of 16 by coefficient, then the centres) by interval: 16 rows of
    12 doubles, r_0 .. r_GDEG, c, 0 (ltm_vrows16, kernels_c/math/lt_exp.h)."""
    assert GDEG == 9 and len(rtab) == 16 * (GDEG + 2)
    return [v for i in range(16) for v in [rtab[16 * k + i] for k in range(GDEG + 2)] + [0.0]]


def gen_erf32():
    """The exact float32 erf's first-pass tables (see the module docstring); returns (the
    table by coefficient, the table by piece, the relative method error, the condition
    number)."""
    def F(t):
        t = mp.mpf(t)
        return C0 if t == 0 else mp.erf(t) / t
    coef, centres, we, cond = [], [], 0, 0
    for k in range(16):
        a, b = mp.mpf(k) / 4, mp.mpf(k + 1) / 4
        if k == 0:
            q = cheb_fit(F, a, b, E32_DEG - 1)           # centred at 1/8: re-expand around 0
            h = (a + b) / 2
            mono = [mp.mpf(0)] * E32_DEG
            for j in range(E32_DEG):
                for i in range(j + 1):
                    mono[i] += q[j] * mp.binomial(j, i) * (-h) ** (j - i)
            co, cc = [0.0] + [dbl(v) for v in mono], mp.mpf(0)
        else:
            co, cc = [dbl(v) for v in cheb_fit(mp.erf, a, b, E32_DEG)], (a + b) / 2
        assert mp.mpf(dbl(cc)) == cc
        coef.append(co)
        centres.append(dbl(cc))
        for j in range(1, 2001):
            t = a + (b - a) * j / 2000
            s = t - cc
            terms = [mp.mpf(co[m]) * s ** m for m in range(E32_DEG + 1)]
            f = mp.erf(t)
            we = max(we, abs(sum(terms) / f - 1))
            cond = max(cond, sum(abs(v) for v in terms) / f)
    by_coef = [coef[i][m] for m in range(E32_DEG + 1) for i in range(16)] + centres
    by_piece = [v for i in range(16) for v in coef[i] + [centres[i], 0.0]]
    return by_coef, by_piece, we, cond


def fmt_array(name, vals, per_line=4, comment=None, align=None):
    lines = []
    if comment:
        lines.append(f"/* {comment} */")
    al = f"_Alignas({align}) " if align else ""
    lines.append(f"static const {al}double {name}[{len(vals)}] = {{")
    for k in range(0, len(vals), per_line):
        lines.append("    " + ", ".join(hexd(v) for v in vals[k:k + per_line]) + ",")
    lines.append("};")
    return "\n".join(lines)


def main():
    small, ws = gen_small()
    rows, wc = gen_cx()
    ex = gen_exp()
    smallf, wsf = gen_small(QDEG_FAST)
    rowsf, wcf = gen_cx(CXDEG_FAST, 8)
    print(f"fast small-|t| polynomial: max relative error 2^{float(mp.log(wsf, 2)):.1f}", file=sys.stderr)
    print(f"fast erfcx polynomials: max relative error 2^{float(mp.log(wcf, 2)):.1f}", file=sys.stderr)
    print(f"small-|t| polynomial: max relative error 2^{float(mp.log(ws, 2)):.1f}", file=sys.stderr)
    print(f"erfcx interval polynomials: max relative error 2^{float(mp.log(wc, 2)):.1f}", file=sys.stderr)
    grt, gct, gw, gcond = gen_gelu32()
    print(f"float32 gelu R polynomials: max relative error 2^{float(mp.log(gw, 2)):.1f}, "
          f"condition {float(gcond):.3f}", file=sys.stderr)
    e32c, e32r, e32w, e32cond = gen_erf32()
    print(f"float32 erf first pass: relative error 2^{float(mp.log(e32w, 2)):.1f}, condition "
          f"{float(e32cond):.3f}", file=sys.stderr)
    flat = [v for r in rows for v in r]
    text = [
        "/* Generated by tools/gen_erf_tables.py: do not edit.  Tables of the erf family",
        " * (kernels_c/math/lt_erf.h); see the generator for their derivation. */",
        "#ifndef LT_ERF_DATA_H",
        "#define LT_ERF_DATA_H",
        "",
        fmt_array("lt_tab_erf_small", small, comment=(
            f"erf(t) = t (C0 + z Q(z)), z = t^2, |t| < 0.5: C0 hi, C0 lo, Q_0 .. Q_{QDEG}; "
            f"relative error 2^{float(mp.log(ws, 2)):.1f}")),
        "",
        fmt_array("lt_tab_erf_cx", flat, per_line=4, comment=(
            f"erfcx(t) on [0.5, 32), {NCX} intervals (8 per binade), rows of {CXSTRIDE}: a0 hi, a0 lo, "
            f"a1 .. a{CXDEG} (powers of s = t - c), c, padding; relative error 2^{float(mp.log(wc, 2)):.1f}")),
        "",
        fmt_array("lt_tab_erf_small_fast", smallf, comment=(
            f"fast float32 version: C0 hi, C0 lo, Q_0 .. Q_{QDEG_FAST}; relative error "
            f"2^{float(mp.log(wsf, 2)):.1f}")),
        "",
        fmt_array("lt_tab_erf_cx_fast", [v for r in rowsf for v in r], comment=(
            f"fast float32 version of lt_tab_erf_cx: rows of 8: a0 hi, a0 lo, a1 .. a{CXDEG_FAST}, c, "
            f"padding; relative error 2^{float(mp.log(wcf, 2)):.1f}")),
        "",
        fmt_array("lt_tab_erf_const", gen_const(), comment=(
            "1/sqrt(2) hi, lo; ln2/64 hi (36 bits), lo; 64/ln2")),
        "",
        fmt_array("lt_tab_erf_exp", ex, comment="2^(j/64), j = 0..63, as (hi, lo) pairs"),
        "",
        f"#define LT_GELU32_DEG {GDEG}",
        fmt_array("lt_tab_gelu32_r", grt, comment=(
            f"float32 gelu: R(a) on 16 intervals, rows of 16: r_0 .. r_{GDEG} (powers of s = a - c), "
            f"then the centres c; relative error 2^{float(mp.log(gw, 2)):.1f}, condition "
            f"{float(gcond):.3f}")),
        "",
        fmt_array("lt_tab_gelu32_rows", gelu32_rows(grt), comment=(
            "the same table by interval (array of structures, the AVX2 lookups: "
            "one row load per lane): rows of 12: r_0 .. r_9, c, 0"), align=32),
        "",
        fmt_array("lt_tab_gelu32_const", gct, comment="float32 gelu: al, be, clamp of |x|"),
        "",
        f"#define LT_ERF32_DEG {E32_DEG}",
        fmt_array("lt_tab_erf32", e32c, comment=(
            f"exact float32 erf on the 16 pieces [k/4, (k+1)/4] of [0, 4), rows of 16: a_0 .. "
            f"a_{E32_DEG} (powers of s = t - c), then the centres c; relative error "
            f"2^{float(mp.log(e32w, 2)):.1f}, condition {float(e32cond):.3f}")),
        "",
        fmt_array("lt_tab_erf32_rows", e32r, comment=(
            "the same table by piece (the AVX2 lookups: one row load per lane): rows of 12: "
            f"a_0 .. a_{E32_DEG}, c, 0"), align=32),
        "",
        "#endif",
        "",
    ]
    with open(OUT, "w") as f:
        f.write("\n".join(text))
    print(f"wrote {os.path.normpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
