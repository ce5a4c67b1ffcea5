"""The Array API ``fft`` extension (``lt.fft``).

The transforms are not elementwise: each evaluates its input and runs NumPy's pocketfft
on the value.  Results keep the input's precision (complex64 in, complex64 out; float32
into ``rfft`` gives complex64; complex64 into ``irfft`` gives float32).

Arguments shared by the transforms:

n : int, optional
    Transform length along ``axis``; the input is trimmed or zero-padded to it.  For
    ``irfft`` and ``hfft`` it is the output length (``n//2 + 1`` input points are used).
axis : int
    The axis to transform (default the last).
s : sequence of ints, optional
    ``n`` for each of ``axes`` (-1 keeps the input's length); needs ``axes``.
axes : sequence of ints, optional
    The axes to transform (default all).
norm : {"backward", "ortho", "forward"}
    Where the ``1/n`` factor goes (``n = prod(s)`` for the n-d transforms):
    ``"backward"`` (default) puts it on the inverse transforms, ``"forward"`` on the
    forward ones, ``"ortho"`` puts ``1/sqrt(n)`` on both.

NumPy's ``numpy.fft`` is served with the same functions: ``n``/``axis``/``s``/``axes``/
``norm`` may be given by position, ``norm=None`` is ``"backward"``, array_likes are
taken, integer and bool input is transformed as float64 (complex128 results, as in
NumPy), and ``fft2``, ``ifft2``, ``rfft2``, ``irfft2`` complete NumPy's list.  ``out=``
(a Tensor or a NumPy array of the result's shape) is written and returned, as in NumPy.
"""

from __future__ import annotations

import operator

import numpy as np

from ._api.args import normalize_axis
from ._api.elementwise import cast
from ._api.ndarray_args import to_out
from ._api.numpy_values import as_tensor
from ._engine.dtypes import canonical_dtype
from ._engine.tensor import Tensor, _check_device
from .linalg import _complex, _real   # the result dtypes: same precision, other kind

__all__ = ['fft', 'ifft', 'fftn', 'ifftn', 'rfft', 'irfft', 'rfftn', 'irfftn', 'hfft', 'ihfft',
           'fftfreq', 'rfftfreq', 'fftshift', 'ifftshift', 'fft2', 'ifft2', 'rfft2', 'irfft2']

_NORMS = ("backward", "ortho", "forward")


# ---- helpers ---------------------------------------------------------------------------

def _input(x, name: str) -> Tensor:
    """``x`` as a Tensor; integers and bools as float64, as NumPy transforms them."""
    x = as_tensor(x, f"fft.{name}")
    return cast(x, np.float64) if x.dtype.kind in "biu" else x


def _value(x, name: str, kinds: str) -> np.ndarray:
    """The value of ``x``, whose dtype kind must be in ``kinds`` ("f" real, "c" complex)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"fft.{name}: expected a Tensor, got {type(x).__name__}")
    if x.dtype.kind not in kinds:
        what = "a real floating-point" if kinds == "f" else "a floating-point"
        raise TypeError(f"fft.{name} needs {what} tensor, got {x.dtype.name}")
    return x._value()


def _size(n, name: str, what: str = "n"):
    """A transform length: None, or a positive integer."""
    if n is None:
        return None
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"fft.{name}: {what} must be an integer, got {n!r}") from None
    if n < 1:
        raise ValueError(f"fft.{name}: {what} must be at least 1, got {n}")
    return n


def _norm(norm, name: str) -> str:
    if norm is None:       # NumPy's spelling of the default
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"fft.{name}: norm must be 'backward', 'ortho' or 'forward', "
                         f"got {norm!r}")
    return norm


def _run(name: str, np_fn, v, dtype, **kwargs) -> Tensor:
    """``np_fn(v, **kwargs)`` as a Tensor of ``dtype``, NumPy's errors naming ``name``."""
    try:
        out = np_fn(v, **kwargs)
    except ValueError as exc:   # e.g. a transform length that leaves no input points
        raise ValueError(f"fft.{name}: {exc}") from None
    return Tensor._from_array(np.asarray(out).astype(dtype, copy=False))


