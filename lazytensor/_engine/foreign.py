"""Operands lazytensor does not hold but another library runs block by block: dask arrays.

Converting one would compute the whole array in this process (a dask array's ``__array__``
does), so ``asarray`` refuses it with ``ForeignOperand`` instead.  The namespace's
functions catch that (lazytensor/_api/dask_arrays.py) and run the call block by block.
Nothing here imports dask: a dask array can only exist once ``dask.array`` is imported, so
``sys.modules`` answers whether an operand is one.
"""

from __future__ import annotations

import sys


class ForeignOperand(TypeError):
    """An operand is a dask array, which lazytensor runs block by block only through its
    namespace's functions (docs/dask.md), never by converting it."""


def is_dask(x) -> bool:
    """Whether ``x`` is a dask array (without importing dask)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(x, da.Array)


def refuse_dask_in(items, what: str) -> None:
    """ForeignOperand naming ``what`` if a dask array is among ``items`` (or inside a list or
    tuple among them)."""
    if sys.modules.get("dask.array") is None:     # no dask array can exist: nothing to walk
        return
    for x in items:
        if isinstance(x, (list, tuple)):
            refuse_dask_in(x, what)
        else:
            refuse_dask(x, what)


def refuse_dask(x, what: str) -> None:
    """ForeignOperand naming ``what`` if ``x`` is a dask array."""
    if is_dask(x):
        raise ForeignOperand(f"{what}: got a dask array; lazytensor's functions take it "
                             f"block by block (docs/dask.md), nothing converts it whole")
