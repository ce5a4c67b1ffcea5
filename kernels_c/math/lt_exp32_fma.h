/* The exp family, continued (lt_exp.h): the float32 exact exp, expm1, sigmoid, silu, tanh,
 * sinh and cosh.  On the FMA paths (AVX2, AVX-512) each has a first pass of its own (issue 41):
 * correctly rounded on each path on its own (docs/exact-math.md), the AVX2 and AVX-512 paths
 * computing the same FMAs in the same order (4 or 8 lanes), so the same bits.  The generic
 * path keeps the no-FMA two-pass forms of lt_exp.h (ltm_exp_two_pass), verified on their own.
 * Pasted after lt_exp.h into every kernel path (build_kernels.MATH_FAMILIES). */

#if LTM_GW == 8 || (LTM_GW == 4 && defined(__FMA__))
/* ---- the exp core -------------------------------------------------------------------------
 * exp(x) in double for x in [-87.33, 88.72] (callers clamp, or redo the others).  No table.
 *   k = round(x / ln2) (an FMA with the 1.5 2^52 shifter; |k| <= 128), r = fma(-k, ln2_d, x)
 *   with ln2_d = RN(ln2): error |k| |ln2 - ln2_d| + 2^-53 |r| < 2^-48.2, |r| <= ln2/2 + 2^-48.
 *   exp(r) by E(r) of degree 8: the Chebyshev interpolant of e^r on |r| <= ln2/2 (1 + 2^-12),
 *   coefficients rounded to double (tools/fit_exp32_fma.py): method error below 2^-39.76
 *   relative.  Estrin's scheme (r^2, r^4, four pairs, two quads, two FMAs: the loop is bound
 *   by latency with Horner's 8 dependent FMAs): the roundings add below 2^-53 4.4 absolute
 *   (r^2, r^4: 2^-53, 3 2^-53 relative; e01 = 1 + r: 1.35, e03: 1.42 + 1.35 + 0.13, the
 *   r^4 term below 0.01), below 2^-50.3 relative (E >= 0.707).  y = E 2^k by an integer
 *   add of k to the exponent field (exact: y stays a normal double).
 *   In all y is within 2^-39.74 |y| of exp(x). */
#undef LTM_VFMA
#undef LTM_VMAXS
#undef LTM_VMAXU
#undef LTM_VMINU
#undef LTM_VMINF
#undef LTM_VMAXF
#if LTM_GW == 8
#define LTM_VFMA(a, b, c) ((ltm_gvd)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
#define LTM_VMAXS(m, v) ((ltm_gvi)_mm256_max_epi32((__m256i)(m), (__m256i)(v)))
#define LTM_VMAXU(m, v) ((ltm_gvi)_mm256_max_epu32((__m256i)(m), (__m256i)(v)))
#define LTM_VMINU(m, v) ((ltm_gvi)_mm256_min_epu32((__m256i)(m), (__m256i)(v)))
#define LTM_VMINF(a, b) ((ltm_gvf)_mm256_min_ps((__m256)(a), (__m256)(b)))
#define LTM_VMAXF(a, b) ((ltm_gvf)_mm256_max_ps((__m256)(a), (__m256)(b)))
#else
#define LTM_VFMA(a, b, c) ((ltm_gvd)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#define LTM_VMAXS(m, v) ((ltm_gvi)_mm_max_epi32((__m128i)(m), (__m128i)(v)))
#define LTM_VMAXU(m, v) ((ltm_gvi)_mm_max_epu32((__m128i)(m), (__m128i)(v)))
#define LTM_VMINU(m, v) ((ltm_gvi)_mm_min_epu32((__m128i)(m), (__m128i)(v)))
#define LTM_VMINF(a, b) ((ltm_gvf)_mm_min_ps((__m128)(a), (__m128)(b)))
#define LTM_VMAXF(a, b) ((ltm_gvf)_mm_max_ps((__m128)(a), (__m128)(b)))
#endif
/* LTM_VMAXS, LTM_VMAXU, LTM_VMINU: the lane-wise signed max, unsigned max and min of float bits;
 * LTM_VMINF(a, b): a < b ? a : b per lane (b where a is NaN); LTM_VMAXF(a, b): a > b ? a : b */

