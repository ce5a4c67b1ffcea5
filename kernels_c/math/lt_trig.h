/* Trigonometric family: sin, cos, tan, asin, acos, atan, atan2.
 *
 * Exact mode uses only + - * /, sqrt, comparisons, integer/bit operations and the tables of
 * lt_trig_data.h (tools/gen_trig_tables.py).  No FMA, no libm.
 *
 * float32 (correctly rounded):
 *   pass 1 (branch-free, vectorised) evaluates in double with a proven relative error bound
 *   and applies Ziv's test; ambiguous elements are recomputed in pass 2 in double-double
 *   (error ~2^-100) and rounded once (round-to-odd to double, then to float).
 *   Reduction of sin/cos/tan: exact for every float32, by a table-driven Payne-Hanek scheme:
 *   x = m * 2^e (m < 2^24), A = 2^e * 2/pi mod 4 = H + M + L + LL with H, M, L of 27 bits,
 *   so m*H, m*M, m*L are exact; x*2/pi mod 4 = m*A mod 4 is accumulated with error-free
 *   transforms (absolute error < 2^-104, the nearest float32 to a multiple of pi/2 is far
 *   larger), then r = f * pi/2 in double-double.
 *   Inverse functions: one atan2 kernel on (num, den) >= 0: with c = i/64 nearest to the
 *   ratio q = min/max, atan q = atan c + atan t, t = (n - c d)/(d + c n), |t| <= 1/128,
 *   and octant offsets 0, pi/2, pi.  asin x = atan2(|x|, sqrt((1-x)(1+x))),
 *   acos x = atan2(sqrt((1-x)(1+x)), x).
 * float64 (faithful): Cody-Waite in double-double for |x| < 2^25, integer Payne-Hanek with
 *   1296 bits of 2/pi beyond; sin/cos evaluated as double-double (hi, small lo), tan as
 *   their quotient with one correction step; inverse functions by the same atan2 kernel
 *   with t in double-double.
 */

/* ------------------------------------------------------------------ helpers */

static inline uint32_t ltm_trig_f2u(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float ltm_trig_u2f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }

/* Whether sin (which 0), cos (1) or tan (2) of x is minus the value of its reduced
 * argument, from the quadrant count q of the reduction of |x| and x's sign sx (0 or 1). */
static inline __attribute__((always_inline)) uint64_t ltm_trig_neg(int which, uint64_t q, uint64_t sx)
{
    return which == 0 ? (((q >> 1) & 1) ^ sx) : which == 1 ? (((q + 1) >> 1) & 1) : ((q & 1) ^ sx);
}


#define LTM_TRIG_MAGIC 0x1.8p52

/* ------------------------------------------------------------------ float32 reduction */

/* d = (double)x for a float32 x, |x| finite nonzero (other values give garbage, selected
 * away by the callers).  Returns r = rh + rl ~ (|x| - q pi/2), |r| <= pi/4 (1 + 2^-50),
 * |error| <= 2^-100 |r|, and the quadrant q (mod 4) in the low 2 bits of *q. */
static inline __attribute__((always_inline)) void ltm_trig_red32(double d, uint64_t *q, double *rh, double *rl)
{
    uint64_t b = lt_bits64(d) & 0x7FFFFFFFFFFFFFFFull;
    int64_t ed = (int64_t)(b >> 52) - 874;
    ed = ed < 0 ? 0 : ed;
    ed = ed > 276 ? 276 : ed;
    double m = lt_from_bits64(0x4330000000000000ull | ((b >> 29) & 0x7FFFFF) | 0x800000) - 0x1p52;
    double p = m * lt_tab_trig_red32[4 * ed];                       /* exact: 24 x 27 bits, < 2^26 */
    double kb0 = p + LTM_TRIG_MAGIC;
    double k0 = kb0 - LTM_TRIG_MAGIC;
    double a = p - k0;                         /* exact, |a| <= 1/2 */
    double bm = m * lt_tab_trig_red32[4 * ed + 1];                      /* exact */
    double s = a + bm, bb = s - a;             /* two_sum */
    double e = (a - (s - bb)) + (bm - bb);
    double kb1 = s + LTM_TRIG_MAGIC;
    double k1 = kb1 - LTM_TRIG_MAGIC;
    double c = s - k1;                         /* exact, |c| <= 1/2 */
    double ml = m * lt_tab_trig_red32[4 * ed + 2];                      /* exact */
    double t = c + ml, tb = t - c;             /* two_sum */
    double te = (c - (t - tb)) + (ml - tb);
    te = te + (e + m * lt_tab_trig_red32[4 * ed + 3]);
    double fh = t + te, fb = fh - t;           /* two_sum: f = fh + fl = x*2/pi - k */
    double fl = (t - (fh - fb)) + (te - fb);
    *q = lt_bits64(kb0) + lt_bits64(kb1);
    /* r = f * pi/2 in double-double (Dekker product, no FMA) */
    const double P1 = lt_tab_trig_c[0], P2 = lt_tab_trig_c[1];
    double ph = fh * P1;
    double cf = 134217729.0 * fh, fh1 = cf - (cf - fh), fh2 = fh - fh1;
    double cp = 134217729.0 * P1, p11 = cp - (cp - P1), p12 = P1 - p11;
    double pe = ((fh1 * p11 - ph) + fh1 * p12 + fh2 * p11) + fh2 * p12;
    pe = pe + (fh * P2 + fl * P1);
    double r0 = ph + pe;
    *rl = pe - (r0 - ph);
    *rh = r0;
}

/* The same for |x| < 2^18 by Cody-Waite, at a fraction of the cost (no table, no Dekker
 * product): ad = |x|, k = round(ad 2/pi) < 2^17, pi/2 = C1 + C2 + C3 with C1 and C2 of 30
 * bits, so k C1 and k C2 are exact (48 bits) and ad - k C1 is exact (Sterbenz, k >= 1);
 * C3 is rounded (pi/2 - C1 - C2 - C3 ~ 2^-117).  rh + rl = ad - k pi/2 within 2^-94
 * absolute, |r| <= pi/4 + 2^-35, the quadrant in the low bits of *q.  The exact results do
 * not change (every float32 input below 2^18 gives the same bits as through
 * ltm_trig_red32: all 2^32 inputs were compared). */
#define LTM_TRIG_CW_MAX 0x1p18
static inline __attribute__((always_inline)) void ltm_trig_red32_cw(double ad, uint64_t *q, double *rh, double *rl)
{
    const double C1 = 0x1.921fb548p+0, C2 = -0x1.de973dc8p-31, C3 = -0x1.9d9cceba3f91fp-62;
    double kb = ad * 0x1.45f306dc9c883p-1 + LTM_TRIG_MAGIC;
    double k = kb - LTM_TRIG_MAGIC;
    double t1 = ad - k * C1;                   /* exact */
    double p2 = k * C2;                        /* exact */
    double s = t1 - p2, bb = s - t1;           /* two_sum */
    double e = (t1 - (s - bb)) + (-p2 - bb);
    double lo = e - k * C3;
    double r0 = s + lo;
    *rl = lo - (r0 - s);
    *rh = r0;
    *q = lt_bits64(kb);
}

/* sin, cos (as double) of r = rh + rl, |r| <= pi/4(1+eps).
 * sin: rh + (rh*z*P(z) + rl), relative error <= 1.95 * 2^-53 (analysis: the r^3 term is
 * <= 0.103|r| with relative error <= 4u, rl*(cos r - 1) neglected <= 0.31u|r|, final
 * rounding u, |sin r| >= 0.9|r|); cos: 1 + (z*(-1/2 + z*Q(z)) - rh*rl), relative error
 * <= 2.5 * 2^-53 (cos r >= 0.707).  Taylor remainders < 2^-62.  Measured on 2e7 random
 * float32 against the double-double path: sin 1.93, cos 1.94, tan 3.52 (x 2^-53). */
