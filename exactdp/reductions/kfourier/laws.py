r"""The light laws of one walk (part of :mod:`exactdp.reductions.kfourier`): the laws of the light
statistic per null and changed-user count and bin of ``tau`` (:class:`~exactdp.engine.largen.LightLaw`),
the Chernoff levels of the power sums ``p_2``, ``p_3`` and of ``Y``, the series enclosure's power-sum
boxes, their certificate of monotonicity per region, and the law of the outputs not yet placed.
:class:`LightLaws` is the base of :class:`~exactdp.reductions.kfourier.walk.Walk`, whose
``__init__`` sets the attributes it reads (the light weights and level laws, ``k``, ``prec``,
``tol_f``, the bins, the caches ``laws`` and ``regions``).

Two economies, neither of which enters a bound: the Chernoff level scans start each saddle point
from the last level's and compute an arb bound only where the float one may pass
(:meth:`LightLaws.first_level`), and the power-sum ranges of the boxes are widened outward to
``BOX_GRID_BITS`` significant bits so that neighbouring laws share one box set, its matrices and
its certificates of monotonicity (:meth:`LightLaws.box_set`; at L = 40, N = 10^7, k = 16,
q = 0.30 with the level scans: 241 -> 175 CPU s, the same width, ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import math
from math import comb

from flint import arb

from ...core.errors import CapacityError, PrecisionError
from ...engine.largen import LightLaw
from . import settings
from .arbs import float_hi, grid_arb
from .series import Box, Boxes, NotMonotone, monotone_pieces


class LightLaws:
    """The light laws, their levels and boxes, cached (module doc); a base of
    :class:`~exactdp.reductions.kfourier.walk.Walk` (which sets ``fine``: the fine series
    settings, :data:`settings.SERIES_VARS_FINE_LARGE_K` among them)."""

    fine = False

    @property
    def wy(self):
        return self.bins[self.b][1]

    @property
    def tau(self):
        return self.bins[self.b][0]

    @property
    def beta(self):
        return self.bins[self.b][2]

    def add_bin(self, b):
        """Bin ``b`` (an int: ``Y = sum log(1 + tau_b w) / tau_b``) or ``(b, g)`` (``Y`` plus
        ``beta p_3``, ``beta = g BETA_STEP tau_b^2 / 3``, module doc)."""
        if b not in self.bins:
            b1, g = b if isinstance(b, tuple) else (b, 0)
            tau = arb(self.tau0 * (1 + self.tau_bin) ** b1 if self.tau0 > 0 else 0.0)
            beta = arb(g * settings.BETA_STEP) * tau * tau / 3
            wy = [(1 + tau * x).log() / tau + beta * x ** 3 if tau > 0 else x for x in self.wl]
            self.bins[b] = (tau, wy, beta)

    def law(self, n, m):
        key = (n, m, self.b)
        if key not in self.laws:
            facs = [(self.pl0, n)] + ([(self.pl1, m)] if m else [])
            law = LightLaw(self.wy, facs, self.prec)
            if self.series:
                P2lo, P2hi, f2 = self.power_levels(2, n, m, facs)
                sb = self._series_box(law, facs, P2lo, P2hi)
                self.laws[key] = (law, P2lo, P2hi, sb, f2 + sb[3])
                return self.laws[key]
            law2 = LightLaw(self.w2, facs, self.prec)
            P2hi, f_hi = self._chernoff_level(law2, +1)
            P2lo, f_lo = self._chernoff_level(law2, -1)
            xstar = math.sqrt(comb(self.k, 2) * float_hi(P2hi)) * (1 + 1e-9)
            if xstar > 0:
                B, _ = law.chernoff(xstar, False)
                f_x = B
            else:
                f_x = arb(0)
            fail = f_hi + f_lo + f_x
            self.laws[key] = (law, P2lo, P2hi, xstar, fail)
        return self.laws[key]

    def power_levels(self, i: int, n, m, facs):
        """Chernoff levels of the light power sum ``p_i`` (``i`` = 2 or 3; the same for every
        bin), ``(lo, hi, fail)``."""
        key = (f"p{i}", n, m)
        if key not in self.laws:
            law = LightLaw({2: self.w2, 3: self.w3}[i], facs, self.prec)
            hi, f_hi = self._chernoff_level(law, +1)
            lo, f_lo = self._chernoff_level(law, -1)
            self.laws[key] = (lo, hi, f_hi + f_lo)
        return self.laws[key]

    def _series_box(self, law, facs, P2lo, P2hi):
        """``(boxes, Ymin, Ymax, fail)`` of the series enclosure for one light law: the power-sum
        boxes (p_3 by its own Chernoff levels; ``boxes()`` builds them on first use) and the
        range of ``Y`` (module doc)."""
        k = self.k
        n, m = facs[0][1], (facs[1][1] if len(facs) > 1 else 0)
        P3lo, P3hi, g3 = self.power_levels(3, n, m, facs)
        ymin, f0 = self._y_level(law, -1)
        ymax, f1 = self._y_level(law, +1)
        below, fb = self.below_levels(n, m, facs) if self.p3_below else (None, arb(0))
        tau, beta, built = self.tau, self.beta, []

        def boxes():
            # built on first use (a leaf), not for the decisions, which need only the levels
            if not built:
                built.append(self.box_set(P2lo, P2hi, P3lo, P3hi, below=below, tau=tau, beta=beta))
            return built[0]
        return boxes, ymin, ymax, g3 + f0 + f1 + fb

    def below_levels(self, n, m, facs):
        """Chernoff levels ``(B2lo, B2hi, B3lo, B3hi)`` of ``B_i``, the power sums ``p_i``
        (``i`` = 2, 3) of the light outputs *below* the top light level (its weight set to 0),
        and their summed failure bound (module doc, "p_3 from p_2"); the same for every bin."""
        key = ("below", n, m)
        if key not in self.laws:
            out, fail = [], arb(0)
            for ws in (self.w2, self.w3):
                law = LightLaw(ws[:-1] + [arb(0)], facs, self.prec)
                lo, f_lo = self._chernoff_level(law, -1)
                hi, f_hi = self._chernoff_level(law, +1)
                out += [lo, hi]
                fail += f_lo + f_hi
            self.laws[key] = (tuple(out), fail)
        return self.laws[key]

    def box_set(self, P2lo, P2hi, P3lo, P3hi, *, below=None, tau=None, beta=None) -> Boxes:
        """The series boxes (:meth:`make_boxes`; the current bin's ``tau`` and ``beta`` unless
        given) over the power-sum ranges widened outward to ``BOX_GRID_BITS`` significant bits,
        one set per widened ranges: neighbouring laws, whose Chernoff levels differ in their
        last digits, share one set, its coefficient matrix, float image and certificates of
        monotonicity.  Valid: each law's ``p_2``, ``p_3`` (and ``B_2``, ``B_3``) lie in its own
        ranges but with its levels' failure bounds, and those ranges lie in the widened ones."""
        tau = self.tau if tau is None else tau
        beta = self.beta if beta is None else beta
        bits = settings.BOX_GRID_BITS
        lo = lambda x: grid_arb(x, bits, up=False)     # noqa: E731
        hi = lambda x: grid_arb(x, bits, up=True)      # noqa: E731
        P2lo, P2hi, P3lo, P3hi = lo(P2lo), hi(P2hi), lo(P3lo), hi(P3hi)
        if below is not None:
            B2lo, B2hi, B3lo, B3hi = below
            below = (lo(B2lo), hi(B2hi), lo(B3lo), hi(B3hi))
        if not bits:
            return Boxes(self.make_boxes(self.k, tau, P2lo, P2hi, P3lo, P3hi, below=below, beta=beta))
        ends = (P2lo, P2hi, P3lo, P3hi) + (below or ())
        key = ("boxes", id(tau), id(beta), below is not None) + tuple(float(x.mid()) for x in ends)
        if key not in self.laws:
            # tau and beta kept with the set: their ids in the key stay theirs for the walk
            self.laws[key] = (tau, beta, Boxes(self.make_boxes(self.k, tau, P2lo, P2hi, P3lo, P3hi,
                                                               below=below, beta=beta)))
        return self.laws[key][2]

    def make_boxes(self, k, tau, P2lo, P2hi, P3lo, P3hi, *, below=None, beta=None):
        """The series boxes: ``p_2`` in ``SERIES_SPLIT`` pieces ``[a, b]`` of ``[P2lo, P2hi]``,
        ``p_3`` in ``[P3lo, P3hi]`` cut by ``p_3 <= w_max b`` and, with ``below = (B2lo, B2hi,
        B3lo, B3hi)`` (:meth:`below_levels`), by ``p_3 = w_max (p_2 - B_2) + B_3`` (the top light
        level's outputs all weigh ``w_max``): ``w_max (a - B2hi) + B3lo <= p_3 <= w_max (b - B2lo)
        + B3hi``, and ``p_i`` (``i >= 4``) the same way with ``0 <= B_i <= w_2^(i-3) B_3``."""
        boxes = []
        S = self.series_split if k >= 3 else 1
        cuts = [P2lo + (P2hi - P2lo) * j / S for j in range(S)] + [P2hi]
        for j in range(S):
            # p_2 in [a, b]; then p_3 <= w_max p_2 <= w_max b (every light weight <= w_max)
            a, b = arb(float(cuts[j].lower())) if j else P2lo, arb(float_hi(cuts[j + 1])) if j < S - 1 else P2hi
            p3hi = arb(min(float_hi(P3hi), float_hi(self.wmax * b)))
            p3lo = P3lo
            if below is not None:
                B2lo, B2hi, B3lo, B3hi = below
                p3hi = arb(min(float_hi(p3hi), float_hi(self.wmax * (b - B2lo) + B3hi)))
                c = self.wmax * (a - B2hi) + B3lo
                if c > P3lo:
                    p3lo = arb(math.nextafter(float(c.lower()), -math.inf))
            if k >= 3 and p3hi < p3lo:
                continue                 # empty: p_3 >= P3lo > w_max p_2
            iv = {}
            nvars = settings.SERIES_VARS
            if self.fine and k >= settings.FINE_K_LIMIT:
                nvars = min(nvars, settings.SERIES_VARS_FINE_LARGE_K)
            elif k >= settings.SERIES_VARS_FROM_K or k < settings.SERIES_VARS_SMALL_BELOW_K:
                nvars = min(nvars, settings.SERIES_VARS_LARGE_K)
            for i in range(2, nvars + 1 if k >= 2 else 2):
                if i == 2:
                    iv[i] = (a, b)
                elif i == 3:
                    iv[i] = (p3lo, p3hi)
                else:
                    u = min(float_hi(p3hi * self.wmax ** (i - 3)), float_hi(b * self.wmax ** (i - 2)))
                    v = arb(0)
                    if below is not None:
                        # p_i = w_max^(i-2) (p_2 - B_2) + B_i, 0 <= B_i <= w_2^(i-3) B_3 (w_2: the
                        # second light weight, every weight below the top at most it)
                        w2 = max(self.wl[:-1], key=float_hi)
                        u = min(u, float_hi(self.wmax ** (i - 2) * (b - B2lo) + w2 ** (i - 3) * B3hi))
                        c = self.wmax ** (i - 2) * (a - B2hi)
                        if c > 0:
                            v = arb(math.nextafter(float(c.lower()), -math.inf))
                    iv[i] = (v, arb(u))
            boxes.append(Box(k, tau, iv, self.wmax, b, p3hi, beta=beta))
        return boxes

    def _y_level(self, law, sign):
        """A level of the light statistic beyond which the mass is at most ``tol_f``."""
        def levels():
            for z in (9, 10, 11, 12, 14, 16, 20, 24, 32, 48, 64, 128, 256, 512, 1024):
                s = law.meanf + sign * z * law.sdf
                if sign < 0 and s <= 0.05 * law.meanf:
                    yield 0.05 * law.meanf
                    return
                yield s
        found = self.first_level(law, sign > 0, levels())
        if found is None:
            raise CapacityError("kfourier: the light statistic is not concentrated enough for the "
                                "series enclosure")
        return found

    def first_level(self, law, above: bool, levels):
        """The first level ``s`` of ``levels`` (moving away from the mean) whose Chernoff bound
        of ``P[S >= s]`` (``above``; else ``P[S <= s]``) is below ``tol_f``, and that bound (arb):
        ``(s, B)``; ``None`` when there is none.  Each saddle point starts from the last level's
        (a warm start); only where the float bound may be below ``tol_f`` is the arb bound
        computed (:meth:`~exactdp.engine.largen.LightLaw.screened_bound`): floats choose the level,
        never the bound."""
        t = None
        for s in levels:
            B, t1 = law.screened_bound(s, above, self.tol_f, t0=t)
            t = t if t1 is None else t1
            if float_hi(B) < self.tol_f:
                return s, B
        return None

    def ensure_monotone(self, box, ymin, ymax):
        """Certify ``dF/dY >= 0`` on ``[ymin, ymax]`` over ``box`` (module doc), once per
        region: a region certified for a slightly larger box and range serves every law in it."""
        done = self.certified.get(box)
        if done is not None and done[0] <= ymin and ymax <= done[1]:
            return                         # this box (a shared set's) was certified already
        for ylo, yhi, rb in self.regions:
            if ylo <= ymin and ymax <= yhi and rb.contains(box):
                self.certified[box] = (ylo, yhi)
                return
        span = ymax - ymin
        ylo, yhi = max(ymin - 0.1 * span, 0.5 * ymin), math.inf    # certified for every Y >= ylo
        rb = box.enlarged(0.25)

        def check(b, depth):
            # a box whose corner fails is cut in two along p_2 (each half has its own corner, its
            # p_3 cap lowered; the union of the halves is the box)
            if monotone_pieces(b, ylo, yhi):
                return True
            return depth < 4 and 2 in b.iv and all(check(h, depth + 1) for h in b.halves())
        # the margin is skipped once it has failed MARGIN_TRIES times and MARGIN_RATIO times as
        # often as it passed in this walk (small q: each failed try costs a chain of halvings;
        # at q = 0.30, k = 16 it failed 1861 times of 2052, ~20 % of the walk's CPU)
        pas, fal = self.margin
        skip = fal >= settings.MARGIN_TRIES and fal > settings.MARGIN_RATIO * pas
        if skip or not check(rb, 0):
            if not skip:
                self.margin[1] += 1
            # the margin below ymin (kept so that neighbouring laws reuse the region) may be
            # what fails: the point ymin itself suffices for this law
            ylo, rb = ymin, box
            if not check(rb, 0):
                raise NotMonotone("kfourier: cannot certify that R increases with the light statistic")
        else:
            self.margin[0] += 1
        self.regions.append((ylo, yhi, rb))
        self.certified[box] = (ylo, yhi)

    def _chernoff_level(self, law2, sign):
        """A level of ``p_2`` beyond which (``sign`` +1: above, -1: below) the mass
        is at most ``tol_f``, and that bound (arb)."""
        if self.k < 2:
            return arb(0), arb(0)

        def levels():
            for z in (4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 9, 10, 11, 12, 14, 16, 20, 24, 32, 48, 64, 128,
                      256, 512, 1024):
                s = law2.meanf + sign * z * law2.sdf
                if s <= 0:
                    return
                yield s
        found = self.first_level(law2, sign > 0, levels())
        if found is None and sign < 0:
            # a spread law: fractions of the mean (any Chernoff level is valid), else 0
            found = self.first_level(law2, False, (law2.meanf * f for f in (
                0.7, 0.5, 0.35, 0.25, 0.15, 0.1, 0.05, 0.02, 0.01)))
            if found is None:
                return arb(0), arb(0)
        if found is None:
            raise PrecisionError("cannot bound the light sum of squares; ask for fewer digits")
        s, B = found
        return arb(s), B

    def rest_law(self, l, n, m):
        """The law of ``p_1`` of the outputs not yet placed: ``n`` null and ``m``
        changed-user outputs over the levels ``<= l``."""
        key = ("rest", l, n, m)
        if key not in self.laws:
            cats = range(l + 1)
            facs = [([self.pi0[j] / self.cum0[l] for j in cats], n)]
            if m:
                facs.append(([self.pi1[j] / self.cum1[l] for j in cats], m))
            self.laws[key] = LightLaw([self.w[j] for j in cats], facs, self.prec)
        return self.laws[key]
