/* Views of memory in C: views.view's first case, and Tensor.__getitem__ with a basic key and
 * Tensor.T on it.
 * Part of lt_fastpath.c (included there, in this order: one translation unit).
 *
 * views.view's first case is a tensor whose memory is plain (a writable NumPy array, no
 * pending views of it or over it, not read-only): its view is a new leaf over the NumPy view
 * of that memory, whose `_base` is the tensor.  In Python that case cost four frames (about
 * 0.5 us of an x.T); here it is done without one, and x[key] and x.T skip Python's frames
 * around it too (the key's checks cost 0.8-3 us).  Every other case, and every key with
 * anything but Python ints, slices of ints, None and one `...`, goes to the Python functions
 * (views.view's other cases, indexing.getitem, ndarray_methods._T), which raise the errors:
 * this file never raises one of its own for a user's key. */

static PyObject *lazy_base, *lazy_views, *py_getitem, *py_transposed, *py_reshape, *py_transpose;
static Py_ssize_t off_tensor_base;

/* The tensor's writable memory when views.view has nothing else to do (views._plain_memory's
 * conditions); NULL with no error when Python must decide, NULL with an error on error. */
static PyObject *plain_memory(PyObject *t)
{
    if (!lean_tensor(t)) return NULL;
    PyObject *node = SLOT(t, off_tensor_node);
    if (SLOT(node, off_value) == Py_None ||
        SLOT(node, off_attrs) != empty_tuple)
        return NULL;
    if (PyDict_GET_SIZE(lazy_base) != 0 || PyDict_GET_SIZE(lazy_views) != 0) {
        PyObject *id = PyLong_FromVoidPtr(t);
        if (id == NULL) return NULL;
        int pending = PyDict_Contains(lazy_base, id);
        if (pending == 0) pending = PyDict_Contains(lazy_views, id);
        Py_DECREF(id);
        if (pending != 0) return NULL;                /* (1, or -1 with the error set) */
    }
    PyObject *mem = tensor_value(t, NULL);            /* (a read a trace notes) */
    if (mem != NULL && !(PyArray_Check(mem) && PyArray_ISWRITEABLE((PyArrayObject *)mem)))
        Py_CLEAR(mem);
    return mem;
}

/* Whether `arr` is a NumPy view of `mem` that views._view_of takes as one without asking
 * np.may_share_memory: its base is `mem` or `mem`'s own base. */
static int views_memory(PyObject *mem, PyObject *arr)
{
    PyObject *base = PyArray_Check(arr) ? PyArray_BASE((PyArrayObject *)arr) : NULL;
    return base != NULL && (base == mem || base == PyArray_BASE((PyArrayObject *)mem));
}

/* The tensor over `arr` (steals it), a NumPy view of t's memory `mem`: a new leaf whose
 * `_base` is t (views._view_of's plain case).  NULL with no error when `arr` is not a view
 * of `mem` that way (Python's _view_of decides). */
static PyObject *view_of_memory(PyObject *t, PyObject *mem, PyObject *arr)
{
    if (!views_memory(mem, arr)) {
        Py_DECREF(arr);
        return NULL;
    }
    PyObject *out = new_leaf_tensor(arr, empty_tuple);
    Py_DECREF(arr);
    if (out != NULL) SLOT(out, off_tensor_base) = Py_NewRef(t);
    return out;
}

/* view_plain(t, make): views.view's first case.  The tensor over make(memory) when t's
 * memory is plain and make gives a view of it; make's array when it gives another array (a
 * copy, perhaps: views._view_of decides); None when t's memory is not plain or make gives
 * no array (views.view's other path then calls make again and decides). */
static PyObject *view_plain(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "view_plain(t, make)");
        return NULL;
    }
    PyObject *mem = plain_memory(args[0]);
    if (mem == NULL) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    PyObject *arr = PyObject_CallOneArg(args[1], mem), *out = NULL;
    if (arr != NULL && views_memory(mem, arr))
        out = view_of_memory(args[0], mem, arr);
    else if (arr != NULL && !PyArray_Check(arr)) {
        Py_DECREF(arr);
        out = Py_NewRef(Py_None);
    } else {
        out = arr;
    }
    Py_DECREF(mem);
    return out;
}

/* The int `item` as an index on an axis of `size` (an int) elements, made non-negative: 1
 * with *at set; 0, no error, when it is out of bounds or too large (Python's path raises). */
