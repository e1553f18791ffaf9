"""Independent checks of exactdp.apps.heuristics (papers 000 and 003, heuristic formulas).

The reference computations here are written from the papers' formulas directly
(p and q, not the module's phi/psi helpers), in exact rationals, sympy or
mpmath.  Printed numbers from the papers appear only as the *claims* under
audit (PRINTED_NUMBERS / check_printed), never as expected results.
"""

from __future__ import annotations

import math
import pathlib
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exactdp.apps import heuristics as H
from exactdp.core.errors import InexactInputError, ParameterError
from exactdp.core.interval import Interval

PAPERS = pathlib.Path("/work/shared/papers")
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# q strictly inside (0, 1/2), exact rationals with small denominators
qs = st.fractions(min_value=F(1, 1000), max_value=F(499, 1000), max_denominator=10**4).filter(
    lambda x: 0 < x < F(1, 2))
Ns = st.integers(1, 5000)
Ls = st.integers(1, 12)
lams = st.fractions(min_value=F(11, 10), max_value=F(10), max_denominator=100)


# ----------------------------------------------------------- references
def ref_moments(N, L, q, form):
    """(3.12)/(3.13) mean and variance straight from the printed p, q expressions."""
    p = 1 - q
    a = (p**3 + q**3) / (p * q)
    b = (p**5 + q**5) / (p * q) ** 2
    if form == "3.12":
        return F(N - 1, N) + a**L / N, F(N - 1, N * N) * (a**L - 1) + (b**L - a ** (2 * L)) / (N * N)
    return 1 + a**L / N, a**L / N + (b**L - a ** (2 * L)) / (N * N)


def ref_le(mean, var, lam, beta=3):
    """mean + beta sqrt(var) <= lam, exactly (lam rational)."""
    d = lam - mean
    return d >= 0 and beta * beta * var <= d * d


def ref_lhs_mp(N, L, q, form, beta=3, dps=60):
    with mpmath.workdps(dps):
        m, v = ref_moments(N, L, q, form)
        return mpmath.mpf(m.numerator) / m.denominator + beta * mpmath.sqrt(
            mpmath.mpf(v.numerator) / v.denominator)


# ------------------------------------------------------ (3.14) / (3.16)
def test_316_inverts_314_symbolically():
    # q = 1/(1+r), r = p/q = 1 + s > 1 with s > 0
    s = sp.symbols("s", positive=True)
    r = 1 + s
    q = 1 / (1 + r)
    p = 1 - q
    phi = sp.simplify((p**3 + q**3) / (p * q))
    assert sp.simplify(phi - (p / q + q / p - 1)) == 0
    q316 = 1 / (1 + ((phi + 1) + sp.sqrt(sp.factor((phi + 1) ** 2 - 4))) / 2)
    assert sp.simplify(q316 - q) == 0


def test_psi_identities_symbolic():
    q = sp.symbols("q", positive=True)
    p = 1 - q
    phi = (p**3 + q**3) / (p * q)
    psi = (p**5 + q**5) / (p * q) ** 2
    assert sp.simplify(psi - (phi**2 + phi - 1)) == 0
    assert sp.expand((phi + 1) ** 2 - phi - 2 - (phi**2 + phi - 1)) == 0   # (3.15) == (3.13)
    # the middle step of the printed derivation has (pq)^4 in the denominator: wrong
    wrong = (p + q) * (p**4 - p**3 * q + (p * q) ** 2 - p * q**3 + q**4) / (p * q) ** 4
    assert sp.simplify(wrong - psi) != 0


@FAST
@given(qs)
@example(F(1, 3))
@example(F(1223, 5000))
def test_316_inverts_314_exactly(q):
    phi = H.phi_of_q(q)
    assert H.q_of_phi_exact(phi) == q
    assert H.q_of_phi(phi).contains(q)


