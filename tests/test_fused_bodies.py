"""Fused bodies (ops.FUSED_BODIES, lazytensor/_engine/bodies.py, kernels_c/build_fused.py): a
chain of ops written out by hand runs as one C function with the bits of the ops run one kernel
at a time, on every kernel path, in both modes; chains that must not fuse do not.

The reference evaluates each op of the chain as a kernel of its own (the value is taken out
to NumPy between ops), so no fused body is involved; the exact-mode arithmetic-only body is
also checked against NumPy's float32 and float64 operations, which are IEEE's."""

import math
import zlib

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import ops as _ops

N = 3000          # several chunks and a tail

# each table op of the fused bodies, on tensors or (divide_by_scalar's divisor) a Python float
APPLY = {
    "multiply": lambda a, b: a * b, "add": lambda a, b: a + b, "divide": lambda a, b: a / b,
    "divide_by_scalar": lambda a, b: a / b, "negative": lambda a: -a,
    "erf": lt.erf, "tanh": lt.tanh, "exp": lt.exp,
}


def _build(tree, operands, one_kernel_per_op):
    """The tensor of a body's tree over ``operands``; each op its own kernel if asked."""
    if isinstance(tree, str):
        return operands[tree]
    args = [_build(child, operands, one_kernel_per_op) for child in tree[1:]]
    if tree[0] == "divide_by_scalar" and not isinstance(args[1], float):
        raise AssertionError("test bug: divide_by_scalar's divisor is a Python float here")
    value = APPLY[tree[0]](*args)
    return lt.asarray(np.array(value)) if one_kernel_per_op else value


def _operands(body, dtname):
    """x: random bit patterns (NaN, inf, subnormals among them), then moderate values and the
    special values; the other operands arrays of moderate values, or a Python float where
    the body divides by them (a scalar register)."""
    rng = np.random.default_rng(zlib.crc32(body.name.encode()))   # hash() varies by run
    u = np.uint32 if dtname == "float32" else np.uint64
    x = rng.integers(0, np.iinfo(u).max, N // 3, dtype=u, endpoint=True).view(dtname)
    x = np.concatenate([x, (3 * rng.standard_normal(N - N // 3 - 10)).astype(dtname),
                        np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40,
                                  1e30, -1e30], dtname)])
    divisors = {tree[2] for tree in _subtrees(body.tree) if tree[0] == "divide_by_scalar"}
    operands = {"x": lt.asarray(x)}
    for name in _ops.FUSED_OPERANDS[1:]:
        if name in divisors:
            operands[name] = math.sqrt(2.0)
        elif name in {t for tree in _subtrees(body.tree) for t in tree[1:]}:
            operands[name] = lt.asarray((1 + rng.random(N)).astype(dtname))
    return operands


def _subtrees(tree):
    if isinstance(tree, str):
        return []
    return [tree] + [t for child in tree[1:] for t in _subtrees(child)]


def _bits(a):
    return a.view(f"u{a.dtype.itemsize}")


@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("dtname", list(_ops.FUSED_DTYPES))
@pytest.mark.parametrize("name", list(_ops.FUSED))
def test_fused_body_gives_the_bits_of_its_ops_one_by_one(name, dtname, mode):
    body = _ops.FUSED[name]
    operands = _operands(body, dtname)
    for path in lt.kernel_paths():
        with lt.config(kernel_path=path, mode=mode, num_threads=1):
            fused = _build(body.tree, operands, False)
            assert f"fused_{name}[" in str(lt.explain(fused)), "the chain was not fused"
            got = np.array(fused)
            want = np.array(_build(body.tree, operands, True))
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"{name} on {path}")
        if mode == "exact":      # canonical NaN: every bit; fast mode leaves NaN bits open
            np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"{name} on {path}")
        else:
            np.testing.assert_array_equal(_bits(got[~nan]), _bits(want[~nan]),
                                          err_msg=f"{name} on {path}")


@pytest.mark.parametrize("dtname", list(_ops.FUSED_DTYPES))
def test_arithmetic_body_matches_numpy(dtname):
    """gelu_tanh_inner is products and a sum only: exact mode gives NumPy's IEEE results."""
    body = _ops.FUSED["gelu_tanh_inner"]
    operands = _operands(body, dtname)
    x, a, b = (np.array(operands[k]) for k in "xab")
    with np.errstate(all="ignore"):
        want = a * (x + b * x * x * x)
    for path in lt.kernel_paths():
        with lt.config(kernel_path=path, mode="exact"):
            got = np.array(_build(body.tree, operands, False))
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(_bits(got[~nan]), _bits(want[~nan]), err_msg=path)


def _fused_names(t):
    return [line.split("[")[0].split("= ")[-1] for line in str(lt.explain(t)).splitlines()
            if "fused_" in line]


def test_written_out_activations_fuse():
    x = lt.asarray(np.linspace(-4, 4, 1000, dtype=np.float32))
    s2 = math.sqrt(2)
    cases = {
        "gelu_erf_div": 0.5 * x * (1 + lt.erf(x / s2)),
        "gelu_erf_div_xa": x * 0.5 * (1 + lt.erf(x / s2)),
        "gelu_erf_mul": 0.5 * x * (1 + lt.erf(x * (1 / s2))),
        "silu_div": x / (1 + lt.exp(-x)),
        "sigmoid_div": 1 / (1 + lt.exp(-x)),
    }
    for name, t in cases.items():
        assert _fused_names(t) == [f"fused_{name}"], (name, str(lt.explain(t)))
    g = 0.5 * x * (1 + lt.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))
    assert sorted(_fused_names(g)) == ["fused_gelu_tanh_inner", "fused_gelu_tanh_outer"]


