/* lazytensor._fastpath: the quick evaluation of a small expression, in C.
 *
 * Evaluating a 10^3-element expression is mostly Python work around a kernel call of a
 * microsecond: walk the pending DAG, build the structure key, find the compiled kernel, fill
 * its pointers, allocate the output and keep the value.  quick_eval() does what the quick
 * path of lazytensor/_engine/evaluate.py (evaluate_one) does, and plan_eval() what evaluate() does on a
 * hit of a kept plan; both build the very keys Python builds, so they share the kernel
 * cache's quick table.  They return False, having changed nothing, whenever they are not
 * sure: another shape, a DAG larger than their small fixed arrays, a miss, a kernel's call
 * structure busy in another thread.  Python then takes its own path.
 *
 * binary(), unary(), result() and leaf_tensor() record a node the way _elementwise and
 * _graph do in their lean cases, hash-consed in this module's table of op nodes (which
 * _graph.op_node, replaced by op_node() here, uses too); memo_call() and
 * replay() are the recording memo of _replay.py.  Anything else goes to the Python functions.
 *
 * Node attributes are read straight from their __slots__ (offsets taken from the member
 * descriptors at setup): a Python attribute lookup costs more than the rest of the walk.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>

/* NumPy's C API for the arrays this module makes and reads: an np.empty call and a
 * setflags call cost as much as a small kernel */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "lt_kernel.h"
#include "lt_fpenv.h"

#define MAX_NODES 64            /* members + inputs the walk handles; more: Python's path */
#define MAX_STACK 256
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
static PyObject *s_leaf, *s_dtype, *s_shape, *s_negative, *s_abs;
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

static int find(PyObject *const *seen, int n, PyObject *node)
{
    for (int i = 0; i < n; i++)
        if (seen[i] == node) return i;
    return -1;
}

/* The walk of _eval._walk_one_group: members inputs-first, inputs numbered in the order
 * first read, and the same flat key.  1 when it fits, 0 when Python must do it, -1 on error. */
static int walk(PyObject *root, PyObject *key, PyObject **inputs, int *n_inputs)
{
    PyObject *seen[MAX_NODES], *stack[MAX_STACK];
    long ref[MAX_NODES];
    int n_seen = 0, n_members = 0, top = 0;
    PyObject *shape = SLOT(root, off_shape);
    *n_inputs = 0;
    if (PyList_Append(key, shape)) return -1;
    stack[top++] = root;
    while (top > 0) {
        PyObject *node = stack[top - 1];
        if (find(seen, n_seen, node) >= 0) {
            top--;
            continue;
        }
        PyObject *ins = SLOT(node, off_inputs);
        if (ins == NULL || !PyTuple_CheckExact(ins)) return 0;
        int ready = 1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ins); i++) {
            PyObject *x = PyTuple_GET_ITEM(ins, i);
            if (Py_TYPE(x) != node_type) return 0;
            if (find(seen, n_seen, x) >= 0) continue;
            if (SLOT(x, off_value) != Py_None) {
                if (n_seen == MAX_NODES) return 0;
                PyObject *layout = layout_made(x);
                if (layout == NULL) return PyErr_Occurred() ? -1 : 0;
                int bad = PyList_Append(key, layout);
                Py_DECREF(layout);
                if (bad) return -1;
                seen[n_seen] = x;
                ref[n_seen++] = -1 - *n_inputs;
                inputs[(*n_inputs)++] = x;
            } else {
                PyObject *x_op = SLOT(x, off_op);
                const int reduce = x_op == NULL ? 0 : is_op(x_op, s_reduce);
                if (reduce < 0) return -1;
                if (reduce || top == MAX_STACK) return 0;   /* not one group */
                ready = 0;
                stack[top++] = x;
            }
        }
        if (!ready) continue;
        top--;
        PyObject *op = SLOT(node, off_op), *node_shape = SLOT(node, off_shape);
        if (op == NULL || node_shape == NULL) return 0;
        int same = node_shape == shape ? 1 : PyObject_RichCompareBool(node_shape, shape, Py_EQ);
        if (same < 0) return -1;
        const int reduce = is_op(op, s_reduce);
        if (reduce < 0) return -1;
        if (reduce || !same || n_members >= max_group_nodes || n_seen == MAX_NODES)
            return 0;
        seen[n_seen] = node;
        ref[n_seen++] = n_members++;
        if (PyList_Append(key, op) || PyList_Append(key, SLOT(node, off_attrs)) ||
            PyList_Append(key, SLOT(node, off_dtype)) || PyList_Append(key, SLOT(node, off_exact)))
            return -1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ins); i++) {
            int at = find(seen, n_seen, PyTuple_GET_ITEM(ins, i));
            PyObject *r = PyLong_FromLong(ref[at]);
            if (r == NULL) return -1;
            int bad = PyList_Append(key, r);
            Py_DECREF(r);
            if (bad) return -1;
        }
    }
    return *n_inputs <= max_group_inputs;
}

/* EvalLock: _eval.lock, the reentrant lock of evaluations (one at a time).  What
 * threading.RLock does, but taking a free lock is a pthread_mutex_trylock (an RLock's
 * acquire parses its arguments and reads the clock, even without waiting).  The owner and
 * count change only with the GIL held; a thread that must wait lets go of the GIL first, so
 * the owner, who may have let go of it during a kernel, can finish. */
typedef struct {
    PyObject_HEAD
    pthread_mutex_t mutex;
    unsigned long owner;
    long count;
} evallock_t;

static PyTypeObject evallock_type;

/* 1 when taken (or taken again by its owner), 0 when busy and `blocking` is 0, -1 on error */
static int evallock_take(evallock_t *self, int blocking)
{
    const unsigned long me = PyThread_get_thread_ident();
    if (self->count > 0 && self->owner == me) {
        self->count++;
        return 1;
    }
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
    self->count = 1;
    return 1;
}

static int evallock_give(evallock_t *self)
{
    if (self->count == 0 || self->owner != PyThread_get_thread_ident()) {
        PyErr_SetString(PyExc_RuntimeError, "cannot release un-acquired lock");
        return -1;
    }
    if (--self->count == 0) {
        self->owner = 0;
        pthread_mutex_unlock(&self->mutex);
    }
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
    pthread_mutex_init(&self->mutex, NULL);
    return (PyObject *)self;
}

static void evallock_dealloc(evallock_t *self)
{
    pthread_mutex_destroy(&self->mutex);
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

/* in a child process after fork (os.register_at_fork): a fresh mutex, held again if the
 * thread that forked held the lock (it goes on in the child and will release it), else free
 * (its owner, another thread, does not exist in the child) */
static PyObject *evallock_at_fork_reinit(evallock_t *self, PyObject *unused)
{
    (void)unused;
    pthread_mutex_init(&self->mutex, NULL);
    if (self->count > 0 && self->owner == PyThread_get_thread_ident()) {
        pthread_mutex_lock(&self->mutex);
    } else {
        self->owner = 0;
        self->count = 0;
    }
    Py_RETURN_NONE;
}

static PyMethodDef evallock_methods[] = {
    {"acquire", (PyCFunction)(void (*)(void))evallock_acquire, METH_VARARGS | METH_KEYWORDS,
     "acquire(blocking=True) -> bool"},
    {"release", (PyCFunction)evallock_release, METH_NOARGS, "release()"},
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
              "when free.",
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

/* ---- lt.mode(name): the mode's context manager ------------------------------------------
 * `with lt.mode("fast"): ...` is part of every call of a small expression written that way;
 * as a Python class (_config.python_mode, kept for builds without this extension) entering and
 * leaving cost three Python calls, about 0.4 us, a tenth of a fused call at 10^3 elements. */
typedef struct {
    PyObject_HEAD
    PyObject *name;      /* "exact" or "fast" */
    PyObject *token;     /* of the contextvar set by __enter__, NULL outside */
} mode_cm_t;

static PyTypeObject mode_cm_type;

static PyObject *mode_cm_make(PyObject *name)
{
    if (mode_var == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: setup_mode was not called");
        return NULL;
    }
    int ok = PyUnicode_Check(name) && (PyUnicode_CompareWithASCIIString(name, "exact") == 0 ||
                                       PyUnicode_CompareWithASCIIString(name, "fast") == 0);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "mode must be one of ('exact', 'fast'), not %R", name);
        return NULL;
    }
    mode_cm_t *self = PyObject_New(mode_cm_t, &mode_cm_type);
    if (self == NULL) return NULL;
    /* the interned name, which recording tells by identity (mode_exact) */
    self->name = Py_NewRef(PyUnicode_CompareWithASCIIString(name, "exact") == 0 ? s_exact_mode
                                                                              : s_fast_mode);
    self->token = NULL;
    return (PyObject *)self;
}

static PyObject *mode_cm_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames)
{
    (void)type;
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw != 1 ||
        (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "name"))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "mode() takes one argument, name");
        return NULL;
    }
    return mode_cm_make(args[0]);
}

static PyObject *mode_cm_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)type;
    static char *kwlist[] = {"name", NULL};
    PyObject *name;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:mode", kwlist, &name)) return NULL;
    return mode_cm_make(name);
}

static void mode_cm_dealloc(mode_cm_t *self)
{
    Py_XDECREF(self->name);
    Py_XDECREF(self->token);
    PyObject_Free(self);
}

static PyObject *mode_cm_enter(mode_cm_t *self, PyObject *unused)
{
    (void)unused;
    PyObject *token = PyContextVar_Set(mode_var, self->name);
    if (token == NULL) return NULL;
    Py_XSETREF(self->token, token);
    Py_RETURN_NONE;
}

static PyObject *mode_cm_exit(mode_cm_t *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)args; (void)nargs;
    if (self->token == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor.mode: __exit__ without __enter__");
        return NULL;
    }
    PyObject *token = self->token;
    self->token = NULL;
    const int failed = PyContextVar_Reset(mode_var, token);
    Py_DECREF(token);
    if (failed) return NULL;
    Py_RETURN_FALSE;
}

static PyObject *mode_cm_repr(mode_cm_t *self)
{
    return PyUnicode_FromFormat("lazytensor.mode(%R)", self->name);
}

static PyMethodDef mode_cm_methods[] = {
    {"__enter__", (PyCFunction)mode_cm_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)(void (*)(void))mode_cm_exit, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject mode_cm_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lazytensor.mode",
    .tp_basicsize = sizeof(mode_cm_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = mode_cm_methods,
    .tp_new = mode_cm_new,
    .tp_vectorcall = mode_cm_vectorcall,
    .tp_dealloc = (destructor)mode_cm_dealloc,
    .tp_repr = (reprfunc)mode_cm_repr,
};

/* setup_mode(contextvar, doc) -> the type lt.mode: the mode's contextvar (_config._mode),
 * which read_settings reads too, and the Python class's docstring for the C type's */
static PyObject *setup_mode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *var, *doc;
    if (!PyArg_ParseTuple(args, "OU", &var, &doc)) return NULL;
    if (!PyContextVar_CheckExact(var)) {
        PyErr_SetString(PyExc_TypeError, "setup_mode needs a contextvars.ContextVar");
        return NULL;
    }
    Py_XSETREF(mode_var, Py_NewRef(var));
    if (PyDict_SetItemString(mode_cm_type.tp_dict, "__doc__", doc)) return NULL;
    PyType_Modified(&mode_cm_type);
    return Py_NewRef((PyObject *)&mode_cm_type);
}

/* A kernel's reusable call structure, as its `_fast` tuple gives it (CompiledKernel in
 * _kernel.py): (program, in_ptr, out_ptr, settings list, its Busy flag, unused,
 * red_ptr, sinks, results, buffer_shape, inverse permutation, fills). */
typedef struct {
    PyObject *ck, *fast;          /* held while the call is open */
    lt_program *p;
    char **in_ptr, **out_ptr, **red_ptr;
    PyObject *state;
    busy_t *busy;
    int n_sinks;                  /* 0 for an elementwise kernel */
    long long results;            /* accumulator slots per sink */
    PyObject *buffer_shape;       /* a reduction kernel writes its outputs in this shape... */
    PyObject *inverse;            /* ...and they are kept transposed by this permutation
                                     (None: the identity) */
    int fills;                    /* a result combines no values: Python fills the identity */
} call_t;

typedef struct {
    int exact;
    int32_t n_threads, path;
} settings_t;

/* Take `ck`'s call structure: 1 with its lock held, 0 (nothing held) when it is busy or
 * not of this form, -1 on error. */
static int call_open(call_t *c, PyObject *ck)
{
    c->fast = PyObject_GetAttr(ck, s_fast);
    if (c->fast == NULL) return -1;
    if (!PyTuple_CheckExact(c->fast) || PyTuple_GET_SIZE(c->fast) != 12) {
        Py_DECREF(c->fast);
        return 0;
    }
    PyObject *const *f = &PyTuple_GET_ITEM(c->fast, 0);
    c->p = PyLong_AsVoidPtr(f[0]);
    c->in_ptr = PyLong_AsVoidPtr(f[1]);
    c->out_ptr = PyLong_AsVoidPtr(f[2]);
    c->state = f[3];
    if (!Py_IS_TYPE(f[4], &busy_type)) {
        Py_DECREF(c->fast);
        PyErr_SetString(PyExc_TypeError, "lazytensor: a kernel's _fast tuple has no Busy flag");
        return -1;
    }
    c->busy = (busy_t *)f[4];
    c->red_ptr = PyLong_AsVoidPtr(f[6]);
    c->n_sinks = (int)PyLong_AsLong(f[7]);
    c->results = PyLong_AsLongLong(f[8]);
    c->buffer_shape = f[9];
    c->inverse = f[10];
    c->fills = PyObject_IsTrue(f[11]);
    if (PyErr_Occurred()) {
        Py_DECREF(c->fast);
        return -1;
    }
    if (c->busy->held) {
        Py_DECREF(c->fast);
        return 0;
    }
    c->busy->held = 1;
    c->ck = Py_NewRef(ck);        /* its C structures live as long as it does */
    return 1;
}

