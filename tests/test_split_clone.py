"""The split-clone bound (exactdp.apps.split_clone): valid against the brute-force worst pair,
its s = 1 member is the stronger clone, and it stays above the refuted variation-ratio pair."""

import itertools
from fractions import Fraction as F

import pytest

from exactdp.core.errors import ParameterError
from exactdp.oracles import bruteforce as bf
from exactdp.apps.peers import clone_delta, exp_eps0_rr, vr_delta
from exactdp.apps.split_clone import split_clone_delta, split_clone_epsilon, split_parameters


def brute_worst_delta(N, L, q, lam):
    vecs = bf.vectors(L)
    best = F(0)
    for others in itertools.combinations_with_replacement(vecs, N - 1):
        for x, y in itertools.permutations(vecs, 2):
            best = max(best, bf.delta([x, *others], [y, *others], q, lam, L=L))
    return best


@pytest.mark.parametrize("N,L,q", [(2, 2, F(1, 10)), (3, 2, F(1, 4)), (2, 3, F(1, 5)),
                                   (4, 2, F(1, 20))])
def test_dominates_bruteforce_worst_pair(N, L, q):
    e0 = exp_eps0_rr(L, q)
    for lam in (F(1), F(2), e0 / 3, e0 * 9 / 10):
        worst = brute_worst_delta(N, L, q, lam)
        assert worst <= split_clone_delta(N, L, q, lam).upper, lam


def test_s1_member_is_the_stronger_clone():
    for L, q in ((1, F(1, 4)), (3, F(1, 3)), (5, F(1, 4))):
        e0 = exp_eps0_rr(L, q)
        s, a, r = split_parameters(L, q, L, 1)
        assert (s, a, r) == (1, e0 / (e0 + 1), 2 / (e0 + 1))
    # hence never above the stronger clone (the grid contains s = 1), at h = L
    for lam in (F(6, 5), F(3)):
        assert split_clone_delta(200, 1, F(1, 4), lam).upper <= \
            clone_delta(200, 3, lam, variant="fmt23").upper


def test_tightest_split_has_variation_ratio_parameters():
    """u = 0 is the variation-ratio decomposition (s = alpha1 + alpha0, rate 2 beta/(e0-1)),
    with the common part paid for instead of merged."""
    from exactdp.apps.peers import rr_variation_ratio
    e0, beta, _ = rr_variation_ratio(5, F(1, 4))
    s, a, r = split_parameters(5, F(1, 4), 5, 0)
    assert s == beta * (e0 + 1) / (e0 - 1) and r == 2 * beta / (e0 - 1)
    # where the refuted pair is below the truth, this one is not
    lam = F(729, 10)
    assert vr_delta(2, 2, F(1, 10), lam).upper < brute_worst_delta(2, 2, F(1, 10), lam) \
        <= split_clone_delta(2, 2, F(1, 10), lam).upper


def test_epsilon_and_bad_input():
    e = split_clone_epsilon(10**4, 3, F(1, 4), F(1, 10**6), rel=1e-3)
    assert 0 < e.lower <= e.upper < F(1, 2)   # eps0 = 3 log 3 = 3.30; 0.271 (stronger clone)
    assert split_clone_delta(10, 2, F(1, 4), 9).upper == 0      # lam >= e^eps0
    with pytest.raises(ParameterError):
        split_clone_delta(10, 2, F(3, 4), 2)
    with pytest.raises(ParameterError):
        split_clone_delta(0, 2, F(1, 4), 2)
