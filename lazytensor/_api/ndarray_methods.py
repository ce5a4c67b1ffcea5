"""NumPy's ndarray surface on Tensor: the methods, attributes and Python protocols that
NumPy code uses (docs/numpy-methods.md), installed by ``tensor_methods._install()``.

Each method is a thin call to the top-level function of the same name, which takes NumPy's
signature as a superset of the Array API's: ``x.sum(0, keepdims=True)`` is
``lt.sum(x, 0, keepdims=True)``, recorded lazily and fused as that is.  What NumPy does by
writing into an array (in-place ``sort``, ``fill``, ``put``, ``partition``, ``x.flat[k] = v``,
``out=`` a Tensor) writes into the tensor's memory as NumPy writes an array's (``writes.py``);
``resize`` and ``setfield`` raise ``lazytensor.Unsupported``.

Also here: the top-level ``dot``, ``copy`` and ``around`` (functions that are ndarray methods
and have no Array API chapter).
"""

from __future__ import annotations

import builtins

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine import views as _views
from .._engine.errors import Unsupported
from .._engine.record import binary
from .._engine.tensor import Tensor
from . import manipulation, searching, sorting, statistical, utility
from .args import normalize_axis, wrap
from .elementwise import FUNCTIONS, astype
from .indexing import take
from .linear_algebra_functions import matmul, tensordot
from .ndarray_args import check_out, operand, to_out
from .writes import in_place, values_of

__all__ = ["around", "copy", "dot"]

around = FUNCTIONS["round"]    # NumPy's older name of round(x, decimals)


# ---- top-level functions without a chapter ------------------------------------------------
def dot(a, b, /, out=None) -> Tensor:
    """NumPy's dot product.

    0-d operands multiply; otherwise the sum over the last axis of ``a`` and the
    second-to-last of ``b`` (the last, if ``b`` is 1-d): an inner product for 1-d
    tensors, the matrix product for 2-d ones, and for n-d ``b`` the shape
    ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]`` (not :func:`matmul`'s broadcast).

    Parameters
    ----------
    a, b : Tensor or array-like
    out : Tensor or numpy.ndarray, optional
        Written with the result and returned (a Tensor as NumPy writes an array).
    """
    a, b = operand(a, "dot"), operand(b, "dot")
    check_out(out, "dot")
    if a.ndim == 0 or b.ndim == 0:
        result = binary("multiply", a, b)
    elif b.ndim <= 2:
        result = matmul(a, b)       # the same sums as NumPy's dot for these shapes
    else:
        result = tensordot(a, b, axes=((a.ndim - 1,), (b.ndim - 2,)))
    return to_out(result, out, "dot")


def copy(x, /, order="K", subok=False) -> Tensor:
    """NumPy's copy: a tensor with the values of ``x`` (array-likes are converted).

    ``order`` is accepted and has no visible effect: a tensor's memory layout is not
    visible (its strides are reported as C-contiguous, see ``Tensor.strides``).
    """
    if order not in ("K", "A", "C", "F"):
        raise ValueError(f"copy: order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    x = operand(x, "copy")
    return astype(x, x.dtype, copy=True)


# ---- methods that are calls to a function ------------------------------------------------
def _calling(fn, name):
    """The method ``x.name(*args, **kwargs)``: ``fn(x, *args, **kwargs)``."""
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"``lazytensor.{fn.__name__}(self, ...)``, NumPy's ndarray.{name}."
                      f"\n\n{fn.__doc__ or ''}")
    return method


def _conj(self) -> Tensor:
    """NumPy's ``x.conj()``: the conjugate of a complex tensor; a real one is itself (the
    function ``conj`` gives a copy)."""
    return FUNCTIONS["conj"](self) if self.dtype.kind == "c" else self


