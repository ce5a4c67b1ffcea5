"""Basic indexing and ``.T`` of a tensor's memory in C (kernels_c/ext/views.c), side by side
with NumPy and with the Python path they replace (``indexing.getitem``, ``_T``): the same
values, shapes and strides, a view that writes reach both ways as NumPy's does, ``base``,
and every key C does not take handed to Python with Python's errors; views made afresh
per call key their kernels with the same tuples each time (ext/interned.c)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._api import indexing, ndarray_methods
from lazytensor._engine import views
from lazytensor._engine.native import fastpath as _fastpath


def _random_key(rng, ndim):
    """A basic key: ints (some negative), slices (any bounds, steps of either sign, None),
    None and at most one ``...``; as a tuple or a lone item."""
    items = []
    budget = ndim
    for _ in range(rng.randint(0, ndim + 2)):
        kind = rng.choice("isnse" if budget else "ne")
        if kind == "i":
            items.append(rng.randint(-3, 3))
        elif kind == "s":
            bound = lambda: rng.choice([None, rng.randint(-6, 6)])  # noqa: E731
            items.append(slice(bound(), bound(), rng.choice([None, 1, 2, -1, -2, 3])))
        elif kind == "n":
            items.append(None)
        elif Ellipsis not in items:
            items.append(Ellipsis)
        if kind in "is":
            budget -= 1
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items)


def _numpy_result(a, key):
    try:
        return a[key], None
    except (IndexError, TypeError, ValueError) as exc:
        return None, type(exc)


SHAPES = [(), (5,), (4, 3), (3, 1, 4), (2, 3, 2, 2)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_random_basic_keys_give_numpys_views(shape):
    """x[key] on a caller's array: NumPy's values and shape; a write through the
    result reaches x, and a write into x reaches the result, exactly where NumPy's do (an
    element picked by one int per axis is NumPy's scalar, a copy, which no write reaches)."""
    rng = random.Random(len(shape) * 7919 + 1)
    for _ in range(150):
        key = _random_key(rng, len(shape))
        a = (np.arange(np.prod(shape, dtype=int), dtype=np.float32) - 4).reshape(shape)
        x = lt.asarray(a.copy())
        expected, error = _numpy_result(a, key)
        if error is not None:
            with pytest.raises(error):
                x[key]
            continue
        got = x[key]
        assert got.shape == np.shape(expected), key
        np.testing.assert_array_equal(got.numpy(), expected)
        if isinstance(expected, np.ndarray):
            assert got.base is x, key
        # a write into x (NumPy: into a), then one through the result where NumPy allows
        a[...] += 100
        x[...] += 100
        if isinstance(expected, np.ndarray) and expected.size:
            expected.flat[0] = -1
            got_mem = np.asarray(got)
            got_mem.flat[0] = -1
        np.testing.assert_array_equal(x.numpy(), a, err_msg=repr(key))
        np.testing.assert_array_equal(np.asarray(got), expected, err_msg=repr(key))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_c_views_are_the_python_paths_views(shape):
    """The C path and the Python function it stands in front of give the same tensor."""
    rng = random.Random(len(shape) * 104729 + 3)
    a = np.arange(np.prod(shape, dtype=int), dtype=np.int32).reshape(shape)
    for _ in range(100):
        key = _random_key(rng, len(shape))
        x = lt.asarray(a.copy())
        try:
            c_side = x[key]
        except IndexError:
            with pytest.raises(IndexError):
                indexing.getitem(x, key)
            continue
        py_side = indexing.getitem(x, key)
        assert (c_side.shape, c_side.dtype, c_side.strides) == \
            (py_side.shape, py_side.dtype, py_side.strides), key
        np.testing.assert_array_equal(c_side.numpy(), py_side.numpy())
        assert c_side.base is py_side.base
    for ndim_shape in SHAPES:
        x = lt.asarray(np.ones(ndim_shape, np.float32))
        c_side, py_side = x.T, ndarray_methods._T(x)
        assert (c_side.shape, c_side.strides, c_side.base) == \
            (py_side.shape, py_side.strides, py_side.base)


