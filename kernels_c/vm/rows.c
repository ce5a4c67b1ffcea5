/* Programs by blocks of rows, and softmax and log-sum-exp along rows.
 * Part of lt_kernel.c (included there, in this order: one translation unit). */

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
                sub(n, d, x + c0 * sz, mrep, NULL, NULL, params, r->exact);
                ex(n, dst, d, NULL, NULL, NULL, params, r->exact);
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
                table[r->f->op_log](k + 1, d, sums, NULL, NULL, NULL, params, r->exact);
                table[r->f->op_add](k + 1, out, d, shifts, NULL, NULL, params, r->exact);
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
                table[r->f->op_divide](n, o + c0 * sz, erow + c0 * sz, srep, NULL, NULL, params,
                                       r->exact);
                continue;
            }
            table[r->f->op_divide](n, d, ex_row + c0 * sz, srep, NULL, NULL, params, r->exact);
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
