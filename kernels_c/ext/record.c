/* Recording the lean cases: binary, unary, where, result, leaf_tensor, and Tensor's operators in C.
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

static PyObject *new_tensor(PyObject *node)      /* steals `node` */
{
    if (node == NULL) return NULL;
    PyObject *t = tensor_type->tp_alloc(tensor_type, 0);
    if (t == NULL) {
        Py_DECREF(node);
        return NULL;
    }
    SLOT(t, off_tensor_node) = node;
    return t;
}

/* ---- the constants' identity memo --------------------------------------------------------
 * `x + 1` in a loop gives operand() the same int object each call (a code constant, a small
 * int): building and hashing the key tuple for fast_constants was about a tenth of a one-op
 * call.  A slot keeps a scalar and dtype met before (held, so no other object can take their
 * addresses) with the dict's node for them, while the dict is unchanged (its version tag);
 * a scalar is immutable, so the same object is the same key.  Only a shortcut: a miss looks
 * the dict up as before. */
#if PY_VERSION_HEX < 0x030C0000       /* ma_version_tag: deprecated in 3.12 */
#define CONST_MEMO_SLOTS 16
static struct {
    PyObject *scalar, *dtype, *node;
    uint64_t version;
} const_memo[CONST_MEMO_SLOTS];

static int const_memo_slot(PyObject *scalar, PyObject *dtype)
{
    const uintptr_t h = ((uintptr_t)scalar >> 4) * 31 + ((uintptr_t)dtype >> 4);
    return (int)((h * 0x9E3779B97F4A7C15u) >> 60);          /* 4 bits: 16 slots */
}

/* The dict's node for (scalar, dtype), borrowed, if the memo holds it; else NULL */
static PyObject *const_memo_get(PyObject *scalar, PyObject *dtype)
{
    const int s = const_memo_slot(scalar, dtype);
    if (const_memo[s].scalar != scalar || const_memo[s].dtype != dtype ||
        const_memo[s].version != ((PyDictObject *)fast_constants)->ma_version_tag)
        return NULL;
    return const_memo[s].node;
}

static void const_memo_put(PyObject *scalar, PyObject *dtype, PyObject *node)
{
    const int s = const_memo_slot(scalar, dtype);
    PyObject *old[3] = {const_memo[s].scalar, const_memo[s].dtype, const_memo[s].node};
    const_memo[s].scalar = Py_NewRef(scalar);
    const_memo[s].dtype = Py_NewRef(dtype);
    const_memo[s].node = Py_NewRef(node);
    const_memo[s].version = ((PyDictObject *)fast_constants)->ma_version_tag;
    for (int i = 0; i < 3; i++) Py_XDECREF(old[i]);
}

static void const_memo_clear(void)
{
    for (int s = 0; s < CONST_MEMO_SLOTS; s++) {
        Py_CLEAR(const_memo[s].scalar);
        Py_CLEAR(const_memo[s].dtype);
        Py_CLEAR(const_memo[s].node);
    }
}
#else
static PyObject *const_memo_get(PyObject *scalar, PyObject *dtype) { (void)scalar; (void)dtype; return NULL; }
static void const_memo_put(PyObject *s, PyObject *d, PyObject *n) { (void)s; (void)d; (void)n; }
static void const_memo_clear(void) {}
#endif

/* The operand node of op input `node` (a Tensor's node) or `scalar` (a Python int or float)
 * as `dtype`: the node itself, a cast node over it (recorded here; a constant's cast is
 * folded by Python), or the constant node of the scalar that Python keeps in
 * fast_constants under (type, value, dtype), a float zero under (float, "0.0" or "-0.0",
 * dtype) (0.0 == -0.0 as a dict key).  New reference; NULL without an error when Python
 * must make it, NULL with an error on failure. */
