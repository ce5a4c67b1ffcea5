"""lt.jit (lazytensor/_engine/jit.py, jit_call in kernels_c/lt_fastpath.c): a replayed call must
give what the function gives (the same bits: both run the same kernels), on new data of the
same signature; a new signature is traced afresh; and a function whose trace cannot be
replayed (it reads a value, makes a tensor from an array, uses a tensor from outside,
changes an argument) is called every time, so that its results stay right.

The values are checked against NumPy computing the same expression, and against the
unjitted function where NumPy does not define the op (bit for bit)."""

import threading

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import evaluate as _eval
from lazytensor._engine import jit as _jit
from lazytensor._engine import kernel as _kernel
from lazytensor._engine import rows as _rows


def bits(t):
    a = np.asarray(t)
    return a.dtype, a.shape, a.tobytes()


def f32(seed, shape, scale=3.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def counts():
    _eval.flush_counts()
    return dict(_jit.stats)


def grew(before, name):
    _eval.flush_counts()
    return _jit.stats[name] - before[name]


def softmax(x):
    e = lt.exp(x - lt.max(x, axis=-1, keepdims=True))
    return e / lt.sum(e, axis=-1, keepdims=True)


def np_where(x, y):
    return np.where(x < y, 2 * x, y - 1)


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_replayed_calls_match_numpy_on_new_data(mode):
    f = lt.jit(lambda x, y: lt.where(x < y, 2 * x, y - 1))
    before = counts()
    with lt.mode(mode):
        for seed in range(4):
            x, y = f32(seed, (1000,)), f32(seed + 10, (1000,))
            got = f(lt.asarray(x), lt.asarray(y))
            np.testing.assert_array_equal(got.numpy(), np_where(x, y))
    assert grew(before, "traced") == 1 and grew(before, "replayed") == 3


@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("name", ["gelu", "softmax", "quantize", "stats"])
def test_replayed_calls_are_the_bits_of_the_function(mode, name):
    fns = {
        "gelu": lambda x: lt.nn.gelu(x) + 1.0,
        "softmax": softmax,
        "quantize": lambda x: lt.astype(lt.clip(lt.round(x / 0.05) + 128, 0, 255), lt.uint8),
        "stats": lambda x: (lt.mean(x, axis=0), lt.max(lt.abs(x), axis=1, keepdims=True),
                            lt.sum(x * x)),
    }
    fn = fns[name]
    f = lt.jit(fn)
    before = counts()
    with lt.mode(mode):
        for seed in range(3):
            x = f32(seed, (4, 300))
            got, want = f(lt.asarray(x)), fn(lt.asarray(x))
            if isinstance(want, tuple):
                assert type(got) is tuple and len(got) == len(want)
                assert [bits(g) for g in got] == [bits(w) for w in want]
            else:
                assert bits(got) == bits(want)
    assert grew(before, "replayed") == 2


def test_softmax_against_float64():
    f = lt.jit(softmax)
    for seed in range(3):
        x = f32(seed, (3, 1024))
        x64 = x.astype(np.float64)
        e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
        np.testing.assert_allclose(f(lt.asarray(x)).numpy(), e / e.sum(axis=-1, keepdims=True),
                                   rtol=1e-6, atol=1e-12)


def test_a_new_signature_is_traced_afresh():
    f = lt.jit(lambda x, y: x * y + 1)
    before = counts()
    cases = [((5,), (5,)), ((2, 3), (3,)), ((2, 3), (2, 3)), ((0, 3), (3,)), ((), ())]
    for sx, sy in cases:
        x, y = f32(1, sx), f32(2, sy)
        np.testing.assert_array_equal(f(lt.asarray(x), lt.asarray(y)).numpy(), x * y + 1)
    x = f32(3, (3, 4))
    t = lt.asarray(np.ascontiguousarray(x.T)).T      # other strides: another kernel plan
    np.testing.assert_array_equal(f(t, t).numpy(), x * x + 1)
    np.testing.assert_array_equal(f(lt.asarray(x), lt.asarray(x)).numpy(), x * x + 1)
    i = np.arange(6, dtype=np.int32)
    np.testing.assert_array_equal(f(lt.asarray(i), lt.asarray(i)).numpy(), i * i + 1)
    assert grew(before, "traced") == len(cases) + 3


def test_the_same_tensor_twice_is_another_signature():
    f = lt.jit(lambda x, y: x - y)
    a, b = f32(1, (50,)), f32(2, (50,))
    ta = lt.asarray(a)
    np.testing.assert_array_equal(f(ta, ta).numpy(), np.zeros(50, np.float32))
    np.testing.assert_array_equal(f(lt.asarray(a), lt.asarray(b)).numpy(), a - b)
    np.testing.assert_array_equal(f(lt.asarray(b), lt.asarray(a)).numpy(), b - a)


def test_plain_arguments_are_part_of_the_key():
    f = lt.jit(lambda x, c, scale=1.0: x * c + scale)
    x = f32(1, (10,))
    t = lt.asarray(x)
    for c, scale in [(2.0, 1.0), (3.0, 1.0), (2.0, -0.5), (2, 1.0), (True, 1.0)]:
        want = lt.asarray(x) * c + scale
        assert bits(f(t, c, scale=scale)) == bits(want)
    # 0.0 and -0.0 are two keys: x * -0.0 keeps the sign rules
    assert bits(f(t, -0.0, scale=0.0)) == bits(lt.asarray(x) * -0.0 + 0.0)
    assert bits(f(t, 0.0, scale=0.0)) == bits(lt.asarray(x) * 0.0 + 0.0)


def test_data_dependent_control_flow_is_not_replayed():
    def fn(x):
        return x * 2 if float(lt.sum(x)) > 0 else x * 3

    f = lt.jit(fn)
    pos, neg = np.ones(8, np.float32), -np.ones(8, np.float32)
    np.testing.assert_array_equal(f(lt.asarray(pos)).numpy(), pos * 2)
    np.testing.assert_array_equal(f(lt.asarray(neg)).numpy(), neg * 3)
    np.testing.assert_array_equal(f(lt.asarray(pos)).numpy(), pos * 2)


def test_a_value_read_from_an_argument_is_not_frozen():
    fns = [(lambda x: x * float(x.numpy()[0]), lambda x: x * x[0]),
           (lambda x: x / x.numpy().max(), lambda x: x / x.max()),
           (lambda x: x + 1 if bool(x[0] > 0) else x - 1, lambda x: x + 1 if x[0] > 0 else x - 1)]
    for fn, ref in fns:
        f = lt.jit(fn)
        for seed in range(3):
            x = f32(seed, (5,))
            np.testing.assert_array_equal(f(lt.asarray(x)).numpy(), ref(x))
    inner = lt.jit(lambda x: x * 2 if bool(lt.max(x) > -100) else x)   # plain: it reads

    def outer(x):
        return inner(x) + float(x.numpy()[1])   # a read after an inner trace

    f = lt.jit(outer)
    for seed in range(3):
        x = f32(seed + 7, (4,))
        np.testing.assert_array_equal(f(lt.asarray(x)).numpy(), x * 2 + x[1])


@pytest.mark.parametrize("fn, ref", [
    (lambda x: lt.sort(x) + 1, lambda x: np.sort(x) + 1),             # a value made now
    (lambda x: x[1:] + 1, lambda x: x[1:] + 1),                       # a view of an argument
    (lambda x: lt.asarray(np.asarray(x)) * 2, lambda x: x * 2),       # an array made now
    (lambda x: lt.reshape(lt.max(x, axis=0, keepdims=True), (-1,)) + x,
     lambda x: x.max(axis=0) + x),                                    # a pending reshape
])
def test_traces_that_read_values_are_called_every_time(fn, ref):
    f = lt.jit(fn)
    before = counts()
    for seed in range(3):
        x = f32(seed, (6,))
        np.testing.assert_array_equal(np.asarray(f(lt.asarray(x))), ref(x))
    assert grew(before, "replayed") == 0 and grew(before, "plain") == 2


def test_a_tensor_from_outside_is_not_frozen():
    w = lt.asarray(np.arange(4, dtype=np.float32))
    f = lt.jit(lambda x: x + w)
    x = f32(1, (4,))
    np.testing.assert_array_equal(f(lt.asarray(x)).numpy(), x + np.arange(4, dtype=np.float32))
    w = lt.asarray(np.full(4, 10, dtype=np.float32))     # the closure now reads another tensor
    np.testing.assert_array_equal(f(lt.asarray(x)).numpy(), x + np.float32(10))


def test_an_argument_changed_in_place_is_changed_every_call():
    def fn(x):
        x += 1
        return x * 2

    f = lt.jit(fn)
    for seed in range(3):
        x = f32(seed, (5,))
        x0 = x.copy()
        t = lt.asarray(x)               # x's memory: NumPy's x += 1 writes into x
        np.testing.assert_array_equal(f(t).numpy(), (x0 + 1) * 2)
        np.testing.assert_array_equal(t.numpy(), x0 + 1)
        np.testing.assert_array_equal(x, x0 + 1)
        u = lt.asarray(x0) * 1          # memory of no one's: the jit's replay rebinds it
        np.testing.assert_array_equal(f(u).numpy(), (x0 + 1) * 2)
        np.testing.assert_array_equal(u.numpy(), x0 + 1)


def test_returned_arguments_and_constants():
    f = lt.jit(lambda x, y: (x, y + 1, x * 0 + 2))
    for seed in range(3):
        x, y = f32(seed, (3,)), f32(seed + 5, (3,))
        tx, ty = lt.asarray(x), lt.asarray(y)
        a, b, c = f(tx, ty)
        assert a is tx
        np.testing.assert_array_equal(b.numpy(), y + 1)
        np.testing.assert_array_equal(c.numpy(), x * 0 + 2)
    g = lt.jit(lambda x: [x * 2])
    out = g(lt.asarray(np.ones(2, np.float32)))
    out = g(lt.asarray(np.ones(2, np.float32)))
    assert type(out) is list and out[0].numpy().tolist() == [2.0, 2.0]


def test_pending_arguments_are_evaluated_first():
    f = lt.jit(lambda x: x * 3)
    for seed in range(3):
        x = f32(seed, (7,))
        pending = lt.asarray(x) + 1
        np.testing.assert_array_equal(f(pending).numpy(), (x + 1) * 3)


def test_arguments_that_cannot_be_keys_call_the_function():
    f = lt.jit(lambda x, y: x + lt.asarray(np.asarray(y, np.float32)))
    before = counts()
    x = f32(1, (3,))
    for y in (np.ones(3, np.float32), [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]):
        np.testing.assert_array_equal(f(lt.asarray(x), y).numpy(), x + np.asarray(y, np.float32))
    assert grew(before, "traced") == 0 and grew(before, "plain") == 3


def test_misaligned_arguments_are_not_replayed():
    f = lt.jit(lambda x: x * 2)
    before = counts()
    raw = np.zeros(5 * 8 + 1, np.uint8)
    for seed in range(2):
        x = f32(seed, (8,))
        raw[1:33] = x.view(np.uint8)           # misaligned start
        view = np.frombuffer(raw.data, dtype=np.float32, count=8, offset=1)
        np.testing.assert_array_equal(f(lt.asarray(view, copy=False)).numpy(), x * 2)
        for i in range(8):                     # aligned start, a stride of 5 bytes
            raw[5 * i:5 * i + 4] = x[i:i + 1].view(np.uint8)
        first = np.frombuffer(raw.data, np.float32, count=1)      # raw's byte 0
        odd = np.lib.stride_tricks.as_strided(first, shape=(8,), strides=(5,))
        np.testing.assert_array_equal(f(lt.asarray(odd, copy=False)).numpy(), x * 2)
    assert grew(before, "replayed") == 0


def test_empty_reductions_fill_their_identity():
    f = lt.jit(lambda x: (lt.sum(x, axis=0), lt.prod(x, axis=0), lt.max(x, axis=1)))
    for _ in range(2):
        s, p, m = f(lt.asarray(np.zeros((0, 3), np.float32)))
        assert s.numpy().tolist() == [0, 0, 0] and p.numpy().tolist() == [1, 1, 1]
        assert m.shape == (0,)


def test_large_calls_keep_the_row_blocks():
    f = lt.jit(softmax)
    rows = _rows.MIN_ELEMENTS // 512 + 8
    x = f32(0, (rows, 1024))
    want = softmax(lt.asarray(x))
    assert bits(f(lt.asarray(x))) == bits(want)
    assert bits(f(lt.asarray(x))) == bits(want)
    assert list(f.programs.values()) == [_jit.PLAIN]


def test_a_busy_kernel_falls_back_to_python():
    f = lt.jit(lambda x: lt.exp(x) - 1)
    x = f32(1, (100,))
    f(lt.asarray(x))
    program = next(iter(f.programs.values()))
    kernel = program.steps[0].kernel
    before = counts()
    with kernel._busy:                       # as if another thread were running it
        got = f(lt.asarray(x))
    assert bits(got) == bits(lt.exp(lt.asarray(x)) - 1)
    assert grew(before, "replayed") == 1


def test_threads_share_a_jitted_function():
    f = lt.jit(lambda x: lt.tanh(x) * x + 1)
    data = [f32(seed, (2000,)) for seed in range(8)]
    want = [bits(lt.tanh(lt.asarray(x)) * lt.asarray(x) + 1) for x in data]
    errors = []

    def work(k):
        try:
            for _ in range(50):
                for i in range(k % 2, len(data), 2):
                    assert bits(f(lt.asarray(data[i]))) == want[i]
        except AssertionError as exc:      # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_modes_and_threads_are_read_at_each_call():
    f = lt.jit(lambda x: lt.exp(x) * x)
    x = lt.asarray(f32(2, (3000,), 1.0))
    with lt.mode("exact"):
        exact = bits(f(x))
        assert exact == bits(lt.exp(x) * x)
    with lt.mode("fast"):
        assert bits(f(x)) == bits(lt.exp(x) * x)
    with lt.mode("exact"):
        n = lt.get_num_threads()
        lt.set_num_threads(1)
        try:
            assert bits(f(x)) == exact
        finally:
            lt.set_num_threads(n)


def test_stale_kernels_are_not_shared_with_other_functions():
    f, g = lt.jit(lambda x: x + 1), lt.jit(lambda x: x + 2)
    x = lt.asarray(np.zeros(3, np.float32))
    for _ in range(2):
        assert f(x).numpy().tolist() == [1, 1, 1]
        assert g(x).numpy().tolist() == [2, 2, 2]
    _kernel.clear_cache()
    assert f(x).numpy().tolist() == [1, 1, 1]


def _write_first(x):
    x[0] = 5.0
    return x * 2


def _write_through_view(x):
    v = x[1:3]
    v += 1
    return x * 2


def _in_place(x):
    x += 1
    return x * 2


@pytest.mark.parametrize("fn", [_write_first, _write_through_view, _in_place])
@pytest.mark.parametrize("source", ["caller", "computed", "viewed"])
def test_writes_inside_a_jitted_function_happen_every_call(fn, source):
    """A jitted function that writes into a tensor's memory is run again each call (a write
    is not replayed from a trace): every call gives NumPy's result and NumPy's writes."""
    f = lt.jit(fn)
    for seed in range(4):
        a = f32(seed, (6,))
        ref = a.copy()
        want = fn(ref)
        if source == "caller":
            t = lt.asarray(a)
        else:
            t = lt.asarray(a.copy()) * 1
        view = t[0:3] if source == "viewed" else None
        np.testing.assert_array_equal(f(t).numpy(), want)
        np.testing.assert_array_equal(t.numpy(), ref)
        if view is not None:
            np.testing.assert_array_equal(view.numpy(), ref[0:3])
