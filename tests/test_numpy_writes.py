"""Writes into tensors from the NumPy layer (``out=``, ``ufunc.at``, ``np.copyto`` and the
other writing functions, in-place methods, ``random`` ``shuffle``/``out=``): each program
runs on NumPy arrays and on tensors, and must give NumPy's values, dtypes, returned
objects (the out itself) and errors' kinds.

Each program takes ``(xp, a)``: ``xp`` is ``numpy`` or ``lazytensor`` (for the functions
called through the module), ``a`` a 2x3 float64 array of that kind.  It returns a tuple of
arrays and booleans; arrays are compared by value and dtype, booleans as they are (an
identity such as ``np.add(a, b, out=t) is t``).  The tensor ``a`` is either pending (a
computed value that nothing else sees: writes may stay lazy) or memory-backed (made from a
NumPy array without a copy): both are run.
"""

import numpy as np
import pytest

import lazytensor as lt

A = np.array([[3.0, -1.0, 2.0], [0.5, -2.0, 4.0]])


def _run(program, xp, kind):
    if xp is np:
        a = A.copy()
    elif kind == "pending":
        a = lt.asarray(A) * 1.0            # a computed value: nothing else sees it
    else:
        a = lt.asarray(A.copy())           # memory-backed (the NumPy array's memory)
    try:
        return program(xp, a), None
    except Exception as exc:                # noqa: BLE001  (compared with NumPy's)
        return None, exc


def _check(program, kind):
    want, want_exc = _run(program, np, kind)
    got, got_exc = _run(program, lt, kind)
    if want_exc is not None:
        assert got_exc is not None, f"NumPy raised {want_exc!r}, lazytensor did not"
        base = next(k for k in (IndexError, ValueError, TypeError) if isinstance(want_exc, k))
        assert isinstance(got_exc, base), f"NumPy: {want_exc!r}; lazytensor: {got_exc!r}"
        return
    assert got_exc is None, f"lazytensor raised {got_exc!r}, NumPy gave {want!r}"
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, (bool, np.bool_)) or w is None:
            assert g == w
        else:
            gv = np.asarray(g)
            assert gv.dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(gv, w)


def _ufunc_out(xp, a):
    t = a[0] * 0
    r = np.add(a[0], a[1], out=t)
    return t, r is t, a


def _ufunc_out_self(xp, a):
    r = np.multiply(a, 2, out=a)
    return a, r is a


def _ufunc_out_tuple(xp, a):
    t = a * 0
    r = np.add(a, 1, out=(t,))
    return t, r is t


def _ufunc_two_outs(xp, a):
    q, m = a * 0, a * 0
    r = np.divmod(a, 0.7, out=(q, m))
    return q, m, r[0] is q, r[1] is m


def _ufunc_one_of_two_outs(xp, a):
    m = a * 0
    q, r = np.divmod(a, 0.7, out=(None, m))
    return q, m, r is m


def _ufunc_out_view(xp, a):
    v = a[:, ::2]
    r = np.add(v, 10, out=v)
    return a, v, r is v


def _ufunc_out_broadcast(xp, a):
    r = np.add(a[0], 1, out=a)          # the inputs broadcast to out's shape
    return a, r is a


def _ufunc_out_cast(xp, a):
    t = xp.zeros((2, 3), dtype=xp.float32)
    r = np.sqrt(abs(a), out=t)
    return t, r is t


def _ufunc_out_int_from_bool(xp, a):
    t = xp.zeros((2, 3), dtype=xp.int64)
    np.greater(a, 0, out=t)
    return (t,)


def _ufunc_out_bad_cast(xp, a):
    np.add(a, 1.5, out=xp.zeros((2, 3), dtype=xp.int64))


def _ufunc_out_bad_shape(xp, a):
    np.add(a, 1, out=xp.zeros(3))


def _ufunc_out_where(xp, a):
    t = a * 0
    r = np.add(a, 1, out=t, where=np.array([True, False, True]))
    return t, r is t


def _ufunc_out_casting_unsafe(xp, a):
    t = xp.zeros((2, 3), dtype=xp.int64)
    r = np.add(a, 1.5, out=t, casting="unsafe")
    return t, r is t


def _ufunc_out_read_only(xp, a):
    np.add(a[0], 1, out=xp.broadcast_to(a[0], (2, 3)))


def _ufunc_out_diagonal(xp, a):
    d = xp.diagonal(a) if xp is lt else a.diagonal()
    np.negative(d, out=d)


