/* The floating-point state lazytensor computes in, and the caller's state around it.
 *
 * Exact mode's bits are defined under round to nearest, without flush-to-zero or
 * denormals-are-zero, with every exception masked.  The caller (another library, a
 * numerical code that asked for FTZ/DAZ or another rounding mode) may have left this
 * thread in any state: whatever lazytensor computes (kernels, reductions' final roundings,
 * Python constants converted through NumPy) runs between lt_fp_enter_state, which saves
 * the caller's state and switches to the library's, and lt_fp_leave_state, which gives it
 * back.  The state is per thread.  Included by lt_kernel.c and lt_fastpath.c; static
 * inline only (no symbols).
 *
 *   x86:      MXCSR (the SSE unit does every float and double operation of x86-64; the x87
 *             unit is not used)
 *   aarch64:  FPCR (rounding mode, FZ, FZ16, AH/FIZ, default NaN, trap enables)
 *   elsewhere: the C rounding mode (fegetround/fesetround); no flush-to-zero there
 */
#ifndef LT_FPENV_H
#define LT_FPENV_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
/* MXCSR: every exception masked, round to nearest, no flush-to-zero (bit 15), no
 * denormals-are-zero (bit 6), no exception flag */
#define LT_FP_DEFAULT 0x1F80u
#define LT_FP_FLUSH 0x8040u              /* FTZ | DAZ */
#define LT_FP_ROUND_SHIFT 13             /* RC: 0 nearest, 1 down, 2 up, 3 toward zero */
static inline uint64_t lt_fp_get(void) { return _mm_getcsr(); }
static inline void lt_fp_put(uint64_t s) { _mm_setcsr((unsigned)s); }
/* the library's state given the caller's (the exception flags are the caller's to keep) */
static inline uint64_t lt_fp_library(uint64_t s) { return LT_FP_DEFAULT | (s & 0x3Fu); }
#elif defined(__aarch64__)
/* FPCR fields that change a result: RMode (bits 22-23; 0 nearest, 1 up, 2 down, 3 toward
 * zero), FZ (24), FZ16 (19), DN (25: default NaN), AH and FIZ (1, 0: FEAT_AFP), and the
 * trap enables IOE..IXE, IDE (8-12, 15); all zero is the library's state */
#define LT_FP_MODE_BITS ((3u << 22) | (1u << 24) | (1u << 19) | (1u << 25) | 3u | (0x9Fu << 8))
#define LT_FP_FLUSH (1u << 24)
#define LT_FP_ROUND_SHIFT 22
static inline uint64_t lt_fp_get(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return v;
}
/* the memory clobber keeps the loads and stores of the computation on their side of it */
static inline void lt_fp_put(uint64_t v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v) : "memory"); }
static inline uint64_t lt_fp_library(uint64_t s) { return s & ~(uint64_t)LT_FP_MODE_BITS; }
#else
#include <fenv.h>
static inline uint64_t lt_fp_get(void) { return (uint64_t)(unsigned)fegetround(); }
static inline void lt_fp_put(uint64_t s) { fesetround((int)(unsigned)s); }
static inline uint64_t lt_fp_library(uint64_t s) { (void)s; return (uint64_t)(unsigned)FE_TONEAREST; }
#endif

/* Save the caller's state and switch to the library's; returns what lt_fp_leave_state
 * restores.  Writes the control register only when it differs (a write can stall). */
static inline uint64_t lt_fp_enter_state(void)
{
    const uint64_t saved = lt_fp_get(), mine = lt_fp_library(saved);
    if (mine != saved) lt_fp_put(mine);
    return saved;
}

/* Give the caller's state back (its exception flags too, as they were). */
static inline void lt_fp_leave_state(uint64_t saved)
{
    if (lt_fp_get() != saved) lt_fp_put(saved);
}

#endif
