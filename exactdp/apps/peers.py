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

* :func:`vr_delta` / :func:`vr_epsilon` -- the variation-ratio reduction of
  Wang et al., PVLDB 2024, with the exact (p, beta, q) of L-bit RR
  (:func:`rr_variation_ratio`), evaluated in arb (:func:`mixture_clone_delta`).
* :func:`blanket_delta` / :func:`blanket_epsilon` -- the privacy-blanket
  bounds (Hoeffding and Bennett forms) of Balle, Bell, Gascon, Nissim,
  CRYPTO 2019, with the exact blanket parameters of L-bit RR
  (:func:`rr_blanket_parameters`), evaluated in arb.

At L = 1 the variation-ratio pair *is* the stronger-clone pair (same numbers).

**The variation-ratio pair as implemented here is refuted for L >= 2**
(:data:`REFUTED`; ``proofs/split_clone.py``, record ``vr-forgetful-pair``): at
n = 2, L = 2, q = 1/10, lam = 729/10 it gives 81/100000 while the pair
(00 + 00) vs (11 + 00) has divergence 6561/100000.  The pair merges "user 1
reported from the common part" into the clone counts; with a common part
(``W > 0``, i.e. L >= 2) that step fails.  Whether the paper's theorem or this
transcription is at fault could not be checked offline.  It is kept as a
peer for comparison, but :mod:`exactdp.apps.guarantee` never takes it as an
upper end; :mod:`exactdp.apps.split_clone` is the corrected (proved) form.
* :func:`scw_delta` -- Su-Cheng-Wang (S&P 2026): the optimal (blanket) decomposition; for
  L-bit RR the untruncated blanket count, equal at L = 1 to the stronger-clone pair
  (evaluated there; for L >= 2 see :mod:`exactdp.apps.blanket_count`).
* :func:`koskela_delta` -- Koskela-Heikkila-Honkela (arXiv 2106.00477): the pair their
  FFT accountant evaluates -- Balle et al.'s 2-RR blanket pair at L = 1, the FMT'21 clone
  pair at L >= 2 -- evaluated certifiably (their discretisation is not).

Not implemented: Balle et al.'s generic-randomizer and k-RR closed forms.

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

from ..core import domains
from ..core.errors import ParameterError
from dataclasses import replace as _replace
from ..core.interval import Interval, arb_to_interval

_DELTA = _replace(domains.TARGET, name="delta")

__all__ = ["eps0_rr", "exp_eps0_rr", "fmt21_closed_form", "clone_delta", "clone_epsilon",
           "PeerBound", "peer_bounds", "VARIANTS", "rr_variation_ratio", "mixture_clone_delta",
           "vr_delta", "vr_epsilon", "rr_blanket_parameters", "blanket_delta", "blanket_epsilon",
           "BLANKET_METHODS", "bisect_epsilon", "CITATIONS", "certified_peer_deltas",
           "certified_peer_epsilons", "binomial_window", "REFUTED", "UNPROVED", "scw_delta",
           "scw_epsilon", "koskela_delta", "koskela_epsilon", "L1_ONLY"]

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


