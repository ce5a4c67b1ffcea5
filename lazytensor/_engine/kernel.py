"""The compiled C kernel (built by cffi at install time) and the kernel cache.

A ``CompiledKernel`` is a plan plus a program, packed into the C structures once; running
it only fills in the buffer pointers.  Compiled kernels live in a small LRU keyed by the
group's structure, its input dtypes, shapes and byte strides, and the output shape; a miss
plans and lowers afresh, so stale strides are never reused.  That LRU and the quick table
are bounded by size as well as by count (``_caches.SizedTable``) and emptied by
``lt.empty_cache()``.
"""

from __future__ import annotations

import os

import numpy as np

from . import caches as _caches
from . import ops as _ops
from .lower import OPCODE, lower
from .plan import make_plan, make_reduce_plan

from .native import CHUNK, PATHS, ffi, kernel_paths, lib
from .native import fastpath as _fastpath

# The lock of evaluations' bookkeeping (evaluate.lock, which explains it), made here because
# a large kernel's run lets go of it (claiming first what its thread's evaluations reach),
# so that other threads' evaluations go on meanwhile.
eval_lock = _fastpath.EvalLock()
RELEASE_MIN = _fastpath.RELEASE_MIN     # elements from which a run lets go of the lock


def _path_index(name: str) -> int:
    if name not in PATHS:
        raise ValueError(f"unknown kernel path {name!r}: lazytensor has {', '.join(PATHS)}")
    if name not in kernel_paths():
        raise ValueError(f"kernel path {name!r} is not supported by this CPU; it can run "
                         f"{', '.join(kernel_paths())}")
    return PATHS.index(name)


def _initial_path() -> int:
    env = os.environ.get("LAZYTENSOR_KERNEL_PATH")
    if env:
        try:
            return _path_index(env)
        except ValueError as exc:
            raise ValueError(f"LAZYTENSOR_KERNEL_PATH: {exc}") from None
    return PATHS.index(kernel_paths()[-1])


_path = _initial_path()


def get_kernel_path() -> str:
    """The kernel path in use."""
    return PATHS[_path]


def set_kernel_path(name: str) -> None:
    """Run kernels on path ``name`` (one of :func:`kernel_paths`)."""
    global _path
    _path = _path_index(name)


