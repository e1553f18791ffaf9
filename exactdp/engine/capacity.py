"""A-priori capacity check: refuse hopeless sizes before any long work.

The engine's work is the number of nodes of the conditioning tree
(:mod:`exactdp.engine.kernel`).  At level ``l`` only the values of ``T_l`` whose
subtree straddles the threshold are expanded; their number is about
``min(2 K sd(T_l), 2 K sd(lower part) / c_l)`` with ``K = sqrt(2 ln(1/tol))``.
The product over levels estimates the node count (within a factor of a few,
validated in ``benchmarks/``).  Beyond :data:`MAX_NODES` the computation is
refused with a message saying what to do instead.
"""

from __future__ import annotations

import math

from ..core.errors import CapacityError
from ..model.mechanism import Mechanism

__all__ = ["estimate_nodes", "check_capacity", "MAX_NODES"]

MAX_NODES = 5e7


def estimate_nodes(mech: Mechanism, N: int, tol: float = 1e-16) -> float:
    """Rough node count of the conditioning tree at truncation ``tol``.

    >>> estimate_nodes(Mechanism(1, "1/4"), 10**5)
    1.0
    >>> estimate_nodes(Mechanism(64, "1/4"), 10**7) > 1e30
    True
    """
    K = math.sqrt(2 * math.log(1 / tol))
    c = [float(x) for x in mech.c]
    pi = [float(x) for x in mech.pi0]
    total = 1.0
    for l in range(mech.L, 1, -1):
        sd_l = math.sqrt(N * pi[l] * (1 - pi[l]))
        lower = math.sqrt(sum(N * pi[i] * c[i] ** 2 for i in range(l)))
        z = min(2 * K * sd_l + 1, 2 * K * lower / c[l] + 1, N + 1)
        total *= max(z, 1.0)
        if total > 1e300:
            return math.inf
    return total


def estimate_seconds(mech: Mechanism, N: int, certified: bool = True, tol: float = 1e-30) -> float:
    """Rough wall time on a CI-like core: tree nodes plus binomial-row cells.

    Certified: ~10 us per node and ~1.5 us per row cell (arb); fast: ~0.3 us
    per node and ~0.1 us per cell (numpy).  Rows are ~2 K sd(T_1) wide and
    there are about as many distinct rows as leaves (capped by the spread of
    the remaining count).
    """
    K = math.sqrt(2 * math.log(1 / tol))
    nodes = estimate_nodes(mech, N, tol)
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


def check_capacity(mech: Mechanism, N: int, limit: float = MAX_NODES,
                   max_seconds: float | None = None, certified: bool = True) -> float:
    """Raise :class:`CapacityError` (one line) if the node estimate exceeds
    ``limit`` or the predicted time exceeds ``max_seconds``."""
    est = estimate_nodes(mech, N)
    if est > limit:
        raise CapacityError(
            f"N={N}, L={mech.L}, q={mech.q}: the exact law needs about {est:.1e} tree nodes "
            f"(capacity {limit:.0e}); beyond the engine -- use a heuristic bound "
            "(exactdp.apps.heuristics) or smaller N or L")
    if max_seconds is not None:
        sec = estimate_seconds(mech, N, certified)
        if sec > max_seconds:
            what = "certified" if certified else "fast"
            alt = "use --fast, or allow more time with --max-seconds" if certified else \
                "use smaller N or L"
            raise CapacityError(
                f"N={N}, L={mech.L}: the {what} computation is predicted to take about "
                f"{sec:.0f} s (> --max-seconds {max_seconds:.0f}); {alt}")
    return est
