/* The evaluation lock (EvalLock) and its claims.
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* EvalLock: _eval.lock, the reentrant lock of evaluations' bookkeeping (planning, caches,
 * values, counters), let go while a large kernel runs (evallock_suspend), so that
 * independent evaluations in several threads overlap in their kernels.  What
 * threading.RLock does, but taking a free lock is a pthread_mutex_trylock (an RLock's
 * acquire parses its arguments and reads the clock, even without waiting).  The owner and
 * count change only with the GIL held; a thread that must wait lets go of the GIL first, so
 * the owner, who may have let go of it during a kernel, can finish.
 *
 * Claims: each level of the owner's evaluations records its roots (a node or a list of
 * nodes, borrowed: its caller holds them).  Before the owner lets the lock go in the middle
 * of an evaluation (a kernel's run, a wait), it claims every pending node its evaluations
 * reach, once per level: `claims` maps each node's address to its thread, until that
 * thread's outermost evaluation ends.  A thread taking the lock while claims exist walks
 * its roots' pending nodes and, finding one claimed by another thread, waits (`changed`)
 * until that thread's claims go, then looks again.  So whenever a thread holds the lock,
 * every other thread in the middle of an evaluation has claimed all it may still compute:
 * a pending node is planned and computed by one thread only, and its inputs are not let go
 * under a kernel reading them.  A claimer waits only in a nested evaluation; a wait that
 * would close a cycle raises instead of deadlocking.  Claims are by address (a dict of ints
 * runs no code when cleared under the mutex): the address of a claimed node freed meanwhile,
 * taken by a new node, can only make another thread wait for nothing, since a DAG's nodes
 * exist when its evaluation starts.  Levels deeper than EVAL_DEPTH are checked, not claimed. */
#define EVAL_DEPTH 32
#define EVAL_WAITERS 64
typedef struct {
    long count, claimed;          /* levels held; levels whose roots are claimed */
    Py_ssize_t has_claims;        /* nodes claimed */
    PyObject *roots[EVAL_DEPTH];  /* borrowed; NULL: a level of unknown roots (`with lock:`) */
} evalstate_t;

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mutex;
    pthread_cond_t changed;       /* claims were let go */
    unsigned long owner;
    evalstate_t st;
    PyObject *claims;             /* {address of a pending node: ident of its thread} */
    int waiting;
    unsigned long waiter[EVAL_WAITERS], waits_for[EVAL_WAITERS];   /* for cycles */
    long long suspends, waits;    /* kernels run with the lock let go; waits for claims */
} evallock_t;

static PyTypeObject evallock_type;
static evallock_t *eval_lock;     /* the one setup_value gives: what C's kernel runs let go */

/* Take the mutex (the GIL let go while blocking): 0, or -1 with an error */
static int evallock_mutex(evallock_t *self)
{
    if (pthread_mutex_trylock(&self->mutex) == 0) return 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pthread_mutex_lock(&self->mutex);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: the evaluation lock failed");
        return -1;
    }
    return 0;
}

/* Walk the pending nodes reached from `roots` (a node or a list of them), depth first.
 * mode 0: claim each for `me` (the claims dict is the visited set); mode 1: return 1 when
 * one is claimed by another thread (its ident in *other).  -1 on error. */
