"""Build hook: cffi compiles kernels_c/ into lazytensor._kernels at install time."""
from setuptools import setup

setup(cffi_modules=["kernels_c/build_kernels.py:ffibuilder"])
