/* The log family, continued (lt_log.h): the float32 exact log, log1p, log2 and log10.  On the
 * FMA paths (AVX2, AVX-512) log, log1p, log2 and log10 have a first pass of their own (issue
 * 41): correctly rounded
 * on each path on its own (docs/first-passes.md), the AVX2 and AVX-512 paths computing the
 * same FMAs in the same order (4 or 8 lanes), so the same bits; the elements it flags, and the
 * inputs outside its range, go to the no-FMA pass of lt_log.h (ltm_log16_vec, as NAME_nofma),
 * which the generic path keeps as it was.  Pasted after lt_log.h and lt_exp32_fma.h (its
 * LTM_VFMA, ltm_exp32_clear_w and chunk driver LTM_EXP32_TWO_PASS) into every kernel path. */

#if LTM_GW == 8 || (LTM_GW == 4 && defined(__FMA__))
LTM_VEC_TWO_PASS(ltm_log_nofma, ltm_log32_vec, ltm_log_acc)
LTM_VEC_TWO_PASS(ltm_log1p_nofma, ltm_log1p32_vec, ltm_log1p_acc)
LTM_VEC_TWO_PASS(ltm_log2_nofma, ltm_log2_32_vec, ltm_log2_acc)
LTM_VEC_TWO_PASS(ltm_log10_nofma, ltm_log10_32_vec, ltm_log10_acc)

/* tab[idx & 7] per lane, tab 8 floats: one vpermps (AVX2: the low half of a 256-bit one) */
static inline __attribute__((always_inline)) ltm_gvf ltm_log32_pick(const float *tab, ltm_gvi idx)
{
#if LTM_GW == 8
    return (ltm_gvf)_mm256_permutevar8x32_ps(_mm256_load_ps(tab), (__m256i)idx);
#else
    __m256i i8 = _mm256_castsi128_si256((__m128i)idx);
    return (ltm_gvf)_mm256_castps256_ps128(_mm256_permutevar8x32_ps(_mm256_load_ps(tab), i8));
#endif
}

/* the int32 lanes as doubles and as int64: one vcvtdq2pd, one vpmovsxdq (gcc 12 splits the
 * generic conversions in two halves) */
static inline __attribute__((always_inline)) ltm_gvd ltm_log32_ktod(ltm_gvi k)
{
#if LTM_GW == 8
    return (ltm_gvd)_mm512_cvtepi32_pd((__m256i)k);
#else
    return (ltm_gvd)_mm256_cvtepi32_pd((__m128i)k);
#endif
}
static inline __attribute__((always_inline)) ltm_gvl ltm_log32_ktol(ltm_gvi k)
{
#if LTM_GW == 8
    return (ltm_gvl)_mm512_cvtepi32_epi64((__m256i)k);
#else
    return (ltm_gvl)_mm256_cvtepi32_epi64((__m128i)k);
#endif
}

