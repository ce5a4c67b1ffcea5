/* The walks of a pending DAG and the keys they build: the single group computing a node
 * (walk, group_key) and an evaluation's whole pending DAG (topo_order, plan_key,
 * structure_key).  The one implementation of each: the quick paths use them, and Python's
 * evaluate.py calls them on a miss to plan what it then keeps under the same key.
 * Part of lt_fastpath.c (included there, in this order: one translation unit). */

/* ---- scratch space: growable arrays and a map of node pointers, on the C stack while small */

#define SMALL_NODES 64

static PyObject *rows_module, *s_plan, *s_enabled, *s_block_elements, *s_min_elements;

typedef struct {
    PyObject **at;
    int n, cap;
    PyObject *small[SMALL_NODES];
} nodevec_t;

static void nodevec_init(nodevec_t *v)
{
    v->at = v->small;
    v->n = 0;
    v->cap = SMALL_NODES;
}

static void nodevec_free(nodevec_t *v)
{
    if (v->at != v->small) PyMem_Free(v->at);
    nodevec_init(v);
}

static int nodevec_push(nodevec_t *v, PyObject *node)
{
    if (v->n == v->cap) {
        const int cap = 2 * v->cap;
        PyObject **at = PyMem_Malloc(cap * sizeof *at);
        if (at == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(at, v->at, v->n * sizeof *at);
        if (v->at != v->small) PyMem_Free(v->at);
        v->at = at;
        v->cap = cap;
    }
    v->at[v->n++] = node;
    return 0;
}

/* node -> long, open addressing over the pointers (no references held) */
typedef struct {
    PyObject **keys;
    long *vals;
    size_t mask;
    int n;
    PyObject *small_keys[2 * SMALL_NODES];
    long small_vals[2 * SMALL_NODES];
} nodemap_t;

#define NOT_IN_MAP LONG_MIN

static void nodemap_init(nodemap_t *m)
{
    m->keys = m->small_keys;
    m->vals = m->small_vals;
    m->mask = 2 * SMALL_NODES - 1;
    m->n = 0;
    memset(m->small_keys, 0, sizeof m->small_keys);
}

static void nodemap_free(nodemap_t *m)
{
    if (m->keys != m->small_keys) {
        PyMem_Free(m->keys);
        PyMem_Free(m->vals);
    }
    m->keys = m->small_keys;
    m->vals = m->small_vals;
}

static size_t nodemap_slot(const nodemap_t *m, PyObject *node)
{
    size_t i = (size_t)(((uintptr_t)node >> 4) * 0x9E3779B97F4A7C15u >> 32) & m->mask;
    while (m->keys[i] != NULL && m->keys[i] != node) i = (i + 1) & m->mask;
    return i;
}

static long nodemap_get(const nodemap_t *m, PyObject *node)
{
    const size_t i = nodemap_slot(m, node);
    return m->keys[i] == NULL ? NOT_IN_MAP : m->vals[i];
}

static int nodemap_put(nodemap_t *m, PyObject *node, long value)
{
    if (2 * (size_t)(m->n + 1) > m->mask + 1) {        /* keep it at most half full */
        const size_t size = 2 * (m->mask + 1);
        PyObject **keys = PyMem_Calloc(size, sizeof *keys), **old_keys = m->keys;
        long *vals = PyMem_Malloc(size * sizeof *vals), *old_vals = m->vals;
        if (keys == NULL || vals == NULL) {
            PyMem_Free(keys);
            PyMem_Free(vals);
            PyErr_NoMemory();
            return -1;
        }
        const size_t old_size = m->mask + 1;
        m->keys = keys;
        m->vals = vals;
        m->mask = size - 1;
        for (size_t i = 0; i < old_size; i++)
            if (old_keys[i] != NULL) {
                const size_t j = nodemap_slot(m, old_keys[i]);
                m->keys[j] = old_keys[i];
                m->vals[j] = old_vals[i];
            }
        if (old_keys != m->small_keys) {
            PyMem_Free(old_keys);
            PyMem_Free(old_vals);
        }
    }
    const size_t i = nodemap_slot(m, node);
    if (m->keys[i] == NULL) m->n++;
    m->keys[i] = node;
    m->vals[i] = value;
    return 0;
}

/* The layout a key holds for a node with a value (layout_made's); `cold`: for a value the
 * quick paths leave to Python (misaligned, byte-swapped: read through a copy), the layout of
 * that copy, from kernel.operand_layout.  NULL with no error: not here (the quick paths). */
static PyObject *layout_key(PyObject *node, int cold)
{
    PyObject *layout = layout_made(node);
    if (layout != NULL || PyErr_Occurred() || !cold) return layout;
    return PyObject_CallMethod(kernel_module, "operand_layout", "O", node);
}

static int append_new(PyObject *list, PyObject *item)      /* steals `item` */
{
    if (item == NULL) return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

/* ---- the single group computing a node ------------------------------------------------- */

/* The walk of the one group computing `root`: its members inputs-first (iterative
 * post-order), its inputs numbered in the order first read, and the flat key: the output
 * shape, then for each member its op, attributes, dtype, mode and operands (members by
 * number, inputs by negative number), with each input's layout where it is first read.
 * Equal keys mean equal kernels.  1 when the pending part of `root`'s DAG is one group (all
 * of `root`'s shape, no reduction, within the group caps), 0 when not (or, unless `cold`, an
 * input is one the quick paths leave to Python), -1 on error.  `members` may be NULL. */
static int walk(PyObject *root, PyObject *key, nodevec_t *inputs, nodevec_t *members, int cold)
{
    nodemap_t ref;                /* node -> member number, or -1 - input number */
    nodevec_t stack;
    nodemap_init(&ref);
    nodevec_init(&stack);
    int n_members = 0, r = -1;
    PyObject *shape = SLOT(root, off_shape);
    if (PyList_Append(key, shape) || nodevec_push(&stack, root)) goto done;
    while (stack.n > 0) {
        PyObject *node = stack.at[stack.n - 1];
        if (nodemap_get(&ref, node) != NOT_IN_MAP) {   /* shared: finished through another */
            stack.n--;
            continue;
        }
        PyObject *ins = SLOT(node, off_inputs);
        if (ins == NULL || !PyTuple_CheckExact(ins)) goto not_one;
        int ready = 1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ins); i++) {
            PyObject *x = PyTuple_GET_ITEM(ins, i);
            if (Py_TYPE(x) != node_type) goto not_one;
            if (nodemap_get(&ref, x) != NOT_IN_MAP) continue;
            if (SLOT(x, off_value) != Py_None) {
                PyObject *layout = layout_key(x, cold);
                if (layout == NULL) {
                    if (PyErr_Occurred()) goto done;
                    goto not_one;
                }
                const int bad = append_new(key, layout) ||
                                nodemap_put(&ref, x, -1 - inputs->n) || nodevec_push(inputs, x);
                if (bad) goto done;
            } else {
                PyObject *x_op = SLOT(x, off_op);
                const int reduce = x_op == NULL ? 0 : is_op(x_op, s_reduce);
                if (reduce < 0) goto done;
                if (reduce) goto not_one;            /* not one group */
                ready = 0;
                if (nodevec_push(&stack, x)) goto done;
            }
        }
        if (!ready) continue;
        stack.n--;
        PyObject *op = SLOT(node, off_op), *node_shape = SLOT(node, off_shape);
        if (op == NULL || node_shape == NULL) goto not_one;
        const int same = node_shape == shape ? 1 : PyObject_RichCompareBool(node_shape, shape, Py_EQ);
        if (same < 0) goto done;
        const int reduce = is_op(op, s_reduce);
        if (reduce < 0) goto done;
        if (reduce || !same || n_members >= max_group_nodes) goto not_one;
        if (nodemap_put(&ref, node, n_members++) ||
            (members != NULL && nodevec_push(members, node)) ||
            PyList_Append(key, op) || PyList_Append(key, SLOT(node, off_attrs)) ||
            PyList_Append(key, SLOT(node, off_dtype)) || PyList_Append(key, SLOT(node, off_exact)))
            goto done;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ins); i++)
            if (append_new(key, PyLong_FromLong(nodemap_get(&ref, PyTuple_GET_ITEM(ins, i)))))
                goto done;
    }
    r = inputs->n <= max_group_inputs;
    goto done;
