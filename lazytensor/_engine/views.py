"""Views and writes: NumPy's memory semantics over lazy values.

A tensor is *memory-backed* when its node holds a writable NumPy array: memory that
tensors (and NumPy arrays handed out) share the way NumPy arrays share a buffer.  Every
other tensor value is read-only and belongs to its node, which hash-consing may share, so
a write to such a tensor gives it a new node (the write is lazy: a loop of ``w -= lr * g``
stays one pending expression) and no other tensor sees it.

A tensor becomes memory-backed when a view of it is taken, when its value is handed out
(``np.asarray(t)``), or when it was made from a writable NumPy array without a copy (that
array is its memory, as ``np.asarray(a)`` would be).  Its value is then taken over (when
no other tensor or pending node holds it) or copied once.  Views of it are tensors over
NumPy views of the same memory, so a write through any of them is a write into the memory
that the others read: NumPy's semantics, by construction.

Writes into memory are made in place, after the pending work that reads the memory was
given a copy of what it reads (``protect_pending_readers``): a pending expression gives
the value it would have had had it run when it was written.
"""

from __future__ import annotations

import sys
import weakref

import numpy as np

from . import config as _config
from . import graph as _graph
from .fuse import FOLD_NS, recompute_cost
from .native import fastpath

_leaf_tensor = fastpath.leaf_tensor
source_tensor = fastpath.source_tensor
_view_plain = fastpath.view_plain
# the attrs of a leaf over a caller's read-only array (source_tensor, in C)
READ_ONLY_SOURCE = ("read-only source",)

# The attrs of a leaf that is a read-only view (broadcast_to, diagonal, as in NumPy): a
# write raises.  On the node, so that C's __array__ sees it (a leaf's attrs are otherwise
# empty).
READ_ONLY_VIEW = ("read-only view",)
# ... of a view of a read-only tensor (its writeable flag cannot be set again, as in NumPy)
READ_ONLY_OF_BASE = ("view of a read-only tensor",)
# ... of a tensor whose writeable flag the caller cleared: read-only until set again
READ_ONLY_SET = ("read-only by its flags",)
_READ_ONLY = (READ_ONLY_VIEW, READ_ONLY_OF_BASE, READ_ONLY_SET)


def is_read_only(t) -> bool:
    """Whether writes through ``t`` raise (a read-only view, or writeable cleared)."""
    node = t._node
    return node.op == "leaf" and node.attrs in _READ_ONLY


def set_writeable(t, flag: bool) -> None:
    """NumPy's ``x.flags.writeable = flag``: False makes ``t`` a read-only view of its own
    memory (views of it are read-only too); True undoes that, and raises NumPy's error on a
    view that is read-only because of what it views."""
    settle(t)
    node = t._node
    if flag:
        if node.op == "leaf" and node.attrs in (READ_ONLY_SET, READ_ONLY_VIEW):
            # a view of writable memory (broadcast_to's too: NumPy lets it be written)
            node.value.setflags(write=True)
            node.attrs = ()
        elif is_read_only(t):
            raise ValueError("cannot set WRITEABLE flag to True of this array (a view of "
                             "a read-only tensor)")
        return
    if not is_read_only(t):
        # a leaf of t's own over its memory: another tensor on the same node stays writable
        arr = own(t).view()
        arr.setflags(write=False)
        t._node = _leaf_tensor(arr)._node
        t._node.attrs = READ_ONLY_SET


def _mark_read_only(t, of_base: bool) -> None:
    t._node.attrs = READ_ONLY_OF_BASE if of_base else READ_ONLY_VIEW


def memory(t) -> np.ndarray | None:
    """``t``'s writable memory if it is memory-backed, else None (never evaluates)."""
    value = t._node.value
    if value is not None and value.flags.writeable:
        return value
    return None


def _held_by_pending(node) -> int:
    """How many inputs of pending nodes are ``node``: holders ``protect_pending_readers``
    takes care of before a write, so they do not stop a value from becoming memory."""
    return fastpath.pending_uses(node)


