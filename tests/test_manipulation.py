"""Manipulation functions against NumPy: dtypes, shapes (0-d, size 0), axes, views, errors."""

import inspect

import numpy as np
import pytest

import lazytensor as lt
from lazytensor import broadcast_shapes

DTYPES = ["bool", "int8", "uint16", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]


def arr(shape, dtype="float64"):
    """A NumPy array of ``shape`` with distinct-ish values of ``dtype``."""
    return (np.arange(int(np.prod(shape))).reshape(shape) % 7 + 1).astype(dtype)


def same(t, expected, dtype=None):
    expected = np.asarray(expected)
    assert isinstance(t, lt.Tensor)
    assert t.shape == expected.shape
    assert t.dtype == (np.dtype(dtype) if dtype is not None else expected.dtype)
    np.testing.assert_array_equal(t.numpy(), expected)


def is_view_of(t, x):
    return np.shares_memory(t.numpy(), x.numpy())


@pytest.mark.parametrize("name, params", [
    ("broadcast_arrays", "*arrays"),
    ("broadcast_shapes", "*shapes"),
    ("broadcast_to", "x, /, shape"),
    ("concat", "arrays, /, *, axis=0"),
    ("expand_dims", "x, /, axis"),
    ("flip", "x, /, axis=None"),
    ("matrix_transpose", "x, /"),
    ("moveaxis", "x, source, destination, /"),
    ("permute_dims", "x, /, axes"),
    # NumPy's signatures, a superset of the standard's (docs/numpy-methods.md)
    ("repeat", "x, repeats, /, axis=None"),
    ("reshape", "x, /, shape=None, order='C', *, newshape=None, copy=None"),
    ("roll", "x, /, shift, axis=None"),
    ("squeeze", "x, /, axis=None"),
    ("stack", "arrays, /, axis=0, out=None, *, dtype=None, casting='same_kind'"),
    ("tile", "x, repetitions, /"),
    ("unstack", "x, /, *, axis=0"),
])
def test_signature(name, params):
    fn = getattr(lt, name)
    assert str(inspect.signature(fn)).split(" ->")[0] == f"({params})"
    assert fn.__doc__


# ---- broadcasting -------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [(), ((),), ((2, 1), (3,)), ((0,), (1,)), ((5, 1, 3), (4, 1)),
                                    ((1,), (2, 1), (3, 1, 1)), ((4,),)])
def test_broadcast_shapes_and_arrays(shapes):
    assert broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)
    xs = [lt.asarray(arr(s, "int16")) for s in shapes]
    out = lt.broadcast_arrays(*xs)
    ref = np.broadcast_arrays(*(x.numpy() for x in xs))
    assert isinstance(out, tuple) and len(out) == len(ref)
    for o, r in zip(out, ref):
        same(o, r)


def test_broadcast_errors():
    with pytest.raises(ValueError, match=r"broadcast_shapes: shapes \(2,\) and \(3,\)"):
        broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError, match="broadcast_arrays"):
        lt.broadcast_arrays(lt.ones(2), lt.ones(3))
    with pytest.raises(ValueError, match=r"shape \(2, 3\) does not broadcast to shape \(3,\)"):
        lt.broadcast_to(lt.ones((2, 3)), (3,))
    with pytest.raises(ValueError, match="does not broadcast"):
        lt.broadcast_to(lt.ones(2), (2, 3))
    with pytest.raises(ValueError, match="does not broadcast"):
        lt.broadcast_to(lt.ones(1), (-1,))
    with pytest.raises(TypeError, match="shape"):
        broadcast_shapes((2.0,))


@pytest.mark.parametrize("src, dst", [((), (2, 3)), ((3,), (2, 3)), ((2, 1), (2, 0)),
                                      ((1, 1), (1, 1)), ((0,), (4, 0))])
