"""Every operator of the table against an independent, eager NumPy/SciPy reference.

The reference never uses lazytensor: each op name maps (in ``REFERENCES``,
``tests/ops_reference.py``) to a NumPy or SciPy function, evaluated in float64 and rounded
once to the target dtype where that is the right reference, or to the rule of the semantics
reference written out in NumPy where NumPy differs (integer division by zero, MIN / -1,
Sign(-0), Max/Min signed zeros and NaN, the saturating float -> int cast, canonical NaN bits
in exact mode).

* ops whose table row says ``ulp`` 0 (correctly rounded or exact) must agree bit for bit
  (NaNs mapped to the canonical quiet NaN in the reference); the others within their bound;
* float16 ops are computed in float32 and rounded once: the float16 reference is the
  float32 reference rounded to float16;
* fast mode is compared with the same references within a tolerance.

This file: the table, layouts and broadcasting, the cast table, NaN bits;
``test_ops_reference_nn.py``: lt.nn, lt.onnx, Python-scalar promotion, where, clip.

Run: python -m pytest tests/test_ops_reference.py tests/test_ops_reference_nn.py -q
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazytensor as lt
from lazytensor._engine import ops as _ops
from lazytensor._api.elementwise import apply

from ops_reference import (  # tests/ is on sys.path under pytest
    accepted_dtypes, bits_of, c_array, CANONICAL_NAN_BITS, cast_inputs, cast_reference,
    check_close, check_exact, CHUNK_LENGTHS, compare, DTYPE_NAMES, FLOAT_NAMES, from_bits,
    OP_DTYPE_CASES, pool_values, random_values, Ref, REFERENCES, _require_reference, run_op,
    seeded_rng, special_values, table_inputs, TABLE_KIND, _val)


# the table
# --------------------------------------------------------------------------------------
def test_every_table_op_has_a_reference():
    missing = sorted(set(_ops.OPS) - set(REFERENCES))
    assert not missing, f"ops without a reference in REFERENCES: {missing}"


def test_every_table_op_takes_some_dtype():
    for name, op in _ops.OPS.items():
        assert accepted_dtypes(op), f"{name}: kinds {op.kinds!r} match none of {DTYPE_NAMES}"


@pytest.mark.parametrize("name,dtname", OP_DTYPE_CASES)
def test_op_special_and_random_values(name, dtname):
    """All pairs of special values plus random values, exact mode."""
    _require_reference(name)
    op = _ops.OPS[name]
    arrays = table_inputs(op, dtname, seeded_rng("table", name, dtname))
    attrs = REFERENCES[name].attrs
    dtype, out = run_op(name, arrays, attrs)
    compare(name, dtname, arrays, dtype, out, attrs=attrs)


@pytest.mark.parametrize("name,dtname", OP_DTYPE_CASES)
def test_op_fast_mode_within_tolerance(name, dtname):
    """Fast mode: the same references, within a few ulp; NaN bits are free."""
    _require_reference(name)
    op = _ops.OPS[name]
    arrays = table_inputs(op, dtname, seeded_rng("fast", name, dtname), n_random=500)
    attrs = REFERENCES[name].attrs
    dtype, out = run_op(name, arrays, attrs, mode="fast")
    compare(name, dtname, arrays, dtype, out, mode="fast", attrs=attrs)


def _divisors(dt):
    """Divisors for the division by a scalar: ordinary ones, ones whose reciprocal is
    subnormal or overflows (the fast form must fall back to the division), and specials."""
    fi = np.finfo(dt)
    tiny, sub = float(fi.tiny), float(fi.smallest_subnormal)
    return [0.05, 3.0, -7.0, 0.1, 1e-30, 1.5 * tiny, tiny, 2.0 * sub, sub, 0.75 / tiny,
            float(fi.max), 1.5, -0.0, 0.0, np.inf, -np.inf, np.nan]


def test_float32_remainder_family_where_the_quotient_is_hard():
    """float32 fmod, remainder and floor division compute the truncated quotient in double
    below |a/b| = 2^29 and call the C library above: NumPy's bits on both sides of that
    bound, where a/b is an integer or one ulp of a away from one (where a rounded quotient
    would truncate to the wrong integer if it could), for subnormal operands and at the
    special values, on every kernel path, in both modes (floor division by infinities aside:
    docs/semantics.md)."""
    rng = np.random.default_rng(12)
    b = (rng.standard_normal(40000) * 7).astype(np.float32)
    b[:100] = rng.uniform(-1e-40, 1e-40, 100).astype(np.float32)
    a = []
    for top in (2 ** 12, 2 ** 28, 2 ** 29, 2 ** 31):
        k = (rng.integers(-top, top, b.size) * b.astype(np.float64)).astype(np.float32)
        a += [k, np.nextafter(k, np.float32(np.inf)), np.nextafter(k, np.float32(-np.inf))]
    a = np.concatenate(a)
    b = np.tile(b, len(a) // b.size)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, 3.4e38, 0.5, -7.0],
                  np.float32)
    ga, gb = np.meshgrid(sp, sp)
    a, b = np.concatenate([a, ga.ravel()]), np.concatenate([b, gb.ravel()])
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(all="ignore"):
        want = {"fmod": np.fmod(a, b), "remainder": np.remainder(a, b),
                "floor_divide": np.where(finite, np.floor_divide(a, b), np.float32(0))}
    for mode in ("exact", "fast"):
        for path in lt.kernel_paths():
            with lt.config(mode=mode, kernel_path=path):
                got = {"fmod": lt.onnx.Mod(lt.asarray(a), lt.asarray(b), fmod=1).numpy(),
                       "remainder": lt.remainder(lt.asarray(a), lt.asarray(b)).numpy(),
                       "floor_divide": lt.floor_divide(lt.asarray(a), lt.asarray(b)).numpy()}
            got["floor_divide"] = np.where(finite, got["floor_divide"], np.float32(0))
            for name, g in got.items():
                w = want[name]
                same = (g.view(np.uint32) == w.view(np.uint32)) | (np.isnan(g) & np.isnan(w))
                assert same.all(), (f"{name} {mode} {path}: {np.count_nonzero(~same)} differ, "
                                    f"a={a[~same][:3]} b={b[~same][:3]} got={g[~same][:3]} "
                                    f"want={w[~same][:3]}")


@pytest.mark.parametrize("dtname", ["float32", "float64"])
def test_divide_by_a_scalar(dtname):
    """x / c with c one value for the whole kernel (a Python float, a 0-d tensor, an operand
    broadcast along every axis) has its own kernel function: exact mode is the IEEE
    quotient bit for bit; fast mode, a multiply by the reciprocal, is within 1.5 ulp of the
    exact quotient (computed with fractions), with the quotient's special values."""
    from fractions import Fraction
    dt = np.dtype(dtname)
    fi = np.finfo(dt)
    x = np.concatenate([special_values(dtname),
                        random_values(dtname, 1000, seeded_rng("divide_by_scalar", dtname))])
    tx = lt.asarray(x)
    assert "divide_by_scalar" in str(lt.explain(tx / 0.05))   # the function under test runs
    for c in _divisors(dt):
        cd = dt.type(c)
        forms = {"python float": lambda: tx / float(cd),
                 "0-d tensor": lambda: tx / lt.asarray(cd),
                 "broadcast (1,)": lambda: tx / lt.asarray(np.array([cd]))}
        with np.errstate(all="ignore"):
            expected = x / cd
        for form, make in forms.items():
            check_exact(f"{dtname} x / {c!r} ({form}, exact)", _val(make()), expected, [x])
            with lt.mode("fast"):
                y = _val(make())
            what = f"{dtname} x / {c!r} ({form}, fast)"
            nan = np.isnan(expected)
            assert np.array_equal(np.isnan(y), nan), what
            special = ~nan & (np.isinf(x) | ~np.isfinite(cd) | (cd == 0) | (x == 0))
            assert np.array_equal(y[special], expected[special]), what
            assert np.array_equal(np.signbit(y[special]), np.signbit(expected[special])), what
            for k in np.flatnonzero(~nan & ~special):
                q = Fraction(float(x[k])) / Fraction(float(cd))
                if abs(q) >= Fraction(float(fi.max)) * (1 - Fraction(2) ** -fi.nmant):
                    assert abs(float(y[k])) >= float(fi.max) and np.signbit(y[k]) == (q < 0), what
                    continue
                # the spacing of floats at |q| (that of the larger neighbour at a power of 2)
                ulp = Fraction(float(np.spacing(abs(dt.type(float(q))))))
                err = abs(Fraction(float(y[k])) - q) / ulp
                assert err <= Fraction(3, 2), f"{what}: x = {x[k]!r}: {float(err):.3f} ulp"


