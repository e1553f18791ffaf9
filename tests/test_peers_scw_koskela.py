"""Issue 19's last two peers: Su-Cheng-Wang (S&P 2026) and Koskela-Heikkila-Honkela (2106.00477).

What each reduces to for L-bit RR is checked against independent exact routes, and every
bound the guarantee may use is checked against the exact worst neighbouring pair.
"""

import itertools
from fractions import Fraction as F
from math import comb

import pytest

from exactdp.apps.allpairs import worst_delta
from exactdp.apps.blanket_count import blanket_count_delta
from exactdp.apps.blanket_mgf import blanket_mgf_delta
from exactdp.apps.peers import (CITATIONS, L1_ONLY, REFUTED, UNPROVED, certified_peer_deltas,
                                clone_delta, clone_epsilon, exp_eps0_rr, koskela_delta,
                                koskela_epsilon, scw_delta, scw_epsilon)
from exactdp.apps.split_clone import split_clone_delta
from exactdp.core.errors import ParameterError
from exactdp.oracles import bruteforce as bf


def koskela_direct(n, q, lam):
    """D_lam((N1 + 1, N2) || (N1, N2 + 1)), (N1, N2, rest) ~ Mult(n - 1; q, q, 1 - 2q), by
    enumeration with Fractions (the 2-RR pair of Koskela et al. / Balle et al.)."""
    m = n - 1
    P, Q = {}, {}
    for i in range(m + 1):
        for j in range(m + 1 - i):
            w = F(comb(m, i) * comb(m - i, j)) * q ** (i + j) * (1 - 2 * q) ** (m - i - j)
            P[(i + 1, j)] = P.get((i + 1, j), 0) + w
            Q[(i, j + 1)] = Q.get((i, j + 1), 0) + w
    return sum(max(P.get(k, 0) - lam * Q.get(k, 0), 0) for k in set(P) | set(Q))


@pytest.mark.parametrize("n,q,lam", [(1, F(1, 4), F(6, 5)), (7, F(1, 4), F(6, 5)),
                                     (20, F(1, 3), F(3, 2)), (30, F(1, 10), F(5)),
                                     (12, F(2, 5), 1)])
def test_scw_at_L1_is_the_untruncated_blanket_count(n, q, lam):
    """At L = 1 the optimal (blanket) decomposition's bound -- user 1's report among
    Bin(n - 1, 2q) uniform reports, exactly -- is the stronger-clone pair: the exact
    rational (blanket_count, m_max = n - 1: no truncation) lies in scw_delta's ball."""
    exact = blanket_count_delta(n, 1, q, lam, m_max=max(n - 1, 0))
    assert exact.lower == exact.upper or exact.width < F(1, 10**60)
    iv = scw_delta(n, 1, q, lam)
    assert iv.lower <= exact.upper and exact.lower <= iv.upper
    assert iv == clone_delta(n, exp_eps0_rr(1, q), lam, variant="fmt23")


@pytest.mark.parametrize("N,L,q,lam", [(2, 2, F(1, 4), F(6, 5)), (3, 2, F(1, 4), F(3)),
                                       (3, 2, F(1, 10), F(729, 20)), (2, 3, F(1, 3), F(3, 2)),
                                       (4, 2, F(1, 3), F(11, 10))])
def test_scw_at_L_ge_2_is_valid_and_below_exactdps_blanket_evaluations(N, L, q, lam):
    """For L >= 2 the SCW bound is the untruncated blanket count: >= the brute-force worst
    pair (every neighbouring pair, both orders), <= the truncated count and the exact-MGF
    blanket (which are therefore certified upper bounds of it)."""
    vecs = bf.vectors(L)
    worst = max(bf.delta([x, *o], [y, *o], q, lam, L=L)
                for o in itertools.combinations_with_replacement(vecs, N - 1)
                for x, y in itertools.permutations(vecs, 2))
    scw = blanket_count_delta(N, L, q, lam, m_max=N - 1)
    assert worst <= scw.upper
    assert scw.upper <= blanket_count_delta(N, L, q, lam, m_max=0).upper
    assert scw.upper <= blanket_mgf_delta(N, L, q, lam).upper
    with pytest.raises(ParameterError):
        scw_delta(N, L, q, lam)


@pytest.mark.parametrize("n,q,lam", [(1, F(1, 4), F(6, 5)), (8, F(1, 4), F(6, 5)),
                                     (15, F(1, 3), F(3, 2)), (25, F(1, 10), F(5))])
def test_koskela_L1_pair_contains_direct_enumeration(n, q, lam):
    exact = koskela_direct(n, q, lam)
    iv = koskela_delta(n, 1, q, lam)
    assert iv.contains(exact)
    assert float(iv.width) < 1e-30


@pytest.mark.parametrize("n,q,lam", [(5, F(1, 4), F(21, 20)), (40, F(1, 4), F(6, 5)),
                                     (120, F(1, 3), F(3, 2)), (60, F(1, 10), F(2)),
                                     (30, F(1, 10), F(8))])
