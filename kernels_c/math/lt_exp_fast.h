/* The exp family, continued (lt_exp.h): the float32 fast forms in float arithmetic.  Pasted
 * after lt_exp.h into every kernel path (build_kernels.MATH_FAMILIES). */

/* ---- float32 fast forms: float arithmetic, no table lookups --------------------------------
 * Evaluated in float32 so that an AVX2 vector holds 8 lanes (16 on AVX-512), with LT_FMAF
 * (a float FMA on the AVX paths, multiply and add on the generic path).  All of them share
 * one reduction and one polynomial:
 *   k = round(x / ln2) (the 1.5 2^23 shifter), r = x - k ln2 with ln2 = LN2_HI + LN2_LO,
 *   LN2_HI = 0x1.62e4p-1 (15 bits: k LN2_HI is exact for |k| < 512 and x - k LN2_HI is exact,
 *   both with and without FMA), LN2_LO = ln2 - LN2_HI rounded (2^-54 off; k LN2_LO adds
 *   < 2^-30 absolute error for |k| <= 170); |r| <= ln2/2 (1.0005 ln2/2 without FMA, where
 *   k may be off by one rounding of x/ln2).
 *   expm1(r) = r + r^2 (c2 + c3 r + c4 r^2 + c5 r^3 + c6 r^4), a minimax fit of the relative
 *   error with float32 coefficients (tools/fit_fast32.py): 2^-26.1 relative.
 *   2^k is built from its exponent bits; where 2^k or the result may leave the normal range
 *   it is applied as 2^k1 2^k2 (k1 = k >> 1, both normal), the second product rounding once,
 *   so subnormal results are rounded once (gradual underflow) and overflow gives inf.
 * The float results are within 1 or 2 ulp: the measured maxima are in docs/exact-math.md. */
static inline int32_t ltm_f32_as_i32(float x) { int32_t i; memcpy(&i, &x, 4); return i; }
static inline float ltm_i32_as_f32(int32_t i) { float x; memcpy(&x, &i, 4); return x; }
/* 2^k for -126 <= k <= 127 */
static inline float ltm_f32_pow2(int32_t k) { return ltm_i32_as_f32((k + 127) << 23); }

static inline float ltm_expf_red(float x, int32_t *k)
{
    const float shifter = 0x1.8p23f;
    float t = LT_FMAF(x, 0x1.715476p+0f, shifter);
    float kf = t - shifter;
    /* minus the shifter's bits; unsigned, so that no input (unclamped: NaN, huge) overflows */
    *k = (int32_t)((uint32_t)ltm_f32_as_i32(t) - 0x4B400000u);
    float r = LT_FMAF(kf, -0x1.62e4p-1f, x);        /* exact */
    return LT_FMAF(kf, -0x1.7f7d1cp-20f, r);
}
/* expm1(r) for |r| <= 0.3468, relative error 2^-26.1 (plus the float evaluation) */
static inline float ltm_expf_q(float r)
{
    float r2 = r * r;
    float p = LT_FMAF(r, 0x1.6b9c6ap-10f, 0x1.12254ap-7f);
    p = LT_FMAF(r, p, 0x1.5556f2p-5f);
    p = LT_FMAF(r, p, 0x1.5554b4p-3f);
    p = LT_FMAF(r, p, 0x1.fffffep-2f);
    return LT_FMAF(r2, p, r);
}
/* exp(x) = m 2^k with m in [0.70, 1.42], for |x| <= 110 */
static inline float ltm_expf_m(float x, int32_t *k)
{
    float r = ltm_expf_red(x, k);
    return 1.0f + ltm_expf_q(r);
}
/* m 2^k, rounded once also when subnormal; -252 <= k <= 254 */
static inline float ltm_f32_scale2(float m, int32_t k)
{
    int32_t k1 = k >> 1;
    return (m * ltm_f32_pow2(k1)) * ltm_f32_pow2(k - k1);
}

