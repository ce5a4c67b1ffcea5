/* pow: float32 correctly rounded, float64 within 1 ulp, the library's own code (no C library),
 * the same operations on every kernel path (no FMA anywhere: -ffp-contract=off), so the same
 * bits on every path.  Reuses the log and exp cores of lt_log.h and lt_exp.h (pasted before
 * this header); no tables of its own.  Method, error bounds and verification:
 * docs/exact-math.md, "pow".
 *
 * Special values are NumPy's (C99 Annex F): x^+-0 = 1 and 1^y = 1 even for a NaN operand;
 * a negative finite x with a non-integer y gives NaN; zeros and infinities by the rules of
 * pow, the sign of an odd integer y kept for x = -0 and -inf; (-1)^+-inf = 1.  NaN results
 * are the canonical quiet NaN.
 *
 * Exponents 2 and 0.5 keep their vectorised forms (x * x, the square root with pow's +0 for
 * -0 and +inf for -inf: both correctly rounded) when a whole chunk has them.
 */

/* canonical quiet NaNs */
static inline float ltm_pow_nanf(void) { return __builtin_nanf(""); }
static inline double ltm_pow_nan(void) { return __builtin_nan(""); }

/* x^0.5 as pow gives it */
static inline float ltm_pow_halff(float a)
{
    return lt_selectf(a == -__builtin_inff(), __builtin_inff(), __builtin_sqrtf(a) + 0.0f);
}
static inline double ltm_pow_half(double a)
{
    return lt_select(a == -__builtin_inf(), __builtin_inf(), __builtin_sqrt(a) + 0.0);
}

/* The result where one operand is special (a zero, an infinity, a NaN, y = 0, |x| = 1, or
 * x < 0 with y not an integer), given the regular lanes' value r.  yint: y is an integer
 * (+-inf counts as an even one), yodd: an odd integer, neg: x's sign bit. */
#define LTM_POW_SPECIAL(T, r, x, y, ax, ay, yint, yodd, neg, INF, NAN_)                    \
    do {                                                                                   \
        T mag0 = ((ax == 0) == (y < 0)) ? INF : (T)0;     /* x = +-0 or +-inf */           \
        r = (ax == 0) | (ax == INF) ? ((neg & yodd) ? -mag0 : mag0) : r;                   \
        r = (neg & (!yint) & (ax > 0) & (ax < INF)) ? NAN_ : r;                            \
        r = ay == INF ? (((ax < 1) == (y > 0)) ? (T)0 : INF) : r;                          \
        r = x == (T)-1 ? (((ay == INF) | (!yodd)) ? (T)1 : (T)-1) : r;                       \
        r = x == (T)-1 && !yint ? NAN_ : r;                                                \
        r = (x != x) | (y != y) ? NAN_ : r;                                                \
        r = (x == (T)1) | (y == 0) ? (T)1 : r;                                             \
    } while (0)

/* ------------------------------------------------------------------ float32 */
/* Exact cases: *v = x^y exactly (a double) when x^y is a dyadic rational g^N 2^E with
 * g^N < 2^53 and |E| <= 300 (so every exact float32 result and every float32 midpoint that
 * x^y can be); 0 otherwise.  x, y finite, nonzero, |x| != 1, and x > 0 or y an integer.
 * y = N / 2^j with N an integer (odd when j > 0): x^y is dyadic only when x = m 2^e is a
 * perfect 2^j-th power (m = g^(2^j), 2^j divides e), then x^y = g^N 2^(N e / 2^j), which
 * for N < 0 is dyadic only when g = 1. */
static inline int ltm_pow_exact_f32(float xf, float yf, double *v)
{
    uint32_t ux, uy;
    memcpy(&ux, &xf, 4);
    memcpy(&uy, &yf, 4);
    int32_t ex = (int32_t)((ux >> 23) & 0xff), ey = (int32_t)((uy >> 23) & 0xff);
    uint32_t mx = ux & 0x7fffff, my = uy & 0x7fffff;
    if (ex == 0) ex = 1; else mx |= 0x800000;      /* subnormal: no implicit bit */
    if (ey == 0) ey = 1; else my |= 0x800000;
    ex -= 150;                                      /* |x| = mx 2^ex */
    ey -= 150;                                      /* |y| = my 2^ey */
    int tz = __builtin_ctz(mx);
    mx >>= tz;
    ex += tz;
    tz = __builtin_ctz(my);
    my >>= tz;
    ey += tz;
    /* the 2^j-th root of |x|, j = -ey (y not an integer): one square root at a time */
    for (int32_t j = ey; j < 0; j++) {
        if (ex & 1) return 0;
        ex /= 2;
        /* the root when mx is a square (< 2^24); else not an integer (truncated here) */
        uint32_t q = (uint32_t)__builtin_sqrt((double)mx);
        if (q * q != mx) return 0;                  /* integers: no rounding */
        mx = q;
    }
    /* |x|^|y| = mx^N 2^(ex N), N = my 2^max(ey, 0); N >= 2^21 makes |E| > 300 (mx = 1,
     * ex != 0 as |x| != 1) or mx^N > 2^53 */
    if (ey > 20) return 0;
    int64_t N = (int64_t)my << (ey > 0 ? ey : 0);
    if (yf < 0 && mx != 1) return 0;
    double g = 1.0;
    if (mx != 1) {
        if (N > 34) return 0;                       /* 3^34 > 2^53 */
        for (int64_t i = 0; i < N; i++) {
            g *= (double)mx;                        /* exact while below 2^53 */
            if (g >= 0x1p53) return 0;
        }
    }
    int64_t E = (int64_t)ex * N * (yf < 0 ? -1 : 1);
    if (E < -300 || E > 300) return 0;
    double r = g * lt_from_bits64((uint64_t)(E + 1023) << 52);
    /* a negative x has an integer y here; y is odd when it has no factor 2 (my is odd) */
    *v = (xf < 0 && ey == 0) ? -r : r;
    return 1;
}

