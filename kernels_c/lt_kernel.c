/* The fused-program interpreter: runs one kernel group over its output in chunks of
 * LT_CHUNK elements.
 *
 * Each chunk: every LOAD register points at its input in place when the chunk is one
 * contiguous run of it, or is gathered through the plan's strides otherwise; then the
 * instructions run over the chunk's registers, writing OUTPUT registers straight into the
 * outputs.  SCALAR registers (inputs with only zero strides) are filled once per thread.
 * The full chunk and the tail run the same op functions with a different length, so an
 * element's result does not depend on its position, and the work is split over threads by
 * ranges of whole chunks, so it does not depend on the thread count either.
 *
 * Python has validated the program and the plan once; nothing here is checked per element.
 */
#define _DEFAULT_SOURCE 1   /* posix_memalign, madvise */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "lt_math.h"
#include "lt_kernel.h"
#include "lt_fpenv.h"

/* lt_ops_generated.c (written by build_kernels.py from lazytensor/_engine/ops.py) defines the
 * op functions and this table. */
extern const lt_opfn *const lt_op_tables[];
extern const lt_expsumfn lt_exp_sum_tables[][2];   /* float32, float64 (build_kernels.py) */
extern const char *const lt_path_names[];
extern const int lt_n_paths;
extern const char *const lt_op_names[];
extern const int lt_n_ops;

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>   /* SSE2 */
#include <immintrin.h>   /* the AVX-512 streaming copy (a target attribute enables it) */
#endif

/* The floating-point state of exact mode's results (lt_fpenv.h): every run saves the
 * calling thread's state, computes in the library's and gives the caller's back. */
#define LT_FP_ENTER(saved) ((saved) = lt_fp_enter_state())
#define LT_FP_LEAVE(saved) lt_fp_leave_state(saved)

uint64_t lt_fpenv_enter(void) { return lt_fp_enter_state(); }
void lt_fpenv_leave(uint64_t saved) { lt_fp_leave_state(saved); }

int lt_fpenv_set(int rounding, int flush)
{
    if (rounding < 0 || rounding > 3) return -1;
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    /* x86's RC field counts down before up, aarch64's RMode up before down */
#if defined(__aarch64__)
    static const uint64_t field[4] = {0, 1, 2, 3};
#else
    static const uint64_t field[4] = {0, 2, 1, 3};
#endif
    uint64_t s = lt_fp_get() & ~(((uint64_t)3 << LT_FP_ROUND_SHIFT) | LT_FP_FLUSH);
    lt_fp_put(s | field[rounding] << LT_FP_ROUND_SHIFT | (flush ? LT_FP_FLUSH : 0));
    return 0;
#else
    static const int mode[4] = {
        FE_TONEAREST,
#if defined(FE_UPWARD) && defined(FE_DOWNWARD) && defined(FE_TOWARDZERO)
        FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO
#else
        -1, -1, -1
#endif
    };
    if (flush || mode[rounding] < 0) return -1;
    return fesetround(mode[rounding]) == 0 ? 0 : -1;
#endif
}

/* Output buffers for the pool of lazytensor/_engine/memory.py: 64-byte aligned, and backed by
 * transparent huge pages where the kernel offers them (fewer page faults on first touch). */
