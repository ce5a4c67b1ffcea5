"""NEP 13 and NEP 18 on Tensor (lazytensor/_api/numpy_protocols.py), against NumPy and SciPy
called on the same values: NumPy's ufuncs and functions applied to tensors give tensors with
NumPy's values and dtypes, lazily and fused where lazytensor has the op (writes into tensors:
tests/test_numpy_writes.py)."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import scipy.special
from scipy.special import _ufuncs as special_ufuncs   # the ufuncs (see test_scipy_ufuncs)

import lazytensor as lt
from lazytensor._api import numpy_protocols as P

RNG = np.random.default_rng(39)
X2 = RNG.standard_normal((4, 5))


def _np(x):
    return np.asarray(x) if isinstance(x, lt.Tensor) else x


def _same(got, want, rtol=None):
    """``got`` is a Tensor holding NumPy's ``want``: same dtype, shape and values."""
    assert isinstance(got, lt.Tensor), type(got)
    g = np.asarray(got)
    want = np.asarray(want)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if rtol is None:
        rtol = {"e": 2e-3, "f": 2e-6, "F": 2e-6}.get(want.dtype.char, 1e-12)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, want)


def _pending(t):
    return t._node.value is None


# ---- inputs per dtype: a float grid over the functions' domains, small integers ----------
def _operands(dtype, nin, ufunc):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        base = [np.linspace(-3, 3, 13), np.linspace(0.25, 2.75, 13)[::-1]]
    elif dt.kind == "b":
        base = [np.arange(13) % 2 == 0, np.arange(13) % 3 == 0]
    elif dt.kind == "u" or ufunc in (np.power, np.left_shift, np.right_shift):
        base = [np.arange(13) % 7, np.arange(13) % 4]
    else:
        base = [np.arange(13) - 6, np.arange(13) % 5 - 2]
    return [b.astype(dt) for b in base[:nin]]


def _mapped_numpy_ufuncs():
    return sorted((u for u in P.ufunc_table() if getattr(np, u.__name__, None) is u
                   and u.signature is None), key=lambda u: u.__name__)


def _cases():
    """(ufunc, dtype) for every mapped NumPy ufunc and each dtype NumPy has a loop for."""
    cases = []
    for u in _mapped_numpy_ufuncs():
        for dt in ("float32", "float64", "float16", "int8", "int64", "uint8", "bool"):
            try:
                u.resolve_dtypes((np.dtype(dt),) * u.nin + (None,) * u.nout)
            except TypeError:
                continue
            cases.append(pytest.param(u, dt, id=f"{u.__name__}-{dt}"))
    return cases


@pytest.mark.parametrize("ufunc, dtype", _cases())
def test_mapped_ufunc_matches_numpy(ufunc, dtype):
    arrays = _operands(dtype, ufunc.nin, ufunc)
    tensors = [lt.asarray(a) for a in arrays]
    with np.errstate(all="ignore"):
        want = ufunc(*arrays)
        got = ufunc(*tensors)
    if ufunc is np.reciprocal and np.dtype(dtype).kind in "iu":
        # integer 1/0 is undefined in NumPy (it gives INT64_MIN for int64); lazytensor gives
        # 0, the seeds' rule for an integer division by zero (docs/numpy-compatibility.md)
        zero = arrays[0] == 0
        assert np.all(np.asarray(got)[zero] == 0)
        want = np.where(zero, 0, want).astype(want.dtype)
    _same(got, want)


def _lazy_cases():
    """Each op row with a NumPy ufunc, on a dtype its row computes (so it is recorded)."""
    from lazytensor._engine.ops import OPS_LIST

    for op in OPS_LIST:
        if op.ufunc:
            dt = "float64" if "f" in op.kinds else ("int64" if "i" in op.kinds else "bool")
            yield pytest.param(getattr(np, op.ufunc), dt, id=f"{op.ufunc}-{dt}")


