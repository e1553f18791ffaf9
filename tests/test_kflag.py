"""--k K (k-randomization, 003 §1) for eta, delta, epsilon, calibrate: CLI = API, k = 1 = engine."""

import dataclasses
import json
from fractions import Fraction as F

import pytest

from exactdp.apps.cli import main
from exactdp.law.distribution import from_randomized_response
from exactdp.core.errors import CapacityError, ParameterError
from exactdp.apps.kflag import k_calibrate, k_delta, k_epsilon, k_eta
from exactdp.reductions.pairs import canonical_pair, eta_exact


def run(capsys, argv):
    rc = main(argv)
    cap = capsys.readouterr()
    return rc, (json.loads(cap.out) if rc == 0 and "--json" in argv else cap.out), cap.err


@pytest.mark.parametrize("direction", ["forward", "reverse", "worst"])
def test_k1_equals_ordinary_engine(direction):
    d = from_randomized_response(12, 2, "1/4", direction)
    assert k_eta(12, 2, "1/4", 1, lam=2, direction=direction).overlaps(d.eta(lam=2))
    assert k_delta(12, 2, "1/4", 1, lam=F(3, 2), direction=direction).overlaps(
        d.delta(lam=F(3, 2)))
    e = k_epsilon(12, 2, "1/4", 1, delta="1e-2", direction=direction, digits=5)
    assert e.overlaps(d.epsilon(delta="1e-2", digits=5))


def test_k2_values_are_the_pair_engines():
    P = canonical_pair(6, 2, 2)
    assert k_eta(6, 2, "1/3", 2, lam=2).contains(eta_exact(P, F(1, 3), lam=2))
    # more randomizations leak more: eta grows with k at fixed lam
    assert k_eta(6, 2, "1/3", 2, lam=2).lower > k_eta(6, 2, "1/3", 1, lam=2).upper


def test_cli_equals_api(capsys):
    rc, rec, _ = run(capsys, ["eta", "--k", "2", "-N", "10", "-L", "2", "-q", "1/4", "--lam", "2",
                              "--json"])
    iv = k_eta(10, 2, "1/4", 2, lam=2, digits=6)
    assert rc == 0 and rec["eta"] == iv.to_dict(6)
    rc, rec, _ = run(capsys, ["delta", "--k", "2", "-N", "8", "-L", "2", "-q", "1/4", "--eps",
                              "1/2", "--direction", "worst", "--json"])
    assert rc == 0 and rec["delta"] == k_delta(8, 2, "1/4", 2, eps=F(1, 2),
                                               direction="worst").to_dict(6)
    rc, rec, _ = run(capsys, ["epsilon", "--k", "3", "-N", "6", "-L", "1", "-q", "1/4",
                              "--eta", "0.05", "--digits", "4", "--json"])
    assert rc == 0 and rec["eps"] == k_epsilon(6, 1, "1/4", 3, eta="0.05", digits=4).to_dict(5)
    rc, rec, _ = run(capsys, ["calibrate", "--k", "2", "-N", "10", "-L", "2", "--lam", "2",
                              "--eta", "0.1", "--digits", "3", "--grid", "8", "--json"])
    c = k_calibrate(10, 2, 2, lam=2, eta="0.1", digits=3, grid=8)
    assert rc == 0 and rec["q"] == c["q"].to_dict(5)


def test_calibrate_bracket_is_certified():
    c = k_calibrate(10, 2, 2, lam=2, eta="0.1", digits=3, grid=8)
    q_lo, q_hi = c["q"].lower, c["q"].upper
    assert k_eta(10, 2, q_hi, 2, lam=2).upper <= F(1, 10)
    assert k_eta(10, 2, q_lo, 2, lam=2).upper > F(1, 10)
    assert (q_hi - q_lo) / q_hi <= F(1, 1000)


