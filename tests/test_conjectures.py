"""The conjecture checkers (exactdp.apps.conjectures): certificates re-verified exactly.

For every statement found false, its smallest certified counterexample is
re-verified here by the independent brute force (exact Fractions, all 2^L-type
histograms, explicit collections), with the exact values written out.  The
statements that are theorems (invariance under flips; Claim (3.2) of 004) are
hypothesis properties.  docs/conjectures.md must match the cached results in
docs/conjectures.json, every cached certificate must verify, and the cheap
runs are recomputed and compared.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from exactdp.oracles import bruteforce
from exactdp.apps import conjectures as C
from exactdp.reductions import methods

from strategies import qs

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
F = Fraction


def _bf_eta(D, Dm, q, lam, k=1, L=None):
    D = [v for v in D for _ in range(k)]
    Dm = [v for v in Dm for _ in range(k)]
    return bruteforce.eta_from_law(bruteforce.law_of_R(D, Dm, q, L=L, check_neighbouring=False), lam)


def _v(s):
    return tuple(int(c) for c in s)


def _canon(N, L):
    return [_v("0" * L)] * N, [_v("0" * L)] * (N - 1) + [_v("1" * L)]


# ----------------------------------------------------------------------------- false statements: exact
def test_maximality_as_stated_is_false():
    """000 §1.2 (1): 003's reverse pair beats 000's pair already at N = 2, L = 1."""
    D, Dm = [_v("1"), _v("0")], [_v("1"), _v("1")]
    w = _bf_eta(D, Dm, F(1, 4), 2)
    c = _bf_eta(*_canon(2, 1), F(1, 4), 2)
    assert (w, c) == (F(9, 16), F(3, 16))
    r = C.check("maximality", N="2", L="1", q="1/4", lam="2")
    assert r["holds"] is False and C.verify(r["certificate"])["ok"]


def test_maximality_worst_direction_is_false():
    """Even against max(000's pair, its reverse): a base of two types, N = 3, L = 1."""
    D, Dm = [_v("0"), _v("1"), _v("0")], [_v("0"), _v("1"), _v("1")]
    w = _bf_eta(D, Dm, F(1, 4), F(3, 2))
    fwd = _bf_eta(*_canon(3, 1), F(1, 4), F(3, 2))
    rev = _bf_eta(*reversed(_canon(3, 1)), F(1, 4), F(3, 2))
    assert w == F(21, 32) and max(fwd, rev) == F(27, 64) and w > max(fwd, rev)


def test_maximality_homogeneous_D_is_false():
    """A 1-bit modification of a homogeneous collection beats the opposite vector (L = 2)."""
    w = _bf_eta([_v("00")] * 2, [_v("00"), _v("10")], F(1, 4), F(3, 2))
    c = _bf_eta(*_canon(2, 2), F(1, 4), F(3, 2))
    assert (w, c) == (F(13, 16), F(151, 256))


def test_maximality_delta_variant_is_false():
    D, Dm = [_v("00"), _v("10"), _v("01")], [_v("00"), _v("10"), _v("10")]
    w = bruteforce.delta(D, Dm, F(1, 4), 3)
    fwd = bruteforce.delta(*_canon(3, 2), F(1, 4), 3)
    rev = bruteforce.delta(*reversed(_canon(3, 2)), F(1, 4), 3)
    assert w == F(135, 1024) and max(fwd, rev) == F(243, 2048)


@pytest.mark.slow
def test_maximality_false_at_paper_scale():
    """N = 1000, L = 5, q = 0.2446 (000 §3.3): 003's reverse pair beats 000's pair at lam = 6/5.
    (The cached certificate is re-verified by the change-of-measure engine in
    test_every_cached_certificate_verifies.)"""
    lam = F(6, 5)
    rev = methods.eta(C.PR.reverse_canonical_pair(1000, 5), "0.2446", lam=lam, tol=1e-20)
    fwd = methods.eta(C.PR.canonical_pair(1000, 5), "0.2446", lam=lam, tol=1e-20)
    assert rev.lower > fwd.upper
    assert rev.lower > F("0.3294") and fwd.upper < F("0.3142")


def test_two_k_stated_is_false_in_the_broad_region():
    """000 §5 'same noise as arbitrary 2k-bit vectors', k = 1, L = 2, N = 3, q = 1/5, lam = 3/2:
    a 2-bit pair beats every pair of vectors with <= 1 set bit (all collections enumerated)."""
    from itertools import product
    q, lam = F(1, 5), F(3, 2)
    w = _bf_eta([_v("00"), _v("10"), _v("01")], [_v("00"), _v("10"), _v("11")], q, lam)
    light = [_v("00"), _v("10"), _v("01")]
    best = F(0)
    for base in product(light, repeat=2):
        for x, xm in product(light, repeat=2):
            if x != xm:
                best = max(best, _bf_eta(list(base) + [x], list(base) + [xm], q, lam))
    assert (w, best) == (F(11564, 15625), F(88, 125)) and w > best


def test_invariance_any_modification_is_false():
    w = _bf_eta([_v("00")], [_v("10")], F(1, 4), F(3, 2))
    c = _bf_eta([_v("00")], [_v("11")], F(1, 4), F(3, 2))
    assert (w, c) == (F(3, 4), F(9, 16))


def test_two_k_against_canonical_is_false():
    """k = 1: a <= 1-bit pair in L = 2 bits beats 000's pair at 2k = 2 bits."""
    w = _bf_eta([_v("00")] * 2, [_v("00"), _v("10")], F(1, 4), F(3, 2))
    c = _bf_eta(*_canon(2, 2), F(1, 4), F(3, 2))
    assert w == F(13, 16) and c == F(151, 256)
    r = C.check("two-k", N="2", L="2", q="1/4", lam="3/2", k="1", variant="canonical")
    assert r["holds"] is False and C.verify(r["certificate"])["ok"]


def test_maximality_k_is_false_in_every_direction():
    q, lam = F(1, 4), F(3, 2)
    # forward: 000's pair under 2-randomization is beaten by its reverse
    fwd = _bf_eta(*_canon(2, 1), q, lam, k=2)
    rev = _bf_eta(*reversed(_canon(2, 1)), q, lam, k=2)
    assert (rev, fwd) == (F(189, 256), F(187, 256))
    # reverse (003 §1.2's choice) is beaten by 000's pair at lam = 2
    fwd2 = _bf_eta(*_canon(2, 1), q, 2, k=2)
    rev2 = _bf_eta(*reversed(_canon(2, 1)), q, 2, k=2)
    assert (fwd2, rev2) == (F(187, 256), F(81, 256))
    # worst direction: a base of two types, N = 3, k = 2, q = 1/3
    q3 = F(1, 3)
    for lam in (F(3, 2), F(2), F(3)):
        w = _bf_eta([_v("0"), _v("1"), _v("0")], [_v("0"), _v("1"), _v("1")], q3, lam, k=2)
        f = _bf_eta(*_canon(3, 1), q3, lam, k=2)
        r = _bf_eta(*reversed(_canon(3, 1)), q3, lam, k=2)
        if w == F(328, 729):
            assert max(f, r) == F(256, 729)
            break
    else:
        pytest.fail("the 2-randomization witness 328/729 was not reproduced")


# ----------------------------------------------------------------------------- theorems: properties
@settings(max_examples=25, deadline=None)
@given(N=st.integers(1, 4), L=st.integers(1, 3), z=st.data(), q=qs(),
       lam=st.fractions(min_value=1, max_value=6, max_denominator=5))
def test_invariance_is_a_theorem(N, L, z, q, lam):
    """000 §1.2 (2): every z^N -> z^(N-1) + not-z has the law of 000's pair (forward and reverse)."""
    zz = z.draw(st.integers(0, (1 << L) - 1))
    full = (1 << L) - 1
    vz = tuple((zz >> j) & 1 for j in range(L))
    vo = tuple(((zz ^ full) >> j) & 1 for j in range(L))
    D, Dm = [vz] * N, [vz] * (N - 1) + [vo]
    assert bruteforce.law_of_R(D, Dm, q) == bruteforce.canonical_law(N, L, q, "forward")
    assert bruteforce.law_of_R(Dm, D, q) == bruteforce.canonical_law(N, L, q, "reverse")


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 40), q=qs())
def test_l1_claim_holds(n, q):
    """004 Claim (3.2), exactly for every y and s (checked, not weakened)."""
    r = C.check("l1-claim", N=str(n), q=str(q))
    assert r["holds"] is True and r["violations"] == 0 and r["checked"] == n * n


