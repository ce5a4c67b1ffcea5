/* Writing a chunk's outputs (streaming stores) and running one chunk of a plan.
 * Part of lt_kernel.c (included there, in this order: one translation unit). */

/* Large outputs are written with non-temporal stores: the ops write a chunk's outputs into
 * their scratch registers (in L1), then each is copied out with stores that skip the cache.
 * A normal store first reads the line it writes (12 bytes of traffic per float32 of x + 1,
 * not 8), and an output this large leaves the cache anyway.  Measured on the Xeon with
 * AVX-512 (C loop over chunks, x + 1 in float32): 4 MiB outputs and more ran in 0.6-0.75x
 * the time, also counting a second pass that reads the output back; outputs within L2
 * (100-300 Ki elements) ran slower, hence the threshold (LT_STREAM_MIN_BYTES, lt_kernel.h).
 * Kernels whose outputs are 8-bit or written by a costly op keep normal stores
 * (lt_program.plain_stores; the rule and its figures: lazytensor/_engine/cost.py).  Blocks of
 * rows (lt_run_blocks) stream what lt_program.stream asks for, whatever the rule says: tried
 * there, the rule did not hold (a costly op writing a block's output gained a little from
 * normal stores in one case, lost in another). */
static int64_t lt_output_bytes(const lt_program *p)
{
    int64_t bytes = 0;
    for (int32_t r = 0; r < p->n_regs; r++)
        if (p->reg_kind[r] == LT_REG_OUTPUT) bytes += p->size * p->reg_itemsize[r];
    return bytes;
}

