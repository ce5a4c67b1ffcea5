"""Exceptions of lazytensor."""


class Unsupported(TypeError, NotImplementedError):
    """An operator, dtype or attribute that lazytensor does not serve.

    It subclasses both ``TypeError`` and ``NotImplementedError`` so that code written
    against either convention catches it.  The message names what is not served.
    """


class InvalidIndex(IndexError, TypeError):
    """An index of a type that indexing does not take (a float, a string, a float array).

    NumPy raises ``IndexError`` for such an index and Python's sequences ``TypeError``: this
    subclasses both, so that code written against either catches it.
    """
