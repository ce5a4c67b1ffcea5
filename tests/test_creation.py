"""Creation functions against NumPy: dtypes, shapes (0-d, size 0), keywords, copies, errors."""

import array
import inspect

import numpy as np
import pytest

import lazytensor as lt

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
SHAPES = [(), (0,), (3,), (2, 0, 3), (2, 3, 4)]


def same(t, expected, dtype=None):
    """``t`` is a Tensor equal to ``expected`` in shape, dtype and values (NaN == NaN)."""
    expected = np.asarray(expected)
    assert isinstance(t, lt.Tensor)
    assert t.shape == expected.shape
    assert t.dtype == (np.dtype(dtype) if dtype is not None else expected.dtype)
    np.testing.assert_array_equal(t.numpy(), expected)


# ---- signatures -------------------------------------------------------------------------
@pytest.mark.parametrize("name, params", [
    ("arange", "start, /, stop=None, step=1, dtype=None, *, device=None, like=None"),
    ("asarray", "obj, /, *, dtype=None, device=None, copy=None"),
    ("empty", "shape, dtype=None, order='C', *, device=None, like=None"),
    ("empty_like", "x, /, dtype=None, order='K', subok=True, shape=None, *, device=None"),
    ("eye", "n_rows, n_cols=None, /, k=0, dtype=None, order='C', *, device=None, like=None"),
    ("from_dlpack", "x, /, *, device=None, copy=None"),
    ("full", "shape, fill_value, dtype=None, order='C', *, device=None, like=None"),
    ("full_like",
     "x, /, fill_value, dtype=None, order='K', subok=True, shape=None, *, device=None"),
    ("linspace",
     "start, stop, /, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None"),
    ("meshgrid", "*arrays, indexing='xy', sparse=False, copy=True"),
    ("ones", "shape, dtype=None, order='C', *, device=None, like=None"),
    ("ones_like", "x, /, dtype=None, order='K', subok=True, shape=None, *, device=None"),
    ("tril", "x, /, k=0"),
    ("triu", "x, /, k=0"),
    ("zeros", "shape, dtype=None, order='C', *, device=None, like=None"),
    ("zeros_like", "x, /, dtype=None, order='K', subok=True, shape=None, *, device=None"),
])
def test_signature(name, params):
    fn = getattr(lt, name)
    assert str(inspect.signature(fn)).split(" ->")[0] == f"({params})"
    assert fn.__doc__


# ---- fills ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES + [5])
@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_ones_empty(shape, dtype):
    same(lt.zeros(shape, dtype=dtype), np.zeros(shape, dtype))
    same(lt.ones(shape, dtype=dtype), np.ones(shape, dtype))
    assert lt.empty(shape, dtype=dtype).shape == np.empty(shape).shape
    assert lt.empty(shape, dtype=dtype).dtype == dtype


def test_fill_defaults():
    for fn in (lt.zeros, lt.ones, lt.empty):
        assert fn((2,)).dtype == lt.float64
    assert lt.full(2, True).dtype == lt.bool
    assert lt.full(2, 3).dtype == lt.int64
    assert lt.full(2, 3.5).dtype == lt.float64
    assert lt.full(2, 1 - 2j).dtype == lt.complex128
    assert lt.full(2, np.float32(1)).dtype == lt.float32   # NumPy scalars keep their dtype
    same(lt.ones(2, dtype=lt.complex64), np.array([1 + 0j, 1 + 0j], np.complex64))


@pytest.mark.parametrize("value, dtype", [
    (5, "int8"), (-3, "int64"), (2**64 - 1, "uint64"), (True, "float32"), (7, "float16"),
    (0.1, "float32"), (1e300, "float32"), (2.5, "int32"), (-2.5, "uint8"), (np.nan, "int16"),
    (3, "bool"), (0.0, "bool"), (1 + 2j, "complex64"), (2.0, "complex128"),
])
def test_full_converts_like_astype(value, dtype):
    out = lt.full((2, 3), value, dtype=dtype)
    if isinstance(value, float) and np.dtype(dtype).kind in "iub":   # lossy: astype's rules
        expected = lt.astype(lt.asarray(value), dtype).numpy()
    else:
        with np.errstate(over="ignore"):
            expected = np.array(value, dtype=dtype)
    same(out, np.broadcast_to(expected, (2, 3)), dtype)


