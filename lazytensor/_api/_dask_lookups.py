"""The functions a Tensor registers in ``dask.array.dispatch``'s tables (docs/dask.md).

Each has the signature of NumPy's entry in ``dask.array.backends`` and computes with
lazytensor, so a block dask builds from Tensor blocks (a concatenation when it rechunks or
combines a reduction's partial results, a tensordot, an einsum, a mean's division) is a
Tensor.  Imported only by ``dask_chunks``' registration, i.e. once dask.array is imported.
"""

from __future__ import annotations

import numpy as np

from .._engine.tensor import Tensor


def _lt():
    import lazytensor

    return lazytensor


def concatenate(arrays, axis=0):
    # a NumPy block among Tensor blocks (mixed inputs) becomes part of a Tensor
    return _lt().concatenate(list(arrays), axis=axis)


def tensordot(a, b, axes=2):
    return _lt().tensordot(a, b, axes=axes)


def einsum(subscripts, *operands, dtype=None, casting="safe", order="K", optimize=False):
    lt = _lt()
    out = lt.einsum(subscripts, *operands, optimize=optimize)
    if dtype is not None and out.dtype != np.dtype(dtype):
        out = lt.astype(out, dtype)
    return out


def empty(shape, dtype=float, **kwargs):
    return _lt().empty(shape, dtype=dtype)


def divide(a, b, dtype=None):
    # np.divide on a Tensor operand is Tensor.__array_ufunc__'s (NEP 13): a Tensor
    return np.divide(a, b, dtype=dtype)


def numel(x, **kwargs):
    from dask.array.backends import _numel

    # np.full_like of a Tensor is a Tensor (__array_function__); a full count is a scalar
    return _numel(x, coerce_np_ndarray=False, **kwargs)


def nannumel(x, **kwargs):
    from dask.array import chunk

    return chunk.sum(~np.isnan(x), **kwargs)


def percentile(a, q, method="linear"):
    from dask.array.percentile import _percentile

    # dask merges the per-block percentiles with NumPy (merge_percentiles); the block's
    # values are computed once, here, and the partial result is NumPy's, as for a NumPy block
    return _percentile(np.asarray(a), q, method)


def to_numpy(data, **kwargs):
    # d.to_backend("numpy")
    return np.asarray(data)


LOOKUPS = {
    "concatenate_lookup": concatenate,
    "tensordot_lookup": tensordot,
    "einsum_lookup": einsum,
    "empty_lookup": empty,
    "divide_lookup": divide,
    "numel_lookup": numel,
    "nannumel_lookup": nannumel,
    "percentile_lookup": percentile,
    "to_numpy_dispatch": to_numpy,
}
