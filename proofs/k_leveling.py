"""000 §6.1's "asymptotic leveling": the noise needed under k-randomization tends to 1/2.

000_3d8ddaba8b46cf9c.txt §6.1 (L = 40, N = 10^7, lambda = e^2) reports "a slight decrease of
necessary noise with the asymptotic leveling at low bound" as k grows.  Here: for every
``q0 < 1/2`` there is an explicit ``k0(q0)`` such that for every ``k >= k0`` and every
``q <= q0`` the sufficient-privacy target fails, ``eta = P[R > lambda] > 1 %`` (000's pair and
direction).  So the least ``q`` meeting the target exceeds ``q0`` for ``k >= k0``: it tends to
1/2 (no information), and there is no leveling below 1/2.

Setting (000 §1.3, §6; ``proofs/k_randomization.py`` id ``sym-k-repeat``): ``D = z^N``,
``D_m = z^(N-1) + w`` with ``w`` differing from ``z`` in ``d`` columns (``d = L`` for 000's
pair); every user submits ``k`` randomizations, so ``S`` is the histogram of ``kN`` independent
reports; ``P1`` is its law under ``D_m``, ``P0`` under ``D``, ``R = P1(S) / P0(S)`` and
``eta = P1[R > lambda]``.

Records:

* ``k-lev-hockey`` -- for every event ``A``: ``P1(A) - lambda P0(A) <= eta``.  Proof: on
  ``{R <= lambda}`` the law ``P1`` is at most ``lambda P0`` pointwise (every histogram has
  ``P0 > 0`` for ``0 < q < 1``), so ``P1(A) <= P1(R > lambda) + lambda P0(A)``.  Checked
  exhaustively against the exact ``eta`` at tiny ``N, L, k``.
* ``k-lev-level-sum`` -- the statistic ``T = sum over the kN reports of the number of the d
  columns where the report agrees with w``: ``T ~ Bin(kNd, q)`` under ``P0`` and
  ``Bin(k(N-1)d, q) + Bin(kd, p)`` under ``P1``; same variance ``s^2 = kNd pq``, means apart by
  ``D = kd(p - q)``.  With ``A = {T >= mean0 + D/2}`` and Cantelli's one-sided inequality
  (``P[X - EX >= a] <= Var/(Var + a^2)``, both tails) ``eta >= 1 - (1 + lambda)/(1 + r^2/4)``,
  ``r^2 = D^2 / s^2 = k d (p - q)^2 / (N p q)``.  Hence ``eta > 1/100`` when
  ``r^2 > C = 4 ((1 + lambda) 100/99 - 1)``, and ``pq/(p - q)^2`` is increasing on
  ``(0, 1/2)`` (derivative ``1/(1 - 2q)^3``, sympy), so ``k >= k0(q0) = C N p0 q0 / (d (p0 - q0)^2)``
  gives ``eta > 1 %`` at every ``q <= q0``.  ``lambda = e^2 < 73891/10000`` (from the series of
  ``e`` with its tail bound, exact).
* ``k-lev-deployment`` -- the numbers at ``L = d = 40``, ``N = 10^7``: ``k0`` for
  ``q0 = 0.36, 0.40, 0.45, 0.49``.
* ``k-lev-ratio-statistic`` -- a sharper statistic for single points: ``T = sum c(v)`` over the
  reports, ``c = (q/p)^(d - 2j)`` the one-report ratio.  ``E0 c = 1``, ``E0 c^2 = A2^d``,
  ``E1 c = A2^d``, ``E1 c^2 = A3^d`` with ``A2 = q^2/p + p^2/q``, ``A3 = q^3/p^2 + p^3/q^2``;
  Cantelli on both sides at ``mean0 + theta D`` gives a lower bound on ``eta`` that increases with
  ``k`` (variances linear in ``k``, ``D`` linear).  The least ``k`` (on a grid) with bound > 1 % at
  ``q = 0.36, 0.38, 0.40``, ``L = 40``, ``N = 10^7`` is recorded.

Run: ``python proofs/k_leveling.py``.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sympy as sp  # noqa: E402

import _core as C  # noqa: E402
from _core import shuffled_law  # noqa: E402

TOPIC = "k_leveling"
SRC = C.P000
TARGET = Fraction(1, 100)
DEPLOY = {"N": 10**7, "d": 40}
Q0S = (Fraction(9, 25), Fraction(2, 5), Fraction(9, 20), Fraction(49, 100))
POINT_QS = (Fraction(9, 25), Fraction(19, 50), Fraction(2, 5))


# ------------------------------------------------------------------ e^2 bound
def e_upper() -> Fraction:
    """A rational upper bound of e: sum_{n <= 17} 1/n! plus the tail bound 2/18!."""
    s = sum(Fraction(1, math.factorial(n)) for n in range(18))
    return s + Fraction(2, math.factorial(18))


def lam_upper() -> Fraction:
    """``e^2 < 73891/10000``, checked exactly (e_upper()^2 is below it)."""
    bound = Fraction(73891, 10000)
    if not e_upper() ** 2 < bound:
        raise C.ProofError("e^2 < 7.3891 not established")
    return bound


# ------------------------------------------------------------ level-sum bound
def level_sum_constant(lam: Fraction, target: Fraction = TARGET) -> Fraction:
    """``C`` with ``r^2 > C`` => ``1 - (1 + lam)/(1 + r^2/4) > target``."""
    return 4 * ((1 + lam) / (1 - target) - 1)


def k0(q0: Fraction, N: int, d: int, lam: Fraction) -> int:
    """Least integer ``k`` with ``r^2(q0) > C``: from it on, eta > 1 % at every q <= q0."""
    p0 = 1 - q0
    x = level_sum_constant(lam) * N * p0 * q0 / (d * (p0 - q0) ** 2)
    return math.floor(x) + 1


def level_sum_eta_lower(k: int, q: Fraction, N: int, d: int, lam: Fraction) -> Fraction:
    """``1 - (1 + lam)/(1 + r^2/4)``, the level-sum lower bound on eta."""
    p = 1 - q
    r2 = Fraction(k * d) * (p - q) ** 2 / (N * p * q)
    return 1 - (1 + lam) / (1 + r2 / 4)


# ----------------------------------------------------------- ratio statistic
def ratio_eta_lower(k: int, q: Fraction, N: int, d: int, lam: Fraction) -> Fraction:
    """Best Cantelli lower bound on eta from ``T = sum c(v)`` over theta in {1/20, ..., 19/20}."""
    p = 1 - q
    A2 = (q * q / p + p * p / q) ** d
    A3 = (q ** 3 / (p * p) + p ** 3 / (q * q)) ** d
    var0 = k * N * (A2 - 1)
    var1 = k * (N - 1) * (A2 - 1) + k * (A3 - A2 * A2)
    D = k * (A2 - 1)
    best = Fraction(-10**9)
    for i in range(1, 20):
        a = D * Fraction(i, 20)
        b = D - a
        low = 1 - var1 / (var1 + b * b) - lam * var0 / (var0 + a * a)
        best = max(best, low)
    return best


def least_k_ratio(q: Fraction, N: int, d: int, lam: Fraction, target: Fraction = TARGET) -> int:
    """Least ``k`` on the grid ``ceil(2^(i/4))`` with ratio-statistic bound > target."""
    i = 0
    while True:
        k = math.ceil(2 ** (i / 4))
        if ratio_eta_lower(k, q, N, d, lam) > target:
            return k
        i += 1
        if i > 200:
            raise C.ProofError(f"no k found at q = {q}")


# ------------------------------------------------------------- tiny exact check
def kcopy_laws(N: int, L: int, k: int, q: Fraction):
    """Exact laws P0 (z^N) and P1 (z^(N-1) + w), z = 0^L, w = 1^L, of the histogram of the
    kN reports (each user's vector repeated k times), keyed by sorted report tuples."""
    z, w = (0,) * L, (1,) * L
    return shuffled_law([z] * (k * N), q, L), shuffled_law([z] * (k * (N - 1)) + [w] * k, q, L)


def tiny_check(N: int, L: int, k: int, q: Fraction, lam: Fraction, *,
               var_scale: Fraction = Fraction(1)) -> tuple[bool, str]:
    """eta exactly; for every threshold t of T: P1(T >= t) - lam P0(T >= t) <= eta, and the
    Cantelli bounds of the level-sum record enclose P0(T >= t), P1(T < t).  ``var_scale`` != 1
    misstates the variance (so the tests can see the check fail)."""
    P0, P1 = kcopy_laws(N, L, k, q)
    eta = sum((P1[s] for s in P1 if P1[s] > lam * P0[s]), Fraction(0))
    T = {s: sum(sum(y) for y in s) for s in P0}
    p = 1 - q
    n0 = k * N * L
    m0, var = n0 * q, n0 * p * q * var_scale
    m1 = m0 + k * L * (p - q)
    for t in range(0, k * N * L + 2):
        a0 = sum((P0[s] for s in P0 if T[s] >= t), Fraction(0))
        a1 = sum((P1[s] for s in P1 if T[s] >= t), Fraction(0))
        if a1 - lam * a0 > eta:
            return False, f"hockey bound fails at t = {t}"
        if t > m0 and a0 > var / (var + (t - m0) ** 2):
            return False, f"Cantelli (P0 upper tail) fails at t = {t}"
        if t < m1 and 1 - a1 > var / (var + (m1 - t) ** 2):
            return False, f"Cantelli (P1 lower tail) fails at t = {t}"
    return True, f"eta = {eta}"


def identities():
    rec = C.Recorder(TOPIC)
    lam = lam_upper()

    # ------------------------------------------------------------- the hockey lemma
    cases = [(2, 2, 2, Fraction(1, 5), Fraction(2)), (3, 1, 2, Fraction(1, 4), Fraction(3, 2)),
             (2, 1, 3, Fraction(1, 3), Fraction(5, 4)), (1, 2, 2, Fraction(1, 10), Fraction(4))]
    bad = []
    for case in cases:
        ok, why = tiny_check(*case)
        if not ok:
            bad.append(f"{case}: {why}")
    rec.add("k-lev-hockey", SRC, "§6.1 (tool)",
            "P1(A) - lambda P0(A) <= eta = P1[R > lambda] for every event A; Cantelli's one-sided "
            "bounds on the level sum T",
            "checked" if not bad else "refuted",
            "Standard (P1 <= lambda P0 pointwise on {R <= lambda}); checked exactly, every threshold "
            "of T, on (N, L, k, q, lambda) in " + ", ".join(str(c[:3]) + f" q={c[3]} lam={c[4]}" for c in cases)
            + ("" if not bad else "; FAILED: " + "; ".join(bad)),
            expect="checked")

    # ---------------------------------------------------------- the level-sum bound
    qq = sp.Symbol("q", positive=True)
    pp = 1 - qq
    kk, NN, dd = sp.symbols("k N d", positive=True)
    var0 = kk * NN * dd * pp * qq
    var1 = kk * (NN - 1) * dd * pp * qq + kk * dd * pp * qq
    delta = kk * dd * (pp - qq)
    same_var = C.is_zero(var0 - var1)
    r2 = sp.simplify(delta ** 2 / var0)
    r2_ok = C.is_zero(r2 - kk * dd * (pp - qq) ** 2 / (NN * pp * qq))
    deriv = sp.diff(pp * qq / (pp - qq) ** 2, qq)
    deriv_ok = C.is_zero(deriv - 1 / (1 - 2 * qq) ** 3)
    # 1 - (1 + lam)/(1 + r2/4) > target  <=>  r2 > 4((1 + lam)/(1 - target) - 1)
    x, lm, tg = sp.symbols("x lam tau", positive=True)
    cst = 4 * ((1 + lm) / (1 - tg) - 1)
    equiv_ok = C.is_zero(sp.solve(sp.Eq(1 - (1 + lm) / (1 + x / 4), tg), x)[0] - cst)
    ok = same_var and r2_ok and deriv_ok and equiv_ok
    rec.add("k-lev-level-sum", SRC, "§6.1",
            "eta_k(q) >= 1 - (1 + lambda)/(1 + r^2/4), r^2 = k d (p - q)^2/(N p q); so eta > 1% for "
            "every q <= q0 once k >= k0(q0) = C N p0 q0/(d (p0 - q0)^2), C = 4((1 + lambda) 100/99 - 1); "
            "the least q with eta <= 1% tends to 1/2 (no leveling below 1/2)",
            "proved" if ok else "refuted",
            "T ~ Bin(kNd, q) under D, Bin(k(N-1)d, q) + Bin(kd, p) under D_m (independent reports, "
            "sym-k-repeat); equal variances and r^2 (sympy); event {T >= E0 T + D/2} in k-lev-hockey "
            "with Cantelli's inequality on both laws; 1 - (1+lam)/(1+x/4) > tau <=> x > C (sympy); "
            "d/dq [pq/(p-q)^2] = 1/(1-2q)^3 > 0 on (0, 1/2) (sympy), so r^2 falls as q rises and the "
            "condition at q0 covers every q <= q0; it rises with k.  lambda = e^2 < 73891/10000 "
            "(exact series bound of e).",
            expect="proved")

    # -------------------------------------------------------- deployment numbers
    N, d = DEPLOY["N"], DEPLOY["d"]
    ks = {str(q0): k0(q0, N, d, lam) for q0 in Q0S}
    for q0, kv in zip(Q0S, ks.values()):
        if not (level_sum_eta_lower(kv, q0, N, d, lam) > TARGET
                and level_sum_eta_lower(kv - 1, q0, N, d, lam) <= TARGET):
            raise C.ProofError(f"k0 at q0 = {q0} is not the least integer")
    rec.add("k-lev-deployment", SRC, "§6.1, L = 40, N = 10M, lambda = e^2",
            "k0(q0) of k-lev-level-sum at L = d = 40, N = 10^7: "
            + ", ".join(f"q0 = {float(Fraction(a)):g}: k0 = {b:,}" for a, b in ks.items()),
            "proved",
            "Exact rational evaluation of k0(q0) = floor(C N p0 q0/(d (p0 - q0)^2)) + 1 with "
            "lambda = 73891/10000 > e^2; the bound is checked > 1% at k0 and <= 1% at k0 - 1.",
            expect="proved")

    pts = {str(qv): least_k_ratio(qv, N, d, lam) for qv in POINT_QS}
    rec.add("k-lev-ratio-statistic", SRC, "§6.1, L = 40, N = 10M, lambda = e^2",
            "with T = sum of the reports' ratios c(v): eta_k(q) > 1% for every k >= K(q): "
            + ", ".join(f"q = {float(Fraction(a)):g}: K = {b:,}" for a, b in pts.items()),
            "proved",
            "E0 c = 1, E0 c^2 = E1 c = A2^d, E1 c^2 = A3^d (000 (3.5)); Cantelli on both laws at "
            "E0 T + theta D (theta on a grid of 1/20) in k-lev-hockey, exact rationals; the bound "
            "rises with k (variances linear, D linear in k), so K(q) is a threshold; K is the least "
            "k of the grid ceil(2^(i/4)) where the bound exceeds 1%.",
            expect="proved")
    return rec.records


def numbers() -> dict:
    """The deployment numbers (for the audit): ``k0`` per q0 and ``K`` per q."""
    lam = lam_upper()
    N, d = DEPLOY["N"], DEPLOY["d"]
    return {"k0": {str(q0): k0(q0, N, d, lam) for q0 in Q0S},
            "K_ratio": {str(qv): least_k_ratio(qv, N, d, lam) for qv in POINT_QS}}


if __name__ == "__main__":
    C.main_for(identities)