def binomial_window(m: int, r: Fraction, tol: float) -> tuple[int, int]:
    """``[c0, c1]`` with ``P[Bin(m, r) < c0] + P[Bin(m, r) > c1] <= tol``.

    The narrower of the Hoeffding window (``2 exp(-2 t^2/m)``) and the
    Chernoff relative-entropy window (``P[C >= k] <= exp(-m D(k/m || r))``
    above the mean, symmetric below, ``tol/2`` each side).  The Chernoff
    exponent is evaluated in floating point with one nat of slack, far more
    than its rounding error, so the guarantee holds.

    >>> binomial_window(10**6, Fraction(1, 100), 1e-40)[1] - 10**4 < 2000
    True
    """
    mu = m * r
    tt = _hoeffding_t(m, tol)
    c0, c1 = max(0, math.floor(mu) - tt), min(m, math.ceil(mu) + tt)
    rf = float(r)
    if not 0 < rf < 1:
        return c0, c1
    need = math.log(2 / tol) + 1.0

    def kl(a):
        out = 0.0
        if a > 0:
            out += a * math.log(a / rf)
        if a < 1:
            out += (1 - a) * math.log((1 - a) / (1 - rf))
        return out

    # smallest k >= mean with m D(k/m || r) >= need (then P[C >= k] <= tol/2)
    lo, hi = math.ceil(mu), m
    if m * kl(1.0) >= need:
        while lo < hi:
            mid = (lo + hi) // 2
            if m * kl(mid / m) >= need:
                hi = mid
            else:
                lo = mid + 1
        c1 = min(c1, lo)
    lo, hi = 0, math.floor(mu)
    if m * kl(0.0) >= need:
        while lo < hi:  # largest k <= mean with m D(k/m || r) >= need
            mid = (lo + hi + 1) // 2
            if m * kl(mid / m) >= need:
                lo = mid
            else:
                hi = mid - 1
        c0 = max(c0, lo)
    return c0, c1


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
            c0, c1 = binomial_window(m, r, tail_tol)
            tail = arb(0) if (c0 == 0 and c1 == m) else arb(tail_tol)
        # initial state at c0: j = k*(c0), T = P[Bin(c0,1/2) >= j], B = b_{c0}(j-1)
        j = kstar(c0)
        if c0 == 0:
            T, B = arb(0), arb(1)  # j = 1: T_0(1) = 0, b_0(0) = 1
        else:
            T = (arb(1) if j <= 0 else arb(0) if j > c0 else arb(0.5).beta_lower(j, c0 - j + 1, 1))
            B = arb.bin_uiui(c0, j - 1) / arb(2) ** c0
        w = arb.bin_uiui(m, c0) * R ** c0 * (1 - R) ** (m - c0)
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
    until eps is known to relative ``rel`` (:func:`_converged`).
    """
    n = _parse_n(n)
    e0 = _parse_e0(e0)
    return bisect_epsilon(lambda lam: clone_delta(n, e0, lam, variant=variant), e0, delta, rel=rel)


# ======================================================================
# Variation-ratio reduction (Wang et al., PVLDB 2024)
# ======================================================================

def rr_variation_ratio(L, q) -> tuple[Fraction, Fraction, Fraction]:
    """Exact variation-ratio parameters ``(p, beta, q_ratio)`` of L-bit RR.

    Wang et al. (PVLDB 17(8), 2024) call a randomizer R *(p, beta, q)-variation
    ratio* when, for the two values ``x1^0, x1^1`` of the changed user and every
    input ``x``: ``R(x1^0)(y) <= p R(x1^1)(y)`` (and symmetrically),
    ``TV(R(x1^0), R(x1^1)) <= beta``, and ``R(x1^b)(y) <= q R(x)(y)``.
    For L-bit RR with flip probability ``q`` (``p = 1 - q``) every sup is
    attained at two complementary vectors (Hamming distance L):

    * ``p = q_ratio = ((1-q)/q)^L = e^eps0``;
    * ``beta = sum_{k < L/2} C(L, k) ((1-q)^(L-k) q^k - (1-q)^k q^(L-k))``,
      the TV distance of the number of flipped bits ``Bin(L, q)`` against
      ``Bin(L, 1-q)`` (it is increasing in the Hamming distance, so the sup is
      at distance L).

    >>> rr_variation_ratio(1, "1/4")
    (Fraction(3, 1), Fraction(1, 2), Fraction(3, 1))
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    p = 1 - q
    beta = sum((math.comb(L, k) * (p ** (L - k) * q ** k - p ** k * q ** (L - k))
                for k in range(L + 1) if 2 * k < L), Fraction(0))
    e0 = (p / q) ** L
    return e0, beta, e0


