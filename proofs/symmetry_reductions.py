"""Symmetry reductions behind ``exactdp/reductions/pairs.py`` and ``exactdp/apps/conjectures.py`` (issue 4).

000 §1.2 (2), §2 (2.1)-(2.4), §3 (3.4); 000 §6 / 003 §1 (k-randomization).
Each reduction is proved by a short argument stated in ``reason`` and checked
symbolically in q (sympy, exact) against the definition -- the histogram law
built by summing over all assignments of synthetic vectors to users -- on
every pair of an exhaustive small range.

Run: ``python proofs/symmetry_reductions.py``.
"""

from __future__ import annotations

import itertools
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sympy as sp  # noqa: E402

import _core as C  # noqa: E402
from _core import p, q  # noqa: E402

TOPIC = "symmetry_reductions"
SRC = C.P000


def _trans(x, s):
    d = bin(x ^ s).count("1")
    return q**d * p**(LBITS[0] - d)


LBITS = [1]


def _law(D, L):
    """Definition: P(S|D) summed over all assignments of synthetic vectors to users."""
    LBITS[0] = L
    out = defaultdict(int)
    for seq in itertools.product(range(1 << L), repeat=len(D)):
        h = tuple(seq.count(t) for t in range(1 << L))
        out[h] += sp.Mul(*[_trans(x, s) for x, s in zip(D, seq)])
    return {h: sp.expand(v) for h, v in out.items()}


def _perm(t, perm, mask):
    o = 0
    for j, pj in enumerate(perm):
        if (t >> j) & 1:
            o |= 1 << pj
    return o ^ mask


def _pairs(Nmax, Lmax):
    for L in range(1, Lmax + 1):
        for N in range(1, Nmax + 1):
            for base in itertools.combinations_with_replacement(range(1 << L), N - 1):
                for x in range(1 << L):
                    for xm in range(1 << L):
                        if x != xm:
                            yield L, list(base), x, xm


def _ratio_law(D, Dm, L):
    a, b = _law(D, L), _law(Dm, L)
    return {h: (b[h], a[h]) for h in a}