static PyObject *operand(PyObject *node, PyObject *scalar, PyObject *dtype)
{
    if (node != NULL) {
        if (SLOT(node, off_dtype) == dtype) return Py_NewRef(node);
        const int is_const = is_op(SLOT(node, off_op), s_const);
        if (is_const != 0) return NULL;           /* -1: its error is set */
        PyObject *inputs = PyTuple_Pack(1, node);
        if (inputs == NULL) return NULL;
        PyObject *cast = op_node(s_cast, inputs, empty_tuple, dtype, SLOT(node, off_shape));
        Py_DECREF(inputs);
        return cast;
    }
    PyObject *known = const_memo_get(scalar, dtype);
    if (known != NULL) return Py_NewRef(known);
    PyObject *value = scalar;
    if (PyFloat_CheckExact(scalar) && PyFloat_AS_DOUBLE(scalar) == 0.0)
        value = signbit(PyFloat_AS_DOUBLE(scalar)) ? s_negative_zero : s_zero;
    PyObject *key = PyTuple_Pack(3, (PyObject *)Py_TYPE(scalar), value, dtype);
    if (key == NULL) return NULL;
    PyObject *c = PyDict_GetItemWithError(fast_constants, key);
    Py_DECREF(key);
    if (c != NULL) const_memo_put(scalar, dtype, c);
    return Py_XNewRef(c);                          /* NULL: a miss, or the lookup's error */
}

static int is_scalar(PyObject *x)
{
    return PyFloat_CheckExact(x) || PyLong_CheckExact(x);
}

/* The signature (computation dtype, result dtype) of op `name` on operands of dtype or
 * scalar type `a` and `b` (NULL for a unary op), as fast_signatures holds it under the key
 * (name, a[, b]); 0 (no error) if it has none yet.  A small memo in front of the dict keeps
 * the items of keys met before (held, so no other object can take their addresses) with
 * their signature: making, hashing and comparing the key tuple was about a fifth of
 * recording an op.  A signature depends only on its key (the op table's promotion rules),
 * so the memo stays right when the dict is cleared.  Borrowed items, good until the next
 * call. */
#define SIG_MEMO_SLOTS 64
static struct { PyObject *name, *a, *b, *dtype, *out_dtype; } sig_memo[SIG_MEMO_SLOTS];

static int signature(PyObject *name, PyObject *a, PyObject *b, PyObject **dtype,
                     PyObject **out_dtype)
{
    const uintptr_t h = (((uintptr_t)name >> 4) * 31 + ((uintptr_t)a >> 4)) * 31 + ((uintptr_t)b >> 4);
    const int slot = (int)((h * 0x9E3779B97F4A7C15u) >> 58);       /* 6 bits: 64 slots */
    if (sig_memo[slot].name == name && sig_memo[slot].a == a && sig_memo[slot].b == b) {
        *dtype = sig_memo[slot].dtype;
        *out_dtype = sig_memo[slot].out_dtype;
        return 1;
    }
    PyObject *key = b ? PyTuple_Pack(3, name, a, b) : PyTuple_Pack(2, name, a);
    PyObject *sig = key ? PyDict_GetItemWithError(fast_signatures, key) : NULL;
    Py_XDECREF(key);
    if (sig == NULL || !PyTuple_CheckExact(sig) || PyTuple_GET_SIZE(sig) != 2) {
        PyErr_Clear();
        return 0;
    }
    PyObject *old[5] = {sig_memo[slot].name, sig_memo[slot].a, sig_memo[slot].b,
                        sig_memo[slot].dtype, sig_memo[slot].out_dtype};
    sig_memo[slot].name = Py_NewRef(name);
    sig_memo[slot].a = Py_NewRef(a);
    sig_memo[slot].b = Py_XNewRef(b);
    *dtype = sig_memo[slot].dtype = Py_NewRef(PyTuple_GET_ITEM(sig, 0));
    *out_dtype = sig_memo[slot].out_dtype = Py_NewRef(PyTuple_GET_ITEM(sig, 1));
    for (int i = 0; i < 5; i++) Py_XDECREF(old[i]);
    return 1;
}

/* The most elements of a broadcast shape made here: 2**63 - 1 bytes over the widest
 * itemsize (complex128).  A larger one goes to Python, which checks its bytes for the
 * result's dtype and names the op and the shape (_elementwise.LEAN_MAX_ELEMENTS). */
