"""proofs/k_leveling.py: the no-leveling bound of 000 §6.1 against exact and certified eta."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from exactdp.oracles.proofs import load_script

K = load_script("k_leveling")


def test_e_squared_bound():
    assert K.e_upper() ** 2 < Fraction(73891, 10000)
    assert Fraction(73891, 10000) - K.e_upper() ** 2 < Fraction(1, 10**4)     # and not vacuous
    assert K.e_upper() > Fraction(2718281828, 10**9)


@pytest.mark.parametrize("case", [(2, 2, 2, Fraction(1, 5), Fraction(2)), (1, 1, 4, Fraction(1, 4), Fraction(3, 2))])
def test_tiny_exact_check(case):
    ok, why = K.tiny_check(*case)
    assert ok, why


def test_tiny_check_can_fail():
    # a variance understated tenfold breaks Cantelli's bound at some threshold
    ok, why = K.tiny_check(2, 2, 2, Fraction(1, 5), Fraction(2), var_scale=Fraction(1, 10))
    assert not ok and "Cantelli" in why


@settings(max_examples=30, deadline=None)
@given(q=st.fractions(Fraction(1, 100), Fraction(49, 100)), k=st.integers(1, 10**9))
@example(q=Fraction(9, 25), k=21_963_934)
def test_bounds_monotone(q, k):
    """The level-sum bound rises with k and falls with q; the ratio bound rises with k."""
    lam, N, d = K.lam_upper(), 10**7, 40
    b = K.level_sum_eta_lower(k, q, N, d, lam)
    assert K.level_sum_eta_lower(k + 1, q, N, d, lam) >= b
    assert K.level_sum_eta_lower(k, q + Fraction(1, 1000), N, d, lam) <= b
    if k < 10**6:
        assert K.ratio_eta_lower(2 * k, q, N, d, lam) >= K.ratio_eta_lower(k, q, N, d, lam)


def test_k0_is_least():
    lam = K.lam_upper()
    for q0 in K.Q0S:
        k0 = K.k0(q0, 10**7, 40, lam)
        assert K.level_sum_eta_lower(k0, q0, 10**7, 40, lam) > Fraction(1, 100)
        assert K.level_sum_eta_lower(k0 - 1, q0, 10**7, 40, lam) <= Fraction(1, 100)


@pytest.mark.parametrize("N,L,k,q", [(5, 2, 24, "0.3"), (3, 1, 40, "0.3")])
def test_below_the_certified_eta(N, L, k, q):
    """The Cantelli lower bounds never exceed the certified eta of the k-copies tree engine."""
    from exactdp import from_pair
    from exactdp.model.pair import canonical_pair
    lo = Fraction(from_pair(canonical_pair(N, L, k), q=q).eta(2, digits=6).lower)
    qq = Fraction(q)
    for bound in (K.ratio_eta_lower(k, qq, N, L, Fraction(2)), K.level_sum_eta_lower(k, qq, N, L, Fraction(2))):
        assert bound <= lo
    assert K.ratio_eta_lower(k, qq, N, L, Fraction(2)) > Fraction(1, 10)   # the comparison is not vacuous


def test_readme_quotes_the_proved_thresholds():
    from pathlib import Path
    text = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    nums = K.numbers()
    assert f"q = 0.36 for every k ≥ {nums['K_ratio']['9/25']:,}" in text
    assert f"every q ≤ 0.45 once k ≥ {nums['k0']['9/20']:,}" in text
