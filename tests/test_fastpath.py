"""The hot paths in C (kernels_c/lt_fastpath.c and ext/): a kept kernel or plan found again
must give the bits, the node state and the counters of the cold path that planned it (and
NumPy's values), follow mode, thread and kernel-path changes made between calls, and hand
anything unusual to Python's cold path."""


import gc
import operator
import sys

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import record as _record
from lazytensor._engine import evaluate as _eval
from lazytensor._engine import graph as _graph
from lazytensor._engine import kernel as _kernel
from lazytensor._engine.native import fastpath as _fastpath


@pytest.fixture
def cold_path():
    """Make the next evaluations plan afresh: Python's cold path (its kernels compiled and run
    from Python), the reference for what C finds kept."""
    return lt.empty_cache


def _no_python(*args):
    raise AssertionError("Python's cold path ran")


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def test_the_c_path_is_built_and_takes_a_repeated_expression(monkeypatch):
    assert _eval._fastpath is not None, "lazytensor._fastpath was not built"
    x = lt.asarray(np.linspace(-3, 3, 1000, dtype=np.float32))
    first = (x * x + 1).numpy()                      # a miss: Python plans and keeps it

    monkeypatch.setattr(_fastpath, "group_key", _no_python)
    _eval.flush_counts()
    before = dict(_eval.counters), dict(_kernel.cache_stats)
    again = (x * x + 1).numpy()
    assert _bits(again) == _bits(first)
    _eval.flush_counts()
    assert _eval.counters["evaluations"] == before[0]["evaluations"] + 1
    assert _eval.counters["kernels"] == before[0]["kernels"] + 1
    assert _kernel.cache_stats["hits"] == before[1]["hits"] + 1


def _cases():
    rng = np.random.default_rng(7)
    base = rng.standard_normal((40, 30)).astype(np.float32) * 4
    yield "contiguous", lambda: lt.asarray(base), lambda x: lt.exp(x) * x + 1.5
    yield "transposed", lambda: lt.asarray(base).T, lambda x: lt.nn.gelu(x) - x
    yield "strided view", lambda: lt.asarray(base[::3, ::-2]), lambda x: lt.tanh(x) / (x + 9)
    yield "broadcast", lambda: lt.asarray(base[:1]), lambda x: lt.sin(x) + x
    yield "integers", lambda: lt.asarray(base.astype(np.int16)), lambda x: x * x - 3
    yield "bool", lambda: lt.asarray(base > 0), lambda x: lt.logical_xor(x, ~x)
    yield "empty", lambda: lt.asarray(base[:0]), lambda x: lt.exp(x) + 1
    yield "pooled (large)", (lambda: lt.asarray(np.tile(base, (60, 40)))), lambda x: x * 2 + 1
    yield "shared subexpression", lambda: lt.asarray(base), lambda x: (x + 1) * (x + 1) - x


@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("name,make,fn", list(_cases()), ids=[c[0] for c in _cases()])
def test_kept_kernels_give_the_bits_and_node_state_of_the_cold_path(name, make, fn, mode, cold_path):
    x = make()
    with lt.mode(mode):
        fn(x).numpy()                                # planned and kept in the quick table
        t = fn(x)
        node = t._node
        got = t.numpy()                              # through C
        assert node.value is got and not got.flags.writeable
        assert node.inputs == () and node.key is None
        assert all(ref() is not node for ref in _graph._INTERN.values())
        cold_path()
        ref = fn(x).numpy()
    assert _bits(got) == _bits(ref)


def test_mode_changes_between_cold_and_kept_runs(cold_path, monkeypatch):
    """The kernel's reusable call structure is written by both paths: a setting one of them
    wrote must never be left for the other."""
    x = lt.asarray(np.linspace(-20, 20, 4001, dtype=np.float32))
    with lt.mode("exact"):
        exact = lt.exp(x).numpy()
    with lt.mode("fast"):
        fast = lt.exp(x).numpy()
    assert _bits(exact) != _bits(fast)               # the modes differ on these inputs
    for mode, path in [("exact", "cold"), ("fast", "kept"), ("exact", "cold"),
                       ("fast", "cold"), ("exact", "kept"), ("fast", "kept"), ("exact", "kept")]:
        if path == "cold":
            cold_path()
        with lt.mode(mode):
            got = lt.exp(x).numpy()
        assert _bits(got) == _bits(exact if mode == "exact" else fast), (mode, path)


def test_kernel_path_and_threads_are_read_each_call(cold_path):
    """Exact mode: the same bits on every path and thread count.  Fast mode: each path's own
    bits (its own polynomials), as a plan made afresh on that path gives them."""
    x = lt.asarray(np.linspace(-5, 5, 70000, dtype=np.float32))
    with lt.mode("exact"):
        ref = lt.erf(x).numpy()
        for path in lt.kernel_paths():
            for threads in (1, 2, 1):
                with lt.config(kernel_path=path, num_threads=threads):
                    assert _bits(lt.erf(x).numpy()) == _bits(ref), (path, threads)
    with lt.mode("fast"):
        fresh = {}
        for path in lt.kernel_paths():
            with lt.config(kernel_path=path):
                cold_path()
                fresh[path] = _bits(lt.erf(x).numpy())
        for path in lt.kernel_paths() * 2:
            with lt.config(kernel_path=path):
                assert _bits(lt.erf(x).numpy()) == fresh[path], path


def test_python_threads_sharing_one_kernel(run_threads):
    x = lt.asarray(np.arange(1000, dtype=np.float32))
    expected = np.arange(1000, dtype=np.float32) * 3 + 1

    def work():
        for _ in range(300):
            np.testing.assert_array_equal((x * 3 + 1).numpy(), expected)

    run_threads(work, [()] * 4)


