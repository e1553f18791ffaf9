r"""The Bonferroni power-sum bracket of the light elementary symmetric functions (part of
:mod:`exactdp.reductions.kfourier`; the statistic ``R``, ``kappa``, ``e_i(H)`` and the light
outputs are defined there): :class:`Threshold` (``Lo`` and ``Up`` over a ``p_2`` range, in mean-value
form for the shifted statistic), :func:`alpha_at` (the first-order cancelling shift) and
:class:`NodePoly` (the node decisions' checks as two polynomials).  The float screens of these
checks are in :mod:`~exactdp.reductions.kfourier.floats`.

**Light elementary symmetric functions by power sums.**  With ``x = p_1``,
``p_2``, ``p_3`` the power sums of the light weights and Bonferroni's
inequalities applied to ``m! e_m = sum over m-tuples of distinct indices``
(the bad event "two positions coincide" is the union of ``C(m, 2)`` events;
two of them together are a triple coincidence, ``3 C(m, 3)`` pairs of events,
or two disjoint ones, ``3 C(m, 4)`` pairs):

    x^m - C(m,2) p_2 x^(m-2)  <=  m! e_m  <=  x^m - C(m,2) p_2 x^(m-2)
                                          + 3 C(m,4) p_2^2 x^(m-4) + 3 C(m,3) p_3 x^(m-3),

and ``p_3 <= w_max p_2`` (checked exhaustively on small cases in
``tests/test_kfourier.py::test_bonferroni_brackets``).  On the event
``p_2 in [P2lo, P2hi]`` this gives ``Lo(x) <= R <= Up(x)`` with

    Lo(x) = kappa sum_m e_(k-m)(H) max(0, x^m - C(m,2) P2hi x^(m-2)) / m!      (nondecreasing in x >= 0),
    Up(x) = kappa sum_m e_(k-m)(H) (x^m - C(m,2) P2lo x^(m-2)
                                    + 3 C(m,4) P2hi^2 x^(m-4) + 3 C(m,3) w_max P2hi x^(m-3)) / m!,

``Up`` nondecreasing for ``x >= x* = sqrt(C(k,2) P2lo)`` (its derivative is
``x^(m-3) (m x^2 - (m-2) C(m,2) P2lo) + (nonnegative terms)`` per ``m``).
For a threshold ``t`` (``lam`` forward, ``1/lam`` reverse) take points with
``Lo(s_dn) > t`` and ``x* <= s_up``, ``Up(s_up) < t`` (certified in arb, found by
Newton's method in ``log x``); then, with ``F = P[p_2 not in [P2lo, P2hi]] + P[p_1 < x*]``,

    forward:  P[x > s_dn] - F  <=  P[R > lam]   <=  P[x >= s_up] + F,
    reverse:  P[x <= s_up] - F <=  P[R < 1/lam] <=  P[x <= s_dn] + F,

and the same for ``>=`` / ``<=`` (the points are strict).  ``F`` is bounded by
Chernoff bounds of the light law of ``p_2`` (weights ``w^2``) and ``p_1``
(``LightLaw.chernoff``, arb), each at most ``tol * 1e-3``.

**The shifted light statistic (optional, ``ALPHA_SHIFT``).**  For any constant
``alpha`` in ``[0, 1 / w_max)`` the light sum can be replaced by
``y = p_1 - alpha p_2 = sum (w - alpha w^2)`` (a light law of the same kind): with
``x = y + alpha p_2`` the brackets above are functions ``A(y + alpha p_2, p_2)`` and
their range over ``p_2 in [P2lo, P2hi]`` is enclosed in mean-value form
``f(pbar) + f'([P2lo, P2hi]) (p_2 - pbar)`` (``Threshold``).  ``Lo`` stays
nondecreasing in ``y`` (each term is nondecreasing in ``x >= 0`` and ``x`` increases
with ``y``), ``Up`` for ``y >= x* = sqrt(C(k,2) P2hi)`` (``x >= y``).  The choice
``alpha = -(dR/dp_2)/(dR/dx)`` at a leaf's threshold cancels the ``p_2`` range to
first order there; a coarse pilot walk picks one mass-weighted ``alpha`` (at ``100 tol`` or
``1e-5``, and where that weighs no leaf again down at eta's scale: api ``_pilot_alpha``; the
series walk takes ``tau_0 = 2 alpha`` as its bins' origin, and with ``alpha = 0`` no leaf
cancels ``p_2``: k = 16, q = 0.39, eta ~ 3.9e-9 stayed at relative width 2.5e-2).  At
``L = 40``, ``N = 10^7``, ``q = 0.351``, ``lambda = e^2``, ``tol = 1e-7`` it narrows the
enclosure at ``k = 8`` from 9.7e-3 to 1.9e-3 relative, at ``k = 16`` from 1.0e-1 to
2.5e-2 (``benchmarks/bench_kfourier.py``); on by default (``ALPHA_SHIFT``).
"""

