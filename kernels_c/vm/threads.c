/* The pool of worker threads and when threads pay.
 * Part of lt_kernel.c (included there, in this order: one translation unit). */

/* ---- worker threads -----------------------------------------------------------------
 *
 * A kernel whose estimated work pays for it runs its ranges on several threads.  The
 * workers are started on first use and kept; after a job a worker watches for the next one
 * for LT_LINGER_NS (0.1 ms), then sleeps on a condition variable, so an idle worker does
 * not spin.  A run too short to pay for waking a sleeping worker takes only the workers
 * still awake, unless it is one of a loop of calls (lt_pool_threads).  One job at a time
 * uses the pool: a call that finds it busy (another Python thread inside a kernel) runs its
 * tasks on its own thread, and a job takes one thread fewer for each other call running
 * tasks when it starts, so k concurrent kernels asked for T threads compute on about
 * max(T, k) threads, never T per kernel (docs/dask.md, "Threads under dask").  Who runs a
 * range never changes its result.  A forked child starts with no workers.
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
    int callers;                 /* calls running tasks now, pool's or not; atomic */
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
    lt_pool.callers = 0;
}

static pthread_once_t lt_pool_once = PTHREAD_ONCE_INIT;
static void lt_pool_init(void) { pthread_atfork(NULL, NULL, lt_pool_after_fork); }

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
    const int others = __atomic_fetch_add(&lt_pool.callers, 1, __ATOMIC_ACQ_REL);
    if (others > 0) threads = threads - others > 1 ? threads - others : 1;
    if (threads <= 1 || pthread_mutex_trylock(&lt_pool.busy) != 0) {
        for (int t = 0; t < n; t++) fn(tasks + (size_t)t * stride);
        __atomic_sub_fetch(&lt_pool.callers, 1, __ATOMIC_ACQ_REL);
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
    __atomic_sub_fetch(&lt_pool.callers, 1, __ATOMIC_ACQ_REL);
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
