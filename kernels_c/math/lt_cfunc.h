/* Complex elementary functions: the ``cc`` bodies of exp, log, sqrt and sign (the table
 * rows in lazytensor/_engine/ops.py), with the Array API 2025.12 special cases (C99 Annex G
 * where the standard leaves a sign open).
 *
 * Built on the library's own real math only (lt_exp.h's exp core, lt_trig.h's reduction
 * and sin/cos kernel, lt_log.h's double-double logs and square root, lt_misc.h's hypot,
 * lt_trig.h's atan2), all of which use + - * / and sqrt without FMA, so every kernel path
 * computes the same bits.  Both widths compute in double or double-double: complex64
 * widens its parts (every intermediate is then far from overflow and underflow) and rounds
 * each result part once (from a double-double through round-to-odd where there is one);
 * complex128 scales by powers of two where a part could overflow or underflow needlessly.
 * Error bounds (measured against mpmath): docs/exact-math.md, "Complex functions".
 * Pasted into every kernel-path region by the build, after lt_complex.h; names ltm_cf_. */

/* sin y and cos y of a finite y as double-doubles (relative error < 2^-54), one reduction */
static inline void ltm_cf_sincos(double y, lt_dd *s, lt_dd *c)
{
    uint64_t q;
    const lt_dd r = ltm_trig_red64(__builtin_fabs(y), &q);
    lt_dd sn, cs;
    ltm_trig_sc_dd(r.hi, r.lo, &sn, &cs);
    switch (q & 3) {
    case 0: *s = sn; *c = cs; break;
    case 1: *s = cs; *c = lt_dd_neg(sn); break;
    case 2: *s = lt_dd_neg(sn); *c = lt_dd_neg(cs); break;
    default: *s = lt_dd_neg(cs); *c = sn; break;
    }
    if (y < 0) *s = lt_dd_neg(*s);
}

/* exp(x) = 2^m (s.hi + s.lo), relative error < 2^-59, for finite x clamped to +-lim (beyond
 * it the result over- or underflows whatever cis(y) is); |x| > 700 as exp(x/2)^2, so that
 * 2^m may lie far outside the double range (x * sin y may still be finite for a tiny y) */
static inline lt_dd ltm_cf_expm(double x, double lim, int *m)
{
    double sh, sl;
    if (__builtin_fabs(x) <= 700.0) {
        const int64_t k = ltm_exp_core64(x, &sh, &sl);
        *m = (int)((k - (k & 127)) / 128);
        return lt_dd_make(sh, sl);
    }
    x = x > lim ? lim : x < -lim ? -lim : x;
    const int64_t k = ltm_exp_core64(0.5 * x, &sh, &sl);
    *m = 2 * (int)((k - (k & 127)) / 128);
    const lt_dd h = lt_dd_make(sh, sl);
    return lt_dd_mul(h, h);
}

/* exp of a non-finite x or y (the standard's table; both zeros' signs of the unspecified
 * cases +0): computed in double, exact in either width */
static inline lt_c128 ltm_cf_exp_special(double x, double y)
{
    const double inf = (double)INFINITY, nan = __builtin_nan("");
    lt_c128 o = { nan, nan };
    if (x != x) {
        if (y == 0) o.im = y;                          /* NaN + 0j */
    } else if (x == inf || x == -inf) {
        if (y - y == 0) {                              /* +-inf * cis(y); exp(inf + 0j) = inf + 0j */
            lt_dd s, c;
            ltm_cf_sincos(y, &s, &c);
            const double mag = x > 0 ? inf : 0.0;
            o.re = mag * c.hi;
            o.im = y == 0 ? (x > 0 ? y : 0.0 * y) : mag * s.hi;
        } else if (x > 0) {
            o.re = inf;                                /* inf + NaN j */
        } else {
            o.re = 0.0; o.im = 0.0;                    /* 0 + 0j */
        }
    }
    return o;                                          /* finite x, b inf or NaN: NaN + NaN j */
}

static inline lt_c128 ltm_cf_exp_f64(lt_c128 z)
{
    const double x = z.re, y = z.im;
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) return ltm_cf_exp_special(x, y);
    int m;
    const lt_dd e = ltm_cf_expm(x, 2790.0, &m);
    lt_dd s, c;
    int ms = m;
    if (__builtin_fabs(y) < 0x1p-500) {   /* sin y = y, cos y = 1 (to 2^-1000); y scaled up */
        s = lt_dd_make(y * 0x1p600, 0.0);  /* so that a subnormal y keeps its bits */
        c = lt_dd_make(1.0, 0.0);
        ms = m - 600;
    } else {
        ltm_cf_sincos(y, &s, &c);
    }
    const lt_dd re = lt_dd_mul(e, c), im = lt_dd_mul(e, s);
    lt_c128 o = { ltm_scale_f64(re.hi + re.lo, m), y == 0 ? y : ltm_scale_f64(im.hi + im.lo, ms) };
    return o;
}

/* a double-double times 2^m (m within the double exponents of both halves), rounded once
 * to float32 */
static inline float ltm_cf_dd_f32(lt_dd v, int m)
{
    const double sc = ltm_exp2i_f64(m);
    return lt_dd_to_f32(lt_dd_make(v.hi * sc, v.lo * sc));
}