from __future__ import annotations

import math
from math import comb

from flint import arb, arb_mat, arb_poly, ctx

from .arbs import float_hi


_FACT = {}


def _fact(k):
    """``[0!, 1!, ..., k!]`` as arbs (exact), cached."""
    if k not in _FACT:
        _FACT[k] = [arb(math.factorial(j)) for j in range(k + 1)]
    return _FACT[k]


_CONSTS = {}


def _threshold_consts(k):
    """``C(m, 2)``, ``3 C(m, 3)``, ``3 C(m, 4)`` for ``m = 0 .. k`` as exact arbs, cached."""
    if k not in _CONSTS:
        _CONSTS[k] = ([arb(comb(m, 2)) for m in range(k + 1)], [arb(3 * comb(m, 3)) for m in range(k + 1)],
                      [arb(3 * comb(m, 4)) for m in range(k + 1)])
    return _CONSTS[k]


class Threshold:
    """``Lo`` and ``Up`` of the module doc for one heavy configuration, as functions of
    ``y = p_1 - alpha p_2`` (``alpha = 0``: of ``x = p_1``), over every
    ``p_2 in [P2lo, P2hi]`` (mean-value form in ``p_2``)."""

    def __init__(self, E, kappa, k, P2lo, P2hi, wmax, *, alpha=None):
        self.E, self.kappa, self.k = E, kappa, k
        self.alpha = arb(0) if alpha is None else alpha
        self.P2 = P2lo.union(P2hi)                 # a ball containing [P2lo, P2hi]
        self.pbar = arb(self.P2.mid())
        self.D = self.P2 - self.pbar               # p_2 - pbar, a ball around 0
        self.wmax = wmax
        # exact integer constants per k, cached (built per node before: ~12 % of a k = 64 run)
        self.c2, self.c3b, self.c4 = _threshold_consts(k)
        self.fact = _fact(k)
        self.nz = [m for m in range(k + 1) if E[k - m] != 0]
        self._plain = P2lo.is_zero() and P2hi.is_zero() and wmax.is_zero() and self.alpha.is_zero()
        self._poly = None

    def _pows(self, x):
        pw = [arb(1)]
        for _ in range(self.k):
            pw.append(pw[-1] * x)
        return pw

    def _parts(self, y: arb, upper: bool):
        """Per ``m``: a ball containing ``A_m`` (``upper``: the upper bracket ``U_m``)
        at ``x = y + alpha p_2`` for every ``p_2`` in the range:
        ``f(pbar) + f'(P2) (P2 - pbar)``."""
        al, pb, P2 = self.alpha, self.pbar, self.P2
        xs = y + al * pb
        xb = y + al * P2
        ps, pB = self._pows(xs), self._pows(xb)

        def pw(v, j):
            return v[j] if j >= 0 else arb(0)
        out = {}
        for m in self.nz:
            c2, c4 = self.c2[m], self.c4[m]
            f = ps[m] - c2 * pb * pw(ps, m - 2)
            d = m * al * pw(pB, m - 1) - c2 * (pw(pB, m - 2) + (m - 2) * al * P2 * pw(pB, m - 3))
            if upper:
                c3 = self.c3b[m] * self.wmax
                if m >= 4:
                    f += c4 * pb * pb * pw(ps, m - 4)
                    d += c4 * (2 * P2 * pw(pB, m - 4) + (m - 4) * al * P2 * P2 * pw(pB, m - 5))
                if m >= 3:
                    f += c3 * pb * pw(ps, m - 3)
                    d += c3 * (pw(pB, m - 3) + (m - 3) * al * P2 * pw(pB, m - 4))
            out[m] = f + d * self.D
        return out

    def up(self, y: arb) -> arb:
        if self._plain:
            # p_2 = 0, w_max = 0, alpha = 0 (the bound e_k <= sum_m e_(k-m)(H) p_1^m / m!): the
            # brackets are x^m; one polynomial, built once
            if self._poly is None:
                self._poly = arb_poly([self.E[self.k - m] / self.fact[m] for m in range(self.k + 1)])
            return self.kappa * self._poly(y)
        tot = arb(0)
        for m, v in self._parts(y, True).items():
            tot += self.E[self.k - m] * v / self.fact[m]
        return self.kappa * tot

    def lo(self, y: arb) -> arb:
        tot = arb(0)
        for m, v in self._parts(y, False).items():
            if m >= 2 and not v > 0:     # max(0, v): 0, or the ball [0, upper end of v]
                v = arb(0) if v < 0 else arb(0).union(v.upper())
            tot += self.E[self.k - m] * v / self.fact[m]
        return self.kappa * tot

    def lo_end(self, y: arb) -> arb:
        """The lower end of :meth:`lo` (the root finder's target)."""
        return arb(self.lo(y).lower())

    def up_end(self, y: arb) -> arb:
        """The upper end of :meth:`up`."""
        return arb(self.up(y).upper())

    def dlog(self, x: arb) -> float:
        """``d log R / d log x`` of the main term (a Newton slope only)."""
        pw, num, den = self._pows(x + self.alpha * self.pbar), arb(0), arb(0)
        for m in self.nz:
            t = self.E[self.k - m] * pw[m] / self.fact[m]
            den += t
            num += m * t
        return float(num / den) if den > 0 else 1.0

    def root(self, f, thr: arb, x0: float) -> float:
        """``x`` with ``f(x) ~ thr`` (Newton in ``log x``, :func:`log_newton`, each value in arb at
        80 bits; a float guess only)."""
        def logs(y):
            with ctx.workprec(80):
                x = arb(y)
                v = f(x)
                return (float(v.log()), self.dlog(x)) if v > 0 else (math.inf, 0.0)
        return log_newton(logs, float(thr.log()), x0, iters=40, stop=1e-13)


