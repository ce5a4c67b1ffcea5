"""A Tensor as a dask chunk type, lazytensor's functions on dask arrays, and both on a real
dask cluster (docs/dask.md).  Values are compared with NumPy on the same data."""

import os
import pickle
import subprocess
import sys

import dask
import dask.array as da
import numpy as np
import pytest
from dask.sizeof import sizeof
from distributed import Client, LocalCluster, wait

import lazytensor as lt
from lazytensor import Tensor

RNG = np.random.default_rng(42)
A = RNG.standard_normal((40, 30)).astype(np.float32)
B = RNG.standard_normal((40, 30)).astype(np.float32)
CHUNKS = (10, 15)


def _blocks(d, scheduler="sync"):
    """The computed blocks of ``d``, as they come back (not converted)."""
    return list(dask.compute(*d.to_delayed().ravel(), scheduler=scheduler))


def _block_types(d):
    return {type(b) for b in _blocks(d)}


def _value(d):
    return np.asarray(d.compute(scheduler="sync"))


@pytest.fixture
def dt():
    """A dask array of Tensor blocks over A."""
    return da.from_array(lt.asarray(A), chunks=CHUNKS)


@pytest.fixture
def dn():
    """A dask array of NumPy blocks over B."""
    return da.from_array(B, chunks=CHUNKS)


# ---- registration ----------------------------------------------------------------------
def _run(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(lt.__file__))] + sys.path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_registration_in_either_import_order_and_no_dask_at_lazytensor_import():
    check = ("from dask.array.chunk_types import is_valid_chunk_type; "
             "from dask.sizeof import sizeof; "
             "print(is_valid_chunk_type(lt.Tensor), sizeof(lt.ones(1000)))")
    first_lt = _run("import sys, lazytensor as lt; print('dask' in sys.modules); "
                    "import dask.array; " + check)
    assert first_lt == ["False", "True", "8000"]
    first_dask = _run("import dask.array; import lazytensor as lt; " + check)
    assert first_dask == ["True", "8000"]
    # a cluster's worker may meet lazytensor first in a task: unpickling the "lazytensor"
    # backend's bit generator imports the backend module, which imports dask.array
    first_task = _run("import pickle, sys; pickle.loads(" + repr(pickle.dumps(_bitgen())) +
                      "); import lazytensor as lt; import dask; " + check +
                      "; print(dask.array.backends.array_creation_dispatch.dispatch("
                      "'lazytensor').RandomState.__module__)")
    assert first_task == ["True", "8000", "lazytensor.random"]


def _bitgen():
    with dask.config.set({"array.backend": "lazytensor"}):
        return da.random.default_rng(0)._bit_generator


def test_sizeof_counts_the_values_bytes_pending_or_not():
    t = lt.asarray(A)
    assert sizeof(t) == A.nbytes
    pending = lt.exp(t) * 2
    assert not pending.is_evaluated
    assert sizeof(pending) == A.nbytes
    assert pending.is_evaluated              # sizeof evaluates: the bytes are real
    np.testing.assert_allclose(np.asarray(pending), np.exp(A) * 2, rtol=1e-6)
    assert sizeof(lt.astype(t, lt.float64)) == 2 * A.nbytes
    assert sizeof(t[::2]) == A[::2].nbytes


def test_sizeof_of_a_tensor_whose_evaluation_fails_leaves_it_pending(monkeypatch):
    pending = lt.exp(lt.asarray(A)) + 1

    def fail(self):
        raise RuntimeError("evaluation failed")

    monkeypatch.setattr(Tensor, "numpy", fail)
    assert sizeof(pending) == A.nbytes
    assert not pending.is_evaluated          # the error is raised where the value is read
    monkeypatch.undo()
    np.testing.assert_allclose(np.asarray(pending), np.exp(A) + 1, rtol=1e-6)


# ---- a dask array of Tensor blocks ---------------------------------------------------------
def test_from_array_keeps_tensor_blocks(dt):
    assert isinstance(dt._meta, Tensor)
    assert _block_types(dt) == {Tensor}
    np.testing.assert_array_equal(_value(dt), A)


