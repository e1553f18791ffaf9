"""The law of the privacy ratio R as a scipy-shaped distribution object.

:func:`from_randomized_response` returns a :class:`PrivacyRatio` (one
direction) or a :class:`WorstCase` (the larger of the two).  Every exact query
returns an :class:`~exactdp.interval.Interval` that provably contains the true
value; ``method="fast"`` returns an :class:`Estimate` (float64, with its error
bound stated).

Directions (paper 000 §1.3, (3.5)-(3.6); 003 §2.1):

* ``forward``: S ~ A(D_m) with D = N zero vectors, D_m = N-1 zeros + one ones
  vector; ``R = P(S|D_m)/P(S|D) = X/N``.
* ``reverse``: S ~ A(D); ``R = P(S|D)/P(S|D_m) = N/X``.

Queries: ``sf(x) = P[R > x]``, ``cdf(x) = P[R <= x]`` (each summed directly),
``eta(lam) = P[R > lam]`` (``inclusive=True``: ``P[R >= lam]``),
``delta(lam) = E[(1 - lam/R)+]`` (hockey-stick divergence), ``epsilon`` (the
smallest eps with delta or eta below a target), ``mean``/``var``,
``quantile``, ``bin_masses``.

>>> d = from_randomized_response(3, 2, "1/3")
>>> iv = d.eta(lam=2)            # P[R > 2]: a certified enclosure
>>> iv.contains(Fraction(73, 729)), float(iv.width) < 1e-20
(True, True)
>>> d.mean() == 1 + Fraction(1, 3) * ((Fraction(2, 3)**3 + Fraction(1, 3)**3) / Fraction(2, 9))**2 - Fraction(1, 3)
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, ctx, fmpq

from . import domains
from .errors import CapacityError, ParameterError, PrecisionError
from .interval import Interval, arb_to_interval
from .kernel import Threshold, lam_threshold, tail_sums
from .mechanism import Mechanism

__all__ = ["PrivacyRatio", "WorstCase", "Estimate", "from_randomized_response", "FAST_TOL"]

#: subtree mass below which fast mode does not expand (its mass enters the error bound)
FAST_TOL = 1e-14


@dataclass(frozen=True)
class Estimate:
    """A fast-mode (float64) value with a stated error bound.

    ``lower``/``upper`` enclose the value up to the stated bound: the truncated
    mass is bounded rigorously, the float64 rounding by an a-priori allowance
    (see :mod:`exactdp.fastkernel`).  It is labelled an estimate because the
    rounding allowance is not machine-certified.
    """

    value: float
    error: float
    label: str = "fast estimate (float64)"

    @property
    def lower(self) -> Fraction:
        return Fraction(self.value) - Fraction(self.error)

    @property
    def upper(self) -> Fraction:
        return Fraction(self.value) + Fraction(self.error)

    def contains(self, x) -> bool:
        return self.lower <= Fraction(x) <= self.upper

    @property
    def relative_error(self) -> float:
        """``error / |value|`` (inf when the value is 0 and the error is not)."""
        if self.error == 0:
            return 0.0
        return float(self.error / abs(self.value)) if self.value != 0 else math.inf

    @property
    def bound_only(self) -> bool:
        """True when the error bound is at least the value: only ``< upper`` is known."""
        return bool(self.error >= abs(self.value) and self.error > 0)

    def to_dict(self, digits: int = 17) -> dict:
        return {"value": repr(self.value), "error_bound": f"{self.error:.3g}",
                "relative_error": f"{self.relative_error:.3g}", "bound_only": self.bound_only,
                "lower": repr(float(self.lower)), "upper": repr(float(self.upper)),
                "label": self.label}

    def __str__(self) -> str:
        """``value +- error (relative r)``, or ``< bound`` when the error exceeds the value.

        >>> str(Estimate(0.25, 1e-17)), str(Estimate(6.5e-30, 2e-10))
        ('0.25 +- 1e-17 (relative 4e-17; fast estimate)', '< 2e-10 (fast estimate; the error bound 2e-10 exceeds the value)')
        >>> Estimate(6.5e-30, 2e-10)
        Estimate(6.5e-30 +- 2e-10, bound only)
        """
        if self.bound_only:
            return (f"< {float(self.upper):.3g} (fast estimate; the error bound {self.error:.3g} "
                    f"exceeds the value)")
        return f"{self.value:.12g} +- {self.error:.2g} (relative {self.relative_error:.1g}; fast estimate)"

    def __repr__(self) -> str:
        tail = ", bound only" if self.bound_only else ""
        return f"Estimate({self.value!r} +- {float(self.error):.3g}{tail})"

    def __float__(self):
        return self.value


def _mul_pos(a: Interval, b: Interval) -> Interval:
    """Product of two nonnegative intervals."""
    return Interval(a.lower * b.lower, a.upper * b.upper)


def _div_pos(a: Interval, b: Interval) -> Interval:
    return Interval(a.lower / b.upper, a.upper / b.lower)


def _lam_spec(lam, eps):
    """Validate (lam xor eps) and return (lam Fraction or None, eps Fraction or None)."""
    if (lam is None) == (eps is None):
        raise ParameterError("give exactly one of lam (lambda = e^eps >= 1) or eps (>= 0)")
    if lam is not None:
        return domains.LAM.parse(lam), None
    return None, domains.EPS.parse(eps)


def _lam_interval(lam, eps, prec=256) -> Interval:
    if lam is not None:
        return Interval.exact(lam)
    with ctx.workprec(prec):
        return arb_to_interval(arb(fmpq(eps.numerator, eps.denominator)).exp())


@dataclass(frozen=True)
class PrivacyRatio:
    """Law of R for the canonical pair in one direction (see module doc)."""

    N: int
    mechanism: Mechanism
    direction: str = "forward"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "N", domains.N.parse(self.N))
        if self.direction not in ("forward", "reverse"):
            raise ParameterError(f"direction must be forward or reverse, got {self.direction!r}")

    @property
    def L(self) -> int:
        return self.mechanism.L

    @property
    def q(self) -> Fraction:
        return self.mechanism.q

    @property
    def _norm(self) -> int:
        """``N (ab)^L``: forward ``R = Z / norm``, reverse ``R = norm / Z``."""
        return self.N * self.mechanism.scale

    # ------------------------------------------------------------------ engine
    def _threshold(self, x, eps, prec) -> Threshold:
        """Threshold on Z equivalent to R vs x (or e^eps)."""
        norm = Fraction(self._norm)
        return lam_threshold(norm, lam=x, eps=eps, invert=(self.direction == "reverse"), prec=prec)

    def _fast(self, thr: Threshold, tol: float):
        key = ("fast", thr.num, thr.den, tol)
        r = self._cache.get(key)
        if r is None:
            from .fastkernel import fast_tail_sums  # numpy only when the float path runs
            r = fast_tail_sums(self.mechanism, self.N, thr.num, thr.den, thr.exact, tol=tol)
            self._cache[key] = r
        return r

    def _rounding(self) -> float:
        from .fastkernel import REL_ROUNDING
        n = max(self.N, 2)
        return REL_ROUNDING + 8 * 2.0**-53 * (self.L + 1) * (n * math.log(n) + 10)

    def _exact(self, x, eps, digits, quantity, progress=None, max_seconds=None, fallback=None):
        """Run the certified kernel with tolerance/precision refined until the
        relative width of ``quantity(tailsums)`` is at most 10^-digits.  When the
        fast run predicts more than ``max_seconds``, ``fallback()`` (the Fourier
        strategy) answers instead if given and able to."""
        prec = int(3.33 * digits) + 64
        thr = self._threshold(x, eps, prec)
        fast_thr = thr
        # magnitude estimate from fast mode (truncation relative to the quantity)
        ftol = 1e-16
        for _ in range(8):
            f = self._fast(thr, ftol)
            est = abs(quantity(f, fast=True))
            if est > ftol * 1e8 or ftol <= 1e-290:
                break
            ftol = max(est * 1e-10 if est > 0 else ftol * 1e-40, 1e-300)
        rmax = float(self.mechanism.ratio_max)
        scale_guess = est if est > 0 else 1e-300
        tol = max(scale_guess * 10.0**(-digits) * 1e-3 / max(1.0, rmax), 1e-300)
        try:
            self._capacity_check(f, tol, max_seconds)
        except CapacityError:
            if fallback is None:
                raise
            try:
                return fallback()
            except (PrecisionError, CapacityError):
                pass
            raise
        for attempt in range(5):
            key = ("exact", thr.num, thr.den, tol, prec)
            ts = self._cache.get(key)
            if ts is None:
                ts = tail_sums(self.mechanism, self.N, thr, prec=prec, tol=tol, progress=progress)
                self._cache[key] = ts
            iv = quantity(ts, fast=False)
            if iv.is_exact or iv.relative_width() <= 10.0**(-digits):
                return iv
            if iv.upper == 0:
                return iv
            # refine: truncation proportional to the excess width, more bits for rounding
            excess = iv.relative_width() / 10.0**(-digits)
            tol = max(tol / min(max(100.0, 10 * excess), 1e12), 1e-300)
            prec += 64
            thr = self._threshold(x, eps, prec)
        return iv

    def _capacity_check(self, f, tol, max_seconds):
        """Predict the certified node count from the fast run; refuse early."""
        if max_seconds is None:
            return
        ratio = math.sqrt(max(1.0, math.log(1 / tol)) / math.log(1e16))
        pred_nodes = f.nodes * ratio ** max(1, self.L - 1)
        pred_seconds = pred_nodes * 1.2e-5
        if pred_seconds > max_seconds:
            raise CapacityError(
                f"certified computation for N={self.N}, L={self.L} would take about "
                f"{pred_seconds:.0f} s (> {max_seconds:.0f} s allowed); use method='fast' "
                "(--fast) or fewer digits")

    # ---------------------------------------------------------- strategies
    def choose_method(self, *, fast: bool = False) -> str:
        """The certified strategy ``method="exact"`` uses: ``"tree"`` (the
        conditioning kernel) while its predicted node count is within
        :data:`exactdp.capacity.MAX_NODES` (1000 times more for ``fast``, the float
        tree), else ``"fourier"`` (:mod:`exactdp.largen`, cost independent of N).

        >>> from_randomized_response(1000, 5, "0.2446").choose_method()
        'tree'
        >>> from_randomized_response(10**7, 40, "0.351").choose_method()
        'fourier'
        """
        from .capacity import MAX_NODES, estimate_nodes
        # the float tree (``fast``) is ~30x cheaper per node: it keeps the tree 1000x longer
        limit = MAX_NODES * (1000 if fast else 1)
        return "tree" if estimate_nodes(self.mechanism, self.N) <= limit else "fourier"

    def _split(self, s_kind, x, eps, digits, excess=False):
        """Certified query by the heavy/light Fourier strategy (:mod:`exactdp.largen`).

        ``x`` (or ``e^eps``) is the threshold on S = X/N (forward) or on 1/S
        (reverse); ``s_kind`` picks the field of :class:`~exactdp.largen.SplitSums`.
        The truncation ``tol`` is tightened until the relative width is at most
        ``10^-digits`` or three attempts are spent.
        """
        from .largen import split_sums
        fwd = self.direction == "forward"
        prec = 160
        with ctx.workprec(prec):
            if x is not None:
                s = arb(fmpq(x.numerator, x.denominator))
            else:
                s = arb(fmpq(eps.numerator, eps.denominator)).exp()
            if not fwd:
                s = 1 / s
        outlier = fwd and not excess
        key = ("split", s_kind, x, eps, digits, excess)
        if key in self._cache:
            return self._cache[key]
        # first as if the value were of order 1 (cheap when few digits are asked), then
        # from the value's magnitude
        tol = max(10.0**(-digits - 4), 1e-30)
        iv = None
        for _ in range(4):
            try:
                r = split_sums(self.mechanism, self.N, s, outlier=outlier, excess=excess,
                               tol=tol, prec=prec)
            except PrecisionError:
                if iv is None:
                    raise
                break       # finer resolution not provable: keep the enclosure we have
            iv = getattr(r, s_kind)
            if iv.upper == 0 or iv.relative_width() <= 10.0**(-digits):
                break
            # at most 100 times finer per attempt (the light law's smoothness is proved
            # at a resolution tied to tol), at least twice
            tol = max(tol * 1e-2, min(float(iv.mid) * 10.0**(-digits) * 1e-3, tol / 2), 1e-30)
        self._cache[key] = iv
        return iv

    # ---------------------------------------------------------- tail queries
    def _x_or_eps(self, x, eps):
        if eps is not None:
            return None, domains.EPS.parse(eps)
        x = domains.to_fraction(x, "x")
        return x, None

    def sf(self, x=None, *, eps=None, inclusive: bool = False, digits: int = 20,
           method: str = "exact", progress=None, max_seconds=None):
        """``P[R > x]`` (``inclusive``: ``P[R >= x]``), summed directly."""
        return self._side(x, eps, True, inclusive, digits, method, progress, max_seconds)

    def cdf(self, x=None, *, eps=None, inclusive: bool = True, digits: int = 20,
            method: str = "exact", progress=None, max_seconds=None):
        """``P[R <= x]`` (``inclusive=False``: ``P[R < x]``), summed directly."""
        return self._side(x, eps, False, inclusive, digits, method, progress, max_seconds)

    def _side(self, x, eps, r_above, inclusive, digits, method, progress, max_seconds):
        """Mass of R above (or below) x.  Forward: R = Z/norm, so the mass is
        ``E_D[Z; Z on that side]/norm`` (change of measure); reverse: R = norm/Z,
        so R above x means Z below the threshold."""
        x, eps = self._x_or_eps(x, eps)
        digits = domains.DIGITS.parse(digits)
        if x is not None and x <= 0:
            v = 1 if r_above else 0
            return Interval.exact(v) if method != "fast" else Estimate(float(v), 0.0)
        if x is not None and x > self.mechanism.ratio_max:  # R <= (p/q)^L in both directions
            v = 0 if r_above else 1
            return Interval.exact(v) if method != "fast" else Estimate(float(v), 0.0)
        fwd = self.direction == "forward"
        if method == "fourier" or (method == "exact" and self.choose_method() == "fourier"):
            # forward: R = S under D_m; reverse: R = 1/S under D (strict and inclusive
            # events share the enclosure); an atomic light law falls back to the tree
            try:
                return self._split("p_above" if r_above == fwd else "p_below", x, eps, digits)
            except PrecisionError:
                if method == "fourier":
                    raise
        z_above = r_above if fwd else not r_above
        norm = self._norm

        def quantity(ts, fast):
            if fast:
                P = (ts.up_P if z_above else ts.lo_P) + (ts.eq_P if inclusive else 0.0)
                if not fwd:
                    return P
                X = ts.up_X if z_above else -ts.lo_X
                return (ts.tau_x * P + X) / self.N
            if fwd:
                e = ts.e_above(inclusive) if z_above else ts.e_below(inclusive)
                return e.scale(Fraction(1, norm)).clip(0, 1)
            return ts.p_above(inclusive) if z_above else ts.p_below(inclusive)

        def fallback():
            return self._split("p_above" if r_above == fwd else "p_below", x, eps, digits)

        return self._query(x, eps, digits, method, quantity, "sf" if r_above else "cdf",
                           progress, max_seconds, fallback)

    def _query(self, x, eps, digits, method, quantity, kind, progress, max_seconds,
               fallback=None):
        if method == "fast" and self.choose_method(fast=True) == "fourier":
            try:
                iv = self._split("p_above" if (kind == "sf") == (self.direction == "forward")
                                 else "p_below", x, eps, 3)
                return Estimate(float(iv.mid), float(iv.width / 2) * (1 + 1e-12),
                                "fast estimate (coarse Fourier enclosure)")
            except PrecisionError:
                pass        # the light law is too atomic to smooth: the float tree instead
        if method == "fast":
            thr = self._threshold(x, eps, 128)
            tol = FAST_TOL
            f = self._fast(thr, tol)
            v = quantity(f, True)
            err = self._fast_error(f, abs(v), kind)
            return Estimate(float(v), err)
        if method != "exact":
            raise ParameterError(f"method must be 'exact', 'fourier' or 'fast', got {method!r}")
        return self._exact(x, eps, digits, quantity, progress, max_seconds, fallback)

    def _fast_error(self, f, value, kind):
        fwd = self.direction == "forward"
        trunc = (f.drop_E / self.N) if fwd else f.drop_P
        return trunc + 1e-16 * 4 + self._rounding() * max(value, 0.0) * 10

    def eta(self, lam=None, eps=None, *, inclusive: bool = False, digits: int = 20,
            method: str = "exact", progress=None, max_seconds=None):
        """eta = ``P[R > lam]`` (``inclusive``: ``>=``) with ``lam = e^eps`` (000 (1.7))."""
        lam, eps = _lam_spec(lam, eps)
        return self.sf(lam, eps=eps, inclusive=inclusive, digits=digits, method=method,
                       progress=progress, max_seconds=max_seconds)

    def delta(self, lam=None, eps=None, *, digits: int = 20, method: str = "exact",
              progress=None, max_seconds=None):
        """delta = ``E[(1 - lam/R)+]`` under the sampling law = ``sum_S (P(S) - lam P'(S))+``."""
        lam, eps = _lam_spec(lam, eps)
        digits = domains.DIGITS.parse(digits)
        fwd = self.direction == "forward"
        norm = self._norm
        lam_iv = _lam_interval(lam, eps)
        scale = self.mechanism.scale

        if method == "fourier" or (method == "exact" and self.choose_method() == "fourier"):
            # forward: E_D[(S - lam)+]; reverse: lam E_D[(1/lam - S)+]
            try:
                iv = self._split("ex_above" if fwd else "ex_below", lam, eps, digits, excess=True)
                return iv.clip(0, 1) if fwd else _mul_pos(iv, _lam_interval(lam, eps)).clip(0, 1)
            except PrecisionError:
                if method == "fourier":
                    raise

        def quantity(ts, fast):
            if fast:
                if fwd:
                    return ts.up_X / self.N
                return ts.lo_X / ts.tau_x
            if fwd:
                return ts.excess_above().scale(Fraction(1, norm)).clip(0, 1)
            tau_iv = arb_to_interval(ts.tau.ball)
            return _div_pos(ts.excess_below(), tau_iv).clip(0, 1)

        if method == "fast":
            thr = self._threshold(lam, eps, 128)
            f = self._fast(thr, FAST_TOL)
            v = quantity(f, True)
            trunc = f.drop_up / self.N if fwd else f.drop_lo / f.tau_x
            err = trunc + 4 * 1e-16 + self._rounding() * abs(v) * 10
            return Estimate(max(float(v), 0.0), err)
        if method != "exact":
            raise ParameterError(f"method must be 'exact', 'fourier' or 'fast', got {method!r}")

        def fallback():
            iv = self._split("ex_above" if fwd else "ex_below", lam, eps, digits, excess=True)
            return iv.clip(0, 1) if fwd else _mul_pos(iv, _lam_interval(lam, eps)).clip(0, 1)

        return self._exact(lam, eps, digits, quantity, progress, max_seconds, fallback)

    # --------------------------------------------------------------- moments
    def _moments_X(self):
        """Exact (E X, Var X) from the definitions (sums over the finite laws)."""
        m = self.mechanism
        c = m.c
        e0 = sum(p * x for p, x in zip(m.pi0, c))
        s0 = sum(p * x * x for p, x in zip(m.pi0, c))
        e1 = sum(p * x for p, x in zip(m.pi1, c))
        s1 = sum(p * x * x for p, x in zip(m.pi1, c))
        if self.direction == "forward":
            n0 = self.N - 1
            return n0 * e0 + e1, n0 * (s0 - e0**2) + (s1 - e1**2)
        return self.N * e0, self.N * (s0 - e0**2)

    def mean(self, *, digits: int = 20):
        """``E R``.  Forward: the exact Fraction ``E X / N`` (000 §3.1).  Reverse
        (``R = N/X``, no closed form): a certified Interval from
        :func:`exactdp.inverse_moments.inverse_moments`."""
        if self.direction == "forward":
            return self._moments_X()[0] / self.N
        return self._reverse_moments(digits)[0]

    def var(self, *, digits: int = 20):
        """``Var R``.  Forward: the exact Fraction ``Var X / N^2`` (000 §3.1);
        reverse: a certified Interval."""
        if self.direction == "forward":
            return self._moments_X()[1] / self.N**2
        return self._reverse_moments(digits)[1]

    def _reverse_moments(self, digits):
        digits = domains.DIGITS.parse(digits)
        key = ("revmom", digits)
        if key not in self._cache:
            from .inverse_moments import inverse_moments
            a, b = inverse_moments(self.mechanism, self.N, prec=int(3.33 * digits) + 96,
                                   tol=10.0**(-digits - 4))
            s = self._norm
            m = a.scale(s)
            e2 = b.scale(s * s)
            v = Interval(max(e2.lower - m.upper**2, Fraction(0)), e2.upper - m.lower**2)
            self._cache[key] = (m, v)
        return self._cache[key]

    def mean_inverse(self) -> Fraction:
        """Exact ``E[1/R]`` (reverse: ``E X / N``, 003 (2.15))."""
        if self.direction != "reverse":
            raise NotImplementedError("mean_inverse is defined for the reverse direction")
        return self._moments_X()[0] / self.N

    def var_inverse(self) -> Fraction:
        """Exact ``Var[1/R]`` (reverse: ``Var X / N^2``, 003 (2.25))."""
        if self.direction != "reverse":
            raise NotImplementedError("var_inverse is defined for the reverse direction")
        return self._moments_X()[1] / self.N**2

    def support_max(self) -> Fraction:
        """Largest value of R: ``(p/q)^L`` attained with positive probability."""
        return self.mechanism.ratio_max

    # --------------------------------------------------------------- inverse queries
    def epsilon(self, *, delta=None, eta=None, digits: int | None = None, progress=None,
                max_seconds=None) -> Interval:
        """Smallest eps with delta(eps) <= target (or eta(eps) <= target), certified.

        ``digits`` (relative width of the bracket) defaults to 10, or to 4 (also the
        maximum) beyond the tree's capacity (:func:`exactdp.queries.smallest_epsilon`).

        Returns an Interval ``[eps_lo, eps_hi]``: the target is certified to be
        violated at ``eps_lo`` (inner end, by the monotonicity of delta/eta in
        eps) and met at ``eps_hi``.
        """
        from .queries import smallest_epsilon
        return smallest_epsilon(self, delta=delta, eta=eta, digits=digits,
                                progress=progress, max_seconds=max_seconds)

    def quantile(self, prob, *, digits: int = 10, method: str = "exact") -> Interval:
        """``inf {x : P[R <= x] >= prob}``, enclosed in an Interval."""
        from .queries import quantile
        return quantile(self, prob, digits=digits, method=method)

    def bin_masses(self, edges, *, digits: int = 15, method: str = "exact", progress=None):
        """``P[edges[i] < R <= edges[i+1]]`` for consecutive edges."""
        from .queries import bin_masses
        return bin_masses(self, edges, digits=digits, method=method, progress=progress)

    def to_dp_accounting(self, **kw):
        """dp_accounting PLD dominating this law (see :func:`exactdp.export.to_dp_accounting`)."""
        from .export import to_dp_accounting
        return to_dp_accounting(self, **kw)


@dataclass(frozen=True)
class WorstCase:
    """The larger of the forward and reverse directions, per query."""

    forward: PrivacyRatio
    reverse: PrivacyRatio
    direction: str = "worst"

    @property
    def N(self):
        return self.forward.N

    @property
    def mechanism(self):
        return self.forward.mechanism

    def _max(self, a, b):
        if isinstance(a, Interval):
            return Interval.hull_max(a, b)
        return a if a.value >= b.value else b

    def eta(self, lam=None, eps=None, **kw):
        """max(eta_forward, eta_reverse)."""
        return self._max(self.forward.eta(lam, eps, **kw), self.reverse.eta(lam, eps, **kw))

    def delta(self, lam=None, eps=None, **kw):
        """max(delta_forward, delta_reverse)."""
        return self._max(self.forward.delta(lam, eps, **kw), self.reverse.delta(lam, eps, **kw))

    def epsilon(self, *, delta=None, eta=None, digits: int | None = None, progress=None,
                max_seconds=None):
        """Smallest eps meeting the target in both directions."""
        a = self.forward.epsilon(delta=delta, eta=eta, digits=digits, progress=progress,
                                 max_seconds=max_seconds)
        b = self.reverse.epsilon(delta=delta, eta=eta, digits=digits, progress=progress,
                                 max_seconds=max_seconds)
        return Interval.hull_max(a, b)

    def to_dp_accounting(self, **kw):
        """dp_accounting PLD dominating this law (see :func:`exactdp.export.to_dp_accounting`)."""
        from .export import to_dp_accounting
        return to_dp_accounting(self, **kw)


def from_randomized_response(N, L, q, direction: str = "forward"):
    """Law of R for N users, L bits, flip probability q (exact), in a direction.

    ``direction`` is ``"forward"``, ``"reverse"`` or ``"worst"``.  Mirrors
    dp_accounting's ``from_randomized_response`` factory.
    """
    direction = domains.parse_direction(direction)
    mech = Mechanism(L, q)
    if direction == "worst":
        return WorstCase(PrivacyRatio(N, mech, "forward"), PrivacyRatio(N, mech, "reverse"))
    return PrivacyRatio(N, mech, direction)