def test_checkers_agree_with_bruteforce_on_small_region():
    """The exhaustive checker's maxima equal a direct brute-force maximum over all pairs."""
    r = C.check("maximality", N="3", L="2", q="1/3", lam="2", variant="worst")
    top = max(_bf_eta(*P.collections(), F(1, 3), 2)
              for P in C.PR.enumerate_pairs(3, 2))
    assert C.iv_from_json(r["points"][0]["max_value"]).contains(top)


def test_hypothesis_search_shrinks_to_minimal():
    cert = C.hypothesis_search("maximality", "stated", max_n=3, max_l=1, max_examples=200)
    assert cert is not None
    assert cert["witness"]["N"] == 2 and cert["witness"]["L"] == 1
    assert C.verify(cert)["ok"]


# ----------------------------------------------------------------------------- report
@pytest.fixture(scope="module")
def cached():
    return json.loads((DOCS / "conjectures.json").read_text())


def test_report_markdown_matches_cache(cached):
    assert (DOCS / "conjectures.md").read_text() == C.render_markdown(cached)
    assert (DOCS / "conjectures.png").stat().st_size > 10_000


@pytest.mark.slow
def test_every_cached_certificate_verifies(cached):
    n = 0
    for rid, r in cached["results"].items():
        if r["holds"] is False:
            assert r["certificate"], rid
            v = C.verify(r["certificate"])
            assert v["ok"], (rid, v)
            n += 1
    for rid, cert in cached["search"].items():
        if cert is not None:
            assert C.verify(cert)["ok"], rid
    assert n >= 5


