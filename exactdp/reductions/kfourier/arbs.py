"""Two tiny arb helpers shared by the k-copies large-N modules: an exact arb of a fraction, and a
float at or above an arb's upper end."""

from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq


def exact_arb(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def float_hi(x: arb) -> float:
    """A float at or above the upper end of ``x`` (the endpoint is exact in arb; its
    conversion to the nearest double is off by at most one part in ``2^53``)."""
    u = float(x.upper())
    return u + abs(u) * 1e-12 + 1e-300
