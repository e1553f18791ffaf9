"""Exact worst case over *every* neighbouring pair for single-bit RR (L = 1).

For L = 1 the shuffled output is the number K of reported ones.  Two
neighbouring collections differ in one user's bit (0 vs 1); the other N - 1
users hold some number m of ones.  Then, with ``p = 1 - q``,

    Y_m = Bin(m, p) + Bin(N-1-m, q)       (the others' reported ones)
    P_m = law of Y_m + Bern(p)            (target bit 1)
    Q_m = law of Y_m + Bern(q)            (target bit 0)

and every neighbouring pair, in either order, has the hockey-stick divergence
``delta_m(lam) = sum_k (P_m(k) - lam Q_m(k))+`` of some ``m`` in
``0..N-1``: the reflection ``K -> N - K`` (flip every bit) maps
``(Q_m, P_m)`` onto ``(P_{N-1-m}, Q_{N-1-m})``.  Hence the true curve of the
mechanism is ``delta(lam) = max_m delta_m(lam)``, a finite maximum of exact
rationals for rational ``lam`` -- no reduction, no bound.  ``m = 0`` is 000's
canonical pair in the forward direction, ``m = N-1`` the reverse one.

Computation: with ``q = u/d`` the numerators of ``Y_m``'s pmf (over
``d^(N-1)``) are the coefficients of ``(u + (d-u) x)^m ((d-u) + u x)^(N-1-m)``,
carried from ``m`` to ``m+1`` by one exact multiplication and one exact
division of integer polynomials (FLINT ``fmpz_poly``).  Cost ``O(N^2)`` big
integer operations: practical up to ``N`` of a few thousand
(:data:`MAX_N`).

>>> d, m = worst_delta(3, "1/3", 1)
>>> d, m
(Fraction(5, 27), 1)
"""

from __future__ import annotations

from dataclasses import replace as _replace
from fractions import Fraction

from flint import arb, ctx, fmpz_poly

from ..core import domains
from ..core.errors import CapacityError
from ..core.interval import Interval, arb_to_interval
from ..core.lam import exp_interval

__all__ = ["MAX_N", "worst_delta", "deltas_by_m", "certify_epsilon", "epsilon_all_pairs"]

#: largest N accepted (the cost grows like N^3 bit operations)
MAX_N = 2000

_DELTA = _replace(domains.TARGET, name="delta")


def _parse(N, q):
    N = domains.N.parse(N)
    q = domains.Q.parse(q)
    if N > MAX_N:
        raise CapacityError(f"N must be at most {MAX_N} for the exact all-pairs computation "
                            f"(L = 1), got {N}")
    return N, q


def deltas_by_m(N, q, lam):
    """Generator of ``(m, delta_m(lam))`` for ``m = 0..N-1`` (exact Fractions)."""
    N, q = _parse(N, q)
    lam = domains.LAM.parse(lam)
    u, d = q.numerator, q.denominator
    a, b = lam.numerator, lam.denominator
    A = fmpz_poly([u, d - u])
    B = fmpz_poly([d - u, u])
    poly = B ** (N - 1)
    denom = b * d ** N
    for m in range(N):
        if m:
            poly = (poly * A) // B
        c = [int(x) for x in poly.coeffs()] + [0] * (N - poly.degree())
        total = 0
        # P/Q is increasing in k (Y_m's pmf is log-concave), so the positive
        # terms form a suffix: scan down from k = N until a term is <= 0.
        for k in range(N, -1, -1):
            ck = c[k] if k < N else 0
            ck1 = c[k - 1] if k >= 1 else 0
            Pn = (d - u) * ck1 + u * ck
            Qn = u * ck1 + (d - u) * ck
            t = b * Pn - a * Qn
            if t <= 0:
                break
            total += t
        yield m, Fraction(total, denom)


def worst_delta(N, q, lam):
    """``(max_m delta_m(lam), argmax m)``: the exact delta of the mechanism at ``lam``."""
    best, arg = Fraction(-1), -1
    for m, v in deltas_by_m(N, q, lam):
        if v > best:
            best, arg = v, m
    return best, arg


def _exp_ball(x: Fraction, prec: int = 256) -> Interval:
    return exp_interval(x, prec)


def _log_ball(x: Fraction, prec: int = 256) -> Interval:
    with ctx.workprec(prec):
        return arb_to_interval(arb(x.numerator).log() - arb(x.denominator).log())


def certify_epsilon(N, q, delta, eps) -> tuple[bool, int, Fraction]:
    """Whether the mechanism is certified ``(eps, delta)``-DP over every pair.

    Checks ``max_m delta_m(lam) <= delta`` at a rational ``lam <= e^eps``
    (delta is decreasing in lam).  Returns ``(ok, worst m, that delta)``.
    """
    dl = _DELTA.parse(delta)
    eps = domains.EPS.parse(eps)
    lam = max(Fraction(1), _exp_ball(eps).lower)
    v, m = worst_delta(N, q, lam)
    return v <= dl, m, v


def epsilon_all_pairs(N, q, delta, *, rel: float = 1e-9, lo=None, hi=None) -> tuple[Interval, int]:
    """Enclosure of the true smallest eps with ``delta(eps) <= delta`` over all pairs,
    by bisection on rational ``lam`` with exact values; returns ``(interval, worst m at hi)``."""
    N, q = _parse(N, q)
    dl = _DELTA.parse(delta)
    lam_lo = Fraction(1) if lo is None else lo
    lam_hi = ((1 - q) / q) if hi is None else hi
    v, m_hi = worst_delta(N, q, lam_lo)
    if v <= dl:
        return Interval.exact(0), m_hi
    _, m_hi = worst_delta(N, q, lam_hi)
    while lam_hi / lam_lo - 1 > rel:
        mid = Fraction(round((lam_lo + lam_hi) / 2 * 2**64), 2**64)
        v, m = worst_delta(N, q, mid)
        if v <= dl:
            lam_hi, m_hi = mid, m
        else:
            lam_lo = mid
    return Interval(max(Fraction(0), _log_ball(lam_lo).lower), _log_ball(lam_hi).upper), m_hi