void *lt_alloc(size_t nbytes)
{
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;
    /* large buffers start on a 2 MiB boundary so that madvise can back them with huge pages */
    if (posix_memalign(&p, nbytes >= huge ? huge : 64, nbytes ? nbytes : 64) != 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (nbytes >= huge) madvise(p, nbytes & ~(size_t)4095, MADV_HUGEPAGE);
#endif
    return p;
}

void lt_free(void *ptr) { free(ptr); }

int lt_path_count(void) { return lt_n_paths; }
const char *lt_path_name(int path) { return (path >= 0 && path < lt_n_paths) ? lt_path_names[path] : ""; }

/* the kernel paths, in the order of build_kernels.X86_PATHS */
enum { LT_PATH_GENERIC = 0, LT_PATH_AVX2 = 1, LT_PATH_AVX512 = 2 };

int lt_path_supported(int path)
{
    if (path < 0 || path >= lt_n_paths || lt_op_tables[path] == NULL) return 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    /* fast mode uses FMA on these paths, so they need it too */
    if (path == LT_PATH_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (path == LT_PATH_AVX512) return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vl");
#endif
    return path == LT_PATH_GENERIC;
}

int lt_cpu_vendor(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_is("intel")) return 1;
    if (__builtin_cpu_is("amd")) return 2;
#endif
    return 0;
}

int lt_op_count(void) { return lt_n_ops; }
const char *lt_op_name(int opcode) { return (opcode >= 0 && opcode < lt_n_ops) ? lt_op_names[opcode] : ""; }
int lt_chunk_size(void) { return LT_CHUNK; }

#define LT_REG_BYTES (LT_CHUNK * 8)
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
    default: { uint64_t v; memcpy(&v, src, 8); for (i = 0; i < n; i++) ((uint64_t *)dst)[i] = v; } break;
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
    default: LT_GATHER_T(uint64_t); break;
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
    void **regp;
    /* a load register of a value-per-row input (last stride 0) holds fill_n copies of the
     * value at fill_src; NULL when its scratch holds anything else */
    const char **fill_src;
    int64_t *fill_n;
    int64_t at;                  /* the position idx/off describe */
    int stream;                  /* outputs go through scratch and non-temporal stores */
    int prefetch;                /* inputs read in place are prefetched (lt_prefetch_ahead) */
    uint64_t fp_saved;
    char *block;                 /* the memory of scratch, off, in_last, regp, fill_src, fill_n */
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
    char *reg = c->scratch + (size_t)r * LT_REG_BYTES;
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

/* Point the registers at chunk [pos, pos + n) of a multi-dimensional plan: a load is read
 * in place when the chunk is one contiguous run of its input, filled when the chunk is one
 * run of a value per row (last stride 0), gathered segment by segment otherwise.  Advances
 * idx/off (the position and each input's byte offset) by n. */
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
            if (seg0 == n && s == p->reg_itemsize[r]) {
                regp[r] = p->in_ptr[k] + off[k];
                lt_prefetch_ahead(c, k, off[k], s);
            } else if (seg0 == n && s == 0) {
                lt_ctx_fill(c, r, p->in_ptr[k] + off[k], n);
            } else {
                regp[r] = scratch + (size_t)r * LT_REG_BYTES;
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
    /* walk the chunk's segments once; gather the loads that are not in place */
    int64_t done = 0;
    while (done < n) {
        int64_t seg = shape[last] - idx[last];
        if (seg > n - done) seg = n - done;
        for (r = 0; r < p->n_regs; r++) {
            if (p->reg_kind[r] != LT_REG_LOAD || regp[r] != scratch + (size_t)r * LT_REG_BYTES ||
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
    const size_t scratch_bytes = (size_t)LT_REG_BYTES * nr;   /* a multiple of 64 */
    /* the bookkeeping arrays (8-byte items) follow the registers, zeroed */
    const size_t book_bytes = (2 * n_off + 3 * nr) * 8;
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
    /* another library may have switched on flush-to-zero or another rounding mode in this
     * thread: run in the default state and give the caller's state back */
    LT_FP_ENTER(c->fp_saved);
    /* scalar registers hold one value for the whole run */
    for (int32_t r = 0; r < p->n_regs; r++) {
        char *reg = c->scratch + (size_t)r * LT_REG_BYTES;
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
        if (p->reg_kind[dst] == LT_REG_SCRATCH) regp[dst] = scratch + (size_t)dst * LT_REG_BYTES;
        c->table[ins[LT_I_OP]](n, regp[dst],
                               ins[LT_I_A] >= 0 ? regp[ins[LT_I_A]] : NULL,
                               ins[LT_I_B] >= 0 ? regp[ins[LT_I_B]] : NULL,
                               ins[LT_I_C] >= 0 ? regp[ins[LT_I_C]] : NULL,
                               p->params + 2 * (size_t)i, ins[LT_I_EXACT]);
    }
}

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
                    regp[r] = scratch + (size_t)r * LT_REG_BYTES;
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
            if (p->reg_kind[r] == LT_REG_OUTPUT) regp[r] = scratch + (size_t)r * LT_REG_BYTES;
        lt_ctx_exec(c, n);
        for (r = 0; r < p->n_regs; r++)
            if (p->reg_kind[r] == LT_REG_OUTPUT)
                lt_stream_out(p->path, p->out_ptr[p->reg_arg[r]] + pos * p->reg_itemsize[r], regp[r],
                              n * p->reg_itemsize[r]);
        return;
    }
    lt_ctx_exec(c, n);
}

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
#define LT_TILE_MIN_ROW 64              /* shorter rows keep the chunk walk */
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
    default: LT_STAGE_T(uint64_t) break;
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
                            c->regp[r] = c->scratch + (size_t)r * LT_REG_BYTES;
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
                        c->regp[r] = c->scratch + (size_t)r * LT_REG_BYTES;
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

/* ---- worker threads -----------------------------------------------------------------
 *
 * A kernel whose estimated work pays for it runs its ranges on several threads.  The
 * workers are started on first use and kept; after a job a worker watches for the next one
 * for LT_LINGER_NS (0.1 ms), then sleeps on a condition variable, so an idle worker does
 * not spin.  A run too short to pay for waking a sleeping worker takes only the workers
 * still awake, unless it is one of a loop of calls (lt_pool_threads).  One job at a time
 * uses the pool: a call that finds it busy (another Python thread inside a kernel) starts
 * threads of its own for that call.  Who runs a range never changes its result.  A forked
 * child starts with no workers.
 *
 * The tasks of a job are claimed, by the caller and the workers alike, from one counter
 * that also holds the job's generation (so that a worker waking late can never claim a
 * task of a later job): the caller runs tasks until none is left, then waits only for those
 * a worker has started.  A worker slow to wake (a sleeping virtual CPU can take tens of
 * microseconds) then costs only the wake-up call: the caller runs its tasks too.  10^5
 * float32, two threads, in the peer benchmark (each call after other libraries ran): the
 * calls had taken 1.3-3.8x the time of one thread, waiting for the worker
 * (docs/architecture.md, "Kernel").
 */
#define LT_POOL_MAX 255
#define LT_TASKS_PER_THREAD 4
/* When threads pay (lt_thread_count, lt_pool_threads).  On the Xeon VM, waking a sleeping
 * worker took the caller 10-25 us and the worker started 50-80 us later; a worker awake
 * made a 10^5-element a*b+c 1.8x faster.  So: a run estimated below LT_WAKE_MIN_NS on one
 * thread wakes no sleeping worker, unless it is one of a run of such calls, each starting
 * within LT_RECENT_NS of the last (a loop); a worker lingers LT_LINGER_NS after a job; and
 * a thread takes at least LT_THREAD_MIN_NS of the estimated time and LT_THREAD_MIN_CHUNKS
 * chunks (LT_PARALLEL_MIN_CHUNKS when the time is unknown).  Figures: docs/architecture.md,
 * "Kernel". */
#define LT_WAKE_MIN_NS 150000
#define LT_RECENT_NS 250000
#define LT_RECENT_RUNS 3
#define LT_LINGER_NS 100000
#define LT_WAIT_NS 200000
#define LT_THREAD_MIN_NS 5000
#define LT_THREAD_MIN_CHUNKS 8
/* moving data, per byte read or written, one thread: a*b+c over 10^5 float32 (1.6 MB, in
 * L2) took 0.33 ns per element for its 16 bytes; over 10^6 and more, and sums of 3 * 10^5
 * and more, 40-90 ps per byte */
#define LT_CACHED_BYTES (4 << 20)
#define LT_CACHED_PS_PER_BYTE 20
#define LT_MEMORY_PS_PER_BYTE 60
typedef void (*lt_taskfn)(void *task);

static int64_t lt_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static inline void lt_cpu_relax(void)
{
#if defined(__SSE2__)
    _mm_pause();
#endif
}

static struct {
    pthread_mutex_t lock;        /* guards everything below but `claim` */
    pthread_cond_t wake, done;
    pthread_mutex_t busy;        /* held by the caller for the length of a job */
    int n_workers;
    unsigned long generation;    /* bumped once per job */
    lt_taskfn fn;
    char *tasks;
    size_t stride;
    int n_tasks;
    int finished;                /* tasks of this job run to the end */
    int sleeping;                /* workers waiting on `wake` (read without the lock too) */
    int64_t last_start;          /* lt_now_ns() when the last run that could use threads began */
    int streak;                  /* such runs in a row, each within LT_RECENT_NS of the last */
    uint64_t claim;              /* (generation << 32) | next task; atomic */
    unsigned long start_gen[LT_POOL_MAX];
} lt_pool = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
              .done = PTHREAD_COND_INITIALIZER, .busy = PTHREAD_MUTEX_INITIALIZER };

/* The next task of the job of generation `gen`, or -1 when all are taken (or that job is
 * over) */
static int lt_pool_claim(unsigned long gen, int n_tasks)
{
    uint64_t c = __atomic_load_n(&lt_pool.claim, __ATOMIC_ACQUIRE);
    for (;;) {
        if ((uint32_t)(c >> 32) != (uint32_t)gen || (int)(uint32_t)c >= n_tasks) return -1;
        if (__atomic_compare_exchange_n(&lt_pool.claim, &c, c + 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return (int)(uint32_t)c;
    }
}

/* Run the job's tasks while any is left; returns how many this thread ran */
static int lt_pool_run_tasks(unsigned long gen, lt_taskfn fn, char *tasks, size_t stride,
                             int n_tasks)
{
    int ran = 0;
    for (int t; (t = lt_pool_claim(gen, n_tasks)) >= 0; ran++) fn(tasks + (size_t)t * stride);
    return ran;
}

/* A worker done with job `gen` watches for the next one for LT_LINGER_NS before it sleeps:
 * a loop that calls kernels back to back then finds it awake, where waking it from the
 * condition variable took longer than a range of a 10^5-element kernel on the Xeon VM
 * (docs/architecture.md, "Kernel").  Bounded, so an idle worker still sleeps. */
static void lt_pool_linger(unsigned long gen)
{
    const int64_t until = lt_now_ns() + LT_LINGER_NS;
    for (int spin = 1;; spin++) {
        if ((uint32_t)(__atomic_load_n(&lt_pool.claim, __ATOMIC_ACQUIRE) >> 32) != (uint32_t)gen)
            return;
        lt_cpu_relax();
        if (spin % 64 == 0 && lt_now_ns() > until) return;
    }
}

static void *lt_worker_main(void *arg)
{
    const int me = (int)(intptr_t)arg;
    sigset_t all;
    sigfillset(&all);            /* signals are Python's main thread's business */
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&lt_pool.lock);
    unsigned long seen = lt_pool.start_gen[me];
    for (;;) {
        while (lt_pool.generation == seen) {
            __atomic_add_fetch(&lt_pool.sleeping, 1, __ATOMIC_RELAXED);
            pthread_cond_wait(&lt_pool.wake, &lt_pool.lock);
            __atomic_sub_fetch(&lt_pool.sleeping, 1, __ATOMIC_RELAXED);
        }
        seen = lt_pool.generation;
        lt_taskfn fn = lt_pool.fn;
        char *tasks = lt_pool.tasks;
        const size_t stride = lt_pool.stride;
        const int n_tasks = lt_pool.n_tasks;
        pthread_mutex_unlock(&lt_pool.lock);
        /* the job's fields stay valid while a task of it is unfinished, and a claim
         * succeeds only then */
        const int ran = lt_pool_run_tasks(seen, fn, tasks, stride, n_tasks);
        if (ran) {
            pthread_mutex_lock(&lt_pool.lock);
            if (__atomic_add_fetch(&lt_pool.finished, ran, __ATOMIC_RELEASE) == lt_pool.n_tasks)
                pthread_cond_signal(&lt_pool.done);
            pthread_mutex_unlock(&lt_pool.lock);
        }
        lt_pool_linger(seen);
        pthread_mutex_lock(&lt_pool.lock);
    }
    return NULL;
}

static void lt_pool_after_fork(void)
{
    pthread_mutex_init(&lt_pool.lock, NULL);
    pthread_mutex_init(&lt_pool.busy, NULL);
    pthread_cond_init(&lt_pool.wake, NULL);
    pthread_cond_init(&lt_pool.done, NULL);
    lt_pool.n_workers = 0;
    lt_pool.n_tasks = 0;
    lt_pool.finished = 0;
    lt_pool.sleeping = 0;
    lt_pool.last_start = 0;
    lt_pool.streak = 0;
}

static pthread_once_t lt_pool_once = PTHREAD_ONCE_INIT;
static void lt_pool_init(void) { pthread_atfork(NULL, NULL, lt_pool_after_fork); }

/* Threads of this call only (the pool is busy): thread i runs tasks i, i + threads, ... */
typedef struct { lt_taskfn fn; char *tasks; size_t stride; int first, step, n; } lt_spawned_job;
static void lt_spawned_run(lt_spawned_job *j)
{
    for (int t = j->first; t < j->n; t += j->step) j->fn(j->tasks + (size_t)t * j->stride);
}
static void *lt_spawned_main(void *arg)
{
    lt_spawned_run((lt_spawned_job *)arg);
    return NULL;
}
static void lt_parallel_spawn(int threads, int n, lt_taskfn fn, char *tasks, size_t stride)
{
    pthread_t ids[256];
    lt_spawned_job jobs[256];
    int started[256] = {0};
    threads = threads < 1 ? 1 : threads > 256 ? 256 : threads;     /* the arrays above */
    for (int t = 0; t < threads; t++) jobs[t] = (lt_spawned_job){fn, tasks, stride, t, threads, n};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&ids[t], NULL, lt_spawned_main, &jobs[t]) == 0;
    lt_spawned_run(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else lt_spawned_run(&jobs[t]);   /* could not start a thread: run them here */
    }
}

/* Run fn on tasks[0..n) (each `stride` bytes) on up to `threads` threads, the calling thread
 * taking part: the workers awake (lingering after a job) and as many sleeping ones as it
 * takes to make up the number (lt_thread_count decides it). */
static void lt_parallel_tasks(int threads, int n, lt_taskfn fn, void *tasks_, size_t stride)
{
    char *tasks = (char *)tasks_;
    if (threads > n) threads = n;
    if (threads <= 1) {
        for (int t = 0; t < n; t++) fn(tasks + (size_t)t * stride);
        return;
    }
    pthread_once(&lt_pool_once, lt_pool_init);
    if (pthread_mutex_trylock(&lt_pool.busy) != 0) {
        lt_parallel_spawn(threads, n, fn, tasks, stride);
        return;
    }
    pthread_mutex_lock(&lt_pool.lock);
    while (lt_pool.n_workers < threads - 1 && lt_pool.n_workers < LT_POOL_MAX) {
        pthread_t t;
        lt_pool.start_gen[lt_pool.n_workers] = lt_pool.generation;
        if (pthread_create(&t, NULL, lt_worker_main, (void *)(intptr_t)lt_pool.n_workers) != 0) break;
        pthread_detach(t);
        lt_pool.n_workers++;
    }
    const unsigned long gen = ++lt_pool.generation;
    lt_pool.fn = fn;
    lt_pool.tasks = tasks;
    lt_pool.stride = stride;
    lt_pool.n_tasks = n;
    lt_pool.finished = 0;
    __atomic_store_n(&lt_pool.claim, (uint64_t)(uint32_t)gen << 32, __ATOMIC_RELEASE);
    int wake = threads - 1 - (lt_pool.n_workers - lt_pool.sleeping);
    if (wake > lt_pool.sleeping) wake = lt_pool.sleeping;
    pthread_mutex_unlock(&lt_pool.lock);
    for (int w = 0; w < wake; w++) pthread_cond_signal(&lt_pool.wake);
    const int ran = lt_pool_run_tasks(gen, fn, tasks, stride, n);   /* with the workers */
    /* the tasks the workers took: waited for by spinning first (up to LT_WAIT_NS), as a
     * caller asleep on the condition variable was woken 50-80 us after the last task ended
     * on the Xeon VM (with one task per thread, a sum of 10^5 elements took 5x the time of
     * one thread, its caller sleeping past the 11 us of the spin it had) */
    const int64_t until = lt_now_ns() + LT_WAIT_NS;
    for (int spin = 1; __atomic_load_n(&lt_pool.finished, __ATOMIC_ACQUIRE) + ran < n; spin++) {
        lt_cpu_relax();
        if (spin % 64 == 0 && lt_now_ns() > until) break;
    }
    pthread_mutex_lock(&lt_pool.lock);
    __atomic_add_fetch(&lt_pool.finished, ran, __ATOMIC_RELEASE);
    while (lt_pool.finished < n) pthread_cond_wait(&lt_pool.done, &lt_pool.lock);
    pthread_mutex_unlock(&lt_pool.lock);
    pthread_mutex_unlock(&lt_pool.busy);
}

/* One task per thread */
static void lt_parallel(int n, lt_taskfn fn, void *tasks, size_t stride)
{
    lt_parallel_tasks(n, n, fn, tasks, stride);
}

/* How many of `n` threads a run estimated at `work_ns` on one thread (-1: unknown) takes
 * now: all when it is long enough to pay for waking sleeping workers, or when it is one of
 * LT_RECENT_RUNS or more such runs in a row, each started within LT_RECENT_NS of the last
 * (a loop of calls: woken now, the workers then linger between the next ones; the two or
 * three kernels of one evaluation are not one); else only the workers awake. */
static int64_t lt_pool_threads(int64_t n, int64_t work_ns)
{
    const int64_t now = lt_now_ns();
    const int64_t last = __atomic_exchange_n(&lt_pool.last_start, now, __ATOMIC_RELAXED);
    int streak = 0;              /* capped: a count that never wraps (races only miscount) */
    if (now - last < LT_RECENT_NS) {
        streak = __atomic_load_n(&lt_pool.streak, __ATOMIC_RELAXED);
        if (streak < LT_RECENT_RUNS) streak++;
    }
    __atomic_store_n(&lt_pool.streak, streak, __ATOMIC_RELAXED);
    if (work_ns < 0 || work_ns >= LT_WAKE_MIN_NS || streak >= LT_RECENT_RUNS) return n;
    const int64_t awake = (int64_t)__atomic_load_n(&lt_pool.n_workers, __ATOMIC_RELAXED) -
                          __atomic_load_n(&lt_pool.sleeping, __ATOMIC_RELAXED);
    return awake < 1 ? 1 : (awake + 1 < n ? awake + 1 : n);
}

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
};
#define LT_N_REDS ((int)(sizeof lt_reds / sizeof lt_reds[0]))

