/* NumPy's ufunc protocol (NEP 13) on tensors: the lean case of Tensor.__array_ufunc__ in C.
 * Part of lt_fastpath.c (included there, in this order: one translation unit).
 *
 * np.exp(t), np.add(t, 1): NumPy hands the call to Tensor.__array_ufunc__.  Its common case,
 * once seen, is a plain call whose operands (tensors and Python scalars) lazytensor's
 * function takes as they are: numpy_protocols keeps that function in a dict under (ufunc,
 * each operand's dtype, or type for a scalar).  Here that lookup is made without the Python
 * method's frame and key generator (about 0.4 us of a 1 us call); anything else goes to the
 * Python method. */

static PyObject *lean_ufuncs, *py_array_ufunc, *s_call_method;

#define LEAN_UFUNC_INPUTS 3

static PyObject *tensor_array_ufunc(PyObject *self, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames)
{
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);    /* ufunc, method, *inputs */
    if (kwnames == NULL && nargs >= 3 && nargs <= 2 + LEAN_UFUNC_INPUTS &&
        PyUnicode_Check(args[1]) &&
        (args[1] == s_call_method || PyUnicode_Compare(args[1], s_call_method) == 0)) {
        PyObject *key = PyTuple_New(nargs - 1);
        if (key == NULL) return NULL;
        PyTuple_SET_ITEM(key, 0, Py_NewRef(args[0]));
        for (Py_ssize_t i = 2; i < nargs; i++) {
            PyObject *x = args[i];
            PyObject *k = lean_tensor(x) ? SLOT(SLOT(x, off_tensor_node), off_dtype)
                                         : (PyObject *)Py_TYPE(x);
            PyTuple_SET_ITEM(key, i - 1, Py_NewRef(k));
        }
        PyObject *fn = PyDict_GetItemWithError(lean_ufuncs, key);    /* borrowed */
        Py_DECREF(key);
        if (fn != NULL) {
            Py_INCREF(fn);
            PyObject *out = PyObject_Vectorcall(fn, args + 2, (size_t)(nargs - 2), NULL);
            Py_DECREF(fn);
            return out;
        }
        if (PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
            PyErr_Clear();               /* an unhashable operand: Python's method decides */
        }
    }
    return call_python(py_array_ufunc, self, args, nargs, kwnames);   /* (views.c) */
}

static PyMethodDef protocol_methods[] = {
    {"__array_ufunc__", (PyCFunction)(void (*)(void))tensor_array_ufunc,
     METH_FASTCALL | METH_KEYWORDS,
     "__array_ufunc__($self, ufunc, method, /, *inputs, **kwargs)\n--\n\n"
     "NEP 13: NumPy's ufunc (or its method) on operands among which a Tensor."},
    {NULL, NULL, 0, NULL},
};

/* setup_protocols(lean dict, Python __array_ufunc__) -> {"__array_ufunc__": method
 * descriptor of Tensor} */
static PyObject *setup_protocols(PyObject *self, PyObject *args)
{
    PyObject *lean, *fallback;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &lean, &fallback)) return NULL;
    if (tensor_type == NULL || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first, then (dict, function)");
        return NULL;
    }
    if (s_call_method == NULL && (s_call_method = PyUnicode_InternFromString("__call__")) == NULL)
        return NULL;
    Py_XSETREF(lean_ufuncs, Py_NewRef(lean));
    Py_XSETREF(py_array_ufunc, Py_NewRef(fallback));
    return add_tensor_methods(PyDict_New(), protocol_methods);
}
