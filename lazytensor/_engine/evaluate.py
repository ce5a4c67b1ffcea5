"""Evaluation: compute the values of pending nodes, group by group."""

from __future__ import annotations

import os

import numpy as np

from . import config as _config
from . import kernel as _kernel
from . import memory as _memory
from .fpenv import library_state
from .fuse import MAX_GROUP_INPUTS, MAX_GROUP_NODES, Group, partition
from .graph import pending_topo_order
from .kernel import get_kernel, operand_layout, operand_of
from . import graph as _graph
from . import rows as _rows
from .rows import RowsPlan, plan_by_rows
from .native import fastpath as _fastpath   # the quick paths in C (kernels_c/lt_fastpath.c)

# One evaluation at a time: a pending node shared by two Python threads must not be planned
# by one while the other gives it a value and lets go of its inputs.  (Kernels still use
# every worker thread; recording is not serialised.)  Taken by Tensor._value and lt.eval.
# A reentrant lock, C's EvalLock (cheaper to take when free than threading.RLock, which
# reads the clock on every acquire).
lock = _fastpath.EvalLock()
if hasattr(os, "register_at_fork"):
    # a child of fork() finds it free, unless the forking thread held it (it keeps it then)
    os.register_at_fork(after_in_child=lock._at_fork_reinit)

# How many kernel launches and evaluation requests ran: tests and consumers read these to
# check that work is shared and that values are kept.  The C paths tally their counts (in
# this dict and the other counter dicts: _kernel.cache_stats, _memory.stats, _jit.stats,
# _replay.stats) apart: call flush_counts() before reading any of them.
counters = {"evaluations": 0, "kernels": 0, "row_blocks": 0}


def flush_counts() -> None:
    """Bring the counter dicts up to date with the counts tallied by the C paths."""
    _fastpath.flush_counts()


def evaluate_one(root, quick=True) -> None:
    """Give ``root`` a value (``quick=False``: the C quick path was tried already).

    The common case takes a lean path: every pending node ``root`` depends on has its
    shape, and they fit in one group; or ``root`` is a reduction and every pending node
    its input depends on has the input's shape.  One walk then lists the group and builds
    a flat key of its structure and its inputs' layouts; a hit in the kernel cache's quick
    table skips partitioning, planning and lowering.  Anything else goes through
    :func:`evaluate`.
    """
    if root.value is not None or (quick and _quick_eval(root)):
        return
    sink = root if root.op == "reduce" else None
    top = root.inputs[0] if sink is not None else root
    walked = _walk_one_group(top)
    if walked is None and sink is None and _reduce_below_first(root):
        # the reduction below has its value now
        if _quick_eval(root) or _cast_of_value(root):
            return
        walked = _walk_one_group(top)
    if walked is None:
        evaluate([root])
        return
    key, members, inputs = walked
    if sink is not None:
        key += ("reduce", sink.attrs, sink.dtype)
    ck = _kernel.quick_get(key)
    if ck is None:
        group = Group(shape=top.shape, members=members, inputs=inputs,
                      outputs=[] if sink else [root],
                      input_reasons=["constant" if x.op == "const" else "buffer"
                                     for x in inputs],
                      output_reasons=[] if sink else ["requested"],
                      sinks=[sink] if sink else [], axes=sink.attrs[1] if sink else None)
        ck = get_kernel(group, [operand_layout(x) for x in inputs])
        _kernel.quick_put(key, ck)
    counters["evaluations"] += 1
    n_threads = _config._num_threads
    operands = [x.operand or operand_of(x) for x in inputs]   # kept while the kernel runs
    in_ptrs = [o[0] for o in operands]
    if sink is not None:
        _reduce_into(ck, in_ptrs, [], [sink], n_threads)
        return
    out = _memory.empty(root.shape, root.dtype)
    ck.run_pointers(in_ptrs, [_kernel.ffi.from_buffer(out)], n_threads)
    counters["kernels"] += 1
    root.set_value(out)


# the most elements _cast_of_value (and C's cast_of_value, given it at setup) converts
CAST_INLINE_MAX = 16384


def _cast_of_value(root) -> bool:
    """When ``root`` is a float64 -> float32 cast of a value (a float32 sum's accumulators),
    give it its value without a kernel launch and return True: NumPy's conversion, in the
    library's floating-point state, is the cast kernel's (IEEE rounding to nearest), with
    the canonical NaN when the cast is exact.  The C quick path does the same (cast_of_value
    in lt_fastpath.c)."""
    if root.op != "cast" or root.dtype != np.float32 or len(root.inputs) != 1:
        return False
    value = root.inputs[0].value
    if (type(value) is not np.ndarray or value.dtype != np.float64
            or not value.flags.c_contiguous or value.size > CAST_INLINE_MAX):
        return False
    with library_state():     # the kernel's rounding, whatever the caller's FTZ/rounding mode
        out = value.astype(np.float32)
    if root.exact is not False:
        out[np.isnan(out)] = np.float32(np.nan)     # the canonical NaN
    counters["evaluations"] += 1
    root.set_value(out)
    return True