int lt_red_count(void) { return LT_N_REDS; }
const char *lt_red_name(int fn) { return (fn >= 0 && fn < LT_N_REDS) ? lt_reds[fn].name : ""; }
int lt_red_acc_size(int fn) { return (fn >= 0 && fn < LT_N_REDS) ? lt_reds[fn].acc_size : 0; }

/* Pairwise combination of a stream of partials: partial k is merged with the stored ones
 * as the bits of k carry, so the tree depends on the number of partials only. */
typedef struct {
    unsigned char v[64][8];
    int64_t count;
} lt_counter;

static void lt_counter_push(lt_counter *k, const lt_redfn *fn, const void *x)
{
    unsigned char cur[8];
    int level = 0;
    memcpy(cur, x, 8);
    for (int64_t c = k->count; c & 1; c >>= 1, level++) {
        fn->comb(k->v[level], cur);            /* the stored partial is the left one */
        memcpy(cur, k->v[level], 8);
    }
    memcpy(k->v[level], cur, 8);
    k->count++;
}

static void lt_counter_result(const lt_counter *k, const lt_redfn *fn, void *out)
{
    unsigned char r[8] = {0};
    int have = 0;
    /* from the highest stored level down (not from 63: this runs once per row and block) */
    for (int level = k->count ? 63 - __builtin_clzll((unsigned long long)k->count) : -1;
         level >= 0; level--) {
        if (!((k->count >> level) & 1)) continue;
        if (!have) { memcpy(r, k->v[level], 8); have = 1; }
        else fn->comb(r, k->v[level]);
    }
    memcpy(out, r, 8);
}