_CALLS = {
    "sum": statistical.sum, "prod": statistical.prod, "mean": statistical.mean,
    "std": statistical.std, "var": statistical.var, "max": statistical.max,
    "min": statistical.min, "cumsum": statistical.cumsum, "cumprod": statistical.cumprod,
    "ptp": statistical.ptp, "trace": statistical.trace,
    "any": utility.any, "all": utility.all,
    "argmax": searching.argmax, "argmin": searching.argmin, "nonzero": searching.nonzero,
    "searchsorted": searching.searchsorted, "argsort": sorting.argsort,
    "ravel": manipulation.ravel, "squeeze": manipulation.squeeze,
    "swapaxes": manipulation.swapaxes, "repeat": manipulation.repeat,
    "diagonal": manipulation.diagonal,
    "take": take, "clip": FUNCTIONS["clip"], "round": FUNCTIONS["round"],
    "copy": copy, "dot": dot,
}


# ---- methods with NumPy's own argument conventions ------------------------------------
def _transpose(self, *axes) -> Tensor:
    """NumPy's ``x.transpose(*axes)``: axes reversed (none given, or None), or permuted
    by a tuple or by the axes as separate ints.  A 0-d or 1-d tensor is itself."""
    if not axes or axes == (None,):
        return manipulation.transpose(self)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return manipulation.transpose(self, axes)


def _reshape(self, *shape, order="C", copy=None) -> Tensor:
    """``lazytensor.reshape(self, shape, order=order, copy=copy)``; the shape as one
    tuple or as separate ints (NumPy's ``x.reshape(3, 2)``)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return manipulation.reshape(self, shape, order=order, copy=copy)


def _flatten(self, order="C") -> Tensor:
    """A 1-d copy of the tensor (NumPy's ``x.flatten(order)``)."""
    return copy(manipulation.ravel(self, order))


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True, *,
            device=None) -> Tensor:
    """NumPy's ``x.astype``: :func:`lazytensor.astype` with NumPy's checks.

    ``casting`` is checked as NumPy checks it ("no", "equiv", "safe", "same_kind",
    "unsafe"; a TypeError with NumPy's message); ``order`` and ``subok`` are accepted and
    have no visible effect.  The conversions are lazytensor's (docs/semantics.md): float
    to integer truncates and saturates where NumPy's result is undefined.
    """
    if order not in ("K", "A", "C", "F"):
        raise ValueError(f"astype: order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    if casting != "unsafe":
        target = _dtypes.canonical_dtype(dtype, where="astype")
        if not np.can_cast(self.dtype, target, casting):
            raise TypeError(f"Cannot cast array data from dtype('{self.dtype.name}') to "
                            f"dtype('{target.name}') according to the rule '{casting}'")
    return astype(self, dtype, copy=copy, device=device)


def _item(self, *args):
    """The element at ``args`` (a flat index or one index per axis; none for a
    one-element tensor) as a Python scalar."""
    return self._value().item(*args)


def _tobytes(self, order="C") -> bytes:
    """The raw bytes of the values, in row-major ("C") or column-major ("F") order."""
    return self._value().tobytes(order)


def _view(self, dtype=None, type=None) -> Tensor:
    """The values reinterpreted as ``dtype`` (NumPy's ``x.view(dtype)``: the same bytes;
    a dtype of another size changes the last axis).

    This is a new tensor of those values, not a view of the tensor's memory: writes
    through views come with the views issue.  ``type=`` (an ndarray subclass) is not
    served.
    """
    if isinstance(dtype, builtins.type) and issubclass(dtype, np.ndarray):
        type, dtype = dtype, None
    if type is not None:
        raise Unsupported(f"view: type={type!r} asks for an ndarray subclass; a Tensor "
                          f"is not one (use np.asarray(x).view(...) for NumPy's)")
    if dtype is None:
        return _views.view(self, lambda m: m.view())
    target = _dtypes.canonical_dtype(dtype, where="view")
    try:
        return _views.view(self, lambda m: m.view(target))
    except ValueError as exc:
        raise ValueError(f"view: cannot view a {self.dtype.name} tensor of shape "
                         f"{self.shape} as {target.name}: {exc}") from None


def _compress(self, condition, axis=None, out=None) -> Tensor:
    """The slices of the tensor along ``axis`` (of the flattened tensor if None) where
    ``condition`` is true (NumPy's ``x.compress``; a shorter condition leaves the rest
    out)."""
    check_out(out, "compress")
    cond = operand(condition, "compress")
    if cond.ndim != 1:
        raise ValueError(f"compress: condition must be 1-d, got shape {cond.shape}")
    v = self._value()
    if axis is not None:
        axis = normalize_axis(axis, self.ndim, "compress", self.shape)
    try:
        return to_out(wrap(np.compress(cond._value(), v, axis=axis)), out, "compress")
    except IndexError as exc:
        raise IndexError(f"compress: {exc} (tensor shape {self.shape})") from None


def _argpartition(self, kth, axis=-1, kind="introselect", order=None) -> Tensor:
    """NumPy's ``x.argpartition``: indices that partition the tensor around ``kth``
    (computed by NumPy on the value, so the order within each side is NumPy's)."""
    if order is not None:
        raise Unsupported("argpartition: order= needs structured dtypes, which lazytensor "
                          "does not have")
    if axis is not None:
        axis = normalize_axis(axis, self.ndim, "argpartition", self.shape)
    try:
        return wrap(np.argpartition(self._value(), kth, axis=axis, kind=kind), np.int64)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"argpartition: {exc} (tensor shape {self.shape})") from None