static int evallock_walk(evallock_t *self, PyObject *roots, unsigned long me, int mode,
                         unsigned long *other)
{
    if (roots == NULL || node_type == NULL) return 0;
    PyObject *stack = PyList_New(0), *seen = mode ? PySet_New(NULL) : NULL;
    PyObject *mine = PyLong_FromUnsignedLong(me);
    int found = 0;
    if (stack == NULL || mine == NULL || (mode && seen == NULL)) goto fail;
    if (PyList_Check(roots) || PyTuple_Check(roots)) {
        PyObject *fast = PySequence_Fast(roots, "roots");
        if (fast == NULL) goto fail;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++)
            if (PyList_Append(stack, PySequence_Fast_GET_ITEM(fast, i))) {
                Py_DECREF(fast);
                goto fail;
            }
        Py_DECREF(fast);
    } else if (PyList_Append(stack, roots)) {
        goto fail;
    }
    while (PyList_GET_SIZE(stack) > 0 && !found) {
        const Py_ssize_t n = PyList_GET_SIZE(stack);
        PyObject *node = PyList_GET_ITEM(stack, n - 1);     /* popped: its reference */
        PyList_SET_ITEM(stack, n - 1, NULL);
        Py_SET_SIZE(stack, n - 1);
        if (Py_TYPE(node) != node_type || SLOT(node, off_value) != Py_None) {
            Py_DECREF(node);
            continue;
        }
        PyObject *addr = PyLong_FromVoidPtr(node);
        int fresh = addr != NULL;
        if (fresh && mode) {
            fresh = PySet_Contains(seen, addr) == 0;
            if (fresh) {
                PyObject *owner = PyDict_GetItemWithError(self->claims, addr);
                if (owner != NULL && PyLong_AsUnsignedLong(owner) != me) {
                    *other = PyLong_AsUnsignedLong(owner);
                    found = 1;
                }
                if (PyErr_Occurred() || PySet_Add(seen, addr)) fresh = -1;
            }
        } else if (fresh) {
            PyObject *owner = PyDict_GetItemWithError(self->claims, addr);
            fresh = owner == NULL ? (PyErr_Occurred() || PyDict_SetItem(self->claims, addr, mine)
                                     ? -1 : 1)
                                  : 0;    /* ours already (another's: it was not pending then) */
            if (fresh == 1) self->st.has_claims++;
        }
        Py_XDECREF(addr);
        if (fresh < 0 || (addr == NULL)) {
            Py_DECREF(node);
            goto fail;
        }
        PyObject *inputs = fresh && !found ? SLOT(node, off_inputs) : NULL;
        if (inputs != NULL && PyTuple_Check(inputs))
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); i++)
                if (PyList_Append(stack, PyTuple_GET_ITEM(inputs, i))) {
                    Py_DECREF(node);
                    goto fail;
                }
        Py_DECREF(node);
    }
    Py_DECREF(stack);
    Py_XDECREF(seen);
    Py_DECREF(mine);
    return found;
fail:
    Py_XDECREF(stack);
    Py_XDECREF(seen);
    Py_XDECREF(mine);
    return -1;
}

/* Claim the pending nodes of the owner's levels not claimed yet: 0, or -1 on error */
static int evallock_claim(evallock_t *self)
{
    const unsigned long me = PyThread_get_thread_ident();
    const long top = self->st.count < EVAL_DEPTH ? self->st.count : EVAL_DEPTH;
    for (long d = self->st.claimed; d < top; d++)
        if (evallock_walk(self, self->st.roots[d], me, 0, NULL) < 0) return -1;
    if (self->st.claimed < top) self->st.claimed = top;
    return 0;
}

/* Let the claims of thread `me` go and wake the waiters */
static void evallock_unclaim(evallock_t *self, unsigned long me)
{
    PyObject *err_type, *err_value, *err_tb, *key, *value;
    if (PyDict_GET_SIZE(self->claims) == self->st.has_claims) {    /* all ours */
        PyDict_Clear(self->claims);
        self->st.has_claims = 0;
        if (self->waiting) pthread_cond_broadcast(&self->changed);
        return;
    }
    PyErr_Fetch(&err_type, &err_value, &err_tb);
    PyObject *gone = PyList_New(0);
    Py_ssize_t pos = 0;
    while (gone != NULL && PyDict_Next(self->claims, &pos, &key, &value))
        if (PyLong_AsUnsignedLong(value) == me && PyList_Append(gone, key)) Py_CLEAR(gone);
    for (Py_ssize_t i = 0; gone != NULL && i < PyList_GET_SIZE(gone); i++)
        PyDict_DelItem(self->claims, PyList_GET_ITEM(gone, i));
    if (gone == NULL) PyDict_Clear(self->claims);   /* no memory: others look again anyway */
    Py_XDECREF(gone);
    PyErr_Clear();
    PyErr_Restore(err_type, err_value, err_tb);
    self->st.has_claims = 0;
    if (self->waiting) pthread_cond_broadcast(&self->changed);
}