#define LEAN_MAX_ELEMENTS (INT64_MAX / 16)

/* The shape two shapes broadcast to (shapes.broadcast_shapes_cached for a pair), interned
 * (interned.c: the next call's key then holds the same tuple); NULL (no error) when they do
 * not broadcast, are not tuples of ints or make a shape of more than LEAN_MAX_ELEMENTS
 * elements: Python's path then decides.  New reference. */
static PyObject *broadcast_pair(PyObject *sa, PyObject *sb)
{
    long long elements = 1;                          /* of the nonzero dimensions */
    if (!PyTuple_CheckExact(sa) || !PyTuple_CheckExact(sb)) return NULL;
    Py_ssize_t na = PyTuple_GET_SIZE(sa), nb = PyTuple_GET_SIZE(sb), n = na > nb ? na : nb;
    Py_ssize_t dims[NPY_MAXDIMS];
    if (n > NPY_MAXDIMS) return NULL;
    for (Py_ssize_t d = 1; d <= n; d++) {            /* from the last dimension */
        PyObject *x = d <= na ? PyTuple_GET_ITEM(sa, na - d) : NULL;
        PyObject *y = d <= nb ? PyTuple_GET_ITEM(sb, nb - d) : NULL;
        if ((x && !PyLong_CheckExact(x)) || (y && !PyLong_CheckExact(y))) return NULL;
        long long mx = x ? PyLong_AsLongLong(x) : 1, my = y ? PyLong_AsLongLong(y) : 1;
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return NULL;
        }
        if (mx != 1 && my != 1 && my != mx) return NULL;
        const long long m = mx == 1 ? my : mx;
        if (m > 0 && elements > LEAN_MAX_ELEMENTS / m) return NULL;
        if (m > 0) elements *= m;
        dims[n - d] = (Py_ssize_t)m;
    }
    PyObject *out = interned_shape((int)n, dims);
    if (out == NULL) PyErr_Clear();
    return out;
}

/* Whether two shape tuples are equal (an error counts as not). */
static int same_shape(PyObject *a, PyObject *b)
{
    if (a == b) return 1;
    int same = PyObject_RichCompareBool(a, b, Py_EQ);
    if (same < 0) PyErr_Clear();
    return same == 1;
}

/* binary(name, a, b): record._python_binary. */
static PyObject *binary(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *made_shape = NULL;       /* a broadcast shape made here */
    if (nargs != 3 || tensor_type == NULL) goto python;
    PyObject *name = args[0], *a = args[1], *b = args[2];
    PyObject *na = NULL, *nb = NULL, *shape, *ka, *kb;     /* (name, ka, kb): the signature's key */
    if (lean_tensor(a)) {
        na = SLOT(a, off_tensor_node);
        shape = SLOT(na, off_shape);
        if (lean_tensor(b)) {
            nb = SLOT(b, off_tensor_node);
            PyObject *other = SLOT(nb, off_shape);
            if (!same_shape(other, shape)) {
                /* broadcasting: the result's shape, kept alive by the new node */
                shape = broadcast_pair(shape, other);
                if (shape == NULL) goto python;      /* Python raises the error */
                made_shape = shape;
            }
            ka = SLOT(na, off_dtype);
            kb = SLOT(nb, off_dtype);
        } else if (is_scalar(b)) {
            ka = SLOT(na, off_dtype);
            kb = (PyObject *)Py_TYPE(b);
        } else {
            goto python;
        }
    } else if (lean_tensor(b) && is_scalar(a)) {
        nb = SLOT(b, off_tensor_node);
        shape = SLOT(nb, off_shape);
        ka = (PyObject *)Py_TYPE(a);
        kb = SLOT(nb, off_dtype);
    } else {
        goto python;
    }
    PyObject *dtype, *out_dtype;
    if (!signature(name, ka, kb, &dtype, &out_dtype)) goto python;
    PyObject *oa = operand(na, a, dtype), *ob = oa ? operand(nb, b, dtype) : NULL;
    if (ob == NULL) {
        Py_XDECREF(oa);
        if (PyErr_Occurred()) {
            Py_XDECREF(made_shape);
            return NULL;
        }
        goto python;
    }
    PyObject *inputs = PyTuple_Pack(2, oa, ob);
    Py_DECREF(oa);
    Py_DECREF(ob);
    if (inputs == NULL) {
        Py_XDECREF(made_shape);
        return NULL;
    }
    PyObject *node = op_node(name, inputs, empty_tuple, out_dtype, shape);
    Py_DECREF(inputs);
    Py_XDECREF(made_shape);
    return new_tensor(node);
python:
    Py_XDECREF(made_shape);
    return PyObject_Vectorcall(py_binary, args, nargs, NULL);
}

