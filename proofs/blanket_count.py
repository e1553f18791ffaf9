"""The blanket-count bound for shuffled L-bit RR (exactdp's all-pairs argument).

Used by ``exactdp/apps/blanket_count.py`` (statement and proof in its module
docstring) and ``exactdp/apps/guarantee.py`` (upper-end candidate
``blanket-exact-count``).  Setting: 000_3d8ddaba8b46cf9c.txt §1.3 (n users,
L-bit RR with flip probability q); ``D_lam(P||Q) = sum (P - lam Q)_+``.

Records:

* ``bc-blanket-split`` -- ``P_y - (2q)^L U >= 0`` pointwise with mass
  ``1 - (2q)^L``: every user's law contains the uniform blanket.
* ``bc-exact-divergence`` -- (2) of the module: the divergence between "x's
  report + m uniform reports, unordered" and the same with x' equals
  ``2^L/(m+1) E[(sum_j g(W_j))_+]``; checked against the exact multiset laws
  enumerated vector by vector.
* ``bc-monotone-m`` -- ``delta_{m+1} <= delta_m`` (data processing), checked.
* ``bc-balle-identity`` -- ``Bin(n-1, g)(m)/(m+1) = Bin(n, g)(m+1)/(n g)``
  (sympy): (1) is Balle et al.'s blanket-lemma expression.
* ``bc-theorem`` -- (1) truncated at every m_max is >= the exact divergence
  of every neighbouring pair (both orders, every other users' multiset),
  exhaustively for tiny n, L.

Run: ``python proofs/blanket_count.py``.
"""

from __future__ import annotations

import itertools
import sys
from collections import defaultdict
from fractions import Fraction
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sympy as sp  # noqa: E402

import _core as C  # noqa: E402
from _core import hockey, report_prob  # noqa: E402

TOPIC = "blanket_count"
SRC = C.P000
MOD = "exactdp/apps/blanket_count.py"


# --------------------------------------------------------------- exact oracles
def multiset_law(laws):
    """Exact law of the sorted tuple of independent reports with the given laws (dicts)."""
    out = {(): Fraction(1)}
    for law in laws:
        nxt = defaultdict(Fraction)
        for hist, pr in out.items():
            for y, py in law.items():
                if py:
                    nxt[tuple(sorted(hist + (y,)))] += pr * py
        out = nxt
    return out


def rr_law(x, q, L):
    return {y: report_prob(x, y, q) for y in itertools.product((0, 1), repeat=L)}


def uniform(L):
    return {y: Fraction(1, 2 ** L) for y in itertools.product((0, 1), repeat=L)}


def delta_m_brute(L, q, lam, x, xp, m):
    """delta_m by enumerating the two multiset laws (x's report + m uniform reports)."""
    U = uniform(L)
    P = multiset_law([rr_law(x, q, L)] + [U] * m)
    Q = multiset_law([rr_law(xp, q, L)] + [U] * m)
    return hockey(P, Q, lam)


def delta_m_formula(L, q, lam, x, xp, m):
    """(2): 2^L/(m+1) E[(sum_{j<=m} g(W_j))_+] over ordered uniform tuples (vector by vector)."""
    ys = list(itertools.product((0, 1), repeat=L))
    g = {y: report_prob(x, y, q) - lam * report_prob(xp, y, q) for y in ys}
    tot = Fraction(0)
    for tup in itertools.product(ys, repeat=m + 1):
        s = sum(g[y] for y in tup)
        if s > 0:
            tot += s
    return Fraction(2 ** L, m + 1) * tot / 2 ** (L * (m + 1))


def bound(n, L, q, lam, x, xp, m_max):
    """(1) truncated at m_max, exact (binomial weights as Fractions)."""
    gam = (2 * q) ** L
    k = min(m_max, n - 1)
    ds = [delta_m_brute(L, q, lam, x, xp, m) for m in range(k + 1)]
    ws = [comb(n - 1, m) * gam ** m * (1 - gam) ** (n - 1 - m) for m in range(k)]
    ws.append(1 - sum(ws, Fraction(0)))
    return sum((w * dm for w, dm in zip(ws, ds)), Fraction(0))


