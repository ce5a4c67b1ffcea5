/* Running a compiled kernel from C: its call structure, the settings of a call, outputs and values.
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* A kernel's reusable call structure, as its `_fast` tuple gives it (CompiledKernel in
 * kernel.py): (program, in_ptr, out_ptr, settings list, its Busy flag, unused,
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
    int32_t n_threads, path;
} settings_t;

/* ---- the kernels' call memo --------------------------------------------------------------
 * A kernel's `_fast` tuple is made once, in CompiledKernel.__init__, and never changes: a
 * slot keeps a kernel met before (held) with that tuple and the numbers decoded from it, so a
 * repeated call skips the attribute lookup and the conversions (about a twelfth of a one-op
 * call).  The slots are let go by clear_memos. */
#define CALL_MEMO_SLOTS 8
typedef struct {
    PyObject *ck, *fast;
    void *p, *in_ptr, *out_ptr, *red_ptr;
    int n_sinks, fills;
    long long results;
} call_memo_t;
static call_memo_t call_memo[CALL_MEMO_SLOTS];

/* Decode `ck`'s _fast tuple into `m` (which then holds ck and the tuple): 1, 0 when the tuple
 * is not of this form (nothing held), -1 on error. */
static int call_memo_fill(call_memo_t *m, PyObject *ck)
{
    PyObject *fast = PyObject_GetAttr(ck, s_fast);
    if (fast == NULL) return -1;
    if (!PyTuple_CheckExact(fast) || PyTuple_GET_SIZE(fast) != 12) {
        Py_DECREF(fast);
        return 0;
    }
    PyObject *const *f = &PyTuple_GET_ITEM(fast, 0);
    if (!Py_IS_TYPE(f[4], &busy_type)) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_TypeError, "lazytensor: a kernel's _fast tuple has no Busy flag");
        return -1;
    }
    call_memo_t d = {ck, fast, PyLong_AsVoidPtr(f[0]), PyLong_AsVoidPtr(f[1]),
                     PyLong_AsVoidPtr(f[2]), PyLong_AsVoidPtr(f[6]), (int)PyLong_AsLong(f[7]),
                     PyObject_IsTrue(f[11]), PyLong_AsLongLong(f[8])};
    if (PyErr_Occurred()) {
        Py_DECREF(fast);
        return -1;
    }
    PyObject *old_ck = m->ck, *old_fast = m->fast;
    *m = d;
    Py_INCREF(ck);
    Py_XDECREF(old_ck);
    Py_XDECREF(old_fast);
    return 1;
}

static void call_memo_clear(void)
{
    for (int s = 0; s < CALL_MEMO_SLOTS; s++) {
        Py_CLEAR(call_memo[s].ck);
        Py_CLEAR(call_memo[s].fast);
    }
}

/* Take `ck`'s call structure: 1 with its lock held, 0 (nothing held) when it is busy or
 * not of this form, -1 on error. */
static int call_open(call_t *c, PyObject *ck)
{
    const uintptr_t h = ((uintptr_t)ck >> 4) * 0x9E3779B97F4A7C15u;
    call_memo_t *m = &call_memo[h >> 61];                  /* 3 bits: 8 slots */
    if (m->ck != ck) {
        const int filled = call_memo_fill(m, ck);
        if (filled <= 0) return filled;
    }
    PyObject *const *f = &PyTuple_GET_ITEM(m->fast, 0);
    c->busy = (busy_t *)f[4];
    if (c->busy->held) return 0;
    c->fast = Py_NewRef(m->fast);
    c->p = m->p;
    c->in_ptr = m->in_ptr;
    c->out_ptr = m->out_ptr;
    c->state = f[3];
    c->red_ptr = m->red_ptr;
    c->n_sinks = m->n_sinks;
    c->results = m->results;
    c->buffer_shape = f[9];
    c->inverse = f[10];
    c->fills = m->fills;
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

/* The thread count (_config._num_threads) and the kernel path (_kernel._path) of a call
 * (its mode is each instruction's: the mode its node was recorded in).  0, or -1 on error. */
static int read_settings(settings_t *s)
{
#if PY_VERSION_HEX < 0x030C0000       /* ma_version_tag: deprecated in 3.12 */
    /* the values read last, while neither module's dict has changed since (its version tag):
     * two dict lookups a call less */
    static settings_t last;
    static uint64_t config_version, kernel_version;
    PyDictObject *cd = (PyDictObject *)PyModule_GetDict(config_module),
                 *kd = (PyDictObject *)PyModule_GetDict(kernel_module);
    if (config_version != 0 && cd->ma_version_tag == config_version &&
        kd->ma_version_tag == kernel_version) {
        *s = last;
        return 0;
    }
#endif
    PyObject *threads = module_global(config_module, s_num_threads), *path;
    if (threads == NULL || (path = module_global(kernel_module, s_path)) == NULL) return -1;
    s->n_threads = (int32_t)PyLong_AsLong(threads);
    s->path = (int32_t)PyLong_AsLong(path);
    if (PyErr_Occurred()) return -1;
#if PY_VERSION_HEX < 0x030C0000
    last = *s;
    config_version = cd->ma_version_tag;
    kernel_version = kd->ma_version_tag;
#endif
    return 0;
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
        if (p->size >= RELEASE_MIN) {      /* other threads' evaluations go on meanwhile */
            evalstate_t saved;
            if (evallock_suspend(eval_lock, &saved)) return -1;
            Py_BEGIN_ALLOW_THREADS
            status = run_kernel(p);
            Py_END_ALLOW_THREADS
            if (evallock_resume(eval_lock, &saved)) return -1;
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

/* The reduction reached from `root` through ops that each have one pending operand (a float32
 * sum rounding its float64 accumulator, a mean's division), or NULL.  Borrowed.  quick_eval
 * computes it first: nothing else is pending beside the chain, so this is the general path's
 * split into two groups, and both halves then take the quick path. */
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
 * call of lt.sum at 10^3), in the library's floating-point state (lt_fpenv.h).
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