/* The clamp to [-104, 89] on the bits (two integer mins instead of compares and blends):
 * as unsigned the order is +0 < ... < +inf < +NaN < -0 < -tiny < ... < -inf, so the unsigned
 * min with bits(-104) clamps below; then the negative floats are negative int32 values below
 * bits(89) and the signed min clamps above.  NaN lanes are replaced at the end. */
static inline float ltm_f32_clamp_bits(float x, uint32_t lo_bits_neg, int32_t hi_bits)
{
    uint32_t u = (uint32_t)ltm_f32_as_i32(x);
    int32_t b = (int32_t)(u < lo_bits_neg ? u : lo_bits_neg);
    return ltm_i32_as_f32(b < hi_bits ? b : hi_bits);
}
static inline float ltm_exp_f32_fast(float x)
{
    float xc = ltm_f32_clamp_bits(x, 0xC2D00000u, 0x42B20000);    /* [-104, 89] */
    int32_t k;
    float r = ltm_expf_red(xc, &k);
    int32_t k1 = k >> 1;
    float s1 = ltm_f32_pow2(k1);
    float y = LT_FMAF(s1, ltm_expf_q(r), s1) * ltm_f32_pow2(k - k1);
    return x == x ? y : x + x;
}
/* The same values a chunk at a time, with a cheaper common case: for x in [-86.9, 88.3]
 * (k in [-125, 127]) the result (1 + q) 2^k is normal, so it is the rounded 1 + q with k
 * added to its exponent bits (what the FMA and the two exact products above give, with
 * three fewer instructions and no NaN blend).  The chunk runs unclamped while the largest
 * bits of its inputs are tracked (one unsigned and one signed max a vector: as unsigned,
 * the negative floats beyond -86.9, -inf and negative NaNs lie above bits(-86.9); as signed,
 * the floats beyond 88.3, +inf and positive NaNs above bits(88.3)); a chunk holding such an
 * element is done again by ltm_exp_f32_fast, so what the unclamped pass made of it is never
 * kept (ltm_expf_red's integers are unsigned: no overflow whatever the input).  The same
 * bits as the clamp and compare per element it replaces (every float32 input checked), which
 * took five of the loop's twenty vector operations (figures: docs/architecture.md). */
static inline float ltm_exp_f32_fast_common(float x, uint32_t *umax, int32_t *smax)
{
    const uint32_t u = (uint32_t)ltm_f32_as_i32(x);
    *umax = u > *umax ? u : *umax;
    *smax = (int32_t)u > *smax ? (int32_t)u : *smax;
    int32_t k;
    const float m = 1.0f + ltm_expf_q(ltm_expf_red(x, &k));
    return ltm_i32_as_f32((int32_t)((uint32_t)ltm_f32_as_i32(m) + ((uint32_t)k << 23)));
}
/* exp(a[i] - s) for a chunk (softmax rows shift by the row maximum; plain exp passes s = 0,
 * and x - 0 is x, which gcc folds) */
static inline void ltm_exp_shifted_f32_fast_chunk(int64_t n, float *restrict o,
                                                  const float *restrict a, float s)
{
    uint32_t umax = 0;
    int32_t smax = 0;
    for (int64_t i = 0; i < n; i++) o[i] = ltm_exp_f32_fast_common(a[i] - s, &umax, &smax);
    if (umax > 0xC2ADCCCDu || smax > 0x42B0999A)          /* beyond -86.9 or 88.3, or NaN */
        for (int64_t i = 0; i < n; i++) o[i] = ltm_exp_f32_fast(a[i] - s);
}
static inline void ltm_exp_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{
    ltm_exp_shifted_f32_fast_chunk(n, o, a, 0.0f);
}
/* expm1 = 2 (t (1 + q) - 1/2) with t = 2^(k-1): for k = 0 exactly q, else one rounding of an
 * exact-ish sum (t - 1/2 is exact for |k| <= 24; beyond, it is the dominant term anyway) */
