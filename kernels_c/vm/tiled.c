/* The tiled walk of plans with a load read across its rows (a transpose), and running a range of positions.
 * Part of lt_kernel.c (included there, in this order: one translation unit). */

/* ---- the tiled walk: plans with a load read across its rows (a transpose) -------------
 *
 * Reading X.T chunk by chunk gathers every element from another row of X (a cache line and
 * often a page each).  Instead, a thread takes its positions a panel of rows at a time:
 * for each block of LT_TILE_COLS columns, the block of every such load is copied (tile by
 * tile, so each line of the source is read once) into a per-thread panel, then the program
 * runs over each row's segment of that block, reading the panel, the other loads in place
 * and writing the outputs in place.  Only the order in which elements are computed and the
 * length of each run change; every element goes through the same op functions, so the
 * results are the same bits as the chunk walk's, whatever the thread split. */
#define LT_TILE_MIN_ROW 40              /* shorter rows keep the chunk walk (docs/architecture.md) */
#define LT_TILE_MIN_STRIDE 64           /* a last stride (bytes) from which loads are staged */
#define LT_TILE_COLS LT_CHUNK           /* a row segment fits one register */
/* a panel's row stride (elements): 16 columns more, for the runs aligned to the output's
 * lines (lt_run_tiled); a constant, as a run-time stride made the staging slower */
#define LT_PANEL_STRIDE (LT_TILE_COLS + 16)
/* Rows of a panel.  X.T + Y, 10^7 float32, one thread, on the Xeon: 32 rows took 0.80x the
 * time of 64, 16 rows 0.85x, 8 rows 1.06x; 128 or 512 columns a block instead of 256 were
 * slower; in float64 32 rows beat 16 (bench_ab.py and benchmarks of builds with each
 * setting, calls alternating).  On the AMD EPYC Zen 5, with large outputs (streamed and
 * prefetched, below), 40 rows of 4-byte values beat 32: a line of X gives 160 bytes, not
 * 128, and the panel (40 KiB) still fits L1 (the figures: lt_run_tiled); in L3 (square
 * sides 700-1000) 40 rows took 1.01-1.05x the time of 32, so smaller outputs keep 32.  On
 * the AVX-512 path the panel is staged by 16 x 16 tiles (lt_stage16) and large outputs keep
 * 32 rows too: X.T + Y of 1024 x 9765 float32 from memory, one thread, 40 rows (32 by
 * tiles, 8 one by one) took 1.06x the time of 32 (on the AVX2 and generic paths, 3162^2, 40
 * and 32 tie).  The
 * number of columns stays a constant: a run-time one made the staging slower. */
#define LT_TILE_ROWS 32
#define LT_TILE_ROWS_LARGE 40
#ifndef LT_STAGE_AHEAD
#define LT_STAGE_AHEAD 16
#endif

static int lt_reg_staged(const lt_program *p, int32_t r)
{
    if (p->reg_kind[r] != LT_REG_LOAD) return 0;
    const int64_t s = p->in_strides[p->reg_arg[r] * p->ndim + p->ndim - 1];
    return s >= LT_TILE_MIN_STRIDE || s <= -LT_TILE_MIN_STRIDE;
}

static int lt_plan_tiled(const lt_program *p)
{
    if (p->n_red != 0 || p->ndim < 2 || p->shape[p->ndim - 1] < LT_TILE_MIN_ROW) return 0;
    for (int32_t r = 0; r < p->n_regs; r++)
        if (lt_reg_staged(p, r)) return 1;
    return 0;
}

/* Copy rows [0, nrows) x columns [c0, c0 + cn) of a load into its panel (row i at
 * panel + i * C elements): 8 columns at a time down all the rows, so the 8
 * source lines are read through while they are in L1. */
