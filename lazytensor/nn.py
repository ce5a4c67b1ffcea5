"""Neural-network activations (ONNX semantics, see docs/semantics.md), softmax and
log-sum-exp."""

from __future__ import annotations

from ._engine.record import apply, unary
from ._api.softmax import logsumexp, softmax

__all__ = ["relu", "sigmoid", "silu", "gelu", "leaky_relu", "hard_sigmoid", "hardswish",
           "softmax", "logsumexp"]


def relu(x, /):
    """max(x, 0) with Max's rules: ``relu(-0.0)`` is ``+0.0`` and NaN passes through.

    Takes signed integer and floating-point tensors (ONNX Relu-14).
    """
    return unary("relu", x)


def sigmoid(x, /):
    """1 / (1 + exp(-x)); float32 is evaluated in double and rounded once."""
    return unary("sigmoid", x)


def silu(x, /):
    """``x * sigmoid(x)`` (also called swish) as one operation, rounded once.

    Unlike ``x * sigmoid(x)`` written out, it keeps its relative accuracy where
    ``sigmoid(x)`` underflows (float32 below about -87) while ``x * sigmoid(x)`` does not.
    ``silu(-inf)`` is ``-0.0``.
    """
    return unary("silu", x)


def gelu(x, /, approximate="none"):
    """Gaussian error linear unit.

    ``approximate="none"``: ``x * Phi(x)`` through erfc for negative inputs (no
    cancellation in ``1 + erf``); ``approximate="tanh"``: the tanh form
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` through the sigmoid identity.
    ``gelu(-inf)`` is ``-0.0`` in both forms.
    """
    if approximate == "none":
        return unary("gelu", x)
    if approximate == "tanh":
        return unary("gelu_tanh", x)
    if not isinstance(approximate, str):
        raise TypeError(f"gelu: approximate must be a str ('none' or 'tanh'), got "
                        f"{type(approximate).__name__} {approximate!r}")
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', not {approximate!r}")


def leaky_relu(x, /, alpha=0.01):
    """``x < 0 ? alpha * x : x`` (alpha rounded to x's dtype); NaN passes through."""
    return apply("leaky_relu", x, attrs=(alpha,))


def hard_sigmoid(x, /, alpha=0.2, beta=0.5):
    """``clamp(alpha * x + beta, 0, 1)`` with a rounded product, then a rounded sum."""
    return apply("hard_sigmoid", x, attrs=(alpha, beta))


def hardswish(x, /):
    """``x * clamp(x * (1/6) + 0.5, 0, 1)`` with 1/6 rounded to x's dtype."""
    return unary("hardswish", x)
