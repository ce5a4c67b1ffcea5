/* hypot: the library's own, exact and fast forms (see docs/exact-math.md).
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