enum { LT_RED_ROWS, LT_RED_BLOCKS, LT_RED_OUTER_P, LT_RED_OUTER_Q };

typedef struct {
    const lt_program *p;
    int mode;
    int64_t P, R, Q;
    int64_t first, end;          /* the units this thread runs */
    char *blocks;                /* LT_RED_BLOCKS: n_red * n_units partials of 8 bytes */
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
                    unsigned char part[8];
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
                    unsigned char part[8];
                    fn->seg(c.regp[p->red_reg[s]], n, part);
                    lt_counter_push(&k[s], fn, part);
                }
            }
            for (s = 0; s < p->n_red; s++)
                lt_counter_result(&k[s], &lt_reds[p->red_fn[s]], t->blocks + ((size_t)s * t->n_units + u) * 8);
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
        blocks = (char *)malloc((size_t)p->n_red * (size_t)n_units * 8);
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
                unsigned char r[8];
                k.count = 0;
                for (int64_t b = 0; b < nb; b++)
                    lt_counter_push(&k, fn, blocks + ((size_t)s * n_units + row * nb + b) * 8);
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

/* ---- programs by blocks of rows -----------------------------------------------------
 *
 * A chain of kernels that only ever combine values of the same leading row (softmax: a row
 * maximum, exp with a row sum, a division) runs block by block: each thread takes whole
 * blocks and runs every program on a block before the next, so what one program writes for
 * the next stays in cache (or in the thread's own scratch) instead of going through memory.
 * A block is computed the same way whichever thread runs it, and each program runs on it
 * exactly as lt_run would on those rows, so the bits do not depend on the split.
 */