def test_full_errors():
    with pytest.raises(OverflowError, match="int8"):
        lt.full(3, 300, dtype=lt.int8)
    with pytest.raises(OverflowError, match="int64"):
        lt.full(3, 2**63)
    with pytest.raises(TypeError, match="fill_value"):
        lt.full(3, "a")
    with pytest.raises(TypeError, match="imaginary"):
        lt.full(3, 1j, dtype=lt.float64)
    with pytest.raises(ValueError, match="negative dimension"):
        lt.zeros((2, -1))
    with pytest.raises(TypeError, match="shape"):
        lt.ones((2.0, 3))
    with pytest.raises(ValueError, match="CPU only"):
        lt.ones(3, device="gpu")
    with pytest.raises(TypeError, match="bfloat16|not a dtype|not served"):
        lt.zeros(3, dtype="bfloat16")


def test_full_with_0d_tensor():
    same(lt.full((2,), lt.asarray(2.5, dtype=lt.float32)), np.full(2, 2.5, np.float32))
    same(lt.full(2, lt.ones(2)), np.full(2, np.ones(2)))     # NumPy's array fill


@pytest.mark.parametrize("fill", [[1, 2, 3], np.array([1.5, -2.5, 7.0]), [[True], [False]],
                                  np.array([[1 + 2j, 3, 4]])])
@pytest.mark.parametrize("dtype", [None, "int16", "float32"])
def test_full_and_full_like_take_numpys_array_fills(fill, dtype):
    if dtype and np.iscomplexobj(fill):
        dtype = "complex64"
    same(lt.full((2, 3), fill, dtype=dtype), np.full((2, 3), fill, dtype=dtype))
    ref = np.zeros((2, 3), np.int8)
    same(lt.full_like(lt.asarray(ref), fill, dtype=dtype), np.full_like(ref, fill, dtype=dtype))
    with pytest.raises(ValueError, match=r"full: a fill_value of shape \(4,\) does not broadcast"):
        lt.full((2, 3), [1, 2, 3, 4])


@pytest.mark.parametrize("start, stop, axis", [([0.0, 1.0], [1.0, 3.0], 0), ([0, 1], 5, 1),
                                               (-1.0, [[2.0], [4.0]], -1), ([1j, 2], [3, 4j], 0)])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_takes_numpys_array_endpoints(start, stop, axis, endpoint):
    got = lt.linspace(lt.asarray(np.asarray(start)), stop, 5, endpoint=endpoint, axis=axis,
                      retstep=True)
    want = np.linspace(np.asarray(start), stop, 5, endpoint=endpoint, axis=axis, retstep=True)
    same(got[0], want[0])
    same(got[1], np.asarray(want[1]))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [None, "int16", "complex128", "bool"])
def test_like(shape, dtype):
    x = lt.asarray(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))
    ref = np.asarray(x)
    same(lt.zeros_like(x, dtype=dtype), np.zeros_like(ref, dtype=dtype))
    same(lt.ones_like(x, dtype=dtype), np.ones_like(ref, dtype=dtype))
    same(lt.full_like(x, 3, dtype=dtype), np.full_like(ref, 3, dtype=dtype))
    e = lt.empty_like(x, dtype=dtype)
    assert e.shape == shape and e.dtype == (dtype or lt.float32)
    same(lt.ones_like(x, device=x.device), np.ones_like(ref))
    same(lt.zeros_like(ref, dtype=dtype), np.zeros_like(ref, dtype=dtype))   # an ndarray
    with pytest.raises(TypeError, match="zeros_like: expected a Tensor or an array-like"):
        lt.zeros_like(object())


