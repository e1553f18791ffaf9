"""Exact moments of the privacy statistic, as Fractions or rational functions of q.

Everything here is *derived*, not transcribed: the one-vector moments come
from the Taylor coefficients at ``t = 1`` of the symbolic PGFs of
:mod:`exactdp.oracles.pgf` (``000_3d8ddaba8b46cf9c.txt`` (3.8), (3.10)); the
collection moments from the product structure (3.11).  The closed forms they
must agree with are proved in ``proofs/moments_x0_x1.py`` and
``proofs/k_randomization.py`` and compared with ``==`` in
``tests/test_moments.py``.

Directions (``000_3d8ddaba8b46cf9c.txt`` §3.1, ``003_602e16ce409ec962.txt`` §2.1):

* forward: ``S ~ A(D_m)``, ``X = sum_l T_l (q/p)^(L-2l)`` with ``N-1`` zero vectors
  and one all-ones vector, ``R = X / N`` (000 (3.6)).
* reverse: ``S ~ A(D)`` (``N`` zero vectors), ``X = N / R`` (003 (2.10)-(2.11));
  ``E X = N`` (003 (2.15)), ``Var X = N (phi^L - 1)`` (003 (2.25)).  ``E R = E[N/X]``
  has **no closed form** (the expectation of a reciprocal of a weighted
  multinomial sum); :func:`moments_R_enumerate` computes it exactly for small
  ``N, L`` by enumeration.

k-randomization (000 §6 and Appendix II, ``R(S^k)``): the modified collection
has ``k`` all-ones and ``kN - k`` zero records, each randomized once.  Counting
the assignments of synthetic records to originals gives

    R(S^k) = (1 / C(kN, k)) * sum_{|J| = k} prod_{i in J} rho_i,

``rho_i = p(s_i|1)/p(s_i|0)`` -- a U-statistic of *independent but not
identically distributed* factors (``k`` of them from the ones).  The paper's
(8.21) normalises by ``(kN-k)!/(kN)!`` (it drops a ``k!``), and its variance
treats the overlapping subset products as independent; both are wrong for
``k >= 2`` (see ``proofs/k_randomization.py``).  Exact moments follow from the
generating function ``E prod_i (1 + x rho_i)(1 + y rho_i) = prod_i (1 + (x+y) E rho_i
+ x y E rho_i^2)`` (independence): ``E e_k(rho) = [x^k]`` and ``E e_k(rho)^2 =
[x^k y^k]`` of it.

>>> moments_X(10, 2, "1/4")
(Fraction(130, 9), Fraction(1520, 27))
>>> moments_Rk(3, 1, 1, "1/4") == moments_R(3, 1, "1/4")
True
>>> moments_Rk(4, 2, 2, "1/3", under="D")[0]      # E_D of a likelihood ratio
Fraction(1, 1)
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, factorial
from itertools import product as _product

import sympy as sp

from . import pgf as _pgf

__all__ = [
    "phi", "psi", "vector_moments", "moments_X", "moments_R", "moments_R_enumerate",
    "moments_Rk", "ek_moment_polynomials", "moments_Rk_factored", "NO_CLOSED_FORM_REVERSE_MEAN",
]

NO_CLOSED_FORM_REVERSE_MEAN = (
    "E[R] in the reverse direction is E[N/X] with X a weighted multinomial sum; it has "
    "no closed form (use moments_R_enumerate for small N, L, or the certified engine)")


def _exact_q(q):
    """q as a sympy Rational (or the symbol when ``q is None``); floats refused."""
    if q is None:
        return _pgf.q_sym
    if isinstance(q, float):
        raise TypeError("q: pass an exact value (str, Fraction, sympy Rational), not a float")
    if isinstance(q, Fraction):
        return sp.Rational(q.numerator, q.denominator)
    if isinstance(q, str):
        f = Fraction(q)
        return sp.Rational(f.numerator, f.denominator)
    return sp.sympify(q)


def _out(x, q):
    """Fraction when q was given, else a cancelled sympy rational function of q."""
    x = sp.cancel(sp.together(x))
    if q is None:
        return x
    if not x.is_Rational:
        raise ValueError(f"expected a rational number, got {x}")
    return Fraction(int(x.p), int(x.q))


def phi(q):
    """``phi = (p^3 + q^3)/(p q)`` (000 (3.14)); sympy expression."""
    q = _exact_q(q)
    p = 1 - q
    return (p**3 + q**3) / (p * q)


def psi(q):
    """``psi = (p^5 + q^5)/(p q)^2`` (000 §3.1, Var X_1)."""
    q = _exact_q(q)
    p = 1 - q
    return (p**5 + q**5) / (p * q) ** 2


@lru_cache(maxsize=256)
def _taylor_at_one(kind: str, L: int, q):
    """``(G(1), G'(1), G''(1))`` of the one-vector PGF (000 (3.8) or (3.10))."""
    G = (_pgf.G0 if kind == "0" else _pgf.G1)(L, q)
    t = _pgf.t
    d1 = sp.diff(G, t)
    d2 = sp.diff(d1, t)
    return tuple(sp.cancel(sp.together(e.subs(t, 1))) for e in (G, d1, d2))


def vector_moments(L: int, q=None, kind: str = "0"):
    """``(E rho, E rho^2)`` of one synthetic vector's likelihood ratio
    ``rho = (q/p)^(L-2l)`` from a zero (``kind="0"``, 000 (3.8)) or all-ones
    (``kind="1"``, 000 (3.10)) original, via ``G'(1)`` and ``G''(1) + G'(1)``.

    >>> vector_moments(3, "1/4", "0")
    (Fraction(1, 1), Fraction(343, 27))
    """
    qq = _exact_q(q)
    g0, g1, g2 = _taylor_at_one(kind, L, qq)
    if sp.cancel(g0 - 1) != 0:
        raise AssertionError("PGF does not sum to one")
    return _out(g1, q), _out(g2 + g1, q)


def moments_X(N, L: int, q=None, direction: str = "forward"):
    """Exact ``(E X, Var X)`` from the PGF ``G = G_0^(N-1) G_1`` (forward, 000 (3.11))
    or ``G_0^N`` (reverse, 003 §2.1).

    The product's Taylor expansion at ``t = 1`` to second order uses the
    one-vector coefficients ``G_j(1) = 1, G_j'(1), G_j''(1)``:
    ``(1 + u)^(n) = 1 + n u + n(n-1)/2 u^2 + O(h^3)`` with ``u = a1 h + a2 h^2/2``.
    ``N`` may be an int or a sympy symbol; ``q=None`` gives functions of q.
    """
    qq = _exact_q(q)
    _, a1, a2 = _taylor_at_one("0", L, qq)
    _, b1, b2 = _taylor_at_one("1", L, qq)
    if direction == "forward":
        n, c1, c2 = N - 1, b1, b2
    elif direction == "reverse":
        n, c1, c2 = N, sp.Integer(0), sp.Integer(0)
    else:
        raise ValueError(f"direction must be forward or reverse, got {direction!r}")
    # coefficients of h and h^2 in (1 + a1 h + a2/2 h^2)^n (1 + c1 h + c2/2 h^2)
    n = sp.sympify(n)
    half = sp.Rational(1, 2)
    h1 = n * a1 + c1
    h2 = n * a2 * half + n * (n - 1) * half * a1**2 + n * a1 * c1 + c2 * half
    G1, G2 = h1, 2 * h2
    mean = G1
    var = G2 + G1 - G1**2
    if isinstance(N, int) or q is not None:
        return _maybe(mean, q, N), _maybe(var, q, N)
    return sp.cancel(mean), sp.cancel(var)


def _maybe(x, q, N):
    x = sp.cancel(sp.together(sp.expand(x)))
    if q is not None and isinstance(N, int):
        return Fraction(int(x.p), int(x.q))
    return x


def moments_R(N: int, L: int, q=None, direction: str = "forward"):
    """Exact ``(E R, Var R)`` for the forward direction, ``R = X/N``.

    The reverse direction has ``R = N/X``: its moments have no closed form
    (:data:`NO_CLOSED_FORM_REVERSE_MEAN`); this raises ``ValueError`` and points to
    :func:`moments_R_enumerate`.
    """
    if direction != "forward":
        raise ValueError(NO_CLOSED_FORM_REVERSE_MEAN)
    mean, var = moments_X(N, L, q, "forward")
    return _out(sp.sympify(mean) / N, q), _out(sp.sympify(var) / N**2, q)


def _compositions(n: int, parts: int):
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, parts - 1):
            yield (first,) + rest


