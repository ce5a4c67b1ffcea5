"""NumPy's random API with tensor results (``lt.random``).

Every draw is made by NumPy: :class:`Generator` wraps a ``numpy.random.Generator`` and
:class:`RandomState` (with the legacy module functions ``seed``, ``rand``, ``randn``,
``randint`` ...) wraps a ``numpy.random.RandomState``, on NumPy's own bit generators
(re-exported here: ``PCG64``, ``PCG64DXSM``, ``Philox``, ``MT19937``, ``SFC64``,
``SeedSequence``, ``BitGenerator``).  So the same seed gives NumPy's streams exactly:

>>> import lazytensor as lt
>>> x = lt.random.default_rng(1).standard_normal((500, 8))   # numpy's values, a Tensor

How a call is adapted (the same for every method; the methods are generated from NumPy's
classes, not written one by one):

- Tensor arguments (``choice(t)``, ``normal(loc=t)``, ``permutation(t)``, tensors inside a
  list) are read as their values.
- ``dtype=`` takes lazytensor's dtypes (``rng.random(3, dtype=lt.float32)``).
- Results that NumPy gives as arrays become Tensors (without a copy); scalars stay the
  Python or NumPy scalars NumPy gives (``rng.random()`` is a ``float``).
- Writes into a tensor (``shuffle(t)``, ``out=`` given a tensor) are NumPy's, made into the
  tensor's memory (every view of it sees them; results computed from it before keep their
  values) and return what NumPy returns (``out=``: the out tensor).  ``shuffle`` of a NumPy
  array or a list, and ``out=`` given a NumPy array, work as in NumPy.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
from numpy.random import (MT19937, PCG64, PCG64DXSM, SFC64, BitGenerator, Philox,
                          SeedSequence)

from ._api.creation import asarray
from ._api.writes import values_of as _plain
from ._engine.foreign import refuse_dask, refuse_dask_in
from ._engine.dtypes import canonical_dtype
from ._engine import views as _views
from ._engine.errors import Unsupported
from ._engine.tensor import Tensor

__all__ = ['Generator', 'RandomState', 'default_rng', 'BitGenerator', 'SeedSequence', 'MT19937',
           'PCG64', 'PCG64DXSM', 'Philox', 'SFC64', 'get_bit_generator', 'set_bit_generator',
           'seed', 'ranf', 'sample']   # + the legacy functions, added below from _LEGACY

# The public methods of NumPy's classes that lt serves (tests check these are all of them).
_GENERATOR_METHODS = (
    'beta', 'binomial', 'bytes', 'chisquare', 'choice', 'dirichlet', 'exponential', 'f',
    'gamma', 'geometric', 'gumbel', 'hypergeometric', 'integers', 'laplace', 'logistic',
    'lognormal', 'logseries', 'multinomial', 'multivariate_hypergeometric',
    'multivariate_normal', 'negative_binomial', 'noncentral_chisquare', 'noncentral_f',
    'normal', 'pareto', 'permutation', 'permuted', 'poisson', 'power', 'random', 'rayleigh',
    'shuffle', 'spawn', 'standard_cauchy', 'standard_exponential', 'standard_gamma',
    'standard_normal', 'standard_t', 'triangular', 'uniform', 'vonmises', 'wald', 'weibull',
    'zipf')
_RANDOMSTATE_METHODS = (
    'beta', 'binomial', 'bytes', 'chisquare', 'choice', 'dirichlet', 'exponential', 'f',
    'gamma', 'geometric', 'get_state', 'gumbel', 'hypergeometric', 'laplace', 'logistic',
    'lognormal', 'logseries', 'multinomial', 'multivariate_normal', 'negative_binomial',
    'noncentral_chisquare', 'noncentral_f', 'normal', 'pareto', 'permutation', 'poisson',
    'power', 'rand', 'randint', 'randn', 'random', 'random_integers', 'random_sample',
    'rayleigh', 'seed', 'set_state', 'shuffle', 'standard_cauchy', 'standard_exponential',
    'standard_gamma', 'standard_normal', 'standard_t', 'tomaxint', 'triangular', 'uniform',
    'vonmises', 'wald', 'weibull', 'zipf')
# numpy.random's module functions that are methods of its singleton RandomState as they are
# ('seed', 'ranf', 'sample' are functions of their own, defined below)
_LEGACY = tuple(n for n in _RANDOMSTATE_METHODS if n not in ('seed', 'tomaxint'))



# ---- adapting one call ---------------------------------------------------------------------


def _result(r, where: str):
    """A NumPy result as NumPy gives it, arrays made Tensors (no copy)."""
    if type(r) is not np.ndarray:
        return r
    try:
        canonical_dtype(r.dtype)
    except Unsupported:
        raise Unsupported(f"{where}: NumPy's result has dtype {r.dtype}, which lazytensor does "
                          f"not serve; draw indices instead (e.g. choice(len(a))) and index "
                          f"your sequence with them") from None
    return asarray(r)


def _dtype(d, where: str):
    return d if d is None else canonical_dtype(d, where=where)


def _params(np_method) -> list:
    """The parameter names of a NumPy method after ``self`` ([] if NumPy does not say)."""
    try:
        return list(inspect.signature(np_method).parameters)[1:]
    except (TypeError, ValueError):
        return []


def _delegate(np_cls, name: str, owner: str):
    """The lt method ``owner.name`` calling NumPy's ``np_cls.name`` on ``self._np``."""
    np_method = getattr(np_cls, name)
    where = f"random.{owner}.{name}"
    params = _params(np_method)
    dtype_at = params.index("dtype") if "dtype" in params else None
    out_at = params.index("out") if "out" in params else None

    if name == "shuffle":
        def method(self, x, *args, **kwargs):
            refuse_dask(x, where)             # (a dask array has no memory to shuffle in)
            if isinstance(x, Tensor):         # shuffled in its memory, as NumPy's array
                x = _views.writable(x, where)
            return getattr(self._np, name)(x, *args, **kwargs)
    elif name == "spawn":
        def method(self, *args, **kwargs):
            return [type(self)._wrap(g) for g in self._np.spawn(*args, **kwargs)]
    else:
        def method(self, *args, **kwargs):
            out = None
            if out_at is not None:     # before tensors become (read-only) values
                out = args[out_at] if out_at < len(args) else kwargs.get("out")
            refuse_dask_in((args, tuple(kwargs.values())), where)   # NumPy would compute it
            args = [_plain(a) for a in args]
            kwargs = {k: _plain(v) for k, v in kwargs.items()}
            if isinstance(out, Tensor):   # NumPy draws into the tensor's memory
                mem = _views.writable(out, where)
                if out_at < len(args):
                    args[out_at] = mem
                else:
                    kwargs["out"] = mem
            if dtype_at is not None:
                if dtype_at < len(args):
                    args[dtype_at] = _dtype(args[dtype_at], where)
                elif "dtype" in kwargs:
                    kwargs["dtype"] = _dtype(kwargs["dtype"], where)
            r = getattr(self._np, name)(*args, **kwargs)
            if isinstance(out, Tensor):
                return out
            return r if out is not None else _result(r, where)   # out=: NumPy's array back

    functools.update_wrapper(method, np_method)
    method.__module__ = __name__
    method.__qualname__ = f"{owner}.{name}"
    method.__doc__ = (f"NumPy's ``{np_cls.__name__}.{name}``; array results are Tensors.\n"
                      f"{np_method.__doc__ or ''}")
    return method


