"""General neighbouring pairs (exactdp.reductions.pairs) against the independent brute force.

Properties that are theorems (proofs/symmetry_reductions.py) are tested as
hypothesis properties: the coarse-type law equals the brute-force law; the law
is invariant under bit relabelling and flips; homogeneous-base pairs reduce to
(N, b, c, e) and the certified kernel route encloses the exact values; a
homogeneous D with a d-bit modification has the law of 000's pair at d bits.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, example, given, settings, strategies as st

from exactdp.oracles import bruteforce
from exactdp.reductions import methods, pairs as PR
from exactdp.law.distribution import from_randomized_response
from exactdp.core.errors import CapacityError, ParameterError
from exactdp.reductions.pairs import HomogeneousPair, Pair

from strategies import bit_permutations, masks, neighbouring_pairs, qs


def _bf_law(P, q):
    D, Dm = P.repeated()
    return bruteforce.law_of_R(D, Dm, q, L=P.L, check_neighbouring=False)


@settings(max_examples=40, deadline=None)
@given(case=neighbouring_pairs(max_n=4, max_l=3), q=qs())
def test_coarse_law_equals_bruteforce(case, q):
    L, D, Dm = case
    P = Pair.from_collections(D, Dm, L)
    assert PR.law_of_R(P, q) == _bf_law(P, q)
    assert PR.law_of_R(P, q, under="D") == bruteforce.law_of_R(D, Dm, q, L=L, under="D")


@settings(max_examples=15, deadline=None)
@given(case=neighbouring_pairs(max_n=2, max_l=2), q=qs(), k=st.integers(2, 3))
def test_k_randomization_law_equals_bruteforce(case, q, k):
    L, D, Dm = case
    P = Pair.from_collections(D, Dm, L, k=k)
    assert PR.law_of_R(P, q) == _bf_law(P, q)


@st.composite
def pair_and_symmetry(draw):
    L, D, Dm = draw(neighbouring_pairs(max_n=4, max_l=3))
    perm = draw(bit_permutations(L))
    mask = draw(masks(L))
    return L, D, Dm, perm, mask


@settings(max_examples=30, deadline=None)
@given(c=pair_and_symmetry(), q=qs())
def test_law_invariant_under_relabelling_and_flips(c, q):
    """Theorem sym-group: the law of R is invariant under v -> g(v) XOR m."""
    L, D, Dm, perm, mask = c
    assume(sorted(D) != sorted(Dm))

    def g(v):
        w = [0] * L
        for j, b in enumerate(v):
            w[perm[j]] = b
        return tuple(b ^ m for b, m in zip(w, mask))
    P = Pair.from_collections(D, Dm, L)
    G = Pair.from_collections([g(v) for v in D], [g(v) for v in Dm], L)
    assert PR.canonical_key(P) == PR.canonical_key(G)
    assert bruteforce.law_of_R(D, Dm, q, L=L) == bruteforce.law_of_R([g(v) for v in D], [g(v) for v in Dm], q, L=L)


@st.composite
def homogeneous_cases(draw, max_n=5, max_l=3):
    L = draw(st.integers(1, max_l))
    N = draw(st.integers(1, max_n))
    z, x, xm = (draw(st.integers(0, (1 << L) - 1)) for _ in range(3))
    if x == xm:
        xm = x ^ 1
    q = draw(qs())
    return Pair.homogeneous(N, L, z, x, xm), q


@settings(max_examples=30, deadline=None)
@given(c=homogeneous_cases(), data=st.data())
@example(c=(Pair.homogeneous(3, 2, 0, 3, 0), Fraction(1, 4)), data=None)
def test_kernel_route_encloses_exact_values(c, data):
    """Theorem sym-hom-linear: the linear statistic (kernel) gives the exact eta, delta."""
    P, q = c
    law = _bf_law(P, q)
    atoms = [r for r in law if r >= 1]
    lams = [Fraction(1), Fraction(3, 2), Fraction(2)] + atoms[:3]
    if data is not None:
        lams.append(data.draw(st.sampled_from(atoms or [Fraction(5, 4)])))
    H = HomogeneousPair.of(P)
    for lam in lams:
        for inc in (False, True):
            ex = bruteforce.eta_from_law(law, lam, inc)
            iv = PR.hom_eta(H, q, lam=lam, inclusive=inc)
            assert iv.contains(ex) and iv.width < Fraction(1, 10**30)
        exd = bruteforce.delta_from_law(law, lam)
        ivd = PR.hom_delta(H, q, lam=lam)
        assert ivd.contains(exd) and ivd.width < Fraction(1, 10**30)
    eps = Fraction(1, 2)
    ex = sum((w for r, w in law.items() if PR.gt_exp(r, eps)), Fraction(0))
    assert PR.hom_eta(H, q, eps=eps).contains(ex)


@settings(max_examples=20, deadline=None)
@given(L=st.integers(2, 3), N=st.integers(1, 4), data=st.data(), q=qs())
def test_hamming_reduction(L, N, data, q):
    """Theorem sym-hamming: z^N -> z^(N-1) + x_m has the law of 000's pair at d(z, x_m) bits."""
    z = data.draw(st.integers(0, (1 << L) - 1))
    xm = data.draw(st.integers(0, (1 << L) - 1).filter(lambda t: t != z))
    d = PR.weight(z ^ xm)
    P = Pair.homogeneous(N, L, z, z, xm)
    assert _bf_law(P, q) == bruteforce.canonical_law(N, d, q, "forward")
    assert HomogeneousPair.of(P) == HomogeneousPair(N, 0, d, 0)


