"""Homogeneous pairs under k-randomization (exactdp.reductions.kcopies): the monotone e_k
search against exact coarse-type enumeration and brute force (small N), against
the independent L = 1 polynomials (d = 1, large N), and its use by the
maximality-k checker at the papers' scale."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from exactdp.oracles import bruteforce
from exactdp.apps import conjectures as C
from exactdp.core.errors import CapacityError, InexactInputError, ParameterError
from exactdp.reductions.kcopies import KCopies, _least, kcopies, kcopies_eta
from exactdp.reductions.pairs import Pair, canonical_pair, eta_exact, reverse_canonical_pair


def _pair(N, L, z, w, forward, k):
    """000's pair (forward) or its reverse, base z^(N-1), changed vector z ^ w."""
    return Pair.homogeneous(N, L, z, z, z ^ w, k) if forward else Pair.homogeneous(N, L, z, z ^ w, z, k)


def _atoms(P, q):
    D, Dm = P.repeated()
    return sorted(r for r in bruteforce.law_of_R(D, Dm, q, L=P.L, check_neighbouring=False) if r >= 1)


@st.composite
def cases(draw):
    L = draw(st.integers(1, 3))
    k = draw(st.integers(2, 3))
    N = draw(st.integers(1, {1: 5, 2: 3, 3: 2}[L] if k == 2 else {1: 4, 2: 2, 3: 1}[L]))
    z = draw(st.integers(0, (1 << L) - 1))
    w = draw(st.integers(1, (1 << L) - 1))
    q = draw(st.sampled_from([Fraction(1, 4), Fraction(1, 3), Fraction(2, 7)]))
    P = _pair(N, L, z, w, draw(st.booleans()), k)
    # thresholds on the atoms of R (strict and inclusive differ there), 1 and beyond the largest
    atoms = _atoms(P, q)
    lam = draw(st.sampled_from(atoms + [Fraction(1), Fraction(3, 2), atoms[-1] + 1] if atoms else [Fraction(2)]))
    return P, q, lam, draw(st.booleans())


# N = 1 (empty base); 003's smallest reverse counterexample {0, 0} -> {0, 1} at k = 2;
# an atom with ties at k = 3; L = 3 with a weight-2 change
@example(c=(_pair(1, 2, 0, 3, True, 2), Fraction(1, 4), Fraction(3, 2), False))
@example(c=(_pair(2, 1, 0, 1, False, 2), Fraction(1, 4), Fraction(2), False))
@example(c=(_pair(2, 1, 1, 1, True, 3), Fraction(1, 3), Fraction(1), True))
@example(c=(_pair(2, 3, 5, 3, True, 2), Fraction(2, 7), Fraction(2), True))
@settings(max_examples=80, deadline=None)
@given(c=cases())
def test_kcopies_encloses_exact_enumeration(c):
    P, q, lam, inclusive = c
    exact = eta_exact(P, q, lam, None, inclusive)
    iv = kcopies_eta(P, q, lam, inclusive=inclusive)
    assert iv.contains(exact) and iv.width < Fraction(1, 10**20)


@pytest.mark.parametrize("forward", [True, False])
def test_kcopies_matches_bruteforce(forward):
    P = _pair(3, 2, 1, 3, forward, 2)
    D, Dm = P.repeated()
    law = bruteforce.law_of_R(D, Dm, Fraction(1, 4), L=2, check_neighbouring=False)
    for lam in (Fraction(1), Fraction(3, 2), Fraction(3)):
        for inc in (False, True):
            assert kcopies_eta(P, "1/4", lam, inclusive=inc).contains(bruteforce.eta_from_law(law, lam, inc))


@pytest.mark.parametrize("N,k,forward", [(300, 2, True), (300, 2, False), (120, 3, True), (500, 4, False)])
def test_kcopies_d1_agrees_with_l1_polynomials(N, k, forward):
    """A change of one bit at L = 5 is an L = 1 problem: exactdp.reductions.pairs' exact polynomials
    (an independent convolution) give the value exactly."""
    P5 = _pair(N, 5, 0, 1 << 3, forward, k)
    P1 = _pair(N, 1, 0, 1, forward, k)
    for lam in ("6/5", "3/2"):
        iv = kcopies_eta(P5, "0.2446", lam, tol=1e-30)
        assert iv.contains(eta_exact(P1, "0.2446", lam)) and iv.width < 1e-25


@pytest.mark.slow
def test_kcopies_paper_scale_reverse_beats_forward():
    """At N = 1000, L = 5, q = 0.2446, k = 2: 003's reverse pair has the larger eta at
    lambda = 6/5 (certified, disjoint enclosures) -- the maximality-k witness."""
    rev = kcopies_eta(_pair(1000, 5, 0, 31, False, 2), "0.2446", "6/5", tol=1e-12)
    assert 0.39967 < float(rev.lower) and rev.width < 1e-7
    # 000's forward pair at the same point is 0.3961963...: below rev.lower (the report run checks
    # it with its own certified enclosure; here the cheaper d = 4 forward pair, also below)
    fwd4 = kcopies_eta(_pair(1000, 5, 0, 15, True, 2), "0.2446", "6/5", tol=1e-12)
    assert fwd4.upper < rev.lower