def _transform(name, np_fn, kinds, out_dtype, x, n, axis, norm, out=None) -> Tensor:
    """A one-dimensional transform: ``x`` checked, then ``np_fn`` along ``axis``."""
    x = _input(x, name)
    v = _value(x, name, kinds)
    axis, n = normalize_axis(axis, v.ndim, f"fft.{name}"), _size(n, name)
    if n is None and name in ("irfft", "hfft") and v.shape[axis] == 1:
        raise ValueError(f"fft.{name}: the default output length 2*(m - 1) is 0 for an input "
                         f"of length m = 1 along axis {axis}; give n")
    return to_out(_run(name, np_fn, v, out_dtype(x.dtype), n=n, axis=axis,
                       norm=_norm(norm, name)), out, f"fft.{name}")


def _transform_nd(name, np_fn, kinds, out_dtype, x, s, axes, norm, out=None) -> Tensor:
    """An n-dimensional transform: ``s`` and ``axes`` checked, then ``np_fn``."""
    x = _input(x, name)
    v = _value(x, name, kinds)
    if axes is None:
        if s is not None:
            raise ValueError(f"fft.{name}: s was given without axes; give the axes that s "
                             f"applies to")
        axes = range(v.ndim)
    if isinstance(axes, int):
        raise TypeError(f"fft.{name}: axes must be a sequence of integers, got {axes!r}")
    axes = [normalize_axis(a, v.ndim, f"fft.{name}") for a in axes]
    if s is not None:
        s = [-1 if d == -1 else _size(d, name, "each entry of s") for d in s]
        if len(s) != len(axes):
            raise ValueError(f"fft.{name}: s {tuple(s)} and axes {tuple(axes)} have different "
                             f"lengths")
    if not axes and name in ("rfftn", "irfftn"):
        raise ValueError(f"fft.{name} needs at least one axis to transform")
    return to_out(_run(name, np_fn, v, out_dtype(x.dtype), s=s, axes=axes,
                       norm=_norm(norm, name)), out, f"fft.{name}")


# ---- transforms ------------------------------------------------------------------------

def fft(x, /, n=None, axis=-1, norm="backward", out=None):
    """One-dimensional discrete Fourier transform along ``axis``.

    Real input is transformed as complex.

    Returns
    -------
    Tensor
        Complex of ``x``'s precision; ``axis`` has length ``n`` (default: unchanged).
    """
    return _transform("fft", np.fft.fft, "fc", _complex, x, n, axis, norm, out)


def ifft(x, /, n=None, axis=-1, norm="backward", out=None):
    """One-dimensional inverse discrete Fourier transform along ``axis``.

    Returns
    -------
    Tensor
        Complex of ``x``'s precision; ``axis`` has length ``n`` (default: unchanged).
    """
    return _transform("ifft", np.fft.ifft, "fc", _complex, x, n, axis, norm, out)


def fftn(x, /, s=None, axes=None, norm="backward", out=None):
    """N-dimensional discrete Fourier transform over ``axes`` (default all).

    Returns
    -------
    Tensor
        Complex of ``x``'s precision; axis ``axes[i]`` has length ``s[i]``.
    """
    return _transform_nd("fftn", np.fft.fftn, "fc", _complex, x, s, axes, norm, out)


def ifftn(x, /, s=None, axes=None, norm="backward", out=None):
    """N-dimensional inverse discrete Fourier transform over ``axes`` (default all).

    Returns
    -------
    Tensor
        Complex of ``x``'s precision; axis ``axes[i]`` has length ``s[i]``.
    """
    return _transform_nd("ifftn", np.fft.ifftn, "fc", _complex, x, s, axes, norm, out)


def rfft(x, /, n=None, axis=-1, norm="backward", out=None):
    """Discrete Fourier transform of real ``x`` along ``axis``: the non-negative frequencies.

    Returns
    -------
    Tensor
        Complex of ``x``'s precision; ``axis`` has length ``n//2 + 1``.
    """
    return _transform("rfft", np.fft.rfft, "f", _complex, x, n, axis, norm, out)


def irfft(x, /, n=None, axis=-1, norm="backward", out=None):
    """Inverse of :func:`rfft`: ``n`` real outputs from ``n//2 + 1`` input points.

    Returns
    -------
    Tensor
        Real of ``x``'s precision; ``axis`` has length ``n`` (default ``2*(m - 1)`` for an
        input of length ``m``).
    """
    return _transform("irfft", np.fft.irfft, "fc", _real, x, n, axis, norm, out)


def rfftn(x, /, s=None, axes=None, norm="backward", out=None):
    """N-dimensional discrete Fourier transform of real ``x`` over ``axes`` (default all).

    Returns
    -------
    Tensor
        Complex of ``x``'s precision; the last transformed axis has length
        ``s[-1]//2 + 1``, the others ``s[i]``.
    """
    return _transform_nd("rfftn", np.fft.rfftn, "f", _complex, x, s, axes, norm, out)


