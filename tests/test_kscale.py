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