static inline float ltm_expm1_f32_fast(float x)
{
    float xc = x < -30.0f ? -30.0f : (x > 89.0f ? 89.0f : x);
    int32_t k;
    float q = ltm_expf_q(ltm_expf_red(xc, &k));
    float t = ltm_f32_pow2(k - 1);
    float y = k == 0 ? q : 2.0f * LT_FMAF(t, q, t - 0.5f);    /* q: also when subnormal */
    y = x == 0.0f ? x : y;
    return x == x ? y : x + x;
}
/* tanh |x| = e / (e + 2), e = expm1(2|x|) (no cancellation); 1 beyond |x| = 10 */
static inline float ltm_tanh_f32_fast(float x)
{
    float ax = __builtin_fabsf(x);
    float axc = ax > 10.0f ? 10.0f : ax;
    int32_t k;
    float q = ltm_expf_q(ltm_expf_red(2.0f * axc, &k));
    float t = ltm_f32_pow2(k - 1);
    float e = 2.0f * LT_FMAF(t, q, t - 0.5f);
    float y = __builtin_copysignf(e / (e + 2.0f), x);
    return x == x ? y : x + x;
}
/* E = exp(-axc) 2^shift = (1 + q) 2^(k+shift), for axc >= 0 with k + shift >= -126 (E normal);
 * NaN for a NaN axc, whatever the scale is. */
static inline float ltm_expf_neg_scaled(float axc, int32_t shift)
{
    int32_t k;
    float r = ltm_expf_red(-axc, &k);
    float s = ltm_f32_pow2(k + shift);
    return LT_FMAF(s, ltm_expf_q(r), s);
}
/* sigmoid = 1 / (1 + e) (x >= 0) or e / (1 + e) (x < 0), e = exp(-|x|) rounded once (also
 * when subnormal, then e / (1 + e) = e): the tail keeps its relative accuracy down to the
 * underflow (within an ulp of the subnormal spacing there).  Cheap forms of the same values:
 * min(|x|, 104) with the NaN passed on (then E, the denominator and y are NaN: no blend);
 * k is in [-150, 0], so E = (1 + q) 2^(k+25) is normal and e = E 2^-25 is exact when e is
 * normal and rounded once when it is subnormal (the same bits as (1 + q) 2^k1 2^(k-k1), with
 * half the integer work); 1 + e = E 2^-25 + 1 (the same value, without waiting for e); the
 * numerator is chosen by the sign bit of x (a blend on x itself; -0 gives e / (1 + e) = 1/2
 * as 1 / (1 + e) does).  The division stays: a reciprocal by Newton steps measured slower. */
static inline float ltm_sigmoid_f32_fast(float x)
{
    const float ax = __builtin_fabsf(x);
    const float axc = 104.0f < ax ? 104.0f : ax;     /* min(|x|, 104); a NaN stays NaN */
    float E = ltm_expf_neg_scaled(axc, 25);
    float e = E * 0x1p-25f;
    return (ltm_f32_as_i32(x) < 0 ? e : 1.0f) / LT_FMAF(E, 0x1p-25f, 1.0f);
}
/* silu = x sigmoid(x) in sigmoid's form, with e = exp(-|x|) scaled by 2^34 instead of 2^25 so
 * that E stays normal down to |x| = 110 (k >= -159), where |silu| < 2^-150 rounds to zero:
 * x >= 0: x / (1 + e); x < 0: (max(x, -110) E / (1 + e)) 2^-34, the last scaling exact or
 * (subnormal result) rounded once.  One division for both signs: the numerator and the
 * scale are chosen with the sign mask of x, bit by bit, because gcc turns a conditional
 * choice here into two divisions, one of them masked (about 1.06x the time of this form for
 * 10^5 elements in cache, AVX-512). */