static inline lt_c64 ltm_cf_exp_f32(lt_c64 z)
{
    const double x = z.re, y = z.im;
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) {
        const lt_c128 w = ltm_cf_exp_special(x, y);
        lt_c64 o = { (float)w.re, (float)w.im };
        return o;
    }
    int m;   /* beyond +-200 every complex64 result overflows or is 0 */
    const lt_dd e = ltm_cf_expm(x, 200.0, &m);
    lt_dd s, c;
    ltm_cf_sincos(y, &s, &c);
    lt_c64 o = { ltm_cf_dd_f32(lt_dd_mul(e, c), m), y == 0 ? z.im : ltm_cf_dd_f32(lt_dd_mul(e, s), m) };
    return o;
}

/* complex64 exp over a chunk (n <= LT_CHUNK): a first pass in double, branch-free, for
 * x in [-87, 88] and |y| < 2^18 (exp(x) is a normal float32 below the overflow threshold,
 * y reduces by Cody-Waite), then ltm_cf_exp_f32 for what it leaves open.  Each part is
 * v = RN(e * t), e = ltm_exp_d(x) (relative error < 2^-51.9), t = cos y or sin y from
 * ltm_trig_red32_cw + ltm_trig_sc_d (< 2.5 * 2^-53 and 1.95 * 2^-53, the reduction's
 * 2^-94 absolute included), the product's rounding 2^-53: |v - exp(z)part| < 5.7 * 2^-53
 * |v| (second-order terms < 2^-100).  Ziv's test with 2^-49 |v| (2.8x that); a part below
 * 2^-126 (its grid is not float32's normal one) is open.  Same bits as ltm_cf_exp_f32: that
 * path rounds each part once (lt_dd_to_f32, exact scaling in the normal range) from a value
 * A within 2^-95 of the true part T; a passed test means every value within 2^-49 |v| of v
 * rounds to (float)v, and A lies there (|A - v| <= |A - T| + |T - v| < 5.8 * 2^-53 |v|).
 * y = 0 keeps its bits in the imaginary part, as there.  No sum meets a product here, so
 * there is nothing for the FMA paths to contract (checked with objdump). */
static inline void ltm_cf_exp_f32_chunk(int64_t n, lt_c64 *restrict o, const lt_c64 *restrict a)
{
    float xs[LT_CHUNK], ys[LT_CHUNK], ore[LT_CHUNK], oim[LT_CHUNK];
    int32_t open[LT_CHUNK];
    for (int64_t i = 0; i < n; i++) { xs[i] = a[i].re; ys[i] = a[i].im; }
    int32_t any = 0;
    for (int64_t i = 0; i < n; i++) {
        const float xf = xs[i], yf = ys[i];
        const int32_t ok = (xf >= -87.0f) & (xf <= 88.0f)
                           & (__builtin_fabsf(yf) < (float)LTM_TRIG_CW_MAX);
        const double x = lt_selectf(ok, xf, 0.0f), y = lt_selectf(ok, yf, 0.0f);
        const double e = ltm_exp_d(x);
        uint64_t q; double rh, rl, sn, cs;
        ltm_trig_red32_cw(__builtin_fabs(y), &q, &rh, &rl);
        ltm_trig_sc_d(rh, rl, &sn, &cs);
        const uint64_t odd = q & 1;
        double s = odd ? cs : sn, c = odd ? sn : cs;
        s = ltm_trig_neg(0, q, y < 0) ? -s : s;
        c = ltm_trig_neg(1, q, 0) ? -c : c;
        const double re = e * c, im = e * s;
        const double are = __builtin_fabs(re), aim = __builtin_fabs(im);
        const int32_t op_re = lt_f32_ambiguous(re, are * 0x1p-49) | (are < 0x1p-126);
        const int32_t op_im = (lt_f32_ambiguous(im, aim * 0x1p-49) | (aim < 0x1p-126)) & (yf != 0);
        ore[i] = (float)re;
        oim[i] = yf == 0 ? yf : (float)im;
        open[i] = (ok ^ 1) | op_re | op_im;
        any |= open[i];
    }
    for (int64_t i = 0; i < n; i++) { o[i].re = ore[i]; o[i].im = oim[i]; }
    if (any)
        for (int64_t i = 0; i < n; i++)
            if (open[i]) o[i] = ltm_cf_exp_f32(a[i]);
}

/* complex128 exp over a chunk: for x in [-600, 690] and 2^-500 <= |y| < 2^25 every branch of
 * ltm_cf_exp_f64 is decided (|x| <= 700, Cody-Waite reduction, 2^m within one scaling step),
 * so the same operations run branch-free over the chunk, parts in separate arrays (the
 * same bits by construction: nothing is reordered, and no sum meets a product that the
 * scalar code did not have); the other elements then take ltm_cf_exp_f64 */
