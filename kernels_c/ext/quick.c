/* The quick evaluation of a single-group expression (quick_eval) and the quick table's identity memo.
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

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

/* clear_memos(): let go of what the memos hold (lt.empty_cache: the quick table's values are
 * kernels and plans of the table being emptied; the constants' memo, nodes; the call memo,
 * kernels; the interned shapes and layouts, tuples). */
static void const_memo_clear(void);      /* (record.c) */
static PyObject *clear_memos(PyObject *self, PyObject *unused)
{
    key_memo_clear();
    intern_clear();
    const_memo_clear();
    call_memo_clear();
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

static PyObject *py_evaluate_one;      /* evaluate.evaluate_one (given to setup_value) */

/* quick_eval(node) -> bool: give `node` its value through the quick table (the kernel of
 * its one group, a reduction's included); False, having run nothing of it, when Python's
 * evaluate_one must: another form, a miss, a kernel busy in another thread. */
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

    nodevec_t inputs;
    nodevec_init(&inputs);
    int walked;
    PyObject *key = key_list(KEY_ROOM);
    if (key == NULL) return NULL;
    if (SLOT(top, off_value) != Py_None) {     /* a reduction of a value: one input */
        PyObject *layout = layout_made(top);
        if (layout == NULL)
            walked = PyErr_Occurred() ? -1 : 0;
        else
            walked = PyList_Append(key, SLOT(top, off_shape)) ||
                     PyList_Append(key, layout) || nodevec_push(&inputs, top) ? -1 : 1;
        Py_XDECREF(layout);
    } else {
        walked = walk(top, key, &inputs, NULL, 0);
        PyObject *below = walked == 0 && !reduction ? reduction_below(root) : NULL;
        if (below != NULL) {
            /* the reduction first (by Python's path on a miss, which keeps its kernel here
             * for the next time), then this is one group */
            PyObject *done = quick_eval(self, below);
            if (done == Py_False && py_evaluate_one != NULL) {
                Py_DECREF(done);
                done = PyObject_CallFunctionObjArgs(py_evaluate_one, below, Py_False, NULL);
                Py_XSETREF(done, done == NULL ? NULL : Py_NewRef(Py_True));
            }
            if (done == NULL) {
                Py_DECREF(key);
                nodevec_free(&inputs);
                return NULL;
            }
            Py_DECREF(done);
            const int cast = cast_of_value(root);
            if (cast != 0) {
                Py_DECREF(key);
                nodevec_free(&inputs);
                if (cast < 0) return NULL;
                Py_RETURN_TRUE;
            }
            inputs.n = 0;
            if (PyList_SetSlice(key, 0, PyList_GET_SIZE(key), NULL)) {
                Py_DECREF(key);
                nodevec_free(&inputs);
                return NULL;
            }
            walked = walk(top, key, &inputs, NULL, 0);
        }
    }
    if (walked == 1 && reduction &&
        (PyList_Append(key, s_reduce) || PyList_Append(key, SLOT(root, off_attrs)) ||
         PyList_Append(key, SLOT(root, off_dtype))))
        walked = -1;
    PyObject *ck = walked == 1 ? quick_lookup(key, 1) : NULL;   /* borrowed */
    Py_DECREF(key);
    if (ck == NULL) {
        nodevec_free(&inputs);
        if (walked < 0 || PyErr_Occurred()) return NULL;
        Py_RETURN_FALSE;
    }
    settings_t settings = {1, 0};
    call_t c;
    int opened = read_settings(&settings) ? -1 : call_open(&c, ck);
    if (opened == 1 && (c.n_sinks != (reduction ? 1 : 0) || c.fills))
        opened = call_close(&c) ? -1 : 0;
    if (opened <= 0) {
        nodevec_free(&inputs);
        if (opened < 0) return NULL;
        Py_RETURN_FALSE;
    }
    int failed = run_call(&c, &settings, inputs.at, inputs.n, &root, reduction ? 0 : 1,
                          &root, reduction ? 1 : 0) != 0;
    failed |= call_close(&c) != 0;
    nodevec_free(&inputs);
    if (failed || count(cache_stats, s_hits, 1) || count(counters, s_evaluations, 1) ||
        count(counters, s_kernels, 1))
        return NULL;
    Py_RETURN_TRUE;
}
