"""A tensor made from a NumPy array without a copy reads it when evaluated, whatever its
layout (issue 37, defect 2): write into the source between evaluations and every new
evaluation (elementwise, fused reductions, row softmax, NumPy-computed functions, jitted
functions, by whole arrays or by blocks of rows) sees its current contents.  Eager NumPy on
the source is the reference."""

import numpy as np
import pytest

import lazytensor as lt

SHAPE = (3, 4)


def _source(layout: str, dtype: np.dtype, shape=SHAPE):
    """``(array, write)``: an array of ``layout`` and a function writing new values (an
    array of ``shape``) into the memory it views."""
    n = int(np.prod(shape))
    if layout == "contiguous":
        a = np.zeros(shape, dtype)
    elif layout == "misaligned":
        buf = np.zeros(n * dtype.itemsize + 1, np.uint8)
        a = np.frombuffer(buf, dtype, offset=1, count=n).reshape(shape)
    elif layout == "byteswapped":
        a = np.zeros(shape, dtype.newbyteorder())
    elif layout == "misaligned_byteswapped":
        buf = np.zeros(n * dtype.itemsize + 1, np.uint8)
        a = np.frombuffer(buf, dtype.newbyteorder(), offset=1, count=n).reshape(shape)
    elif layout == "negative_strides":
        a = np.zeros((shape[0], 2 * shape[1]), dtype)[::-1, ::-2]
    elif layout == "zero_strides":
        row = np.zeros(shape[1], dtype)
        a = np.broadcast_to(row, shape)

        def write(values):
            row[...] = values[0]
            return values[:1].repeat(shape[0], 0)
        return a, write
    elif layout == "fortran":
        a = np.zeros(shape, dtype, order="F")
    elif layout == "strided_slice":
        a = np.zeros((2 * shape[0], 3 * shape[1]), dtype)[::2, 1::3]
    elif layout in ("packed_field", "aligned_field"):
        rec = np.zeros(shape, np.dtype([("a", "u1"), ("b", dtype)],
                                       align=layout == "aligned_field"))
        a = rec["b"]
    else:
        raise AssertionError(layout)

    def write(values):
        a[...] = values
        return values
    return a, write


LAYOUTS = ["contiguous", "misaligned", "byteswapped", "misaligned_byteswapped",
           "negative_strides", "zero_strides", "fortran", "strided_slice", "packed_field",
           "aligned_field"]
DTYPES = [np.dtype(d) for d in ("float64", "float32", "float16", "int64", "int32", "int16",
                                "uint8", "complex128")]


def _values(rng, dtype, shape=SHAPE):
    if dtype.kind == "c":
        return (rng.integers(-8, 8, shape) + 1j * rng.integers(-8, 8, shape)).astype(dtype)
    return rng.integers(0 if dtype.kind == "u" else -8, 9, shape).astype(dtype)


def _ops(dtype):
    """name -> (lazytensor function of t, NumPy reference of the current source)."""
    wide = np.complex128 if dtype.kind == "c" else np.float64
    ops = {
        "elementwise": (lambda t: t * 2 + 1, lambda a: a * 2 + 1),
        "sum": (lambda t: lt.sum(t), lambda a: np.sum(a.astype(wide))),
        "fused_sum": (lambda t: lt.sum(t * 3, axis=1),
                      lambda a: np.sum(a.astype(wide) * 3, axis=1)),
        "matmul": (lambda t: lt.matmul(t, t.T), lambda a: a @ a.T),
        "jit": (_jitted, lambda a: a * 2 + 1),
    }
    if dtype.kind != "c":
        ops["sort"] = (lambda t: lt.sort(t, axis=-1), lambda a: np.sort(a, axis=-1))
    if dtype.kind == "f":
        ops["mean"] = (lambda t: lt.mean(t, axis=0),
                       lambda a: np.mean(a.astype(np.float64), axis=0))
        ops["softmax"] = (lambda t: lt.nn.softmax(t, axis=-1), _softmax_ref)
    return ops


@lt.jit
def _jitted(t):
    return t * 2 + 1


def _softmax_ref(a):
    x = a.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _check(got, want, dtype):
    got = np.asarray(got)
    if dtype.kind in "fc":
        rtol = {2: 2e-3, 4: 1e-5}.get(dtype.itemsize, 1e-12)
        np.testing.assert_allclose(got.astype(want.dtype), want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_writes_to_the_source_are_seen_by_each_evaluation(layout, dtype):
    rng = np.random.default_rng([LAYOUTS.index(layout), dtype.num])
    src, write = _source(layout, dtype)
    t = lt.asarray(src)
    assert t.dtype == dtype.newbyteorder("=") and t.shape == SHAPE
    ops = _ops(dtype)
    for _ in range(3):             # each round: new contents, then fresh evaluations
        current = write(_values(rng, dtype))
        np.testing.assert_array_equal(np.asarray(src), current)
        pending = t + 1            # recorded now, evaluated after the next write
        for name, (f, ref) in ops.items():
            _check(f(t), ref(current), dtype)
        current = write(_values(rng, dtype))
        if dtype.kind != "c":      # (complex operands are computed by NumPy when recorded)
            _check(pending, current + 1, dtype)
        _check(t, current, dtype)


@pytest.mark.parametrize("layout", ["misaligned", "byteswapped", "packed_field"])
def test_writes_are_seen_by_evaluations_by_blocks_of_rows(layout):
    # large enough to be evaluated by blocks of rows (lazytensor._engine.rows)
    shape = (64, 4096)
    rng = np.random.default_rng(7)
    src, write = _source(layout, np.dtype(np.float64), shape)
    t = lt.asarray(src)
    for _ in range(2):
        current = write(rng.standard_normal(shape))
        m = lt.max(t, axis=1, keepdims=True)
        e = lt.exp(t - m)
        got = (e / lt.sum(e, axis=1, keepdims=True)).numpy()
        np.testing.assert_allclose(got, _softmax_ref(current), rtol=1e-12, atol=1e-300)


def test_a_byte_swapped_source_is_read_when_evaluated():
    a = np.arange(4, dtype=">f8")
    t = lt.asarray(a)
    a[1] = 9
    np.testing.assert_array_equal((t + 0).numpy(), [0, 9, 2, 3])
    assert t.numpy().dtype == np.float64
    c = lt.asarray(a, copy=True)
    a[1] = 5
    np.testing.assert_array_equal((c + 0).numpy(), [0, 9, 2, 3])