def _exclusive(t, value) -> bool:
    """Whether no other tensor holds ``t``'s node (pending readers aside) and nothing else
    holds ``value`` or the arrays it is a view of: then the value may become ``t``'s memory
    without a copy.  By reference counts, so an unknown holder only ever costs a copy.  The
    counts are those of the call in ``own``: the node is held by t's slot, ``node`` and
    getrefcount's argument; the value by the node's slot, ``value`` here and in ``own`` and
    the argument; an array it views by its base slot, ``base`` and the argument."""
    node = t._node
    if sys.getrefcount(value) > 4 or any(s == 0 and n > 1 for s, n in
                                          zip(value.strides, value.shape)):
        return False            # (a fill's zero strides: one element for many)
    base = value.base
    while isinstance(base, np.ndarray):
        if sys.getrefcount(base) > 3:
            return False
        base = base.base
    extra = sys.getrefcount(node) - 3
    return extra <= 0 or extra == _held_by_pending(node)


def is_read_only_source(t) -> bool:
    """Whether ``t`` was made without a copy from a caller's read-only array."""
    node = t._node
    return node.op == "leaf" and node.attrs == READ_ONLY_SOURCE


def _reads_only(t) -> bool:
    """Whether ``t``'s memory may be read but not written through it (a read-only view, or
    a caller's read-only array)."""
    return is_read_only(t) or is_read_only_source(t)


def own(t) -> np.ndarray:
    """Make ``t`` memory-backed (evaluating it) and return its writable memory: its value
    taken over when nothing else holds it, else a copy of it."""
    settle(t)
    return _own(t)


def _own(t) -> np.ndarray:
    """``own`` of a tensor already settled."""
    value = t._value()      # (a value read: lt.jit does not replay a function that writes)
    if value.flags.writeable:
        return value
    if _exclusive(t, value):
        try:
            value.setflags(write=True)
            return value
        except ValueError:        # a view of memory that is not ours to write
            pass
    mem = np.array(value, order="C")   # copies; a zero-stride fill becomes full size
    t._node = _leaf_tensor(mem)._node
    return mem


# NumPy's ``base`` is kept in the view's ``_base`` slot: the tensor a view of memory views
# (kept alive, as NumPy's is: harmless, the view holds the memory itself), or a weak
# reference to the pending tensor a pushed view views, so that a temporary the caller
# dropped is gone for ``_orphan`` (its view keeps the values it was computed with, as
# NumPy's view of a temporary does) and ``base`` is None then.
def base_of(t):
    """The tensor ``t`` is a view of (the first one of a chain of views), or None."""
    base = t
    while True:
        try:
            up = base._base
        except AttributeError:          # (unset: not a view)
            break
        if type(up) is weakref.ref:
            up = up()
        if up is None:
            break
        base = up
    return None if base is t else base


def _set_base(v, t, weak: bool = False) -> None:
    """``v`` is a view of ``t``: a view of memory refers to ``t`` (``base_of`` walks the
    chain when asked, the hot path only stores); a pushed view weakly, to the first of
    the chain (a dropped link must not cut it)."""
    if weak:
        root = base_of(t)
        v._base = weakref.ref(t if root is None else root)
    else:
        v._base = t


def view(t, make, read_only: bool = False, push: bool = True):
    """A tensor over ``make(memory of t)``, a NumPy view of it (``t`` becomes memory-backed;
    a view of a caller's read-only array is a read-only view of that array).

    ``make`` may return a copy (a reshape NumPy cannot express as a view): the result then
    is a tensor of its own, as in NumPy.  ``read_only``: writes through it raise.  A view of
    a pending tensor stays pending where it can (``_pushed``; ``push=False``: never; not a
    read-only view, whose zero strides NumPy's later reshapes depend on)."""
    why = None
    if not read_only:
        # t's memory plain (writable, no pending views, not read-only): C makes the view
        out = _view_plain(t, make)
        if isinstance(out, np.ndarray):   # make's array, perhaps a copy
            return _view_of(t, out, t._value(), False, False, None)
        if out is not None:
            return out
    if t._node.value is not None:
        pass
    elif not push:
        why = "a reshape: NumPy's layout decides whether it is a view"
    elif read_only:
        why = "a read-only view: its zero strides decide NumPy's later reshapes"
    else:
        out = _pushed(t, make)
        if not isinstance(out, str):
            _set_base(out, t, weak=True)
            return out
        why = out
    settle(t)
    if _reads_only(t):
        of_base = t._node.attrs != READ_ONLY_VIEW
        read_only = True
        mem = t._value()
    else:
        of_base = False
        mem = _own(t)
    return _view_of(t, make(mem), mem, read_only, of_base, why)


