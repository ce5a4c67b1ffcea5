/* Interned shapes and layouts: the same tuple object for the same shape, and for the same
 * (shape, strides, dtype) layout of a value.
 * Part of lt_fastpath.c (included there, in this order: one translation unit).
 *
 * The quick table's identity memo (quick.c) matches a key item by item by identity.  A leaf
 * kept between calls gives its key the same tuples each time, but a view made afresh per call
 * (x[1:] - x[:-1], X.T + Y) or a broadcast result shape had new tuples: the memo missed and
 * the key was hashed and compared through the dict at every call.  Small direct-mapped
 * caches hand out one tuple per shape and per layout instead.  A slot holds its tuple (and
 * the objects its identity test uses), so no other object can take their addresses; a
 * colliding shape replaces the slot's.  Equal tuples either way: only a shortcut. */

#define INTERN_SLOTS 128         /* per cache, a power of two */
#define INTERN_DIMS 8            /* shapes of more dimensions are made afresh */

typedef struct {
    int nd;                      /* (an empty slot: tuple NULL) */
    Py_ssize_t v[INTERN_DIMS];   /* the dimensions, or the strides */
    PyObject *shape, *dtype;     /* a layout's (held): compared by identity */
    PyObject *tuple;             /* held */
} intern_slot_t;

static intern_slot_t shape_slots[INTERN_SLOTS], layout_slots[INTERN_SLOTS];

static intern_slot_t *intern_slot(intern_slot_t *slots, int nd, const Py_ssize_t *v,
                                  const void *a, const void *b)
{
    uint64_t h = (uint64_t)nd ^ ((uintptr_t)a >> 4) ^ ((uintptr_t)b << 7);
    for (int d = 0; d < nd; d++) h = (h ^ (uint64_t)v[d]) * 0x9E3779B97F4A7C15u;
    return &slots[(h >> 40) & (INTERN_SLOTS - 1)];
}

static int intern_same(const intern_slot_t *s, int nd, const Py_ssize_t *v, PyObject *shape,
                       PyObject *dtype)
{
    return s->tuple != NULL && s->nd == nd && s->shape == shape && s->dtype == dtype &&
           (nd == 0 || memcmp(s->v, v, (size_t)nd * sizeof *v) == 0);
}

static void intern_keep(intern_slot_t *s, int nd, const Py_ssize_t *v, PyObject *shape,
                        PyObject *dtype, PyObject *tuple)
{
    Py_XSETREF(s->tuple, Py_NewRef(tuple));
    Py_XSETREF(s->shape, Py_XNewRef(shape));
    Py_XSETREF(s->dtype, Py_XNewRef(dtype));
    s->nd = nd;
    if (nd > 0) memcpy(s->v, v, (size_t)nd * sizeof *v);
}

static PyObject *int_tuple(int nd, const Py_ssize_t *v)
{
    PyObject *t = PyTuple_New(nd);
    for (int d = 0; t != NULL && d < nd; d++) {
        PyObject *x = PyLong_FromSsize_t(v[d]);
        if (x == NULL) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, d, x);
    }
    return t;
}

/* The shape tuple of `nd` dimensions `dims`.  New reference. */
static PyObject *interned_shape(int nd, const Py_ssize_t *dims)
{
    if (nd > INTERN_DIMS) return int_tuple(nd, dims);
    intern_slot_t *s = intern_slot(shape_slots, nd, dims, NULL, NULL);
    if (intern_same(s, nd, dims, NULL, NULL)) return Py_NewRef(s->tuple);
    PyObject *t = int_tuple(nd, dims);
    if (t != NULL) intern_keep(s, nd, dims, NULL, NULL, t);
    return t;
}

/* The layout tuple (shape, strides, dtype) of a value: `shape` and `dtype` the node's
 * objects, `strides` its `nd` strides in bytes.  New reference. */
static PyObject *interned_layout(PyObject *shape, int nd, const Py_ssize_t *strides,
                                 PyObject *dtype)
{
    intern_slot_t *s = nd > INTERN_DIMS ? NULL
                                        : intern_slot(layout_slots, nd, strides, shape, dtype);
    if (s != NULL && intern_same(s, nd, strides, shape, dtype)) return Py_NewRef(s->tuple);
    PyObject *st = int_tuple(nd, strides);
    PyObject *t = st == NULL ? NULL : PyTuple_Pack(3, shape, st, dtype);
    Py_XDECREF(st);
    if (t != NULL && s != NULL) intern_keep(s, nd, strides, shape, dtype, t);
    return t;
}

static void intern_clear_slots(intern_slot_t *slots)
{
    for (int k = 0; k < INTERN_SLOTS; k++) {
        Py_CLEAR(slots[k].tuple);
        Py_CLEAR(slots[k].shape);
        Py_CLEAR(slots[k].dtype);
    }
}

/* (clear_memos: lt.empty_cache lets go of them too) */
static void intern_clear(void)
{
    intern_clear_slots(shape_slots);
    intern_clear_slots(layout_slots);
}
