"""Export to dp_accounting (exactdp.law.export): domination, tightness, composition."""

import math
import sys
from fractions import Fraction as F

import pytest

from exactdp.oracles import bruteforce as bf
from exactdp import from_randomized_response

pytest.importorskip("dp_accounting")


def exact_composed_delta(law_a, law_b, lam):
    """delta(lam) of two independent releases: E[(1 - lam/(R1 R2))+] under the sampling laws."""
    return sum(pa * pb * max(1 - lam / (ra * rb), 0)
               for ra, pa in law_a.items() for rb, pb in law_b.items())


def test_epsilon_dominates_and_is_close():
    d = from_randomized_response(1000, 1, "1/4", "worst")
    pld = d.to_dp_accounting()
    e = pld.get_epsilon_for_delta(1e-6)
    exact = d.epsilon(delta="1e-6", digits=8)
    assert e >= exact.upper
    assert e <= float(exact.upper) * 1.01


def test_single_direction_symmetric():
    d = from_randomized_response(60, 2, "1/4", "forward")
    pld = d.to_dp_accounting(bins=3000)
    for eps in (0.3, 0.8):   # deltas well above the tail mass 1e-14
        exact = d.delta(eps=F(eps), digits=10)
        got = pld.get_delta_for_epsilon(eps)
        assert got >= exact.upper
        assert got <= float(exact.upper) * 1.01 + 1e-12


@pytest.mark.parametrize("N,L,q", [(4, 2, F(1, 4)), (6, 1, F(1, 5))])
def test_two_fold_composition_dominates_exact(N, L, q):
    d = from_randomized_response(N, L, q, "worst")
    pld = d.to_dp_accounting(value_discretization_interval=1e-5, bins=1500)
    comp = pld.compose(pld)
    laws = {s: bf.canonical_law(N, L, q, s) for s in ("forward", "reverse")}
    for eps in (0.1, 0.5, 1.0):
        lam_hi = F(math.exp(eps)) * (1 + F(1, 10**12))   # >= e^eps
        lam_lo = F(math.exp(eps)) * (1 - F(1, 10**12))   # <= e^eps
        ex_lo = max(exact_composed_delta(laws[s], laws[s], lam_hi) for s in laws)
        ex_hi = max(exact_composed_delta(laws[s], laws[s], lam_lo) for s in laws)
        got = comp.get_delta_for_epsilon(eps)
        assert got >= ex_lo
        assert got <= float(ex_hi) * 1.01 + 1e-12


def test_missing_dependency_message(monkeypatch):
    from exactdp.law import export
    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    d = from_randomized_response(5, 1, "1/4", "forward")
    with pytest.raises(ImportError, match=r"pip install 'exactdp\[accounting\]'"):
        export.to_dp_accounting(d)