static int call_close(call_t *c)
{
    PyObject *err_type, *err_value, *err_tb;
    PyErr_Fetch(&err_type, &err_value, &err_tb);
    c->busy->held = 0;
    Py_DECREF(c->fast);
    Py_DECREF(c->ck);
    if (err_type != NULL) {
        PyErr_Restore(err_type, err_value, err_tb);   /* the first error is the one to see */
        return -1;
    }
    return 0;
}

/* A module's global (borrowed), read from its dict: what getattr finds for a module without
 * __getattr__, at half the cost.  NULL with an error when it is missing. */
static PyObject *module_global(PyObject *module, PyObject *name)
{
    PyObject *dict = PyModule_GetDict(module);     /* borrowed; never NULL for a module */
    PyObject *value = dict ? PyDict_GetItemWithError(dict, name) : NULL;
    if (value == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_AttributeError, "lazytensor: %R has no %R", module, name);
    return value;
}

/* Whether this context's mode is exact: Py_True or Py_False (borrowed), NULL on error.
 * What an op recorded now keeps (its node's `exact` slot). */
static PyObject *mode_exact(void)
{
    PyObject *mode = NULL;
    if (PyContextVar_Get(mode_var, NULL, &mode) < 0) return NULL;
    if (mode == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: the mode is not set");
        return NULL;
    }
    const int exact = mode == s_exact_mode ||
                      (mode != s_fast_mode && PyUnicode_Check(mode) &&
                       PyUnicode_CompareWithASCIIString(mode, "exact") == 0);
    Py_DECREF(mode);
    return exact ? Py_True : Py_False;
}

/* The mode (this context's), the thread count (_config._num_threads) and the kernel path
 * (_kernel._path) of a call.  0, or -1 on error. */
static int read_settings(settings_t *s)
{
    PyObject *mode = NULL, *threads, *path;
    int r = -1;
    if (PyContextVar_Get(mode_var, NULL, &mode) == 0 && mode != NULL &&
        (threads = module_global(config_module, s_num_threads)) != NULL &&
        (path = module_global(kernel_module, s_path)) != NULL) {
        s->exact = PyUnicode_Check(mode) && PyUnicode_CompareWithASCIIString(mode, "exact") == 0;
        s->n_threads = (int32_t)PyLong_AsLong(threads);
        s->path = (int32_t)PyLong_AsLong(path);
        r = PyErr_Occurred() ? -1 : 0;
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: the mode is not set");
    }
    Py_XDECREF(mode);
    return r;
}

/* Run the open call with its pointers filled in. */
static int call_run(call_t *c, const settings_t *s, int n_out)
{
    lt_program *p = c->p;
    p->n_out = n_out;
    p->n_threads = s->n_threads;
    p->path = s->path;
    /* the settings Python's run_pointers last wrote into p are not there now */
    if (PyList_SetItem(c->state, 0, Py_NewRef(Py_None))) return -1;
    int status = 0;
    if (p->size > 0) {
        if (p->size >= (1 << 16)) {
            Py_BEGIN_ALLOW_THREADS
            status = run_kernel(p);
            Py_END_ALLOW_THREADS
        } else {
            status = run_kernel(p);
        }
    }
    if (status != 0) {
        PyObject *r = PyObject_CallFunction(check_status, "i", status);   /* raises */
        Py_XDECREF(r);
        return -1;
    }
    return 0;
}

/* The address of element 0 of a buffer (PyBUF_STRIDES: any strided array; with
 * PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS: an output this module allocated).  The caller keeps
 * the object, which keeps the memory.  0, or -1 on error. */
static int buffer_address(PyObject *obj, int flags, char **address)
{
    if (PyArray_CheckExact(obj)) {        /* an ndarray: its data pointer, if it may be used */
        PyArrayObject *a = (PyArrayObject *)obj;
        const int need = ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE ? NPY_ARRAY_WRITEABLE : 0) |
                         ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS ? NPY_ARRAY_C_CONTIGUOUS : 0);
        if (PyArray_CHKFLAGS(a, need)) {
            *address = PyArray_BYTES(a);
            return 0;
        }
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, flags) < 0) return -1;
    *address = view.buf;
    PyBuffer_Release(&view);
    return 0;
}

/* The address of element 0 of a node's value: its cached operand's, or through the buffer
 * protocol (values this module just computed: aligned).  Never one read through a copy
 * (layout_made sends those to Python). */
static int node_address(PyObject *node, char **address)
{
    PyObject *operand = SLOT(node, off_operand), *kept = SLOT(node, off_address);
    if (operand != Py_None && PyTuple_Check(operand) && PyTuple_GET_SIZE(operand) >= 4)
        kept = PyTuple_GET_ITEM(operand, 3);
    if (kept != NULL && kept != Py_None) {
        *address = PyLong_AsVoidPtr(kept);
        return PyErr_Occurred() ? -1 : 0;
    }
    if (needs_copy(SLOT(node, off_value))) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: a misaligned or byte-swapped value "
                        "reached a C path that reads it in place");
        return -1;
    }
    return buffer_address(SLOT(node, off_value), PyBUF_STRIDES, address);
}

/* _memory.empty(shape, dtype) for a value of `size` elements: a small output straight from
 * NumPy, a large one from the pool.  The bytes are added to *nbytes (the caller counts them
 * as _memory.empty does, once per call). */
static PyObject *empty(PyObject *shape, PyObject *dtype, long long size, long long *nbytes)
{
    const Py_ssize_t nd = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : -1;
    if (!PyArray_DescrCheck(dtype) || nd < 0 || nd > NPY_MAXDIMS) {
        PyErr_SetString(PyExc_TypeError, "lazytensor: an output needs a dtype and a shape tuple");
        return NULL;
    }
    PyArray_Descr *descr = (PyArray_Descr *)dtype;
    const long long bytes = size * (long long)PyDataType_ELSIZE(descr);
    if (bytes >= pool_min_bytes) {        /* _memory.empty counts them itself */
        PyObject *args[2] = {shape, dtype};
        return PyObject_Vectorcall(memory_empty, args, 2, NULL);
    }
    npy_intp dims[NPY_MAXDIMS];           /* np.empty(shape, dtype) without its argument parsing */
    for (Py_ssize_t d = 0; d < nd; d++) {
        dims[d] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d));
        if (dims[d] == -1 && PyErr_Occurred()) return NULL;
    }
    *nbytes += bytes;
    Py_INCREF(descr);                     /* PyArray_Empty steals it */
    return PyArray_Empty((int)nd, dims, descr, 0);
}

/* Node.set_value: the value, read-only; the node leaves the hash-consing table and lets go of
 * its inputs. */
static int set_value(PyObject *node, PyObject *array)
{
    if (!PyArray_Check(array)) {
        PyErr_SetString(PyExc_TypeError, "lazytensor: a node's value must be an ndarray");
        return -1;
    }
    PyArray_CLEARFLAGS((PyArrayObject *)array, NPY_ARRAY_WRITEABLE);   /* setflags(write=False) */
    PyObject *old = SLOT(node, off_value);
    SLOT(node, off_value) = Py_NewRef(array);
    Py_XDECREF(old);
    Py_CLEAR(SLOT(node, off_layout));      /* kept for the value before, if any */
    Py_CLEAR(SLOT(node, off_address));
    PyObject *key = SLOT(node, off_key);
    if (key != NULL && PyLong_CheckExact(key)) {         /* in this module's table */
        leave_table(node);
    } else if (key != NULL && key != Py_None) {           /* in _graph._INTERN */
        const Py_hash_t hash = PyObject_Hash(key);
        if (hash == -1) return -1;
        PyObject *ref = dict_get(intern_table, key, hash);
        if (ref == NULL && PyErr_Occurred()) return -1;
        if (ref != NULL && PyWeakref_Check(ref) && PyWeakref_GetObject(ref) == node &&
            dict_del(intern_table, key, hash))
            return -1;
        SLOT(node, off_key) = Py_NewRef(Py_None);
        Py_DECREF(key);
    }
    old = SLOT(node, off_inputs);
    SLOT(node, off_inputs) = Py_NewRef(empty_tuple);
    Py_XDECREF(old);
    return 0;
}

/* Run an open call and keep its results, as evaluate_one, evaluate and _reduce_into do: read
 * `inputs` (nodes with values), write fresh arrays for `outputs` (a reduction kernel writes
 * them in its plan's order, kept as transposed views) and accumulators for `sinks` (kept
 * reshaped), and give each node its value.  0, or -1 on error. */
static int run_call(call_t *c, const settings_t *s, PyObject *const *inputs, int n_in,
                    PyObject *const *outputs, int n_out, PyObject *const *sinks, int n_sink)
{
    if (n_sink != c->n_sinks || c->fills) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: a kept kernel does not match its use");
        return -1;
    }
    for (int k = 0; k < n_in; k++)
        if (node_address(inputs[k], &c->in_ptr[k])) return -1;
    PyObject *made[2 * MAX_NODES];
    int n_made = 0, r = -1;
    long long nbytes = 0;
    for (int k = 0; k < n_out + n_sink; k++) {
        PyObject *node = k < n_out ? outputs[k] : sinks[k - n_out], *a;
        if (k >= n_out)       /* an accumulator: one slot per result, made in its shape */
            a = empty(SLOT(node, off_shape), SLOT(node, off_dtype), c->results, &nbytes);
        else
            a = empty(n_sink ? c->buffer_shape : SLOT(node, off_shape), SLOT(node, off_dtype),
                      c->p->size, &nbytes);
        if (a == NULL) goto done;
        made[n_made++] = a;
        if (buffer_address(a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS,
                           k < n_out ? &c->out_ptr[k] : &c->red_ptr[k - n_out]))
            goto done;
    }
    if ((nbytes && count(memory_stats, s_allocated_bytes, nbytes)) || call_run(c, s, n_out))
        goto done;
    for (int k = 0; k < n_out + n_sink; k++) {
        PyObject *node = k < n_out ? outputs[k] : sinks[k - n_out], *value;
        if (k < n_out && n_sink && c->inverse != Py_None)    /* kept in the plan's order */
            value = PyObject_CallMethodOneArg(made[k], s_transpose, c->inverse);
        else
            value = Py_NewRef(made[k]);
        if (value == NULL) goto done;
        int bad = set_value(node, value);
        Py_DECREF(value);
        if (bad) goto done;
    }
    r = 0;
done:
    for (int k = 0; k < n_made; k++) Py_DECREF(made[k]);
    return r;
}

/* _eval._reduce_below_first's chain: the reduction reached from `root` through ops that
 * each have one pending operand, or NULL.  Borrowed. */
static PyObject *reduction_below(PyObject *root)
{
    PyObject *node = root;
    for (int depth = 0; depth < MAX_STACK; depth++) {
        PyObject *op = SLOT(node, off_op), *ins = SLOT(node, off_inputs), *pending = NULL;
        if (op == NULL || !PyUnicode_Check(op) || ins == NULL || !PyTuple_CheckExact(ins))
            return NULL;
        if (is_op(op, s_reduce) == 1) return node;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ins); i++) {
            PyObject *x = PyTuple_GET_ITEM(ins, i);
            if (Py_TYPE(x) != node_type) return NULL;
            if (SLOT(x, off_value) == Py_None) {
                if (pending != NULL) return NULL;   /* two pending operands: not a chain */
                pending = x;
            }
        }
        if (pending == NULL) return NULL;
        node = pending;
    }
    return NULL;
}

/* What a float32 sum ends with, a float64 -> float32 cast of its accumulators (a value by
 * now), done here: the IEEE conversion of each element (and the canonical NaN in exact
 * mode), which is what the cast kernel computes, without its launch (about a third of the
 * call of lt.sum at 10^3), in the library's floating-point state (lt_fpenv.h).  Python's
 * evaluate_one does the same (_eval._cast_of_value).
 * 1 when done, 0 when `root` is not of that form (or has more than CAST_INLINE_MAX
 * elements), -1 on error. */
static int cast_of_value(PyObject *root)
{
    const int is_cast = is_op(SLOT(root, off_op), s_cast);
    if (is_cast < 0) return -1;
    PyObject *ins = SLOT(root, off_inputs), *dtype = SLOT(root, off_dtype);
    if (!is_cast || !PyTuple_CheckExact(ins) || PyTuple_GET_SIZE(ins) != 1 ||
        !PyArray_DescrCheck(dtype) || ((PyArray_Descr *)dtype)->type_num != NPY_FLOAT32)
        return 0;
    PyObject *x = PyTuple_GET_ITEM(ins, 0);
    PyObject *v = Py_TYPE(x) == node_type ? SLOT(x, off_value) : NULL;
    if (v == NULL || !PyArray_CheckExact(v)) return 0;
    PyArrayObject *a = (PyArrayObject *)v;
    if (PyArray_TYPE(a) != NPY_FLOAT64 || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) ||
        PyArray_ISBYTESWAPPED(a) || PyArray_SIZE(a) > cast_inline_max)
        return 0;
    const int exact = SLOT(root, off_exact) == Py_True;     /* the mode the cast was recorded in */
    Py_INCREF(dtype);                     /* PyArray_Empty steals it */
    PyObject *out = PyArray_Empty(PyArray_NDIM(a), PyArray_DIMS(a), (PyArray_Descr *)dtype, 0);
    if (out == NULL) return -1;
    const double *src = (const double *)PyArray_DATA(a);
    float *dst = (float *)PyArray_DATA((PyArrayObject *)out);
    const npy_intp n = PyArray_SIZE(a);
    /* rounded in the library's floating-point state, as the kernel would, not the caller's */
    const uint64_t fp_saved = lt_fp_enter_state();
    for (npy_intp i = 0; i < n; i++) {
        const float f = (float)src[i];
        dst[i] = exact && f != f ? __builtin_nanf("") : f;
    }
    lt_fp_leave_state(fp_saved);
    const int failed = set_value(root, out) || count(counters, s_evaluations, 1);
    Py_DECREF(out);
    return failed ? -1 : 1;
}

