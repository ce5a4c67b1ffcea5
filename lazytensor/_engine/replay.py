"""Recording memo: replay the nodes a function built before, instead of rebuilding them.

Functions such as ``sum``, ``mean``, ``clip`` or ``astype`` spend most of a small call on
argument checks, promotion and axis normalisation, and then record a few nodes over their
one tensor argument.  What they record depends only on that tensor's dtype and shape and on
the other (plain) arguments, never on values or settings, and on whether the tensor is
pending or has a value (``astype(x, x.dtype)`` records nothing above a pending ``x`` but
copies a value, which may be the caller's array).  So the first call for a given
``(dtype, shape, pending, arguments)`` runs the function and keeps its recipe: the nodes
built above the input, each as ``(op, attrs, dtype, shape, operands)`` where an operand is
the input, an earlier step, or a constant node.  A later call with the same key rebuilds
those nodes straight from the recipe through the hash-consing table (in the caller's mode),
which gives the very nodes the function would have built.  The memo runs in C
(kernels_c/lt_fastpath.c: ``memo_call``, ``replay``); Python finds the recipes.

A call is not memoised when an argument besides the tensor is not a plain value (another
tensor, an array, an unhashable list), when the function raised, or when its result is not
made only of new pending nodes and constants above the input (a value computed now, a view
of an evaluated tensor).
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from . import caches as _caches
from .native import fastpath as _fastpath
from .tensor import Tensor

_MAX_RECIPES = 4096
_INPUT = -1            # an operand that is the function's tensor argument

stats = {"replays": 0, "recorded": 0}
_all_recipes: list = []    # every memoized function's recipes, for lt.empty_cache()


@_caches.on_release
def _release() -> None:
    for recipes in _all_recipes:
        recipes.clear()


def _recipe(out, source):
    """The steps that built ``out``'s node above ``source`` (a node), or None if ``out``
    is not made only of pending op nodes and constants above ``source``."""
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


def memoized(fn):
    """Wrap ``fn(x, *args, **kwargs)`` (``x`` a Tensor) with the recording memo: C's
    ``memo_call`` keys the call (kernels_c/lt_fastpath.c, ``plain``), replays a kept recipe
    or calls ``fn`` and keeps the recipe ``_recipe`` finds."""
    recipes: dict = {}
    _all_recipes.append(recipes)
    memo_call = _fastpath.memo_call

    @functools.wraps(fn)
    def wrapper(x, /, *args, **kwargs):
        return memo_call(recipes, fn, x, args, kwargs)

    wrapper.recipes = recipes
    return wrapper


_fastpath.setup_memo(sys.modules[__name__], stats, _recipe, np.dtype)
