"""lazytensor's namespace on dask arrays, function by function: each call returns a dask array
of Tensor blocks with NumPy's values and computes nothing when it is made (docs/dask.md,
"What is served"); a function that cannot run block by block refuses the dask array with a
TypeError naming itself, never converting (computing) it whole.  The elementwise table ops
and the reductions have their own tests in test_dask.py."""

import inspect
import warnings

import dask
import dask.array as da
import numpy as np
import pytest

import lazytensor as lt
from lazytensor import Tensor

RNG = np.random.default_rng(7)
A = (RNG.standard_normal((12, 10)) * 3).astype(np.float32)
A[1, 2], A[5, 7] = np.nan, np.inf
P = np.abs(RNG.standard_normal((12, 10))).astype(np.float32) + 0.5
V = np.sort(RNG.standard_normal(12).astype(np.float32))
CHUNKS = (4, 5)


class _Forbidden(Exception):
    pass


def _no_compute(*args, **kwargs):
    raise _Forbidden("something was computed")


def _dask(a, blocks):
    t = lt.asarray(a) if blocks == "tensor blocks" else a
    return da.from_array(t, chunks=CHUNKS if a.ndim == 2 else 4)


def _computed_blocks(d):
    return list(dask.compute(*d.to_delayed().ravel(), scheduler="sync"))


