r"""Float images used only to choose points and to skip checks that cannot pass (part of
:mod:`exactdp.reductions.kfourier`): Newton guesses for the certified threshold points
(:class:`SeriesFloat`, :class:`FloatGuesses`, :class:`ArbGuesses`) and screens of the node
decisions' arb checks (:class:`PlainScreen`, :class:`LoScreen`, :data:`NO_SCREEN`).  Every bound that
enters a result is an arb evaluation elsewhere.

**Guesses in floats (``GUESS_FLOATS``).**  Where a point only has to be *chosen* (the
threshold points ``s_dn``, ``s_up`` of a leaf, a leaf's ``tau``) Newton's method runs on a
double-precision image of the same quantity: the boxes' coefficient matrix and ``E_H`` with
``t = u s``, ``s = k / E Y``, so that ``(sY)^j / j!`` and the terms near ``[u^k]`` stay inside
the double range at ``k = 200`` (``SeriesFloat``; the entries' own arb radii included; it
matches the arb ends to ~1e-11 in ``log R`` at ``k = 16``).  The point is then certified in
arb exactly as before (``F_lo(s_dn) > lam``, ``F_up(s_up) < lam``, stepping outward from the
guess), so a wrong guess can only cost width.  The same image *skips* arb checks that cannot
pass: ``Lo(y) <= Up0(y + alpha P2hi)`` (``m! e_m <= x^m``) and ``Up0`` is a polynomial with
nonnegative coefficients, so where its float image misses the threshold by more than
``GUESS_MARGIN`` (relative; the float error is ~1e-12) the check ``Lo > thr`` (or
``Up0 < thr``) would fail and is not run (:meth:`walk.Walk.decide`, :meth:`walk.Walk.side_bounds`, the
leaf's ``Ymin``/``Ymax`` checks).  A skipped check leaves a bound at its trivial value (0 or 1):
valid whatever the floats say.  The steps from a float root to a certified point below
``STEP_ALWAYS`` are checked in arb only where the float image clears the threshold by
``GUESS_CUSHION`` (a skipped step costs a step of width, nothing else), and ``Ymin`` is tried
for ``s_up`` only when no step is certified: two arb evaluations per leaf instead of five
(``k = 8``, ``q = 0.34``, ``tol = 1e-4``; the enclosure moves by 4e-11).  At ``L = 40``,
``N = 10^7`` the enclosures agree with the arb
root finders' to ~1e-15 (``k = 16``) at a fraction of the leaf cost (``benchmarks/RESULTS.md``).
At large ``k`` ``Lo`` lies far below ``Up0`` (``C(k, 2) p_2`` reaches ``x^2`` at ``k = 32``), so
``Lo``'s own float image screens it too (:class:`LoScreen`: an upper bound of the arb ball's
lower end from the bracket at both ends of the ``p_2`` range).  With ``alpha = 0`` (the series
walk) the node checks are two arb polynomials each instead (:class:`NodePoly`: ``Lo`` at
``p_2 = P2hi`` over the terms positive there, a lower bound of the bracket), cheaper than
either screen, which is then not used (``NODE_POLY``): at ``L = 40``, ``N = 10^7``, ``k = 16``,
``q = 0.30``, ``tol = 1e-4`` the decisions took 35 of 255 CPU s with the mean-value form and its
screens (``benchmarks/RESULTS.md``, kq32).
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb, arb_poly

from . import settings
from .arbs import float_hi
from .bracket import log_newton
from .series import Series, box_matrix, corner_matrix

# ------------------------------------------------------------------ float guesses
# Floats only *choose* points and skip checks that cannot pass (module doc, "Guesses in
# floats"); every bound that enters the result is an arb evaluation.

_LN2 = math.log(2.0)
_LGAM = {}


def _lgam(k):
    """``[log 0!, ..., log k!]`` (numpy, cached)."""
    if k not in _LGAM:
        _LGAM[k] = np.array([math.lgamma(j + 1) for j in range(k + 1)])
    return _LGAM[k]


def _flog(x: arb):
    """``(sign, log |mid x|)`` as floats without over- or underflow (``(0, -inf)`` at 0)."""
    man, e = x.mid().man_exp()
    man = int(man)
    if man == 0:
        return 0, -math.inf
    sg = 1 if man > 0 else -1
    man = abs(man)
    b = man.bit_length()
    if b > 60:
        man >>= b - 60
        e += b - 60
    return sg, math.log(man) + int(e) * _LN2


def log_coeffs(E) -> np.ndarray:
    """``log E_i`` of nonnegative arb coefficients (``-inf`` at 0; floats, guesses only)."""
    # the heavy polynomials come padded to k + 1 with exact zeros (E_H has degree at most the
    # heavy outputs placed): those are -inf without the exponent route below (k = 200: ~190 of
    # 201 coefficients, 16M calls of _flog and a quarter of a walk's time)
    n = arb_poly(E).length()                # (normalized: trailing exact zeros dropped, in C)
    fl = [float(c) for c in E[:n]]
    if all(1e-300 <= x < math.inf for x in fl):
        out = np.full(len(E), -math.inf)
        out[:n] = np.log(fl)               # the common case: every coefficient a normal float
        return out
    mid = np.zeros(len(E))
    mid[:n] = fl
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(mid > 0, np.log(np.abs(mid)), -math.inf)
    # outside the double range as floats (0 or inf): the log from the exponent
    for i in np.nonzero((mid[:n] == 0) | ~np.isfinite(mid[:n]) | (np.abs(mid[:n]) < 1e-300))[0]:
        sg, lg = _flog(E[i])
        out[i] = lg if sg > 0 else -math.inf
    return out


def plain_log(logE: np.ndarray, lkappa: float, k: int, y: float):
    """``(log F, d log F / d log y)`` of ``F(y) = kappa sum_m E_(k-m) y^m / m!`` (floats)."""
    if not y > 0:
        return -math.inf, 1.0
    m = np.arange(k + 1)
    t = logE[::-1] + m * math.log(y) - _lgam(k)
    mx = t.max()
    if not np.isfinite(mx):
        return -math.inf, 1.0
    w = np.exp(t - mx)
    sw = w.sum()
    return lkappa + mx + math.log(sw), float((m * w).sum() / sw)


def _box_floats(boxes, k, y0):
    """Float image of the boxes' coefficient matrix (:func:`box_matrix`) for guesses:
    entries ``P_r s^r`` with ``s = k / y0`` (the scale that keeps ``(sY)^j / j!`` and the
    products near ``j = k`` inside the double range at large ``k``), divided by a common
    ``e^shift``; the enclosure's weights per row; cached on the box list: ``(s, shift, MR, (first,
    corners), W)`` with ``MR`` the entries over their radii (rows; the boxes' corner rows,
    :func:`~exactdp.reductions.kfourier.series.corner_matrix`, after the Taylor rows, from row
    ``corners[i]``; ``None`` without them), ``first[i]`` box ``i``'s value row and ``W = [Wm |
    Wr]``: box ``i``'s radius is ``W[i] @ (|v|, rr)``."""
    cache = getattr(boxes, "_kf_float", None)
    if cache is not None and cache[0] == k:
        return cache[1]
    mat, offsets, _ = box_matrix(boxes, k)
    s = k / y0 if y0 > 0 else 1.0
    ls = math.log(s)
    nt, nc = mat.nrows(), k + 1
    ents = mat.entries()
    if settings.SERIES_CORNERS:
        # the corner rows after the Taylor rows: box i's at nt + 2 i (lower), nt + 2 i + 1
        ents = ents + corner_matrix(boxes, k).entries()
    nr = len(ents) // nc
    mid = np.array([float(x) for x in ents])
    rad = np.array([float(x.rad()) for x in ents])
    sg = np.sign(mid)
    with np.errstate(divide="ignore"):
        lg, lr = np.log(np.abs(mid)), np.log(rad)
    # entries outside the double range (0 or inf as floats): their logs from the exponent
    for j in np.nonzero((mid == 0) | ~np.isfinite(mid) | ~np.isfinite(rad))[0]:
        sg[j], lg[j] = _flog(ents[j])
        lr[j] = _flog(ents[j].rad())[1]
    cols = np.tile(np.arange(nc) * ls, nr)
    lg, lr, sg = (lg + cols).reshape(nr, nc), (lr + cols).reshape(nr, nc), sg.reshape(nr, nc)
    shift = float(lg.max()) if np.isfinite(lg.max()) else 0.0
    Mf = sg * np.exp(lg - shift)
    Rf = np.exp(lr - shift)
    # the enclosure's weights as one matrix: box i's radius is Wm[i] @ (|v| + rr) + rr[a_i]
    # over its rows a_i .. b_i (row a_i the value, the others its Taylor terms)
    Wm = np.zeros((len(boxes), nr))
    first = np.array([a for a, _ in offsets])
    for i, (box, (a, b)) in enumerate(zip(boxes, offsets)):
        Wm[i, a + 1:b] = ([float_hi(box.rad[v]) for v in box.vars] + [float_hi(c) for c, _ in box.pairs]
                          + ([1.0] if box.rest is not None else []))
    Wr = Wm.copy()
    Wr[np.arange(len(boxes)), first] = 1.0
    corners = nt + 2 * np.arange(len(boxes)) if nr > nt else None
    out = (s, shift, np.vstack([Mf, Rf]), (first, corners), np.hstack([Wm, Wr]))
    if hasattr(boxes, "__dict__"):
        boxes._kf_float = (k, out)
    return out