def _choose(self, choices, out=None, mode="raise") -> Tensor:
    """NumPy's ``x.choose``: ``choices[x[i]][i]`` for each element of the integer tensor
    (computed by NumPy on the values; the choices broadcast together)."""
    check_out(out, "choose")
    if self.dtype.kind not in "iu":
        raise TypeError(f"choose: the tensor of indices must have an integer dtype, got "
                        f"{self.dtype.name}")
    values = [operand(c, "choose")._value() for c in choices]
    try:
        return to_out(wrap(np.choose(self._value(), values, mode=mode)), out, "choose")
    except ValueError as exc:
        raise ValueError(f"choose: {exc} (indices of shape {self.shape})") from None


def _tofile(self, fid, sep="", format="%s") -> None:
    """Write the values to a file, as NumPy's ``x.tofile`` (evaluates the tensor)."""
    self._value().tofile(fid, sep=sep, format=format)


def _in_place(name):
    """NumPy's in-place ``x.name(...)``: NumPy's method on the tensor's memory (every view
    of it sees the write; results computed from it before keep their values)."""
    def method(self, *args, **kwargs):
        args = [values_of(a) for a in args]
        kwargs = {k: values_of(v) for k, v in kwargs.items()}
        in_place(self, f"x.{name}", lambda mem: getattr(mem, name)(*args, **kwargs))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"NumPy's in-place ``x.{name}``, on the tensor's memory: views of it "
                      f"see the write.\n\n{getattr(np.ndarray, name).__doc__ or ''}")
    return method


def _unsupported(name, why):
    def method(self, *args, **kwargs):
        raise Unsupported(f"x.{name}(): {why}")

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"NumPy's ``x.{name}``: not served; {why}."
    return method


_IN_PLACE = ("sort", "partition", "fill", "put")
_UNSUPPORTED = {
    "resize": "a tensor's shape is fixed; use lazytensor.reshape, or np.resize for a new one",
    "setfield": "lazytensor has no structured dtypes",
}


# ---- attributes ---------------------------------------------------------------------------
def _T(self) -> Tensor:
    """The tensor with its axes reversed (NumPy's ``.T`` for every rank; a 0-d or 1-d
    tensor is itself)."""
    if len(self._node.shape) >= 2:    # transpose(self), without its argument checks
        return _views.view(self, np.ndarray.transpose)
    return manipulation.transpose(self)


def _c_strides(shape, itemsize) -> tuple:
    """The strides NumPy gives a new C-contiguous array of ``shape`` (all 0 when the
    array is empty, as NumPy 2 gives them)."""
    if 0 in shape:
        return (0,) * len(shape)
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def _strides(self) -> tuple:
    """NumPy's strides of a C-contiguous array of this shape and dtype.

    A tensor's memory layout is not visible (its value may be pending, or a strided view
    the engine reads in place), so this is the layout ``np.array(x)`` has.
    """
    return _c_strides(self.shape, self.dtype.itemsize)


