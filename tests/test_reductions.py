"""Fused reductions against NumPy (float64 references): every dtype, ranks 0..4, empty and
one-element shapes, non-contiguous inputs, NaN and inf, axes and keepdims; bit identity
over thread counts and kernel paths; the reduced input is never stored."""

import tracemalloc

import numpy as np
import pytest

import lazytensor as lt

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
REAL = ["bool"] + INTS + FLOATS

SHAPES_AXES = [
    ((), [None, ()]),
    ((1,), [None, 0, -1]),
    ((0,), [None, 0]),
    ((7,), [None, 0]),
    ((1000,), [None, 0]),
    ((3, 0), [None, 0, 1]),
    ((5, 300), [None, 0, 1, -1, (0, 1)]),
    ((300, 5), [None, 0, 1]),
    ((2, 3, 4), [None, 0, 1, 2, (0, 2), (2, 0), (0, 1), (1, 2), ()]),
    ((4, 1, 5, 40), [None, 1, 3, (0, 2), (1, 3), (0, 1, 2), (-1, -3)]),
]
CASES = [(s, a) for s, axes in SHAPES_AXES for a in axes]
# keepdims=True changes only the result's shape: tried on one dtype of each kind
KEEPDIMS = {dt: (False, True) if dt in ("bool", "int32", "uint8", "float32") else (False,)
            for dt in REAL}


def sample(dtype, shape, rng):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind == "u":
        return rng.integers(0, 5, size=shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def expr(t):
    """An elementwise expression of t that keeps its dtype (so the reduction is fused)."""
    if t.dtype.kind == "f":
        return t * 0.5 + 0.25
    if t.dtype == np.bool_:
        return lt.logical_not(t)
    return t + 1


def expr_ref(x):
    if x.dtype.kind == "f":
        return x.astype(np.float64) * 0.5 + 0.25
    if x.dtype == np.bool_:
        return ~x
    return x + x.dtype.type(1)


def norm_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def check_float(out, ref, dtype):
    ref = np.asarray(ref)
    assert out.dtype == np.dtype(dtype)
    assert out.shape == ref.shape
    tol = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12}[np.dtype(dtype).name]
    np.testing.assert_allclose(out.numpy().astype(np.float64), ref, rtol=tol, atol=tol,
                               equal_nan=True)


# ---- sum / prod ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("shape,axis", CASES)
def test_sum_prod(dtype, shape, axis, rng):
    for keepdims in KEEPDIMS[dtype]:
        _test_sum_prod(dtype, shape, axis, keepdims, rng)


def _test_sum_prod(dtype, shape, axis, keepdims, rng):
    x = sample(dtype, shape, rng)
    y = expr(lt.asarray(x))
    xr = expr_ref(x)
    for name in ("sum", "prod"):
        out = getattr(lt, name)(y, axis=axis, keepdims=keepdims)
        if np.dtype(dtype).kind == "f":
            ref = getattr(np, name)(xr, axis=axis, keepdims=keepdims, dtype=np.float64)
            check_float(out, ref, dtype)
        else:
            acc = "uint64" if np.dtype(dtype).kind == "u" else "int64"
            ref = getattr(np, name)(xr, axis=axis, keepdims=keepdims, dtype=acc)
            assert out.dtype == np.dtype(acc)
            np.testing.assert_array_equal(out.numpy(), ref)
            assert out.shape == ref.shape


@pytest.mark.parametrize("src,dt", [("int8", "int8"), ("int32", "float32"), ("float32", "float64"),
                                    ("float64", "float32"), ("uint8", "uint16"),
                                    ("int16", "float16"), ("bool", "int32")])
def test_sum_dtype_argument(src, dt, rng):
    x = sample(src, (6, 50), rng) * (30 if src != "bool" else 1)
    x = x.astype(src)
    for axis in (None, 0, 1):
        out = lt.sum(lt.asarray(x), axis=axis, dtype=dt)
        ref = np.sum(x.astype(dt), axis=axis, dtype=np.float64 if np.dtype(dt).kind == "f" else dt)
        assert out.dtype == np.dtype(dt)
        if np.dtype(dt).kind == "f":
            check_float(out, ref, dt)
        else:
            np.testing.assert_array_equal(out.numpy(), ref)


def test_integer_sum_and_prod_wrap_around():
    x = np.array([2**62, 2**62, 2**62, 5], dtype=np.int64)
    assert int(lt.sum(lt.asarray(x))) == int(np.sum(x))
    y = np.full(70, 3, dtype=np.uint64)
    assert int(lt.prod(lt.asarray(y))) == int(np.prod(y))


