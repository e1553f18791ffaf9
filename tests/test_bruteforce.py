"""Self-consistency of the brute-force reference and its agreement with the papers.

The brute force (:mod:`exactdp.oracles.bruteforce`) enumerates full histograms over all
``2^L`` vector types.  Here it is checked against

* itself: probabilities sum to 1, change of measure ``E_{A(D)}[R] = 1``,
  hockey-stick delta == ``E[(1 - lam/R)+]``, strict/inclusive eta, worst = max;
* paper 000 (3.4)-(3.5): for the canonical pair, the law of R equals the law of
  ``(1/N) sum_l T_l (q/p)^(L-2l)`` with ``T`` enumerated *separately* by set-bit
  counts (the sufficient-statistic claim);
* paper 003 (2.10): reverse direction ``R = N / sum_l T_l (q/p)^(L-2l)``;
* paper 000 §3.1 closed forms of ``E R`` and ``Var R`` (exact ``==``);
* symmetries: relabelling bit positions and XOR-ing every vector with a mask.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from math import comb, factorial

import pytest
from hypothesis import example, given, strategies as st

from exactdp.oracles import bruteforce as bf
from exactdp.core import domains
from exactdp.core.errors import CapacityError, InexactInputError, ParameterError
from exactdp.model.mechanism import Mechanism
from exactdp.oracles.pgf import moments_R, paper_moments_forward

from strategies import (PINNED_Q, bit_permutations, canonical_cases, case_with_lam,
                        masks, neighbouring_pairs)

F = Fraction

#: Exhaustive grid of small canonical cases (N, L, q).
GRID = [(N, L, q) for L in (1, 2, 3) for N in range(1, 7) for q in PINNED_Q]


def _ids(case):
    N, L, q = case
    return f"N{N}-L{L}-q{q.numerator}_{q.denominator}"


# ------------------------------------------------- independent T enumeration
def _compositions(n: int, k: int):
    """All ``(t_0..t_{k-1})`` of non-negative integers summing to ``n``."""
    if k == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, k - 1):
            yield (first,) + rest


def _multinomial_law(n: int, probs):
    """``{T: P[MN(n, probs) = T]}`` by the multinomial formula."""
    out = {}
    for T in _compositions(n, len(probs)):
        coef = factorial(n)
        for t in T:
            coef //= factorial(t)
        pr = F(coef)
        for t, pi in zip(T, probs):
            pr *= pi ** t
        out[T] = pr
    return out


def _paper_terms(L: int, q: Fraction):
    p = 1 - q
    pi0 = [comb(L, l) * q ** l * p ** (L - l) for l in range(L + 1)]   # 000 (3.7)
    pi1 = [comb(L, l) * p ** l * q ** (L - l) for l in range(L + 1)]   # 000 (3.9)
    c = [(q / p) ** (L - 2 * l) for l in range(L + 1)]                 # 000 (3.2)
    return pi0, pi1, c


def paper_forward_law(N: int, L: int, q: Fraction):
    """000 (3.4)-(3.5): T ~ MN(N-1, p_0) + MN(1, p_1), R = (1/N) sum_l T_l c_l."""
    pi0, pi1, c = _paper_terms(L, q)
    law = defaultdict(F)
    for T0, pr in _multinomial_law(N - 1, pi0).items():
        for l1 in range(L + 1):
            T = list(T0)
            T[l1] += 1
            law[sum(t * cl for t, cl in zip(T, c)) / N] += pr * pi1[l1]
    return dict(law)


def paper_reverse_law(N: int, L: int, q: Fraction):
    """003 (2.10): T ~ MN(N, p_0) (S ~ A(D)), R = N / sum_l T_l c_l."""
    pi0, _, c = _paper_terms(L, q)
    law = defaultdict(F)
    for T, pr in _multinomial_law(N, pi0).items():
        law[N / sum(t * cl for t, cl in zip(T, c))] += pr
    return dict(law)


# ------------------------------------------------------ basic self-consistency
@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_canonical_laws_sum_to_one_and_are_fractions(case):
    N, L, q = case
    for direction in ("forward", "reverse"):
        law = bf.canonical_law(N, L, q, direction)
        assert all(type(r) is F and type(w) is F for r, w in law.items())
        assert all(w > 0 and r > 0 for r, w in law.items())
        assert sum(law.values()) == 1
        p = 1 - q
        assert max(law) == (p / q) ** L          # local-DP maximum (000 §1.3, §3.1)


@given(pair=neighbouring_pairs(), q=st.sampled_from(PINNED_Q))
@example(pair=(2, [(0, 0), (1, 0)], [(0, 0), (0, 1)]), q=F(1, 3))
@example(pair=(1, [(0,)], [(0,)]), q=F(1, 4))
def test_histogram_law_sums_to_one_and_change_of_measure(pair, q):
    L, D, D_m = pair
    hD = bf.histogram_law(D, q)
    hm = bf.histogram_law(D_m, q)
    N = len(D)
    assert len(hD) == bf.num_histograms(N, L)
    assert all(sum(h) == N and len(h) == 2 ** L for h in hD)
    assert sum(hD.values()) == 1 and sum(hm.values()) == 1
    law_m = bf.law_of_R(D, D_m, q)                 # S ~ A(D_m)
    law_D = bf.law_of_R(D, D_m, q, under="D")      # S ~ A(D)
    assert sum(law_m.values()) == 1 and sum(law_D.values()) == 1
    assert set(law_m) == set(law_D)
    # change of measure: E_D[R] = sum_S P(S|D_m) = 1, and E_{D_m}[1/R] = 1
    assert sum(r * w for r, w in law_D.items()) == 1
    assert sum(w / r for r, w in law_m.items()) == 1
    # and the two laws are tilts of each other: P_m(R = r) = r P_D(R = r)
    assert all(law_m[r] == r * law_D[r] for r in law_m)


def test_histogram_law_small_case_by_hand():
    # one user, L = 2, q = 1/4: the histogram is the indicator of the output vector
    law = bf.histogram_law([(1, 0)], "1/4")
    assert law == {(1, 0, 0, 0): F(3, 16), (0, 1, 0, 0): F(9, 16),
                   (0, 0, 1, 0): F(1, 16), (0, 0, 0, 1): F(3, 16)}
    # the dict form of a collection is the same collection
    assert bf.histogram_law({(1, 0): 1}, "1/4") == law
    assert bf.histogram_law({1: 1}, "1/4", L=2) == law


@pytest.mark.parametrize("L", [1, 2, 3])
def test_transition_matches_mechanism(L):
    m = Mechanism(L, "2/7")
    for x in bf.vectors(L):
        row = [bf.transition(x, s, "2/7") for s in bf.vectors(L)]
        assert sum(row) == 1
        assert row == [m.transition(x, s) for s in bf.vectors(L)]


# ---------------------------------------------- paper 000 (3.4) and 003 (2.10)
@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_forward_law_equals_sufficient_statistic_formula(case):
    """000 (3.4): R depends on S only through T (counts by set bits)."""
    N, L, q = case
    assert bf.canonical_law(N, L, q, "forward") == paper_forward_law(N, L, q)


@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_reverse_law_equals_003_formula(case):
    """003 (2.10): reverse direction R = N / sum_l T_l (q/p)^(L-2l), S ~ A(D)."""
    N, L, q = case
    assert bf.canonical_law(N, L, q, "reverse") == paper_reverse_law(N, L, q)


@given(case=canonical_cases(max_n=7))
@example(case=(7, 3, F(1, 3)))
@example(case=(1, 3, F(2, 7)))
def test_paper_formulas_hypothesis(case):
    N, L, q = case
    assert bf.canonical_law(N, L, q, "forward") == paper_forward_law(N, L, q)
    assert bf.canonical_law(N, L, q, "reverse") == paper_reverse_law(N, L, q)


@pytest.mark.parametrize("L", [1, 2, 3])
def test_mechanism_constants_match_paper(L):
    pi0, pi1, c = _paper_terms(L, F(2, 7))
    m = Mechanism(L, "2/7")
    assert list(m.pi0) == pi0 and list(m.pi1) == pi1 and list(m.c) == c


# --------------------------------------------------------- moments (000 §3.1)
@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_forward_moments_equal_paper_closed_forms(case):
    N, L, q = case
    law = bf.canonical_law(N, L, q, "forward")
    mean, var = paper_moments_forward(N, L, q)
    assert bf.mean_R(law) == mean
    assert bf.var_R(law) == var


@pytest.mark.parametrize("case", [(3, 2, F(1, 4)), (5, 1, F(1, 3)), (2, 3, F(2, 7))], ids=_ids)
def test_forward_moments_equal_symbolic_pgf(case):
    N, L, q = case
    law = bf.canonical_law(N, L, q, "forward")
    assert (bf.mean_R(law), bf.var_R(law)) == moments_R(N, L, q, "forward")


@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_reverse_moments_of_inverse_ratio_003(case):
    """003 §2.1.2: under S ~ A(D), sum_l s_l c_l = N/R has mean N (2.15) and
    variance N (sum_l c_l^2 p(l|0) - (sum_l c_l p(l|0))^2) (2.18, pairs i<j),
    i.e. N (phi^L - 1) with phi = (p^3+q^3)/(pq)."""
    N, L, q = case
    p = 1 - q
    pi0, _, c = _paper_terms(L, q)
    law = bf.canonical_law(N, L, q, "reverse")
    X = {N / r: w for r, w in law.items()}
    EX = sum(x * w for x, w in X.items())
    VX = sum((x - EX) ** 2 * w for x, w in X.items())
    assert EX == N                                                   # 003 (2.15)
    pairs = sum(pi0[i] * c[i] * pi0[j] * c[j]
                for i in range(L + 1) for j in range(i + 1, L + 1))
    v218 = N * (sum(cl ** 2 * pl for cl, pl in zip(c, pi0))
                - sum((pl * cl) ** 2 for cl, pl in zip(c, pi0)) - 2 * pairs)
    assert VX == v218                                                # 003 (2.18)
    phi = (p ** 3 + q ** 3) / (p * q)
    assert VX == N * (phi ** L - 1)
    assert sum(w / r for r, w in law.items()) == 1                   # E[1/R] = 1


@pytest.mark.parametrize("q", PINNED_Q + (F(1, 10), F(49, 100)))
def test_psi_identity_of_000_3_15(q):
    """000 (3.15) replaces (p^5+q^5)/(pq)^2 by (phi+1)^2 - phi - 2."""
    p = 1 - q
    phi = (p ** 3 + q ** 3) / (p * q)
    assert (p ** 5 + q ** 5) / (p * q) ** 2 == (phi + 1) ** 2 - phi - 2


# ------------------------------------------------------------ eta and delta
def _hockey(P, Q, mu):
    """sum_S (P(S) - mu Q(S))+ for any mu > 0 (no domain restriction)."""
    return sum((max(P[h] - mu * Q[h], 0) for h in P), F(0))


@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_eta_delta_identities_on_grid(case):
    N, L, q = case
    p = 1 - q
    rmax = (p / q) ** L
    D, D_m = bf.canonical_pair(N, L)
    hD, hm = bf.histogram_law(D, q), bf.histogram_law(D_m, q)
    fwd, rev = bf.canonical(N, L, q, "forward"), bf.canonical(N, L, q, "reverse")
    worst = bf.canonical(N, L, q, "worst")
    lams = sorted({F(1), rmax, rmax + 1, *[a for a in fwd.atoms + rev.atoms if a >= 1]})
    for lam in lams:
        for law, P, Q in ((fwd, hm, hD), (rev, hD, hm)):
            s, i, d = law.eta(lam), law.eta(lam, inclusive=True), law.delta(lam)
            # inclusive - strict = mass of the atom at lam
            assert i - s == law.law.get(lam, 0)
            # delta: E[(1 - lam/R)+] == hockey-stick on histograms
            assert d == _hockey(P, Q, lam)
            assert 0 <= d <= s <= i <= 1
        assert fwd.delta(lam) == bf.delta(D, D_m, q, lam)
        assert rev.delta(lam) == bf.delta(D_m, D, q, lam)
        assert fwd.eta(lam) == bf.eta(D, D_m, q, lam)
        assert rev.eta(lam, True) == bf.eta(D_m, D, q, lam, inclusive=True)
        for inc in (False, True):
            assert worst.eta(lam, inc) == max(fwd.eta(lam, inc), rev.eta(lam, inc))
        assert worst.delta(lam) == max(fwd.delta(lam), rev.delta(lam))
        # duality of the hockey-stick: d_fwd(lam) = lam d_rev(1/lam) + 1 - lam
        assert fwd.delta(lam) == lam * _hockey(hD, hm, 1 / lam) + 1 - lam
    # delta(1) is the total variation distance, the same in both directions
    tv = sum(abs(hm[h] - hD[h]) for h in hD) / 2
    assert fwd.delta(1) == rev.delta(1) == tv
    # at and beyond the largest atom (p/q)^L
    for law in (fwd, rev):
        assert law.eta(rmax) == 0 and law.delta(rmax) == 0 and law.eta(rmax + 1, True) == 0
    assert fwd.eta(rmax, inclusive=True) == q ** (L * (N - 1)) * p ** L    # T = (0..0, N)
    assert rev.eta(rmax, inclusive=True) == p ** (L * N)                   # T = (N, 0..0)


@given(c=case_with_lam())
@example(c=(3, 2, F(1, 3), F(1), "forward"))
@example(c=(1, 2, F(1, 3), F(4), "reverse"))          # lam = (p/q)^L, N = 1
@example(c=(2, 1, F(1, 3), F(5, 4), "forward"))       # lam exactly at an atom
@example(c=(4, 3, F(1, 4), F(28, 1), "worst"))        # beyond (p/q)^L = 27
def test_eta_delta_properties(c):
    N, L, q, lam, direction = c
    law = bf.canonical(N, L, q, direction)
    s, i, d = law.eta(lam), law.eta(lam, inclusive=True), law.delta(lam)
    assert 0 <= d <= s <= i <= 1
    assert all(type(x) is F for x in (s, i, d))
    if direction != "worst":
        assert i - s == law.law.get(lam, 0)
        assert law.sf(lam) == s and law.cdf(lam) == 1 - s
        # delta is E[(1 - lam/R)+] = sum over atoms above lam
        assert d == sum((w * (1 - lam / r) for r, w in law.law.items() if r > lam), F(0))


def test_N1_is_local_randomized_response():
    # N = 1: R = (q/p)^(L-2l) with probability C(L,l) p^l q^(L-l)
    for L in (1, 2, 3):
        for q in PINNED_Q:
            p = 1 - q
            want = {(q / p) ** (L - 2 * l): comb(L, l) * p ** l * q ** (L - l) for l in range(L + 1)}
            assert bf.canonical_law(1, L, q, "forward") == want


def test_bin_masses_and_sf():
    law = bf.canonical(4, 2, "1/4", "forward")
    edges = [F(0)] + law.atoms
    masses = law.bin_masses(edges)
    assert masses == [law.law[a] for a in law.atoms]
    assert sum(masses) == 1
    for x in [F(0), F(1, 2), F(1)] + law.atoms:
        assert law.sf(x) + law.cdf(x) == 1


# ----------------------------------------------------------------- symmetries
def _permute(v, perm):
    return tuple(v[perm[j]] for j in range(len(v)))


def _xor(v, mask):
    return tuple(a ^ b for a, b in zip(v, mask))


@st.composite
def _pair_and_symmetry(draw):
    L, D, D_m = draw(neighbouring_pairs())
    return L, D, D_m, draw(bit_permutations(L)), draw(masks(L))


@given(c=_pair_and_symmetry(), q=st.sampled_from(PINNED_Q))
@example(c=(3, [(0, 0, 0)] * 3, [(0, 0, 0)] * 2 + [(1, 1, 1)], (2, 1, 0), (1, 1, 1)), q=F(1, 3))
@example(c=(2, [(1, 0), (0, 0), (1, 1)], [(1, 0), (0, 1), (1, 1)], (1, 0), (0, 1)), q=F(2, 7))
@example(c=(3, [(1, 0, 0), (0, 1, 1)], [(1, 0, 0), (1, 1, 0)], (1, 2, 0), (1, 0, 1)), q=F(1, 4))
def test_relabelling_and_flip_invariance(c, q):
    """Permuting bit positions, or XOR-ing every vector of both collections
    with a fixed mask, leaves the law of R unchanged."""
    L, D, D_m, perm, mask = c
    base = bf.law_of_R(D, D_m, q)
    assert bf.law_of_R([_permute(v, perm) for v in D], [_permute(v, perm) for v in D_m], q) == base
    assert bf.law_of_R([_xor(v, mask) for v in D], [_xor(v, mask) for v in D_m], q) == base
    # order of users does not matter either (the server sees only the histogram)
    assert bf.law_of_R(list(reversed(D)), list(reversed(D_m)), q) == base


@pytest.mark.parametrize("case", [(3, 2, F(1, 3)), (2, 3, F(1, 4)), (4, 1, F(2, 7))], ids=_ids)
def test_homogeneous_with_opposite_outlier_has_canonical_law(case):
    """000 §1.2 (2): the law of R is the same for every homogeneous D and D_m
    with an (opposite) outlier, whichever vector x they contain."""
    N, L, q = case
    fwd = bf.canonical_law(N, L, q, "forward")
    rev = bf.canonical_law(N, L, q, "reverse")
    for x in bf.vectors(L):
        xo = tuple(1 - b for b in x)
        D, D_m = [x] * N, [x] * (N - 1) + [xo]
        assert bf.law_of_R(D, D_m, q) == fwd
        assert bf.law_of_R(D_m, D, q) == rev


# ------------------------------------------------------- guards and validation
def test_capacity_guard():
    with pytest.raises(CapacityError):
        bf.canonical(40, 3, "1/4")
    with pytest.raises(CapacityError):
        bf.check_capacity(10**9, 64)
    assert bf.num_histograms(10**9, 64, cap=bf.MAX_HISTOGRAMS) == bf.MAX_HISTOGRAMS + 1
    assert bf.num_histograms(15, 3) == comb(22, 7) <= bf.MAX_HISTOGRAMS


def test_validation():
    with pytest.raises(InexactInputError):
        bf.canonical(2, 2, 0.25)
    with pytest.raises(ParameterError):
        bf.canonical(2, 2, "1/2")                  # q must be < 1/2
    with pytest.raises(ParameterError):
        bf.canonical(0, 2, "1/4")
    with pytest.raises(ParameterError):
        bf.canonical(2, 2, "1/4", "sideways")
    with pytest.raises(ParameterError):
        bf.law_of_R([(0, 0)] * 3, [(1, 1)] * 2 + [(0, 0)], "1/4")   # not neighbours
    with pytest.raises(ParameterError):
        bf.law_of_R([(0, 0)], [(0, 0, 0)], "1/4")
    with pytest.raises(ParameterError):
        bf.eta([(0,)], [(1,)], "1/4", F(1, 2))     # lam outside domains.LAM
    with pytest.raises(ParameterError):
        bf.canonical_law(2, 2, "1/4", "worst")
    assert domains.LAM.contains(F(1))
