"""Bases of two types with one minority user (exactdp.reductions.minority): the sandwich
against exact coarse-type enumeration, and its use by the checkers."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from exactdp.apps import conjectures as C
from exactdp.core.errors import ParameterError
from exactdp.reductions.minority import minority_eta, one_minority
from exactdp.reductions.pairs import Pair, eta_exact


def _pair(N, L, z, y, x, xm):
    base = [0] * (1 << L)
    base[z] += N - 2
    base[y] += 1
    return Pair(L, tuple(base), x, xm)


@st.composite
def cases(draw):
    L = draw(st.integers(1, 2))
    N = draw(st.integers(3, 5))
    t = st.integers(0, (1 << L) - 1)
    z, y, x, xm = draw(t), draw(t), draw(t), draw(t)
    if y == z:
        y = z ^ 1
    if x == xm:
        xm = x ^ 1
    lam = draw(st.sampled_from([Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3)]))
    return _pair(N, L, z, y, x, xm), lam, draw(st.booleans()), draw(st.sampled_from(["1/4", "1/3"]))


# the small two-type maximality counterexample {0, 1, 0} -> {0, 1, 1}, and a flipped base
@example(c=(_pair(3, 1, 0, 1, 0, 1), Fraction(3, 2), False, "1/4"))
@example(c=(_pair(4, 2, 3, 1, 0, 3), Fraction(2), True, "1/3"))
@given(c=cases())
@settings(max_examples=40)
def test_sandwich_encloses_exact_eta(c):
    P, lam, inclusive, q = c
    exact = eta_exact(P, q, lam, inclusive=inclusive)
    assert minority_eta(P, q, lam, inclusive=inclusive, h="1/32").contains(exact)
    assert minority_eta(P, q, lam, inclusive=inclusive, method="chernoff").contains(exact)


def test_one_minority_detection():
    assert one_minority(_pair(10, 2, 0, 3, 0, 1)) == (0, 3)
    assert one_minority(_pair(10, 2, 2, 1, 0, 1)) == (2, 1)
    P = Pair(2, (8, 0, 0, 0), 0, 3)                       # homogeneous base
    assert one_minority(P) is None
    assert one_minority(Pair(2, (6, 2, 0, 0), 0, 3)) is None   # two types, no single user
    with pytest.raises(ParameterError, match="z\\^\\(N-2\\) \\+ y"):
        minority_eta(P, "1/4", 2)


def test_bad_options():
    P = _pair(10, 2, 0, 3, 0, 1)
    with pytest.raises(ParameterError, match="method must be one of"):
        minority_eta(P, "1/4", 2, method="exact")
    with pytest.raises(ParameterError, match="h must be a positive"):
        minority_eta(P, "1/4", 2, h="0")


@pytest.mark.slow
def test_paper_scale_minority_pair_decided():
    """N = 1000, L = 5, q = 0.2446, lambda = 2: base 998 x 00000 + 10000 with
    11111 -> 01110 -- out of reach of exact enumeration, and the Chernoff
    bound alone (about 0.0071) does not separate it from the worst of 000's
    pair and its reverse; the lattice sandwich does (certified)."""
    ev = C._Evaluator("0.2446", Fraction(2), None, False, tol=1e-8, max_nodes=50_000)
    _, ref = C._refs(1000, 5, 1, "worst", ev)
    P = _pair(1000, 5, 0, 1, 31, 0b01110)
    assert C._cmp(ev(P), ref) == "undecided"           # Chernoff only
    no_refine = C._Evaluator("0.2446", Fraction(2), None, False, tol=1e-8, max_nodes=50_000, refine=False)
    assert no_refine.decide(P, ref)[1] == "undecided"
    cand, verdict = ev.decide(P, ref)
    assert verdict == "ok" and cand.upper <= ref.lower and cand.lower > 0