def test_fills_are_broadcast_but_usable():
    z = lt.zeros((1000, 1000))
    assert z.numpy().strides == (0, 0)          # one element, no memory
    z[1, 2] = 5.0                                # a write gets a buffer of its own
    assert float(z[1, 2]) == 5.0 and float(lt.sum(z)) == 5.0
    o = lt.ones((2, 3), dtype=lt.int32)
    o += 2
    same(o, np.full((2, 3), 3, np.int32))
    a = np.array(lt.ones(3))
    a[0] = 7                                    # np.array gives a writable copy
    np.testing.assert_array_equal(np.from_dlpack(lt.full(3, 2.0)), [2.0, 2.0, 2.0])
    same(lt.from_dlpack(lt.full((2, 2), 4)), np.full((2, 2), 4))
    same(lt.reshape(lt.ones((2, 3)), (3, 2)), np.ones((3, 2)))
    same(lt.ones((2, 3)).T @ lt.ones((2, 3)), np.full((3, 3), 2.0))
    c = lt.asarray(lt.zeros((500, 500)), copy=True)
    assert c.numpy().strides == (0, 0)          # a copy of a fill is still one element
    assert lt.ones((3,)).tolist() == [1.0, 1.0, 1.0]


# ---- asarray -----------------------------------------------------------------------------
@pytest.mark.parametrize("obj, dtype", [
    (True, "bool"), (3, "int64"), (-2.5, "float64"), (1 + 1j, "complex128"),
    ([[1, 2], [3, 4]], "int64"), ([1, 2.5], "float64"), ([True, 2], "int64"),
    ([1, 2j], "complex128"), ([[]], "float64"), ([False, True], "bool"),
])
def test_asarray_infers_dtype(obj, dtype):
    same(lt.asarray(obj), np.asarray(obj), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_asarray_numpy_and_dtype(dtype):
    src = (np.arange(12) % 5).reshape(3, 4).astype(dtype)
    same(lt.asarray(src), src)
    same(lt.asarray(src.T), src.T)
    same(lt.asarray(src[0, 0]), src[0, 0])               # NumPy scalar
    same(lt.asarray(src.tolist(), dtype=dtype), src)     # Python values to dtype
    target = "complex128" if dtype.startswith("complex") else "float64"
    same(lt.asarray(src, dtype=target), src.astype(target))


def test_asarray_buffers_and_protocols():
    same(lt.asarray(b"\x01\x02\xff"), np.array([1, 2, 255], np.uint8))
    same(lt.asarray(array.array("f", [1.5, 2.5])), np.array([1.5, 2.5], np.float32))
    buf = bytearray(b"\x07\x08")
    t = lt.asarray(buf, copy=False)
    buf[0] = 9                                          # shares the buffer
    same(t, np.array([9, 8], np.uint8))
    same(lt.asarray(memoryview(np.arange(3.0))), np.arange(3.0))
    same(lt.asarray([lt.asarray(1.0), lt.asarray(2.0)]), np.array([1.0, 2.0]))


def test_asarray_copy_semantics():
    src = np.arange(4.0)
    shared = lt.asarray(src, copy=False)
    assert np.shares_memory(shared.numpy(), src)
    assert np.shares_memory(lt.asarray(src).numpy(), src)
    own = lt.asarray(src, copy=True)
    assert not np.shares_memory(own.numpy(), src)
    with pytest.raises(ValueError, match="copy=False"):
        lt.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        lt.asarray(src, dtype=lt.float32, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        lt.asarray(np.arange(3, dtype=">i4"), copy=False)
    # tensors: copy=False is the tensor itself; copy=True is not affected by writes to it
    x = lt.asarray([1.0, 2.0]) * 2.0
    assert lt.asarray(x) is x and lt.asarray(x, copy=False) is x
    y = lt.asarray(x, copy=True)
    x[0] = 100.0
    same(y, [2.0, 4.0])
    leaf = lt.asarray(src)
    z = lt.asarray(leaf, copy=True)
    src[0] = -1.0
    same(z, [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="copy=False"):
        lt.asarray(x, dtype=lt.float32, copy=False)
    same(lt.asarray(x, dtype=lt.float32), np.array([100.0, 4.0], np.float32))


def test_asarray_conversion_is_not_lazy():
    src = np.array([1.5, 2.5])
    t = lt.asarray(src, dtype=lt.float32)
    src[0] = 99.0
    same(t, np.array([1.5, 2.5], np.float32))


def test_asarray_errors():
    with pytest.raises(OverflowError, match="int64"):
        lt.asarray(2**63)
    with pytest.raises(OverflowError, match="int64"):
        lt.asarray([1, 2**63])
    with pytest.raises(OverflowError):
        lt.asarray([300], dtype=lt.uint8)
    same(lt.asarray([2**64 - 1], dtype=lt.uint64), np.array([2**64 - 1], np.uint64))
    with pytest.raises(ValueError, match="cannot make a tensor"):
        lt.asarray([[1], [1, 2]])                        # ragged
    with pytest.raises(TypeError, match="Python objects"):
        lt.asarray([2**70])
    with pytest.raises(TypeError, match="strings"):
        lt.asarray(np.array(["a"]))
    with pytest.raises(ValueError, match="CPU only"):
        lt.asarray([1], device="gpu")
    assert lt.asarray([1], device=lt.ones(1).device).device == lt.ones(1).device


# ---- from_dlpack -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack(dtype):
    src = (np.arange(6) % 4).reshape(2, 3).astype(dtype)
    same(lt.from_dlpack(src), src)
    same(lt.from_dlpack(lt.asarray(src)), src)


def test_from_dlpack_keywords():
    src = np.arange(3.0)
    t = lt.from_dlpack(src, copy=False)
    assert np.shares_memory(t.numpy(), src)
    t = lt.from_dlpack(src, copy=True)
    assert not np.shares_memory(t.numpy(), src)
    same(lt.from_dlpack(src, device=lt.ones(1).device), src)
    same(lt.from_dlpack(src, device="cpu"), src)
    with pytest.raises(ValueError, match="CPU only"):
        lt.from_dlpack(src, device="cuda")
    with pytest.raises(AttributeError, match="DLPack"):
        lt.from_dlpack([1, 2])


# ---- ranges ---------------------------------------------------------------------------
@pytest.mark.parametrize("args, kwargs", [
    ((5,), {}), ((2, 9), {}), ((2, 9, 3), {}), ((9, 2, -2), {}), ((3, 3), {}), ((5, 1), {}),
    ((0.5,), {}), ((0, 1, 0.1), {}), ((1, 0, -0.25), {}), ((-3.5, 2), {}),
    ((5,), {"dtype": "float32"}), ((0, 10, 3), {"dtype": "uint8"}),
    ((-128, 128, 17), {"dtype": "int8"}), ((0, 1, 0.125), {"dtype": "float32"}),
    ((2**64 - 3, 2**64 - 1), {"dtype": "uint64"}), ((4,), {"dtype": "complex64"}),
])
def test_arange(args, kwargs):
    same(lt.arange(*args, **kwargs), np.arange(*args, **kwargs))


def test_arange_dtype_inference_and_errors():
    assert lt.arange(3).dtype == lt.int64
    assert lt.arange(3.0).dtype == lt.float64
    assert lt.arange(0, 3, 1.0).dtype == lt.float64
    assert lt.arange(0, 3, step=2).shape == (2,)
    assert lt.arange(5, stop=None).shape == (5,)
    with pytest.raises(ValueError, match="step must not be zero"):
        lt.arange(0, 3, 0)
    with pytest.raises(TypeError, match="real number"):
        lt.arange(1j)
    with pytest.raises(TypeError, match="int or a float"):
        lt.arange("3")
    with pytest.raises(OverflowError, match="int8"):
        lt.arange(0, 300, dtype=lt.int8)


@pytest.mark.parametrize("start, stop", [(0, 1), (-2.5, 7), (3, 3), (1e10, -1e10)])
@pytest.mark.parametrize("num", [0, 1, 2, 7])
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_linspace(start, stop, num, endpoint, dtype):
    same(lt.linspace(start, stop, num, endpoint=endpoint, dtype=dtype),
         np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype or "float64"))


def test_linspace_complex_and_errors():
    same(lt.linspace(0, 1 + 2j, 5), np.linspace(0, 1 + 2j, 5))
    same(lt.linspace(1j, 2, 4, dtype=lt.complex64, endpoint=False),
         np.linspace(1j, 2, 4, dtype=np.complex64, endpoint=False))
    with pytest.raises(ValueError, match="non-negative"):
        lt.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="num must be an int"):
        lt.linspace(0, 1, 2.5)
    with pytest.raises(TypeError, match="complex dtype"):
        lt.linspace(0, 1j, 3, dtype=lt.float64)


@pytest.mark.parametrize("n_rows, n_cols", [(0, None), (1, None), (3, None), (3, 5), (4, 2),
                                            (0, 3)])
@pytest.mark.parametrize("k", [-5, -1, 0, 2, 10**20])
@pytest.mark.parametrize("dtype", [None, "int8", "bool", "complex64"])
def test_eye(n_rows, n_cols, k, dtype):
    same(lt.eye(n_rows, n_cols, k=k, dtype=dtype),
         np.eye(n_rows, n_cols, k=k, dtype=dtype or "float64"))


def test_eye_errors():
    with pytest.raises(ValueError, match="non-negative"):
        lt.eye(-1)
    with pytest.raises(TypeError, match="n_rows must be an int"):
        lt.eye(2.0)
    with pytest.raises(TypeError):
        lt.eye(2, k=1.5)


# ---- meshgrid, tril, triu ----------------------------------------------------------------
@pytest.mark.parametrize("lengths", [(), (3,), (2, 3), (0, 2), (2, 3, 4), (1, 2, 3, 2)])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(lengths, indexing):
    vals = [np.arange(n, dtype=np.float32) + 10 * i for i, n in enumerate(lengths)]
    out = lt.meshgrid(*(lt.asarray(v) for v in vals), indexing=indexing)
    ref = np.meshgrid(*vals, indexing=indexing)
    assert isinstance(out, tuple) and len(out) == len(ref)
    for o, r in zip(out, ref):
        same(o, r)


def test_meshgrid_keeps_dtypes_and_checks_inputs():
    a, b = lt.asarray([1, 2], dtype=lt.int8), lt.asarray([1j, 2j, 3j])
    x, y = lt.meshgrid(a, b)
    assert (x.dtype, y.dtype, x.shape) == (lt.int8, lt.complex128, (3, 2))
    with pytest.raises(ValueError, match="indexing"):
        lt.meshgrid(a, indexing="yx")
    m, s = np.asarray([[1, 2], [3, 4]]), np.asarray(5.0)
    for copy in (True, False):         # NumPy flattens inputs of other shapes
        for got, want in zip(lt.meshgrid(lt.asarray(m), lt.asarray(s), copy=copy),
                             np.meshgrid(m, s)):
            same(got, want)
    for got, want in zip(lt.meshgrid([1, 2], (3.0,)), np.meshgrid([1, 2], (3.0,))):
        same(got, want)                                          # NumPy's array-likes
    with pytest.raises(TypeError, match="meshgrid: expected a Tensor or an array-like"):
        lt.meshgrid(object())


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 3), (0, 3), (2, 0, 4)])
@pytest.mark.parametrize("k", [-2, 0, 1, 5])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "complex128"])
def test_tril_triu(shape, k, dtype):
    a = (np.arange(int(np.prod(shape))).reshape(shape) % 3 + 1).astype(dtype)
    same(lt.tril(lt.asarray(a), k=k), np.tril(a, k))
    same(lt.triu(lt.asarray(a), k=k), np.triu(a, k))


