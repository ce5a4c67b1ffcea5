"""The Array API ``fft`` extension (``lt.fft``).

The transforms are not elementwise: each evaluates its input and runs NumPy's pocketfft
on the value.  Results keep the input's precision (complex64 in, complex64 out; float32
into ``rfft`` gives complex64; complex64 into ``irfft`` gives float32).

``norm`` selects where the ``1/n`` factor goes: ``"backward"`` (default) puts it on the
inverse transforms, ``"forward"`` on the forward ones, ``"ortho"`` puts ``1/sqrt(n)`` on
both.
"""

from __future__ import annotations

import operator

import numpy as np

from ._dtypes import canonical_dtype
from ._tensor import Tensor, _check_device

__all__ = ['fft', 'ifft', 'fftn', 'ifftn', 'rfft', 'irfft', 'rfftn', 'irfftn', 'hfft', 'ihfft',
           'fftfreq', 'rfftfreq', 'fftshift', 'ifftshift']

_NORMS = ("backward", "ortho", "forward")


# ---- helpers ---------------------------------------------------------------------------

def _value(x, name: str, kinds: str) -> np.ndarray:
    """The value of ``x``, whose dtype kind must be in ``kinds`` ("f" real, "c" complex)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"fft.{name}: expected a Tensor, got {type(x).__name__}")
    if x.dtype.kind not in kinds:
        what = "a real floating-point" if kinds == "f" else "a floating-point"
        raise TypeError(f"fft.{name} needs {what} tensor, got {x.dtype.name}")
    return x._value()


def _complex(dtype) -> np.dtype:
    """The complex dtype of ``dtype``'s precision (float32 -> complex64)."""
    return np.result_type(dtype, np.complex64)


def _real(dtype) -> np.dtype:
    """The real dtype of ``dtype``'s precision (complex64 -> float32)."""
    return np.dtype(dtype).type(0).real.dtype


def _axis(axis, ndim: int, name: str) -> int:
    """``axis`` checked against ``ndim`` and made non-negative."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"fft.{name}: an axis must be an integer, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(f"fft.{name}: axis {axis} is out of range for a tensor "
                                      f"with {ndim} dimensions")
    return axis % ndim


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


def _one_d(name, np_fn, kinds, out_dtype, doc):
    def transform(x, /, *, n=None, axis=-1, norm="backward"):
        v = _value(x, name, kinds)
        return _run(name, np_fn, v, out_dtype(x.dtype), n=_size(n, name),
                    axis=_axis(axis, v.ndim, name), norm=_norm(norm, name))
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = doc
    return transform


def _n_d(name, np_fn, kinds, out_dtype, doc):
    def transform(x, /, *, s=None, axes=None, norm="backward"):
        v = _value(x, name, kinds)
        if axes is None:
            if s is not None:
                raise ValueError(f"fft.{name}: s was given without axes; give the axes "
                                 f"that s applies to")
            axes = range(v.ndim)
        if isinstance(axes, int):
            raise TypeError(f"fft.{name}: axes must be a sequence of integers, got {axes!r}")
        axes = [_axis(a, v.ndim, name) for a in axes]
        if s is not None:
            s = [-1 if d == -1 else _size(d, name, "each entry of s") for d in s]
            if len(s) != len(axes):
                raise ValueError(f"fft.{name}: s {tuple(s)} and axes {tuple(axes)} have "
                                 f"different lengths")
        if name.startswith(("rfft", "irfft")) and not axes:
            raise ValueError(f"fft.{name} needs at least one axis to transform")
        return _run(name, np_fn, v, out_dtype(x.dtype), s=s, axes=axes,
                    norm=_norm(norm, name))
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = doc
    return transform


_ONE_D_ARGS = """
    Parameters
    ----------
    x : Tensor
        {input}
    n : int, optional
        Length of the transform along ``axis``{n_note}; the input is trimmed or
        zero-padded to it.  Default: {n_default}.
    axis : int
        The axis to transform (default the last).
    norm : {{"backward", "ortho", "forward"}}
        Normalisation mode (see the module docstring).

    Returns
    -------
    Tensor
        {output}
