/* Complex pow: the ``cc`` body of the table's pow row (lazytensor/_engine/ops.py), NumPy's
 * npy_cpow semantics (numpy/_core/src/npymath/npy_math_complex.c.src):
 *   - b == 0 (both parts zero): 1 + 0j, whatever a is (NaN included);
 *   - a == 0: 0 + 0j if Re b > 0, else NaN + NaN j;
 *   - b real with an integer value n, |n| < 100: NumPy's products in the dtype (a; a*a;
 *     a*(a*a); else repeated squaring from 1 + 0j, and 1 / that for n < 0), with the
 *     library's multiplication and division (lt_complex.h: NumPy's formulas, the same bits
 *     for ordinary operands, Annex G's values where NumPy's give NaN or overflow needlessly);
 *   - otherwise exp(b log a), the Array API's definition (its special cases are exp's and
 *     log's): for finite operands in double-double (log a from cfunc's ln|z| and atan2
 *     kernels, b log a as a double-double, exp of a double-double), each part rounded once;
 *     for non-finite ones (and |b| beyond 2^900) in double with the library's complex log,
 *     multiplication and exp, as the standard writes it.
 * No platform libm, no FMA: every kernel path computes the same bits.  Bounds measured
 * against mpmath: docs/exact-math.md, docs/complex.md.  Pasted after lt_cfunc.h. */

#define LTM_CPOW_INT(C, T, R)                                                                 \
/* NumPy's integer powers, 0 < |n| < 100, operation for operation */                        \
static inline T ltm_cpow_int##C(T a, int n)                                                   \
{                                                                                             \
    if (n == 1) return a;                                                                     \
    if (n == 2) return ltm_cmul##C(a, a);                                                     \
    if (n == 3) return ltm_cmul##C(a, ltm_cmul##C(a, a));                                     \
    const int k = n < 0 ? -n : n;                                                             \
    T acc = { (R)1, (R)0 }, p = a;                                                            \
    for (int mask = 1;;) {                                                                    \
        if (k & mask) acc = ltm_cmul##C(acc, p);                                              \
        mask <<= 1;                                                                           \
        if (k < mask) break;                                                                  \
        p = ltm_cmul##C(p, p);                                                                \
    }                                                                                         \
    if (n < 0) {                                                                              \
        const T one = { (R)1, (R)0 };                                                         \
        acc = ltm_cdiv##C(one, acc);                                                          \
    }                                                                                         \
    return acc;                                                                               \
}                                                                                             \
/* the cases decided before exp(b log a): 1 with *o set, else 0 */                           \
static inline int ltm_cpow_early##C(T a, T b, T *o)                                           \
{                                                                                             \
    if (b.re == 0 && b.im == 0) {                                                             \
        o->re = (R)1; o->im = (R)0;                                                           \
        return 1;                                                                             \
    }                                                                                         \
    if (a.re == 0 && a.im == 0) {                                                             \
        o->re = o->im = b.re > 0 ? (R)0 : (R)__builtin_nan("");                               \
        return 1;                                                                             \
    }                                                                                         \
    if (b.im == 0 && b.re > -100 && b.re < 100 && (R)(int)b.re == b.re) {                     \
        *o = ltm_cpow_int##C(a, (int)b.re);                                                   \
        return 1;                                                                             \
    }                                                                                         \
    return 0;                                                                                 \
}
LTM_CPOW_INT(_f32, lt_c64, float)
LTM_CPOW_INT(_f64, lt_c128, double)
#undef LTM_CPOW_INT

/* exp(b log a) in double by the library's complex log, multiplication and exp: the
 * operands with a non-finite part, or |b| >= 2^900 (b log a then overflows the
 * double-doubles; the result is exp of the rounded product) */
static inline lt_c128 ltm_cpow_plain(lt_c128 a, lt_c128 b)
{
    return ltm_cf_exp_f64(ltm_cmul_f64(b, ltm_cf_log_f64(a)));
}

/* sin y and cos y of y = y.hi + y.lo as double-doubles: y.lo below 2^-20 by its Taylor
 * terms (errors below 2^-84 absolute), else by the angle sum of two reductions */
static inline void ltm_cpow_sincos_dd(lt_dd y, lt_dd *s, lt_dd *c)
{
    ltm_cf_sincos(y.hi, s, c);
    if (y.lo == 0) return;
    const double t = y.lo;
    lt_dd st, ct;
    if (__builtin_fabs(t) < 0x1p-20) {
        st = lt_two_sum(t, -(t * t * t / 6.0));
        ct = lt_two_sum(1.0, -0.5 * t * t);
    } else {
        ltm_cf_sincos(t, &st, &ct);
    }
    const lt_dd s2 = lt_dd_add(lt_dd_mul(*s, ct), lt_dd_mul(*c, st));
    *c = lt_dd_sub(lt_dd_mul(*c, ct), lt_dd_mul(*s, st));
    *s = s2;
}

