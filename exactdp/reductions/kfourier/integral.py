r"""The light law's tail by one Gil-Pelaez integral of the mixed characteristic function (part of
:mod:`exactdp.reductions.kfourier`; the walk that collects the items is
:class:`~exactdp.reductions.kfourier.walk.Walk`).

**The light law's tail** ``P[x > s]`` is enclosed exactly as in
:mod:`exactdp.engine.largen`: smoothing ``V = x + N(0, sg^2)`` with the
pathwise bracket ``P_V(s + a) - Q(a/sg) <= P[x > s] <= P_V(s - a) + Q(a/sg)``,
Gil-Pelaez for ``P_V`` by arb's rigorous integration of the mixed
characteristic function ``sum_nodes P e^(-iu s) phi_0(u)^n phi_1(u)^m``
(``n`` null and ``m`` changed-user light outputs), the Taylor piece near
``0``, and the proved decay of ``|phi_0|^n`` beyond the window
(``LightLaw.decay_bands``); a node whose point lies more than 3 standard
deviations out is decided by the Chernoff bound instead.  Every term is an arb
ball or an explicit bound: the result is an enclosure.  No normal or
saddlepoint approximation is used.

**The mixture's items in Taylor clusters.**  The items of one light law
``(n, m)`` (centred points ``c``) are grouped in clusters of width ``h = 2 rho / U1``
(``rho = TAYLOR_RADIUS``) around centres ``c0``; with ``delta = c - c0``,
``|delta| <= rho / U1``,

    sum P e^(-izc) = e^(-iz c0) sum_(r < R) mu_r (-iz)^r + E,   mu_r = sum P delta^r / r!,
    |E| <= sum P |z delta|^R / R!       (z real),

so the integrand is an entire function (exponentials times polynomials, evaluated
in C) plus an error whose integral over ``[a0, U1]`` is at most
``sum P |delta|^R U1^R / (R R!)`` (``|phi| <= 1``, the Gaussian factor ``<= 1``,
``|1/(2iz)| <= 1/(2z)``, ``gp`` and ``gm`` each); that bound is added to the
width.  The cost of the integral no longer grows with the number of items.  Each cluster takes
the least order ``R <= TAYLOR_ORDER`` whose remainder per unit mass ``(|delta|_max U1)^R / (R R!)``
is below ``TAYLOR_REM`` (any ``R >= 1`` is valid: the remainder of the order used is what enters
the width); a lone item (the common case with exact counts, one ``(n, m)`` per leaf) is a
constant.  The integrand's ``phi_0^n`` runs over the keys in ascending ``n``, each from the last
one's power times ``phi_0^(n - n_last)``.  At ``L = 40``, ``N = 10^7``, ``k = 8``, ``q = 0.34``,
``tol = 1e-4``: 31.8 -> 23.2 CPU s, the same enclosure to 1e-9 (``benchmarks/RESULTS.md``, kq32).

**Both sides in one integral.**  A walk's upper and lower items of one bin share the light laws
and the smoothing: :func:`mixture_tails` integrates ``F_0 + i F_1`` (``F_j`` the integrand of
side ``j``, real on the real line), so the real part of the enclosure contains ``int F_0`` and
its imaginary part ``int F_1``; the light levels' characteristic functions are computed once per
node and the quadrature's nodes are shared (at ``k = 8``, ``q = 0.32``, ``tol = 1e-4``: 626
evaluations instead of 1,197 per bin, 6.2 -> 5.1 CPU s; ``benchmarks/RESULTS.md``, session 10).
"""

from __future__ import annotations

import math

from flint import acb, acb_poly, arb, arb_poly, ctx

from ...core.errors import CapacityError, PrecisionError
from ...engine.largen import K_SMOOTH
from . import settings
from .arbs import float_hi


def smoothing(law, *, n_min: int, sg_base: float, tol: float, eps_int: float, decay: dict, key):
    """``(a, sg, U1, T1, T2)`` for the light laws with at least ``n0`` null outputs (``law`` the
    light law of ``n0`` null outputs, ``n_min`` the fewest null outputs of any of them): the
    smoothing half-width ``a = K_SMOOTH sg``, the window's end ``U1`` and the decay bands'
    bounds beyond it (``LightLaw.decay_bands``, cached in ``decay`` under ``(a, U1, key)``)."""
    U1 = (math.sqrt(2 * math.log(1 / eps_int) + 10) + 4) / law.sdf
    aa = max(sg_base * tol, sg_base * 1e-14)
    while True:
        sg = aa / K_SMOOTH
        dkey = (aa, U1, key)
        try:
            if dkey not in decay:
                decay[dkey] = law.decay_bands(n_min, U1, sg, eps_int)
            T1, T2 = decay[dkey]
            return aa, sg, U1, T1, T2
        except PrecisionError:
            if aa > law.sdf * 1e-2:
                raise CapacityError("kfourier: cannot certify the light law's smoothness at any "
                                    "useful resolution; use the k-copies tree") from None
            aa *= 100