def test_q_of_phi_irrational_enclosure():
    for phi in (F(2), F(5, 2), F(10**6)):
        iv = H.q_of_phi(phi, prec=200)
        assert not iv.is_exact and iv.width < F(1, 10**50)
        with mpmath.workdps(80):
            f = mpmath.mpf(phi.numerator) / phi.denominator
            r = ((f + 1) + mpmath.sqrt((f + 1) ** 2 - 4)) / 2
            val = 1 / (1 + r)
            assert abs(F(mpmath.nstr(val, 75)) - iv.mid) < F(1, 10**55)


# ----------------------------------------------------------- moments
@FAST
@given(Ns, Ls, qs)
@example(1000, 5, F(1223, 5000))
@example(1, 1, F(1, 3))
def test_moments_match_reference(N, L, q):
    for form in ("3.12", "3.13", "3.15"):
        ref = ref_moments(N, L, q, "3.12" if form == "3.12" else "3.13")
        assert H.sigma3_moments(N, L, q, form) == ref


@FAST
@given(Ns, Ls, qs)
@example(1000, 5, F(1, 4))
def test_313_is_above_312(N, L, q):
    """(3.13) >= (3.12) termwise and strictly: the paper's 'tighter' (3.13) is the larger LHS."""
    m12, v12 = ref_moments(N, L, q, "3.12")
    m13, v13 = ref_moments(N, L, q, "3.13")
    assert m13 - m12 == F(1, N)
    a = ((1 - q) ** 3 + q**3) / ((1 - q) * q)
    assert v13 - v12 == (a**L + N - 1) / F(N * N)
    assert H.sigma3_lhs(N, L, q, "3.13").certainly_gt(H.sigma3_lhs(N, L, q, "3.12"))


@FAST
@given(Ns, Ls, qs, qs)
@example(1000, 5, F(1, 10), F(2, 10))
def test_lhs_strictly_decreasing_in_q(N, L, q1, q2):
    if q1 == q2:
        return
    q1, q2 = min(q1, q2), max(q1, q2)
    for form in ("3.12", "3.13"):
        m1, v1 = ref_moments(N, L, q1, form)
        m2, v2 = ref_moments(N, L, q2, form)
        assert m1 > m2 and v1 > v2


@FAST
@given(st.integers(1, 2000), st.integers(1, 8), qs, st.integers(1, 6))
@example(1000, 5, F(1, 4), 1)
def test_kr_k1_sandwiched_and_decreasing(N, L, q, k):
    m, v = H.kr_mean_bound(N, L, q, k), H.kr_var_bound(N, L, q, k)
    assert v >= 0
    if k == 1:
        m12, v12 = ref_moments(N, L, q, "3.12")
        m13, v13 = ref_moments(N, L, q, "3.13")
        assert m == m13 and v12 < v < v13
    q2 = (q + F(1, 2)) / 2
    assert H.kr_mean_bound(N, L, q2, k) < m and H.kr_var_bound(N, L, q2, k) < v


# ------------------------------------------------------- certified brackets
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(Ns, Ls, lams, st.sampled_from(["3.12", "3.13", "3.15"]))
@example(1000, 5, F(2), "3.12")
@example(1000, 5, F(2), "3.13")
@example(5000, 5, F(2), "3.13")
@example(1, 1, F(11, 10), "3.12")
def test_sigma3_bracket_certified(N, L, lam, form):
    try:
        br = H.sigma3_q(N, L, lam, form, digits=12)
    except ParameterError:
        # only legitimate when even q -> 1/2 fails: check at q = 1/2 exactly
        ref_form = "3.12" if form == "3.12" else "3.13"
        m = (F(N - 1, N) + F(1, N)) if ref_form == "3.12" else 1 + F(1, N)
        v = F(0) if ref_form == "3.12" else F(1, N)
        assert not (ref_le(m, v, lam) and (lam - m) ** 2 != 9 * v)
        return
    ref_form = "3.12" if form == "3.12" else "3.13"
    assert 0 < br.lo < br.hi < F(1, 2) or br.hi == F(1, 2)
    assert br.width <= F(1, 10**12)
    assert ref_le(*ref_moments(N, L, br.hi, ref_form), lam)
    assert not ref_le(*ref_moments(N, L, br.lo, ref_form), lam)