@pytest.mark.parametrize("key, error", [
    ((0, 0, 0), IndexError),            # too many indices
    ((5,), IndexError), ((-6, 1), IndexError), ((1, 3), IndexError),   # out of bounds
    ((Ellipsis, Ellipsis), IndexError),
    (slice(None, None, 0), ValueError),
    (1.0, TypeError), ((slice(1.0, None),), TypeError), ("a", TypeError),
    (2 ** 70, IndexError), ((slice(None, None, 2 ** 70), 2 ** 70), IndexError),
])
def test_keys_that_raise_raise_pythons_errors(key, error):
    x = lt.asarray(np.zeros((5, 3), np.float32))
    with pytest.raises(error) as c_side:
        x[key]
    with pytest.raises(error) as py_side:
        indexing.getitem(x, key)
    assert str(c_side.value) == str(py_side.value)


@pytest.mark.parametrize("key", [
    True, (np.int64(1),), (np.array(1),), (np.array([0, 2]),), ([1, 0],),
    (lt.asarray(np.array(2)),), (np.array([True, False, True, False, True]),),
    (slice(np.int64(1), None),), (1, 2),
])
def test_keys_c_leaves_to_python_give_numpys_results(key):
    """Bools, NumPy ints, arrays, tensors, one int per axis: Python's path, NumPy's values."""
    a = np.arange(15.0).reshape(5, 3)
    x = lt.asarray(a.copy())
    k = key if not isinstance(key, lt.Tensor) else key
    np_key = tuple(np.asarray(i) if isinstance(i, lt.Tensor) else i for i in k) \
        if isinstance(k, tuple) else k
    np.testing.assert_array_equal(np.asarray(x[key]), a[np_key])


def test_views_of_other_tensors_take_pythons_path():
    """A pending tensor (its view stays pending), a read-only source, a read-only view and a
    tensor with pending views of it: NumPy's values and write rules, as before."""
    a = np.arange(12.0).reshape(3, 4)
    pending = lt.asarray(a) * 2
    v = pending[1:]
    assert v._node.op != "leaf"                       # pushed down, not computed
    np.testing.assert_array_equal(v.numpy(), (a * 2)[1:])
    np.testing.assert_array_equal(pending.T.numpy(), (a * 2).T)

    ro = a.copy()
    ro.setflags(write=False)
    x = lt.asarray(ro)
    for view in (x[1:], x.T):
        with pytest.raises(ValueError):
            view[0] = 1
    b = lt.broadcast_to(lt.asarray(np.arange(4.0)), (3, 4))
    with pytest.raises(ValueError):
        b[1:][0] = 1

    base = lt.asarray(a.copy()) + 0
    first = base[1:]                                  # a pending view of a pending base
    assert id(base) in views._lazy_views
    second = base[:, 1]
    base[0, 0] = 50.0                                 # settles: both views see memory
    expected = a.copy()
    expected[0, 0] = 50.0
    np.testing.assert_array_equal(first.numpy(), expected[1:])
    np.testing.assert_array_equal(second.numpy(), expected[:, 1])


def test_a_jitted_function_taking_a_view_gives_each_calls_values():
    """A view read during a trace (the value read lt.jit notes): every call's own values."""
    calls = []

    @lt.jit
    def f(x):
        calls.append(1)
        return x[1:] * 2

    x = lt.asarray(np.arange(6.0, dtype=np.float32))
    np.testing.assert_array_equal(f(x).numpy(), np.arange(1.0, 6.0) * 2)
    x2 = lt.asarray(np.arange(6.0, dtype=np.float32) + 10)
    np.testing.assert_array_equal(f(x2).numpy(), (np.arange(1.0, 6.0) + 10) * 2)


def test_a_subclass_takes_pythons_path():
    class Sub(lt.Tensor):
        __slots__ = ()

    x = Sub._from_node(lt.asarray(np.arange(6.0).reshape(2, 3))._node)
    np.testing.assert_array_equal(x[1].numpy(), [3.0, 4.0, 5.0])
    np.testing.assert_array_equal(x.T.numpy(), np.arange(6.0).reshape(2, 3).T)


def _factorings(size, rng):
    """A few shapes of `size` elements, some with a -1."""
    out = []
    for _ in range(6):
        dims, left = [], size
        for _ in range(rng.randint(0, 3)):
            divisors = [d for d in range(1, left + 1) if left % d == 0]
            d = rng.choice(divisors)
            dims.append(d)
            left //= d
        dims.append(left)
        rng.shuffle(dims)
        if rng.random() < 0.4:
            dims[rng.randrange(len(dims))] = -1
        out.append(tuple(dims))
    return out


