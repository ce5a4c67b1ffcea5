"""Manipulation functions (all fifteen of the Array API) and ``matrix_transpose``.

These are not elementwise: they evaluate their input and return a NumPy view of the value
wherever one exists (reshape of a contiguous value, ``expand_dims``, ``squeeze``,
``permute_dims``, ``moveaxis``, ``flip``, ``broadcast_to``, ``unstack``), so the next
kernel reads it in place through its strides.  ``concat``, ``stack``, ``repeat``, ``roll``
and ``tile`` build new values.

Axes may be negative (counted from the end).  An axis out of range raises
``numpy.exceptions.AxisError``, which is both an ``IndexError`` and a ``ValueError``;
repeated axes raise ``ValueError``.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._engine import dtypes as _dtypes
from .._engine import graph as _graph
from .._engine import evaluate as _eval
from .._engine import memory as _memory
from .._engine import views as _views
from .._engine.shapes import broadcast_shapes_cached
from .._engine.shapes import check_size
from .args import integer_arg, normalize_axis, tensor_value
from .elementwise import cast as _cast
from .ndarray_args import operand, zero_d_axis
from .._engine.tensor import Tensor, note_reads

__all__ = ['broadcast_arrays', 'broadcast_shapes', 'broadcast_to', 'concat', 'diagonal',
           'expand_dims', 'flip', 'matrix_transpose', 'moveaxis', 'permute_dims',
           'ravel', 'repeat', 'reshape', 'roll', 'squeeze', 'stack', 'swapaxes', 'tile',
           'transpose', 'unstack']


# ---- helpers ---------------------------------------------------------------------------
def _operand(x, what) -> Tensor:
    """NumPy's array-likes (lists, NumPy arrays, scalars) as tensors; tensors as they are."""
    if isinstance(x, Tensor):
        return x
    return operand(x, what)


def _wrap(arr) -> Tensor:
    # a view of a user's buffer (a tensor made by asarray without a copy) would be
    # writable; tensor values are read-only
    arr = np.asarray(arr)
    if arr.flags.writeable:
        arr = arr.view()
        arr.flags.writeable = False
    return Tensor._from_array(arr)


def _ints(values, name, what) -> tuple:
    """An int or a sequence of ints as a tuple of ints."""
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        return (operator.index(values),)
    try:
        items = tuple(values)
    except TypeError:
        raise TypeError(f"{what}: {name} must be an int or a tuple of ints, got "
                        f"{type(values).__name__} {values!r}") from None
    return tuple(integer_arg(v, what, name) for v in items)


def _axes(axes, ndim: int, what: str, name: str = "axis") -> tuple:
    """An int or a tuple of ints as distinct axes in ``[0, ndim)``."""
    out = tuple(normalize_axis(a, ndim, what, name=name) for a in _ints(axes, name, what))
    if len(set(out)) != len(out):
        raise ValueError(f"{what}: repeated {name} in {axes!r}")
    return out


def _shape(shape, what) -> tuple:
    return _ints(shape, "shape", what)


def _joined(arrays, what):
    """``arrays`` (a non-empty sequence of tensors, checked) and their promoted dtype."""
    if isinstance(arrays, Tensor) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{what}: expected a list or tuple of Tensors, got "
                        f"{type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{what}: needs at least one tensor")
    for i, x in enumerate(arrays):
        if not isinstance(x, Tensor):
            raise TypeError(f"{what}: element {i} is a {type(x).__name__}, not a Tensor")
    return list(arrays), _dtypes.result_type_of([x.dtype for x in arrays])


# Below this, planning on Python's path costs more than the copy it saves (both measured in
# docs/memory-model.md): smaller results are joined by NumPy from values C computed.
INTO_MIN_BYTES = 1 << 18