@pytest.mark.parametrize("dtype", ["bool", "int8", "float32", "complex64"])
def test_broadcast_to(src, dst, dtype):
    x = lt.asarray(arr(src, dtype))
    out = lt.broadcast_to(x, dst)
    same(out, np.broadcast_to(x.numpy(), dst))
    if out.size:
        assert is_view_of(out, x)


def test_broadcast_to_same_shape_stays_lazy():
    y = lt.asarray(np.arange(3.0)) * 2.0
    out = lt.broadcast_to(y, (3,))
    assert not out.is_evaluated and out is not y
    same(out, [0.0, 2.0, 4.0])


# ---- reshape ------------------------------------------------------------------------------
@pytest.mark.parametrize("src, dst", [((), ()), ((), (1, 1)), ((6,), (2, 3)), ((2, 3), (-1,)),
                                      ((2, 3, 4), (4, -1)), ((0, 3), (3, 0)), ((0, 3), (-1, 3)),
                                      ((1,), ())])
@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape(src, dst, dtype):
    x = lt.asarray(arr(src, dtype))
    same(lt.reshape(x, dst), x.numpy().reshape(dst))


def test_reshape_views_and_copies():
    x = lt.asarray(arr((4, 6)))
    v = lt.reshape(x, (2, 12))
    assert is_view_of(v, x)
    assert is_view_of(lt.reshape(x, (24,), copy=False), x)
    c = lt.reshape(x, (2, 12), copy=True)
    assert not is_view_of(c, x)
    same(c, x.numpy().reshape(2, 12))
    t = lt.permute_dims(x, (1, 0))                # strided: flattening needs a copy
    same(lt.reshape(t, (-1,)), x.numpy().T.reshape(-1))
    with pytest.raises(ValueError, match="copy=False"):
        lt.reshape(t, (-1,), copy=False)
    assert x.reshape(3, 8).shape == (3, 8) and x.reshape((8, 3)).shape == (8, 3)


def test_reshape_errors():
    x = lt.ones((2, 3))
    with pytest.raises(ValueError, match=r"reshape: cannot reshape array of size 6 into shape \(4,\) "
                                         r"\(a tensor of shape \(2, 3\)\)"):
        lt.reshape(x, (4,))
    with pytest.raises(ValueError, match="one -1"):
        lt.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="one -1"):
        lt.reshape(x, (-2, -3))
    with pytest.raises(ValueError, match="into shape"):
        lt.reshape(x, (4, -1))
    with pytest.raises(ValueError, match="into shape"):
        lt.reshape(lt.ones((0, 2)), (0, -1))
    with pytest.raises(TypeError, match="reshape: shape must be an int"):
        lt.reshape(x, (2.0, 3))
    with pytest.raises(TypeError, match="reshape: expected a Tensor"):
        lt.reshape(object(), (3,))


# ---- axes-only views ------------------------------------------------------------------
@pytest.mark.parametrize("shape, axis", [((), 0), ((), -1), ((), (0, 1)), ((3,), 1),
                                         ((2, 3), -1), ((2, 3), (0, 3)), ((2, 3), (-1, 0)),
                                         ((2, 0), (1, -2)), ((2, 3), ())])
def test_expand_dims(shape, axis):
    x = lt.asarray(arr(shape, "int32"))
    out = lt.expand_dims(x, axis=axis)
    same(out, np.expand_dims(x.numpy(), axis))
    if out.size:
        assert is_view_of(out, x)


def test_expand_dims_errors():
    x = lt.ones((2, 3))
    for axis in (3, -4, (0, 4), (-5, 0)):
        with pytest.raises(IndexError, match=r"expand_dims: axis -?\d+ is out of range"):
            lt.expand_dims(x, axis)
    with pytest.raises(ValueError, match="repeated axis"):
        lt.expand_dims(x, (0, -4))
    with pytest.raises(TypeError, match="axis must be an int"):
        lt.expand_dims(x, 1.0)
    with pytest.raises(TypeError):
        lt.expand_dims(x)                      # no default axis in 2025.12


