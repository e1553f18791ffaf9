"""A fast-mode (float64) value with its stated error bound.

The float paths (``method="fast"``: :mod:`exactdp.engine.fastkernel`, or a coarse
certified enclosure's midpoint) return an :class:`Estimate`; every exact path
returns an :class:`~exactdp.core.interval.Interval`.  Both answer ``lower``/``upper``
and ``contains`` (one protocol for results).

>>> e = Estimate(0.25, 1e-17)
>>> e.contains("1/4"), e.bound_only
(True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Estimate"]


@dataclass(frozen=True)
class Estimate:
    """A fast-mode (float64) value with a stated error bound.

    ``lower``/``upper`` enclose the value up to the stated bound: the truncated
    mass is bounded rigorously, the float64 rounding by an a-priori allowance
    (see :mod:`exactdp.engine.fastkernel`).  It is labelled an estimate because the
    rounding allowance is not machine-certified.
    """

    value: float
    error: float
    label: str = "fast estimate (float64)"

    @property
    def lower(self) -> Fraction:
        return Fraction(self.value) - Fraction(self.error)

    @property
    def upper(self) -> Fraction:
        return Fraction(self.value) + Fraction(self.error)

    def contains(self, x) -> bool:
        return self.lower <= Fraction(x) <= self.upper

    @property
    def relative_error(self) -> float:
        """``error / |value|`` (inf when the value is 0 and the error is not)."""
        if self.error == 0:
            return 0.0
        return float(self.error / abs(self.value)) if self.value != 0 else math.inf

    @property
    def bound_only(self) -> bool:
        """True when the error bound is at least the value: only ``< upper`` is known."""
        return bool(self.error >= abs(self.value) and self.error > 0)

    def to_dict(self, digits: int = 17) -> dict:
        return {"value": repr(self.value), "error_bound": f"{self.error:.3g}",
                "relative_error": f"{self.relative_error:.3g}", "bound_only": self.bound_only,
                "lower": repr(float(self.lower)), "upper": repr(float(self.upper)),
                "label": self.label}

    def __str__(self) -> str:
        """``value +- error (relative r)``, or ``< bound`` when the error exceeds the value.

        >>> str(Estimate(0.25, 1e-17)), str(Estimate(6.5e-30, 2e-10))
        ('0.25 +- 1e-17 (relative 4e-17; fast estimate)', '< 2e-10 (fast estimate; the error bound 2e-10 exceeds the value)')
        >>> Estimate(6.5e-30, 2e-10)
        Estimate(6.5e-30 +- 2e-10, bound only)
        """
        if self.bound_only:
            return (f"< {float(self.upper):.3g} (fast estimate; the error bound {self.error:.3g} "
                    f"exceeds the value)")
        return f"{self.value:.12g} +- {self.error:.2g} (relative {self.relative_error:.1g}; fast estimate)"

    def __repr__(self) -> str:
        tail = ", bound only" if self.bound_only else ""
        return f"Estimate({self.value!r} +- {float(self.error):.3g}{tail})"

    def __float__(self):
        return self.value
