/* hypot, logaddexp and the float remainder family by chunks: the library's own forms (see
 * docs/exact-math.md).
 * Pasted into every kernel-path region by the build; names start with ltm_. */

/* The special values shared by every form: an infinite operand wins over NaN. */
static inline int ltm_hypot_special(double x, double y, double *out)
{
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    if (ax == (double)INFINITY || ay == (double)INFINITY) { *out = (double)INFINITY; return 1; }
    if (x != x || y != y) { *out = __builtin_nan(""); return 1; }
    return 0;
}

/* float32: both squares are exact in double (24 x 24 bits), so x^2 + y^2 has one rounding
 * (2^-53 relative) and the square root another; after the root the relative error is at
 * most 2^-54 + 2^-53 < 2^-52.  The accurate path below is taken when that bound leaves the
 * float32 rounding open. */
static inline double ltm_hypot_f32_approx(float x, float y)
{
    double xd = x, yd = y;
    return __builtin_sqrt(xd * xd + yd * yd);
}

/* Accurate path: x^2 + y^2 exactly as a double-double, then its square root corrected by
 * one Newton step on the residual (relative error about 2^-100).  An exact root (a
 * Pythagorean triple, possibly on a float32 midpoint) gives a zero residual and rounds
 * exactly. */
static inline float ltm_hypot_f32_accurate(float x, float y)
{
    double xd = x, yd = y;
    lt_dd s = lt_two_sum(xd * xd, yd * yd);
    double r = __builtin_sqrt(s.hi);
    lt_dd r2 = lt_two_prod(r, r);
    double res = ((s.hi - r2.hi) - r2.lo) + s.lo;   /* s - r^2, exact but for the last add */
    return lt_dd_to_f32(lt_fast_two_sum(r, res / (2.0 * r)));
}

static inline float ltm_hypot_f32(float x, float y)
{
    double sp;
    if (ltm_hypot_special(x, y, &sp)) return (float)sp;
    double h = ltm_hypot_f32_approx(x, y);
    if (h == 0) return 0.0f;
    if (lt_f32_ambiguous(h, h * 0x1p-52)) return ltm_hypot_f32_accurate(x, y);
    return (float)h;
}

static inline void ltm_hypot_f32_chunk(int64_t n, float *restrict o, const float *restrict a,
                                       const float *restrict b)
{
    int32_t recheck[256];
    for (int64_t i = 0; i < n; i++) {     /* vectorised: no specials, no branch */
        double h = ltm_hypot_f32_approx(a[i], b[i]);
        o[i] = (float)h;
        recheck[i] = lt_f32_ambiguous(h, h * 0x1p-52) | (h - h != 0);
    }
    for (int64_t i = 0; i < n; i++)       /* rare: near a midpoint, inf or NaN */
        if (recheck[i]) o[i] = ltm_hypot_f32(a[i], b[i]);
}

/* float64: scale the larger operand near 1 by a power of two (exact), form x^2 + y^2 as a
 * double-double with error-free products, take the corrected root, scale back.  Error
 * below 0.51 ulp, and one more rounding only when the result is subnormal. */
static inline double ltm_hypot_f64(double x, double y)
{
    double sp;
    if (ltm_hypot_special(x, y, &sp)) return sp;
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    double big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    if (big == 0) return 0.0;
    int64_t e = (int64_t)((lt_bits64(big) >> 52) & 0x7ff) - 1023;
    /* 2^-e must be a normal double: big in [1, 4) after scaling, or scaled up by 2^1022 */
    e = e < -1022 ? -1022 : (e > 1022 ? 1022 : e);
    double down = lt_from_bits64((uint64_t)(1023 - e) << 52);   /* 2^-e, exact */
    big *= down;
    small *= down;                                   /* may underflow: then it is negligible */
    lt_dd s = lt_dd_add(lt_two_prod(big, big), lt_two_prod(small, small));
    double r = __builtin_sqrt(s.hi);
    lt_dd r2 = lt_two_prod(r, r);
    double res = ((s.hi - r2.hi) - r2.lo) + s.lo;
    double h = r + res / (2.0 * r);
    /* 2^e in two factors so that neither overflows nor underflows */
    int64_t e1 = e / 2, e2 = e - e1;
    return (h * lt_from_bits64((uint64_t)(e1 + 1023) << 52)) * lt_from_bits64((uint64_t)(e2 + 1023) << 52);
}

