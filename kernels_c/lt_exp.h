/* The exp family: exp, expm1, tanh, sigmoid, sinh, cosh, gelu_tanh (float32 and float64,
 * exact and fast), plus reusable exp cores (ltm_exp_dd, ltm_exp_dd_core).
 *
 * Tables (lt_exp_data.h, tools/gen_exp_tables.py): T_j = 2^(j/128) as double-double,
 * ln2/128 split into a 35-bit head and two tails, 1/n! as double-double.
 *
 * Reduction (all paths): k = round(x * 128/ln2) (shifter trick, |k| < 2^18), j = k & 127,
 * m = k >> 7 (computed as ((k + 1023*128) & ~127) << 45 directly in the exponent field,
 * only unsigned shifts and ands on 64-bit lanes, so it vectorises on AVX2),
 * r = x - k*c_hi exactly (k*c_hi exact with 35+18 bits; the subtraction is exact by
 * Sterbenz when k != 0, trivially when k == 0), then r - k*c_mid.
 * exp(x) = 2^m * T_j * (1 + p(r)), p(r) = exp(r) - 1, |r| <= ln2/256 * (1 + 2^-40) < 0.00271.
 *
 * Exact mode uses only + - * / and bit operations (no FMA), so every path gives the same bits.
 * Float32 exact: pass 1 evaluates in double with a proven relative bound and applies Ziv's test
 * (lt_f32_ambiguous); flagged elements are recomputed in double-double (error < 2^-95 rel.)
 * and rounded with a round-to-odd step (lt_dd_to_f32 in lt_dd.h), so the result is correctly rounded.
 */

/* ------------------------------------------------------------------ small helpers */
/* canonical quiet NaNs (bits 0x7FC00000, 0x7FF8000000000000) */
static inline float ltm_exp_nanf(void) { return __builtin_nanf(""); }
static inline double ltm_exp_nan(void) { return __builtin_nan(""); }

/* min(max(x, lo), hi) on the float argument, NaN passing through (the callers replace NaN
 * lanes at the end): two instructions on 8 lanes, where the same clamp of the double
 * took compares and blends on two halves.  The bounds are floats, so the clamped value and
 * its double are the same as clamping the double. */
static inline float ltm_f32_clamp(float x, float lo, float hi)
{
    float c = x < lo ? lo : x;
    return c > hi ? hi : c;
}


/* ------------------------------------------------------------------ vector first passes */
/* GCC vector types for the vectorised first passes (the float32 Gelu, log and log1p): one
 * source, the same operations on every kernel path.  Lanes per vector: 8 on AVX-512 (the
 * 16-entry lookups are permutes of two registers), 4 on AVX2 and 2 on the baseline (the
 * lookups are loads; gcc lowers 8-lane permutes badly there). */
#undef LTM_GW
#if defined(__AVX512F__)
#define LTM_GW 8
#elif defined(__AVX2__)
#define LTM_GW 4
#else
#define LTM_GW 2
#endif
typedef double ltm_gvd __attribute__((vector_size(8 * LTM_GW)));
typedef int64_t ltm_gvl __attribute__((vector_size(8 * LTM_GW)));
typedef uint64_t ltm_gvu __attribute__((vector_size(8 * LTM_GW)));
typedef float ltm_gvf __attribute__((vector_size(4 * LTM_GW)));
typedef int32_t ltm_gvi __attribute__((vector_size(4 * LTM_GW)));

/* row[idx & 15] for the 16-entry rows */
static inline __attribute__((always_inline)) ltm_gvd ltm_vpick16(const double *row, ltm_gvl idx)
{
#if LTM_GW == 8
    ltm_gvd lo, hi;
    memcpy(&lo, row, sizeof lo);
    memcpy(&hi, row + 8, sizeof hi);
    return __builtin_shuffle(lo, hi, idx);       /* indices taken modulo 16 */
#else
    ltm_gvd r;
    for (int j = 0; j < LTM_GW; j++) r[j] = row[idx[j] & 15];
    return r;
#endif
}

/* float32 lanes widened to double: one vcvtps2pd on AVX-512 (gcc 12 lowers the generic
 * conversion of 8 lanes through two halves, five instructions) */
static inline __attribute__((always_inline)) ltm_gvd ltm_vwiden(ltm_gvf xf)
{
#if LTM_GW == 8
    return (ltm_gvd)_mm512_cvtps_pd((__m256)xf);
#else
    return __builtin_convertvector(xf, ltm_gvd);
#endif
}

/* Ziv's test on the bits of a first pass's double result y whose error is below `units`
 * units of y's last place: is a float32 rounding boundary (a midpoint: the 29 bits below
 * float32 precision are 2^28) that close?  A float32-subnormal result (0 < |y| < 2^-126) is
 * always flagged: its rounding boundaries are elsewhere. */
static inline __attribute__((always_inline)) ltm_gvl ltm_vziv(ltm_gvd y, int64_t units)
{
    ltm_gvl yb = (ltm_gvl)y & 0x7FFFFFFFFFFFFFFF;
    ltm_gvl near_mid = (ltm_gvu)((yb & 0x1FFFFFFF) - 0x10000000 + units) <= (uint64_t)(2 * units);
    ltm_gvl sub = (ltm_gvu)(yb - 1) < 0x380FFFFFFFFFFFFF;
    return near_mid | sub;
}

/* NAME_f32_chunk and NAME_f32 of a vectorised first pass VEC (ltm_gvf VEC(ltm_gvf x,
 * ltm_gvl *ambiguous)): the chunk in vectors (the tail through a zero-padded vector), then
 * the rare flagged elements redone by ACC (float ACC(float)).  The flags stay 64-bit lanes:
 * on AVX-512 every 512-bit operation counts (two ports), and narrowing them costs two.
 * (Defined again for each kernel path's copy of this text, with that path's names.) */
