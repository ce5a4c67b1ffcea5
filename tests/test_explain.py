"""lt.explain: what evaluating tensors would run, and which values NumPy computed (outside
exact mode's promise)."""

import numpy as np
import pytest

import lazytensor as lt
# ---- values NumPy computed: outside exact mode's promise, and explain says so ------------
def _numpy_marks(text):
    return [line for line in text.splitlines() if "computed by NumPy" in line]


@pytest.mark.parametrize("make, what", [
    (lambda a, b: a @ b, "numpy.matmul"),
    (lambda a, b: lt.linalg.inv(a), "numpy.linalg"),
    (lambda a, b: lt.median(a, axis=0), "numpy.median"),
    (lambda a, b: np.cbrt(a), "numpy.cbrt"),               # a ufunc lazytensor does not record
    (lambda a, b: lt.einsum("ij,jk->ik", a, b), "numpy.einsum"),
])
def test_explain_marks_values_numpy_computed(make, what):
    rng = np.random.default_rng(3)
    a = lt.asarray(rng.standard_normal((4, 4)) + 4 * np.eye(4))
    b = lt.asarray(rng.standard_normal((4, 4)))
    v = make(a, b)
    marks = _numpy_marks(str(lt.explain(v)))          # the value itself
    assert len(marks) == 1 and what in marks[0] and marks[0].startswith("tensor 0")
    marks = _numpy_marks(str(lt.explain(v * 2 + 1)))  # read by a kernel
    assert len(marks) == 1 and what in marks[0] and marks[0].lstrip().startswith("in")


def test_explain_marks_nothing_lazytensor_computed():
    x = lt.asarray(np.linspace(-2, 2, 16))
    for t in (lt.exp(x) * 2 + 1, lt.sum(x * x), np.sin(x) + np.exp(x)):
        assert _numpy_marks(str(lt.explain(t))) == []
        t.numpy()
        assert _numpy_marks(str(lt.explain(t))) == []


def test_explain_says_why_a_view_of_pending_work_was_computed_first():
    A = np.random.default_rng(3).standard_normal((12, 12)).astype(np.float32)
    a = lt.asarray(A)
    cases = [
        (lambda: (a - lt.max(a, axis=1, keepdims=True))[1:3] * 2, "a reduction below it",
         lambda: (A - A.max(axis=1, keepdims=True))[1:3] * 2),
        (lambda: (a * 2).reshape(144) + 1, "a reshape",
         lambda: (A * 2).reshape(144) + 1),
        (lambda: lt.broadcast_to((a * 2)[0], (3, 12)) + 1, "a read-only view",
         lambda: np.broadcast_to((A * 2)[0], (3, 12)) + 1),
    ]
    for make, why, numpy in cases:
        t = make()
        assert why in str(lt.explain(t)), why
        np.testing.assert_allclose(t.numpy(), numpy(), rtol=1e-6)
    plain = (a * 2)[1:] * 3                      # pushed: fused, nothing to explain
    assert "computed when the view was taken" not in str(lt.explain(plain))
    assert lt.explain(plain).kernels[0]["ops"] == ["multiply", "multiply"]


def test_views_of_costly_pending_work_compute_it_once():
    """Several views of a pending exp (a stencil's reads): exp runs once, not per view;
    several views of cheap work recompute it inside one kernel."""
    A = np.random.default_rng(4).standard_normal((16, 16)).astype(np.float32)
    a = lt.asarray(A)

    def stencil(u):
        return u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]

    s = stencil(lt.exp(a))
    text = str(lt.explain(s))
    assert "exp" not in lt.explain(s).kernels[0]["ops"] and "costly" in text
    np.testing.assert_allclose(s.numpy(), stencil(np.exp(A)), rtol=1e-6)
    s = stencil(a * 2 + 1)
    [k] = lt.explain(s).kernels
    assert k["ops"].count("multiply") == 4           # recomputed per view, one kernel
    np.testing.assert_allclose(s.numpy(), stencil(A * 2 + 1), rtol=1e-6)