def mixture_tail(items, *, laws, wy, pl0, pl1, sg: float, U1: float, T1, W, eps_int: float, tol: float,
                 prec: int, complement: bool = False):
    """Certified ``sum P P[V > x]`` over ``(n, m, x, P)``, ``V = x_light(n, m) + N(0, sg^2)``:
    one Gil-Pelaez integral of the mixed characteristic function (module doc).

    ``laws(n, m)`` is the light law of ``n`` null and ``m`` changed-user light outputs, ``wy`` the light
    statistic's weights per light level, ``pl0``, ``pl1`` the null and changed-user light level
    laws; ``sg``, ``U1``, ``T1`` from :func:`smoothing`; ``W`` the items' total mass; ``eps_int``
    and ``tol`` the integral's and the walk's tolerances; ``prec`` the working precision;
    ``complement``: the caller takes ``W - S`` (:func:`mixture_tails`)."""
    return mixture_tails([(items, W)], laws=laws, wy=wy, pl0=pl0, pl1=pl1, sg=sg, U1=U1, T1=T1,
                         eps_int=eps_int, tol=tol, prec=prec, complement=complement)[0]


def mixture_tails(sides, *, laws, wy, pl0, pl1, sg: float, U1: float, T1, eps_int: float, tol: float,
                  prec: int, complement: bool = False):
    """:func:`mixture_tail` of one or two item lists ``sides = [(items, W), ...]`` with the same
    light laws and smoothing, in one integral: the integrand ``F_0 + i F_1`` (each ``F_j`` is
    real on the real line, so the result's real part encloses ``int F_0`` and its imaginary part
    ``int F_1``); the characteristic functions of the light levels are computed once per node
    for both sides (a walk's upper and lower sides of one bin).  A list of enclosures.

    ``complement``: the caller takes ``W - S`` (a walk of ``P[R < thr]``), so the integral's
    error must be small against that, not against ``S``: no relative goal (arb's integration
    stops at ``rel_tol |I|`` otherwise, 2^-60: 003's reverse at ``k = 8``, ``q = 0.351``, tol
    3.13e-38, ``S = 0.0679 +/- 5.8e-19`` where ``W - S`` is ~1e-37)."""
    assert 1 <= len(sides) <= 2
    with ctx.workprec(prec):
        law0 = laws(min(n for items, _ in sides for n, *_ in items), 0)
        mf0 = law0.fmeans[0]
        wc0 = [x - mf0 for x in wy]
        mf1 = sum((p * x for p, x in zip(pl1, wy)), arb(0))
        wc1 = [x - mf1 for x in wy]
        h = 2 * settings.TAYLOR_RADIUS / U1
        aU1 = arb(U1)
        setups = [_clusters(items, laws, h, aU1) for items, _ in sides]
        any_m = any(m for keys, _, _ in setups for _, m in keys)
        sg2h = arb(sg) ** 2 / 2
        i = acb(0, 1)

        def side(z, real, zr, zz, setup, phis):
            keys, clusters = setup[0], setup[1]
            f0p, f0m, f1p, f1m = phis
            gp = gm = acb(0)
            n_last = None
            for n, m in keys:
                # the keys ascend in n: phi_0^n from the last key's power (a few products
                # for the difference instead of a full power per key; the same balls' product)
                if n_last is None:
                    p0p = f0p ** n
                    p0m = None if real else f0m ** n
                elif n != n_last:
                    p0p = p0p * f0p ** (n - n_last)
                    p0m = None if real else p0m * f0m ** (n - n_last)
                n_last = n
                cp, cm = p0p, p0m
                if m:
                    cp = cp * f1p ** m
                    cm = None if real else cm * f1m ** m
                sp = sm = acb(0)
                if real:
                    # e^(-izc) P of the lone items as cos / sin sums in real arithmetic
                    re = im = arb(0)
                    for c0, pp, pmn, eo in clusters[(n, m)]:
                        sn, cs = (zr * c0).sin_cos()
                        if eo is None:
                            re += cs * pp
                            im -= sn * pp
                        else:
                            # (cos - i sin)(a + i b), a = Ev(z^2), b = z Od(z^2)
                            a, b = eo[0](zz), zr * eo[1](zz)
                            re += cs * a + sn * b
                            im += cs * b - sn * a
                    sp = acb(re, im)
                else:
                    for c0, pp, pmn, _ in clusters[(n, m)]:
                        hh = (-i * z * c0).exp()
                        if isinstance(pp, arb):
                            sp += hh * pp
                            sm += pp / hh
                        else:
                            sp += hh * pp(z)
                            sm += pmn(z) / hh
                gp += cp * sp
                if not real:
                    gm += cm * sm
            if real:
                gm = gp.conjugate()
            return gp - gm

        def F(z, analytic):
            # on the real line (the quadrature's nodes) the minus side is the conjugate of the
            # plus side (real probabilities, masses and Taylor moments), so only gp is computed
            real = z.imag.is_zero()
            zr = zz = f0m = f1p = f1m = None
            if real:
                # e^(izx) = cos(zx) + i sin(zx) in real arithmetic (the same numbers, cheaper)
                zr = z.real
                zz = zr * zr
                f0p = phi_real(zr, wc0, pl0)
                if any_m:
                    f1p = phi_real(zr, wc1, pl1)
            else:
                e0 = [(i * z * x).exp() for x in wc0]
                f0p = sum((p * e for p, e in zip(pl0, e0)), acb(0))
                f0m = sum((p / e for p, e in zip(pl0, e0)), acb(0))
                if any_m:
                    e1 = [(i * z * x).exp() for x in wc1]
                    f1p = sum((p * e for p, e in zip(pl1, e1)), acb(0))
                    f1m = sum((p / e for p, e in zip(pl1, e1)), acb(0))
            ga = (-sg2h * z * z).exp() / (2 * i * z)
            phis = (f0p, f0m, f1p, f1m)
            out = side(z, real, zr, zz, setups[0], phis)
            if len(setups) > 1:
                out += i * side(z, real, zr, zz, setups[1], phis)
            return out * ga

        sg2 = arb(sg) ** 2
        consts, eps_all = [], None
        for items, W in sides:
            SD = SM3 = arb(0)
            Mmax = 1e-300
            for n, m, x, P in items:
                law = laws(n, m)
                d = law.mean - x
                vv = law.var + sg2
                m4 = 8 * (d ** 4 + 3 * vv * vv + law.k4)
                SD += P * d
                SM3 += P * m4 ** arb(0.75)
                Mmax = max(Mmax, float(m4.upper()) ** 0.25)
            Wf = max(float(W.upper()), 1e-300)
            eps_c = min(max(eps_int * Wf, tol * settings.INT_ITEM * len(items)), 1e-3 * Wf)
            d0 = min((eps_c / Wf / 10) ** (1 / 3) / Mmax, U1 / 4)
            consts.append((SD, SM3, d0, W))
            eps_all = eps_c if eps_all is None else min(eps_all, eps_c)
        # one lower end for both sides (the Taylor piece below it is bounded per side)
        a0 = arb(min(d0 for _, _, d0, _ in consts))
        rel_tol = arb(2) ** -(prec if complement else 60)
        I = acb.integral(F, a0, arb(U1), abs_tol=arb(eps_all) / 16, rel_tol=rel_tol,
                         eval_limit=2_000_000, deg_limit=200)
        out = []
        for j, ((SD, SM3, _, W), (_, _, taylor_err)) in enumerate(zip(consts, setups)):
            Ij = I.real if j == 0 else I.imag
            I1 = (Ij + SD * a0 + arb(0, float((a0 ** 3 * SM3 / 18).upper()))
                  + arb(0, float_hi(taylor_err))
                  + arb(0, float((W * T1).upper())))
            out.append(W / 2 + I1 / arb.pi())
        return out


