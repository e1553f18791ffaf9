"""Published upper bounds on the privacy of shuffling n reports of an eps0-LDP randomizer.

These are the *peers'* bounds, implemented here from the mathematics of their
papers (no code copied).  They hold for every pair of neighbouring collections
(substitution of one user's input) and depend on the randomizer only through
its local privacy level ``eps0``.  For L-bit randomized response with flip
probability ``q`` (``p = 1 - q``) the local level is exact and rational in
``e^eps0``: ``e^eps0 = (p/q)^L`` (:func:`eps0_rr`).

Bounds implemented
------------------

* :func:`fmt21_closed_form` -- Feldman, McMillan, Talwar, "Hiding among the
  clones" (FOCS 2021), Theorem 3.1: for ``eps0 <= log(n / (16 log(2/delta)))``
  the shuffled output is ``(eps, delta)``-DP with

      eps = log(1 + (e^eps0 - 1)/(e^eps0 + 1) * (8 sqrt(e^eps0 log(4/delta)) / sqrt(n) + 8 e^eps0 / n)).

  Evaluated with mpmath (50 digits) and labelled a floating evaluation.

* :func:`clone_delta` / :func:`clone_epsilon` -- the numerical clone bound.
  The clone reduction states that the shuffled output is ``(eps, delta)``-DP
  whenever the pair of laws on ``{0..n}^2``

      P = (A + D, C - A + 1 - D),   Q = (A + 1 - D, C - A + D),
      C ~ Bin(n - 1, r),  A | C ~ Bin(C, 1/2),  D ~ Bern(e^eps0 / (e^eps0 + 1))

  is.  ``variant="fmt21"`` is the clone lemma of FMT 2021 (Theorem 3.2,
  ``r = e^-eps0``); ``variant="fmt23"`` is the *stronger clone* of Feldman,
  McMillan, Talwar, "Stronger privacy amplification by shuffling for Renyi and
  approximate DP" (SODA 2023), ``r = 2/(e^eps0 + 1)``.  Both are evaluated in
  ball arithmetic (python-flint ``arb``) with a rigorous bound on the
  truncated binomial tails, so the returned value is a *certified enclosure of
  the peer's bound* (``Interval``); the bound itself is the peer's theorem.

Balle et al. 2019 (privacy blanket) and the variation-ratio bound of Wang et
al. 2024 are *not* implemented here (see docs/peers.md).

Evaluation of the clone pair (derivation, used by :func:`clone_delta`)
---------------------------------------------------------------------

The total ``C + 1`` of the two coordinates has the same law under P and Q, so
``delta = sum_c Bin(n-1, r)(c) h_c``, with ``h_c`` the hockey-stick divergence
of the first coordinate given ``C = c``.  With ``a = e^eps0/(e^eps0+1)`` and
``b_c`` the ``Bin(c, 1/2)`` pmf, ``P_c(k) = a b_c(k-1) + (1-a) b_c(k)`` and
``Q_c(k) = a b_c(k) + (1-a) b_c(k-1)``.  Since ``b_c(k-1)/b_c(k) = k/(c+1-k)``
is increasing in ``k``, ``P_c(k) - lam Q_c(k) > 0`` exactly for
``k > s (c+1)`` with ``t = (lam a - (1-a))/(a - lam (1-a))`` and
``s = t/(1+t)`` (for ``1 <= lam < e^eps0``), and with the tails
``T_c(j) = P[Bin(c,1/2) >= j]``, ``k* = floor(s (c+1)) + 1``:

    h_c = a T_c(k*-1) + (1-a) T_c(k*) - lam (a T_c(k*) + (1-a) T_c(k*-1)).

``T`` and ``b`` are carried from ``c`` to ``c + 1`` by the exact recurrences
``T_{c+1}(j) = T_c(j) + b_c(j-1)/2`` and
``b_{c+1}(j-1) = b_c(j-1) (c+1)/(2 (c+2-j))``.
The summation runs over ``c`` in a window around the mean of ``C``; the mass
outside is bounded by Hoeffding, ``P[|C - (n-1) r| >= t] <= 2 exp(-2 t^2/(n-1))``,
and added to the upper end (``h_c <= 1``).

>>> iv = clone_delta(100, 3, 1, variant="fmt23")   # e^eps0 = 3, lam = e^eps = 1
>>> 0 < float(iv.lower) <= float(iv.upper) < 1
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from flint import arb, ctx, fmpz

from . import domains
from .errors import ParameterError
from dataclasses import replace as _replace
from .interval import Interval, arb_to_interval

_DELTA = _replace(domains.TARGET, name="delta")

__all__ = ["eps0_rr", "exp_eps0_rr", "fmt21_closed_form", "clone_delta", "clone_epsilon",
           "PeerBound", "peer_bounds", "VARIANTS"]

VARIANTS = ("fmt21", "fmt23")


def exp_eps0_rr(L, q) -> Fraction:
    """``e^eps0 = (p/q)^L`` of L-bit randomized response (exact).

    >>> exp_eps0_rr(2, "1/4")
    Fraction(9, 1)
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    return ((1 - q) / q) ** L