def _pending_reader_keeps_value(xp, a):
    before = a * 2                      # pending on lazytensor: read before the write
    np.add(a, 1, out=a)
    return before, a


def _pending_reader_of_view(xp, a):
    v = a[1]
    s = v + 0
    np.multiply(a, 0, out=a)
    return s, v, a


def _add_at(xp, a):
    f = a.ravel() if xp is np else xp.reshape(a, (-1,))
    r = np.add.at(f, [0, 0, 2, 5], 1.0)          # repeated indices accumulate
    return f, a, r is None


def _multiply_at_2d(xp, a):
    np.multiply.at(a, (np.array([0, 0, 1]), np.array([1, 1, 2])), 3.0)
    return (a,)


def _negative_at(xp, a):
    np.negative.at(a, (0, slice(None)))
    return (a,)


def _at_pending_reader(xp, a):
    before = a.sum()
    np.subtract.at(a, [1, 1], 2.0)
    return before, a


def _reduce_out(xp, a):
    t = xp.zeros(3)
    r = np.add.reduce(a, axis=0, out=t)
    return t, r is t


def _sum_out(xp, a):
    t = xp.zeros(2)
    r = np.sum(a, axis=1, out=t)
    return t, r is t


def _sum_out_int(xp, a):
    t = xp.zeros(3, dtype=xp.int64)     # a reduction casts into out unsafely, as NumPy
    r = np.sum(a, axis=0, out=t)
    return t, r is t


def _sum_method_out(xp, a):
    t = xp.zeros(3)
    r = a.sum(axis=0, out=t)
    return t, r is t


def _max_method_out_view(xp, a):
    t = xp.zeros((2, 4))
    r = a.max(axis=1, out=t[:, 1])
    return t, r


def _mean_out_0d(xp, a):
    t = xp.zeros(())
    r = np.mean(a, out=t)
    return t, r is t


def _sum_out_bad_shape(xp, a):
    a.sum(axis=0, out=xp.zeros(2))


def _cumsum_out(xp, a):
    t = xp.zeros((2, 3))
    r = np.cumsum(a, axis=1, out=t)
    return t, r is t


def _clip_out_self(xp, a):
    r = a.clip(-1, 1, out=a)
    return a, r is a


def _dot_out(xp, a):
    t = xp.zeros((2, 2))
    r = xp.dot(a, a.T, out=t)
    return t, r is t


def _take_out(xp, a):
    t = xp.zeros(2)
    r = xp.take(a, [0, 4], out=t)
    return t, r is t


def _nansum_out(xp, a):
    t = xp.zeros(3)
    r = xp.nansum(a, axis=0, out=t)
    return t, r is t


def _median_out(xp, a):
    t = xp.zeros(3)
    r = np.median(a, axis=0, out=t)
    return t, r is t


def _fft_out(xp, a):
    t = xp.zeros(3, dtype=xp.complex128)
    r = xp.fft.fft(a[0], out=t)
    return t, r is t


def _copyto(xp, a):
    xp.copyto(a, np.array([1.0, 2.0, 3.0]))
    return (a,)


def _copyto_where(xp, a):
    src = a * 10
    r = np.copyto(a, src, where=np.array([[True, False, True], [False, True, False]]))
    return a, src, r is None


def _copyto_into_view(xp, a):
    np.copyto(a[:, 1], 7)
    return (a,)


def _copyto_bad_cast(xp, a):
    np.copyto(xp.zeros(3, dtype=xp.int64), a[0])


def _copyto_read_only(xp, a):
    np.copyto(xp.broadcast_to(a[0], (2, 3)), 1.0)


def _copyto_tensor_into_ndarray(xp, a):
    dst = np.zeros((2, 3))
    np.copyto(dst, a)
    return (dst,)


def _place(xp, a):
    np.place(a, a > 0, [10.0, 20.0])
    return (a,)


def _putmask(xp, a):
    xp.putmask(a, a < 0, a * 100)
    return (a,)


def _put(xp, a):
    np.put(a, [0, -1, 2], [7.0, 8.0, 9.0])
    return (a,)


def _put_wrap(xp, a):
    xp.put(a, [7, -9], 5.0, mode="wrap")
    return (a,)


def _put_out_of_bounds(xp, a):
    np.put(a, [6], 1.0)


def _fill_diagonal(xp, a):
    m = xp.zeros((3, 3)) + 1
    np.fill_diagonal(m, [4.0, 5.0, 6.0])
    xp.fill_diagonal(a, 0)
    return m, a


