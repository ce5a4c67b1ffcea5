/* Complex inverse functions: the ``cc`` bodies of asinh, asin, atanh, atan, acosh, acos (the
 * table rows in lazytensor/_engine/ops.py), with the Array API 2025.12 special cases and
 * branch cuts (signed zeros choose the side; C99 Annex G where the standard leaves a sign
 * open).  Pasted into every kernel-path region by the build, after lt_cfunc.h, whose helpers
 * (parts, logabs, the double-double atan2) it uses; names ltm_cf_.
 *
 * asin and acos follow Hull, Fairgrieve and Tang ("Implementing the complex arcsine and
 * arccosine functions using exception handling", TOMS 1997) in double-double: for
 * w = a + ib, a, b >= 0, A = (|w + 1| + |w - 1|) / 2, the real part of asin w is
 * atan2(a, D), of acos w atan2(D, a), D = sqrt(A^2 - a^2); the imaginary part is
 * -+ log1p(Am1 + sqrt(Am1 (A + 1))), Am1 = A - 1; D and Am1 by their cancellation-free
 * forms.  asinh z = -i asin(iz), acosh from acos.  atanh z: (1/4) log1p(4x / ((1 - x)^2 +
 * y^2)) + i (1/2) atan2(2y, 1 - x^2 - y^2), the last sum exact but for its smallest
 * roundings.  asin z = -i asinh(iz), atan z = -i atanh(iz), iz = -y + ix, as the standard
 * defines their special cases. */

static const lt_dd ltm_cf_ln2 = { 0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56 };
static const lt_dd ltm_cf_pi2 = { 0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54 };

/* atan2(num, den) as a part, num >= 0 (num.v 2^num.m) and den finite (a negative den: pi -
 * ...); a ratio below 2^-900 (or a num scaled by 2^-m: below 2^-200) is the quotient to
 * 2^-400, in double-double on operands scaled into range (the atan2 kernel would round it
 * once from the leading halves) */
static const lt_dd ltm_cf_pi = { 0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53 };
static inline ltm_cf_part ltm_cf_at2(ltm_cf_part num, lt_dd den)
{
    const int neg = den.hi < 0 || (den.hi == 0 && __builtin_signbit(den.hi));
    const lt_dd aden = neg ? lt_dd_neg(den) : den;
    if (num.m != 0 || num.v.hi < 0x1p-900 * aden.hi) {
        if (neg) return ltm_cf_mk(ltm_cf_pi, 0);
        const int up = num.v.hi < 0x1p-400 ? 600 : 0, down = aden.hi >= 0x1p400 ? 600 : 0;
        const double ku = ltm_exp2i_f64(up), kd = ltm_exp2i_f64(-down);
        return ltm_cf_mk(lt_dd_div(lt_dd_make(num.v.hi * ku, num.v.lo * ku),
                                   lt_dd_make(aden.hi * kd, aden.lo * kd)), num.m - up - down);
    }
    return ltm_cf_mk(ltm_trig_at2_dd(num.v, aden, neg, 0), 0);
}

/* a part's value as a double-double (its low half may lose bits to underflow) */
static inline lt_dd ltm_cf_dd_of(ltm_cf_part p)
{
    return p.m == 0 ? p.v : lt_dd_make(ltm_scale_f64(p.v.hi, p.m), ltm_scale_f64(p.v.lo, p.m));
}

static inline lt_dd ltm_cf_half(lt_dd v) { return lt_dd_make(0.5 * v.hi, 0.5 * v.lo); }

/* asin's kernel for finite a, b >= 0: D = sqrt(A^2 - a^2) and I = ln(A + sqrt(A^2 - 1)),
 * asin(a + ib) = atan2(a, D) + i I.  |w| >= 2^60: D = b, I = ln|w| + ln 2 (relative terms
 * below 2^-118 dropped); |w| < 2^-60: asin w = w; b below 2^-400 beside a < 1 or a = 1
 * (where b^2 would underflow): I = b / sqrt(1 - a^2), and D = I = sqrt(b); D and I as
 * parts (a tiny one scaled by 2^-m) */
