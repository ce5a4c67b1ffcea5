/* The erf family: erf and the erf-form gelu, exact and fast modes.
 *
 * Tables: lt_erf_data.h (tools/gen_erf_tables.py).  Exact functions use + - * / only (no FMA,
 * no C library), so they give the same bits on every kernel path; the one exception is the
 * first pass of the correctly rounded float32 erf (ltm_erf32_vec), whose result is unique.
 *
 * Method.  With z = t^2:
 *   |t| < 0.5:      erf(t)  = t (C0 + z Q(z)), C0 = 2/sqrt(pi), Q of degree 9
 *                   (lt_tab_erf_small, relative error 2^-58.3 with the double coefficients);
 *   0.5 <= t < 32:  erfc(t) = exp(-z) erfcx(t), erfcx on 48 intervals (8 per binade, index
 *                   = exponent and top 3 mantissa bits of t), a degree-11 polynomial in
 *                   s = t - c per interval (lt_tab_erf_cx, relative error 2^-57.8);
 *                   erf(t) = 1 - erfc(t) (no harmful cancellation: erfc(0.5) = 0.48).
 *   exp(-z) comes from the private exps below (a table of 2^(j/64) and a Taylor polynomial).
 *   gelu(x) = x/2 erfc(-x/sqrt(2)): for x < 0 erfc is taken directly (never 1 + erf(x));
 *   in float64, t = x/sqrt(2) is a double-double and z = x^2/2 is exact (two_prod), since
 *   exp(-z) amplifies an absolute error of z into a relative error of the result.
 *
 * float32 erf is correctly rounded: its first pass (ltm_erf32_vec, on vectors, with an FMA
 * where the kernel path has one: correctly rounded per path) evaluates piecewise polynomials
 * in double with a proven error bound and Ziv's test; the rare ambiguous inputs go to
 * ltm_erf32_accurate (the no-FMA double pass with its own test, then the Taylor series in
 * double-double, ltm_erf_accurate_f32, rounded via round-to-odd).
 * float32 gelu, correctly rounded: its own formula on vectors (T = a exp(-a^2/2) R(a), 16
 * polynomial pieces of R, relative error < 2^-41 in double; the generic path's first pass), Ziv's
 * test, and for the rare elements it flags the accurate path of lt_gelu32.h (which also holds
 * the FMA paths' first pass).  float64 erf and gelu: double-double where it matters,
 * faithful (measured max 0.75 ulp for erf, 0.71 for gelu against MPFR).
 * Fast mode: the same formulas in double with LT_FMA, lower-degree tables for float32.
 *
 * The erfcx tables reach t = 32 because float64 gelu needs erfc(-x/sqrt 2) with relative
 * accuracy down to x = -39 (where the result underflows to -0).  ltm_erf_exp_dd (exp of a
 * double-double argument, scale returned apart) and ltm_erf_exp_d / _fast / _fast32 are
 * private to this family, to be merged with the general exp family (lt_exp.h) later.
 *
 * Vectorised loops use ltm_erf_sel (a bitwise blend) instead of ?: for every select.
 */

/* ---- small helpers ---------------------------------------------------------------------- */

/* c ? a : b without control flow: the vectorised loops compute every branch and blend, and a
 * plain ?: lets gcc sink the table loads into a branch (then they become masked gathers that
 * it cannot vectorise). */
static inline double ltm_erf_sel(int64_t c, double a, double b)
{
    uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
    return lt_from_bits64((lt_bits64(a) & m) | (lt_bits64(b) & ~m));
}

/* erf(x) = x (C0 + z Q(z)) for |x| < 0.5 (plain double; Q's Horner only). */
static inline double ltm_erf_small_q(double z)
{
    const double *c = lt_tab_erf_small;
    double q = c[11];
    q = q * z + c[10]; q = q * z + c[9]; q = q * z + c[8]; q = q * z + c[7];
    q = q * z + c[6]; q = q * z + c[5]; q = q * z + c[4]; q = q * z + c[3];
    q = q * z + c[2];
    return q;
}

static inline double ltm_erf_small_q_fma(double z)
{
    const double *c = lt_tab_erf_small;
    double q = c[11];
    q = LT_FMA(q, z, c[10]); q = LT_FMA(q, z, c[9]); q = LT_FMA(q, z, c[8]);
    q = LT_FMA(q, z, c[7]); q = LT_FMA(q, z, c[6]); q = LT_FMA(q, z, c[5]);
    q = LT_FMA(q, z, c[4]); q = LT_FMA(q, z, c[3]); q = LT_FMA(q, z, c[2]);
    return q;
}

/* Row of lt_tab_erf_cx for 0.5 <= t < 32 (t must be clamped into that range). */
static inline int64_t ltm_erf_cx_row(double t)
{
    return ((int64_t)(lt_bits64(t) >> 49) - 0x1FF0) * 16;
}

/* erfcx(t) - a0 = s (a1 + s (a2 + ...)), the polynomial tail of row r at s = t - c. */
static inline double ltm_erf_cx_tail(int64_t r, double s)
{
    const double *c = lt_tab_erf_cx;
    double q = c[r + 12];
    q = q * s + c[r + 11]; q = q * s + c[r + 10]; q = q * s + c[r + 9]; q = q * s + c[r + 8];
    q = q * s + c[r + 7]; q = q * s + c[r + 6]; q = q * s + c[r + 5]; q = q * s + c[r + 4];
    q = q * s + c[r + 3]; q = q * s + c[r + 2];
    return q * s;
}

static inline double ltm_erf_cx_tail_fma(int64_t r, double s)
{
    const double *c = lt_tab_erf_cx;
    double q = c[r + 12];
    q = LT_FMA(q, s, c[r + 11]); q = LT_FMA(q, s, c[r + 10]); q = LT_FMA(q, s, c[r + 9]);
    q = LT_FMA(q, s, c[r + 8]); q = LT_FMA(q, s, c[r + 7]); q = LT_FMA(q, s, c[r + 6]);
    q = LT_FMA(q, s, c[r + 5]); q = LT_FMA(q, s, c[r + 4]); q = LT_FMA(q, s, c[r + 3]);
    q = LT_FMA(q, s, c[r + 2]);
    return q * s;
}

/* erfcx(t) in double, 0.5 <= t < 32.  The tail is at most 7% of the result (|erfcx'/erfcx|
 * times the half-width is below 0.07 on every interval), so with the method error 2^-57.8
 * and the dropped a0 lo, the relative error is below 0.6 * 2^-53 + 0.07 * 3 * 2^-53 < 2^-52.2. */
static inline double ltm_erf_cx_d(double t)
{
    int64_t r = ltm_erf_cx_row(t);
    double s = t - lt_tab_erf_cx[r + 13];   /* exact: c/2 <= t <= 2c (Sterbenz) */
    return lt_tab_erf_cx[r] + ltm_erf_cx_tail(r, s);
}