@pytest.mark.parametrize("N,L,lam,form", [
    (1000, 5, "e^2", "3.13"), (3000, 5, "e^0.693", "3.12"), (10**7, 40, "e^2", "3.13"),
    (10**7, 40, "e^2", "3.12")])
def test_sigma3_bracket_exp_lambda_mpmath(N, L, lam, form):
    br = H.sigma3_q(N, L, lam, form, digits=30)
    with mpmath.workdps(80):
        lam_mp = mpmath.exp(mpmath.mpf(lam.split("^")[1]))
        assert ref_lhs_mp(N, L, br.hi, form, dps=80) <= lam_mp
        assert ref_lhs_mp(N, L, br.lo, form, dps=80) > lam_mp


@pytest.mark.parametrize("N,L,lam", [(1000, 5, "e^2"), (1000, 5, 2), (3000, 5, 2), (10**7, 40, "e^2")])
def test_phi_route_agrees_with_direct_bisection(N, L, lam):
    direct = H.sigma3_q(N, L, lam, "3.13", digits=25).interval
    via_phi = H.sigma3_q_via_phi(N, L, lam, "3.15", digits=25)
    assert direct.overlaps(via_phi)
    assert via_phi.width < F(1, 10**20)


@pytest.mark.parametrize("N,L,lam,form,k", [
    (1000, 5, 2, "3.12", 1), (1000, 5, "e^2", "3.13", 1), (5000, 5, 2, "3.13", 1),
    (10**7, 40, "e^2", "3.13", 1), (10**6, 40, "e^2", "6.3", 4), (1000, 5, 2, "6.3", 16)])
def test_single_crossing(N, L, lam, form, k):
    assert H.feasibility_crossings(N, L, lam, form, grid=40, k=k) == 1


@pytest.mark.parametrize("N,L,lam,k", [(10**7, 40, "e^2", 1), (10**7, 40, "e^2", 4), (1000, 5, 2, 3)])
def test_kr_bracket_certified(N, L, lam, k):
    br = H.kr_q(N, L, lam, k, digits=20)

    def lhs(q):
        p = 1 - q
        a = (p**3 + q**3) / (p * q)
        b = (p**5 + q**5) / (p * q) ** 2
        kN = k * N
        m = (1 + a**L / kN) ** k
        v = (a**L / kN + b**L / kN**2) ** k - (F(1, kN) + a ** (2 * L) / kN**2) ** k
        with mpmath.workdps(80):
            return (mpmath.mpf(m.numerator) / m.denominator
                    + 3 * mpmath.sqrt(mpmath.mpf(v.numerator) / v.denominator))
    with mpmath.workdps(80):
        lam_mp = mpmath.exp(2) if lam == "e^2" else mpmath.mpf(lam)
        assert lhs(br.hi) <= lam_mp < lhs(br.lo)


def test_kr_k1_between_312_and_313():
    a = H.sigma3_q(10**4, 8, "e^2", "3.12", digits=20).interval
    b = H.kr_q(10**4, 8, "e^2", 1, digits=20).interval
    c = H.sigma3_q(10**4, 8, "e^2", "3.13", digits=20).interval
    assert a.certainly_lt(b) and b.certainly_lt(c)


def test_infeasible_raises():
    with pytest.raises(ParameterError):
        H.sigma3_q(4, 5, 2, "3.13")          # 1 + 1/4 + 3/2 > 2 even at q = 1/2
    with pytest.raises(ParameterError):
        H.sigma3_q(10, 3, 1, "3.12")         # lam = 1: only q = 1/2 reaches LHS = 1


