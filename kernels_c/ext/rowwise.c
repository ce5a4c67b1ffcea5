/* Softmax and log-sum-exp by rows (lazytensor/_api/softmax.py).
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* ---- softmax and log-sum-exp by rows (lazytensor/_api/softmax.py) ------------------------- */

typedef int (*lt_rowwise_fn)(const lt_rowfns *, int64_t, int64_t, intptr_t, int64_t, intptr_t,
                             int32_t, int32_t, int32_t);
static lt_rowwise_fn run_rowwise;

static PyObject *setup_rowwise(PyObject *self, PyObject *address)
{
    run_rowwise = (lt_rowwise_fn)PyLong_AsVoidPtr(address);
    if (run_rowwise == NULL && PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* rowwise(array, fns, logsumexp): softmax._run in its common case, a C-contiguous, aligned,
 * non-empty float32 or float64 array reduced over its last axis: the result (softmax: the
 * array's shape; log-sum-exp: without the last axis), or None when the array is not such.
 * fns is the address of the lt_rowfns of its dtype and kind. */
static PyObject *rowwise(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || run_rowwise == NULL || memory_empty == NULL) {
        PyErr_SetString(PyExc_TypeError, "rowwise(array, fns, logsumexp), after the setups");
        return NULL;
    }
    if (!PyArray_CheckExact(args[0])) Py_RETURN_NONE;
    PyArrayObject *a = (PyArrayObject *)args[0];
    const int type = PyArray_TYPE(a), nd = PyArray_NDIM(a);
    if ((type != NPY_FLOAT32 && type != NPY_FLOAT64) || nd < 1 || PyArray_SIZE(a) == 0 ||
        !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a))
        Py_RETURN_NONE;
    const lt_rowfns *fns = (const lt_rowfns *)PyLong_AsVoidPtr(args[1]);
    const int lse = PyObject_IsTrue(args[2]);
    settings_t st;
    PyObject *exact = NULL;       /* a row function runs now, in this context's mode */
    if ((fns == NULL && PyErr_Occurred()) || lse < 0 || read_settings(&st) ||
        (exact = mode_exact()) == NULL)
        return NULL;
    const npy_intp *dims = PyArray_DIMS(a);
    const int64_t cols = dims[nd - 1], rows = PyArray_SIZE(a) / cols;
    PyObject *shape = PyTuple_New(lse ? nd - 1 : nd);
    if (shape == NULL) return NULL;
    for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(shape); d++) {
        PyObject *n = PyLong_FromSsize_t(dims[d]);
        if (n == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, d, n);
    }
    long long nbytes = 0;
    PyObject *out = empty(shape, (PyObject *)PyArray_DESCR(a), lse ? rows : rows * cols, &nbytes);
    Py_DECREF(shape);
    if (out == NULL) return NULL;
    if (!PyArray_Check(out) || (nbytes && count(memory_stats, s_allocated_bytes, nbytes))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "lazytensor: an output must be an ndarray");
        Py_DECREF(out);
        return NULL;
    }
    const intptr_t src = (intptr_t)PyArray_BYTES(a);
    const intptr_t dst = (intptr_t)PyArray_BYTES((PyArrayObject *)out);
    const int64_t row_bytes = cols * (int64_t)PyArray_ITEMSIZE(a);
    int status;
    if (rows * cols >= RELEASE_MIN) {
        evalstate_t saved;
        if (evallock_suspend(eval_lock, &saved)) {
            Py_DECREF(out);
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        status = run_rowwise(fns, rows, cols, src, row_bytes, dst, exact == Py_True, st.n_threads, st.path);
        Py_END_ALLOW_THREADS
        if (evallock_resume(eval_lock, &saved)) {
            Py_DECREF(out);
            return NULL;
        }
    } else {
        status = run_rowwise(fns, rows, cols, src, row_bytes, dst, exact == Py_True, st.n_threads, st.path);
    }
    if (status != 0) {
        PyObject *r = PyObject_CallFunction(check_status, "i", status);   /* raises */
        Py_XDECREF(r);
        Py_DECREF(out);
        return NULL;
    }
    return out;
}