typedef struct {
    const lt_blocks *b;
    int64_t first, end;
    int64_t thread;
    int status;
} lt_btask;

static void lt_block_range(lt_btask *t)
{
    const lt_blocks *b = t->b;
    t->status = 0;
    if (t->first >= t->end) return;
    int64_t n_slots = 0;
    for (int32_t j = 0; j < b->n_prog; j++)
        n_slots += b->prog[j]->n_in + b->prog[j]->n_out + b->prog[j]->n_red;
    lt_program *local = (lt_program *)malloc((size_t)b->n_prog * sizeof *local);
    char **ptrs = (char **)malloc((size_t)(n_slots > 0 ? n_slots : 1) * sizeof *ptrs);
    if (!local || !ptrs) { t->status = -1; goto done; }
    int64_t s = 0;
    for (int32_t j = 0; j < b->n_prog; j++) {
        const lt_program *p = b->prog[j];
        local[j] = *p;
        local[j].n_threads = 1;
        local[j].in_ptr = ptrs + s;  s += p->n_in;
        local[j].out_ptr = ptrs + s; s += p->n_out;
        local[j].red_ptr = ptrs + s; s += p->n_red;
    }
    for (int64_t blk = t->first; blk < t->end; blk++) {
        s = 0;
        for (int32_t j = 0; j < b->n_prog; j++) {
            const lt_program *p = b->prog[j];
            char *const *own[3] = { p->in_ptr, p->out_ptr, p->red_ptr };
            const int32_t count[3] = { p->n_in, p->n_out, p->n_red };
            for (int kind = 0; kind < 3; kind++)
                for (int32_t k = 0; k < count[kind]; k++, s++)
                    ptrs[s] = own[kind][k] + blk * b->step[s] + t->thread * b->thread_step[s];
        }
        for (int32_t j = 0; j < b->n_prog; j++) {
            const int status = lt_run(&local[j]);
            if (status != 0) { t->status = status; goto done; }
        }
    }
done:
    free(local);
    free(ptrs);
}