# ---- the classes --------------------------------------------------------------------------

class _Wrapper:
    """Shared by Generator and RandomState: ``self._np`` is the NumPy object drawn from."""
    __slots__ = ("_np",)

    @classmethod
    def _wrap(cls, np_obj):
        self = cls.__new__(cls)
        self._np = np_obj
        return self

    def __str__(self):
        return f"{type(self).__name__}({type(self._np._bit_generator).__name__})"

    def __repr__(self):
        return f"{self} at 0x{id(self):X}"

    def __reduce__(self):   # pickle / copy as NumPy's object (copy shares its bit generator)
        return (type(self)._wrap, (self._np,))


class Generator(_Wrapper):
    """NumPy's ``Generator`` with tensor results.

    Parameters
    ----------
    bit_generator : BitGenerator
        ``PCG64``, ``Philox``, ``MT19937``, ``SFC64`` ... (NumPy's own).

    Notes
    -----
    Every method calls ``numpy.random.Generator``'s, so streams are NumPy's.  Use
    :func:`default_rng` to make one from a seed.  To hand the same stream to code that wants
    a NumPy Generator, use ``numpy.random.default_rng(g.bit_generator)``.
    """
    __slots__ = ()

    def __init__(self, bit_generator):
        self._np = np.random.Generator(bit_generator)

    @property
    def bit_generator(self):
        """The bit generator (NumPy's) the draws come from."""
        return self._np.bit_generator


