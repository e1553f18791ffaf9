"""PGF and moments of X0, X1, X and R(S) -- 000_3d8ddaba8b46cf9c.txt §3.1 and Appendix 1.

Identities: (2.3) multinomial ratio, (3.1), (3.2), (3.4), (3.6), max R,
(3.7)-(3.11), the §3.1 moment list, E R(S), Var R(S), and (7.1)-(7.9); plus
the agreement of exactdp.oracles.moments (derived from the PGFs of exactdp.oracles.pgf) with
the proved closed forms.

Run: ``python proofs/moments_x0_x1.py``.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from itertools import product
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sympy as sp  # noqa: E402

import _core as C  # noqa: E402
from _core import L, N, l, p, q, t  # noqa: E402

TOPIC = "moments_x0_x1"
SRC = C.P000

c_l = (q / p) ** (L - 2 * l)                    # (3.2)
phiL = ((p**3 + q**3) / (p * q)) ** L
psiL = ((p**5 + q**5) / (p * q) ** 2) ** L


# ------------------------------------------------------------ closed forms
def closed_forms_X(Nv, Lv, qv, direction="forward"):
    """Proved closed forms (000 §3.1 / 003 (2.15), (2.25)) of (E X, Var X), exact."""
    qv = Fraction(qv)
    pv = 1 - qv
    ph = ((pv**3 + qv**3) / (pv * qv)) ** Lv
    ps = ((pv**5 + qv**5) / (pv * qv) ** 2) ** Lv
    if direction == "forward":
        return (Nv - 1) + ph, (Nv - 1) * (ph - 1) + (ps - ph * ph)
    return Fraction(Nv), Nv * (ph - 1)


def closed_forms_R(Nv, Lv, qv):
    """000 §3.1 E R(S) = (N-1)/N + phi^L/N, Var R(S) = ((N-1)(phi^L-1) + psi^L - phi^2L)/N^2."""
    e, v = closed_forms_X(Nv, Lv, qv, "forward")
    return e / Nv, v / Nv**2


def _vec(Lv):
    return list(product((0, 1), repeat=Lv))


def _P(x, s, qq):
    """P[A0(x) = s] = q^(L-m) p^m, 000 §1.3 (symbolic in q)."""
    m = sum(1 for a, b in zip(x, s) if a == b)
    return qq ** (len(x) - m) * (1 - qq) ** m


def identities():
    rec = C.Recorder(TOPIC)

    # (2.3): ratio of multinomial pmfs, symbolic in the counts
    s1, si, N1 = sp.symbols("s_1 s_i N1", positive=True, integer=True)
    p1, pi_ = sp.symbols("p_1 p_i", positive=True)
    # only the two factors that differ survive; the rest cancel identically
    num = 1 / (sp.factorial(s1) * sp.factorial(si - 1)) * p1**s1 * pi_**(si - 1)
    den = 1 / (sp.factorial(s1 - 1) * sp.factorial(si)) * p1**(s1 - 1) * pi_**si
    ok = C.is_zero(sp.gammasimp(num / den) - si / s1 * p1 / pi_)
    rec.add("000-2.3", SRC, "(2.3)",
            "P(s-e_i|D')/P(s-e_1|D') = (s_i/s_1) p(v_1|x)/p(v_i|x) for homogeneous D'",
            "proved" if ok else "open",
            "gammasimp reduces the ratio of the two multinomial pmfs (all other factors "
            "cancel) to s_i p_1/(s_1 p_i) for symbolic counts.", expect="proved")

    # (3.1): R(S) = (1/N) sum s_i p(v_i|1)/p(v_i|0); symbolic proof + exhaustive check
    ok = True
    for Lv, Nv in ((1, 2), (1, 3), (2, 2), (2, 3), (1, 4)):
        V = _vec(Lv)
        zero, one = (0,) * Lv, (1,) * Lv
        probs = {}
        for seq in product(range(len(V)), repeat=Nv):
            h = tuple(seq.count(j) for j in range(len(V)))
            a = b = sp.Integer(1)
            for i, j in enumerate(seq):
                a *= _P(one if i == 0 else zero, V[j], q)
                b *= _P(zero, V[j], q)
            pa, pb = probs.get(h, (0, 0))
            probs[h] = (pa + a, pb + b)
        for h, (pa, pb) in probs.items():
            claim = sum(h[j] * _P(one, V[j], q) / _P(zero, V[j], q) for j in range(len(V))) / Nv
            if not C.is_zero(pa / pb - claim):
                ok = False
    rec.add("000-3.1", SRC, "(3.1)",
            "R(S) = P(S|D_m)/P(S|D) = (1/N) sum_i s_i p(v_i|1)/p(v_i|0)",
            "proved" if ok else "refuted",
            "From (2.3): P(S|D'+y) = K * sum_i s_i p(v_i|y)/p(v_i|x) with K free of y, so the "
            "ratio is (2.4) and, for x = 0, the denominator is sum s_i = N; confirmed "
            "symbolically in q against the histogram law for every S with (N,L) in "
            "{(2,1),(3,1),(4,1),(2,2),(3,2)}.", expect="proved")

    # (3.2)
    ratio = (p**l * q**(L - l)) / (p**(L - l) * q**l)
    st, _ = C.decide_equal(ratio, c_l, [], {})
    rec.add("000-3.2", SRC, "(3.2)", "p(v|1)/p(v|0) = p^l q^(L-l)/(p^(L-l) q^l) = (q/p)^(L-2l)",
            st, "Symbolic in l, L, q (powsimp).", expect="proved")

    # (3.3), (3.5)
    rec.add("000-3.3", SRC, "(3.3)", "T = (t_0, ..., t_L), t_l = number of synthetic vectors with l set bits",
            "proved", "Definition; sum_l t_l = N.", expect="proved")
    rec.add("000-3.5", SRC, "(3.5)", "T ~ MN(N-1, p_0) + MN(1, p_1), p_r = law of set bits (3.7)/(3.9)",
            "proved",
            "The N vectors are randomized independently; the N-1 zero vectors each fall in class l with "
            "probability p(l|0) (multinomial), the outlier with p(l|1); the laws are proved in 000-3.7, 000-3.9.",
            expect="proved")

    # (3.4) and (3.6)
    rec.add("000-3.4", SRC, "(3.4)",
            "(1/N) sum_i s_i rho(v_i) = (1/N) sum_l t_l (q/p)^(L-2l)",
            "proved",
            "By (3.2) rho(v) depends on v only through its number l of set bits, so grouping "
            "the 2^L terms by l gives t_l = sum of s_i over vectors with l set bits.",
            expect="proved")
    st, _ = C.decide_equal(q**L / (N * p**L) * (p / q) ** (2 * l), c_l / N, [], {})
    rec.add("000-3.6", SRC, "(3.6)", "R(T) = q^L/(N p^L) sum_l (p/q)^(2l) T_l  (termwise = c_l/N)",
            st, "Termwise identity q^L p^-L (p/q)^(2l) = (q/p)^(L-2l), symbolic in l, L.",
            expect="proved")
    # max R = (p/q)^L attained at T = (0..0,N)
    dif = sp.cancel((q / p) ** (-1) - 1)  # c_{l+1}/c_l - 1 = (p/q)^2 - 1 > 0
    mono = C.is_zero(sp.powsimp((q / p) ** (L - 2 * (l + 1)) / c_l, force=True) - (p / q) ** 2)
    ok = mono and C.positive_on_interval(sp.numer(sp.together((p / q) ** 2 - 1)), q, 0, sp.Rational(1, 2))
    rec.add("000-3.6-max", SRC, "§3.1 text after (3.6)",
            "max_T R(T) = (p/q)^L, attained only at T = (0,...,0,N)",
            "proved" if ok else "open",
            "c_(l+1)/c_l = (p/q)^2 > 1 on 0<q<1/2 (Sturm: numerator has no root), so R = "
            "(1/N) sum T_l c_l <= max_l c_l = c_L = (p/q)^L with equality iff T_L = N.",
            expect="proved")
    del dif

    # (3.7)/(3.9): set-bit laws; (3.8)/(3.10): PGFs; exhaustive symbolic check small L
    ok = True
    for Lv in range(1, 6):
        V = _vec(Lv)
        for x, lawp in (((0,) * Lv, lambda j: sp.binomial(Lv, j) * q**j * p**(Lv - j)),
                        ((1,) * Lv, lambda j: sp.binomial(Lv, j) * p**j * q**(Lv - j))):
            for j in range(Lv + 1):
                tot = sum(_P(x, v, q) for v in V if sum(v) == j)
                if not C.is_zero(tot - lawp(j)):
                    ok = False
            G_enum = sum(_P(x, v, q) * t ** ((q / p) ** (Lv - 2 * sum(v))) for v in V)
            G_form = sum(lawp(j) * t ** ((q / p) ** (Lv - 2 * j)) for j in range(Lv + 1))
            if sp.expand(G_enum - G_form) != 0 and not C.is_zero(G_enum - G_form):
                ok = False
    # general-L step: a vector with l set bits agrees with 0 in L-l places
    gen = C.is_zero(q ** (L - (L - l)) * p ** (L - l) - q**l * p ** (L - l))
    st = "proved" if (ok and gen) else "refuted"
    for eq, stmt in (("(3.7)", "p(l|0) = C(L,l) q^l p^(L-l)"),
                     ("(3.9)", "p(l|1) = C(L,l) p^l q^(L-l)")):
        rec.add(f"000-{eq[1:-1]}", SRC, eq, stmt, st,
                "C(L,l) vectors have l set bits, each with probability q^(L-m) p^m at m "
                "agreements (000 §1.3), symbolic in l, L; exhaustive symbolic check for L<=5.",
                expect="proved")
    for eq, stmt in (("(3.8)", "G(X0) = E t^X0 = sum_l C(L,l) q^l p^(L-l) t^((q/p)^(L-2l))"),
                     ("(3.10)", "G(X1) = E t^X1 = sum_l C(L,l) p^l q^(L-l) t^((q/p)^(L-2l))")):
        rec.add(f"000-{eq[1:-1]}", SRC, eq, stmt, st,
                "Definition of the PGF with (3.7)/(3.9) and (3.2); equals the 2^L-vector "
                "enumeration symbolically in q and t for L<=5.", expect="proved")

    # (3.11) and additivity of E, Var (symbolic N via the Taylor expansion at t=1)
    h = sp.Symbol("h")
    a1, a2, b1, b2 = sp.symbols("a1 a2 b1 b2")
    G = (1 + a1 * h + a2 * h**2 / 2) ** (N - 1) * (1 + b1 * h + b2 * h**2 / 2)
    ser = sp.series(G, h, 0, 3).removeO()
    g1 = ser.coeff(h, 1)
    g2 = 2 * ser.coeff(h, 2)
    EX = g1
    VX = g2 + g1 - g1**2
    ok1 = C.is_zero(EX - ((N - 1) * a1 + b1))
    ok2 = C.is_zero(VX - ((N - 1) * (a2 + a1 - a1**2) + (b2 + b1 - b1**2)))
    rec.add("000-3.11", SRC, "(3.11)", "G(X) = G(X0)^(N-1) G(X1)", "proved",
            "The N synthetic vectors are independent, and the PGF of a sum of independent "
            "variables is the product of their PGFs (standard).", expect="proved")
    rec.add("000-3.1-EX", SRC, "§3.1 display after (3.11)", "E X = (N-1) E X0 + E X1",
            "proved" if ok1 else "refuted",
            "Second-order Taylor expansion of G0^(N-1) G1 at t=1 with symbolic N and "
            "G_j(1)=1: the h-coefficient is (N-1)G0'(1)+G1'(1).", expect="proved")
    rec.add("000-3.1-VarX", SRC, "§3.1 display after (3.11)", "Var X = (N-1) Var X0 + Var X1",
            "proved" if ok2 else "refuted",
            "Same expansion: G''(1)+G'(1)-G'(1)^2 collapses to the sum of the one-vector "
            "variances for symbolic N.", expect="proved")

    # one-vector moments via binomial sums (general L)
    EX0 = C.binomial_sum_closed(q**l * p**(L - l) * c_l)
    EX0sq = C.binomial_sum_closed(q**l * p**(L - l) * c_l**2)
    EX1 = C.binomial_sum_closed(p**l * q**(L - l) * c_l)
    EX1sq = C.binomial_sum_closed(p**l * q**(L - l) * c_l**2)
    for f, cl in ((q**l * p**(L - l) * c_l, EX0), (q**l * p**(L - l) * c_l**2, EX0sq),
                  (p**l * q**(L - l) * c_l, EX1), (p**l * q**(L - l) * c_l**2, EX1sq)):
        C.check_binomial_sum_small(f, cl)
    okE0 = C.is_zero(EX0 - 1)
    okV0 = C.is_zero(EX0sq - EX0**2 - (phiL - 1))
    okE1 = C.is_zero(EX1 - phiL)
    okV1 = C.is_zero(EX1sq - EX1**2 - (psiL - phiL**2))
    why = ("Summand is geometric in l (checked symbolically), so the binomial theorem gives "
           "f(0)(1+r)^L; simplified for symbolic L, q; exact cross-check for L<=6.")
    for ids, eq, stmt, ok in (
            (("000-3.1-EX0", "000-7.6"), ("§3.1 list", "(7.6)"), "E X0 = 1", okE0),
            (("000-3.1-VarX0", "000-7.7"), ("§3.1 list", "(7.7)"), "Var X0 = phi^L - 1, phi = (p^3+q^3)/(pq)", okV0),
            (("000-3.1-EX1", "000-7.8"), ("§3.1 list", "(7.8)"), "E X1 = phi^L", okE1),
            (("000-3.1-VarX1", "000-7.9"), ("§3.1 list", "(7.9)"), "Var X1 = psi^L - phi^(2L), psi = (p^5+q^5)/(pq)^2", okV1)):
        for i, e in zip(ids, eq):
            rec.add(i, SRC, e, stmt, "proved" if ok else "refuted", why, expect="proved")

    # Appendix 1 derivation steps
    term = q**l * p**(L - l) * c_l
    ok71 = C.is_zero(term - q**(L - l) * p**l) and okE0
    rec.add("000-7.1", SRC, "(7.1)",
            "E X0 = sum C(L,l) q^l p^(L-l) (q/p)^(L-2l) = sum C(L,l) q^(L-l) p^l = (p+q)^L = 1",
            "proved" if ok71 else "refuted", "Termwise identity symbolic in l, L; then the binomial theorem.",
            expect="proved")
    c = sp.Symbol("c", positive=True)
    ok72 = C.is_zero(sp.diff(t**c, t, 2).subs(t, 1) - c * (c - 1))
    rec.add("000-7.2", SRC, "(7.2)", "Var X0 = G''(1) - (E X0)^2 + E X0 = G''(1)  (as E X0 = 1)",
            "proved" if (ok72 and okE0) else "refuted",
            "Var = G''(1)+G'(1)-G'(1)^2 for a PGF; with G'(1) = 1 the last two cancel.",
            expect="proved")
    rec.add("000-7.3", SRC, "(7.3)", "G''(1) = sum C(L,l) q^l p^(L-l) c_l (c_l - 1)",
            "proved" if ok72 else "refuted",
            "d^2/dt^2 t^c at t=1 is c(c-1) (sympy, symbolic c), applied termwise to (3.8).",
            expect="proved")
    ok74 = (C.is_zero(term * c_l - q**(L - l) * p**l * c_l)
            and C.is_zero(q**(L - l) * p**l * c_l - q**(2 * L - 3 * l) / p**(L - 3 * l)))
    rec.add("000-7.4", SRC, "(7.4)",
            "G''(1) = sum C q^(L-l) p^l (q/p)^(L-2l) - sum C q^(L-l) p^l = sum C q^(2L-3l)/p^(L-3l) - 1",
            "proved" if ok74 else "refuted", "Termwise identities symbolic in l, L, and (7.1) for the second sum.",
            expect="proved")
    ok75 = (C.is_zero(q**(2 * L - 3 * l) / p**(L - 3 * l) - q**(3 * L - 3 * l) * p**(3 * l) / (p * q)**L)
            and okV0)
    rec.add("000-7.5", SRC, "(7.5)",
            "sum C(L,l) q^(2L-3l)/p^(L-3l) - 1 = (pq)^-L sum C (q^3)^(L-l) (p^3)^l - 1 = phi^L - 1",
            "proved" if ok75 else "refuted", "Termwise identity symbolic in l, L; then the binomial theorem.",
            expect="proved")

    # E R(S), Var R(S) of §3.1 (symbolic N, L)
    ER = ((N - 1) * EX0 + EX1) / N
    VR = ((N - 1) * (EX0sq - EX0**2) + (EX1sq - EX1**2)) / N**2
    okER = C.is_zero(ER - ((N - 1) / N + phiL / N))
    okVR = C.is_zero(VR - ((N - 1) / N**2 * (phiL - 1) + (psiL - phiL**2) / N**2))
    rec.add("000-3.1-ER", SRC, "§3.1 E R(S)", "E R(S) = (N-1)/N + phi^L/N",
            "proved" if okER else "refuted", "R = X/N with the proved E X0, E X1 and additivity; symbolic N, L, q.",
            expect="proved")
    rec.add("000-3.1-VarR", SRC, "§3.1 Var R(S)",
            "Var R(S) = (N-1)/N^2 (phi^L - 1) + (psi^L - phi^(2L))/N^2",
            "proved" if okVR else "refuted", "Var R = Var X / N^2 with the proved one-vector variances; symbolic N, L, q.",
            expect="proved")

    # engine agreement: exactdp.oracles.moments (PGF-derived) vs closed forms, symbolic q and N
    from exactdp.oracles import moments as M
    okf = okr = True
    for Lv in range(1, 6):
        e, v = M.moments_X(N, Lv, None, "forward")
        ph = ((p**3 + q**3) / (p * q)) ** Lv
        ps = ((p**5 + q**5) / (p * q) ** 2) ** Lv
        okf &= C.is_zero(e - (N - 1 + ph)) and C.is_zero(v - ((N - 1) * (ph - 1) + ps - ph**2))
        e, v = M.moments_X(N, Lv, None, "reverse")
        okr &= C.is_zero(e - N) and C.is_zero(v - N * (ph - 1))
    rec.add("exactdp-moments-forward", "exactdp/oracles/moments.py", "000 §3.1",
            "exactdp.oracles.moments.moments_X(N, L, q, forward) == (N-1+phi^L, (N-1)(phi^L-1)+psi^L-phi^2L) for L<=5",
            "proved" if okf else "refuted",
            "The PGF-derived engine moments minus the closed forms cancel to 0 for symbolic N, q "
            "and each L<=5 (tests compare exact values for more L with ==).", expect="proved")
    rec.add("exactdp-moments-reverse", "exactdp/oracles/moments.py", "003 (2.15),(2.25)",
            "exactdp.oracles.moments.moments_X(N, L, q, reverse) == (N, N(phi^L - 1)) for L<=5",
            "proved" if okr else "refuted",
            "Same comparison for G0^N, symbolic N, q, each L<=5.", expect="proved")
    return rec.records


if __name__ == "__main__":
    C.main_for(identities)
