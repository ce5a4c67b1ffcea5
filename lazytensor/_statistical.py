"""Reductions and matmul: not elementwise, so they evaluate their input and use NumPy.

Each one is a fusion boundary: the elementwise expression feeding it runs as its own
kernel first.  (Fusing reductions into the kernel is a later step.)
"""

from __future__ import annotations

import numpy as np

from ._tensor import Tensor


__all__ = ['all', 'any', 'max', 'mean', 'min', 'prod', 'std', 'sum', 'var', 'matmul']

def _reduction(name, np_fn, kinds):
    def fn(x, /, *, axis=None, keepdims=False, **kwargs):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: expected a Tensor, got {type(x).__name__}")
        if x.dtype.kind not in kinds:
            raise TypeError(f"{name} does not take {x.dtype.name}")
        if isinstance(axis, list):
            axis = tuple(axis)
        try:
            out = np_fn(x._value(), axis=axis, keepdims=keepdims, **kwargs)
        except np.exceptions.AxisError as exc:
            raise ValueError(f"{name}: {exc} (tensor shape {x.shape})") from None
        return Tensor._from_array(np.asarray(out))
    fn.__name__ = name
    fn.__doc__ = f"{name} over ``axis`` (all axes by default); evaluates ``x``."
    return fn


_NUM = "biufc"
sum = _reduction("sum", np.sum, _NUM)
prod = _reduction("prod", np.prod, _NUM)
mean = _reduction("mean", np.mean, "fc")
max = _reduction("max", np.max, "iuf")
min = _reduction("min", np.min, "iuf")
var = _reduction("var", np.var, "f")
std = _reduction("std", np.std, "f")
any = _reduction("any", np.any, _NUM)
all = _reduction("all", np.all, _NUM)


def matmul(x1, x2, /):
    """Matrix product (NumPy on the evaluated operands)."""
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise TypeError("matmul: both operands must be Tensors")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension")
    try:
        return Tensor._from_array(np.asarray(np.matmul(x1._value(), x2._value())))
    except ValueError:
        raise ValueError(f"matmul: shapes {x1.shape} and {x2.shape} do not align") from None


Tensor.__matmul__ = lambda self, other: matmul(self, other) if isinstance(other, Tensor) else NotImplemented
Tensor.__rmatmul__ = lambda self, other: matmul(other, self) if isinstance(other, Tensor) else NotImplemented
