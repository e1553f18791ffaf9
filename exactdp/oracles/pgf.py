"""Symbolic probability generating functions of the privacy statistic X (sympy).

Paper 000 (``000_3d8ddaba8b46cf9c.txt``) §3.1: a zero vector contributes
``X_0 = (q/p)^(L-2l)`` with ``l ~ Bin(L, q)``, the all-ones vector ``X_1`` the
same with ``l ~ Bin(L, p)``; their PGFs (with real exponents) are

    G_0(t) = sum_l C(L,l) q^l p^(L-l) t^((q/p)^(L-2l))        (000 (3.8))
    G_1(t) = sum_l C(L,l) p^l q^(L-l) t^((q/p)^(L-2l))        (000 (3.10))
    G(t)   = G_0(t)^(N-1) G_1(t)          forward, R = X/N     (000 (3.11))
    G_r(t) = G_0(t)^N                     reverse, R = N/X     (003 §2.1)

Moments follow by differentiation at ``t = 1``:
``E X = G'(1)``, ``Var X = G''(1) + G'(1) - G'(1)^2``.

>>> mean, var = moments_X(N=10, L=2, q=Rational(1, 4), direction="forward")
>>> mean, var
(130/9, 1520/27)
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from sympy import Rational, binomial

__all__ = ["t", "q_sym", "N_sym", "G0", "G1", "pgf", "moments_X", "moments_R",
           "paper_moments_forward", "to_fraction"]

t = sp.Symbol("t", positive=True)
q_sym = sp.Symbol("q", positive=True)
N_sym = sp.Symbol("N", positive=True, integer=True)


def _q(q):
    if q is None:
        return q_sym
    if isinstance(q, Fraction):
        return Rational(q.numerator, q.denominator)
    if isinstance(q, float):
        raise TypeError("q: pass an exact value (str, Fraction, sympy Rational), not a float")
    return sp.sympify(q)


def G0(L: int, q=None, var=t):
    """PGF (3.8) of a zero vector's contribution X_0 (000 (3.8))."""
    q = _q(q)
    p = 1 - q
    return sum(binomial(L, l) * q**l * p**(L - l) * var**((q / p)**(L - 2 * l)) for l in range(L + 1))


def G1(L: int, q=None, var=t):
    """PGF (3.10) of the outlier's contribution X_1 (000 (3.10))."""
    q = _q(q)
    p = 1 - q
    return sum(binomial(L, l) * p**l * q**(L - l) * var**((q / p)**(L - 2 * l)) for l in range(L + 1))


def pgf(N, L: int, q=None, direction: str = "forward", var=t):
    """PGF of X: (3.11) ``G_0^(N-1) G_1`` (forward) or ``G_0^N`` (reverse)."""
    N = N_sym if N is None else N
    if direction == "forward":
        return G0(L, q, var) ** (N - 1) * G1(L, q, var)
    if direction == "reverse":
        return G0(L, q, var) ** N
    raise ValueError(f"direction must be forward or reverse, got {direction!r}")


def _factorial_moments(G):
    d1 = sp.diff(G, t)
    d2 = sp.diff(d1, t)
    return d1.subs(t, 1), d2.subs(t, 1)


def moments_X(N=None, L: int = 1, q=None, direction: str = "forward"):
    """Exact ``(E X, Var X)`` from the PGF by differentiation (sympy expressions;
    rational numbers when ``N`` and ``q`` are given)."""
    G = pgf(N_sym, L, q, direction)
    g1, g2 = _factorial_moments(G)
    mean = sp.simplify(g1)
    var = sp.simplify(g2 + g1 - g1**2)
    if N is not None:
        mean, var = mean.subs(N_sym, N), var.subs(N_sym, N)
    return sp.nsimplify(sp.simplify(mean)), sp.nsimplify(sp.simplify(var))


def moments_R(N: int, L: int, q, direction: str = "forward"):
    """Exact ``(E R, Var R)`` for the forward direction (R = X/N) as Fractions."""
    if direction != "forward":
        raise ValueError("closed-form moments of R exist for the forward direction "
                         "(R = X/N); for the reverse direction R = N/X use the engine")
    mean, var = moments_X(N, L, q, "forward")
    return to_fraction(mean / N), to_fraction(var / N**2)


def paper_moments_forward(N, L, q):
    """000 §3.1 closed forms as printed: ``E R`` and ``Var R`` (exact rationals)."""
    q = Fraction(q)
    p = 1 - q
    phi = (p**3 + q**3) / (p * q)
    psi = (p**5 + q**5) / (p * q) ** 2
    mean = Fraction(N - 1, N) + phi**L / N
    var = Fraction(N - 1, N**2) * (phi**L - 1) + Fraction(1, N**2) * (psi**L - phi**(2 * L))
    return mean, var


def to_fraction(x) -> Fraction:
    """sympy Rational -> Fraction (raises if not rational)."""
    x = sp.nsimplify(x)
    if not x.is_Rational:
        raise ValueError(f"not a rational number: {x}")
    return Fraction(int(x.p), int(x.q))
