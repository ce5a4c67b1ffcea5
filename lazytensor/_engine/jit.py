"""``lt.jit``: trace a function of tensors once per signature, then run only its kernels.

A small call spends most of its time outside the kernel: recording each op (a node, its
promotion, its broadcast), then finding the kept plan for the DAG and giving the result its
value.  ``jit(fn)`` does that work once per *signature*: each tensor argument's shape,
strides and dtype, which arguments are the same tensor, and the other arguments' values.
The first call with a signature runs ``fn`` on the real arguments, which records its DAG
without computing anything, and partitions that DAG into kernels as an evaluation would
(_eval's kept steps).  Later calls with that signature skip ``fn``: C (``jit_call`` in
kernels_c/lt_fastpath.c) runs those kernels on fresh nodes over the new arguments, in the
same order and with the same plans, so every value has the bits an unjitted call gives.

Only a trace whose DAG is made of the tensor arguments, scalar constants and pending ops
over them is replayed.  Anything else makes its signature call ``fn`` every time, which is
always right, only not faster: ``fn`` read a value while recording (``bool(x)``,
``x.numpy()``, a sort, a reshape that needs a value), made a tensor from an array or a view
of an argument, used a tensor it did not get as an argument, changed an argument in place,
or returned something other than a tensor or a tuple or list of tensors.  So does an argument that is
not a tensor or a plain value (int, float, bool, str, None, a dtype, a tuple of those), a
misaligned tensor, and an evaluation large enough to run by blocks of rows (rows.py),
where the call overhead does not matter.  As with any tracing jit, Python side effects in
``fn`` happen on traced calls only, and a Python value ``fn`` takes from outside (a global
scale, a random draw) is a constant of the trace: pass it as an argument instead.
"""

from __future__ import annotations

import functools
import threading
import weakref

from . import caches as _caches
from . import evaluate as _eval
from . import rows as _rows
from . import tensor as _tensor
from .fuse import partition
from .graph import pending_topo_order
from .native import fastpath as _fastpath
from .tensor import Tensor

_MAX_PROGRAMS = 256    # signatures kept per function, least recently traced or replayed
_MAX_NODES = 1 << 16   # ... and the nodes of their traces, all together (see _caches)
_jitted = weakref.WeakSet()    # the wrappers, for lt.empty_cache()

stats = {"traced": 0, "replayed": 0, "plain": 0}


class _Program:
    """The kernels of one traced signature, as evaluate's kept steps.  A step's positions
    are the trace's pending nodes (in topological order), then the leaves: the call's tensor
    arguments, then the trace's constants.  C replays it (``jit_call``, ``jit_run``) from
    ``_fast``: (steps, templates, constants, results, kind)."""

    __slots__ = ("templates", "constants", "_fast")

    def __init__(self, steps, templates, constants, results, kind):
        self.templates = templates    # (op, attrs, dtype, shape) of each position a step writes
        self.constants = constants    # the const nodes among the leaves
        # results: the position of each returned tensor; kind: how fn returned them
        # (None: one tensor, tuple or list)
        self._fast = (steps, templates, constants, results, kind)

    @property
    def steps(self):
        return self._fast[0]


class _Plain:
    """The program of a signature whose calls run fn (``jit_call`` calls it)."""

    __slots__ = ()
    _fast = False


PLAIN = _Plain()


_traces_lock = threading.Lock()     # guards _tensor.value_reads, shared by tracing threads


def _run_traced(fn, args, kwargs):
    """``(out, reads)``: call ``fn`` with the calling thread's value reads recorded (a trace
    within a trace: the outer one sees ours).  No evaluation lock is held: ``fn`` may start
    threads that evaluate, and other threads evaluate meanwhile."""
    me = threading.get_ident()
    with _traces_lock:
        traces = _tensor.value_reads if _tensor.value_reads is not None else {}
        outer = traces.get(me)
        reads = traces[me] = []
        _tensor.value_reads = traces
    try:
        out = fn(*args, **kwargs)
    finally:
        with _traces_lock:
            if outer is None:
                del traces[me]
            else:
                traces[me] = outer
                outer.extend(reads)
            if not traces:
                _tensor.value_reads = None
    return out, reads