def eps0_rr(L, q) -> float:
    """``eps0 = L log((1-q)/q)`` as a float (for display)."""
    return float(mpmath.log(mpmath.mpf(exp_eps0_rr(L, q).numerator) / exp_eps0_rr(L, q).denominator))


def _parse_e0(e0) -> Fraction:
    e0 = domains.to_fraction(e0, "e^eps0")
    if e0 <= 1:
        raise ParameterError(f"e^eps0 must be a number > 1, got {e0}")
    return e0


def _parse_n(n) -> int:
    return domains.N.parse(n)


def fmt21_closed_form(n, e0, delta):
    """FMT 2021 Theorem 3.1 closed form, or ``None`` outside its validity condition.

    ``n`` users, ``e0 = e^eps0``, target ``delta``; returns eps as an mpmath
    ``mpf`` (floating evaluation, 50 digits) when
    ``eps0 <= log(n / (16 log(2/delta)))``, else ``None``.

    >>> float(fmt21_closed_form(10**6, 3, "1e-6"))    # doctest: +ELLIPSIS
    0.0...
    >>> fmt21_closed_form(100, 3, "1e-6") is None
    True
    """
    n = _parse_n(n)
    e0 = _parse_e0(e0)
    d = _DELTA.parse(delta)
    with mpmath.workdps(50):
        E = mpmath.mpf(e0.numerator) / e0.denominator
        D = mpmath.mpf(d.numerator) / d.denominator
        if mpmath.log(E) > mpmath.log(n / (16 * mpmath.log(2 / D))):
            return None
        inner = (E - 1) / (E + 1) * (8 * mpmath.sqrt(E * mpmath.log(4 / D)) / mpmath.sqrt(n)
                                     + 8 * E / n)
        return +mpmath.log(1 + inner)


def _clone_rate(e0: Fraction, variant: str) -> Fraction | None:
    if variant == "fmt23":
        return Fraction(2) / (e0 + 1)
    if variant == "fmt21":
        return None  # e^-eps0 as an exact rational: 1/e0
    raise ParameterError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")


def _hoeffding_t(m: int, tol: float) -> int:
    """t with 2 exp(-2 t^2/m) <= tol (integer, generous)."""
    return int(math.ceil(math.sqrt(m / 2 * math.log(2 / tol)))) + 2


def clone_delta(n, e0, lam, *, variant: str = "fmt23", prec: int = 128,
                tail_tol: float = 1e-40) -> Interval:
    """Certified enclosure of the clone bound ``delta(lam)`` (see module doc).

    ``n`` users, ``e0 = e^eps0 > 1`` and ``lam = e^eps >= 1`` exact rationals.
    The truncated binomial mass (at most ``tail_tol``) is added to the upper end.

    >>> clone_delta(10, 3, 3).upper        # lam = e^eps0: the pair is (eps0, 0)-DP
    Fraction(0, 1)
    """
    n = _parse_n(n)
    e0 = _parse_e0(e0)
    lam = domains.LAM.parse(lam)
    if lam >= e0:
        return Interval.exact(0)
    r = _clone_rate(e0, variant)
    if r is None:
        r = 1 / e0
    a = e0 / (e0 + 1)
    t = (lam * a - (1 - a)) / (a - lam * (1 - a))
    s = t / (1 + t)
    m = n - 1

    def kstar(c):
        v = s * (c + 1)
        return v.numerator // v.denominator + 1

    with ctx.workprec(prec):
        A = arb(a.numerator) / a.denominator
        LAMb = arb(lam.numerator) / lam.denominator
        R = arb(r.numerator) / r.denominator
        if m == 0:
            c0, c1, tail = 0, 0, arb(0)
        else:
            mu = m * r
            tt = _hoeffding_t(m, tail_tol)
            c0 = max(0, math.floor(mu) - tt)
            c1 = min(m, math.ceil(mu) + tt)
            tail = arb(0) if (c0 == 0 and c1 == m) else arb(tail_tol)
        # initial state at c0: j = k*(c0), T = P[Bin(c0,1/2) >= j], B = b_{c0}(j-1)
        j = kstar(c0)
        if c0 == 0:
            T, B = arb(0), arb(1)  # j = 1: T_0(1) = 0, b_0(0) = 1
        else:
            T = (arb(1) if j <= 0 else arb(0) if j > c0 else arb(0.5).beta_lower(j, c0 - j + 1, 1))
            B = arb(fmpz(math.comb(c0, j - 1))) / arb(2) ** c0
        w = arb(fmpz(math.comb(m, c0))) * R ** c0 * (1 - R) ** (m - c0)
        ratio = R / (1 - R) if r < 1 else None
        total = arb(0)
        for c in range(c0, c1 + 1):
            T1 = T + B  # T_c(j-1)
            h = A * T1 + (1 - A) * T - LAMb * (A * T + (1 - A) * T1)
            total += w * h
            if c == c1:
                break
            # advance to c+1
            T = T + B / 2                      # T_{c+1}(j)
            B = B * (c + 1) / (2 * (c + 2 - j))  # b_{c+1}(j-1)
            jn = kstar(c + 1)
            if jn == j + 1:
                Bj = B * (c + 2 - j) / j       # b_{c+1}(j)
                T = T - Bj
                B = Bj
            elif jn != j:  # pragma: no cover - s < 1 makes k* step by 0 or 1
                raise ArithmeticError("clone threshold jumped")
            j = jn
            w = w * (m - c) / (c + 1) * ratio
        iv = arb_to_interval(total)
        tail_iv = arb_to_interval(tail)
    return Interval(max(iv.lower, Fraction(0)), min(iv.upper + tail_iv.upper, Fraction(1)))


