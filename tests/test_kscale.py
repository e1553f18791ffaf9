"""000 §6.1 against k: the audit records' verdict rules and the figure (synthetic rows)."""

from __future__ import annotations

from exactdp.apps.kscale import figure, kscale_claims

ROWS_UP = [{"k": 1, "q_lo": "0.334", "q_hi": "0.335"}, {"k": 2, "q_lo": "0.336", "q_hi": "0.337"},
           {"k": 4, "q_lo": "0.338", "q_hi": "0.339"}]
ROWS_DOWN = [{"k": 1, "q_lo": "0.334", "q_hi": "0.335"}, {"k": 2, "q_lo": "0.330", "q_hi": "0.331"},
             {"k": 4, "q_lo": "0.40", "q_hi": "0.41"}]


def _v(rows):
    return {r["id"]: r["verdict"] for r in kscale_claims(rows)}


def test_direction_rule():
    assert _v(ROWS_UP)["000-s6.1-direction"] == "refuted"
    assert _v(ROWS_DOWN[:2])["000-s6.1-direction"] == "confirmed"
    assert _v([])["000-s6.1-direction"] == "open"
    overlap = [ROWS_UP[0], {"k": 2, "q_lo": "0.3345", "q_hi": "0.3346"}]
    assert _v(overlap)["000-s6.1-direction"] == "open"


def test_four_times_rule():
    # sigma(d_hat)/sqrt(N) = sqrt(qp/k)/(p-q): at k = 4 and q ~ 0.338 it is ~0.73 < 0.80 = half
    # of k = 1's at q = 0.351; at q ~ 0.40 it is ~1.22 > 0.80
    assert _v(ROWS_UP)["000-s6.1-4times"] == "confirmed"
    assert _v(ROWS_DOWN)["000-s6.1-4times"] == "refuted"
    assert _v(ROWS_UP[:2])["000-s6.1-4times"] == "open"


def test_leveling_is_refuted_by_the_proof(monkeypatch):
    import exactdp.apps.kscale as ks
    rec = {r["id"]: r for r in kscale_claims(ROWS_UP)}["000-s6.1-leveling"]
    assert rec["verdict"] == "refuted"
    assert "proof-k-lev-level-sum" in rec["reason"] and "k = [2, 4]" in rec["reason"]
    # without the proof the verdict is open, whatever the rows say
    monkeypatch.setattr(ks, "_leveling_proof", lambda: ("open", "open", {"k0": {}, "K_ratio": {}}))
    assert _v(ROWS_UP)["000-s6.1-leveling"] == "open"


def test_figure_draws(tmp_path):
    p = figure(ROWS_UP, tmp_path / "k.png")
    assert p.exists() and p.stat().st_size > 10_000


def test_certified_q_from_a_guess(monkeypatch):
    """The guess start (synthetic eta decreasing in q, least q = 0.3617): a certified bracket
    (violated at q_lo, met at q_hi) of relative width <= rel, from a good and from a bad guess."""
    from fractions import Fraction
    from exactdp.apps import kscale
    from exactdp.core.interval import Interval
    calls = []

    def fake(k, q, **kw):
        calls.append(q)
        v = Fraction(1, 100) * (1 - 40 * (Fraction(q) - Fraction("0.3617")))
        return Interval(v - Fraction(1, 10**7), v + Fraction(1, 10**7))
    monkeypatch.setattr(kscale, "eta_k", fake)
    for guess, most in (("0.3616", 4), ("0.35", 14), ("0.38", 14)):
        calls.clear()
        r = kscale.certified_q(32, guess=Fraction(guess))
        a, b = Fraction(r["q_lo"]), Fraction(r["q_hi"])
        assert a < Fraction("0.3617") <= b and (b - a) / b <= Fraction(1, 1000), guess
        assert fake(32, a).lower > Fraction(1, 100) and fake(32, b).upper <= Fraction(1, 100)
        assert len(calls) <= most + 2, (guess, len(calls))


def test_mc_eta_bad_input():
    import pytest
    from exactdp.apps.kscale import mc_eta
    with pytest.raises(ValueError):
        mc_eta(0, "0.3")
    with pytest.raises(ValueError):
        mc_eta(2, "0.6")