class PlainScreen:
    """The plain bound ``Up0(x) = kappa sum_m E_(k-m) x^m / m!`` in floats, to skip arb checks
    that cannot pass: ``Lo(y) <= Up0(y + alpha P2hi)`` (Bonferroni: ``m! e_m <= x^m``; the
    shifted ``x = y + alpha p_2``), so ``Lo > thr`` needs ``Up0 > thr``; the upper checks
    evaluate ``Up0`` itself.  A float off by less than ``GUESS_MARGIN`` cannot flip a skip."""

    def __init__(self, logE, lkappa, k, lthr):
        self.logE, self.lk, self.k, self.lthr = logE, lkappa, k, lthr

    def below(self, x: float) -> bool:
        """``Up0(x)`` surely below the threshold (so ``Lo(.) > thr`` fails there)."""
        return plain_log(self.logE, self.lk, self.k, x)[0] < self.lthr - settings.GUESS_MARGIN

    def above(self, x: float) -> bool:
        """``Up0(x)`` surely above the threshold (so ``Up0(x) < thr`` fails)."""
        return plain_log(self.logE, self.lk, self.k, x)[0] > self.lthr + settings.GUESS_MARGIN


class LoScreen:
    """The Bonferroni ``Lo`` of :class:`Threshold` in floats, to skip its arb checks
    ``Lo(y) > thr`` that cannot pass (:meth:`walk.Walk.decide`, :meth:`walk.Walk.side_bounds`): at large
    ``k`` ``Lo`` lies far below :class:`PlainScreen`'s ``Up0`` (its ``C(m, 2) p_2 x^(m-2)`` term
    reaches ``x^m`` at ``k = 32``), so that screen lets checks through that then fail.

    The arb ball of ``Lo(y)`` is a sum over ``m`` of balls containing ``max(0, g_m(p))`` for
    every ``p`` in ``[P2lo, P2hi]``, ``g_m(p) = x_p^m - C(m, 2) p x_p^(m-2)``, ``x_p = y + alpha p``
    (mean-value form), times ``kappa E_(k-m) / m!``: its lower end is at most
    ``kappa sum_m E_(k-m) min(max(0, g_m(P2lo)), max(0, g_m(P2hi))) / m!``.  That sum is computed
    here in logs with every factor ``max(0, 1 - r)`` (``r = C(m, 2) p / x_p^2``) raised by
    ``1e-12 (1 + r)`` (far above its rounding error), so the float is an upper bound of the
    exact sum up to ~1e-13 relative; where it lies below the threshold by ``GUESS_MARGIN``
    (relative) the arb check fails and is not run.  The float only *skips* a check (the node
    stays undecided, a partial bound stays trivial): it never decides."""

    def __init__(self, logE, lkappa, k, lthr, *, P2lo, P2hi, alpha):
        self.logE, self.lk, self.k, self.lthr = logE, lkappa, k, lthr
        self.ps = sorted({float(P2lo), float(P2hi)})     # exact floats (Chernoff levels)
        self.alpha = alpha
        m = np.arange(k + 1)
        self.m = m
        self.c2 = m * (m - 1) / 2.0
        self.base = logE[::-1] - _lgam(k)            # log E_(k-m) - log m!

    def log_lo(self, y: float) -> float:
        """An upper bound (to ~1e-13 relative) of ``log`` of the arb ``Lo(y)``'s lower end."""
        best = None
        for p in self.ps:
            x = y + self.alpha * p
            if not x > 0:
                return -math.inf
            r = self.c2 * p / (x * x)
            fac = np.maximum(0.0, 1.0 - r) + 1e-12 * (1.0 + r)
            t = self.m * math.log(x) + np.log(fac)
            best = t if best is None else np.minimum(best, t)
        t = self.base + best
        mx = t.max()
        if not np.isfinite(mx):
            return -math.inf
        return self.lk + mx + math.log(np.exp(t - mx).sum()) + 1e-12

    def below(self, y: float) -> bool:
        """The arb check ``Lo(y) > thr`` surely fails."""
        return self.log_lo(y) < self.lthr - settings.GUESS_MARGIN



