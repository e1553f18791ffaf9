"""Domain-named exceptions of exactdp.

Every error a user can trigger is a subclass of :class:`ValueError` or
:class:`TypeError`, so ordinary ``except ValueError`` code keeps working, and
its message is one line naming the parameter and its allowed range.
"""

from __future__ import annotations


class ExactdpError(Exception):
    """Base class of all exactdp errors."""


class ParameterError(ExactdpError, ValueError):
    """A parameter is outside its domain (see :mod:`exactdp.core.domains`)."""


class InexactInputError(ExactdpError, TypeError):
    """A float was passed where an exact value is required.

    Convert explicitly, e.g. ``Fraction(0.25)`` or the string ``"0.25"``.
    """


class CapacityError(ExactdpError, ValueError):
    """The requested computation exceeds the engine's capacity.

    Raised *before* any long work starts; the message says what to do instead
    (fast mode, fewer digits, smaller N or L).
    """


class PrecisionError(ExactdpError, ArithmeticError):
    """A comparison or rounding could not be decided at the working precision.

    exactdp never answers an undecided comparison with ``False``; callers
    retry at higher precision or report this error.
    """


class DigitsNotMetError(PrecisionError):
    """The requested number of significant digits was not reached.

    ``reached`` is the certified enclosure obtained (valid, only wider than
    asked); internal callers that only need to decide a comparison use it.
    """

    def __init__(self, message: str, reached=None):
        super().__init__(message)
        self.reached = reached
