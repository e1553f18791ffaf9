"""CLI values equal the Python API's values, for every subcommand and its options (issue 17).

Each case runs ``exactdp ... --json`` in-process and recomputes the same quantity
through the API; the decimal strings must be identical (same outward rounding),
or, for bins whose edges are printed rounded, the intervals must overlap.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from exactdp import from_randomized_response
from exactdp.apps.calibrate import calibrate
from exactdp.apps.cli import main
from exactdp.apps.heuristics import local_dp_q, sigma_dhat


def cli(capsys, *argv):
    rc = main(list(argv) + ["--json", "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


BASE = ("-N", "40", "-L", "3", "-q", "1/5")


@pytest.mark.parametrize("which", ["eta", "delta"])
@pytest.mark.parametrize("opts,kw", [
    (["--lam", "2"], {"lam": 2}),
    (["--lam", "3/2", "--direction", "reverse"], {"lam": Fraction(3, 2), "direction": "reverse"}),
    (["--eps", "1", "--direction", "worst"], {"eps": 1, "direction": "worst"}),
    (["--lam", "2", "--digits", "30"], {"lam": 2, "digits": 30}),
    (["--lam", "2", "--inclusive"], {"lam": 2, "inclusive": True}),
    (["--lam", "2", "--fast"], {"lam": 2, "fast": True}),
])
def test_eta_delta_equal_api(capsys, which, opts, kw):
    kw = dict(kw)
    if which == "delta" and kw.pop("inclusive", False):
        pytest.skip("--inclusive is an eta option")
    rec = cli(capsys, which, *BASE, *opts)
    direction = kw.pop("direction", "forward")
    digits = kw.pop("digits", 20)
    fast = kw.pop("fast", False)
    d = from_randomized_response(40, 3, "1/5", direction)
    f = d.eta if which == "eta" else d.delta
    if fast:
        api = f(method="fast", **kw)
        assert rec[which] == api.to_dict() and rec["method"] == "fast"
    else:
        api = f(digits=digits, **kw)
        assert rec[which] == api.to_dict(digits) and rec["certified"] is True
    assert (rec["N"], rec["L"], rec["q_exact"], rec["direction"]) == (40, 3, "1/5", direction)


@pytest.mark.parametrize("opts,kw", [
    (["--delta", "1e-3"], {"delta": Fraction(1, 1000)}),
    (["--eta", "0.01", "--direction", "reverse"], {"eta": Fraction(1, 100), "direction": "reverse"}),
    (["--delta", "0.05", "--direction", "worst", "--digits", "6"],
     {"delta": Fraction(1, 20), "direction": "worst", "digits": 6}),
])
def test_epsilon_equals_api(capsys, opts, kw):
    rec = cli(capsys, "epsilon", *BASE, *opts)
    kw = dict(kw)
    direction = kw.pop("direction", "forward")
    digits = kw.pop("digits", 10)
    api = from_randomized_response(40, 3, "1/5", direction).epsilon(digits=digits, **kw)
    assert rec["eps"] == api.to_dict(digits + 1)


@pytest.mark.parametrize("direction", ["forward", "reverse"])
@pytest.mark.parametrize("fast", [False, True])
def test_dist_equals_api(capsys, direction, fast):
    opts = ["--bins", "6", "--lam", "2", "--digits", "12", "--direction", direction]
    rec = cli(capsys, "dist", *BASE, *opts, *(["--fast"] if fast else []))
    d = from_randomized_response(40, 3, "1/5", direction)
    method = "fast" if fast else "exact"
    beyond = d.sf(2, digits=12, method=method)
    assert rec["mass_beyond_lam"] == (beyond.to_dict() if fast else beyond.to_dict(12))
    total_lo = Fraction(0)
    for b in rec["bins"]:
        a_, b_ = Fraction(b["left_exact"]), Fraction(b["right_exact"])
        assert abs(a_ - Fraction(b["left"])) <= abs(a_) * Fraction(1, 10**11)
        ca, cb = d.cdf(a_, digits=20), d.cdf(b_, digits=20)
        lo, hi = Fraction(b["mass"]["lower"]), Fraction(b["mass"]["upper"])
        # P[a < R <= b] from the API (certified) lies inside the CLI's bin mass
        # (fast mode: up to its stated error, 1e-8 here)
        tol = Fraction(1, 10**8) if fast else Fraction(0)
        assert lo - tol <= cb.lower - ca.upper and cb.upper - ca.lower <= hi + tol, (b, ca, cb)
        total_lo += lo
    below = Fraction(rec["mass_below_first_edge"]["lower"])
    above = Fraction(rec["mass_above_last_edge"]["lower"])
    assert total_lo + below + above <= 1


@pytest.mark.parametrize("method", ["exact", "sigma3", "maurer", "local"])
def test_calibrate_equals_api(capsys, method):
    rec = cli(capsys, "calibrate", "-N", "30", "-L", "2", "--lam", "2", "--eta", "0.05",
              "--method", method, "--grid", "32", "--digits", "6")
    c = calibrate(30, 2, lam=2, eta="0.05", method=method, grid=32, digits=6)
    api = c.to_dict(8)
    for key in ("q", "q_used", "eta_at_q", "meets_target", "method", "direction"):
        assert rec[key] == api[key], key
    sig = sigma_dhat(30, c.q_used)
    assert rec["utility"]["sigma_dhat"] == sig.to_dict(6)
    assert rec["utility"]["local_dp_q"] == local_dp_q(2, 2).to_dict(8)
