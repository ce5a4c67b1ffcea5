"""The Tensor: a shape, a dtype and a node of the expression DAG.

This is the core: construction, values, conversions, DLPack, pickling.  Operators and the
other methods (which only record nodes) are the API's, installed by
``lazytensor/_api/tensor_methods.py``; anything that needs a value evaluates the tensor's
node and keeps the value on it.  ``shape``, ``dtype``, ``ndim``, ``size`` and ``device`` never
evaluate.
"""

from __future__ import annotations

from threading import get_ident

import numpy as np

from . import dtypes as _dtypes
from . import evaluate as _eval
from . import graph as _graph
from . import views as _views
from .fpenv import library_state

# the quick evaluation path in C (see evaluate.py)
_quick_eval = _eval._quick_eval
# _graph.leaf and the tensor over it, in C
_leaf_tensor = _eval._fastpath.leaf_tensor
# While lt.jit traces functions (jit.py), each tracing thread's list of the nodes whose
# values it reads, by thread id: a function that looks at a value may compute another DAG
# from other data.  Per thread, since a trace runs while other threads evaluate.  None when
# no thread traces (so that C's Tensor._value need not look).
value_reads = None


def note_reads(nodes) -> None:
    """Add ``nodes`` to the calling thread's trace's value reads, if it is tracing."""
    traces = value_reads               # read once: another thread may reset it
    if traces is not None:
        reads = traces.get(get_ident())
        if reads is not None:
            reads.extend(nodes)


class Device:
    """The one device lazytensor runs on: the CPU."""

    __slots__ = ()

    def __repr__(self):
        return "Device('cpu')"

    def __str__(self):
        return "cpu"

    def __eq__(self, other):
        return isinstance(other, Device) or other == "cpu"

    def __hash__(self):
        return hash("cpu")


CPU = Device()


def _check_device(device, where):
    if device is not None and device != CPU:
        raise ValueError(f"{where}: lazytensor runs on the CPU only; got device {device!r}")


