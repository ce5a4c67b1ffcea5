import os
import threading

# Array-API consumers (SciPy, scikit-learn) read this when SciPy is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Tests that compare thread counts need the split to happen.  A kernel splits a run only
# when its estimated time pays for a thread (and for waking a sleeping worker), which depends
# on the op table's figures and on what ran just before; with no estimate (0) it splits every
# run of 64 chunks a thread, as it always did before the estimate.  So the tests lower their
# kernels without one; `work_estimates` gives a test the library's own.
from lazytensor._engine import cost as _cost  # noqa: E402

_real_work_ps = _cost.work_ps
_cost.work_ps = lambda ops, on=None: (0, 0)


@pytest.fixture
def work_estimates(monkeypatch):
    """Lower kernels with the library's work estimates (see above) for this test."""
    import lazytensor as lt

    monkeypatch.setattr(_cost, "work_ps", _real_work_ps)
    lt._engine.kernel.clear_cache()
    yield
    monkeypatch.undo()
    lt._engine.kernel.clear_cache()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def run_threads():
    """``run(work, arg_lists)``: run ``work(*args)`` in one Python thread per ``args``; fail
    with the first error a thread raised (a thread cannot fail the test itself) or if one
    of them hangs."""
    def run(work, arg_lists, timeout=120):
        errors = []

        def guarded(*args):
            try:
                work(*args)
            except BaseException as exc:   # reported below
                errors.append(exc)

        threads = [threading.Thread(target=guarded, args=tuple(a)) for a in arg_lists]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout)
        assert not any(t.is_alive() for t in threads), "a thread hung"
        assert not errors, errors[:1]
    return run
