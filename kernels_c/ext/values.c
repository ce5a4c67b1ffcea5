/* Tensor's value methods in C: _value, numpy(), __array__(), and the Python scalars of a
 * one-element tensor (float(t), int(t), operator.index(t), bool(t)).
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* ---- Tensor's value: _value, numpy() and __array__() without Python frames -------------- */

static PyObject *plan_eval(PyObject *self, PyObject *roots);
static size_t intern_used;         /* the pending nodes in nodes.c's table (a tentative
                                    * definition: nodes.c's is the same variable) */

static PyObject *tensor_globals, *py_value, *py_array, *py_evaluate_one, *s_value_reads;

/* Tensor._value (_tensor.py) in C: the node's value, evaluated under _eval.lock by the quick
 * path or else by Python's evaluate_one.  The Python method takes over during a trace
 * (_tensor.value_reads set). */
static PyObject *tensor_value(PyObject *self, PyObject *unused)
{
    if (PyDict_GetItemWithError(tensor_globals, s_value_reads) != Py_None) {
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
    if (evallock_take_roots(eval_lock, 1, node) < 0) {
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

/* Whether the tensor's value (`value`, a new reference of the caller's) became the tensor's
 * memory: made writable because nothing else holds it, the node or the arrays it views (the
 * reference counts of views._exclusive: the tensor holds its node, the node and the caller
 * the value, each base array its view), it has no zero strides and its node's attrs are
 * empty (a leaf marked as a read-only view or source has attrs).  Python's views.own does
 * the same and the rest (pending readers, copies). */
static int take_over(PyObject *self, PyObject *value)
{
    PyObject *node = SLOT(self, off_tensor_node);
    if (!PyArray_CheckExact(value) || Py_REFCNT(node) != 1 || Py_REFCNT(value) != 2 ||
        SLOT(node, off_attrs) != empty_tuple)
        return 0;
    PyArrayObject *a = (PyArrayObject *)value;
    for (int d = 0; d < PyArray_NDIM(a); d++)
        if (PyArray_STRIDE(a, d) == 0 && PyArray_DIM(a, d) > 1) return 0;
    PyObject *base = PyArray_BASE(a);
    if (base != NULL && (!PyArray_Check(base) || Py_REFCNT(base) != 1 ||
                         !PyArray_ISWRITEABLE((PyArrayObject *)base)))
        return 0;
    if (base == NULL && !PyArray_CHKFLAGS(a, NPY_ARRAY_OWNDATA)) return 0;
    PyArray_ENABLEFLAGS(a, NPY_ARRAY_WRITEABLE);
    return 1;
}

/* Tensor.__array__(dtype=None, copy=None): the tensor's memory when no dtype is asked for
 * and no copy is required (what np.asarray asks), else the Python method. */
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
    /* memory (views.py) as it is; a value nothing else holds taken over here (views.own's
     * common case); the rest through Python, which hands out the tensor's memory (a copy of
     * the value, or a read-only view's or source's value) */
    PyObject *value = tensor_value(self, NULL);
    /* (pending nodes may read the memory: Python gives them a copy first, as writes through
     * the array handed out are not seen) */
    if (value == NULL || (intern_used == 0 && PyArray_Check(value) &&
                          PyArray_ISWRITEABLE((PyArrayObject *)value)))
        return value;
    if (take_over(self, value)) return value;
    Py_DECREF(value);
    return PyObject_CallOneArg(py_array, self);
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
    eval_lock = (evallock_t *)lock;
    if (s_value_reads == NULL)
        return NULL;
    PyObject *keep[] = {tensor_globals, py_value, py_array, py_evaluate_one, lock};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) Py_INCREF(keep[i]);
    PyObject *out = PyDict_New();
    return add_tensor_methods(out, tensor_methods);
}

/* ---- float(t), int(t), operator.index(t), bool(t) -----------------------------------------
 * The Python methods (tensor.py) read the value's element through NumPy's scalar and a few
 * Python checks: about 1.2 us for float(t[i]), where NumPy's float(x[i]) takes 0.08.  Here a
 * lean tensor of a real dtype gives its element as a Python scalar straight from the value
 * (NumPy's getitem, as the scalar's conversion gives it); anything else (another shape, a
 * complex dtype, a subclass) goes to the Python method, which raises the errors. */
enum { SCALAR_FLOAT, SCALAR_INT, SCALAR_INDEX, SCALAR_BOOL, N_SCALARS };
static PyObject *py_scalar[N_SCALARS];

/* The element of a lean tensor with a value of one element, as a Python scalar, when its
 * dtype's kind is in `kinds` and (need_0d) it is 0-d; NULL with no error when the Python
 * method must decide. */
static PyObject *real_item(PyObject *self, const char *kinds, int need_0d)
{
    if (!lean_tensor(self)) return NULL;
    PyObject *node = SLOT(self, off_tensor_node);
    PyObject *shape = SLOT(node, off_shape), *dtype = SLOT(node, off_dtype);
    if (!PyTuple_CheckExact(shape) || !PyArray_DescrCheck(dtype) ||
        strchr(kinds, ((PyArray_Descr *)dtype)->kind) == NULL ||
        (need_0d && PyTuple_GET_SIZE(shape) != 0))
        return NULL;
    for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(shape); d++) {     /* (one element) */
        PyObject *dim = PyTuple_GET_ITEM(shape, d);
        if (!PyLong_CheckExact(dim) || PyLong_AsSsize_t(dim) != 1) {
            PyErr_Clear();
            return NULL;
        }
    }
    PyObject *value = tensor_value(self, NULL);
    if (value == NULL) return NULL;
    PyObject *item = NULL;
    if (PyArray_Check(value) && PyArray_SIZE((PyArrayObject *)value) == 1 &&
        strchr(kinds, PyArray_DESCR((PyArrayObject *)value)->kind) != NULL)
        item = PyArray_GETITEM((PyArrayObject *)value, PyArray_DATA((PyArrayObject *)value));
    Py_DECREF(value);
    return item;
}

