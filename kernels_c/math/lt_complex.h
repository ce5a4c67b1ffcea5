/* Complex arithmetic on interleaved (re, im) pairs: the bodies of the table's complex ops
 * (the ``cc`` column of lazytensor/_engine/ops.py).  Every function is written with + - * /
 * and comparisons only, each product and sum rounded on its own (the kernels are compiled
 * with -ffp-contract=off), so every kernel path computes the same bits.  The formulas are
 * NumPy's own loops (multiply, square: the textbook products; divide: Smith's method;
 * reciprocal: its scaled form), with C99 Annex G's recovery of infinities where they give
 * NaN + NaN i.  Differences from NumPy: docs/complex.md.
 * Pasted into every kernel-path region by the build; names start with ltm_. */

#define LTM_COMPLEX(C, T, R)                                                                  \
static inline T ltm_canon##C(T z)                                                             \
{                                                                                             \
    T o = { z.re != z.re ? (R)__builtin_nan("") : z.re, z.im != z.im ? (R)__builtin_nan("") : z.im }; \
    return o;                                                                                 \
}                                                                                             \
static inline int ltm_isinf##C(R x) { return x == (R)INFINITY || x == -(R)INFINITY; }         \
static inline R ltm_box##C(R x) { return __builtin_copysign(ltm_isinf##C(x) ? (R)1 : (R)0, x); } \
/* Annex G (G.5.1): a product with an infinite operand is infinite; only when the textbook \
 * products gave NaN + NaN i */                                                               \