def test_beyond_capacity_is_one_line(capsys):
    with pytest.raises(CapacityError):
        k_delta(900, 10, "1/4", 2, lam=2)
    rc, _, err = run(capsys, ["delta", "--k", "2", "-N", "900", "-L", "10", "-q", "1/4",
                              "--lam", "2"])
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "beyond capacity" in err
    rc, _, err = run(capsys, ["eta", "--k", "0", "-N", "10", "-L", "2", "-q", "1/4",
                              "--lam", "2"])
    assert rc == 2 and "k must be" in err and len(err.strip().splitlines()) == 1
    rc, _, err = run(capsys, ["eta", "-N", "10", "-L", "2", "-q", "1/4", "--lam", "2", "--k"])
    assert rc == 2 and "--k" in err.strip().splitlines()[-1]   # argparse usage, as elsewhere


@pytest.mark.slow
def test_kcopies_node_cap_refuses(capsys):
    # below kN = 2000 only the k-copies search applies: beyond its node cap, the one-line error
    rc, _, err = run(capsys, ["eta", "--k", "2", "-N", "900", "-L", "10", "-q", "1/4",
                              "--lam", "2"])
    assert rc == 2 and "k-copies engines' capacity" in err


@pytest.mark.slow
def test_coarse_large_n_pass_answers_beyond_the_search(capsys):
    """N = 1000, L = 5, k = 2 (kN = 2000): the k-copies search exceeds its cap and the large-N
    strategy cannot certify at tol 1e-7 (the old route refused), but its first pass at tol 1e-4
    (methods._kfourier_passes) gives a certified enclosure; a seeded Monte Carlo agrees."""
    import math
    from exactdp.apps.kscale import mc_eta
    rc, out, _ = run(capsys, ["eta", "--k", "2", "-N", "1000", "-L", "5", "-q", "1/4",
                              "--lam", "2", "--json"])
    assert rc == 0 and out["certified"]
    lo, hi = float(out["eta"]["lower"]), float(out["eta"]["upper"])
    assert 0 < lo < hi < lo + 0.01
    est = mc_eta(2, "1/4", N=1000, L=5, eps=math.log(2), draws=20000, seed=3)
    sd = math.sqrt(est * (1 - est) / 20000)
    assert lo - 5 * sd < est < hi + 5 * sd


def test_auto_budget_of_the_kcopies_search(monkeypatch):
    """Under method="auto" the k-copies search stops at KCOPIES_AUTO_MAX_NODES (its nodes cost
    ~1 ms: the general budget would be a silent half hour) and reports progress."""
    from exactdp.model.pair import canonical_pair
    from exactdp.reductions import methods
    import exactdp.reductions.kcopies as kc
    seen = {}
    real = kc.walk

    def spy(*a, **kw):
        seen.update(kw)
        return real(*a, **kw)
    monkeypatch.setattr(kc, "walk", spy)
    marker = object()
    P = canonical_pair(200, 3, 2)                      # only the k-copies search applies
    assert methods.supported(P, "eta") == ("kcopies",)
    methods.eta(P, "1/4", 2, digits=6, progress=marker)
    assert seen["progress"] is marker and seen["max_nodes"] <= methods.KCOPIES_AUTO_MAX_NODES
    monkeypatch.setattr(methods, "KCOPIES_AUTO_MAX_NODES", 5)
    with pytest.raises(CapacityError):
        methods.eta(P, "1/4", 2, digits=6)
    methods.eta(P, "1/4", 2, digits=6, method="kcopies")  # a named method keeps the general budget


def test_delta_at_large_kN_is_the_difference_of_two_etas():
    """--k delta beyond the enumeration (k N >= kfourier.MIN_OUTPUTS): the difference of two
    certified etas (kfourier_delta), not a refusal; it overlaps the monotone grid of certified
    etas and is far narrower."""
    from exactdp.reductions.kfourier.api import _grid_delta
    from exactdp.reductions.pairs import reverse_canonical_pair
    iv = k_delta(5000, 5, "1/5", 2, lam=F(11, 10), direction="reverse")
    ref = _grid_delta(reverse_canonical_pair(5000, 5, 2), "1/5", F(11, 10), grid=2, tol=1e-5)
    assert iv.lower <= ref.upper and ref.lower <= iv.upper and 5 * iv.width < ref.width
    assert float(iv.lower) > 0
    with pytest.raises(ParameterError):
        k_delta(5000, 5, "1/5", 2, lam=F(11, 10), rel=2)


