"""Multivariate vectors, reverse direction -- 003_602e16ce409ec962.txt §2.1 ((2.1)-(2.33)).

Here D = N-1 zero vectors + one all-ones vector, D_m = N zero vectors, and
X = N/R(S) = sum_l s_l (q/p)^(L-2l) under S ~ A(D_m).

Run: ``python proofs/multivariate_003.py``.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sympy as sp  # noqa: E402

import _core as C  # noqa: E402
from _core import L, N, l, p, q  # noqa: E402

TOPIC = "multivariate_003"
SRC = C.P003

c_l = (q / p) ** (L - 2 * l)
phiL = ((p**3 + q**3) / (p * q)) ** L


def _P(x, s, qq):
    m = sum(1 for a, b in zip(x, s) if a == b)
    return qq ** (len(x) - m) * (1 - qq) ** m


def identities():
    rec = C.Recorder(TOPIC)

    # (2.1)-(2.7): the ratio; exhaustive symbolic check of (2.7)
    ok = True
    for Lv, Nv in ((1, 2), (1, 3), (2, 2), (2, 3)):
        V = list(product((0, 1), repeat=Lv))
        zero, one = (0,) * Lv, (1,) * Lv
        acc = {}
        for seq in product(range(len(V)), repeat=Nv):
            h = tuple(seq.count(j) for j in range(len(V)))
            a = sp.Mul(*[_P(zero, V[j], q) for j in seq])                                   # D + 0 = D_m
            b = sp.Mul(*[_P(one if i == 0 else zero, V[j], q) for i, j in enumerate(seq)])  # D' + 1 = D
            x, y = acc.get(h, (0, 0))
            acc[h] = (x + a, y + b)
        for h, (a, b) in acc.items():
            claim = Nv / sum(h[j] * _P(one, V[j], q) / _P(zero, V[j], q) for j in range(len(V)))
            ok &= C.is_zero(a / b - claim)
    rec.add("003-2.1", SRC, "(2.1)", "P(S|D'+y) = sum_i P(S - e_i|D') p(v_i|y)", "proved",
            "Conditioning on the synthetic vector of the extra record y (law of total probability).",
            expect="proved")
    rec.add("003-2.3", SRC, "(2.2)-(2.3)", "ratio rewritten by dividing through by P(s_1-1,...|D')", "proved",
            "Dividing numerator and denominator by the same positive number.", expect="proved")
    rec.add("003-2.5", SRC, "(2.4)-(2.5)",
            "P(..s_i-1..|D')/P(s_1-1,..|D') = (s_i/s_1) p(v_1|0)/p(v_i|0) = (s_i/s_1) p^L/p(v_i|0)",
            "proved",
            "Same as 000-2.3 (the multinomial coefficient printed with (2^L)! instead of (N-1)! cancels); "
            "p(v_1|0) = p^L for v_1 = 0.", expect="proved")
    rec.add("003-2.7", SRC, "(2.6)-(2.7)", "P(S|D'+0)/P(S|D'+1) = N / sum_i s_i p(v_i|1)/p(v_i|0)",
            "proved" if ok else "refuted",
            "Multiply (2.5)-form by s_1/p^L; sum_i s_i = N.  Exhaustive symbolic check in q against the "
            "histogram law for (N,L) in {(2,1),(3,1),(2,2),(3,2)}.", expect="proved")
    rec.add("003-2.9", SRC, "(2.8)-(2.9)", "p(v|1)/p(v|0) = (q/p)^(L-2l) for v with l set bits", "proved",
            "Same as 000-3.2.", expect="proved")
    rec.add("003-2.11", SRC, "(2.10)-(2.11)", "R(S) = N / sum_l s_l (q/p)^(L-2l); 1/R = (1/N) sum_l s_l (q/p)^(L-2l)",
            "proved" if ok else "refuted", "Grouping (2.7) by set-bit count (as 000-3.4).", expect="proved")
    rec.add("003-2.13", SRC, "(2.12)-(2.13)", "p(l|1) = C(L,l) p^l q^(L-l), p(l|0) = C(L,l) q^l p^(L-l)", "proved",
            "Same as 000-3.7, 000-3.9.", expect="proved")
    # X definition inconsistency
    rec.add("003-2.X", SRC, "§2.1.2 definition of X and (2.14)",
            "X = 1/R(S) = (1/N) sum_l s_l c_l, X_l = c_l Bin(N, p(l|0)), consistent with (2.15) E X = N",
            "refuted",
            "With the 1/N, E X = 1; (2.14)-(2.25) are right for X = N/R(S) = sum_l s_l c_l (no 1/N).",
            expect="refuted",
            counterexample={"N": "2", "L": "1", "q": "1/4", "E[(1/N) sum s_l c_l]": "1", "(2.15)": "2"},
            corrected="X = N/R(S) = sum_l s_l (q/p)^(L-2l), X_l = c_l s_l with s_l ~ Bin(N, p(l|0))  [proved]")
    # (2.15)
    EX = C.binomial_sum_closed(q**l * p**(L - l) * c_l)
    ok = C.is_zero(EX - 1) and C.is_zero(q**l * p**(L - l) * c_l - q**(L - l) * p**l)
    rec.add("003-2.15", SRC, "(2.15)", "E X = sum_l N p(l|0) (q/p)^(L-2l) = N sum C q^(L-l) p^l = N (p+q)^L = N",
            "proved" if ok else "refuted", "Termwise identity and the binomial theorem, symbolic L.", expect="proved")
    rec.add("003-2.16", SRC, "(2.16)", "Var X = sum_l Var X_l + 2 sum_{i<j} Cov(X_i, X_j)", "proved",
            "Variance of a sum (bilinearity of covariance).", expect="proved")
    # (2.17)-(2.18): -2 sum_{j != i} double counts
    Lv, Nv, qv = 1, 1, Fraction(1, 4)
    pv = 1 - qv
    pl = [pv, qv] if Lv == 1 else None
    cl = [(qv / pv) ** (Lv - 2 * j) for j in range(Lv + 1)]
    true_var = Nv * (sum(pl[j] * cl[j] ** 2 for j in range(Lv + 1)) - sum(pl[j] * cl[j] for j in range(Lv + 1)) ** 2)
    printed = Nv * sum(cl[j] ** 2 * pl[j] * (1 - pl[j]) for j in range(Lv + 1)) - 2 * Nv * sum(
        pl[i] * cl[i] * pl[j] * cl[j] for i in range(Lv + 1) for j in range(Lv + 1) if i != j)
    rec.add("003-2.17", SRC, "(2.17)-(2.18)",
            "Var X = sum_l N c_l^2 p_l(1-p_l) - 2 sum_{j != i} N p_i c_i p_j c_j",
            "refuted" if printed != true_var else "proved",
            "Multinomial Cov(s_i, s_j) = -N p_i p_j, so the cross term is -2 sum_{i<j} (= -sum_{i != j}); "
            "-2 sum over ordered pairs i != j counts each pair twice.", expect="refuted",
            counterexample={"N": "1", "L": "1", "q": "1/4", "lhs_printed": C.fmt(printed), "Var X": C.fmt(true_var)},
            corrected="Var X = N[sum_l c_l^2 p_l(1-p_l) - 2 sum_{i<j} p_i c_i p_j c_j]  [proved: multinomial covariance]")
    rec.add("003-2.19", SRC, "(2.19)", "Var X = N(sum_l c_l^2 p(l|0) - (sum_l p(l|0) c_l)^2)", "proved",
            "Expansion of the square (with the corrected cross term); equivalently Var of a sum of N iid X0.",
            expect="proved")
    EX2 = C.binomial_sum_closed(q**l * p**(L - l) * c_l**2)
    ok = C.is_zero(EX2 - phiL)
    rec.add("003-2.20", SRC, "(2.20)", "Var X = N(sum_l c_l^2 p(l|0) - 1)", "proved", "(2.19) with (2.15).",
            expect="proved")
    ok2 = (C.is_zero(q**l * p**(L - l) * c_l**2 - p**l * q**(L - l) * c_l)
           and C.is_zero(p**l * q**(L - l) * c_l - q**(2 * L - 3 * l) / p**(L - 3 * l))
           and C.is_zero(q**(2 * L - 3 * l) / p**(L - 3 * l) - q**(3 * L - 3 * l) * p**(3 * l) / (p * q) ** L))
    rec.add("003-2.24", SRC, "(2.21)-(2.24)", "sum_l c_l^2 p(l|0) = ... = ((p^3+q^3)/(pq))^L",
            "proved" if (ok and ok2) else "refuted", "Termwise identities symbolic in l, L; binomial theorem.",
            expect="proved")
    rec.add("003-2.25", SRC, "(2.25)", "Var X = N(((p^3+q^3)/(pq))^L - 1)", "proved" if ok else "refuted",
            "(2.20) with (2.24); equals exactdp.oracles.moments reverse (see exactdp-moments-reverse).", expect="proved")
    # (2.26)-(2.33)
    lam = sp.Symbol("lambda", positive=True)
    rec.add("003-2.27", SRC, "(2.26)-(2.27)", "(1/N)(E X - 3 sqrt(Var X)) = 1 - (3/N) sqrt(N(phi^L - 1))", "proved",
            "Substitution of (2.15), (2.25).", expect="proved")
    rec.add("003-2.29", SRC, "(2.28)-(2.29)", "(2.27) <=> phi^L - 1 <= (1-1/lambda)^2 N/9 <=> phi^L <= 1 + (1-1/lambda)^2 N/9",
            "proved", "Both sides of 3 sqrt((phi^L-1)/N) <= 1 - 1/lambda are nonnegative for lambda >= 1; squaring.",
            expect="proved")
    Mv = 1 + Fraction(1, 4) * Fraction(100, 9)       # lambda = 2, N = 100
    qv = Fraction(1, 4)
    pv = 1 - qv
    ph = (pv**3 + qv**3) / (pv * qv)                  # 7/3
    ok_cex = ph <= Mv and ph**2 > Mv
    rec.add("003-2.30", SRC, "(2.30)", "phi <= sqrt[1]{1 + (1-1/lambda)^2 N/9}  (as printed: the 1st root)",
            "refuted" if ok_cex else "proved",
            "The printed root index is 1; (2.29) needs the L-th root.", expect="refuted",
            counterexample={"L": "2", "N": "100", "lambda": "2", "q": "1/4", "phi": C.fmt(ph),
                            "1+(1-1/lambda)^2 N/9": C.fmt(Mv), "phi^L": C.fmt(ph**2)},
            corrected="phi <= (1 + (1-1/lambda)^2 N/9)^(1/L)  [proved: t -> t^(1/L) increasing]")
    ok = C.is_zero((p**3 + q**3) / (p * q) - (1 - 3 * q + 3 * q**2) / (q * (1 - q)))
    rec.add("003-2.31", SRC, "(2.31)", "(p^3+q^3)/(pq) = (1-3q+3q^2)/(q(1-q))", "proved" if ok else "refuted",
            "p = 1 - q, symbolic.", expect="proved")
    Ms = sp.Symbol("M", positive=True)
    ok = C.is_zero(sp.expand((1 - 3 * q + 3 * q**2) - Ms * q * (1 - q) - (Ms + 3) * (q**2 - q + 1 / (3 + Ms))))
    rec.add("003-2.32", SRC, "(2.32)", "(1-3q+3q^2)/(q(1-q)) <= M  <=>  q^2 - q + 1/(3+M) <= 0",
            "proved" if ok else "refuted",
            "1 - 3q + 3q^2 - M q(1-q) = (M+3)(q^2 - q + 1/(M+3)) symbolically, and q(1-q) > 0.",
            expect="proved")
    cst = 1 / (3 + Ms)
    r1 = (1 - sp.sqrt(1 - 4 * cst)) / 2
    ok = C.is_zero(sp.expand(r1**2 - r1 + cst))
    rec.add("003-2.33", SRC, "(2.33)", "(2.32) with q < 1/2  <=>  q >= (1/2)(1 - sqrt(1 - 4/(3+M)))",
            "proved" if ok else "refuted",
            "The quadratic's roots are (1 +- sqrt(1-4/(3+M)))/2 (the smaller verified symbolically); M >= 1 "
            "so the radicand is >= 0; q < 1/2 lies below the larger root.", expect="proved")
    return rec.records


if __name__ == "__main__":
    C.main_for(identities)