def mixture_clone_delta(n, alpha1, alpha0, rate, lam, *, prec: int = 128,
                        tail_tol: float = 1e-40) -> Interval:
    """Certified enclosure of ``D_lam(P || Q)`` for the variation-ratio pair.

    With ``W = 1 - alpha1 - alpha0 >= 0``, ``C ~ Bin(n - 1, rate)``,
    ``A | C ~ Bin(C, 1/2)`` and ``(D1, D0)`` equal to ``(1, 0)``, ``(0, 1)``,
    ``(0, 0)`` with probabilities ``alpha1, alpha0, W``:

        P = (A + D1, C - A + D0),   Q = (A + D0, C - A + D1).

    Evaluation: the total ``t = C + D1 + D0`` has the same law under P and Q;
    given ``t = c + 1`` the first coordinate is
    ``w1 b_c(k-1) + w0 b_c(k)`` under P (swapped under Q) with
    ``w1 = alpha1 B(c) + W B(c+1)/2``, ``w0 = alpha0 B(c) + W B(c+1)/2``,
    ``B`` the ``Bin(n-1, rate)`` pmf and ``b_c`` the ``Bin(c, 1/2)`` pmf
    (``b_{c+1}(k) = (b_c(k-1) + b_c(k))/2``), so
    ``delta = sum_c (w1 + w0) h_c(w1/(w1 + w0))`` with ``h_c`` the two-tail
    formula of :func:`clone_delta` (``t = 0`` contributes 0 for ``lam >= 1``).
    The threshold now moves with ``c`` in both directions; tails are shifted
    by the exact recurrences ``b_c(j) = b_c(j-1) (c-j+1)/j``.  Terms outside a
    Hoeffding window (mass ``<= tail_tol`` each side of it) add at most
    ``2 tail_tol`` to the upper end.

    With ``W = 0`` and ``rate = 2/(e^eps0 + 1)``, ``alpha1 = e^eps0/(e^eps0+1)``
    it is the FMT 2023 stronger-clone pair (tested against :func:`clone_delta`).

    >>> iv = mixture_clone_delta(10, Fraction(3, 4), Fraction(1, 4), Fraction(1, 2), 1)
    >>> iv.contains(clone_delta(10, 3, 1).lower)
    True
    """
    n = _parse_n(n)
    a1, a0, R = (domains.to_fraction(v, nm) for v, nm in
                 ((alpha1, "alpha1"), (alpha0, "alpha0"), (rate, "rate")))
    lam = domains.LAM.parse(lam)
    W = 1 - a1 - a0
    if not (0 <= a0 <= a1 and W >= 0 and 0 < R <= 1):
        raise ParameterError("need 0 <= alpha0 <= alpha1, alpha0 + alpha1 <= 1, 0 < rate <= 1")
    m = n - 1
    if R == 1:
        R = Fraction(1)
    # c-window
    if m == 0:
        c0, c1, tail = 0, 0, 0.0
    else:
        c0, c1 = binomial_window(m, R, tail_tol)
        c0 = max(0, c0 - 1)
        tail = 0.0 if (c0 == 0 and c1 == m) else 2 * tail_tol

    def pmf_ratio(c):  # B(c+1)/B(c), exact
        if c >= m:
            return Fraction(0)
        return Fraction(m - c, c + 1) * R / (1 - R) if R < 1 else None

    with ctx.workprec(prec):
        Rb = arb(R.numerator) / R.denominator
        LAMb = arb(lam.numerator) / lam.denominator
        if R == 1:
            Bc = arb(1) if c0 == m else arb(0)
        else:
            Bc = arb.bin_uiui(m, c0) * Rb ** c0 * (1 - Rb) ** (m - c0)
        total = arb(0)
        j, T, Bv = None, None, None
        const = None
        if W == 0:  # a_c = alpha1 for every c: threshold slope and balls once
            const = _threshold_slope(a1, lam)
            A_const = arb(a1.numerator) / a1.denominator
            S_const = arb(1)
        for c in range(c0, c1 + 1):
            if const is not None:
                a, S = a1, None
                sl = const
            else:
                rho = Fraction(0) if R == 1 else pmf_ratio(c)
                # a_c = w1/(w1+w0) exactly, from B(c+1)/B(c) = rho
                num1 = a1 + W * rho / 2
                num0 = a0 + W * rho / 2
                S = num1 + num0
                a = num1 / S
                sl = _threshold_slope(a, lam)
            # target j = k* (or keep j when h = 0)
            if sl is None:
                jt = None
            else:
                jt = min(sl.numerator * (c + 1) // sl.denominator + 1, c + 1)
            if j is None:  # initial state at c0
                j = jt if jt is not None else c + 1
                j = max(1, min(j, c + 1))
                if c == 0:
                    T, Bv = arb(0), arb(1)
                else:
                    T = arb(0) if j > c else arb(0.5).beta_lower(j, c - j + 1, 1)
                    Bv = arb.bin_uiui(c, j - 1) / arb(2) ** c
            elif jt is not None:
                while j < jt:  # up: b_c(j) from b_c(j-1)
                    Bv = Bv * (c - j + 1) / j
                    T = T - Bv
                    j += 1
                while j > jt:  # down
                    T = T + Bv
                    Bv = Bv * (j - 1) / (c - j + 2)
                    j -= 1
            if jt is not None:
                if const is not None:
                    A, Sb = A_const, S_const
                else:
                    A = arb(a.numerator) / a.denominator
                    Sb = arb(S.numerator) / S.denominator
                T1 = T + Bv
                h = A * T1 + (1 - A) * T - LAMb * (A * T + (1 - A) * T1)
                total += Bc * Sb * h
            if c == c1:
                break
            # advance c -> c + 1 at fixed j (j <= c + 1 <= c + 2)
            T = T + Bv / 2
            Bv = Bv * (c + 1) / (2 * (c + 2 - j))
            if R == 1:
                Bc = arb(1) if c + 1 == m else arb(0)
            else:
                Bc = Bc * (m - c) / (c + 1) * Rb / (1 - Rb)
        iv = arb_to_interval(total)
    up = iv.upper + Fraction(tail) if tail else iv.upper
    return _clamp01(iv.lower, up)


def _threshold_slope(a: Fraction, lam: Fraction) -> Fraction | None:
    """``s`` with ``P_c(k) > lam Q_c(k)`` iff ``k > s (c + 1)`` for the pair
    ``a b_c(k-1) + (1-a) b_c(k)`` vs swapped (``None``: never, ``lam >= a/(1-a)``)."""
    if lam * (1 - a) >= a:
        return None
    tq = (lam * a - (1 - a)) / (a - lam * (1 - a))
    return tq / (1 + tq)


def vr_delta(n, L, q, lam, **kw) -> Interval:
    """Certified enclosure of the variation-ratio bound's ``delta(lam)`` for L-bit RR.

    Wang et al., "Privacy amplification via shuffling: unified, simplified,
    and tightened", PVLDB 17(8), 2024 (variation-ratio reduction): if R is
    (p, beta, q)-variation-ratio (:func:`rr_variation_ratio`) then for every
    pair of neighbouring datasets the shuffled output's ``D_lam`` is at most
    ``D_lam(P || Q)`` of the pair of :func:`mixture_clone_delta` with

        alpha0 = beta/(p - 1),  alpha1 = p alpha0,  rate = 2 p alpha0 / q.

    (Proof idea: ``R(x1^1) = alpha1 U1 + alpha0 U0 + W M`` and
    ``R(x1^0) = alpha0 U1 + alpha1 U0 + W M`` with ``U1, U0`` the normalised
    positive and negative parts of ``R(x1^1) - R(x1^0)``; every other user's
    law contains ``p alpha0/q (U1 + U0)``, i.e. is a clone with probability
    ``rate``; the shuffled output is a post-processing of the clone counts.)
    **Refuted for L >= 2** (module doc, :data:`REFUTED`): not a valid upper bound.
    The pair is symmetric, so both directions give the same value.  At L = 1
    the parameters give ``W = 0`` and ``rate = 2/(e^eps0 + 1)``: the bound is
    then *equal* to the FMT 2023 stronger clone.
    """
    e0, beta, qr = rr_variation_ratio(L, q)
    a0 = beta / (e0 - 1)
    a1 = e0 * a0
    rate = 2 * e0 * a0 / qr
    return mixture_clone_delta(n, a1, a0, min(rate, Fraction(1)), lam, **kw)


def vr_epsilon(n, L, q, delta, *, rel: float = 1e-6) -> Interval:
    """Certified ``[eps_lo, eps_hi]`` of the variation-ratio bound's ``eps(delta)``
    (bisection as :func:`clone_epsilon`)."""
    e0 = exp_eps0_rr(L, q)
    return bisect_epsilon(lambda lam: vr_delta(n, L, q, lam), e0, delta, rel=rel)


# ======================================================================
# Privacy blanket (Balle, Bell, Gascon, Nissim, CRYPTO 2019)
# ======================================================================

BLANKET_METHODS = ("hoeffding", "bennett")


def rr_blanket_parameters(L, q, lam) -> dict:
    """Exact blanket parameters of L-bit RR at ``lam = e^eps`` (all Fractions).

    Balle et al. (2019) write every local law as ``R(x) = (1 - gamma) R'(x) +
    gamma omega`` with the *blanket* ``omega(y) = min_x R(x)(y) / gamma`` and
    ``gamma = sum_y min_x R(x)(y)``, and define the privacy amplification
    random variable ``l(W) = (R(x1)(W) - e^eps R(x1')(W)) / omega(W)``,
    ``W ~ omega``.  For L-bit RR, ``min_x R(x)(y) = q^L`` (x the complement
    of y), so ``gamma = (2q)^L`` and ``omega`` is uniform on ``{0,1}^L``.
    With ``x1 = 0^L``, ``x1'`` at Hamming distance ``h``, ``rho = q/p`` and
    ``a``/``b`` the numbers of ones of W inside/outside the ``h`` differing
    coordinates, ``l = (2p)^L rho^b (rho^a - lam rho^(h-a))``.  Returned,
    each maximised over the pair (over ``h``; the max is at ``h = L``):

    * ``gamma``;
    * ``b_range = max l - min l = (2p)^L (1 + lam)(1 - rho^L)``;
    * ``b_plus = max l = (2p)^L (1 - lam rho^L)`` (for ``lam < e^eps0``);
    * ``c = E[l^2] = (2p)^(2L) [((1+rho^2)/2)^L (1 + lam^2)
      - 2 lam rho^h ((1+rho^2)/2)^(L-h)]``.

    At L = 1 these are the k-ary RR values of Balle et al. with k = 2 and
    ``gamma = 2q`` (tested).

    >>> rr_blanket_parameters(1, "1/4", 1)["gamma"]
    Fraction(1, 2)
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    lam = domains.LAM.parse(lam)
    p = 1 - q
    rho = q / p
    s2 = (1 + rho ** 2) / 2
    K = (2 * p) ** L
    cs = [K * K * (s2 ** L * (1 + lam ** 2) - 2 * lam * rho ** h * s2 ** (L - h))
          for h in range(1, L + 1)]
    return {"gamma": (2 * q) ** L,
            "b_range": K * (1 + lam) * (1 - rho ** L),
            "b_plus": K * (1 - lam * rho ** L),
            "c": max(cs)}


def blanket_delta(n, L, q, lam, *, method: str = "bennett", prec: int = 128) -> Interval:
    """Certified enclosure of the privacy-blanket bound's ``delta(lam)`` (L-bit RR).

    Balle, Bell, Gascon, Nissim, "The privacy blanket of the shuffle model",
    CRYPTO 2019.  Their blanket lemma: for every pair of neighbouring datasets,

        delta(eps) <= 1/(gamma n) E[ (sum_{i=1}^M l_i)_+ ],   M ~ Bin(n, gamma),

    ``l_i`` iid copies of the privacy amplification random variable (whose
    mean is ``1 - e^eps``); they then bound the expectation with tail
    inequalities (parameters: :func:`rr_blanket_parameters`, ``a = e^eps - 1``):

    * ``method="hoeffding"`` (l has range ``b``):
      ``delta <= b^2/(4 a gamma n) (1 - gamma (1 - e^{-2 a^2/b^2}))^n``;
    * ``method="bennett"`` (``l <= b_plus``, ``E l^2 <= c``,
      ``phi(u) = (1+u) log(1+u) - u``, ``beta = a b_plus/c``):
      ``delta <= b_plus/(gamma n log(1+beta)) E[e^{-M (c/b_plus^2) phi(beta)} 1{M>=1}]``,
      and the expectation is ``(1 - gamma + gamma e^{-kappa})^n - (1-gamma)^n``
      in closed form (``kappa = c phi(beta)/b_plus^2``).

    Both valid for ``1 < lam < e^eps0`` (``delta = 0`` from ``lam >= e^eps0``;
    at ``lam = 1`` the bound is vacuous and 1 is returned).  Evaluated in arb
    (every operation a ball), so the result encloses the peer's formula.

    >>> float(blanket_delta(10**5, 1, "1/4", "1.02", method="hoeffding").upper) < 1
    True
    """
    n = _parse_n(n)
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    lam = domains.LAM.parse(lam)
    if method not in BLANKET_METHODS:
        raise ParameterError(f"method must be one of {', '.join(BLANKET_METHODS)}, got {method!r}")
    e0 = exp_eps0_rr(L, q)
    if lam >= e0:
        return Interval.exact(0)
    if lam == 1:
        return Interval.exact(1)
    P = rr_blanket_parameters(L, q, lam)

    def ab(x):
        return arb(x.numerator) / x.denominator
    with ctx.workprec(prec):
        g = ab(P["gamma"])
        a = ab(lam - 1)
        if method == "hoeffding":
            b = ab(P["b_range"])
            d = b * b / (4 * a * g * n) * (1 - g * (1 - (-2 * a * a / (b * b)).exp())) ** n
        else:
            bp, c = ab(P["b_plus"]), ab(P["c"])
            be = a * bp / c
            phi = (1 + be) * (1 + be).log() - be
            kappa = c * phi / (bp * bp)
            ex = (1 - g + g * (-kappa).exp()) ** n - (1 - g) ** n
            d = bp / (g * n * (1 + be).log()) * ex
        iv = arb_to_interval(d)
    return _clamp01(iv.lower, iv.upper)


def blanket_epsilon(n, L, q, delta, *, method: str = "bennett", rel: float = 1e-6) -> Interval:
    """Certified ``[eps_lo, eps_hi]`` of the blanket bound's ``eps(delta)``."""
    e0 = exp_eps0_rr(L, q)
    return bisect_epsilon(lambda lam: blanket_delta(n, L, q, lam, method=method), e0, delta,
                          rel=rel)


# ======================================================================
# Su, Cheng, Wang (S&P 2026): the optimal (blanket) decomposition
# ======================================================================

def scw_delta(n, L, q, lam) -> Interval:
    """Certified enclosure of Su-Cheng-Wang's optimal-decomposition bound at L = 1.

    Su, Cheng, Wang, "Decomposition-Based Optimal Bounds for Privacy Amplification
    via Shuffling", arXiv 2504.07414 (S&P 2026), abstract and main result: among all
    decompositions of the general clone paradigm the privacy blanket's is optimal,
    and the bound is the hockey-stick divergence of user 1's report hidden among the
    other users' blanket reports (their "generalized privacy amplification random
    variable", summed over a Bin(n - 1, gamma) count, computed by FFT).  For L-bit RR
    the blanket is uniform with weight ``gamma = (2q)^L`` and that divergence is

        sum_m Bin(n - 1, gamma)(m) delta_m(lam),

    ``delta_m`` the exact divergence of x's vs x''s report among m uniform reports:
    the *untruncated* blanket count (:mod:`exactdp.apps.blanket_count`, proved for
    every pair in ``proofs/blanket_count.py``).  At L = 1 the count of ones is
    ``Delta + Bin(m, 1/2)``, ``Delta ~ Bern(p)`` vs ``Bern(q)``, ``m ~ Bin(n-1, 2q)``:
    exactly the stronger-clone pair with ``e^eps0 = p/q`` (tested against
    ``blanket_count_delta(..., m_max=n-1)``), so it is evaluated by
    :func:`clone_delta` (certified, any n).  For L >= 2 it is not evaluated here:
    ``blanket_count_delta(n, L, q, lam, m_max=n-1)`` is it exactly for small n, and the
    guarantee's ``blanket-exact-count`` (truncated) and ``blanket-exact-mgf`` are
    certified upper bounds of it (docs/peers.md).

    >>> from fractions import Fraction as F
    >>> scw_delta(20, 1, F(1, 4), F(6, 5)) == clone_delta(20, 3, F(6, 5), variant="fmt23")
    True
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    if L != 1:
        raise ParameterError("scw_delta evaluates L = 1 only; for L >= 2 use "
                             "exactdp.apps.blanket_count.blanket_count_delta(m_max=n-1)")
    return clone_delta(n, exp_eps0_rr(1, q), lam, variant="fmt23")


def scw_epsilon(n, L, q, delta, *, rel: float = 1e-6) -> Interval:
    """Certified ``[eps_lo, eps_hi]`` of :func:`scw_delta`'s ``eps(delta)`` (L = 1).

    >>> from fractions import Fraction as F
    >>> scw_epsilon(100, 1, F(1, 4), F(1, 10), rel=1e-3).upper < 1
    True
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    if L != 1:
        raise ParameterError("scw_epsilon evaluates L = 1 only (see scw_delta)")
    return clone_epsilon(n, exp_eps0_rr(1, q), delta, variant="fmt23", rel=rel)


# ======================================================================
# Koskela, Heikkila, Honkela (arXiv 2106.00477): PLD accounting of the shuffler
# ======================================================================

def koskela_delta(n, L, q, lam) -> Interval:
    """Certified enclosure of the pair Koskela et al. account, for L-bit RR.

    Koskela, Heikkila, Honkela, "Tight Accounting in the Shuffle Model of
    Differential Privacy", arXiv 2106.00477: a numerical (FFT) privacy-loss
    accountant of (i) the FMT'21 clone pair for a general eps0-LDP randomizer and
    (ii) Balle et al.'s (CRYPTO 2019) blanket pair for k-randomized response.  The
    FFT's discretisation error is theirs; what is certified here is the *pair* it
    accounts:

    * L >= 2 (L-bit RR is not k-RR): the FMT'21 clone pair -- the same numbers
      as :func:`clone_delta` ``variant="fmt21"`` (``clone-fmt21``);
    * L = 1 (2-RR, ``gamma = 2q``, each other user outputs each value with
      probability ``gamma/k = q`` from the blanket): the counts (N1, N2) of the two
      values among the others' blanket reports, ``Mult(n - 1; q, q)``, and user 1's
      report x vs x' outside the blanket: ``P = (N1 + 1, N2)``, ``Q = (N1, N2 + 1)``
      (privacy loss ``log((N1 + 1)/N2)``: their "strong adversary" pair, as in the authors' code
      ``DPBayes/PLD-Accountant``, ``experimental_shufflers/blankets_fig4``).  With
      ``C = N1 + N2 ~ Bin(n - 1, 2q)``, ``N1 | C ~ Bin(C, 1/2)`` this is
      :func:`mixture_clone_delta` with ``alpha1 = 1, alpha0 = 0, rate = 2q``.  It is
      a valid upper bound: it is at least ``(1 - gamma)`` times itself, the split
      clone with ``R(x) = (1 - 2q) 1_x + 2q U`` (:mod:`exactdp.apps.split_clone`,
      proved), and is above the stronger-clone / blanket-count value (tested).

    >>> from fractions import Fraction as F
    >>> koskela_delta(20, 1, F(1, 4), F(6, 5)).upper > scw_delta(20, 1, F(1, 4), F(6, 5)).upper
    True
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    if L >= 2:
        return clone_delta(n, exp_eps0_rr(L, q), lam, variant="fmt21")
    lam = domains.LAM.parse(lam)
    if lam >= exp_eps0_rr(1, q):       # shuffled RR is (eps0, 0)-DP: capped at the local level
        return Interval.exact(0)
    return mixture_clone_delta(n, 1, 0, 2 * q, lam)


def koskela_epsilon(n, L, q, delta, *, rel: float = 1e-6) -> Interval:
    """Certified ``[eps_lo, eps_hi]`` of :func:`koskela_delta`'s ``eps(delta)``.

    At L = 1 the pair's likelihood ratio ``(N1 + 1)/N2`` is unbounded; like every bound
    here it is capped at the local level (``delta = 0`` from ``e^eps0`` on).

    >>> from fractions import Fraction as F
    >>> koskela_epsilon(100, 2, F(1, 4), F(1, 10), rel=1e-3) == clone_epsilon(
    ...     100, 9, F(1, 10), variant="fmt21", rel=1e-3)
    True
    """
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    e0 = exp_eps0_rr(L, q)
    if L >= 2:
        return clone_epsilon(n, e0, delta, variant="fmt21", rel=rel)
    return bisect_epsilon(lambda lam: koskela_delta(n, 1, q, lam), e0, delta, rel=rel)


def _clamp01(lo: Fraction, hi: Fraction) -> Interval:
    """``[lo, hi]`` intersected with ``[0, 1]`` (a delta is a probability)."""
    one, zero = Fraction(1), Fraction(0)
    return Interval(min(max(lo, zero), one), min(max(hi, zero), one))


def bisect_epsilon(delta_fn, e0, delta, *, rel: float = 1e-6) -> Interval:
    """``[eps_lo, eps_hi]`` for a certified, non-increasing ``delta_fn(lam)``
    (an :class:`Interval`) on ``[1, e0]``: ``delta_fn(e^eps_hi).upper <= delta``
    and ``delta_fn(e^eps_lo).lower > delta`` (or ``eps_lo = 0``)."""
    e0 = _parse_e0(e0)
    d = _DELTA.parse(delta)
    lo, hi = Fraction(1), e0
    lo_cert = Fraction(1)
    if delta_fn(lo).upper <= d:
        hi = lo
    else:
        while not _converged(lo, hi, rel):
            mid = _round_rational((lo + hi) / 2)
            iv = delta_fn(mid)
            if iv.upper <= d:
                hi = mid
            else:
                lo = mid
                if iv.lower > d:
                    lo_cert = mid
        lo = lo_cert
    with ctx.workprec(128):
        elo = arb_to_interval(arb(lo.numerator).log() - arb(lo.denominator).log()).lower
        ehi = arb_to_interval(arb(hi.numerator).log() - arb(hi.denominator).log()).upper
    return Interval(max(elo, Fraction(0)), max(ehi, Fraction(0)))


def _converged(lo: Fraction, hi: Fraction, rel: float) -> bool:
    """Bisection on lam = e^eps stops when eps is known to relative ``rel``:
    ``hi - lo <= rel (lo - 1)`` (``ln`` is 1-Lipschitz above 1), or the bracket
    is below 2^-60 in lam (rationals rounded to 64 bits cannot go further)."""
    return (lo > 1 and hi - lo <= Fraction(rel) * (lo - 1)) or hi - lo <= Fraction(1, 2**60)


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
    for name, iv in certified_peer_epsilons(n, L, q, delta).items():
        note = "upper end of a certified enclosure"
        if name in REFUTED and L > 1:
            note = "REFUTED, not an upper bound: " + REFUTED[name]
        elif name in UNPROVED:
            note = "reported, not used as an upper end: " + UNPROVED[name]
        out.append(PeerBound(name, CITATIONS[name], float(iv.upper), True, note))
    return out


#: every certified peer bound: name -> citation
CITATIONS = {
    "clone-fmt21": "Feldman-McMillan-Talwar FOCS 2021, Thm 3.2 (clone, r = e^-eps0)",
    "clone-fmt23": "Feldman-McMillan-Talwar SODA 2023 (stronger clone, r = 2/(e^eps0+1))",
    "variation-ratio": "Wang et al. PVLDB 17(8) 2024 (variation-ratio reduction, (p, beta, q))",
    "blanket-hoeffding": "Balle-Bell-Gascon-Nissim CRYPTO 2019 (privacy blanket, Hoeffding)",
    "blanket-bennett": "Balle-Bell-Gascon-Nissim CRYPTO 2019 (privacy blanket, Bennett)",
    "scw-blanket": ("Su-Cheng-Wang S&P 2026, arXiv 2504.07414 (optimal = blanket decomposition; "
                    "L = 1 only: the untruncated blanket count = the stronger-clone pair)"),
    "pld-koskela21": ("Koskela-Heikkila-Honkela arXiv 2106.00477 (pair of their PLD accountant: "
                      "Balle'19 k-RR blanket pair at L = 1, FMT'21 clone pair at L >= 2)"),
}

#: peers evaluated only at L = 1 (absent from certified_peer_* at L >= 2)
L1_ONLY = ("scw-blanket",)


#: peer bounds refuted by an exact counterexample: name -> where (never used as an upper end)
REFUTED = {
    "variation-ratio": ("proofs/split_clone.py vr-forgetful-pair: at n = 2, L = 2, q = 1/10, "
                        "lam = 729/10 the pair gives 81/100000 < 6561/100000, the exact divergence "
                        "of (00 + 00) vs (11 + 00); valid only at L = 1, where it is the stronger clone"),
}


#: peer bounds whose theorem is not established for L-bit RR: name -> why (reported, never
#: used as an upper end).  The SODA'23 paper's erratum (arXiv 2208.04591, "Errata") says its
#: general bounds (Theorems 3.1, 3.2; the error is in Lemma 3.5 when p < 1/(e^eps0 + 1)) hold
#: only for a restricted class of local randomizers; membership of L-bit RR is not shown here.
UNPROVED = {
    "clone-fmt23": ("SODA'23 erratum: Theorems 3.1/3.2 hold only for a restricted class of local "
                    "randomizers; L-bit RR's membership is not established (docs/peers.md)"),
}


def certified_peer_deltas(n, L, q, lam) -> dict:
    """Every certified peer bound's ``delta(lam)`` enclosure, by name (:data:`CITATIONS`)."""
    e0 = exp_eps0_rr(L, q)
    out = {"clone-fmt21": clone_delta(n, e0, lam, variant="fmt21"),
           "clone-fmt23": clone_delta(n, e0, lam, variant="fmt23"),
           "variation-ratio": vr_delta(n, L, q, lam),
           "blanket-hoeffding": blanket_delta(n, L, q, lam, method="hoeffding"),
           "blanket-bennett": blanket_delta(n, L, q, lam, method="bennett")}
    _add_issue19_peers(out, n, L, q, lambda: koskela_delta(n, L, q, lam))
    return out


def certified_peer_epsilons(n, L, q, delta, *, rel: float = 1e-6) -> dict:
    """Every certified peer bound's ``eps(delta)`` enclosure, by name (:data:`CITATIONS`)."""
    e0 = exp_eps0_rr(L, q)
    out = {"clone-fmt21": clone_epsilon(n, e0, delta, variant="fmt21", rel=rel),
           "clone-fmt23": clone_epsilon(n, e0, delta, variant="fmt23", rel=rel),
           "variation-ratio": vr_epsilon(n, L, q, delta, rel=rel),
           "blanket-hoeffding": blanket_epsilon(n, L, q, delta, method="hoeffding", rel=rel),
           "blanket-bennett": blanket_epsilon(n, L, q, delta, method="bennett", rel=rel)}
    _add_issue19_peers(out, n, L, q, lambda: koskela_epsilon(n, L, q, delta, rel=rel))
    return out


def _add_issue19_peers(out: dict, n, L, q, koskela_l1) -> None:
    """Su-Cheng-Wang and Koskela et al. from the values already in ``out`` where they are
    the same pair (tested): SCW = stronger clone at L = 1 (absent at L >= 2, see
    :func:`scw_delta`); Koskela = FMT'21 clone at L >= 2, its own pair at L = 1."""
    if L == 1:
        out["scw-blanket"] = out["clone-fmt23"]
        out["pld-koskela21"] = koskela_l1()
    else:
        out["pld-koskela21"] = out["clone-fmt21"]