static inline __attribute__((always_inline)) void ltm_trig_sc_d(double rh, double rl, double *sn, double *cs)
{
    double z = rh * rh;
    const double *S = lt_tab_trig_sinp, *C = lt_tab_trig_cosp;
    double ps = S[7];
    ps = ps * z + S[6]; ps = ps * z + S[5]; ps = ps * z + S[4]; ps = ps * z + S[3];
    ps = ps * z + S[2]; ps = ps * z + S[1]; ps = ps * z + S[0];
    double pc = C[7];
    pc = pc * z + C[6]; pc = pc * z + C[5]; pc = pc * z + C[4]; pc = pc * z + C[3];
    pc = pc * z + C[2]; pc = pc * z + C[1]; pc = pc * z + C[0];
    *sn = rh + ((rh * z) * ps + rl);
    *cs = 1.0 + (z * (-0.5 + z * pc) - rh * rl);
}

/* which: 0 sin, 1 cos, 2 tan.  d = (double)x, x finite.  Relative error <= 4.5 * 2^-53
 * (tan: 1.95 + 1.5 + 1 rounding), so err = 2^-50 |y| is safe. */
static inline __attribute__((always_inline)) double ltm_trig_sct_of(int which, double d, uint64_t q,
                                                                 double rh, double rl)
{
    double sn, cs;
    ltm_trig_sc_d(rh, rl, &sn, &cs);
    uint64_t odd = q & 1, neg;
    double y;
    if (which == 0) {
        y = odd ? cs : sn;
    } else if (which == 1) {
        y = odd ? sn : cs;
    } else {
        double num = odd ? cs : sn, den = odd ? sn : cs;
        y = num / den;
    }
    neg = ltm_trig_neg(which, q, d < 0);
    y = neg ? -y : y;
    if (which != 1) y = d == 0 ? d : y;        /* sin(+-0), tan(+-0) = +-0 */
    return y;
}

static inline __attribute__((always_inline)) double ltm_trig_sct_d32(int which, double d)
{
    uint64_t q; double rh, rl;
    ltm_trig_red32(d, &q, &rh, &rl);
    return ltm_trig_sct_of(which, d, q, rh, rl);
}

/* the same for |d| < LTM_TRIG_CW_MAX */
static inline __attribute__((always_inline)) double ltm_trig_sct_d32_cw(int which, double d)
{
    uint64_t q; double rh, rl;
    ltm_trig_red32_cw(__builtin_fabs(d), &q, &rh, &rl);
    return ltm_trig_sct_of(which, d, q, rh, rl);
}

/* accurate path: double-double evaluation, error < 2^-95 relative */
static inline float ltm_trig_sct_acc32(int which, float x)
{
    double d = (double)x;
    if (d == 0) return which == 1 ? 1.0f : x;
    uint64_t q; double rh, rl;
    ltm_trig_red32(d, &q, &rh, &rl);
    lt_dd r = lt_dd_make(rh, rl);
    lt_dd r2 = lt_dd_mul(r, r);
    const lt_dd *SD = (const lt_dd *)lt_tab_trig_sindd, *CD = (const lt_dd *)lt_tab_trig_cosdd;
    lt_dd sn = lt_dd_mul(r, lt_dd_horner(SD, LT_TRIG_NDD, r2));
    lt_dd cs = lt_dd_horner(CD, LT_TRIG_NDD, r2);
    uint64_t odd = q & 1, neg;
    lt_dd y;
    if (which == 0) {
        y = odd ? cs : sn;
    } else if (which == 1) {
        y = odd ? sn : cs;
    } else {
        y = odd ? lt_dd_div(cs, sn) : lt_dd_div(sn, cs);
    }
    neg = ltm_trig_neg(which, q, d < 0);
    if (neg) y = lt_dd_neg(y);
    return lt_dd_to_f32(y);
}

static inline float ltm_trig_sct_f32(int which, float x)
{
    double d = (double)x;
    if (!(__builtin_fabs(d) <= 0x1.fffffep127)) return __builtin_nanf("");
    double y = ltm_trig_sct_d32(which, d);
    if (lt_f32_ambiguous(y, __builtin_fabs(y) * 0x1p-50))
        return ltm_trig_sct_acc32(which, x);
    return (float)y;
}

/* Pass 1 of one element (its double value, whether Ziv's test leaves it open), through the
 * Cody-Waite reduction (cw = 1, |x| < 2^18) or the table one (finite x). */
static inline __attribute__((always_inline)) float ltm_trig_pass1_32(int which, int cw, float x,
                                                                   int32_t *open)
{
    double d = (double)x;
    double y = cw ? ltm_trig_sct_d32_cw(which, d) : ltm_trig_sct_d32(which, d);
    double err = __builtin_fabs(y) * 0x1p-50;
    *open = (float)(y - err) != (float)(y + err);
    return (float)y;
}

/* The chunk: pass 1 through Cody-Waite for the elements below 2^18 (x of the others replaced
 * by 0, so that every lane computes something valid), then through the table reduction for
 * the others, gathered (vectorised as well), then the accurate path for what Ziv's test left
 * open.  Each element gets the value ltm_trig_sct_f32 gives it. */
#define LTM_TRIG_CHUNK1(which, n, o, a)                                               \
    do {                                                                              \
        int32_t open_[LT_CHUNK], big_[LT_CHUNK], at_[LT_CHUNK], openb_[LT_CHUNK];     \
        double xb_[LT_CHUNK];                                                         \
        float yb_[LT_CHUNK];                                                          \
        int32_t any_ = 0, anybig_ = 0;                                                \
        for (int64_t i = 0; i < n; i++) {                                             \
            const float x = a[i];                                                     \
            const int32_t small = __builtin_fabsf(x) < (float)LTM_TRIG_CW_MAX;        \
            int32_t op;                                                               \
            o[i] = ltm_trig_pass1_32(which, 1, lt_selectf(small, x, 0.0f), &op);      \
            open_[i] = op & small;                                                    \
            big_[i] = !small;                                                         \
            any_ |= open_[i];                                                         \
            anybig_ |= big_[i];                                                       \
        }                                                                             \
        const int64_t m_ = anybig_ ? lt_gather_flagged(n, a, big_, at_, xb_) : 0;    \
        for (int64_t j = 0; j < m_; j++) {                                            \
            const float x = (float)xb_[j];                                            \
            const int32_t fin = __builtin_fabsf(x) <= 0x1.fffffep127f;                \
            int32_t op;                                                               \
            float f = ltm_trig_pass1_32(which, 0, lt_selectf(fin, x, 0.0f), &op);     \
            yb_[j] = fin ? f : __builtin_nanf("");                                    \
            openb_[j] = op & fin;                                                     \
            any_ |= openb_[j];                                                        \
        }                                                                             \
        for (int64_t j = 0; j < m_; j++) o[at_[j]] = yb_[j];                          \
        if (any_) {                                                                   \
            for (int64_t i = 0; i < n; i++)                                           \
                if (open_[i]) o[i] = ltm_trig_sct_acc32(which, a[i]);                 \
            for (int64_t j = 0; j < m_; j++)                                          \
                if (openb_[j]) o[at_[j]] = ltm_trig_sct_acc32(which, (float)xb_[j]);  \
        }                                                                             \
    } while (0)

static inline float ltm_sin_f32(float x) { return ltm_trig_sct_f32(0, x); }
static inline float ltm_cos_f32(float x) { return ltm_trig_sct_f32(1, x); }
static inline float ltm_tan_f32(float x) { return ltm_trig_sct_f32(2, x); }
/* the generic path's chunks; the FMA paths have a first pass of their own (lt_trig32_fma.h),
 * and these as their fallback */
static inline void ltm_sin_f32_pass_chunk(int64_t n, float *restrict o, const float *restrict a)
{ LTM_TRIG_CHUNK1(0, n, o, a); }
static inline void ltm_cos_f32_pass_chunk(int64_t n, float *restrict o, const float *restrict a)
{ LTM_TRIG_CHUNK1(1, n, o, a); }
static inline void ltm_tan_f32_pass_chunk(int64_t n, float *restrict o, const float *restrict a)
{ LTM_TRIG_CHUNK1(2, n, o, a); }
#if !(LTM_GW == 8 || (LTM_GW == 4 && defined(__FMA__)))
static inline void ltm_sin_f32_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_sin_f32_pass_chunk(n, o, a); }
static inline void ltm_cos_f32_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_cos_f32_pass_chunk(n, o, a); }
static inline void ltm_tan_f32_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_tan_f32_pass_chunk(n, o, a); }
#endif