def _program_of(out, tensors, nodes, evaluations):
    """The program that replays a traced call that returned ``out`` (``tensors``: the
    tensor arguments, ``nodes``: their nodes before the call, ``evaluations``: the
    evaluation count then); PLAIN when such calls cannot be replayed (see the module
    docstring), None when only this trace cannot be (another thread may have evaluated a
    node of it meanwhile: the next call traces again).  Called under the evaluation lock:
    hash-consing shares nodes with other threads, whose evaluations give them values and
    let go of their inputs."""
    if type(out) is Tensor:
        outs, kind = [out], None
    elif type(out) in (tuple, list) and all(type(t) is Tensor for t in out):
        outs, kind = list(out), type(out)
    else:
        return PLAIN
    if any(t._node is not n for t, n in zip(tensors, nodes)):
        return PLAIN                  # an argument changed
    roots = [t._node for t in outs]
    order = pending_topo_order(roots)
    index = {id(n): i for i, n in enumerate(order)}
    leaf_at, constants = {}, []
    for k, n in enumerate(nodes):
        leaf_at.setdefault(id(n), len(order) + k)
    for x in [x for node in order for x in node.inputs] + roots:
        if x.value is None or id(x) in leaf_at:
            continue
        if x.op != "const":           # a value made now, a tensor from outside, or a node
            _eval.flush_counts()      # that another thread evaluated
            return None if _eval.counters["evaluations"] != evaluations else PLAIN
        leaf_at[id(x)] = len(order) + len(nodes) + len(constants)
        constants.append(x)
    groups = partition(roots, order) if order else []
    if groups and _rows.block_rows(groups) is not None:
        return PLAIN                  # large: evaluated by blocks of rows
    steps = [_eval._Step(g, index, leaf_at) for g in groups]
    templates = [None] * len(order)
    for step in steps:
        for i in step.outputs + step.sinks:
            n = order[i]
            templates[i] = (n.op, n.attrs, n.dtype, n.shape)
    results = tuple(index[id(r)] if r.value is None else leaf_at[id(r)] for r in roots)
    return _Program(steps, tuple(templates), constants, results, kind)


def _call(fn, table, args, kwargs):
    """A call C did not replay: trace it, replay it in Python, or call ``fn``; ``table``
    the _caches.SizedTable of its programs."""
    programs = table.table
    pending = [a for a in args if type(a) is Tensor and a._node.value is None]
    if pending:                       # evaluated first, on their own; then C may replay
        for a in pending:
            a._value()
        out = _fastpath.jit_call(programs, fn, args, kwargs or None)
        if out is not NotImplemented:
            return out
    signature = _fastpath.jit_key(args, kwargs or None)
    program = PLAIN if signature is None else table.get(signature[0])
    if program is PLAIN:
        stats["plain"] += 1
        return fn(*args, **kwargs)
    key, tensors = signature
    if program is not None:           # (traced by another thread meanwhile)
        stats["replayed"] += 1
        return _fastpath.jit_run(program, tensors)
    nodes = [t._node for t in tensors]
    _eval.flush_counts()
    evaluations = _eval.counters["evaluations"]
    out, reads = _run_traced(fn, args, kwargs)
    # The lock from reading the DAG to the first run, which compiles the kernels from it.
    with _eval.lock:
        stats["traced"] += 1
        # fn looked at a value (float(x[0]), x.numpy(), lt.eval): it may compute another DAG
        program = PLAIN if reads else _program_of(out, tensors, nodes, evaluations)
        if program is not None:
            size = (1 if program is PLAIN
                    else 1 + len(program.templates) + len(program.constants))
            table.put(key, program, size)
        if program is None or program is PLAIN:
            return out
        return _fastpath.jit_run(program, tensors)    # the first run compiles the kernels


def jit(fn):
    """Wrap ``fn`` (a function of tensors and plain values that returns a tensor, or a
    tuple or list of tensors) so that later calls with arguments of the same shapes,
    strides and dtypes run only its kernels.

    Results are those of calling ``fn``: the same bits in exact mode.  A replayed call
    computes them when it is called (its ops in the mode of that call: a signature is
    traced once per mode; with the thread settings of that moment), where
    ``fn``'s lazy results would be computed when first needed, and fused with what is done
    to them next: a jitted function is best the whole computation.  A call that cannot
    be replayed (``fn`` reads a value, makes a tensor from an array, uses a tensor it did
    not get as an argument, changes an argument...) calls ``fn`` every time: see
    ``docs/architecture.md``.  Tensor arguments that are pending expressions are evaluated
    first, on their own.  ``wrapper.programs`` holds the traced signatures.
    """
    table = _caches.SizedTable(_MAX_NODES, _MAX_PROGRAMS)
    programs = table.table            # read directly by jit_call (C)
    jit_call = _fastpath.jit_call

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = jit_call(programs, fn, args, kwargs or None)
        return _call(fn, table, args, kwargs) if out is NotImplemented else out

    wrapper.programs = programs
    wrapper._table = table
    _jitted.add(wrapper)
    return wrapper


@_caches.on_release
def _release() -> None:
    for wrapper in list(_jitted):
        wrapper._table.clear()


_fastpath.setup_jit(stats, _eval.run_steps)