@pytest.mark.slow
def test_calibrate_k_at_deployment_scale(capsys):
    """calibrate --k 2 at L = 40, N = 10^7, lambda = e^2, eta <= 1 % from the CLI (minutes):
    a certified bracket, checked against certified etas at its ends."""
    rc, rec, _ = run(capsys, ["calibrate", "--k", "2", "-N", "10000000", "-L", "40", "--eps", "2",
                              "--eta", "0.01", "--digits", "3", "--direction", "forward", "--json"])
    assert rc == 0
    lo, hi = F(rec["q"]["lower"]), F(rec["q"]["upper"])
    assert 0.33 < lo < hi < 0.36 and (hi - lo) / hi <= F(1, 1000)


# ---------------------------------------------------------------- inverse queries: the secant route
def _synthetic(root, *, slope=-190.0, target=F(1, 100), jump=None):
    """A certified-looking eta(u): exp(slope (u - root)) target with an asymmetric enclosure of
    relative width relw (or, with ``jump``, a step: 1.2 target below, 0.8 target above)."""
    import math
    from exactdp.core.interval import Interval

    def f(u, relw):
        key = F(round(u * 10**9), 10**9)
        if jump is not None:
            v = target * (F(6, 5) if key < F(jump).limit_denominator(10**9) else F(4, 5))
            return Interval(v, v), key, float(key)
        v = F(float(target) * math.exp(slope * (float(key) - root)))
        w = v * F(relw)
        return Interval(v - w * F(3, 10), v + w * F(7, 10)), key, float(key)
    return f


@pytest.mark.parametrize("guess", [0.344, 0.30, 0.45, 0.01, 0.4999])
def test_root_bracket_is_certified_from_any_guess(guess):
    """Whatever the guess (a Monte Carlo estimate is only a guide), both ends are decided
    evaluations on their sides: violated at a, met at b, and the width is reached."""
    from exactdp.apps.kflag import _root_bracket
    root, t = 0.343953, F(1, 100)
    for rel in (1e-3, 1e-6):
        r = _root_bracket(_synthetic(root), t, guess, rel=rel, lo=0.001, hi=0.4999, step=0.002,
                          slope=-200.0)
        (ka, va), (kb, vb) = r["a"], r["b"]
        assert r["done"] and va.lower > t >= vb.upper and ka < root < kb
        assert (kb - ka) / kb <= F(rel) and r["evals"] <= 20


def test_root_bracket_at_a_step_of_eta():
    """At small N, eta is a step function of lam (R has atoms): the bracket closes on the step."""
    from exactdp.apps.kflag import _root_bracket
    r = _root_bracket(_synthetic(0, jump=1.579, target=F(1, 20)), F(1, 20), 2.0, rel=1e-6, lo=0.0, hi=10.0,
                      step=0.1, slope=-4.0)
    assert r["done"] and r["a"][0] < F(1579, 1000) <= r["b"][0] and r["evals"] <= 40


@pytest.mark.parametrize("guess", [None, 0.01, 30])
def test_epsilon_secant_matches_bisection(guess):
    """The secant route (forced at a small case where the exact enumeration runs), from the
    Monte Carlo estimate or a bad guess: certified at both ends, inside bisection's answer's
    neighbourhood (both contain the true eps)."""
    t = F(5, 100)
    e = k_epsilon(10, 2, "1/4", 2, eta=t, digits=5, strategy="secant", guess=guess)
    b = k_epsilon(10, 2, "1/4", 2, eta=t, digits=5, strategy="bisect")
    assert e.overlaps(b) and e.width <= F(1, 10**5) * e.upper
    assert k_eta(10, 2, "1/4", 2, eps=e.upper).upper <= t < k_eta(10, 2, "1/4", 2, eps=e.lower).lower


@pytest.mark.parametrize("guess", [None, "0.01", "0.49"])
def test_calibrate_secant_matches_scan(guess):
    c = k_calibrate(10, 2, 2, lam=2, eta="0.1", digits=4, strategy="secant", guess=guess)
    s = k_calibrate(10, 2, 2, lam=2, eta="0.1", digits=4, grid=8, strategy="scan")
    lo, hi = c["q"].lower, c["q"].upper
    assert (hi - lo) / hi <= F(1, 10**4) and c["q"].overlaps(s["q"])
    assert k_eta(10, 2, hi, 2, lam=2).upper <= F(1, 10) < k_eta(10, 2, lo, 2, lam=2).lower
    assert c["value_at_q"].upper <= F(1, 10) < c["value_at_q_lo"].lower