static inline void ltm_cf_exp_f64_chunk(int64_t n, lt_c128 *restrict o, const lt_c128 *restrict a)
{
    double xs[LT_CHUNK], ys[LT_CHUNK], ore[LT_CHUNK], oim[LT_CHUNK];
    int32_t other[LT_CHUNK];
    for (int64_t i = 0; i < n; i++) { xs[i] = a[i].re; ys[i] = a[i].im; }
    int32_t any = 0;
    for (int64_t i = 0; i < n; i++) {
        const double ay = __builtin_fabs(ys[i]);
        const int32_t ok = (xs[i] >= -600.0) & (xs[i] <= 690.0) & (ay >= 0x1p-500) & (ay < 0x1p25);
        const double x = lt_select(ok, xs[i], 0.0), y = lt_select(ok, ys[i], 1.0);
        double sh, sl;
        const int64_t k = ltm_exp_core64(x, &sh, &sl);
        const int m = (int)((k - (k & 127)) / 128);
        const lt_dd e = lt_dd_make(sh, sl);
        uint64_t q;
        const lt_dd r = ltm_trig_red64_cw(__builtin_fabs(y), &q);
        lt_dd sn, cs;
        ltm_trig_sc_dd(r.hi, r.lo, &sn, &cs);
        const int odd = (int)(q & 1), neg_s = (int)((q >> 1) & 1), neg_c = (int)(((q + 1) >> 1) & 1);
        lt_dd s = lt_dd_select(odd, cs, sn), c = lt_dd_select(odd, sn, cs);
        s = lt_dd_select(neg_s ^ (y < 0), lt_dd_neg(s), s);
        c = lt_dd_select(neg_c, lt_dd_neg(c), c);
        const lt_dd re = lt_dd_mul(e, c), im = lt_dd_mul(e, s);
        const double sc = ltm_exp2i_f64(m);
        ore[i] = (re.hi + re.lo) * sc;
        oim[i] = (im.hi + im.lo) * sc;
        other[i] = ok ^ 1;
        any |= other[i];
    }
    for (int64_t i = 0; i < n; i++) { o[i].re = ore[i]; o[i].im = oim[i]; }
    if (any)
        for (int64_t i = 0; i < n; i++)
            if (other[i]) o[i] = ltm_cf_exp_f64(a[i]);
}

/* ------------------------------------------------------------------ log */
/* ln|z| as a double-double (relative error < 2^-96) for finite nonzero z: |z|^2 - 1 summed
 * exactly but for its last roundings (2^-150 absolute) near |z| = 1, where log1p takes it;
 * elsewhere the operands scaled by 2^-e into [1, 2) and e ln2 added. */
static inline lt_dd ltm_cf_logabs(double x, double y)
{
    double big = __builtin_fabs(x), small = __builtin_fabs(y);
    if (small > big) { const double t = big; big = small; small = t; }
    int e = 0;
    if (big < 0.5 || big >= 2.0) {
        e = big < 0x1p-1000 ? ltm_ilogb_f64(big * 0x1p600) - 600 : ltm_ilogb_f64(big);
        big = ltm_scale_f64(big, -e);
        small = ltm_scale_f64(small, -e);   /* may underflow: then small^2 is negligible */
    }
    const lt_dd p = lt_two_prod(big, big), q = lt_two_prod(small, small);
    lt_dd r;
    if (e == 0 && p.hi + q.hi > 0.5 && p.hi + q.hi < 1.5) {
        /* t = (p.hi - 1) + q.hi + p.lo + q.lo by two_sums: only the sum of their last
         * errors (`rest`, terms below 2^-100) is rounded */
        const lt_dd a = lt_two_sum(p.hi, -1.0);
        const lt_dd b = lt_two_sum(a.hi, q.hi);
        const lt_dd u = lt_two_sum(b.lo, p.lo);
        const lt_dd v = lt_two_sum(u.hi, q.lo);
        const double rest = (u.lo + v.lo) + a.lo;
        lt_dd t = lt_two_sum(b.hi, v.hi);
        t = lt_two_sum(t.hi, t.lo + rest);
        r = ltm_log1p_dd(t);
    } else {
        const lt_dd s = lt_dd_add(p, q);
        r = ltm_log_dd(s.hi, s.lo);
    }
    r = lt_dd_make(0.5 * r.hi, 0.5 * r.lo);
    if (e != 0) {   /* + e ln2 (e * LN2_HI exact) */
        const double ed = (double)e;
        lt_dd l = lt_dd_add_d(lt_two_prod(ed, lt_tab_log_k[1]), ed * lt_tab_log_k[2]);
        l = lt_dd_add_d(l, ed * lt_tab_log_k[0]);
        r = lt_dd_add(l, r);
    }
    return r;
}

/* atan2(y, x) as a double-double for finite (x, y) not both zero, x = xd.hi + xd.lo (lt_trig.h's
 * kernel: relative error < 2^-65; a ratio below 2^-900 is y/x rounded once) */
static inline lt_dd ltm_cf_atan2_dd(double y, lt_dd xd)
{
    const int xneg = xd.hi < 0 || (xd.hi == 0 && __builtin_signbit(xd.hi));
    const lt_dd ax = xneg ? lt_dd_neg(xd) : xd;
    const lt_dd r = ltm_trig_at2_dd(lt_dd_make(__builtin_fabs(y), 0.0), ax, xneg, 0);
    return __builtin_signbit(y) ? lt_dd_neg(r) : r;
}

/* log's special operands (a part infinite or NaN, or both zero): log of the hypot (which
 * takes an infinite part over NaN) and atan2's quadrants give the standard's table */
static inline lt_c128 ltm_cf_log_special(double x, double y)
{
    lt_c128 o = { ltm_log_f64(ltm_hypot_f64(x, y)), ltm_atan2_f64(y, x) };
    return o;
}

static inline int ltm_cf_log_plain(double x, double y)
{
    return x - x == 0 && y - y == 0 && (x != 0 || y != 0);
}

static inline lt_c128 ltm_cf_log_f64(lt_c128 z)
{
    if (__builtin_expect(!ltm_cf_log_plain(z.re, z.im), 0)) return ltm_cf_log_special(z.re, z.im);
    const lt_dd r = ltm_cf_logabs(z.re, z.im), t = ltm_cf_atan2_dd(z.im, lt_dd_make(z.re, 0.0));
    lt_c128 o = { r.hi + r.lo, t.lo == 0 ? t.hi : t.hi + t.lo };
    return o;
}