@pytest.mark.parametrize("shape, axis", [((1,), 0), ((1, 3, 1), -1), ((1, 3, 1), (0, 2)),
                                         ((1, 1), (-1, -2)), ((0, 1), 1), ((2,), ())])
def test_squeeze(shape, axis):
    x = lt.asarray(arr(shape, "complex64"))
    out = lt.squeeze(x, axis)
    same(out, np.squeeze(x.numpy(), axis))
    if out.size:
        assert is_view_of(out, x)


def test_squeeze_errors():
    x = lt.ones((1, 3))
    with pytest.raises(ValueError, match=r"squeeze: cannot select an axis to squeeze out .*axis 1 "
                                         r"of shape \(1, 3\) has length 3"):
        lt.squeeze(x, 1)
    with pytest.raises(IndexError, match="out of range"):
        lt.squeeze(x, 2)
    with pytest.raises(ValueError, match="repeated axis"):
        lt.squeeze(x, (0, -2))
    with pytest.raises(IndexError, match="0-d"):
        lt.squeeze(lt.ones(()), 0)


@pytest.mark.parametrize("shape, axes", [((), ()), ((3,), (0,)), ((2, 3), (1, 0)),
                                         ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (-1, 0, -2)),
                                         ((2, 0, 4), (1, 2, 0))])
@pytest.mark.parametrize("dtype", ["bool", "uint64", "float16", "complex128"])
def test_permute_dims_and_matrix_transpose(shape, axes, dtype):
    x = lt.asarray(arr(shape, dtype))
    out = lt.permute_dims(x, axes)
    same(out, np.transpose(x.numpy(), axes))
    if out.size:
        assert is_view_of(out, x)
    if len(shape) >= 2:
        same(lt.matrix_transpose(x), np.swapaxes(x.numpy(), -1, -2))
        same(x.mT, np.swapaxes(x.numpy(), -1, -2))


def test_permute_dims_errors():
    x = lt.ones((2, 3))
    for axes in ((0, 0), (0,), (1, 0, -1)):
        with pytest.raises(ValueError, match="not a permutation"):
            lt.permute_dims(x, axes)
    with pytest.raises(IndexError, match="axes 2 is out of range"):
        lt.permute_dims(x, (0, 2))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        lt.matrix_transpose(lt.ones(3))


@pytest.mark.parametrize("shape, src, dst", [((3,), 0, -1), ((2, 3, 4), 0, -1),
                                             ((2, 3, 4), (0, 1), (-1, 0)),
                                             ((2, 0, 4), -1, 0), ((2, 3), (), ())])
def test_moveaxis(shape, src, dst):
    x = lt.asarray(arr(shape, "int8"))
    out = lt.moveaxis(x, src, dst)
    same(out, np.moveaxis(x.numpy(), src, dst))
    if out.size:
        assert is_view_of(out, x)


def test_moveaxis_errors():
    x = lt.ones((2, 3, 4))
    with pytest.raises(ValueError, match="same number of axes"):
        lt.moveaxis(x, (0, 1), 2)
    with pytest.raises(ValueError, match="repeated source"):
        lt.moveaxis(x, (0, 0), (1, 2))
    with pytest.raises(IndexError, match="destination 3 is out of range"):
        lt.moveaxis(x, 0, 3)


@pytest.mark.parametrize("shape, axis", [((), None), ((4,), None), ((4,), 0), ((2, 3), -1),
                                         ((2, 3, 4), (0, 2)), ((2, 0, 3), None), ((2, 3), ())])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "complex64"])
def test_flip(shape, axis, dtype):
    x = lt.asarray(arr(shape, dtype))
    out = lt.flip(x, axis=axis)
    same(out, np.flip(x.numpy(), axis))
    if out.size:
        assert is_view_of(out, x)


