"""A-priori capacity check: refuse hopeless sizes before any long work.

The engine's work is the number of nodes of the conditioning tree
(:mod:`exactdp.engine.kernel`): a node at level ``l`` holds ``m`` users still free
over the categories ``0..l`` and the partial sum ``Z_s`` of the categories fixed
above; it pushes the children ``T_l = t`` whose range
``[Z_s + t c_l + (m - t) c_0, Z_s + t c_l + (m - t) c_{l-1}]`` straddles the
threshold and whose mass (the node's mass times the ``Bin(m, theta_l)`` pmf) is at
least ``tol``; a child wholly on one side is summed in closed form.

:func:`estimate_nodes` predicts that count.  The children of a node are counted
exactly, as the kernel does (two linear inequalities for the straddling ``t`` and the
interval where the unimodal binomial pmf is above ``tol / P``), so the estimate follows
the threshold, the truncation and ``N``; the model's tree is the kernel's (its full
enumeration reproduces the kernel's node count exactly, e.g. 1882375 and 7725462 nodes
at L = 16, N = 1000, lam = e^2, q = 1/4, forward and reverse).

1. The top levels are enumerated exactly (breadth first) while a level holds at most
   :data:`FRONTIER` nodes.
2. Below, Chen's *stratified sampling* ("heuristic sampling", P. C. Chen 1992, SIAM J.
   Comput. 21(2), a refinement of Knuth 1975, "Estimating the efficiency of backtrack
   programs"): each level keeps one *representative* node per *stratum*, with a
   weight ``w`` (the number of nodes of the level it stands for).  The children of
   the representatives are generated (all of them, or beyond :data:`CHILDREN` a
   systematic sample of ``k``: evenly spaced values after a random offset, each
   drawn with probability ``k / n`` and weighted ``n / k``); each child inherits its
   parent's weight; the children are grouped by a stratum key, and each group keeps
   one child chosen with probability proportional to its weight, which then carries
   the group's total weight ``W``.  Then ``E[W f(rep)] = sum_i w_i f(i)`` for any
   ``f``, so the sum over the levels of ``sum w * (number of children)`` is an
   unbiased estimate of the node count (with one stratum per node it is the exact
   count; with one stratum per level it is Knuth's random walk).

The variance is small when the nodes of one stratum have subtrees of similar size.
Knuth's plain walks (the former estimator: uniform random walks from the frontier)
failed there: the subtree sizes below the top levels differ by orders of magnitude
(a few more heavy users decide whether the threshold is still in reach), so the walks'
estimate is heavy-tailed -- at L = 16, N = 1000, lam = e^2 eight seeds gave 0.1x-8x the
true count (a few walks reaching a huge subtree make the over-predictions, their
absence the under-predictions), and no probe count that keeps it cheap fixes that.
The key here is what decides a subtree's size: the child's own straddling range ``[a, b]``
of its next count (before the binomial window; logarithmic buckets beyond 16) and its
log mass ``log P`` in steps of :data:`LOGMASS_STEP` nats (the truncation window ``P
Bin(t) >= tol`` narrows as ``P`` falls).  When a level holds more than ``strata``
distinct keys, the buckets are coarsened by factors of 2 until it does not, so the cost
is about ``strata`` nodes per level, whatever the tree's size.  Deterministic: one
fixed seed (routing is reproducible).  Levels of at most :data:`PY_NODES` nodes run
node by node in Python (a small tree never loads numpy), the others on numpy arrays.
A *coarse pass* (a frontier of :data:`COARSE_STRATA` nodes and as many strata, 2-80 ms
per threshold on the grid) answers when the tree is far beyond the cap or far below
what the caller asks (``within``); else the full pass (:data:`STRATA` strata) runs.
Both stop once their running sum passes the cap (the tree is then only known to be
larger).  The estimate only routes: the certified engines never depend on it.

Measured against the kernel's node count over ``benchmarks/bench_capacity.py``'s grid
(see benchmarks/RESULTS.md, "Issue 14: capacity predictor (2026-11-26)").  Beyond
:data:`MAX_NODES` the tree is not used (the Fourier strategy is, where it applies),
and a refusal says what to do instead.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..core.errors import CapacityError
from ..model.mechanism import Mechanism

__all__ = ["estimate_nodes", "estimate_seconds", "check_capacity", "typical_thresholds",
           "tree_seconds", "clear_cache", "MAX_NODES", "STRATA", "SAFETY"]

MAX_NODES = 5e7
#: strata (representatives) per level of the full pass
STRATA = 1024
#: strata per level of the coarse pass (and its exact frontier)
COARSE_STRATA = 256
#: the top levels are enumerated exactly while a level holds at most this many nodes
FRONTIER = 4096
#: children generated per representative at most (a systematic sample beyond)
CHILDREN = 32
#: the top levels of at most this many nodes run node by node (no numpy), the rest on arrays
PY_NODES = 256
#: width of the log-mass buckets of the stratum key, in nats
LOGMASS_STEP = 2.0
#: margin of :func:`estimate_nodes`'s ``within`` shortcut over the coarse pass
WITHIN_MARGIN = 50.0
#: factor applied to the node estimate when predicting seconds (the estimator's
#: spread over the benchmark grid is 0.72-1.23x; the refusal stays on the safe side)
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
def _stratified(L: int, q, N: int, tol: float, s: float, strata: int, *, seed: int,
                frontier_max: int = 0, big: float = 0.0) -> float:
    """Node count of the tree at threshold ``s``: exact top levels, then Chen's
    stratified sampling with at most ``strata`` representatives per level (see the
    module docstring).  The top levels run here, node by node, while a level holds at
    most :data:`PY_NODES` nodes (a small tree never loads numpy); the levels below in
    :func:`_sampled_levels`."""
    mech = Mechanism(L, q)
    c = [float(x) for x in mech.c]
    pi = [float(x) for x in mech.pi0]
    theta, run = [], 0.0
    for p in pi:
        run += p
        theta.append(min(p / run, 1.0) if run > 0 else 0.0)
    if not N * c[0] <= s <= N * c[L]:
        return 1.0                          # the root is wholly on one side
    big = big or 20 * MAX_NODES             # beyond this the tree is out of reach anyway
    logtol, c0 = math.log(tol), c[0]
    nodes = [(N, 0.0, 0.0)]                 # (free users m, partial sum zs, log mass)
    total, level = 1.0, L
    while level >= 2 and nodes:
        th = theta[level]
        if not 0.0 < th < 1.0:
            break
        cl, cp = c[level], c[level - 1]
        # the pushed children T_level = a..b of each node: the binomial window where
        # P Bin(m, theta)(t) >= tol, intersected with the straddling range
        kids = []
        for m, zs, lp in nodes:
            if m <= 0:
                continue
            win = _window(m, th, logtol - lp)
            if win is None:
                continue
            a = max(win[0], math.ceil((s - zs - m * cp) / (cl - cp)))
            b = min(win[1], math.floor((s - zs - m * c0) / (cl - c0)))
            if a <= b:
                kids.append((a, b, m, zs, lp))
        n = sum(b - a + 1 for a, b, *_ in kids)
        total += n                          # the level's node count
        if not kids or total > big or level == 2:
            break                           # level-1 nodes have no pushed children
        if n > PY_NODES:                    # on arrays below (exact while <= frontier_max)
            query = (s, tol, big, strata, seed, frontier_max or FRONTIER)
            return _sampled_levels(kids, level, total, query, c, theta)
        lth, l1th = math.log(th), math.log1p(-th)
        nodes = [(m - t, zs + t * cl, lp + _logpmf(m, t, lth, l1th, math.lgamma(m + 1)))
                 for a, b, m, zs, lp in kids for t in range(a, b + 1)]
        level -= 1
    return total


def _sampled_levels(kids: list, level: int, total: float, query: tuple, c: list, theta: list) -> float:
    """The levels below ``level`` on arrays, exactly while a level holds at most
    ``frontier_max`` nodes, then by stratified sampling: ``kids`` are the nodes of
    ``level`` with their pushed children ``(a, b, m, zs, log P)`` (weight 1), ``total``
    the node count so far; ``query`` is ``(s, tol, big, strata, seed, frontier_max)``."""
    import numpy as np

    s, tol, big, strata, seed, frontier_max = query
    rng = np.random.default_rng(seed)
    logtol, c0 = math.log(tol), c[0]
    A, B, m, zs, lp = (np.array(col, dtype=float) for col in zip(*kids))
    w = np.ones(A.size)
    exact = True
    while True:
        # the children of every node (exact levels) or representative: at most CHILDREN
        # of them -- beyond, a systematic sample (evenly spaced values of T_level after a
        # random offset: each value drawn with probability k / n, so weighted n / k)
        th, cl = theta[level], c[level]
        n = B - A + 1
        exact = exact and n.sum() <= frontier_max
        k = n if exact else np.minimum(n, CHILDREN)
        idx = np.repeat(np.arange(n.size), k.astype(np.int64))
        off = np.cumsum(k) - k
        j = np.arange(idx.size) - off[idx]
        step = n / k
        u = 0.0 if exact else rng.random(n.size)[idx]
        t = A[idx] + np.floor(u * step[idx] + j * step[idx])
        mi = m[idx]
        lp = (lp[idx] + _log_factorial(mi) - _log_factorial(t) - _log_factorial(mi - t)
              + t * math.log(th) + (mi - t) * math.log1p(-th))
        m, zs, w = mi - t, zs[idx] + t * cl, (w * step)[idx]
        level -= 1
        # the stratum of a child: its own straddling range [a, b] (before the binomial
        # window) and its log mass, coarsened until at most `strata` strata remain
        a2, b2 = _straddle_key(s, zs, m, c[level], c[level - 1], c0)
        res = 1.0
        while not exact:
            key = ((_log_buckets(np.floor(b2 / res)) * 64 + _log_buckets(np.floor(a2 / res))) * 256
                   + np.minimum(np.floor(-lp / (LOGMASS_STEP * res)), 255))
            uk, inv = np.unique(key, return_inverse=True)
            if uk.size <= strata or res > 1e6:
                break
            res *= 2
        if not exact:
            # a representative with probability proportional to its weight
            # (Efraimidis-Spirakis keys); it carries the stratum's total weight
            inv = inv.ravel()
            score = np.log(rng.random(idx.size)) / w
            order = np.lexsort((score, inv))
            pick = order[np.r_[np.nonzero(np.diff(inv[order]))[0], idx.size - 1]]
            W = np.bincount(inv, weights=w)
            m, zs, lp, w = m[pick], zs[pick], lp[pick], W[inv[pick]]
        # their pushed children: the binomial window intersected with the straddling range
        th = theta[level]
        if not 0.0 < th < 1.0:
            break
        A, B, ok = _windows(m, th, logtol - lp)
        a2, b2 = _straddle_key(s, zs, m, c[level], c[level - 1], c0)
        A, B = np.maximum(A, a2), np.minimum(B, b2)
        keep = ok & (A <= B) & (m > 0)
        if not keep.any():
            break
        A, B, m, zs, lp, w = A[keep], B[keep], m[keep], zs[keep], lp[keep], w[keep]
        total += float(np.dot(w, B - A + 1))     # the level's node count, estimated
        if total > big or not math.isfinite(total) or level == 2:
            break
    return total


def _straddle_key(s: float, zs, m, cl: float, cp: float, c0: float):
    """The straddling range ``[a, b]`` of ``T_l`` at nodes ``(l, m, zs)`` (arrays), before
    the binomial window: ``b`` the largest count keeping the node's minimum at or below
    ``s``, ``a`` the smallest lifting its maximum to ``s``; clipped to ``[0, m]``."""
    import numpy as np
    b = np.clip(np.floor((s - zs - m * c0) / (cl - c0)), 0, m)
    a = np.clip(np.ceil((s - zs - m * cp) / (cl - cp)), 0, m)
    return a, b


def _log_buckets(x):
    """Counts (an array) on buckets: 0..15 exactly, then four buckets per doubling."""
    import numpy as np
    x = np.maximum(x, 0.0)
    return np.where(x < 16, x, 16 + np.floor(4 * np.log2(np.maximum(x, 16.0) / 16)))


def _log_factorial(x):
    """``log x!`` of an array of nonnegative integers (floats): a table below 256,
    Stirling's series above (absolute error below 1e-13)."""
    import numpy as np
    table = _lfact_table()
    small = x < 256
    z = np.maximum(x, 256.0) + 1.0
    big = (z - 0.5) * np.log(z) - z + 0.5 * math.log(2 * math.pi) + 1 / (12 * z) - 1 / (360 * z ** 3)
    return np.where(small, table[np.minimum(x, 255).astype(np.int64)], big)