/* fast: float32 in double with an FMA (one rounding fewer), no accurate path */
static inline float ltm_hypot_f32_fast(float x, float y)
{
    double xd = x, yd = y;
    double h = __builtin_sqrt(LT_FMA(xd, xd, yd * yd));
    int inf = __builtin_fabs(x) == INFINITY || __builtin_fabs(y) == INFINITY;
    return inf ? INFINITY : (float)h;
}

/* fast float64: big * sqrt(1 + (small/big)^2), about 2 ulp, no overflow */
static inline double ltm_hypot_f64_fast(double x, double y)
{
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    double big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    double q = small / (big == 0 ? 1.0 : big);
    double h = big * __builtin_sqrt(LT_FMA(q, q, 1.0));
    h = (x != x || y != y) ? x + y : h;
    return (ax == INFINITY || ay == INFINITY) ? INFINITY : h;
}

/* ---- logaddexp(a, b) = log(exp(a) + exp(b)) = m + log1p(exp(-|a - b|)), m = max(a, b) ----
 * Exact forms: one double-double evaluation for both widths.  d = a - b is carried as a
 * double-double (two_sum), exp and log1p are the exp and log families' double-double cores
 * (relative error below 2^-98 each), and m + log1p(...) is one double-double sum, so the
 * result has an absolute error below 2^-96 (|m| + 1): correctly rounded to float32 unless
 * m and log1p(...) cancel to below 2^-70 of |m|, which float32 operands do not reach in our
 * sweeps; within 0.5 ulp plus that in float64, which is within 1 ulp unless m < 0 and the
 * sum cancels to below about 2^-45 of log1p(...) (pairs built for it, a = log(-expm1(b))
 * to the last bits; docs/exact-math.md).  Scalar double-double: the chunk forms of
 * both widths run a vectorised first pass (below) and come here only for what it leaves
 * open. */
/* d <= -600 and |m| < 2^-400: y = m + exp(d) can cancel (m < 0, exp(d) near -m, both near
 * the subnormal range), so exp(d) is a double-double too (d.lo included), and the sum is
 * formed scaled by 2^600 (exact: every part normal) and scaled back with one rounding;
 * error below 0.5 ulp + 2^-100 exp(d) (plus 2^-53 |y| of double rounding when y is
 * subnormal).  Returned as a double-double with a zero low part. */
static inline lt_dd ltm_logaddexp_tiny(double m, lt_dd d)
{
    int64_t k;
    double dh = lt_select(d.hi < -1000.0, -1000.0, d.hi);   /* exp(-1000) scales to 0 */
    lt_dd e = ltm_exp_dd_core(dh, d.lo, &k);
    double s = ltm_exp_scale(k, 1023 + 600);                /* 2^(k/128 + 600): normal */
    lt_dd y = lt_dd_add_d(lt_dd_make(e.hi * s, e.lo * s), m * 0x1p600);
    return lt_dd_make((y.hi + y.lo) * 0x1p-600, 0.0);
}

static inline lt_dd ltm_logaddexp_dd(double a, double b)
{
    double m = a > b ? a : b;
    lt_dd d = a > b ? lt_two_sum(b, -a) : lt_two_sum(a, -b);   /* -|a - b| */
    lt_dd l;
    if (d.hi > -600.0)
        l = ltm_log1p_dd(ltm_exp_dd(d.hi, d.lo));
    else if (!(__builtin_fabs(m) < 0x1p-400))
        /* exp(d) < 2^-865 < 2^-465 |m|: log1p(t) = t, a sticky bit at most */
        l = lt_dd_make(ltm_exp_f64(d.hi), 0.0);
    else
        return ltm_logaddexp_tiny(m, d);
    return lt_dd_add_d(l, m);
}