def alpha_at(th, k, x):
    """``alpha = -(dR/dp_2) / (dR/dx)`` of the main term at ``x`` (floats), or None."""
    # in logs: e_(k-m)(H) x^m / m! over- or underflows a float at large k (200! > 1e308)
    if not x > 0:
        return None
    lx, logs = math.log(x), []
    for m in th.nz:
        e = th.E[k - m]
        if m >= 1 and e > 0:
            logs.append((m, float(e.log()) + m * lx - math.lgamma(m + 1)))
    if not logs:
        return None
    top = max(v for _, v in logs)
    num = den = 0.0
    for m, v in logs:
        t = math.exp(v - top)
        num += t * comb(m, 2) / (x * x)
        den += t * m / x
    return num / den if den > 0 else None


class NodePoly:
    """The node decisions' arb checks as polynomials in the light level ``y`` (``alpha = 0``,
    the series walk): with ``A_m = E_(k-m) / m!`` (``E`` the heavy polynomial),

        Up0(y) = kappa sum_m A_m y^m,
        Lo(y) >= kappa sum_(m <= m*) A_m (y^m - C(m, 2) P2hi y^(m-2))

    for every ``p_1 >= y`` and ``p_2 <= P2hi`` and any ``m*``: Bonferroni's
    ``m! e_m >= x^m - C(m, 2) p_2 x^(m-2)`` (module doc) and ``e_m >= 0``, each included term is
    at most ``max(0, x^(m-2) (x^2 - C(m, 2) p_2))``, which is nondecreasing in ``x`` and
    nonincreasing in ``p_2`` (a term below 0 is at most 0).  ``m*`` (the last ``m`` with
    ``C(m, 2) P2hi < y^2``, where the terms turn negative) is chosen in floats: any choice is
    valid.  Both are sums ``kappa sum_j E_j W_j`` with weights ``W`` that depend on ``y`` (and
    ``P2hi``) only (:func:`node_column`): one row-times-matrix product in arb per heavy
    polynomial for every point asked at once (:meth:`values`), the columns built once per
    light law by the caller, instead of :class:`Threshold`'s mean-value form per ``m``
    (cheaper than the float screens, which are not used on this path)."""

    def __init__(self, E, kappa, k):
        # E_j = 0 beyond the heavy polynomial's length (its degree is at most the heavy outputs
        # placed: a handful of k + 1 at k = 200): the row and the columns' rows up to it only
        row = list(E[:k + 1])
        while row and row[-1].is_zero():
            row.pop()
        self.n = max(len(row), 1)
        self.row = arb_mat([row or [arb(0)]])
        self.kappa, self.k = kappa, k

    def values(self, cols: arb_mat) -> list:
        """``kappa sum_j E_j W_j`` for every column ``W`` of ``cols`` (its first :attr:`n` rows:
        :func:`prefix_rows`, which callers may cache)."""
        v = self.row * prefix_rows(cols, self.n)
        return [self.kappa * v[0, c] for c in range(cols.ncols())]

    def lo(self, y: float, P2hi: arb) -> arb:
        return self.values(node_column(self.k, y, P2hi))[0]

    def up0(self, y: float) -> arb:
        return self.values(node_column(self.k, y, None))[0]