/* ---- the pass: y = log(v) in double, v = 2^k m a positive normal float32 (x for log, 1 + x
 * rounded to float32 for log1p), reduced on the float bits: m in [0.78125, 1.5625), bucket
 * i = 0..7 (the top 3 bits of the mantissa field of bits(v) - bits(0.78125)), a row of
 * floats each (lt_tab_log32_fma, tools/gen_log32_fma.py): r_i (24 bits; 1 in the bucket of
 * 1.0), -log r_i = hi_i + lo_i.
 *   log:   z = fma(m, r_i, -1), exact (m r_i has 48 bits; |z| <= 2^-4, bits down to 2^-48);
 *   log1p: z = fma(x, s, s - 1), s = r_i 2^-k, = (1 + x) s - 1 rounded once (s - 1 is exact
 *          for k < 29; above, its 2^-54 is below 2^-59 |y|): the rounding of 1 + x only
 *          chooses the bucket, its m within 2^-22 of the bucket;
 *   y = fma(k, LN2_HI, hi_i) + (z + fma(z^2, Q(z), fma(k, LN2_MID, lo_i))), Q of degree 7 by
 *   Estrin.
 * Error relative to y (the terms printed by tools/gen_log32_fma.py):
 *   - z + z^2 Q(z) against log1p(z): 2^-47.76 |log1p z| (the z range widened by 2^-22), and
 *     |log1p z| <= 1.068 |y| (k = 0 outside the bucket of 1: |y| >= log(1 + 1/16); k != 0:
 *     |y| > 0.24), |z| <= 1.05 |y|;
 *   - |-log r_i - hi_i - lo_i| <= 2^-48.84 |y|;
 *   - fma(k, LN2_HI, hi_i) exact (|k| <= 150, LN2_HI a multiple of 2^-42, hi_i too: 49 bits);
 *     fma(k, LN2_MID, lo_i) and the dropped LN2_LO below 2^-75 |y| (only k != 0 has them);
 *   - Q's roundings (Estrin, near -1/2: within 3 2^-53 of Q), z^2's and the product's,
 *     scaled by |z^2 Q| <= 2^-4.9 |log1p z|: below 2^-56 |y|; the sum into s 2^-53 |s|, the
 *     sum with z 2^-53 1.14 |y|, the last 2^-53 |y|; log1p's z 2^-53 1.05 |y| more;
 *   log2 and log10 multiply by 1/ln2 or 1/ln10 (hi part): the product and the constant 2^-52.
 * In all y is within 2^-46.9 |y| (under 2^6.1 units of its last place): Ziv's test at 2^8
 * units (ltm_exp32_clear_w; about one element in 2^20 flagged). */
static inline __attribute__((always_inline)) ltm_gvd ltm_log32_fma_y(ltm_gvi b, ltm_gvd x,
                                                                     int log1p)
{
    const float *t = lt_tab_log32_fma;
    const double *q = lt_tab_log32_fma_q;
    const ltm_gvd zero = { 0 };
    ltm_gvi tmp = (ltm_gvi)((ltm_exp32_vu)b - LT_LOG32_FMA_OFF);
    ltm_gvi kb = tmp & (int32_t)0xFF800000;                      /* k 2^23 */
    ltm_gvi idx = tmp >> 20;                                     /* the pick uses 3 bits */
    ltm_gvd r = ltm_vwiden(ltm_log32_pick(t, idx));
    ltm_gvd hi = ltm_vwiden(ltm_log32_pick(t + 8, idx));
    ltm_gvd lo = ltm_vwiden(ltm_log32_pick(t + 16, idx));
    ltm_gvd kd = ltm_log32_ktod(kb >> 23);
    ltm_gvd z;
    if (log1p) {
        ltm_gvu k52 = (ltm_gvu)ltm_log32_ktol(kb) << 29;
        ltm_gvd s = (ltm_gvd)((ltm_gvu)r - k52);                 /* r 2^-k, a normal double */
        z = LTM_VFMA(x, s, s - 1.0);
    } else {
        z = LTM_VFMA(ltm_vwiden((ltm_gvf)((ltm_exp32_vu)b - (ltm_exp32_vu)kb)), r, zero - 1.0);
    }
    ltm_gvd z2 = z * z, z4 = z2 * z2;
    ltm_gvd q01 = LTM_VFMA(zero + q[1], z, zero + q[0]);
    ltm_gvd q23 = LTM_VFMA(zero + q[3], z, zero + q[2]);
    ltm_gvd q45 = LTM_VFMA(zero + q[5], z, zero + q[4]);
    ltm_gvd q67 = LTM_VFMA(zero + q[7], z, zero + q[6]);
    ltm_gvd q03 = LTM_VFMA(q23, z2, q01), q47 = LTM_VFMA(q67, z2, q45);
    ltm_gvd qz = LTM_VFMA(q47, z4, q03);
    ltm_gvd a = LTM_VFMA(kd, zero + lt_tab_log_k[0], hi);
    ltm_gvd small = LTM_VFMA(z2, qz, LTM_VFMA(kd, zero + lt_tab_log_k[1], lo));
    return a + (z + small);
}
#define LTM_LOG32_FMA_ZIV 0x100

