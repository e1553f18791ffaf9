"""The guarantee bracket (exactdp.apps.guarantee): ends, brute-force worst pair, CLI."""

import itertools
import json
from fractions import Fraction as F

import pytest

from exactdp.oracles import bruteforce as bf
from exactdp.apps.cli import main
from exactdp.core.errors import ParameterError
from exactdp.apps.guarantee import ALL_PAIRS, BLOCK_L1, guarantee
from exactdp.apps.peers import CITATIONS, L1_ONLY, REFUTED, certified_peer_deltas


def brute_worst_delta(N, L, q, lam):
    """Max over *every* neighbouring pair (all collections, one user changed) by brute force."""
    vecs = bf.vectors(L)
    best = F(0)
    for others in itertools.combinations_with_replacement(vecs, N - 1):
        for x, y in itertools.permutations(vecs, 2):
            best = max(best, bf.delta([x, *others], [y, *others], q, lam, L=L))
    return best


@pytest.mark.parametrize("N,L,q", [(2, 2, F(1, 4)), (3, 2, F(1, 3)), (2, 3, F(1, 3))])
def test_bracket_contains_bruteforce_worst_pair_L_ge_2(N, L, q):
    eps = F(1, 2)
    g = guarantee(N, L, q, eps=eps)
    assert g.upper_bound not in REFUTED
    # lam rational brackets around e^eps for the brute force
    lam_lo, lam_hi = F(16487212707, 10**10), F(16487212708, 10**10)
    worst_hi = brute_worst_delta(N, L, q, lam_lo)   # >= true worst delta(e^eps)
    worst_lo = brute_worst_delta(N, L, q, lam_hi)   # <= true worst delta(e^eps)
    assert g.lower <= worst_hi
    assert worst_lo <= g.upper
    # the peer end is a genuine upper bound but not tight
    assert g.upper > worst_hi


@pytest.mark.parametrize("N,q", [(3, F(1, 3)), (4, F(1, 4)), (5, F(1, 5))])
def test_bracket_L1_is_the_bruteforce_worst_pair(N, q):
    g = guarantee(N, 1, q, eps=0)     # lam = 1 exactly
    w = brute_worst_delta(N, 1, q, 1)
    assert g.upper_bound == ALL_PAIRS
    assert g.lower <= w <= g.upper and g.upper - g.lower < F(1, 10**20)


def test_delta_mode_upper_is_least_valid_bound():
    g = guarantee(50, 2, "1/4", eps="1/2")
    assert g.upper_bound == "blanket-exact-mgf"
    lo = certified_peer_deltas(50, 2, "1/4", F(16487212707, 10**10))   # lam < e^(1/2)
    assert all(g.upper <= iv.upper for k, iv in lo.items() if k not in REFUTED)
    # the refuted variation-ratio pair is reported but not used (it is lower here)
    assert "refuted" in g.peers["variation-ratio"]
    assert lo["variation-ratio"].upper < g.upper
    assert g.lower < g.upper


@pytest.mark.parametrize("N,lam_lo,lam_hi", [(2, F(7369, 100), F(7370, 100)),
                                             (3, F(7369, 100), F(7370, 100))])
def test_upper_dominates_bruteforce_where_the_variation_ratio_fails(N, lam_lo, lam_hi):
    """L = 2, q = 1/10, eps = 43/10 (e^eps = 73.699..., close to e^eps0 = 81): the
    variation-ratio pair is below the brute-force worst pair here, the guarantee is not."""
    g = guarantee(N, 2, F(1, 10), eps=F(43, 10))
    assert g.upper_bound not in REFUTED
    worst_hi = brute_worst_delta(N, 2, F(1, 10), lam_lo)
    worst_lo = brute_worst_delta(N, 2, F(1, 10), lam_hi)
    assert g.lower <= worst_hi and worst_lo <= g.upper
    vr = certified_peer_deltas(N, 2, F(1, 10), lam_lo)["variation-ratio"]
    assert vr.upper < worst_lo


def test_epsilon_bracket_orders_and_names():
    g = guarantee(200, 2, "1/4", delta="1e-3")
    assert 0 < g.lower < g.upper
    assert g.lower_direction in ("forward", "reverse")
    assert "canonical pair" in g.lower_pair
    assert g.upper_bound == "blanket-exact-mgf"
    assert F(g.peers["clone-fmt23"]["upper"]) < F(g.peers["clone-fmt21"]["lower"])
    assert all(g.upper <= F(g.peers[k]["upper"]) for k in CITATIONS
               if k not in REFUTED and k not in L1_ONLY)
    assert "scw-blanket" not in g.peers        # L1_ONLY: see exactdp.apps.peers.scw_delta