#define LT_STAGE_T(T)                                                                        \
    for (int64_t j0 = 0; j0 < cn; j0 += 8) {                                                 \
        const int64_t jn = cn - j0 < 8 ? cn - j0 : 8;                                        \
        if (c0 + j0 + LT_STAGE_AHEAD + 8 <= L)                                               \
            for (int j = 0; j < 8; j++)                                                      \
                for (int64_t i = 0; i < nrows; i += step)                                    \
                    __builtin_prefetch(base + rowoff[i] + (c0 + j0 + LT_STAGE_AHEAD + j) * s); \
        for (int64_t i = 0; i < nrows; i++) {                                                \
            const char *src = base + rowoff[i] + (c0 + j0) * s;                              \
            T *dst = (T *)panel + i * C + j0;                                                \
            if (jn == 8) {                                                                   \
                for (int j = 0; j < 8; j++) dst[j] = *(const T *)(src + j * s);              \
            } else {                                                                         \
                for (int64_t j = 0; j < jn; j++) dst[j] = *(const T *)(src + j * s);         \
            }                                                                                \
        }                                                                                    \
    }
#ifdef LT_STREAM_LINES
/* Prefetch (`hint`) the lines holding bytes [b, b + bytes) */
#define LT_PREFETCH_SPAN(b, bytes, hint)                                                      \
    for (uintptr_t q_ = (uintptr_t)(b) & ~(uintptr_t)63;                                      \
         q_ <= ((uintptr_t)(b) + (uintptr_t)(bytes) - 1); q_ += 64)                          \
        _mm_prefetch((const char *)q_, hint)

/* 16 x 16 transpose of 4-byte elements in registers (unpack, shuffle, two lane shuffles):
 * moves bits, changes none */
__attribute__((target("avx512f")))
static inline void lt_transpose16(__m512 *r)
{
    __m512 t[16];
    for (int k = 0; k < 8; k++) {
        t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 4; k++) {
        r[4 * k + 0] = _mm512_shuffle_ps(t[4 * k + 0], t[4 * k + 2], 0x44);
        r[4 * k + 1] = _mm512_shuffle_ps(t[4 * k + 0], t[4 * k + 2], 0xEE);
        r[4 * k + 2] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0x44);
        r[4 * k + 3] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0xEE);
    }
    for (int k = 0; k < 2; k++)
        for (int q = 0; q < 4; q++) {
            t[8 * k + q] = _mm512_shuffle_f32x4(r[8 * k + q], r[8 * k + 4 + q], 0x88);
            t[8 * k + 4 + q] = _mm512_shuffle_f32x4(r[8 * k + q], r[8 * k + 4 + q], 0xDD);
        }
    for (int q = 0; q < 8; q++) {
        r[q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0x88);
        r[8 + q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0xDD);
    }
}

/* lt_stage's case of 4-byte elements with adjacent rows on the AVX-512 path: 16 x 16 tiles
 * (rows past the last multiple of 16, and columns past the last multiple of 16, copied one
 * by one).  X.T + Y from memory, one thread: with the 4 x 4 SSE tiles instead, 3162^2
 * float32 took 1.11-1.15x the time, 1024 x 9765 1.03-1.04x (docs/architecture.md). */
__attribute__((target("avx512f")))
static void lt_stage16(float *panel, const char *b0, int64_t nrows, int64_t c0, int64_t cn,
                       int64_t s, int64_t L)
{
    const int64_t PW = LT_PANEL_STRIDE;
    const int64_t r16 = nrows & ~(int64_t)15;
    int64_t j0 = 0;
    for (; j0 + 16 <= cn; j0 += 16) {
        const int64_t col = c0 + j0;
        for (int j = 0; j < 16 && col + LT_STAGE_AHEAD + j < L; j++)
            LT_PREFETCH_SPAN(b0 + (col + LT_STAGE_AHEAD + j) * s, 4 * nrows, _MM_HINT_T0);
        for (int64_t i = 0; i < r16; i += 16) {
            __m512 t[16];
            for (int k = 0; k < 16; k++)
                t[k] = _mm512_loadu_ps((const float *)(b0 + 4 * i + (col + k) * s));
            lt_transpose16(t);
            for (int k = 0; k < 16; k++) _mm512_storeu_ps(panel + (i + k) * PW + j0, t[k]);
        }
        for (int64_t i = r16; i < nrows; i++)
            for (int k = 0; k < 16; k++)
                memcpy(panel + i * PW + j0 + k, b0 + 4 * i + (col + k) * s, 4);
    }
    for (; j0 < cn; j0++)
        for (int64_t i = 0; i < nrows; i++)
            memcpy(panel + i * PW + j0, b0 + 4 * i + (c0 + j0) * s, 4);
}
#endif

