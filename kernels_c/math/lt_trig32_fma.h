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

/* ---- fast mode: the float32 fast sin, cos and tan in float arithmetic, 2 LTM_GW lanes (8 on
 *   AVX2, 16 on AVX-512).  k = round(2|x|/pi) (the FMA with the 1.5 2^23 shifter; 2/pi in
 *   float moves 2|x|/pi by at most 2^-9.2 for |x| < 2^16: |r| <= pi/4 + 2^-8.5), pi/2 = PA + PB
 *   + PC + O(2^-76) (floats), r = |x| - k pi/2 as rh + rl:
 *   r1 = fma(-k, PA, |x|) is exact (k >= 1: |x| >= 0.78 and k PA are multiples of 2^-24, |r1|
 *   < 1); rh = fma(-k, PB, r1) rounds once.  A lane is left to the fallback where |rh| <
 *   k 0x1.2p-23 (>= 3 k |PB|: near a multiple of pi/2, so about k 2^-22.5 of the lanes);
 *   elsewhere |k PB| <= |r1 - k PB| / 3, so r1 - rh is exact (Sterbenz) and so is fma(-k,
 *   PB, r1 - rh), rh's rounding error (a multiple of 2^-48 below half rh's last place); rl
 *   adds -k PC with one more rounding: r within 2^-47 |r| of |x| - k pi/2.
 *   sin r = rh + (rh z S(z) + rl (1 - z/2)), cos r = 1 + (z (-1/2 + z C(z)) - rh rl), z =
 *   rh^2, S and C fitted by tools/fit_fast32.py (fit_sin_cos: 2^-27.8 and 2^-32.9 relative
 *   on |r| <= pi/4 + 2^-8).  tan: the quotient of the two (or of cos by sin, negated, for odd
 *   k), f0 = N / D of the rounded sums N = nh + nl, D = dh + dl, then f0 + R / D with R = (N
 *   - f0 D) + (nl's and dl's rounding errors: Fast2Sum) - f0 eD, the residual N - f0 D exact
 *   by one FMA, 1/D from a short series of sec r (the same operations on both paths: fast
 *   mode gives the same bits on AVX2 and AVX-512).
 *   |x| >= 2^16, inf and NaN are flagged as well; flagged lanes go through
 *   ltm_trig_sct_f32_fast (lt_trig.h) one by one.  sin(+-0) = tan(+-0) = +-0 and subnormal
 *   x give x without a special case (k = 0, rh = |x|, z = 0).  Measured maxima:
 *   docs/verification/sin-cos-tan-float32-fast-*.txt. */
