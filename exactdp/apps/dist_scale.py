"""The binned law of R at deployment scale (``exactdp dist`` beyond the tree's capacity).

Beyond the tree's capacity (:mod:`exactdp.engine.capacity`) every certified value of
the law of R comes from the heavy/light Fourier strategy (:mod:`exactdp.engine.largen`),
which reaches a few digits per query.  ``dist`` there certifies the cdf ``P[R <= e]``
at each bin edge ``e`` (000 (3.6): forward ``R = X/N`` under ``D_m``, reverse
``R = N/X`` under ``D``), so each bin mass ``P[e_i < R <= e_{i+1}]`` is enclosed by
differences of certified enclosures, exactly as below the capacity.

Only the *placement* of the bins is not certified: the bin range spans the 0.1 % to
99.9 % quantiles of a seeded Monte Carlo sample of R
(:meth:`exactdp.model.mechanism.Mechanism.sample_ratio`), widened by a tenth on each side; the masses below the first and above the last edge
are reported (certified), so nothing is hidden by the choice.

>>> from exactdp import from_randomized_response
>>> e = sample_edges(from_randomized_response(10**7, 40, "0.351"), 4)
>>> len(e), e[0] < 1 < e[-1]
(5, True)
"""

from __future__ import annotations

from fractions import Fraction

from ..core import domains

__all__ = ["FOURIER_DIST_DIGITS", "FOURIER_DIST_BINS", "sample_edges", "dist_digits", "dist_bins",
           "enclosure"]

#: Most (and default) digits of each certified cdf value under the Fourier strategy
FOURIER_DIST_DIGITS = 3
#: Default number of bins under the Fourier strategy (each edge is one certified query)
FOURIER_DIST_BINS = 10
#: seeded Monte Carlo draws that place the bins
SAMPLES = 20_000


def dist_digits(given, fourier: bool, N: int, L: int) -> int:
    """``--digits`` of ``dist``: default 10 (3 beyond the tree); beyond the tree more than
    :data:`FOURIER_DIST_DIGITS` is refused before any work (one line)."""
    from .scale_digits import query_digits
    return query_digits(given, fourier, N, L, "dist", 10, fourier_default=FOURIER_DIST_DIGITS,
                        fourier_max=FOURIER_DIST_DIGITS, instead="'exactdp eta' at chosen x")


def dist_bins(given, fourier: bool) -> int:
    """``--bins`` of ``dist``: default 40 (:data:`FOURIER_DIST_BINS` beyond the tree)."""
    if given is None:
        return FOURIER_DIST_BINS if fourier else 40
    return domains.BINS.parse(given)


def sample_edges(dist, bins: int, lam=None, seed: int = 0) -> list:
    """``bins + 1`` increasing rational edges spanning the 0.1 % to 99.9 % quantiles of a
    seeded sample of R (plus a tenth of that range on each side; up to ``1.05 lam`` when ``lam`` is given).  Placement only:
    the masses between them are certified by the caller."""
    import numpy as np
    r = dist.mechanism.sample_ratio(dist.N, SAMPLES, dist.direction, rng=seed)
    lo, hi = (float(x) for x in np.quantile(r, [1e-3, 1 - 1e-3]))
    pad = (hi - lo) / 10 or max(hi, 1e-12) / 10
    lo, hi = max(lo - pad, 1e-12), hi + pad
    if lam is not None:
        hi = max(hi, float(min(Fraction(lam), dist.mechanism.ratio_max)) * 1.05)
    step = (hi - lo) / bins
    edges = [Fraction(lo + i * step).limit_denominator(10**12) for i in range(bins + 1)]
    return sorted(set(edges))


def enclosure(query):
    """``query`` (``dist.cdf`` / ``dist.sf``) returning the certified enclosure reached when
    the relative digits are out of reach (a mass near 0 has no relative digits; its
    absolute width is what a bin needs)."""
    from ..core.errors import DigitsNotMetError

    def run(*a, **kw):
        try:
            return query(*a, **kw)
        except DigitsNotMetError as e:
            return e.reached
    return run
