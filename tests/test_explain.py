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
