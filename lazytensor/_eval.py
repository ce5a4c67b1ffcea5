"""Evaluation: compute the values of pending nodes, group by group."""

from __future__ import annotations

import numpy as np

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
        if group.sinks:
            _run_reduction(group, kernel, in_arrays, exact, n_threads)
            continue
        out_arrays = [_memory.empty(group.shape, n.dtype) for n in group.outputs]
        kernel.run(in_arrays, out_arrays, exact, n_threads)
        counters["kernels"] += 1
        for node, array in zip(group.outputs, out_arrays):
            node.set_value(array)


# the result of reducing nothing (max and min only reach here for bool: any and all)
_IDENTITY = {"sum": 0, "prod": 1, "max": 0, "min": 1}


def _run_reduction(group, kernel, in_arrays, exact, n_threads) -> None:
    """Run a group with reduction sinks: its regular outputs are written in the plan's
    iteration order (and kept as transposed views), its sinks into accumulators."""
    plan = kernel.plan
    buffers = [_memory.empty(plan.buffer_shape, n.dtype) for n in group.outputs]
    accs = [_memory.empty((plan.results,), r.dtype) for r in group.sinks]
    if plan.reduced == 0:
        for r, a in zip(group.sinks, accs):
            a[...] = _IDENTITY[r.attrs[0]]
    kernel.run(in_arrays, buffers, exact, n_threads, accs)
    counters["kernels"] += 1
    inverse = tuple(np.argsort(plan.perm))
    for node, array in zip(group.outputs, buffers):
        node.set_value(array.transpose(inverse))
    for r, a in zip(group.sinks, accs):
        r.set_value(a.reshape(r.shape))