static inline void ltm_cf_asin_core(double a, double b, ltm_cf_part *D, ltm_cf_part *I)
{
    const double big = a > b ? a : b;
    if (big >= 0x1p60) {
        *D = ltm_cf_exact(b);
        *I = ltm_cf_mk(lt_dd_add(ltm_cf_logabs(a, b), ltm_cf_ln2), 0);
        return;
    }
    if (big < 0x1p-60) {
        *D = ltm_cf_exact(1.0);
        *I = ltm_cf_exact(b);
        return;
    }
    if (b < 0x1p-400 && a <= 1.0) {
        if (a < 1.0) {
            const lt_dd d = ltm_log_sqrt_dd(lt_dd_mul(lt_two_sum(1.0, -a), lt_two_sum(1.0, a)));
            *D = ltm_cf_mk(d, 0);
            *I = ltm_cf_mk(lt_dd_div(lt_dd_make(b * 0x1p600, 0.0), d), -600);
        } else {
            const lt_dd s = ltm_log_sqrt_dd(lt_dd_make(b * 0x1p600, 0.0));
            *D = *I = ltm_cf_mk(s, -300);
        }
        return;
    }
    const lt_dd ap1 = lt_two_sum(a, 1.0), am1 = lt_two_sum(a, -1.0), b2 = lt_two_prod(b, b);
    const lt_dd r = ltm_log_sqrt_dd(lt_dd_add(lt_dd_mul(ap1, ap1), b2));   /* |w + 1| */
    const lt_dd s = ltm_log_sqrt_dd(lt_dd_add(lt_dd_mul(am1, am1), b2));   /* |w - 1| */
    const lt_dd A = ltm_cf_half(lt_dd_add(r, s)), rp = lt_dd_add(r, ap1);
    const lt_dd apa = lt_dd_add_d(A, a), q = lt_dd_div(b2, rp);
    if (a <= 1.0) {   /* A - a = (b^2 / (r + a + 1) + (s + 1 - a)) / 2 */
        *D = ltm_cf_mk(ltm_log_sqrt_dd(ltm_cf_half(lt_dd_mul(apa, lt_dd_add(q, lt_dd_sub(s, am1))))), 0);
    } else {          /* A - a = b^2 (1 / (r + a + 1) + 1 / (s + a - 1)) / 2 */
        const lt_dd t = lt_dd_add(lt_dd_div(apa, rp), lt_dd_div(apa, lt_dd_add(s, am1)));
        const int k = b < 0x1p-400 ? 600 : 0;   /* b scaled up: a subnormal D keeps its bits */
        *D = ltm_cf_mk(lt_dd_mul_d(ltm_log_sqrt_dd(ltm_cf_half(t)), ltm_scale_f64(b, k)), -k);
    }
    const lt_dd am = ltm_cf_half(a < 1.0 ? lt_dd_add(q, lt_dd_div(b2, lt_dd_sub(s, am1)))
                                         : lt_dd_add(q, lt_dd_add(s, am1)));
    const lt_dd u = lt_dd_add(am, ltm_log_sqrt_dd(lt_dd_mul(am, lt_dd_add_d(A, 1.0))));
    *I = ltm_cf_mk(ltm_log1p_dd(u), 0);
}

/* the special operands (a part infinite or NaN) of asinh, acosh, acos, atanh, in double */
static inline int ltm_cf_isinf(double v) { return v == (double)INFINITY || v == -(double)INFINITY; }

static inline lt_c128 ltm_cf_asinh_special(double x, double y)
{
    const double inf = (double)INFINITY;
    lt_c128 o = { __builtin_nan(""), __builtin_nan("") };
    if (x != x) {
        if (y == 0) o.im = y;                                   /* NaN + 0j */
        else if (ltm_cf_isinf(y)) o.re = inf;                   /* +-inf + NaN j: + */
    } else if (y != y) {
        if (ltm_cf_isinf(x)) o.re = x;                          /* C99: inf + NaN j */
    } else {
        o.re = __builtin_copysign(inf, x);
        o.im = __builtin_copysign(ltm_atan2_f64(__builtin_fabs(y), __builtin_fabs(x)), y);
    }
    return o;
}

static inline lt_c128 ltm_cf_acosh_special(double x, double y)
{
    const double inf = (double)INFINITY;
    lt_c128 o = { __builtin_nan(""), __builtin_nan("") };
    if (x != x) {
        if (ltm_cf_isinf(y)) o.re = inf;                        /* inf + NaN j */
    } else if (y != y) {
        if (ltm_cf_isinf(x)) o.re = inf;                        /* inf + NaN j */
        else if (x == 0) o.im = ltm_cf_pi2.hi;                  /* NaN + pi/2 j (sign: +) */
    } else {
        o.re = inf;
        o.im = __builtin_copysign(ltm_atan2_f64(__builtin_fabs(y), x), y);
    }
    return o;
}