/* ---- the quick table's identity memo ----------------------------------------------------
 * A small expression evaluated again and again builds the same key each time, of the same
 * objects (interned op names, the attrs and dtype objects, a leaf's cached layout tuple,
 * small ints): the lookup's cost is hashing that key (tuples keep no hash) and comparing it.
 * The memo keeps, per slot, the items of a key met before (held, so that no other object
 * can take their addresses) and the table's value for it; a key whose items are those same
 * objects, with the table unchanged since (its version tag), is equal to it and so has that
 * value.  Only a shortcut: a miss looks the table up as before. */
#if PY_VERSION_HEX < 0x030C0000       /* ma_version_tag: deprecated in 3.12 */
#define KEY_MEMO_SLOTS 16
#define KEY_MEMO_ITEMS 48
typedef struct {
    Py_ssize_t n;
    PyObject *items[KEY_MEMO_ITEMS];
    PyObject *value;
    uint64_t version;
} key_memo_t;
static key_memo_t key_memo[KEY_MEMO_SLOTS];

static key_memo_t *key_memo_slot(PyObject *key)
{
    const Py_ssize_t n = PyList_GET_SIZE(key);
    if (n > KEY_MEMO_ITEMS) return NULL;
    uintptr_t h = (uintptr_t)n;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ ((uintptr_t)PyList_GET_ITEM(key, i) >> 4)) * 0x9E3779B97F4A7C15u;
    return &key_memo[(h >> 32) % KEY_MEMO_SLOTS];
}

/* The table's value for the key (a list), borrowed, or NULL with no error on a miss */
static PyObject *key_memo_get(key_memo_t *m, PyObject *key)
{
    const Py_ssize_t n = PyList_GET_SIZE(key);
    if (m == NULL || m->value == NULL || m->n != n ||
        m->version != ((PyDictObject *)quick_table)->ma_version_tag)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (m->items[i] != PyList_GET_ITEM(key, i)) return NULL;
    return m->value;
}

static void key_memo_put(key_memo_t *m, PyObject *key, PyObject *value)
{
    if (m == NULL) return;
    for (Py_ssize_t i = 0; i < m->n; i++) Py_CLEAR(m->items[i]);
    Py_CLEAR(m->value);
    m->n = PyList_GET_SIZE(key);
    for (Py_ssize_t i = 0; i < m->n; i++) m->items[i] = Py_NewRef(PyList_GET_ITEM(key, i));
    m->value = Py_NewRef(value);
    m->version = ((PyDictObject *)quick_table)->ma_version_tag;
}

static void key_memo_clear(void)
{
    for (int s = 0; s < KEY_MEMO_SLOTS; s++) {
        for (Py_ssize_t i = 0; i < key_memo[s].n; i++) Py_CLEAR(key_memo[s].items[i]);
        key_memo[s].n = 0;
        Py_CLEAR(key_memo[s].value);
    }
}
#else
typedef int key_memo_t;
static void key_memo_clear(void) {}
static key_memo_t *key_memo_slot(PyObject *key) { (void)key; return NULL; }
static PyObject *key_memo_get(key_memo_t *m, PyObject *key) { (void)m; (void)key; return NULL; }
static void key_memo_put(key_memo_t *m, PyObject *key, PyObject *value) { (void)m; (void)key; (void)value; }
#endif

/* clear_memos(): let go of what the memo holds (lt.empty_cache: its values are kernels and
 * plans of the quick table being emptied). */
static PyObject *clear_memos(PyObject *self, PyObject *unused)
{
    key_memo_clear();
    Py_RETURN_NONE;
}

/* quick_table[key] for a key built as a list: borrowed, NULL on a miss (with an error set
 * only on failure).  `memo`: through the memo (a key of kept objects, as quick_eval's; a
 * plan's key holds tuples made afresh each call, which the memo could never match) */
static PyObject *quick_lookup(PyObject *key, int memo)
{
    key_memo_t *m = memo ? key_memo_slot(key) : NULL;
    PyObject *value = key_memo_get(m, key);
    if (value != NULL) return value;
    PyObject *key_tuple = PyList_AsTuple(key);
    if (key_tuple == NULL) return NULL;
    value = PyDict_GetItemWithError(quick_table, key_tuple);
    Py_DECREF(key_tuple);
    if (value != NULL) key_memo_put(m, key, value);
    return value;
}

static PyObject *quick_eval(PyObject *self, PyObject *root)
{
    if (node_type == NULL || Py_TYPE(root) != node_type) Py_RETURN_FALSE;
    if (SLOT(root, off_value) != Py_None) Py_RETURN_TRUE;
    PyObject *op = SLOT(root, off_op);
    if (op == NULL) Py_RETURN_FALSE;
    const int reduction = is_op(op, s_reduce);
    if (reduction < 0) return NULL;
    PyObject *top = root;
    if (reduction) {
        PyObject *ins = SLOT(root, off_inputs);
        if (ins == NULL || !PyTuple_CheckExact(ins) || PyTuple_GET_SIZE(ins) != 1) Py_RETURN_FALSE;
        top = PyTuple_GET_ITEM(ins, 0);
        if (Py_TYPE(top) != node_type) Py_RETURN_FALSE;
    }

    PyObject *inputs[MAX_NODES];
    int n_inputs, walked;
    PyObject *key = key_list(KEY_ROOM);
    if (key == NULL) return NULL;
    if (SLOT(top, off_value) != Py_None) {     /* a reduction of a value: one input */
        PyObject *layout = layout_made(top);
        if (layout == NULL)
            walked = PyErr_Occurred() ? -1 : 0;
        else
            walked = PyList_Append(key, SLOT(top, off_shape)) ||
                     PyList_Append(key, layout) ? -1 : 1;
        Py_XDECREF(layout);
        inputs[0] = top;
        n_inputs = 1;
    } else {
        walked = walk(top, key, inputs, &n_inputs);
        PyObject *below = walked == 0 && !reduction ? reduction_below(root) : NULL;
        if (below != NULL) {
            /* as evaluate_one does: compute the reduction first, then this is one group */
            PyObject *done = quick_eval(self, below);
            if (done != Py_True) {
                Py_DECREF(key);
                return done;              /* False (Python's path), or NULL */
            }
            Py_DECREF(done);
            const int cast = cast_of_value(root);
            if (cast != 0) {
                Py_DECREF(key);
                if (cast < 0) return NULL;
                Py_RETURN_TRUE;
            }
            if (PyList_SetSlice(key, 0, PyList_GET_SIZE(key), NULL)) {
                Py_DECREF(key);
                return NULL;
            }
            walked = walk(top, key, inputs, &n_inputs);
        }
    }
    if (walked == 1 && reduction &&
        (PyList_Append(key, s_reduce) || PyList_Append(key, SLOT(root, off_attrs)) ||
         PyList_Append(key, SLOT(root, off_dtype))))
        walked = -1;
    if (walked <= 0) {
        Py_DECREF(key);
        if (walked < 0) return NULL;
        Py_RETURN_FALSE;
    }
    PyObject *ck = quick_lookup(key, 1);   /* borrowed */
    Py_DECREF(key);
    if (ck == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_FALSE;
    }
    settings_t settings = {0, 1, 0};
    if (read_settings(&settings)) return NULL;
    call_t c;
    int opened = call_open(&c, ck);
    if (opened <= 0) {
        if (opened < 0) return NULL;
        Py_RETURN_FALSE;
    }
    if (c.n_sinks != (reduction ? 1 : 0) || c.fills) {
        if (call_close(&c)) return NULL;
        Py_RETURN_FALSE;
    }
    int failed = run_call(&c, &settings, inputs, n_inputs, &root, reduction ? 0 : 1,
                          &root, reduction ? 1 : 0) != 0;
    failed |= call_close(&c) != 0;
    if (failed || count(cache_stats, s_hits, 1) || count(counters, s_evaluations, 1) ||
        count(counters, s_kernels, 1))
        return NULL;
    Py_RETURN_TRUE;
}

/* ---- Tensor's value: _value, numpy() and __array__() without Python frames -------------- */

static PyObject *plan_eval(PyObject *self, PyObject *roots);

static evallock_t *eval_lock;
static PyObject *tensor_globals, *py_value, *py_array, *py_evaluate_one, *s_value_reads, *s_quick_eval, *c_quick_eval;

/* Tensor._value (_tensor.py) in C: the node's value, evaluated under _eval.lock by the quick
 * path or else by Python's evaluate_one.  The Python method takes over during a trace
 * (_tensor.value_reads set) and when _tensor._quick_eval is not this module's (tests swap it
 * to compare the paths). */
static PyObject *tensor_value(PyObject *self, PyObject *unused)
{
    if (PyDict_GetItemWithError(tensor_globals, s_value_reads) != Py_None ||
        PyDict_GetItemWithError(tensor_globals, s_quick_eval) != c_quick_eval) {
        if (PyErr_Occurred()) return NULL;
        return PyObject_CallOneArg(py_value, self);
    }
    PyObject *node = SLOT(self, off_tensor_node);
    if (node == NULL || Py_TYPE(node) != node_type) return PyObject_CallOneArg(py_value, self);
    PyObject *had = SLOT(node, off_value);
    if (had != Py_None)                   /* (a byte-swapped value: Python converts it) */
        return PyArray_Check(had) && PyArray_ISBYTESWAPPED((PyArrayObject *)had)
               ? PyObject_CallOneArg(py_value, self) : Py_NewRef(had);
    Py_INCREF(node);                      /* the tensor may be given another node meanwhile */
    if (evallock_take(eval_lock, 1) < 0) {
        Py_DECREF(node);
        return NULL;
    }
    int failed = 0;
    if (SLOT(node, off_value) == Py_None) {
        PyObject *done = quick_eval(NULL, node);
        if (done == Py_False) {
            /* a kept plan of several kernels for this root (what evaluate([root]) runs first,
             * once evaluate_one has found no one-group path) */
            PyObject *roots = PyList_New(1);
            Py_DECREF(done);
            done = NULL;
            if (roots != NULL) {
                PyList_SET_ITEM(roots, 0, Py_NewRef(node));
                done = plan_eval(NULL, roots);
                Py_DECREF(roots);
            }
        }
        failed = done == NULL;
        if (done == Py_False) {
            PyObject *r = PyObject_CallFunctionObjArgs(py_evaluate_one, node, Py_False, NULL);
            failed = r == NULL;
            Py_XDECREF(r);
        }
        Py_XDECREF(done);
    }
    PyObject *err_type, *err_value, *err_tb;
    PyErr_Fetch(&err_type, &err_value, &err_tb);
    const int not_released = evallock_give(eval_lock);
    if (err_type != NULL) {
        PyErr_Restore(err_type, err_value, err_tb);   /* the first error is the one to see */
        failed = 1;
    } else if (not_released) {
        failed = 1;
    }
    PyObject *value = failed ? NULL : Py_NewRef(SLOT(node, off_value));
    Py_DECREF(node);
    return value;
}

/* Tensor.__array__(dtype=None, copy=None): the value itself when no dtype is asked for and
 * no copy is required (what np.asarray asks), else the Python method. */
static PyObject *tensor_array(PyObject *self, PyObject *const *args, size_t nargsf,
                              PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int plain = nargs == 0 || (nargs == 1 && args[0] == Py_None);
    for (Py_ssize_t i = 0; plain && i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i), *v = args[nargs + i];
        plain = PyUnicode_CompareWithASCIIString(name, "copy") == 0 ? (v == Py_None || v == Py_False)
              : PyUnicode_CompareWithASCIIString(name, "dtype") == 0 ? v == Py_None : 0;
    }
    if (!plain) {
        PyObject *stack[8];
        if (nargs + nkw + 1 > 8) {
            PyErr_SetString(PyExc_TypeError, "__array__: too many arguments");
            return NULL;
        }
        stack[0] = self;
        for (Py_ssize_t i = 0; i < nargs + nkw; i++) stack[i + 1] = args[i];
        return PyObject_Vectorcall(py_array, stack, (size_t)nargs + 1, kwnames);
    }
    return tensor_value(self, NULL);
}

static PyMethodDef tensor_methods[] = {
    {"_value", tensor_value, METH_NOARGS,
     "_value($self, /)\n--\n\nThe value (a read-only NumPy array), evaluated if needed."},
    {"numpy", tensor_value, METH_NOARGS,
     "numpy($self, /)\n--\n\nThe value as a read-only NumPy array (evaluates if needed).\n\n"
     "Use ``np.array(t)`` for a writable copy."},
    {"__array__", (PyCFunction)(void (*)(void))tensor_array, METH_FASTCALL | METH_KEYWORDS,
     "__array__($self, /, dtype=None, copy=None)\n--\n\n"
     "The value for NumPy (cast to dtype or copied when asked)."},
    {NULL, NULL, 0, NULL},
};

/* setup_value(tensor_module, python _value, python __array__, EvalLock, evaluate_one) -> dict of
 * method descriptors of Tensor (_value, numpy, __array__) for Python to install. */
static PyObject *setup_value(PyObject *self, PyObject *args)
{
    PyObject *lock, *module;
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!OOO!O", &PyModule_Type, &module, &py_value, &py_array,
                          &evallock_type, &lock, &py_evaluate_one))
        return NULL;
    tensor_globals = PyModule_GetDict(module);
    s_value_reads = PyUnicode_InternFromString("value_reads");
    s_quick_eval = PyUnicode_InternFromString("_quick_eval");
    c_quick_eval = s_quick_eval ? PyDict_GetItemWithError(tensor_globals, s_quick_eval) : NULL;
    eval_lock = (evallock_t *)lock;
    if (s_value_reads == NULL || c_quick_eval == NULL)
        return NULL;
    PyObject *keep[] = {tensor_globals, py_value, py_array, py_evaluate_one, c_quick_eval, lock};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) Py_INCREF(keep[i]);
    PyObject *out = PyDict_New();
    for (PyMethodDef *m = tensor_methods; out != NULL && m->ml_name != NULL; m++) {
        PyObject *d = PyDescr_NewMethod(tensor_type, m);
        if (d == NULL || PyDict_SetItemString(out, m->ml_name, d)) Py_CLEAR(out);
        Py_XDECREF(d);
    }
    return out;
}