static inline lt_c64 ltm_cf_log_f32(lt_c64 z)
{
    if (__builtin_expect(!ltm_cf_log_plain(z.re, z.im), 0)) {
        const lt_c128 w = ltm_cf_log_special(z.re, z.im);
        lt_c64 o = { (float)w.re, ltm_atan2_f32(z.im, z.re) };
        return o;
    }
    lt_c64 o = { lt_dd_to_f32(ltm_cf_logabs(z.re, z.im)), ltm_atan2_f32(z.im, z.re) };
    return o;
}

/* log2 and log10: the standard's change of base, log(z) / ln b, log's special cases
 * divided likewise; both parts double-doubles (ln|z|, atan2(y, x)) times 1/ln b, rounded once */
#define LTM_CF_LOGB(NAME, INV_HI, INV_LO, LNB)                                                \
static inline lt_c128 ltm_cf_##NAME##_f64(lt_c128 z)                                          \
{                                                                                             \
    if (__builtin_expect(!ltm_cf_log_plain(z.re, z.im), 0)) {                                 \
        lt_c128 w = ltm_cf_log_special(z.re, z.im);                                           \
        w.re = w.re / (LNB); w.im = w.im / (LNB);                                             \
        return w;                                                                             \
    }                                                                                         \
    const lt_dd inv = lt_dd_make(INV_HI, INV_LO);                                             \
    const lt_dd r = lt_dd_mul(ltm_cf_logabs(z.re, z.im), inv);                                \
    const lt_dd t = lt_dd_mul(ltm_cf_atan2_dd(z.im, lt_dd_make(z.re, 0.0)), inv);             \
    lt_c128 o = { r.hi + r.lo, t.lo == 0 ? t.hi : t.hi + t.lo };                              \
    return o;                                                                                 \
}                                                                                             \
static inline lt_c64 ltm_cf_##NAME##_f32(lt_c64 z)                                            \
{                                                                                             \
    if (__builtin_expect(!ltm_cf_log_plain(z.re, z.im), 0)) {                                 \
        const lt_c128 w = ltm_cf_log_special(z.re, z.im);                                     \
        lt_c64 o = { (float)(w.re / (LNB)), (float)(w.im / (LNB)) };                          \
        return o;                                                                             \
    }                                                                                         \
    const lt_dd inv = lt_dd_make(INV_HI, INV_LO);                                             \
    const lt_dd r = lt_dd_mul(ltm_cf_logabs(z.re, z.im), inv);                                \
    const lt_dd t = lt_dd_mul(ltm_cf_atan2_dd(z.im, lt_dd_make(z.re, 0.0)), inv);             \
    lt_c64 o = { lt_dd_to_f32(r), lt_dd_to_f32(t) };                                          \
    return o;                                                                                 \
}
LTM_CF_LOGB(log2, lt_tab_log_k[3], lt_tab_log_k[4], lt_tab_log_k[10])
LTM_CF_LOGB(log10, lt_tab_log_k[5], lt_tab_log_k[6], 0x1.26bb1bbb55516p+1)
#undef LTM_CF_LOGB

/* ------------------------------------------------------------------ sqrt */
/* sqrt(z) for finite nonzero z: t = sqrt((|x| + |z|) / 2) and q = |y| / (2t) as
 * double-doubles (relative error < 2^-98), t in units of 2^*kt, q of 2^*kq: z is scaled by
 * 2^-2h (|z| in [1, 4)); the quotient takes |y| 2^-h itself when h >= 0 (scaled down: it
 * underflows only where q does), |y| 2^-2h when h < 0 (scaled up: exact). */
static inline void ltm_cf_sqrt_dd(double x, double y, lt_dd *t, lt_dd *q, int *kt, int *kq)
{
    const double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    const double big = ax > ay ? ax : ay;
    const int e = big < 0x1p-1000 ? ltm_ilogb_f64(big * 0x1p600) - 600 : ltm_ilogb_f64(big);
    const int h = e >= 0 ? e / 2 : -((1 - e) / 2);        /* floor(e / 2) */
    const double xs = ltm_scale_f64(ax, -2 * h), ys = ltm_scale_f64(ay, -2 * h);
    const lt_dd n2 = lt_dd_add(lt_two_prod(xs, xs), lt_two_prod(ys, ys));
    const lt_dd w = lt_dd_add_d(ltm_log_sqrt_dd(n2), xs);  /* |x| + |z|, both >= 0 */
    *t = ltm_log_sqrt_dd(lt_dd_make(0.5 * w.hi, 0.5 * w.lo));
    const double num = h >= 0 ? ltm_scale_f64(ay, -h) : ys;
    *q = lt_dd_div(lt_dd_make(num, 0.0), lt_dd_make(2.0 * t->hi, 2.0 * t->lo));
    *kt = h;
    *kq = h >= 0 ? 0 : h;
}