/* erfcx(th + tl) as a double-double, 0.5 <= th < 32, |tl| <= ulp(th): relative error below
 * 2^-57.8 (method) + 0.07 * 3 * 2^-53 (the tail's roundings) + 0.07 * 2^-53 (the rounding of
 * s = (th - c) + tl, |s| <= half-width, times |erfcx'/erfcx|) < 0.3 * 2^-53.  Carrying tl
 * matters: erfcx's relative sensitivity t |erfcx'/erfcx| is about 1, so dropping tl would
 * cost up to an ulp. */
static inline lt_dd ltm_erf_cx_dd(double th, double tl)
{
    int64_t r = ltm_erf_cx_row(th);
    double s = (th - lt_tab_erf_cx[r + 13]) + tl;   /* the subtraction is exact */
    double q = ltm_erf_cx_tail(r, s);
    lt_dd v = lt_two_sum(lt_tab_erf_cx[r], q);
    v.lo += lt_tab_erf_cx[r + 1];
    return lt_fast_two_sum(v.hi, v.lo);
}

/* ---- the private exps of the erf family --------------------------------------------------
 * x = k ln2/64 + r, k = 64 m + j, |r| <= ln2/128 (1 + 2^-40); exp(x) = 2^m 2^(j/64) exp(r).
 * ln2/64 = L_hi + L_lo with L_hi of 36 bits: k L_hi is exact for |k| < 2^17 (|x| < 1400),
 * and x - k L_hi is exact (both are multiples of min(ulp(x), 2^-42) and the difference is
 * below 2^-7 in magnitude, so it fits in 53 bits).
 * (To be merged with the general exp family of lt_exp.h later.) */

/* exp(x) in double for -750 < x <= 0 with a normal result factor: returns exp(x) =
 * m * 2^e (the caller applies the power of two: see ltm_erf_exp_d).  Relative error of the
 * full value: r's rounding 2^-53 |r| plus k L_lo's (|r| <= 2^-7.5: below 2^-60), Taylor
 * truncation r^7/5040 < 2^-65, Horner roundings ~2^-53 |p| < 2^-60, T = T_hi + T_lo,
 * final rounding of T_hi + (T_hi p + T_lo) 2^-53 plus T_hi p's rounding 2^-53 |p| -> total
 * below 1.1 * 2^-53 < 2^-52.8. */
static inline double ltm_erf_exp_d(double x)
{
    const double L_hi = lt_tab_erf_const[2], L_lo = lt_tab_erf_const[3];
    const double inv_L = lt_tab_erf_const[4], shifter = 0x1.8p52;
    double tk = x * inv_L + shifter;
    double kf = tk - shifter;
    int64_t k = (int64_t)(lt_bits64(tk) - lt_bits64(shifter));   /* == kf, vectorises */
    double r = (x - kf * L_hi) - kf * L_lo;
    double p = r + r * r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720)))));
    int64_t j = k & 63;
    double th = lt_tab_erf_exp[2 * j], tl = lt_tab_erf_exp[2 * j + 1];
    double e = th + (th * p + tl);
    /* 2^m, m = (k - j)/64 >= -1022, built as ((k - j) << 46) + bits(1): no arithmetic
       shift (AVX2 has none on 64-bit lanes) */
    return e * lt_from_bits64(((uint64_t)(k - j) << 46) + 0x3FF0000000000000ull);
}

/* Same with FMA, for the fast functions: exp(x) = e 2^m returned as e (in [0.7, 1.5]) and
 * the bits of 2^m' with m' = m, or m + 200 when m < -1000 (then the caller multiplies by
 * 2^-200 last: a result deep in the subnormal range is rounded once). -1400 < x <= 0, and
 * xl is a small correction to the argument (the low part of a double-double). */
typedef struct { double e, s1, s2; } ltm_erf_expf_t;

static inline ltm_erf_expf_t ltm_erf_exp_fast(double x, double xl)
{
    const double L_hi = lt_tab_erf_const[2], L_lo = lt_tab_erf_const[3];
    const double inv_L = lt_tab_erf_const[4], shifter = 0x1.8p52;
    double tk = LT_FMA(x, inv_L, shifter);
    double kf = tk - shifter;
    int64_t k = (int64_t)(lt_bits64(tk) - lt_bits64(shifter));
    double r = LT_FMA(-kf, L_lo, LT_FMA(-kf, L_hi, x)) + xl;
    double p = LT_FMA(r * r, LT_FMA(r, LT_FMA(r, LT_FMA(r, LT_FMA(r, 1.0 / 720, 1.0 / 120), 1.0 / 24),
                                              1.0 / 6), 0.5), r);
    int64_t j = k & 63, km = k - j;                   /* 64 m */
    int64_t deep = km < -64000;
    km += -(int64_t)deep & 12800;
    double th = lt_tab_erf_exp[2 * j], tl = lt_tab_erf_exp[2 * j + 1];
    ltm_erf_expf_t v;
    v.e = th + LT_FMA(th, p, tl);
    v.s1 = lt_from_bits64(((uint64_t)km << 46) + 0x3FF0000000000000ull);
    v.s2 = ltm_erf_sel(deep, 0x1p-200, 1.0);
    return v;
}

/* ltm_erf_exp_dd: exp of a double-double argument xh + xl (-1400 < xh <= 1, |xl| <=
 * ulp(xh)), as a double-double mantissa times a power of two: exp(xh + xl) = (hi + lo) 2^k,
 * hi in [0.7, 1.5].  Relative error below 2^-64:
 *   r = rh + rl from x - k L_hi (exact) + (xl - k L_lo) (error < 2^-53 |k L_lo| < 2^-86);
 *   exp(r) - 1 = P = rh + rh^2 (1/2 + rh/6 + ... + rh^4/720) + rl (1 + rh): truncation
 *   rh^7/5040 < 2^-65, the rounding of the rh^2 part 3 * 2^-53 * 2^-16 < 2^-67, rl's
 *   neglected rl rh^2/2 and rl^2/2 < 2^-100;
 *   (T_hi + T_lo)(1 + P) in double-double (T_lo is 2^(j/64) - T_hi to 2^-106): < 2^-100.
 * The scale is returned, not applied, so that a result deep in the subnormal range keeps
 * its relative accuracy until its single final rounding. */
typedef struct { double hi, lo; int64_t k; } ltm_erf_expdd_t;

