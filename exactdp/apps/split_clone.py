"""The split-clone bound: a proved all-pairs upper bound for shuffled L-bit RR.

Setting (000_3d8ddaba8b46cf9c.txt §1.3): ``n`` users, each reports its vector
``x`` in ``{0,1}^L`` with every bit flipped independently with probability
``q < 1/2`` (``p = 1 - q``); the analyst sees the multiset of reports.  A
neighbouring pair changes user 1's vector from ``x1`` to ``x1'``; the other
``n - 1`` vectors are arbitrary.  ``R(x)`` is the law of one report.

Theorem (split clone; proved below, checked in ``proofs/split_clone.py``)
--------------------------------------------------------------------------
Let ``h`` be the Hamming distance of ``x1, x1'`` and ``e_h = (p/q)^h``.  Suppose
``Q1, Q0, M`` are probability laws on ``{0,1}^L`` and ``a1 >= a0 >= 0`` with
``s = a1 + a0 <= 1`` such that

    R(x1)  = a1 Q1 + a0 Q0 + (1 - s) M,
    R(x1') = a0 Q1 + a1 Q0 + (1 - s) M,                               (1)
    R(x_j) >= (r/2) (Q1 + Q0)  pointwise, for every other user j.      (2)

Then for every ``lam >= 1`` and in both orders of the pair,

    D_lam(shuffle(x1, x_2..x_n) || shuffle(x1', x_2..x_n)) <= s * D_lam(Pi_a || Pi_{1-a}),   (3)

with ``a = a1/s`` and ``Pi_a`` the law of ``(A + Delta, C - A + 1 - Delta)``,
``C ~ Bin(n-1, r)``, ``A | C ~ Bin(C, 1/2)``, ``Delta ~ Bern(a)``.

Proof.  (i) *Split.*  The law of the shuffled output is affine in user 1's law,
so by (1) the two outputs are ``s X + (1-s) Z`` and ``s Y + (1-s) Z`` with
``X, Y`` the outputs when user 1 reports from ``a Q1 + (1-a) Q0`` resp.
``(1-a) Q1 + a Q0`` and ``Z`` the output when user 1 reports from ``M``.  For
``lam >= 1`` and every event ``E``:
``s X(E) + (1-s) Z(E) - lam (s Y(E) + (1-s) Z(E)) <= s (X(E) - lam Y(E))``,
so ``D_lam <= s D_lam(X || Y)``.
(ii) *Clones.*  By (2) write ``R(x_j) = (r/2) Q1 + (r/2) Q0 + (1 - r) LO_j``
(``LO_j`` a law; ``r <= 1``).  Sample every other user as: with probability
``r`` a *clone*, labelled 1 or 0 with probability 1/2 each, reporting from
``Q1`` resp. ``Q0``; else a report from ``LO_j``.  User 1 is labelled 1 with
probability ``a`` (under X; ``1 - a`` under Y) and reports from ``Q_label``.
Let ``S`` be the set of clones, ``n1, n0`` the numbers of label-1 and label-0
reports (user 1 included).  The output multiset is the union of ``n1``
independent ``Q1`` draws, ``n0`` independent ``Q0`` draws and the ``LO_j``
draws of ``j not in S``: a function of ``(n1, n0, S)`` and independent
randomness, whoever holds which label (the output is shuffled).  ``S`` is
independent of user 1 and of the labels, and ``P(n1, n0 | S)`` depends on
``S`` only through ``|S| = n1 + n0 - 1`` (the clones' labels are fair coins),
so the conditional law of ``S`` given ``(n1, n0)`` is the law of ``S`` given
``|S| = n1 + n0 - 1`` -- the same under X and Y.  Hence the output is one
Markov kernel applied to the law of ``(n1, n0)``, which is ``Pi_a`` under X
and ``Pi_{1-a}`` under Y; the hockey-stick divergence does not increase under
a Markov kernel (data processing).  Both orders: swapping ``Q1, Q0`` turns the
decomposition of the reversed pair into (1) with the same ``a``, and
``Pi_{1-a}`` is ``Pi_a`` with its coordinates swapped.  QED.

The FMT 2023 stronger clone is the case ``s = 1`` (``M`` unused).  The
variation-ratio pair of Wang et al. (PVLDB 2024), as implemented in
:func:`exactdp.apps.peers.vr_delta`, uses the same decomposition but
*forgets* whether user 1 reported from ``M``; ``proofs/split_clone.py``
refutes that step with an exact counterexample (n = 2, L = 2), so exactdp does
not use it as an upper end.  Here step (i) pays ``s`` instead.

Specialisation to L-bit RR (what is evaluated)
----------------------------------------------
By bit flips (XOR by ``x1``) and a coordinate permutation every pair is
``x1 = 0^L``, ``x1' = 1^h 0^(L-h)``; these maps act on every user at once and
leave the mechanism's law invariant, so they do not change the divergence.
For a report ``y`` with ``i`` ones among the ``h`` changed coordinates and
``o`` ones outside: ``P1(y) = p^(L-i-o) q^(i+o)``, ``P0(y) = p^(L-h+i-o)
q^(h-i+o)``; ``D = P1 - P0``, ``S = P1 + P0``.  Take ``a = e_h/(e_h+1)``,
``k = (e_h-1)/(e_h+1)``, ``t = s k`` (so ``a1 - a0 = t``) and any ``g`` with
``|D|/t <= g <= S/s`` pointwise and ``sum_y g(y) = 2``; then
``Q1 = (g + D/t)/2``, ``Q0 = (g - D/t)/2``, ``M = (S - s g)/(2 (1 - s))`` satisfy
(1) (both ``Q``'s are non-negative, sum to one each since ``sum D = 0``).
``min_x R(x)(y) = q^L`` for every ``y`` (``x`` the complement of ``y``), so (2)
holds with ``r = 2 q^L / max_y g(y)``.  Feasibility needs
``s >= s_min = beta_h / k`` (``beta_h = TV(P1, P0) = sum_y |D|/2``).  ``g`` is the
water-filling ``clamp(c, |D|/t, S/s)`` with a rational level ``c`` for which
``sum_y g >= 2`` (lowering ``g`` where it exceeds ``|D|/t`` reaches exactly 2
without raising its maximum), so ``max g <= max(c, max |D|/t)``.  The bound at
distance ``h`` is the least of (3) over a fixed grid of ``s`` in
``[s_min, 1]``; the bound over all pairs is the largest over ``h = 1..L``.
Every quantity is an exact rational; (3) is evaluated in ball arithmetic by
:func:`exactdp.apps.peers.mixture_clone_delta` (with ``W = 0``), so the
returned interval's upper end is certified.

>>> from fractions import Fraction as F
>>> iv = split_clone_delta(100, 5, F(1, 4), F(50))
>>> 0 < iv.upper < 1
True
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..core import domains
from ..core.interval import Interval
from .peers import bisect_epsilon, exp_eps0_rr, mixture_clone_delta

__all__ = ["split_clone_delta", "split_clone_epsilon", "split_parameters", "NAME", "CITATION",
           "S_GRID"]

NAME = "split-clone"
CITATION = ("exactdp split-clone bound (exactdp/apps/split_clone.py, proofs/split_clone.py): "
            "clone reduction with the common part of the changed user's pair split off")

#: positions of ``s`` in ``[s_min, 1]``: ``s = s_min + u (1 - s_min)``
S_GRID = (Fraction(0), Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20), Fraction(1, 5),
          Fraction(1, 2), Fraction(1))


def _classes(L: int, q: Fraction, h: int):
    """``[(multiplicity, P1, P0)]`` over the report classes ``(i, o)`` of the pair at distance h."""
    p = 1 - q
    out = []
    for i in range(h + 1):
        for o in range(L - h + 1):
            mult = math.comb(h, i) * math.comb(L - h, o)
            P1 = p ** (L - i - o) * q ** (i + o)
            P0 = p ** (L - h + i - o) * q ** (h - i + o)
            out.append((mult, P1, P0))
    return out


def split_parameters(L, q, h: int, u) -> tuple[Fraction, Fraction, Fraction]:
    """Exact ``(s, a, r)`` of the split-clone decomposition at distance ``h``, grid point ``u``.

    ``s = s_min + u (1 - s_min)``, ``a = e_h/(e_h+1)`` and ``r = 2 q^L / gmax``
    with ``gmax`` an exact rational upper bound on the water-filled ``max g``
    (module doc).  ``u = 0`` is the tightest split (``g = |D|/t``); ``u = 1`` the
    stronger clone (``s = 1``, ``g = S``, ``r = 2 q^L / max S``).

    >>> split_parameters(1, Fraction(1, 4), 1, 1)      # L = 1, s = 1: the stronger clone
    (Fraction(1, 1), Fraction(3, 4), Fraction(1, 2))
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    u = Fraction(u)
    p = 1 - q
    eh = (p / q) ** h
    k = (eh - 1) / (eh + 1)
    cls = _classes(L, q, h)
    beta = sum(m * abs(P1 - P0) for m, P1, P0 in cls) / 2
    smin = beta / k
    s = smin + u * (1 - smin)
    t = s * k
    lo = [abs(P1 - P0) / t for _, P1, P0 in cls]
    hi = [(P1 + P0) / s for _, P1, P0 in cls]
    lmax = max(lo)

    def total(c):
        return sum(m * min(max(c, a), b) for (m, _, _), a, b in zip(cls, lo, hi))
    if total(lmax) >= 2:
        gmax = lmax
    else:   # bisection on the level c in (lmax, max hi]: total is non-decreasing in c
        c_lo, c_hi = lmax, max(hi)
        for _ in range(60):
            mid = Fraction(round((c_lo + c_hi) / 2 * 2**64), 2**64)
            if mid <= c_lo or mid >= c_hi:
                break
            if total(mid) >= 2:
                c_hi = mid
            else:
                c_lo = mid
        gmax = c_hi            # total(c_hi) >= 2 holds throughout (max hi: sum of S/s = 2/s >= 2)
    r = min(Fraction(1), 2 * q ** L / gmax)
    return s, eh / (eh + 1), r


