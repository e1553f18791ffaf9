"""A-priori capacity check: refuse hopeless sizes before any long work.

The engine's work is the number of nodes of the conditioning tree
(:mod:`exactdp.kernel`).  At level ``l`` only the values of ``T_l`` whose
subtree straddles the threshold are expanded; their number is about
``min(2 K sd(T_l), 2 K sd(lower part) / c_l)`` with ``K = sqrt(2 ln(1/tol))``.
The product over levels estimates the node count (within a factor of a few,
validated in ``benchmarks/``).  Beyond :data:`MAX_NODES` the computation is
refused with a message saying what to do instead.
"""

from __future__ import annotations

import math

from .errors import CapacityError
from .mechanism import Mechanism

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


def check_capacity(mech: Mechanism, N: int, limit: float = MAX_NODES) -> float:
    """Raise :class:`CapacityError` (one line) if the estimate exceeds ``limit``."""
    est = estimate_nodes(mech, N)
    if est > limit:
        raise CapacityError(
            f"N={N}, L={mech.L}, q={mech.q}: the exact law needs about {est:.1e} tree nodes "
            f"(capacity {limit:.0e}); beyond the engine -- use a heuristic bound "
            "(exactdp.heuristics) or smaller N or L")
    return est
