"""An all-pairs bound for shuffled L-bit RR: the blanket count with the exact divergence.

exactdp's own argument (proved in ``proofs/blanket_count.py``; not a published
bound).  Fix a neighbouring pair: user 1 holds ``x`` in D and ``x'`` in D', the
other ``n - 1`` users hold ``y_2..y_n`` in both; ``d`` = Hamming(x, x'),
``P_x`` = the L-bit RR law of ``x``'s report, ``lam >= 1``,
``D_lam(P||Q) = sum (P - lam Q)_+``.

1. *Blanket.*  Every output has probability ``>= q^L`` under every input, so
   ``P_y = gamma U + (1 - gamma) Q_y`` with ``U`` uniform on ``{0,1}^L``,
   ``gamma = (2q)^L`` and ``Q_y`` a law.  Draw each other user's report by
   first drawing ``B_i ~ Bern(gamma)`` (``U`` if 1, ``Q_{y_i}`` if 0).  Given
   the set ``S = {i : B_i = 1}`` (``|S| = m``), the shuffled histogram is the
   histogram of (user 1's report and the ``m`` reports of S, a multiset) plus
   the histogram of the reports outside S -- independent of the rest and
   with the same law under D and D'.  Data processing (a Markov kernel of the
   multiset) and ``D_lam(P (x) R || Q (x) R) = D_lam(P || Q)`` give the
   conditional divergence ``<= delta_m^(d)(lam)``, the divergence between
   "x's report + m uniform reports, unordered" and the same with ``x'``; the
   mixture over S (same weights under D and D') and joint convexity of
   ``D_lam`` give

       delta(lam) <= sum_m Bin(n - 1, gamma)(m) delta_m^(d)(lam).        (1)

2. *Monotone in m.*  The multiset with ``m + 1`` uniform reports is a kernel of
   the one with ``m`` and an independent uniform report, so
   ``delta_{m+1} <= delta_m``; truncating (1) at ``m_max`` and bounding the
   rest by ``P(M >= m_max) delta_{m_max}`` keeps an upper bound.  ``m_max = 0``
   is the *local* bound ``delta <= D_lam(P_x || P_x')`` (plain post-processing).

3. *Exact value.*  Exchangeability of the unordered tuple gives the likelihood
   ``P(w_0..w_m) = 2^(-Lm) (1/(m+1)) sum_j P_x(w_j)`` on ordered tuples, so

       delta_m^(d)(lam) = 2^L/(m+1) E[(sum_{j=0}^m g(W_j))_+],
       g = P_x - lam P_x',  W_j iid uniform,                              (2)

   and ``g(w)`` depends only on the class (a, b) of ``w`` -- ``a`` coordinates
   agreeing with x among the d changed ones, ``b`` disagreeing among the
   other ``L - d`` (``C(d, a) C(L-d, b)`` vectors).  With ``q = u/v`` and
   ``lam = r/s``, ``s v^L g`` is an integer, so (2) is an exact rational: the
   law of the sum of ``m`` iid class values as an integer dictionary, the last
   term by sorted prefix sums.  (With (1), (2) is Balle et al.'s blanket-lemma
   expression ``E[(sum_{i<=M} l_i)_+]/(gamma n)``, ``M ~ Bin(n, gamma)``,
   since ``Bin(n-1, g)(m)/(m+1) = Bin(n, g)(m+1)/(n g)``: this module proves
   that lemma for L-bit RR and evaluates it exactly instead of by a tail
   inequality; :mod:`exactdp.apps.blanket_mgf` bounds the same expectation.)

The bound is the maximum over ``d = 1..L`` of the truncated (1) (every pair is
one of these up to coordinate permutations and flips, which preserve U; the
reverse order is the same ``d``).  The binomial weights are arb balls, the
``delta_m`` exact, so the result is a certified enclosure; its upper end is a
valid bound.  It is strictly below ``eps0`` for every ``delta > 0`` (the local
term is), and it is what amplifies where few reports are blanket: L = 5,
n = 10^2 and L = 40, n = 10^7 (docs/peers.md).

>>> from fractions import Fraction as F
>>> blanket_count_delta(3, 2, F(1, 4), F(2), m_max=0).upper   # the local bound, d = L
Fraction(7, 16)
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from fractions import Fraction
from math import comb

from flint import arb, ctx

from ..core import domains
from ..core.errors import ParameterError
from ..core.interval import Interval, arb_to_interval
from .peers import bisect_epsilon, exp_eps0_rr

__all__ = ["blanket_count_delta", "blanket_count_epsilon", "delta_m", "NAME", "CITATION"]

NAME = "blanket-exact-count"
CITATION = ("exactdp: blanket decomposition P_y = (2q)^L U + ..., conditioned on the number of "
            "blanket reports, with the exact divergence of user 1's report among m uniform "
            "reports (proofs/blanket_count.py; not a published bound)")

#: largest dictionary of m-fold sums built per (d, m, lam) before m stops growing
SIZE_CAP = 20000


def _classes(L: int, q: Fraction, lam: Fraction, d: int) -> list[tuple[int, int]]:
    """``[(G, count)]``: ``G = s v^L g(w)`` (an integer) and the number of ``w`` in the class."""
    u, v = q.numerator, q.denominator
    r, s = lam.numerator, lam.denominator
    out = defaultdict(int)
    for a in range(d + 1):
        for b in range(L - d + 1):
            al = a + (L - d - b)          # coordinates where w agrees with x
            alp = L - a - b               # coordinates where w agrees with x'
            G = s * (v - u) ** al * u ** (L - al) - r * (v - u) ** alp * u ** (L - alp)
            out[G] += comb(d, a) * comb(L - d, b)
    return sorted(out.items())


def _last_term(sums: dict, single: list[tuple[int, int]]) -> int:
    """``sum_{S, G} cnt_S cnt_G (S + G)_+`` by sorted prefix sums over ``single``."""
    gs = [g for g, _ in single]
    suf_c, suf_s = [0] * (len(single) + 1), [0] * (len(single) + 1)
    for i in range(len(single) - 1, -1, -1):
        g, c = single[i]
        suf_c[i] = suf_c[i + 1] + c
        suf_s[i] = suf_s[i + 1] + c * g
    tot = 0
    for S, cS in sums.items():
        i = bisect.bisect_right(gs, -S)
        tot += cS * (S * suf_c[i] + suf_s[i])
    return tot


def delta_m(L: int, q: Fraction, lam: Fraction, d: int, m: int) -> Fraction:
    """Exact ``delta_m^(d)(lam)``, (2) of the module doc (no argument checking)."""
    ds = _deltas(L, q, lam, d, m)
    return ds[m] if m < len(ds) else Fraction(0)     # stopped at a zero: all later are 0


def _deltas(L, q, lam, d, m_max, cap=None):
    """``[delta_0, ..., delta_k]`` exactly, ``k <= m_max`` as far as the m-fold sum
    dictionary stays within ``cap`` entries."""
    single = _classes(L, q, lam, d)
    scale = lam.denominator * q.denominator ** L
    out = []
    sums = {0: 1}                       # law (counts) of the sum of m class values
    for m in range(m_max + 1):
        out.append(Fraction(_last_term(sums, single), (m + 1) * 2 ** (L * m) * scale))
        if m == m_max or out[-1] == 0:
            break
        if cap is not None and len(sums) * len(single) > 4 * cap:
            break
        nxt = defaultdict(int)
        for S, cS in sums.items():
            for g, c in single:
                nxt[S + g] += cS * c
        if cap is not None and len(nxt) > cap:
            break
        sums = nxt
    return out


def _weights(n: int, gamma: Fraction, k: int, prec: int):
    """arb balls ``[Bin(n-1, gamma)(m) for m < k] + [P(M >= k)]``."""
    G = arb(gamma.numerator) / gamma.denominator
    ws = []
    for m in range(k):
        if m > n - 1:
            ws.append(arb(0))
            continue
        ws.append(arb(comb(n - 1, m)) * G ** m * (1 - G) ** (n - 1 - m))
    tail = 1 - sum(ws, arb(0))
    ws.append(tail if k <= n - 1 else arb(0))
    return ws


def blanket_count_delta(n, L, q, lam, *, m_max: int = 6, prec: int = 256) -> Interval:
    """Certified enclosure of this module's bound on ``delta(lam)`` over every
    neighbouring pair: max over ``d`` of (1) truncated at ``m_max`` (less where the
    exact sums grow beyond :data:`SIZE_CAP`); ``[0, 0]`` from ``lam >= e^eps0``."""
    n = domains.N.parse(n)
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    lam = domains.LAM.parse(lam)
    if isinstance(m_max, bool) or not isinstance(m_max, int) or not 0 <= m_max <= 64:
        raise ParameterError(f"m_max must be an integer in [0, 64], got {m_max!r}")
    if lam >= exp_eps0_rr(L, q):
        return Interval.exact(0)
    rho = (1 - q) / q
    gamma = (2 * q) ** L
    best = None
    with ctx.workprec(prec):
        for d in range(1, L + 1):
            if rho ** d <= lam:              # likelihood ratio <= lam: delta_0 = 0, so all are
                continue
            ds = _deltas(L, q, lam, d, min(m_max, n - 1), cap=SIZE_CAP)
            ws = _weights(n, gamma, len(ds) - 1, prec)
            tot = arb(0)
            for w, dm in zip(ws, ds):
                tot += w * (arb(dm.numerator) / dm.denominator)
            iv = arb_to_interval(tot)
            if best is None or iv.upper > best.upper:
                best = iv
    if best is None:
        return Interval.exact(0)
    one = Fraction(1)
    return Interval(min(max(best.lower, Fraction(0)), one), min(max(best.upper, Fraction(0)), one))


def blanket_count_epsilon(n, L, q, delta, *, m_max: int = 6, rel: float = 1e-6) -> Interval:
    """Certified ``[eps_lo, eps_hi]`` of this bound's ``eps(delta)`` (bisection on rational lam)."""
    e0 = exp_eps0_rr(domains.L.parse(L), domains.Q.parse(q))
    return bisect_epsilon(lambda lam: blanket_count_delta(n, L, q, lam, m_max=m_max), e0, delta,
                          rel=rel)
