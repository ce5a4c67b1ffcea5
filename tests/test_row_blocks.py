"""Evaluation by blocks of rows (lazytensor/_engine/rows.py).

Kernels that only combine values of the same leading row (softmax, logsumexp, a row
normalisation) run block by block.  The results must be the bits of the kernel-by-kernel
evaluation (exact mode, any thread count), and close to NumPy in float64.  The block budget
is lowered here so that small arrays take the path with many blocks and a shorter last one.
"""

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import rows as _rows


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(_rows, "BLOCK_ELEMENTS", 600)
    monkeypatch.setattr(_rows, "MIN_ELEMENTS", 0)


def _both(build, arrays, threads=1, mode="exact"):
    """(by rows, kernel by kernel, number of block runs) for ``build`` over fresh tensors."""
    results = []
    runs = 0
    for enabled in (True, False):
        _rows.enabled = enabled
        try:
            before = lt.stats()["row_blocks"]
            with lt.config(num_threads=threads, mode=mode):
                out = build(*[lt.asarray(a) for a in arrays])
                outs = out if isinstance(out, tuple) else (out,)
                lt.eval(*outs)
                results.append([np.asarray(o) for o in outs])
            if enabled:
                runs = lt.stats()["row_blocks"] - before
        finally:
            _rows.enabled = True
    return results[0], results[1], runs


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def _softmax(X, axis=-1):
    e = lt.exp(X - lt.max(X, axis=axis, keepdims=True))
    return e / lt.sum(e, axis=axis, keepdims=True)


def _softmax64(X, axis=-1):
    X = X.astype(np.float64)
    e = np.exp(X - X.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows,cols", [(1300, 1), (437, 3), (64, 100), (41, 256), (23, 257),
                                       (9, 600)])