/* ------------------------------------------------------------------ atan2 kernel, float32 */

/* num, den >= 0 (doubles, may be 0 or inf, not NaN); xneg: den stands for a negative x.
 * Returns atan2(num, +-den) in [0, pi].  Relative error <= 8 * 2^-53 when num, den are
 * exact float32 values or den = sqrt((1-x)(1+x)) rounded (t has relative error <= 3u,
 * or absolute error <= 2u*c; |atan t| <= 1.01/128 vs the result >= atan(c) - 1/128 or
 * >= pi/4; the table and offset sum is rounded once or twice). err = 2^-48 |y|. */
static inline __attribute__((always_inline)) double ltm_trig_at2_d32(double num, double den, uint64_t xneg)
{
    int ninf = num == __builtin_inf(), dinf = den == __builtin_inf();
    double n1 = ninf ? 1.0 : (dinf ? 0.0 : num);
    double d1 = dinf ? 1.0 : (ninf ? 0.0 : den);
    uint64_t swap = n1 > d1;
    double nn = swap ? d1 : n1, dd = swap ? n1 : d1;
    dd = dd == 0 ? 1.0 : dd;                   /* both zero: atan2(0, +-0) */
    double ratio = nn / dd;                    /* in [0, 1] */
    double kb = ratio * 64.0 + LTM_TRIG_MAGIC;
    double c = (kb - LTM_TRIG_MAGIC) * 0x1p-6;
    uint64_t i = lt_bits64(kb) & 127;
    double t = (nn - c * dd) / (dd + c * nn);
    double z = t * t;
    const double *P = lt_tab_trig_atanp;
    double at = t + (t * z) * (P[0] + z * (P[1] + z * (P[2] + z * P[3])));
    uint64_t sneg = swap ^ xneg;
    double th = lt_tab_trig_atan64[2 * i], tl = lt_tab_trig_atan64[2 * i + 1];
    double oh = swap ? lt_tab_trig_c[0] : (xneg ? lt_tab_trig_c[2] : 0.0);
    double ol = swap ? lt_tab_trig_c[1] : (xneg ? lt_tab_trig_c[3] : 0.0);
    th = sneg ? -th : th; tl = sneg ? -tl : tl; at = sneg ? -at : at;
    return (oh + th) + ((ol + tl) + at);
}

/* accurate path: num, den as double-double (exact or ~2^-105), result as double-double */
/* acc = 1: atan t by a double-double Taylor series (error < 2^-100, float32 accurate path);
 * acc = 0: t.hi + (t.lo + t.hi^3 P(t.hi^2)) with the double polynomial (relative error
 * < 2^-66, enough for the faithful float64 functions) */
static inline __attribute__((always_inline)) lt_dd ltm_trig_at2_dd(lt_dd num, lt_dd den, int xneg,
                                                                int acc)
{
    /* Branch-free (every lane computes both the tiny-ratio form and the table form, then
     * selects) so that the float64 loops vectorise; the values are those of the obvious
     * branchy code. */
    int swap = (num.hi > den.hi) | ((num.hi == den.hi) & (num.lo > den.lo));
    lt_dd nn = lt_dd_select(swap, den, num), dd = lt_dd_select(swap, num, den);
    dd = lt_dd_select(dd.hi == 0, lt_dd_make(1.0, 0.0), dd);
    int tiny = nn.hi < 0x1p-900 * dd.hi;        /* tiny ratio: atan t = t to 2^-1800 */
    lt_dd small = lt_dd_make(nn.hi / dd.hi, 0.0);
    /* exact scaling by 2^-E so that dd is in [1, 2) and nn >= 2^-901: keeps every Dekker
     * product away from underflow and overflow (no effect on float32 inputs beyond an
     * exact power-of-2 factor) */
    int64_t E = (int64_t)(lt_bits64(dd.hi) >> 52) - 1023, h = -E / 2;
    double s1 = lt_from_bits64((uint64_t)(h + 1023) << 52);
    double s2 = lt_from_bits64((uint64_t)(-E - h + 1023) << 52);
    nn = lt_dd_make(nn.hi * s1 * s2, nn.lo * s1 * s2);
    dd = lt_dd_make(dd.hi * s1 * s2, dd.lo * s1 * s2);
    double ratio = nn.hi / dd.hi;
    double kb = ratio * 64.0 + LTM_TRIG_MAGIC;
    double c = (kb - LTM_TRIG_MAGIC) * 0x1p-6;
    uint64_t i = lt_bits64(kb) & 127;
    i = i < 64 ? i : 64;                        /* ratio <= 1 gives i <= 64; tiny lanes may not */
    lt_dd tn = lt_dd_sub(nn, lt_dd_mul_d(dd, c));
    lt_dd td = lt_dd_add(dd, lt_dd_mul_d(nn, c));
    lt_dd t = lt_dd_div(tn, td);
    lt_dd at;
    if (acc) {
        at = lt_dd_mul(t, lt_dd_horner((const lt_dd *)lt_tab_trig_atandd, LT_TRIG_NATDD,
                                       lt_dd_mul(t, t)));
    } else {
        double z = t.hi * t.hi;
        const double *P = lt_tab_trig_atanp;
        double pz = z * (P[0] + z * (P[1] + z * (P[2] + z * P[3])));
        at = lt_fast_two_sum(t.hi, t.lo + t.hi * pz);
    }
    lt_dd res = lt_dd_add(lt_dd_make(lt_tab_trig_atan64[2 * i], lt_tab_trig_atan64[2 * i + 1]), at);
    res = lt_dd_select(tiny, small, res);
    res = lt_dd_select(swap ^ xneg, lt_dd_neg(res), res);
    lt_dd off = lt_dd_select(swap, lt_dd_make(lt_tab_trig_c[0], lt_tab_trig_c[1]),
                             lt_dd_make(lt_tab_trig_c[2], lt_tab_trig_c[3]));
    return lt_dd_select(swap | xneg, lt_dd_add(off, res), res);   /* + pi/2, or + pi */
}

/* sqrt(hi + lo) in double-double, hi + lo >= 0 (0 for hi <= 0); branch-free */
static inline lt_dd ltm_trig_dd_sqrt(lt_dd a)
{
    int pos = !(a.hi <= 0);
    double ah = lt_select(pos, a.hi, 1.0);
    double h = __builtin_sqrt(ah);
    lt_dd p = lt_two_prod(h, h);
    double corr = (((ah - p.hi) - p.lo) + a.lo) / (2.0 * h);
    return lt_dd_select(pos, lt_fast_two_sum(h, corr), lt_dd_make(0.0, 0.0));
}

/* kind: 0 atan(x) (y unused), 1 asin, 2 acos, 3 atan2(y, x) */
static inline __attribute__((always_inline)) double ltm_trig_inv_d32(int kind, double y, double x)
{
    double num, den, ax = __builtin_fabs(x);
    uint64_t xneg = 0, rneg;
    if (kind == 0) { num = ax; den = 1.0; rneg = (int)(lt_bits64(x) >> 63); }
    else if (kind == 1) { num = ax; den = __builtin_sqrt((1.0 - ax) * (1.0 + ax)); rneg = (int)(lt_bits64(x) >> 63); }
    else if (kind == 2) { num = __builtin_sqrt((1.0 - ax) * (1.0 + ax)); den = ax; xneg = lt_bits64(x) >> 63; rneg = 0; }
    else { num = __builtin_fabs(y); den = ax; xneg = lt_bits64(x) >> 63; rneg = lt_bits64(y) >> 63; }
    double r = ltm_trig_at2_d32(num, den, xneg);
    return rneg ? -r : r;
}

