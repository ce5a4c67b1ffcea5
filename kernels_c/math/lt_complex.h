/* Complex arithmetic on interleaved (re, im) pairs: the bodies of the table's complex ops
 * (the ``cc`` column of lazytensor/_engine/ops.py).  Every function is written with + - * /
 * and comparisons only, each product and sum rounded on its own (the kernels are compiled
 * with -ffp-contract=off), so every kernel path computes the same bits.  The formulas are
 * NumPy's own loops (multiply, square: the textbook products; divide: Smith's method;
 * reciprocal: its scaled form), with C99 Annex G's recovery of infinities where they give
 * NaN + NaN i.  Differences from NumPy: docs/complex.md.
 * Pasted into every kernel-path region by the build; names start with ltm_. */

/* v as computed, opaque to the optimiser: gcc 12's SLP vectoriser packs a complex formula's
 * two parts into one vector and fuses its products with the alternating add/subtract into
 * FMADDSUB/FMSUBADD on the FMA paths, -ffp-contract=off notwithstanding (then the avx2
 * path's bits differ from the generic path's: found in divide and reciprocal, where the
 * inlining depends on the size of the whole unit).  Every product that meets a sum in
 * the scalar formulas below goes through it; the vectorised chunk loops keep the parts in
 * separate arrays instead. */
#if defined(__x86_64__) || defined(__i386__)
#define LTM_OPAQUE(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define LTM_OPAQUE(v) __asm__("" : "+w"(v))
#else
#define LTM_OPAQUE(v) __asm__("" : "+m"(v))
#endif
#define LTM_OPAQUE4(p, q, r, s) do { LTM_OPAQUE(p); LTM_OPAQUE(q); LTM_OPAQUE(r); LTM_OPAQUE(s); } while (0)

/* 2^k, |k| within the normal exponents; the exponent of a finite x (of a subnormal: the
 * least normal one's); ltm_scale multiplies by 2^e in steps that neither overflow nor
 * underflow on their own (exact unless the result is subnormal or overflows) */
static inline double ltm_exp2i_f64(int k) { return lt_from_bits64((uint64_t)(k + 1023) << 52); }
static inline float ltm_exp2i_f32(int k)
{
    const uint32_t u = (uint32_t)(k + 127) << 23;
    float x;
    memcpy(&x, &u, 4);
    return x;
}
static inline int ltm_ilogb_f64(double x)
{
    const int e = (int)((lt_bits64(x) >> 52) & 0x7ff);
    return e == 0 ? -1022 : e - 1023;
}
static inline int ltm_ilogb_f32(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    const int e = (int)((u >> 23) & 0xff);
    return e == 0 ? -126 : e - 127;
}
static inline double ltm_scale_f64(double x, int e)
{
    for (; e > 1000; e -= 1000) x *= ltm_exp2i_f64(1000);
    for (; e < -1000; e += 1000) x *= ltm_exp2i_f64(-1000);
    return x * ltm_exp2i_f64(e);
}
static inline float ltm_scale_f32(float x, int e)
{
    for (; e > 120; e -= 120) x *= ltm_exp2i_f32(120);
    for (; e < -120; e += 120) x *= ltm_exp2i_f32(-120);
    return x * ltm_exp2i_f32(e);
}

/* Smith's quotient of operands whose larger parts lie within 2^-SAFE .. 2^SAFE neither
 * overflows nor underflows needlessly; others are divided scaled (same bits where NumPy's
 * Smith did not overflow or underflow) */
#define LTM_SAFE_f32 32
#define LTM_SAFE_f64 256
#define LTM_EMAX_f32 127
#define LTM_EMAX_f64 1023

#define LTM_COMPLEX(C, T, R)                                                                  \
static inline int ltm_finite##C(R x) { return x - x == 0; }                                  \
/* the exponent of the larger part of a finite nonzero (a, b) */                             \
static inline int ltm_cexp##C(R a, R b)                                                      \
{                                                                                             \
    const R m = __builtin_fabs(a) > __builtin_fabs(b) ? __builtin_fabs(a) : __builtin_fabs(b); \
    return m == 0 ? 0 : ltm_ilogb##C(m);                                                      \
}                                                                                             \
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
        R ac = a * c, bd = b * d, ad = a * d, bc = b * c;                                     \
        LTM_OPAQUE4(ac, bd, ad, bc);                                                          \
        T o = { (R)INFINITY * (ac - bd), (R)INFINITY * (ad + bc) };                           \
        return o;                                                                             \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
