"""Data type functions and the inspection API, against NumPy and the Array API tables."""

import inspect
import itertools

import numpy as np
import pytest

import lazytensor as lt

STANDARD = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64", "complex64", "complex128"]
ALL = STANDARD + ["float16"]
KINDS = {
    "bool": {"bool"},
    "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "integral": {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float16", "float32", "float64"},
    "complex floating": {"complex64", "complex128"},
}
KINDS["numeric"] = KINDS["integral"] | KINDS["real floating"] | KINDS["complex floating"]


def dt(name):
    return getattr(lt, name)


@pytest.mark.parametrize("name, params", [
    ("can_cast", "from_, to, /"), ("finfo", "type, /"), ("iinfo", "type, /"),
    ("isdtype", "dtype, kind"), ("result_type", "*arrays_and_dtypes"),
])
def test_signature(name, params):
    fn = getattr(lt, name)
    assert str(inspect.signature(fn)).split(" ->")[0] == f"({params})"
    assert fn.__doc__


# ---- isdtype -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_isdtype_kinds(name):
    for kind, members in KINDS.items():
        out = lt.isdtype(dt(name), kind)
        assert out is (name in members), (name, kind)
    assert lt.isdtype(dt(name), dt(name)) is True
    assert lt.isdtype(dt(name), lt.int8) is (name == "int8")
    assert lt.isdtype(dt(name), ("bool", lt.float32)) is (name in ("bool", "float32"))
    assert lt.isdtype(dt(name), ("signed integer", "complex floating")) is \
        (name in KINDS["signed integer"] | KINDS["complex floating"])
    assert lt.isdtype(dt(name), ()) is False


def test_isdtype_agrees_with_numpy():
    for name, kind in itertools.product(STANDARD, KINDS):
        assert lt.isdtype(dt(name), kind) == np.isdtype(np.dtype(name), kind)


def test_isdtype_errors():
    with pytest.raises(ValueError, match="unknown dtype kind 'float'"):
        lt.isdtype(lt.float32, "float")
    with pytest.raises(ValueError, match="unknown dtype kind"):
        lt.isdtype(lt.float32, ("integral", "float32"))
    with pytest.raises(TypeError, match="isdtype: expected a dtype, got Tensor"):
        lt.isdtype(lt.ones(2), "numeric")
    with pytest.raises(TypeError, match="expected a dtype"):
        lt.isdtype("float32", "numeric")
    with pytest.raises(TypeError, match="kind must be"):
        lt.isdtype(lt.float32, 3)


# ---- result_type and can_cast --------------------------------------------------------------
@pytest.mark.parametrize("a, b", list(itertools.product(ALL, repeat=2)))
def test_result_type_and_can_cast_pairs(a, b):
    expected = np.result_type(a, b)
    assert lt.result_type(dt(a), dt(b)) == expected
    assert lt.result_type(lt.ones(1, dtype=a), dt(b)) == expected
    assert lt.result_type(lt.ones(1, dtype=a), lt.zeros((), dtype=b)) == expected
    assert lt.can_cast(dt(a), dt(b)) is bool(np.can_cast(a, b, casting="safe"))
    assert lt.can_cast(lt.ones(2, dtype=a), dt(b)) is bool(np.can_cast(a, b, casting="safe"))


def test_result_type_standard_table():
    assert lt.result_type(lt.int8, lt.uint8) == lt.int16
    assert lt.result_type(lt.uint32, lt.int64) == lt.int64
    assert lt.result_type(lt.float32, lt.complex64) == lt.complex64
    assert lt.result_type(lt.float64, lt.complex64) == lt.complex128
    assert lt.result_type(lt.int8, lt.int16, lt.int32, lt.uint8) == lt.int32
    assert lt.result_type(lt.bool) == lt.bool
    assert lt.result_type(lt.zeros((2, 2), dtype=lt.uint16)) == lt.uint16


@pytest.mark.parametrize("name", STANDARD)
def test_result_type_with_python_scalars(name):
    d = dt(name)
    kind = d.kind
    if kind == "b":
        assert lt.result_type(d, True) == d
    if kind in "iu":
        assert lt.result_type(d, 1) == d and lt.result_type(1, lt.ones(1, dtype=d), 2) == d
    if kind in "f":
        assert lt.result_type(d, 1) == d and lt.result_type(2.5, d) == d
    if kind == "c":
        assert lt.result_type(d, 1, 1.0, 1j) == d
    assert lt.result_type(lt.float32, 1j) == lt.complex64
    assert lt.result_type(lt.int8, 1.0) == np.result_type(np.int8, 1.0)   # NumPy: float64


