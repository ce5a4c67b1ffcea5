/* lt.jit's keys and replays (lazytensor/_engine/jit.py).
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* ---- lazytensor.jit (lazytensor/_engine/jit.py) -------------------------------------------------- */

#define MAX_LEAVES 64           /* tensor arguments of a replayed call */

static PyObject *jit_stats, *s_replayed, *s_plain, *run_steps_fn;

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
        if (lean_tensor(a)) {
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

/* Run kept steps in Python (evaluate.run_steps, under the evaluation lock): a first run, which
 * compiles their kernels, or one C could not (a kernel busy in another thread, a result
 * that needs Python's identity fill).  0, or -1 on error. */
static int run_steps_in_python(PyObject *steps, PyObject *const *at, int n_at)
{
    settings_t settings = {1, 0};
    PyObject *list = read_settings(&settings) ? NULL : PyList_New(n_at);
    if (list == NULL) return -1;
    for (int k = 0; k < n_at; k++) PyList_SET_ITEM(list, k, Py_NewRef(at[k]));
    if (evallock_take_roots(eval_lock, 1, list) < 0) {
        Py_DECREF(list);
        return -1;
    }
    PyObject *r = count(counters, s_evaluations, 1) ? NULL
                  : PyObject_CallFunction(run_steps_fn, "OOi", steps, list, (int)settings.n_threads);
    PyObject *err_type, *err_value, *err_tb;
    PyErr_Fetch(&err_type, &err_value, &err_tb);
    const int not_released = evallock_give(eval_lock);
    if (err_type != NULL) {
        PyErr_Restore(err_type, err_value, err_tb);
        Py_XDECREF(r);
        r = NULL;
    }
    Py_DECREF(list);
    if (r == NULL || not_released) {
        Py_XDECREF(r);
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

/* Replay a traced program (its `_fast` tuple: steps, templates, constants, results, kind)
 * on the argument tensors: fresh nodes for the pending positions a step writes
 * (templates[i] = (op, attrs, dtype, shape), None elsewhere), then the leaves (the
 * arguments' nodes, the trace's constants), the kept steps run over them (run_plan, or
 * Python's run_steps when it cannot), and the tensors on the result positions, as fn
 * returned them (one, or a tuple or list; an argument returned is that very tensor). */
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
             *kind = PyTuple_GET_ITEM(fast, 4), *out = NULL;
    const int n_order = (int)PyTuple_GET_SIZE(templates);
    const int n_const = (int)PyList_GET_SIZE(constants);
    nodevec_t at;
    nodevec_init(&at);
    int made = 0, ran = -1;
    for (; made < n_order; made++) {
        PyObject *t = PyTuple_GET_ITEM(templates, made), *node;
        if (t == Py_None) {
            node = Py_NewRef(Py_None);
        } else if (PyTuple_CheckExact(t) && PyTuple_GET_SIZE(t) == 4) {
            node = new_node(PyTuple_GET_ITEM(t, 0), empty_tuple, PyTuple_GET_ITEM(t, 1),
                            PyTuple_GET_ITEM(t, 2), PyTuple_GET_ITEM(t, 3), Py_None,
                            Py_None, Py_None);
            if (node == NULL) goto done;
        } else {
            PyErr_SetString(PyExc_TypeError, "jit: a template is not (op, attrs, dtype, shape)");
            goto done;
        }
        if (nodevec_push(&at, node)) {
            Py_DECREF(node);
            goto done;
        }
    }
    for (int k = 0; k < n_tensors + n_const; k++) {     /* held while it runs */
        PyObject *leaf = k < n_tensors ? SLOT(tensors[k], off_tensor_node)
                                       : PyList_GET_ITEM(constants, k - n_tensors);
        if (nodevec_push(&at, Py_NewRef(leaf))) {
            Py_DECREF(leaf);
            goto done;
        }
    }
    Py_INCREF(steps);                     /* ours while it runs */
    ran = run_plan(steps, at.at, at.n, n_order);
    if (ran == 0) ran = run_steps_in_python(steps, at.at, at.n) ? -1 : 1;
    Py_DECREF(steps);
    if (ran != 1) goto done;
    const Py_ssize_t n_res = PyTuple_GET_SIZE(results);
    PyObject *list = PyList_New(n_res);         /* the tensors, as fn returned them */
    for (Py_ssize_t i = 0; list != NULL && i < n_res; i++) {
        const Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(results, i));
        PyObject *t = NULL;
        if (pos >= n_order && pos < n_order + n_tensors)
            t = Py_NewRef(tensors[pos - n_order]);
        else if (pos >= 0 && pos < at.n && Py_TYPE(at.at[pos]) == node_type)
            t = new_tensor(Py_NewRef(at.at[pos]));
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
done:
    for (int k = 0; k < at.n; k++) Py_DECREF(at.at[k]);
    nodevec_free(&at);
    return out;
}

/* jit_run(program, tensors) -> the replay of a traced program (jit.py's first run, under
 * the evaluation lock from the trace on) */
static PyObject *jit_run(PyObject *self, PyObject *const *a, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(a[1]) || PyList_GET_SIZE(a[1]) > MAX_LEAVES) {
        PyErr_SetString(PyExc_TypeError, "jit_run(program, tensors: list)");
        return NULL;
    }
    PyObject *fast = PyObject_GetAttr(a[0], s_fast);
    if (fast == NULL) return NULL;
    PyObject *tensors[MAX_LEAVES] = {NULL};
    const int n = (int)PyList_GET_SIZE(a[1]);
    for (int k = 0; k < n; k++) tensors[k] = Py_NewRef(PyList_GET_ITEM(a[1], k));
    PyObject *out = jit_replay(fast, tensors, n);
    for (int k = 0; k < n; k++) Py_DECREF(tensors[k]);
    Py_DECREF(fast);
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
    PyObject *out = jit_replay(fast, tensors, n_tensors);
    if (out != NULL && count(jit_stats, s_replayed, 1)) Py_CLEAR(out);
    for (int k = 0; k < n_tensors; k++) Py_DECREF(tensors[k]);
    Py_DECREF(fast);
    return out;
}

/* setup_jit(stats, run_steps): jit.stats, and evaluate.run_steps for what C cannot run */
static PyObject *setup_jit(PyObject *self, PyObject *args)
{
    PyObject *stats, *run_steps;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &stats, &run_steps)) return NULL;
    Py_XSETREF(jit_stats, Py_NewRef(stats));
    Py_XSETREF(run_steps_fn, Py_NewRef(run_steps));
    Py_RETURN_NONE;
}
