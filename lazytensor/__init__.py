"""lazytensor: NumPy-style tensors whose elementwise work is recorded lazily, fused, and run
by one C loop over chunks of 256 elements, bit-reproducibly by default.

>>> import lazytensor as lt
>>> x = lt.asarray([1.0, 2.0, 3.0], dtype=lt.float32)
>>> y = lt.nn.gelu(x) + 1.0      # recorded, not run
>>> print(lt.explain(y))         # one fused kernel
>>> y.numpy()                    # runs it
"""

from ._engine.config import config, get_mode, get_num_threads, mode, set_mode, set_num_threads
from ._api.creation import *  # noqa: F401,F403
from ._engine.dtypes import (bool_ as bool, complex64, complex128, float16, float32, float64, int8,
                      int16, int32, int64, uint8, uint16, uint32, uint64)
from ._api.elementwise import FUNCTIONS as _FUNCTIONS
from ._engine.errors import Unsupported
from ._engine.evaluate import counters as _counters
from ._engine.evaluate import evaluate as _evaluate, lock as _eval_lock
from ._engine.explain import Explanation, explain
from ._engine.jit import jit
from ._engine.kernel import CHUNK as chunk_size
from ._engine.kernel import kernel_paths
from ._api.manipulation import *  # noqa: F401,F403
from ._api.statistical import *  # noqa: F401,F403
from ._engine.tensor import Tensor
from ._engine import tensor as _tensor_module
from ._api import tensor_methods as _tensor_methods  # noqa: F401  (the Tensor surface)
from ._api import dask_arrays as _dask_arrays  # noqa: F401  (lt's functions on dask arrays)
from ._api import dask_chunks as _dask_chunks
from ._api import dask_threads as _dask_threads

_dask_chunks.install()      # a Tensor is a dask chunk type once dask is imported (docs/dask.md)
_dask_threads.fit_to_workers()   # in a dask worker process: its share of the cores
# Array API chapters: each module lists its public names in __all__
from ._api.indexing import *  # noqa: F401,F403
from ._api.searching import *  # noqa: F401,F403
from ._api.sorting import *  # noqa: F401,F403
from ._api.sets import *  # noqa: F401,F403
from ._api.utility import *  # noqa: F401,F403
from ._api.data_type_functions import *  # noqa: F401,F403
from ._api.info import *  # noqa: F401,F403
from ._api.linear_algebra_functions import *  # noqa: F401,F403
from ._api.ndarray_methods import *  # noqa: F401,F403  (dot, copy, around)
from ._api.numpy_numerics import *  # noqa: F401,F403  (NumPy's statistics, linalg, numerics)
from . import fft, linalg, nn, onnx, random  # noqa: E402  (after the namespace they build on)

globals().update(_FUNCTIONS)
from ._api.numpy_names import *  # noqa: F401,F403,E402  (NumPy's names; replaces the dtypes)

_dask_arrays.serve(globals())   # the functions that convert operands in Python take dask arrays

__version__ = "0.1.0"

import math as _math

e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan
newaxis = None


def eval(*tensors):
    """Evaluate several tensors together, so work they share runs once.

    Returns the tensors (now holding values), a single tensor if one was given.
    """
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"eval: expected Tensors, got {type(t).__name__}")
    nodes = [t._node for t in tensors]
    _tensor_module.note_reads(nodes)          # during a jit trace: fn needed values
    _eval_lock.enter(nodes)
    try:
        _evaluate(nodes)
    finally:
        _eval_lock.release()
    return tensors[0] if len(tensors) == 1 else tensors


def kernel_path() -> str:
    """The kernel path in use: the best of ``kernel_paths()`` unless set with
    ``lt.config(kernel_path=...)`` or LAZYTENSOR_KERNEL_PATH."""
    from ._engine.kernel import get_kernel_path

    return get_kernel_path()


def stats():
    """Counters: evaluation requests, kernel launches, evaluations run by blocks of rows,
    kernel-cache hits and misses, and the output pool (hits, misses, bytes held, bytes
    handed out)."""
    from ._engine.evaluate import flush_counts
    from ._engine.kernel import cache_stats
    from ._engine.memory import stats as memory_stats

    flush_counts()
    return {**_counters, **cache_stats, **memory_stats}


def empty_cache():
    """Release what lazytensor keeps between evaluations.

    That is the pool of output buffers (buffers still in use are not affected), the
    compiled kernels and kept evaluation plans (and the C quick path's memo of them), the
    recording memo's recipes, the traces of ``lt.jit`` functions and the small caches of
    dtype and shape rules.  Everything is rebuilt as it is needed again: the next
    evaluation of each expression plans and compiles afresh.  (The kernel and plan caches
    are bounded by the size of what they hold in any case, so plans of huge DAGs do not
    stay; this is for giving the memory back now.)
    """
    from ._engine.caches import release_all

    release_all()