static inline ltm_erf_expdd_t ltm_erf_exp_dd(double xh, double xl)
{
    const double L_hi = lt_tab_erf_const[2], L_lo = lt_tab_erf_const[3];
    const double inv_L = lt_tab_erf_const[4], shifter = 0x1.8p52;
    double tk = xh * inv_L + shifter;
    double kf = tk - shifter;
    int64_t k = (int64_t)(lt_bits64(tk) - lt_bits64(shifter));
    double r1 = xh - kf * L_hi;                    /* exact */
    lt_dd rr = lt_two_sum(r1, xl - kf * L_lo);
    double rh = rr.hi, rl = rr.lo;
    double q = rh * rh * (0.5 + rh * (1.0 / 6 + rh * (1.0 / 24 + rh * (1.0 / 120 + rh * (1.0 / 720)))));
    lt_dd P = lt_fast_two_sum(rh, q);              /* |q| < |rh| */
    P.lo += rl + rl * rh;
    int64_t j = k & 63, m = (k - j) / 64;            /* exact division */
    double th = lt_tab_erf_exp[2 * j], tl = lt_tab_erf_exp[2 * j + 1];
    lt_dd a = lt_two_prod(th, P.hi);
    double lo = a.lo + (th * P.lo + (tl + tl * P.hi));
    lt_dd s = lt_fast_two_sum(th, a.hi);           /* th >= 1 > |a.hi| */
    s.lo += lo;
    s = lt_fast_two_sum(s.hi, s.lo);
    ltm_erf_expdd_t e = { s.hi, s.lo, m };
    return e;
}

/* 2^k for -1022 <= k <= 1023 */
static inline double ltm_erf_pow2(int64_t k)
{
    return lt_from_bits64((uint64_t)(k + 1023) << 52);
}

/* erf(th + tl) as a double-double for |th| < 0.5, |tl| <= ulp(th) (tl = 0 for erf itself).
 * Relative error: method 2^-58.3; z = th^2 rounded and the Horner roundings of the tail
 * z Q(z), which is at most 8% of C0 + z Q: < 0.08 * 3 * 2^-53; the two_sum and two_prod are
 * exact; tl's term erf'(th) tl uses exp(-z) ~ 1 - z + z^2/2 (relative 2^-8.6 of a term of
 * relative size 2^-53).  Total below 0.3 * 2^-53.  th must be at least 2^-960 (the Dekker
 * product's error terms must not underflow). */
static inline lt_dd ltm_erf_small_dd(double th, double tl)
{
    const double C0h = lt_tab_erf_small[0], C0l = lt_tab_erf_small[1];
    double z = th * th;
    double tail = z * ltm_erf_small_q(z);
    lt_dd S = lt_two_sum(C0h, tail);
    S.lo += C0l;
    lt_dd P = lt_two_prod(th, S.hi);
    P.lo += th * S.lo + tl * (C0h * (1.0 - z * (1.0 - 0.5 * z)));
    return lt_fast_two_sum(P.hi, P.lo);
}

/* ---- float32 erf, correctly rounded ---------------------------------------------------- */


static inline lt_dd ltm_erf_dd_div_d(lt_dd a, double b)
{
    double q1 = a.hi / b;
    lt_dd p = lt_two_prod(q1, b);
    double r = ((a.hi - p.hi) - p.lo) + a.lo;
    return lt_fast_two_sum(q1, r / b);
}

/* Accurate path: erf(x) for a float32 x, |x| < 4, by the Taylor series
 * erf(x) = C0 sum_n (-1)^n x^(2n+1) / (n! (2n+1)) in double-double.  x^2 is exact (24-bit x).
 * The largest term is below 2^20 (x = 4: 16^n/n!), each operation has relative error ~2^-104,
 * about 3 * 130 operations: absolute error below 2^-75 near x = 4, relative below 2^-95 for
 * small x; plenty for the float32 rounding decision. */
static inline float ltm_erf_accurate_f32(float xf)
{
    double x = xf, z = x * x;
    if (x == 0) return xf;                           /* keeps the sign of zero */
    lt_dd term = lt_dd_make(x, 0.0), sum = term;
    double lim = __builtin_fabs(x) * 0x1p-112;
    for (int n = 1; n < 400; n++) {
        term = ltm_erf_dd_div_d(lt_dd_mul_d(term, -z), (double)n);
        lt_dd add = ltm_erf_dd_div_d(term, (double)(2 * n + 1));
        sum = lt_dd_add(sum, add);
        if (__builtin_fabs(add.hi) < lim) break;
    }
    sum = lt_dd_mul(sum, lt_dd_make(lt_tab_erf_small[0], lt_tab_erf_small[1]));
    return lt_dd_to_f32(sum);
}

/* Pass 1 for one element: the double approximation y, its error bound err, and whether
 * Ziv's test fails.  Branch-free.
 *   |x| < 0.5: y = x (C0h + z Q(z)): method 2^-58.3, C0's lo dropped 2^-55.8, the tail's
 *     roundings < 0.08 * 3 * 2^-53, the sum and product roundings 2 * 2^-53: relative error
 *     below 2^-50.9; err = 2^-49 |y|.
 *   0.5 <= |x| < 4: erfc = E R, E = exp(-x^2) (x^2 exact; relative 2^-52.8), R = erfcx
 *     (2^-52.2), product rounding 2^-53: relative < 2^-50.9 of erfc <= 0.48, so absolute
 *     < 2^-51.9; 1 - E R rounds with 2^-54: absolute below 2^-51.3; err = 2^-49.
 *   |x| >= 4: erf(x) rounds to +-1 (1 - erf(4) = 1.5e-8 < 2^-25 = 3.0e-8), exactly.
 * Ambiguity is tested for the finite |x| < 4 only. */
typedef struct { double y, err; } ltm_erf_approx_t;
typedef struct { float f; int amb; } ltm_erf_p1_t;

/* The two branches of pass 1 on their own: |x| < 0.5, and the rest (NaN included). */
static inline ltm_erf_approx_t ltm_erf_approx32_small(double x)
{
    double z = x * x;
    ltm_erf_approx_t r;
    r.y = x * (lt_tab_erf_small[0] + z * ltm_erf_small_q(z));
    r.err = __builtin_fabs(r.y) * 0x1p-49;
    return r;
}

static inline ltm_erf_approx_t ltm_erf_approx32_large(double x)
{
    double ax = __builtin_fabs(x);
    double t = ltm_erf_sel(ax < 4.0, ax, 4.0);                 /* NaN -> 4 */
    double yB = 1.0 - ltm_erf_exp_d(-(t * t)) * ltm_erf_cx_d(t);
    yB = __builtin_copysign(yB, x);
    int64_t mid = ax < 4.0;
    ltm_erf_approx_t r;
    r.y = ltm_erf_sel(mid, yB, __builtin_copysign(1.0, x));
    r.err = ltm_erf_sel(mid, 0x1p-49, 0.0);
    return r;
}

static inline ltm_erf_p1_t ltm_erf_pass1_of(double x, ltm_erf_approx_t a)
{
    ltm_erf_p1_t r;
    r.amb = (x == x) & lt_f32_ambiguous(a.y, a.err);
    r.f = (float)ltm_erf_sel(x != x, __builtin_nan(""), a.y);
    return r;
}

/* The float32 erf's accurate path: the double first pass above (error below 2^-50.9,
 * Ziv's test at 2^-49) and, for the rare inputs it leaves open, the double-double series.
 * The same operations on every kernel path (no FMA). */
