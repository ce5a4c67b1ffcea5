"""NumPy's statistics and misc numerics (lazytensor/_api/numpy_statistics.py,
numpy_numerics.py) against NumPy on the same data: values, dtypes and shapes for float32/
float64/int/bool input, NaNs, empty input, axis and keepdims variants; laziness and
fusion of the recorded ones; errors.

Known differences from NumPy (asserted below where they show): the lazy nan* functions do
not warn on all-NaN slices (a lazy result cannot); float32 reductions are accumulated in
float64 and rounded once (so they match NumPy's float32 pairwise sums only to float32
tolerance).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import lazytensor as lt

RTOL = {"float16": 2e-3, "float32": 2e-5, "float64": 1e-12}


def data(dtype, shape=(3, 4), nans=True, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0, 9, size=shape).astype(dtype)
    x = rng.uniform(-4, 4, size=shape).astype(dtype)
    if nans and x.size:
        x.flat[::5] = np.nan
        if x.ndim == 2 and x.shape[0] > 2:
            x[2, :] = np.nan        # an all-NaN row
    return x


def reference(fn, *args, **kwargs):
    """NumPy's result, its warnings (all-NaN slices, empty means) silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def check(got, want, rtol=1e-12):
    """``got`` (tensors, nested in tuples/lists) equals NumPy's ``want``: type, shape,
    dtype and values (NaN where NumPy has NaN)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            check(g, w, rtol)
        return
    want = np.asarray(want)
    assert isinstance(got, lt.Tensor), type(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=rtol, equal_nan=True)


# ---- the nan* family: recorded lazily --------------------------------------------------

LAZY_NAN = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]
AXES = [None, 0, 1, -1, (0, 1)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.parametrize("name", LAZY_NAN)
def test_nan_family_matches_numpy(name, dtype):
    x = data(dtype)
    rtol = RTOL.get(dtype, 1e-12)
    for axis in AXES:
        for keepdims in (False, True):
            got = getattr(lt, name)(lt.asarray(x), axis=axis, keepdims=keepdims)
            want = reference(getattr(np, name), x, axis=axis, keepdims=keepdims)
            check(got, want, rtol)


@pytest.mark.parametrize("name, kwargs", [("nanvar", {"ddof": 1}), ("nanstd", {"ddof": 2}),
                                          ("nanvar", {"correction": 1}),
                                          ("nanstd", {"ddof": 5}),   # no dof left: NaN
                                          ("nanmean", {"dtype": np.float32}),
                                          ("nansum", {"dtype": np.float32}),
                                          ("nanprod", {"dtype": np.float64})])
def test_nan_family_options(name, kwargs):
    x = data("float64", (4, 5))
    for axis in (None, 0, 1):
        check(getattr(lt, name)(lt.asarray(x), axis=axis, **kwargs),
              reference(getattr(np, name), x, axis=axis, **kwargs), 1e-6)


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanmax"])
def test_nan_family_complex_input_is_computed_by_numpy(name):
    x = (data("float64") + 1j * data("float64", seed=1)).astype(np.complex128)
    check(getattr(lt, name)(lt.asarray(x), axis=1), reference(getattr(np, name), x, axis=1))


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd"])
def test_nan_family_empty_input(name):
    x = np.ones((0, 3))
    for axis in (None, 0, 1):
        check(getattr(lt, name)(lt.asarray(x), axis=axis), reference(getattr(np, name), x,
                                                                       axis=axis))


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
def test_nan_extrema_of_empty_input_raise(name):
    for fn in (getattr(np, name), getattr(lt, name)):
        with pytest.raises(ValueError):
            fn(np.ones((0, 3)) if fn.__module__.startswith("numpy") else lt.ones((0, 3)))


def test_nan_extrema_of_all_nan_slices_are_nan_without_a_warning():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the lazy result does not warn
        got = lt.nanmax(lt.asarray(x), axis=1).numpy()
    np.testing.assert_array_equal(got, reference(np.nanmax, x, axis=1))


def test_nansum_of_an_expression_is_one_pending_kernel():
    x = lt.asarray(data("float64", (50, 40)))
    y = lt.nansum(x * 2.0 + 1.0, axis=1)
    assert not y.is_evaluated                   # recorded, not run
    assert str(lt.explain(y)).count("kernel ") == 1
    check(y, np.nansum(data("float64", (50, 40)) * 2 + 1, axis=1))


@pytest.mark.parametrize("name", ["nanmean", "nanmax", "nanstd"])
def test_lazy_nan_functions_stay_pending(name):
    x = lt.asarray(data("float32", (8, 6)))
    y = getattr(lt, name)(lt.sqrt(lt.abs(x)), axis=0)
    assert not y.is_evaluated
    check(y, reference(getattr(np, name), np.sqrt(np.abs(data("float32", (8, 6)))), axis=0),
          2e-5)


@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
       seed=st.integers(0, 2**16), nan_rate=st.sampled_from([0.0, 0.3, 1.0]),
       axis_pick=st.integers(0, 5), keepdims=st.booleans(),
       name=st.sampled_from(["nansum", "nanmean", "nanvar", "nanstd", "nanprod"]))
def test_nan_family_random_shapes(shape, seed, nan_rate, axis_pick, keepdims, name):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, shape)
    x[rng.uniform(size=shape) < nan_rate] = np.nan
    axes = [None] + list(range(-len(shape), len(shape))) + [tuple(range(len(shape)))]
    axis = axes[axis_pick % len(axes)]
    check(getattr(lt, name)(lt.asarray(x), axis=axis, keepdims=keepdims),
          reference(getattr(np, name), x, axis=axis, keepdims=keepdims), 1e-9)


# ---- computed by NumPy on the values ----------------------------------------------------

V = np.array([1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0])
A = np.array([[3.0, 1.0, 2.0, 9.0], [6.0, 5.0, 4.0, 0.5], [2.0, 2.0, 7.0, 1.0]])
N = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, 0.5, 4.0, 8.0]])
I = np.array([0, 1, 1, 3, 2, 1, 7])

# (name, positional args, keyword args): the same call on NumPy arrays and on tensors
ON_VALUES = [
    ("median", (A,), {}), ("median", (A,), {"axis": 1, "keepdims": True}),
    ("median", (A.astype(np.float32),), {"axis": 0}), ("median", (I,), {}),
    ("median", (A,), {"axis": (0, 1)}),
    ("percentile", (V, 90), {}), ("percentile", (A, [10, 50, 90]), {"axis": 1}),
    ("percentile", (A, 30), {"method": "nearest"}),
    ("percentile", (A, 30), {"method": "lower", "axis": 0, "keepdims": True}),
    ("quantile", (V, [0.25, 0.5]), {}), ("quantile", (A, 0.3), {"method": "higher"}),
    ("quantile", (A, 0.3), {"method": "midpoint", "axis": 1}),
    ("quantile", (A, 0.3), {"method": "median_unbiased"}),
    ("quantile", (V, 0.5), {"method": "inverted_cdf", "weights": np.arange(7.0) + 1}),
    ("quantile", (I, 0.4), {}), ("quantile", (A.astype(np.float32), 0.4), {}),
    ("nanmedian", (N,), {"axis": 1}), ("nanpercentile", (N, 75), {}),
    ("nanquantile", (N, [0.1, 0.9]), {"axis": 0}),
    ("nanargmax", (N,), {}), ("nanargmin", (N,), {"axis": 1}),
    ("nancumsum", (N,), {}), ("nancumprod", (N,), {"axis": 0}),
    ("histogram", (V,), {"bins": 3}), ("histogram", (V,), {"bins": [0, 2, 5, 9]}),
    ("histogram", (V,), {"bins": "auto"}), ("histogram", (V,), {"range": (0, 4)}),
    ("histogram", (V,), {"bins": 4, "density": True}),
    ("histogram", (V,), {"bins": 2, "weights": V}),
    ("histogram2d", (V, V[::-1]), {"bins": 2}),
    ("histogramdd", (np.stack([V, V[::-1]], axis=1),), {"bins": (2, 3)}),
    ("histogram_bin_edges", (V,), {"bins": 4}),
    ("bincount", (I,), {}), ("bincount", (I,), {"minlength": 10}),
    ("bincount", (I,), {"weights": V}),
    ("cov", (A,), {}), ("cov", (A,), {"rowvar": False}), ("cov", (A,), {"bias": True}),
    ("cov", (A,), {"ddof": 2}), ("cov", (V, V[::-1]), {}),
    ("cov", (A,), {"fweights": [1, 2, 1, 3]}), ("cov", (A.astype(np.float32),), {}),
    ("corrcoef", (A,), {}), ("corrcoef", (A,), {"rowvar": False}), ("corrcoef", (V, V**2), {}),
    ("gradient", (V,), {}), ("gradient", (V, 2.0), {}), ("gradient", (A,), {}),
    ("gradient", (A,), {"axis": 1, "edge_order": 2}),
    ("ediff1d", (A,), {}), ("ediff1d", (V,), {"to_begin": -1.0, "to_end": [9.0, 9.0]}),
    ("trapezoid", (V,), {}), ("trapezoid", (V,), {"dx": 0.5}),
    ("trapezoid", (A,), {"x": np.array([0.0, 1.0, 3.0, 4.0])}),
    ("trapezoid", (A,), {"axis": 0}),
    ("interp", (np.array([1.5, 2.5, -1.0, 9.0]), [1.0, 2.0, 3.0], [10.0, 20.0, 30.0]), {}),
    ("interp", (np.array([1.5, -1.0, 9.0]), [1.0, 2.0, 3.0], [10.0, 20.0, 30.0]),
     {"left": 0.0, "right": -1.0}),
    ("interp", (np.array([-170.0, 190.0]), [-180.0, 0.0, 90.0], [0.0, 1.0, 2.0]),
     {"period": 360}),
    ("convolve", (V, [1.0, 0.5]), {}), ("convolve", (V, np.ones(3) / 3), {"mode": "valid"}),
    ("convolve", (V, np.ones(4)), {"mode": "same"}), ("convolve", (I, [1, 2]), {}),
    ("correlate", (V, [1.0, 0.5]), {}), ("correlate", (V, [1.0, 0.5, 2.0]), {"mode": "full"}),
    ("correlate", (V, [1.0, 0.5, 2.0]), {"mode": "same"}),
    ("polyfit", (V, 2 * V + 1, 1), {}), ("polyfit", (V, V**2, 2), {"w": np.ones(7)}),
    ("polyfit", (V, V**2, 2), {"full": True}),
    ("polyder", ([1.0, 2.0, 3.0, 4.0],), {}), ("polyder", ([1.0, 2.0, 3.0, 4.0], 2), {}),
    ("polyint", ([3.0, 2.0, 1.0],), {}), ("polyint", ([3.0, 2.0, 1.0],), {"k": 5.0}),
    ("roots", ([1.0, -3.0, 2.0],), {}), ("poly", ([1.0, 2.0],), {}),
    ("polyadd", ([1.0, 2.0], [1.0, 0.0, 1.0]), {}), ("polysub", ([1.0, 2.0], [3.0]), {}),
    ("polymul", ([1.0, 2.0], [1.0, -1.0]), {}), ("polydiv", ([1.0, -3.0, 2.0], [1.0, -1.0]), {}),
    ("unwrap", (np.array([0.0, 3.0, 6.5, 0.2, 3.5]),), {}),
    ("unwrap", (np.array([[0.0, 7.0, 1.0]]),), {"period": 6.0, "axis": 1}),
]


def as_tensors(args):
    return tuple(lt.asarray(a) if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("name, args, kwargs", ON_VALUES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(ON_VALUES)])
def test_computed_on_values_matches_numpy(name, args, kwargs):
    want = reference(getattr(np, name), *args, **kwargs)
    tkwargs = {k: lt.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    check(getattr(lt, name)(*as_tensors(args), **tkwargs), want, 1e-10)


def test_the_issue_smoothed_signal_program():
    t = lt.linspace(0, 10, 2001)
    s = lt.sin(2 * lt.pi * 0.7 * t) + 0.3 * lt.sin(2 * lt.pi * 3.1 * t)
    sm = lt.convolve(s, lt.ones(9) / 9, mode="same")
    tn = np.linspace(0, 10, 2001)
    smn = np.convolve(np.sin(2 * np.pi * 0.7 * tn) + 0.3 * np.sin(2 * np.pi * 3.1 * tn),
                      np.ones(9) / 9, mode="same")
    check(sm, smn, 1e-9)
    check(lt.percentile(sm, [5, 50, 95]), np.percentile(smn, [5, 50, 95]), 1e-9)
    check(lt.diff(sm), np.diff(smn), 1e-9)


# ---- average, diff, polyval: recorded lazily -------------------------------------------

AVERAGE = [
    ({}, {}), ({"axis": 0}, {}), ({"axis": 1, "keepdims": True}, {}),
    ({"weights": A + 1}, {}), ({"axis": 1, "weights": [1.0, 2.0, 3.0, 4.0]}, {}),
    ({"axis": 0, "weights": [1, 0, 2]}, {}), ({"axis": (1, 0), "weights": (A + 1).T}, {}),
    ({"axis": 1, "weights": [1.0, 2.0, 3.0, 4.0], "returned": True}, {}),
    ({"returned": True}, {}), ({"axis": 0, "returned": True, "keepdims": True}, {}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("kwargs", [k for k, _ in AVERAGE], ids=range(len(AVERAGE)))
def test_average_matches_numpy(kwargs, dtype):
    x = A.astype(dtype)
    tkwargs = dict(kwargs)
    if "weights" in kwargs:
        kwargs = dict(kwargs, weights=np.asarray(kwargs["weights"]))
        tkwargs["weights"] = lt.asarray(kwargs["weights"])
    check(lt.average(lt.asarray(x), **tkwargs), reference(np.average, x, **kwargs),
          RTOL.get(dtype, 1e-12))


def test_average_is_recorded_and_its_errors_are_numpys():
    y = lt.average(lt.asarray(A) * 2.0, axis=1, weights=lt.asarray([1.0, 2.0, 3.0, 4.0]))
    assert not y.is_evaluated
    with pytest.raises(ZeroDivisionError, match="average: weights sum to zero"):
        lt.average(lt.asarray(V), weights=lt.zeros(7))
    with pytest.raises(TypeError, match="average: axis must be specified"):
        lt.average(lt.asarray(A), weights=lt.ones(4))
    with pytest.raises(ValueError, match=r"average: the shape of weights \(3,\)"):
        lt.average(lt.asarray(A), axis=1, weights=lt.ones(3))


@pytest.mark.parametrize("args, kwargs", [((), {}), ((2,), {}), ((1, 0), {}), ((3, -1), {}),
                                          ((), {"prepend": 0.0}), ((), {"append": [1.0, 2.0, 3.0]}),
                                          ((), {"axis": 0, "prepend": np.float32(1)})])
def test_diff_takes_numpys_signature(args, kwargs):
    x = A[:, :3]
    tkw = {k: v for k, v in kwargs.items()}
    if isinstance(kwargs.get("append"), list):
        kwargs = dict(kwargs, append=np.array([[1.0, 2.0, 3.0]]).T)
        tkw = dict(kwargs)
    check(lt.diff(lt.asarray(x), *args, **tkw), np.diff(x, *args, **kwargs))


@pytest.mark.parametrize("p, x", [([1.0, 2.0, 3.0], V), ([2, -1, 4], I),
                                  ([0.5, 1.0], I), ([3.0], V), ([1.0, 0.0, -2.0], A),
                                  (A, A[0]),
                                  (np.array([1.0, 2.0], np.float32), V.astype(np.float32))])
def test_polyval_matches_numpy_and_is_recorded(p, x):
    got = lt.polyval(lt.asarray(np.asarray(p)), lt.asarray(x))
    assert not got.is_evaluated
    check(got, np.polyval(np.asarray(p), x), 1e-6)


# ---- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, match", [
    (lambda: lt.nansum(lt.asarray(A), axis=2), np.exceptions.AxisError, "nansum: axis 2"),
    (lambda: lt.nanmax(lt.asarray(A), axis=-3), np.exceptions.AxisError, "nanmax: axis -3"),
    (lambda: lt.median(lt.asarray(A), axis=2), np.exceptions.AxisError, "median: .*axis 2"),
    (lambda: lt.percentile(lt.asarray(V), 101), ValueError, "percentile: Percentiles must"),
    (lambda: lt.quantile(lt.asarray(V), 0.5, method="bogus"), ValueError, "quantile: "),
    (lambda: lt.bincount(lt.asarray([-1, 2])), ValueError, "bincount: "),
    (lambda: lt.bincount(lt.asarray(V)), TypeError, "bincount: "),
    (lambda: lt.convolve(lt.asarray(V), lt.asarray([])), ValueError, "convolve: "),
    (lambda: lt.interp(lt.asarray(V), lt.asarray([1.0, 2.0]), lt.asarray([1.0])),
     ValueError, "interp: "),
    (lambda: lt.nanargmax(lt.asarray([np.nan, np.nan])), ValueError, "nanargmax: All-NaN"),
    (lambda: lt.polyval(lt.asarray(2.0), lt.asarray(V)), TypeError, "polyval: p must be a seq"),
    (lambda: lt.polyval(lt.asarray(A), lt.asarray(V)), ValueError, "shapes"),
    (lambda: lt.histogram(lt.asarray(V), bins=-1), ValueError, "histogram: "),
    (lambda: lt.nansum(lt.asarray(V), where=lt.asarray(V) > 2), TypeError,
     "nansum: where= is not supported"),
    (lambda: lt.nanmean(object()), TypeError, "nanmean: expected a Tensor or an array-like"),
    (lambda: lt.nanmean(lt.asarray([1.0]), axis=1), np.exceptions.AxisError, "nanmean: axis 1"),
])
def test_errors_name_the_function(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("call,shape", [
    (lambda m, out: m.nansum(m.asarray(V), out=out), ()),
    (lambda m, out: m.nanmean(m.asarray(V), out=out), ()),
    (lambda m, out: m.nanmax(m.asarray(V), out=out), ()),
    (lambda m, out: m.median(m.asarray(V), out=out), ()),
    (lambda m, out: m.percentile(m.asarray(V), 50, out=out), ()),
    (lambda m, out: m.nancumsum(m.asarray(V), out=out), V.shape),
])
def test_out_is_written_as_numpy_writes_it(call, shape):
    out, want = lt.zeros(shape), np.zeros(shape)
    assert call(lt, out) is out and call(np, want) is want
    np.testing.assert_allclose(np.asarray(out), want)


def test_results_are_tensors_and_docs_say_numpy_computes():
    h, edges = lt.histogram(lt.asarray(V), bins=3)
    assert isinstance(h, lt.Tensor) and isinstance(edges, lt.Tensor)
    assert "NumPy computes on their values" in lt.median.__doc__
    assert "lazily" in lt.nansum.__doc__


def test_numpy_computed_calls_are_quiet_and_leave_the_callers_warning_state():
    """The silence around NumPy's own computations (args.quiet): NumPy's RuntimeWarnings and
    floating-point warnings do not reach the caller, while the caller's filters, its
    errstate and the warnings it shows itself are as they were, also after an error inside."""
    from lazytensor._api.args import quiet
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        filters = warnings.filters
        before = list(filters)
        with np.errstate(over="raise"):
            with quiet():
                np.mean(np.zeros(0))                             # "Mean of empty slice"
                np.float32(3e38) * np.float32(10)                 # overflow
                with quiet():                                     # nested
                    np.var(np.zeros(0))
            assert shown == []
            with pytest.raises(ZeroDivisionError):
                with quiet():
                    raise ZeroDivisionError
            assert warnings.filters is filters and warnings.filters == before
            assert np.geterr()["over"] == "raise"
        np.mean(np.zeros(0))                                     # the caller's own: shown
        own = len(shown)
        assert own >= 1 and all(w.category is RuntimeWarning for w in shown)
        a = lt.asarray(np.array([np.nan, np.nan]))
        assert np.isnan(float(lt.nanmean(a)))                    # NumPy's, inside: quiet
        assert len(shown) == own
