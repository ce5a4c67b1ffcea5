/* Nodes: their creation and the hash-consing table of op nodes (op_node).
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

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

/* The hashes of the nodes added last, by address (direct-mapped): most nodes leave the table
 * soon after they join it (when they get their value), and intern_forget then finds their
 * entry without hashing the node's fields again.  An entry is set when its node joins and
 * cleared when it leaves, so a node found here has this hash; a wrong one would only send
 * the search to its scan of the whole table. */
#define RECENT_HASHES 256
static struct {
    PyObject *node;            /* borrowed; only compared */
    Py_hash_t hash;
} recent_hash[RECENT_HASHES];

static size_t recent_slot(PyObject *node)
{
    return ((uintptr_t)node >> 4) % RECENT_HASHES;
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
    recent_hash[recent_slot(node)].node = node;
    recent_hash[recent_slot(node)].hash = hash;
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
    const size_t recent = recent_slot(node);
    int hashed = recent_hash[recent].node == node;
    if (hashed) {
        hash = recent_hash[recent].hash;
        recent_hash[recent].node = NULL;
    } else {
        hashed = SLOT(node, off_op) != NULL && SLOT(node, off_inputs) != NULL &&
                 SLOT(node, off_attrs) != NULL && SLOT(node, off_dtype) != NULL &&
                 node_hash(SLOT(node, off_op), SLOT(node, off_inputs), SLOT(node, off_attrs),
                           SLOT(node, off_dtype), SLOT(node, off_exact), thread, &hash) == 0;
    }
    if (hashed) {
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

/* pending_nodes() -> a list of the op nodes in the table (recorded, not yet computed, alive):
 * what a write into memory looks through for pending readers of that memory (views.py). */
static PyObject *pending_nodes(PyObject *self, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out != NULL && intern_entries != NULL && i <= intern_mask; i++) {
        PyObject *node = intern_entries[i].node;
        if (node == NULL || node == INTERN_GONE) continue;
        if (PyList_Append(out, node) < 0) Py_CLEAR(out);
    }
    return out;
}

/* The bytes [*lo, *hi) that an array's elements span (np.may_share_memory's bounds check);
 * 0 for an empty array, which spans none */
static int byte_bounds(PyArrayObject *a, const char **lo, const char **hi)
{
    if (PyArray_SIZE(a) == 0) return 0;
    const char *l = PyArray_BYTES(a), *h = l;
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        npy_intp extent = (PyArray_DIM(a, d) - 1) * PyArray_STRIDE(a, d);
        if (extent < 0) l += extent; else h += extent;
    }
    *lo = l;
    *hi = h + PyArray_ITEMSIZE(a);
    return 1;
}

/* Whether a pending node may read bytes in [lo, hi): one of its inputs has a value whose
 * span overlaps it, or a value or inputs of a kind this cannot tell */
static int may_read(PyObject *node, const char *lo, const char *hi)
{
    PyObject *ins = SLOT(node, off_inputs);
    if (ins == NULL || !PyTuple_Check(ins)) return 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ins); i++) {
        PyObject *x = PyTuple_GET_ITEM(ins, i);
        if (!PyObject_TypeCheck(x, (PyTypeObject *)node_type)) return 1;
        PyObject *v = SLOT(x, off_value);
        const char *vlo, *vhi;
        if (v == NULL || v == Py_None) continue;
        if (!PyArray_Check(v)) return 1;
        if (byte_bounds((PyArrayObject *)v, &vlo, &vhi) && vlo < hi && lo < vhi) return 1;
    }
    return 0;
}

/* pending_readers(mem) -> the op nodes in the table that may read mem's bytes (may_read):
 * the few a write into mem must look at (views.protect_pending_readers), found without a
 * Python step per pending node. */
static PyObject *pending_readers(PyObject *self, PyObject *mem)
{
    const char *lo, *hi;
    if (!PyArray_Check(mem)) {
        PyErr_Format(PyExc_TypeError, "pending_readers(mem): mem must be an ndarray, not %.100s",
                     Py_TYPE(mem)->tp_name);
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL || !byte_bounds((PyArrayObject *)mem, &lo, &hi)) return out;
    for (size_t i = 0; out != NULL && intern_entries != NULL && i <= intern_mask; i++) {
        PyObject *node = intern_entries[i].node;
        if (node == NULL || node == INTERN_GONE || !may_read(node, lo, hi)) continue;
        if (PyList_Append(out, node) < 0) Py_CLEAR(out);
    }
    return out;
}

/* pending_uses(node) -> how many inputs of the pending op nodes are `node` (views'
 * _held_by_pending: a write's holders, counted without a Python loop over every pending
 * node) */
static PyObject *pending_uses(PyObject *self, PyObject *node)
{
    Py_ssize_t n = 0;
    for (size_t i = 0; intern_entries != NULL && i <= intern_mask; i++) {
        PyObject *p = intern_entries[i].node;
        if (p == NULL || p == INTERN_GONE) continue;
        PyObject *ins = SLOT(p, off_inputs);
        if (ins == NULL || !PyTuple_Check(ins)) continue;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ins); k++)
            n += PyTuple_GET_ITEM(ins, k) == node;
    }
    return PyLong_FromSsize_t(n);
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
