/* The log family: log, log1p, log2, log10, asinh, acosh, atanh (float32 exact and correctly
 * rounded, float64 exact and faithful, fast variants), plus double-double log cores that
 * other families may reuse:
 *
 *   lt_dd ltm_log_dd(double hi, double lo)      ln(hi + lo), relative error < 2^-100
 *   lt_dd ltm_log1p_dd(lt_dd t)                 ln(1 + t.hi + t.lo), relative error < 2^-98
 *   lt_dd ltm_log_dd_fast(double hi, double lo) ln(hi + lo), relative error < 2^-59 (cheap,
 *                                               branch-free, used by the float64 functions)
 *   (hi > 0 finite, |lo| <= ulp(hi); ltm_log_dd also accepts subnormal hi with lo = 0;
 *   ltm_log_dd_fast needs hi normal.  NaN/inf/<=0 are the caller's business.)
 *
 * Range reduction (tables from tools/gen_log_tables.py, lt_log_data.h): h = 2^k * m with
 * m in [OFF, 2*OFF) = [0.7012, 1.4023), found with integer operations on the bits of h
 * (tmp = bits(h) - bits(OFF); k = tmp >> 52; bucket i = bits 45..51 of tmp).  Bucket i has
 * a 20-bit r ~ 1/m and -ln(r) = ch + cm + cl (ch a multiple of 2^-42, so k*LN2_HI + ch is
 * exact).  m is split (Veltkamp) into mh + ml of 26 bits each, so zh = mh*r - 1 and
 * t1 = ml*r are exact (26 + 20 bits; Sterbenz for the subtraction, mh*r in [0.99, 1.01]),
 * and z = m*r - 1 + lo*2^-k*r lies in [-0.00388, 0.00391].  The bucket containing 1 has
 * r = 1 and ch = cm = cl = 0, so for inputs near 1 everything is relative to z.
 *
 * Fast core error (ltm_log_core, ln(m) = A + B):  A = RN(ch + zh + t1 + t2) by three exact
 * two_sums (t2 = lo*2^-k*r, exact when r = 1 and k = 0; otherwise its rounding is < 2^-105
 * absolute); B collects the two_sum errors, cm, and z^2*Q6(z).  Q6 approximates
 * (log1p(z) - z)/z^2 with |z + z^2 Q6 - log1p z| <= 2^-71 |log1p z| (printed by the
 * generator).  The Horner evaluation of Q6 (|Q6| ~ 1/2) has relative error < 2^-51, the
 * rounding of z and of z*z add 2^-52, so z^2 Q6 is off by < 2^-51 * z^2/2 <= 2^-69; relative
 * to ln(m) that is < 2^-60 in non-central buckets (|ln m| >= 2^-9) and < 2^-51 |z|/2 <=
 * 2^-60 in the central one; the other roundings in B are < 2^-53 |B| <= 2^-62 |ln m|, the
 * neglected cl is < 2^-96 absolute.  So A + B = ln(m) (1 + e), |e| < 2^-59 (measured max
 * 2^-60.7 over 10^5 random double-double inputs, tools: scratch tdd.py).
 *
 * float32 exact functions compute a double y with a proven error bound, then Ziv's test;
 * ambiguous elements are recomputed in double-double (ltm_log_dd / ltm_log1p_dd, error
 * < 2^-98) and rounded to float32 through round-to-odd.  log, log1p, log2 and log10 do their
 * first pass on vectors with a coarser reduction of their own (ltm_log16_vec: 16 buckets,
 * one permute per lookup on AVX-512; see there), the generic path's and the fallback of the
 * FMA paths, whose own first pass is in lt_log32_fma.h; asinh, acosh and atanh use the cores
 * above.
 */

/* ------------------------------------------------------------------ helpers */

static inline float ltm_log_qnanf(void) { return __builtin_nanf(""); }
static inline double ltm_log_qnan(void) { return __builtin_nan(""); }


/* sqrt of a double-double s > 0 (|s.hi| < 2^990): relative error < 2^-100 */
static inline lt_dd ltm_log_sqrt_dd(lt_dd s)
{
    double q0 = __builtin_sqrt(s.hi);
    int zero = q0 == 0.0;                       /* 0 then: a select, so loops vectorise */
    double q = lt_select(zero, 1.0, q0);
    lt_dd p = lt_two_prod(q, q);
    double r = ((s.hi - p.hi) - p.lo) + s.lo;   /* s.hi - p.hi is exact (Sterbenz) */
    return lt_dd_select(zero, lt_dd_make(0.0, 0.0), lt_fast_two_sum(q, r / (2.0 * q)));
}

/* ok ? a : b written with bit operations, so that the compiler computes a unconditionally
 * (a conditional use lets it sink the table loads into a branch, which then become masked
 * gathers that gcc cannot vectorise) */
static inline double ltm_log_sel(int64_t ok, double a, double b)
{
    uint64_t m = (uint64_t)0 - (uint64_t)ok;
    return lt_from_bits64((lt_bits64(a) & m) | (lt_bits64(b) & ~m));
}

/* ------------------------------------------------------------------ cores */

/* Reduction shared by all cores: h > 0 normal finite.  Returns m, sets bucket i, k (as an
 * exact double, computed with integer ops only so that it vectorises on AVX2) and the
 * scale 2^-k (clamped to 2^-1023 -> 0 for k >= 1023, where lo no longer matters). */
static inline double ltm_log_reduce(double h, uint64_t *idx, double *kd, double *sc)
{
    uint64_t u = lt_bits64(h);
    uint64_t tmp = u - 0x3FE6700000000000ull;          /* bits of OFF = 0.701171875 */
    uint64_t kf = (tmp >> 52) ^ 2048;                   /* k + 2048, in [0, 4095] */
    *idx = (tmp >> 45) & 127;
    *kd = lt_from_bits64(0x4330000000000000ull | kf) - 0x1.00000000008p52;
    int64_t sf = 3071 - (int64_t)kf;                    /* 1023 - k */
    sf = sf < 0 ? 0 : sf;
    *sc = lt_from_bits64((uint64_t)sf << 52);
    return lt_from_bits64(u - (tmp & 0xFFF0000000000000ull));
}

/* Fast core: ln(h + lo) = k*ln2 + A + B, returns A, sets *bo = B and *ko = k.
 * h > 0 normal finite, |lo| <= ulp(h).  Error of A + B vs ln(m): < 2^-59 relative (header). */
