"""The block kernel (independent blocks and mixtures) against exact convolution,
and the mixed homogeneous-base pairs it serves against two independent routes
(exact coarse-type enumeration; the merged-category kernel)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from exactdp.engine.kernel import Block, Mixture, Threshold, block_tail_sums
from exactdp.reductions.pairs import (HomogeneousPair, _hom_categories, _tail, delta_exact, eta_exact,
                           hom_delta, hom_eta)

TINY = Fraction(1, 10**25)


def _conv(a, b):
    out = defaultdict(Fraction)
    for z, p in a.items():
        for w, r in b.items():
            out[z + w] += p * r
    return out


def _user(x):
    if isinstance(x, Mixture):
        law = defaultdict(Fraction)
        for pi, parts in zip(x.pi, x.parts):
            g = {0: Fraction(1)}
            for part in parts:
                g = _conv(g, dict(zip(part.weights, part.pi)))
            for z, p in g.items():
                law[z] += pi * p
        return law
    return dict(zip(x.weights, x.pi))


def exact_law(items):
    """Law of Z by brute-force convolution with fractions."""
    law = {0: Fraction(1)}
    for x in items:
        u = _user(x)
        for _ in range(x.n):
            law = _conv(law, u)
    return law


@st.composite
def probs(draw, k):
    raw = draw(st.lists(st.integers(1, 6), min_size=k, max_size=k))
    return tuple(Fraction(r, sum(raw)) for r in raw)


@st.composite
def blocks(draw, n_max=3):
    k = draw(st.integers(1, 3))
    ws = draw(st.lists(st.integers(-12, 12), min_size=k, max_size=k, unique=True))
    return Block(draw(st.integers(0, n_max)), draw(probs(k)), tuple(ws))


@st.composite
def items(draw):
    out = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            g = draw(st.integers(2, 3))
            parts = tuple(tuple(draw(blocks(0)) for _ in range(draw(st.integers(1, 2)))) for _ in range(g))
            out.append(Mixture(draw(st.integers(0, 3)), draw(probs(g)), parts))
        else:
            out.append(draw(blocks()))
    return out


@settings(max_examples=60, deadline=None)
@given(xs=items(), tau_num=st.integers(-25, 25), tau_den=st.sampled_from([1, 2, 3]),
       tol=st.sampled_from([1e-40, 1e-2]))
@example(xs=[Block(2, (Fraction(1, 2), Fraction(1, 2)), (0, 3)),
             Block(2, (Fraction(3, 4), Fraction(1, 4)), (-1, -2))], tau_num=1, tau_den=1, tol=1e-40)
@example(xs=[Mixture(3, (Fraction(1, 3), Fraction(2, 3)),
                     ((Block(0, (Fraction(1),), (5,)),),
                      (Block(0, (Fraction(1, 2), Fraction(1, 2)), (-4, 5)),)))],
         tau_num=5, tau_den=1, tol=1e-40)
def test_block_kernel_encloses_exact_convolution(xs, tau_num, tau_den, tol):
    tau = Fraction(tau_num, tau_den)
    law = exact_law(xs)
    ts = block_tail_sums(xs, Threshold.from_fraction(tau, 128), prec=128, tol=tol)
    above = sum((p for z, p in law.items() if z > tau), Fraction(0))
    equal = law.get(tau, Fraction(0)) if tau.denominator == 1 else Fraction(0)
    checks = [(ts.p_above(), above), (ts.p_equal(), equal), (ts.p_below(), 1 - above - equal),
              (ts.excess_above(), sum((p * (z - tau) for z, p in law.items() if z > tau), Fraction(0))),
              (ts.excess_below(), sum((p * (tau - z) for z, p in law.items() if z < tau), Fraction(0)))]
    for iv, value in checks:
        assert iv.contains(value)
        if tol < 1e-30:
            assert iv.width < TINY


MIXED = [(1, 1, 0), (1, 2, 0), (2, 1, 0), (2, 2, 0), (0, 1, 1), (1, 0, 1), (1, 1, 1), (0, 2, 1), (1, 0, 2)]


@pytest.mark.parametrize("b,c,e", MIXED)
@pytest.mark.parametrize("N", [1, 2, 3])
def test_mixed_pairs_equal_exact_enumeration(b, c, e, N):
    H = HomogeneousPair(N, b, c, e)
    P = H.pair()
    for q in ("1/4", "1/3"):
        for lam in (Fraction(1), Fraction(3, 2), Fraction(9)):
            for inclusive in (False, True):
                iv = hom_eta(H, q, lam=lam, inclusive=inclusive)
                assert iv.contains(eta_exact(P, q, lam, inclusive=inclusive)) and iv.width < TINY
            iv = hom_delta(H, q, lam=lam)
            assert iv.contains(delta_exact(P, q, lam)) and iv.width < TINY


@pytest.mark.parametrize("b,c,e,N", [(1, 2, 0, 60), (2, 1, 0, 60), (0, 1, 1, 40), (1, 1, 1, 20)])
def test_block_route_agrees_with_merged_categories(b, c, e, N):
    """Beyond enumeration: the block kernel vs tail_sums on the merged
    categories, conditioning on the changed user's category."""
    q, lam = Fraction(1, 4), Fraction(2)
    blocks_iv = hom_eta(HomogeneousPair(N, b, c, e), q, lam=lam, prec=96, tol=1e-30)
    Ws, pi0, pio, _ = _hom_categories(b, c, e, q, lam)
    lo = hi = Fraction(0)
    for W, po in zip(Ws, pio):
        ts, _ = _tail(Ws, pi0, N - 1, -W, 96, 1e-30)
        iv = ts.p_above()
        lo, hi = lo + po * iv.lower, hi + po * iv.upper
    assert blocks_iv.lower <= hi and lo <= blocks_iv.upper
    assert blocks_iv.width < Fraction(1, 10**20) and hi - lo < Fraction(1, 10**20)


def test_mixed_pair_at_paper_scale():
    """N = 1000, L = 5, q = 0.2446: a pair that gains 3 bits and loses 1 is
    decided against 000's pair in well under a second."""
    q = Fraction("0.2446")
    iv = hom_eta(HomogeneousPair(1000, 1, 3, 0), q, lam=2, prec=64, tol=1e-10)
    canon = hom_eta(HomogeneousPair(1000, 0, 5, 0), q, lam=2, prec=64, tol=1e-12)
    assert iv.upper < canon.lower
