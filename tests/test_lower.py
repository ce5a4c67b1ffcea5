"""Lowering (lazytensor/_engine/lower.py) on its own: a group becomes a register program that,
run symbolically, computes every requested node's expression from the group's inputs.

The symbolic run is this test's own reading of the program (the instruction words and the
register kinds of kernels_c/lt_kernel.h): a LOAD or SCALAR register holds its input, an
instruction writes "op(args)" to its destination, an OUTPUT register must end holding its
node's expression, built here from the DAG alone.  So a register reused while its value is
still needed, a wrong operand or a lost output shows as a wrong expression."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor._engine import lower as _lower
from lazytensor._engine import ops as _ops
from lazytensor._engine.fuse import partition
from lazytensor._engine.graph import pending_topo_order
from lazytensor._engine.plan import make_plan

NAME = {code: entry for entry, code in _lower.OPCODE.items()}
WIDTH = 7          # LT_INSTR_WORDS
NATURAL = {"widen", "cast"}   # conversions: a float16 op's widening and narrowing


def _group_of(*tensors):
    roots = [t._node for t in tensors]
    groups = partition(roots, pending_topo_order(roots))
    assert len(groups) == 1, "test bug: expected one kernel"
    return groups[0]


def _plan_of(group):
    return make_plan(group.shape, [(x.shape, tuple(x.value.strides) if x.value.ndim else (),
                                    x.dtype.itemsize) for x in group.inputs])


def _strip(expr):
    """An expression without the float16 conversions (widen, cast) around float32 ops."""
    def parse(i):
        j = i
        while j < len(expr) and expr[j] not in "(),":
            j += 1
        name, args = expr[i:j], []
        if j < len(expr) and expr[j] == "(":
            j += 1
            while expr[j] != ")":
                arg, j = parse(j)
                args.append(arg)
                if expr[j] == ",":
                    j += 1
            j += 1
        if name in NATURAL:
            return args[0], j
        return name + (f"({','.join(args)})" if args else ""), j

    return parse(0)[0]


def _expected(node, group):
    """The expression of ``node`` from the DAG: inputs by position, ops by name."""
    if node in group.inputs:
        return f"in{group.inputs.index(node)}"
    args = ",".join(_expected(x, group) for x in node.inputs)
    return f"{node.op}({args})"


def _run_symbolically(program, group):
    regs = {}
    for r, (kind, arg) in enumerate(zip(program.reg_kind, program.reg_arg)):
        if kind in (_lower.REG_LOAD, _lower.REG_SCALAR):
            regs[r] = f"in{arg}"
    modes = []
    for i in range(program.n_instr):
        op, dst, a, b, c, d, exact = program.instr[WIDTH * i:WIDTH * (i + 1)]
        name = NAME[op][0]
        args = [regs[r] for r in (a, b, c, d) if r >= 0]
        if name.startswith("fused_"):    # the body's tree over its operands x, a, b, c
            tree = _ops.FUSED[name[6:]].tree
            regs[dst] = _expand(tree, dict(zip(_ops.FUSED_OPERANDS, args)))
            modes += [(op_name, exact) for op_name in _ops.fused_ops(tree)]
        else:
            regs[dst] = f"{name}({','.join(args)})"
            modes.append((name, exact))
    outs = {arg: regs[r] for r, (kind, arg) in enumerate(zip(program.reg_kind, program.reg_arg))
            if kind == _lower.REG_OUTPUT}
    return outs, modes


def _expand(tree, operands):
    if isinstance(tree, str):
        return operands[tree]
    name = tree[0]
    return f"{name}({','.join(_expand(child, operands) for child in tree[1:])})"


UNARY = [lt.exp, lt.negative, lt.abs, lt.sqrt, lt.tanh, lt.nn.relu]
BINARY = [lt.add, lt.multiply, lt.subtract, lt.maximum]


@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 99),
                                  st.integers(0, 99), st.sampled_from(["exact", "fast"])),
                        min_size=1, max_size=12),
       n_out=st.integers(1, 3), dtype=st.sampled_from(["float32", "float64", "float16"]))
def test_program_computes_each_output_from_the_dag(choices, n_out, dtype):
    x = lt.asarray(np.linspace(0.5, 2, 40, dtype=dtype).reshape(4, 10))
    y = lt.asarray(np.linspace(1, 3, 10, dtype=dtype))          # broadcast along rows
    values = [x, y]
    for unary, k, i, j, mode in choices:
        with lt.mode(mode):
            if unary:
                values.append(UNARY[k % len(UNARY)](values[i % len(values)]))
            else:
                values.append(BINARY[k % len(BINARY)](values[i % len(values)],
                                                       values[j % len(values)]))
    results = [v for v in values[2:] if v.shape == (4, 10)][-n_out:]
    if not results:
        return
    roots = [t._node for t in results]
    for group in partition(roots, pending_topo_order(roots)):
        if group.sinks or any(x.value is None for x in group.inputs):
            continue                  # a group reading another group's output: no layout
        program = _lower.lower(group, _plan_of(group))
        outs, modes = _run_symbolically(program, group)
        for k, node in enumerate(group.outputs):
            assert _strip(outs[k]) == _expected(node, group)
        # each op's instruction carries the mode its node was recorded in
        want = [(m.op, m.exact) for m in group.members]
        got = [(name, bool(e)) for name, e in modes if name not in NATURAL]
        assert sorted(want) == sorted(got)     # a fused body lists its ops in its own order
        assert program.exact == any(m.exact for m in group.members)


def test_float16_ops_are_widened_computed_in_float32_and_rounded_once():
    x = lt.asarray(np.ones(8, np.float16))
    group = _group_of(lt.exp(x) * 2.0)
    program = _lower.lower(group, _plan_of(group))
    entries = [NAME[program.instr[WIDTH * i]] for i in range(program.n_instr)]
    assert ("widen", "float16") in entries
    assert ("exp", "float32") in entries and ("multiply", "float32") in entries
    assert entries[-1] == ("cast", "float32_float16")
    assert entries.count(("cast", "float32_float16")) == 2   # each op's result rounded once


@pytest.mark.parametrize("modes,fused", [(("exact",) * 4, True), (("fast",) * 4, True),
                                         (("exact", "fast", "exact", "exact"), False)])
def test_quantize_chain_fuses_only_within_one_mode(modes, fused):
    x = lt.asarray(np.linspace(-3, 3, 64, dtype=np.float32))
    with lt.mode(modes[0]):
        q = x / 0.05
    with lt.mode(modes[1]):
        q = lt.round(q)
    with lt.mode(modes[2]):
        q = q + 3.0
    with lt.mode(modes[3]):
        q = lt.astype(q, lt.uint8)
    group = _group_of(q)
    program = _lower.lower(group, _plan_of(group))
    entries = [NAME[program.instr[WIDTH * i]][0] for i in range(program.n_instr)]
    assert (entries == ["quantize"]) == fused, entries
    outs, _ = _run_symbolically(program, group)
    if not fused:    # the division by a scalar is its own entry; the cast is a conversion
        got = _strip(outs[0]).replace("divide_by_scalar(", "divide(")
        assert got == _strip(_expected(group.outputs[0], group))


def test_every_table_entry_has_an_opcode():
    entries = set(_ops.kernel_entries())
    assert set(_lower.OPCODE) == entries
    assert sorted(_lower.OPCODE.values()) == list(range(len(entries)))