def test_koskela_and_scw_L1_dominate_the_exact_all_pairs_maximum(n, q, lam):
    """Validity at L = 1: both are >= the exact maximum over every neighbouring pair; the
    Koskela pair is >= (1 - gamma) x itself = the split clone with s = 1 - 2q (proved), which
    is a member of the split family (whose least member, the stronger clone = SCW here, is
    evaluated by split_clone_delta)."""
    worst, _ = worst_delta(n, q, lam)
    k = koskela_delta(n, 1, q, lam)
    s = scw_delta(n, 1, q, lam)
    assert worst <= s.upper <= k.upper
    # (equality can occur: at n = 30, q = 1/10, lam = 8 the exact maximum equals the ball's
    # centre to 28 digits -- the pair is attained there)
    # (1 - 2q) x the Koskela pair is the split clone at s = 1 - 2q; the evaluated split clone
    # is the least over the split levels, so it is below
    assert split_clone_delta(n, 1, q, lam).lower <= (1 - 2 * q) * k.upper


@pytest.mark.parametrize("n,L,q", [(50, 2, F(1, 4)), (200, 3, F(1, 3))])
def test_koskela_at_L_ge_2_is_the_fmt21_clone(n, L, q):
    """L-bit RR with L >= 2 is not k-RR: Koskela et al.'s general-eps0 accounting is of the
    FMT'21 clone pair, already certified as clone-fmt21 (same numbers)."""
    e0 = exp_eps0_rr(L, q)
    for lam in (F(11, 10), e0 / 2):
        assert koskela_delta(n, L, q, lam) == clone_delta(n, e0, lam, variant="fmt21")
    assert koskela_epsilon(n, L, q, F(1, 10**3), rel=1e-4) == clone_epsilon(
        n, e0, F(1, 10**3), variant="fmt21", rel=1e-4)
    ups = certified_peer_deltas(n, L, q, F(11, 10))
    assert ups["pld-koskela21"] == ups["clone-fmt21"]
    assert "scw-blanket" not in ups


def test_certified_peers_name_and_validity():
    """Both are cited, neither is refuted nor unproved (valid upper ends); SCW = the stronger
    clone at L = 1 (the number the SODA'23 erratum leaves unproved is valid through SCW's
    identity with the proved blanket count)."""
    assert {"scw-blanket", "pld-koskela21"} <= set(CITATIONS)
    assert L1_ONLY == ("scw-blanket",)
    for name in ("scw-blanket", "pld-koskela21"):
        assert name not in REFUTED and name not in UNPROVED
    ups = certified_peer_deltas(100, 1, F(1, 4), F(6, 5))
    assert set(ups) == set(CITATIONS)
    assert ups["scw-blanket"] == ups["clone-fmt23"]
    assert ups["pld-koskela21"].upper > ups["scw-blanket"].upper
    e = scw_epsilon(100, 1, F(1, 4), F(1, 10**6), rel=1e-4)
    k = koskela_epsilon(100, 1, F(1, 4), F(1, 10**6), rel=1e-4)
    assert e.upper < k.upper


@pytest.mark.parametrize("N,L,q", [(2, 2, F(1, 4)), (3, 2, F(1, 10)), (2, 3, F(1, 3))])
def test_new_peers_dominate_bruteforce_near_eps0(N, L, q):
    """lam close to e^eps0: every new bound the guarantee may use is >= the brute-force
    worst pair (L >= 2: Koskela = FMT'21 clone; SCW's certified upper bounds)."""
    e0 = exp_eps0_rr(L, q)
    vecs = bf.vectors(L)
    for lam in (e0 / 2, e0 * 9 / 10):
        worst = max(bf.delta([x, *o], [y, *o], q, lam, L=L)
                    for o in itertools.combinations_with_replacement(vecs, N - 1)
                    for x, y in itertools.permutations(vecs, 2))
        assert worst <= koskela_delta(N, L, q, lam).upper
        assert worst <= blanket_count_delta(N, L, q, lam, m_max=N - 1).upper


def test_scw_L1_is_attained_at_n30_q_tenth_lam8():
    """A finding: at n = 30, q = 1/10, lam = 8 (e^eps0 = 9) the SCW bound (= the stronger
    clone at L = 1) *equals* the exact maximum over every neighbouring pair (attained at
    m = 29, the reverse canonical pair): exact rationals on both sides."""
    from exactdp.apps.blanket_count import delta_m
    q, lam, n = F(1, 10), F(8), 30
    worst, m = worst_delta(n, q, lam)
    scw = sum(comb(n - 1, k) * (2 * q) ** k * (1 - 2 * q) ** (n - 1 - k) * delta_m(1, q, lam, 1, k)
              for k in range(n))
    assert worst == scw and m == n - 1
    assert scw_delta(n, 1, q, lam).contains(scw)


@pytest.mark.parametrize("n,scw,kos", [(100, "0.5883829", "1.0986123"),
                                       (1000, "0.1682828", "0.3561035")])
def test_docs_table_numbers(n, scw, kos):
    """docs/peers.md (Koskela section) and benchmarks/RESULTS.md quote these (7 digits)."""
    s = scw_epsilon(n, 1, F(1, 4), F(1, 10**6), rel=1e-7)
    k = koskela_epsilon(n, 1, F(1, 4), F(1, 10**6), rel=1e-7)
    assert abs(float(s.upper) - float(scw)) < 6e-8 and abs(float(k.upper) - float(kos)) < 6e-8