static inline float ltm_silu_f32_fast(float x)
{
    const float ax = __builtin_fabsf(x);
    const float axc = 110.0f < ax ? 110.0f : ax;     /* min(|x|, 110); a NaN stays NaN */
    float E = ltm_expf_neg_scaled(axc, 34);
    const int32_t neg = ltm_f32_as_i32(x) >> 31;     /* all ones when the sign bit is set */
    const float num = ltm_i32_as_f32((ltm_f32_as_i32(-axc * E) & neg) | (ltm_f32_as_i32(x) & ~neg));
    const float scale = ltm_i32_as_f32((0x2E800000 & neg) | (0x3F800000 & ~neg));   /* 2^-34, 1 */
    return (num / LT_FMAF(E, 0x1p-34f, 1.0f)) * scale;
}
/* sinh and cosh from r, k of |x| (|x| clamped to 90): |x| <= 20: e = expm1|x| (as in expm1),
 * sinh = (e + e / (1 + e)) / 2, E = exp|x|, cosh = (E + 1/E) / 2; |x| > 20: e^|x| / 2 =
 * (1 + q) 2^(k-1) in two scalings (sinh(89.4) is finite while expm1(89.4) is not). */
static inline float ltm_expf_q_abs90(float x, float *ax, int32_t *k)   /* q, k of |x| */
{
    *ax = __builtin_fabsf(x);
    return ltm_expf_q(ltm_expf_red(*ax > 90.0f ? 90.0f : *ax, k));
}
static inline float ltm_sinh_f32_fast(float x)
{
    float ax;
    int32_t k;
    float q = ltm_expf_q_abs90(x, &ax, &k);
    float t = ltm_f32_pow2((k > 30 ? 30 : k) - 1);
    float e = k == 0 ? q : 2.0f * LT_FMAF(t, q, t - 0.5f);
    float ys = 0.5f * (e + e / (1.0f + e));
    float yb = ltm_f32_scale2(1.0f + q, k - 1);
    float y = __builtin_copysignf(ax > 20.0f ? yb : ys, x);
    y = x == 0.0f ? x : y;
    return x == x ? y : x + x;
}
static inline float ltm_cosh_f32_fast(float x)
{
    float ax;
    int32_t k;
    float q = ltm_expf_q_abs90(x, &ax, &k);
    float s = ltm_f32_pow2(k > 30 ? 30 : k);
    float E = LT_FMAF(s, q, s);
    float ys = 0.5f * (E + 1.0f / E);
    float yb = ltm_f32_scale2(1.0f + q, k - 1);
    float y = ax > 20.0f ? yb : ys;
    return x == x ? y : x + x;
}
/* a * b - p exactly for p = a * b rounded: an FMA where the path has one (LT_HAS_FMA), else
 * Dekker's product with both operands split at 12 bits by masking */