@pytest.mark.parametrize("dst", _ops.QUANTIZE_DTYPES)
@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_quantize_chain(dst, mode):
    """astype(clip(round(x / s) + z, lo, hi), dst) runs as one fused quantize function
    (_lower._fuse_quantize) on every kernel path and gives NumPy's values: x / s (in fast mode
    x times the float32 reciprocal of s, the documented rule of division by a scalar), rounded
    half to even, z added in float32, NaN to 0, saturated, truncated."""
    info = np.iinfo(dst)
    x = np.concatenate([special_values("float32"),
                        random_values("float32", 3000, seeded_rng("quantize", dst)),
                        np.float32([0.025, -0.025, 0.075, 6.375, 6.425, 12.775, -6.4,
                                    2.5, -2.5, 0.5, -0.5, 1.5, 12.8, 12.75]),
                        (seeded_rng("quantize tails", dst).standard_normal(2000) * 4000
                         ).astype(np.float32)])
    # 3e38: its reciprocal is subnormal, so fast mode divides too
    for k, (s, z) in enumerate(((0.05, 128.0), (0.1, 0.0), (3.0, -7.5), (0.05, None),
                                (1e-3, 3.0), (3e38, 1.0))):
        sf = np.float32(s)
        multiplies = mode == "fast" and abs(np.float32(1) / sf) >= np.finfo(np.float32).tiny
        with np.errstate(all="ignore"):
            t = np.rint(x * (np.float32(1) / sf) if multiplies else x / sf)
            if z is not None:
                t = t + np.float32(z)
        want = np.trunc(np.clip(np.nan_to_num(t, nan=0.0), info.min, info.max)).astype(dst)
        for path in lt.kernel_paths():
            with lt.config(kernel_path=path, mode=mode):
                for n in (1, 255, 257, len(x)):
                    tx = lt.asarray(x[:n])
                    q = lt.round(tx / s)
                    if z is not None:                   # the zero point on either side
                        q = q + z if k % 2 else z + q
                    q = lt.astype(lt.clip(q, info.min, info.max), getattr(lt, dst))
                    assert f"quantize[float32_{dst}]" in str(lt.explain(q)), (s, z, path)
                    np.testing.assert_array_equal(np.asarray(q), want[:n],
                                                  err_msg=f"{mode} {dst} {s} {z} {path} n={n}")


