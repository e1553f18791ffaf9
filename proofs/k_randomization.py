"""k-randomization -- 000_3d8ddaba8b46cf9c.txt §6 and Appendix II (8.1)-(8.38).

The true privacy ratio of the k-randomized canonical pair (k all-ones and
kN-k zero originals vs kN zeros, each randomized once) is the U-statistic

    R(S^k) = (1/C(kN,k)) sum_{|J|=k} prod_{i in J} rho_i ,   rho_i = p(s_i|1)/p(s_i|0),

which the paper normalises by (kN-k)!/(kN)! instead (a missing k!).  Its mean is
a hypergeometric mixture of phi^(rL); its variance is NOT the sum of the
subset-term variances (the subsets overlap).  Exact moments (exactdp.oracles.moments)
come from E prod_i (1 + x rho_i)(1 + y rho_i); here they are re-derived by
counting overlapping pairs of subsets and compared as polynomials in
A = phi^L, B = psi^L.

Run: ``python proofs/k_randomization.py``.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from itertools import combinations, product
from math import comb, factorial, prod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sympy as sp  # noqa: E402

import _core as C  # noqa: E402
from _core import L, N, k, l, p, q  # noqa: E402

TOPIC = "k_randomization"
SRC = C.P000

phi = (p**3 + q**3) / (p * q)
psi = (p**5 + q**5) / (p * q) ** 2
A, B = sp.symbols("A B", positive=True)     # A = phi^L, B = psi^L


# ------------------------------------------------------------- closed forms
def mean_Rk_poly(Nv: int, kv: int) -> dict:
    """Proved closed form of E R(S^k) * C(kN,k): {r: C(k,r) C(kN-k,k-r)} (coefficient of A^r)."""
    return {r: comb(kv, r) * comb(kv * Nv - kv, kv - r) for r in range(kv + 1)
            if kv - r <= kv * Nv - kv}


def second_moment_overlap_poly(Nv: int, kv: int) -> dict:
    """E[e_k(rho)^2] as {(i, j): coeff} for A^i B^j by counting ordered pairs (J, J')
    of k-subsets by the types of their shared and private elements.

    Ones (k of them): E rho = A, E rho^2 = B.  Zeros (kN-k): E rho = 1, E rho^2 = A.
    """
    n1, n0 = kv, kv * Nv - kv
    out: dict = {}
    for c1 in range(kv + 1):
        for d1 in range(kv + 1 - c1):
            for e1 in range(kv + 1 - c1 - d1):
                for c0 in range(kv + 1 - c1):
                    d0 = kv - c0 - c1 - d1
                    e0 = kv - c0 - c1 - e1
                    if d0 < 0 or e0 < 0 or c0 + d0 + e0 > n0:
                        continue
                    cnt = (factorial(n1) // (factorial(c1) * factorial(d1) * factorial(e1)
                                             * factorial(n1 - c1 - d1 - e1))
                           * factorial(n0) // (factorial(c0) * factorial(d0) * factorial(e0)
                                               * factorial(n0 - c0 - d0 - e0)))
                    key = (d1 + e1 + c0, c1)
                    out[key] = out.get(key, 0) + cnt
    return out


def exact_moments_Rk(Nv: int, Lv: int, kv: int, qv) -> tuple:
    """(E R(S^k), Var R(S^k)) from the proved closed forms, exact Fractions."""
    qv = Fraction(qv)
    pv = 1 - qv
    a = ((pv**3 + qv**3) / (pv * qv)) ** Lv
    b = ((pv**5 + qv**5) / (pv * qv) ** 2) ** Lv
    Cn = comb(kv * Nv, kv)
    m1 = Fraction(sum(c * a**r for r, c in mean_Rk_poly(Nv, kv).items()), Cn)
    m2 = Fraction(sum(c * a**i * b**j for (i, j), c in second_moment_overlap_poly(Nv, kv).items()), Cn * Cn)
    return m1, m2 - m1 * m1


def paper_bounds(Nv, Lv, kv, qv):
    """(6.1) and (6.2) as printed (exact)."""
    qv = Fraction(qv)
    pv = 1 - qv
    a = ((pv**3 + qv**3) / (pv * qv)) ** Lv
    b = ((pv**5 + qv**5) / (pv * qv) ** 2) ** Lv
    n = kv * Nv
    return (1 + a / n) ** kv, (a / n + b / n**2) ** kv - (Fraction(1, n) + a * a / n**2) ** kv


# ------------------------------------------------------------ brute force
def _P(x, s, qq):
    m = sum(1 for u, v in zip(x, s) if u == v)
    return qq ** (len(x) - m) * (1 - qq) ** m


def _histogram_ratios(Nv, Lv, kv, qq):
    """{histogram: P(S^k|D_m^k)/P(S^k|D^k)} by summing over all labelled outcomes."""
    V = list(product((0, 1), repeat=Lv))
    one, zero = (1,) * Lv, (0,) * Lv
    n = kv * Nv
    acc = {}
    for seq in product(range(len(V)), repeat=n):
        h = tuple(sorted(seq))
        a = prod(_P(one if i < kv else zero, V[j], qq) for i, j in enumerate(seq))
        b = prod(_P(zero, V[j], qq) for j in seq)
        x, y = acc.get(h, (0, 0))
        acc[h] = (x + a, y + b)
    return V, acc


def identities():
    rec = C.Recorder(TOPIC)
    sym = {"q": q}

    # ---------------------------------------------------------------- §6 estimator
    d, Nn, kk = sp.symbols("d N k", positive=True)
    EM = p * kk * d + q * kk * (Nn - d)
    rec.add("000-6-EM", SRC, "§6 E M", "E M = p k d + q k (N - d)", "proved",
            "M is a sum of k d Bernoulli(p) and k(N-d) Bernoulli(q) indicators; linearity.",
            expect="proved")
    ok = C.is_zero((EM / kk - q * Nn) / (p - q) - d)
    rec.add("000-6-dhat", SRC, "§6 E d-hat", "d-hat = (M/k - qN)/(p-q) has E d-hat = d",
            "proved" if ok else "refuted", "Symbolic in d, N, k, q.", expect="proved")
    # sigma(d-hat): printed sqrt(N/k * sqrt(qp)/(p-q)); true sqrt(N/k) sqrt(qp)/(p-q)
    var_true = kk * Nn * p * q / (kk**2 * (p - q) ** 2)
    ok = C.is_zero(var_true - (sp.sqrt(Nn / kk) * sp.sqrt(q * p) / (p - q)) ** 2)
    qv = Fraction(1, 5)   # qp = 4/25 is a square, so both sides are explicit
    printed_sq = Fraction(1) * Fraction(2, 5) / Fraction(3, 5)
    true_sq = Fraction(4, 25) / Fraction(9, 25)
    assert printed_sq != true_sq and ok
    rec.add("000-6-sigma", SRC, "§6 sigma(d-hat)", "sigma(d-hat) = sqrt( (N/k) sqrt(qp)/(p-q) )  (as printed)",
            "refuted", "Var M = kNpq, so Var d-hat = Npq/(k(p-q)^2): the outer root must not cover "
                       "sqrt(qp)/(p-q) (compare squares exactly).",
            expect="refuted",
            counterexample={"q": "1/5", "N": "1", "k": "1", "lhs_squared": C.fmt(printed_sq),
                            "rhs_squared": C.fmt(true_sq), "lhs": "sqrt(2/3)", "rhs": "2/3"},
            corrected="sigma(d-hat) = sqrt(N/k) * sqrt(qp)/(p-q)  [proved: Var d-hat = kNpq/(k^2 (p-q)^2)]")

    # ---------------------------------------------------------------- App II MGF
    c, x = sp.symbols("c x", positive=True)
    ok = C.is_zero(sp.exp(sp.log(c) * x) - c**x) and C.is_zero(sp.exp(2 * sp.log(c) * x) - (c**x) ** 2)
    for eq, stmt in (("(8.1)", "E c^X = E e^(X ln c) = M(ln c)"),
                     ("(8.2)", "E c^(2X) = M(2 ln c)"),
                     ("(8.3)", "Var c^X = M(2 ln c) - M(ln c)^2")):
        rec.add(f"000-{eq[1:-1]}", SRC, eq, stmt, "proved" if ok else "refuted",
                "e^(x ln c) = c^x for c > 0 (sympy), then the definition of the MGF and Var = E Y^2 - (E Y)^2.",
                expect="proved")
    rec.add("000-8.4", SRC, "(8.4)", "R(S) = P(S|D_m)/P(S|D) = P(S|D' u {1})/P(S|D' u {0})", "proved",
            "Definition (2.1) with D = D' u {0}, D_m = D' u {1}.", expect="proved")
    # (8.5): N! prod p(s_i|0) is not the histogram probability
    rec.add("000-8.5", SRC, "(8.5)", "P(S|D) = N! prod_i p(s_i|0)  (S a histogram)", "refuted",
            "For the histogram S the multiplicity is N!/prod_v s_v!, not N!; the same factor is "
            "missing from P(S|D_m), so the ratio (8.6) is unaffected.",
            expect="refuted",
            counterexample={"N": "2", "L": "1", "q": "1/4", "S": "both synthetic bits 0",
                            "lhs": C.fmt(Fraction(3, 4) ** 2), "rhs": C.fmt(2 * Fraction(3, 4) ** 2)},
            corrected="P(S|D) = N!/prod_v s_v! * prod_i p(s_i|0)  [proved: count of orderings of a multiset]")

    # (8.6)-(8.8): the k = 1 ratio; exhaustive symbolic check
    ok = True
    for (Nv, Lv) in ((2, 1), (3, 1), (2, 2)):
        V, acc = _histogram_ratios(Nv, Lv, 1, q)
        for h, (a, b) in acc.items():
            rho = [_P((1,) * Lv, V[j], q) / _P((0,) * Lv, V[j], q) for j in h]
            ok &= C.is_zero(a / b - sum(rho) / Nv)
    rec.add("000-8.6", SRC, "(8.6)", "R(S) = (1/N) sum_j p(s_j|1)/p(s_j|0)", "proved" if ok else "refuted",
            "Same as 000-3.1 (multinomial ratio argument); exhaustive symbolic check in q for (N,L) in "
            "{(2,1),(3,1),(2,2)}.", expect="proved")
    ok = C.is_zero((q / p) ** (L - 2 * l) - (q / p) ** L * (p / q) ** (2 * l))
    rec.add("000-8.7", SRC, "(8.7)", "R(S) = (1/N) sum_i (q/p)^(L-2 l_i)", "proved",
            "By (3.2), symbolic.", expect="proved")
    rec.add("000-8.8", SRC, "(8.8)", "R(S) = (1/N) (q/p)^L sum_i (p/q)^(2 l_i)", "proved" if ok else "refuted",
            "Termwise identity (q/p)^(L-2l) = (q/p)^L (p/q)^(2l), symbolic in l, L.", expect="proved")

    # (8.9)-(8.19) one-vector moments via MGFs (bases only; the L-th power is common)
    e2 = (p / q) ** 2
    M0 = lambda s: (p + q * s)      # noqa: E731  base of M_0 at e^t = s
    M1 = lambda s: (q + p * s)      # noqa: E731
    steps = [
        ("(8.9)", "E Y0 = M0(ln (p/q)^2) = (p + q (p/q)^2)^L = (p/q)^L", M0(e2), p / q),
        ("(8.10)", "E Y0^2 = M0(2 ln (p/q)^2) = (p + q (p/q)^4)^L = ((pq^3+p^4)/q^3)^L", M0(e2**2), (p * q**3 + p**4) / q**3),
        ("(8.11)", "E X0 = (q/p)^L E Y0 = 1", (q / p) * M0(e2), sp.Integer(1)),
        ("(8.12)", "E X0^2 = (q/p)^(2L) ((pq^3+p^4)/q^3)^L = ((q^3+p^3)/(qp))^L", (q / p) ** 2 * M0(e2**2), phi),
        ("(8.15)", "E Y1 = M1(ln (p/q)^2) = (q + p (p/q)^2)^L = ((q^3+p^3)/q^2)^L", M1(e2), (q**3 + p**3) / q**2),
        ("(8.16)", "E Y1^2 = (q + p (p/q)^4)^L = ((q^5+p^5)/q^4)^L", M1(e2**2), (q**5 + p**5) / q**4),
        ("(8.17)", "E X1 = (q/p)^L ((q^3+p^3)/q^2)^L = ((q^3+p^3)/(qp))^L", (q / p) * M1(e2), phi),
        ("(8.18)", "E X1^2 = (q/p)^(2L) ((q^5+p^5)/q^4)^L = ((q^5+p^5)/(qp)^2)^L", (q / p) ** 2 * M1(e2**2), psi),
    ]
    for eq, stmt, lhs, rhs in steps:
        st, _ = C.decide_equal(lhs, rhs, C.points(800, 4, q=None), sym)
        rec.add(f"000-{eq[1:-1]}", SRC, eq, stmt, st,
                "M0(t) = (p + q e^t)^L, M1(t) = (q + p e^t)^L are binomial MGFs; every line is "
                "(base)^L, and the bases agree symbolically with p = 1 - q.", expect="proved")
    rec.add("000-8.13", SRC, "(8.13)", "Var X0 = ((q^3+p^3)/(qp))^L - 1", "proved",
            "(8.12) - (8.11)^2; equals 000-7.7.", expect="proved")
    rec.add("000-8.14", SRC, "(8.14)", "M1(t) = (q + p e^t)^L", "proved",
            "MGF of Bin(L, p) (binomial theorem).", expect="proved")
    rec.add("000-8.19", SRC, "(8.19)", "Var X1 = ((q^5+p^5)/(qp)^2)^L - ((q^3+p^3)/(qp))^(2L)", "proved",
            "(8.18) - (8.17)^2; equals 000-7.9.", expect="proved")

    # ---------------------------------------------------------------- (8.20)-(8.22) normalisation
    ok_true = True
    bad = None
    for (Nv, Lv, kv) in ((2, 1, 2), (3, 1, 2), (2, 2, 2), (2, 1, 3)):
        V, acc = _histogram_ratios(Nv, Lv, kv, q)
        n = kv * Nv
        for h, (a, b) in acc.items():
            rho = [_P((1,) * Lv, V[j], q) / _P((0,) * Lv, V[j], q) for j in h]
            esum = sum(prod(rho[i] for i in J) for J in combinations(range(n), kv))
            ok_true &= C.is_zero(a / b - esum / comb(n, kv))
            if bad is None and (Nv, Lv, kv) == (2, 1, 2) and all(j == 0 for j in h):
                qq = C.R(Fraction(1, 4))
                bad = (C.exact_value(a / b, {q: qq}),
                       C.exact_value(esum * sp.factorial(n - kv) / sp.factorial(n), {q: qq}))
    rec.add("000-8.21", SRC, "(8.20)-(8.21)",
            "R(S^k) = (kN-k)!/(kN)! * sum_{j=1}^{C(kN,k)} prod_{s_i in S_j} p(s_i|1)/p(s_i|0)",
            "refuted",
            "Each k-subset J can be matched to the k ones in k! ways and the rest to the zeros in "
            "(kN-k)! ways, so the factor is k!(kN-k)!/(kN)! = 1/C(kN,k); (8.20) also writes "
            "p(s_i|1) where p(s_i|0) is meant for s_i outside S_j.  Corrected form verified "
            "symbolically in q for every histogram, (N,L,k) in {(2,1,2),(3,1,2),(2,2,2),(2,1,3)}.",
            expect="refuted" if (ok_true and bad[0] != bad[1]) else "proved",
            counterexample={"N": "2", "L": "1", "k": "2", "q": "1/4", "S^k": "all four synthetic bits 0",
                            "true_R": C.fmt(bad[0]), "paper_R": C.fmt(bad[1])},
            corrected="R(S^k) = (1/C(kN,k)) sum_{|J|=k} prod_{i in J} rho_i  [proved: matching count; "
                      "exhaustive symbolic check]")
    Pp, Qq = sp.symbols("P Q", positive=True)
    ls = [sp.Symbol(f"l{i}", integer=True, nonnegative=True) for i in range(3)]
    ok = C.is_zero(sp.powsimp(sp.Mul(*[(Qq / Pp) ** (L - 2 * li) for li in ls])
                              / ((Qq / Pp) ** (3 * L) * (Pp / Qq) ** (2 * sum(ls))), force=True) - 1)
    rec.add("000-8.22", SRC, "(8.22)", "prod_{i in S_j} rho_i = (q/p)^(kL) (p/q)^(2(l_1+...+l_k))",
            "proved" if ok else "refuted",
            "Product of (3.2) terms, symbolic (shown for k = 3 symbolic l_i; the general k is the same "
            "exponent arithmetic).  The prefactor of (8.22) inherits the (8.21) error.", expect="proved")

    # ---------------------------------------------------------------- (8.23)-(8.29)
    rec.add("000-8.23", SRC, "(8.23)", "m + r = k", "proved", "Definition (count of subset members by origin).",
            expect="proved")
    s = sp.Symbol("s", positive=True)
    lit = (p + q * s**2) ** 1           # E s^(2 L0) for L = 1, m = 2 (literal m * L0)
    mgf = (p + q * s) ** 2              # (8.26) for L = 1, m = 2
    v1 = C.exact_value(lit, {q: C.R(Fraction(1, 4)), s: 2})
    v2 = C.exact_value(mgf, {q: C.R(Fraction(1, 4)), s: 2})
    rec.add("000-8.24", SRC, "(8.24)", "L_r = m L_0 + r L_1  (read literally: m times one copy)",
            "refuted" if v1 != v2 else "proved",
            "m*L0 has E s^(m L0) = (p + q s^m)^L, contradicting (8.26); the sum must be over m "
            "independent copies.", expect="refuted",
            counterexample={"L": "1", "m": "2", "r": "0", "q": "1/4", "e^t": "2",
                            "E e^(t m L0)": C.fmt(v1), "(8.26)": C.fmt(v2)},
            corrected="L_r = sum_{i=1}^m L_0^(i) + sum_{j=1}^r L_1^(j) with independent copies  "
                      "[proved: its MGF is (8.26)]")
    mm, rr = sp.symbols("m r", nonnegative=True, integer=True)
    true_ELr = mm * L * q + rr * L * p
    printed = mm * q**L + rr * p**L
    pts = C.points(825, 6, first={"q": Fraction(1, 4), "L": 2, "m": 1, "r": 0}, q=None, L=(1, 6), m=(0, 4), r=(0, 4))
    st, ce = C.decide_equal(printed, true_ELr, pts, {"q": q, "L": L, "m": mm, "r": rr})
    rec.add("000-8.25", SRC, "(8.25)", "E L_r = m q^L + r p^L", st,
            "E L0 = Lq and E L1 = Lp (binomial means), so E L_r = L(mq + rp).", expect="refuted",
            counterexample=ce, corrected="E L_r = m L q + r L p  [proved: linearity, binomial means]")
    et = sp.Symbol("u", positive=True)  # u = e^t
    ok = C.is_zero(sp.expand((p + q * et) ** 3 * (q + p * et) ** 2)
                   - sp.expand(sum(sp.binomial(3, i) * sp.binomial(2, j) * q**i * p**(3 - i) * p**j * q**(2 - j)
                                   * et**(i + j) for i in range(4) for j in range(3))))
    rec.add("000-8.26", SRC, "(8.26)", "M_r(t) = (p + q e^t)^(mL) (q + p e^t)^(rL)", "proved" if ok else "refuted",
            "MGF of a sum of independent Bin(mL, q) and Bin(rL, p) = product of MGFs (independence); "
            "the convolution is checked symbolically for mL = 3, rL = 2.", expect="proved")
    # (8.27), (8.28) with bases to the powers mL, rL (m = k - r)
    m_, r_ = sp.symbols("m r", positive=True)
    EXr = (q / p) ** ((m_ + r_) * L) * (p + q * e2) ** (m_ * L) * (q + p * e2) ** (r_ * L)
    ok27 = C.is_zero(sp.powsimp(EXr, force=True) - phi ** (r_ * L))
    ok27 = ok27 or C.is_zero(sp.expand_power_base((q / p) ** m_ * (p + q * e2) ** m_, force=True).simplify() - 1)
    base_m = sp.cancel((q / p) * (p + q * e2))
    base_r = sp.cancel((q / p) * (q + p * e2) - phi)
    ok27 = C.is_zero(base_m - 1) and C.is_zero(base_r)
    rec.add("000-8.27", SRC, "(8.27)", "E X_r = (q/p)^(kL) M_r(2 ln(p/q)) = phi^(rL)", "proved" if ok27 else "refuted",
            "(q/p)^(kL) = (q/p)^(mL)(q/p)^(rL); the m-part base (q/p)(p + q(p/q)^2) = 1 and the r-part base "
            "(q/p)(q + p(p/q)^2) = phi symbolically.  (The paper writes M_k for M_r.)", expect="proved")
    b28m = sp.cancel((q / p) ** 2 * (p + q * e2**2) - phi)
    b28r = sp.cancel((q / p) ** 2 * (q + p * e2**2) - psi)
    rec.add("000-8.28", SRC, "(8.28)", "E X_r^2 = phi^(mL) psi^(rL)",
            "proved" if (C.is_zero(b28m) and C.is_zero(b28r)) else "refuted",
            "X_r^2 = (q/p)^(2kL)(p/q)^(4 L_r); bases (q/p)^2 (p + q(p/q)^4) = phi and (q/p)^2 (q + p(p/q)^4) = psi "
            "symbolically.", expect="proved")
    qv = Fraction(1, 4)
    pv = 1 - qv
    ph_v = (pv**3 + qv**3) / (pv * qv)
    ps_v = (pv**5 + qv**5) / (pv * qv) ** 2
    printed_v = (qv / pv) * (pv + qv * (pv / qv) ** 4) ** 0 * (qv + pv * (pv / qv) ** 4)   # k=r=1, m=0, L=1
    true_v = ps_v
    rec.add("000-8.28-prefactor", SRC, "(8.28) middle",
            "E X_r^2 = (q/p)^(kL) (p + q (p/q)^4)^(mL) (q + p (p/q)^4)^(rL)",
            "refuted" if printed_v != true_v else "proved",
            "Squaring X_r squares its prefactor: (q/p)^(2kL), not (q/p)^(kL); the right-most closed form "
            "of (8.28) is nevertheless correct.", expect="refuted",
            counterexample={"q": "1/4", "L": "1", "k": "1", "r": "1", "m": "0",
                            "printed_middle": C.fmt(printed_v), "E X_r^2": C.fmt(true_v)},
            corrected="E X_r^2 = (q/p)^(2kL) (p + q (p/q)^4)^(mL) (q + p (p/q)^4)^(rL) = phi^(mL) psi^(rL)  [proved]")
    rec.add("000-8.29", SRC, "(8.29)", "Var X_r = phi^(mL) psi^(rL) - phi^(2rL)", "proved",
            "(8.28) - (8.27)^2.", expect="proved")
    del ph_v

    # ---------------------------------------------------------------- (8.30)-(8.31) mean
    ok = all(sum(comb(kv, r) * comb(kv * Nv - kv, kv - r) for r in range(kv + 1)) == comb(kv * Nv, kv)
             for kv in range(1, 12) for Nv in range(1, 12))
    rec.add("000-8.30-count", SRC, "§8.1 text before (8.30)",
            "exactly C(k,r) C(kN-k,k-r) of the C(kN,k) subsets contain r synthetic records of the ones",
            "proved" if ok else "refuted",
            "Choose r of the k ones' records and k-r of the kN-k zeros' records; Vandermonde's identity "
            "sum_r = C(kN,k) (exact check k, N <= 11).", expect="proved")
    Nv, Lv, kv, qv = 2, 1, 2, Fraction(1, 4)
    Etrue, Vtrue = exact_moments_Rk(Nv, Lv, kv, qv)
    pv = 1 - qv
    a = ((pv**3 + qv**3) / (pv * qv)) ** Lv
    paper_E = Fraction(factorial(kv * Nv - kv), factorial(kv * Nv)) * sum(
        comb(kv, r) * comb(kv * Nv - kv, kv - r) * a**r for r in range(kv + 1))
    from exactdp.oracles import moments as M
    assert M.moments_Rk(Nv, Lv, kv, qv) == (Etrue, Vtrue)
    rec.add("000-8.31", SRC, "(8.30)-(8.31)",
            "E R(S^k) = (kN-k)!/(kN)! sum_r C(k,r) C(Nk-k,k-r) phi^(rL)",
            "refuted" if paper_E != Etrue else "proved",
            "Linearity and (8.27) are right, but the normalisation inherits the missing k! of (8.21); "
            "true value from the corrected form (equal to exactdp.oracles.moments and to brute force).",
            expect="refuted",
            counterexample={"N": "2", "L": "1", "k": "2", "q": "1/4", "lhs_true": C.fmt(Etrue),
                            "rhs_printed": C.fmt(paper_E)},
            corrected="E R(S^k) = (1/C(kN,k)) sum_r C(k,r) C(kN-k,k-r) phi^(rL) = sum_j C(k,j) "
                      "[(k)_j/(kN)_j] (phi^L - 1)^j  [proved]")

    # corrected mean: symbolic proof of the factorial-moment form and of the Hoeffding-type bound
    ok_fm = True
    for kv2 in range(1, 6):
        for Nv2 in range(1, 7):
            n2 = kv2 * Nv2
            lhs = sum(sp.Integer(c) * A**r for r, c in mean_Rk_poly(Nv2, kv2).items()) / comb(n2, kv2)
            rhs = sum(sp.binomial(kv2, j) * sp.ff(kv2, j) / sp.ff(n2, j) * (A - 1) ** j for j in range(kv2 + 1))
            ok_fm &= C.is_zero(sp.expand(lhs - rhs))
    i_, N_ = sp.symbols("i N", positive=True)
    # (k-i)/(kN-i) <= 1/N  <=>  N(k-i) <= kN - i  <=>  (N-1) i >= 0
    ok_term = C.is_zero(sp.expand((k * N_ - i_) - N_ * (k - i_) - (N_ - 1) * i_))
    rec.add("000-6.1-corrected", SRC, "(6.1) corrected",
            "E R(S^k) = sum_j C(k,j) (k)_j/(kN)_j (phi^L-1)^j <= (1 + (phi^L - 1)/N)^k = (E R(S))^k",
            "proved" if (ok_fm and ok_term) else "refuted",
            "Hypergeometric factorial moments give the first form (polynomial identity in A = phi^L verified "
            "symbolically for k<=5, N<=6; standard in general); the bound compares coefficients of "
            "(phi^L-1)^j >= 0: (k)_j/(kN)_j <= N^-j termwise since N(k-i) <= kN-i.", expect="proved")

    # ---------------------------------------------------------------- (8.32)-(8.36)
    i = sp.Symbol("i", nonnegative=True)
    ok = C.is_zero(sp.expand((k * N - i) - k * (N - 1) - (k - i)))
    rec.add("000-8.32", SRC, "(8.32)", "(1/(kN))^k <= (kN-k)!/(kN)! <= (1/(k(N-1)))^k  (N >= 2)",
            "proved" if ok else "refuted",
            "(kN)!/(kN-k)! = prod_{i<k} (kN-i) and each factor satisfies k(N-1) < kN - i <= kN "
            "(kN - i - k(N-1) = k - i > 0 symbolically).", expect="proved")
    rr_ = sp.Symbol("N", positive=True)
    lim = sp.limit((rr_ / (rr_ - 1)) ** 3, rr_, sp.oo)
    kk_ = sp.Symbol("kk", positive=True)
    limk = sp.limit((1 + 1 / (rr_ - 1)) ** kk_, rr_, sp.oo)
    rec.add("000-8.34", SRC, "(8.33)-(8.34)",
            "for fixed k and N -> oo: (kN-k)!/(kN)! ~ (kN)^-k ~ (k(N-1))^-k (ratios -> 1)",
            "proved" if (lim == 1 and limk == 1) else "refuted",
            "By (8.32) the ratio to (kN)^-k lies in [1, (N/(N-1))^k], whose limit is 1 (sympy limit, "
            "symbolic k).", expect="proved")
    n_, m__, j_ = sp.symbols("n m j", positive=True)
    ok35 = C.is_zero(sp.expand((n_ - j_) * m__ - n_ * (m__ - j_) - j_ * (n_ - m__)))
    rec.add("000-8.35", SRC, "(8.35)", "C(Nk-k,k-r) >= ((Nk-k)/(k-r))^(k-r) >= ((Nk-k)/k)^(k-r) = (N-1)^(k-r)",
            "proved" if ok35 else "refuted",
            "C(n,m) = prod_{j<m} (n-j)/(m-j) and (n-j)/(m-j) >= n/m iff j(n-m) >= 0 (symbolic) for n >= m; "
            "then n/(k-r) >= n/k.", expect="proved")
    rec.add("000-8.36", SRC, "(8.36)", "C(Nk-k,k-r) <= (Nk-k)^(k-r)/(k-r)! <= (Nk-k)^(k-r)", "proved",
            "C(n,m) = prod_{j<m}(n-j)/m! <= n^m/m! termwise.", expect="proved")

    # ---------------------------------------------------------------- (8.37) mean chain and (6.1)
    u = sp.Symbol("u", positive=True)
    ok = all(C.is_zero(sp.expand(sum(sp.binomial(kv2, r) * (u / (kv2 * N)) ** r for r in range(kv2 + 1))
                                 - (1 + u / (kv2 * N)) ** kv2)) for kv2 in range(1, 8))
    rec.add("000-8.37-sum", SRC, "(8.37) last equality",
            "sum_r C(k,r) (kN)^-r phi^(rL) = (1 + phi^L/(kN))^k", "proved" if ok else "refuted",
            "Binomial theorem (symbolic check k <= 7).", expect="proved")
    rec.add("000-8.37-step", SRC, "(8.37) second inequality",
            "sum_r C(k,r) (Nk-k)^(k-r)/(kN)^k phi^(rL) <= sum_r C(k,r) (kN)^-r phi^(rL)", "proved",
            "(Nk-k)^(k-r) <= (kN)^(k-r) termwise with nonnegative coefficients.", expect="proved")
    # counterexample to (6.1)/(8.37): true normalisation and paper's own normalisation
    Nv, Lv, kv, qv = 2, 3, 2, Fraction(1, 4)
    Et, Vt = exact_moments_Rk(Nv, Lv, kv, qv)
    Eb, Vb = paper_bounds(Nv, Lv, kv, qv)
    pv = 1 - qv
    a = ((pv**3 + qv**3) / (pv * qv)) ** Lv
    Epaper = Fraction(factorial(kv * Nv - kv), factorial(kv * Nv)) * sum(
        comb(kv, r) * comb(kv * Nv - kv, kv - r) * a**r for r in range(kv + 1))
    assert Et > Eb and Epaper > Eb
    for rid, eq in (("000-6.1", "(6.1)"), ("000-8.37", "(8.37)")):
        rec.add(rid, SRC, eq, "E R(S^k) <= (1 + phi^L/(kN))^k", "refuted",
                "The chain replaces (kN-k)!/(kN)! by the smaller (kN)^-k ('approx' used as '<='); the "
                "r = k term phi^(kL)/C(kN,k) exceeds phi^(kL)/(kN)^k.  Fails for the true R(S^k) and "
                "even for the paper's own normalisation (8.31).", expect="refuted",
                counterexample={"N": str(Nv), "L": str(Lv), "k": str(kv), "q": C.fmt(qv),
                                "lhs_true": C.fmt(Et), "lhs_paper_normalisation": C.fmt(Epaper),
                                "rhs": C.fmt(Eb)},
                corrected="E R(S^k) <= (1 + (phi^L - 1)/N)^k  [proved: 000-6.1-corrected]")

    # ---------------------------------------------------------------- variance
    Nv, Lv, kv, qv = 2, 1, 2, Fraction(1, 4)
    Et, Vt = exact_moments_Rk(Nv, Lv, kv, qv)
    pv = 1 - qv
    a = ((pv**3 + qv**3) / (pv * qv)) ** Lv
    b = ((pv**5 + qv**5) / (pv * qv) ** 2) ** Lv
    fac = Fraction(factorial(kv * Nv - kv), factorial(kv * Nv))
    Vpaper = fac**2 * sum(comb(kv, r) * comb(kv * Nv - kv, kv - r)
                          * (a ** (kv - r) * b**r - a ** (2 * r)) for r in range(kv + 1))
    Vpaper_trueC = Vpaper * factorial(kv) ** 2
    assert Vpaper != Vt and Vpaper_trueC != Vt
    rec.add("000-8.37-var", SRC, "(8.37) variance, first line",
            "Var R(S^k) = [(kN-k)!/(kN)!]^2 sum_r C(k,r) C(Nk-k,k-r) Var X_r",
            "refuted",
            "The subset products share factors, so Cov != 0 between overlapping terms; the variance of a "
            "sum is not the sum of variances.  Wrong also with the corrected 1/C(kN,k) normalisation.",
            expect="refuted",
            counterexample={"N": "2", "L": "1", "k": "2", "q": "1/4", "Var_true": C.fmt(Vt),
                            "printed": C.fmt(Vpaper), "printed_with_1/C(kN,k)": C.fmt(Vpaper_trueC)},
            corrected="Var R(S^k) = [x^k y^k] (1+x+y+A xy)^(kN-k) (1+A(x+y)+B xy)^k / C(kN,k)^2 - (E R(S^k))^2, "
                      "A = phi^L, B = psi^L  [proved: independence; see 000-8.37-var-exact]")
    # the exact variance: GF form (exactdp.oracles.moments) == overlap count, as polynomials in A, B
    ok = True
    for kv2 in range(1, 5):
        for Nv2 in range(1, 6):
            P1, P2 = M.ek_moment_polynomials(Nv2, kv2, "Dm")
            ok &= (P2 == second_moment_overlap_poly(Nv2, kv2))
            ok &= ({(r, 0): c for r, c in mean_Rk_poly(Nv2, kv2).items() if c} == {kk_: v for kk_, v in P1.items() if v})
    okbf = True
    for (Nv2, Lv2, kv2) in ((2, 1, 2), (3, 1, 2), (2, 2, 2), (2, 1, 3)):
        qv2 = Fraction(1, 3)
        V, acc = _histogram_ratios(Nv2, Lv2, kv2, C.R(qv2))
        m1 = sum(Fraction(str(aa)) * (Fraction(str(aa)) / Fraction(str(bb))) ** 0 for aa, bb in acc.values())
        e1 = sum(Fraction(str(aa)) * Fraction(str(aa)) / Fraction(str(bb)) for aa, bb in acc.values())
        e2_ = sum(Fraction(str(aa)) * (Fraction(str(aa)) / Fraction(str(bb))) ** 2 for aa, bb in acc.values())
        okbf &= (m1 == 1) and (exact_moments_Rk(Nv2, Lv2, kv2, qv2) == (e1, e2_ - e1 * e1))
    rec.add("000-8.37-var-exact", SRC, "(8.37) variance, corrected",
            "E[e_k(rho)^2] by counting overlapping subset pairs == [x^k y^k] of the independence GF "
            "(exactdp.oracles.moments), as polynomials in A = phi^L, B = psi^L, for all k<=4, N<=5",
            "proved" if (ok and okbf) else "refuted",
            "Two independent derivations agree as integer polynomials in A, B (hence for every L, q) on the "
            "stated range; both also equal brute-force enumeration of the histogram law for "
            "(N,L,k) in {(2,1,2),(3,1,2),(2,2,2),(2,1,3)} at q = 1/3.", expect="proved")
    # the invalid inequality step and the valid collapse
    kv, Nv, r = 2, 2, 2
    lhs_step = Fraction(factorial(kv * Nv - kv), factorial(kv * Nv)) ** 2 * comb(kv * Nv - kv, kv - r)
    rhs_step = Fraction((kv * Nv - kv) ** (kv - r), (kv * Nv) ** (2 * (kv - r))) / (kv * Nv) ** (2 * r)
    rec.add("000-8.37-var-step", SRC, "(8.37) variance, first inequality",
            "[(kN-k)!/(kN)!]^2 C(Nk-k,k-r) <= (kN-k)^(k-r)/(kN)^(2(k-r)) * (kN)^(-2r)",
            "refuted" if lhs_step > rhs_step else "proved",
            "(kN-k)!/(kN)! >= (kN)^-k by (8.32), so its square cannot be bounded by (kN)^-2k.",
            expect="refuted",
            counterexample={"k": "2", "N": "2", "r": "2", "lhs": C.fmt(lhs_step), "rhs": C.fmt(rhs_step)},
            corrected="[(kN-k)!/(kN)!]^2 C(Nk-k,k-r) <= (Nk-k)^(k-r) / ((k-r)! (k(N-1))^(2k))  (N >= 2)  "
                      "[proved from (8.32) and (8.36)]")
    ok = True
    for kv2 in range(1, 6):
        nn = kv2 * N
        lhs = sum(sp.binomial(kv2, r) * (A / nn) ** (kv2 - r) * (B / nn**2) ** r
                  - sp.binomial(kv2, r) / nn ** (kv2 - r) * (A**2 / nn**2) ** r for r in range(kv2 + 1))
        rhs = (A / nn + B / nn**2) ** kv2 - (1 / nn + A**2 / nn**2) ** kv2
        ok &= C.is_zero(sp.expand(lhs - rhs))
    rec.add("000-8.37-var-collapse", SRC, "(8.37) variance, last equality",
            "sum_r C(k,r)[phi^L/(kN)]^(k-r)[psi^L/(kN)^2]^r - sum_r C(k,r)(kN)^-(k-r)[phi^2L/(kN)^2]^r "
            "= [phi^L/(kN) + psi^L/(kN)^2]^k - [1/(kN) + phi^2L/(kN)^2]^k",
            "proved" if ok else "refuted", "Binomial theorem (symbolic check k <= 5, symbolic N, A, B).",
            expect="proved")
    Nv, Lv, kv, qv = 2, 1, 2, Fraction(1, 4)
    Et, Vt = exact_moments_Rk(Nv, Lv, kv, qv)
    Eb, Vb = paper_bounds(Nv, Lv, kv, qv)
    assert Vt > Vb
    for rid, eq in (("000-6.2", "(6.2)"), ("000-8.37-varbound", "(8.37) variance bound")):
        rec.add(rid, SRC, eq,
                "Var R(S^k) <= [phi^L/(kN) + psi^L/(kN)^2]^k - [1/(kN) + phi^(2L)/(kN)^2]^k",
                "refuted",
                "Follows from the two invalid steps above; for k >= 2 the bound is O(N^-k) while the true "
                "variance is of order k^2/(kN) (U-statistic).", expect="refuted",
                counterexample={"N": "2", "L": "1", "k": "2", "q": "1/4", "lhs_true": C.fmt(Vt),
                                "rhs": C.fmt(Vb)},
                corrected="Var R(S^k) = exact formula of 000-8.37-var (exactdp.oracles.moments.moments_Rk)  [proved]")
    # phi forms and (6.3)/(8.38)
    ok = C.is_zero(psi - (phi**2 + phi - 1))
    rec.add("000-6-phi", SRC, "§6 / App. II displays after (6.2)",
            "(6.1), (6.2) rewritten with phi and psi = phi^2 + phi - 1", "proved" if ok else "refuted",
            "psi = phi^2 + phi - 1 symbolically (000-3.2-psi-e); the rest is substitution.", expect="proved")
    rec.add("000-6.3-form", SRC, "(6.3) = (8.38)",
            "(6.3) is (6.1)-bound + 3 sqrt((6.2)-bound) <= lambda", "proved",
            "Direct substitution of the phi forms (000-6-phi).", expect="proved")
    Nv, Lv, kv, qv, lam = 10, 2, 2, Fraction(1, 4), Fraction(3)
    Et, Vt = exact_moments_Rk(Nv, Lv, kv, qv)
    Eb, Vb = paper_bounds(Nv, Lv, kv, qv)
    paper_ok = C.sqrt_le(Eb, 9 * Vb, lam)        # Eb + 3 sqrt(Vb) <= lam
    true_ok = C.sqrt_le(Et, 9 * Vt, lam)
    for rid, eq in (("000-6.3", "(6.3)"), ("000-8.38", "(8.38)")):
        rec.add(rid, SRC, eq,
                "(6.3) holding implies E R(S^k) + 3 sqrt(Var R(S^k)) <= lambda",
                "refuted" if (paper_ok and not true_ok) else "proved",
                "Built on the refuted bounds (6.1), (6.2): exact comparison (squares of rationals) shows "
                "(6.3) satisfied while the true mean + 3 sigma exceeds lambda.", expect="refuted",
                counterexample={"N": str(Nv), "L": str(Lv), "k": str(kv), "q": C.fmt(qv), "lambda": C.fmt(lam),
                                "E_bound(6.1)": C.fmt(Eb), "Var_bound(6.2)": C.fmt(Vb),
                                "E_true": C.fmt(Et), "Var_true": C.fmt(Vt)},
                corrected="E R(S^k) + 3 sqrt(Var R(S^k)) <= lambda with the exact moments of "
                          "exactdp.oracles.moments.moments_Rk (000-8.31 corrected, 000-8.37-var)  [proved]")

    # ---------------------------------------------------------------- exactdp.reductions.kcopies
    ok, cases = _kcopies_identity()
    rec.add("kcopies-esym", SRC, "(8.21) generalised",
            "For any base vector z, changed vector w at Hamming distance d and k: P(S^k | z^(N-1) + w) / "
            "P(S^k | z^N) = e_k(r(s_1), ..., r(s_kN)) / C(kN, k) with r(s) = (p/q)^(2 j(s) - d), j(s) the "
            "number of the d columns of z XOR w where s differs from z",
            "proved" if ok else "refuted",
            "Cross-multiplied, both sides are polynomials in q of degree <= kNL; they agree exactly (Fraction "
            "arithmetic, every histogram, P(S|D_m) summed over all labelled outcomes) at kNL + 1 distinct q, "
            f"hence identically, for (N, L, k, z, w) in {cases}.  The basis of exactdp.reductions.kcopies.",
            expect="proved")
    return rec.records


def _kcopies_identity():
    """Check the kcopies identity at enough rational q to decide it as a polynomial identity."""
    cases = [(2, 2, 2, 1, 2), (2, 3, 2, 5, 6), (2, 2, 3, 2, 3), (3, 2, 2, 3, 0), (1, 3, 3, 6, 1)]
    ok = True
    for Nv, Lv, kv, z, w in cases:
        d = bin(z ^ w).count("1")
        n = kv * Nv
        for i in range(kv * Nv * Lv + 1):
            qq = Fraction(1, 3 + i)
            pp = 1 - qq

            def pr(v, s):
                diff = bin(v ^ s).count("1")
                return qq ** diff * pp ** (Lv - diff)
            num, den = {}, {}
            for seq in product(range(1 << Lv), repeat=n):
                h = tuple(sorted(seq))
                num[h] = num.get(h, 0) + prod(pr(w if i_ < kv else z, s) for i_, s in enumerate(seq))
                den[h] = den.get(h, 0) + prod(pr(z, s) for s in seq)
            for h in num:
                r = [(pp / qq) ** (2 * bin((s ^ z) & (z ^ w)).count("1") - d) for s in h]
                ek = sum(prod(r[i_] for i_ in J) for J in combinations(range(n), kv))
                ok &= num[h] * comb(n, kv) == ek * den[h]
    return ok, "; ".join(f"({a}, {b}, {c}, type {d_}, type {e})" for a, b, c, d_, e in cases)


if __name__ == "__main__":
    C.main_for(identities)