"""

_N_D_ARGS = """
    Parameters
    ----------
    x : Tensor
        {input}
    s : sequence of ints, optional
        Transform length along each of ``axes``{n_note} (-1 keeps the input's length);
        the input is trimmed or zero-padded.  Needs ``axes``.
    axes : sequence of ints, optional
        The axes to transform (default all).
    norm : {{"backward", "ortho", "forward"}}
        Normalisation mode, with ``n = prod(s)``.

    Returns
    -------
    Tensor
        {output}
"""

_COMPLEX_IN = "Floating-point; real input is transformed as complex."
_REAL_IN = "Real floating-point."
_SAME = "Complex of ``x``'s precision; the transformed axis has length ``n``."
_SAME_N = "Complex of ``x``'s precision; axis ``axes[i]`` has length ``s[i]``."

fft = _one_d("fft", np.fft.fft, "fc", _complex, "One-dimensional discrete Fourier transform.\n"
             + _ONE_D_ARGS.format(input=_COMPLEX_IN, n_note="", n_default="the input's length",
                                  output=_SAME))
ifft = _one_d("ifft", np.fft.ifft, "fc", _complex,
              "One-dimensional inverse discrete Fourier transform.\n"
              + _ONE_D_ARGS.format(input=_COMPLEX_IN, n_note="",
                                   n_default="the input's length", output=_SAME))
fftn = _n_d("fftn", np.fft.fftn, "fc", _complex, "N-dimensional discrete Fourier transform.\n"
            + _N_D_ARGS.format(input=_COMPLEX_IN, n_note="", output=_SAME_N))
ifftn = _n_d("ifftn", np.fft.ifftn, "fc", _complex,
             "N-dimensional inverse discrete Fourier transform.\n"
             + _N_D_ARGS.format(input=_COMPLEX_IN, n_note="", output=_SAME_N))
rfft = _one_d("rfft", np.fft.rfft, "f", _complex,
              "One-dimensional discrete Fourier transform of real input (the non-negative "
              "frequencies).\n"
              + _ONE_D_ARGS.format(input=_REAL_IN, n_note="", n_default="the input's length",
                                   output="Complex of ``x``'s precision; the transformed axis "
                                          "has length ``n//2 + 1``."))
irfft = _one_d("irfft", np.fft.irfft, "fc", _real, "Inverse of :func:`rfft`.\n"
               + _ONE_D_ARGS.format(input=_COMPLEX_IN, n_note=" in the output (``n//2 + 1`` "
                                    "input points are used)", n_default="``2*(m - 1)`` for "
                                    "an input of length ``m``",
                                    output="Real of ``x``'s precision; the transformed axis "
                                           "has length ``n``."))
rfftn = _n_d("rfftn", np.fft.rfftn, "f", _complex,
             "N-dimensional discrete Fourier transform of real input.\n"
             + _N_D_ARGS.format(input=_REAL_IN, n_note="",
                                output="Complex of ``x``'s precision; the last transformed "
                                       "axis has length ``s[-1]//2 + 1``, the others "
                                       "``s[i]``."))
irfftn = _n_d("irfftn", np.fft.irfftn, "fc", _real, "Inverse of :func:`rfftn`.\n"
              + _N_D_ARGS.format(input=_COMPLEX_IN, n_note=" in the output (default: the "
                                 "input's lengths, ``2*(m - 1)`` for the last axis)",
                                 output="Real of ``x``'s precision; axis ``axes[i]`` has "
                                        "length ``s[i]``."))
hfft = _one_d("hfft", np.fft.hfft, "fc", _real,
              "Discrete Fourier transform of a signal with Hermitian symmetry (given by its "
              "first half).\n"
              + _ONE_D_ARGS.format(input=_COMPLEX_IN, n_note=" in the output (``n//2 + 1`` "
                                   "input points are used)", n_default="``2*(m - 1)`` for an "
                                   "input of length ``m``",
                                   output="Real of ``x``'s precision; the transformed axis "
                                          "has length ``n``."))
ihfft = _one_d("ihfft", np.fft.ihfft, "f", _complex, "Inverse of :func:`hfft`.\n"
               + _ONE_D_ARGS.format(input=_REAL_IN, n_note="", n_default="the input's length",
                                    output="Complex of ``x``'s precision; the transformed "
                                           "axis has length ``n//2 + 1``."))


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


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of a length-``n`` transform with sample spacing ``d``.

    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d*n)``, of shape ``(n,)`` and
    dtype ``dtype`` (a real floating dtype, float64 by default).
    """
    return _frequencies("fftfreq", np.fft.fftfreq, n, d, dtype, device)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of :func:`rfft`: ``[0, 1, ..., n//2] / (d*n)``, shape ``(n//2 + 1,)``.

    ``dtype`` is a real floating dtype, float64 by default.
    """
    return _frequencies("rfftfreq", np.fft.rfftfreq, n, d, dtype, device)


def _shift(name, np_fn, x, axes) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"fft.{name}: expected a Tensor, got {type(x).__name__}")
    v = x._value()
    if axes is not None:
        axes = (_axis(axes, v.ndim, name) if isinstance(axes, int)
                else [_axis(a, v.ndim, name) for a in axes])
    return Tensor._from_array(np_fn(v, axes=axes))


def fftshift(x, /, *, axes=None):
    """Move the zero-frequency term to the centre of ``axes`` (all axes by default)."""
    return _shift("fftshift", np.fft.fftshift, x, axes)


def ifftshift(x, /, *, axes=None):
    """Inverse of :func:`fftshift` (they differ by one sample on odd-length axes)."""
    return _shift("ifftshift", np.fft.ifftshift, x, axes)