static inline float ltm_trig_inv_acc32(int kind, float yf, float xf)
{
    double x = xf, ax = __builtin_fabs(x), y = yf;
    lt_dd num, den;
    int xneg = 0, rneg;
    if (kind == 0) { num = lt_dd_make(ax, 0); den = lt_dd_make(1.0, 0); rneg = (int)(lt_bits64(x) >> 63); }
    else {
        lt_dd s = lt_dd_make(0, 0);
        if (kind != 3) s = ltm_trig_dd_sqrt(lt_two_prod(1.0 - ax, 1.0 + ax));
        if (kind == 1) { num = lt_dd_make(ax, 0); den = s; rneg = (int)(lt_bits64(x) >> 63); }
        else if (kind == 2) { num = s; den = lt_dd_make(ax, 0); xneg = (int)(lt_bits64(x) >> 63); rneg = 0; }
        else { num = lt_dd_make(__builtin_fabs(y), 0); den = lt_dd_make(ax, 0); xneg = (int)(lt_bits64(x) >> 63); rneg = (int)(lt_bits64(y) >> 63); }
    }
    lt_dd r = ltm_trig_at2_dd(num, den, xneg, 1);
    if (rneg) r = lt_dd_neg(r);
    return lt_dd_to_f32(r);
}

/* validity of the double evaluation; invalid lanes give the canonical NaN */
static inline __attribute__((always_inline)) int ltm_trig_inv_ok(int kind, double y, double x)
{
    if (kind == 0) return x == x;
    if (kind == 3) return (x == x) & (y == y);
    return __builtin_fabs(x) <= 1.0;
}

static inline float ltm_trig_inv_f32(int kind, float yf, float xf)
{
    double y = yf, x = xf;
    if (!ltm_trig_inv_ok(kind, y, x)) return __builtin_nanf("");
    double r = ltm_trig_inv_d32(kind, y, x);
    if (lt_f32_ambiguous(r, __builtin_fabs(r) * 0x1p-48))
        return ltm_trig_inv_acc32(kind, yf, xf);
    return (float)r;
}

#define LTM_TRIG_CHUNK_INV(kind, n, o, ya, xa)                                        \
    do {                                                                              \
        unsigned char fl_[LT_CHUNK];                                                  \
        for (int64_t i = 0; i < n; i++) {                                             \
            double x_ = (double)xa[i], y_ = (kind == 3) ? (double)ya[i] : 0.0;          \
            int ok = ltm_trig_inv_ok(kind, y_, x_);                                     \
            double yy = ok ? y_ : 0.0, xx = ok ? x_ : 0.0;                              \
            double r_ = ltm_trig_inv_d32(kind, yy, xx);                                \
            double err = __builtin_fabs(r_) * 0x1p-48;                                 \
            fl_[i] = (unsigned char)(ok & ((float)(r_ - err) != (float)(r_ + err)));    \
            o[i] = ok ? (float)r_ : __builtin_nanf("");                                \
        }                                                                             \
        for (int64_t i = 0; i < n; i++)                                               \
            if (fl_[i]) o[i] = ltm_trig_inv_acc32(kind, (kind == 3) ? ya[i] : 0.0f, xa[i]); \
    } while (0)

static inline float ltm_atan_f32(float x) { return ltm_trig_inv_f32(0, 0.0f, x); }
static inline float ltm_asin_f32(float x) { return ltm_trig_inv_f32(1, 0.0f, x); }
static inline float ltm_acos_f32(float x) { return ltm_trig_inv_f32(2, 0.0f, x); }
static inline float ltm_atan2_f32(float y, float x) { return ltm_trig_inv_f32(3, y, x); }
static inline void ltm_atan_f32_chunk(int64_t n, float *restrict o, const float *restrict a)
{ LTM_TRIG_CHUNK_INV(0, n, o, a, a); }
static inline void ltm_asin_f32_chunk(int64_t n, float *restrict o, const float *restrict a)
{ LTM_TRIG_CHUNK_INV(1, n, o, a, a); }
static inline void ltm_acos_f32_chunk(int64_t n, float *restrict o, const float *restrict a)
{ LTM_TRIG_CHUNK_INV(2, n, o, a, a); }
static inline void ltm_atan2_f32_chunk(int64_t n, float *restrict o, const float *restrict y,
                                       const float *restrict x)
{ LTM_TRIG_CHUNK_INV(3, n, o, y, x); }

/* ------------------------------------------------------------------ float64 exact */

static inline uint64_t ltm_trig_get64(const uint64_t *P, int pos)
{
    int w = pos >> 6, s = pos & 63;
    uint64_t v = P[w] >> s;
    if (s && w < 4) v |= P[w + 1] << (64 - s);
    return v;
}

/* Payne-Hanek for |x| = ax >= 2^25 finite: ax*2/pi = q + f, |f| <= 1/2, f as double-double
 * with absolute error < 2^-127 (128 fraction bits of m * (216 bits of 2/pi)). */
static inline lt_dd ltm_trig_ph64(double ax, uint64_t *q)
{
    uint64_t b = lt_bits64(ax);
    int E = (int)(b >> 52) - 1075;                         /* ax = m 2^E */
    uint64_t m = (b & 0xFFFFFFFFFFFFFull) | (1ull << 52);
    int i0 = E - 1 < 1 ? 1 : E - 1;                        /* bits b_i, i <= E-2, give multiples of 4 */
    int j0 = (i0 - 1) / 24;
    uint64_t W[4] = { 0, 0, 0, 0 }, P[5];
    for (int j = 0; j < 9; j++) {
        uint64_t ch = (uint64_t)lt_tab_trig_2opi24[j0 + j];
        int pos = 24 * (8 - j), w = pos >> 6, s = pos & 63;
        W[w] |= ch << s;
        if (s > 40) W[w + 1] |= ch >> (64 - s);
    }
    unsigned __int128 acc = 0;
    for (int k = 0; k < 4; k++) {
        acc += (unsigned __int128)m * W[k];
        P[k] = (uint64_t)acc;
        acc >>= 64;
    }
    P[4] = (uint64_t)acc;
    int sh = 24 * (j0 + 9) - E;                             /* bit sh of P has weight 1 */
    uint64_t iq = ltm_trig_get64(P, sh) & 3;
    uint64_t fh = ltm_trig_get64(P, sh - 64), flo = ltm_trig_get64(P, sh - 128);
    unsigned __int128 U = ((unsigned __int128)fh << 64) | flo;
    int neg = (int)(fh >> 63);
    if (neg) { U = -U; iq++; }
    double a = (double)(uint64_t)(U >> 75) * 0x1p-53;
    double bb = (double)(uint64_t)((U >> 22) & 0x1FFFFFFFFFFFFFull) * 0x1p-106;
    double c = (double)(uint64_t)(U & 0x3FFFFF) * 0x1p-128;
    lt_dd f = lt_two_sum(a, bb);
    f = lt_dd_add_d(f, c);
    *q = iq;
    return neg ? lt_dd_neg(f) : f;
}

/* ax < 2^25 -> quadrant q and r = ax - q pi/2 (double-double, relative error < 2^-66):
 * r = ax itself below pi/4, else Cody-Waite with pi/2 in three parts.  Branch-free. */
static inline lt_dd ltm_trig_red64_cw(double ax, uint64_t *q)
{
    double kb = ax * lt_tab_trig_c[4] + LTM_TRIG_MAGIC, k = kb - LTM_TRIG_MAGIC;
    lt_dd r = lt_dd_sub(lt_dd_make(ax, 0.0), lt_two_prod(k, lt_tab_trig_c[5]));
    r = lt_dd_sub(r, lt_two_prod(k, lt_tab_trig_c[6]));
    r = lt_dd_add_d(r, -(k * lt_tab_trig_c[7]));
    int low = ax < 0x1.921fb54442d18p-1;
    *q = low ? 0 : lt_bits64(kb);
    return lt_dd_select(low, lt_dd_make(ax, 0.0), r);
}

/* |x| = ax finite -> quadrant q and r = ax - q pi/2 (double-double, relative error < 2^-66) */
static inline lt_dd ltm_trig_red64(double ax, uint64_t *q)
{
    if (ax < 0x1p25) return ltm_trig_red64_cw(ax, q);
    lt_dd f = ltm_trig_ph64(ax, q);
    return lt_dd_mul(f, lt_dd_make(lt_tab_trig_c[0], lt_tab_trig_c[1]));
}