def _view_of(t, arr, mem, read_only, of_base, why):
    """The tensor of ``arr`` (``make`` applied to ``t``'s memory ``mem``) for ``view``."""
    base = arr.base
    if arr.size and base is not mem and (base is None or base is not mem.base) \
            and not np.may_share_memory(arr, mem):
        arr.setflags(write=False)       # a copy: an ordinary read-only value
        return _leaf_tensor(arr)
    if read_only:
        arr = arr.view()
        arr.setflags(write=False)
        out = _leaf_tensor(arr)
        _mark_read_only(out, of_base)
    else:
        out = _leaf_tensor(arr)
    if why is not None:
        _graph.viewed_after_computing[out._node] = why
    _set_base(out, t)
    return out


# ---- views of pending tensors ------------------------------------------------------------
# A view of a pending tensor is recorded over the tensor's own inputs (the view pushed down
# to the values the pending nodes read), so that it fuses into its consumers' kernels
# instead of ending one.  NumPy's aliasing is kept by remembering which tensor it is a view
# of: before either is written or handed out (settle), the base becomes memory and its
# views become views of that memory.  Each entry also holds the node of its tensor, so that
# C's __array__ never takes such a value over without Python (a reference more).
PUSH_MAX_NODES = 64        # a larger pending graph is computed once and viewed instead
_lazy_views: dict = {}     # id(base) -> [weakref(base), base's node, [(weakref(view), make)]]
# id(view) -> (weakref(view), view's node, id(base), make, base's shape and dtype)
_lazy_base: dict = {}


def _pushed(t, make):
    """``make`` applied to the pending tensor ``t`` as a pending tensor over the arrays its
    pending nodes read (each broadcast to ``t``'s shape, then viewed), or why that is not
    done: a reduction below (a different shape), or more than PUSH_MAX_NODES pending
    nodes (a chain of views of views, as a stencil's steps, would recompute its work many
    times over; it is computed once instead)."""
    if _orphan(t):
        return "the tensor it views is gone"
    root = t._node
    order = _graph.pending_topo_order([root])
    if len(order) > PUSH_MAX_NODES:
        return (f"more than {PUSH_MAX_NODES} pending ops below it: computed once rather "
                f"than recomputed in every view")
    if any(n.op == "reduce" for n in order):
        return "a reduction below it"
    if _has_lazy_views(t) and sum(recompute_cost(n) for n in order) > FOLD_NS:
        return ("another view of it is pending and its work is costly: computed once "
                "rather than in every view")
    shape = root.shape
    try:            # x.view(dtype) reads the bytes of t's value, not of its inputs'
        same = make(np.broadcast_to(np.empty((), root.dtype), shape)).dtype == root.dtype
    except ValueError:
        same = False
    if not same:
        return "a view as another dtype"
    made = {}
    mode = _config._mode
    for n in order:
        inputs = []
        for x in n.inputs:
            m = made.get(id(x))
            if m is None:
                if x.value is None:               # (a pending input outside the order)
                    return "pending work outside its own"
                if x.op == "const":
                    m = x
                else:
                    try:
                        arr = make(np.broadcast_to(x.value, shape))
                    except ValueError:            # (a dtype view of another itemsize)
                        arr = None
                    if arr is None or arr.dtype != x.value.dtype:
                        return "a view as another dtype"     # (of an input's dtype)
                    if not arr.flags.writeable:
                        arr = arr.view()
                    arr.setflags(write=False)
                    m = made[id(x)] = _graph.leaf(arr)
            inputs.append(m)
        want = "exact" if n.exact else "fast"
        token = mode.set(want) if mode.get() != want else None
        try:
            out_shape = inputs[0].shape if len(inputs) == 1 else \
                np.broadcast_shapes(*(i.shape for i in inputs))
            made[id(n)] = _graph.op_node(n.op, tuple(inputs), n.attrs, n.dtype, out_shape)
        finally:
            if token is not None:
                mode.reset(token)
    out = type(t)._from_node(made[id(root)])
    _remember_lazy_view(t, out, make)
    return out