def test_float32_sum_accumulates_in_float64():
    # 2**24 + many ones: a float32 accumulator would lose every one of them
    x = np.ones(100_001, dtype=np.float32)
    x[0] = 2.0**24
    out = lt.sum(lt.asarray(x))
    assert out.dtype == np.float32
    assert float(out) == np.float32(2.0**24 + 100_000)


# ---- mean / var / std -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("shape,axis", CASES)
def test_mean_var_std(dtype, shape, axis, rng):
    x = sample(dtype, shape, rng)
    y = expr(lt.asarray(x))
    xr = expr_ref(x).astype(np.float64)
    dt = dtype if np.dtype(dtype).kind == "f" else "float64"
    with np.errstate(all="ignore"):
        check_float(lt.mean(y, axis=axis), np.mean(xr, axis=axis), dt)
        for correction in (0, 1, 1.5):
            m = xr.size if axis is None else int(np.prod([xr.shape[a] for a in np.atleast_1d(axis)]))
            for name in ("var", "std"):
                out = getattr(lt, name)(y, axis=axis, correction=correction, keepdims=True)
                ref = getattr(np, name)(xr, axis=axis, ddof=correction, keepdims=True)
                if m - correction <= 0:
                    ref = np.full_like(ref, np.nan)
                check_float(out, ref, dt)


def test_var_is_two_pass_accurate():
    x = (1e8 + np.arange(1000, dtype=np.float64) % 7)
    out = lt.var(lt.asarray(x) * 1.0)
    np.testing.assert_allclose(float(out), np.var(x), rtol=1e-12)


# ---- max / min / any / all ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("shape,axis", CASES)
def test_max_min_any_all(dtype, shape, axis, rng):
    for keepdims in KEEPDIMS[dtype]:
        _test_max_min_any_all(dtype, shape, axis, keepdims, rng)


def _test_max_min_any_all(dtype, shape, axis, keepdims, rng):
    x = sample(dtype, shape, rng)
    y = expr(lt.asarray(x))
    xr = expr_ref(x).astype(x.dtype)
    axes = range(xr.ndim) if axis is None else np.atleast_1d(np.array(axis, dtype=int))
    empty = any(xr.shape[a] == 0 for a in axes)    # an axis to reduce has length zero
    for name in ("max", "min"):
        if empty:
            with pytest.raises(ValueError, match=name):
                getattr(lt, name)(y, axis=axis, keepdims=keepdims)
            continue
        out = getattr(lt, name)(y, axis=axis, keepdims=keepdims)
        ref = getattr(np, name)(xr, axis=axis, keepdims=keepdims)
        assert out.dtype == x.dtype and out.shape == ref.shape
        np.testing.assert_array_equal(out.numpy(), ref)
    for name in ("any", "all"):
        out = getattr(lt, name)(y, axis=axis, keepdims=keepdims)
        ref = getattr(np, name)(xr, axis=axis, keepdims=keepdims)
        assert out.dtype == np.bool_ and out.shape == ref.shape
        np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_special_values(dtype):
    x = np.array([[1.0, np.nan, -2.0, 3.0], [np.inf, -1.0, 0.0, 2.0],
                  [-np.inf, np.inf, 1.0, 0.0], [0.0, -0.0, 0.0, -0.0]], dtype=dtype)
    t = lt.asarray(x) * 1.0
    with np.errstate(all="ignore"):
        for axis in (None, 0, 1):
            for name in ("sum", "prod", "max", "min", "mean"):
                out = getattr(lt, name)(t, axis=axis).numpy()
                ref = getattr(np, name)(x.astype(np.float64), axis=axis)
                np.testing.assert_array_equal(np.isnan(out), np.isnan(ref), err_msg=name)
                np.testing.assert_allclose(out.astype(np.float64), ref, equal_nan=True,
                                           rtol=1e-3, err_msg=name)
            for name in ("any", "all"):
                np.testing.assert_array_equal(getattr(lt, name)(t, axis=axis).numpy(),
                                              getattr(np, name)(x, axis=axis))


def test_nan_propagates_through_max_and_min_of_long_rows():
    x = np.arange(100_000, dtype=np.float32)
    x[77_777] = np.nan
    assert np.isnan(float(lt.max(lt.asarray(x))))
    assert np.isnan(float(lt.min(lt.asarray(x) + 1)))
    x2 = x.reshape(100, 1000)
    np.testing.assert_array_equal(np.isnan(lt.max(lt.asarray(x2), axis=0).numpy()),
                                  np.isnan(np.max(x2, axis=0)))