not_one:
    r = 0;
done:
    nodemap_free(&ref);
    nodevec_free(&stack);
    return r;
}

/* group_key(root) -> (key, members, inputs) or None: the quick table's key of the one group
 * computing `root` (a reduction's: of its input, then ("reduce", attrs, dtype)); for a
 * reduction of a value no members and that value the one input.  None when the pending DAG
 * is not one group: evaluate() partitions it. */
static PyObject *group_key(PyObject *self, PyObject *root)
{
    if (node_type == NULL || Py_TYPE(root) != node_type) {
        PyErr_SetString(PyExc_TypeError, "group_key(node)");
        return NULL;
    }
    const int reduction = is_op(SLOT(root, off_op), s_reduce);
    if (reduction < 0) return NULL;
    PyObject *top = root;
    if (reduction) {
        PyObject *ins = SLOT(root, off_inputs);
        if (!PyTuple_CheckExact(ins) || PyTuple_GET_SIZE(ins) != 1) Py_RETURN_NONE;
        top = PyTuple_GET_ITEM(ins, 0);
        if (Py_TYPE(top) != node_type) Py_RETURN_NONE;
    }
    nodevec_t inputs, members;
    nodevec_init(&inputs);
    nodevec_init(&members);
    PyObject *key = key_list(KEY_ROOM), *out = NULL;
    int walked = -1;
    if (key == NULL) goto done;
    if (SLOT(top, off_value) != Py_None) {      /* a reduction of a value: one input */
        walked = PyList_Append(key, SLOT(top, off_shape)) ||
                 append_new(key, layout_key(top, 1)) || nodevec_push(&inputs, top) ? -1 : 1;
    } else {
        walked = walk(top, key, &inputs, &members, 1);
    }
    if (walked == 1 && reduction &&
        (PyList_Append(key, s_reduce) || PyList_Append(key, SLOT(root, off_attrs)) ||
         PyList_Append(key, SLOT(root, off_dtype))))
        walked = -1;
    if (walked == 0) out = Py_NewRef(Py_None);
    if (walked != 1) goto done;
    PyObject *key_tuple = PyList_AsTuple(key);
    PyObject *m = PyList_New(members.n), *i = PyList_New(inputs.n);
    if (key_tuple != NULL && m != NULL && i != NULL) {
        for (int k = 0; k < members.n; k++) PyList_SET_ITEM(m, k, Py_NewRef(members.at[k]));
        for (int k = 0; k < inputs.n; k++) PyList_SET_ITEM(i, k, Py_NewRef(inputs.at[k]));
        out = PyTuple_Pack(3, key_tuple, m, i);
    }
    Py_XDECREF(key_tuple);
    Py_XDECREF(m);
    Py_XDECREF(i);
done:
    Py_XDECREF(key);
    nodevec_free(&inputs);
    nodevec_free(&members);
    return out;
}