#undef LTM_VEC_TWO_PASS
#define LTM_VEC_TWO_PASS(NAME, VEC, ACC)                                                     \
    static inline void NAME##_f32_chunk(int64_t n, float *restrict o,                       \
                                        const float *restrict a)                             \
    {                                                                                        \
        int64_t amb[LT_CHUNK + LTM_GW];                                                      \
        ltm_gvl any = { 0 };                                                                 \
        int64_t i = 0;                                                                       \
        for (; i + LTM_GW <= n; i += LTM_GW) {                                               \
            ltm_gvf v;                                                                       \
            ltm_gvl m;                                                                       \
            memcpy(&v, a + i, sizeof v);                                                     \
            v = VEC(v, &m);                                                                  \
            memcpy(o + i, &v, sizeof v);                                                     \
            memcpy(amb + i, &m, sizeof m);                                                   \
            any |= m;                                                                        \
        }                                                                                    \
        if (i < n) {                                                                         \
            float t[LTM_GW] = { 0 };                                                         \
            memcpy(t, a + i, (size_t)(n - i) * sizeof(float));                              \
            ltm_gvf v;                                                                       \
            ltm_gvl m;                                                                       \
            memcpy(&v, t, sizeof v);                                                         \
            v = VEC(v, &m);                                                                  \
            memcpy(t, &v, sizeof v);                                                         \
            memcpy(o + i, t, (size_t)(n - i) * sizeof(float));                               \
            memcpy(amb + i, &m, sizeof m);                                                   \
            any |= m;                                                                        \
        }                                                                                    \
        int64_t flagged = 0;                                                                 \
        for (int j = 0; j < LTM_GW; j++) flagged |= any[j];                                  \
        if (flagged)                                                                         \
            for (int64_t j = 0; j < n; j++)                                                  \
                if (amb[j]) o[j] = ACC(a[j]);                                                \
    }                                                                                        \
    static inline float NAME##_f32(float x)                                                  \
    {                                                                                        \
        float y;                                                                             \
        NAME##_f32_chunk(1, &y, &x);                                                         \
        return y;                                                                            \
    }

/* ------------------------------------------------------------------ reduction */
/* x finite, |x| < 1400.  Returns k; r + *rlo == rh + t exactly (two_sum), which is
 * x - k*ln2/128 within 2^-79 (t's rounding) + |k| 2^-98 (c_lo dropped) < 2^-78. */
static inline int64_t ltm_exp_reduce(double x, double *r, double *rlo)
{
    const double shifter = 0x1.8p52;
    double tk = x * lt_tab_exp_red[0] + shifter;
    double kd = tk - shifter;
    int64_t k = (int64_t)(lt_bits64(tk) - lt_bits64(shifter));
    double rh = x - kd * lt_tab_exp_red[1];      /* exact */
    double t = -(kd * lt_tab_exp_red[2]);        /* rounded: |t| < 2^-26, error < 2^-79 */
    double s = rh + t, bb = s - rh;
    *rlo = (rh - (s - bb)) + (t - bb);
    *r = s;
    return k;
}

/* 2^(m + bias - 1023) where m = floor(k / 128): the scale with the exponent field built
 * from k directly (k + bias*128 must be in [128, 2047*128)). */
static inline double ltm_exp_scale(int64_t k, int64_t bias)
{
    return lt_from_bits64(((uint64_t)(k + bias * 128) & ~(uint64_t)127) << 45);
}

/* q(r) with p(r) = r + r^2 q(r), degree 6 Taylor: |p - (exp(r)-1)| <= r^7/7! * 1.01 < 2^-71 |r| */
static inline double ltm_exp_q6(double r)
{
    const double *f = lt_tab_exp_fact;
    return f[4] + r * (f[6] + r * (f[8] + r * (f[10] + r * f[12])));
}

/* ------------------------------------------------------------------ float32 pass-1 cores */
/* exp(x) in double for float32 purposes, x finite in [-745, 709] (callers clamp; the
 * exponent field needs m + 1023 >= 1).  Relative error bound:
 *   r = RN(rh + t): |r - (x - k ln2/128)| <= 2^-53 |r| + 2^-80 -> factor exp(.) error < 2^-61;
 *   p: truncation < 2^-71, evaluation of r + r^2 q: r^2 q <= 2^-9.5 |r|, its errors
 *      < 2^-60 |r|, the final add 2^-53 |p| <= 2^-61.5;
 *   T_hi: 2^-53; T_hi * p: 2^-53 * 2^-8.5; T_hi + T_hi p: 2^-53; scaling exact (normal).
 *   Total < 2^-53 (T) + 2^-53 (add) + 2^-60 < 2^-51.9.
 * With `short_q` (a constant at every call), the same exp to the accuracy a float32 result
 * needs, for the first passes below (their chunk loops are bound by the two 512-bit ports:
 * two multiplies and two adds fewer per vector made exp 0.88x the time at 10^7, gelu_tanh
 * 0.92x, x * sigmoid(x) 0.95x; docs/exact-math.md): degree 4 Taylor, p = r + r^2 (1/2 +
 * r (1/6 + r/24)), truncation |r|^5/120 e^|r| < 1.22e-15 < 2^-49.54 with |r| <= ln2/256 +
 * 2^-80, relative to a result >= e^-|r| > 0.997 of t: < 2^-49.53; the rest as above,
 * < 2^-51.9.  Total < 2^-49.2 relative.  (logaddexp's bound needs the long form.) */
static inline double ltm_exp_d_q(double x, int short_q)
{
    double r, rlo;
    int64_t k = ltm_exp_reduce(x, &r, &rlo);
    const double *f = lt_tab_exp_fact;
    double q = short_q ? f[4] + r * (f[6] + r * f[8]) : ltm_exp_q6(r);
    double p = r + r * r * q;
    double t = lt_tab_exp_t_hi[k & 127];
    return ltm_exp_scale(k, 1023) * (t + t * p);
}
static inline double ltm_exp_d(double x) { return ltm_exp_d_q(x, 0); }
static inline double ltm_exp_d_f32(double x) { return ltm_exp_d_q(x, 1); }

