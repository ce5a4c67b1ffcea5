"""NumPy programs run unchanged with ``np`` bound to lazytensor: each program's text is run
once with NumPy and once with lazytensor as ``np``, and every variable it leaves must match
(values within float tolerance, dtypes, shapes; Python values equal)."""

import textwrap

import numpy
import pytest

import lazytensor as lt

PROGRAMS = {
    "logistic regression by gradient descent": """
        rng = np.random.default_rng(1); X = rng.standard_normal((500, 8)); w_true = rng.standard_normal(8)
        y = (X @ w_true + 0.1 * rng.standard_normal(500) > 0).astype(np.float64); w = np.zeros(8)
        for _ in range(100):
            p = 1 / (1 + np.exp(-(X @ w))); w -= 0.1 * X.T @ (p - y) / len(y)
        loss = -np.mean(y * np.log(np.clip(p, 1e-12, None)) + (1 - y) * np.log(np.clip(1 - p, 1e-12, None)))
    """,
    "a smoothed signal and its peaks": """
        t = np.linspace(0, 10, 2001); s = np.sin(2 * np.pi * 0.7 * t) + 0.3 * np.sin(2 * np.pi * 3.1 * t)
        sm = np.convolve(s, np.ones(9) / 9, mode="same"); d = np.diff(sm)
        peaks = np.nonzero((d[:-1] > 0) & (d[1:] <= 0))[0] + 1
        q = np.percentile(sm, [5, 50, 95]); c = np.cumsum(np.abs(d)).max(); f = f"{sm.max():.4f}"
    """,
    "nearest centroids with broadcasting": """
        rng = np.random.default_rng(2); a = rng.uniform(size=(300, 3)); b = a[rng.choice(300, 5, replace=False)]
        d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1); lab = d2.argmin(axis=1)
        cnt = np.bincount(lab, minlength=5); u, k = np.unique(lab, return_counts=True)
        order = np.argsort(np.sqrt(d2.min(axis=1)))[::-1][:10]; tot = float(d2.min(axis=1).sum())
    """,
    "black-scholes": """
        rng = np.random.default_rng(3); S = rng.uniform(50, 150, 1000); K = rng.uniform(50, 150, 1000)
        T = rng.uniform(0.1, 2.0, 1000); r, v = 0.02, 0.3
        d1 = (np.log(S / K) + (r + 0.5 * v * v) * T) / (v * np.sqrt(T)); d2 = d1 - v * np.sqrt(T)
        cdf = lambda x: 0.5 * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
        call = S * cdf(d1) - K * np.exp(-r * T) * cdf(d2); total = float(np.sum(call))
    """,
}


def _run(text, module):
    scope = {"np": module}
    exec(textwrap.dedent(text), scope)
    return {k: v for k, v in scope.items() if k not in ("np", "__builtins__") and not callable(v)}


def _compare(name, got, want):
    if isinstance(want, numpy.ndarray):
        assert isinstance(got, lt.Tensor), f"{name}: {type(got).__name__}, NumPy gives an ndarray"
        value = numpy.asarray(got)
        assert value.shape == want.shape and value.dtype == want.dtype, (name, value.dtype,
                                                                           want.dtype)
        numpy.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12, err_msg=name)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            _compare(name, g, w)
    elif isinstance(want, (numpy.generic, float)):
        assert float(got) == pytest.approx(float(want), rel=1e-12, abs=1e-12), name
    else:
        assert got == want, name


@pytest.mark.parametrize("title", list(PROGRAMS))
def test_a_numpy_program_runs_unchanged_and_matches_numpy(title):
    want = _run(PROGRAMS[title], numpy)
    got = _run(PROGRAMS[title], lt)
    assert set(got) == set(want)
    for name in want:
        if isinstance(want[name], numpy.random.Generator):
            continue
        _compare(name, got[name], want[name])
