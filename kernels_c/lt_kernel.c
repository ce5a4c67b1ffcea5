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
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "lt_math.h"
#include "lt_kernel.h"

/* lt_ops_generated.c (written by build_kernels.py from lazytensor/_ops.py) defines the
 * op functions and this table. */
extern const lt_opfn *const lt_op_tables[];
extern const char *const lt_path_names[];
extern const int lt_n_paths;
extern const char *const lt_op_names[];
extern const int lt_n_ops;

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
/* MXCSR with every exception masked, round to nearest, no flush-to-zero, no
 * denormals-are-zero: the state exact mode's results are defined in. */
#define LT_MXCSR_DEFAULT 0x1F80u
#define LT_FP_ENTER(saved) do { (saved) = _mm_getcsr(); _mm_setcsr(LT_MXCSR_DEFAULT); } while (0)
#define LT_FP_LEAVE(saved) _mm_setcsr(saved)
#else
#include <fenv.h>
#define LT_FP_ENTER(saved) do { (saved) = (unsigned)fegetround(); fesetround(FE_TONEAREST); } while (0)
#define LT_FP_LEAVE(saved) fesetround((int)(saved))
#endif

/* Output buffers for the pool of lazytensor/_memory.py: 64-byte aligned, and backed by
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

int lt_path_supported(int path)
{
    if (path < 0 || path >= lt_n_paths || lt_op_tables[path] == NULL) return 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    /* fast mode uses FMA on these paths, so they need it too */
    if (path == 1) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (path == 2) return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vl");
#endif
    return path == 0;
}

int lt_op_count(void) { return lt_n_ops; }
const char *lt_op_name(int opcode) { return (opcode >= 0 && opcode < lt_n_ops) ? lt_op_names[opcode] : ""; }
int lt_chunk_size(void) { return LT_CHUNK; }

#define LT_REG_BYTES (LT_CHUNK * 8)
#define LT_MAX_DIMS 64
#define LT_PARALLEL_MIN_CHUNKS 64      /* below 16 Ki elements a thread costs more than it saves */

/* Copy n elements of `size` bytes from src (byte stride) to contiguous dst. */
static void lt_gather(char *dst, const char *src, int64_t stride, int64_t n, int32_t size)
{
    int64_t i;
    if (stride == size) {               /* a contiguous run: one copy */
        memcpy(dst, src, (size_t)(n * size));
        return;
    }
    switch (size) {
    case 1: for (i = 0; i < n; i++) ((uint8_t *)dst)[i] = *(const uint8_t *)(src + i * stride); break;
    case 2: { uint16_t v; for (i = 0; i < n; i++) { memcpy(&v, src + i * stride, 2); ((uint16_t *)dst)[i] = v; } } break;
    case 4: { uint32_t v; for (i = 0; i < n; i++) { memcpy(&v, src + i * stride, 4); ((uint32_t *)dst)[i] = v; } } break;
    default: { uint64_t v; for (i = 0; i < n; i++) { memcpy(&v, src + i * stride, 8); ((uint64_t *)dst)[i] = v; } } break;
    }
}

/* Point the registers at chunk [pos, pos + n) of a multi-dimensional plan: a load is read
 * in place when the chunk is one contiguous run of its input, gathered segment by segment
 * otherwise.  Advances idx/off (the position and each input's byte offset) by n. */