@lru_cache(maxsize=1)
def _lfact_table():
    import numpy as np
    return np.array([math.lgamma(i + 1) for i in range(256)])


def _windows(m, th: float, logc):
    """Vectorised :func:`_window`: ``[a, b] = {t : log Bin(m, th)(t) >= logc}`` for
    arrays ``m`` (free users) and ``logc``; ``ok`` is False where the set is empty.
    Both ends by bisection from the mode (the pmf is unimodal)."""
    import numpy as np
    lth, l1th = math.log(th), math.log1p(-th)
    lfm = _log_factorial(m)

    def logpmf(t):
        return lfm - _log_factorial(t) - _log_factorial(m - t) + t * lth + (m - t) * l1th

    mode = np.minimum(m, np.floor((m + 1) * th))
    ok = logpmf(mode) >= logc
    lo, hi = mode.copy(), m + 1                 # logpmf(lo) >= logc; hi is past the end
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            break
        mid = np.floor((lo + hi) / 2)
        good = logpmf(np.minimum(mid, m)) >= logc
        lo = np.where(open_ & good, mid, lo)
        hi = np.where(open_ & ~good, mid, hi)
    b = lo
    lo, hi = np.full_like(m, -1.0), mode.copy()  # logpmf(hi) >= logc; lo is before 0
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            break
        mid = np.floor((lo + hi) / 2)
        good = logpmf(np.maximum(mid, 0.0)) >= logc
        hi = np.where(open_ & good, mid, hi)
        lo = np.where(open_ & ~good, mid, lo)
    return hi, b, ok


