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

#include "vm/registers.c"

#include "vm/chunk.c"

#include "vm/tiled.c"

#include "vm/threads.c"

#include "vm/reduce.c"

#include "vm/rows.c"
