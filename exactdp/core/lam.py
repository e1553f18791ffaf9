"""The one enclosure of ``lambda = e^eps`` (and of ``ln``), and the lam/eps choice.

A privacy level is given either as an exact rational ``lam = e^eps >= 1`` or as an
exact rational ``eps >= 0`` (000 (1.7): ``eta(eps) = P[R > e^eps]``).  ``e^eps``
is irrational unless ``eps = 0`` (Lindemann), so it is enclosed in an arb ball at
a stated precision and converted to a rational :class:`~exactdp.core.interval.Interval`
whose ends provably contain it; no module computes ``e^eps`` any other way.

>>> parse_lam_eps(None, "1/2")
(None, Fraction(1, 2))
>>> iv = exp_interval(Fraction(1, 2))
>>> round(float(iv.mid), 12), float(iv.width) < 1e-70
(1.6487212707, True)
>>> gt_exp(Fraction(165, 100), Fraction(1, 2)), gt_exp(Fraction(164, 100), Fraction(1, 2))
(True, False)
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx, fmpq

from . import domains
from .errors import ParameterError, PrecisionError
from .interval import Interval, arb_to_interval

__all__ = ["parse_lam_eps", "exp_ball", "exp_interval", "lam_interval", "ln_interval", "gt_exp"]


def parse_lam_eps(lam, eps) -> tuple[Fraction | None, Fraction | None]:
    """Validate "exactly one of lam (>= 1) or eps (>= 0)" and read it exactly:
    ``(lam, None)`` or ``(None, eps)``."""
    if (lam is None) == (eps is None):
        raise ParameterError("give exactly one of lam (lambda = e^eps >= 1) or eps (>= 0)")
    if lam is not None:
        return Fraction(domains.LAM.parse(lam)), None
    return None, Fraction(domains.EPS.parse(eps))


def exp_ball(x: Fraction) -> arb:
    """``e^x`` as an arb ball at the current working precision (``ctx.prec``)."""
    return arb(fmpq(x.numerator, x.denominator)).exp()


def exp_interval(eps: Fraction, prec: int = 256) -> Interval:
    """Certified rational enclosure of ``e^eps`` from a ``prec``-bit ball."""
    with ctx.workprec(prec):
        return arb_to_interval(exp_ball(Fraction(eps)))


def lam_interval(lam, eps, prec: int = 256) -> Interval:
    """``lam`` itself (exact) or the enclosure of ``e^eps``."""
    if lam is not None:
        return Interval.exact(lam)
    return exp_interval(eps, prec)


def ln_interval(lam: Fraction, prec: int = 256) -> Interval:
    """Certified rational enclosure of ``ln lam`` (``lam > 0``)."""
    with ctx.workprec(prec):
        return arb_to_interval(arb(fmpq(lam.numerator, lam.denominator)).log())


def gt_exp(r: Fraction, eps: Fraction, max_prec: int = 1 << 16) -> bool:
    """Exact ``r > e^eps`` for rationals: refines the enclosure until it separates
    (it always does for ``eps != 0``, ``e^eps`` being irrational), else
    :class:`~exactdp.core.errors.PrecisionError` past ``max_prec`` bits."""
    if eps == 0:
        return r > 1
    prec = 128
    while prec <= max_prec:
        iv = exp_interval(eps, prec)
        if r > iv.upper:
            return True
        if r < iv.lower:
            return False
        prec *= 2
    raise PrecisionError(f"cannot compare {r} with e^{eps} within {max_prec} bits")
