"""The expression DAG: hash-consed nodes and iterative walks.

A ``Node`` is either a leaf (``value`` is a NumPy array: an input buffer, a constant, or a
value computed earlier) or an elementwise op over other nodes.  An op node keeps the mode
(exact or fast) it was recorded in: the mode is part of what the op is, so evaluation never
changes it.  Op nodes are hash-consed: building the same op on the same inputs with the same
attributes in the same mode returns the same node, so equal subexpressions are one node and
are computed once.  No walk here recurses, so a chain
of 100,000 ops neither builds nor evaluates into Python's recursion limit.
"""

from __future__ import annotations

import struct
import weakref

import numpy as np

from .native import fastpath


class Node:
    # `operand` caches, for a node with a value, what a kernel needs to read it (set by
    # _kernel.operand_of: a pointer and the layout), as a value never changes once set (not
    # for a misaligned or byte-swapped value: that is read through a copy made per evaluation);
    # `layout` and `address` are what kernels_c/lt_fastpath.c keeps of a value it reads
    # without an operand (its layout tuple for the plan keys and its address; unset until
    # then, cleared by set_value).  `key`: None, the key tuple of _INTERN, or (a node in the
    # C module's hash-consing table) its recording thread's id (never reused, unlike thread
    # idents).  `exact`: for an op node, whether it was recorded in exact mode (None for
    # leaves and constants).  That module replaces this class's tp_dealloc and tp_clear (so
    # that a node leaves its table when it dies) and knows these slots: change both together.
    __slots__ = ("op", "inputs", "attrs", "dtype", "shape", "value", "key", "operand",
                 "layout", "address", "exact", "__weakref__")

    def __init__(self, op, inputs, attrs, dtype, shape, value=None, key=None, exact=None):
        self.op = op
        self.inputs = inputs
        self.attrs = attrs
        self.dtype = dtype
        self.shape = shape
        self.value = value
        self.key = key
        self.operand = None
        self.exact = exact

    def __reduce__(self):
        raise TypeError("a lazytensor graph node cannot be copied or pickled (its cached "
                        "pointers belong to this process); copy or pickle the Tensor")

    def __repr__(self):
        state = "value" if self.value is not None else f"{len(self.inputs)} inputs"
        return f"<Node {self.op} {self.dtype.name}{list(self.shape)} {state}>"

    def set_value(self, array: np.ndarray) -> None:
        """Keep a computed value and let go of what it was computed from.

        kernels_c/lt_fastpath.c (``set_value``) makes the same changes for the values it
        computes: change both together."""
        array.setflags(False)   # write=False; by position: cheaper than a keyword or .flags
        self.value = array
        self.layout = self.address = None
        if type(self.key) is int:  # in the C table (constants have their values)
            _forget(self)
        self.inputs = ()


# Op nodes are hash-consed in C (kernels_c/lt_fastpath.c, "the hash-consing table"): on the
# op, the identity of each input, the attributes, dtype and mode, and the recording thread
# (threads never share a pending node).  A node leaves the table when it gets its value
# (_forget), when the collector clears it and when it dies.
op_node = fastpath.op_node
_forget = fastpath.forget

# Constants, hash-consed here: key (dtype and bits) -> weak reference to the node.  A dead
# reference is never a hit; dead entries are swept when the table has doubled since the
# last sweep (a callback per node death cost more than the sweep).
_INTERN: dict = {}
_SWEEP_MIN = 4096
_sweep_at = _SWEEP_MIN


def _lookup(key):
    ref = _INTERN.get(key)
    return ref() if ref is not None else None


def _remember(key, node):
    _INTERN[key] = weakref.ref(node)
    if len(_INTERN) > _sweep_at:
        _sweep()


def _sweep():
    global _sweep_at
    for key, ref in list(_INTERN.items()):
        if ref() is None and _INTERN.get(key) is ref:
            _INTERN.pop(key, None)
    _sweep_at = max(_SWEEP_MIN, 2 * len(_INTERN))


def leaf(array: np.ndarray) -> Node:
    """A leaf node around a NumPy array (each call is a distinct leaf).  A byte-swapped
    array (a caller's, read when evaluated) gives a leaf of the native dtype."""
    dtype = array.dtype if array.dtype.isnative else np.dtype(array.dtype.char)
    return Node("leaf", (), (), dtype, tuple(array.shape), value=array)


def constant(array0d: np.ndarray) -> Node:
    """A 0-d constant leaf; equal constants (same dtype and bits) are one node."""
    key = ("const", array0d.dtype, array0d.tobytes())
    node = _lookup(key)
    if node is None:
        node = Node("const", (), (), array0d.dtype, (), value=array0d, key=key)
        _remember(key, node)
    return node


_bits = struct.Struct("<d").pack


class FloatAttr(float):
    """A float attribute of an op (``leaky_relu``'s slope): equal to another only with the
    same bits, so that 0.0 and -0.0 (and NaNs with other payloads) are different nodes,
    kernels and plans, while C reads it as the float it is."""

    __slots__ = ()

    def __eq__(self, other):
        return type(other) is FloatAttr and _bits(self) == _bits(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(_bits(self))

    def __reduce__(self):
        return FloatAttr, (float(self),)


# Values NumPy computed for lazytensor (matmul, LAPACK, the NumPy names served on values,
# NumPy's ufuncs and functions lazytensor does not record): node -> NumPy's function.  They
# are outside exact mode's promise (NumPy's summation order, SIMD paths, platform libm), and
# lt.explain says so where they are read.
computed_by_numpy = weakref.WeakKeyDictionary()

# Views of pending tensors that were not kept pending (views.py): the view's leaf -> why its
# base was computed first, which lt.explain gives where the view is read.
viewed_after_computing = weakref.WeakKeyDictionary()


# Nodes without a value that the roots depend on, inputs before consumers: an iterative
# depth-first post-order in C (kernels_c/ext/keys.c), the walk the kept-plan keys use.
pending_topo_order = fastpath.pending_topo_order
