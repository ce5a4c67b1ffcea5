/* The float32 fast erf on the FMA paths (AVX2, AVX-512): a pass over vectors of float lanes
 * with its coefficients picked per lane by a permute, instead of lt_erf.h's two branches
 * (a polynomial below 0.921875 and 1 - exp(Q) above, both computed for every lane).  The
 * generic path keeps lt_erf.h's form.  The two FMA paths compute the same operations (8 or 16
 * lanes), so the same bits.  Pasted after lt_trig32_fma.h, whose float vector types and
 * LTM_TFMA it uses (build_kernels.MATH_FAMILIES).
 *
 *   erf(x) = x F(a), a = |x|, F = erf(a)/a (even, smooth, F(0) = 2/sqrt(pi)): on the piece
 *   i = floor(2a) (eight of width 1/2; a >= 3.92 gives +-1, the float32 rounding of erf
 *   there), F = hi + (lo + s P(s)), s = a - (i + 1/2)/2 (exact for i >= 1 by Sterbenz; for
 *   i = 0 its rounding moves F by less than 2^-27 relative, F being flat near 0), P of degree
 *   5 (c1 ... c6) by Estrin's scheme, hi + lo the value at the centre as a float pair (one
 *   float32 alone costs up to 2^-25); tools/fit_fast32.py fit_erf_pieces: method error
 *   2^-26.9 relative.  The result
 *   is fma(x, hi, x (lo + s P)): the small part rounded once on its own, the sum once, so
 *   about 0.6 ulp in all (measured: docs/verification/erf-float32-fast-pieces.txt).  Lanes
 *   at or above 3.92 (inf too) and NaN lanes compute on a = 0 (the index stays in range) and
 *   are replaced: +-1, or NaN from x itself. */
