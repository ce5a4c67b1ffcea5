"""The recording memo (lazytensor/_engine/replay.py): a replayed call records the same nodes as the
function itself, and the memo key tells apart every argument that changes the recording."""

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import evaluate as _eval
from lazytensor._engine import replay as _replay

def _fresh(fn):
    fn.recipes.clear()


def _bits(t):
    a = np.asarray(t)
    return a.dtype, a.shape, a.tobytes()


CALLS = [
    (lt.sum, {"axis": 1}), (lt.sum, {"axis": (0, 1), "keepdims": True}),
    (lt.sum, {"dtype": lt.float64}), (lt.sum, {}), (lt.prod, {"axis": 0}),
    (lt.mean, {"axis": -1, "keepdims": True}), (lt.mean, {}),
    (lt.max, {"axis": 1, "keepdims": True}), (lt.min, {"axis": 0}),
    (lt.any, {"axis": 1}), (lt.all, {}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint8", "bool"])
@pytest.mark.parametrize("fn,kwargs", CALLS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_replay_records_the_same_nodes(fn, kwargs, dtype):
    rng = np.random.default_rng(3)
    values = [(rng.standard_normal((5, 7)) * 4).astype(dtype) for _ in range(3)]
    _fresh(fn)
    try:
        direct = [fn.__wrapped__(lt.asarray(v), **kwargs) for v in values]
    except TypeError:          # the function refuses this dtype: so must the memo, each time
        for v in values:
            with pytest.raises(TypeError):
                fn(lt.asarray(v), **kwargs)
        assert not fn.recipes
        return
    _eval.flush_counts()
    before = _replay.stats["replays"]
    got = [fn(lt.asarray(v), **kwargs) for v in values]
    assert len(fn.recipes) == 1
    _eval.flush_counts()
    assert _replay.stats["replays"] - before >= len(values) - 1   # nested memos count too
    for d, g in zip(direct, got):
        assert _bits(g) == _bits(d)


def test_replay_shares_nodes_with_the_function():
    x = lt.asarray(np.arange(12.0).reshape(3, 4))
    _fresh(lt.mean)
    lt.mean(x, axis=0)
    first = lt.mean(x, axis=0)          # replayed
    assert first._node is lt.mean.__wrapped__(x, axis=0)._node


def test_key_tells_bool_from_int():
    x = lt.asarray(np.ones((2, 3), np.float32))
    _fresh(lt.sum)
    assert lt.sum(x, axis=1).shape == (2,)
    with pytest.raises(TypeError):
        lt.sum(x, axis=True)
    assert lt.sum(x, axis=0).shape == (3,)


def test_key_tells_negative_zero_from_zero():
    x = lt.asarray(np.array([-0.0, 0.0, 2.0], np.float32))
    _fresh(lt.clip)
    for lo in (-0.0, 0.0, -0.0):
        got = lt.clip(x, lo, 1.0)
        ref = lt.clip.__wrapped__(x, lo, 1.0)
        assert _bits(got) == _bits(ref)
    assert np.signbit(np.asarray(lt.clip(x, -0.0, 1.0))[0])
    assert not np.signbit(np.asarray(lt.clip(x, 0.0, 1.0))[0])


def test_key_tells_nan_bounds_and_dtypes_apart():
    x = lt.asarray(np.array([-3.0, 0.5, 7.0], np.float32))
    _fresh(lt.clip)
    memo_astype = lt._api.elementwise._astype       # lt.astype's memoised part
    _fresh(memo_astype)
    for args in [(0, 1), (0.0, 1.0), (float("nan"), 1.0), (0, None), (None, 1), (0, 1)]:
        assert _bits(lt.clip(x, *args)) == _bits(lt.clip.__wrapped__(x, *args))
    for dt in [lt.uint8, lt.int16, lt.float64, lt.uint8, np.float16, "int32", lt.bool]:
        assert _bits(memo_astype(x, dt)) == _bits(memo_astype.__wrapped__(x, dt))


def test_key_tells_shapes_apart():
    _fresh(lt.sum)
    for shape in [(4, 5), (5, 4), (4, 5), (20,)]:
        x = lt.asarray(np.arange(20.0).reshape(shape))
        np.testing.assert_array_equal(np.asarray(lt.sum(x, axis=0)),
                                      np.arange(20.0).reshape(shape).sum(axis=0))


def test_not_plain_arguments_are_not_memoised():
    x = lt.asarray(np.arange(6.0).reshape(2, 3))
    _fresh(lt.sum)
    _fresh(lt.clip)
    np.testing.assert_array_equal(np.asarray(lt.sum(x, axis=[0, 1])), 15.0)
    np.testing.assert_array_equal(np.asarray(lt.sum(x, axis=np.int64(1))), [3.0, 12.0])
    b = lt.asarray(np.array([1.0, 1.0, 1.0]))
    np.testing.assert_array_equal(np.asarray(lt.clip(x, b, 4.0)),
                                  np.clip(np.arange(6.0).reshape(2, 3), 1.0, 4.0))
    assert not lt.sum.recipes and not lt.clip.recipes


def test_values_made_now_are_not_memoised():
    z = lt.asarray(np.array([1 + 2j, 3 - 1j]))
    b = lt.asarray(np.array([True, True, False]))
    _fresh(lt.prod)       # a product in bool is NumPy's, computed when called
    for _ in range(2):
        assert bool(lt.prod(b, dtype=bool)) is False
    assert not lt.prod.recipes
    _fresh(lt.sum)        # a complex sum is recorded (the sums of its parts): replayed
    for _ in range(2):
        assert complex(lt.sum(z)) == 4 + 1j
    assert lt.sum.recipes
    _fresh(lt.prod)       # and a complex product (one complex reduction)
    for _ in range(2):
        assert complex(lt.prod(z)) == 5 + 5j
    assert lt.prod.recipes


def test_replay_over_a_pending_input():
    a = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    _fresh(lt.max)
    for k in range(3):
        x = lt.asarray(a) * (k + 1)
        got = np.asarray(lt.max(x, axis=1, keepdims=True))
        np.testing.assert_array_equal(got, (a * np.float32(k + 1)).max(axis=1, keepdims=True))
    assert len(lt.max.recipes) == 1


def test_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(_replay, "_MAX_RECIPES", 4)
    x = lt.asarray(np.arange(6.0))
    _fresh(lt.clip)
    for hi in range(10):
        assert float(lt.max(lt.clip(x, 0, hi))) == min(hi, 5)
        assert len(lt.clip.recipes) <= 4


def test_replay_builds_the_nodes_the_function_builds_and_refuses_bad_recipes():
    from lazytensor._engine.native import fastpath

    x = lt.asarray(np.linspace(-4, 4, 30, dtype=np.float32).reshape(5, 6))
    _fresh(lt.mean)
    _fresh(lt.clip)
    direct = {lt.mean: lt.mean.__wrapped__(x * 2, axis=1, keepdims=True),
              lt.clip: lt.clip.__wrapped__(x, -1, 2.5)}
    lt.mean(x * 2, axis=1, keepdims=True)
    lt.clip(x, -1, 2.5)
    for fn, recipes in ((lt.mean, lt.mean.recipes), (lt.clip, lt.clip.recipes)):
        (steps,) = recipes.values()
        source = (x * 2)._node if fn is lt.mean else x._node
        assert fastpath.replay(steps, source)._node is direct[fn]._node
    with pytest.raises(ValueError):
        fastpath.replay((("negative", (), x.dtype, x.shape, (3,)),), x._node)


# Every memoized function, called on a value after the same call on a pending tensor and
# the reverse: a recipe made for one kind of input is never replayed for the other (astype
# to its own dtype returns a pending x itself but must copy a value, which may be the
# caller's array).  Each result is read, then the source written: a result that is a new
# array must neither follow the write nor write into the source.  (clip with no bound that
# binds returns its input, as positive() does: not a new array.)
MEMO_CALLS = [   # function, args, kwargs, whether the result is a new array
    (lt._api.elementwise._astype, ("float32",), {}, True),
    (lt._api.elementwise._astype, ("float32",), {"copy": False}, False),
    (lt._api.elementwise._astype, ("float64",), {}, True),
    (lt.clip, (), {"min": -1.0, "max": 1.0}, True), (lt.clip, (), {}, False),
    (lt.sum, (), {}, True), (lt.sum, (), {"axis": 0}, True), (lt.prod, (), {}, True),
    (lt.mean, (), {"axis": 0}, True), (lt.max, (), {}, True), (lt.min, (), {"axis": 0}, True),
    (lt.any, (), {}, True), (lt.all, (), {"axis": 0}, True),
]
_NUMPY = {"_astype": lambda a, dt, copy=True: a.astype(dt), "clip": np.clip, "sum": np.sum,
          "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min, "any": np.any,
          "all": np.all}


def _memoized_functions():
    import lazytensor

    found = set()
    for mod in [m for name, m in vars(lazytensor).items() if type(m) is type(np)]:
        for v in vars(mod).values():
            if callable(v) and isinstance(getattr(v, "recipes", None), dict):
                found.add(v)
    return found


def test_memo_calls_cover_every_memoized_function():
    assert _memoized_functions() <= {fn for fn, _, _, _ in MEMO_CALLS}


def _numpy_result(fn, source, args, kwargs):
    name = fn.__wrapped__.__name__
    if name == "clip" and not kwargs:
        return source.copy()
    return np.asarray(_NUMPY[name](source, *args, **kwargs))


@pytest.mark.parametrize("pending_first", [True, False])
@pytest.mark.parametrize("fn,args,kwargs,new", MEMO_CALLS,
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_memo_never_replays_a_pending_recipe_for_a_value(fn, args, kwargs, new, pending_first):
    fn.recipes.clear()
    base = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    order = ["pending", "value"] if pending_first else ["value", "pending"]
    for kind in order * 2:             # the second round replays the recipes
        source = base.copy()
        x = lt.asarray(source)
        if kind == "pending":
            x = x * 1.0                # a pending tensor with the same dtype and shape
        out = fn(x, *args, **kwargs)
        want = _numpy_result(fn, base, args, kwargs)
        got = np.array(out)
        np.testing.assert_allclose(got, want.astype(got.dtype), rtol=1e-6, err_msg=kind)
        if kind == "value" and new:
            assert not np.shares_memory(np.asarray(out), source), "aliases its source"
            source[...] = 99.0
            np.testing.assert_array_equal(np.array(out), got, err_msg="follows its source")
            np.testing.assert_array_equal(source, np.full_like(source, 99.0))
