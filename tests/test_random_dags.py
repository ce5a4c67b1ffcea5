"""Random expression DAGs (hypothesis) against the same expression computed eagerly in NumPy.

The DAGs share subexpressions, broadcast leaves of different ranks, mix dtypes through
casts, and request several outputs at once, so they exercise hash-consing, fusion,
multi-output kernels, plans and the kernel together.  Only exact ops are used, so results
must match NumPy bit for bit (NaNs compared as NaNs).
"""

import numpy as np
from hypothesis import given, strategies as st

import lazytensor as lt


def seed_max(a, b):   # seed 000: NaN wins (the first if both); on a tie the second
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a > b, a, b)))


def seed_min(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a < b, a, b)))


FLOAT_OPS = [
    (lt.add, np.add, 2), (lt.subtract, np.subtract, 2), (lt.multiply, np.multiply, 2),
    (lt.divide, np.divide, 2), (lt.maximum, seed_max, 2), (lt.minimum, seed_min, 2),
    (lt.negative, np.negative, 1), (lt.abs, np.abs, 1), (lt.square, np.square, 1),
    (lt.floor, np.floor, 1), (lt.ceil, np.ceil, 1), (lt.round, np.round, 1),
    (lambda a: lt.sqrt(lt.abs(a)), lambda a: np.sqrt(np.abs(a)), 1),
    (lambda a, b: lt.where(a < b, a, b * 2), lambda a, b: np.where(a < b, a, b * 2), 2),
]
INT_OPS = [
    (lt.add, np.add, 2), (lt.subtract, np.subtract, 2), (lt.multiply, np.multiply, 2),
    (lt.maximum, np.maximum, 2), (lt.minimum, np.minimum, 2), (lt.negative, np.negative, 1),
    (lt.bitwise_xor, np.bitwise_xor, 2), (lt.bitwise_and, np.bitwise_and, 2),
    (lambda a, b: lt.where(a >= b, a, b), lambda a, b: np.where(a >= b, a, b), 2),
    (lambda a, b: a // b, lambda a, b: np.floor_divide(a, b), 2),
    (lambda a, b: a % b, lambda a, b: np.remainder(a, b), 2),
]

OUT_SHAPES = [(), (1,), (7,), (3, 1), (2, 3, 4), (0, 3), (300,), (5, 1, 2, 1)]


@st.composite
def dags(draw):
    dtype = draw(st.sampled_from(["float64", "float32", "float16", "int32", "int8", "uint16"]))
    out_shape = draw(st.sampled_from(OUT_SHAPES))
    n_leaves = draw(st.integers(1, 4))
    leaf_shapes = []
    for _ in range(n_leaves):
        r = draw(st.integers(0, len(out_shape)))
        leaf_shapes.append(tuple(draw(st.sampled_from([1, n])) for n in out_shape[len(out_shape) - r:]))
    ops = INT_OPS if dtype[0] in "iu" else FLOAT_OPS
    steps = []
    for _ in range(draw(st.integers(1, 12))):
        k = draw(st.integers(0, len(ops) - 1))
        args = tuple(draw(st.integers(0, 10_000)) for _ in range(ops[k][2]))
        steps.append((k, args))
    n_out = draw(st.integers(1, 3))
    outs = [draw(st.integers(0, 10_000)) for _ in range(n_out)]
    seed = draw(st.integers(0, 2 ** 31))
    transpose = draw(st.booleans())
    return dtype, leaf_shapes, steps, outs, seed, transpose


def leaf_values(dtype, shape, rng, transpose):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 1e-310, 3.0], dtype)
        vals = rng.standard_normal(shape).astype(dtype) * dt.type(4)
    else:
        info = np.iinfo(dt)
        specials = np.array([0, 1, info.min, info.max, info.max - 1] + ([-1] if dt.kind == "i" else []),
                            dtype)
        vals = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    flat = vals.reshape(-1)
    if flat.size:
        idx = rng.integers(0, flat.size, size=max(1, flat.size // 4))
        flat[idx] = rng.choice(specials, size=idx.size)
    vals = flat.reshape(shape)
    if transpose and vals.ndim >= 2:   # same values, transposed memory layout
        vals = np.ascontiguousarray(vals.T).T
    return vals


def canonical_bits(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        a = a.copy()
        a[np.isnan(a)] = np.nan
        return a.view(f"u{a.dtype.itemsize}")
    return a


@given(dags())
def test_random_dag_matches_numpy(case):
    dtype, leaf_shapes, steps, outs, seed, transpose = case
    rng = np.random.default_rng(seed)
    ops = INT_OPS if dtype[0] in "iu" else FLOAT_OPS
    ref = [leaf_values(dtype, s, rng, transpose) for s in leaf_shapes]
    lazy = [lt.asarray(r) for r in ref]
    with np.errstate(all="ignore"):
        for k, args in steps:
            lt_fn, np_fn, _ = ops[k]
            picked = [a % len(ref) for a in args]
            lazy.append(lt_fn(*(lazy[i] for i in picked)))
            r = np_fn(*(ref[i] for i in picked))
            if dtype == "float16":   # NumPy computes float16 ops in float32 and rounds once too
                r = np.asarray(r).astype(np.float16)
            ref.append(np.asarray(r, dtype=dtype))
    chosen = sorted({o % len(ref) for o in outs})
    lt.eval(*(lazy[i] for i in chosen))
    for i in chosen:
        got = lazy[i].numpy()
        assert got.shape == ref[i].shape and got.dtype == ref[i].dtype
        np.testing.assert_array_equal(canonical_bits(got), canonical_bits(ref[i]))


@given(dags())
def test_random_dag_jitted_matches_numpy_on_new_data(case):
    """lt.jit of the same DAG as a function: the traced call and a replay on new values
    (same shapes, dtypes and layouts) both match NumPy bit for bit."""
    from lazytensor._engine import evaluate as _eval
    from lazytensor._engine import jit as _jit

    dtype, leaf_shapes, steps, outs, seed, transpose = case
    ops = INT_OPS if dtype[0] in "iu" else FLOAT_OPS

    def build(leaves, fns):
        values = list(leaves)
        for k, args in steps:
            picked = [a % len(values) for a in args]
            values.append(fns[k](*(values[i] for i in picked)))
        return values

    n_values = len(leaf_shapes) + len(steps)
    chosen = sorted({o % n_values for o in outs})

    @lt.jit
    def fn(*leaves):
        values = build(leaves, [op[0] for op in ops])
        return tuple(values[i] for i in chosen)

    _eval.flush_counts()
    replayed = _jit.stats["replayed"]
    for call in range(2):
        rng = np.random.default_rng(seed + call)
        ref = [leaf_values(dtype, s, rng, transpose) for s in leaf_shapes]
        with np.errstate(all="ignore"):
            want = build(ref, [lambda *a, f=op[1]: np.asarray(f(*a)).astype(dtype) for op in ops])
        got = fn(*(lt.asarray(r) for r in ref))
        for i, g in zip(chosen, got):
            assert g.shape == want[i].shape and g.dtype == want[i].dtype
            np.testing.assert_array_equal(canonical_bits(g.numpy()), canonical_bits(want[i]))
    _eval.flush_counts()
    assert _jit.stats["replayed"] == replayed + 1