/* y with the special values of every form put in, by selects: NaN, equal operands (also
 * two infinities: log(2 e^a), inf stays), an infinite operand (+inf wins; with -inf,
 * log(e^m + 0), where -0 gives +0) */
static inline double ltm_logaddexp_special(double a, double b, double y)
{
    const double inf = (double)INFINITY;
    y = lt_select((a == -inf) | (b == -inf), (a > b ? a : b) + 0.0, y);
    y = lt_select((a == inf) | (b == inf), inf, y);
    y = lt_select(a == b, a + 0.6931471805599453, y);
    return lt_select((a != a) | (b != b), __builtin_nan(""), y);
}

static inline double ltm_logaddexp_f64(double a, double b)
{
    lt_dd r = ltm_logaddexp_dd(a, b);
    return ltm_logaddexp_special(a, b, r.hi + r.lo);
}

/* float64 first pass, the same shape as the float32 one below but with a double-double
 * result: d = -|a - b| exact (two_sum); t = exp(d) as sh + sl from the exp family's core
 * (relative error 2^-60) times (1 + d.lo), d.lo <= 2^-44 (its square is negligible); 1 + t
 * as a double-double; its log by ltm_log_dd_fast (2^-59).  log1p(t) >= t / (1 + t), so t's
 * error moves it by at most 2^-59 of itself: l = log(1 + t) has a relative error below
 * 2^-58, and y = m + l (two_sum, then l.lo added) an absolute error below
 * 2^-58 l + 2^-104 |y|.  Ziv's test widens that to err = 2^-57 l + 2^-94 (|m| + 1), which
 * also covers the double-double path's own error (2^-96 (|m| + 1)): where the test passes,
 * the rounded y is the value that path gives, bit for bit.  d <= -600 (exp(d) leaves the
 * normal range), NaN and infinities are left open.  Without `ziv` (fast mode's second
 * tier), the test is only that err, twice the bound, stays below 2^-51 |y| (about
 * l <= 64 |y|): the result is then within 0.5 + 2 ulp. */
static inline __attribute__((always_inline)) double ltm_logaddexp_f64_pass1(
    double a, double b, int32_t *open, int ziv)
{
    double m = a > b ? a : b;
    lt_dd d = lt_dd_select(a > b, lt_two_sum(b, -a), lt_two_sum(a, -b));   /* -|a - b| */
    int32_t far = !(d.hi > -600.0);
    double dh = lt_select(far, 0.0, d.hi), dl = lt_select(far, 0.0, d.lo);
    double sh, sl;
    int64_t k = ltm_exp_core64(dh, &sh, &sl);
    double sc = ltm_exp_scale(k, 1023);                /* dh >= -600: normal, exact */
    double th = sh * sc, tl = sl * sc + (sh * sc) * dl;
    lt_dd s = lt_fast_two_sum(1.0, th);                /* t <= 1 */
    lt_dd l = ltm_log_dd_fast(s.hi, s.lo + tl);
    lt_dd y = lt_two_sum(m, l.hi);
    y.lo += l.lo;
    double err = 0x1p-57 * l.hi + 0x1p-94 * (__builtin_fabs(m) + 1.0);
    if (ziv)
        *open = far | (y.hi + (y.lo - err) != y.hi + (y.lo + err));
    else
        *open = far | (err > 0x1p-51 * __builtin_fabs(y.hi));
    return y.hi + y.lo;
}

/* the first pass (with the special values put in) on every element, then the double-double
 * path on those it leaves open */