/* Wait, the lock let go (the mutex by the condition variable, the GIL around it), until
 * claims are let go; the owner's levels are kept.  `other` is whom we wait for: a chain of
 * waits leading back to us raises.  0, or -1 on error. */
static int evallock_wait(evallock_t *self, unsigned long other)
{
    const unsigned long me = PyThread_get_thread_ident();
    for (int hop = 0, i; hop < EVAL_WAITERS; hop++) {
        for (i = 0; i < self->waiting && self->waiter[i] != other; i++) ;
        if (i == self->waiting) break;
        other = self->waits_for[i];
        if (other == me) {
            PyErr_SetString(PyExc_RuntimeError,
                            "lazytensor: nested evaluations in two threads wait for each other's "
                            "pending tensors");
            return -1;
        }
    }
    if (self->waiting == EVAL_WAITERS) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: too many threads wait for evaluations");
        return -1;
    }
    self->waiter[self->waiting] = me;
    self->waits_for[self->waiting] = other;
    self->waiting++;
    self->waits++;
    const evalstate_t saved = self->st;
    self->owner = 0;
    self->st.count = 0;
    Py_BEGIN_ALLOW_THREADS
    pthread_cond_wait(&self->changed, &self->mutex);
    Py_END_ALLOW_THREADS
    self->owner = me;
    self->st = saved;
    int i;
    for (i = 0; i < self->waiting && self->waiter[i] != me; i++) ;
    self->waiting--;
    self->waiter[i] = self->waiter[self->waiting];
    self->waits_for[i] = self->waits_for[self->waiting];
    return 0;
}

/* 1 when taken (or taken again by its owner), 0 when busy and `blocking` is 0, -1 on error.
 * `roots`: what this level evaluates (borrowed, held by the caller), or NULL. */
static int evallock_take_roots(evallock_t *self, int blocking, PyObject *roots)
{
    const unsigned long me = PyThread_get_thread_ident();
    if (self->st.count > 0 && self->owner == me) {
        self->st.count++;
    } else {
        if (!blocking) {
            if (pthread_mutex_trylock(&self->mutex) != 0) return 0;
        } else if (evallock_mutex(self) < 0) {
            return -1;
        }
        self->owner = me;
        self->st.count = 1;
        self->st.claimed = 0;
        self->st.has_claims = 0;
    }
    const long depth = self->st.count - 1;
    if (depth < EVAL_DEPTH) self->st.roots[depth] = roots;
    if (self->st.claimed > depth) self->st.claimed = depth;
    /* another thread may be in the middle of computing what these roots reach */
    while (roots != NULL && PyDict_GET_SIZE(self->claims) > 0) {
        unsigned long other = 0;
        const int found = evallock_walk(self, roots, me, 1, &other);
        if (found == 0) break;
        /* (a nested level keeps what its outer levels reach from other threads meanwhile) */
        if (found < 0 || (depth > 0 && evallock_claim(self)) || evallock_wait(self, other)) {
            if (--self->st.count == 0) {
                if (self->st.has_claims) evallock_unclaim(self, me);
                self->owner = 0;
                pthread_mutex_unlock(&self->mutex);
            }
            return -1;
        }
    }
    return 1;
}

static int evallock_take(evallock_t *self, int blocking)
{
    return evallock_take_roots(self, blocking, NULL);
}

