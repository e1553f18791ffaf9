"""The one branch-and-bound search of exactdp's certified engines.

Every certified tree engine conditions a multinomial histogram category by
category (000 §3.1: the sufficient statistic of the synthetic set-bit counts).
For independent *units* (a :class:`~exactdp.engine.kernel.Block` of ``n`` users over
categories ``0..L``; 000's pair is one unit, a mixed homogeneous base two) the
counts are conditioned on in a fixed *schedule* of steps ``(unit, level)``: at a
step the count ``T_l`` of category ``l`` among the ``m`` users of the unit still
free in ``0..l`` is ``Bin(m, theta_l)`` with ``theta_l = pi_l / (pi_0 + ... + pi_l)``.
A node of the search is ``(step, free users per unit, state, mass)``; the *state*
is whatever the statistic needs of the counts fixed so far (a partial sum for a
linear statistic, a vector of power sums for the k-copies statistic).

What differs between the engines is only how a node is classified, so the search
takes a *statistic* object with these hooks (all accumulate into one
:class:`Accumulators`):

``settle(acc, s, ms, state, P) -> bool``
    the node is decided as a whole (wholly above / below the threshold, or a
    remainder bound tight enough): add it and return ``True``;
``point(acc, ms, state, P)``
    every step done (the free users left are in category 0): the statistic is a
    number;
``split(acc, s, ms, state, P, row) -> (first, last, nd)``
    add the values of ``T_l`` whose child is decided (closed-form binomial tail
    sums over a suffix and a prefix: a *linear range* classifier, or one found by
    *monotone bisection*) and return the straddling values ``first..last`` with
    the node's data ``nd`` for the hooks below (computed once per node);
``points(acc, nd, P, row, first, last) -> bool``
    the children are points (the last category of the last unit): sum the
    straddling ones (``first..last``, possibly empty) at once and return ``True``;
``drop(acc, nd, mass)`` / ``drop_child(acc, nd, x, mass)``
    account rigorously for mass not expanded (a row's far tails, or a child below
    the truncation ``tol``);
``child(nd, x) -> state``
    the child's state.

The truncated mass is never lost: every drop hook widens the upper ends of the
enclosures.  Arithmetic is python-flint ``arb`` at the statistic's working
precision (an argument, never global); threshold comparisons are exact integer
or rational arithmetic inside the hooks.  The compiled kernel
(:mod:`exactdp.engine.kernel`'s C extension, where built) runs the same search for the
linear statistic in another arithmetic.

>>> from fractions import Fraction
>>> from exactdp.engine.kernel import Block, Threshold, block_tail_sums
>>> ts = block_tail_sums([Block(2, (Fraction(2, 3), Fraction(1, 3)), (1, 4))],
...                      Threshold.from_fraction(Fraction(5), 64))    # Z in {2, 5, 8}
>>> ts.p_above().contains(Fraction(1, 9)), ts.nodes
(True, 1)
"""

from __future__ import annotations

import time

from flint import arb

from ..core.errors import CapacityError

__all__ = ["Accumulators", "Schedule", "walk", "window"]


class Accumulators:
    """The one accumulator set of the search (arb balls, all starting at 0).

    ``up_P``, ``eq_P``, ``lo_P``: mass above, equal to, below the threshold;
    ``up_X``, ``lo_X``: excess sums ``E[(Z - tau)+]``, ``E[(tau - Z)+]``;
    ``d_P``, ``d_E``, ``d_up``, ``d_lo``: the dropped mass and bounds on what it
    could add to the mean and to each excess; ``m1``, ``m2`` (and ``d_m1``,
    ``d_m2``): moments a statistic accumulates (e.g. ``E[1/Z]``, ``E[1/Z^2]``).
    ``nodes`` counts the nodes taken from the stack, ``leaves`` those whose children
    were points, ``drops`` the children not expanded (below ``tol``).
    """

    __slots__ = ("up_P", "up_X", "eq_P", "lo_P", "lo_X", "d_P", "d_E", "d_up", "d_lo",
                 "m1", "m2", "d_m1", "d_m2", "nodes", "leaves", "drops")

    def __init__(self):
        z = arb(0)
        self.up_P = self.up_X = self.eq_P = self.lo_P = self.lo_X = z
        self.d_P = self.d_E = self.d_up = self.d_lo = z
        self.m1 = self.m2 = self.d_m1 = self.d_m2 = z
        self.nodes = self.leaves = self.drops = 0


