"""Run-time settings: exact or fast mode, and the number of kernel threads."""

from __future__ import annotations

import contextvars
import os

from .native import fastpath

_MODES = ("exact", "fast")
_mode = contextvars.ContextVar("lazytensor_mode", default="exact")


def env_int(name: str, default: int, minimum: int) -> int:
    """The integer in environment variable ``name`` (``default`` when unset or empty).

    Raises
    ------
    ValueError
        Naming the variable and its value, when it is not an integer of at least
        ``minimum`` (read at import: a typo must not pass silently).
    """
    env = os.environ.get(name, "").strip()
    if not env:
        return default
    try:
        n = int(env)
    except ValueError:
        n = None
    if n is None or n < minimum:
        least = "a positive integer" if minimum == 1 else f"an integer of at least {minimum}"
        raise ValueError(f"{name} must be {least}, not {env!r}")
    return n


def _default_threads() -> int:
    if os.environ.get("LAZYTENSOR_NUM_THREADS", "").strip():
        return env_int("LAZYTENSOR_NUM_THREADS", 1, 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_num_threads = _default_threads()


def set_mode(name: str) -> None:
    """Set the mode of the ops recorded from now on in this thread/context.

    The mode belongs to an op: it is taken when the op is recorded, and the op computes in
    it whenever and wherever its value is computed.

    Parameters
    ----------
    name : {"exact", "fast"}
        ``"exact"`` (the default) gives the same bits on every machine, kernel path and
        thread count; ``"fast"`` allows FMA and faster polynomials within a few ulp.
    """
    if name not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, not {name!r}")
    _mode.set(_MODES[_MODES.index(name)])     # the interned name: compared by identity in C


def get_mode() -> str:
    """Return the current evaluation mode, ``"exact"`` or ``"fast"``."""
    return _mode.get()


# lt.mode is a C type (kernels_c/lt_fastpath.c): entering and leaving it is part of every call
# of a small expression written in a `with lt.mode(...)` block, and a Python class's three
# calls cost a tenth of such a call.
mode = fastpath.setup_mode(_mode, """Context manager: the ops recorded inside the block compute
    in mode ``name`` (whenever their values are computed); the previous mode is restored on
    exit.

    Examples
    --------
    >>> with lt.mode("fast"):
    ...     b = lt.exp(x).numpy()
    """)


def set_num_threads(n: int) -> None:
    """Set how many threads a large kernel may be split over (results do not depend on it)."""
    global _num_threads
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"set_num_threads takes a positive integer, not {n!r}")
    _num_threads = n


def get_num_threads() -> int:
    """Return how many threads a large kernel may be split over."""
    return _num_threads


class config:
    """Change settings: ``lt.config(kernel_path="avx2", num_threads=1, mode="fast")``.

    Each keyword left as None is unchanged.  Used as a context manager, it restores the
    previous settings on exit::

        with lt.config(kernel_path="generic"):
            ...

    Parameters
    ----------
    kernel_path : str, optional
        One of ``lt.kernel_paths()`` (also settable with LAZYTENSOR_KERNEL_PATH).
    num_threads : int, optional
        See :func:`set_num_threads`.
    mode : {"exact", "fast"}, optional
        See :func:`set_mode`.
    """

    def __init__(self, *, kernel_path=None, num_threads=None, mode=None):
        from . import kernel as _kernel

        self._old = (_kernel.get_kernel_path(), get_num_threads(), get_mode())
        try:
            if kernel_path is not None:
                _kernel.set_kernel_path(kernel_path)
            if num_threads is not None:
                set_num_threads(num_threads)
            if mode is not None:
                set_mode(mode)
        except Exception:
            self._restore()
            raise

    def _restore(self):
        from . import kernel as _kernel

        path, threads, mode_name = self._old
        _kernel.set_kernel_path(path)
        set_num_threads(threads)
        set_mode(mode_name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._restore()
        return False
