"""Broadcast plans: alignment, coalescing, loop families, cache, strided inputs."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import lazytensor as lt
from lazytensor._engine import kernel as _kernel
from lazytensor._engine.plan import make_plan


def layout(shape, strides, itemsize=4):
    return (shape, strides, itemsize)


def test_contiguous_dims_coalesce_to_one():
    p = make_plan((2, 3, 4), [layout((2, 3, 4), (48, 16, 4)), layout((2, 3, 4), (48, 16, 4))])
    assert p.shape == (24,) and p.family == "contiguous" and p.in_strides == ((4,), (4,))


def test_broadcast_dims_get_zero_strides_and_unit_dims_drop():
    p = make_plan((3, 1, 4), [layout((3, 1, 4), (16, 16, 4)), layout((4,), (4,))])
    assert p.shape == (3, 4)
    assert p.in_strides == ((16, 4), (0, 4))
    assert p.family == "inner-vector/outer-broadcast"


def test_value_per_row_is_repeated_block():
    p = make_plan((5, 8), [layout((5, 1), (4, 4)), layout((5, 8), (32, 4))])
    assert p.in_strides[0] == (4, 0) and p.family == "repeated contiguous block"


@pytest.mark.parametrize("first_scalar,family", [(True, "left scalar"), (False, "right scalar")])
def test_scalar_families(first_scalar, family):
    ins = [layout((), ()), layout((7,), (4,))]
    p = make_plan((7,), ins if first_scalar else ins[::-1])
    assert p.family == family
    assert p.is_scalar_input(0 if first_scalar else 1)


def test_transposed_input_is_general_strided():
    p = make_plan((4, 6), [layout((4, 6), (4, 16)), layout((4, 6), (24, 4))])
    assert p.family == "general strided" and p.shape == (4, 6)


def test_empty_and_single_element_plans():
    p = make_plan((0, 5), [layout((0, 5), (20, 4))])
    assert p.size == 0
    p1 = make_plan((1, 1), [layout((1, 1), (4, 4))])
    assert p1.size == 1 and p1.shape == (1,) and p1.is_scalar_input(0)


def test_plan_cache_key_covers_strides():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    _kernel.clear_cache()
    a = lt.asarray(base) + 1.0
    b = lt.asarray(np.ascontiguousarray(base.T)).T + 1.0     # same values, other strides
    np.testing.assert_array_equal(a.numpy(), base + 1)
    np.testing.assert_array_equal(b.numpy(), base + 1)
    assert lt.stats()["misses"] >= 2
    hits = lt.stats()["hits"]
    (lt.asarray(base * 2) + 1.0).numpy()        # same structure and layout: a hit
    assert lt.stats()["hits"] == hits + 1


def test_plans_are_immutable():
    p = make_plan((3,), [layout((3,), (4,))])
    with pytest.raises(Exception):
        p.shape = (4,)


@pytest.mark.parametrize("view", [
    lambda a: a[::3], lambda a: a[::-1], lambda a: a[5:-7:2], lambda a: a[::-4],
])
@pytest.mark.parametrize("n", [1, 255, 256, 257, 511, 513, 4097])
def test_stepped_and_reversed_slices_read_in_place(view, n):
    src = np.random.default_rng(n).standard_normal(n * 3).astype(np.float32)
    t = view(lt.asarray(src))
    ref = view(src)
    assert np.shares_memory(t.numpy(), src) or ref.size == 0
    np.testing.assert_array_equal((t * 2.0 + 1.0).numpy(), ref * np.float32(2) + np.float32(1))


def test_transposes_of_rank_3():
    src = np.random.default_rng(0).standard_normal((7, 300, 5))
    t = lt.permute_dims(lt.asarray(src), (2, 0, 1))
    ref = np.transpose(src, (2, 0, 1))
    np.testing.assert_array_equal((t - 0.5).numpy(), ref - 0.5)


# ---- property: any broadcastable shapes of rank 0..4, any views ---------------------
@st.composite
def broadcast_case(draw):
    rank = draw(st.integers(0, 4))
    out = [draw(st.sampled_from([0, 1, 2, 3, 5, 17])) for _ in range(rank)]
    shapes = []
    for _ in range(3):
        r = draw(st.integers(0, rank))
        s = [draw(st.sampled_from([1, n])) for n in out[rank - r:]]
        shapes.append(tuple(s))
    views = [draw(st.sampled_from(["plain", "reversed", "stepped", "transposed"]))
             for _ in range(3)]
    return shapes, views


def make_view(shape, kind, rng):
    if kind == "stepped":
        big = rng.standard_normal(tuple(2 * n for n in shape))
        return big[tuple(slice(None, None, 2) for _ in shape)]
    if kind == "reversed":
        return rng.standard_normal(shape)[tuple(slice(None, None, -1) for _ in shape)]
    if kind == "transposed" and len(shape) >= 2:
        return rng.standard_normal(shape[::-1]).T
    return rng.standard_normal(shape)


@given(broadcast_case())
def test_broadcasting_any_rank_and_layout_matches_numpy(case):
    shapes, views = case
    rng = np.random.default_rng(0)
    arrays = [make_view(s, v, rng) for s, v in zip(shapes, views)]
    a, b, c = (lt.asarray(x) for x in arrays)
    got = lt.where(a > b, a * b, c - a) + 1.0
    ref = np.where(arrays[0] > arrays[1], arrays[0] * arrays[1], arrays[2] - arrays[0]) + 1.0
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got.numpy(), ref)
