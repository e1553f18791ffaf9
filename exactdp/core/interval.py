"""Certified intervals: the value objects every exact-mode query returns.

An :class:`Interval` holds two exact rationals, ``lower <= upper``, that
provably enclose the true value (rounding and truncated mass included).
Decimal strings are rounded *outward* so that the printed interval still
encloses the truth.

>>> iv = Interval(Fraction(1, 3), Fraction(1, 2))
>>> iv.contains(Fraction(2, 5)), iv.width
(True, Fraction(1, 6))
>>> iv.to_dict(digits=3)
{'lower': '0.333', 'upper': '0.5'}
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from fractions import Fraction

from .errors import PrecisionError

__all__ = ["Interval", "arb_to_interval", "fraction_to_decimal_str", "small_in_e"]


def fraction_to_decimal_str(x: Fraction, digits: int, rounding: str) -> str:
    """Decimal string of ``x`` with ``digits`` significant digits, rounded as asked.

    ``rounding`` is ``"floor"``, ``"ceiling"`` or ``"nearest"``.

    >>> fraction_to_decimal_str(Fraction(2, 3), 4, "floor"), fraction_to_decimal_str(Fraction(2, 3), 4, "ceiling")
    ('0.6666', '0.6667')
    """
    mode = {"floor": decimal.ROUND_FLOOR, "ceiling": decimal.ROUND_CEILING,
            "nearest": decimal.ROUND_HALF_EVEN}[rounding]
    ctx = decimal.Context(prec=max(1, digits), rounding=mode, Emin=-10**9, Emax=10**9)
    d = ctx.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))
    s = format(d, "f") if -30 < d.adjusted() < 30 else format(d, "e")
    if "." in s and "e" not in s.lower():
        s = s.rstrip("0").rstrip(".")
    return s if s not in ("-0",) else "0"


def small_in_e(s: str) -> str:
    """A decimal string (of :func:`fraction_to_decimal_str`) in e-notation when its value is
    nonzero and below ``1e-4`` in absolute value, as it is otherwise.

    >>> small_in_e("0.0000000000000000000000107"), small_in_e("0.00707"), small_in_e("0")
    ('1.07e-23', '0.00707', '0')
    """
    x = decimal.Decimal(s)
    return format(x, "e") if x != 0 and abs(x) < decimal.Decimal("1e-4") and "e" not in s.lower() else s


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[lower, upper]`` of exact rationals enclosing a true value."""

    lower: Fraction
    upper: Fraction

    def __post_init__(self):
        lo, hi = Fraction(self.lower), Fraction(self.upper)
        if lo > hi:
            raise ValueError(f"Interval: lower {lo} > upper {hi}")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)

    @classmethod
    def exact(cls, x) -> "Interval":
        """The degenerate interval ``[x, x]``."""
        x = Fraction(x)
        return cls(x, x)

    @property
    def mid(self) -> Fraction:
        """The midpoint (exact)."""
        return (self.lower + self.upper) / 2

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    @property
    def is_exact(self) -> bool:
        return self.lower == self.upper

    def relative_width(self) -> float:
        """``width / |mid|`` as a float (0 for an exact interval, inf around 0)."""
        if self.width == 0:
            return 0.0
        m = abs(self.mid)
        return float("inf") if m == 0 else float(self.width / m)

    def correct_digits(self) -> int:
        """Number of significant decimal digits the interval pins down (approx.)."""
        import math
        rw = self.relative_width()
        if rw == 0:
            return 10**6
        if rw == float("inf"):
            return 0
        return max(0, int(-math.log10(rw)))

    def contains(self, x) -> bool:
        """Whether ``x`` (a number or an Interval) lies inside."""
        if isinstance(x, Interval):
            return self.lower <= x.lower and x.upper <= self.upper
        x = Fraction(x)
        return self.lower <= x <= self.upper

    def overlaps(self, other: "Interval") -> bool:
        return not (self.upper < other.lower or other.upper < self.lower)

    # ---- certified comparisons: never answer an undecided comparison ----
    def certainly_lt(self, other) -> bool:
        o = other if isinstance(other, Interval) else Interval.exact(other)
        return self.upper < o.lower

    def certainly_gt(self, other) -> bool:
        o = other if isinstance(other, Interval) else Interval.exact(other)
        return self.lower > o.upper

    def compare(self, other) -> int:
        """-1, 0 or 1 when decided (0 only for equal exact values); raises otherwise."""
        o = other if isinstance(other, Interval) else Interval.exact(other)
        if self.upper < o.lower:
            return -1
        if self.lower > o.upper:
            return 1
        if self.is_exact and o.is_exact and self.lower == o.lower:
            return 0
        raise PrecisionError(f"cannot decide {self} vs {o} at this precision")

    def __float__(self) -> float:
        return float(self.mid)

    def to_dict(self, digits: int = 20) -> dict:
        """``{"lower": str, "upper": str}`` rounded outward to ``digits`` significant digits."""
        return {"lower": fraction_to_decimal_str(self.lower, digits, "floor"),
                "upper": fraction_to_decimal_str(self.upper, digits, "ceiling")}

    def __str__(self) -> str:
        """Short decimal form, rounded outward, with the digits the width pins down (+2).

        >>> str(Interval(Fraction(1, 3), Fraction(1, 2))), str(Interval.exact(Fraction(1, 4)))
        ('[0.333, 0.5]', '0.25')
        """
        d = self.to_dict(max(3, min(40, self.correct_digits() + 2)))
        if d["lower"] == d["upper"]:
            return d["lower"]
        return f"[{d['lower']}, {d['upper']}]"

    def _short(self) -> dict:
        """``to_dict`` with the digits the width pins down (+2), small values in e-notation."""
        d = self.to_dict(max(3, min(40, self.correct_digits() + 2)))
        return {k: small_in_e(v) for k, v in d.items()}

    def __repr__(self) -> str:
        """Short form: small rationals exactly, others as outward-rounded decimals.

        >>> Interval(Fraction(1, 3), Fraction(1, 2))
        Interval[1/3, 1/2]
        >>> Interval(Fraction(1, 3 * 10**300), Fraction(1, 2 * 10**300))
        Interval[3.33e-301, 5e-301]
        >>> Interval(Fraction(1, 3 * 10**6), Fraction(1, 2 * 10**6))
        Interval[3.33e-7, 5e-7]
        """
        def small(x: Fraction) -> bool:
            return abs(x.numerator) < 10**6 and x.denominator < 10**6

        if small(self.lower) and small(self.upper):
            return f"Interval[{self.lower}, {self.upper}]"
        d = self._short()
        return f"Interval[{d['lower']}, {d['upper']}]"

    @staticmethod
    def hull_max(a: "Interval", b: "Interval") -> "Interval":
        """Enclosure of ``max(x, y)`` for ``x in a``, ``y in b``."""
        return Interval(max(a.lower, b.lower), max(a.upper, b.upper))

    def intersect(self, other: "Interval") -> "Interval":
        """Intersection of two enclosures of the same value.  Both are
        certified, so they overlap; disjoint ones mean a bug and raise.

        >>> Interval(Fraction(1, 4), Fraction(1, 2)).intersect(Interval(Fraction(1, 3), Fraction(1)))
        Interval[1/3, 1/2]
        """
        lo, hi = max(self.lower, other.lower), min(self.upper, other.upper)
        if lo > hi:
            raise ArithmeticError(f"disjoint enclosures of one value: {self} and {other}")
        return Interval(lo, hi)

    def scale(self, c) -> "Interval":
        c = Fraction(c)
        lo, hi = self.lower * c, self.upper * c
        return Interval(min(lo, hi), max(lo, hi))

    def clip(self, lo=None, hi=None) -> "Interval":
        """Intersect with known bounds of the true value (e.g. probabilities in [0, 1])."""
        a, b = self.lower, self.upper
        if lo is not None:
            a, b = max(a, Fraction(lo)), max(b, Fraction(lo))
        if hi is not None:
            a, b = min(a, Fraction(hi)), min(b, Fraction(hi))
        return Interval(a, b)


def _arf_to_fraction(x) -> Fraction:
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**(-exp))


def arb_to_interval(x) -> Interval:
    """Exact enclosure of a python-flint ``arb`` ball."""
    if not x.is_finite():
        raise PrecisionError(f"non-finite ball {x}")
    m = _arf_to_fraction(x.mid())
    r = _arf_to_fraction(x.rad())
    return Interval(m - r, m + r)
