"""Digits a certified query may ask for beyond the tree's capacity (issue 14).

Below the tree's capacity (:mod:`exactdp.engine.capacity`) the certified kernel reaches any
number of digits.  Beyond it the heavy/light Fourier strategy (:mod:`exactdp.engine.largen`)
reaches a few: its truncated heavy mass, smoothing and quadrature budgets shrink ~5x per
20x more work (benchmarks/RESULTS.md, "Deployment scale").  So there ``eta`` and ``delta``
default to :data:`FOURIER_DEFAULT_DIGITS`, and a request for more than
:data:`FOURIER_MAX_DIGITS` is refused at once (one line, before any work) with what would
work instead; within that, a width not met is reported with the enclosure reached.

>>> query_digits(None, True, 10**7, 40, "eta")
4
>>> query_digits("12", False, 1000, 5, "eta")
12
"""

from __future__ import annotations

from ..core import domains
from ..core.errors import ParameterError

__all__ = ["FOURIER_DEFAULT_DIGITS", "FOURIER_MAX_DIGITS", "query_digits"]

#: default digits of eta / delta under the Fourier strategy
FOURIER_DEFAULT_DIGITS = 4
#: most digits of eta / delta under the Fourier strategy (the issue's L = 5 target, 1e-6)
FOURIER_MAX_DIGITS = 6


def query_digits(given, fourier: bool, N: int, L: int, what: str, default: int = 20, *,
                 fourier_default: int = FOURIER_DEFAULT_DIGITS, fourier_max: int = FOURIER_MAX_DIGITS,
                 instead: str = "--fast for an estimate with an error bound") -> int:
    """``--digits`` of a query: ``default`` below the tree's capacity; beyond it
    ``fourier_default`` (:data:`FOURIER_DEFAULT_DIGITS`), and more than ``fourier_max``
    (:data:`FOURIER_MAX_DIGITS`) refused before any work, in one line suggesting ``instead``."""
    if given is None:
        return fourier_default if fourier else default
    digits = domains.DIGITS.parse(given)
    if fourier and digits > fourier_max:
        raise ParameterError(
            f"digits must be at most {fourier_max} for {what} at N={N}, L={L} (Fourier "
            f"strategy, beyond the tree's capacity), got {digits}; use --digits "
            f"{fourier_max} or less, or {instead}")
    return digits