/* sin and cos of r = rh + rl as (hi, lo) pairs; relative error of hi + lo < 0.5 * 2^-53 */
static inline void ltm_trig_sc_dd(double rh, double rl, lt_dd *sn, lt_dd *cs)
{
    double z = rh * rh;
    const double *S = lt_tab_trig_sinp, *C = lt_tab_trig_cosp;
    double ps = S[7];
    ps = ps * z + S[6]; ps = ps * z + S[5]; ps = ps * z + S[4]; ps = ps * z + S[3];
    ps = ps * z + S[2]; ps = ps * z + S[1]; ps = ps * z + S[0];
    double pc = C[7];
    pc = pc * z + C[6]; pc = pc * z + C[5]; pc = pc * z + C[4]; pc = pc * z + C[3];
    pc = pc * z + C[2]; pc = pc * z + C[1]; pc = pc * z + C[0];
    *sn = lt_fast_two_sum(rh, (rh * z) * ps + rl * (1.0 - 0.5 * z));
    lt_dd h = lt_two_prod(rh, rh);
    double hh = 0.5 * h.hi, hl = 0.5 * h.lo;
    double w = 1.0 - hh, e = (1.0 - w) - hh;
    *cs = lt_fast_two_sum(w, (e - hl) + ((z * z) * pc - rh * rl));
}

/* sin (which 0), cos (1) or tan (2) of x from its reduction r, q; branch-free */
static inline double ltm_trig_sct_from64(int which, lt_dd r, uint64_t q, double x)
{
    lt_dd sn, cs;
    ltm_trig_sc_dd(r.hi, r.lo, &sn, &cs);
    int odd = (int)(q & 1);
    double y;
    if (which == 0) y = lt_select(odd, cs.hi, sn.hi);
    else if (which == 1) y = lt_select(odd, sn.hi, cs.hi);
    else {
        lt_dd nu = lt_dd_select(odd, cs, sn), de = lt_dd_select(odd, sn, cs);
        double q1 = nu.hi / de.hi;
        lt_dd p = lt_two_prod(q1, de.hi);
        y = q1 + ((((nu.hi - p.hi) - p.lo) + nu.lo - q1 * de.lo) / de.hi);
    }
    return lt_select((int)ltm_trig_neg(which, q, lt_bits64(x) >> 63), -y, y);
}

static inline double ltm_trig_sct_f64(int which, double x)
{
    double ax = __builtin_fabs(x);
    if (!(ax <= 0x1.fffffffffffffp1023)) return __builtin_nan("");
    uint64_t q;
    lt_dd r = ltm_trig_red64(ax, &q);
    return ltm_trig_sct_from64(which, r, q, x);
}

static inline double ltm_sin_f64(double x) { return ltm_trig_sct_f64(0, x); }
static inline double ltm_cos_f64(double x) { return ltm_trig_sct_f64(1, x); }
static inline double ltm_tan_f64(double x) { return ltm_trig_sct_f64(2, x); }

/* kind: 0 atan, 1 asin, 2 acos, 3 atan2(y, x); the double-double atan2 kernel, rounded once.
 * Branch-free, so that the chunk loops vectorise (4 lanes on AVX2). */
static inline double ltm_trig_inv_f64(int kind, double y, double x)
{
    double ax = __builtin_fabs(x);
    int bad = (x != x) | (y != y);
    if (kind == 1 || kind == 2) bad |= ax > 1.0;
    lt_dd num, den;
    int xneg = 0, rneg;
    if (kind == 0) { num = lt_dd_make(ax, 0); den = lt_dd_make(1.0, 0); rneg = (int)(lt_bits64(x) >> 63); }
    else if (kind == 3) {
        num = lt_dd_make(__builtin_fabs(y), 0); den = lt_dd_make(ax, 0);
        xneg = (int)(lt_bits64(x) >> 63); rneg = (int)(lt_bits64(y) >> 63);
    } else {
        lt_dd s = ltm_trig_dd_sqrt(lt_dd_sub(lt_dd_make(1.0, 0.0), lt_two_prod(ax, ax)));
        if (kind == 1) { num = lt_dd_make(ax, 0); den = s; rneg = (int)(lt_bits64(x) >> 63); }
        else { num = s; den = lt_dd_make(ax, 0); xneg = (int)(lt_bits64(x) >> 63); rneg = 0; }
    }
    int ninf = num.hi == __builtin_inf(), dinf = den.hi == __builtin_inf();
    num = lt_dd_select(ninf | dinf, lt_dd_make(lt_select(ninf, 1.0, 0.0), 0), num);
    den = lt_dd_select(ninf | dinf, lt_dd_make(lt_select(dinf, 1.0, 0.0), 0), den);
    lt_dd r = ltm_trig_at2_dd(num, den, xneg, 0);
    double v = r.hi + r.lo;
    return lt_select(bad, __builtin_nan(""), lt_select(rneg, -v, v));
}

static inline double ltm_atan_f64(double x) { return ltm_trig_inv_f64(0, 0.0, x); }
static inline double ltm_asin_f64(double x) { return ltm_trig_inv_f64(1, 0.0, x); }
static inline double ltm_acos_f64(double x) { return ltm_trig_inv_f64(2, 0.0, x); }
static inline double ltm_atan2_f64(double y, double x) { return ltm_trig_inv_f64(3, y, x); }
/* chunk forms: flatten inlines the double-double helpers too, which the loops need to
 * vectorise (gcc's inlining limits stop short of that in a function this large) */
static __attribute__((flatten)) void ltm_atan_f64_chunk(int64_t n, double *restrict o,
                                                        const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_trig_inv_f64(0, 0.0, a[i]); }
static __attribute__((flatten)) void ltm_asin_f64_chunk(int64_t n, double *restrict o,
                                                        const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_trig_inv_f64(1, 0.0, a[i]); }
static __attribute__((flatten)) void ltm_acos_f64_chunk(int64_t n, double *restrict o,
                                                        const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_trig_inv_f64(2, 0.0, a[i]); }
static __attribute__((flatten)) void ltm_atan2_f64_chunk(int64_t n, double *restrict o,
                                                         const double *restrict y,
                                                         const double *restrict x)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_trig_inv_f64(3, y[i], x[i]); }

/* ------------------------------------------------------------------ fast mode */

/* float32 fast sin/cos/tan: the exact reduction without the final Dekker product, and
 * shorter Taylor polynomials (remainders < 2^-28 relative on |r| <= pi/4) with LT_FMA;
 * f keeps an absolute error < 2^-75, so tiny reduced arguments stay accurate */
static inline __attribute__((always_inline)) float ltm_trig_sct_f32_fast(int which, float x)
{
    double d = x;
    int fin = __builtin_fabs(d) <= 0x1.fffffep127;
    uint64_t b = lt_bits64(d) & 0x7FFFFFFFFFFFFFFFull;
    int64_t ed = (int64_t)(b >> 52) - 874;
    ed = ed < 0 ? 0 : ed;
    ed = ed > 276 ? 276 : ed;
    double m = lt_from_bits64(0x4330000000000000ull | ((b >> 29) & 0x7FFFFF) | 0x800000) - 0x1p52;
    double p = m * lt_tab_trig_red32[4 * ed];
    double kb0 = p + LTM_TRIG_MAGIC;
    double a = p - (kb0 - LTM_TRIG_MAGIC);
    double bm = m * lt_tab_trig_red32[4 * ed + 1];
    double s = a + bm, bb = s - a, e = (a - (s - bb)) + (bm - bb);
    double kb1 = s + LTM_TRIG_MAGIC;
    double c = s - (kb1 - LTM_TRIG_MAGIC);
    double f = c + (m * lt_tab_trig_red32[4 * ed + 2] + (e + m * lt_tab_trig_red32[4 * ed + 3]));
    uint64_t q = lt_bits64(kb0) + lt_bits64(kb1);
    double r = f * lt_tab_trig_c[0];
    double z = r * r;
    const double *S = lt_tab_trig_sinp, *C = lt_tab_trig_cosp;
    double sn = LT_FMA(r * z, LT_FMA(z, LT_FMA(z, LT_FMA(z, S[3], S[2]), S[1]), S[0]), r);
    double cs = LT_FMA(z, LT_FMA(z, LT_FMA(z, LT_FMA(z, C[3], C[2]), C[1]), C[0]) * z - 0.5, 1.0);
    uint64_t odd = q & 1, neg;
    double y;
    if (which == 0) y = odd ? cs : sn;
    else if (which == 1) y = odd ? sn : cs;
    else y = (odd ? cs : sn) / (odd ? sn : cs);
    neg = ltm_trig_neg(which, q, d < 0);
    y = neg ? -y : y;
    if (which != 1) y = d == 0 ? d : y;
    return fin ? (float)y : __builtin_nanf("");
}
/* float32 fast sin/cos/tan for |x| < 2^18 on the generic path (the FMA paths have
 * lt_trig32_fma.h's float pass), mostly in float: the Cody-Waite reduction above in double,
 * without its two_sum (r = (ad - k C1 - k C2) - k C3, relative error ~2^-52, its quadrant
 * from k's bits), r split into two floats r + rl, and
 * the same Taylor polynomials as the double form above in float with LT_FMAF (remainders
 * < 2^-28 relative on |r| <= pi/4), rl entering the last step as in ltm_trig_sc_d; tan
 * takes the float polynomial tails into double sums and divides there (in float, the
 * roundings of sin and cos added up to 3 ulp).  The chunk form sends larger |x|, inf and NaN to
 * ltm_trig_sct_f32_fast; each element's value depends on that element alone. */
