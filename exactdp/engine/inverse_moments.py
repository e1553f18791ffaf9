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
remainder's width (times its mass) exceeds the tolerance.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx, fmpq

from ..core.interval import Interval, arb_to_interval
from .kernel import BinomialRows, level_data, positive_part

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
        tol_a = arb(tol) * ref
        tol_m = arb(tol)
        acc1 = arb(0)
        acc2 = arb(0)
        extra1 = arb(0)   # upper-only slack (dropped mass)
        extra2 = arb(0)
        nodes = 0
        stack = [(L, n, 0, arb(1))]
        while stack:
            l, m, Zs, P = stack.pop()
            nodes += 1
            if nodes > max_nodes:
                from ..core.errors import CapacityError
                raise CapacityError(f"reverse moments: more than {max_nodes} tree nodes for "
                                    f"N={n}, L={L}; ask for fewer digits")
            zmin = Zs + m * W[0]
            if m == 0 or l == 0:
                z = arb(zmin)
                acc1 += P / z
                acc2 += P / (z * z)
                continue
            mu = arb(Zs) + m * mu_arb[l]
            kap = [None, arb(0)] + [m * kaps[l][j] for j in range(2, K + 1)]
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
            c1 = (s1 + r1) / mu
            c2 = (s2 + r2) / (mu * mu)
            wid = P * (r1.rad() / mu + r2.rad() / (mu * mu) * mu)
            if wid < tol_a:
                acc1 += P * c1
                acc2 += P * c2
                continue
            if l == 1:
                # leaf: sum the binomial explicitly over its window
                row = rows[1].row(m)
                d = W[1] - W[0]
                for t in range(row.ka, row.kb + 1):
                    z = arb(zmin + t * d)
                    pm = P * row.pmf[t - row.ka]
                    acc1 += pm / z
                    acc2 += pm / (z * z)
                out = P * (row.tail_left + row.tail_right)
                extra1 += out / arb(zmin)
                extra2 += out / (arb(zmin) * arb(zmin))
                continue
            row = rows[l].row(m)
            out = P * (row.tail_left + row.tail_right)
            extra1 += out / arb(zmin)
            extra2 += out / (arb(zmin) * arb(zmin))
            for t in range(row.ka, row.kb + 1):
                cm = P * row.pmf[t - row.ka]
                czs = Zs + t * W[l]
                if cm < tol_m:
                    zlo = arb(czs + (m - t) * W[0])
                    extra1 += cm / zlo
                    extra2 += cm / (zlo * zlo)
                else:
                    stack.append((l - 1, m - t, czs, cm))
        a = arb_to_interval(acc1)
        b = arb_to_interval(acc2)
        e1 = arb_to_interval(extra1).upper
        e2 = arb_to_interval(extra2).upper
    return (Interval(max(a.lower, Fraction(0)), a.upper + e1),
            Interval(max(b.lower, Fraction(0)), b.upper + e2))
