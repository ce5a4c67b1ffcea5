"""Tensor's type slots (kernels_c/ext/slots.c): t + u, t < u, -t, abs(t) and t[key] go
straight to the C methods, and give for every pair of operands what CPython's own generic
slots give (the same method called, the same result or error), including subclasses,
NumPy arrays and scalars, objects with reflected methods and operands nothing takes."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine.native import fastpath as _fastpath

SLOTTED = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
           "__truediv__", "__rtruediv__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__",
           "__ne__", "__neg__", "__abs__", "__getitem__")


class SubTensor(lt.Tensor):
    __slots__ = ()


class SubWithReflected(lt.Tensor):
    __slots__ = ()

    def __radd__(self, other):
        return "SubWithReflected.__radd__"

    def __gt__(self, other):
        return "SubWithReflected.__gt__"


class Reflects:
    def __radd__(self, other):
        return "Reflects.__radd__"

    def __rmul__(self, other):
        return NotImplemented

    def __lt__(self, other):
        return "Reflects.__lt__"


class NoUfuncs:
    __array_ufunc__ = None


def _operands():
    base = np.array([1.5, -2.0, 3.0, 0.0], np.float32)
    t = lt.asarray(base)
    return {
        "tensor": t,
        "int tensor": lt.asarray(np.array([1, 2, 3, 4])),
        "bool tensor": lt.asarray(np.array([True, False, True, True])),
        "subclass": SubTensor._from_node(lt.asarray(base * 2)._node),
        "subclass with reflected": SubWithReflected._from_node(lt.asarray(base - 1)._node),
        "int": 3, "float": 0.5, "bool": True, "complex": 2j, "big int": 2**70,
        "np.float32": np.float32(2), "ndarray": base[::-1].copy(), "list": [1, 2, 3, 4],
        "str": "x", "None": None, "Reflects": Reflects(), "NoUfuncs": NoUfuncs(),
    }


def _outcome(fn, *args):
    """What a call gave, comparable across runs: its value and type, or its error."""
    try:
        r = fn(*args)
    except Exception as exc:                                # noqa: BLE001
        return ("raised", type(exc).__name__, str(exc))
    if isinstance(r, lt.Tensor):
        v = np.asarray(r)
        return (type(r).__name__, v.dtype.str, v.shape, v.tobytes())
    if isinstance(r, np.ndarray):
        return (type(r).__name__, r.dtype.str, r.shape, r.tobytes())
    return (type(r).__name__, repr(r))


BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.lt,
          operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


def _all_outcomes():
    ops = _operands()
    tensors = [k for k, v in ops.items() if isinstance(v, lt.Tensor)]
    out = {}
    for op in BINARY:
        for left in tensors:
            for right in ops:
                out[op.__name__, left, right] = _outcome(op, ops[left], ops[right])
                out[op.__name__, right, left] = _outcome(op, ops[right], ops[left])
    for left in tensors:
        out["neg", left] = _outcome(operator.neg, ops[left])
        out["abs", left] = _outcome(abs, ops[left])
        for key in (1, -1, slice(1, None), (slice(None, None, -1),), None, Ellipsis, 7,
                    [0, 2], "a", (0, 0), slice(None, None, 0)):
            out["getitem", left, repr(key)] = _outcome(operator.getitem, ops[left], key)
    return out


def _generic_slots():
    """Give Tensor CPython's generic slots back (assigning a dunder makes CPython reset its
    slot), as they were before install_slots."""
    for name in SLOTTED:
        setattr(lt.Tensor, name, lt.Tensor.__dict__[name])


def test_the_slots_are_installed_at_import():
    assert _fastpath.slots_installed()


def test_slots_give_what_cpythons_generic_slots_give():
    with_c_slots = _all_outcomes()
    try:
        _generic_slots()
        assert not _fastpath.slots_installed()
        generic = _all_outcomes()
    finally:
        _fastpath.install_slots()
    assert _fastpath.slots_installed()
    assert with_c_slots.keys() == generic.keys()
    differ = {k: (with_c_slots[k], generic[k]) for k in generic if with_c_slots[k] != generic[k]}
    assert not differ
    # (the sweep reached the reflected methods and the errors, not only lean cases)
    seen = {v[1] for v in generic.values() if v[0] == "str"}
    assert {"'Reflects.__radd__'", "'SubWithReflected.__radd__'", "'Reflects.__lt__'",
            "'SubWithReflected.__gt__'"} <= seen
    assert sum(v[0] == "raised" for v in generic.values()) > 20


def test_a_dunder_set_on_tensor_takes_over_from_the_slot(monkeypatch):
    t = lt.asarray(np.ones(3, np.float32))
    monkeypatch.setattr(lt.Tensor, "__add__", lambda self, other: "patched")
    assert t + 1 == "patched"
    assert not _fastpath.slots_installed()
    monkeypatch.undo()
    np.testing.assert_array_equal((t + 1).numpy(), np.full(3, 2, np.float32))
    _fastpath.install_slots()
    assert _fastpath.slots_installed()
    np.testing.assert_array_equal((t + 1).numpy(), np.full(3, 2, np.float32))


@pytest.mark.parametrize("name", ["__add__", "__getitem__", "__neg__"])
def test_install_slots_refuses_when_an_operator_is_not_the_c_method(name, monkeypatch):
    """install_slots only replaces slots whose methods are the C ones it calls."""
    monkeypatch.setattr(lt.Tensor, name, lambda self, *other: "patched")
    with pytest.raises(RuntimeError, match="install_slots"):
        _fastpath.install_slots()
    monkeypatch.undo()
    _fastpath.install_slots()
    assert _fastpath.slots_installed()