def test_secant_route_bad_input_and_digits_not_reached(monkeypatch, capsys):
    from exactdp.core.errors import DigitsNotMetError, ParameterError
    import exactdp.apps.kflag as kf
    with pytest.raises(ParameterError, match="strategy"):
        k_epsilon(10, 2, "1/4", 2, eta="0.05", strategy="newton")
    with pytest.raises(ParameterError, match="delta target needs the large-N"):
        k_epsilon(10, 2, "1/4", 2, delta="0.05", strategy="secant")
    with pytest.raises(ParameterError, match="delta target needs the large-N"):
        k_calibrate(10, 2, 2, lam=2, delta="0.05", strategy="secant")
    with pytest.raises(ValueError):
        k_calibrate(10, 2, 2, lam=2, eta="0.1", strategy="secant", guess="0.7")
    with pytest.raises(ParameterError):
        k_epsilon(10, 2, "1/4", 2, eta="0.05", strategy="secant", guess=-1)
    monkeypatch.setattr(kf, "MAX_EVALS", 2)
    with pytest.raises(DigitsNotMetError) as e:
        k_epsilon(10, 2, "1/4", 2, eta="0.05", digits=6, strategy="secant", guess=30)
    assert e.value.reached.upper > 1.5
    rc, _, err = run(capsys, ["epsilon", "--k", "2", "-N", "10", "-L", "2", "-q", "1/4",
                              "--eta", "1.5"])
    assert rc == 2 and len(err.strip().splitlines()) == 1


def test_secant_route_is_auto_at_large_kN():
    from exactdp.apps.kflag import _pairs, _secant_route
    assert _secant_route(_pairs(10**7, 40, 2, "worst"))
    assert _secant_route(_pairs(5000, 5, 2, "forward"))
    assert not _secant_route(_pairs(10, 2, 2, "forward"))
    assert not _secant_route(_pairs(10**7, 40, 1, "forward"))     # k = 1: the ordinary engine


def test_kcopies_before_a_large_enumeration(monkeypatch):
    """eta --k at N = 50, L = 3, k = 2: the enumeration visits 176851 histograms (38 CPU s), the
    k-copies search 0.1 s: auto tries the search first; the enumeration stays as fallback."""
    from exactdp.reductions import methods
    assert methods.supported(canonical_pair(50, 3, 2), "eta") == ("kcopies", "exact")
    assert methods.supported(canonical_pair(6, 2, 2), "eta")[0] == "exact"
    monkeypatch.setattr(methods, "KCOPIES_BEFORE_EXACT", 1000)
    P = canonical_pair(20, 3, 2)
    iv, used = methods.eta(P, "1/4", 2, digits=8, with_method=True)
    assert used == ("kcopies",) and iv.contains(eta_exact(P, F(1, 4), lam=2))
    monkeypatch.setattr(methods, "KCOPIES_AUTO_MAX_NODES", 3)      # the search gives up: exact
    iv, used = methods.eta(P, "1/4", 2, digits=8, with_method=True)
    assert used == ("exact",)


def test_kfourier_delta_shares_its_etas_and_is_no_wider(monkeypatch):
    """_grid_delta (kfourier_delta with grid): one eta per grid point also for eps (the lower and upper sums share the
    points r_i), greedy cells; against the uniform grid of the same etas (the previous
    version, written out here) it overlaps and is no wider."""
    import exactdp.reductions.kfourier.api as kf          # _grid_delta reads kfourier_eta here
    from exactdp.core.interval import Interval
    from exactdp.reductions.pairs import reverse_canonical_pair
    P, q, lam = reverse_canonical_pair(5000, 5, 2), F(1, 5), F(11, 10)
    calls = []
    real = kf.kfourier_eta

    def spy(*a, **kw):
        calls.append(a[2])
        return real(*a, **kw)
    monkeypatch.setattr(kf, "kfourier_eta", spy)
    new = kf._grid_delta(P, q, lam, grid=4, tol=1e-5)
    assert len(calls) == 4
    us = [F(i, 4) for i in range(5)]
    lo = sum((us[i + 1] - us[i]) * real(P, q, lam / us[i], tol=1e-5).lower for i in range(1, 4))
    hi = sum((us[i + 1] - us[i]) * real(P, q, lam / us[i + 1], tol=1e-5).upper for i in range(4))
    old = Interval(lo, hi)
    assert new.overlaps(old) and new.width <= old.width
    calls.clear()
    e = kf._grid_delta(P, q, eps=F(1, 10), grid=3, tol=1e-5)
    assert len(calls) == 3 and e.overlaps(kf._grid_delta(P, q, F(1105171, 10**6), grid=3, tol=1e-5))