/* ---- recording ------------------------------------------------------------------------ */

static PyObject *setup_recording(PyObject *self, PyObject *args)
{
    PyObject *type;
    if (node_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup() first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!O!O!OOO", &PyType_Type, &type, &PyDict_Type,
                          &fast_signatures, &PyDict_Type, &fast_constants, &py_binary,
                          &py_unary, &graph_module))
        return NULL;
    if (slot_offset(type, "_node", &off_tensor_node)) return NULL;
    tensor_type = (PyTypeObject *)type;
    PyObject *keep[] = {type, fast_signatures, fast_constants, py_binary, py_unary, graph_module};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) Py_INCREF(keep[i]);
    Py_RETURN_NONE;
}

/* A new tuple of f(item) for each item of tuple `t`; NULL when f returns NULL (f's error,
 * or none for plain()). */
static PyObject *map_tuple(PyObject *t, PyObject *(*f)(PyObject *))
{
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    PyObject *out = PyTuple_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = f(PyTuple_GET_ITEM(t, i));
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, item);
    }
    return out;
}

/* Node(op, inputs, attrs, dtype, shape, value, key, exact), made in place (Node.__init__'s
 * fields).  New reference. */
static PyObject *new_node(PyObject *op, PyObject *inputs, PyObject *attrs, PyObject *dtype,
                          PyObject *shape, PyObject *value, PyObject *key, PyObject *exact)
{
    PyObject *node = node_type->tp_alloc(node_type, 0);
    if (node == NULL) return NULL;
    SLOT(node, off_op) = Py_NewRef(op);
    SLOT(node, off_inputs) = Py_NewRef(inputs);
    SLOT(node, off_attrs) = Py_NewRef(attrs);
    SLOT(node, off_dtype) = Py_NewRef(dtype);
    SLOT(node, off_shape) = Py_NewRef(shape);
    SLOT(node, off_value) = Py_NewRef(value);
    SLOT(node, off_key) = Py_NewRef(key);
    SLOT(node, off_operand) = Py_NewRef(Py_None);
    SLOT(node, off_exact) = Py_NewRef(exact);
    return node;
}

/* ---- the hash-consing table of op nodes --------------------------------------------------
 * Op nodes are hash-consed in a table of this module (graph.py's _INTERN holds only the
 * constants): an open-addressing table (linear probing) of borrowed node pointers, hashed on
 * the node's own fields: op, the identity of each input, attrs, dtype, the mode (`exact`)
 * and the recording thread, whose id (recording_id) a node in the table keeps in its `key`
 * slot (an int; constants' keys are tuples).  No key tuple, no int per input, no weak
 * reference and no sweep of dead entries (a dict of those cost half the time of recording an
 * op): a node leaves the table when it gets its value (set_value, forget), when the collector
 * clears it and when it dies (Node's tp_clear and tp_dealloc are this module's, see
 * install_node_hooks). */
typedef struct {
    Py_hash_t hash;
    PyObject *node;            /* borrowed; NULL: never used; INTERN_GONE: removed */
} intern_entry;
#define INTERN_GONE ((PyObject *)1)
#define INTERN_MIN 1024
static intern_entry *intern_entries;
static size_t intern_mask, intern_used, intern_gone;
static unsigned long intern_version;        /* changes when the entries move (resize) */

static uintptr_t mix(uintptr_t h, uintptr_t v)
{
    return (h ^ v) * 0x9E3779B97F4A7C15u;
}

/* The hash of a node op(inputs; attrs) of dtype recorded by `thread` in mode `exact`
 * (Py_True or Py_False): equal fields (inputs by identity) give equal hashes.  0, or -1 on
 * error. */
static int node_hash(PyObject *op, PyObject *inputs, PyObject *attrs, PyObject *dtype,
                     PyObject *exact, PyObject *thread, Py_hash_t *out)
{
    const Py_hash_t h_op = PyObject_Hash(op), h_dtype = PyObject_Hash(dtype),
                    h_attrs = PyTuple_CheckExact(attrs) && PyTuple_GET_SIZE(attrs) == 0
                              ? 0 : PyObject_Hash(attrs),
                    h_thread = PyObject_Hash(thread);
    if (h_op == -1 || h_dtype == -1 || h_attrs == -1 || h_thread == -1 ||
        !PyTuple_CheckExact(inputs))
        return -1;
    uintptr_t h = (uintptr_t)h_op;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); i++)
        h = mix(h, (uintptr_t)PyTuple_GET_ITEM(inputs, i) >> 4);
    h = mix(mix(mix(h, (uintptr_t)h_attrs), (uintptr_t)h_dtype), (uintptr_t)h_thread);
    h = mix(h, exact == Py_True);
    *out = (Py_hash_t)(h ^ (h >> 29));
    return 0;
}

/* Whether `node` is op(inputs; attrs) of dtype recorded by `thread` in mode `exact`: 1, 0,
 * or -1 on error.  Equality as a key tuple's: inputs and the mode by identity, the rest by
 * == after identity. */
static int node_matches(PyObject *node, PyObject *op, PyObject *inputs, PyObject *attrs,
                        PyObject *dtype, PyObject *exact, PyObject *thread)
{
    PyObject *ins = SLOT(node, off_inputs);
    const Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    if (ins == NULL || !PyTuple_CheckExact(ins) || PyTuple_GET_SIZE(ins) != n ||
        SLOT(node, off_exact) != exact)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyTuple_GET_ITEM(ins, i) != PyTuple_GET_ITEM(inputs, i)) return 0;
    PyObject *const pairs[4][2] = {{SLOT(node, off_op), op}, {SLOT(node, off_dtype), dtype},
                                   {SLOT(node, off_key), thread}, {SLOT(node, off_attrs), attrs}};
    for (int k = 0; k < 4; k++) {
        if (pairs[k][0] == pairs[k][1]) continue;
        if (pairs[k][0] == NULL) return 0;
        const int eq = PyObject_RichCompareBool(pairs[k][0], pairs[k][1], Py_EQ);
        if (eq != 1) return eq;
    }
    return 1;
}

/* The node in the table equal to op(inputs; attrs) of dtype by `thread`, a new reference, or
 * NULL (an error set, or none: a miss). */
static PyObject *intern_find(Py_hash_t hash, PyObject *op, PyObject *inputs, PyObject *attrs,
                             PyObject *dtype, PyObject *exact, PyObject *thread)
{
restart:
    if (intern_entries == NULL) return NULL;
    const unsigned long version = intern_version;
    for (size_t i = (size_t)hash & intern_mask;; i = (i + 1) & intern_mask) {
        PyObject *node = intern_entries[i].node;
        if (node == NULL) return NULL;
        if (node == INTERN_GONE || intern_entries[i].hash != hash) continue;
        Py_INCREF(node);        /* a comparison may run Python code, which may drop it */
        const int same = node_matches(node, op, inputs, attrs, dtype, exact, thread);
        if (same == 1) return node;
        Py_DECREF(node);
        if (same < 0) return NULL;
        if (version != intern_version) goto restart;     /* that code resized the table */
    }
}

/* Rehash the live entries into a table of `capacity` (a power of 2).  0, or -1 (no memory). */
static int intern_resize(size_t capacity)
{
    intern_entry *entries = PyMem_Calloc(capacity, sizeof *entries);
    if (entries == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; intern_entries != NULL && i <= intern_mask; i++) {
        PyObject *node = intern_entries[i].node;
        if (node == NULL || node == INTERN_GONE) continue;
        size_t j = (size_t)intern_entries[i].hash & (capacity - 1);
        while (entries[j].node != NULL) j = (j + 1) & (capacity - 1);
        entries[j] = intern_entries[i];
    }
    PyMem_Free(intern_entries);
    intern_entries = entries;
    intern_mask = capacity - 1;
    intern_gone = 0;
    intern_version++;
    return 0;
}

/* Put a node (not in the table) under its hash.  0, or -1 on error.  The table is at most
 * half full, removed entries included: past that it is rebuilt at four times its live
 * entries (which also shrinks it after many deaths). */
static int intern_add(PyObject *node, Py_hash_t hash)
{
    if (intern_entries == NULL || (intern_used + intern_gone + 1) * 2 > intern_mask + 1) {
        size_t capacity = INTERN_MIN;
        while (capacity < 4 * (intern_used + 1)) capacity *= 2;
        if (intern_resize(capacity)) return -1;
    }
    size_t i = (size_t)hash & intern_mask;
    while (intern_entries[i].node != NULL && intern_entries[i].node != INTERN_GONE)
        i = (i + 1) & intern_mask;
    if (intern_entries[i].node == INTERN_GONE) intern_gone--;
    intern_entries[i].hash = hash;
    intern_entries[i].node = node;
    intern_used++;
    return 0;
}

/* Take `node` out of the table if it is there (its `key` slot an int), from set_value, a
 * collector's clear or its death.  Never fails and leaves any pending error as it was. */
static void intern_forget(PyObject *node)
{
    PyObject *thread = SLOT(node, off_key);
    if (thread == NULL || !PyLong_CheckExact(thread) || intern_entries == NULL) return;
    PyObject *err_type, *err_value, *err_tb;
    PyErr_Fetch(&err_type, &err_value, &err_tb);
    Py_hash_t hash;
    size_t at = intern_mask + 1;           /* not found */
    if (SLOT(node, off_op) != NULL && SLOT(node, off_inputs) != NULL &&
        SLOT(node, off_attrs) != NULL && SLOT(node, off_dtype) != NULL &&
        node_hash(SLOT(node, off_op), SLOT(node, off_inputs), SLOT(node, off_attrs),
                  SLOT(node, off_dtype), SLOT(node, off_exact), thread, &hash) == 0) {
        for (size_t i = (size_t)hash & intern_mask; intern_entries[i].node != NULL;
             i = (i + 1) & intern_mask)
            if (intern_entries[i].node == node) {
                at = i;
                break;
            }
    }
    /* not under its hash (a field changed, or its hash failed): a pointer left behind
     * would be read after the node is freed, so look everywhere */
    for (size_t i = 0; at > intern_mask && i <= intern_mask; i++)
        if (intern_entries[i].node == node) at = i;
    if (at <= intern_mask) {
        intern_entries[at].node = INTERN_GONE;
        intern_used--;
        intern_gone++;
    }
    PyErr_Restore(err_type, err_value, err_tb);
}

/* A node that gets its value leaves the table, its key set to None (set_value, forget) */
static void leave_table(PyObject *node)
{
    intern_forget(node);
    Py_XSETREF(SLOT(node, off_key), Py_NewRef(Py_None));
}

/* forget(node): Node.set_value's removal from this table (Python's set_value). */
static PyObject *forget(PyObject *self, PyObject *node)
{
    if (node_type == NULL || Py_TYPE(node) != node_type) {
        PyErr_SetString(PyExc_TypeError, "forget: a Node (after setup)");
        return NULL;
    }
    leave_table(node);
    Py_RETURN_NONE;
}

/* intern_size() -> the number of nodes in the table (for the tests) */
static PyObject *intern_size(PyObject *self, PyObject *unused)
{
    return PyLong_FromSize_t(intern_used);
}

/* Node's slots but __weakref__, in Node.__slots__ order: what node_clear empties */
static Py_ssize_t *const node_slots[] = {&off_op, &off_inputs, &off_attrs, &off_dtype,
                                          &off_shape, &off_value, &off_key, &off_operand,
                                          &off_layout, &off_address, &off_exact};
#define N_NODE_SLOTS (sizeof node_slots / sizeof node_slots[0])

/* Node's tp_clear (the collector breaking a cycle): out of the table, then its slots
 * emptied, as subtype_clear does. */
static int node_clear(PyObject *self)
{
    intern_forget(self);
    for (size_t k = 0; k < N_NODE_SLOTS; k++) Py_CLEAR(SLOT(self, *node_slots[k]));
    return 0;
}

/* Node's tp_dealloc: out of the table, then what subtype_dealloc does for a class with
 * __slots__ and __weakref__ and no finalizer, with its trashcan (a long chain of nodes dies
 * one level at a time, not by deep recursion). */
static void node_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_TRASHCAN_BEGIN(self, node_dealloc)
    intern_forget(self);
    PyObject_ClearWeakRefs(self);
    for (size_t k = 0; k < N_NODE_SLOTS; k++) Py_CLEAR(SLOT(self, *node_slots[k]));
    type->tp_free(self);
    Py_DECREF(type);             /* an instance of a heap type holds a reference to it */
    Py_TRASHCAN_END
}

/* Node's tp_clear and tp_dealloc replaced by the two above, which take a node out of the
 * table before it goes.  Only for the layout they know: Node itself (no subclass, none
 * allowed from now on), its slots those of node_slots and __weakref__ (an offset in the
 * object, or from 3.12 managed by the interpreter), no __dict__, no finalizer.  1 when
 * installed; 0 for another layout (setup() then refuses: no op node can be recorded);
 * -1 on error. */
static int node_hooks;

static int install_node_hooks(PyTypeObject *type)
{
    PyObject *subclasses = PyObject_CallMethod((PyObject *)type, "__subclasses__", NULL);
    if (subclasses == NULL) return -1;
    const Py_ssize_t n_sub = PyList_Check(subclasses) ? PyList_GET_SIZE(subclasses) : -1;
    Py_DECREF(subclasses);
    const Py_ssize_t slots =
        (Py_ssize_t)(sizeof(PyObject) + N_NODE_SLOTS * sizeof(PyObject *));
    int weakref_known = type->tp_weaklistoffset == slots &&
                        type->tp_basicsize == slots + (Py_ssize_t)sizeof(PyObject *);
#ifdef Py_TPFLAGS_MANAGED_WEAKREF
    weakref_known |= (type->tp_flags & Py_TPFLAGS_MANAGED_WEAKREF) && type->tp_basicsize == slots;
#endif
    if (n_sub != 0 || !weakref_known || type->tp_dictoffset != 0 || type->tp_finalize != NULL ||
        type->tp_del != NULL || type->tp_base != &PyBaseObject_Type ||
        !(type->tp_flags & Py_TPFLAGS_HEAPTYPE) || !(type->tp_flags & Py_TPFLAGS_HAVE_GC))
        return 0;
    type->tp_clear = node_clear;
    type->tp_dealloc = node_dealloc;
    type->tp_flags &= ~Py_TPFLAGS_BASETYPE;
    PyType_Modified(type);
    node_hooks = 1;
    return 1;
}

