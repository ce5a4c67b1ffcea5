"""Generate kernels_c/math/lt_log_data.h: tables and constants for the log family (lt_log.h).

    python tools/gen_log_tables.py            # writes kernels_c/math/lt_log_data.h

Range reduction used by lt_log.h: a positive double h has bits u; tmp = u - OFF where OFF is
the bit pattern of 0.701171875 (= (256 - 76.5) / 256); k = tmp >> 52 (signed); the mantissa
m = bits(u - (tmp & 0xFFF0...)) lies in [OFF, 2*OFF), and h = 2^k * m.  The index
i = (tmp >> 45) & 127 cuts [OFF, 2*OFF) into 128 buckets, contiguous in bit order; 1.0 sits
in the middle of bucket 76, which gets r = 1 and log c = 0 (so results near x = 1 keep their
relative accuracy).  Every other bucket gets r = 1/c for its centre c, rounded to 20
significant bits (so m*r is exact for m of up to 33 bits, and mh*r for Veltkamp halves of 26
bits), and -log(r) stored as a triple-double (hi rounded to a multiple of 2^-42 so that it
adds exactly to k * LN2_HI, then mid, lo).  z = m*r - 1 then lies in [ZMIN, ZMAX] (printed).

Polynomials (all coefficients derived here, with mpmath):
  * Q6: degree-6 fit of (log1p(z) - z) / z^2 on [ZMIN, ZMAX], weighted least squares on
    Chebyshev nodes with weight |z| (that is the absolute error of z^2 * Q relative to z),
    rounded to double; the script prints the max error of z + z^2 * Q(z) relative to log1p(z).
  * Q2: degree-2 fit of the same, for the fast float32 variants.
  * Taylor coefficients (-1)^(j+1)/j, j = 1..14, as double-double pairs, for the accurate path.

The vectorised first pass of float32 log and log1p (ltm_log16_vec) uses a coarser reduction,
16 buckets, whose per-bucket values fit one 16-entry lookup (a permute on AVX-512): OFF16 is
the bit pattern of 0.765625, i = (tmp >> 48) & 15, 1.0 in the middle of bucket 7 (r = 1,
log c = 0); r16 rounded to 24 bits (so m*r is exact for the 24-bit m of a float32 input),
-log(r16) = hi (a multiple of 2^-42) + lo, and Q16: a degree-7 fit of (log1p(z) - z)/z^2 on
that wider z range (its max error relative to log1p(z) printed).
"""

from __future__ import annotations

import os
import struct

import mpmath as mp

mp.mp.prec = 300

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "kernels_c", "math", "lt_log_data.h")

N = 7                                # index bits
OFF = 0x3FE0000000000000 + int(51.5 * 2 ** 45)
N16 = 4                              # index bits of the vectorised first pass
OFF16 = 0x3FF0000000000000 - int(7.5 * 2 ** 48)
Q16_DEG = 6


def bits2d(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def d2bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def rnd(x, nbits=53):
    """round mpf x to nbits significant bits (nearest even), as a Python float"""
    if x == 0:
        return 0.0
    e = int(mp.floor(mp.log(abs(x), 2)))
    q = mp.mpf(2) ** (e - nbits + 1)
    return float(mp.nint(x / q) * q)


def rnd_quantum(x, q):
    return float(mp.nint(x / q) * q)


def split3(v):
    """mpf v -> hi (multiple of 2^-42), mid, lo doubles"""
    hi = rnd_quantum(v, mp.mpf(2) ** -42)
    mid = float(v - hi)
    lo = float(v - hi - mid)
    return hi, mid, lo


def dd(v):
    hi = float(v)
    return hi, float(v - hi)


def hexf(x):
    return float(x).hex()


def fit(deg, lo, hi, npts=400):
    """weighted least squares in high precision for Q(z) ~ (log1p(z) - z)/z^2, weight |z|"""
    nodes = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (j + mp.mpf(1) / 2) / npts)
             for j in range(npts)]
    rows, rhs = [], []
    for z in nodes:
        w = abs(z)
        q = (mp.log1p(z) - z) / z ** 2
        rows.append([w * z ** j for j in range(deg + 1)])
        rhs.append(w * q)
    A = mp.matrix(rows)
    b = mp.matrix(rhs)
    c = mp.lu_solve(A.T * A, A.T * b)
    return [float(c[j]) for j in range(deg + 1)]