static int lt_stream_outputs(const lt_program *p)
{
    if (p->n_red != 0) return 0;
    if (p->stream) return 1;
    if (p->plain_stores & (p->exact ? 2 : 1)) return 0;
    return lt_output_bytes(p) >= LT_STREAM_MIN_BYTES;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define LT_STREAM_LINES 1
/* The same with W-byte stores, W the vector width of the kernel path: on the AVX-512 path one
 * 64-byte store fills a write-combining buffer, which then leaves at once (x + 1 of 10^7
 * float32: 0.94x the time of the 16-byte stores of lt_stream_copy); on the AVX2 path 32-byte
 * stores (the figures: docs/architecture.md).  dst may start anywhere: the partial vectors at
 * either end get plain copies. */
#define LT_STREAM_COPY_WIDE(NAME, TARGET, W, STORE)                                           \
__attribute__((target(TARGET)))                                                               \
static void NAME(char *dst, const char *src, int64_t bytes)                                   \
{                                                                                             \
    int64_t head = (int64_t)((W - ((uintptr_t)dst & (W - 1))) & (W - 1)), i;                 \
    if (head > bytes) head = bytes;                                                           \
    memcpy(dst, src, (size_t)head);                                                           \
    for (i = head; i + W <= bytes; i += W) STORE;                                             \
    memcpy(dst + i, src + i, (size_t)(bytes - i));                                            \
}
LT_STREAM_COPY_WIDE(lt_stream_copy_lines, "avx512f", 64,
                    _mm512_stream_si512((void *)(dst + i), _mm512_loadu_si512((const void *)(src + i))))
LT_STREAM_COPY_WIDE(lt_stream_copy_halves, "avx", 32,
                    _mm256_stream_si256((__m256i *)(dst + i),
                                        _mm256_loadu_si256((const __m256i *)(src + i))))
#endif

#ifdef LT_STREAM_LINES
/* dst[i] = src[i] * r for i < n with W-byte streaming stores (fast mode's softmax rows: the
 * division by the row sum as the product divide_by_scalar makes it, without the product's
 * round trip through a chunk buffer before lt_stream_out).  Elements before dst's first
 * W-byte boundary and after its last get normal stores of the same products. */
#define LT_STREAM_SCALE(NAME, TARGET, T, W, VT, SET1, LOADU, MUL, STREAM)                       \
__attribute__((target(TARGET)))                                                               \
static void NAME(T *dst, const T *src, T r, int64_t n)                                        \
{                                                                                             \
    int64_t i = 0;                                                                            \
    for (; i < n && ((uintptr_t)(dst + i) & (W - 1)) != 0; i++) dst[i] = src[i] * r;         \
    const VT vr = SET1(r);                                                                    \
    for (; i + (int64_t)(W / sizeof(T)) <= n; i += W / sizeof(T))                             \
        STREAM(dst + i, MUL(LOADU(src + i), vr));                                             \
    for (; i < n; i++) dst[i] = src[i] * r;                                                   \
}
LT_STREAM_SCALE(lt_stream_scale_f32_lines, "avx512f", float, 64, __m512, _mm512_set1_ps,
                _mm512_loadu_ps, _mm512_mul_ps, _mm512_stream_ps)
LT_STREAM_SCALE(lt_stream_scale_f64_lines, "avx512f", double, 64, __m512d, _mm512_set1_pd,
                _mm512_loadu_pd, _mm512_mul_pd, _mm512_stream_pd)
LT_STREAM_SCALE(lt_stream_scale_f32_halves, "avx", float, 32, __m256, _mm256_set1_ps,
                _mm256_loadu_ps, _mm256_mul_ps, _mm256_stream_ps)
LT_STREAM_SCALE(lt_stream_scale_f64_halves, "avx", double, 32, __m256d, _mm256_set1_pd,
                _mm256_loadu_pd, _mm256_mul_pd, _mm256_stream_pd)
#endif

/* fast mode's division of a softmax row by its sum s (a value of the row's dtype) with
 * streaming stores: 1 when done, 0 when the caller divides (the generic path, or a sum
 * whose reciprocal divide_by_scalar does not use) */
static int lt_stream_scale(int32_t path, char *dst, const char *src, const char *s, int64_t n,
                           int64_t itemsize)
{
#ifdef LT_STREAM_LINES
    if (path != LT_PATH_AVX512 && path != LT_PATH_AVX2) return 0;
    const int wide = path == LT_PATH_AVX512;
    if (itemsize == 4) {
        float c, r;
        memcpy(&c, s, 4);
        if (!lt_div_scalarf_multiplies(c, &r)) return 0;
        (wide ? lt_stream_scale_f32_lines : lt_stream_scale_f32_halves)(
            (float *)dst, (const float *)src, r, n);
    } else {
        double c, r;
        memcpy(&c, s, 8);
        if (!lt_div_scalar_multiplies(c, &r)) return 0;
        (wide ? lt_stream_scale_f64_lines : lt_stream_scale_f64_halves)(
            (double *)dst, (const double *)src, r, n);
    }
    return 1;
#else
    (void)path; (void)dst; (void)src; (void)s; (void)n; (void)itemsize;
    return 0;
#endif
}

static void lt_stream_copy(char *dst, const char *src, int64_t bytes)
{
#if defined(__SSE2__)
    if (((uintptr_t)dst & 15) == 0) {       /* every x86-64 has these SSE2 stores */
        int64_t i = 0;
        for (; i + 16 <= bytes; i += 16)
            _mm_stream_si128((__m128i *)(dst + i), _mm_load_si128((const __m128i *)(src + i)));
        memcpy(dst + i, src + i, (size_t)(bytes - i));
        return;
    }
#endif
    memcpy(dst, src, (size_t)bytes);
}

/* the copy of one chunk of a streamed output: 64-byte stores on the AVX-512 path, 32-byte
 * stores on the AVX2 path */
static void lt_stream_out(int32_t path, char *dst, const char *src, int64_t bytes)
{
#ifdef LT_STREAM_LINES
    if (path == LT_PATH_AVX512) {
        lt_stream_copy_lines(dst, src, bytes);
        return;
    }
    if (path == LT_PATH_AVX2) {
        lt_stream_copy_halves(dst, src, bytes);
        return;
    }
#endif
    (void)path;
    lt_stream_copy(dst, src, bytes);
}

/* Run the program over positions [pos, pos + n) of the plan (n <= LT_CHUNK). */
static void lt_ctx_chunk(lt_ctx *c, int64_t pos, int64_t n)
{
    const lt_program *p = c->p;
    char *scratch = c->scratch;
    void **regp = c->regp;
    int32_t r, k;
    if (p->ndim == 1) {
        /* one coalesced dimension: each load is in place or one strided gather */
        for (r = 0; r < p->n_regs; r++) {
            if (p->reg_kind[r] == LT_REG_LOAD) {
                k = p->reg_arg[r];
                const int64_t s = p->in_strides[k];
                char *src = p->in_ptr[k] + pos * s;
                if (s == p->reg_itemsize[r]) {
                    regp[r] = src;
                    lt_prefetch_ahead(c, k, pos * s, s);
                } else {
                    regp[r] = c->regmem[r];
                    c->fill_src[r] = NULL;
                    lt_gather((char *)regp[r], src, s, n, p->reg_itemsize[r]);
                }
            } else if (p->reg_kind[r] == LT_REG_OUTPUT) {
                regp[r] = p->out_ptr[p->reg_arg[r]] + pos * p->reg_itemsize[r];
            }
        }
    } else {
        if (c->at != pos) lt_ctx_seek(c, pos);
        lt_walk_chunk(c, n, pos);
    }
    c->at = pos + n;
    if (c->stream) {
        for (r = 0; r < p->n_regs; r++)
            if (p->reg_kind[r] == LT_REG_OUTPUT) regp[r] = c->regmem[r];
        lt_ctx_exec(c, n);
        for (r = 0; r < p->n_regs; r++)
            if (p->reg_kind[r] == LT_REG_OUTPUT)
                lt_stream_out(p->path, p->out_ptr[p->reg_arg[r]] + pos * p->reg_itemsize[r], regp[r],
                              n * p->reg_itemsize[r]);
        return;
    }
    lt_ctx_exec(c, n);
}