def _join(parts, dtype, shape, axis, stacked):
    """The tensor of ``shape`` joining ``parts`` along ``axis`` (``stacked``: a new axis).

    Where each part is one block of the result in row-major order (every axis before
    ``axis`` has length 1: the common ``axis=0``) and the result is large, the parts are
    evaluated together, each kernel writing its block of the result; otherwise their values
    are evaluated together and NumPy joins them."""
    parts = [_cast(p, dtype) for p in parts]
    nodes = [p._node for p in parts]
    note_reads(nodes)                       # during a jit trace: the function read values
    _eval.lock.enter(nodes)
    try:
        if (math.prod(shape[:axis]) == 1 and any(n.value is None for n in nodes)
                and math.prod(shape) * dtype.itemsize >= INTO_MIN_BYTES):
            out = _memory.empty(shape, dtype)
            flat, at, blocks = out.reshape(-1), 0, []
            for p in parts:
                blocks.append(flat[at:at + p.size].reshape(p.shape))
                at += p.size
            _eval.evaluate_into(nodes, blocks)
            out.setflags(write=False)       # the parts' values are views of it
        else:
            _eval.evaluate([n for n in nodes if n.value is None])
            values = [n.value for n in nodes]
            out = (np.stack(values, axis=axis) if stacked else
                   np.concatenate(values, axis=axis))
    finally:
        _eval.lock.release()
    return Tensor._from_array(out)


# ---- broadcasting ----------------------------------------------------------------------
def broadcast_shapes(*shapes) -> tuple:
    """The shape that ``shapes`` broadcast to (``()`` for no shapes).

    Raises
    ------
    ValueError
        If the shapes do not broadcast together.
    """
    shapes = tuple(_shape(s, "broadcast_shapes") for s in shapes)
    for s in shapes:
        if any(n < 0 for n in s):
            raise ValueError(f"broadcast_shapes: negative dimension in shape {s}")
    out = broadcast_shapes_cached(shapes)
    if out is None:
        raise ValueError(f"broadcast_shapes: shapes {' and '.join(map(str, shapes))} do not "
                         f"broadcast together")
    return check_size(out, "broadcast_shapes")


def broadcast_to(x, /, shape) -> Tensor:
    """``x`` broadcast to ``shape`` (zero strides, no copy).

    Raises
    ------
    ValueError
        If ``x``'s shape does not broadcast to ``shape``.
    """
    x = _operand(x, "broadcast_to")
    shape = _shape(shape, "broadcast_to")
    if shape == x.shape and _views.memory(x) is None:
        return Tensor._from_node(x._node)   # stays lazy, so the expression can still fuse
    if any(n < 0 for n in shape) or broadcast_shapes_cached((x.shape, shape)) != shape:
        raise ValueError(f"broadcast_to: a tensor of shape {x.shape} does not broadcast to "
                         f"shape {shape}")
    check_size(shape, "broadcast_to", x.dtype)
    return _views.view(x, lambda m: np.broadcast_to(m, shape), read_only=True)


def broadcast_arrays(*arrays) -> tuple:
    """The tensors broadcast against one another, as a tuple: read-only views (NumPy's warn
    on a write), no copies; as NumPy's, a tensor that needs no broadcasting is itself."""
    arrays = tuple(operand(x, "broadcast_arrays") for x in arrays)   # NumPy's array-likes
    shape = broadcast_shapes_cached(tuple(x.shape for x in arrays))
    if shape is None:   # NumPy's words, which callers match, then the shapes
        raise ValueError(f"broadcast_arrays: shape mismatch: objects cannot be broadcast to "
                         f"a single shape (shapes "
                         f"{' and '.join(str(x.shape) for x in arrays)})")
    if all(x.shape == shape for x in arrays):
        return tuple(arrays)
    for x in arrays:
        check_size(shape, "broadcast_arrays", x.dtype)
    return tuple(x if x.shape == shape else broadcast_to(x, shape) for x in arrays)


# ---- shape-only operations (views) -------------------------------------------------------
def _unkept_reduction(node, shape):
    """A pending reduction with ``keepdims=True`` reshaped to drop its kept unit axes is
    the same reduction without them (the same values, bit for bit): a lazy tensor on that
    node, so that the reshape needs no value now (``logsumexp`` adds the row maximum back);
    None for any other reshape."""
    if node.value is not None or node.op != "reduce" or not node.attrs[2]:
        return None
    reduction, axes, _ = node.attrs
    if type(shape) is int:
        shape = (shape,)
    # exact ints only (1.0 or np.int64(1) would find the entry of 1: reshape rejects floats)
    if type(shape) is not tuple or not all(type(n) is int for n in shape):
        return None
    key = (node.shape, axes, shape)
    flat = _UNKEPT.get(key, False)
    if flat is False:
        flat = _unkept_shape(node.shape, axes, shape)
        if len(_UNKEPT) < 256:
            _UNKEPT[key] = flat
    if flat is None:
        return None
    return Tensor._from_node(_graph.op_node("reduce", node.inputs, (reduction, axes, False),
                                            node.dtype, flat))


