"""exactdp.oracles.moments (PGF-derived) == the proved closed forms == brute force, exactly."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product
from math import comb, prod

import pytest
import sympy as sp

from exactdp.oracles import moments as M
from exactdp.oracles import pgf
from exactdp.oracles.proofs import load_script

X01 = load_script("moments_x0_x1")
KR = load_script("k_randomization")

QS = [Fraction(1, 4), Fraction(1, 3), Fraction(1223, 5000), Fraction(1, 10), Fraction(49, 100)]


@pytest.mark.parametrize("q", QS)
@pytest.mark.parametrize("L", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("N", [1, 2, 7, 1000, 10**6])
def test_X_forward_and_reverse_equal_closed_forms(N, L, q):
    assert M.moments_X(N, L, q, "forward") == X01.closed_forms_X(N, L, q, "forward")
    assert M.moments_X(N, L, q, "reverse") == X01.closed_forms_X(N, L, q, "reverse")
    assert M.moments_R(N, L, q) == X01.closed_forms_R(N, L, q)
    # the paper's printed §3.1 forms are proved; they must agree too
    assert M.moments_R(N, L, q) == pgf.paper_moments_forward(N, L, q)


def test_reverse_mean_of_R_has_no_closed_form():
    with pytest.raises(ValueError, match="no closed form"):
        M.moments_R(5, 2, "1/4", "reverse")


@pytest.mark.parametrize("L", [1, 2, 3])
def test_symbolic_in_q_matches_exact(L):
    e, v = M.moments_X(6, L, None, "forward")
    qsym = pgf.q_sym
    for q in QS[:3]:
        val = (sp.Rational(q.numerator, q.denominator))
        assert Fraction(str(e.subs(qsym, val))) == X01.closed_forms_X(6, L, q)[0]
        assert Fraction(str(v.subs(qsym, val))) == X01.closed_forms_X(6, L, q)[1]


@pytest.mark.parametrize("q", QS[:4])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("L", [1, 2, 4])
@pytest.mark.parametrize("N", [1, 2, 3, 10, 100])
def test_Rk_equals_closed_forms(N, L, k, q):
    assert M.moments_Rk(N, L, k, q) == KR.exact_moments_Rk(N, L, k, q)


@pytest.mark.parametrize("N,L,q", [(3, 2, Fraction(1, 4)), (50, 3, Fraction(1, 3))])
def test_Rk_with_k1_is_the_single_randomization(N, L, q):
    assert M.moments_Rk(N, L, 1, q) == M.moments_R(N, L, q)


def test_Rk_symbolic_in_q():
    e, v = M.moments_Rk(3, 2, 2, None)
    for q in QS[:3]:
        val = sp.Rational(q.numerator, q.denominator)
        assert (Fraction(str(e.subs(pgf.q_sym, val))), Fraction(str(v.subs(pgf.q_sym, val)))) == \
            M.moments_Rk(3, 2, 2, q)


# ----------------------------------------------------------------- brute force, written independently
def _trans(x, s, q):
    return prod((1 - q) if a == b else q for a, b in zip(x, s))


def _brute(N, L, k, q, under="Dm"):
    """E, Var of P(S|Dm^k)/P(S|D^k) by enumerating every labelled synthetic outcome."""
    n = k * N
    vecs = list(product((0, 1), repeat=L))
    Dm = [(1,) * L] * k + [(0,) * L] * (n - k)
    D = [(0,) * L] * n
    pm, p0 = defaultdict(Fraction), defaultdict(Fraction)
    for seq in product(vecs, repeat=n):
        h = tuple(sorted(seq))
        pm[h] += prod(_trans(x, s, q) for x, s in zip(Dm, seq))
        p0[h] += prod(_trans(x, s, q) for x, s in zip(D, seq))
    law = pm if under == "Dm" else p0
    m1 = sum(law[h] * pm[h] / p0[h] for h in law)
    m2 = sum(law[h] * (pm[h] / p0[h]) ** 2 for h in law)
    return m1, m2 - m1 * m1


@pytest.mark.parametrize("N,L,k", [(1, 1, 1), (2, 1, 1), (4, 1, 1), (3, 2, 1), (2, 1, 2), (2, 2, 2),
                                   (3, 1, 2), (2, 1, 3), (1, 2, 3)])
@pytest.mark.parametrize("q", [Fraction(1, 4), Fraction(2, 5)])
def test_Rk_brute_force(N, L, k, q):
    assert M.moments_Rk(N, L, k, q) == _brute(N, L, k, q)
    assert M.moments_Rk(N, L, k, q, under="D") == _brute(N, L, k, q, under="D")
    assert M.moments_Rk(N, L, k, q, under="D")[0] == 1


@pytest.mark.parametrize("N,L", [(1, 1), (3, 1), (2, 2), (4, 2), (2, 3)])
def test_forward_and_reverse_R_brute_force(N, L):
    q = Fraction(1, 3)
    assert M.moments_R(N, L, q) == _brute(N, L, 1, q)
    assert M.moments_R_enumerate(N, L, q) == _brute(N, L, 1, q)
    # reverse: S ~ A(D), R = P(S|D)/P(S|D_m) = 1/(forward ratio); E[N/X] only by enumeration
    n = N
    vecs = list(product((0, 1), repeat=L))
    pm, p0 = defaultdict(Fraction), defaultdict(Fraction)
    for seq in product(vecs, repeat=n):
        h = tuple(sorted(seq))
        pm[h] += prod(_trans(x, s, q) for x, s in zip([(1,) * L] + [(0,) * L] * (n - 1), seq))
        p0[h] += prod(_trans((0,) * L, s, q) for s in seq)
    m1 = sum(p0[h] * p0[h] / pm[h] for h in p0)
    m2 = sum(p0[h] * (p0[h] / pm[h]) ** 2 for h in p0)
    assert M.moments_R_enumerate(N, L, q, "reverse") == (m1, m2 - m1 * m1)


def test_paper_k_normalisation_is_off_by_k_factorial():
    # the paper's (8.31) equals the true mean divided by k! -- finding 000-8.31
    N, L, k, q = 3, 2, 3, Fraction(1, 4)
    e, _ = M.moments_Rk(N, L, k, q)
    p = 1 - q
    a = ((p**3 + q**3) / (p * q)) ** L
    n = k * N
    paper = sum(comb(k, r) * comb(n - k, k - r) * a**r for r in range(k + 1)) / Fraction(
        prod(range(n - k + 1, n + 1)))
    assert paper * 6 == e
