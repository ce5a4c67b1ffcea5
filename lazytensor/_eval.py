"""Evaluation: compute the values of pending nodes, group by group."""

from __future__ import annotations

from . import _config, _memory
from ._fuse import partition
from ._graph import pending_topo_order
from ._kernel import get_kernel, layout_of

# How many kernel launches and evaluation requests ran: tests and consumers read these to
# check that work is shared and that values are kept.
counters = {"evaluations": 0, "kernels": 0}


def evaluate(nodes) -> None:
    """Give every node in ``nodes`` a value, running each needed kernel group once."""
    order = pending_topo_order(nodes)
    if not order:
        return
    counters["evaluations"] += 1
    exact = _config.get_mode() == "exact"
    n_threads = _config.get_num_threads()
    for group in partition(nodes, order):
        # misaligned views (e.g. np.frombuffer at an odd offset) are copied once: the kernel
        # reads elements through typed pointers
        in_arrays = [x.value if x.value.flags.aligned else x.value.copy() for x in group.inputs]
        kernel = get_kernel(group, [layout_of(a) for a in in_arrays])
        out_arrays = [_memory.empty(group.shape, n.dtype) for n in group.outputs]
        kernel.run(in_arrays, out_arrays, exact, n_threads)
        counters["kernels"] += 1
        for node, array in zip(group.outputs, out_arrays):
            node.set_value(array)