/* node_hooks() -> whether op nodes are hash-consed in this module's table (for the tests) */
static PyObject *node_hooks_installed(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(node_hooks);
}

/* graph.op_node(op, inputs, attrs, dtype, shape): the pending node of that op recorded by
 * this thread in this context's mode, or a new one put in the table.  New reference. */
static PyObject *op_node(PyObject *op, PyObject *inputs, PyObject *attrs, PyObject *dtype,
                         PyObject *shape)
{
    if (!node_hooks) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: setup() first");
        return NULL;
    }
    PyObject *thread = recording_id(), *exact = thread ? mode_exact() : NULL;
    Py_hash_t hash;
    if (exact == NULL || node_hash(op, inputs, attrs, dtype, exact, thread, &hash)) return NULL;
    PyObject *node = intern_find(hash, op, inputs, attrs, dtype, exact, thread);
    if (node != NULL || PyErr_Occurred()) return node;
    node = new_node(op, inputs, attrs, dtype, shape, Py_None, thread, exact);
    if (node != NULL && intern_add(node, hash)) Py_CLEAR(node);   /* its death forgets nothing */
    return node;
}

/* op_node(op, inputs, attrs, dtype, shape): graph.op_node; inputs and attrs given as other
 * sequences are made tuples. */
static PyObject *op_node_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "op_node(op, inputs, attrs, dtype, shape)");
        return NULL;
    }
    PyObject *inputs = PySequence_Tuple(args[1]), *attrs = inputs ? PySequence_Tuple(args[2]) : NULL;
    PyObject *node = attrs ? op_node(args[0], inputs, attrs, args[3], args[4]) : NULL;
    Py_XDECREF(inputs);
    Py_XDECREF(attrs);
    return node;
}

static PyObject *new_tensor(PyObject *node)      /* steals `node` */
{
    if (node == NULL) return NULL;
    PyObject *t = tensor_type->tp_alloc(tensor_type, 0);
    if (t == NULL) {
        Py_DECREF(node);
        return NULL;
    }
    SLOT(t, off_tensor_node) = node;
    return t;
}

/* The operand node of a Tensor's node already of `dtype`, or of a nonzero Python scalar
 * whose constant node is cached; NULL (no error) when Python must make it. Borrowed. */
