"""Kernel paths: exact mode gives the same bits on every path and at every thread count,
and the kernel runs in the default floating-point state whatever the caller set."""

import ctypes
import ctypes.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import ops as _ops
from lazytensor._api.elementwise import apply

N = 40_000    # > 64 chunks per thread at 2 threads, so the split really happens


def random_bits(dtname, n, seed):
    """Random bit patterns of dtype ``dtname``: for floats every class turns up (normal,
    subnormal, zero, inf, NaN with payloads)."""
    dt = np.dtype(dtname)
    rng = np.random.default_rng(seed)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)
    values = raw.view(dt).copy()
    if dt.kind == "f":   # and plenty of ordinary values too
        values[::3] = rng.standard_normal(values[::3].size) * 10
    return values


def cases():
    for op in _ops.OPS_LIST:
        for dtname in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                       "uint64", "float16", "float32", "float64"):
            kind = "f" if dtname.startswith("float") else {"b": "b", "i": "i", "u": "u"}[
                np.dtype(dtname).kind]
            if kind in op.kinds:
                yield op.name, dtname


def run_all_paths(build):
    """build() evaluated on every path at 1 and 2 threads, as uint bit patterns."""
    out = {}
    for path in lt.kernel_paths():
        for threads in (1, 2):
            with lt.config(kernel_path=path, num_threads=threads, mode="exact"):
                v = np.array(build())
            out[(path, threads)] = v.view(f"u{v.dtype.itemsize}") if v.dtype.kind == "f" else v
    return out


@pytest.mark.parametrize("name,dtname", list(cases()))
def test_exact_bits_equal_on_every_path_and_thread_count(name, dtname):
    op = _ops.OPS[name]
    arrays = [lt.asarray(random_bits(dtname, N, seed)) for seed in range(op.arity)]
    attrs = tuple(0.1 * (k + 1) for k in range(len(op.attrs)))
    results = run_all_paths(lambda: apply(name, *arrays, attrs=attrs))
    reference = results[("generic", 1)]
    for key, bits in results.items():
        np.testing.assert_array_equal(bits, reference, err_msg=f"{name}[{dtname}] on {key}")


FMA_PATHS = [p for p in ("avx2", "avx512") if p in lt.kernel_paths()]
needs_two_fma_paths = pytest.mark.skipif(len(FMA_PATHS) < 2,
                                         reason="this CPU runs fewer than two FMA paths")


@needs_two_fma_paths
@pytest.mark.parametrize("name,dtname", list(cases()))
def test_fast_bits_equal_on_the_fma_paths(name, dtname):
    """Fast mode's op functions are the same code with an FMA on both AVX paths: only the vector
    width differs, so the bits must not (docs/architecture.md, "Kernel paths")."""
    op = _ops.OPS[name]
    arrays = [lt.asarray(random_bits(dtname, N, seed)) for seed in range(op.arity)]
    attrs = tuple(0.1 * (k + 1) for k in range(len(op.attrs)))
    results = {}
    for path in FMA_PATHS:
        with lt.config(kernel_path=path, num_threads=1, mode="fast"):
            v = np.array(apply(name, *arrays, attrs=attrs))
        results[path] = v.view(f"u{v.dtype.itemsize}") if v.dtype.kind == "f" else v
    np.testing.assert_array_equal(results["avx512"], results["avx2"], err_msg=f"{name}[{dtname}]")


@needs_two_fma_paths
@pytest.mark.parametrize("dtname", ["float32", "float64"])
def test_fast_reductions_and_rows_equal_on_the_fma_paths(dtname):
    X = lt.asarray((np.random.default_rng(4).standard_normal((64, 1024)) * 3).astype(dtname))
    build = {
        "sum": lambda: lt.sum(lt.exp(X / 3)), "sum rows": lambda: lt.sum(X * X, axis=1),
        "sum columns": lambda: lt.sum(X, axis=0), "var": lambda: lt.var(X, axis=1),
        "prod": lambda: lt.prod(1 + X / 100, axis=1), "max": lambda: lt.max(lt.sin(X), axis=0),
        "mean(gelu)": lambda: lt.mean(lt.nn.gelu(X)),
        "logsumexp": lambda: lt.nn.logsumexp(X, axis=1),
        "softmax": lambda: lt.nn.softmax(X, axis=1),
        "softmax columns": lambda: lt.nn.softmax(X, axis=0),
    }
    for what, fn in build.items():
        results = {}
        for path in FMA_PATHS:
            with lt.config(kernel_path=path, num_threads=1, mode="fast"):
                v = np.array(fn())
            results[path] = v.view(f"u{v.dtype.itemsize}")
        np.testing.assert_array_equal(results["avx512"], results["avx2"], err_msg=what)


def math_cases():
    for op in _ops.OPS_LIST:
        if op.math:
            for dtname in ("float32", "float64"):
                yield op.name, dtname


