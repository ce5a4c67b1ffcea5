"""lt.random against numpy.random: the same seed gives NumPy's values, dtypes and shapes."""

import copy
import inspect
import pickle
import warnings

import numpy as np
import pytest

import lazytensor as lt

SEED = 1234


def same(r, ref):
    """``r`` (lazytensor's) is ``ref`` (NumPy's): arrays as Tensors, scalars as NumPy gives."""
    if isinstance(ref, np.ndarray):
        assert isinstance(r, lt.Tensor), type(r)
        assert r.dtype == ref.dtype and r.shape == ref.shape, (r.dtype, r.shape, ref.dtype,
                                                               ref.shape)
        assert np.array_equal(r.numpy(), ref, equal_nan=ref.dtype.kind in "fc")
    else:
        assert type(r) is type(ref), (type(r), type(ref))
        assert r == ref


def rngs(seed=SEED):
    return lt.random.default_rng(seed), np.random.default_rng(seed)


# (method, args, kwargs): one row per call form, every method of NumPy's Generator covered
GENERATOR_CALLS = [
    ("random", (), {}), ("random", ((3, 2),), {}), ("random", (0,), {}),
    ("standard_normal", ((500, 8),), {}), ("standard_normal", (), {}),
    ("normal", (1.0, 2.0, (3, 4)), {}), ("normal", ([0.0, 10.0], 1.0), {}), ("normal", (), {}),
    ("uniform", (), {"size": (300, 3)}), ("uniform", (-1, 1, 5), {}),
    ("integers", (10,), {}), ("integers", (0, 10, 5), {}),
    ("integers", (1, 6), {"size": (2, 3), "endpoint": True}),
    ("integers", ([3, 10, 100],), {}),
    ("choice", (300, 5), {"replace": False}), ("choice", (5, 3), {}), ("choice", (5,), {}),
    ("choice", ([1.5, 2.5, 3.5], 4), {"p": [0.2, 0.3, 0.5]}),
    ("choice", (np.arange(12).reshape(3, 4), 2), {"axis": 1}),
    ("choice", (np.arange(12.0).reshape(3, 4),), {}),
    ("permutation", (10,), {}), ("permutation", (np.arange(12.0).reshape(3, 4),), {"axis": 1}),
    ("permuted", (np.arange(12).reshape(3, 4),), {"axis": 1}),
    ("exponential", (2.0, 5), {}), ("standard_exponential", (5,), {"method": "inv"}),
    ("poisson", (3.0, 6), {}), ("poisson", (), {}), ("binomial", (10, 0.3, 6), {}),
    ("gamma", (2.0, 1.5, 4), {}), ("standard_gamma", (2.0, 4), {}), ("beta", (2.0, 3.0, 4), {}),
    ("lognormal", (0.0, 0.5, 4), {}),
    ("multivariate_normal", ([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], 5), {}),
    ("dirichlet", ([1.0, 2.0, 3.0], 4), {}), ("multinomial", (20, [0.2, 0.3, 0.5], 3), {}),
    ("multivariate_hypergeometric", ([4, 5, 6], 6, 3), {}),
    ("hypergeometric", (10, 5, 6, 4), {}), ("chisquare", (3.0, 4), {}),
    ("f", (3.0, 5.0, 4), {}), ("geometric", (0.3, 5), {}), ("gumbel", (0.0, 1.0, 4), {}),
    ("laplace", (0.0, 1.0, 4), {}), ("logistic", (0.0, 1.0, 4), {}),
    ("logseries", (0.6, 4), {}), ("negative_binomial", (5, 0.5, 4), {}),
    ("noncentral_chisquare", (3.0, 2.0, 4), {}), ("noncentral_f", (3.0, 5.0, 2.0, 4), {}),
    ("pareto", (3.0, 4), {}), ("power", (3.0, 4), {}), ("rayleigh", (1.0, 4), {}),
    ("standard_cauchy", (4,), {}), ("standard_t", (5.0, 4), {}),
    ("triangular", (0.0, 0.5, 1.0, 4), {}), ("vonmises", (0.0, 4.0, 4), {}),
    ("wald", (1.0, 2.0, 4), {}), ("weibull", (2.0, 4), {}), ("zipf", (2.0, 4), {}),
    ("bytes", (7,), {}),
]