@pytest.mark.parametrize("shape", [(12,), (3, 4), (2, 3, 2), (4, 1, 3)], ids=str)
@pytest.mark.parametrize("layout", ["memory", "transposed memory", "pending"])
def test_reshape_and_transpose_methods_give_numpys_views_and_copies(shape, layout):
    """x.reshape(...) as a tuple or as ints, x.transpose() and x.transpose(None): NumPy's
    values; a write into x reaches the result exactly when NumPy's reshape is a view (the
    reshape of a transposed memory is a copy); the same tensors as the Python methods."""
    rng = random.Random(hash(shape) % 1000 + len(layout))
    size = int(np.prod(shape))
    for target in _factorings(size, rng):
        a0 = np.arange(size, dtype=np.float64).reshape(shape)
        x0 = lt.asarray(a0.copy())
        if layout == "memory":
            a, x = a0, x0
        elif layout == "transposed memory":
            a, x = a0.T, x0.T
        else:
            a, x = a0 * 1, x0 * 1
        for got, expected, python in [
                (x.reshape(target), a.reshape(target), lambda: ndarray_methods._reshape(x, target)),
                (x.reshape(*target), a.reshape(*target), None),
                (x.transpose(), a.transpose(), lambda: ndarray_methods._transpose(x)),
                (x.transpose(None), a.transpose(None), None)]:
            assert got.shape == expected.shape
            np.testing.assert_array_equal(got.numpy(), expected)
            if python is not None:
                again = python()
                assert (again.shape, again.strides) == (got.shape, got.strides)
                assert (again.base is None) == (got.base is None)
        views_a = [a.reshape(target), a.transpose()]
        views_x = [x.reshape(target), x.transpose()]
        a[...] = -a - 1            # (NumPy: a write into the pending twin's new array)
        x[...] = -x - 1
        for v, w in zip(views_a, views_x):
            np.testing.assert_array_equal(w.numpy(), v, err_msg=f"{layout} {target}")


@pytest.mark.parametrize("args, error", [
    (((5, 3),), ValueError), ((5, 3), ValueError), (((-1, -1),), ValueError),
    (((-2, -6),), ValueError), (((2.0, 6),), TypeError), ((2 ** 70,), ValueError),
    (((0, -1),), ValueError),
])
def test_reshapes_that_raise_raise_pythons_errors(args, error):
    x = lt.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(error) as c_side:
        x.reshape(*args)
    with pytest.raises(error) as py_side:
        ndarray_methods._reshape(x, *args)
    assert str(c_side.value) == str(py_side.value)


