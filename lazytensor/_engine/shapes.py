"""Shapes: broadcasting and the check that a shape can exist, where shapes are made."""

from __future__ import annotations

import functools

import numpy as np

# The most bytes (and elements, and the longest dimension) NumPy can index: its sizes are
# intp, and the kernels' are int64
MAX_SIZE = int(np.iinfo(np.intp).max)


def check_size(shape: tuple, what: str, dtype=None) -> tuple:
    """``shape``, after checking that a tensor of that shape (and ``dtype``) can exist: a
    ValueError naming ``what`` and the shape when a dimension, the number of elements or
    of bytes is over ``MAX_SIZE``.  As in NumPy, zero-length dimensions do not make a
    shape's other dimensions smaller.  Called where shapes are made (broadcasting,
    creation, manipulation), so that the error points at the user's line."""
    n = 1
    for d in shape:
        if d:
            n *= d
    itemsize = 1 if dtype is None else np.dtype(dtype).itemsize
    if n * itemsize > MAX_SIZE or any(d > MAX_SIZE for d in shape):
        if any(d > MAX_SIZE for d in shape):
            size = "a dimension over 2**63 - 1"
        else:
            size = f"{n} elements" + ("" if all(shape) else " in its nonzero dimensions")
            if dtype is not None:
                size += f" of {np.dtype(dtype).name}, {n * itemsize} bytes"
            size += "; at most 2**63 - 1 can be indexed"
        raise ValueError(f"{what}: shape {tuple(shape)} is too large ({size})")
    return shape


@functools.lru_cache(maxsize=4096)
def broadcast_shapes_cached(shapes: tuple):
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for d in range(-ndim, 0):
        n = 1
        for s in shapes:
            if len(s) >= -d:
                m = s[d]
                if m != 1:
                    if n != 1 and m != n:
                        return None
                    n = m
        out.append(n)
    return tuple(out)


def broadcast_shapes_or_raise(shapes, what: str, dtype=None) -> tuple:
    """The shape ``shapes`` broadcast to; ValueError naming ``what`` and the shapes when
    they do not broadcast, or when the result (of ``dtype``) is too large to exist."""
    out = broadcast_shapes_cached(tuple(tuple(s) for s in shapes))
    if out is None:
        listed = " ".join(str(tuple(s)) for s in shapes)     # NumPy's wording, the op named
        raise ValueError(f"{what}: operands could not be broadcast together with shapes "
                         f"{listed}")
    return check_size(out, what, dtype)
