"""Enumeration-free certified tails of a sum of independent discrete variables.

``Z = sum_g sum_{i < n_g} X_{g,i}`` where the ``X_{g,i}`` are independent and
those of group ``g`` share a finite law (exact rational values and
probabilities).  The branch-and-bound kernels (:mod:`exactdp.engine.kernel`) are exact
up to a truncation mass but their work grows with the number of histograms
that straddle the threshold.  This module gives two certified bounds whose cost
does not depend on that:

* :func:`lattice_tail` -- a *dominance bracket*.  Round every value down and up
  to the grid ``h Z``: ``Z_lo <= Z <= Z_hi`` pathwise, so
  ``P[Z_lo > t] <= P[Z > t] <= P[Z_hi > t]``.  ``Z_lo`` and ``Z_hi`` live on a
  lattice, and their laws are convolution powers, computed with integer
  polynomials (python-flint ``fmpz_poly``) in fixed point, every coefficient
  rounded *down*: each computed mass is a lower bound of the true one, so the
  result is rigorous.  Partial sums that already decide the event whatever the
  remaining users do are folded into two counters, which keeps the polynomials
  short; tails of mass below ``tol`` may be dropped (their mass widens the
  interval, it is never lost).
* :func:`chernoff_upper` -- ``P[Z >= t] <= exp(-theta t) E[exp(theta Z)]`` at a
  numerically optimised ``theta``, evaluated with arb balls (the bound holds
  for every ``theta``, so the float optimisation does not affect rigour).

Both are used to decide comparisons the kernel leaves open (see
:meth:`exactdp.reductions.pairs.hom_eta` ``method=``).

>>> from fractions import Fraction as F
>>> g = Group(3, (F(-1), F(2)), (F(2, 3), F(1, 3)))    # three users, values -1 / 2
>>> iv = lattice_tail([g], h=F(1))       # P[Z > 0] = P[two or three 2s] = 7/27
>>> iv.contains(F(7, 27)), iv.width < 1e-27                # fixed-point rounding only
(True, True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate

import flint

from ..core.errors import CapacityError, ParameterError
from ..core.interval import Interval, arb_to_interval

__all__ = ["Group", "lattice_tail", "chernoff_upper", "MAX_LATTICE_LENGTH"]

MAX_LATTICE_LENGTH = 1 << 23
"""Largest polynomial (lattice points) :func:`lattice_tail` builds; beyond it a
:class:`~exactdp.core.errors.CapacityError` asks for a coarser ``h``."""


@dataclass(frozen=True)
class Group:
    """``n`` independent users, each taking ``values[i]`` with ``probs[i]``
    (exact rationals; the probabilities sum to at most 1, the rest of the
    mass being an event the caller does not count)."""

    n: int
    values: tuple
    probs: tuple

    def __post_init__(self):
        if not isinstance(self.n, int) or self.n < 0:
            raise ParameterError(f"n must be an integer >= 0, got {self.n!r}")
        if len(self.values) != len(self.probs) or not self.values:
            raise ParameterError("values and probs must be non-empty and of equal length")
        vals = tuple(Fraction(v) for v in self.values)
        probs = tuple(Fraction(p) for p in self.probs)
        if any(p < 0 for p in probs) or not 0 < sum(probs) <= 1:
            raise ParameterError("probs must be >= 0 and sum to a value in (0, 1]")
        object.__setattr__(self, "values", vals)
        object.__setattr__(self, "probs", probs)


@dataclass
class _Dist:
    """Lower bounds (at scale ``S``) of the law of a partial sum of ``m`` users:
    ``poly[i]`` at lattice point ``off + i``; ``top`` / ``bottom`` the mass
    already known to end at or above / below the threshold."""

    m: int
    off: int
    poly: flint.fmpz_poly
    top: int
    bottom: int

    def total(self) -> int:
        return int(self.poly(1)) + self.top + self.bottom


class _Bracket:
    """One side (``ceil`` or ``floor``) of the dominance bracket."""

    def __init__(self, groups, h: Fraction, kt: int, up: bool, bits: int, tol: float, *, max_length: int):
        self.S = 1 << bits
        self.kt = kt
        self.max_length = max_length
        rnd = math.ceil if up else math.floor
        self.atoms = []
        for g in groups:
            a: dict = {}
            for v, p in zip(g.values, g.probs):
                if p:
                    k = rnd(v / h)
                    a[k] = a.get(k, 0) + p
            self.atoms.append({k: (p * self.S).__floor__() for k, p in a.items()})
        pts = [k for a in self.atoms for k in a]
        self.gmin, self.gmax = min(pts), max(pts)
        self.n_total = sum(g.n for g in groups)
        steps = sum(2 * max(g.n, 1).bit_length() + 1 for g in groups) + len(groups)
        self.drop = int(Fraction(tol) / steps * self.S) if tol else 0

    def single(self, atoms) -> _Dist:
        lo = min(atoms)
        coeffs = [0] * (max(atoms) - lo + 1)
        for k, w in atoms.items():
            coeffs[k - lo] = w
        return self.clamp(_Dist(1, lo, flint.fmpz_poly(coeffs), 0, 0))

    def clamp(self, d: _Dist) -> _Dist:
        rem = self.n_total - d.m
        c = [int(x) for x in d.poly.coeffs()]
        n = len(c)
        # at or above: the remaining users (each >= gmin) cannot bring it below kt
        it = self.kt - rem * self.gmin - d.off
        # at or below: the remaining users (each <= gmax) cannot lift it to kt
        ib = self.kt - 1 - rem * self.gmax - d.off + 1
        hi = min(max(it, 0), n)
        lo = min(max(ib, 0), hi)
        top = d.top + sum(c[hi:])
        bottom = d.bottom + sum(c[:lo])
        # drop tails of negligible mass (they widen the result; nothing is lost silently)
        if self.drop and hi > lo:
            half = self.drop // 2
            acc = list(accumulate(c[lo:hi]))
            j = lo
            while j < hi and acc[j - lo] <= half:
                j += 1
            lo = j
            acc_r = list(accumulate(reversed(c[lo:hi])))
            j = hi
            while j > lo and acc_r[hi - j] <= half:
                j -= 1
            hi = j
        c = c[lo:hi]
        if len(c) > self.max_length:
            raise CapacityError(f"lattice of {len(c)} points exceeds max_length={self.max_length}; "
                                "use a coarser h (or the kernel)")
        return _Dist(d.m, d.off + lo, flint.fmpz_poly(c), top, bottom)

    def mul(self, a: _Dist, b: _Dist) -> _Dist:
        S = self.S
        ta, tb = a.total(), b.total()
        mid_a, mid_b = ta - a.top - a.bottom, tb - b.top - b.bottom
        top = (a.top * (tb - b.bottom) + mid_a * b.top) // S
        bottom = (a.bottom * (tb - b.top) + mid_a * b.bottom) // S
        poly = (a.poly * b.poly) // S if mid_a and mid_b else flint.fmpz_poly([])
        return self.clamp(_Dist(a.m + b.m, a.off + b.off, poly, top, bottom))

    def power(self, atoms, n: int) -> _Dist | None:
        result, base = None, self.single(atoms)
        while n:
            if n & 1:
                result = base if result is None else self.mul(result, base)
            n >>= 1
            if n:
                base = self.mul(base, base)
        return result

    def run(self, groups) -> _Dist:
        acc = None
        for g, atoms in zip(groups, self.atoms):
            if g.n:
                d = self.power(atoms, g.n)
                acc = d if acc is None else self.mul(acc, d)
        if acc is None:
            acc = _Dist(0, 0, flint.fmpz_poly([self.S]), 0, 0)
        return self.clamp(acc)


def _threshold_index(t: Fraction, h: Fraction, inclusive: bool) -> int:
    """Smallest lattice index ``k`` with ``k h > t`` (or ``>= t``)."""
    x = t / h
    return math.ceil(x) if inclusive else math.floor(x) + 1


def lattice_tail(groups, *, h, threshold=0, inclusive: bool = False, bits: int = 96,
                 tol: float = 1e-15, max_length: int = MAX_LATTICE_LENGTH) -> Interval:
    """Certified enclosure of ``P[Z > threshold]`` (``>=`` if ``inclusive``).

    ``h`` (a positive rational) is the grid step: the width of the result is
    about the change of the tail over a shift of ``h`` times the number of
    users, plus ``tol`` (tails dropped) and the fixed-point rounding
    (``bits``).  Cost: a few products of polynomials with
    ``(range of partial sums) / h`` coefficients.

    >>> from fractions import Fraction as F
    >>> g = Group(50, (F(-1), F(1, 3), F(7)), (F(3, 4), F(1, 5), F(1, 20)))
    >>> iv = lattice_tail([g], h=F(1, 3))          # values on the grid: exact up to rounding
    >>> float(iv.lower), iv.width < 1e-20
    (0.0998227698..., True)
    >>> iv = lattice_tail([g], h=F(1, 2))          # 1/3 is off the grid: a real bracket
    >>> iv.contains(F(998227698, 10**10)), float(iv.width) < 0.1
    (True, True)
    """
    h = Fraction(h)
    if h <= 0:
        raise ParameterError(f"h must be a positive rational, got {h}")
    if not isinstance(bits, int) or bits < 32:
        raise ParameterError(f"bits must be an integer >= 32, got {bits!r}")
    if not 0 <= tol < 1:
        raise ParameterError(f"tol must be in [0, 1), got {tol}")
    groups = list(groups)
    kt = _threshold_index(Fraction(threshold), h, inclusive)
    lo = _Bracket(groups, h, kt, False, bits, tol, max_length=max_length).run(groups)
    hi = _Bracket(groups, h, kt, True, bits, tol, max_length=max_length).run(groups)
    S = 1 << bits
    return Interval(Fraction(lo.top, S), Fraction(S - hi.bottom, S))


def chernoff_upper(groups, *, threshold=0, prec: int = 128) -> Fraction:
    """A certified upper bound of ``P[Z >= threshold]``:
    ``min_theta exp(-theta t) prod_g E[exp(theta X_g)]^n_g`` with ``theta >= 0``
    chosen numerically and the bound evaluated in arb (valid for any ``theta``).

    >>> from fractions import Fraction as F
    >>> g = Group(100, (F(-1), F(1)), (F(3, 4), F(1, 4)))
    >>> b = chernoff_upper([g])                       # P[sum >= 0] = P[Bin(100, 1/4) >= 50]
    >>> 2.2e-8 < float(b) < 2.2e-6                    # true value 2.2e-7... (Hoeffding-type slack)
    True
    """
    t = Fraction(threshold)
    groups = [g for g in groups if g.n]
    scale = max((abs(v) for g in groups for v in g.values), default=Fraction(1)) or Fraction(1)

    def logm(theta: float) -> float:
        s = -theta * float(t / scale)
        for g in groups:
            xs = [theta * float(v / scale) for v, p in zip(g.values, g.probs) if p]
            mx = max(xs)
            s += g.n * (mx + math.log(sum(float(p) * math.exp(x - mx)
                                          for x, p in zip(xs, (p for p in g.probs if p)))))
        return s

    # golden-section search on [0, hi] (log-MGF is convex in theta)
    a, b = 0.0, 1.0
    while logm(b) < logm(b / 2) and b < 1e6:
        b *= 2
    gr = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        c, d = b - gr * (b - a), a + gr * (b - a)
        if logm(c) < logm(d):
            b = d
        else:
            a = c
    theta = Fraction((a + b) / 2).limit_denominator(1 << 40) / scale
    if logm(float(theta * scale)) >= 0:
        return Fraction(1)
    with flint.ctx.workprec(prec):
        th = flint.arb(flint.fmpq(theta.numerator, theta.denominator))
        acc = -th * flint.arb(flint.fmpq(t.numerator, t.denominator))
        for g in groups:
            m = flint.arb(0)
            for v, p in zip(g.values, g.probs):
                if p:
                    m += flint.arb(flint.fmpq(p.numerator, p.denominator)) * \
                        (th * flint.arb(flint.fmpq(v.numerator, v.denominator))).exp()
            acc += g.n * m.log()
        up = arb_to_interval(acc.exp()).upper
    return min(up, Fraction(1))
