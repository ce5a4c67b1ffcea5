/* The recording memo (lazytensor/_engine/replay.py): memo_call and replay.
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

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
    if (PyType_Check(v)) {
        /* a type that stands for a dtype (lazytensor's dtype names, numpy_dtypes.ScalarType:
         * a class whose `dtype` is the dtype) keys as that dtype: the same recipe, and its
         * own hash is a Python method */
        if (Py_TYPE(v) != &PyType_Type && dtype_class != NULL) {
            PyObject *dt = PyObject_GetAttr(v, s_dtype);
            if (dt != NULL && PyObject_TypeCheck(dt, (PyTypeObject *)dtype_class)) {
                PyObject *k = PyTuple_Pack(2, dtype_class, dt);
                Py_DECREF(dt);
                return k;
            }
            Py_XDECREF(dt);
            PyErr_Clear();
        }
        return PyTuple_Pack(2, (PyObject *)&PyType_Type, v);
    }
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
    if (!lean_tensor(x)) goto direct;
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
