/* Fused reductions: the reduction functions and the runs that combine them.
 * Part of lt_kernel.c (included there, in this order: one translation unit). */

/* ---- fused reductions -------------------------------------------------------------
 *
 * The order of every combination is fixed by the plan alone, never by the thread split
 * or the kernel path:
 *  - a chunk (at most LT_CHUNK values of one output) is reduced by lt_red_seg_*: value i
 *    goes to lane i % LT_RED_LANES (each lane combines its values in order), then the
 *    lanes are combined as a fixed binary tree (LT_RED_TREE);
 *  - the chunks of one output (chunk boundaries at multiples of LT_CHUNK from the start of
 *    the output's run) are combined by a binary counter (pairwise) within blocks of
 *    LT_RED_BLOCK chunks, and the block partials again by a binary counter;
 *  - when the reduced dimensions are outside a kept inner run (Q > 1), each output's
 *    accumulator combines its values in order of r.
 * Threads take whole rows, whole blocks or whole columns, so a partial never depends on
 * how the work was split.  The chunk loops are cloned per instruction set (target_clones,
 * picked once at load time); the lanes are explicit in the source and nothing is contracted,
 * so every clone adds in the same order and gives the same bits.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LT_RED_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define LT_RED_CLONES
#endif
#define LT_RED_BLOCK 64
#ifndef LT_RED_LANES
#define LT_RED_LANES 32       /* independent accumulators: enough to hide the add latency */
#endif

#define LT_STEP_SUM(a, x) ((a) + (x))
#define LT_STEP_PROD(a, x) ((a) * (x))
/* NaN wins (a NaN accumulator stays, a NaN value replaces it); written so that gcc turns
 * it into compares and blends */
#define LT_STEP_FMAX(a, x) ((a) != (a) ? (a) : ((a) > (x) ? (a) : (x)))
#define LT_STEP_FMIN(a, x) ((a) != (a) ? (a) : ((a) < (x) ? (a) : (x)))
#define LT_STEP_IMAX(a, x) ((x) > (a) ? (x) : (a))
#define LT_STEP_IMIN(a, x) ((x) < (a) ? (x) : (a))

/* The lanes' fixed tree: halves folded onto each other (lane j takes lane j + w for
 * w = LANES/2 down to 8: whole vectors), then lanes 0-7 pairwise (w = 1, 2, 4). */
#define LT_RED_TREE(a, STEP)                                                                \
    do {                                                                                     \
        _Pragma("GCC unroll 8")                                                              \
        for (int w_ = LT_RED_LANES / 2; w_ >= 8; w_ /= 2)                                    \
            for (int j_ = 0; j_ < w_; j_++) a[j_] = STEP(a[j_], a[j_ + w_]);                 \
        a[0] = STEP(a[0], a[1]); a[2] = STEP(a[2], a[3]);                                    \
        a[4] = STEP(a[4], a[5]); a[6] = STEP(a[6], a[7]);                                    \
        a[0] = STEP(a[0], a[2]); a[4] = STEP(a[4], a[6]);                                    \
        a[0] = STEP(a[0], a[4]);                                                             \
    } while (0)

