"""Calibration of q: certified brackets re-verified by the independent brute force."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp import ParameterError, from_randomized_response
from exactdp.oracles import bruteforce as B
from exactdp.apps.calibrate import calibrate


@pytest.mark.parametrize("N,L,lam,eta,direction", [
    (3, 2, 2, "0.1", "forward"), (4, 2, Fraction(3, 2), "0.2", "forward"),
    (5, 1, Fraction(3, 2), "0.1", "reverse"), (4, 2, 2, "0.1", "worst"),
])
def test_exact_bracket_verified_by_brute_force(N, L, lam, eta, direction):
    c = calibrate(N, L, lam=lam, eta=eta, direction=direction, grid=40, digits=4, q_min="1/100")
    T = Fraction(eta)
    assert c.q.relative_width() <= 1e-4
    law = B.canonical(N, L, c.q.upper, direction)
    assert law.eta(Fraction(lam)) <= T
    assert B.canonical(N, L, c.q.lower, direction).eta(Fraction(lam)) > T
    assert c.value_at_q.contains(law.eta(Fraction(lam)))


def test_delta_target():
    c = calibrate(4, 2, lam=2, delta="0.02", grid=40, digits=4, q_min="1/100")
    dq = B.canonical(4, 2, c.q.upper, "forward").delta(Fraction(2))
    assert dq <= Fraction(2, 100) < B.canonical(4, 2, c.q.lower, "forward").delta(Fraction(2))


def test_non_monotone_eta_reports_every_crossing():
    # eta(q) jumps as atoms of R cross lambda: here it crosses 0.2 three times
    c = calibrate(2, 1, lam=2, eta="0.2", grid=200, digits=4, q_min="1/200")
    kinds = [x["kind"] for x in c.crossings]
    assert len(kinds) >= 3 and "up" in kinds and c.monotone_on_grid is False
    assert "not monotone" in c.note
    up = next(x for x in c.crossings if x["kind"] == "up")
    q_after = up["q"].upper + Fraction(1, 1000)
    assert B.canonical(2, 1, q_after, "forward").eta(Fraction(2)) > Fraction(1, 5)
    # the safe q (last down-crossing) is certified on both sides too
    assert c.q_safe.lower > c.q.upper
    assert B.canonical(2, 1, c.q_safe.upper, "forward").eta(Fraction(2)) <= Fraction(1, 5)
    assert B.canonical(2, 1, c.q_safe.lower, "forward").eta(Fraction(2)) > Fraction(1, 5)


@pytest.mark.parametrize("method", ["sigma3", "maurer", "local"])
def test_heuristic_methods_report_certified_eta(method):
    c = calibrate(60, 3, lam=2, eta="0.01", method=method)
    assert c.method == method and 0 < c.q_used < Fraction(1, 2)
    assert c.value_at_q.width < Fraction(1, 10**7)
    # the verdict is the certified comparison of eta(q_used) with the target, and eta(q_used)
    # agrees with a 30-digit recomputation (the independent checks: test_calibrate_independent.py)
    ref = from_randomized_response(60, 3, c.q_used).eta(lam=2, digits=30)
    assert c.value_at_q.contains(ref)
    assert c.meets_target is (ref.upper <= Fraction(1, 100))
    assert c.meets_target is not (ref.lower > Fraction(1, 100))


def test_bad_inputs():
    with pytest.raises(ParameterError):
        calibrate(10, 2, lam=2, eta="1.5")
    with pytest.raises(ParameterError):
        calibrate(10, 2, lam=2, eta="0.1", method="magic")
    with pytest.raises(ParameterError):
        calibrate(10, 2, lam=2)