def _reduce_below_first(root) -> bool:
    """When ``root`` reads a reduction through a chain of ops that each have one pending
    operand (a float32 sum rounding its float64 accumulator, a mean's division), compute
    that reduction first and return True: nothing else is pending beside the chain, so
    this is the general path's split into two groups, and both halves then take the quick
    path."""
    node = root
    while node.op != "reduce":
        pending = None
        for x in node.inputs:
            if x.value is None:
                if pending is not None:
                    return False       # two pending operands (or one read twice): not a chain
                pending = x
        if pending is None:
            return False
        node = pending
    evaluate_one(node)
    return True


def _walk_one_group(root):
    """``(key, members, inputs)`` of the single group computing ``root`` (for a ``root``
    with a value: no members, ``root`` the one input), or None when the pending part of its
    DAG is not one group (another shape, a reduction, over a cap).

    Members come inputs-first (iterative post-order: no recursion limit); inputs are
    numbered in the order first read.  The key lists the output shape, then for each
    member its op, attributes, dtype, mode and operands (members by number, inputs by negative
    number), with each input's layout where it is first read: equal keys mean equal
    kernels.
    """
    shape = root.shape
    if root.value is not None:     # a reduction of a value: no members, one input
        return (shape, operand_layout(root)), [], [root]
    ref = {}                       # node -> member number, or -1 - input number
    members, inputs, key = [], [], [shape]
    stack = [root]
    while stack:
        node = stack[-1]
        if node in ref:            # a shared node, finished through another consumer
            stack.pop()
            continue
        ready = True
        for x in node.inputs:
            if x not in ref:
                if x.value is not None:
                    ref[x] = -1 - len(inputs)
                    inputs.append(x)
                    key.append(x.operand[1] if x.operand else operand_layout(x))
                elif x.op == "reduce":     # not one group: no need to walk below it
                    return None
                else:
                    ready = False
                    stack.append(x)
        if not ready:
            continue
        stack.pop()
        if node.op == "reduce" or node.shape != shape or len(members) >= MAX_GROUP_NODES:
            return None
        ref[node] = len(members)
        members.append(node)
        key += (node.op, node.attrs, node.dtype, node.exact)
        for x in node.inputs:
            key.append(ref[x])
    if len(inputs) > MAX_GROUP_INPUTS:
        return None
    return tuple(key), members, inputs


def evaluate(nodes) -> None:
    """Give every node in ``nodes`` a value, running each needed kernel group once.

    The evaluation's plan — its groups as positions in the pending DAG and their compiled
    kernels, or the same by blocks of rows (_rows.RowsPlan) — is kept in the kernel cache's
    quick table under a flat key of the DAG's structure (ops, attributes, dtypes, shapes,
    wiring, which nodes are requested) and its inputs' layouts, so a repeated multi-kernel
    expression (softmax of a small row, or of a large array by blocks of rows) skips
    partitioning and planning.  (Planning by rows cost about a fifth of a row softmax of
    10^6 float32 elements.)
    """
    if type(nodes) is list and _plan_eval(nodes):
        return                        # a kept plan, run in C
    order = pending_topo_order(nodes)
    if not order:
        return
    counters["evaluations"] += 1
    n_threads = _config.get_num_threads()
    key, index, leaves = _structure_key(nodes, order)
    steps = _kernel.quick_get(key)
    fresh = steps is None
    if fresh:
        groups = partition(nodes, order)
        leaf_at = {id(x): len(order) + k for k, x in enumerate(leaves)}
        steps = plan_by_rows(nodes, groups, {**index, **leaf_at})
        if steps is None:
            steps = [_Step(g, index, leaf_at) for g in groups]
    if type(steps) is RowsPlan:
        steps.run(order + leaves, n_threads)
        counters["kernels"] += len(steps.groups)
        counters["row_blocks"] += 1
    else:
        run_steps(steps, order + leaves, n_threads)
    if fresh:
        _kernel.quick_put(key, steps)