static inline float ltm_erf32_accurate(float xf)
{
    double x = xf;
    ltm_erf_p1_t r = ltm_erf_pass1_of(x, __builtin_fabs(x) < 0.5 ? ltm_erf_approx32_small(x)
                                                                : ltm_erf_approx32_large(x));
    return r.amb ? ltm_erf_accurate_f32(xf) : r.f;
}

/* ---- float32 erf, the first pass ---------------------------------------------------------
 * Correctly rounded on each kernel path on its own: the path's best arithmetic (an FMA on
 * the AVX2 and AVX-512 paths, a multiply and an add on the generic one), a proven error
 * bound, Ziv's test, and ltm_erf32_accurate for the inputs the test leaves open.  The
 * AVX-512 path computes the same FMAs in the same order as the AVX2 one (8 lanes instead of
 * 4), so the same bits; the generic path's bits are its own (verified on their own).
 *
 *   t = min(|x|, 3.9375) (NaN too: its lane is replaced): every x at or above 3.9375 has
 *   erf(x) in [erf(3.9375), 1), all of which round to 1.0f (1 - erf(3.9375) = 1.2e-8 <
 *   2^-25), and so does y there.  One formula for every lane: the piece k = floor(4t) (the
 *   mantissa's top 4 bits of t + 4, exact enough: a float32 t is never within 2^-51 below
 *   a multiple of 1/4), s = t - c_k (exact: c_0 = 0; else t and c_k = k/4 + 1/8 are
 *   multiples of 2^-25 within 1/8), p = a_0 + a_1 s + ... + a_9 s^9 by Estrin (lt_tab_erf32,
 *   tools/gen_erf_tables.py: method error 2^-45.0 relative, from 0 up: piece 0 is t times
 *   a polynomial, a_0 = 0).  The coefficients are picked per lane: two-register permutes on
 *   AVX-512, row loads transposed in registers on AVX2, loads on the generic path
 *   (ltm_vrows16).  Every term a_j s^j carries at most 9 units (2^-53) of relative rounding
 *   error, 11 without FMA (s^8's own is 7: s^2 squared twice; the steps add 2, or 4 when
 *   each rounds twice), and sum |a_j s^j| <= 1.93 erf(t) (the generator's condition
 *   number): below 11 * 1.93 * 2^-53 < 2^-48.9.  In all y is within 2^-44.9 |erf(x)|.
 * Ziv's test at 2^-41 |y| (2^12 units of y's last place, over eight times the bound): a
 * float32 midpoint that close, or a float32-subnormal result, sends the element to
 * ltm_erf32_accurate (about one in 2^16 of the inputs in [-4, 4]). */
#if LT_ERF32_DEG != 9
#error "ltm_erf32_vec is written out for pieces of degree 9"
#endif
#undef LTM_VFMA
#if LTM_GW == 8
#define LTM_VFMA(a, b, c) ((ltm_gvd)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
#elif LTM_GW == 4 && defined(__FMA__)
#define LTM_VFMA(a, b, c) ((ltm_gvd)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#else
#define LTM_VFMA(a, b, c) ((a) * (b) + (c))
#endif

/* The degree-9 polynomial of piece idx & 15 of a 16-piece table at s = t - c: its rows
 * (12 doubles: a_0 .. a_9, c, 0) and columns (ltm_vrows16), Estrin's scheme with the path's
 * FMA (Horner's 9 dependent FMAs leave the loop waiting on latency).  The erf's first pass
 * and the FMA paths' Gelu first pass (lt_gelu32.h). */
static inline __attribute__((always_inline)) ltm_gvd ltm_vpiece9(const double *rows, const double *cols,
                                                                 ltm_gvl idx, ltm_gvd t)
{
    ltm_gvd a[12];
    ltm_vrows16(a, rows, 12, cols, 11, idx);
    ltm_gvd s = t - a[10];
    ltm_gvd s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    ltm_gvd p01 = LTM_VFMA(a[1], s, a[0]), p23 = LTM_VFMA(a[3], s, a[2]);
    ltm_gvd p45 = LTM_VFMA(a[5], s, a[4]), p67 = LTM_VFMA(a[7], s, a[6]);
    ltm_gvd p89 = LTM_VFMA(a[9], s, a[8]);
    return LTM_VFMA(p89, s8, LTM_VFMA(LTM_VFMA(p67, s2, p45), s4, LTM_VFMA(p23, s2, p01)));
}

static inline __attribute__((always_inline)) ltm_gvf ltm_erf32_vec(ltm_gvf xf, ltm_gvl *ambiguous)
{
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvd t = ltm_vabs_clamped(x, 3.9375);
    ltm_gvl k = (ltm_gvl)((ltm_gvu)(t + 4.0) >> 48);        /* floor(4t) in the low 4 bits */
    ltm_gvd p = ltm_vpiece9(lt_tab_erf32_rows, lt_tab_erf32, k, t);
    ltm_gvd y = (ltm_gvd)((ltm_gvl)p | ((ltm_gvl)x & (int64_t)0x8000000000000000ull));   /* p >= 0 */
    ltm_gvf yf = __builtin_convertvector(y, ltm_gvf);
    ltm_gvi nan = xf != xf;
    *ambiguous = ltm_vziv(y, 0x1000) & (x == x);
    return (ltm_gvf)(((ltm_gvi)yf & ~nan) | (0x7FC00000 & nan));
}

LTM_VEC_TWO_PASS(ltm_erf, ltm_erf32_vec, ltm_erf32_accurate)

/* ---- float64 erf, faithful ---------------------------------------------------------------
 * |x| < 0.5: x (C0 + z Q) in double-double (ltm_erf_small_dd), one final rounding: error
 *   below 0.5 + 0.3 ulp (tiny x are scaled by 2^128 so that no Dekker term underflows; the
 *   final scaling back may round a second time, in the subnormal range: still < 1 ulp).
 * 0.5 <= |x| < 6: 1 - exp(-x^2) erfcx(|x|), x^2 exact (two_prod), exp and erfcx in
 *   double-double: erfc's relative error < 0.3 * 2^-53 (erfcx) + 2^-64, erfc <= 0.48 while
 *   erf >= 0.52: < 0.3 ulp before the final rounding.
 * |x| >= 6: +-1 (1 - erf(6) = 2.2e-17 < 2^-54). */