static inline __attribute__((always_inline)) void ltm_logaddexp_f64_two_pass(
    int64_t n, double *restrict o, const double *restrict a, const double *restrict b, int ziv)
{
    int32_t open[LT_CHUNK], any = 0;
    for (int64_t i = 0; i < n; i++) {
        o[i] = ltm_logaddexp_special(a[i], b[i],
                                     ltm_logaddexp_f64_pass1(a[i], b[i], &open[i], ziv));
        any |= open[i];
    }
    if (any)
        for (int64_t i = 0; i < n; i++)
            if (open[i]) o[i] = ltm_logaddexp_f64(a[i], b[i]);
}

static __attribute__((flatten)) void ltm_logaddexp_f64_chunk(int64_t n, double *restrict o,
                                                             const double *restrict a,
                                                             const double *restrict b)
{
    ltm_logaddexp_f64_two_pass(n, o, a, b, 1);
}

/* float32 main path, in double: d = -|a - b| is exact for float32 operands whenever exp(d)
 * matters (and clamped at -700, where exp(d) is far below any float32 ulp), t = exp(d) from the exp family's
 * double exp (relative error below 2^-52), 1 + t exact as a double-double, its log from the
 * log family's branch-free core (2^-59); y = m + log(1 + t).  The absolute error is below
 * 2^-50 (|m| + |log(1 + t)|), the bound handed to Ziv's test; what it leaves open, and the
 * special values, go to the double-double path. */
static inline double ltm_logaddexp_f32_approx(float a, float b, double *err)
{
    double ad = a, bd = b;
    double m = ad > bd ? ad : bd, d = -__builtin_fabs(ad - bd);
    /* bitwise selects: with ?: gcc threads the constant d through exp and log, the table
       loads become masked gathers, and the chunk loop does not vectorise at all */
    d = lt_select(d < -700.0, -700.0, d);   /* exp(d) < 2^-1000: below every float32 ulp it meets */
    d = lt_select(d != d, 0.0, d);                   /* NaN/inf operands: pass 2 */
    lt_dd s = lt_fast_two_sum(1.0, ltm_exp_d(d));
    lt_dd l = ltm_log_dd_fast(s.hi, s.lo);
    *err = 0x1p-50 * (__builtin_fabs(m) + __builtin_fabs(l.hi));
    return m + l.hi;
}

static inline float ltm_logaddexp_f32(float a, float b)
{
    double err;
    double y = ltm_logaddexp_f32_approx(a, b, &err);
    float r = lt_f32_ambiguous(y, err) ? lt_dd_to_f32(ltm_logaddexp_dd(a, b)) : (float)y;
    return (float)ltm_logaddexp_special(a, b, r);
}

static inline void ltm_logaddexp_f32_chunk(int64_t n, float *restrict o, const float *restrict a,
                                           const float *restrict b)
{
    int32_t recheck[256];
    for (int64_t i = 0; i < n; i++) {
        double err;
        double y = ltm_logaddexp_f32_approx(a[i], b[i], &err);
        o[i] = (float)y;
        double ad = a[i], bd = b[i];
        recheck[i] = lt_f32_ambiguous(y, err) | (ad == bd) | (ad - ad != 0) | (bd - bd != 0);
    }
    for (int64_t i = 0; i < n; i++)       /* rare: near a midpoint, equal, inf or NaN */
        if (recheck[i]) o[i] = ltm_logaddexp_f32(a[i], b[i]);
}

/* fast float64: y = m + l, l = log1p(t), t = exp(d), with the fast exp (1 ulp) and log1p
 * (2 ulp), d = -|a - b| exact as dh + dl (a rounded d moves t by up to 2^-53 |d| of itself,
 * tens of ulps of y where y is about l) and t = exp(dh) (1 + dl).  The error of l reaches
 * y multiplied by l / |y|, which grows without bound where m < 0 and the sum cancels
 * (exp(a) + exp(b) near 1): there (l > |y|) the lane is left open for the exact forms'
 * more accurate passes, so the fast error stays that of l in ulps of y, and the cost is
 * paid only near the cancellation.  *open is 0 for NaN and infinite operands. */