class Tensor:
    """An n-dimensional array whose elementwise work is recorded, fused and run lazily.

    Build tensors with :func:`lazytensor.asarray` and the creation functions; combine them
    with the operators and the functions of the ``lazytensor`` namespace.  Nothing is
    computed until a value is needed: ``np.asarray(t)``, :meth:`numpy`, ``bool``/``int``/
    ``float``, :meth:`tolist`, ``repr`` or a function that is not elementwise.
    """

    # _base: what a view was taken from (views.py; unset on other tensors)
    __slots__ = ("_node", "__weakref__", "_base")
    __array_priority__ = 100  # NumPy defers binary operators to us

    def __init__(self, *args, **kwargs):
        raise TypeError("use lazytensor.asarray(...) or a creation function to make a Tensor")

    @classmethod
    def _from_node(cls, node) -> "Tensor":
        t = object.__new__(cls)
        t._node = node
        return t

    @classmethod
    def _from_array(cls, array) -> "Tensor":
        if type(array) is np.ndarray and cls is Tensor:
            return _leaf_tensor(array)      # the same leaf, made in C
        return cls._from_node(_graph.leaf(np.asarray(array)))

    @classmethod
    def _computed_by_numpy(cls, array, what: str) -> "Tensor":
        """A tensor of ``array``, a value NumPy computed (``what``: its function): outside
        exact mode's promise, which ``lt.explain`` says wherever the value is read."""
        t = cls._from_array(array)
        _graph.computed_by_numpy[t._node] = what
        return t

    # ---- metadata: never evaluates ------------------------------------------------
    @property
    def dtype(self):
        """The element type (a NumPy dtype object)."""
        return self._node.dtype

    @property
    def shape(self) -> tuple:
        """The shape, a tuple of ints."""
        return self._node.shape

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self._node.shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for d in self._node.shape:
            n *= d
        return n

    @property
    def device(self) -> Device:
        """The device holding the tensor (always the CPU)."""
        return CPU

    def to_device(self, device, /, *, stream=None) -> "Tensor":
        """The tensor on ``device``: itself, as the CPU is the only device.

        ``ValueError`` for any other device, or for a ``stream`` (the CPU has none).
        """
        _check_device(device, "to_device")
        if stream is not None:
            raise ValueError(f"to_device: the CPU has no streams; stream must be None, got "
                             f"{stream!r}")
        return self

    @property
    def is_evaluated(self) -> bool:
        """Whether the value has been computed (or was given)."""
        return self._node.value is not None

    # ---- copies and pickles -------------------------------------------------------
    def __reduce__(self):
        """copy.copy, copy.deepcopy and pickle take the value (evaluated now), never the
        node: its cached pointer and layout belong to this process's buffers."""
        return (_rebuild, (np.array(self._value()),))

    # ---- values -----------------------------------------------------------------
    def _value(self) -> np.ndarray:
        node = self._node
        if value_reads is not None:
            note_reads((node,))
        if node.value is None:
            _eval.lock.enter(node)
            try:
                if node.value is None and not _quick_eval(node):
                    _eval.evaluate_one(node, quick=False)
            finally:
                _eval.lock.release()
        value = node.value
        if not value.dtype.isnative:    # a caller's byte-swapped array: its values now, native
            value = value.astype(node.dtype)
            value.setflags(False)
        return value

    def numpy(self) -> np.ndarray:
        """The value as a read-only NumPy array (evaluates if needed).

        Use ``np.array(t)`` for a writable copy.
        """
        return self._value()

    def __array__(self, dtype=None, copy=None):
        """The value as a NumPy array sharing the tensor's memory, writable where NumPy's
        would be (a read-only view stays read-only): the tensor becomes memory-backed
        (``views.py``), so writes through either are seen by the other."""
        if dtype is None and not copy:
            return _views.handed_out(self)
        value = self._value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            if copy is False:
                raise ValueError(f"converting {value.dtype.name} to {np.dtype(dtype).name} "
                                 f"needs a copy, but copy=False was given")
            with library_state():    # rounded as lazytensor's casts are, not by the caller's mode
                return value.astype(dtype)
        if copy:
            return value.copy()
        return value

    def tolist(self):
        """The value as nested Python lists of Python scalars."""
        return self._value().tolist()

    def _scalar(self, what: str):
        if self.ndim != 0:
            raise TypeError(f"only 0-d tensors can be converted to {what}; this one has "
                            f"shape {self.shape}")
        return self._value()[()]

    def __bool__(self):
        """The truth of a one-element tensor (NaN is true; complex: real or imag nonzero)."""
        if self.size != 1:
            raise ValueError(f"the truth value of a tensor with {self.size} elements (shape "
                             f"{self.shape}) is ambiguous; use lt.any() or lt.all()")
        return bool(self._value().reshape(()))

    def __int__(self):
        """The 0-d value as a Python int, truncating floats (NaN: ValueError; inf:
        OverflowError; complex: TypeError)."""
        v = self._scalar("int")
        if np.iscomplexobj(v):
            raise TypeError("int() of a complex tensor is not defined")
        return int(v)

    def __float__(self):
        """The 0-d value as a Python float (complex: TypeError)."""
        v = self._scalar("float")
        if np.iscomplexobj(v):
            raise TypeError("float() of a complex tensor is not defined; use .real first")
        return float(v)

    def __complex__(self):
        """The 0-d value as a Python complex (a real NaN gives NaN + NaN j)."""
        v = self._scalar("complex")
        if v.dtype.kind == "f" and np.isnan(v):
            return complex(np.nan, np.nan)   # the Array API's rule: NaN gives NaN + NaN j
        return complex(v)

    def __index__(self):
        """The 0-d value of an integer tensor as a Python int (other dtypes: TypeError)."""
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index; this one is "
                            f"{self.dtype.name}")
        return int(self._scalar("an index"))

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        """``self[0]``, ``self[1]``, ...: 0-d tensors for a 1-d tensor, rows for a 2-d one."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self):
        value = self._value()
        body = np.array2string(value, separator=", ", prefix="Tensor(")
        # as NumPy does, say the shape where the printed value does not show it
        shape = f", shape={self.shape}" if value.size == 0 and self.ndim != 1 else ""
        return f"Tensor({body}{shape}, dtype={self.dtype.name})"

    def __str__(self):
        return str(self._value())

    __hash__ = None  # tensors compare elementwise, so they are not hashable

    def __array_namespace__(self, /, *, api_version=None):
        """The ``lazytensor`` module, which serves every Array API version up to 2025.12.

        ``ValueError`` if ``api_version`` is not ``None`` or one of those versions.
        """
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"lazytensor does not serve Array API version {api_version!r}; "
                             f"it serves {', '.join(_API_VERSIONS)}")
        import lazytensor

        return lazytensor

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export the value as a DLPack capsule (see :func:`lazytensor.from_dlpack`).

        The capsule shares the tensor's memory, as ``np.asarray(t)`` does (writable where
        NumPy's would be).  A consumer that passes ``max_version >= (1, 0)`` gets a versioned
        capsule, flagged read-only for a read-only view or source.  The legacy (0.x) protocol
        cannot say "read-only", so such memory is copied for it, unless ``copy=False`` asks
        for the memory itself: then the consumer must not write to it.

        ``BufferError`` for a device other than the CPU (``dl_device``); ``ValueError``
        for a ``stream`` (the CPU has none).
        """
        if stream is not None:
            raise ValueError(f"__dlpack__: the CPU has no streams; stream must be None, got "
                             f"{stream!r}")
        if dl_device is not None:
            if tuple(getattr(d, "value", d) for d in dl_device) != _DLPACK_CPU:
                raise BufferError(f"__dlpack__: lazytensor cannot export to DLPack device "
                                  f"{tuple(dl_device)!r}; only the CPU {_DLPACK_CPU} exists")
        value = _views.handed_out(self)     # the tensor's memory, as np.asarray gives
        if max_version is not None and max_version[0] >= 1:
            # NumPy's versioned export: read-only flag, and the IS_COPIED flag on a copy
            return value.__dlpack__(max_version=max_version, copy=copy)
        if copy is False:
            value = _writable_alias(value)
        elif not value.flags.writeable or copy:
            value = value.copy()
        return value.__dlpack__()

    def __dlpack_device__(self, /):
        """``(1, 0)``: DLPack's ``kDLCPU``, device 0."""
        return _DLPACK_CPU