static inline double ltm_log_core(double h, double lo, double *bo, double *ko)
{
    uint64_t i;
    double sc;
    double m = ltm_log_reduce(h, &i, ko, &sc);
    double r = lt_tab_log_r[i], ch = lt_tab_log_ch[i], cm = lt_tab_log_cm[i];
    double c = m * 134217729.0;
    double mh = c - (c - m), ml = m - mh;
    double zh = mh * r - 1.0;            /* exact */
    double t1 = ml * r;                  /* exact */
    double t2 = (lo * sc) * r;
    lt_dd s0 = lt_two_sum(ch, zh);
    lt_dd s1 = lt_two_sum(s0.hi, t1);
    lt_dd s2 = lt_two_sum(s1.hi, t2);
    double z = zh + (t1 + t2);
    const double *q = lt_tab_log_q6;
    double p = q[0] + z * (q[1] + z * (q[2] + z * (q[3] + z * (q[4] + z * (q[5] + z * q[6])))));
    *bo = ((s0.lo + s1.lo) + (s2.lo + cm)) + (z * z) * p;
    return s2.hi;
}

/* ln(h + lo) rounded to double: error < 0.5 ulp + 2^-58 relative (so faithful), that is
 * |y - ln| <= 2^-53 |y| (1 + 2^-5) (the float32 pass-1 bounds below use this).
 * k*LN2_HI is exact (|k| < 2^11, LN2_HI has 42 bits) and |k*LN2_HI| >= |A| when k != 0,
 * so the fast_two_sum is exact. */
static inline double ltm_log_ln_d(double h, double lo, double kadj)
{
    double B, k;
    double A = ltm_log_core(h, lo, &B, &k);
    k += kadj;
    lt_dd S = lt_fast_two_sum(k * lt_tab_log_k[0], A);
    return S.hi + (S.lo + (B + k * lt_tab_log_k[1]));
}

/* ln(hi + lo) as a double-double, relative error < 2^-59 (hi normal). */
static inline lt_dd ltm_log_dd_fast(double hi, double lo)
{
    double B, k;
    double A = ltm_log_core(hi, lo, &B, &k);
    lt_dd S = lt_fast_two_sum(k * lt_tab_log_k[0], A);
    return lt_fast_two_sum(S.hi, S.lo + (B + (k * lt_tab_log_k[1] + k * lt_tab_log_k[2])));
}

/* log1p(z) for a double-double |z| <= 2^-7.99 by its Taylor series to z^14 (truncation
 * < 2^-111 |z|); terms 8..14 in double on z.hi (they are < 2^-55 |z|), 1..7 in dd. */
static inline lt_dd ltm_log_taylor_dd(lt_dd z)
{
    const double *c = lt_tab_log_taylor;
    double zh = z.hi;
    double t = c[26];
    for (int j = 24; j >= 14; j -= 2)
        t = t * zh + c[j];               /* sum_{j=8}^{14} c_j z^(j-8) */
    lt_dd acc = lt_dd_make(t, 0.0);
    for (int j = 12; j >= 0; j -= 2)
        acc = lt_dd_add(lt_dd_mul(acc, z), lt_dd_make(c[j], c[j + 1]));
    return lt_dd_mul(acc, z);
}

/* Accurate core: ln(hi + lo) as a double-double, relative error < 2^-100.
 * hi > 0 finite (subnormal allowed when lo = 0), |lo| <= ulp(hi). */
static inline lt_dd ltm_log_dd(double hi, double lo)
{
    double kadj = 0.0;
    if (hi < 0x1p-1022) { hi *= 0x1p60; lo *= 0x1p60; kadj = -60.0; }
    uint64_t i;
    double k, sc;
    double m = ltm_log_reduce(hi, &i, &k, &sc);
    k += kadj;
    double r = lt_tab_log_r[i];
    lt_dd ms = lt_split(m);
    double zh = ms.hi * r - 1.0;        /* exact */
    double t1 = ms.lo * r;              /* exact */
    lt_dd t2 = lt_two_prod(lo * sc, r); /* exact unless lo*sc is subnormal (then < 2^-1000) */
    lt_dd z = lt_dd_add(lt_two_sum(zh, t1), t2);
    lt_dd p = ltm_log_taylor_dd(z);
    /* -ln r + k ln2 = (k*L2H + ch) + k*L2M + cm + (cl + k*L2L); k*L2H + ch is exact */
    double H = k * lt_tab_log_k[0] + lt_tab_log_ch[i];
    lt_dd s = lt_two_prod(k, lt_tab_log_k[1]);
    s = lt_dd_add_d(s, lt_tab_log_cm[i]);
    s.lo += lt_tab_log_cl[i] + k * lt_tab_log_k[2];
    s = lt_dd_add(s, p);
    return lt_dd_add_d(s, H);
}

/* log1p of a double-double t > -1 (t = t.hi + t.lo normalized), relative error < 2^-98. */
static inline lt_dd ltm_log1p_dd(lt_dd t)
{
    if (__builtin_fabs(t.hi) <= 0x1p-8)
        return ltm_log_taylor_dd(t);
    lt_dd w = lt_dd_add_d(t, 1.0);
    return ltm_log_dd(w.hi, w.lo);
}

/* ------------------------------------------------------------------ fast core (LT_FMA) */

/* m r - 1 rounded once (r has 20 bits, m r within 2^-7.9 of 1): an FMA where the path has
 * one; else m split at 26 bits, so that both products are exact and m_hi r - 1 too
 * (Sterbenz), the same value.  Rounding m r first, as a plain multiply-add does, errs by
 * 2^-53 absolute, which near x = 1 (log x ~ z small) was hundreds of ulps of the result. */
static inline double ltm_log_mr1(double m, double r)
{
#if LT_HAS_FMA
    return LT_FMA(m, r, -1.0);
#else
    double c = m * 134217729.0;
    double mh = c - (c - m);
    return (mh * r - 1.0) + (m - mh) * r;
#endif
}

/* ln(h + lo) in double for the fast variants, h > 0 normal.  deg selects the polynomial:
 * 2 -> Q2 (relative error ~2^-36, float32 results), 6 -> Q6 (float64 results). */
static inline double ltm_log_fcore(double h, double lo, int deg)
{
    uint64_t i;
    double k, sc;
    double m = ltm_log_reduce(h, &i, &k, &sc);
    double r = lt_tab_log_r[i];
    double z = ltm_log_mr1(m, r) + (lo * sc) * r;
    double p;
    if (deg == 2) {
        const double *q = lt_tab_log_q2;
        p = LT_FMA(z, LT_FMA(z, q[2], q[1]), q[0]);
    } else {
        const double *q = lt_tab_log_q6;
        double z2 = z * z;
        double a = LT_FMA(z, q[1], q[0]), b = LT_FMA(z, q[3], q[2]);
        double c = LT_FMA(z, LT_FMA(z, q[6], q[5]), q[4]);
        p = LT_FMA(z2, LT_FMA(z2, c, b), a);
    }
    double hi = LT_FMA(k, lt_tab_log_k[0], lt_tab_log_ch[i]);   /* exact */
    double lo2 = LT_FMA(k, lt_tab_log_k[1], lt_tab_log_cm[i]);
    return hi + (z + LT_FMA(z * z, p, lo2));
}