static inline __attribute__((always_inline)) ltm_gvd ltm_exp32_core(ltm_gvd x)
{
    static const double E[9] = {
        0x1.0000000000000p+0, 0x1.ffffffffd375dp-1, 0x1.fffffffff7188p-2,
        0x1.555555a28ae15p-3, 0x1.55555574346c2p-5, 0x1.11108089dfed4p-7,
        0x1.6c164dd75c7b9p-10, 0x1.a1aab13a7dff3p-13, 0x1.a15a77b1eb712p-16 };
    const double inv_ln2 = 0x1.71547652b82fep+0, ln2 = 0x1.62e42fefa39efp-1, shifter = 0x1.8p52;
    const ltm_gvd zero = { 0 };
    ltm_gvd tk = LTM_VFMA(x, zero + inv_ln2, zero + shifter);
    ltm_gvd r = LTM_VFMA(tk - shifter, zero - ln2, x);
    ltm_gvd r2 = r * r, r4 = r2 * r2;
    ltm_gvd e01 = LTM_VFMA(zero + E[1], r, zero + E[0]);
    ltm_gvd e23 = LTM_VFMA(zero + E[3], r, zero + E[2]);
    ltm_gvd e45 = LTM_VFMA(zero + E[5], r, zero + E[4]);
    ltm_gvd e67 = LTM_VFMA(zero + E[7], r, zero + E[6]);
    ltm_gvd e03 = LTM_VFMA(e23, r2, e01), e47 = LTM_VFMA(e67, r2, e45);
    ltm_gvd e = LTM_VFMA(LTM_VFMA(zero + E[8], r4, e47), r4, e03);
    /* k into the exponent field: the shifter's low 12 bits are zero */
    return (ltm_gvd)((ltm_gvl)e + ((ltm_gvl)tk << 52));
}

/* Ziv's test for a result y within 2^-39.73 |y| (2^13.27 units of its last place): *clear
 * when no float32 midpoint lies within 2^15 units of y (over 3x the bound; about one element
 * in 2^13 is flagged; ltm_exp32_clear_w: within w units), one compare.  A y that is clear
 * rounds to the correctly rounded float32 (y is a normal float32 here: the callers redo the
 * others). */
static inline __attribute__((always_inline)) ltm_gvl ltm_exp32_clear_w(ltm_gvd y, int64_t w)
{
    return (((ltm_gvl)y + ((int64_t)0x10000000 + w)) & 0x1FFFFFFF) > 2 * w;
}
static inline __attribute__((always_inline)) ltm_gvl ltm_exp32_clear(ltm_gvd y)
{
    return ltm_exp32_clear_w(y, 0x8000);
}

/* NAME_f32_chunk and NAME_f32 from a first pass VEC (ltm_gvf VEC(ltm_gvf x, ltm_gvl *clear),
 * right for x in [LO, HI]): vectors (the tail through a zero-padded vector), the extreme bits
 * of the inputs kept on the way (LO < 0: one unsigned and one signed max: as unsigned, the
 * floats below LO, -inf and negative NaNs lie above bits(LO); as signed, those above HI, +inf
 * and positive NaNs above bits(HI).  LO > 0 (the log family): an unsigned max, where the
 * floats above HI, +inf, NaNs and all x <= -0 lie above bits(HI), and an unsigned min, where
 * those below LO lie below bits(LO)); then the flagged elements and, in a chunk that has them,
 * the x outside [LO, HI] (NaN too: what the vectors made of them is not kept) redone by ACC
 * (float ACC(float)). */
