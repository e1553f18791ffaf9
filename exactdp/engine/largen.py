r"""Certified tail sums at deployment scale: heavy categories enumerated, the light rest by Fourier.

The tree kernel (:mod:`exactdp.engine.kernel`) conditions on every category count
``T_L, T_{L-1}, ...`` and its cost grows like ``N^{(L-1)/2}``.  This module is a
second certified strategy whose cost does not grow with ``N``.

**The statistic.**  With ``S = X / N = sum_i w(Y_i)`` (000 (3.6): ``R = X/N``
forward, ``R = N/X`` reverse) the users are independent and user ``i`` lands in
category ``l`` (``l`` set bits after randomization) with probability
``pi0_l = C(L,l) q^l p^(L-l)`` (000 (3.7)); its weight is
``w_l = c_l / N = (q/p)^(L-2l) / N`` (000 (3.2)).  The changed user of ``D_m``
lands in ``l`` with ``pi1_l = pi0_l c_l`` (000 (3.5)).  The weights span many
orders of magnitude and the tail is driven by few users in the top categories.

**Split.**  Categories whose weight oscillates more than ``OMEGA`` radians over
the light law's Fourier window are *heavy*; their counts are small
(Poisson-like) and are enumerated exactly, from the top category down, by the
chain rule of the multinomial (``T_l | T_{>l} ~ Bin(n_rem, pi_l / sum_{j<=l} pi_j)``,
as in the kernel).  Nodes of mass below ``tol`` are not expanded.  ``S`` is
stochastically increasing in each heavy count (one more user in category ``l``
replaces a user of a lighter category: couple the two and ``S`` only grows), so
the unexpanded children on each side of a node's expanded ones are bounded
together by the Chernoff bound of the child next to them (``P[S > s | T_l = k']
<= P[S > s | T_l = k]`` for ``k' <= k``); a side that bound does not decide adds
its mass to the width.  A node whose heavy sum alone decides the event is summed
at once (with its exact conditional mean for the excess).

**The light rest** ``S_L`` (``n`` users over the light categories, plus the
changed user if it is light) is enclosed through the smoothed variable
``V = S_L + G``, ``G ~ N(0, sg^2)`` independent:

* pathwise, ``{V > s + a} \ {G > a} ⊂ {S_L > s} ⊂ {V > s - a} ∪ {G <= -a}``, so
  ``P_V(s + a) - Q(a/sg) <= P[S_L > s] <= P_V(s - a) + Q(a/sg)`` (``Q`` the normal
  upper tail), for strict and inclusive events alike;
* by Jensen, ``E(S_L - s)+ <= E(V - s)+ <= E(S_L - s)+ + sg/sqrt(2 pi)``;
* Gil-Pelaez for the continuous ``V``:
  ``P[V > s] = 1/2 + (1/pi) int_0^inf Im(e^{-ius} phi_V(u)) / u du`` and
  ``E|V - s| = (2/pi) int_0^inf (1 - Re(e^{-ius} phi_V(u))) / u^2 du``,
  ``phi_V(u) = prod phi_f(u)^{m_f} e^{-sg^2 u^2 / 2}`` exactly (a product over
  independent users, each ``phi_f(u) = sum_l pi_l e^{i u w_l}``).

The integral over ``[d0, U1]`` is computed by arb's rigorous Gauss-Legendre
integration (``acb.integral``) of the analytic continuation
``(g(z) - g(-z)) / (2iz) + i (1 - (g(z) + g(-z))/2) / z^2``.  On ``[0, d0]`` the
Taylor bounds ``|sin x - x| <= |x|^3/6`` and ``|1 - cos x - x^2/2| <= x^4/24``
with the exact second and a bounded fourth moment give the piece with an
explicit error.  Beyond ``U1`` the integrand is bounded by a *proved* decay of
the characteristic function:

    |phi(u)|^2 = 1 - 2 sum_{l<l'} pi_l pi_l' (1 - cos(u (w_l' - w_l)))

(each term nonnegative, so any subset of pairs and the minimum of each term
over a band of ``u`` give an upper bound), hence
``|phi(u)|^n <= exp(-n D / 2)`` on the band.  Past the bands the Gaussian factor
alone bounds the tail.  The bands are bisected (all of a depth at once) until each
one's bound ``B`` is below ``eps / 64`` or its share ``B log(u2 / u1)`` of
``int |phi_V| / u`` is below ``eps 2^-24``: with few light categories (L = 5) the
phases come back close to a common multiple of ``2 pi`` at isolated ``u``
(``|phi|^N ~ e^-17.6`` near ``u = 6.3e9`` at N = 10^5), and such a near return, a
lobe of width ~ ``1 / sd``, is integrated in narrow bands instead of refused.  The
bound is proved for ``n_min`` users, the fewest light users any node can hold
(``|phi_f| <= 1`` for the others): ``n`` minus a Bernstein bound on the heavy count
(mean + 20 sqrt(mean) + 100, mass beyond below 1e-60; the walk stops with an error
if a node of mass ``>= tol`` holds more).

**Quadrature on balls.**  ``acb.integral`` bounds its error from the integrand on
complex boxes; there ``f(z) = sum_l p_l e^{i z x_l}`` (centred ``x_l``) is enclosed in
mean-value form around the box's centre ``m``:
``f(z) in f(m) + f'(m)(z - m) + R``, ``|R| <= r^2/2 sum_l p_l x_l^2 e^{(|Im m| + r)|x_l|}``
(Taylor's remainder on the segment ``[m, z]``, ``r`` the box's radius).  Evaluating
each exponential on the box instead inflates ``f`` by ~``r sum p |x|``, i.e.
``|f|^n`` by ``exp(n r E|x|)``, which made the quadrature subdivide ~``sqrt(N)``
times more at large ``N`` (59 000 evaluations at N = 10^9, L = 5; 1 400 now).  Far from the light law's centre the Chernoff bound
(arb) is used instead (``P[S_L >= s] <= e^{-theta s} M(theta)``,
``E(S_L - s)+ <= e^{-theta s} M(theta) / (e theta)``).

**Excess sums** (delta, the hockey-stick divergence of the law (1.6) of
000_3d8ddaba8b46cf9c.txt, which itself defines only eta (1.7); with the change of measure ``dD_m/dD = S``: the
forward delta is ``E_D (S - lam)+``, the reverse ``lam E_D (1/lam - S)+``).  Both
``E(S - s)+`` and ``E(s - S)+`` are accumulated node by node; a node left unexpanded
adds its mass times ``max S`` (at most ``H + n_rem w_l``) to the first but only its mass
times ``(s - H)+`` to the second (``0 <= (s - S)+ <= (s - H)+``, ``S >= H`` the node's
heavy sum).  The exact identity

    E(S - s)+ - E(s - S)+ = E S - s,     E_D S = n sum_l pi0_l w_l  (= 1 for n = N)

then encloses each side by the other; both enclosures hold, so their intersection does
(``_excess_pair``).  When the heavy tail carries the excess (forward, q = 0.30 at L = 40,
N = 10^7), this replaces a width of order ``tol * max S`` by ``tol * s``.

Every term is an arb ball or an explicit bound, so the result is an enclosure:
truncated heavy mass, Chernoff tails, smoothing, quadrature and Taylor errors
all enter the width.  Nothing here is a normal or saddlepoint approximation.

The enclosures' widths are absolute (of the order of the truncation), so a far lower tail
(the reverse direction, ``P[S < 1/lam]`` ~ 1e-8485 at L = 40, N = 10^7) is only bounded from
above here; :mod:`exactdp.engine.tilted` gives those with relative precision.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

from flint import acb, arb, ctx, fmpq

from ..core.errors import CapacityError, PrecisionError
from ..core.interval import Interval, arb_to_interval
from ..core.threads import one_blas_thread
from ..model.mechanism import Mechanism
from . import cfloat

__all__ = ["SplitSums", "split_sums", "split_plan", "OMEGA", "LightLaw", "pmf_window", "cf_pair",
           "band_decay_bound"]

#: radians a light category's phase may turn over the light Fourier window
OMEGA = 400.0
#: expected count below which a category that matters is enumerated, not smoothed
MIN_COUNT = 25.0
#: the plans :func:`split_sums` tries, in order: a category with a Poisson-like count
#: of mean >= 3 is smoothed first (few heavy nodes); when the light law's smoothness
#: cannot then be proved, the count threshold goes back to :data:`MIN_COUNT`
MIN_COUNTS = (3.0, MIN_COUNT)
#: normal-tail multiple defining the smoothing half-width a = K_SMOOTH * sg
K_SMOOTH = 14
#: band bounds :meth:`LightLaw.decay_bands` evaluates before it gives up (~1.5 us each)
DECAY_MAX_BANDS = 2_000_000


def _arb(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _up(x: arb) -> arb:
    """An exact arb at (slightly above) the upper end of ``x``."""
    return arb(float(x.upper()) * (1 + 1e-9) + 1e-300)


def _lo(x: arb) -> Fraction:
    return arb_to_interval(x).lower


def _hi(x: arb) -> Fraction:
    return arb_to_interval(x).upper


@dataclass(frozen=True)
class SplitSums:
    """Certified enclosures for ``S`` (``R`` forward is ``S``, reverse ``1/S``).

    ``p_above = P[S > s]`` (and ``P[S >= s]``: the same enclosure holds for
    both), ``p_below = P[S < s]`` (and ``<=``), ``ex_above = E(S - s)+`` and
    ``ex_below = E(s - S)+`` under the null law (``ex_*`` only when asked).
    ``heavy`` lists the enumerated categories, ``nodes`` the heavy configurations
    visited, ``integrals`` the Fourier integrals computed.
    """

    p_above: Interval
    p_below: Interval
    ex_above: Interval | None
    ex_below: Interval | None
    heavy: tuple
    nodes: int
    integrals: int
    seconds: float
    dropped: float


# --------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class Plan:
    """Which categories are heavy (enumerated) and which light (Fourier)."""

    light: tuple
    heavy: tuple
    sigma_light: float


def split_plan(mech: Mechanism, N: int, omega: float = OMEGA, min_count: float = MIN_COUNT) -> Plan:
    """Choose the heavy categories (enumerated) and the light ones (Fourier).

    With ``U = 14 / sd(S_L)`` the light window, a category is heavy when its
    phase ``u w_l`` turns more than ``omega`` radians over the window, or turns
    noticeably (> 0.3 rad) while its expected count ``N pi_l`` is below
    ``min_count`` (a Poisson-like count whose characteristic function does not
    decay).  Heavy categories are the top ones (weights grow with ``l``);
    the choice is iterated until stable.

    >>> split_plan(Mechanism(40, "0.351"), 10**7).heavy[:3]
    (40, 39, 38)
    >>> split_plan(Mechanism(5, "1/5"), 10**6).heavy
    ()
    """
    L = mech.L
    pi = [float(x) for x in mech.pi0]
    w = [float(x) / N for x in mech.c]
    top = L                       # light = 0..top
    while True:
        light = range(top + 1)
        tot = sum(pi[l] for l in light)
        m1 = sum(pi[l] * w[l] for l in light) / tot
        m2 = sum(pi[l] * w[l] ** 2 for l in light) / tot
        sd = math.sqrt(max(N * (m2 - m1 * m1), 1e-300))
        U = 14.0 / sd
        if top == 0 or not (w[top] * U > omega or (w[top] * U > 0.3 and N * pi[top] < min_count)):
            break
        top -= 1
    return Plan(tuple(range(top + 1)), tuple(range(L, top, -1)), sd)


def band_decay_bound(a1, a2, d, c, n, *, sg: float = 0.0, min_phase: float | None = None):
    """Proved upper bounds ``B`` on ``|phi(u)|^n exp(-sg^2 u^2 / 2)`` over the bands
    ``[a1, a2]`` (float64 arrays of equal length, ``0 < a1 < a2``), one per band.

    ``phi`` is a user's characteristic function with ``|phi|^2 = 1 - sum_pairs c (1 -
    cos(u d))`` (``d`` the pairs' weight differences, ``c = 2 p_l p_l'``: the module
    doc).  Every term is nonnegative, so any subset of the pairs and the minimum of
    each term over a band give ``D <= 1 - |phi|^2`` there, and ``|phi|^n <= exp(-n D /
    2)``.  The pairs used are those whose phase ``u d / 2 pi`` does not wrap on the
    band: inside one period ``1 - cos(2 pi x)`` is smallest at an end (float64; the
    band is widened by 1e-12 relative and the margin covers the rounding of the
    phase, ~1e-16 per radian).  The Gaussian factor is ``exp(-sg^2 a1^2 / 2)`` (none
    when ``sg`` is 0).  ``min_phase``, when given, drops the pairs with ``d a2 <
    min_phase`` besides: a choice (a subset of pairs), not needed for the bound.
    Used by :meth:`LightLaw.decay_bands` and the lattice route of
    :mod:`exactdp.engine.tilted`.
    """
    import numpy as np
    twopi = 2 * math.pi
    a1, a2 = a1[:, None], a2[:, None]
    x1 = a1 * d / twopi * (1 - 1e-12)
    x2 = a2 * d / twopi * (1 + 1e-12)
    k1 = np.floor(x1)
    m = (np.minimum(1 - np.cos(twopi * x1), 1 - np.cos(twopi * x2))
         - 1e-14 * (1 + twopi * x2))
    ok = (d * (a2 - a1) <= twopi) & (k1 == np.floor(x2)) & (x1 - k1 >= 1e-9) & (m > 0)
    if min_phase is not None:
        ok &= d >= min_phase / a2
    D = (c * np.where(ok, m, 0.0)).sum(axis=1) * (1 - 1e-9)
    e = -n * D / 2
    if sg:
        e = e - sg * sg * a1[:, 0] ** 2 / 2
    return np.exp(e) * (1 + 1e-12)


# --------------------------------------------------------------------------- light law
class _Light:
    """Independent users over the light categories: factors ``(probs, count)``."""

    def __init__(self, w, factors, prec):
        self.w = w                      # arb weights of the light categories
        self.factors = factors          # [(list of arb probs, multiplicity)]
        self.prec = prec
        self.wf = [float(x) for x in w]
        self.ff = [([float(p) for p in probs], m) for probs, m in factors]
        mean = arb(0)
        var = arb(0)
        m4 = arb(0)
        self.fmeans = []
        for probs, m in factors:
            e1 = sum((p * x for p, x in zip(probs, w)), arb(0))
            self.fmeans.append(e1)
            e2 = sum((p * x * x for p, x in zip(probs, w)), arb(0))
            e4 = sum((p * x ** 4 for p, x in zip(probs, w)), arb(0))
            mean += m * e1
            var += m * (e2 - e1 * e1)
            m4 += m * 16 * e4
        self.mean, self.var, self.k4 = mean, var, m4
        self.meanf, self.sdf = float(mean), math.sqrt(max(float(var), 1e-300))
        self._np = None                 # the factors packed for the float images (_packed), built on first use

    # ----------------------------------------------------------- Chernoff
    def _packed(self):
        """The factors over their used entries (``p > 0``) for the float images
        (:func:`exactdp.engine.cfloat.pack`; built once)."""
        if self._np is None:
            self._np = cfloat.pack([(self.wf, pr, m) for pr, m in self.ff])
        return self._np

    def _arrays(self):
        """Per factor ``(w, p, m, max w, min w)`` over its used entries (numpy)."""
        return self._packed().arrays

    def _logmgf(self, t: float) -> float:
        """``K(t) = log E e^{tS}`` (float, :mod:`exactdp.engine.cfloat`)."""
        return cfloat.cumulants(t, self._packed())[0]

    def _cumulants(self, t: float):
        """``(K'(t), K''(t))`` of ``K = log E e^{tS}`` (float, :mod:`exactdp.engine.cfloat`):
        the tilted mean and variance of ``S``, summed over the factors."""
        return cfloat.cumulants(t, self._packed())[1:]

    def chernoff(self, s: float, above: bool):
        """Best-effort theta, then a rigorous arb bound ``(P, E excess)`` on the
        far side of ``s``: ``P[S >= s]`` and ``E(S - s)+`` when ``above``.

        The exponent ``f(t) = K(+-t) -+ t s`` is convex; its minimiser (the saddle
        point ``K'(+-t) = s``) is found by :meth:`saddle` (any ``t > 0`` gives a valid
        bound: the search only makes it tight) and the bound evaluated there by
        :meth:`bound_at`."""
        t = self.saddle(s, above)
        if t is None:
            return arb(1), None
        return self.bound_at(t, s, above)

    def saddle(self, s: float, above: bool, *, t0: float | None = None):
        """The float saddle point ``t > 0`` of the Chernoff exponent of ``P[S >= s]``
        (``above``; else ``P[S <= s]``): safeguarded Newton steps on ``f'`` from ``t0`` (a warm
        start, e.g. a nearby level's saddle point or the normal law's ``z / sd``) or
        ``1 / sd``, doubling until the root is bracketed, bisecting where a step leaves the
        bracket; ``None`` when ``s`` is not beyond the mean (the bound is trivial) or the
        exponent is not finite at the point found.  Any ``t > 0`` gives a valid bound
        (:meth:`bound_at`): this only makes it tight."""
        return self._saddle(s, above, t0)[0]

    def _saddle(self, s, above, t0):
        """``(t, f(t))`` of :meth:`saddle` (``(None, None)`` where it gives ``None``)."""
        sign = 1.0 if above else -1.0
        if not sign * (self.meanf - s) < 0:
            return None, None
        cap = 1e4 / max(self.sdf, 1e-300)     # far enough for any useful bound, no overflow
        t = t0 if t0 is not None and 0 < t0 < cap else 1.0 / max(self.sdf, 1e-300)
        lo, hi = 0.0, math.inf
        for _ in range(200):
            k1, k2 = self._cumulants(sign * t)
            d = sign * (k1 - s)
            if d == 0:
                break
            if d < 0:
                lo = t
            else:
                hi = t
            tn = t - d / k2 if k2 > 0 else math.nan
            if not lo < tn < hi:
                tn = 2 * t if hi == math.inf else 0.5 * (lo + hi)
            if tn >= cap:
                if t >= cap:
                    break
                tn = cap
            if abs(tn - t) <= 1e-4 * t:
                # a Newton step this small leaves ~1e-8 of t (quadratic convergence), and the
                # bound at t exceeds the least one by ~z^2 (dt / t)^2 / 2 relative: nothing
                # (1e-7 before: one more cumulant evaluation per saddle for ~1e-16)
                t = tn
                break
            t = tn
        f = self._logmgf(sign * t) - sign * t * s if t > 0 else math.nan
        if not (t > 0 and math.isfinite(f)):
            return None, None
        return t, f

    def screened_bound(self, s: float, above: bool, limit: float, *, t0: float | None = None):
        """``(B, t)``: the Chernoff bound (arb) of :meth:`chernoff` at the saddle point ``t``
        (``None`` where there is none; ``t0`` a start) where its float image is at most
        ``limit (1 + 1e-6)``, else the trivial bound 1 -- for callers that use a bound only
        below ``limit``: the arb bound encloses the float's number, so above it the arb one
        could not be below ``limit`` either, and the arb evaluation is skipped."""
        t, f = self._saddle(s, above, t0)
        if t is None or not limit > 0 or f > math.log(limit) + 1e-6:
            return arb(1), t
        return self.bound_at(t, s, above)[0], t

    def log_bound(self, t: float, s: float, above: bool) -> float:
        """``f(t) = K(+-t) -+ t s`` in floats: the log of the Chernoff bound at ``t`` (an
        estimate, used to choose levels; the bound itself is :meth:`bound_at`)."""
        sign = 1.0 if above else -1.0
        return self._logmgf(sign * t) - sign * t * s

    def bound_at(self, t: float, s, above: bool):
        """The rigorous Chernoff bound at ``t > 0`` (arb): ``(P, E excess)`` with
        ``P[S >= s] <= e^{K(t) - t s}`` and ``E(S - s)+ <= P / (e t)`` (``above``; the mirror
        image below); ``(1, None)`` when not finite."""
        sign = 1.0 if above else -1.0
        with ctx.workprec(self.prec):
            th = arb(sign * t)
            logm = arb(0)
            st = sign * t
            for (probs, m), (_, _, _, wmx, wmn) in zip(self.factors, self._arrays()):
                # shifted by the largest exponent (exact), so that no term overflows: the
                # largest of st x over the used weights is st max(w) (st >= 0) or st min(w)
                # (st < 0), rounding being monotone
                mx = arb(float(st * wmx if st >= 0 else st * wmn))
                logm += m * (mx + sum((p * (th * x - mx).exp() for p, x in zip(probs, self.w)),
                                      arb(0)).log())
            b = (logm - th * self._s_arb(s)).exp()
            if not b.is_finite():
                return arb(1), None
            return b, b / (arb(t) * arb(1).exp())

    def _s_arb(self, s):
        return s if isinstance(s, arb) else arb(s)

    # ----------------------------------------------------------- CF decay
    def decay_bands(self, n_min: int, U1: float, sg: float, eps: float, *,
                    max_bands: int = DECAY_MAX_BANDS):
        """Bound ``int_U1^inf |phi_V(u)| / u du`` and ``int |phi_V| / u^2``.

        Uses only the null factor (``|phi_f| <= 1`` for the others) with
        multiplicity ``n_min``.  The octaves ``[u, 2u]`` are bisected where needed,
        all bands of a depth at once (numpy): on a band ``[u1, u2]`` the pairs whose
        phase ``u (w_l' - w_l)`` does not wrap bound ``1 - |phi_f|^2`` from below by
        their smaller end value (the module doc), so ``|phi_V| <= B = exp(-n_min D / 2
        - sg^2 u1^2 / 2)`` there, and the band adds ``B log(u2 / u1)`` to ``T1`` and
        ``B (u2 - u1) / (u1 u2)`` to ``T2``.  A band is final when ``B <= eps / 64``
        (``B <= eps`` after 14 bisections) or when its share of the integral,
        ``B log(u2 / u1)``, is below ``eps 2^-24``:
        a near return of the light law's phases (``|phi|^n`` not small on a stretch of
        width ~ ``1 / sd``, as for few categories at u ~ 10^9 -- 10^10) is then
        integrated, not refused.  After ``max_bands`` band bounds, bands with
        ``B <= eps`` are final and any other raises :class:`PrecisionError`.
        Returns ``(T1, T2)`` as floats rounded up.
        """
        import numpy as np
        probs, _ = self.ff[0]
        k = len(self.w)
        pairs = []
        for i in range(k):
            for j in range(i + 1, k):
                if n_min * probs[i] * probs[j] > 1e-6:
                    pairs.append((self.wf[j] - self.wf[i], 2 * probs[i] * probs[j]))
        pairs.sort()
        d_arr = np.array([d for d, _ in pairs], dtype=float)
        c_arr = np.array([c for _, c in pairs], dtype=float)
        wf = np.array(self.wf, dtype=float)
        pf = np.array(probs, dtype=float)
        Ug = math.sqrt(2 * math.log(1 / eps) + 20) / sg
        starts = [U1]
        while starts[-1] * 2 < Ug:
            starts.append(starts[-1] * 2)
        u1 = np.array(starts if U1 < Ug else [], dtype=float)
        u2 = np.minimum(2 * u1, Ug)
        chunk = max(1, 1_000_000 // max(1, len(d_arr)))

        def bound(a1, a2):
            return band_decay_bound(a1, a2, d_arr, c_arr, n_min, sg=sg, min_phase=1e-4)

        T1 = T2 = 0.0
        done = depth = 0
        while len(u1):
            B = np.concatenate([bound(u1[i:i + chunk], u2[i:i + chunk])
                                for i in range(0, len(u1), chunk)])
            done += len(u1)
            # u2 - u1 is exact (Sterbenz), so the logs and 1/u1 - 1/u2 keep their digits
            lg = np.log1p((u2 - u1) / u1)
            if done > max_bands:
                final = B <= eps
                if not final.all():
                    at = float(u1[np.argmax(~final)])
                    raise PrecisionError(
                        f"cannot prove the decay of the characteristic function near u={at:.3g}; "
                        "the requested resolution is finer than the light law's lattice")
            else:
                final = (B <= eps / 64) | (B * lg <= eps * 2.0**-24)
                if depth >= 14:
                    final |= B <= eps
                if not final.all():
                    # give up early where the light law is lattice-like: |phi_V| at a band's
                    # centre (float) so large that the lobe there, of width ~ 1 / sd, alone
                    # would exceed the budget (a choice, not a bound)
                    mid = (u1[~final] + u2[~final]) / 2
                    with one_blas_thread():
                        ph = np.abs(np.exp(1j * np.outer(mid, wf)) @ pf)
                    lv = (n_min * np.log(np.maximum(ph, 1e-300)) - sg * sg * mid ** 2 / 2
                          - np.log(mid * self.sdf))
                    if lv.max() > math.log(eps / 8):
                        at = float(mid[int(np.argmax(lv))])
                        raise PrecisionError(
                            f"the light law is lattice-like near u={at:.3g} (|phi| does not decay); "
                            "the requested resolution is finer than its lattice")
            T1 += float((B[final] * lg[final]).sum())
            T2 += float((B[final] * ((u2[final] - u1[final]) / (u1[final] * u2[final]))).sum())
            a, b = u1[~final], u2[~final]
            mid = (a + b) / 2
            u1, u2 = np.concatenate([a, mid]), np.concatenate([mid, b])
            depth += 1
        g = sg * sg * Ug * Ug
        tail = math.exp(-g / 2) / g
        T1 += tail
        T2 += tail / Ug
        self.decay_evals = done
        return T1 * (1 + 1e-9), T2 * (1 + 1e-9)

    # ----------------------------------------------------------- Fourier
    def fourier(self, s: arb, sg: float, U1: float, eps: float, T1: float, T2: float):
        """Certified ``(P[V > s], E|V - s|)`` for ``V = S_L + N(0, sg^2)``."""
        prec = self.prec
        with ctx.workprec(prec):
            # centred weights: the integrand stays O(1) on the complex ellipses
            cen = [([x - m for x in self.w], probs, mult, m) for (probs, mult), m in
                   zip(self.factors, self.fmeans)]
            sc = s - self.mean
            sg2h = arb(sg) ** 2 / 2
            i = acb(0, 1)

            def g_pair(z):
                gp = gm = acb(1)
                for wc, probs, mult, _ in cen:
                    fp, fm = _cf_pair(probs, wc, z)
                    gp *= fp ** mult
                    gm *= fm ** mult
                sh = (-i * z * sc).exp()
                ga = (-sg2h * z * z).exp()
                return gp * sh * ga, gm / sh * ga

            def F(z, analytic):
                gp, gm = g_pair(z)
                return (gp - gm) / (2 * i * z) + i * (1 - (gp + gm) / 2) / (z * z)

            d = self.mean - s
            m2 = d * d + self.var + arb(sg) ** 2
            # E (V - s)^4 <= 8 (d^4 + E (V - mean)^4),  E (V - mean)^4 <= 3 var^2 + k4 (+ Gauss)
            vv = self.var + arb(sg) ** 2
            m4 = 8 * (d ** 4 + 3 * vv * vv + self.k4)
            m3 = m4 ** arb(0.75)
            M = max(float(m4.upper()) ** 0.25, 1e-300)
            d0 = min((eps / 10) ** (1 / 3) / M, U1 / 4)
            a0 = arb(d0)
            I = acb.integral(F, a0, arb(U1), abs_tol=arb(eps) / 16, rel_tol=arb(2) ** -60,
                             eval_limit=2_000_000, deg_limit=200)
            I1 = I.real + d * a0 + arb(0, float((a0 ** 3 * m3 / 18).upper())) + arb(0, T1)
            I2 = (I.imag + m2 * a0 / 2 + arb(0, float((a0 ** 5 * m4 / 120).upper()))
                  + 1 / arb(U1) + arb(0, T2))
            P = arb(1) / 2 + I1 / arb.pi()
            A = 2 * I2 / arb.pi()
            return P, A


def _cf_pair(probs, xs, z):
    """Enclosures of ``f(+-z) = sum_l p_l e^{+-i z x_l}`` for every ``z`` in the ball ``z``.

    A ball of radius ``r > 0`` (the ellipses of the rigorous quadrature) gets the
    mean-value form ``f(z) in f(m) + f'(m) (z - m) + R`` around its centre ``m``,
    ``|R| <= r^2 / 2 max |f''| <= r^2 / 2 sum_l p_l x_l^2 e^{(|Im m| + r) |x_l|}``
    (Taylor with the integral remainder on the segment ``[m, z]``).  With centred
    ``x_l`` the term ``f'(m)`` is of order ``|m| var`` instead of the ``r sum p |x|``
    that evaluating each exponential on the ball gives; raised to the power ``n``
    (the users) the naive enclosure inflates like ``exp(n r E|x|)``, i.e. with
    ``sqrt(n)``, and the quadrature then subdivides ~``sqrt(N)`` times more.
    """
    i = acb(0, 1)
    r = z.rad()
    if r == 0:
        e = [(i * z * x).exp() for x in xs]
        return (sum((p * ei for p, ei in zip(probs, e)), acb(0)),
                sum((p / ei for p, ei in zip(probs, e)), acb(0)))
    m = z.mid()
    dz = z - m
    e = [(i * m * x).exp() for x in xs]
    f0p = f0m = f1p = f1m = acb(0)
    for p, x, ei in zip(probs, xs, e):
        a, b = p * ei, p / ei
        f0p += a
        f0m += b
        f1p += a * x
        f1m += b * x
    grow = abs(m.imag) + r
    B2 = sum((p * x * x * (grow * abs(x)).exp() for p, x in zip(probs, xs)), arb(0))
    rem = arb(0, float((r * r * B2 / 2).upper()) * (1 + 1e-9))
    R = acb(rem, rem)
    return f0p + i * f1p * dz + R, f0m - i * f1m * dz + R


def _fourier_mix(law0: "_Light", nodes, shift: arb, sg: float, U1: float, eps: float,
                 *, T1: float, T2: float, W: arb, prec: int):
    """Certified ``(sum P P[V_n > x], sum P E|V_n - x|)`` over nodes ``(n, s, P, law_n)``,
    ``x = s + shift``, ``V_n = S_L(n) + N(0, sg^2)``: one Gil-Pelaez integral of the
    mixed characteristic function ``sum P e^{-iux} phi_n(u)`` (the formulas of the
    module doc are linear in the law).  ``law0`` gives the factors (its first factor
    is the null light user, repeated ``n`` times; a second one the changed user);
    ``T1``, ``T2`` bound the tails of one law beyond ``U1`` (times ``W = sum P``)."""
    with ctx.workprec(prec):
        (pf, _), *rest = law0.factors
        mf = law0.fmeans[0]
        wcf = [x - mf for x in law0.w]
        out = None
        if rest:
            po, _ = rest[0]
            mo = law0.fmeans[1]
            out = (po, [x - mo for x in law0.w])
        groups = {}
        for n, s, P, law in nodes:
            # centred threshold: x - mean of the node's light law
            groups.setdefault(n, []).append((P, s + shift - law.mean))
        ns = sorted(groups)
        steps = [ns[0]] + [b - a for a, b in zip(ns, ns[1:])]
        sg2h = arb(sg) ** 2 / 2
        i = acb(0, 1)

        def F(z, analytic):
            fp, fm = _cf_pair(pf, wcf, z)
            gp = gm = acb(0)
            cp, cm = acb(1), acb(1)
            for n, k in zip(ns, steps):
                cp *= fp ** k
                cm *= fm ** k
                sp = sm = acb(0)
                for P, c in groups[n]:
                    h = (-i * z * c).exp()
                    sp += P * h
                    sm += P / h
                gp += cp * sp
                gm += cm * sm
            ga = (-sg2h * z * z).exp()
            if out is not None:
                op, om = _cf_pair(*out, z)
                gp *= op
                gm *= om
            gp *= ga
            gm *= ga
            return (gp - gm) / (2 * i * z) + i * (W - (gp + gm) / 2) / (z * z)

        # Taylor piece on [0, d0] and moment terms, summed over the nodes
        sg2 = arb(sg) ** 2
        SD = SM2 = SM3 = SM4 = arb(0)
        Mmax = 1e-300
        for n, s, P, law in nodes:
            d = law.mean - (s + shift)
            vv = law.var + sg2
            m4 = 8 * (d ** 4 + 3 * vv * vv + law.k4)
            SD += P * d
            SM2 += P * (d * d + law.var + sg2)
            SM3 += P * m4 ** arb(0.75)
            SM4 += P * m4
            Mmax = max(Mmax, float(m4.upper()) ** 0.25)
        Wf = max(float(W.upper()), 1e-300)
        d0 = min((eps / Wf / 10) ** (1 / 3) / Mmax, U1 / 4)
        a0 = arb(d0)
        I = acb.integral(F, a0, arb(U1), abs_tol=arb(eps) / 16, rel_tol=arb(2) ** -60,
                         eval_limit=2_000_000, deg_limit=200)
        I1 = (I.real + SD * a0 + arb(0, float((a0 ** 3 * SM3 / 18).upper()))
              + arb(0, float((W * T1).upper())))
        I2 = (I.imag + SM2 * a0 / 2 + arb(0, float((a0 ** 5 * SM4 / 120).upper()))
              + W / arb(U1) + arb(0, float((W * T2).upper())))
        return W / 2 + I1 / arb.pi(), 2 * I2 / arb.pi()


# --------------------------------------------------------------------------- driver
def _pmf_window(n: int, th: arb, thf: float, tol: float, split: bool = False):
    """Values ``k`` of ``Bin(n, th)`` with pmf (arb), plus a bound on the mass
    outside ``[ka, kb]`` (geometric bounds from the monotone pmf ratio)."""
    mode = min(n, int((n + 1) * thf))
    lp = (arb(n + 1).lgamma() - arb(mode + 1).lgamma() - arb(n - mode + 1).lgamma()
          + mode * th.log() + (n - mode) * (1 - th).log())
    pm = lp.exp()
    r = th / (1 - th)
    out = {mode: pm}
    k, p = mode, pm
    # upwards
    while k < n:
        p = p * (n - k) / (k + 1) * r
        k += 1
        out[k] = p
        ratio = float(((n - k) / arb(k + 1) * r).upper())
        if ratio < 1 and float(p.upper()) / (1 - ratio) < tol:
            break
    kb = k
    up_tail = 0.0
    if kb < n:
        ratio = float(((n - kb) / arb(kb + 1) * r).upper())
        up_tail = float(p.upper()) * ratio / (1 - ratio)
    k, p = mode, pm
    while k > 0:
        p = p * k / ((n - k + 1) * r)
        k -= 1
        out[k] = p
        ratio = float((k / (arb(n - k + 1) * r)).upper())
        if ratio < 1 and float(p.upper()) / (1 - ratio) < tol:
            break
    ka = k
    lo_tail = 0.0
    if ka > 0:
        ratio = float((ka / (arb(n - ka + 1) * r)).upper())
        lo_tail = float(p.upper()) * ratio / (1 - ratio)
    if split:
        return sorted(out.items()), lo_tail * (1 + 1e-9), up_tail * (1 + 1e-9)
    return sorted(out.items()), (up_tail + lo_tail) * (1 + 1e-9)


def _excess_pair(ea: Interval, eb: Interval, mean: Fraction, s: arb):
    """Tighten ``ea`` (enclosing ``E(S - s)+``) and ``eb`` (``E(s - S)+``) by the exact
    identity ``E(S - s)+ - E(s - S)+ = E S - s`` (``mean = E S``, ``s`` an arb ball):
    each is intersected with the other shifted by ``mean - s``.

    >>> a, b = _excess_pair(Interval(Fraction(0), Fraction(1)), Interval(Fraction(2), Fraction(2)),
    ...                     Fraction(3), arb(4))
    >>> a, b
    (Interval[1, 1], Interval[2, 2])
    """
    s_lo, s_hi = _lo(s), _hi(s)
    ea2 = Interval(max(mean - s_hi + eb.lower, Fraction(0)), max(mean - s_lo + eb.upper, Fraction(0)))
    eb2 = Interval(max(s_lo - mean + ea.lower, Fraction(0)), max(s_hi - mean + ea.upper, Fraction(0)))
    return ea.intersect(ea2), eb.intersect(eb2)


class _Acc:
    """Accumulate lower/upper arb sums."""

    def __init__(self):
        self.lo = arb(0)
        self.hi = arb(0)

    def add(self, P, lo, hi):
        self.lo += P * lo
        self.hi += P * hi

    def interval(self, clip=None):
        lo, hi = _lo(self.lo), _hi(self.hi)
        lo = max(lo, Fraction(0))
        if clip is not None:
            hi = min(hi, Fraction(clip))
        return Interval(min(lo, hi), hi)


def split_sums(mech: Mechanism, N: int, s, *, outlier: bool = False, excess: bool = False,
               tol: float = 1e-20, resolution: float | None = None, prec: int = 160,
               omega: float = OMEGA, max_nodes: int = 200_000, progress=None,
               min_count: float | None = None) -> SplitSums:
    """Certified ``P[S > s]``, ``P[S < s]`` (and ``E(S - s)+``, ``E(s - S)+``).

    ``S = sum_i w(Y_i)`` over ``N`` users of the null law, or (``outlier``) over
    ``N - 1`` null users and the changed user of ``D_m`` (the forward law).
    ``s`` is a Fraction or an arb ball (e.g. ``e^eps``).  ``tol`` bounds the
    heavy mass left unexpanded per node and the quadrature error;
    ``resolution`` the smoothing half-width ``a`` (default ``tol``-driven);
    ``min_count`` the plan's count threshold (:func:`split_plan`; default: the
    values of :data:`MIN_COUNTS` in turn, the next when the first plan's light law
    cannot be proved smooth enough).

    >>> r = split_sums(Mechanism(40, "0.351"), 10**7, Fraction(15, 2), outlier=True, tol=1e-8)
    >>> r.p_above.lower > 0, r.p_above.relative_width() < 1e-3
    (True, True)
    """
    err = None
    for mc in ((min_count,) if min_count is not None else MIN_COUNTS):
        try:
            return _split_sums(mech, N, s, outlier, excess, tol, resolution=resolution, prec=prec, omega=omega,
                               max_nodes=max_nodes, progress=progress, min_count=mc)
        except PrecisionError as e:     # the light law's smoothness not provable: more heavy
            err = e
    raise err


def _split_sums(mech, N, s, outlier, excess, tol, *, resolution, prec, omega, max_nodes, progress,
                min_count):
    if outlier and excess:
        raise ValueError("excess sums are defined under the null law (outlier=False)")
    t0 = time.time()
    L = mech.L
    plan = split_plan(mech, N, omega, min_count)
    with ctx.workprec(prec):
        s_arb = s if isinstance(s, arb) else _arb(Fraction(s))
        pi0 = [_arb(x) for x in mech.pi0]
        pi1 = [_arb(x) for x in mech.pi1]
        w = [_arb(x / N) for x in mech.c]
        light = list(plan.light)
        heavy = list(plan.heavy)                 # top first
        pl_tot = sum((pi0[l] for l in light), arb(0))
        pl = [pi0[l] / pl_tot for l in light]
        p1l_tot = sum((pi1[l] for l in light), arb(0))
        wl = [w[l] for l in light]
        sf = float(s_arb)
        sg_base = plan.sigma_light
        a0 = resolution if resolution is not None else max(sg_base * tol, sg_base * 1e-14)
        gtail = arb(0.5) * (arb(K_SMOOTH) / arb(2).sqrt()).erfc()   # P[G > a]
        n_users = N - 1 if outlier else N
        # heavy users a node may hold: their count is Bin(n_users, sum of the heavy pi0);
        # beyond mean + 20 sqrt(mean) + 100 its mass is below 1e-60 (Bernstein; the walk stops
        # with a CapacityError there); the decay is proved for the fewest light users left
        mu_h = n_users * float(sum((pi0[l] for l in heavy), arb(0)).upper())
        n_slack = min(n_users // 2, 10_000, math.ceil(mu_h + 20 * math.sqrt(mu_h) + 100)) if heavy else 0
        eps_int = tol / 4
        stats = {"nodes": 0, "integrals": 0}
        cache = {}

        def light_only(n, with_outlier):
            """The light law of ``n`` null users (+ the light changed user) alone (its
            smoothness is proved only for the batch's integral, by :func:`light_law`)."""
            key = ("law", n, with_outlier)
            if key not in cache:
                facs = [(pl, n)]
                if with_outlier:
                    facs.append(([pi1[l] / p1l_tot for l in light], 1))
                cache[key] = _Light(wl, facs, prec)
            return cache[key]

        def light_law(n, with_outlier):
            """The light law of ``n`` null users (+ the light changed user), its
            smoothing half-width ``a`` (the finest at which the decay of its
            characteristic function is proved, starting from ``a0``) and tail bounds."""
            key = (n, with_outlier)
            if key not in cache:
                if ("decay", with_outlier) not in cache:
                    cache[("decay", with_outlier)] = {}
                decay = cache[("decay", with_outlier)]
                law = light_only(n, with_outlier)
                U1 = (math.sqrt(2 * math.log(1 / eps_int) + 10) + 4) / law.sdf
                n_min = max(2, n_users - n_slack)

                def decay_at(aa):
                    # proved once for the fewest users any node can have (|phi| <= 1)
                    dk = (aa, U1)
                    if dk not in decay:
                        decay[dk] = (law.decay_bands(n_min, U1, aa / K_SMOOTH, eps_int), law.decay_evals)
                    return decay[dk]

                aa = a0
                probe = law.sdf * 1e-6
                if aa < probe:
                    # a coarse probe first: the bands the proof needs grow like 1 / sg, so its
                    # count says which finer resolution is affordable (a choice of resolution,
                    # never a bound: any resolution proved gives an enclosure)
                    try:
                        nb = decay_at(probe)[1]
                        aa = max(aa, min(probe, nb * probe / (DECAY_MAX_BANDS / 16)))
                    except PrecisionError:
                        aa = probe * 10     # finer ones fail too: coarser from here
                while True:
                    try:
                        T = decay_at(aa)[0]
                        break
                    except PrecisionError:
                        if aa > law.sdf * 1e-2:
                            raise PrecisionError(
                                "cannot certify the light law's smoothness at any useful "
                                "resolution; use the tree strategy") from None
                        aa *= 10
                sg = aa / K_SMOOTH
                cache[key] = (law, U1, T, aa, sg)
            return cache[key]

        pending = {False: [], True: []}     # light nodes left to the batched Fourier integral

        def light_eval(n, with_outlier, sl: arb, want_ex: bool, P):
            """Enclosures (pa_lo, pa_hi, exa_lo, exa_hi, exb_lo, exb_hi) for S_L vs sl from
            the Chernoff bound, or ``None`` (the node joins the batched Fourier integral)."""
            pm = float(P.upper())
            law = light_only(n, with_outlier)
            r = chernoff_decide(law, sl, pm)
            if r is not None:
                return r
            pending[with_outlier].append((n, sl, P))
            return None

        def light_batch(with_outlier, items):
            """Add the Fourier enclosures of all pending light nodes (one integral per
            shift ``s -+ a``: the Gil-Pelaez integrals are linear in the node mixture)."""
            n0 = min(n for n, _, _ in items)
            law0, U1, (T1, T2), a, sg = light_law(n0, with_outlier)
            laws = {n: light_only(n, with_outlier) for n in {n for n, _, _ in items}}
            W = sum((P for _, _, P in items), arb(0))
            ex_gauss = arb(sg) / (2 * arb.pi()).sqrt()
            stats["integrals"] += 2
            aa = arb(a)
            nodes = [(n, sl, P, laws[n]) for n, sl, P in items]
            # quadrature tolerance: each node's share of the budget, as for a single node
            Wf = float(W.upper())
            eps_c = min(max(eps_int * Wf, tol * 1e-2 * len(items)), 1e-3 * Wf)
            SPp, SAp = _fourier_mix(law0, nodes, -aa, sg, U1, eps_c, T1=T1, T2=T2, W=W, prec=prec)
            SPm, SAm = _fourier_mix(law0, nodes, aa, sg, U1, eps_c, T1=T1, T2=T2, W=W, prec=prec)
            dm = sum((P * (law.mean - sl) for _, sl, P, law in nodes), arb(0))  # sum P (mean - s)
            # sum P P[S_L > s]: [sum P P_V(s + a) - W Q, sum P P_V(s - a) + W Q]
            pa_lo, pa_hi = SPm - W * gtail, SPp + W * gtail
            acc_a.lo += pa_lo
            acc_a.hi += pa_hi
            acc_b.lo += W - pa_hi
            acc_b.hi += W - pa_lo
            if excess:
                acc_ea.hi += (dm + W * aa + SAp) / 2
                acc_ea.lo += (dm - W * aa + SAm) / 2 - W * ex_gauss
                acc_eb.hi += (-dm + W * aa + SAm) / 2
                acc_eb.lo += (-dm - W * aa + SAp) / 2 - W * ex_gauss

        acc_a, acc_b, acc_ea, acc_eb = _Acc(), _Acc(), _Acc(), _Acc()
        dropped = arb(0)
        dropped_ex = arb(0)
        dropped_eb = arb(0)         # E(s - S)+ of the dropped nodes: mass times (s - min S)+

        def below_gap(Hmin):
            """An exact arb >= (s - Hmin)+ (S >= Hmin on the node: weights are positive)."""
            d = s_arb - Hmin
            if d < 0:
                return arb(0)
            return arb(max(float(d.upper()), 0.0) * (1 + 1e-9) + 1e-300)
        # conditional mean weight of a null user restricted to categories <= l
        cum = {}
        run = arb(0)
        runw = arb(0)
        for l in range(L + 1):
            run += pi0[l]
            runw += pi0[l] * w[l]
            cum[l] = (run, runw / run)

        def rest_chernoff(top, n_rem, light_outlier, sl, P):
            """Decide a node by the Chernoff bound of everything not yet fixed
            (``n_rem`` null users over the categories ``<= top``, plus the changed
            user when it is light): ``(lo, hi)`` enclosing ``P[rest > sl]`` when one
            side has probability below ``tol * 1e-3``, else ``None``."""
            pm = float(P.upper())
            cats = list(range(top + 1))
            tot = cum[top][0]
            facs = [([pi0[l] / tot for l in cats], n_rem)]
            if light_outlier:
                facs.append(([pi1[l] / p1l_tot if l in light_set else arb(0) for l in cats], 1))
            law = _Light([w[l] for l in cats], facs, prec)
            return chernoff_decide(law, sl, pm)

        def chernoff_decide(law, sl, pm):
            """Enclosures (pa_lo, pa_hi, exa_lo, exa_hi, exb_lo, exb_hi, pb_lo, pb_hi) of ``law`` against
            ``sl`` from its Chernoff bound, when the far side weighs below the node's
            share ``tol / 100`` of the budget (``pm`` the node's mass), else ``None``."""
            z = (float(sl) - law.meanf) / law.sdf
            if abs(z) <= 3:
                return None
            above = z > 3
            end = float(sl.lower()) if above else float(sl.upper())
            d = -math.inf if above else math.inf
            B, E = law.chernoff(math.nextafter(math.nextafter(end, d), d), above)
            if E is None or float(B.upper()) * pm >= tol * 1e-2:
                return None
            Bu, Eu = _up(B), _up(E)
            if above:
                return (arb(0), Bu, arb(0), Eu, sl - law.mean, sl - law.mean + Eu, 1 - Bu, arb(1))
            # (pb_lo, pb_hi) last: the far side's bound itself, not 1 - (1 - Bu), whose
            # rounding (~2^-prec) would swamp a bound far below it
            return (1 - Bu, arb(1), law.mean - sl, law.mean - sl + Eu, arb(0), Eu, arb(0), Bu)

        light_set = set(light)

        def dropped_side(level_idx, l, n_rem, H, k, M, *, light_outlier, above):
            """The children ``T_l = k' <= k`` (``above``: ``>= k``) of a node, mass ``M``,
            not expanded.  ``S`` is stochastically increasing in ``T_l`` (a user moved
            into category ``l`` has the largest weight still free), so
            ``P[S > s | T_l = k'] <= P[S > s | T_l = k]`` for ``k' <= k`` (``>=`` for
            ``k' >= k``): one Chernoff bound of the child ``k`` bounds the whole side;
            when it does not decide, the side's mass is dropped (width)."""
            nonlocal dropped
            Hk = H + k * w[l]
            if above and Hk > s_arb:
                acc_a.add(M, arb(1), arb(1))        # every such completion lies above s
                return
            r = None
            if not (Hk > s_arb):
                r = rest_chernoff(l - 1, n_rem - k, light_outlier, s_arb - Hk, M)
            if r is not None and not above and float(r[1].upper()) < 1:
                acc_a.add(M, arb(0), r[1])
                acc_b.add(M, 1 - r[1], arb(1))
            elif r is not None and above and float(r[0].lower()) > 0:
                acc_a.add(M, r[0], arb(1))
                acc_b.add(M, arb(0), r[7])
            else:
                dropped += M

        def walk(level_idx, n_rem, H, P, light_outlier):
            """Enumerate heavy counts from heavy[level_idx] down."""
            nonlocal dropped, dropped_ex, dropped_eb
            if n_rem < n_users - n_slack:
                raise CapacityError("the heavy categories hold too many users for this strategy; "
                                    "use the tree strategy")
            stats["nodes"] += 1
            if stats["nodes"] > max_nodes:
                raise CapacityError(f"the heavy enumeration exceeds {max_nodes} nodes; "
                                    "ask for fewer digits")
            if progress is not None and stats["nodes"] % 200 == 0:
                progress(stats["nodes"])
            if H > s_arb:
                # every completion lies above s (weights are positive)
                acc_a.add(P, arb(1), arb(1))
                if excess:
                    top = heavy[level_idx] if level_idx < len(heavy) else light[-1]
                    rest = n_rem * cum[top][1]
                    acc_ea.add(P, H + rest - s_arb, H + rest - s_arb)
                return
            if level_idx < len(heavy):
                r = rest_chernoff(heavy[level_idx], n_rem, light_outlier, s_arb - H, P)
                if r is not None:
                    acc_a.add(P, r[0], r[1])
                    acc_b.add(P, r[6], r[7])
                    if excess:
                        acc_ea.add(P, r[2], r[3])
                        acc_eb.add(P, r[4], r[5])
                    return
            if level_idx == len(heavy):
                r = light_eval(n_rem, light_outlier, s_arb - H, excess, P)
                if r is None:
                    return
                acc_a.add(P, r[0], r[1])
                acc_b.add(P, r[6], r[7])
                if excess:
                    acc_ea.add(P, r[2], r[3])
                    acc_eb.add(P, r[4], r[5])
                return
            l = heavy[level_idx]
            tot_le, _ = cum[l]
            th = pi0[l] / tot_le
            if not excess:
                vals, tail_lo, tail_hi = _pmf_window(n_rem, th, float(th), tol * 1e-3, split=True)
                keep = [k for k, pk in vals if float((P * pk).upper()) >= tol]
                if keep:
                    # the children below (above) the expanded ones: one bound per side
                    k1, k2 = keep[0], keep[-1]
                    low = P * (arb(tail_lo) + sum((pk for k, pk in vals if k < k1), arb(0)))
                    high = P * (arb(tail_hi) + sum((pk for k, pk in vals if k > k2), arb(0)))
                    if k1 > 0:
                        dropped_side(level_idx, l, n_rem, H, k1 - 1, low, light_outlier=light_outlier, above=False)
                    if k2 < n_rem:
                        dropped_side(level_idx, l, n_rem, H, k2 + 1, high, light_outlier=light_outlier, above=True)
                    for k, pk in vals:
                        if k1 <= k <= k2:
                            walk(level_idx + 1, n_rem - k, H + k * w[l], P * pk, light_outlier)
                    return
                dropped += P * arb(tail_lo + tail_hi)
                vals = [(k, pk) for k, pk in vals]
            else:
                vals, tail = _pmf_window(n_rem, th, float(th), tol * 1e-3)
                dropped += P * arb(tail)
                dropped_ex += P * arb(tail) * (H + n_rem * w[l])
                dropped_eb += P * arb(tail) * below_gap(H)
            for k, pk in vals:
                Pk = P * pk
                if float(Pk.upper()) < tol:
                    dropped += Pk
                    if excess:
                        dropped_ex += Pk * (H + k * w[l] + (n_rem - k) * cum[l][1])
                        dropped_eb += Pk * below_gap(H + k * w[l])
                    continue
                walk(level_idx + 1, n_rem - k, H + k * w[l], Pk, light_outlier)

        if outlier:
            # the changed user of D_m: a heavy category (fixed shift) or light (a factor)
            for l in heavy:
                if float(pi1[l].upper()) < tol * 1e-3:
                    dropped += pi1[l]
                    continue
                walk(0, n_users, w[l], pi1[l], False)
            walk(0, n_users, arb(0), p1l_tot, True)
        else:
            walk(0, n_users, arb(0), arb(1), False)

        for wo in (False, True):
            if pending[wo]:
                light_batch(wo, pending[wo])
        dmass = float(dropped.upper()) * (1 + 1e-9)
        pa = acc_a.interval(1)
        pb = acc_b.interval(1)
        pa = Interval(pa.lower, min(Fraction(1), pa.upper + Fraction(dmass)))
        pb = Interval(pb.lower, min(Fraction(1), pb.upper + Fraction(dmass)))
        ea = eb = None
        if excess:
            ea = acc_ea.interval()
            ea = Interval(ea.lower, ea.upper + Fraction(float(dropped_ex.upper()) * (1 + 1e-9)))
            eb = acc_eb.interval()
            # a dropped node adds at most its mass times (s - min S)+ <= its mass times s
            eb = Interval(eb.lower, eb.upper + Fraction(float(dropped_eb.upper()) * (1 + 1e-9)))
            # the identity E(S - s)+ = E S - s + E(s - S)+ with E S exact: the below excess
            # charges a dropped node at most s times its mass (the above excess, its largest
            # value), so each side also encloses the other; both enclosures hold
            ea, eb = _excess_pair(ea, eb, Fraction(n_users) * sum(
                (a * c for a, c in zip(mech.pi0, mech.c)), Fraction(0)) / N, s_arb)
    return SplitSums(pa, pb, ea, eb, tuple(heavy), stats["nodes"], stats["integrals"],
                     time.time() - t0, dmass)


# --------------------------------------------------------------------------- shared pieces
#: The light law (independent users over the light categories: moments, Chernoff bounds,
#: proved decay of the characteristic function, single Gil-Pelaez integrals), public for
#: the k-copies strategy :mod:`exactdp.reductions.kfourier`, which reuses it unchanged.
LightLaw = _Light
#: ``pmf_window(n, theta, float(theta), tol)``: the binomial pmf window with its tail bound.
pmf_window = _pmf_window
#: ``cf_pair(probs, xs, z)``: enclosures of ``f(+-z) = sum_l p_l e^{+-i z x_l}`` on a ball
#: ``z`` (mean-value form), public for the tilted strategy :mod:`exactdp.engine.tilted`.
cf_pair = _cf_pair