/* ln(m) part only (k returned in *ko), for the fast log2/log10 */
static inline double ltm_log_fcore_m(double h, double *ko)
{
    uint64_t i;
    double sc;
    double m = ltm_log_reduce(h, &i, ko, &sc);
    double r = lt_tab_log_r[i];
    double z = ltm_log_mr1(m, r);
    const double *q = lt_tab_log_q6;
    double z2 = z * z;
    double a = LT_FMA(z, q[1], q[0]), b = LT_FMA(z, q[3], q[2]);
    double c = LT_FMA(z, LT_FMA(z, q[6], q[5]), q[4]);
    double p = LT_FMA(z2, LT_FMA(z2, c, b), a);
    return lt_tab_log_ch[i] + (z + LT_FMA(z2, p, lt_tab_log_cm[i]));
}

/* ================================================================== float32 exact */
/* Each NAME has ltm_NAME_p1 (branch-free pass 1: result, ambiguity flag) and ltm_NAME_acc
 * (double-double recomputation); ltm_NAME_f32 and ltm_NAME_f32_chunk both use exactly these,
 * so they agree bit for bit. */

/* log and log1p: one vectorised first pass (ltm_log16_vec, GCC vector types as the Gelu's)
 * and the double-double recomputation of the flagged elements.
 *
 * ltm_log16_vec(u), u > 0 a finite double: u = 2^k m, m in [OFF16, 2 OFF16) = [0.765625,
 * 1.53125), bucket i = 0..15 of lt_tab_log16 (rows r_i, hi_i, lo_i: -log r_i = hi_i + lo_i,
 * hi_i a multiple of 2^-42; the bucket of 1.0 has r = 1 and -log r = 0), z = m r_i - 1,
 *   log u = (k LN2_HI + hi_i) + (z + (z^2 Q(z) + (k LN2_MID + lo_i))).
 * Error, relative to y = log u:
 *   - z: |z| <= 2^-5 (the generator prints the range); m r_i is exact when m has at most 29
 *     bits (a float32 argument), else within 2^-53, and the subtraction is exact (Sterbenz);
 *   - z + z^2 Q(z) against log1p(z): method 2^-50.1 (lt_log_data.h); roundings of z^2 Q and
 *     the small sum below 2^-56 |log1p z|; of z + (...) 2^-53 |log1p z|;
 *   - k LN2_HI + hi_i is exact (|k| < 2^11, both multiples of 2^-42 below 2^11); the last sum
 *     rounds once (2^-53 |y|); k LN2_MID + lo_i errs below 2^-88;
 *   - |log1p z| <= 2 |y|: the bucket of 1 is [1 - 1/64, 1 + 1/32), so outside it (k = 0)
 *     |y| >= -log(1 - 1/64) > 2^-6 while |log1p z| < 2^-5; for k != 0, |y| > 0.26.  The 2^-53 of an inexact m r_i is then
 *     below 2^-47 |y|.
 *   Total below 2^-46.6 |y|: the float32 result is within 0.5 + 2^-22 ulp, and Ziv's test
 *   with 2^9 units of y's last place (at least 2^-44 |y|, over four times the bound) finds
 *   every element that could round otherwise. */
#if LT_LOG16_QDEG != 6
#error "ltm_log16_vec evaluates Q as a degree-6 polynomial (Estrin's scheme written out)"
#endif
static inline __attribute__((always_inline)) ltm_gvd ltm_log16_vec(ltm_gvd u)
{
    const double *t = lt_tab_log16, *q = lt_tab_log16_q;
    ltm_gvl b = (ltm_gvl)u;
    ltm_gvl tmp = b - (int64_t)LT_LOG16_OFF;
    ltm_gvl i = tmp >> 48;                        /* the lookups use its low 4 bits */
    ltm_gvd m = (ltm_gvd)(b - (tmp & (int64_t)0xFFF0000000000000ull));
#if defined(__AVX512DQ__)
    ltm_gvd kd = __builtin_convertvector(tmp >> 52, ltm_gvd);
#else
    /* k as a double from its 12 bits plus 2048 (AVX2 has no int64 -> double conversion) */
    ltm_gvl kf = (ltm_gvl)((ltm_gvu)tmp >> 52) ^ 2048;
    ltm_gvd kd = (ltm_gvd)(kf | 0x4330000000000000) - 0x1.00000000008p52;
#endif
    ltm_gvd col[4];                                   /* r_i, hi_i, lo_i */
    ltm_vrows16(col, lt_tab_log16_rows, 4, t, 3, i);
    ltm_gvd z = m * col[0] - 1.0;
    ltm_gvd z2 = z * z, z4 = z2 * z2;
    ltm_gvd qz = ((q[0] + q[1] * z) + (q[2] + q[3] * z) * z2) + ((q[4] + q[5] * z) + q[6] * z2) * z4;
    ltm_gvd small = z2 * qz + (kd * lt_tab_log_k[1] + col[2]);
    return (kd * lt_tab_log_k[0] + col[1]) + (z + small);
}

/* Ziv's test for ltm_log16_vec's results, in units of y's last place (see above) */
#define LTM_LOG16_ZIV_UNITS 0x200

/* The float32 result of log (pole = 0) or log1p (pole = -1) from the double y of the lanes
 * with pole < x < +inf; the other lanes: x = pole -> -inf, +inf -> +inf, below the pole or
 * NaN -> NaN. */
static inline __attribute__((always_inline)) ltm_gvf ltm_log_result32(ltm_gvf xf, ltm_gvd y, float pole)
{
    ltm_gvi ok = (xf > pole) & (xf < __builtin_inff());
    ltm_gvi sp = (xf == pole) & (int32_t)0xFF800000;                     /* -inf */
    sp |= (xf == __builtin_inff()) & 0x7F800000;
    sp |= ((xf < pole) | (xf != xf)) & 0x7FC00000;
    return (ltm_gvf)(((ltm_gvi)__builtin_convertvector(y, ltm_gvf) & ok) | (sp & ~ok));
}

