/* The float32 exact Gelu (erf form), correctly rounded: its accurate path, and the first pass
 * of each kernel path (issue 41).  Pasted after lt_erf.h (build_kernels.MATH_FAMILIES), whose
 * no-FMA first pass (ltm_gelu32_vec, the generic path's) and float64 core (ltm_gelu_dd) it uses.
 *
 * Accurate path, for the elements a first pass flags (ltm_gelu32_accurate):
 *   |x| < 2^-100: ltm_gelu32_tiny (lt_exp.h), exact reasoning;
 *   x < -15: -0 (|gelu(-15)| < 2^-160, below half the least subnormal);
 *   x > 9, x = NaN or +inf: the float64 Gelu's own end values (x: gelu(x) = x (1 - d) with
 *     d < 2^-64 rounds to x);
 *   2^-100 <= |x| < 2^-60: x/2 (a float32; the next term x^2/sqrt(2 pi) is below 2^-60 of it,
 *     so no float32 midpoint lies between);
 *   elsewhere the float64 Gelu's double-double value v = hi + lo (ltm_gelu_dd, relative error
 *     below 0.35 * 2^-53, scaled by its power of two exactly: v stays a normal double down to
 *     x = -15), and Ziv's test on hi with e = 2^-51 |hi| (over the 2^-53.5 of the dd, |lo| <=
 *     2^-53 |hi|, and the rounding of hi -+ e, 2^-53 |hi|): when hi - e and hi + e round to the
 *     same float32 it is the result; else (about 2^-25 of the inputs in the range: some tens
 *     of the 2^32) ltm_gelu32_quad.
 * ltm_gelu32_quad: binary128 arithmetic (GCC's __float128, in software: libgcc, no libm; or
 *   long double where it is binary128), relative error below 2^-85, one rounding to float32.
 *   z = x^2/2 is exact (x has 24 bits), t = |x|/sqrt(2).
 *   t < 2.5: gelu = x/2 (1 + erf(x/sqrt 2)), erf(x/sqrt 2) = C0 (x/sqrt 2) sum_n (-z)^n /
 *     (n! (2n + 1)): terms below 2^4.5, about 4 roundings of 2^-113 each over 60 terms:
 *     absolute below 2^-99, and 1 + erf >= erfc(2.5) > 2^-11.3 (x < 0): relative below 2^-87.
 *   t >= 2.5: erfc(t) = exp(-z) / sqrt(pi) / K, K = t + (1/2)/(t + (2/2)/(t + (3/2)/(...)))
 *     (Laplace's continued fraction, positive terms, evaluated from depth 200: truncation below
 *     2^-132 at t = 2.5, less above); exp(-z) = exp(-r) 2^-k, z = k ln2 + r (|r| <= 0.35; ln2's and
 *     k ln2's roundings, k <= 163: below 2^-105 absolute), exp(-r) by 40 Taylor
 *     terms; gelu = x/2 erfc(t) (x < 0) or x/2 (2 - erfc(t)).  Below 2^-100 relative.
 * No float32 Gelu value lies within 2^-85 of a float32 midpoint (the exhaustive sweeps check
 * every input end to end), so the result is correctly rounded. */

#if defined(__SIZEOF_FLOAT128__)
typedef __float128 ltm_q;
#elif defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113
typedef long double ltm_q;
#else
#error "the float32 Gelu's accurate path needs binary128 (__float128 or long double)"
#endif

static inline ltm_q ltm_q3(double a, double b, double c) { return ((ltm_q)a + (ltm_q)b) + (ltm_q)c; }

static __attribute__((noinline)) float ltm_gelu32_quad(float xf)
{
#ifdef __AVX__
    _mm256_zeroupper();     /* libgcc's binary128 is SSE code: no dirty vector state (lt_dd.h) */
#endif
    const ltm_q rs = ltm_q3(0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55, 0x1.57d3e3adec175p-109);
    const ltm_q c0 = ltm_q3(0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56, -0x1.3cbbebf65f145p-111);
    const ltm_q ln2 = ltm_q3(0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56, 0x1.7b57a079a1934p-111);
    double xd = xf, zd = 0.5 * xd * xd;                 /* exact */
    ltm_q x = xd, z = zd, t = (xd < 0 ? -x : x) * rs, g;
    if (zd < 3.125) {
        ltm_q term = 1, sum = 1;
        for (int n = 1; n < 80; n++) {
            term = term * -z / n;
            sum += term / (2 * n + 1);
        }
        g = x / 2 * (1 + c0 * (x * rs) * sum);
    } else {
        ltm_q k = t;
        for (int n = 200; n >= 1; n--) k = t + ((ltm_q)n / 2) / k;
        double kd = __builtin_round(zd / 0x1.62e42fefa39efp-1);
        ltm_q r = z - (ltm_q)kd * ln2, term = 1, e = 1;
        for (int n = 1; n < 40; n++) {
            term = term * -r / n;
            e += term;
        }
        int64_t k1 = (int64_t)kd / 2, k2 = (int64_t)kd - k1;   /* each <= 1022 */
        e = e * (ltm_q)ltm_erf_pow2(-k1) * (ltm_q)ltm_erf_pow2(-k2);
        ltm_q erfc = e * (c0 / 2) / k;
        g = x / 2 * (xd < 0 ? erfc : 2 - erfc);
    }
    return (float)g;
}