/* exp(b log a) of finite a != 0 and b with |b| < 2^900 as two parts (ltm_cf_part: a
 * double-double and its power of two), lim clamping Re(b log a) as in exp */
static inline void ltm_cpow_parts(double ar, double ai, double br, double bi, double lim,
                                  ltm_cf_part *re, ltm_cf_part *im)
{
    const lt_dd lr = ltm_cf_logabs(ar, ai), li = ltm_cf_atan2_dd(ai, lt_dd_make(ar, 0.0));
    /* w = b log a: (br lr - bi li) + (br li + bi lr) i, each part exact but for the
     * double-double roundings of its two products and its sum */
    const lt_dd wr = lt_dd_sub(lt_dd_mul_d(lr, br), lt_dd_mul_d(li, bi));
    lt_dd wi = lt_dd_add(lt_dd_mul_d(li, br), lt_dd_mul_d(lr, bi));
    if (wi.hi == 0) {   /* exp(w) keeps a zero Im w's sign: the textbook sum's (b real, a > 0) */
        double p = br * li.hi, q = bi * lr.hi;
        LTM_OPAQUE(p); LTM_OPAQUE(q);
        const double z = p + q;
        wi = lt_dd_make(z == 0 ? z : 0.0, 0.0);
    }
    int m;
    lt_dd e = ltm_cf_expm(wr.hi, lim, &m);
    if (__builtin_fabs(wr.hi) <= lim) {   /* exp(wr.lo) = 1 + t + t^2/2 (|t| < 2^-41) */
        const double t = wr.lo;
        e = lt_dd_mul(e, lt_two_sum(1.0, t + 0.5 * t * t));
    }
    lt_dd s, c;
    int ms = m;
    if (__builtin_fabs(wi.hi) < 0x1p-500) {   /* sin = wi, cos = 1; scaled as in exp */
        s = lt_dd_make(wi.hi * 0x1p600, wi.lo * 0x1p600);
        c = lt_dd_make(1.0, 0.0);
        ms = m - 600;
    } else {
        ltm_cpow_sincos_dd(wi, &s, &c);
    }
    *re = ltm_cf_mk(lt_dd_mul(e, c), m);
    *im = wi.hi == 0 ? ltm_cf_exact(wi.hi) : ltm_cf_mk(lt_dd_mul(e, s), ms);
}

static inline int ltm_cpow_dd_ok(lt_c128 a, lt_c128 b)
{
    return a.re - a.re == 0 && a.im - a.im == 0 && __builtin_fabs(b.re) < 0x1p900
           && __builtin_fabs(b.im) < 0x1p900;
}

static inline lt_c128 ltm_cf_pow_f64(lt_c128 a, lt_c128 b)
{
    lt_c128 o;
    if (ltm_cpow_early_f64(a, b, &o)) return o;
    if (__builtin_expect(!ltm_cpow_dd_ok(a, b), 0)) return ltm_cpow_plain(a, b);
    ltm_cf_part re, im;
    ltm_cpow_parts(a.re, a.im, b.re, b.im, 2790.0, &re, &im);
    o.re = ltm_cf_fin_f64(re);
    o.im = ltm_cf_fin_f64(im);
    return o;
}

/* complex64: the parts widened (exact), each result part rounded once from the
 * double-double; beyond |Re(b log a)| = 200 every result overflows or is 0 */
static inline lt_c64 ltm_cf_pow_f32(lt_c64 a, lt_c64 b)
{
    lt_c64 o;
    if (ltm_cpow_early_f32(a, b, &o)) return o;
    const lt_c128 a2 = { a.re, a.im }, b2 = { b.re, b.im };
    if (__builtin_expect(!ltm_cpow_dd_ok(a2, b2), 0)) {
        const lt_c128 w = ltm_cpow_plain(a2, b2);
        o.re = (float)w.re;
        o.im = (float)w.im;
        return o;
    }
    ltm_cf_part re, im;
    ltm_cpow_parts(a.re, a.im, b.re, b.im, 200.0, &re, &im);
    o.re = ltm_cf_fin_f32(re);
    o.im = ltm_cf_fin_f32(im);
    return o;
}

/* complex64 pow over a chunk (n <= LT_CHUNK): a first pass in double, branch-free, for
 * finite a != 0 and finite b that is not an integer below 100 (NumPy's cases take the
 * scalar code), with M = (|Re b| + |Im b|)(|ln|a|| + |arg a| + 1) <= 2^20 and Re(b log a)
 * in [-87, 88] (exp of it a normal float32 below the overflow threshold); then
 * ltm_cf_pow_f32 for what it leaves open.  ln|a| = log(x^2 + y^2) / 2 (the squares of
 * float32 parts exact in double, the sum rounded once; log within 1 ulp): error < 2^-54 +
 * 2^-52 |ln|a||; arg a by atan2 within 1 ulp; each part of w = b log a two products and a
 * sum: |w - b log a| < 2^-51 M per part.  exp(Re w) by ltm_exp_d (< 2^-51.9), cos and sin
 * of Im w (|Im w| <= M < 2^25) by ltm_trig_red64_cw (2^-66) and ltm_trig_sc_d (< 2.5 and
 * 1.95 x 2^-53), one product per part: |v - exact part| < 2^-49 (M + 1) R, R = |a^b| (the
 * error of w moving R and the angle by at most 2^-31).  The scalar code rounds each part once
 * from a double-double A with |A - exact part| < (2^-53 + 2^-70 M) R.  Ziv's test with
 * 2^-47 (M + 1) E, E the computed exp (R < E (1 + 2^-30)), covers both: a part that passes is
 * the rounding of every value within it, A among them, so both paths give the same bits; a
 * part below 2^-126 (off float32's normal grid, or a zero whose sign the scalar code sets)
 * stays open. */