def test_L1_closed_at_moderate_N():
    g = guarantee(300, 1, "1/4", delta="1e-6")
    assert g.upper_bound == ALL_PAIRS
    assert g.gap <= g.lower * F(1, 10**5)
    g2 = guarantee(300, 1, "1/4", delta="1e-6", all_pairs_max_n=0)
    # without the exact all-pairs route, the block bound (L = 1, any N) gives the upper end:
    # above the exact all-pairs value, within 0.1 % + rounding of it, strictly below every peer
    assert g2.upper_bound == BLOCK_L1
    assert g.upper <= g2.upper <= g.upper * F(1002, 1000)
    assert all(g2.upper < F(v["upper"]) for k, v in g2.peers.items() if k in CITATIONS)
    g3 = guarantee(300, 1, "1/4", delta="1e-6", all_pairs_max_n=0, block_rel=1e-1)
    assert g2.upper < g3.upper <= g.upper * F(111, 100)   # coarser margin, coarser end


def test_block_bound_delta_mode_contains_exact_all_pairs():
    from exactdp.apps.allpairs import worst_delta
    g = guarantee(200, 1, "1/3", eps="1/5", all_pairs_max_n=0)
    assert g.upper_bound == BLOCK_L1
    exact_hi, _ = worst_delta(200, F(1, 3), F(12214027581, 10**10))   # lam < e^(1/5)
    exact_lo, _ = worst_delta(200, F(1, 3), F(12214027582, 10**10))   # lam > e^(1/5)
    assert g.lower <= exact_hi and exact_lo <= g.upper <= exact_hi * F(1001, 1000) + F(1, 10**30)


def test_bad_input():
    with pytest.raises(ParameterError):
        guarantee(10, 1, "1/4")
    with pytest.raises(ParameterError):
        guarantee(10, 1, "1/4", delta="1e-6", eps=1)
    with pytest.raises(ParameterError):
        guarantee(10, 1, "0.6", delta="1e-6")
    with pytest.raises(ParameterError):
        guarantee(10, 1, "1/4", delta="2")


def test_cli(capsys):
    assert main(["guarantee", "-N", "40", "-L", "1", "-q", "1/4", "--delta", "1e-3",
                 "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert F(rec["lower"]) <= F(rec["upper"]) and rec["upper_bound"] == ALL_PAIRS
    assert main(["guarantee", "-N", "40", "-L", "2", "-q", "1/4", "--eps", "1"]) == 0
    assert "blanket-exact-mgf" in capsys.readouterr().out
    assert main(["guarantee", "-N", "40", "-L", "1", "-q", "1/4", "--delta", "7"]) == 2
    err = capsys.readouterr().err
    assert "delta must be" in err and len(err.strip().splitlines()) == 1
    assert main(["guarantee", "-N", "40", "-L", "1", "-q", "1/4"]) == 2


@pytest.mark.slow
def test_block_bound_above_exact_all_pairs_at_N1500():
    a = guarantee(1500, 1, "1/3", delta="1e-5", all_pairs_max_n=2000)    # exact, closed
    b = guarantee(1500, 1, "1/3", delta="1e-5", all_pairs_max_n=0)       # block lemma
    assert a.upper_bound == ALL_PAIRS and b.upper_bound == BLOCK_L1
    assert a.upper <= b.upper <= a.upper * F(1002, 1000)


def test_where_no_published_bound_amplifies_the_count_bound_does():
    """L = 5, n = 10^2, q = 1/4, delta = 1e-6: every valid published bound is eps0 up to
    the bisection tolerance; the upper end is the blanket-count bound, strictly below them
    (proofs/blanket_count.py)."""
    from exactdp.apps.guarantee import COUNT_NAME
    g = guarantee(100, 5, "1/4", delta="1e-6")
    assert g.upper_bound == COUNT_NAME
    pubs = [F(v["lower"]) for k, v in g.peers.items() if k in CITATIONS and k not in REFUTED]
    assert len(pubs) == 5 and g.lower < g.upper < min(pubs)   # + pld-koskela21 (= clone-fmt21)
    assert g.upper < F(549298, 10**5)            # eps0 = 5 log 3 = 5.4930614...
    gd = guarantee(100, 5, "1/4", eps="5.49")    # delta mode: the same candidate
    assert gd.upper_bound == COUNT_NAME and gd.lower <= gd.upper


def test_unproved_peer_never_the_upper_end():
    """The SODA'23 stronger clone (restricted by its erratum) is reported, never chosen,
    even where it is the least candidate; the refuted variation ratio neither."""
    from fractions import Fraction as Fr
    from exactdp.apps import guarantee as gmod
    from exactdp.apps.peers import UNPROVED, REFUTED
    from exactdp.core.interval import Interval
    ups = {"clone-fmt23": Interval(Fr(1), Fr(2)), "variation-ratio": Interval(Fr(1), Fr(3)),
           "clone-fmt21": Interval(Fr(4), Fr(5)), "blanket-bennett": Interval(Fr(6), Fr(7))}
    assert "clone-fmt23" in UNPROVED and "variation-ratio" in REFUTED
    assert gmod._least_valid(ups) == "clone-fmt21"
    g = gmod.guarantee(100, 5, "1/4", delta="1e-6")
    assert g.upper_bound not in ("clone-fmt23", "clone-fmt21")
    assert "unproved" in g.peers["clone-fmt23"]