static PyObject *operand(PyObject *node, PyObject *scalar, PyObject *dtype)
{
    if (node != NULL) return SLOT(node, off_dtype) == dtype ? node : NULL;
    int truth = PyObject_IsTrue(scalar);
    if (truth <= 0) {                     /* zero: 0.0 and -0.0 are one dict key */
        if (truth < 0) PyErr_Clear();
        return NULL;
    }
    PyObject *key = PyTuple_Pack(3, (PyObject *)Py_TYPE(scalar), scalar, dtype);
    if (key == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *c = PyDict_GetItemWithError(fast_constants, key);
    Py_DECREF(key);
    if (c == NULL) PyErr_Clear();
    return c;
}

static int is_scalar(PyObject *x)
{
    return PyFloat_CheckExact(x) || PyLong_CheckExact(x);
}

/* The signature (computation dtype, result dtype) of op `name` on operands of dtype or
 * scalar type `a` and `b` (NULL for a unary op), as fast_signatures holds it under the key
 * (name, a[, b]); 0 (no error) if it has none yet.  A small memo in front of the dict keeps
 * the items of keys met before (held, so no other object can take their addresses) with
 * their signature: making, hashing and comparing the key tuple was about a fifth of
 * recording an op.  A signature depends only on its key (the op table's promotion rules),
 * so the memo stays right when the dict is cleared.  Borrowed items, good until the next
 * call. */
#define SIG_MEMO_SLOTS 64
static struct { PyObject *name, *a, *b, *dtype, *out_dtype; } sig_memo[SIG_MEMO_SLOTS];

static int signature(PyObject *name, PyObject *a, PyObject *b, PyObject **dtype,
                     PyObject **out_dtype)
{
    const uintptr_t h = (((uintptr_t)name >> 4) * 31 + ((uintptr_t)a >> 4)) * 31 + ((uintptr_t)b >> 4);
    const int slot = (int)((h * 0x9E3779B97F4A7C15u) >> 58);       /* 6 bits: 64 slots */
    if (sig_memo[slot].name == name && sig_memo[slot].a == a && sig_memo[slot].b == b) {
        *dtype = sig_memo[slot].dtype;
        *out_dtype = sig_memo[slot].out_dtype;
        return 1;
    }
    PyObject *key = b ? PyTuple_Pack(3, name, a, b) : PyTuple_Pack(2, name, a);
    PyObject *sig = key ? PyDict_GetItemWithError(fast_signatures, key) : NULL;
    Py_XDECREF(key);
    if (sig == NULL || !PyTuple_CheckExact(sig) || PyTuple_GET_SIZE(sig) != 2) {
        PyErr_Clear();
        return 0;
    }
    PyObject *old[5] = {sig_memo[slot].name, sig_memo[slot].a, sig_memo[slot].b,
                        sig_memo[slot].dtype, sig_memo[slot].out_dtype};
    sig_memo[slot].name = Py_NewRef(name);
    sig_memo[slot].a = Py_NewRef(a);
    sig_memo[slot].b = Py_XNewRef(b);
    *dtype = sig_memo[slot].dtype = Py_NewRef(PyTuple_GET_ITEM(sig, 0));
    *out_dtype = sig_memo[slot].out_dtype = Py_NewRef(PyTuple_GET_ITEM(sig, 1));
    for (int i = 0; i < 5; i++) Py_XDECREF(old[i]);
    return 1;
}

/* The most elements of a broadcast shape made here: 2**63 - 1 bytes over the widest
 * itemsize (complex128).  A larger one goes to Python, which checks its bytes for the
 * result's dtype and names the op and the shape (_elementwise.LEAN_MAX_ELEMENTS). */
#define LEAN_MAX_ELEMENTS (INT64_MAX / 16)

/* The shape two shapes broadcast to (_elementwise.broadcast_shapes_cached for a pair), made
 * of the operands' own int objects; NULL (no error) when they do not broadcast, are not
 * tuples of ints or make a shape of more than LEAN_MAX_ELEMENTS elements: Python's path
 * then decides.  New reference. */
static PyObject *broadcast_pair(PyObject *sa, PyObject *sb)
{
    long long elements = 1;                          /* of the nonzero dimensions */
    if (!PyTuple_CheckExact(sa) || !PyTuple_CheckExact(sb)) return NULL;
    Py_ssize_t na = PyTuple_GET_SIZE(sa), nb = PyTuple_GET_SIZE(sb), n = na > nb ? na : nb;
    PyObject *out = PyTuple_New(n);
    if (out == NULL) {
        PyErr_Clear();
        return NULL;
    }
    for (Py_ssize_t d = 1; d <= n; d++) {            /* from the last dimension */
        PyObject *x = d <= na ? PyTuple_GET_ITEM(sa, na - d) : NULL;
        PyObject *y = d <= nb ? PyTuple_GET_ITEM(sb, nb - d) : NULL;
        if ((x && !PyLong_CheckExact(x)) || (y && !PyLong_CheckExact(y))) goto fail;
        long long mx = x ? PyLong_AsLongLong(x) : 1, my = y ? PyLong_AsLongLong(y) : 1;
        if (PyErr_Occurred()) goto fail;
        PyObject *pick;
        if (mx == 1) pick = y ? y : x;
        else if (my == 1 || my == mx) pick = x;
        else goto fail;
        const long long m = mx == 1 ? my : mx;
        if (m > 0 && elements > LEAN_MAX_ELEMENTS / m) goto fail;
        if (m > 0) elements *= m;
        PyTuple_SET_ITEM(out, n - d, Py_NewRef(pick));
    }
    return out;
fail:
    PyErr_Clear();
    Py_DECREF(out);
    return NULL;
}

/* Whether two shape tuples are equal (an error counts as not). */
static int same_shape(PyObject *a, PyObject *b)
{
    if (a == b) return 1;
    int same = PyObject_RichCompareBool(a, b, Py_EQ);
    if (same < 0) PyErr_Clear();
    return same == 1;
}

/* binary(name, a, b): _elementwise.binary. */
static PyObject *binary(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *made_shape = NULL;       /* a broadcast shape made here */
    if (nargs != 3 || tensor_type == NULL) goto python;
    PyObject *name = args[0], *a = args[1], *b = args[2];
    PyObject *na = NULL, *nb = NULL, *shape, *ka, *kb;     /* (name, ka, kb): the signature's key */
    if (Py_TYPE(a) == tensor_type) {
        na = SLOT(a, off_tensor_node);
        shape = SLOT(na, off_shape);
        if (Py_TYPE(b) == tensor_type) {
            nb = SLOT(b, off_tensor_node);
            PyObject *other = SLOT(nb, off_shape);
            if (!same_shape(other, shape)) {
                /* broadcasting: the result's shape, kept alive by the new node */
                shape = broadcast_pair(shape, other);
                if (shape == NULL) goto python;      /* Python raises the error */
                made_shape = shape;
            }
            ka = SLOT(na, off_dtype);
            kb = SLOT(nb, off_dtype);
        } else if (is_scalar(b)) {
            ka = SLOT(na, off_dtype);
            kb = (PyObject *)Py_TYPE(b);
        } else {
            goto python;
        }
    } else if (Py_TYPE(b) == tensor_type && is_scalar(a)) {
        nb = SLOT(b, off_tensor_node);
        shape = SLOT(nb, off_shape);
        ka = (PyObject *)Py_TYPE(a);
        kb = SLOT(nb, off_dtype);
    } else {
        goto python;
    }
    PyObject *dtype, *out_dtype;
    if (!signature(name, ka, kb, &dtype, &out_dtype)) goto python;
    PyObject *oa = operand(na, a, dtype), *ob = operand(nb, b, dtype);
    if (oa == NULL || ob == NULL) goto python;
    PyObject *inputs = PyTuple_Pack(2, oa, ob);
    if (inputs == NULL) {
        Py_XDECREF(made_shape);
        return NULL;
    }
    PyObject *node = op_node(name, inputs, empty_tuple, out_dtype, shape);
    Py_DECREF(inputs);
    Py_XDECREF(made_shape);
    return new_tensor(node);
python:
    Py_XDECREF(made_shape);
    return PyObject_Vectorcall(py_binary, args, nargs, NULL);
}

/* ---- Tensor's arithmetic and comparison operators in C ----------------------------------
 * t + u, 2 * t, t < u...: the Python dunder (_elementwise._install_operators' forward and
 * reflected) is a frame around binary(); these method descriptors call binary() directly
 * when the other operand is a Tensor, an int or a float (exactly those types, as the Python
 * test does), and the Python dunder otherwise. */
#define LT_DUNDERS(X)                                                                       \
    X(0, "__add__", "add", 0) X(1, "__radd__", "add", 1)                                    \
    X(2, "__sub__", "subtract", 0) X(3, "__rsub__", "subtract", 1)                          \
    X(4, "__mul__", "multiply", 0) X(5, "__rmul__", "multiply", 1)                          \
    X(6, "__truediv__", "divide", 0) X(7, "__rtruediv__", "divide", 1)                      \
    X(8, "__lt__", "less", 0) X(9, "__le__", "less_equal", 0)                               \
    X(10, "__gt__", "greater", 0) X(11, "__ge__", "greater_equal", 0)                       \
    X(12, "__eq__", "equal", 0) X(13, "__ne__", "not_equal", 0)
#define LT_N_DUNDERS 14

static PyObject *dunder_op[LT_N_DUNDERS], *dunder_python[LT_N_DUNDERS];
static const int dunder_reflected[LT_N_DUNDERS] = {
#define LT_DUNDER_REFLECTED(k, dunder, op, reflected) reflected,
    LT_DUNDERS(LT_DUNDER_REFLECTED)
};

static PyObject *binary(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *dunder_call(int k, PyObject *self, PyObject *other)
{
    if (Py_TYPE(other) != tensor_type && !PyLong_CheckExact(other) && !PyFloat_CheckExact(other))
        return PyObject_CallFunctionObjArgs(dunder_python[k], self, other, NULL);
    PyObject *args[3] = {dunder_op[k], dunder_reflected[k] ? other : self,
                         dunder_reflected[k] ? self : other};
    return binary(NULL, args, 3);
}

#define LT_DUNDER_FN(k, dunder, op, reflected) \
    static PyObject *dunder_##k(PyObject *self, PyObject *other) { return dunder_call(k, self, other); }
LT_DUNDERS(LT_DUNDER_FN)

/* -t and abs(t): unary() straight from the slot (the Python methods were a lambda each) */
static PyObject *unary(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *dunder_neg(PyObject *self, PyObject *unused)
{
    PyObject *args[2] = {s_negative, self};
    return unary(NULL, args, 2);
}

static PyObject *dunder_abs(PyObject *self, PyObject *unused)
{
    PyObject *args[2] = {s_abs, self};
    return unary(NULL, args, 2);
}

static PyMethodDef dunder_methods[] = {
#define LT_DUNDER_DEF(k, dunder, op, reflected) {dunder, dunder_##k, METH_O, NULL},
    LT_DUNDERS(LT_DUNDER_DEF)
    {NULL, NULL, 0, NULL},
};
static PyMethodDef unary_dunder_methods[] = {
    {"__neg__", dunder_neg, METH_NOARGS, NULL},
    {"__abs__", dunder_abs, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* setup_operators({dunder name: Python method}) -> {dunder name: method descriptor of Tensor}
 * for the binary operators above (each falling back to its Python method), and __neg__ and
 * __abs__ (unary() hands anything but its lean case to Python's unary). */
static PyObject *setup_operators(PyObject *self, PyObject *python)
{
    static const char *ops[LT_N_DUNDERS] = {
#define LT_DUNDER_OP(k, dunder, op, reflected) op,
        LT_DUNDERS(LT_DUNDER_OP)
    };
    if (tensor_type == NULL || !PyDict_Check(python)) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first, then a dict");
        return NULL;
    }
    PyObject *out = PyDict_New();
    for (int k = 0; out != NULL && k < LT_N_DUNDERS; k++) {
        PyObject *fallback = PyDict_GetItemString(python, dunder_methods[k].ml_name);
        PyObject *d = fallback ? PyDescr_NewMethod(tensor_type, &dunder_methods[k]) : NULL;
        if (fallback == NULL && !PyErr_Occurred())
            PyErr_Format(PyExc_KeyError, "no Python method %s", dunder_methods[k].ml_name);
        if (d == NULL || PyDict_SetItemString(out, dunder_methods[k].ml_name, d)) {
            Py_XDECREF(d);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(d);
        Py_XSETREF(dunder_python[k], Py_NewRef(fallback));
        Py_XSETREF(dunder_op[k], PyUnicode_InternFromString(ops[k]));
        if (dunder_op[k] == NULL) Py_CLEAR(out);
    }
    for (PyMethodDef *m = unary_dunder_methods; out != NULL && m->ml_name != NULL; m++) {
        PyObject *d = PyDescr_NewMethod(tensor_type, m);
        if (d == NULL || PyDict_SetItemString(out, m->ml_name, d)) Py_CLEAR(out);
        Py_XDECREF(d);
    }
    return out;
}

/* unary(name, x): _elementwise.unary. */
static PyObject *unary(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || tensor_type == NULL || Py_TYPE(args[1]) != tensor_type) goto python;
    PyObject *name = args[0], *node = SLOT(args[1], off_tensor_node);
    PyObject *dtype, *out_dtype;
    if (!signature(name, SLOT(node, off_dtype), NULL, &dtype, &out_dtype) ||
        SLOT(node, off_dtype) != dtype)
        goto python;
    PyObject *inputs = PyTuple_Pack(1, node);
    if (inputs == NULL) return NULL;
    PyObject *made = op_node(name, inputs, empty_tuple, out_dtype, SLOT(node, off_shape));
    Py_DECREF(inputs);
    return new_tensor(made);
python:
    return PyObject_Vectorcall(py_unary, args, nargs, NULL);
}

/* where(condition, x1, x2): _elementwise.where, in C for three Tensors of one shape, a bool
 * condition (the dtype object setup_where was given) and x1, x2 of one real dtype (the same
 * object); Python's where for anything else (it broadcasts, promotes and raises). */
static PyObject *py_where, *where_bool_dtype, *s_where;

static PyObject *setup_where(PyObject *self, PyObject *args)
{
    PyObject *fallback, *bool_dtype;
    if (!PyArg_ParseTuple(args, "OO", &fallback, &bool_dtype)) return NULL;
    if (tensor_type == NULL || !PyCallable_Check(fallback) || !PyArray_DescrCheck(bool_dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first, then (where, bool dtype)");
        return NULL;
    }
    if (s_where == NULL && (s_where = PyUnicode_InternFromString("where")) == NULL) return NULL;
    Py_XSETREF(py_where, Py_NewRef(fallback));
    Py_XSETREF(where_bool_dtype, Py_NewRef(bool_dtype));
    Py_RETURN_NONE;
}

static PyObject *where(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (py_where == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "where: setup_where() first");
        return NULL;
    }
    if (nargs == 3 && Py_TYPE(args[0]) == tensor_type && Py_TYPE(args[1]) == tensor_type &&
        Py_TYPE(args[2]) == tensor_type) {
        PyObject *nc = SLOT(args[0], off_tensor_node), *n1 = SLOT(args[1], off_tensor_node),
                 *n2 = SLOT(args[2], off_tensor_node);
        PyObject *dtype = SLOT(n1, off_dtype), *shape = SLOT(n1, off_shape);
        if (SLOT(nc, off_dtype) == where_bool_dtype && SLOT(n2, off_dtype) == dtype &&
            PyArray_DescrCheck(dtype) && ((PyArray_Descr *)dtype)->kind != 'c' &&
            same_shape(SLOT(nc, off_shape), shape) && same_shape(SLOT(n2, off_shape), shape)) {
            PyObject *inputs = PyTuple_Pack(3, nc, n1, n2);
            if (inputs == NULL) return NULL;
            PyObject *node = op_node(s_where, inputs, empty_tuple, dtype, shape);
            Py_DECREF(inputs);
            return new_tensor(node);
        }
    }
    return PyObject_Vectorcall(py_where, args, nargs, NULL);
}

/* replay(steps, source): _replay._replay, returning the Tensor.  A step is (op, attrs, dtype,
 * shape, operands); an operand is -1 (the source node), the index of an earlier step, or a
 * constant node. */
static PyObject *replay(PyObject *self, PyObject *args)
{
    PyObject *steps, *source;
    if (!PyArg_ParseTuple(args, "O!O", &PyTuple_Type, &steps, &source)) return NULL;
    if (tensor_type == NULL || Py_TYPE(source) != node_type) {
        PyErr_SetString(PyExc_TypeError, "replay: source must be a Node (after setup)");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(steps);
    PyObject *built = PyTuple_New(n);
    if (built == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *step = PyTuple_GET_ITEM(steps, i);
        PyObject *operands = PyTuple_GET_ITEM(step, 4);
        Py_ssize_t m = PyTuple_GET_SIZE(operands);
        PyObject *inputs = PyTuple_New(m);
        if (inputs == NULL) goto fail;
        for (Py_ssize_t k = 0; k < m; k++) {
            PyObject *r = PyTuple_GET_ITEM(operands, k), *x;
            if (PyLong_CheckExact(r)) {
                long at = PyLong_AsLong(r);
                x = at == -1 ? source : (at >= 0 && at < i) ? PyTuple_GET_ITEM(built, at) : NULL;
                if (x == NULL) {
                    Py_DECREF(inputs);
                    PyErr_SetString(PyExc_ValueError, "replay: bad operand");
                    goto fail;
                }
            } else {
                x = r;
            }
            PyTuple_SET_ITEM(inputs, k, Py_NewRef(x));
        }
        PyObject *node = op_node(PyTuple_GET_ITEM(step, 0), inputs, PyTuple_GET_ITEM(step, 1),
                                 PyTuple_GET_ITEM(step, 2), PyTuple_GET_ITEM(step, 3));
        Py_DECREF(inputs);
        if (node == NULL) goto fail;
        PyTuple_SET_ITEM(built, i, node);
    }
    PyObject *last = n ? PyTuple_GET_ITEM(built, n - 1) : source;
    PyObject *t = new_tensor(Py_NewRef(last));
    Py_DECREF(built);
    return t;
fail:
    Py_DECREF(built);
    return NULL;
}

/* result(name, inputs, dtype, shape): _elementwise._result, the tensor of a new (or shared)
 * op node without attributes. */
static PyObject *result(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || tensor_type == NULL || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "result(name, inputs, dtype, shape)");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[1]); i++)
        if (Py_TYPE(PyTuple_GET_ITEM(args[1], i)) != node_type) {
            PyErr_SetString(PyExc_TypeError, "result: inputs must be nodes");
            return NULL;
        }
    return new_tensor(op_node(args[0], args[1], empty_tuple, args[2], args[3]));
}

/* leaf_tensor(array): Tensor._from_array for a NumPy array: a Tensor on a new leaf node
 * (_graph.leaf: op "leaf", no inputs, the array's dtype and shape, the array as value). */
static PyObject *leaf_tensor(PyObject *self, PyObject *array)
{
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first");
        return NULL;
    }
    PyObject *dtype = PyObject_GetAttr(array, s_dtype), *shape = NULL, *node = NULL;
    /* a byte-swapped array (a caller's, read fresh at each evaluation): the native dtype */
    if (dtype != NULL && PyArray_Check(array) && PyArray_ISBYTESWAPPED((PyArrayObject *)array) &&
        PyArray_DescrCheck(dtype) && PyTypeNum_ISNUMBER(((PyArray_Descr *)dtype)->type_num))
        Py_SETREF(dtype, (PyObject *)PyArray_DescrFromType(((PyArray_Descr *)dtype)->type_num));
    if (dtype != NULL) shape = PyObject_GetAttr(array, s_shape);
    if (shape != NULL && !PyTuple_CheckExact(shape))
        PyErr_SetString(PyExc_TypeError, "leaf_tensor: not a NumPy array");
    else if (shape != NULL)
        node = new_node(s_leaf, empty_tuple, empty_tuple, dtype, shape, array, Py_None, Py_None);
    Py_XDECREF(dtype);
    Py_XDECREF(shape);
    return new_tensor(node);
}

/* ---- the recording memo (lazytensor/_engine/replay.py) ---------------------------------------- */

static PyObject *replay_module, *replay_stats, *recipe_of, *dtype_class, *s_max_recipes,
    *s_replays, *s_recorded;

static PyObject *setup_memo(PyObject *self, PyObject *args)
{
    if (!PyArg_ParseTuple(args, "OO!OO", &replay_module, &PyDict_Type, &replay_stats,
                          &recipe_of, &dtype_class))
        return NULL;
    PyObject *keep[] = {replay_module, replay_stats, recipe_of, dtype_class};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) Py_INCREF(keep[i]);
    Py_RETURN_NONE;
}

/* A key for a plain argument, with its type where values of two types compare equal (True
 * and 1; 0.0 and -0.0 and NaNs by their bits); NULL without an error for an argument that
 * is not plain (no memo then). */
static PyObject *plain(PyObject *v)
{
    if (PyLong_CheckExact(v) || PyUnicode_CheckExact(v) || v == Py_None) return Py_NewRef(v);
    if (PyFloat_CheckExact(v)) {
        double d = PyFloat_AS_DOUBLE(v);
        unsigned long long bits;
        memcpy(&bits, &d, sizeof bits);
        PyObject *b = PyLong_FromUnsignedLongLong(bits);
        PyObject *k = b ? PyTuple_Pack(2, (PyObject *)&PyFloat_Type, b) : NULL;
        Py_XDECREF(b);
        return k;
    }
    if (PyBool_Check(v)) return PyTuple_Pack(2, (PyObject *)&PyBool_Type, v);
    if (PyTuple_CheckExact(v)) {
        PyObject *items = map_tuple(v, plain);
        if (items == NULL) return NULL;
        PyObject *k = PyTuple_Pack(2, (PyObject *)&PyTuple_Type, items);
        Py_DECREF(items);
        return k;
    }
    if (dtype_class != NULL && PyObject_TypeCheck(v, (PyTypeObject *)dtype_class))
        return PyTuple_Pack(2, dtype_class, v);
    if (PyType_Check(v)) return PyTuple_Pack(2, (PyObject *)&PyType_Type, v);
    return NULL;
}

/* memo_call(recipes, fn, x, args, kwargs): _replay.memoized's wrapper. */
static PyObject *memo_call(PyObject *self, PyObject *const *a, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyDict_CheckExact(a[0]) || !PyTuple_CheckExact(a[3]) ||
        !PyDict_CheckExact(a[4]) || replay_module == NULL) {
        PyErr_SetString(PyExc_TypeError, "memo_call(recipes, fn, x, args, kwargs)");
        return NULL;
    }
    PyObject *recipes = a[0], *fn = a[1], *x = a[2], *args = a[3], *kwargs = a[4];
    PyObject *call_args = NULL, *key = NULL, *out = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if ((call_args = PyTuple_New(n + 1)) == NULL) return NULL;
    PyTuple_SET_ITEM(call_args, 0, Py_NewRef(x));
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(call_args, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
    PyObject *kw = PyDict_GET_SIZE(kwargs) ? kwargs : NULL;
    if (Py_TYPE(x) != tensor_type) goto direct;
    PyObject *node = SLOT(x, off_tensor_node);
    /* key: (dtype, shape, pending, plain args, ((name, plain value), ...)): a recipe made
     * for a pending tensor is not one for a value (astype's copy of a value) */
    PyObject *pa = plain(args), *pk = PyTuple_New(PyDict_GET_SIZE(kwargs));
    Py_ssize_t pos = 0, i = 0;
    PyObject *name, *value;
    int ok = pa != NULL && pk != NULL;
    while (ok && PyDict_Next(kwargs, &pos, &name, &value)) {
        PyObject *pv = plain(value), *item = pv ? PyTuple_Pack(2, name, pv) : NULL;
        Py_XDECREF(pv);
        if (item == NULL) ok = 0;
        else PyTuple_SET_ITEM(pk, i++, item);
    }
    if (ok)
        key = PyTuple_Pack(5, SLOT(node, off_dtype), SLOT(node, off_shape),
                           SLOT(node, off_value) == Py_None ? Py_True : Py_False, pa, pk);
    Py_XDECREF(pa);
    Py_XDECREF(pk);
    if (key == NULL) {
        if (PyErr_Occurred()) goto fail;
        goto direct;                      /* an argument that is not plain: no memo */
    }
    PyObject *steps = PyDict_GetItemWithError(recipes, key);
    if (steps != NULL) {
        Py_DECREF(key);
        Py_DECREF(call_args);
        if (count(replay_stats, s_replays, 1)) return NULL;
        PyObject *r_args = PyTuple_Pack(2, steps, node);
        PyObject *t = r_args ? replay(NULL, r_args) : NULL;
        Py_XDECREF(r_args);
        return t;
    }
    if (PyErr_Occurred()) goto fail;
    out = PyObject_Call(fn, call_args, kw);
    if (out == NULL) goto fail;
    steps = PyObject_CallFunctionObjArgs(recipe_of, out, node, NULL);
    if (steps == NULL) goto fail;
    if (steps != Py_None) {
        PyObject *limit = PyObject_GetAttr(replay_module, s_max_recipes);
        Py_ssize_t at = limit ? PyLong_AsSsize_t(limit) : -1;
        Py_XDECREF(limit);
        int bad = PyErr_Occurred() != NULL;
        if (!bad && PyDict_GET_SIZE(recipes) >= at) PyDict_Clear(recipes);
        bad = bad || PyDict_SetItem(recipes, key, steps) || count(replay_stats, s_recorded, 1);
        Py_DECREF(steps);
        if (bad) goto fail;
    } else {
        Py_DECREF(steps);
    }
    Py_DECREF(key);
    Py_DECREF(call_args);
    return out;
direct:
    out = PyObject_Call(fn, call_args, kw);
    Py_DECREF(call_args);
    return out;
fail:
    Py_XDECREF(key);
    Py_XDECREF(out);
    Py_DECREF(call_args);
    return NULL;
}

/* data_address(array): the address of element 0 of any strided buffer (NumPy's
 * __array_interface__ costs microseconds; the buffer protocol does not). */
static PyObject *data_address(PyObject *self, PyObject *array)
{
    char *address;
    return buffer_address(array, PyBUF_STRIDES, &address) ? NULL : PyLong_FromVoidPtr(address);
}


/* ---- softmax and log-sum-exp by rows (lazytensor/_api/softmax.py) ------------------------- */

typedef int (*lt_rowwise_fn)(const lt_rowfns *, int64_t, int64_t, intptr_t, int64_t, intptr_t,
                             int32_t, int32_t, int32_t);
static lt_rowwise_fn run_rowwise;

static PyObject *setup_rowwise(PyObject *self, PyObject *address)
{
    run_rowwise = (lt_rowwise_fn)PyLong_AsVoidPtr(address);
    if (run_rowwise == NULL && PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* rowwise(array, fns, logsumexp): _softmax._run in its common case, a C-contiguous, aligned,
 * non-empty float32 or float64 array reduced over its last axis: the result (softmax: the
 * array's shape; log-sum-exp: without the last axis), or None when the array is not such.
 * fns is the address of the lt_rowfns of its dtype and kind. */
static PyObject *rowwise(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || run_rowwise == NULL || memory_empty == NULL) {
        PyErr_SetString(PyExc_TypeError, "rowwise(array, fns, logsumexp), after the setups");
        return NULL;
    }
    if (!PyArray_CheckExact(args[0])) Py_RETURN_NONE;
    PyArrayObject *a = (PyArrayObject *)args[0];
    const int type = PyArray_TYPE(a), nd = PyArray_NDIM(a);
    if ((type != NPY_FLOAT32 && type != NPY_FLOAT64) || nd < 1 || PyArray_SIZE(a) == 0 ||
        !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a))
        Py_RETURN_NONE;
    const lt_rowfns *fns = (const lt_rowfns *)PyLong_AsVoidPtr(args[1]);
    const int lse = PyObject_IsTrue(args[2]);
    settings_t st;
    if ((fns == NULL && PyErr_Occurred()) || lse < 0 || read_settings(&st)) return NULL;
    const npy_intp *dims = PyArray_DIMS(a);
    const int64_t cols = dims[nd - 1], rows = PyArray_SIZE(a) / cols;
    PyObject *shape = PyTuple_New(lse ? nd - 1 : nd);
    if (shape == NULL) return NULL;
    for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(shape); d++) {
        PyObject *n = PyLong_FromSsize_t(dims[d]);
        if (n == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, d, n);
    }
    long long nbytes = 0;
    PyObject *out = empty(shape, (PyObject *)PyArray_DESCR(a), lse ? rows : rows * cols, &nbytes);
    Py_DECREF(shape);
    if (out == NULL) return NULL;
    if (!PyArray_Check(out) || (nbytes && count(memory_stats, s_allocated_bytes, nbytes))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "lazytensor: an output must be an ndarray");
        Py_DECREF(out);
        return NULL;
    }
    const intptr_t src = (intptr_t)PyArray_BYTES(a);
    const intptr_t dst = (intptr_t)PyArray_BYTES((PyArrayObject *)out);
    const int64_t row_bytes = cols * (int64_t)PyArray_ITEMSIZE(a);
    int status;
    if (rows * cols >= (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        status = run_rowwise(fns, rows, cols, src, row_bytes, dst, st.exact, st.n_threads, st.path);
        Py_END_ALLOW_THREADS
    } else {
        status = run_rowwise(fns, rows, cols, src, row_bytes, dst, st.exact, st.n_threads, st.path);
    }
    if (status != 0) {
        PyObject *r = PyObject_CallFunction(check_status, "i", status);   /* raises */
        Py_XDECREF(r);
        Py_DECREF(out);
        return NULL;
    }
    return out;
}


/* ---- a kept plan of several kernels ---------------------------------------------------- */

#define MAX_PLAN 128            /* pending nodes of a plan run here; more: Python's path */
#define MAX_LEAVES 64

static PyObject *rows_module, *s_plan, *s_enabled, *s_block_elements, *s_min_elements,
    *s_inputs, *s_outputs, *s_sinks, *s_kernel;

static PyObject *setup_plans(PyObject *self, PyObject *args)
{
    if (!PyArg_ParseTuple(args, "OO", &rows_module, &ffi_cast)) return NULL;
    Py_INCREF(rows_module);
    Py_INCREF(ffi_cast);
    Py_RETURN_NONE;
}

/* _graph.pending_topo_order(roots): the same iterative post-order.  The count, or -1 on
 * error, or MAX_PLAN + 1 when there are too many. */
static int topo_order(PyObject *roots, PyObject **order)
{
    PyObject *seen[MAX_PLAN], *stack[4 * MAX_PLAN];
    char expanded[4 * MAX_PLAN];
    int n_seen = 0, n_order = 0, top = 0;
    for (Py_ssize_t i = PyList_GET_SIZE(roots) - 1; i >= 0; i--) {
        PyObject *r = PyList_GET_ITEM(roots, i);
        if (Py_TYPE(r) != node_type) return MAX_PLAN + 1;
        if (SLOT(r, off_value) != Py_None) continue;
        if (top == 4 * MAX_PLAN) return MAX_PLAN + 1;
        stack[top] = r;
        expanded[top++] = 0;
    }
    while (top > 0) {
        PyObject *node = stack[--top];
        if (expanded[top]) {
            order[n_order++] = node;
            continue;
        }
        if (find(seen, n_seen, node) >= 0) continue;
        if (n_seen == MAX_PLAN) return MAX_PLAN + 1;
        seen[n_seen++] = node;
        stack[top] = node;
        expanded[top++] = 1;
        PyObject *ins = SLOT(node, off_inputs);
        if (!PyTuple_CheckExact(ins)) return MAX_PLAN + 1;
        for (Py_ssize_t i = PyTuple_GET_SIZE(ins) - 1; i >= 0; i--) {
            PyObject *x = PyTuple_GET_ITEM(ins, i);
            if (Py_TYPE(x) != node_type) return MAX_PLAN + 1;
            if (SLOT(x, off_value) == Py_None && find(seen, n_seen, x) < 0) {
                if (top == 4 * MAX_PLAN) return MAX_PLAN + 1;
                stack[top] = x;
                expanded[top++] = 0;
            }
        }
    }
    return n_order;
}

static int append_new(PyObject *list, PyObject *item)      /* steals `item` */
{
    if (item == NULL) return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

/* _eval._structure_key(roots, order): the same flat key; the leaves in the order first
 * read.  1, 0 (Python's path), or -1 on error. */
static int plan_key(PyObject *roots, PyObject *const *order, int n_order, PyObject *key,
                    PyObject **leaves, int *n_leaves)
{
    *n_leaves = 0;
    if (PyList_Append(key, s_plan) ||
        append_new(key, PyObject_GetAttr(rows_module, s_enabled)) ||
        append_new(key, PyObject_GetAttr(rows_module, s_block_elements)) ||
        append_new(key, PyObject_GetAttr(rows_module, s_min_elements)))
        return -1;
    for (int i = 0; i < n_order; i++) {
        PyObject *node = order[i], *ins = SLOT(node, off_inputs);
        Py_ssize_t m = PyTuple_GET_SIZE(ins);
        PyObject *refs = PyTuple_New(m);
        if (refs == NULL) return -1;
        for (Py_ssize_t k = 0; k < m; k++) {
            PyObject *x = PyTuple_GET_ITEM(ins, k);
            long at = find(order, n_order, x);
            if (at < 0) {
                int leaf = find(leaves, *n_leaves, x);
                if (leaf < 0) {
                    if (*n_leaves == MAX_LEAVES) {
                        Py_DECREF(refs);
                        return 0;
                    }
                    PyObject *layout = layout_made(x);
                    if (layout == NULL) {
                        Py_DECREF(refs);
                        return PyErr_Occurred() ? -1 : 0;
                    }
                    int bad = PyList_Append(key, layout);
                    Py_DECREF(layout);
                    if (bad) {
                        Py_DECREF(refs);
                        return -1;
                    }
                    leaf = (*n_leaves)++;
                    leaves[leaf] = x;
                }
                at = -1 - leaf;
            }
            PyObject *r = PyLong_FromLong(at);
            if (r == NULL) {
                Py_DECREF(refs);
                return -1;
            }
            PyTuple_SET_ITEM(refs, k, r);
        }
        PyObject *entry = PyTuple_Pack(6, SLOT(node, off_op), SLOT(node, off_attrs),
                                       SLOT(node, off_dtype), SLOT(node, off_exact),
                                       SLOT(node, off_shape), refs);
        Py_DECREF(refs);
        if (append_new(key, entry)) return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(roots);
    PyObject *requested = PyTuple_New(n);
    if (requested == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *r = PyLong_FromLong(find(order, n_order, PyList_GET_ITEM(roots, i)));
        if (r == NULL) {
            Py_DECREF(requested);
            return -1;
        }
        PyTuple_SET_ITEM(requested, i, r);
    }
    return append_new(key, requested) ? -1 : 1;
}

/* A step's position list (of ints) as C ints; -1 on error. */
static int positions(PyObject *step, PyObject *name, int *out, int max)
{
    PyObject *list = PyObject_GetAttr(step, name);
    if (list == NULL) return -1;
    int n = -1;
    if (PyList_CheckExact(list) && PyList_GET_SIZE(list) <= max) {
        n = (int)PyList_GET_SIZE(list);
        for (int i = 0; i < n; i++) out[i] = (int)PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (PyErr_Occurred()) n = -1;
    } else {
        PyErr_SetString(PyExc_TypeError, "plan_eval: a step's positions are not a short list");
    }
    Py_DECREF(list);
    return n;
}

/* out[k] = at[pos[k]] for k < count; -1 if a position is not below n or not a node. */
static int gather(PyObject *const *at, int n, const int *pos, int count, PyObject **out)
{
    for (int k = 0; k < count; k++) {
        if (pos[k] < 0 || pos[k] >= n || Py_TYPE(at[pos[k]]) != node_type) return -1;
        out[k] = at[pos[k]];
    }
    return 0;
}

/* Run one step of a kept plan (an open call): its inputs are values by now. */
static int run_step(call_t *c, const settings_t *s, PyObject *step, PyObject *const *at,
                    int n_at, int n_order)
{
    int ins[MAX_NODES], outs[MAX_NODES], sinks[MAX_NODES];
    int n_in = positions(step, s_inputs, ins, MAX_NODES);
    int n_out = n_in < 0 ? -1 : positions(step, s_outputs, outs, MAX_NODES);
    int n_sink = n_out < 0 ? -1 : positions(step, s_sinks, sinks, MAX_NODES);
    if (n_sink < 0) return -1;
    PyObject *in_nodes[MAX_NODES], *out_nodes[MAX_NODES], *sink_nodes[MAX_NODES];
    /* inputs are pending nodes or leaves; outputs and sinks are pending nodes */
    if (gather(at, n_at, ins, n_in, in_nodes) || gather(at, n_order, outs, n_out, out_nodes) ||
        gather(at, n_order, sinks, n_sink, sink_nodes)) {
        PyErr_SetString(PyExc_IndexError, "a kept step has a bad position");
        return -1;
    }
    return run_call(c, s, in_nodes, n_in, out_nodes, n_out, sink_nodes, n_sink);
}

/* Run a kept plan's steps (a list) over `at` (its pending nodes by position, then its
 * leaves): every step's kernel is opened, or none, then they run in order.  1 when it ran,
 * 0 (nothing run) when a kernel is busy, not compiled yet or needs Python's identity fill,
 * -1 on error. */
static int run_plan(PyObject *steps, PyObject *const *at, int n_at, int n_order)
{
    settings_t settings = {0, 1, 0};
    Py_ssize_t n_steps = PyList_GET_SIZE(steps);
    call_t calls[MAX_PLAN];
    int n_open = 0, ok = n_steps <= MAX_PLAN && read_settings(&settings) == 0 ? 1 : -1;
    for (Py_ssize_t i = 0; i < n_steps && ok == 1; i++) {     /* every kernel, or none */
        PyObject *ck = PyObject_GetAttr(PyList_GET_ITEM(steps, i), s_kernel);
        if (ck == NULL) {
            ok = -1;
        } else {
            ok = ck == Py_None ? 0 : call_open(&calls[n_open], ck);
            if (ok == 1 && calls[n_open++].fills) ok = 0;   /* Python fills the identity */
            Py_DECREF(ck);
        }
    }
    if (ok == 1) {
        int failed = count(cache_stats, s_hits, 1) || count(counters, s_evaluations, 1) ||
                     count(counters, s_kernels, n_open);
        for (int i = 0; i < n_open && !failed; i++)
            failed = run_step(&calls[i], &settings, PyList_GET_ITEM(steps, i), at, n_at,
                              n_order) != 0;
        if (failed) ok = -1;
    }
    for (int i = 0; i < n_open; i++)
        if (call_close(&calls[i])) ok = -1;
    return ok;
}

/* plan_eval(nodes) -> bool: _eval.evaluate on a hit of its kept plan (kernel by kernel);
 * False, having run nothing, when Python's path must do it. */
static PyObject *plan_eval(PyObject *self, PyObject *roots)
{
    if (node_type == NULL || rows_module == NULL || !PyList_CheckExact(roots)) Py_RETURN_FALSE;
    PyObject *order[MAX_PLAN + MAX_LEAVES], *leaves[MAX_LEAVES];
    int n_order = topo_order(roots, order);
    if (n_order < 0) return NULL;
    if (n_order > MAX_PLAN) Py_RETURN_FALSE;
    if (n_order == 0) Py_RETURN_TRUE;
    int n_leaves;
    PyObject *key = key_list(KEY_ROOM);
    if (key == NULL) return NULL;
    int keyed = plan_key(roots, order, n_order, key, leaves, &n_leaves);
    PyObject *steps = keyed == 1 ? quick_lookup(key, 0) : NULL;   /* borrowed */
    Py_DECREF(key);
    if (keyed <= 0) {
        if (keyed < 0) return NULL;
        Py_RETURN_FALSE;
    }
    if (steps == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_FALSE;
    }
    if (!PyList_CheckExact(steps) || PyList_GET_SIZE(steps) > MAX_PLAN) Py_RETURN_FALSE;
    steps = PyList_GetSlice(steps, 0, PyList_GET_SIZE(steps));   /* ours while it runs */
    if (steps == NULL) return NULL;
    for (int i = 0; i < n_leaves; i++) order[n_order + i] = leaves[i];   /* positions */
    /* held while the plan runs: set_value lets go of a node's inputs */
    for (int i = 0; i < n_order + n_leaves; i++) Py_INCREF(order[i]);
    int ran = run_plan(steps, order, n_order + n_leaves, n_order);
    for (int i = 0; i < n_order + n_leaves; i++) Py_DECREF(order[i]);
    Py_DECREF(steps);
    if (ran < 0) return NULL;
    return Py_NewRef(ran ? Py_True : Py_False);
}

/* ---- lazytensor.jit (lazytensor/_engine/jit.py) -------------------------------------------------- */

static PyObject *jit_stats, *s_const, *s_replayed, *s_plain;

/* jit_key(args, kwargs) -> (key, tensors) or None: the key of a call of a jitted function.
 * The key holds the row settings and the mode (a trace records its ops in the mode of its
 * call), then per argument, for a Tensor: ((shape, strides, dtype),
 * the index among the tensor arguments of an earlier one that is the same tensor, or -1),
 * else its plain key (as the recording memo's); then the keywords' ((name, plain value), ...).
 * No key (None) when a tensor is pending, misaligned or a constant node (hash-consed: it
 * could be one of the function's own constants), or an argument is not plain.  The tensor
 * arguments go to `tensors` (borrowed; at most MAX_LEAVES). */
static PyObject *jit_key_of(PyObject *args, PyObject *kwargs, PyObject **tensors, int *n_tensors)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args), n_kw = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    PyObject *key = PyTuple_New(4 + n + (n_kw ? 1 : 0));
    if (key == NULL) return NULL;
    PyObject *rows[3] = {s_enabled, s_block_elements, s_min_elements};
    for (int i = 0; i < 3; i++) {
        PyObject *v = PyObject_GetAttr(rows_module, rows[i]);
        if (v == NULL) goto fail;
        PyTuple_SET_ITEM(key, i, v);
    }
    PyObject *exact = mode_exact();
    if (exact == NULL) goto fail;
    PyTuple_SET_ITEM(key, 3, Py_NewRef(exact));
    *n_tensors = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i), *item = NULL;
        if (Py_TYPE(a) == tensor_type) {
            PyObject *node = SLOT(a, off_tensor_node), *value = SLOT(node, off_value);
            if (*n_tensors == MAX_LEAVES || value == Py_None ||
                PyUnicode_Compare(SLOT(node, off_op), s_const) == 0)
                goto none;
            PyObject *layout;
            void *address;
            int got = aligned_layout(node, &layout, &address);
            if (got <= 0) {
                if (got < 0) goto fail;
                goto none;
            }
            long same = -1;
            for (int k = 0; k < *n_tensors && same < 0; k++)
                if (SLOT(tensors[k], off_tensor_node) == node) same = k;
            PyObject *same_obj = PyLong_FromLong(same);
            item = same_obj ? PyTuple_Pack(2, layout, same_obj) : NULL;
            Py_XDECREF(same_obj);
            Py_DECREF(layout);
            tensors[(*n_tensors)++] = a;
        } else {
            item = plain(a);
            if (item == NULL && !PyErr_Occurred()) goto none;
        }
        if (item == NULL) goto fail;
        PyTuple_SET_ITEM(key, 4 + i, item);
    }
    if (n_kw) {
        PyObject *pk = PyTuple_New(n_kw), *name, *value;
        if (pk == NULL) goto fail;
        PyTuple_SET_ITEM(key, 4 + n, pk);
        Py_ssize_t pos = 0, i = 0;
        while (PyDict_Next(kwargs, &pos, &name, &value)) {
            PyObject *pv = plain(value), *item = pv ? PyTuple_Pack(2, name, pv) : NULL;
            Py_XDECREF(pv);
            if (item == NULL) {
                if (PyErr_Occurred()) goto fail;
                goto none;
            }
            PyTuple_SET_ITEM(pk, i++, item);
        }
    }
    return key;
