"""Evaluation: compute the values of pending nodes, group by group."""

from __future__ import annotations

import os
import threading

import numpy as np

from . import config as _config
from . import kernel as _kernel
from . import memory as _memory
from .fuse import MAX_GROUP_INPUTS, MAX_GROUP_NODES, Group, partition
from .kernel import get_kernel, operand_layout, operand_of
from . import graph as _graph
from . import rows as _rows
from .rows import RowsPlan, plan_by_rows
from .native import fastpath as _fastpath   # the quick paths in C (kernels_c/lt_fastpath.c)

# The bookkeeping of evaluations (planning, the caches, values, counters) takes turns under
# one reentrant lock (C's EvalLock: cheaper to take when free than threading.RLock, which
# reads the clock on every acquire), taken with the roots being evaluated (lock.enter) by
# Tensor._value, lt.eval, concat and jit.  A kernel of RELEASE_MIN elements and more runs with
# it let go (kernel.eval_lock.suspend), after its thread claimed every pending node its
# evaluations reach; a thread whose roots reach another's claims waits for them to go.  So
# independent evaluations overlap in their kernels, and a pending node shared by two threads
# is planned and computed once (docs/architecture.md, "Evaluation in several threads").
lock = _kernel.eval_lock
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
    its input depends on has the input's shape.  C's ``group_key`` then lists the group
    and builds a flat key of its structure and its inputs' layouts, under which its
    compiled kernel is kept in the kernel cache's quick table: C's ``quick_eval`` finds it
    there next time, skipping partitioning, planning and lowering.  Anything else goes
    through :func:`evaluate`.
    """
    if root.value is not None or (quick and _quick_eval(root)):
        return
    walked = _fastpath.group_key(root)
    if walked is None:
        evaluate([root])
        return
    key, members, inputs = walked
    sink = root if root.op == "reduce" else None
    ck = _kernel.quick_get(key)
    if ck is None:
        top = root.inputs[0] if sink is not None else root
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


# the most elements C's cast_of_value converts without a kernel (a float32 sum's rounding)
CAST_INLINE_MAX = 16384


# id(node) -> the array its kernel writes instead of a buffer of its own (evaluate_into);
# only the thread that set it reads it: another thread's evaluation may run meanwhile
_destinations: dict = {}


def evaluate_into(nodes, arrays) -> None:
    """Give each node of ``nodes`` its value computed in the matching array of ``arrays``
    (C-contiguous, of its shape and dtype: a block of a larger result such as concat's,
    so that no part is computed into a buffer of its own and then copied).  Evaluated
    together, so work they share runs once, on the Python path (C's kept plans allocate
    their own outputs); a node whose kernel cannot write there (a reduction's result, a
    plan by rows, a value already computed) has its value copied in.  Caller holds
    ``lock``."""
    pending = [(n, a) for n, a in zip(nodes, arrays) if n.value is None]
    me = threading.get_ident()
    for n, a in pending:
        _destinations[id(n)] = (me, a)
    try:
        evaluate([n for n, _ in pending], kept_in_c=False)
    finally:
        for n, _ in pending:
            _destinations.pop(id(n), None)
    for n, a in zip(nodes, arrays):
        if n.value is not a:
            np.copyto(a, n.value)


def evaluate(nodes, kept_in_c=True) -> None:
    """Give every node in ``nodes`` a value, running each needed kernel group once.

    The evaluation's plan — its groups as positions in the pending DAG and their compiled
    kernels, or the same by blocks of rows (_rows.RowsPlan) — is kept in the kernel cache's
    quick table under a flat key of the DAG's structure (ops, attributes, dtypes, shapes,
    wiring, which nodes are requested) and its inputs' layouts, so a repeated multi-kernel
    expression (softmax of a small row, or of a large array by blocks of rows) skips
    partitioning and planning.  (Planning by rows cost about a fifth of a row softmax of
    10^6 float32 elements.)
    """
    nodes = list(nodes)
    if kept_in_c and _plan_eval(nodes):
        return                        # a kept plan, run in C
    key, order, leaves = _fastpath.structure_key(nodes)
    if not order:
        return
    counters["evaluations"] += 1
    n_threads = _config.get_num_threads()
    steps = _kernel.quick_get(key)
    fresh = steps is None
    if fresh:
        groups = partition(nodes, order)
        index = {id(n): i for i, n in enumerate(order)}
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
        out_arrays = [_destination(n) if _destinations else None for n in outputs]
        out_arrays = [_memory.empty(n.shape, n.dtype) if a is None else a
                      for n, a in zip(outputs, out_arrays)]
        step.kernel.run_pointers(in_ptrs, [_kernel.address_of(a) for a in out_arrays], n_threads)
        counters["kernels"] += 1
        for node, array in zip(outputs, out_arrays):
            node.set_value(array)


def _destination(node):
    """The array evaluate_into gave ``node`` in this thread, or None."""
    got = _destinations.get(id(node))
    return got[1] if got is not None and got[0] == threading.get_ident() else None


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
