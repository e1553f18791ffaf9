"""The blanket lemma with the exact MGF (exactdp.apps.blanket_mgf)."""

import math
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.apps.blanket_mgf import blanket_mgf_delta, blanket_mgf_epsilon
from exactdp.apps.peers import blanket_delta, exp_eps0_rr


@pytest.mark.parametrize("n,L,q,lam", [(10**3, 1, F(1, 4), F(11, 10)), (10**5, 1, F(1, 4), F(101, 100)),
                                       (10**4, 2, F(1, 4), F(6, 5)), (10**3, 5, F(1, 4), F(3, 2)),
                                       (10**5, 5, F(1, 4), F(6, 5)), (10**6, 3, F(1, 3), F(21, 20))])
def test_below_both_published_blanket_forms(n, L, q, lam):
    mine = blanket_mgf_delta(n, L, q, lam)
    for method in ("hoeffding", "bennett"):
        pub = blanket_delta(n, L, q, lam, method=method)
        assert mine.upper < pub.lower or pub.lower == 1 and mine.upper < 1


@pytest.mark.parametrize("N,q,lam", [(300, F(1, 4), F(13, 10)), (200, F(1, 3), F(3, 2)),
                                     pytest.param(1000, F(1, 4), F(6, 5), marks=pytest.mark.slow)])
def test_dominates_the_true_worst_pair_L1(N, q, lam):
    from exactdp.apps.allpairs import worst_delta
    worst, _ = worst_delta(N, q, lam)
    mine = blanket_mgf_delta(N, 1, q, lam)
    assert 0 < worst <= mine.upper < 1


@pytest.mark.parametrize("L,lam", [(3, F(3, 2)), (5, F(2))])
def test_dominates_the_canonical_pair_L_gt_1(L, lam):
    from exactdp import from_randomized_response
    N = 400
    d = from_randomized_response(N, L, "1/4", "worst").delta(lam=lam, digits=4)
    mine = blanket_mgf_delta(N, L, F(1, 4), lam)
    assert d.lower <= mine.upper < 1


def test_ball_contains_independent_mpmath_value():
    """The certified value at its t, recomputed with mpmath from the closed form
    ((1 - g + g m(t))^n - (1 - g)^n) / (g n e t), m(t) summed over (a, b) directly."""
    from exactdp.apps import blanket_mgf as bm
    n, L, q, lam = 5000, 3, F(1, 4), F(7, 5)
    g = (2 * q) ** L
    best = F(0)
    for h in range(1, L + 1):
        sup = bm._support(L, q, lam, h)
        t = F(bm._best_t(n, float(g), sup)).limit_denominator(2**40)
        iv = bm._certified_bound(n, g, sup, t, 128)
        with mpmath.workdps(60):
            p = 1 - q
            m = mpmath.mpf(0)
            for a in range(h + 1):
                for b in range(L - h + 1):
                    w = mpmath.mpf(math.comb(h, a) * math.comb(L - h, b)) / 2**L
                    l = (2 * p) ** L * (q / p) ** b * ((q / p) ** a - lam * (q / p) ** (h - a))
                    m += w * mpmath.exp(mpmath.mpf(t.numerator) / t.denominator
                                        * mpmath.mpf(l.numerator) / l.denominator)
            G = mpmath.mpf(g.numerator) / g.denominator
            T = mpmath.mpf(t.numerator) / t.denominator
            val = ((1 - G + G * m) ** n - (1 - G) ** n) / (G * n * mpmath.e * T)
        assert float(iv.lower) <= float(val) * (1 + 1e-12) and float(val) <= float(iv.upper) * (1 + 1e-12)
        best = max(best, iv.upper)
    assert blanket_mgf_delta(n, L, q, lam).upper == best     # the max over h


def test_support_is_a_distribution_with_mean_one_minus_lam():
    from exactdp.apps import blanket_mgf as bm
    for L, h, lam in [(1, 1, F(2)), (4, 2, F(3, 2)), (5, 5, F(6, 5))]:
        sup = bm._support(L, F(1, 4), lam, h)
        assert sum(w for w, _ in sup) == 1
        assert sum(w * v for w, v in sup) == 1 - lam        # E l = 1 - e^eps (Balle et al.)


def test_limits_and_epsilon():
    assert blanket_mgf_delta(100, 2, F(1, 4), exp_eps0_rr(2, F(1, 4))).upper == 0
    e = blanket_mgf_epsilon(10**5, 5, F(1, 4), F(1, 10**6), rel=1e-4)
    assert blanket_mgf_delta(10**5, 5, F(1, 4), F(math.exp(float(e.upper)) * (1 + 1e-9))).upper <= F(1, 10**6)


@pytest.mark.parametrize("q", [F(1, 4), F(2, 5), F(1, 20)])
def test_dominates_the_true_worst_pair_small_N_sweep(q):
    """Evidence for the lemma as implemented: the exact all-pairs maximum (L = 1) never
    exceeds the bound over N = 2..30 and four lam (the bound is not vacuous there)."""
    from exactdp.apps.allpairs import worst_delta
    closest = 0.0
    for N in range(2, 31):
        for lam in (F(1), F(6, 5), F(3, 2), F(5)):
            if lam * q >= 1 - q:
                continue
            w, _ = worst_delta(N, q, lam)
            b = blanket_mgf_delta(N, 1, q, lam).upper
            assert w <= b, (N, lam)
            if b < 1:
                closest = max(closest, float(w / b))
    assert closest > 0.3          # the comparison is not against a vacuous bound


def _doc_rows():
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "docs" / "peers.md").read_text()
    sup = {"²": 2, "³": 3, "⁵": 5, "⁸": 8}
    return [(10 ** sup[e], int(L), v) for e, L, v in
            re.findall(r"^\| 10([²³⁵⁸]) \| (\d) \| ([0-9.]+)(?: \(no amplification\))? \|", text, re.M)]


def test_docs_table_present():
    assert len(_doc_rows()) == 5


@pytest.mark.parametrize("n,L,printed", [pytest.param(*r, marks=[pytest.mark.slow] if r[0] > 10**5 else [])
                                         for r in _doc_rows()])
def test_docs_table_values(n, L, printed):
    """docs/peers.md's exact-MGF column (upper ends, rounded up at the printed digits)."""
    e = blanket_mgf_epsilon(n, L, F(1, 4), F(1, 10**6), rel=1e-7)
    dec = len(printed.split(".")[1])
    assert F(printed) - F(1, 10**dec) <= e.upper <= F(printed) + F(1, 10**dec)
