"""The reverse direction's lower tail by exponential tilting (exactdp.engine.tilted).

Checked here:

* agreement with the certified tree (and its delta) on small cases where the lower
  tail is small but computable (L = 3-5, N = 200-1000, P[S < s] ~ 1e-6 ... 1e-26):
  the intervals overlap and the tilted one is within its claimed width;
* a threshold on S's lattice: the enclosure holds for both ``<`` and ``<=``;
* the saddle point and the prefactor against plain float computations, and the
  Chernoff bound against the enclosure;
* the pathwise smoothing bracket on a case with a closed form (a two-point Y plus a
  Gaussian) and sample by sample;
* a seeded importance-sampled (tilted) Monte Carlo at deployment scale (L = 40,
  N = 10^7, q = 0.351, lam = e^2, P ~ 1e-8485) agreeing with J within a wide tolerance;
* the routing: ``eta``/``delta`` in reverse at deployment scale meet 4 digits and
  name the strategy; bad input is a one-line error.
"""

import json
import math
from fractions import Fraction as F

import numpy as np
import pytest
from flint import arb

from exactdp import from_randomized_response
from exactdp.apps.cli import main
from exactdp.core.errors import ParameterError, PrecisionError
from exactdp.core.interval import Interval
from exactdp.engine.tilted import (log10_chernoff, prefactor, saddle_point, tilted_sums)
from exactdp.model.mechanism import Mechanism


@pytest.mark.parametrize("L,N,q,lam", [(4, 200, "1/4", F(4)), (4, 1000, "1/4", F(4)),
                                       (3, 500, "1/5", F(8)), (5, 1000, "1/5", F(8))])
def test_agrees_with_tree(L, N, q, lam):
    r = tilted_sums(Mechanism(L, q), N, 1 / lam, excess=True, rel=1e-8)
    d = from_randomized_response(N, L, q, "reverse")
    eta = d.eta(lam=lam, digits=12)
    delta = d.delta(lam=lam, digits=12)
    assert 0 < r.p.lower and r.p.relative_width() < 1e-7
    assert r.p.overlaps(eta), (r.p, eta)
    assert r.p.lower <= eta.upper and eta.lower <= r.p.upper
    ex = r.ex.scale(lam)              # delta_rev = lam E(1/lam - S)+
    assert ex.overlaps(delta) and r.ex.relative_width() < 1e-7, (ex, delta)
    assert float(r.p.mid) < 1e-5


def test_lattice_point_threshold_holds_for_both_events():
    # L = 3, q = 1/4, N = 1000, lam = 3: s' / Delta = 1000 is a lattice point of U
    r = tilted_sums(Mechanism(3, "1/4"), 1000, F(1, 3), rel=1e-8)
    d = from_randomized_response(1000, 3, "1/4", "reverse")
    strict = d.eta(lam=3, digits=10)
    inclusive = d.eta(lam=3, digits=10, inclusive=True)
    assert r.p.lower <= strict.upper and inclusive.lower <= r.p.upper
    assert strict.upper < inclusive.lower       # the atom is real: both ends are needed


def test_saddle_point_and_prefactor():
    m, N, s = Mechanism(40, "0.351"), 10**7, F(1, 7)
    t = saddle_point(m, N, s)
    lp, cats, probs, w = prefactor(m, N, s, t)
    # every category with w_l > s is dropped; the tilted law has mean s
    assert all(float(m.c[l]) / N <= float(s) for l in cats) and max(cats) + 1 <= m.L
    assert float(m.c[max(cats) + 1]) / N > float(s)
    mean = N * sum(float(p) * float(x) for p, x in zip(probs, w))
    assert abs(mean / float(s) - 1) < 1e-9
    assert abs(sum(float(p) for p in probs) - 1) < 1e-12
    # the log prefactor N log m(t) + t s from plain floats
    m_t = sum(float(m.pi0[l]) * math.exp(-t * float(m.c[l]) / N) for l in cats)
    assert abs(float(lp) - (N * math.log(m_t) + t * float(s))) < 1e-6 * abs(float(lp))
    # the Chernoff bound is above the certified value, by a moderate factor (J <= 1)
    r = tilted_sums(m, N, s, rel=1e-6)
    l10 = log10_chernoff(m, N, s)
    assert abs(l10 - float(lp) / math.log(10)) < 1e-6 * abs(l10)
    assert 0 < -math.log10(float(r.J.mid)) < 6 and r.J.upper <= 1