/* the standard's table (C99 csqrt): an infinite imaginary part wins over NaN */
static inline int ltm_cf_sqrt_special(double x, double y, lt_c128 *o)
{
    const double inf = (double)INFINITY, nan = __builtin_nan("");
    if (y == inf || y == -inf) { o->re = inf; o->im = y; return 1; }
    if (x != x || y != y) {
        o->re = nan; o->im = nan;
        if (x == inf) o->re = inf;                                  /* inf + NaN j */
        if (x == -inf) o->im = inf;                                 /* NaN + inf j */
        return 1;
    }
    if (x == inf) { o->re = inf; o->im = 0.0 * y; return 1; }       /* y finite */
    if (x == -inf) { o->re = 0.0; o->im = __builtin_copysign(inf, y); return 1; }
    if (x == 0 && y == 0) { o->re = 0.0; o->im = y; return 1; }
    return 0;
}

static inline lt_c128 ltm_cf_sqrt_f64(lt_c128 z)
{
    lt_c128 o;
    if (__builtin_expect(ltm_cf_sqrt_special(z.re, z.im, &o), 0)) return o;
    lt_dd t, q;
    int kt, kq;
    ltm_cf_sqrt_dd(z.re, z.im, &t, &q, &kt, &kq);
    const double tv = ltm_scale_f64(t.hi + t.lo, kt), qv = ltm_scale_f64(q.hi + q.lo, kq);
    o.re = z.re >= 0 ? tv : qv;
    o.im = __builtin_copysign(z.re >= 0 ? qv : tv, z.im);
    return o;
}

static inline lt_c64 ltm_cf_sqrt_f32(lt_c64 z)
{
    lt_c128 w;
    if (__builtin_expect(ltm_cf_sqrt_special(z.re, z.im, &w), 0)) {
        lt_c64 o = { (float)w.re, (float)w.im };
        return o;
    }
    lt_dd t, q;
    int kt, kq;   /* complex64 parts: |k| < 80, 2^k and the scaled halves are normal doubles */
    ltm_cf_sqrt_dd(z.re, z.im, &t, &q, &kt, &kq);
    const float tv = ltm_cf_dd_f32(t, kt), qv = ltm_cf_dd_f32(q, kq);
    lt_c64 o = { z.re >= 0 ? tv : qv, __builtin_copysignf(z.re >= 0 ? qv : tv, z.im) };
    return o;
}

/* ------------------------------------------------------------------ sign */
/* z / |z|: 0 for 0, NaN + NaN j when a part is NaN (the standard), +-1 on the axis of an
 * infinite part with the other part's sign of zero, NaN + NaN j when both are infinite (as
 * inf / inf); finite z scaled by 2^-e (|z| near 1) and each part divided by |z| in
 * double-double */
static inline int ltm_cf_sign_special(double x, double y, lt_c128 *o)
{
    const double nan = __builtin_nan("");
    const int xi = x == (double)INFINITY || x == -(double)INFINITY;
    const int yi = y == (double)INFINITY || y == -(double)INFINITY;
    if (x != x || y != y || (xi && yi)) { o->re = nan; o->im = nan; return 1; }
    if (xi) { o->re = __builtin_copysign(1.0, x); o->im = __builtin_copysign(0.0, y); return 1; }
    if (yi) { o->re = __builtin_copysign(0.0, x); o->im = __builtin_copysign(1.0, y); return 1; }
    if (x == 0 && y == 0) { o->re = 0.0; o->im = 0.0; return 1; }
    return 0;
}

static inline void ltm_cf_sign_dd(double x, double y, lt_dd *re, lt_dd *im)
{
    const int e = ltm_cexp_f64(x, y) < -1000 ? ltm_cexp_f64(x * 0x1p600, y * 0x1p600) - 600
                                               : ltm_cexp_f64(x, y);
    const double xs = ltm_scale_f64(x, -e), ys = ltm_scale_f64(y, -e);
    const lt_dd h = ltm_log_sqrt_dd(lt_dd_add(lt_two_prod(xs, xs), lt_two_prod(ys, ys)));
    *re = lt_dd_div(lt_dd_make(xs, 0.0), h);
    *im = lt_dd_div(lt_dd_make(ys, 0.0), h);
}

static inline lt_c128 ltm_cf_sign_f64(lt_c128 z)
{
    lt_c128 o;
    if (__builtin_expect(ltm_cf_sign_special(z.re, z.im, &o), 0)) return o;
    lt_dd re, im;
    ltm_cf_sign_dd(z.re, z.im, &re, &im);
    o.re = z.re == 0 ? z.re : re.hi + re.lo;
    o.im = z.im == 0 ? z.im : im.hi + im.lo;
    return o;
}

static inline lt_c64 ltm_cf_sign_f32(lt_c64 z)
{
    lt_c128 w;
    if (__builtin_expect(ltm_cf_sign_special(z.re, z.im, &w), 0)) {
        lt_c64 o = { (float)w.re, (float)w.im };
        return o;
    }
    lt_dd re, im;
    ltm_cf_sign_dd(z.re, z.im, &re, &im);
    lt_c64 o = { z.re == 0 ? z.re : lt_dd_to_f32(re), z.im == 0 ? z.im : lt_dd_to_f32(im) };
    return o;
}

/* ------------------------------------------------------------------ sinh, cosh, tanh */
/* and sin, cos, tan by the standard's identities: sin z = -i sinh(iz), cos z = cosh(iz),
 * tan z = -i tanh(iz), iz = -y + ix (the special cases follow).  Each part of sinh and cosh
 * is a product (no cancellation): sinh x cos y + i cosh x sin y, cosh x cos y + i sinh x
 * sin y, in double-double; tanh = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y),
 * a sum of squares below (Kahan's form, no cancellation near y = pi/2). */

