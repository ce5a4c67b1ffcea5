"""NumPy's ndarray surface on Tensor (lazytensor/_api/ndarray_methods.py) and NumPy's
signatures of the functions that are also methods, compared with NumPy called on the same
data: values, dtypes and shapes, over several dtypes and shapes (0-d and empty included).
Also: reductions stay lazy and fused, writes raise, format specs, the issue's programs."""

import copy as _copy
import math
import pickle
import warnings

import numpy as np
import pytest

import lazytensor as lt

RNG = np.random.default_rng(39)
DATA = {
    "f64": RNG.standard_normal((3, 4)),
    "f32": RNG.standard_normal((2, 3, 4)).astype(np.float32),
    "i32": RNG.integers(-9, 9, (4, 3)).astype(np.int32),
    "f16": RNG.standard_normal((3, 2)).astype(np.float16),
    "i8": np.array([-100, 100, 7, -128], np.int8),
    "u8": RNG.integers(0, 255, (5,)).astype(np.uint8),
    "bool": RNG.random((3, 4)) > 0.5,
    "c128": RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3)),
    "0d": np.array(2.75),
    "empty": np.zeros((0, 3)),
}
# a mask for NumPy's where= of each input's shape (fixed, the same for both libraries)
MASKS = {k: RNG.random(v.shape) > 0.3 for k, v in DATA.items()}
REAL = ("f64", "f32", "f16", "i32", "i8", "u8", "0d", "empty")
NUMERIC = REAL + ("c128",)
ALL = NUMERIC + ("bool",)
ND = ("f64", "f32", "i32", "bool", "c128")      # at least 2-d


def _tol(dtype):
    if np.dtype(dtype) == np.float16:
        return dict(rtol=2e-3, atol=2e-3)
    return dict(rtol=2e-6, atol=1e-6) if np.dtype(dtype).itemsize <= 4 or \
        np.dtype(dtype) == np.complex64 else dict(rtol=1e-12, atol=1e-12)