def test_reshape_and_transpose_keywords_and_axes_take_pythons_path():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = lt.asarray(a.copy())
    np.testing.assert_array_equal(x.reshape((4, 6), order="F").numpy(), a.reshape((4, 6), order="F"))
    np.testing.assert_array_equal(x.reshape(4, 6, copy=True).numpy(), a.reshape(4, 6, copy=True))
    np.testing.assert_array_equal(x.transpose(1, 0, 2).numpy(), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(x.transpose((2, 0, 1)).numpy(), a.transpose((2, 0, 1)))
    v = lt.asarray(np.arange(3.0))
    assert v.transpose() is v and v.T.shape == (3,)
    with pytest.raises(ValueError):
        x.transpose(0, 0, 1)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint64", "bool", "complex128"])
def test_element_access_gives_numpys_scalar(dtype):
    """x[i, j] with one Python int per axis (C's element access): NumPy's value and dtype as
    a 0-d tensor holding a copy (no later write into x reaches it, nor a write into it x),
    for memory, a transposed view, a pending tensor and a read-only source."""
    rng = random.Random(dtype)
    a0 = (np.arange(24) % 5 - 2).astype(dtype).reshape(2, 3, 4)
    ro = a0.copy()
    ro.setflags(write=False)
    cases = [(a0.copy(), lambda a: lt.asarray(a)), (a0.copy(), lambda a: lt.asarray(a).T),
             (a0.copy(), lambda a: lt.asarray(a) * 1), (ro, lambda a: lt.asarray(a))]
    for a, make in cases:
        x = make(a)
        ref = np.asarray(x).copy()
        for _ in range(20):
            key = tuple(rng.randint(-n, n - 1) for n in ref.shape)
            got = x[key]
            assert got.shape == () and got.dtype == ref.dtype
            assert got.numpy().tobytes() == ref[key].tobytes()
        if a.flags.writeable and x._node.op == "leaf":
            corner = (0,) * ref.ndim                # (-2, or True: not 0)
            e = x[corner]
            x[...] = np.zeros((), dtype)
            assert e.numpy().tobytes() == ref[corner].tobytes()
            e[...] = np.ones((), dtype)             # its own value: x is not written
            np.testing.assert_array_equal(np.asarray(x), np.zeros(ref.shape, dtype))


def test_element_access_out_of_bounds_and_other_keys_take_pythons_path():
    x = lt.asarray(np.arange(6.0).reshape(2, 3))
    for key in [(2, 0), (0, -4), (0, 2 ** 64)]:
        with pytest.raises(IndexError) as c_side:
            x[key]
        with pytest.raises(IndexError) as py_side:
            indexing.getitem(x, key)
        assert str(c_side.value) == str(py_side.value)
    np.testing.assert_array_equal(x[np.int64(1), 2].numpy(), 5.0)
    np.testing.assert_array_equal(x[1].numpy(), [3.0, 4.0, 5.0])
    assert lt.asarray(np.arange(3))[2].numpy() == 2


def test_every_c_method_of_tensor_has_a_signature():
    """Tensor's methods made in C (views, values, operators) carry their signatures, as the
    Python methods they replace did: inspect reads them, and so do the Array API's signature
    tests (a method without one was skipped there)."""
    import inspect

    c_methods = {name: obj for name, obj in vars(lt.Tensor).items()
                 if type(obj).__name__ == "method_descriptor"}
    assert {"__getitem__", "reshape", "transpose", "__add__", "_value"} <= set(c_methods)
    for name in c_methods:
        params = inspect.signature(getattr(lt.Tensor, name)).parameters
        assert next(iter(params)) == "self", name
    assert list(inspect.signature(lt.Tensor.__getitem__).parameters) == ["self", "key"]


_REMADE = {
    "x[1:] - x[:-1]": lambda x, X, Y, b: x[1:] - x[:-1],
    "X.T + Y": lambda x, X, Y, b: X.T + Y,
    "X[1:] + b (broadcast)": lambda x, X, Y, b: X[1:] + b,
    "strided views": lambda x, X, Y, b: X[::2, 1:] * X[1::2, :-1],
}


@pytest.mark.parametrize("name", list(_REMADE))
def test_an_expression_remade_each_call_keys_with_the_same_objects(name):
    """The quick table's memo (ext/quick.c) matches a key item by item by identity: views
    made afresh per call and broadcast shapes give their keys the same tuples each time
    (ext/interned.c), so a repeated small expression of views does not rehash its key."""
    rng = np.random.default_rng(0)
    x = lt.asarray(rng.standard_normal(10).astype(np.float32))
    X, Y = (lt.asarray(rng.standard_normal((6, 6)).astype(np.float32)) for _ in range(2))
    b = lt.asarray(rng.standard_normal(6).astype(np.float32))
    _REMADE[name](x, X, Y, b).numpy()      # (the first recording of a signature is Python's)
    first, second = (_REMADE[name](x, X, Y, b) for _ in range(2))
    assert first._node is not second._node
    k1, k2 = (_fastpath.group_key(e._node)[0] for e in (first, second))
    assert k1 == k2
    assert all(p is q for p, q in zip(k1, k2)), [(p, q) for p, q in zip(k1, k2) if p is not q]


def test_many_layouts_of_one_shape_keep_their_own_kernels():
    """Layouts that share a shape but not their strides, dtype or element offset, more of
    them than the interning caches hold (so slots are replaced), evaluated in turn and
    again: each gives NumPy's values."""
    rng = np.random.default_rng(1)
    bases = {dt: rng.standard_normal((40, 40)).astype(dt) for dt in (np.float32, np.float64)}
    cases = []
    for dt, base in bases.items():
        t = lt.asarray(base)
        for r in range(1, 9):
            for c in range(1, 9):
                for off in range(3):
                    key = (slice(off, off + 4 * r, r), slice(off, off + 4 * c, c))
                    cases += [(t[key], base[key]), (t[key].T, base[key].T)]
        for n in range(1, 40, 3):                          # shapes of their own too
            cases.append((t[:n, ::-1], base[:n, ::-1]))
    assert len({(ref.shape, ref.strides, ref.dtype) for _, ref in cases}) > 128
    for _ in range(2):
        for i, (view, ref) in enumerate(cases):
            other_view, other_ref = cases[i - 1]
            if other_ref.shape == ref.shape and other_ref.dtype == ref.dtype:
                got, want = (view * 2 - other_view).numpy(), ref * 2 - other_ref
            else:
                got, want = (view * 2 + 1).numpy(), ref * 2 + 1
            np.testing.assert_array_equal(got, want)