#undef LTM_EXP32_TWO_PASS
#define LTM_EXP32_TWO_PASS(NAME, VEC, ACC, LO, HI)                                           \
    static inline void NAME##_f32_chunk(int64_t n, float *restrict o,                       \
                                        const float *restrict a)                             \
    {                                                                                        \
        const float lo = LO, hi = HI;                                                        \
        uint32_t lo_bits, hi_bits;                                                           \
        memcpy(&lo_bits, &lo, 4);                                                            \
        memcpy(&hi_bits, &hi, 4);                                                            \
        int64_t clear[LT_CHUNK + LTM_GW];                                                    \
        ltm_gvl all = (ltm_gvl){ 0 } - 1;                                                    \
        ltm_gvi smax = { 0 }, umax = { 0 }, umin = smax - 1;                                 \
        int64_t i = 0;                                                                       \
        for (; i + LTM_GW <= n; i += LTM_GW) {                                               \
            ltm_gvf v;                                                                       \
            ltm_gvl m;                                                                       \
            memcpy(&v, a + i, sizeof v);                                                     \
            if (lo > 0) umin = LTM_VMINU(umin, v); else smax = LTM_VMAXS(smax, v);           \
            umax = LTM_VMAXU(umax, v);                                                       \
            v = VEC(v, &m);                                                                  \
            memcpy(o + i, &v, sizeof v);                                                     \
            memcpy(clear + i, &m, sizeof m);                                                 \
            all &= m;                                                                        \
        }                                                                                    \
        if (i < n) {                                                                         \
            float t[LTM_GW] = { 0 };                                                         \
            for (int j = 0; lo > 0 && j < LTM_GW; j++) t[j] = lo;   /* padding in range */  \
            memcpy(t, a + i, (size_t)(n - i) * sizeof(float));                              \
            ltm_gvf v;                                                                       \
            ltm_gvl m;                                                                       \
            memcpy(&v, t, sizeof v);                                                         \
            if (lo > 0) umin = LTM_VMINU(umin, v); else smax = LTM_VMAXS(smax, v);           \
            umax = LTM_VMAXU(umax, v);                                                       \
            v = VEC(v, &m);                                                                  \
            memcpy(t, &v, sizeof v);                                                         \
            memcpy(o + i, t, (size_t)(n - i) * sizeof(float));                               \
            memcpy(clear + i, &m, sizeof m);                                                 \
            all &= m;                                                                        \
        }                                                                                    \
        int64_t flagged = 0;                                                                 \
        int32_t out = 0;                                                                     \
        for (int j = 0; j < LTM_GW; j++) {                                                   \
            flagged |= ~all[j];                                                              \
            out |= lo > 0 ? ((uint32_t)umax[j] > hi_bits) | ((uint32_t)umin[j] < lo_bits)    \
                          : ((uint32_t)umax[j] > lo_bits) | (smax[j] > (int32_t)hi_bits);    \
        }                                                                                    \
        if (flagged | out) {     /* the elements to redo gathered without a branch: a     \
                                    * chunk of mixed signs (log) would mispredict them */    \
            int32_t need[LT_CHUNK + LTM_GW], at[LT_CHUNK + LTM_GW];                          \
            double xb[LT_CHUNK + LTM_GW];                                                    \
            for (int64_t j = 0; j < n; j++)                                                  \
                need[j] = (clear[j] == 0) | !((a[j] >= lo) & (a[j] <= hi));                  \
            const int64_t m = lt_gather_flagged(n, a, need, at, xb);                         \
            for (int64_t k = 0; k < m; k++) o[at[k]] = ACC((float)xb[k]);                    \
        }                                                                                    \
    }                                                                                        \
    static inline float NAME##_f32(float x)                                                  \
    {                                                                                        \
        float y;                                                                             \
        NAME##_f32_chunk(1, &y, &x);                                                         \
        return y;                                                                            \
    }

/* NAME_f32_accurate of each function: the generic path's no-FMA pass, then its accurate path */
LTM_EXP32_FAMILY(ltm_exp_define_accurate)

/* ---- exp: y = the core's exp(x), x in [-87.33, 88.72] (exp(-87.33) > 2^-126: a normal
 * float32; exp(88.72) < FLT_MAX).  The chunk redoes the rest (float32-subnormal results,
 * overflow, NaN) and the flagged elements with ltm_exp_f32_accurate: the generic path's no-FMA
 * pass (its own test), then the double-double exp. */
static inline __attribute__((always_inline)) ltm_gvf ltm_exp32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    ltm_gvd y = ltm_exp32_core(ltm_vwiden(xf));
    *clear = ltm_exp32_clear(y);
    return __builtin_convertvector(y, ltm_gvf);
}
LTM_EXP32_TWO_PASS(ltm_exp, ltm_exp32_vec, ltm_exp_f32_accurate, -87.33f, 88.72f)