def test_tril_triu_errors():
    with pytest.raises(ValueError, match="tril: x must have at least 2 dimensions"):
        lt.tril(lt.ones(3))
    same(lt.triu(np.ones((2, 2))), np.triu(np.ones((2, 2))))    # NumPy's array-likes
    with pytest.raises(TypeError, match="triu: expected a Tensor or an array-like"):
        lt.triu(object())
    with pytest.raises(TypeError, match="k must be an int"):
        lt.triu(lt.ones((2, 2)), k=0.5)


def test_full_keeps_its_arrays_by_exact_arguments():
    """full() keeps the broadcast array of common arguments; -0.0, bools, dtypes and shapes
    are told apart, errors are not kept, and every call is a leaf of its own."""
    a, b = lt.full((3,), -0.0), lt.full((3,), 0.0)
    assert np.signbit(np.asarray(a)).all() and not np.signbit(np.asarray(b)).any()
    assert a._node is not lt.full((3,), -0.0)._node
    assert lt.full((2,), True).dtype == lt.bool and lt.full((2,), 1).dtype == lt.int64
    assert lt.ones((2, 2), dtype=lt.int8).dtype == lt.int8 and lt.ones((4,)).shape == (4,)
    assert np.isnan(np.asarray(lt.full((2,), float("nan")))).all()
    lt.zeros((1,))
    for bad in [(True,), (-1,)]:
        with pytest.raises((TypeError, ValueError)):
            lt.zeros(bad)
    with pytest.raises(OverflowError):
        lt.full((2,), 300, dtype=lt.int8)
    with pytest.raises(OverflowError):
        lt.full((2,), 300, dtype=lt.int8)
    z, other = lt.zeros((3,)), lt.zeros((3,))
    handed = np.asarray(z)       # z's memory: writable, as np.zeros' is; the kept array
    handed[0] = 5.0              # is not it (a write reaches z only)
    assert handed.flags.writeable and float(z[0]) == 5.0
    np.testing.assert_array_equal(np.asarray(other), 0.0)
    np.testing.assert_array_equal(np.asarray(lt.zeros((3,))), 0.0)


