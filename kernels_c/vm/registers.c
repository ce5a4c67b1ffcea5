/* The chunk interpreter: fills and gathers, the per-thread memory block, the walk of a plan's chunks, running the instructions.
 * Part of lt_kernel.c (included there, in this order: one translation unit). */

/* A register holds a chunk of values of up to 8 bytes, or of 16 (complex128): its bytes
 * (lt_ctx.regmem points at each register's) */
#define LT_REG_BYTES(size) ((size_t)LT_CHUNK * ((size) > 8 ? 16 : 8))
#define LT_MAX_DIMS 64
#define LT_PARALLEL_MIN_CHUNKS 64      /* chunks a thread, for runs of unknown cost (lt_thread_count) */

/* Fill n elements of `size` bytes at dst with the value at src (typed stores: a memcpy call
 * per element made small runs cost microseconds). */
static void lt_fill(char *dst, const char *src, int64_t n, int32_t size)
{
    int64_t i;
    switch (size) {
    case 1: memset(dst, *(const uint8_t *)src, (size_t)n); break;
    case 2: { uint16_t v; memcpy(&v, src, 2); for (i = 0; i < n; i++) ((uint16_t *)dst)[i] = v; } break;
    case 4: { uint32_t v; memcpy(&v, src, 4); for (i = 0; i < n; i++) ((uint32_t *)dst)[i] = v; } break;
    case 8: { uint64_t v; memcpy(&v, src, 8); for (i = 0; i < n; i++) ((uint64_t *)dst)[i] = v; } break;
    default: { lt_c128 v; memcpy(&v, src, 16); for (i = 0; i < n; i++) ((lt_c128 *)dst)[i] = v; } break;
    }
}

/* Copy n elements of `size` bytes from src (byte stride) to contiguous dst: one copy for a
 * contiguous run, a typed fill for stride 0, a reversed copy for stride -size (x[::-1]),
 * typed strided loads otherwise. */
#define LT_GATHER_T(T)                                                                      \
    do {                                                                                    \
        T *d_ = (T *)dst;                                                                   \
        if (stride == -(int64_t)sizeof(T)) {                                                \
            const T *s_ = (const T *)src;                                                   \
            for (i = 0; i < n; i++) d_[i] = s_[-i];                                         \
        } else {                                                                            \
            for (i = 0; i < n; i++) d_[i] = *(const T *)(src + i * stride);                 \
        }                                                                                   \
    } while (0)
static void lt_gather(char *dst, const char *src, int64_t stride, int64_t n, int32_t size)
{
    int64_t i;
    if (stride == size) {               /* a contiguous run: one copy */
        memcpy(dst, src, (size_t)(n * size));
        return;
    }
    if (stride == 0) {                  /* one value repeated */
        lt_fill(dst, src, n, size);
        return;
    }
    /* the inputs are NumPy buffers: their elements are aligned to the itemsize */
    switch (size) {
    case 1: LT_GATHER_T(uint8_t); break;
    case 2: LT_GATHER_T(uint16_t); break;
    case 4: LT_GATHER_T(uint32_t); break;
    case 8: LT_GATHER_T(uint64_t); break;
    default: LT_GATHER_T(lt_c128); break;     /* complex128 */
    }
}

/* One thread's state: the registers, the scratch chunk memory and the walk position. */
typedef struct {
    const lt_program *p;
    const lt_opfn *table;
    int64_t idx[LT_MAX_DIMS];
    int64_t *off;
    int64_t *in_last;            /* per input: the largest byte offset of an element */
    char *scratch;
    char **regmem;               /* each register's own memory in scratch */
    void **regp;
    /* a load register of a value-per-row input (last stride 0) holds fill_n copies of the
     * value at fill_src; NULL when its scratch holds anything else */
    const char **fill_src;
    int64_t *fill_n;
    int64_t at;                  /* the position idx/off describe */
    int stream;                  /* outputs go through scratch and non-temporal stores */
    int prefetch;                /* inputs read in place are prefetched (lt_prefetch_ahead) */
    uint64_t fp_saved;
    char *block;                 /* the memory of scratch, off, in_last, regp, fill_src, fill_n, regmem */
    int block_owned;             /* 1: allocated for this context; 0: the thread's block */
} lt_ctx;

/* A thread keeps the memory block its last kernel used (registers and bookkeeping), so a
 * small call allocates nothing; a kernel that needs more replaces it.  The block is freed
 * when the thread ends.  A context opened while the thread's block is in use (none is
 * today) gets a block of its own. */
typedef struct {
    char *mem;
    size_t cap;
    int busy;
} lt_block;
static pthread_key_t lt_block_key;
static pthread_once_t lt_block_once = PTHREAD_ONCE_INIT;
static int lt_block_key_ok;