def _ids(calls):
    return [f"{n}{a}{k or ''}"[:60] for n, a, k in calls]


@pytest.mark.parametrize("name,args,kwargs", GENERATOR_CALLS, ids=_ids(GENERATOR_CALLS))
def test_generator_method_matches_numpy(name, args, kwargs):
    g, ref = rngs()
    same(getattr(g, name)(*args, **kwargs), getattr(ref, name)(*args, **kwargs))
    same(g.random(2), ref.random(2))     # the stream went on from the same place


def test_every_public_generator_method_is_served():
    public = {n for n in dir(np.random.Generator) if not n.startswith("_")}
    tabled = {n for n, _, _ in GENERATOR_CALLS} | {"shuffle", "spawn", "bit_generator"}
    assert tabled == public
    assert public <= set(dir(lt.random.Generator))
    public = {n for n in dir(np.random.RandomState) if not n.startswith("_")}
    assert public <= set(dir(lt.random.RandomState))


@pytest.mark.parametrize("name", ["normal", "integers", "choice", "random", "permuted"])
def test_signatures_and_docs_are_numpys(name):
    ours, theirs = getattr(lt.random.Generator, name), getattr(np.random.Generator, name)
    assert inspect.signature(ours) == inspect.signature(theirs)
    assert theirs.__doc__ in ours.__doc__


RANDOMSTATE_CALLS = [
    ("rand", (2, 3), {}), ("rand", (), {}), ("randn", (4,), {}),
    ("randint", (0, 10), {"size": 5}), ("randint", (5,), {}),
    ("random_integers", (1, 6, 4), {}), ("random_sample", ((2, 2),), {}), ("random", (3,), {}),
    ("tomaxint", (3,), {}), ("normal", (0, 1), {"size": (2, 3)}), ("uniform", (0, 1, 4), {}),
    ("choice", (5, 3), {}), ("choice", ([1.5, 2.5, 3.5], 4), {"p": [0.2, 0.3, 0.5]}),
    ("permutation", (5,), {}), ("permutation", (np.arange(6.0).reshape(3, 2),), {}),
    ("standard_normal", (3,), {}), ("standard_exponential", (3,), {}),
    ("standard_gamma", (2.0, 3), {}), ("exponential", (1.0, 3), {}), ("poisson", (4.0, 3), {}),
    ("binomial", (5, 0.5, 3), {}), ("beta", (1.0, 2.0, 3), {}), ("gamma", (2.0, 2.0, 3), {}),
    ("lognormal", (0.0, 1.0, 3), {}), ("dirichlet", ([1.0, 1.0], 2), {}),
    ("multinomial", (5, [0.5, 0.5], 2), {}),
    ("multivariate_normal", ([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], 3), {}),
    ("hypergeometric", (5, 5, 3, 3), {}), ("chisquare", (2.0, 3), {}), ("f", (2.0, 3.0, 3), {}),
    ("geometric", (0.5, 3), {}), ("gumbel", (0.0, 1.0, 3), {}), ("laplace", (0.0, 1.0, 3), {}),
    ("logistic", (0.0, 1.0, 3), {}), ("logseries", (0.5, 3), {}),
    ("negative_binomial", (3, 0.5, 3), {}), ("noncentral_chisquare", (2.0, 1.0, 3), {}),
    ("noncentral_f", (2.0, 3.0, 1.0, 3), {}), ("pareto", (2.0, 3), {}), ("power", (2.0, 3), {}),
    ("rayleigh", (1.0, 3), {}), ("standard_cauchy", (3,), {}), ("standard_t", (3.0, 3), {}),
    ("triangular", (0.0, 1.0, 2.0, 3), {}), ("vonmises", (0.0, 1.0, 3), {}),
    ("wald", (1.0, 1.0, 3), {}), ("weibull", (1.5, 3), {}), ("zipf", (3.0, 3), {}),
    ("bytes", (5,), {}),
]