class Schedule:
    """Conditioning steps ``(unit, level)`` and, per step, every unit's current
    level (``levels[s]``; ``levels[len(steps)]`` is all zeros).  A *selector*
    unit (a mixture's group histogram) hands its count at level ``l`` to its
    ``children[l]`` units (and the rest, at level 1, to ``children[0]``)."""

    __slots__ = ("steps", "levels", "children")

    def __init__(self, top_levels, steps, children=None):
        self.steps = tuple(steps)
        lev = [tuple(top_levels)]
        for t, l in self.steps:
            nxt = list(lev[-1])
            nxt[t] = l - 1
            lev.append(tuple(nxt))
        self.levels = tuple(lev)
        self.children = children or {}

    def child_sizes(self, ms: tuple, t: int, l: int, m: int, x: int) -> tuple:
        kids = self.children.get(t)
        if kids is None:
            return ms[:t] + (m - x,) + ms[t + 1:]
        cl = list(ms)
        cl[t] = 0 if l == 1 else m - x
        for k in kids[l]:
            cl[k] = x
        if l == 1:
            for k in kids[0]:
                cl[k] = m - x
        return tuple(cl)


def window(row, first: int, last: int):
    """The straddling values ``first..last`` that ``row`` holds, ``(lo_w, hi_w)``
    (empty when ``lo_w > hi_w``), and a ball bounding the mass of those it does not
    hold (``None`` when there are none)."""
    lo_w = max(first, row.ka)
    hi_w = min(last, row.kb)
    if lo_w > hi_w:
        return lo_w, hi_w, row.tail_left + row.tail_right
    outside = None
    if first < row.ka:
        outside = row.tail_left
    if last > row.kb:
        outside = row.tail_right if outside is None else outside + row.tail_right
    return lo_w, hi_w, outside


def walk(stat, sizes: tuple, state, *, tol: float, max_nodes: int | None = None, progress=None,
         what: str = "search", acc: Accumulators | None = None) -> Accumulators:
    """Run the search from the root ``(0, sizes, state, 1)`` (see module doc).

    ``stat`` supplies the hooks, ``stat.schedule`` (a :class:`Schedule`) and
    ``stat.row(t, l, m)`` (the binomial row of step ``(t, l)`` for ``m`` free
    users, :class:`~exactdp.engine.kernel.BinomialRows`).  Children of mass below ``tol``
    are dropped through ``drop_child``.  More than ``max_nodes`` nodes and dropped
    children together raises
    :class:`~exactdp.core.errors.CapacityError`; ``progress(nodes, dropped)`` is called
    about twice a second.  Call it inside the statistic's ``ctx.workprec``.
    """
    acc = Accumulators() if acc is None else acc
    sched = stat.schedule
    steps = sched.steps
    S = len(steps)
    settle, point, split, points = stat.settle, stat.point, stat.split, stat.points
    drop, drop_child, child, row_of = stat.drop, stat.drop_child, stat.child, stat.row
    child_sizes = sched.child_sizes
    single = not sched.children and len(sizes) == 1
    tol_arb = arb(tol)
    nodes, drops = acc.nodes, acc.drops
    last_report = time.perf_counter()
    stack = [(0, tuple(sizes), state, arb(1))]
    pop, push = stack.pop, stack.append
    while stack:
        s, ms, st, P = pop()
        nodes += 1
        if max_nodes is not None and nodes + drops > max_nodes:
            acc.nodes, acc.drops = nodes, drops
            raise CapacityError(f"{what}: more than {max_nodes} nodes; use a larger tol or fewer digits")
        if progress is not None and (nodes & 0x3FFF) == 0:
            now = time.perf_counter()
            if now - last_report > 0.5:
                progress(nodes, acc.d_P)
                last_report = now
        if settle(acc, s, ms, st, P):
            continue
        while s < S and ms[steps[s][0]] == 0:           # an empty unit: nothing to condition
            s += 1
        if s == S:
            point(acc, ms, st, P)
            continue
        t, l = steps[s]
        m = ms[t]
        row = row_of(t, l, m)
        first, last, nd = split(acc, s, ms, st, P, row)
        if points(acc, nd, P, row, first, last):         # a leaf (its range may be empty)
            acc.leaves += 1
            continue
        if first > last:
            continue
        lo_w, hi_w, outside = window(row, first, last)
        if outside is not None:
            drop(acc, nd, P * outside)
        if lo_w > hi_w:
            continue
        pm, ka = row.pmf, row.ka
        s1 = s + 1
        for x in range(lo_w, hi_w + 1):
            cm = P * pm[x - ka]
            if cm < tol_arb:
                drops += 1                               # visited: counts against max_nodes
                drop_child(acc, nd, x, cm)
                continue
            push((s1, (m - x,) if single else child_sizes(ms, t, l, m, x), child(nd, x), cm))
    acc.nodes, acc.drops = nodes, drops
    return acc