def test_empty_max_names_the_op():
    with pytest.raises(ValueError, match="max"):
        lt.max(lt.asarray(np.zeros((0, 3))), axis=0)
    with pytest.raises(ValueError, match="min"):
        lt.min(lt.asarray(np.zeros(0)))


# ---- layouts --------------------------------------------------------------------------
@pytest.mark.parametrize("view", ["transpose", "stepped", "reversed", "broadcast"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
def test_non_contiguous_inputs(view, axis, rng):
    base = rng.standard_normal((6, 40, 30))
    x = {"transpose": base.transpose(2, 0, 1), "stepped": base[::2, ::3, 1:],
         "reversed": base[::-1, :, ::-1],
         "broadcast": np.broadcast_to(base[:1, :1, :], (6, 40, 30))}[view]
    t = lt.exp(lt.asarray(x) * 0.5)
    for name in ("sum", "max", "mean"):
        check_float(getattr(lt, name)(t, axis=axis),
                    getattr(np, name)(np.exp(x * 0.5), axis=axis), "float64")


def test_broadcast_inside_the_reduced_expression(rng):
    a = rng.standard_normal((300, 70))
    b = rng.standard_normal(70)
    c = rng.standard_normal((300, 1))
    t = lt.asarray(a) * lt.asarray(b) + lt.asarray(c)
    for axis in (None, 0, 1):
        check_float(lt.sum(t, axis=axis), np.sum(a * b + c, axis=axis), "float64")


@pytest.mark.parametrize("shape,axis", [((1000, 3), 0), ((3, 1000), 1), ((100_000,), None),
                                        ((50, 70_000), 1), ((70_000, 50), 0),
                                        ((2, 70_000, 3), 1), ((3000, 600), 0),
                                        ((64, 64, 64), (0, 2)), ((64, 64, 64), (0, 1)),
                                        ((4, 50_000), 0)])
def test_large_shapes(shape, axis, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    t = lt.abs(lt.asarray(x)) * 1.5 - 0.25     # exact ops: the same float32 bits as NumPy
    y = np.abs(x) * np.float32(1.5) - np.float32(0.25)
    check_float(lt.sum(t, axis=axis), np.sum(y.astype(np.float64), axis=axis), "float32")
    np.testing.assert_array_equal(lt.max(t, axis=axis).numpy(), np.max(y, axis=axis))
    np.testing.assert_array_equal(lt.min(t, axis=axis).numpy(), np.min(y, axis=axis))


# ---- determinism ----------------------------------------------------------------------
DET_CASES = [((1_000_003,), None), ((517, 3001), 1), ((3001, 517), 0), ((40, 50_000), 1),
             ((2, 300_000), 0), ((300_000, 3), 0), ((30, 40, 500), (0, 2))]


@pytest.mark.parametrize("shape,axis", DET_CASES)
def test_bits_do_not_depend_on_threads_or_path(shape, axis):
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    t = lt.asarray(x)
    results = []
    for path in lt.kernel_paths():
        for n in (1, 2, 3):
            with lt.config(num_threads=n, kernel_path=path):
                y = t * 1.5 - 0.25
                vals = lt.eval(lt.sum(y, axis=axis), lt.mean(y * y, axis=axis),
                               lt.max(y, axis=axis), lt.prod(y * 0 + 1.0001, axis=axis))
                results.append([v.numpy().tobytes() for v in vals]
                               + [lt.var(y, axis=axis).numpy().tobytes()])
    assert all(r == results[0] for r in results)


def _documented_sum(values):
    """The combination order docs/architecture.md gives for one result of a float sum, in
    Python floats (IEEE double adds): a chunk of 256 values goes to 32 lanes by index mod
    32, the lanes fold as a fixed tree; chunk partials combine by a binary counter within
    blocks of 64 chunks, the block partials by a binary counter again."""
    def chunk(vals):
        lanes = [-0.0] * 32
        for i, v in enumerate(vals):
            lanes[i % 32] += v
        for w in (16, 8):
            for j in range(w):
                lanes[j] += lanes[j + w]
        for w in (1, 2, 4):
            for j in range(0, 8, 2 * w):
                lanes[j] += lanes[j + w]
        return lanes[0]

    def counter(partials):
        stored, count = {}, 0
        for cur in partials:
            level, c = 0, count
            while c & 1:
                cur = stored[level] + cur          # the stored partial is the left one
                c >>= 1
                level += 1
            stored[level] = cur
            count += 1
        total = None
        for level in range(count.bit_length() - 1, -1, -1):
            if count >> level & 1:
                total = stored[level] if total is None else total + stored[level]
        return total

    vals = [float(v) for v in values]
    chunks = [chunk(vals[i:i + 256]) for i in range(0, len(vals), 256)]
    return counter([counter(chunks[b:b + 64]) for b in range(0, len(chunks), 64)])


@pytest.mark.parametrize("n", [1, 31, 33, 256, 1000, 256 * 64 + 300, 256 * 64 * 3 + 17])
def test_sum_is_combined_in_the_documented_order(n):
    # magnitudes over six decades: another order of the same adds almost surely rounds
    # differently somewhere (the 8-lane order this replaced fails for n >= 256)
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)
    assert float(lt.sum(lt.asarray(x))) == _documented_sum(x)
    rows = x[: n - n % 5].reshape(5, -1) if n >= 5 else x.reshape(1, -1)
    got = lt.sum(lt.asarray(rows), axis=1).numpy()
    assert got.tolist() == [_documented_sum(r) for r in rows]


# ---- fusion -------------------------------------------------------------------------
def gelu(x):
    return 0.5 * x * (1 + lt.erf(x / 2 ** 0.5))


def test_reduced_input_is_not_stored():
    xs = np.random.default_rng(3).standard_normal(1_000_000).astype(np.float32)
    x = lt.asarray(xs)
    s = lt.sum(gelu(x))
    handed_out = lt.stats()["allocated_bytes"]
    tracemalloc.start()
    try:
        value = float(s)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    outputs = lt.stats()["allocated_bytes"] - handed_out
    assert peak + outputs < 0.1 * xs.nbytes, (peak, outputs)
    from scipy import special
    x64 = xs.astype(np.float64)
    ref = np.sum(0.5 * x64 * (1 + special.erf(x64 / 2 ** 0.5)))
    np.testing.assert_allclose(value, ref, rtol=1e-5)


def test_explain_shows_the_reduction_in_the_kernel():
    x = lt.asarray(np.ones((100, 200), dtype=np.float32))
    s = lt.sum(gelu(x), axis=1)
    info = lt.explain(s)
    k = info.kernels[0]
    assert "erf" in k["ops"] and k["reductions"][0]["op"] == "sum"
    assert k["reductions"][0]["axes"] == (1,) and k["outputs"] == []
    assert "red0 = sum" in str(info)


def test_row_softmax_and_logsumexp(rng):
    a = rng.standard_normal((200, 300)).astype(np.float32)
    x = lt.asarray(a)
    m = lt.max(x, axis=-1, keepdims=True)
    e = lt.exp(x - m)
    sm = e / lt.sum(e, axis=-1, keepdims=True)
    lse = lt.log(lt.sum(lt.exp(x - m), axis=-1)) + lt.max(x, axis=-1)
    a64 = a.astype(np.float64)
    ref_e = np.exp(a64 - a64.max(-1, keepdims=True))
    np.testing.assert_allclose(sm.numpy(), ref_e / ref_e.sum(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(lse.numpy(), np.log(ref_e.sum(-1)) + a64.max(-1), rtol=1e-5)


def test_reductions_of_one_input_share_a_kernel():
    x = lt.asarray(np.random.default_rng(1).standard_normal((30, 40)))
    y = lt.sin(x)
    a, b = lt.sum(y, axis=0), lt.max(y, axis=0)
    info = lt.explain(a, b)
    assert len([k for k in info.kernels if k["reductions"]]) == 1
    before = lt.stats()["kernels"]
    lt.eval(a, b)
    ys = np.sin(np.asarray(x))
    np.testing.assert_allclose(a.numpy(), ys.sum(0), rtol=1e-12)
    np.testing.assert_array_equal(b.numpy(), ys.max(0))
    assert lt.stats()["kernels"] - before <= 2


def test_many_small_outputs_are_one_kernel():
    x = lt.asarray(np.random.default_rng(2).standard_normal((100_000, 3)))
    before = lt.stats()["kernels"]
    out = lt.sum(x * 2.0, axis=1)
    v = out.numpy()
    assert lt.stats()["kernels"] - before == 1
    np.testing.assert_allclose(v, (np.asarray(x) * 2).sum(1), rtol=1e-12)


def test_reduction_and_its_input_requested_together(rng):
    a = rng.standard_normal((50, 60))
    x = lt.asarray(a)
    y = lt.exp(x)
    s = lt.sum(y, axis=0)
    lt.eval(y, s)
    np.testing.assert_allclose(y.numpy(), np.exp(a), rtol=4e-16)   # own exp: within 1 ulp
    np.testing.assert_allclose(s.numpy(), np.exp(a).sum(0), rtol=1e-12)
    # a second reduction over other axes reads the stored value
    np.testing.assert_allclose(lt.sum(y, axis=1).numpy(), np.exp(a).sum(1), rtol=1e-12)


def test_axis_errors():
    x = lt.asarray(np.ones((2, 3)))
    with pytest.raises(np.exceptions.AxisError):
        lt.sum(x, axis=2)
    with pytest.raises(ValueError):
        lt.sum(x, axis=(0, 0))
    with pytest.raises(TypeError):       # NumPy's array-likes are taken; an object is not
        lt.sum(object())


@pytest.mark.parametrize("name", ["max", "min", "sum", "prod"])
@pytest.mark.parametrize("axes, shape", [((1,), (2, -1)), ((1,), (2, 4)), ((0, 2), (3,)),
                                         ((0, 2), (-1,)), ((0, 1, 2), ())])
def test_reshape_of_a_pending_keepdims_reduction_stays_lazy(name, axes, shape):
    """Dropping the kept unit axes of a pending reduction is the same reduction without
    keepdims: nothing is evaluated when reshaping, and the values are NumPy's."""
    from lazytensor._engine import evaluate as _eval
    x = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float64)
    t = lt.asarray(x)
    kept = getattr(lt, name)(t, axis=axes, keepdims=True)
    _eval.flush_counts()
    before = _eval.counters["evaluations"]
    flat = lt.reshape(kept, shape)
    _eval.flush_counts()
    assert _eval.counters["evaluations"] == before and flat._node.value is None
    want = getattr(np, name)(x, axis=axes)          # NumPy sums in another order
    np.testing.assert_allclose(flat.numpy(), want, rtol=1e-14 if name in ("sum", "prod") else 0)
    np.testing.assert_array_equal(flat.numpy(), kept.numpy().reshape(want.shape))


@pytest.mark.parametrize("name", ["max", "min", "sum", "prod"])
@pytest.mark.parametrize("shape, axis", [((50, 200), 1), ((7, 3000), 1), ((600, 3), 0),
                                         ((3, 4000), 0)])
def test_twin_sinks_are_computed_once(name, shape, axis):
    """A keepdims reduction and its reshape without the unit axis, evaluated together: two
    sinks of one kernel reducing one register (kernels_c/lt_kernel.c computes it once and
    copies).  Short and long rows, an outer axis with few and many columns, a third
    reduction beside them: every result NumPy's, the twin the same bits as the other."""
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    x[1, 2] = np.nan if name == "max" else x[1, 2]  # the NaN path of the max loop
    t = lt.asarray(x)
    kept = getattr(lt, name)(t, axis=axis, keepdims=True)
    flat = lt.reshape(kept, (-1,))
    other = lt.sum(t, axis=axis)                    # a third sink after the twin
    lt.eval(kept, flat, other)
    want = getattr(np, name)(x.astype(np.float64), axis=axis, keepdims=True)
    np.testing.assert_allclose(kept.numpy(), want.astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(flat.numpy(), kept.numpy().reshape(-1))
    np.testing.assert_allclose(other.numpy(), x.astype(np.float64).sum(axis=axis), rtol=1e-5)


def test_other_reshapes_of_a_pending_reduction_evaluate_it():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    kept = lt.sum(lt.asarray(x), axis=2, keepdims=True)        # (2, 3, 1)
    np.testing.assert_array_equal(lt.reshape(kept, (3, 2)).numpy(),
                                  x.sum(axis=2).reshape(3, 2))
    np.testing.assert_array_equal(lt.reshape(kept, (6, 1)).numpy(),
                                  x.sum(axis=2).reshape(6, 1))
    with pytest.raises(ValueError, match="reshape"):
        lt.reshape(lt.sum(lt.asarray(x), axis=2, keepdims=True), (5,))


def test_unkept_reshape_keeps_its_shape_checks():
    """reshape of a pending keepdims reduction to drop its unit axes stays lazy; the kept
    answer for a shape (_manipulation._UNKEPT) must not answer for an equal shape of other
    types: floats and bools are still refused, NumPy ints and lists evaluate as before."""
    x = lt.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    want = np.arange(12, dtype=np.float32).reshape(3, 4).max(axis=1)
    lazy = lt.reshape(lt.max(x, axis=1, keepdims=True), (3,))
    assert lazy._node.value is None and lazy._node.op == "reduce"
    np.testing.assert_array_equal(lazy.numpy(), want)
    for bad in [(3.0,), (True,)]:
        with pytest.raises(TypeError, match="integer"):
            lt.reshape(lt.max(x, axis=1, keepdims=True), bad)
    for other in [(np.int64(3),), [3]]:
        got = lt.reshape(lt.max(x, axis=1, keepdims=True), other)
        np.testing.assert_array_equal(got.numpy(), want)