def test_what_c_hands_back_to_python():
    x = lt.asarray(np.arange(12, dtype=np.float64).reshape(3, 4))
    # a reduction below the root, and a root that is a reduction: Python's path
    m = lt.max(x, axis=1, keepdims=True)
    np.testing.assert_array_equal(np.asarray(x - m), np.arange(12.0).reshape(3, 4) - [[3], [7], [11]])
    assert float(lt.sum(x * 2)) == 132.0
    # more nodes than the C walk holds: Python's path, same result
    y = x
    for k in range(100):
        y = y + k
    y.numpy()
    z = x
    for k in range(100):
        z = z + k
    np.testing.assert_array_equal(z.numpy(), np.arange(12.0).reshape(3, 4) + 4950)


REDUCTIONS = [
    ("sum of a value", lambda x: lt.sum(x, axis=1)),
    ("sum of an expression", lambda x: lt.sum(x * x - 1, axis=0, keepdims=True)),
    ("mean over all", lambda x: lt.mean(lt.exp(x / 8))),
    ("max", lambda x: lt.max(x + 1, axis=(0, 1), keepdims=True)),
    ("min of a value", lambda x: lt.min(x, axis=0)),
    ("prod", lambda x: lt.prod(x / 4 + 1, axis=1)),
    ("any", lambda x: lt.any(x > 3, axis=1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("name,fn", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_kept_reductions_give_the_bits_of_the_cold_path(name, fn, mode, dtype, cold_path):
    rng = np.random.default_rng(11)
    x = lt.asarray((rng.standard_normal((37, 29)) * 4).astype(dtype))
    with lt.mode(mode):
        fn(x).numpy()
        got = fn(x).numpy()
        cold_path()
        ref = fn(x).numpy()
    assert _bits(got) == _bits(ref)


def test_a_repeated_reduction_runs_in_c(monkeypatch):
    x = lt.asarray(np.arange(3000, dtype=np.float32).reshape(30, 100))
    first = lt.sum(lt.sqrt(x), axis=1).numpy()
    monkeypatch.setattr(_eval, "_reduce_into", lambda *a: (_ for _ in ()).throw(
        AssertionError("Python's reduction path ran")))
    assert _bits(lt.sum(lt.sqrt(x), axis=1).numpy()) == _bits(first)
    np.testing.assert_allclose(first, np.sqrt(np.arange(3000.0).reshape(30, 100)).sum(axis=1),
                               rtol=1e-6)


# ---- recording in C --------------------------------------------------------------------
from lazytensor._api import elementwise as _elementwise  # noqa: E402


def test_recording_takes_the_c_functions():
    assert _record.binary is _eval._fastpath.binary
    assert _record.unary is _eval._fastpath.unary
    assert lt.where is _elementwise.where is _eval._fastpath.where


def _node_fields(node):
    return (node.op, tuple(map(id, node.inputs)), node.attrs, node.dtype, node.shape, node.key)


@pytest.mark.parametrize("a_kind,b_kind", [("tensor", "tensor"), ("tensor", 2.5), ("tensor", 3),
                                           (-1.5, "tensor"), (7, "tensor")])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "less", "maximum",
                                  "atan2", "remainder"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_c_binary_records_the_node_python_records(name, a_kind, b_kind, dtype):
    rng = np.random.default_rng(5)
    x = lt.asarray((rng.standard_normal((4, 6)) * 5).astype(dtype))
    y = lt.asarray((rng.standard_normal((4, 6)) * 5 + 0.5).astype(dtype))
    a = x if a_kind == "tensor" else a_kind
    b = y if b_kind == "tensor" else b_kind
    try:
        ref = _record._python_binary(name, a, b)
    except TypeError as exc:          # the op refuses this dtype: the C path says the same
        with pytest.raises(TypeError, match=str(exc)[:20]):
            _record.binary(name, a, b)
        return
    for _ in range(2):                # the first call may fill the caches the C path reads
        got = _record.binary(name, a, b)
        assert got._node is ref._node
        assert _node_fields(got._node) == _node_fields(ref._node)


@pytest.mark.parametrize("shapes", [((4, 6), (4, 1)), ((4, 1), (1, 6)), ((6,), (4, 6)),
                                    ((3, 1, 5), (4, 1)), ((), (2, 3)), ((2, 0), (1, 1)),
                                    ((0, 3), (3,)), ((1,), ())])
@pytest.mark.parametrize("name", ["subtract", "divide", "less", "maximum"])
def test_c_binary_broadcasts_as_python_does(name, shapes, monkeypatch):
    rng = np.random.default_rng(7)
    x, y = (lt.asarray(rng.standard_normal(s).astype(np.float32)) for s in shapes)
    ref = _record._python_binary(name, x, y)
    assert ref.shape == np.broadcast_shapes(*shapes)
    flipped = _record._python_binary(name, y, x)

    def no_python(*args):
        raise AssertionError("Python's recording ran")

    monkeypatch.setattr(_graph, "op_node", no_python)
    for a, b, want in ((x, y, ref), (y, x, flipped)):
        got = _record.binary(name, a, b)
        assert got._node is want._node
        assert _node_fields(got._node) == _node_fields(want._node)
        assert type(got.shape) is tuple and all(type(d) is int for d in got.shape)
    np.testing.assert_array_equal(
        np.asarray(_record.binary(name, x, y)),
        getattr(np, name)(np.asarray(x), np.asarray(y)))


@pytest.mark.parametrize("shapes", [((4, 6), (4, 5)), ((2, 3), (3, 2)), ((3,), (2, 4))])
def test_c_binary_leaves_shapes_that_do_not_broadcast_to_python(shapes):
    x, y = (lt.asarray(np.ones(s, np.float32)) for s in shapes)
    with pytest.raises(ValueError, match="broadcast"):
        _record.binary("add", x, y)


@pytest.mark.parametrize("name", ["exp", "negative", "abs", "sqrt", "logical_not", "sigmoid",
                                  "gelu", "round"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_c_unary_records_the_node_python_records(name, dtype):
    x = lt.asarray(np.array([[1.5, -2.0, 0.0], [3.0, 0.25, -7.0]]).astype(dtype))
    try:
        ref = _record._python_unary(name, x)
    except TypeError as exc:
        with pytest.raises(TypeError, match=str(exc)[:20]):
            _record.unary(name, x)
        return
    for _ in range(2):
        got = _record.unary(name, x)
        assert got._node is ref._node
        assert _node_fields(got._node) == _node_fields(ref._node)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool"])
def test_c_where_records_the_node_python_records(dtype):
    """Three tensors of one shape, a bool condition, one real dtype: C records the node
    Python's where records (the same node, hash-consed), without Python's recording."""
    rng = np.random.default_rng(11)
    a, b = (rng.integers(0, 5, (3, 4)).astype(dtype) for _ in range(2))
    c = rng.standard_normal((3, 4)) > 0
    x, y, cond = lt.asarray(a), lt.asarray(b), lt.asarray(c)
    ref = _elementwise._python_where(cond, x, y)
    python_calls = []

    def profile(frame, event, arg):
        if event == "call":
            python_calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        got = lt.where(cond, x, y)
    finally:
        sys.setprofile(None)
    assert python_calls == []
    assert got._node is ref._node
    assert _node_fields(got._node) == _node_fields(ref._node)
    out = np.asarray(got)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, np.where(c, a, b))


def test_c_where_hands_the_rest_to_python():
    """Broadcasting, mixed dtypes, complex values, a condition that is not bool and a
    Python scalar met the first time go to Python's where: NumPy's values, and Python's
    error."""
    f32 = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = f32 % 2 == 0
    x, cond = lt.asarray(f32), lt.asarray(c)
    cases = [
        (lambda: lt.where(cond, x, lt.asarray(f32[:1])), np.where(c, f32, f32[:1])),
        (lambda: lt.where(cond[:1], x, x + 1), np.where(c[:1], f32, f32 + 1)),
        (lambda: lt.where(cond, x, lt.asarray(f32.astype(np.float64))),
         np.where(c, f32, f32.astype(np.float64))),
        (lambda: lt.where(cond, x, 2.5), np.where(c, f32, np.float32(2.5))),
        (lambda: lt.where(cond, -1, x), np.where(c, np.float32(-1), f32)),
        (lambda: lt.where(cond, x, lt.asarray(f32.astype(np.complex64))),
         np.where(c, f32, f32.astype(np.complex64))),
    ]
    for make, expected in cases:
        got = np.asarray(make())
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.asarray(lt.where(x, x, 2 * x)), np.where(f32, f32, 2 * f32))
    with pytest.raises(ValueError, match="broadcast"):
        lt.where(cond, x, lt.asarray(np.ones((2, 2), np.float32)))


def test_c_recording_hands_the_rest_to_python():
    f32 = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = lt.asarray(f32)
    cases = [
        (lambda: x + True, f32 + np.float32(1)),                          # a bool scalar
        (lambda: x * 0.0, f32 * np.float32(0)),                           # a zero scalar
        (lambda: x * -0.0, f32 * np.float32(-0.0)),
        (lambda: x + np.float32(2), f32 + np.float32(2)),                 # a NumPy scalar
        (lambda: x + lt.asarray(f32.astype(np.int8)), f32 + f32.astype(np.int8)),   # a cast
        (lambda: lt.asarray(f32.astype(np.int8)) + 1000, None),           # out of range
        (lambda: x + lt.asarray(f32.astype(np.complex64)), f32 + f32.astype(np.complex64)),
    ]
    for make, expected in cases:
        if expected is None:
            with pytest.raises((OverflowError, ValueError, TypeError)):
                make()
            continue
        got = np.asarray(make())
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        if got.dtype.kind == "f":
            assert np.signbit(got).tolist() == np.signbit(expected).tolist()


def test_c_records_casts_and_signed_zero_scalars_itself():
    """After a first call (which fills the caches C reads), a cast of a tensor operand and a
    0.0 or -0.0 scalar are recorded in C: no Python function of record.py runs, and the
    signed zeros stay apart."""
    f32 = np.array([-2.0, -0.0, 0.0, 3.0], dtype=np.float32)
    i8 = f32.astype(np.int8)
    x, k = lt.asarray(f32), lt.asarray(i8)
    cases = [(lambda: x + k, f32 + i8), (lambda: x * 0.0, f32 * np.float32(0.0)),
             (lambda: x * -0.0, f32 * np.float32(-0.0)), (lambda: k - 0.0, i8 - 0.0),
             (lambda: lt.maximum(x, 0), np.maximum(f32, np.float32(0))),
             (lambda: 0.0 - x, np.float32(0.0) - f32)]
    for make, _ in cases:
        make()                        # the first call: the cold path fills the caches
    for make, expected in cases:
        entered = []

        def profile(frame, event, arg):
            if event == "call" and frame.f_code.co_filename == _record.__file__:
                entered.append(frame.f_code.co_name)

        sys.setprofile(profile)
        try:
            t = make()
        finally:
            sys.setprofile(None)
        assert not entered, entered
        got = np.asarray(t)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        assert np.signbit(got).tolist() == np.signbit(expected).tolist()


def test_the_constants_table_sweeps_dead_entries(monkeypatch):
    """Constants are hash-consed in graph._INTERN (weak references): dead entries are swept
    when the table has doubled, so it stays bounded by the constants alive."""
    calls = []
    real_sweep = _graph._sweep
    monkeypatch.setattr(_graph, "_sweep", lambda: calls.append(1) or real_sweep())
    monkeypatch.setattr(_graph, "_sweep_at", len(_graph._INTERN) + 10)
    for k in range(200):
        _graph.constant(np.array(1e6 + k))      # dies at once
    assert calls and len(_graph._INTERN) <= _graph._sweep_at


def test_c_table_is_used_on_known_pythons():
    # the C table needs Node's layout (checked at import); other layouts use _graph's dict
    assert _eval._fastpath.node_hooks() or sys.version_info >= (3, 14)


def test_c_table_shares_live_nodes_and_lets_dead_ones_go():
    if not _eval._fastpath.node_hooks():
        pytest.skip("this Python's Node layout is not the one the C table knows")
    size = _eval._fastpath.intern_size()
    x = lt.asarray(np.arange(4.0, dtype=np.float32))
    a, b = lt.exp(x) * 2, lt.exp(x) * 2
    assert a._node is b._node and a._node.inputs[0] is b._node.inputs[0]
    assert type(a._node.key) is int and _eval._fastpath.intern_size() == size + 2
    c = lt.exp(x)
    del a, b
    assert _eval._fastpath.intern_size() == size + 1      # exp(x) lives on in c
    d = c * 2                                             # not the dead product's node
    assert d._node.inputs[0] is c._node and _eval._fastpath.intern_size() == size + 2
    d.numpy()                                             # evaluated: out of the table
    assert d._node.key is None and _eval._fastpath.intern_size() == size + 1
    assert (c * 2)._node is not d._node                   # a new pending node
    # a cycle: the collector clears it, and the node leaves the table (its attrs, no longer
    # hashable, make it be looked for everywhere)
    e = lt.exp(c)
    box = [e._node]
    e._node.attrs = (box,)                                # node -> attrs -> list -> node
    assert _eval._fastpath.intern_size() == size + 2
    del e, box
    gc.collect()
    assert _eval._fastpath.intern_size() == size + 1
    del c
    assert _eval._fastpath.intern_size() == size


def test_a_long_chain_of_nodes_dies_without_deep_recursion():
    x = lt.asarray(np.ones(3, dtype=np.float32))
    size = _eval._fastpath.intern_size()
    y = x
    for _ in range(200_000):
        y = y + 1.0
    del y                                                 # one level at a time (trashcan)
    assert _eval._fastpath.intern_size() == size


def test_node_cannot_be_subclassed_under_the_c_table():
    if _eval._fastpath.node_hooks():
        with pytest.raises(TypeError):
            type("Sub", (_graph.Node,), {})
    else:
        type("Sub", (_graph.Node,), {})


# ---- kept plans of several kernels ------------------------------------------------------
def _softmax(x, axis):
    e = lt.exp(x - lt.max(x, axis=axis, keepdims=True))
    return e / lt.sum(e, axis=axis, keepdims=True)


def _layer_norm(x, axis):
    m = lt.mean(x, axis=axis, keepdims=True)
    d = x - m
    return d / lt.sqrt(lt.mean(d * d, axis=axis, keepdims=True) + 1e-5)


def _logsumexp(x, axis):
    m = lt.max(x, axis=axis, keepdims=True)
    return lt.log(lt.sum(lt.exp(x - m), axis=axis, keepdims=True)) + m


PLANS = [("softmax rows", _softmax, 1), ("softmax columns", _softmax, 0),
         # columns of a narrow array: the reduction kernel writes e in its plan's order,
         # (column, row), and keeps it as a transposed view
         ("softmax narrow columns", lambda x, axis: _softmax(x[:, :3], axis), 0),
         ("layer norm", _layer_norm, -1), ("logsumexp", _logsumexp, 1),
         ("centred sum", lambda x, axis: lt.sum(x - lt.mean(x), axis=axis) * 2, 0)]


@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name,fn,axis", PLANS, ids=[p[0] for p in PLANS])
def test_kept_plans_give_the_bits_of_the_cold_path(name, fn, axis, layout, mode, cold_path):
    rng = np.random.default_rng(13)
    a = (rng.standard_normal((24, 40)) * 3).astype(np.float32)
    x = lt.asarray(a) if layout == "contiguous" else lt.asarray(np.ascontiguousarray(a.T)).T
    with lt.mode(mode):
        fn(x, axis).numpy()                                  # planned and kept
        t = fn(x, axis)
        got = t.numpy()
        assert not got.flags.writeable and t._node.inputs == ()
        cold_path()
        ref = fn(x, axis).numpy()
    assert _bits(got) == _bits(ref)


@pytest.mark.parametrize("shape,axis", [((20, 30), 1), ((24, 3), 0)])
def test_a_kept_plan_runs_in_c_and_sets_every_requested_value(monkeypatch, shape, axis):
    # (24, 3) over axis 0: e is written in its reduction kernel's order and kept transposed
    x = lt.asarray(np.linspace(-3, 3, shape[0] * shape[1], dtype=np.float32).reshape(shape))

    def parts():
        e = lt.exp(x - lt.max(x, axis=axis, keepdims=True))
        s = lt.sum(e, axis=axis, keepdims=True)
        return e, s, e / s

    lt.eval(*parts())                                        # planned and kept
    expected = [np.asarray(t) for t in parts()]
    monkeypatch.setattr(_eval, "partition", _no_python)
    monkeypatch.setattr(_fastpath, "structure_key", _no_python)
    _eval.flush_counts()
    before = dict(_eval.counters)
    got = parts()
    lt.eval(*got)
    _eval.flush_counts()
    assert _eval.counters["evaluations"] == before["evaluations"] + 1
    assert _eval.counters["kernels"] - before["kernels"] >= 3
    for t, ref in zip(got, expected):
        assert t.is_evaluated
        assert _bits(t.numpy()) == _bits(ref)


def test_plans_c_hands_back_to_python():
    # a reduction over an empty axis (the identity is filled by Python), beside other work
    x = lt.asarray(np.ones((3, 0), np.float32))
    y = lt.asarray(np.arange(3, dtype=np.float32).reshape(3, 1))
    for _ in range(2):
        got = (y + lt.sum(x, axis=1, keepdims=True)) * lt.max(y, axis=0, keepdims=True)
        np.testing.assert_array_equal(np.asarray(got), [[0.0], [2.0], [4.0]])
    # more pending nodes than the C plan holds
    z = lt.asarray(np.arange(6.0).reshape(2, 3))
    for _ in range(2):
        w = z
        for k in range(80):
            w = w + lt.max(z, axis=1, keepdims=True) * k
        np.testing.assert_array_equal(np.asarray(w), np.arange(6.0).reshape(2, 3)
                                      + np.array([[2.0], [5.0]]) * 3160)


def test_a_reduction_below_a_chain_is_computed_first_in_c(monkeypatch):
    x = lt.asarray(np.arange(1000, dtype=np.float32))
    first = lt.mean(x * 2).numpy()                  # planned and kept: two kernels

    monkeypatch.setattr(_fastpath, "group_key", _no_python)
    monkeypatch.setattr(_fastpath, "structure_key", _no_python)
    assert _bits(lt.mean(x * 2).numpy()) == _bits(first)
    assert float(first) == 999.0


def test_a_value_computed_in_c_and_read_by_the_next_kernel_gets_no_operand(monkeypatch):
    x = lt.asarray(np.linspace(-4, 4, 1000, dtype=np.float32))
    expected = np.float32(np.sum(np.exp(np.linspace(-4, 4, 1000, dtype=np.float32)),
                                 dtype=np.float64) / 1000)
    lt.mean(lt.exp(x)).numpy()                      # planned and kept
    monkeypatch.setattr(_fastpath, "group_key", _no_python)
    for _ in range(2):
        m = lt.mean(lt.exp(x))
        below = m._node
        while below.op != "reduce":                 # the float64 sum under divide and cast
            below = below.inputs[0]
        got = m.numpy()
        assert below.value is not None and below.operand is None
        assert abs(float(got) - float(expected)) <= 2 * np.spacing(expected)


@pytest.mark.parametrize("offset", [1, 2, 3])
def test_misaligned_values_are_copied_on_the_c_path(offset):
    expected = np.arange(64, dtype=np.float32)
    raw = np.zeros(4 * 64 + 8, np.uint8)
    raw[offset:offset + 256] = expected.view(np.uint8)
    b = np.frombuffer(raw.data, dtype=np.float32, count=64, offset=offset)
    assert not b.flags.aligned
    x = lt.asarray(b)
    assert not x._node.value.flags.aligned           # the leaf is the misaligned view
    for _ in range(3):
        np.testing.assert_array_equal((x * 2 + 1).numpy(), expected * 2 + 1)
        assert float(lt.sum(x)) == expected.sum()


def test_python_threads_sharing_kept_plans_and_reductions(run_threads):
    x = lt.asarray(np.linspace(-4, 4, 3 * 1024, dtype=np.float32).reshape(3, 1024))
    a = np.linspace(-4, 4, 3 * 1024, dtype=np.float32).reshape(3, 1024)
    with lt.mode("exact"):
        soft_ref = _softmax(x, 1).numpy()
        mean_ref = lt.mean(x * x, axis=1).numpy()
    np.testing.assert_allclose(soft_ref, np.exp(a - a.max(1, keepdims=True))
                               / np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True),
                               rtol=1e-6)

    def work(mode):
        with lt.mode(mode):
            for _ in range(150):
                s, m = _softmax(x, 1).numpy(), lt.mean(x * x, axis=1).numpy()
                if mode == "exact":
                    assert _bits(s) == _bits(soft_ref) and _bits(m) == _bits(mean_ref)
                else:
                    np.testing.assert_allclose(s, soft_ref, rtol=1e-5)
                    np.testing.assert_allclose(m, mean_ref, rtol=1e-5)

    run_threads(work, [("exact",), ("fast",)] * 2)


@pytest.mark.parametrize("array", [np.arange(6.0).reshape(2, 3), np.array(2.5, np.float32),
                                   np.arange(10, dtype=np.int8)[::3], np.zeros((0, 4), bool)])
def test_leaves_made_in_c_are_the_leaves_python_makes(array):
    t = lt.Tensor._from_array(array)
    ref = _graph.leaf(array)
    got = t._node
    assert type(got) is type(ref) and got.value is array
    assert (got.op, got.inputs, got.attrs, got.dtype, got.shape, got.key, got.operand) == \
        (ref.op, ref.inputs, ref.attrs, ref.dtype, ref.shape, ref.key, ref.operand)
    np.testing.assert_array_equal((t + 0).numpy() if array.dtype != bool else t.numpy(), array)


def test_value_methods_in_c_keep_the_python_semantics(monkeypatch):
    """Tensor._value, numpy() and __array__ are C methods (setup_value): the value itself for
    np.asarray, a cast or a copy when asked, the Python methods for what they do not do."""
    assert type(lt.Tensor.__dict__["numpy"]).__name__ == "method_descriptor"
    x = lt.asarray(np.linspace(-2, 2, 1000, dtype=np.float32))
    t = lt.exp(x) * 2
    v = np.asarray(t)           # t's value, now its memory: writable, as NumPy's would be
    assert v is t.numpy() and v is t._value() and v.flags.writeable
    assert np.asarray(t, copy=False) is v and t.__array__(None, copy=None) is v
    w = np.asarray(t, copy=True)
    assert w.flags.writeable and not np.shares_memory(w, v) and _bits(w) == _bits(v)
    d = np.asarray(t, dtype=np.float64)
    assert d.dtype == np.float64 and np.array_equal(d, v.astype(np.float64))
    with pytest.raises(ValueError, match="copy=False"):
        t.__array__(np.float64, copy=False)


def test_operators_in_c_take_every_operand_python_takes():
    """+ - * / and the comparisons are C methods (setup_operators) that call binary() for a
    Tensor, int or float operand and the Python dunder for anything else."""
    assert type(lt.Tensor.__dict__["__add__"]).__name__ == "method_descriptor"
    a = np.linspace(-3, 3, 8, dtype=np.float32)            # no zero: the divisions stay finite
    x = lt.asarray(a)
    operands = [lt.asarray(a[::-1].copy()), 2, 0.5, True, np.float32(1.5), a[::-1].copy(),
                np.int8(3)]
    for other in operands:
        ref = np.asarray(other) if not isinstance(other, lt.Tensor) else a[::-1]
        for op in ("__add__", "__sub__", "__mul__", "__truediv__", "__lt__", "__le__", "__gt__",
                   "__ge__", "__eq__", "__ne__"):
            got = np.asarray(getattr(x, op)(other))
            want = getattr(operator, op)(a, ref)
            np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=f"{op} {other!r}")
        for op, f in (("__radd__", operator.add), ("__rsub__", operator.sub),
                      ("__rmul__", operator.mul), ("__rtruediv__", operator.truediv)):
            got = np.asarray(getattr(x, op)(other))
            np.testing.assert_array_equal(got, f(ref, a).astype(got.dtype), err_msg=f"{op} {other!r}")
    assert x.__add__("a") is NotImplemented and x.__eq__(object()) is NotImplemented
    with pytest.raises(TypeError):
        x < "a"


def test_views_with_length_one_dimensions_take_the_c_path(monkeypatch):
    """NumPy exports the buffer of a contiguous array with canonical strides whatever its
    length-1 dimensions' strides are (X.T of a (1, n) X has strides (4, 4n), exported as
    (4, 4)); the C key must hold the array's own strides, as Python's does, or a fresh view
    (a new leaf each call) never hits."""
    X = lt.asarray(np.linspace(-1, 1, 1024, dtype=np.float32).reshape(1, 1024))
    Y = lt.asarray(np.linspace(0, 2, 1024, dtype=np.float32).reshape(1024, 1))
    first = (X.T + Y).numpy()                        # Python plans and keeps it
    view = X.T.numpy()
    assert memoryview(view).strides != view.strides  # the case: (4, 4) against (4, 4096)
    monkeypatch.setattr(_fastpath, "group_key", _no_python)
    again = (X.T + Y).numpy()                        # a new view leaf: the C path
    assert _bits(again) == _bits(first)
    np.testing.assert_array_equal(again, X.numpy().T + Y.numpy())


def test_the_evaluation_lock_is_a_reentrant_lock():
    """_eval.lock (C's EvalLock): reentrant for its owner, not for another thread, which
    waits for it (with the GIL let go) or is told it is busy; only the owner releases it."""
    import os
    import threading
    lock = _eval.lock
    assert type(lock).__name__ == "EvalLock"
    fresh = type(lock)()
    assert fresh.acquire() and fresh.acquire(False)          # taken twice by its owner
    seen = []

    def other():
        seen.append(fresh.acquire(blocking=False))           # busy: not taken
        with pytest.raises(RuntimeError):
            fresh.release()                                  # not its owner
        fresh.acquire()                                      # waits for the owner
        seen.append("taken")
        fresh.release()

    t = threading.Thread(target=other)
    t.start()
    while not seen:
        threading.Event().wait(0.001)
    fresh.release()
    t.join(0.1)
    assert seen == [False]                                   # still held once: not free yet
    fresh.release()
    t.join(10)
    assert not t.is_alive() and seen == [False, "taken"]
    with pytest.raises(RuntimeError):
        fresh.release()                                      # nobody holds it
    with pytest.raises(ValueError):
        fresh.acquire(timeout=1.0)
    with fresh:
        assert fresh.acquire(False)                          # reentrant inside `with` too
        fresh.release()
    assert fresh.acquire(False)                              # and free after it
    fresh.release()
    # fork: the forking thread still holds what it held (and releases it in the child) ...
    with lock:
        pid = os.fork()
        if pid == 0:                                         # pragma: no cover - the child
            try:
                lock.release()
                os._exit(0 if lock.acquire(False) else 1)
            except BaseException:
                os._exit(2)
        _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    # ... and a lock held by another thread is free in the child (that thread is not there)
    held, done = threading.Event(), threading.Event()

    def holder():
        with fresh:
            held.set()
            done.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(10)
    pid = os.fork()
    if pid == 0:                                             # pragma: no cover - the child
        fresh._at_fork_reinit()                              # what register_at_fork runs
        os._exit(0 if fresh.acquire(False) else 1)
    _, status = os.waitpid(pid, 0)
    done.set()
    t.join(10)
    assert os.WEXITSTATUS(status) == 0


def test_a_kernels_busy_flag_is_taken_without_waiting():
    from lazytensor import _fastpath
    busy = _fastpath.Busy()
    assert busy.acquire(False) is True and busy.acquire(False) is False
    busy.release()
    with pytest.raises(RuntimeError):
        busy.release()
    with pytest.raises(ValueError):
        busy.acquire(True)
    with busy:
        with pytest.raises(RuntimeError):
            busy.__enter__()
    assert busy.acquire(False) is True
    busy.release()


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_a_float32_sum_is_rounded_without_a_kernel_as_the_kernel_would(mode, cold_path):
    """The float64 -> float32 cast that ends a float32 sum is done without a kernel launch by
    the quick path (C's cast_of_value), found kept or planned cold: the bits of the general
    path's cast kernel, NaN (canonical in exact mode), infinities, signed zeros and
    subnormals included, and one kernel fewer."""
    rows = np.array([[1.0, 2.0, 3.0], [np.inf, -np.inf, 1.0], [3e38, 3e38, 0.0],
                     [-0.0, -0.0, -0.0], [1e-45, 1e-45, 1e-45], [0.1, 0.2, 0.3],
                     [np.nan, 1.0, 2.0], [-np.inf, 1.0, 2.0], [1e-40, -3e-41, 0.0]], np.float32)
    x = lt.asarray(rows)

    def kernels_for(run):
        _eval.flush_counts()
        before = _eval.counters["kernels"]
        bits = run()
        _eval.flush_counts()
        return bits, _eval.counters["kernels"] - before

    def general():
        t = lt.sum(x, axis=1)
        _eval.evaluate([t._node])             # partition and run: the cast is a kernel
        return _bits(t.numpy())

    _kernel.clear_cache()
    with lt.config(mode=mode):
        lt.sum(x, axis=1).numpy()              # a first call fills the quick table
        got_c, n_c = kernels_for(lambda: _bits(lt.sum(x, axis=1).numpy()))
        want, n_general = kernels_for(general)
        cold_path()
        got_py, n_py = kernels_for(lambda: _bits(lt.sum(x, axis=1).numpy()))
    assert n_general == 2 and n_c == 1 and n_py == 1
    assert got_c == want and got_py == want
    values = np.frombuffer(want[2], np.float32)
    assert np.isnan(values[1]) and values[2] == np.inf and np.signbit(values[3])
    if mode == "exact":
        assert values[1:2].view(np.uint32)[0] == 0x7FC00000     # the canonical NaN


def test_the_mode_context_manager():
    """lt.mode (a C type) sets the mode for the block, nests, restores the mode on an
    exception, keeps other threads' modes, and rejects a bad name."""
    import threading

    make = lt.mode
    assert type(lt.mode) is type and "mode ``name``" in lt.mode.__doc__
    assert lt.get_mode() == "exact"
    with make("fast"):
        assert lt.get_mode() == "fast"
        with make(name="exact"):
            assert lt.get_mode() == "exact"
        assert lt.get_mode() == "fast"
        seen = []
        t = threading.Thread(target=lambda: seen.append(lt.get_mode()))
        t.start()
        t.join()
        assert seen == ["exact"]                       # another thread keeps its own mode
    assert lt.get_mode() == "exact"
    with pytest.raises(KeyError):
        with make("fast"):
            raise KeyError("propagated")               # __exit__ does not swallow it
    assert lt.get_mode() == "exact"
    lt.set_mode("fast")
    try:
        with make("exact"):
            assert lt.get_mode() == "exact"
        assert lt.get_mode() == "fast"
    finally:
        lt.set_mode("exact")
    for bad in ("quick", 3, None):
        with pytest.raises(ValueError, match=r"mode must be one of \('exact', 'fast'\), not "):
            make(bad)
    for args, kwargs in [((), {}), (("fast", "exact"), {}), ((), {"nme": "fast"})]:
        with pytest.raises(TypeError):
            make(*args, **kwargs)
    # a value computed in the block is computed in that mode
    x = lt.asarray(np.linspace(-3, 3, 1001, dtype=np.float32))
    with make("fast"):
        fast = lt.exp(x).numpy()
    with lt.config(mode="fast"):
        assert np.array_equal(lt.exp(x + 0).numpy(), fast)
    assert not np.array_equal(lt.exp(x * 1).numpy(), fast)       # exact differs on these


def test_the_quick_tables_identity_memo_follows_the_table(monkeypatch):
    """A repeated expression's key, of the same objects each time, is looked up through the
    memo (lt_fastpath.c quick_lookup); once the table changes (cleared, or another entry
    added) the memo is not trusted: a cleared table makes the next call a miss, planned by
    Python, and entries for other inputs never answer for these."""
    x = lt.asarray(np.linspace(-3, 3, 1000, dtype=np.float32))
    y = lt.asarray(np.linspace(3, -3, 1000, dtype=np.float32))
    expected = np.where(x.numpy() < y.numpy(), 2 * x.numpy(), y.numpy() - 1)
    for _ in range(3):                              # planned, then memo hits
        got = lt.where(x < y, 2 * x, y - 1).numpy()
        np.testing.assert_array_equal(got, expected)
    _eval.flush_counts()
    hits, misses = _kernel.cache_stats["hits"], _kernel.cache_stats["misses"]
    _kernel.clear_cache()
    np.testing.assert_array_equal(lt.where(x < y, 2 * x, y - 1).numpy(), expected)
    _eval.flush_counts()
    assert _kernel.cache_stats["misses"] == misses + 1    # the cleared table was read
    assert _kernel.cache_stats["hits"] == hits
    # the same structure over other leaves (other layout objects): their own values
    for n in (1000, 999):
        a = lt.asarray(np.arange(n, dtype=np.float32))
        b = lt.asarray(np.full(n, 7, dtype=np.float32))
        for _ in range(2):
            np.testing.assert_array_equal(lt.where(a < b, 2 * a, b - 1).numpy(),
                                          np.where(a.numpy() < 7, 2 * a.numpy(), 6))


@pytest.mark.parametrize("view", ["contiguous", "reversed", "strided"])
def test_a_leaf_read_only_by_c_keeps_its_layout_and_address(view, monkeypatch):
    """A leaf that only the C path reads (its expression planned over another leaf of the
    same layout) gets no operand; C keeps its layout tuple and address on the node, so its
    key holds the same tuple on every call (and the quick table's memo can answer) and the
    kernel reads the right buffer."""
    base = np.linspace(-2, 2, 3000, dtype=np.float32)
    make = {"contiguous": lambda a: a[:1000], "reversed": lambda a: a[999::-1],
            "strided": lambda a: a[::3]}[view]
    first = lt.asarray(make(base.copy()))
    (lt.exp(first) * first + 1).numpy()              # planned by Python (a miss)
    arr = make(base * 3)
    x = lt.asarray(arr)
    layouts = []
    for _ in range(3):
        got = (lt.exp(x) * x + 1).numpy()
        a64 = arr.astype(np.float64)
        np.testing.assert_allclose(got, np.exp(a64) * a64 + 1, rtol=1e-6)
        node = x._node
        assert node.operand is None                   # C made no cffi pointer for it
        layouts.append(node.layout)
    assert layouts[0] == (arr.shape, arr.strides, arr.dtype)
    assert layouts[1] is layouts[0] and layouts[2] is layouts[0]
    assert x._node.address == _eval._fastpath.data_address(arr)


def test_set_value_clears_the_layout_kept_for_a_value():
    node = _graph.Node("leaf", (), (), np.dtype(np.float32), (3,))
    node.layout, node.address = ((3,), (4,), np.dtype(np.float32)), 12345
    node.set_value(np.zeros(3, np.float32))
    assert node.layout is None and node.address is None


@pytest.mark.parametrize("n_ops", [63, 64, 65, 300, 1000])
def test_a_large_group_is_found_kept_by_c(n_ops, monkeypatch):
    """The walks have no fixed-size arrays (kernels_c/ext/keys.c): a group of any size up to
    the group cap is keyed in C, found kept, and gives NumPy's values."""
    a = np.linspace(-1, 1, 50)
    x = lt.asarray(a)

    def chain():
        y = x
        for k in range(n_ops):
            y = y * 0.5 + k
        return y

    want = a.copy()
    for k in range(n_ops):
        want = want * 0.5 + k
    np.testing.assert_allclose(chain().numpy(), want, rtol=1e-12)    # planned cold, kept
    monkeypatch.setattr(_fastpath, "group_key", _no_python)
    monkeypatch.setattr(_fastpath, "structure_key", _no_python)
    np.testing.assert_allclose(chain().numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("n_steps", [20, 63, 64, 150])
def test_a_large_plan_is_found_kept_by_c(n_steps, monkeypatch):
    """A kept plan of many pending nodes and kernels (two per step: a reduction, then the
    step's elementwise work) runs in C up to 128 kernels; past that Python runs its steps
    (still without planning again)."""
    a = np.arange(12.0).reshape(3, 4)
    x = lt.asarray(a)

    def steps():
        w = x
        for k in range(n_steps):
            w = w - lt.max(w, axis=1, keepdims=True) * 0.5 + k
        return w

    want = a.copy()
    for k in range(n_steps):
        want = want - want.max(axis=1, keepdims=True) * 0.5 + k
    got = steps()
    lt.eval(got)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    monkeypatch.setattr(_eval, "partition", _no_python)
    if 2 * n_steps + 1 <= 128:
        monkeypatch.setattr(_fastpath, "structure_key", _no_python)
    got = steps()
    lt.eval(got)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_steps_of_one_kernel_share_its_call_in_c(monkeypatch):
    """A chain cut at the input cap gives identical middle groups, one compiled kernel run
    by several steps of the plan: C runs them one after another on its call structure."""
    a = np.linspace(-1, 1, 50)
    x = lt.asarray(a)

    def chain():
        y = x
        for k in range(140):
            y = y * 0.5 + k
        return y

    want = a.copy()
    for k in range(140):
        want = want * 0.5 + k
    first = chain()
    assert len(lt.explain(first)) >= 3
    np.testing.assert_allclose(first.numpy(), want, rtol=1e-12)
    for name in ("group_key", "structure_key"):
        monkeypatch.setattr(_fastpath, name, _no_python)
    monkeypatch.setattr(_eval, "partition", _no_python)
    np.testing.assert_allclose(chain().numpy(), want, rtol=1e-12)


def test_the_constants_memo_follows_the_dict():
    """x + k takes k's constant node from a memo of the objects met before (ext/record.c), but
    only while record._FAST_CONSTANTS is unchanged: a node the dict holds under k's key after
    a change is the one recorded."""
    x = lt.asarray(np.ones(4, np.float32))
    k = 7
    first = x + k                                        # the dict and the memo have k
    key = (int, 7, np.dtype(np.float32))
    assert first._node.inputs[1] is _record._FAST_CONSTANTS[key]
    assert (x + k)._node.inputs[1] is first._node.inputs[1]     # (a memo hit)
    other = (x + 8)._node.inputs[1]                      # another constant node
    _record._FAST_CONSTANTS[key] = other
    assert (x + k)._node.inputs[1] is other
    del _record._FAST_CONSTANTS[key]
    np.testing.assert_array_equal((x + k).numpy(), np.full(4, 8, np.float32))


def test_the_call_memo_lets_kernels_go_with_the_cache():
    """The kernels C remembers with their decoded call tuples (ext/calls.c) are let go by
    clear_cache, and a kernel made again after it runs with its own call structure."""
    import weakref

    x = lt.asarray(np.linspace(-3, 3, 1000, dtype=np.float32))
    for _ in range(3):
        got = (x * 3 + 2).numpy()
    kernels = [weakref.ref(ck) for ck in _kernel._quick.values()
               if isinstance(ck, _kernel.CompiledKernel)]
    assert kernels
    _kernel.clear_cache()
    gc.collect()
    assert all(ref() is None for ref in kernels)
    for _ in range(3):
        np.testing.assert_array_equal((x * 3 + 2).numpy(), got)