static int evallock_give(evallock_t *self)
{
    if (self->st.count == 0 || self->owner != PyThread_get_thread_ident()) {
        PyErr_SetString(PyExc_RuntimeError, "cannot release un-acquired lock");
        return -1;
    }
    if (--self->st.count == 0) {
        if (self->st.has_claims) evallock_unclaim(self, self->owner);
        self->owner = 0;
        pthread_mutex_unlock(&self->mutex);
    } else if (self->st.claimed > self->st.count) {
        self->st.claimed = self->st.count;
    }
    return 0;
}

/* Let the lock go for a kernel's run, if this thread holds it, after claiming what its
 * evaluations reach; *saved keeps its levels (count 0: nothing was held).  0, or -1. */
static int evallock_suspend(evallock_t *self, evalstate_t *saved)
{
    saved->count = 0;
    if (self == NULL || self->st.count == 0 || self->owner != PyThread_get_thread_ident())
        return 0;
    /* the only Python thread: nobody to let in (a thread state made meanwhile, read late
     * here, only waits for the lock as before), and nothing to claim */
    PyThreadState *me = PyThreadState_Get();
    PyThreadState *head = PyInterpreterState_ThreadHead(PyThreadState_GetInterpreter(me));
    if (head == me && PyThreadState_Next(head) == NULL) return 0;
    if (evallock_claim(self)) return -1;
    *saved = self->st;
    self->suspends++;
    self->owner = 0;
    self->st.count = 0;
    pthread_mutex_unlock(&self->mutex);
    return 0;
}

/* Take the lock back after evallock_suspend: 0, or -1 on error */
static int evallock_resume(evallock_t *self, const evalstate_t *saved)
{
    if (saved->count == 0) return 0;
    if (evallock_mutex(self)) return -1;
    self->owner = PyThread_get_thread_ident();
    self->st = *saved;
    return 0;
}

static PyObject *evallock_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    if (PyTuple_GET_SIZE(args) != 0 || (kw != NULL && PyDict_GET_SIZE(kw) != 0)) {
        PyErr_SetString(PyExc_TypeError, "EvalLock() takes no arguments");
        return NULL;
    }
    evallock_t *self = (evallock_t *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->claims = PyDict_New();
    if (self->claims == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    pthread_mutex_init(&self->mutex, NULL);
    pthread_cond_init(&self->changed, NULL);
    return (PyObject *)self;
}

static void evallock_dealloc(evallock_t *self)
{
    pthread_mutex_destroy(&self->mutex);
    pthread_cond_destroy(&self->changed);
    Py_XDECREF(self->claims);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *evallock_acquire(evallock_t *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"blocking", "timeout", NULL};
    int blocking = 1;
    double timeout = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pd:acquire", names, &blocking, &timeout))
        return NULL;
    if (timeout != -1) {
        PyErr_SetString(PyExc_ValueError, "lazytensor's evaluation lock takes no timeout");
        return NULL;
    }
    const int r = evallock_take(self, blocking);
    if (r < 0) return NULL;
    return PyBool_FromLong(r);
}

/* enter(roots): take the lock for an evaluation of roots (a node or a list of nodes, held
 * by the caller until its release()) */
static PyObject *evallock_enter_roots(evallock_t *self, PyObject *roots)
{
    if (evallock_take_roots(self, 1, roots) < 0) return NULL;
    Py_RETURN_NONE;
}

/* release(), and __exit__(*exc_info) (its None lets an exception through) */
static PyObject *evallock_release(evallock_t *self, PyObject *unused)
{
    (void)unused;
    if (evallock_give(self)) return NULL;
    Py_RETURN_NONE;
}

static PyObject *evallock_enter(evallock_t *self, PyObject *unused)
{
    (void)unused;
    if (evallock_take(self, 1) < 0) return NULL;
    Py_RETURN_TRUE;
}

/* suspend() -> token: let go for a kernel's run (None: not held); resume(token) after */
static PyObject *evallock_suspend_py(evallock_t *self, PyObject *unused)
{
    (void)unused;
    evalstate_t saved;
    if (evallock_suspend(self, &saved)) return NULL;
    if (saved.count == 0) Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)&saved, sizeof saved);
}