static inline T ltm_cmul_recover##C(R a, R b, R c, R d, T z)                                 \
{                                                                                             \
    int recalc = 0;                                                                           \
    if (ltm_isinf##C(a) || ltm_isinf##C(b)) {                                                 \
        a = ltm_box##C(a); b = ltm_box##C(b);                                                 \
        if (c != c) c = __builtin_copysign((R)0, c);                                          \
        if (d != d) d = __builtin_copysign((R)0, d);                                          \
        recalc = 1;                                                                           \
    }                                                                                         \
    if (ltm_isinf##C(c) || ltm_isinf##C(d)) {                                                 \
        c = ltm_box##C(c); d = ltm_box##C(d);                                                 \
        if (a != a) a = __builtin_copysign((R)0, a);                                          \
        if (b != b) b = __builtin_copysign((R)0, b);                                          \
        recalc = 1;                                                                           \
    }                                                                                         \
    if (recalc) {                                                                             \
        const R ac = a * c, bd = b * d, ad = a * d, bc = b * c;                               \
        T o = { (R)INFINITY * (ac - bd), (R)INFINITY * (ad + bc) };                           \
        return o;                                                                             \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
/* (a + bi)(c + di): two products and a sum per part, as NumPy's loop writes it */            \
static inline T ltm_cmul##C(T x, T y)                                                         \
{                                                                                             \
    const R ac = x.re * y.re, bd = x.im * y.im, ad = x.re * y.im, bc = x.im * y.re;           \
    T z = { ac - bd, ad + bc };                                                               \
    if (__builtin_expect(z.re != z.re && z.im != z.im, 0))                                    \
        return ltm_cmul_recover##C(x.re, x.im, y.re, y.im, z);                                \
    return z;                                                                                 \
}                                                                                             \
static inline T ltm_csquare##C(T x)                                                           \
{                                                                                             \
    const R aa = x.re * x.re, bb = x.im * x.im, ab = x.re * x.im, ba = x.im * x.re;           \
    T z = { aa - bb, ab + ba };                                                               \
    if (__builtin_expect(z.re != z.re && z.im != z.im, 0))                                    \
        return ltm_cmul_recover##C(x.re, x.im, x.re, x.im, z);                                \
    return z;                                                                                 \
}                                                                                             \
/* Annex G (G.5.1, the _Cdivd example): x / 0 is infinite, inf / finite infinite, finite / \
 * inf zero; only when Smith's quotient gave NaN + NaN i */                                   \
static inline T ltm_cdiv_recover##C(R a, R b, R c, R d, T z)                                 \
{                                                                                             \
    const int a_nan = a != a, b_nan = b != b;                                                 \
    if (c == 0 && d == 0 && (!a_nan || !b_nan)) {                                             \
        const R inf = __builtin_copysign((R)INFINITY, c);                                     \
        T o = { inf * a, inf * b };                                                           \
        return o;                                                                             \
    }                                                                                         \
    const int cd_finite = c - c == 0 && d - d == 0;                                           \
    if ((ltm_isinf##C(a) || ltm_isinf##C(b)) && cd_finite) {                                  \
        a = ltm_box##C(a); b = ltm_box##C(b);                                                 \
        const R ac = a * c, bd = b * d, bc = b * c, ad = a * d;                               \
        T o = { (R)INFINITY * (ac + bd), (R)INFINITY * (bc - ad) };                           \
        return o;                                                                             \
    }                                                                                         \
    if ((ltm_isinf##C(c) || ltm_isinf##C(d)) && a - a == 0 && b - b == 0) {                   \
        c = ltm_box##C(c); d = ltm_box##C(d);                                                 \
        const R ac = a * c, bd = b * d, bc = b * c, ad = a * d;                               \
        T o = { (R)0 * (ac + bd), (R)0 * (bc - ad) };                                         \
        return o;                                                                             \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
/* Smith's method exactly as NumPy's loop computes it (same operations, same order) */        \
static inline T ltm_cdiv##C(T x, T y)                                                         \
{                                                                                             \
    const R a = x.re, b = x.im, c = y.re, d = y.im;                                           \
    const R ac_ = __builtin_fabs(c), ad_ = __builtin_fabs(d);                                 \
    T z;                                                                                      \
    if (ac_ >= ad_) {                                                                         \
        if (ac_ == 0 && ad_ == 0) {                                                           \
            z.re = a / ac_;                                                                   \
            z.im = b / ad_;                                                                   \
        } else {                                                                              \
            const R rat = d / c, scl = (R)1 / (c + d * rat);                                  \
            z.re = (a + b * rat) * scl;                                                       \
            z.im = (b - a * rat) * scl;                                                       \
        }                                                                                     \
    } else {                                                                                  \
        const R rat = c / d, scl = (R)1 / (d + c * rat);                                      \
        z.re = (a * rat + b) * scl;                                                           \
        z.im = (b * rat - a) * scl;                                                           \
    }                                                                                         \
    if (__builtin_expect(z.re != z.re && z.im != z.im, 0))                                    \
        return ltm_cdiv_recover##C(a, b, c, d, z);                                            \
    return z;                                                                                 \
}                                                                                             \
/* 1 / z as NumPy's loop computes it; Annex G's cases as 1 / z by ltm_cdiv */                 \
static inline T ltm_creciprocal##C(T x)                                                       \
{                                                                                             \
    const R a = x.re, b = x.im;                                                               \
    T z;                                                                                      \
    if (__builtin_fabs(b) <= __builtin_fabs(a)) {                                             \
        const R r = b / a, d = a + b * r;                                                     \
        z.re = (R)1 / d;                                                                      \
        z.im = -r / d;                                                                        \
    } else {                                                                                  \
        const R r = a / b, d = a * r + b;                                                     \
        z.re = r / d;                                                                         \
        z.im = (R)-1 / d;                                                                     \
    }                                                                                         \
    if (__builtin_expect(z.re != z.re && z.im != z.im, 0))                                    \
        return ltm_cdiv_recover##C((R)1, (R)0, a, b, z);                                      \
    return z;                                                                                 \
}

LTM_COMPLEX(_f32, lt_c64, float)
LTM_COMPLEX(_f64, lt_c128, double)
#undef LTM_COMPLEX