/* log x times `scale` (1 folded away), x in [2^-126, FLT_MAX]: the chunk redoes the others */
static inline __attribute__((always_inline)) ltm_gvf ltm_log32_fma_any(ltm_gvf xf, ltm_gvl *clear,
                                                                       double scale)
{
    const ltm_gvd zero = { 0 };
    ltm_gvd y = ltm_log32_fma_y((ltm_gvi)xf, zero, 0) * scale;
    *clear = ltm_exp32_clear_w(y, LTM_LOG32_FMA_ZIV);
    return __builtin_convertvector(y, ltm_gvf);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_log32_fma_vec(ltm_gvf xf, ltm_gvl *clear)
{
    return ltm_log32_fma_any(xf, clear, 1.0);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_log2_32_fma_vec(ltm_gvf xf, ltm_gvl *clear)
{
    return ltm_log32_fma_any(xf, clear, lt_tab_log_k[3]);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_log10_32_fma_vec(ltm_gvf xf,
                                                                          ltm_gvl *clear)
{
    return ltm_log32_fma_any(xf, clear, lt_tab_log_k[5]);
}

/* log1p x, x in (-1, FLT_MAX], the sign of x put on the float32 result (log1p(-0) = -0; the
 * others have it already).  |x| < 2^-126 needs no flag: z = x and y = x exactly (x^2/2 is below
 * half an ulp of x in double), and x is log1p(x) correctly rounded (it is below 2^-253 away,
 * the nearest float32 rounding boundary 2^-150). */
static inline __attribute__((always_inline)) ltm_gvf ltm_log1p32_fma_vec(ltm_gvf xf, ltm_gvl *clear)
{
    ltm_gvi sign = (ltm_gvi)xf & (int32_t)0x80000000;
    ltm_gvd y = ltm_log32_fma_y((ltm_gvi)(xf + 1.0f), ltm_vwiden(xf), 1);
    *clear = ltm_exp32_clear_w(y, LTM_LOG32_FMA_ZIV);
    return (ltm_gvf)((ltm_gvi)__builtin_convertvector(y, ltm_gvf) | sign);
}

/* NAME_redo: the elements the chunk redoes.  The ends of the domain at once: zeros give -inf,
 * x < 0 and NaN the canonical NaN (a chunk of mixed signs would otherwise send every negative
 * element through the one-element form of the no-FMA pass, a whole vector pass for one value:
 * docs/exact-math.md); the rest (subnormals, +inf, the flagged) by the no-FMA pass. */
#define LTM_LOG32_REDO(NAME)                                                                 \
    static inline float NAME##_redo(float x)                                                 \
    {                                                                                        \
        return x == 0.0f ? -__builtin_inff()                                                 \
             : !(x > 0.0f) ? __builtin_nanf("") : NAME##_nofma_f32(x);                       \
    }
LTM_LOG32_REDO(ltm_log)
LTM_LOG32_REDO(ltm_log2)
LTM_LOG32_REDO(ltm_log10)
/* log1p's: -1 gives -inf, x < -1 and NaN the canonical NaN, as above */
static inline float ltm_log1p_redo(float x)
{
    return x == -1.0f ? -__builtin_inff()
         : !(x >= -1.0f) ? __builtin_nanf("") : ltm_log1p_nofma_f32(x);
}

LTM_EXP32_TWO_PASS(ltm_log, ltm_log32_fma_vec, ltm_log_redo, 0x1p-126f, 0x1.fffffep127f)
LTM_EXP32_TWO_PASS(ltm_log1p, ltm_log1p32_fma_vec, ltm_log1p_redo, -0x1.fffffep-1f,
                   0x1.fffffep127f)
LTM_EXP32_TWO_PASS(ltm_log2, ltm_log2_32_fma_vec, ltm_log2_redo, 0x1p-126f, 0x1.fffffep127f)
LTM_EXP32_TWO_PASS(ltm_log10, ltm_log10_32_fma_vec, ltm_log10_redo, 0x1p-126f,
                   0x1.fffffep127f)

#else
LTM_VEC_TWO_PASS(ltm_log, ltm_log32_vec, ltm_log_acc)
LTM_VEC_TWO_PASS(ltm_log1p, ltm_log1p32_vec, ltm_log1p_acc)
LTM_VEC_TWO_PASS(ltm_log2, ltm_log2_32_vec, ltm_log2_acc)
LTM_VEC_TWO_PASS(ltm_log10, ltm_log10_32_vec, ltm_log10_acc)
#endif
