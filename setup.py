"""Build hooks: cffi compiles kernels_c/ into lazytensor._kernels at install time, and
kernels_c/lt_fastpath.c is the small CPython extension lazytensor._fastpath (the quick
evaluation path of small expressions)."""
from setuptools import Extension, setup

setup(
    cffi_modules=["kernels_c/build_kernels.py:ffibuilder"],
    ext_modules=[Extension("lazytensor._fastpath", sources=["kernels_c/lt_fastpath.c"],
                           include_dirs=["kernels_c"])],
)