def _check_opcodes():
    """The C table and the Python table are generated from one list; prove they agree."""
    entries = _ops.kernel_entries()
    if lib.lt_op_count() != len(entries):
        raise ImportError("lazytensor's compiled kernel does not match lazytensor/_engine/ops.py: "
                          "rebuild it with `pip install .`")
    for code in (0, len(entries) // 2, len(entries) - 1):
        name = ffi.string(lib.lt_op_name(code)).decode()
        if name != "%s:%s" % entries[code]:
            raise ImportError(f"lazytensor's compiled kernel is stale (opcode {code} is {name}); "
                              f"rebuild it with `pip install .`")


_check_opcodes()

# the reduction functions of lt_kernel.c, by name ("sum:float32" -> index)
REDUCTIONS = {ffi.string(lib.lt_red_name(i)).decode(): i for i in range(lib.lt_red_count())}


class CompiledKernel:
    """A planned and lowered group, ready to run on buffers of the planned layout."""

    def __init__(self, plan, program):
        self.plan = plan
        self.program = program
        n_in = len(plan.in_strides)
        self._keep = [
            ffi.new("int32_t[]", program.instr or [0]),
            ffi.new("double[]", program.params or [0.0]),
            ffi.new("int32_t[]", program.reg_kind or [0]),
            ffi.new("int32_t[]", program.reg_arg or [0]),
            ffi.new("int32_t[]", program.reg_itemsize or [0]),
            ffi.new("int64_t[]", plan.shape),
            ffi.new("int64_t[]", [s for st in plan.in_strides for s in st] or [0]),
            ffi.new("int32_t[]", list(program.red_reg) or [0]),
            ffi.new("int32_t[]", [REDUCTIONS[f] for f in program.red_fn] or [0]),
        ]
        p = ffi.new("lt_program *")
        p.n_instr = program.n_instr
        p.instr, p.params, p.reg_kind, p.reg_arg, p.reg_itemsize = self._keep[:5]
        p.n_regs = len(program.reg_kind)
        p.ndim = len(plan.shape)
        p.shape = self._keep[5]
        p.size = plan.size
        p.n_in = n_in
        p.in_strides = self._keep[6]
        p.n_red = len(program.red_reg)
        p.red_reg, p.red_fn = self._keep[7:9]
        p.red_np, p.red_nr = plan.red_np, plan.red_nr
        p.exact = 1 if program.exact else 0
        p.plain_stores = program.plain_stores
        p.prefetch = program.prefetch
        p.work_ps = program.work_ps
        p.work_bytes = program.work_bytes
        self._proto = p
        # taken only without waiting, by run_pointers and by C (its quick paths)
        self._busy = _fastpath.Busy()
        self._call = self._fresh_call()
        # what lazytensor._fastpath (C) needs to run this kernel on its reusable call
        # structure: the addresses of the structure and of its pointer arrays, the settings
        # list run_pointers keeps (C resets it), the Busy flag that guards them (C sets and
        # clears it itself), and for the
        # sinks of a reduction kernel how many results each has, the shape its outputs are
        # written in (the plan's order), the permutation back (None: the identity), and
        # whether a result combines no values (the identity is filled in Python then)
        p, in_ptr, out_ptr, red_ptr, state = self._call
        sinks = len(program.red_reg)
        self._fast = (_address(p), _address(in_ptr), _address(out_ptr), state,
                      self._busy, None,
                      _address(red_ptr), sinks, plan.results if sinks else 0,
                      tuple(plan.buffer_shape) if sinks else None,
                      _inverse(plan.perm) if sinks else None,
                      bool(sinks and plan.reduced == 0))

    def _fresh_call(self):
        p = ffi.new("lt_program *")
        p[0] = self._proto[0]          # the shared description; buffers are set per call
        in_ptr = ffi.new("char *[]", max(len(self.plan.in_strides), 1))
        out_ptr = ffi.new("char *[]", max(len(self.program.reg_kind), 1))
        red_ptr = ffi.new("char *[]", max(len(self.program.red_reg), 1))
        p.in_ptr, p.out_ptr, p.red_ptr = in_ptr, out_ptr, red_ptr
        return p, in_ptr, out_ptr, red_ptr, [None]   # the last: settings written into p

    def run_pointers(self, in_ptrs, out_ptrs, n_threads: int, acc_ptrs=()) -> None:
        """Run over the inputs at ``in_ptrs``, writing the outputs at ``out_ptrs``
        (C-contiguous, of the plan's buffer shape) and, for a reduction, the accumulators at
        ``acc_ptrs`` (one slot per result, of each reduction's accumulator dtype); pointers
        are cdata that keep their buffers alive."""
        if self.plan.size == 0:
            return
        # one call structure per kernel, reused when no other thread is running this kernel
        reuse = self._busy.acquire(False)
        try:
            p, in_ptr, out_ptr, red_ptr, state = self._call if reuse else self._fresh_call()
            in_ptr[0:len(in_ptrs)] = in_ptrs
            out_ptr[0:len(out_ptrs)] = out_ptrs
            if acc_ptrs:
                red_ptr[0:len(acc_ptrs)] = acc_ptrs
            settings = (len(out_ptrs), n_threads, _path)
            if settings != state[0]:
                p.n_out = len(out_ptrs)
                p.n_threads = n_threads
                p.path = _path
                state[0] = settings
            if self.plan.size >= RELEASE_MIN:
                saved = eval_lock.suspend()
                try:
                    status = lib.lt_run(p)     # cffi releases the GIL for the call
                finally:
                    eval_lock.resume(saved)
            else:
                status = lib.lt_run(p)
        finally:
            if reuse:
                self._busy.release()
        check_status(status)

    def call_structure(self, n_out: int):
        """A fresh single-thread ``lt_program`` for this kernel, with its pointer arrays
        ``(program, in_ptr, out_ptr, red_ptr)`` for the caller to fill (see rows.py)."""
        p, in_ptr, out_ptr, red_ptr, _ = self._fresh_call()
        p.n_out = n_out
        p.n_threads = 1
        p.path = _path
        return p, in_ptr, out_ptr, red_ptr


def _inverse(perm):
    """The permutation undoing ``perm``, or None for the identity."""
    inverse = tuple(int(i) for i in np.argsort(perm))
    return None if inverse == tuple(range(len(inverse))) else inverse


def check_status(status: int) -> None:
    """Raise for a failed ``lt_run`` / ``lt_run_blocks``."""
    if status == -1:
        raise MemoryError("lazytensor kernel could not allocate its chunk registers")
    if status == -3:
        raise RuntimeError(f"kernel path {PATHS[_path]!r} is not supported by this CPU")
    if status != 0:
        raise RuntimeError(f"lazytensor kernel failed with status {status}")


def _address(cdata) -> int:
    return int(ffi.cast("uintptr_t", cdata))


def address_of(a: np.ndarray):
    """Pointer to element 0 of ``a`` (from_buffer is the cheap way, for C-contiguous arrays)."""
    if a.flags.c_contiguous:
        return ffi.from_buffer(a)
    return ffi.cast("char *", _fastpath.data_address(a))   # (__array_interface__ costs microseconds)


def data_address(a: np.ndarray) -> int:
    """The address of element 0 of ``a``, as an int."""
    return _fastpath.data_address(a)


def operand_of(node) -> tuple:
    """``(pointer, layout, array, address)`` of a node with a value, as a kernel reads it
    (the address is the pointer as an int, for lazytensor._fastpath).

    The kernels read elements through typed pointers in native byte order, so a value that
    is misaligned (np.frombuffer at an odd offset, a packed structured field) or byte-swapped
    is read through an aligned native copy.  That copy is made afresh on every call and never
    kept on the node: such a value views memory the caller may write between evaluations.
    Any other operand is cached on the node.  The caller keeps the tuple while the kernel
    runs: its array keeps the pointer valid.
    """
    operand = node.operand
    if operand is None:
        a = node.value
        if not a.flags.aligned or not a.dtype.isnative:
            return _copied_operand(a)
        address = _fastpath.data_address(a)   # the array (kept in the tuple) keeps it valid
        ptr = ffi.cast("char *", address)
        operand = node.operand = (ptr, (a.shape, a.strides, a.dtype), a, address)
    return operand


def _copied_operand(a: np.ndarray) -> tuple:
    """The operand of an aligned native C-contiguous copy of ``a`` (see operand_of)."""
    layout = _copy_layout(a)
    copy = np.empty(a.shape, layout[2])
    np.copyto(copy, a)
    ptr = ffi.from_buffer(copy)
    return ptr, layout, copy, _address(ptr)


def _copy_layout(a: np.ndarray) -> tuple:
    dtype = a.dtype if a.dtype.isnative else np.dtype(a.dtype.char)   # the native singleton
    return a.shape, contiguous_strides(a.shape, dtype.itemsize), dtype


def operand_layout(node) -> tuple:
    """``operand_of(node)[1]`` without making the copy a misaligned or byte-swapped value
    is read through (for kernel and plan keys)."""
    operand = node.operand
    if operand is not None:
        return operand[1]
    a = node.value
    if not a.flags.aligned or not a.dtype.isnative:
        return _copy_layout(a)
    return operand_of(node)[1]


# Compiled kernels by group structure and input layouts; a miss plans and lowers afresh.
# Bounded by count and by the total of their keys' sizes (see _caches)
_cache = _caches.SizedTable(budget=1 << 16, max_entries=64)
cache_stats = {"hits": 0, "misses": 0}


def structure_key(group) -> tuple:
    """What a group computes, with inputs and members named by position (no values)."""
    pos = {id(x): ("in", k) for k, x in enumerate(group.inputs)}
    for m, node in enumerate(group.members):
        pos[id(node)] = ("m", m)
    body = tuple((n.op, n.attrs, n.dtype.str, n.exact, tuple(pos[id(x)] for x in n.inputs))
                 for n in group.members)
    outs = tuple(pos[id(n)][1] for n in group.outputs)
    sinks = tuple((r.attrs, r.dtype.str, r.inputs[0].dtype.str, pos[id(r.inputs[0])])
                  for r in group.sinks)
    return body, outs, sinks


def get_kernel(group, layouts) -> CompiledKernel:
    """The compiled kernel for ``group`` reading inputs of ``layouts`` (shape, strides, dtype)."""
    structure = structure_key(group)
    key = (structure, group.shape, tuple(layouts))
    ck = _cache.get(key)
    if ck is not None:
        cache_stats["hits"] += 1
        return ck
    inputs = [(s, st, dt.itemsize) for s, st, dt in layouts]
    if group.sinks:
        plan = make_reduce_plan(group.shape, group.axes, inputs)
    else:
        plan = make_plan(group.shape, inputs)
    ck = CompiledKernel(plan, lower(group, plan))
    cache_stats["misses"] += 1
    _cache.put(key, ck, len(structure[0]) + len(structure[2]) + len(layouts) + 1)
    return ck


# The quick table: a flat key of an evaluation (structure and input layouts, built by
# _eval's one walk over the DAG) -> its compiled kernel (one group) or its kept plan (several
# groups, or blocks of rows), so that a repeated expression skips partitioning, the
# structure key and planning.  A plan's key lists every node of its DAG: bounded by the
# total of the keys' lengths (a plan's steps and kernels grow with it) and by count.
_quick_table = _caches.SizedTable(budget=1 << 16, max_entries=256)
_quick = _quick_table.table        # read directly by the C quick paths


def quick_get(key):
    ck = _quick_table.get(key)
    if ck is not None:
        cache_stats["hits"] += 1
    return ck


def quick_put(key, ck) -> None:
    _quick_table.put(key, ck, len(key))


@_caches.on_release
def clear_cache() -> None:
    """Forget every compiled kernel and kept plan (and the C quick path's memo of them)."""
    _cache.clear()
    _quick_table.clear()
    _fastpath.clear_memos()


def cache_sizes() -> dict:
    """What the kernel caches hold: entries and the total of their sizes (key items)."""
    return {"kernels": len(_cache), "kernel_items": _cache.total,
            "plans": len(_quick_table), "plan_items": _quick_table.total}


def contiguous_strides(shape, itemsize) -> tuple:
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def layout_of(array: np.ndarray) -> tuple:
    return (tuple(array.shape), tuple(array.strides), array.dtype)


__all__ = ["CHUNK", "PATHS", "CompiledKernel", "get_kernel", "clear_cache", "OPCODE",
           "kernel_paths", "get_kernel_path", "set_kernel_path"]