def _put_along_axis(xp, a):
    idx = np.array([[2], [0]])
    np.put_along_axis(a, idx, -5.0, axis=1)
    return (a,)


def _fill(xp, a):
    v = a[1]
    r = v.fill(4)
    return a, r is None


def _fill_int_tensor(xp, a):
    t = xp.zeros(3, dtype=xp.int32)
    t.fill(2.7)
    return (t,)


def _sort_method(xp, a):
    before = a + 0
    r = a.sort(axis=0)
    return a, before, r is None


def _sort_view(xp, a):
    v = a[0]
    v.sort()
    return (a,)


def _partition_method(xp, a):
    f = a.reshape(-1)
    f.partition(2)
    return (np.sort(f[:2]), f[2], np.sort(f[3:]), a[0, 0] == f[0])


def _put_method(xp, a):
    a.put([1, 4], [9.0, 8.0])
    return (a,)


def _flat_setitem(xp, a):
    a.T.flat[[0, 1]] = [-7.0, -8.0]
    return (a,)


def _sort_read_only(xp, a):
    xp.broadcast_to(a[0], (2, 3)).sort()


def _through_transpose(xp, a):
    np.add(a.T, 1, out=a.T)
    np.copyto(a.T[0], 0.0)
    return (a,)


PROGRAMS = [f for name, f in sorted(globals().items()) if name.startswith("_")
            and callable(f) and name not in ("_run", "_check")
            and getattr(f, "__module__", None) == __name__]


@pytest.mark.parametrize("kind", ["pending", "memory"])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__.lstrip("_"))
def test_write_as_numpy(program, kind):
    _check(program, kind)


def test_lazy_out_stays_pending():
    """An out tensor nothing else sees takes the result's node: nothing runs."""
    a = lt.asarray(A) * 1.0
    t = a * 0
    r = np.add(a, 1, out=t)
    assert r is t and t._node.value is None
    np.testing.assert_array_equal(np.asarray(t), A + 1)


def test_writes_reach_a_handed_out_array():
    """A tensor whose memory was handed out is written in place: the array sees it."""
    t = lt.zeros(4)
    arr = np.asarray(t)
    np.add.at(t, [1, 1], 2.0)
    t.sort()
    np.copyto(t[:1], 5.0)
    np.testing.assert_array_equal(arr, [5.0, 0.0, 0.0, 4.0])


@pytest.mark.parametrize("draw", [
    lambda g, t: g.random(out=t), lambda g, t: g.standard_normal(out=t),
    lambda g, t: g.standard_exponential(out=t), lambda g, t: g.standard_gamma(2.0, out=t),
])
def test_random_out(draw):
    t = lt.zeros((2, 3))
    r = draw(lt.random.default_rng(5), t)
    a = np.zeros((2, 3))
    draw(np.random.default_rng(5), a)
    assert r is t
    np.testing.assert_array_equal(np.asarray(t), a)


@pytest.mark.parametrize("make", [lambda xp: xp.zeros((2, 3), dtype=xp.int64),
                                  lambda xp: xp.zeros((4, 3))[::2]])
def test_random_out_errors(make):
    """A wrong dtype or a strided out: NumPy's error, from NumPy's own check."""
    with pytest.raises(Exception) as npe:
        np.random.default_rng(0).random(out=make(np))
    with pytest.raises(type(npe.value)):
        lt.random.default_rng(0).random(out=make(lt))


@pytest.mark.parametrize("kind", ["pending", "memory"])
def test_shuffle(kind):
    t = lt.asarray(A) * 1.0 if kind == "pending" else lt.asarray(A.copy())
    before = t + 0
    v = t.T
    assert lt.random.default_rng(3).shuffle(t) is None
    a = A.copy()
    np.random.default_rng(3).shuffle(a)
    np.testing.assert_array_equal(np.asarray(t), a)
    np.testing.assert_array_equal(np.asarray(v), a.T)        # a view sees the shuffle
    np.testing.assert_array_equal(np.asarray(before), A)     # read before: old values
    p = lt.random.default_rng(4).permuted(lt.asarray(A), axis=1, out=t)
    np.random.default_rng(4).permuted(A, axis=1, out=a)
    assert p is t
    np.testing.assert_array_equal(np.asarray(t), a)


def test_legacy_shuffle():
    t = lt.arange(10)
    lt.random.RandomState(1).shuffle(t)
    a = np.arange(10)
    np.random.RandomState(1).shuffle(a)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_resize_is_unsupported():
    with pytest.raises(lt.Unsupported, match="resize"):
        lt.zeros(3).resize(4)


