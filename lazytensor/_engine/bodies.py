"""Fused bodies in a lowered program: a chain of instructions that computes one of the table's
fused bodies (ops.FUSED_BODIES) becomes one instruction calling that body's C function.

The chain must be the body's tree exactly, operand order included (the C function computes
each op as its own instruction would: the same bits, NaN payloads too), every value inside it
a temporary read only by the chain's next op, and every instruction of it in the same mode.
Operands may be any values of the dtype; an operand named twice in the body must be the same
value both times.
"""

from __future__ import annotations

from . import ops as _ops


def producers_and_uses(vinstr, reduced):
    """(the instruction computing each value, how many times each value is read): by the
    instructions of ``vinstr`` (lower.py's (entry, dst, srcs, params, exact) list) and by the
    reductions, which read the values ``reduced``."""
    producer = {dst: i for i, (_, dst, _, _, _) in enumerate(vinstr)}
    uses = {}
    for v in [v for _, _, srcs, _, _ in vinstr for v in srcs] + list(reduced):
        uses[v] = uses.get(v, 0) + 1
    return producer, uses


def fuse_bodies(vinstr, vkind, reduced):
    """``vinstr`` (lower.py's (entry, dst, srcs, params, exact) list) with each chain that
    computes a fused body replaced by one instruction; ``reduced`` are the values reductions
    read (a value read there is not a temporary of a chain)."""
    producer, uses = producers_and_uses(vinstr, reduced)
    taken = set()        # instructions already inside a fused chain
    out = list(vinstr)
    for i in range(len(vinstr) - 1, -1, -1):   # last first: outer chains before inner ones
        if i in taken:
            continue
        entry, dst, _, _, exact = vinstr[i]
        if entry[1] not in _ops.FUSED_DTYPES:
            continue
        for body in _ops.FUSED_BODIES:
            bound, chain = {}, []
            if _match(body.tree, dst, entry[1], exact, vinstr, vkind, producer, uses, taken,
                      bound, chain, root=True):
                operands = tuple(bound[name] for name in _ops.FUSED_OPERANDS if name in bound)
                out[i] = ((f"fused_{body.name}", entry[1]), dst, operands, (0.0, 0.0), exact)
                taken.update(chain)
                for j in chain:
                    if j != i:
                        out[j] = None
                break
    return [ins for ins in out if ins is not None]


def _match(tree, v, dtype, exact, vinstr, vkind, producer, uses, taken, bound, chain, root):
    """Whether value ``v`` is computed by ``tree`` (binding its operands in ``bound`` and
    listing the instructions in ``chain``)."""
    if isinstance(tree, str):
        if bound.setdefault(tree, v) != v:
            return False
        return True
    i = producer.get(v)
    if i is None or i in taken:
        return False
    entry, _, srcs, _, ins_exact = vinstr[i]
    if entry != (tree[0], dtype) or ins_exact != exact or len(srcs) != len(tree) - 1:
        return False
    if not root and (vkind[v][0] != "tmp" or uses.get(v) != 1):
        return False
    chain.append(i)
    return all(_match(child, src, dtype, exact, vinstr, vkind, producer, uses, taken, bound,
                      chain, root=False)
               for child, src in zip(tree[1:], srcs))