def test_flip_errors():
    with pytest.raises(IndexError, match="flip: axis 2 is out of range for a 2-d"):
        lt.flip(lt.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        lt.flip(lt.ones((2, 3)), axis=(1, -1))


@pytest.mark.parametrize("shape, axis", [((3,), 0), ((2, 3), 1), ((2, 3, 4), -1),
                                         ((2, 0), 0), ((2, 0), 1)])
def test_unstack(shape, axis):
    x = lt.asarray(arr(shape, "float16"))
    out = lt.unstack(x, axis=axis)
    ref = np.unstack(x.numpy(), axis=axis)
    assert isinstance(out, tuple) and len(out) == len(ref)
    for o, r in zip(out, ref):
        same(o, r)
        if o.size:
            assert is_view_of(o, x)


def test_unstack_errors():
    with pytest.raises(ValueError, match="0-d"):
        lt.unstack(lt.ones(()))
    with pytest.raises(IndexError, match="unstack: axis -3"):
        lt.unstack(lt.ones((2, 3)), axis=-3)


def test_views_of_user_buffers_write_into_them_as_numpys_do():
    src = np.arange(6.0)
    out = lt.reshape(lt.asarray(src), (2, 3))
    out[1, 0] = -1.0
    assert src[3] == -1.0 and np.shares_memory(np.asarray(out), src)
    ro = np.arange(6.0)
    ro.setflags(write=False)
    view = lt.reshape(lt.asarray(ro), (2, 3))   # a read-only source gives read-only views
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 1.0
    assert not np.asarray(view).flags.writeable and np.shares_memory(np.asarray(view), ro)


# ---- concat and stack ----------------------------------------------------------------------
@pytest.mark.parametrize("shapes, axis", [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1)], -1),
                                          ([(3,)], 0), ([(2, 0), (2, 3), (2, 1)], 1),
                                          ([(), (2, 2)], None), ([(0,), (0,)], 0),
                                          ([(2, 3, 4), (2, 1, 4)], 1)])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int8", "uint8"),
                                    ("float32", "complex64"), ("bool", "bool"),
                                    ("int64", "float64")])
def test_concat(shapes, axis, dtypes):
    vals = [arr(s, dtypes[i % 2]) for i, s in enumerate(shapes)]
    out = lt.concat([lt.asarray(v) for v in vals], axis=axis)
    dtype = np.result_type(*(v.dtype for v in vals))
    ref = np.concatenate(vals if axis is not None else [v.ravel() for v in vals], axis=axis or 0)
    same(out, ref.astype(dtype), dtype)


def test_concat_errors():
    with pytest.raises(ValueError, match="at least one"):
        lt.concat([])
    with pytest.raises(ValueError, match=r"differ in an axis other than the concatenation axis 0"):
        lt.concat([lt.ones((2, 3)), lt.ones((2, 4))])
    with pytest.raises(ValueError, match="same number of dimensions"):
        lt.concat([lt.ones(()), lt.ones(())])
    with pytest.raises(ValueError, match="same number of dimensions"):
        lt.concat([lt.ones((2,)), lt.ones((2, 1))])
    with pytest.raises(IndexError, match="concat: axis 2 is out of range"):
        lt.concat([lt.ones((2, 3))], axis=2)
    with pytest.raises(TypeError, match="element 1 is a ndarray"):
        lt.concat([lt.ones(2), np.ones(2)])
    with pytest.raises(TypeError, match="list or tuple"):
        lt.concat(lt.ones((2, 2)))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 2)])
@pytest.mark.parametrize("axis", [0, -1, 1])
@pytest.mark.parametrize("dtypes", [("int16",), ("int8", "int16", "uint8"),
                                    ("float32", "complex128"), ("bool", "bool")])
def test_stack(shape, axis, dtypes):
    if not -len(shape) - 1 <= axis <= len(shape):
        with pytest.raises(IndexError, match="stack: axis"):
            lt.stack([lt.ones(shape)], axis=axis)
        return
    vals = [arr(shape, d) for d in dtypes]
    out = lt.stack(tuple(lt.asarray(v) for v in vals), axis=axis)
    dtype = np.result_type(*(v.dtype for v in vals))
    same(out, np.stack(vals, axis=axis).astype(dtype), dtype)