def _has_lazy_views(t) -> bool:
    entry = _lazy_views.get(id(t))
    return (entry is not None and entry[0]() is t
            and any(ref() is not None for ref, _ in entry[2]))


def _remember_lazy_view(base, v, make):
    entry = _lazy_base.get(id(base))
    root_entry = _lazy_views.get(entry[2]) if entry is not None and entry[0]() is base \
        else None
    if root_entry is not None and root_entry[0]() is not None:
        # a view of a lazy view: a view of its base
        for ref, inner in root_entry[2]:
            if ref() is base:
                make = (lambda m, inner=inner, outer=make: outer(inner(m)))
                break
        root_key = entry[2]
    else:
        if entry is not None and entry[0]() is base:   # its base is gone: a base itself
            del _lazy_base[id(base)]
        root_key = id(base)
        root_entry = _lazy_views.get(root_key)
        if root_entry is None or root_entry[0]() is not base:
            root_entry = _lazy_views[root_key] = [
                weakref.ref(base, lambda r, k=root_key: _drop(_lazy_views, k, r)),
                base._node, []]
    views = root_entry[2]
    if len(views) >= 64:                   # the views gone since (a loop of reads)
        views[:] = [e for e in views if e[0]() is not None]
    views.append((weakref.ref(v), make))
    key = id(v)
    root_node = root_entry[1]
    _lazy_base[key] = (weakref.ref(v, lambda r, k=key: _drop(_lazy_base, k, r)), v._node,
                       root_key, make, root_node.shape, root_node.dtype)


def _drop(table, key, ref):
    entry = table.get(key)
    if entry is not None and entry[0] is ref:
        del table[key]


def _orphan(t) -> bool:
    """If ``t`` is a view of a pending tensor that is gone, make it memory of its own with
    the strides NumPy's view of that tensor has (it decides whether a later reshape is a
    view), and say so.  The memory is laid out as the base was, so it spans the base's
    size; only the view's elements are written."""
    entry = _lazy_base.get(id(t))
    if entry is None or entry[0]() is not t:
        return False
    root_entry = _lazy_views.get(entry[2])
    if root_entry is not None and root_entry[0]() is not None:
        return False
    del _lazy_base[id(t)]
    value = t._value()
    arr = entry[3](np.empty(entry[4], entry[5]))
    arr[...] = value
    t._node = _leaf_tensor(arr)._node
    return True


def settle(t) -> None:
    """Before ``t`` is written, handed out or asked about its memory: if it is a view of a
    pending tensor, or a pending tensor with such views, the base becomes memory and each
    of its views a view of that memory (NumPy's aliasing from then on)."""
    if _orphan(t):
        return
    key = id(t)
    entry = _lazy_base.get(key)
    if entry is not None and entry[0]() is t:
        key = entry[2]
    root_entry = _lazy_views.get(key)
    base = root_entry[0]() if root_entry is not None else None
    if base is None:
        return
    del _lazy_views[key]
    mem = own(base)
    for ref, make in root_entry[2]:
        v = ref()
        if v is None:
            continue
        _lazy_base.pop(id(v), None)
        v._node = _leaf_tensor(make(mem))._node


def handed_out(t) -> np.ndarray:
    """The array ``np.asarray(t)`` gives: ``t``'s memory (a read-only view or source: its
    read-only value)."""
    settle(t)
    if _reads_only(t):
        return t._value()
    mem = own(t)
    # writes through the array are not seen here: pending work that reads it gets a copy now
    protect_pending_readers(mem)
    return mem


def fresh(t):
    """A new tensor with ``t``'s values that shares no memory with it (NumPy's copy)."""
    mem = _shared(t)                  # (memory others may write: copied too)
    if mem is not None:
        copy = np.array(mem, order="C")
        copy.setflags(write=False)
        return _leaf_tensor(copy)
    return type(t)._from_node(t._node)