static inline __attribute__((always_inline)) float ltm_trig_sct_f32_fast_cw(int which, float x)
{
    const double C1 = 0x1.921fb548p+0, C2 = -0x1.de973dc8p-31, C3 = -0x1.9d9cceba3f91fp-62;
    double ad = __builtin_fabs((double)x);
    double kb = ad * 0x1.45f306dc9c883p-1 + LTM_TRIG_MAGIC;
    double k = kb - LTM_TRIG_MAGIC;
    double rd = ((ad - k * C1) - k * C2) - k * C3;
    float r = (float)rd, rl = (float)(rd - (double)r);   /* r + rl: r to ~2^-48 */
    uint32_t q = (uint32_t)lt_bits64(kb);
    float z = r * r;
    const double *S = lt_tab_trig_sinp, *C = lt_tab_trig_cosp;
    float ps = LT_FMAF(z, LT_FMAF(z, LT_FMAF(z, (float)S[3], (float)S[2]), (float)S[1]),
                       (float)S[0]);
    float pc = LT_FMAF(z, LT_FMAF(z, LT_FMAF(z, (float)C[3], (float)C[2]), (float)C[1]),
                       (float)C[0]);
    float sn = r + LT_FMAF(r * z, ps, rl);                           /* one final rounding */
    float cs = 1.0f + LT_FMAF(z, LT_FMAF(z, pc, -0.5f), -(r * rl));
    uint32_t odd = q & 1;
    float y;
    if (which == 0) y = odd ? cs : sn;
    else if (which == 1) y = odd ? sn : cs;
    else {                   /* tan: the leading terms and the quotient in double */
        double zd = rd * rd;
        double snd = rd + rd * zd * (double)ps, csd = 1.0 + zd * (-0.5 + zd * (double)pc);
        y = (float)((odd ? -csd : snd) / (odd ? snd : csd));
    }
    uint32_t neg = which == 0 ? ((q >> 1) & 1) ^ (x < 0) : which == 1 ? ((q + 1) >> 1) & 1
                                                                      : (uint32_t)(x < 0);
    y = neg ? -y : y;
    return which != 1 && x == 0 ? x : y;       /* sin(+-0), tan(+-0) = +-0 */
}

static inline __attribute__((always_inline)) void ltm_trig_fast_chunk(int which, int64_t n,
                                                                    float *restrict o,
                                                                    const float *restrict a)
{
    int32_t big[LT_CHUNK], at[LT_CHUNK], anybig = 0;
    double xb[LT_CHUNK];
    float yb[LT_CHUNK];
    for (int64_t i = 0; i < n; i++) {
        const float x = a[i];
        const int32_t small = __builtin_fabsf(x) < (float)LTM_TRIG_CW_MAX;
        o[i] = ltm_trig_sct_f32_fast_cw(which, lt_selectf(small, x, 0.0f));
        big[i] = !small;
        anybig |= big[i];
    }
    if (!anybig) return;
    const int64_t m = lt_gather_flagged(n, a, big, at, xb);
    for (int64_t j = 0; j < m; j++) yb[j] = ltm_trig_sct_f32_fast(which, (float)xb[j]);
    for (int64_t j = 0; j < m; j++) o[at[j]] = yb[j];
}

static inline float ltm_sin_f32_fast(float x) { return ltm_trig_sct_f32_fast(0, x); }
static inline float ltm_cos_f32_fast(float x) { return ltm_trig_sct_f32_fast(1, x); }
static inline float ltm_tan_f32_fast(float x) { return ltm_trig_sct_f32_fast(2, x); }
/* the FMA paths have a float pass of their own (lt_trig32_fma.h) */
#if !(LTM_GW == 8 || (LTM_GW == 4 && defined(__FMA__)))
static inline void ltm_sin_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_trig_fast_chunk(0, n, o, a); }
static inline void ltm_cos_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_trig_fast_chunk(1, n, o, a); }
static inline void ltm_tan_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{ ltm_trig_fast_chunk(2, n, o, a); }
#endif
/* float32 fast inverse functions, in float (the exact ones evaluate in double: 2-3 ns per
 * element against 0.2 here).  pi/2 and pi as float pairs hi + lo, added as (lo - r) + hi.
 *   atan u, 0 <= u <= 1: u + u z P(z), z = u^2, P of degree 7 (tools/fit_fast32.py, 2^-25.8);
 *   atan2 from the ratio min/max of |y|, |x| (one division), then pi/2 - and pi - as the
 *   octant asks; atan x = atan2(x, 1).
 *   asin s, 0 <= s <= 1/2: s + s z Q(z), z = s^2, Q of degree 4 (2^-27.6); above 1/2,
 *   asin x = pi/2 - 2 asin(s), s = sqrt((1 - |x|)/2) (1 - |x| exact), and acos x = 2 asin(s)
 *   or pi - 2 asin(s); acos x = pi/2 - asin x for |x| <= 1/2. */
#define LTM_PIO2F_HI 0x1.921fb6p+0f
#define LTM_PIO2F_LO -0x1.777a5cp-25f
#define LTM_PIF_HI 0x1.921fb6p+1f
#define LTM_PIF_LO -0x1.777a5cp-24f
static inline float ltm_atanf_core(float u)
{
    static const float c[] = {-0x1.5554dcp-2f, 0x1.9978e2p-3f, -0x1.230a02p-3f, 0x1.b4d87ep-4f,
                              -0x1.354064p-4f, 0x1.61c0bcp-5f, -0x1.0bd71cp-6f, 0x1.7e1584p-9f};
    return ltm_odd_polyf(u, u * u, c, 8);       /* ltm_odd_polyf: lt_log.h */
}
static inline float ltm_asinf_core(float s, float z)
{
    static const float c[] = {0x1.5555cap-3f, 0x1.33016ap-4f, 0x1.748aaep-5f, 0x1.8ba966p-6f,
                              0x1.59dceap-5f};
    return ltm_odd_polyf(s, z, c, 5);
}
static inline float ltm_atan2_f32_fast(float y, float x)
{
    const float ay = __builtin_fabsf(y), ax = __builtin_fabsf(x);
    const int swap = ay > ax;
    const float num = swap ? ax : ay, den = swap ? ay : ax;
    float u = num / (den == 0.0f ? 1.0f : den);                 /* both zero: 0 */
    u = (ay == __builtin_inff()) & (ax == __builtin_inff()) ? 1.0f : u;   /* both infinite */
    float r = ltm_atanf_core(u);
    r = swap ? (LTM_PIO2F_LO - r) + LTM_PIO2F_HI : r;
    r = __builtin_signbit(x) ? (LTM_PIF_LO - r) + LTM_PIF_HI : r;
    r = (x == x) & (y == y) ? r : __builtin_nanf("");
    return __builtin_copysignf(r, y);
}
static inline float ltm_atan_f32_fast(float x) { return ltm_atan2_f32_fast(x, 1.0f); }
/* asin(|x|) (acos: 0) or acos(|x|) (acos: 1); |x| > 1 and NaN give NaN (a negative sqrt) */
static inline float ltm_asin_acos_f32_fast(float ax, int acos)
{
    const int big = ax > 0.5f;
    const float z = big ? (1.0f - ax) * 0.5f : ax * ax;
    const float s = big ? __builtin_sqrtf(z) : ax;
    const float p = ltm_asinf_core(s, z);
    if (acos) return big ? 2.0f * p : (LTM_PIO2F_LO - p) + LTM_PIO2F_HI;
    return big ? (LTM_PIO2F_LO - 2.0f * p) + LTM_PIO2F_HI : p;
}
static inline float ltm_asin_f32_fast(float x)
{
    return __builtin_copysignf(ltm_asin_acos_f32_fast(__builtin_fabsf(x), 0), x);
}
static inline float ltm_acos_f32_fast(float x)
{
    const float r = ltm_asin_acos_f32_fast(__builtin_fabsf(x), 1);
    return x < 0.0f ? (LTM_PIF_LO - r) + LTM_PIF_HI : r;
}