/* sinh x and cosh x of a finite nonzero x as double-doubles times 2^m: |x| <= 40 from
 * expm1(|x|) (2^-95): sinh = (E + E / (1 + E)) / 2, cosh = (e + 1/e) / 2; beyond, both are
 * exp(|x|) / 2 within 2^-115 */
static inline void ltm_cf_shch(double x, double lim, lt_dd *sh, lt_dd *ch, int *m)
{
    const double ax = __builtin_fabs(x);
    lt_dd s, c;
    if (ax <= 40.0) {
        const lt_dd E = ltm_expm1_dd(ax), e = lt_dd_add_d(E, 1.0);
        s = lt_dd_add(E, lt_dd_div(E, e));
        c = lt_dd_add(e, lt_dd_div(lt_dd_make(1.0, 0.0), e));
        *m = -1;
    } else {
        s = c = ltm_cf_expm(ax, lim, m);
        *m -= 1;
    }
    *sh = x < 0 ? lt_dd_neg(s) : s;
    *ch = c;
}

/* sin y, cos y with a complex128 y below 2^-500 scaled up by 2^600 (sin y = y there) so that
 * a subnormal y keeps its bits: returns the exponent of *s (0 or -600) */
static inline int ltm_cf_sincos_scaled(double y, lt_dd *s, lt_dd *c)
{
    if (__builtin_fabs(y) < 0x1p-500) {
        *s = lt_dd_make(y * 0x1p600, 0.0);
        *c = lt_dd_make(1.0, 0.0);
        return -600;
    }
    ltm_cf_sincos(y, s, c);
    return 0;
}

/* a part's value and exponent: the finished part, per width (f64: rounded, then scaled;
 * f32: scaled, then rounded once from the double-double) */
typedef struct { lt_dd v; int m; } ltm_cf_part;
static inline double ltm_cf_fin_f64(ltm_cf_part p)
{
    return ltm_scale_f64(p.v.lo == 0 ? p.v.hi : p.v.hi + p.v.lo, p.m);   /* keeps a zero's sign */
}
static inline float ltm_cf_fin_f32(ltm_cf_part p) { return ltm_cf_dd_f32(p.v, p.m); }
static inline ltm_cf_part ltm_cf_mk(lt_dd v, int m) { ltm_cf_part p = { v, m }; return p; }
/* an exact double value as a part */
static inline ltm_cf_part ltm_cf_exact(double v) { return ltm_cf_mk(lt_dd_make(v, 0.0), 0); }

/* sinh (is_cosh 0) or cosh (1) of a finite z, part by part */
static inline void ltm_cf_sinhcosh(int is_cosh, double x, double y, double lim, ltm_cf_part *re,
                                   ltm_cf_part *im)
{
    lt_dd s, c;
    const int ms = ltm_cf_sincos_scaled(y, &s, &c);
    if (x == 0) {          /* sinh = (x cos y, sin y), cosh = (cos y, x sin y): signed zeros */
        *re = is_cosh ? ltm_cf_mk(c, 0) : ltm_cf_exact(x * c.hi);
        *im = is_cosh ? ltm_cf_exact(x * s.hi) : ltm_cf_mk(s, ms);
        return;
    }
    lt_dd sh, ch;
    int m;
    ltm_cf_shch(x, lim, &sh, &ch, &m);
    *re = ltm_cf_mk(lt_dd_mul(is_cosh ? ch : sh, c), m);
    if (y == 0)            /* sinh: +-0 of y's sign; cosh: sinh x * y's */
        *im = ltm_cf_exact(is_cosh ? (x > 0 ? y : -y) : y);
    else
        *im = ltm_cf_mk(lt_dd_mul(is_cosh ? sh : ch, s), m + ms);
}

/* C99 csinh / ccosh for a non-finite x or y (the standard's tables, extended by
 * sinh(-z) = -sinh z, cosh(-z) = cosh z and conjugation; unspecified zeros and infinities
 * take the sign those symmetries give) */
static inline lt_c128 ltm_cf_sinhcosh_special(int is_cosh, double x, double y)
{
    const double inf = (double)INFINITY, nan = __builtin_nan("");
    lt_c128 o = { nan, nan };
    const double sgn0 = __builtin_copysign(1.0, x) * __builtin_copysign(1.0, y);
    if (x != x) {
        if (y == 0) o.im = y;                                   /* NaN +- 0j */
    } else if (x == inf || x == -inf) {
        if (y == 0) {                                          /* +-inf +- 0j */
            o.re = is_cosh ? inf : x;
            o.im = is_cosh ? __builtin_copysign(0.0, sgn0) : y;
        } else if (y - y == 0) {                               /* inf cis(y), signs per parity */
            lt_dd s, c;
            ltm_cf_sincos(y, &s, &c);
            o.re = (is_cosh ? inf : x) * c.hi;
            o.im = (is_cosh ? x : inf) * s.hi;
        } else {
            o.re = is_cosh ? inf : x;                          /* inf + NaN j */
        }
    } else if (x == 0) {                                       /* y inf or NaN */
        if (is_cosh) o.im = __builtin_copysign(0.0, sgn0);     /* NaN + 0j */
        else o.re = x;                                         /* 0 + NaN j */
    }
    return o;                                                  /* else NaN + NaN j */
}

/* tanh of a finite z, part by part: x = 0: (x, tan y); |x| >= 22: (+-1, 4 sin y cos y
 * e^-2|x|) (relative error of both < 2^-62); else Kahan's form above */