def check_writable(t, what: str) -> None:
    """ValueError, with NumPy's words, if ``t`` is a read-only view."""
    settle(t)
    if is_read_only(t):
        why = {READ_ONLY_SET: "its writeable flag is False",
               READ_ONLY_OF_BASE: "a view of a read-only tensor"}.get(
                   t._node.attrs, "a read-only view, as broadcast_to and diagonal give in NumPy")
        raise ValueError(f"{what}: assignment destination is read-only (a "
                         f"{'x'.join(map(str, t.shape)) or '0-d'} tensor: {why})")


def writable(t, what: str) -> np.ndarray:
    """``t``'s memory, for NumPy to write into in place (``out=``, ``ufunc.at``, ``sort``,
    ``fill``, ``put`` ...): ``t`` becomes memory-backed (its value taken over, or copied
    once) and the pending work that reads the memory gets what it read first.  A read-only
    view raises NumPy's ValueError."""
    check_writable(t, what)
    mem = own(t)
    protect_pending_readers(mem)
    return mem


# Pending nodes that protect_pending_readers took out of the hash-consing table (by id, as
# a weak reference): later writes must still find them.
_moved: dict = {}


def protect_pending_readers(mem: np.ndarray) -> None:
    """Give every pending node that reads memory overlapping ``mem`` a copy of what it reads,
    so that a write into ``mem`` is not seen by work recorded before it.

    Such a node leaves the hash-consing table first (its inputs change, so it is no longer
    the node a new recording of the same op would find) and is kept in ``_moved``."""
    copies = {}
    overlaps = {}       # id(input node) -> does its value overlap mem (many readers, one check)
    # (snapshots: another thread's writes and the weak references' callbacks change _moved
    # between the steps of a loop over it; list() of a dict view runs without letting go)
    moved = [ref() for ref in list(_moved.values())]
    for node in fastpath.pending_readers(mem) + [n for n in moved if n is not None]:
        if node.value is not None:
            continue
        inputs = node.inputs
        changed = None
        for i, x in enumerate(inputs):
            v = x.value
            if v is None:
                continue
            hit = overlaps.get(id(x))
            if hit is None:
                hit = overlaps[id(x)] = np.may_share_memory(v, mem)
            if not hit:
                continue
            snap = copies.get(id(x))
            if snap is None:
                arr = np.array(v, order="C")
                arr.setflags(write=False)
                snap = copies[id(x)] = (x, _graph.leaf(arr))
            if changed is None:
                changed = list(inputs)
            changed[i] = snap[1]
        if changed is not None:
            if type(node.key) is int:      # in the table: moved to _moved
                _graph._forget(node)
                key = id(node)
                _moved[key] = weakref.ref(node, lambda r, key=key: _moved.pop(key, None)
                                          if _moved.get(key) is r else None)
            node.inputs = tuple(changed)
    for key in [k for k, ref in list(_moved.items())
                if (n := ref()) is None or n.value is not None]:
        _moved.pop(key, None)


def shared_memory(t) -> np.ndarray | None:
    """The memory ``t`` shares with other tensors and arrays (a read-only view's or
    source's too), or None: ``np.shares_memory`` is False for a tensor that is not
    memory-backed.  A view of a pending tensor and its base become memory first."""
    settle(t)
    return _shared(t)


def _shared(t) -> np.ndarray | None:
    """``t``'s memory, a read-only view's or source's included, or None."""
    mem = memory(t)
    return t._node.value if mem is None and _reads_only(t) else mem


def dtype_view(t, make, record):
    """``make(memory of t)`` for a view that changes the dtype (a complex tensor's ``.real``,
    ``.imag``), which cannot be pushed to the values pending ``t`` reads: for pending ``t``,
    ``record(t)`` (a pending tensor of the view's values over ``t``'s node, so it fuses)
    remembered as a view of ``t`` like ``_pushed``'s (NumPy's aliasing once either is
    written or handed out)."""
    if t._node.value is None and not _orphan(t):
        out = record(t)
        _remember_lazy_view(t, out, make)
        _set_base(out, t, weak=True)
        return out
    return view(t, make, push=False)
