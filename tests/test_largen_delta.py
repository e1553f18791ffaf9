"""delta by the heavy/light Fourier strategy (exactdp.engine.largen): the excess identity.

The Fourier strategy encloses ``E_D(S - s)+`` and ``E_D(s - S)+`` under the null law and
tightens each by the exact identity ``E(S - s)+ - E(s - S)+ = E S - s`` (``E_D S = 1``).
Checked here:

* the identity and ``E_D S = 1`` on tiny cases by brute force (the forward delta is
  ``E_D (S - lam)+``, the change of measure the strategy uses);
* the tightened forward delta at L = 40, N = 10^7, q = 0.30 reaches 1e-3 (it was 1.8e-2);
* overlap with the tree where both run (N ~ 10^3, L = 5 and 8; slow).
"""

from fractions import Fraction as F

import pytest
from flint import arb, ctx

from exactdp import from_randomized_response
from exactdp.core.errors import DigitsNotMetError
from exactdp.engine.largen import split_sums
from exactdp.model.mechanism import Mechanism
from exactdp.oracles import bruteforce


def _reached(query, **kw):
    try:
        return query(**kw)
    except DigitsNotMetError as e:
        return e.reached


@pytest.mark.parametrize("N,L,q,lam", [(3, 2, "1/4", F(3, 2)), (4, 3, "1/5", F(2)), (2, 4, "0.3", F(5, 4))])
def test_excess_identity_by_brute_force(N, L, q, lam):
    # the reverse law is the law of R = 1/S under D (the null law)
    law = bruteforce.canonical_law(N, L, q, "reverse")
    S = {1 / r: p for r, p in law.items()}
    assert sum(p * s for s, p in S.items()) == 1                       # E_D S = 1
    above = sum(p * max(s - lam, 0) for s, p in S.items())
    below = sum(p * max(lam - s, 0) for s, p in S.items())
    assert above - below == 1 - lam                                     # the identity
    # forward delta = E_D (S - lam)+ (change of measure from D_m to D)
    assert bruteforce.canonical_delta(N, L, q, lam, "forward") == above


def test_split_sums_excess_sides_are_consistent():
    m = Mechanism(40, "0.30")
    with ctx.workprec(160):
        s = arb(2).exp()
    r = split_sums(m, 10**7, s, excess=True, tol=1e-8)
    lo, hi = F(float(s.lower())), F(float(s.upper()))   # s inside [lo, hi] up to float rounding
    # E(S - s)+ - E(s - S)+ = 1 - s: the two enclosures are consistent with it
    assert r.ex_above.lower - r.ex_below.upper <= 1 - lo * F(999999, 10**6)
    assert r.ex_above.upper - r.ex_below.lower >= 1 - hi * F(1000001, 10**6)
    assert r.ex_above.relative_width() < 1e-4      # 1.8e-2 before the identity was used


def test_delta_l40_q030_reaches_three_digits():
    d = from_randomized_response(10**7, 40, "0.30")
    assert d.choose_method() == "fourier"
    iv = d.delta(eps=2, digits=3)
    assert iv.relative_width() <= 1e-3
    assert F(14, 100) < iv.lower


@pytest.mark.slow
@pytest.mark.parametrize("N,L,q,lam", [(1000, 5, "0.2446", F(6, 5)), (2000, 8, "1/4", F(3, 2))])
@pytest.mark.parametrize("direction", ["forward", "reverse"])
def test_delta_overlaps_tree(N, L, q, lam, direction):
    d = from_randomized_response(N, L, q, direction)
    a = _reached(d.delta, lam=lam, digits=4, method="fourier")
    b = d.delta(lam=lam, digits=10)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert a.relative_width() < 0.05


def test_far_tail_bound_is_not_lost_in_rounding():
    # reverse eta at q = 0.40 (L = 40, N = 10^7): the Chernoff bound is ~1e-161118; it was
    # reported as 1.4e-48 (the rounding of 1 - (1 - B) at 160 bits), which hid the forward
    # value 3.3e-56 in the worst direction.  The reverse value itself (~4.457e-254114) is
    # now certified by the tilted strategy (exactdp.engine.tilted)
    w = from_randomized_response(10**7, 40, "0.40", "worst")
    rev = w.reverse.eta(eps=2, digits=3)
    assert 0 < rev.lower and rev.upper <= F(1, 10**299) and rev.relative_width() <= 1e-3
    iv = w.eta(eps=2, digits=3)
    assert iv.relative_width() <= 1e-3 and F(1, 10**57) < iv.lower < iv.upper < F(1, 10**55)


def test_dropped_heavy_node_adds_nothing_below_the_threshold():
    # delta ~ 1e-6 at eps = 5.934 (L = 40, N = 10^7, q = 0.351): a dropped node with a user in
    # the top category has S >= w_40 > e^eps, so it adds nothing to E(s - S)+; charging it
    # s times its mass left the width at 2.4e-3 whatever the truncation
    d = from_randomized_response(10**7, 40, "0.351")
    iv = d.delta(eps=F(593425, 100000), digits=3)
    assert iv.relative_width() <= 1e-3 and F(1, 10**6) < iv.lower < F(11, 10**7)
