"""The claims audit: verdicts checked against independently computed expectations.

The fast tests decide a sample of claims without the audit's own machinery
(no ``tolerance()``, no certified engine for the expectation): exact rationals
and sympy for the local-DP condition, scipy's binomial law for the estimator's
error, a seeded Monte Carlo of R for the deployment-scale eta.  The slow tests run
the whole audit (schema, docs/audit.md freshness) and recompute paper-scale rows
by a second route.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from exactdp.apps import audit

KEYS = {"id", "source", "location", "statement", "quantity", "params", "claimed", "computed",
        "verdict", "reason"}


def _window(printed: str) -> tuple[Fraction, Fraction]:
    """[value - u/2, value + u] for a plain decimal string (written here, not heuristics.tolerance)."""
    value = Fraction(printed)
    places = len(printed.split(".")[1]) if "." in printed else 0
    u = Fraction(1, 10**places)
    return value - u / 2, value + u


def _iv(d) -> tuple[Fraction, Fraction]:
    return Fraction(d["lower"]), Fraction(d["upper"])


@pytest.fixture(scope="module")
def deploy():
    return {r["id"]: r for r in audit.deployment_claims()}


def test_deployment_rows_schema(deploy):
    assert len(deploy) == 8
    for r in deploy.values():
        assert KEYS <= set(r) and r["verdict"] in ("confirmed", "refuted", "open") and r["reason"]
        assert r["quantity"] in audit.DEPLOY_QUANTITIES


def test_local_dp_0_4875_independently(deploy):
    """(p/q)^40 at q = 39/80 against e^2 by sympy at 60 digits (not the audit's Taylor bound)."""
    import sympy as sp
    lhs = sp.Rational(41, 39) ** 40
    e2 = sp.E ** 2
    refuted = bool(sp.N(lhs - e2, 60) > 0)
    r = deploy["000-s4-L40-local-q0.4875-exact"]
    assert r["verdict"] == ("refuted" if refuted else "confirmed")
    eps = float(sp.N(40 * sp.log(sp.Rational(41, 39)), 30))
    lo, hi = _iv(r["computed"])
    assert lo <= Fraction(eps) * (1 + Fraction(1, 10**12)) and Fraction(eps) * (1 - Fraction(1, 10**12)) <= hi


@pytest.mark.parametrize("rid,q,T", [("000-s4-L40-200K-exact", 0.4875, 200_000),
                                     ("000-s4-L40-15K-exact", 0.351, 15_000)])
def test_estimator_rows_against_scipy(deploy, rid, q, T):
    """P[|d_hat| > T] = P[|M - qN| > T(p - q)], M ~ Bin(N, q), by scipy (floats), and the
    3-sigma level 2(1 - Phi(3)) by scipy."""
    from scipy.stats import binom, norm
    N = 10**7
    qf = Fraction(str(q))
    c, h = qf * N, T * (1 - 2 * qf)
    hi, lo = math.floor(c + h) + 1, math.ceil(c - h) - 1
    expect = binom.sf(hi - 1, N, q) + binom.cdf(lo, N, q)
    r = deploy[rid]
    a, b = _iv(r["computed"])
    assert float(a) <= expect * (1 + 1e-8) and expect * (1 - 1e-8) <= float(b)
    level = 2 * norm.sf(3)
    assert r["verdict"] == ("confirmed" if expect < level else "refuted")


def test_one_percent_row_against_scipy(deploy):
    """d = 100K holders: P[|d_hat - d| > 10K] by a float convolution of scipy binomials."""
    from scipy.stats import binom, norm
    N, d, q = 10**7, 10**5, 0.351
    n, p = N - d, 1 - q
    c, h = p * d + q * n, 10_000 * (p - q)
    x = np.arange(0, d + 1)
    px = binom.pmf(x, d, p)
    expect = float((px * (binom.sf(np.floor(c + h - x), n, q) + binom.cdf(np.ceil(c - h - x) - 1, n, q))).sum())
    r = deploy["000-s4-L40-1pct-10pct-exact"]
    a, b = _iv(r["computed"])
    assert float(a) <= expect * (1 + 1e-7) and expect * (1 - 1e-7) <= float(b)
    assert r["verdict"] == ("confirmed" if expect < 2 * norm.sf(3) else "refuted")


def test_estimator_small_cases_by_brute_force():
    """exactdp.apps.estimator against a direct Fraction enumeration (d = 0 and d > 0, N > 200 too)."""
    from exactdp.apps.estimator import deviation_probability
    F = Fraction

    def bf(N, q, T, d):
        p = 1 - q
        c, h = p * d + q * (N - d), T * (p - q)
        px = [math.comb(d, x) * p**x * q**(d - x) for x in range(d + 1)]
        py = [math.comb(N - d, y) * q**y * p**(N - d - y) for y in range(N - d + 1)]
        return sum(px[x] * py[y] for x in range(d + 1) for y in range(N - d + 1) if abs(x + y - c) > h)

    for N, q, T, d in [(5, F(1, 3), F(1), 0), (7, F(1, 4), F(2), 3), (250, F(2, 7), F(30), 40),
                       (260, F(1, 10), F(25), 0)]:
        iv = deviation_probability(N, q, T, d=d)
        assert iv.contains(bf(N, q, T, d)), (N, q, T, d)


def _mc_eta(q: float, n_samples: int, seed: int) -> float:
    """Seeded Monte Carlo of P[R > e^2] for 000's pair at L = 40, N = 10M (numpy multinomial)."""
    rng = np.random.default_rng(seed)
    N, L = 10**7, 40
    p = 1 - q
    ls = np.arange(L + 1)
    pz = np.array([math.comb(L, l) * q**l * p**(L - l) for l in ls])     # from a zero vector
    w = (q / p) ** (L - 2 * ls)                                            # rho of l set bits
    counts = rng.multinomial(N - 1, pz / pz.sum(), size=n_samples)
    one = rng.binomial(L, p, size=n_samples)                               # the outlier's output
    R = (counts @ w + w[one]) / N
    return float(np.mean(R > math.exp(2)))


@pytest.mark.parametrize("rid,q", [("000-s4-L40-q0.351-eta", "0.351"),
                                   ("000-s3.4-L40-eta-beta3.05", None),
                                   ("000-s3.4-L40-eta-beta3.5", None)])
def test_deployment_eta_against_monte_carlo(deploy, rid, q):
    """The certified eta agrees with a seeded Monte Carlo (fixed wide tolerance: 5 standard
    errors), and the verdict (eta below the claimed level) is what the Monte Carlo says."""
    r = deploy[rid]
    qq = float(r["params"]["q"])
    n = 160_000
    est = _mc_eta(qq, n, seed=7)
    lo, hi = _iv(r["computed"])
    se = math.sqrt(float(hi) * (1 - float(hi)) / n)
    assert abs(est - float((lo + hi) / 2)) < 5 * se, (est, lo, hi)
    level = float(r["claimed"].split()[-1])
    assert est + 5 * se < level            # decided by the Monte Carlo alone
    assert r["verdict"] == "confirmed"


def test_q_increase_row(deploy):
    """The claimed 0.0025 is outside the window of the (3.13) difference, and the exact tail
    at the beta = 3.05 q is already below 0.002 (the beta = 3.05 row's interval)."""
    r = deploy["000-s3.4-L40-q-increase-exact"]
    lo, hi = _window(r["claimed"])
    a, b = _iv(r["computed"])
    assert b < lo or a > hi
    assert _iv(deploy["000-s3.4-L40-eta-beta3.05"]["computed"])[1] <= Fraction("0.002")
    assert r["verdict"] == "refuted"


def test_conjecture_rows_follow_the_vocabulary():
    """A conjecture row is confirmed only with a proof; searches without counterexample are open."""
    rows = audit.conjecture_claims()
    assert rows
    for c in rows:
        if c["verdict"] == "confirmed":
            assert "proof:" in c["reason"], c["id"]
        if c["computed"].startswith("no counterexample"):
            assert c["verdict"] == "open" and "R:" in c["reason"], c["id"]
    assert not any(c["id"].startswith("conj-max-") and c["verdict"] == "confirmed" for c in rows)


def test_progress_is_silent_when_not_a_tty(capsys):
    bar = audit._Progress(3, True)
    bar("x")
    bar.close()
    assert capsys.readouterr().err == ""


def test_progress_bar_on_a_terminal(monkeypatch):
    """On a terminal (and with tqdm installed) the audit draws a bar on stderr."""
    import io
    import sys
    pytest.importorskip("tqdm")

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    bar = audit._Progress(2, True)
    bar("first step")
    bar("second step")
    bar.close()
    assert "audit" in err.getvalue() and "/2" in err.getvalue() and "second step" in err.getvalue()
    quiet = Tty()
    monkeypatch.setattr(sys, "stderr", quiet)
    audit._Progress(2, False)("x")
    assert quiet.getvalue() == ""


# ----------------------------------------------------------------------------- slow: the whole audit
@pytest.fixture(scope="module")
def result():
    return audit.run()


@pytest.mark.slow
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
    for N in (1000, 3000, 5000):
        assert f"000-s3.3-eta-2-N{N}" in ids and f"000-s3.3-eta-e2-N{N}" in ids
    assert {"000-s4-L40-q0.351-eta", "000-s4-L40-local-q0.4875-exact", "000-s4-L40-15K-exact"} <= ids


@pytest.mark.slow
@pytest.mark.parametrize("N,q,lab,printed", [(1000, "0.1692", "e^2", "0.0037"),
                                              (1000, "0.2446", "2", "0.006")])
def test_paper_scale_tail_rows_recomputed(result, N, q, lab, printed):
    """000 §3.3 rows recomputed by the homogeneous-pair kernel (exactdp.reductions.pairs, not the
    distribution engine the audit uses) and judged by the window written in this file."""
    from exactdp.reductions import pairs as PR
    H = PR.HomogeneousPair(N, 0, 5, 0)            # 000's pair at L = 5
    kw = {"eps": Fraction(2)} if lab == "e^2" else {"lam": Fraction(2)}
    iv = PR.hom_eta(H, q, kw.get("lam"), kw.get("eps"), True, tol=1e-20)
    lo, hi = _window(printed)
    expect = "confirmed" if lo <= iv.lower and iv.upper <= hi else \
        "refuted" if iv.upper < lo or iv.lower > hi else "open"
    rid = f"000-s3.3-eta-{'e2' if lab == 'e^2' else '2'}-N{N}"
    row = next(c for c in result["claims"] if c["id"] == rid)
    assert row["verdict"] == expect
    a, b = _iv(row["computed"])
    assert a <= iv.upper and iv.lower <= b


@pytest.mark.slow
def test_docs_audit_md_matches_fresh_run(result):
    path = Path(__file__).resolve().parent.parent / "docs" / "audit.md"
    assert path.read_text() == audit.to_markdown(result), \
        "docs/audit.md is stale: regenerate with `exactdp audit --markdown > docs/audit.md`"