static PyObject *evallock_resume_py(evallock_t *self, PyObject *token)
{
    if (token == Py_None) Py_RETURN_NONE;
    if (!PyBytes_CheckExact(token) || PyBytes_GET_SIZE(token) != sizeof(evalstate_t)) {
        PyErr_SetString(PyExc_TypeError, "resume(token from suspend())");
        return NULL;
    }
    evalstate_t saved;
    memcpy(&saved, PyBytes_AS_STRING(token), sizeof saved);
    if (evallock_resume(self, &saved)) return NULL;
    Py_RETURN_NONE;
}

/* stats() -> {"suspends", "waits", "claims"}: kernels run with the lock let go, waits for
 * another thread's claims, nodes claimed now */
static PyObject *evallock_stats(evallock_t *self, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("{sLsLsn}", "suspends", self->suspends, "waits", self->waits,
                         "claims", PyDict_GET_SIZE(self->claims));
}

/* in a child process after fork (os.register_at_fork): a fresh mutex, held again if the
 * thread that forked held the lock (it goes on in the child and will release it), else free
 * (its owner, another thread, does not exist in the child); other threads' claims and
 * waits are gone with them */
static PyObject *evallock_at_fork_reinit(evallock_t *self, PyObject *unused)
{
    (void)unused;
    const unsigned long me = PyThread_get_thread_ident();
    pthread_mutex_init(&self->mutex, NULL);
    pthread_cond_init(&self->changed, NULL);
    self->waiting = 0;
    const int mine = self->st.count > 0 && self->owner == me;
    if (mine) {
        pthread_mutex_lock(&self->mutex);
    } else {
        self->owner = 0;
        self->st.count = 0;
        self->st.has_claims = 0;
    }
    PyObject *kept = PyDict_New(), *key, *value;
    Py_ssize_t pos = 0;
    while (kept != NULL && PyDict_Next(self->claims, &pos, &key, &value))
        if (mine && PyLong_AsUnsignedLong(value) == me && PyDict_SetItem(kept, key, value))
            Py_CLEAR(kept);
    if (kept == NULL) return NULL;
    Py_SETREF(self->claims, kept);
    Py_RETURN_NONE;
}

static PyMethodDef evallock_methods[] = {
    {"acquire", (PyCFunction)(void (*)(void))evallock_acquire, METH_VARARGS | METH_KEYWORDS,
     "acquire(blocking=True) -> bool"},
    {"release", (PyCFunction)evallock_release, METH_NOARGS, "release()"},
    {"enter", (PyCFunction)evallock_enter_roots, METH_O,
     "enter(roots): acquire for an evaluation of roots (a Node or a list of Nodes, held by "
     "the caller until release()), waiting while another thread computes what they reach"},
    {"suspend", (PyCFunction)evallock_suspend_py, METH_NOARGS,
     "suspend() -> token: let go for a kernel's run, claiming what this thread's "
     "evaluations reach (None when not held)"},
    {"resume", (PyCFunction)evallock_resume_py, METH_O, "resume(token): take back after suspend()"},
    {"stats", (PyCFunction)evallock_stats, METH_NOARGS, "stats() -> dict"},
    {"__enter__", (PyCFunction)evallock_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)evallock_release, METH_VARARGS, NULL},
    {"_at_fork_reinit", (PyCFunction)evallock_at_fork_reinit, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject evallock_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lazytensor._fastpath.EvalLock",
    .tp_basicsize = sizeof(evallock_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A reentrant lock (threading.RLock's acquire, release and with), cheap to take "
              "when free, let go during large kernels with claims on what is being computed.",
    .tp_methods = evallock_methods,
    .tp_new = evallock_new,
    .tp_dealloc = (destructor)evallock_dealloc,
};