def prefix_rows(cols: arb_mat, n: int) -> arb_mat:
    """The first ``n`` rows of ``cols`` (``cols`` itself where it has ``n``).

    >>> prefix_rows(arb_mat([[1], [2], [3]]), 2).nrows()
    2
    """
    if cols.nrows() == n:
        return cols
    return arb_mat([[cols[j, c] for c in range(cols.ncols())] for j in range(n)])


def node_column(k: int, y: float, P2hi, *, more=()) -> arb_mat:
    """The weights ``W_j`` of :class:`NodePoly` at ``y`` as a ``(k + 1) x 1`` matrix (``E_j``
    pairs with ``m = k - j``): ``Up0`` (``P2hi`` None): ``W_j = y^m / m!``; ``Lo``:
    ``y^m / m! - P2hi y^(m-2) / (2 (m-2)!)`` for ``m <= m*`` (``C(m, 2) / m! = 1 / (2 (m-2)!)``),
    0 above.  ``more``: further ``(y, P2hi)`` as further columns.

    >>> c = node_column(2, 0.5, None)            # y^2 / 2, y, 1 against E_0, E_1, E_2
    >>> [c[j, 0] for j in range(3)] == [arb(0.125), arb(0.5), arb(1)]
    True
    >>> NodePoly([arb(1), arb(2), arb(3)], arb(1), 2).up0(0.5) == arb(4.125)
    True
    """
    cols = []
    for yy, p2 in ((y, P2hi), *more):
        Y = arb(yy)
        g = [arb(1)]
        for m in range(1, k + 1):
            g.append(g[-1] * Y / m)            # Y^m / m!
        if p2 is None:
            cols.append(g)
            continue
        p, y2 = float_hi(p2), yy * yy
        ms = 1
        while ms < k and (ms + 1) * ms / 2 * p < y2:
            ms += 1
        half = p2 / 2
        cols.append([(g[m] - half * g[m - 2] if m >= 2 else g[m]) if m <= ms else arb(0)
                     for m in range(k + 1)])
    return arb_mat([[c[k - j] for c in cols] for j in range(k + 1)])


def log_newton(f, lthr: float, y0: float, iters: int = 60, stop: float = 1e-7) -> float:
    """``y`` with ``log F(y) ~ lthr`` by Newton's method in ``log y`` (``f(y) = (log F,
    d log F / d log y)``, ``F`` nondecreasing; a float guess only).  Stops after a step below
    ``stop``: after ``1e-7`` the point is off by ~1e-14 (quadratic convergence), the float images'
    own accuracy (one evaluation per root fewer than stepping until the step vanishes).

    >>> round(log_newton(lambda y: (2 * math.log(y), 2.0), math.log(9.0), 1.0), 12)
    3.0"""
    t = math.log(max(y0, 1e-300))
    for _ in range(iters):
        lv, sl = f(math.exp(t))
        if not math.isfinite(lv):
            step = 1.0
        else:
            step = -(lv - lthr) / max(sl, 1e-3)
        step = max(-2.0, min(2.0, step))
        t += step
        if abs(step) < stop:
            break
    return math.exp(t)
