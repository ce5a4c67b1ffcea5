/* lt.mode, the mode's context manager, as a C type.
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* ---- lt.mode(name): the mode's context manager ------------------------------------------
 * `with lt.mode("fast"): ...` is part of every call of a small expression written that way,
 * and as a Python class entering and leaving cost three Python calls. */
typedef struct {
    PyObject_HEAD
    PyObject *name;      /* "exact" or "fast" */
    PyObject *token;     /* of the contextvar set by __enter__, NULL outside */
} mode_cm_t;

static PyTypeObject mode_cm_type;

static PyObject *mode_cm_make(PyObject *name)
{
    if (mode_var == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor: setup_mode was not called");
        return NULL;
    }
    int ok = PyUnicode_Check(name) && (PyUnicode_CompareWithASCIIString(name, "exact") == 0 ||
                                       PyUnicode_CompareWithASCIIString(name, "fast") == 0);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "mode must be one of ('exact', 'fast'), not %R", name);
        return NULL;
    }
    mode_cm_t *self = PyObject_New(mode_cm_t, &mode_cm_type);
    if (self == NULL) return NULL;
    /* the interned name, which recording tells by identity (mode_exact) */
    self->name = Py_NewRef(PyUnicode_CompareWithASCIIString(name, "exact") == 0 ? s_exact_mode
                                                                              : s_fast_mode);
    self->token = NULL;
    return (PyObject *)self;
}

static PyObject *mode_cm_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames)
{
    (void)type;
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw != 1 ||
        (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "name"))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "mode() takes one argument, name");
        return NULL;
    }
    return mode_cm_make(args[0]);
}

static PyObject *mode_cm_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)type;
    static char *kwlist[] = {"name", NULL};
    PyObject *name;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:mode", kwlist, &name)) return NULL;
    return mode_cm_make(name);
}

static void mode_cm_dealloc(mode_cm_t *self)
{
    Py_XDECREF(self->name);
    Py_XDECREF(self->token);
    PyObject_Free(self);
}

static PyObject *mode_cm_enter(mode_cm_t *self, PyObject *unused)
{
    (void)unused;
    PyObject *token = PyContextVar_Set(mode_var, self->name);
    if (token == NULL) return NULL;
    Py_XSETREF(self->token, token);
    Py_RETURN_NONE;
}

static PyObject *mode_cm_exit(mode_cm_t *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)args; (void)nargs;
    if (self->token == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "lazytensor.mode: __exit__ without __enter__");
        return NULL;
    }
    PyObject *token = self->token;
    self->token = NULL;
    const int failed = PyContextVar_Reset(mode_var, token);
    Py_DECREF(token);
    if (failed) return NULL;
    Py_RETURN_FALSE;
}

static PyObject *mode_cm_repr(mode_cm_t *self)
{
    return PyUnicode_FromFormat("lazytensor.mode(%R)", self->name);
}

static PyMethodDef mode_cm_methods[] = {
    {"__enter__", (PyCFunction)mode_cm_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)(void (*)(void))mode_cm_exit, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject mode_cm_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lazytensor.mode",
    .tp_basicsize = sizeof(mode_cm_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = mode_cm_methods,
    .tp_new = mode_cm_new,
    .tp_vectorcall = mode_cm_vectorcall,
    .tp_dealloc = (destructor)mode_cm_dealloc,
    .tp_repr = (reprfunc)mode_cm_repr,
};

/* setup_mode(contextvar, doc) -> the type lt.mode: the mode's contextvar (_config._mode),
 * which read_settings reads too, and the Python class's docstring for the C type's */
static PyObject *setup_mode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *var, *doc;
    if (!PyArg_ParseTuple(args, "OU", &var, &doc)) return NULL;
    if (!PyContextVar_CheckExact(var)) {
        PyErr_SetString(PyExc_TypeError, "setup_mode needs a contextvars.ContextVar");
        return NULL;
    }
    Py_XSETREF(mode_var, Py_NewRef(var));
    if (PyDict_SetItemString(mode_cm_type.tp_dict, "__doc__", doc)) return NULL;
    PyType_Modified(&mode_cm_type);
    return Py_NewRef((PyObject *)&mode_cm_type);
}
