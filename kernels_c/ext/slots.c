/* Tensor's type slots for its C operators: t + u, t < u, -t, t[key] without the method
 * lookup of CPython's generic slots.
 * Part of lt_fastpath.c (included there, in this order: one translation unit).
 *
 * Tensor is a Python class whose operators are the method descriptors of record.c and
 * views.c.  For a class, CPython fills each type slot (nb_add, tp_richcompare,
 * mp_subscript...) with a generic function that looks the method up on the type and calls
 * it: a lookup and two calls per operator, about a sixth of recording an op.  install_slots()
 * puts functions of this file in those slots once the methods are set.  Each takes its lean
 * case (exact Tensors, ints and floats, as the methods' own test) straight to the method's C
 * function, and follows CPython's protocol for anything else: the same methods are called in
 * the same order.  Setting one of these methods on Tensor later (a test's monkeypatch) makes
 * CPython put its generic slot back; subclasses get CPython's slots of their own. */

/* `name` looked up on type(obj) and called with (obj, arg): NotImplemented when the type has
 * no such attribute (CPython's vectorcall_maybe). */
static PyObject *call_special(PyObject *obj, PyObject *name, PyObject *arg)
{
    PyObject *f = _PyType_Lookup(Py_TYPE(obj), name);      /* borrowed */
    if (f == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    Py_INCREF(f);
    PyObject *r;
    if (PyType_HasFeature(Py_TYPE(f), Py_TPFLAGS_METHOD_DESCRIPTOR)) {
        PyObject *args[2] = {obj, arg};
        r = PyObject_Vectorcall(f, args, 2, NULL);
    } else {
        descrgetfunc get = Py_TYPE(f)->tp_descr_get;
        PyObject *bound = get ? get(f, obj, (PyObject *)Py_TYPE(obj)) : Py_NewRef(f);
        r = bound ? PyObject_CallOneArg(bound, arg) : NULL;
        Py_XDECREF(bound);
    }
    Py_DECREF(f);
    return r;
}

/* Whether type(right) has another `name` than type(left) (CPython's method_is_overloaded):
 * 1, 0, or -1 on error. */
static int overloaded(PyObject *left, PyObject *right, PyObject *name)
{
    PyObject *b = PyObject_GetAttr((PyObject *)Py_TYPE(right), name), *a;
    if (b == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
        return 0;
    }
    a = PyObject_GetAttr((PyObject *)Py_TYPE(left), name);
    if (a == NULL) {
        Py_DECREF(b);
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
        return 1;
    }
    const int ne = PyObject_RichCompareBool(a, b, Py_NE);
    Py_DECREF(a);
    Py_DECREF(b);
    return ne;
}

/* The binary operators: forward dunder k, reflected dunder k + 1 (LT_DUNDERS' order) */
#define LT_SLOTTED(X)                                                                       \
    X(0, nb_add) X(2, nb_subtract) X(4, nb_multiply) X(6, nb_true_divide)
#define LT_N_SLOTTED 4

static binaryfunc generic_binary[LT_N_SLOTTED];   /* CPython's slots these replaced */
static PyObject *dunder_name[LT_N_DUNDERS];        /* "__add__", "__radd__"... interned */

/* Whether a type's slot is Tensor's: this file's function or the generic one it replaced */
#define TENSOR_SLOT(type, slot, j, fn)                                                      \
    ((type)->tp_as_number != NULL &&                                                        \
     ((type)->tp_as_number->slot == (fn) || (type)->tp_as_number->slot == generic_binary[j]))

/* CPython's generic binary slot (SLOT1BINFULL) with Tensor's slot as the one it tests for */
static PyObject *binary_protocol(int k, int tensor_self, int tensor_other, PyObject *self,
                                 PyObject *other)
{
    int do_other = Py_TYPE(self) != Py_TYPE(other) && tensor_other;
    if (tensor_self) {
        if (do_other && PyType_IsSubtype(Py_TYPE(other), Py_TYPE(self))) {
            const int ok = overloaded(self, other, dunder_name[k + 1]);
            if (ok < 0) return NULL;
            if (ok) {
                PyObject *r = call_special(other, dunder_name[k + 1], self);
                if (r != Py_NotImplemented) return r;
                Py_DECREF(r);
                do_other = 0;
            }
        }
        PyObject *r = call_special(self, dunder_name[k], other);
        if (r != Py_NotImplemented || Py_TYPE(other) == Py_TYPE(self)) return r;
        Py_DECREF(r);
    }
    if (do_other) return call_special(other, dunder_name[k + 1], self);
    Py_RETURN_NOTIMPLEMENTED;
}

static int lean_other(PyObject *x)
{
    return Py_TYPE(x) == tensor_type || PyLong_CheckExact(x) || PyFloat_CheckExact(x);
}

#define LT_SLOT_FN(k, slot)                                                                 \
    static PyObject *slot_##slot(PyObject *a, PyObject *b)                                  \
    {                                                                                       \
        if (Py_TYPE(a) == tensor_type && lean_other(b)) return dunder_call(k, a, b);        \
        if (Py_TYPE(b) == tensor_type && (PyLong_CheckExact(a) || PyFloat_CheckExact(a)))   \
            return dunder_call(k + 1, b, a);                                                \
        return binary_protocol(k, TENSOR_SLOT(Py_TYPE(a), slot, k / 2, slot_##slot),        \
                               TENSOR_SLOT(Py_TYPE(b), slot, k / 2, slot_##slot), a, b);    \
    }
LT_SLOTTED(LT_SLOT_FN)

/* t < u...: the comparisons' dunders (LT_DUNDERS 8-13) by rich-comparison op */
static richcmpfunc generic_richcompare;
static PyObject *slot_richcompare(PyObject *self, PyObject *other, int op)
{
    static const int dunder_of_op[6] = {[Py_LT] = 8, [Py_LE] = 9, [Py_EQ] = 12,
                                        [Py_NE] = 13, [Py_GT] = 10, [Py_GE] = 11};
    if (Py_TYPE(self) == tensor_type && lean_other(other) && op >= 0 && op < 6)
        return dunder_call(dunder_of_op[op], self, other);
    return generic_richcompare(self, other, op);
}

static binaryfunc generic_subscript;
static PyObject *slot_subscript(PyObject *self, PyObject *key)
{
    if (Py_TYPE(self) == tensor_type) return tensor_getitem(self, key);
    return generic_subscript(self, key);
}

static unaryfunc generic_negative, generic_absolute;
static PyObject *slot_negative(PyObject *self)
{
    return Py_TYPE(self) == tensor_type ? dunder_neg(self, NULL) : generic_negative(self);
}
static PyObject *slot_absolute(PyObject *self)
{
    return Py_TYPE(self) == tensor_type ? dunder_abs(self, NULL) : generic_absolute(self);
}

/* install_slots(): put the functions above in Tensor's slots, once Tensor's operators are
 * this module's methods (setup_operators, setup_views): Tensor's own dict is checked, so
 * a slot never bypasses another method. */
static PyObject *install_slots(PyObject *self, PyObject *unused)
{
    static const char *names[LT_N_DUNDERS] = {
#define LT_DUNDER_NAME(k, dunder, op, reflected) dunder,
        LT_DUNDERS(LT_DUNDER_NAME)
    };
    if (tensor_type == NULL || tensor_type->tp_as_number == NULL ||
        tensor_type->tp_as_mapping == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "install_slots: setup_recording() first");
        return NULL;
    }
    PyObject *dict = tensor_type->tp_dict;
    for (int k = 0; k < LT_N_DUNDERS; k++) {
        if (dunder_name[k] == NULL && (dunder_name[k] = PyUnicode_InternFromString(names[k])) == NULL)
            return NULL;
        PyObject *m = PyDict_GetItemWithError(dict, dunder_name[k]);
        if (m == NULL || !PyObject_TypeCheck(m, &PyMethodDescr_Type) ||
            ((PyMethodDescrObject *)m)->d_method->ml_meth != (PyCFunction)dunder_methods[k].ml_meth)
            goto not_ours;
    }
    const char *others[3] = {"__getitem__", "__neg__", "__abs__"};
    const PyCFunction fns[3] = {(PyCFunction)tensor_getitem, dunder_neg, dunder_abs};
    for (int k = 0; k < 3; k++) {
        PyObject *m = PyDict_GetItemString(dict, others[k]);
        if (m == NULL || !PyObject_TypeCheck(m, &PyMethodDescr_Type) ||
            ((PyMethodDescrObject *)m)->d_method->ml_meth != fns[k])
            goto not_ours;
    }
    PyNumberMethods *nb = tensor_type->tp_as_number;
#define LT_SLOT_SET(k, slot)                                                                \
    if (nb->slot != slot_##slot) {                                                          \
        generic_binary[k / 2] = nb->slot;                                                   \
        nb->slot = slot_##slot;                                                             \
    }
    LT_SLOTTED(LT_SLOT_SET)
    if (tensor_type->tp_richcompare != slot_richcompare) {
        generic_richcompare = tensor_type->tp_richcompare;
        tensor_type->tp_richcompare = slot_richcompare;
    }
    if (tensor_type->tp_as_mapping->mp_subscript != slot_subscript) {
        generic_subscript = tensor_type->tp_as_mapping->mp_subscript;
        tensor_type->tp_as_mapping->mp_subscript = slot_subscript;
    }
    if (nb->nb_negative != slot_negative) {
        generic_negative = nb->nb_negative;
        nb->nb_negative = slot_negative;
    }
    if (nb->nb_absolute != slot_absolute) {
        generic_absolute = nb->nb_absolute;
        nb->nb_absolute = slot_absolute;
    }
    Py_RETURN_NONE;
not_ours:
    if (PyErr_Occurred()) return NULL;
    PyErr_SetString(PyExc_RuntimeError, "install_slots: Tensor's operators are not this "
                    "module's methods (setup_operators and setup_views first)");
    return NULL;
}

/* slots_installed() -> whether every slot above is this file's (a test's check) */
static PyObject *slots_installed(PyObject *self, PyObject *unused)
{
    if (tensor_type == NULL || tensor_type->tp_as_number == NULL) Py_RETURN_FALSE;
    const PyNumberMethods *nb = tensor_type->tp_as_number;
    int all = tensor_type->tp_richcompare == slot_richcompare &&
              tensor_type->tp_as_mapping->mp_subscript == slot_subscript &&
              nb->nb_negative == slot_negative && nb->nb_absolute == slot_absolute;
#define LT_SLOT_IS(k, slot) all &= nb->slot == slot_##slot;
    LT_SLOTTED(LT_SLOT_IS)
    return PyBool_FromLong(all);
}