@pytest.mark.parametrize("ufunc, dtype", list(_lazy_cases()))
def test_mapped_ufunc_is_lazy_and_fuses(ufunc, dtype):
    tensors = [lt.asarray(a) for a in _operands(dtype, ufunc.nin, ufunc)]
    r = ufunc(*tensors)
    assert _pending(r)
    chained = np.logical_not(r) if r.dtype == bool else np.negative(r)
    assert len(lt.explain(chained)) == 1


def test_expression_of_numpy_ufuncs_is_one_kernel():
    x = RNG.standard_normal(1000).astype(np.float32)
    t = lt.asarray(x)
    r = np.exp(t) * 2 + np.sin(t)
    assert _pending(r) and len(lt.explain(r)) == 1
    _same(r, np.exp(x) * 2 + np.sin(x))


@pytest.mark.parametrize("ufunc, row", [(special_ufuncs.erf, "erf"),
                                        (special_ufuncs.expit, "sigmoid")])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_scipy_ufuncs(ufunc, row, dtype):
    """scipy.special.erf is this ufunc unless SCIPY_ARRAY_API=1 (which conftest sets; then
    SciPy dispatches on the namespace itself): the default case is in test_consumers_..."""
    x = (np.linspace(-4, 4, 17) * (1 if dtype[0] == "f" else 3)).astype(dtype)
    t = lt.asarray(x)
    r = ufunc(t)
    assert _pending(r) and len(lt.explain(r + 1)) == 1
    assert row in str(lt.explain(r))
    _same(r, ufunc(x))


@pytest.mark.parametrize("ufunc, dtype, want", [
    (np.sqrt, "int64", "float64"), (np.sqrt, "int8", "float16"), (np.exp, "uint16", "float32"),
    (np.divide, "int32", "float64"), (np.rint, "int64", "float64"), (np.floor, "int64", "int64"),
    (np.absolute, "complex64", "float32"), (np.sin, "bool", "float16"),
])
def test_numpy_result_dtypes(ufunc, dtype, want):
    x = np.arange(1, 7).astype(dtype)
    args = [lt.asarray(x)] * ufunc.nin
    r = ufunc(*args)
    assert r.dtype == np.dtype(want) == ufunc(*[x] * ufunc.nin).dtype
    _same(r, ufunc(*[x] * ufunc.nin))


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.divide, np.arctan2,
                                   np.less, np.power, np.bitwise_or, np.remainder])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int8", "uint8"), ("int64", "float32"),
                                    ("uint64", "int64"), ("bool", "int8"), ("int16", "float16"),
                                    ("uint8", "bool")], ids="-".join)
def test_mixed_dtypes_promote_as_numpy(ufunc, dtypes):
    a, b = (np.arange(1, 7).astype(d) for d in dtypes)
    try:
        with np.errstate(all="ignore"):
            want = ufunc(a, b)
    except TypeError:
        with pytest.raises(TypeError):
            ufunc(lt.asarray(a), lt.asarray(b))
        return
    with np.errstate(all="ignore"):
        _same(ufunc(lt.asarray(a), b), want)
        _same(ufunc(a, lt.asarray(b)), want)


@pytest.mark.parametrize("ufunc", [np.matmul, np.vecdot])
@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float64"),
                                    ("int64", "int64"), ("int8", "float32")], ids="-".join)
def test_gufuncs(ufunc, dtypes):
    a = (X2 * 3).astype(dtypes[0])
    b = ((X2.T if ufunc is np.matmul else X2) * 3).astype(dtypes[1])
    _same(ufunc(lt.asarray(a), lt.asarray(b)), ufunc(a, b), rtol=1e-5)
    _same(ufunc(a, lt.asarray(b)), ufunc(a, b), rtol=1e-5)


A = np.linspace(-1.5, 2.5, 6)
B = np.linspace(0.5, 3.0, 6)


