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

from . import graph as _graph
from .native import fastpath

_leaf_tensor = fastpath.leaf_tensor
source_tensor = fastpath.source_tensor
# the attrs of a leaf over a caller's read-only array (source_tensor, in C)
READ_ONLY_SOURCE = ("read-only source",)

# Tensors that are read-only views (broadcast_to, diagonal, as in NumPy), by id (tensors
# are unhashable): a write raises.  Each entry leaves with its tensor.
_read_only: dict = {}


def is_read_only(t) -> bool:
    """Whether ``t`` is a read-only view."""
    ref = _read_only.get(id(t))
    return ref is not None and ref() is t


def _mark_read_only(t) -> None:
    key = id(t)
    _read_only[key] = weakref.ref(t, lambda ref: _read_only.pop(key, None)
                                  if _read_only.get(key) is ref else None)


def memory(t) -> np.ndarray | None:
    """``t``'s writable memory if it is memory-backed, else None (never evaluates)."""
    value = t._node.value
    if value is not None and value.flags.writeable:
        return value
    return None


def _held_by_pending(node) -> int:
    """How many inputs of pending nodes are ``node``: holders ``protect_pending_readers``
    takes care of before a write, so they do not stop a value from becoming memory."""
    return sum(x is node for p in fastpath.pending_nodes() for x in p.inputs)


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


def own(t) -> np.ndarray:
    """Make ``t`` memory-backed (evaluating it) and return its writable memory: its value
    taken over when nothing else holds it, else a copy of it."""
    mem = memory(t)
    if mem is not None:
        return mem
    value = t._value()
    if _exclusive(t, value):
        try:
            value.setflags(write=True)
            return value
        except ValueError:        # a view of memory that is not ours to write
            pass
    mem = np.array(value, order="C")   # copies; a zero-stride fill becomes full size
    t._node = _leaf_tensor(mem)._node
    return mem


def view(t, make, read_only: bool = False):
    """A tensor over ``make(memory of t)``, a NumPy view of it (``t`` becomes memory-backed;
    a view of a caller's read-only array is a read-only view of that array).

    ``make`` may return a copy (a reshape NumPy cannot express as a view): the result then
    is a tensor of its own, as in NumPy.  ``read_only``: writes through it raise."""
    if is_read_only(t) or is_read_only_source(t):
        read_only = True
        mem = t._value()
    else:
        mem = own(t)
    arr = make(mem)
    if arr.size and not np.may_share_memory(arr, mem):
        arr.setflags(write=False)       # a copy: an ordinary read-only value
        return _leaf_tensor(arr)
    if read_only:
        arr = arr.view()
        arr.setflags(write=False)
        out = _leaf_tensor(arr)
        _mark_read_only(out)
        return out
    return _leaf_tensor(arr)


def handed_out(t) -> np.ndarray:
    """The array ``np.asarray(t)`` gives: ``t``'s memory (a read-only view or source: its
    read-only value)."""
    if is_read_only(t) or is_read_only_source(t):
        return t._value()
    return own(t)


def fresh(t):
    """A new tensor with ``t``'s values that shares no memory with it (NumPy's copy)."""
    mem = memory(t)
    if mem is None and (is_read_only(t) or is_read_only_source(t)):
        mem = t._node.value           # memory others may write: copied too
    if mem is not None:
        copy = np.array(mem, order="C")
        copy.setflags(write=False)
        return _leaf_tensor(copy)
    return type(t)._from_node(t._node)


def check_writable(t, what: str) -> None:
    """ValueError, with NumPy's words, if ``t`` is a read-only view."""
    if is_read_only(t):
        raise ValueError(f"{what}: assignment destination is read-only (a "
                         f"{'x'.join(map(str, t.shape)) or '0-d'} read-only view, as "
                         f"broadcast_to and diagonal give in NumPy)")


# Pending nodes that protect_pending_readers took out of the hash-consing table (by id, as
# a weak reference): later writes must still find them.
_moved: dict = {}


def protect_pending_readers(mem: np.ndarray) -> None:
    """Give every pending node that reads memory overlapping ``mem`` a copy of what it reads,
    so that a write into ``mem`` is not seen by work recorded before it.

    Such a node leaves the hash-consing table first (its inputs change, so it is no longer
    the node a new recording of the same op would find) and is kept in ``_moved``."""
    copies = {}
    moved = [ref() for ref in _moved.values()]
    for node in fastpath.pending_nodes() + [n for n in moved if n is not None]:
        if node.value is not None:
            continue
        inputs = node.inputs
        changed = None
        for i, x in enumerate(inputs):
            v = x.value
            if v is None or not np.may_share_memory(v, mem):
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
    for key in [k for k, ref in _moved.items() if (n := ref()) is None or n.value is not None]:
        _moved.pop(key, None)


def shared_memory(t) -> np.ndarray | None:
    """The memory ``t`` shares with other tensors and arrays (a read-only view's or
    source's too), or None: ``np.shares_memory`` is False for a tensor that is not memory-backed."""
    mem = memory(t)
    if mem is None and (is_read_only(t) or is_read_only_source(t)):
        return t._node.value
    return mem
