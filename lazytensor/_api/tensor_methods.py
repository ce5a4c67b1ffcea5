"""The Tensor's surface: its operators and the methods that record, installed on the
engine's core Tensor (lazytensor/_engine/tensor.py) here and nowhere else, at package import.

The arithmetic and comparison operators on Tensor, int and float operands, ``-t``,
``abs(t)``, and ``_value``, ``numpy`` and ``__array__`` are C methods
(kernels_c/lt_fastpath.c: a Python frame around the recording cost as much as the recording);
the Python dunders defined here take every other operand, and C hands them those.
"""

from __future__ import annotations

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine import evaluate as _eval
from .._engine import views as _views
from .._engine import tensor as _tensor
from .._engine.native import fastpath as _fastpath
from .._engine.ops import OPS_LIST
from .._engine.record import binary, unary
from .._engine.tensor import Tensor
from . import manipulation, ndarray_methods
from . import writes as _writes
from .elementwise import FUNCTIONS, cast, positive
from .indexing import getitem, setitem
from .linear_algebra_functions import _matmul_op, _matmul_operand, _rmatmul_op, matmul
from .ndarray_methods import list_operand
from .numpy_protocols import LEAN_UFUNCS, array_function, array_ufunc

# The operators, from the table's rows (OpDef.dunders): binary ones with their reflected and
# in-place forms, comparisons forward only, unary ones (-t, abs(t), ~t) straight to the op.
_BINARY_DUNDERS = {d: op.name for op in OPS_LIST if op.arity == 2 and op.result != "bool"
                   for d in op.dunders}
_COMPARE_DUNDERS = {d: op.name for op in OPS_LIST if op.arity == 2 and op.result == "bool"
                    for d in op.dunders}
_UNARY_DUNDERS = {d: op.name for op in OPS_LIST if op.arity == 1 for d in op.dunders}
_LEAN_OPERANDS = frozenset((Tensor, int, float))


def _is_operand(x) -> bool:
    return (isinstance(x, (Tensor, np.ndarray, np.generic))
            or _dtypes.python_scalar_type(x) is not None)


def _dunders(fname):
    """The forward, reflected and in-place operator methods of table function ``fname``."""
    record = FUNCTIONS[fname]   # a table function: binary(fname, ...)

    # lists and tuples are operands as NumPy's asarray makes them (t + [1, 2, 3])
    def forward(self, other):
        if type(other) in _LEAN_OPERANDS or _is_operand(other):
            return binary(fname, self, other)
        if isinstance(other, (list, tuple)):
            return binary(fname, self, list_operand(other, fname))
        return NotImplemented

    def reflected(self, other):
        if type(other) in _LEAN_OPERANDS or _is_operand(other):
            return binary(fname, other, self)
        if isinstance(other, (list, tuple)):
            return binary(fname, list_operand(other, fname), self)
        return NotImplemented

    def inplace(self, other):
        if isinstance(other, (list, tuple)):
            other = list_operand(other, fname)
        if not _is_operand(other):
            return NotImplemented
        return _assign_in_place(self, record(self, other), fname)

    return forward, reflected, inplace


def _assign_in_place(self, result, what):
    """``self`` takes ``result``'s values (an in-place operator ``what``), which must keep
    its shape; tensors built from the old value keep it.  A result of another dtype is cast
    back where NumPy's ``same_kind`` rule allows it (int32 += int64, float32 *= float64),
    as NumPy's in-place operators do (``writes.assign``)."""
    return _writes.assign(self, result, f"in-place {what}")


def _imatmul(self, other):
    other = _matmul_operand(list_operand(other))
    return NotImplemented if other is None else _assign_in_place(self, matmul(self, other),
                                                                 "matmul")


def _mT(self) -> Tensor:
    """Transpose of the last two axes."""
    return manipulation.matrix_transpose(self)


def _unary_dunder(fname):
    def method(self):
        return unary(fname, self)
    return method


def _install() -> None:
    methods = {}
    for dunder, fname in _BINARY_DUNDERS.items():
        f, r, i = _dunders(fname)
        methods.update({f"__{dunder}__": f, f"__r{dunder}__": r, f"__i{dunder}__": i})
    for dunder, fname in _COMPARE_DUNDERS.items():
        methods[f"__{dunder}__"] = _dunders(fname)[0]
    for dunder, fname in _UNARY_DUNDERS.items():
        methods[f"__{dunder}__"] = _unary_dunder(fname)
    methods.update(
        # +x is a new tensor (as NumPy's): x += 1 on it leaves x alone
        __pos__=lambda self: _views.fresh(positive(self)),
        __getitem__=getitem, __setitem__=setitem,
        # lists and tuples as NumPy's asarray makes them (x @ [1, 2, 3])
        __matmul__=lambda self, other: _matmul_op(self, list_operand(other)),
        __rmatmul__=lambda self, other: _rmatmul_op(self, list_operand(other)),
        __imatmul__=_imatmul,
        mT=property(_mT, doc=_mT.__doc__),
        # NEP 13/18: NumPy's ufuncs and functions on tensors give tensors; with
        # __array_ufunc__ set, ndarray's operators hand tensors to it (not to
        # __array_priority__, which only older NumPy paths still read)
        __array_ufunc__=array_ufunc, __array_function__=array_function)
    # NumPy's ndarray methods, attributes and Python protocols (T, reshape, astype...)
    methods.update(ndarray_methods.methods())
    # the C methods: values (they hand a trace, or __array__ with a dtype or copy=True, to
    # the engine's Python methods) and the operators C takes (its LT_DUNDERS, each handing
    # other operands to the Python method of that name above)
    methods.update(_fastpath.setup_value(_tensor, Tensor._value, Tensor.__array__, _eval.lock,
                                         _eval.evaluate_one))
    methods.update(_fastpath.setup_operators(dict(methods)))
    # __array_ufunc__'s lean case (a call seen before, kept in LEAN_UFUNCS) in C
    methods.update(_fastpath.setup_protocols(LEAN_UFUNCS, array_ufunc))
    # float(t), int(t), operator.index(t), bool(t) of a real one-element tensor in C (the
    # rest to tensor.py's methods)
    methods.update(_fastpath.setup_scalars({
        name: Tensor.__dict__[name] for name in ("__float__", "__int__", "__index__",
                                                  "__bool__")}))
    # basic indexing, .T, reshape and transpose of plain memory in C (each handing the rest
    # to the Python function above)
    methods.update(_fastpath.setup_views(_views._lazy_base, _views._lazy_views, {
        "__getitem__": getitem, "T": ndarray_methods._T,
        "reshape": methods["reshape"], "transpose": methods["transpose"]}))
    methods["T"] = property(_fastpath.transposed, doc=ndarray_methods._T.__doc__)
    for name, method in methods.items():
        setattr(Tensor, name, method)
    # Tensor's type slots (t + u, t[key]...) straight to those C methods, without CPython's
    # lookup of the method at each call
    _fastpath.install_slots()


_install()