static void lt_block_free(void *b)
{
    free(((lt_block *)b)->mem);
    free(b);
}

static void lt_block_init(void)
{
    lt_block_key_ok = pthread_key_create(&lt_block_key, lt_block_free) == 0;
}

/* 64-byte aligned memory of at least `bytes`, or NULL; *owned says how to give it back. */
static char *lt_block_take(size_t bytes, int *owned)
{
    pthread_once(&lt_block_once, lt_block_init);
    lt_block *b = lt_block_key_ok ? (lt_block *)pthread_getspecific(lt_block_key) : NULL;
    if (b == NULL && lt_block_key_ok && (b = (lt_block *)calloc(1, sizeof *b)) != NULL &&
        pthread_setspecific(lt_block_key, b) != 0) {
        free(b);
        b = NULL;
    }
    char *mem = NULL;
    if (b != NULL && !b->busy) {
        if (b->cap < bytes) {
            free(b->mem);
            b->cap = 0;
            if (posix_memalign((void **)&b->mem, 64, bytes) != 0) {
                b->mem = NULL;
                return NULL;
            }
            b->cap = bytes;
        }
        b->busy = 1;
        *owned = 0;
        return b->mem;
    }
    *owned = 1;
    return posix_memalign((void **)&mem, 64, bytes) == 0 ? mem : NULL;
}

static void lt_block_give(char *mem, int owned)
{
    if (owned) free(mem);
    else if (mem != NULL) ((lt_block *)pthread_getspecific(lt_block_key))->busy = 0;
}

/* Point load register r at n copies of the value at src, filling its scratch only when it
 * does not hold them already (a value per row repeats over the chunks of a row). */
static void lt_ctx_fill(lt_ctx *c, int32_t r, const char *src, int64_t n)
{
    char *reg = c->regmem[r];
    c->regp[r] = reg;
    if (c->fill_src[r] != src || c->fill_n[r] < n) {
        lt_fill(reg, src, n, c->p->reg_itemsize[r]);
        c->fill_src[r] = src;
        c->fill_n[r] = n;
    }
}

/* A load read in place is fetched LT_PREFETCH_CHUNKS chunks ahead of its use when the
 * program asks for it (lt_program.prefetch).  The op functions run one after the other over a
 * chunk, so only the first to read a load makes memory requests; while the later ones
 * compute, the hardware prefetcher has no new misses to follow and memory sits idle.  Asking
 * for a later chunk now keeps it busy.  A costly op reading the load (a long dependency
 * chain per element) gains too: its loop needs many iterations in flight and stalls on
 * loads that miss L1.  Where one cheap op reads the load and does all the work, the
 * hardware prefetcher keeps up and the extra requests cost time.  Which kernels gain
 * differs by CPU (the rules: lazytensor/_engine/cost.py; figures and the commands:
 * docs/architecture.md, the paragraphs on prefetching). */
#define LT_PREFETCH_CHUNKS 8
/* Kernels whose inputs span less than this in all do not prefetch them.  On an AMD EPYC
 * Zen 3 (32 MiB of L3), `bench_stores.py --knob prefetch` (the same build both ways, calls
 * alternating) ran without the prefetch in 0.90-0.97x the time at 10^5 float32 elements
 * and 0.90-1.00x at 10^6 (inputs of 4 or 8 MB, found in L3 at the next call), but in
 * 0.99-1.48x at 3 10^6 (12 MB; a sum and a row maximum gained most); the commands and the
 * figures per workload: docs/architecture.md. */
#define LT_PREFETCH_MIN_BYTES ((int64_t)8 << 20)

/* Prefetch the chunk that lies LT_PREFETCH_CHUNKS chunks after byte offset off of input k
 * (read in place with stride s, its item size), when those bytes are still the input's.
 * Always inlined: gcc found the call free of side effects and dropped it otherwise. */
static inline __attribute__((always_inline)) void
lt_prefetch_ahead(const lt_ctx *c, int32_t k, int64_t off, int64_t s)
{
    if (!c->prefetch || off + (LT_PREFETCH_CHUNKS + 1) * LT_CHUNK * s > c->in_last[k] + s) return;
    const char *ahead = c->p->in_ptr[k] + off + (int64_t)LT_PREFETCH_CHUNKS * LT_CHUNK * s;
    for (int64_t l = 0; l < LT_CHUNK * s; l += 64) __builtin_prefetch(ahead + l);
}

/* Advance the position idx and each input's byte offset off by seg elements within the
 * innermost dimension (seg never passes its end), carrying into the outer dimensions. */