def clear_cache() -> None:
    """Forget the memoised estimates (for timing the predictor's first call)."""
    _stratified.cache_clear()


def estimate_nodes(mech: Mechanism, N: int, tol: float = 1e-16, s: float | None = None,
                   strata: int = STRATA, cap: float = 20 * MAX_NODES, *,
                   within: float | None = None) -> float:
    """Predicted node count of the conditioning tree at truncation ``tol`` for the
    threshold ``s`` on ``S = sum_i c(Y_i)`` (forward ``S`` vs ``lam N``, reverse
    ``S`` vs ``N / lam``; default: the largest over :func:`typical_thresholds`).
    Stratified sampling with ``strata`` representatives per level, deterministic (see
    the module docstring); past ``cap`` it stops early (the answer is then only "more
    than ``cap``").  ``within``: the caller only asks whether the tree has at most
    ``within`` nodes, so when the coarse pass (:data:`COARSE_STRATA` strata) is below
    ``within / WITHIN_MARGIN`` its value is returned without the full pass.

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
            best = max(best, estimate_nodes(mech, N, tol, x, strata, cap, within=within))
            if best > cap:
                break
        return best
    # a coarse pass first (256-node frontier, 256 strata): a tree far beyond the cap is
    # known at a fraction of the cost (both passes stop once their sum passes ``big``)
    cap = float(cap)
    args = (mech.L, mech.q, int(N), float(tol), float(s))
    coarse = _stratified(*args, COARSE_STRATA, seed=0, frontier_max=COARSE_STRATA, big=5 * cap)
    if coarse > 5 * cap or (within is not None and coarse * WITHIN_MARGIN <= within):
        return coarse
    return _stratified(*args, int(strata), seed=0, frontier_max=FRONTIER, big=cap)


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
    cap = 20 * MAX_NODES
    est = estimate_nodes(mech, N, cap=cap, within=limit)
    if est > limit:
        # past the cap the estimator stops early: its sum is then only a lower bound
        size = f"about {est:.1e}" if est <= cap else f"more than {cap:.0e}"
        raise CapacityError(
            f"N={N}, L={mech.L}, q={mech.q}: the exact law needs {size} tree nodes "
            f"(capacity {limit:.0e}); beyond the tree -- use the Fourier strategy (method='exact', the "
            "default, chooses it, or 'fourier'; also from the CLI), or smaller N or L")
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