static inline double ltm_erf_f64(double x)
{
    /* branch-free: both forms on every lane (each on a harmless argument where it does not
     * apply: a table row must exist), then selects, so that the loop vectorises */
    double ax = __builtin_fabs(x);
    int small = ax < 0.5, tiny = ax < 0x1p-900;
    double up = lt_select(tiny, 0x1p128, 1.0), down = lt_select(tiny, 0x1p-128, 1.0);
    lt_dd v = ltm_erf_small_dd(lt_select(small, x, 0.25) * up, 0.0);
    double ys = __builtin_copysign((v.hi + v.lo) * down, x);   /* -0 + +0 would be +0 */
    double al = lt_select(small | !(ax < 6.0), 1.0, ax);
    lt_dd z = lt_two_prod(al, al);
    ltm_erf_expdd_t e = ltm_erf_exp_dd(-z.hi, -z.lo);
    lt_dd R = ltm_erf_cx_dd(al, 0.0);
    lt_dd P = lt_dd_mul(lt_dd_make(e.hi, e.lo), R);
    double sc = ltm_erf_pow2(e.k);                    /* k >= -53: P stays normal */
    lt_dd y = lt_fast_two_sum(1.0, -P.hi * sc);
    double yl = __builtin_copysign(y.hi + (y.lo - P.lo * sc), x);
    double r = lt_select(small, ys, lt_select(ax < 6.0, yl, __builtin_copysign(1.0, x)));
    return lt_select(x != x, __builtin_nan(""), r);
}
static __attribute__((flatten)) void ltm_erf_f64_chunk(int64_t n, double *restrict o,
                                                       const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_erf_f64(a[i]); }

/* ---- gelu(x) = x/2 erfc(-x/sqrt(2)) ------------------------------------------------------ */

/* float32, exact mode: one branch-free formula for every element, in double, a vector at a
 * time (GCC vector types; the generic path's first pass: lt_gelu32.h has the FMA paths'; the
 * table lookups are two-register permutes on AVX-512, row loads transposed in registers on
 * AVX2: ltm_vrows16, lt_tab_gelu32_rows).  With a = min(|x|, 14.5):
 *   T = a Phi(-a) = a E R,  E = exp(-a^2/2),  R(a) = Phi(-a) exp(a^2/2) (smooth, in (0, 1/2]);
 *   gelu(x) = x - T (x >= 0, T <= x/2: no cancellation), -T (x < 0, never 1 + erf).
 *   Beyond 14.5, -T rounds to -0 (14.5 E R < 2^-151) and x - T is x.  NaN -> canonical NaN.
 * E: z = a^2/2 is exact (a has 24 bits); -z = k ln2/16 + r, k = round(-z 16/ln2) (|k| <=
 *   2425), kd L_hi exact (40-bit L_hi) and -z - kd L_hi exact (both are multiples of 2^-53 when
 *   k != 0 and the difference is below 2^-5), r = that - kd L_lo: error < 2^-53 |r| + 2^-85;
 *   exp(r) = 1 + p, p = r + r^2 (e2 + e3 r) + r^4 (e4 + e5 r) (method 2^-45.6, roundings
 *   < 2^-58 since |r| < 2^-5.5); 2^(j/16) rounded (2^-53), times 2^(k >> 4) (exact: normal).
 *   With a: A = a 2^(k/16) (2^-53), A + A p (2 * 2^-53): a E within 2^-45.3.
 * R: 16 intervals, i = round(a al - 1/2 - a^2 be), a degree-9 polynomial in s = a - c_i each
 *   (lt_tab_gelu32_r: method 2^-41.5 on the intervals widened by 1e-9, which covers the
 *   rounding of the index).  Estrin's scheme: every term r_k s^k passes through at most 6
 *   roundings and sum |r_k s^k| <= 1.44 R (the generator's condition number): < 2^-49.3.
 * T = (a E) R: one more rounding; x - T or 0 - T: one more (T <= x/2, so relative to gelu).
 * The double result is within 2^-41 (relative) of gelu(x), so the float32 result is within
 * 0.5 + 2^-17 ulp (also where it is subnormal: the error is relative to a larger ulp). */
#if LT_GELU32_DEG != 9
#error "ltm_gelu32_vec evaluates R as a degree-9 polynomial (Estrin's scheme written out)"
#endif
static inline __attribute__((always_inline)) ltm_gvf ltm_gelu32_vec(ltm_gvf xf, ltm_gvl *ambiguous)
{
    const double *k = lt_tab_exp16_const, *rt = lt_tab_gelu32_r;
    const double al = lt_tab_gelu32_const[0], be = lt_tab_gelu32_const[1], clamp = lt_tab_gelu32_const[2];
    const double inv_l = k[0], l_hi = k[1], l_lo = k[2];
    const double shifter = 0x1.8p52;
    const ltm_gvl shifter_bits = (ltm_gvl)((ltm_gvd){0} + shifter);
    /* a = min(|x|, 14.5) (NaN -> 14.5; its lane is replaced at the end) */
    ltm_gvd x = ltm_vwiden(xf);
    ltm_gvd a = ltm_vabs_clamped(x, clamp);
    /* E = exp(-a^2/2); the chains are kept short (Estrin, products formed side by side):
     * the loop is bound by their latency more than by its operation count */
    ltm_gvd a2 = a * a, nz = -0.5 * a2;
    ltm_gvd tk = nz * inv_l + shifter, kd = tk - shifter;
    ltm_gvl kb = (ltm_gvl)tk - shifter_bits;
    ltm_gvd r = (nz - kd * l_hi) - kd * l_lo;
    ltm_gvd r2 = r * r;
    ltm_gvd p = (r + r2 * (k[3] + r * k[4])) + (r2 * r2) * (k[5] + r * k[6]);
    ltm_gvd scale = (ltm_gvd)(((kb + 1023 * 16) >> 4) << 52);
    ltm_gvd at = a * (scale * ltm_vpick16(lt_tab_exp16, kb));   /* a 2^(k/16) */
    /* R(a) */
    ltm_gvd g = (a * al - 0.5) - a2 * be;
    ltm_gvl idx = (ltm_gvl)(g + shifter) - shifter_bits;
    ltm_gvd col[12];                                  /* r_0 .. r_9, c */
    ltm_vrows16(col, lt_tab_gelu32_rows, 12, rt, 11, idx);
    ltm_gvd s = a - col[10];
#define LTM_GELU32_C(j) col[j]
    ltm_gvd s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    ltm_gvd p01 = LTM_GELU32_C(0) + LTM_GELU32_C(1) * s, p23 = LTM_GELU32_C(2) + LTM_GELU32_C(3) * s;
    ltm_gvd p45 = LTM_GELU32_C(4) + LTM_GELU32_C(5) * s, p67 = LTM_GELU32_C(6) + LTM_GELU32_C(7) * s;
    ltm_gvd p89 = LTM_GELU32_C(8) + LTM_GELU32_C(9) * s;
#undef LTM_GELU32_C
    ltm_gvd poly = ((p01 + p23 * s2) + (p45 + p67 * s2) * s4) + p89 * s8;
    /* T = a E R; gelu = x - T (x >= 0) or 0 - T (x < 0; T > 0 there, so the sign is -) */
    ltm_gvd tt = (at + at * p) * poly;
    ltm_gvd y = (ltm_gvd)((ltm_gvl)x & (ltm_gvl)(x >= 0.0)) - tt;
    ltm_gvf yf = __builtin_convertvector(y, ltm_gvf);
    ltm_gvi nan = xf != xf;
    /* Ziv's test with twice the proven bound (2^-40 |y| < 2^13 units of y's last place);
     * NaN lanes are not flagged */
    *ambiguous = ltm_vziv(y, 0x2000) & (x == x);
    return (ltm_gvf)(((ltm_gvi)yf & ~nan) | (0x7FC00000 & nan));
}