/* ---- an evaluation's pending DAG --------------------------------------------------------- */

/* The nodes without a value that `roots` (a list) depend on, inputs before consumers
 * (iterative depth-first post-order; nodes with a value are boundaries, not listed), into
 * `order`, with each one's position in `index`.  0, or -1 on error. */
static int topo_order(PyObject *roots, nodevec_t *order, nodemap_t *index)
{
    nodevec_t stack;              /* a node whose inputs are listed has its low bit set */
    nodevec_init(&stack);
    int r = -1;
    for (Py_ssize_t i = PyList_GET_SIZE(roots) - 1; i >= 0; i--) {
        PyObject *node = PyList_GET_ITEM(roots, i);
        if (Py_TYPE(node) != node_type) {
            PyErr_Format(PyExc_TypeError, "an evaluation's root is a %.100s, not a Node",
                         Py_TYPE(node)->tp_name);
            goto done;
        }
        if (SLOT(node, off_value) == Py_None && nodevec_push(&stack, node)) goto done;
    }
    while (stack.n > 0) {
        PyObject *node = stack.at[--stack.n];
        if ((uintptr_t)node & 1) {
            node = (PyObject *)((uintptr_t)node - 1);
            if (nodemap_put(index, node, order->n) || nodevec_push(order, node)) goto done;
            continue;
        }
        if (nodemap_get(index, node) != NOT_IN_MAP) continue;
        if (nodemap_put(index, node, -1) ||      /* seen; its position when listed */
            nodevec_push(&stack, (PyObject *)((uintptr_t)node + 1)))
            goto done;
        PyObject *ins = SLOT(node, off_inputs);
        if (!PyTuple_CheckExact(ins)) {
            PyErr_SetString(PyExc_TypeError, "a node's inputs are not a tuple");
            goto done;
        }
        for (Py_ssize_t i = PyTuple_GET_SIZE(ins) - 1; i >= 0; i--) {
            PyObject *x = PyTuple_GET_ITEM(ins, i);
            if (Py_TYPE(x) != node_type) {
                PyErr_SetString(PyExc_TypeError, "a node's input is not a Node");
                goto done;
            }
            if (SLOT(x, off_value) == Py_None && nodemap_get(index, x) == NOT_IN_MAP &&
                nodevec_push(&stack, x))
                goto done;
        }
    }
    r = 0;
done:
    nodevec_free(&stack);
    return r;
}

/* The flat key of the pending DAG `order` computing `roots`: the settings that decide
 * evaluation by rows, then per node its op, attributes, dtype, mode, shape and operands
 * (pending nodes by position, leaves by negative number, each leaf's layout where first
 * read), then the position of each root (-1: it has a value).  The leaves go to `leaves`
 * in the order first read.  1, 0 when a leaf is one the quick paths leave to Python (unless
 * `cold`), or -1 on error. */