/* Pass 1 on a pair, branch-free: the float32 result and *amb = 1 where Ziv's test leaves the
 * rounding open.  Regular lanes: T = y ln|x| as t = th + tl (ln from ltm_log_dd_fast,
 * relative error < 2^-59; the dd product adds < 2^-105 |T|), clamped to [-104.5, 89.5]
 * (beyond: |x^y| < 2^-150.7 rounds to 0, > 2^129 to inf), then
 * r = e + e tl, e = ltm_exp_d(th) (relative error < 2^-51.9).  |t - T| < 104.5 2^-58.99 <
 * 2^-52.28, the roundings of e tl and the sum and the dropped tl^2/2 < 2^-52.99: in all
 * |r - x^y| < 2^-50.74 |x^y|; the test uses 2^-49 |r|. */
static inline float ltm_pow_p1_f32(float xf, float yf, int32_t *amb)
{
    const float ax = __builtin_fabsf(xf), ay = __builtin_fabsf(yf);
    uint32_t ux;
    memcpy(&ux, &xf, 4);
    const int neg = (int)(ux >> 31);
    const int yint = lt_truncf(yf) == yf;
    const float yh = ay < 0x1p24f ? ay : 0.0f;      /* above 2^24 every float is even */
    const int yodd = yint & ((int32_t)yh & 1);
    const int reg = (ax > 0) & (ax < __builtin_inff()) & (ax != 1.0f) & (ay > 0) &
                    (ay < __builtin_inff()) & ((!neg) | yint);
    const double xd = reg ? (double)ax : 2.0, yd = reg ? (double)yf : 1.0;
    lt_dd L = ltm_log_dd_fast(xd, 0.0);
    lt_dd t = lt_dd_mul_d(L, yd);
    const int big = t.hi > 89.5, small = t.hi < -104.5;
    const double th = big ? 89.5 : (small ? -104.5 : t.hi);
    const double tl = (big | small) ? 0.0 : t.lo;
    const double e = ltm_exp_d(th);
    const double r = e + e * tl;
    *amb = reg & lt_f32_ambiguous(r, r * 0x1p-49);
    float f = (float)r;
    f = (neg & yodd) ? -f : f;
    LTM_POW_SPECIAL(float, f, xf, yf, ax, ay, yint, yodd, neg, __builtin_inff(), ltm_pow_nanf());
    return f;
}

/* The accurate path for the flagged pairs: the exact cases above, else ln|x| by ltm_log_dd
 * (< 2^-100), t = y ln|x| as a dd (|t - T| < 104.5 (2^-100 + 2^-104) < 2^-93.2), exp(t) by
 * ltm_exp_dd_core (< 2^-100): relative error < 2^-93.1, rounded once (round to odd, then to
 * nearest).  Correct unless a non-exact x^y lies within 2^-93.1 (relative) of a float32
 * midpoint (docs/exact-math.md). */
static inline float ltm_pow_acc_f32(float xf, float yf)
{
    double v;
    if (ltm_pow_exact_f32(xf, yf, &v))
        return (float)v;                            /* exact: one rounding */
    uint32_t ux;
    memcpy(&ux, &xf, 4);
    const float ay = __builtin_fabsf(yf);
    const float yh = ay < 0x1p24f ? ay : 0.0f;
    const int negr = (int)(ux >> 31) & (lt_truncf(yf) == yf) & ((int32_t)yh & 1);
    lt_dd L = ltm_log_dd(__builtin_fabs((double)xf), 0.0);
    lt_dd t = lt_dd_mul_d(L, (double)yf);
    int64_t k;
    lt_dd e = ltm_exp_dd_core(t.hi, t.lo, &k);
    const double s = ltm_exp_scale(k, 1023);        /* 2^m, m >= -152: normal */
    float f = lt_dd_to_f32(lt_dd_make(e.hi * s, e.lo * s));
    return negr ? -f : f;
}

