"""lazytensor as a dask array backend: ``dask.config.set({"array.backend": "lazytensor"})``
makes dask's creation functions (``da.ones``, ``zeros``, ``empty``, ``full``, ``arange``)
and random ones (``da.random.default_rng``, ``RandomState`` and the module functions) build
Tensor blocks, where the tasks run (docs/dask.md).

dask finds a backend by name in its ``array_creation_dispatch``: registered there, or else
through the entry point group ``dask.array.backends`` (pyproject.toml names this module's
class), as dask's own "cupy" backend is.  lazytensor registers it with the chunk type
(``dask_chunks``) as well, so a process that has imported lazytensor has it whether or not
the installed metadata does.  Imported only once ``dask.array`` is.
"""

from __future__ import annotations

import functools

import numpy as np
from dask import config
from dask.array.backends import ArrayBackendEntrypoint


def _lt():
    import lazytensor

    return lazytensor


class PCG64(np.random.PCG64):
    """NumPy's PCG64 under lazytensor's name.

    dask's ``Generator`` finds the library that draws a block from the module of its bit
    generator's type (``_rng_from_bitgen``: ``lazytensor.random.default_rng(bitgen)``);
    the stream is NumPy's PCG64's, so a seed gives the values the "numpy" backend gives."""


def _meta():
    return _lt().empty((0,), dtype=np.float64)


def _with_tensor_meta(func, /, *args, meta=None, **kwargs):
    """dask's NumPy-backend function ``func`` (its name) with a Tensor meta: its blocks are made by
    ``np.ones_like(meta, ...)`` and the like, which a Tensor meta turns into lazytensor's
    (``Tensor.__array_function__``)."""
    import dask.array as da

    meta = _meta() if meta is None else meta
    with config.set({"array.backend": "numpy"}):
        return getattr(da, func)(*args, meta=meta, **kwargs)


def _to_tensor(data, **kwargs):
    return _lt().asarray(data)


class LazytensorBackendEntrypoint(ArrayBackendEntrypoint):
    """The "lazytensor" array backend (the ``dask.array.backends`` entry point)."""

    @classmethod
    def to_backend_dispatch(cls):
        return _to_tensor

    @classmethod
    def to_backend(cls, data, **kwargs):
        """``d.to_backend("lazytensor")``: ``d`` with Tensor blocks."""
        from .dask_arrays import tensor_blocks

        return tensor_blocks(data, "to_backend")

    @property
    def RandomState(self):
        return _lt().random.RandomState

    @property
    def default_bit_generator(self):
        return PCG64

    # ones, zeros, empty, full: dask's own with a Tensor meta (set after the class)

    @staticmethod
    def arange(*args, like=None, **kwargs):
        import dask.array as da

        like = _meta() if like is None else like
        with config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=like, **kwargs)


for _name in ("ones", "zeros", "empty", "full"):
    setattr(LazytensorBackendEntrypoint, _name,
            staticmethod(functools.partial(_with_tensor_meta, _name)))


def _register():
    from dask.array.backends import array_creation_dispatch

    if not isinstance(array_creation_dispatch._lookup.get("lazytensor"),
                      LazytensorBackendEntrypoint):
        array_creation_dispatch.register_backend("lazytensor", LazytensorBackendEntrypoint())


_register()