static void lt_advance(const lt_program *p, int64_t *idx, int64_t *off, int64_t seg)
{
    const int32_t nd = p->ndim, last = nd - 1;
    const int64_t *shape = p->shape;
    int32_t k;
    idx[last] += seg;
    for (k = 0; k < p->n_in; k++) off[k] += seg * p->in_strides[k * nd + last];
    for (int32_t d = last; d > 0 && idx[d] == shape[d]; d--) {
        idx[d] = 0;
        idx[d - 1]++;
        for (k = 0; k < p->n_in; k++)
            off[k] += p->in_strides[k * nd + d - 1] - shape[d] * p->in_strides[k * nd + d];
    }
}

/* Whether input k is C-contiguous over the whole plan (every chunk of it one run). */
static int lt_input_contiguous(const lt_program *p, int32_t k, int32_t size)
{
    int64_t expected = size;
    for (int32_t d = p->ndim - 1; d >= 0; d--) {
        if (p->shape[d] != 1 && p->in_strides[k * p->ndim + d] != expected) return 0;
        expected *= p->shape[d];
    }
    return 1;
}

/* Point the registers at chunk [pos, pos + n) of a multi-dimensional plan: a load is read
 * in place when the chunk is one contiguous run of its input (within a row, or anywhere in
 * an input contiguous over the whole plan), filled when the chunk is one run of a value per
 * row (last stride 0), gathered otherwise: row by row when the chunk is whole rows of a 2-D
 * plan, else segment by segment.  Advances idx/off (the position and each input's byte
 * offset) by n. */
static void lt_walk_chunk(lt_ctx *c, int64_t n, int64_t pos)
{
    const lt_program *p = c->p;
    const int32_t nd = p->ndim, last = nd - 1;
    const int64_t *shape = p->shape;
    int64_t *idx = c->idx, *off = c->off;
    char *scratch = c->scratch;
    void **regp = c->regp;
    const int64_t seg0 = shape[last] - idx[last] < n ? shape[last] - idx[last] : n;
    int need_gather = 0;
    int32_t r, k;

    for (r = 0; r < p->n_regs; r++) {
        if (p->reg_kind[r] == LT_REG_LOAD) {
            k = p->reg_arg[r];
            const int64_t s = p->in_strides[k * nd + last];
            if (s == p->reg_itemsize[r] && (seg0 == n || lt_input_contiguous(p, k, s))) {
                regp[r] = p->in_ptr[k] + off[k];
                lt_prefetch_ahead(c, k, off[k], s);
            } else if (seg0 == n && s == 0) {
                lt_ctx_fill(c, r, p->in_ptr[k] + off[k], n);
            } else {
                regp[r] = c->regmem[r];
                c->fill_src[r] = NULL;
                need_gather = 1;
            }
        } else if (p->reg_kind[r] == LT_REG_OUTPUT) {
            regp[r] = p->out_ptr[p->reg_arg[r]] + pos * p->reg_itemsize[r];
        }
    }
    if (!need_gather && seg0 == n) {     /* one segment: advance without walking */
        lt_advance(p, idx, off, n);
        return;
    }
    /* whole rows of a 2-D plan: each gathered load row by row, the position advanced once */
    if (nd == 2 && idx[1] == 0 && n % shape[1] == 0) {
        const int64_t rows = n / shape[1], cols = shape[1];
        for (r = 0; r < p->n_regs; r++) {
            if (p->reg_kind[r] != LT_REG_LOAD || regp[r] != c->regmem[r] || c->fill_src[r] != NULL)
                continue;
            k = p->reg_arg[r];
            const int32_t size = p->reg_itemsize[r];
            const int64_t s0 = p->in_strides[2 * k], s1 = p->in_strides[2 * k + 1];
            for (int64_t i = 0; i < rows; i++)
                lt_gather((char *)regp[r] + i * cols * size, p->in_ptr[k] + off[k] + i * s0, s1,
                          cols, size);
        }
        idx[0] += rows;
        for (k = 0; k < p->n_in; k++) off[k] += rows * p->in_strides[2 * k];
        return;
    }
    /* walk the chunk's segments once; gather the loads that are not in place */
    int64_t done = 0;
    while (done < n) {
        int64_t seg = shape[last] - idx[last];
        if (seg > n - done) seg = n - done;
        for (r = 0; r < p->n_regs; r++) {
            if (p->reg_kind[r] != LT_REG_LOAD || regp[r] != c->regmem[r] ||
                c->fill_src[r] != NULL)
                continue;
            k = p->reg_arg[r];
            lt_gather((char *)regp[r] + done * p->reg_itemsize[r], p->in_ptr[k] + off[k],
                      p->in_strides[k * nd + last], seg, p->reg_itemsize[r]);
        }
        lt_advance(p, idx, off, seg);
        done += seg;
    }
}

