/* Scalar helpers used by the op bodies: float16 conversion, rounding, integer division
 * rules and the float remainder family (the transcendentals are the library's own, in
 * lt_<family>.h, pow in lt_pow.h).
 *
 * Everything that claims to be exact here is written with + - * /, comparisons and bit
 * operations only, so it gives the same bits on every machine.  fmod is the one C library
 * call allowed in exact ops: its result is exactly representable, so every correct
 * implementation returns the same bits.
 */
#ifndef LT_MATH_H
#define LT_MATH_H

#include <stdint.h>
#include <string.h>
#include <math.h>

#if defined(__FAST_MATH__)
#error "lazytensor kernels must not be built with -ffast-math: exact mode depends on IEEE semantics"
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "lazytensor kernels need FLT_EVAL_METHOD == 0 (no excess precision)"
#endif

#define LT_CHUNK 256

/* complex64 and complex128 elements: NumPy's interleaved (re, im) layout */
typedef struct { float re, im; } lt_c64;
typedef struct { double re, im; } lt_c128;

static inline uint64_t lt_bits64(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static inline double lt_from_bits64(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

/* Canonical quiet NaN with no payload and a positive sign. */
static inline float lt_canonf(float x) { return x != x ? __builtin_nanf("") : x; }
static inline double lt_canon(double x) { return x != x ? __builtin_nan("") : x; }

/* ---- float16 <-> double, exact in one direction, round-to-nearest-even in the other. */
static inline double lt_f16_to_f64(uint16_t h)
{
    uint64_t sign = (uint64_t)(h >> 15) << 63;
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0) {                      /* zero or subnormal: m * 2^-24 is exact */
        double v = (double)m * 0x1p-24;
        return lt_from_bits64(lt_bits64(v) | sign);
    }
    if (e == 31)                       /* inf, or NaN keeping its payload, made quiet */
        return lt_from_bits64(sign | 0x7FF0000000000000ull | ((uint64_t)m << 42) |
                              (m ? 0x0008000000000000ull : 0));
    return lt_from_bits64(sign | ((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)m << 42));
}

static inline uint16_t lt_f64_to_f16(double x)
{
    uint64_t b = lt_bits64(x);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    uint64_t ab = b & 0x7FFFFFFFFFFFFFFFull;
    if (ab > 0x7FF0000000000000ull)
        return 0x7E00;                 /* NaN: canonical quiet NaN */
    if (ab >= 0x40EFFE0000000000ull)   /* >= 65520: rounds to infinity */
        return sign | 0x7C00;
    if (ab < 0x3F10000000000000ull) {  /* < 2^-14: float16 subnormal, quantum 2^-24 */
        double t = lt_from_bits64(ab) * 0x1p24;   /* exact scaling, t < 1024 */
        t = (t + 0x1p52) - 0x1p52;                /* round to integer, ties to even */
        return sign | (uint16_t)t;                /* 1024 carries into the exponent */
    }
    uint32_t e = (uint32_t)((ab >> 52) - 1023 + 15);
    uint64_t m = ab & 0x000FFFFFFFFFFFFFull;
    uint64_t keep = m >> 42, rest = m & ((1ull << 42) - 1), half = 1ull << 41;
    if (rest > half || (rest == half && (keep & 1)))
        keep++;
    return sign | (uint16_t)((e << 10) + (uint32_t)keep);   /* a carry bumps the exponent */
}

/* ---- maximum and minimum with the operators' rules: a NaN operand wins, a tie gives b.
 * Written as the plain a > b ? a : b (one max instruction: it returns b on a tie and when
 * b is NaN) followed by a bitwise select of a where a is NaN.  gcc vectorises this to three
 * instructions; the equivalent ((a > b) | (a != a)) ? a : b became a dozen compares and
 * blends, and about 25 for a clip. */
#define LT_DEF_MINMAX(F, T, UT)                                                        \
    static inline T lt_select##F(int take_x, T x, T y)   /* take_x ? x : y, on bits */ \
    {                                                                                  \
        UT m = -(UT)take_x, ux, uy;                                                    \
        memcpy(&ux, &x, sizeof ux);                                                    \
        memcpy(&uy, &y, sizeof uy);                                                    \
        ux = (m & ux) | (~m & uy);                                                     \
        memcpy(&x, &ux, sizeof ux);                                                    \
        return x;                                                                      \
    }                                                                                  \
    static inline T lt_max##F(T a, T b) { return lt_select##F(a != a, a, a > b ? a : b); } \
    static inline T lt_min##F(T a, T b) { return lt_select##F(a != a, a, a < b ? a : b); }

LT_DEF_MINMAX(f, float, uint32_t)
LT_DEF_MINMAX(, double, uint64_t)

/* ---- rounding to integral values, own code (no libm): identical bits everywhere. */
#define LT_DEF_ROUNDING(F, T, BIG)                                                     \
    static inline __attribute__((always_inline)) T lt_trunc##F(T x)                    \
    {   /* always inlined: a call from an AVX path's code costs (lt_dd.h) */          \
        /* |x| rounded to an integer by the BIG addition, one less where that rounded  \
           up; large |x|, inf and NaN pass through.  Branch-free, so the loops         \
           vectorise (a conversion to an integer needed a branch around its range). */\
        T ax = __builtin_fabs##F(x);                                                   \
        T r = (ax + BIG) - BIG;                                                        \
        r = r > ax ? r - (T)1 : r;                                                     \
        return lt_select##F(ax < BIG, __builtin_copysign##F(r, x), x);                 \
    }                                                                                  \
    static inline T lt_floor##F(T x)                                                   \
    {                                                                                  \
        T t = lt_trunc##F(x);                                                          \
        return t > x ? t - (T)1 : t;                                                   \
    }                                                                                  \
    static inline T lt_ceil##F(T x)                                                    \
    {                                                                                  \
        T t = lt_trunc##F(x);                                                          \
        return t < x ? t + (T)1 : t;                                                   \
    }                                                                                  \
    static inline T lt_round##F(T x)                                                   \
    {                                                                                  \
        T ax = __builtin_fabs##F(x);                                                   \
        if (!(ax < BIG)) return x;                                                     \
        T r = (ax + BIG) - BIG;          /* the addition rounds half to even */        \
        return __builtin_copysign##F(r, x);                                            \
    }                                                                                  \
    static inline T lt_clamp01##F(T t)   /* min(max(t, 0), 1) with Max/Min's rules */  \
    {                                                                                  \
        return lt_min##F(lt_max##F(t, (T)0), (T)1);                                    \
    }                                                                                  \
    static inline T lt_clip##F(T a, T lo, T hi)   /* minimum(maximum(a, lo), hi) */    \
    {                                                                                  \
        return lt_min##F(lt_max##F(a, lo), hi);                                        \
    }

LT_DEF_ROUNDING(f, float, 0x1p23f)
LT_DEF_ROUNDING(, double, 0x1p52)

/* ---- nextafter by stepping the bit pattern (no libm): exact everywhere. */
/* nextafter as selects, no early returns: gcc vectorised the fast-mode loop of the branchy
 * form only through the canonicalising wrapper of exact mode (1.6 ns per element against 0.27) */
static inline double lt_nextafter(double x, double y)
{
    const uint64_t u = lt_bits64(x);
    double r = lt_from_bits64(((x < y) == (x > 0)) ? u + 1 : u - 1);  /* away from zero, or toward it */
    r = x == 0 ? (y > 0 ? 0x1p-1074 : -0x1p-1074) : r;
    r = x == y ? y : r;                           /* also gives y's sign for zeros */
    return (x != x) | (y != y) ? x + y : r;       /* NaN */
}
static inline float lt_nextafterf(float x, float y)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u = ((x < y) == (x > 0)) ? u + 1 : u - 1;
    float r;
    memcpy(&r, &u, 4);
    r = x == 0 ? (y > 0 ? 0x1p-149f : -0x1p-149f) : r;
    r = x == y ? y : r;
    return (x != x) | (y != y) ? x + y : r;
}