static inline float ltm_gelu32_accurate(float x)
{
    float ax = __builtin_fabsf(x);
    if (ax < 0x1p-100f) return ltm_gelu32_tiny(x);
    if (x < -15.0f) return -0.0f;
    if (!(x <= 9.0f)) return (float)ltm_gelu_f64((double)x);
    if (ax < 0x1p-60f) return 0.5f * x;
    ltm_gelu_dd_t d = ltm_gelu_dd((double)x);
    double hi = d.g.hi;
    if (d.tail) {                                     /* k >= -163: 2^k and v normal */
        double s = ltm_erf_pow2(d.k);
        hi = d.gn.hi * s;
    }
    double e = __builtin_fabs(hi) * 0x1p-51;
    if ((float)(hi - e) == (float)(hi + e)) return (float)hi;
    return ltm_gelu32_quad(x);
}

#if LTM_GW == 8 || (LTM_GW == 4 && defined(__FMA__))
/* ---- the first pass of the FMA paths (AVX2, AVX-512: the same FMAs in the same order on 4 or
 * 8 lanes, so the same bits; correctly rounded on its own, verified per path).  The no-FMA
 * pass's form (lt_erf.h) with a = min(|x|, 14.5), T = A R, A = a E, E = exp(-a^2/2), gelu =
 * x - T (x >= 0) or -T, and:
 *   E by ltm_exp32_core (lt_exp32_fma.h: no table) at -a^2/2 (exact): its bound 2^-39.76
 *     (method) + 2^-50.3 (roundings) holds, and the reduction's |k| |ln2 - RN(ln2)| grows to
 *     152 * 2^-55.27 < 2^-47.9 (a <= 14.5; E 2^k stays a normal double): below 2^-39.75;
 *   A = a E: 2^-53;
 *   R: the no-FMA pass's index, table (lt_tab_gelu32_rows) and Estrin scheme with each
 *     p_ij = c_i + c_j s and each combination one FMA (fewer roundings than there: 2^-49.3
 *     still bounds them) on method 2^-41.5;
 *   y = fma(-A, R, x or 0): one rounding, and T <= x/2 (x >= 0), so T's relative error is at
 *     most y's.
 * In all below 2^-39.37 |y|, under 2^13.63 units of y's last place; Ziv's test at 2^15 units
 * (about one element in 2^13 flagged, with the float32-subnormal results) sends the element
 * to ltm_gelu32_accurate. */
static inline __attribute__((always_inline)) ltm_gvf ltm_gelu32_vec_fma(ltm_gvf xf, ltm_gvl *ambiguous)
{
    const double *rt = lt_tab_gelu32_r;
    const double al = lt_tab_gelu32_const[0], be = lt_tab_gelu32_const[1], clamp = lt_tab_gelu32_const[2];
    const double shifter = 0x1.8p52;
    const ltm_gvl shifter_bits = (ltm_gvl)((ltm_gvd){0} + shifter);
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvd a = ltm_vabs_clamped(x, clamp);
    ltm_gvd a2 = a * a;                                    /* exact */
    ltm_gvd A = a * ltm_exp32_core(-0.5 * a2);
    /* R(a): the no-FMA pass's index (its operations, so its rows) */
    ltm_gvd g = (a * al - 0.5) - a2 * be;
    ltm_gvl idx = (ltm_gvl)(g + shifter) - shifter_bits;
    ltm_gvd poly = ltm_vpiece9(lt_tab_gelu32_rows, rt, idx, a);     /* r_0 .. r_9, c */
    ltm_gvd y = LTM_VFMA(-A, poly, (ltm_gvd)((ltm_gvl)x & (ltm_gvl)(x >= 0.0)));
    ltm_gvf yf = __builtin_convertvector(y, ltm_gvf);
    ltm_gvi nan = xf != xf;
#ifdef LTM_GELU32_NO_ZIV      /* scans only: the first pass's own rounding, never flagged */
    *ambiguous = (ltm_gvl){ 0 };
#else
    *ambiguous = ltm_vziv(y, 0x8000) & (x == x);
#endif
    return (ltm_gvf)(((ltm_gvi)yf & ~nan) | (0x7FC00000 & nan));
}

/* The elements Ziv's test flags are redone by ltm_gelu32_accurate. */
LTM_VEC_TWO_PASS(ltm_gelu, ltm_gelu32_vec_fma, ltm_gelu32_accurate)
#else
/* The generic path: the no-FMA pass (lt_erf.h); the elements its test flags (about 1 in 10^5,
 * and the float32-subnormal results) are redone by ltm_gelu32_accurate. */
LTM_VEC_TWO_PASS(ltm_gelu, ltm_gelu32_vec, ltm_gelu32_accurate)
#endif
