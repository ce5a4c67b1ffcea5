/* Double-double arithmetic for the exact math functions' accurate paths.
 *
 * A value is hi + lo with |lo| <= ulp(hi)/2, about 106 significant bits.  Only + - * /
 * are used, never an FMA (the exact-mode contract: the same bits on every path, and the
 * build has -ffp-contract=off, so the error-free transforms below stay error free).
 * Products use Veltkamp splitting; inputs must stay below 2^995 in magnitude so the split
 * does not overflow (the math functions only call these on reduced arguments).
 */
#ifndef LT_DD_H
#define LT_DD_H

/* Inlined wherever they are called: compiled once for the baseline (SSE2), a call from an AVX
 * path's code runs SSE code with the upper vector state dirty, which Intel cores charge for at
 * each call (docs/exact-math.md, "Calls between kernel paths").  Inlined, they are the same
 * IEEE operations (-ffp-contract=off). */
#define LT_DD_INLINE static inline __attribute__((always_inline))

typedef struct { double hi, lo; } lt_dd;

LT_DD_INLINE lt_dd lt_dd_make(double hi, double lo) { lt_dd r = { hi, lo }; return r; }

/* s + e == a + b exactly, for any a, b */
LT_DD_INLINE lt_dd lt_two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return lt_dd_make(s, (a - (s - bb)) + (b - bb));
}

/* s + e == a + b exactly, when |a| >= |b| (or a == 0) */
LT_DD_INLINE lt_dd lt_fast_two_sum(double a, double b)
{
    double s = a + b;
    return lt_dd_make(s, b - (s - a));
}

/* hi + lo == a with both halves of at most 26 significant bits */
LT_DD_INLINE lt_dd lt_split(double a)
{
    double c = 134217729.0 * a;  /* 2^27 + 1 */
    double hi = c - (c - a);
    return lt_dd_make(hi, a - hi);
}

/* p + e == a * b exactly (Dekker) */
LT_DD_INLINE lt_dd lt_two_prod(double a, double b)
{
    double p = a * b;
    lt_dd as = lt_split(a), bs = lt_split(b);
    double e = ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
    return lt_dd_make(p, e);
}

LT_DD_INLINE lt_dd lt_dd_add(lt_dd x, lt_dd y)
{
    lt_dd s = lt_two_sum(x.hi, y.hi), t = lt_two_sum(x.lo, y.lo);
    s.lo += t.hi;
    s = lt_fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return lt_fast_two_sum(s.hi, s.lo);
}

LT_DD_INLINE lt_dd lt_dd_add_d(lt_dd x, double y)
{
    lt_dd s = lt_two_sum(x.hi, y);
    s.lo += x.lo;
    return lt_fast_two_sum(s.hi, s.lo);
}

/* take_x ? x : y, on bits (lt_select per half: keeps loops vectorisable) */
LT_DD_INLINE lt_dd lt_dd_select(int take_x, lt_dd x, lt_dd y)
{
    return lt_dd_make(lt_select(take_x, x.hi, y.hi), lt_select(take_x, x.lo, y.lo));
}

LT_DD_INLINE lt_dd lt_dd_neg(lt_dd x) { return lt_dd_make(-x.hi, -x.lo); }

LT_DD_INLINE lt_dd lt_dd_sub(lt_dd x, lt_dd y) { return lt_dd_add(x, lt_dd_neg(y)); }

LT_DD_INLINE lt_dd lt_dd_mul(lt_dd x, lt_dd y)
{
    lt_dd p = lt_two_prod(x.hi, y.hi);
    p.lo += x.hi * y.lo + x.lo * y.hi;
    return lt_fast_two_sum(p.hi, p.lo);
}

LT_DD_INLINE lt_dd lt_dd_mul_d(lt_dd x, double y)
{
    lt_dd p = lt_two_prod(x.hi, y);
    p.lo += x.lo * y;
    return lt_fast_two_sum(p.hi, p.lo);
}