static void lt_walk_chunk(const lt_program *p, int64_t n, int64_t pos, int64_t *idx,
                          int64_t *off, char *scratch, void **regp)
{
    const int32_t nd = p->ndim, last = nd - 1;
    const int64_t *shape = p->shape;
    const int64_t seg0 = shape[last] - idx[last] < n ? shape[last] - idx[last] : n;
    int need_gather = 0;
    int32_t r, k;

    for (r = 0; r < p->n_regs; r++) {
        if (p->reg_kind[r] == LT_REG_LOAD) {
            k = p->reg_arg[r];
            if (seg0 == n && p->in_strides[k * nd + last] == p->reg_itemsize[r]) {
                regp[r] = p->in_ptr[k] + off[k];
            } else {
                regp[r] = scratch + (size_t)r * LT_REG_BYTES;
                need_gather = 1;
            }
        } else if (p->reg_kind[r] == LT_REG_OUTPUT) {
            regp[r] = p->out_ptr[p->reg_arg[r]] + pos * p->reg_itemsize[r];
        }
    }
    /* walk the chunk's segments once; gather the loads that are not in place */
    int64_t done = 0;
    while (done < n) {
        int64_t seg = shape[last] - idx[last];
        if (seg > n - done) seg = n - done;
        if (need_gather) {
            for (r = 0; r < p->n_regs; r++) {
                if (p->reg_kind[r] != LT_REG_LOAD || regp[r] != scratch + (size_t)r * LT_REG_BYTES) continue;
                k = p->reg_arg[r];
                lt_gather((char *)regp[r] + done * p->reg_itemsize[r], p->in_ptr[k] + off[k],
                          p->in_strides[k * nd + last], seg, p->reg_itemsize[r]);
            }
        }
        /* advance the index by seg, carrying into outer dimensions */
        idx[last] += seg;
        for (k = 0; k < p->n_in; k++) off[k] += seg * p->in_strides[k * nd + last];
        for (int32_t d = last; d > 0 && idx[d] == shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
            for (k = 0; k < p->n_in; k++)
                off[k] += p->in_strides[k * nd + d - 1] - shape[d] * p->in_strides[k * nd + d];
        }
        done += seg;
    }
}

typedef struct {
    const lt_program *p;
    int64_t first_chunk, end_chunk;
    int status;
} lt_task;