@pytest.mark.slow
def test_epsilon_k_at_deployment_scale(capsys):
    """epsilon --k 2 at L = 40, N = 10^7, q = 0.351, eta <= 1 % from the CLI (about a minute; it
    did not finish in 10 minutes by bisection): a certified bracket of relative width 1e-4, and
    independent certified etas just outside it on both sides."""
    rc, rec, _ = run(capsys, ["epsilon", "--k", "2", "-N", "10000000", "-L", "40", "-q", "0.351",
                              "--eta", "0.01", "--json"])
    assert rc == 0
    lo, hi = F(rec["eps"]["lower"]), F(rec["eps"]["upper"])
    assert 1.2 < lo < hi < 1.35 and (hi - lo) / hi <= F(2, 10**4)
    assert k_eta(10**7, 40, "0.351", 2, eps=hi * F(101, 100), digits=3).upper <= F(1, 100)
    assert k_eta(10**7, 40, "0.351", 2, eps=lo * F(99, 100), digits=3).lower > F(1, 100)


@pytest.mark.slow
def test_calibrate_k_deployment_from_a_wrong_guess():
    """A wrong starting q (0.40 and 0.30 instead of ~0.344) still yields a certified bracket at
    L = 40, N = 10^7, k = 2: violated at q_lo, met at q_hi (the values are returned)."""
    for guess in ("0.40", "0.30"):
        c = k_calibrate(10**7, 40, 2, eps=2, eta="0.01", digits=3, guess=guess)
        lo, hi = c["q"].lower, c["q"].upper
        assert 0.3435 < lo < hi < 0.3445 and (hi - lo) / hi <= F(1, 1000)
        assert c["value_at_q"].upper <= F(1, 100) < c["value_at_q_lo"].lower


def test_root_bracket_stops_at_the_engines_precision_floor():
    """When the enclosures stay wider than asked (kfourier's floor at large k), the search stops
    after STUCK such evaluations with done = False and a still-certified bracket; the wrappers then
    raise DigitsNotMetError with it (test_secant_route_bad_input_and_digits_not_reached)."""
    import math
    from exactdp.core.interval import Interval
    from exactdp.apps.kflag import STUCK, _root_bracket
    root, t = 2.0, F(1, 100)

    def f(u, relw):
        key = F(round(u * 10**9), 10**9)
        v = F(0.01 * math.exp(-1.6 * (float(key) - root)))
        w = v * F(max(relw, 6e-4))
        return Interval(v - w / 2, v + w / 2), key, float(key)
    r = _root_bracket(f, t, 2.3, rel=1e-5, lo=0.0, hi=50.0, step=0.1, slope=-4.0)
    assert not r["done"] and r["evals"] < 15
    (ka, va), (kb, vb) = r["a"], r["b"]
    assert va.lower > t >= vb.upper and ka < root < kb and r["width"] < 2e-3
    r = _root_bracket(f, t, 2.3, rel=1e-3, lo=0.0, hi=50.0, step=0.1, slope=-4.0)
    assert r["done"] and STUCK >= 2


