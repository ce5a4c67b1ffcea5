"""Libraries that take NumPy's results for ndarrays, handed tensors (issue 39, item 3).

pandas, matplotlib, scikit-image, scipy.ndimage/signal/stats and numpy.testing are called
on lazytensor Tensors (pending expressions and computed values; float32, float64, int64;
1-d and 2-d) and on the same NumPy arrays; the results must agree: the same values, dtypes
and shapes, and the same result types, except that a result the library made with ``np.*``
from a tensor is a Tensor where NumPy's is an ndarray or NumPy scalar (NEP 13/18).
See docs/numpy-protocols.md, "Libraries that expect ndarrays".
"""

import json
import os
import subprocess
import sys
import textwrap
import traceback
from io import BytesIO

import matplotlib
import numpy as np
import pandas as pd
import pytest
import scipy.ndimage as ndi
import scipy.signal
import scipy.stats
import skimage.exposure
import skimage.feature
import skimage.filters
import skimage.measure
import skimage.transform

import lazytensor as lt

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

_RNG = np.random.default_rng(39)
_DATA = {
    "float32": _RNG.standard_normal(40).astype(np.float32),
    "float64": _RNG.standard_normal(40),
    "int64": _RNG.integers(-50, 50, 40),
}
_IMAGES = {
    "float32": _RNG.random((12, 15)).astype(np.float32),
    "float64": _RNG.random((12, 15)),
    "int64": _RNG.integers(0, 200, (12, 15)),
}
_FORMS = {
    "value": lt.asarray,
    "pending": lambda a: lt.asarray(a) * 1,     # an expression not evaluated yet
}
_CASES = [(d, f) for d in _DATA for f in _FORMS]
_IDS = [f"{d}-{f}" for d, f in _CASES]


def _inputs(table, dtype, form):
    a = table[dtype]
    t = _FORMS[form](a)
    assert isinstance(t, lt.Tensor)
    return t, a


def _same(got, want, rtol):
    """``got`` (the call on tensors) agrees with ``want`` (the call on arrays)."""
    if isinstance(want, (pd.DataFrame, pd.Series, pd.Index, pd.Categorical)):
        assert type(got) is type(want)
        if isinstance(want, pd.DataFrame):
            pd.testing.assert_frame_equal(got, want, rtol=rtol)
        elif isinstance(want, pd.Series):
            pd.testing.assert_series_equal(got, want, rtol=rtol)
        elif isinstance(want, pd.Index):
            pd.testing.assert_index_equal(got, want)
        else:
            pd.testing.assert_extension_array_equal(got, want)
        return
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol)
        return
    if isinstance(want, (np.ndarray, np.generic)):
        # np.* on tensors gives tensors: the one type allowed to differ
        assert type(got) is type(want) or isinstance(got, lt.Tensor), type(got)
        g, w = np.asarray(got), np.asarray(want)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        if isinstance(want, np.ma.MaskedArray):
            np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
        if w.dtype.kind in "fc":
            # relative to the largest value: a difference of sums in the last bit shows
            # as a large relative error in a value that cancels to near zero (zscore)
            scale = float(np.max(np.abs(w), initial=0))
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale)
        else:
            np.testing.assert_array_equal(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    assert got == pytest.approx(want, rel=rtol, abs=0)


def _rtol(a):
    return 1e-6 if a.dtype == np.float32 else 1e-12


def _check(call, table, dtype, form):
    t, a = _inputs(table, dtype, form)
    _same(call(t), call(a), _rtol(a))


# ---- pandas -------------------------------------------------------------------------------
_PANDAS_1D = {
    "Series": lambda x: pd.Series(x),
    "Series-index": lambda x: pd.Series(x, index=np.arange(len(x)) * 2, name="s"),
    "DataFrame-dict": lambda x: pd.DataFrame({"a": x}),
    "DataFrame-dict-two": lambda x: pd.DataFrame({"a": x, "b": x * 2}),
    "assign": lambda x: pd.DataFrame({"x": np.arange(len(x))}).assign(col=x),
    "setitem": lambda x: _set(pd.DataFrame({"x": np.arange(len(x))}), "y", x),
    "Series-plus": lambda x: pd.Series(np.arange(len(x))) + x,
    "Series-values": lambda x: pd.Series(x).values,
    "rolling-mean": lambda x: pd.Series(x).rolling(3).mean(),
    "cut": lambda x: pd.cut(x, 4),
    "Index": lambda x: pd.Index(x),
    "value_counts": lambda x: pd.Series(x % 5).value_counts(),
}
_PANDAS_2D = {
    "DataFrame": lambda x: pd.DataFrame(x),
    "DataFrame-columns": lambda x: pd.DataFrame(x[:, :3], columns=list("abc")),
    "values-round-trip": lambda x: pd.DataFrame(x).values,
    "to_numpy": lambda x: pd.DataFrame(x).to_numpy(),
    "describe": lambda x: pd.DataFrame(x).describe(),
}


def _set(df, key, value):
    df[key] = value
    return df


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_PANDAS_1D))
def test_pandas_1d(name, dtype, form):
    _check(_PANDAS_1D[name], _DATA, dtype, form)


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_PANDAS_2D))
def test_pandas_2d(name, dtype, form):
    _check(_PANDAS_2D[name], _IMAGES, dtype, form)


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
def test_pandas_values_back_to_a_tensor(dtype, form):
    t, a = _inputs(_IMAGES, dtype, form)
    back = lt.asarray(pd.DataFrame(t).values)
    assert back.dtype == a.dtype and back.shape == a.shape
    np.testing.assert_array_equal(np.asarray(back), a)


