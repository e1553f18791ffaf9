"""Binomial rows of the certified kernel: the checkpointed running sums.

A row keeps its pmf and every ``_STRIDE``-th value of the four running sums
and resumes a sum from the nearest checkpoint on demand.  These tests rebuild
the full running sums from the row's pmf and tails (the direct definition) and
check that every query returns the identical ball (same midpoint, same
radius), for every ``k`` including those outside the window, and that the
balls enclose the exact binomial sums.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from flint import arb, ctx, fmpq

from exactdp.core.interval import arb_to_interval
from exactdp.engine.kernel import BinomialRows


def _running(values, start, from_right):
    out = [None] * len(values)
    acc = start
    for i in (range(len(values) - 1, -1, -1) if from_right else range(len(values))):
        acc = acc + values[i]
        out[i] = acc
    return out


def _reference(row):
    """The four queries from full running sums (the definition)."""
    pmf = row.pmf
    suf = _running(pmf, row.tail_right, True)
    pre = _running(pmf, row.tail_left, False)
    suf2 = _running(suf, row.tail_right2, True)
    pre2 = _running(pre, row.tail_left2, False)
    ka, kb, m = row.ka, row.kb, row.m

    def sf_ge(k):
        if k <= 0:
            return arb(1)
        if k > m:
            return arb(0)
        if k > kb:
            return row.tail_right
        if k < ka:
            return suf[0] + row.tail_left_pos
        return suf[k - ka]

    def cdf_le(k):
        if k < 0:
            return arb(0)
        if k >= m:
            return arb(1)
        if k < ka:
            return row.tail_left
        if k > kb:
            return pre[-1] + row.tail_right_pos
        return pre[k - ka]

    def ssum_ge(k):
        if k > m:
            return arb(0)
        if k > kb:
            return row.tail_right2
        if k >= ka:
            return suf2[k - ka]
        n_one = max(0, min(ka - 1, 0) - k + 1)
        n_mid = max(0, ka - 1 - max(k, 1) + 1)
        return suf2[0] + n_one + n_mid * (suf[0] + row.tail_left_pos)

    def csum_le(k):
        if k < 0:
            return arb(0)
        if k < ka:
            return row.tail_left2
        if k <= kb:
            return pre2[k - ka]
        n_one = max(0, k - max(kb + 1, m) + 1)
        n_mid = max(0, min(k, m - 1) - (kb + 1) + 1)
        return pre2[-1] + n_one + n_mid * (pre[-1] + row.tail_right_pos)

    return sf_ge, cdf_le, ssum_ge, csum_le


def _same(a, b):
    return a.mid() == b.mid() and a.rad() == b.rad()


@pytest.mark.parametrize("theta, m, prec, tol", [
    (Fraction(1, 3), 0, 128, 1e-30), (Fraction(1, 3), 1, 128, 1e-30),
    (Fraction(1, 3), 7, 128, 1e-30), (Fraction(4445, 8556), 40, 130, 1e-20),
    (Fraction(1, 50), 300, 164, 1e-40), (Fraction(9, 10), 123, 200, 1e-25),
    (Fraction(1, 2), 2000, 130, 1e-12)])
def test_checkpointed_sums_are_the_full_running_sums(theta, m, prec, tol):
    with ctx.workprec(prec):
        row = BinomialRows(theta, prec, tol).row(m)
        ref = _reference(row)
        got = (row.sf_ge, row.cdf_le, row.ssum_ge, row.csum_le)
        for k in range(-3, m + 4):
            for f, g in zip(ref, got):
                assert _same(f(k), g(k)), (f.__name__, k)


@pytest.mark.parametrize("m", [0, 5, 17, 60])
def test_row_sums_enclose_the_exact_binomial_sums(m):
    theta = Fraction(2, 7)
    p = [Fraction(comb(m, t)) * theta**t * (1 - theta)**(m - t) for t in range(m + 1)]
    with ctx.workprec(128):
        row = BinomialRows(theta, 128, 1e-30).row(m)
        for k in range(-2, m + 3):
            sf = sum((p[t] for t in range(max(k, 0), m + 1)), Fraction(0))
            cdf = sum((p[t] for t in range(0, min(k, m) + 1)), Fraction(0))
            ssum = sum((p[t] * (t - k + 1) for t in range(m + 1) if t >= k), Fraction(0))
            csum = sum((p[t] * (k + 1 - t) for t in range(m + 1) if t <= k), Fraction(0))
            for ball, exact in ((row.sf_ge(k), sf), (row.cdf_le(k), cdf),
                                (row.ssum_ge(k), ssum), (row.csum_le(k), csum)):
                assert arb_to_interval(ball).contains(exact), (k, exact)


def test_wrong_checkpoint_would_be_detected():
    """The comparison above sees a one-ulp change (it compares balls exactly)."""
    with ctx.workprec(128):
        a = arb(fmpq(1, 3))
        b = a + arb(2) ** -200
        assert not _same(a, b)
