"""An op is one row of the operator table (lazytensor/_engine/ops.py): its exposure, its
operators, the NumPy ufunc it computes and its cost figure come from the row, and a row that
lacks one of them (or a reference entry in tests/ops_reference.py) fails here."""

import re

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import cost
from lazytensor._engine.ops import OPS_LIST

ROWS = [pytest.param(op, id=op.name) for op in OPS_LIST]


def _resolve(spelling):
    """The callable a spelling such as 'lt.nn.gelu(approximate="tanh")' names."""
    target = lt
    for part in spelling.split("(")[0].split(".")[1:]:
        target = getattr(target, part)
    return target


@pytest.mark.parametrize("op", ROWS)
def test_every_row_is_exposed(op):
    fn = _resolve(op.spelling)
    assert callable(fn), op.spelling
    if op.expose is None:   # made from the row: it records this op
        x = lt.asarray(np.linspace(0.25, 0.75, 4, dtype=np.int32 if "f" not in op.kinds
                                   else np.float32))
        if op.name in ("floor", "ceil", "round", "trunc", "isnan", "isinf", "isfinite"):
            x = lt.asarray(np.linspace(0.25, 0.75, 4, dtype=np.float32))
        if "b" in op.kinds and not set(op.kinds) & set("iuf"):
            x = x > 0.5
        out = fn(*[x] * op.arity)
        assert out._node.op == op.name


@pytest.mark.parametrize("op", ROWS)
def test_every_row_has_a_cost_figure(op):
    fast, exact = op.cost
    assert 0 < fast < 100 and 0 < exact < 100
    assert cost.NS_PER_ELEMENT[op.name] == op.cost


@pytest.mark.parametrize("op", ROWS)
def test_every_row_names_its_numpy_ufunc(op):
    if op.ufunc:
        assert isinstance(getattr(np, op.ufunc), np.ufunc), op.ufunc


@pytest.mark.parametrize("op", ROWS)
def test_every_row_has_a_reference(op):
    from ops_reference import REFERENCES

    assert op.name in REFERENCES


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in OPS_LIST if op.dunders])
def test_every_operator_of_a_row_records_its_op(op):
    x = lt.asarray(np.array([1, 2, 3], dtype=np.float32 if "f" in op.kinds else np.int32))
    for d in op.dunders:
        if op.arity == 1:
            assert getattr(x, f"__{d}__")()._node.op == op.name
            continue
        names = [f"__{d}__"] + ([] if op.result == "bool" else [f"__r{d}__"])
        for name in names:
            assert getattr(x, name)(x)._node.op == op.name, name


def test_the_operators_in_c_are_rows_operators():
    """kernels_c/ext/record.c lists the operators it takes in C (LT_DUNDERS): each must be
    one of its row's."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "kernels_c" / "ext" / "record.c").read_text()
    rows = {op.name: op for op in OPS_LIST}
    listed = re.findall(r'X\(\d+, "__(r?)(\w+)__", "(\w+)", (\d)\)', text)
    assert listed
    for reflected, dunder, name, flag in listed:
        base = dunder if dunder in rows[name].dunders else None
        assert base is not None, f"__{reflected}{dunder}__ is not an operator of {name}'s row"
        assert (reflected == "r") == (flag == "1")