/* ---- Tensor's arithmetic and comparison operators in C ----------------------------------
 * t + u, 2 * t, t < u...: the Python dunder (tensor_methods._dunders' forward and
 * reflected) is a frame around binary(); these method descriptors call binary() directly
 * when the other operand is a Tensor, an int or a float (exactly those types, as the Python
 * test does), and the Python dunder otherwise. */
#define LT_DUNDERS(X)                                                                       \
    X(0, "__add__", "add", 0) X(1, "__radd__", "add", 1)                                    \
    X(2, "__sub__", "subtract", 0) X(3, "__rsub__", "subtract", 1)                          \
    X(4, "__mul__", "multiply", 0) X(5, "__rmul__", "multiply", 1)                          \
    X(6, "__truediv__", "divide", 0) X(7, "__rtruediv__", "divide", 1)                      \
    X(8, "__lt__", "less", 0) X(9, "__le__", "less_equal", 0)                               \
    X(10, "__gt__", "greater", 0) X(11, "__ge__", "greater_equal", 0)                       \
    X(12, "__eq__", "equal", 0) X(13, "__ne__", "not_equal", 0)
#define LT_N_DUNDERS 14

static PyObject *dunder_op[LT_N_DUNDERS], *dunder_python[LT_N_DUNDERS];
static const int dunder_reflected[LT_N_DUNDERS] = {
#define LT_DUNDER_REFLECTED(k, dunder, op, reflected) reflected,
    LT_DUNDERS(LT_DUNDER_REFLECTED)
};

