"""NumPy's ufunc arguments on lazytensor's functions of NumPy's ufunc names.

``lt.exp(x, out=y)``, ``lt.add(a, b, c)`` (a positional out), ``lt.sqrt(x, where=m, out=y)``,
``lt.multiply(a, b, dtype=lt.float32)``, ``lt.divmod(a, b, out=(q, r))``: a call with more than
the function's operands goes to NumPy's ufunc of that name with the operands as tensors, so
Tensor.__array_ufunc__ (numpy_protocols.py) serves it with NumPy's rules, and its result is
what NumPy's would be (the out tensors or arrays when given, new tensors otherwise).  A call with
the operands alone is the function itself, with nothing added but this check.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from .._engine.dtypes import python_scalar_type
from .._engine.tensor import Tensor
from .ndarray_args import operand
from .numpy_values import to_tensors


def ufunc_call(ufunc, name: str, args: tuple, kwargs: dict):
    """``name(*args, **kwargs)`` with more than the operands: NumPy's ``ufunc`` on them
    (None: the function takes no more than its operands)."""
    if ufunc is None:
        raise TypeError(f"{name} takes its operands only (NumPy has no ufunc {name!r} whose "
                        f"arguments it could take); got {len(args)} positional and "
                        f"{sorted(kwargs)} keyword arguments")
    nin = ufunc.nin
    # the operands as tensors (Python scalars stay weak), so that NumPy hands the call to
    # Tensor.__array_ufunc__ and lazytensor computes it as without the extra arguments
    operands = tuple(a if isinstance(a, Tensor) or python_scalar_type(a) is not None
                     else operand(a, name) for a in args[:nin])
    out_given = len(args) > nin or kwargs.get("out") is not None
    result = ufunc(*operands, *args[nin:], **kwargs)
    return result if out_given else to_tensors(result)


def taking_ufunc_args(fn, ufunc: np.ufunc, params):
    """``fn`` (lazytensor's function of ``ufunc``'s name, taking its operands and the
    keywords ``params``) also taking NumPy's ufunc arguments (``out``, ``where``,
    ``dtype``, ``casting`` ...)."""
    nin = ufunc.nin
    name = fn.__name__
    own = frozenset(params)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if len(args) <= nin and own.issuperset(kwargs):   # fn's own call (or its error)
            return fn(*args, **kwargs)
        return ufunc_call(ufunc, name, args, kwargs)
    wrapped.__doc__ = (fn.__doc__ or "").rstrip() + (
        "\n\nAlso takes NumPy's ufunc arguments (``out=``, ``where=``, ``dtype=``, "
        f"``casting=`` ...) as ``numpy.{ufunc.__name__}`` does.")
    return wrapped


def with_ufunc_args(functions: dict) -> dict:
    """The functions of ``functions`` named as NumPy's ufuncs, each taking NumPy's ufunc
    arguments (those that already take ``out=`` are left as they are)."""
    wrapped = {}
    for name, fn in functions.items():
        ufunc = getattr(np, name, None)
        if not isinstance(ufunc, np.ufunc) or not callable(fn) or isinstance(fn, type):
            continue
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        if "out" in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
            continue            # it takes them already (elementwise.py's, inline)
        wrapped[name] = taking_ufunc_args(fn, ufunc, params)
    return wrapped