static void lt_block_task(void *arg) { lt_block_range((lt_btask *)arg); }

int lt_run_blocks(const lt_blocks *b)
{
    if (b->n_blocks <= 0 || b->n_prog <= 0) return 0;
    /* the estimate: each program's over a block, times the blocks (unknown if one is) */
    int64_t work_ns = 0, elements = 0;
    for (int32_t j = 0; j < b->n_prog && work_ns >= 0; j++) {
        const int64_t w = lt_work_ns(b->prog[j], b->prog[j]->size);
        work_ns = w < 0 ? -1 : work_ns + w * b->n_blocks;
        elements += b->prog[j]->size * b->n_blocks;
    }
    int64_t n_threads = b->n_threads < 1 ? 1 : b->n_threads;     /* unknown: every block */
    if (n_threads > b->n_blocks) n_threads = b->n_blocks;
    if (n_threads > 256) n_threads = 256;
    if (work_ns >= 0) n_threads = lt_thread_count(b->n_threads, b->n_blocks, elements, work_ns);
    lt_btask tasks[256];
    for (int64_t t = 0; t < n_threads; t++) {
        tasks[t].b = b;
        tasks[t].first = b->n_blocks * t / n_threads;
        tasks[t].end = b->n_blocks * (t + 1) / n_threads;
        tasks[t].thread = t;
        tasks[t].status = 0;
    }
    lt_parallel((int)n_threads, lt_block_task, tasks, sizeof tasks[0]);
    for (int64_t t = 0; t < n_threads; t++)
        if (tasks[t].status != 0) return tasks[t].status;
    return 0;
}

/* ---- softmax and log-sum-exp along rows ---------------------------------------------
 *
 * exp(x - max) / sum(exp(x - max)) over each row, or log(sum(exp(x - m))) + m, in one pass
 * per row that stays in L1: the row maximum, then per chunk the difference, its exp (into
 * the output row for softmax) and the chunk's partial sum, then the division.  In exact mode
 * every value is made by the op functions and reduction functions the expression form's
 * kernels use (Python passes their numbers), combined in their order (lt_rowacc below), so
 * the results have the bits of the expression evaluated kernel by kernel.  Fast mode makes
 * exp(x - m) and its sum in one pass (lt_exp_sum_tables, ltm_exp_sum_*_fast in lt_exp.h)
 * and divides a streamed row as one product (lt_stream_scale).  Rows are independent:
 * threads take ranges of whole rows, and a row's result does not depend on which.
 */

#define LT_ROW_SCRATCH_MAX (1 << 20)   /* bytes of a softmax row kept in scratch: L2 */

/* One row's reduction in the order lt_run_reduce_distinct gives a row of a plan with
 * Q == 1: a partial per chunk of LT_CHUNK values, combined by a binary counter within
 * blocks of LT_RED_BLOCK chunks, the block partials by another. */
typedef struct {
    lt_counter block, row;
    int64_t in_block;
} lt_rowacc;

static void lt_rowacc_start(lt_rowacc *a)
{
    a->block.count = 0;
    a->row.count = 0;
    a->in_block = 0;
}

static void lt_rowacc_end_block(lt_rowacc *a, const lt_redfn *fn)
{
    unsigned char part[8];
    lt_counter_result(&a->block, fn, part);
    lt_counter_push(&a->row, fn, part);
    a->block.count = 0;
    a->in_block = 0;
}