def test_reduction_and_errors():
    assert kcopies(Pair.homogeneous(7, 4, 3, 3, 12, 2)) == KCopies(7, 2, 4, True)
    assert kcopies(Pair.homogeneous(7, 4, 3, 12, 3, 2)) == KCopies(7, 2, 4, False)
    assert kcopies(Pair.homogeneous(7, 4, 3, 1, 12, 2)) is None         # neither collection homogeneous
    base = [0] * 4
    base[0], base[1] = 2, 1
    assert kcopies(Pair(2, tuple(base), 0, 3, 2)) is None              # two base types
    with pytest.raises(ParameterError, match="homogeneous base"):
        kcopies_eta(Pair.homogeneous(7, 4, 3, 1, 12, 2), "1/4", 2)
    with pytest.raises(InexactInputError):
        kcopies_eta(_pair(3, 2, 0, 3, True, 2), 0.25, 2)
    with pytest.raises(ParameterError, match="tol"):
        kcopies_eta(_pair(3, 2, 0, 3, True, 2), "1/4", 2, tol=0)
    with pytest.raises(CapacityError, match="MAX_TILTS"):
        kcopies_eta(_pair(3, 5, 0, 31, True, 60), "1/4", 2)
    with pytest.raises(CapacityError, match="nodes"):
        kcopies_eta(_pair(400, 5, 0, 31, False, 2), "1/4", 2, max_nodes=10)


@pytest.mark.parametrize("eps", ["0", "1/3", "1", "3/2"])
@pytest.mark.parametrize("forward", [True, False])
def test_kcopies_eps_encloses_exact(eps, forward):
    """lam = e^eps as a ball: the search classifies with a rational no integer e_k can tie.
    At eps = 0 ties are possible and inclusive differs (which exposed, and now pins, the
    eps = 0 inclusive case of exactdp.reductions.pairs.eta_exact)."""
    P = _pair(3, 2, 0, 3, forward, 2)
    for inc in (False, True):
        exact = eta_exact(P, "1/4", None, Fraction(eps), inc)
        iv = kcopies_eta(P, "1/4", eps=eps, inclusive=inc)
        assert iv.contains(exact) and iv.width < Fraction(1, 10**20)
    assert eta_exact(P, "1/4", None, Fraction(0), True) == eta_exact(P, "1/4", Fraction(1), None, True) \
        > eta_exact(P, "1/4", Fraction(1), None, False)
    with pytest.raises(ParameterError, match="exactly one"):
        kcopies_eta(P, "1/4", 2, eps="1")


@settings(max_examples=200, deadline=None)
@given(hi=st.integers(-1, 40), cut=st.integers(0, 42), guess=st.integers(-5, 50))
def test_least_is_exact_from_any_guess(hi, cut, guess):
    calls = []

    def pred(x):
        assert 0 <= x <= hi
        calls.append(x)
        return x >= cut
    assert _least(pred, hi, guess) == min(max(cut, 0), hi + 1)


def test_maximality_k_checker_uses_kcopies_beyond_enumeration():
    r = C.check("maximality-k", N="60", L="5", q="0.2446", lam="6/5", k="2", variant="forward",
                family="homogeneous-base-pure")
    assert r["checked"] == 10 and r["undecided"] == 0
    assert r["holds"] is False and C.verify(r["certificate"])["ok"]
    r = C.check("maximality-k", N="60", L="5", q="0.2446", eps="1/5", k="2", variant="forward",
                family="homogeneous-base-pure")            # lam = e^(1/5) as a ball
    assert r["undecided"] == 0 and r["holds"] is False and C.verify(r["certificate"])["ok"]


# ------------------------------------------------------------------ delta: two searches

@pytest.mark.parametrize("fac", [canonical_pair, reverse_canonical_pair])
@pytest.mark.parametrize("N,L,k,q,lam", [(10, 3, 2, "1/4", 2), (6, 2, 3, "1/5", "3/2"),
                                         (12, 2, 2, "1/3", "5/4"), (4, 3, 4, "1/4", "6/5")])
def test_delta_is_the_exact_delta(fac, N, L, k, q, lam):
    """kcopies_delta = P_1[E] - lam P_2[E] contains the exact enumeration's delta, to ~1e-15,
    and for eps the enclosure over e^eps contains the exact values at both rational ends."""
    from exactdp.core.lam import exp_interval
    from exactdp.reductions.kcopies import kcopies_delta
    from exactdp.reductions.pairs import delta_exact
    P = fac(N, L, k)
    ex = delta_exact(P, q, lam)
    iv = kcopies_delta(P, q, lam)
    assert iv.contains(ex) and float(iv.width) < 1e-14
    e = exp_interval(Fraction(1, 3))
    iv = kcopies_delta(P, q, eps=Fraction(1, 3))
    assert iv.lower <= delta_exact(P, q, e.upper) and delta_exact(P, q, e.lower) <= iv.upper


@pytest.mark.parametrize("fac", [canonical_pair, reverse_canonical_pair])
def test_delta_second_search_law_and_side(fac):
    """The second search is the exact P_2[E] (the law under D from the enumeration, the same
    event R~ > lam): forward the null law above lam, reverse the changed user's law below 1/lam;
    the other law or the other side gives a different value (the test fails if either is wrong)."""
    from exactdp.reductions.kcopies import _event_mass, kcopies
    from exactdp.reductions.pairs import law_of_R
    P, q, lam = fac(10, 3, 2), Fraction(1, 4), Fraction(2)
    red = kcopies(P)
    ex = sum((w for r, w in law_of_R(P, q, under="D").items() if r > lam), Fraction(0))
    got = _event_mass(red, q, lam, None, changed=not red.forward, upper=red.forward)
    assert got.contains(ex)
    for changed, upper in ((red.forward, red.forward), (not red.forward, not red.forward)):
        other = _event_mass(red, q, lam, None, changed=changed, upper=upper)
        assert not other.contains(ex)