def _delta_h(n, L, q, h, lam) -> Interval:
    """Least certified bound (3) at distance ``h`` over :data:`S_GRID` (by upper end)."""
    best = None
    for u in S_GRID:
        s, a, r = split_parameters(L, q, h, u)
        if lam >= a / (1 - a):           # Pi_a vs Pi_{1-a} has likelihood ratio <= e_h
            return Interval.exact(0)
        iv = mixture_clone_delta(n, a, 1 - a, r, lam)
        iv = Interval(s * iv.lower, s * iv.upper)
        if best is None or iv.upper < best.upper:
            best = iv
    return best


def split_clone_delta(n, L, q, lam) -> Interval:
    """Certified enclosure of the split-clone bound on ``delta(lam)`` over every neighbouring
    pair (largest over the Hamming distance ``h`` of the changed user's two vectors)."""
    n = domains.N.parse(n)
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    lam = domains.LAM.parse(lam)
    if lam >= exp_eps0_rr(L, q):
        return Interval.exact(0)
    lo = up = Fraction(0)
    for h in range(L, 0, -1):
        iv = _delta_h(n, L, q, h, lam)
        lo, up = max(lo, iv.lower), max(up, iv.upper)
    return Interval(lo, min(up, Fraction(1)))


def split_clone_epsilon(n, L, q, delta, *, rel: float = 1e-6) -> Interval:
    """Certified ``[eps_lo, eps_hi]`` of the split-clone bound's ``eps(delta)`` (bisection on
    rational ``lam``; the bound is non-increasing in ``lam``)."""
    e0 = exp_eps0_rr(L, q)
    return bisect_epsilon(lambda lam: split_clone_delta(n, L, q, lam), e0, delta, rel=rel)