FAST = ("max-homd-small", "max-homb-small", "inv-stated", "inv-reverse", "inv-any", "twok-canonical",
        "twok-worst", "twok-stated", "maxk-forward-l1", "maxk-reverse-l1", "maxk-worst-l1", "maxk-worst-l2",
        "l1-claim", "l1-claim-ratio")


@pytest.mark.parametrize("rid", FAST)
def test_cheap_runs_recomputed(cached, rid):
    spec = {s[0]: s for s in C.REPORT_SPECS}[rid]
    r = C.check(spec[1], **spec[2])
    c = cached["results"][rid]
    for key in ("holds", "checked", "pairs", "violations", "undecided", "witness", "witness_eta", "canonical_eta"):
        assert r[key] == c[key], (rid, key)


def test_verdict_vocabulary(cached):
    """issue 17: 'holds' only with a proof; a search without counterexample is open with its region."""
    for rid, r in cached["results"].items():
        assert r["verdict"] in C.VERDICT_WORDS, rid
        Ns = C.parse_ints(r["region"]["N"])
        assert (r["verdict"], r["proof"]) == C.verdict_of(r["conjecture"], r["variant"], r["holds"], Ns), rid
        if r["verdict"] == "holds":
            assert r["proof"] and (r["conjecture"], r["variant"]) in C.PROOFS
        if r["verdict"] == "false":
            assert r["certificate"]["relation"] and r["violations"] > 0
        assert r["region_text"].startswith("N in {"), rid
    # the maximality searches never 'hold': there is no proof
    assert all(r["verdict"] != "holds" for r in cached["results"].values() if r["conjecture"] == "maximality")
    md = (DOCS / "conjectures.md").read_text()
    assert "confirmed" not in md and "no counterexample in R" in md


def test_verdict_of_rules():
    assert C.verdict_of("maximality", "worst", True) == ("no counterexample in R", None)
    assert C.verdict_of("maximality", "worst", False) == ("false", None)
    assert C.verdict_of("maximality", "worst", None) == ("undecided", None)
    assert C.verdict_of("invariance", "stated", True)[0] == "holds"
    assert C.verdict_of("invariance", "any-modification", True)[0] == "no counterexample in R"
    assert C.verdict_of("l1-claim", "stated", True, [1, 10])[0] == "holds"
    assert C.verdict_of("l1-claim", "stated", True, [1, 40])[0] == "no counterexample in R"


BROAD = {s[0]: s for s in C.BROAD_SPECS}


