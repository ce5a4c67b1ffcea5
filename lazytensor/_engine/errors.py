"""Exceptions of lazytensor."""


class Unsupported(TypeError, NotImplementedError):
    """An operator, dtype or attribute that lazytensor does not serve.

    It subclasses both ``TypeError`` and ``NotImplementedError`` so that code written
    against either convention catches it.  The message names what is not served.
    """


def writes_into_tensor(what: str, instead: str) -> Unsupported:
    """The error for a call that would write into a tensor's memory (``out=`` a tensor, an
    in-place method, ``ufunc.at``, a shuffle): such writes come with views, whose memory
    model they need; until then they raise rather than write into a copy."""
    return Unsupported(f"{what} would write into a tensor: writes into tensors through out= "
                       f"and in-place methods are not supported yet (they come with views); "
                       f"{instead}")