#undef LTM_ERF_F32_FAST_VEC
#if LTM_GW == 8 || (LTM_GW == 4 && defined(__FMA__))
#define LTM_ERF32_ROW(a, b, c, d, e, f, g, h) { a, b, c, d, e, f, g, h, a, b, c, d, e, f, g, h }
static const float ltm_tab_erf32_fast[8][16] = {
    LTM_ERF32_ROW(0x1.1af54ep+0f, 0x1.e57b74p-1f, 0x1.7a0518p-1f, 0x1.20ac04p-1f,
                  0x1.c67206p-2f, 0x1.74538p-2f, 0x1.3b1358p-2f, 0x1.11111p-2f),   /* hi */
    LTM_ERF32_ROW(0x1.196b04p-27f, 0x1.df04cap-27f, -0x1.4aa6ccp-27f, 0x1.238c34p-27f,
                  0x1.1cc9f8p-27f, -0x1.cfe182p-29f, 0x1.886234p-28f, -0x1.efe758p-27f),   /* lo */
    LTM_ERF32_ROW(-0x1.7306e6p-3f, -0x1.a0cddp-2f, -0x1.9b12e8p-2f, -0x1.2b07a8p-2f,
                  -0x1.8d7348p-3f, -0x1.0e5896p-3f, -0x1.83bfap-4f, -0x1.234526p-4f),   /* c1 */
    LTM_ERF32_ROW(-0x1.57663cp-2f, -0x1.9a7dap-4f, 0x1.5aa50ap-4f, 0x1.d354a8p-4f,
                  0x1.4408c4p-4f, 0x1.846d84p-5f, 0x1.dcc03p-6f, 0x1.36ac78p-6f),   /* c2 */
    LTM_ERF32_ROW(0x1.acd1d6p-4f, 0x1.5ac64ap-3f, 0x1.0fbbe6p-4f, -0x1.c00f9ep-7f,
                  -0x1.a1ed9p-6f, -0x1.0a107cp-6f, -0x1.23683cp-7f, -0x1.4b40bcp-8f),   /* c3 */
    LTM_ERF32_ROW(0x1.6c9b4p-4f, -0x1.975a16p-6f, -0x1.daf372p-5f, -0x1.425f08p-6f,
                  0x1.762e3ep-9f, 0x1.355f2p-8f, 0x1.5b1b56p-9f, 0x1.60456p-10f),   /* c4 */
    LTM_ERF32_ROW(-0x1.1e855cp-5f, -0x1.313aa4p-5f, 0x1.092434p-7f, 0x1.e7332cp-7f,
                  0x1.d51edep-9f, -0x1.62cf32p-11f, -0x1.78f576p-11f, -0x1.70bep-12f),   /* c5 */
    LTM_ERF32_ROW(-0x1.260b7cp-6f, 0x1.d2a8d6p-7f, 0x1.473c08p-7f, -0x1.b2bed6p-9f,
                  -0x1.74d1aep-9f, -0x1.7ac038p-12f, 0x1.204d8cp-13f, 0x1.a73afp-14f),   /* c6 */
};
#undef LTM_ERF32_ROW
static inline __attribute__((always_inline)) ltm_tvf ltm_erf32_pick_fast(int j, ltm_tvi i)
{
    ltm_tvf row;
    memcpy(&row, ltm_tab_erf32_fast[j], sizeof row);   /* the first 8 or all 16 entries */
    return __builtin_shuffle(row, i);
}
static inline __attribute__((always_inline)) ltm_tvf ltm_erf32_fast_vec(ltm_tvf x)
{
    const ltm_tvf zero = { 0 };
    ltm_tvi sx = (ltm_tvi)x & INT32_MIN;
    ltm_tvf a = (ltm_tvf)((ltm_tvi)x ^ sx);
    ltm_tvi big = a >= 3.92f, in = a < 3.92f;             /* NaN: neither */
    a = ltm_tsel(in, a, zero);                             /* the piece index stays in 0..7 */
    ltm_tvi i = __builtin_convertvector(a * 2.0f, ltm_tvi);
    ltm_tvf s = a - (__builtin_convertvector(i, ltm_tvf) * 0.5f + 0.25f);
    /* P = (c1 + c2 s) + s^2 ((c3 + c4 s) + s^2 (c5 + c6 s)): three short chains (Horner's
     * one chain of six left the loop waiting on latency) */
    ltm_tvf a0 = LTM_TFMA(s, ltm_erf32_pick_fast(3, i), ltm_erf32_pick_fast(2, i));
    ltm_tvf a1 = LTM_TFMA(s, ltm_erf32_pick_fast(5, i), ltm_erf32_pick_fast(4, i));
    ltm_tvf a2 = LTM_TFMA(s, ltm_erf32_pick_fast(7, i), ltm_erf32_pick_fast(6, i));
    ltm_tvf s2 = s * s;
    ltm_tvf p = LTM_TFMA(s2, LTM_TFMA(s2, a2, a1), a0);
    ltm_tvf t = LTM_TFMA(s, p, ltm_erf32_pick_fast(1, i));
    ltm_tvf y = LTM_TFMA(x, ltm_erf32_pick_fast(0, i), x * t);
    ltm_tvi one = (ltm_tvi)(zero + 1.0f) | sx;
    return ltm_tsel(big, (ltm_tvf)one, y);                /* NaN: y, from x */
}
/* for the fused bodies (kernels_c/build_fused.py): the vector form they call in their loop */
#define LTM_ERF_F32_FAST_VEC ltm_erf32_fast_vec
/* a chunk: whole vectors, then the tail through a zero-padded vector */
static inline void ltm_erf_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{
    enum { W = 2 * LTM_GW };
    ltm_tvf v;
    int64_t i = 0;
    for (; i + W <= n; i += W) {
        memcpy(&v, a + i, sizeof v);
        v = ltm_erf32_fast_vec(v);
        memcpy(o + i, &v, sizeof v);
    }
    if (i < n) {
        float t[W] = { 0 };
        memcpy(t, a + i, (size_t)(n - i) * sizeof(float));
        memcpy(&v, t, sizeof v);
        v = ltm_erf32_fast_vec(v);
        memcpy(t, &v, sizeof v);
        memcpy(o + i, t, (size_t)(n - i) * sizeof(float));
    }
}
#else
static inline void ltm_erf_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{
    for (int64_t i = 0; i < n; i++) o[i] = ltm_erf_f32_fast(a[i]);
}
#endif