def test_root_bracket_far_from_the_target_is_not_a_precision_floor():
    """Enclosures of a tiny eta far from the root are wide in relative terms ([0, tol]): a bad
    guess there must not end the search (only widths near the target count)."""
    from exactdp.core.interval import Interval
    from exactdp.apps.kflag import _root_bracket
    inner = _synthetic(0.343953)

    def f(u, relw):
        iv, key, x = inner(u, relw)
        return (Interval(0, max(iv.upper, F(1, 10**6))) if iv.upper < F(1, 1000) else iv), key, x
    r = _root_bracket(f, F(1, 100), 0.40, rel=1e-3, lo=0.001, hi=0.4999, step=0.002, slope=-200.0)
    assert r["done"] and r["a"][0] < 0.343953 < r["b"][0]


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["calibrate", "--k", "2", "-N", "10000000", "-L", "40", "--eps", "2", "--eta", "0.01"],
    ["epsilon", "--k", "2", "-N", "10000000", "-L", "40", "-q", "0.351", "--eta", "0.01"],
    ["delta", "--k", "2", "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2"],
    ["epsilon", "--k", "2", "-N", "10000000", "-L", "40", "-q", "0.351", "--delta", "0.001"],
    ["calibrate", "--k", "2", "-N", "10000000", "-L", "40", "--eps", "2", "--delta", "0.001"],
    ["calibrate", "--k", "16", "-N", "10000000", "-L", "40", "--eps", "2", "--eta", "1e-6"],
])
def test_readme_quotes_of_the_k_inverse_queries(argv, capsys):
    """README's --k paragraph quotes these certified brackets from a fresh run (12-40 s each at
    k = 2; the k = 16 calibration to eta <= 1e-6, ~3 minutes)."""
    from pathlib import Path
    assert main(argv + ["--quiet"]) == 0
    printed = capsys.readouterr().out.split("  (")[0].strip()       # e.g. "q in [0.343951, 0.343968]"
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    assert f"gives {printed}" in readme, printed


def test_delta_targets_take_the_secant_route_at_large_kN(monkeypatch):
    """epsilon / calibrate with a delta target at k N >= 10^4: the certified secant with
    certified deltas (_delta_rel), not the bisection or scan."""
    import exactdp.apps.kflag as kf
    seen = []
    monkeypatch.setattr(kf, "_epsilon_secant", lambda *a, **kw: seen.append(("eps", kw["quantity"])))
    monkeypatch.setattr(kf, "_calibrate_secant", lambda *a, **kw: seen.append(("q", kw["quantity"])))
    kf.k_epsilon(5000, 5, "1/5", 2, delta="0.01")
    kf.k_calibrate(5000, 5, 2, eps=1, delta="0.01")
    kf.k_calibrate(5000, 5, 2, eps=1, eta="0.01")
    assert seen == [("eps", "delta"), ("q", "delta"), ("q", "eta")]


@pytest.mark.slow
def test_epsilon_delta_target_k2_at_deployment_scale():
    """epsilon --k 2 --delta 1e-3 at L = 40, N = 10^7, q = 0.351 (~20 s; it was hours by bisection
    over grid deltas): a certified bracket of relative width <= 2e-4, independent certified deltas
    just outside it on both sides, and the Monte Carlo start is only a guide (a wrong guess
    gives the same bracket's neighbourhood)."""
    t = F(1, 1000)
    iv = k_epsilon(10**7, 40, "0.351", 2, delta=t, digits=4)
    lo, hi = iv.lower, iv.upper
    assert 2.1 < lo < hi < 2.15 and (hi - lo) / hi <= F(2, 10**4)
    assert k_delta(10**7, 40, "0.351", 2, eps=hi * F(1001, 1000), rel=1e-3).upper <= t
    assert k_delta(10**7, 40, "0.351", 2, eps=lo * F(999, 1000), rel=1e-3).lower > t
    g = k_epsilon(10**7, 40, "0.351", 2, delta=t, digits=3, strategy="secant", guess=3.0)
    assert g.lower <= hi and lo <= g.upper


@pytest.mark.slow
def test_calibrate_delta_target_k2_at_deployment_scale():
    """calibrate --k 2 --eps 2 --delta 1e-3 at L = 40, N = 10^7: violated at q_lo, met at q_hi
    (the certified values are returned), and an independent certified delta above q_hi."""
    t = F(1, 1000)
    c = k_calibrate(10**7, 40, 2, eps=2, delta=t, digits=4)
    lo, hi = c["q"].lower, c["q"].upper
    assert 0.35 < lo < hi < 0.354 and (hi - lo) / hi <= F(1, 10**4)
    assert c["value_at_q"].upper <= t < c["value_at_q_lo"].lower
    assert k_delta(10**7, 40, hi + F(1, 10**4), 2, eps=2, rel=1e-3).upper <= t