static int axis_index(PyObject *item, PyObject *size, npy_intp *at)
{
    int overflow;
    const long long k = PyLong_AsLongLongAndOverflow(item, &overflow);
    const long long n = PyLong_AsLongLong(size);
    if (overflow || (k == -1 && PyErr_Occurred()) || (n == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    if (k < -n || k >= n) return 0;
    *at = (npy_intp)(k < 0 ? k + n : k);
    return 1;
}

/* NumPy's key for a basic index of a tensor of `ndim` axes that is a view (indexing._prepare
 * and _is_view_key for the keys taken here): with an int among them, the items with `...`
 * appended when there is none (a view, not NumPy's scalar).  NULL with no error for any other key, or one that raises (out of bounds, too many
 * indices). */
static PyObject *basic_view_key(PyObject *key, PyObject *shape)
{
    const Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    const int is_tuple = PyTuple_CheckExact(key);
    const Py_ssize_t n = is_tuple ? PyTuple_GET_SIZE(key) : 1;
    Py_ssize_t used = 0, ellipses = 0, ints = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = is_tuple ? PyTuple_GET_ITEM(key, i) : key;
        if (item == Py_None) continue;
        if (item == Py_Ellipsis) {
            ellipses++;
            continue;
        }
        if (PyLong_CheckExact(item)) {
            ints++;
        } else if (PySlice_Check(item)) {
            PySliceObject *s = (PySliceObject *)item;
            PyObject *bounds[3] = {s->start, s->stop, s->step};
            for (int b = 0; b < 3; b++)
                if (bounds[b] != Py_None && !PyLong_CheckExact(bounds[b])) return NULL;
            if (s->step != Py_None) {         /* a zero step: Python's ValueError */
                int overflow;
                const long long step = PyLong_AsLongLongAndOverflow(s->step, &overflow);
                if (!overflow && step == 0) return NULL;
            }
        } else {
            return NULL;
        }
        used++;
    }
    if (ellipses > 1 || used > ndim || (ints == n && n == ndim)) return NULL;
    /* the integers' bounds, on the axes they index (after `...`, counted from the end) */
    Py_ssize_t axis = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = is_tuple ? PyTuple_GET_ITEM(key, i) : key;
        if (item == Py_None) continue;
        if (item == Py_Ellipsis) {
            axis += ndim - used;
            continue;
        }
        npy_intp at;
        if (PyLong_CheckExact(item) && !axis_index(item, PyTuple_GET_ITEM(shape, axis), &at))
            return NULL;
        axis++;
    }
    /* (slices, None and `...` alone always give a view: the key as it is) */
    if (ints == 0) return Py_NewRef(key);
    PyObject *np_key = PyTuple_New(n + (ellipses == 0));
    if (np_key == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(np_key, i, Py_NewRef(is_tuple ? PyTuple_GET_ITEM(key, i) : key));
    if (ellipses == 0) PyTuple_SET_ITEM(np_key, n, Py_NewRef(Py_Ellipsis));
    return np_key;
}

/* x[i, j, ...] with one Python int per axis (indexing.getitem's element access): a new
 * read-only 0-d array holding a copy of the element (NumPy's scalar, not a view), as a
 * leaf; the tensor is evaluated first if pending.  NULL with no error for any other key, or
 * an index out of bounds (Python's path raises). */
static PyObject *element(PyObject *self, PyObject *key)
{
    if (!lean_tensor(self)) return NULL;
    PyObject *shape = SLOT(SLOT(self, off_tensor_node), off_shape);
    const int is_tuple = PyTuple_CheckExact(key);
    const Py_ssize_t n = is_tuple ? PyTuple_GET_SIZE(key) : 1;
    if (!PyTuple_Check(shape) || n != PyTuple_GET_SIZE(shape) || n == 0 || n > NPY_MAXDIMS)
        return NULL;
    npy_intp at[NPY_MAXDIMS];
    for (Py_ssize_t d = 0; d < n; d++) {
        PyObject *item = is_tuple ? PyTuple_GET_ITEM(key, d) : key;
        if (!PyLong_CheckExact(item) || !axis_index(item, PyTuple_GET_ITEM(shape, d), &at[d]))
            return NULL;
    }
    PyObject *value = tensor_value(self, NULL);        /* (evaluated if pending) */
    if (value == NULL) return NULL;
    PyObject *out = NULL;
    if (PyArray_Check(value) && PyArray_NDIM((PyArrayObject *)value) == n) {
        PyArrayObject *v = (PyArrayObject *)value;
        PyArray_Descr *descr = PyArray_DESCR(v);
        Py_INCREF(descr);                             /* (stolen) */
        out = PyArray_NewFromDescr(&PyArray_Type, descr, 0, NULL, NULL, NULL, 0, NULL);
        if (out != NULL) {
            memcpy(PyArray_DATA((PyArrayObject *)out), PyArray_GetPtr(v, at),
                   (size_t)PyArray_ITEMSIZE(v));
            PyArray_CLEARFLAGS((PyArrayObject *)out, NPY_ARRAY_WRITEABLE);
            PyObject *leaf = new_leaf_tensor(out, empty_tuple);
            Py_SETREF(out, leaf);
        }
    }
    Py_DECREF(value);
    return out;
}

/* Tensor.__getitem__: element access and a basic key of plain memory here, anything else
 * indexing.getitem. */
static PyObject *tensor_getitem(PyObject *self, PyObject *key)
{
    PyObject *got = element(self, key);
    if (got != NULL || PyErr_Occurred()) return got;
    PyObject *mem = plain_memory(self);
    if (mem == NULL) {
        if (PyErr_Occurred()) return NULL;
        goto python;
    }
    PyObject *np_key = basic_view_key(key, SLOT(SLOT(self, off_tensor_node), off_shape));
    PyObject *arr = np_key == NULL ? NULL : PyObject_GetItem(mem, np_key);
    Py_XDECREF(np_key);
    PyObject *out = arr == NULL ? NULL : view_of_memory(self, mem, arr);
    Py_DECREF(mem);
    if (out != NULL) return out;
    PyErr_Clear();            /* (NumPy's error, if any: Python's path gives it its words) */
python:
    return PyObject_CallFunctionObjArgs(py_getitem, self, key, NULL);
}

/* Tensor.T: the axes reversed, a view of plain memory here for two axes or more; anything
 * else ndarray_methods._T. */
static PyObject *tensor_transposed(PyObject *module, PyObject *self)
{
    PyObject *mem = plain_memory(self);
    if (mem == NULL) {
        if (PyErr_Occurred()) return NULL;
        goto python;
    }
    PyObject *arr = PyArray_NDIM((PyArrayObject *)mem) >= 2
                    ? PyArray_Transpose((PyArrayObject *)mem, NULL) : NULL;
    PyObject *out = arr == NULL ? NULL : view_of_memory(self, mem, arr);
    Py_DECREF(mem);
    if (out != NULL) return out;
    if (PyErr_Occurred()) return NULL;
python:
    return PyObject_CallOneArg(py_transposed, self);
}

/* The rest of a reshape or transpose call, to the Python method. */
static PyObject *call_python(PyObject *fn, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *stack[16];
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw + 1 > 16) {
        PyObject *t = PyTuple_New(nargs + 1);
        if (t == NULL) return NULL;
        PyTuple_SET_ITEM(t, 0, Py_NewRef(self));
        for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SET_ITEM(t, i + 1, Py_NewRef(args[i]));
        PyObject *kw = NULL;
        if (nkw) {
            kw = PyDict_New();
            for (Py_ssize_t i = 0; kw != NULL && i < nkw; i++)
                if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]))
                    Py_CLEAR(kw);
            if (kw == NULL) {
                Py_DECREF(t);
                return NULL;
            }
        }
        PyObject *r = PyObject_Call(fn, t, kw);
        Py_DECREF(t);
        Py_XDECREF(kw);
        return r;
    }
    stack[0] = self;
    for (Py_ssize_t i = 0; i < nargs + nkw; i++) stack[i + 1] = args[i];
    return PyObject_Vectorcall(fn, stack, (size_t)(nargs + 1), kwnames);
}

