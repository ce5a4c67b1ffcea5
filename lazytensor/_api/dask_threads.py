"""How many kernel threads lazytensor uses in a dask worker process (docs/dask.md, "Threads
under dask").

A large kernel splits over ``lt.get_num_threads()`` threads, by default every core the
process may use.  Under dask's threaded scheduler that is right: the threads' evaluations
overlap in their kernels, and the one kernel pool never runs more than one job (a kernel that
finds it busy runs on its own thread, a job takes a thread fewer per other kernel running),
so the cores are shared, not multiplied.  A ``distributed`` cluster, though,
runs several worker processes on one machine, dividing its cores among them (each worker's
``nthreads``), and each process would start its own kernel threads on every core.  So
lazytensor in a worker process uses no more kernel threads than the worker runs tasks at
once, as distributed has OpenMP, MKL and OpenBLAS do (its
``distributed.nanny.pre-spawn-environ``).  It looks at ``import lazytensor`` (a worker
imports it when it unpickles a task that needs it) and, until it has found a worker, each
time dask sizes a Tensor: a worker process may have imported lazytensor before its worker
started (multiprocessing's spawn imports the parent's main module), and a worker sizes
each task's result, before evaluating it (``dask_chunks._tensor_bytes``).
"""

from __future__ import annotations

import os
import sys

from .._engine import config as _config


def _running_workers():
    module = sys.modules.get("distributed.worker")
    if module is None:
        return []
    closed = {"closing", "closed", "closing_gracefully", "failed"}
    return [w for w in list(module.Worker._instances)
            if getattr(getattr(w, "status", None), "name", "") not in closed]


fitted = False    # whether workers were found (and the threads fitted) in this process


def fit_to_workers() -> None:
    """In a process that runs distributed workers: at most as many kernel threads as they
    run tasks at once (their ``nthreads``), unless LAZYTENSOR_NUM_THREADS says otherwise;
    done once."""
    global fitted
    if fitted:
        return
    if os.environ.get("LAZYTENSOR_NUM_THREADS", "").strip():
        fitted = True
        return
    workers = _running_workers()
    if not workers:
        return
    fitted = True
    n = sum(w.state.nthreads for w in workers)
    if 0 < n < _config.get_num_threads():
        _config.set_num_threads(n)