def identities():
    rec = C.Recorder(TOPIC)

    # ---- sym-group: bit permutations and flips
    ok = True
    for L, base, x, xm in _pairs(2, 2):
        D, Dm = base + [x], base + [xm]
        lawD, lawM = _law(D, L), _law(Dm, L)
        for perm in itertools.permutations(range(L)):
            for mask in range(1 << L):
                g = lambda t: _perm(t, perm, mask)  # noqa: E731
                gD, gM = _law([g(t) for t in D], L), _law([g(t) for t in Dm], L)
                for h in lawD:
                    gh = [0] * (1 << L)
                    for t, c in enumerate(h):
                        gh[g(t)] += c
                    gh = tuple(gh)
                    ok &= C.is_zero(gD[gh] - lawD[h]) and C.is_zero(gM[gh] - lawM[h])
    rec.add("sym-group", SRC, "000 §1.3, (2.1)",
            "for a bit permutation g and a mask m, P(gS XOR m | gD XOR m) = P(S|D); hence R and its law under "
            "A(D_m) are invariant under relabelling and flipping bits of all vectors at once",
            "proved" if ok else "refuted",
            "p(s|x) = q^d p^(L-d) depends only on the Hamming distance d(x, s), which v -> g(v) XOR m preserves; "
            "P(S|D) sums prod_i p(s_i|x_i) over assignments, and the map is a bijection of assignments and of "
            "histograms. Checked symbolically in q on every pair with N <= 2, L <= 2 and every (g, m).",
            expect="proved")

    # ---- invariance (000 §1.2 (2)) as a corollary
    ok = True
    for L in (1, 2):
        for N in (1, 2, 3):
            full = (1 << L) - 1
            ref = _ratio_law([0] * N, [0] * (N - 1) + [full], L)
            for z in range(1 << L):
                law = _ratio_law([z] * N, [z] * (N - 1) + [z ^ full], L)
                for h, (num, den) in ref.items():
                    gh = [0] * (1 << L)
                    for t, c in enumerate(h):
                        gh[t ^ z] += c
                    n2, d2 = law[tuple(gh)]
                    ok &= C.is_zero(num - n2) and C.is_zero(den - d2)
    rec.add("sym-invariance", SRC, "000 §1.2 (2)",
            "the law of R is the same for every homogeneous D = z^N with an outlier (D_m = z^(N-1) + not-z), "
            "and likewise for the reversed pairs",
            "proved" if ok else "refuted",
            "sym-group with m = z maps (z^N, z^(N-1) + not-z) to (0^N, 0^(N-1) + 1) and S to S XOR z, so R and "
            "its law coincide (swap D and D_m for the reverse). Checked symbolically for L <= 2, N <= 3, all z.",
            expect="proved")

    # ---- column classes: sufficient statistic (and constant columns drop out)
    ok = True
    count = 0
    for L, base, x, xm in _pairs(3, 2):
        D, Dm = base + [x], base + [xm]
        vecs = sorted(set(D) | set(Dm))
        classes = defaultdict(list)
        for j in range(L):
            flip = (x >> j) & 1
            pat = tuple(((t >> j) & 1) ^ flip for t in vecs)
            classes[pat].append(j)
        groups = [cols for pat, cols in classes.items() if any(pat)]
        lawD, lawM = _law(D, L), _law(Dm, L)

        def coarse(h):
            out = defaultdict(int)
            for t, c in enumerate(h):
                if c:
                    key = tuple(sum(((t >> j) & 1) ^ ((x >> j) & 1) for j in cols) for cols in groups)
                    out[key] += c
            return tuple(sorted(out.items()))
        cD, cM = defaultdict(int), defaultdict(int)
        for h in lawD:
            cD[coarse(h)] += lawD[h]
            cM[coarse(h)] += lawM[h]
        for h in lawD:
            T = coarse(h)
            ok &= C.is_zero(sp.cancel(lawM[h] / lawD[h] - cM[T] / cD[T]))
            count += 1
    rec.add("sym-classes", SRC, "000 (3.3)-(3.4), generalized",
            "flip columns so that x = 0 and group columns by their pattern over the distinct vectors of D and "
            "D_m: R(S) depends on S only through the histogram of coarse types (ones per class); constant "
            "columns drop out",
            "proved" if ok else "refuted",
            "Within a class every vector of D and D_m is constant, so p(v|u) is constant on each coarse type: "
            "given the users' coarse types, their synthetic vectors are independent and uniform within the "
            "types whatever the collection, so P(S|D) = P(T|D) g(S) with g free of D (Fisher factorization) and "
            "R(S) = P(T|D_m)/P(T|D). A constant column contributes an i.i.d. factor common to D and D_m. "
            f"Checked symbolically on every pair with N <= 3, L <= 2 ({count} histograms).",
            expect="proved")

    # ---- homogeneous base: the linear statistic (000 (2.4)) and delta
    ok = True
    for L in (1, 2):
        LBITS[0] = L
        for N in (1, 2, 3):
            for z in range(1 << L):
                for y in range(1 << L):
                    base = [z] * (N - 1)
                    lawY = _law(base + [y], L)
                    lawZ = _law([z] * N, L)
                    for h, val in lawY.items():
                        LBITS[0] = L
                        lin = sum(h[t] * _trans(y, t) / _trans(z, t) for t in range(1 << L)) / N
                        ok &= C.is_zero(sp.cancel(val - lawZ[h] * lin))
    rec.add("sym-hom-linear", SRC, "000 (2.2)-(2.4)",
            "homogeneous base z^(N-1): P(S | z^(N-1) + y) = P(S | z^N) (1/N) sum_i s_i p(v_i|y)/p(v_i|z); hence "
            "R > lam <=> sum_i s_i (r_{x_m}(v_i) - lam r_x(v_i)) > 0 and delta(lam) = E_{z^N}[(Z_lam)+]/N",
            "proved" if ok else "refuted",
            "Conditioning on the added user's synthetic vector (2.1) and the multinomial ratio (2.3): "
            "P(S - e_i | z^(N-1)) = P(S | z^N) s_i / (N p(v_i|z)). Then P(S|D_m) - lam P(S|D) = P(S|z^N) Z_lam(S)/N "
            "and delta = sum_S (P(S|D_m) - lam P(S|D))+ = E_{z^N}[Z_lam+]/N. Checked symbolically for L <= 2, "
            "N <= 3, all z, y.", expect="proved")

    # ---- one minority user: base z^(N-2) + y, the quadratic form behind exactdp/reductions/minority.py
    ok = True
    for L in (1, 2):
        for N in (2, 3, 4):
            for z in range(1 << L):
                for y in range(1 << L):
                    for w in range(1 << L):
                        if y == z:
                            continue
                        LBITS[0] = L
                        lawW = _law([z] * (N - 2) + [y, w], L)
                        lawZ = _law([z] * N, L)
                        for h, val in lawW.items():
                            LBITS[0] = L
                            ry = [_trans(y, t) / _trans(z, t) for t in range(1 << L)]
                            rw = [_trans(w, t) / _trans(z, t) for t in range(1 << L)]
                            Ay = sum(h[t] * ry[t] for t in range(1 << L))
                            Aw = sum(h[t] * rw[t] for t in range(1 << L))
                            B = sum(h[t] * ry[t] * rw[t] for t in range(1 << L))
                            ok &= C.is_zero(sp.cancel(val - lawZ[h] * (Ay * Aw - B) / (N * (N - 1))))
    rec.add("sym-minority", SRC, "000 (2.1)-(2.4), extended",
            "base z^(N-2) + y (one minority user): P(S | z^(N-2) + y + w) = P(S | z^N) (A_y A_w - sum_i s_i "
            "r_y(v_i) r_w(v_i)) / (N (N - 1)) with A_w = sum_i s_i r_w(v_i), r_w = p(.|w)/p(.|z); hence "
            "R > lam <=> A_y Z1 > Z2, Z1 = sum_i s_i (r_{x_m} - lam r_x)(v_i), Z2 = sum_i s_i r_y (r_{x_m} - lam r_x)(v_i)",
            "proved" if ok else "refuted",
            "Condition on the synthetic vectors of the y-user and the changed user (2.1): the other N-2 users "
            "form z^(N-2), and P(S - e_i - e_j | z^(N-2)) = P(S | z^N) s_i (s_j - [i = j]) / (N (N-1) p(v_i|z) "
            "p(v_j|z)) (multinomial ratio (2.3) twice); summing over (v_i, v_j) gives A_y A_w minus the diagonal. "
            "Checked symbolically for L <= 2, N <= 4, all z, y != z, w.", expect="proved")

    # ---- two base types at Hamming distance one: conditioning on the special column (exactdp/reductions/twotype.py)
    ok = True
    T = sp.Symbol("T")
    for L, N in ((1, 3), (1, 4), (2, 3), (2, 4), (3, 3)):
        for z in range(1 << L) if L < 3 else (0,):
            for s in range(L):
                y = z ^ (1 << s)
                for ny in range(1, N - 1):
                    nz = N - 1 - ny
                    PM = sp.Poly(sp.expand((p + q * T)**nz * (q + p * T)**ny), T)
                    PMc = [PM.coeff_monomial(T**j) for j in range(N)] + [0, 0]
                    for w in range(1 << L):
                        LBITS[0] = L
                        law = _law([z] * nz + [y] * ny + [w], L)
                        for h, val in law.items():
                            LBITS[0] = L
                            off = [t for t in range(1 << L) if (t ^ z) >> s & 1]       # v_s != z_s
                            on = [t for t in range(1 << L) if not (t ^ z) >> s & 1]
                            m = sum(h[t] for t in off)

                            def ps(t, u):            # p(v_s = t_s | u)
                                return q if ((t ^ u) >> s) & 1 else p

                            def pi(t):               # law of the other columns under z
                                return _trans(z, t) / ps(t, z)

                            def F(group, n):
                                return sp.factorial(n) * sp.Mul(*[pi(t)**h[t] / sp.factorial(h[t])
                                                                  for t in group])

                            def A(group, u):
                                return sum(h[t] * (_trans(u, t) / ps(t, u)) / pi(t) for t in group)

                            a1 = PMc[m - 1] / m if m > 0 else 0
                            a0 = PMc[m] / (N - m) if m < N else 0
                            pw1 = p if ((w ^ z) >> s) & 1 else q             # p(v_s != z_s | w)
                            rhs = F(off, m) * F(on, N - m) * (a1 * pw1 * A(off, w) + a0 * (1 - pw1) * A(on, w))
                            ok &= C.is_zero(sp.cancel(val - rhs))
    rec.add("sym-distance-one", SRC, "000 (2.1)-(2.4), extended",
            "base z^(n_z) + y^(n_y) with |z XOR y| = 1 (special column s): with m = #{outputs with v_s != z_s}, "
            "P_M the law of m under the base (Bin(n_z, q) * Bin(n_y, p)), F(S) = MN(outputs with v_s != z_s; m, pi) "
            "MN(the others; N - m, pi) over the other columns, P(S | base + w) = F(S) (P_M(m-1)/m p(v_s != z_s | w) "
            "A_1(w) + P_M(m)/(N-m) p(v_s = z_s | w) A_0(w)), A_b(w) = sum over the outputs of group b of "
            "p(other columns | w) / pi; hence given m, R > lam is linear in two independent multinomials",
            "proved" if ok else "refuted",
            "Every base user's other columns are Bern(q) away from z whatever its type, independent of its bit s; so "
            "P(S' | base) = P_M(m') MN MN for a histogram S' of N - 1 outputs, and P(S | base + w) = sum_v "
            "P(S - e_v | base) p(v | w) with the multinomial ratio (2.3) in the group of v. Checked symbolically "
            "for L <= 2, N <= 4 and L = 3, N = 3 (z = 000), all s, n_y, w.", expect="proved")

    # ---- Hamming distance: homogeneous D with any modification == 000's pair with L = d
    ok = True
    for L in (2, 3):
        for N in (1, 2):
            for xm in range(1, 1 << L):
                d = bin(xm).count("1")
                lawL = _ratio_law([0] * N, [0] * (N - 1) + [xm], L)
                vals = defaultdict(int)
                for h, (num, den) in lawL.items():
                    vals[sp.cancel(num / den)] += num
                lawd = _ratio_law([0] * N, [0] * (N - 1) + [(1 << d) - 1], d)
                vals2 = defaultdict(int)
                for h, (num, den) in lawd.items():
                    vals2[sp.cancel(num / den)] += num
                ok &= set(vals) == set(vals2) and all(C.is_zero(vals[r] - vals2[r]) for r in vals)
    rec.add("sym-hamming", SRC, "000 §1.2 (2), variant",
            "for D = z^N and D_m = z^(N-1) + x_m the law of R equals that of 000's pair with L = d(z, x_m) bits; "
            "homogeneous-base pairs reduce to (N, b, c, e) = sizes of x minus x_m, x_m minus x, x and x_m "
            "(after flipping z to 0)",
            "proved" if ok else "refuted",
            "sym-group (flip z to 0, permute bits) and sym-classes (the columns where z, x, x_m agree are constant "
            "and drop out). Checked symbolically (law as a function of q) for L <= 3, N <= 2, all x_m.",
            expect="proved")

    # ---- k-randomization == every vector repeated k times
    ok = True
    for L in (1, 2):
        for N in (1, 2):
            for D in itertools.product(range(1 << L), repeat=N):
                k = 2
                rep = [t for t in D for _ in range(k)]
                a = _law(rep, L)
                LBITS[0] = L
                b = defaultdict(int)
                for seqs in itertools.product(itertools.product(range(1 << L), repeat=k), repeat=N):
                    h = [0] * (1 << L)
                    w = 1
                    for x, ss in zip(D, seqs):
                        for s in ss:
                            h[s] += 1
                            w *= _trans(x, s)
                    b[tuple(h)] += w
                ok &= all(C.is_zero(a[h] - b[h]) for h in a)
    rec.add("sym-k-repeat", C.P003, "003 §1, 000 §6",
            "under k-randomization the histogram of the kN synthetic vectors of D has the law of A applied to "
            "D with every vector repeated k times (D^k, D_m^k then differ in k records)",
            "proved" if ok else "refuted",
            "The k randomizations of a user are independent with law p(.|x) each, exactly like k users holding "
            "x; the histogram forgets which user produced which vector. Checked symbolically for k = 2, L <= 2, "
            "N <= 2, all D.", expect="proved")

    # ---- L = 1: every pair is (j ones, 0 -> 1) up to a flip
    ok = True
    for N in range(1, 5):
        for base in itertools.combinations_with_replacement((0, 1), N - 1):
            j = sum(base)
            for x, xm in ((0, 1), (1, 0)):
                if x == 0:
                    target = (j, N - 1 - j)
                else:
                    target = (N - 1 - j, j)     # flip: ones <-> zeros
                ok &= target[0] + target[1] == N - 1
    rec.add("sym-l1-family", C.P004, "004 §3.1",
            "for L = 1 every neighbouring pair is, up to flipping the bit, a base of j ones and N-1-j zeros with "
            "one user 0 -> 1 (j = 0: 000's pair; j = N-1: its reverse); the histogram is the number of ones, "
            "Bin(#ones, p) + Bin(#zeros, q)",
            "proved",
            "x != x_m forces {x, x_m} = {0, 1}; if x = 1, sym-group with m = 1 maps it to x = 0 and the base "
            "count j to N-1-j. The count of synthetic ones is a sufficient statistic (sym-classes, one class).",
            expect="proved")
    return rec.records


if __name__ == "__main__":
    C.main_for(identities)
