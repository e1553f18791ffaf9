"""Parameter domains, declared once.

Each :class:`Domain` states a parameter's name, its kind (integer or exact
rational), and its bounds.  The same objects validate user input (Python API
and CLI), generate the help text and the documentation, and bound the
hypothesis strategies of the test-suite (``tests/strategies.py``).

Exact inputs: integers, :class:`fractions.Fraction`, :class:`decimal.Decimal`,
``flint.fmpq`` and strings such as ``"0.2446"``, ``"1/5"`` or ``"1e-6"`` are read
*exactly*.  A Python ``float`` is refused (:class:`~exactdp.core.errors.InexactInputError`)
unless the caller converts it explicitly, e.g. ``Fraction(0.25)``.

>>> Q.parse("0.2446")
Fraction(1223, 5000)
>>> Q.parse(0.25)
Traceback (most recent call last):
...
exactdp.core.errors.InexactInputError: q: got the float 0.25; pass an exact value such as the string '0.25' or Fraction(0.25)
>>> N.parse("0")
Traceback (most recent call last):
...
exactdp.core.errors.ParameterError: N must be an integer in [1, 1000000000], got 0
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational

from .errors import InexactInputError, ParameterError

__all__ = [
    "Domain", "N", "L", "Q", "LAM", "EPS", "DIGITS", "K", "BINS", "GRID", "TARGET",
    "DIRECTIONS", "parse_direction", "to_fraction",
]

_NUM_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_FRAC_RE = re.compile(r"^[+-]?\d+\s*/\s*[+-]?\d+$")


def to_fraction(value, name: str = "value") -> Fraction:
    """Read ``value`` exactly as a :class:`~fractions.Fraction`.

    >>> to_fraction("1/5"), to_fraction("1e-3"), to_fraction(3)
    (Fraction(1, 5), Fraction(1, 1000), Fraction(3, 1))
    """
    if isinstance(value, bool):
        raise ParameterError(f"{name}: got a bool {value!r}; pass a number")
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ParameterError(f"{name} must be a finite number, got {value!r}")
        raise InexactInputError(
            f"{name}: got the float {value!r}; pass an exact value such as the "
            f"string '{value!r}' or Fraction({value!r})")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (Integral, Rational)):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ParameterError(f"{name} must be a finite number, got {value}")
        return Fraction(value)
    tname = type(value).__name__
    if tname == "fmpq":
        return Fraction(int(value.p), int(value.q))
    if tname == "fmpz":
        return Fraction(int(value))
    if isinstance(value, str):
        s = value.strip()
        if _NUM_RE.match(s):
            return Fraction(Decimal(s))
        if _FRAC_RE.match(s):
            num, den = s.split("/")
            if int(den) == 0:
                raise ParameterError(f"{name}: division by zero in {value!r}")
            return Fraction(int(num), int(den))
        low = s.lower()
        if low in ("nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
            raise ParameterError(f"{name} must be a finite number, got {value!r}")
        raise ParameterError(
            f"{name}: cannot read {value!r} as an exact number (use e.g. '0.2446', '1/5', '1e-6')")
    raise InexactInputError(f"{name}: cannot read a {tname} exactly; pass int, Fraction or str")


@dataclass(frozen=True)
class Domain:
    """A parameter's domain: ``lower <= x <= upper`` (or strict where open)."""

    name: str
    kind: str  # "int" or "rational"
    lower: Fraction | None
    upper: Fraction | None
    lower_open: bool = False
    upper_open: bool = False
    help: str = ""

    def describe(self) -> str:
        lo = "-inf" if self.lower is None else _fmt(self.lower)
        hi = "inf" if self.upper is None else _fmt(self.upper)
        lb = "(" if self.lower_open or self.lower is None else "["
        rb = ")" if self.upper_open or self.upper is None else "]"
        kind = "an integer" if self.kind == "int" else "a number"
        return f"{self.name} must be {kind} in {lb}{lo}, {hi}{rb}"

    def contains(self, x: Fraction) -> bool:
        if self.lower is not None:
            if x < self.lower or (self.lower_open and x == self.lower):
                return False
        if self.upper is not None:
            if x > self.upper or (self.upper_open and x == self.upper):
                return False
        return True

    def parse(self, value):
        """Return the exact value (``int`` or ``Fraction``) or raise one-line errors."""
        x = to_fraction(value, self.name)
        if self.kind == "int":
            if x.denominator != 1:
                raise ParameterError(f"{self.describe()}, got {_fmt(x)}")
            x = int(x)
        if not self.contains(Fraction(x)):
            raise ParameterError(f"{self.describe()}, got {_fmt(Fraction(x))}")
        return x


def _fmt(x: Fraction) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    d = Decimal(x.numerator) / Decimal(x.denominator)
    if Fraction(d) == x:
        return str(d)
    return f"{x.numerator}/{x.denominator}"


F = Fraction
N = Domain("N", "int", F(1), F(10**9), help="number of users")
L = Domain("L", "int", F(1), F(64), help="bits per vector")
Q = Domain("q", "rational", F(0), F(1, 2), True, True, help="bit-flip probability, p = 1 - q")
LAM = Domain("lam", "rational", F(1), None, help="privacy ratio threshold lambda = e^eps")
EPS = Domain("eps", "rational", F(0), F(700), help="privacy level eps (lambda = e^eps)")
DIGITS = Domain("digits", "int", F(1), F(300), help="certified significant digits")
K = Domain("k", "int", F(1), F(10**4), help="randomizations per user")
BINS = Domain("bins", "int", F(1), F(10**5), help="number of histogram bins")
GRID = Domain("grid", "int", F(2), F(10**5), help="fast-mode scan points of calibrate")
TARGET = Domain("target", "rational", F(0), F(1), True, True, help="target probability (eta or delta)")

DIRECTIONS = ("forward", "reverse", "worst")


def parse_direction(value: str) -> str:
    """Validate a direction name.

    >>> parse_direction("worst")
    'worst'
    """
    if value not in DIRECTIONS:
        raise ParameterError(f"direction must be one of {', '.join(DIRECTIONS)}, got {value!r}")
    return value
