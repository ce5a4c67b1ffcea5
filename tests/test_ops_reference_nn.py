"""lt.nn, lt.onnx, Python-scalar promotion, where and clip against the independent
references of tests/ops_reference.py (the table itself: test_ops_reference.py).

Run: python -m pytest tests/test_ops_reference_nn.py -q
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.special as sps

import lazytensor as lt
from lazytensor._engine import ops as _ops

from ops_reference import (  # tests/ is on sys.path under pytest
    bits_of, CANONICAL_NAN_BITS, cast_inputs, cast_reference, check_close, check_exact, F64,
    FLOAT_NAMES, _gelu64, _gelu_tanh64, _hard_sigmoid, _hardswish, _int_div_parts, INT_NAMES,
    _leaky_relu, _max_rule, _min_rule, pool_values, random_values, reference, seeded_rng,
    _sigmoid64, _silu64, special_values, table_inputs, _val)


# lt.nn
# --------------------------------------------------------------------------------------
def _nn_input(dtname, n=3000):
    rng = seeded_rng("nn", dtname)
    return np.concatenate([special_values(dtname), random_values(dtname, n, rng),
                           np.linspace(-12, 12, 2001).astype(dtname)])


@pytest.mark.parametrize("dtname", FLOAT_NAMES)
def test_nn_activations_against_float64(dtname):
    x = _nn_input(dtname)
    dt = np.dtype(dtname)
    with np.errstate(all="ignore"):
        x64 = x.astype(F64)
    T = np.float32 if dt == np.float16 else dt.type
    xt = x.astype(T)

    def rounded(r64):
        return np.asarray(r64, F64).astype(dt)

    def got(t):
        assert t.dtype == dt
        return np.array(t)

    with np.errstate(all="ignore"):
        # not exact: within a few ulp of float64 math (rounded once)
        check_close(f"nn.sigmoid[{dtname}]", got(lt.nn.sigmoid(lt.asarray(x))),
                    rounded(_sigmoid64(x64)), [x])
        moderate = np.abs(x64) < 700      # scipy's expit is accurate away from underflow
        check_close(f"nn.sigmoid[{dtname}] vs scipy expit",
                    got(lt.nn.sigmoid(lt.asarray(x[moderate]))),
                    rounded(sps.expit(x64[moderate])), [x[moderate]])
        check_close(f"nn.silu[{dtname}]", got(lt.nn.silu(lt.asarray(x))),
                    rounded(_silu64(x64)), [x])
        check_close(f"nn.gelu[{dtname}]", got(lt.nn.gelu(lt.asarray(x))),
                    rounded(_gelu64(x64)), [x], rtol=1e-12 * (dt == F64))
        check_close(f"nn.gelu(tanh)[{dtname}]",
                    got(lt.nn.gelu(lt.asarray(x), approximate="tanh")),
                    rounded(_gelu_tanh64(x64)), [x], rtol=1e-12 * (dt == F64))
        # erf form against scipy erf where 1 + erf does not cancel
        pos = x64 >= 0
        check_close(f"nn.gelu[{dtname}] x >= 0 via erf",
                    got(lt.nn.gelu(lt.asarray(x[pos]))),
                    rounded(0.5 * x64[pos] * (1.0 + sps.erf(x64[pos] / np.sqrt(2.0)))),
                    [x[pos]], rtol=1e-12 * (dt == F64))
        # exact: bit for bit with the documented roundings in T (f16 via f32)
        check_exact(f"nn.relu[{dtname}]", got(lt.nn.relu(lt.asarray(x))),
                    _max_rule(xt, np.zeros_like(xt)).astype(dt), [x])
        for alpha in (0.01, 0.1, 1 / 3, -2.0):
            check_exact(f"nn.leaky_relu(alpha={alpha})[{dtname}]",
                        got(lt.nn.leaky_relu(lt.asarray(x), alpha=alpha)),
                        _leaky_relu(xt, alpha).astype(dt), [x])
            check_close(f"nn.leaky_relu(alpha={alpha})[{dtname}] vs float64",
                        got(lt.nn.leaky_relu(lt.asarray(x), alpha=alpha)),
                        rounded(np.where(x64 < 0, alpha * x64, x64)), [x], ulps=2)
        for alpha, beta in ((0.2, 0.5), (1 / 6, 0.5), (0.3, -0.1)):
            check_exact(f"nn.hard_sigmoid({alpha}, {beta})[{dtname}]",
                        got(lt.nn.hard_sigmoid(lt.asarray(x), alpha=alpha, beta=beta)),
                        _hard_sigmoid(xt, alpha, beta).astype(dt), [x])
            check_close(f"nn.hard_sigmoid({alpha}, {beta})[{dtname}] vs float64",
                        got(lt.nn.hard_sigmoid(lt.asarray(x), alpha=alpha, beta=beta)),
                        rounded(np.clip(alpha * x64 + beta, 0.0, 1.0)), [x], ulps=2,
                        atol=4 * float(np.finfo(dt).eps) * (np.abs(alpha * x64) + abs(beta)),
                        zero_sign=False)
        check_exact(f"nn.hardswish[{dtname}]", got(lt.nn.hardswish(lt.asarray(x))),
                    _hardswish(xt).astype(dt), [x])
        check_close(f"nn.hardswish[{dtname}] vs float64", got(lt.nn.hardswish(lt.asarray(x))),
                    rounded(x64 * np.clip(x64 / 6.0 + 0.5, 0.0, 1.0)), [x], ulps=2,
                    atol=4 * float(np.finfo(dt).eps) * np.abs(x64), zero_sign=False)


@pytest.mark.parametrize("dtname", FLOAT_NAMES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_nn_gelu_minus_inf_is_minus_zero(dtname, approximate):
    x = np.array([-np.inf, np.inf, np.nan, -0.0, 0.0, -1e30 if dtname != "float16" else -6e4],
                 dtype=dtname)
    out = np.array(lt.nn.gelu(lt.asarray(x), approximate=approximate))
    w = 2 * np.dtype(dtname).itemsize
    sign = 1 << (8 * np.dtype(dtname).itemsize - 1)
    assert bits_of(out[:1]).tolist() == [sign], f"gelu(-inf) = {out[0]!r} ({w})"
    assert out[1] == np.inf
    assert bits_of(out[2:3]).tolist() == [CANONICAL_NAN_BITS[np.dtype(dtname)]]
    assert bits_of(out[3:5]).tolist() == [sign, 0], "gelu keeps the sign of zero"
    assert out[5] == 0 and np.signbit(out[5]), "gelu of a large negative value is -0"


def test_nn_relu_integers_and_signed_zero():
    x = np.array([-128, -1, 0, 1, 127], np.int8)
    assert np.array(lt.nn.relu(lt.asarray(x))).tolist() == [0, 0, 0, 1, 127]
    f = np.array([-0.0, 0.0, np.nan, -np.inf], np.float32)
    out = np.array(lt.nn.relu(lt.asarray(f)))
    assert bits_of(out).tolist() == [0, 0, 0x7FC00000, 0]
    with pytest.raises(ValueError):
        lt.nn.gelu(lt.asarray(f), approximate="erf")


# --------------------------------------------------------------------------------------
# lt.onnx
# --------------------------------------------------------------------------------------
def _onnx_pairs(dtname, n=800):
    op = _ops.OPS["div_trunc"]
    return table_inputs(op, dtname, seeded_rng("onnx", dtname), n_random=n)


@pytest.mark.parametrize("dtname", INT_NAMES + FLOAT_NAMES)
def test_onnx_div_and_mod(dtname):
    a, b = _onnx_pairs(dtname)
    dt = np.dtype(dtname)
    ta, tb = lt.asarray(a), lt.asarray(b)
    with np.errstate(all="ignore"):
        if dt.kind in "iu":
            qf, rf, qt, rt = _int_div_parts(a, b)
            check_exact(f"onnx.Div[{dtname}]", np.array(lt.onnx.Div(ta, tb)), qt, [a, b])
            check_exact(f"onnx.Mod(fmod=0)[{dtname}]", np.array(lt.onnx.Mod(ta, tb)), rf, [a, b])
            check_exact(f"onnx.Mod(fmod=1)[{dtname}]", np.array(lt.onnx.Mod(ta, tb, fmod=1)),
                        rt, [a, b])
        else:
            T = np.float32 if dt == np.float16 else dt
            a32, b32 = a.astype(T), b.astype(T)
            quo = (a32.astype(F64) / b32.astype(F64)).astype(T).astype(dt)
            check_exact(f"onnx.Div[{dtname}]", np.array(lt.onnx.Div(ta, tb)), quo, [a, b])
            check_exact(f"onnx.Mod(fmod=1)[{dtname}]", np.array(lt.onnx.Mod(ta, tb, fmod=1)),
                        np.fmod(a32, b32).astype(dt), [a, b])
            with pytest.raises(TypeError):
                lt.onnx.Mod(ta, tb)


def test_onnx_div_mod_documented_integer_cases():
    i8 = np.int8
    a = lt.asarray(np.array([7, -7, 7, -7, -128, -128, 5, 0], i8))
    b = lt.asarray(np.array([2, 2, -2, -2, -1, 0, 0, 0], i8))
    assert np.array(lt.onnx.Div(a, b)).tolist() == [3, -3, -3, 3, -128, 0, 0, 0]
    assert np.array(lt.onnx.Mod(a, b)).tolist() == [1, 1, -1, -1, 0, 0, 0, 0]
    assert np.array(lt.onnx.Mod(a, b, fmod=1)).tolist() == [1, -1, 1, -1, 0, 0, 0, 0]
    with pytest.raises(TypeError):
        lt.onnx.Div(a, lt.asarray(np.array([1] * 8, np.int16)))


def _fold_ref(rule, xs):
    acc = xs[0]
    for x in xs[1:]:
        acc = rule(acc, x)
    return acc


@pytest.mark.parametrize("dtname", ["int8", "uint64", "int64"] + list(FLOAT_NAMES))
def test_onnx_max_min_variadic(dtname):
    rng = seeded_rng("onnx-maxmin", dtname)
    s = special_values(dtname)
    for k in (1, 2, 3, 4):
        xs = [np.concatenate([s[rng.permutation(len(s))],
                              pool_values(dtname, 300, rng)]) for _ in range(k)]
        if dtname.startswith("float"):
            # the signed-zero ties: -0, +0, -0 ... in every input order
            zeros = np.array(list(itertools.product([-0.0, 0.0], repeat=k)), dtname).T
            xs = [np.concatenate([x, z]) for x, z in zip(xs, zeros)]
        ts = [lt.asarray(x) for x in xs]
        T = np.float32 if dtname == "float16" else np.dtype(dtname)
        up = [x.astype(T) for x in xs]
        with np.errstate(all="ignore"):
            want_max = _fold_ref(_max_rule, up).astype(dtname)
            want_min = _fold_ref(_min_rule, up).astype(dtname)
        # one input: the identity (its bits are kept)
        check_exact(f"onnx.Max of {k} [{dtname}]", np.array(lt.onnx.Max(*ts)), want_max, xs,
                    canonical=k > 1)
        check_exact(f"onnx.Min of {k} [{dtname}]", np.array(lt.onnx.Min(*ts)), want_min, xs,
                    canonical=k > 1)
    if dtname.startswith("float"):
        z = [lt.asarray(np.array([v], dtname)) for v in (-0.0, 0.0, -0.0)]
        assert np.signbit(np.array(lt.onnx.Max(z[0], z[1]))[0]) == False  # noqa: E712
        assert np.signbit(np.array(lt.onnx.Max(z[1], z[0]))[0]) == True  # noqa: E712
        assert np.signbit(np.array(lt.onnx.Max(*z))[0]) == True  # noqa: E712
        assert np.signbit(np.array(lt.onnx.Min(z[0], z[1]))[0]) == False  # noqa: E712


@pytest.mark.parametrize("dtname", FLOAT_NAMES)
def test_onnx_sum_mean_variadic(dtname):
    rng = seeded_rng("onnx-sum", dtname)
    dt = np.dtype(dtname)
    T = np.float32 if dt == np.float16 else dt
    for k in (1, 2, 3, 5):
        xs = [pool_values(dtname, 700, rng) for _ in range(k)]
        xs = [np.concatenate([x, np.array([1.0, 2.0 ** -11, 2.0 ** -11], dtname)[:3]])
              for x in xs]
        ts = [lt.asarray(x) for x in xs]
        with np.errstate(all="ignore"):
            # left to right, each sum rounded to T (float32 for float16: the whole Sum is
            # computed in single precision and rounded to half once, as ONNX Runtime does)
            acc = xs[0].astype(T)
            for x in xs[1:]:
                acc = (acc.astype(F64) + x.astype(F64)).astype(T)
            mean = (acc.astype(F64) / float(k)).astype(T).astype(dt)
            acc = acc.astype(dt)
        check_exact(f"onnx.Sum of {k} [{dtname}]", np.array(lt.onnx.Sum(*ts)), acc, xs,
                    canonical=k > 1)
        check_exact(f"onnx.Mean of {k} [{dtname}]", np.array(lt.onnx.Mean(*ts)), mean, xs)
    with pytest.raises(TypeError):
        lt.onnx.Sum(lt.asarray(np.ones(3, np.int32)))


@pytest.mark.parametrize("dtname", INT_NAMES + FLOAT_NAMES)
def test_onnx_clip(dtname):
    dt = np.dtype(dtname)
    x = pool_values(dtname, 2000, seeded_rng("onnx-clip", dtname))
    x = np.concatenate([special_values(dtname), x])
    info = np.finfo(dt) if dt.kind == "f" else np.iinfo(dt)
    T = np.float32 if dt == np.float16 else dt
    xt = x.astype(T)

    def ref(lo, hi):
        with np.errstate(all="ignore"):
            return _min_rule(_max_rule(xt, np.full_like(xt, lo)), np.full_like(xt, hi)).astype(dt)

    tx = lt.asarray(x)
    check_exact(f"onnx.Clip[{dtname}] no bounds", np.array(lt.onnx.Clip(tx)),
                ref(info.min, info.max), [x])
    lo, hi = (dt.type(-3), dt.type(100)) if dt.kind != "u" else (dt.type(3), dt.type(100))
    tlo, thi = lt.asarray(np.array(lo, dt)), lt.asarray(np.array(hi, dt))
    check_exact(f"onnx.Clip[{dtname}] both", np.array(lt.onnx.Clip(tx, tlo, thi)), ref(lo, hi), [x])
    check_exact(f"onnx.Clip[{dtname}] min only", np.array(lt.onnx.Clip(tx, min=tlo)),
                ref(lo, info.max), [x])
    check_exact(f"onnx.Clip[{dtname}] max only", np.array(lt.onnx.Clip(tx, max=thi)),
                ref(info.min, hi), [x])
    check_exact(f"onnx.Clip[{dtname}] lo > hi", np.array(lt.onnx.Clip(tx, thi, tlo)),
                ref(hi, lo), [x])


def test_onnx_clip_infinities_become_finite_extremes():
    x = np.array([np.inf, -np.inf, np.nan, -0.0, 1.0], np.float32)
    out = np.array(lt.onnx.Clip(lt.asarray(x)))
    f32 = np.finfo(np.float32)
    assert out[0] == f32.max and out[1] == f32.min
    assert bits_of(out[2:]).tolist() == [0x7FC00000, 0x80000000, 0x3F800000]
    h = np.array(lt.onnx.Clip(lt.asarray(np.array([np.inf, -np.inf], np.float16))))
    assert h.tolist() == [65504.0, -65504.0]


@pytest.mark.parametrize("src,dst", [("float64", "int32"), ("float32", "uint8"),
                                     ("float16", "int64"), ("int64", "float16"),
                                     ("uint64", "float32"), ("int32", "bool"),
                                     ("bool", "float64"), ("float64", "float16"),
                                     ("int16", "uint16"), ("float32", "float32")])
def test_onnx_castlike_and_cast(src, dst):
    x = cast_inputs(src)
    target = lt.asarray(np.array([np.nan if np.dtype(dst).kind == "f" else 0], dst))
    expected = cast_reference(x, dst)
    out = lt.onnx.CastLike(lt.asarray(x), target)
    assert out.dtype == np.dtype(dst)
    same = src == dst
    check_exact(f"onnx.CastLike {src}->{dst}", np.array(out), expected, [x], canonical=not same)
    check_exact(f"onnx.Cast {src}->{dst}", np.array(lt.onnx.Cast(lt.asarray(x), dst)),
                expected, [x], canonical=not same)


def test_onnx_pow_integer_base_saturates():
    a = np.array([2, 3, -2, 10, 0, 7], np.int32)
    b = np.array([3, 40, 31, 2, 0, -1], np.int32)
    out = np.array(lt.onnx.Pow(lt.asarray(a), lt.asarray(b)))
    want = cast_reference(np.power(a.astype(F64), b.astype(F64)), "int32")
    assert out.dtype == np.int32
    assert out.tolist() == want.tolist() == [8, 2 ** 31 - 1, -2 ** 31, 100, 1, 0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_pow_two_and_half_are_correctly_rounded(dtype, mode):
    """x**2 and x**0.5 are the correctly rounded x*x and square root (with the Array API's
    pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf), for a scalar exponent (the vectorised
    chunk) and for the same exponents among others in one array (element by element)."""
    rng = np.random.default_rng(5)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 2.25, 1e-30, 1e30])
    x = np.concatenate([special, rng.standard_normal(600) * 10.0 ** rng.integers(-8, 8, 600)])
    x = x.astype(dtype)
    # references: NumPy's IEEE multiply and sqrt are correctly rounded (float32 squares
    # also through float64, where the product is exact)
    with np.errstate(all="ignore"):
        square = (x.astype(np.float64) * x.astype(np.float64)).astype(dtype) \
            if dtype == np.float32 else x * x
        root = np.sqrt(x) + dtype(0)                          # IEEE sqrt; -0 -> +0
    root[np.isneginf(x)] = np.inf
    mixed_exp = np.where(np.arange(x.size) % 3 == 0, 2.0, np.where(np.arange(x.size) % 3 == 1,
                                                                   0.5, 3.0)).astype(dtype)
    with lt.mode(mode):
        got2 = np.asarray(lt.asarray(x) ** 2)
        got_half = np.asarray(lt.asarray(x) ** 0.5)
        got_mixed = np.asarray(lt.pow(lt.asarray(x), lt.asarray(mixed_exp)))
    assert got2.dtype == got_half.dtype == dtype
    np.testing.assert_array_equal(got2, square)
    np.testing.assert_array_equal(got_half, root)
    real = ~np.isnan(root)
    assert np.array_equal(np.signbit(got_half[real]), np.signbit(root[real]))
    two, half = mixed_exp == 2, mixed_exp == 0.5
    np.testing.assert_array_equal(got_mixed[two], square[two])
    np.testing.assert_array_equal(got_mixed[half], root[half])


# --------------------------------------------------------------------------------------
# Python-scalar promotion, lt.where, lt.clip
# --------------------------------------------------------------------------------------


def test_python_scalar_promotion():
    f32 = np.array([1.5, -0.0, 3.4e38, np.nan, 0.1], np.float32)
    x = lt.asarray(f32)
    with np.errstate(all="ignore"):
        cases = [(x + 1.0, (f32.astype(F64) + 1.0).astype(np.float32)),
                 (1.0 + x, (1.0 + f32.astype(F64)).astype(np.float32)),
                 (x * 3.0, (f32.astype(F64) * 3.0).astype(np.float32)),
                 (2.0 - x, (2.0 - f32.astype(F64)).astype(np.float32)),
                 (x / 3.0, (f32.astype(F64) / np.float64(np.float32(3.0))).astype(np.float32))]
    for t, want in cases:
        assert t.dtype == np.float32
        check_exact("float32 with Python float", _val(t), want, [f32])
    # the scalar is rounded to float32 first: f32(0.1) < 0.1 is False
    assert _val(x < 0.1).tolist() == [False, True, False, False, False]

    h = np.array([1.0, 2049.0, -0.0, 65504.0], np.float16)
    t = lt.asarray(h) + 1.0
    assert t.dtype == np.float16
    assert _val(t).tolist() == (h.astype(np.float32) + 1).astype(np.float16).tolist()

    i8 = lt.asarray(np.array([127, -128, 0], np.int8))
    assert (i8 + 1).dtype == np.int8 and _val(i8 + 1).tolist() == [-128, -127, 1]
    assert (i8 - 1).dtype == np.int8 and _val(i8 - 1).tolist() == [126, 127, -1]
    assert (2 * i8).dtype == np.int8 and _val(2 * i8).tolist() == [-2, 0, 0]
    u8 = lt.asarray(np.array([0, 255], np.uint8))
    assert (u8 - 1).dtype == np.uint8 and _val(u8 - 1).tolist() == [255, 254]
    with pytest.raises(OverflowError):
        i8 + 300

    a = np.array([7, -7, 1, 0, 2 ** 31 - 1], np.int32)
    b = np.array([2, 2, 3, 0, -1], np.int32)
    q = lt.asarray(a) / lt.asarray(b)
    assert q.dtype == np.float64
    with np.errstate(all="ignore"):
        check_exact("int32 / int32", _val(q), a.astype(F64) / b.astype(F64), [a, b])
    q8 = lt.asarray(np.array([1, 2], np.int8)) / lt.asarray(np.array([3, 0], np.int8))
    assert q8.dtype == np.float64 and _val(q8).tolist() == [1 / 3, np.inf]

    # mixed kinds between tensors follow NumPy: int32 + float32 is float64
    m = lt.asarray(np.array([2 ** 24 + 1], np.int32)) + lt.asarray(np.array([0.5], np.float32))
    assert m.dtype == np.float64 and _val(m).tolist() == [2 ** 24 + 1.5]


def test_dunders_match_the_references():
    rng = seeded_rng("dunders")
    a = pool_values("int16", 600, rng)
    b = pool_values("int16", 600, rng)
    ta, tb = lt.asarray(a), lt.asarray(b)
    cases = {"add": ta + tb, "subtract": ta - tb, "multiply": ta * tb,
             "floor_divide": ta // tb, "remainder": ta % tb, "bitwise_and": ta & tb,
             "bitwise_or": ta | tb, "bitwise_xor": ta ^ tb, "bitwise_left_shift": ta << tb,
             "bitwise_right_shift": ta >> tb, "less": ta < tb, "equal": ta == tb,
             "greater_equal": ta >= tb, "not_equal": ta != tb}
    for name, t in cases.items():
        check_exact(f"dunder {name}", _val(t), reference(name, [a, b]), [a, b])
    check_exact("dunder neg", _val(-ta), reference("negative", [a]), [a])
    check_exact("dunder abs", _val(abs(ta)), reference("abs", [a]), [a])
    check_exact("dunder invert", _val(~ta), reference("bitwise_invert", [a]), [a])


def test_integer_identity_and_classification_functions():
    x = np.array([-128, 0, 127], np.int8)
    for fn in (lt.floor, lt.ceil, lt.round, lt.trunc):
        t = fn(lt.asarray(x))
        assert t.dtype == np.int8 and _val(t).tolist() == x.tolist()
    assert _val(lt.isnan(lt.asarray(x))).tolist() == [False] * 3
    assert _val(lt.isinf(lt.asarray(x))).tolist() == [False] * 3
    assert _val(lt.isfinite(lt.asarray(x))).tolist() == [True] * 3


@pytest.mark.parametrize("dtname", ["int8", "uint16", "int64", "float16", "float32", "float64"])
def test_where(dtname):
    rng = seeded_rng("where", dtname)
    x1 = pool_values(dtname, 4 * 5 * 257, rng).reshape(4, 5, 257)
    x2 = pool_values(dtname, 257, rng)
    c = rng.random((5, 1)) < 0.5
    out = lt.where(lt.asarray(c), lt.asarray(x1), lt.asarray(x2))
    assert out.dtype == np.dtype(dtname)
    want = np.where(c, x1, x2)
    np.testing.assert_array_equal(bits_of(_val(out)), bits_of(want))
    # reversed / transposed views, a Python scalar on either side
    v1 = x1[:, ::-1, ::2]
    cv = c[::-1]
    out = lt.where(lt.asarray(c)[::-1], lt.asarray(x1)[:, ::-1, ::2], 0)
    np.testing.assert_array_equal(bits_of(_val(out)), bits_of(np.where(cv, v1, np.zeros((), dtname))))
    scalar = 1.5 if dtname.startswith("float") else 3
    out = lt.where(lt.asarray(c), scalar, lt.asarray(x2))
    assert out.dtype == np.dtype(dtname)
    np.testing.assert_array_equal(bits_of(_val(out)),
                                  bits_of(np.where(c, np.array(scalar, dtname), x2)))
    # size-0 and 0-d
    e = lt.where(lt.asarray(np.zeros((0, 3), bool)), lt.asarray(x2[:3]), lt.asarray(x2[:1]))
    assert e.shape == (0, 3) and _val(e).dtype == np.dtype(dtname)
    z = lt.where(lt.asarray(np.array(True)), lt.asarray(x2[0]), lt.asarray(x2[1]))
    assert bits_of(_val(z).reshape(1)).tolist() == bits_of(x2[:1]).tolist()
    # a non-bool condition: NumPy's truth (the standard only says it should be bool)
    ci = np.array([0, 3, -1], np.int8)
    out = lt.where(lt.asarray(ci), lt.asarray(x2[:3]), lt.asarray(x2[3:6]))
    np.testing.assert_array_equal(bits_of(_val(out)), bits_of(np.where(ci, x2[:3], x2[3:6])))


def test_where_promotes_like_the_operators():
    a = lt.asarray(np.array([1, 2], np.int8))
    b = lt.asarray(np.array([0.5, 1.5], np.float32))
    c = lt.asarray(np.array([True, False]))
    t = lt.where(c, a, b)
    assert t.dtype == np.float32 and _val(t).tolist() == [1.0, 1.5]
    t = lt.where(c, a, 1000 - 1000)
    assert t.dtype == np.int8 and _val(t).tolist() == [1, 0]


@pytest.mark.parametrize("dtname", ["float16", "float32", "float64"])
def test_clip_floats(dtname):
    rng = seeded_rng("clip", dtname)
    x = np.concatenate([special_values(dtname), pool_values(dtname, 1500, rng)])
    T = np.float32 if dtname == "float16" else np.dtype(dtname)
    xt = x.astype(T)
    tx = lt.asarray(x)

    def ref(lo, hi):
        r = xt
        with np.errstate(all="ignore"):
            if lo is not None:
                r = _max_rule(r, np.full_like(r, lo))
            if hi is not None:
                r = _min_rule(r, np.full_like(r, hi))
        return r.astype(dtname)

    # both bounds given: signed zeros on either side, NaN bounds, crossed bounds
    both = [(0.0, 255.0), (-0.0, 1.0), (-1.0, 0.0), (-1.0, -0.0), (0.0, 0.0),
               (-0.0, -0.0), (0.0, -0.0), (-0.0, 0.0), (np.nan, 1.0), (-1.0, np.nan),
               (np.nan, np.nan), (np.inf, -np.inf), (1.0, 1.0)]
    for lo, hi in [(None, None), (-1.0, None), (None, 2.5), (-1.0, 2.5), (2.5, -1.0),
                   (0.0, None), (None, -0.0), (-np.inf, np.inf), (0.1, 0.2)] + both:
        t = lt.clip(tx, lo, hi)
        assert t.dtype == np.dtype(dtname)
        check_exact(f"clip({lo}, {hi})[{dtname}]", _val(t), ref(lo, hi), [x],
                    canonical=(lo, hi) != (None, None))     # no bounds: the identity
        with lt.mode("fast"):                # the same values (NaN payloads may differ)
            check_close(f"clip({lo}, {hi})[{dtname}] fast", _val(lt.clip(tx, lo, hi)),
                        ref(lo, hi), [x], ulps=0, nan_bits=False)
    # tensor bounds that broadcast
    lo = np.array([[-1.0], [0.0], [np.nan]], dtname)
    hi = np.array(3.0, dtname)
    t = lt.clip(tx, lt.asarray(lo), lt.asarray(hi))
    assert t.shape == (3, x.size)
    with np.errstate(all="ignore"):
        want = _min_rule(_max_rule(xt[None, :], lo.astype(T)), hi.astype(T)).astype(dtname)
    check_exact(f"clip(tensor bounds)[{dtname}]", _val(t), want, [x[None, :], lo])


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_cast_of_clip(src):
    """astype(clip(x, lo, hi), int) drops a clip whose bounds hold the target's range (the
    cast saturates by itself); every pair of bounds must give the clip-then-cast values."""
    x = cast_inputs(src)
    tx = lt.asarray(x)
    for dst in ["uint8", "int8", "int16", "uint16", "int32", "uint64"]:
        ii = np.iinfo(dst)
        pairs = [(0.0, 255.0), (-128.0, 127.0), (float(ii.min), float(ii.max)), (-1e30, 1e30),
                 (-np.inf, np.inf), (0.5, 255.0), (-1.0, 254.5), (np.nan, 1e30),
                 (-1e30, np.nan), (300.0, -5.0), (-0.0, 65535.0), (1.0, 1.0)]
        for lo, hi in pairs:
            with np.errstate(all="ignore"):
                clipped = _min_rule(_max_rule(x, np.full_like(x, lo)), np.full_like(x, hi))
            want = cast_reference(clipped.astype(x.dtype), dst)
            t = lt.astype(lt.clip(tx, lo, hi), dst)
            expl = str(lt.explain(t))
            dropped = "clip" not in expl
            check_exact(f"astype(clip({lo}, {hi}), {dst})[{src}]", np.asarray(t), want, [x])
            covers = (lo == lo and hi == hi and np.array(lo, src) <= ii.min
                      and np.array(hi, src) >= ii.max)
            assert dropped == bool(covers), (src, dst, lo, hi, expl)


def test_clip_signed_zero_nan_and_none():
    x = lt.asarray(np.array([-0.0, 0.0, np.nan, np.inf, -np.inf], np.float32))
    assert bits_of(_val(lt.clip(x, 0.0, None))).tolist() == \
        [0, 0, 0x7FC00000, 0x7F800000, 0]
    assert bits_of(_val(lt.clip(x, None, -0.0))).tolist() == \
        [0x80000000, 0x80000000, 0x7FC00000, 0x80000000, 0xFF800000]
    # None means no clamp at all (Array API), not the finite extremes of onnx.Clip
    assert bits_of(_val(lt.clip(x))).tolist() == \
        [0x80000000, 0, 0x7FC00000, 0x7F800000, 0xFF800000]


@pytest.mark.parametrize("dtname", INT_NAMES)
def test_clip_integers(dtname):
    dt = np.dtype(dtname)
    ii = np.iinfo(dt)
    x = np.concatenate([special_values(dtname), pool_values(dtname, 1000, seeded_rng("clipi", dtname))])
    tx = lt.asarray(x)
    for lo, hi in [(None, None), (3, None), (None, 50), (3, 50), (50, 3),
                   (ii.min, ii.max), (int(ii.min) - 1000, int(ii.max) + 1000)]:
        t = lt.clip(tx, lo, hi)
        assert t.dtype == dt
        want = x
        if lo is not None:
            want = np.where(x < lo, max(lo, int(ii.min)), want)
        if hi is not None:
            want = np.where(want > hi, min(hi, int(ii.max)), want)
        check_exact(f"clip({lo}, {hi})[{dtname}]", _val(t), want.astype(dt), [x])