static void lt_rowacc_push(lt_rowacc *a, const lt_redfn *fn, const void *v, int64_t n)
{
    unsigned char part[8];
    fn->seg(v, n, part);
    lt_counter_push(&a->block, fn, part);
    if (++a->in_block == LT_RED_BLOCK) lt_rowacc_end_block(a, fn);
}

static void lt_rowacc_result(lt_rowacc *a, const lt_redfn *fn, unsigned char out[8])
{
    if (a->in_block > 0) lt_rowacc_end_block(a, fn);
    lt_counter_result(&a->row, fn, out);
}

typedef struct {
    const lt_rowfns *f;
    int64_t rows, cols, src_row_bytes;
    const char *src;
    char *dst;
    int32_t exact, path;
} lt_rowcall;

typedef struct {
    const lt_rowcall *r;
    int64_t first, end;          /* the rows this thread runs */
    int status;
} lt_rowtask;

/* a sum's accumulator as a value of the row's dtype: float32 sums are rounded here, as
 * the expression form's cast does (the canonical NaN in exact mode) */
static void lt_row_sum_value(const lt_rowcall *r, const unsigned char acc[8], char *dst)
{
    double s;
    memcpy(&s, acc, 8);
    if (r->f->itemsize == 4) {
        float f = (float)s;
        if (r->exact && f != f) { const uint32_t qnan = 0x7FC00000u; memcpy(&f, &qnan, 4); }
        memcpy(dst, &f, 4);
    } else {
        memcpy(dst, &s, 8);
    }
}

/* log-sum-exp shifts by the row maximum only where it is finite (0 elsewhere): a row of
 * -inf then gives -inf and a row holding +inf gives +inf, as scipy, torch and jax do */
static void lt_row_shift(const lt_rowcall *r, char *m)
{
    if (!r->f->logsumexp) return;
    if (r->f->itemsize == 4) {
        float v;
        memcpy(&v, m, 4);
        if (!(v - v == 0.0f)) { v = 0.0f; memcpy(m, &v, 4); }
    } else {
        double v;
        memcpy(&v, m, 8);
        if (!(v - v == 0.0)) { v = 0.0; memcpy(m, &v, 8); }
    }
}

