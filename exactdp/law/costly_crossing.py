r"""Certified crossing of a decreasing function whose enclosures are costly (the Fourier strategy).

:func:`exactdp.law.queries.crossing` proposes the crossing by a float search on a fast
estimate, then certifies points around it and shrinks the bracket by secant steps whose
points approach the crossing, where no enclosure of bounded cost decides the comparison.
Beyond the tree's capacity every value is a certified enclosure of the heavy/light
Fourier strategy (:mod:`exactdp.engine.largen`), whose cost grows with the digits asked,
so here every evaluation is an enclosure and its digits are chosen from what the
comparison needs:

* ``u = ln x`` and ``f(u) = ln g(e^u) - ln target``: for the privacy queries (eta and
  delta as functions of ``lam = e^eps``: eta of 000 (1.7), delta the hockey-stick
  divergence, which 000 does not define) ``f`` is decreasing and close to
  linear near its root over the widths that matter;
* *locate*: regula falsi (Illinois) in ``u`` on 2-digit enclosures' midpoints;
* *refine*: Newton steps with the secant slope, each enclosure asked the digits that
  resolve ``f`` to an eighth of the allowed width ``W`` times the slope;
* *certify*: the points ``u_e -+ 0.45 W`` around the estimate, asked the digits that
  decide them (``|f| ~ 0.45 W |f'|``), one more digit when an enclosure straddles the
  target, a new estimate when a point lands on the wrong side.

Only certified comparisons move the bracket: ``g(x_a) > target`` (the enclosure's lower
end above the target) and ``g(x_b) <= target`` (its upper end at most the target), so the
smallest ``x`` with ``g(x) <= target`` lies in ``(x_a, x_b]`` whatever the estimates were;
the estimates only decide where to look and how much to ask.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..core.errors import PrecisionError
from ..core.interval import Interval

__all__ = ["decreasing_crossing"]


def _rational(x: float, rel: float) -> Fraction:
    f = Fraction(x)
    return f.limit_denominator(max(10, int(4 / max(rel, 1e-300)) + 1))


def decreasing_crossing(enclose, x_lo: Fraction, x_hi: Fraction, target: Fraction, *,
                        rel_u: float, max_digits: int = 7, g_lo: Interval | None = None,
                        max_evals: int = 60, guess: tuple | None = None) -> tuple[Fraction, Fraction]:
    """Certified ``(x_a, x_b)`` with ``g(x_a) > target >= g(x_b)`` and
    ``ln x_b - ln x_a <= rel_u * ln x_a`` (``1 < x_lo < x_hi`` not required for
    ``x_lo = 1``: ``ln x_a`` is then bounded by the points evaluated).

    ``enclose(x, digits)`` returns an :class:`~exactdp.core.interval.Interval` containing
    ``g(x)`` (of relative width about ``10^-digits``, wider allowed); ``g`` is
    non-increasing with ``g(x_lo) > target`` (``g_lo`` its enclosure, or evaluated) and
    ``g(x_hi) <= target`` (taken as given: e.g. ``g = 0`` at the top of the support).
    ``guess = (u, spread)``: where to look first (e.g. a Monte Carlo quantile; placement
    only, nothing is certified by it).
    Raises :class:`~exactdp.core.errors.PrecisionError` when ``max_digits`` do not decide.

    >>> import math
    >>> def enc(x, d):            # g(x) = 1/x^2, enclosed to 10^-d
    ...     v = 1 / Fraction(x) ** 2
    ...     return Interval(v * (1 - Fraction(1, 10**d)), v * (1 + Fraction(1, 10**d)))
    >>> a, b = decreasing_crossing(enc, Fraction(1), Fraction(10**6), Fraction(1, 100), rel_u=1e-4)
    >>> enc(a, 9).lower > Fraction(1, 100) >= enc(b, 9).upper
    True
    >>> 0 < math.log(b) - math.log(a) <= 1e-4 * math.log(a)
    True
    """
    tgt = float(target)
    lt = math.log(tgt)
    u_lo, u_hi = math.log(float(x_lo)), math.log(float(x_hi))
    # certified bracket: V violated (g > target), M met (g <= target)
    V = (u_lo, Fraction(x_lo))
    M = (u_hi, Fraction(x_hi))
    evals = []                      # (u, f, f_half) with finite f
    count = [0]

    def status(iv: Interval) -> int:
        if iv.upper <= target:
            return 1
        if iv.lower > target:
            return -1
        return 0

    def ev(u: float, d: int):
        nonlocal V, M
        if count[0] >= max_evals:
            raise PrecisionError(f"no certified bracket after {max_evals} evaluations")
        count[0] += 1
        x = _rational(math.exp(u), max(rel_u * abs(u), 1e-15) * 1e-4)
        x = min(max(x, Fraction(x_lo)), Fraction(x_hi))
        u = math.log(float(x))
        iv = enclose(x, d)
        st = status(iv)
        # only inside the bracket (a g that is not monotone keeps a down-crossing inside)
        if st < 0 and V[0] < u < M[0]:
            V = (u, x)
        if st > 0 and V[0] < u < M[0]:
            M = (u, x)
        m = float(iv.mid)
        f = fh = None
        if m > 0 and float(iv.lower) > 0:
            f = math.log(m) - lt
            fh = 0.5 * (math.log(float(iv.upper)) - math.log(float(iv.lower)))
            evals.append((u, f, fh))
        return st, f, fh

    def allowed(u):
        return rel_u * max(u, V[0], 1e-300)

    def done():
        return V[0] > 0 and M[0] - V[0] <= rel_u * V[0]

    if g_lo is None:
        st, _, _ = ev(u_lo, 2)
        if st > 0:
            raise PrecisionError("target met at the lower end of the search range")
        if st == 0:
            raise PrecisionError("cannot decide the lower end of the search range")
    else:
        if not g_lo.lower > target:
            raise PrecisionError("target not certified violated at the lower end of the search range")
        m = float(g_lo.mid)
        if m > 0 and float(g_lo.lower) > 0:
            evals.append((u_lo, math.log(m) - lt,
                          0.5 * (math.log(float(g_lo.upper)) - math.log(float(g_lo.lower)))))

    # ---- locate: Illinois on 2-digit midpoints (a point with g = 0 bisects)
    a = evals[-1] if evals else None            # the violated side (u, f)
    fa = a[1] if a else None
    ua = u_lo
    ub, fb = u_hi, None                         # met side, f unknown (-inf)
    side = 0
    slope = None
    ta, tb = ((ua, fa) if fa is not None else None), None
    guess_pts = [guess[0]] if guess is not None else []
    for it in range(40):
        if guess_pts:
            u = guess_pts.pop()
        elif fa is not None and fb is not None and fa != fb:
            u = ub - fb * (ub - ua) / (fb - fa)
        else:
            u = 0.5 * (ua + ub)
        span = ub - ua
        u = min(max(u, ua + 0.01 * span), ub - 0.01 * span)
        st, f, fh = ev(u, 2)
        if f is None:
            st_side = st if st != 0 else 1
        else:
            st_side = -1 if f > 0 else 1
        if guess is not None and it == 0:
            # the second point one spread away, on the side where the crossing lies
            guess_pts.append(u + guess[1] if st_side < 0 else u - guess[1])
        if st_side < 0:
            if side < 0 and fb is not None:
                fb /= 2
            ua, fa, side = u, f, -1
        else:
            if side > 0 and fa is not None:
                fa /= 2
            ub, fb, side = u, f, 1
        if f is not None:
            # the secant slope of the true values (Illinois' halved ones would bias it)
            true_a, true_b = (u, f) if st_side < 0 else ta, (u, f) if st_side > 0 else tb
            ta, tb = true_a, true_b
            if ta is not None and tb is not None and ta[1] != tb[1]:
                slope = (tb[1] - ta[1]) / (tb[0] - ta[0])
                if slope < 0 and (abs(f) <= 3 * fh or ub - ua <= 8 * fh / -slope):
                    break
        if done():
            return V[1], M[1]
    if slope is None or not slope < 0:
        raise PrecisionError("the crossing could not be located (no finite slope)")
    # estimate from the most accurate point
    u0, f0, h0 = min(evals, key=lambda e: abs(e[1]) + e[2])
    u_e = u0 - f0 / slope
    err = h0 / -slope + 0.1 * abs(f0 / slope)

    def digits_for(fhalf):
        # relative width 10^-d ~ 2 f_half
        return max(2, math.ceil(-math.log10(max(2 * fhalf, 1e-300))))

    # ---- refine and certify
    extra = 0
    while not done():
        W = allowed(u_e)
        if err > W / 8:
            d = digits_for(-slope * W / 10) + extra
            if d > max_digits:
                raise PrecisionError(f"the crossing needs more than {max_digits} digits per enclosure")
            st, f, fh = ev(u_e, d)
            if f is None:
                u_e = 0.5 * (V[0] + M[0])
                err = (M[0] - V[0]) / 2
                continue
            # secant slope with the closest earlier accurate point, when well separated
            for (u1, f1, h1) in sorted(evals[:-1], key=lambda e: abs(e[0] - u_e)):
                if abs(u1 - u_e) > 4 * (fh + h1) / -slope:
                    s = (f - f1) / (u_e - u1)
                    if s < 0:
                        slope = s
                    break
            u_new = u_e - f / slope
            err = fh / -slope + 0.2 * abs(u_new - u_e)
            if fh / -slope > W / 10:
                extra += 1                  # the enclosure was wider than 10^-d: ask more
            u_e = min(max(u_new, V[0]), M[0])
            continue
        half = 0.45 * W
        moved = False
        for u_t, want in ((u_e - half, -1), (u_e + half, 1)):
            if (want < 0 and V[0] >= u_t) or (want > 0 and M[0] <= u_t):
                continue
            d = digits_for(-slope * half * 0.4)
            for _ in range(3):
                if d > max_digits:
                    raise PrecisionError(
                        f"the crossing needs more than {max_digits} digits per enclosure")
                st, f, fh = ev(u_t, d)
                if st == want:
                    break
                if st == -want:             # wrong side: the estimate was off
                    u_e = u_t - f / slope if f is not None else 0.5 * (V[0] + M[0])
                    u_e = min(max(u_e, V[0]), M[0])
                    err = (fh / -slope if fh is not None else W) + 0.2 * half
                    moved = True
                    break
                d += 1                      # straddles the target: one more digit
            else:
                u_e = u_t
                err = W
                moved = True
            if moved:
                break
    return V[1], M[1]
