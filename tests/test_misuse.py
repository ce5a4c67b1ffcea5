"""Misuse gives a clear error at once (docs/architecture.md, "Errors"): each bad input below
must raise the expected exception type with a message naming the function or op and the
offending thing (the shape, the argument and its type, the device, the variable and its
value), when the call is made rather than at a later evaluation.

The limits come from NumPy (an array's bytes and dimensions must fit intp, checked here
with np.empty) and the Array API standard (from_dlpack's BufferError, devices() a tuple)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lazytensor as lt
from lazytensor._engine import record as _record
from lazytensor._engine.ops import OPS

BIG = 2**32


def view(shape, dtype=np.float64):
    """A large tensor that exists: a broadcast view of one element."""
    return lt.broadcast_to(lt.asarray(np.zeros((), dtype)), shape)


def numpy_refuses(shape, dtype):
    """Whether NumPy refuses an array of ``shape`` and ``dtype`` (the independent limit):
    ValueError; a shape it takes fails to allocate instead (these are all huge)."""
    try:
        np.empty(shape, dtype)
    except ValueError:
        return True
    except MemoryError:
        return False
    raise AssertionError(f"a test shape {shape} that NumPy allocates")


def assert_names(exc_info, *names):
    text = str(exc_info.value)
    for name in names:
        assert str(name) in text, f"{name!r} is not named in: {text}"


# ---- shapes too large to exist ----------------------------------------------------------
# (function named in the error, call, the shape it would make, its dtype)
SHAPE_CASES = [
    ("zeros", lambda: lt.zeros((BIG, BIG)), (BIG, BIG), "float64"),
    ("ones", lambda: lt.ones((2**62, 4), dtype=lt.int8), (2**62, 4), "int8"),
    ("empty", lambda: lt.empty((2**40, 2**40, 0)), (2**40, 2**40, 0), "float64"),
    ("zeros", lambda: lt.zeros((2**63, 0)), (2**63, 0), "float64"),
    ("full", lambda: lt.full((2**61,), 1.0), (2**61,), "float64"),
    ("full", lambda: lt.full(2**61, 1.0, dtype=lt.float32), (2**61,), "float32"),
    ("zeros_like", lambda: lt.zeros_like(view((2**62,), np.bool_), dtype=lt.float64),
     (2**62,), "float64"),
    ("ones_like", lambda: lt.ones_like(view((2**62,), np.bool_), dtype=lt.int16),
     (2**62,), "int16"),
    ("empty_like", lambda: lt.empty_like(view((2**62,), np.bool_), dtype=lt.float32),
     (2**62,), "float32"),
    ("full_like", lambda: lt.full_like(view((2**62,), np.bool_), 2, dtype=lt.int64),
     (2**62,), "int64"),
    ("arange", lambda: lt.arange(0, 2**70), (2**70,), "int64"),
    ("arange", lambda: lt.arange(0, 2**62, 1, dtype=lt.float32), (2**62,), "float32"),
    ("linspace", lambda: lt.linspace(0, 1, 2**64), (2**64,), "float64"),
    ("eye", lambda: lt.eye(BIG), (BIG, BIG), "float64"),
    ("eye", lambda: lt.eye(3, 2**63), (3, 2**63), "float64"),
    ("meshgrid", lambda: lt.meshgrid(view((BIG,)), view((BIG,))), (BIG, BIG), "float64"),
    ("broadcast_to", lambda: lt.broadcast_to(lt.ones(1), (BIG, BIG)), (BIG, BIG), "float64"),
    ("broadcast_shapes", lambda: lt.broadcast_shapes((BIG, 1), (1, BIG)), (BIG, BIG), "bool"),
    ("broadcast_arrays", lambda: lt.broadcast_arrays(view((BIG, 1)), view((1, BIG))),
     (BIG, BIG), "float64"),
    ("reshape", lambda: lt.reshape(lt.zeros((0,)), (2**64, 0)), (2**64, 0), "float64"),
    ("tile", lambda: lt.tile(lt.ones(3, dtype=lt.float32), (2**62,)), (3 * 2**62,), "float32"),
    ("repeat", lambda: lt.repeat(lt.ones(3), 2**62), (3 * 2**62,), "float64"),
    ("concat", lambda: lt.concat([view((2**62,), np.bool_)] * 2), (2**63,), "bool"),
    ("concat", lambda: lt.concat([view((2**62,), np.bool_)] * 2, axis=None), (2**63,), "bool"),
    ("stack", lambda: lt.stack([view((2**62,), np.bool_)] * 4), (4, 2**62), "bool"),
    ("astype", lambda: view((2**62,), np.bool_).astype(lt.float64), (2**62,), "float64"),
    ("matmul", lambda: lt.matmul(view((BIG, 1)), view((1, BIG))), (BIG, BIG), "float64"),
    ("tensordot", lambda: lt.tensordot(view((BIG,)), view((BIG,)), axes=0), (BIG, BIG),
     "float64"),
    ("linalg.outer", lambda: lt.linalg.outer(view((BIG,)), view((BIG,))), (BIG, BIG),
     "float64"),
    ("where", lambda: lt.where(view((BIG, 1), np.bool_), view((1, BIG)), 0.0), (BIG, BIG),
     "float64"),
    ("clip", lambda: lt.clip(view((BIG, 1)), view((1, BIG)), 2.0), (BIG, BIG), "float64"),
]


@pytest.mark.parametrize("what, call, shape, dtype", SHAPE_CASES,
                         ids=[f"{c[0]}-{k}" for k, c in enumerate(SHAPE_CASES)])
def test_a_shape_too_large_is_refused_where_it_is_made(what, call, shape, dtype):
    assert numpy_refuses(shape, dtype)           # the limit is NumPy's
    with pytest.raises(ValueError) as exc:
        call()
    assert_names(exc, f"{what}:", "shape", shape)


def _operands_of(op, shapes):
    """Large views of a dtype ``op`` takes, one per operand."""
    dtype = {"f": np.float32, "i": np.int32, "u": np.uint32, "b": np.bool_}[
        next(k for k in "fiub" if k in op.kinds)]
    return [view(s, dtype) for s in shapes], np.dtype(dtype)


BINARY = [name for name, op in OPS.items() if op.arity == 2]


@pytest.mark.parametrize("path", ["c", "python"])
@pytest.mark.parametrize("name", BINARY)
def test_every_binary_op_refuses_a_broadcast_too_large(name, path):
    # C's binary (the recording fast path) and Python's twin, for every binary op in the table
    (a, b), dtype = _operands_of(OPS[name], [(BIG, 1), (1, BIG)])
    record = _record.binary if path == "c" else _record._python_binary
    (sa, sb), _ = _operands_of(OPS[name], [(2, 1), (1, 2)])
    record(name, sa, sb)                         # the signature is known: the lean path
    with pytest.raises(ValueError) as exc:
        record(name, a, b)
    assert_names(exc, f"{name}:", (BIG, BIG))


@pytest.mark.parametrize("name", BINARY)
def test_a_broadcast_whose_bytes_do_not_fit_names_the_dtype(name):
    # 2**62 elements: an element count C lets through to Python, whose check knows the
    # result's dtype (bool results of one byte fit; wider ones do not)
    (a, b), dtype = _operands_of(OPS[name], [(2**31, 1), (1, 2**31)])
    (sa, sb), _ = _operands_of(OPS[name], [(2, 1), (1, 2)])
    _record.binary(name, sa, sb)            # the signature is known: the lean path
    out = np.dtype(bool) if OPS[name].result == "bool" else dtype
    if not numpy_refuses((2**31, 2**31), out):
        assert _record.binary(name, a, b).shape == (2**31, 2**31)
        return
    with pytest.raises(ValueError) as exc:
        _record.binary(name, a, b)
    assert_names(exc, f"{name}:", (2**31, 2**31), out.name)


def test_the_issue_example_fails_when_recorded():
    a, b = view((BIG, 1)), view((1, BIG))
    with pytest.raises(ValueError, match=re.escape(str((BIG, BIG)))):
        a + b


def numpy_takes(shape, dtype) -> bool:
    """Whether NumPy makes a view of ``shape`` and ``dtype`` (nothing is allocated)."""
    try:
        np.lib.stride_tricks.as_strided(np.zeros((), dtype), shape, (0,) * len(shape))
    except (ValueError, OverflowError):
        return False
    return True


DIMS = st.one_of(st.integers(0, 3), st.sampled_from([2**k for k in range(28, 66)]),
                 st.sampled_from([2**63 - 1, 2**62 + 1, 3 * 2**60]))
DTYPES = st.sampled_from(["bool", "int8", "uint16", "float32", "int64", "float64",
                          "complex128"])


@settings(max_examples=150, deadline=None)
@given(shape=st.lists(DIMS, max_size=4).map(tuple), dtype=DTYPES)
def test_creation_refuses_exactly_what_numpy_refuses(shape, dtype):
    if numpy_takes(shape, dtype):
        assert lt.zeros(shape, dtype=lt.__dict__[dtype]).shape == shape
    else:
        with pytest.raises(ValueError, match=re.escape(f"zeros: shape {shape}")):
            lt.zeros(shape, dtype=lt.__dict__[dtype])


@settings(max_examples=150, deadline=None)
@given(a=st.lists(DIMS, min_size=1, max_size=3), b=st.lists(DIMS, min_size=1, max_size=3),
       op=st.sampled_from(["add", "multiply", "less", "maximum"]),
       dtype=st.sampled_from(["int8", "float32", "float64"]))
def test_broadcasting_refuses_exactly_what_numpy_refuses(a, b, op, dtype):
    # each operand fits (a view of one element); shapes made to broadcast: b's dims 1 or a's
    a = tuple(d if numpy_takes((d,), dtype) else 1 for d in a)
    b = tuple(1 if i % 2 else d for i, d in enumerate(b))
    b = tuple(d if numpy_takes((d,), dtype) else 1 for d in b)
    if not numpy_takes(a, dtype) or not numpy_takes(b, dtype):
        return
    ndim = max(len(a), len(b))
    pa, pb = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
    if any(x != y and 1 not in (x, y) for x, y in zip(pa, pb)):
        return
    shape = tuple(max(x, y) if 0 not in (x, y) else 0 for x, y in zip(pa, pb))
    out = "bool" if op == "less" else dtype
    x, y = view(a, np.dtype(dtype)), view(b, np.dtype(dtype))
    _record.binary(op, view((1,), np.dtype(dtype)), view((1,), np.dtype(dtype)))
    if numpy_takes(shape, out):
        assert _record.binary(op, x, y).shape == shape
    else:
        with pytest.raises(ValueError, match=re.escape(f"{op}: shape {shape}")):
            _record.binary(op, x, y)


def test_shapes_that_fit_are_still_made():
    assert lt.broadcast_to(lt.asarray(np.uint8(1)), (2**63 - 1,)).shape == (2**63 - 1,)
    assert lt.zeros((2**63 - 1, 0), dtype=lt.uint8).shape == (2**63 - 1, 0)
    got = view((2**30, 1), np.bool_) & view((1, 2**30), np.bool_)
    assert got.shape == (2**30, 2**30)


# ---- attributes of ops --------------------------------------------------------------------
def _function_of(name):
    return getattr(lt.nn, name, None) or getattr(lt, name)


ATTR_OPS = [(name, attr) for name, op in OPS.items() for attr in op.attrs]
BAD_ATTRS = ["a", None, 1j, True, [0.5], np.array([0.5, 0.25])]


@pytest.mark.parametrize("name, attr", ATTR_OPS)
@pytest.mark.parametrize("bad", BAD_ATTRS, ids=lambda v: type(v).__name__)
def test_every_attribute_is_checked(name, attr, bad):
    # every attribute of every op in the table, through its public function
    x = lt.asarray(np.array([-1.0, 2.0], np.float32))
    with pytest.raises(TypeError) as exc:
        _function_of(name)(x, **{attr: bad})
    assert_names(exc, f"{name}:", attr, type(bad).__name__)


@pytest.mark.parametrize("name, attr", ATTR_OPS)
def test_good_attributes_still_work(name, attr):
    x = np.array([-1.0, 2.0], np.float32)
    for good in (0.25, 1, np.float32(0.25), np.int64(2)):
        got = _function_of(name)(lt.asarray(x), **{attr: good}).numpy()
        assert got.dtype == np.float32 and np.isfinite(got).all()


@pytest.mark.parametrize("bound", ["min", "max"])
@pytest.mark.parametrize("bad", ["a", 1j, ["a"], object()], ids=lambda v: type(v).__name__)
def test_clip_bounds_are_checked(bound, bad):
    x = lt.asarray(np.array([-1.0, 2.0]))
    with pytest.raises(TypeError) as exc:
        lt.clip(x, **{bound: bad})
    assert_names(exc, "clip:", bound, type(bad).__name__)


@pytest.mark.parametrize("bad, kind", [(3, TypeError), (None, TypeError),
                                       ("erf", ValueError)])
def test_gelu_approximate_is_checked(bad, kind):
    with pytest.raises(kind) as exc:
        lt.nn.gelu(lt.asarray(np.ones(2)), approximate=bad)
    assert_names(exc, "gelu:", "approximate", repr(bad))
    if kind is TypeError:
        assert_names(exc, type(bad).__name__)


# ---- DLPack from another device ------------------------------------------------------------
class ForeignExporter:
    """A DLPack exporter whose data lives on another device (it cannot make a CPU capsule)."""

    def __init__(self, device):
        self.device = device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        return object()                       # not a capsule: it must never be asked


@pytest.mark.parametrize("device, named", [((2, 0), "CUDA 0"), ((4, 1), "OpenCL 1"),
                                           ((10, 3), "ROCm 3"), ((99, 0), "type 99")])
@pytest.mark.parametrize("target", [None, "cpu"])
def test_dlpack_from_another_device_says_which(device, named, target):
    with pytest.raises(BufferError) as exc:
        lt.from_dlpack(ForeignExporter(device), device=target)
    assert_names(exc, "from_dlpack:", named, "ForeignExporter", "CPU")


def test_dlpack_from_the_cpu_still_works():
    a = np.arange(5.0)
    np.testing.assert_array_equal(lt.from_dlpack(a).numpy(), a)


# ---- environment variables (read at import: a subprocess each) ------------------------------
ENV_CASES = [("LAZYTENSOR_POOL_BYTES", "-5"), ("LAZYTENSOR_POOL_BYTES", "lots"),
             ("LAZYTENSOR_POOL_BYTES", "1.5e9"), ("LAZYTENSOR_NUM_THREADS", "0"),
             ("LAZYTENSOR_NUM_THREADS", "two"), ("LAZYTENSOR_KERNEL_PATH", "sse9")]


def test_malformed_environment_variables_fail_at_import():
    root = os.path.dirname(os.path.dirname(os.path.abspath(lt.__file__)))
    runs = []
    for name, value in ENV_CASES:                # started together: each pays one import
        env = dict(os.environ, PYTHONPATH=root, **{name: value})
        runs.append(subprocess.Popen([sys.executable, "-c", "import lazytensor"], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True))
    for (name, value), run in zip(ENV_CASES, runs):
        _, err = run.communicate(timeout=120)
        last = err.strip().splitlines()[-1] if err.strip() else ""
        assert run.returncode != 0 and last.startswith("ValueError"), (name, value, err)
        assert name in last and repr(value) in last, last


# ---- the inspection namespace's types (Array API 2025.12) -----------------------------------
def test_namespace_info_returns_the_standards_types():
    info = lt.__array_namespace_info__()
    assert isinstance(info.devices(), tuple)    # 2025.12: "Changed ... from a List to a Tuple"
    assert info.devices() == (info.default_device(),)
    assert type(info.capabilities()) is dict
    assert type(info.default_dtypes()) is dict and type(info.dtypes()) is dict
    assert set(info.capabilities()) >= {"boolean indexing", "data-dependent shapes",
                                        "max dimensions"}


def test_a_tensor_made_without_a_node_raises_instead_of_crashing():
    """``Tensor.__new__(Tensor)`` (or object.__new__) gives a tensor without a node; every C
    fast path (operators, where, functions, views, values, jit) hands it to Python, which
    raises AttributeError naming ``_node``.  Run in a subprocess: a crash is a failure
    naming the expression, not the end of the test run."""
    exprs = ["t[0]", "t[1:]", "t[0, 0]", "t.T", "t.transpose()", "t.reshape(2)", "t + 1",
             "1 + t", "t + t", "-t", "abs(t)", "t < 1", "t.numpy()", "np.asarray(t)",
             "lt.where(t, t, t)", "lt.exp(t)", "lt.sum(t)", "t.astype(lt.float64)",
             "lt.jit(lambda x: x + 1)(t)"]
    script = (
        "import numpy as np, lazytensor as lt\n"
        "t = lt.Tensor.__new__(lt.Tensor)\n"
        f"for e in {exprs!r}:\n"
        "    print(e, flush=True)\n"
        "    try:\n"
        "        eval(e)\n"
        "    except AttributeError as exc:\n"
        "        assert '_node' in str(exc), (e, exc)\n"
        "    else:\n"
        "        raise AssertionError(e + ' did not raise')\n"
        "print('done')\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    last = run.stdout.strip().splitlines()[-1:] or ["(nothing)"]
    assert run.returncode == 0 and last == ["done"], (run.returncode, last, run.stderr[-500:])