/* log x times `scale` (1 for log, folded away; 1/ln2 for log2, 1/ln10 for log10: one more
 * rounding of the product and of the constant, 2^-52 |y|, still well within the test).
 * Lanes with x <= 0, +inf or NaN take -inf (x = +-0), +inf or NaN; none is flagged.  Exact
 * powers of 2 (log2) and of 10 (log10) come out within 2^-46 of an integer, which is a float32
 * value far from any rounding boundary, so they round to it. */
static inline __attribute__((always_inline)) ltm_gvf ltm_log_scaled32_vec(ltm_gvf xf, ltm_gvl *ambiguous,
                                                                         double scale)
{
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvl ok = (x > 0.0) & (x < __builtin_inf());
    ltm_gvd y = ltm_log16_vec((ltm_gvd)(((ltm_gvl)x & ok) | ((ltm_gvl)((ltm_gvd){0} + 1.0) & ~ok)));
    y = y * scale;
    *ambiguous = ltm_vziv(y, LTM_LOG16_ZIV_UNITS) & ok;
    return ltm_log_result32(xf, y, 0.0f);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_log32_vec(ltm_gvf xf, ltm_gvl *ambiguous)
{
    return ltm_log_scaled32_vec(xf, ambiguous, 1.0);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_log2_32_vec(ltm_gvf xf, ltm_gvl *ambiguous)
{
    return ltm_log_scaled32_vec(xf, ambiguous, lt_tab_log_k[3]);
}
static inline __attribute__((always_inline)) ltm_gvf ltm_log10_32_vec(ltm_gvf xf, ltm_gvl *ambiguous)
{
    return ltm_log_scaled32_vec(xf, ambiguous, lt_tab_log_k[5]);
}
static inline float ltm_log_acc(float x)
{
    return lt_dd_to_f32(ltm_log_dd((double)x, 0.0));
}

/* log1p x: u = 1 + x is exact for 2^-28 <= |x| < 2^53 (a float32 x has 24 bits), and its
 * rounding above 2^53 errs by 2^-53 where |y| > 36; for |x| < 2^-28, y = x + (-x/2) x
 * (error below 2^-53 |y| + x^2/3 < 2^-56 |y|; float32-subnormal results are flagged).
 * Lanes with x <= -1, +inf or NaN take -inf (x = -1), +inf or NaN; none is flagged. */
static inline __attribute__((always_inline)) ltm_gvf ltm_log1p32_vec(ltm_gvf xf, ltm_gvl *ambiguous)
{
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvl ok = (x > -1.0) & (x < __builtin_inf());
    ltm_gvd u = 1.0 + (ltm_gvd)((ltm_gvl)x & ok);
    ltm_gvd y = ltm_log16_vec(u);
    ltm_gvl tiny = (ltm_gvd)((ltm_gvl)x & 0x7FFFFFFFFFFFFFFF) < 0x1p-28;
    ltm_gvd yt = x + (-0.5 * x) * x;
    y = (ltm_gvd)(((ltm_gvl)y & ~tiny) | ((ltm_gvl)yt & tiny));
    *ambiguous = ltm_vziv(y, LTM_LOG16_ZIV_UNITS) & ok;
    return ltm_log_result32(xf, y, -1.0f);
}
static inline float ltm_log1p_acc(float x)
{
    if (x == 0.0f) return x;
    return lt_dd_to_f32(ltm_log1p_dd(lt_dd_make((double)x, 0.0)));
}

static inline float ltm_log2_acc(float x)
{
    lt_dd l = ltm_log_dd((double)x, 0.0);
    return lt_dd_to_f32(lt_dd_mul(l, lt_dd_make(lt_tab_log_k[3], lt_tab_log_k[4])));
}

static inline float ltm_log10_acc(float x)
{
    lt_dd l = ltm_log_dd((double)x, 0.0);
    return lt_dd_to_f32(lt_dd_mul(l, lt_dd_make(lt_tab_log_k[5], lt_tab_log_k[6])));
}

/* atanh: y = ln(1 + t)/2, t = 2|x|/(1 - |x|) with relative error <= 2*2^-53 (the
 * subtraction is exact for |x| >= 2^-30, the division rounds once), which moves ln(1 + t)
 * by at most that much relatively (t / ((1 + t) ln(1 + t)) <= 1); plus ltm_log_ln_d's
 * 1.04*2^-53: |y - atanh x| <= 3.1*2^-53 |y|; tested with 2^-50 |y|. */
static inline float ltm_atanh_p1(float xf, int64_t *amb)
{
    double x = (double)xf, ax = __builtin_fabs(x);
    int64_t ok = ax < 1.0;
    double axs = ltm_log_sel(ok, ax, 0.0);
    double t = (2.0 * axs) / (1.0 - axs);
    lt_dd h = lt_two_sum(1.0, t);
    double y = 0.5 * ltm_log_ln_d(h.hi, h.lo, 0.0);
    double err = y * 0x1p-50;
    double sp = ax == 1.0 ? __builtin_copysign(__builtin_inf(), x) : ltm_log_qnan();
    *amb = ok & lt_f32_ambiguous(y, err);
    return (float)ltm_log_sel(ok, __builtin_copysign(y, x), sp);
}
static inline float ltm_atanh_acc(float xf)
{
    double ax = __builtin_fabs((double)xf);
    lt_dd l1 = ltm_log1p_dd(lt_dd_make(ax, 0.0)), l2 = ltm_log1p_dd(lt_dd_make(-ax, 0.0));
    lt_dd d = lt_dd_sub(l1, l2);
    return __builtin_copysignf(lt_dd_to_f32(lt_dd_make(0.5 * d.hi, 0.5 * d.lo)), xf);
}

/* asinh: y = ln(1 + t), t = |x| + x^2/(1 + sqrt(1 + x^2)); x^2 is exact (24-bit x, no
 * under/overflow in double), then four roundings: the second term has relative error
 * <= 3.5*2^-53, t <= 4.5*2^-53; with the log 5.6*2^-53 |y|; tested with 2^-49 |y|. */
static inline float ltm_asinh_p1(float xf, int64_t *amb)
{
    double x = (double)xf, ax = __builtin_fabs(x);
    int64_t ok = ax < __builtin_inf();
    double axs = ltm_log_sel(ok, ax, 0.0);
    double x2 = axs * axs;
    double t = axs + x2 / (1.0 + __builtin_sqrt(1.0 + x2));
    lt_dd h = lt_two_sum(1.0, t);
    double y = ltm_log_ln_d(h.hi, h.lo, 0.0);
    double err = y * 0x1p-49;
    double sp = ax == __builtin_inf() ? x : ltm_log_qnan();
    *amb = ok & lt_f32_ambiguous(y, err);
    return (float)ltm_log_sel(ok, __builtin_copysign(y, x), sp);
}
static inline float ltm_asinh_acc(float xf)
{
    double ax = __builtin_fabs((double)xf);
    double x2 = ax * ax;                                   /* exact */
    lt_dd q = ltm_log_sqrt_dd(lt_two_sum(1.0, x2));
    lt_dd t = lt_dd_add_d(lt_dd_div(lt_dd_make(x2, 0.0), lt_dd_add_d(q, 1.0)), ax);
    return __builtin_copysignf(lt_dd_to_f32(ltm_log1p_dd(t)), xf);
}

/* acosh: y = ln(1 + t), t = (x - 1) + sqrt((x - 1)(x + 1)); x - 1 and x + 1 are exact below
 * 2^53 (else one rounding each), the product and sqrt round: t <= 4.5*2^-53, y <= 5.6*2^-53
 * |y|; tested with 2^-49 |y|.  acosh(1) = +0 exactly. */
static inline float ltm_acosh_p1(float xf, int64_t *amb)
{
    double x = (double)xf;
    int64_t ok = (x >= 1.0) & (x < __builtin_inf());
    double xs = ltm_log_sel(ok, x, 1.0);
    double d = xs - 1.0;
    double t = d + __builtin_sqrt(d * (xs + 1.0));
    lt_dd h = lt_two_sum(1.0, t);
    double y = ltm_log_ln_d(h.hi, h.lo, 0.0);
    double err = y * 0x1p-49;
    double sp = x == __builtin_inf() ? __builtin_inf() : ltm_log_qnan();
    *amb = ok & lt_f32_ambiguous(y, err);
    return (float)ltm_log_sel(ok, y, sp);
}
static inline float ltm_acosh_acc(float xf)
{
    double x = (double)xf;
    lt_dd d = lt_two_sum(x, -1.0);
    lt_dd q = ltm_log_sqrt_dd(lt_two_sum(x * x, -1.0));     /* x*x exact */
    return lt_dd_to_f32(ltm_log1p_dd(lt_dd_add(d, q)));
}

/* ltm_log_f32, ltm_log1p_f32, ltm_log2_f32, ltm_log10_f32 and their chunks: lt_log32_fma.h */

LT_F32_TWO_PASS(ltm_asinh, ltm_asinh_p1, ltm_asinh_acc)

LT_F32_TWO_PASS(ltm_acosh, ltm_acosh_p1, ltm_acosh_acc)

LT_F32_TWO_PASS(ltm_atanh, ltm_atanh_p1, ltm_atanh_acc)

/* ================================================================== float64 exact */
/* All: the value is formed as a double-double (or hi + small lo) with relative error
 * < 2^-58 and rounded once, so the error is < 0.5 ulp + 2^-58 relative: faithful. */

/* log, log2 and log10 below are branch-free (selects), so that their loops vectorise:
 * x with a subnormal x scaled up by 2^52 (*kadj = -52), and 1 for the special values, which
 * ltm_log_f64_special then puts in (log(+-0) = -inf, log(+inf) = +inf, NaN below 0) */
static inline double ltm_log_f64_arg(double x, double *kadj)
{
    int sub = x < 0x1p-1022;
    *kadj = lt_select(sub, -52.0, 0.0);
    return lt_select((x > 0.0) & (x < __builtin_inf()), x * lt_select(sub, 0x1p52, 1.0), 1.0);
}
static inline double ltm_log_f64_special(double x, double y)
{
    double sp = lt_select(x == 0.0, -__builtin_inf(), lt_select(x > 0.0, x, ltm_log_qnan()));
    return lt_select(!(x > 0.0) | (x == __builtin_inf()), sp, y);
}

static inline double ltm_log_f64(double x)
{
    double kadj, xs = ltm_log_f64_arg(x, &kadj);
    return ltm_log_f64_special(x, ltm_log_ln_d(xs, 0.0, kadj));
}

static inline double ltm_log1p_f64(double x)
{
    int special = !(x > -1.0) | (x == __builtin_inf()) | (x == 0.0);
    double sp = lt_select(x == -1.0, -__builtin_inf(), lt_select(x >= 0.0, x, ltm_log_qnan()));
    lt_dd h = lt_two_sum(1.0, lt_select(special, 1.0, x));
    return lt_select(special, sp, ltm_log_ln_d(h.hi, h.lo, 0.0));
}

static inline double ltm_log2_f64(double x)
{
    double kadj, xs = ltm_log_f64_arg(x, &kadj);
    double B, k;
    double A = ltm_log_core(xs, 0.0, &B, &k);
    k += kadj;
    lt_dd P = lt_two_prod(A, lt_tab_log_k[3]);
    P.lo += A * lt_tab_log_k[4] + B * lt_tab_log_k[3];
    lt_dd S = lt_fast_two_sum(k, P.hi);        /* |k| >= 1 > |P.hi| or k = 0 */
    return ltm_log_f64_special(x, S.hi + (S.lo + P.lo));
}

static inline double ltm_log10_f64(double x)
{
    double kadj, xs = ltm_log_f64_arg(x, &kadj);
    double B, k;
    double A = ltm_log_core(xs, 0.0, &B, &k);
    k += kadj;
    lt_dd P = lt_two_prod(A, lt_tab_log_k[5]);
    P.lo += (A * lt_tab_log_k[6] + B * lt_tab_log_k[5]) + (k * lt_tab_log_k[8] + k * lt_tab_log_k[9]);
    lt_dd S = lt_fast_two_sum(k * lt_tab_log_k[7], P.hi);   /* k*LG2_HI exact, >= 0.30 */
    return ltm_log_f64_special(x, S.hi + (S.lo + P.lo));
}

/* atanh, asinh and acosh below are branch-free: each form is computed on every lane (on a
 * harmless argument where it does not apply) and the lane's own one selected, so that the
 * loops vectorise */

/* atanh = (log1p|x| - log1p(-|x|))/2, both logs as double-doubles (no cancellation) */
static inline double ltm_atanh_f64(double x)
{
    double ax = __builtin_fabs(x);
    double am = lt_select(ax < 1.0, ax, 0.5);
    lt_dd h1 = lt_two_sum(1.0, am), h2 = lt_two_sum(1.0, -am);
    lt_dd d = lt_dd_sub(ltm_log_dd_fast(h1.hi, h1.lo), ltm_log_dd_fast(h2.hi, h2.lo));
    double y = __builtin_copysign(0.5 * (d.hi + d.lo), x);
    /* atanh x = x + x^3/3 + ..., x^5 term < 2^-150 |x| */
    y = lt_select(ax < 0x1p-30, x + x * (x * x) * 0x1.5555555555555p-2, y);
    double sp = lt_select(ax == 1.0, __builtin_copysign(__builtin_inf(), x), ltm_log_qnan());
    return lt_select(!(ax < 1.0), sp, y);
}

/* asinh = ln(|x| + sqrt(1 + x^2)) with the argument as a double-double */
static inline double ltm_asinh_f64(double x)
{
    double ax = __builtin_fabs(x);
    int big = ax > 0x1p28;
    /* ln(2|x|) + 1/(4x^2), the latter < 2^-58 */
    lt_dd lb = ltm_log_dd_fast(lt_select(big & (ax < __builtin_inf()), ax, 0x1p29), 0.0);
    lb = lt_dd_add_d(lt_dd_add_d(lb, lt_tab_log_k[0]), lt_tab_log_k[1]);
    double am = lt_select(big, 1.0, ax);
    lt_dd q = ltm_log_sqrt_dd(lt_dd_add_d(lt_two_prod(am, am), 1.0));
    lt_dd w = lt_dd_add_d(q, am);
    lt_dd l = lt_dd_select(big, lb, ltm_log_dd_fast(w.hi, w.lo));
    double y = __builtin_copysign(l.hi + l.lo, x);
    /* x - x^3/6, next term < 2^-105 |x| */
    y = lt_select(ax < 0x1p-26, __builtin_copysign(ax - ax * (ax * ax) * 0x1.5555555555555p-3, x), y);
    return lt_select(!(ax < __builtin_inf()), lt_select(x != x, ltm_log_qnan(), x), y);
}

/* acosh = log1p(d + sqrt(d (x + 1))), d = x - 1 exact, all in double-double */
static inline double ltm_acosh_f64(double x)
{
    int big = x > 0x1p28;
    /* ln(2x) - 1/(4x^2) */
    lt_dd lb = ltm_log_dd_fast(lt_select(big & (x < __builtin_inf()), x, 0x1p29), 0.0);
    lb = lt_dd_add_d(lt_dd_add_d(lb, lt_tab_log_k[0]), lt_tab_log_k[1]);
    double xm = lt_select(big | !(x >= 1.0), 2.0, x);
    double d = xm - 1.0;                         /* exact */
    lt_dd e = lt_two_sum(xm, 1.0);
    lt_dd s = lt_two_prod(d, e.hi);
    s = lt_fast_two_sum(s.hi, s.lo + d * e.lo);
    lt_dd t = lt_dd_add_d(ltm_log_sqrt_dd(s), d);
    lt_dd w = lt_dd_add_d(t, 1.0);
    lt_dd l = lt_dd_select(big, lb, ltm_log_dd_fast(w.hi, w.lo));
    double sp = lt_select(x == __builtin_inf(), x, ltm_log_qnan());
    return lt_select(!(x >= 1.0) | (x == __builtin_inf()), sp, l.hi + l.lo);
}

/* ================================================================== fast variants */
/* float32 fast: double arithmetic with the degree-2 polynomial (relative error ~2^-36
 * before the final rounding to float32); float64 fast: FMA reduction, degree-6 polynomial. */

/* float32 fast log and log1p in float arithmetic (no tables; ltm_f32_as_i32 etc. from
 * lt_exp.h): y = 2^k m, m in [sqrt(1/2), sqrt 2) from the bits (k = (bits(y) - bits(sqrt(1/2)))
 * >> 23), f = m - 1 exact, log1p(f) = f - f^2/2 + f^3 (c3 + c4 f + ... + c10 f^7), a minimax
 * fit with float32 coefficients (tools/fit_fast32.py, 2^-27.3 relative), and
 * log = k LN2_HI (exact) + (k LN2_LO + log1p(f)). */
/* log1p(f) = f + f^2 P(f), P evaluated by Estrin's scheme: pairs
 * c3 + c4 f, ..., c9 + c10 f combined with f^2 and f^4, so that the dependency chain is 5
 * operations deep instead of 9 (the hot loop is bound by latency, not by the FMA ports). */
static inline float ltm_logf_p_estrin(float f)
{
    float f2 = f * f, f4 = f2 * f2;
    float a0 = LT_FMAF(f, -0x1.000228p-2f, 0x1.555554p-2f);
    float a1 = LT_FMAF(f, -0x1.547212p-3f, 0x1.99a02cp-3f);
    float a2 = LT_FMAF(f, -0x1.0d845ap-3f, 0x1.22d708p-3f);
    float a3 = LT_FMAF(f, -0x1.38ee24p-4f, 0x1.05707ap-3f);
    float b0 = LT_FMAF(f2, a1, a0), b1 = LT_FMAF(f2, a3, a2);
    return LT_FMAF(f, LT_FMAF(f4, b1, b0), -0.5f);   /* log1p(f) = f + f^2 (this) */
}

/* y > 0 normal: m = y 2^-k in [sqrt(1/2), sqrt 2) */
static inline float ltm_logf_split(float y, int32_t *k)
{
    int32_t b = ltm_f32_as_i32(y);
    *k = (b - 0x3F3504F3) >> 23;
    return ltm_i32_as_f32(b - (*k << 23));
}

/* x > 0 finite (else any lane value): log x = kf ln2 + L, L = log1p(m - 1) */
static inline float ltm_logf_kl(float x, float *kf)
{
    int sub = x < 0x1p-126f;
    float xs = sub ? x * 0x1p23f : x;
    xs = (x > 0.0f) & (x < __builtin_inff()) ? xs : 1.0f;
    int32_t k;
    float m = ltm_logf_split(xs, &k);
    *kf = (float)k - (sub ? 23.0f : 0.0f);
    float f = m - 1.0f;
    return LT_FMAF(f * f, ltm_logf_p_estrin(f), f);
}
static inline float ltm_logf_special(float x, float y)
{
    float sp = x == 0.0f ? -__builtin_inff() : (x > 0.0f ? x : __builtin_nanf(""));
    return (x > 0.0f) & (x < __builtin_inff()) ? y : sp;
}
/* the three functions from kf and L: log = k LN2_HI (exact) + (k LN2_LO + L) */
static inline float ltm_logf_tail_log(float kf, float L)
{
    return LT_FMAF(kf, 0x1.62e4p-1f, LT_FMAF(kf, 0x1.7f7d1cp-20f, L));
}
/* log2 = k + L log2(e), log2(e) as a float pair */
static inline float ltm_logf_tail_log2(float kf, float L)
{
    return LT_FMAF(L, 0x1.715476p+0f, LT_FMAF(L, 0x1.4ae0cp-26f, kf));
}
/* log10 = k LG2_HI (exact, 13 bits) + (k LG2_LO + L log10(e)) */
static inline float ltm_logf_tail_log10(float kf, float L)
{
    float t = LT_FMAF(kf, 0x1.a84fbcp-21f, L * -0x1.5b235ep-27f);
    return LT_FMAF(kf, 0x1.3441p-2f, LT_FMAF(L, 0x1.bcb7b2p-2f, t));
}
/* ltm_NAME_f32_fast per element, and a chunk at a time: the common case (every x positive,
 * normal and finite) without the subnormal scaling and the special-value selects, whose mask
 * juggling cost more than the polynomial; a chunk holding any other x is done again per
 * element.  On a normal x both forms take the same k, f and operations: the same bits. */
#define LTM_LOGF_FAST(NAME)                                                                   \
static inline float ltm_##NAME##_f32_fast(float x)                                           \
{                                                                                             \
    float kf, L = ltm_logf_kl(x, &kf);                                                        \
    return ltm_logf_special(x, ltm_logf_tail_##NAME(kf, L));                                  \
}                                                                                             \
static inline void ltm_##NAME##_f32_fast_chunk(int64_t n, float *restrict o,                  \
                                               const float *restrict a)                       \
{                                                                                             \
    uint32_t other = 0;                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                         \
        const uint32_t b = (uint32_t)ltm_f32_as_i32(a[i]);                                    \
        other |= (uint32_t)(b - 0x00800000u >= 0x7F000000u);   /* not in [2^-126, inf) */     \
        const uint32_t kb = (b - 0x3F3504F3u) & 0xFF800000u;   /* k 2^23 */                   \
        const float f = ltm_i32_as_f32((int32_t)(b - kb)) - 1.0f;                             \
        const float kf = (float)((int32_t)kb >> 23);                                          \
        o[i] = ltm_logf_tail_##NAME(kf, LT_FMAF(f * f, ltm_logf_p_estrin(f), f));             \
    }                                                                                         \
    if (other)                                                                                \
        for (int64_t i = 0; i < n; i++) o[i] = ltm_##NAME##_f32_fast(a[i]);                   \
}
LTM_LOGF_FAST(log)
LTM_LOGF_FAST(log2)
LTM_LOGF_FAST(log10)
#undef LTM_LOGF_FAST   /* pasted once per kernel path */

/* log1p x = log u + log(1 + c/u), u = 1 + x rounded, c = x - (u - 1) the rounding error of
 * u: exact for u < 2^24 (for |x| <= 1 it is Fast2Sum; for x >= 1, u - 1 is exact and within
 * an ulp of u of x, so the difference is exact by Sterbenz); for u >= 2^24 it is within an
 * ulp of u and its term below 2^-23 absolute beside a result above 16.  With u = 2^k m,
 * f = m - 1, log1p x = k ln2 + log1p(f) + d/(1 + f), d = c 2^-k (|d| <= 2^-24 m), d/(1 + f)
 * taken as d (1 - f + f^2) (relative error f^3 of a term below 2^-24.5 of the result), summed
 * as k LN2_HI + (f^2 p(f) + (f + (d (1 - f + f^2) + k LN2_LO))) (three roundings as before, but
 * the small terms are ready before the polynomial).  Integer arithmetic in uint32_t: the lanes outside
 * (-1, inf) compute garbage (no traps, no undefined behaviour) that the last selects replace;
 * no selects in the main path. */
static inline float ltm_log1p_f32_fast(float x)
{
    float u = 1.0f + x;
    uint32_t b = (uint32_t)ltm_f32_as_i32(u);
    uint32_t kb = (b - 0x3F3504F3u) & 0xFF800000u;                 /* k 2^23 */
    float f = ltm_i32_as_f32((int32_t)(b - kb)) - 1.0f;          /* m - 1, exact */
    float c = x - (u - 1.0f);
    int32_t kbs = (int32_t)kb;
    int32_t kc = kbs < (126 << 23) ? kbs : (126 << 23);
    float d = c * ltm_i32_as_f32((int32_t)(0x3F800000u - (uint32_t)kc));   /* c 2^-k */
    float kf = (float)(kbs >> 23);
    float lo = LT_FMAF(d, LT_FMAF(f, f - 1.0f, 1.0f), kf * 0x1.7f7d1cp-20f);
    float y = LT_FMAF(kf, 0x1.62e4p-1f, LT_FMAF(f * f, ltm_logf_p_estrin(f), f + lo));
    y = x + x == x ? x : y;                                      /* +-0, +inf */
    y = x > -1.0f ? y : __builtin_nanf("");                      /* x < -1, -inf, NaN */
    return x == -1.0f ? -__builtin_inff() : y;
}

/* asinh, acosh and atanh in float through the fast log1p (the exact forms evaluate in double:
 * about 2 ns per element, against 0.3-0.6 here), each argument of log1p made without
 * cancellation; above 2^62, where the squares would overflow, log1p(|x|) + ln 2 (the terms
 * dropped are below 2^-120 relative).  Below 1/2, asinh and atanh are odd polynomials
 * a + a z P(z), z = a^2 (tools/fit_fast32.py: 2^-29.6 and 2^-29.4): there the rounding of
 * log1p's argument cost a third ulp. */
#define LTM_LN2F 0x1.62e43p-1f
/* a + a z (c[0] + c[1] z + ... + c[n-1] z^(n-1)) by Horner from the top: the odd polynomials
 * of the float32 fast inverse functions (z = a^2, or a value the caller has) */
static inline __attribute__((always_inline)) float ltm_odd_polyf(float a, float z, const float *c,
                                                                 int n)
{
    float p = c[n - 1];
    for (int k = n - 2; k >= 0; k--) p = LT_FMAF(z, p, c[k]);
    return LT_FMAF(a * z, p, a);
}
/* asinh |x| = log1p(a + q), a = |x|, q = a^2/(1 + sqrt(1 + a^2)), written a/(1/a + sqrt(1 +
 * 1/a^2)) above 1 */
static inline float ltm_asinh_f32_fast(float xf)
{
    const float a = __builtin_fabsf(xf);
    const int below1 = a <= 1.0f, huge = a > 0x1p62f;
    const float t = below1 ? a : 1.0f / a;
    const float q = (below1 ? a * a : a) / ((below1 ? 1.0f : t) + __builtin_sqrtf(LT_FMAF(t, t, 1.0f)));
    const float r = ltm_log1p_f32_fast(huge ? a : a + q) + (huge ? LTM_LN2F : 0.0f);
    static const float c[] = {-0x1.555536p-3f, 0x1.3324f4p-4f, -0x1.6b961cp-5f,
                              0x1.cd674ap-6f, -0x1.b15824p-7f};
    const float s = ltm_odd_polyf(a, a * a, c, 5);
    return __builtin_copysignf(a < 0.5f ? s : r, xf);
}
/* acosh x = log1p(d + sqrt(d (d + 2))), d = x - 1 (exact below 2^24; above, its rounding is
 * below 2^-24 of a result above 17); x below 1 (where that argument can be -1) and NaN: NaN */
static inline float ltm_acosh_f32_fast(float x)
{
    const int huge = x > 0x1p62f;
    const float d = x - 1.0f;
    const float r = ltm_log1p_f32_fast(huge ? x : d + __builtin_sqrtf(d * (d + 2.0f))) +
                    (huge ? LTM_LN2F : 0.0f);
    return x >= 1.0f ? r : __builtin_nanf("");
}
/* atanh x = log1p(2a/(1 - a))/2 with x's sign, a = |x|, the argument as 2a + 2a (a/(1 - a))
 * (the roundings on the smaller term); a = 1 gives log1p(inf); a > 1 (where the argument can
 * come out near 0) and NaN: NaN */
static inline float ltm_atanh_f32_fast(float xf)
{
    const float a = __builtin_fabsf(xf), a2 = 2.0f * a;
    const float r = 0.5f * ltm_log1p_f32_fast(LT_FMAF(a2, a / (1.0f - a), a2));
    static const float c[] = {0x1.55553ep-2f, 0x1.99a75p-3f, 0x1.233dbcp-3f,
                              0x1.e5076ap-4f, 0x1.9ee746p-5f, 0x1.6c0258p-3f};
    const float s = ltm_odd_polyf(a, a * a, c, 6);
    return a <= 1.0f ? __builtin_copysignf(a < 0.5f ? s : r, xf) : __builtin_nanf("");
}

static inline double ltm_log_f64_fast(double x)
{
    int ok = (x > 0.0) & (x < __builtin_inf());
    int sub = x < 0x1p-1022;
    double xs = ltm_log_sel(ok, ltm_log_sel(sub, x * 0x1p52, x), 1.0);
    double y = ltm_log_fcore(xs, 0.0, 6) + ltm_log_sel(sub, -0x1.205966f2b4f12p+5, 0.0);  /* -52 ln2 */
    double sp = x == 0.0 ? -__builtin_inf() : (x > 0.0 ? x : ltm_log_qnan());
    return ltm_log_sel(ok, y, sp);
}

static inline double ltm_log1p_f64_fast(double x)
{
    int ok = (x > -1.0) & (x < __builtin_inf());
    lt_dd h = lt_two_sum(1.0, ltm_log_sel(ok, x, 0.0));
    double y = ltm_log_fcore(h.hi, h.lo, 6);
    double sp = x == -1.0 ? -__builtin_inf() : (x > 0.0 ? x : ltm_log_qnan());
    return ltm_log_sel(ok, ltm_log_sel(x == 0.0, x, y), sp);
}

static inline double ltm_log2_f64_fast(double x)
{
    int ok = (x > 0.0) & (x < __builtin_inf());
    int sub = x < 0x1p-1022;
    double k;
    double lm = ltm_log_fcore_m(ltm_log_sel(ok, ltm_log_sel(sub, x * 0x1p52, x), 1.0), &k);
    k -= ltm_log_sel(sub, 52.0, 0.0);
    double y = LT_FMA(lm, lt_tab_log_k[3], k);
    double sp = x == 0.0 ? -__builtin_inf() : (x > 0.0 ? x : ltm_log_qnan());
    return ltm_log_sel(ok, y, sp);
}

static inline double ltm_log10_f64_fast(double x)
{
    int ok = (x > 0.0) & (x < __builtin_inf());
    int sub = x < 0x1p-1022;
    double k;
    double lm = ltm_log_fcore_m(ltm_log_sel(ok, ltm_log_sel(sub, x * 0x1p52, x), 1.0), &k);
    k -= ltm_log_sel(sub, 52.0, 0.0);
    double y = LT_FMA(k, lt_tab_log_k[7], LT_FMA(lm, lt_tab_log_k[5], k * lt_tab_log_k[8]));
    double sp = x == 0.0 ? -__builtin_inf() : (x > 0.0 ? x : ltm_log_qnan());
    return ltm_log_sel(ok, y, sp);
}

static inline double ltm_atanh_f64_fast(double x)
{
    double ax = __builtin_fabs(x);
    int ok = ax < 1.0;
    double axs = ltm_log_sel(ok, ax, 0.0);
    lt_dd h1 = lt_two_sum(1.0, axs), h2 = lt_two_sum(1.0, -axs);
    double y = 0.5 * (ltm_log_fcore(h1.hi, h1.lo, 6) - ltm_log_fcore(h2.hi, h2.lo, 6));
    double sp = ax == 1.0 ? __builtin_copysign(__builtin_inf(), x) : ltm_log_qnan();
    return ltm_log_sel(ok, __builtin_copysign(y, x), sp);
}

static inline double ltm_asinh_f64_fast(double x)
{
    double ax = __builtin_fabs(x);
    int ok = ax < __builtin_inf();
    int big = ax > 0x1p500;
    double axs = ltm_log_sel(ok, ax, 0.0), x2 = axs * axs;
    double t = axs + x2 / (1.0 + __builtin_sqrt(1.0 + x2));
    lt_dd h = lt_two_sum(1.0, ltm_log_sel(big, 0.0, t));
    double y = ltm_log_fcore(ltm_log_sel(big, axs, h.hi), ltm_log_sel(big, 0.0, h.lo), 6)
               + ltm_log_sel(big, lt_tab_log_k[10], 0.0);
    double sp = ax == __builtin_inf() ? x : ltm_log_qnan();
    return ltm_log_sel(ok, __builtin_copysign(y, x), sp);
}

static inline double ltm_acosh_f64_fast(double x)
{
    int ok = (x >= 1.0) & (x < __builtin_inf());
    int big = x > 0x1p500;
    double xs = ltm_log_sel(ok, x, 1.0);
    double d = xs - 1.0;
    double t = d + __builtin_sqrt(d * (xs + 1.0));
    lt_dd h = lt_two_sum(1.0, ltm_log_sel(big, 0.0, t));
    double y = ltm_log_fcore(ltm_log_sel(big, xs, h.hi), ltm_log_sel(big, 0.0, h.lo), 6)
               + ltm_log_sel(big, lt_tab_log_k[10], 0.0);
    double sp = x == __builtin_inf() ? x : ltm_log_qnan();
    return ltm_log_sel(ok, y, sp);
}
