"""The blanket-count bound (exactdp.apps.blanket_count, proofs/blanket_count.py)."""

import itertools
from fractions import Fraction as F
from math import comb

import pytest

from exactdp.apps.blanket_count import (blanket_count_delta, blanket_count_epsilon, delta_m,
                                        NAME)
from exactdp.apps.peers import REFUTED, certified_peer_epsilons, exp_eps0_rr
from exactdp.core.errors import ParameterError
from exactdp.oracles import bruteforce as bf


def _multiset_delta(L, q, lam, h, m):
    """delta_m by the exact law of the sorted tuple (x's report + m uniform reports)."""
    vecs = bf.vectors(L)
    x, xp = (0,) * L, (1,) * h + (0,) * (L - h)

    def law(first):
        out = {}
        for tup in itertools.product(vecs, repeat=m + 1):
            pr = bf.transition(first, tup[0], q) / F(2 ** (L * m))
            key = tuple(sorted(tup))
            out[key] = out.get(key, 0) + pr
        return out
    P, Q = law(x), law(xp)
    return sum((max(F(0), P[k] - lam * Q.get(k, 0)) for k in P), F(0))


@pytest.mark.parametrize("L,q,lam", [(1, F(1, 4), F(1)), (2, F(1, 4), F(3, 2)),
                                     (2, F(1, 10), F(40)), (3, F(1, 3), F(2))])
def test_delta_m_is_the_multiset_divergence(L, q, lam):
    for h in range(1, L + 1):
        for m in range(0, 3 if L < 3 else 2):
            assert delta_m(L, q, lam, h, m) == _multiset_delta(L, q, lam, h, m), (h, m)


def _worst_pair(N, L, q, lam):
    vecs = bf.vectors(L)
    return max(bf.delta([x, *o], [y, *o], q, lam, L=L)
               for o in itertools.combinations_with_replacement(vecs, N - 1)
               for x, y in itertools.permutations(vecs, 2))


@pytest.mark.parametrize("N,L", [(2, 1), (4, 1), (2, 2), (3, 2)])
@pytest.mark.parametrize("q", [F(1, 4), F(1, 10)])
def test_dominates_every_neighbouring_pair(N, L, q):
    e0 = exp_eps0_rr(L, q)
    for lam in (F(1), F(2), e0 / 2, e0 * 9 / 10, e0 * 999 / 1000):
        if lam < 1:
            continue
        worst = _worst_pair(N, L, q, lam)
        for m_max in range(0, N):
            assert worst <= blanket_count_delta(N, L, q, lam, m_max=m_max).upper, (lam, m_max)


def test_the_domination_check_has_teeth():
    """Dropping the tail term P(M >= K) delta_K (an invalid 'bound') falls below the
    brute-force worst pair: the exhaustive comparison above can fail."""
    N, L, q = 3, 2, F(1, 4)
    gam = (2 * q) ** L
    found = False
    for lam in (F(1), F(2)):
        worst = _worst_pair(N, L, q, lam)
        wrong = max((1 - gam) ** (N - 1) * delta_m(L, q, lam, h, 0) for h in (1, 2))
        found |= wrong < worst
    assert found


def test_monotone_in_m_max_and_below_local():
    n, L, q, lam = 100, 5, F(1, 4), F(200)
    vals = [blanket_count_delta(n, L, q, lam, m_max=k).upper for k in range(0, 5)]
    assert all(a >= b for a, b in zip(vals, vals[1:]))
    assert vals[-1] < vals[0]
    # m_max = 0 is the local divergence at Hamming distance L (the worst distance)
    assert vals[0] == max(delta_m(L, q, lam, h, 0) for h in range(1, L + 1)) == delta_m(L, q, lam, L, 0)


def test_equals_balle_expectation_below_the_mgf_when_untruncated():
    """With m_max >= n - 1 nothing is truncated: the bound is the blanket lemma's exact
    expectation, which the exact-MGF evaluation bounds from above."""
    from exactdp.apps.blanket_mgf import blanket_mgf_delta
    for n, L, q, lam in [(5, 2, F(1, 4), F(3, 2)), (6, 3, F(1, 3), F(2)), (4, 1, F(1, 4), F(3, 2))]:
        mine = blanket_count_delta(n, L, q, lam, m_max=n - 1)
        assert 0 < mine.upper <= blanket_mgf_delta(n, L, q, lam).lower


@pytest.mark.parametrize("n,L,q", [(100, 5, F(1, 4)),
                                   pytest.param(10**7, 40, F(351, 1000), marks=pytest.mark.slow)])
def test_strictly_below_every_published_bound_where_none_amplifies(n, L, q):
    d = F(1, 10**6)
    mine = blanket_count_epsilon(n, L, q, d, rel=1e-7)
    pubs = certified_peer_epsilons(n, L, q, d, rel=1e-7)
    least = min(iv.lower for k, iv in pubs.items() if k not in REFUTED)
    assert mine.upper < least
    # by more than the bisection tolerance (eps0 = 5.4930614 at L = 5, 24.58586 at L = 40)
    assert mine.upper < (F(549300, 10**5) if L == 5 else 18) < least


def test_zero_beyond_eps0_and_bad_input():
    assert blanket_count_delta(10, 2, F(1, 4), exp_eps0_rr(2, F(1, 4))).upper == 0
    with pytest.raises(ParameterError, match="m_max"):
        blanket_count_delta(10, 2, F(1, 4), 2, m_max=-1)
    with pytest.raises(ParameterError, match="lam"):
        blanket_count_delta(10, 2, F(1, 4), F(1, 2))
    with pytest.raises(ParameterError, match="q"):
        blanket_count_delta(10, 2, F(3, 4), 2)
    assert NAME == "blanket-exact-count"