/* The accurate path and the two passes put together: lt_gelu32.h. */

/* float64: faithful.  T = x/sqrt(2) as a double-double (th + tl), u = |T|, z = x^2/2 exact.
 *   u < 0.5: erf(u) in double-double (relative 0.3 * 2^-53), C = 1 -+ erf(u) in double-double
 *     (>= 0.48: relative error < 0.33 * 2^-53);
 *   u >= 0.5: erfc(u) = exp(-z) erfcx(u) (2^-64 and 0.3 * 2^-53), C = erfc(u) (x < 0, the
 *     power of two kept apart until the end) or 2 - erfc(u) (x > 0);
 *   gelu = (x/2) C in double-double, rounded once (then scaled by 2^k, with a second
 *   rounding only in the subnormal range).  Total below 0.5 + 0.35 ulp.
 *   |x| < 2^-60: x/2 (the next term x^2/sqrt(2 pi) is below 2^-60 relative);
 *   x > 9: x (erfc(6.36)/2 < 2^-64); x < -39: -0 (|gelu(-39)| < 2^-1090). */
/* The double-double core of the float64 Gelu for xm with 2^-60 <= |xm| <= 39: gelu(xm) =
 * g.hi + g.lo where tail is 0, (gn.hi + gn.lo) 2^k where tail is 1 (x < 0, u >= 0.5: the
 * power of two kept apart).  Relative error below 0.35 * 2^-53 before the final rounding. */
typedef struct { lt_dd g, gn; int64_t k, tail; } ltm_gelu_dd_t;

static inline __attribute__((always_inline)) ltm_gelu_dd_t ltm_gelu_dd(double xm)
{
    double ax = __builtin_fabs(xm);
    double hx = 0.5 * xm;
    lt_dd T = lt_two_prod(ax, lt_tab_erf_const[0]);
    T.lo += ax * lt_tab_erf_const[1];
    T = lt_fast_two_sum(T.hi, T.lo);
    int small = T.hi < 0.5;
    /* u < 0.5: C = 1 -+ erf(u) */
    lt_dd es = ltm_erf_small_dd(lt_select(small, T.hi, 0.25), lt_select(small, T.lo, 0.0));
    lt_dd Cs = lt_dd_add_d(lt_dd_select(xm < 0, lt_dd_neg(es), es), 1.0);
    /* u >= 0.5: erfc(u) = exp(-x^2/2) erfcx(u) */
    lt_dd Tl = lt_dd_select(small, lt_dd_make(1.0, 0.0), T);
    double xl = lt_select(small, 1.0, xm);
    lt_dd z = lt_two_prod(xl, xl);
    ltm_erf_expdd_t e = ltm_erf_exp_dd(-0.5 * z.hi, -0.5 * z.lo);
    lt_dd R = ltm_erf_cx_dd(Tl.hi, Tl.lo);
    lt_dd P = lt_dd_mul(lt_dd_make(e.hi, e.lo), R);
    ltm_gelu_dd_t r;
    /* x < 0: (x/2) erfc(u) */
    r.gn = lt_dd_mul_d(P, hx);
    r.k = e.k;
    double sc = ltm_erf_pow2(e.k);                    /* x <= 9: k >= -60 */
    lt_dd Cl = lt_dd_add_d(lt_dd_make(-P.hi * sc, -P.lo * sc), 2.0);
    r.g = lt_dd_mul_d(lt_dd_select(small, Cs, Cl), hx);
    r.tail = !small & (xm < 0);
    return r;
}

static inline double ltm_gelu_f64(double x)
{
    /* branch-free as ltm_erf_f64: the end cases, then both forms on every lane */
    double ax0 = __builtin_fabs(x);
    int end = (x != x) | (ax0 < 0x1p-60) | (x > 9.0) | (x < -39.0);
    double xm = lt_select(end, 1.0, x);
    ltm_gelu_dd_t d = ltm_gelu_dd(xm);
    /* the power of two applied last, in two steps */
    int64_t k1 = d.k >> 1, k2 = d.k - k1;             /* k >= -1100 */
    double rn = ((d.gn.hi + d.gn.lo) * ltm_erf_pow2(k1)) * ltm_erf_pow2(k2);
    double r = lt_select(d.tail, rn, d.g.hi + d.g.lo);
    r = lt_select(x < -39.0, -0.0, r);
    r = lt_select(x > 9.0, x, r);
    r = lt_select(ax0 < 0x1p-60, 0.5 * x, r);
    return lt_select(x != x, __builtin_nan(""), r);
}
static __attribute__((flatten)) void ltm_gelu_f64_chunk(int64_t n, double *restrict o,
                                                        const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_gelu_f64(a[i]); }

/* ---- fast mode ---------------------------------------------------------------------------
 * float32: lower-degree tables (lt_tab_erf_small_fast, relative 2^-34.2; lt_tab_erf_cx_fast,
 * 2^-29.6) and a shorter exp (degree 4: r^5/120 < 2^-44), in double with FMA: the double
 * value is within ~2^-29 relative, so the float32 result is within 0.5 + 0.03 ulp.
 * float64: the exact-mode tables in double with FMA, without the double-double parts. */

static inline double ltm_erf_cx_fast32(double t)
{
    const double *c = lt_tab_erf_cx_fast;
    int64_t r = ((int64_t)(lt_bits64(t) >> 49) - 0x1FF0) * 8;
    double s = t - c[r + 7];
    double q = LT_FMA(c[r + 6], s, c[r + 5]);
    q = LT_FMA(q, s, c[r + 4]); q = LT_FMA(q, s, c[r + 3]); q = LT_FMA(q, s, c[r + 2]);
    return LT_FMA(q, s, c[r]);
}

static inline double ltm_erf_small_fast32(double z)
{
    const double *c = lt_tab_erf_small_fast;
    double q = LT_FMA(c[6], z, c[5]);
    q = LT_FMA(q, z, c[4]); q = LT_FMA(q, z, c[3]); q = LT_FMA(q, z, c[2]);
    return LT_FMA(q, z, c[0]);
}