static inline void ltm_cf_tanh_parts(double x, double y, double lim, ltm_cf_part *re, ltm_cf_part *im)
{
    lt_dd s, c;
    const int ms = ltm_cf_sincos_scaled(y, &s, &c);
    if (x == 0) {
        *re = ltm_cf_exact(x);
        *im = y == 0 ? ltm_cf_exact(y) : ltm_cf_mk(lt_dd_div(s, c), ms);
        return;
    }
    if (__builtin_fabs(x) >= 22.0) {
        int m;
        const lt_dd e = ltm_cf_expm(-2.0 * __builtin_fabs(x), lim, &m);
        *re = ltm_cf_exact(__builtin_copysign(1.0, x));
        *im = y == 0 ? ltm_cf_exact(y) : ltm_cf_mk(lt_dd_mul(lt_dd_mul(s, c), e), m + ms + 2);
        return;
    }
    lt_dd sh, ch;
    int m;   /* -1: |x| < 22 <= 40 */
    ltm_cf_shch(x, lim, &sh, &ch, &m);
    sh = lt_dd_make(0.5 * sh.hi, 0.5 * sh.lo);    /* 2^m = 1/2: sinh x and cosh x themselves */
    ch = lt_dd_make(0.5 * ch.hi, 0.5 * ch.lo);
    const lt_dd d = lt_dd_add(lt_dd_mul(sh, sh), lt_dd_mul(c, c));
    *re = ltm_cf_mk(lt_dd_div(lt_dd_mul(sh, ch), d), 0);
    *im = y == 0 ? ltm_cf_exact(y) : ltm_cf_mk(lt_dd_div(lt_dd_mul(s, c), d), ms);
}

/* C99 ctanh for a non-finite x or y (tanh(+-inf + bj) = +-1 + 0j with b's sign of zero) */
static inline lt_c128 ltm_cf_tanh_special(double x, double y)
{
    const double nan = __builtin_nan("");
    lt_c128 o = { nan, nan };
    if (x != x) {
        if (y == 0) o.im = y;
    } else if (x == (double)INFINITY || x == -(double)INFINITY) {
        o.re = __builtin_copysign(1.0, x);
        o.im = __builtin_copysign(0.0, y);
    } else if (x == 0) {
        o.re = x;                                               /* 0 + NaN j */
    }
    return o;
}

/* kind: 0 sinh, 1 cosh, 2 tanh; the complex128 and complex64 forms */
static inline lt_c128 ltm_cf_hyp_f64(int kind, double x, double y)
{
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0))
        return kind == 2 ? ltm_cf_tanh_special(x, y) : ltm_cf_sinhcosh_special(kind, x, y);
    ltm_cf_part re, im;
    if (kind == 2) ltm_cf_tanh_parts(x, y, 2790.0, &re, &im);
    else ltm_cf_sinhcosh(kind, x, y, 2790.0, &re, &im);
    lt_c128 o = { ltm_cf_fin_f64(re), ltm_cf_fin_f64(im) };
    return o;
}

static inline lt_c64 ltm_cf_hyp_f32(int kind, double x, double y)
{
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) {
        const lt_c128 w = kind == 2 ? ltm_cf_tanh_special(x, y) : ltm_cf_sinhcosh_special(kind, x, y);
        lt_c64 o = { (float)w.re, (float)w.im };
        return o;
    }
    ltm_cf_part re, im;
    if (kind == 2) ltm_cf_tanh_parts(x, y, 200.0, &re, &im);
    else ltm_cf_sinhcosh(kind, x, y, 200.0, &re, &im);
    lt_c64 o = { ltm_cf_fin_f32(re), ltm_cf_fin_f32(im) };
    return o;
}

#define LTM_CF_HYP(C, T)                                                                      \
static inline T ltm_cf_sinh##C(T z) { return ltm_cf_hyp##C(0, z.re, z.im); }                  \
static inline T ltm_cf_cosh##C(T z) { return ltm_cf_hyp##C(1, z.re, z.im); }                  \
static inline T ltm_cf_tanh##C(T z) { return ltm_cf_hyp##C(2, z.re, z.im); }                  \
/* sin z = -i sinh(iz), tan z = -i tanh(iz), cos z = cosh(iz), iz = -y + ix */               \
static inline T ltm_cf_sin##C(T z) { const T w = ltm_cf_hyp##C(0, -z.im, z.re); T o = { w.im, -w.re }; return o; } \
static inline T ltm_cf_cos##C(T z) { return ltm_cf_hyp##C(1, -z.im, z.re); }                  \
static inline T ltm_cf_tan##C(T z) { const T w = ltm_cf_hyp##C(2, -z.im, z.re); T o = { w.im, -w.re }; return o; }
LTM_CF_HYP(_f64, lt_c128)
LTM_CF_HYP(_f32, lt_c64)
#undef LTM_CF_HYP

/* ------------------------------------------------------------------ expm1, log1p */
/* expm1 z = (e^x cos y - 1) + i e^x sin y: the real part as expm1(x) cos y - 2 sin^2(y/2)
 * in double-double (its two terms cancel only near the curve e^x cos y = 1, where the part
 * itself is small: there its error is relative to the terms), beyond x = 600 as exp's part
 * (the -1 is below 2^-800 of it; the double-double products need operands below 2^995),
 * below -700 as -1; the imaginary part is exp's */
