"""The compiled kernel's leaf sums (leaves summed inside their level-2 parent with one
factor for the upper ends, dropped children bounded per group, rows from an arena) against
exact sums at sizes where the binomial rows are cut and children are dropped.

L = 2: ``Z = T_0 W_0 + T_1 W_1 + T_2 W_2``, ``T ~ MN(n, pi0)``; every sum is enumerated
exactly over the ``(n + 1)(n + 2)/2`` outcomes in integers (common denominator ``b^(2n)``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from exactdp import Mechanism
from exactdp.engine import ckernel
from exactdp.engine.kernel import Threshold, tail_sums

pytestmark = pytest.mark.skipif(not ckernel.available(), reason="compiled kernel not built")


def exact_sums_L2(mech, n, tau: Fraction):
    """(P[Z > tau], E[(Z - tau)+], P[Z = tau], P[Z < tau], E[(tau - Z)+]) exactly."""
    assert mech.L == 2
    pi = [Fraction(p) for p in mech.pi0]
    den = math.lcm(*(p.denominator for p in pi))
    w = [p.numerator * (den // p.denominator) for p in pi]          # pi_i = w_i / den
    W = mech.weights
    up_P = up_X = eq_P = lo_P = lo_X = 0                             # scaled by den^n (and tau's den)
    P, Q = tau.numerator, tau.denominator
    pw = [[wi**k for k in range(n + 1)] for wi in w]
    for t2 in range(n + 1):
        c2 = math.comb(n, t2) * pw[2][t2]
        for t1 in range(n - t2 + 1):
            t0 = n - t2 - t1
            c = c2 * math.comb(n - t2, t1) * pw[1][t1] * pw[0][t0]
            zq = (t0 * W[0] + t1 * W[1] + t2 * W[2]) * Q - P
            if zq > 0:
                up_P += c
                up_X += c * zq
            elif zq < 0:
                lo_P += c
                lo_X += c * -zq
            else:
                eq_P += c
    D = den**n
    return (Fraction(up_P, D), Fraction(up_X, D * Q), Fraction(eq_P, D), Fraction(lo_P, D),
            Fraction(lo_X, D * Q))


def queries(ts):
    return (ts.p_above(), ts.excess_above(), ts.p_equal(), ts.p_below(), ts.excess_below())


@pytest.mark.parametrize("n,q", [(150, "1/4"), (90, "2/7")])
@pytest.mark.parametrize("where,half", [(0.3, False), (0.5, True), (0.8, False), (0.97, True)])
def test_leaf_sums_contain_exact_trinomial_sums(n, q, where, half):
    """Thresholds at atoms (ties at the leaves) and between them, across the law."""
    m = Mechanism(2, q)
    W = m.weights
    lo, hi = n * W[0], n * W[2]
    # an atom of Z near the requested quantile of the range (t2 = 0 keeps it reachable)
    base = lo + int(where * (hi - lo) / 8)
    t1 = min(n, max(0, (base - lo) // (W[1] - W[0])))
    atom = (n - t1) * W[0] + t1 * W[1]
    tau = Fraction(atom) + (Fraction(1, 3) if half else 0)
    truth = exact_sums_L2(m, n, tau)
    ts = tail_sums(m, n, Threshold.from_fraction(tau, 128), prec=128, tol=1e-28, engine="compiled")
    assert ts.engine == "compiled" and ts.nodes > 1
    for name, iv, t in zip(("up_P", "up_X", "eq_P", "lo_P", "lo_X"), queries(ts), truth):
        assert iv.contains(t), (name, iv, t)
        assert iv.width <= Fraction(1, 10**20) * max(abs(t), Fraction(1, 10**6)), (name, float(iv.width))


def test_row_eviction_keeps_enclosures(monkeypatch):
    """Rows evicted (a cell budget far below the walk's need) are rebuilt outside the
    arena: the same enclosures up to rounding, each containing the exact sums."""
    m = Mechanism(2, "1/4")
    n = 120
    tau = Fraction(n * m.weights[0] + 40 * (m.weights[1] - m.weights[0]))
    thr = Threshold.from_fraction(tau, 128)
    full = tail_sums(m, n, thr, prec=128, tol=1e-28, engine="compiled")
    monkeypatch.setattr(ckernel, "MAX_CELLS", 500)
    small = tail_sums(m, n, thr, prec=128, tol=1e-28, engine="compiled")
    assert (small.nodes, small.leaves) == (full.nodes, full.leaves)
    truth = exact_sums_L2(m, n, tau)
    for a, b, t in zip(queries(full), queries(small), truth):
        assert a.contains(t) and b.contains(t)
    # L = 3: many level-2 nodes, rows evicted and rebuilt between them
    m3 = Mechanism(3, "0.2")
    thr3 = Threshold.from_fraction(Fraction(3 * 300 * m3.scale, 2), 128)
    small3 = tail_sums(m3, 300, thr3, prec=128, tol=1e-24, engine="compiled")
    monkeypatch.undo()
    full3 = tail_sums(m3, 300, thr3, prec=128, tol=1e-24, engine="compiled")
    arb3 = tail_sums(m3, 300, thr3, prec=128, tol=1e-24, engine="arb")
    assert (small3.nodes, small3.leaves) == (full3.nodes, full3.leaves) == (arb3.nodes, arb3.leaves)
    for a, b, c in zip(queries(small3), queries(full3), queries(arb3)):
        assert a.overlaps(b) and a.overlaps(c) and a.width <= 2 * b.width + Fraction(1, 10**30)


def test_same_leaves_as_arb_at_L3():
    """The leaves summed in their parents are the nodes the arb walk pops one by one."""
    m = Mechanism(3, "0.2")
    n = 400
    thr = Threshold.from_fraction(Fraction(3 * n * m.scale, 2), 128)
    c = tail_sums(m, n, thr, prec=128, tol=1e-22, engine="compiled")
    a = tail_sums(m, n, thr, prec=128, tol=1e-22, engine="arb")
    assert (c.nodes, c.leaves) == (a.nodes, a.leaves) and c.leaves > 100
    for ci, ai in zip(queries(c), queries(a)):
        assert ci.overlaps(ai)


def test_seconds_per_node_names_the_engine_that_runs():
    assert ckernel.seconds_per_node(1000, 128) == ckernel.COMPILED_SECONDS_PER_NODE
    assert ckernel.seconds_per_node(1000, ckernel.MAX_PREC + 1) == ckernel.ARB_SECONDS_PER_NODE
    assert ckernel.seconds_per_node(ckernel.MAX_N + 1, 128) == ckernel.ARB_SECONDS_PER_NODE
