"""Probe (issue 20, not a supported API): the forward k-copies tilt with the levels above a light
cut enumerated, at L = 40, N = 10^7, lam = e^2, where the full law's statistic refuses (tau w_max
>= 1/2 at k >= 64 for q <= 0.40: one top output doubles R).

This is a measurement of an unfinished plan, kept so the next step starts from code and numbers
(session 28's branch of the same idea was lost).  It subclasses the tilt module's internal run
(``exactdp.reductions.kfourier.tilt._Run``) on purpose; folding it into the module as a strategy
(chosen by ``heavy="auto"``, tested against the walk and the tree) is the open step.

The plan (``CutRun``):

* the levels ``cut + 1 .. L`` are enumerated as count vectors (:meth:`_Run.top`); the light
  statistic, its cancelling ``(tau, beta, gamma)`` and the threshold point come from a fixed point
  on the light levels alone, with the heavy polynomial ``E_H`` of a lead vector given by hand;
* each count's window is the least ``m_j`` with ``P_{D_m}[p_1 > x_min, n_j > m_j]`` below the
  target (a Chernoff bound, as the top levels' windows);
* the light box's edges are chosen under the light law tilted by the plan alone (its failure
  enters the lower end through the joint Chernoff bounds, as before); its failure in the upper
  end is bounded per count vector by an R-weighted Chernoff bound, exact in the light law (the
  outputs independent given the counts, ``e_i`` of i.i.d. weights):

      E_D[R e^(+-b (V - edge)) | n] = kappa e^(-+b edge) [t^k] E_H(t) (m_b + mu_b t)^(n'),

  ``m_b = E e^(+-b v)``, ``mu_b = E w e^(+-b v)`` over the light law, ``b`` from a grid;
* eta's kernels carry the Taylor terms of ``F`` (``tilt.ETA_ORDER``) and each count's light tilt is
  at least ``tilt.LIGHT_TILT_RHO`` times ``rho``.

Measured (session 30, ``benchmarks/RESULTS.md``), *not yet certified* (those runs added the box
failure only to the vectors with an integral, not to the Chernoff-capped ones, which the code below
now does, too slowly: over 25 minutes at k = 64): k = 64, q = 0.40, cut 35, lead (0, 0, 0, 0, 3):
[2.1106e-21, 2.1168e-21] (2.9e-3) in 177 s (the linear kernels: 2.7e-2; the walk's passes
[1.93e-21, 2.71e-21] in 220 s); k = 128, q = 0.38, cut 34, lead (0, 0, 0, 0, 0, 1): [6.020e-5,
6.099e-5] (1.3e-2) in 412 s on a loaded machine (cut 35: 0.12, the light box's p_2 lumpy; the
walk's [2.9e-6, 4.4e-4] in 300 s).

    python benchmarks/probe_forward_cut.py 64 0.40 35 0,0,0,0,3
"""

from __future__ import annotations

import math
import sys
import time
from fractions import Fraction
from math import comb

import numpy as np
from flint import arb, arb_poly, ctx

from exactdp.reductions.kfourier import tilt as T
from exactdp.reductions.kfourier.series import Series


