"""Recording memo: replay the nodes a function built before, instead of rebuilding them.

Functions such as ``sum``, ``mean``, ``clip`` or ``astype`` spend most of a small call on
argument checks, promotion and axis normalisation, and then record a few nodes over their
one tensor argument.  What they record depends only on that tensor's dtype and shape and on
the other (plain) arguments, never on values or settings, and on whether the tensor is
pending or has a value (``astype(x, x.dtype)`` records nothing above a pending ``x`` but
copies a value, which may be the caller's array).  So the first call for a given
``(dtype, shape, pending, arguments)`` runs the function and keeps its recipe: the nodes built above
the input, each as ``(op, attrs, dtype, shape, operands)`` where an operand is the input,
an earlier step, or a constant node.  A later call with the same key rebuilds those nodes
straight from the recipe through the hash-consing table, which gives the very nodes the
function would have built.

A call is not memoised when an argument besides the tensor is not a plain value (another
tensor, an array, an unhashable list), when the function raised, or when its result is not
made only of new pending nodes and constants above the input (a value computed now, a view
of an evaluated tensor).
"""

from __future__ import annotations

import functools

import numpy as np

from . import caches as _caches
from . import graph as _graph
from .kernel import _fastpath

# the same loop in C when it is built (kernels_c/lt_fastpath.c)
_fast_replay = _fastpath.replay if _fastpath is not None else None

_MAX_RECIPES = 4096
_INPUT = -1            # an operand that is the function's tensor argument

stats = {"replays": 0, "recorded": 0}
_all_recipes: list = []    # every memoized function's recipes, for lt.empty_cache()


@_caches.on_release
def _release() -> None:
    for recipes in _all_recipes:
        recipes.clear()


def _plain(value):
    """A key for a plain argument (type included: True is not 1, 0.0 is not -0.0), or
    raise TypeError for an argument that cannot be part of a key."""
    kind = type(value)
    if kind is int or kind is str or value is None:
        return value
    if kind is float:
        return (float, value.hex())      # tells -0.0 from 0.0, and every NaN is one key
    if kind is bool:
        return (bool, value)
    if kind is tuple:
        return (tuple, tuple(map(_plain, value)))
    if isinstance(value, np.dtype):
        return (np.dtype, value)
    if isinstance(value, type):          # a scalar type given as a dtype (float, np.float32)
        return (type, value)
    raise TypeError("not a plain argument")


def _recipe(out, source):
    """The steps that built ``out``'s node above ``source`` (a node), or None if ``out``
    is not made only of pending op nodes and constants above ``source``."""
    from .tensor import Tensor

    if type(out) is not Tensor:
        return None
    root = out._node
    if root is source:
        return ()
    ref = {id(source): _INPUT}
    steps, stack = [], [root]
    while stack:
        node = stack[-1]
        if id(node) in ref:
            stack.pop()
            continue
        if node.value is not None or not node.inputs:
            if node.op != "const":
                return None              # a leaf: a value made now, not replayable
            ref[id(node)] = node         # constants are kept by the recipe
            stack.pop()
            continue
        pending = [x for x in node.inputs if id(x) not in ref]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        ref[id(node)] = len(steps)
        steps.append((node.op, node.attrs, node.dtype, node.shape,
                      tuple(ref[id(x)] for x in node.inputs)))
    return tuple(steps)


def _replay(steps, source):
    built = []
    for op, attrs, dtype, shape, operands in steps:
        inputs = tuple(source if r == _INPUT else built[r] if type(r) is int else r
                       for r in operands)
        built.append(_graph.op_node(op, inputs, attrs, dtype, shape))
    return built[-1] if built else source


def memoized(fn):
    """Wrap ``fn(x, *args, **kwargs)`` (``x`` a Tensor) with the recording memo."""
    from .tensor import Tensor

    recipes: dict = {}
    _all_recipes.append(recipes)
    new_tensor = object.__new__

    if _fastpath is not None:             # the same wrapper, in C (its keys are its own)
        memo_call = _fastpath.memo_call

        @functools.wraps(fn)
        def wrapper(x, /, *args, **kwargs):
            return memo_call(recipes, fn, x, args, kwargs)

        wrapper.recipes = recipes
        return wrapper

    @functools.wraps(fn)
    def wrapper(x, /, *args, **kwargs):
        if type(x) is not Tensor:
            return fn(x, *args, **kwargs)
        node = x._node
        try:
            key = (node.dtype, node.shape, node.value is None, tuple(map(_plain, args)),
                   tuple((k, _plain(v)) for k, v in kwargs.items()) if kwargs else ())
            steps = recipes.get(key)
        except TypeError:                # an argument that is not plain: no memo
            return fn(x, *args, **kwargs)
        if steps is not None:
            stats["replays"] += 1
            if _fast_replay is not None:
                return _fast_replay(steps, node)
            t = new_tensor(Tensor)
            t._node = _replay(steps, node)
            return t
        out = fn(x, *args, **kwargs)
        steps = _recipe(out, node)
        if steps is not None:
            if len(recipes) >= _MAX_RECIPES:
                recipes.clear()
            recipes[key] = steps
            stats["recorded"] += 1
        return out

    wrapper.recipes = recipes
    return wrapper


if _fastpath is not None:
    import sys

    _fastpath.setup_memo(sys.modules[__name__], stats, _recipe, np.dtype)
