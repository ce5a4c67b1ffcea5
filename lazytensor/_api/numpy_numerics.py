"""NumPy's misc numerics (``interp``, ``convolve``, ``correlate``, the ``poly*`` functions),
and the one export point of the NumPy statistics and linear-algebra names
(``lazytensor/__init__.py`` imports this module's ``__all__``).

``polyval`` is recorded lazily (Horner's rule with the lt operators, so it fuses with
what follows); the others evaluate their operands and NumPy computes on the values
(outside exact mode's promise).
"""

from __future__ import annotations

import numpy as np

from . import numpy_linalg, numpy_statistics
from .creation import zeros_like
from .numpy_linalg import *  # noqa: F401,F403
from .numpy_statistics import *  # noqa: F401,F403
from .numpy_values import as_tensor, on_values

_ON_VALUES = {
    "interp": (np.interp, "Piecewise-linear interpolation of ``(xp, fp)`` at ``x`` "
                          "(``left``/``right`` outside, ``period`` for angles)."),
    "convolve": (np.convolve, "Discrete linear convolution of two 1-d sequences "
                              "(``mode`` 'full', 'same' or 'valid')."),
    "correlate": (np.correlate, "Cross-correlation of two 1-d sequences (``mode`` 'valid' "
                                "by default, 'same' or 'full')."),
    "polyfit": (np.polyfit, "Least-squares polynomial fit: coefficients, highest power "
                            "first (and NumPy's extra results for ``full``/``cov``)."),
    "polyder": (np.polyder, "Coefficients of the ``m``-th derivative of a polynomial."),
    "polyint": (np.polyint, "Coefficients of the ``m``-th antiderivative (constants ``k``)."),
    "roots": (np.roots, "Roots of a polynomial given by its coefficients."),
    "poly": (np.poly, "Coefficients of the polynomial with the given roots (or the "
                      "characteristic polynomial of a square matrix)."),
    "polyadd": (np.polyadd, "Sum of two polynomials."),
    "polysub": (np.polysub, "Difference of two polynomials."),
    "polymul": (np.polymul, "Product of two polynomials."),
    "polydiv": (np.polydiv, "Quotient and remainder of polynomial division."),
    "unwrap": (np.unwrap, "Unwrap phase jumps larger than ``discont`` along ``axis`` "
                          "(by multiples of ``period``)."),
}
globals().update({name: on_values(name, fn, doc) for name, (fn, doc) in _ON_VALUES.items()})


def polyval(p, x):
    """Value of the polynomial ``p`` (coefficients, highest power first) at ``x``.

    Parameters
    ----------
    p : Tensor or array_like
        Coefficients along the first axis (more axes evaluate several polynomials, as in
        NumPy, broadcasting against ``x``).
    x : Tensor, array_like or scalar

    Returns
    -------
    Tensor
        ``x``'s shape and the promoted dtype of ``p`` and ``x``, recorded lazily by
        Horner's rule (``y = y * x + p[i]``) so it fuses with the surrounding expression.
        (The coefficients are read to take them one by one.)
    """
    c = as_tensor(p, "polyval")
    if c.ndim == 0:
        raise TypeError("polyval: p must be a sequence of coefficients, got a 0-d tensor")
    t = as_tensor(x, "polyval")
    y = zeros_like(t)
    for i in range(c.shape[0]):
        y = y * t + c[i]
    return y


__all__ = sorted(numpy_statistics.__all__ + numpy_linalg.__all__ + list(_ON_VALUES) +
                 ['polyval'])