/* expm1(x) in double, x finite in [-745, 709-ish] (scale must not overflow).
 * y = (t - 1) + (t p + 2^m T_lo), t = 2^m T_hi.  Bound, relative to |y|:
 *   k == 0: t = 1, y = p, error of p < 2^-52.8 |p| (r exact here since k = 0 -> r = x).
 *   k != 0: |t - 1| >= 2^(1/128) - 1 > 0.00541 > |t p| / 0.99... so |y| >= 0.99 |b|,
 *   a = t - 1 exact when t in [0.5, 2], else error 2^-53 |a| with |a| <= 1.01 |y|;
 *   b = t p + s T_lo: p error < 2^-52 |p| (r rounding), product and sum 2 * 2^-53;
 *   final add 2^-53.  Total < (2^-53*1.01 + 2^-52 + 2^-52 + 2^-53) |y| < 2^-50.4 |y|. */
static inline double ltm_expm1_d(double x)
{
    double r, rlo;
    int64_t k = ltm_exp_reduce(x, &r, &rlo);
    double p = r + r * r * ltm_exp_q6(r);
    double sc = ltm_exp_scale(k, 1023);
    double t = sc * lt_tab_exp_t_hi[k & 127];
    double b = t * p + sc * lt_tab_exp_t_lo[k & 127];
    return (t - 1.0) + b;
}

/* ------------------------------------------------------------------ double-double core */
/* exp(xh + xl) = 2^m * (returned dd), m = *k >> 7 (floor), returned value in
 * [2^-1/256, 2^(1+1/256)); |xh| <= 1400, |xl| <= 2^-40.  Relative error < 2^-100:
 * reduction with the 3-part ln2/128 (error <= |k| 2^-160 + 2^-106 |r|), degree-11 Taylor
 * of exp(r) - 1 in double-double (truncation r^12/12! < 2^-128), about 2^-104 per dd
 * operation, attenuated by powers of r, and T_j to 2^-106. */
static inline lt_dd ltm_exp_dd_core(double xh, double xl, int64_t *kout)
{
    const double shifter = 0x1.8p52;
    double tk = xh * lt_tab_exp_red[0] + shifter;
    double kd = tk - shifter;
    int64_t k = (int64_t)(lt_bits64(tk) - lt_bits64(shifter));
    double rh = xh - kd * lt_tab_exp_red[1];                 /* exact */
    lt_dd km = lt_two_prod(kd, lt_tab_exp_red[2]);          /* exact */
    lt_dd r = lt_dd_sub(lt_dd_make(rh, 0.0), km);
    r = lt_dd_add_d(r, xl);                       /* separately: xl - kd*c_lo would round */
    r = lt_dd_add_d(r, -(kd * lt_tab_exp_red[3])); /* at 2^-53 |xl|, up to 2^-97 */
    const lt_dd *f = (const lt_dd *)(const void *)lt_tab_exp_fact;
    lt_dd acc = lt_dd_make(f[11].hi, f[11].lo);
    #pragma GCC unroll 16   /* fully: a loop left inside stops the caller's loop vectorising */
    for (int n = 10; n >= 1; n--)
        acc = lt_dd_add(lt_dd_mul(acc, r), lt_dd_make(f[n].hi, f[n].lo));
    lt_dd p = lt_dd_mul(acc, r);                              /* exp(r) - 1 */
    lt_dd T = lt_dd_make(lt_tab_exp_t_hi[k & 127], lt_tab_exp_t_lo[k & 127]);
    *kout = k;
    return lt_dd_add(T, lt_dd_mul(T, p));
}

/* exp(hi + lo) as a double-double with relative error < 2^-100 (measured 2^-105.1 on 60000
 * inputs against MPFR), for -630 <= hi <= 709 and |lo| <= 2^-40 (below -630 the low part
 * of the result becomes subnormal and the relative error grows: use ltm_exp_dd_core, which
 * returns the unscaled value and k, and scale yourself).
 * For reuse by other families (erfc's exp(-t^2), logaddexp). */
static inline lt_dd ltm_exp_dd(double hi, double lo)
{
    int64_t k;
    lt_dd e = ltm_exp_dd_core(hi, lo, &k);
    double s = ltm_exp_scale(k, 1023);
    return lt_dd_make(e.hi * s, e.lo * s);
}

/* expm1(x) as double-double, x finite in [-700, 709], relative error < 2^-95
 * (k == 0: p itself; k != 0: |result| > 0.0054 and the dd subtraction loses < 8 bits). */
static inline lt_dd ltm_expm1_dd(double x)
{
    int64_t k;
    const double shifter = 0x1.8p52;
    double tk = x * lt_tab_exp_red[0] + shifter;
    if (lt_bits64(tk) == lt_bits64(shifter)) {               /* k == 0: exp(x)-1 = p(x) */
        const lt_dd *f = (const lt_dd *)(const void *)lt_tab_exp_fact;
        lt_dd r = lt_dd_make(x, 0.0);
        lt_dd acc = lt_dd_make(f[12].hi, f[12].lo);
        for (int n = 11; n >= 1; n--)
            acc = lt_dd_add(lt_dd_mul(acc, r), lt_dd_make(f[n].hi, f[n].lo));
        return lt_dd_mul(acc, r);
    }
    lt_dd e = ltm_exp_dd_core(x, 0.0, &k);
    double s = ltm_exp_scale(k, 1023);
    return lt_dd_add_d(lt_dd_make(e.hi * s, e.lo * s), -1.0);
}