typedef float ltm_tvf __attribute__((vector_size(8 * LTM_GW)));
typedef int32_t ltm_tvi __attribute__((vector_size(8 * LTM_GW)));
#undef LTM_TFMA
#if LTM_GW == 8
#define LTM_TFMA(a, b, c) ((ltm_tvf)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#else
#define LTM_TFMA(a, b, c) ((ltm_tvf)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#endif
static inline __attribute__((always_inline)) ltm_tvf ltm_tsel(ltm_tvi m, ltm_tvf a, ltm_tvf b)
{
    return (ltm_tvf)(((ltm_tvi)a & m) | ((ltm_tvi)b & ~m));
}
static inline __attribute__((always_inline)) ltm_tvf ltm_trig32_fast_vec(int which, ltm_tvf x,
                                                                         ltm_tvi *flag)
{
    const float pa = 0x1.921fb6p+0f, pb = -0x1.777a5cp-25f, pc = -0x1.ee59dap-50f;
    const float s0 = -0x1.555544p-3f, s1 = 0x1.1106c6p-7f, s2 = -0x1.991bf4p-13f;
    const float c0 = 0x1.55554ap-5f, c1 = -0x1.6c0c1ep-10f, c2 = 0x1.99e338p-16f;
    const ltm_tvf zero = { 0 };
    ltm_tvi sx = (ltm_tvi)x & INT32_MIN;
    ltm_tvf ax = (ltm_tvf)((ltm_tvi)x ^ sx);
    ltm_tvf t = LTM_TFMA(ax, zero + 0x1.45f306p-1f, zero + 0x1.8p23f);
    ltm_tvf k = t - 0x1.8p23f;
    ltm_tvf r1 = LTM_TFMA(k, zero - pa, ax);
    ltm_tvf r = LTM_TFMA(k, zero - pb, r1);
    ltm_tvf rl = LTM_TFMA(k, zero - pc, LTM_TFMA(k, zero - pb, r1 - r));
    ltm_tvf ar = (ltm_tvf)((ltm_tvi)r & 0x7FFFFFFF);
    *flag = ~(ax < 0x1p16f) | (ar < k * 0x1.2p-23f);
    ltm_tvf z = r * r;
    ltm_tvf ps = LTM_TFMA(z, LTM_TFMA(z, zero + s2, zero + s1), zero + s0);
    ltm_tvf pcz = LTM_TFMA(z, LTM_TFMA(z, zero + c2, zero + c1), zero + c0);
    ltm_tvf nl = LTM_TFMA(r * z, ps, LTM_TFMA(z * -0.5f, rl, rl));
    ltm_tvf dl = LTM_TFMA(z, LTM_TFMA(z, pcz, zero - 0.5f), -(r * rl));
    ltm_tvf sn = r + nl, cs = 1.0f + dl;
    ltm_tvi q = (ltm_tvi)t;                 /* k in the low bits */
    ltm_tvi odd = q << 31, m = odd >> 31;
    if (which == 0)
        return (ltm_tvf)((ltm_tvi)ltm_tsel(m, cs, sn) ^ ((q << 30) & INT32_MIN) ^ sx);
    if (which == 1)
        return (ltm_tvf)((ltm_tvi)ltm_tsel(m, sn, cs) ^ (((q + 1) << 30) & INT32_MIN));
    ltm_tvf en = nl - (sn - r), ed = dl - (cs - 1.0f);
    ltm_tvf num = ltm_tsel(m, cs, sn), den = ltm_tsel(m, sn, cs);
    ltm_tvf enum_ = ltm_tsel(m, ed, en), eden = ltm_tsel(m, en, ed);
    ltm_tvf f0 = num / den;
    ltm_tvf res = LTM_TFMA(zero - f0, eden, LTM_TFMA(zero - f0, den, num) + enum_);
    /* 1/D to 2%: sec r by 1 + z/2 + 5 z^2/24, times f0 (cos/sin) for 1/sin r */
    ltm_tvf sec = LTM_TFMA(z, LTM_TFMA(z, zero + 0x1.aaaaaap-3f, zero + 0.5f), zero + 1.0f);
    ltm_tvf rd = ltm_tsel(m, f0 * sec, sec);
    return (ltm_tvf)((ltm_tvi)LTM_TFMA(res, rd, f0) ^ odd ^ sx);
}
/* the pass over a chunk (the tail through a zero-padded vector), then the flagged elements */
static inline __attribute__((always_inline)) void ltm_trig32_fast_chunk(int which, int64_t n,
                                                                        float *restrict o,
                                                                        const float *restrict a)
{
    enum { W = 2 * LTM_GW };
    int32_t flag[LT_CHUNK + W];
    ltm_tvi any = { 0 }, f;
    ltm_tvf v;
    int64_t i = 0;
    for (; i + W <= n; i += W) {
        memcpy(&v, a + i, sizeof v);
        v = ltm_trig32_fast_vec(which, v, &f);
        memcpy(o + i, &v, sizeof v);
        memcpy(flag + i, &f, sizeof f);
        any |= f;
    }
    if (i < n) {
        float t[W] = { 0 };
        memcpy(t, a + i, (size_t)(n - i) * sizeof(float));
        memcpy(&v, t, sizeof v);
        v = ltm_trig32_fast_vec(which, v, &f);
        memcpy(t, &v, sizeof v);
        memcpy(o + i, t, (size_t)(n - i) * sizeof(float));
        memcpy(flag + i, &f, sizeof f);
        any |= f;
    }
    int32_t anyf = 0;
    for (int j = 0; j < W; j++) anyf |= any[j];
    if (anyf)
        for (int64_t j = 0; j < n; j++)
            if (flag[j]) o[j] = ltm_trig_sct_f32_fast(which, a[j]);
}
static inline void ltm_sin_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_trig32_fast_chunk(0, n, o, a); }
static inline void ltm_cos_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_trig32_fast_chunk(1, n, o, a); }
static inline void ltm_tan_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_trig32_fast_chunk(2, n, o, a); }
#endif
