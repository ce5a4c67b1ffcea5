/* The float32 exact sin, cos and tan, continued (lt_trig.h): on the FMA paths (AVX2, AVX-512) a
 * first pass of their own (issue 41) for |x| <= 2^18, correctly rounded on each path on its
 * own (docs/first-passes.md), the AVX2 and AVX-512 paths computing the same FMAs in the same
 * order (4 or 8 lanes), so the same bits.  The generic path keeps lt_trig.h's chunk (its
 * Cody-Waite pass without FMA), which is also the fallback here.  Uses the exp family's vector
 * helpers (LTM_VFMA, ltm_exp32_clear_w: lt_exp32_fma.h).  Pasted after lt_trig.h into every
 * kernel path (build_kernels.MATH_FAMILIES). */

#if LTM_GW == 8 || (LTM_GW == 4 && defined(__FMA__))
/* ---- the pass: y = +-sin r, r = |x| - n pi/2, |r| <= pi/2, one polynomial for both.
 *   sin: n = 2j, j = round(|x|/pi) (the FMA with the 1.5 2^52 shifter), sin x = sx (-1)^j
 *   sin r; cos: n = 2j + 1, j = round(|x|/pi - 1/2) (the FMA, then the shifter), cos x =
 *   -(-1)^j sin r.  1/pi rounded and the FMA's rounding move |x|/pi by < 2^-35: |r| <=
 *   pi/2 + 2^-33, n <= 166887.
 *   Reduction, pi/2 = P1 + P2 + P3 (P1, P2 doubles, |P3| < 2^-109; tools/fit_trig32_fma.py):
 *   r1 = fma(n, -P1, |x|) is exact when n >= 1 and |x| >= 1 (both terms multiples of 2^-52,
 *   |r1| < 2); n = 0 gives r1 = |x|; the one other case (cos, |x| < 1, n = 1) rounds, with
 *   |r| >= pi/2 - 1.  r = fma(n, -P2, r1): one rounding, 2^-53 |r|, and the dropped n |P3|
 *   < 2^-91.7 against |r| >= 2^-27.83 (the closest a float32 in [1, 2^18] comes to a multiple
 *   of pi/2: the script scans every n): r within 1.01 2^-53 |r| of |x| - n pi/2 (3.8 2^-53
 *   in the rounded case), and sin r within the same (|r cot r| <= 1).
 *   sin r by p = r + r^3 S(r^2), S of degree 5: the Chebyshev interpolant of (sin r - r)/r^3
 *   in r^2 on |r| <= pi/2 (1 + 2^-12), coefficients rounded to double (the script): method
 *   error below 2^-41.53 relative.  S by Estrin (z = r^2, z^2, three pairs, two FMAs): its
 *   roundings below 0.37 2^-53 absolute (|S| <= 1/6); r z rounded twice, 2 2^-53 of |r^3 S|
 *   <= 0.571 |sin r|; |r|^3 <= 3.88 |sin r|; the last FMA 2^-53: p within 4 2^-53 plus the
 *   method error.  In all y within 2^-41.5 |y| (2^11.5 units of its last place): Ziv's test
 *   at 2^13 units, about one element in 2^15 flagged.
 *   |x| < 2^-26: p = r = |x| exactly (r^3/6 is below half r's last place), y = x, sin x
 *   correctly rounded (subnormal x too); otherwise |y| > 2^-29 is a normal float32 value. */