def moments_R_enumerate(N: int, L: int, q, direction: str = "forward", limit: int = 300_000):
    """Exact ``(E R, Var R)`` by enumerating the law of ``T`` (000 (3.5)).

    Works in both directions (reverse: ``R = N/X``, no closed form); the number
    of outcomes is ``C(N+L, L)``, refused above ``limit``.

    >>> moments_R_enumerate(3, 1, "1/4") == moments_R(3, 1, "1/4")
    True
    """
    q = Fraction(q) if not isinstance(q, Fraction) else q
    if comb(N + L, L) > limit:
        raise ValueError(f"C(N+L, L) = {comb(N + L, L)} outcomes exceed limit={limit}")
    p = 1 - q
    pi0 = [comb(L, l) * q**l * p**(L - l) for l in range(L + 1)]
    pi1 = [comb(L, l) * p**l * q**(L - l) for l in range(L + 1)]
    c = [(q / p) ** (L - 2 * l) for l in range(L + 1)]
    n0 = N - 1 if direction == "forward" else N
    if direction not in ("forward", "reverse"):
        raise ValueError(f"direction must be forward or reverse, got {direction!r}")
    m1 = m2 = Fraction(0)
    for T in _compositions(n0, L + 1):
        pr = Fraction(factorial(n0))
        for l, tl in enumerate(T):
            pr = pr * pi0[l] ** tl / factorial(tl)
        X = sum(tl * cl for tl, cl in zip(T, c))
        if direction == "forward":
            for l in range(L + 1):
                r = (X + c[l]) / N
                w = pr * pi1[l]
                m1 += w * r
                m2 += w * r * r
        else:
            r = Fraction(N) / X
            m1 += pr * r
            m2 += pr * r * r
    return m1, m2 - m1 * m1


