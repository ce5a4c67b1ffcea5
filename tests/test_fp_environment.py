"""Exact-mode bits do not depend on the floating-point environment the caller left.

Another library may leave the calling thread with flush-to-zero and denormals-are-zero
on, or with another rounding mode.  Everything lazytensor computes runs under its own
round-to-nearest, no-FTZ state (kernels_c/lt_fpenv.h, lazytensor/_engine/fpenv.py), and gives the
caller's state back.  Each case here is computed under each odd environment, at 1 and 2
threads, from inputs of its own (fresh leaves: nothing is shared with another evaluation by
hash-consing), twice (the first evaluation plans in Python, the repeat takes the C quick
paths), and compared bit for bit with the same expression computed from other fresh
leaves in the normal environment.  Python-scalar constants are converted once and cached,
so they are made for the first time under the odd environment (the caches are cleared
first) and then checked against NumPy's conversion in the normal environment, and reused
there.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor._engine import record as _record
from lazytensor._api import creation as _creation
from lazytensor._engine import ops as _ops
from lazytensor._engine.kernel import lib

# (rounding, flush) for lib.lt_fpenv_set: rounding 0 nearest, 1 upward, 2 downward, 3 toward
# zero; flush turns on flush-to-zero and denormals-are-zero
ENVS = {"ftz-daz": (0, 1), "upward": (1, 0), "downward": (2, 0), "toward-zero": (3, 0)}
# large enough for a kernel to be split over 2 threads (64 chunks of 256 each, tests/conftest.py)
N = 2 * 64 * 256 + 1001
FLOATS = ("float16", "float32", "float64")
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@contextlib.contextmanager
def fp_env(name):
    """The calling thread in the odd environment ``name``; its own state given back after,
    whatever happens (the next test, in this process, must not inherit it)."""
    rounding, flush = ENVS[name]
    saved = lib.lt_fpenv_enter()
    try:
        if lib.lt_fpenv_set(rounding, flush) != 0:
            pytest.skip(f"this platform cannot set the environment {name}")
        yield
    finally:
        lib.lt_fpenv_leave(saved)


def _probe():
    """What the hardware computes in the current environment, through NumPy: differs
    between the normal environment and each odd one (so the test is not vacuous)."""
    with np.errstate(all="ignore"):
        tiny = np.array([1e-40, -1e-40], np.float32)
        third = np.array([1.0, -1.0], np.float32) / np.float32(3)
        return np.concatenate([(tiny * np.float32(1)).view(np.uint32), third.view(np.uint32)])


NORMAL_PROBE = _probe()


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    old = lt.get_num_threads()
    lt.set_num_threads(request.param)
    yield request.param
    lt.set_num_threads(old)


def bits(a):
    a = np.ascontiguousarray(np.asarray(a))
    return a.view(UINT[a.itemsize]) if a.dtype.kind == "f" else a


def canonical(a):
    """NumPy's ``a`` with exact mode's NaN, the canonical quiet NaN."""
    a = np.array(a)
    a[np.isnan(a)] = np.nan
    return np.abs(a, where=np.isnan(a), out=a)


def _values(dtype, seed):
    """``N`` values of ``dtype``: moderate ones, wide magnitudes, subnormals, specials."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    q = N // 4
    moderate = rng.uniform(-4, 4, N - 3 * q)
    wide = rng.choice([-1, 1], q) * 10.0 ** rng.uniform(-30, 30, q)
    sub = rng.uniform(-1, 1, q) * float(info.smallest_normal)      # subnormals of dtype
    near_one = 1 + rng.standard_normal(q) * float(info.eps) * 64
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, float(info.max),
               float(info.smallest_subnormal), -float(info.smallest_subnormal)]
    with np.errstate(over="ignore"):   # rounded in the normal environment
        out = np.concatenate([special, moderate, wide, sub, near_one])[:N].astype(dtype)
    return out[rng.permutation(N)]


INPUTS = {dt: (_values(dt, 1), _values(dt, 2), _values(dt, 3)) for dt in FLOATS}
_INT_RNG = np.random.default_rng(7)
INT_INPUTS = {
    "int32": _INT_RNG.integers(-2**31, 2**31, N, dtype=np.int32),
    "int64": _INT_RNG.integers(-2**63, 2**63, N, dtype=np.int64) >> _INT_RNG.integers(0, 40, N),
    "uint64": _INT_RNG.integers(0, 2**64, N, dtype=np.uint64),
}


def fresh(a):
    """A tensor over a copy of ``a``: a leaf no other evaluation shares."""
    return lt.asarray(np.array(a))