class Flags:
    """NumPy's ``x.flags`` of a tensor: C-contiguous (as ``strides`` says), owning its
    data, aligned, and writeable unless a read-only view (``broadcast_to``, ``diagonal``)
    or cleared by ``x.flags.writeable = False``, the one flag that may be set."""

    _SHORT = {"C": "C_CONTIGUOUS", "F": "F_CONTIGUOUS", "O": "OWNDATA", "W": "WRITEABLE",
              "A": "ALIGNED", "X": "WRITEBACKIFCOPY", "CONTIGUOUS": "C_CONTIGUOUS",
              "FORTRAN": "F_CONTIGUOUS"}
    __slots__ = ("_flags", "_tensor")

    def __init__(self, tensor):
        shape = tensor.shape
        f_contiguous = 0 in shape or sum(n > 1 for n in shape) <= 1
        flags = {"C_CONTIGUOUS": True, "F_CONTIGUOUS": f_contiguous, "OWNDATA": True,
                 "WRITEABLE": not _views.is_read_only(tensor), "ALIGNED": True,
                 "WRITEBACKIFCOPY": False}
        flags.update(FNC=flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"],
                     FORC=True, BEHAVED=flags["WRITEABLE"], CARRAY=flags["WRITEABLE"],
                     FARRAY=False)
        object.__setattr__(self, "_flags", flags)
        object.__setattr__(self, "_tensor", tensor)

    def __getitem__(self, key):
        key = str(key).upper()
        try:
            return self._flags[self._SHORT.get(key, key)]
        except KeyError:
            raise KeyError(f"Unknown flag {key!r}") from None

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"flags has no attribute {name!r}") from None

    def __setitem__(self, key, value):
        name = self._SHORT.get(str(key).upper(), str(key).upper())
        if name != "WRITEABLE":
            raise Unsupported(f"x.flags.{str(key).lower()} cannot be set on a tensor (only "
                              "writeable can; the others describe the layout np.array(x) "
                              "has)")
        _views.set_writeable(self._tensor, bool(value))
        writeable = not _views.is_read_only(self._tensor)
        self._flags.update(WRITEABLE=writeable, BEHAVED=writeable, CARRAY=writeable)

    __setattr__ = __setitem__

    def __repr__(self):
        return "\n".join(f"  {k} : {self._flags[k]}" for k in
                         ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED",
                          "WRITEBACKIFCOPY")) + "\n"


class FlatIter:
    """NumPy's ``x.flat`` of a tensor: iteration, ``len``, indexing (of the flattened
    tensor), ``np.asarray`` and assignment (a write into the tensor's memory)."""

    __slots__ = ("base",)

    def __init__(self, base):
        self.base = base

    def _flat(self):
        return manipulation.ravel(self.base)

    def __iter__(self):
        return iter(self._flat())

    def __len__(self):
        return self.base.size

    def __getitem__(self, key):
        return _views.fresh(self._flat()[key])     # NumPy's x.flat[k] is a copy

    def __setitem__(self, key, value):
        value = values_of(value)
        in_place(self.base, "x.flat[...] = value",
                 lambda mem: mem.flat.__setitem__(key, value))

    def __array__(self, dtype=None, copy=None):
        return self._flat().__array__(dtype=dtype, copy=copy)


def _data(self) -> memoryview:
    """A read-only memoryview of the values (row-major)."""
    v = self._value()
    return (v if v.flags.c_contiguous else v.copy()).data


def _real_of(m):
    return m.real