static inline lt_c128 ltm_cf_acos_special(double x, double y)
{
    const double inf = (double)INFINITY;
    lt_c128 o = { __builtin_nan(""), __builtin_nan("") };
    if (x != x) {
        if (ltm_cf_isinf(y)) o.im = -y;                         /* NaN -+ inf j */
    } else if (y != y) {
        if (ltm_cf_isinf(x)) o.im = -inf;                       /* NaN - inf j (NumPy's sign) */
        else if (x == 0) o.re = ltm_cf_pi2.hi;                  /* pi/2 + NaN j */
    } else {
        o.re = ltm_atan2_f64(__builtin_fabs(y), x);
        o.im = -__builtin_copysign(inf, y);
    }
    return o;
}

static inline lt_c128 ltm_cf_atanh_special(double x, double y)
{
    lt_c128 o = { __builtin_nan(""), __builtin_nan("") };
    if (x != x) {
        if (ltm_cf_isinf(y)) { o.re = 0.0; o.im = __builtin_copysign(ltm_cf_pi2.hi, y); }
    } else if (y != y) {
        if (ltm_cf_isinf(x) || x == 0) o.re = __builtin_copysign(0.0, x);   /* +-0 + NaN j */
    } else {
        o.re = __builtin_copysign(0.0, x);
        o.im = __builtin_copysign(ltm_cf_pi2.hi, y);
    }
    return o;
}

/* atanh of finite a, b >= 0 (not a = 1, b = 0), part by part */
static inline void ltm_cf_atanh_parts(double a, double b, ltm_cf_part *re, ltm_cf_part *im)
{
    const double big = a > b ? a : b;
    if (big >= 0x1p60) {   /* 1/z + O(z^-3): re a / |z|^2, im pi/2 - b / |z|^2 (2^-118) */
        const int e = ltm_ilogb_f64(big);
        const double as = ltm_scale_f64(a, -e), bs = ltm_scale_f64(b, -e);
        const lt_dd n2 = lt_dd_add(lt_two_prod(as, as), lt_two_prod(bs, bs));
        const lt_dd v = lt_dd_div(lt_dd_make(bs, 0.0), n2);
        *re = ltm_cf_mk(lt_dd_div(lt_dd_make(as, 0.0), n2), -e);
        *im = ltm_cf_mk(lt_dd_sub(ltm_cf_pi2,
                                  lt_dd_make(ltm_scale_f64(v.hi, -e), ltm_scale_f64(v.lo, -e))), 0);
        return;
    }
    /* d = 1 - a^2 - b^2 by exact two_sums but for the last roundings (2^-100 of the terms) */
    const lt_dd p = lt_two_prod(a, a), q = lt_two_prod(b, b);
    const lt_dd s1 = lt_two_sum(p.hi, -1.0), s2 = lt_two_sum(s1.hi, q.hi);
    const lt_dd u = lt_two_sum(s2.lo, p.lo), v = lt_two_sum(u.hi, q.lo);
    lt_dd t = lt_two_sum(s2.hi, v.hi);
    t = lt_two_sum(t.hi, t.lo + ((u.lo + v.lo) + s1.lo));
    const ltm_cf_part at = ltm_cf_at2(ltm_cf_exact(2.0 * b), lt_dd_neg(t));
    *im = ltm_cf_mk(ltm_cf_half(at.v), at.m);
    if (a == 1.0 && b < 0x1p-300) {   /* ln(4 / b^2) / 4 (b^2 would underflow) */
        *re = ltm_cf_mk(ltm_cf_half(lt_dd_sub(ltm_cf_ln2, ltm_cf_logabs(b, 0.0))), 0);
        return;
    }
    const lt_dd om = lt_two_sum(1.0, -a);
    const lt_dd den = lt_dd_add(lt_dd_mul(om, om), q);   /* (1 - a)^2 + b^2 */
    if (a < 0x1p-500) {   /* log1p(t) / 4 = t / 4, a scaled up (it may be subnormal) */
        *re = ltm_cf_mk(lt_dd_div(lt_dd_make(a * 0x1p600, 0.0), den), -600);
        return;
    }
    const lt_dd l = ltm_log1p_dd(lt_dd_div(lt_dd_make(4.0 * a, 0.0), den));
    *re = ltm_cf_mk(lt_dd_make(0.25 * l.hi, 0.25 * l.lo), 0);
}

