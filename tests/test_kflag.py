"""--k K (k-randomization, 003 §1) for eta, delta, epsilon, calibrate: CLI = API, k = 1 = engine."""

import json
from fractions import Fraction as F

import pytest

from exactdp.apps.cli import main
from exactdp.law.distribution import from_randomized_response
from exactdp.core.errors import CapacityError
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
        k_delta(100, 3, "1/4", 2, lam=2)
    rc, _, err = run(capsys, ["delta", "--k", "2", "-N", "100", "-L", "3", "-q", "1/4",
                              "--lam", "2"])
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "beyond capacity" in err
    rc, _, err = run(capsys, ["eta", "--k", "0", "-N", "10", "-L", "2", "-q", "1/4",
                              "--lam", "2"])
    assert rc == 2 and "k must be" in err and len(err.strip().splitlines()) == 1
    rc, _, err = run(capsys, ["eta", "-N", "10", "-L", "2", "-q", "1/4", "--lam", "2", "--k"])
    assert rc == 2 and "--k" in err.strip().splitlines()[-1]   # argparse usage, as elsewhere


@pytest.mark.slow
def test_kcopies_node_cap_refuses(capsys):
    rc, _, err = run(capsys, ["eta", "--k", "2", "-N", "1000", "-L", "5", "-q", "1/4",
                              "--lam", "2"])
    assert rc == 2 and "k-copies engines' capacity" in err


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


def test_delta_at_large_kN_is_certified_grid():
    """--k delta beyond the enumeration (k N >= kfourier.MIN_OUTPUTS): the monotone grid
    of certified etas (kfourier_delta), not a refusal; CLI = API."""
    from exactdp.reductions.kfourier import kfourier_delta
    from exactdp.reductions.pairs import reverse_canonical_pair
    iv = k_delta(5000, 5, "1/5", 2, lam=F(11, 10), direction="reverse")
    ref = kfourier_delta(reverse_canonical_pair(5000, 5, 2), "1/5", F(11, 10), grid=2, tol=1e-5)
    assert iv.lower <= ref.upper and ref.lower <= iv.upper and iv.width < ref.width
    assert float(iv.lower) > 0


@pytest.mark.slow
def test_calibrate_k_at_deployment_scale(capsys):
    """calibrate --k 2 at L = 40, N = 10^7, lambda = e^2, eta <= 1 % from the CLI (minutes):
    a certified bracket, checked against certified etas at its ends."""
    rc, rec, _ = run(capsys, ["calibrate", "--k", "2", "-N", "10000000", "-L", "40", "--eps", "2",
                              "--eta", "0.01", "--digits", "3", "--direction", "forward", "--json"])
    assert rc == 0
    lo, hi = F(rec["q"]["lower"]), F(rec["q"]["upper"])
    assert 0.33 < lo < hi < 0.36 and (hi - lo) / hi <= F(1, 1000)