static PyObject *scalar_of(int which, PyObject *self, const char *kinds, int need_0d)
{
    PyObject *item = real_item(self, kinds, need_0d);
    if (item == NULL) {
        if (PyErr_Occurred()) return NULL;
        return PyObject_CallOneArg(py_scalar[which], self);
    }
    PyObject *out;
    switch (which) {
    case SCALAR_FLOAT: out = PyNumber_Float(item); break;
    case SCALAR_INT: out = PyNumber_Long(item); break;
    case SCALAR_INDEX: out = PyNumber_Index(item); break;
    default: {
        const int truth = PyObject_IsTrue(item);
        out = truth < 0 ? NULL : PyBool_FromLong(truth);
    }
    }
    Py_DECREF(item);
    return out;
}

static PyObject *tensor_float(PyObject *self, PyObject *unused)
{
    return scalar_of(SCALAR_FLOAT, self, "biuf", 1);
}
static PyObject *tensor_int(PyObject *self, PyObject *unused)
{
    return scalar_of(SCALAR_INT, self, "biuf", 1);
}
static PyObject *tensor_index(PyObject *self, PyObject *unused)
{
    return scalar_of(SCALAR_INDEX, self, "iu", 1);
}
static PyObject *tensor_bool(PyObject *self, PyObject *unused)
{
    return scalar_of(SCALAR_BOOL, self, "biuf", 0);
}

static PyMethodDef scalar_methods[N_SCALARS + 1] = {
    {"__float__", tensor_float, METH_NOARGS,
     "__float__($self, /)\n--\n\nThe 0-d value as a Python float (complex: TypeError)."},
    {"__int__", tensor_int, METH_NOARGS,
     "__int__($self, /)\n--\n\nThe 0-d value as a Python int, truncating floats."},
    {"__index__", tensor_index, METH_NOARGS,
     "__index__($self, /)\n--\n\nThe 0-d value of an integer tensor as a Python int."},
    {"__bool__", tensor_bool, METH_NOARGS,
     "__bool__($self, /)\n--\n\nThe truth of a one-element tensor."},
    {NULL, NULL, 0, NULL},
};

/* setup_scalars({name: Python method}) -> {name: method descriptor of Tensor} for __float__,
 * __int__, __index__ and __bool__, each handing what it does not take to its Python method. */
static PyObject *setup_scalars(PyObject *self, PyObject *python)
{
    if (tensor_type == NULL || !PyDict_Check(python)) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first, then a dict");
        return NULL;
    }
    for (int k = 0; k < N_SCALARS; k++) {
        PyObject *fn = PyDict_GetItemString(python, scalar_methods[k].ml_name);
        if (fn == NULL) {
            PyErr_Format(PyExc_KeyError, "setup_scalars: no Python %s", scalar_methods[k].ml_name);
            return NULL;
        }
        Py_XSETREF(py_scalar[k], Py_NewRef(fn));
    }
    return add_tensor_methods(PyDict_New(), scalar_methods);
}