/* float64 fast: the same algorithms made branch-free (vectorisable), every lane computes
 * the Cody-Waite (|x| < 2^25) and the table Payne-Hanek (|x| >= 2^25) reductions and
 * selects; no FMA needed, identical in every region.  Max error ~1 ulp measured. */

/* x*2/pi mod 4 for |x| = ax >= 2^25 (E >= -27 below), vectorisable: x = m 2^E, the 2/pi bits
 * b(24j+1..24j+24) = chunk D_j (D_-1 = D_-2 = 0); with j0 = floor((E-2)/24) >= -2 (E >= -27)
 * every dropped bit gives a
 * multiple of 4 and s = E - 24 j0 - 24 lies in [-22, 1].  m = mh + ml (27 + 26 bits), every
 * product m* x D_k is exact, times 2^(s-24k).  Terms are reduced mod 4 exactly and summed so
 * that all cancellation is exact: absolute error of f < 2^-113. */
static inline __attribute__((always_inline)) void ltm_trig_phv(double ax, uint64_t *q, double *fh, double *fl)
{
    uint64_t b = lt_bits64(ax);
    double ebd = lt_from_bits64(0x4330000000000000ull | (b >> 52)) - 0x1p52;
    double nd = ebd - 1077.0;                                  /* E - 2 */
    double j0 = ((nd - 11.5) / 24.0 + LTM_TRIG_MAGIC) - LTM_TRIG_MAGIC;   /* floor((E-2)/24) >= -2 */
    uint64_t ji = lt_bits64(j0 + 2.0 + LTM_TRIG_MAGIC) & 63;  /* index in the zero-padded table */
    ji = ji > 48 ? 48 : ji;
    double sd = (ebd - 1099.0) - 24.0 * j0;                    /* s = E - 24 j0 - 24 in [-22, 1] */
    sd = sd < -60 ? -60 : sd;
    sd = sd > 1 ? 1 : sd;
    uint64_t si = lt_bits64(sd + LTM_TRIG_MAGIC) - 0x4338000000000000ull;
    double w0 = lt_from_bits64((si + 1023) << 52);             /* 2^s */
    double mh = lt_from_bits64((b & 0x000FFFFFFC000000ull) | 0x4330000000000000ull);
    double md = lt_from_bits64((b & 0x000FFFFFFFFFFFFFull) | 0x4330000000000000ull);  /* m */
    double ml = md - mh;
    const double *D = lt_tab_trig_2opi24z;
    double d0 = D[ji], d1 = D[ji + 1], d2 = D[ji + 2], d3 = D[ji + 3];
    double d4 = D[ji + 4], d5 = D[ji + 5], d6 = D[ji + 6], d7 = D[ji + 7];
    double w1 = w0 * 0x1p-24, w2 = w0 * 0x1p-48, w3 = w0 * 0x1p-72, w4 = w0 * 0x1p-96;
    double w5 = w0 * 0x1p-120, w6 = w0 * 0x1p-144, w7 = w0 * 0x1p-168;
#define LTM_TRIG_R4(T) ((T) - 4.0 * (((T) * 0.25 + 0x1p52) - 0x1p52))   /* T >= 0, T < 2^54 */
    /* coarse block: quanta >= 2^-46, exact sum (mh*d0 term is a multiple of 4) */
    double A = LTM_TRIG_R4((mh * d1) * w1) + LTM_TRIG_R4((ml * d0) * w0);
    A = A + LTM_TRIG_R4((mh * d2) * w2);
    A = A + LTM_TRIG_R4((ml * d1) * w1);
    double ka = (A + LTM_TRIG_MAGIC) - LTM_TRIG_MAGIC;
    uint64_t qa = lt_bits64(A + LTM_TRIG_MAGIC);
    A = A - ka;
    /* middle: quanta >= 2^-70 */
    double B1 = LTM_TRIG_R4((ml * d2) * w2), B2 = LTM_TRIG_R4((mh * d3) * w3);
    double bh = B1 + B2, bt = bh - B1, bl = (B1 - (bh - bt)) + (B2 - bt);
    double vh = A + bh, vt = vh - A, ve = (A - (vh - vt)) + (bh - vt);
    double l = ve + bl;                                          /* exact */
    double kv = (vh + LTM_TRIG_MAGIC) - LTM_TRIG_MAGIC;
    uint64_t qv = lt_bits64(vh + LTM_TRIG_MAGIC);
    vh = vh - kv;
    /* small terms (< 2^-17) with l, accumulated as a double-double */
    double ch = (mh * d4) * w4, cl = 0, t, tt;
#define LTM_TRIG_ACC(y) t = ch + (y); tt = t - ch; cl += (ch - (t - tt)) + ((y) - tt); ch = t
    LTM_TRIG_ACC((ml * d3) * w3);
    LTM_TRIG_ACC(l);
    LTM_TRIG_ACC((mh * d5) * w5);
    LTM_TRIG_ACC((ml * d4) * w4);
    LTM_TRIG_ACC((mh * d6) * w6);
    LTM_TRIG_ACC((ml * d5) * w5);
    LTM_TRIG_ACC((mh * d7) * w7);
    LTM_TRIG_ACC((ml * d6) * w6);
#undef LTM_TRIG_ACC
#undef LTM_TRIG_R4
    double f = vh + ch, ft = f - vh, fe = (vh - (f - ft)) + (ch - ft);
    fe = fe + cl;
    double kf = (f + LTM_TRIG_MAGIC) - LTM_TRIG_MAGIC;          /* |f| may exceed 1/2 */
    uint64_t qf = lt_bits64(f + LTM_TRIG_MAGIC);
    f = f - kf;
    double g = f + fe;
    *fl = fe - (g - f);
    *fh = g;
    *q = qa + qv + qf;
}

static inline __attribute__((always_inline)) void ltm_trig_red64v(double ax, uint64_t *q, double *rh, double *rl)
{
    /* Cody-Waite in double-double (|x| < 2^25; ax itself below pi/4) */
    uint64_t qc;
    lt_dd r = ltm_trig_red64_cw(ax, &qc);
    /* Payne-Hanek */
    uint64_t qp; double fh, fl;
    ltm_trig_phv(ax, &qp, &fh, &fl);
    lt_dd rp = lt_dd_mul(lt_dd_make(fh, fl), lt_dd_make(lt_tab_trig_c[0], lt_tab_trig_c[1]));
    int big = ax >= 0x1p25;
    *q = big ? qp : qc;
    *rh = big ? rp.hi : r.hi;
    *rl = big ? rp.lo : r.lo;
}

/* fast sin (which 0), cos (1) or tan (2) of x from its reduction rh + rl, q */
static inline __attribute__((always_inline)) double ltm_trig_sct_from64_fast(
    int which, double rh, double rl, uint64_t q, double x)
{
    double sn, cs, y;
    ltm_trig_sc_d(rh, rl, &sn, &cs);
    uint64_t odd = q & 1;
    if (which == 0) y = odd ? cs : sn;
    else if (which == 1) y = odd ? sn : cs;
    else y = (odd ? cs : sn) / (odd ? sn : cs);
    return ltm_trig_neg(which, q, lt_bits64(x) >> 63) ? -y : y;
}