def test_floats_refused():
    with pytest.raises(InexactInputError):
        H.sigma3_q(1000, 5, 2.0)
    with pytest.raises(InexactInputError):
        H.sigma3_lhs(1000, 5, 0.25)
    with pytest.raises(InexactInputError):
        H.local_dp_q(5, 2.0)


# ------------------------------------------------------------- §4, §6
@FAST
@given(Ls, lams)
@example(5, F(2))
@example(1, F(3))
def test_local_dp_q_attains_41_with_equality(L, lam):
    iv = H.local_dp_q(L, lam, prec=200)
    with mpmath.workdps(60):
        q = mpmath.mpf(iv.mid.numerator) / iv.mid.denominator
        ratio = ((1 - q) / q) ** L
        assert abs(ratio - mpmath.mpf(lam.numerator) / lam.denominator) < mpmath.mpf(10) ** -40
    assert iv.width < F(1, 10**50)


def test_local_dp_q_exact_cases_and_exp():
    assert H.local_dp_q(1, 3) == Interval.exact(F(1, 4))
    assert H.local_dp_q(2, 4) == Interval.exact(F(1, 3))
    iv = H.local_dp_q(40, "e^2", prec=200)
    with mpmath.workdps(60):
        ref = F(mpmath.nstr(1 / (1 + mpmath.exp(mpmath.mpf(2) / 40)), 58))
        assert abs(ref - iv.mid) < F(1, 10**55) and iv.width < F(1, 10**55)


@FAST
@given(st.integers(1, 10**7), qs, st.integers(1, 200))
@example(10**7, F(351, 1000), 4)
def test_sigma_dhat_scaling_and_sec6_typo(N, q, k):
    s1 = H.sigma_dhat(N, q, 1)
    sk = H.sigma_dhat(N, q, k)
    with mpmath.workdps(40):
        p = 1 - q
        ref = mpmath.sqrt(mpmath.mpf(q.numerator) / q.denominator * (mpmath.mpf(p.numerator) / p.denominator)
                          * N / k) / (mpmath.mpf((p - q).numerator) / (p - q).denominator)
        assert abs(F(mpmath.nstr(ref, 35)) - sk.mid) <= F(1, 10**20) * (1 + abs(sk.mid))
    assert abs(float(s1.mid) / float(sk.mid) - math.sqrt(k)) < 1e-9 * math.sqrt(k)
    assert H.sigma_dhat(N, q, k) == H.sigma_003_1_4(N, q, k)
    # the §6 printed form differs from (1.4) unless sqrt(qp)/(p-q) == 1
    printed = H.sigma_dhat_sec6_as_printed(N, q, k)
    factor = H.sigma_factor(q)
    if not factor.contains(1):
        assert not printed.overlaps(sk)


# ------------------------------------------------------------------ Maurer
@FAST
@given(st.integers(2, 10**5), st.integers(1, 40), qs, st.fractions(min_value=1, max_value=5, max_denominator=100))
@example(1000, 5, F(1692, 10000), F(3))
def test_maurer_lines(N, L, q, beta):
    l1, l2, l3 = (H.maurer_bound(N, L, q, beta, line) for line in (1, 2, 3))
    assert l1.overlaps(l2)
    assert l3.certainly_lt(l2)       # printed line 3 (phi^L) is not line 2 (phi^(2L))
    p = 1 - q
    a = (p**3 + q**3) / (p * q)
    b = (p**5 + q**5) / (p * q) ** 2
    corrected = 1 - ((N - 1) + a ** (2 * L)) / ((N - 1) * a**L + b**L)
    printed = 1 - ((N - 1) + a**L) / ((N - 1) * a**L + b**L)
    with mpmath.workdps(50):
        bb = mpmath.mpf(beta.numerator) / beta.denominator
        for val, iv in ((corrected, l2), (printed, l3)):
            ref = mpmath.exp(-bb**2 / 2 * mpmath.mpf(val.numerator) / val.denominator)
            assert abs(F(mpmath.nstr(ref, 45)) - iv.mid) <= F(1, 10**25)