@pytest.mark.parametrize("expr", [
    lambda a, b: a + b, lambda a, b: b - a, lambda a, b: b * a, lambda a, b: b / a,
    lambda a, b: b ** 2 + a, lambda a, b: b < a, lambda a, b: b == a, lambda a, b: b >= a,
    lambda a, b: np.float64(2) * a, lambda a, b: np.float32(2) * a + b,
    lambda a, b: a * np.float32(2), lambda a, b: np.int64(3) - a, lambda a, b: 2 * a,
    lambda a, b: np.add(a, b), lambda a, b: np.add(b, a),
    lambda a, b: np.add(a, [1, 2, 3, 4, 5, 6]),
    lambda a, b: np.maximum(a, 0.5), lambda a, b: np.arctan2(b, a),
    lambda a, b: np.add(a.astype(np.int8) if isinstance(a, np.ndarray) else a.astype("int8"), 2.5),
    lambda a, b: np.multiply(a, 1j),
], ids=lambda f: str(f.__code__.co_firstlineno))
def test_mixed_operands(expr):
    """The tensor is ``a``, ``b`` a NumPy array: results are tensors with NumPy's values."""
    want = expr(A, B)
    got = expr(lt.asarray(A), B)
    _same(got, want)


def test_inplace_operator_on_ndarray_keeps_the_ndarray():
    a, t = B.copy(), lt.asarray(A)
    a += t
    assert type(a) is np.ndarray
    np.testing.assert_array_equal(a, B + A)
    a = B.astype(np.float32)
    with pytest.raises(TypeError, match="same_kind"):     # NumPy's casting rule, as NumPy
        a += lt.asarray(np.arange(6, dtype=np.complex64))