def test_chain_whose_inner_value_is_also_requested_does_not_fuse_and_stays_right():
    xs = np.linspace(-4, 4, 1000, dtype=np.float32)
    x = lt.asarray(xs)
    e = lt.exp(-x)
    y = x / (1 + e)
    # asked for together, e is an output of the kernel: a value read outside the chain
    assert "fused_" not in str(lt.explain(y, e)) and "exp[float32]" in str(lt.explain(y, e))
    got_y, got_e = lt.eval(y, e)
    want_e = np.array(lt.exp(lt.asarray(-xs)))
    np.testing.assert_array_equal(np.array(got_e), want_e)
    np.testing.assert_array_equal(np.array(got_y), xs / (np.float32(1) + want_e))


def test_chain_across_modes_does_not_fuse():
    x = lt.asarray(np.linspace(-4, 4, 1000, dtype=np.float32))
    with lt.mode("fast"):
        e = lt.exp(-x)
    y = x / (1 + e)             # exact
    assert _fused_names(y) == []
    with lt.mode("fast"):
        e_value = np.array(lt.exp(lt.asarray(-np.array(x))))
    np.testing.assert_array_equal(np.array(y), np.array(x) / (np.float32(1) + e_value))


def test_fused_body_is_costed_as_one_function_and_by_all_its_ops():
    """The rules that ask about one op function (passes, writer, first reader) see the body's
    costliest op; the work estimate (whether waking threads pays) sees every op of it, as
    entry_ops lists them."""
    from lazytensor._engine import cost as _cost
    body = ("fused_gelu_erf_div", "float32")
    assert _ops.entry_main_op(body) == ("erf", "float32")
    assert _ops.entry_ops(body) == [(op, "float32") for op in
                                    ("multiply", "divide_by_scalar", "erf", "add", "multiply")]
    assert _cost.chunk_passes([_ops.entry_main_op(body)]) == 1


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_fused_body_on_broadcast_and_strided_operands(mode):
    """Operands that the chunk gathers (a column broadcast along rows, a strided view of x)."""
    rng = np.random.default_rng(9)
    base = (3 * rng.standard_normal((40, 600))).astype(np.float32)
    x = lt.asarray(base)[:, ::2]                           # strided
    a = lt.asarray(rng.random((40, 1)).astype(np.float32))  # broadcast along each row
    operands = {"x": x, "a": a, "b": lt.asarray(np.float32(1)), "c": math.sqrt(2.0)}
    body = _ops.FUSED["gelu_erf_div"]
    for path in lt.kernel_paths():
        with lt.config(kernel_path=path, mode=mode, num_threads=1):
            fused = _build(body.tree, operands, False)
            assert "fused_gelu_erf_div[" in str(lt.explain(fused))
            got = np.array(fused)
            want = np.array(_build(body.tree, operands, True))
        np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=path)


def test_random_chains_shaped_like_the_bodies_give_the_bits_of_their_ops():
    """Each body's tree built on operands drawn from a pool (x, y, Python floats), some ops in
    the other mode, sometimes an inner value requested too: whatever fuses or does not, the
    result is that of the ops run one kernel each, each in its own mode."""
    import random
    rnd = random.Random(2)
    rng = np.random.default_rng(0)
    xs = (3 * rng.standard_normal(777)).astype(np.float32)
    ys = (rng.random(777) + 0.5).astype(np.float32)
    pool = [lt.asarray(xs), lt.asarray(ys), 0.5, 1.0, 0.7071067811865476, math.sqrt(2.0)]
    fused = 0
    for _ in range(200):
        body = rnd.choice(_ops.FUSED_BODIES)
        base = rnd.choice(["exact", "fast"])
        env = {"x": pool[rnd.randrange(2)], **{n: rnd.choice(pool) for n in "abc"}}
        modes, inner = [], []

        def build(tree, replay):
            if isinstance(tree, str):
                return env[tree]
            args = [build(child, replay) for child in tree[1:]]
            if tree[0] == "divide_by_scalar":
                args[1] = math.sqrt(2.0)
            mode = replay.pop(0) if replay is not None else (
                rnd.choice(["exact", "fast"]) if rnd.random() < 0.15 else base)
            if replay is None:
                modes.append(mode)
            with lt.mode(mode):
                value = APPLY[tree[0]](*args)
            if replay is not None:
                return lt.asarray(np.array(value))
            inner.append(value)
            return value

        out = build(body.tree, None)
        extra = [rnd.choice(inner)] if rnd.random() < 0.2 else []
        fused += "fused_" in str(lt.explain(out, *extra))
        got = np.array(lt.eval(out, *extra)[0] if extra else lt.eval(out))
        want = np.array(build(body.tree, list(modes)))
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=body.name)
        if "fast" in modes:
            got, want = got[~nan], want[~nan]
        np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"{body.name} {modes}")
    assert fused > 50          # the draw does reach the fused bodies
