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
        if self.key is not None:
            _INTERN.pop(self.key, None)  # its inputs may now die; their ids may be reused
            self.key = None
        self.inputs = ()


# Hash-consing table.  A key holds the ids of the inputs; that is safe because a live node
# keeps its inputs alive, and a node drops its key before it drops its inputs.
_INTERN: "weakref.WeakValueDictionary[tuple, Node]" = weakref.WeakValueDictionary()


def leaf(array: np.ndarray) -> Node:
    """A leaf node around a NumPy array (each call is a distinct leaf)."""
    return Node("leaf", (), (), array.dtype, tuple(array.shape), value=array)


def constant(array0d: np.ndarray) -> Node:
    """A 0-d constant leaf; equal constants (same dtype and bits) are one node."""
    key = ("const", array0d.dtype, array0d.tobytes())
    node = _INTERN.get(key)
    if node is None:
        node = Node("const", (), (), array0d.dtype, (), value=array0d, key=key)
        _INTERN[key] = node
    return node


def op_node(op: str, inputs: tuple, attrs: tuple, dtype: np.dtype, shape: tuple) -> Node:
    """The node for ``op(*inputs)``, shared with any equal node built before."""
    key = (op, tuple(map(id, inputs)), attrs, dtype)
    node = _INTERN.get(key)
    if node is None:
        node = Node(op, inputs, attrs, dtype, shape, key=key)
        _INTERN[key] = node
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