def _smoothed_bracket(ys, ps, t, a, sg, b):
    """Closed forms for a two-point Y plus N(0, sg^2): E[e^{tV} 1{V < b}]."""
    from math import erfc, exp, sqrt
    out = 0.0
    for y, p in zip(ys, ps):
        # E[e^{t(y+G)} 1{y + G < b}] = e^{ty + t^2 sg^2/2} Phi((b - y - t sg^2) / sg)
        out += p * exp(t * y + t * t * sg * sg / 2) * 0.5 * erfc(-(b - y - t * sg * sg) / (sg * sqrt(2)))
    return out


def test_pathwise_smoothing_bracket_known_answer():
    ys, ps = (-0.3, 0.2), (0.4, 0.6)
    t, a = 3.0, 0.05
    sg = a / 14
    J = sum(p * math.exp(t * y) for y, p in zip(ys, ps) if y < 0)
    Qa = math.erfc(14 / math.sqrt(2))
    lo = math.exp(-t * a) * _smoothed_bracket(ys, ps, t, a, sg, -a) - Qa
    hi = math.exp(t * a) * _smoothed_bracket(ys, ps, t, a, sg, a) + Qa
    assert lo <= J <= hi and (hi - lo) / J < 4 * t * a
    # and sample by sample (the bracket is pathwise), with a wide G to hit |G| > a
    rng = np.random.default_rng(7)
    Y = rng.choice(ys, size=20000, p=ps) + rng.normal(0, 0.01, 20000)
    G = rng.normal(0, 2 * a, 20000)
    V = Y + G
    h = np.exp(t * Y) * (Y < 0)
    big = np.abs(G) > a
    lo_s = np.exp(-t * a) * np.exp(t * V) * (V < -a) - big
    hi_s = np.exp(t * a) * np.exp(t * V) * (V < a) + big
    assert np.all(lo_s <= h + 1e-15) and np.all(h <= hi_s + 1e-15)
    h2 = -Y * h
    lo2 = np.exp(-t * a) * np.maximum(-a - V, 0) * np.exp(t * V) * (V < -a) - big / (math.e * t)
    hi2 = np.exp(t * a) * np.maximum(a - V, 0) * np.exp(t * V) * (V < a) + big / (math.e * t)
    assert np.all(lo2 <= h2 + 1e-15) and np.all(h2 <= hi2 + 1e-15)


def test_importance_sampled_monte_carlo_at_deployment_scale():
    m, N = Mechanism(40, "0.351"), 10**7
    s = arb(-2).exp()
    r = tilted_sums(m, N, s, rel=1e-6)
    assert r.p.relative_width() < 1e-5 and -8490 < r.log10_prefactor < -8480
    t = saddle_point(m, N, s)
    _, cats, probs, w = prefactor(m, N, s, t)
    pr = np.array([float(p) for p in probs])
    wf = np.array([float(x) for x in w])
    rng = np.random.default_rng(20261126)
    T = rng.multinomial(N, pr / pr.sum(), size=40000)
    Y = T @ wf - float(s)
    h = np.exp(t * np.minimum(Y, 0)) * (Y < 0)
    est, se = h.mean(), h.std() / math.sqrt(len(h))
    J = float(r.J.mid)
    assert abs(est - J) < max(5 * se, 0.3 * J), (est, se, J)


def test_bad_input_is_one_line():
    m = Mechanism(4, "1/4")
    with pytest.raises(ParameterError, match="N must"):
        tilted_sums(m, 0, F(1, 4))
    with pytest.raises(ParameterError, match="rel must"):
        tilted_sums(m, 100, F(1, 4), rel=2)
    with pytest.raises(ParameterError, match="s must"):
        tilted_sums(m, 100, F(-1, 4))
    with pytest.raises(PrecisionError, match="lower tail"):
        tilted_sums(m, 100, F(3, 2))        # above E S = 1: not a lower tail
    assert log10_chernoff(m, 100, F(3, 2)) == 0.0