/* ------------------------------------------------------------------ float32 accurate paths */
static inline float ltm_exp_acc_f32(double x)
{
    lt_dd e = ltm_exp_dd(x, 0.0);
    return lt_dd_to_f32(e);
}
static inline float ltm_expm1_acc_f32(double x)
{
    lt_dd e = ltm_expm1_dd(x);
    return lt_dd_to_f32(e);
}
static inline float ltm_tanh_acc_f32(double ax, double sign)   /* ax = |x| <= 10 */
{
    lt_dd e = ltm_expm1_dd(2.0 * ax);
    lt_dd q = lt_dd_div(e, lt_dd_add_d(e, 2.0));
    return lt_dd_to_f32(lt_dd_make(q.hi * sign, q.lo * sign));
}
/* sigmoid(x) as dd, |x| <= 110 */
static inline lt_dd ltm_sigmoid_dd(double x)
{
    lt_dd e = ltm_exp_dd(-__builtin_fabs(x), 0.0);
    lt_dd num = x >= 0 ? lt_dd_make(1.0, 0.0) : e;
    return lt_dd_div(num, lt_dd_add_d(e, 1.0));
}
static inline float ltm_sigmoid_acc_f32(double x) { return lt_dd_to_f32(ltm_sigmoid_dd(x)); }
static inline float ltm_silu_acc_f32(double x)                 /* |x| <= 110 */
{
    return lt_dd_to_f32(lt_dd_mul_d(ltm_sigmoid_dd(x), x));
}
static inline float ltm_sinh_acc_f32(double ax, double sign)   /* ax = |x| <= 90 */
{
    lt_dd e = ltm_expm1_dd(ax);
    lt_dd q = lt_dd_div(e, lt_dd_add_d(e, 1.0));
    lt_dd s = lt_dd_add(e, q);
    return lt_dd_to_f32(lt_dd_make(0.5 * s.hi * sign, 0.5 * s.lo * sign));
}
static inline float ltm_cosh_acc_f32(double ax)                /* ax = |x| <= 90 */
{
    lt_dd e = ltm_exp_dd(ax, 0.0);
    lt_dd q = lt_dd_div(lt_dd_make(1.0, 0.0), e);
    lt_dd s = lt_dd_add(e, q);
    return lt_dd_to_f32(lt_dd_make(0.5 * s.hi, 0.5 * s.lo));
}

/* ------------------------------------------------------------------ float32 pass 1 */
/* Each returns the float32 result and sets *amb when the element must be recomputed
 * (Ziv's test with a bound at least 2x the proven one above; NaN lanes never flagged).
 * The clamp bounds lo, hi are parameters: the chunk loops pass them through volatile locals
 * read once per chunk, because with literal bounds gcc threads the constant (clamped) path,
 * folds exp(constant) there and the table load becomes a masked gather it cannot vectorise. */
static inline float ltm_exp_p1(float xf, float lo, float hi, int32_t *amb)
{
    double x = xf;
    double xc = ltm_f32_clamp(xf, lo, hi);         /* lo = -104, hi = 89: beyond, 0 / inf */
    double y = ltm_exp_d_f32(xc);                 /* < 2^-49.2 */
    *amb = lt_f32_ambiguous(y, y * 0x1p-48) & (x == x);
    return x == x ? (float)y : ltm_exp_nanf();
}

static inline float ltm_expm1_p1(float xf, float lo, float hi, int32_t *amb)
{
    double x = xf;
    double xc = ltm_f32_clamp(xf, lo, hi);         /* lo = -104, hi = 89 */
    double y = ltm_expm1_d(xc);
    y = x == 0 ? x : y;                                          /* expm1(-0) = -0 */
    *amb = lt_f32_ambiguous(y, __builtin_fabs(y) * 0x1p-49) & (x == x);
    return x == x ? (float)y : ltm_exp_nanf();
}

/* tanh(|x|) = e / (e + 2), e = expm1(2|x|) >= 0: relative error < 2^-50.4 (e, condition
 * 2/(e+2) <= 1) + 2 * 2^-53 < 2^-49.9. |x| clamped to 10 (tanh rounds to 1 from 9.01). */
static inline float ltm_tanh_p1(float xf, float lo, float hi, int32_t *amb)
{
    (void)lo;                                      /* symmetric: only |x| <= hi */
    double x = xf;
    float ax = __builtin_fabsf(xf);
    double axc = ax > hi ? hi : ax;                /* hi = 10; in float: one min on 8 lanes */
    double e = ltm_expm1_d(2.0 * axc);
    double y = e / (e + 2.0);
    *amb = lt_f32_ambiguous(y, y * 0x1p-48) & (x == x);
    y = __builtin_copysign(y, x);
    return x == x ? (float)y : ltm_exp_nanf();
}

/* sigmoid: E = exp(-|x|) (< 2^-49.2), its error carried into E/(1+E) or 1/(1+E) scaled by at
 * most 1, 1 + E and the division 2 * 2^-53: < 2^-49 relative. */
static inline float ltm_sigmoid_p1(float xf, float lo, float hi, int32_t *amb)
{
    (void)lo;                                      /* symmetric: only |x| <= hi */
    double x = xf;
    float ax = __builtin_fabsf(xf);
    double axc = ax > hi ? hi : ax;                /* hi = 110; in float: one min on 8 lanes */
    double e = ltm_exp_d_f32(-axc);
    double num = x >= 0 ? 1.0 : e;
    double y = num / (1.0 + e);
    *amb = lt_f32_ambiguous(y, y * 0x1p-48) & (x == x);
    return x == x ? (float)y : ltm_exp_nanf();
}

/* sinh(|x|) = (e + e/(1+e)) / 2, e = expm1(|x|) >= 0, both terms >= 0:
 * < 2^-50.4 + 3 * 2^-53 < 2^-49.6 relative.  |x| clamped to 90 (overflow from 89.42). */
static inline float ltm_sinh_p1(float xf, float lo, float hi, int32_t *amb)
{
    (void)lo;                                      /* symmetric: only |x| <= hi */
    double x = xf;
    float ax = __builtin_fabsf(xf);
    double axc = ax > hi ? hi : ax;                /* hi = 90; in float: one min on 8 lanes */
    double e = ltm_expm1_d(axc);
    double y = 0.5 * (e + e / (1.0 + e));
    *amb = lt_f32_ambiguous(y, y * 0x1p-48) & (x == x);
    y = __builtin_copysign(y, x);
    return x == x ? (float)y : ltm_exp_nanf();
}