static void lt_ctx_seek(lt_ctx *c, int64_t pos)
{
    const lt_program *p = c->p;
    const int32_t nd = p->ndim;
    int64_t rem = pos;
    for (int32_t d = nd - 1; d >= 0; d--) { c->idx[d] = rem % p->shape[d]; rem /= p->shape[d]; }
    for (int32_t k = 0; k < p->n_in; k++) {
        int64_t o = 0;
        for (int32_t d = 0; d < nd; d++) o += c->idx[d] * p->in_strides[k * nd + d];
        c->off[k] = o;
    }
    c->at = pos;
}

static void lt_ctx_free(lt_ctx *c)
{
    lt_block_give(c->block, c->block_owned);
}

static int lt_ctx_open(lt_ctx *c, const lt_program *p)
{
    const size_t nr = (size_t)p->n_regs + 1, n_off = (size_t)(p->n_in ? p->n_in : 1);
    size_t scratch_bytes = LT_REG_BYTES(16);   /* each a multiple of 64 */
    for (int32_t r = 0; r < p->n_regs; r++) scratch_bytes += LT_REG_BYTES(p->reg_itemsize[r]);
    /* the bookkeeping arrays (8-byte items) follow the registers, zeroed */
    const size_t book_bytes = (2 * n_off + 4 * nr) * 8;
    c->p = p;
    c->stream = 0;
    c->prefetch = (p->prefetch & (p->exact ? 2 : 1)) != 0;
    c->table = lt_op_tables[p->path];
    c->block = lt_block_take(scratch_bytes + book_bytes, &c->block_owned);
    if (c->block == NULL) return -1;
    memset(c->block + scratch_bytes, 0, book_bytes);
    c->scratch = c->block;
    c->off = (int64_t *)(c->block + scratch_bytes);
    c->in_last = c->off + n_off;
    c->regp = (void **)(c->in_last + n_off);
    c->fill_src = (const char **)(c->regp + nr);
    c->fill_n = (int64_t *)(c->fill_src + nr);
    c->regmem = (char **)(c->fill_n + nr);
    for (size_t r = 0, at = 0; r < nr; r++) {
        c->regmem[r] = c->scratch + at;
        at += LT_REG_BYTES(r < (size_t)p->n_regs ? p->reg_itemsize[r] : 16);
    }
    /* another library may have switched on flush-to-zero or another rounding mode in this
     * thread: run in the default state and give the caller's state back */
    LT_FP_ENTER(c->fp_saved);
    /* scalar registers hold one value for the whole run */
    for (int32_t r = 0; r < p->n_regs; r++) {
        char *reg = c->regmem[r];
        c->regp[r] = reg;
        if (p->reg_kind[r] == LT_REG_SCALAR)
            lt_fill(reg, p->in_ptr[p->reg_arg[r]], p->size < LT_CHUNK ? p->size : LT_CHUNK,
                    p->reg_itemsize[r]);
    }
    for (int32_t k = 0; k < p->n_in; k++) {
        int64_t last = 0;
        for (int32_t d = 0; d < p->ndim; d++) {
            const int64_t span = (p->shape[d] - 1) * p->in_strides[k * p->ndim + d];
            if (span > 0) last += span;
        }
        c->in_last[k] = last;
    }
    /* inputs that fit in the caches are found there from the second call on, and asking for
     * them ahead only costs time (LT_PREFETCH_MIN_BYTES) */
    if (c->prefetch) {
        int64_t span = 0;
        for (int32_t k = 0; k < p->n_in; k++) span += c->in_last[k];
        if (span < LT_PREFETCH_MIN_BYTES) c->prefetch = 0;
    }
    lt_ctx_seek(c, 0);
    return 0;
}

static void lt_ctx_close(lt_ctx *c)
{
#if defined(__SSE2__)
    if (c->stream) _mm_sfence();   /* the streamed lines are visible before the caller reads */
#endif
    lt_ctx_free(c);
    LT_FP_LEAVE(c->fp_saved);
}

/* Run the instructions over the n elements the registers point at. */
static void lt_ctx_exec(lt_ctx *c, int64_t n)
{
    const lt_program *p = c->p;
    char *scratch = c->scratch;
    void **regp = c->regp;
    for (int32_t i = 0; i < p->n_instr; i++) {
        const int32_t *ins = p->instr + (size_t)i * LT_INSTR_WORDS;
        const int32_t dst = ins[LT_I_DST];
        if (p->reg_kind[dst] == LT_REG_SCRATCH) regp[dst] = c->regmem[dst];
        c->table[ins[LT_I_OP]](n, regp[dst],
                               ins[LT_I_A] >= 0 ? regp[ins[LT_I_A]] : NULL,
                               ins[LT_I_B] >= 0 ? regp[ins[LT_I_B]] : NULL,
                               ins[LT_I_C] >= 0 ? regp[ins[LT_I_C]] : NULL,
                               ins[LT_I_D] >= 0 ? regp[ins[LT_I_D]] : NULL,
                               p->params + 2 * (size_t)i, ins[LT_I_EXACT]);
    }
}
