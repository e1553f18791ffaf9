"""Export the exact privacy-loss law to Google's dp_accounting (PLD) for composition.

:func:`to_dp_accounting` returns a
``dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution`` whose
hockey-stick divergences *dominate* those of the canonical pair, also after
composition with itself or other pessimistic PLDs.

Construction (pessimistic discretisation).  The privacy loss of a direction is
``log R`` under its sampling law (forward: ``S ~ A(D_m)``, ``R = P(S|D_m) /
P(S|D)``; reverse: the roles swapped; see :mod:`exactdp.law.distribution`).  Loss
edges ``l_0 < ... < l_B`` are integer multiples ``k_i * h`` of the PLD grid
``h`` (``value_discretization_interval``), spread over the bulk of the law;
the ratio edges are rationals ``R_i <= e^{l_i}`` (certified with an ``arb``
logarithm).  The certified *upper end* of the mass ``P[R_{i-1} < R <= R_i]``
(:meth:`~exactdp.law.distribution.PrivacyRatio.bin_masses`) is placed at loss
``l_i`` -- at or above every loss in the bin; the mass ``P[R <= R_0]`` at
``l_0``; the mass above ``R_B`` at ``ceil(eps0/h) h`` with ``eps0 = L log(p/q)``
the largest loss.  Since ``delta(eps) = E[(1 - e^{eps - loss})+]`` is
increasing in every loss and every mass, and so is the delta of any
composition, every ``delta`` the PLD reports (up to dp_accounting's own
pessimistic float arithmetic) is ``>=`` the exact value.

Direction ``"worst"`` (default) exports forward as dp_accounting's REMOVE pmf
and reverse as its ADD pmf (``symmetric=False``), so queries take the larger
of the two, as :class:`~exactdp.law.distribution.WorstCase` does.

dp_accounting is an optional dependency: ``pip install 'exactdp[accounting]'``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from ..core import domains
from ..core.errors import ParameterError
from ..core.interval import arb_to_interval

__all__ = ["to_dp_accounting", "loss_pmf"]

_MISSING = ("to_dp_accounting needs the optional dependency dp_accounting: "
            "pip install 'exactdp[accounting]' (or pip install dp-accounting)")


def _import_pld():
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError(_MISSING) from e
    return pld


def _log_upper(x: Fraction) -> Fraction:
    with ctx.workprec(200):
        return arb_to_interval(arb(x.numerator).log() - arb(x.denominator).log()).upper


def _ratio_below(k: int, h: Fraction) -> Fraction:
    """A rational ``R <= e^{k h}`` close to it (certified: ``log R <= k h``)."""
    target = k * h
    with ctx.workprec(200):
        lo = arb_to_interval((arb(target.numerator) / target.denominator).exp()).lower
    r = Fraction(math.floor(lo * 2**60), 2**60)
    assert _log_upper(r) <= target
    return r


def _bulk(dist, tail: float, eps0: float):
    """Loss interval [a, b] outside which fast-mode mass is below ``tail`` (each side)."""
    def sf(l):
        return float(dist.sf(Fraction(math.exp(l)), method="fast").value)

    def cdf(l):
        return float(dist.cdf(Fraction(math.exp(l)), method="fast").value)
    lo, hi = 0.0, eps0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sf(mid) > tail else (lo, mid)
    b = hi
    lo, hi = -eps0, 0.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if cdf(mid) > tail else (mid, hi)
    return lo, b


def _grid(k0: int, k1: int, bins: int) -> list[int]:
    """Integers from k0 to k1 (both included) in at most ``bins`` equal steps."""
    step = max(1, math.ceil((k1 - k0) / bins))
    ks = list(range(k0, k1 + 1, step))
    if ks[-1] < k1:
        ks.append(k1)
    return ks


def loss_pmf(dist, *, value_discretization_interval: float = 1e-4, bins: int = 1000,
             tail: float = 1e-14, digits: int = 12) -> dict[int, float]:
    """Pessimistic rounded pmf ``{k: mass}`` (loss ``k h``) of one direction's loss law.

    ``dist`` is a :class:`~exactdp.law.distribution.PrivacyRatio`.  Masses are the
    certified upper ends (rounded up to the next float).  Deltas far below
    ``tail`` are dominated by the tail mass placed at ``eps0`` (pessimistic,
    hence valid, but not tight there).
    """
    h = Fraction(value_discretization_interval)
    if not h > 0:
        raise ParameterError(f"value_discretization_interval must be > 0, got {h}")
    bins = domains.BINS.parse(bins)
    eps0 = _log_upper(dist.support_max())
    a, b = _bulk(dist, tail, float(eps0))
    ka, kb = min(0, math.floor(a / float(h))), max(1, math.ceil(b / float(h)))
    # a quarter of the bins for negative losses (they matter only through
    # composition), three quarters for positive ones
    ks = _grid(ka, 0, max(1, bins // 4)) + _grid(0, kb, max(1, bins - bins // 4))[1:]
    edges = [_ratio_below(k, h) for k in ks]
    masses = dist.bin_masses(edges, digits=digits)
    below = dist.cdf(edges[0], digits=digits)
    above = dist.sf(edges[-1], digits=digits)
    k_max = math.ceil(eps0 / h)
    pmf: dict[int, float] = {}

    def add(k, m: Fraction):
        if m > 0:
            v = float(m)
            if Fraction(v) < m:
                v = math.nextafter(v, math.inf)
            pmf[k] = pmf.get(k, 0.0) + v
    add(ks[0], below.upper)
    for k, m in zip(ks[1:], masses):
        add(k, m.upper)
    add(max(k_max, ks[-1]), above.upper)
    return pmf


def to_dp_accounting(dist, *, value_discretization_interval: float = 1e-4, bins: int = 1000,
                     tail: float = 1e-14, digits: int = 12):
    """dp_accounting ``PrivacyLossDistribution`` dominating ``dist``'s privacy loss.

    ``dist``: a :class:`~exactdp.law.distribution.PrivacyRatio` (one direction,
    symmetric PLD) or :class:`~exactdp.law.distribution.WorstCase` (forward as
    REMOVE, reverse as ADD).  ``bins`` certified bins cover the loss range
    carrying all but ``tail`` of the mass (the rest is placed pessimistically).
    Raises :class:`ImportError` with instructions if dp_accounting is missing.
    """
    pld = _import_pld()
    kw = dict(value_discretization_interval=value_discretization_interval, bins=bins,
              tail=tail, digits=digits)
    h = float(value_discretization_interval)
    if getattr(dist, "direction", None) == "worst":
        fwd = loss_pmf(dist.forward, **kw)
        rev = loss_pmf(dist.reverse, **kw)
        return pld.PrivacyLossDistribution.create_from_rounded_probability(
            fwd, 0.0, h, pessimistic_estimate=True,
            rounded_probability_mass_function_add=rev, infinity_mass_add=0.0,
            symmetric=False)
    return pld.PrivacyLossDistribution.create_from_rounded_probability(
        loss_pmf(dist, **kw), 0.0, h, pessimistic_estimate=True)