static inline uint16_t lt_nextafter_f16(uint16_t x, uint16_t y)
{
    double dx = lt_f16_to_f64(x), dy = lt_f16_to_f64(y);
    if (dx != dx || dy != dy) return 0x7E00;
    if (dx == dy) return y;
    if (dx == 0) return dy > 0 ? 0x0001 : 0x8001;
    return ((dx < dy) == (dx > 0)) ? (uint16_t)(x + 1) : (uint16_t)(x - 1);
}

/* ---- float remainder family, following NumPy's divmod (fmod is exact) except for the
 * infinite operands of floor division (see lt_floordiv). */
#define LT_DEF_DIVMOD(F, T)                                                            \
    static inline T lt_fmod##F(T a, T b) { return fmod##F(a, b); }                     \
    static inline T lt_mod_floor##F(T a, T b)                                          \
    {                                                                                  \
        T m = fmod##F(a, b);                                                           \
        if (b == 0) return m;                                                          \
        if (m != 0) {                                                                  \
            if ((b < 0) != (m < 0)) m += b;                                            \
        } else {                                                                       \
            m = __builtin_copysign##F((T)0, b);                                        \
        }                                                                              \
        return m;                                                                      \
    }                                                                                  \
    static inline T lt_floordiv##F(T a, T b)                                           \
    {                                                                                  \
        /* floor(a / b) where an operand is infinite or b is zero (the Array API's     \
           choice; NumPy gives NaN for inf // 1 and -1 for -1 // inf) */               \
        if (b == 0 || __builtin_isinf(a) || __builtin_isinf(b)) return a / b;          \
        T m = fmod##F(a, b);                                                           \
        T d = (a - m) / b;                                                             \
        if (m != 0 && ((b < 0) != (m < 0))) d -= (T)1;                                 \
        if (d == 0) return __builtin_copysign##F((T)0, a / b);                         \
        T f = lt_floor##F(d);                                                          \
        if (d - f > (T)0.5) f += (T)1;                                                 \
        return f;                                                                      \
    }