# name -> (lazytensor's call on dask arrays, NumPy's on arrays); every operand of the call is
# a dask array made from the NumPy one
CASES = {
    # elementwise functions that convert their operand in Python
    "floor": (lambda d: lt.floor(d), lambda a: np.floor(a)),
    "ceil": (lambda d: lt.ceil(d), lambda a: np.ceil(a)),
    "trunc": (lambda d: lt.trunc(d), lambda a: np.trunc(a)),
    "rint": (lambda d: lt.rint(d), lambda a: np.rint(a)),
    "round decimals": (lambda d: lt.round(d, 1), lambda a: np.round(a, 1)),
    "around": (lambda d: lt.around(d), lambda a: np.around(a)),
    "clip": (lambda d: lt.clip(d, -1.0, 2.0), lambda a: np.clip(a, -1.0, 2.0)),
    "clip keywords": (lambda d: lt.clip(d, min=0.5), lambda a: np.clip(a, 0.5, None)),
    "isnan": (lambda d: lt.isnan(d), lambda a: np.isnan(a)),
    "isinf": (lambda d: lt.isinf(d), lambda a: np.isinf(a)),
    "isfinite": (lambda d: lt.isfinite(d), lambda a: np.isfinite(a)),
    "isposinf": (lambda d: lt.isposinf(d), lambda a: np.isposinf(a)),
    "nan_to_num": (lambda d: lt.nan_to_num(d, nan=-1.0, posinf=9.0),
                   lambda a: np.nan_to_num(a, nan=-1.0, posinf=9.0)),
    "positive": (lambda d: lt.positive(d), lambda a: np.positive(a)),
    "exp2": (lambda d: lt.exp2(lt.clip(d, -5.0, 5.0)),
             lambda a: np.exp2(np.clip(a, -5.0, 5.0))),
    "fabs": (lambda d: lt.fabs(d), lambda a: np.fabs(a)),
    "degrees": (lambda d: lt.degrees(d), lambda a: np.degrees(a)),
    "fmax": (lambda d: lt.fmax(d, 0.5), lambda a: np.fmax(a, np.float32(0.5))),
    "fmod": (lambda d: lt.fmod(d, 2.0), lambda a: np.fmod(a, np.float32(2.0))),
    "isclose": (lambda d: lt.isclose(d, d + 1e-7), lambda a: np.isclose(a, a + np.float32(1e-7))),
    "real": (lambda d: lt.real(d), lambda a: np.real(a)),
    "conj": (lambda d: lt.conj(d), lambda a: np.conj(a)),
    # dask's function over Tensor blocks
    "asarray": (lambda d: lt.asarray(d), lambda a: a),
    "asarray dtype": (lambda d: lt.asarray(d, dtype=lt.float64), lambda a: a.astype(np.float64)),
    "astype": (lambda d: lt.astype(lt.clip(lt.nan_to_num(d), -9.0, 9.0), lt.int32),
               lambda a: np.clip(np.nan_to_num(a), -9.0, 9.0).astype(np.int32)),
    "reshape": (lambda d: lt.reshape(d, (6, 2, 10)), lambda a: np.reshape(a, (6, 2, 10))),
    "reshape copy": (lambda d: lt.reshape(d, (120,), copy=False), lambda a: np.reshape(a, 120)),
    "transpose": (lambda d: lt.transpose(d), lambda a: a.T),
    "permute_dims": (lambda d: lt.permute_dims(d, (1, 0)), lambda a: a.T),
    "matrix_transpose": (lambda d: lt.matrix_transpose(d), lambda a: a.T),
    "squeeze": (lambda d: lt.squeeze(d[:1], axis=0), lambda a: a[0]),
    "expand_dims": (lambda d: lt.expand_dims(d, axis=1), lambda a: a[:, None]),
    "flip": (lambda d: lt.flip(d, axis=0), lambda a: a[::-1]),
    "roll": (lambda d: lt.roll(d, 3, axis=1), lambda a: np.roll(a, 3, axis=1)),
    "moveaxis": (lambda d: lt.moveaxis(d, 0, 1), lambda a: a.T),
    "tile": (lambda d: lt.tile(d, (2, 1)), lambda a: np.tile(a, (2, 1))),
    "repeat": (lambda d: lt.repeat(d, 2, axis=0), lambda a: np.repeat(a, 2, axis=0)),
    "ravel": (lambda d: lt.ravel(d), lambda a: a.ravel()),
    "broadcast_to": (lambda d: lt.broadcast_to(d[0], (3, 10)),
                     lambda a: np.broadcast_to(a[0], (3, 10))),
    "concat": (lambda d: lt.concat([d, d + 1], axis=1),
               lambda a: np.concatenate([a, a + 1], axis=1)),
    "concat axis None": (lambda d: lt.concat((d, d), axis=None),
                         lambda a: np.concatenate((a.ravel(), a.ravel()))),
    "stack": (lambda d: lt.stack([d, d * 2], axis=-1), lambda a: np.stack([a, a * 2], -1)),
    "vstack": (lambda d: lt.vstack([d, d]), lambda a: np.vstack([a, a])),
    "take": (lambda d: lt.take(d, np.array([3, 0, 7]), axis=1), lambda a: a[:, [3, 0, 7]]),
    "take flat": (lambda d: lt.take(d, np.array([3, 11, 50])), lambda a: a.ravel()[[3, 11, 50]]),
    "diagonal": (lambda d: lt.diagonal(d, 1), lambda a: np.diagonal(a, 1)),
    "tril": (lambda d: lt.tril(d, -1), lambda a: np.tril(a, -1)),
    "triu": (lambda d: lt.triu(d), lambda a: np.triu(a)),
    "cumsum": (lambda d: lt.cumsum(lt.nan_to_num(d, posinf=1.0), axis=1),
               lambda a: np.cumsum(np.nan_to_num(a, posinf=1.0), axis=1)),
    "cumulative_sum": (lambda d: lt.cumulative_sum(d[2], dtype=lt.float64),
                       lambda a: np.cumsum(a[2], dtype=np.float64)),
    "nancumsum": (lambda d: lt.nancumsum(d, axis=0), lambda a: np.nancumsum(a, axis=0)),
    "argmax": (lambda d: lt.argmax(d, axis=0), lambda a: np.argmax(a, axis=0)),
    "argmin keepdims": (lambda d: lt.argmin(d, axis=1, keepdims=True),
                        lambda a: np.argmin(a, axis=1, keepdims=True)),
    "nanmax": (lambda d: lt.nanmax(d, axis=1), lambda a: np.nanmax(a, axis=1)),
    "nanmean": (lambda d: lt.nanmean(lt.clip(d, -9.0, 9.0), axis=0),
                lambda a: np.nanmean(np.clip(a, -9.0, 9.0), axis=0)),
    "nansum": (lambda d: lt.nansum(lt.clip(d, -9.0, 9.0)),
               lambda a: np.nansum(np.clip(a, -9.0, 9.0))),
    "count_nonzero": (lambda d: lt.count_nonzero(d > 0, axis=0),
                      lambda a: np.count_nonzero(a > 0, axis=0)),
    "ptp": (lambda d: lt.ptp(lt.nan_to_num(d, posinf=0.0), axis=1),
            lambda a: np.ptp(np.nan_to_num(a, posinf=0.0), axis=1)),
    "diff": (lambda d: lt.diff(d, axis=1), lambda a: np.diff(a, axis=1)),
    "matmul": (lambda d: lt.matmul(lt.nan_to_num(d, posinf=0.0), lt.nan_to_num(d, posinf=0.0).T),
               lambda a: np.nan_to_num(a, posinf=0.0) @ np.nan_to_num(a, posinf=0.0).T),
    "tensordot": (lambda d: lt.tensordot(lt.nan_to_num(d, posinf=0.0),
                                         lt.nan_to_num(d, posinf=0.0), axes=([0], [0])),
                  lambda a: np.tensordot(np.nan_to_num(a, posinf=0.0),
                                         np.nan_to_num(a, posinf=0.0), axes=([0], [0]))),
    "vecdot": (lambda d: lt.vecdot(lt.nan_to_num(d, posinf=0.0), lt.nan_to_num(d, posinf=0.0)),
               lambda a: (np.nan_to_num(a, posinf=0.0) ** 2).sum(-1)),
    "einsum": (lambda d: lt.einsum("ij->j", lt.clip(d, -9.0, 9.0)),
               lambda a: np.einsum("ij->j", np.clip(a, -9.0, 9.0))),
    "zeros_like": (lambda d: lt.zeros_like(d), lambda a: np.zeros_like(a)),
    "full_like": (lambda d: lt.full_like(d, 2.5), lambda a: np.full_like(a, 2.5)),
    "isin": (lambda d: lt.isin(lt.floor(d), np.array([0.0, 1.0], np.float32)),
             lambda a: np.isin(np.floor(a), [0.0, 1.0])),
    "copy": (lambda d: lt.copy(d), lambda a: a.copy()),
    "median": (lambda d: lt.median(d, axis=0), lambda a: np.median(a, axis=0)),
    "diag": (lambda d: lt.diag(d[0]), lambda a: np.diag(a[0])),
    "outer": (lambda d: lt.outer(d[0], d[1]), lambda a: np.outer(a[0], a[1])),
    "append": (lambda d: lt.append(d, d, axis=0), lambda a: np.append(a, a, axis=0)),
    "pad": (lambda d: lt.pad(d, 1), lambda a: np.pad(a, 1)),
}