def test_quantize_chain_not_fused_when_a_step_is_read_elsewhere():
    """A step of the chain that is also an output, or read by another op, keeps the ops
    apart; the values stay those of the chain."""
    x = random_values("float32", 1000, seeded_rng("quantize shared"))
    tx = lt.asarray(x)
    r = lt.round(tx / 0.05)
    q = lt.astype(lt.clip(r + 128, 0, 255), lt.uint8)
    assert "quantize[" not in str(lt.explain(q, r))
    got_q, got_r = (np.asarray(v) for v in lt.eval(q, r))    # one kernel writes both
    want_r = np.rint(x / np.float32(0.05))
    np.testing.assert_array_equal(got_r, want_r)
    np.testing.assert_array_equal(got_q, np.clip(want_r + np.float32(128), 0, 255).astype(np.uint8))
    # a value added that is not a scalar: no fusion either
    y = lt.asarray(x[::-1].copy())
    q2 = lt.astype(lt.clip(lt.round(tx / 0.05) + y, 0, 255), lt.uint8)
    assert "quantize[" not in str(lt.explain(q2))
    want2 = np.clip(np.nan_to_num(np.rint(x / np.float32(0.05)) + x[::-1]), 0, 255)
    np.testing.assert_array_equal(np.asarray(q2), np.trunc(want2).astype(np.uint8))


