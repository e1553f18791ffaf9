"""Peers' bounds (exactdp.apps.peers, exactdp.apps.allpairs): independent evaluation routes and properties."""

from fractions import Fraction as F
from math import comb

import mpmath
import pytest

from exactdp.oracles import bruteforce as bf
from exactdp.apps.allpairs import deltas_by_m, worst_delta, epsilon_all_pairs
from exactdp.core.errors import ParameterError
from exactdp.apps.peers import (clone_delta, clone_epsilon, exp_eps0_rr, fmt21_closed_form,
                           peer_bounds)


def clone_direct(n, e0, lam, r):
    """Direct exact summation over (c, k) of the clone pair's hockey-stick divergence."""
    a = e0 / (e0 + 1)
    tot = F(0)
    for c in range(n):
        w = comb(n - 1, c) * r**c * (1 - r) ** (n - 1 - c)

        def b(k):
            return F(comb(c, k), 2**c) if 0 <= k <= c else F(0)
        for k in range(c + 2):
            P = a * b(k - 1) + (1 - a) * b(k)
            Q = a * b(k) + (1 - a) * b(k - 1)
            tot += w * max(P - lam * Q, 0)
    return tot


@pytest.mark.parametrize("n,e0,lam", [(1, 3, 1), (2, 3, F(3, 2)), (7, 3, F(5, 4)),
                                      (20, 9, 2), (40, 3, 1), (25, F(7, 2), F(6, 5))])
@pytest.mark.parametrize("variant", ["fmt21", "fmt23"])
def test_clone_ball_contains_direct_sum(n, e0, lam, variant):
    e0 = F(e0)
    r = F(2) / (e0 + 1) if variant == "fmt23" else 1 / e0
    exact = clone_direct(n, e0, F(lam), r)
    iv = clone_delta(n, e0, lam, variant=variant)
    assert iv.contains(exact)
    assert float(iv.width) < 1e-30


def test_clone_truncated_window_contains_direct_sum():
    # n large enough that the Hoeffding window truncates both tails
    n, e0, lam = 400, F(3), F(11, 10)
    iv = clone_delta(n, e0, lam, tail_tol=1e-12)
    exact = clone_direct(n, e0, lam, F(1, 2))
    assert iv.contains(exact)
    assert iv.upper - exact <= F(1, 10**12) + iv.width


def test_clone_limits_and_order():
    assert clone_delta(10, 3, 3).upper == 0                      # (eps0, 0)-DP
    # n = 1: no other user, delta(lam = 1) is the TV distance of Bern(a) vs Bern(1-a)
    assert clone_delta(1, 3, 1).contains(F(1, 2))
    # decreasing in n and in lam; the stronger clone is tighter than the 2021 clone
    d = [clone_delta(n, 3, F(6, 5)).upper for n in (10, 100, 1000)]
    assert d[0] > d[1] > d[2]
    assert clone_delta(100, 3, F(13, 10)).upper < clone_delta(100, 3, F(6, 5)).lower
    for n in (10, 100, 1000):
        assert clone_delta(n, 3, F(6, 5), variant="fmt23").upper < \
            clone_delta(n, 3, F(6, 5), variant="fmt21").lower


def test_clone_epsilon_meets_target():
    iv = clone_epsilon(1000, 3, "1e-6")
    # eps_hi meets the target, eps_lo does not (checked with exact rational lambdas)
    assert clone_delta(1000, 3, F(float(mpmath.exp(iv.upper)))).upper <= F(1, 10**6) * (1 + F(1, 10**6))
    assert clone_delta(1000, 3, F(float(mpmath.exp(iv.lower * F(999, 1000))))).lower > F(1, 10**6)
    assert float(iv.width) < 1e-5


def test_fmt21_closed_form_dominates_numerical_and_decreases():
    # the closed form is derived as an upper bound on the clone pair's divergence
    ns = (1000, 3000, 10**4)
    for n in ns:
        cf = fmt21_closed_form(n, 3, "1e-6")
        assert cf is not None
        assert float(cf) >= float(clone_epsilon(n, 3, "1e-6", variant="fmt21", rel=1e-4).upper)
    vals = [float(fmt21_closed_form(n, 3, "1e-6")) for n in ns + (10**6,)]
    assert vals[0] > vals[1] > vals[2] > vals[3]
    # scaling: ~ 8 (e0-1)/(e0+1) sqrt(e0 log(4/delta)/n) for large n
    n = 10**9
    approx = 8 * 0.5 * (3 * mpmath.log(4e6) / n) ** 0.5
    assert abs(float(fmt21_closed_form(n, 3, "1e-6")) / float(approx) - 1) < 1e-2


def test_fmt21_validity_condition():
    # eps0 = log 3 <= log(n/(16 log(2e6))) iff n >= 48 log(2e6) = 696.4...
    assert fmt21_closed_form(696, 3, "1e-6") is None
    assert fmt21_closed_form(697, 3, "1e-6") is not None


def test_eps0_rr():
    assert exp_eps0_rr(1, "1/4") == 3
    assert exp_eps0_rr(5, "1/4") == 243
    with pytest.raises(ParameterError):
        exp_eps0_rr(1, "0.7")
    with pytest.raises(ParameterError):
        clone_delta(10, 1, 1)


def test_peer_bounds_table():
    rows = {b.name: b for b in peer_bounds(1000, 1, "1/4", "1e-6")}
    assert rows["clone-fmt23"].eps < rows["clone-fmt21"].eps < rows["fmt21-closed"].eps
    assert rows["clone-fmt23"].certified and not rows["fmt21-closed"].certified


# ---------------------------------------------------------------- all pairs (L = 1)
@pytest.mark.parametrize("N,q,lam", [(3, F(1, 3), F(1)), (4, F(1, 4), F(3, 2)),
                                     (5, F(1, 5), F(2)), (4, F(2, 5), F(1))])
def test_all_pairs_equals_bruteforce_per_pair(N, q, lam):
    got = dict(deltas_by_m(N, q, lam))
    for m in range(N):
        D = [(0,)] + [(1,)] * m + [(0,)] * (N - 1 - m)
        Dm = [(1,)] + [(1,)] * m + [(0,)] * (N - 1 - m)
        assert got[m] == bf.delta(D, Dm, q, lam, L=1)
        # the other order of the same pair is covered by the reflected m
        assert got[N - 1 - m] == bf.delta(Dm, D, q, lam, L=1)
    assert got[0] == bf.canonical_delta(N, 1, q, lam, "forward")
    assert got[N - 1] == bf.canonical_delta(N, 1, q, lam, "reverse")


def test_all_pairs_canonical_not_always_worst():
    # at lam = 1 (total variation), N = 3, q = 1/3 the worst pair has m = 1
    v, m = worst_delta(3, "1/3", 1)
    assert m == 1 and v == F(5, 27)
    assert v > bf.canonical_delta(3, 1, "1/3", 1, "worst")


def test_epsilon_all_pairs_brackets_truth():
    iv, m = epsilon_all_pairs(30, "1/4", "1e-2", rel=1e-8)
    lam_lo = F(float(mpmath.exp(iv.lower)))
    lam_hi = F(float(mpmath.exp(iv.upper)))
    assert worst_delta(30, "1/4", lam_lo * (1 - F(1, 10**6)))[0] > F(1, 100)
    assert worst_delta(30, "1/4", lam_hi * (1 + F(1, 10**9)))[0] <= F(1, 100)
    assert 0 <= m < 30
