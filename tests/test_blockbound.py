"""The L = 1 all-pairs block bound (exactdp.apps.blockbound) against exact rationals."""

from fractions import Fraction as F

import pytest

from exactdp.apps.allpairs import deltas_by_m
from exactdp.apps.blockbound import certify_all_pairs, delta_m
from exactdp.core.errors import ParameterError


@pytest.mark.parametrize("N,q,lam", [(1, F(1, 4), F(1)), (2, F(1, 3), F(1)), (7, F(1, 10), F(3, 2)),
                                     (40, F(1, 4), F(6, 5)), (150, F(2, 5), F(11, 10))])
def test_delta_m_contains_exact(N, q, lam):
    for m, v in deltas_by_m(N, q, lam):
        iv = delta_m(N, m, q, lam)
        assert iv.lower <= v <= iv.upper
        assert iv.upper - iv.lower <= F(1, 10**12) * max(v, F(1, 10**10))


def test_delta_m_truncated_windows_contain_exact():
    # N large enough that both binomial windows truncate (tol 1e-3): tail slack added
    N, q, lam = 400, F(1, 4), F(23, 20)
    exact = dict(deltas_by_m(N, q, lam))
    for m in (0, 37, 200, 399):
        iv = delta_m(N, m, q, lam, tol=1e-3)
        assert iv.lower <= exact[m] <= iv.upper


def test_delta_m_zero_beyond_eps0_and_bad_m():
    assert delta_m(10, 3, F(1, 4), 3).upper == 0
    with pytest.raises(ParameterError):
        delta_m(10, 10, F(1, 4), 2)


@pytest.mark.parametrize("N,q,lam", [(60, F(1, 4), F(6, 5)), (300, F(1, 4), F(11, 10)),
                                     (3, F(1, 3), F(1)), (120, F(1, 3), F(13, 10))])
def test_certify_all_pairs_brackets_the_exact_maximum(N, q, lam):
    ex = dict(deltas_by_m(N, q, lam))
    mx = max(ex.values())
    ok = certify_all_pairs(N, q, lam, mx * F(10001, 10000))
    assert ok.ok and mx <= ok.bound <= mx * F(10001, 10000)
    bad = certify_all_pairs(N, q, lam, mx * F(9999, 10000))
    assert not bad.ok and ex[bad.failed_m] >= mx * F(9999, 10000) * F(999, 1000)


def test_certify_all_pairs_uses_few_evaluations_at_scale():
    # N = 20000, L = 1, q = 1/4: the canonical pair's eps(1e-6) is about 0.027322;
    # 2 % above it every pair is certified below 1e-6 with far fewer than N evaluations
    r = certify_all_pairs(20000, F(1, 4), F(10282, 10000), F(1, 10**6))
    assert r.ok and r.evaluations < 400


def test_epsilon_and_delta_upper_against_exact_all_pairs():
    from exactdp.apps.allpairs import epsilon_all_pairs, worst_delta
    from exactdp.apps.blockbound import delta_upper, epsilon_upper
    N, q = 300, F(1, 4)
    exact, _ = epsilon_all_pairs(N, q, F(1, 10**6), rel=1e-9)
    c = epsilon_upper(N, q, F(1, 10**6), exact.upper)
    assert exact.upper <= c <= exact.upper * F(1001, 1000) + F(1, 2**60)
    assert epsilon_upper(N, q, F(1, 10**6), exact.lower / 2) is None     # 10 % above is too little
    d_true, _ = worst_delta(N, q, F(11, 10))          # lam = 11/10 < e^(1/10)
    d = delta_upper(N, q, F(1, 10), d_true)
    assert d is not None and d >= worst_delta(N, q, F(11052, 10000))[0]   # lam > e^(1/10)
    assert d <= d_true * F(1001, 1000) + F(1, 2**60)
