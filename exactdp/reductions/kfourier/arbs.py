"""Tiny arb helpers shared by the k-copies large-N modules: an exact arb of a fraction, a float at
or above an arb's upper end, and an exact arb on a coarse grid beyond an arb's end."""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, fmpq


def exact_arb(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def float_hi(x: arb) -> float:
    """A float at or above the upper end of ``x`` (the endpoint is exact in arb; its
    conversion to the nearest double is off by at most one part in ``2^53``)."""
    u = float(x.upper())
    return u + abs(u) * 1e-12 + 1e-300


def grid_arb(x: arb, bits: int, *, up: bool) -> arb:
    """An exact arb at or above ``x``'s upper end (``up``; else at or below its lower end) with
    at most ``bits`` significant bits, so that nearby values share it; ``x`` itself when
    ``bits`` is 0.

    >>> float(grid_arb(arb(1000.3), 4, up=True)), float(grid_arb(arb(1000.3), 4, up=False))
    (1024.0, 960.0)
    """
    f = float(x.upper() if up else x.lower())
    if not bits or not abs(f) > 1e-280 or not math.isfinite(f):
        return x                                              # (near 0 a grid would underflow)
    f = math.nextafter(f, math.inf if up else -math.inf)      # beyond the rounding to a double
    scale = 2.0 ** (math.frexp(f)[1] - bits)
    return arb((math.ceil(f / scale) if up else math.floor(f / scale)) * scale)