@pytest.mark.parametrize("inputs", ["bits", "mostly moderate", "mostly moderate positive"])
@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("name,dtname", list(math_cases()))
def test_math_element_does_not_depend_on_its_chunk_neighbours(name, dtname, mode, inputs):
    """The chunk forms run a vectorised main path on every element and redo some elements
    (far arguments, Ziv's test, special values) on their own, or (fast exp and Gelu) a whole
    chunk holding one: shuffling the elements, which gives each one other neighbours in its
    chunk, must shuffle the results bit for bit.  Inputs: random bit patterns, or values of
    moderate size with a few such patterns (huge, tiny, inf, NaN) among them, so that after
    the shuffle some chunks hold none of those and some hold one or more; the positive form
    keeps chunks of the log family on its main path (a negative input sends a chunk to the
    per-element form)."""
    op = _ops.OPS[name]
    raw = [random_bits(dtname, N, seed) for seed in range(op.arity)]
    if inputs.startswith("mostly moderate"):
        rng = np.random.default_rng(11)
        for r in raw:
            few = rng.random(N) < 0.002
            r[~few] = (rng.standard_normal(N) * 4).astype(dtname)[~few]
            if inputs.endswith("positive"):
                r[~few] = np.abs(r[~few])
    perm = np.random.default_rng(5).permutation(N)
    attrs = tuple(0.1 * (k + 1) for k in range(len(op.attrs)))
    for path in lt.kernel_paths():
        with lt.config(kernel_path=path, num_threads=1, mode=mode):
            whole = np.array(apply(name, *[lt.asarray(r) for r in raw], attrs=attrs))
            shuffled = np.array(apply(name, *[lt.asarray(r[perm]) for r in raw], attrs=attrs))
        u = f"u{whole.dtype.itemsize}"
        np.testing.assert_array_equal(shuffled.view(u), whole[perm].view(u),
                                      err_msg=f"{name}[{dtname}] on {path}")


@pytest.mark.parametrize("src", ["int64", "uint64", "float16", "float32", "float64"])
def test_casts_bits_equal_on_every_path(src):
    x = lt.asarray(random_bits(src, N, 7))
    for dst in ("bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32",
                "float64"):
        results = run_all_paths(lambda: x.astype(dst))
        for key, bits in results.items():
            np.testing.assert_array_equal(bits, results[("generic", 1)], err_msg=f"{src}->{dst} {key}")


def test_fused_strided_expression_bits_equal_on_every_path():
    rng = np.random.default_rng(3)
    X = lt.asarray(rng.standard_normal((300, 257)).astype(np.float32)).T   # transposed
    b = lt.asarray(rng.standard_normal((257, 1)).astype(np.float32))
    results = run_all_paths(lambda: lt.nn.hardswish(X * b + 1.0) - lt.where(X > b, X, b / 3))
    for key, bits in results.items():
        np.testing.assert_array_equal(bits, results[("generic", 1)], err_msg=str(key))


def test_paths_are_listed_and_chosen():
    paths = lt.kernel_paths()
    assert paths[0] == "generic"
    assert lt.kernel_path() in paths
    with lt.config(kernel_path="generic"):
        assert lt.kernel_path() == "generic"
    assert lt.kernel_path() == paths[-1]
    with pytest.raises(ValueError, match="unknown kernel path 'sse9'"):
        lt.config(kernel_path="sse9")


def test_environment_variable_picks_the_path():
    code = "import lazytensor as lt; print(lt.kernel_path())"
    env = dict(os.environ, LAZYTENSOR_KERNEL_PATH="generic")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd="/")
    assert out.returncode == 0 and out.stdout.strip() == "generic", out.stderr
    env["LAZYTENSOR_KERNEL_PATH"] = "quantum"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd="/")
    assert out.returncode != 0 and "LAZYTENSOR_KERNEL_PATH" in out.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="fesetround through glibc's libm")
def test_callers_rounding_mode_does_not_change_results_and_is_restored():
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    FE_UPWARD = 0x800   # x86 value; on other CPUs the constant differs
    if os.uname().machine not in ("x86_64", "i686"):
        pytest.skip("FE_UPWARD constant is x86's")
    x = lt.asarray(np.array([1.0, 3.0, 7.0], dtype=np.float32))
    y = lt.asarray(np.array([3.0, 7.0, 10.0], dtype=np.float32))
    with lt.config(num_threads=1):
        want = np.array(x / y)
        assert libm.fesetround(FE_UPWARD) == 0
        try:
            got = np.array(lt.asarray(np.array([1.0, 3.0, 7.0], dtype=np.float32)) / y)
            mode_after = libm.fegetround()
        finally:
            libm.fesetround(0)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert mode_after == FE_UPWARD


def _calls_out_of_the_avx_paths(disassembly: str) -> dict:
    """{callee: callers}: the calls and jumps from the AVX paths' functions (named
    ``*_avx2_*``, ``*_avx512_*``) to functions compiled for neither (the baseline's)."""
    out, current = {}, None
    for line in disassembly.splitlines():
        head = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if head:
            current = head.group(1)
            continue
        call = re.search(r"\s(?:call|jmp)\s+[0-9a-f]+ <([^>+]+)>", line)
        if call and current and re.search(r"_avx(2|512)_", current):
            callee = call.group(1)
            if callee != current and not re.search(r"_avx(2|512)_|@plt$", callee):
                out.setdefault(callee, set()).add(current)
    return out


def test_avx_paths_never_call_baseline_code():
    """A helper compiled once for the baseline (SSE) and called from an AVX path's code runs
    with the upper vector state dirty, which Intel cores charge at every call (the float32
    Gelu's accurate path through lt_dd.h's helpers: docs/exact-math.md, "Calls between kernel
    paths").  The helpers are inlined now; the one exception is libgcc's binary128
    arithmetic, called from the Gelu's quad path, which clears the state first
    (_mm256_zeroupper).  The kernel library's own disassembly is the reference."""
    from lazytensor import _kernels
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", _kernels.__file__],
                          capture_output=True, text=True, check=True).stdout
    calls = _calls_out_of_the_avx_paths(text)
    allowed = {callee for callee, callers in calls.items()
               if callee.startswith("__") and all(c.endswith("gelu32_quad") for c in callers)}
    assert {c: sorted(v)[:3] for c, v in calls.items() if c not in allowed} == {}