# (kept shape, axes, asked shape) -> the shape without the kept unit axes when the asked
# shape is that, else None: the checks below cost more than the rest of logsumexp's reshape
_UNKEPT: dict = {}


def _unkept_shape(kept, axes, shape):
    flat = tuple(n for d, n in enumerate(kept) if d not in axes)
    if shape.count(-1) == 1:
        known = math.prod(n for n in shape if n != -1)
        size = math.prod(flat)
        if known <= 0 or size % known:
            return None
        shape = tuple(size // known if n == -1 else n for n in shape)
    return flat if shape == flat else None


def reshape(x, /, shape=None, order="C", *, newshape=None, copy=None) -> Tensor:
    """``x`` with a new shape (a view when the value's layout allows it).

    Parameters
    ----------
    x : Tensor
    shape : int or tuple of ints
        One entry may be -1: it is inferred from the size.
    order : {"C", "F", "A"}
        NumPy's: read and place the elements in row-major ("C", and "A": a tensor's layout
        is not visible, so "A" is "C") or column-major ("F") order.
    newshape : tuple of ints, optional
        NumPy's deprecated name for ``shape``.
    copy : bool or None
        ``True`` always copies, ``False`` never does (``ValueError`` if the layout needs
        a copy), ``None`` copies only when needed.
    """
    if newshape is not None:
        if shape is not None:
            raise TypeError("reshape: give shape or newshape, not both")
        shape = newshape
    if shape is None:
        raise TypeError("reshape: missing the shape argument")
    if order not in ("C", "A"):
        if order != "F":
            raise ValueError(f"reshape: order must be 'C', 'F' or 'A', got {order!r}")
        x = _operand(x, "reshape")
        reverse = tuple(range(x.ndim))[::-1]
        shape = _shape(shape, "reshape")
        out = reshape(permute_dims(x, reverse), shape[::-1], copy=copy)
        return permute_dims(out, tuple(range(len(shape)))[::-1])
    if copy is None and isinstance(x, Tensor):
        same = _unkept_reduction(x._node, shape)
        if same is not None:
            return same
    x = _operand(x, "reshape")
    if copy is None and type(shape) is tuple and all(type(n) is int and n >= -1 for n in shape):
        unknown = shape.count(-1)                # the common case, lean
        known = math.prod(n for n in shape if n != -1)
        size = x.size
        # (a zero-size value's new shape may be too large: checked below)
        if size and (size == known if unknown == 0 else
                     unknown == 1 and known > 0 and size % known == 0):
            return _views.view(x, lambda m: m.reshape(shape), push=False)
    shape = _shape(shape, "reshape")
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"reshape: shape {shape} may hold one -1 and otherwise "
                         f"non-negative sizes")
    known = 1
    for n in shape:
        known *= n if n != -1 else 1
    if unknown and known and x.size % known == 0:   # infer the -1
        shape = shape[:unknown[0]] + (x.size // known,) + shape[unknown[0] + 1:]
        known *= shape[unknown[0]]
    if known != x.size or -1 in shape:
        # NumPy's words, which callers match, and the op and shapes
        raise ValueError(f"reshape: cannot reshape array of size {x.size} into shape "
                         f"{shape} (a tensor of shape {x.shape})")
    check_size(shape, "reshape", x.dtype)    # (a zero-size one: its other dimensions)
    if copy:
        return _wrap(np.reshape(x._value(), shape, copy=True))
    try:
        return _views.view(x, lambda m: np.reshape(m, shape, copy=copy), push=False)
    except ValueError:
        raise ValueError(f"reshape: copy=False was given, but reshaping a tensor of shape "
                         f"{x.shape} into {shape} needs a copy of its (strided) value") from None


def expand_dims(x, /, axis) -> Tensor:
    """``x`` with new axes of length one (a view).

    Parameters
    ----------
    x : Tensor
    axis : int or tuple of ints
        Positions of the new axes in the result, which has ``x.ndim + len(axis)``
        dimensions; negative positions count from its end.
    """
    x = _operand(x, "expand_dims")
    positions = _ints(axis, "axis", "expand_dims")
    axes = _axes(positions, x.ndim + len(positions), "expand_dims")
    return _views.view(x, lambda m: np.expand_dims(m, axes))


def squeeze(x, /, axis=None) -> Tensor:
    """``x`` without the length-one axes ``axis`` (an int or a tuple; a view); NumPy's
    default ``axis=None`` removes every length-one axis.

    Raises
    ------
    ValueError
        If one of the axes does not have length one.
    """
    x = _operand(x, "squeeze")
    if axis is None:
        axis = tuple(d for d, n in enumerate(x.shape) if n == 1)
    axes = _axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: cannot select an axis to squeeze out which has "
                             f"size not equal to one (axis {a} of shape {x.shape} has "
                             f"length {x.shape[a]})")
    return _views.view(x, lambda m: np.squeeze(m, axes))


