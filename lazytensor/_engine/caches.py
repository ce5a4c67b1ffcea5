"""The caches lazytensor keeps, their bounds, and their release by ``lt.empty_cache()``.

Compiled kernels, kept evaluation plans (the quick table) and jit traces hold something the
size of the DAG they were made for: a kept plan's key lists every node of its DAG.  Such a
cache is bounded by the total size of its entries (counted in key items or nodes, which the
rest of an entry is proportional to) as well as by their count, so that plans of a few huge
DAGs cannot hold gigabytes after their tensors are gone.  An entry larger than half the
budget is not kept at all (its DAG costs about as much to evaluate as to plan).

``release_all`` (``lt.empty_cache()``) empties every cache a module registered with
``on_release`` and every ``functools.lru_cache`` of the package's modules.
"""

from __future__ import annotations

import functools
import itertools
import sys
import threading

_releasers: list = []


def on_release(fn):
    """Register ``fn()`` to be called by :func:`release_all` (usable as a decorator)."""
    _releasers.append(fn)
    return fn


def release_all() -> None:
    """Empty every registered cache and the package's ``lru_cache`` functions."""
    for fn in list(_releasers):
        fn()
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "lazytensor" or name.startswith("lazytensor.")):
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


class SizedTable:
    """A dict of at most ``max_entries`` entries whose sizes add up to at most ``budget``.

    ``table`` is a plain dict, which the C quick paths read directly (and, with its
    version tag, memoize): it is changed only by ``put``, ``clear`` and evictions.  A hit
    through ``get`` records its tick in ``used`` instead of moving the entry, so a ``put``
    over a bound evicts the least recently used entries as far as Python saw them (a hit
    of a C path counts as its entry's last ``put``): for the size budget, entries larger
    than an average share (``budget / max_entries``) first, so that a few big plans do not
    flush the many small ones of a repeated expression; for the count, any.
    """

    def __init__(self, budget: int, max_entries: int):
        self.table: dict = {}
        self.sizes: dict = {}
        self.used: dict = {}
        self.total = 0
        self.budget = budget
        self.max_entries = max_entries
        self.lock = threading.Lock()
        self._ticks = itertools.count()

    def get(self, key):
        """The value kept for ``key``, or None."""
        value = self.table.get(key)
        if value is not None:
            self.used[key] = next(self._ticks)
            if key not in self.table:      # evicted meanwhile by another thread
                self.used.pop(key, None)
        return value

    def put(self, key, value, size: int) -> bool:
        """Keep ``value`` for ``key`` unless it is larger than half the budget; evict what
        the bounds require.  Whether it was kept."""
        if size > self.budget // 2:
            return False
        with self.lock:
            old = self.sizes.pop(key, None)
            if old is not None:
                self.total -= old
            self.table[key] = value
            self.sizes[key] = size
            self.used[key] = next(self._ticks)
            self.total += size
            if len(self.sizes) > self.max_entries or self.total > self.budget:
                self._evict(key)
        return True

    def _evict(self, keep) -> None:
        order = sorted((k for k in self.sizes if k != keep), key=lambda k: self.used.get(k, -1))
        if self.total > self.budget:
            share = self.budget // max(self.max_entries, 1)
            for k in [k for k in order if self.sizes[k] > share]:
                self._drop(k)
                if self.total <= self.budget:
                    break
        for k in order:
            if len(self.sizes) <= self.max_entries and self.total <= self.budget:
                break
            if k in self.sizes:
                self._drop(k)

    def _drop(self, key) -> None:
        self.total -= self.sizes.pop(key)
        self.used.pop(key, None)
        self.table.pop(key, None)

    def clear(self) -> None:
        with self.lock:
            self.table.clear()
            self.sizes.clear()
            self.used.clear()
            self.total = 0

    def __len__(self) -> int:
        return len(self.table)
