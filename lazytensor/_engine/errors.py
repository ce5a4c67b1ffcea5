"""Exceptions of lazytensor."""


class Unsupported(TypeError, NotImplementedError):
    """An operator, dtype or attribute that lazytensor does not serve.

    It subclasses both ``TypeError`` and ``NotImplementedError`` so that code written
    against either convention catches it.  The message names what is not served.
    """

