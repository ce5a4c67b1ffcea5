/* pow: float32 correctly rounded, float64 within 1 ulp, the library's own code (no C library),
 * the same operations on every kernel path (no FMA anywhere: -ffp-contract=off), so the same
 * bits on every path.  Reuses the log and exp cores of lt_log.h and lt_exp.h (pasted before
 * this header); no tables of its own.  Method, error bounds and verification:
 * docs/exact-math.md, "pow".
 *
 * Special values are NumPy's (C99 Annex F): x^+-0 = 1 and 1^y = 1 even for a quiet NaN
 * operand (a signaling NaN gives NaN, as IEEE 754 has it and NumPy's float64 pow does);
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
 * (+-inf counts as an even one), yodd: an odd integer, neg: x's sign bit, snan: an operand
 * is a signaling NaN. */
#define LTM_POW_SPECIAL(F, T, r, x, y, ax, ay, yint, yodd, neg, snan, INF, NAN_)         \
    do {                                                                                   \
        /* bitwise selects (lt_select): with ?: on these flags gcc stopped vectorising */  \
        T mag0 = lt_select##F((ax == 0) == (y < 0), INF, (T)0);   /* x = +-0 or +-inf */   \
        r = lt_select##F((ax == 0) | (ax == INF), lt_select##F(neg & yodd, -mag0, mag0), r); \
        r = lt_select##F(neg & (yint ^ 1) & (ax > 0) & (ax < INF), NAN_, r);              \
        r = lt_select##F(ay == INF, lt_select##F((ax < 1) == (y > 0), (T)0, INF), r);     \
        r = lt_select##F(x == (T)-1, lt_select##F((ay == INF) | (yodd ^ 1), (T)1, (T)-1), r); \
        r = lt_select##F((x == (T)-1) & (yint ^ 1), NAN_, r);                             \
        r = lt_select##F((x != x) | (y != y), NAN_, r);                                   \
        r = lt_select##F(((x == (T)1) | (y == 0)) & (snan ^ 1), (T)1, r);                 \
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
                    (ay < __builtin_inff()) & ((neg ^ 1) | yint);
    const double xd = lt_select(reg, (double)ax, 2.0), yd = lt_select(reg, (double)yf, 1.0);
    lt_dd L = ltm_log_dd_fast(xd, 0.0);
    lt_dd t = lt_dd_mul_d(L, yd);
    const int out = (t.hi > 89.5) | (t.hi < -104.5);
    const double th = lt_select(t.hi > 89.5, 89.5, lt_select(t.hi < -104.5, -104.5, t.hi));
    const double tl = lt_select(out, 0.0, t.lo);
    const double e = ltm_exp_d(th);
    const double r = e + e * tl;
    *amb = reg & lt_f32_ambiguous(r, r * 0x1p-49);
    float f = (float)r;
    f = lt_selectf(neg & yodd, -f, f);
    uint32_t uy;
    memcpy(&uy, &yf, 4);
    const int snan = (((ux & 0x7fffffff) > 0x7f800000) & !(ux & 0x400000)) |
                     (((uy & 0x7fffffff) > 0x7f800000) & !(uy & 0x400000));
    LTM_POW_SPECIAL(f, float, f, xf, yf, ax, ay, yint, yodd, neg, snan, __builtin_inff(),
                    ltm_pow_nanf());
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
/* ln x as a double-double with relative error < 2^-66.5, x > 0 finite (subnormals scaled by
 * 2^60 first), branch-free.  lt_log.h's reduction and tables: x = 2^k m, -ln r = ch + cm + cl,
 * z = m r - 1 = z.hi + z.lo exactly (|z| < 2^-7.99), and
 *   ln x = (k LN2_HI + ch) + z - z^2/2 + z^3 R(z) + (cm + k LN2_MID + cl + k LN2_LO),
 * R(z) = (Q6(z) + 1/2) / z (lt_log.h's Q6 has q0 = -1/2 exactly; the method error is 2^-71
 * relative).  k LN2_HI + ch, its sum with z.hi and with -z.hi^2/2 are exact (two_sum; z.hi^2
 * by two_prod), so the errors are those of z^3 R (< 2^-50 |z|^3/3, relative to ln x < 2^-67.6
 * in the bucket of 1 where ln x = log1p z, < 2^-75.6 / 2^-9 elsewhere, |ln x| >= 2^-9 there)
 * and of the small terms' sum (< 2^-85 relative). */
static inline lt_dd ltm_pow_log64(double x)
{
    const int sub = x < 0x1p-1022;
    const double h = lt_select(sub, x * 0x1p60, x);
    uint64_t i;
    double k, sc;
    const double m = ltm_log_reduce(h, &i, &k, &sc);
    k -= lt_select(sub, 60.0, 0.0);
    const double r = lt_tab_log_r[i];
    const lt_dd ms = lt_split(m);
    const lt_dd z = lt_two_sum(ms.hi * r - 1.0, ms.lo * r);     /* both terms exact */
    const lt_dd z2 = lt_two_prod(z.hi, z.hi);
    const double *q = lt_tab_log_q6;
    const double R = q[1] + z.hi * (q[2] + z.hi * (q[3] + z.hi * (q[4] + z.hi * (q[5] + z.hi * q[6]))));
    const double c3 = (z.hi * z2.hi) * R;
    const double H = k * lt_tab_log_k[0] + lt_tab_log_ch[i];    /* exact */
    const lt_dd s = lt_two_sum(H, z.hi);
    const lt_dd u = lt_two_sum(s.hi, -0.5 * z2.hi);
    const double small = lt_tab_log_cm[i] + (k * lt_tab_log_k[1] + (lt_tab_log_cl[i] + k * lt_tab_log_k[2]));
    const double lo = ((s.lo + u.lo) + ((z.lo - 0.5 * z2.lo) - z.hi * z.lo)) + (c3 + small);
    return lt_fast_two_sum(u.hi, lo);
}

/* T = y ln|x| as t = L y (dd product): |t - T| < 746 (2^-66.5 + 2^-104) < 2^-56.9 (t clamped
 * to [-746, 710]: beyond, x^y rounds to 0 or overflows).  exp(t.hi) = 2^m (sh + sl) by
 * ltm_exp_core64 (< 2^-60), times 1 + t.lo (|t.lo| < 2^-44, the dropped t.lo^2/2 < 2^-88):
 * s = RN(sh + (sl + sh t.lo)) is x^y 2^-m within 0.5 ulp + 2^-56.8 relative, then scaled
 * exactly (normal results; the overflow decided by the last doubling, as exp's) or, in the
 * subnormal range, rounded once more by the last scaling.  So within 0.5 + 2^-3.8 ulp for
 * normal results, 0.75 + 2^-4.8 for subnormal ones: within 1 ulp (docs/exact-math.md). */
static inline double ltm_pow_f64(double x, double y)
{
    const double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    const int neg = __builtin_copysign(1.0, x) < 0;
    const int yint = lt_trunc(y) == y;
    const double yh = ay < 0x1p53 ? ay : 0.0;       /* above 2^53 every double is even */
    const int yodd = yint & (lt_trunc(yh * 0.5) * 2.0 != yh);
    const int reg = (ax > 0) & (ax < __builtin_inf()) & (ax != 1.0) & (ay > 0) &
                    (ay < __builtin_inf()) & ((neg ^ 1) | yint);
    /* |y| clamped to 2^900 (the dd product splits y: no overflow); |ln x| >= 2^-53 for
       x != 1, so |t| >= 2^847 still overflows or underflows */
    const double yc = lt_select(ay > 0x1p900, __builtin_copysign(0x1p900, y), y);
    const double xd = lt_select(reg, ax, 2.0), yd = lt_select(reg, yc, 1.0);
    const lt_dd L = ltm_pow_log64(xd);
    const lt_dd t = lt_dd_mul_d(L, yd);
    const int out = (t.hi > 710.0) | (t.hi < -746.0);
    /* selects: with ?: gcc threads the clamped constant into the table loads (masked) */
    const double th = lt_select(t.hi > 710.0, 710.0, lt_select(t.hi < -746.0, -746.0, t.hi));
    const double tl = lt_select(out, 0.0, t.lo);
    double sh, sl;
    const int64_t k = ltm_exp_core64(th, &sh, &sl);
    const double s = sh + (sl + sh * tl);
    const int64_t bias = th < 0 ? 1023 + 64 : 1022;
    const double post = th < 0 ? 0x1p-64 : 2.0;
    double r = (s * ltm_exp_scale(k, bias)) * post;
    r = lt_select(neg & yodd, -r, r);
    const uint64_t ux = lt_bits64(x), uy = lt_bits64(y), inf = 0x7FF0000000000000ull,
                   quiet = 0x0008000000000000ull, mag = 0x7FFFFFFFFFFFFFFFull;
    const int snan = (((ux & mag) > inf) & !(ux & quiet)) | (((uy & mag) > inf) & !(uy & quiet));
    LTM_POW_SPECIAL(, double, r, x, y, ax, ay, yint, yodd, neg, snan, __builtin_inf(), ltm_pow_nan());
    return r;
}

static inline double ltm_pow(double x, double y) { return ltm_pow_f64(x, y); }

/* flatten: inlines the double-double helpers too, which the loop needs to vectorise */
static __attribute__((flatten, noinline)) void ltm_pow_f64_loop(int64_t n, double *restrict o,
                                                      const double *restrict a,
                                                      const double *restrict b)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_pow_f64(a[i], b[i]); }

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
        ltm_pow_f64_loop(n, o, a, b);
        return;                                     /* NaNs already canonical */
    }
    if (exact)
        for (int64_t i = 0; i < n; i++) o[i] = lt_canon(o[i]);
}