static void lt_run_range(lt_task *task)
{
    const lt_program *p = task->p;
    const int32_t nd = p->ndim, last = nd - 1;
    const int64_t *shape = p->shape;
    int64_t idx[LT_MAX_DIMS];
    int64_t *off = NULL;
    char *scratch = NULL;
    void **regp = NULL;
    int32_t r, k;

    if (task->first_chunk >= task->end_chunk) { task->status = 0; return; }
    const lt_opfn *const table = lt_op_tables[p->path];
    unsigned fp_saved;
    off = (int64_t *)calloc((size_t)(p->n_in ? p->n_in : 1), sizeof(int64_t));
    regp = (void **)calloc((size_t)p->n_regs + 1, sizeof(void *));
    if (posix_memalign((void **)&scratch, 64, (size_t)LT_REG_BYTES * ((size_t)p->n_regs + 1)) != 0)
        scratch = NULL;
    if (!off || !regp || !scratch) { free(off); free(regp); free(scratch); task->status = -1; return; }
    /* another library may have switched on flush-to-zero or another rounding mode in this
     * thread: run in the default state and give the caller's state back */
    LT_FP_ENTER(fp_saved);

    /* position of the first element of this range, and each input's byte offset there */
    int64_t pos = task->first_chunk * LT_CHUNK;
    {
        int64_t rem = pos;
        for (int32_t d = last; d >= 0; d--) { idx[d] = rem % shape[d]; rem /= shape[d]; }
        for (k = 0; k < p->n_in; k++) {
            int64_t o = 0;
            for (int32_t d = 0; d < nd; d++) o += idx[d] * p->in_strides[k * nd + d];
            off[k] = o;
        }
    }
    /* scalar registers hold one value for the whole run */
    for (r = 0; r < p->n_regs; r++) {
        char *reg = scratch + (size_t)r * LT_REG_BYTES;
        regp[r] = reg;
        if (p->reg_kind[r] == LT_REG_SCALAR) {
            int32_t size = p->reg_itemsize[r];
            const char *src = p->in_ptr[p->reg_arg[r]];
            for (int i = 0; i < LT_CHUNK; i++) memcpy(reg + (size_t)i * size, src, (size_t)size);
        }
    }

    const int64_t end = task->end_chunk * LT_CHUNK < p->size ? task->end_chunk * LT_CHUNK : p->size;
    while (pos < end) {
        const int64_t n = end - pos < LT_CHUNK ? end - pos : LT_CHUNK;
        if (nd == 1) {
            /* one coalesced dimension: each load is in place or one strided gather */
            for (r = 0; r < p->n_regs; r++) {
                if (p->reg_kind[r] == LT_REG_LOAD) {
                    k = p->reg_arg[r];
                    const int64_t s = p->in_strides[k];
                    char *src = p->in_ptr[k] + pos * s;
                    if (s == p->reg_itemsize[r]) {
                        regp[r] = src;
                    } else {
                        regp[r] = scratch + (size_t)r * LT_REG_BYTES;
                        lt_gather((char *)regp[r], src, s, n, p->reg_itemsize[r]);
                    }
                } else if (p->reg_kind[r] == LT_REG_OUTPUT) {
                    regp[r] = p->out_ptr[p->reg_arg[r]] + pos * p->reg_itemsize[r];
                }
            }
        } else {
            lt_walk_chunk(p, n, pos, idx, off, scratch, regp);
        }

        /* run the program over the chunk */
        for (int32_t i = 0; i < p->n_instr; i++) {
            const int32_t *ins = p->instr + (size_t)i * LT_INSTR_WORDS;
            const int32_t dst = ins[LT_I_DST];
            if (p->reg_kind[dst] == LT_REG_SCRATCH) regp[dst] = scratch + (size_t)dst * LT_REG_BYTES;
            table[ins[LT_I_OP]](n, regp[dst],
                                      ins[LT_I_A] >= 0 ? regp[ins[LT_I_A]] : NULL,
                                      ins[LT_I_B] >= 0 ? regp[ins[LT_I_B]] : NULL,
                                      ins[LT_I_C] >= 0 ? regp[ins[LT_I_C]] : NULL,
                                      p->params + 2 * (size_t)i, p->exact);
        }
        pos += n;
    }
    free(off);
    free(regp);
    free(scratch);
    LT_FP_LEAVE(fp_saved);
    task->status = 0;
}

static void *lt_thread_main(void *arg)
{
    lt_run_range((lt_task *)arg);
    return NULL;
}

int lt_run(const lt_program *p)
{
    if (p->size <= 0) return 0;
    if (p->ndim < 1 || p->ndim > LT_MAX_DIMS) return -2;
    if (!lt_path_supported(p->path)) return -3;
    const int64_t n_chunks = (p->size + LT_CHUNK - 1) / LT_CHUNK;
    int64_t n_threads = p->n_threads < 1 ? 1 : p->n_threads;
    if (n_threads > n_chunks / LT_PARALLEL_MIN_CHUNKS) n_threads = n_chunks / LT_PARALLEL_MIN_CHUNKS;
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 256) n_threads = 256;

    lt_task tasks[256];
    pthread_t threads[256];
    int started[256] = {0};
    /* ranges of whole chunks: results cannot depend on the split */
    for (int64_t t = 0; t < n_threads; t++) {
        tasks[t].p = p;
        tasks[t].first_chunk = n_chunks * t / n_threads;
        tasks[t].end_chunk = n_chunks * (t + 1) / n_threads;
        tasks[t].status = 0;
    }
    for (int64_t t = 1; t < n_threads; t++)
        started[t] = pthread_create(&threads[t], NULL, lt_thread_main, &tasks[t]) == 0;
    lt_run_range(&tasks[0]);
    for (int64_t t = 1; t < n_threads; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        else lt_run_range(&tasks[t]);   /* could not start a thread: run its range here */
    }
    for (int64_t t = 0; t < n_threads; t++)
        if (tasks[t].status != 0) return tasks[t].status;
    return 0;
}
