"""Build hooks: cffi compiles kernels_c/ into lazytensor._kernels at install time, and
kernels_c/lt_fastpath.c is the small CPython extension lazytensor._fastpath (the quick
evaluation path of small expressions)."""
import numpy
from setuptools import Extension, setup

setup(
    cffi_modules=["kernels_c/build_kernels.py:ffibuilder"],
    # _fastpath makes and reads NumPy arrays through NumPy's C API
    ext_modules=[Extension("lazytensor._fastpath", sources=["kernels_c/lt_fastpath.c"],
                           include_dirs=["kernels_c", numpy.get_include()])],
)
