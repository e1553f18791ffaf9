"""The claims audit: record schema, verdict rule, and docs/audit.md freshness."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from exactdp import audit

# audit.run() (the module fixture) takes ~100 s: the whole module runs in the slow pass.
pytestmark = pytest.mark.slow

KEYS = {"id", "source", "location", "statement", "quantity", "params", "claimed", "computed",
        "verdict", "reason"}


@pytest.fixture(scope="module")
def result():
    return audit.run()


def test_schema_and_verdicts(result):
    ids = set()
    for c in result["claims"]:
        assert KEYS <= set(c), c["id"]
        assert c["verdict"] in ("confirmed", "refuted", "open")
        assert c["reason"], c["id"]
        assert isinstance(c["params"], dict) and all(isinstance(v, str) for v in c["params"].values())
        assert c["id"] not in ids
        ids.add(c["id"])
    assert sum(result["summary"].values()) == len(result["claims"])


def test_coverage(result):
    ids = {c["id"] for c in result["claims"]}
    for N in (1000, 3000, 5000):
        assert f"000-s3.3-eta-2-N{N}" in ids and f"000-s3.3-eta-e2-N{N}" in ids
    assert any(i.startswith("proof-000-6.1") or "6.1" in i for i in ids)
    assert any(c["quantity"] == "conjecture" for c in result["claims"])


def test_verdict_rule_is_applied_consistently(result):
    from exactdp.heuristics import tolerance
    for c in result["claims"]:
        if c["quantity"] != "eta":
            continue
        w = tolerance(c["claimed"]).accepted
        lo, hi = Fraction(c["computed"]["lower"]), Fraction(c["computed"]["upper"])
        inside = w.lower <= lo and hi <= w.upper
        outside = hi < w.lower or lo > w.upper
        assert c["verdict"] == ("confirmed" if inside else "refuted" if outside else "open")


def test_docs_audit_md_matches_fresh_run(result):
    path = Path(__file__).resolve().parent.parent / "docs" / "audit.md"
    assert path.read_text() == audit.to_markdown(result), \
        "docs/audit.md is stale: regenerate with `exactdp audit --markdown > docs/audit.md`"