/* cosh(|x|) = (E + 1/E) / 2, E = exp(|x|): < 2^-49.2 + 2 * 2^-53 < 2^-49 relative. */
static inline float ltm_cosh_p1(float xf, float lo, float hi, int32_t *amb)
{
    (void)lo;                                      /* symmetric: only |x| <= hi */
    double x = xf;
    float ax = __builtin_fabsf(xf);
    double axc = ax > hi ? hi : ax;                /* hi = 90; in float: one min on 8 lanes */
    double e = ltm_exp_d_f32(axc);
    double y = 0.5 * (e + 1.0 / e);
    *amb = lt_f32_ambiguous(y, y * 0x1p-48) & (x == x);
    return x == x ? (float)y : ltm_exp_nanf();
}

/* silu = x sigmoid(x), E = exp(-|x|): x E / (1 + E) or x / (1 + E), x exact: < 2^-49.2 +
 * 3 * 2^-53 < 2^-48.9 relative.  |x| clamped to 110 for E and x to -110 (below, |silu| <
 * 110 e^-110 < 2^-150 rounds to -0; above 110, x / (1 + E) is x). */
static inline float ltm_silu_p1(float xf, float lo, float hi, int32_t *amb)
{
    (void)lo;                                      /* symmetric: only |x| <= hi */
    double x = xf;
    float ax = __builtin_fabsf(xf);
    double axc = ax > hi ? hi : ax;                /* hi = 110; in float: one min on 8 lanes */
    double xc = x < -axc ? -axc : x;               /* max(x, -110) */
    double e = ltm_exp_d_f32(-axc);
    double num = x >= 0 ? 1.0 : e;
    double y = xc * (num / (1.0 + e));
    /* |x| > 110 is never ambiguous (the result is x or rounds to -0); NaN not flagged */
    *amb = lt_f32_ambiguous(y, __builtin_fabs(y) * 0x1p-47) & (ax <= hi);
    return x == x ? (float)y : ltm_exp_nanf();
}

/* ------------------------------------------------------------------ float32 exact API */
/* NAME_f32 and its chunk form NAME_f32_chunk from pass 1 (NAME_p1 with the clamp bounds LO, HI)
 * and the accurate path ACC, an expression of the float x.  The chunk form's pass 1 is
 * vectorised (flags in a local int32 array), pass 2 is scalar.  Its bounds go through
 * volatile: with them as constants gcc folds the clamps into branches and stops vectorising.
 * (The macro's name starts with ltm_ so that each kernel path's copy has its own name.) */