/* ---- sigmoid and silu: E = exp(-a), a = min(|x|, 87.33) (in float), by the core (2^-39.74);
 * sigmoid = N / (1 + E) with N = 1 (x >= 0) or E (x < 0), silu = x sigmoid.  The error of E
 * reaches the quotient scaled by at most 1 (E / (1 + E) <= 1, 1 / (1 + E) <= 1), the sum, the
 * division and silu's product add 3 2^-53: within 2^-39.73 |y|, the test above.  For x > 87.33
 * the clamp changes nothing that shows: sigmoid and silu round to 1 and x from x = 17.33 on,
 * and so do the clamped quotients (E(87.33) < 2^-125).  The chunk redoes x < -87.33 (results
 * near or below 2^-126) and NaN, and the flagged elements, with the generic path's pass. */
typedef uint32_t ltm_exp32_vu __attribute__((vector_size(4 * LTM_GW)));

/* b where s has its sign bit set (x < 0, -0, negative NaN), else a */
static inline __attribute__((always_inline)) ltm_gvd ltm_exp32_signsel(ltm_gvd a, ltm_gvd b,
                                                                       ltm_gvd s)
{
#if LTM_GW == 8
    __mmask8 neg = _mm512_cmplt_epi64_mask((__m512i)s, _mm512_setzero_si512());
    return (ltm_gvd)_mm512_mask_blend_pd(neg, (__m512d)a, (__m512d)b);
#else
    return (ltm_gvd)_mm256_blendv_pd((__m256d)a, (__m256d)b, (__m256d)s);
#endif
}
static inline __attribute__((always_inline)) ltm_gvf ltm_sigmoid32_any(ltm_gvf xf, ltm_gvl *clear,
                                                                       int times_x)
{
    const ltm_gvf fzero = { 0 };
    const ltm_gvd zero = { 0 };
    ltm_gvi ab = (ltm_gvi)xf & 0x7FFFFFFF;
    ltm_gvf na = (ltm_gvf)((ltm_gvi)LTM_VMINF((ltm_gvf)ab, fzero + 87.33f) | (int32_t)0x80000000);
    ltm_gvd e = ltm_exp32_core(ltm_vwiden(na));                      /* E = exp(-a) */
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvd y = ltm_exp32_signsel(zero + 1.0, e, x) / (e + 1.0);          /* -0: E = 1 */
    if (times_x)
        y = x * y;
    *clear = ltm_exp32_clear(y);
    if (times_x) {
        /* 0 < |x| < 2^-124: silu may be float32-subnormal (other rounding boundaries), so
         * not clear: 1 <= bits < bits(2^-124), as bits + 2^31 - 1 compared signed */
        ltm_exp32_vu t = (ltm_exp32_vu)ab + 0x7FFFFFFFu;
        ltm_gvi tiny = (ltm_gvi)t < (int32_t)(0x01800000u + 0x7FFFFFFFu);
        *clear &= ~__builtin_convertvector(tiny, ltm_gvl);
    }
    return __builtin_convertvector(y, ltm_gvf);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_sigmoid32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    return ltm_sigmoid32_any(xf, clear, 0);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_silu32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    return ltm_sigmoid32_any(xf, clear, 1);
}
LTM_EXP32_TWO_PASS(ltm_sigmoid, ltm_sigmoid32_vec, ltm_sigmoid_f32_accurate, -87.33f,
                   __builtin_inff())
LTM_EXP32_TWO_PASS(ltm_silu, ltm_silu32_vec, ltm_silu_f32_accurate, -87.33f, __builtin_inff())

/* ---- the expm1 core: expm1(z) in double for z in [-20, 89.5] (tanh's, expm1's and sinh's).
 *   No table.  k, r as in the exp core: -29 <= k <= 130, so |r - (z - k ln2)| <= 130 |ln2 -
 *   ln2_d| + 2^-53 |r| < 2^-48.2 (k = 0: r = z exactly); |r| <= ln2/2 (1 + 2^-44).
 *   p = e^r - 1 = r + r^2 T(r), T of degree 7: the Chebyshev interpolant of (e^r - 1 - r)/r^2
 *   on |r| <= ln2/2 (1 + 2^-12), coefficients rounded to double (tools/fit_exp32_fma.py): p
 *   within 2^-42.34 |e^r - 1|.  T by Estrin (as E above); r^2 T <= 0.23 |p|, so its roundings
 *   (below 6 2^-53 relative) and the last FMA's add below 2.5 2^-53 |p|: p within 2^-42.33.
 *   m = fma(s, p, s - 1), s = 2^k (k into the exponent bits of 1; s - 1 exact, k >= -29): p's
 *   error scaled by s |p| / |m| <= sqrt 2 (k = 1, r = -ln2/2; 1 for k = 0, below 0.71
 *   otherwise), r's error by (m + 1) / |m| <= 3.42 (k != 0), the FMA's rounding 2^-53:
 *   m within 2^-41.77 |expm1(z)|. */