def test_stack_errors():
    with pytest.raises(ValueError, match=r"same shape; got \(2,\), \(3,\)"):
        lt.stack([lt.ones(2), lt.ones(3)])
    with pytest.raises(ValueError, match="at least one"):
        lt.stack(())


# ---- repeat, roll, tile ----------------------------------------------------------------
@pytest.mark.parametrize("shape, repeats, axis", [
    ((3,), 2, None), ((2, 3), 2, None), ((2, 3), 0, 1), ((2, 3), [1, 0, 3], 1),
    ((2, 3), [2], -2), ((), 3, None), ((0, 2), 2, 0), ((2, 3), [1, 2, 0, 1, 1, 1], None),
])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "float64", "complex64"])
def test_repeat(shape, repeats, axis, dtype):
    x = lt.asarray(arr(shape, dtype))
    reps = lt.asarray(repeats) if isinstance(repeats, list) else repeats
    same(lt.repeat(x, reps, axis=axis), np.repeat(x.numpy(), repeats, axis=axis))


def test_repeat_errors():
    x = lt.ones((2, 3))
    with pytest.raises(ValueError, match="non-negative"):
        lt.repeat(x, -1)
    with pytest.raises(ValueError, match="non-negative"):
        lt.repeat(x, lt.asarray([1, -1, 1]), axis=1)
    with pytest.raises(TypeError, match="integer dtype"):
        lt.repeat(x, lt.asarray([1.0, 2.0]), axis=0)
    with pytest.raises(ValueError, match=r"shape \(2,\) does not broadcast"):
        lt.repeat(x, lt.asarray([1, 2]), axis=1)
    with pytest.raises(IndexError, match="repeat: axis 2"):
        lt.repeat(x, 2, axis=2)
    with pytest.raises(TypeError, match="repeats must be an int"):
        lt.repeat(x, 1.5)


@pytest.mark.parametrize("shape, shift, axis", [
    ((5,), 2, None), ((5,), -7, None), ((2, 3), 1, None), ((2, 3), 1, 1), ((2, 3), -1, -2),
    ((2, 3, 4), (1, -2), (0, 2)), ((2, 3, 4), 5, (0, 1)), ((), 3, None), ((0, 3), 1, 1),
    ((2, 3), (1, 1), (1, 1)), ((4,), 10**12, 0),
])
@pytest.mark.parametrize("dtype", ["int32", "float16", "complex128"])
def test_roll(shape, shift, axis, dtype):
    x = lt.asarray(arr(shape, dtype))
    same(lt.roll(x, shift, axis=axis), np.roll(x.numpy(), shift, axis=axis))


def test_roll_errors():
    x = lt.ones((2, 3))
    with pytest.raises(ValueError, match="same length"):
        lt.roll(x, (1, 2), axis=(0,))
    with pytest.raises(ValueError, match="same length"):
        lt.roll(x, (1, 2), axis=0)
    with pytest.raises(ValueError, match="axis tuple"):
        lt.roll(x, (1, 2))
    with pytest.raises(IndexError, match="roll: axis 2"):
        lt.roll(x, 1, axis=2)


@pytest.mark.parametrize("shape, reps", [((3,), (2,)), ((2, 3), (2,)), ((2, 3), (2, 1, 3)),
                                         ((), (2, 2)), ((2, 0), (3, 3)), ((2, 3), (0, 1)),
                                         ((2, 3), ())])
@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex64"])
def test_tile(shape, reps, dtype):
    x = lt.asarray(arr(shape, dtype))
    same(lt.tile(x, reps), np.tile(x.numpy(), reps))


