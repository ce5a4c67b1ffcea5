"""Fusion: partition the pending part of the DAG into kernel groups.

Every pending node is elementwise (non-elementwise functions compute their inputs when
they are called), so a group is a set of pending nodes of one shape joined by edges: each
group becomes one kernel that reads its inputs once and writes its outputs once.
A node shared by several consumers inside a group is one register, computed once; a node
needed by another group becomes an extra output of its own group (a multi-output kernel).
A node of a smaller shape that feeds a larger one is computed in its own group at its own
shape and broadcast, rather than recomputed per output element; the exceptions are cheap
work (``x[:, None] - y[None, :]`` over pending ``x``, ``y``) and a cast feeding a small
kernel, which the larger kernel recomputes (``_folded``).  Groups are capped in
size; a cut is a boundary like any other, and every boundary records why it is there.

Reductions (``reduce`` nodes) are not members: each is a *sink* of the group that
computes its input, which reduces the value chunk by chunk instead of writing it (all the
sinks of a group reduce the same axes).  A node that reads a reduction's result is at a
higher *level* than the reduction's input and is never joined with it, so a group never
needs its own sink's result.  A reduction whose input has a value, or whose input's group
already reduces other axes, gets a group of its own reading that input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .ops import OPS, SIMPLE

MAX_GROUP_NODES = 1024   # instructions stay well within one program
MAX_GROUP_INPUTS = 48    # distinct buffers one kernel reads
MAX_GROUP_SINKS = 8      # reductions one kernel computes (the C side's limit)
RECOMPUTE_MAX = 1 << 14  # a kernel this small recomputes a broadcast cast (_folded)
FOLD_NS = 0.15           # cheap smaller-shape work a larger kernel recomputes (_folded)


@dataclass
class Group:
    shape: tuple
    members: list = field(default_factory=list)      # nodes, inputs before consumers
    inputs: list = field(default_factory=list)       # nodes read (values or other groups)
    outputs: list = field(default_factory=list)      # members written to memory
    input_reasons: list = field(default_factory=list)
    output_reasons: list = field(default_factory=list)
    cut: str = ""                                    # why the group was closed early
    sinks: list = field(default_factory=list)        # reduce nodes computed by this group
    axes: tuple = None                               # the axes its sinks reduce


def _find(parent, i):
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:  # path compression
        parent[i], i = root, parent[i]
    return root


def _single_group(roots, order):
    """The common case, without the general machinery: every pending node has one shape
    and fits in one group.  None when that is not so."""
    shape = order[0].shape
    if len(order) > MAX_GROUP_NODES or any(n.shape != shape for n in order):
        return None
    members = {id(n) for n in order}
    g = Group(shape=shape, members=list(order))
    seen = set()
    for node in order:
        for x in node.inputs:
            if id(x) not in members and id(x) not in seen:
                seen.add(id(x))
                g.inputs.append(x)
                g.input_reasons.append("constant" if x.op == "const" else "buffer")
    if len(g.inputs) > MAX_GROUP_INPUTS:
        return None
    for r in roots:
        if id(r) in members and r not in g.outputs:
            g.outputs.append(r)
            g.output_reasons.append("requested")
    return [g]


def partition(roots, order) -> list:
    """Kernel groups computing ``roots`` from the pending nodes ``order`` (topological)."""
    has_reduce = any(n.op == "reduce" for n in order)
    if not has_reduce:
        simple = _single_group(roots, order)
        if simple is not None:
            return simple
    index = {id(n): i for i, n in enumerate(order)}
    parent = list(range(len(order)))
    level = [0] * len(order)
    if has_reduce:
        for i, node in enumerate(order):
            for inp in node.inputs:
                j = index.get(id(inp))
                if j is not None:
                    lv = level[j] + (order[j].op == "reduce")
                    if lv > level[i]:
                        level[i] = lv
    folded = _folded(roots, order, index, level)
    folds_of = {}                     # consumer -> the nodes recomputed in its kernel
    for j, i in sorted(folded.items()):           # (topological within each consumer)
        folds_of.setdefault(i, []).append(j)
    for i, node in enumerate(order):
        if node.op == "reduce":
            continue
        fi = folded.get(i)
        for inp in node.inputs:
            j = index.get(id(inp))
            if j is None:
                continue
            fj = folded.get(j)
            if fj is not None:            # inside a folded chain, or into its consumer
                join = fj == i or fj == fi
            else:                         # a folded node's other inputs are computed apart
                join = fi is None and (inp.shape == node.shape and order[j].op != "reduce"
                                       and level[j] == level[i])
            if join:
                a, b = _find(parent, i), _find(parent, j)
                if a != b:
                    parent[max(a, b)] = min(a, b)

    # walk in topological order, closing a component's current group when it is full
    group_of = [None] * len(order)
    open_group = {}
    groups = []
    sink_groups = {}
    for i, node in enumerate(order):
        if node.op == "reduce":
            group_of[i] = _attach_sink(node, index, group_of, groups, sink_groups)
            continue
        if i in folded:
            continue                  # a member of its consumer's group, placed with it
        comp = _find(parent, i)
        g = open_group.get(comp)
        if g is not None:
            new_inputs = {id(x) for x in node.inputs
                          if index.get(id(x)) is None or group_of[index[id(x)]] is not g}
            n_inputs = len(g._input_ids | new_inputs)
            if len(g.members) >= MAX_GROUP_NODES:
                g.cut = f"group cap: {MAX_GROUP_NODES} ops"
                g = None
            elif n_inputs > MAX_GROUP_INPUTS:
                g.cut = f"group cap: {MAX_GROUP_INPUTS} inputs"
                g = None
        if g is None:
            g = Group(shape=node.shape)
            g._input_ids = set()
            open_group[comp] = g
            groups.append(g)
        for member in [order[j] for j in folds_of.get(i, ())] + [node]:
            g.members.append(member)
            group_of[index[id(member)]] = g
            for x in member.inputs:
                j = index.get(id(x))
                if j is None or group_of[j] is not g:
                    g._input_ids.add(id(x))

    _connect(groups, roots, order, index, group_of)
    return _topological(groups, index, group_of)


def recompute_cost(node) -> float:
    """ns per element of recomputing ``node`` in exact mode (a cast: one instruction)."""
    op = OPS.get(node.op)
    return op.cost[1] if op is not None and op.cost else SIMPLE[1]


def _folded(roots, order, index, level) -> dict:
    """``{j: i}``: smaller-shape nodes ``order[j]`` computed per element of the larger
    node ``order[i]`` that reads them (directly or through other folded nodes), inside its
    kernel, instead of in a kernel of their own whose result is broadcast.  Only nodes with
    one reader, not requested, on the reader's level, and only while that recomputation is
    cheap: in all, at most FOLD_NS per element of the consumer (``x[:, None] - y[None, :]``
    over ``x * 2`` and ``y + 1``: one kernel), which a kernel bound by memory hides; or any
    cast when the consumer has at most RECOMPUTE_MAX elements, where a kernel launch costs
    more than recomputing it (the float32 rounding of a float64 row sum that softmax divides
    by).  Elementwise ops give each element the same bits in whichever kernel they run."""
    requested = {id(r) for r in roots}
    users = [[] for _ in order]
    for i, node in enumerate(order):
        for j in {index[id(x)] for x in node.inputs if id(x) in index}:
            users[j].append(i)
    folded, spent = {}, {}
    for j in range(len(order) - 1, -1, -1):      # readers first: chains fold link by link
        c = order[j]
        if c.op == "reduce" or id(c) in requested or len(users[j]) != 1:
            continue
        i = users[j][0]
        target = folded.get(i, i)
        n = order[target]
        if (n.op == "reduce" or level[i] != level[j] or level[target] != level[j]
                or c.shape == n.shape):
            continue
        cost = spent.get(target, 0.0) + recompute_cost(c)
        small_cast = (c.op == "cast" and math.prod(n.shape) <= RECOMPUTE_MAX and all(
            id(x) not in index or order[index[id(x)]].op == "reduce" for x in c.inputs))
        if cost <= FOLD_NS or small_cast:
            folded[j] = target
            spent[target] = cost
    return folded


def _attach_sink(node, index, group_of, groups, sink_groups):
    """The group that computes reduce ``node``: its input's, when that group reduces the
    same axes or none; otherwise one reading the input (shared by reductions over the
    same axes of the same input)."""
    x, axes = node.inputs[0], node.attrs[1]
    j = index.get(id(x))
    g = group_of[j] if j is not None and x.op != "reduce" else None   # x is a member of g
    if g is None or g.axes not in (None, axes) or len(g.sinks) >= MAX_GROUP_SINKS:
        key = (id(x), axes)
        g = sink_groups.get(key)
        if g is None or len(g.sinks) >= MAX_GROUP_SINKS:
            g = Group(shape=x.shape)
            g._input_ids = {id(x)}
            sink_groups[key] = g
            groups.append(g)
    g.axes = axes
    g.sinks.append(node)
    return g


def _connect(groups, roots, order, index, group_of):
    root_ids = {id(r) for r in roots}
    consumers_elsewhere = {}
    for i, node in enumerate(order):
        g = group_of[i]
        for x in node.inputs:
            j = index.get(id(x))
            if j is not None and group_of[j] is not g:
                consumers_elsewhere.setdefault(j, group_of[i])
    for g in groups:
        seen = set()
        for node in g.members + g.sinks:
            for x in node.inputs:
                j = index.get(id(x))
                if (j is not None and group_of[j] is g) or id(x) in seen:
                    continue
                seen.add(id(x))
                g.inputs.append(x)
                if j is None:
                    g.input_reasons.append("constant" if x.op == "const" else "buffer")
                else:
                    src = group_of[j]
                    if x.op == "reduce":
                        g.input_reasons.append(f"result of a reduction ({x.attrs[0]}) "
                                               f"by another kernel")
                    elif x.shape != g.shape:
                        g.input_reasons.append(
                            f"computed once at shape {x.shape} by another kernel, then broadcast")
                    elif src.cut:
                        g.input_reasons.append(f"from the previous kernel ({src.cut})")
                    else:
                        g.input_reasons.append("from another kernel")
        del g._input_ids
        for node in g.members:
            i = index[id(node)]
            reasons = []
            if id(node) in root_ids:
                reasons.append("requested")
            if i in consumers_elsewhere:
                reasons.append("read by another kernel")
            if reasons:
                g.outputs.append(node)
                g.output_reasons.append(" and ".join(reasons))


def _topological(groups, index, group_of):
    """Order groups so that each runs after the groups it reads from (Kahn's algorithm)."""
    gid = {id(g): k for k, g in enumerate(groups)}
    deps = [set() for _ in groups]
    users = [set() for _ in groups]
    for k, g in enumerate(groups):
        for x in g.inputs:
            j = index.get(id(x))
            if j is not None:
                src = gid[id(group_of[j])]
                deps[k].add(src)
                users[src].add(k)
    ready = [k for k in range(len(groups)) if not deps[k]]
    ready.reverse()
    out = []
    while ready:
        k = ready.pop()
        out.append(groups[k])
        for u in sorted(users[k], reverse=True):
            deps[u].discard(k)
            if not deps[u]:
                ready.append(u)
    if len(out) != len(groups):  # cannot happen for a DAG; never run a half-ordered plan
        raise RuntimeError("lazytensor internal error: kernel groups form a cycle")
    return out