def _clusters(items, laws, h: float, aU1):
    """``(keys, clusters, taylor_err)`` of :func:`mixture_tails`' one side: the items grouped by
    light law ``(n, m)`` (keys ascending) in clusters of width ``<= h`` with their Taylor
    polynomials (module doc), and the summed Taylor remainder bound."""
    groups = {}
    for n, m, x, P in items:
        law = laws(n, m)
        groups.setdefault((n, m), []).append((P, x - law.mean))
    keys = sorted(groups)
    # the items of a group in clusters of width <= h: sum P e^(-izc) =
    # e^(-iz c0) sum_r mu_r (-iz)^r + (Taylor remainder, module doc)
    clusters, taylor_err = {}, arb(0)
    U1 = float(aU1)
    for key in keys:
        its = sorted(groups[key], key=lambda t: float(t[1]))
        out, j = [], 0
        while j < len(its):
            c_start = float(its[j][1])
            e = j
            while e < len(its) and float(its[e][1]) - c_start <= h:
                e += 1
            if e - j == 1:
                # a lone item: its own centred point (an arb), no Taylor remainder at all (a float
                # centre left |delta| ~ 1e-17: a remainder ~1e-16 of its mass, the floor of 003's
                # reverse at k = 8, where the walk takes W - S)
                c0 = its[j][1]
                dls = [(its[j][0], arb(0))]
            else:
                c0 = arb(0.5 * (c_start + float(its[e - 1][1])))
                dls = [(P, c - c0) for P, c in its[j:e]]
            # the cluster's own order (module doc): its remainder per unit mass below
            # TAYLOR_REM, at most TAYLOR_ORDER (a lone item's spread is a rounding ball)
            R = taylor_order(max(float_hi(dl.abs_upper()) for _, dl in dls) * U1)
            mu = [arb(0)] * R
            fR = arb(math.factorial(R))
            for P, dl in dls:
                t = P
                for r in range(R):
                    mu[r] += t
                    t = t * dl / (r + 1)
                # int_(a0)^U1 |sum P e^(-izc) - Taylor| / (2z) (gp and gm) <= P |dl|^R U1^R / (R R!)
                taylor_err += P * (dl.abs_upper() * aU1) ** R / (fR * R)
            if R == 1:
                out.append((c0, mu[0], mu[0], None))
            else:
                out.append((c0, *cluster_polys(mu)))
            j = e
        clusters[key] = out
    return keys, clusters, taylor_err


