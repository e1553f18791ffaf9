"""Human-readable output: short interval reprs, no raw dicts, tables that never cut a number,
fast estimates that say "< bound" when the error exceeds the value (issue 17)."""

from __future__ import annotations

from fractions import Fraction

from exactdp import Estimate, Interval, from_randomized_response
from exactdp.apps.audit import to_text
from exactdp.apps.cli import main


def test_interval_repr_is_short_and_encloses():
    iv = from_randomized_response(100, 3, "1/4").eta(lam=2, digits=20)
    r = repr(iv)
    assert len(r) < 80 and "Fraction" not in r, r
    lo, hi = r[len("Interval["):-1].split(", ")
    assert Fraction(lo) <= iv.lower and iv.upper <= Fraction(hi)
    assert repr(Interval(Fraction(1, 3), Fraction(1, 2))) == "Interval[1/3, 1/2]"


def test_estimate_says_bound_when_error_exceeds_value():
    e = Estimate(6.5e-30, 2e-10)
    assert e.bound_only and str(e).startswith("< 2e-10") and "+-" not in str(e)
    ok = Estimate(0.25, 1e-12)
    assert not ok.bound_only and ok.relative_error == 4e-12 and "relative" in str(ok)


def test_dist_and_fast_eta_print_no_raw_dicts(capsys):
    assert main(["dist", "-N", "30", "-L", "2", "-q", "1/4", "--bins", "3", "--lam", "2",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "{" not in out and "P[R > 2] in [0.0258812" in out, out
    assert main(["eta", "-N", "1000", "-L", "5", "-q", "0.2446", "--eps", "2", "--fast"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("eta < ") and "+-" not in out, out


def test_audit_table_never_cuts_a_number():
    long_iv = {"lower": "0.12345678901234567890123456789012345678901234567890",
               "upper": "0.12345678901234567890123456789012345678901234567891"}
    audit = {"summary": {"refuted": 1, "confirmed": 1}, "claims": [
        {"verdict": "refuted", "id": "000-a-very-long-identifier-of-a-claim-in-the-audit-table",
         "claimed": "0.1234567890123456789012345678901234567890", "computed": long_iv},
        {"verdict": "confirmed", "id": "x", "claimed": "1", "computed": "2"}]}
    text = to_text(audit)
    for s in (long_iv["lower"], long_iv["upper"], "0.1234567890123456789012345678901234567890",
              audit["claims"][0]["id"]):
        assert s in text
    assert "summary: 1 confirmed, 1 refuted" in text and "{" not in text
