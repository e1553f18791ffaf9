"""Bases of two types at Hamming distance one (exactdp.reductions.twotype): conditioning on
the special column against exact coarse-type enumeration, against the
independent minority sandwich, and its use by the checkers."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from exactdp.apps import conjectures as C
from exactdp.core.errors import CapacityError, InexactInputError, ParameterError
from exactdp.reductions.minority import minority_eta
from exactdp.reductions.pairs import Pair, eta_exact
from exactdp.reductions.twotype import DistanceOne, distance_one, twotype_eta


def _pair(L, z, s, n_y, N, x, xm):
    base = [0] * (1 << L)
    base[z] += N - 1 - n_y
    base[z ^ (1 << s)] += n_y
    return Pair(L, tuple(base), x, xm)


@st.composite
def cases(draw):
    L = draw(st.integers(1, 3))
    N = draw(st.integers(3, 6 if L < 3 else 4))
    t = st.integers(0, (1 << L) - 1)
    z, x, xm = draw(t), draw(t), draw(t)
    s = draw(st.integers(0, L - 1))
    n_y = draw(st.integers(1, N - 2))
    lam = draw(st.sampled_from([Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(3)]))
    return _pair(L, z, s, n_y, N, x, xm), lam, draw(st.booleans()), draw(st.sampled_from(["1/4", "1/3"]))


# the smallest two-type maximality counterexample {0, 1, 0} -> {0, 1, 1}; a shared bit (e = 1)
# with the changed user's special bit flipped; x == x_m (R = 1); lambda = 1 with ties
@example(c=(_pair(1, 0, 0, 1, 3, 0, 1), Fraction(3, 2), False, "1/4"))
@example(c=(_pair(3, 5, 1, 2, 4, 0b110, 0b011), Fraction(2), True, "1/3"))
@example(c=(_pair(2, 1, 1, 1, 4, 2, 2), Fraction(1), True, "1/4"))
@example(c=(_pair(2, 0, 0, 2, 5, 1, 2), Fraction(1), False, "1/3"))
@given(c=cases())
@settings(max_examples=60)
def test_encloses_exact_eta(c):
    P, lam, inclusive, q = c
    exact = eta_exact(P, q, lam, inclusive=inclusive)
    iv = twotype_eta(P, q, lam, inclusive=inclusive, tol=1e-15, mass_tol=1e-15)
    assert iv.contains(exact)
    assert iv.width < Fraction(1, 10**12)


@pytest.mark.slow
def test_agrees_with_the_minority_sandwich():
    """One minority user at N = 40, L = 5 (beyond enumeration): the special-column
    conditioning and the lattice sandwich of exactdp.reductions.minority are independent
    routes; both enclosures must contain the same value."""
    P = _pair(5, 0, 0, 1, 40, 0, 0b11111)
    iv = twotype_eta(P, "0.2446", 2, tol=1e-12, mass_tol=1e-12)
    assert iv.width < Fraction(1, 10**8)
    sw = minority_eta(P, "0.2446", 2, h="1/64")
    assert sw.contains(iv)
    assert sw.width > 100 * iv.width


def test_distance_one_detection():
    assert distance_one(_pair(3, 0, 2, 3, 9, 0b001, 0b110)) == DistanceOne(5, 3, 0, 1, 1, 1, 0)
    # z = 110, y = 111: flipping z maps x = 000 to 110 and x_m = 001 to 111
    assert distance_one(_pair(3, 6, 0, 1, 5, 0b000, 0b001)) == DistanceOne(3, 1, 0, 1, 0, 0, 2)
    assert distance_one(Pair(2, (4, 0, 0, 0), 0, 3)) is None                 # homogeneous base
    assert distance_one(Pair(2, (2, 0, 0, 2), 0, 3)) is None                 # distance two
    assert distance_one(Pair(2, (2, 1, 1, 0), 0, 3)) is None                 # three types
    assert distance_one(Pair(2, (2, 2, 0, 0), 0, 3, k=2)) is None            # k-randomization
    with pytest.raises(ParameterError, match="Hamming distance one"):
        twotype_eta(Pair(2, (2, 0, 0, 2), 0, 3), "1/4", 2)


def test_bad_input_and_capacity():
    P = _pair(2, 0, 0, 2, 6, 0, 3)
    with pytest.raises(ParameterError, match="tol and mass_tol"):
        twotype_eta(P, "1/4", 2, tol=0)
    with pytest.raises(ParameterError, match="lam"):
        twotype_eta(P, "1/4", "1/2")
    with pytest.raises(InexactInputError):
        twotype_eta(P, 0.25, 2)                                          # floats are refused
    big = _pair(5, 0, 0, 1, 1000, 0, 31)
    with pytest.raises(CapacityError, match="max_n"):
        twotype_eta(big, "0.2446", 2)


def test_checker_family_two_type_d1():
    """The family covers every distance-one base up to the column-1 flip and bit
    permutations; at N = 6, L = 3 the checker's verdicts agree with brute force."""
    pairs = list(C._family_pairs(6, 3, 1, family="two-type-d1"))
    assert all(distance_one(P) is not None for P in pairs)
    assert {distance_one(P).n_y for P in pairs} == {1, 2}
    r = C.check("maximality", N="6", L="3", q="1/4", lam="2", variant="worst", family="two-type-d1")
    assert r["checked"] == len(pairs) and r["undecided"] == 0
    assert r["holds"] is False
