"""Certified E[1/Z] and E[1/Z^2] under the null law (reverse-direction moments).

For the reverse direction R = N/X = norm/Z (003 (2.10)), ``E R`` and ``Var R``
have no closed form (the papers give the moments of 1/R = X/N instead, 003
(2.15), (2.25)).  They are computed here on the conditioning tree of
:mod:`exactdp.engine.kernel`: a subtree with ``m`` users left among categories
``0..l`` and partial sum ``Zs`` has ``Z = mu (1 + t)`` with ``mu`` the exact
conditional mean and ``t`` in ``[t_min, t_max]`` (from the smallest and largest
weight).  With ``M_k = E[(Z - mu)^k]`` (exact central moments of a sum of
``m`` i.i.d. categorical weights, from cumulants) and even ``K``:

    1/(1+t)   = sum_{k<K} (-t)^k           + t^K / (1+t)
    1/(1+t)^2 = sum_{k<K} (k+1) (-t)^k     + t^K h(t),  h(t) = (K+1+Kt)/(1+t)^2

``1/(1+t)`` and ``h`` are positive and decreasing on ``t > -1``, so each
remainder lies between ``M_K/mu^K`` times their values at ``t_max`` and
``t_min``: a rigorous enclosure.  A subtree is expanded only when its
remainder's width (times its mass) exceeds the tolerance: the remainder
classifier of the one search, :func:`exactdp.engine.search.walk`.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx, fmpq

from ..core.interval import Interval, arb_to_interval
from ..core.errors import CapacityError
from .kernel import BinomialRows, level_data
from .search import Schedule, walk

__all__ = ["inverse_moments"]


def _cumulants_from_moments(mom):
    """Cumulants kappa_1..kappa_K from raw moments m_1..m_K (mom[0] = 1)."""
    K = len(mom) - 1
    kap = [None] * (K + 1)
    for n in range(1, K + 1):
        s = mom[n]
        for j in range(1, n):
            s -= _binom(n - 1, j - 1) * kap[j] * mom[n - j]
        kap[n] = s
    return kap


def _binom(n, k):
    from math import comb
    return comb(n, k)


def _central_from_cumulants(kap, K):
    """Central moments M_0..M_K of a law with cumulants kap (kap[1] ignored)."""
    M = [arb(1), arb(0)]
    for n in range(2, K + 1):
        s = arb(0)
        for j in range(2, n + 1):
            s += _binom(n - 1, j - 1) * kap[j] * M[n - j]
        M.append(s)
    return M


class _TaylorStatistic:
    """The *remainder* classifier of :func:`exactdp.engine.search.walk` for ``E[1/Z]``,
    ``E[1/Z^2]`` (module doc): a node is settled when its Taylor remainder, times its
    mass, is below ``tol_a``; the state is the partial sum ``Zs``; the accumulators are
    ``m1``, ``m2`` and the upper-only slack ``d_m1``, ``d_m2`` of dropped mass."""

    def __init__(self, W, rows, kaps, mu_arb, K, tol_a):
        self.W, self.rows, self.kaps, self.mu_arb, self.K, self.tol_a = W, rows, kaps, mu_arb, K, tol_a
        L = len(W) - 1
        self.schedule = Schedule([L], [(0, l) for l in range(L, 0, -1)])
        self.lev = [lv[0] for lv in self.schedule.levels]

    def row(self, t, l, m):
        return self.rows[l].row(m)

    def _exact(self, acc, z, P):
        acc.m1 += P / z
        acc.m2 += P / (z * z)

    def point(self, acc, ms, Zs, P):
        self._exact(acc, arb(Zs + ms[0] * self.W[0]), P)

    def settle(self, acc, s, ms, Zs, P) -> bool:
        l, m, W, K = self.lev[s], ms[0], self.W, self.K
        zmin = Zs + m * W[0]
        if m == 0 or l == 0:
            self._exact(acc, arb(zmin), P)
            return True
        mu = arb(Zs) + m * self.mu_arb[l]
        kap = [None, arb(0)] + [m * self.kaps[l][j] for j in range(2, K + 1)]
        M = _central_from_cumulants(kap, K)      # in units of W_l
        mu_u = mu / W[l]
        tmin = arb(zmin) / mu - 1
        tmax = arb(Zs + m * W[l]) / mu - 1
        # series parts
        s1 = arb(0)
        s2 = arb(0)
        mupow = arb(1)
        for k in range(K):
            term = M[k] / mupow          # E[t^k], scale-free
            if k % 2:
                s1 -= term
                s2 -= (k + 1) * term
            else:
                s1 += term
                s2 += (k + 1) * term
            mupow *= mu_u
        EtK = M[K] / mupow
        r1 = EtK * (1 / (1 + tmax)).union(1 / (1 + tmin))
        h = lambda t: (K + 1 + K * t) / ((1 + t) * (1 + t))  # noqa: E731
        r2 = EtK * h(tmax).union(h(tmin))
        wid = P * (r1.rad() / mu + r2.rad() / (mu * mu) * mu)
        if wid < self.tol_a:
            acc.m1 += P * (s1 + r1) / mu
            acc.m2 += P * (s2 + r2) / (mu * mu)
            return True
        return False

    def split(self, acc, s, ms, Zs, P, row):
        l, m = self.lev[s], ms[0]
        return 0, m, (Zs, l, m, Zs + m * self.W[0])

    def points(self, acc, nd, P, row, first, last) -> bool:
        Zs, l, m, zmin = nd
        if l != 1:
            return False
        # leaf: sum the binomial explicitly over its window
        d = self.W[1] - self.W[0]
        for t in range(row.ka, row.kb + 1):
            self._exact(acc, arb(zmin + t * d), P * row.pmf[t - row.ka])
        self.drop(acc, nd, P * (row.tail_left + row.tail_right))
        return True

    def drop(self, acc, nd, mass):
        z = arb(nd[3])
        acc.d_m1 += mass / z
        acc.d_m2 += mass / (z * z)

    def drop_child(self, acc, nd, t, cm):
        Zs, l, m = nd[0], nd[1], nd[2]
        zlo = arb(Zs + t * self.W[l] + (m - t) * self.W[0])
        acc.d_m1 += cm / zlo
        acc.d_m2 += cm / (zlo * zlo)

    def child(self, nd, t):
        return nd[0] + t * self.W[nd[1]]


def inverse_moments(mech, n: int, *, prec: int = 192, tol: float = 1e-40, K: int = 32,
                    max_nodes: int = 3_000_000):
    """Certified ``(E[1/Z], E[1/Z^2])`` for ``Z = sum T_l W_l``, ``T ~ MN(n, pi0)``.

    >>> from exactdp.model.mechanism import Mechanism
    >>> a, b = inverse_moments(Mechanism(1, "1/3"), 2)   # Z in {2, 5, 8}: 4/9, 4/9, 1/9
    >>> a.contains(Fraction(4, 9) / 2 + Fraction(4, 9) / 5 + Fraction(1, 9) / 8)
    True
    """
    if K % 2:
        raise ValueError("K must be even")
    L = mech.L
    W = mech.weights
    theta, mu_l = level_data(mech)
    pi = mech.pi0
    with ctx.workprec(prec):
        rows = [None] + [BinomialRows(theta[l], prec, tol * 1e-6) for l in range(1, L + 1)]
        # per level: cumulants of one user's weight over categories 0..l, exact, in
        # units of W_l (kappa_j scales as W_l^j), so no precision is lost to scale
        kaps = []
        for l in range(L + 1):
            S = sum(pi[: l + 1])
            mean = sum(pi[i] / S * W[i] for i in range(l + 1)) / W[l]
            cm = [Fraction(1)] + [sum(pi[i] / S * (Fraction(W[i], W[l]) - mean) ** j
                                      for i in range(l + 1)) for j in range(1, K + 1)]
            kq = _cumulants_from_moments(cm)
            kaps.append([None] + [arb(fmpq(k.numerator, k.denominator)) for k in kq[1:]])
        mu_arb = [arb(fmpq(x.numerator, x.denominator)) for x in mu_l]
        # tolerances are relative to the scale 1/E[Z] of the answer
        ref = 1 / (arb(n) * mu_arb[L])
        stat = _TaylorStatistic(W, rows, kaps, mu_arb, K, arb(tol) * ref)
        try:
            acc = walk(stat, (n,), 0, tol=tol, max_nodes=max_nodes, what="reverse moments")
        except CapacityError:
            raise CapacityError(f"reverse moments: more than {max_nodes} tree nodes for "
                                f"N={n}, L={L}; ask for fewer digits") from None
        acc1, acc2, extra1, extra2 = acc.m1, acc.m2, acc.d_m1, acc.d_m2
        a = arb_to_interval(acc1)
        b = arb_to_interval(acc2)
        e1 = arb_to_interval(extra1).upper
        e2 = arb_to_interval(extra2).upper
    return (Interval(max(a.lower, Fraction(0)), a.upper + e1),
            Interval(max(b.lower, Fraction(0)), b.upper + e2))