def clone_epsilon(n, e0, delta, *, variant: str = "fmt23", rel: float = 1e-6) -> Interval:
    """Certified enclosure ``[eps_lo, eps_hi]`` of the clone bound's ``eps(delta)``.

    ``eps_hi``: the bound's delta is certified ``<= delta`` there (so the
    shuffled mechanism is ``(eps_hi, delta)``-DP by the peer's theorem);
    ``eps_lo``: certified ``> delta``.  Bisection on rational ``lam = e^eps``
    until ``lam_hi/lam_lo - 1 <= rel``.
    """
    n = _parse_n(n)
    e0 = _parse_e0(e0)
    d = _DELTA.parse(delta)
    lo, hi = Fraction(1), e0
    lo_cert = Fraction(1)  # largest lam where delta > target is certified (1: trivially eps >= 0)
    if clone_delta(n, e0, lo, variant=variant).upper <= d:
        hi = lo
    else:
        while hi / lo - 1 > rel:
            mid = _round_rational((lo + hi) / 2)
            iv = clone_delta(n, e0, mid, variant=variant)
            if iv.upper <= d:
                hi = mid
            else:  # undecided counts as "not met" for the upper end, but is not certified
                lo = mid
                if iv.lower > d:
                    lo_cert = mid
        lo = lo_cert
    with ctx.workprec(128):
        elo = arb_to_interval(arb(lo.numerator).log() - arb(lo.denominator).log()).lower
        ehi = arb_to_interval(arb(hi.numerator).log() - arb(hi.denominator).log()).upper
    return Interval(max(elo, Fraction(0)), max(ehi, Fraction(0)))


def _round_rational(x: Fraction, bits: int = 64) -> Fraction:
    """A dyadic rational near ``x`` (keeps bisection numbers small)."""
    return Fraction(round(x * 2**bits), 2**bits)


@dataclass(frozen=True)
class PeerBound:
    """One peer's eps(delta) at given parameters.

    ``eps`` is an upper bound on the shuffled mechanism's eps by that paper's
    theorem (``None`` when the theorem's validity condition fails);
    ``certified`` tells whether the number is a certified upper end (ball
    arithmetic) or a floating evaluation.
    """

    name: str
    citation: str
    eps: float | None
    certified: bool
    note: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "citation": self.citation,
                "eps": None if self.eps is None else repr(self.eps),
                "certified": self.certified, "note": self.note}


def peer_bounds(n, L, q, delta) -> list[PeerBound]:
    """Every implemented peer bound's eps(delta) for n users of L-bit RR(q)."""
    e0 = exp_eps0_rr(L, q)
    out = []
    cf = fmt21_closed_form(n, e0, delta)
    out.append(PeerBound("fmt21-closed", "Feldman-McMillan-Talwar FOCS 2021, Thm 3.1",
                         None if cf is None else float(cf), False,
                         "floating evaluation (mpmath)" if cf is not None else
                         "validity condition eps0 <= log(n/(16 log(2/delta))) fails"))
    for v, cite in (("fmt21", "Feldman-McMillan-Talwar FOCS 2021, Thm 3.2 (clone, r = e^-eps0)"),
                    ("fmt23", "Feldman-McMillan-Talwar SODA 2023 (stronger clone, r = 2/(e^eps0+1))")):
        iv = clone_epsilon(n, e0, delta, variant=v)
        out.append(PeerBound(f"clone-{v}", cite, float(iv.upper), True,
                             "upper end of a certified enclosure"))
    return out
