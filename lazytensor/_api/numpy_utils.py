"""NumPy's utilities on tensors: ``shape``/``ndim``/``size``, ``vectorize``,
``apply_along_axis``, ``errstate``, the print options, and io (``save``, ``load``,
``savez``, ``savetxt``, ``loadtxt`` ...).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._engine import views as _views
from .._engine.foreign import is_dask, refuse_dask
from .._engine.tensor import Tensor
from .numpy_values import on_values, renamed, to_numpy, to_tensors


# ---- memory: which tensors and arrays share it (views.py) -----------------------------
def _memory_of(a):
    """What ``a``'s elements live in: a tensor's shared memory (None if it shares none),
    an array-like as NumPy sees it."""
    return _views.shared_memory(a) if isinstance(a, Tensor) else a


def shares_memory(a, b, /, max_work=None):
    """NumPy's ``shares_memory``: whether ``a`` and ``b`` have elements in the same memory.

    Tensors share memory as NumPy arrays would after the same program: a view with its
    base, a tensor with the array ``np.asarray`` handed out, a tensor made without a copy
    with the array it was made from.  Nothing is evaluated for a tensor that shares no
    memory (a pending result shares none but with itself)."""
    return _memory_question(np.shares_memory, a, b, max_work)


def may_share_memory(a, b, /, max_work=None):
    """NumPy's ``may_share_memory`` (bounds only, unless ``max_work`` asks for more), with
    :func:`shares_memory`'s rules for tensors."""
    return _memory_question(np.may_share_memory, a, b, max_work)


def _memory_question(np_fn, a, b, max_work):
    for x in (a, b):
        refuse_dask(x, np_fn.__name__)      # a dask array's blocks have no one memory
    if a is b and isinstance(a, Tensor):
        return a.size > 0
    ma, mb = _memory_of(a), _memory_of(b)
    if ma is None or mb is None:
        return False
    return bool(np_fn(ma, mb, max_work=max_work))


# ---- shape, ndim, size: read from the tensor, nothing is evaluated -------------------
def shape(a):
    """The shape of ``a`` (a tuple; a tensor's is known without evaluating it)."""
    return a.shape if isinstance(a, Tensor) else np.shape(a)


def ndim(a):
    """The number of dimensions of ``a``."""
    return a.ndim if isinstance(a, Tensor) else np.ndim(a)


def size(a, axis=None):
    """The number of elements of ``a``, or its length along ``axis`` (an int or, as in
    NumPy 2.4, a tuple of ints)."""
    if not isinstance(a, Tensor) and not is_dask(a):   # (NumPy's would compute a dask array)
        return np.size(a, axis)
    if axis is None:
        return a.size
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = 1
    for ax in axes:
        out *= a.shape[ax]
    return out


# ---- functions of Python callables ----------------------------------------------------
class vectorize(np.vectorize):
    """NumPy's ``vectorize``, returning tensors: ``pyfunc`` is called on NumPy scalars,
    one element at a time, as in NumPy (so it is as slow as in NumPy; write the function
    with lazytensor's operations on whole tensors to have it fused instead)."""

    def __call__(self, *args, **kwargs):
        args = tuple(to_numpy(a) for a in args)
        kwargs = {k: to_numpy(v) for k, v in kwargs.items()}
        return to_tensors(super().__call__(*args, **kwargs))


apply_along_axis = on_values("apply_along_axis", np.apply_along_axis,
                             "``func1d`` applied to the 1-d slices along an axis (it gets "
                             "NumPy arrays, as in NumPy).")
apply_over_axes = on_values("apply_over_axes", np.apply_over_axes,
                            "``func`` applied repeatedly over several axes (it gets NumPy "
                            "arrays, as in NumPy).")


# ---- floating-point error handling and printing ---------------------------------------
class errstate(np.errstate):
    """NumPy's ``errstate`` (a context manager and decorator).

    It controls NumPy's own warnings: those of the values NumPy computes for lazytensor
    (the functions computed by NumPy on values) and of NumPy code around.  lazytensor's
    kernels never warn and never set NumPy's error state: division by zero, overflow and
    invalid operations give their IEEE results (integer division by zero gives 0, the
    seeds' rule) whatever errstate says; ``errstate(all="raise")`` does not make them raise.
    """