def _close(value, expected):
    if value.dtype.kind == "f" or np.asarray(expected).dtype.kind == "f":
        np.testing.assert_allclose(value, expected, rtol=3e-6, atol=1e-5, equal_nan=True)
    else:
        np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize("blocks", ["numpy blocks", "tensor blocks"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_function_on_a_dask_array_gives_tensor_blocks_and_numpys_values(case, blocks):
    on_dask, on_numpy = CASES[case]
    d = _dask(A, blocks)
    with dask.config.set(scheduler=_no_compute):
        out = on_dask(d)                       # nothing computed while the call is made
    assert isinstance(out, da.Array), type(out)
    assert isinstance(out._meta, Tensor), type(out._meta)
    assert {type(b) for b in _computed_blocks(out)} == {Tensor}
    with np.errstate(all="ignore"):
        expected = np.asarray(on_numpy(A))
    value = np.asarray(out.compute(scheduler="sync"))
    assert value.shape == expected.shape
    assert value.dtype == expected.dtype, (value.dtype, expected.dtype)
    _close(value, expected)


def test_searchsorted_and_digitize_on_dask_arrays():
    dv = da.from_array(lt.asarray(V), chunks=4)
    q = np.array([-1.0, 0.0, 0.5, 3.0], np.float32)
    for out, expected in ((lt.searchsorted(dv, q), np.searchsorted(V, q)),
                          (lt.digitize(_dask(P, "tensor blocks"), V), np.digitize(P, V))):
        assert isinstance(out, da.Array)
        np.testing.assert_array_equal(np.asarray(out.compute(scheduler="sync")), expected)


def test_nonzero_and_unique_on_dask_arrays():
    d = _dask(A, "tensor blocks")
    rows, cols = lt.nonzero(d > 1)
    np.testing.assert_array_equal(rows.compute(scheduler="sync"), np.nonzero(A > 1)[0])
    np.testing.assert_array_equal(cols.compute(scheduler="sync"), np.nonzero(A > 1)[1])
    u = lt.unique_values(lt.floor(lt.clip(d, -2.0, 2.0)))
    np.testing.assert_array_equal(np.asarray(u.compute(scheduler="sync")),
                                  np.unique(np.floor(np.clip(A, -2, 2))))


@pytest.mark.parametrize("name", ["sort", "argsort", "unique_counts", "split", "kron",
                                  "array_str", "unstack", "trapezoid", "convolve"])
def test_functions_that_cannot_run_block_by_block_refuse_the_dask_array(name):
    d = _dask(A, "tensor blocks")
    args = (d, d) if name in ("kron", "convolve") else (d, 2) if name == "split" else (d,)
    with dask.config.set(scheduler=_no_compute):
        with pytest.raises(TypeError, match="dask array") as info:
            getattr(lt, name)(*args)
    assert name in str(info.value) or "asarray" in str(info.value)


def test_out_is_refused_for_a_dask_array():
    d = _dask(A, "tensor blocks")
    for name in ("round", "fabs", "nansum"):
        with pytest.raises(lt.Unsupported, match=f"{name}: out="):
            getattr(lt, name)(d, out=np.empty_like(A))


def _namespace_functions():
    for name in sorted(dir(lt)):
        fn = getattr(lt, name)
        if (name.startswith("_") or not callable(fn) or inspect.isclass(fn)
                or name in ("jit", "set_num_threads", "set_mode", "mode", "config",
                            "set_printoptions", "printoptions", "seterr", "seterrcall",
                            "errstate", "save", "savez", "savez_compressed", "savetxt",
                            "fromfile", "load", "loadtxt", "genfromtxt", "fromregex")):
            continue
        yield name, fn


def test_no_function_of_the_namespace_computes_a_dask_array_it_is_given():
    """The class of bug this file was written for: a function converting a dask operand with
    NumPy's asarray, which computes the whole array in this process."""
    d = _dask(A, "tensor blocks")
    computed = []
    with dask.config.set(scheduler=_no_compute), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in _namespace_functions():
            for args in ((d,), (d, d)):
                try:
                    fn(*args)
                except _Forbidden:
                    computed.append((name, len(args)))
                except Exception:     # any other refusal (wrong arguments...) is fine here
                    pass
    # dask's own digitize computes a dask `bins` (its argument is an array of edges)
    assert computed == [("digitize", 2)], computed


def test_random_refuses_dask_parameters_and_shuffle():
    d = _dask(P, "tensor blocks")
    with dask.config.set(scheduler=_no_compute):
        with pytest.raises(TypeError, match="random.*dask array"):
            lt.random.normal(d, 1.0)
        with pytest.raises(TypeError, match="random.*dask array"):
            lt.random.default_rng(0).uniform(0.0, d)
        with pytest.raises(TypeError, match="shuffle.*dask array"):
            lt.random.default_rng(0).shuffle(d)


def test_concat_and_stack_of_numpy_and_tensor_blocks_give_tensor_blocks():
    dn, dt = _dask(A, "numpy blocks"), _dask(P, "tensor blocks")
    for out, expected in ((lt.concat([dn, dt]), np.concatenate([A, P])),
                          (lt.stack((dt, dn), axis=1), np.stack((P, A), axis=1)),
                          (lt.concatenate([dt, dn], axis=1), np.concatenate([P, A], axis=1))):
        assert {type(b) for b in _computed_blocks(out)} == {Tensor}
        np.testing.assert_array_equal(np.asarray(out.compute(scheduler="sync")), expected)