class Other:
    """A foreign array type: NEP 13/18 say a Tensor defers to it."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ("other", ufunc.__name__, method)

    def __array_function__(self, func, types, args, kwargs):
        return ("other", func.__name__)


def test_unknown_operand_types_get_not_implemented():
    t = lt.asarray(A)
    assert np.add(t, Other()) == ("other", "add", "__call__")
    assert np.add.reduce(t, out=(Other(),)) == ("other", "add", "reduce")
    assert np.concatenate([t, Other()]) == ("other", "concatenate")
    assert t.__array_ufunc__(np.add, "__call__", t, Other()) is NotImplemented
    assert t.__array_function__(np.sum, (lt.Tensor, Other), (t,), {}) is NotImplemented


# ---- ufunc methods -------------------------------------------------------------------------
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum,
                                   np.logical_and, np.logical_or, np.subtract, np.hypot])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint8", "bool"])
@pytest.mark.parametrize("kw", [{}, {"axis": 1}, {"axis": None}, {"axis": (0, 1)},
                                {"axis": -1, "keepdims": True}, {"axis": 0, "dtype": "float64"}],
                         ids=str)
def test_reduce(ufunc, dtype, kw):
    x = (X2 * 3).astype(dtype)
    try:
        with np.errstate(all="ignore"):
            want = ufunc.reduce(x, **kw)
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            ufunc.reduce(lt.asarray(x), **kw)
        return
    _same(ufunc.reduce(lt.asarray(x), **kw), want, rtol=2e-3 if dtype == "float16" else None)


@pytest.mark.parametrize("ufunc, fn", [(np.add, "sum"), (np.multiply, "prod"),
                                       (np.maximum, "max"), (np.logical_or, "any")])
def test_reduce_records_lazily(ufunc, fn):
    x = X2 if ufunc is not np.logical_or else X2 > 0
    t = lt.asarray(x)
    r = ufunc.reduce(np.exp(t) if ufunc is not np.logical_or else t, axis=0)
    assert _pending(r) and len(lt.explain(r)) == 1
    _same(r, ufunc.reduce(np.exp(x) if ufunc is not np.logical_or else x, axis=0))


def test_reduce_edge_cases_as_numpy():
    t = lt.asarray(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="identity"):
        np.maximum.reduce(t, axis=0)
    _same(np.add.reduce(t, axis=0), np.add.reduce(np.zeros((0, 3)), axis=0))
    with pytest.raises(np.exceptions.AxisError):
        np.add.reduce(lt.asarray(X2), axis=2)
    _same(np.add.reduce(lt.asarray(X2), axis=0, initial=5.0),
          np.add.reduce(X2, axis=0, initial=5.0))
    w = X2 > 0
    _same(np.add.reduce(lt.asarray(X2), axis=1, where=lt.asarray(w)),
          np.add.reduce(X2, axis=1, where=w))


@pytest.mark.parametrize("call", [
    lambda u, x: u.accumulate(x), lambda u, x: u.accumulate(x, axis=1),
    lambda u, x: u.accumulate(x, dtype=np.float64), lambda u, x: u.outer(x[0], x[1]),
    lambda u, x: u.outer(x, x[:, 0]), lambda u, x: u.reduceat(x, [0, 2, 3], axis=1),
], ids=["accumulate", "accumulate-axis1", "accumulate-dtype", "outer", "outer-2d", "reduceat"])
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.subtract])
@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_accumulate_outer_reduceat(call, ufunc, dtype):
    x = (X2 * 3).astype(dtype)
    with np.errstate(all="ignore"):
        want = call(ufunc, x)
        got = call(ufunc, lt.asarray(x))
    _same(got, want)


def test_outer_is_lazy():
    a, b = RNG.standard_normal(3), RNG.standard_normal(4)
    r = np.multiply.outer(np.exp(lt.asarray(a)), lt.asarray(b))
    assert _pending(r) and len(lt.explain(r)) == 1
    _same(r, np.multiply.outer(np.exp(a), b))


# ---- out= and writes --------------------------------------------------------------------
def test_out_ndarray_is_written_and_returned():
    t = lt.asarray(A)
    out = np.empty(6)
    assert np.add(t, 1, out=out) is out
    np.testing.assert_array_equal(out, A + 1)
    out2 = np.empty(6)
    r = np.divmod(t, 0.7, out=(out, out2))
    assert r[0] is out and r[1] is out2
    np.testing.assert_array_equal(out2, np.divmod(A, 0.7)[1])
    red = np.empty(5)
    assert np.add.reduce(lt.asarray(X2), axis=0, out=red) is red
    np.testing.assert_allclose(red, X2.sum(axis=0))
    dst = np.zeros(6)
    np.copyto(dst, t)
    np.testing.assert_array_equal(dst, A)
    s = np.empty(())
    assert np.sum(t, out=s) is s and float(s) == pytest.approx(A.sum())


def test_ufunc_at_on_ndarray_with_tensor_values():
    a = np.zeros(6)
    assert np.add.at(a, [0, 0, 2], lt.asarray(np.array([1.0, 2.0, 3.0]))) is None
    np.testing.assert_array_equal(a, [3, 0, 3, 0, 0, 0])


# ---- __array_function__ -------------------------------------------------------------------
M = RNG.standard_normal((3, 4))
SQ = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
V = np.array([3.0, -1.0, 2.0, 0.5, -2.0, 4.0])
FUNCTIONS = [
    ("sum-axis", lambda m, x: m.sum(x, axis=0)), ("sum", lambda m, x: m.sum(x)),
    ("sum-positional-axis", lambda m, x: m.sum(x, 1)),
    ("mean-axis", lambda m, x: m.mean(x, axis=0)), ("std-ddof", lambda m, x: m.std(x, ddof=1)),
    ("max", lambda m, x: m.max(x, axis=1)), ("argmax", lambda m, x: m.argmax(x)),
    ("where", lambda m, x: m.where(x > 0, x, 0)), ("where-1arg", lambda m, x: m.where(x > 0)),
    ("concatenate", lambda m, x: m.concatenate([x, x])),
    ("concatenate-ndarray", lambda m, x: m.concatenate([x, M], axis=1)),
    ("stack", lambda m, x: m.stack([x, x], axis=1)), ("transpose", lambda m, x: m.transpose(x)),
    ("reshape", lambda m, x: m.reshape(x, (4, 3))), ("reshape-1", lambda m, x: m.reshape(x, -1)),
    ("clip", lambda m, x: m.clip(x, -0.5, 0.5)), ("sort", lambda m, x: m.sort(x, axis=0)),
    ("argsort", lambda m, x: m.argsort(x, axis=1)), ("cumsum", lambda m, x: m.cumsum(x, axis=1)),
    ("median", lambda m, x: m.median(x)), ("percentile", lambda m, x: m.percentile(x, [5, 50])),
    ("linalg.norm", lambda m, x: m.linalg.norm(x)), ("fft.fft", lambda m, x: m.fft.fft(x)),
    ("fft.rfft-n", lambda m, x: m.fft.rfft(x, 8)), ("diff", lambda m, x: m.diff(x)),
    ("unwrap", lambda m, x: m.unwrap(x)), ("i0", lambda m, x: m.i0(x)),
    ("split", lambda m, x: m.split(x, 2, axis=1)),
    ("array_split", lambda m, x: m.array_split(x, 3)),
    ("nonzero", lambda m, x: m.nonzero(x > 0)), ("shape", lambda m, x: m.shape(x)),
    ("allclose", lambda m, x: m.allclose(x, x)), ("dot", lambda m, x: m.dot(x, x.T)),
    ("einsum", lambda m, x: m.einsum("ij,kj->ik", x, x)),
    ("zeros_like", lambda m, x: m.zeros_like(x)),
    ("result_type", lambda m, x: m.result_type(x, 1.0)),
    ("linalg.solve", lambda m, x: m.linalg.solve(SQ, x)),
    ("linalg.svd", lambda m, x: m.linalg.svd(x)),
    ("ediff1d", lambda m, x: m.ediff1d(x)), ("tile", lambda m, x: m.tile(x, 2)),
    ("histogram", lambda m, x: m.histogram(x, bins=3)),
    ("trapezoid", lambda m, x: m.trapezoid(x)), ("round", lambda m, x: m.round(x, 2)),
]


def _same_tree(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, tuple if isinstance(want, tuple) else list), type(got)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same_tree(g, w)
    elif isinstance(want, (np.ndarray, np.generic)):
        _same(got, want, rtol=1e-9)
    else:
        assert got == want and type(got) is type(want)


@pytest.mark.parametrize("name, call", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_numpy_functions_on_tensors(name, call):
    x = M if name not in ("diff", "unwrap", "fft.rfft-n", "ediff1d") else V
    if name == "linalg.solve":
        x = M[:, :3] @ SQ
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = call(np, x)
        got = call(np, lt.asarray(x))
    _same_tree(got, want)


def test_dispatch_picks_up_lazytensor_functions_at_call_time(monkeypatch):
    t = lt.asarray(V)
    calls = []

    def unwrap(p, discont=None, axis=-1, *, period=6.283185307179586):
        calls.append((p, discont, axis))
        return lt.negative(p)
    monkeypatch.setattr(lt, "unwrap", unwrap, raising=False)
    r = np.unwrap(t, axis=0)
    assert calls == [(t, None, 0)] and _pending(r)

    def strict_unwrap(p, /):       # does not take the call: NumPy computes it
        raise AssertionError("not called")
    monkeypatch.setattr(lt, "unwrap", strict_unwrap)
    _same(np.unwrap(t, axis=0), np.unwrap(V, axis=0))


def test_dispatch_passes_ndarrays_as_tensors_and_stays_lazy():
    t = lt.asarray(V)
    r = np.where(np.exp(t) > 2, t, V)
    assert _pending(r) and len(lt.explain(r)) == 1
    _same(r, np.where(np.exp(V) > 2, V, V))
    s = np.sum(np.exp(t) * 2, axis=0)
    assert _pending(s) and len(lt.explain(s)) == 1
    s = np.sum(np.exp(t), axis=0, out=None)      # NumPy's default out= still dispatches
    assert _pending(s) and len(lt.explain(s)) == 1


def test_a_lazytensor_function_calling_numpy_does_not_recurse(monkeypatch):
    def ediff1d(ary, to_end=None, to_begin=None):     # calls NumPy's own on tensors
        return np.ediff1d(ary, to_end=to_end, to_begin=to_begin)
    monkeypatch.setattr(lt, "ediff1d", ediff1d, raising=False)
    _same(np.ediff1d(lt.asarray(V)), np.ediff1d(V))


def test_a_split_of_a_callers_array_reads_it_as_numpy_does():
    # lt.asarray(a) shares a's memory (as np.asarray does), and NumPy's split views its
    # input: a later write into a is seen by both, and by no result computed before it
    got, want = V.copy(), V.copy()
    parts, np_parts = np.split(lt.asarray(got), 2), np.split(np.asarray(want), 2)
    total, np_total = np.sum(parts[1]), np.sum(np_parts[1])
    float(total)                              # computed now, before the write
    got[:] = 0
    want[:] = 0
    _same(parts[0], np_parts[0])
    assert float(total) == float(np_total)


@pytest.mark.parametrize("call", [
    lambda np_, x, c: np_.where(c, x, 0), lambda np_, x, c: np_.where(c, x, x * 2),
    lambda np_, x, c: np_.sum(x), lambda np_, x, c: np_.clip(x, 0, 1),
    lambda np_, x, c: np_.mean(x), lambda np_, x, c: np_.cumsum(x),
    lambda np_, x, c: np_.round(x, 2), lambda np_, x, c: np_.atleast_2d(x),
], ids=["where scalar", "where", "sum", "clip", "mean", "cumsum", "round", "atleast_2d"])
def test_numpy_functions_called_again_take_the_same_lazytensor_function(call):
    """A NumPy function called again with tensors and Python scalars goes straight to the
    lazytensor function the first call found (array_function's lean path): NumPy's values
    on every call."""
    a = np.linspace(-2, 3, 50)
    want = call(np, a, a > 0)
    x = lt.asarray(a)
    for _ in range(3):
        got = call(np, x, x > 0)
        assert isinstance(got, lt.Tensor)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)


def test_the_lean_path_follows_the_namespace_and_lets_numpy_run_inside(monkeypatch):
    """A lazytensor function replaced after NumPy's calls found it is the one called next;
    one that calls NumPy's function on its tensor gets NumPy's (no endless dispatch)."""
    x = lt.asarray(V)
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(np.unwrap(x)), np.unwrap(V))
    seen = []

    def unwrap(p, discont=None, axis=-1, *, period=6.283185307179586):
        seen.append(p)
        return np.unwrap(p)          # NumPy's, on the tensor: computed by NumPy
    monkeypatch.setattr(lt, "unwrap", unwrap)
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(np.unwrap(x)), np.unwrap(V))
    assert len(seen) == 2 and all(p is x for p in seen)


_UFUNC_CALLS = {   # name -> (call, whether a repeated call is C's lean case)
    "exp": (lambda x: np.exp(x), True), "add scalar": (lambda x: np.add(x, 1), True),
    "radd scalar": (lambda x: np.add(2.5, x), True),
    "maximum": (lambda x: np.maximum(x, x), True),
    "dtype=": (lambda x: np.add(x, 1, dtype=np.float64), False),
    "reduce": (lambda x: np.add.reduce(x), False),
    "outer": (lambda x: np.multiply.outer(x[:3], x[:2]), False),
    "list": (lambda x: np.add(x, [1.0] * 6), False), "two outputs": (lambda x: np.modf(x), True),
    "ndarray": (lambda x: np.add(x, np.ones(6)), False),
    "out=": (lambda x: np.negative(x, out=lt.zeros(6)), False),
}


@pytest.mark.parametrize("name", list(_UFUNC_CALLS))
def test_array_ufunc_in_c_is_the_python_methods(name):
    """Tensor.__array_ufunc__ (C's lean case, ext/protocols.c, and Python's method for the
    rest) gives NumPy's values and dtypes on the first and the repeated calls; a repeated
    plain call of tensors and scalars does not enter the Python method."""
    import sys
    call, lean = _UFUNC_CALLS[name]
    x = lt.asarray(V)
    want = call(V)
    for k in range(3):
        entered = []
        sys.setprofile(lambda frame, event, arg: entered.append(frame.f_code.co_name)
                       if event == "call" else None)
        try:
            got = call(x)
        finally:
            sys.setprofile(None)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-15)
            assert np.asarray(g).dtype == w.dtype
        if k:           # (the first call may be lean already: another test made it)
            assert ("array_ufunc" in entered) != lean, (k, entered)


def test_ufuncs_of_tensors_and_numpy_arrays_are_numpys_on_repeated_calls():
    """A ufunc of a tensor and NumPy arrays, called again (the lean path of arrays made
    leaves and operands cast, LEAN_WITH_CASTS): NumPy's values and dtypes for arrays of the
    tensor's dtype and of others (a cast), strided, reversed, 0-d and read-only arrays,
    either side."""
    rng = np.random.default_rng(5)
    base = rng.standard_normal(12)
    t = lt.asarray(base.astype(np.float32))
    ro = base.astype(np.float32)
    ro.setflags(write=False)
    arrays = [base.astype(np.float32), base, base.astype(np.float32)[::-1].copy()[::1],
              np.linspace(0, 1, 24, dtype=np.float32)[::2], np.float32(2.5) * np.ones(()),
              np.array(3, np.int16), ro, np.arange(12, dtype=np.int64)]
    for a in arrays:
        for op in (np.add, np.multiply, np.maximum, np.less):
            for args_np, args_lt in (((a, ro), (a, t)), ((ro, a), (t, a))):
                want = op(*args_np)
                for _ in range(3):
                    got = op(*args_lt)
                    assert isinstance(got, lt.Tensor)
                    assert np.asarray(got).dtype == want.dtype
                    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("call", [
    lambda np_, x: np_.concatenate([x, x]), lambda np_, x: np_.concatenate((x, [1.0, 2.0])),
    lambda np_, x: np_.stack([x, x * 2]), lambda np_, x: np_.stack([x, list(range(6))]),
    lambda np_, x: np_.broadcast_arrays(x, 1.0), lambda np_, x: np_.broadcast_arrays(x, x),
    lambda np_, x: np_.concatenate([x, [0.5] * 3], axis=0),
    lambda np_, x: np_.meshgrid(x, [1, 2]),
], ids=["tensors", "list in tuple", "stack", "stack list", "broadcast scalar",
        "broadcast tensors", "keyword", "meshgrid list"])
def test_functions_taking_arrays_take_tensors_and_array_likes(call):
    """NumPy's functions of several arrays on tensors, alone or with array-likes (lists,
    scalars) beside them: NumPy's values and shapes, whether the arrays were all tensors
    (nothing converted, the signature not bound) or not."""
    x = lt.asarray(V)
    want, got = call(np, V), call(np, x)
    for w, g in zip(want if isinstance(want, (tuple, list)) else (want,),
                    got if isinstance(got, (tuple, list)) else (got,)):
        assert isinstance(g, lt.Tensor)
        np.testing.assert_array_equal(np.asarray(g), w)
        assert np.asarray(g).dtype == w.dtype


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "bool", "float16", "float32"])
def test_ufuncs_whose_operands_are_cast_are_numpys_on_repeated_calls(dtype):
    """Calls whose operands NumPy's loop casts (np.sqrt of integers, an int tensor plus a
    float, mixed tensors), called again through the lean path that casts: NumPy's values
    and dtypes every time."""
    a = (np.arange(-6, 6) % 5).astype(dtype)
    b = np.linspace(-1, 1, 12).astype(np.float64)
    x, y = lt.asarray(a), lt.asarray(b)
    calls = [lambda m, p, q: m.sqrt(p), lambda m, p, q: m.add(p, 0.5),
             lambda m, p, q: m.multiply(p, q), lambda m, p, q: m.maximum(q, p),
             lambda m, p, q: m.add(p, 3), lambda m, p, q: m.less(p, 1.5)]
    for call in calls:
        with np.errstate(all="ignore"):
            want = call(np, a, b)
        for _ in range(3):
            got = np.asarray(call(np, x, y))
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == "float16" else 1e-15)


def test_errors_raised_inside_lazytensor_propagate(monkeypatch):
    def unwrap(p, discont=None, axis=-1, *, period=6.283185307179586):
        raise ZeroDivisionError("inside")
    monkeypatch.setattr(lt, "unwrap", unwrap, raising=False)
    with pytest.raises(ZeroDivisionError, match="inside"):
        np.unwrap(lt.asarray(V))


# ---- callers that take NumPy results for arrays (SciPy and scikit-learn as by default) ----
_CONSUMERS = """
import numpy as np, scipy.ndimage, scipy.signal, scipy.special, lazytensor as lt
from sklearn.preprocessing import StandardScaler
assert isinstance(scipy.special.erf, np.ufunc)      # SciPy's default: no namespace dispatch
M = np.random.default_rng(1).standard_normal((6, 5)); t = lt.asarray(M)
calls = [lambda x: np.asarray(x), lambda x: np.array(x, dtype=np.float32),
         lambda x: scipy.signal.lfilter([0.5, 0.5], [1.0], x),
         lambda x: scipy.signal.convolve(x, np.ones((2, 2)), mode="same"),
         lambda x: scipy.ndimage.gaussian_filter(x, 1.0),
         lambda x: scipy.ndimage.median_filter(x, size=2),
         lambda x: scipy.special.logsumexp(x, axis=0), lambda x: scipy.special.erf(x),
         lambda x: StandardScaler().fit_transform(x)]