static inline void ltm_cf_pow_f32_chunk(int64_t n, lt_c64 *restrict o, const lt_c64 *restrict a,
                                        const lt_c64 *restrict b)
{
    /* in loops of their own, so that each vectorises: the operands (lanes that are not
     * ok0 take a = 1, b = 0), ln|a|, arg a (atan2's flattened chunk form), the rest */
    double xs[LT_CHUNK], ys[LT_CHUNK], bre[LT_CHUNK], bim[LT_CHUNK], lr[LT_CHUNK], li[LT_CHUNK];
    float ore[LT_CHUNK], oim[LT_CHUNK];
    int32_t ok0[LT_CHUNK], open[LT_CHUNK];
    for (int64_t i = 0; i < n; i++) {
        const double x = a[i].re, y = a[i].im, br = b[i].re, bi = b[i].im;
        const double abr = __builtin_fabs(br);
        const double brs = lt_select(abr < 100.0, br, 0.5);
        const int32_t integer = (bi == 0) & (abr < 100.0) & (brs == (double)(int32_t)brs);
        const int32_t ok = (x - x == 0) & (y - y == 0) & (br - br == 0) & (bi - bi == 0)
                           & ((x != 0) | (y != 0)) & (integer ^ 1);
        xs[i] = lt_select(ok, x, 1.0);
        ys[i] = lt_select(ok, y, 0.0);
        bre[i] = lt_select(ok, br, 0.0);
        bim[i] = lt_select(ok, bi, 0.0);
        ok0[i] = ok;
    }
    for (int64_t i = 0; i < n; i++) lr[i] = 0.5 * ltm_log_f64(xs[i] * xs[i] + ys[i] * ys[i]);
    ltm_atan2_f64_chunk(n, li, ys, xs);
    int32_t any = 0;
    for (int64_t i = 0; i < n; i++) {
        const double m = (__builtin_fabs(bre[i]) + __builtin_fabs(bim[i]))
                         * ((__builtin_fabs(lr[i]) + __builtin_fabs(li[i])) + 1.0);
        const double p1 = bre[i] * lr[i], q1 = bim[i] * li[i], p2 = bre[i] * li[i], q2 = bim[i] * lr[i];
        const double wr = p1 - q1, wi = p2 + q2;
        const int32_t ok = ok0[i] & (m <= 0x1p20) & (wr >= -87.0) & (wr <= 88.0);
        const double wrs = lt_select(ok, wr, 0.0), wis = lt_select(ok, wi, 1.0);
        const double e = ltm_exp_d(wrs);
        uint64_t q;
        const lt_dd r = ltm_trig_red64_cw(__builtin_fabs(wis), &q);
        double sn, cs;
        ltm_trig_sc_d(r.hi, r.lo, &sn, &cs);
        const uint64_t odd = q & 1;
        double s = odd ? cs : sn, c = odd ? sn : cs;
        s = ltm_trig_neg(0, q, wis < 0) ? -s : s;
        c = ltm_trig_neg(1, q, 0) ? -c : c;
        const double re = e * c, im = e * s;
        const double err = 0x1p-47 * (m + 1.0) * e;
        const int32_t op_re = lt_f32_ambiguous(re, err) | (__builtin_fabs(re) < 0x1p-126);
        const int32_t op_im = lt_f32_ambiguous(im, err) | (__builtin_fabs(im) < 0x1p-126);
        ore[i] = (float)re;
        oim[i] = (float)im;
        open[i] = (ok ^ 1) | op_re | op_im;
        any |= open[i];
    }
    for (int64_t i = 0; i < n; i++) { o[i].re = ore[i]; o[i].im = oim[i]; }
    if (any)
        for (int64_t i = 0; i < n; i++)
            if (open[i]) o[i] = ltm_cf_pow_f32(a[i], b[i]);
}

/* complex128: the scalar code over the chunk */
static inline void ltm_cf_pow_f64_chunk(int64_t n, lt_c128 *restrict o, const lt_c128 *restrict a,
                                        const lt_c128 *restrict b)
{
    for (int64_t i = 0; i < n; i++) o[i] = ltm_cf_pow_f64(a[i], b[i]);
}