def permute_dims(x, /, axes) -> Tensor:
    """``x`` with its axes permuted: axis ``i`` of the result is axis ``axes[i]`` of ``x``."""
    x = _operand(x, "permute_dims")
    if type(axes) is tuple and all(type(a) is int for a in axes) \
            and sorted(axes) == list(range(x.ndim)):   # the common case, lean
        return _views.view(x, lambda m: m.transpose(axes))
    perm = tuple(normalize_axis(a, x.ndim, "permute_dims", name="axes")
                 for a in _ints(axes, "axes", "permute_dims"))
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} are not a permutation of the "
                         f"{x.ndim} axes of shape {x.shape}")
    return _views.view(x, lambda m: np.transpose(m, perm))


def matrix_transpose(x, /) -> Tensor:
    """The transpose of the last two axes (a view)."""
    x = _operand(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions, got shape "
                         f"{x.shape}")
    return _views.view(x, lambda m: np.swapaxes(m, -1, -2))


def moveaxis(x, source, destination, /) -> Tensor:
    """``x`` with axes ``source`` moved to positions ``destination`` (a view)."""
    x = _operand(x, "moveaxis")
    src = _axes(source, x.ndim, "moveaxis", "source")
    dst = _axes(destination, x.ndim, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} "
                         f"must have the same number of axes")
    return _views.view(x, lambda m: np.moveaxis(m, src, dst))


def flip(x, /, axis=None) -> Tensor:
    """``x`` with the order of elements reversed along ``axis`` (all axes if None; a view)."""
    x = _operand(x, "flip")
    axes = tuple(range(x.ndim)) if axis is None else _axes(axis, x.ndim, "flip")
    key = tuple(slice(None, None, -1) if a in axes else slice(None)
                for a in range(x.ndim)) + (Ellipsis,)    # "..." keeps 0-d a view
    return _views.view(x, lambda m: m[key])