static inline __attribute__((always_inline)) ltm_gvd ltm_trig32_sin_poly(ltm_gvd r, ltm_gvd z,
                                                                          ltm_gvd z2)
{
    static const double S[6] = {
        -0x1.55555555549c3p-3, 0x1.1111110fbf77cp-7, -0x1.a01a0010f73b1p-13,
        0x1.71dd8da2cf454p-19, -0x1.ae20b42a09a25p-26, 0x1.54e5dd0034955p-33 };
    const ltm_gvd zero = { 0 };
    ltm_gvd s01 = LTM_VFMA(zero + S[1], z, zero + S[0]);
    ltm_gvd s23 = LTM_VFMA(zero + S[3], z, zero + S[2]);
    ltm_gvd s45 = LTM_VFMA(zero + S[5], z, zero + S[4]);
    ltm_gvd s = LTM_VFMA(LTM_VFMA(s45, z2, s23), z2, s01);
    return LTM_VFMA(r * z, s, r);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_trig32_vec(int cos, ltm_gvf xf,
                                                                    ltm_gvl *clear)
{
    const double inv_pi = 0x1.45f306dc9c883p-2, shifter = 0x1.8p52;
    const double p1 = 0x1.921fb54442d18p+0, p2 = 0x1.1a62633145c07p-54;
    const ltm_gvd zero = { 0 };
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvl sx = (ltm_gvl)x & INT64_MIN;
    ltm_gvd ad = (ltm_gvd)((ltm_gvl)x ^ sx);
    ltm_gvd tk = cos ? LTM_VFMA(ad, zero + inv_pi, zero - 0.5) + shifter
                     : LTM_VFMA(ad, zero + inv_pi, zero + shifter);
    ltm_gvd j = tk - shifter;
    ltm_gvd n = cos ? LTM_VFMA(j, zero + 2.0, zero + 1.0) : j + j;
    ltm_gvd r = LTM_VFMA(n, zero - p2, LTM_VFMA(n, zero - p1, ad));
    ltm_gvd z = r * r;
    ltm_gvd y = ltm_trig32_sin_poly(r, z, z * z);
    /* the sign: j's parity is the shifter's last bit */
    y = (ltm_gvd)((ltm_gvl)y ^ ((ltm_gvl)tk << 63) ^ (cos ? (ltm_gvl){ 0 } + INT64_MIN : sx));
    *clear = ltm_exp32_clear_w(y, 0x2000);
    return __builtin_convertvector(y, ltm_gvf);
}

/* ---- tan: r = |x| - k pi/2, k = round(2|x|/pi) (the FMA with the shifter), |r| <= pi/4 +
 *   2^-34; tan x = sx sin r / cos r (k even) or -sx cos r / sin r (k odd).  r as above (two
 *   FMAs; r1 exact for every k >= 1, |x| >= pi/4 - 2^-34 being a multiple of 2^-24): within
 *   1.01 2^-53 |r|, which moves tan r and cot r by |dr / (sin r cos r)| <= 1.58 2^-53.
 *   sin r by the polynomial above: its method error on |r| <= pi/4 (1 + 2^-12) below 2^-44.0
 *   (the script), its roundings below 3 2^-53 (|r|^3 <= 0.69 |sin r| here).  cos r = 1 + z
 *   (-1/2 + z C(z)), C of degree 4 (the Chebyshev interpolant of (cos r - 1 + r^2/2)/r^4 in z
 *   = r^2, coefficients rounded to double: 2^-49.73), roundings below 2 2^-53 (cos r >=
 *   0.707).  The quotient: 2^-53 more.  y within 2^-43.9 |y| (2^9.1 units): Ziv's test at
 *   2^11 units.  |x| < 2^-26: sin r = r, cos r = 1, y = x exactly. */
static inline __attribute__((always_inline)) ltm_gvf ltm_tan32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    static const double C[5] = {
        0x1.5555555555436p-5, -0x1.6c16c16b60f52p-10, 0x1.a019ff52ca472p-16,
        -0x1.27e25ea5101b7p-22, 0x1.1c81762a07179p-29 };
    const double two_over_pi = 0x1.45f306dc9c883p-1, shifter = 0x1.8p52;
    const double p1 = 0x1.921fb54442d18p+0, p2 = 0x1.1a62633145c07p-54;
    const ltm_gvd zero = { 0 };
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvl sx = (ltm_gvl)x & INT64_MIN;
    ltm_gvd ad = (ltm_gvd)((ltm_gvl)x ^ sx);
    ltm_gvd tk = LTM_VFMA(ad, zero + two_over_pi, zero + shifter);
    ltm_gvd k = tk - shifter;
    ltm_gvd r = LTM_VFMA(k, zero - p2, LTM_VFMA(k, zero - p1, ad));
    ltm_gvd z = r * r, z2 = z * z;
    ltm_gvd sn = ltm_trig32_sin_poly(r, z, z2);
    ltm_gvd c01 = LTM_VFMA(zero + C[1], z, zero + C[0]);
    ltm_gvd c23 = LTM_VFMA(zero + C[3], z, zero + C[2]);
    ltm_gvd c = LTM_VFMA(LTM_VFMA(zero + C[4], z2, c23), z2, c01);
    ltm_gvd cs = LTM_VFMA(z, LTM_VFMA(z, c, zero - 0.5), zero + 1.0);
    ltm_gvl odd = (ltm_gvl)tk << 63;
    ltm_gvl m = odd >> 63;
    ltm_gvd num = (ltm_gvd)(((ltm_gvl)cs & m) | ((ltm_gvl)sn & ~m));
    ltm_gvd den = (ltm_gvd)(((ltm_gvl)sn & m) | ((ltm_gvl)cs & ~m));
    ltm_gvd y = (ltm_gvd)((ltm_gvl)(num / den) ^ odd ^ sx);
    *clear = ltm_exp32_clear_w(y, 0x800);
    return __builtin_convertvector(y, ltm_gvf);
}