#define ltm_exp_two_pass(NAME, LO, HI, ACC)                                                  \
    static inline float NAME##_f32(float x)                                            \
    {                                                                                        \
        int32_t amb;                                                                         \
        float y = NAME##_p1(x, LO, HI, &amb);                                          \
        return amb ? (ACC) : y;                                                              \
    }                                                                                        \
    static inline void NAME##_f32_chunk(int64_t n, float *restrict o,                 \
                                              const float *restrict a)                       \
    {                                                                                        \
        volatile float lov = LO, hiv = HI;                                                   \
        float lo = lov, hi = hiv;                                                            \
        int32_t amb[256];                                                                    \
        int32_t any = 0;                                                                     \
        for (int64_t i = 0; i < n; i++) { o[i] = NAME##_p1(a[i], lo, hi, &amb[i]); any |= amb[i]; } \
        if (any)                                                                             \
            for (int64_t i = 0; i < n; i++)                                                  \
                if (amb[i]) { const float x = a[i]; o[i] = (ACC); }                          \
    }

ltm_exp_two_pass(ltm_exp, -104.0, 89.0, ltm_exp_acc_f32(x))
ltm_exp_two_pass(ltm_expm1, -104.0, 89.0, ltm_expm1_acc_f32(x))
ltm_exp_two_pass(ltm_tanh, 0.0, 10.0, ltm_tanh_acc_f32(__builtin_fabs((double)x), x < 0 ? -1.0 : 1.0))
ltm_exp_two_pass(ltm_sigmoid, 0.0, 110.0, ltm_sigmoid_acc_f32(x))
ltm_exp_two_pass(ltm_silu, 0.0, 110.0, ltm_silu_acc_f32(x))
ltm_exp_two_pass(ltm_sinh, 0.0, 90.0, ltm_sinh_acc_f32(__builtin_fabs((double)x), x < 0 ? -1.0 : 1.0))
ltm_exp_two_pass(ltm_cosh, 0.0, 90.0, ltm_cosh_acc_f32(__builtin_fabs((double)x)))

/* ------------------------------------------------------------------ gelu_tanh float32 */
/* g(x) = x * sigmoid(v), v = 2u = 2 sqrt(2/pi) (x + 0.044715 x^3), in double, rounded once.
 * v = x (c1 + c13 x^2): relative error < 4 * 2^-53, absolute < |v| 2^-51; for v < 0 that
 * changes exp(v) by a factor within |v| 2^-51 <= 2^-43.3 (|v| clamped to 200: below it
 * |g| < 3.4e38 e^-200 < 2^-150 already rounds to zero); exp 2^-49.2, the division and the
 * product 2^-52: total < 2^-43 relative, so the float32 result is within 0.5 + 2^-19 ulp
 * (faithful, usually correctly rounded; for |x| < 2^-100 the nearest float32, see below).
 * Same code on every path: bit-reproducible. */
static inline float ltm_gelu_tanh_e32(float xf, double hi)      /* hi = 200 */
{
    double x = xf;
    const double c1 = lt_tab_exp_gelu[0], c13 = lt_tab_exp_gelu[4];
    double v = x * (c1 + c13 * (x * x));
    double av = __builtin_fabs(v);
    av = av > hi ? hi : av;
    double e = ltm_exp_d_f32(-av);
    double num = v >= 0 ? 1.0 : e;
    double g = x * (num / (1.0 + e));
    g = x == -__builtin_inf() ? -0.0 : g;
    return x == x ? (float)g : ltm_exp_nanf();
}
/* Both Gelus for |x| < 2^-100: gelu(x) = x/2 + x^2/sqrt(2 pi) (the erf form; the tanh form
 * has the same two terms), the next term below 2^-200 |x|.  x/2 is exact in double and is a
 * float32 midpoint when x is a subnormal, or in [2^-126, 2^-125), with an odd last bit: the
 * positive x^2 term then decides, towards +inf (both signs).  Elsewhere x/2 is the nearest
 * float32. */
static inline float ltm_gelu32_tiny(float x)
{
    double h = 0.5 * (double)x;
    float y = (float)h;
    if ((double)y < h) {                      /* rounded down from a midpoint: step up */
        int32_t b;
        memcpy(&b, &y, 4);
        b += y > 0.0f || (y == 0.0f && b == 0) ? 1 : -1;   /* +0 -> the least subnormal */
        memcpy(&y, &b, 4);
    }
    return y;
}

/* The formula above rounds those midpoints to even; a second loop, run only when the chunk
 * has an element below 2^-100, gives them the nearest float32. */
static inline void ltm_gelu_tanh_f32_chunk(int64_t n, float *restrict o, const float *restrict a)
{
    volatile double hiv = 200.0;      /* opaque bound, see the pass-1 comment above */
    double hi = hiv;
    int32_t tiny = 0;
    for (int64_t i = 0; i < n; i++) {
        o[i] = ltm_gelu_tanh_e32(a[i], hi);
        tiny |= __builtin_fabsf(a[i]) < 0x1p-100f;
    }
    if (tiny)
        for (int64_t i = 0; i < n; i++)
            if (__builtin_fabsf(a[i]) < 0x1p-100f) o[i] = ltm_gelu32_tiny(a[i]);
}
static inline float ltm_gelu_tanh_f32(float x)
{
    float y;
    ltm_gelu_tanh_f32_chunk(1, &y, &x);
    return y;
}

/* ------------------------------------------------------------------ float64 exact */
/* Shared: s_hi + s_lo = T_j (1 + p(r)) for x, relative error < 2^-60 (T as dd, p with r's
 * two_sum tail), m = k >> 7.  Used by exp; the expm1 version keeps more terms. */
static inline int64_t ltm_exp_core64(double x, double *sh, double *sl)
{
    double r, rlo;
    int64_t k = ltm_exp_reduce(x, &r, &rlo);
    double p = r + (rlo + r * r * ltm_exp_q6(r));
    double th = lt_tab_exp_t_hi[k & 127], tl = lt_tab_exp_t_lo[k & 127];
    double w = tl + th * p;
    double s = th + w;
    *sh = s;
    *sl = w - (s - th);                                     /* fast two_sum, |th| > |w| */
    return k;
}

/* exp, float64: y = RN(s_hi + s_lo) scaled by 2^m; before scaling the error is 0.5 ulp +
 * 2^-60 relative; for x < 0 the scaling is split (2^(m+64) exact, then 2^-64, one rounding
 * in the subnormal range: < 0.5 ulp + 2^-52 ulp); for x >= 0 2^(m-1) then 2 (overflow exact). */
static inline double ltm_exp_f64(double x)
{
    /* bitwise selects: with ?: and constants gcc may thread a clamped constant through the
       table loads, which then cannot be vectorised in a loop that inlines this */
    double xc = lt_select(x < -746.0, -746.0, lt_select(x > 710.0, 710.0, x));
    xc = lt_select(x == x, xc, 0.0);
    double sh, sl;
    int64_t k = ltm_exp_core64(xc, &sh, &sl);
    int64_t bias = xc < 0 ? 1023 + 64 : 1022;
    double post = lt_select(xc < 0, 0x1p-64, 2.0);
    double y = (sh * ltm_exp_scale(k, bias)) * post;
    return lt_select(x == x, y, ltm_exp_nan());
}

/* expm1 float64 as an unevaluated sum *eh + *el (for |x| <= 40), relative error < 2^-62:
 * t = 2^m T_hi, a = t - 1 exactly (two_sum), t r exactly (two_prod), the remaining terms
 * t (rlo + r^2 q) + 2^m T_lo (1 + r) are below 2^-8 |y| and computed to 2^-52 of themselves
 * (the T_lo p term matters: 2^-53 p is 2^-53 |y| when k = +-1). */
static inline void ltm_expm1_dd64(double x, double *eh, double *el)
{
    double r, rlo;
    int64_t k = ltm_exp_reduce(x, &r, &rlo);
    double pl = rlo + r * r * ltm_exp_q6(r);               /* p = r + pl */
    double sc = ltm_exp_scale(k, 1023);
    double t = sc * lt_tab_exp_t_hi[k & 127];
    lt_dd a = lt_two_sum(t, -1.0);
    lt_dd b = lt_two_prod(t, r);
    lt_dd s = lt_two_sum(a.hi, b.hi);
    double rest = ((a.lo + b.lo) + t * pl) + (sc * lt_tab_exp_t_lo[k & 127]) * (1.0 + r);
    lt_dd y = lt_fast_two_sum(s.hi, s.lo + rest);
    *eh = y.hi;
    *el = y.lo;
}

/* expm1 float64: |x| <= 40 from the sum above (0.5 ulp + 2^-62), x > 40 exp(x) itself
 * (exp(x) - 1 rounds to exp(x) there), x < -40 -> -1. */
static inline double ltm_expm1_f64(double x)
{
    double xc = lt_select(x < -40.0, -40.0, lt_select(x > 710.0, 710.0, x));
    xc = lt_select(x == x, xc, 0.0);
    double xm = lt_select(xc > 40.0, 40.0, xc);
    double eh, el;
    ltm_expm1_dd64(xm, &eh, &el);
    double y = eh + el;
    double sh, sl;
    int64_t k = ltm_exp_core64(xc, &sh, &sl);
    double big = (sh * ltm_exp_scale(k, 1022)) * 2.0;
    y = lt_select(xc > 40.0, big, y);
    y = lt_select(x == 0, x, y);
    return lt_select(x == x, y, ltm_exp_nan());
}

/* (nh + nl) / (dh + dl) as qh + ql with relative error < 2^-100-ish; qh + ql rounded to
 * a double is within 0.5 ulp + 2^-100 relative. */
static inline lt_dd ltm_exp_div64(double nh, double nl, double dh, double dl)
{
    double q0 = nh / dh;
    lt_dd p = lt_two_prod(q0, dh);
    double rem = (((nh - p.hi) - p.lo) + nl) - q0 * dl;
    double q1 = rem / dh;
    return lt_fast_two_sum(q0, q1);
}

/* tanh float64: e = expm1(2|x|) as a sum (2^-62), tanh = e / (e + 2) by one corrected
 * division: < 0.5 ulp + 2^-58 relative.  |x| > 20 -> +-1 (tanh rounds to 1 from 19.06). */
static inline double ltm_tanh_f64(double x)
{
    double ax = __builtin_fabs(x);
    double axc = lt_select(ax > 20.0, 20.0, ax);
    axc = lt_select(x == x, axc, 0.0);
    double eh, el;
    ltm_expm1_dd64(2.0 * axc, &eh, &el);
    lt_dd d = lt_two_sum(eh, 2.0);
    lt_dd q = ltm_exp_div64(eh, el, d.hi, d.lo + el);
    double y = q.hi + q.lo;
    y = lt_select(axc == 0, 0.0, y);
    y = __builtin_copysign(y, x);
    return lt_select(x == x, y, ltm_exp_nan());
}

/* sigmoid float64: E = exp(-|x|) as dd (2^-60), 1/(1+E) or E/(1+E) by the corrected
 * division: < 0.5 ulp + 2^-58.  x > 40 -> 1 (1 - 4e-18 rounds to 1); x < -40: E itself,
 * relative difference E < 2^-57, with the split scaling for the subnormal range. */
static inline double ltm_sigmoid_f64(double x)
{
    double ax = __builtin_fabs(x);
    double axc = lt_select(ax > 746.0, 746.0, ax);
    axc = lt_select(x == x, axc, 0.0);
    double sh, sl;
    int64_t k = ltm_exp_core64(-axc, &sh, &sl);
    double tail = (sh * ltm_exp_scale(k, 1023 + 64)) * 0x1p-64;
    double sc = ltm_exp_scale(k, 1023);                  /* garbage when axc > 708: unused */
    double Eh = sh * sc, El = sl * sc;
    lt_dd d = lt_two_sum(1.0, Eh);
    double nh = lt_select(x >= 0, 1.0, Eh), nl = lt_select(x >= 0, 0.0, El);
    lt_dd q = ltm_exp_div64(nh, nl, d.hi, d.lo + El);
    double y = q.hi + q.lo;
    y = lt_select(x > 40.0, 1.0, lt_select(x < -40.0, tail, y));
    return lt_select(x == x, y, ltm_exp_nan());
}

/* sinh float64, |x| <= 40: e = expm1(|x|) as a sum, q = e/(1+e) as dd, (e + q)/2:
 * < 0.5 ulp + 2^-57.  |x| > 40: exp(|x|)/2 = (T(1+p) 2^(m-2)) * 2 (e^-|x| negligible, < 2^-115;
 * 2^(m-1) itself overflows when m = 1025, just below the threshold 710.4758600739439),
 * overflow exactly where exp(|x|)/2 does. */
static inline double ltm_sinh_f64(double x)
{
    double ax = __builtin_fabs(x);
    double axc = lt_select(ax > 711.0, 711.0, ax);
    axc = lt_select(x == x, axc, 0.0);
    double am = lt_select(axc > 40.0, 40.0, axc);
    double eh, el;
    ltm_expm1_dd64(am, &eh, &el);
    lt_dd d = lt_two_sum(eh, 1.0);
    lt_dd q = ltm_exp_div64(eh, el, d.hi, d.lo + el);
    lt_dd s = lt_two_sum(eh, q.hi);
    double y = 0.5 * (s.hi + (s.lo + (el + q.lo)));
    double sh, sl;
    int64_t k = ltm_exp_core64(axc, &sh, &sl);
    double half = (sh * ltm_exp_scale(k, 1021)) * 2.0;
    y = lt_select(axc > 40.0, half, y);
    y = lt_select(axc == 0, 0.0, y);
    y = __builtin_copysign(y, x);
    return lt_select(x == x, y, ltm_exp_nan());
}

/* cosh float64, |x| <= 40: E = exp(|x|) as dd, 1/E as dd, (E + 1/E)/2: < 0.5 ulp + 2^-57. */
static inline double ltm_cosh_f64(double x)
{
    double ax = __builtin_fabs(x);
    double axc = lt_select(ax > 711.0, 711.0, ax);
    axc = lt_select(x == x, axc, 0.0);
    double sh, sl;
    int64_t k = ltm_exp_core64(axc, &sh, &sl);
    double sc = ltm_exp_scale(k, 1023);               /* inf/garbage when axc > 709: unused */
    double Eh = sh * sc, El = sl * sc;
    lt_dd q = ltm_exp_div64(1.0, 0.0, Eh, El);
    lt_dd s = lt_two_sum(Eh, q.hi);
    double y = 0.5 * (s.hi + (s.lo + (El + q.lo)));
    double half = (sh * ltm_exp_scale(k, 1021)) * 2.0;
    y = lt_select(axc > 40.0, half, y);
    return lt_select(x == x, y, ltm_exp_nan());
}

/* x sigmoid(v) for v = vh + vl as dd, the shared tail of gelu_tanh and silu: E = exp(-|v|) by
 * ltm_exp_dd_core (2^-100; |v| clamped to 752.5: below -752.5 the callers' results round to
 * zero), g = x / (1 + E) (v >= 0) or x T(1+p) 2^m / (1 + E) (v < 0), one dd division, rounded
 * once: < 0.5 ulp + 2^-95 relative, 0.5 ulp + 2^-52 ulp in the subnormal range (the scaling
 * 2^(m+64) * 2^-64 rounds once). */
static inline double ltm_mul_sigmoid_f64(double xc, lt_dd v)
{
    double avh = __builtin_fabs(v.hi), avl = lt_select(v.hi < 0, -v.lo, v.lo);
    int big = avh > 752.5;
    avh = lt_select(big, 752.5, avh);
    avl = lt_select(big, 0.0, avl);
    int64_t k;
    lt_dd s = ltm_exp_dd_core(-avh, -avl, &k);          /* E = s 2^m, m = k >> 7 <= 0 */
    int64_t kc = k < -1000 * 128 ? -1000 * 128 : k;     /* E < 2^-999: 1 + E == 1 anyway */
    double sc = ltm_exp_scale(kc, 1023);
    lt_dd d = lt_dd_add_d(lt_dd_make(s.hi * sc, s.lo * sc), 1.0);
    /* v >= 0: x / (1 + E); v < 0: x T(1+p) / (1 + E), then scaled by 2^m (selects: one
     * division serves both, and the loop vectorises) */
    int vpos = v.hi >= 0;
    lt_dd q = lt_dd_div(lt_dd_select(vpos, lt_dd_make(xc, 0.0), lt_dd_mul_d(s, xc)), d);
    double g = q.hi + q.lo;
    return lt_select(vpos, g, (g * ltm_exp_scale(k, 1023 + 64)) * 0x1p-64);
}

/* gelu_tanh float64, in double-double throughout: v = 2 sqrt(2/pi) (x + 0.044715 x^3) with
 * both constants as dd (error < 2^-100 |v|), then x sigmoid(v) as above.  x > 40: g = x
 * (1 - g/x < e^-87 < 2^-125); x < -40 or v < -750: the result is below 2^-1075, -0. */
static inline double ltm_gelu_tanh_f64(double x)
{
    double xc = lt_select(x < -40.0, -40.0, lt_select(x > 40.0, 40.0, x));
    xc = lt_select(x == x, xc, 0.0);
    const lt_dd c1 = lt_dd_make(lt_tab_exp_gelu[0], lt_tab_exp_gelu[1]);
    const lt_dd c3 = lt_dd_make(lt_tab_exp_gelu[2], lt_tab_exp_gelu[3]);
    lt_dd x2 = lt_two_prod(xc, xc);
    lt_dd x3 = lt_dd_mul_d(x2, xc);
    lt_dd w = lt_dd_add_d(lt_dd_mul(c3, x3), xc);
    lt_dd v = lt_dd_mul(c1, w);
    double g = ltm_mul_sigmoid_f64(xc, v);
    g = lt_select(x > 40.0, x, g);
    g = lt_select((x < -40.0) | (v.hi < -750.0), -0.0, g);
    g = __builtin_copysign(g, x);    /* x sigmoid(2u) has the sign of x, also when it underflows */
    return lt_select(x == x, g, ltm_exp_nan());
}
/* flatten: inlines ltm_exp_dd_core too, which the loop needs to vectorise */
static __attribute__((flatten)) void ltm_gelu_tanh_f64_chunk(int64_t n, double *restrict o,
                                                             const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_gelu_tanh_f64(a[i]); }

/* silu float64: x sigmoid(x) with the argument exact, as above.  x > 40: x (e^-40 < 2^-57);
 * x < -752.5: -0 (|silu| < 2^-1075). */
static inline double ltm_silu_f64(double x)
{
    double xc = lt_select(x < -752.5, -752.5, lt_select(x > 40.0, 40.0, x));
    xc = lt_select(x == x, xc, 0.0);
    double g = ltm_mul_sigmoid_f64(xc, lt_dd_make(xc, 0.0));
    g = lt_select(x > 40.0, x, g);
    g = lt_select(x < -752.5, -0.0, g);
    g = __builtin_copysign(g, x);    /* x sigmoid(x) has the sign of x, also when it underflows */
    return lt_select(x == x, g, ltm_exp_nan());
}
static __attribute__((flatten)) void ltm_silu_f64_chunk(int64_t n, double *restrict o,
                                                        const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_silu_f64(a[i]); }

/* ------------------------------------------------------------------ fast mode */
/* Fast double exp core: returns 2^m-scaled pieces; r = x - k ln2/128 with two FMAs
 * (or plain in the generic region: kd*c_hi is exact, kd*c_mid rounds below 2^-79).
 * p degree `deg` Taylor: deg 4 (float32 use: truncation 2^-49 vs 1, 2^-40.9 vs r),
 * deg 6 (float64 use). */
static inline int64_t ltm_exp_fast_red(double x, double *r)
{
    const double shifter = 0x1.8p52;
    double tk = LT_FMA(x, lt_tab_exp_red[0], shifter);
    double kd = tk - shifter;
    int64_t k = (int64_t)(lt_bits64(tk) - lt_bits64(shifter));
    double rh = x - kd * lt_tab_exp_red[1];
    *r = LT_FMA(kd, -lt_tab_exp_red[2], rh);
    return k;
}
static inline double ltm_exp_fast_p4(double r)
{
    const double *f = lt_tab_exp_fact;
    return LT_FMA(r * r, LT_FMA(r, LT_FMA(r, f[8], f[6]), f[4]), r);
}
static inline double ltm_exp_fast_p6(double r)
{
    const double *f = lt_tab_exp_fact;
    double r2 = r * r;
    double q = LT_FMA(r2, LT_FMA(r, f[12], f[10]), LT_FMA(r, f[8], f[6]));
    return LT_FMA(r2, LT_FMA(r, q, f[4]), r);
}
/* Fast double exp core (used by the float32 fast forms; reusable): exp(x) for x clamped to
 * [-745, 709] by the caller, relative error < 2^-49 (degree-4 polynomial, T_hi only). */
static inline double ltm_exp_fast_d32(double x)
{
    double r;
    int64_t k = ltm_exp_fast_red(x, &r);
    double t = lt_tab_exp_t_hi[k & 127];
    return ltm_exp_scale(k, 1023) * LT_FMA(t, ltm_exp_fast_p4(r), t);
}
static inline double ltm_expm1_fast_d32(double x)
{
    double r;
    int64_t k = ltm_exp_fast_red(x, &r);
    double t = ltm_exp_scale(k, 1023) * lt_tab_exp_t_hi[k & 127];
    return LT_FMA(t, ltm_exp_fast_p4(r), t - 1.0);
}

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