@pytest.mark.parametrize("name,dtname", OP_DTYPE_CASES)
def test_op_lengths_around_the_chunk(name, dtname):
    """Lengths 0, 1, 255, 256, 257, 511, 513, 4097, contiguous and against a 0-d operand."""
    _require_reference(name)
    op = _ops.OPS[name]
    rng = seeded_rng("lengths", name, dtname)
    attrs = REFERENCES[name].attrs
    for n in CHUNK_LENGTHS:
        arrays = [pool_values(dtname, n, rng) for _ in range(op.arity)]
        dtype, out = run_op(name, arrays, attrs)
        compare(name, dtname, arrays, dtype, out, attrs=attrs,
                what=f"{name}[{dtname}] length {n}")
        assert out.shape == (n,)
        if op.arity == 2:   # a 0-d operand on either side (scalar registers)
            for k in (0, 1):
                mixed = list(arrays)
                mixed[k] = pool_values(dtname, 1, rng).reshape(())
                dtype, out = run_op(name, mixed, attrs)
                compare(name, dtname, mixed, dtype, out, attrs=attrs,
                        what=f"{name}[{dtname}] length {n}, operand {k} 0-d")


@pytest.mark.parametrize("name", sorted(_ops.OPS))
def test_op_rejects_dtypes_it_does_not_take(name):
    op = _ops.OPS[name]
    for dtname in DTYPE_NAMES:
        if TABLE_KIND[dtname] in op.kinds:
            continue
        xs = [lt.asarray(np.zeros(3, dtype=dtname)) for _ in range(op.arity)]
        if name == "divide":   # true division promotes integers and bool to float64
            assert apply(name, *xs).dtype == np.float64
            continue
        with pytest.raises(TypeError):
            apply(name, *xs, attrs=REFERENCES.get(name, Ref(None)).attrs)


# --------------------------------------------------------------------------------------
# non-contiguous inputs and broadcasting
# --------------------------------------------------------------------------------------
LAYOUT_DTYPES = ("bool", "int8", "int64", "uint16", "uint64", "float16", "float32", "float64")
LAYOUT_CASES = [pytest.param(name, dt, id=f"{name}-{dt}")
                for name, op in _ops.OPS.items() for dt in accepted_dtypes(op)
                if dt in LAYOUT_DTYPES]


@pytest.mark.parametrize("name,dtname", LAYOUT_CASES)
def test_op_non_contiguous_views(name, dtname):
    """Transposes, stepped and reversed slices (lazytensor views), mixed with contiguous."""
    _require_reference(name)
    op = _ops.OPS[name]
    rng = seeded_rng("layout", name, dtname)
    attrs = REFERENCES[name].attrs
    # (numpy view, lazytensor view) builders over a fresh base
    rows, cols = 37, 29
    layouts = {
        "T": (lambda: pool_values(dtname, rows * cols, rng).reshape(rows, cols),
              lambda x: x.T),
        "step3": (lambda: pool_values(dtname, 3 * 300 + 2, rng), lambda x: x[::3]),
        "reversed": (lambda: pool_values(dtname, 301, rng), lambda x: x[::-1]),
        "reversed-step2": (lambda: pool_values(dtname, 1030, rng), lambda x: x[::-2]),
        "2d-slice": (lambda: pool_values(dtname, 40 * 31, rng).reshape(40, 31),
                     lambda x: x[1::2, ::-3]),
    }
    for lname, (make, view) in layouts.items():
        bases = [make() for _ in range(op.arity)]
        np_views = [view(b) for b in bases]
        lt_views = [view(lt.asarray(b)) for b in bases]
        # every operand a view, then each one in turn replaced by a contiguous operand
        patterns = [tuple(range(op.arity))] + [
            tuple(None if j == k else j for j in range(op.arity))
            for k in range(op.arity) if op.arity > 1]
        for pat in patterns:
            arrays, tensors = [], []
            for k in range(op.arity):
                if pat[k] is None:    # a contiguous operand of the same shape
                    c = c_array(pool_values(dtname, np_views[k].size, rng)
                                .reshape(np_views[k].shape))
                    arrays.append(c)
                    tensors.append(lt.asarray(c))
                else:
                    arrays.append(np_views[k])
                    tensors.append(lt_views[k])
            assert all(t.shape == a.shape for t, a in zip(tensors, arrays))
            t = apply(name, *tensors, attrs=attrs)
            out = np.array(t)
            compare(name, dtname, arrays, t.dtype, out, attrs=attrs,
                    what=f"{name}[{dtname}] layout {lname} pattern {pat}")