static inline __attribute__((always_inline)) double ltm_trig_sct_f64_fast(int which, double x)
{
    double ax = __builtin_fabs(x);
    int fin = ax <= 0x1.fffffffffffffp1023;
    ax = fin ? ax : 0.0;
    uint64_t q;
    double rh, rl;
    ltm_trig_red64v(ax, &q, &rh, &rl);
    double y = ltm_trig_sct_from64_fast(which, rh, rl, q, x);
    return fin ? y : __builtin_nan("");
}

/* atan2 kernel for float64 fast: c*d exact by Dekker's product, t to ~3 ulp relative */
static inline __attribute__((always_inline)) double ltm_trig_at2_d64f(double num, double den, uint64_t xneg)
{
    int ninf = num == __builtin_inf(), dinf = den == __builtin_inf();
    double n1 = ninf ? 1.0 : (dinf ? 0.0 : num);
    double d1 = dinf ? 1.0 : (ninf ? 0.0 : den);
    uint64_t swap = n1 > d1;
    double nn = swap ? d1 : n1, dd = swap ? n1 : d1;
    dd = dd == 0 ? 1.0 : dd;
    double ratio = nn / dd;
    double kb = ratio * 64.0 + LTM_TRIG_MAGIC;
    double c = (kb - LTM_TRIG_MAGIC) * 0x1p-6;
    uint64_t i = lt_bits64(kb) & 127;
    /* scale so that dd is in [1, 2): keeps the split below in range (exact) */
    uint64_t E = lt_bits64(dd) >> 52;
    E = E < 1 ? 1 : E;
    double s1 = lt_from_bits64((uint64_t)(1023 + 511 - E / 2) << 52);      /* 2^(511 - E/2) */
    double s2 = lt_from_bits64((uint64_t)(1023 + 512 - (E + 1) / 2) << 52);/* 2^(512 - (E+1)/2) */
    double nns = nn * s1 * s2, dds = dd * s1 * s2;
    nns = ratio < 0x1p-900 ? 0.0 : nns;                         /* tiny ratio: t = ratio */
    dds = ratio < 0x1p-900 ? 1.0 : dds;
    double p = c * dds;
    double cc = 134217729.0 * dds, dh = cc - (cc - dds), dl = dds - dh;   /* c has 7 bits */
    double pe = ((c * dh - p) + c * dl);
    double t = ((nns - p) - pe) / (dds + c * nns);
    t = ratio < 0x1p-900 ? ratio : t;
    double z = t * t;
    const double *P = lt_tab_trig_atanp;
    double at = t + (t * z) * (P[0] + z * (P[1] + z * (P[2] + z * P[3])));
    uint64_t sneg = swap ^ xneg;
    double th = lt_tab_trig_atan64[2 * i], tl = lt_tab_trig_atan64[2 * i + 1];
    double oh = swap ? lt_tab_trig_c[0] : (xneg ? lt_tab_trig_c[2] : 0.0);
    double ol = swap ? lt_tab_trig_c[1] : (xneg ? lt_tab_trig_c[3] : 0.0);
    th = sneg ? -th : th; tl = sneg ? -tl : tl; at = sneg ? -at : at;
    double bh = oh + th, bb = bh - oh, be = (oh - (bh - bb)) + (th - bb);
    double s = bh + at, st = s - bh, se = (bh - (s - st)) + (at - st);
    return s + ((se + be) + (ol + tl));
}

static inline __attribute__((always_inline)) double ltm_trig_inv_f64_fast(int kind, double y, double x)
{
    double ax = __builtin_fabs(x), num, den;
    uint64_t xneg = 0, rneg;
    int ok;
    double om = (1.0 - ax) * (1.0 + ax);
    double sq = __builtin_sqrt(om > 0 ? om : 0.0);
    if (kind == 0) { num = ax; den = 1.0; rneg = lt_bits64(x) >> 63; ok = x == x; }
    else if (kind == 1) { num = ax; den = sq; rneg = lt_bits64(x) >> 63; ok = ax <= 1.0; }
    else if (kind == 2) { num = sq; den = ax; xneg = lt_bits64(x) >> 63; rneg = 0; ok = ax <= 1.0; }
    else { num = __builtin_fabs(y); den = ax; xneg = lt_bits64(x) >> 63; rneg = lt_bits64(y) >> 63; ok = (x == x) & (y == y); }
    num = ok ? num : 0.0; den = ok ? den : 1.0;
    double r = ltm_trig_at2_d64f(num, den, xneg);
    r = rneg ? -r : r;
    return ok ? r : __builtin_nan("");
}

/* Chunk form, exact (fast = 0) or fast: every element goes through the branch-free
 * Cody-Waite path (vectorised; an element at or above 2^25, infinite or NaN on the argument
 * 0), and those are then redone one by one with the table reduction. */
static inline __attribute__((always_inline)) void ltm_trig_sct_f64_chunk(
    int which, int fast, int64_t n, double *restrict o, const double *restrict a)
{
    int32_t far[LT_CHUNK];
    int32_t any = 0;
    for (int64_t i = 0; i < n; i++) {
        const double x = a[i];
        far[i] = !(__builtin_fabs(x) < 0x1p25);
        any |= far[i];
        const double xs = lt_select(far[i], 0.0, x);
        uint64_t q;
        lt_dd r = ltm_trig_red64_cw(__builtin_fabs(xs), &q);
        o[i] = fast ? ltm_trig_sct_from64_fast(which, r.hi, r.lo, q, xs)
                    : ltm_trig_sct_from64(which, r, q, xs);
    }
    if (any)
        for (int64_t i = 0; i < n; i++)
            if (far[i])
                o[i] = fast ? ltm_trig_sct_f64_fast(which, a[i]) : ltm_trig_sct_f64(which, a[i]);
}

static __attribute__((flatten)) void ltm_sin_f64_chunk(int64_t n, double *restrict o,
                                                       const double *restrict a)
{ ltm_trig_sct_f64_chunk(0, 0, n, o, a); }
static __attribute__((flatten)) void ltm_cos_f64_chunk(int64_t n, double *restrict o,
                                                       const double *restrict a)
{ ltm_trig_sct_f64_chunk(1, 0, n, o, a); }
static __attribute__((flatten)) void ltm_tan_f64_chunk(int64_t n, double *restrict o,
                                                       const double *restrict a)
{ ltm_trig_sct_f64_chunk(2, 0, n, o, a); }
static inline double ltm_sin_f64_fast(double x) { return ltm_trig_sct_f64_fast(0, x); }
static inline double ltm_cos_f64_fast(double x) { return ltm_trig_sct_f64_fast(1, x); }
static inline double ltm_tan_f64_fast(double x) { return ltm_trig_sct_f64_fast(2, x); }
static __attribute__((flatten)) void ltm_sin_f64_fast_chunk(int64_t n, double *restrict o,
                                                            const double *restrict a)
{ ltm_trig_sct_f64_chunk(0, 1, n, o, a); }
static __attribute__((flatten)) void ltm_cos_f64_fast_chunk(int64_t n, double *restrict o,
                                                            const double *restrict a)
{ ltm_trig_sct_f64_chunk(1, 1, n, o, a); }
static __attribute__((flatten)) void ltm_tan_f64_fast_chunk(int64_t n, double *restrict o,
                                                            const double *restrict a)
{ ltm_trig_sct_f64_chunk(2, 1, n, o, a); }
static inline double ltm_atan_f64_fast(double x) { return ltm_trig_inv_f64_fast(0, 0.0, x); }
static inline double ltm_asin_f64_fast(double x) { return ltm_trig_inv_f64_fast(1, 0.0, x); }
static inline double ltm_acos_f64_fast(double x) { return ltm_trig_inv_f64_fast(2, 0.0, x); }
static inline double ltm_atan2_f64_fast(double y, double x) { return ltm_trig_inv_f64_fast(3, y, x); }

/* the helper macros are redefined (renamed) in every kernel-path region */
#undef LTM_TRIG_CHUNK1
#undef LTM_TRIG_CHUNK_INV
#undef LTM_TRIG_MAGIC
