"""The one module that loads lazytensor's compiled code, and the machine facts it gives.

Two modules are built at install time: the cffi library ``lazytensor._kernels`` (kernels_c/:
the chunk interpreter, the op functions for every kernel path, the pool allocator) and the
CPython extension ``lazytensor._fastpath`` (kernels_c/lt_fastpath.c: the hot paths of
recording and evaluation).  Both are always there: an import without them fails here,
saying how to build them, and no other module asks whether they exist.
"""

from __future__ import annotations

try:
    from .._kernels import ffi, lib
    from .. import _fastpath as fastpath
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "lazytensor's C code is not built. Install the package with `pip install .` (or "
        "`pip install -e .`) from the source tree, which compiles kernels_c/."
    ) from exc

CHUNK = lib.lt_chunk_size()

# Kernel paths: the op functions built for several instruction sets (kernels_c/
# build_kernels.py).  Exact mode gives the same bits on every one of them.
PATHS = tuple(ffi.string(lib.lt_path_name(i)).decode() for i in range(lib.lt_path_count()))

# This CPU's vendor (lt_cpu_vendor), which the memory rules of cost.py depend on.
CPU_VENDOR = {1: "intel", 2: "amd"}.get(lib.lt_cpu_vendor(), "other")


def kernel_paths() -> tuple:
    """The kernel paths this machine can run, best last (e.g. ``("generic", "avx2")``)."""
    return tuple(p for i, p in enumerate(PATHS) if lib.lt_path_supported(i))
