"""Evaluation by blocks of rows.

Some evaluations are several kernels that only ever combine values of the same leading row:
softmax over the last axis is a row maximum, ``exp(x - m)`` with a row sum, then a division.
Run one kernel after the other over the whole array, and every value passed between them
(``e`` here) goes to memory and back, and every input read twice comes from memory twice.
When every group of an evaluation has the same leading dimension, no reduction is over it,
and whatever one group passes to another is indexed by that leading dimension too, the
groups can run block by block instead: ``lt_run_blocks`` gives each thread whole blocks of
rows and runs every kernel on a block before the next.  A value that only passes between
kernels then lives in a block-sized scratch buffer of the thread (it stays in cache and is
never given to a tensor); inputs read by several kernels are read from memory once.

Each kernel is planned for a block's shape (and once more for the last, shorter block) and
runs on each block exactly as on those rows of the whole array: an element's value does not
depend on where its chunk starts, and a reduction's order is a function of its own row
(its plan's reduced part), so the bits are those of the kernel-by-kernel evaluation.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from . import memory as _memory
from .kernel import (check_status, contiguous_strides, eval_lock, ffi, get_kernel, lib,
                      operand_layout, operand_of)

# elements of the widest group in one block: a block's buffers (a few of these) stay in L2
BLOCK_ELEMENTS = 1 << 15
# below this many elements in the widest group the kernel-by-kernel evaluation's
# intermediates fit in cache anyway, and planning twice would cost more than it saves
MIN_ELEMENTS = 1 << 18
# set to False to evaluate kernel by kernel (tests compare the two)
enabled = True


def block_rows(groups):
    """Rows per block when ``groups`` (in topological order) can run by blocks of rows,
    else None: every group has the same leading dimension, no reduction is over it, every
    value passed between groups is indexed by it, and the widest group is large enough to
    gain but a block of at least one row still fits the block budget."""
    if not enabled or len(groups) < 2 or not groups[0].shape:
        return None
    rows = groups[0].shape[0]
    widest = 0
    for g in groups:
        if not g.shape or g.shape[0] != rows or (g.sinks and 0 in g.axes):
            return None
        widest = max(widest, math.prod(g.shape[1:]))
    if widest == 0 or rows * widest < MIN_ELEMENTS or widest > 4 * BLOCK_ELEMENTS:
        return None
    block = max(1, BLOCK_ELEMENTS // widest)
    if rows < 2 * block:
        return None
    produced = _produced(groups)
    for g in groups:
        for x in g.inputs:
            if id(x) in produced and len(x.shape) != len(g.shape):
                return None
    return block


def _produced(groups) -> dict:
    """id -> node of every output and sink of ``groups``."""
    return {id(node): node for g in groups for node in g.outputs + g.sinks}


class _RowGroup:
    """A group as ``_run`` reads it: its inputs, outputs and sinks (positions in a kept
    plan, nodes once bound to an evaluation) and its number of dimensions."""

    __slots__ = ("inputs", "outputs", "sinks", "ndim")

    def __init__(self, inputs, outputs, sinks, ndim):
        self.inputs, self.outputs, self.sinks, self.ndim = inputs, outputs, sinks, ndim

    def bound(self, at):
        return _RowGroup([at[i] for i in self.inputs], [at[i] for i in self.outputs],
                         [at[i] for i in self.sinks], self.ndim)


class RowsPlan:
    """An evaluation by blocks of rows, kept (in the kernel cache's quick table) for the
    next evaluation of the same structure: each group by positions in the evaluation's node
    list (its pending nodes, then its leaves), each group's kernel for full blocks and for
    the last, shorter block, and where every value passed between groups lives (a full
    array for a requested node, else an offset in the thread's scratch).  It holds no
    node, so it keeps no value alive."""

    __slots__ = ("groups", "main", "last", "block", "n_full", "tail", "produced", "slab",
                 "streams")

    def run(self, at, n_threads: int) -> None:
        """Evaluate over ``at`` (the pending nodes, then the leaves, by position)."""
        groups = [g.bound(at) for g in self.groups]
        storage = {}               # id(node) -> (full array or scratch offset, bytes per row)
        for pos, row_bytes, offset, perm in self.produced:
            node = at[pos]
            storage[id(node)] = ((_full_buffer(node, perm), row_bytes) if offset is None
                                 else (offset, row_bytes))
        n_threads = max(1, min(n_threads, self.n_full, 256))
        scratch = np.empty(n_threads * self.slab + 64, np.uint8)
        base = ffi.cast("char *", ffi.from_buffer(scratch)) + (-scratch.ctypes.data) % 64
        operands = {}
        _run(self.main, groups, storage, base, self.slab, 0, self.n_full, self.block,
             n_threads, self.streams, operands)
        if self.last is not None:
            _run(self.last, groups, storage, base, self.slab, self.n_full * self.block, 1,
                 self.tail, 1, [0] * len(groups), operands)
        del scratch, operands
        for pos, _, offset, perm in self.produced:
            if offset is None:
                node = at[pos]
                node.set_value(_value_of(node, storage[id(node)][0], perm))


def plan_by_rows(roots, groups, position) -> RowsPlan | None:
    """The plan evaluating ``groups`` (in topological order) by blocks of rows, giving
    values to the requested nodes among their outputs and sinks; ``position`` maps the id
    of every node the groups read or write to its position in the evaluation's node list.
    None when the groups are not of that form (see :func:`block_rows`)."""
    block = block_rows(groups)
    if block is None:
        return None
    rows = groups[0].shape[0]
    n_full, tail = divmod(rows, block)
    produced = _produced(groups)
    planned = _plan_blocks(groups, block, produced)
    if planned is None:
        return None
    main, perms = planned
    last = None
    if tail:
        planned = _plan_blocks(groups, tail, produced)
        if planned is None or planned[1] != perms:
            return None            # (cannot happen: the leading dimension stays outermost)
        last = planned[0]

    requested = {id(r) for r in roots}
    plan = RowsPlan()
    plan.produced = []             # (position, bytes per row, scratch offset or None, perm)
    plan.slab = 0                  # one thread's scratch bytes
    for node in produced.values():
        row_bytes = math.prod(node.shape[1:]) * node.dtype.itemsize
        offset = None
        if id(node) not in requested:
            offset = plan.slab
            plan.slab += -(-block * row_bytes // 64) * 64
        plan.produced.append((position[id(node)], row_bytes, offset, perms.get(id(node))))
    plan.groups = [_RowGroup([position[id(x)] for x in g.inputs],
                             [position[id(n)] for n in g.outputs],
                             [position[id(r)] for r in g.sinks], len(g.shape))
                   for g in groups]
    plan.main, plan.last = main, last
    plan.block, plan.n_full, plan.tail = block, n_full, tail
    plan.streams = _streams(groups, requested, n_full * block)
    return plan


def _plan_blocks(groups, rows, produced):
    """``(kernels, perms)``: each group's kernel for blocks of ``rows`` rows, and the plan's
    permutation of each output a reducing group writes (by node id); None when a
    reduction's plan would not keep the leading dimension outermost."""
    kernels, perms, layouts = [], {}, {}
    for g in groups:
        shape = (rows,) + g.shape[1:]
        ins = []
        for x in g.inputs:
            if id(x) in produced:
                ins.append(((rows,) + x.shape[1:],) + layouts[id(x)])
            else:
                xs, st, dt = operand_layout(x)
                if _row_stride(x, len(shape)):
                    xs = (rows,) + xs[1:]
                ins.append((xs, st, dt))
        ck = get_kernel(dataclasses.replace(g, shape=shape), ins)
        perm = ck.plan.perm
        if g.sinks and rows > 1 and perm[0] != 0:
            return None
        for node in g.outputs:
            if g.sinks:            # written in the plan's order: a transposed view
                buf = contiguous_strides(tuple(shape[d] for d in perm), node.dtype.itemsize)
                strides = [0] * len(shape)
                for i, d in enumerate(perm):
                    strides[d] = buf[i]
                layouts[id(node)] = (tuple(strides), node.dtype)
                perms[id(node)] = perm
            else:
                layouts[id(node)] = (contiguous_strides(shape, node.dtype.itemsize), node.dtype)
        for r in g.sinks:
            layouts[id(r)] = (contiguous_strides(r.shape, r.dtype.itemsize), r.dtype)
        kernels.append(ck)
    return kernels, perms


def _row_stride(x, ndim) -> int:
    """Bytes per row of a value ``x`` read by a group of ``ndim`` dimensions: its leading
    stride when its rows are the group's rows, 0 when it is broadcast along them."""
    xs, st, _ = operand_layout(x)
    return st[0] if len(xs) == ndim and xs[0] != 1 else 0


def _full_buffer(node, perm):
    if node.op == "reduce":
        return _memory.empty((math.prod(node.shape),), node.dtype)
    if perm is not None:
        return _memory.empty(tuple(node.shape[d] for d in perm), node.dtype)
    return _memory.empty(node.shape, node.dtype)


def _value_of(node, array, perm):
    if node.op == "reduce":
        return array.reshape(node.shape)
    if perm is not None:
        return array.transpose(tuple(np.argsort(perm)))
    return array


def _streams(groups, requested, n_rows) -> list:
    """Per group, 1 when its kernel's outputs are requested (full arrays, not scratch), no
    later kernel of the block reads them, and they reach LT_STREAM_MIN_BYTES over the
    n_rows rows of the full blocks: those blocks then write them with non-temporal stores,
    as a whole-array kernel of that size would (the last, short block does not)."""
    flags, read_later = [], set()              # nodes a later kernel of the block reads
    for g in reversed(groups):
        total = sum(n_rows * math.prod(n.shape[1:]) * n.dtype.itemsize for n in g.outputs)
        ok = (g.outputs and not g.sinks and total >= lib.LT_STREAM_MIN_BYTES
              and all(id(n) in requested and id(n) not in read_later for n in g.outputs))
        flags.append(1 if ok else 0)
        read_later |= {id(x) for x in g.inputs}
    return flags[::-1]


def _run(kernels, groups, storage, scratch, slab, row0, n_blocks, rows, n_threads, streams,
         operands):
    """``lt_run_blocks`` over ``n_blocks`` blocks of ``rows`` rows from row ``row0``;
    ``operands`` (id -> operand_of's tuple) keeps the operands of this evaluation's values:
    a misaligned or byte-swapped one is a copy made once per evaluation."""
    keep, progs, step, thread_step = [], [], [], []

    def slot(x, per_row):
        """Base pointer of ``x`` at row ``row0`` and its steps per block and per thread."""
        held = storage.get(id(x))
        if held is None:           # a value: its rows move with the block, or it is broadcast
            operand = operands.get(id(x))
            if operand is None:
                operand = operands[id(x)] = operand_of(x)
            ptr = operand[0]
            if per_row:
                return ffi.cast("char *", ptr) + row0 * per_row, rows * per_row, 0
            return ptr, 0, 0
        array, row_bytes = held
        if isinstance(array, np.ndarray):
            return (ffi.cast("char *", ffi.from_buffer(array)) + row0 * row_bytes,
                    rows * row_bytes, 0)
        return scratch + array, 0, slab

    for g, ck, stream in zip(groups, kernels, streams):
        p, in_ptr, out_ptr, red_ptr = ck.call_structure(len(g.outputs))
        p.stream = stream
        keep.append((p, in_ptr, out_ptr, red_ptr))
        for k, x in enumerate(g.inputs):
            per_row = 0 if id(x) in storage else _row_stride(x, g.ndim)
            in_ptr[k], s, t = slot(x, per_row)
            step.append(s)
            thread_step.append(t)
        for targets, nodes in ((out_ptr, g.outputs), (red_ptr, g.sinks)):
            for k, node in enumerate(nodes):
                targets[k], s, t = slot(node, 0)
                step.append(s)
                thread_step.append(t)
        progs.append(p)
    b = ffi.new("lt_blocks *")
    prog_array = ffi.new("lt_program *[]", progs)
    step_array = ffi.new("int64_t[]", step or [0])
    thread_array = ffi.new("int64_t[]", thread_step or [0])
    b.n_prog = len(progs)
    b.prog = prog_array
    b.n_blocks = n_blocks
    b.step = step_array
    b.thread_step = thread_array
    b.n_threads = n_threads
    # cffi releases the GIL for the call; the evaluation lock too (kernel.eval_lock's claims)
    saved = eval_lock.suspend()
    try:
        status = lib.lt_run_blocks(b)
    finally:
        eval_lock.resume(saved)
    check_status(status)