for call in calls:
    np.testing.assert_allclose(np.asarray(call(t)), call(M), rtol=1e-12)
np.testing.assert_allclose(t, M)
assert isinstance(scipy.special.erf(t), lt.Tensor)
{black_scholes}
rng = np.random.default_rng(2)
S, K, T = (rng.uniform(lo, hi, 1000) for lo, hi in ((10, 100), (10, 100), (0.1, 2)))
got = black_scholes(np, scipy.special.erf, *map(lt.asarray, (S, K, T)), 0.05, 0.2)
assert len(lt.explain(got)) == 1
want = black_scholes(np, scipy.special.erf, S, K, T, 0.05, 0.2)
np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * abs(want).max())
print("ok")
"""


def _black_scholes(np_, erf, S, K, T, r, sigma):
    d1 = (np_.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * np_.sqrt(T))
    d2 = d1 - sigma * np_.sqrt(T)
    cdf1 = 0.5 * (1 + erf(d1 / np_.sqrt(2.0)))
    cdf2 = 0.5 * (1 + erf(d2 / np_.sqrt(2.0)))
    return S * cdf1 - K * np_.exp(-r * T) * cdf2


def test_consumers_of_ndarrays_with_scipy_defaults():
    """SciPy without SCIPY_ARRAY_API (its default; conftest sets it for this process):
    functions that take NumPy arrays take tensors, and Black-Scholes written with np.* and
    scipy.special.erf is one kernel."""
    import inspect

    env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    script = _CONSUMERS.replace("{black_scholes}", inspect.getsource(_black_scholes)
                                .replace("_black_scholes", "black_scholes"))
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_black_scholes_in_numpy_form_is_one_kernel(dtype):
    n = 4096
    S = RNG.uniform(10, 100, n).astype(dtype)
    K = RNG.uniform(10, 100, n).astype(dtype)
    T = RNG.uniform(0.1, 2, n).astype(dtype)
    args = (np.asarray(0.05, dtype)[()], np.asarray(0.2, dtype)[()])
    erf = special_ufuncs.erf
    want = _black_scholes(np, erf, S, K, T, *args)
    got = _black_scholes(np, erf, lt.asarray(S), lt.asarray(K), lt.asarray(T), *args)
    assert len(lt.explain(got)) == 1
    before = lt.stats()["kernels"]
    _same(got, want, rtol=1e-4 if dtype == "float32" else 1e-10)
    assert lt.stats()["kernels"] - before == 1


def test_scipy_namespace_dispatch_gives_tensors():
    """With SCIPY_ARRAY_API=1 SciPy dispatches on the namespace: still tensors, NumPy's values."""
    x = np.linspace(-3, 3, 13)
    _same(scipy.special.erf(lt.asarray(x)), scipy.special.erf(x))


def test_docs_list_every_mapped_ufunc():
    import pathlib

    text = (pathlib.Path(__file__).parents[1] / "docs" / "numpy-protocols.md").read_text()
    names = sorted(u.__name__ for u in P.ufunc_table() if getattr(np, u.__name__, None) is u)
    missing = [n for n in names if f"`{n}`" not in text]
    assert not missing, missing
    assert f"Today that is {len(names)} NumPy ufuncs" in text
