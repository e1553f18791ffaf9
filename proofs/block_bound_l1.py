"""All-pairs upper bound for shuffled single-bit RR (L = 1) by blocks of m.

Used by ``exactdp/apps/blockbound.py`` (the guarantee's certified upper end at
L = 1 beyond the exact all-pairs range).  Setting (000_3d8ddaba8b46cf9c.txt
§1.3 with L = 1): N users, bit flipped with probability q, p = 1 - q; the
shuffled output is the number K of reported ones.  A neighbouring pair changes
one user's bit; if the other N - 1 users hold m ones, the others report
S_m = Bin(m, p) + Bin(N-1-m, q) and the two laws of K are
P_m = S_m + Bern(p) (target 1) and Q_m = S_m + Bern(q) (target 0), with
hockey-stick divergence delta_m^(N)(lam) = sum_k (P_m(k) - lam Q_m(k))_+.

Records:

* ``l1-reflection`` -- x^N Q_{N-1-m}(1/x) = P_m(x) (pgfs): the pair in the
  other order is the pair of m' = N-1-m read through K -> N - K, so every
  neighbouring pair in either order has the divergence of some delta_m.
* ``l1-block-split`` -- pgf identity S_m = S'_{a,b} + Z_{a,m,b} (independent):
  (q+px)^m (p+qx)^(N-1-m) = [(q+px)^a (p+qx)^(N-1-b)] [(q+px)^(m-a) (p+qx)^(b-m)].
* ``l1-data-processing`` -- adding independent noise Z does not increase the
  hockey-stick divergence: sum_k (sum_j z_j d_{k-j})_+ <= sum_k (d_k)_+.
* ``l1-block-lemma`` -- the consequence used: for a <= m <= b,
  delta_m^(N)(lam) <= delta_a^(N-(b-a))(lam); also checked exhaustively with
  exact rationals (N <= 9, every a <= m <= b, several q and lam).

Run: ``python proofs/block_bound_l1.py``.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sympy as sp  # noqa: E402

import _core as C  # noqa: E402

TOPIC = "block_bound_l1"
SRC = C.P000


def _pmf_sum(m, N, q):
    """Exact pmf of Bin(m, p) + Bin(N-1-m, q) as a list (Fractions)."""
    p = 1 - q
    a = [comb(m, i) * p ** i * q ** (m - i) for i in range(m + 1)]
    b = [comb(N - 1 - m, i) * q ** i * p ** (N - 1 - m - i) for i in range(N - m)]
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def delta_exact(N, m, q, lam) -> Fraction:
    """delta_m^(N)(lam) exactly (independent of exactdp)."""
    p = 1 - q
    f = [Fraction(0)] + _pmf_sum(m, N, q) + [Fraction(0)]
    tot = Fraction(0)
    for k in range(1, len(f)):
        P = p * f[k - 1] + q * f[k]
        Q = q * f[k - 1] + p * f[k]
        tot += max(Fraction(0), P - lam * Q)
    return tot


def identities():
    rec = C.Recorder(TOPIC)
    x = sp.Symbol("x", positive=True)
    q, p = C.q, C.p
    m, a, b, N = sp.symbols("m a b N", positive=True, integer=True)

    # ---- reflection
    Pm = (q + p * x) * (q + p * x) ** m * (p + q * x) ** (N - 1 - m)
    Qm_ref = (p + q * x) * (q + p * x) ** (N - 1 - m) * (p + q * x) ** m   # Q_{N-1-m}(x)
    lhs = sp.expand_power_base(x ** N * Qm_ref.subs(x, 1 / x), force=True)
    ok = C.is_zero(sp.powsimp(lhs, force=True) - Pm)
    rec.add("l1-reflection", SRC, "000 §1.3 (L = 1)",
            "x^N Q_{N-1-m}(1/x) = P_m(x): the pair (Q_m, P_m) read through K -> N - K is (P_{N-1-m}, Q_{N-1-m}); "
            "hence every neighbouring pair at L = 1, in either order, has hockey-stick divergence delta_m for "
            "some m in 0..N-1",
            "proved" if ok else "refuted",
            "pgf of Bern(p) is q + p x, of Bern(q) is p + q x, of a sum of independent terms the product; "
            "x (p + q/x) = q + p x and x (q + p/x) = p + q x; sympy reduces the difference to 0 with "
            "symbolic m, N.  A law's pgf determines it; K -> N - K is a bijection, so divergences agree.",
            expect="proved")

    # ---- block split
    lhs = (q + p * x) ** m * (p + q * x) ** (N - 1 - m)
    rhs = ((q + p * x) ** a * (p + q * x) ** (N - 1 - b)) * ((q + p * x) ** (m - a) * (p + q * x) ** (b - m))
    ok = C.is_zero(sp.powsimp(rhs, force=True) - lhs)
    rec.add("l1-block-split", SRC, "000 §1.3 (L = 1)",
            "for a <= m <= b: S_m = S' + Z with S' = Bin(a,p) + Bin(N-1-b,q) (the others of the pair with "
            "N-(b-a) users, a of them ones) and Z = Bin(m-a,p) + Bin(b-m,q) independent of S' and of the target",
            "proved" if ok else "refuted",
            "pgf identity (q+px)^m (p+qx)^(N-1-m) = (q+px)^a (p+qx)^(N-1-b) (q+px)^(m-a) (p+qx)^(b-m), "
            "reduced to 0 by sympy with symbolic exponents (exponents add); the users are independent so "
            "the split is into independent sums.",
            expect="proved")

    # ---- data processing under independent additive noise
    ok = True
    rng = random.Random(1905)
    for _ in range(300):   # exact random instances of the full inequality
        n = rng.randint(1, 6)
        dd = [Fraction(rng.randint(-30, 30), rng.randint(1, 9)) for _ in range(n)]
        zz = [Fraction(rng.randint(0, 9), 1) for _ in range(rng.randint(1, 4))]
        sz = sum(zz)
        if sz == 0:
            continue
        zz = [z / sz for z in zz]
        conv = [sum(zz[j] * dd[k - j] for j in range(len(zz)) if 0 <= k - j < n)
                for k in range(n + len(zz) - 1)]
        ok &= sum(max(c, 0) for c in conv) <= sum(max(c, 0) for c in dd)
    rec.add("l1-data-processing", SRC, "hockey-stick divergence, data processing",
            "for P, Q on the integers and Z independent of the pair: "
            "sum_k (P*Z(k) - lam Q*Z(k))_+ <= sum_k (P(k) - lam Q(k))_+",
            "proved" if ok else "refuted",
            "with d = P - lam Q, (P - lam Q)*Z = sum_j z_j d(. - j); the positive part is subadditive and "
            "positively homogeneous, so (sum_j z_j d_{k-j})_+ <= sum_j z_j (d_{k-j})_+ and summing over k gives "
            "sum_j z_j sum_k (d_k)_+ = sum_k (d_k)_+ (z_j >= 0, sum 1).  Exact evidence on random "
            "instances: 300 exact random ones (no violation).",
            expect="proved")

    # ---- the block lemma, with exhaustive exact evidence
    viol = None
    cases = 0
    for qv in (Fraction(1, 4), Fraction(1, 3), Fraction(1, 10), Fraction(2, 5)):
        for lamv in (Fraction(1), Fraction(6, 5), Fraction(2)):
            for Nv in range(1, 10):
                for av in range(Nv):
                    for bv in range(av, Nv):
                        bound = delta_exact(Nv - (bv - av), av, qv, lamv)
                        for mv in range(av, bv + 1):
                            cases += 1
                            if delta_exact(Nv, mv, qv, lamv) > bound and viol is None:
                                viol = dict(N=str(Nv), m=str(mv), a=str(av), b=str(bv), q=C.fmt(qv),
                                            lam=C.fmt(lamv))
    rec.add("l1-block-lemma", SRC, "000 §1.3 (L = 1); used by exactdp/apps/blockbound.py",
            "for 0 <= a <= m <= b <= N-1: delta_m^(N)(lam) <= delta_a^(N-(b-a))(lam); hence "
            "max_m delta_m^(N) <= max over a cover of 0..N-1 by blocks [a,b] of delta_a^(N-(b-a))",
            "proved" if viol is None else "refuted",
            "l1-block-split writes P_m, Q_m as P'_a * Z, Q'_a * Z with (P'_a, Q'_a) the pair of N-(b-a) users "
            "and a ones; l1-data-processing drops Z.  Belt and braces: no violation in "
            f"{cases} exhaustive exact cases (N <= 9, every a <= m <= b, q in 1/4 1/3 1/10 2/5, "
            "lam in 1 6/5 2).",
            expect="proved")
    return rec.records


if __name__ == "__main__":
    C.main_for(identities)