static void lt_stage(char *panel, const char *base, const int64_t *rowoff, int64_t nrows,
                     int64_t c0, int64_t cn, int64_t s, int32_t size, int64_t C, int64_t L,
                     int32_t path, int large)
{
    /* the lines of the columns LT_STAGE_AHEAD on are fetched while these are copied (one
     * prefetch per line when the rows are adjacent, as in a transpose) */
    const int64_t step = 64 / size;
    (void)path; (void)large;
#if defined(__SSE2__)
    if (size == 4 && nrows >= 4) {
        /* 4-byte elements with adjacent rows (a transpose of a dense block): 4 x 4 tiles
         * through SSE shuffles, which move bits and change none */
        int adjacent = 1;
        for (int64_t i = 1; i < nrows; i++) adjacent &= rowoff[i] == rowoff[0] + 4 * i;
#ifdef LT_STREAM_LINES
        /* (rows 4 KiB apart, all in one L1 set, take the 4 x 4 tiles, unless from memory:
         * 1024 x 976 float32 outputs, in L3, took 1.09x the time with 16 x 16 tiles, and
         * 1024 x 9765, from memory, 0.96x) */
        if (adjacent && path == LT_PATH_AVX512 && nrows >= 16 && (large || s % 4096 != 0)) {
            lt_stage16((float *)panel, base + rowoff[0], nrows, c0, cn, s, L);
            return;
        }
#endif
        if (adjacent) {
            const char *b0 = base + rowoff[0];
            for (int64_t j0 = 0; j0 < cn; j0 += 4) {
                const int64_t col = c0 + j0;
                if (j0 % 8 == 0 && col + LT_STAGE_AHEAD + 8 <= L)
                    for (int j = 0; j < 8; j++)
                        for (int64_t i = 0; i < nrows; i += 16)
                            __builtin_prefetch(b0 + 4 * i + (col + LT_STAGE_AHEAD + j) * s);
                float *dst = (float *)panel + j0;
                if (cn - j0 < 4) {
                    for (int64_t i = 0; i < nrows; i++)
                        for (int64_t j = 0; j < cn - j0; j++)
                            memcpy(dst + i * C + j, b0 + 4 * i + (col + j) * s, 4);
                    break;
                }
                int64_t i = 0;
                for (; i + 4 <= nrows; i += 4) {
                    const char *src = b0 + 4 * i + col * s;
                    __m128 a0 = _mm_loadu_ps((const float *)src);
                    __m128 a1 = _mm_loadu_ps((const float *)(src + s));
                    __m128 a2 = _mm_loadu_ps((const float *)(src + 2 * s));
                    __m128 a3 = _mm_loadu_ps((const float *)(src + 3 * s));
                    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
                    _mm_storeu_ps(dst + (i + 0) * C, a0);
                    _mm_storeu_ps(dst + (i + 1) * C, a1);
                    _mm_storeu_ps(dst + (i + 2) * C, a2);
                    _mm_storeu_ps(dst + (i + 3) * C, a3);
                }
                for (; i < nrows; i++)
                    for (int j = 0; j < 4; j++) memcpy(dst + i * C + j, b0 + 4 * i + (col + j) * s, 4);
            }
            return;
        }
    }
#endif
    switch (size) {
    case 1: LT_STAGE_T(uint8_t) break;
    case 2: LT_STAGE_T(uint16_t) break;
    case 4: LT_STAGE_T(uint32_t) break;
    case 8: LT_STAGE_T(uint64_t) break;
    default: LT_STAGE_T(lt_c128) break;      /* complex128 */
    }
}

/* Row i's share of the lines of the next block of columns [c0n, c0n + cnn) of each staged
 * load with adjacent rows (next_of), fetched into L2: a 1/nrows part of the columns per
 * row, so that the whole block is there when it is staged.  X.T + Y from memory, one
 * thread: without it 1.05-1.06x the time (3162^2 and 1024 x 9765 float32).  Kept out of
 * line: inlined, it slowed the walk's chunk loop where it does not run (outputs within the
 * cache; 1024 x 976: 1.07x). */