def test_tile_errors():
    with pytest.raises(ValueError, match="non-negative"):
        lt.tile(lt.ones(2), (-1,))
    with pytest.raises(TypeError, match="repetitions must be an int"):
        lt.tile(lt.ones(2), (1.5,))


def test_lazy_inputs_are_evaluated():
    y = lt.asarray(np.arange(6.0)) * 3.0 + 1.0
    same(lt.reshape(y, (2, 3)), (np.arange(6.0) * 3.0 + 1.0).reshape(2, 3))
    same(lt.concat([y, y]), np.tile(np.arange(6.0) * 3.0 + 1.0, 2))


# ---- concat and stack of pending parts: each kernel writes its block of the result ---------
def _join_cases():
    rng = np.random.default_rng(11)
    A = rng.standard_normal((6, 5)).astype(np.float32)
    B = rng.standard_normal((3, 5)).astype(np.float32)
    a, b = lt.asarray(A), lt.asarray(B)
    return [
        (lambda: lt.concat([a * 2, b + 1, a[:2]]),
         lambda: np.concatenate([A * 2, B + 1, A[:2]])),
        (lambda: lt.concat([a * 2, lt.astype(b, lt.float64) - 1]),        # promoted
         lambda: np.concatenate([A * 2, B.astype(np.float64) - 1])),
        (lambda: lt.concat([lt.exp(a), a * 2 + 1], axis=1),               # not one block
         lambda: np.concatenate([np.exp(A), A * 2 + 1], axis=1)),
        (lambda: lt.concat([a * 2, (b * 3)[0]], axis=None),
         lambda: np.concatenate([(A * 2).ravel(), (B * 3)[0]])),
        (lambda: lt.stack([a * 2, a - 1, a]), lambda: np.stack([A * 2, A - 1, A])),
        (lambda: lt.stack([a * 2, a - 1], axis=2), lambda: np.stack([A * 2, A - 1], axis=2)),
        (lambda: lt.concat([lt.sum(a * 2, axis=0), b[0] + 1]),            # a reduction's
         lambda: np.concatenate([np.sum(A * 2, axis=0, dtype=np.float64).astype(np.float32),
                                 B[0] + 1])),
        (lambda: (lambda x: lt.concat([x, x * 3, x]))(a - 1),               # shared work
         lambda: np.concatenate([A - 1, (A - 1) * 3, A - 1])),
    ]


@pytest.mark.parametrize("k", range(8))
@pytest.mark.parametrize("into_min", [0, 1 << 40])
def test_concat_and_stack_of_pending_parts_are_numpys(monkeypatch, k, into_min):
    from lazytensor._api import manipulation as _manipulation
    monkeypatch.setattr(_manipulation, "INTO_MIN_BYTES", into_min)
    make, numpy = _join_cases()[k]
    got, want = make(), numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_pending_parts_are_computed_in_their_block_of_the_result(monkeypatch):
    from lazytensor._api import manipulation as _manipulation
    monkeypatch.setattr(_manipulation, "INTO_MIN_BYTES", 0)
    A = np.arange(20, dtype=np.float32).reshape(4, 5)
    a = lt.asarray(A)
    x, y = a * 2, a + 1
    c = lt.concat([x, y])
    # the parts' values are the result's memory: no part was computed apart and copied
    assert np.shares_memory(x._node.value, c._node.value)
    assert np.shares_memory(y._node.value, c._node.value)
    # ... which NumPy's semantics never show: the result shares nothing with its parts
    assert not np.shares_memory(c, x) and not np.may_share_memory(c, y)
    c[0, 0] = 50
    x += 1
    h = np.asarray(y)
    h[0, 0] = -7
    np.testing.assert_array_equal(c.numpy(), np.concatenate([A * 2, A + 1]) +
                                  np.where(np.arange(40).reshape(8, 5) == 0, 50, 0))
    np.testing.assert_array_equal(x.numpy(), A * 2 + 1)
    assert float(c[4, 0]) == 1.0