LT_DD_INLINE lt_dd lt_dd_div(lt_dd x, lt_dd y)
{
    /* two Newton-style corrections of the double quotient */
    double q1 = x.hi / y.hi;
    lt_dd r = lt_dd_sub(x, lt_dd_mul_d(y, q1));
    double q2 = r.hi / y.hi;
    r = lt_dd_sub(r, lt_dd_mul_d(y, q2));
    double q3 = r.hi / y.hi;
    lt_dd q = lt_fast_two_sum(q1, q2);
    return lt_dd_add_d(q, q3);
}

/* sum_{i<n} c[i] * x^i by Horner's rule in double-double, coefficients as (hi, lo) pairs */
LT_DD_INLINE lt_dd lt_dd_horner(const lt_dd *c, int n, lt_dd x)
{
    lt_dd acc = c[n - 1];
    for (int i = n - 2; i >= 0; i--)
        acc = lt_dd_add(lt_dd_mul(acc, x), c[i]);
    return acc;
}

/* Ziv's rounding test for float32 results: y approximates the true value with an absolute
 * error of at most err.  If y - err and y + err round to the same float32, that float32 is
 * the correctly rounded result; otherwise the caller must recompute more accurately.
 * Branch-free, so it vectorises; works in the subnormal and overflow ranges alike. */
LT_DD_INLINE int lt_f32_ambiguous(double y, double err)
{
    return (float)(y - err) != (float)(y + err);
}

/* hi + lo (|lo| <= |hi|) correctly rounded to float32, ties to even: first rounded to odd
 * at double precision (an inexact sum that came out even steps to its odd neighbour on lo's
 * side, so the sticky information survives), then to nearest float32; with 53 >= 24 + 2 bits
 * this double rounding is exact, also for subnormal float32 results. */
LT_DD_INLINE float lt_dd_to_f32(lt_dd x)
{
    double s = x.lo == 0 ? x.hi : x.hi + x.lo;     /* keeps the sign of a zero hi */
    double e = x.lo - (s - x.hi);
    uint64_t b;
    memcpy(&b, &s, 8);
    if (e != 0 && (b & 1) == 0)
        b = ((e > 0) == (s > 0)) ? b + 1 : b - 1;
    memcpy(&s, &b, 8);
    return (float)s;
}

/* The elements of a chunk whose flag is set, gathered: their positions in at[], their values
 * (as double) in x[]; returns how many.  Only the count carries from one element to the next
 * (a flag computed in this loop would put its whole computation on that chain). */
static inline int64_t lt_gather_flagged(int64_t n, const float *restrict a,
                                        const int32_t *restrict flag,
                                        int32_t *restrict at, double *restrict x)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        at[m] = (int32_t)i;
        x[m] = a[i];
        m += flag[i];
    }
    return m;
}

/* The float32 exact forms of a function made of two parts: P1(x, &flag), the double main
 * path (branch-free, vectorisable; flag != 0 where Ziv's test or a special value leaves the
 * result open) and ACC(x), the accurate path.  Defines NAME_f32 (scalar) and NAME_f32_chunk
 * (pass 1 over the chunk, then pass 2 over the flagged elements only). */
#define LT_F32_TWO_PASS(NAME, P1, ACC)                                                    \
    static inline float NAME##_f32(float x)                                              \
    {                                                                                      \
        int64_t amb;                                                                       \
        float r = P1(x, &amb);                                                             \
        return amb ? ACC(x) : r;                                                           \
    }                                                                                      \
    static inline void NAME##_f32_chunk(int64_t n, float *restrict o,                     \
                                        const float *restrict a)                           \
    {                                                                                      \
        int64_t fl[LT_CHUNK], any = 0;                                                     \
        for (int64_t i = 0; i < n; i++) {                                                  \
            int64_t f;                                                                     \
            o[i] = P1(a[i], &f);                                                           \
            fl[i] = f;                                                                     \
            any |= f;                                                                      \
        }                                                                                  \
        if (any)                                                                           \
            for (int64_t i = 0; i < n; i++)                                                \
                if (fl[i]) o[i] = ACC(a[i]);                                               \
    }

#endif /* LT_DD_H */