def poly_err(c, lo, hi, npts=4000):
    """max |z + z^2 Q(z) - log1p(z)| / |log1p(z)| with the double coefficients (exact arith)"""
    worst = mp.mpf(0)
    for j in range(npts + 1):
        z = lo + (hi - lo) * j / npts
        if z == 0:
            continue
        q = sum(mp.mpf(cj) * z ** i for i, cj in enumerate(c))
        e = abs(z + z * z * q - mp.log1p(z)) / abs(mp.log1p(z))
        worst = max(worst, e)
    return worst


def buckets(nbits, off, rbits):
    """The reduction that cuts [OFF, 2*OFF) into 2^nbits buckets, contiguous in bit order:
    per bucket r (rbits significant bits; 1 for the bucket of 1.0) and -log r (mpf), and the
    range [zmin, zmax] of z = m*r - 1."""
    shift = 52 - nbits
    rs, vs = [], []
    zmin, zmax = mp.mpf(0), mp.mpf(0)
    for i in range(1 << nbits):
        m0 = mp.mpf(bits2d(off + (i << shift)))
        m1 = mp.mpf(bits2d(off + ((i + 1) << shift)))     # exclusive
        r = 1.0 if m0 <= 1 < m1 else rnd(2 / (m0 + m1), rbits)
        rm = mp.mpf(r)
        zmin = min(zmin, m0 * rm - 1)
        zmax = max(zmax, m1 * rm - 1)
        rs.append(r)
        vs.append(-mp.log(rm))
    return rs, vs, zmin, zmax


def buckets16():
    """(r, -log r hi, lo) of the 16 buckets of the vectorised pass, and the z range"""
    rs, vs, zmin, zmax = buckets(N16, OFF16, 24)
    assert rs[7] == 1.0
    his = [rnd_quantum(v, mp.mpf(2) ** -42) for v in vs]
    return rs, his, [float(v - h) for v, h in zip(vs, his)], zmin, zmax