def test_broad_region_is_cached_and_covers_the_stated_region(cached):
    """Every statement and variant has a broad run in the cache, over the region of issue 17."""
    res = cached["results"]
    variants = {(s[1], s[2].get("variant") or C.VARIANTS[s[1]][0]) for s in C.BROAD_SPECS}
    assert variants >= {(n, v) for n in C.NAMES for v in C.VARIANTS[n]}
    for rid, (_, name, kw) in BROAD.items():
        r = res[rid]
        assert r["conjecture"] == name and r["checked"] > 0, rid
        for key in ("N", "L", "q", "lam"):
            if key in kw:
                assert r["region"][key] == kw[key], (rid, key)
    qs = C.parse_fracs(C.BROAD_Q)
    assert len(qs) >= 8 and all(0 < q < F(1, 2) for q in qs)
    assert C.parse_ints(C.BROAD_N) == [2, 3, 4, 5, 6] and C.parse_ints(C.BROAD_L) == [1, 2, 3, 4]


def test_broad_false_verdicts_verify(cached):
    """Each broad counterexample re-verified by the independent brute force."""
    n = 0
    for rid in BROAD:
        r = cached["results"][rid]
        if r["verdict"] == "false":
            v = C.verify(r["certificate"])
            assert v["ok"], (rid, v)
            n += 1
    assert n >= 5


@pytest.mark.parametrize("rid,index", [("broad-max-stated", 0), ("broad-max-worst", 17),
                                       ("broad-max-worst", 120), ("broad-twok-canonical", 5),
                                       ("broad-maxk-worst", 3)])
def test_broad_sample_points_recomputed(cached, rid, index):
    """A sample of the broad runs' points recomputed alone: same reference and maximum."""
    r = cached["results"][rid]
    pts = r["points"]
    pt = pts[index % len(pts)]
    spec = dict(BROAD[rid][2])
    spec.update(N=str(pt["N"]), L=str(pt["L"]), q=pt["q"], lam=pt["lam"])
    if "k" in pt:
        spec["k"] = str(pt["k"])
    fresh = C.check(BROAD[rid][1], **spec)["points"][0]
    assert fresh["reference"] == pt["reference"] and fresh["max_value"] == pt["max_value"], (rid, pt)


@pytest.mark.slow
@pytest.mark.parametrize("rid", list(BROAD))
def test_broad_runs_recomputed(cached, rid):
    r = C.run_broad([rid])[rid]
    c = cached["results"][rid]
    for key in ("holds", "verdict", "checked", "pairs", "violations", "undecided", "witness"):
        assert r[key] == c[key], (rid, key)


def test_each_statement_has_a_verdict(cached):
    assert set(cached["verdicts"]) == set(C.NAMES)
    res = cached["results"]
    assert res["max-stated-small"]["holds"] is False
    assert res["inv-stated"]["holds"] is True and res["inv-paper-scale"]["holds"] is True
    assert res["twok-canonical"]["holds"] is False
    assert res["maxk-worst-l1"]["holds"] is False
    assert res["l1-claim"]["holds"] is True


# ----------------------------------------------------------------------------- CLI
def test_cli_json_module_entry():
    out = subprocess.run([sys.executable, "-m", "exactdp.apps.conjectures", "maximality", "-N", "2..4", "-L", "1..2",
                          "-q", "1/4", "--lam", "2", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["conjecture"] == "maximality" and d["holds"] is False and d["checked"] > 0
    assert {"lower", "upper"} <= set(d["witness_eta"]) and {"lower", "upper"} <= set(d["canonical_eta"])
    assert d["witness"]["D"] and d["witness"]["D_m"]


def test_cli_main_and_errors(capsys, tmp_path):
    assert C.main(["invariance", "-N", "1..3", "-L", "1..2", "-q", "1/4,1/3", "--eps", "1/2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["holds"] is True and d["witness"] is None
    assert C.main(["maximality", "-N", "0", "--lam", "2"]) == 2
    assert "N must be" in capsys.readouterr().err
    r = C.check("maximality", N="2", L="1", q="1/4", lam="2")
    f = tmp_path / "cert.json"
    f.write_text(json.dumps(r))
    assert C.main(["verify", str(f)]) == 0


def test_parsing():
    assert C.parse_ints("2..4,7") == [2, 3, 4, 7]
    assert C.parse_fracs("1/4,0.2446") == [F(1, 4), F(1223, 5000)]