CASES = {
    "np.exp": (lambda d: np.exp(d), lambda a: np.exp(a)),
    "da.sin": (lambda d: da.sin(d), lambda a: np.sin(a)),
    "operators": (lambda d: (d * 2 - 1) / 3 + d ** 2, lambda a: (a * 2 - 1) / 3 + a ** 2),
    "np.where": (lambda d: np.where(d > 0, d, -d), lambda a: np.where(a > 0, a, -a)),
    "np.clip": (lambda d: np.clip(d, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
    "sum axis 0": (lambda d: d.sum(axis=0), lambda a: a.sum(axis=0, dtype=np.float64)),
    "mean": (lambda d: d.mean(), lambda a: a.mean(dtype=np.float64)),
    "max keepdims": (lambda d: d.max(axis=1, keepdims=True),
                     lambda a: a.max(axis=1, keepdims=True)),
    "np.min": (lambda d: np.min(d, axis=0), lambda a: np.min(a, axis=0)),
    "std": (lambda d: d.std(axis=0), lambda a: a.astype(np.float64).std(axis=0)),
    "slicing": (lambda d: d[3:37:2, ::-3], lambda a: a[3:37:2, ::-3]),
    "rechunk": (lambda d: d.rechunk((7, 11)), lambda a: a),
    "concatenate": (lambda d: da.concatenate([d, d[:5]], axis=0),
                    lambda a: np.concatenate([a, a[:5]], axis=0)),
    "transpose": (lambda d: d.T + 1, lambda a: a.T + 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_operations_keep_tensor_blocks(dt, case):
    on_dask, on_numpy = CASES[case]
    out = on_dask(dt)
    assert isinstance(out._meta, Tensor), type(out._meta)
    assert _block_types(out) == {Tensor}
    expected = on_numpy(A)
    np.testing.assert_allclose(_value(out), expected, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("order", ["tensor first", "numpy first"])
@pytest.mark.parametrize("op", ["*", "np.add", "np.where"])
def test_numpy_blocks_mixed_with_tensor_blocks_give_tensor_blocks(dt, dn, order, op):
    x, y = (dt, dn) if order == "tensor first" else (dn, dt)
    a, b = (A, B) if order == "tensor first" else (B, A)
    if op == "*":
        out, expected = x * y, a * b
    elif op == "np.add":
        out, expected = np.add(x, y), a + b
    else:
        out, expected = np.where(x > y, x, y), np.where(a > b, a, b)
    assert isinstance(out._meta, Tensor)
    assert _block_types(out) == {Tensor}
    np.testing.assert_array_equal(_value(out), expected)


def test_a_bare_tensor_with_a_dask_array_gives_tensor_blocks(dn):
    t = lt.asarray(A)
    for out in (dn + t, t + dn, dn * lt.exp(t), np.add(dn, t), np.add(t, dn)):
        assert isinstance(out, da.Array) and _block_types(out) == {Tensor}
    np.testing.assert_allclose(_value(dn * lt.exp(t)), B * np.exp(A), rtol=1e-6)
    np.testing.assert_array_equal(_value(np.add(dn, t)), B + A)
    # NumPy's functions take the pair only with the Tensor registered as a chunk type
    out = np.concatenate([dn, t], axis=1)
    assert isinstance(out._meta, Tensor)
    np.testing.assert_array_equal(_value(out), np.concatenate([B, A], axis=1))


def test_elementwise_bits_do_not_depend_on_the_chunking_reductions_bits_may():
    x = np.random.default_rng(7).standard_normal((200, 150)).astype(np.float32)
    whole = np.asarray(lt.nn.gelu(lt.exp(lt.asarray(x)) * 2 - 1))
    sums = []
    for chunks in ((200, 150), (50, 30), (33, 77), (7, 13)):
        d = da.from_array(x, chunks=chunks)
        out = _value(lt.nn.gelu(lt.exp(d) * 2 - 1))
        assert np.array_equal(out.view(np.uint32), whole.view(np.uint32)), chunks
        sums.append(_value(lt.sum(d, axis=0)))
    for s in sums:   # dask's tree combines partial sums: equal within rounding, not in bits
        np.testing.assert_allclose(s, x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-4)
    assert any(not np.array_equal(s, sums[0]) for s in sums[1:])


# ---- fused per block ----------------------------------------------------------------------
def _kernels():
    return lt.stats()["kernels"]


CHAIN_OPS = ["exp", "multiply", "subtract", "gelu", "add"]


def _chain(d):
    return lt.nn.gelu(np.exp(d) * 2 - 1) + d


def _chain_numpy(a):
    m = np.exp(a.astype(np.float64)) * 2 - 1
    return m * 0.5 * (1 + _erf(m / np.sqrt(2))) + a


def test_threaded_scheduler_runs_one_kernel_per_block(dt):
    # each block dask returns is one pending Tensor of the whole chain: one kernel of its 5 ops
    blocks = _blocks(_chain(dt), scheduler="threads")
    assert len(blocks) == 8
    for b in blocks:
        assert not b.is_evaluated
        plan = lt.explain(b)
        assert len(plan) == 1 and plan.kernels[0]["ops"] == CHAIN_OPS, str(plan)
    before = _kernels()
    value = np.block([[np.asarray(b) for b in blocks[i:i + 2]] for i in range(0, 8, 2)])
    assert _kernels() - before == 8            # per op it would be 8 * 5
    np.testing.assert_allclose(value, _chain_numpy(A), rtol=2e-6, atol=2e-6)
    # without dask's blockwise fusion too: each task records onto its input's pending block
    unfused = _chain(dt).to_delayed(optimize_graph=False).ravel()
    before = _kernels()
    [np.asarray(b) for b in dask.compute(*unfused, scheduler="threads")]
    assert _kernels() - before == 8


def _threaded_kernels(x):
    before = _kernels()
    value = np.asarray(x.compute(scheduler="threads"))
    return _kernels() - before, value


def test_threaded_scheduler_fuses_the_reduction_into_the_blocks_kernel(dt):
    # dask's chunk step (np.sum of a block) records onto the block's pending chain: the sum
    # is a sink of the chain's kernel, so the chain adds no kernel to the reduction's own
    for reduce in (lambda d: d.sum(axis=0), lambda d: lt.sum(d), lambda d: d.max(axis=1)):
        alone, _ = _threaded_kernels(reduce(dt))
        fused, value = _threaded_kernels(reduce(_chain(dt)))
        assert fused == alone, (fused, alone)
        np.testing.assert_allclose(value, reduce(_chain_numpy(A)), rtol=1e-5, atol=1e-5)


# ---- threads --------------------------------------------------------------------------------
class _FakeWorker:
    """What lazytensor reads of a distributed worker: its status and its thread count."""

    def __init__(self, nthreads, status="running"):
        self.state = type("State", (), {"nthreads": nthreads})()
        self.status = type("Status", (), {"name": status})()


@pytest.mark.parametrize("env", ["", "3"])
def test_kernel_threads_fit_the_workers_of_the_process_before_sizeof_evaluates(
        monkeypatch, env):
    # a worker process that imported lazytensor before its worker started (spawn imports the
    # parent's main module) fits its kernel threads when it first sizes a task's result
    from lazytensor._api import dask_threads

    module = type(sys)("distributed.worker")
    module.Worker = type("Worker", (), {"_instances": [_FakeWorker(2), _FakeWorker(1),
                                                       _FakeWorker(8, "closed")]})
    monkeypatch.setitem(sys.modules, "distributed.worker", module)
    monkeypatch.setattr(dask_threads, "fitted", False)
    monkeypatch.setenv("LAZYTENSOR_NUM_THREADS", env)
    seen = []
    monkeypatch.setattr(Tensor, "numpy", lambda self: seen.append(lt.get_num_threads()))
    with lt.config(num_threads=16):
        sizeof(lt.exp(lt.asarray(A)))
        # 3 running threads among the workers; the environment variable has the last word
        assert seen == [16 if env else 3]
        assert dask_threads.fitted
        lt.set_num_threads(16)
        sizeof(lt.exp(lt.asarray(B)))        # fitted once: a later setting stands
        assert lt.get_num_threads() == 16


# ---- dask's dispatch tables -------------------------------------------------------------
def test_dispatch_tables_have_tensor_entries():
    import dask.array.dispatch as dispatch

    from lazytensor._api import _dask_lookups

    for name in ("concatenate_lookup", "tensordot_lookup", "einsum_lookup", "empty_lookup",
                 "divide_lookup", "numel_lookup", "nannumel_lookup", "percentile_lookup"):
        assert getattr(dispatch, name).dispatch(Tensor) is _dask_lookups.LOOKUPS[name], name


def test_concatenations_dask_computes_give_tensor_blocks(dt, dn):
    # da.concatenate only places the input blocks (no function runs on them); a rechunk that
    # merges them concatenates them with concatenate_lookup: Tensor blocks, mixed or not
    mixed = da.concatenate([dn, dt], axis=0)
    assert isinstance(mixed._meta, Tensor)
    for out in (mixed.rechunk((80, 30)), da.stack([dn, dt]).rechunk((2, 40, 30)),
                dt.rechunk((40, 30))):
        assert _block_types(out) == {Tensor}
    np.testing.assert_array_equal(_value(mixed.rechunk((80, 30))), np.concatenate([B, A]))
    np.testing.assert_array_equal(_value(da.stack([dn, dt]).rechunk((2, 40, 30))),
                                  np.stack([B, A]))


DISPATCH_CASES = {
    "tensordot": (lambda d: da.tensordot(d, d.T, axes=1), lambda a: a @ a.T),
    "tensordot axes 2": (lambda d: da.tensordot(d, d, axes=2),
                         lambda a: np.tensordot(a, a, axes=2)),
    "einsum": (lambda d: da.einsum("ij,kj->ik", d, d), lambda a: a @ a.T),
    "einsum dtype": (lambda d: da.einsum("ij->j", d, dtype=np.float64),
                     lambda a: a.astype(np.float64).sum(axis=0)),
    "nanmean": (lambda d: da.nanmean(d, axis=0), lambda a: a.astype(np.float64).mean(axis=0)),
    "nansum": (lambda d: da.nansum(d, axis=1), lambda a: a.astype(np.float64).sum(axis=1)),
    "mean float64": (lambda d: d.mean(axis=1, dtype=np.float64),
                     lambda a: a.astype(np.float64).mean(axis=1)),
}


@pytest.mark.parametrize("case", sorted(DISPATCH_CASES))
def test_dispatched_operations_give_tensor_blocks(dt, case):
    on_dask, on_numpy = DISPATCH_CASES[case]
    out = on_dask(dt)
    assert isinstance(out._meta, Tensor), type(out._meta)
    assert _block_types(out) == {Tensor}
    np.testing.assert_allclose(_value(out), on_numpy(A), rtol=2e-5, atol=2e-5)


def test_percentile_of_tensor_blocks():
    # one block: dask's percentile is NumPy's; several: dask's approximate merge, the same
    # as for the same data in NumPy blocks
    q = [0, 10, 50, 90, 100]
    one = da.from_array(lt.asarray(A.ravel()), chunks=A.size)
    np.testing.assert_array_equal(_value(da.percentile(one, q)), np.percentile(A, q))
    many = da.from_array(lt.asarray(A.ravel()), chunks=150)
    np.testing.assert_array_equal(_value(da.percentile(many, q)),
                                  _value(da.percentile(da.from_array(A.ravel(), chunks=150), q)))


# ---- map_overlap ----------------------------------------------------------------------------
def _laplacian(b):
    """A 5-point stencil keeping the block's shape (its edge rows and columns are what
    map_overlap trims away)."""
    inner = b[:-2, 1:-1] + b[2:, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] - 4 * b[1:-1, 1:-1]
    rows = np.concatenate([b[:1, 1:-1], inner, b[-1:, 1:-1]], axis=0)
    return np.concatenate([b[:, :1], rows, b[:, -1:]], axis=1)


# dask's boundary modes as np.pad's: dask's "reflect" repeats the edge (np.pad's "symmetric")
PAD = {"reflect": {"mode": "symmetric"}, "periodic": {"mode": "wrap"},
       "nearest": {"mode": "edge"}, 0.5: {"mode": "constant", "constant_values": 0.5}}


@pytest.mark.parametrize("boundary", ["reflect", "periodic", "nearest", 0.5, "none"])
def test_map_overlap_gives_tensor_blocks_and_numpys_values(dt, boundary):
    out = dt.map_overlap(_laplacian, depth=1, boundary=boundary, dtype=A.dtype)
    assert isinstance(out._meta, Tensor)
    assert _block_types(out) == {Tensor}
    value = _value(out)
    if boundary == "none":       # no padding at the array's edges: as dask does NumPy blocks
        expected = da.from_array(A, chunks=CHUNKS).map_overlap(
            _laplacian, depth=1, boundary="none", dtype=A.dtype).compute(scheduler="sync")
    else:
        expected = _laplacian(np.pad(A, 1, **PAD[boundary]))[1:-1, 1:-1]
    np.testing.assert_array_equal(value, expected)


def test_map_overlap_per_axis_and_lazytensor_functions(dn):
    out = dn.map_overlap(lambda b: lt.exp(b) + b[::-1], depth={0: 2, 1: 1},
                         boundary={0: "periodic", 1: "nearest"})
    assert _block_types(out) == {Tensor}
    padded = np.pad(np.pad(B, ((2, 2), (0, 0)), mode="wrap"), ((0, 0), (1, 1)), mode="edge")
    blocks = [[np.exp(padded[i:i + 14, j:j + 17]) + padded[i:i + 14, j:j + 17][::-1]
               for j in (0, 15)] for i in (0, 10, 20, 30)]
    expected = np.block([[b[2:-2, 1:-1] for b in row] for row in blocks])
    np.testing.assert_allclose(_value(out), expected, rtol=2e-6, atol=2e-6)


# ---- the "lazytensor" array backend ---------------------------------------------------------
CREATION = {
    "ones": (lambda: da.ones((10, 6), chunks=(5, 3)), lambda: np.ones((10, 6))),
    "zeros float32": (lambda: da.zeros((10, 6), chunks=(5, 3), dtype="float32"),
                      lambda: np.zeros((10, 6), dtype=np.float32)),
    "empty": (lambda: da.empty((10, 6), chunks=(5, 3), dtype="int32"),
              lambda: np.empty((10, 6), dtype=np.int32)),
    "full": (lambda: da.full((10, 6), 2.5, chunks=(5, 3)), lambda: np.full((10, 6), 2.5)),
    "arange": (lambda: da.arange(0, 20, 3, chunks=4), lambda: np.arange(0, 20, 3)),
    "arange float32": (lambda: da.arange(0.5, 5, 0.25, chunks=4, dtype="float32"),
                       lambda: np.arange(0.5, 5, 0.25, dtype=np.float32)),
    "ones_like": (lambda: da.ones_like(da.zeros((7,), chunks=3)), lambda: np.ones(7)),
    "standard_normal": (
        lambda: da.random.default_rng(42).standard_normal((10, 6), chunks=(5, 3),
                                                          dtype="float32"), None),
    "random": (lambda: da.random.default_rng(7).random((13,), chunks=5), None),
    "integers": (lambda: da.random.default_rng(7).integers(0, 10, (13,), chunks=5), None),
    "RandomState normal": (lambda: da.random.RandomState(3).normal(2, 3, (13,), chunks=5), None),
}


@pytest.mark.parametrize("case", sorted(CREATION))
def test_array_backend_lazytensor_builds_tensor_blocks(case):
    make, on_numpy = CREATION[case]
    with dask.config.set({"array.backend": "lazytensor"}):
        out = make()
    assert isinstance(out._meta, Tensor)
    assert _block_types(out) == {Tensor}
    # NumPy's values; for random draws the "numpy" backend's from the same seed (the same
    # bit generator streams)
    with dask.config.set({"array.backend": "numpy"}):
        expected = make().compute(scheduler="sync") if on_numpy is None else on_numpy()
    value = _value(out)
    assert value.dtype == expected.dtype and value.shape == expected.shape
    if case != "empty":
        np.testing.assert_array_equal(value, expected)


def test_array_backend_module_functions_and_to_backend():
    with dask.config.set({"array.backend": "lazytensor"}):
        assert _block_types(da.random.random((9,), chunks=4)) == {Tensor}
        assert _block_types(da.random.normal(size=(9,), chunks=4)) == {Tensor}
    n = da.from_array(A, chunks=CHUNKS)
    t = n.to_backend("lazytensor")
    assert isinstance(t._meta, Tensor) and _block_types(t) == {Tensor}
    back = t.to_backend("numpy")
    assert _block_types(back) == {np.ndarray}
    np.testing.assert_array_equal(back.compute(scheduler="sync"), A)


def test_array_backend_entry_point_as_pyproject_declares_it(monkeypatch):
    # what pip installs as metadata is pyproject.toml's text: dask's own entry-point route
    # (detect_entrypoints, then load()()) finds the backend by it
    import importlib.metadata
    import tomllib

    import dask.backends
    from dask.array.backends import ArrayBackendEntrypoint, array_creation_dispatch

    root = os.path.dirname(os.path.dirname(os.path.abspath(lt.__file__)))
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        declared = tomllib.load(f)["project"]["entry-points"]["dask.array.backends"]
    assert set(declared) == {"lazytensor"}
    ep = importlib.metadata.EntryPoint("lazytensor", declared["lazytensor"],
                                       "dask.array.backends")
    assert issubclass(ep.load(), ArrayBackendEntrypoint)
    monkeypatch.delitem(array_creation_dispatch._lookup, "lazytensor")
    monkeypatch.setattr(dask.backends, "detect_entrypoints",
                        lambda group: {"lazytensor": ep} if group == "dask.array.backends"
                        else {})
    with dask.config.set({"array.backend": "lazytensor"}):
        out = da.ones((4,), chunks=2)
    assert isinstance(array_creation_dispatch._lookup["lazytensor"], ep.load())
    assert _block_types(out) == {Tensor}


# ---- xarray -----------------------------------------------------------------------------------
XARRAY_CASES = {
    "arithmetic": lambda v: v * 2 + 1,
    "np.exp": lambda v: np.exp(v),
    "lt.exp through apply_ufunc": lambda v: __import__("xarray").apply_ufunc(
        lt.exp, v, dask="allowed"),
    "sum over y": lambda v: v.sum("y"),
    "mean": lambda v: v.mean(),
    "groupby mean": lambda v: v.groupby("x").mean(),
    "where": lambda v: v.where(v > 0),
    "isel": lambda v: v.isel(x=slice(3, 9)),
}


@pytest.mark.parametrize("over", ["Tensor", "dask array of Tensor blocks"])
@pytest.mark.parametrize("case", sorted(XARRAY_CASES))
def test_xarray_dataarray_keeps_tensors(dt, over, case):
    # xarray is an optional consumer (the test extra has it)
    xr = pytest.importorskip("xarray")
    coords = {"x": np.arange(40) % 4}
    data = lt.asarray(A) if over == "Tensor" else dt
    out = XARRAY_CASES[case](xr.DataArray(data, dims=("x", "y"), coords=coords))
    if over == "Tensor":
        assert isinstance(out.data, Tensor), type(out.data)
    else:
        assert isinstance(out.data, da.Array) and _block_types(out.data) == {Tensor}
    expected = XARRAY_CASES[case](xr.DataArray(A, dims=("x", "y"), coords=coords))
    assert out.dims == expected.dims and out.shape == expected.shape
    value = np.asarray(out.data.compute(scheduler="sync") if over != "Tensor" else out.data)
    # reductions may add in another order than NumPy's (within rounding)
    np.testing.assert_allclose(value, expected.values, rtol=2e-6, atol=5e-7)


def test_xarray_chunk_of_a_tensor_dataarray_gives_tensor_blocks():
    xr = pytest.importorskip("xarray")
    out = xr.DataArray(lt.asarray(A), dims=("x", "y")).chunk({"x": 10})
    assert _block_types(out.data) == {Tensor}
    np.testing.assert_array_equal(np.asarray(out.compute().data), A)


# ---- lazytensor's functions on dask arrays --------------------------------------------------
def _erf(x):
    import math

    return np.vectorize(math.erf)(x.astype(np.float64))


LT_CASES = {
    "exp": (lambda d: lt.exp(d), lambda a: np.exp(a.astype(np.float64))),
    "gelu": (lambda d: lt.nn.gelu(d), lambda a: a * 0.5 * (1 + _erf(a / np.sqrt(2)))),
    "gelu tanh": (lambda d: lt.nn.gelu(d, approximate="tanh"),
                  lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi)
                                                   * (a + 0.044715 * a.astype(np.float64) ** 3)))),
    "leaky_relu": (lambda d: lt.nn.leaky_relu(d, 0.1), lambda a: np.where(a < 0, 0.1 * a, a)),
    "add scalar": (lambda d: lt.add(d, 2.5), lambda a: a + 2.5),
    "chain": (lambda d: lt.sqrt(lt.abs(lt.sin(d))) * 2, lambda a: np.sqrt(np.abs(np.sin(a))) * 2),
    "where": (lambda d: lt.where(d > 0, d, 0.0), lambda a: np.where(a > 0, a, 0.0)),
    "sum axis 1": (lambda d: lt.sum(d, axis=1), lambda a: a.sum(axis=1, dtype=np.float64)),
    "sum keepdims": (lambda d: lt.sum(d, axis=0, keepdims=True),
                     lambda a: a.sum(axis=0, keepdims=True, dtype=np.float64)),
    "mean": (lambda d: lt.mean(d, axis=(0, 1)), lambda a: a.mean(dtype=np.float64)),
    "max": (lambda d: lt.max(d, axis=0), lambda a: a.max(axis=0)),
    "min keepdims": (lambda d: lt.min(d, axis=1, keepdims=True),
                     lambda a: a.min(axis=1, keepdims=True)),
    "prod": (lambda d: lt.prod(d[:4, :5] + 1, axis=1),
             lambda a: (a[:4, :5].astype(np.float64) + 1).prod(axis=1)),
    "var ddof": (lambda d: lt.var(d, axis=0, ddof=1),
                 lambda a: a.astype(np.float64).var(0, ddof=1)),
    "any": (lambda d: lt.any(d > 2, axis=0), lambda a: (a > 2).any(axis=0)),
    "all": (lambda d: lt.all(d > -3), lambda a: (a > -3).all()),
}


@pytest.mark.parametrize("blocks", ["numpy blocks", "tensor blocks"])
@pytest.mark.parametrize("case", sorted(LT_CASES))
def test_lazytensor_functions_on_dask_arrays(case, blocks, dt):
    d = dt if blocks == "tensor blocks" else da.from_array(A, chunks=CHUNKS)
    on_dask, on_numpy = LT_CASES[case]
    out = on_dask(d)
    assert isinstance(out, da.Array), type(out)
    assert isinstance(out._meta, Tensor)
    assert _block_types(out) == {Tensor}
    expected = on_numpy(A)
    value = _value(out)
    assert value.shape == np.shape(expected)
    np.testing.assert_allclose(value, expected, rtol=2e-6, atol=2e-6)


def test_binary_functions_broadcast_dask_arrays_and_tensors(dn):
    row = da.from_array(A[0], chunks=15)
    for out, expected in ((lt.maximum(dn, row), np.maximum(B, A[0])),
                          (lt.subtract(lt.asarray(A[0]), dn), A[0] - B),
                          (lt.where(dn > 0, row, dn), np.where(B > 0, A[0], B)),
                          (lt.where(lt.asarray(A > 0), dn, 0.0), np.where(A > 0, B, 0.0))):
        assert _block_types(out) == {Tensor}
        np.testing.assert_array_equal(_value(out), expected)


class _Forbidden(Exception):
    pass


def _no_compute(*args, **kwargs):
    raise _Forbidden("something was computed")


def test_lazytensor_functions_on_dask_arrays_stay_lazy(dn):
    with dask.config.set(scheduler=_no_compute):
        out = lt.sum(lt.nn.gelu(lt.exp(dn) * 2), axis=0) + lt.mean(lt.where(dn > 0, dn, 1.0))
        out = lt.max(out, keepdims=True)
        with pytest.raises(_Forbidden):   # the guard does guard
            out.compute()
    assert isinstance(out, da.Array)
    assert out.compute(scheduler="sync").shape == (1,)


def test_errors_name_the_function(dn):
    with pytest.raises(TypeError, match="bitwise_and"):
        lt.bitwise_and(dn, dn)
    with pytest.raises(lt.Unsupported, match="sum: where="):
        lt.sum(dn, where=dn > 0)
    with pytest.raises(lt.Unsupported, match="var: mean="):
        lt.var(dn, mean=0.0)
    strings = da.from_array(np.array(["a", "b"]), chunks=1)
    with pytest.raises(TypeError, match="exp"):
        lt.exp(strings)


# ---- on a cluster --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None, silence_logs=50)
    c = Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def test_cluster_values_and_block_types(client, dt):
    dn = da.from_array(B, chunks=CHUNKS)
    mixed = lt.nn.gelu(dt * dn + 1) - np.exp(dn / 4)
    reduced = lt.sum(mixed, axis=0) + lt.max(dt, axis=0)
    blocks = client.gather(client.compute(list(mixed.to_delayed().ravel())))
    assert {type(b) for b in blocks} == {Tensor}
    assert len(blocks) == 8                  # (40, 30) in blocks of (10, 15)
    value = client.compute(reduced).result()
    assert isinstance(value, Tensor)
    m = A.astype(np.float64) * B + 1
    expected_mixed = m * 0.5 * (1 + _erf(m / np.sqrt(2))) - np.exp(B / np.float32(4))
    expected = expected_mixed.sum(axis=0) + A.max(axis=0)
    np.testing.assert_allclose(np.asarray(value), expected, rtol=1e-5, atol=1e-4)
    # the workers sized the Tensor blocks they hold by their values
    sizes = client.run(lambda: __import__("dask.sizeof").sizeof.sizeof(
        __import__("lazytensor").ones((10, 15), dtype="float32")))
    assert set(sizes.values()) == {600}


def _held_blocks(name):
    """On a worker: (is a Tensor, is evaluated, dask's sizeof) of each block of array
    ``name`` it holds."""
    def inspect(dask_worker):
        from dask.sizeof import sizeof as size

        return [(type(v).__name__, bool(getattr(v, "is_evaluated", False)), size(v))
                for k, v in dask_worker.data.items()
                if isinstance(k, tuple) and k[0] == name]
    return inspect


def test_cluster_persist_holds_evaluated_blocks(client, dt):
    dn = da.from_array(B, chunks=CHUNKS)
    pending = np.exp(dt) * 2 + lt.nn.relu(dn - dt)     # each block a pending Tensor
    held = pending.persist()
    try:
        wait(held)
        per_worker = client.run(_held_blocks(held.name))
        blocks = [b for bs in per_worker.values() for b in bs]
        assert len(blocks) == 8
        assert all(kind == "Tensor" and evaluated and nbytes == 10 * 15 * 4
                   for kind, evaluated, nbytes in blocks), blocks
        expected = np.exp(A) * 2 + np.maximum(B - A, 0)
        np.testing.assert_allclose(np.asarray(client.compute(held).result()), expected,
                                   rtol=2e-6, atol=1e-6)
    finally:
        del held


def test_cluster_error_in_a_task_reaches_the_caller_named(client):
    # blocks that turn out to be strings though the array says float: lt.exp's block step
    # fails on the worker
    bad = da.from_delayed(dask.delayed(np.array)(["a", "b"]), shape=(2,), dtype=np.float64)
    with pytest.raises(TypeError, match="exp"):
        client.compute(lt.exp(bad)).result()


def _worker_kernels():
    import lazytensor

    return lazytensor.stats()["kernels"]


def _cluster_kernels(client, x, **kwargs):
    """Kernels the workers ran to compute ``x``, and its value."""
    before = sum(client.run(_worker_kernels).values())
    value = np.asarray(client.compute(x, **kwargs).result())
    return sum(client.run(_worker_kernels).values()) - before, value


def test_cluster_runs_one_kernel_per_block_reduction_fused(client, dt):
    d = dt
    kernels, value = _cluster_kernels(client, _chain(d))
    assert kernels == 8
    np.testing.assert_allclose(value, _chain_numpy(A), rtol=2e-6, atol=2e-6)
    alone, _ = _cluster_kernels(client, lt.sum(d, axis=0))
    fused, value = _cluster_kernels(client, lt.sum(_chain(d), axis=0))
    assert fused == alone
    np.testing.assert_allclose(value, _chain_numpy(A).sum(axis=0), rtol=1e-5, atol=1e-4)
    # the count does see per-op evaluation: without dask's graph optimization each op is a
    # task of its own, whose result the worker evaluates when the task ends (sizeof)
    kernels, _ = _cluster_kernels(client, _chain(d), optimize_graph=False)
    assert kernels == 8 * len(CHAIN_OPS)
    unfused, _ = _cluster_kernels(client, lt.sum(_chain(d), axis=0), optimize_graph=False)
    assert unfused == alone + 8 * len(CHAIN_OPS)


def test_cluster_array_backend_draws_tensor_blocks_on_the_workers(client):
    def gelu_sum():
        x = da.random.default_rng(11).standard_normal((40, 30), chunks=CHUNKS, dtype="float32")
        return x, lt.sum(lt.nn.gelu(x), axis=0)

    with dask.config.set({"array.backend": "lazytensor"}):
        x, s = gelu_sum()
    blocks = client.gather(client.compute(list(x.to_delayed().ravel())))
    assert {type(b) for b in blocks} == {Tensor}
    with dask.config.set({"array.backend": "numpy"}):
        x_np, _ = gelu_sum()
    a = x_np.compute(scheduler="sync")       # the same seed: the same draws, as NumPy blocks
    np.testing.assert_array_equal(np.asarray(client.compute(x).result()), a)
    expected = (a * 0.5 * (1 + _erf(a / np.sqrt(2)))).sum(axis=0)
    np.testing.assert_allclose(np.asarray(client.compute(s).result()), expected,
                               rtol=1e-5, atol=1e-4)


def test_cluster_workers_use_their_share_of_the_cores(client):
    # lazytensor in a worker process: as many kernel threads as the worker runs tasks
    threads = client.run(lambda: __import__("lazytensor").get_num_threads())
    expected = min(1, len(os.sched_getaffinity(0)))     # threads_per_worker=1
    assert set(threads.values()) == {expected}


def _worker_state():
    """On a worker: its pid, whether lazytensor is imported, and if so whether it is a chunk
    type there, the sizeof of a 1000-float64 Tensor and the kernel threads."""
    import os
    import sys

    if "lazytensor" not in sys.modules:
        return os.getpid(), False, None, None, None
    import lazytensor
    from dask.array.chunk_types import is_valid_chunk_type
    from dask.sizeof import sizeof as size

    return (os.getpid(), True, is_valid_chunk_type(lazytensor.Tensor),
            size(lazytensor.ones(1000)), lazytensor.get_num_threads())


def test_cluster_worker_restart_registers_again_and_gives_the_same_values(client):
    # the last cluster test: it restarts the module's workers
    with dask.config.set({"array.backend": "lazytensor"}):
        x = da.random.default_rng(5).standard_normal((40, 30), chunks=CHUNKS, dtype="float32")
    result = lt.sum(_chain(x), axis=0) + lt.max(x, axis=1).sum()
    before = np.asarray(client.compute(result).result())
    pids = {w: s[0] for w, s in client.run(_worker_state).items()}
    client.restart()
    # new processes, lazytensor not yet imported (a lambda: pickled by value, so running it
    # does not import this module, which imports lazytensor)
    fresh = client.run(lambda: (__import__("os").getpid(),
                                "lazytensor" in __import__("sys").modules))
    assert not {pid for pid, _ in fresh.values()} & set(pids.values())
    assert not any(imported for _, imported in fresh.values())
    after = client.compute(result).result()
    assert isinstance(after, Tensor)
    np.testing.assert_array_equal(np.asarray(after), before)
    blocks = client.gather(client.compute(list(_chain(x).to_delayed().ravel())))
    assert {type(b) for b in blocks} == {Tensor}
    # imported again by the tasks, and registered again: chunk type, sizeof, threads
    assert {s[1:] for s in client.run(_worker_state).values()} == {(True, True, 8000, 1)}
    a = x.compute(scheduler="sync")
    np.testing.assert_allclose(before, _chain_numpy(np.asarray(a)).sum(axis=0)
                               + np.asarray(a).max(axis=1).sum(), rtol=1e-5, atol=1e-4)
