"""Certified error law of 000 §4's count estimator ``d_hat = (M - qN)/(p - q)``.

000 §4: every user holds an indicator vector; the bit j is set for d of the N
users, and M counts the synthetic vectors (after randomized response with flip
probability q, p = 1 - q) whose bit j is set, so ``E M = p d + q (N - d)`` and
``d_hat = (M - qN)/(p - q)`` is unbiased with ``sigma(d_hat) = sqrt(qpN)/(p - q)``
(000 §4, the equation after "The expectation and standard deviation").  The paper
turns sigma into statements such as "the error does not exceed 15K" (3 sigma).

:func:`deviation_probability` gives the certified probability that the error
exceeds a threshold T for a bit that no user holds (d = 0, M ~ Bin(N, q)):

    P[|d_hat - d| > T] = P[M > qN + T(p - q)] + P[M < qN - T(p - q)].

(The variance of M is Npq for every d; the law itself depends mildly on d.)
Each tail is summed term by term in arb ball arithmetic from its first term
(``log C(N, k) + k log q + (N - k) log p`` by ``lgamma``), with the ratio of
consecutive terms ``r_k`` (decreasing away from the mode) giving the rigorous
remainder ``t r/(1 - r)`` once the terms are negligible.

>>> from fractions import Fraction
>>> deviation_probability(4, Fraction(1, 4), Fraction(1)).to_dict(6)   # |M - 1| > 1/2: M != 1
{'lower': '0.578125', 'upper': '0.578125'}
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
from flint import arb

from ..core import domains
from ..core.interval import Interval, arb_to_interval

__all__ = ["binomial_tail", "deviation_probability"]


def _pmf(n: int, k: int, q: Fraction) -> arb:
    qa = arb(q.numerator) / q.denominator
    pa = 1 - qa
    lg = arb(n + 1).lgamma() - arb(k + 1).lgamma() - arb(n - k + 1).lgamma()
    return (lg + k * qa.log() + (n - k) * pa.log()).exp()


def binomial_tail(n: int, q, k: int, upper: bool = True, prec: int = 256) -> Interval:
    """Certified ``P[Bin(n, q) >= k]`` (``upper``) or ``P[Bin(n, q) <= k]``.

    >>> binomial_tail(3, Fraction(1, 2), 2).to_dict(5)
    {'lower': '0.5', 'upper': '0.5'}
    """
    q = Fraction(q)
    if upper and k <= 0 or not upper and k >= n:
        return Interval.exact(1)
    if upper and k > n or not upper and k < 0:
        return Interval.exact(0)
    if n <= 200:           # small n: exact rationals
        p = 1 - q
        ks = range(k, n + 1) if upper else range(0, k + 1)
        return Interval.exact(sum(math.comb(n, j) * q**j * p**(n - j) for j in ks))
    with flint.ctx.workprec(prec):
        t = _pmf(n, k, q)
        total = arb(0)
        j = k
        qa = arb(q.numerator) / q.denominator
        ratio_qp = qa / (1 - qa)
        while True:
            total += t
            if upper:
                if j == n:
                    break
                r = arb(n - j) / (j + 1) * ratio_qp
                j += 1
            else:
                if j == 0:
                    break
                r = arb(j) / (n - j + 1) / ratio_qp
                j -= 1
            t = t * r
            if r < 1 and t / (1 - r) < total * arb(2) ** (-prec // 2):
                # every further term is <= t r^i (the ratio decreases away from the mode)
                total += arb(0).union(t / (1 - r))
                break
        return arb_to_interval(total)


def _pmf_range(n: int, q: Fraction, a: int, b: int) -> list:
    """arb balls of P[Bin(n, q) = k] for a <= k <= b (ratio recursion from k = a)."""
    t = _pmf(n, a, q)
    qa = arb(q.numerator) / q.denominator
    r_qp = qa / (1 - qa)
    out = [t]
    for k in range(a, b):
        t = t * (arb(n - k) / (k + 1)) * r_qp
        out.append(t)
    return out


def deviation_probability(N, q, T, d: int = 0, prec: int = 256, width: int = 25) -> Interval:
    """Certified ``P[|d_hat - d| > T]`` with d of the N users holding the bit, noise q.

    ``M = X + Y`` with ``X ~ Bin(d, p)`` (the d holders) and ``Y ~ Bin(N - d, q)``;
    ``|d_hat - d| > T`` iff ``|M - E M| > T (p - q)``.  For d > 0 the law of X is
    summed over its mean +/- ``width`` standard deviations (the rest is a certified
    binomial tail, added as ``[0, mass]``) and the tails of Y at consecutive
    thresholds by ``G(u + 1) = G(u) - P[Y = u]``.

    >>> deviation_probability(2, Fraction(1, 4), Fraction(0))    # |M - 1/2| > 0 always
    Interval[1, 1]
    >>> deviation_probability(3, Fraction(1, 4), Fraction(1, 2), d=1)
    Interval[31/64, 31/64]
    """
    N = domains.N.parse(N)
    q = Fraction(domains.Q.parse(q))
    T = Fraction(T)
    if T < 0:
        raise domains.ParameterError(f"T must be >= 0, got {T}")
    if not 0 <= d <= N:
        raise domains.ParameterError(f"d must be in [0, N], got {d}")
    p = 1 - q
    centre, half = p * d + q * (N - d), T * (p - q)
    if d == 0:
        hi = math.floor(centre + half) + 1        # M > centre + half
        lo = math.ceil(centre - half) - 1         # M < centre - half
        a = binomial_tail(N, q, hi, True, prec)
        b = binomial_tail(N, q, lo, False, prec)
        return Interval(a.lower + b.lower, min(Fraction(1), a.upper + b.upper))
    n = N - d
    if N <= 200:                                  # small: exact rationals
        tot = Fraction(0)
        for x in range(d + 1):
            px = math.comb(d, x) * p**x * q**(d - x)
            for y in range(n + 1):
                if abs(x + y - centre) > half:
                    tot += px * math.comb(n, y) * q**y * p**(n - y)
        return Interval.exact(tot)
    sd = math.sqrt(d * float(p * q))
    x0 = max(0, int(d * float(p) - width * sd) - 1)
    x1 = min(d, int(d * float(p) + width * sd) + 1)
    with flint.ctx.workprec(prec):
        px = _pmf_range(d, p, x0, x1)
        out_mass = (binomial_tail(d, p, x1 + 1, True, prec).upper
                    + binomial_tail(d, p, x0 - 1, False, prec).upper)
        # upper thresholds u(x) = floor(centre + half - x) + 1, decreasing in x
        u_of = [math.floor(centre + half - x) + 1 for x in range(x0, x1 + 1)]
        l_of = [math.ceil(centre - half - x) - 1 for x in range(x0, x1 + 1)]

        def tails(th, upper):
            lo_t, hi_t = min(th), max(th)
            lo_c, hi_c = max(lo_t, 0), min(hi_t, n)
            vals = {}
            if lo_c <= hi_c:
                pm = _pmf_range(n, q, lo_c, hi_c)
                if upper:
                    g = _interval_arb(binomial_tail(n, q, lo_c, True, prec))
                    for i, u in enumerate(range(lo_c, hi_c + 1)):
                        vals[u] = g
                        g = g - pm[i]
                else:
                    h = _interval_arb(binomial_tail(n, q, hi_c, False, prec))
                    for i, u in enumerate(range(hi_c, lo_c - 1, -1)):
                        vals[u] = h
                        h = h - pm[hi_c - lo_c - i]
            for t in th:
                if t not in vals:
                    vals[t] = arb(1) if (upper and t <= 0) or (not upper and t >= n) else arb(0)
            return vals

        G, H = tails(u_of, True), tails(l_of, False)
        total = arb(0)
        for i, x in enumerate(range(x0, x1 + 1)):
            total += px[i] * (G[u_of[i]] + H[l_of[i]])
        iv = arb_to_interval(total)
    return Interval(max(Fraction(0), iv.lower), min(Fraction(1), iv.upper + out_mass))


def _interval_arb(iv: Interval) -> arb:
    lo = arb(iv.lower.numerator) / iv.lower.denominator
    hi = arb(iv.upper.numerator) / iv.upper.denominator
    return lo.union(hi)