none:
    Py_DECREF(key);
    return Py_NewRef(Py_None);
fail:
    Py_DECREF(key);
    return NULL;
}

static PyObject *jit_key(PyObject *self, PyObject *const *a, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyTuple_CheckExact(a[0]) || (a[1] != Py_None && !PyDict_CheckExact(a[1])) ||
        tensor_type == NULL || rows_module == NULL) {
        PyErr_SetString(PyExc_TypeError, "jit_key(args: tuple, kwargs: dict or None)");
        return NULL;
    }
    PyObject *tensors[MAX_LEAVES];
    int n_tensors;
    PyObject *key = jit_key_of(a[0], a[1] == Py_None ? NULL : a[1], tensors, &n_tensors);
    if (key == NULL || key == Py_None) return key;
    PyObject *list = PyList_New(n_tensors);
    if (list == NULL) {
        Py_DECREF(key);
        return NULL;
    }
    for (int k = 0; k < n_tensors; k++) PyList_SET_ITEM(list, k, Py_NewRef(tensors[k]));
    PyObject *r = PyTuple_Pack(2, key, list);
    Py_DECREF(key);
    Py_DECREF(list);
    return r;
}

/* Replay a traced program (its `_fast` tuple: steps, templates, constants, results, kind)
 * on the argument tensors: fresh nodes for the pending positions a step writes
 * (templates[i] = (op, attrs, dtype, shape), None elsewhere), then the leaves (the
 * arguments' nodes, the trace's constants), the kept steps run over them (run_plan), and
 * the tensors on the result positions, as fn returned them (one, or a tuple or list).
 * NotImplemented, with nothing run, when Python must do it (run_plan's 0). */