def cluster_polys(mu):
    """A cluster's Taylor polynomials (:func:`mixture_tail`, module doc) from its moments
    ``mu_r``: ``(pp, pm, (ev, od))`` with ``pp(z) = sum mu_r (-iz)^r``, ``pm(z) = sum mu_r
    (iz)^r`` and, for a real ``z``, ``pp(z) = ev(z^2) + i z od(z^2)``: ``ev_j = (-1)^j mu_2j``,
    ``od_j = (-1)^(j+1) mu_(2j+1)`` (two real polynomials of half the degree).

    >>> from flint import acb, arb
    >>> pp, pm, (ev, od) = cluster_polys([arb(1), arb(2), arb(3), arb(4)])
    >>> z = arb("0.5")
    >>> (pp(acb(z)) - acb(ev(z * z), z * od(z * z))).is_zero(), (pm(acb(z)) - pp(acb(z)).conjugate()).is_zero()
    (True, True)
    """
    i = acb(0, 1)
    pp = acb_poly([m_ * (-i) ** r for r, m_ in enumerate(mu)])
    pm = acb_poly([m_ * i ** r for r, m_ in enumerate(mu)])
    ev = arb_poly([m_ if j % 2 == 0 else -m_ for j, m_ in enumerate(mu[0::2])])
    od = arb_poly([-m_ if j % 2 == 0 else m_ for j, m_ in enumerate(mu[1::2])])
    return pp, pm, (ev, od)


def phi_real(z: arb, xs, ps) -> acb:
    """``sum p e^(izx)`` over ``(x, p)`` at a real ``z``: ``sum p cos(zx) + i sum p sin(zx)``."""
    re = im = arb(0)
    for x, p in zip(xs, ps):
        sn, cs = (z * x).sin_cos()
        re += p * cs
        im += p * sn
    return acb(re, im)


def taylor_order(x: float) -> int:
    """The least ``R <= TAYLOR_ORDER`` with ``x^R / (R R!) <= TAYLOR_REM`` (``x = |delta|_max U1``
    of a cluster; :func:`mixture_tail`); the remainder actually added is computed in arb for the
    ``R`` chosen, so any ``R >= 1`` is valid: this only picks the cheapest one."""
    if not x > 0:
        return 1
    if not settings.TAYLOR_REM > 0:
        return settings.TAYLOR_ORDER
    lx, lt = math.log(x), math.log(settings.TAYLOR_REM)
    for R in range(1, settings.TAYLOR_ORDER):
        if R * lx - math.log(R) - math.lgamma(R + 1) <= lt:
            return R
    return settings.TAYLOR_ORDER