@pytest.mark.parametrize("make", [
    lambda: lt.asarray([1.0, 2.0, 3.0]),
    lambda: lt.asarray(np.arange(3.0), copy=True),
    lambda: lt.asarray(np.arange(3.0), dtype=lt.float32),
    lambda: lt.asarray(memoryview(bytearray(12)).cast("f")),
    lambda: lt.asarray(np.arange(3.0).astype(">f8")),
])
def test_values_asarray_makes_are_read_only(make):
    """A copy or conversion asarray makes is handed out read-only: the tensor's value cannot
    be changed through t.numpy() (README: values handed out are read-only views)."""
    t = make()
    before = t.numpy().copy()
    with pytest.raises(ValueError, match="read-only"):
        t.numpy()[0] = 42
    np.testing.assert_array_equal(t.numpy(), before)


def test_asarray_without_a_copy_reads_the_callers_array():
    a = np.arange(3.0)
    t = lt.asarray(a)
    assert np.shares_memory(t.numpy(), a) and a.flags.writeable
    a[0] = 5.0                      # documented: the tensor reads the source
    assert t.numpy()[0] == 5.0


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_meshgrid_memory_is_numpys(indexing, sparse, copy, n):
    """Values, and what a write into a grid reaches, as NumPy's: copies are grids of their
    own; copy=False gives views of the inputs (sparse: writes reach the input; the broadcast
    views are read-only here, where NumPy warns and writes)."""
    import warnings
    base = [np.arange(3.0), np.arange(2.0) + 10, np.arange(4.0) + 100][:n]
    na, la = [a.copy() for a in base], [lt.asarray(a.copy()) for a in base]
    grids = np.meshgrid(*na, indexing=indexing, sparse=sparse, copy=copy)
    tensors = lt.meshgrid(*la, indexing=indexing, sparse=sparse, copy=copy)
    for g, t in zip(grids, tensors):
        assert g.shape == t.shape and g.dtype == t.dtype
        np.testing.assert_array_equal(t.numpy(), g)
    for g, t in zip(grids, tensors):
        if not copy and not sparse:
            with pytest.raises(ValueError, match="read-only"):
                t[(0,) * t.ndim] = -1
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g[(0,) * g.ndim] = -1
        t[(0,) * t.ndim] = -1
        np.testing.assert_array_equal(t.numpy(), g)
    for a, t in zip(na, la):
        np.testing.assert_array_equal(t.numpy(), a)
