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
    N, q = 150, F(1, 4)
    exact, _ = epsilon_all_pairs(N, q, F(1, 10**6), rel=1e-9)
    c = epsilon_upper(N, q, F(1, 10**6), exact.upper)
    assert exact.upper <= c <= exact.upper * F(1001, 1000) + F(1, 2**60)
    assert epsilon_upper(N, q, F(1, 10**6), exact.lower / 2) is None     # 10 % above is too little
    d_true, _ = worst_delta(N, q, F(11, 10))          # lam = 11/10 < e^(1/10)
    d = delta_upper(N, q, F(1, 10), d_true)
    assert d is not None and d >= worst_delta(N, q, F(11052, 10000))[0]   # lam > e^(1/10)
    assert d <= d_true * F(1001, 1000) + F(1, 2**60)


def _exact_half(n, m, q, lam, k):
    """delta with others Bin(m,p) + Bin(n-1-m,q) + Bin(k,1/2), exact (Fractions)."""
    from math import comb
    p = 1 - q
    parts = [[comb(m, i) * p**i * q**(m - i) for i in range(m + 1)],
             [comb(n - 1 - m, i) * q**i * p**(n - 1 - m - i) for i in range(n - m)],
             [F(comb(k, i), 2**k) for i in range(k + 1)]]
    f = [F(1)]
    for part in parts:
        g = [F(0)] * (len(f) + len(part) - 1)
        for i, x in enumerate(f):
            for j, y in enumerate(part):
                g[i + j] += x * y
        f = g
    f = [F(0)] + f + [F(0)]
    return sum(max(F(0), (p * f[i - 1] + q * f[i]) - lam * (q * f[i - 1] + p * f[i]))
               for i in range(1, len(f)))


@pytest.mark.parametrize("n,m,q,lam,k", [(12, 3, F(1, 4), F(6, 5), 5), (30, 0, F(1, 3), F(3, 2), 9),
                                         (25, 24, F(1, 10), F(2), 1)])
def test_delta_m_with_half_contains_exact(n, m, q, lam, k):
    iv = delta_m(n, m, q, lam, half=k)
    v = _exact_half(n, m, q, lam, k)
    assert iv.lower <= v <= iv.upper
    assert v <= delta_m(n, m, q, lam).lower          # the fair bits only add noise


@pytest.mark.parametrize("blanket", [True, False])
def test_both_block_forms_bracket_the_exact_maximum(blanket):
    N, q, lam = 200, F(1, 4), F(23, 20)
    mx = max(v for _, v in deltas_by_m(N, q, lam))
    assert certify_all_pairs(N, q, lam, mx * F(1001, 1000), blanket=blanket).ok
    assert not certify_all_pairs(N, q, lam, mx * F(999, 1000), blanket=blanket).ok
