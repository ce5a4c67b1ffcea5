/* Views of memory in C: Tensor.__getitem__ with a basic key, and Tensor.T.
 * Part of lt_fastpath.c (included there, in this order: one translation unit).
 *
 * views.view's first case is a tensor whose memory is plain (a writable NumPy array, no
 * pending views of it or over it, not read-only): its view is a new leaf over the NumPy view
 * of that memory, whose `_base` is the tensor.  In Python that case cost five frames (about
 * 0.6 us of an x.T, 1.4 us of an x[1:] with the key's checks); here it is done without one.
 * Every other case, and every key with anything but Python ints, slices of ints, None and
 * one `...`, goes to the Python functions (indexing.getitem, ndarray_methods._T), which
 * raise the errors: this file never raises one of its own for a user's key. */

static PyObject *lazy_base, *lazy_views, *py_getitem, *py_transposed;
static Py_ssize_t off_tensor_base;

/* The tensor's writable memory when views.view has nothing else to do (views._plain_memory's
 * conditions); NULL with no error when Python must decide, NULL with an error on error. */
static PyObject *plain_memory(PyObject *t)
{
    if (Py_TYPE(t) != tensor_type) return NULL;
    PyObject *node = SLOT(t, off_tensor_node);
    if (node == NULL || Py_TYPE(node) != node_type || SLOT(node, off_value) == Py_None ||
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

/* The tensor over `arr` (steals it), a NumPy view of t's memory `mem`: a new leaf whose
 * `_base` is t (views._view_of's plain case).  NULL with no error when `arr` is not a view
 * of `mem` that way (Python's _view_of decides). */
static PyObject *view_of_memory(PyObject *t, PyObject *mem, PyObject *arr)
{
    PyObject *base = PyArray_Check(arr) ? PyArray_BASE((PyArrayObject *)arr) : NULL;
    if (base == NULL || (base != mem && base != PyArray_BASE((PyArrayObject *)mem))) {
        Py_DECREF(arr);
        return NULL;
    }
    PyObject *out = new_leaf_tensor(arr, empty_tuple);
    Py_DECREF(arr);
    if (out != NULL) SLOT(out, off_tensor_base) = Py_NewRef(t);
    return out;
}

/* NumPy's key for a basic index of a tensor of `ndim` axes that is a view (indexing._prepare
 * and _is_view_key for the keys taken here): the items with `...` appended when there is
 * none.  NULL with no error for any other key, or one that raises (out of bounds, too many
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
        if (PyLong_CheckExact(item)) {
            int overflow;
            const long long k = PyLong_AsLongLongAndOverflow(item, &overflow);
            const long long size = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, axis));
            if (overflow || (k == -1 && PyErr_Occurred()) || (size == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return NULL;
            }
            if (k < -size || k >= size) return NULL;
        }
        axis++;
    }
    PyObject *np_key = PyTuple_New(n + (ellipses == 0));
    if (np_key == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(np_key, i, Py_NewRef(is_tuple ? PyTuple_GET_ITEM(key, i) : key));
    if (ellipses == 0) PyTuple_SET_ITEM(np_key, n, Py_NewRef(Py_Ellipsis));
    return np_key;
}

/* Tensor.__getitem__: a basic key of plain memory here, anything else indexing.getitem. */
static PyObject *tensor_getitem(PyObject *self, PyObject *key)
{
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

static PyMethodDef getitem_method = {
    "__getitem__", tensor_getitem, METH_O,
    "Return self[key] (NumPy's basic and advanced indexing; see lazytensor._api.indexing)."};

/* setup_views(lazy_base, lazy_views, getitem, T) -> {"__getitem__": method descriptor of
 * Tensor}: the Python functions are those this file hands everything else to. */
static PyObject *setup_views(PyObject *self, PyObject *args)
{
    PyObject *lb, *lv, *gi, *tr;
    if (!PyArg_ParseTuple(args, "O!O!OO", &PyDict_Type, &lb, &PyDict_Type, &lv, &gi, &tr))
        return NULL;
    if (tensor_type == NULL || node_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup() and setup_recording() first");
        return NULL;
    }
    if (slot_offset((PyObject *)tensor_type, "_base", &off_tensor_base)) return NULL;
    Py_XSETREF(lazy_base, Py_NewRef(lb));
    Py_XSETREF(lazy_views, Py_NewRef(lv));
    Py_XSETREF(py_getitem, Py_NewRef(gi));
    Py_XSETREF(py_transposed, Py_NewRef(tr));
    PyObject *d = PyDescr_NewMethod(tensor_type, &getitem_method);
    if (d == NULL) return NULL;
    PyObject *out = Py_BuildValue("{sN}", "__getitem__", d);
    return out;
}