# ---- the cases: name -> function of fresh tensors, giving a tensor -----------------------
ATTRS = {"leaky_relu": (0.7,), "hard_sigmoid": (0.7, 0.3)}
CASES = {}

for _op in _ops.OPS_LIST:
    if "f" in _op.kinds:
        for _dt in FLOATS:
            CASES[f"{_op.name}:{_dt}"] = (
                lambda name=_op.name, k=_op.arity, dt=_dt: _record.apply(
                    name, *(fresh(a) for a in INPUTS[dt][:k]), attrs=ATTRS.get(name, ())))

for _src in FLOATS + tuple(INT_INPUTS):
    for _dst in FLOATS + ("int32", "int64", "uint8"):
        if _src != _dst:
            CASES[f"astype:{_src}->{_dst}"] = (
                lambda s=_src, d=_dst: fresh(INPUTS[s][0] if s in INPUTS else INT_INPUTS[s])
                .astype(getattr(lt, d)))


def _reductions(dt):
    a = INPUTS[dt][0]
    m = a[: N // 89 * 89].reshape(-1, 89)
    with np.errstate(invalid="ignore"):       # a product that stays finite
        ones = (1 + np.nan_to_num(INPUTS[dt][1].astype(np.float64) % 1) / 64).astype(dt)
    sub = INPUTS[dt][2][np.abs(INPUTS[dt][2]) < np.finfo(dt).smallest_normal]
    return {
        "sum": lambda: lt.sum(fresh(a)),
        "sum-axis0": lambda: lt.sum(fresh(m), axis=0),
        "sum-axis1": lambda: lt.sum(fresh(m), axis=1),
        "sum-subnormals": lambda: lt.sum(fresh(sub)),
        "sum-3-subnormals": lambda: lt.sum(fresh(np.full(3, sub[0]))),     # issue 37
        "sum-subnormals-rows": lambda: lt.sum(fresh(sub[: len(sub) // 7 * 7].reshape(-1, 7)),
                                              axis=1),
        "mean": lambda: lt.mean(fresh(m)),
        "mean-axis1": lambda: lt.mean(fresh(m), axis=1),
        "mean-subnormals": lambda: lt.mean(fresh(sub)),
        "prod": lambda: lt.prod(fresh(ones[:4096])),
        "prod-axis0": lambda: lt.prod(fresh(m * 0 + ones[: m.size].reshape(m.shape)), axis=0),
        "max": lambda: lt.max(fresh(m), axis=1),
        "min": lambda: lt.min(fresh(m), axis=0),
        "var": lambda: lt.var(fresh(m), axis=1),
        "var-correction": lambda: lt.var(fresh(m), axis=0, correction=0.3),
        "std": lambda: lt.std(fresh(m)),
        "softmax": lambda: lt.nn.softmax(fresh(m), axis=-1),
        "softmax-axis0": lambda: lt.nn.softmax(fresh(m), axis=0),
        "logsumexp": lambda: lt.nn.logsumexp(fresh(m), axis=-1),
        "logsumexp-all": lambda: lt.nn.logsumexp(fresh(sub)),
    }


for _dt in FLOATS:
    for _name, _fn in _reductions(_dt).items():
        CASES[f"{_name}:{_dt}"] = _fn
    # creation functions that compute values (in float64, rounded once to the dtype)
    CASES[f"linspace:{_dt}"] = lambda dt=_dt: lt.linspace(0.1, 1.7, 1001, dtype=getattr(lt, dt))
    CASES[f"arange:{_dt}"] = lambda dt=_dt: lt.arange(0.1, 90.0, 0.37, dtype=getattr(lt, dt))

_REFERENCE = {}


def reference(name):
    """The case's bits in the normal environment, at one thread (computed once)."""
    if name not in _REFERENCE:
        with lt.config(num_threads=1), np.errstate(all="ignore"):
            _REFERENCE[name] = bits(CASES[name]().numpy()).copy()
    return _REFERENCE[name]


@pytest.mark.parametrize("env", ENVS)
def test_exact_bits_do_not_depend_on_the_environment(env, threads):
    """Every op of the table, cast, reduction and row function: the same bits under FTZ/DAZ
    and each rounding mode as in the normal environment, and the caller's environment
    given back."""
    refs = {name: reference(name) for name in CASES}
    failed = []
    with fp_env(env), np.errstate(all="ignore"):
        odd_probe = _probe()
        for name, case in CASES.items():
            # twice: a first evaluation plans in Python, a repeat takes the C quick paths
            for run in ("first", "repeat"):
                if not np.array_equal(bits(case().numpy()), refs[name]):
                    failed.append(f"{name} ({run})")
        still_odd = np.array_equal(_probe(), odd_probe)
    assert not np.array_equal(odd_probe, NORMAL_PROBE), "the environment was not changed"
    assert still_odd, "lazytensor did not give the caller's floating-point environment back"
    assert np.array_equal(_probe(), NORMAL_PROBE)
    assert not failed, f"{len(failed)} of {len(CASES)} cases differ under {env}: {failed}"


# ---- Python-scalar constants, first made under the odd environment -------------------------
def _clear_constant_caches():
    """Forget every converted Python scalar: constant nodes (and the C recording path's
    table of them) and full()'s kept arrays."""
    _record._constant_node.cache_clear()
    _record._FAST_CONSTANTS.clear()
    _creation._FULL_KEPT.clear()


_SMALL = {dt: INPUTS[dt][0][:1000] for dt in FLOATS}


def _constant_uses(c, dt, env):
    """Expressions using the Python scalar ``c`` with a ``dt`` tensor, as lazytensor gives
    them, and their NumPy references in the normal environment (NumPy's conversion of a
    Python scalar and its IEEE arithmetic: float16 in float32, rounded once)."""
    y = _SMALL[dt]
    work = np.float32 if dt == "float16" else dt
    c_np = np.array(c, dtype=dt)                    # the constant, rounded once to dt
    yw, cw = y.astype(work), c_np.astype(work)

    def setitem():
        t = fresh(y)
        t[3] = c
        return t

    near = np.array([c_np, np.nextafter(c_np, np.inf), np.nextafter(c_np, -np.inf)], dt)
    uses = {
        "isin": (lambda: lt.isin(fresh(near), c), np.isin(near, c_np)),
        "asarray": (lambda: lt.asarray(c, dtype=getattr(lt, dt)), c_np),
        "y*c": (lambda: fresh(y) * c, (yw * cw).astype(dt)),
        "c/y": (lambda: c / fresh(y), (cw / yw).astype(dt)),
        "y+c": (lambda: fresh(y) + c, (yw + cw).astype(dt)),
        "full": (lambda: lt.full((5,), c, dtype=getattr(lt, dt)), np.full(5, c_np)),
        "setitem": (setitem, np.concatenate([y[:3], [c_np], y[4:]]).astype(dt)),
    }
    if env == "ftz-daz":
        # isin's comparisons are NumPy's, in the caller's environment (a function computed
        # with NumPy on the values: outside exact mode's scope, README "Array API"); under
        # DAZ every subnormal equals zero.  Its conversion of c is checked under the
        # rounding modes.
        del uses["isin"]
    return uses


FLOAT_CONSTANTS = st.floats(allow_nan=False, allow_infinity=False,
                            min_value=-1e6, max_value=1e6) | st.floats(
    min_value=-1e-36, max_value=1e-36, allow_subnormal=True) | st.floats(
    min_value=-1e-4, max_value=1e-4).filter(lambda v: v != 0) | st.integers(-2**40, 2**40)


@settings(max_examples=25, deadline=None)
@given(c=FLOAT_CONSTANTS, env=st.sampled_from(sorted(ENVS)), dt=st.sampled_from(FLOATS))
@example(c=0.7, env="upward", dt="float32")
@example(c=1 / 3, env="downward", dt="float32")
@example(c=0.1, env="toward-zero", dt="float16")
@example(c=1e-40, env="ftz-daz", dt="float32")
@example(c=16777217, env="upward", dt="float32")
def test_constants_made_under_an_odd_environment(c, env, dt):
    """A Python scalar constant first converted under an odd environment has its
    round-to-nearest value there, and keeps it in the normal environment (constants are
    cached)."""
    if isinstance(c, int) and dt == "float16" and abs(c) > 65504:
        c = c % 65504
    _clear_constant_caches()
    with np.errstate(all="ignore"):
        uses = _constant_uses(c, dt, env)
        with fp_env(env):
            odd = {k: bits(fn().numpy()) for k, (fn, _) in uses.items()}
        again = {k: bits(fn().numpy()) for k, (fn, _) in uses.items()}   # cached constants
    failed = [f"{k} ({when})" for k, (_, ref) in uses.items()
              for when, got in (("under " + env, odd[k]), ("after", again[k]))
              if not np.array_equal(got, bits(canonical(ref)))]
    assert not failed, failed


def test_the_environment_is_restored_when_a_conversion_fails():
    """An error raised while lazytensor has its own state on still gives the caller's back."""
    with fp_env("upward"):
        probe = _probe()
        with pytest.raises(OverflowError):
            lt.full((3,), 10**400, dtype=lt.float64)
        assert np.array_equal(_probe(), probe)
    assert np.array_equal(_probe(), NORMAL_PROBE)