def test_maurer_sigma2_override_and_asymptotic():
    # sigma^2 = (N-1) phi^L + psi^L makes line 1 exactly exp(-beta^2/2)
    N, L, q = 1000, 5, F(1, 5)
    p = 1 - q
    a = (p**3 + q**3) / (p * q)
    b = (p**5 + q**5) / (p * q) ** 2
    iv = H.maurer_bound(N, L, q, 3, 1, sigma2=(N - 1) * a**L + b**L)
    assert iv.overlaps(H.maurer_asymptotic(3))


# ------------------------------------------------------------------ 003
@FAST
@given(st.integers(1, 10**6), lams, st.integers(1, 64))
@example(1000, F(2), 1)
@example(1000, F(2), 16)
def test_003_q_formulas_solve_their_inequalities_with_equality(N, lam, k):
    # (1.23) (k = 1: (0.19)) makes (1.22) an equality
    iv = H.q_003_1_23(N, lam, k, prec=256)
    with mpmath.workdps(70):
        q = mpmath.mpf(iv.mid.numerator) / iv.mid.denominator
        p = 1 - q
        lam_mp = mpmath.mpf(lam.numerator) / lam.denominator
        lhs = q * p * k * N / (p - q) ** 2
        rhs = 9 / (1 - lam_mp ** (-mpmath.mpf(1) / k)) ** 2
        assert abs(lhs / rhs - 1) < mpmath.mpf(10) ** -40
    if k == 1:
        assert iv.overlaps(H.q_003_0_19(N, lam, prec=256))
        assert iv.overlaps(H.q_003_2_33(N, 1, lam, prec=256))   # (2.33) at L = 1 reduces to (0.19)
        # sigma(T_bar) at this q equals the (0.16) bound 3/(1 - 1/lam)
        assert H.sigma_003_1_4(N, iv, 1, prec=256).overlaps(H.sigma_bound_003_0_16(lam))


@FAST
@given(st.integers(1, 10**6), st.integers(1, 40), lams)
@example(1000, 5, F(2))
def test_003_233_attains_229(N, L, lam):
    iv = H.q_003_2_33(N, L, lam, prec=256)
    with mpmath.workdps(70):
        q = mpmath.mpf(iv.mid.numerator) / iv.mid.denominator
        p = 1 - q
        lam_mp = mpmath.mpf(lam.numerator) / lam.denominator
        lhs = ((p**3 + q**3) / (p * q)) ** L
        rhs = 1 + (1 - 1 / lam_mp) ** 2 * N / 9
        assert abs(lhs / rhs - 1) < mpmath.mpf(10) ** -30


def test_003_ci_definition():
    lo, hi = H.ci_003(1000, F(1, 3), "S")
    mean, sd = F(1000, 3), math.sqrt(float(F(1, 3) * F(2, 3) * 1000))
    assert abs(float(lo.mid) - (float(mean) - 3 * sd)) < 1e-9
    assert abs(float(hi.mid) - (float(mean) + 3 * sd)) < 1e-9
    lo_m, hi_m = H.ci_003(1000, F(1, 3), "S_m")
    assert abs(float(lo_m.mid) - float(lo.mid) - 2 / 3) < 1e-9   # E(S_m) = E(S) + p, same sigma


# -------------------------------------------------------- tolerance rule
def test_tolerance_rule():
    t = H.tolerance("0.2446")
    assert t.value == F(2446, 10000) and t.unit == F(1, 10000)
    assert t.rounded == Interval(F(24455, 100000), F(24465, 100000))
    assert t.truncated == Interval(F(2446, 10000), F(2447, 10000))
    assert t.accepted == Interval(F(24455, 100000), F(2447, 10000))
    assert H.tolerance("15K").unit == 1000 and H.tolerance("15K").value == 15000
    assert H.tolerance("25%").unit == F(1, 100)
    assert H.tolerance("200K", "insignificant").unit == 100000
    assert H.tolerance("0.0025").unit == F(1, 10000)
    with pytest.raises(ParameterError):
        H.tolerance("about 3")