class RandomState(_Wrapper):
    """NumPy's legacy ``RandomState`` with tensor results.

    Parameters
    ----------
    seed : None, int, array_like or BitGenerator, optional
        As ``numpy.random.RandomState``: ``MT19937`` seeded NumPy's legacy way, or the given
        bit generator.
    """
    __slots__ = ()

    def __init__(self, seed=None):
        self._np = np.random.RandomState(_plain(seed))


for _name in _GENERATOR_METHODS:
    setattr(Generator, _name, _delegate(np.random.Generator, _name, "Generator"))
for _name in _RANDOMSTATE_METHODS:
    setattr(RandomState, _name, _delegate(np.random.RandomState, _name, "RandomState"))


def default_rng(seed=None):
    """A :class:`Generator` on NumPy's default bit generator (``PCG64``).

    Parameters
    ----------
    seed : None, int, array_like[ints], SeedSequence, BitGenerator or Generator, optional
        As ``numpy.random.default_rng``.  A lazytensor ``Generator`` is returned unaltered; a
        ``numpy.random.Generator`` is wrapped (the two share its state).

    Returns
    -------
    Generator
        Drawing NumPy's stream for ``seed``: ``default_rng(s).random(3)`` has the values
        of ``numpy.random.default_rng(s).random(3)``.
    """
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, np.random.Generator):
        return Generator._wrap(seed)
    return Generator._wrap(np.random.default_rng(_plain(seed)))


# ---- the legacy module functions, on one module-level RandomState as in NumPy --------------

_rand = RandomState()     # lt's own singleton: seeding it leaves numpy.random's untouched

for _name in _LEGACY:
    globals()[_name] = getattr(_rand, _name)
    __all__.append(_name)
del _name


def seed(seed=None):
    """Reseed the module-level RandomState (as ``numpy.random.seed``).

    With ``MT19937`` (the default) this is ``RandomState.seed``; with another bit generator
    set by :func:`set_bit_generator`, that generator's state becomes a fresh one's seeded
    with ``seed``, as NumPy does.
    """
    bitgen = _rand._np._bit_generator
    if isinstance(bitgen, MT19937):
        _rand._np.seed(_plain(seed))
    else:
        bitgen.state = type(bitgen)(_plain(seed)).state


def ranf(*args, **kwargs):
    """An alias of :func:`random_sample` (as ``numpy.random.ranf``)."""
    return _rand.random_sample(*args, **kwargs)


def sample(*args, **kwargs):
    """An alias of :func:`random_sample` (as ``numpy.random.sample``)."""
    return _rand.random_sample(*args, **kwargs)


def get_bit_generator():
    """The bit generator of the module-level RandomState (NumPy's ``MT19937`` by default)."""
    return _rand._np._bit_generator


def set_bit_generator(bitgen):
    """Make the module-level RandomState draw from ``bitgen`` (a NumPy BitGenerator)."""
    _rand._np = np.random.RandomState(bitgen)
