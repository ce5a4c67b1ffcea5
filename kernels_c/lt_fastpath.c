/* lazytensor._fastpath: the hot paths of recording and evaluation, in C.  This file holds the
 * module's setup, counters, operand layouts, the walk of a single group, the evaluation lock
 * and the Busy flag; its parts in ext/ are included below, in order (one translation unit).
 *
 * Evaluating a 10^3-element expression is mostly Python work around a kernel call of a
 * microsecond: walk the pending DAG, build the structure key, find the compiled kernel, fill
 * its pointers, allocate the output and keep the value.  quick_eval() is that path for one
 * group (evaluate_one's hit) and plan_eval() for a kept plan of several kernels (evaluate's
 * hit).  The walks and keys are ext/keys.c's, which also give Python's cold path
 * (evaluate.py: a miss, planned, compiled and kept under the same key) its keys.  They return
 * False whenever they are not sure: another shape, a miss, a kernel's call structure busy in
 * another thread.  Python then takes its own path.
 *
 * op_node() is graph.op_node: op nodes are hash-consed in this module's table.  binary(),
 * unary(), where(), result() and leaf_tensor() record the lean cases (record.py hands the
 * rest to Python); memo_call() and replay() are the recording memo of replay.py.
 *
 * Node attributes are read straight from their __slots__ (offsets taken from the member
 * descriptors at setup): a Python attribute lookup costs more than the rest of the walk.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>

/* NumPy's C API for the arrays this module makes and reads: an np.empty call and a
 * setflags call cost as much as a small kernel */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "lt_kernel.h"
#include "lt_fpenv.h"

#define MAX_NODES 64            /* the positions of one kept step (its inputs, outputs, sinks) */
#define MAX_STACK 256           /* the ops reduction_below follows */
/* elements from which a kernel's run lets go of the GIL and the evaluation lock */
#define RELEASE_MIN (1 << 16)
#define KEY_ROOM 64             /* items a key list is made with room for */

typedef int (*lt_run_fn)(const lt_program *);

static PyTypeObject *node_type;
static Py_ssize_t off_op, off_inputs, off_attrs, off_dtype, off_shape, off_value, off_operand;
static PyObject *quick_table, *operand_of, *memory_empty, *check_status, *counters,
    *cache_stats, *mode_var, *config_module, *kernel_module, *memory_stats,
    *intern_table;
static Py_ssize_t off_key, off_layout, off_address, off_exact;
static long long pool_min_bytes;
/* recording */
static PyTypeObject *tensor_type;
static Py_ssize_t off_tensor_node;
static PyObject *fast_signatures, *fast_constants, *py_binary, *py_unary, *graph_module;
static PyObject *s_leaf, *s_dtype, *s_shape, *s_negative, *s_abs, *s_zero, *s_negative_zero,
    *s_const;
static lt_run_fn run_kernel;
static long max_group_nodes, max_group_inputs;
static long cast_inline_max;    /* _eval.CAST_INLINE_MAX */
static PyObject *s_exact_mode, *s_fast_mode;   /* the modes' names, as lt.mode keeps them */
static PyObject *s_reduce, *s_cast, *s_fast, *s_num_threads, *s_path,
    *s_evaluations, *s_kernels, *s_hits,
    *s_allocated_bytes, *empty_tuple, *s_transpose;

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

static int install_node_hooks(PyTypeObject *type);
static void leave_table(PyObject *node);

static int slot_offset(PyObject *type, const char *name, Py_ssize_t *off)
{
    PyObject *d = PyObject_GetAttrString(type, name);
    if (d == NULL) return -1;
    if (Py_TYPE(d) != &PyMemberDescr_Type ||
        ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        Py_DECREF(d);
        PyErr_Format(PyExc_TypeError, "Node.%s is not a slot", name);
        return -1;
    }
    *off = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return 0;
}

