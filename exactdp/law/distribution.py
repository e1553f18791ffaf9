"""The law of the privacy ratio R as a scipy-shaped distribution object.

:func:`from_randomized_response` returns a :class:`PrivacyRatio` (one
direction) or a :class:`WorstCase` (the larger of the two).  Every exact query
returns an :class:`~exactdp.core.interval.Interval` that provably contains the true
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

from ..core import domains
from ..core.cache import Cache
from ..core.errors import CapacityError, DigitsNotMetError, ParameterError, PrecisionError
from ..core.interval import Interval, arb_to_interval
from ..core.lam import exp_ball, exp_interval, lam_interval, parse_lam_eps
from ..engine.kernel import Threshold, lam_threshold, tail_sums
from ..core.estimate import Estimate
from ..model.mechanism import Mechanism
from ..model.pair import Pair, canonical_pair
from ..core.precision import log10_abs, meets_digits, require_digits, tolerance

__all__ = ["PrivacyRatio", "WorstCase", "Estimate", "from_randomized_response", "from_pair",
           "FAST_TOL"]

#: subtree mass below which fast mode does not expand (its mass enters the error bound)
FAST_TOL = 1e-14
#: fast mode up to this N and L tries the compiled float walk first, within
#: FAST_COMPILED_FIRST_NODES nodes (e.g. ~35k at N = 5000, L = 5; a walk stopped at the
#: budget costs ~0.5 s), before predicting the tree's size (which imports numpy, ~0.1 s)
FAST_COMPILED_FIRST_MAX_N = 20_000
FAST_COMPILED_FIRST_MAX_L = 6
FAST_COMPILED_FIRST_NODES = 250_000
#: truncation of the fast run that estimates a certified query's magnitude (refined when
#: the quantity is below 1e3 times it); its node count also predicts the certified tree's
#: time when a time limit is given (``PrivacyRatio._capacity_check``)
_MAGNITUDE_TOL = 1e-8
#: the same without a time limit: only the magnitude is needed, and a run at 1e-6 (about
#: 40 % of the instructions of one at 1e-8 at N = 5000) accepted when the quantity exceeds
#: 10 times it -- the same 1e-5 below which both refine; its estimate is a lower end
#: within ~10 % on the issue-16 queries (a truncation ~10 % finer than needed)
_MAGNITUDE_TOL_COARSE = 1e-6


def _mul_pos(a: Interval, b: Interval) -> Interval:
    """Product of two nonnegative intervals."""
    return Interval(a.lower * b.lower, a.upper * b.upper)


def _div_pos(a: Interval, b: Interval) -> Interval:
    return Interval(a.lower / b.upper, a.upper / b.lower)


@dataclass(frozen=True)
class PrivacyRatio:
    """Law of R for a neighbouring pair (see module doc).

    ``direction`` is ``"forward"`` (000's pair), ``"reverse"`` (its reverse) --
    both with the tree and Fourier strategies of any size -- or ``"pair"``: the
    general :class:`~exactdp.model.pair.Pair` in ``pair``, whose queries go through the
    strategies of :mod:`exactdp.reductions.methods`.  Build it with :func:`from_pair` or
    :func:`from_randomized_response`.
    """

    N: int
    mechanism: Mechanism
    direction: str = "forward"
    pair: Pair | None = None
    #: explicit memo of computed tail sums and enclosures (:class:`~exactdp.core.cache.Cache`)
    cache: Cache = field(default_factory=Cache, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "N", domains.N.parse(self.N))
        if self.direction not in ("forward", "reverse", "pair"):
            raise ParameterError(f"direction must be forward or reverse, got {self.direction!r}")
        if self.pair is None:
            if self.direction == "pair":
                raise ParameterError("direction 'pair' needs the pair")
            P = canonical_pair(self.N, self.mechanism.L)
            object.__setattr__(self, "pair", P if self.direction == "forward" else P.reverse())

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

    def _fast(self, thr: Threshold, tol: float, sums=None, row_tol: float = 1e-6, *,
              compiled_only: bool = False):
        """Fast tail sums at ``thr``, cached per threshold, tolerance, ``sums`` and
        ``row_tol``: ``sums`` is ``None`` (everything) or ``(side, excess)``, the part a query
        reads (``side`` ``"above"`` or ``"below"`` tau, ``excess`` False: probabilities
        only; the rest is NaN); ``row_tol`` as in
        :func:`exactdp.engine.fastkernel.fast_tail_sums` (1/2 for the magnitude run);
        ``compiled_only``: ``None`` where only the numpy float tree could answer (remembered:
        a later call goes to the numpy tree at once)."""
        key = ("fast", thr.num, thr.den, tol) + ((sums,) if sums else ()) + ((row_tol,) if row_tol != 1e-6 else ())
        r = self.cache.get(key)
        if r is None:
            from ..engine.fastkernel import fast_tail_sums  # numpy only when the float path runs
            side, excess = sums or (None, True)
            failed = ("fast-compiled-exceeded",) + key
            if compiled_only and failed in self.cache:
                return None
            r = fast_tail_sums(self.mechanism, self.N, thr.num, thr.den, thr.exact, tol=tol, side=side,
                               excess=excess, row_tol=row_tol,
                               compiled=True if compiled_only else (False if failed in self.cache else None),
                               **({"compiled_max_nodes": FAST_COMPILED_FIRST_NODES} if compiled_only else {}))
            if r is None:
                self.cache[failed] = True
                return None
            self.cache[key] = r
        return r

    def _rounding(self) -> float:
        from ..engine.fastkernel import REL_ROUNDING
        n = max(self.N, 2)
        return REL_ROUNDING + 8 * 2.0**-53 * (self.L + 1) * (n * math.log(n) + 10)

    def _exact(self, x, eps, digits, quantity, progress=None, max_seconds=None, *, what="query",
               fallback=None, sums=None):
        """Run the certified kernel with tolerance/precision refined until the
        relative width of ``quantity(tailsums)`` is at most 10^-digits, or raise
        :class:`~exactdp.core.errors.DigitsNotMetError` with what was reached.  When the
        fast run predicts more than ``max_seconds``, ``fallback()`` (the Fourier
        strategy) answers instead if given and able to.  ``sums = (side, excess)`` is the
        part ``quantity`` reads (one side of tau; ``excess`` False: its probabilities only):
        the compiled walks then sum only that (:func:`exactdp.engine.kernel.tail_sums`;
        cached per part).

        The truncation tolerance is kept as ``log10`` and handed to the kernel
        as an arb power of two (:func:`exactdp.core.precision.tolerance`), so values
        far below float64's range (1e-300 and smaller) keep their digits.
        """
        prec = int(3.33 * digits) + 64
        thr = self._threshold(x, eps, prec)
        # magnitude estimate from fast mode (truncation relative to the quantity): a coarse
        # run first, kept when the quantity exceeds 1e3 ftol (10 ftol at the coarser ftol
        # used without a time limit; its sums are lower ends: an estimate below the
        # quantity only makes the truncation finer than needed)
        ftol, accept = (_MAGNITUDE_TOL, 1e3) if max_seconds is not None else (_MAGNITUDE_TOL_COARSE, 10.0)
        f, est = None, 1.0
        for _ in range(8):
            try:
                f = self._fast(thr, ftol, sums, row_tol=0.5)
            except CapacityError:
                # the float tree refuses a level (its level arrays, ~GBs, not the certified
                # kernel's rows): without its magnitude the certified tree starts as if the
                # value were of order 1 and its enclosure refines the truncation -- when the
                # tree itself is affordable (Knuth's prediction); else Fourier, or refused
                if f is None and not self._tree_affordable(max_seconds):
                    if fallback is None:
                        raise
                    return fallback()
                break
            est = abs(quantity(f, fast=True))
            if est > ftol * accept or ftol <= 1e-290:
                break
            ftol = max(est * 1e-10 if est > 0 else ftol * 1e-40, 1e-300)
        rmax_log = math.log10(max(1.0, float(self.mechanism.ratio_max)))
        # below ~1e-290 the float estimate is unreliable: start 10^digits below it, the
        # certified enclosure then gives the magnitude
        est_log = math.log10(est) if est > 1e-290 else -300.0
        tol_log = est_log - digits - 3 - rmax_log
        try:
            if f is not None:
                self._capacity_check(f, max(10.0**max(tol_log, -300), 1e-300), max_seconds,
                                     ftol=ftol, prec=prec)
        except CapacityError:
            if fallback is None:
                raise
            try:
                return fallback()
            except (PrecisionError, CapacityError):
                pass
            raise
        iv = None
        for attempt in range(6):
            key = ("exact", thr.num, thr.den, round(tol_log, 6), prec) + ((sums,) if sums else ())
            ts = self.cache.get(key)
            if ts is None:
                ts = tail_sums(self.mechanism, self.N, thr, prec=prec, tol=tolerance(tol_log),
                               progress=progress, side=sums[0] if sums else None,
                               excess=sums[1] if sums else True)
                self.cache[key] = ts
            iv = quantity(ts, fast=False)
            if meets_digits(iv, digits) or iv.upper == 0:
                return iv
            # refine: truncation below the enclosure's magnitude, by the excess width,
            # and more bits for rounding
            excess = iv.relative_width() / 10.0**(-digits)
            mag = iv.lower if iv.lower > 0 else iv.upper
            tol_log = min(tol_log - math.log10(min(max(100.0, 10 * excess), 1e12)),
                          log10_abs(mag) - digits - 3 - rmax_log)
            prec += 64
            thr = self._threshold(x, eps, prec)
        hint = ("ask for fewer digits" if iv.lower > 0 else
                "no positive lower end was found: the value is below the enclosure's upper end, "
                "a certified bound and the answer here (in Python: the exception's .reached)")
        return require_digits(iv, digits, what,
                              f"after 6 refinements (working precision {prec - 64} bits, "
                              f"truncation 1e{tol_log:.0f}); {hint}")

    def _capacity_check(self, f, tol, max_seconds, *, ftol=1e-16, prec=None):
        """Predict the certified node count from the fast run (at truncation ``ftol``)
        and the compiled kernel's cost per node (:func:`exactdp.engine.capacity.tree_seconds`);
        refuse early."""
        if max_seconds is None:
            return
        from ..engine.capacity import SAFETY, estimate_nodes, tree_seconds
        ratio = math.sqrt(max(1.0, math.log(1 / tol)) / math.log(1 / min(ftol, 1e-2)))
        pred_nodes = f.nodes * ratio ** max(1, self.L - 1)
        pred_seconds = tree_seconds(pred_nodes, self.N, prec=prec)
        if pred_seconds > max_seconds:
            # the extrapolation grows like ratio^(L-1) (1e14 at L = 64, 40 digits, for a tree
            # of a few hundred nodes): before refusing, the tree-size predictor at this
            # truncation (the largest over typical thresholds)
            pred_nodes = min(pred_nodes, SAFETY * estimate_nodes(self.mechanism, self.N, tol))
            pred_seconds = tree_seconds(pred_nodes, self.N, prec=prec)
        if pred_seconds > max_seconds:
            raise CapacityError(
                f"certified computation for N={self.N}, L={self.L} would take about "
                f"{pred_seconds:.0f} s (> {max_seconds:.0f} s allowed); use method='fast' "
                "(--fast) or fewer digits")

    # ---------------------------------------------------------- strategies
    def _tree_affordable(self, max_seconds) -> bool:
        """Whether the certified tree is within :data:`exactdp.engine.capacity.MAX_NODES`
        predicted nodes and (when given) its predicted time within ``max_seconds``."""
        from ..engine.capacity import MAX_NODES, estimate_nodes, tree_seconds
        est = estimate_nodes(self.mechanism, self.N, cap=2 * MAX_NODES)
        return est <= MAX_NODES and (max_seconds is None or tree_seconds(est, self.N) <= max_seconds)

    def choose_method(self, *, fast: bool = False, x=None, eps=None) -> str:
        """The certified strategy ``method="exact"`` uses: ``"tree"`` (the
        conditioning kernel) while its predicted node count is within
        :data:`exactdp.engine.capacity.MAX_NODES` (``fast``: the float tree, a tenth of
        it), else ``"fourier"`` (:mod:`exactdp.engine.largen`, cost independent of N).
        The prediction is the largest over typical thresholds, or the tree at the
        query's own threshold ``x`` (or ``e^eps``) when one is given.

        >>> from_randomized_response(1000, 5, "0.2446").choose_method()
        'tree'
        >>> from_randomized_response(10**7, 40, "0.351").choose_method()
        'fourier'
        """
        if self.direction == "pair":
            # the method the last query used (auto moves on when a search exceeds its
            # budget), else the first the pair supports
            from ..reductions.methods import supported
            return self.cache.last_method or (supported(self.pair) or ("none",))[0]
        from ..engine.capacity import MAX_NODES, estimate_nodes
        # the float tree (``fast``) is cheaper per node but pays for its binomial rows at
        # large N: beyond MAX_NODES / 10 the coarse Fourier enclosure is cheaper
        limit = MAX_NODES / 10 if fast else MAX_NODES
        s = None
        if x is not None or eps is not None:
            lam = float(x) if x is not None else math.exp(min(float(eps), 700.0))
            # the tree's threshold on S: forward S > lam N, reverse S < N / lam
            s = lam * self.N if self.direction == "forward" else self.N / lam
        key = ("choose_method", fast, s)
        if key not in self.cache:
            est = estimate_nodes(self.mechanism, self.N, s=s, cap=2 * limit, within=limit)
            self.cache[key] = "tree" if est <= limit else "fourier"
        return self.cache[key]

    def _split(self, s_kind, x, eps, digits, excess=False):
        """Certified query by the heavy/light Fourier strategy (:mod:`exactdp.engine.largen`).

        ``x`` (or ``e^eps``) is the threshold on S = X/N (forward) or on 1/S
        (reverse); ``s_kind`` picks the field of :class:`~exactdp.engine.largen.SplitSums`.
        The truncation ``tol`` starts as if the value were of order 1 (cheap when few
        digits are asked), then follows the value's magnitude, until the relative
        width is at most ``10^-digits``; when the digits are out of reach of the
        attempts left it stops at once and raises
        :class:`~exactdp.core.errors.DigitsNotMetError` with the enclosure reached.
        """
        from ..engine.largen import split_sums
        fwd = self.direction == "forward"
        prec = 160
        with ctx.workprec(prec):
            if x is not None:
                s = arb(fmpq(x.numerator, x.denominator))
            else:
                s = exp_ball(eps)
            if not fwd:
                s = 1 / s
        outlier = fwd and not excess
        name = {"p_above": "P[R above the threshold]", "p_below": "P[R below the threshold]",
                "ex_above": "delta", "ex_below": "delta"}[s_kind]
        what = f"{name} ({self.direction}, N={self.N}, L={self.L}, q={self.q}, fourier strategy)"
        key = ("split", s_kind, x, eps, digits, excess)
        if key not in self.cache and ((not fwd and s_kind in ("p_below", "ex_below"))
                                      or (fwd and s_kind in ("p_above", "ex_above"))):
            tilted = self._tilted(s, s_kind, digits, excess, prec)
            if tilted is not None:
                self.cache[key] = tilted
        if key not in self.cache:
            # a few digits (the inverse queries' certification asks up to 7): start at
            # 10^-(digits+3) and refine up to four times; more digits: start at 1e-8 and stop
            # as soon as the narrowing shows they are out of reach
            few = digits <= 7
            tol = max(10.0**(-digits - 3), 1e-30) if few else 1e-8
            iv = prev = None
            attempts = 0
            for attempts in range(1, 5):
                try:
                    r = split_sums(self.mechanism, self.N, s, outlier=outlier, excess=excess,
                                   tol=tol, prec=prec)
                except (PrecisionError, CapacityError):
                    if iv is None:
                        raise
                    break   # finer resolution not provable (or affordable): keep what we have
                # every attempt is certified: keep the intersection (a finer truncation
                # may reach a coarser smoothing resolution)
                iv = getattr(r, s_kind) if iv is None else iv.intersect(getattr(r, s_kind))
                if iv.upper == 0 or meets_digits(iv, digits):
                    break
                # each refinement costs ~20x more and narrows ~5x: stop (and say so) at
                # once when the digits asked are out of reach of the attempts left
                rw = iv.relative_width()
                short = rw / 10.0**(-digits)
                if not few and prev is not None and short > prev / rw:
                    break
                stalled = prev is not None and rw > 0.5 * prev     # a lumpy width: go further
                prev = rw
                # the width shrinks about like tol: aim at 0.4 times the width asked
                # (at least twice finer, at most 10^6 per attempt: the light law's smoothness
                # is proved at a resolution tied to tol); a value far below the truncation
                # ([0, u], u < tol) goes to u's scale at once
                want = float(iv.mid) * 10.0**(-digits)
                if iv.lower == 0 and iv.upper < tol:
                    nxt = float(iv.upper) * 10.0**(-digits - 2)
                else:
                    nxt = tol * min(max(0.4 * want / max(float(iv.width), 1e-300), 1e-6), 0.5)
                    if stalled:
                        nxt = min(nxt, tol * 1e-3)
                tol = max(nxt, 1e-280)
            self.cache[key] = (iv, attempts, tol)
        iv, attempts, tol = self.cache[key]
        if tol is None:         # the tilted strategy (attempts: the relative aim)
            what = what.replace("fourier strategy", "tilted strategy")
            if attempts == "bound":
                # the reverse direction is dominated by the forward one in --direction worst; the
                # forward one is the worst case itself: its bound is the answer
                advice = ("ask for --direction worst, or omit this direction" if not fwd else
                          "the bound is the answer (no q this noisy needs a digit of it)")
                return require_digits(iv, digits, what, "(a certified Chernoff bound: the value is "
                                      f"below 1e-1000000, beyond the digits of any query); {advice}")
            return require_digits(iv, digits, what,
                                  f"(tilted, relative aim {attempts:.0e}); ask for fewer digits")
        hint = ("the value is too small for any digit (the enclosure's upper end is a certified "
                "bound): ask for --direction worst, or omit this direction" if iv.lower == 0 else
                "the Fourier strategy reaches a few digits: ask for fewer")
        return require_digits(iv, digits, what,
                              f"after {attempts} attempt(s) (truncation {tol:.0e}); {hint}")

    def _tilted(self, s, s_kind, digits, excess, prec):
        """The reverse direction's lower tail, or the forward direction's upper tail, by
        exponential tilting (:mod:`exactdp.engine.tilted`) when its Chernoff bound is below
        10^:data:`~exactdp.engine.tilted.CHERNOFF_ROUTE` (reverse), resp.
        10^:data:`~exactdp.engine.tilted.FORWARD_ROUTE` (forward: the heavy/light strategy's
        absolute resolution does not reach such values): ``(interval, aim, None)`` for the
        cache, or ``None`` (the heavy/light strategy instead).  The forward eta is
        ``P_{D_m}[S > s] = E[S; S > s]`` under the null law (``outlier``), its delta ``E(S - s)+``.
        The strategy used is recorded in the cache (``("tilted used",)``) for the reports."""
        from ..engine.tilted import (CHERNOFF_ROUTE, DECAY_BANDS, FORWARD_ROUTE, TILT_FLOOR,
                                     chernoff_bounds, log10_chernoff, tilted_sums)
        upper = s_kind in ("p_above", "ex_above")
        forward = s_kind == "p_above"
        route = FORWARD_ROUTE if upper else CHERNOFF_ROUTE
        if log10_chernoff(self.mechanism, self.N, s, upper=upper) >= route:
            return None
        with ctx.workprec(prec):
            cb = chernoff_bounds(self.mechanism, self.N, s, prec, upper=upper)
            if forward and cb is not None:
                # E[S; S > s] = m(t)^N e^{-ts} E_Q[s h + h2] <= s P-bound + E-bound (J <= 1, K <= 1/(e t))
                cb = (cb[0] * s + cb[1], cb[1])
            if cb is not None and cb[1 if s_kind.startswith("ex") else 0] < arb(10) ** TILT_FLOOR:
                # below 1e-1000000: the certified Chernoff bound is the answer (m(t)^N e^{ts}
                # times J <= 1, resp. K <= 1/(e t); exactdp.engine.tilted.TILT_FLOOR)
                self.cache[("tilted used",)] = True
                return Interval(Fraction(0), Fraction(1, 10 ** -TILT_FLOOR)), "bound", None
        iv = None
        rel = min(max(10.0 ** -(digits + 2), 1e-15), 1e-3)
        bands = DECAY_BANDS
        for _ in range(2):
            try:
                r = tilted_sums(self.mechanism, self.N, s, excess=excess, rel=rel, prec=prec,
                                max_bands=bands, upper=upper, forward=forward)
            except (PrecisionError, CapacityError):
                break
            got = r.ex if s_kind.startswith("ex") else (r.p_forward if forward else r.p)
            iv = got if iv is None else iv.intersect(got)
            if meets_digits(iv, digits):
                break
            # the smoothing was coarsened (the decay proof ran out of bands): a larger band
            # budget at the same aim; else a finer aim
            if r.a > 2 * rel / (8 * r.t):
                bands *= 8
            else:
                rel = max(rel * 1e-2, 1e-15)
        if iv is None:
            return None
        self.cache[("tilted used",)] = True
        return iv, rel, None

    # ---------------------------------------------------------- tail queries
    def _x_or_eps(self, x, eps):
        if eps is not None:
            return None, domains.EPS.parse(eps)
        x = domains.to_fraction(x, "x")
        return x, None

    def sf(self, x=None, *, eps=None, inclusive: bool = False, digits: int = 20,
           method: str = "exact", progress=None, max_seconds=None):
        """``P[R > x]`` (``inclusive``: ``P[R >= x]``), summed directly."""
        return self._side(x, eps, True, inclusive, digits, method, progress=progress, max_seconds=max_seconds)

    def cdf(self, x=None, *, eps=None, inclusive: bool = True, digits: int = 20,
            method: str = "exact", progress=None, max_seconds=None):
        """``P[R <= x]`` (``inclusive=False``: ``P[R < x]``), summed directly."""
        return self._side(x, eps, False, inclusive, digits, method, progress=progress, max_seconds=max_seconds)

    def _side(self, x, eps, r_above, inclusive, digits, method, *, progress, max_seconds):
        """Mass of R above (or below) x.  Forward: R = Z/norm, so the mass is
        ``E_D[Z; Z on that side]/norm`` (change of measure); reverse: R = norm/Z,
        so R above x means Z below the threshold."""
        x, eps = self._x_or_eps(x, eps)
        digits = domains.DIGITS.parse(digits)
        if self.direction == "pair":
            return self._pair_side(x, eps, r_above, inclusive, digits, method)
        if x is not None and x <= 0:
            v = 1 if r_above else 0
            return Interval.exact(v) if method != "fast" else Estimate(float(v), 0.0)
        if (x is not None and x > self.mechanism.ratio_max) or (
                x is None and exp_interval(eps, 128).lower > self.mechanism.ratio_max):
            # R <= (p/q)^L in both directions
            v = 0 if r_above else 1
            return Interval.exact(v) if method != "fast" else Estimate(float(v), 0.0)
        fwd = self.direction == "forward"
        if method == "fourier" or (method == "exact" and self.choose_method() == "fourier"):
            # forward: R = S under D_m; reverse: R = 1/S under D (strict and inclusive
            # events share the enclosure); an atomic light law falls back to the tree
            try:
                return self._split("p_above" if r_above == fwd else "p_below", x, eps, digits)
            except DigitsNotMetError:
                raise           # the digits asked are out of reach: said, never a slower retry
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
                           progress=progress, max_seconds=max_seconds, fallback=fallback,
                           sums=("above" if z_above else "below", fwd))

    def _pair_side(self, x, eps, r_above, inclusive, digits, method):
        """sf/cdf of a general pair through :mod:`exactdp.reductions.methods` (``x >= 1``; any
        ``x`` when the law is enumerable); ``fast`` is a coarse certified enclosure."""
        from ..reductions.methods import eta as pair_eta
        fast = method == "fast"
        meth = "auto" if method in ("exact", "fast") else method
        if x is not None and x < 1:
            law = self._pair_law()
            v = sum((w for r, w in law.items() if r > x or (inclusive and r == x)), Fraction(0))
            iv = Interval.exact(v)
        else:
            iv, used = pair_eta(self.pair, self.q, x, eps,
                                inclusive=inclusive if r_above else not inclusive,
                                digits=3 if fast else digits, method=meth, with_method=True)
            self.cache.last_method = "+".join(used)
        if not r_above:
            iv = Interval(1 - iv.upper, 1 - iv.lower)
        if fast:
            return Estimate(float(iv.mid), float(iv.width / 2) * (1 + 1e-12) + 1e-300,
                            "fast estimate (coarse certified enclosure)")
        return iv

    def _pair_law(self) -> dict:
        """Exact law ``{R: P}`` of a general pair (coarse enumeration, capacity-checked)."""
        if "law" not in self.cache:
            from ..reductions.pairs import law_of_R
            self.cache["law"] = law_of_R(self.pair, self.q)
        return self.cache["law"]

    def _query(self, x, eps, digits, method, quantity, kind, *, progress, max_seconds,
               fallback=None, sums=None):
        refused = None
        if method == "fast":
            f = self._fast_small(x, eps, sums)
            if f is not None:
                return self._fast_estimate(f, quantity, kind)
        if method == "fast" and self.choose_method(fast=True, x=x, eps=eps) == "tree":
            try:
                return self._query(x, eps, digits, "fast-tree", quantity, kind, progress=progress,
                                   max_seconds=max_seconds, sums=sums)
            except CapacityError as e:
                refused = e     # the float tree refused a level: the coarse Fourier enclosure
        if method == "fast":
            try:
                try:
                    iv = self._split("p_above" if (kind == "sf") == (self.direction == "forward")
                                     else "p_below", x, eps, 3)
                except DigitsNotMetError as e:
                    iv = e.reached      # a coarser enclosure: its width is the stated error
                return Estimate(float(iv.mid), float(iv.width / 2) * (1 + 1e-12),
                                "fast estimate (coarse Fourier enclosure)")
            except PrecisionError:
                if refused is not None:
                    raise refused from None
                # the light law is too atomic to smooth: the float tree instead
        if method in ("fast", "fast-tree"):
            return self._fast_estimate(self._fast(self._threshold(x, eps, 128), FAST_TOL, sums),
                                       quantity, kind)
        if method != "exact":
            raise ParameterError(f"method must be 'exact', 'fourier' or 'fast', got {method!r}")
        return self._exact(x, eps, digits, quantity, progress, max_seconds,
                           what=f"{kind} ({self.direction}, N={self.N}, L={self.L}, q={self.q})",
                           fallback=fallback, sums=sums)

    def _fast_small(self, x, eps, sums):
        """Fast mode's first try at small N and L: the compiled float walk within
        :data:`FAST_COMPILED_FIRST_NODES` nodes -- the float tree :meth:`choose_method`
        would pick there, without its node-count prediction (which imports numpy);
        ``None`` beyond the budget or when the walk is not built."""
        if self.N > FAST_COMPILED_FIRST_MAX_N or self.L > FAST_COMPILED_FIRST_MAX_L:
            return None
        return self._fast(self._threshold(x, eps, 128), FAST_TOL, sums, compiled_only=True)

    def _fast_estimate(self, f, quantity, kind) -> Estimate:
        v = quantity(f, True)
        return Estimate(float(v), self._fast_error(f, abs(v), kind))

    def _fast_error(self, f, value, kind):
        fwd = self.direction == "forward"
        trunc = (f.drop_E / self.N) if fwd else f.drop_P
        return trunc + 1e-16 * 4 + self._rounding() * max(value, 0.0) * 10

    def eta(self, lam=None, eps=None, *, inclusive: bool = False, digits: int = 20,
            method: str = "exact", progress=None, max_seconds=None, refine: bool = False):
        """eta = ``P[R > lam]`` (``inclusive``: ``>=``) with ``lam = e^eps`` (000 (1.7)).

        ``refine=True`` intersects the enclosures of every certified strategy that runs
        for this pair: ``method`` (tree or Fourier), the Fourier strategy, and those of
        :mod:`exactdp.reductions.methods` (kernel within its node budget, lattice
        bracket, Chernoff bound); each contains the true value, so their intersection
        does too.  The names used are in ``self.cache.last_method``.

        >>> d = from_randomized_response(200, 3, "1/4")
        >>> iv = d.eta(lam=2, digits=10, refine=True)
        >>> iv.contains(d.eta(lam=2, digits=25).mid), d.cache.last_method
        (True, 'tree+kernel+lattice+chernoff')
        """
        lam, eps = parse_lam_eps(lam, eps)
        first = self.sf(lam, eps=eps, inclusive=inclusive, digits=digits, method=method,
                        progress=progress, max_seconds=max_seconds)
        if not refine or method == "fast":
            return first
        from ..reductions import methods as M
        out = first
        used = [self.choose_method() if method == "exact" else method]
        tries = [] if used[0] == "fourier" or self.direction == "pair" else [("fourier", None)]
        if self.direction == "pair":
            tries += [("pairs", "auto")]
        else:
            tries += [("pairs", name) for name in ("kernel", "lattice", "chernoff")]
        for kind, name in tries:
            try:
                if kind == "fourier":
                    iv = self.sf(lam, eps=eps, inclusive=inclusive, digits=min(digits, 6), method="fourier")
                else:
                    iv, names = M.eta(self.pair, self.q, lam, eps, inclusive=inclusive, digits=digits,
                                      method=name, refine=name == "auto", with_method=True,
                                      max_nodes=M.AUTO_MAX_NODES)
                    name = "+".join(names)
            except (CapacityError, PrecisionError, ParameterError):
                continue
            out = out.intersect(iv)
            used.append(name or kind)
        self.cache.last_method = "+".join(used)
        return out

    def delta(self, lam=None, eps=None, *, digits: int = 20, method: str = "exact",
              progress=None, max_seconds=None):
        """delta = ``E[(1 - lam/R)+]`` under the sampling law = ``sum_S (P(S) - lam P'(S))+``."""
        lam, eps = parse_lam_eps(lam, eps)
        digits = domains.DIGITS.parse(digits)
        if self.direction == "pair":
            from ..reductions.methods import delta as pair_delta
            iv, used = pair_delta(self.pair, self.q, lam, eps, digits=3 if method == "fast" else digits,
                                  method="auto" if method in ("exact", "fast") else method,
                                  with_method=True)
            self.cache.last_method = "+".join(used)
            if method == "fast":
                return Estimate(float(iv.mid), float(iv.width / 2) * (1 + 1e-12) + 1e-300,
                                "fast estimate (coarse certified enclosure)")
            return iv
        fwd = self.direction == "forward"
        norm = self._norm
        lam_iv = lam_interval(lam, eps)
        scale = self.mechanism.scale

        def as_delta(iv):
            # forward: E_D[(S - lam)+]; reverse: lam E_D[(1/lam - S)+]
            return iv.clip(0, 1) if fwd else _mul_pos(iv, lam_interval(lam, eps)).clip(0, 1)

        if method == "fourier" or (method == "exact" and self.choose_method() == "fourier"):
            try:
                return as_delta(self._split("ex_above" if fwd else "ex_below", lam, eps, digits,
                                            excess=True))
            except DigitsNotMetError as e:
                raise DigitsNotMetError(str(e), as_delta(e.reached)) from None
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

        sums = ("above" if fwd else "below", True)

        def fast_estimate(f):
            v = quantity(f, True)
            trunc = f.drop_up / self.N if fwd else f.drop_lo / f.tau_x
            err = trunc + 4 * 1e-16 + self._rounding() * abs(v) * 10
            return Estimate(max(float(v), 0.0), err)

        if method == "fast":
            f = self._fast_small(lam, eps, sums)
            if f is not None:
                return fast_estimate(f)
        if method == "fast" and self.choose_method(fast=True, x=lam, eps=eps) == "fourier":
            try:
                try:
                    iv = as_delta(self._split("ex_above" if fwd else "ex_below", lam, eps, 3,
                                              excess=True))
                except DigitsNotMetError as e:
                    iv = as_delta(e.reached)
                return Estimate(float(iv.mid), float(iv.width / 2) * (1 + 1e-12),
                                "fast estimate (coarse Fourier enclosure)")
            except PrecisionError:
                pass        # the light law is too atomic to smooth: the float tree instead
        if method == "fast":
            return fast_estimate(self._fast(self._threshold(lam, eps, 128), FAST_TOL, sums))
        if method != "exact":
            raise ParameterError(f"method must be 'exact', 'fourier' or 'fast', got {method!r}")

        def fallback():
            iv = self._split("ex_above" if fwd else "ex_below", lam, eps, digits, excess=True)
            return iv.clip(0, 1) if fwd else _mul_pos(iv, lam_interval(lam, eps)).clip(0, 1)

        return self._exact(lam, eps, digits, quantity, progress, max_seconds,
                           what=f"delta ({self.direction}, N={self.N}, L={self.L}, q={self.q})",
                           fallback=fallback, sums=sums)

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
        :func:`exactdp.engine.inverse_moments.inverse_moments`.  A general pair: the exact
        Fraction from its enumerated law."""
        if self.direction == "pair":
            return sum((r * w for r, w in self._pair_law().items()), Fraction(0))
        if self.direction == "forward":
            return self._moments_X()[0] / self.N
        return self._reverse_moments(digits)[0]

    def var(self, *, digits: int = 20):
        """``Var R``.  Forward: the exact Fraction ``Var X / N^2`` (000 §3.1);
        reverse: a certified Interval; a general pair: exact from its law."""
        if self.direction == "pair":
            m = self.mean()
            return sum((w * (r - m) ** 2 for r, w in self._pair_law().items()), Fraction(0))
        if self.direction == "forward":
            return self._moments_X()[1] / self.N**2
        return self._reverse_moments(digits)[1]

    def _reverse_moments(self, digits):
        digits = domains.DIGITS.parse(digits)
        key = ("revmom", digits)
        if key not in self.cache:
            from ..engine.inverse_moments import inverse_moments
            a, b = inverse_moments(self.mechanism, self.N, prec=int(3.33 * digits) + 96,
                                   tol=10.0**(-digits - 4))
            s = self._norm
            m = a.scale(s)
            e2 = b.scale(s * s)
            v = Interval(max(e2.lower - m.upper**2, Fraction(0)), e2.upper - m.lower**2)
            what = f"reverse %s (N={self.N}, L={self.L}, q={self.q})"
            self.cache[key] = (require_digits(m, digits, what % "mean"),
                                require_digits(v, digits, what % "variance"))
        return self.cache[key]

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
        maximum) beyond the tree's capacity (:func:`exactdp.law.queries.smallest_epsilon`).

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
        """dp_accounting PLD dominating this law (see :func:`exactdp.law.export.to_dp_accounting`)."""
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

    def _both(self, name, lam, eps, kw):
        """The larger of the two directions; the digits are required of the maximum only
        (a direction far below the other need not reach them on its own)."""
        out, missed = [], None
        for d in (self.forward, self.reverse):
            try:
                out.append(getattr(d, name)(lam, eps, **kw))
            except DigitsNotMetError as e:
                out.append(e.reached)
                missed = e
        res = self._max(*out)
        if missed is not None and not meets_digits(res, domains.DIGITS.parse(kw.get("digits", 20))):
            raise DigitsNotMetError(str(missed), res)
        return res

    def eta(self, lam=None, eps=None, **kw):
        """max(eta_forward, eta_reverse)."""
        return self._both("eta", lam, eps, kw)

    def delta(self, lam=None, eps=None, **kw):
        """max(delta_forward, delta_reverse)."""
        return self._both("delta", lam, eps, kw)

    def epsilon(self, *, delta=None, eta=None, digits: int | None = None, progress=None,
                max_seconds=None):
        """Smallest eps meeting the target in both directions.

        The forward bracket ``[e_a, e_b]`` first; when the reverse direction is certified to
        meet the target already at ``e_a`` (its smallest eps is at most ``e_a``: eta and delta
        fall as eps grows), the forward bracket is the answer and the reverse search is skipped.
        """
        a = self.forward.epsilon(delta=delta, eta=eta, digits=digits, progress=progress,
                                 max_seconds=max_seconds)
        if a.lower > 0:
            query = self.reverse.delta if delta is not None else self.reverse.eta
            try:
                v = query(eps=a.lower, digits=3, max_seconds=max_seconds)
            except DigitsNotMetError as e:
                v = e.reached
            except (CapacityError, PrecisionError):
                v = None
            if v is not None and v.upper <= domains.TARGET.parse(delta if delta is not None else eta):
                return a
        b = self.reverse.epsilon(delta=delta, eta=eta, digits=digits, progress=progress,
                                 max_seconds=max_seconds)
        return Interval.hull_max(a, b)

    def to_dp_accounting(self, **kw):
        """dp_accounting PLD dominating this law (see :func:`exactdp.law.export.to_dp_accounting`)."""
        from .export import to_dp_accounting
        return to_dp_accounting(self, **kw)


def _of_pair(P: Pair, q) -> PrivacyRatio:
    """The distribution of R for ``P``: 000's pair and its reverse (up to bit flips and
    constant columns, :meth:`~exactdp.model.pair.Pair.canonical_form`) get the canonical
    strategies, every other pair the general ones."""
    form = P.canonical_form()
    if form is not None:
        direction, N, L_eff = form
        return PrivacyRatio(N, Mechanism(L_eff, q), direction)
    return PrivacyRatio(P.N, Mechanism(P.L, q), "pair", P)


def from_pair(D, D_m=None, *, q, direction: str = "forward"):
    """Law of R for the neighbouring pair ``(D, D_m)``: ``R = P(S|D_m)/P(S|D)``,
    ``S ~ A(D_m)`` (000 (1.6)-(1.7)).

    ``D`` and ``D_m`` are mappings from bit strings (bit 0 first) to counts, e.g.
    ``{"00000": 999, "10000": 1}``, or sequences of vectors; ``D`` may also be a
    :class:`~exactdp.model.pair.Pair` (then ``D_m`` is omitted).  ``direction="reverse"``
    swaps ``D`` and ``D_m``; ``"worst"`` takes the larger of the two per query.
    Returns the same type as :func:`from_randomized_response`.

    >>> a = from_pair({"000": 2}, {"000": 1, "111": 1}, q="1/3")
    >>> a == from_randomized_response(2, 3, "1/3")
    True
    >>> b = from_pair({"00": 3, "01": 1}, {"00": 3, "11": 1}, q="1/4")
    >>> b.direction, b.eta(lam=2)
    ('pair', Interval[12329/32768, 12329/32768])
    """
    if isinstance(D, Pair):
        if D_m is not None:
            raise ParameterError("give D_m only with D as a mapping, not with a Pair")
        P = D
    else:
        if D_m is None:
            raise ParameterError("D_m is required (the neighbouring collection)")
        P = Pair.from_mapping(D, D_m)
    direction = domains.parse_direction(direction)
    if direction == "worst":
        return WorstCase(_of_pair(P, q), _of_pair(P.reverse(), q))
    return _of_pair(P if direction == "forward" else P.reverse(), q)


def from_randomized_response(N, L, q, direction: str = "forward"):
    """Law of R for N users, L bits, flip probability q (exact), in a direction:
    :func:`from_pair` on 000's pair ``D* = 0^N``, ``D_m* = 0^(N-1) + 1^L`` (000 §1.3).

    ``direction`` is ``"forward"``, ``"reverse"`` or ``"worst"``.  Mirrors
    dp_accounting's ``from_randomized_response`` factory.
    """
    Mechanism(L, q)                        # validates L and q before N, as always
    return from_pair(canonical_pair(N, L), q=q, direction=direction)