seterr, geterr, seterrcall, geterrcall = np.seterr, np.geterr, np.seterrcall, np.geterrcall


def ndenumerate(arr):
    """NumPy's ``ndenumerate`` over the values of ``arr``: (index, NumPy scalar) pairs."""
    refuse_dask(arr, "ndenumerate")
    return np.ndenumerate(to_numpy(arr))
# A tensor prints as NumPy prints its value, so NumPy's print options are lazytensor's too
set_printoptions, get_printoptions, printoptions = (np.set_printoptions, np.get_printoptions,
                                                    np.printoptions)


# ---- io --------------------------------------------------------------------------------
class NpzFile(Mapping):
    """The arrays of an ``.npz`` file, read lazily by name, as tensors (``lt.load`` of an
    ``.npz``).  Use as NumPy's ``NpzFile``: ``f["a"]``, ``f.files``, ``with``, ``close()``."""

    def __init__(self, npz):
        self._npz = npz
        self.files = npz.files

    def __getitem__(self, key):
        return to_tensors(self._npz[key])

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self.files

    def close(self):
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"lazytensor.NpzFile({self.files})"


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=None):
    """NumPy's ``load``: an ``.npy`` file gives a tensor, an ``.npz`` file an
    :class:`NpzFile` whose values are tensors.  ``mmap_mode`` maps the file read-only
    (``"r"``): tensors are not written to."""
    if mmap_mode not in (None, "r", "c"):
        raise ValueError(f"load: mmap_mode={mmap_mode!r} would write into a tensor's memory; "
                         f"use None, 'r' or 'c'")
    kwargs = {} if max_header_size is None else {"max_header_size": max_header_size}
    out = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle,
                  fix_imports=fix_imports, encoding=encoding, **kwargs)
    if isinstance(out, np.lib.npyio.NpzFile):
        return NpzFile(out)
    return to_tensors(out)


FUNCTIONS = {"shape": shape, "ndim": ndim, "size": size, "vectorize": vectorize,
             "apply_along_axis": apply_along_axis, "apply_over_axes": apply_over_axes,
             "errstate": errstate, "seterr": seterr, "geterr": geterr,
             "set_printoptions": set_printoptions, "get_printoptions": get_printoptions,
             "printoptions": printoptions, "load": load, "NpzFile": NpzFile,
             "seterrcall": seterrcall, "geterrcall": geterrcall, "ndenumerate": ndenumerate,
             "ndindex": np.ndindex, "iterable": np.iterable,
             "shares_memory": shares_memory, "may_share_memory": may_share_memory}
def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """A tensor over a buffer's bytes read as ``dtype`` (NumPy's ``frombuffer``): the
    buffer's memory, without a copy, as ``lt.asarray`` of NumPy's array over it (a
    writable buffer: writes through the tensor reach it; bytes: read-only)."""
    from .creation import asarray

    try:
        arr = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)
    except (ValueError, TypeError) as exc:
        raise renamed(exc, "frombuffer") from None
    return asarray(arr)


FUNCTIONS["frombuffer"] = frombuffer

# printing of values (strings out) and io of values: the tensors are evaluated and written,
# files are read into tensors
FUNCTIONS.update({name: on_values(name, getattr(np, name), summary) for name, summary in {
    "array2string": "The string NumPy prints for the values.",
    "array_repr": "NumPy's repr of the values.",
    "array_str": "NumPy's str of the values.",
    "save": "Write a tensor's values to a ``.npy`` file.",
    "savez": "Write tensors' values to an uncompressed ``.npz`` file.",
    "savez_compressed": "Write tensors' values to a compressed ``.npz`` file.",
    "savetxt": "Write a tensor's values to a text file.",
    "loadtxt": "A tensor from a text file.",
    "genfromtxt": "A tensor from a text file, with missing values handled.",
    "fromregex": "A tensor from a text file, parsed with a regular expression.",
    "fromfile": "A tensor from a text or binary file.",
    "fromiter": "A 1-d tensor from an iterable.",
    "fromstring": "A 1-d tensor from text.",
}.items()})