# ---- matplotlib (Agg) -----------------------------------------------------------------------
_FIGURE = plt.figure(figsize=(2, 2), dpi=20)    # one figure, cleared after each call


def _drawn(call):
    """``call(ax, x)``'s stored data; with a tensor, after the figure is rendered to PNG
    (rendering the NumPy call as well would only double the time)."""
    def run(x):
        ax = _FIGURE.add_subplot()
        try:
            stored = call(ax, x)
            if isinstance(x, lt.Tensor):
                _FIGURE.savefig(BytesIO(), format="png")
            return stored
        finally:
            _FIGURE.clear()
    return run


def _bars(container):
    return [np.array([r.get_x(), r.get_y(), r.get_width(), r.get_height()])
            for r in container]


_MPL_1D = {
    "plot": lambda ax, x: ax.plot(x, x ** 2)[0].get_xydata(),
    "plot-y": lambda ax, x: ax.plot(x)[0].get_xydata(),
    "scatter": lambda ax, x: (lambda p: (p.get_offsets(), p.get_array()))(
        ax.scatter(x, x * 2, c=x)),
    "hist": lambda ax, x: ax.hist(x, bins=7)[:2],
    "bar": lambda ax, x: _bars(ax.bar(np.arange(8), x[:8])),
    "bar-tensor-x": lambda ax, x: _bars(ax.bar(x[:5], x[5:10] * 0 + 1, width=0.1)),
    "set_xlim": lambda ax, x: (ax.set_xlim(x.min(), x.max()), ax.get_xlim())[1],
    "fill_between": lambda ax, x: ax.fill_between(np.arange(len(x)), x, 0).get_paths()[0]
    .vertices,
    "errorbar": lambda ax, x: ax.errorbar(np.arange(len(x)), x, yerr=abs(x))[0]
    .get_xydata(),
    "boxplot": lambda ax, x: ax.boxplot(x)["medians"][0].get_xydata(),
}
_MPL_2D = {
    "imshow": lambda ax, x: ax.imshow(x).get_array(),
    "pcolormesh": lambda ax, x: ax.pcolormesh(x).get_array(),
    "contour": lambda ax, x: ax.contour(x.astype(float), levels=4).levels,
}


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_MPL_1D))
def test_matplotlib_1d(name, dtype, form):
    _check(_drawn(_MPL_1D[name]), _DATA, dtype, form)


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_MPL_2D))
def test_matplotlib_2d(name, dtype, form):
    _check(_drawn(_MPL_2D[name]), _IMAGES, dtype, form)


# ---- scikit-image, scipy -----------------------------------------------------------------
_IMAGE_CALLS = {
    "gaussian": lambda x: skimage.filters.gaussian(x, sigma=1.5),
    "sobel": lambda x: skimage.filters.sobel(x),
    "threshold_otsu": lambda x: skimage.filters.threshold_otsu(x),
    "resize": lambda x: skimage.transform.resize(x, (6, 20)),
    # an 8-bit image: rescaled to int64's full range, the top value casts from 2.0**63,
    # where NumPy's float->int cast is undefined and lazytensor's saturates
    "rescale_intensity": lambda x: skimage.exposure.rescale_intensity(x.astype(np.uint8)),
    "rescale_intensity-range": lambda x: skimage.exposure.rescale_intensity(
        x, out_range=(0.0, 1.0)),
    "equalize_hist": lambda x: skimage.exposure.equalize_hist(x),
    "canny": lambda x: skimage.feature.canny(x.astype(float)),
    "label": lambda x: skimage.measure.label(x > x.mean()),
    "ndi.gaussian_filter": lambda x: ndi.gaussian_filter(x, 1),
    "ndi.sobel": lambda x: ndi.sobel(x),
    "ndi.zoom": lambda x: ndi.zoom(x, 2),
    "ndi.median_filter": lambda x: ndi.median_filter(x, 3),
    "ndi.label": lambda x: ndi.label(x > x.mean()),
}
_SIGNAL_CALLS = {
    "find_peaks": lambda x: scipy.signal.find_peaks(x)[0],
    "convolve": lambda x: scipy.signal.convolve(x, x[:5]),
    "zscore": lambda x: scipy.stats.zscore(x),
}


_SCIPY_DEFAULT_RUN = """
import json, sys
sys.path.insert(0, {tests!r})
import test_ndarray_callers as m
print(json.dumps(m._run_scipy_callers()))
"""


