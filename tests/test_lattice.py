"""Enumeration-free bounds (exactdp.engine.lattice): the dominance bracket and the
Chernoff bound against exact Fraction convolution, and as routes for
homogeneous-base pairs against exact coarse-type enumeration and the kernel."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from exactdp.apps import conjectures as C
from exactdp.reductions import pairs as PR
from exactdp.core.errors import CapacityError, ParameterError
from exactdp.core.interval import Interval
from exactdp.engine.lattice import Group, chernoff_upper, lattice_tail
from exactdp.reductions.pairs import HomogeneousPair, eta_exact, hom_eta


def exact_law(groups):
    law = {Fraction(0): Fraction(1)}
    for g in groups:
        for _ in range(g.n):
            out = defaultdict(Fraction)
            for z, p in law.items():
                for v, r in zip(g.values, g.probs):
                    out[z + v] += p * r
            law = out
    return law


def exact_tail(groups, t, inclusive):
    return sum(p for z, p in exact_law(groups).items() if (z >= t if inclusive else z > t))


@st.composite
def groups(draw):
    out = []
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(1, 4))
        vals = draw(st.lists(st.fractions(-20, 20, max_denominator=9), min_size=k, max_size=k))
        raw = draw(st.lists(st.integers(0, 6), min_size=k, max_size=k))
        if not any(raw):
            raw[0] = 1
        out.append(Group(draw(st.integers(0, 7)), tuple(vals), tuple(Fraction(r, sum(raw)) for r in raw)))
    return out


# the threshold exactly on an atom sum, a coarse grid, and dropped tails
@example(gs=[Group(3, (Fraction(-1), Fraction(2)), (Fraction(2, 3), Fraction(1, 3)))],
         t=Fraction(1), inclusive=True, hden=1, tol=0.0)
@example(gs=[Group(5, (Fraction(-1, 3), Fraction(5, 7)), (Fraction(1, 2), Fraction(1, 2)))],
         t=Fraction(0), inclusive=False, hden=1, tol=1e-9)
@given(gs=groups(), t=st.fractions(-10, 10, max_denominator=4), inclusive=st.booleans(),
       hden=st.integers(1, 16), tol=st.sampled_from([0.0, 1e-9]))
@settings(max_examples=60)
def test_lattice_encloses_exact_tail(gs, t, inclusive, hden, tol):
    exact = exact_tail(gs, t, inclusive)
    iv = lattice_tail(gs, h=Fraction(1, hden), threshold=t, inclusive=inclusive, tol=tol)
    assert iv.contains(exact)
    assert chernoff_upper(gs, threshold=t) >= exact_tail(gs, t, True)


def test_on_grid_values_give_exact_up_to_rounding():
    g = Group(40, (Fraction(-1), Fraction(1, 2), Fraction(6)), (Fraction(7, 10), Fraction(1, 4), Fraction(1, 20)))
    exact = exact_tail([g], 0, False)
    iv = lattice_tail([g], h=Fraction(1, 2), tol=0)
    assert iv.contains(exact) and iv.width < Fraction(1, 2**60)


def test_width_shrinks_with_h():
    g = Group(60, (Fraction(-1), Fraction(1, 3), Fraction(22, 7)), (Fraction(3, 5), Fraction(3, 10), Fraction(1, 10)))
    exact = exact_tail([g], 0, False)
    w = []
    for hden in (2, 8, 32):
        iv = lattice_tail([g], h=Fraction(1, hden))
        assert iv.contains(exact)
        w.append(iv.width)
    assert w[0] > w[1] > w[2] and w[2] < Fraction(1, 20)


def test_bad_input():
    g = Group(3, (Fraction(-1), Fraction(1)), (Fraction(1, 2), Fraction(1, 2)))
    with pytest.raises(ParameterError, match="h must be"):
        lattice_tail([g], h=0)
    with pytest.raises(ParameterError, match="tol"):
        lattice_tail([g], h=1, tol=1)
    with pytest.raises(ParameterError, match="probs"):
        Group(3, (Fraction(0), Fraction(1)), (Fraction(2, 3), Fraction(2, 3)))
    with pytest.raises(ParameterError, match="n must be"):
        Group(-1, (Fraction(0),), (Fraction(1),))
    with pytest.raises(ParameterError, match="probs"):
        Group(2, (Fraction(0),), (Fraction(0),))
    big = Group(200, (Fraction(-1), Fraction(1)), (Fraction(1, 2), Fraction(1, 2)))
    with pytest.raises(CapacityError, match="coarser h"):
        lattice_tail([big], h=Fraction(1, 64), max_length=1000)


def test_intersect_refuses_disjoint_enclosures():
    with pytest.raises(ArithmeticError, match="disjoint"):
        Interval(Fraction(0), Fraction(1, 3)).intersect(Interval(Fraction(1, 2), Fraction(1)))


@pytest.mark.parametrize("bce", [(0, 2, 0), (2, 0, 0), (1, 1, 0), (0, 1, 1), (1, 0, 2), (1, 2, 1)])
@pytest.mark.parametrize("lam,inclusive", [(Fraction(3, 2), False), (Fraction(2), True), (Fraction(3), False)])
def test_hom_eta_methods_enclose_exact(bce, lam, inclusive):
    H = HomogeneousPair(4, *bce)
    exact = eta_exact(H.pair(), "1/4", lam, inclusive=inclusive)
    lat = hom_eta(H, "1/4", lam=lam, inclusive=inclusive, method="lattice", h="1/32")
    ch = hom_eta(H, "1/4", lam=lam, inclusive=inclusive, method="chernoff")
    ker = hom_eta(H, "1/4", lam=lam, inclusive=inclusive, tol=1e-30)
    assert lat.contains(exact) and ch.contains(exact) and ker.contains(exact)
    assert ker.intersect(lat).intersect(ch).contains(exact)


def test_hom_eta_lattice_with_eps():
    H = HomogeneousPair(5, 0, 2, 1)
    lo = eta_exact(H.pair(), "1/3", Fraction(2))        # e^(7/10) < 2
    hi = eta_exact(H.pair(), "1/3", Fraction(2, 1) - Fraction(1, 100))
    iv = hom_eta(H, "1/3", eps=Fraction(7, 10), method="lattice", h="1/64")
    exact = eta_exact(H.pair(), "1/3", eps=Fraction(7, 10))
    assert iv.contains(exact) and lo <= exact <= hi


def test_hom_eta_method_errors():
    H = HomogeneousPair(5, 0, 2, 1)
    with pytest.raises(ParameterError, match="method must be one of"):
        hom_eta(H, "1/4", lam=2, method="fft")
    with pytest.raises(ParameterError, match="needs the grid step h"):
        hom_eta(H, "1/4", lam=2, method="lattice")
    with pytest.raises(ParameterError, match="h must be a positive"):
        hom_eta(H, "1/4", lam=2, method="lattice", h="-1/4")


def test_lattice_route_agrees_with_kernel_at_moderate_n():
    # two independent certified routes for a mixed pair must overlap
    H = HomogeneousPair(60, 0, 2, 1)
    ker = hom_eta(H, "1/4", lam=2, tol=1e-12)
    lat = hom_eta(H, "1/4", lam=2, method="lattice", h="1/128")
    assert ker.overlaps(lat) and float(lat.width) < 0.05 * float(lat.upper)


@pytest.mark.slow
def test_paper_scale_pair_decided_by_refinement():
    """(b, c, e) = (0, 3, 2) at N = 1000, L = 5, q = 0.2446, lambda = 2: beyond
    the kernel's node budget, decided against the worst of 000's pair and its
    reverse by the Chernoff bound and the lattice bracket."""
    ev = C._Evaluator("0.2446", Fraction(2), None, False, tol=1e-8, max_nodes=20_000)
    refs, ref = C._refs(1000, 5, 1, "worst", ev)
    P = PR.Pair.homogeneous(1000, 5, 0, 0b00011, 0b11111)
    assert HomogeneousPair.of(P) == HomogeneousPair(1000, 0, 3, 2)
    assert ev(P) is None                         # the kernel alone: over budget
    cand, verdict = ev.decide(P, ref)
    assert verdict == "ok" and cand.upper <= ref.lower