/* NAME_f32_chunk (WHICH: 0 sin, 1 cos, 2 tan): the pass VEC on vectors v (the tail through a
 * zero-padded vector), the largest |x| kept on the way; a chunk with an |x| above 2^18 (inf,
 * NaN) goes whole through lt_trig.h's chunk (NAME_f32_pass_chunk, the table reduction for
 * those), else the flagged elements through its one-element pass (then its double-double
 * path). */
#undef LTM_TRIG32_FMA_CHUNK
#define LTM_TRIG32_FMA_CHUNK(NAME, WHICH, VEC)                                              \
    static inline void NAME##_f32_chunk(int64_t n, float *restrict o, const float *restrict a) \
    {                                                                                       \
        int64_t clear[LT_CHUNK + LTM_GW];                                                   \
        ltm_gvl all = (ltm_gvl){ 0 } - 1;                                                   \
        ltm_gvi amax = { 0 };                                                               \
        int64_t i = 0;                                                                      \
        for (; i + LTM_GW <= n; i += LTM_GW) {                                              \
            ltm_gvf v;                                                                      \
            ltm_gvl m;                                                                      \
            memcpy(&v, a + i, sizeof v);                                                    \
            amax = LTM_VMAXS(amax, (ltm_gvi)v & 0x7FFFFFFF);                                \
            v = VEC;                                                 \
            memcpy(o + i, &v, sizeof v);                                                    \
            memcpy(clear + i, &m, sizeof m);                                                \
            all &= m;                                                                       \
        }                                                                                   \
        if (i < n) {                                                                        \
            float t[LTM_GW] = { 0 };                                                        \
            memcpy(t, a + i, (size_t)(n - i) * sizeof(float));                             \
            ltm_gvf v;                                                                      \
            ltm_gvl m;                                                                      \
            memcpy(&v, t, sizeof v);                                                        \
            amax = LTM_VMAXS(amax, (ltm_gvi)v & 0x7FFFFFFF);                                \
            v = VEC;                                                 \
            memcpy(t, &v, sizeof v);                                                        \
            memcpy(o + i, t, (size_t)(n - i) * sizeof(float));                              \
            memcpy(clear + i, &m, sizeof m);                                                \
            all &= m;                                                                       \
        }                                                                                   \
        int64_t flagged = 0;                                                                \
        int32_t out = 0;                                                                    \
        for (int j = 0; j < LTM_GW; j++) {                                                  \
            flagged |= ~all[j];                                                             \
            out |= amax[j] > 0x48800000;                                     /* 2^18 */     \
        }                                                                                   \
        if (out)                                                                            \
            NAME##_f32_pass_chunk(n, o, a);                                                 \
        else if (flagged)                                                                   \
            for (int64_t j = 0; j < n; j++)                                                 \
                if (!clear[j]) o[j] = ltm_trig_sct_f32(WHICH, a[j]);                          \
    }

LTM_TRIG32_FMA_CHUNK(ltm_sin, 0, ltm_trig32_vec(0, v, &m))
LTM_TRIG32_FMA_CHUNK(ltm_cos, 1, ltm_trig32_vec(1, v, &m))
LTM_TRIG32_FMA_CHUNK(ltm_tan, 2, ltm_tan32_vec(v, &m))
#endif