static PyObject *jit_replay(PyObject *fast, PyObject *const *tensors, int n_tensors)
{
    if (!PyTuple_CheckExact(fast) || PyTuple_GET_SIZE(fast) != 5 ||
        !PyList_CheckExact(PyTuple_GET_ITEM(fast, 0)) ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(fast, 1)) ||
        !PyList_CheckExact(PyTuple_GET_ITEM(fast, 2)) ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(fast, 3))) {
        PyErr_SetString(PyExc_TypeError, "jit: a program is not (steps, templates, constants, "
                                         "results, kind)");
        return NULL;
    }
    PyObject *steps = PyTuple_GET_ITEM(fast, 0), *templates = PyTuple_GET_ITEM(fast, 1),
             *constants = PyTuple_GET_ITEM(fast, 2), *results = PyTuple_GET_ITEM(fast, 3),
             *kind = PyTuple_GET_ITEM(fast, 4);
    Py_ssize_t n_order = PyTuple_GET_SIZE(templates), n_const = PyList_GET_SIZE(constants);
    if (n_order > MAX_PLAN || n_tensors + n_const > MAX_LEAVES ||
        PyList_GET_SIZE(steps) > MAX_PLAN || PyTuple_GET_SIZE(results) > MAX_PLAN)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *at[MAX_PLAN + MAX_LEAVES], *out = NULL;
    int n_at = (int)(n_order + n_tensors + n_const), made = 0, ran = -1;
    for (int k = 0; k < n_tensors; k++) at[n_order + k] = SLOT(tensors[k], off_tensor_node);
    for (Py_ssize_t k = 0; k < n_const; k++)
        at[n_order + n_tensors + k] = PyList_GET_ITEM(constants, k);
    for (int k = (int)n_order; k < n_at; k++) Py_INCREF(at[k]);   /* held while it runs */
    for (; made < n_order; made++) {
        PyObject *t = PyTuple_GET_ITEM(templates, made);
        if (t == Py_None) {
            at[made] = Py_NewRef(Py_None);
        } else if (PyTuple_CheckExact(t) && PyTuple_GET_SIZE(t) == 4) {
            at[made] = new_node(PyTuple_GET_ITEM(t, 0), empty_tuple, PyTuple_GET_ITEM(t, 1),
                                PyTuple_GET_ITEM(t, 2), PyTuple_GET_ITEM(t, 3), Py_None,
                                Py_None, Py_None);
            if (at[made] == NULL) goto done;
        } else {
            PyErr_SetString(PyExc_TypeError, "jit: a template is not (op, attrs, dtype, shape)");
            goto done;
        }
    }
    Py_INCREF(steps);                     /* ours while it runs */
    ran = run_plan(steps, at, n_at, (int)n_order);
    Py_DECREF(steps);
    if (ran == 0) out = Py_NewRef(Py_NotImplemented);
    if (ran != 1) goto done;
    Py_ssize_t n_res = PyTuple_GET_SIZE(results);
    PyObject *list = PyList_New(n_res);         /* the tensors, as fn returned them */
    for (Py_ssize_t i = 0; list != NULL && i < n_res; i++) {
        Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(results, i));
        PyObject *t = NULL;
        if (pos >= 0 && pos < n_at && Py_TYPE(at[pos]) == node_type)
            t = new_tensor(Py_NewRef(at[pos]));
        else if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "jit: a result is at no node");
        if (t == NULL) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, t);
    }
    if (list == NULL) goto done;
    if (kind == (PyObject *)&PyList_Type)
        out = Py_NewRef(list);
    else if (kind == (PyObject *)&PyTuple_Type)
        out = PyList_AsTuple(list);
    else if (kind == Py_None && n_res == 1)
        out = Py_NewRef(PyList_GET_ITEM(list, 0));
    else
        PyErr_SetString(PyExc_TypeError, "jit: a program's results do not match its kind");
    Py_DECREF(list);
    if (out != NULL && count(jit_stats, s_replayed, 1)) Py_CLEAR(out);
done:
    for (int k = 0; k < made; k++) Py_DECREF(at[k]);
    for (int k = (int)n_order; k < n_at; k++) Py_DECREF(at[k]);
    return out;
}

/* jit_call(programs, fn, args, kwargs) -> the result of the call: replayed, or fn's for a
 * plain signature (its program's _fast is False); NotImplemented (nothing run) when Python
 * must handle the call: no key, no program for it yet, a program that returns an argument,
 * a kernel busy in another thread. */
static PyObject *jit_call(PyObject *self, PyObject *const *a, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyDict_CheckExact(a[0]) || !PyTuple_CheckExact(a[2]) ||
        (a[3] != Py_None && !PyDict_CheckExact(a[3])) || tensor_type == NULL ||
        rows_module == NULL || jit_stats == NULL) {
        PyErr_SetString(PyExc_TypeError, "jit_call(programs: dict, fn, args: tuple, kwargs)");
        return NULL;
    }
    PyObject *tensors[MAX_LEAVES], *kwargs = a[3] == Py_None ? NULL : a[3];
    int n_tensors;
    PyObject *key = jit_key_of(a[2], kwargs, tensors, &n_tensors);
    if (key == NULL) return NULL;
    PyObject *program = key == Py_None ? NULL : PyDict_GetItemWithError(a[0], key);
    Py_DECREF(key);
    if (program == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *fast = PyObject_GetAttr(program, s_fast);
    if (fast == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return NULL;
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (fast == Py_False) {
        Py_DECREF(fast);
        return count(jit_stats, s_plain, 1) ? NULL : PyObject_Call(a[1], a[2], kwargs);
    }
    for (int k = 0; k < n_tensors; k++) Py_INCREF(tensors[k]);
    PyObject *out = fast == Py_None ? Py_NewRef(Py_NotImplemented)
                                    : jit_replay(fast, tensors, n_tensors);
    for (int k = 0; k < n_tensors; k++) Py_DECREF(tensors[k]);
    Py_DECREF(fast);
    return out;
}

static PyObject *setup_jit(PyObject *self, PyObject *stats)
{
    if (!PyDict_CheckExact(stats)) {
        PyErr_SetString(PyExc_TypeError, "setup_jit(stats: dict)");
        return NULL;
    }
    Py_XSETREF(jit_stats, Py_NewRef(stats));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"op_node", (PyCFunction)(void (*)(void))op_node_call, METH_FASTCALL,
     "op_node(op, inputs, attrs, dtype, shape) -> Node: _graph.op_node in C."},
    {"forget", forget, METH_O,
     "forget(node): take a node out of the hash-consing table (Node.set_value)."},
    {"intern_size", intern_size, METH_NOARGS,
     "intern_size() -> the number of op nodes in the hash-consing table."},
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
    {"setup_jit", setup_jit, METH_O, "setup_jit(stats)"},
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
        PyModule_AddObjectRef(m, "EvalLock", (PyObject *)&evallock_type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