static inline __attribute__((always_inline)) ltm_gvd ltm_expm1_32_core(ltm_gvd z)
{
    static const double T[8] = {
        0x1.fffffffffe059p-2, 0x1.5555555554f94p-3, 0x1.55555565cb85ep-5,
        0x1.111111170d13bp-7, 0x1.6c166bd1f2d88p-10, 0x1.a019c3628ffd6p-13,
        0x1.a136d40e0a8c4p-16, 0x1.72ad54cbd3312p-19 };
    const double inv_ln2 = 0x1.71547652b82fep+0, ln2 = 0x1.62e42fefa39efp-1, shifter = 0x1.8p52;
    const ltm_gvd zero = { 0 };
    ltm_gvd tk = LTM_VFMA(z, zero + inv_ln2, zero + shifter);
    ltm_gvd r = LTM_VFMA(tk - shifter, zero - ln2, z);
    ltm_gvd r2 = r * r, r4 = r2 * r2;
    ltm_gvd t01 = LTM_VFMA(zero + T[1], r, zero + T[0]);
    ltm_gvd t23 = LTM_VFMA(zero + T[3], r, zero + T[2]);
    ltm_gvd t45 = LTM_VFMA(zero + T[5], r, zero + T[4]);
    ltm_gvd t67 = LTM_VFMA(zero + T[7], r, zero + T[6]);
    ltm_gvd t03 = LTM_VFMA(t23, r2, t01), t47 = LTM_VFMA(t67, r2, t45);
    ltm_gvd p = LTM_VFMA(r2, LTM_VFMA(t47, r4, t03), r);
    ltm_gvd s = (ltm_gvd)(((ltm_gvl)tk << 52) + 0x3FF0000000000000);
    return LTM_VFMA(s, p, s - 1.0);
}

/* ---- tanh: y = m / (m + 2), m = the expm1 core at z = 2a, a = min(|x|, 10) (in float; z
 * exact), the sign of x put back on the float32 result.  m's error scaled by 2 / (m + 2) <= 1,
 * the add and the division 2 2^-53: y within 2^-41.7 |y| < 2^11.3 units of its last place, so
 * Ziv's test at 2^13 units (about one element in 2^15 flagged).  tanh rounds to 1 from
 * |x| = 9.01 on, and so does y(10).  For a <= 2^-54 every step is exact (r = z, p = r,
 * m = z, m + 2 = 2) and y = a: the float32 x itself, tanh(x) correctly rounded (subnormal x
 * too: |x - tanh x| < |x|^3); above, |y| > 2^-55 is a normal float32 value.  The chunk redoes
 * NaN (the clamp made it 10) and the flagged elements with the generic path's pass. */
static inline __attribute__((always_inline)) ltm_gvf ltm_tanh32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    const ltm_gvf fzero = { 0 };
    ltm_gvi sign = (ltm_gvi)xf & (int32_t)0x80000000;
    ltm_gvf a = LTM_VMINF((ltm_gvf)((ltm_gvi)xf & 0x7FFFFFFF), fzero + 10.0f);
    ltm_gvd z = ltm_vwiden(a);
    ltm_gvd m = ltm_expm1_32_core(z + z);
    ltm_gvd y = m / (m + 2.0);
    *clear = ltm_exp32_clear_w(y, 0x2000);
    return (ltm_gvf)((ltm_gvi)__builtin_convertvector(y, ltm_gvf) | sign);
}
LTM_EXP32_TWO_PASS(ltm_tanh, ltm_tanh32_vec, ltm_tanh_f32_accurate, -__builtin_inff(),
                   __builtin_inff())