class _NoScreen:
    def below(self, x):
        return False

    def above(self, x):
        return False


NO_SCREEN = _NoScreen()


def _powers(k):
    """``(j, log j!)`` for ``j = 0 .. k`` (numpy; cached per ``k``)."""
    if k not in _POWERS:
        _POWERS[k] = (np.arange(k + 1, dtype=float), _lgam(k))
    return _POWERS[k]


_POWERS = {}


class SeriesFloat:
    """Float image of :meth:`Series.value`'s two ends (the boxes' Taylor forms and corner bounds at
    double precision, scaled by ``t = u s`` so that nothing over- or underflows at ``k`` = 200):
    Newton guesses for the certified points and screens that skip arb checks which cannot
    pass.  Never enters a bound."""

    def __init__(self, series: "Series", y0: float):
        k = self.k = series.k
        self.s, shM, MR, self.first, W = _box_floats(series.boxes, k, y0)
        le = log_coeffs(series.E) + np.arange(k + 1) * math.log(self.s)
        shE = float(le.max())
        self.lk = float(series.kappa.log().mid()) - k * math.log(self.s) + shE + shM
        self.ls = math.log(self.s)
        self.jl = _powers(k)
        # B = conv(e, g)[:k+1] with g = ((s y)^j / j!), U0 = B reversed, U1 = B shifted: the
        # values and slopes of all rows (entries and their balls) are U0 and U1 times the rows
        # (:meth:`ends`: one convolution per point; a Toeplitz product per leaf, built before the
        # points, cost 0.5 ms of each leaf's float image at k = 200)
        e = np.exp(le - shE)
        self.MRt = MR.T.copy()
        self.nr = n = MR.shape[0] // 2
        self.W = W
        self.e, self.Mf, self.Rf, self.lgam = e, MR[:n], MR[n:], self.jl[1]

    def ends(self, y: float):
        """``((log lo, dlog lo), (log up, dlog up))``: ``log`` of the enclosure's ends at ``y``
        (``-inf`` where not positive) and their slopes in ``log y``; every box at once (the
        least lower and the largest upper end over the boxes)."""
        j, lgam = self.jl
        lg = j * (self.ls + math.log(y)) - lgam
        shg = lg.max()
        B = np.convolve(self.e, np.exp(lg - shg))[:self.k + 1]
        U = np.zeros((2, self.k + 1))
        U[0] = B[::-1]
        U[1, :-1] = B[-2::-1]
        out = U @ self.MRt                       # rows: (v0, r0) and (v1, r1)
        n, (f, cr) = self.nr, self.first
        v0, v1 = out[0, :n], out[1, :n]
        v, dv = v0[f], v1[f]                     # (copies)
        if cr is not None:
            clo, dclo, cup, dcup = v0[cr], v1[cr], v0[cr + 1], v1[cr + 1]
        # the box radii and their slopes: W @ (|v0|, r0) and W @ (sign(v0) v1, r1)
        # (r0, r1: the entries' own radii, the Hessian rows' balls, and their slopes)
        sg = np.sign(v0)
        out[0, :n] = np.abs(v0)
        out[1, :n] = sg * v1
        rr = self.W @ out.T
        lo, up = v - rr[:, 0], v + rr[:, 0]
        dlo, dup = dv - rr[:, 1], dv + rr[:, 1]
        if cr is not None:
            # each box's ends intersected with its corner bounds (Series.value)
            dlo, dup = np.where(clo > lo, dclo, dlo), np.where(cup < up, dcup, dup)
            lo, up = np.maximum(lo, clo), np.minimum(up, cup)
        i, k = lo.argmin(), up.argmax()
        best_lo, best_up = (lo[i], dlo[i]), (up[k], dup[k])
        sc = self.lk + float(shg)
        res = []
        for v, dv in (best_lo, best_up):
            if v > 0:
                res.append((sc + math.log(v), y * self.s * float(dv) / float(v)))
            else:
                res.append((-math.inf, 1.0))
        return res

    def root(self, which: int, lthr: float, y0: float) -> float:
        """``y`` with the lower (``which`` 0) or upper (1) end near the threshold (a guess)."""
        return log_newton(lambda y: self.ends(y)[which], lthr, y0)


