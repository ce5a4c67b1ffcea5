/* lazytensor._fastpath: the hot paths of recording and evaluation, in C.  This file holds the
 * module's setup, counters, operand layouts, the walk of a single group and the Busy flag;
 * its parts in ext/ (the evaluation lock: ext/evallock.c) are included below, in order (one
 * translation unit).
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

/* Whether `t` is a Tensor (not a subclass) with a node: what the C paths take.  A Tensor made
 * by object.__new__ has no node; Python's paths report that (an AttributeError). */
static inline int lean_tensor(PyObject *t)
{
    if (Py_TYPE(t) != tensor_type) return 0;
    PyObject *node = SLOT(t, off_tensor_node);
    return node != NULL && Py_TYPE(node) == node_type;
}

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

/* A method descriptor of Tensor in `out` for each entry of `table` (NULL-terminated): `out`,
 * or NULL (`out` let go) on error.  Python installs them (tensor_methods._install). */
static PyObject *add_tensor_methods(PyObject *out, PyMethodDef *table)
{
    for (PyMethodDef *m = table; out != NULL && m->ml_name != NULL; m++) {
        PyObject *d = PyDescr_NewMethod(tensor_type, m);
        if (d == NULL || PyDict_SetItemString(out, m->ml_name, d)) Py_CLEAR(out);
        Py_XDECREF(d);
    }
    return out;
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

#include "ext/interned.c"

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
    PyObject *value = SLOT(node, off_value);
    const Py_ssize_t *strides = view.strides;
    if (aligned && unit) {
        aligned = PyArray_Check(value) && PyArray_NDIM((PyArrayObject *)value) == view.ndim;
        if (aligned) strides = PyArray_STRIDES((PyArrayObject *)value);
    }
    *address = view.buf;
    *layout = aligned ? interned_layout(SLOT(node, off_shape), view.ndim, strides,
                                        SLOT(node, off_dtype)) : NULL;
    PyBuffer_Release(&view);
    if (!aligned) return 0;
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

#include "ext/evallock.c"

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

#include "ext/views.c"

#include "ext/slots.c"

#include "ext/protocols.c"

static PyMethodDef methods[] = {
    {"op_node", (PyCFunction)(void (*)(void))op_node_call, METH_FASTCALL,
     "op_node(op, inputs, attrs, dtype, shape) -> Node: _graph.op_node in C."},
    {"forget", forget, METH_O,
     "forget(node): take a node out of the hash-consing table (Node.set_value)."},
    {"intern_size", intern_size, METH_NOARGS,
     "intern_size() -> the number of op nodes in the hash-consing table."},
    {"pending_nodes", pending_nodes, METH_NOARGS,
     "pending_nodes() -> [the op nodes in the hash-consing table]: the pending ones."},
    {"pending_readers", pending_readers, METH_O,
     "pending_readers(mem) -> [the pending op nodes with an input whose value may overlap mem]."},
    {"pending_uses", pending_uses, METH_O,
     "pending_uses(node) -> how many inputs of the pending op nodes are node."},
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
    {"setup_views", setup_views, METH_VARARGS,
     "setup_views(lazy_base, lazy_views, {name: Python function}) -> {name: method "
     "descriptor}: basic indexing, .T, reshape and transpose of plain memory in C "
     "(ext/views.c)."},
    {"view_plain", (PyCFunction)(void (*)(void))view_plain, METH_FASTCALL,
     "view_plain(t, make) -> the view of t's plain memory, make's array, or None "
     "(views.view's first case)."},
    {"setup_scalars", setup_scalars, METH_O,
     "setup_scalars({name: Python method}) -> {name: method descriptor of Tensor}: "
     "__float__, __int__, __index__ and __bool__ in C."},
    {"setup_protocols", setup_protocols, METH_VARARGS,
     "setup_protocols(lean ufunc dict, Python __array_ufunc__) -> {'__array_ufunc__': "
     "method descriptor of Tensor}: NEP 13's lean case in C."},
    {"install_slots", install_slots, METH_NOARGS,
     "install_slots(): Tensor's operator and subscript slots straight to this module's "
     "methods (once setup_operators' and setup_views' methods are set on Tensor)."},
    {"slots_installed", slots_installed, METH_NOARGS,
     "slots_installed() -> whether Tensor's slots are install_slots' functions."},
    {"transposed", tensor_transposed, METH_O,
     "transposed(tensor) -> tensor.T (the fget of Tensor.T)."},
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
