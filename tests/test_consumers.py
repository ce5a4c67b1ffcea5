"""Real Array API consumers run on lazytensor and agree with their NumPy results.

SciPy and scikit-learn dispatch on the input's namespace (SCIPY_ARRAY_API=1, set in
conftest.py, and scikit-learn's array_api_dispatch), so these calls run lazytensor's
functions end to end.  Each test also counts how many evaluations a call forces.
"""

import numpy as np
import pytest

import lazytensor as lt

array_api_compat = pytest.importorskip("array_api_compat")
xpx = pytest.importorskip("array_api_extra")
scipy_special = pytest.importorskip("scipy.special")
scipy_stats = pytest.importorskip("scipy.stats")
scipy_signal = pytest.importorskip("scipy.signal")
sklearn = pytest.importorskip("sklearn")


import scipy  # noqa: E402

# SciPy 1.15 (the last for Python 3.10) has neither stats.quantile nor an array-API
# softmax: those two consumers need 1.16
SCIPY_1_16 = tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 16)
needs_scipy_1_16 = pytest.mark.skipif(not SCIPY_1_16, reason="needs SciPy >= 1.16")


def data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def evaluations(fn):
    before = lt.stats()["evaluations"]
    out = fn()
    return out, lt.stats()["evaluations"] - before


def close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                               rtol=rtol, atol=atol)


def test_array_namespace_is_lazytensor():
    t = lt.asarray(data(3))
    assert array_api_compat.array_namespace(t) is lt
    assert not array_api_compat.is_lazy_array(t)
    assert array_api_compat.is_array_api_obj(t)


@pytest.mark.parametrize("fn", ["logsumexp", pytest.param("softmax", marks=needs_scipy_1_16)])
def test_scipy_special(fn):
    x = data((20, 30))
    got, n = evaluations(lambda: getattr(scipy_special, fn)(lt.asarray(x), axis=1))
    assert isinstance(got, lt.Tensor)
    close(got, getattr(scipy_special, fn)(x, axis=1))
    print(f"{fn}: {n} evaluations")


def test_scipy_stats_describe():
    x = data(200)
    got = scipy_stats.describe(lt.asarray(x))
    want = scipy_stats.describe(x)
    assert got.nobs == want.nobs
    for field in ("mean", "variance", "skewness", "kurtosis"):
        close(getattr(got, field), getattr(want, field))
    close(got.minmax[0], want.minmax[0])
    close(got.minmax[1], want.minmax[1])


def test_scipy_stats_ttest_ind_and_pearsonr():
    a, b = data(100, 1), data(120, 2) + 0.3
    got = scipy_stats.ttest_ind(lt.asarray(a), lt.asarray(b))
    want = scipy_stats.ttest_ind(a, b)
    close(got.statistic, want.statistic, rtol=1e-9)
    close(got.pvalue, want.pvalue, rtol=1e-9)
    x, y = data(50, 3), data(50, 4)
    got = scipy_stats.pearsonr(lt.asarray(x), lt.asarray(x + 0.5 * y))
    want = scipy_stats.pearsonr(x, x + 0.5 * y)
    close(got.statistic, want.statistic, rtol=1e-9)
    close(got.pvalue, want.pvalue, rtol=1e-8)


@needs_scipy_1_16
def test_scipy_stats_rankdata_and_quantile():
    x = np.round(data(60, 5), 1)            # ties on purpose
    close(scipy_stats.rankdata(lt.asarray(x)), scipy_stats.rankdata(x))
    q = np.array([0.1, 0.5, 0.9])
    close(scipy_stats.quantile(lt.asarray(x), lt.asarray(q)), scipy_stats.quantile(x, q))


def test_scipy_signal_fftconvolve():
    a, b = data(64, 6), data(9, 7)
    close(scipy_signal.fftconvolve(lt.asarray(a), lt.asarray(b)),
          scipy_signal.fftconvolve(a, b), rtol=1e-9, atol=1e-12)


def test_array_api_extra():
    x = data(10)
    got = xpx.at(lt.asarray(x))[2:5].set(0.0)
    want = x.copy()
    want[2:5] = 0.0
    close(got, want)
    ints = np.array([1, 2, 2, 3, 3, 3])
    assert int(xpx.nunique(lt.asarray(ints))) == 3


@pytest.fixture
def sklearn_array_api():
    with sklearn.config_context(array_api_dispatch=True):
        yield


@pytest.mark.parametrize("name", ["StandardScaler", "MinMaxScaler"])
def test_sklearn_scalers(sklearn_array_api, name):
    from sklearn import preprocessing

    X = data((80, 5)) * 3 + 1
    got = getattr(preprocessing, name)().fit_transform(lt.asarray(X))
    assert isinstance(got, lt.Tensor)
    with sklearn.config_context(array_api_dispatch=False):
        want = getattr(preprocessing, name)().fit_transform(X)
    close(got, want, rtol=1e-9, atol=1e-12)


def test_sklearn_pca(sklearn_array_api):
    from sklearn.decomposition import PCA

    X = data((60, 6))
    got = PCA(n_components=3, svd_solver="full").fit(lt.asarray(X))
    with sklearn.config_context(array_api_dispatch=False):
        want = PCA(n_components=3, svd_solver="full").fit(X)
    close(got.explained_variance_, want.explained_variance_, rtol=1e-9)
    # components are defined up to sign
    close(np.abs(np.asarray(got.components_)), np.abs(want.components_), rtol=1e-7, atol=1e-9)


def test_sklearn_lda_and_ridge(sklearn_array_api):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(8)
    X = rng.standard_normal((90, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    got = LinearDiscriminantAnalysis().fit(lt.asarray(X), lt.asarray(y)).predict(lt.asarray(X))
    with sklearn.config_context(array_api_dispatch=False):
        want = LinearDiscriminantAnalysis().fit(X, y).predict(X)
    np.testing.assert_array_equal(np.asarray(got), want)
    target = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.standard_normal(90)
    got = Ridge(alpha=1.0, solver="svd").fit(lt.asarray(X), lt.asarray(target))
    with sklearn.config_context(array_api_dispatch=False):
        want = Ridge(alpha=1.0, solver="svd").fit(X, target)
    close(got.coef_, want.coef_, rtol=1e-9)
    close(got.intercept_, want.intercept_, rtol=1e-9, atol=1e-12)