def test_classify_edges():
    tol = H.tolerance("1.0")
    assert H._classify(Interval(F(96, 100), F(97, 100)), tol)[0] == "confirmed"
    assert H._classify(Interval(F(109, 100), F(1095, 1000)), tol) == ("confirmed", "truncated")
    assert H._classify(Interval(F(94, 100), F(949, 1000)), tol)[0] == "refuted"
    assert H._classify(Interval(F(94, 100), F(96, 100)), tol)[0] == "undecided"


# ------------------------------------------------------------ the audit
REQUIRED = {"id", "source", "location", "statement", "quantity", "params", "claimed", "compute"}


def test_printed_numbers_well_formed():
    ids = [e["id"] for e in H.PRINTED_NUMBERS]
    assert len(ids) == len(set(ids))
    for e in H.PRINTED_NUMBERS:
        assert REQUIRED <= set(e)
        assert e["source"] in (H.PAPER_000, H.PAPER_003)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in e["params"].items())
        H.tolerance(e["claimed"])


@pytest.mark.skipif(not PAPERS.exists(), reason="papers not available")
def test_claimed_strings_are_printed_in_the_papers():
    texts = {name: (PAPERS / name).read_text() for name in (H.PAPER_000, H.PAPER_003)}
    for e in H.PRINTED_NUMBERS:
        assert e["claimed"] in texts[e["source"]], e["id"]


def test_every_printed_number_gets_a_verdict():
    for e in H.PRINTED_NUMBERS:
        a = H.audit_printed(e)
        assert a["verdict"] in ("confirmed", "refuted"), (e["id"], a)
        assert H.check_printed(e) == a["verdict"]
        for name, alt in a["alternatives"].items():
            assert alt["verdict"] in ("confirmed", "refuted"), (e["id"], name)


def test_sec33_which_form_reproduces_the_table():
    """Finding: of the printed forms, only (3.12) with lambda = e^0.693 (not 2) reproduces
    the lambda = 2 row N = 1000 by rounding; no form reproduces N = 5000."""
    a = H.audit_printed(H.entry("000-s3.3-q-2-N1000"))
    ok = {n for n, d in a["alternatives"].items() if d["verdict"] == "confirmed"}
    assert a["verdict"] == "refuted" and len(ok) == 1 and next(iter(ok)).startswith("(3.12), lam = e^0.693")
    b = H.audit_printed(H.entry("000-s3.3-q-2-N5000"))
    assert b["verdict"] == "refuted" and all(d["verdict"] == "refuted" for d in b["alternatives"].values())
    # e^0.693 really differs from 2, and the two lambdas give disjoint brackets
    assert not H.sigma3_q(1000, 5, 2, "3.12").interval.overlaps(H.sigma3_q(1000, 5, "e^0.693", "3.12").interval)


def test_audit_regression_findings():
    verdicts = {e["id"]: H.check_printed(e) for e in H.PRINTED_NUMBERS}
    refuted = {k for k, v in verdicts.items() if v == "refuted"}
    assert {"000-s3.4-bound-N1000", "000-s3.4-L40-q-increase", "000-s4-sigma-local-L5",
            "003-s0.1-sigma-local", "003-s0.1-ci-0.26-lo", "003-s1.3-gain-25pct"} <= refuted
    assert {"000-s3.3-q-e2-N1000", "000-s4-q-suff-L40", "003-s0.1-q-0.19", "003-s1.3-q-k16",
            "003-s0.1-ci-0.28-lo"} <= set(verdicts) - refuted