static inline double ltm_logaddexp_f64_fast_p1(double a, double b, int32_t *open)
{
    double m = a > b ? a : b;
    lt_dd d = lt_dd_select(a > b, lt_two_sum(b, -a), lt_two_sum(a, -b));   /* -|a - b| */
    double dl = lt_select(d.lo == d.lo, d.lo, 0.0);   /* an infinite operand: NaN tail */
    double t = ltm_exp_f64_fast(d.hi);
    double l = ltm_log1p_f64_fast(LT_FMA(t, dl, t));
    double y = m + l;
    *open = l > __builtin_fabs(y);
    y = lt_select(a == b, a + 0.6931471805599453, y);
    return lt_select((a != a) | (b != b), a + b, y);
}

static inline double ltm_logaddexp_f64_fast(double a, double b)
{
    int32_t open;
    double y = ltm_logaddexp_f64_fast_p1(a, b, &open);
    return open ? ltm_logaddexp_f64(a, b) : y;
}

/* the first pass on every element; the open ones packed and run through the exact form's
 * vectorised first pass with the looser test (l <= 64 |y|), and what that leaves open (deeper
 * cancellation, d <= -600) through the double-double path */
static __attribute__((flatten)) void ltm_logaddexp_f64_fast_chunk(int64_t n, double *restrict o,
                                                                  const double *restrict a,
                                                                  const double *restrict b)
{
    int32_t open[LT_CHUNK], any = 0;
    for (int64_t i = 0; i < n; i++) {
        o[i] = ltm_logaddexp_f64_fast_p1(a[i], b[i], &open[i]);
        any |= open[i];
    }
    if (!any)
        return;
    double pa[LT_CHUNK], pb[LT_CHUNK], po[LT_CHUNK];
    int32_t at[LT_CHUNK];
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (open[i]) { pa[k] = a[i]; pb[k] = b[i]; at[k++] = (int32_t)i; }
    ltm_logaddexp_f64_two_pass(k, po, pa, pb, 0);
    for (int64_t j = 0; j < k; j++)
        o[at[j]] = po[j];
}

/* float32 in double: the sum m + log1p(...) cancels near zero, and double keeps 29 bits more
 * (enough for what float32 operands reach; no exact fallback) */
static inline float ltm_logaddexp_f32_fast(float af, float bf)
{
    double a = af, b = bf;
    double m = a > b ? a : b, d = -__builtin_fabs(a - b);
    double r = m + ltm_log1p_f64_fast(ltm_exp_f64_fast(d));
    r = a == b ? a + 0.6931471805599453 : r;
    return (float)((a != a || b != b) ? a + b : r);
}

/* fmod, remainder and floor division a chunk at a time (the ops' f_chunk; n <= LT_CHUNK;
 * here, not in lt_math.h, so that each kernel path compiles its own: compiled once for the
 * baseline and inlined, the float32 loop did not vectorise).  float32 fmod without
 * the C library for |a| < 2^29 |b| (b finite, nonzero), in double: q = trunc(a/b) is the
 * exact quotient's integer part (a/b is an integer n, or at least ulp(b)/|b| >= 2^-24 from
 * it, which the rounding to double, 2^-24 relative below n = 2^29, cannot cross), it has at
 * most 29 bits, so q b is exact, and so is a - q b (a multiple of ulp(b) below |b|); a zero
 * takes a's sign.  The loop vectorises (fmodf ran 3-33 ns per element, by the exponents'
 * distance); other pairs go to fmodf.  Then
 * remainder and floor division as selects of the scalar forms' steps, in the same float
 * operations, so the same bits.  float64 runs the scalar forms. */
