"""The mode belongs to the op: an op computes in the mode it was recorded in, whatever the
mode when its value is computed, whichever equal expression was evaluated first, in which
thread, through which path (quick, plan, jit, memo).  References are single ops evaluated
alone, each in its own mode, on fresh leaves (so nothing is shared with the program under
test but the compiled kernels, whose keys must tell the modes apart)."""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt

N = 300          # more than one chunk of 256, with a tail

UNARY = {
    "exp": lambda a: lt.exp(a),
    "log1p_abs": lambda a: lt.log1p(lt.abs(a)),
    "tanh": lambda a: lt.tanh(a),
    "sin": lambda a: lt.sin(a),
    "erf": lambda a: lt.erf(a),
    "sigmoid": lambda a: lt.nn.sigmoid(a),
    "gelu": lambda a: lt.nn.gelu(a),
    "div3": lambda a: a / 3.0,            # fast mode multiplies by the reciprocal
}
BINARY = {
    "add": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b,
}
MODES = ("exact", "fast")


def _bits(a):
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _assert_same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    bad = _bits(got) != _bits(want)
    both_nan = np.isnan(got) & np.isnan(want)
    assert not (bad & ~both_nan).any(), f"{what}: {int((bad & ~both_nan).sum())} elements differ"


def _inputs(seed, dtype):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(N) * 2).astype(dtype) for _ in range(2)]


@st.composite
def programs(draw):
    """A list of steps (kind, name, mode, operand positions); positions 0 and 1 are the
    inputs, position k + 2 the result of step k."""
    steps = []
    for k in range(draw(st.integers(2, 6))):
        avail = k + 2
        if draw(st.booleans()):
            steps.append(("u", draw(st.sampled_from(sorted(UNARY))), draw(st.sampled_from(MODES)),
                          (draw(st.integers(0, avail - 1)),)))
        else:
            steps.append(("b", draw(st.sampled_from(sorted(BINARY))), draw(st.sampled_from(MODES)),
                          (draw(st.integers(0, avail - 1)), draw(st.integers(0, avail - 1)))))
    return steps


def _apply(step, operands):
    kind, name, _, _ = step
    return (UNARY if kind == "u" else BINARY)[name](*operands)


def _references(steps, arrays):
    """Each step's value computed alone, in its own mode, on fresh leaves."""
    values = list(arrays)
    for step in steps:
        with lt.mode(step[2]):
            out = _apply(step, [lt.asarray(values[p].copy()) for p in step[3]])
            values.append(out.numpy())
    return values


def _record(steps, arrays):
    tensors = [lt.asarray(a) for a in arrays]
    for step in steps:
        with lt.mode(step[2]):
            tensors.append(_apply(step, [tensors[p] for p in step[3]]))
    return tensors


@settings(max_examples=40, deadline=None)
@given(steps=programs(), seed=st.integers(0, 2**16), dtype=st.sampled_from([np.float32, np.float64]),
       reads=st.lists(st.tuples(st.integers(0, 7), st.sampled_from(MODES), st.booleans()),
                      min_size=1, max_size=4),
       twin_first=st.booleans())
def test_mixed_mode_programs_keep_each_ops_mode(steps, seed, dtype, reads, twin_first):
    arrays = _inputs(seed, dtype)
    want = _references(steps, arrays)
    if twin_first:
        # the same program with every mode flipped, evaluated first: equal expressions of
        # the other mode must not give their bits to the program under test
        flipped = [(k, n, "fast" if m == "exact" else "exact", p) for k, n, m, p in steps]
        lt.eval(*_record(flipped, arrays)[2:])
    got = _record(steps, arrays)
    for pos, ambient, in_thread in reads:
        pos = 2 + pos % len(steps)
        box = {}

        def read():
            with lt.mode(ambient):        # the mode in force when the value is read
                box["v"] = got[pos].numpy()

        if in_thread:
            t = threading.Thread(target=read)
            t.start()
            t.join()
        else:
            read()
        _assert_same_bits(box["v"], want[pos], f"step {pos - 2} of {steps}")


def test_equal_expression_evaluated_in_fast_mode_does_not_leak_into_exact():
    x = lt.asarray(np.random.default_rng(1).standard_normal(100_001).astype(np.float32))
    p = lt.exp(x)
    q = lt.exp(x)                         # recorded in exact mode, like p
    with lt.mode("fast"):
        p.numpy()
        fast = lt.exp(x).numpy()          # recorded in fast mode
    alone = lt.exp(lt.asarray(np.array(x))).numpy()
    _assert_same_bits(q.numpy(), alone, "exp recorded in exact mode")
    _assert_same_bits(p.numpy(), alone, "exp recorded in exact mode, read in fast mode")
    assert (_bits(fast) != _bits(alone)).any(), "fast exp should differ somewhere (test bug)"


def test_reading_in_another_mode_does_not_change_the_result():
    x = np.random.default_rng(2).standard_normal(5000).astype(np.float32)
    with lt.mode("fast"):
        want_fast = lt.tanh(lt.asarray(x.copy())).numpy()
    want_exact = lt.tanh(lt.asarray(x.copy())).numpy()
    t_exact = lt.tanh(lt.asarray(x))
    with lt.mode("fast"):
        t_fast = lt.tanh(lt.asarray(x))
        _assert_same_bits(t_exact.numpy(), want_exact, "exact op read in fast mode")
    _assert_same_bits(t_fast.numpy(), want_fast, "fast op read in exact mode")


@pytest.mark.parametrize("first", MODES)
def test_jit_traces_per_mode(first):
    f = lt.jit(lambda a, b: lt.exp(a) * lt.tanh(b) + a / 3.0)
    x, y = _inputs(3, np.float32)
    want = {}
    for m in MODES:
        with lt.mode(m):
            want[m] = (lt.exp(lt.asarray(x.copy())) * lt.tanh(lt.asarray(y.copy()))
                       + lt.asarray(x.copy()) / 3.0).numpy()
    order = [first, *[m for m in MODES if m != first]] * 2     # traced, then replayed
    for m in order:
        with lt.mode(m):
            got = f(lt.asarray(x), lt.asarray(y))
        _assert_same_bits(got.numpy(), want[m], f"jit in {m} mode")


@pytest.mark.parametrize("first", MODES)
def test_memoized_functions_record_in_the_callers_mode(first):
    x = np.random.default_rng(4).standard_normal(1000).astype(np.float32)
    want = {}
    for m in MODES:
        with lt.mode(m):
            want[m] = lt.mean(lt.exp(lt.asarray(x.copy())) / 3.0).numpy()
    for m in [first, *[m for m in MODES if m != first]] * 2:
        with lt.mode(m):
            got = lt.mean(lt.exp(lt.asarray(x)) / 3.0)
        _assert_same_bits(got.numpy(), want[m], f"mean in {m} mode")
