"""A-priori capacity check: refuse hopeless sizes before any long work.

The engine's work is the number of nodes of the conditioning tree
(:mod:`exactdp.engine.kernel`): a node at level ``l`` holds ``m`` users still free
over the categories ``0..l`` and the partial sum ``Z_s`` of the categories fixed
above; it pushes the children ``T_l = t`` whose range
``[Z_s + t c_l + (m - t) c_0, Z_s + t c_l + (m - t) c_{l-1}]`` straddles the
threshold and whose mass (the node's mass times the ``Bin(m, theta_l)`` pmf) is at
least ``tol``; a child wholly on one side is summed in closed form.

:func:`estimate_nodes` predicts that count with Knuth's estimator of the size of a
backtracking tree (Knuth 1975, "Estimating the efficiency of backtrack programs"):
walk from the root choosing one pushed child uniformly at random; the sum over the
levels of the product of the branching factors met is an unbiased estimate of the
node count.  The children of a node are counted exactly, as the kernel does (two
linear inequalities for the straddling ``t`` and the interval where the unimodal
binomial pmf is above ``tol / P``), so the estimate follows the threshold, the
truncation and ``N``.  The subtree sizes below the top levels differ by orders
of magnitude (a few more heavy users decide whether the threshold is still in
reach), which makes single walks from the root heavy-tailed; so the top levels
are enumerated exactly while a level holds at most :data:`FRONTIER` nodes, and
:data:`PER_NODE` walks (a fixed seed: deterministic) start from every node of
the last level so enumerated; the sampled part is multiplied by
:data:`SAMPLED_BIAS` (a finite sample of a heavy-tailed estimate mostly falls below
its mean).  Measured against the kernel's node count over
``benchmarks/bench_capacity.py``'s grid (L = 2..16, N up to 10^4, both directions,
lam = 1 + 2 sd(R) and e^2; 151 trees of 1 to 7.7e6 nodes) predicted/actual is in
[1, 1.6] for L <= 8 and in [1/3, 3] in 149 of the 151 cases; the two others are
L = 16, N = 1000, lam = e^2 (0.23 forward, 4.7 reverse), where a few rare subtrees
hold most of the nodes.  Beyond
:data:`MAX_NODES` the tree is not used (the Fourier strategy is, where it applies),
and a refusal says what to do instead.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

from ..core.errors import CapacityError
from ..model.mechanism import Mechanism

__all__ = ["estimate_nodes", "estimate_seconds", "check_capacity", "typical_thresholds",
           "tree_seconds", "MAX_NODES", "PROBES", "SAFETY"]

MAX_NODES = 5e7
#: random walks per estimate (Knuth's estimator, fixed seed), at least
PROBES = 256
#: the top levels are enumerated exactly while a level holds at most this many nodes
FRONTIER = 4096
#: random walks from each node of the exactly enumerated frontier, at least
PER_NODE = 16
#: factor on the sampled part: the walks' estimate is unbiased but heavy-tailed, so
#: a finite sample mostly falls below the mean (measured: 0.3-1.2x before the factor)
SAMPLED_BIAS = 1.5
#: margin of :func:`estimate_nodes`'s ``within`` shortcut over the coarse pass
WITHIN_MARGIN = 50.0
#: factor applied to the node estimate when predicting seconds (the estimator's
#: spread over the benchmark grid is 0.6-1.3x; the refusal stays on the safe side)
SAFETY = 1.5


def typical_thresholds(mech: Mechanism, N: int) -> tuple:
    """Thresholds on ``S = sum_i c(Y_i)`` standing for typical queries when none is
    given: ``lam N`` with ``lam = 1 + 2 sd(R)``, ``1 + sd(R)``, ``2`` and ``e^2``
    (``E S = N`` under the null law; ``sd(R) = sd(S) / N``).  The tree's size
    depends strongly on the threshold (at L = 64 the ``1 + 2 sd`` point lies beyond
    almost all the mass, while ``lam = e^2`` cuts through it), so the default
    prediction is the largest over these."""
    c = [float(x) for x in mech.c]
    pi = [float(x) for x in mech.pi0]
    sd_r = math.sqrt(max(sum(p * x * x for p, x in zip(pi, c)) - 1.0, 0.0) / N)
    return tuple(N * lam for lam in (1 + 2 * sd_r, 1 + sd_r, 2.0, math.exp(2)))


def _logpmf(m: int, t: int, lth: float, l1th: float, lgm: float) -> float:
    return lgm - math.lgamma(t + 1) - math.lgamma(m - t + 1) + t * lth + (m - t) * l1th


def _window(m: int, th: float, logc: float):
    """``[a, b] = {t : log Bin(m, th)(t) >= logc}`` (the pmf is unimodal), or ``None``."""
    lth, l1th, lgm = math.log(th), math.log1p(-th), math.lgamma(m + 1)
    mode = min(m, int((m + 1) * th))

    def ok(t):
        return _logpmf(m, t, lth, l1th, lgm) >= logc

    lpmax = _logpmf(m, mode, lth, l1th, lgm)
    if lpmax < logc:
        return None
    # outer bracket from the Gaussian width (checked; the full range if it does not hold)
    h = int(1.5 * math.sqrt(2 * m * th * (1 - th) * (lpmax - logc)) + (lpmax - logc) + 10)
    lo, hi = mode, min(m, mode + h)
    if ok(hi):
        lo, hi = hi, m
    if ok(hi):
        b = hi
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        b = lo
    lo, hi = max(0, mode - h), mode
    if ok(lo):
        lo, hi = 0, lo
    if ok(lo):
        a = 0
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        a = hi
    return a, b


@lru_cache(maxsize=256)
def _knuth(L: int, q, N: int, tol: float, s: float, probes: int, *, seed: int,
           frontier_max: int = 0, per_node: int = 0, big: float = 0.0) -> float:
    mech = Mechanism(L, q)
    c = [float(x) for x in mech.c]
    pi = [float(x) for x in mech.pi0]
    theta, run = [], 0.0
    for p in pi:
        run += p
        theta.append(min(p / run, 1.0) if run > 0 else 0.0)
    rng = random.Random(seed)
    logtol = math.log(tol)

    def children(l, m, zs, logp):
        """``(a, b, theta)``: the pushed children ``T_l = a..b`` of a node, or None."""
        th = theta[l]
        if l < 2 or m <= 0 or not 0.0 < th < 1.0:
            return None
        win = _window(m, th, logtol - logp)
        if win is None:
            return None
        cl, cp, c0 = c[l], c[l - 1], c[0]
        a = max(win[0], math.ceil((s - zs - m * cp) / (cl - cp)))
        b = min(win[1], math.floor((s - zs - m * c0) / (cl - c0)))
        return (a, b, th) if a <= b else None

    def child(l, m, zs, logp, t, th):
        lp = _logpmf(m, t, math.log(th), math.log1p(-th), math.lgamma(m + 1))
        return l - 1, m - t, zs + t * c[l], logp + lp

    if not N * c[0] <= s <= N * c[L]:
        return 1.0                          # the root is wholly on one side
    big = big or 20 * MAX_NODES             # beyond this the tree is out of reach anyway
    # 1. the top levels exactly (breadth first) while the next level holds <= FRONTIER nodes
    frontier, exact = [(L, N, 0.0, 0.0)], 1.0
    while True:
        info = [children(*node) for node in frontier]
        nxt = sum(ch[1] - ch[0] + 1 for ch in info if ch is not None)
        if nxt == 0:
            return exact
        if nxt > (frontier_max or FRONTIER):
            break
        exact += nxt
        frontier = [child(*node, t, ch[2]) for node, ch in zip(frontier, info)
                    if ch is not None for t in range(ch[0], ch[1] + 1)]
    # 2. below: Knuth's random walks, at least PER_NODE from every frontier node
    per = max(per_node or PER_NODE, -(-probes // len(frontier)))
    total = 0.0
    for done, node in enumerate(frontier, 1):
        xs = []
        for _ in range(per):
            cur, w, x = node, 1.0, 0.0
            while True:
                ch = children(*cur)
                if ch is None:
                    break
                a, b, th = ch
                w *= b - a + 1
                x += w
                if w > 1e280:
                    return math.inf
                cur = child(*cur, rng.randint(a, b), th)
            xs.append(x)
        total += sum(xs) / per
        if done >= 16 and exact + total * len(frontier) / done > big:
            return exact + SAMPLED_BIAS * total * len(frontier) / done
    return exact + SAMPLED_BIAS * total


def estimate_nodes(mech: Mechanism, N: int, tol: float = 1e-16, s: float | None = None,
                   probes: int = PROBES, cap: float = 20 * MAX_NODES, *,
                   within: float | None = None) -> float:
    """Predicted node count of the conditioning tree at truncation ``tol`` for the
    threshold ``s`` on ``S = sum_i c(Y_i)`` (forward ``S`` vs ``lam N``, reverse
    ``S`` vs ``N / lam``; default: the largest over :func:`typical_thresholds`).
    Knuth's estimator, deterministic (see the module docstring); past ``cap`` it
    stops early (the answer is then only "more than ``cap``").  ``within``: the caller
    only asks whether the tree has at most ``within`` nodes, so when the coarse pass
    is below ``within / WITHIN_MARGIN`` its value is returned without the full pass
    (the coarse pass underestimates by up to ~10x on the benchmark grid; it takes
    2-20 ms where the full pass takes 50-120 ms).

    >>> estimate_nodes(Mechanism(1, "1/4"), 10**5)
    1.0
    >>> 20 < estimate_nodes(Mechanism(40, "0.351"), 43, s=43 * 111) < 500
    True
    >>> estimate_nodes(Mechanism(64, "1/4"), 10**9) > MAX_NODES
    True
    """
    if s is None:
        best = 0.0
        for x in typical_thresholds(mech, N):
            best = max(best, estimate_nodes(mech, N, tol, x, probes, cap, within=within))
            if best > cap:
                break
        return best
    # a coarse pass first (256-node frontier, 4 walks each): a tree far beyond the cap
    # is known at a fraction of the cost
    cap = float(cap)
    coarse = _knuth(mech.L, mech.q, int(N), float(tol), float(s), 64, seed=0, frontier_max=256, per_node=4, big=cap)
    if coarse > 5 * cap or (within is not None and coarse * WITHIN_MARGIN <= within):
        return coarse
    return _knuth(mech.L, mech.q, int(N), float(tol), float(s), int(probes), seed=0, frontier_max=0, per_node=0, big=cap)


def estimate_seconds(mech: Mechanism, N: int, certified: bool = True, tol: float = 1e-30, *,
                     within: float | None = None) -> float:
    """Rough wall time on a CI-like core: tree nodes plus binomial-row cells.

    Certified: ~10 us per node and ~1.5 us per row cell (arb); fast: ~0.3 us
    per node and ~0.1 us per cell (numpy).  Rows are ~2 K sd(T_1) wide and
    there are about as many distinct rows as leaves (capped by the spread of
    the remaining count).  The node estimate is multiplied by :data:`SAFETY`.
    """
    K = math.sqrt(2 * math.log(1 / tol))
    nodes = SAFETY * estimate_nodes(
        mech, N, tol, within=None if within is None else within / (1e-5 if certified else 3e-7))
    th = float(mech.pi0[1] / (mech.pi0[0] + mech.pi0[1]))
    width = 2 * K * math.sqrt(N * th * (1 - th)) + 7
    pi = [float(x) for x in mech.pi0]
    sd_m = math.sqrt(N * max(1e-300, sum(pi[2:]) * (1 - sum(pi[2:])))) if mech.L >= 2 else 0.0
    rows = min(nodes, 2 * K * sd_m + 1) if mech.L >= 2 else 1.0
    if certified:
        from .kernel import BinomialRows
        thrash = 10.0 if rows * width > BinomialRows.MAX_CELLS else 1.0   # LRU row cache
        return nodes * 1e-5 + rows * width * 1.5e-6 * thrash
    return nodes * 3e-7 + rows * width * 1e-7


def tree_seconds(nodes: float, N: int, *, prec: int | None = None) -> float:
    """Predicted wall time of the certified tree of ``nodes`` nodes over ``N`` users
    at ``prec`` bits.

    The cost per node is :func:`exactdp.engine.ckernel.seconds_per_node` (the compiled
    kernel's when it serves ``N`` and ``prec``, else the arb walk's); the compiled
    kernel's binomial rows add cells growing like ``sqrt(N)`` (measured, L = 5,
    q = 0.2446, one core: 2.2 us per node at N = 10^3, 4-6 us at 10^4, 17-50 us at
    10^5, the last with the row cache thrashing).

    >>> tree_seconds(1e6, 1000, prec=128) <= tree_seconds(1e6, 1000, prec=4096)
    True
    """
    from . import ckernel
    per = ckernel.seconds_per_node(N, prec)
    if ckernel.applies(N, prec):
        return nodes * per * (1 + math.sqrt(max(N, 0)) / 50)
    return nodes * per


def check_capacity(mech: Mechanism, N: int, limit: float = MAX_NODES,
                   max_seconds: float | None = None, certified: bool = True) -> float:
    """Raise :class:`CapacityError` (one line) if the node estimate exceeds
    ``limit`` or the predicted time exceeds ``max_seconds``."""
    est = estimate_nodes(mech, N, within=limit)
    if est > limit:
        raise CapacityError(
            f"N={N}, L={mech.L}, q={mech.q}: the exact law needs about {est:.1e} tree nodes "
            f"(capacity {limit:.0e}); beyond the engine -- use a heuristic bound "
            "(exactdp.apps.heuristics) or smaller N or L")
    if max_seconds is not None:
        sec = estimate_seconds(mech, N, certified, within=max_seconds)
        if sec > max_seconds:
            what = "certified" if certified else "fast"
            alt = "use --fast, or allow more time with --max-seconds" if certified else \
                "use smaller N or L"
            raise CapacityError(
                f"N={N}, L={mech.L}: the {what} computation is predicted to take about "
                f"{sec:.0f} s (> --max-seconds {max_seconds:.0f}); {alt}")
    return est