def check(got, want):
    """``got`` (lazytensor's result) is NumPy's ``want``: the same Python type for Python
    results; the same dtype, shape and values for arrays (NumPy scalars are 0-d)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, type(want)) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        return
    if type(want) in (bool, int, float, complex, str, bytes):
        assert type(got) is type(want) and (got == want or got != got and want != want), \
            (got, want)
        return
    assert isinstance(got, lt.Tensor), type(got)
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_allclose(g, w, equal_nan=True, **_tol(w.dtype))


def compare(f, key, *, np_f=None):
    """``f`` on the tensor against ``np_f`` (default ``f``) on the array, or both raise."""
    a = DATA[key]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's empty means...
            want = (np_f or f)(np, a.copy(), MASKS[key])
    except (ValueError, TypeError, IndexError) as exc:
        with pytest.raises((ValueError, TypeError, IndexError)):
            f(lt, lt.asarray(a.copy()), MASKS[key])
        return exc
    check(f(lt, lt.asarray(a.copy()), MASKS[key]), want)


# (label, call, inputs): call(xp, x, mask) spelled as NumPy code
METHODS = [
    ("sum()", lambda xp, x, m: x.sum(), ALL),
    ("sum(0)", lambda xp, x, m: x.sum(0), ALL),
    ("sum(axis=-1, keepdims=True)", lambda xp, x, m: x.sum(axis=-1, keepdims=True), ALL),
    ("sum(axis=(0, 1))", lambda xp, x, m: x.sum(axis=(0, 1)), ALL),
    ("sum(dtype=float32)", lambda xp, x, m: x.sum(dtype=xp.float32), REAL),
    ("sum(where=m)", lambda xp, x, m: x.sum(where=m), ALL),
    ("sum(0, where=m, keepdims)", lambda xp, x, m: x.sum(0, where=m, keepdims=True), ALL),
    ("sum(initial=5)", lambda xp, x, m: x.sum(initial=5), NUMERIC),
    ("prod(axis=0)", lambda xp, x, m: x.prod(axis=0), ALL),
    ("prod(where=m, initial=2)", lambda xp, x, m: x.prod(where=m, initial=2), NUMERIC),
    ("mean()", lambda xp, x, m: x.mean(), NUMERIC),
    ("mean(0)", lambda xp, x, m: x.mean(0), NUMERIC),
    ("mean(where=m)", lambda xp, x, m: x.mean(where=m), NUMERIC),
    ("mean(-1, where=m)", lambda xp, x, m: x.mean(-1, where=m), ("f64", "f32", "i32", "u8",
                                                                 "c128", "empty")),
    ("mean(dtype=float32)", lambda xp, x, m: x.mean(dtype=xp.float32), REAL),
    ("std()", lambda xp, x, m: x.std(), NUMERIC),
    ("std(ddof=1)", lambda xp, x, m: x.std(ddof=1), ("f64", "f32", "i32", "u8", "c128")),
    ("std(0, ddof=1, keepdims)", lambda xp, x, m: x.std(0, ddof=1, keepdims=True),
     ("f64", "f32", "i32", "c128")),
    ("var(axis=0)", lambda xp, x, m: x.var(axis=0), NUMERIC),
    ("var(where=m, ddof=1)", lambda xp, x, m: x.var(where=m, ddof=1),
     ("f64", "f32", "i32", "u8", "c128")),
    ("var(dtype=float32)", lambda xp, x, m: x.var(dtype=xp.float32), REAL),
    ("max()", lambda xp, x, m: x.max(), ALL),
    ("max(axis=0)", lambda xp, x, m: x.max(axis=0), ALL),
    ("max(initial=1)", lambda xp, x, m: x.max(initial=1), REAL + ("bool",)),
    ("min(-1, where=m, initial=True)", lambda xp, x, m: x.min(-1, where=m, initial=True),
     REAL + ("bool",)),
    ("max(0, where=m, initial=-9)", lambda xp, x, m: x.max(0, where=m, initial=-9),
     ("f64", "f32", "i32", "empty")),
    ("min(axis=-1)", lambda xp, x, m: x.min(axis=-1), ALL),
    ("argmax()", lambda xp, x, m: x.argmax(), ALL),
    ("argmax(0)", lambda xp, x, m: x.argmax(0), ALL),
    ("argmin(axis=-1, keepdims)", lambda xp, x, m: x.argmin(axis=-1, keepdims=True), ALL),
    ("cumsum()", lambda xp, x, m: x.cumsum(), ALL),
    ("cumsum(axis=0)", lambda xp, x, m: x.cumsum(axis=0), ALL),
    ("cumsum(dtype=float64)", lambda xp, x, m: x.cumsum(dtype=xp.float64), REAL),
    ("cumprod(axis=-1)", lambda xp, x, m: x.cumprod(axis=-1), NUMERIC),
    ("any()", lambda xp, x, m: x.any(), ALL),
    ("all(axis=0)", lambda xp, x, m: x.all(axis=0), ALL),
    ("any(where=m)", lambda xp, x, m: x.any(where=m), ALL),
    ("all(-1, where=m, keepdims)", lambda xp, x, m: x.all(-1, where=m, keepdims=True), ALL),
    ("trace()", lambda xp, x, m: x.trace(), ND),
    ("trace(1, dtype=float64)", lambda xp, x, m: x.trace(1, dtype=xp.float64),
     ("f64", "f32", "i32", "bool")),
    ("diagonal()", lambda xp, x, m: x.diagonal(), ND),
    ("diagonal(-1, 1, 0)", lambda xp, x, m: x.diagonal(-1, 1, 0), ND),
    # shape
    ("reshape(-1)", lambda xp, x, m: x.reshape(-1), ALL),
    ("reshape(2, -1)", lambda xp, x, m: x.reshape(2, -1), ALL),
    ("reshape((-1, 2), order=F)", lambda xp, x, m: x.reshape((-1, 2), order="F"), ALL),
    ("ravel()", lambda xp, x, m: x.ravel(), ALL),
    ("ravel(F)", lambda xp, x, m: x.ravel("F"), ALL),
    ("flatten()", lambda xp, x, m: x.flatten(), ALL),
    ("transpose()", lambda xp, x, m: x.transpose(), ALL),
    ("transpose(1, 0)", lambda xp, x, m: x.transpose(1, 0), ALL),
    ("transpose((1, 0))", lambda xp, x, m: x.transpose((1, 0)), ALL),
    ("T", lambda xp, x, m: x.T, ALL),
    ("mT", lambda xp, x, m: x.mT, ND),
    ("swapaxes(0, -1)", lambda xp, x, m: x.swapaxes(0, -1), ALL),
    ("squeeze()", lambda xp, x, m: x[None].squeeze(), ALL),
    ("squeeze(0)", lambda xp, x, m: x[None].squeeze(0), ALL),
    ("repeat(2)", lambda xp, x, m: x.repeat(2), ALL),
    ("repeat(2, axis=0)", lambda xp, x, m: x.repeat(2, axis=0), ALL),
    ("repeat([1, 0, 2], 0)", lambda xp, x, m: x.repeat([1, 0, 2], 0), ALL),
    # conversion
    ("astype(float32)", lambda xp, x, m: x.astype(xp.float32), REAL + ("bool",)),
    ("astype('int16')", lambda xp, x, m: x.astype("int16"), ("i32", "u8", "bool")),
    ("astype(bool)", lambda xp, x, m: x.astype(bool), ALL),
    ("astype(casting=safe)", lambda xp, x, m: x.astype(xp.int8, casting="safe"), ALL),
    ("astype(order=C, copy=False)", lambda xp, x, m: x.astype(xp.float64, "C", copy=False),
     REAL),
    ("copy()", lambda xp, x, m: x.copy(), ALL),
    ("item() / item(1)", lambda xp, x, m: x.item() if x.size == 1 else x.item(1), ALL),
    ("item(0, 1)", lambda xp, x, m: x.item(0, 1), ND),
    ("tolist()", lambda xp, x, m: x.tolist(), ALL),
    ("tobytes()", lambda xp, x, m: x.tobytes(), ALL),
    ("view(int64)", lambda xp, x, m: x.view(xp.int64), ("f64", "0d", "empty")),
    ("view(uint8)", lambda xp, x, m: x.view(xp.uint8), ("f32", "i32", "u8")),
    # elementwise
    ("clip(-1, 1)", lambda xp, x, m: x.clip(-1, 1), REAL),
    ("clip(min=0)", lambda xp, x, m: x.clip(min=0), REAL),
    ("clip(max=[...])", lambda xp, x, m: x.clip(max=[1, 2, 3]), ("f64", "empty")),
    ("round()", lambda xp, x, m: x.round(), REAL + ("c128",)),
    ("round(2)", lambda xp, x, m: (x * 3.3).round(2), REAL + ("c128",)),
    ("round(-1)", lambda xp, x, m: (x * 100).round(-1), REAL),
    ("round(-1) integers", lambda xp, x, m: (x * 7).round(-1), ("i32",)),
    ("conj()", lambda xp, x, m: x.conj(), NUMERIC),
    ("conjugate()", lambda xp, x, m: x.conjugate(), NUMERIC),
    ("real", lambda xp, x, m: x.real, NUMERIC),
    ("imag", lambda xp, x, m: x.imag, NUMERIC),
    # search / sort
    ("nonzero()", lambda xp, x, m: x.nonzero(), ALL),
    ("argsort()", lambda xp, x, m: x.argsort(kind="stable"), ALL),
    ("argsort(0)", lambda xp, x, m: x.argsort(0, kind="stable"), ALL),
    ("argsort(axis=None)", lambda xp, x, m: x.argsort(axis=None, kind="stable"), ALL),
    ("searchsorted", lambda xp, x, m: x.ravel()[x.ravel().argsort(kind="stable")]
     .searchsorted([0, 1.5]), REAL),
    ("searchsorted(right)", lambda xp, x, m: x.ravel()[x.ravel().argsort(kind="stable")]
     .searchsorted(1, "right"), REAL),
    ("take([0, 2])", lambda xp, x, m: x.take([0, 2]), ALL),
    ("take([0, -1], axis=1)", lambda xp, x, m: x.take([0, -1], axis=1), ALL),
    ("take(mode=wrap)", lambda xp, x, m: x.take([7, -9], mode="wrap"), ALL),
    ("take(mode=clip)", lambda xp, x, m: x.take([70], mode="clip"), ALL),
    ("compress", lambda xp, x, m: x.compress([True, False, True], axis=0), ALL),
    ("argpartition(1)", lambda xp, x, m: x.argpartition(1), ALL),
    ("argpartition(0, axis=None)", lambda xp, x, m: x.argpartition(0, axis=None), ALL),
    ("choose", lambda xp, x, m: (abs(x) % 3).astype(xp.int64).choose(
        [xp.zeros(x.shape), xp.ones(x.shape), xp.full(x.shape, 2.5)]), REAL),
    # linear algebra
    ("dot(x.T)", lambda xp, x, m: x.dot(x.T), ("f64", "f32", "i32")),
    ("dot(vector)", lambda xp, x, m: x.dot(xp.ones(x.shape[-1], dtype=x.dtype)), ("f64", "i32")),
    ("dot(3-d)", lambda xp, x, m: x.dot(xp.ones((2, x.shape[-1], 2))), ("f64", "f32")),
    # attributes
    ("itemsize", lambda xp, x, m: x.itemsize, ALL),
    ("nbytes", lambda xp, x, m: x.nbytes, ALL),
    ("size, ndim, shape", lambda xp, x, m: (x.size, x.ndim, x.shape), ALL),
    ("strides", lambda xp, x, m: xp.asarray(x).copy().strides if xp is np else x.strides,
     ALL),
    ("flags", lambda xp, x, m: tuple(bool(x.flags[k]) for k in ("C", "F", "A", "X"))
     + (x.flags.c_contiguous, x.flags["F_CONTIGUOUS"]), ALL),
    ("flat", lambda xp, x, m: [float(e.real) for e in x.flat], ALL),
    ("flat[2]", lambda xp, x, m: x.flat[2], ND),
    ("data", lambda xp, x, m: bytes(x.data), ALL),
    # Python protocols
    ("len, iter", lambda xp, x, m: (len(x), [v.tolist() for v in x]), ALL),
    ("0.0 in x, 1 in x", lambda xp, x, m: (0.0 in x, 1 in x), ALL),
    ("divmod(x, 3)", lambda xp, x, m: divmod(x, 3), REAL),
    ("divmod(7, x + 10)", lambda xp, x, m: divmod(7.5, x + 10), REAL),
    ("x + list", lambda xp, x, m: x + [1, 2, 3], ("f64", "i32", "empty", "u8")),
    ("list * x", lambda xp, x, m: [1.5, 2.0, 0.5] * x, ("f64", "f32", "i32", "empty")),
    ("x == tuple", lambda xp, x, m: x == (0, 1, 2), ("i32", "f32", "empty")),
    ("x >= list", lambda xp, x, m: x >= [[0], [1], [2]], ("f64", "i32")),
    ("x += list", lambda xp, x, m: _iadd(x, [1, 2, 3]), ("f64", "i32")),
    ("x @ list, list @ x", lambda xp, x, m: (x @ ([1.5] * x.shape[-1]), ([2] * x.shape[0]) @ x),
     ("f64", "f32", "i32")),
]


def _iadd(x, other):
    x += other
    return x


@pytest.mark.parametrize("label, call, keys", METHODS, ids=[m[0] for m in METHODS])
def test_method_matches_numpy(label, call, keys):
    raised = [compare(call, key) for key in keys]
    assert not all(raised), raised      # some input gives a value, not only errors


# top-level functions with NumPy's signature (the Array API's arguments keep the standard's)
FUNCTIONS = [
    ("sum(x, 0)", lambda xp, x, m: xp.sum(x, 0), ALL),
    ("sum(x, None, float64, None, True)", lambda xp, x, m: xp.sum(x, None, xp.float64, None,
                                                                 True), REAL),
    ("prod(x, -1, where=)", lambda xp, x, m: xp.prod(x, -1, where=m), NUMERIC),
    ("mean(x, (0, 1))", lambda xp, x, m: xp.mean(x, (0, 1)), ("f64", "f32", "i32")),
    ("std(x, ddof=1)", lambda xp, x, m: xp.std(x, ddof=1), ("f64", "f32", "i32")),
    ("std(x, correction=1)", lambda xp, x, m: xp.std(x, correction=1), ("f64", "f32")),
    ("var(x, 0, mean=)", lambda xp, x, m: xp.var(x, 0, mean=xp.mean(x, 0, keepdims=True)),
     ("f64", "f32", "i32")),
    ("max(x, 0) / amax / amin", lambda xp, x, m: (xp.max(x, 0), xp.amax(x), xp.amin(x, 1)),
     ("f64", "f32", "i32", "bool")),
    ("argmax(x, 1)", lambda xp, x, m: xp.argmax(x, 1), ND),
    ("any(x, 0) / all(x, where=)", lambda xp, x, m: (xp.any(x, 0), xp.all(x, where=m)), ALL),
    ("cumsum(x)", lambda xp, x, m: xp.cumsum(x), ALL),
    ("cumprod(x, 0, float64)", lambda xp, x, m: xp.cumprod(x, 0, xp.float64), REAL),
    ("ptp(x) / ptp(x, 0, keepdims)", lambda xp, x, m: (xp.ptp(x), xp.ptp(x, 0, keepdims=True)),
     ("f64", "f32", "i32", "u8")),
    ("round(x, 1) / around", lambda xp, x, m: (xp.round(x * 1.7, 1), xp.around(x, -1)),
     ("f64", "f32", "i32")),
    ("clip(x, -1, 2)", lambda xp, x, m: xp.clip(x, -1, 2), REAL),
    ("clip(x, a_min=0, a_max=5)", lambda xp, x, m: xp.clip(x, a_min=0, a_max=5), REAL),
    ("squeeze(x)", lambda xp, x, m: xp.squeeze(x[None, :, None]), ND),
    ("take(x, [0, 2])", lambda xp, x, m: xp.take(x, [0, 2]), ALL),
    ("take(x, [[0], [1]], 0)", lambda xp, x, m: xp.take(x, [[0], [1]], 0), ALL),
    ("repeat(x, 3, 1)", lambda xp, x, m: xp.repeat(x, 3, 1), ND),
    ("transpose(x) / (x, (1, 0, 2))", lambda xp, x, m: (xp.transpose(x),
                                                       xp.transpose(x, (1, 0, 2))), ("f32",)),
    ("ravel(x)", lambda xp, x, m: xp.ravel(x), ALL),
    ("swapaxes(x, 0, 1)", lambda xp, x, m: xp.swapaxes(x, 0, 1), ND),
    ("nonzero(x)", lambda xp, x, m: xp.nonzero(x), ALL),
    ("searchsorted(x, v, side)", lambda xp, x, m: xp.searchsorted(xp.sort(x, axis=None),
                                                                  [0, 1], "right"), REAL),
    ("sort(x, None) / sort(x, 0, kind)", lambda xp, x, m: (xp.sort(x, None),
                                                          xp.sort(x, 0, "quicksort")), ND),
    ("argsort(x, 0, kind=stable)", lambda xp, x, m: xp.argsort(x, 0, kind="stable"), ALL),
    ("dot(x, x.T)", lambda xp, x, m: xp.dot(x, x.T), ("f64", "i32")),
    ("dot(scalar)", lambda xp, x, m: xp.dot(x, 2), ("f64", "i32", "0d")),
    ("conj(x) / real / imag", lambda xp, x, m: (xp.conj(x), xp.real(x), xp.imag(x)), ("c128",)),
    ("diagonal(x, 1)", lambda xp, x, m: xp.diagonal(x, 1), ND),
    ("trace(x, 0, 0, 1, float32)", lambda xp, x, m: xp.trace(x, 0, 0, 1, xp.float32),
     ("f64", "i32")),
    ("copy(x)", lambda xp, x, m: xp.copy(x), ALL),
    ("reshape(x, (2, -1), order=F)", lambda xp, x, m: xp.reshape(x, (2, -1), order="F"),
     ("f64", "i32")),
    ("sum of a list", lambda xp, x, m: xp.sum([[1, 2], [3, 4]], axis=0), ("f64",)),
    ("real/imag/conj of lists", lambda xp, x, m: (xp.real([1 + 2j, 3]), xp.imag([1 + 2j]),
                                                  xp.conj([1 - 1j])), ("f64",)),
]


@pytest.mark.parametrize("label, call, keys", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_function_matches_numpy(label, call, keys):
    raised = [compare(call, key) for key in keys]
    assert not all(raised), raised      # some input gives a value, not only errors


def test_ptp_method_is_numpy_ptp():
    """ndarray.ptp left NumPy 2; the method stays for NumPy 1 code (np.ptp's result)."""
    compare(lambda xp, x, m: x.ptp(0) if xp is lt else np.ptp(x, 0), "f64")


# ---- laziness: the reductions stay recorded and fused --------------------------------------
# (label, expression, kernels in all): one kernel reads the input, computes the elementwise
# work and reduces it (several reductions of one input share it); the others combine the
# small reduced results (initial=, the mean's division, max - min)
LAZY = [
    ("sum", lambda x: (x * 2).sum(), 1),
    ("sum(0, keepdims)", lambda x: (x * 2).sum(0, keepdims=True), 1),
    ("sum(where)", lambda x: (x * 2).sum(where=x > 0), 1),
    ("sum(initial)", lambda x: (x * 2).sum(initial=1.5), 2),
    ("mean(where)", lambda x: (x * 2).mean(axis=1, where=x > 0), 2),
    ("max(where, initial)", lambda x: (x * 2).max(where=x > 0, initial=0.0), 2),
    ("any(where)", lambda x: (x > 1).any(where=x < 2), 1),
    ("all", lambda x: (x * 2).all(-1), 1),
    ("prod", lambda x: (x + 1).prod(0), 1),
    ("ptp", lambda x: lt.ptp(x * 2), 2),
]


@pytest.mark.parametrize("label, f, kernels", LAZY, ids=[c[0] for c in LAZY])
def test_reductions_stay_lazy_and_fused(label, f, kernels):
    a = DATA["f64"]
    out = f(lt.asarray(a))
    assert not out.is_evaluated
    text = str(lt.explain(out))
    heads = [line for line in text.splitlines() if line.startswith("kernel ")]
    assert len(heads) == kernels, text
    assert sum(f"over shape {a.shape}" in h for h in heads) == 1, text
    assert "fused: the reduced value is not stored" in text
    check(out, f(a) if label != "ptp" else np.ptp(a * 2))


def test_sum_method_is_one_kernel_as_the_function():
    x = lt.asarray(DATA["f32"])
    assert str(lt.explain((x * 2).sum(0))) == str(lt.explain(lt.sum(x * 2, axis=0)))
    y = lt.asarray(DATA["f64"])
    assert str(lt.explain((y * 2).sum())).count("kernel ") == 1


def test_T_of_a_pending_tensor():
    x = lt.asarray(DATA["f32"])
    check((x + 1).T, (DATA["f32"] + 1).T)
    v = lt.asarray(DATA["u8"])
    assert v.T is v and lt.asarray(2.0).T.shape == ()


# ---- writes into the tensor: NumPy's on NumPy's program (tests/test_numpy_writes.py too) ----
WRITES = [
    ("sort()", lambda m, x: x.sort()),
    ("sort(axis=0)", lambda m, x: x.sort(axis=0)),
    ("fill(0)", lambda m, x: x.fill(0)),
    ("put([0], [9])", lambda m, x: x.put([0], [9.0])),
    ("partition(1)", lambda m, x: x.partition(1)),
    ("flat[0] = 1", lambda m, x: x.flat.__setitem__(0, 1.0)),
    ("sum(out=Tensor)", lambda m, x: x.sum(0, out=m.zeros(4))),
    ("cumsum(out=Tensor)", lambda m, x: m.cumsum(x, out=m.zeros(12))),
    ("clip(out=Tensor)", lambda m, x: x.clip(0, 1, out=x)),
    ("round(out=Tensor)", lambda m, x: x.round(1, out=x)),
    ("take(out=Tensor)", lambda m, x: x.take([0], out=m.zeros(1))),
]


@pytest.mark.parametrize("label, f", WRITES, ids=[w[0] for w in WRITES])
def test_writes_are_numpys(label, f):
    a = DATA["f64"].copy()
    x = lt.asarray(DATA["f64"]) * 1.0
    want, got = f(np, a), f(lt, x)
    assert (want is None) == (got is None)
    if want is not None:
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(x.numpy(), a)


@pytest.mark.parametrize("label, f", [
    ("resize((2, 2))", lambda x: x.resize((2, 2))),
    ("flags['A'] = False", lambda x: x.flags.__setitem__("A", False)),
], ids=["resize", "flags"])
def test_unsupported_writes_raise(label, f):
    x = lt.asarray(DATA["f64"])
    before = x.numpy().copy()
    with pytest.raises(lt.Unsupported):
        f(x)
    np.testing.assert_array_equal(x.numpy(), before)      # nothing was written


def test_out_into_a_numpy_array_is_written_and_returned():
    a = DATA["f64"]
    out = np.empty(4)
    got = lt.asarray(a).sum(0, out=out)
    assert got is out
    np.testing.assert_allclose(out, a.sum(0), rtol=1e-12)
    with pytest.raises(ValueError, match="out has shape"):
        lt.asarray(a).sum(out=np.empty(3))


# ---- argument errors, NumPy's way ---------------------------------------------------------
ERRORS = [
    (lambda x: x.max(where=x > 0), ValueError, "to use a where mask one has to specify 'initial'"),
    (lambda x: x.astype(lt.int32).min(0, where=x > 0), ValueError,
     "min: reduction operation 'minimum' does not have an identity"),
    (lambda x: x.std(ddof=1, correction=1), ValueError, "ddof and correction"),
    (lambda x: x.sum(where=[True, False]), ValueError,
     r"sum: operands could not be broadcast together with shapes \(3, 4\).*\(2,\)"),
    (lambda x: x.reshape(5, 2), ValueError,
     r"reshape: cannot reshape array of size 12 into shape \(5, 2\)"),
    (lambda x: x.squeeze(0), ValueError,
     "squeeze: cannot select an axis to squeeze out which has size not equal to one"),
    (lambda x: x.sum(where=x), TypeError, "where must be a bool"),
    (lambda x: x.astype(lt.int8, casting="same_kind"), TypeError,
     r"Cannot cast array data from dtype\('float64'\) to dtype\('int8'\)"),
    (lambda x: x.sort(order="a"), ValueError, "order"),
    (lambda x: lt.sort(x, order="a"), lt.Unsupported, "structured"),
    (lambda x: lt.sort(x, kind="fast"), ValueError, "kind"),
    (lambda x: x.take([0], mode="bad"), ValueError, "mode"),
    (lambda x: x.reshape(12, order="Z"), ValueError, "order"),
    (lambda x: x.view(np.matrix), lt.Unsupported, "subclass"),
    (lambda x: x[:, :3].view(np.complex128), ValueError, "view"),
    (lambda x: x.diagonal(0, 1, 1), ValueError, "axis1 and axis2"),
    (lambda x: lt.ptp(x > 0), TypeError, "bool"),
    (lambda x: f"{x:.2f}", TypeError, "unsupported format string"),
    (lambda x: round(x, 1), TypeError, "__round__"),
    (lambda x: x.compress([[True]]), ValueError, "1-d"),
    (lambda x: lt.round(x, 1.5), TypeError, "decimals must be an integer"),
    (lambda x: x.sum(axis=5), np.exceptions.AxisError, "sum"),
    (lambda x: x.max(initial="a"), TypeError, "max: initial must be a number"),
    (lambda x: x + [1, "a"], TypeError, "add: expected a Tensor or an array-like, got list"),
    (lambda x: x.sum(out=[0.0]), TypeError, "sum: out must be None, a Tensor or a NumPy"),
]


@pytest.mark.parametrize("f, kind, match", ERRORS, ids=[e[2][:30] for e in ERRORS])
def test_argument_errors(f, kind, match):
    with pytest.raises(kind, match=match):
        f(lt.asarray(DATA["f64"]))


# ---- 0-d tensors as NumPy scalars -----------------------------------------------------------
@pytest.mark.parametrize("spec", [".3f", "8.2e", "+.1%", "g", ">10", "", ".0f", "_^12.4"])
@pytest.mark.parametrize("value", [2.71828, -1234.5, 1e-8, 0.5, math.inf])
def test_format_specs_of_0d_tensors(spec, value):
    for dtype in (np.float64, np.float32):
        assert f"{lt.asarray(value, dtype=dtype):{spec}}" == f"{dtype(value):{spec}}" \
            if spec else str(np.asarray(value, dtype))


@pytest.mark.parametrize("spec", ["d", "+05d", "x", "_", ""])
def test_format_specs_of_0d_integer_tensors(spec):
    for v in (7, -12345, 0):
        assert format(lt.asarray(v), spec) == format(np.int64(v), spec)


def test_format_of_reductions_and_n_d():
    a = DATA["f64"]
    x = lt.asarray(a)
    assert f"{lt.sum(x):.3f}" == f"{np.sum(a):.3f}"
    assert f"{x.max():.4f}" == f"{a.max():.4f}"
    assert f"{x}" == str(a) and format(x, "") == str(x)


@pytest.mark.parametrize("value, nd", [(2.567, 2), (2.5, None), (3.5, None), (-1.25, 1),
                                       (1234.5678, -2), (7, None), (17, -1)])
def test_builtin_round_of_0d_as_numpy_scalars(value, nd):
    arr = np.asarray(value)
    want = round(arr[()], nd) if nd is not None else round(arr[()])
    got = round(lt.asarray(value), nd) if nd is not None else round(lt.asarray(value))
    if nd is None:
        assert type(got) is int and got == want
    else:
        check(got, want)


def test_index_and_scalar_conversions_as_numpy():
    assert [10, 20, 30][lt.asarray(2)] == 30
    assert operator_index(lt.sum(lt.asarray([1, 1]))) == 2
    for bad in (lt.asarray(2.0), lt.asarray([1]), lt.asarray(True)):
        with pytest.raises(TypeError):
            operator_index(bad)
        with pytest.raises(TypeError):
            operator_index(np.asarray(bad))
    assert int(lt.asarray(-2.7)) == int(np.asarray(-2.7))
    assert float(lt.asarray(3)) == float(np.asarray(3))
    for conv in (int, float, complex):
        with pytest.raises(TypeError):
            conv(lt.asarray([1.0, 2.0]))
        with pytest.raises(TypeError):
            conv(np.asarray([1.0, 2.0]))


def operator_index(x):
    import operator

    return operator.index(x)


def test_tensors_stay_unhashable_as_ndarray():
    with pytest.raises(TypeError):
        hash(lt.asarray(1.0))
    with pytest.raises(TypeError):
        hash(np.asarray(1.0))


def test_lists_take_numpy_promotion():
    f32 = np.ones(3, np.float32)
    i8 = np.ones(3, np.int8)
    for a, other in ((f32, [1, 2, 3]), (f32, [0.5, 1, 2]), (i8, [1, 2, 3]), (i8, (True,) * 3),
                     (f32, 2), (i8, 2), (i8, 2.5)):
        check(lt.asarray(a) + other, a + other)
        check(other * lt.asarray(a), other * a)
        check(lt.asarray(a) < other, a < other)


def test_tofile_writes_numpys_bytes(tmp_path):
    for sep in ("", " "):
        lt.asarray(DATA["f32"]).tofile(tmp_path / "t.bin", sep=sep)
        DATA["f32"].tofile(tmp_path / "n.bin", sep=sep)
        assert (tmp_path / "t.bin").read_bytes() == (tmp_path / "n.bin").read_bytes()


@pytest.mark.parametrize("left, right, op", [
    (np.int32, np.int64, "+="), (np.float32, np.float64, "*="), (np.int8, np.int16, "-="),
    (np.float16, np.float32, "/="), (np.int32, np.float64, "+="), (np.uint8, np.int64, "*=")])
def test_inplace_operators_cast_back_by_same_kind(left, right, op):
    a, b = np.arange(1, 4).astype(left), (np.arange(3) + 1.25).astype(right)

    def run(xp):
        x, y = xp.asarray(a.copy()), xp.asarray(b)
        exec(f"x {op} y")
        return x
    try:
        want = run(np)
    except TypeError:           # NumPy's UFuncTypeError: float64 into int32
        with pytest.raises(TypeError, match="same_kind"):
            run(lt)
        return
    check(run(lt), want)


@pytest.mark.parametrize("make", [lambda x: x.copy(), lambda x: lt.copy(x),
                                  lambda x: x.astype(x.dtype), lambda x: x.flatten(),
                                  lambda x: lt.astype(x, x.dtype), lambda x: +x,
                                  lambda x: x.clip(), lambda x: x.round(),
                                  lambda x: x.round(2)])
def test_a_copy_is_its_own_tensor(make):
    """As in NumPy, an in-place operator on a copy leaves the original alone (a pending
    original included: the copy shares its node, never its tensor object)."""
    for x in (lt.asarray(DATA["f64"]), lt.asarray(DATA["f64"]) * 2, lt.asarray(DATA["i32"]),
              lt.asarray(DATA["i32"]) + 1):
        want = np.asarray(x).copy()
        y = make(x)
        expected = np.asarray(y) + 1
        y += 1
        check(x, want)
        check(y, expected)


def test_copies_and_pickles_keep_values():
    x = lt.asarray(DATA["f32"]) * 2
    for y in (x.copy(), _copy.copy(x), _copy.deepcopy(x), pickle.loads(pickle.dumps(x)),
              lt.copy(x), x.flatten().reshape(x.shape)):
        check(y, DATA["f32"] * 2)


def test_strides_and_flags_are_numpy_c_layout():
    for shape in [(), (0,), (3,), (2, 0, 3), (2, 1, 3), (1, 3), (3, 1), (4, 5, 6)]:
        for dtype in (np.float64, np.int16, np.bool_):
            a = np.zeros(shape, dtype)
            t = lt.zeros(shape, dtype=dtype)
            assert t.strides == a.strides, shape
            assert t.flags["F_CONTIGUOUS"] == a.flags["F_CONTIGUOUS"], shape
            assert t.flags.c_contiguous and t.nbytes == a.nbytes and t.itemsize == a.itemsize
    for xp in (np, lt):                                  # NumPy's base: the first of a chain
        x = xp.asarray(DATA["f64"]) * 1
        assert x[::2].base is x and x[1:][::2].base is x and x.T.base is x
        assert x.base is None and (x * 2).base is None and x[[0, 1]].base is None


def _writeable_program(xp, a):
    """Reads and writes around x.flags.writeable; each step's outcome: a value, or the
    kind of error (NumPy's: ValueError)."""
    x = xp.asarray(a) * 1 if xp is lt else a * 1
    out = []

    def step(f):
        try:
            r = f()
            out.append(None if r is None else np.array(r).tolist())
        except ValueError:
            out.append("ValueError")

    step(lambda: x.flags.writeable)
    x.flags.writeable = False
    v = x[1:]
    step(lambda: (x.flags["W"], v.flags.writeable, xp.broadcast_to(x, (2, 5)).flags.writeable))
    step(lambda: x.__setitem__(0, 7))
    step(lambda: v.__setitem__(0, 7))
    step(lambda: np.asarray(x).flags.writeable)
    step(lambda: setattr(v.flags, "writeable", True))          # a view of a read-only base
    step(lambda: (x * 2 + x).tolist())                          # reads still work
    x.flags.writeable = True
    step(lambda: x.__setitem__(0, 7))
    step(lambda: x.tolist())
    step(lambda: (v.flags.writeable, v.tolist()))               # v stays read-only, sees x
    b = xp.broadcast_to(x, (2, 5))
    step(lambda: setattr(b[1].flags, "writeable", True))       # NumPy allows it
    step(lambda: setattr(b.flags, "writeable", True))
    step(lambda: b.__setitem__((1, 2), -5))                    # writes x[2]
    step(lambda: (x.tolist(), b.tolist()))
    x.flags.writeable = False
    step(lambda: setattr(xp.broadcast_to(x, (2, 5)).flags, "writeable", True))
    return out


def test_writeable_flag_as_numpys():
    a = np.array([3.0, 2.0, 5.0, 1.0, 4.0])
    assert _writeable_program(lt, a) == _writeable_program(np, a)


# ---- the three programs of the issue, as far as methods go ---------------------------------
def test_program_logistic_regression_methods():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((500, 8))
    w_true = rng.standard_normal(8)
    noise = rng.standard_normal(500)
    for xp in (np, lt):
        Xa = xp.asarray(X)
        y = (Xa @ xp.asarray(w_true) + 0.1 * xp.asarray(noise) > 0).astype(xp.float64)
        w = xp.zeros(8)
        for _ in range(20):
            p = 1 / (1 + xp.exp(-(Xa @ w)))
            w -= 0.1 * Xa.T @ (p - y) / len(y)
        loss = -xp.mean(y * xp.log(xp.clip(p, 1e-12, None))
                        + (1 - y) * xp.log(xp.clip(1 - p, 1e-12, None)))
        if xp is np:
            want = (y, w, loss)
        else:
            check(y, want[0])
            check(w, want[1])
            check(loss, want[2])


def test_program_smoothed_signal_methods():
    t = np.linspace(0, 10, 2001)
    s = np.sin(2 * np.pi * 0.7 * t) + 0.3 * np.sin(2 * np.pi * 3.1 * t)
    sm = np.convolve(s, np.ones(9) / 9, mode="same")
    d = np.diff(sm)
    for xp in (np, lt):
        D, SM = xp.asarray(d), xp.asarray(sm)
        peaks = xp.nonzero((D[:-1] > 0) & (D[1:] <= 0))[0] + 1
        c = xp.cumsum(xp.abs(D)).max()
        f = f"{SM.max():.4f}"
        if xp is np:
            want = (peaks, c, f)
        else:
            check(peaks, want[0])
            check(c, want[1])
            assert f == want[2]


def test_program_nearest_centroids_methods():
    rng = np.random.default_rng(2)
    a = rng.uniform(size=(300, 3))
    b = a[rng.choice(300, 5, replace=False)]
    for xp in (np, lt):
        A, B = xp.asarray(a), xp.asarray(b)
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)
        lab = d2.argmin(axis=1)
        order = xp.argsort(xp.sqrt(d2.min(axis=1)))[::-1][:10]
        tot = float(d2.min(axis=1).sum())
        if xp is np:
            want = (d2, lab, order, tot)
        else:
            check(d2, want[0])
            check(lab, want[1])
            check(order, want[2])
            assert tot == pytest.approx(want[3], rel=1e-12)