#define LTM_CF_INV(C, T, R, FIN, CPS)                                                         \
static inline T ltm_cf_asinh##C(T z)                                                          \
{                                                                                             \
    const double x = z.re, y = z.im;                                                          \
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) {                                   \
        const lt_c128 w = ltm_cf_asinh_special(x, y);                                         \
        T o = { (R)w.re, (R)w.im };                                                           \
        return o;                                                                             \
    }                                                                                         \
    const double ay = __builtin_fabs(y);   /* asinh z = -i asin(iz): a = |y|, b = |x| */      \
    ltm_cf_part D, I;                                                                         \
    ltm_cf_asin_core(ay, __builtin_fabs(x), &D, &I);                                          \
    T o = { CPS(FIN(I), (R)x), CPS(FIN(ltm_cf_at2(ltm_cf_exact(ay), ltm_cf_dd_of(D))), (R)y) }; \
    return o;                                                                                 \
}                                                                                             \
static inline T ltm_cf_asin##C(T z)   /* -i asinh(iz) */                                      \
{                                                                                             \
    T iz = { -z.im, z.re };                                                                   \
    const T w = ltm_cf_asinh##C(iz);                                                          \
    T o = { w.im, -w.re };                                                                    \
    return o;                                                                                 \
}                                                                                             \
static inline T ltm_cf_acos##C(T z)                                                           \
{                                                                                             \
    const double x = z.re, y = z.im;                                                          \
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) {                                   \
        const lt_c128 w = ltm_cf_acos_special(x, y);                                          \
        T o = { (R)w.re, (R)w.im };                                                           \
        return o;                                                                             \
    }                                                                                         \
    ltm_cf_part D, I;                                                                         \
    ltm_cf_asin_core(__builtin_fabs(x), __builtin_fabs(y), &D, &I);                           \
    T o = { FIN(ltm_cf_at2(D, lt_dd_make(x, 0.0))), -CPS(FIN(I), (R)y) };       \
    return o;                                                                                 \
}                                                                                             \
static inline T ltm_cf_acosh##C(T z)   /* I + i sign(y) acos's real part */                  \
{                                                                                             \
    const double x = z.re, y = z.im;                                                          \
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) {                                   \
        const lt_c128 w = ltm_cf_acosh_special(x, y);                                         \
        T o = { (R)w.re, (R)w.im };                                                           \
        return o;                                                                             \
    }                                                                                         \
    ltm_cf_part D, I;                                                                         \
    ltm_cf_asin_core(__builtin_fabs(x), __builtin_fabs(y), &D, &I);                           \
    T o = { FIN(I), CPS(FIN(ltm_cf_at2(D, lt_dd_make(x, 0.0))), (R)y) };        \
    return o;                                                                                 \
}                                                                                             \
static inline T ltm_cf_atanh##C(T z)                                                          \
{                                                                                             \
    const double x = z.re, y = z.im;                                                          \
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) {                                   \
        const lt_c128 w = ltm_cf_atanh_special(x, y);                                         \
        T o = { (R)w.re, (R)w.im };                                                           \
        return o;                                                                             \
    }                                                                                         \
    if (__builtin_fabs(x) == 1.0 && y == 0) {   /* +-inf + 0j, y's zero */                    \
        T o = { (R)(x * (double)INFINITY), z.im };                                            \
        return o;                                                                             \
    }                                                                                         \
    ltm_cf_part re, im;                                                                       \
    ltm_cf_atanh_parts(__builtin_fabs(x), __builtin_fabs(y), &re, &im);                       \
    T o = { CPS(FIN(re), (R)x), CPS(FIN(im), (R)y) };                                         \
    return o;                                                                                 \
}                                                                                             \
static inline T ltm_cf_atan##C(T z)   /* -i atanh(iz) */                                      \
{                                                                                             \
    T iz = { -z.im, z.re };                                                                   \
    const T w = ltm_cf_atanh##C(iz);                                                          \
    T o = { w.im, -w.re };                                                                    \
    return o;                                                                                 \
}
LTM_CF_INV(_f64, lt_c128, double, ltm_cf_fin_f64, __builtin_copysign)
LTM_CF_INV(_f32, lt_c64, float, ltm_cf_fin_f32, __builtin_copysignf)
#undef LTM_CF_INV