/* ---- expm1: y = the expm1 core at max(x, -20) (in float), the sign of x put back on the
 * float32 result (only -0 changes: the core makes expm1(-0) +0).  Within 2^-41.77 |y|: Ziv's
 * test at 2^13 units, as tanh's.  expm1 rounds to -1 below -17.33, and so does y(-20).  For
 * |x| <= 2^-54 every step is exact and y = x, expm1(x) correctly rounded (subnormal x too:
 * |expm1(x) - x| < x^2); above, |y| > 2^-55 is a normal float32 value.  The chunk redoes
 * x > 88.72 (overflow), NaN and the flagged elements with the generic path's pass. */
static inline __attribute__((always_inline)) ltm_gvf ltm_expm1_32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    const ltm_gvf fzero = { 0 };
    ltm_gvi sign = (ltm_gvi)xf & (int32_t)0x80000000;
    ltm_gvd y = ltm_expm1_32_core(ltm_vwiden(LTM_VMAXF(xf, fzero - 20.0f)));
    *clear = ltm_exp32_clear_w(y, 0x2000);
    return (ltm_gvf)((ltm_gvi)__builtin_convertvector(y, ltm_gvf) | sign);
}
LTM_EXP32_TWO_PASS(ltm_expm1, ltm_expm1_32_vec, ltm_expm1_f32_accurate, -__builtin_inff(), 88.72f)

/* ---- sinh: y = (e + e / (1 + e)) / 2, e = the expm1 core at a = min(|x|, 89.5) (in float),
 * the sign of x put back on the float32 result.  e within 2^-41.77; e / (1 + e) scales e's
 * error by 1 / (1 + e) <= 1, both terms are >= 0, the add, the division and the sum add
 * 3 2^-53: y within 2^-41.7 |y|, Ziv's test at 2^13 units.  sinh overflows from 89.42 on
 * and so does y(89.5) (a double above 2^128: inf in float32).  For a <= 2^-54 every step is
 * exact (e = a, 1 + e = 1) and y = a, sinh(x) correctly rounded (|sinh x - x| < |x|^3);
 * above, |y| > 2^-54 is a normal float32 value.  The chunk redoes NaN and the flagged
 * elements with the generic path's pass. */
static inline __attribute__((always_inline)) ltm_gvf ltm_sinh32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    const ltm_gvf fzero = { 0 };
    ltm_gvi sign = (ltm_gvi)xf & (int32_t)0x80000000;
    ltm_gvf a = LTM_VMINF((ltm_gvf)((ltm_gvi)xf & 0x7FFFFFFF), fzero + 89.5f);
    ltm_gvd e = ltm_expm1_32_core(ltm_vwiden(a));
    ltm_gvd y = 0.5 * (e + e / (e + 1.0));
    *clear = ltm_exp32_clear_w(y, 0x2000);
    return (ltm_gvf)((ltm_gvi)__builtin_convertvector(y, ltm_gvf) | sign);
}
LTM_EXP32_TWO_PASS(ltm_sinh, ltm_sinh32_vec, ltm_sinh_f32_accurate, -__builtin_inff(),
                   __builtin_inff())

/* ---- cosh: y = (E + 1/E) / 2, E = the exp core at a = min(|x|, 89.5) (in float; k <= 130
 * keeps the core's bound, 2^-39.74, and E a normal double).  1/E has E's relative error and
 * the division's, the sum of the two positive terms 2^-53 more: y within 2^-39.73 |y|, the
 * exp core's test at 2^15 units.  y >= 1 is a normal float32 value; cosh overflows from
 * 89.42 on and so does y(89.5).  The chunk redoes NaN and the flagged elements with the
 * generic path's pass. */
static inline __attribute__((always_inline)) ltm_gvf ltm_cosh32_vec(ltm_gvf xf, ltm_gvl *clear)
{
    const ltm_gvf fzero = { 0 };
    ltm_gvf a = LTM_VMINF((ltm_gvf)((ltm_gvi)xf & 0x7FFFFFFF), fzero + 89.5f);
    ltm_gvd e = ltm_exp32_core(ltm_vwiden(a));
    ltm_gvd y = 0.5 * (e + 1.0 / e);
    *clear = ltm_exp32_clear(y);
    return __builtin_convertvector(y, ltm_gvf);
}
LTM_EXP32_TWO_PASS(ltm_cosh, ltm_cosh32_vec, ltm_cosh_f32_accurate, -__builtin_inff(),
                   __builtin_inff())

#else
LTM_EXP32_FAMILY(ltm_exp_two_pass)
#endif