class CutRun(T._Run):
    """The forward run with the plan from the light levels ``0 .. cut`` (module doc)."""

    def __init__(self, law, k, lam, rel, cut, lead, z=T.BOX_Z[1]):
        self.law, self.k, self.rel, self.delta = law, k, rel, False
        M = law.M
        self.kappa = T.exact_arb(T._kappa(M, k))
        self.lam, self.lam_lo, self.lam_hi = lam, arb(lam.lower()), arb(lam.upper())
        self.xmin_lo = arb(T._x_min(self.kappa, k, self.lam_lo).lower())
        self.cut, self.vfail, self.rows = cut, arb(0), []
        levels = list(range(cut + 1, len(law.wf)))
        E, wlog = T._heavy_vector(law, levels, lead, k)
        n = sum(lead)
        light = law.light(cut)
        heavy_w = sum(c * law.wf[j] for j, c in zip(levels, lead))
        y = max(float(self.xmin_lo) - heavy_w, 1e-3)
        stat = (k / max(float(self.xmin_lo), 1e-9), 0.0, 0.0)
        for _ in range(T.MAX_ITER):
            phi = light.phi(*stat)
            t = T._Run._light_tilt(light.lpi, phi, M - n, y)
            Q = light.tilted(t, phi)
            ivs = []
            for i in (2, 3, 4):
                m, sd = T._box_stats(light, Q, i)
                ivs.append((max(m - z * sd, 0.0), m + z * sd))
            th = Series(E, self.kappa, k, T._boxes(k, stat, light.w[-1], *ivs))
            y1 = th.root(th.main_value, lam, y)
            stat1 = T._cancel(th, y1)
            done = abs(y1 - y) <= 1e-13 * y and abs(stat1[0] - stat[0]) <= 1e-10 * stat[0]
            y, stat = y1, stat1
            if not 0 < stat[0] * light.wf[-1] < 0.5:
                raise T.PrecisionError("probe: tau out of range on the light law")
            if done:
                break
        phi = light.phi(*stat)
        t = T._Run._light_tilt(light.lpi, phi, M - n, y)
        tau = stat[0]
        phif = law.phi(*stat)
        phif[cut + 1:] = np.log1p(tau * law.wf[cut + 1:]) / tau     # heavy levels: no beta, gamma
        heavy_phi = sum(c * phif[j] for j, c in zip(levels, lead))
        # eta's scale (the failure bounds' target): the lead vector's E_D[R; counts], exact
        er = self._mean_r(n, E, cut + 1)
        self.eta_scale = float((wlog + (M - n) * self._light_mass(cut + 1).log()).mid()) + math.log(float(er.mid()))
        self._tilt(law, y + heavy_phi, stat, t, sign=1.0)
        self.log_eta = self.eta_scale
        self.target = self.log_eta + math.log(self.rel * T.FAIL_SHARE)
        ta = arb(tau)
        for j in range(cut + 1, len(law.wf)):
            self.phia[j] = (1 + ta * law.w[j]).log() / ta
        self.phi = phif
        self.Q = law.tilted(t, phif)
        self.z = None

    def _choose_box(self, light, extra=()):
        law, k, M = self.law, self.k, self.law.M
        mask = np.arange(len(law.wf)) < light
        Q = np.where(mask, self.Q, 0.0)
        Q = Q / Q.sum()
        lq = np.log(np.maximum(Q, 1e-320))
        edges, fails, zmax = {}, [], 0.0
        self.light_fails = []
        for key in (2, 3, 4):
            v = np.where(mask, law.wf ** key, 0.0)
            m1, m2 = float((Q * v).sum()), float((Q * v * v).sum())
            m, s = M * m1, math.sqrt(max(M * (m2 - m1 * m1), 1e-300))
            ends = []
            for above in (True, False):
                for z in T.BOX_Z + (None,):
                    if z is None:
                        raise T.PrecisionError("probe: no light edge")
                    edge = m + z * s if above else m - z * s
                    if not above and edge <= 0:
                        edge = 0.0
                        break
                    bq, eq = T._fail_q(lq, v, M, edge, above=above, sd=s)
                    if eq <= math.log(self.rel * T.FAIL_SHARE) - 5:
                        fails.append((key, v, edge, above, 0.0, 0.0, bq))
                        self.light_fails.append((key, edge, above))
                        break
                zmax = max(zmax, z or 0.0)
                ends.append(edge)
            edges[key] = (ends[1], ends[0])
        for key, v in extra:
            m = 0
            while True:
                edge = m + 0.5
                a, b, e = T._fail_dm(law, k, float(self.xmin_lo), v, edge, above=True, t0=self.t, sd=1.0)
                if e <= self.target or m > 200:
                    break
                m += 1
            fails.append((key, v, edge, True, a, b, 0.0))
            edges[key] = (0.0, edge)
        self.z = zmax
        return zmax, edges, fails

    def _fail_arb(self, fails, probs, n):
        # the count windows' failures under D_m; the light box's upper-end failure is per vector
        dm = arb(0)
        for key, v, edge, above, a, b, bq in fails:
            if isinstance(key, int):
                continue
            va = [T.exact_arb(Fraction(x)) for x in v]
            dm += T._fail_dm_arb(self.law, self.k, self.xmin_lo, va, arb(edge), above=above, a=a, b=b).exp()
        return dm, arb(0)

    def vector_fail(self, counts, levels):
        """``E_D[R; R > lam, not B, counts]`` by the R-weighted Chernoff bounds (module doc), joint
        with Maclaurin's ``p_1(L) > x_min - p_1(H)`` (``e^(a (p_1(L) - x))``, ``a >= 0``)."""
        from scipy.optimize import minimize
        from scipy.special import gammaln, logsumexp
        law, k, M = self.law, self.k, self.law.M
        d, n = levels[0], sum(counts)
        nl = M - n
        E, wlog = T._heavy_vector(law, levels, counts, k)
        rest = self._light_mass(d)
        pl = [x / rest for x in law.pi0[:d]]
        wl = law.w[:d]
        xl = self.xmin_lo - sum((c * law.w[j] for j, c in zip(levels, counts)), arb(0))
        xf = max(float(xl.lower()), 0.0)
        lpl = np.log(np.array([float(x) for x in pl]))
        wf = np.array([float(x) for x in wl])
        logE = np.array([float(e.log()) if e > 0 else -np.inf for e in E])
        i = np.arange(k + 1)
        binom = gammaln(nl + 1) - gammaln(i + 1) - gammaln(nl - i + 1)
        total = arb(0)
        for key, edge, above in self.light_fails:
            vf = wf ** key
            sg = 1.0 if above else -1.0
            sd = math.sqrt(max(nl * float((np.exp(lpl) * vf * vf).sum()), 1e-300))

            def f(u):
                a, b = (math.exp(u[0]) if xf > 0 else 0.0), math.exp(u[1]) / sd
                e = a * wf + sg * b * vf
                lm, lmu = logsumexp(lpl + e), logsumexp(lpl + np.log(wf) + e)
                return float(logsumexp(logE[k - i] + binom + (nl - i) * lm + i * lmu)) - a * xf - sg * b * edge

            best = None
            for u0 in ([0.0, 0.0], [3.0, 2.0], [5.0, 4.0], [1.0, 6.0]):
                r = minimize(f, u0, method="Nelder-Mead", options={"xatol": 1e-8, "fatol": 1e-8, "maxiter": 3000})
                if best is None or r.fun < best.fun:
                    best = r
            a = arb(math.exp(best.x[0])) if xf > 0 else arb(0)
            b = arb(math.exp(best.x[1]) / sd)
            ex = [a * w + sg * b * w ** key for w in wl]
            mb = sum((p * e.exp() for p, e in zip(pl, ex)), arb(0))
            mub = sum((p * w * e.exp() for p, w, e in zip(pl, wl, ex)), arb(0))
            lt = [comb(nl, j) * mub ** j * mb ** (nl - j) for j in range(k + 1)]
            xa = arb(xf)
            total += self.kappa * (arb_poly(E) * arb_poly(lt)).coeffs()[k] * (-a * xa - sg * b * arb(edge)).exp()
        return total * (wlog + nl * rest.log()).exp()

    def _count(self, counts, levels, boxes, fails, nodes):
        lo, up, got, pts = super()._count(counts, levels, boxes, fails, nodes)
        # the box enters where the series did: an integral or the Chernoff cap (not E[R | n], not
        # _certain, which bounds the light box's failure itself)
        if got > 0 or (pts is not None and not lo > 0):
            f = self.vector_fail(counts, levels)
            up = up + f
            self.vfail += f
        self.rows.append((float(up.upper()) - float(lo.lower()), counts, got))
        return lo, up, got, pts


def run(k, q, cut, lead, rel=1e-4):
    M = k * 10**7
    t0 = time.time()
    with ctx.workprec(192):
        law = T._Law(40, Fraction(q), M, 192)
        r = CutRun(law, k, T._lam_arb(None, 2), rel, cut, lead)
        res = r.top(cut + 1)
    eta = res["eta"]
    widest = sorted(r.rows, key=lambda x: -x[0])[:3]
    print(f"k={k} q={q} cut={cut} lead={lead}: eta in [{float(eta.lower):.5g}, {float(eta.upper):.5g}] "
          f"rel {float(eta.relative_width()):.2g}, {res['integrals']} integrals, {len(r.rows)} vectors, "
          f"box failure {float(r.vfail) / float(eta.upper):.2g} of eta, count windows' failure 10^{res['fail']:.1f}"
          f" of eta, {time.time() - t0:.0f} s; widest vectors {widest}")


if __name__ == "__main__":
    k, q, cut = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    run(k, q, cut, tuple(int(x) for x in sys.argv[4].split(",")))