_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
_DLPACK_CPU = (1, 0)   # (kDLCPU, device id)


class _Alias:
    """Owner of a writable NumPy alias of a read-only array (keeps the array alive)."""

    __slots__ = ("base", "__array_interface__")

    def __init__(self, base):
        self.base = base
        interface = dict(base.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface


def leaf_of(obj, what: str) -> Tensor:
    """A leaf over a NumPy array (without a copy: it is read when evaluated, as
    ``asarray(obj)`` reads it) or a NumPy or Python scalar: what an op makes of an operand
    that is not a Tensor.  TypeError naming ``what`` for a dtype lazytensor does not take."""
    arr = np.asarray(obj)
    _dtypes.canonical_dtype(arr.dtype, where=what)
    if arr is obj and type(arr) is np.ndarray:     # the caller's array: its memory
        return _views.source_tensor(arr.view())
    return Tensor._from_array(arr)


def _writable_alias(array: np.ndarray) -> np.ndarray:
    """``array``'s memory as a writable array, for exporters that cannot flag read-only."""
    if array.flags.writeable:
        return array
    return np.asarray(_Alias(array))


def _rebuild(array: np.ndarray) -> Tensor:
    """A tensor of a copied or unpickled value (Tensor.__reduce__)."""
    array.setflags(False)
    return Tensor._from_array(array)