static PyObject *setup(PyObject *self, PyObject *args)
{
    PyObject *type, *run_addr;
    if (!PyArg_ParseTuple(args, "O!O!OOOOO!O!OOlllO!LO!", &PyType_Type, &type, &PyDict_Type,
                          &quick_table, &run_addr, &operand_of, &memory_empty, &check_status,
                          &PyDict_Type, &counters, &PyDict_Type, &cache_stats,
                          &config_module, &kernel_module, &max_group_nodes,
                          &max_group_inputs, &cast_inline_max, &PyDict_Type, &memory_stats,
                          &pool_min_bytes, &PyDict_Type, &intern_table))
        return NULL;
    if (!PyModule_Check(config_module) || !PyModule_Check(kernel_module)) {
        PyErr_SetString(PyExc_TypeError, "setup: _config and _kernel must be modules");
        return NULL;
    }
    if (slot_offset(type, "op", &off_op) || slot_offset(type, "inputs", &off_inputs) ||
        slot_offset(type, "attrs", &off_attrs) || slot_offset(type, "dtype", &off_dtype) ||
        slot_offset(type, "shape", &off_shape) || slot_offset(type, "value", &off_value) ||
        slot_offset(type, "operand", &off_operand) || slot_offset(type, "key", &off_key) ||
        slot_offset(type, "layout", &off_layout) || slot_offset(type, "address", &off_address) ||
        slot_offset(type, "exact", &off_exact))
        return NULL;
    const int hooks = install_node_hooks((PyTypeObject *)type);
    if (hooks < 0) return NULL;
    if (hooks == 0) {
        PyErr_SetString(PyExc_ImportError, "lazytensor: the C hash-consing table does not know "
                        "this Python's layout of Node objects (a subclass, a __dict__, another "
                        "weakref slot): op nodes cannot be recorded");
        return NULL;
    }
    run_kernel = (lt_run_fn)PyLong_AsVoidPtr(run_addr);
    if (run_kernel == NULL && PyErr_Occurred()) return NULL;
    node_type = (PyTypeObject *)type;
    PyObject *keep[] = {type, quick_table, operand_of, memory_empty, check_status, counters,
                        cache_stats, config_module, kernel_module,
                        memory_stats, intern_table};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) Py_INCREF(keep[i]);
    Py_RETURN_NONE;
}

/* Counting.  The counters are Python dicts (lt.stats(), _jit.stats, ...); adding to one
 * costs a lookup, a new int and a store, about 0.1 us, and a quick evaluation adds to four.
 * So the counts made here are tallied in C and added to the dicts by flush_counts(), which
 * every reader calls first (_eval.flush_counts). */
static int count_now(PyObject *dict, PyObject *name, long long amount)
{
    PyObject *old = PyDict_GetItemWithError(dict, name);
    if (old == NULL) return PyErr_Occurred() ? -1 : 0;
    PyObject *add = PyLong_FromLongLong(amount), *sum = add ? PyNumber_Add(old, add) : NULL;
    Py_XDECREF(add);
    if (sum == NULL) return -1;
    int r = PyDict_SetItem(dict, name, sum);
    Py_DECREF(sum);
    return r;
}

/* A tuple is hashed anew at each use: the key of a node in _graph._INTERN is hashed once for
 * the lookup and the deletion of set_value (CPython's known-hash calls; from 3.13, where they
 * are gone, the plain ones). dict_get: borrowed. */
#if PY_VERSION_HEX < 0x030D0000
#define dict_get(d, key, hash) _PyDict_GetItem_KnownHash(d, key, hash)
#define dict_del(d, key, hash) _PyDict_DelItem_KnownHash(d, key, hash)
#else
#define dict_get(d, key, hash) ((void)(hash), PyDict_GetItemWithError(d, key))
#define dict_del(d, key, hash) ((void)(hash), PyDict_DelItem(d, key))
#endif

