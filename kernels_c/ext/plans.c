/* Evaluating a kept plan of several kernels (plan_eval).
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* ---- a kept plan of several kernels ---------------------------------------------------- */

#define MAX_PLAN 128            /* kernels of a plan run here; more: Python's run_steps */

static PyObject *s_inputs, *s_outputs, *s_sinks, *s_kernel;

static PyObject *setup_plans(PyObject *self, PyObject *args)
{
    if (!PyArg_ParseTuple(args, "OO", &rows_module, &ffi_cast)) return NULL;
    Py_INCREF(rows_module);
    Py_INCREF(ffi_cast);
    Py_RETURN_NONE;
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
    settings_t settings = {1, 0};
    Py_ssize_t n_steps = PyList_GET_SIZE(steps);
    call_t calls[MAX_PLAN];
    PyObject *kernels[MAX_PLAN];  /* each open call's kernel (borrowed: the steps hold them) */
    int of_step[MAX_PLAN];        /* the open call each step runs on */
    int n_open = 0, ok = n_steps <= MAX_PLAN && read_settings(&settings) == 0 ? 1 : -1;
    for (Py_ssize_t i = 0; i < n_steps && ok == 1; i++) {     /* every kernel, or none */
        PyObject *ck = PyObject_GetAttr(PyList_GET_ITEM(steps, i), s_kernel);
        if (ck == NULL) {
            ok = -1;
            break;
        }
        /* steps of one kernel (identical groups: a long chain cut at the input cap) share
         * its call structure: they run one after another, each filling its pointers */
        int k = 0;
        while (k < n_open && kernels[k] != ck) k++;
        if (k == n_open) {
            ok = ck == Py_None ? 0 : call_open(&calls[n_open], ck);
            if (ok == 1) {
                kernels[n_open] = ck;
                if (calls[n_open++].fills) ok = 0;        /* Python fills the identity */
            }
        }
        of_step[i] = k;
        Py_DECREF(ck);
    }
    if (ok == 1) {
        int failed = count(cache_stats, s_hits, 1) || count(counters, s_evaluations, 1) ||
                     count(counters, s_kernels, n_steps);
        for (Py_ssize_t i = 0; i < n_steps && !failed; i++)
            failed = run_step(&calls[of_step[i]], &settings, PyList_GET_ITEM(steps, i), at,
                              n_at, n_order) != 0;
        if (failed) ok = -1;
    }
    for (int i = 0; i < n_open; i++)
        if (call_close(&calls[i])) ok = -1;
    return ok;
}

/* plan_eval(nodes) -> bool: evaluate.evaluate on a hit of its kept plan (kernel by kernel);
 * False, having run nothing, when Python's path must do it. */
static PyObject *plan_eval(PyObject *self, PyObject *roots)
{
    if (node_type == NULL || rows_module == NULL || !PyList_CheckExact(roots)) Py_RETURN_FALSE;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(roots); i++)
        if (Py_TYPE(PyList_GET_ITEM(roots, i)) != node_type) Py_RETURN_FALSE;
    nodevec_t order, leaves;
    nodemap_t index;
    nodevec_init(&order);
    nodevec_init(&leaves);
    nodemap_init(&index);
    PyObject *key = NULL, *steps = NULL, *out = NULL;
    if (topo_order(roots, &order, &index)) goto done;
    if (order.n == 0) {
        out = Py_NewRef(Py_True);
        goto done;
    }
    const int n_order = order.n;
    key = key_list(KEY_ROOM);
    const int keyed = key == NULL ? -1 : plan_key(roots, &order, &index, key, &leaves, 0);
    if (keyed < 0) goto done;
    steps = keyed == 1 ? quick_lookup(key, 0) : NULL;   /* borrowed */
    if (steps == NULL && PyErr_Occurred()) goto done;
    if (steps == NULL || !PyList_CheckExact(steps) || PyList_GET_SIZE(steps) > MAX_PLAN) {
        steps = NULL;
        out = Py_NewRef(Py_False);
        goto done;
    }
    steps = PyList_GetSlice(steps, 0, PyList_GET_SIZE(steps));   /* ours while it runs */
    if (steps == NULL) goto done;
    for (int i = 0; i < leaves.n; i++)           /* positions: the pending nodes, the leaves */
        if (nodevec_push(&order, leaves.at[i])) goto done;
    /* held while the plan runs: set_value lets go of a node's inputs */
    for (int i = 0; i < order.n; i++) Py_INCREF(order.at[i]);
    const int ran = run_plan(steps, order.at, order.n, n_order);
    for (int i = 0; i < order.n; i++) Py_DECREF(order.at[i]);
    if (ran >= 0) out = Py_NewRef(ran ? Py_True : Py_False);
done:
    Py_XDECREF(key);
    Py_XDECREF(steps);
    nodevec_free(&order);
    nodevec_free(&leaves);
    nodemap_free(&index);
    return out;
}
