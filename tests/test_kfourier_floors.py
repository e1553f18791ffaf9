"""Floor counts in the walk's decisions above (exactdp.reductions.kfourier.walk, module doc:
"Floor counts"): a guaranteed number of the unplaced heavy outputs kept at their levels'
weights, the rest lowered to the light law, the counts' failure added to the bound."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction
from math import comb, factorial

import pytest
from flint import arb, arb_poly, ctx

from exactdp.model.mechanism import Mechanism

from exactdp.reductions.kcopies import parse_query
from exactdp.reductions.kfourier import settings, walk
from exactdp.reductions.pairs import canonical_pair


@pytest.fixture
def prec160():
    with ctx.workprec(160):
        yield


@pytest.mark.parametrize("n, theta", [(1, Fraction(1, 2)), (12, Fraction(1, 7)), (40, Fraction(3, 10)),
                                      (300, Fraction(1, 20))])
def test_binomial_lower_tail_encloses_the_exact_sum(prec160, n, theta):
    for a in range(0, min(n, 25) + 1):
        exact = sum(comb(n, j) * theta ** j * (1 - theta) ** (n - j) for j in range(a))
        enc = walk._binom_lower_tail(n, arb(theta.numerator) / theta.denominator, a)
        assert enc.contains(arb(exact.numerator) / exact.denominator), (n, theta, a)
        assert float(enc.rad()) < 1e-30


def _walk(q, k, heavy):
    """A walk of 000's pair at L = 4 with the levels ``heavy`` declared heavy (the rest light):
    there the unplaced outputs' counts at those levels are large enough for floors at a handful
    of outputs (the floors read only the levels, weights and cumulative laws)."""
    red = parse_query(canonical_pair(2000, 4, k), q, Fraction(11, 10), None, 1e-4, "t")[0]
    run = walk.Walk(red, Fraction(q), Fraction(11, 10), None, 1e-4, 160, max_nodes=10)
    run.heavy, run.light = list(heavy), [j for j in range(5) if j < min(heavy)]
    run.heavy_set = frozenset(run.heavy)
    return run


def _law(pis, top):
    tot = sum(pis[: top + 1])
    return {j: pis[j] / tot for j in range(top + 1)}


def _esym_dist(laws_counts, weights, base, k):
    """The exact law of ``e_k(base multiset ∪ outputs)``: ``laws_counts`` is a list of
    ``(law, count)`` (i.i.d. outputs of each law), ``base`` the fixed weights."""
    dist = {(): Fraction(1)}
    for law, cnt in laws_counts:
        new = defaultdict(Fraction)
        for combo in itertools.combinations_with_replacement(sorted(law), cnt):
            mult = Fraction(factorial(cnt))
            for lv in set(combo):
                mult /= factorial(combo.count(lv))
            pr = mult
            for lv in combo:
                pr *= law[lv]
            for key, p in dist.items():
                new[tuple(sorted(key + combo))] += p * pr
        dist = new
    out = defaultdict(Fraction)
    for key, p in dist.items():
        e = [Fraction(1)] + [Fraction(0)] * k
        for y in list(base) + [weights[lv] for lv in key]:
            for j in range(k, 0, -1):
                e[j] += e[j - 1] * y
        out[e[k]] += p
    return out


def _cdf(dist, t):
    return sum((p for v, p in dist.items() if v <= t), Fraction(0))


@pytest.mark.parametrize("q, k, heavy, beta_max, sharp", [
    ("1/10", 1, (4, 3, 2), 0.6, True), ("1/10", 2, (4, 3), 0.2, True), ("1/5", 2, (4, 3, 2), 0.2, True),
    ("3/10", 2, (4, 3, 2), 0.6, False)])
def test_floor_bounds_the_lower_tail_by_enumeration(prec160, q, k, heavy, beta_max, sharp):
    """At a node with nothing placed below level 4 (6 null and k changed-user outputs unplaced):
    ``P[e_k <= t] <= beta + P[e_k' <= t]`` for every ``t``, exactly (Fractions), where ``e_k'``
    keeps the floors at their levels' weights and lowers the other outputs to the light law.
    The test can fail: the failure bound is needed (the gap is positive, at q = 1/10, k = 1
    98 % of beta), and one output more kept at the lowest heavy level than the floors guarantee
    breaks the inequality (``sharp``).  The q = 3/10 case floors a null output."""
    run = _walk(q, k, heavy)
    mech = Mechanism(4, Fraction(q))
    pi0, pi1 = [Fraction(x) for x in mech.pi0], [Fraction(x) for x in mech.pi1]
    weights = {j: Fraction(c) / run.M for j, c in enumerate(mech.c)}
    n, m, l = 6, k, 4
    fl = run.floored(l, n, m, arb_poly([1]), beta_max)
    assert fl is not None
    n2, m2, poly2, beta, pairs = fl
    assert 0 < float(beta) <= beta_max
    # the floored outputs: the heavy polynomial is the product of (1 + w t)^c over the kept ones
    kept = [weights[lv] for (lv, c) in pairs for _ in range(c)]
    assert len(kept) == (n - n2) + (m - m2) > 0
    assert all(abs(float(x) - float(y)) < 1e-12 for x, y in
               zip(poly2.coeffs(), _esym_poly(kept, k)))
    full = _esym_dist([(_law(pi0, l), n), (_law(pi1, l), m)], weights, [], k)
    light0, light1 = _law(pi0, run.light[-1]), _law(pi1, run.light[-1])
    low = _esym_dist([(light0, n2), (light1, m2)], weights, kept, k)
    b = Fraction(float(beta.upper()))
    gap = max(_cdf(full, t) - _cdf(low, t) for t in set(full) | set(low))
    assert 0 < gap <= b
    if sharp:
        more = _esym_dist([(light0, max(n2 - 1, 0)), (light1, m2 if n2 else m2 - 1)], weights,
                          kept + [weights[min(heavy)]], k)
        assert max(_cdf(full, t) - _cdf(more, t) for t in set(full) | set(more)) > b


def _esym_poly(ws, k):
    e = [Fraction(1)] + [Fraction(0)] * k
    for y in ws:
        for j in range(k, 0, -1):
            e[j] += e[j - 1] * y
    return e