def test_small_N_delta_by_two_kcopies_searches(capsys):
    """delta --k 2 -N 50 -L 3 (176851 histograms: 38 CPU s by the enumeration) by the difference
    of two k-copies searches in well under a second; the exact enumeration's value (N = 10)
    inside the enclosure; CLI = API."""
    import time
    from exactdp.reductions import methods
    from exactdp.reductions.pairs import canonical_pair, delta_exact, reverse_canonical_pair
    assert methods.supported(canonical_pair(50, 3, 2), "delta") == ("kcopies", "exact")
    assert methods.supported(canonical_pair(5, 3, 2), "delta") == ("exact", "kcopies")
    t = time.process_time()
    rc, rec, _ = run(capsys, ["delta", "--k", "2", "-N", "50", "-L", "3", "-q", "1/4", "--lam", "2",
                              "--json"])
    assert rc == 0 and time.process_time() - t < 5
    iv = k_delta(50, 3, "1/4", 2, lam=2)
    assert rec["delta"] == iv.to_dict(6) and float(iv.width) < 1e-12
    for P in (canonical_pair(10, 3, 2), reverse_canonical_pair(10, 3, 2)):
        assert methods.delta(P, "1/4", 2, method="kcopies").contains(delta_exact(P, F(1, 4), 2))


@pytest.mark.slow
def test_readme_quote_of_the_k2_eta(capsys):
    """README's deployment-scale eta quote (--digits 3 through methods._kfourier_passes), fresh."""
    from pathlib import Path
    assert main(["eta", "--k", "2", "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2",
                 "--digits", "3", "--quiet"]) == 0
    printed = capsys.readouterr().out.split("  (")[0].strip()       # "eta in [0.00269, 0.00271]"
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    assert f"prints `{printed}`" in readme, printed


@pytest.mark.slow
def test_reverse_delta_tilt_with_the_walk_beside_it(monkeypatch):
    # 003's reverse near the tilt's route (k = 16, q = 0.351: eta ~5.8e-11, delta ~1.7e-12): where
    # the tilt's delta is wider than asked, the walk's difference of etas runs too
    # (methods.with_walk, ~90 % wide there) and the answer is the intersection.  Session 29's
    # kernels left it ~1.7 % wide; since session 32's it is 6.4e-3 (1e-2 asked), so the spy widens
    # it 3x about its middle (a stand-in for a cell the tilt misses; still an enclosure)
    import exactdp.reductions.kfourier as kf
    from exactdp.core.interval import Interval
    from exactdp.reductions.kfourier import tilt
    seen = {}
    real_tilt, real_walk = tilt.ktilted_delta, kf.kfourier_delta

    def tilt_spy(*a, **kw):
        r = real_tilt(*a, **kw)
        assert r.eta.relative_width() < 1e-2
        mid, w = (r.eta.lower + r.eta.upper) / 2, r.eta.upper - r.eta.lower
        wide = Interval(mid - 3 * w / 2, mid + 3 * w / 2) if r.eta.relative_width() > 4e-3 else \
            Interval(r.eta.lower * F(98, 100), r.eta.upper * F(102, 100))
        seen["tilt"] = wide
        return dataclasses.replace(r, eta=wide)

    def walk_spy(*a, **kw):
        seen["walk"] = real_walk(*a, **kw)
        return seen["walk"]

    monkeypatch.setattr(tilt, "ktilted_delta", tilt_spy)
    monkeypatch.setattr(kf, "kfourier_delta", walk_spy)
    iv = k_delta(10**7, 40, "0.351", 16, eps=2, direction="reverse", rel=1e-2)
    assert set(seen) == {"tilt", "walk"}
    assert iv == seen["tilt"].intersect(seen["walk"]) and 0 < iv.lower
    assert seen["walk"].relative_width() > 0.5 and 0.01 < seen["tilt"].relative_width() < 0.05
