"""Random programs of views, writes, in-place operators, copies and pending reads, run on
lazytensor and on NumPy side by side (docs/memory-model.md): every value read must be NumPy's,
every error NumPy's kind, and ``np.shares_memory`` NumPy's answer.

Each program keeps pairs (lazytensor object, NumPy object) made by the same steps: bases
(the caller's memory, or computed), views of views, broadcast (read-only) views, copies,
arrays handed out by ``np.asarray``, and pending results recorded from them.  A pending
result is read only at the end, after the writes that followed it: it must give the value
NumPy computed when it was written.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, initialize, invariant,
                                 precondition, rule)

import lazytensor as lt


def _slice_key(draw, shape):
    key = []
    for n in shape:
        kind = draw(st.sampled_from(["all", "range", "step", "int"] if n else ["all"]))
        if kind == "all":
            key.append(slice(None))
        elif kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        else:
            a, b = sorted(draw(st.lists(st.integers(-n - 1, n + 1), min_size=2, max_size=2)))
            step = draw(st.sampled_from([1, 2, -1, -2])) if kind == "step" else 1
            key.append(slice(a, b, step) if step > 0 else slice(b, a, step))
    return tuple(key)


def _same_error(fn_lt, fn_np):
    """Run both; both succeed, or both raise (the same kind of error)."""
    try:
        want = fn_np()
    except (ValueError, IndexError, TypeError) as exc:
        with pytest.raises((type(exc), ValueError, IndexError, TypeError)):
            fn_lt()
        return None, None
    return fn_lt(), want


class ViewPrograms(RuleBasedStateMachine):
    """One program: pairs of aliases, written and read in a random order."""

    pairs = Bundle("pairs")

    def __init__(self):
        super().__init__()
        self.all = []            # every (lt, np) pair made, for the final reads
        self.pending = []        # (lt result recorded earlier, NumPy's value then)

    def _raw_write(self, t):
        """A write through a NumPy array handed out cannot be seen by lazytensor: as
        documented, pending work that reads that memory is evaluated first."""
        if isinstance(t, np.ndarray) and self.pending:
            lt.eval(*[p for p, _ in self.pending])

    def _keep(self, t, a):
        self.all.append((t, a))
        return (t, a)

    @initialize(target=pairs, shape=st.sampled_from([(4, 5), (6,), (2, 3, 4)]),
                dtype=st.sampled_from(["float64", "int32"]), how=st.sampled_from(
                    ["caller", "computed", "zeros"]), seed=st.integers(0, 2**16))
    def base(self, shape, dtype, how, seed):
        a = (np.random.default_rng(seed).integers(-9, 9, shape)).astype(dtype)
        if how == "caller":         # the caller's memory, given without a copy
            return self._keep(lt.asarray(a.copy()), a)
        if how == "zeros":
            return self._keep(lt.zeros(shape, dtype=dtype), np.zeros(shape, dtype))
        return self._keep(lt.asarray(a.copy()) * 2, a * 2)

    @rule(target=pairs, src=pairs, data=st.data())
    def basic_view(self, src, data):
        t, a = src
        key = _slice_key(data.draw, a.shape)
        if len(key) == a.ndim and all(type(k) is int for k in key):
            key = key + (Ellipsis,)    # x[i, j] is a scalar (a copy) in NumPy
        return self._keep(t[key], a[key])

    @rule(target=pairs, src=pairs, data=st.data())
    def view_of_a_temporary(self, src, data):
        t, a = src                       # the view outlives the pending tensor it is of
        key = _slice_key(data.draw, a.shape) + (Ellipsis,)
        return self._keep((lt.asarray(t) * 1)[key], (a * 1)[key])

    @rule(target=pairs, src=pairs, how=st.sampled_from(
        ["T", "flip", "newaxis", "reshape", "squeeze", "moveaxis", "real"]))
    def layout_view(self, src, how):
        t, a = src
        if how == "T":
            return self._keep(t.T, a.T)
        if how == "flip" and a.ndim:      # (NumPy's flip of a 0-d array is a scalar)
            return self._keep(lt.flip(t, axis=0), np.flip(a, axis=0))
        if how == "newaxis":
            return self._keep(t[None], a[None])
        if how == "squeeze":
            return self._keep(lt.squeeze(t[None]), np.squeeze(a[None]))
        if how == "moveaxis" and a.ndim >= 2:
            return self._keep(lt.moveaxis(t, 0, -1), np.moveaxis(a, 0, -1))
        if how == "real":
            return self._keep(t.real, a.real)
        # reshape: a view where NumPy's is (a C-contiguous array's), else a copy in both
        return self._keep(t.reshape(-1), a.reshape(-1))

    @rule(target=pairs, src=pairs)
    def broadcast_view(self, src):
        t, a = src
        shape = (3,) + a.shape
        return self._keep(lt.broadcast_to(t, shape), np.broadcast_to(a, shape))

    @rule(target=pairs, src=pairs)
    def broadcast_of_a_temporary(self, src):
        t, a = src                       # read-only, also once its base is gone
        shape = (2,) + a.shape
        return self._keep(lt.broadcast_to(lt.asarray(t) * 1, shape),
                          np.broadcast_to(a * 1, shape))

    @rule(target=pairs, src=pairs, how=st.sampled_from(["copy", "astype", "asarray_copy"]))
    def copy(self, src, how):
        t, a = src
        if how == "copy":
            return self._keep(t.copy(), a.copy())
        if how == "astype":        # (a copy's layout is row-major: NumPy's order="C")
            return self._keep(t.astype(t.dtype), a.astype(a.dtype, order="C"))
        return self._keep(lt.asarray(t, copy=True), np.asarray(a).copy())

    @rule(target=pairs, src=pairs)
    def handed_out(self, src):
        t, a = src
        out = np.asarray(t)
        assert out.flags.writeable == a.flags.writeable
        return self._keep(out, a)     # an array: a write into it is a write into t

    @rule(src=pairs, other=pairs, op=st.sampled_from(["mul", "add_other", "neg"]))
    def record_pending(self, src, other, op):
        t, a = src
        u, b = other
        if op == "mul":
            self.pending.append((lt.asarray(t) * 3 + 1, a * 3 + 1))
        elif op == "neg":
            self.pending.append((-lt.asarray(t), -a))
        else:
            try:
                want = a + b
            except ValueError:           # shapes that do not broadcast
                return
            self.pending.append((lt.asarray(t) + lt.asarray(u), want))

    @rule(dst=pairs, data=st.data(), value=st.integers(-5, 5))
    def write_basic(self, dst, data, value):
        t, a = dst
        key = _slice_key(data.draw, a.shape)

        def np_write():
            a[key] = value

        def lt_write():
            t[key] = value
        self._raw_write(t)
        _same_error(lt_write, np_write)

    @rule(dst=pairs, src=pairs, data=st.data())
    def write_array(self, dst, src, data):
        t, a = dst
        u, b = src
        key = _slice_key(data.draw, a.shape)
        try:
            shape = a[key].shape
            value_np = np.broadcast_to(b.reshape(-1)[:1], shape) if b.size else None
        except (ValueError, IndexError):
            return
        if value_np is None:
            return
        # the value read from (possibly the same) memory, before the write: NumPy's rule
        value_lt = lt.broadcast_to(lt.asarray(u).reshape(-1)[:1], shape)

        def np_write():
            a[key] = value_np

        def lt_write():
            t[key] = value_lt
        self._raw_write(t)
        _same_error(lt_write, np_write)

    @rule(dst=pairs, data=st.data())
    def write_fancy(self, dst, data):
        t, a = dst
        if a.ndim == 0 or a.shape[0] == 0:
            return
        n = a.shape[0]
        idx = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
        self._raw_write(t)
        if data.draw(st.booleans()):
            mask = a > 0
            key = lt.asarray(mask) if isinstance(t, lt.Tensor) else mask

            def np_write():
                a[mask] = 7

            def lt_write():
                t[key] = 7
        else:
            key = lt.asarray(idx) if isinstance(t, lt.Tensor) else idx

            def np_write():
                a[idx] += 1                # a repeated index adds once, as NumPy's does

            def lt_write():
                t[key] += 1
        _same_error(lt_write, np_write)

    @rule(dst=pairs, op=st.sampled_from(["iadd", "imul", "isub_self"]))
    def inplace(self, dst, op):
        t, a = dst

        def run(x):
            if op == "iadd":
                x += 2
            elif op == "imul":
                x *= 3
            else:
                x -= x[..., :1] if x.ndim else x
            return x
        self._raw_write(t)
        _same_error(lambda: run(t), lambda: run(a))

    @rule(x=pairs, y=pairs)
    def same_memory(self, x, y):
        assert np.shares_memory(x[0], y[0]) == np.shares_memory(x[1], y[1])

    @precondition(lambda self: self.all)
    @invariant()
    def a_read_is_numpys(self):
        t, a = self.all[-1]
        np.testing.assert_array_equal(np.array(t) if isinstance(t, lt.Tensor) else t, a)

    def teardown(self):
        for t, a in self.all:
            got = t.numpy() if isinstance(t, lt.Tensor) else t
            np.testing.assert_array_equal(got, a)
        for t, want in self.pending:
            np.testing.assert_array_equal(t.numpy(), want)


ViewPrograms.TestCase.settings = settings(
    max_examples=2500, stateful_step_count=12, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    report_multiple_bugs=False)
TestViewPrograms = ViewPrograms.TestCase


def test_programs_in_threads_match_numpy():
    """Each thread runs its own programs (its own tensors) against its own NumPy run."""
    errors = []

    def work(seed):
        try:
            rng = np.random.default_rng(seed)
            for _ in range(30):
                a = rng.integers(-9, 9, (8, 6)).astype(np.float64)
                x = lt.asarray(a.copy()) * 2
                ref = a * 2
                pending = x * 3
                ref_pending = ref * 3
                i = int(rng.integers(0, 6))
                v, rv = x[1:, i], ref[1:, i]
                v += 1
                rv += 1
                out = np.asarray(x)
                out[0, :] = -1
                ref[0, :] = -1
                x.T[i] *= 2
                ref.T[i] *= 2
                np.testing.assert_array_equal(x.numpy(), ref)
                np.testing.assert_array_equal(pending.numpy(), ref_pending)
        except Exception as exc:         # reported by the main thread
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]


@pytest.mark.parametrize("memory_backed", [False, True])
def test_results_recorded_before_a_hand_out_keep_their_values(memory_backed):
    """Writes through an array np.asarray handed out are not seen by lazytensor; work recorded
    before the hand-out gets a copy of what it read then (SciPy's ndimage writes into
    np.asarray(output) while results read from it are pending)."""
    a = lt.reshape(lt.arange(4.0), (2, 2))
    if memory_backed:
        a[0, 0] = 0.0                       # a's value is its memory already
    e = 2 * a
    buf = np.asarray(a)
    buf *= 2
    np.testing.assert_array_equal(e.numpy(), [[0, 2], [4, 6]])
    np.testing.assert_array_equal(a.numpy(), [[0, 2], [4, 6]])


def test_a_read_view_of_a_dropped_temporary_keeps_its_values():
    """Found by the state machine: x.base kept the pending temporary alive, so asking about
    memory after a write through NumPy computed the temporary then, and the view, already
    read, took the new values.  NumPy's view of the temporary keeps the old ones."""
    a = np.arange(6.0) - 3
    out = np.asarray(lt.asarray(a.copy()))
    v = (lt.asarray(out) * 1)[1:]
    nv = (a * 1)[1:]
    np.testing.assert_array_equal(np.array(v), nv)
    out += 2
    a += 2
    assert np.shares_memory(v, out) == np.shares_memory(nv, a)
    np.testing.assert_array_equal(np.array(v), nv)