def irfftn(x, /, s=None, axes=None, norm="backward", out=None):
    """Inverse of :func:`rfftn`; ``s`` gives the output lengths.

    Returns
    -------
    Tensor
        Real of ``x``'s precision; axis ``axes[i]`` has length ``s[i]`` (default: the
        input's, ``2*(m - 1)`` for the last axis).
    """
    return _transform_nd("irfftn", np.fft.irfftn, "fc", _real, x, s, axes, norm, out)


def hfft(x, /, n=None, axis=-1, norm="backward", out=None):
    """Discrete Fourier transform of a Hermitian-symmetric signal given by its first half.

    Returns
    -------
    Tensor
        Real of ``x``'s precision; ``axis`` has length ``n`` (default ``2*(m - 1)``).
    """
    return _transform("hfft", np.fft.hfft, "fc", _real, x, n, axis, norm, out)


def ihfft(x, /, n=None, axis=-1, norm="backward", out=None):
    """Inverse of :func:`hfft`, for real ``x``.

    Returns
    -------
    Tensor
        Complex of ``x``'s precision; ``axis`` has length ``n//2 + 1``.
    """
    return _transform("ihfft", np.fft.ihfft, "f", _complex, x, n, axis, norm, out)


# ---- sample frequencies and shifts ---------------------------------------------------

def _frequencies(name, np_fn, n, d, dtype, device) -> Tensor:
    _check_device(device, f"fft.{name}")
    n = _size(n, name)
    if n is None:
        raise TypeError(f"fft.{name}: n must be an integer, got None")
    dtype = np.dtype(np.float64) if dtype is None else canonical_dtype(dtype, where=f"fft.{name}")
    if dtype.kind != "f":
        raise TypeError(f"fft.{name}: dtype must be a real floating-point dtype, "
                        f"got {dtype.name}")
    if d == 0:
        raise ValueError(f"fft.{name}: the sample spacing d must not be zero")
    # computed in float64 and rounded once to the requested dtype
    return Tensor._from_array(np_fn(n, d).astype(dtype))


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of a length-``n`` transform with sample spacing ``d``.

    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d*n)``, of shape ``(n,)`` and
    dtype ``dtype`` (a real floating dtype, float64 by default).
    """
    return _frequencies("fftfreq", np.fft.fftfreq, n, d, dtype, device)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of :func:`rfft`: ``[0, 1, ..., n//2] / (d*n)``, shape ``(n//2 + 1,)``.

    ``dtype`` is a real floating dtype, float64 by default.
    """
    return _frequencies("rfftfreq", np.fft.rfftfreq, n, d, dtype, device)


def _shift(name, np_fn, x, axes) -> Tensor:
    x = as_tensor(x, f"fft.{name}")
    v = x._value()
    if axes is None:
        axes = range(v.ndim)
    axes = ([normalize_axis(axes, v.ndim, f"fft.{name}")] if isinstance(axes, int)
            else [normalize_axis(a, v.ndim, f"fft.{name}") for a in axes])
    if not axes:   # nothing to shift (NumPy's roll fails on a 0-d array)
        return Tensor._from_array(v)
    return Tensor._from_array(np_fn(v, axes=axes))


def fftshift(x, /, axes=None):
    """Move the zero-frequency term to the centre of ``axes`` (all axes by default)."""
    return _shift("fftshift", np.fft.fftshift, x, axes)


def ifftshift(x, /, axes=None):
    """Inverse of :func:`fftshift` (they differ by one sample on odd-length axes)."""
    return _shift("ifftshift", np.fft.ifftshift, x, axes)


# ---- NumPy's two-dimensional forms -----------------------------------------------------

def _two_d(name, nd):
    def fn(x, /, s=None, axes=(-2, -1), norm="backward", out=None):
        return nd(x, s, axes, norm, out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""NumPy's ``numpy.fft.{name}``: :func:`{nd.__name__}` over ``axes``
    (default the last two).

    Returns
    -------
    Tensor
        As :func:`{nd.__name__}`.
    """
    return fn


fft2 = _two_d("fft2", fftn)
ifft2 = _two_d("ifft2", ifftn)
rfft2 = _two_d("rfft2", rfftn)
irfft2 = _two_d("irfft2", irfftn)