/* exp(x) for -130 < x <= 0, relative error ~2^-51 (float32 fast functions only) */
static inline double ltm_erf_exp_fast32(double x)
{
    const double L_hi = lt_tab_erf_const[2], L_lo = lt_tab_erf_const[3];
    const double inv_L = lt_tab_erf_const[4], shifter = 0x1.8p52;
    double tk = LT_FMA(x, inv_L, shifter);
    double kf = tk - shifter;
    int64_t k = (int64_t)(lt_bits64(tk) - lt_bits64(shifter));
    double r = LT_FMA(-kf, L_lo, LT_FMA(-kf, L_hi, x));
    double p = LT_FMA(r * r, LT_FMA(r, LT_FMA(r, 1.0 / 24, 1.0 / 6), 0.5), r);
    int64_t j = k & 63;
    double th = lt_tab_erf_exp[2 * j];
    return LT_FMA(th, p, th) * lt_from_bits64(((uint64_t)(k - j) << 46) + 0x3FF0000000000000ull);
}

static inline double ltm_erf_fast_core(double x)
{
    double ax = __builtin_fabs(x), z = x * x;
    double yA = x * LT_FMA(z, ltm_erf_small_q_fma(z), lt_tab_erf_small[0]);
    double t = ltm_erf_sel(ax < 0.5, 0.5, ltm_erf_sel(ax < 6.0, ax, 6.0));
    int64_t r = ltm_erf_cx_row(t);
    double R = lt_tab_erf_cx[r] + ltm_erf_cx_tail_fma(r, t - lt_tab_erf_cx[r + 13]);
    ltm_erf_expf_t E = ltm_erf_exp_fast(-(t * t), 0.0);          /* t <= 6: s2 = 1 */
    double yB = __builtin_copysign(LT_FMA(-(E.e * E.s1), R, 1.0), x);
    double y = ltm_erf_sel(ax < 0.5, yA, ltm_erf_sel(ax < 6.0, yB, __builtin_copysign(1.0, x)));
    return ltm_erf_sel(x != x, x, y);
}

static inline double ltm_erf_f64_fast(double x) { return ltm_erf_fast_core(x); }
/* flatten: with the helpers left as calls the loop does not vectorise */
static __attribute__((flatten)) void ltm_erf_f64_fast_chunk(int64_t n, double *restrict o,
                                                            const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_erf_fast_core(a[i]); }

/* float32 fast form in float arithmetic (no tables, no division; ltm_expf_* from
 * lt_exp_fast.h), both branches computed and one picked per lane:
 *   |x| < 0.921875: erf(x) = x + x (a0 + a1 z + ... + a5 z^5), z = x^2, a0 = 2/sqrt(pi) - 1
 *     (so that its float rounding costs 2^-28, not 2^-25); a minimax fit, 2^-25.9;
 *   above: erf(a) = 1 - exp(Q(a - 1.75)), Q of degree 6 fitted to log erfc(a) on
 *     [0.921875, 4] with the weight erfc/erf, so its absolute error is what erf feels
 *     (2^-29.1 relative in erf); a is clamped to 4 (erfc(4) < 2^-25: 1 - E rounds to 1).
 *     exp(Q) = (1 + q) 2^k, k in [-25, -2]: 1 - 2^k is exact, the result one FMA.
 * Both fits by tools/fit_fast32.py. */
static inline float ltm_erf_f32_fast(float x)
{
    float z = x * x;
    float p = LT_FMAF(z, -0x1.3a3a6ep-11f, 0x1.47470ep-8f);
    p = LT_FMAF(z, p, -0x1.b68e02p-6f);
    p = LT_FMAF(z, p, 0x1.ce1abp-4f);
    p = LT_FMAF(z, p, -0x1.8126e8p-2f);
    p = LT_FMAF(z, p, 0x1.06eba6p-3f);
    float y_small = LT_FMAF(x, p, x);
    float ax = __builtin_fabsf(x);
    float v = (ax > 4.0f ? 4.0f : ax) - 1.75f;
    float q = LT_FMAF(v, 0x1.9ea61ap-13f, -0x1.017daap-10f);
    q = LT_FMAF(v, q, 0x1.2d7a82p-8f);
    q = LT_FMAF(v, q, -0x1.50902ap-6f);
    q = LT_FMAF(v, q, -0x1.d1e344p-1f);
    q = LT_FMAF(v, q, -0x1.fad48p+1f);
    q = LT_FMAF(v, q, -0x1.1457ep+2f);
    int32_t k;
    float r = ltm_expf_red(q, &k);
    float s = ltm_f32_pow2(k);
    float y_big = __builtin_copysignf(LT_FMAF(-s, ltm_expf_q(r), 1.0f - s), x);
    float y = ax < 0.921875f ? y_small : y_big;
    return x == x ? y : x;
}

/* gelu = x Phi(x) = x - T (x >= 0) or -T (x < 0), T = a Phi(-a), a = |x| (exact: no 1/sqrt 2
 * to round), so the negative tail keeps its relative accuracy and 1 + erf never appears
 * (x - T cancels at most one bit: T <= x/2).
 *   T = a R(a) exp(-a^2/2), R = Phi(-a) exp(a^2/2) (a Mills ratio, smooth and decreasing).
 *   a sqrt(2 pi) R(a) = M/(M + N), M = a (m1 + ... + m5 a^4), N = 1 + n1 a + ... + n4 a^4,
 *     a rational fit on [0.5, 14.5] with float coefficients (tools/fit_fast32.py, 2^-27.8);
 *     the same rounded M in numerator and denominator: its evaluation error enters only
 *     through N/(M + N), so the (large-a) Horner errors are damped; one division.
 *   exp(-a^2/2) = (1 + q) 2^k: a^2 = h + l exactly (ltm_f32_mul_lo), k and r from -h/2 by
 *     ltm_expf_red (exact up to the ln2 low part), l/2 folded into r, q = expm1(r).
 *   1/sqrt(2 pi) (rounded: the fit uses its float value) goes into the scale 2^(k - k1), and
 *     the result is fma(-T 2^k1, 2^(k - k1)/sqrt(2 pi), x or 0): rounded once, also when
 *     subnormal (2^k1 T is normal for k >= -152).
 *   a < 0.5: gelu = x/2 + x^2 Y(x^2), Y = (Phi(x) - 1/2)/x by a degree-3 fit (2^-25.1, the
 *     rounding of Y(0) = 1/sqrt(2 pi)); the x^2 Y term is at most 0.66 of the result.
 *   a is clamped to 14.5 (|gelu(-14.5)| < 2^-151 rounds to -0; x - T = x for large x);
 *   the sign is x's (also gelu(-0) = -0 and the underflowed negative tail -0); NaN from x. */
/* The terms both forms below share, for a = |x| (clamped or known small): returns T, with
 * gelu = x - T 2^k / sqrt(2 pi) (x >= 0) or its negative tail -T 2^k / sqrt(2 pi), and the
 * a < 0.5 form gS. */
