"""Requested digits: the check every exact query with a ``digits`` argument applies.

A query asked for ``digits`` significant digits returns an enclosure whose
relative width ``width / |mid|`` is at most ``10^-digits`` (or an exact value),
or raises :class:`~exactdp.core.errors.DigitsNotMetError` saying what it reached;
never a silently wider interval.  Truncation tolerances are handled as powers
of two in arb (``tolerance``), so they may lie far below float64's range
(values near 1e-300 and smaller keep their relative accuracy).

>>> from fractions import Fraction
>>> from exactdp.core.interval import Interval
>>> meets_digits(Interval(Fraction(1), Fraction(1) + Fraction(1, 10**16)), 15)
True
>>> require_digits(Interval(Fraction(1, 10**300), Fraction(3, 10**300)), 15, "eta")
Traceback (most recent call last):
...
exactdp.core.errors.DigitsNotMetError: eta: asked for 15 significant digits, reached 0 (enclosure [1e-300, 3e-300], relative width 1)
>>> t = tolerance(-400)
>>> t < arb(10) ** -400, t > arb(10) ** -401
(True, True)
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from .errors import DigitsNotMetError
from .interval import Interval

__all__ = ["meets_digits", "require_digits", "log10_abs", "tolerance"]


def meets_digits(iv: Interval, digits: int) -> bool:
    """True when ``iv`` is exact or its relative width is at most ``10^-digits``."""
    return iv.is_exact or iv.relative_width() <= 10.0 ** (-digits)


def _sci(x: Fraction, sig: int = 3) -> str:
    if x == 0:
        return "0"
    e = math.floor(log10_abs(x))
    m = x / Fraction(10) ** e
    return f"{float(m):.{sig}g}e{e}" if abs(e) > 4 else f"{float(x):.{sig}g}"


def require_digits(iv: Interval, digits: int, what: str, detail: str = "") -> Interval:
    """Return ``iv`` if it meets ``digits``, else raise DigitsNotMetError (one line)."""
    if meets_digits(iv, digits):
        return iv
    rw = iv.relative_width()
    got = iv.correct_digits()
    sig = min(max(3, got + 2), 17)
    msg = (f"{what}: asked for {digits} significant digits, reached {got} "
           f"(enclosure [{_sci(iv.lower, sig)}, {_sci(iv.upper, sig)}], relative width {rw:.2g})")
    if detail:
        msg += f" {detail}"
    raise DigitsNotMetError(msg, iv)


def log10_abs(x: Fraction) -> float:
    """``log10 |x|`` for a nonzero rational of any magnitude (no float underflow)."""
    x = abs(Fraction(x))
    if x == 0:
        raise ValueError("log10_abs: x must be nonzero")
    return math.log10(x.numerator) - math.log10(x.denominator)


def tolerance(log10_tol: float):
    """A power of two ``<= 10^log10_tol`` as an exact arb (no float64 underflow)."""
    return arb(2) ** math.floor(log10_tol * math.log2(10))
