/* The interface between the Python lowering (lazytensor/_engine/lower.py) and the C kernel.
 * This text is also given to cffi's cdef, so it holds plain declarations only. */

typedef void (*lt_opfn)(int64_t n, void *out, const void *a, const void *b,
                        const void *c, const void *d, const double *p, int exact);
/* fast-mode softmax rows: e[i] = exp(x[i] - *s) for i < n (not stored when e is NULL), and
 * the sum of those values */
typedef double (*lt_expsumfn)(int64_t n, void *e, const void *x, const void *s);

/* Register kinds. */
enum { LT_REG_SCRATCH = 0, LT_REG_LOAD = 1, LT_REG_OUTPUT = 2, LT_REG_SCALAR = 3 };

/* Fields of one instruction in lt_program.instr (LT_INSTR_WORDS int32 each): the opcode, the
 * destination register, up to four operand registers (-1: none; a fourth only for the fused
 * bodies) and LT_I_EXACT, the mode of the op it computes (1 exact, 0 fast), taken when the
 * op was recorded. */
enum { LT_I_OP = 0, LT_I_DST = 1, LT_I_A = 2, LT_I_B = 3, LT_I_C = 4, LT_I_D = 5,
       LT_I_EXACT = 6, LT_INSTR_WORDS = 7 };

typedef struct {
    /* the program: instructions and registers (a register holds one chunk) */
    int32_t n_instr;
    const int32_t *instr;        /* n_instr * LT_INSTR_WORDS */
    const double *params;        /* n_instr * 2 attribute values */
    int32_t n_regs;
    const int32_t *reg_kind;     /* LT_REG_* */
    const int32_t *reg_arg;      /* input index (LOAD, SCALAR) or output index (OUTPUT) */
    const int32_t *reg_itemsize;
    /* the broadcast plan: coalesced output shape and each input's byte strides */
    int32_t ndim;                /* >= 1 */
    const int64_t *shape;        /* ndim */
    int64_t size;                /* product of shape; > 0 */
    int32_t n_in;
    char *const *in_ptr;         /* n_in base pointers (offset 0 of the plan) */
    const int64_t *in_strides;   /* n_in * ndim, bytes, 0 on broadcast dimensions */
    int32_t n_out;
    char *const *out_ptr;        /* n_out C-contiguous outputs of `size` elements */
    /* how to run it; `exact` (1 when any instruction is exact) picks the mode's figures of
     * plain_stores, prefetch and work_ps; each instruction computes in its own mode */
    int32_t exact;
    int32_t n_threads;
    int32_t path;                /* index into the kernel paths (lt_path_name) */
    /* fused reductions (n_red == 0 for a plain elementwise kernel): the plan's dimensions
     * are ordered P (kept), R (reduced), Q (kept); output element p * Q + q combines the R
     * values at (p, r, q).  Each sink reduces one register into its accumulator array. */
    int32_t n_red;
    const int32_t *red_reg;      /* n_red registers holding the values */
    const int32_t *red_fn;       /* n_red reduction functions (lt_red_name) */
    char *const *red_ptr;        /* n_red accumulator arrays of P * Q slots */
    int32_t red_np, red_nr;      /* how many of the ndim dimensions are P, then R */
    /* how a plain kernel writes its outputs: 0, by their size (non-temporal stores when they
     * reach LT_STREAM_MIN_BYTES in all); 1, non-temporal stores whatever their size (for a
     * block's slice of a large output that no later kernel of the block reads, rows.py) */
    int32_t stream;
    /* bit 0 (fast mode), bit 1 (exact mode): large outputs are written with normal stores all
     * the same (when stream is 0): streaming would not pay (lazytensor/_engine/cost.py) */
    int32_t plain_stores;
    /* bit 0 (fast mode), bit 1 (exact mode): inputs read in place are prefetched
     * LT_PREFETCH_CHUNKS chunks ahead (the rule: lazytensor/_engine/cost.py, prefetch_bits) */
    int32_t prefetch;
    /* for whether a run pays for waking sleeping worker threads (lt_work_ns): the estimated
     * picoseconds per element of its ops on one thread (fast, exact mode; 0: unknown;
     * lazytensor/_engine/cost.py, work_ps) and the bytes per element it reads and writes */
    int32_t work_ps[2];
    int32_t work_bytes;
} lt_program;

enum { LT_STREAM_MIN_BYTES = 4194304 };   /* 4 MiB */

/* Several programs run block by block over leading rows (lazytensor/_engine/rows.py).  The pointer
 * slots of the programs are numbered in_ptr, out_ptr, red_ptr of program 0, then of program 1,
 * and so on; for block i (0 <= i < n_blocks) run by thread t, slot s points at the program's
 * own pointer + i * step[s] + t * thread_step[s].  Each thread runs the programs one after the
 * other on each of its blocks, every program on that thread alone. */
typedef struct {
    int32_t n_prog;
    lt_program *const *prog;     /* their n_threads is ignored */
    int64_t n_blocks;
    const int64_t *step;         /* bytes per block, per slot */
    const int64_t *thread_step;  /* bytes per thread, per slot (a thread's own scratch) */
    int32_t n_threads;
} lt_blocks;

/* Softmax, or log-sum-exp, of each of `rows` rows of `cols` contiguous elements
 * (lazytensor/_api/softmax.py): softmax writes rows * cols C-contiguous values at dst,
 * log-sum-exp one per row.  The functions are those of the expression form's kernels. */
typedef struct {
    int32_t logsumexp;           /* 0: exp(x - max) / sum; 1: log(sum(exp(x - m))) + m */
    int32_t itemsize;            /* 4 (float32) or 8 (float64) */
    int32_t op_subtract, op_exp, op_divide, op_log, op_add;   /* opcodes; divide_by_scalar */
    int32_t red_max, red_sum;    /* lt_red_name: "max:<dtype>", "sum:<dtype>" */
    int32_t work_ps[2];          /* as lt_program's: the ops' ps per element, fast and exact */
    int32_t work_bytes;          /* and the bytes per element read and written */
} lt_rowfns;

int lt_run(const lt_program *prog);
int lt_run_blocks(const lt_blocks *blocks);
int lt_run_rowwise(const lt_rowfns *fns, int64_t rows, int64_t cols, intptr_t src,
                   int64_t src_row_bytes, intptr_t dst, int32_t exact, int32_t n_threads,
                   int32_t path);
int lt_op_count(void);
const char *lt_op_name(int opcode);
int lt_chunk_size(void);
int lt_path_count(void);
const char *lt_path_name(int path);
int lt_path_supported(int path);
int lt_cpu_vendor(void);      /* 1 Intel, 2 AMD, 0 another or unknown (lazytensor/_engine/cost.py) */
void *lt_alloc(size_t nbytes);
void lt_free(void *ptr);
int lt_red_count(void);
const char *lt_red_name(int fn);
int lt_red_acc_size(int fn);

/* The calling thread's floating-point state (lt_fpenv.h).  lt_fpenv_enter switches to the
 * library's own (round to nearest, no flush-to-zero, no denormals-are-zero, exceptions
 * masked) and returns the caller's, which lt_fpenv_leave restores: Python brackets the
 * conversions it has NumPy do with them (lazytensor/_engine/fpenv.py).  lt_fpenv_set is for
 * tests: rounding 0 to nearest, 1 upward, 2 downward, 3 toward zero; flush nonzero turns on
 * flush-to-zero and denormals-are-zero (FZ on aarch64); -1 where that is not available. */
uint64_t lt_fpenv_enter(void);
void lt_fpenv_leave(uint64_t saved);
int lt_fpenv_set(int rounding, int flush);
