"""``PrivacyRatio.eta(refine=True)``: the intersection of every certified strategy that
runs for 000's pair (tree or Fourier, and methods' kernel / lattice / Chernoff) still
contains the exact value (brute force, Fractions), in both directions."""

from fractions import Fraction

import pytest

from exactdp import from_pair, from_randomized_response
from exactdp.oracles import bruteforce as bf


@pytest.mark.parametrize("direction", ["forward", "reverse"])
@pytest.mark.parametrize("N,L,q,lam", [(6, 2, "1/4", Fraction(3, 2)), (7, 3, "1/3", Fraction(2)),
                                       (5, 2, "2/7", Fraction(6, 5))])
def test_refined_contains_bruteforce(direction, N, L, q, lam):
    law = bf.canonical(N, L, Fraction(q), direction)
    d = from_randomized_response(N, L, q, direction)
    iv = d.eta(lam=lam, digits=12, refine=True)
    assert iv.contains(law.eta(lam))
    plain = d.eta(lam=lam, digits=12)
    assert iv.width <= plain.width
    assert d.cache.last_method.count("+") >= 1          # more than one strategy ran


def test_refine_on_a_general_pair_uses_every_method():
    d = from_pair({"00": 3, "01": 1}, {"00": 3, "11": 1}, q="1/4")
    iv = d.eta(lam=2, refine=True)
    assert iv.is_exact and iv.lower == Fraction(12329, 32768)