/* The calling thread's recording id, as an int (borrowed): its thread state's unique id,
 * never given to another thread (threading.get_ident() values are reused once a thread has
 * ended, which let a new thread find an ended one's pending nodes).  The last one made is
 * kept, since nearly every call comes from the same thread. */
static PyObject *recording_id(void)
{
    static uint64_t last_id;
    static PyObject *last;
    const uint64_t id = PyThreadState_GetID(PyThreadState_Get());
    if (last == NULL || id != last_id) {
        PyObject *made = PyLong_FromUnsignedLongLong(id);
        if (made == NULL) return NULL;
        Py_XSETREF(last, made);
        last_id = id;
    }
    return last;
}

#define MAX_TALLIES 16
static struct { PyObject *dict, *name; long long pending; } tallies[MAX_TALLIES];
static int n_tallies;

static int count(PyObject *dict, PyObject *name, long long amount)
{
    for (int i = 0; i < n_tallies; i++)
        if (tallies[i].dict == dict && tallies[i].name == name) {
            tallies[i].pending += amount;
            return 0;
        }
    if (n_tallies == MAX_TALLIES) return count_now(dict, name, amount);
    tallies[n_tallies].dict = Py_NewRef(dict);
    tallies[n_tallies].name = Py_NewRef(name);
    tallies[n_tallies++].pending = amount;
    return 0;
}