static PyObject *binary(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *dunder_call(int k, PyObject *self, PyObject *other)
{
    if (Py_TYPE(other) != tensor_type && !PyLong_CheckExact(other) && !PyFloat_CheckExact(other))
        return PyObject_CallFunctionObjArgs(dunder_python[k], self, other, NULL);
    PyObject *args[3] = {dunder_op[k], dunder_reflected[k] ? other : self,
                         dunder_reflected[k] ? self : other};
    return binary(NULL, args, 3);
}

#define LT_DUNDER_FN(k, dunder, op, reflected) \
    static PyObject *dunder_##k(PyObject *self, PyObject *other) { return dunder_call(k, self, other); }
LT_DUNDERS(LT_DUNDER_FN)

/* -t and abs(t): unary() straight from the slot (the Python methods were a lambda each) */
static PyObject *unary(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *dunder_neg(PyObject *self, PyObject *unused)
{
    PyObject *args[2] = {s_negative, self};
    return unary(NULL, args, 2);
}

static PyObject *dunder_abs(PyObject *self, PyObject *unused)
{
    PyObject *args[2] = {s_abs, self};
    return unary(NULL, args, 2);
}

static PyMethodDef dunder_methods[] = {
/* (the docstrings give the signatures inspect reads: the Array API's tests read them) */
#define LT_DUNDER_DEF(k, dunder, op, reflected)                                             \
    {dunder, dunder_##k, METH_O,                                                            \
     dunder "($self, other, /)\n--\n\nThe elementwise " op " (lazytensor." op ")."},
    LT_DUNDERS(LT_DUNDER_DEF)
    {NULL, NULL, 0, NULL},
};
static PyMethodDef unary_dunder_methods[] = {
    {"__neg__", dunder_neg, METH_NOARGS, "__neg__($self, /)\n--\n\nThe elementwise negative."},
    {"__abs__", dunder_abs, METH_NOARGS, "__abs__($self, /)\n--\n\nThe elementwise abs."},
    {NULL, NULL, 0, NULL},
};

/* setup_operators({dunder name: Python method}) -> {dunder name: method descriptor of Tensor}
 * for the binary operators above (each falling back to its Python method), and __neg__ and
 * __abs__ (unary() hands anything but its lean case to Python's unary). */
static PyObject *setup_operators(PyObject *self, PyObject *python)
{
    static const char *ops[LT_N_DUNDERS] = {
#define LT_DUNDER_OP(k, dunder, op, reflected) op,
        LT_DUNDERS(LT_DUNDER_OP)
    };
    if (tensor_type == NULL || !PyDict_Check(python)) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first, then a dict");
        return NULL;
    }
    PyObject *out = PyDict_New();
    for (int k = 0; out != NULL && k < LT_N_DUNDERS; k++) {
        PyObject *fallback = PyDict_GetItemString(python, dunder_methods[k].ml_name);
        PyObject *d = fallback ? PyDescr_NewMethod(tensor_type, &dunder_methods[k]) : NULL;
        if (fallback == NULL && !PyErr_Occurred())
            PyErr_Format(PyExc_KeyError, "no Python method %s", dunder_methods[k].ml_name);
        if (d == NULL || PyDict_SetItemString(out, dunder_methods[k].ml_name, d)) {
            Py_XDECREF(d);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(d);
        Py_XSETREF(dunder_python[k], Py_NewRef(fallback));
        Py_XSETREF(dunder_op[k], PyUnicode_InternFromString(ops[k]));
        if (dunder_op[k] == NULL) Py_CLEAR(out);
    }
    return add_tensor_methods(out, unary_dunder_methods);
}

/* unary(name, x): record._python_unary. */
static PyObject *unary(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || tensor_type == NULL || !lean_tensor(args[1])) goto python;
    PyObject *name = args[0], *node = SLOT(args[1], off_tensor_node);
    PyObject *dtype, *out_dtype;
    if (!signature(name, SLOT(node, off_dtype), NULL, &dtype, &out_dtype)) goto python;
    PyObject *input = operand(node, NULL, dtype);
    if (input == NULL) {
        if (PyErr_Occurred()) return NULL;
        goto python;
    }
    PyObject *inputs = PyTuple_Pack(1, input);
    Py_DECREF(input);
    if (inputs == NULL) return NULL;
    PyObject *made = op_node(name, inputs, empty_tuple, out_dtype, SLOT(node, off_shape));
    Py_DECREF(inputs);
    return new_tensor(made);
python:
    return PyObject_Vectorcall(py_unary, args, nargs, NULL);
}

/* where(condition, x1, x2): elementwise.where, in C for three Tensors of one shape, a bool
 * condition (the dtype object setup_where was given) and x1, x2 of one real dtype (the same
 * object); Python's where for anything else (it broadcasts, promotes and raises). */
static PyObject *py_where, *where_bool_dtype, *s_where;

static PyObject *setup_where(PyObject *self, PyObject *args)
{
    PyObject *fallback, *bool_dtype;
    if (!PyArg_ParseTuple(args, "OO", &fallback, &bool_dtype)) return NULL;
    if (tensor_type == NULL || !PyCallable_Check(fallback) || !PyArray_DescrCheck(bool_dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first, then (where, bool dtype)");
        return NULL;
    }
    if (s_where == NULL && (s_where = PyUnicode_InternFromString("where")) == NULL) return NULL;
    Py_XSETREF(py_where, Py_NewRef(fallback));
    Py_XSETREF(where_bool_dtype, Py_NewRef(bool_dtype));
    Py_RETURN_NONE;
}

/* where(c, x1, x2) in C: a bool condition and two tensors of one shape and one real dtype;
 * or one of x1, x2 a Python int or float and the other a real floating-point tensor of the
 * condition's shape (np.where(x > 0, x, 0)), the scalar's constant of the tensor's dtype (its
 * weak promotion) as Python's path keeps it in fast_constants.  Anything else, and a
 * constant Python has not made yet, goes to Python's where. */
static PyObject *where(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (py_where == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "where: setup_where() first");
        return NULL;
    }
    if (nargs != 3 || !lean_tensor(args[0])) goto python;
    PyObject *nc = SLOT(args[0], off_tensor_node);
    const int t1 = lean_tensor(args[1]), t2 = lean_tensor(args[2]);
    if (SLOT(nc, off_dtype) != where_bool_dtype || !(t1 || t2) ||
        (!t1 && !is_scalar(args[1])) || (!t2 && !is_scalar(args[2])))
        goto python;
    PyObject *tensor_node = SLOT(args[t1 ? 1 : 2], off_tensor_node);
    PyObject *dtype = SLOT(tensor_node, off_dtype), *shape = SLOT(tensor_node, off_shape);
    if (!PyArray_DescrCheck(dtype) || ((PyArray_Descr *)dtype)->kind == 'c' ||
        !same_shape(SLOT(nc, off_shape), shape))
        goto python;
    PyObject *n1, *n2;
    if (t1 && t2) {
        n2 = SLOT(args[2], off_tensor_node);
        if (SLOT(n2, off_dtype) != dtype || !same_shape(SLOT(n2, off_shape), shape))
            goto python;
        n1 = Py_NewRef(tensor_node);
        Py_INCREF(n2);
    } else {
        if (((PyArray_Descr *)dtype)->kind != 'f') goto python;
        PyObject *c = operand(NULL, args[t1 ? 2 : 1], dtype);
        if (c == NULL) {
            if (PyErr_Occurred()) return NULL;
            goto python;
        }
        n1 = t1 ? Py_NewRef(tensor_node) : c;
        n2 = t1 ? c : Py_NewRef(tensor_node);
    }
    PyObject *inputs = PyTuple_Pack(3, nc, n1, n2);
    Py_DECREF(n1);
    Py_DECREF(n2);
    if (inputs == NULL) return NULL;
    PyObject *node = op_node(s_where, inputs, empty_tuple, dtype, shape);
    Py_DECREF(inputs);
    return new_tensor(node);
python:
    return PyObject_Vectorcall(py_where, args, nargs, NULL);
}

/* replay(steps, source): _replay._replay, returning the Tensor.  A step is (op, attrs, dtype,
 * shape, operands); an operand is -1 (the source node), the index of an earlier step, or a
 * constant node. */
static PyObject *replay(PyObject *self, PyObject *args)
{
    PyObject *steps, *source;
    if (!PyArg_ParseTuple(args, "O!O", &PyTuple_Type, &steps, &source)) return NULL;
    if (tensor_type == NULL || Py_TYPE(source) != node_type) {
        PyErr_SetString(PyExc_TypeError, "replay: source must be a Node (after setup)");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(steps);
    PyObject *built = PyTuple_New(n);
    if (built == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *step = PyTuple_GET_ITEM(steps, i);
        PyObject *operands = PyTuple_GET_ITEM(step, 4);
        Py_ssize_t m = PyTuple_GET_SIZE(operands);
        PyObject *inputs = PyTuple_New(m);
        if (inputs == NULL) goto fail;
        for (Py_ssize_t k = 0; k < m; k++) {
            PyObject *r = PyTuple_GET_ITEM(operands, k), *x;
            if (PyLong_CheckExact(r)) {
                long at = PyLong_AsLong(r);
                x = at == -1 ? source : (at >= 0 && at < i) ? PyTuple_GET_ITEM(built, at) : NULL;
                if (x == NULL) {
                    Py_DECREF(inputs);
                    PyErr_SetString(PyExc_ValueError, "replay: bad operand");
                    goto fail;
                }
            } else {
                x = r;
            }
            PyTuple_SET_ITEM(inputs, k, Py_NewRef(x));
        }
        PyObject *node = op_node(PyTuple_GET_ITEM(step, 0), inputs, PyTuple_GET_ITEM(step, 1),
                                 PyTuple_GET_ITEM(step, 2), PyTuple_GET_ITEM(step, 3));
        Py_DECREF(inputs);
        if (node == NULL) goto fail;
        PyTuple_SET_ITEM(built, i, node);
    }
    PyObject *last = n ? PyTuple_GET_ITEM(built, n - 1) : source;
    PyObject *t = new_tensor(Py_NewRef(last));
    Py_DECREF(built);
    return t;
fail:
    Py_DECREF(built);
    return NULL;
}

/* result(name, inputs, dtype, shape): record._result, the tensor of a new (or shared)
 * op node without attributes. */
static PyObject *result(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || tensor_type == NULL || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "result(name, inputs, dtype, shape)");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[1]); i++)
        if (Py_TYPE(PyTuple_GET_ITEM(args[1], i)) != node_type) {
            PyErr_SetString(PyExc_TypeError, "result: inputs must be nodes");
            return NULL;
        }
    return new_tensor(op_node(args[0], args[1], empty_tuple, args[2], args[3]));
}