static inline float ltm_f32_mul_lo(float a, float b, float p)
{
#if LT_HAS_FMA
    return LT_FMAF(a, b, -p);
#else
    float ah = ltm_i32_as_f32(ltm_f32_as_i32(a) & (int32_t)0xFFFFF000), al = a - ah;
    float bh = ltm_i32_as_f32(ltm_f32_as_i32(b) & (int32_t)0xFFFFF000), bl = b - bh;
    return (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
#endif
}
/* gelu_tanh = x sigmoid(s), s = 2 sqrt(2/pi) (x + 0.044715 x^3) = x (C1 + C3 x^2), carried as a
 * float pair sh + sl (constants as pairs, x^2 = xh^2 + xl (x + xh) split by masking, error-free
 * products): relative error ~2^-44, so that exp(-|s|) keeps 2^-24 relative accuracy up to
 * |s| = 104, where x sigmoid(s) ~ x e^s underflows.  e = exp(-|s|) = m 2^k;
 * s >= 0: x / (1 + e); s < 0: (x m / (1 + e)) 2^k, scaled last (rounded once when subnormal).
 * x > 10: x (e < 2^-27); x < -12: -0 (|s| > 140). */
/* The element with its clamp bounds (-12, 10) as arguments: the chunk form reads them through
 * volatile, because with constant bounds gcc threads each clamped case through the whole
 * formula (the exp polynomial then ran twice per vector, blended).  The sign choices are on
 * bits for the same reason.  The same values as a plain ?: form. */
static inline float ltm_gelu_tanh_f32_fast_e(float x, float lo, float hi)
{
    const float c1h = 0x1.988454p+0f, c1l = -0x1.857936p-25f;
    const float c3h = 0x1.2444f2p-4f, c3l = 0x1.49b16ap-29f;
    float xc = x < lo ? lo : x;
    xc = xc > hi ? hi : xc;                                   /* NaN -> hi, replaced below */
    float xh = ltm_i32_as_f32(ltm_f32_as_i32(xc) & (int32_t)0xFFFFF000), xl = xc - xh;
    float zh = xh * xh, zl = xl * (xc + xh);
    float wh = c3h * zh;
    float wl = ltm_f32_mul_lo(c3h, zh, wh) + LT_FMAF(c3h, zl, c3l * zh);
    float ah = c1h + wh, bb = ah - c1h;                       /* two-sum */
    float al = ((c1h - (ah - bb)) + (wh - bb)) + (wl + c1l);
    float sh = xc * ah;
    float sl = LT_FMAF(xc, al, ltm_f32_mul_lo(xc, ah, sh));
    int32_t negm = ltm_f32_as_i32(sh) >> 31;                  /* all ones when sh < 0 */
    int32_t flip = ~negm & (int32_t)0x80000000;               /* sh >= 0: negate */
    int32_t k;
    float r = ltm_expf_red(ltm_i32_as_f32(ltm_f32_as_i32(sh) ^ flip), &k);       /* -|sh| */
    float q = ltm_expf_q(r + ltm_i32_as_f32(ltm_f32_as_i32(sl) ^ flip));        /* e = (1 + q) 2^k */
    float p2 = ltm_f32_pow2(k < -126 ? -126 : k);
    float d = LT_FMAF(p2, q, 1.0f + p2);                       /* 1 + e */
    int32_t kn = k & negm, k1 = kn >> 1;
    /* numerator x (1 + q) where sh < 0, x where not: q masked to 0 */
    float qn = ltm_i32_as_f32(ltm_f32_as_i32(q) & negm);
    float g = (LT_FMAF(xc, qn, xc) / d * ltm_f32_pow2(k1)) * ltm_f32_pow2(kn - k1);
    g = x > hi ? x : g;
    g = x < lo ? -0.0f : g;
    return x == x ? g : x;
}
static inline float ltm_gelu_tanh_f32_fast(float x)
{
    return ltm_gelu_tanh_f32_fast_e(x, -12.0f, 10.0f);
}
static inline void ltm_gelu_tanh_f32_fast_chunk(int64_t n, float *restrict o,
                                                const float *restrict a)
{
    volatile float lov = -12.0f, hiv = 10.0f;
    const float lo = lov, hi = hiv;
    for (int64_t i = 0; i < n; i++) o[i] = ltm_gelu_tanh_f32_fast_e(a[i], lo, hi);
}

/* float64 fast: T as hi + lo folded in with an FMA, degree-6 polynomial, no compensation
 * beyond that; the scaling as in the exact versions.  x clamped to [-746, 710]. */
static inline double ltm_exp_fast_t(double x, double xlo, int64_t *kout)
{
    double r;
    int64_t k = ltm_exp_fast_red(x, &r);
    double p = ltm_exp_fast_p6(r) + xlo * (1.0 + r);
    double th = lt_tab_exp_t_hi[k & 127];
    *kout = k;
    return th + LT_FMA(th, p, lt_tab_exp_t_lo[k & 127]);
}
static inline double ltm_exp_f64_fast(double x)
{
    double xc = x < -746.0 ? -746.0 : (x > 710.0 ? 710.0 : x);
    int64_t k;
    double s = ltm_exp_fast_t(xc, 0.0, &k);
    double y = (s * ltm_exp_scale(k, xc < 0 ? 1023 + 64 : 1022)) * (xc < 0 ? 0x1p-64 : 2.0);
    return x == x ? y : x + x;
}
/* expm1 fast for |x| <= 40: (t - 1) + (t p + 2^m T_lo) */
static inline double ltm_expm1_fast_d(double x)
{
    double r;
    int64_t k = ltm_exp_fast_red(x, &r);
    double sc = ltm_exp_scale(k, 1023);
    double t = sc * lt_tab_exp_t_hi[k & 127];
    return (t - 1.0) + LT_FMA(t, ltm_exp_fast_p6(r), sc * lt_tab_exp_t_lo[k & 127]);
}
static inline double ltm_expm1_f64_fast(double x)
{
    double xc = x < -40.0 ? -40.0 : (x > 710.0 ? 710.0 : x);
    double y = ltm_expm1_fast_d(xc > 40.0 ? 40.0 : xc);
    int64_t k;
    double s = ltm_exp_fast_t(xc, 0.0, &k);
    double big = (s * ltm_exp_scale(k, 1022)) * 2.0;
    y = xc > 40.0 ? big : y;
    y = x == 0 ? x : y;
    return x == x ? y : x + x;
}
static inline double ltm_tanh_f64_fast(double x)
{
    double ax = __builtin_fabs(x);
    double axc = ax > 20.0 ? 20.0 : ax;
    double e = ltm_expm1_fast_d(2.0 * axc);
    double y = __builtin_copysign(e / (e + 2.0), x);
    return x == x ? y : x + x;
}
static inline double ltm_sigmoid_f64_fast(double x)
{
    double ax = __builtin_fabs(x);
    double axc = ax > 746.0 ? 746.0 : ax;
    int64_t k;
    double s = ltm_exp_fast_t(-axc, 0.0, &k);
    double tail = (s * ltm_exp_scale(k, 1023 + 64)) * 0x1p-64;
    double e = s * ltm_exp_scale(k < -1000 * 128 ? -1000 * 128 : k, 1023);
    double y = (x >= 0 ? 1.0 : e) / (1.0 + e);
    y = x < -40.0 ? tail : y;
    return x == x ? y : x + x;
}
static inline double ltm_sinh_f64_fast(double x)
{
    double ax = __builtin_fabs(x);
    double axc = ax > 711.0 ? 711.0 : ax;
    double e = ltm_expm1_fast_d(axc > 40.0 ? 40.0 : axc);
    double y = 0.5 * (e + e / (1.0 + e));
    int64_t k;
    double s = ltm_exp_fast_t(axc, 0.0, &k);
    y = axc > 40.0 ? (s * ltm_exp_scale(k, 1021)) * 2.0 : y;
    y = __builtin_copysign(y, x);
    return x == x ? y : x + x;
}
static inline double ltm_cosh_f64_fast(double x)
{
    double ax = __builtin_fabs(x);
    double axc = ax > 711.0 ? 711.0 : ax;
    int64_t k;
    double s = ltm_exp_fast_t(axc, 0.0, &k);
    double e = s * ltm_exp_scale(k > 1000 * 128 ? 1000 * 128 : k, 1023);
    double y = 0.5 * (e + 1.0 / e);
    y = axc > 40.0 ? (s * ltm_exp_scale(k, 1021)) * 2.0 : y;
    return x == x ? y : x + x;
}
/* x sigmoid(v) for v = vh + vl (|vl| <= 2^-40 |vh|), the shared tail of gelu_tanh and silu:
 * E = exp(-|v|) = e0 2^m (|v| clamped to 752.5: below -752.5 the callers' results round to
 * zero); v >= 0: x / (1 + E); v < 0: (x e0 / (1 + E)) 2^m, scaled last (rounded once). */
static inline double ltm_mul_sigmoid_f64_fast(double xc, lt_dd v)
{
    double avh = __builtin_fabs(v.hi), avl = v.hi < 0 ? -v.lo : v.lo;
    avl = avh > 752.5 ? 0.0 : avl;
    avh = avh > 752.5 ? 752.5 : avh;
    int64_t k;
    double e0 = ltm_exp_fast_t(-avh, -avl, &k);              /* E = e0 2^m */
    double e = e0 * ltm_exp_scale(k < -1000 * 128 ? -1000 * 128 : k, 1023);
    double d = 1.0 + e;
    double gp = xc / d;
    double gn = ((xc * e0 / d) * ltm_exp_scale(k, 1023 + 64)) * 0x1p-64;
    return v.hi >= 0 ? gp : gn;
}
/* gelu_tanh float64 fast: v = 2u carried as vh + vl (Veltkamp products, no FMA needed, so
 * the generic region keeps the tail accuracy): an absolute error in v is a relative error
 * in g for v < 0, and |v| reaches 745 before g underflows. */
static inline double ltm_gelu_tanh_f64_fast(double x)
{
    double xc = x < -40.0 ? -40.0 : (x > 40.0 ? 40.0 : x);
    lt_dd x2 = lt_two_prod(xc, xc);
    lt_dd x3 = lt_two_prod(x2.hi, xc);
    x3.lo += x2.lo * xc;
    lt_dd w = lt_two_prod(lt_tab_exp_gelu[2], x3.hi);
    w.lo += lt_tab_exp_gelu[2] * x3.lo + lt_tab_exp_gelu[3] * x3.hi;
    lt_dd s = lt_two_sum(xc, w.hi);
    s.lo += w.lo;
    lt_dd v = lt_two_prod(lt_tab_exp_gelu[0], s.hi);
    v.lo += lt_tab_exp_gelu[0] * s.lo + lt_tab_exp_gelu[1] * s.hi;
    double g = ltm_mul_sigmoid_f64_fast(xc, v);
    g = x > 40.0 ? x : g;
    g = x < -40.0 ? -0.0 : g;
    g = x == 0 ? x : g;
    return x == x ? g : x + x;
}
/* silu float64 fast: x > 40: x (e^-40 < 2^-57); x < -752.5: -0 (|silu| < 2^-1075). */
static inline double ltm_silu_f64_fast(double x)
{
    double xc = x < -752.5 ? -752.5 : (x > 40.0 ? 40.0 : x);
    double g = ltm_mul_sigmoid_f64_fast(xc, lt_dd_make(xc, 0.0));
    g = x > 40.0 ? x : g;
    g = x < -752.5 ? -0.0 : g;
    return x == x ? g : x + x;
}

/* ------------------------------------------------------------------ fast-mode rows */
/* Softmax and log-sum-exp rows in fast mode (lt_run_rowwise): e[i] = exp(x[i] - s) for
 * i < n, stored where e is not NULL, and the sum of those values, a chunk at a time while it
 * is in L1 (exact mode runs the subtract, exp and sum functions of the expression instead,
 * for its bits).
 * The sum: each chunk of LT_CHUNK values goes to LTM_ROW_LANES float lanes (at most 8 values
 * a lane, so a lane's relative error stays below 2^-21), the lanes of each chunk into as many
 * double lanes, and those are folded in a fixed order, whatever the row's position or the
 * thread that runs it. */
#define LTM_ROW_LANES 32      /* four vectors of ltm_v8f in ltm_row_lanes_f32 */
typedef float ltm_v8f __attribute__((vector_size(32)));
/* Adds y[j], y[j + 32], ... (m <= LT_CHUNK values, in order) on float lane j, then each float
 * lane to double lane acc[j], which the row's first chunk sets instead (no zeroing, which gcc
 * makes a `rep stos`, slow to start on AMD; the sums are of exps, never -0, so 0 + v would be
 * v).  The float lanes are four named 8-float vectors, so that they stay in registers: gcc
 * keeps an array of lanes in memory, and a 32-lane sum inside the exp loop spilled on AVX2
 * (and cleared its lanes with a `rep stos` a chunk; figures: docs/architecture.md). */
static inline void ltm_row_lanes_f32(int64_t m, const float *restrict y, double *restrict acc,
                                     const int first)
{
    float part[LTM_ROW_LANES];
    int64_t i = 0;
    int j;
    if (m >= LTM_ROW_LANES) {
        ltm_v8f p0, p1, p2, p3, q;
        memcpy(&p0, y, 32); memcpy(&p1, y + 8, 32); memcpy(&p2, y + 16, 32); memcpy(&p3, y + 24, 32);
        for (i = LTM_ROW_LANES; i + LTM_ROW_LANES <= m; i += LTM_ROW_LANES) {
            memcpy(&q, y + i, 32); p0 += q;
            memcpy(&q, y + i + 8, 32); p1 += q;
            memcpy(&q, y + i + 16, 32); p2 += q;
            memcpy(&q, y + i + 24, 32); p3 += q;
        }
        memcpy(part, &p0, 32); memcpy(part + 8, &p1, 32);
        memcpy(part + 16, &p2, 32); memcpy(part + 24, &p3, 32);
    } else {
        for (j = 0; j < LTM_ROW_LANES; j++) part[j] = 0.0f;
    }
    for (j = 0; i < m; i++, j++) part[j] += y[i];
    for (j = 0; j < LTM_ROW_LANES; j++) acc[j] = first ? (double)part[j] : acc[j] + (double)part[j];
}
/* each chunk's exp into e (or a chunk buffer), then its lanes: two loops that vectorise */
static double ltm_exp_sum_f32_fast(int64_t n, float *restrict e, const float *restrict x, float s)
{
    double acc[LTM_ROW_LANES];
    float buf[LT_CHUNK];
    int j;
    if (n <= 0) return 0.0;
    for (int64_t i0 = 0; i0 < n; i0 += LT_CHUNK) {
        const int64_t m = n - i0 < LT_CHUNK ? n - i0 : LT_CHUNK;
        float *y = e ? e + i0 : buf;
        ltm_exp_shifted_f32_fast_chunk(m, y, x + i0, s);
        ltm_row_lanes_f32(m, y, acc, i0 == 0);
    }
    for (int w = LTM_ROW_LANES / 2; w >= 1; w /= 2)
        for (j = 0; j < w; j++) acc[j] += acc[j + w];
    return acc[0];
}
/* float64: ltm_exp_f64_fast handles every input; the sum on double lanes */
static double ltm_exp_sum_f64_fast(int64_t n, double *restrict e, const double *restrict x, double s)
{
    double acc[LTM_ROW_LANES];
    int64_t i = 0;
    int j;
    for (j = 0; j < LTM_ROW_LANES; j++) acc[j] = 0.0;
    if (e) {
        for (; i + LTM_ROW_LANES <= n; i += LTM_ROW_LANES)
            for (j = 0; j < LTM_ROW_LANES; j++) acc[j] += e[i + j] = ltm_exp_f64_fast(x[i + j] - s);
        for (j = 0; i < n; i++, j++) acc[j] += e[i] = ltm_exp_f64_fast(x[i] - s);
    } else {
        for (; i + LTM_ROW_LANES <= n; i += LTM_ROW_LANES)
            for (j = 0; j < LTM_ROW_LANES; j++) acc[j] += ltm_exp_f64_fast(x[i + j] - s);
        for (j = 0; i < n; i++, j++) acc[j] += ltm_exp_f64_fast(x[i] - s);
    }
    for (int w = LTM_ROW_LANES / 2; w >= 1; w /= 2)
        for (j = 0; j < w; j++) acc[j] += acc[j + w];
    return acc[0];
}