static inline __attribute__((always_inline)) float ltm_gelu32_fast_terms(float x, float a,
                                                                         float *gS, int32_t *k)
{
    float h = a * a, l = ltm_f32_mul_lo(a, a, h);              /* a^2 = h + l */
    float y = LT_FMAF(h, -0x1.2dcaa2p-10f, 0x1.46ca08p-7f);
    y = LT_FMAF(h, y, -0x1.1058ap-4f);
    y = LT_FMAF(h, y, 0x1.988454p-2f);
    *gS = LT_FMAF(x, x * y, 0.5f * x);
    float r = ltm_expf_red(-0.5f * h, k);                       /* k >= -152 */
    float q = ltm_expf_q(LT_FMAF(l, -0.5f, r));
    float nv = LT_FMAF(a, 0x1.685268p-21f, 0x1.ea6274p-7f);
    nv = LT_FMAF(a, nv, 0x1.0a54ecp-3f);
    nv = LT_FMAF(a, nv, 0x1.fd9c0ep-2f);
    nv = LT_FMAF(a, nv, 1.0f);
    float mv = LT_FMAF(a, 0x1.eb72f2p-7f, 0x1.08ed56p-3f);
    mv = LT_FMAF(a, mv, 0x1.1268f6p-1f);
    mv = LT_FMAF(a, mv, 0x1.31c85ep+0f);
    mv = LT_FMAF(a, mv, 0x1.40d9d4p+0f);
    mv = mv * a;
    float F = mv / (mv + nv);                                  /* a sqrt(2 pi) R(a) */
    return LT_FMAF(F, q, F);
}
/* fma(-Ts, s, x or 0) where Ts s = T 2^k / sqrt(2 pi) exactly (Ts is T, or T 2^k1 with s
 * the rest of the scale), gS below a = 0.5, x's sign */
static inline __attribute__((always_inline)) float ltm_gelu32_fast_result(float x, float a,
                                                                          float gS, float Ts,
                                                                          float s)
{
    float base = x < 0.0f ? 0.0f : x;                          /* NaN stays */
    float g = LT_FMAF(-Ts, s, base);
    g = a < 0.5f ? gS : g;
    return __builtin_copysignf(g, x);
}
static inline float ltm_gelu_f32_fast(float x)
{
    /* a = min(|x|, 14.5) on the bits (ordered as integers; NaN -> 14.5): an integer min
     * keeps the compiler from pushing a float select through the products below */
    int32_t ia = ltm_f32_as_i32(x) & 0x7FFFFFFF;
    float a = ltm_i32_as_f32(ia < 0x41680000 ? ia : 0x41680000);
    float gS;
    int32_t k;
    float T = ltm_gelu32_fast_terms(x, a, &gS, &k);
    int32_t k1 = k >> 1;
    float Ts = T * ltm_f32_pow2(k1);                           /* exact */
    float s2 = ltm_f32_pow2(k - k1) * 0x1.988454p-2f;         /* exact: 2^(k-k1)/sqrt(2 pi) */
    return ltm_gelu32_fast_result(x, a, gS, Ts, s2);
}
/* The same values a chunk at a time, with a cheaper common case, as the fast exp's chunk
 * form does: for |x| <= 13 (k >= -122) 2^k / sqrt(2 pi) is a normal float, built by adding k
 * to the exponent bits of 1/sqrt(2 pi) rounded (0x3ECC422A): the product T 2^k / sqrt(2 pi)
 * inside the FMA is the one above, so are the bits, with six fewer vector operations and no
 * clamp.  The largest |x| bits are tracked (NaN lies above every finite and inf); a chunk
 * holding |x| > 13 or a NaN is done again by ltm_gelu_f32_fast (what the unclamped pass made
 * of it is never kept: its integers are unsigned). */
static inline float ltm_gelu_f32_fast_common(float x, uint32_t *amax)
{
    const uint32_t ia = (uint32_t)ltm_f32_as_i32(x) & 0x7FFFFFFFu;
    *amax = ia > *amax ? ia : *amax;
    float a = ltm_i32_as_f32((int32_t)ia);
    float gS;
    int32_t k;
    float T = ltm_gelu32_fast_terms(x, a, &gS, &k);
    float s = ltm_i32_as_f32((int32_t)(0x3ECC422Au + ((uint32_t)k << 23)));
    return ltm_gelu32_fast_result(x, a, gS, T, s);
}
static inline void ltm_gelu_f32_fast_chunk(int64_t n, float *restrict o, const float *restrict a)
{
    uint32_t amax = 0;
    for (int64_t i = 0; i < n; i++) o[i] = ltm_gelu_f32_fast_common(a[i], &amax);
    if (amax > 0x41500000u)                                    /* beyond 13, or NaN */
        for (int64_t i = 0; i < n; i++) o[i] = ltm_gelu_f32_fast(a[i]);
}

/* float64 fast: z = x^2/2 as an exact pair (Dekker's product: an FMA is not available on the
 * generic path, and the tail needs z's low part), and t = |x|/sqrt(2) with its low part too
 * (erfcx's relative sensitivity to t is about 1 ulp per ulp of t). */
static inline double ltm_gelu_f64_fast(double x)
{
    const double rs = lt_tab_erf_const[0];
    double ax = __builtin_fabs(x), u = ax * rs;
    double axc = ltm_erf_sel(ax < 40.0, ax, 40.0);                  /* NaN -> 40 */
    lt_dd zz = lt_two_prod(axc, axc);
    double zh = 0.5 * zz.hi, zl = 0.5 * zz.lo;
    double eA = u * LT_FMA(zh, ltm_erf_small_q_fma(zh), lt_tab_erf_small[0]);
    double t = ltm_erf_sel(u < 0.5, 0.5, ltm_erf_sel(u < 28.0, u, 28.0));
    lt_dd tt = lt_two_prod(axc, rs);                                /* u's rounding error */
    double tl = tt.lo + axc * lt_tab_erf_const[1];
    int64_t r = ltm_erf_cx_row(t);
    double R = lt_tab_erf_cx[r] + (ltm_erf_cx_tail_fma(r, (t - lt_tab_erf_cx[r + 13]) + tl) +
                                   lt_tab_erf_cx[r + 1]);
    double hx = 0.5 * x;
    ltm_erf_expf_t E = ltm_erf_exp_fast(-zh, -zl);
    int64_t small = u < 0.5, neg = x < 0;
    double gn = (((hx * R) * E.e) * E.s1) * E.s2;
    double C = ltm_erf_sel(small, ltm_erf_sel(neg, 1.0 - eA, 1.0 + eA), 2.0 - (E.e * E.s1) * R);
    double g = ltm_erf_sel(neg & !small, gn, hx * C);
    g = ltm_erf_sel(x < -39.0, -0.0, ltm_erf_sel(x > 9.0, x, g));
    g = ltm_erf_sel(ax < 0x1p-60, hx, g);
    return g;
}
/* flatten: with the helpers left as calls the loop does not vectorise */
static __attribute__((flatten)) void ltm_gelu_f64_fast_chunk(int64_t n, double *restrict o,
                                                             const double *restrict a)
{ for (int64_t i = 0; i < n; i++) o[i] = ltm_gelu_f64_fast(a[i]); }