# ----------------------------------------------------------------------------
# k-randomization
# ----------------------------------------------------------------------------

def _coef_xy(m: int, a: int, b: int, alpha_pow, beta_pow):
    """``[x^a y^b] (1 + alpha (x + y) + beta x y)^m`` as a dict {(i, j): int}
    meaning ``sum int * alpha^i * beta^j``."""
    out = {}
    for h in range(max(0, a + b - m), min(a, b) + 1):
        c = factorial(m) // (factorial(h) * factorial(a - h) * factorial(b - h)
                             * factorial(m - a - b + h))
        key = (alpha_pow * (a + b - 2 * h), beta_pow * h)
        out[key] = out.get(key, 0) + c
    return out


@lru_cache(maxsize=64)
def ek_moment_polynomials(N: int, k: int, under: str = "Dm"):
    """Integer polynomials for ``E e_k`` and ``E e_k^2`` of the ``n = kN`` ratios.

    Returns ``(P1, P2)``: dicts ``{(i, j): coeff}`` standing for
    ``sum coeff * A^i * B^j`` with ``A = phi^L = E rho_1 = E rho_0^2`` and
    ``B = psi^L = E rho_1^2`` (``E rho_0 = 1``).  ``under="Dm"``: ``k`` of the
    records come from all-ones originals (forward); ``under="D"``: none do.
    """
    n = k * N
    ones = k if under == "Dm" else 0
    if under not in ("Dm", "D"):
        raise ValueError("under must be 'Dm' or 'D'")
    zeros = n - ones
    # E e_k = [x^k] (1 + x)^zeros (1 + A x)^ones
    P1 = {}
    for r in range(0, min(k, ones) + 1):
        if k - r <= zeros:
            key = (r, 0)
            P1[key] = P1.get(key, 0) + comb(ones, r) * comb(zeros, k - r)
    # E e_k^2 = [x^k y^k] (1 + (x+y) + A xy)^zeros (1 + A (x+y) + B xy)^ones
    P2 = {}
    for a in range(k + 1):
        for b in range(k + 1):
            c0 = _coef_xy(zeros, a, b, 0, 1)        # alpha = 1, beta = A
            c0 = {(j, 0): v for (i, j), v in c0.items()}   # beta^j = A^j
            c1 = _coef_xy(ones, k - a, k - b, 1, 1)  # alpha = A, beta = B
            for (i0, j0), v0 in c0.items():
                for (i1, j1), v1 in c1.items():
                    key = (i0 + i1, j1)
                    P2[key] = P2.get(key, 0) + v0 * v1
    return P1, P2


def _eval_poly(P, A, B):
    return sum(c * A**i * B**j for (i, j), c in P.items())


