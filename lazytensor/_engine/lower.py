"""Lowering: a kernel group becomes a short register program for the C interpreter.

A register holds one chunk (256 elements) of one value.  Inputs get LOAD registers (read
in place or gathered per chunk) or SCALAR registers (filled once); requested values get
OUTPUT registers that point into the output buffers; everything else lives in scratch
registers that are reused once their value is dead.  float16 ops are lowered to a cast to
float32, the float32 op and one rounding back to float16.  Each instruction computes in the
mode its node was recorded in (a kernel may mix exact and fast ops).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import cost as _cost
from . import ops as _ops
from .bodies import fuse_bodies, producers_and_uses

REG_SCRATCH, REG_LOAD, REG_OUTPUT, REG_SCALAR = 0, 1, 2, 3
INSTR_WORDS = 7        # LT_INSTR_WORDS: opcode, dst, four operands, exact
OPCODE = {entry: code for code, entry in enumerate(_ops.kernel_entries())}


@dataclass(frozen=True)
class Program:
    instr: tuple        # n_instr * INSTR_WORDS ints: opcode, dst, a, b, c, d, exact
    params: tuple       # n_instr * 2 floats
    reg_kind: tuple
    reg_arg: tuple
    reg_itemsize: tuple
    listing: tuple      # one readable line per instruction, for lt.explain
    red_reg: tuple = ()     # per sink: the register it reduces
    red_fn: tuple = ()      # per sink: the reduction function's name ("sum:float32")
    plain_stores: int = 0   # bit 0 fast mode, bit 1 exact: no streaming stores (cost.py)
    prefetch: int = 0       # bit 0 fast mode, bit 1 exact: prefetch inputs read in place
    work_ps: tuple = (0, 0)  # fast, exact: estimated ps per element of the ops (cost.py)
    work_bytes: int = 0      # bytes per element the kernel reads and writes

    @property
    def n_instr(self) -> int:
        return len(self.instr) // INSTR_WORDS

    @property
    def exact(self) -> bool:
        """Whether any instruction is exact: the mode whose cost figures the kernel uses."""
        return any(self.instr[INSTR_WORDS - 1::INSTR_WORDS])


def lower(group, plan) -> Program:
    vinstr = []            # (entry, dst_vid, src_vids, params, exact)
    vsize = []             # itemsize of each virtual value
    vkind = []             # ("in", k) / ("scalar", k) / ("tmp",) / ("out", k)
    node_vid = {}

    def new_value(itemsize, kind):
        vsize.append(itemsize)
        vkind.append(kind)
        return len(vsize) - 1

    for k, x in enumerate(group.inputs):
        node_vid[id(x)] = new_value(x.dtype.itemsize,
                                    ("scalar", k) if plan.is_scalar_input(k) else ("in", k))
    out_index = {id(n): k for k, n in enumerate(group.outputs)}
    as_f32 = {}
    exact = True           # the mode of the member being lowered

    def emit(entry, dst_size, srcs, params=(0.0, 0.0), node=None):
        kind = ("out", out_index[id(node)]) if node is not None and id(node) in out_index else ("tmp",)
        dst = new_value(dst_size, kind)
        vinstr.append((entry, dst, tuple(srcs), params, exact))
        return dst

    def f32_of(vid):       # a widening is exact in both modes: shared by the members
        if vid not in as_f32:
            as_f32[vid] = emit(("widen", "float16"), 4, (vid,))
        return as_f32[vid]

    for node in group.members:
        exact = node.exact is not False
        srcs = [node_vid[id(x)] for x in node.inputs]
        if node.op in _ops.COMPLEX_PARTS:    # real, imag, conj of a complex value
            entry = (node.op, node.inputs[0].dtype.name)
            node_vid[id(node)] = emit(entry, node.dtype.itemsize, srcs, node=node)
        elif node.op == "complex":           # a complex value of its two parts
            node_vid[id(node)] = emit(("complex", node.dtype.name), node.dtype.itemsize, srcs,
                                      node=node)
        elif node.op == "cast":
            entry = ("cast", f"{node.inputs[0].dtype.name}_{node.dtype.name}")
            node_vid[id(node)] = emit(entry, node.dtype.itemsize, srcs, node=node)
        elif node.op == "where":
            entry = ("where", f"x{node.dtype.itemsize}")
            node_vid[id(node)] = emit(entry, node.dtype.itemsize, srcs, node=node)
        else:
            op = _ops.OPS[node.op]
            params = tuple(float(a) for a in node.attrs) + (0.0, 0.0)
            params = params[:2]
            dt = node.inputs[0].dtype.name
            if dt == "float16" and "h" not in op.kinds:   # computed in float32
                srcs32 = [f32_of(v) for v in srcs]
                if op.result == "bool":
                    node_vid[id(node)] = emit((op.name, "float32"), 1, srcs32, params, node)
                else:
                    r = emit((op.name, "float32"), 4, srcs32, params)
                    node_vid[id(node)] = emit(("cast", "float32_float16"), 2, (r,), node=node)
            elif (op.name == "divide" and dt in _ops.DIVIDE_BY_SCALAR_DTYPES
                  and vkind[srcs[1]][0] == "scalar"):
                node_vid[id(node)] = emit(("divide_by_scalar", dt), node.dtype.itemsize, srcs,
                                          params, node)
            else:
                node_vid[id(node)] = emit((op.name, dt), node.dtype.itemsize, srcs, params, node)

    sinks = [(r, node_vid[id(r.inputs[0])]) for r in group.sinks]
    vinstr = _fuse_quantize(vinstr, vkind, [v for _, v in sinks])
    vinstr = fuse_bodies(vinstr, vkind, [v for _, v in sinks])
    # the inputs the kernel streams: read in place (contiguous along the plan's last
    # dimension) and not broadcast (a broadcast input is read again and again from cache)
    in_place = {node_vid[id(x)] for k, x in enumerate(group.inputs)
                if plan.in_strides[k][-1] == x.dtype.itemsize and 0 not in plan.in_strides[k]}
    return _allocate(vinstr, vsize, vkind, sinks, in_place)


_QUANTIZE_CASTS = frozenset(f"float32_{dt}" for dt in _ops.QUANTIZE_DTYPES)


def _fuse_quantize(vinstr, vkind, reduced):
    """The chain divide_by_scalar, round, an addition of a scalar (optional) and a saturating
    cast of float32 to a small integer, each value read by the next only, as one quantize
    instruction: the same functions in the same order in C, one call per chunk."""
    producer, uses = producers_and_uses(vinstr, reduced)

    def made_by(v, entry, exact):
        """The instruction computing temporary ``v`` as ``entry`` in mode ``exact`` if only
        one op reads it."""
        i = producer.get(v)
        if (i is None or vkind[v][0] != "tmp" or uses[v] != 1 or vinstr[i][0] != entry
                or vinstr[i][4] != exact):
            return None
        return i

    drop = set()
    for i, (entry, dst, srcs, _, exact) in enumerate(vinstr):
        if entry[0] != "cast" or entry[1] not in _QUANTIZE_CASTS:
            continue
        chain, zero_point, v = [], (), srcs[0]
        j = made_by(v, ("add", "float32"), exact)
        if j is not None:
            a, b = vinstr[j][2]
            if vkind[b][0] == "scalar":
                v, zero_point = a, (b,)
            elif vkind[a][0] == "scalar":
                v, zero_point = b, (a,)
            else:
                continue
            chain.append(j)
        j = made_by(v, ("round", "float32"), exact)
        if j is None:
            continue
        chain.append(j)
        k = made_by(vinstr[j][2][0], ("divide_by_scalar", "float32"), exact)
        if k is None:
            continue
        chain.append(k)
        drop.update(chain)
        vinstr[i] = (("quantize", entry[1]), dst, vinstr[k][2] + zero_point, (0.0, 0.0), exact)
    return [ins for i, ins in enumerate(vinstr) if i not in drop] if drop else vinstr


def _allocate(vinstr, vsize, vkind, sinks=(), in_place=frozenset()) -> Program:
    last_use = {}
    for i, (_, _, srcs, _, _) in enumerate(vinstr):
        for v in srcs:
            last_use[v] = i
    for _, v in sinks:          # a reduced value is read after the last instruction
        last_use[v] = len(vinstr)
    reg_kind, reg_arg, reg_size = [], [], []
    phys = {}

    def new_reg(kind, arg, size):
        reg_kind.append(kind)
        reg_arg.append(arg)
        reg_size.append(size)
        return len(reg_kind) - 1

    for v, kind in enumerate(vkind):
        if kind[0] == "in":
            phys[v] = new_reg(REG_LOAD, kind[1], vsize[v])
        elif kind[0] == "scalar":
            phys[v] = new_reg(REG_SCALAR, kind[1], vsize[v])
        elif kind[0] == "out":
            phys[v] = new_reg(REG_OUTPUT, kind[1], vsize[v])
    free = {8: [], 16: []}   # dead scratch registers by size: 16 bytes for complex128
    instr, params, listing = [], [], []
    for i, (entry, dst, srcs, p, exact) in enumerate(vinstr):
        if dst not in phys:  # a temporary: reuse a dead scratch register (never a source)
            size = 16 if vsize[dst] > 8 else 8
            phys[dst] = free[size].pop() if free[size] else new_reg(REG_SCRATCH, -1, size)
        for v in set(srcs):
            if last_use.get(v) == i and vkind[v][0] == "tmp":
                free[reg_size[phys[v]]].append(phys[v])
        regs = [phys[v] for v in srcs] + [-1] * (INSTR_WORDS - 3 - len(srcs))
        instr += [OPCODE[entry], phys[dst], *regs, int(exact)]
        params += list(p)
        listing.append(f"r{phys[dst]} = {entry[0]}[{entry[1]}]"
                       f"({', '.join(f'r{phys[v]}' for v in srcs)})" + ("" if exact else " fast"))
    red_reg, red_fn = [], []
    for k, (r, v) in enumerate(sinks):
        if v not in phys:  # cannot happen: every value has a register by now
            raise RuntimeError("lazytensor internal error: a reduced value has no register")
        op, axes, _ = r.attrs
        red_reg.append(phys[v])
        red_fn.append(f"{op}:{r.inputs[0].dtype.name}")
        listing.append(f"red{k} = {op}[{r.inputs[0].dtype.name} -> {r.dtype.name}]"
                       f"(r{phys[v]}) over axes {axes}")
    # a fused body's work is that of its ops; where a rule asks about one op function, its
    # costliest op stands for it (one pass, a costly writer or first reader if that op is)
    ops = [op for entry, _, _, _, _ in vinstr for op in _ops.entry_ops(entry)]
    functions = [_ops.entry_main_op(entry) for entry, _, _, _, _ in vinstr]
    writers = [_ops.entry_main_op(entry) for entry, dst, _, _, _ in vinstr
               if vkind[dst][0] == "out"]
    out_bytes = sum(size for kind, size in zip(reg_kind, reg_size) if kind == REG_OUTPUT)
    first_reader = next((_ops.entry_main_op(entry) for entry, _, srcs, _, _ in vinstr
                         if in_place & set(srcs)), None)
    return Program(tuple(instr), tuple(params), tuple(reg_kind), tuple(reg_arg),
                   tuple(reg_size), tuple(listing), tuple(red_reg), tuple(red_fn),
                   _cost.plain_stores(writers, ops, out_bytes),
                   _cost.prefetch_bits(len(in_place), _cost.chunk_passes(functions), first_reader),
                   _cost.work_ps(ops + [(fn, None) for fn in red_fn]),
                   out_bytes + sum(vsize[v] for v, kind in enumerate(vkind) if kind[0] == "in"))