def unstack(x, /, *, axis=0) -> tuple:
    """The slices of ``x`` along ``axis``, as a tuple of views."""
    x = _operand(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack: x must have at least one dimension, got a 0-d tensor")
    a = normalize_axis(axis, x.ndim, "unstack")
    # 0-d views, not scalars
    return tuple(_views.view(x, lambda m, i=i: np.moveaxis(m, a, 0)[i, ...])
                 for i in range(x.shape[a]))


def transpose(x, /, axes=None) -> Tensor:
    """NumPy's transpose: ``x`` with its axes reversed, or permuted by ``axes`` (as
    :func:`permute_dims`).  A 0-d or 1-d tensor is returned as it is."""
    x = _operand(x, "transpose")
    if axes is None:
        if x.ndim < 2:
            return x
        axes = tuple(range(x.ndim))[::-1]
    return permute_dims(x, axes)


def swapaxes(x, /, axis1, axis2) -> Tensor:
    """NumPy's swapaxes: ``x`` with axes ``axis1`` and ``axis2`` interchanged (a view)."""
    x = _operand(x, "swapaxes")
    perm = list(range(x.ndim))
    a = normalize_axis(axis1, x.ndim, "swapaxes", x.shape, "axis1")
    b = normalize_axis(axis2, x.ndim, "swapaxes", x.shape, "axis2")
    perm[a], perm[b] = perm[b], perm[a]
    return permute_dims(x, tuple(perm))


def ravel(x, /, order="C") -> Tensor:
    """NumPy's ravel: the elements of ``x`` as a 1-d tensor, in row-major order ("C", and
    "K"/"A": a tensor's layout is not visible) or column-major order ("F")."""
    x = _operand(x, "ravel")
    if order not in ("C", "K", "A", "F"):
        raise ValueError(f"ravel: order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    return reshape(x, (-1,), order="F" if order == "F" else "C")


def diagonal(x, /, offset=0, axis1=0, axis2=1) -> Tensor:
    """NumPy's diagonal: the diagonals of the 2-d planes of ``x`` over ``axis1`` and
    ``axis2``, as the last axis of the result (a read-only view, as in NumPy).  The Array
    API's :func:`lazytensor.linalg.diagonal` takes the last two axes instead."""
    x = _operand(x, "diagonal")
    if x.ndim < 2:
        raise ValueError(f"diagonal: x must have at least 2 dimensions, got shape {x.shape}")
    a = normalize_axis(axis1, x.ndim, "diagonal", x.shape, "axis1")
    b = normalize_axis(axis2, x.ndim, "diagonal", x.shape, "axis2")
    if a == b:
        raise ValueError(f"diagonal: axis1 and axis2 cannot be the same axis ({axis1}, "
                         f"{axis2})")
    offset = integer_arg(offset, "diagonal", "offset")
    return _views.view(x, lambda m: np.diagonal(m, offset, a, b), read_only=True)


# ---- operations that build new values ----------------------------------------------------
def concat(arrays, /, *, axis=0) -> Tensor:
    """Join tensors along an existing axis (flattened first if ``axis`` is None).

    The result has the promoted dtype of the inputs.

    Raises
    ------
    ValueError
        If the shapes differ other than along ``axis``, or a tensor is 0-d.
    """
    values, dtype = _joined(arrays, "concat")
    if axis is None:
        size = sum(v.size for v in values)
        check_size((size,), "concat", dtype)
        return _join([reshape(v, (-1,)) for v in values], dtype, (size,), 0, False)
    shapes = [v.shape for v in values]
    ndim = len(shapes[0])
    if ndim == 0 or any(len(s) != ndim for s in shapes):
        raise ValueError(f"concat: the tensors must have the same number of dimensions (at "
                         f"least 1); got shapes {', '.join(map(str, shapes))}")
    a = normalize_axis(axis, ndim, "concat")
    rest = {s[:a] + s[a + 1:] for s in shapes}
    if len(rest) > 1:
        raise ValueError(f"concat: the shapes {', '.join(map(str, shapes))} differ in an axis "
                         f"other than the concatenation axis {a}")
    first = shapes[0]
    shape = first[:a] + (sum(s[a] for s in shapes),) + first[a + 1:]
    check_size(shape, "concat", dtype)
    return _join(values, dtype, shape, a, False)


def stack(arrays, /, axis=0) -> Tensor:
    """Join tensors of one shape along a new axis ``axis`` of the result.

    The result has the promoted dtype of the inputs.
    """
    values, dtype = _joined(arrays, "stack")
    shapes = {v.shape for v in values}
    if len(shapes) > 1:
        raise ValueError(f"stack: the tensors must have the same shape; got "
                         f"{', '.join(str(v.shape) for v in values)}")
    a = normalize_axis(axis, values[0].ndim + 1, "stack")
    shape = values[0].shape
    out_shape = shape[:a] + (len(values),) + shape[a:]
    check_size(out_shape, "stack", dtype)
    return _join(values, dtype, out_shape, a, True)


def repeat(x, repeats, /, axis=None) -> Tensor:
    """Repeat each element of ``x`` ``repeats`` times along ``axis``.

    Parameters
    ----------
    x : Tensor
    repeats : int, integer Tensor or array-like
        One count for all elements, or a count per element along ``axis`` (shape ``(1,)``
        or ``(x.shape[axis],)``).  Counts must be non-negative.
    axis : int, optional
        By default ``x`` is flattened (row-major) and the result is one-dimensional.
    """
    x = _operand(x, "repeat")
    if isinstance(repeats, (list, tuple, np.ndarray)):     # NumPy's array-like counts
        repeats = _operand(repeats, "repeat")
    v = tensor_value(x, "repeat")
    if zero_d_axis(axis, x) is None:     # (NumPy's: a 0-d x as one element)
        v = v.reshape(-1)
        a = 0
    else:
        a = normalize_axis(axis, x.ndim, "repeat")
    n = v.shape[a]
    if isinstance(repeats, Tensor):
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"repeat: repeats must have an integer dtype, got "
                            f"{repeats.dtype.name}")
        if repeats.ndim > 1 or repeats.ndim == 1 and repeats.shape[0] not in (1, n):
            raise ValueError(f"repeat: repeats of shape {repeats.shape} does not broadcast "
                             f"to the {n} elements along the axis (shape {(n,)})")
        counts = repeats._value()
        if counts.size and counts.min() < 0:
            raise ValueError("repeat: repeats must be non-negative")
        counts = counts.astype(np.intp)
    else:
        counts = integer_arg(repeats, "repeat", "repeats")
        if counts < 0:
            raise ValueError(f"repeat: repeats must be non-negative, got {counts}")
    if isinstance(counts, np.ndarray) and counts.size != 1:
        total = float(counts.sum(dtype=np.float64))    # rounded, but never wraps around
        total = int(counts.sum()) if total < 2**62 else int(total)
    else:
        total = n * int(counts if type(counts) is int else counts.reshape(-1)[0])
    check_size(v.shape[:a] + (total,) + v.shape[a + 1:], "repeat", v.dtype)
    return Tensor._from_array(np.repeat(v, counts, axis=a))


def roll(x, /, shift, axis=None) -> Tensor:
    """``x`` with its elements shifted cyclically by ``shift`` along ``axis``.

    Parameters
    ----------
    x : Tensor
    shift : int or tuple of ints
        A tuple gives one shift per axis of ``axis`` (which must then be a tuple of the
        same length); an int shifts every axis of ``axis`` by that much.
    axis : int or tuple of ints, optional
        By default ``x`` is flattened, shifted and reshaped back.
    """
    v = tensor_value(x, "roll")
    shifts = _ints(shift, "shift", "roll")
    if axis is None:
        if not isinstance(shift, (int, np.integer)):
            raise ValueError(f"roll: a tuple shift {shift!r} needs an axis tuple of the "
                             f"same length")
        return Tensor._from_array(np.roll(v, shifts[0]))
    axes = tuple(normalize_axis(a, x.ndim, "roll") for a in _ints(axis, "axis", "roll"))
    if not isinstance(shift, (int, np.integer)):
        if isinstance(axis, (int, np.integer)) or len(shifts) != len(axes):
            raise ValueError(f"roll: shift {shift!r} and axis {axis!r} must have the same "
                             f"length")
    else:
        shifts = shifts * len(axes)
    return Tensor._from_array(np.roll(v, shifts, axis=axes))


def tile(x, repetitions, /) -> Tensor:
    """``x`` repeated ``repetitions[i]`` times along axis ``i``.

    If ``repetitions`` is shorter than ``x.ndim`` it is padded with leading ones; if
    longer, ``x`` gets leading axes of length one.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"tile: expected a Tensor, got {type(x).__name__}")
    reps = _ints(repetitions, "repetitions", "tile")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions must be non-negative, got {reps}")
    ndim = max(len(reps), x.ndim)       # both padded with leading ones
    shape = (1,) * (ndim - x.ndim) + x.shape
    reps_ = (1,) * (ndim - len(reps)) + reps
    check_size(tuple(d * r for d, r in zip(shape, reps_)), "tile", x.dtype)
    v = x._value()
    return Tensor._from_array(np.tile(v, reps))