def moments_Rk(N: int, L: int, k: int, q=None, under: str = "Dm"):
    """Exact ``(E R(S^k), Var R(S^k))`` for the k-randomized canonical pair.

    ``under="Dm"`` (default): ``S^k ~ A(D_m^k)`` (the forward direction of
    000 §6 / App. II); ``under="D"``: ``S^k ~ A(D^k)``, where ``E R = 1``.
    ``A = E rho_1 = phi^L`` and ``B = E rho_1^2 = psi^L`` are taken from the
    PGFs (:func:`vector_moments`).  ``q=None`` returns rational functions of q.

    >>> moments_Rk(2, 1, 2, "1/4")
    (Fraction(71, 27), Fraction(988, 243))
    """
    e0, A = vector_moments(L, q, "0")
    A1, B = vector_moments(L, q, "1")
    if q is None:
        assert sp.cancel(A - A1) == 0 and sp.cancel(e0 - 1) == 0
    else:
        assert A == A1 and e0 == 1
    P1, P2 = ek_moment_polynomials(N, k, under)
    C = comb(k * N, k)
    m1 = _eval_poly(P1, A, B)
    m2 = _eval_poly(P2, A, B)
    if q is None:
        mean = sp.cancel(sp.together(m1 / C))
        var = sp.cancel(sp.together(m2 / C**2 - mean**2))
        return mean, var
    mean = Fraction(m1, C)
    return mean, Fraction(m2, C * C) - mean * mean


def _binom_columns(n: int, k: int) -> list[list[int]]:
    """``M[a][r] = C(n - r, a - r)`` for ``0 <= r <= a <= k`` (0 above the diagonal), exact."""
    M = [[0] * (k + 1) for _ in range(k + 1)]
    for r in range(k + 1):
        c = 1
        for a in range(r, k + 1):
            M[a][r] = c
            c = c * (n - a) // (a - r + 1)          # C(n - r, a + 1 - r)
    return M


def moments_Rk_factored(N: int, k: int, A, B):
    """``(E R(S^k), Var R(S^k))`` under ``S^k ~ A(D_m^k)`` from ``A = phi^L``, ``B = psi^L``,
    in ``O(k^3)`` -- the same quantity as :func:`moments_Rk`, for deployment sizes.

    With ``Z = kN - k`` null outputs and ``k`` from the changed user (000 §6, App. II):
    ``E e_k = sum_r C(k, r) A^r C(Z, k - r)`` and ``E e_k^2 = [x^k y^k] F1 F2`` with
    ``F1 = ((1+x)(1+y) + (A-1) xy)^Z`` and ``F2 = ((1+Ax)(1+Ay) + (B-A^2) xy)^k``;
    ``[x^a y^b] F1 = sum_r C(Z,r) (A-1)^r C(Z-r, a-r) C(Z-r, b-r)`` and likewise ``F2``, so
    ``E e_k^2 = sum_(r,s) D1_r X_rs^2 D2_s`` with ``X = M1^T J M2`` (``J`` the reversal
    ``a -> k - a``), ``M1[a,r] = C(Z-r, a-r)``, ``M2[c,s] = C(k-s, c-s) A^(c-s)``,
    ``D1_r = C(Z,r) (A-1)^r``, ``D2_s = C(k,s) (B-A^2)^s``; ``R = e_k / C(kN, k)``.
    Generic: ``A``, ``B`` as arb balls (the product in ``arb_mat``, an enclosure) or
    Fractions (exact).

    >>> from fractions import Fraction as F
    >>> a, b = vector_moments(1, "1/4", "1")
    >>> moments_Rk_factored(2, 2, a, b) == moments_Rk(2, 1, 2, "1/4")
    True
    """
    Z = k * N - k
    C = comb(k * N, k)
    M1 = _binom_columns(Z, k)
    mean_ek = sum(comb(k, r) * A ** r * comb(Z, k - r) for r in range(k + 1))
    D1 = [comb(Z, r) * (A - 1) ** r for r in range(k + 1)]
    D2 = [comb(k, s) * (B - A * A) ** s for s in range(k + 1)]
    Apow = [A ** j for j in range(k + 1)]
    Mk = _binom_columns(k, k)
    M2 = [[Mk[c][s] * Apow[c - s] if c >= s else 0 for s in range(k + 1)] for c in range(k + 1)]
    JM2 = M2[::-1]
    n = k + 1
    from flint import arb, arb_mat
    if isinstance(A, arb) or isinstance(B, arb):
        X = arb_mat(n, n, [M1[a][r] for r in range(n) for a in range(n)]) * \
            arb_mat(n, n, [x for row in JM2 for x in row])
        X = [[X[r, s] for s in range(n)] for r in range(n)]
    else:
        X = [[sum(M1[a][r] * JM2[a][s] for a in range(n)) for s in range(n)] for r in range(n)]
    second = sum(D1[r] * sum(X[r][s] ** 2 * D2[s] for s in range(n)) for r in range(n))
    mean = mean_ek / C
    return mean, second / (C * C) - mean * mean