@pytest.mark.parametrize("name,args,kwargs", RANDOMSTATE_CALLS, ids=_ids(RANDOMSTATE_CALLS))
def test_randomstate_method_matches_numpy(name, args, kwargs):
    rs, ref = lt.random.RandomState(SEED), np.random.RandomState(SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # random_integers
        same(getattr(rs, name)(*args, **kwargs), getattr(ref, name)(*args, **kwargs))
    same(rs.rand(2), ref.rand(2))


@pytest.fixture
def global_state():
    """Save and restore both module-level RandomStates (and their bit generators)."""
    ours, theirs = lt.random.get_bit_generator(), np.random.get_bit_generator()
    ours_state, theirs_state = lt.random.get_state(), np.random.get_state()
    yield
    lt.random.set_bit_generator(ours)
    np.random.set_bit_generator(theirs)
    lt.random.set_state(ours_state)      # with the cached Gaussian, as it was
    np.random.set_state(theirs_state)


LEGACY_CALLS = [c for c in RANDOMSTATE_CALLS if c[0] != "tomaxint"] + [
    ("sample", (3,), {}), ("ranf", ((2, 2),), {})]


@pytest.mark.parametrize("name,args,kwargs", LEGACY_CALLS, ids=_ids(LEGACY_CALLS))
def test_legacy_function_after_seed_matches_numpy(global_state, name, args, kwargs):
    lt.random.seed(7)
    np.random.seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        same(getattr(lt.random, name)(*args, **kwargs), getattr(np.random, name)(*args, **kwargs))
    same(lt.random.rand(2), np.random.rand(2))


def test_module_names_are_numpys():
    names = set(np.random.__all__) | {"get_bit_generator", "set_bit_generator"}
    assert names <= set(lt.random.__all__)
    for n in ("Generator", "RandomState", "default_rng"):
        assert getattr(lt.random, n) is not getattr(np.random, n)
    for n in ("BitGenerator", "SeedSequence", "MT19937", "PCG64", "PCG64DXSM", "Philox", "SFC64"):
        assert getattr(lt.random, n) is getattr(np.random, n)   # NumPy's own, re-exported


def test_legacy_state_and_bit_generator(global_state):
    lt.random.seed(3)
    np.random.seed(3)
    state = lt.random.get_state()
    same(lt.random.randn(3), np.random.randn(3))
    lt.random.set_state(state)
    np.random.seed(3)
    same(lt.random.randn(3), np.random.randn(3))
    assert isinstance(lt.random.get_bit_generator(), np.random.MT19937)
    # seed() on another bit generator reseeds it NumPy's way
    lt.random.set_bit_generator(np.random.PCG64())
    np.random.set_bit_generator(np.random.PCG64())
    lt.random.seed(11)
    np.random.seed(11)
    same(lt.random.random(4), np.random.random(4))
    # lt's module-level state is its own: seeding it leaves numpy.random's alone
    before = np.random.get_bit_generator().state
    lt.random.seed(6)
    assert np.random.get_bit_generator().state == before


@pytest.mark.parametrize("make", [
    lambda: (5, 5), lambda: ([1, 2, 3], [1, 2, 3]),
    lambda: (lt.asarray([4, 5]), np.array([4, 5])),
    lambda: (np.random.SeedSequence(9), np.random.SeedSequence(9)),
    *[(lambda bg=bg: (bg(4), bg(4))) for bg in (np.random.PCG64, np.random.PCG64DXSM,
                                                 np.random.Philox, np.random.MT19937,
                                                 np.random.SFC64)],
], ids=["int", "list", "tensor", "SeedSequence", "PCG64", "PCG64DXSM", "Philox", "MT19937",
        "SFC64"])
def test_default_rng_seeds(make):
    ours, theirs = make()
    g, ref = lt.random.default_rng(ours), np.random.default_rng(theirs)
    assert str(g) == str(ref) and repr(g).startswith(str(ref) + " at 0x")
    same(g.standard_normal((3, 2)), ref.standard_normal((3, 2)))
    same(g.integers(0, 100, 4), ref.integers(0, 100, 4))


def test_default_rng_of_generators():
    g = lt.random.default_rng(0)
    assert lt.random.default_rng(g) is g
    shared = np.random.default_rng(8)
    wrapped, ref = lt.random.default_rng(shared), np.random.default_rng(8)
    same(wrapped.random(2), ref.random(2))
    assert np.array_equal(shared.random(2), ref.random(2))   # one state, as NumPy's default_rng
    assert lt.random.default_rng() is not lt.random.default_rng()
    bg = np.random.Philox(2)
    same(lt.random.Generator(bg).random(3), np.random.Generator(np.random.Philox(2)).random(3))


# Tensor arguments are read as their values: (method, args with tensors, the same in NumPy)
T = lt.asarray
TENSOR_CALLS = [
    ("choice", lambda m: (m([1.5, 2.5, 3.5, 4.5]), 3)),
    ("choice", lambda m: (m([1.5, 2.5, 3.5, 4.5]),)),
    ("choice", lambda m: (5, 3, True, m([0.1, 0.2, 0.3, 0.2, 0.2]))),
    ("normal", lambda m: (m([0.0, 5.0, 10.0]), m([1.0, 2.0, 3.0]))),
    ("normal", lambda m: (m(2.0),)),
    ("uniform", lambda m: (m([0.0, 1.0]), [m(1.0), 3.0])),
    ("permutation", lambda m: (m([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),)),
    ("permutation", lambda m: (m([1, 2, 3, 4, 5]),)),
    ("permuted", lambda m: (m([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),)),
    ("integers", lambda m: (m([1, 5, 9]), m([2, 10, 20]))),
    ("integers", lambda m: (m(10),)),
    ("poisson", lambda m: (m([1.0, 20.0]),)),
    ("binomial", lambda m: (m([5, 50]), m([0.5, 0.1]))),
    ("multivariate_normal", lambda m: (m([0.0, 1.0]), m([[1.0, 0.2], [0.2, 1.0]]), 4)),
    ("dirichlet", lambda m: (m([1.0, 2.0]), 3)),
]


@pytest.mark.parametrize("name,make", TENSOR_CALLS, ids=[n for n, _ in TENSOR_CALLS])
def test_tensor_arguments_are_read_as_values(name, make):
    g, ref = rngs()
    args = make(T)
    kwargs = {"axis": 1} if name == "permuted" else {}
    x = args[0]
    before = x.numpy().copy() if isinstance(x, lt.Tensor) else None
    same(getattr(g, name)(*args, **kwargs), getattr(ref, name)(*make(np.asarray), **kwargs))
    if before is not None:
        assert np.array_equal(x.numpy(), before)   # the input tensor is left as it was


def test_lazy_tensor_arguments():
    g, ref = rngs()
    loc = lt.asarray([1.0, 2.0]) * 3.0 + 1.0       # pending: its value is read
    same(g.normal(loc, 0.5), ref.normal(np.array([4.0, 7.0]), 0.5))
    t = g.random(3)
    same(g.permutation(t * 2), ref.permutation(ref.random(3) * 2))


@pytest.mark.parametrize("name,args,dtype", [
    ("random", (3,), lt.float32), ("random", (3,), "float32"), ("random", (3,), np.float32),
    ("random", (3,), lt.float64), ("standard_normal", ((2, 2),), lt.float32),
    ("standard_exponential", (4,), lt.float32), ("standard_gamma", (2.0, 4), lt.float32),
    ("integers", (0, 100, 5), lt.int8), ("integers", (0, 100, 5), lt.uint16),
    ("integers", (0, 2, 5), lt.bool), ("integers", (0, 100, 5), int),
    ("integers", (0, 100, 5), lt.int32),
])
def test_dtype_arguments(name, args, dtype):
    g, ref = rngs()
    np_dtype = np.dtype(dtype)
    same(getattr(g, name)(*args, dtype=dtype), getattr(ref, name)(*args, dtype=np_dtype))


def test_positional_dtype():
    g, ref = rngs()
    same(g.random(3, lt.float32), ref.random(3, np.float32))
    same(g.integers(0, 9, 4, lt.int16), ref.integers(0, 9, 4, np.int16))
    rs, rref = lt.random.RandomState(2), np.random.RandomState(2)
    same(rs.randint(0, 9, 4, lt.uint8), rref.randint(0, 9, 4, np.uint8))


def test_bad_dtype_and_bad_arguments_raise_as_numpy():
    g, ref = rngs()
    with pytest.raises(TypeError, match="int32"):
        g.random(3, dtype=lt.int32)
    for name, args in [("normal", (0.0, -1.0)), ("choice", (3, 5)), ("integers", (5, 1))]:
        with pytest.raises(ValueError) as theirs:
            getattr(ref, name)(*args, replace=False) if name == "choice" else \
                getattr(ref, name)(*args)
        with pytest.raises(ValueError) as ours:
            getattr(g, name)(*args, replace=False) if name == "choice" else \
                getattr(g, name)(*args)
        assert str(ours.value) == str(theirs.value)


def test_result_dtype_lazytensor_does_not_serve():
    g = lt.random.default_rng(0)
    with pytest.raises(lt.Unsupported, match="choice.*<U1"):
        g.choice(["a", "b", "c"], 2)


@pytest.mark.parametrize("shuffle", [
    lambda m: m.random.default_rng(0).shuffle, lambda m: m.random.RandomState(0).shuffle,
    lambda m: m.random.shuffle])
def test_shuffle_of_a_tensor_is_numpys(shuffle, global_state):
    t, a = lt.asarray([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    lt.random.seed(2)
    np.random.seed(2)
    assert shuffle(lt)(t) is None and shuffle(np)(a) is None
    assert t.tolist() == a.tolist()


def test_shuffle_of_arrays_and_lists_is_numpys(global_state):
    g, ref = rngs()
    a, b = np.arange(10), np.arange(10)
    assert g.shuffle(a) is None
    ref.shuffle(b)
    assert np.array_equal(a, b)
    la, lb = list(range(8)), list(range(8))
    g.shuffle(la)
    ref.shuffle(lb)
    assert la == lb
    lt.random.seed(4)
    np.random.seed(4)
    a, b = np.arange(6.0), np.arange(6.0)
    lt.random.shuffle(a)
    np.random.shuffle(b)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("name,args", [("random", ()), ("standard_normal", ()),
                                       ("standard_exponential", ()), ("standard_gamma", (2.0,)),
                                       ("permuted", (np.arange(4.0),))])
def test_out(name, args):
    g, ref = rngs()
    t = lt.zeros(4)                     # drawn into the tensor, which is returned
    assert getattr(g, name)(*args, out=t) is t
    getattr(ref, name)(*args, out=np.zeros(4))
    out, ref_out = np.zeros(4), np.zeros(4)
    r = getattr(g, name)(*args, out=out)
    assert r is out                     # NumPy's array back, as NumPy returns it
    getattr(ref, name)(*args, out=ref_out)
    assert np.array_equal(out, ref_out)
    g, ref = rngs()
    getattr(g, name)(*args, out=t)
    assert np.array_equal(np.asarray(t), getattr(ref, name)(*args, out=np.zeros(4)))


def test_pickle_and_copy_as_numpy():
    g, ref = rngs()
    g.random(3)
    ref.random(3)
    same(pickle.loads(pickle.dumps(g)).random(4), pickle.loads(pickle.dumps(ref)).random(4))
    d, dref = copy.deepcopy(g), copy.deepcopy(ref)
    same(d.random(2), dref.random(2))
    same(g.random(2), ref.random(2))    # deep copies are independent
    c, cref = copy.copy(g), copy.copy(ref)
    same(c.random(2), cref.random(2))
    same(g.random(2), ref.random(2))    # a shallow copy shares NumPy's bit generator
    assert (c.bit_generator is g.bit_generator) == (cref.bit_generator is ref.bit_generator)
    rs, rref = lt.random.RandomState(3), np.random.RandomState(3)
    rs.rand()
    rref.rand()
    back, back_ref = pickle.loads(pickle.dumps(rs)), pickle.loads(pickle.dumps(rref))
    assert isinstance(back, lt.random.RandomState)
    same(back.rand(3), back_ref.rand(3))
    same(rs.rand(3), rref.rand(3))


def test_subclass_pickles_and_spawns_its_own_type():
    class Mine(lt.random.Generator):
        __slots__ = ()

    g = Mine(np.random.PCG64(5))
    kid, ref_kid = g.spawn(1)[0], np.random.Generator(np.random.PCG64(5)).spawn(1)[0]
    assert type(kid) is Mine
    same(kid.random(2), ref_kid.random(2))
    assert type(copy.deepcopy(g)) is Mine


def test_spawn():
    g, ref = rngs()
    kids, refs = g.spawn(3), ref.spawn(3)
    assert all(type(k) is lt.random.Generator for k in kids)
    for k, r in zip(kids, refs):
        same(k.standard_normal(3), r.standard_normal(3))


def _logistic_regression(np):
    # the program, unchanged
    rng = np.random.default_rng(1); X = rng.standard_normal((500, 8)); w_true = rng.standard_normal(8)  # noqa: E501,E702
    y = (X @ w_true + 0.1 * rng.standard_normal(500) > 0).astype(np.float64); w = np.zeros(8)  # noqa: E702
    for _ in range(100):
        p = 1 / (1 + np.exp(-(X @ w))); w -= 0.1 * X.T @ (p - y) / len(y)  # noqa: E702
    loss = -np.mean(y * np.log(np.clip(p, 1e-12, None)) + (1 - y) * np.log(np.clip(1 - p, 1e-12, None)))  # noqa: E501
    return X, w, loss


def test_logistic_regression_program():
    X, w, loss = _logistic_regression(lt)
    rX, rw, rloss = _logistic_regression(np)
    same(X, rX)                       # the data: NumPy's stream exactly
    assert isinstance(w, lt.Tensor) and w.dtype == rw.dtype
    np.testing.assert_allclose(w.numpy(), rw, rtol=1e-10)
    np.testing.assert_allclose(float(loss), rloss, rtol=1e-10)


def test_centroids_program_draws():
    g, ref = lt.random.default_rng(2), np.random.default_rng(2)
    same(g.uniform(size=(300, 3)), ref.uniform(size=(300, 3)))
    same(g.choice(300, 5, replace=False), ref.choice(300, 5, replace=False))


@pytest.mark.parametrize("probe", [
    lambda xp: (xp.random.seed(0), xp.random.rand(2, 3))[1],
    lambda xp: xp.random.randn(2, 3), lambda xp: xp.random.randint(0, 10, size=5),
    lambda xp: xp.random.normal(0, 1, size=(2, 3)), lambda xp: xp.random.uniform(0, 1, 4),
    lambda xp: xp.random.choice(5, 3), lambda xp: xp.random.permutation(5),
    lambda xp: xp.random.default_rng(0).standard_normal(3),
])
def test_namespace_probes(global_state, probe):
    # the 8 random probes of numpy-probes/ns.py, seeded so that values compare too
    lt.random.seed(0)
    np.random.seed(0)
    same(probe(lt), probe(np))