BROADCAST_SHAPES = [
    ((), ()), ((), (5,)), ((7,), ()), ((1,), (300,)), ((300,), (1,)),
    ((0,), ()), ((0,), (1,)), ((2, 0), (1,)), ((2, 0, 3), (1, 3)), ((0, 1, 4), (5, 1)),
    ((3, 1), (1, 4)), ((2, 1, 4), (3, 1)), ((1, 1, 1, 1), (5,)), ((2, 3, 4, 5), (4, 1)),
    ((2, 1, 4, 1), (1, 3, 1, 70)), ((1, 4, 1, 3), (2, 1, 5, 1)), ((4, 1, 1, 257), (1, 2, 3, 1)),
    ((1,), (1, 1, 1, 1)), ((6, 1, 1, 1), ()), ((2, 2, 2, 2), (2, 2, 2, 2)),
]
BROADCAST_OPS = ("add", "subtract", "multiply", "divide", "remainder", "fmod", "maximum",
                 "minimum", "less_equal", "not_equal", "bitwise_xor",
                 "bitwise_right_shift", "copysign", "atan2", "pow", "logical_or")
BROADCAST_DTYPES = ("bool", "int8", "uint32", "int64", "float16", "float32", "float64")


@pytest.mark.parametrize("name", BROADCAST_OPS)
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_broadcasting_ranks_0_to_4(shapes, name):
    op = _ops.OPS[name]
    for dtname in accepted_dtypes(op):
        if dtname not in BROADCAST_DTYPES:
            continue
        rng = seeded_rng("broadcast", name, dtname, shapes)
        arrays = [pool_values(dtname, int(np.prod(s)), rng).reshape(s) for s in shapes]
        dtype, out = run_op(name, arrays)
        assert out.shape == np.broadcast_shapes(*shapes)
        compare(name, dtname, arrays, dtype, out, what=f"{name}[{dtname}] shapes {shapes}")


@st.composite
def _op_case(draw):
    name = draw(st.sampled_from(sorted(_ops.OPS)))
    op = _ops.OPS[name]
    dtname = draw(st.sampled_from(accepted_dtypes(op)))
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=op.arity, min_dims=0,
                                                    max_dims=4, min_side=0, max_side=4))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return name, dtname, shapes.input_shapes, seed


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.too_slow])
@given(_op_case())
def test_hypothesis_any_op_any_broadcast(case):
    name, dtname, shapes, seed = case
    _require_reference(name)
    rng = np.random.default_rng(seed)
    arrays = [pool_values(dtname, int(np.prod(s)), rng).reshape(s) for s in shapes]
    attrs = REFERENCES[name].attrs
    dtype, out = run_op(name, arrays, attrs)
    compare(name, dtname, arrays, dtype, out, attrs=attrs,
            what=f"{name}[{dtname}] shapes {shapes}")


# --------------------------------------------------------------------------------------
# the cast table
# --------------------------------------------------------------------------------------




CAST_CASES = [pytest.param(s, d, id=f"{s}->{d}") for s in DTYPE_NAMES for d in DTYPE_NAMES]


