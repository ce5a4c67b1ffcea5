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

/* Columns 0 .. n-1 of the rows idx[j] & 15 of a 16-row table, out[c] for column c.  `rows`
 * holds the table by row (`stride` doubles a row, at least n rounded up to 4, rows 32-byte
 * aligned), `cols` the same values by column (column c at cols + 16 c).  AVX2: one load of a
 * row slice per lane and a 4x4 transpose in registers (4 loads and 8 shuffles for 4 columns,
 * where ltm_vpick16 moves each lane's index out and loads and inserts each value on its own);
 * out[] needs room for n rounded up to 4.  AVX-512 (permutes) and the baseline (2 lanes: the
 * same transpose measured no faster, and slower in log) take ltm_vpick16 on the columns.
 * The same values reach the registers on every path: only the moves differ. */
static inline __attribute__((always_inline)) void ltm_vrows16(ltm_gvd *out, const double *rows, int stride,
                                                              const double *cols, int n, ltm_gvl idx)
{
#if LTM_GW == 4
    (void)cols;
    const double *row[4];
    for (int j = 0; j < 4; j++) row[j] = rows + (idx[j] & 15) * stride;
    for (int c = 0; c < n; c += 4) {
        ltm_gvd r0, r1, r2, r3;
        memcpy(&r0, row[0] + c, sizeof r0);
        memcpy(&r1, row[1] + c, sizeof r1);
        memcpy(&r2, row[2] + c, sizeof r2);
        memcpy(&r3, row[3] + c, sizeof r3);
        ltm_gvd t0 = __builtin_shuffle(r0, r1, (ltm_gvl){ 0, 4, 2, 6 });
        ltm_gvd t1 = __builtin_shuffle(r0, r1, (ltm_gvl){ 1, 5, 3, 7 });
        ltm_gvd t2 = __builtin_shuffle(r2, r3, (ltm_gvl){ 0, 4, 2, 6 });
        ltm_gvd t3 = __builtin_shuffle(r2, r3, (ltm_gvl){ 1, 5, 3, 7 });
        out[c] = __builtin_shuffle(t0, t2, (ltm_gvl){ 0, 1, 4, 5 });
        out[c + 1] = __builtin_shuffle(t1, t3, (ltm_gvl){ 0, 1, 4, 5 });
        out[c + 2] = __builtin_shuffle(t0, t2, (ltm_gvl){ 2, 3, 6, 7 });
        out[c + 3] = __builtin_shuffle(t1, t3, (ltm_gvl){ 2, 3, 6, 7 });
    }
#else
    (void)rows, (void)stride;
    for (int c = 0; c < n; c++) out[c] = ltm_vpick16(cols + 16 * c, idx);
#endif
}

/* float32 lanes widened to double (exact): one vcvtps2pd on AVX-512 and AVX2 (gcc 12 lowers
 * the generic conversion through two halves: five instructions on AVX-512, a store and a
 * reload on AVX2) */
static inline __attribute__((always_inline)) ltm_gvd ltm_vwiden(ltm_gvf xf)
{
#if LTM_GW == 8
    return (ltm_gvd)_mm512_cvtps_pd((__m256)xf);
#elif LTM_GW == 4 && defined(__AVX2__)
    return (ltm_gvd)_mm256_cvtps_pd((__m128)xf);
#else
    return __builtin_convertvector(xf, ltm_gvd);
#endif
}

/* min(|x|, clamp), NaN -> clamp (the caller replaces its lane): the AVX min gives its second
 * operand when the first is NaN; elsewhere bit operations (a plain ?: may become a branch) */
static inline __attribute__((always_inline)) ltm_gvd ltm_vabs_clamped(ltm_gvd x, double clamp)
{
    ltm_gvd a = (ltm_gvd)((ltm_gvl)x & 0x7FFFFFFFFFFFFFFF), c = (ltm_gvd){0} + clamp;
#if LTM_GW == 8
    return (ltm_gvd)_mm512_min_pd((__m512d)a, (__m512d)c);
#elif LTM_GW == 4 && defined(__AVX2__)
    return (ltm_gvd)_mm256_min_pd((__m256d)a, (__m256d)c);
#else
    ltm_gvl inside = a < clamp;
    return (ltm_gvd)(((ltm_gvl)a & inside) | ((ltm_gvl)c & ~inside));
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

/* NAME_f32_accurate: the per-element form of ltm_exp_two_pass's NAME_f32, the accurate path
 * of the FMA paths' own first passes (lt_exp32_fma.h) */
#define ltm_exp_define_accurate(NAME, LO, HI, ACC)                                           \
    static inline float NAME##_f32_accurate(float x)                                         \
    {                                                                                        \
        int32_t amb;                                                                         \
        float y = NAME##_p1(x, LO, HI, &amb);                                               \
        return amb ? (ACC) : y;                                                              \
    }

/* The no-FMA two-pass pieces of exp, expm1, sigmoid, silu, tanh, sinh and cosh: their pass-1
 * clamp bounds and accurate paths, one row each.  The generic path's functions
 * (ltm_exp_two_pass), and the FMA paths' fallback (ltm_exp_define_accurate) under their own
 * first passes, lt_exp32_fma.h. */
#undef LTM_EXP32_FAMILY
#define LTM_EXP32_FAMILY(X)                                                                  \
    X(ltm_exp, -104.0f, 89.0f, ltm_exp_acc_f32(x))                                           \
    X(ltm_expm1, -104.0f, 89.0f, ltm_expm1_acc_f32(x))                                       \
    X(ltm_sigmoid, 0.0f, 110.0f, ltm_sigmoid_acc_f32(x))                                     \
    X(ltm_silu, 0.0f, 110.0f, ltm_silu_acc_f32(x))                                           \
    X(ltm_tanh, 0.0f, 10.0f, ltm_tanh_acc_f32(__builtin_fabs((double)x), x < 0 ? -1.0 : 1.0)) \
    X(ltm_sinh, 0.0f, 90.0f, ltm_sinh_acc_f32(__builtin_fabs((double)x), x < 0 ? -1.0 : 1.0)) \
    X(ltm_cosh, 0.0f, 90.0f, ltm_cosh_acc_f32(__builtin_fabs((double)x)))

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
