r"""Certified lower tails far below 1e-300: exponential tilting with an exact prefactor.

The reverse direction (003 (2.10): ``R = N / X`` under ``D``) asks for the *lower*
tail of ``S = X / N = sum_i w(Y_i)`` (000 (3.6)): ``eta_rev(lam) = P[S < s]`` and
``delta_rev(lam) = lam E(s - S)+`` with ``s = 1 / lam``.  The ``N`` users are
independent; user ``i`` lands in category ``l`` with ``pi0_l = C(L,l) q^l p^(L-l)``
(000 (3.7)) and carries the weight ``w_l = c_l / N = (q/p)^(L-2l) / N`` (000 (3.2)),
``E S = 1``.  At deployment scale these values are astronomically small (~1e-8485 at
L = 40, N = 10^7, q = 0.351, lam = e^2), far below the absolute resolution of the
heavy/light strategy (:mod:`exactdp.engine.largen`), which then certifies only an
upper bound.  This module gives them with *relative* precision.

**Heavy categories drop out exactly.**  A user in a category with ``w_l > s`` makes
``S > s``, so both ``1{S < s}`` (or ``<=``) and ``(s - S)+`` vanish unless every user
is in ``A = {l : w_l <= s}`` (the categories not certainly above ``s`` in arb).
Only ``A`` enters below.

**Tilt.**  For ``t > 0`` let ``m(t) = sum_{l in A} pi0_l e^{-t w_l}`` and the tilted
user law ``pi_l(t) = pi0_l e^{-t w_l} / m(t)`` on ``A``.  The product of the ``N``
users' likelihood ratios is ``prod m(t) e^{t w(Y_i)} = m(t)^N e^{t S}``, so for
``Y = S - s`` under the tilted law ``Q``

    P[S < s]  = m(t)^N e^{t s} J,   J = E_Q[ e^{tY} 1{Y < 0} ],
    E(s - S)+ = m(t)^N e^{t s} K,   K = E_Q[ -Y e^{tY} 1{Y < 0} ].

The prefactor ``exp(N log m(t) + t s)`` is an arb ball (log space: arb's exponent
range is unbounded, so 1e-10^5 is an ordinary ball).  ``t`` is the saddle point
``E_Q S = N sum pi_l(t) w_l = s`` (float search; any ``t > 0`` gives the identity,
the saddle point makes ``J`` and ``K`` moderate: ``J ~ 1 / (t sd_Q sqrt(2 pi))``,
``K ~ J / t``), so absolute errors in ``J`` and ``K`` of ``1e-9`` times themselves
are relative errors of the answer.  ``J <= 1`` also gives the Chernoff bound
``P[S < s] <= m(t)^N e^{ts}`` (:func:`log10_chernoff` routes on it).

**Smoothing (pathwise).**  ``V = Y + G`` with ``G ~ N(0, sg^2)`` independent,
``a = K_SMOOTH sg``, ``Q_a = P[|G| > a] = erfc(K_SMOOTH / sqrt 2)``.  On ``|G| <= a``:
``Y < 0`` implies ``V < a`` and ``e^{tY} = e^{tV} e^{-tG} <= e^{ta} e^{tV}``; ``V < -a``
implies ``Y < 0`` and ``e^{tY} >= e^{-ta} e^{tV}``.  With ``h(y) = e^{ty} 1{y<0}``,
``h2(y) = -y e^{ty} 1{y<0}`` (``0 <= h <= 1``, ``0 <= h2 <= 1/(e t)``) and
``E[e^{tV} 1{V < b}] = e^{tb} E h(V - b)``, ``E[(b - V) e^{tV} 1{V < b}] = e^{tb} E h2(V - b)``:

    e^{-2ta} E h(V + a) - Q_a           <= J <= e^{2ta} E h(V - a) + Q_a,
    e^{-2ta} E h2(V + a) - Q_a / (e t)  <= K <= e^{2ta} E h2(V - a) + Q_a / (e t)

(strict and inclusive events alike: ``V`` is continuous).  The relative width this
costs is ``~4ta``; ``a`` follows the digits asked.

**Fourier.**  ``h`` and ``h2`` are integrable with transforms
``int h(y) e^{-iuy} dy = 1 / (t - iu)`` and ``1 / (t - iu)^2``; ``V`` has the
integrable characteristic function ``phi_V(u) = f(u)^N e^{iu(N mu - s)} e^{-sg^2 u^2/2}``
(``f(u) = sum_A pi_l(t) e^{iu(w_l - mu)}``, ``mu`` the tilted mean weight), so by
Fubini on the density of ``V``

    E h_k(V - b) = (1/pi) int_0^inf Re[ phi_V(u) e^{-iub} / (t - iu)^k ] du    (k = 1, 2).

On ``[0, U1]`` arb's rigorous Gauss-Legendre quadrature (``acb.integral``) integrates
the analytic continuation ``(g(z) + g*(z)) / 2`` (``g*(z) = conj g(conj z)``, built from
``f(-z)``), with ``f`` enclosed on complex balls in mean-value form
(:func:`exactdp.engine.largen.cf_pair`).  Beyond ``U1``, ``|1/(t - iu)^k| <= u^-k`` and
the *proved* band decay of ``|f|^N`` (:meth:`exactdp.engine.largen.LightLaw.decay_bands`,
the tilted law is again ``N`` iid users over categories with weights ``w_l``) bounds
``int_U1^inf |phi_V| / u^k``.  When that proof fails at the resolution (a lattice-like
law: few categories) the resolution ``a`` is coarsened tenfold, which only widens
the enclosure.

**Lattice route (no smoothing).**  The integer weights ``W_l = a^(2(L-l)) b^(2l)`` of
000 (3.6) (``c_l = W_l / (ab)^L``) put ``S`` on a lattice: ``S = c_0 + Delta U`` with
``U = sum_i V(Y_i)`` an integer, ``V_l = (W_l - W_0) / h``, ``h`` the gcd of the differences
and ``Delta = h / ((ab)^L N)``.  When ``1/Delta <= LATTICE_MAX`` (rational ``q`` with small
numerator and denominator: L = 3-16 at q = 1/4, 1/5, 0.2), the period of ``U``'s
characteristic function is within reach and the smoothing (which cannot be proved there: the
phases return to 0 mod 2 pi) is not needed: ``P(U = u)`` by inversion over one period and the
geometric sums over ``u <= u*`` give ``J`` and ``K`` exactly as one integral each
(:func:`_lattice`); a threshold on the lattice (rational ``s``) gives the hull of ``<`` and ``<=``.

**Routing and cost.**  ``PrivacyRatio`` (reverse direction, beyond the tree) sends
``P[S < s]`` and ``E(s - S)+`` here when the saddle-point Chernoff estimate is below
``10^CHERNOFF_ROUTE`` (the heavy/light strategy's widths are absolute, ~its truncation);
below ``10^TILT_FLOOR`` the certified bound :func:`chernoff_bounds` is the answer.  One decay
proof may use ``DECAY_BANDS`` band bounds before ``a`` is coarsened (a cost choice).

Every piece (prefactor, quadrature, tails, smoothing, ``Q_a``, rounding) is an arb
ball or an explicit bound: the result is an enclosure, never a saddlepoint
approximation.

>>> from fractions import Fraction
>>> r = tilted_sums(Mechanism(4, "1/4"), 200, Fraction(1, 4), excess=True, rel=1e-8)
>>> 1e-6 < float(r.p_below.mid) < 1e-4, r.p_below.relative_width() < 1e-6
(True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

from flint import acb, arb, ctx, fmpq

from ..core.errors import ParameterError, PrecisionError
from ..core.interval import Interval, arb_to_interval
from ..model.mechanism import Mechanism
from .largen import K_SMOOTH, LightLaw, band_decay_bound, cf_pair

__all__ = ["TiltedSums", "tilted_sums", "saddle_point", "log10_chernoff", "chernoff_bounds", "prefactor",
           "CHERNOFF_ROUTE", "DECAY_BANDS", "TILT_FLOOR"]

#: below this Chernoff bound (log10) the reverse direction's lower tail goes to the
#: tilted strategy: the heavy/light strategy's absolute resolution ends near 1e-30
CHERNOFF_ROUTE = -30.0
#: below 10^TILT_FLOOR (a certified Chernoff bound) the value is reported as that bound: an
#: exact-rational enclosure of a number below 1e-1000000 (a Fraction with millions of bits)
#: is slow to handle and print, and no query needs its digits
TILT_FLOOR = -10**6
#: coarsenings of the smoothing resolution tried when the decay proof fails
MAX_COARSEN = 6
#: band bounds one decay proof may evaluate before the resolution is coarsened tenfold
#: (a cost choice: a coarser resolution only widens the enclosure)
DECAY_BANDS = 250_000


@dataclass(frozen=True)
class TiltedSums:
    """Certified ``p_below = P[S < s]`` (also ``P[S <= s]``) and ``ex_below = E(s - S)+``
    (``None`` unless asked) under the null law, with the pieces of the certificate:
    the tilt ``t``, ``log10`` of the prefactor ``m(t)^N e^{ts}``, the enclosures of
    ``J`` and ``K``, the smoothing half-width ``a`` (0 on the exact-lattice route) and the
    integrals computed.  ``p_below`` is ``m(t)^N e^{ts}`` (000 (3.6)-(3.7)) times ``J``.

    >>> r = tilted_sums(Mechanism(3, "1/4"), 200, Fraction(1, 3))
    >>> r.a, r.J.upper <= 1, round(r.log10_prefactor) <= 0
    (0.0, True, True)
    """

    p_below: Interval
    ex_below: Interval | None
    t: float
    log10_prefactor: float
    J: Interval
    K: Interval | None
    a: float
    integrals: int
    seconds: float


def _light(mech: Mechanism, N: int, s: arb):
    """Categories not certainly above ``s`` (``w_l > s`` forces ``S > s``): the set ``A``."""
    return [l for l in range(mech.L + 1) if not (fmpq(mech.c[l].numerator, mech.c[l].denominator * N) > s)]


def _float_law(mech: Mechanism, N: int, cats):
    import numpy as np
    lpi = np.array([math.log(mech.pi0[l].numerator) - math.log(mech.pi0[l].denominator) for l in cats])
    w = np.array([float(mech.c[l]) / N for l in cats])
    return lpi, w


def _tilted_moments(t: float, lpi, w):
    import numpy as np
    e = lpi - t * w
    mx = float(e.max())
    pr = np.exp(e - mx)
    z = float(pr.sum())
    pr = pr / z
    mu = float((pr * w).sum())
    var = float((pr * (w - mu) ** 2).sum())
    return mx + math.log(z), mu, var


def saddle_point(mech: Mechanism, N: int, s) -> float:
    """The tilt ``t > 0`` with tilted mean ``E_Q S = s`` (float; any ``t > 0`` is valid,
    this one makes ``J`` moderate).  Raises :class:`PrecisionError` when ``s`` is not
    below the mean of ``S`` restricted to ``A`` (not a lower tail).

    >>> t = saddle_point(Mechanism(40, "0.351"), 10**7, Fraction(1, 7))
    >>> 1e5 < t < 1e6
    True
    """
    sa = _s_arb(s)
    cats = _light(mech, N, sa)
    lpi, w = _float_law(mech, N, cats)
    sf = float(sa)

    def mean(t):
        return N * _tilted_moments(t, lpi, w)[1]

    if not mean(0.0) > sf:
        raise PrecisionError("the threshold is not in the lower tail of S; the tilted strategy "
                             "applies below the mean only")
    lo, hi = 0.0, 1.0
    while mean(hi) > sf:
        lo, hi = hi, 2 * hi
        if hi > 1e300:
            raise PrecisionError("no saddle point for the tilted strategy")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if mean(mid) > sf:
            lo = mid
        else:
            hi = mid
    return hi


def _s_arb(s) -> arb:
    if isinstance(s, arb):
        return s
    s = Fraction(s)
    return arb(fmpq(s.numerator, s.denominator))


def log10_chernoff(mech: Mechanism, N: int, s) -> float:
    """``log10`` of the Chernoff bound ``m(t)^N e^{ts} >= P[S < s]`` at the saddle point
    (float, for routing: not a certificate); ``0.0`` when ``s`` is not in the lower tail.

    >>> log10_chernoff(Mechanism(40, "0.351"), 10**7, Fraction(1, 7)) < -1000
    True
    >>> log10_chernoff(Mechanism(40, "0.351"), 10**7, Fraction(2))
    0.0
    """
    try:
        t = saddle_point(mech, N, s)
    except PrecisionError:
        return 0.0
    cats = _light(mech, N, _s_arb(s))
    lpi, w = _float_law(mech, N, cats)
    lm = _tilted_moments(t, lpi, w)[0]
    return min(0.0, (N * lm + t * float(_s_arb(s))) / math.log(10))


def chernoff_bounds(mech: Mechanism, N: int, s, prec: int = 160):
    """Certified upper bounds ``(P[S < s], E(s - S)+)`` as arb balls: ``m(t)^N e^{ts}`` times
    ``J <= 1`` and ``K <= 1/(e t)`` (module doc) at the saddle point; ``None`` when ``s`` is not
    in the lower tail.  Cheap (no integral): for scans that only compare with a target.

    >>> b, e = chernoff_bounds(Mechanism(40, "0.351"), 10**7, Fraction(1, 7))
    >>> b < arb(10) ** -1000 and e < b
    True
    """
    try:
        t = saddle_point(mech, N, s)
    except PrecisionError:
        return None
    with ctx.workprec(prec):
        lp = prefactor(mech, N, s, t, prec)[0]
        b = lp.exp()
        return b, b / (arb(1).exp() * arb(t))


def prefactor(mech: Mechanism, N: int, s, t: float, prec: int = 160):
    """``(log m(t)^N e^{ts}, A, tilted probabilities, weights)`` in arb at ``prec`` bits:
    ``m(t) = sum_{l in A} pi0_l e^{-t w_l}`` (000 (3.7), (3.2)), ``pi_l(t) = pi0_l e^{-t w_l} / m(t)``.

    >>> lp, cats, pr, w = prefactor(Mechanism(2, "1/3"), 1, Fraction(1, 2), 1.0)
    >>> cats, abs(float(lp) - math.log(4/9 * math.exp(-1/4)) - 0.5) < 1e-12
    ([0], True)
    """
    if not t > 0:
        raise ParameterError(f"t must be positive, got {t!r}")
    with ctx.workprec(prec):
        sa = _s_arb(s)
        cats = _light(mech, N, sa)
        th = arb(t)
        w = [arb(fmpq(mech.c[l].numerator, mech.c[l].denominator * N)) for l in cats]
        lg = [arb(fmpq(mech.pi0[l].numerator, mech.pi0[l].denominator)).log() - th * x
              for l, x in zip(cats, w)]
        mx = arb(max(float(x) for x in lg))
        terms = [(x - mx).exp() for x in lg]
        z = sum(terms, arb(0))
        probs = [x / z for x in terms]
        logm = mx + z.log()
        return N * logm + th * sa, cats, probs, w


def _integrate(law, N: int, *, shift, kernel, upper: float, eps: float, prec: int) -> arb:
    """``(1/pi) int_0^upper Re[f(u)^N e^{iu shift} kernel(u)] du`` by arb's rigorous
    quadrature, ``f`` the centred user's characteristic function (``law``'s one factor),
    ``kernel(z, +1)`` the kernel and ``kernel(z, -1)`` its reflection ``conj k(conj z)``."""
    with ctx.workprec(prec):
        (probs, _), = law.factors
        mu = law.fmeans[0]
        xs = [x - mu for x in law.w]
        i = acb(0, 1)

        def F(z, analytic):
            fp, fm = cf_pair(probs, xs, z)
            sh = (i * z * shift).exp()
            return (fp ** N * sh * kernel(z, 1) + fm ** N / sh * kernel(z, -1)) / 2

        I = acb.integral(F, arb(0), arb(upper), abs_tol=arb(eps) / 16, rel_tol=arb(2) ** -60,
                         eval_limit=2_000_000, deg_limit=200)
        return I.real / arb.pi()


def _window(sd: float, eps: float) -> float:
    """Where the quadrature stops: ``|f|^N`` is below ``eps`` beyond (the band proof checks)."""
    return (math.sqrt(2 * math.log(1 / eps) + 10) + 4) / sd


def _smoothed(law, N, t, s, *, excess, rel, eps, prec, max_bands):
    """``(J, K)`` enclosures by the smoothed Fourier route (module doc), and ``a``."""
    th = arb(t)
    sd = law.sdf
    U1 = _window(sd, eps)
    c = N * law.fmeans[0] - s           # centred shift: N mu - s
    qa = (arb(K_SMOOTH) / arb(2).sqrt()).erfc()       # P[|G| > a]
    a = rel / (8 * t)
    for _ in range(MAX_COARSEN):
        sg = a / K_SMOOTH
        try:
            T1, T2 = law.decay_bands(N, U1, sg, eps, max_bands=max_bands)
            break
        except PrecisionError:
            a *= 10
    else:
        raise PrecisionError("cannot prove the decay of the tilted law's characteristic "
                             "function at any useful resolution")
    aa = arb(a)
    sg2h = arb(sg) ** 2 / 2
    i = acb(0, 1)
    out = []
    for k in ([1, 2] if excess else [1]):
        def kern(z, sign, k=k):
            return (-sg2h * z * z).exp() / (th - sign * i * z) ** k
        # |1/(t - iu)| <= 1/u; |1/(t - iu)^2| <= 1/(t^2 + u^2) <= min(1/u^2, 1/(2tu))
        tail = arb(0, T1 if k == 1 else min(T2, T1 / (2 * t))) / arb.pi()
        ek = eps if k == 1 else eps / t
        lo = _integrate(law, N, shift=c + aa, kernel=kern, upper=U1, eps=ek, prec=prec) + tail
        hi = _integrate(law, N, shift=c - aa, kernel=kern, upper=U1, eps=ek, prec=prec) + tail
        extra = qa if k == 1 else qa / (arb(1).exp() * th)
        out.append(((-2 * th * aa).exp() * lo - extra, (2 * th * aa).exp() * hi + extra))
    return out, a, 2 * len(out)


#: largest lattice ``scale N / h`` (the span of S's lattice, 1/Delta) handled exactly
LATTICE_MAX = 10**13


def _lattice_of(mech: Mechanism, N: int, cats):
    """``(h, V)`` when ``S = c_0 + Delta U`` on a lattice coarse enough for the exact
    lattice route: ``U = sum_i V(Y_i)`` integer, ``V_l = (W_l - W_0) / h`` with ``h`` the
    gcd of the integer weights' differences (000 (3.6): ``Z = sum T_l W_l``), ``Delta =
    h / (scale N)``; else ``None``."""
    W = [mech.weights[l] for l in cats]
    h = 0
    for x in W[1:]:
        h = math.gcd(h, x - W[0])
    if h == 0 or mech.scale * N // h > LATTICE_MAX:
        return None
    return h, [(x - W[0]) // h for x in W]


def _lattice_decay(vf, pf, N: int, th1: float, eps: float, *, max_bands: int = 200_000):
    """Proved bounds ``(T1, T2)`` on ``int_th1^pi |f|^N / u^k du`` (k = 1, 2) for the lattice
    user ``f(u) = sum_l p_l e^{i u V_l}``: ``|f|^2 = 1 - 2 sum_{l<l'} p_l p_l' (1 - cos(u (V_l' -
    V_l)))``, each term's minimum over a band from the pairs whose phase does not wrap
    (:func:`exactdp.engine.largen.band_decay_bound`, without a Gaussian factor);
    bands are bisected until each bound is below ``eps / 64`` or its share below
    ``eps 2^-24``.  Raises :class:`PrecisionError` past ``max_bands`` band bounds."""
    import numpy as np
    k = len(vf)
    pairs = [(vf[j] - vf[i], 2 * pf[i] * pf[j]) for i in range(k) for j in range(i + 1, k)
             if N * pf[i] * pf[j] > 1e-6]
    d_arr = np.array([d for d, _ in pairs], dtype=float)
    c_arr = np.array([c for _, c in pairs], dtype=float)
    starts = [th1]
    while starts[-1] * 2 < math.pi:
        starts.append(starts[-1] * 2)
    u1 = np.array(starts if th1 < math.pi else [], dtype=float)
    u2 = np.minimum(2 * u1, math.pi)

    T1 = T2 = 0.0
    done = 0
    while len(u1):
        B = band_decay_bound(u1, u2, d_arr, c_arr, N)
        done += len(u1)
        if done > max_bands:
            raise PrecisionError("cannot prove the decay of the lattice law's characteristic function")
        lg = np.log1p((u2 - u1) / u1)
        final = (B <= eps / 64) | (B * lg <= eps * 2.0**-24)
        T1 += float((B[final] * lg[final]).sum())
        T2 += float((B[final] * ((u2[final] - u1[final]) / (u1[final] * u2[final]))).sum())
        a, b = u1[~final], u2[~final]
        mid = (a + b) / 2
        u1, u2 = np.concatenate([a, mid]), np.concatenate([mid, b])
    return T1 * (1 + 1e-9), T2 * (1 + 1e-9)


def _lattice(mech, N, t, s, *, lat, probs, excess, eps, prec, exact=None):
    """``(J, K)`` enclosures by the exact lattice route: ``S = c_0 + Delta U``, ``U`` an
    integer sum of ``N`` iid users with weights ``V_l`` (gcd of differences 1, so ``|f| = 1``
    only on ``2 pi Z``).  With ``s' = s - c_0``, ``tau = t Delta``, ``rho = e^-tau`` and
    ``u*`` the largest lattice point below ``s' / Delta`` (``<`` and ``<=``: both when it
    is a lattice point), ``P(U = u) = (1/2pi) int_{-pi}^{pi} psi e^{-iuv} dv`` and the
    geometric sums over ``u <= u*`` give

        J = (1/pi) int_0^pi Re[psi(v) e^{-iv u*} C / (1 - rho e^{iv})] dv,
        K = (1/pi) int_0^pi Re[psi(v) e^{-iv u*} C ((s' - u* Delta) / (1 - rho e^{iv})
                                                   + Delta rho e^{iv} / (1 - rho e^{iv})^2)] dv,

    ``C = e^{t (u* Delta - s')}``; no smoothing.  Beyond the quadrature window
    ``|1 - rho e^{iv}| >= 2 sqrt(rho) v / pi`` and the band decay of ``|psi|``."""
    h, V = lat
    with ctx.workprec(prec):
        th = arb(t)
        delta = arb(fmpq(h, mech.scale * N))
        sp = s - arb(fmpq(mech.c[0].numerator, mech.c[0].denominator))
        if not sp > 0:
            raise PrecisionError("the threshold is at the smallest value of S")
        if exact is not None:           # a rational threshold: the lattice point exactly
            zq = (exact - mech.c[0]) * mech.scale * N / h
            k = math.floor(zq)
            u_lo, u_hi = (k - 1, k) if zq == k else (k, k)
        else:
            zeta = sp / delta
            k = math.floor(float(zeta))
            while not zeta < k + 1 and zeta > k + 1:
                k += 1
            while not zeta > k and zeta < k:
                k -= 1
            if not (zeta > k and zeta < k + 1):
                raise PrecisionError("cannot decide the lattice point below the threshold")
            u_lo = u_hi = k
        law = LightLaw([arb(v) for v in V], [(probs, N)], prec)
        sd = law.sdf
        U1 = min(_window(sd, eps / t), math.pi)      # eps in J's units; the kernel ~ 1/tau
        tau = th * delta
        rho = (-tau).exp()
        T1 = T2 = 0.0
        if U1 < math.pi:
            try:
                T1, T2 = _lattice_decay([float(v) for v in V], [float(p) for p in probs], N, U1,
                                        eps * float(tau) / 4)
            except PrecisionError:
                U1 = math.pi        # a near return of the phases: the whole period by quadrature
        i = acb(0, 1)
        res = []
        for kind in ([1, 2] if excess else [1]):
            ends = []
            for us in ((u_lo, u_hi) if kind == 1 else (u_lo,)):
                C = (th * (us * delta - sp)).exp()
                gap = sp - us * delta

                def kern(z, sign, C=C, gap=gap, kind=kind):
                    e = rho * (sign * i * z).exp()
                    d = 1 - e
                    if kind == 1:
                        return C / d
                    return C * (gap / d + delta * e / (d * d))
                shift = N * law.fmeans[0] - us
                I = _integrate(law, N, shift=shift, kernel=kern, upper=U1,
                               eps=eps if kind == 1 else eps / t, prec=prec)
                tail = C * (T1 / (2 * rho.sqrt())) if kind == 1 else \
                    C * (gap * T1 / (2 * rho.sqrt()) + delta * arb.pi() * T2 / 4)
                ends.append(I + arb(0, float(tail.upper()) * (1 + 1e-9)))
            res.append((ends[0], ends[-1]))
        return res


def tilted_sums(mech: Mechanism, N: int, s, *, excess: bool = False, rel: float = 1e-8,
                prec: int = 160, max_bands: int = DECAY_BANDS) -> TiltedSums:
    """Certified ``P[S < s]`` (the enclosure holds for ``P[S <= s]`` too) and, when
    ``excess``, ``E(s - S)+`` under the null law, ``S`` the sum of ``N`` users' weights
    (000 (3.6)), by tilting (module doc).  ``rel`` is the relative width aimed at
    (smoothing ``4ta`` and quadrature); the result is an enclosure whatever width it
    reaches.  S on a lattice of at most :data:`LATTICE_MAX` points per unit goes the
    exact lattice route (no smoothing).  ``max_bands``: the band bounds one decay proof
    may use before the smoothing resolution ``a`` is coarsened tenfold (``r.a`` says
    where it ended).

    >>> r = tilted_sums(Mechanism(3, "1/4"), 50, Fraction(1, 4))
    >>> r.p_below.lower > 0, r.t > 0
    (True, True)
    """
    if not isinstance(N, int) or isinstance(N, bool) or N < 1:
        raise ParameterError(f"N must be a positive integer, got {N!r}")
    if not (isinstance(rel, (int, float)) and 0 < rel < 1):
        raise ParameterError(f"rel must be in (0, 1), got {rel!r}")
    t0 = time.time()
    with ctx.workprec(prec):
        sa = _s_arb(s)
        if not sa > 0:
            raise ParameterError(f"s must be positive, got {s!r}")
        t = saddle_point(mech, N, sa)
        logpref, cats, probs, w = prefactor(mech, N, sa, t, prec)
        law = LightLaw(w, [(probs, N)], prec)
        th = arb(t)
        # J's scale, to turn the relative aim into absolute tolerances (a choice, not a bound)
        j_est = min(1.0, 1.0 / max(t * law.sdf * math.sqrt(2 * math.pi), 1e-300))
        eps = rel * j_est * 1e-2
        lat = _lattice_of(mech, N, cats)
        if lat is not None:
            pairs = _lattice(mech, N, t, sa, lat=lat, probs=probs, excess=excess, eps=eps, prec=prec,
                             exact=None if isinstance(s, arb) else Fraction(s))
            a, integrals = 0.0, (3 if excess else 2)
        else:
            pairs, a, integrals = _smoothed(law, N, t, sa, excess=excess, rel=rel, eps=eps, prec=prec,
                                            max_bands=max_bands)
        caps = [arb(1), 1 / (arb(1).exp() * th)]      # 0 <= h <= 1, 0 <= h2 <= 1/(e t)
        ivs = []
        for (lo, hi), cap in zip(pairs, caps):
            ivs.append(Interval(max(arb_to_interval(lo).lower, Fraction(0)),
                                max(min(arb_to_interval(hi).upper, arb_to_interval(cap).upper),
                                    Fraction(0))))
        pv = arb_to_interval(logpref.exp())

        def scaled(iv):
            return Interval(iv.lower * pv.lower, iv.upper * pv.upper)

        l10 = float(logpref / arb(10).log())
    return TiltedSums(scaled(ivs[0]), scaled(ivs[1]) if excess else None, t, l10, ivs[0],
                      ivs[1] if excess else None, a, integrals, time.time() - t0)
