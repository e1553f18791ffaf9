"""Deployment-scale queries (issue 14): epsilon, calibrate and dist beyond the tree's capacity.

Cheap checks run by default; the certified L = 40, N = 10^7 runs are marked slow.
"""

import json
from fractions import Fraction as F

import pytest

from exactdp import from_randomized_response
from exactdp.apps.cli import main


def _run(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_epsilon_digits_beyond_fourier_is_one_line(capsys):
    rc, _, err = _run(["epsilon", "-N", "10000000", "-L", "40", "-q", "0.351", "--delta", "1e-6",
                       "--digits", "8", "--quiet"], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "--digits 4" in err, err


def test_calibrate_digits_beyond_fourier_is_one_line(capsys):
    rc, _, err = _run(["calibrate", "-N", "10000000", "-L", "40", "--eps", "2", "--eta", "0.01",
                       "--digits", "6", "--quiet"], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "--digits 4" in err, err


def test_dist_digits_beyond_fourier_is_one_line_before_work(capsys):
    import time
    t = time.perf_counter()
    rc, _, err = _run(["dist", "-N", "10000000", "-L", "40", "-q", "0.351", "--digits", "5",
                       "--quiet"], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "--digits 3" in err, err
    assert time.perf_counter() - t < 20


@pytest.mark.slow
def test_dist_at_deployment_scale_is_certified(capsys):
    """Bins of the law of R at L = 40, N = 10^7 (Fourier strategy): the certified masses,
    with those below the first and above the last edge, bracket 1; P[R > lam] matches eta."""
    rc, out, err = _run(["dist", "-N", "10000000", "-L", "40", "-q", "0.351", "--bins", "4",
                         "--lam", "7.389", "--json", "--quiet"], capsys)
    assert rc == 0, err
    rec = json.loads(out)
    assert rec["strategy"] == "fourier"
    lo = sum(F(b["mass"]["lower"]) for b in rec["bins"])
    hi = sum(F(b["mass"]["upper"]) for b in rec["bins"])
    lo += F(rec["mass_below_first_edge"]["lower"]) + F(rec["mass_above_last_edge"]["lower"])
    hi += F(rec["mass_below_first_edge"]["upper"]) + F(rec["mass_above_last_edge"]["upper"])
    assert lo <= 1 <= hi and hi - lo < F(1, 100)
    eta = from_randomized_response(10**7, 40, "0.351").eta(lam=F(7389, 1000), digits=3)
    beyond = rec["mass_beyond_lam"]
    assert F(beyond["lower"]) <= eta.upper and eta.lower <= F(beyond["upper"])


@pytest.mark.parametrize("method", ["sigma3", "maurer", "local"])
def test_calibrate_heuristics_at_deployment_scale(method, capsys):
    rc, out, err = _run(["calibrate", "-N", "10000000", "-L", "40", "--eps", "2", "--eta", "0.01",
                         "--method", method, "--json", "--quiet"], capsys)
    assert rc == 0, err
    rec = json.loads(out)
    lo, hi = float(rec["eta_at_q"]["lower"]), float(rec["eta_at_q"]["upper"])
    assert 0 <= lo <= hi < 1
    if method == "local":      # (p/q)^L <= lambda: R never exceeds lambda
        assert hi < 1e-100


def test_chernoff_at_the_support_edge_is_finite():
    """Found at the local-DP q (lambda = the largest R): the Chernoff bound overflowed."""
    from exactdp.apps import heuristics as H
    q = H.local_dp_q(40, H.Lam(eps=F(2))).upper
    q = F(-((-q.numerator * 10**12) // q.denominator), 10**12)
    iv = from_randomized_response(10**7, 40, q).eta(eps=2, digits=3)
    assert iv.lower == 0 and iv.upper < F(1, 10**100)


@pytest.mark.slow
def test_epsilon_at_deployment_scale_forward():
    d = from_randomized_response(10**7, 40, "0.351")
    e = d.epsilon(delta="1e-6")
    assert e.relative_width() <= 1e-4
    # independent check of the bracket: delta violated a little below it, met a little above
    assert e.lower > 5
    dl = d.delta(eps=e.lower * F(999, 1000), digits=3)
    du = d.delta(eps=e.upper * F(1001, 1000), digits=3)
    assert dl.lower > F(1, 10**6) >= du.upper


@pytest.mark.parametrize("argv,needle", [
    (["eta", "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2", "--digits", "20"],
     "--digits 6"),
    (["delta", "-N", "1000000000", "-L", "64", "-q", "0.35", "--eps", "2", "--digits", "9"],
     "--digits 6"),
    (["eta", "-N", "1000000001", "-L", "5", "-q", "0.2", "--lam", "2"], "[1, 1000000000]"),
    (["eta", "-N", "1000", "-L", "65", "-q", "0.2", "--lam", "2"], "[1, 64]"),
    (["calibrate", "-N", "1000000001", "-L", "5", "--eps", "1", "--eta", "0.01"],
     "[1, 1000000000]"),
    (["dist", "-N", "1000", "-L", "65", "-q", "0.3"], "[1, 64]"),
])
def test_refusals_are_one_line_before_any_work(argv, needle, capsys):
    import time
    t = time.perf_counter()
    rc, out, err = _run(argv + ["--quiet"], capsys)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1 and needle in err, err
    assert time.perf_counter() - t < 20      # a prediction, not a computation


def test_eta_at_scale_defaults_to_reachable_digits(capsys):
    rc, out, err = _run(["eta", "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2",
                         "--json", "--quiet"], capsys)
    assert rc == 0, err
    rec = json.loads(out)
    assert rec["strategy"] == "fourier" and rec["digits"] == 4
    lo, hi = F(rec["eta"]["lower"]), F(rec["eta"]["upper"])
    assert 0 < lo <= hi and (hi - lo) / hi <= F(1, 10**3)      # 4 digits, rounded outwards