static inline float ltm_powf(float x, float y)
{
    int32_t amb;
    float r = ltm_pow_p1_f32(x, y, &amb);
    return amb ? ltm_pow_acc_f32(x, y) : r;
}

static inline void ltm_powf_chunk(int64_t n, float *restrict o, const float *restrict a,
                                  const float *restrict b, int exact)
{
    int two = 1, half = 1;
    for (int64_t i = 0; i < n; i++) { two &= b[i] == 2.0f; half &= b[i] == 0.5f; }
    if (two) {
        for (int64_t i = 0; i < n; i++) o[i] = a[i] * a[i];
    } else if (half) {
        for (int64_t i = 0; i < n; i++) o[i] = ltm_pow_halff(a[i]);
    } else {
        int32_t amb[LT_CHUNK], any = 0;
        for (int64_t i = 0; i < n; i++) { o[i] = ltm_pow_p1_f32(a[i], b[i], &amb[i]); any |= amb[i]; }
        if (any)
            for (int64_t i = 0; i < n; i++)
                if (amb[i]) o[i] = ltm_pow_acc_f32(a[i], b[i]);
        return;                                     /* NaNs already canonical */
    }
    if (exact)
        for (int64_t i = 0; i < n; i++) o[i] = lt_canonf(o[i]);
}

/* ------------------------------------------------------------------ float64 */
/* T = y ln|x| with ln|x| by ltm_log_dd (< 2^-100) and the dd product: |t - T| < 746 (2^-100
 * + 2^-104) < 2^-90.4 (t clamped to [-746, 710]: beyond, x^y rounds to 0 or overflows); exp(t)
 * = 2^m (e.hi + e.lo) by ltm_exp_dd_core (< 2^-100), so e.hi + e.lo is x^y 2^-m within
 * 2^-90.3 relative; rounded to a double (0.5 ulp), scaled exactly (normal results; the overflow
 * decided by the last doubling, as exp's) or, in the subnormal range, rounded once more by the
 * last scaling (0.25 + 0.5 ulp).  So within 0.5 ulp + 2^-37 ulp for normal results and 0.75 ulp
 * plus as much for subnormal ones: within 1 ulp. */
static inline double ltm_pow_f64(double x, double y)
{
    const double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    const int neg = (int)(lt_bits64(x) >> 63);
    const int yint = lt_trunc(y) == y;
    const double yh = ay < 0x1p53 ? ay : 0.0;       /* above 2^53 every double is even */
    const int yodd = yint & (lt_trunc(yh * 0.5) * 2.0 != yh);
    const int reg = (ax > 0) & (ax < __builtin_inf()) & (ax != 1.0) & (ay > 0) &
                    (ay < __builtin_inf()) & ((!neg) | yint);
    /* |y| clamped to 2^900 (the dd product splits y: no overflow); |ln x| >= 2^-53 for
       x != 1, so |t| >= 2^847 still overflows or underflows */
    const double yc = ay > 0x1p900 ? __builtin_copysign(0x1p900, y) : y;
    const double xd = reg ? ax : 2.0, yd = reg ? yc : 1.0;
    lt_dd L = ltm_log_dd(xd, 0.0);
    lt_dd t = lt_dd_mul_d(L, yd);
    const int big = t.hi > 710.0, small = t.hi < -746.0;
    const double th = big ? 710.0 : (small ? -746.0 : t.hi);
    const double tl = (big | small) ? 0.0 : t.lo;
    int64_t k;
    lt_dd e = ltm_exp_dd_core(th, tl, &k);
    const double s = e.hi + e.lo;
    const int64_t bias = th < 0 ? 1023 + 64 : 1022;
    const double post = th < 0 ? 0x1p-64 : 2.0;
    double r = (s * ltm_exp_scale(k, bias)) * post;
    r = (neg & yodd) ? -r : r;
    LTM_POW_SPECIAL(double, r, x, y, ax, ay, yint, yodd, neg, __builtin_inf(), ltm_pow_nan());
    return r;
}

static inline double ltm_pow(double x, double y) { return ltm_pow_f64(x, y); }

static inline void ltm_pow_chunk(int64_t n, double *restrict o, const double *restrict a,
                                 const double *restrict b, int exact)
{
    int two = 1, half = 1;
    for (int64_t i = 0; i < n; i++) { two &= b[i] == 2.0; half &= b[i] == 0.5; }
    if (two) {
        for (int64_t i = 0; i < n; i++) o[i] = a[i] * a[i];
    } else if (half) {
        for (int64_t i = 0; i < n; i++) o[i] = ltm_pow_half(a[i]);
    } else {
        for (int64_t i = 0; i < n; i++) o[i] = ltm_pow_f64(a[i], b[i]);
        return;                                     /* NaNs already canonical */
    }
    if (exact)
        for (int64_t i = 0; i < n; i++) o[i] = lt_canon(o[i]);
}