static inline void ltm_cf_expm1_parts(double x, double y, double lim, ltm_cf_part *re,
                                      ltm_cf_part *im)
{
    int m;
    const lt_dd e = ltm_cf_expm(x, lim, &m);
    lt_dd s, c;
    const int ms = ltm_cf_sincos_scaled(y, &s, &c);
    *im = y == 0 ? ltm_cf_exact(y) : ltm_cf_mk(lt_dd_mul(e, s), m + ms);
    if (y == 0) {                       /* expm1(x) + yj; (+-0 + 0j) gives +0 as exp(z) - 1 */
        *re = x > 600.0 ? ltm_cf_mk(e, m) : x < -700.0 ? ltm_cf_exact(-1.0)
                        : x == 0 ? ltm_cf_exact(0.0) : ltm_cf_mk(ltm_expm1_dd(x), 0);
    } else if (x > 600.0) {   /* e^x |cos y| > 2^800: the -1 is lost; expm1_dd's 2^866 stays */
        *re = ltm_cf_mk(lt_dd_mul(e, c), m);
    } else if (x < -700.0) {
        *re = ltm_cf_exact(-1.0);
    } else {
        lt_dd sh, ch;                   /* sin(y/2); y/2 loses a bit only below 2^-1021 */
        ltm_cf_sincos(0.5 * y, &sh, &ch);
        const lt_dd a = x == 0 ? lt_dd_make(0.0, 0.0) : lt_dd_mul(ltm_expm1_dd(x), c);
        const lt_dd b = lt_dd_mul(sh, sh);
        *re = ltm_cf_mk(lt_dd_sub(a, lt_dd_make(2.0 * b.hi, 2.0 * b.lo)), 0);
    }
}

/* expm1's special cases: exp's minus 1 (the standard's table: -inf gives -1 + 0 cis(b)) */
static inline lt_c128 ltm_cf_expm1_special(double x, double y)
{
    lt_c128 o = ltm_cf_exp_special(x, y);
    o.re = o.re - 1.0;
    return o;
}

/* log1p z = log(1 + z).  x > -1/2 and |z| < 2^26: ln|1 + z| = log1p(t) / 2, t = 2x + x^2 +
 * y^2 summed exactly but for the last roundings of its small terms (no cancellation left:
 * 1 + t >= 1/4); otherwise 1 + x is exact (x in [-2^53, -1/2]) or its rounding is below
 * 2^-52 of a |1 + z| >= 2^25, and log's ln|w| of w = (1 + x) + yi serves.  The imaginary
 * part atan2(y, 1 + x) with 1 + x as a double-double; special operands and z = -1 are log's
 * of w. */
static inline int ltm_cf_log1p_plain(double x, double y)
{
    return x - x == 0 && y - y == 0 && (x != -1.0 || y != 0);
}

static inline lt_dd ltm_cf_log1p_re(double x, double y)
{
    const double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    if (x <= -0.5 || ax >= 0x1p26 || ay >= 0x1p26) return ltm_cf_logabs(1.0 + x, y);
    const lt_dd p = lt_two_prod(x, x), q = lt_two_prod(y, y);
    const lt_dd a = lt_two_sum(2.0 * x, p.hi);
    const lt_dd b = lt_two_sum(a.hi, q.hi);
    const lt_dd u = lt_two_sum(b.lo, a.lo);
    const lt_dd v = lt_two_sum(u.hi, p.lo + q.lo);
    lt_dd t = lt_two_sum(b.hi, v.hi);
    t = lt_two_sum(t.hi, t.lo + (u.lo + v.lo));
    const lt_dd r = ltm_log1p_dd(t);
    return lt_dd_make(0.5 * r.hi, 0.5 * r.lo);
}

#define LTM_CF_WIDTH(C, T, R, FIN, LIM)                                                       \
static inline T ltm_cf_expm1##C(T z)                                                          \
{                                                                                             \
    const double x = z.re, y = z.im;                                                          \
    if (__builtin_expect(!(x - x == 0 && y - y == 0), 0)) {                                   \
        const lt_c128 w = ltm_cf_expm1_special(x, y);                                         \
        T o = { (R)w.re, (R)w.im };                                                           \
        return o;                                                                             \
    }                                                                                         \
    ltm_cf_part re, im;                                                                       \
    ltm_cf_expm1_parts(x, y, LIM, &re, &im);                                                  \
    T o = { FIN(re), FIN(im) };                                                               \
    return o;                                                                                 \
}                                                                                             \
static inline T ltm_cf_log1p##C(T z)                                                          \
{                                                                                             \
    const double x = z.re, y = z.im;                                                          \
    if (__builtin_expect(!ltm_cf_log1p_plain(x, y), 0)) {                                     \
        const lt_c128 w = ltm_cf_log_special(1.0 + x, y);                                     \
        T o = { (R)w.re, (R)w.im };                                                           \
        return o;                                                                             \
    }                                                                                         \
    const lt_dd t = ltm_cf_atan2_dd(y, lt_two_sum(1.0, x));   /* 1 + x exactly */           \
    T o = { FIN(ltm_cf_mk(ltm_cf_log1p_re(x, y), 0)), FIN(ltm_cf_mk(t, 0)) };                  \
    return o;                                                                                 \
}
LTM_CF_WIDTH(_f64, lt_c128, double, ltm_cf_fin_f64, 2790.0)
LTM_CF_WIDTH(_f32, lt_c64, float, ltm_cf_fin_f32, 200.0)
#undef LTM_CF_WIDTH
