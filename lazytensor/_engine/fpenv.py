"""The library's own floating-point state around what Python has NumPy compute.

Exact mode's bits are defined under round to nearest without flush-to-zero or
denormals-are-zero, whatever state the caller left the thread in (another library may have
turned FTZ/DAZ on, or changed the rounding mode).  The kernels switch to that state
themselves (kernels_c/lt_fpenv.h); the few roundings lazytensor leaves to NumPy (a Python
scalar converted to a tensor's dtype, a reduction's accumulators rounded to float32, a
result rounded to its dtype) run inside ``with library_state():``, which saves the calling
thread's state, switches to the library's and restores the caller's on the way out.  A
value computed there is the same in every environment, so caching it is safe.
"""

from __future__ import annotations

from .kernel import lib

_enter, _leave = lib.lt_fpenv_enter, lib.lt_fpenv_leave


class library_state:
    """Context manager: the library's floating-point state inside, the calling thread's
    own restored on the way out (exceptions included; nesting is fine)."""

    __slots__ = ("_saved",)

    def __enter__(self):
        self._saved = _enter()
        return self

    def __exit__(self, *exc):
        _leave(self._saved)
