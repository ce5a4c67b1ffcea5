/* Evaluating a kept plan of several kernels (plan_eval).
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

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
