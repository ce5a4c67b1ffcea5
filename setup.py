"""Build hooks: cffi compiles kernels_c/ into lazytensor._kernels at install time, and
kernels_c/lt_fastpath.c (with its parts in kernels_c/ext/) is the CPython extension
lazytensor._fastpath (the hot paths of recording and evaluation)."""
import glob

import numpy
from setuptools import Extension, setup

setup(
    cffi_modules=["kernels_c/build_kernels.py:ffibuilder"],
    # _fastpath makes and reads NumPy arrays through NumPy's C API; its parts are included
    # by lt_fastpath.c (one translation unit)
    ext_modules=[Extension("lazytensor._fastpath", sources=["kernels_c/lt_fastpath.c"],
                           depends=sorted(glob.glob("kernels_c/ext/*.c")
                                          + glob.glob("kernels_c/*.h")
                                          + glob.glob("kernels_c/math/*.h")),
                           include_dirs=["kernels_c", "kernels_c/math", numpy.get_include()])],
)