/* x.reshape(shape) of plain memory with the shape as Python ints (one tuple, or the ints):
 * manipulation.reshape's lean case (one -1 at most, the size kept, not zero) when NumPy's
 * reshape of the memory is a view of it; anything else ndarray_methods._reshape. */
static PyObject *tensor_reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    if (nargs == 1 && PyTuple_CheckExact(args[0])) {
        items = &PyTuple_GET_ITEM(args[0], 0);
        n = PyTuple_GET_SIZE(args[0]);
    }
    if ((kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) || nargs == 0 || n > NPY_MAXDIMS)
        goto python;
    npy_intp dims[NPY_MAXDIMS];
    long long known = 1;
    int unknown = -1;
    for (Py_ssize_t d = 0; d < n; d++) {
        if (!PyLong_CheckExact(items[d])) goto python;
        int overflow;
        const long long v = PyLong_AsLongLongAndOverflow(items[d], &overflow);
        if (overflow || v < -1 || (v == -1 && unknown >= 0)) goto python;   /* (no error set) */
        dims[d] = (npy_intp)v;
        if (v == -1) unknown = (int)d;
        else if (__builtin_mul_overflow(known, v, &known)) goto python;
    }
    PyObject *mem = plain_memory(self);
    if (mem == NULL) {
        if (PyErr_Occurred()) return NULL;
        goto python;
    }
    const long long size = PyArray_SIZE((PyArrayObject *)mem);
    if (size == 0 || (unknown < 0 ? size != known : known <= 0 || size % known != 0)) {
        Py_DECREF(mem);
        goto python;
    }
    if (unknown >= 0) dims[unknown] = (npy_intp)(size / known);
    PyArray_Dims shape = {dims, (int)n};
    PyObject *arr = PyArray_Newshape((PyArrayObject *)mem, &shape, NPY_CORDER);
    PyObject *out = arr == NULL ? NULL : view_of_memory(self, mem, arr);
    Py_DECREF(mem);
    if (out != NULL) return out;
    PyErr_Clear();            /* (a copy, or NumPy's error: Python's path gives either) */