def run_steps(steps, at, n_threads: int) -> None:
    """Run kept steps in order over ``at`` (a step's positions: the pending nodes, then the
    leaves), giving each step's outputs and sinks their values; a step's kernel is compiled
    on its first run."""
    for step in steps:
        # misaligned or byte-swapped values are read through a copy that operand_of makes
        # for this run (the kernel reads elements through typed pointers): kept until it ends
        operands = [operand_of(at[p]) for p in step.inputs]
        if step.kernel is None:
            step.kernel = get_kernel(step.group, [o[1] for o in operands])
            step.group = None
        in_ptrs = [o[0] for o in operands]
        outputs = [at[i] for i in step.outputs]
        if step.sinks:
            _reduce_into(step.kernel, in_ptrs, outputs, [at[i] for i in step.sinks], n_threads)
            continue
        out_arrays = [_memory.empty(n.shape, n.dtype) for n in outputs]
        step.kernel.run_pointers(in_ptrs, [_kernel.address_of(a) for a in out_arrays], n_threads)
        counters["kernels"] += 1
        for node, array in zip(outputs, out_arrays):
            node.set_value(array)


class _Step:
    """One kernel of a kept plan: where its inputs, outputs and sinks are (positions in the
    pending order, leaves after it) and its compiled kernel (built on the first run)."""

    __slots__ = ("inputs", "outputs", "sinks", "kernel", "group")

    def __init__(self, group, index, leaf_at):
        self.inputs = [index[id(x)] if id(x) in index else leaf_at[id(x)] for x in group.inputs]
        self.outputs = [index[id(n)] for n in group.outputs]
        self.sinks = [index[id(r)] for r in group.sinks]
        self.kernel = None
        self.group = group


def _structure_key(nodes, order):
    """``(key, index, leaves)``: a flat key of the pending DAG ``order`` computing ``nodes``
    (per node its op, attributes, dtype, mode, shape and operands — pending nodes by position,
    leaves by negative number, each leaf's layout where first read — then which nodes are
    requested, and the settings that decide evaluation by rows), the position of each
    pending node by id, and the leaves in the order first read."""
    index = {id(n): i for i, n in enumerate(order)}
    leaf_number, leaves = {}, []
    key = ["plan", _rows.enabled, _rows.BLOCK_ELEMENTS, _rows.MIN_ELEMENTS]
    for node in order:
        refs = []
        for x in node.inputs:
            i = index.get(id(x))
            if i is None:
                i = leaf_number.get(id(x))
                if i is None:
                    i = leaf_number[id(x)] = -1 - len(leaves)
                    leaves.append(x)
                    key.append(operand_layout(x))
            refs.append(i)
        key.append((node.op, node.attrs, node.dtype, node.exact, node.shape, tuple(refs)))
    key.append(tuple(index.get(id(r), -1) for r in nodes))
    return tuple(key), index, leaves


# the result of reducing nothing (max and min only reach here for bool: any and all)
_IDENTITY = {"sum": 0, "prod": 1, "max": 0, "min": 1}


def _reduce_into(kernel, in_ptrs, outputs, sinks, n_threads) -> None:
    """Run a kernel with reduction ``sinks``: its regular ``outputs`` are written in the
    plan's iteration order (and kept as transposed views), its sinks into accumulators."""
    plan = kernel.plan
    buffers = [_memory.empty(plan.buffer_shape, n.dtype) for n in outputs]
    accs = [_memory.empty((plan.results,), r.dtype) for r in sinks]
    if plan.reduced == 0:
        for r, a in zip(sinks, accs):
            a[...] = _IDENTITY[r.attrs[0]]
    kernel.run_pointers(in_ptrs, [_kernel.address_of(b) for b in buffers], n_threads,
                        [_kernel.address_of(a) for a in accs])
    counters["kernels"] += 1
    if outputs:
        inverse = tuple(np.argsort(plan.perm))
        for node, array in zip(outputs, buffers):
            node.set_value(array.transpose(inverse))
    for r, a in zip(sinks, accs):
        r.set_value(a.reshape(r.shape))


# The quick paths in C read this module's tables and settings: given them once.
_fastpath.setup(_graph.Node, _kernel._quick,
                int(_kernel.ffi.cast("uintptr_t", _kernel.ffi.addressof(_kernel.lib, "lt_run"))),
                operand_of, _memory.empty, _kernel.check_status, counters,
                _kernel.cache_stats, _config, _kernel, MAX_GROUP_NODES,
                MAX_GROUP_INPUTS, CAST_INLINE_MAX, _memory.stats, _memory.POOL_MIN_BYTES,
                _graph._INTERN)
_fastpath.setup_plans(_rows, _kernel.ffi.cast)
_quick_eval, _plan_eval = _fastpath.quick_eval, _fastpath.plan_eval