#define LT_RED(NAME, VT, AT, IDENT, STEP)                                                   \
enum { lt_red_vsz_##NAME = sizeof(VT) };                                                     \
LT_RED_CLONES static void lt_red_seg_##NAME(const void *v_, int64_t n, void *out)            \
{                                                                                            \
    const VT *v = (const VT *)v_;                                                            \
    AT a[LT_RED_LANES];                                                                      \
    int64_t i = 0;                                                                           \
    int j;                                                                                   \
    for (j = 0; j < LT_RED_LANES; j++) a[j] = (IDENT);                                       \
    for (; i + LT_RED_LANES <= n; i += LT_RED_LANES)                                         \
        for (j = 0; j < LT_RED_LANES; j++) a[j] = STEP(a[j], (AT)v[i + j]);                  \
    for (j = 0; i < n; i++, j++) a[j] = STEP(a[j], (AT)v[i]);                                \
    LT_RED_TREE(a, STEP);                                                                    \
    memcpy(out, &a[0], sizeof(AT));                                                          \
}                                                                                            \
static void lt_red_comb_##NAME(void *a_, const void *b_)                                     \
{                                                                                            \
    AT a, b;                                                                                 \
    memcpy(&a, a_, sizeof a); memcpy(&b, b_, sizeof b);                                      \
    a = STEP(a, b);                                                                          \
    memcpy(a_, &a, sizeof a);                                                                \
}                                                                                            \
LT_RED_CLONES static void lt_red_vec_##NAME(void *acc_, const void *v_, int64_t n)           \
{                                                                                            \
    AT *restrict acc = (AT *)acc_;                                                           \
    const VT *v = (const VT *)v_;                                                            \
    for (int64_t i = 0; i < n; i++) acc[i] = STEP(acc[i], (AT)v[i]);                         \
}                                                                                            \
static void lt_red_init_##NAME(void *acc_, int64_t n)                                        \
{                                                                                            \
    AT *acc = (AT *)acc_;                                                                    \
    for (int64_t i = 0; i < n; i++) acc[i] = (IDENT);                                        \
}

/* sums and products of floats accumulate in double (float32 values are rounded once, by
 * the caller, at the end); integer sums and products wrap around in 64 bits */
LT_RED(sum_f32, float, double, -0.0, LT_STEP_SUM)
LT_RED(sum_f64, double, double, -0.0, LT_STEP_SUM)
LT_RED(sum_u64, uint64_t, uint64_t, 0, LT_STEP_SUM)
LT_RED(prod_f32, float, double, 1.0, LT_STEP_PROD)
LT_RED(prod_f64, double, double, 1.0, LT_STEP_PROD)
LT_RED(prod_u64, uint64_t, uint64_t, 1, LT_STEP_PROD)
LT_RED(max_f32, float, float, -__builtin_inff(), LT_STEP_FMAX)
LT_RED(max_f64, double, double, -__builtin_inf(), LT_STEP_FMAX)
LT_RED(min_f32, float, float, __builtin_inff(), LT_STEP_FMIN)
LT_RED(min_f64, double, double, __builtin_inf(), LT_STEP_FMIN)

/* Complex products (values complex64 or complex128, accumulators complex128): the lanes,
 * tree and combinations of the real ones; every accumulator starts at 1 + 0i, as NumPy's
 * complex product does (so prod([inf + 0i]) is inf + nan i there and here).  Each step is
 * the library's multiplication, ltm_cmul_f64 of the generic path (lt_red_cmul_f64): the
 * textbook products inline (a block of them at once), that function for the rare non-finite
 * results (it returns the textbook products when they are finite, so every value is its
 * own).  Not cloned: one baseline (SSE2) code runs on every path, where no FMA can appear. */
void lt_red_cmul_f64(lt_c128 *a, const lt_c128 *b);    /* in the generated kernels' source */
static inline lt_c128 lt_cprod_step(lt_c128 u, double c, double d)
{
    const double ac = u.re * c, bd = u.im * d, ad = u.re * d, bc = u.im * c;
    lt_c128 z = { ac - bd, ad + bc };
    if (__builtin_expect(z.re - z.re == 0 && z.im - z.im == 0, 1)) return z;
    const lt_c128 v = { c, d };
    lt_red_cmul_f64(&u, &v);
    return u;
}
#define LT_STEP_CPROD(a, x) lt_cprod_step((a), (x).re, (x).im)
/* acc[i] *= v[i] for n <= LT_CHUNK pairs: the textbook products in a loop without branches
 * (it vectorises), then lt_cprod_step for the few with a non-finite part: the values of
 * lt_cprod_step for every element */
#define LT_CPROD_BLOCK(acc, v, n)                                                             \
    do {                                                                                     \
        double re_[LT_CHUNK], im_[LT_CHUNK];                                                 \
        int odd_ = 0;                                                                        \
        for (int64_t i_ = 0; i_ < (n); i_++) {                                               \
            const double a_ = (acc)[i_].re, b_ = (acc)[i_].im;                               \
            const double c_ = (v)[i_].re, d_ = (v)[i_].im;                                   \
            re_[i_] = a_ * c_ - b_ * d_;                                                     \
            im_[i_] = a_ * d_ + b_ * c_;                                                     \
            odd_ |= (re_[i_] - re_[i_] != 0) | (im_[i_] - im_[i_] != 0);                     \
        }                                                                                    \
        if (odd_)                                                                            \
            for (int64_t i_ = 0; i_ < (n); i_++)                                             \
                if (!(re_[i_] - re_[i_] == 0 && im_[i_] - im_[i_] == 0)) {                   \
                    const lt_c128 z_ = LT_STEP_CPROD((acc)[i_], (v)[i_]);                    \
                    re_[i_] = z_.re; im_[i_] = z_.im;                                        \
                }                                                                            \
        for (int64_t i_ = 0; i_ < (n); i_++) { (acc)[i_].re = re_[i_]; (acc)[i_].im = im_[i_]; } \
    } while (0)
#define LT_RED_CPROD(NAME, VT)                                                              \
enum { lt_red_vsz_##NAME = sizeof(VT) };                                                     \
static void lt_red_seg_##NAME(const void *v_, int64_t n, void *out)                          \
{                                                                                            \
    const VT *v = (const VT *)v_;                                                            \
    lt_c128 a[LT_RED_LANES];                                                                 \
    int64_t i = 0;                                                                           \
    int j;                                                                                   \
    for (j = 0; j < LT_RED_LANES; j++) { a[j].re = 1.0; a[j].im = 0.0; }                     \
    for (; i + LT_RED_LANES <= n; i += LT_RED_LANES) LT_CPROD_BLOCK(a, v + i, LT_RED_LANES); \
    if (i < n) LT_CPROD_BLOCK(a, v + i, n - i);                                              \
    LT_RED_TREE(a, LT_STEP_CPROD);                                                           \
    memcpy(out, &a[0], sizeof a[0]);                                                         \
}                                                                                            \
static void lt_red_comb_##NAME(void *a_, const void *b_)                                     \
{                                                                                            \
    lt_c128 a, b;                                                                            \
    memcpy(&a, a_, sizeof a); memcpy(&b, b_, sizeof b);                                      \
    a = LT_STEP_CPROD(a, b);                                                                 \
    memcpy(a_, &a, sizeof a);                                                                \
}                                                                                            \
static void lt_red_vec_##NAME(void *acc_, const void *v_, int64_t n)                         \
{                                                                                            \
    lt_c128 *acc = (lt_c128 *)acc_;                                                          \
    const VT *v = (const VT *)v_;                                                            \
    for (int64_t i = 0; i < n; i += LT_CHUNK)                                                \
        LT_CPROD_BLOCK(acc + i, v + i, n - i < LT_CHUNK ? n - i : LT_CHUNK);                 \
}                                                                                            \
static void lt_red_init_##NAME(void *acc_, int64_t n)                                        \
{                                                                                            \
    lt_c128 *acc = (lt_c128 *)acc_;                                                          \
    for (int64_t i = 0; i < n; i++) { acc[i].re = 1.0; acc[i].im = 0.0; }                    \
}
LT_RED_CPROD(prod_c64, lt_c64)
LT_RED_CPROD(prod_c128, lt_c128)

/* Float max/min of a chunk, vectorizable: the lanes ignore NaN (a plain compare and
 * select), a second pass over the chunk (in L1) looks for NaN, and a chunk holding one
 * gives its first NaN.  Ties and signed zeros go as in LT_STEP_FMAX/FMIN. */
#define LT_RED_FSEG(NAME, T, IT, IDENT, CMP, SEL)                                              \
LT_RED_CLONES static void lt_red_fseg_##NAME(const void *v_, int64_t n, void *out)           \
{                                                                                            \
    /* a CMP x ? a : x per lane is the rule of MAXPS/MINPS (the second operand when either   \
     * is NaN), which gcc emits for it: one instruction a vector; NaN is tracked apart */     \
    const T *v = (const T *)v_;                                                              \
    T a[LT_RED_LANES];                                                                       \
    IT seen[LT_RED_LANES];                                                                   \
    int64_t i = 0;                                                                           \
    int j, nan = 0;                                                                          \
    /* seen[j] starts at 0 as a compare of a[j] (never NaN), not as a store of zeros: gcc \
     * turns the latter into a `rep stos`, about 30 cycles a chunk on an AMD EPYC */        \
    for (j = 0; j < LT_RED_LANES; j++) a[j] = (IDENT);                                       \
    for (j = 0; j < LT_RED_LANES; j++) seen[j] = a[j] != a[j];                               \
    for (; i + LT_RED_LANES <= n; i += LT_RED_LANES)                                         \
        for (j = 0; j < LT_RED_LANES; j++) {                                                 \
            const T x = v[i + j];                                                            \
            a[j] = a[j] CMP x ? a[j] : x;                                                    \
            seen[j] |= x != x;                                                               \
        }                                                                                    \
    for (j = 0; j < LT_RED_LANES; j++) nan |= seen[j] != 0;                                  \
    for (j = 0; i < n; i++, j++) {                                                           \
        a[j] = (a[j] CMP v[i]) ? a[j] : v[i];                                                \
        nan |= v[i] != v[i];                                                                 \
    }                                                                                        \
    if (nan) {                                                                               \
        for (i = 0; v[i] == v[i]; i++) {}                                                    \
        memcpy(out, &v[i], sizeof(T));                                                       \
        return;                                                                              \
    }                                                                                        \
    LT_RED_TREE(a, SEL);                                                                     \
    memcpy(out, &a[0], sizeof(T));                                                           \
}
/* the lanes' tree in LT_RED_FSEG (no NaN left by then) */
#define LT_STEP_GT(a, x) ((a) > (x) ? (a) : (x))
#define LT_STEP_LT(a, x) ((a) < (x) ? (a) : (x))
LT_RED_FSEG(max_f32, float, int32_t, -__builtin_inff(), >, LT_STEP_GT)
LT_RED_FSEG(max_f64, double, int64_t, -__builtin_inf(), >, LT_STEP_GT)
LT_RED_FSEG(min_f32, float, int32_t, __builtin_inff(), <, LT_STEP_LT)
LT_RED_FSEG(min_f64, double, int64_t, __builtin_inf(), <, LT_STEP_LT)
#define LT_RED_INT(SFX, T, LO, HI) \
    LT_RED(max_##SFX, T, T, LO, LT_STEP_IMAX) LT_RED(min_##SFX, T, T, HI, LT_STEP_IMIN)
LT_RED_INT(b, uint8_t, 0, 1)
LT_RED_INT(i8, int8_t, INT8_MIN, INT8_MAX)
LT_RED_INT(i16, int16_t, INT16_MIN, INT16_MAX)
LT_RED_INT(i32, int32_t, INT32_MIN, INT32_MAX)
LT_RED_INT(i64, int64_t, INT64_MIN, INT64_MAX)
LT_RED_INT(u8, uint8_t, 0, UINT8_MAX)
LT_RED_INT(u16, uint16_t, 0, UINT16_MAX)
LT_RED_INT(u32, uint32_t, 0, UINT32_MAX)
LT_RED_INT(u64, uint64_t, 0, UINT64_MAX)

typedef struct {
    const char *name;            /* "op:value dtype" */
    int32_t val_size;            /* bytes per value (a register's itemsize may be larger) */
    int32_t acc_size;
    void (*seg)(const void *v, int64_t n, void *out);
    void (*comb)(void *a, const void *b);
    void (*vec)(void *acc, const void *v, int64_t n);
    void (*init)(void *acc, int64_t n);
} lt_redfn;

#define LT_RF(name, NAME, AT) \
    { name, lt_red_vsz_##NAME, (int32_t)sizeof(AT), lt_red_seg_##NAME, lt_red_comb_##NAME, lt_red_vec_##NAME, lt_red_init_##NAME }
#define LT_RF_F(name, NAME, AT) \
    { name, lt_red_vsz_##NAME, (int32_t)sizeof(AT), lt_red_fseg_##NAME, lt_red_comb_##NAME, lt_red_vec_##NAME, lt_red_init_##NAME }
#define LT_RF_C(name, NAME) \
    { name, lt_red_vsz_##NAME, (int32_t)sizeof(lt_c128), lt_red_seg_##NAME, lt_red_comb_##NAME, lt_red_vec_##NAME, lt_red_init_##NAME }
#define LT_RF_INT(dt, SFX, T) LT_RF("max:" dt, max_##SFX, T), LT_RF("min:" dt, min_##SFX, T)

static const lt_redfn lt_reds[] = {
    LT_RF("sum:float32", sum_f32, double), LT_RF("sum:float64", sum_f64, double),
    LT_RF("sum:int64", sum_u64, uint64_t), LT_RF("sum:uint64", sum_u64, uint64_t),
    LT_RF("prod:float32", prod_f32, double), LT_RF("prod:float64", prod_f64, double),
    LT_RF("prod:int64", prod_u64, uint64_t), LT_RF("prod:uint64", prod_u64, uint64_t),
    LT_RF_F("max:float32", max_f32, float), LT_RF_F("max:float64", max_f64, double),
    LT_RF_F("min:float32", min_f32, float), LT_RF_F("min:float64", min_f64, double),
    LT_RF_INT("bool", b, uint8_t),
    LT_RF_INT("int8", i8, int8_t), LT_RF_INT("int16", i16, int16_t),
    LT_RF_INT("int32", i32, int32_t), LT_RF_INT("int64", i64, int64_t),
    LT_RF_INT("uint8", u8, uint8_t), LT_RF_INT("uint16", u16, uint16_t),
    LT_RF_INT("uint32", u32, uint32_t), LT_RF_INT("uint64", u64, uint64_t),
    LT_RF_C("prod:complex64", prod_c64), LT_RF_C("prod:complex128", prod_c128),
};
#define LT_N_REDS ((int)(sizeof lt_reds / sizeof lt_reds[0]))

int lt_red_count(void) { return LT_N_REDS; }
const char *lt_red_name(int fn) { return (fn >= 0 && fn < LT_N_REDS) ? lt_reds[fn].name : ""; }
int lt_red_acc_size(int fn) { return (fn >= 0 && fn < LT_N_REDS) ? lt_reds[fn].acc_size : 0; }

/* the largest accumulator (complex128) */
#define LT_RED_ACC 16

/* Pairwise combination of a stream of partials (fn->acc_size bytes each): partial k is
 * merged with the stored ones as the bits of k carry, so the tree depends on the number of
 * partials only. */
typedef struct {
    unsigned char v[64][LT_RED_ACC];
    int64_t count;
} lt_counter;

static void lt_counter_push(lt_counter *k, const lt_redfn *fn, const void *x)
{
    unsigned char cur[LT_RED_ACC];
    int level = 0;
    memcpy(cur, x, (size_t)fn->acc_size);
    for (int64_t c = k->count; c & 1; c >>= 1, level++) {
        fn->comb(k->v[level], cur);            /* the stored partial is the left one */
        memcpy(cur, k->v[level], (size_t)fn->acc_size);
    }
    memcpy(k->v[level], cur, (size_t)fn->acc_size);
    k->count++;
}

static void lt_counter_result(const lt_counter *k, const lt_redfn *fn, void *out)
{
    unsigned char r[LT_RED_ACC] = {0};
    int have = 0;
    /* from the highest stored level down (not from 63: this runs once per row and block) */
    for (int level = k->count ? 63 - __builtin_clzll((unsigned long long)k->count) : -1;
         level >= 0; level--) {
        if (!((k->count >> level) & 1)) continue;
        if (!have) { memcpy(r, k->v[level], (size_t)fn->acc_size); have = 1; }
        else fn->comb(r, k->v[level]);
    }
    memcpy(out, r, (size_t)fn->acc_size);
}

enum { LT_RED_ROWS, LT_RED_BLOCKS, LT_RED_OUTER_P, LT_RED_OUTER_Q };

typedef struct {
    const lt_program *p;
    int mode;
    int64_t P, R, Q;
    int64_t first, end;          /* the units this thread runs */
    char *blocks;                /* LT_RED_BLOCKS: n_red * n_units partials of LT_RED_ACC bytes */
    int64_t n_units;
    int status;
} lt_rtask;

static void lt_red_range(lt_rtask *t)
{
    const lt_program *p = t->p;
    const int64_t P = t->P, R = t->R, Q = t->Q;
    lt_ctx c;
    int32_t s;
    if (t->first >= t->end) { t->status = 0; return; }
    if (lt_ctx_open(&c, p) != 0) { t->status = -1; return; }
    if (t->mode == LT_RED_ROWS) {
        /* short rows (R <= LT_CHUNK): a chunk holds k whole rows; unit = chunk */
        const int64_t k = LT_CHUNK / R;
        for (int64_t u = t->first; u < t->end; u++) {
            const int64_t row0 = u * k, rows = P - row0 < k ? P - row0 : k;
            lt_ctx_chunk(&c, row0 * R, rows * R);
            for (s = 0; s < p->n_red; s++) {
                const lt_redfn *fn = &lt_reds[p->red_fn[s]];
                const int32_t reg = p->red_reg[s], vsz = fn->val_size;
                const char *v = (const char *)c.regp[reg];
                char *acc = p->red_ptr[s];
                for (int64_t i = 0; i < rows; i++) {
                    unsigned char part[LT_RED_ACC];
                    fn->seg(v + i * R * vsz, R, part);
                    memcpy(acc + (row0 + i) * fn->acc_size, part, (size_t)fn->acc_size);
                }
            }
        }
    } else if (t->mode == LT_RED_BLOCKS) {
        /* long rows: unit = one block of LT_RED_BLOCK chunks of one row */
        const int64_t nc = (R + LT_CHUNK - 1) / LT_CHUNK;
        const int64_t nb = (nc + LT_RED_BLOCK - 1) / LT_RED_BLOCK;
        lt_counter k[8];
        for (int64_t u = t->first; u < t->end; u++) {
            const int64_t row = u / nb, b = u % nb;
            const int64_t c0 = b * LT_RED_BLOCK, c1 = c0 + LT_RED_BLOCK < nc ? c0 + LT_RED_BLOCK : nc;
            for (s = 0; s < p->n_red; s++) k[s].count = 0;
            for (int64_t ch = c0; ch < c1; ch++) {
                const int64_t n = R - ch * LT_CHUNK < LT_CHUNK ? R - ch * LT_CHUNK : LT_CHUNK;
                lt_ctx_chunk(&c, row * R + ch * LT_CHUNK, n);
                for (s = 0; s < p->n_red; s++) {
                    const lt_redfn *fn = &lt_reds[p->red_fn[s]];
                    unsigned char part[LT_RED_ACC];
                    fn->seg(c.regp[p->red_reg[s]], n, part);
                    lt_counter_push(&k[s], fn, part);
                }
            }
            for (s = 0; s < p->n_red; s++)
                lt_counter_result(&k[s], &lt_reds[p->red_fn[s]],
                                  t->blocks + ((size_t)s * t->n_units + u) * LT_RED_ACC);
        }
    } else if (t->mode == LT_RED_OUTER_P) {
        /* kept inner run: unit = p; each accumulator combines its values in order of r */
        for (s = 0; s < p->n_red; s++) {
            const lt_redfn *fn = &lt_reds[p->red_fn[s]];
            fn->init(p->red_ptr[s] + t->first * Q * fn->acc_size, (t->end - t->first) * Q);
        }
        const int64_t end = t->end * R * Q;
        for (int64_t pos = t->first * R * Q; pos < end;) {
            const int64_t n = end - pos < LT_CHUNK ? end - pos : LT_CHUNK;
            lt_ctx_chunk(&c, pos, n);
            for (s = 0; s < p->n_red; s++) {
                const lt_redfn *fn = &lt_reds[p->red_fn[s]];
                const int32_t reg = p->red_reg[s], vsz = fn->val_size;
                const char *v = (const char *)c.regp[reg];
                for (int64_t j = 0; j < n;) {
                    const int64_t at = pos + j, q = at % Q, pp = at / (R * Q);
                    const int64_t len = Q - q < n - j ? Q - q : n - j;
                    fn->vec(p->red_ptr[s] + (pp * Q + q) * fn->acc_size, v + j * vsz, len);
                    j += len;
                }
            }
            pos += n;
        }
    } else {
        /* few outputs rows but wide: unit = q (each thread a range of columns) */
        for (s = 0; s < p->n_red; s++) {
            const lt_redfn *fn = &lt_reds[p->red_fn[s]];
            for (int64_t pp = 0; pp < P; pp++)
                fn->init(p->red_ptr[s] + (pp * Q + t->first) * fn->acc_size, t->end - t->first);
        }
        for (int64_t pp = 0; pp < P; pp++) {
            for (int64_t r = 0; r < R; r++) {
                const int64_t base = (pp * R + r) * Q;
                for (int64_t q = t->first; q < t->end;) {
                    const int64_t n = t->end - q < LT_CHUNK ? t->end - q : LT_CHUNK;
                    lt_ctx_chunk(&c, base + q, n);
                    for (s = 0; s < p->n_red; s++) {
                        const lt_redfn *fn = &lt_reds[p->red_fn[s]];
                        fn->vec(p->red_ptr[s] + (pp * Q + q) * fn->acc_size, c.regp[p->red_reg[s]], n);
                    }
                    q += n;
                }
            }
        }
    }
    lt_ctx_close(&c);
    t->status = 0;
}

static void lt_red_task(void *arg) { lt_red_range((lt_rtask *)arg); }

/* Ranges for a run on `threads` threads: LT_TASKS_PER_THREAD each (so that a worker that
 * starts late leaves the others what it has not taken), at most one per `units` of work
 * and 256, at least one per thread */
static int64_t lt_task_count(int64_t threads, int64_t units)
{
    int64_t n = threads > 1 ? threads * LT_TASKS_PER_THREAD : 1;
    if (n > units) n = units;
    if (n > 256) n = 256;
    return n < threads ? threads : n;
}

/* The estimated time of a run over `elements` elements on one thread, -1 if unknown: its
 * ops (`ps` per element, fast and exact mode), and moving its data (`bytes_per_element`) at
 * LT_CACHED_PS_PER_BYTE while the data fits in LT_CACHED_BYTES, else at
 * LT_MEMORY_PS_PER_BYTE */
static int64_t lt_estimate_ns(const int32_t ps_of_mode[2], int32_t bytes_per_element,
                              int32_t exact, int64_t elements)
{
    const int32_t ps = ps_of_mode[exact ? 1 : 0];
    if (ps <= 0) return -1;
    const double bytes = (double)elements * (bytes_per_element > 0 ? bytes_per_element : 0);
    const double ns = ((double)elements * ps +
                       bytes * (bytes <= LT_CACHED_BYTES ? LT_CACHED_PS_PER_BYTE
                                                         : LT_MEMORY_PS_PER_BYTE)) / 1000;
    return ns < 1e15 ? (int64_t)ns : (int64_t)1e15;
}

static int64_t lt_work_ns(const lt_program *p, int64_t elements)
{
    return lt_estimate_ns(p->work_ps, p->work_bytes, p->exact, elements);
}

/* Threads for a run: the request, at most one per `units` of work, one per LT_THREAD_MIN_NS
 * of its estimated time `work_ns` and one per LT_THREAD_MIN_CHUNKS chunks of its `elements`
 * (one per LT_PARALLEL_MIN_CHUNKS when the time is unknown, -1), at least 1, at most 256;
 * then as lt_pool_threads allows. */
static int64_t lt_thread_count(int32_t requested, int64_t units, int64_t elements,
                               int64_t work_ns)
{
    int64_t n = requested < 1 ? 1 : requested;
    const int64_t by_size = work_ns < 0
        ? elements / ((int64_t)LT_PARALLEL_MIN_CHUNKS * LT_CHUNK)
        : elements / ((int64_t)LT_THREAD_MIN_CHUNKS * LT_CHUNK);
    if (n > by_size) n = by_size;
    if (work_ns >= 0 && n > work_ns / LT_THREAD_MIN_NS) n = work_ns / LT_THREAD_MIN_NS;
    if (n > units) n = units;
    if (n < 1) n = 1;
    if (n > 256) n = 256;
    return n > 1 ? lt_pool_threads(n, work_ns) : 1;
}

static int lt_run_reduce_distinct(const lt_program *p)
{
    int64_t P = 1, R = 1, Q = 1;
    int32_t d, s;
    for (d = 0; d < p->ndim; d++) {
        if (d < p->red_np) P *= p->shape[d];
        else if (d < p->red_np + p->red_nr) R *= p->shape[d];
        else Q *= p->shape[d];
    }
    if (p->n_red > 8) return -2;
    int mode;
    int64_t n_units;
    if (Q == 1 && R <= LT_CHUNK) {
        mode = LT_RED_ROWS;
        const int64_t k = LT_CHUNK / R;
        n_units = (P + k - 1) / k;
    } else if (Q == 1) {
        mode = LT_RED_BLOCKS;
        const int64_t nc = (R + LT_CHUNK - 1) / LT_CHUNK;
        n_units = P * ((nc + LT_RED_BLOCK - 1) / LT_RED_BLOCK);
    } else if (P >= (p->n_threads < 1 ? 1 : p->n_threads) || Q < 2 * LT_CHUNK) {
        mode = LT_RED_OUTER_P;
        n_units = P;
    } else {
        mode = LT_RED_OUTER_Q;
        n_units = Q;
    }
    /* threads: as lt_thread_count allows (at least a chunk of columns each when they split
     * the columns) */
    const int64_t n_threads = lt_thread_count(
        p->n_threads, mode == LT_RED_OUTER_Q ? Q / LT_CHUNK : n_units, p->size,
        lt_work_ns(p, p->size));

    char *blocks = NULL;
    if (mode == LT_RED_BLOCKS) {
        blocks = (char *)malloc((size_t)p->n_red * (size_t)n_units * LT_RED_ACC);
        if (!blocks) return -1;
    }
    lt_rtask tasks[256];
    const int64_t n_tasks = lt_task_count(n_threads,
                                          mode == LT_RED_OUTER_Q ? Q / LT_CHUNK : n_units);
    for (int64_t t = 0; t < n_tasks; t++) {
        tasks[t].p = p;
        tasks[t].mode = mode;
        tasks[t].P = P; tasks[t].R = R; tasks[t].Q = Q;
        tasks[t].first = n_units * t / n_tasks;
        tasks[t].end = n_units * (t + 1) / n_tasks;
        tasks[t].blocks = blocks;
        tasks[t].n_units = n_units;
        tasks[t].status = 0;
    }
    lt_parallel_tasks((int)n_threads, (int)n_tasks, lt_red_task, tasks, sizeof tasks[0]);
    int status = 0;
    for (int64_t t = 0; t < n_tasks; t++)
        if (tasks[t].status != 0) status = tasks[t].status;
    if (mode == LT_RED_BLOCKS && status == 0) {
        /* each row: its block partials, pairwise in block order */
        const int64_t nb = n_units / P;
        uint64_t fp_saved;
        LT_FP_ENTER(fp_saved);
        for (s = 0; s < p->n_red; s++) {
            const lt_redfn *fn = &lt_reds[p->red_fn[s]];
            for (int64_t row = 0; row < P; row++) {
                lt_counter k;
                unsigned char r[LT_RED_ACC];
                k.count = 0;
                for (int64_t b = 0; b < nb; b++)
                    lt_counter_push(&k, fn, blocks + ((size_t)s * n_units + row * nb + b) * LT_RED_ACC);
                lt_counter_result(&k, fn, r);
                memcpy(p->red_ptr[s] + row * fn->acc_size, r, (size_t)fn->acc_size);
            }
        }
        LT_FP_LEAVE(fp_saved);
    }
    free(blocks);
    return status;
}

/* Sinks that reduce the same register with the same function are computed once and the
 * others copy the results: max(x, axis, keepdims=True) and its reshape without the unit
 * axis (as logsumexp writes it) are two reduce nodes of one kernel, and the second pass
 * over each chunk cost about a third of the time of a max over rows. */
static int lt_run_reduce(const lt_program *p)
{
    if (p->n_red > 8) return -2;
    int32_t twin[8], reg[8], fn[8], m = 0;
    char *ptr[8];
    for (int32_t s = 0; s < p->n_red; s++) {
        twin[s] = -1;
        for (int32_t t = 0; t < s && twin[s] < 0; t++)
            if (p->red_reg[t] == p->red_reg[s] && p->red_fn[t] == p->red_fn[s]) twin[s] = t;
        if (twin[s] < 0) { reg[m] = p->red_reg[s]; fn[m] = p->red_fn[s]; ptr[m] = p->red_ptr[s]; m++; }
    }
    if (m == p->n_red) return lt_run_reduce_distinct(p);
    lt_program q = *p;
    q.n_red = m; q.red_reg = reg; q.red_fn = fn; q.red_ptr = ptr;
    const int status = lt_run_reduce_distinct(&q);
    if (status != 0) return status;
    int64_t results = 1;                       /* P * Q: the kept dimensions */
    for (int32_t d = 0; d < p->ndim; d++)
        if (d < p->red_np || d >= p->red_np + p->red_nr) results *= p->shape[d];
    for (int32_t s = 0; s < p->n_red; s++)
        if (twin[s] >= 0)
            memcpy(p->red_ptr[s], p->red_ptr[twin[s]],
                   (size_t)results * (size_t)lt_reds[p->red_fn[s]].acc_size);
    return 0;
}

int lt_run(const lt_program *p)
{
    if (p->size <= 0) return 0;
    if (p->ndim < 1 || p->ndim > LT_MAX_DIMS) return -2;
    if (!lt_path_supported(p->path)) return -3;
    if (p->n_red > 0) return lt_run_reduce(p);
    const int64_t n_chunks = (p->size + LT_CHUNK - 1) / LT_CHUNK;
    const int64_t n_threads = lt_thread_count(p->n_threads, n_chunks, n_chunks * LT_CHUNK,
                                              lt_work_ns(p, p->size));

    lt_task tasks[256];
    /* ranges of whole chunks (results cannot depend on the split), none shorter than half
     * the least chunks per thread */
    const int64_t n_tasks = lt_task_count(n_threads, n_chunks / (LT_THREAD_MIN_CHUNKS / 2));
    for (int64_t t = 0; t < n_tasks; t++) {
        tasks[t].p = p;
        tasks[t].first_chunk = n_chunks * t / n_tasks;
        tasks[t].end_chunk = n_chunks * (t + 1) / n_tasks;
        tasks[t].status = 0;
    }
    lt_parallel_tasks((int)n_threads, (int)n_tasks, lt_range_task, tasks, sizeof tasks[0]);
    for (int64_t t = 0; t < n_tasks; t++)
        if (tasks[t].status != 0) return tasks[t].status;
    return 0;
}