LT_DEF_DIVMOD(f, float)
LT_DEF_DIVMOD(, double)

/* ---- division by a divisor that is one value over the whole kernel (a scalar register:
 * x / 0.05).  Exact mode: the IEEE quotient, as divide.  Fast mode: x * RN(1/c), a multiply
 * instead of a division (a fifth of its time per element in L1).  |x/c - x*RN(1/c)| <
 * ulp(x/c) before the product's rounding, so the result is within 1.5 ulp, provided 1/c is
 * a normal number; c = +-0, +-inf or NaN give the quotient's special values too (x * inf,
 * x * 0, NaN).  Otherwise (1/c subnormal, or infinite for a subnormal c) the division. */
#define LT_DEF_DIV_SCALAR(F, T, TMIN)                                                  \
    /* fast mode's choice: multiply by *r = RN(1/c) (1), or divide (0) */                \
    static inline int lt_div_scalar##F##_multiplies(T c, T *r)                         \
    {                                                                                  \
        const T ar = __builtin_fabs##F(*r = (T)1 / c);                                 \
        return !((ar > 0 && ar < (T)TMIN) || (ar == (T)__builtin_inf() && c != 0));    \
    }                                                                                  \
    static inline void lt_div_scalar##F##_chunk(int64_t n, T *restrict o,              \
                                                const T *restrict a, const T *restrict b, \
                                                int exact)                             \
    {                                                                                  \
        const T c = b[0];                                                              \
        T r;                                                                           \
        if (exact)                                                                     \
            for (int64_t i = 0; i < n; i++) o[i] = lt_canon##F(a[i] / c);              \
        else if (!lt_div_scalar##F##_multiplies(c, &r))                                \
            for (int64_t i = 0; i < n; i++) o[i] = a[i] / c;                           \
        else                                                                           \
            for (int64_t i = 0; i < n; i++) o[i] = a[i] * r;                           \
    }

LT_DEF_DIV_SCALAR(f, float, 0x1p-126f)
LT_DEF_DIV_SCALAR(, double, 0x1p-1022)


/* ---- integer division rules: x/0 and x%0 give 0, MIN/-1 wraps to MIN, MIN%-1 is 0. */
#define LT_SAFE_DEN(b) ((b) == 0 || (b) == -1 ? 1 : (b))
#define LT_IDIV_TRUNC(T, UT, TMIN, a, b)                                               \
    ((T)((b) == 0 ? 0 : (b) == -1 ? (T)(0 - (UT)(a)) : (a) / LT_SAFE_DEN(b)))
#define LT_IMOD_TRUNC(T, a, b) ((T)(((b) == 0 || (b) == -1) ? 0 : (a) % LT_SAFE_DEN(b)))
/* the floor corrections with & rather than &&: with mixed signs a short-circuit is a
 * branch the predictor misses half the time (about 3x the time of the division itself) */
#define LT_IDIV_FLOOR(T, UT, TMIN, a, b)                                               \
    ((T)(LT_IDIV_TRUNC(T, UT, TMIN, a, b) -                                            \
         ((LT_IMOD_TRUNC(T, a, b) != 0) & (((a) < 0) != ((b) < 0)))))
#define LT_IMOD_FLOOR(T, a, b)                                                         \
    ((T)(LT_IMOD_TRUNC(T, a, b) +                                                      \
         (((LT_IMOD_TRUNC(T, a, b) != 0) & ((LT_IMOD_TRUNC(T, a, b) < 0) != ((b) < 0))) \
              ? (b) : 0)))

/* Integer power by repeated squaring, wrapping; a negative exponent truncates 1/a^|b|. */
static inline uint64_t lt_ipow_u64(uint64_t base, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
    }
    return r;
}
static inline int64_t lt_ipow_i64(int64_t base, int64_t e)
{
    if (e < 0) {
        if (base == 1) return 1;
        if (base == -1) return (e & 1) ? -1 : 1;
        return 0;
    }
    return (int64_t)lt_ipow_u64((uint64_t)base, (uint64_t)e);
}

#endif