_PROPERTIES = {
    "T": _T,
    # NumPy's: a bool tensor is its own real part, and its imaginary part is False
    "real": lambda self: (FUNCTIONS["real"](self) if self.dtype.kind == "c"
                          else _views.view(self, _real_of)),
    "imag": lambda self: ((self != self) if self.dtype.kind == "b" else
                          FUNCTIONS["imag"](self)),
    "itemsize": lambda self: self.dtype.itemsize,
    "nbytes": lambda self: self.size * self.dtype.itemsize,
    "strides": _strides,
    "flags": lambda self: Flags(self),
    # a view does not keep the tensor it was taken from (its memory is kept by NumPy)
    "base": _views.base_of,
    "flat": FlatIter,
    "data": _data,
}
_PROPERTY_DOCS = {
    "real": "The real part: a view sharing the tensor's memory (NumPy's ``a.real``).",
    "imag": "The imaginary part: a view of a complex tensor's memory; zeros for a real one.",
    "itemsize": "Bytes per element.", "nbytes": "Bytes of all elements (size * itemsize).",
    "flags": Flags.__doc__, "base": "The tensor a view was taken from (the first of a chain of views, as NumPy's), "
            "else None.",
    "flat": FlatIter.__doc__,
}


# ---- Python protocols ---------------------------------------------------------------------
def _format(self, spec: str) -> str:
    """``format(x, spec)``: a 0-d tensor formats as NumPy's scalar (``f"{s:.3f}"``); an
    empty spec gives ``str(x)``; other specs on n-d tensors are a TypeError, as in
    NumPy."""
    if self.ndim == 0 and spec:
        return format(self._value()[()], spec)
    if spec:
        raise TypeError(f"unsupported format string passed to Tensor.__format__ "
                        f"(a tensor of shape {self.shape}; format specs apply to 0-d "
                        f"tensors)")
    return str(self)


def _round(self, ndigits=None):
    """``round(s)`` and ``round(s, n)`` of a 0-d tensor, as of NumPy's scalars: a Python
    int without ``ndigits``, else a 0-d tensor of the dtype.  NumPy's ndarray has no
    ``__round__``: for n-d tensors use ``lazytensor.round(x, decimals)``."""
    if self.ndim != 0:
        raise TypeError(f"type Tensor doesn't define __round__ for tensors of shape "
                        f"{self.shape} (NumPy's ndarray has none either); use "
                        f"lazytensor.round(x, decimals)")
    if ndigits is None:
        return round(self._value()[()])
    return FUNCTIONS["round"](self, ndigits)


def _contains(self, value) -> bool:
    """``value in x``: ``(x == value).any()``, as NumPy."""
    return bool(utility.any(binary("equal", self, list_operand(value, "in"))))


def list_operand(other, what="operator"):
    """A list or tuple operand as NumPy's ``asarray`` makes it; anything else as it is."""
    return operand(other, what) if isinstance(other, (list, tuple)) else other


def _divmod(self, other):
    """``divmod(x, y)``: ``(x // y, x % y)``, NumPy's floor division and remainder."""
    other = list_operand(other, "divmod")
    return FUNCTIONS["floor_divide"](self, other), FUNCTIONS["remainder"](self, other)


def _rdivmod(self, other):
    other = list_operand(other, "divmod")
    return FUNCTIONS["floor_divide"](other, self), FUNCTIONS["remainder"](other, self)


def methods() -> dict:
    """The methods and attributes this module serves, by name, for ``_install()``."""
    out = {name: _calling(fn, name) for name, fn in _CALLS.items()}
    out.update({name: _in_place(name) for name in _IN_PLACE})
    out.update({name: _unsupported(name, why) for name, why in _UNSUPPORTED.items()})
    out.update(transpose=_transpose, reshape=_reshape, flatten=_flatten, astype=_astype,
               item=_item, tobytes=_tobytes, view=_view, compress=_compress,
               argpartition=_argpartition, choose=_choose, tofile=_tofile,
               __format__=_format, __round__=_round, __contains__=_contains,
               __divmod__=_divmod, __rdivmod__=_rdivmod, conj=_conj, conjugate=_conj)
    for name, getter in _PROPERTIES.items():
        out[name] = property(getter, doc=_PROPERTY_DOCS.get(name, getter.__doc__))
    return out