static PyObject *flush_counts(PyObject *self, PyObject *unused)
{
    for (int i = 0; i < n_tallies; i++) {
        const long long amount = tallies[i].pending;
        tallies[i].pending = 0;
        if (amount && count_now(tallies[i].dict, tallies[i].name, amount)) return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *ffi_cast, *s_char_p, *s_strides;

/* Whether a node's value is read through a copy made for each evaluation (a misaligned or
 * byte-swapped array: the kernels read elements through typed pointers in native order;
 * see _kernel.operand_of).  Such a value views memory its owner may write between
 * evaluations, so nothing of it is kept here: Python's path reads it. */
static int needs_copy(PyObject *value)
{
    return PyArray_Check(value) && (!PyArray_ISALIGNED((PyArrayObject *)value) ||
                                    PyArray_ISBYTESWAPPED((PyArrayObject *)value));
}

/* The layout (shape, strides, dtype) of a node's value, as operand_of makes it, and its
 * address, when the value is an aligned native buffer (the kernels read elements through
 * typed pointers).  1 with both set (the layout a new reference), 0 when it is misaligned,
 * byte-swapped or not a buffer (Python's operand_of decides), -1 on error. */
static int aligned_layout(PyObject *node, PyObject **layout, void **address)
{
    Py_buffer view;
    if (needs_copy(SLOT(node, off_value))) return 0;
    if (PyObject_GetBuffer(SLOT(node, off_value), &view, PyBUF_STRIDES) < 0) {
        PyErr_Clear();
        return 0;
    }
    int aligned = view.itemsize > 0 && (uintptr_t)view.buf % view.itemsize == 0, unit = 0;
    for (int d = 0; d < view.ndim && aligned; d++) {
        aligned = view.strides[d] % view.itemsize == 0;
        unit |= view.shape[d] == 1;
    }
    /* NumPy exports a contiguous array's buffer with canonical strides, whatever the strides
     * of its length-1 dimensions (X.T of a (1, n) X: (4, 4096) exported as (4, 4)); the key
     * holds the array's own, as operand_of's does, or it never matches Python's */
    PyObject *strides = !aligned ? NULL : unit ? PyObject_GetAttr(SLOT(node, off_value), s_strides)
                                               : PyTuple_New(view.ndim);
    if (strides != NULL && unit && !PyTuple_CheckExact(strides)) Py_CLEAR(strides);
    for (int d = 0; strides != NULL && !unit && d < view.ndim; d++) {
        PyObject *s = PyLong_FromSsize_t(view.strides[d]);
        if (s == NULL) Py_CLEAR(strides);
        else PyTuple_SET_ITEM(strides, d, s);
    }
    *address = view.buf;
    PyBuffer_Release(&view);
    if (strides == NULL) return aligned ? -1 : 0;
    *layout = PyTuple_Pack(3, SLOT(node, off_shape), strides, SLOT(node, off_dtype));
    Py_DECREF(strides);
    return *layout == NULL ? -1 : 1;
}

/* _kernel.operand_of(node): the cached operand, or a new one made here for an aligned value
 * (as operand_of makes it: (pointer, (shape, strides, dtype), array, address)); Python's
 * operand_of for anything else.  New reference. */
static PyObject *operand_made(PyObject *node)
{
    PyObject *operand = SLOT(node, off_operand), *layout;
    if (operand != Py_None) return Py_NewRef(operand);
    void *address;
    int r = ffi_cast == NULL ? 0 : aligned_layout(node, &layout, &address);
    if (r <= 0) return r < 0 ? NULL : PyObject_CallOneArg(operand_of, node);
    PyObject *addr = PyLong_FromVoidPtr(address);
    PyObject *ptr = addr ? PyObject_CallFunctionObjArgs(ffi_cast, s_char_p, addr, NULL) : NULL;
    PyObject *made = ptr ? PyTuple_Pack(4, ptr, layout, SLOT(node, off_value), addr) : NULL;
    Py_XDECREF(addr);
    Py_XDECREF(ptr);
    Py_DECREF(layout);
    if (made == NULL) return NULL;
    PyObject *old = SLOT(node, off_operand);
    SLOT(node, off_operand) = Py_NewRef(made);
    Py_XDECREF(old);
    return made;
}

/* The layout of a node with a value, as operand_made's [1], for a plan's key.  A value
 * without a cached operand (one just computed, read once by the next kernel, or a leaf only
 * ever read here) does not get one made: making the operand (a cffi pointer) cost a third
 * of a microsecond.  Its layout and address are kept in the node's `layout` and `address`
 * slots instead: a leaf read again and again then gives its key the same tuple each time
 * (which the quick table's memo needs), and run_call its address without the buffer
 * protocol.  New reference; NULL with no error when the cached operand is not of its form
 * or the value is read through a copy made per evaluation (needs_copy): Python's path then
 * decides. */
static PyObject *layout_made(PyObject *node)
{
    PyObject *operand = SLOT(node, off_operand), *layout;
    void *address;
    if (operand == Py_None) {
        if (needs_copy(SLOT(node, off_value))) return NULL;
        layout = SLOT(node, off_layout);
        if (layout != NULL && layout != Py_None) return Py_NewRef(layout);
        int r = aligned_layout(node, &layout, &address);
        if (r < 0) return NULL;
        if (r > 0) {
            PyObject *addr = PyLong_FromVoidPtr(address);
            if (addr == NULL) {
                Py_DECREF(layout);
                return NULL;
            }
            Py_XSETREF(SLOT(node, off_address), addr);
            Py_XSETREF(SLOT(node, off_layout), Py_NewRef(layout));
            return layout;
        }
    }
    operand = operand_made(node);
    if (operand == NULL) return NULL;
    layout = PyTuple_Check(operand) && PyTuple_GET_SIZE(operand) >= 4
             ? Py_NewRef(PyTuple_GET_ITEM(operand, 1)) : NULL;
    Py_DECREF(operand);
    return layout;                       /* NULL, no error: not of its form, Python's turn */
}

/* Whether op name `op` is `name` (an interned string): 1 or 0, -1 on error.  The table's
 * names are interned, so identity nearly always decides (PyUnicode_Compare twice per node
 * was a sixth of the walk). */
static int is_op(PyObject *op, PyObject *name)
{
    if (op == name) return 1;
    if (PyUnicode_CheckExact(op) && PyUnicode_CHECK_INTERNED(op)) return 0;
    const int c = PyUnicode_Compare(op, name);
    return c == -1 && PyErr_Occurred() ? -1 : c == 0;
}

/* A list to build a key in, with room for `room` items (no reallocation while it grows) */
static PyObject *key_list(Py_ssize_t room)
{
    PyObject *list = PyList_New(room);
    if (list != NULL) Py_SET_SIZE(list, 0);     /* the slots stay allocated (and NULL) */
    return list;
}

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
        if (pthread_mutex_trylock(&self->mutex) != 0) {
            if (!blocking) return 0;
            int rc;
            Py_BEGIN_ALLOW_THREADS
            rc = pthread_mutex_lock(&self->mutex);
            Py_END_ALLOW_THREADS
            if (rc != 0) {
                PyErr_SetString(PyExc_RuntimeError, "lazytensor: the evaluation lock failed");
                return -1;
            }
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

/* Busy: the flag that guards a kernel's reusable call structure (CompiledKernel._busy).
 * Only ever taken without waiting, always with the GIL held, so a plain int does what a
 * threading.Lock did, without its two calls (and the clock read of each acquire). */
typedef struct {
    PyObject_HEAD
    int held;
} busy_t;

static PyObject *busy_acquire(busy_t *self, PyObject *blocking)
{
    const int wait = PyObject_IsTrue(blocking);
    if (wait != 0) {
        if (wait > 0)
            PyErr_SetString(PyExc_ValueError,
                            "lazytensor Busy flags are only taken without waiting");
        return NULL;
    }
    if (self->held) Py_RETURN_FALSE;
    self->held = 1;
    Py_RETURN_TRUE;
}

/* Set the flag to `held`: -1 (RuntimeError) when it already is */
static int busy_set(busy_t *self, int held)
{
    if (self->held == held) {
        PyErr_SetString(PyExc_RuntimeError, held ? "the Busy flag is held"
                                                 : "release of a Busy flag that is not held");
        return -1;
    }
    self->held = held;
    return 0;
}

/* release(), and __exit__(*exc_info) (its None lets an exception through) */
static PyObject *busy_release(busy_t *self, PyObject *unused)
{
    (void)unused;
    if (busy_set(self, 0)) return NULL;
    Py_RETURN_NONE;
}

/* `with busy:` takes a free flag (and raises when it is held: nothing waits for it) */
static PyObject *busy_enter(busy_t *self, PyObject *unused)
{
    (void)unused;
    if (busy_set(self, 1)) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef busy_methods[] = {
    {"acquire", (PyCFunction)busy_acquire, METH_O,
     "acquire(blocking) -> bool: take the flag if it is free (blocking must be False)."},
    {"release", (PyCFunction)busy_release, METH_NOARGS, "release(): free the flag."},
    {"__enter__", (PyCFunction)busy_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)busy_release, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject busy_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lazytensor._fastpath.Busy",
    .tp_basicsize = sizeof(busy_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A try-only lock: acquire(False) -> bool, release().",
    .tp_methods = busy_methods,
    .tp_new = PyType_GenericNew,
};

#include "ext/mode.c"

#include "ext/calls.c"

#include "ext/keys.c"

#include "ext/quick.c"

#include "ext/values.c"

#include "ext/nodes.c"

#include "ext/record.c"

#include "ext/memo.c"

#include "ext/rowwise.c"

#include "ext/plans.c"

#include "ext/jit.c"

static PyMethodDef methods[] = {
    {"op_node", (PyCFunction)(void (*)(void))op_node_call, METH_FASTCALL,
     "op_node(op, inputs, attrs, dtype, shape) -> Node: _graph.op_node in C."},
    {"forget", forget, METH_O,
     "forget(node): take a node out of the hash-consing table (Node.set_value)."},
    {"intern_size", intern_size, METH_NOARGS,
     "intern_size() -> the number of op nodes in the hash-consing table."},
    {"pending_nodes", pending_nodes, METH_NOARGS,
     "pending_nodes() -> [the op nodes in the hash-consing table]: the pending ones."},
    {"node_hooks", node_hooks_installed, METH_NOARGS,
     "node_hooks() -> whether op nodes are hash-consed in this module's table."},
    {"setup_operators", setup_operators, METH_O,
     "setup_operators({dunder: Python method}) -> {dunder: method descriptor of Tensor}: "
     "the arithmetic and comparison operators, -t and abs(t) in C."},
    {"setup_value", setup_value, METH_VARARGS,
     "setup_value(tensor_module, _value, __array__, EvalLock, evaluate_one) -> {name: method "
     "descriptor of Tensor}: Tensor._value and __array__ in C."},
    {"clear_memos", clear_memos, METH_NOARGS,
     "clear_memos(): release what the quick table's identity memo holds."},
    {"flush_counts", flush_counts, METH_NOARGS,
     "flush_counts(): add the counts tallied in C to the counter dicts."},
    {"setup", setup, METH_VARARGS,
     "setup(Node, quick_table, lt_run_address, operand_of, memory_empty, check_status, "
     "counters, cache_stats, config_module, kernel_module, max_nodes, max_inputs, "
     "cast_inline_max, memory_stats, pool_min_bytes, intern_table)"},
    {"setup_mode", setup_mode, METH_VARARGS,
     "setup_mode(contextvar, doc) -> the type lt.mode (the mode's context manager in C)."},
    {"setup_recording", setup_recording, METH_VARARGS,
     "setup_recording(Tensor, fast_signatures, fast_constants, binary, unary, graph_module)"},
    {"binary", (PyCFunction)(void (*)(void))binary, METH_FASTCALL,
     "binary(name, a, b): record a binary table op (lean case in C, else Python's)."},
    {"unary", (PyCFunction)(void (*)(void))unary, METH_FASTCALL,
     "unary(name, x): record a unary table op (lean case in C, else Python's)."},
    {"replay", replay, METH_VARARGS,
     "replay(steps, source) -> Tensor: rebuild a recorded recipe's nodes over a source node."},
    {"setup_where", setup_where, METH_VARARGS,
     "setup_where(where, bool_dtype): the Python where that where() hands all but the lean "
     "case to."},
    {"where", (PyCFunction)(void (*)(void))where, METH_FASTCALL,
     "where($module, condition, x1, x2, /)\n--\n\n"
     "Elements of ``x1`` where ``condition`` is true, else of ``x2`` (broadcast together)."},
    {"result", (PyCFunction)(void (*)(void))result, METH_FASTCALL,
     "result(name, inputs, dtype, shape) -> Tensor of the op node (no attributes)."},
    {"leaf_tensor", leaf_tensor, METH_O,
     "leaf_tensor(array) -> Tensor on a new leaf node holding the NumPy array."},
    {"source_tensor", source_tensor, METH_O,
     "source_tensor(array) -> leaf_tensor of a caller's array; a read-only one's leaf has "
     "the attrs ('read-only source',)."},
    {"setup_memo", setup_memo, METH_VARARGS,
     "setup_memo(replay_module, stats, recipe_of, numpy_dtype_class)"},
    {"memo_call", (PyCFunction)(void (*)(void))memo_call, METH_FASTCALL,
     "memo_call(recipes, fn, x, args, kwargs): the recording memo's call."},
    {"data_address", data_address, METH_O,
     "data_address(array) -> int: the address of element 0 of a strided buffer."},
    {"setup_plans", setup_plans, METH_VARARGS, "setup_plans(rows_module, ffi_cast)"},
    {"setup_rowwise", setup_rowwise, METH_O, "setup_rowwise(address of lt_run_rowwise)"},
    {"rowwise", (PyCFunction)(void (*)(void))rowwise, METH_FASTCALL,
     "rowwise(array, fns, logsumexp) -> the row kernel's result, or None when Python's path "
     "must copy the array first (lazytensor/_api/softmax.py)."},
    {"plan_eval", plan_eval, METH_O,
     "plan_eval(nodes) -> bool: run a kept plan of several kernels (see _eval.evaluate); "
     "False (nothing done) when Python's path must do it."},
    {"jit_key", (PyCFunction)(void (*)(void))jit_key, METH_FASTCALL,
     "jit_key(args, kwargs) -> (key, tensors) or None: the key of a jitted call."},
    {"jit_call", (PyCFunction)(void (*)(void))jit_call, METH_FASTCALL,
     "jit_call(programs, fn, args, kwargs): a call of a jitted function, replayed (or fn's "
     "for a plain signature); NotImplemented (nothing run) when Python must handle it "
     "(lazytensor/_engine/jit.py)."},
    {"setup_jit", setup_jit, METH_VARARGS, "setup_jit(stats, run_steps)"},
    {"jit_run", (PyCFunction)(void (*)(void))jit_run, METH_FASTCALL,
     "jit_run(program, tensors) -> the replay of a traced program on its tensor arguments."},
    {"group_key", group_key, METH_O,
     "group_key(node) -> (key, members, inputs) of the one group computing it, or None."},
    {"structure_key", structure_key, METH_O,
     "structure_key(roots: list) -> (key, order, leaves): the kept-plan key of evaluating "
     "them, their pending DAG in topological order, and its leaves."},
    {"pending_topo_order", pending_topo_order, METH_O,
     "pending_topo_order(roots) -> the nodes without a value they depend on, inputs first."},
    {"quick_eval", quick_eval, METH_O,
     "quick_eval(node) -> bool: evaluate a small pending expression through the quick "
     "table; False (nothing done) when Python's path must do it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "lazytensor._fastpath",
                                    "The quick evaluation path in C (see lt_fastpath.c).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__fastpath(void)
{
    struct { PyObject **at; const char *text; } names[] = {
        {&s_reduce, "reduce"}, {&s_fast, "_fast"},
        {&s_leaf, "leaf"}, {&s_dtype, "dtype"}, {&s_shape, "shape"}, {&s_max_recipes, "_MAX_RECIPES"}, {&s_replays, "replays"},
        {&s_recorded, "recorded"}, {&s_char_p, "char *"}, {&s_plan, "plan"}, {&s_enabled, "enabled"},
        {&s_block_elements, "BLOCK_ELEMENTS"}, {&s_min_elements, "MIN_ELEMENTS"},
        {&s_inputs, "inputs"}, {&s_outputs, "outputs"}, {&s_sinks, "sinks"},
        {&s_kernel, "kernel"}, {&s_transpose, "transpose"}, {&s_allocated_bytes, "allocated_bytes"},
        {&s_num_threads, "_num_threads"}, {&s_path, "_path"},
        {&s_evaluations, "evaluations"}, {&s_kernels, "kernels"}, {&s_hits, "hits"},
        {&s_const, "const"}, {&s_replayed, "replayed"}, {&s_plain, "plain"},
        {&s_strides, "strides"}, {&s_cast, "cast"}, {&s_negative, "negative"}, {&s_abs, "abs"},
        {&s_zero, "0.0"}, {&s_negative_zero, "-0.0"},
        {&s_exact_mode, "exact"}, {&s_fast_mode, "fast"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*names[i].at = PyUnicode_InternFromString(names[i].text)) == NULL) return NULL;
    if ((empty_tuple = PyTuple_New(0)) == NULL)
        return NULL;
    import_array();
    if (PyType_Ready(&busy_type) < 0 || PyType_Ready(&evallock_type) < 0 ||
        PyType_Ready(&mode_cm_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "Busy", (PyObject *)&busy_type) < 0 ||
        PyModule_AddObjectRef(m, "EvalLock", (PyObject *)&evallock_type) < 0 ||
        PyModule_AddIntConstant(m, "RELEASE_MIN", RELEASE_MIN) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
