"""docs/kscale_rows.json (000 §6.1 against k): the stored certified brackets are consistent, the
README quotes them, and (slow) a fresh certified eta reproduces the decisions at k = 2."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.apps.kscale import eta_k, load_rows

README = Path(__file__).resolve().parent.parent / "README.md"
TARGET = Fraction(1, 100)


def test_rows_bracket_the_target():
    rows = load_rows()
    assert {1, 2, 4, 8, 16, 32, 64, 128, 200} <= {r["k"] for r in rows}
    for r in rows:
        a, b = Fraction(r["q_lo"]), Fraction(r["q_hi"])
        # rows computed at a coarser heavy-node tolerance carry it ("tol") and may be wider
        assert a < b and ("tol" in r or (b - a) / b <= Fraction(1, 1000)), r["k"]
        ev = r["evaluations"]
        assert ev[r["q_hi"]][1] <= 0.01 < ev[r["q_lo"]][0], r["k"]    # met at b, violated at a
        assert r["eta_at_q_hi"] == ev[r["q_hi"]]


def test_readme_quotes_the_rows():
    text = README.read_text()
    quoted = {int(k): (a, b) for k, a, b in re.findall(r"k\s+=\s+(\d+)(?:\s+\([^)]*\))?:\s+\[(0\.\d+),\s+(0\.\d+)\]", text)}
    rows = {r["k"]: r for r in load_rows()}
    assert set(rows) <= set(quoted), "every certified row is quoted in the README"
    for k, (a, b) in quoted.items():
        if k not in rows:
            continue
        lo, hi = Fraction(rows[k]["q_lo"]), Fraction(rows[k]["q_hi"])
        # printed outward to 6 digits
        assert Fraction(a) <= lo and Fraction(b) >= hi and hi - lo > Fraction(b) - Fraction(a) - Fraction(2, 10**6)


@pytest.mark.slow
def test_k2_row_decisions_recomputed():
    r = {r["k"]: r for r in load_rows()}[2]
    assert eta_k(2, Fraction(r["q_hi"])).upper <= TARGET
    assert eta_k(2, Fraction(r["q_lo"])).lower > TARGET


def test_readme_quotes_the_reverse_rows():
    """003's reverse direction at q_hi: certified to relative width 1e-3 (the passes, not one walk;
    1.04e-3 at k = 32, the light series' floor there), quoted in the README outward to four
    digits."""
    text = " ".join(README.read_text().split())
    rows = {r["k"]: r for r in load_rows()}
    quoted = {(32, "3.753e-11", "3.758e-11"), (64, "3.966e-7", "3.971e-7"), (128, "4.658e-5", "4.661e-5"),
              (200, "2.273e-4", "2.275e-4")}
    for k, a, b in quoted:
        lo, hi = rows[k]["reverse_eta_at_q_hi"]
        assert rows[k]["reverse_digits"] == 3 and 0 < lo and hi - lo <= (1.04e-3 if k == 32 else 1e-3) * hi
        assert float(a) <= lo <= hi <= float(b) and float(b) - float(a) <= (hi - lo) + 2e-3 * hi
        assert f"[{a}, {b}] at k = {k}" in text