class FloatGuesses:
    """A series leaf's guesses from :class:`SeriesFloat`: Newton roots of the float ends, and
    screens: ``may_pass_*`` is False only where the float image misses the threshold by
    ``GUESS_MARGIN`` (the arb check would fail; skipping it keeps a bound at 0 or 1)."""

    def __init__(self, th, y0: float, thr, ymin: float, *, x0: float | None = None):
        self.fl, self.y0 = SeriesFloat(th, y0), y0
        self.lthr = float(thr.log().mid())
        self.cache = {ymin: self.fl.ends(ymin)}
        # the first root's Newton starts from x0 (a nearby leaf's root) when given, else y0
        self.x_last = x0 if x0 is not None and math.isfinite(x0) and x0 > 0 else None
        self.last = {}

    def _ends(self, y):
        if y not in self.cache:
            self.cache[y] = self.fl.ends(y)
        return self.cache[y]

    def may_pass_lo(self, y) -> bool:
        return self._ends(y)[0][0] > self.lthr - settings.GUESS_MARGIN

    def may_pass_up(self, y) -> bool:
        return self._ends(y)[1][0] < self.lthr + settings.GUESS_MARGIN

    def clears_lo(self, y) -> bool:
        """The float lower end above the threshold by ``GUESS_CUSHION`` (the arb check will
        likely pass; only picks which steps are checked)."""
        near = self._near(0, y)
        if near is not None:
            return near > self.lthr + settings.GUESS_CUSHION
        return self._ends(y)[0][0] > self.lthr + settings.GUESS_CUSHION

    def clears_up(self, y) -> bool:
        near = self._near(1, y)
        if near is not None:
            return near < self.lthr - settings.GUESS_CUSHION
        return self._ends(y)[1][0] < self.lthr - settings.GUESS_CUSHION

    def _near(self, which: int, y: float):
        """The end's float image at a step ``y`` this close to its root (within 1e-6 in
        ``log y``) from the linear image at the root's last Newton point (the second-order
        term is ~1e-12 of the cushion, the float end's own error ~1e-12): ``ends`` is not
        evaluated at the steps 1e-13 ... 1e-7 after each root; ``None`` farther out."""
        last = self.last.get(which)
        if last is None:
            return None
        ye, lv, sl = last
        d = math.log(y / ye) if y > 0 else math.inf
        if not abs(d) <= 1e-6:
            return None
        return lv + sl * d

    def root_lo(self) -> float:
        return self._root(0)

    def root_up(self) -> float:
        return self._root(1)

    def _root(self, which: int) -> float:
        # the two ends' roots lie close together (the enclosure is narrow): the second one's
        # Newton starts from the first (fewer float ends; the same root to ~1e-14)
        seen = []

        def f(y):
            out = self.fl.ends(y)[which]
            seen.append((y, *out))
            return out
        x = log_newton(f, self.lthr, self.x_last or self.y0)
        if math.isfinite(x) and x > 0:
            self.x_last = x
        if seen and all(map(math.isfinite, seen[-1])):
            self.last[which] = seen[-1]            # the last Newton point, its end and slope
        return x


class ArbGuesses:
    """The guesses without floats (``GUESS_FLOATS`` off): Newton in arb on the main term, then
    on the enclosure's ends; no screen."""

    def __init__(self, th, y0: float, thr):
        self.th, self.y0, self.thr, self.x_main = th, y0, thr, None

    def may_pass_lo(self, y) -> bool:
        return True

    may_pass_up = clears_lo = clears_up = may_pass_lo

    def _main(self) -> float:
        if self.x_main is None:
            self.x_main = self.th.root(self.th.main_value, self.thr, self.y0)
        return self.x_main

    def root_lo(self) -> float:
        return self.th.root(self.th.lo_end, self.thr, self._main())

    def root_up(self) -> float:
        return self.th.root(self.th.up_end, self.thr, self._main())