static int plan_key(PyObject *roots, const nodevec_t *order, const nodemap_t *index,
                    PyObject *key, nodevec_t *leaves, int cold)
{
    nodemap_t leaf_number;
    nodemap_init(&leaf_number);
    int r = -1;
    if (PyList_Append(key, s_plan) ||
        append_new(key, PyObject_GetAttr(rows_module, s_enabled)) ||
        append_new(key, PyObject_GetAttr(rows_module, s_block_elements)) ||
        append_new(key, PyObject_GetAttr(rows_module, s_min_elements)))
        goto done;
    for (int i = 0; i < order->n; i++) {
        PyObject *node = order->at[i], *ins = SLOT(node, off_inputs);
        const Py_ssize_t m = PyTuple_GET_SIZE(ins);
        PyObject *refs = PyTuple_New(m);
        if (refs == NULL) goto done;
        for (Py_ssize_t k = 0; k < m; k++) {
            PyObject *x = PyTuple_GET_ITEM(ins, k);
            long at = SLOT(x, off_value) == Py_None ? nodemap_get(index, x) : NOT_IN_MAP;
            if (at == NOT_IN_MAP) {
                at = nodemap_get(&leaf_number, x);
                if (at == NOT_IN_MAP) {
                    PyObject *layout = layout_key(x, cold);
                    at = -1 - leaves->n;
                    if (layout == NULL || append_new(key, layout) ||
                        nodemap_put(&leaf_number, x, at) || nodevec_push(leaves, x)) {
                        Py_DECREF(refs);
                        if (PyErr_Occurred()) goto done;
                        r = 0;
                        goto done;
                    }
                }
            }
            PyObject *ref = PyLong_FromLong(at);
            if (ref == NULL) {
                Py_DECREF(refs);
                goto done;
            }
            PyTuple_SET_ITEM(refs, k, ref);
        }
        PyObject *entry = PyTuple_Pack(6, SLOT(node, off_op), SLOT(node, off_attrs),
                                       SLOT(node, off_dtype), SLOT(node, off_exact),
                                       SLOT(node, off_shape), refs);
        Py_DECREF(refs);
        if (append_new(key, entry)) goto done;
    }
    const Py_ssize_t n = PyList_GET_SIZE(roots);
    PyObject *requested = PyTuple_New(n);
    if (requested == NULL) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *root = PyList_GET_ITEM(roots, i);
        const long at = SLOT(root, off_value) == Py_None ? nodemap_get(index, root) : -1;
        PyObject *pos = PyLong_FromLong(at);
        if (pos == NULL) {
            Py_DECREF(requested);
            goto done;
        }
        PyTuple_SET_ITEM(requested, i, pos);
    }
    r = append_new(key, requested) ? -1 : 1;
done:
    nodemap_free(&leaf_number);
    return r;
}

static PyObject *list_of(const nodevec_t *v)
{
    PyObject *list = PyList_New(v->n);
    for (int k = 0; list != NULL && k < v->n; k++) PyList_SET_ITEM(list, k, Py_NewRef(v->at[k]));
    return list;
}

/* pending_topo_order(roots) -> list: graph.pending_topo_order */
static PyObject *pending_topo_order(PyObject *self, PyObject *roots)
{
    PyObject *list = PySequence_List(roots), *out = NULL;
    if (list == NULL || node_type == NULL) {
        if (list != NULL) PyErr_SetString(PyExc_RuntimeError, "lazytensor: setup has not run");
        Py_XDECREF(list);
        return NULL;
    }
    nodevec_t order;
    nodemap_t index;
    nodevec_init(&order);
    nodemap_init(&index);
    if (topo_order(list, &order, &index) == 0) out = list_of(&order);
    nodevec_free(&order);
    nodemap_free(&index);
    Py_DECREF(list);
    return out;
}

/* structure_key(roots) -> (key, order, leaves): the kept-plan key of evaluating `roots`
 * (plan_key's), the pending nodes in topological order, and the leaves in the order first
 * read (positions: the pending nodes, then the leaves). */
static PyObject *structure_key(PyObject *self, PyObject *roots)
{
    if (node_type == NULL || rows_module == NULL || !PyList_CheckExact(roots)) {
        PyErr_SetString(PyExc_TypeError, "structure_key(roots: list)");
        return NULL;
    }
    nodevec_t order, leaves;
    nodemap_t index;
    nodevec_init(&order);
    nodevec_init(&leaves);
    nodemap_init(&index);
    PyObject *key = key_list(KEY_ROOM), *out = NULL;
    if (key != NULL && topo_order(roots, &order, &index) == 0 &&
        plan_key(roots, &order, &index, key, &leaves, 1) == 1) {
        PyObject *key_tuple = PyList_AsTuple(key), *o = list_of(&order), *l = list_of(&leaves);
        if (key_tuple != NULL && o != NULL && l != NULL) out = PyTuple_Pack(3, key_tuple, o, l);
        Py_XDECREF(key_tuple);
        Py_XDECREF(o);
        Py_XDECREF(l);
    }
    Py_XDECREF(key);
    nodevec_free(&order);
    nodevec_free(&leaves);
    nodemap_free(&index);
    return out;
}