def worst_over_others(n, L, q, lam, x, xp):
    ys = list(itertools.product((0, 1), repeat=L))
    best = Fraction(0)
    for others in itertools.combinations_with_replacement(ys, n - 1):
        laws = [rr_law(o, q, L) for o in others]
        P = multiset_law([rr_law(x, q, L)] + laws)
        Q = multiset_law([rr_law(xp, q, L)] + laws)
        best = max(best, hockey(P, Q, lam))
    return best


def identities():
    rec = C.Recorder(TOPIC)

    ok = True
    for L in range(1, 5):
        for qv in (Fraction(1, 4), Fraction(1, 3), Fraction(1, 10), Fraction(49, 100)):
            gam = (2 * qv) ** L
            for x in itertools.product((0, 1), repeat=L):
                law = rr_law(x, qv, L)
                rest = {y: law[y] - gam / 2 ** L for y in law}
                ok &= all(v >= 0 for v in rest.values()) and sum(rest.values()) == 1 - gam
    rec.add("bc-blanket-split", SRC, f"{MOD}, step 1",
            "for every x: P_x = (2q)^L U + (1 - (2q)^L) Q_x with Q_x a probability law "
            "(U uniform on {0,1}^L)",
            "proved" if ok else "refuted",
            "P_x(y) = p^(L-h) q^h >= q^L = (2q)^L / 2^L (p > q, h the Hamming distance), so "
            "P_x - (2q)^L U >= 0 and has mass 1 - (2q)^L.  Exhaustive exact check L <= 4, "
            "q in 1/4 1/3 1/10 49/100.", expect="proved")

    ok, cases = True, 0
    for L in (1, 2, 3):
        for qv in (Fraction(1, 4), Fraction(1, 10)):
            e0 = ((1 - qv) / qv) ** L
            for lamv in (Fraction(1), Fraction(3, 2), e0 / 2):
                for h in range(1, L + 1):
                    x, xp = (0,) * L, (1,) * h + (0,) * (L - h)
                    for m in range(0, 4 if L < 3 else 2):
                        a = delta_m_brute(L, qv, lamv, x, xp, m)
                        b = delta_m_formula(L, qv, lamv, x, xp, m)
                        ok &= a == b
                        cases += 1
    rec.add("bc-exact-divergence", SRC, f"{MOD}, (2)",
            "D_lam(law of {X, Z_1..Z_m} || law of {X', Z_1..Z_m}) = 2^L/(m+1) E[(sum_{j=0}^m "
            "g(W_j))_+] with X ~ P_x, X' ~ P_x', Z_i, W_j iid uniform, g = P_x - lam P_x'",
            "proved" if ok else "refuted",
            "the unordered tuple has the law of a uniformly permuted ordered tuple, whose "
            "probability at (w_0..w_m) is 2^(-Lm) (1/(m+1)) sum_j P_x(w_j); the hockey-stick sum "
            "over ordered tuples of a permutation-invariant likelihood equals the one over "
            f"multisets.  Exact check in {cases} cases (L <= 3, m <= 3, q in 1/4 1/10, lam in "
            "1, 3/2, e0/2, every Hamming distance): multiset laws enumerated vector by vector vs "
            "the ordered-tuple formula.", expect="proved")

    ok, cases = True, 0
    for L in (1, 2, 3):
        for qv in (Fraction(1, 4), Fraction(1, 3)):
            for lamv in (Fraction(1), Fraction(2)):
                for h in range(1, L + 1):
                    x, xp = (0,) * L, (1,) * h + (0,) * (L - h)
                    prev = None
                    for m in range(0, 4 if L < 3 else 3):
                        cur = delta_m_brute(L, qv, lamv, x, xp, m)
                        ok &= prev is None or cur <= prev
                        prev = cur
                        cases += 1
    rec.add("bc-monotone-m", SRC, f"{MOD}, step 2",
            "delta_{m+1}(lam) <= delta_m(lam) for every lam (m uniform reports beside user 1's)",
            "proved" if ok else "refuted",
            "the multiset with m + 1 uniform reports is a Markov kernel (add an independent "
            "uniform report, forget the order) of the multiset with m; the kernel is the same "
            "under both laws, and D_lam does not increase under a kernel (data processing).  "
            f"Exact check in {cases} cases.", expect="proved")

    n_, m_, g_ = sp.symbols("n m g", positive=True)
    lhs = sp.binomial(n_ - 1, m_) * g_ ** m_ * (1 - g_) ** (n_ - 1 - m_) / (m_ + 1)
    rhs = sp.binomial(n_, m_ + 1) * g_ ** (m_ + 1) * (1 - g_) ** (n_ - m_ - 1) / (n_ * g_)
    ok = C.is_zero(sp.simplify(sp.combsimp((lhs / rhs).rewrite(sp.gamma))) - 1)
    rec.add("bc-balle-identity", SRC, f"{MOD}, (1) = Balle et al. CRYPTO 2019 blanket lemma",
            "Bin(n-1, g)(m) / (m+1) = Bin(n, g)(m+1) / (n g); hence (1) with (2) equals "
            "E[(sum_{i<=M} l_i)_+] / (g n), M ~ Bin(n, g), l = g(W)/omega(W)",
            "proved" if ok else "refuted",
            "sympy: the ratio of the two sides simplifies to 1 (C(n-1, m)/(m+1) = C(n, m+1)/n); "
            "substituting k = m + 1 and delta_m = E[(sum_{j<=m} l_j)_+]/(m+1) gives the lemma's "
            "expression (the k = 0 term is 0).", expect="proved")

    viol, cases = None, 0
    grid = [(2, 1), (3, 1), (4, 1), (2, 2), (3, 2), (2, 3)]
    for (n, L) in grid:
        vecs = list(itertools.product((0, 1), repeat=L))
        for qv in (Fraction(1, 4), Fraction(1, 10), Fraction(2, 5)):
            e0 = ((1 - qv) / qv) ** L
            for lamv in (Fraction(1), Fraction(2), e0 / 2, e0 * 9 / 10):
                if lamv < 1:
                    continue
                for x, xp in itertools.permutations(vecs, 2):
                    if L == 3 and x != (0,) * L:
                        continue        # by symmetry x = 0^L, every x' (both orders below)
                    worst = max(worst_over_others(n, L, qv, lamv, x, xp),
                                worst_over_others(n, L, qv, lamv, xp, x))
                    for m_max in range(0, n):
                        b = bound(n, L, qv, lamv, x, xp, m_max)
                        cases += 1
                        if worst > b and viol is None:
                            viol = dict(n=str(n), L=str(L), q=C.fmt(qv), lam=C.fmt(lamv),
                                        x=str(x), xp=str(xp), m_max=str(m_max),
                                        worst=C.fmt(worst), bound=C.fmt(b))
    rec.add("bc-theorem", SRC, f"{MOD}, (1)",
            "for every neighbouring pair (user 1: x vs x', others y_2..y_n) and lam >= 1: "
            "D_lam <= sum_{m < K} Bin(n-1, (2q)^L)(m) delta_m(lam) + P(M >= K) delta_K(lam) for "
            "every K >= 0 (delta_m of x, x' as in (2))",
            "proved" if viol is None else "refuted",
            "proof in the module docstring of exactdp/apps/blanket_count.py: split every other "
            "user's law by bc-blanket-split with an independent Bern((2q)^L) label; given the set "
            "S of blanket users the shuffled histogram is a kernel of (multiset of user 1 and S, "
            "independent reports outside S with the same law under both datasets), so data "
            "processing bounds the conditional divergence by delta_|S|; joint convexity of D_lam "
            "over the common mixture over S gives (1), and bc-monotone-m the truncation.  "
            f"Belt and braces: {cases} exhaustive exact cases (n <= 4, L <= 3, every pair of "
            "vectors for L <= 2 and x = 0^L for L = 3, both orders, every other users' multiset, "
            "q in 1/4 1/10 2/5, lam in 1, 2, e0/2, 9 e0/10, every truncation K < n), no violation.",
            expect="proved")
    return rec.records


if __name__ == "__main__":
    C.main_for(identities)