def main():
    rs, vs, zmin, zmax = buckets(N, OFF, 20)
    assert rs[76] == 1.0
    chs, cms, cls = zip(*(split3(v) if r != 1.0 else (0.0, 0.0, 0.0) for r, v in zip(rs, vs)))
    chs, cms, cls = list(chs), list(cms), list(cls)
    q6 = fit(6, zmin, zmax)
    q2 = fit(2, zmin, zmax)
    e6 = poly_err(q6, zmin, zmax)
    e2 = poly_err(q2, zmin, zmax)
    r16, hi16, lo16, zmin16, zmax16 = buckets16()
    q16 = fit(Q16_DEG, zmin16, zmax16)
    e16 = poly_err(q16, zmin16, zmax16)

    ln2 = mp.log(2)
    l2 = split3(ln2)
    il2 = dd(1 / ln2)
    il10 = dd(1 / mp.log(10))
    lg2 = split3(mp.log10(2))
    taylor = []
    for j in range(1, 15):
        taylor.extend(dd(mp.mpf((-1) ** (j + 1)) / j))

    consts = [
        ("LN2_HI (multiple of 2^-42)", l2[0]), ("LN2_MID", l2[1]), ("LN2_LO", l2[2]),
        ("1/ln2 hi", il2[0]), ("1/ln2 lo", il2[1]),
        ("1/ln10 hi", il10[0]), ("1/ln10 lo", il10[1]),
        ("log10(2) hi (multiple of 2^-42)", lg2[0]), ("log10(2) mid", lg2[1]),
        ("log10(2) lo", lg2[2]),
        ("ln2 as plain double", float(ln2)),
    ]

    def arr(name, vals, per=4, align=None):
        lines = []
        for j in range(0, len(vals), per):
            lines.append("    " + ", ".join(hexf(v) for v in vals[j:j + per]) + ",")
        al = f"_Alignas({align}) " if align else ""
        return (f"static const {al}double {name}[{len(vals)}] = {{\n" + "\n".join(lines)
                + "\n};\n")

    out = []
    out.append("/* Generated by tools/gen_log_tables.py -- do not edit.  Tables of the log family.\n"
               " * Range reduction (see lt_log.h): h = 2^k * m, m in [OFF, 2*OFF), bucket i = 0..127,\n"
               f" * r = lt_tab_log_r[i] (20 bits), z = m*r - 1 in [{mp.nstr(zmin, 8)}, {mp.nstr(zmax, 8)}],\n"
               " * -log(r) = ch[i] + cm[i] + cl[i] (ch a multiple of 2^-42).\n"
               f" * Q6 max rel error of z + z^2*Q6(z) vs log1p(z): {mp.nstr(e6, 4)} (2^{mp.nstr(mp.log(e6, 2), 4)})\n"
               f" * Q2 max rel error: {mp.nstr(e2, 4)} (2^{mp.nstr(mp.log(e2, 2), 4)})\n"
               " */\n")
    # OFF itself is written as a literal in lt_log.h (ltm_log_reduce)
    assert OFF == 0x3FE6700000000000
    out.append(arr("lt_tab_log_r", rs))
    out.append(arr("lt_tab_log_ch", chs))
    out.append(arr("lt_tab_log_cm", cms))
    out.append(arr("lt_tab_log_cl", cls))
    out.append("/* Q6: (log1p(z) - z)/z^2 ~ sum q6[j] z^j, j = 0..6 */\n" + arr("lt_tab_log_q6", q6))
    out.append("/* Q2: (log1p(z) - z)/z^2 ~ sum q2[j] z^j, j = 0..2 (fast float32) */\n" + arr("lt_tab_log_q2", q2))
    out.append("/* Taylor coefficients of log1p, (-1)^(j+1)/j for j = 1..14, as (hi, lo) pairs */\n"
               + arr("lt_tab_log_taylor", taylor, per=2))
    out.append("/* The vectorised first pass (ltm_log16_vec): 16 buckets from OFF16 = "
               f"{OFF16:#x} (0.765625),\n"
               f" * z = m*r - 1 in [{mp.nstr(zmin16, 8)}, {mp.nstr(zmax16, 8)}]; -log(r) = hi + lo "
               "(hi a multiple of 2^-42); rows: r, hi, lo.\n"
               f" * Q16 (degree {Q16_DEG}) max rel error of z + z^2*Q16(z) vs log1p(z): "
               f"{mp.nstr(e16, 4)} (2^{mp.nstr(mp.log(e16, 2), 4)}) */\n"
               f"#define LT_LOG16_OFF {OFF16:#x}ull\n#define LT_LOG16_QDEG {Q16_DEG}\n"
               + arr("lt_tab_log16", r16 + hi16 + lo16)
               + "/* the same by bucket (array of structures, the AVX2 lookups: one "
               "row load per lane): rows r, hi, lo, 0 */\n"
               + arr("lt_tab_log16_rows", [v for i in range(16) for v in (r16[i], hi16[i], lo16[i], 0.0)],
                     align=32)
               + arr("lt_tab_log16_q", q16))
    out.append("/* constants: " + "; ".join(f"[{j}] {n}" for j, (n, _) in enumerate(consts)) + " */\n"
               + arr("lt_tab_log_k", [v for _, v in consts], per=3))
    text = "".join(out)
    with open(OUT, "w") as f:
        f.write(text)
    print(text[:600])
    print("zmin", mp.nstr(zmin, 10), "zmax", mp.nstr(zmax, 10), "e6", mp.nstr(e6, 5), "e2", mp.nstr(e2, 5))
    print("log16: z in", mp.nstr(zmin16, 10), mp.nstr(zmax16, 10), "Q16 error",
          mp.nstr(e16, 5), "= 2^" + mp.nstr(mp.log(e16, 2), 5))


if __name__ == "__main__":
    main()