static inline void ltm_canonf_if(int64_t n, float *restrict o, int exact)
{
    if (exact)
        for (int64_t i = 0; i < n; i++) o[i] = lt_canonf(o[i]);
}
static inline float ltm_fmodf_common(float af, float bf, int32_t *slow)
{
    const double a = af, b = bf, ab = __builtin_fabs(b);
    *slow = !((__builtin_fabs(a) < 0x1p29 * ab) & (ab < __builtin_inf()));
    const double q = __builtin_trunc(a / lt_select(*slow, 1.0, b));
    const double r = a - q * b;
    return (float)(r == 0 ? __builtin_copysign(0.0, a) : r);
}
static inline void ltm_fmodf_chunk(int64_t n, float *restrict o, const float *restrict a,
                                  const float *restrict b, int exact)
{
    int32_t slow[LT_CHUNK], any = 0;
    for (int64_t i = 0; i < n; i++) { o[i] = ltm_fmodf_common(a[i], b[i], &slow[i]); any |= slow[i]; }
    if (any)
        for (int64_t i = 0; i < n; i++)
            if (slow[i]) o[i] = fmodf(a[i], b[i]);
    ltm_canonf_if(n, o, exact);
}
static inline void ltm_mod_floorf_chunk(int64_t n, float *restrict o, const float *restrict a,
                                       const float *restrict b, int exact)
{
    float m[LT_CHUNK];                         /* fmod, then lt_mod_floorf's steps */
    ltm_fmodf_chunk(n, m, a, b, 0);
    for (int64_t i = 0; i < n; i++) {
        const float mi = m[i], bi = b[i];
        float r = (mi != 0) & ((bi < 0) != (mi < 0)) ? mi + bi : mi;
        r = mi == 0 ? __builtin_copysignf(0.0f, bi) : r;
        o[i] = bi == 0 ? mi : r;
    }
    ltm_canonf_if(n, o, exact);
}
static inline void ltm_floordivf_chunk(int64_t n, float *restrict o, const float *restrict a,
                                      const float *restrict b, int exact)
{
    float m[LT_CHUNK];                         /* fmod, then lt_floordivf's steps */
    ltm_fmodf_chunk(n, m, a, b, 0);
    for (int64_t i = 0; i < n; i++) {
        const float ai = a[i], bi = b[i], mi = m[i], q = ai / bi;
        float d = (ai - mi) / bi;
        d = (mi != 0) & ((bi < 0) != (mi < 0)) ? d - 1.0f : d;
        float f = lt_floorf(d);
        f = d - f > 0.5f ? f + 1.0f : f;
        f = d == 0 ? __builtin_copysignf(0.0f, q) : f;
        o[i] = (bi == 0) | (__builtin_fabsf(ai) == __builtin_inff()) |
               (__builtin_fabsf(bi) == __builtin_inff()) ? q : f;
    }
    ltm_canonf_if(n, o, exact);
}
static inline void ltm_divmod_chunk(int64_t n, double *restrict o, const double *restrict a,
                                    const double *restrict b, int exact, double (*f)(double, double))
{
    for (int64_t i = 0; i < n; i++) o[i] = f(a[i], b[i]);
    if (exact)
        for (int64_t i = 0; i < n; i++) o[i] = lt_canon(o[i]);
}
static inline void ltm_fmod_chunk(int64_t n, double *restrict o, const double *restrict a,
                                  const double *restrict b, int exact)
{ ltm_divmod_chunk(n, o, a, b, exact, lt_fmod); }
static inline void ltm_mod_floor_chunk(int64_t n, double *restrict o, const double *restrict a,
                                       const double *restrict b, int exact)
{ ltm_divmod_chunk(n, o, a, b, exact, lt_mod_floor); }
static inline void ltm_floordiv_chunk(int64_t n, double *restrict o, const double *restrict a,
                                      const double *restrict b, int exact)
{ ltm_divmod_chunk(n, o, a, b, exact, lt_floordiv); }