def _run(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("which", ["eta", "delta"])
def test_reverse_at_deployment_scale_meets_digits(which, capsys):
    rc, out, err = _run([which, "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2",
                         "--direction", "reverse", "--json", "--quiet"], capsys)
    assert rc == 0, err
    rec = json.loads(out)
    assert rec["strategy"] == "tilted" and rec["digits"] == 4
    lo, hi = F(rec[which]["lower"]), F(rec[which]["upper"])
    assert 0 < lo <= hi and (hi - lo) / hi <= F(1, 10**3)
    assert F(1, 10**8490) < lo < F(1, 10**8480)


@pytest.mark.slow
def test_worst_still_reports_the_forward_direction(capsys):
    rc, out, err = _run(["eta", "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2",
                         "--direction", "worst", "--json", "--quiet"], capsys)
    assert rc == 0, err
    rec = json.loads(out)
    assert rec["strategy"] == "fourier+tilted"
    assert F(13, 10**4) < F(rec["eta"]["lower"]) <= F(rec["eta"]["upper"]) < F(14, 10**4)


def test_chernoff_bounds_are_above_the_enclosures():
    from exactdp.engine.tilted import chernoff_bounds
    from exactdp.core.interval import arb_to_interval
    m, N, s = Mechanism(40, "0.30"), 10**7, F(1, 7)
    b, e = chernoff_bounds(m, N, s)
    r = tilted_sums(m, N, s, excess=True, rel=1e-6)
    assert r.p.upper <= arb_to_interval(b).lower and r.ex.upper <= arb_to_interval(e).lower
    assert chernoff_bounds(m, N, F(3, 2)) is None


@pytest.mark.slow
def test_calibrate_in_reverse_at_deployment_scale(capsys):
    """The scan places far lower tails by their certified Chernoff bound (~2 min)."""
    rc, out, err = _run(["calibrate", "-N", "10000000", "-L", "40", "--eps", "2", "--eta", "0.01",
                         "--direction", "reverse", "--json", "--quiet"], capsys)
    assert rc == 0, err
    rec = json.loads(out)
    text = json.dumps(rec)
    assert "0.2744" in text, text[:400]


def test_values_below_the_floor_are_the_certified_bound():
    from exactdp.core.errors import DigitsNotMetError
    d = from_randomized_response(10**7, 40, "0.45", "reverse")
    with pytest.raises(DigitsNotMetError, match="Chernoff bound") as e:
        d.eta(eps=2, digits=3)
    assert e.value.reached.lower == 0 and e.value.reached.upper == F(1, 10**10**6)


# ----------------------------------------------------------------- the upper tail (forward)
@pytest.mark.parametrize("L,N,q,lam", [(3, 200, "1/4", F(3)), (3, 1000, "1/4", F(2)),
                                       (4, 500, "1/4", F(4)), (8, 2000, "0.2446", F(2))])
def test_upper_tail_agrees_with_tree(L, N, q, lam):
    """The forward eta P_{D_m}[S > lam] = E_D[S; S > lam] (one integral, kernel s h + h2) and
    delta E_D(S - lam)+ against the exact tree: the lattice route (L = 3, 4 at q = 1/4; a threshold
    on the lattice gives the hull of > and >=) and the smoothed one (L = 8, q = 0.2446)."""
    r = tilted_sums(Mechanism(L, q), N, lam, upper=True, forward=True, excess=True,
                    rel=1e-8 if L < 8 else 1e-6)
    d = from_randomized_response(N, L, q, "forward")
    eta = d.eta(lam=lam, digits=12)
    assert r.p is None and r.upper
    assert r.p_forward.lower <= eta.upper and eta.lower <= r.p_forward.upper, (r.p_forward, eta)
    assert eta.lower <= d.eta(lam=lam, digits=12, inclusive=True).upper
    assert r.ex.overlaps(d.delta(lam=lam, digits=12)) and r.ex.relative_width() < 1e-4
    assert r.p_forward.relative_width() < (3e-2 if L == 3 else 1e-4)
    if L < 8:
        # the null upper tail P_D[S > lam] alone, and forward = s P + E(S - s)+ (the same law)
        r2 = tilted_sums(Mechanism(L, q), N, lam, upper=True, excess=True, rel=1e-8)
        both = Interval(lam * r2.p.lower + r2.ex.lower, lam * r2.p.upper + r2.ex.upper)
        assert both.overlaps(r.p_forward)



def test_upper_tail_importance_sampled_at_deployment_scale():
    """L = 40, N = 10^7, q = 0.43, lam = e^2 (eta ~1e-8221): the forward function's expectation
    under the tilted law, s J + K = E_Q[S e^{-t(S - s)}; S > s], against a seeded Monte Carlo of
    the tilted multinomial counts (an independent route to the quadrature)."""
    m, N = Mechanism(40, "0.43"), 10**7
    s = arb(2).exp()
    r = tilted_sums(m, N, s, upper=True, forward=True, rel=1e-5)
    assert r.p_forward.relative_width() < 1e-4 and -8225 < r.log10_prefactor < -8215
    t = saddle_point(m, N, s, upper=True)
    _, cats, probs, w = prefactor(m, N, s, t, upper=True)
    pr = np.array([float(p) for p in probs])
    wf = -np.array([float(x) for x in w])             # the weights of S (prefactor's are -w)
    rng = np.random.default_rng(20261206)
    T = rng.multinomial(N, pr / pr.sum(), size=40000)
    S = T @ wf
    Y = S - float(s)
    g = S * np.exp(-t * np.maximum(Y, 0)) * (Y > 0)
    est, se = g.mean(), g.std() / math.sqrt(len(g))
    J = float(r.J.mid)
    assert abs(est - J) < max(5 * se, 0.05 * J), (est, se, J)


def test_forward_far_tail_on_the_command_line(capsys):
    rc, out, err = _run(["eta", "-N", "10000000", "-L", "40", "-q", "0.45", "--eps", "2", "--json",
                         "--quiet"], capsys)
    assert rc == 0, err
    rec = json.loads(out)
    assert rec["strategy"] == "tilted"
    lo, hi = F(rec["eta"]["lower"]), F(rec["eta"]["upper"])
    assert 0 < lo <= hi and (hi - lo) / hi <= F(1, 10**3)
    assert F(1, 10**223792) < lo < F(1, 10**223790)


@pytest.mark.slow
def test_upper_tail_overlaps_the_heavy_light_strategy():
    """q = 0.40 (eta ~3.31e-56), where both reach: the tilted forward eta (~30 s) and the
    heavy/light strategy's (exactdp.engine.largen, outlier) overlap."""
    from exactdp.engine.largen import split_sums
    m, N, lam = Mechanism(40, "0.40"), 10**7, F(738905609893065, 10**14)
    r = tilted_sums(m, N, lam, upper=True, forward=True, rel=1e-5)
    ss = split_sums(m, N, lam, outlier=True, tol=1e-60)
    assert r.p_forward.overlaps(ss.p_above), (r.p_forward, ss.p_above)
    assert r.p_forward.relative_width() < 1e-4 and ss.p_above.relative_width() < 1e-3


def test_upper_tail_bad_input():
    m = Mechanism(4, "1/4")
    with pytest.raises(ParameterError, match="forward needs upper"):
        tilted_sums(m, 100, F(2), forward=True)
    with pytest.raises(PrecisionError, match="upper tail"):
        tilted_sums(m, 100, F(1, 2), upper=True)          # below E S = 1: not an upper tail
    assert log10_chernoff(m, 100, F(1, 2), upper=True) == 0.0


def test_a_lumpy_tilted_law_is_refused_at_once():
    """L = 64, N = 10^9, q = 0.43: the tilt puts ~94 users at the top category (w = 0.067, the
    others' spread 3e-4): the lobes of |f|^N reach past MAX_LOBE_SPAN, so the tilted route refuses
    in a moment and the query falls back to the heavy/light strategy's certified upper bound."""
    import time
    from exactdp.core.errors import DigitsNotMetError
    m, N, lam = Mechanism(64, "0.43"), 10**9, F(738905609893065, 10**14)
    t0 = time.monotonic()
    with pytest.raises(PrecisionError, match="lumpy"):
        tilted_sums(m, N, lam, upper=True, forward=True, rel=1e-5)
    d = from_randomized_response(N, 64, "0.43")
    with pytest.raises(DigitsNotMetError) as e:
        d.eta(eps=2, digits=3)
    assert e.value.reached.lower == 0 and e.value.reached.upper < F(1, 10**299)
    assert time.monotonic() - t0 < 30


def test_forward_values_below_the_floor_are_the_certified_bound():
    """L = 12, N = 10^6, q = 0.45 forward (Chernoff ~1e-2173690): the certified bound is the
    answer, and the message does not send the user to the (smaller) reverse direction."""
    from exactdp.core.errors import DigitsNotMetError
    d = from_randomized_response(10**6, 12, "0.45")
    with pytest.raises(DigitsNotMetError, match="the bound is the answer") as e:
        d.eta(eps=2, digits=3)
    assert "direction worst" not in str(e.value)
    assert e.value.reached.lower == 0 and e.value.reached.upper == F(1, 10**10**6)


@pytest.mark.slow
def test_upper_tail_quadratic_kernel_against_monte_carlo():
    # E_Q[(c1 + c2 x + c3 x^2) e^(-tx); x > 0] (the kernel 2 / (t - iu)^3 for x^2): c3 alone
    # against 1,000,000 draws of the tilted law (L = 8, q = 0.2446, n = 2000, s = 1.5: ~0.3862,
    # ~0.3 % standard error), and linear in the coefficients
    from flint import fmpq
    from exactdp.engine.tilted import tilt_saddle, upper_tail
    m = Mechanism(8, "0.2446")
    n, s = 2000, 1.5
    w = [arb(fmpq(c.numerator, c.denominator * n)) for c in m.c]
    wf = np.array([float(x) for x in w])
    pi = np.array([float(p) for p in m.pi0])
    t = tilt_saddle(np.log(pi), -wf, n, -s)
    r = upper_tail(m.pi0, w, n, [(arb(s), 0, 0, 1), (arb(s), 1, 2, 3), (arb(s), 1, 0), (arb(s), 0, 1)],
                   t=t, rel=1e-6)
    c3, mix, J, K = r.values
    assert c3.relative_width() < 1e-4
    Q = pi * np.exp(t * wf)
    Q /= Q.sum()
    x = np.random.default_rng(20261206).multinomial(n, Q, size=1_000_000) @ wf - s
    h = np.where(x > 0, x * x * np.exp(-t * np.maximum(x, 0.0)), 0.0)
    est, se = h.mean(), h.std() / math.sqrt(len(h))
    assert abs(float(c3.lower) - est) < 5 * se, (c3, est, se)
    lin = J.lower + 2 * K.lower + 3 * c3.lower
    assert mix.lower - F(1, 10**6) <= lin <= mix.upper + F(1, 10**6)


@pytest.mark.slow
def test_upper_tail_kernels_of_any_degree_against_a_monte_carlo():
    """``upper_tail``'s kernel ``sum_j c_j x^j e^(-tx)`` beyond degree 2 (the transform ``j! / (t -
    iu)^(j+1)``): ``E_Q[x^3 e^(-tx); x > 0]`` against a seeded Monte Carlo of the tilted law's
    multinomial counts (an independent route to the quadrature), and a degree-3 kernel against
    the sum of its terms computed one by one (linearity: the enclosures overlap).  ~10 s."""
    from flint import fmpq
    from exactdp.engine.tilted import tilt_saddle, upper_tail
    m, n = Mechanism(8, "0.2446"), 2000
    w = [arb(fmpq(c.numerator, c.denominator * n)) for c in m.c]
    lpi = np.log([float(p) for p in m.pi0])
    wf = np.array([float(x) for x in w])
    t = tilt_saddle(lpi, -wf, n, -1.5)
    r = upper_tail(m.pi0, w, n, [(arb(1.5), 0, 0, 0, 1)], t=t, rel=1e-6)
    cube = r.values[0]
    assert 0 < cube.lower and cube.relative_width() < 1e-3
    Q = np.array([float(p) for p in r.probs])
    rng = np.random.default_rng(20261206)
    x = rng.multinomial(n, Q / Q.sum(), size=100_000) @ wf - 1.5
    g = np.where(x > 0, np.maximum(x, 0) ** 3 * np.exp(-t * np.maximum(x, 0)), 0.0)
    est, se = g.mean(), g.std() / math.sqrt(len(g))
    assert abs(est - float(cube.lower)) < 5 * se, (est, se, float(cube.lower))
    cs = (1, 2, 3, 2.5)
    whole = upper_tail(m.pi0, w, n, [(arb(1.5),) + cs], t=t, rel=1e-6).values[0]
    parts = upper_tail(m.pi0, w, n, [(arb(1.5),) + (0,) * j + (c,) for j, c in enumerate(cs)], t=t,
                       rel=1e-6).values
    lo, hi = sum(p.lower for p in parts), sum(p.upper for p in parts)
    assert whole.lower <= hi and lo <= whole.upper and whole.relative_width() < 1e-3