static __attribute__((noinline)) void lt_prefetch_next_block(
    const lt_program *p, const char *next_of, const int64_t *rowoff, int64_t R, int64_t nrows,
    int64_t i, int64_t c0n, int64_t cnn)
{
#ifdef LT_STREAM_LINES
    const int32_t last = p->ndim - 1;
    for (int32_t r = 0; r < p->n_regs; r++) {
        if (!next_of[r]) continue;
        const int32_t k = p->reg_arg[r];
        const int64_t sk = p->in_strides[k * p->ndim + last];
        const char *b0 = p->in_ptr[k] + rowoff[k * R];
        for (int64_t j = c0n + i * cnn / nrows; j < c0n + (i + 1) * cnn / nrows; j++)
            LT_PREFETCH_SPAN(b0 + j * sk, nrows * p->reg_itemsize[r], _MM_HINT_T1);
    }
#else
    (void)p; (void)next_of; (void)rowoff; (void)R; (void)nrows; (void)i; (void)c0n; (void)cnn;
#endif
}

/* Run positions [a, b) of a tiled plan (see above).  Returns -1 if out of memory. */
static int lt_run_tiled(lt_ctx *c, int64_t a, int64_t b)
{
    const lt_program *p = c->p;
    const int32_t nd = p->ndim, last = nd - 1;
    const int64_t *shape = p->shape;
    const int64_t L = shape[last];
    int32_t r, k, d;
    int64_t i;
    int32_t max_size = 1;
    size_t n_staged = 0;
    for (r = 0; r < p->n_regs; r++)
        if (lt_reg_staged(p, r)) {
            n_staged++;
            if (p->reg_itemsize[r] > max_size) max_size = p->reg_itemsize[r];
        }
    /* Large outputs: streamed (as the chunk walk's, lt_stream_outputs), the loads read in
     * place fetched a block of columns ahead (each panel row's run of them is short, and the
     * panel's rows are as many streams), and panels of 40 rows of 4-byte values.  X.T + Y
     * on the AMD EPYC Zen 5 against the build before, one thread (bench_ab.py): 1024 x 9766
     * 0.77-0.82x the time, square sides 1448-4096 0.80-0.87x but 3162 level (1.00); in L3
     * (not large) 0.99x (docs/architecture.md).  Streaming without the prefetch: 1.27x.
     * (32 rows on the AVX-512 path: see LT_TILE_ROWS.) */
    const int stream = lt_stream_outputs(p);
    const int large = lt_output_bytes(p) >= LT_STREAM_MIN_BYTES;
    const int64_t R = large && max_size <= 4 && p->path != LT_PATH_AVX512 ? LT_TILE_ROWS_LARGE
                                                                          : LT_TILE_ROWS;
    const int64_t C = LT_TILE_COLS;
    /* Streamed outputs of one element size (4 or 8 bytes): each row's runs start at the
     * 64-byte boundaries of the first output (after a head run of the row's first block),
     * so that every streamed line is written whole by one store, never in two halves a
     * block apart (a half line streamed is a read-modify-write in memory).  The panel then
     * holds E more columns, as a row's run reaches up to E - 1 columns past its block.
     * X.T + Y from memory, one thread: without it 1.03-1.06x the time (3162^2 and
     * 1024 x 9765 float32). */
    int32_t out_size = 0, out_reg = -1;
    for (r = 0; r < p->n_regs; r++)
        if (p->reg_kind[r] == LT_REG_OUTPUT) {
            if (out_reg < 0) out_reg = r, out_size = p->reg_itemsize[r];
            else if (p->reg_itemsize[r] != out_size) out_size = 0;
        }
    const int64_t E = stream && (out_size == 4 || out_size == 8) ? 64 / out_size : 0;
    const int64_t PW = LT_PANEL_STRIDE;   /* >= C + E */
    const size_t panel_bytes = (size_t)(R * PW * max_size);
    char *panels = NULL;
    if (posix_memalign((void **)&panels, 64, panel_bytes * n_staged) != 0) return -1;
    int64_t *rowoff = (int64_t *)malloc(sizeof(int64_t) * (size_t)(R * (p->n_in ? p->n_in : 1) + R));
    char **panel_of = (char **)calloc((size_t)p->n_regs + 1, sizeof(char *));
    if (!rowoff || !panel_of) { free(panels); free(rowoff); free(panel_of); return -1; }
    int64_t *shift = rowoff + R * (p->n_in ? p->n_in : 1);     /* per row of a panel */
    char *next_of = (char *)calloc((size_t)p->n_regs + 1, 1);   /* per staged register */
    if (!next_of) { free(panels); free(rowoff); free(panel_of); return -1; }
    n_staged = 0;
    for (r = 0; r < p->n_regs; r++)
        if (lt_reg_staged(p, r)) panel_of[r] = panels + panel_bytes * n_staged++;

    const int64_t g_first = a / L, g_last = (b - 1) / L;
    int64_t oidx[LT_MAX_DIMS];
    int64_t rem = g_first;
    for (d = last - 1; d >= 0; d--) { oidx[d] = rem % shape[d]; rem /= shape[d]; }
    for (int64_t g0 = g_first; g0 <= g_last; g0 += R) {
        const int64_t nrows = g_last + 1 - g0 < R ? g_last + 1 - g0 : R;
        /* each input's byte offset of each row of the block */
        for (i = 0; i < nrows; i++) {
            for (k = 0; k < p->n_in; k++) {
                int64_t o = 0;
                for (d = 0; d < last; d++) o += oidx[d] * p->in_strides[k * nd + d];
                rowoff[k * R + i] = o;
            }
            for (d = last - 1; d >= 0; d--) {
                if (++oidx[d] < shape[d]) break;
                oidx[d] = 0;
            }
        }
        /* the first row of the range may start, and its last row end, inside the row */
        const int64_t lo = g0 == g_first ? a - g_first * L : 0;
        const int64_t hi = g0 + nrows - 1 == g_last ? b - g_last * L : L;
        const int64_t cmin = nrows == 1 ? lo : 0, cmax = nrows == 1 ? hi : L;
        const int64_t cfirst = cmin - cmin % C;
        /* each row's shift: the columns from a block's start to the first output's next
         * 64-byte boundary (the same in every block, C elements being whole lines) */
        for (i = 0; i < nrows; i++) {
            shift[i] = 0;
            if (!E) continue;
            const uintptr_t at = (uintptr_t)(p->out_ptr[p->reg_arg[out_reg]] +
                                             ((g0 + i) * L + cfirst) * out_size);
            if (at % (uintptr_t)out_size == 0)
                shift[i] = (int64_t)(((64 - at % 64) % 64) / (uintptr_t)out_size);
        }
        /* a staged load whose rows are adjacent (a transpose of a dense block) has the
         * next block's lines fetched into L2 while this block runs (large plans only) */
        int any_next = 0;
        for (r = 0; r < p->n_regs; r++) {
            if (!panel_of[r]) continue;
            const int64_t *ro = rowoff + p->reg_arg[r] * R;
            int adj = large && nrows > 1;
            for (i = 1; i < nrows && adj; i++) adj = ro[i] == ro[0] + i * p->reg_itemsize[r];
            next_of[r] = adj;
            any_next |= adj;
        }
        for (int64_t c0 = cfirst; c0 < cmax; c0 += C) {
            const int64_t cn = L - c0 < C + E ? L - c0 : C + E;     /* columns staged */
            for (r = 0; r < p->n_regs; r++) {
                if (!panel_of[r]) continue;
                k = p->reg_arg[r];
                lt_stage(panel_of[r], p->in_ptr[k], rowoff + k * R, nrows, c0, cn,
                         p->in_strides[k * nd + last], p->reg_itemsize[r], PW, L, p->path, large);
            }
            for (i = 0; i < nrows; i++) {
              /* this block's run of row i: from the row's shift on (from the block's start
               * in the first block), to the next block's; within the range's ends */
              const int64_t run_s = c0 == cfirst ? c0 : c0 + shift[i];
              const int64_t run_e = c0 + C + shift[i] >= L ? L : c0 + C + shift[i];
              const int64_t s00 = i == 0 && lo > run_s ? lo : run_s;
              const int64_t e0 = i == nrows - 1 && hi < run_e ? hi : run_e;
              const int64_t head_e = c0 + shift[i];     /* the first block's head run ends */
              if (any_next && c0 + C < L)
                  lt_prefetch_next_block(p, next_of, rowoff, R, nrows, i, c0 + C,
                                         L - c0 - C < C + E ? L - c0 - C : C + E);
              for (int64_t s0 = s00, n; s0 < e0; s0 += n) {
                n = e0 - s0 < LT_CHUNK ? e0 - s0 : LT_CHUNK;
                if (s0 < head_e && head_e - s0 < n) n = head_e - s0;
                const int64_t pos = (g0 + i) * L + s0;
                for (r = 0; r < p->n_regs; r++) {
                    const int32_t size = p->reg_itemsize[r];
                    if (p->reg_kind[r] == LT_REG_LOAD) {
                        k = p->reg_arg[r];
                        const int64_t s = p->in_strides[k * nd + last];
                        const char *src = p->in_ptr[k] + rowoff[k * R + i] + s0 * s;
                        if (panel_of[r]) {
                            c->regp[r] = panel_of[r] + (size_t)((i * PW + (s0 - c0)) * size);
                        } else if (s == size) {
                            c->regp[r] = (void *)src;
                            if (large && c0 + C < L)
                                for (int64_t q = 0; q < n * size; q += 64)
                                    __builtin_prefetch(src + C * size + q);
                        } else if (s == 0) {
                            lt_ctx_fill(c, r, src, n);
                        } else {
                            c->regp[r] = c->regmem[r];
                            c->fill_src[r] = NULL;
                            lt_gather((char *)c->regp[r], src, s, n, size);
                        }
                    } else if (p->reg_kind[r] == LT_REG_OUTPUT) {
                        c->regp[r] = p->out_ptr[p->reg_arg[r]] + pos * size;
                    }
                }
                if (!stream) {
                    lt_ctx_exec(c, n);
                    continue;
                }
                for (r = 0; r < p->n_regs; r++)
                    if (p->reg_kind[r] == LT_REG_OUTPUT)
                        c->regp[r] = c->regmem[r];
                lt_ctx_exec(c, n);
                for (r = 0; r < p->n_regs; r++)
                    if (p->reg_kind[r] == LT_REG_OUTPUT)
                        lt_stream_out(p->path, p->out_ptr[p->reg_arg[r]] + pos * p->reg_itemsize[r],
                                      c->regp[r], n * p->reg_itemsize[r]);
              }
            }
        }
    }
#if defined(__SSE2__)
    if (stream) _mm_sfence();   /* the streamed lines are visible before the caller reads */
#endif
    c->at = -1;
    free(panels); free(rowoff); free(panel_of); free(next_of);
    return 0;
}

typedef struct {
    const lt_program *p;
    int64_t first_chunk, end_chunk;
    int status;
} lt_task;

static void lt_run_range(lt_task *task)
{
    const lt_program *p = task->p;
    lt_ctx c;
    if (task->first_chunk >= task->end_chunk) { task->status = 0; return; }
    if (lt_ctx_open(&c, p) != 0) { task->status = -1; return; }
    int64_t pos = task->first_chunk * LT_CHUNK;
    const int64_t end = task->end_chunk * LT_CHUNK < p->size ? task->end_chunk * LT_CHUNK : p->size;
    task->status = 0;
    if (lt_plan_tiled(p)) {
        task->status = lt_run_tiled(&c, pos, end);
    } else {
        c.stream = lt_stream_outputs(p);
        while (pos < end) {
            const int64_t n = end - pos < LT_CHUNK ? end - pos : LT_CHUNK;
            lt_ctx_chunk(&c, pos, n);
            pos += n;
        }
    }
    lt_ctx_close(&c);
}

static void lt_range_task(void *arg) { lt_run_range((lt_task *)arg); }