python:
    return call_python(py_reshape, self, args, nargs, kwnames);
}

/* x.transpose() (or transpose(None)): x.T; anything else ndarray_methods._transpose. */
static PyObject *tensor_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    if ((kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0) &&
        (nargs == 0 || (nargs == 1 && args[0] == Py_None)) && lean_tensor(self)) {
        PyObject *shape = SLOT(SLOT(self, off_tensor_node), off_shape);
        if (PyTuple_Check(shape) && PyTuple_GET_SIZE(shape) < 2)
            return Py_NewRef(self);           /* (manipulation.transpose's own answer) */
        return tensor_transposed(NULL, self);
    }
    return call_python(py_transpose, self, args, nargs, kwnames);
}

static PyMethodDef view_methods[] = {
    {"__getitem__", tensor_getitem, METH_O,
     "__getitem__($self, key, /)\n--\n\n"
     "Return self[key] (NumPy's basic and advanced indexing; see lazytensor._api.indexing)."},
    {"reshape", (PyCFunction)(void (*)(void))tensor_reshape, METH_FASTCALL | METH_KEYWORDS,
     "reshape($self, /, *shape, order='C', copy=None)\n--\n\n"
     "lazytensor.reshape(self, shape, order=order, copy=copy); the shape as one tuple or as "
     "separate ints (NumPy's x.reshape(3, 2))."},
    {"transpose", (PyCFunction)(void (*)(void))tensor_transpose, METH_FASTCALL | METH_KEYWORDS,
     "transpose($self, /, *axes)\n--\n\n"
     "NumPy's x.transpose(*axes): axes reversed (none given, or None), or permuted by a tuple "
     "or by the axes as separate ints.  A 0-d or 1-d tensor is itself."},
    {NULL, NULL, 0, NULL},
};

/* setup_views(lazy_base, lazy_views, python) -> {name: method descriptor of Tensor} for
 * __getitem__, reshape and transpose; `python` maps those names and "T" to the Python
 * functions this file hands everything else to. */
static PyObject *setup_views(PyObject *self, PyObject *args)
{
    PyObject *lb, *lv, *python;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyDict_Type, &lb, &PyDict_Type, &lv,
                          &PyDict_Type, &python))
        return NULL;
    if (tensor_type == NULL || node_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup() and setup_recording() first");
        return NULL;
    }
    if (slot_offset((PyObject *)tensor_type, "_base", &off_tensor_base)) return NULL;
    PyObject **keep[] = {&py_getitem, &py_transposed, &py_reshape, &py_transpose};
    const char *names[] = {"__getitem__", "T", "reshape", "transpose"};
    for (int i = 0; i < 4; i++) {
        PyObject *fn = PyDict_GetItemString(python, names[i]);
        if (fn == NULL) {
            PyErr_Format(PyExc_KeyError, "setup_views: no Python %s", names[i]);
            return NULL;
        }
        Py_XSETREF(*keep[i], Py_NewRef(fn));
    }
    Py_XSETREF(lazy_base, Py_NewRef(lb));
    Py_XSETREF(lazy_views, Py_NewRef(lv));
    PyObject *out = PyDict_New();
    return add_tensor_methods(out, view_methods);
}