@pytest.mark.parametrize("src,dst", CAST_CASES)
def test_cast_table(src, dst):
    x = cast_inputs(src)
    expected = cast_reference(x, dst)
    t = lt.asarray(x).astype(dst)
    assert t.dtype == np.dtype(dst)
    out = np.array(t)
    same = src == dst      # astype to the same dtype is the identity: bits kept
    check_exact(f"cast {src}->{dst}", out, expected, [x], canonical=not same)
    # fast mode: the same values, NaN bits free
    with lt.mode("fast"):
        out = np.array(lt.asarray(x).astype(dst))
    check_close(f"cast {src}->{dst} (fast)", out, expected, [x], ulps=0, nan_bits=False)
    # through a fused chain and on a reversed view
    v = x[::-1]
    with lt.mode("exact"):
        out = np.array(lt.asarray(x)[::-1].astype(dst))
    check_exact(f"cast {src}->{dst} reversed view", out, cast_reference(v, dst), [v],
                canonical=not same)


def test_cast_documented_examples():
    def cast(values, src, dst):
        return np.array(lt.asarray(np.array(values, dtype=src)).astype(dst))

    assert cast([300, -1], "int32", "uint8").tolist() == [44, 255]
    assert cast([np.nan, 1e20, -1e20, -2.9, 2.9], "float32", "int32").tolist() == \
        [0, 2 ** 31 - 1, -2 ** 31, -2, 2]
    assert cast([np.nan, -0.0, 0.0, 0.5], "float64", "bool").tolist() == [True, False, False, True]
    assert cast([-1.0, 1e30, 255.9], "float64", "uint8").tolist() == [0, 255, 255]
    assert cast([2 ** 64 - 1], "uint64", "float64").tolist() == [2.0 ** 64]
    assert bits_of(cast([65520.0, 1e6, -1e6], "float32", "float16")).tolist() == \
        [0x7C00, 0x7C00, 0xFC00]
    assert bits_of(cast([np.nan], "float64", "float32")).tolist() == [0x7FC00000]
    payload = from_bits([0xFFF8000000000001], np.float64)
    out = np.array(lt.asarray(payload).astype("float16"))
    assert bits_of(out).tolist() == [0x7E00]


# --------------------------------------------------------------------------------------
# NaN bits in exact mode, tolerance in fast mode
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtname", FLOAT_NAMES)
def test_exact_mode_nan_bits_are_canonical(dtname):
    dt = np.dtype(dtname)
    w = dt.itemsize * 8
    qnan = CANONICAL_NAN_BITS[dt]
    odd = from_bits([qnan | (1 << (w - 1)), qnan | 5, qnan | 5 | (1 << (w - 1))], dt)
    one = np.ones(3, dt)
    cases = {
        "add": (odd, one), "multiply": (one, odd), "maximum": (odd, one),
        "minimum": (one, odd), "copysign": (odd, -one), "negative": (odd,), "abs": (odd,),
        "sign": (odd,), "floor": (odd,), "round": (odd,), "sqrt": (-one,), "exp": (odd,),
        "relu": (odd,), "gelu": (odd,), "sigmoid": (odd,), "silu": (odd,),
        "hardswish": (odd,),
    }
    for name, arrays in cases.items():
        _, out = run_op(name, arrays, REFERENCES[name].attrs)
        assert bits_of(out).tolist() == [qnan] * 3, f"{name}[{dtname}]: {bits_of(out)}"
        with lt.mode("fast"):
            _, out = run_op(name, arrays, REFERENCES[name].attrs, mode="fast")
        assert np.isnan(out).all(), f"{name}[{dtname}] fast: {out}"
    # 0/0, inf-inf, 0*inf produce the hardware's default NaN (negative on x86)
    z, inf = np.zeros(1, dt), np.full(1, np.inf, dt)
    for name, arrays in {"divide": (z, z), "subtract": (inf, inf), "multiply": (z, inf)}.items():
        _, out = run_op(name, arrays)
        assert bits_of(out).tolist() == [qnan], f"{name}[{dtname}]: {bits_of(out)}"


# --------------------------------------------------------------------------------------
