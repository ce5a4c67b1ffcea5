"""The DAG: hash-consing, iterative walks, laziness, kept values, lt.eval."""

import numpy as np
import pytest

import lazytensor as lt


def f32(values):
    return lt.asarray(np.asarray(values, dtype=np.float32))


def test_equal_subexpressions_are_one_node():
    x = f32([1, 2, 3])
    a = lt.exp(x * 2.0) + 1.0
    b = lt.exp(x * 2.0) + 1.0
    assert a._node is b._node
    assert (x * 2.0)._node is not (x * 3.0)._node
    # -0.0 and 0.0 are different constants
    assert (x + 0.0)._node is not (x + -0.0)._node


def test_metadata_never_evaluates():
    x = f32(np.arange(12).reshape(3, 4))
    y = lt.exp(x) * 2.0
    assert (y.shape, y.dtype, y.ndim, y.size, str(y.device)) == ((3, 4), lt.float32, 2, 12, "cpu")
    assert not y.is_evaluated
    assert y.__array_namespace__() is lt
    assert not y.is_evaluated


@pytest.mark.parametrize("trigger", [
    lambda t: np.asarray(t), lambda t: t.numpy(), lambda t: t.tolist(), repr, str,
    lambda t: bool(t[0] > -1), lambda t: lt.sort(t),
])
def test_value_needed_evaluates(trigger):
    y = f32([1.5, 2.5]) * 2.0
    assert not y.is_evaluated
    trigger(y)
    assert y.is_evaluated


def test_reduction_does_not_evaluate_its_input():
    y = f32([1.5, 2.5]) * 2.0
    assert float(lt.sum(y)) == 8.0
    assert not y.is_evaluated      # reduced inside the kernel, never stored


def test_scalar_conversions():
    t = f32(2.5) * 2.0
    assert float(t) == 5.0 and int(t) == 5 and complex(t) == 5 + 0j and bool(t)
    i = lt.asarray(np.int64(7)) + 1
    assert [1, 2, 3, 4, 5, 6, 7, 8, 9][i] == 9
    assert i.__index__() == 8
    with pytest.raises(TypeError, match="only integer tensors"):
        [1, 2][t]
    with pytest.raises(TypeError, match="0-d"):
        float(f32([1.0, 2.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(f32([1.0, 2.0]))


def test_chain_of_100000_ops_builds_and_evaluates_without_recursion():
    x = lt.asarray(np.zeros(300, dtype=np.float64))
    y = x
    for _ in range(100_000):
        y = y + 1.0
    np.testing.assert_array_equal(y.numpy(), np.full(300, 100_000.0))
    print(lt.explain(y + 1.0).kernels[0]["ops"][:3])  # explain walks it too


def test_computed_value_is_kept_and_reused():
    x = f32(np.linspace(-3, 3, 1000))
    y = lt.tanh(x) * 3.0
    before = lt.stats()["kernels"]
    y.numpy()
    first = y.numpy()
    assert lt.stats()["kernels"] == before + 1
    z = y + 1.0                       # reads y's kept value, does not recompute tanh
    info = lt.explain(z)
    assert info.kernels[0]["ops"] == ["add"]
    np.testing.assert_array_equal(z.numpy(), first + np.float32(1.0))


def test_eval_several_shares_work():
    x = f32(np.linspace(-3, 3, 4096))
    u = lt.exp(x)
    p, q = u + 1.0, u * 2.0
    before = lt.stats()["kernels"]
    lt.eval(p, q)
    assert lt.stats()["kernels"] == before + 1     # one multi-output kernel
    e = np.exp(np.linspace(-3, 3, 4096).astype(np.float32))
    np.testing.assert_allclose(p.numpy(), e + 1, rtol=1e-6)
    np.testing.assert_allclose(q.numpy(), e * 2, rtol=1e-6)
    assert lt.eval(p) is p


def test_inplace_operator_leaves_other_tensors_alone():
    x = f32([1.0, 2.0, 3.0])
    y = x * 2.0
    x += 10.0
    x *= 2.0
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(x.numpy(), [22.0, 24.0, 26.0])
    with pytest.raises(TypeError, match="dtype"):
        i = lt.asarray(np.array([1, 2], dtype=np.int32))
        i /= 2


def test_setitem_gives_a_new_value_and_keeps_dependents():
    x = f32([1.0, 2.0, 3.0])
    y = x + 1.0
    x[1] = 100.0
    np.testing.assert_array_equal(x.numpy(), [1.0, 100.0, 3.0])
    np.testing.assert_array_equal(y.numpy(), [2.0, 3.0, 4.0])


def test_values_handed_out_share_the_tensors_memory():
    y = f32([1.0, 2.0]) + 1.0
    z = y * 2.0                  # pending: reads y's value as it is now
    v = np.asarray(y)            # y's memory: writable, as NumPy's asarray of an array is
    v[0] = 5.0
    np.testing.assert_array_equal(y.numpy(), [5.0, 3.0])
    assert np.shares_memory(np.asarray(y), v)
    w = np.array(y)              # a copy
    w[0] = 7.0
    np.testing.assert_array_equal(y.numpy(), [5.0, 3.0])
    y[1] = 9.0                   # a write into y is a write into v
    np.testing.assert_array_equal(v, [5.0, 9.0])
    np.testing.assert_array_equal(z.numpy(), [4.0, 6.0])   # recorded before: y's values then


# Float attributes are keyed by their bits (hash-consing, kernel and plan caches, memo,
# jit): 0.0 and -0.0 give different results where the sign of a zero shows, and an op
# recorded with one must never give its node or kernel to the other, in either order.
ATTR_OPS = sorted(name for name, op in lt._engine.ops.OPS.items() if op.attrs)


def _signed_zero_variants(base):
    out = []
    for i in range(len(base)):
        for z in (0.0, -0.0):
            out.append(tuple(z if k == i else v for k, v in enumerate(base)))
    return out


@pytest.mark.parametrize("name", ATTR_OPS)
@pytest.mark.parametrize("reverse", [False, True])
def test_float_attributes_are_keyed_by_their_bits(name, reverse):
    from ops_reference import REFERENCES, check_exact, reference

    variants = _signed_zero_variants(REFERENCES[name].attrs)
    if reverse:
        variants = variants[::-1]
    for dt in ("float32", "float64", "float16"):
        x = np.array([-3.0, -0.0, 0.0, 2.5, -np.inf, np.inf, 1e-3], dtype=dt)
        t = lt.asarray(x)
        recorded = [lt._api.elementwise.apply(name, t, attrs=a) for a in variants]
        for a, r in zip(variants, recorded):
            check_exact(f"{name}{a}[{dt}]", np.array(r), reference(name, [x], a), [x])
        again = [lt._api.elementwise.apply(name, lt.asarray(x), attrs=a) for a in variants]
        for a, r in zip(variants, again):   # the kernels kept from above, on a new leaf
            check_exact(f"{name}{a}[{dt}] again", np.array(r), reference(name, [x], a), [x])


def test_jit_keys_float_arguments_by_their_bits():
    f = lt.jit(lambda x, alpha: lt.nn.leaky_relu(x, alpha))
    x = np.array([-3.0, 2.0], np.float32)
    for alpha, want in [(0.0, [-0.0, 2.0]), (-0.0, [0.0, 2.0])] * 2:
        got = np.array(f(lt.asarray(x), alpha))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=f"alpha={alpha}")
