"""lt.explain: what evaluating some tensors would run, without running it."""

from __future__ import annotations

from .fuse import partition
from .graph import computed_by_numpy, pending_topo_order, viewed_after_computing
from .kernel import CHUNK, contiguous_strides, get_kernel
from .rows import block_rows
from .tensor import Tensor


def _layout(node):
    if node.value is not None:
        v = node.value
        return (tuple(v.shape), tuple(v.strides), v.dtype)
    return (node.shape, contiguous_strides(node.shape, node.dtype.itemsize), node.dtype)


def _op_label(node):
    if node.op == "cast":
        return f"cast {node.inputs[0].dtype.name}->{node.dtype.name}"
    return node.op


class Explanation:
    """The kernels that evaluating some tensors runs.

    ``str()`` shows each kernel: its ops, inputs (shape, dtype, byte strides, where they
    come from), outputs, loop family and program; ``.kernels`` holds the same as a list
    of dicts.  ``.block_rows`` is the number of rows per block when the kernels run block
    by block over the leading dimension (see docs/architecture.md), else None.
    """

    def __init__(self, kernels, block_rows=None, numpy_values=()):
        self.kernels = kernels
        self.block_rows = block_rows
        # (which tensor, NumPy's function) for each tensor given that NumPy computed
        self.numpy_values = list(numpy_values)

    def __len__(self):
        return len(self.kernels)

    def __str__(self):
        lines = [f"tensor {i}: a value computed by NumPy ({what}), outside exact mode's promise"
                 for i, what in self.numpy_values]
        if not self.kernels:
            return "\n".join(["nothing to compute: every tensor already has a value"] + lines)
        if self.block_rows is not None:
            lines.append(f"run by blocks of {self.block_rows} rows: each thread runs every kernel "
                         f"on a block before the next; values read only by another kernel stay "
                         f"in the thread's scratch")
        for k in self.kernels:
            lines.append(f"kernel {k['index']}: {len(k['ops'])} ops over shape {k['shape']} in "
                         f"chunks of {CHUNK}, loop family: {k['family']} "
                         f"(coalesced shape {k['coalesced_shape']})")
            for i in k["inputs"]:
                lines.append(f"  in{i['index']}: {i['dtype']} {i['shape']} strides {i['strides']}"
                             f"  <- {i['source']}")
            lines.append(f"  ops: {', '.join(k['ops'])}")
            for r in k["reductions"]:
                lines.append(f"  red{r['index']}: {r['op']} over axes {r['axes']} of "
                             f"{r['value_dtype']} values, {r['accumulator']} accumulator "
                             f"-> {r['shape']}  (fused: the reduced value is not stored)")
            for o in k["outputs"]:
                lines.append(f"  out{o['index']}: {o['dtype']} {o['shape']}  -> {o['reason']}")
            if k["cut"]:
                lines.append(f"  cut: {k['cut']}")
            lines.append("  program:")
            lines.extend(f"    {line}" for line in k["program"])
        return "\n".join(lines)

    __repr__ = __str__


def explain(*tensors) -> Explanation:
    """Describe the fused kernels that evaluating ``tensors`` would run (runs nothing)."""
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"explain: expected Tensors, got {type(t).__name__}")
    roots = [t._node for t in tensors]
    order = pending_topo_order(roots)
    kernels = []
    blocks = None
    if order:
        groups = partition(roots, order)
        blocks = block_rows(groups)
        for index, g in enumerate(groups):
            layouts = [_layout(x) for x in g.inputs]
            ck = get_kernel(g, layouts)
            ops = [_op_label(n) for n in g.members]
            kernels.append({
                "index": index,
                "shape": g.shape,
                "ops": ops,
                "inputs": [{"index": i, "shape": lay[0], "strides": lay[1], "dtype": lay[2].name,
                            "source": _source(x, reason)}
                           for i, (x, lay, reason) in enumerate(zip(g.inputs, layouts,
                                                                     g.input_reasons))],
                "outputs": [{"index": i, "shape": n.shape, "dtype": n.dtype.name, "reason": r}
                            for i, (n, r) in enumerate(zip(g.outputs, g.output_reasons))],
                "family": ck.plan.family,
                "coalesced_shape": ck.plan.shape,
                "program": list(ck.program.listing),
                "cut": g.cut,
                "reductions": [{"index": i, "op": r.attrs[0], "axes": r.attrs[1],
                                "value_dtype": r.inputs[0].dtype.name,
                                "accumulator": r.dtype.name, "shape": r.shape}
                               for i, r in enumerate(g.sinks)],
            })
    numpy_values = [(i, computed_by_numpy[r]) for i, r in enumerate(roots)
                    if r in computed_by_numpy]
    return Explanation(kernels, blocks, numpy_values)


def _source(node, reason: str) -> str:
    why = viewed_after_computing.get(node)
    if why is not None:
        reason = f"{reason}: a view of a tensor computed when the view was taken ({why})"
    what = computed_by_numpy.get(node)
    if what is None:
        return reason
    return f"{reason} computed by NumPy ({what}): outside exact mode's promise"