static void lt_rowwise_range(lt_rowtask *t)
{
    const lt_rowcall *r = t->r;
    const lt_opfn *table = lt_op_tables[r->path];
    const lt_opfn sub = table[r->f->op_subtract], ex = table[r->f->op_exp];
    const lt_redfn *fmax = &lt_reds[r->f->red_max], *fsum = &lt_reds[r->f->red_sum];
    const int64_t sz = r->f->itemsize, R = r->cols, n_rows = t->end - t->first;
    static const double params[2] = {0.0, 0.0};
    t->status = 0;
    if (n_rows <= 0) return;
    /* scratch: the row maximum repeated over a chunk, the row sum, four chunk buffers
     * (log-sum-exp: its rows' sums and shifts) and, for softmax, the row's exp when it
     * fits LT_ROW_SCRATCH_MAX; a longer row keeps it in the output */
    const int64_t row_bytes = R * sz;
    const int in_scratch = !r->f->logsumexp && row_bytes <= LT_ROW_SCRATCH_MAX;
    /* large outputs skip the cache, as the kernels' do (lt_stream_outputs) */
    const int stream = in_scratch && r->rows * row_bytes >= LT_STREAM_MIN_BYTES;
    /* rows prefetched ahead: about 8 KiB (rows of 1024 float32: 2 rows ahead ran 0.90-0.95x
     * the time of 1 row ahead at 10^7, one and two threads) */
    const int64_t ahead = row_bytes >= 8192 ? 1 : (8192 + row_bytes - 1) / row_bytes;
    /* fast mode: exp(x - m) and its sum in one pass, in any order of summation (exact mode
     * runs the expression's functions, chunk by chunk, for its bits); the row ahead is then
     * prefetched at once, its first 8 KiB (the hardware's prefetcher follows a longer row) */
    const lt_expsumfn exp_sum = r->exact ? NULL : lt_exp_sum_tables[r->path][sz == 8];
    const int64_t prefetch_bytes = row_bytes < 8192 ? row_bytes : 8192;
    int owned;
    const size_t chunk = (size_t)LT_CHUNK * 8;
    char *mem = lt_block_take(6 * chunk + (in_scratch ? (size_t)row_bytes : 0), &owned);
    if (mem == NULL) { t->status = -1; return; }
    char *mrep = mem, *srep = mem + chunk, *d = mem + 2 * chunk, *e = mem + 3 * chunk;
    char *sums = mem + 4 * chunk, *shifts = mem + 5 * chunk, *erow = mem + 6 * chunk;
    uint64_t fp_saved;
    LT_FP_ENTER(fp_saved);
    for (int64_t i = 0; i < n_rows; i++) {
        const char *x = r->src + (t->first + i) * r->src_row_bytes;
        char *o = r->f->logsumexp ? NULL : r->dst + (t->first + i) * row_bytes;
        char *ex_row = in_scratch ? erow : o;      /* softmax: where exp(x - m) goes */
        unsigned char acc[8], sacc[8];
        /* the row maximum as one partial: the value the expression's chunk partials give
         * (max is exact), but for which NaN or which zero it returns, which change no result
         * (x - m is then NaN everywhere, or differs only as the zero whose exp is 1) */
        fmax->seg(x, R, acc);
        lt_row_shift(r, (char *)acc);
        if (exp_sum) {
            if (i + ahead < n_rows)  /* a later row, on its way while this one runs */
                for (int64_t b = 0; b < prefetch_bytes; b += 64)
                    __builtin_prefetch(x + ahead * r->src_row_bytes + b, 0, 3);
            const double s = exp_sum(R, r->f->logsumexp ? NULL : ex_row, x, acc);
            memcpy(sacc, &s, 8);
        } else {
            lt_rowacc a;
            lt_fill(mrep, (const char *)acc, R < LT_CHUNK ? R : LT_CHUNK, (int32_t)sz);
            lt_rowacc_start(&a);
            for (int64_t c0 = 0; c0 < R; c0 += LT_CHUNK) {
                const int64_t n = R - c0 < LT_CHUNK ? R - c0 : LT_CHUNK;
                char *dst = r->f->logsumexp ? e : ex_row + c0 * sz;
                if (i + ahead < n_rows)  /* a later row's chunk, on its way while this one runs */
                    for (int64_t b = 0; b < n * sz; b += 64)
                        __builtin_prefetch(x + ahead * r->src_row_bytes + c0 * sz + b, 0, 3);
                sub(n, d, x + c0 * sz, mrep, NULL, params, r->exact);
                ex(n, dst, d, NULL, NULL, params, r->exact);
                lt_rowacc_push(&a, fsum, dst, n);
            }
            lt_rowacc_result(&a, fsum, sacc);
        }
        if (r->f->logsumexp) {
            /* log(sum) + shift for each LT_CHUNK rows (elementwise: where a row falls in
             * the chunk does not change its value) */
            const int64_t k = i % LT_CHUNK;
            lt_row_sum_value(r, sacc, sums + k * sz);
            memcpy(shifts + k * sz, acc, (size_t)sz);
            if (k == LT_CHUNK - 1 || i == n_rows - 1) {
                char *out = r->dst + (t->first + i - k) * sz;
                table[r->f->op_log](k + 1, d, sums, NULL, NULL, params, r->exact);
                table[r->f->op_add](k + 1, out, d, shifts, NULL, params, r->exact);
            }
            continue;
        }
        /* the division by the row sum reads only its divisor's first element (the op is
         * divide_by_scalar): no fill of a whole chunk */
        lt_row_sum_value(r, sacc, srep);
        if (exp_sum && stream && lt_stream_scale(r->path, o, erow, srep, R, sz)) continue;
        for (int64_t c0 = 0; c0 < R; c0 += LT_CHUNK) {
            const int64_t n = R - c0 < LT_CHUNK ? R - c0 : LT_CHUNK;
            if (in_scratch && !stream) {
                table[r->f->op_divide](n, o + c0 * sz, erow + c0 * sz, srep, NULL, params, r->exact);
                continue;
            }
            table[r->f->op_divide](n, d, ex_row + c0 * sz, srep, NULL, params, r->exact);
            if (stream) lt_stream_out(r->path, o + c0 * sz, d, n * sz);
            else memcpy(o + c0 * sz, d, (size_t)(n * sz));
        }
    }
#if defined(__SSE2__)
    if (stream) _mm_sfence();   /* the streamed lines are visible before the caller reads */
#endif
    LT_FP_LEAVE(fp_saved);
    lt_block_give(mem, owned);
}

static void lt_rowwise_task(void *arg) { lt_rowwise_range((lt_rowtask *)arg); }

int lt_run_rowwise(const lt_rowfns *fns, int64_t rows, int64_t cols, intptr_t src,
                   int64_t src_row_bytes, intptr_t dst, int32_t exact, int32_t n_threads,
                   int32_t path)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (!lt_path_supported(path)) return -3;
    if ((fns->itemsize != 4 && fns->itemsize != 8) || fns->red_max < 0 ||
        fns->red_max >= LT_N_REDS || fns->red_sum < 0 || fns->red_sum >= LT_N_REDS)
        return -2;
    const int32_t ops[5] = {fns->op_subtract, fns->op_exp, fns->op_divide, fns->op_log,
                            fns->op_add};
    for (int k = 0; k < 5; k++)
        if (ops[k] < 0 || ops[k] >= lt_n_ops) return -2;
    const lt_rowcall r = {fns, rows, cols, src_row_bytes, (const char *)src, (char *)dst,
                          exact, path};
    const int64_t n_threads_ = lt_thread_count(
        n_threads, rows, rows * cols, lt_estimate_ns(fns->work_ps, fns->work_bytes, exact,
                                                     rows * cols));
    lt_rowtask tasks[256];
    const int64_t n_tasks = lt_task_count(n_threads_, rows);
    for (int64_t t = 0; t < n_tasks; t++) {
        tasks[t].r = &r;
        tasks[t].first = rows * t / n_tasks;
        tasks[t].end = rows * (t + 1) / n_tasks;
        tasks[t].status = 0;
    }
    lt_parallel_tasks((int)n_threads_, (int)n_tasks, lt_rowwise_task, tasks, sizeof tasks[0]);
    for (int64_t t = 0; t < n_tasks; t++)
        if (tasks[t].status != 0) return tasks[t].status;
    return 0;
}
