"""One model: ``from_pair`` against ``from_randomized_response`` and the brute force.

Routes that agree independently: 000's pair given as mappings (in any bit-flipped
form) lands on the same distribution object as ``from_randomized_response``; a
random small general pair's eta / delta / sf / cdf / mean equal the brute-force
sums over every histogram (``exactdp.oracles.bruteforce``, Fractions).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp.oracles import bruteforce
from exactdp import from_pair, from_randomized_response
from exactdp.core.errors import ParameterError
from exactdp.model.pair import Pair, canonical_pair, reverse_canonical_pair
from strategies import neighbouring_pairs, qs


def _bits(v) -> str:
    return "".join(map(str, v))


def _mapping(D) -> dict:
    return dict(Counter(_bits(v) for v in D))


@pytest.mark.parametrize("N,L,q", [(1, 2, "1/3"), (3, 2, "1/4"), (5, 3, "2/7"), (40, 4, "0.2446")])
@pytest.mark.parametrize("direction", ["forward", "reverse"])
def test_from_pair_is_from_randomized_response_on_000s_pair(N, L, q, direction):
    D = {"0" * L: N}
    D_m = {"0" * L: N - 1, "1" * L: 1} if N > 1 else {"1" * L: 1}
    a = from_pair(D, D_m, q=q, direction=direction)
    b = from_randomized_response(N, L, q, direction)
    assert a == b
    assert a.eta(lam=2) == b.eta(lam=2) and a.delta(eps="1/2") == b.delta(eps="1/2")


def test_bit_flipped_and_padded_forms_are_recognised():
    # flip every column: base 1^L, x = 1^L, x_m = 0^L is still 000's pair
    a = from_pair({"111": 4}, {"111": 3, "000": 1}, q="1/4")
    assert a == from_randomized_response(4, 3, "1/4")
    # constant columns drop out: x and x_m agree in the last bit
    b = from_pair({"000": 4}, {"000": 3, "110": 1}, q="1/4")
    assert b == from_randomized_response(4, 2, "1/4")
    # 003's reverse pair
    c = from_pair({"00": 3, "11": 1}, {"00": 4}, q="1/4")
    assert c == from_randomized_response(4, 2, "1/4", "reverse")


def test_pair_at_deployment_scale_is_a_few_integers():
    P = canonical_pair(10**9, 64)
    assert P.base == ((0, 10**9 - 1),) and P.canonical_form() == ("forward", 10**9, 64)
    assert reverse_canonical_pair(10**7, 40).canonical_form() == ("reverse", 10**7, 40)
    d = from_pair(P, q="0.35")
    assert d.choose_method() == "fourier"


def test_dense_and_sparse_bases_are_one_pair():
    assert Pair(2, (3, 0, 1, 0), 0, 3) == Pair(2, ((0, 3), (2, 1)), 0, 3)
    assert Pair(2, (3, 0, 1, 0), 0, 3).counts() == {0: 3, 2: 1}


@settings(deadline=None, max_examples=40)
@given(case=neighbouring_pairs(max_n=4, max_l=3), q=qs(), lam=st.sampled_from(["1", "3/2", "2", "5"]),
       inclusive=st.booleans())
@example(case=(2, [(0, 0), (0, 1), (1, 1)], [(0, 0), (0, 1), (1, 0)]), q=Fraction(1, 4), lam="2",
         inclusive=False)
@example(case=(1, [(0,), (1,)], [(0,), (0,)]), q=Fraction(1, 3), lam="2", inclusive=True)
def test_from_pair_equals_bruteforce_on_general_pairs(case, q, lam, inclusive):
    L, D, D_m = case
    d = from_pair(_mapping(D), _mapping(D_m), q=q)
    lam = Fraction(lam)
    want = bruteforce.eta(D, D_m, q, lam, inclusive)
    assert d.eta(lam=lam, inclusive=inclusive).contains(want)
    assert d.delta(lam=lam).contains(bruteforce.delta(D, D_m, q, lam))
    law = bruteforce.law_of_R(D, D_m, q)
    assert d.sf(Fraction(1, 2)).contains(sum(w for r, w in law.items() if r > Fraction(1, 2)))
    assert d.cdf(lam).contains(1 - bruteforce.eta_from_law(law, lam))
    if d.direction == "pair":
        assert d.mean() == bruteforce.mean_R(law)


def test_general_pair_methods_agree_and_intersect():
    from exactdp.reductions import methods
    P = Pair.from_mapping({"000": 5, "001": 1}, {"000": 5, "111": 1})
    want = bruteforce.eta(*P.collections(), "1/4", 2)
    ivs = {m: methods.eta(P, "1/4", lam=2, method=m) for m in methods.supported(P)}
    assert set(ivs) >= {"exact", "kernel", "lattice", "chernoff"}
    assert all(iv.contains(want) for iv in ivs.values())
    assert methods.eta(P, "1/4", lam=2, refine=True).contains(want)


@pytest.mark.parametrize("D,D_m,msg", [
    ({"00": 2}, {"11": 2}, "exactly one user"),
    ({"00": 2}, {"00": 3}, "D has 2 vectors but D_m has 3"),
    ({"0x": 1}, {"00": 1}, "string of 0s and 1s"),
    ({"00": 1}, {"000": 1}, "length"),
])
def test_bad_pairs_are_one_line_errors(D, D_m, msg):
    with pytest.raises(ParameterError, match=msg):
        from_pair(D, D_m, q="1/4")


def test_method_that_does_not_apply_says_what_does():
    from exactdp.reductions import methods
    P = Pair.from_mapping({"00": 2, "01": 1, "11": 1}, {"00": 2, "01": 1, "10": 1})
    with pytest.raises(ParameterError, match="supports: exact"):
        methods.eta(P, "1/4", lam=2, method="kernel")