def _run_scipy_callers() -> dict:
    """Every (table, name, dtype, form) of the SciPy-based calls: "ok" or the failure."""
    out = {}
    for table, calls, data in (("images", _IMAGE_CALLS, _IMAGES),
                               ("signals", _SIGNAL_CALLS, _DATA)):
        for name, call in calls.items():
            for dtype, form in _CASES:
                try:
                    _check(call, data, dtype, form)
                    out[f"{table}/{name}/{dtype}/{form}"] = "ok"
                except Exception:      # noqa: BLE001  (reported by the test)
                    out[f"{table}/{name}/{dtype}/{form}"] = traceback.format_exc()[-3000:]
    return out


@pytest.fixture(scope="module")
def scipy_default_results():
    """The SciPy-based calls (scikit-image filters use scipy.ndimage) run in SciPy's default
    mode, the one their users have: conftest sets SCIPY_ARRAY_API=1 for this process, and
    in that mode SciPy dispatches on the namespace and refuses a tensor beside a NumPy
    kernel ("Multiple namespaces"), so they run once in a fresh process without it."""
    env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    script = _SCIPY_DEFAULT_RUN.format(tests=os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_IMAGE_CALLS))
def test_images(name, dtype, form, scipy_default_results):
    assert scipy_default_results[f"images/{name}/{dtype}/{form}"] == "ok"


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_SIGNAL_CALLS))
def test_signals(name, dtype, form, scipy_default_results):
    assert scipy_default_results[f"signals/{name}/{dtype}/{form}"] == "ok"


def _outcome(call, x):
    try:
        return "result", call(x)
    except Exception as exc:        # noqa: BLE001  (the outcome is what is compared)
        return "raised", type(exc)


@pytest.mark.parametrize("form", list(_FORMS))
def test_writable_buffer_callers_see_a_read_only_array(form):
    """A computed tensor's value is read-only (writes into tensors come with views), so
    a caller that needs a writable buffer (skimage's warp, through Cython memoryviews)
    does with a tensor what it does with a read-only ndarray; np.array(t) is the copy to
    give it."""
    a = _IMAGES["float64"]
    t = _FORMS[form](a)
    call = lambda x: skimage.transform.rotate(x, 30)   # noqa: E731
    read_only = a.copy()
    read_only.flags.writeable = False
    got = _outcome(call, t)
    if not np.asarray(t).flags.writeable:
        want = _outcome(call, read_only)
        assert got[0] == want[0]
        if got[0] == "raised":
            assert got[1] is want[1]
            _same(call(np.array(t)), call(a), 1e-12)
            return
    assert got[0] == "result"
    _same(got[1], call(a), 1e-12)


# ---- numpy.testing ---------------------------------------------------------------------
_ASSERTS = {
    "assert_allclose": np.testing.assert_allclose,
    "assert_array_equal": np.testing.assert_array_equal,
    "assert_equal": np.testing.assert_equal,
    "assert_array_almost_equal": np.testing.assert_array_almost_equal,
}


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_ASSERTS))
def test_numpy_testing(name, dtype, form):
    t, a = _inputs(_IMAGES, dtype, form)
    _ASSERTS[name](t, a)
    _ASSERTS[name](a, t)
    with pytest.raises(AssertionError):
        _ASSERTS[name](t, a + 1)
    np.testing.assert_array_less(t, a + 1)


# ---- the protocol answers these callers rely on -------------------------------------------
_ARRAY_LIKES = {
    # matplotlib's bar: broadcast_arrays of tensors, lists of 0-d tensors, scalars, None
    "broadcast_arrays-list": lambda x: np.broadcast_arrays(x, [x[0], x[1], x[2]], 0.8, None),
    "broadcast_arrays-scalar": lambda x: np.broadcast_arrays(x, 2),
    "broadcast_arrays-strings": lambda x: np.broadcast_arrays(x, ["a"]),
    "meshgrid-list": lambda x: np.meshgrid(x, [1.5, 2.5]),
    "stack-list": lambda x: np.stack([x, [1, 2, 3]]),
    # pandas objects have __array__ but no __array_function__: NumPy converts them
    "where-Series": lambda x: np.where(x > 0, pd.Series([1.5, 2.5, 3.5]), 0),
    "stack-Series": lambda x: np.stack([x, pd.Series([1, 2, 3])]),
}


@pytest.mark.parametrize("dtype,form", _CASES, ids=_IDS)
@pytest.mark.parametrize("name", list(_ARRAY_LIKES))
def test_array_likes_beside_tensors(name, dtype, form):
    t, a = _inputs(_DATA, dtype, form)
    got, want = _ARRAY_LIKES[name](t[:3]), _ARRAY_LIKES[name](a[:3])
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        # arrays lazytensor holds are tensors; object and string arrays stay NumPy's
        assert isinstance(g, lt.Tensor) == (w.dtype.kind not in "OU")
    _same(got, want, _rtol(a))