/* The attrs of a leaf over a read-only array of the caller's (source_tensor): views of it are
 * read-only views of that memory, never copies (views.py). */
static PyObject *read_only_source;

/* A Tensor on a new leaf node (_graph.leaf: op "leaf", no inputs, the array's dtype and shape,
 * the array as value) with `attrs`. */
static PyObject *new_leaf_tensor(PyObject *array, PyObject *attrs)
{
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_recording() first");
        return NULL;
    }
    const int exact = PyArray_CheckExact(array);    /* (a subclass's own attributes) */
    PyObject *dtype = exact ? Py_NewRef(PyArray_DESCR((PyArrayObject *)array))
                            : PyObject_GetAttr(array, s_dtype);
    PyObject *shape = NULL, *node = NULL;
    /* a byte-swapped array (a caller's, read fresh at each evaluation): the native dtype */
    if (dtype != NULL && PyArray_Check(array) && PyArray_ISBYTESWAPPED((PyArrayObject *)array) &&
        PyArray_DescrCheck(dtype) && PyTypeNum_ISNUMBER(((PyArray_Descr *)dtype)->type_num))
        Py_SETREF(dtype, (PyObject *)PyArray_DescrFromType(((PyArray_Descr *)dtype)->type_num));
    /* an ndarray's shape interned: a view made per call then keys as the one before */
    if (dtype != NULL && exact)
        shape = interned_shape(PyArray_NDIM((PyArrayObject *)array),
                               PyArray_DIMS((PyArrayObject *)array));
    else if (dtype != NULL)
        shape = PyObject_GetAttr(array, s_shape);
    if (shape != NULL && !PyTuple_CheckExact(shape))
        PyErr_SetString(PyExc_TypeError, "leaf_tensor: not a NumPy array");
    else if (shape != NULL)
        node = new_node(s_leaf, empty_tuple, attrs, dtype, shape, array, Py_None, Py_None);
    Py_XDECREF(dtype);
    Py_XDECREF(shape);
    return new_tensor(node);
}

/* leaf_tensor(array): Tensor._from_array for a NumPy array. */
static PyObject *leaf_tensor(PyObject *self, PyObject *array)
{
    return new_leaf_tensor(array, empty_tuple);
}

/* source_tensor(array): leaf_tensor for a caller's array given without a copy (asarray); a
 * read-only one's leaf has the attrs READ_ONLY_SOURCE. */
static PyObject *source_tensor(PyObject *self, PyObject *array)
{
    if (read_only_source == NULL &&
        (read_only_source = Py_BuildValue("(s)", "read-only source")) == NULL)
        return NULL;
    const int read_only = PyArray_Check(array) && !PyArray_ISWRITEABLE((PyArrayObject *)array);
    return new_leaf_tensor(array, read_only ? read_only_source : empty_tuple);
}
