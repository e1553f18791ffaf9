"""The lower-tail product bound (:mod:`exactdp.reductions.kfourier.lowertail`) against exact
enumeration in ``Fraction``: its deterministic step (``R >= kappa g_j0 prod phi_l(T_l)`` for every
count vector) and the whole bound (``P[R <= thr] <= B``) on the exact law of ``R``; at deployment
scale, the API's use of it against a seeded Monte Carlo."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from flint import arb, ctx

from exactdp.model.mechanism import Mechanism
from exactdp.reductions.kfourier import kfourier_details
from exactdp.reductions.kfourier.lowertail import Choice, count_law, deficit_tail, expected_power, lower_tail, \
    product_bound
from exactdp.reductions.pairs import canonical_pair


def _compositions(n, parts):
    """Every count vector of ``n`` outputs over ``parts`` levels (each once)."""
    for combo in itertools.combinations_with_replacement(range(parts), n):
        yield tuple(combo.count(level) for level in range(parts))


def _multinomial(n, counts, probs):
    p = Fraction(math.factorial(n))
    for c, pr in zip(counts, probs):
        p = p / math.factorial(c) * pr ** c
    return p


def _R(mech, k, counts):
    """``R = e_k(c) / C(M, k)`` of the outputs with level counts ``counts`` (exact)."""
    poly = [Fraction(1)] + [Fraction(0)] * k
    for l, t in enumerate(counts):
        for _ in range(t):
            for j in range(k, 0, -1):
                poly[j] += mech.c[l] * poly[j - 1]
    return poly[k] / math.comb(sum(counts), k)


def _law(mech, k, n, m):
    """The exact law of ``R`` for ``n`` null outputs and ``m`` of the changed user."""
    L = mech.L
    out = {}
    for t0 in _compositions(n, L + 1):
        p0 = _multinomial(n, t0, mech.pi0)
        for t1 in _compositions(m, L + 1):
            R = _R(mech, k, [a + b for a, b in zip(t0, t1)])
            out[R] = out.get(R, 0) + p0 * _multinomial(m, t1, mech.pi1)
    return out


def _arb(x: Fraction) -> arb:
    return arb(x.numerator) / x.denominator


@pytest.mark.parametrize("L, q, k, cut, quota, excess, dmax", [
    (2, "1/10", 2, 1, {2: 1}, {2: 1}, None),
    (2, "1/10", 3, 1, {2: 1}, {2: 1}, None),
    (2, "1/5", 3, 2, {2: 2}, {2: 0}, None),
    (2, "1/5", 3, 2, {2: 2}, {2: 0}, 1),
    (3, "1/5", 3, 2, {2: 1, 3: 1}, {2: 1, 3: 0}, None),
    (3, "1/5", 4, 1, {1: 1, 2: 1, 3: 1}, {1: 0, 2: 1, 3: 0}, None),
    (3, "1/5", 4, 1, {1: 1, 2: 1, 3: 1}, {1: 0, 2: 1, 3: 0}, 1),
    (3, "1/10", 4, 1, {2: 2, 3: 1}, {2: 1, 3: 0}, 0),
])
def test_product_bound_is_below_R_for_every_count_vector(L, q, k, cut, quota, excess, dmax):
    """Step 2 of the module doc, pointwise: with ``a``, ``b`` the light outputs' own ``p_1``,
    ``p_2`` the product bound is at most ``R`` for every count vector of ``M = 9`` outputs whose
    deficits are within the cap (and whose light part has a positive pool; 0 is returned
    otherwise)."""
    mech = Mechanism(L, q)
    old, ctx.prec = ctx.prec, 200           # equality is possible (every term kept): 200 bits
    try:
        _pointwise(mech, k, 9, Choice(cut, quota, excess, 0, 0, dmax=dmax))
    finally:
        ctx.prec = old


def _pointwise(mech, k, M, ch):
    tight = 0
    for counts in _compositions(M, mech.L + 1):
        p1 = sum(counts[l] * mech.c[l] / M for l in range(ch.cut))
        p2 = sum(counts[l] * (mech.c[l] / M) ** 2 for l in range(ch.cut))
        if p1 == 0 or sum(ml - min(counts[l], ml) for l, ml in ch.quota.items()) > ch.cap:
            continue
        R = _R(mech, k, counts)
        bound = product_bound(mech, k, counts, Choice(ch.cut, ch.quota, ch.excess, p1, p2, dmax=ch.dmax))
        assert not bound > _arb(R), (counts, float(bound), float(R))
        tight += bound > _arb(R) / 4
    assert tight > 0                         # the bound is not vacuous everywhere


@pytest.mark.parametrize("L, q, k, n, m", [
    (2, "1/10", 2, 60, 2),
    (2, "1/5", 2, 60, 2),
    (2, "1/10", 3, 40, 3),
])
def test_lower_tail_bounds_the_exact_law(L, q, k, n, m):
    """``P[R <= thr] <= B`` on the exact law of ``R`` (``Fraction``), at five thresholds; at
    least one bound is informative (below 1)."""
    mech = Mechanism(L, q)
    law = _law(mech, k, n, m)
    assert sum(law.values()) == 1
    informative = 0
    for thr in (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5), Fraction(20)):
        exact = sum(p for R, p in law.items() if R <= thr)
        r = lower_tail(mech, k, n, m, _arb(thr))
        if r is None:
            continue
        informative += 1
        assert r.bound >= exact, (thr, r, float(exact))
    assert informative > 0


@pytest.mark.parametrize("n, m, p0, p1, psi, tmax", [
    (12, 3, Fraction(1, 7), Fraction(3, 5), lambda t: Fraction(1, 9) + 2 * t + 5 * math.comb(t, 2), 15),
    (12, 3, Fraction(1, 7), Fraction(3, 5), lambda t: Fraction(1, 9) + 2 * t + 5 * math.comb(t, 2), 6),
    (20, 0, Fraction(1, 3), Fraction(0), lambda t: Fraction(1, 100) + Fraction(t, 2), 9),
])
def test_expected_power_against_the_exact_sum(n, m, p0, p1, psi, tmax):
    """Step 3's per-level expectation at ``s = 1``: ``E[1 / psi(T)]`` of ``T = Bin(n, p0) + Bin(m,
    p1)`` in ``Fraction`` over the whole support.  Summed to the end (``tmax >= n + m``) the
    enclosure is tight; cut short it is an upper bound (the tail at ``psi(tmax + 1)``)."""
    def pmf(N, p, t):
        return math.comb(N, t) * p ** t * (1 - p) ** (N - t)
    exact = sum(pmf(n, p0, a) * pmf(m, p1, b) / psi(a + b) for a in range(n + 1) for b in range(m + 1))
    law = count_law(n, _arb(p0), m, _arb(p1), tmax)
    for t in range(min(tmax, n + m) + 1):
        assert law[t].contains(_arb(sum(pmf(n, p0, t - b) * pmf(m, p1, b) for b in range(m + 1) if t - b >= 0)))
    got = expected_power(law, [_arb(psi(t)) for t in range(tmax + 2)], s=arb(1))
    assert not got < _arb(exact)
    if tmax >= n + m:
        assert got.contains(_arb(exact)) and float(got.rad()) < 1e-12 * float(exact)
    else:
        assert float(got) > float(exact) * (1 + 1e-6)


def test_deficit_tail_bounds_the_exact_tail():
    """Step 3's deficit cap: ``P[D > cap]`` of ``D = sum_l (m_l - min(T_l, m_l))`` over two
    independent binomial counts, exact in ``Fraction``, below the Chernoff bound at every cap and
    at two ``t``."""
    laws = {0: (8, Fraction(1, 4)), 1: (5, Fraction(1, 2))}
    quota = {0: 3, 1: 2}

    def pmf(N, p, t):
        return math.comb(N, t) * p ** t * (1 - p) ** (N - t)
    arb_laws = {l: count_law(N, _arb(p), 0, arb(0), N) for l, (N, p) in laws.items()}
    for cap in range(0, 5):
        exact = sum(pmf(8, Fraction(1, 4), a) * pmf(5, Fraction(1, 2), b) for a in range(9) for b in range(6)
                    if (3 - min(a, 3)) + (2 - min(b, 2)) > cap)
        for t in (0.5, 2.0):
            assert not deficit_tail(arb_laws, quota, cap, t) < _arb(exact)
    assert deficit_tail(arb_laws, quota, 5, 1.0) == 0


def test_lower_tail_refuses_a_bad_k():
    with pytest.raises(ValueError, match="k"):
        lower_tail(Mechanism(2, "1/10"), 0, 10, 1, arb(2))


def test_eta_near_one_at_k_200_by_the_lower_tail():
    """L = 40, N = 10^7, q = 0.30, lam = e^2, forward, k = 200: the product bound alone certifies
    eta >= 1 - 1e-4 (the walk gave [0.47, 1] at tol 1e-2 in 728 CPU s); a seeded Monte Carlo of
    2000 draws has every log R above 2 (its 0.1 % quantile is near 80: benchmarks/RESULTS.md)."""
    from exactdp.apps.kscale import _mc_log_r
    r = kfourier_details(canonical_pair(10**7, 40, 200), "0.30", eps=2, tol=1e-4)
    assert r.method == "lower tail" and r.nodes == 0
    assert r.eta.upper == 1 and 1 - r.eta.lower < Fraction(1, 10**4)
    logs = _mc_log_r(200, Fraction(3, 10), N=10**7, L=40, draws=500, seed=5, reverse=False)
    assert (logs > 2).mean() >= float(r.eta.lower) - 0.01
