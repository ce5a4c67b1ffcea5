"""Output buffers: a bounded pool that takes back the memory of dead tensors.

A loop that evaluates the same expression again and again would otherwise pay the page
faults of a fresh output every time (the kernel's memory traffic is cheaper than mapping
new pages).  Buffers of 128 KiB and more come from the pool; a buffer goes back to it when
the last array using it (the tensor's value and every view of it) is gone.  The pool keeps
at most LAZYTENSOR_POOL_BYTES (default 512 MiB): a buffer given back to a full pool makes
room by freeing the buffers of the sizes used least recently (a pool filled by an earlier
phase of other sizes would otherwise refuse every buffer of the loop that runs now), and
``lt.empty_cache()`` releases it all.
"""

from __future__ import annotations

import collections
import itertools
import math

import numpy as np

from .config import env_int
from . import caches as _caches
from .kernel import ffi, lib

POOL_MIN_BYTES = 128 << 10
# the most bytes of freed outputs kept for reuse (0: none)
POOL_LIMIT = env_int("LAZYTENSOR_POOL_BYTES", 512 << 20, 0)

# size class -> free pointers; deque append/pop are atomic under the GIL, and the give-back
# runs from garbage collection, where taking a lock could deadlock
_free: "collections.defaultdict[int, collections.deque]" = collections.defaultdict(collections.deque)
stats = {"pool_hits": 0, "pool_misses": 0, "pooled_bytes": 0, "allocated_bytes": 0}
_last_use: dict = {}           # size class -> tick of its last hand-out or give-back
_ticks = itertools.count()     # next() is atomic under the GIL


def _size_class(nbytes: int) -> int:
    """Round up to one of 8 steps per power of two (at most 12.5% unused)."""
    step = max(4096, (1 << (nbytes.bit_length() - 1)) >> 3)
    return -(-nbytes // step) * step


def _give_back(ptr, size: int) -> None:
    _last_use[size] = next(_ticks)
    if stats["pooled_bytes"] + size > POOL_LIMIT:
        _evict(POOL_LIMIT - size)
    if stats["pooled_bytes"] + size <= POOL_LIMIT:
        _free[size].append(ptr)
        stats["pooled_bytes"] += size
    else:
        lib.lt_free(ptr)


def _evict(keep_bytes=None) -> None:
    """Free pooled buffers, those of the size classes used least recently first, until at
    most ``keep_bytes`` stay pooled (None: all of them)."""
    for size in sorted(list(_free), key=lambda s: _last_use.get(s, -1)):
        queue = _free[size]
        while keep_bytes is None or stats["pooled_bytes"] > keep_bytes:
            try:
                ptr = queue.pop()
            except IndexError:
                break
            stats["pooled_bytes"] -= size
            lib.lt_free(ptr)
        if keep_bytes is not None and stats["pooled_bytes"] <= keep_bytes:
            return


def empty(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """An uninitialised C-contiguous array for a kernel to write."""
    nbytes = math.prod(shape) * dtype.itemsize
    stats["allocated_bytes"] += nbytes
    if nbytes < POOL_MIN_BYTES:
        return np.empty(shape, dtype)
    size = _size_class(nbytes)
    try:
        ptr = _free[size].pop()
        stats["pooled_bytes"] -= size
        stats["pool_hits"] += 1
        _last_use[size] = next(_ticks)
    except IndexError:
        ptr = lib.lt_alloc(size)
        if ptr == ffi.NULL:
            raise MemoryError(f"lazytensor could not allocate {nbytes} bytes for a "
                              f"{dtype.name} tensor of shape {shape}") from None
        stats["pool_misses"] += 1
    owner = ffi.gc(ptr, lambda p, size=size: _give_back(p, size), size=size)
    return np.frombuffer(ffi.buffer(owner, nbytes), dtype=dtype).reshape(shape)


@_caches.on_release
def empty_cache() -> None:
    """Release the memory the pool holds (buffers still in use are not affected)."""
    _evict(None)