def test_softmax_rows_same_bits(small_blocks, rows, cols, dtype, threads):
    X = (3 * np.random.default_rng(rows * cols).standard_normal((rows, cols))).astype(dtype)
    (got,), (ref,), runs = _both(_softmax, [X], threads)
    # over an axis of length 1 the reduction's plan puts the rows innermost: kernel by kernel
    assert runs == (0 if cols == 1 else 1)
    _same_bits(got, ref)
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got, _softmax64(X), rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_logsumexp_and_layer_norm(small_blocks, mode):
    X = (2 * np.random.default_rng(1).standard_normal((53, 70))).astype(np.float32)

    def lse(X):
        m = lt.max(X, axis=1, keepdims=True)
        return lt.log(lt.sum(lt.exp(X - m), axis=1, keepdims=True)) + m

    def norm(X):
        mu = lt.mean(X, axis=1, keepdims=True)
        d = X - mu
        return d / lt.sqrt(lt.mean(d * d, axis=1, keepdims=True) + 1e-5)

    for build, ref in [(lse, lambda x: np.log(np.exp(x).sum(axis=1, keepdims=True))),
                       (norm, lambda x: (x - x.mean(1, keepdims=True))
                        / np.sqrt(x.var(1, keepdims=True) + 1e-5))]:
        (got,), (old,), runs = _both(build, [X], mode=mode)
        assert runs == 1
        _same_bits(got, old)
        np.testing.assert_allclose(got, ref(X.astype(np.float64)), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("axis,shape", [(2, (30, 5, 40)), (1, (30, 40, 9)), (1, (30, 40, 3)),
                                        ((1, 2), (30, 6, 7))])
def test_three_dimensional_reductions(small_blocks, axis, shape):
    # a kept inner run (Q > 1), and a short one reduced as gathered rows (plan order 0, 2, 1)
    X = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    (got,), (old,), runs = _both(lambda X: _softmax(X, axis), [X])
    assert runs == 1
    _same_bits(got, old)
    np.testing.assert_allclose(got, _softmax64(X, axis), rtol=1e-6, atol=1e-6)


def test_inputs_of_every_layout(small_blocks):
    rng = np.random.default_rng(3)
    Y = rng.standard_normal((50, 45)).astype(np.float32)
    b = rng.standard_normal(50).astype(np.float32)
    b2 = rng.standard_normal((1, 50)).astype(np.float32)
    s = rng.standard_normal((45, 1)).astype(np.float32)

    def build(Y, b, b2, s):
        X = lt.permute_dims(Y, (1, 0))           # a transposed view: rows are columns of Y
        Z = X[::-1] * s + b - b2                 # reversed rows, a value per row, bias rows
        return _softmax(Z)

    (got,), (old,), runs = _both(build, [Y, b, b2, s])
    assert runs == 1
    _same_bits(got, old)
    Z = Y.T.astype(np.float64)[::-1] * s + b - b2
    np.testing.assert_allclose(got, _softmax64(Z), rtol=1e-6, atol=1e-6)


def test_requested_intermediates_and_reductions(small_blocks):
    X = np.random.default_rng(4).standard_normal((61, 33)).astype(np.float32)

    def build(X):
        m = lt.max(X, axis=1, keepdims=True)
        e = lt.exp(X - m)
        s = lt.sum(e, axis=1)
        return m, e, s, e / lt.sum(e, axis=1, keepdims=True)

    got, old, runs = _both(build, [X])
    assert runs == 1
    for a, b in zip(got, old):
        _same_bits(a, b)
    X64 = X.astype(np.float64)
    np.testing.assert_array_equal(got[0], X.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got[1], np.exp(X64 - X64.max(1, keepdims=True)), rtol=1e-6)
    np.testing.assert_allclose(got[2], np.exp(X64 - X64.max(1, keepdims=True)).sum(1), rtol=1e-6)
    np.testing.assert_allclose(got[3], _softmax64(X), rtol=1e-6, atol=1e-7)


def test_boolean_and_integer_rows(small_blocks):
    X = np.random.default_rng(5).integers(-9, 9, (40, 30)).astype(np.int32)

    def build(X):
        keep = lt.all(X > -9, axis=1, keepdims=True)
        return lt.where(keep, X - lt.min(X, axis=1, keepdims=True), X * 2), lt.any(X == 0, axis=1)

    got, old, runs = _both(build, [X])
    assert runs == 1
    for a, b in zip(got, old):
        _same_bits(a, b)
    keep = (X > -9).all(axis=1, keepdims=True)
    np.testing.assert_array_equal(got[0], np.where(keep, X - X.min(1, keepdims=True), X * 2))
    np.testing.assert_array_equal(got[1], (X == 0).any(axis=1))


def test_not_by_rows_when_rows_are_combined(small_blocks):
    X = np.random.default_rng(6).standard_normal((30, 30)).astype(np.float32)
    # a reduction over the leading axis, and a row sum read as a row vector (by columns)
    for build, ref in [(lambda X: _softmax(X, 0), lambda x: _softmax64(x, 0)),
                       (lambda X: lt.exp(X) / lt.sum(lt.exp(X), axis=1),
                        lambda x: np.exp(x) / np.exp(x).sum(1))]:
        (got,), (old,), runs = _both(build, [X])
        assert runs == 0
        _same_bits(got, old)
        np.testing.assert_allclose(got, ref(X.astype(np.float64)), rtol=1e-6, atol=1e-7)


def test_explain_names_the_blocks(small_blocks):
    X = lt.asarray(np.ones((40, 30), np.float32))
    assert lt.explain(_softmax(X)).block_rows == 20
    assert "run by blocks of 20 rows" in str(lt.explain(_softmax(X)))
    _rows.enabled = False
    try:
        assert lt.explain(_softmax(X)).block_rows is None
    finally:
        _rows.enabled = True


def test_default_budget_on_a_large_softmax():
    # the default thresholds: 2^18 elements and more take the path
    X = np.random.default_rng(7).standard_normal((300, 1024)).astype(np.float32)
    (got,), (old,), runs = _both(_softmax, [X], threads=2)
    assert runs == 1
    _same_bits(got, old)
    np.testing.assert_allclose(got, _softmax64(X), rtol=1e-6, atol=1e-9)


def test_kept_plan_runs_on_new_inputs(small_blocks, monkeypatch):
    """A repeated structure runs its kept plan (planned once) on each call's own inputs and
    outputs: the bits of the kernel-by-kernel evaluation, also with an intermediate
    requested, and the plan keeps no node alive."""
    from lazytensor._engine import evaluate as _eval

    planned = []

    def counting(*args):
        plan = _rows.plan_by_rows(*args)
        if plan is not None:
            planned.append(plan)
        return plan

    monkeypatch.setattr(_eval, "plan_by_rows", counting)

    def softmax_and_e(X):
        e = lt.exp(X - lt.max(X, axis=1, keepdims=True))
        return e, e / lt.sum(e, axis=1, keepdims=True)

    rng = np.random.default_rng(7)
    for k in range(3):
        X = (3 * rng.standard_normal((61, 40))).astype(np.float32)
        for build in (_softmax, softmax_and_e):
            got, ref, runs = _both(build, [X])
            assert runs == 1
            for g, r in zip(got, ref):
                _same_bits(g, r)
            np.testing.assert_allclose(got[-1], _softmax64(X), rtol=1e-6, atol=1e-6)
    assert len(planned) == 2          # one plan per structure, reused for the next inputs

    import gc
    import weakref

    X = lt.asarray((3 * rng.standard_normal((61, 40))).astype(np.float32))
    out = _softmax(X)
    out.numpy()
    node = weakref.ref(out._node)
    del out
    gc.collect()
    assert node() is None


@pytest.mark.parametrize("threads", [1, 2])
def test_streamed_block_outputs(monkeypatch, threads):
    """A block run whose requested outputs reach LT_STREAM_MIN_BYTES writes them with
    non-temporal stores (_rows._streams): the same bits as kernel by kernel, with an odd
    row length and a shorter last block, and with an output that a later kernel reads
    (not streamed) beside a streamed one."""
    monkeypatch.setattr(_rows, "BLOCK_ELEMENTS", 1 << 16)
    flags = []
    real = _rows._streams

    def spy(*args):                    # runs when a block plan is made (then kept)
        found = real(*args)
        flags.extend(found)
        return found
    monkeypatch.setattr(_rows, "_streams", spy)
    lt._engine.kernel.clear_cache()           # plan afresh: an earlier parameter's plan is kept
    X = np.random.default_rng(21).standard_normal((1200, 1029)).astype(np.float32)   # 4.9 MB
    by_rows, plain, runs = _both(_softmax, [X], threads=threads)
    assert runs >= 1 and 1 in flags
    _same_bits(by_rows[0], plain[0])

    def two(X):
        e = lt.exp(X - lt.max(X, axis=1, keepdims=True))     # requested and read later
        return e, e / lt.sum(e, axis=1, keepdims=True)
    flags.clear()
    lt._engine.kernel.clear_cache()
    by_rows, plain, runs = _both(two, [X], threads=threads)
    assert runs >= 1 and 0 in flags and 1 in flags
    for a, b in zip(by_rows, plain):
        _same_bits(a, b)
