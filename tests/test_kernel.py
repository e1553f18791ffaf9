"""Independent routes through the certified engine (no paper numbers).

* forward eta by change of measure (the engine's route) vs by conditioning on
  the outlier's synthetic vector (000 (3.5): T ~ MN(N-1, p0) + MN(1, p1));
* E_D[R] = 1 (change of measure) enclosed by the kernel;
* sf + cdf = 1; fast mode within its stated bound of the certified value;
* a Monte Carlo sanity check at a paper-scale setting (5 standard errors);
* the eps bracket really brackets: delta violated at the lower end, met at the upper.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import assume, example, given, settings, strategies as st

from exactdp import CapacityError, Interval, Mechanism, from_randomized_response
from exactdp.engine.kernel import Threshold, tail_sums
from exactdp.oracles.pgf import moments_R


def forward_eta_by_outlier(N, L, q, lam, prec=200, tol=1e-45):
    """P_{D_m}[X > lam N] = sum_j p1_j P[X' > lam N - c_j],  X' from N-1 zeros."""
    m = Mechanism(L, q)
    lo = hi = Fraction(0)
    for j in range(L + 1):
        tau = Fraction(lam) * N * m.scale - m.weights[j]
        ts = tail_sums(m, N - 1, Threshold.from_fraction(tau, prec), prec=prec, tol=tol)
        iv = ts.p_above()
        lo += m.pi1[j] * iv.lower
        hi += m.pi1[j] * iv.upper
    return Interval(lo, hi)


@pytest.mark.parametrize("N,L,q,lam", [
    (50, 3, "1/3", 2), (200, 4, "0.25", 2), pytest.param(300, 5, "0.3", "3/2", marks=pytest.mark.slow), (120, 2, "1/5", 3),
    (1, 3, "1/4", 2), (2, 1, "1/3", Fraction(5, 4)),
])
def test_forward_two_routes_agree(N, L, q, lam):
    d = from_randomized_response(N, L, q, "forward")
    a = d.eta(lam=lam, digits=25)
    b = forward_eta_by_outlier(N, L, q, lam)
    assert a.overlaps(b)
    assert a.relative_width() < 1e-24 or a.upper == 0
    assert b.width < Fraction(1, 10**30) or b.relative_width() < 1e-24


@pytest.mark.parametrize("N,L,q", [(10, 3, "1/3"), (400, 5, "0.2446"), (1000, 1, "1/7")])
def test_change_of_measure_mean_is_one(N, L, q):
    m = Mechanism(L, q)
    ts = tail_sums(m, N, Threshold.from_fraction(Fraction(0), 128), prec=128, tol=1e-40)
    e = ts.e_above().scale(Fraction(1, N * m.scale))   # E_D[R_forward] = E[X]/N
    assert e.contains(1)
    assert e.width < Fraction(1, 10**30)


@pytest.mark.parametrize("direction", ["forward", "reverse"])
@pytest.mark.parametrize("x", [Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2)])
def test_sf_plus_cdf_encloses_one(direction, x):
    d = from_randomized_response(300, 4, "0.22", direction)
    s, c = d.sf(x, digits=20), d.cdf(x, digits=20)
    assert s.lower + c.lower <= 1 <= s.upper + c.upper
    assert (s.width + c.width) < Fraction(1, 10**18)


def test_forward_mean_var_equal_pgf():
    d = from_randomized_response(37, 4, "2/9", "forward")
    assert (d.mean(), d.var()) == moments_R(37, 4, Fraction(2, 9), "forward")


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(N=st.integers(20, 400), L=st.integers(1, 5),
       qd=st.integers(2, 40), lam=st.sampled_from([Fraction(11, 10), Fraction(3, 2), Fraction(2), Fraction(3)]),
       direction=st.sampled_from(["forward", "reverse"]))
@example(N=400, L=5, qd=4, lam=Fraction(2), direction="forward")
@example(N=20, L=1, qd=3, lam=Fraction(11, 10), direction="reverse")
def test_fast_within_stated_bound(N, L, qd, lam, direction):
    q = Fraction(qd, 2 * qd + 1 + qd % 3)        # in (0, 1/2)
    d = from_randomized_response(N, L, q, direction)
    # the float tree against the certified tree: where the capacity predictor hands the
    # certified query to the Fourier strategy (q near 1/2), 18 digits are out of its reach
    assume(d.choose_method() == "tree")
    ex = d.eta(lam=lam, digits=18)
    fa = d.eta(lam=lam, method="fast")
    assert abs(Fraction(fa.value) - ex.mid) <= Fraction(fa.error) + ex.width
    exd = d.delta(lam=lam, digits=18)
    fad = d.delta(lam=lam, method="fast")
    assert abs(Fraction(fad.value) - exd.mid) <= Fraction(fad.error) + exd.width


def test_monte_carlo_agrees_at_paper_scale():
    d = from_randomized_response(1000, 5, "0.2446", "forward")
    ex = float(d.eta(lam=2, digits=12).mid)
    r = d.mechanism.sample_ratio(1000, 200_000, "forward", rng=2024)
    p = float((r > 2).mean())
    se = math.sqrt(ex * (1 - ex) / 200_000)
    assert abs(p - ex) < 5 * se


def test_eps_bracket_is_certified():
    d = from_randomized_response(200, 3, "1/5", "forward")
    target = Fraction(1, 10**5)
    e = d.epsilon(delta=target, digits=8)
    assert e.relative_width() < 1e-7
    hi = d.delta(eps=e.upper, digits=15)
    lo = d.delta(eps=e.lower, digits=15)
    assert hi.upper <= target
    assert lo.lower > target


def test_eps_at_tiny_delta_is_stable():
    d = from_randomized_response(60, 2, "1/4", "reverse")
    e = d.epsilon(delta=Fraction(1, 10**30), digits=10)
    assert e.relative_width() < 1e-9
    assert d.delta(eps=e.upper, digits=14).upper <= Fraction(1, 10**30)


def test_irrational_threshold_has_no_ties():
    d = from_randomized_response(5, 2, "1/3", "forward")
    strict = d.eta(eps=Fraction(693, 1000), digits=30)
    incl = d.eta(eps=Fraction(693, 1000), inclusive=True, digits=30)
    assert strict.overlaps(incl) and strict.width < Fraction(1, 10**29)


def test_eta_zero_beyond_max_ratio():
    d = from_randomized_response(7, 3, "1/4", "forward")
    rmax = d.support_max()
    assert d.eta(lam=rmax).upper == 0
    assert d.eta(lam=rmax, inclusive=True).lower > 0


def test_capacity_refused_before_work():
    from exactdp.engine.capacity import check_capacity
    with pytest.raises(CapacityError, match="L=64"):
        check_capacity(Mechanism(64, "0.35"), 10**9)


@pytest.mark.parametrize("x", [Fraction(3, 2), Fraction(2), Fraction(5, 2)])
def test_forward_and_reverse_related_by_change_of_measure(x):
    """On {R_f > x}: P_Dm = E_D[R_f; R_f > x] lies in [x, Rmax] * P_D[R_f > x], and
    P_D[R_f > x] = P_D[R_rev < 1/x] is the reverse law's strict cdf at 1/x."""
    fwd = from_randomized_response(150, 3, "1/5", "forward")
    rev = from_randomized_response(150, 3, "1/5", "reverse")
    a = fwd.sf(x, digits=20)
    b = rev.cdf(1 / x, inclusive=False, digits=20)
    assert a.lower <= fwd.support_max() * b.upper
    assert x * b.lower <= a.upper
    assert b.lower > 0


def test_histogram_sampler_matches_sufficient_statistic_law():
    """Sampled full histograms, reduced to set-bit counts, match P[T_L = 0]."""
    m = Mechanism(3, "1/4")
    D = [(0, 0, 0)] * 5 + [(1, 1, 1)]
    h = m.sample_histograms(D, 40_000, rng=7)
    top = h[:, 7]                               # type 111: three set bits
    p_none = (1 - float(m.pi0[3])) ** 5 * (1 - float(m.pi1[3]))
    assert abs(float((top == 0).mean()) - p_none) < 5 * math.sqrt(p_none * (1 - p_none) / 40_000)


@pytest.mark.parametrize("N,L,q", [(3, 2, "1/3"), (5, 3, "1/4"), (6, 2, "2/7"), (7, 1, "1/5")])
def test_reverse_mean_var_enclose_brute_force(N, L, q):
    from exactdp.oracles import bruteforce as B
    d = from_randomized_response(N, L, q, "reverse")
    law = B.canonical(N, L, Fraction(q), "reverse")
    m, v = d.mean(digits=25), d.var(digits=25)
    assert m.contains(law.mean()) and v.contains(law.var())
    assert m.relative_width() < 1e-24 and v.relative_width() < 1e-22


def test_reverse_mean_at_paper_scale_vs_monte_carlo():
    d = from_randomized_response(1000, 5, "0.2446", "reverse")
    m = d.mean(digits=15)
    assert m.relative_width() < 1e-15
    r = d.mechanism.sample_ratio(1000, 200_000, "reverse", rng=11)
    se = float(r.std()) / math.sqrt(len(r))
    assert abs(float(r.mean()) - float(m.mid)) < 5 * se
