"""The papers' heuristic formulas *as written*, evaluated with certified arithmetic.

This module audits the closed-form heuristics of

* ``000_3d8ddaba8b46cf9c.txt`` -- "Sufficient Differential Privacy" (paper 000):
  the "mean + 3 sigma" noise rules (3.12), (3.13), (3.15) with the change of
  variable (3.14)/(3.16), the Maurer bound (3.17), the local-DP noise (4.2),
  the estimate deviation of §4 and §6, and the k-randomization rule
  (6.1)-(6.3) = (8.38);
* ``003_602e16ce409ec962.txt`` -- "K-Randomization", Jan 15 2016 (paper 003):
  (0.16), (0.19), the confidence intervals (0.22)-(0.29), (1.4), (1.23),
  (1.24) and (2.33).

The formulas are implemented exactly as printed (typos included, where a typo
changes the value both readings are offered and flagged).  Inputs are exact
(``int``, :class:`~fractions.Fraction`, decimal strings; floats are refused,
see :mod:`exactdp.core.domains`).  Rational quantities are computed with
:class:`~fractions.Fraction`; irrational ones (square roots, ``e^eps``,
``lambda^(1/L)``) with python-flint ``arb`` balls at a *local* working
precision (``flint.ctx.workprec``), and every result is returned as an
:class:`~exactdp.core.interval.Interval` that provably encloses the formula's value.

Noise levels defined implicitly ("the smallest q in (0, 1/2) with LHS <= lam")
are certified by bisection: a :class:`QBracket` ``[lo, hi]`` with
``LHS(lo) > lam`` and ``LHS(hi) <= lam``, both decided exactly or by arb
comparisons that are never answered when undecided.

``PRINTED_NUMBERS`` lists every number the papers print that these formulas
produce; :func:`check_printed` compares each with the certified formula value
under the precision rule :func:`tolerance`.

Monotonicity (why the bisection finds *the* smallest q).  With ``r = p/q > 1``
one has ``phi = (p^3+q^3)/(pq) = r + 1/r - 1`` (3.14), strictly decreasing in
``q`` on ``(0, 1/2]``, with ``phi -> inf`` as ``q -> 0`` and ``phi = 1`` at
``q = 1/2``.  Every left-hand side below is a strictly increasing function of
``phi >= 1``: the means are increasing; ``psi = phi^2 + phi - 1 >= phi^2`` and
``d/dphi (psi^L - phi^(2L)) = L psi^(L-1) (2 phi + 1) - 2 L phi^(2L-1) > 0``,
so each variance term increases too (for (6.2) use also ``a + b >= c + d``
termwise).  Hence each LHS is strictly decreasing in ``q``, the feasible set
``{q : LHS(q) <= lam}`` is an interval ``[q*, 1/2)`` and there is exactly one
crossing; :func:`feasibility_crossings` re-checks this on a grid.

>>> br = sigma3_q(1000, 5, "e^2", form="3.13")
>>> br.to_dict(6)
{'lower': '0.169212', 'upper': '0.169213'}
>>> check_printed(entry("000-s3.3-q-e2-N1000"))
'confirmed'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Callable

import flint
from flint import arb, fmpq

from ..core import domains
from ..core.errors import ParameterError, PrecisionError
from ..core.interval import Interval, arb_to_interval

__all__ = [
    "PAPER_000", "PAPER_003", "Lam", "lam_of", "QBracket",
    "phi_of_q", "psi_of_phi", "q_of_phi", "q_of_phi_exact",
    "sigma3_moments", "sigma3_lhs", "sigma3_q", "sigma3_q_via_phi",
    "feasibility_crossings",
    "maurer_bound", "maurer_asymptotic",
    "local_dp_q", "sigma_factor", "sigma_dhat", "sigma_dhat_sec6_as_printed",
    "kr_mean_bound", "kr_var_bound", "kr_lhs", "kr_q", "k_sigma3_q",
    "q_003_0_19", "sigma_bound_003_0_16", "ci_003", "q_003_1_23", "sigma_003_1_4",
    "q_003_2_33",
    "Tolerance", "tolerance", "check_printed", "audit_printed", "audit_all",
    "PRINTED_NUMBERS", "FORMULA_NOTES", "entry",
]

PAPER_000 = "000_3d8ddaba8b46cf9c.txt"
PAPER_003 = "003_602e16ce409ec962.txt"

F = Fraction
DEFAULT_PREC = 128
_PREC_LADDER = (128, 256, 512, 1024, 2048, 4096)
FORMS = ("3.12", "3.13", "3.15")


# --------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class Lam:
    """The privacy threshold ``lambda``: an exact rational, or ``e^eps`` with exact ``eps``.

    >>> lam_of("2"), lam_of("e^2"), lam_of("exp(0.693)")
    (Lam(2), Lam(e^2), Lam(e^0.693))
    >>> lam_of("e^0")
    Lam(1)
    """

    exact: Fraction | None = None
    eps: Fraction | None = None

    def arb(self) -> arb:
        """Ball for lambda at the *current* working precision."""
        if self.exact is not None:
            return arb(fmpq(self.exact.numerator, self.exact.denominator))
        return _arb(self.eps).exp()

    def __repr__(self) -> str:
        if self.exact is not None:
            return f"Lam({_fmt(self.exact)})"
        return f"Lam(e^{_fmt(self.eps)})"

    __str__ = __repr__


_EXP_RE = re.compile(r"^\s*(?:e\s*\^\s*\(?|exp\s*\()\s*([^()]+?)\s*\)?\s*$")


def lam_of(value) -> Lam:
    """Read lambda exactly: a number in :data:`exactdp.core.domains.LAM`, or ``"e^eps"`` / ``"exp(eps)"``.

    >>> lam_of(F(3, 2))
    Lam(1.5)
    >>> lam_of(2.0)
    Traceback (most recent call last):
    ...
    exactdp.core.errors.InexactInputError: lam: got the float 2.0; pass an exact value such as the string '2.0' or Fraction(2.0)
    """
    if isinstance(value, Lam):
        return value
    if isinstance(value, str):
        m = _EXP_RE.match(value)
        if m:
            eps = domains.EPS.parse(m.group(1))
            if eps == 0:
                return Lam(exact=F(1))
            return Lam(eps=F(eps))
    return Lam(exact=F(domains.LAM.parse(value)))


def _beta(value) -> Fraction:
    b = domains.to_fraction(value, "beta")
    if b <= 0:
        raise ParameterError(f"beta must be a number in (0, inf), got {_fmt(b)}")
    return b


def _fmt(x: Fraction) -> str:
    return domains._fmt(F(x))


def _arb(x) -> arb:
    """Ball for an exact number, an Interval, a QBracket or an arb (current precision)."""
    if isinstance(x, arb):
        return x
    if isinstance(x, QBracket):
        x = x.interval
    if isinstance(x, Interval):
        lo = arb(fmpq(x.lower.numerator, x.lower.denominator))
        if x.is_exact:
            return lo
        return lo.union(arb(fmpq(x.upper.numerator, x.upper.denominator)))
    x = F(x)
    return arb(fmpq(x.numerator, x.denominator))


def _q_input(q):
    """Exact q (validated against :data:`domains.Q`) or a certified Interval/QBracket."""
    if isinstance(q, QBracket):
        return q.interval
    if isinstance(q, Interval):
        if not (q.lower > 0 and q.upper <= F(1, 2)):
            raise ParameterError(f"q interval must lie in (0, 1/2], got {q}")
        return q
    return domains.Q.parse(q)


def _iv(x: arb) -> Interval:
    return arb_to_interval(x)


def _sqrtpos(v: arb) -> arb:
    """sqrt of a ball known (mathematically) to enclose a value >= 0.

    A ball straddling 0 (e.g. an exact 0 rounded outward) gives ``[0, sqrt(upper)]``.
    """
    if v > 0:
        return v.sqrt()
    iv = _iv(v)
    if iv.upper < 0:
        raise PrecisionError(f"negative variance term {v}")
    return arb(0).union(_arb(iv.upper).sqrt())


# ------------------------------------------------------------ (3.14) / (3.16)
def phi_of_q(q) -> Fraction:
    """000 (3.14): ``phi = (p^3 + q^3)/(p q)`` with ``p = 1 - q`` (exact).

    Equals ``p/q + q/p - 1`` (000 §3.2).

    >>> phi_of_q("1/3")
    Fraction(3, 2)
    """
    q = domains.Q.parse(q)
    p = 1 - q
    return (p**3 + q**3) / (p * q)


def psi_of_phi(phi):
    """000 §3.2 / §3.4: ``(p^5 + q^5)/(pq)^2 = phi^2 + phi - 1`` (the printed identity).

    >>> psi_of_phi(F(3, 2)) == (F(2, 3)**5 + F(1, 3)**5) / (F(2, 9))**2
    True
    """
    return phi * phi + phi - 1


def q_of_phi(phi, prec: int = DEFAULT_PREC) -> Interval:
    """000 (3.16): ``q = 1 / (1 + ((phi+1) + sqrt((phi+1)^2 - 4))/2)``, certified.

    (3.16) is the inverse of (3.14) on ``q in (0, 1/2]``: with ``r = p/q``,
    ``phi + 1 = r + 1/r`` and ``r`` is the root ``> 1`` of ``r^2 - (phi+1) r + 1``.

    >>> q_of_phi(F(3, 2))
    Interval[1/3, 1/3]
    >>> q_of_phi(2).to_dict(8)
    {'lower': '0.2763932', 'upper': '0.27639321'}
    """
    ex = q_of_phi_exact(phi)
    if ex is not None:
        return Interval.exact(ex)
    with flint.ctx.workprec(prec):
        f = _arb(phi) + 1
        r = (f + (f * f - 4).sqrt()) / 2
        return _iv(1 / (1 + r))


def q_of_phi_exact(phi) -> Fraction | None:
    """(3.16) in exact arithmetic when ``(phi+1)^2 - 4`` is a rational square, else ``None``.

    >>> q_of_phi_exact(phi_of_q("0.2446"))
    Fraction(1223, 5000)
    """
    phi = domains.to_fraction(phi, "phi")
    if phi < 1:
        raise ParameterError(f"phi must be a number in [1, inf), got {_fmt(phi)}")
    d = (phi + 1) ** 2 - 4
    n, m = d.numerator, d.denominator
    rn, rm = math.isqrt(n), math.isqrt(m)
    if rn * rn != n or rm * rm != m:
        return None
    r = ((phi + 1) + F(rn, rm)) / 2
    return 1 / (1 + r)


# ------------------------------------------------------- (3.12) (3.13) (3.15)
def _mean_var(N: int, L: int, phi, form: str, k: int = 1):
    """(mean, variance) of the printed LHS ``mean + beta*sqrt(variance)`` at ``phi``.

    Generic over Fraction and arb; only integer constants are mixed in.
    """
    fL = phi**L
    if form == "3.12":
        psi = phi * phi + phi - 1
        mean = (N - 1 + fL) / N
        var = ((N - 1) * (fL - 1) + (psi**L - fL * fL)) / (N * N)
    elif form == "3.13":
        psi = phi * phi + phi - 1
        mean = 1 + fL / N
        var = fL / N + (psi**L - fL * fL) / (N * N)
    elif form == "3.15":
        psi = (phi + 1) ** 2 - phi - 2          # literally as printed in (3.15)
        mean = 1 + fL / N
        var = fL / N + (psi**L - fL * fL) / (N * N)
    elif form == "6.3":
        psi = phi * phi + phi - 1
        kN = k * N
        mean = (1 + fL / kN) ** k
        var = (fL / kN + psi**L / (kN * kN)) ** k - (1 + fL * fL / kN) ** k / kN**k
    elif form == "k-moments":
        from ..oracles.moments import moments_Rk_factored
        psi = phi * phi + phi - 1
        mean, var = moments_Rk_factored(N, k, fL, psi**L)
    else:
        raise ParameterError(f"form must be one of {', '.join(FORMS + ('6.3',))}, got {form!r}")
    return mean, var


def _check_form(form: str) -> str:
    if form not in FORMS:
        raise ParameterError(f"form must be one of {', '.join(FORMS)}, got {form!r}")
    return form


def sigma3_moments(N, L, q, form: str = "3.13") -> tuple[Fraction, Fraction]:
    """Exact ``(mean, variance)`` whose ``mean + 3 sqrt(variance)`` is the LHS of 000 (3.12)/(3.13)/(3.15).

    (3.12): ``(N-1)/N + phi^L/N`` and ``(N-1)/N^2 (phi^L - 1) + (psi^L - phi^2L)/N^2``
    (the exact E R and Var R of 000 §3.1);
    (3.13): ``1 + phi^L/N`` and ``phi^L/N + (psi^L - phi^2L)/N^2``;
    (3.15): (3.13) in the variable phi with ``psi = (phi+1)^2 - phi - 2`` as printed,
    identical to (3.13) because ``(phi+1)^2 - phi - 2 = phi^2 + phi - 1``.

    >>> sigma3_moments(1, 1, "1/3", "3.12")
    (Fraction(3, 2), Fraction(1, 2))
    """
    N, L = domains.N.parse(N), domains.L.parse(L)
    return _mean_var(N, L, phi_of_q(q), _check_form(form))


def sigma3_lhs(N, L, q, form: str = "3.13", beta=3, prec: int = DEFAULT_PREC) -> Interval:
    """Left-hand side of 000 (3.12), (3.13) or (3.15): ``mean + beta*sqrt(var)`` (paper: beta = 3).

    ``q`` exact, or a certified Interval.  Result: certified enclosure.

    >>> sigma3_lhs(1000, 5, "0.2446", "3.12").to_dict(6)
    {'lower': '1.99881', 'upper': '1.99882'}
    >>> sigma3_lhs(1000, 5, "0.2446", "3.13").compare(sigma3_lhs(1000, 5, "0.2446", "3.12"))
    1
    """
    N, L, b = domains.N.parse(N), domains.L.parse(L), _beta(beta)
    _check_form(form)
    q = _q_input(q)
    with flint.ctx.workprec(prec):
        if isinstance(q, Interval):
            qa = _arb(q)
            phi = (1 - qa) / qa + qa / (1 - qa) - 1
        else:
            phi = _arb(phi_of_q(q))
        m, v = _mean_var(N, L, phi, form)
        return _iv(m + _arb(b) * _sqrtpos(v))


def _le_lam(mean_var: Callable, beta: Fraction, lam: Lam) -> bool:
    """Decide ``mean + beta*sqrt(var) <= lam``; arb first, exact fallback; never guesses.

    ``mean_var(exact: bool)`` returns the pair as arb balls (current precision) or Fractions.
    """
    for prec in _PREC_LADDER:
        with flint.ctx.workprec(prec):
            m, v = mean_var(False)
            lhs = m + _arb(beta) * _sqrtpos(v)
            la = lam.arb()
            if lhs < la:
                return True
            if lhs > la:
                return False
    if lam.exact is not None:
        m, v = mean_var(True)
        if v < 0:
            raise PrecisionError("negative variance term")
        d = lam.exact - m
        return d >= 0 and beta * beta * v <= d * d
    # mean + beta*sqrt(var) is algebraic and e^eps (eps != 0 rational) transcendental
    raise PrecisionError("comparison with e^eps undecided at 4096 bits")


@dataclass(frozen=True)
class QBracket:
    """Certified bracket ``lo < q* <= hi`` of the smallest feasible noise level.

    ``certificate`` states what was decided: ``LHS(lo) > lam`` and ``LHS(hi) <= lam``
    (with monotonicity, :mod:`exactdp.apps.heuristics` docstring, this pins ``q*``).
    """

    lo: Fraction
    hi: Fraction
    equation: str
    params: dict = field(default_factory=dict, compare=False)
    certificate: str = ""

    @property
    def interval(self) -> Interval:
        return Interval(self.lo, self.hi)

    @property
    def width(self) -> Fraction:
        return self.hi - self.lo

    def to_dict(self, digits: int = 20) -> dict:
        return self.interval.to_dict(digits)

    def __str__(self) -> str:
        return f"q in {self.interval} by {self.equation}"


def _bisect(feasible: Callable[[Fraction], bool], lo: Fraction, hi: Fraction, tol: Fraction):
    """Bisection on dyadics keeping ``feasible(hi)`` and ``not feasible(lo)``."""
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def _solve_q(N: int, L: int, lam: Lam, beta: Fraction, form: str, k: int, *, tol: Fraction,
             label: str) -> QBracket:
    def feasible(q: Fraction) -> bool:
        phi = phi_of_q(q) if q < F(1, 2) else F(1)

        def mv(exact):
            return _mean_var(N, L, phi if exact else _arb(phi), form, k)
        return _le_lam(mv, beta, lam)

    half = F(1, 2)
    if not feasible(half) or _at_half_equal(N, L, lam, beta, form, k):
        raise ParameterError(
            f"no q in (0, 1/2) satisfies {label} <= {lam} for N={N}, L={L}"
            f"{'' if k == 1 else f', k={k}'} (even q -> 1/2 gives LHS >= lam)")
    lo = F(1, 4)
    while feasible(lo):
        lo /= 2
        if lo < F(1, 2**400):
            raise PrecisionError("no infeasible lower end found above 2^-400")
    hi = min(half, lo * 2)
    lo, hi = _bisect(feasible, lo, hi, tol)
    return QBracket(lo, hi, label,
                    {"N": str(N), "L": str(L), "lam": str(lam), "beta": _fmt(beta), "k": str(k)},
                    f"{label}: LHS(lo) > {lam} and LHS(hi) <= {lam}")


def _at_half_equal(N, L, lam, beta, form, k) -> bool:
    """LHS(1/2) == lam exactly (then no q < 1/2 is feasible, by strict monotonicity)."""
    if lam.exact is None:
        return False
    m, v = _mean_var(N, L, F(1), form, k)
    d = lam.exact - m
    return d >= 0 and beta * beta * v == d * d


def _tol(digits: int) -> Fraction:
    return F(1, 10**digits)


@lru_cache(maxsize=512)
def _sigma3_q_cached(N, L, lam, beta, form, digits):
    return _solve_q(N, L, lam, beta, form, 1, tol=_tol(digits), label=f"000 ({form})")


def sigma3_q(N, L, lam, form: str = "3.13", beta=3, digits: int = 30) -> QBracket:
    """Smallest ``q in (0, 1/2)`` with LHS of 000 (3.12)/(3.13)/(3.15) ``<= lam``, certified.

    Returns a :class:`QBracket` of width ``<= 10^-digits``; raises
    :class:`~exactdp.core.errors.ParameterError` when no ``q < 1/2`` is feasible
    (for (3.13): ``lam <= 1 + 1/N + beta/sqrt(N)``).

    >>> br = sigma3_q(1000, 5, "exp(0.693)", form="3.12")
    >>> br.to_dict(6)
    {'lower': '0.244552', 'upper': '0.244553'}
    >>> sigma3_q(4, 5, 2, form="3.13")
    Traceback (most recent call last):
    ...
    exactdp.core.errors.ParameterError: no q in (0, 1/2) satisfies 000 (3.13) <= Lam(2) for N=4, L=5 (even q -> 1/2 gives LHS >= lam)
    """
    N, L = domains.N.parse(N), domains.L.parse(L)
    digits = domains.DIGITS.parse(digits)
    return _sigma3_q_cached(N, L, lam_of(lam), _beta(beta), _check_form(form), digits)


def sigma3_q_via_phi(N, L, lam, form: str = "3.15", beta=3, digits: int = 30,
                     *, prec: int = 256) -> Interval:
    """The paper's route: solve (3.15) for phi numerically (here: certified), then q by (3.16).

    A phi-bracket ``[phi_lo, phi_hi]`` with ``LHS(phi_lo) <= lam < LHS(phi_hi)``
    maps (q decreasing in phi) to ``q* in (q(phi_hi), q(phi_lo)]``; the returned
    Interval encloses that range, with (3.16) evaluated in arb.

    >>> sigma3_q_via_phi(1000, 5, "e^2").to_dict(6)
    {'lower': '0.169212', 'upper': '0.169213'}
    """
    N, L = domains.N.parse(N), domains.L.parse(L)
    lam, b = lam_of(lam), _beta(beta)
    _check_form(form)

    def feasible(phi: Fraction) -> bool:
        return _le_lam(lambda exact: _mean_var(N, L, phi if exact else _arb(phi), form), b, lam)

    if not feasible(F(1)) or _at_half_equal(N, L, lam, b, form, 1):
        raise ParameterError(f"no phi > 1 satisfies 000 ({form}) <= {lam} for N={N}, L={L}")
    hi = F(2)
    while feasible(hi):
        hi *= 2
    lo = F(1) if hi == 2 else hi / 2
    tol = _tol(digits + 2)
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if feasible(mid):
            lo = mid
        else:
            hi = mid
    a, c = q_of_phi(hi, prec), q_of_phi(lo, prec)
    return Interval(a.lower, c.upper)


def feasibility_crossings(N, L, lam, form: str = "3.13", grid: int = 64, k: int = 1,
                          *, beta=3) -> int:
    """Number of feasible/infeasible switches of ``LHS <= lam`` on ``q = j/(2 grid)``, ``j = 1..grid-1``.

    Monotonicity (module docstring) implies at most 1.

    >>> feasibility_crossings(1000, 5, 2, "3.12")
    1
    """
    N, L, k, b = domains.N.parse(N), domains.L.parse(L), domains.K.parse(k), _beta(beta)
    lam = lam_of(lam)
    form = form if form == "6.3" else _check_form(form)
    states = []
    for j in range(1, grid):
        phi = phi_of_q(F(j, 2 * grid))
        states.append(_le_lam(
            lambda exact, phi=phi: _mean_var(N, L, phi if exact else _arb(phi), form, k), b, lam))
    return sum(1 for s, t in zip(states, states[1:]) if s != t)


# ---------------------------------------------------------------- (3.17) Maurer
def maurer_bound(N, L, q, beta=3, line: int = 1, sigma2=None, *, prec: int = DEFAULT_PREC) -> Interval:
    """000 (3.17), the three printed lines, as functions of ``beta`` (certified).

    * line 1: ``exp(-beta^2 sigma^2 / (2[(N-1) phi^L + psi^L]))`` with ``sigma^2``
      the variance of the sum ``X = N R`` by default,
      ``(N-1)(phi^L - 1) + psi^L - phi^2L`` (000 §3.1), or ``sigma2`` if given;
    * line 2: the same with that variance substituted (identical to line 1);
    * line 3: ``exp(-beta^2/2 [1 - ((N-1) + phi^L)/((N-1) phi^L + psi^L)])`` as printed.
      Algebra from line 2 gives ``phi^(2L)`` where line 3 prints ``phi^L``: the
      printed line 3 is *not* equal to lines 1-2 (it is smaller, i.e. a
      stronger, unjustified bound) unless ``phi = 1``.

    >>> [maurer_bound(1000, 5, "0.1692", 3, line).to_dict(3)["lower"] for line in (1, 2, 3)]
    ['0.0458', '0.0458', '0.0111']
    """
    N, L, b = domains.N.parse(N), domains.L.parse(L), _beta(beta)
    q = _q_input(q)
    if line not in (1, 2, 3):
        raise ParameterError(f"line must be 1, 2 or 3, got {line!r}")
    with flint.ctx.workprec(prec):
        if isinstance(q, Interval):
            qa = _arb(q)
            phi = (1 - qa) / qa + qa / (1 - qa) - 1
        else:
            phi = _arb(phi_of_q(q))
        fL = phi**L
        psiL = (phi * phi + phi - 1) ** L
        den = (N - 1) * fL + psiL
        var_x = (N - 1) * (fL - 1) + psiL - fL * fL
        bb = _arb(b) ** 2
        if line == 1:
            s2 = var_x if sigma2 is None else _arb(domains.to_fraction(sigma2, "sigma2"))
            return _iv((-bb * s2 / (2 * den)).exp())
        if line == 2:
            return _iv((-bb * var_x / (2 * den)).exp())
        return _iv((-bb / 2 * (1 - ((N - 1) + fL) / den)).exp())


def maurer_asymptotic(beta, prec: int = DEFAULT_PREC) -> Interval:
    """000 §3.4, large-L limit of (3.17): ``exp(-beta^2/2)``.

    >>> maurer_asymptotic("3.05").to_dict(4)
    {'lower': '0.009549', 'upper': '0.00955'}
    """
    b = _beta(beta)
    with flint.ctx.workprec(prec):
        return _iv((-_arb(b) ** 2 / 2).exp())


# ------------------------------------------------------------- §4, §6, 003 (1.4)
def local_dp_q(L, lam, prec: int = DEFAULT_PREC) -> Interval:
    """000 (4.2): ``q = 1/(1 + lam^(1/L))``, the local-DP noise with ``(p/q)^L = lam`` (4.1).

    >>> local_dp_q(5, 2).to_dict(6)
    {'lower': '0.465398', 'upper': '0.465399'}
    >>> local_dp_q(1, 3)
    Interval[1/4, 1/4]
    """
    L, lam = domains.L.parse(L), lam_of(lam)
    if lam.exact is not None:
        x = lam.exact
        rn, rd = _iroot(x.numerator, L), _iroot(x.denominator, L)
        if rn is not None and rd is not None:
            return Interval.exact(1 / (1 + F(rn, rd)))
    with flint.ctx.workprec(prec):
        if lam.exact is not None:
            root = lam.arb() ** (arb(1) / L)
        else:
            root = (_arb(lam.eps) / L).exp()
        return _iv(1 / (1 + root))


def _iroot(n: int, L: int):
    r = round(n ** (1.0 / L)) if n < 2**1000 else None
    if r is None:
        return None
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**L == n:
            return c
    return None


def sigma_factor(q, prec: int = DEFAULT_PREC) -> Interval:
    """000 §4: ``sqrt(q p)/(p - q)``, the factor multiplying ``sqrt(N)`` in ``sigma(d_hat)``.

    >>> sigma_factor("1/3").to_dict(6)
    {'lower': '1.41421', 'upper': '1.41422'}
    """
    return sigma_dhat(1, q, 1, prec)


def sigma_dhat(N, q, k=1, prec: int = DEFAULT_PREC) -> Interval:
    """``sigma(d_hat) = sqrt(q p N / k)/(p - q)``: 000 §4 (k = 1) and 003 (1.4)/(1.24).

    ``q`` exact or a certified Interval/QBracket.  000 §6 prints a different
    expression, see :func:`sigma_dhat_sec6_as_printed`.

    >>> sigma_dhat(1000, "1/3").to_dict(5)
    {'lower': '44.721', 'upper': '44.722'}
    """
    N, k = domains.N.parse(N), domains.K.parse(k)
    q = _q_input(q)
    with flint.ctx.workprec(prec):
        qa = _arb(q)
        pa = 1 - qa
        return _iv((qa * pa * N / k).sqrt() / (pa - qa))


def sigma_dhat_sec6_as_printed(N, q, k=1, prec: int = DEFAULT_PREC) -> Interval:
    """000 §6 as printed: ``sigma(d_hat) = sqrt(N/k * sqrt(q p)/(p - q))``.

    Probably a typo for ``sqrt(q p N / k)/(p - q)`` (:func:`sigma_dhat`, which
    §4 prints for k = 1 and 003 (1.4) for general k): the printed form is not
    even dimensionally ``sqrt(N)``-linear in the noise factor and differs from
    it for every q in (0, 1/2) except where ``sqrt(qp)/(p-q) = 1``.

    >>> sigma_dhat_sec6_as_printed(1000, "1/3").to_dict(5)
    {'lower': '37.606', 'upper': '37.607'}
    """
    N, k = domains.N.parse(N), domains.K.parse(k)
    q = _q_input(q)
    with flint.ctx.workprec(prec):
        qa = _arb(q)
        pa = 1 - qa
        return _iv((arb(N) / k * (qa * pa).sqrt() / (pa - qa)).sqrt())


# ------------------------------------------------------- k-randomization (6.x)
def kr_mean_bound(N, L, q, k) -> Fraction:
    """000 (6.1): ``E R(S^k) <= (1 + phi^L/(kN))^k`` (exact).

    >>> kr_mean_bound(10, 1, "1/3", 2)
    Fraction(1849, 1600)
    """
    N, L, k = domains.N.parse(N), domains.L.parse(L), domains.K.parse(k)
    return _mean_var(N, L, phi_of_q(q), "6.3", k)[0]


def kr_var_bound(N, L, q, k) -> Fraction:
    """000 (6.2): ``Var R(S^k) <= [phi^L/(kN) + psi^L/(kN)^2]^k - [1/(kN) + phi^2L/(kN)^2]^k`` (exact).

    For k = 1 this is ``(phi^L - 1)/N + (psi^L - phi^2L)/N^2``, strictly between
    the variance terms of (3.12) and (3.13).

    >>> kr_var_bound(10, 1, "1/3", 1) == F(1, 2) / 10 + (F(11, 4) - F(9, 4)) / 100
    True
    """
    N, L, k = domains.N.parse(N), domains.L.parse(L), domains.K.parse(k)
    return _mean_var(N, L, phi_of_q(q), "6.3", k)[1]


def kr_lhs(N, L, q, k, beta=3, prec: int = DEFAULT_PREC) -> Interval:
    """LHS of 000 (6.3) = (8.38): ``(6.1) + beta*sqrt((6.2))`` (certified).

    >>> kr_lhs(1000, 5, "0.2446", 1).to_dict(5)
    {'lower': '2.0002', 'upper': '2.0003'}
    """
    N, L, k, b = domains.N.parse(N), domains.L.parse(L), domains.K.parse(k), _beta(beta)
    phi = phi_of_q(q)
    with flint.ctx.workprec(prec):
        m, v = _mean_var(N, L, _arb(phi), "6.3", k)
        return _iv(m + _arb(b) * _sqrtpos(v))


@lru_cache(maxsize=256)
def _kr_q_cached(N, L, lam, k, beta, digits):
    return _solve_q(N, L, lam, beta, "6.3", k, tol=_tol(digits), label="000 (6.3)/(8.38)")


def kr_q(N, L, lam, k, beta=3, digits: int = 30) -> QBracket:
    """Smallest ``q in (0, 1/2)`` satisfying 000 (6.3) = (8.38), certified bracket.

    The paper solves (6.3) for phi and applies (3.16); the bracket in q is the
    same set (q and phi are in monotone one-to-one correspondence).

    >>> kr_q(10**7, 40, "e^2", 1).to_dict(5)
    {'lower': '0.35091', 'upper': '0.35092'}
    """
    N, L, k = domains.N.parse(N), domains.L.parse(L), domains.K.parse(k)
    return _kr_q_cached(N, L, lam_of(lam), k, _beta(beta), domains.DIGITS.parse(digits))


@lru_cache(maxsize=256)
def _k_sigma3_q_cached(N, L, lam, k, beta, digits):
    return _solve_q(N, L, lam, beta, "k-moments", k, tol=_tol(digits),
                    label="3 sigma rule with the exact moments of R(S^k)")


def k_sigma3_q(N, L, lam, k, beta=3, digits: int = 8) -> QBracket:
    """Smallest ``q`` with ``E R(S^k) + beta sqrt(Var R(S^k)) <= lam``, the *exact* moments
    of 000's k-randomized pair (:func:`exactdp.oracles.moments.moments_Rk_factored`): the
    3 sigma heuristic of 000 §3.4 / (8.38) without the bounds (6.1), (6.2), which
    ``proofs/k_randomization.py`` refutes.  Still a heuristic for eta (not a bound on it);
    the bracket is certified for the rule itself (``LHS(lo) > lam``, ``LHS(hi) <= lam``).

    >>> k_sigma3_q(10**7, 40, "e^2", 16, digits=6).to_dict(6)
    {'lower': '0.361386', 'upper': '0.361388'}
    """
    N, L, k = domains.N.parse(N), domains.L.parse(L), domains.K.parse(k)
    return _k_sigma3_q_cached(N, L, lam_of(lam), k, _beta(beta), domains.DIGITS.parse(digits))


# --------------------------------------------------------------------- paper 003
def _c_003(lam: Lam, k: int = 1) -> arb:
    """``9/(1 - lam^(-1/k))^2`` (003 (0.14), (1.22)) at the current precision."""
    la = lam.arb() if k == 1 else (
        lam.arb() ** (arb(1) / k) if lam.exact is not None else (_arb(lam.eps) / k).exp())
    return 9 / (1 - 1 / la) ** 2


def q_003_0_19(N, lam, prec: int = DEFAULT_PREC) -> Interval:
    """003 (0.19): ``q = (1 - 1/sqrt(1 + 4*9/((1 - 1/lam)^2 N)))/2``.

    Solves (0.17) ``pqN/(p-q)^2 >= 9/(1-1/lam)^2`` with equality (for lam > 1).

    >>> q_003_0_19(1000, 2).to_dict(8)
    {'lower': '0.032526504', 'upper': '0.032526505'}
    """
    return q_003_1_23(N, lam, 1, prec)


def sigma_bound_003_0_16(lam, prec: int = DEFAULT_PREC) -> Interval:
    """003 (0.16): ``sigma(T_bar) >= 3/(1 - 1/lam)``.

    >>> sigma_bound_003_0_16(2)
    Interval[6, 6]
    """
    lam = lam_of(lam)
    if lam.exact is not None:
        if lam.exact == 1:
            raise ParameterError("lam must be > 1 for (0.16)")
        return Interval.exact(3 / (1 - 1 / lam.exact))
    with flint.ctx.workprec(prec):
        return _iv(3 / (1 - 1 / lam.arb()))


def ci_003(N, q, which: str = "S", beta=3, prec: int = DEFAULT_PREC) -> tuple[Interval, Interval]:
    """003 (0.22)-(0.25): ``mean -/+ beta*sigma`` (paper: beta = 3) for S or S_m, with N (paper: 1000).

    ``E(S) = qN``, ``sigma(S) = sqrt(pqN)``; ``E(S_m) = qN + p``,
    ``sigma(S_m) = sqrt(pq(N-1) + pq)`` -- all as printed.  Returns certified
    (lower end, upper end).

    >>> [iv.to_dict(5)["lower"] for iv in ci_003(1000, "0.033", "S")]
    ['16.053', '49.946']
    """
    N, b = domains.N.parse(N), _beta(beta)
    q = _q_input(q)
    if which not in ("S", "S_m"):
        raise ParameterError(f"which must be 'S' or 'S_m', got {which!r}")
    with flint.ctx.workprec(prec):
        qa = _arb(q)
        pa = 1 - qa
        if which == "S":
            mean, sd = qa * N, (pa * qa * N).sqrt()
        else:
            mean, sd = qa * N + pa, (pa * qa * (N - 1) + pa * qa).sqrt()
        w = _arb(b) * sd
        return _iv(mean - w), _iv(mean + w)


def q_003_1_23(N, lam, k, prec: int = DEFAULT_PREC) -> Interval:
    """003 (1.23): ``q = (1 - 1/sqrt(1 + 4*9/((1 - lam^(-1/k))^2 k N)))/2``.

    >>> q_003_1_23(1000, 2, 16).to_dict(6)
    {'lower': '0.166796', 'upper': '0.166797'}
    """
    N, k, lam = domains.N.parse(N), domains.K.parse(k), lam_of(lam)
    if lam.exact == 1:
        raise ParameterError("lam must be > 1 for 003 (0.19)/(1.23)")
    with flint.ctx.workprec(prec):
        a = _c_003(lam, k) / (k * N)
        return _iv((1 - 1 / (1 + 4 * a).sqrt()) / 2)


def sigma_003_1_4(N, q, k=1, prec: int = DEFAULT_PREC) -> Interval:
    """003 (1.4) = (1.24): ``sigma(T_bar) = sqrt(qpN/(k (p-q)^2))`` (same as :func:`sigma_dhat`).

    >>> sigma_003_1_4(1000, "0.1668", 16).to_dict(4)
    {'lower': '4.422', 'upper': '4.423'}
    """
    return sigma_dhat(N, q, k, prec)


def q_003_2_33(N, L, lam, prec: int = DEFAULT_PREC) -> Interval:
    """003 (2.33): ``q = (1 - sqrt(1 - 4/(3 + c)))/2``, ``c = (1 + (1 - 1/lam)^2 N/9)^(1/L)``.

    (2.30) prints the root index as 1 (``sqrt[1]``); (2.31)-(2.33) use the L-th
    root, implemented here.  At this q, (2.29) holds with equality.

    >>> q_003_2_33(1000, 1, 2).to_dict(6)
    {'lower': '0.0325265', 'upper': '0.0325266'}
    """
    N, L, lam = domains.N.parse(N), domains.L.parse(L), lam_of(lam)
    with flint.ctx.workprec(prec):
        la = lam.arb()
        c = (1 + (1 - 1 / la) ** 2 * N / 9) ** (arb(1) / L)
        return _iv((1 - (1 - 4 / (3 + c)).sqrt()) / 2)


# ------------------------------------------------------------------ tolerance
_PRINTED_RE = re.compile(r"^\s*([+-]?)(\d+)(?:\.(\d*))?\s*([KkM%]?)\s*$")
_SCALE = {"": F(1), "K": F(1000), "k": F(1000), "M": F(10**6), "%": F(1, 100)}


@dataclass(frozen=True)
class Tolerance:
    """What a printed decimal can mean.

    ``value`` = the printed number; ``unit`` = one unit in its last printed digit;
    ``rounded`` = ``[value - unit/2, value + unit/2]`` (correct rounding, ties either way);
    ``truncated`` = ``[value, value + unit]`` (chopped digits; toward zero for negatives);
    ``accepted`` = their hull, the window :func:`check_printed` uses.
    """

    printed: str
    value: Fraction
    unit: Fraction
    rounded: Interval
    truncated: Interval
    accepted: Interval


def tolerance(printed: str, trailing_zeros: str = "significant") -> Tolerance:
    """Turn a printed value's precision into a tolerance (the audit's rule).

    Rule: the unit is one in the last printed digit (after the suffix ``K`` =
    10^3, ``M`` = 10^6, ``%`` = 1/100).  A printed value is *consistent* with a
    true value x if x lies in the rounding window ``value +/- unit/2`` or in the
    truncation window ``[value, value + unit]`` (authors often chop digits);
    the accepted window is the hull ``[value - unit/2, value + unit]``.
    Trailing zeros of an integer ("200K", "20") count as significant by default;
    ``trailing_zeros="insignificant"`` reads them as placeholders (unit 100K for
    "200K"), a looser reading reported alongside where it matters.

    >>> t = tolerance("0.2446"); t.unit, t.accepted.lower, t.accepted.upper
    (Fraction(1, 10000), Fraction(4891, 20000), Fraction(2447, 10000))
    >>> tolerance("200K").unit, tolerance("200K", "insignificant").unit
    (Fraction(1000, 1), Fraction(100000, 1))
    >>> tolerance("25%").value
    Fraction(1, 4)
    """
    m = _PRINTED_RE.match(printed)
    if not m:
        raise ParameterError(f"cannot read the printed value {printed!r}")
    sign, ip, fp, suf = m.groups()
    fp = fp or ""
    scale = _SCALE[suf]
    value = F(Decimal(f"{ip}.{fp}" if fp else ip)) * scale
    unit = F(1, 10 ** len(fp)) * scale
    if not fp and trailing_zeros == "insignificant":
        z = len(ip) - len(ip.rstrip("0"))
        if z and ip.strip("0"):
            unit *= 10**z
    if sign == "-":
        value = -value
    half = unit / 2
    rounded = Interval(value - half, value + half)
    truncated = Interval(value, value + unit) if value >= 0 else Interval(value - unit, value)
    accepted = Interval(min(rounded.lower, truncated.lower), max(rounded.upper, truncated.upper))
    return Tolerance(printed, value, unit, rounded, truncated, accepted)


# ---------------------------------------------------------------- the verdicts
def _classify(value: Interval, tol: Tolerance) -> tuple[str, str]:
    acc = tol.accepted
    if not value.overlaps(acc):
        return "refuted", ""
    if acc.contains(value):
        readings = [name for name, w in (("rounded", tol.rounded), ("truncated", tol.truncated))
                    if w.contains(value)]
        return "confirmed", "+".join(readings) or "rounded|truncated"
    return "undecided", ""


def _evaluate(thunk: Callable, tol: Tolerance) -> tuple[str, str, Interval]:
    last = None
    for prec in (DEFAULT_PREC, 256, 1024):
        value = thunk(prec)
        verdict, reading = _classify(value, tol)
        last = (verdict, reading, value)
        if verdict != "undecided":
            return last
    return last


def check_printed(entry: dict) -> str:
    """``"confirmed"`` if the certified formula value lies in ``tolerance(claimed).accepted``,
    ``"refuted"`` if it lies entirely outside; (``"undecided"`` only if the
    enclosure straddles an edge even at 1024 bits -- never seen for these entries).

    >>> check_printed(entry("003-s0.1-sigma-local"))
    'refuted'
    """
    return audit_printed(entry)["verdict"]


def audit_printed(entry: dict, digits: int = 8) -> dict:
    """Full audit of one entry: verdict, reading, certified value, accepted window,
    and the verdict of each alternative reading (other form/λ/typo/inputs)."""
    tol = tolerance(entry["claimed"])
    verdict, reading, value = _evaluate(entry["compute"], tol)
    alts = {}
    for name, thunk in entry.get("alternatives", {}).items():
        v, r, val = _evaluate(thunk, tol)
        alts[name] = {"verdict": v, "reading": r, "value": _show(val, digits)}
    return {"id": entry["id"], "claimed": entry["claimed"], "verdict": verdict,
            "reading": reading, "value": _show(value, digits),
            "window": f"[{_fmt_dec(tol.accepted.lower)}, {_fmt_dec(tol.accepted.upper)}]",
            "alternatives": alts}


def audit_all(digits: int = 8) -> list[dict]:
    """:func:`audit_printed` for every entry of :data:`PRINTED_NUMBERS`."""
    return [audit_printed(e, digits) for e in PRINTED_NUMBERS]


def _show(iv: Interval, digits: int) -> str:
    d = iv.to_dict(digits)
    return d["lower"] if d["lower"] == d["upper"] else f"[{d['lower']}, {d['upper']}]"


def _fmt_dec(x: Fraction) -> str:
    return _fmt(x)


# ----------------------------------------------------------- printed numbers
E2 = "e^2"
E0693 = "e^0.693"
_DIG = 30  # bracket width 1e-30 for the solver-based entries


def _q313(N, L, lam, form="3.13", beta=3):
    return lambda prec=DEFAULT_PREC: sigma3_q(N, L, lam, form, beta, _DIG).interval


def _q_phi(N, L, lam, beta=3):
    return lambda prec=DEFAULT_PREC: sigma3_q_via_phi(N, L, lam, "3.15", beta, _DIG, prec=max(prec, 256))


def _sub(a: Interval, b: Interval) -> Interval:
    return Interval(a.lower - b.upper, a.upper - b.lower)


def _div(a: Interval, b: Interval, prec: int) -> Interval:
    with flint.ctx.workprec(prec):
        return _iv(_arb(a) / _arb(b))


def _mul(a: Interval, c, prec: int) -> Interval:
    with flint.ctx.workprec(prec):
        return _iv(_arb(a) * _arb(c))


def _sqrtN(N) -> Interval:
    with flint.ctx.workprec(256):
        return _iv(arb(N).sqrt())


def _E(id, source, location, statement, quantity, params, *, claimed, compute, alternatives=None,
       note=""):
    return {"id": id, "source": source, "location": location, "statement": statement,
            "quantity": quantity, "params": {k: str(v) for k, v in params.items()},
            "claimed": claimed, "compute": compute, "alternatives": alternatives or {},
            "note": note}


def _build_printed() -> list[dict]:
    P0, P3 = PAPER_000, PAPER_003
    out = []
    # ---- 000 §3.3: q from the mean + 3 sigma rule, L = 5
    for lam_label, lam, rows in (("2", 2, ((1000, "0.2446"), (3000, "0.2109"), (5000, "0.1778"))),
                                 ("e2", E2, ((1000, "0.1692"), (3000, "0.1424"), (5000, "0.1310")))):
        for N, claimed in rows:
            alts = {"(3.15)+(3.16) phi route": _q_phi(N, 5, lam),
                    "(3.12)": _q313(N, 5, lam, "3.12")}
            if lam_label == "2":
                alts["(3.12), lam = e^0.693 (the text's 'e^{0.693} = 2')"] = _q313(N, 5, E0693, "3.12")
                alts["(3.13), lam = e^0.693"] = _q313(N, 5, E0693, "3.13")
            out.append(_E(
                f"000-s3.3-q-{lam_label}-N{N}", P0, "§3.3 table (via (3.13)/(3.15), (3.16))",
                f"L = 5, N = {N}, lambda = {'e^{0.693} = 2' if lam_label == '2' else 'e^2'}: q = {claimed}",
                "q", {"N": N, "L": 5, "lam": lam, "beta": 3}, claimed=claimed, compute=_q313(N, 5, lam, "3.13"),
                alternatives=alts,
                note="The paper says (3.13)/(3.15) is used; which form reproduces the value is a finding."))
    # ---- 000 §3.4 bound column (table headed lambda = 2 but with the q's of the e^2 table)
    for N, q, claimed in ((1000, "0.1692", "0.052"), (3000, "0.1424", "0.057"), (5000, "0.1310", "0.062")):
        out.append(_E(
            f"000-s3.4-bound-N{N}", P0, "§3.4 (3.17) table",
            f"L = 5, N = {N}, q = {q}: Maurer bound = {claimed}", "bound",
            {"N": N, "L": 5, "q": q, "beta": 3}, claimed=claimed,
            compute=lambda prec=DEFAULT_PREC, N=N, q=q: maurer_bound(N, 5, q, 3, 1, prec=prec),
            alternatives={"(3.17) line 2": lambda prec=DEFAULT_PREC, N=N, q=q: maurer_bound(N, 5, q, 3, 2, prec=prec),
             "(3.17) line 3 as printed": lambda prec=DEFAULT_PREC, N=N, q=q: maurer_bound(N, 5, q, 3, 3, prec=prec)},
            note="beta = 3 (the paper's 3-sigma reference point); the table is headed lambda = 2 "
            "but its q and p(R>=lambda) columns are those of the lambda = e^2 table of §3.3."))
    for beta, claimed in (("3.05", "0.0096"), ("3.5", "0.002")):
        out.append(_E(
            f"000-s3.4-L40-bound-beta{beta}", P0, "§3.4 after (3.17)",
            f"L = 40, N = 10M, beta = {beta}: bounding probability {claimed}", "bound",
            {"N": 10**7, "L": 40, "q": "0.351", "beta": beta}, claimed=claimed,
            compute=lambda prec=DEFAULT_PREC, b=beta: maurer_bound(10**7, 40, "0.351", b, 1, prec=prec),
            alternatives={"(3.17) line 3 as printed": lambda prec=DEFAULT_PREC, b=beta: maurer_bound(10**7, 40, "0.351", b, 3, prec=prec),
             "large-L limit exp(-beta^2/2)": lambda prec=DEFAULT_PREC, b=beta: maurer_asymptotic(b, prec),
             "line 1 at the certified (3.13) q for this beta": lambda prec=DEFAULT_PREC, b=beta:
                 maurer_bound(10**7, 40, sigma3_q(10**7, 40, E2, "3.13", b, _DIG), b, 1, prec=prec)},
            note="q = 0.351 (the paper's sufficient noise for this setting, §4)."))
    out.append(_E(
        "000-s3.4-L40-q-increase", P0, "§3.4 after (3.17)",
        "L = 40, N = 10M: beta = 3.5 instead of 3 increases q by 0.0025", "q difference",
        {"N": 10**7, "L": 40, "lam": E2, "beta": "3 -> 3.5"}, claimed="0.0025",
        compute=lambda prec=DEFAULT_PREC: _sub(sigma3_q(10**7, 40, E2, "3.13", "3.5", _DIG).interval,
                                       sigma3_q(10**7, 40, E2, "3.13", 3, _DIG).interval),
        alternatives={"beta 3.05 -> 3.5, (3.13)": lambda prec=DEFAULT_PREC: _sub(
            sigma3_q(10**7, 40, E2, "3.13", "3.5", _DIG).interval,
            sigma3_q(10**7, 40, E2, "3.13", "3.05", _DIG).interval),
         "beta 3 -> 3.5, (3.12)": lambda prec=DEFAULT_PREC: _sub(
            sigma3_q(10**7, 40, E2, "3.12", "3.5", _DIG).interval,
            sigma3_q(10**7, 40, E2, "3.12", 3, _DIG).interval)},
        note="lambda = e^2 (the L = 40 example of §4)."))
    # ---- 000 §4
    out.append(_E("000-s4-q-local-L5", P0, "§4 (4.3)", "L = 5, lambda = 2: local DP noise q = 0.465",
                  "q", {"L": 5, "lam": 2}, claimed="0.465", compute=lambda prec=DEFAULT_PREC: local_dp_q(5, 2, prec)))

    def s_local_L5(prec=DEFAULT_PREC):
        return sigma_factor(local_dp_q(5, 2, prec), prec)
    out.append(_E("000-s4-sigma-local-L5", P0, "§4 after (4.3)",
                  "local DP noise gives sigma = 7.5 sqrt(N)", "sigma/sqrt(N)", {"L": 5, "lam": 2},
                  claimed="7.5", compute=s_local_L5,
                  alternatives={"at the printed q = 0.465": lambda prec=DEFAULT_PREC: sigma_factor("0.465", prec)}))
    out.append(_E("000-s4-sigma-suff-N5000", P0, "§4 after (4.3)",
                  "N = 5000, q = 0.1778: sigma = 0.6 sqrt(N)", "sigma/sqrt(N)", {"q": "0.1778"},
                  claimed="0.6", compute=lambda prec=DEFAULT_PREC: sigma_factor("0.1778", prec),
                  alternatives={"at the certified (3.13) q for N = 5000, lam = 2": lambda prec=DEFAULT_PREC:
                      sigma_factor(sigma3_q(5000, 5, 2, "3.13", 3, _DIG), prec)}))
    out.append(_E("000-s4-fold-12", P0, "§4 after (4.3)", "This is 12 fold increase in precision",
                  "sigma ratio", {"L": 5, "lam": 2, "q_suff": "0.1778"}, claimed="12",
                  compute=lambda prec=DEFAULT_PREC: _div(s_local_L5(prec), sigma_factor("0.1778", prec), prec),
                  alternatives={"end to end: (4.2) vs certified (3.13) q at N = 5000": lambda prec=DEFAULT_PREC:
                      _div(s_local_L5(prec), sigma_factor(sigma3_q(5000, 5, 2, "3.13", 3, _DIG), prec), prec),
                   "printed 7.5 / printed 0.6": lambda prec=DEFAULT_PREC: Interval.exact(F("7.5") / F("0.6"))}))
    out.append(_E("000-s4-q-local-L40", P0, "§4 (4.2), L = 40 example",
                  "L = 40, lambda = e^2: local DP noise q = 0.4875", "q", {"L": 40, "lam": E2},
                  claimed="0.4875", compute=lambda prec=DEFAULT_PREC: local_dp_q(40, E2, prec)))

    def s_local_L40(prec=DEFAULT_PREC):
        return sigma_factor(local_dp_q(40, E2, prec), prec)
    out.append(_E("000-s4-dev-20", P0, "§4, L = 40 example",
                  "The noise that high increases deviation 20 times", "sigma/sqrt(N)",
                  {"L": 40, "lam": E2}, claimed="20", compute=s_local_L40))
    N7 = 10**7
    out.append(_E("000-s4-200K", P0, "§4, L = 40 example",
                  "measured aggregates could deviate 200K units in either direction", "3 sigma",
                  {"N": N7, "L": 40, "lam": E2}, claimed="200K",
                  compute=lambda prec=DEFAULT_PREC: _mul(s_local_L40(prec), _mul(_sqrtN(N7), 3, prec), prec),
                  alternatives={"1 sigma": lambda prec=DEFAULT_PREC: _mul(s_local_L40(prec), _sqrtN(N7), prec)},
                  note="'in either direction' read as 3 sigma, the convention of 003 §1.1 (sigma = 6, "
                  "'error roughly 18 in either direction'). Under the 1-significant-digit reading of "
                  "'200K' (tolerance(..., 'insignificant')) 3 sigma is consistent."))
    out.append(_E("000-s4-q-suff-L40", P0, "§4, L = 40 example (and §6.1)",
                  "L = 40, N = 10M, lambda = e^2: sufficient noise q = 0.351", "q",
                  {"N": N7, "L": 40, "lam": E2, "beta": 3}, claimed="0.351", compute=_q313(N7, 40, E2),
                  alternatives={"(3.12)": _q313(N7, 40, E2, "3.12"), "(3.15)+(3.16) phi route": _q_phi(N7, 40, E2),
                   "(6.3), k = 1": lambda prec=DEFAULT_PREC: kr_q(N7, 40, E2, 1, 3, _DIG).interval}))
    out.append(_E("000-s4-dev-1.6", P0, "§4, L = 40 example",
                  "q = 0.351 multiplies deviation only by 1.6", "sigma/sqrt(N)", {"q": "0.351"}, claimed="1.6",
                  compute=lambda prec=DEFAULT_PREC: sigma_factor("0.351", prec),
                  alternatives={"at the certified (3.13) q": lambda prec=DEFAULT_PREC:
                      sigma_factor(sigma3_q(N7, 40, E2, "3.13", 3, _DIG), prec)}))
    out.append(_E("000-s4-ratio-12.5", P0, "§4, L = 40 example", "(the 12.5 precision increase again)",
                  "sigma ratio", {"L": 40, "lam": E2, "q_suff": "0.351"}, claimed="12.5",
                  compute=lambda prec=DEFAULT_PREC: _div(s_local_L40(prec), sigma_factor("0.351", prec), prec),
                  alternatives={"end to end with the certified (3.13) q": lambda prec=DEFAULT_PREC: _div(
                      s_local_L40(prec), sigma_factor(sigma3_q(N7, 40, E2, "3.13", 3, _DIG), prec), prec)}))
    out.append(_E("000-s4-err-15K", P0, "§4, L = 40 example",
                  "the measurer will be able to estimate with the error not exceeding 15K", "3 sigma",
                  {"N": N7, "q": "0.351"}, claimed="15K",
                  compute=lambda prec=DEFAULT_PREC: _mul(sigma_dhat(N7, "0.351", 1, prec), 3, prec),
                  alternatives={"1 sigma": lambda prec=DEFAULT_PREC: sigma_dhat(N7, "0.351", 1, prec)}))
    out.append(_E("000-s4-1pct-10pct", P0, "§4, L = 40 example",
                  "sufficient to estimate even 1% of the population with 10% error", "relative error",
                  {"N": N7, "q": "0.351", "d": "N/100"}, claimed="10%",
                  compute=lambda prec=DEFAULT_PREC: _mul(sigma_dhat(N7, "0.351", 1, prec), F(3, N7 // 100), prec),
                  alternatives={"1 sigma": lambda prec=DEFAULT_PREC: _mul(sigma_dhat(N7, "0.351", 1, prec), F(1, N7 // 100), prec),
                   "printed 15K / 100K": lambda prec=DEFAULT_PREC: Interval.exact(F(15000, N7 // 100))},
                  note="error = 3 sigma(d_hat) relative to d = 1% of N = 100K."))
    # ---- 003 §0.1, §1.1, §1.3
    N3 = 1000

    def q019(prec=DEFAULT_PREC):
        return q_003_0_19(N3, 2, prec)
    out.append(_E("003-s0.1-q-0.19", P3, "§0.1 (0.19)", "lambda = 2, N = 1000: q = 0.032527", "q",
                  {"N": N3, "lam": 2}, claimed="0.032527", compute=q019,
                  alternatives={"(2.33) with L = 1": lambda prec=DEFAULT_PREC: q_003_2_33(N3, 1, 2, prec)}))
    out.append(_E("003-s1.1-q-0.0325", P3, "§1.1", "N = 1000, lambda = 2: q = 0.0325", "q",
                  {"N": N3, "lam": 2}, claimed="0.0325", compute=q019))
    out.append(_E("003-s0.1-q-abs", P3, "§0.1 (0.21)", "p/q <= 2 gives q >= 1/3 = 0.333", "q",
                  {"lam": 2}, claimed="0.333", compute=lambda prec=DEFAULT_PREC: local_dp_q(1, 2, prec)))
    out.append(_E("003-s0.1-noise-10x", P3, "§0.1 after (0.21)", "reduce RRT noise 10 times",
                  "q ratio", {"N": N3, "lam": 2}, claimed="10",
                  compute=lambda prec=DEFAULT_PREC: _div(local_dp_q(1, 2, prec), q019(prec), prec)))
    out.append(_E("003-s0.1-sigma-classical", P3, "§0.1 after (0.21), (1.4) k = 1",
                  "classical case (q = 1/3): estimation deviation sigma = 44.7", "sigma",
                  {"N": N3, "q": "1/3"}, claimed="44.7", compute=lambda prec=DEFAULT_PREC: sigma_003_1_4(N3, F(1, 3), 1, prec),
                  alternatives={"sigma(S) = sqrt(pqN)": lambda prec=DEFAULT_PREC: _mul(sigma_dhat(N3, F(1, 3), 1, prec), F(1, 3), prec)}))
    out.append(_E("003-s0.1-sigma-local", P3, "§0.1 after (0.21), (1.4) k = 1",
                  "local privacy (q by (0.19)): deviation sigma = 5.6", "sigma", {"N": N3, "lam": 2},
                  claimed="5.6", compute=lambda prec=DEFAULT_PREC: sigma_003_1_4(N3, q019(prec), 1, prec),
                  alternatives={"sigma(S) = sqrt(pqN) (count, not estimate)": lambda prec=DEFAULT_PREC: _sqrt_pqN(N3, q019(prec), prec),
                   "(0.16) bound 3/(1 - 1/lam)": lambda prec=DEFAULT_PREC: sigma_bound_003_0_16(2, prec)},
                  note="(0.19) makes (0.17) an equality, so sigma(T_bar) equals the (0.16) bound 6 exactly."))
    out.append(_E("003-s0.1-fold-8", P3, "§0.1 after (0.21)", "precision of RRT estimates had grown 8 fold",
                  "sigma ratio", {"N": N3, "lam": 2}, claimed="8",
                  compute=lambda prec=DEFAULT_PREC: _div(sigma_003_1_4(N3, F(1, 3), 1, prec),
                                                 sigma_003_1_4(N3, q019(prec), 1, prec), prec),
                  alternatives={"printed 44.7 / printed 5.6": lambda prec=DEFAULT_PREC: Interval.exact(F("44.7") / F("5.6"))}))
    for eq, which, q, side, claimed in (("0.26", "S", "0.333", 0, "198.9"), ("0.26", "S", "0.333", 1, "467.1"),
                                        ("0.27", "S_m", "0.333", 0, "198.6"), ("0.27", "S_m", "0.333", 1, "467.8"),
                                        ("0.28", "S", "0.033", 0, "16.05"), ("0.28", "S", "0.033", 1, "49.94"),
                                        ("0.29", "S_m", "0.033", 0, "17.02"), ("0.29", "S_m", "0.033", 1, "50.91")):
        exact_q = F(1, 3) if q == "0.333" else None
        alts = {"q exact (" + ("1/3" if exact_q else "(0.19)") + ")":
                (lambda prec=DEFAULT_PREC, w=which, s=side, eq_=exact_q:
                 ci_003(N3, eq_ if eq_ is not None else q019(prec), w, 3, prec)[s])}
        if q == "0.333":
            alts["E at q = 0.333 -/+ 3 sigma(T_bar) (estimate deviation, (1.4) at q = 1/3)"] = (
                lambda prec=DEFAULT_PREC, w=which, s=side: _ci_with_sigma_T(N3, w, s, prec))
            alts["E at q = 0.333 -/+ 3 x printed 44.7"] = (
                lambda prec=DEFAULT_PREC, w=which, s=side: _ci_with_sigma_T(N3, w, s, prec, F("44.7")))
        out.append(_E(f"003-s0.1-ci-{eq}-{'lo' if side == 0 else 'hi'}", P3, f"§0.1 ({eq})",
                      f"q = {q}: confidence interval of {which}, {'lower' if side == 0 else 'upper'} end = {claimed}",
                      "ci", {"N": N3, "q": q, "which": which, "beta": 3}, claimed=claimed,
                      compute=lambda prec=DEFAULT_PREC, w=which, s=side, q=q: ci_003(N3, q, w, 3, prec)[s],
                      alternatives=alts, note="mean -/+ 3 sigma with (0.22)-(0.25) as printed, at the printed q."))
    out.append(_E("003-s1.1-sigma-6", P3, "§1.1 intro, (0.16)", "the deviation of the estimate is sigma = 6",
                  "sigma", {"N": N3, "lam": 2}, claimed="6", compute=lambda prec=DEFAULT_PREC: sigma_003_1_4(N3, q019(prec), 1, prec),
                  alternatives={"(0.16) bound": lambda prec=DEFAULT_PREC: sigma_bound_003_0_16(2, prec)}))
    out.append(_E("003-s1.1-err-18", P3, "§1.1 intro", "estimation error roughly 18 in either direction",
                  "3 sigma", {"N": N3, "lam": 2}, claimed="18",
                  compute=lambda prec=DEFAULT_PREC: _mul(sigma_003_1_4(N3, q019(prec), 1, prec), 3, prec)))

    def q123(prec=DEFAULT_PREC):
        return q_003_1_23(N3, 2, 16, prec)
    out.append(_E("003-s1.3-q-k16", P3, "§1.3 (1.23)", "N = 1000, lambda = 2, k = 16: q = 0.1668", "q",
                  {"N": N3, "lam": 2, "k": 16}, claimed="0.1668", compute=q123))
    out.append(_E("003-s1.3-sigma-k16", P3, "§1.3 (1.24)", "k = 16, q = 0.1668: sigma = 4.42", "sigma",
                  {"N": N3, "q": "0.1668", "k": 16}, claimed="4.42",
                  compute=lambda prec=DEFAULT_PREC: sigma_003_1_4(N3, "0.1668", 16, prec),
                  alternatives={"at the certified (1.23) q": lambda prec=DEFAULT_PREC: sigma_003_1_4(N3, q123(prec), 16, prec)}))
    out.append(_E("003-s1.3-gain-25pct", P3, "§1.3 after (1.24)",
                  "we gain 25% precision increase by repeating randomization 16 times", "precision gain",
                  {"N": N3, "lam": 2, "k": "1 -> 16"}, claimed="25%",
                  compute=lambda prec=DEFAULT_PREC: _sub(_div(sigma_003_1_4(N3, q019(prec), 1, prec),
                                                      sigma_003_1_4(N3, q123(prec), 16, prec), prec),
                                                 Interval.exact(1)),
                  alternatives={"1 - sigma16/sigma1": lambda prec=DEFAULT_PREC: _sub(Interval.exact(1), _div(
                      sigma_003_1_4(N3, q123(prec), 16, prec), sigma_003_1_4(N3, q019(prec), 1, prec), prec)),
                   "printed 5.6 / sigma16 - 1": lambda prec=DEFAULT_PREC: _sub(_div(
                       Interval.exact(F("5.6")), sigma_003_1_4(N3, q123(prec), 16, prec), prec), Interval.exact(1))},
                  note="gain = sigma(k=1)/sigma(k=16) - 1, sigma(k=1) from (1.4) at the (0.19) q."))
    return out


def _sqrt_pqN(N, q, prec):
    with flint.ctx.workprec(prec):
        qa = _arb(q)
        return _iv((qa * (1 - qa) * N).sqrt())


def _ci_with_sigma_T(N, which, side, prec, sigma=None):
    """(0.22)/(0.24) mean at the printed q = 0.333, half-width 3 sigma(T_bar) instead of 3 sigma(S)."""
    q = F("0.333")
    with flint.ctx.workprec(prec):
        mean = _arb(q) * N + (0 if which == "S" else 1 - _arb(q))
        w = 3 * _arb(sigma_dhat(N, F(1, 3), 1, prec) if sigma is None else sigma)
        return _iv(mean - w if side == 0 else mean + w)


PRINTED_NUMBERS: list[dict] = _build_printed()


def entry(id: str) -> dict:
    """The :data:`PRINTED_NUMBERS` entry with this id.

    >>> entry("000-s4-q-local-L5")["claimed"]
    '0.465'
    """
    for e in PRINTED_NUMBERS:
        if e["id"] == id:
            return e
    raise KeyError(id)


# ------------------------------------------------------- formula-level notes
FORMULA_NOTES: list[dict] = [
    {"source": PAPER_000, "location": "§3.2 (3.13)",
     "finding": "(3.13) >= (3.12) for all q (difference of means 1/N, of variances "
                "(phi^L + N - 1)/N^2 > 0): (3.13) is a larger upper estimate of mu + 3 sigma, i.e. a "
                "looser bound / stricter condition giving larger q -- not 'tighter' as the text says."},
    {"source": PAPER_000, "location": "§3.2 (3.15)",
     "finding": "(3.15) is identical to (3.13): (phi+1)^2 - phi - 2 = phi^2 + phi - 1."},
    {"source": PAPER_000, "location": "§3.2 (3.16)",
     "finding": "(3.16) is the correct inverse of (3.14) on (0, 1/2] (root r = p/q > 1 of r^2 - (phi+1) r + 1)."},
    {"source": PAPER_000, "location": "§3.2, p^5+q^5 identity",
     "finding": "middle step prints the denominator (pq)^4; it must be (pq)^2 (the final identity "
                "phi^2 + phi - 1 is right)."},
    {"source": PAPER_000, "location": "§3.3",
     "finding": "the text writes lambda = e^{0.693} = 2; e^{0.693} = 1.99983... != 2. The N = 1000 q = 0.2446 "
                "is reproduced only by (3.12) with lambda = e^{0.693}; the N = 5000 q = 0.1778 is not "
                "reproduced by any form (it is (3.12)/(3.13) at N = 10000)."},
    {"source": PAPER_000, "location": "§3.4 (3.17)",
     "finding": "line 3 does not follow from line 2: it prints phi^L where the algebra gives phi^(2L). "
                "Also 'p^3 5 + q^5' typo; and the table is headed lambda = 2 while using the lambda = e^2 rows."},
    {"source": PAPER_000, "location": "§6",
     "finding": "sigma(d_hat) printed as sqrt(N/k * sqrt(qp)/(p-q)); consistent with §4 and 003 (1.4) is "
                "sqrt(qpN/k)/(p-q)."},
    {"source": PAPER_000, "location": "§6 (6.2) vs (3.12)/(3.13)",
     "finding": "at k = 1, (6.3) is strictly between (3.12) and (3.13) (its variance term has -1/N)."},
    {"source": PAPER_000, "location": "§6.1",
     "finding": "text announces lambda = 2, N = 1,000,000 then uses L = 40, N = 10M, lambda = e^2."},
    {"source": PAPER_003, "location": "§1.3 (1.19)-(1.21)",
     "finding": "(1.19) has (1 - 3(p-q)/sqrt(qpkN))^k, (1.20)-(1.21) switch to 1 + ...; (1.22)-(1.23) "
                "follow from the minus sign."},
    {"source": PAPER_003, "location": "§2.1.2 (2.30)",
     "finding": "root index printed as 1; (2.31)-(2.33) use the L-th root."},
    {"source": PAPER_003, "location": "§0.1",
     "finding": "sigma = 44.7 is sigma(T_bar) (estimate) but sigma = 5.6 is sigma(S) = sqrt(pqN) (count); "
                "sigma(T_bar) at the (0.19) q is exactly 6 (the (0.16) bound, as §1.1 says)."},
]
