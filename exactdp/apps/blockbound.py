"""Certified worst case over every neighbouring pair of shuffled binary RR (L = 1) at any N.

For L = 1 every neighbouring pair, in either order, has the hockey-stick
divergence ``delta_m^{(N)}(lam)`` of one ``m`` in ``0..N-1``
(:mod:`exactdp.apps.allpairs`): target bit 1 vs 0, the other ``N - 1`` users
hold ``m`` ones, so the others report ``S = Bin(m, p) + Bin(N-1-m, q)`` ones
and ``P_m = law(S + Bern(p))``, ``Q_m = law(S + Bern(q))``.  The true curve is
``max_m delta_m``.  :mod:`exactdp.apps.allpairs` computes every ``delta_m``
exactly (``O(N^2)`` big-integer work, ``N <= 2000``); this module bounds the
maximum from above at deployment sizes with far fewer evaluations.

Block lemma (``proofs/block_bound_l1.py``, status proved)
---------------------------------------------------------
For ``0 <= a <= m <= b <= N-1``:

    delta_m^{(N)}(lam) <= delta_a^{(N - (b - a))}(lam).

``S = S' + Z`` with ``S' = Bin(a, p) + Bin(N-1-b, q)`` -- the others of the
pair with ``N - (b - a)`` users of whom ``a`` hold ones -- and
``Z = Bin(m-a, p) + Bin(b-m, q)`` independent of ``S'`` and of the target.
Adding ``Z`` is one Markov kernel applied to both laws, and the hockey-stick
divergence does not increase under a Markov kernel (data processing).  So one
evaluation bounds a whole block of ``m``; :func:`certify_all_pairs` splits the
blocks whose bound exceeds the target until every block is below it (or a
single ``m`` is certified above it).  Near ``m = 0`` and ``m = N-1`` (000's
pair forward / reverse) blocks shrink to single values; the middle is covered
by a few wide blocks, since there ``delta_m`` is far below the extremes.

Sharper form, used by default (``proofs/block_bound_l1.py``, l1-block-blanket):
the ``w = b - a`` users between keep their blanket -- each reports its bit with
probability ``1 - 2q`` and a fair bit with probability ``2q`` -- so with
``K ~ Bin(w, 2q)`` fair bits and ``D(k)`` the divergence with others
``Bin(a, p) + Bin(N-1-b, q) + Bin(k, 1/2)`` (non-increasing in ``k``),
``delta_m <= E D(K) <= D(k0) + P[K < k0]`` (joint convexity and shift
invariance of the hockey-stick divergence).  About 2/3 of the dropped users'
variance is kept (at q = 1/4), so blocks are wider and evaluations fewer
(N = 10^6: 327 instead of 811).

Evaluation of one ``delta_a^{(n)}(lam)`` (:func:`delta_m`)
-----------------------------------------------------------
``g`` = pmf of ``Bin(a, p)`` and ``h`` = pmf of ``Bin(n-1-a, q)`` on the
windows of :func:`exactdp.apps.peers.binomial_window` (mass outside each
``<= tol``), built by the exact ratio recurrence in arb balls; ``f = g * h``
by one arb polynomial product.  With ``alpha = p - lam q``,
``beta = lam p - q`` the divergence is ``sum_k (alpha f(k-1) - beta f(k))_+``.
The true pmf is ``f + e`` with ``e >= 0``, ``sum e <= 2 tol``, so the upper end
adds ``alpha 2 tol`` and the lower end subtracts ``beta 2 tol``.

>>> from fractions import Fraction as F
>>> from exactdp.apps.allpairs import deltas_by_m
>>> exact = dict(deltas_by_m(30, F(1, 4), F(3, 2)))
>>> iv = delta_m(30, 7, F(1, 4), F(3, 2))
>>> iv.lower <= exact[7] <= iv.upper and float((iv.upper - iv.lower) / exact[7]) < 1e-12
True
>>> certify_all_pairs(30, F(1, 4), F(3, 2), max(exact.values()) * F(1001, 1000)).ok
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_poly, ctx

from ..core import domains
from ..core.errors import ParameterError
from ..core.interval import Interval, arb_to_interval
from .peers import binomial_window

__all__ = ["delta_m", "certify_all_pairs", "AllPairsCheck", "TAIL_TOL", "MARGINS",
           "epsilon_upper", "delta_upper"]

#: probability mass neglected in each binomial window
TAIL_TOL = 1e-40


def _ab(x: Fraction) -> arb:
    return arb(x.numerator) / x.denominator


def _binomial_pmf(m: int, r: Fraction, tol: float) -> tuple[int, list]:
    """``(k0, [P[Bin(m, r) = k] for k in k0..k1])`` as arb balls, mass outside ``<= tol``."""
    if m == 0:
        return 0, [arb(1)]
    k0, k1 = binomial_window(m, r, tol)
    R = _ab(r)
    S = 1 - R
    first = arb.bin_uiui(m, k0) * R ** k0 * S ** (m - k0)
    step = R / S
    out = [first]
    v = first
    for k in range(k0, k1):
        v = v * step * (m - k) / (k + 1)
        out.append(v)
    return k0, out


def delta_m(n, m, q, lam, *, half: int = 0, prec: int = 64, tol: float = TAIL_TOL) -> Interval:
    """Certified enclosure of ``delta_m^{(n)}(lam)`` (module doc): ``n`` users, the
    target's bit 1 vs 0, ``m`` of the other ``n - 1`` users hold ones.  ``half``:
    the others' count gets an extra independent ``Bin(half, 1/2)`` (the blanket
    part of dropped users, :func:`certify_all_pairs`)."""
    n = domains.N.parse(n)
    q = domains.Q.parse(q)
    lam = domains.LAM.parse(lam)
    if not (isinstance(m, int) and 0 <= m <= n - 1):
        raise ParameterError(f"m must be an integer in [0, {n - 1}], got {m!r}")
    if not (isinstance(half, int) and half >= 0):
        raise ParameterError(f"half must be a non-negative integer, got {half!r}")
    p = 1 - q
    if lam * q >= p:
        return Interval.exact(0)
    alpha, beta = p - lam * q, lam * p - q
    with ctx.workprec(prec):
        g0, g = _binomial_pmf(m, p, tol)
        h0, h = _binomial_pmf(n - 1 - m, q, tol)
        poly = arb_poly(g) * arb_poly(h)
        cut = len(g) < m + 1 or len(h) < n - m
        if half:
            u0, u = _binomial_pmf(half, Fraction(1, 2), tol)
            poly = poly * arb_poly(u)
            cut = cut or len(u) < half + 1
        f = poly.coeffs()
        A, B = _ab(alpha), _ab(beta)
        hi = arb(0)          # sum of the terms certified positive (both ends)
        straddle = Fraction(0)  # upper ends of the terms whose sign is undecided
        prev = arb(0)
        for fk in [*f, arb(0)]:
            t = A * prev - B * fk
            prev = fk
            if t > 0:
                hi += t
            elif not t <= 0:
                straddle += arb_to_interval(t).upper
        iv = arb_to_interval(hi)
        slack = Fraction(3 * tol) if cut else Fraction(0)
    up = min(Fraction(1), max(iv.upper, Fraction(0)) + straddle + alpha * slack)
    low = max(Fraction(0), iv.lower - beta * slack)
    return Interval(min(low, up), up)


def _block_bound(N, a, b, q, lam, prec, *, tol, tol_k) -> Interval:
    """Upper bound on ``delta_m^{(N)}`` for every ``m`` in ``[a, b]`` keeping the dropped
    users' blanket (``proofs/block_bound_l1.py``, l1-block-blanket): the ``w = b - a``
    users between report ``c_i`` w.p. ``1 - 2q`` and a fair bit w.p. ``2q``, so with
    ``K ~ Bin(w, 2q)`` fair bits, ``delta_m <= E_K D(K) <= D(k0) + P[K < k0]`` where
    ``D(k)`` is the divergence with others ``Bin(a,p) + Bin(N-1-b,q) + Bin(k,1/2)``
    (non-increasing in k) and ``k0`` the lower end of a window with
    ``P[K < k0] <= tol_k``."""
    w = b - a
    k0 = binomial_window(w, 2 * q, tol_k)[0] if w > 0 and 2 * q < 1 else w if w > 0 else 0
    iv = delta_m(N - w, a, q, lam, half=k0, prec=prec, tol=tol)
    if k0 == 0:
        return iv
    extra = Fraction(tol_k) if (w > 0 and 2 * q < 1) else Fraction(0)
    return Interval(iv.lower, min(Fraction(1), iv.upper + extra))


@dataclass(frozen=True)
class AllPairsCheck:
    """Outcome of :func:`certify_all_pairs`.

    ``ok``: every ``delta_m(lam) <= target`` is certified; ``bound``: the
    largest block bound met (an upper bound on ``max_m delta_m`` when ``ok``);
    ``worst_m``: the block start of that bound; ``failed_m``: a single ``m``
    whose certified lower end exceeds ``target`` (or whose ball straddles it)
    when not ``ok``; ``evaluations``: number of :func:`delta_m` calls."""

    ok: bool
    bound: Fraction
    worst_m: int
    failed_m: int | None
    evaluations: int
    seconds: float


def certify_all_pairs(N, q, lam, target, *, max_seconds=None, prec: int = 64, progress=None,
                      blanket: bool = True) -> AllPairsCheck:
    """Whether ``max_m delta_m^{(N)}(lam) <= target`` is certified, by the block lemma.

    Blocks ``[a, b]`` of ``m`` are bounded by ``delta_a^{(N-(b-a))}`` and split
    in two while that bound exceeds ``target``; the extremes are examined first
    so that a failing ``m`` (the canonical pair itself, usually) stops the
    search early.  ``max_seconds``: raise :class:`TimeoutError` beyond it."""
    N = domains.N.parse(N)
    q = domains.Q.parse(q)
    lam = domains.LAM.parse(lam)
    target = domains.to_fraction(target, "target")
    # neglected binomial mass: far below the target's resolution (adds <= 2 tol to an end)
    tol = min(1e-20, max(1e-300, float(target) * 1e-14))
    tol_k = min(1e-12, max(1e-300, float(target) * 1e-6))   # P[K < k0] in the blanket form
    t0 = time.monotonic()
    evals = 0
    best, best_m = Fraction(0), 0
    # initial blocks: the two extremes first, then the rest in a few pieces
    stack = [(0, N - 1)]
    if N >= 3:
        stack = [(1, N - 2), (N - 1, N - 1), (0, 0)]
    while stack:
        a, b = stack.pop()
        if max_seconds is not None and time.monotonic() - t0 > max_seconds:
            raise TimeoutError(f"all-pairs block check exceeded {max_seconds} s at N={N}")
        iv = _block_bound(N, a, b, q, lam, prec, tol=tol, tol_k=tol_k) if blanket else \
            delta_m(N - (b - a), a, q, lam, prec=prec, tol=tol)
        evals += 1
        if progress is not None:
            progress(a, b, iv)
        if iv.upper <= target:
            if iv.upper > best:
                best, best_m = iv.upper, a
            continue
        if a == b:
            return AllPairsCheck(False, iv.upper, a, a, evals, time.monotonic() - t0)
        mid = (a + b) // 2
        # the half nearer an extreme is examined first (pushed last)
        if a < N - 1 - b:
            stack += [(mid + 1, b), (a, mid)]
        else:
            stack += [(a, mid), (mid + 1, b)]
    return AllPairsCheck(True, best, best_m, None, evals, time.monotonic() - t0)


#: relative margins above a candidate tried by :func:`epsilon_upper` / :func:`delta_upper`
MARGINS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5)


def _round_up(x: Fraction, bits: int = 64) -> Fraction:
    """A dyadic rational ``>= x`` near it."""
    return Fraction(-((-x.numerator * 2**bits) // x.denominator), 2**bits)


def _refine(check, start: Fraction, rel: float, ceiling, max_seconds):
    """Finest ``c = (1 + eta) start`` (eta in :data:`MARGINS`, coarse to fine, down
    to ``rel``) with ``check(c, seconds_left)`` true; ``None`` if none."""
    t0 = time.monotonic()
    best = None
    for eta in MARGINS:
        if eta < rel:
            break
        left = None if max_seconds is None else max_seconds - (time.monotonic() - t0)
        if left is not None and left <= 0:
            break
        c = _round_up(start * (1 + Fraction(eta)))
        if ceiling is not None and c >= ceiling:
            continue
        try:
            ok = check(c, left)
        except TimeoutError:
            break
        if not ok:
            break
        best = c
    return best


def epsilon_upper(N, q, delta, start, *, rel: float = 1e-3, ceiling=None,
                  max_seconds=None) -> Fraction | None:
    """A certified upper bound on the true eps(delta) over every neighbouring pair (L = 1).

    ``start``: a candidate, typically the canonical pair's certified eps (any
    positive rational; it only steers the search).  Returns the finest
    ``c = (1 + eta) start`` such that every ``delta_m`` at a rational
    ``lam <= e^c`` is certified ``<= delta`` (so the shuffled mechanism is
    ``(c, delta)``-DP for every pair), or ``None``; candidates ``>= ceiling``
    are skipped."""
    from ..core.lam import exp_interval
    delta = domains.TARGET.parse(delta)
    start = domains.to_fraction(start, "start")

    def check(c, left):
        lam = max(Fraction(1), exp_interval(c).lower)
        return certify_all_pairs(N, q, lam, delta, max_seconds=left).ok
    return _refine(check, start, rel, ceiling, max_seconds)


def delta_upper(N, q, eps, start, *, rel: float = 1e-3, ceiling=None,
                max_seconds=None) -> Fraction | None:
    """A certified upper bound on the true delta(eps) over every neighbouring pair (L = 1):
    the finest ``c = (1 + eta) start`` with every ``delta_m(lam) <= c`` certified at a
    rational ``lam <= e^eps``, or ``None`` (see :func:`epsilon_upper`)."""
    from ..core.lam import exp_interval
    eps = domains.EPS.parse(eps)
    start = domains.to_fraction(start, "start")
    lam = max(Fraction(1), exp_interval(eps).lower)

    def check(c, left):
        return certify_all_pairs(N, q, lam, c, max_seconds=left).ok
    return _refine(check, start, rel, ceiling, max_seconds)
