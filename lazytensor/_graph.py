"""The expression DAG: hash-consed nodes and iterative walks.

A ``Node`` is either a leaf (``value`` is a NumPy array: an input buffer, a constant, or a
value computed earlier) or an elementwise op over other nodes.  Op nodes are hash-consed:
building the same op on the same inputs with the same attributes returns the same node, so
equal subexpressions are one node and are computed once.  No walk here recurses, so a chain
of 100,000 ops neither builds nor evaluates into Python's recursion limit.
"""

from __future__ import annotations

import weakref

import numpy as np


class Node:
    __slots__ = ("op", "inputs", "attrs", "dtype", "shape", "value", "key", "__weakref__")

    def __init__(self, op, inputs, attrs, dtype, shape, value=None, key=None):
        self.op = op
        self.inputs = inputs
        self.attrs = attrs
        self.dtype = dtype
        self.shape = shape
        self.value = value
        self.key = key

    def __repr__(self):
        state = "value" if self.value is not None else f"{len(self.inputs)} inputs"
        return f"<Node {self.op} {self.dtype.name}{list(self.shape)} {state}>"

    def set_value(self, array: np.ndarray) -> None:
        """Keep a computed value and let go of what it was computed from."""
        array.flags.writeable = False
        self.value = array
        if self.key is not None:   # its inputs may now die and their ids be reused
            ref = _INTERN.get(self.key)
            if ref is not None and ref() is self:
                del _INTERN[self.key]
            self.key = None
        self.inputs = ()


# Hash-consing table: key -> weak reference to the node.  A key holds the ids of the
# inputs; that is safe because a live node keeps its inputs alive, and a node leaves the
# table (set_value, or its death) before its inputs can die.  (A plain dict with weakref
# callbacks: WeakValueDictionary costs several microseconds per op.)
_INTERN: dict = {}


def _forget(ref, _table=_INTERN):
    key = getattr(ref, "key", None)
    if key is not None and _table.get(key) is ref:
        del _table[key]


class _Ref(weakref.ref):
    __slots__ = ("key",)


def _lookup(key):
    ref = _INTERN.get(key)
    return ref() if ref is not None else None


def _remember(key, node):
    ref = _Ref(node, _forget)
    ref.key = key
    _INTERN[key] = ref


def leaf(array: np.ndarray) -> Node:
    """A leaf node around a NumPy array (each call is a distinct leaf)."""
    return Node("leaf", (), (), array.dtype, tuple(array.shape), value=array)


def constant(array0d: np.ndarray) -> Node:
    """A 0-d constant leaf; equal constants (same dtype and bits) are one node."""
    key = ("const", array0d.dtype, array0d.tobytes())
    node = _lookup(key)
    if node is None:
        node = Node("const", (), (), array0d.dtype, (), value=array0d, key=key)
        _remember(key, node)
    return node


def op_node(op: str, inputs: tuple, attrs: tuple, dtype: np.dtype, shape: tuple) -> Node:
    """The node for ``op(*inputs)``, shared with any equal node built before."""
    key = (op, tuple(map(id, inputs)), attrs, dtype)
    node = _lookup(key)
    if node is None:
        node = Node(op, inputs, attrs, dtype, shape, key=key)
        _remember(key, node)
    return node


def pending_topo_order(roots) -> list:
    """Nodes without a value that ``roots`` depend on, inputs before consumers.

    Iterative depth-first post-order; nodes with a value are boundaries and not listed.
    """
    order, seen = [], set()
    stack = [(r, False) for r in reversed(roots) if r.value is None]
    while stack:
        node, expanded = stack.pop()
        nid = id(node)
        if expanded:
            order.append(node)
            continue
        if nid in seen:
            continue
        seen.add(nid)
        stack.append((node, True))
        for inp in reversed(node.inputs):
            if inp.value is None and id(inp) not in seen:
                stack.append((inp, False))
    return order