# ---- pending readers of written memory ----------------------------------------------------

def _views(base):
    """Views of one 2-D array in many layouts: reversed, strided, transposed, a column, a
    single element, an empty slice."""
    return [base, base[::-1], base[:, ::-2], base.T, base[1:3, 2], base[2:3, 1:2],
            base[::2, 1::2], base[:0], base.reshape(-1)[5::7]]


def test_a_write_reaches_no_pending_reader_recorded_before_it_whatever_the_layouts():
    """Many pending results read views of several arrays; a write into one view of one
    array changes none of them (NumPy computes them before the write), and reading them
    afterwards gives NumPy's values.  Found the class: a write must find every pending reader
    of the bytes it changes, however its input is laid out, and only those need copies."""
    rng = np.random.default_rng(55)
    bases_np = [rng.standard_normal((6, 8)) for _ in range(3)]
    bases_lt = [lt.asarray(b) for b in bases_np]           # memory-backed: no copies
    for target in range(len(_views(bases_np[0]))):
        for b_np, b_lt in zip(bases_np, bases_lt):
            b_np[...] = rng.standard_normal((6, 8))
            b_lt[...] = b_np
        want, got = [], []
        for k, (b_np, b_lt) in enumerate(zip(bases_np, bases_lt)):
            for v_np, v_lt in zip(_views(b_np), _views(b_lt)):
                want.append(v_np * (k + 2.0) - 1.0)
                got.append(v_lt * (k + 2.0) - 1.0)
        _views(bases_lt[1])[target][...] = 7.5                  # the write
        _views(bases_np[1])[target][...] = 7.5
        for w, g in zip(want, got):
            np.testing.assert_array_equal(np.asarray(g), w)
        np.testing.assert_array_equal(np.asarray(bases_lt[1]), bases_np[1])


def test_pending_readers_finds_every_pending_node_whose_input_may_share_the_memory():
    """fastpath.pending_readers(mem), the filter a write goes through, holds every pending
    node that np.may_share_memory says may read mem (NumPy's bounds check, done
    independently here) and no other: none that reads only the other array, a constant or an
    empty view."""
    from lazytensor import _fastpath as fastpath
    rng = np.random.default_rng(56)
    bases = [lt.asarray(rng.standard_normal((6, 8))) for _ in range(2)]
    keep = [v * 3.0 for b in bases for v in _views(b)]
    mems = [b._node.value for b in bases]          # their memory, not handed out (that settles)
    for mem in [m for b in mems for m in _views(b)]:
        found = {id(n) for n in fastpath.pending_readers(mem)}
        pending = [n for n in fastpath.pending_nodes() if n.value is None]
        want = {id(n) for n in pending
                if any(x.value is not None and np.may_share_memory(x.value, mem) for x in n.inputs)}
        assert found == want
        assert len(want) >= (mem.size > 0) * 2      # at least b * 3.0 and the view's own
    assert all(t._node.value is None for t in keep)
    with pytest.raises(TypeError, match="pending_readers.*ndarray"):
        fastpath.pending_readers([1.0])


def test_pending_uses_counts_the_pending_inputs_that_are_the_node():
    """fastpath.pending_uses(node), the holders a write into a pending tensor discounts
    (views._held_by_pending), equals the count over the pending nodes' inputs made here:
    a node read once, twice by one op (x * x), by several ops, by none."""
    from lazytensor import _fastpath as fastpath
    rng = np.random.default_rng(57)
    x = lt.asarray(rng.standard_normal(5))
    y = x + 1.0                                    # pending
    readers = [y * y, y - 2.0, lt.exp(y), x * 3.0]
    lone = x - 4.0
    for t in (x, y, lone, readers[0]):
        node = t._node
        want = sum(i is node for p in fastpath.pending_nodes() for i in p.inputs)
        assert fastpath.pending_uses(node) == want
    assert fastpath.pending_uses(y._node) == 4 and fastpath.pending_uses(lone._node) == 0
    y[0] = 9.0                                     # a write into a pending tensor so held
    y_np = np.asarray(x) + 1.0
    want = [y_np * y_np, y_np - 2.0, np.exp(y_np), np.asarray(x) * 3.0]
    for r, w in zip(readers, want):
        np.testing.assert_allclose(np.asarray(r), w, rtol=1e-15)
    y_np[0] = 9.0
    np.testing.assert_array_equal(np.asarray(y), y_np)