@settings(max_examples=20, deadline=None)
@given(N=st.integers(1, 12), j=st.data(), q=qs(),
       lam=st.fractions(min_value=1, max_value=5, max_denominator=6))
def test_l1_polynomial_route_equals_bruteforce(N, j, q, lam):
    jj = j.draw(st.integers(0, N - 1))
    k = j.draw(st.integers(1, 3))
    P = Pair(1, (N - 1 - jj, jj), 0, 1, k)
    law = _bf_law(P, q)
    assert PR.eta_exact(P, q, lam) == bruteforce.eta_from_law(law, lam)
    assert PR.eta_exact(P, q, lam, inclusive=True) == bruteforce.eta_from_law(law, lam, True)
    assert PR.delta_exact(P, q, lam) == bruteforce.delta_from_law(law, lam)


def test_reduction_examples():
    P = Pair.from_collections([(0, 1, 1, 0), (0, 1, 1, 0), (1, 0, 1, 0)],
                              [(0, 1, 1, 0), (0, 1, 1, 0), (0, 1, 0, 1)])
    red = PR.reduce_pair(P)
    assert sum(red.sizes) == 4 and red.N == 3
    assert not red.is_homogeneous_base() or len(red.base) == 1
    # constant columns drop out
    Q = Pair.homogeneous(3, 4, 0b1000, 0b1000, 0b1011)
    assert PR.reduce_pair(Q).sizes == (2,)
    with pytest.raises(ParameterError):
        Pair.from_collections([(0,), (0,)], [(1,), (1,)])
    with pytest.raises(CapacityError):
        PR.law_of_R(Pair(3, (20, 20, 20, 20, 20, 20, 20, 19), 1, 6), "1/4")


def test_enumeration_dedups_by_symmetry():
    ps = list(PR.enumerate_pairs(2, 2))
    keys = {PR.canonical_key(p) for p in ps}
    assert len(keys) == len(ps)
    # every pair of the full list maps to one of the representatives
    for base in range(4):
        for x in range(4):
            for xm in range(4):
                if x != xm:
                    b = [0] * 4
                    b[base] = 1
                    assert PR.canonical_key(Pair(2, tuple(b), x, xm)) in keys


@pytest.mark.slow
def test_paper_scale_forward_two_routes():
    """000 §3.3 (N = 1000, L = 5, q = 0.2446): outlier conditioning (pairs) vs change of measure."""
    iv = methods.eta(PR.canonical_pair(1000, 5), "0.2446", lam=2, tol=1e-20)
    ref = from_randomized_response(1000, 5, "0.2446", "forward").eta(lam=2, digits=15)
    assert iv.overlaps(ref) and iv.width < Fraction(1, 10**12)


@pytest.mark.slow
def test_paper_scale_reverse_two_routes():
    iv = methods.eta(PR.reverse_canonical_pair(1000, 5), "0.2446", lam=Fraction(6, 5), tol=1e-20)
    ref = from_randomized_response(1000, 5, "0.2446", "reverse").eta(lam=Fraction(6, 5), digits=15)
    assert iv.overlaps(ref) and iv.width < Fraction(1, 10**12)


def test_route_and_l1_scale():
    P = Pair(1, (600, 399), 0, 1)            # L = 1, N = 1000, two-type base: exact
    assert PR.route(P) == "l1"
    e = methods.eta(P, "1/4", lam=Fraction(3, 2))
    assert e.is_exact and 0 < e.lower < 1
    assert PR.route(PR.canonical_pair(1000, 5)) == "kernel"
