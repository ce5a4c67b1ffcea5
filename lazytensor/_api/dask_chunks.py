"""A Tensor as a dask chunk type: ``dask.array.register_chunk_type(Tensor)`` and
``dask.sizeof`` of a Tensor, registered when dask is imported, whichever of lazytensor and
dask is imported first, without lazytensor importing dask (docs/dask.md).

dask offers no registration that a third party can make before dask is imported (the
``register_lazy`` hooks of its dispatch tables live on dask's own objects, so using one
needs dask imported).  So ``install()``, run once at ``import lazytensor``, registers now
what is already imported (``dask.sizeof``, ``dask.array``), and for the rest puts a finder
first on ``sys.meta_path`` that does nothing but wait for those modules: when one is
imported, it lets the other finders find it and registers right after the module has run,
then steps aside.  An import that is not dask's costs the finder one comparison.
"""

from __future__ import annotations

import sys

from .._engine.tensor import Tensor
from . import dask_threads as _dask_threads


def _tensor_bytes(t) -> int:
    """The bytes of a Tensor's value, evaluating a pending tensor first.

    dask asks the size of what it stores: distributed calls ``sizeof`` on every task's result
    in the thread that ran the task, right after it; so a block is evaluated when its task
    ends, ``persist()`` does the work, and the bytes counted are real ones.  Evaluating early
    never changes a value (laziness never changes a result).  If evaluating raises, the tensor
    stays pending and the size is still its result's: the same error is raised where the
    value is read, as it was before (distributed's own ``safe_sizeof`` would log and guess)."""
    if not _dask_threads.fitted:
        _dask_threads.fit_to_workers()    # a worker's share of the cores, before evaluating
    if not t.is_evaluated:
        try:
            t.numpy()
        except Exception:
            pass
    return int(t.size) * t.dtype.itemsize


def _register_sizeof():
    from dask.sizeof import sizeof

    sizeof.register(Tensor)(_tensor_bytes)


def _register_chunk_type():
    from dask.array import register_chunk_type
    from dask.array.chunk_types import is_valid_chunk_type

    if not is_valid_chunk_type(Tensor):
        register_chunk_type(Tensor)


def _register_dispatch():
    """Register a Tensor in ``dask.array.dispatch``'s tables, as ``dask.array.backends`` does
    NumPy's: each entry computes with lazytensor's function of the same name (or NumPy's
    ufunc, which ``Tensor.__array_ufunc__`` takes), so what dask computes on Tensor blocks
    stays a Tensor.  A table ``dask`` does not have in this version is skipped."""
    import dask.array.dispatch as dispatch

    from . import _dask_lookups

    for name, func in _dask_lookups.LOOKUPS.items():
        table = getattr(dispatch, name, None)
        if table is not None:
            table.register(Tensor, func)


def _register_array():
    _register_chunk_type()
    _register_dispatch()
    # "array.backend": "lazytensor" (also a dask entry point): the module registers it
    from . import dask_backend  # noqa: F401


_REGISTER = {"dask.sizeof": _register_sizeof, "dask.array": _register_array}


class _DaskWatch:
    """A ``sys.meta_path`` finder that registers with dask's modules once they have run."""

    def __init__(self):
        self.waiting = {}

    def find_spec(self, name, path=None, target=None):
        register = self.waiting.get(name)
        if register is None:
            return None
        del self.waiting[name]
        if not self.waiting and self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_then_register(module):
            exec_module(module)
            register()

        loader.exec_module = exec_then_register
        return spec


_watch = _DaskWatch()


def install():
    """Register with what of dask is imported; watch for the rest (idempotent)."""
    for name, register in _REGISTER.items():
        if name in sys.modules:
            _watch.waiting.pop(name, None)
            register()
        elif name not in _watch.waiting:
            _watch.waiting[name] = register
    if _watch.waiting and _watch not in sys.meta_path:
        sys.meta_path.insert(0, _watch)
    elif not _watch.waiting and _watch in sys.meta_path:
        sys.meta_path.remove(_watch)
