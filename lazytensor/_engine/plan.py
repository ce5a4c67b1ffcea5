"""Broadcast plans: how one kernel group walks its inputs.

Shapes are right-aligned to the group's output shape, broadcast dimensions get stride 0,
unit dimensions are dropped, and adjacent dimensions are merged wherever every operand
stays linear across them.  What is left picks a loop family, which decides which inputs
the kernel reads in place and which it gathers.  Plans are immutable values; the kernel
cache (``kernel.py``) keeps them keyed by structure, dtypes, shapes and strides.
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
REDUCE_ROWS = "reduction over an inner run"
REDUCE_OUTER = "reduction across rows into a kept inner run"
# a kept inner run shorter than this is reduced as gathered rows instead (Q = 1)
MIN_OUTER_RUN = 8


@dataclass(frozen=True)
class Plan:
    out_shape: tuple          # the group's output shape
    shape: tuple              # coalesced iteration shape, at least one dimension
    in_strides: tuple         # per input: byte strides over `shape` (0 = broadcast)
    in_itemsizes: tuple
    size: int                 # number of output elements
    family: str
    # fused reductions: `shape` is ordered P (kept), R (reduced), Q (kept) dimensions; the
    # first red_np are P and the next red_nr are R.  Regular outputs are written in that
    # order, into buffers of shape `buffer_shape` (the group's shape permuted by `perm`).
    red_np: int = 0
    red_nr: int = 0
    perm: tuple = ()
    reduced: int = 1          # values combined per result (R)
    results: int = 0          # results per reduction (P * Q)

    @property
    def buffer_shape(self) -> tuple:
        return tuple(self.out_shape[d] for d in self.perm)

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


def _coalesce(shape, strides):
    """Merge adjacent dimensions of one part of a reduction plan (in place)."""
    d = len(shape) - 1
    while d > 0:
        if all(st[d - 1] == st[d] * shape[d] for st in strides):
            shape[d - 1] *= shape[d]
            del shape[d]
            for st in strides:
                st[d - 1] = st[d]
                del st[d]
        d -= 1


def make_reduce_plan(full_shape, axes, inputs) -> Plan:
    """Plan a group over ``full_shape`` whose sinks reduce ``axes`` (sorted, normalized).

    The iteration is reordered so that each result's values are one run: the kept
    dimensions (P), then the reduced ones (R), except that a trailing run of kept
    dimensions at least ``MIN_OUTER_RUN`` long stays innermost (Q) so that a reduction over
    leading axes walks memory in order, accumulating whole rows.  Each of P, R, Q is
    coalesced on its own; unit dimensions are dropped.
    """
    size = 1
    for n in full_shape:
        size *= n
    strides = [_aligned(full_shape, s, st) for s, st, _ in inputs]
    itemsizes = tuple(isz for _, _, isz in inputs)
    axes = set(axes)
    kept = [d for d in range(len(full_shape)) if d not in axes]
    q_dims = []
    for d in reversed(range(len(full_shape))):
        if full_shape[d] == 1:
            continue
        if d in axes:
            break
        q_dims.insert(0, d)
    q_size = 1
    for d in q_dims:
        q_size *= full_shape[d]
    if q_size < MIN_OUTER_RUN:
        q_dims = []
    p_dims = [d for d in kept if d not in q_dims]
    r_dims = sorted(axes)
    perm = tuple(p_dims + r_dims + q_dims)
    parts = []
    for dims in (p_dims, r_dims, q_dims):
        dims = [d for d in dims if full_shape[d] != 1]
        shape = [full_shape[d] for d in dims]
        sts = [[st[d] for d in dims] for st in strides]
        _coalesce(shape, sts)
        parts.append((shape, sts))
    shape = parts[0][0] + parts[1][0] + parts[2][0]
    in_strides = [parts[0][1][k] + parts[1][1][k] + parts[2][1][k] for k in range(len(inputs))]
    red_np, red_nr = len(parts[0][0]), len(parts[1][0])
    reduced = 1
    for d in r_dims:
        reduced *= full_shape[d]
    results = 1
    for d in kept:
        results *= full_shape[d]
    if size == 0 or not shape:
        shape, in_strides, red_np, red_nr = [max(size, 1)], [[0] for _ in inputs], 0, 1
    family = REDUCE_OUTER if parts[2][0] else REDUCE_ROWS
    return Plan(tuple(full_shape), tuple(shape), tuple(tuple(st) for st in in_strides),
                itemsizes, size, family, red_np, red_nr, perm, reduced, results)