@pytest.mark.parametrize("scalars", [(1,), (True,), (1.0,), (1j,), (1, 1.0), (True, 1),
                                     (True, 1j), (2.5, 1j, 3)])
def test_result_type_of_scalars_alone_is_numpys(scalars):
    # the standard leaves it unspecified; NumPy gives its default dtypes
    assert lt.result_type(*scalars) == np.result_type(*scalars)


def test_result_type_errors():
    with pytest.raises(ValueError, match="at least one tensor, dtype or scalar"):
        lt.result_type()
    with pytest.raises(TypeError, match="result_type"):
        lt.result_type(lt.int8, "a string")


def test_can_cast_examples():
    assert lt.can_cast(lt.int8, lt.int16) and not lt.can_cast(lt.int16, lt.int8)
    assert not lt.can_cast(lt.int8, lt.uint8) and lt.can_cast(lt.uint8, lt.int16)
    assert lt.can_cast(lt.float32, lt.complex64) and not lt.can_cast(lt.complex64, lt.float64)
    assert lt.can_cast(lt.bool, lt.int8) and not lt.can_cast(lt.int8, lt.bool)
    with pytest.raises(TypeError, match="can_cast"):
        lt.can_cast(lt.int8, "no such dtype")


# ---- finfo and iinfo ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo(name):
    ref = np.finfo(name)
    for arg in (dt(name), lt.ones(2, dtype=name), name):
        info = lt.finfo(arg)
        for attr in ("eps", "max", "min", "smallest_normal"):
            value = getattr(info, attr)
            assert type(value) is float and value == float(getattr(ref, attr)), attr
        assert type(info.bits) is int and info.bits == ref.bits
        assert info.dtype == ref.dtype and isinstance(info.dtype, np.dtype)
    assert lt.finfo(lt.complex64).dtype == lt.float32


@pytest.mark.parametrize("name", sorted(KINDS["integral"]))
def test_iinfo(name):
    ref = np.iinfo(name)
    for arg in (dt(name), lt.zeros((), dtype=name)):
        info = lt.iinfo(arg)
        assert (info.bits, info.min, info.max) == (ref.bits, ref.min, ref.max)
        assert all(type(v) is int for v in (info.bits, info.min, info.max))
        assert info.dtype == dt(name) and isinstance(info.dtype, np.dtype)


def test_info_errors():
    with pytest.raises(TypeError, match="finfo: int32 is not a floating-point dtype; use iinfo"):
        lt.finfo(lt.int32)
    with pytest.raises(TypeError, match="iinfo: float32 is not an integer dtype; use finfo"):
        lt.iinfo(lt.ones(2, dtype=lt.float32))
    with pytest.raises(TypeError, match="iinfo: bool is not an integer dtype"):
        lt.iinfo(lt.bool)


# ---- the inspection API --------------------------------------------------------------------
def test_namespace_info():
    info = lt.__array_namespace_info__()
    assert lt.__array_api_version__ == "2025.12"
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True,
                                   "max dimensions": 64}
    cpu = lt.ones(1).device
    # the 2025.12 standard: devices() returns a tuple (a list before 2025.12)
    assert info.default_device() == cpu and isinstance(info.devices(), tuple)
    assert info.devices() + [None] == [cpu, None]     # SciPy's fixtures (a list before)
    assert info.devices() == (cpu,) and info.default_device() in info.devices()
    for device in (None, cpu):
        assert info.default_dtypes(device=device) == {
            "real floating": lt.float64, "complex floating": lt.complex128,
            "integral": lt.int64, "indexing": lt.int64}
    assert lt.asarray(1.0).dtype == info.default_dtypes()["real floating"]
    assert lt.asarray(1).dtype == info.default_dtypes()["integral"]
    with pytest.raises(ValueError, match="CPU only"):
        info.dtypes(device="gpu")
    with pytest.raises(ValueError, match="CPU only"):
        info.default_dtypes(device="gpu")
    with pytest.raises(TypeError):
        info.dtypes("bool")                       # keyword-only


@pytest.mark.parametrize("kind", [None, *KINDS, ("bool", "complex floating"),
                                  ("signed integer", "unsigned integer")])
def test_namespace_info_dtypes(kind):
    out = lt.__array_namespace_info__().dtypes(kind=kind, device=None)
    if kind is None:
        expected = set(STANDARD)
    else:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        expected = set().union(*(KINDS[k] for k in kinds)) - {"float16"}   # not standard
    assert set(out) == expected
    for name, d in out.items():
        assert d == dt(name) and lt.empty(1, dtype=d).dtype == d


def test_namespace_info_dtypes_errors():
    with pytest.raises(ValueError, match="unknown dtype kind 'floating'"):
        lt.__array_namespace_info__().dtypes(kind="floating")
