"""Inverse privacy queries on a distribution: eps(delta), eps(eta), quantiles, bins.

All are certified brackets: a float64 search (fast mode) proposes the
crossing point, then the certified engine proves the target violated on one
side and met on the other, widening or bisecting when the proposal was off.
A comparison that cannot be decided at the working precision is retried with
more digits; it never answers "no".
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..core import domains
from ..core.errors import CapacityError, DigitsNotMetError, ParameterError, PrecisionError
from ..core.interval import Interval
from ..core.lam import ln_interval

__all__ = ["smallest_epsilon", "quantile", "bin_masses", "rational_near", "crossing", "MIN_TARGET"]

#: Smallest eta/delta target of :func:`smallest_epsilon`: its screening runs in
#: float64, whose normal range ends near 2.2e-308.
MIN_TARGET = Fraction(1, 10**300)
#: Most (and default) digits of :func:`smallest_epsilon` under the Fourier strategy
#: (exactdp.engine.largen): each comparison needs eta/delta to a few more digits than eps.
FOURIER_EPS_DIGITS = 4


def _sci(x: Fraction) -> str:
    from decimal import Decimal, localcontext
    with localcontext() as c:
        c.prec = 6
        return f"{Decimal(x.numerator) / Decimal(x.denominator):.3g}"


def rational_near(x: float, rel: float) -> Fraction:
    """A short rational within relative distance ``rel`` of ``x`` (x > 0)."""
    f = Fraction(x)
    if rel <= 1e-15:
        return f
    return f.limit_denominator(max(10, int(4 / rel) + 1))


def crossing(g_exact, g_fast, lo: float, hi: float, target: Fraction, digits: int,
              *, decreasing: bool = True, log_scale: bool = True, smooth: bool = False,
              relative_to_log: bool = False, coarse: bool = False):
    """Certified bracket ``(a, b)`` of rationals around the crossing of a
    monotone g with ``target``:

    * decreasing g: g(a) > target and g(b) <= target (smallest x with g(x) <= target);
    * increasing g: g(a) < target and g(b) >= target (smallest x with g(x) >= target);

    with ``b - a <= 10^-digits * b``.  A float search on ``g_fast`` proposes the
    point; certified evaluations expand a bracket around it and shrink it by
    safeguarded secant steps.  An evaluation whose enclosure contains the
    target is repeated with more digits; it is never guessed.

    ``coarse`` (expensive ``g_fast``, e.g. the Fourier strategy): the float search
    stops at relative 1e-3 and the first certified points straddle the proposal
    (never at the crossing itself, which no finite precision decides cheaply).
    """
    tgt = float(target)

    def side(x: Fraction) -> tuple[int, float]:
        """+1: target met at x, -1: violated; with the midpoint value."""
        dg = digits + 6
        for _ in range(4):
            v = g_exact(x, dg)
            if decreasing:
                if v.upper <= target:
                    return 1, float(v.mid)
                if v.lower > target:
                    return -1, float(v.mid)
            else:
                if v.lower >= target:
                    return 1, float(v.mid)
                if v.upper < target:
                    return -1, float(v.mid)
            dg += 10
        raise PrecisionError(f"cannot decide g({x}) against the target {target} at {dg} digits")

    # 1. float bisection on the fast estimates
    a, b = lo, hi
    stop = 1e-3 if coarse else 10.0**(-digits - 3)
    for _ in range(300):
        if b - a <= max(abs(b), 1e-300) * stop:
            break
        mid = math.sqrt(a * b) if (log_scale and a > 0) else 0.5 * (a + b)
        v = g_fast(mid)
        if (v <= tgt) if decreasing else (v >= tgt):
            b = mid
        else:
            a = mid
    x0 = b
    if relative_to_log and 1 < x0:
        # the answer is ln(x): its relative width is (db/b) / ln(b)
        digits += max(0, math.ceil(-math.log10(math.log(x0)))) + 1
    rel = 10.0**(-digits)
    if smooth and tgt > 0:
        x0 = _log_secant(g_exact, g_fast, x0, lo, hi, tgt, digits=digits)
    # 2. certified expansion around x0 until the target is bracketed
    h = rel / 4
    xa = xb = None
    if coarse:
        # straddle the proposal: met expected at x0 (1 + h), violated at x0 (1 - h)
        x = rational_near(min(max(x0 * (1 + h), lo), hi), h / 8)
        s0, v0 = side(x)
        if s0 > 0:
            xb, vb = x, v0
            x = rational_near(min(max(x0 * (1 - h), lo), hi), h / 8)
            s0, v0 = side(x)
    else:
        x = rational_near(x0, h / 8)
        s0, v0 = side(x)
    if s0 > 0:
        if xb is None or x < xb:
            xb, vb = x, v0
    else:
        xa, va = x, v0
    step = h
    while xa is None or xb is None:
        if xa is None:          # go left
            y = float(xb) * (1 - step)
            y = max(y, lo)
            xy = rational_near(y, h / 8) if y > lo else Fraction(lo)
            sy, vy = side(xy)
            if sy < 0:
                xa, va = xy, vy
            else:
                xb, vb = xy, vy
                if y <= lo:
                    raise PrecisionError("target met at the lower end of the search range")
        else:                   # go right
            y = min(float(xa) * (1 + step), hi)
            xy = rational_near(y, h / 8) if y < hi else Fraction(hi)
            sy, vy = side(xy)
            if sy > 0:
                xb, vb = xy, vy
            else:
                xa, va = xy, vy
                if y >= hi:
                    raise PrecisionError("target not met at the upper end of the search range")
        step *= 4
    # 3. shrink by safeguarded secant (regula falsi on certified midpoints)
    for _ in range(200):
        width = xb - xa
        if width <= xb * Fraction(rel):
            return xa, xb
        fa, fb = va - tgt, vb - tgt
        t = 0.5
        if fa != fb:
            t = fa / (fa - fb)
        t = min(max(t, 0.1), 0.9)
        y = float(xa) + t * float(width)
        xy = rational_near(y, rel / 64)
        if not (xa < xy < xb):
            xy = (xa + xb) / 2
        sy, vy = side(xy)
        if sy > 0:
            xb, vb = xy, vy
        else:
            xa, va = xy, vy
    raise PrecisionError("could not shrink the bracket; try fewer digits")


def _log_secant(g_exact, g_fast, x0, lo, hi, tgt, *, digits):
    """Refine the crossing of a smooth positive g in log-log coordinates,
    using certified midpoints (each step: one certified evaluation)."""
    def lg(v):
        return math.log(v) if v > 0 else -745.0
    h = max(10.0**(-digits - 2), 1e-13)
    f1, f2 = g_fast(x0 * (1 - 1e-4)), g_fast(x0 * (1 + 1e-4))
    slope = (lg(f2) - lg(f1)) / (math.log1p(1e-4) - math.log1p(-1e-4)) if f1 > 0 and f2 > 0 else None
    x = x0
    prev = None
    for _ in range(6):
        xq = rational_near(x, h)
        v = float(g_exact(xq, digits + 6).mid)
        if v <= 0:
            break
        err = lg(v) - math.log(tgt)
        if prev is not None and prev[0] != float(xq) and prev[1] != err:
            slope = (err - prev[1]) / (math.log(float(xq)) - math.log(prev[0]))
        prev = (float(xq), err)
        if slope is None or slope == 0 or not math.isfinite(slope):
            break
        step = -err / slope
        if abs(step) < 10.0**(-digits) / 8:
            break
        x = min(max(float(xq) * math.exp(max(min(step, 0.5), -0.5)), lo), hi)
    return x


def smallest_epsilon(dist, *, delta=None, eta=None, digits: int | None = None, progress=None,
                     max_seconds=None) -> Interval:
    """Smallest eps with ``delta(eps) <= target`` (or ``eta(eps) <= target``).

    Returns ``[ln lam_a, ln lam_b]`` where the target is certified violated at
    ``lam_a`` and met at ``lam_b``; the true smallest eps lies in between.
    ``digits`` (relative width ``10^-digits``) defaults to 10, or to
    :data:`FOURIER_EPS_DIGITS` (also its maximum) beyond the tree's capacity.
    """
    if (delta is None) == (eta is None):
        raise ParameterError("give exactly one of delta or eta as the target")
    name = "delta" if delta is not None else "eta"
    target = domains.TARGET.parse(delta if delta is not None else eta)
    if target < MIN_TARGET:
        raise ParameterError(
            f"{name} target must be in [1e-300, 1) (the engine's float64 screening cannot "
            f"resolve smaller probabilities), got {_sci(target)}")
    fourier = dist.choose_method() == "fourier"
    if digits is None:
        digits = FOURIER_EPS_DIGITS if fourier else 10
    digits = domains.DIGITS.parse(digits)
    if fourier and digits > FOURIER_EPS_DIGITS:
        raise ParameterError(
            f"digits must be at most {FOURIER_EPS_DIGITS} for epsilon at N={dist.N}, L={dist.L} "
            f"(Fourier strategy, beyond the tree's capacity), got {digits}; use --digits "
            f"{FOURIER_EPS_DIGITS} or less")
    q_fun = dist.delta if name == "delta" else dist.eta
    tgt = float(target)
    fast_tol = min(1e-16, max(tgt * 1e-6, 1e-300))

    def g_exact(lam: Fraction, dg: int) -> Interval:
        if hasattr(progress, "note"):                  # exactdp.core.progress.Progress
            progress.note(f"certifying lam = {float(lam):.10g}")
        if fourier:
            # beyond the tree's capacity the Fourier strategy answers; its cost grows with the
            # digits asked: 3 digits first, more only for comparisons they cannot decide
            # (crossing asks digits + 6, then 10 more per retry)
            retry = max(0, dg - digits - 6) // 10
            dg = min(digits + 3, 3 + 2 * retry)
        # a comparison needs an enclosure, not the digits: a wider one is used as is
        # (crossing asks again with more digits when it cannot decide)
        try:
            return q_fun(lam=lam, digits=dg, progress=progress, max_seconds=max_seconds)
        except DigitsNotMetError as e:
            return e.reached

    def g_fast(lam: float) -> float:
        lam_q = Fraction(lam)
        if lam_q < 1:
            lam_q = Fraction(1)
        return _fast_value(dist, name, lam_q, fast_tol)

    # eps = 0 already enough?
    g1 = q_fun(lam=Fraction(1), digits=1 if fourier else digits + 2, progress=progress,
               max_seconds=max_seconds)
    if g1.upper <= target:
        return Interval.exact(0)
    lam_max = float(dist.mechanism.ratio_max)
    if fourier:
        # every value is a costly certified enclosure: each asked only the digits its
        # comparison needs (exactdp.law.costly_crossing); eta = delta = 0 at ratio_max
        from .costly_crossing import decreasing_crossing

        def enclose(lam: Fraction, dg: int) -> Interval:
            if hasattr(progress, "note"):
                progress.note(f"certifying lam = {float(lam):.10g} ({dg} digits)")
            try:
                return q_fun(lam=lam, digits=dg, progress=progress, max_seconds=max_seconds)
            except DigitsNotMetError as e:
                return e.reached

        a, b = decreasing_crossing(enclose, Fraction(1), dist.mechanism.ratio_max, target,
                                   rel_u=0.9 * 10.0**(-digits),
                                   g_lo=g1 if g1.lower > target else None,
                                   guess=_sampled_guess(dist, tgt, name))
        return Interval(ln_interval(a).lower, ln_interval(b).upper)
    a, b = crossing(g_exact, g_fast, 1.0, lam_max, target, digits, decreasing=True,
                     smooth=(name == "delta" or fourier), relative_to_log=True, coarse=fourier)
    return Interval(ln_interval(a).lower, ln_interval(b).upper)


#: seeded Monte Carlo draws of R that place the first points of an eta search beyond the tree
GUESS_SAMPLES = 20_000


def _sampled_guess(dist, tgt: float, name: str):
    """``(ln lam, spread)`` where a seeded Monte Carlo sample of R puts eta (or delta =
    ``E (1 - lam/R)+``, the hockey-stick divergence; 000 itself defines only eta, (1.7); in
    both directions) at ``tgt``: placement only
    (:func:`exactdp.law.costly_crossing.decreasing_crossing` certifies); ``None`` when
    fewer than 30 draws lie above it."""
    import numpy as np
    if dist.direction not in ("forward", "reverse"):
        return None
    # delta's crossing lies deeper in the tail: up to 40 batches (8e5 draws, ~5 s)
    # until 30 draws lie above the sampled crossing (the sampled delta at the 30th largest
    # draw is at most tgt)
    batches = []
    rng = np.random.default_rng(0)
    for _ in range(1 if name == "eta" else 40):
        batches.append(dist.mechanism.sample_ratio(dist.N, GUESS_SAMPLES, dist.direction, rng=rng))
        n = GUESS_SAMPLES * len(batches)
        r = np.concatenate(batches)
        if name == "eta":
            break
        top = np.sort(r)[::-1][:30]
        if top.size == 30 and float((1 - top[-1] / top).sum()) / n <= tgt:
            break
    r = np.sort(r)[::-1]
    if name == "eta":
        def est(lam):
            return float(np.count_nonzero(r > lam)) / n
    else:
        def est(lam):
            top = r[r > lam]
            return float((1 - lam / top).sum()) / n

    def solve(t):
        lo, hi = 1.0, float(r[0])
        if not est(lo) > t:
            return None
        for _ in range(80):
            mid = math.sqrt(lo * hi)
            if est(mid) > t:
                lo = mid
            else:
                hi = mid
        return hi

    lam = solve(tgt)
    if lam is None or np.count_nonzero(r > lam) < 30:
        return None
    k = 3 / math.sqrt(float(np.count_nonzero(r > lam)))      # ~3 standard deviations
    lo, hi = solve(tgt * (1 + k)), solve(tgt * (1 - k))
    u = math.log(lam)
    if lo is None or hi is None or not u > 0:
        return None
    return u, max((math.log(hi) - math.log(lo)) / 2, 1e-6 * u)


def _fast_value(dist, name, lam: Fraction, tol: float) -> float:
    """Fast estimate of delta or eta at rational lam with a given truncation."""
    pr = dist
    if pr.direction == "pair":          # a general pair: a coarse certified enclosure's midpoint
        return float(getattr(pr, name)(lam=lam, digits=3).mid)
    def coarse():
        # a coarse certified enclosure's midpoint (exactdp.engine.largen)
        q = pr.eta if name == "eta" else pr.delta
        try:
            return float(q(lam=lam, digits=2, method="fourier").mid)
        except DigitsNotMetError as e:
            return float(e.reached.mid)

    if pr.choose_method(fast=True) == "fourier":
        # beyond the float tree; a light law too atomic to smooth falls back to the float tree
        try:
            return coarse()
        except PrecisionError:
            pass
    thr = pr._threshold(lam, None, 128)
    try:
        f = pr._fast(thr, tol)
    except CapacityError:
        # the float tree at this truncation is too big: the Fourier strategy instead
        return coarse()
    fwd = pr.direction == "forward"
    N = pr.N
    if name == "eta":
        return (f.tau_x * f.up_P + f.up_X) / N if fwd else f.lo_P
    if fwd:
        return f.up_X / N
    return f.lo_X / f.tau_x


def quantile(dist, prob, *, digits: int = 10, method: str = "exact") -> Interval:
    """``inf {x : P[R <= x] >= prob}`` enclosed as ``[x_a, x_b]``."""
    p = domains.TARGET.parse(prob)
    digits = domains.DIGITS.parse(digits)
    rmin = float(1 / dist.mechanism.ratio_max)
    rmax = float(dist.mechanism.ratio_max)

    def g_fast(x: float) -> float:
        return float(dist.cdf(Fraction(x), method="fast").value)

    def g_exact(x: Fraction, dg: int) -> Interval:
        try:
            return dist.cdf(x, digits=min(dg, 300))
        except DigitsNotMetError as e:
            return e.reached

    if method == "fast":
        a, b = rmin * 0.999, rmax
        for _ in range(200):
            mid = math.sqrt(a * b)
            if g_fast(mid) >= float(p):
                b = mid
            else:
                a = mid
            if b - a < b * 1e-13:
                break
        return Interval(Fraction(a), Fraction(b))
    a, b = crossing(g_exact, g_fast, rmin * 0.999, rmax, p, digits, decreasing=False)
    return Interval(a, b)


def bin_masses(dist, edges, *, digits: int = 15, method: str = "exact", progress=None):
    """``P[e_i < R <= e_{i+1}]`` for consecutive edges (cdf differences).

    Exact: each cdf value is certified, so each mass is an enclosure (clipped
    at 0).  Fast: float estimates.
    """
    edges = [domains.to_fraction(e, "edges") for e in edges]
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ParameterError("edges must be strictly increasing")
    cdfs = []
    for i, e in enumerate(edges):
        cdfs.append(dist.cdf(e, digits=digits, method=method))
        if progress is not None:
            progress(i + 1, len(edges))
    out = []
    for a, b in zip(cdfs, cdfs[1:]):
        if method == "exact":
            lo = max(b.lower - a.upper, Fraction(0))
            hi = max(b.upper - a.lower, Fraction(0))
            out.append(Interval(lo, hi))
        else:
            from ..core.estimate import Estimate
            out.append(Estimate(max(b.value - a.value, 0.0), a.error + b.error))
    return out