/* (a + bi)(c + di): two products and a sum per part, as NumPy's loop writes it */            \
/* finite operands whose products overflowed: the same products of the operands scaled by \
 * powers of two (exact), scaled back once: inf only where the result itself overflows */    \
static inline T ltm_cmul_scaled##C(T x, T y)                                                  \
{                                                                                             \
    const int ex = ltm_cexp##C(x.re, x.im), ey = ltm_cexp##C(y.re, y.im);                     \
    const R a = ltm_scale##C(x.re, -ex), b = ltm_scale##C(x.im, -ex);                         \
    const R c = ltm_scale##C(y.re, -ey), d = ltm_scale##C(y.im, -ey);                         \
    R ac = a * c, bd = b * d, ad = a * d, bc = b * c;                                         \
    LTM_OPAQUE4(ac, bd, ad, bc);                                                              \
    T z = { ltm_scale##C(ac - bd, ex + ey), ltm_scale##C(ad + bc, ex + ey) };                 \
    return z;                                                                                 \
}                                                                                             \
/* an infinite operand: a product of finite factors that overflowed is finite in truth, so  \
 * a sum of it and an infinite product is that infinity (the textbook sum gives inf - inf) */ \
static inline R ltm_cterm##C(R x, R y, R u, R v, R sign)                                      \
{                                                                                             \
    R p = x * y, q = u * v;                                                                   \
    LTM_OPAQUE(p); LTM_OPAQUE(q);                                                             \
    const int p_inf = ltm_isinf##C(p) && (ltm_isinf##C(x) || ltm_isinf##C(y));                \
    const int q_inf = ltm_isinf##C(q) && (ltm_isinf##C(u) || ltm_isinf##C(v));                \
    if (p_inf && !q_inf && q == q) return p;                                                  \
    if (q_inf && !p_inf && p == p) return sign * q;                                           \
    return sign > 0 ? p + q : p - q;                                                          \
}                                                                                             \
static inline T ltm_cmul_inf##C(T x, T y)                                                     \
{                                                                                             \
    T z = { ltm_cterm##C(x.re, y.re, x.im, y.im, (R)-1), ltm_cterm##C(x.re, y.im, x.im, y.re, (R)1) }; \
    return z;                                                                                 \
}                                                                                             \
static inline T ltm_cmul##C(T x, T y)                                                         \
{                                                                                             \
    R ac = x.re * y.re, bd = x.im * y.im, ad = x.re * y.im, bc = x.im * y.re;                 \
    LTM_OPAQUE4(ac, bd, ad, bc);                                                              \
    T z = { ac - bd, ad + bc };                                                               \
    if (__builtin_expect(!(ltm_finite##C(z.re) && ltm_finite##C(z.im)), 0)) {                 \
        if (ltm_finite##C(x.re) && ltm_finite##C(x.im) && ltm_finite##C(y.re) &&              \
            ltm_finite##C(y.im))                                                              \
            return ltm_cmul_scaled##C(x, y);                                                  \
        z = ltm_cmul_inf##C(x, y);                                                            \
        if (z.re != z.re && z.im != z.im)                                                     \
            return ltm_cmul_recover##C(x.re, x.im, y.re, y.im, z);                            \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
static inline T ltm_csquare##C(T x) { return ltm_cmul##C(x, x); }                                                                                             \
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
        R ac = a * c, bd = b * d, bc = b * c, ad = a * d;                                     \
        LTM_OPAQUE4(ac, bd, ad, bc);                                                          \
        T o = { (R)INFINITY * (ac + bd), (R)INFINITY * (bc - ad) };                           \
        return o;                                                                             \
    }                                                                                         \
    if ((ltm_isinf##C(c) || ltm_isinf##C(d)) && a - a == 0 && b - b == 0) {                   \
        c = ltm_box##C(c); d = ltm_box##C(d);                                                 \
        const int e = ltm_cexp##C(a, b);   /* the zeros' signs, without overflow */           \
        a = ltm_scale##C(a, -e); b = ltm_scale##C(b, -e);                                     \
        R ac = a * c, bd = b * d, bc = b * c, ad = a * d;                                     \
        LTM_OPAQUE4(ac, bd, ad, bc);                                                          \
        T o = { (R)0 * (ac + bd), (R)0 * (bc - ad) };                                         \
        return o;                                                                             \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
/* Smith's method exactly as NumPy's loop computes it (same operations, same order) */        \
static inline T ltm_smith##C(R a, R b, R c, R d)                                              \
{                                                                                             \
    const R ac_ = __builtin_fabs(c), ad_ = __builtin_fabs(d);                                 \
    T z;                                                                                      \
    if (ac_ >= ad_) {                                                                         \
        if (ac_ == 0 && ad_ == 0) {                                                           \
            z.re = a / ac_;                                                                   \
            z.im = b / ad_;                                                                   \
        } else {                                                                              \
            const R rat = d / c;                                                              \
            R dr = d * rat, br = b * rat, ar = a * rat;                                       \
            LTM_OPAQUE(dr); LTM_OPAQUE(br); LTM_OPAQUE(ar);                                   \
            const R scl = (R)1 / (c + dr);                                                    \
            z.re = (a + br) * scl;                                                            \
            z.im = (b - ar) * scl;                                                            \
        }                                                                                     \
    } else {                                                                                  \
        const R rat = c / d;                                                                  \
        R cr = c * rat, ar = a * rat, br = b * rat;                                           \
        LTM_OPAQUE(cr); LTM_OPAQUE(ar); LTM_OPAQUE(br);                                       \
        const R scl = (R)1 / (d + cr);                                                        \
        z.re = (ar + b) * scl;                                                                \
        z.im = (br - a) * scl;                                                                \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
/* Smith's quotient; finite operands (a nonzero divisor) whose intermediate values         \
 * overflowed are divided again scaled by powers of two (exact), the quotient scaled back   \
 * once; NaN + NaN i from special operands gets Annex G's value */                           \
static inline T ltm_cdiv##C(T x, T y)                                                         \
{                                                                                             \
    const R a = x.re, b = x.im, c = y.re, d = y.im;                                           \
    T z = ltm_smith##C(a, b, c, d);                                                           \
    const int ex = ltm_cexp##C(a, b), ey = ltm_cexp##C(c, d);                                 \
    const int wide = ex > LTM_SAFE##C || ex < -LTM_SAFE##C || ey > LTM_SAFE##C || ey < -LTM_SAFE##C; \
    if (__builtin_expect(wide || !(ltm_finite##C(z.re) && ltm_finite##C(z.im)), 0)) {         \
        if (ltm_finite##C(a) && ltm_finite##C(b) && ltm_finite##C(c) && ltm_finite##C(d) &&   \
            (c != 0 || d != 0)) {                                                             \
            /* an operand is scaled only when its size is beyond the safe range (a        \
             * dividend near overflow only by 2^-2: scaling it further down could lose a  \
             * part far smaller than the other to underflow) */                          \
            const int sx = ex > LTM_EMAX##C - 2 ? 2 : ex < -LTM_SAFE##C ? ex : 0;           \
            const int sy = ey > LTM_SAFE##C || ey < -LTM_SAFE##C ? ey : 0;                  \
            z = ltm_smith##C(ltm_scale##C(a, -sx), ltm_scale##C(b, -sx),                      \
                             ltm_scale##C(c, -sy), ltm_scale##C(d, -sy));                     \
            z.re = ltm_scale##C(z.re, sx - sy);                                               \
            z.im = ltm_scale##C(z.im, sx - sy);                                               \
            return z;                                                                         \
        }                                                                                     \
        if (z.re != z.re && z.im != z.im)                                                     \
            return ltm_cdiv_recover##C(a, b, c, d, z);                                        \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
/* 1 / z as NumPy's loop computes it */                                                      \
static inline T ltm_creciprocal_plain##C(R a, R b)                                            \
{                                                                                             \
    T z;                                                                                      \
    if (__builtin_fabs(b) <= __builtin_fabs(a)) {                                             \
        const R r = b / a;                                                                    \
        R br = b * r;                                                                         \
        LTM_OPAQUE(br);                                                                       \
        const R d = a + br;                                                                   \
        z.re = (R)1 / d;                                                                      \
        z.im = -r / d;                                                                        \
    } else {                                                                                  \
        const R r = a / b;                                                                    \
        R ar = a * r;                                                                         \
        LTM_OPAQUE(ar);                                                                       \
        const R d = ar + b;                                                                   \
        z.re = r / d;                                                                         \
        z.im = (R)-1 / d;                                                                     \
    }                                                                                         \
    return z;                                                                                 \
}                                                                                             \
/* ... a finite nonzero z whose d overflowed (a part zero or infinite where 1/z has it      \
 * neither) is taken scaled by a power of two (exact); Annex G's values as 1 / z by        \
 * ltm_cdiv where NumPy's give NaN + NaN i */                                                 \
static inline T ltm_creciprocal##C(T x)                                                       \
{                                                                                             \
    const R a = x.re, b = x.im;                                                               \
    T z = ltm_creciprocal_plain##C(a, b);                                                     \
    const int odd = !(ltm_finite##C(z.re) && ltm_finite##C(z.im)) ||                          \
                    (z.re == 0) != (a == 0) || (z.im == 0) != (b == 0);                       \
    if (__builtin_expect(odd, 0)) {                                                           \
        if (ltm_finite##C(a) && ltm_finite##C(b) && (a != 0 || b != 0)) {                     \
            const int e = ltm_cexp##C(a, b);                                                  \
            T w = ltm_creciprocal_plain##C(ltm_scale##C(a, -e), ltm_scale##C(b, -e));         \
            w.re = ltm_scale##C(w.re, -e);                                                    \
            w.im = ltm_scale##C(w.im, -e);                                                    \
            return w;                                                                         \
        }                                                                                     \
        if (z.re != z.re && z.im != z.im)                                                     \
            return ltm_cdiv_recover##C((R)1, (R)0, a, b, z);                                  \
    }                                                                                         \
    return z;                                                                                 \
}

LTM_COMPLEX(_f32, lt_c64, float)
LTM_COMPLEX(_f64, lt_c128, double)
#undef LTM_COMPLEX
#undef LTM_SAFE_f32
#undef LTM_SAFE_f64
#undef LTM_EMAX_f32
#undef LTM_EMAX_f64

/* |z| by the library's own hypot over a chunk (n <= LT_CHUNK): complex64's parts are split
 * first so that ltm_hypot_f32_chunk's vectorised first pass runs; its NaN is canonical */
static inline void ltm_cabs_f32_chunk(int64_t n, float *restrict o, const lt_c64 *restrict a)
{
    float re[LT_CHUNK], im[LT_CHUNK];
    for (int64_t i = 0; i < n; i++) { re[i] = a[i].re; im[i] = a[i].im; }
    ltm_hypot_f32_chunk(n, o, re, im);
}

static inline void ltm_cabs_f64_chunk(int64_t n, double *restrict o, const lt_c128 *restrict a)
{
    for (int64_t i = 0; i < n; i++) o[i] = ltm_hypot_f64(a[i].re, a[i].im);
}

/* z * w over a chunk (n <= LT_CHUNK): the textbook products in a loop without branches (it
 * vectorises), then ltm_cmul for the rare elements with a non-finite part (the same values
 * ltm_cmul gives every element: it returns the textbook products when they are finite) */
#define LTM_CMUL_CHUNK(C, T, R)                                                               \
static inline void ltm_cmul##C##_chunk(int64_t n, T *restrict o, const T *restrict x,         \
                                       const T *restrict y)                                   \
{                                                                                             \
    /* the parts go to two arrays first: stored as (re, im) pairs, gcc 12 vectorises the   \
     * loop as a complex multiplication with FMADDSUB on the FMA paths, -ffp-contract=off  \
     * notwithstanding (different bits from the generic path) */                            \
    R re[LT_CHUNK], im[LT_CHUNK];                                                             \
    int odd = 0;                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                         \
        const R ac = x[i].re * y[i].re, bd = x[i].im * y[i].im;                               \
        const R ad = x[i].re * y[i].im, bc = x[i].im * y[i].re;                               \
        re[i] = ac - bd;                                                                      \
        im[i] = ad + bc;                                                                      \
        odd |= (re[i] - re[i] != 0) | (im[i] - im[i] != 0);                                   \
    }                                                                                         \
    for (int64_t i = 0; i < n; i++) { o[i].re = re[i]; o[i].im = im[i]; }                     \
    if (odd)                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                       \
            if (!(re[i] - re[i] == 0 && im[i] - im[i] == 0)) o[i] = ltm_cmul##C(x[i], y[i]); \
}
LTM_CMUL_CHUNK(_f32, lt_c64, float)
LTM_CMUL_CHUNK(_f64, lt_c128, double)
#undef LTM_CMUL_CHUNK
