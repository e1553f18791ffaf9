"""Homogeneous pairs under k-randomization at any L and N: certified eta.

Under k-randomization (003 §1) every user submits ``k`` independent
randomizations of its vector and the server sees the histogram of all ``kN``
outputs.  This module covers the pairs where one collection is homogeneous --
000's pair at Hamming distance ``d`` (``D = z^N``, ``D_m = z^(N-1) + x_m``,
*forward*) and its reverse (``D = z^(N-1) + x``, ``D_m = z^N``, 003 §1.2's
choice) -- which the checkers of :mod:`exactdp.apps.conjectures` use as the
references of the maximality-k conjecture.

Flip the columns where ``z`` has a 1 (``proofs/symmetry_reductions.py``,
sym-group) so that ``z = 0``, and let ``w`` be the changed vector (``x_m``
forward, ``x`` reverse), ``d = |w|``.  Summing over which ``k`` of the ``kN``
outputs came from ``w`` (000 (8.21) as corrected in
``proofs/k_randomization.py``, id 000-8.21)

    P(S | 0^(N-1) + w) / P(S | 0^N) = e_k(r(v_1), ..., r(v_kN)) / C(kN, k),
    r(v) = p(v | w) / p(v | 0) = (p/q)^(2 j(v) - d),

with ``e_k`` the elementary symmetric polynomial and ``j(v)`` the number of
``w``'s columns set in ``v`` (the other columns cancel).  So

    forward:  R > lam  <=>  e_k > lam C(kN, k),      S ~ 0^(k(N-1)) + k draws from w,
    reverse:  R > lam  <=>  e_k < C(kN, k) / lam,    S ~ 0^(kN),

and ``e_k`` depends on ``S`` only through the class counts ``n_0..n_d``
(``n_j`` outputs with ``j(v) = j``), a multinomial.  ``e_k`` is nondecreasing in
every argument and ``r`` increases with ``j``, so moving outputs to a higher
class never lowers it: the search conditions on ``n_d``, then ``n_(d-1)``, ...
(binomial splits), and a node whose remaining outputs all in the lowest class
already exceed the threshold (or all in the highest class stay below it) is
summed in closed form by a binomial tail; at the last split ``e_k`` is a
nondecreasing function of ``n_1`` and the straddling set is found by bisection.
Exact integers throughout (``r_j`` scaled by ``(p q)^d`` with ``q`` in lowest
terms), binomial masses as arb balls (:class:`exactdp.engine.kernel.BinomialRows`),
nodes of mass below ``tol`` counted as ``[0, 1]``: a rigorous enclosure.  For
``k = 1`` this is the homogeneous engine's event (``e_1 = A``).

>>> from exactdp.reductions.pairs import Pair, eta_exact
>>> P = Pair.homogeneous(3, 2, 0, 0, 3, k=2)             # 000's pair, N = 3, L = 2, k = 2
>>> iv = kcopies_eta(P, "1/4", 2)
>>> iv.contains(eta_exact(P, "1/4", 2)), float(iv.width) < 1e-20
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement
import math
from math import comb

from flint import ctx

from ..core import domains
from ..core.errors import CapacityError, ParameterError
from ..core.interval import Interval, arb_to_interval
from ..engine.kernel import BinomialRows, lam_threshold
from ..engine.search import Schedule, walk
from ..core.lam import parse_lam_eps
from ..model.pair import Pair, weight

__all__ = ["KCopies", "kcopies", "kcopies_eta", "kcopies_delta", "delta_of_two_masses", "parse_query", "MAX_TILTS"]

#: Largest number of class compositions of the changed user's ``k`` outputs
#: (forward pairs condition on each: ``C(k + d, d)`` of them).
MAX_TILTS = 5000


@dataclass(frozen=True)
class KCopies:
    """A pair with one homogeneous collection, reduced: ``N`` users, ``k``
    randomizations each, the changed vector at Hamming distance ``d`` from the
    base vector, ``forward`` if ``D`` is the homogeneous one (``x = z``)."""

    N: int
    k: int
    d: int
    forward: bool


def kcopies(P: Pair) -> KCopies | None:
    """The reduction of ``P`` if its base is homogeneous (``z^(N-1)``) and
    ``x = z`` or ``x_m = z`` (``x != x_m``), else ``None``.

    >>> kcopies(Pair.homogeneous(10, 5, 0, 0, 7, k=2))
    KCopies(N=10, k=2, d=3, forward=True)
    >>> kcopies(Pair.homogeneous(10, 5, 0, 7, 0, k=2)).forward
    False
    """
    types = [t for t, _ in P.base]
    if len(types) > 1 or P.x == P.x_m:
        return None
    if not types:                       # N = 1: the base is empty; either vector serves as z
        z = P.x
    else:
        z = types[0]
    if P.x == z:
        return KCopies(P.N, P.k, weight(P.x_m ^ z), True)
    if P.x_m == z:
        return KCopies(P.N, P.k, weight(P.x ^ z), False)
    return None


def _esym(ps: list[int], k: int) -> int:
    """``e_k`` from the power sums ``ps[i] = p_(i+1)`` (Newton's identities, exact)."""
    e = [1]
    for m in range(1, k + 1):
        s = 0
        for i in range(1, m + 1):
            s += (-1) ** (i - 1) * e[m - i] * ps[i - 1]
        e_m, rem = divmod(s, m)
        assert rem == 0
        e.append(e_m)
    return e[k]


def _fesym(ps: list[float], k: int) -> float:
    """Floating-point ``e_k`` from power sums (a guess only)."""
    e = [1.0]
    for m in range(1, k + 1):
        e.append(sum((-1) ** (i - 1) * e[m - i] * ps[i - 1] for i in range(1, m + 1)) / m)
    return e[k]


def _least(pred, hi: int, guess: int) -> int:
    """Least ``x`` in ``[0, hi]`` with ``pred(x)`` (``pred`` monotone: false then
    true), ``hi + 1`` if none: exact, galloping out from ``guess`` then bisecting."""
    g = min(max(guess, 0), hi + 1)
    if g <= hi and pred(g):
        b, step, a = g, 1, g - 1             # pred(b) true
        while a >= 0 and pred(a):
            b, step = a, step * 2
            a = b - step
        a = max(a, -1)                       # pred(a) false, or a = -1
    else:
        if g > hi:
            if hi < 0 or not pred(hi):
                return hi + 1
            a, b = -1, hi                    # fall back to plain bisection
        else:
            a, step, b = g, 1, g + 1         # pred(a) false
            while b <= hi and not pred(b):
                a, step = b, step * 2
                b = a + step
            b = min(b, hi + 1)               # pred(b) true, or b = hi + 1
    while b - a > 1:
        mid = (a + b) // 2
        if pred(mid):
            b = mid
        else:
            a = mid
    return b


class _Search:
    """Three-way certified masses ``P[e_k > tau]``, ``P[e_k = tau]``, ``P[e_k < tau]``
    for class counts ``offset + MN(M, pi)``; ``tau = tau_num / tau_den``."""

    def __init__(self, a: list[int], pi: list[Fraction], k: int, tau: Fraction, prec: int, tol: float,
                 *, max_nodes: int | None, progress=None):
        self.a, self.k, self.d = a, k, len(a) - 1
        self.pow = [[aj ** i for i in range(1, k + 1)] for aj in a]
        self.tn, self.td = tau.numerator, tau.denominator
        self.prec, self.tol, self.max_nodes = prec, tol, max_nodes
        self.progress = progress
        self.rows = {}
        acc = Fraction(0)
        cum = []
        for p_ in pi:
            acc += p_
            cum.append(acc)
        for j in range(1, self.d + 1):
            self.rows[j] = BinomialRows(pi[j] / cum[j], prec, tol * 1e-6)
        self.schedule = Schedule([self.d], [(0, j) for j in range(self.d, 0, -1)])
        self.nodes = 0
        # floating-point copies scaled by a_d^i (values <= 1) for the search's first guess
        top = a[-1]
        self.fscale = [float(top) ** i for i in range(1, k + 1)]
        self.fpow = [[(aj / top) ** i for i in range(1, k + 1)] for aj in a]
        self.ftau = float(tau / Fraction(top) ** k)

    def _cmp(self, ps) -> int:
        v = _esym(ps, self.k) * self.td - self.tn
        return (v > 0) - (v < 0)

    def _guess(self, ps, j, m, other, strict) -> int:
        """A floating-point estimate of the least ``x`` in ``[0, m]`` with
        ``e_k(x) > tau`` (``>=`` if not ``strict``): only a starting point for the
        exact search, so its rounding never matters."""
        try:
            s = self.fscale
            fp = [float(ps[i]) / s[i] for i in range(self.k)]
            Pj, Po = self.fpow[j], self.fpow[other]
            c = [fp[i] + m * Po[i] for i in range(self.k)]          # power sums at x = 0
            dd = [Pj[i] - Po[i] for i in range(self.k)]             # their slopes in x
            if self.k <= 2:                  # e_1 = p_1, 2 e_2 = p_1^2 - p_2: solve in closed form
                t = self.ftau if self.k == 1 else 2 * self.ftau
                if self.k == 1:
                    x = (t - c[0]) / dd[0] if dd[0] else 0.0
                else:
                    A, B, C = dd[0] ** 2, 2 * c[0] * dd[0] - dd[1], c[0] ** 2 - c[1] - t
                    disc = B * B - 4 * A * C
                    x = (-B + math.sqrt(disc)) / (2 * A) if A > 0 and disc >= 0 else 0.0
                return int(min(max(math.floor(x), -1), m)) + 1
            lo, hi = 0, m + 1
            while lo < hi:
                x = (lo + hi) // 2
                e = _fesym([c[i] + x * dd[i] for i in range(self.k)], self.k)
                if e > self.ftau or (not strict and e == self.ftau):
                    hi = x
                else:
                    lo = x + 1
            return lo
        except (OverflowError, ZeroDivisionError, ValueError):
            return m // 2

    def _val(self, ps, j, x, m, other):
        P_ = self.pow
        return [ps[i] + x * P_[j][i] + (m - x) * P_[other][i] for i in range(self.k)]

    # ----------------------------------------------- hooks of exactdp.engine.search.walk
    # (monotone-bisection classifier: e_k is increasing in the count of a class with a
    # larger ratio moved from a smaller one, so the children wholly above / below form a
    # suffix / prefix found by exact bisection; the state is the vector of power sums)
    def row(self, t, l, m):
        return self.rows[l].row(m)

    def settle(self, acc, s, ms, ps, P) -> bool:
        return False

    def point(self, acc, ms, ps, P):
        c = self._cmp(self._val(ps, 0, 0, ms[0], 0))       # the free users left are in class 0
        if c > 0:
            acc.up_P += P
        elif c < 0:
            acc.lo_P += P
        else:
            acc.eq_P += P

    def split(self, acc, s, ms, ps, P, row):
        j, m = self.d - s, ms[0]
        # x_a: least x whose subtree is wholly above (all the rest in class 0);
        # x_b: greatest x whose subtree is wholly below (all the rest in class j - 1)
        xa = _least(lambda x: self._cmp(self._val(ps, j, x, m, 0)) > 0, m,
                    self._guess(ps, j, m, 0, True))
        xb = _least(lambda x: self._cmp(self._val(ps, j, x, m, j - 1)) >= 0, m,
                    self._guess(ps, j, m, j - 1, False)) - 1
        if xa <= m:
            acc.up_P += P * row.sf_ge(xa)
        if xb >= 0:
            acc.lo_P += P * row.cdf_le(xb)
        return xb + 1, xa - 1, (ps, j)

    def points(self, acc, nd, P, row, first, last) -> bool:
        if nd[1] != 1:
            return False
        if first > last:
            return True
        # a point: lo == hi, so every straddling value equals tau
        lw, hw = max(first, row.ka), min(last, row.kb)
        if first < row.ka:
            acc.d_P += P * row.tail_left
        if last > row.kb:
            acc.d_P += P * row.tail_right
        for x in range(lw, hw + 1):
            acc.eq_P += P * row.pmf[x - row.ka]
        return True

    def drop(self, acc, nd, mass):
        acc.d_P += mass

    def drop_child(self, acc, nd, x, mass):
        acc.d_P += mass

    def child(self, nd, x):
        ps, j = nd
        pj = self.pow[j]
        return [ps[i] + x * pj[i] for i in range(self.k)]

    def run(self, offset: list[int], M: int):
        """``(above, equal, below, dropped)`` masses (arb balls) for counts
        ``offset + MN(M, pi)``, by :func:`exactdp.engine.search.walk`."""
        ps0 = [sum(offset[c] * self.pow[c][i] for c in range(self.d + 1)) for i in range(self.k)]
        budget = None if self.max_nodes is None else self.max_nodes - self.nodes
        with ctx.workprec(self.prec):
            try:
                acc = walk(self, (M,), ps0, tol=self.tol, max_nodes=budget, what="kcopies_eta",
                           progress=self.progress)
            except CapacityError:
                raise CapacityError(f"kcopies_eta: more than {self.max_nodes} nodes; use a larger tol") from None
            self.nodes += acc.nodes
            return acc.up_P, acc.eq_P, acc.lo_P, acc.d_P


def _event(side, eq, drop, inclusive: bool) -> Interval:
    """``[lower, upper]`` of the event's mass: its side (plus the ties if
    ``inclusive``) and, for the upper end, the mass of the nodes not searched.
    The balls are converted one by one (exact rationals), never added at the
    default 53-bit precision."""
    s, e = arb_to_interval(side), arb_to_interval(eq)
    lo = s.lower + (e.lower if inclusive else 0)
    hi = s.upper + (e.upper if inclusive else 0) + arb_to_interval(drop).upper
    return Interval(max(lo, Fraction(0)), min(hi, Fraction(1)))


def parse_query(P: Pair, q, lam, eps, tol: float, who: str):
    """``(red, q, lam, eps)``: the k-copies reduction of ``P`` (:func:`kcopies`) and the query's
    exact inputs, parsed once; one-line errors naming ``who`` and the parameter."""
    red = kcopies(P)
    if red is None:
        raise ParameterError(f"{who} needs a homogeneous base with x = z or x_m = z "
                             f"(got {P.describe()})")
    q = Fraction(domains.Q.parse(q))
    lam, eps = parse_lam_eps(lam, eps)
    if not 0 < tol < 1:
        raise ParameterError(f"tol must lie in (0, 1), got {tol}")
    return red, q, lam, eps


def kcopies_eta(P: Pair, q, lam=None, *, eps=None, inclusive: bool = False, tol: float = 1e-15,
                prec: int = 128, max_nodes: int | None = None, progress=None) -> Interval:
    """Certified enclosure of ``eta = P[R > lam]`` (``>=`` if ``inclusive``),
    ``S ~ A(D_m)`` under ``P.k``-randomization, for a pair with one homogeneous
    collection (module doc).  Give ``lam`` (exact rational) or ``eps``
    (``lam = e^eps`` enclosed in a ball; the search compares the integer
    ``e_k`` with a rational that no integer can tie, see
    :class:`exactdp.engine.kernel.Threshold`).  ``tol`` is the mass below which a node is counted
    as ``[0, 1]``; ``max_nodes`` bounds the search (:class:`CapacityError`); ``progress(nodes, dropped)``
    is called about twice a second (:func:`exactdp.engine.search.walk`).

    >>> P = Pair.homogeneous(1000, 5, 0, 31, 0, k=2)   # 003's reverse pair, L = 5, k = 2
    >>> iv = kcopies_eta(P, "0.2446", 2, tol=1e-12)
    >>> 0.0536 < float(iv.lower) < float(iv.upper) < 0.0537, float(iv.width) < 1e-8
    (True, True)
    """
    red, q, lam, eps = parse_query(P, q, lam, eps, tol, "kcopies_eta")
    return _event_mass(red, q, lam, eps, inclusive=inclusive, tol=tol, prec=prec, max_nodes=max_nodes,
                       progress=progress, changed=red.forward, upper=red.forward)


def _event_mass(red, q, lam, eps, *, inclusive=False, tol=1e-15, prec=128, max_nodes=None,
                progress=None, changed: bool, upper: bool) -> Interval:
    """``P[R > lam]`` (``upper``) or ``P[R < 1/lam]`` (not ``upper``), ``R = e_k / C(kN, k)``
    (``P(S | 0^(N-1) + w) / P(S | 0^N)``), under the law with the changed user (``changed``:
    ``k(N - 1)`` null outputs and ``k`` draws from ``w``) or the null law (``0^(kN)``).
    :func:`kcopies_eta` is (changed, upper) forward and (null, lower) reverse; the other two are
    the second etas of :func:`kcopies_delta`.  The search and its bounds do not depend on the
    law (each tilt is a search from its own offset) nor on the side (``up``, ``lo``: the masses
    on either side of the same threshold)."""
    N, k, d = red.N, red.k, red.d
    ntilt = comb(k + d, d) if changed else 1
    if ntilt > MAX_TILTS:
        raise CapacityError(f"kcopies_eta: {ntilt} class compositions of the changed user's k = {k} outputs "
                            f"> MAX_TILTS = {MAX_TILTS}; use a smaller k or d")
    p = 1 - q
    qn, pn = q.numerator, p.numerator              # common denominator q.denominator
    a = [pn ** (2 * j) * qn ** (2 * (d - j)) for j in range(d + 1)]      # r_j (p q)^d, integers
    scale = (pn * qn) ** (d * k)
    C = comb(k * N, k)
    pi0 = [comb(d, j) * q ** j * p ** (d - j) for j in range(d + 1)]
    pi1 = [comb(d, j) * p ** j * q ** (d - j) for j in range(d + 1)]
    th = lam_threshold(Fraction(C * scale), lam, eps, invert=not upper, prec=prec)
    tau = th.value                    # exact, or (eps) a rational no integer e_k can tie
    S = _Search(a, pi0, k, tau, prec, tol, max_nodes=max_nodes, progress=progress)
    lo_acc, hi_acc = Fraction(0), Fraction(0)
    if changed:
        for classes in combinations_with_replacement(range(d + 1), k):   # the k outputs' classes
            t = [classes.count(c) for c in range(d + 1)]
            wt = Fraction(1)
            rest = k
            for c, tc in enumerate(t):
                wt *= comb(rest, tc) * pi1[c] ** tc
                rest -= tc
            if wt == 0:
                continue
            up, eq, lo, drop = S.run(t, k * (N - 1))
            iv = _event(up if upper else lo, eq, drop, inclusive)
            lo_acc += wt * iv.lower
            hi_acc += wt * iv.upper
    else:
        up, eq, lo, drop = S.run([0] * (d + 1), k * N)
        iv = _event(up if upper else lo, eq, drop, inclusive)
        lo_acc, hi_acc = iv.lower, iv.upper
    return Interval(max(lo_acc, Fraction(0)), min(hi_acc, Fraction(1)))


def kcopies_delta(P: Pair, q, lam=None, *, eps=None, tol: float = 1e-15, prec: int = 128,
                  max_nodes: int | None = None, progress=None) -> Interval:
    """Certified ``delta = E[(1 - lam / R~)+]`` (``R~ = R`` forward, ``1/R`` reverse) as the
    difference of two searches (:func:`exactdp.reductions.kfourier.kfourier_delta` derives it):
    forward ``P_(D_m)[R > lam] - lam P_D[R > lam]``, reverse ``P_D[R < 1/lam] - lam
    P_(D_m)[R < 1/lam]``; with ``a``, ``b`` the two enclosures and ``lam`` in ``[lam_lo, lam_hi]``
    (``e^eps``), ``delta in [a_lo - lam_hi b_hi, a_hi - lam_lo b_lo]``.  The width is the two
    searches' dropped mass (``tol`` per node), absolute.  ``max_nodes`` bounds each search.

    >>> from exactdp.reductions.pairs import delta_exact
    >>> P = Pair.homogeneous(3, 2, 0, 0, 3, k=2)             # 000's pair, N = 3, L = 2, k = 2
    >>> kcopies_delta(P, "1/4", 2).contains(delta_exact(P, "1/4", 2))
    True
    """
    from ..core.lam import lam_interval
    red, q, lam, eps = parse_query(P, q, lam, eps, tol, "kcopies_delta")
    kw = {"tol": tol, "prec": prec, "max_nodes": max_nodes, "progress": progress}
    a = _event_mass(red, q, lam, eps, changed=red.forward, upper=red.forward, **kw)
    b = _event_mass(red, q, lam, eps, changed=not red.forward, upper=red.forward, **kw)
    return delta_of_two_masses(a, b, lam_interval(lam, eps))


def delta_of_two_masses(first: Interval, second: Interval, lam: Interval) -> Interval:
    """``delta = P_1[E] - lam P_2[E]`` from enclosures of the two masses and of ``lam``:
    ``[a_lo - lam_hi b_hi, a_hi - lam_lo b_lo]`` clipped to ``[0, 1]`` (delta >= 0 always)."""
    lo = min(max(first.lower - lam.upper * second.upper, Fraction(0)), Fraction(1))
    hi = min(max(first.upper - lam.lower * second.lower, lo), Fraction(1))
    return Interval(lo, hi)
