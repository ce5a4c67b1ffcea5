"""How many evaluations each Array API consumer call forces on lazytensor.

    SCIPY_ARRAY_API=1 python tools/consumer_evaluations.py

An evaluation is one request that runs kernels (``lt.stats()["evaluations"]``); each
consumer call is run on inputs that are still lazy (``x * 1.0``), so the count includes
computing them.  Kernel launches are reported beside it.
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402

import lazytensor as lt  # noqa: E402


def counted(label, fn):
    before = dict(lt.stats())
    fn()
    after = lt.stats()
    print(f"{label:45s} evaluations {after['evaluations'] - before['evaluations']:4d}   "
          f"kernels {after['kernels'] - before['kernels']:4d}")


def main():
    import array_api_extra as xpx
    import sklearn
    from scipy import signal, special, stats
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    rng = np.random.default_rng(0)

    def lazy(a):
        return lt.asarray(a) * 1.0

    x2d, x1d, y1d = rng.standard_normal((200, 30)), rng.standard_normal(500), rng.standard_normal(500)
    counted("scipy.special.logsumexp(axis=1)", lambda: special.logsumexp(lazy(x2d), axis=1))
    counted("scipy.special.softmax(axis=1)", lambda: special.softmax(lazy(x2d), axis=1))
    counted("scipy.stats.describe", lambda: stats.describe(lazy(x1d)))
    counted("scipy.stats.ttest_ind", lambda: stats.ttest_ind(lazy(x1d), lazy(y1d)))
    counted("scipy.stats.rankdata", lambda: stats.rankdata(lazy(np.round(x1d, 1))))
    counted("scipy.stats.quantile", lambda: stats.quantile(lazy(x1d), lt.asarray([0.1, 0.5, 0.9])))
    counted("scipy.stats.pearsonr", lambda: stats.pearsonr(lazy(x1d), lazy(x1d + y1d)))
    counted("scipy.signal.fftconvolve", lambda: signal.fftconvolve(lazy(x1d), lazy(x1d[:15])))
    counted("array_api_extra.at(x)[2:5].set", lambda: xpx.at(lazy(x1d))[2:5].set(0.0))
    counted("array_api_extra.nunique", lambda: xpx.nunique(lt.asarray(np.arange(50) % 7)))
    X = rng.standard_normal((300, 8))
    labels = lt.asarray((X[:, 0] > 0).astype(np.int64))
    target = lt.asarray(X @ rng.standard_normal(8))
    with sklearn.config_context(array_api_dispatch=True):
        counted("sklearn StandardScaler.fit_transform", lambda: StandardScaler().fit_transform(lazy(X)))
        counted("sklearn MinMaxScaler.fit_transform", lambda: MinMaxScaler().fit_transform(lazy(X)))
        counted("sklearn PCA(svd_solver='full').fit", lambda: PCA(3, svd_solver="full").fit(lazy(X)))
        counted("sklearn LinearDiscriminantAnalysis.fit",
                lambda: LinearDiscriminantAnalysis().fit(lazy(X), labels))
        counted("sklearn Ridge(solver='svd').fit", lambda: Ridge(solver="svd").fit(lazy(X), target))


if __name__ == "__main__":
    main()
