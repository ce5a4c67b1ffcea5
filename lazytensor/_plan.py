"""Broadcast plans: how one kernel group walks its inputs.

Shapes are right-aligned to the group's output shape, broadcast dimensions get stride 0,
unit dimensions are dropped, and adjacent dimensions are merged wherever every operand
stays linear across them.  What is left picks a loop family, which decides which inputs
the kernel reads in place and which it gathers.  Plans are immutable values; the kernel
cache (``_kernel.py``) keeps them keyed by structure, dtypes, shapes and strides.
"""

from __future__ import annotations

from dataclasses import dataclass

CONTIGUOUS = "contiguous"
LEFT_SCALAR = "left scalar"
RIGHT_SCALAR = "right scalar"
SCALAR_BROADCAST = "scalar broadcast"
REPEATED_BLOCK = "repeated contiguous block"
INNER_VECTOR = "inner-vector/outer-broadcast"
GENERAL = "general strided"


@dataclass(frozen=True)
class Plan:
    out_shape: tuple          # the group's output shape
    shape: tuple              # coalesced iteration shape, at least one dimension
    in_strides: tuple         # per input: byte strides over `shape` (0 = broadcast)
    in_itemsizes: tuple
    size: int                 # number of output elements
    family: str

    def is_scalar_input(self, k: int) -> bool:
        return not any(self.in_strides[k])


def _aligned(out_shape, shape, strides):
    pad = len(out_shape) - len(shape)
    full_shape = (1,) * pad + tuple(shape)
    full_strides = (0,) * pad + tuple(strides)
    return tuple(0 if n == 1 else s for n, s in zip(full_shape, full_strides))


def make_plan(out_shape, inputs) -> Plan:
    """Plan a group writing a C-contiguous ``out_shape`` from ``inputs``.

    ``inputs`` is a sequence of ``(shape, byte_strides, itemsize)``; every input shape
    must broadcast to ``out_shape`` (checked when the ops were recorded).
    """
    size = 1
    for n in out_shape:
        size *= n
    strides = [_aligned(out_shape, s, st) for s, st, _ in inputs]
    itemsizes = tuple(isz for _, _, isz in inputs)
    keep = [d for d, n in enumerate(out_shape) if n != 1]
    shape = [out_shape[d] for d in keep]
    strides = [[st[d] for d in keep] for st in strides]
    # merge dimension d into d-1 when every input is linear across the pair
    d = len(shape) - 1
    while d > 0:
        if all(st[d - 1] == st[d] * shape[d] for st in strides):
            shape[d - 1] *= shape[d]
            del shape[d]
            for st in strides:
                st[d - 1] = st[d]
                del st[d]
        d -= 1
    if size == 0 or not shape:  # nothing to read, or one element: every input is a scalar
        shape, strides = [size], [[0] for _ in strides]
    in_strides = tuple(tuple(st) for st in strides)
    return Plan(tuple(out_shape), tuple(shape), in_strides, itemsizes, size,
                _family(shape, in_strides, itemsizes))


def _family(shape, in_strides, itemsizes) -> str:
    scalar = [not any(st) for st in in_strides]
    moving = [k for k, s in enumerate(scalar) if not s]
    if len(shape) == 1:
        if all(in_strides[k][0] == itemsizes[k] for k in moving):
            if not any(scalar):
                return CONTIGUOUS
            if len(in_strides) == 2:
                return LEFT_SCALAR if scalar[0] else RIGHT_SCALAR
            return SCALAR_BROADCAST
        return GENERAL
    if len(shape) == 2:
        inner = shape[1]
        contiguous_rows = all(in_strides[k][1] in (0, itemsizes[k]) for k in moving)
        if contiguous_rows:
            row_repeated = any(in_strides[k] == (0, itemsizes[k]) for k in moving)
            value_per_row = any(in_strides[k][1] == 0 for k in moving)
            others_dense = all(in_strides[k] in ((inner * itemsizes[k], itemsizes[k]),
                                                 (0, itemsizes[k]))
                               or in_strides[k][1] == 0 for k in moving)
            if others_dense and row_repeated and not value_per_row:
                return INNER_VECTOR
            if others_dense and value_per_row:
                return REPEATED_BLOCK
    return GENERAL
