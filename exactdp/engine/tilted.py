r"""Certified tails far below 1e-300: exponential tilting with an exact prefactor.

The reverse direction (003 (2.10): ``R = N / X`` under ``D``) asks for the *lower*
tail of ``S = X / N = sum_i w(Y_i)`` (000 (3.6)): ``eta_rev(lam) = P[S < s]`` and
``delta_rev(lam) = lam E(s - S)+`` with ``s = 1 / lam``.  The ``N`` users are
independent; user ``i`` lands in category ``l`` with ``pi0_l = C(L,l) q^l p^(L-l)``
(000 (3.7)) and carries the weight ``w_l = c_l / N = (q/p)^(L-2l) / N`` (000 (3.2)),
``E S = 1``.  At deployment scale these values are astronomically small (~1e-8485 at
L = 40, N = 10^7, q = 0.351, lam = e^2), far below the absolute resolution of the
heavy/light strategy (:mod:`exactdp.engine.largen`), which then certifies only an
upper bound.  This module gives them with *relative* precision, and the forward direction's
upper tail the same way (below, "The upper tail").

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
(The upper tail, below: ``-S = -c_L + Delta U`` with ``V_l = (W_L - W_l) / h``; the forward
function ``s J + K`` from the two.)

**The upper tail (the forward direction).**  ``P[S > s]`` is the lower tail of ``-S``: the same
identities with the weights ``-w_l`` over every category (none is excluded: a heavy user only
helps) and the threshold ``-s``, i.e. ``m(t) = sum pi0_l e^{t w_l}``, the prefactor
``m(t)^N e^{-ts}`` and ``J = E_Q[e^{-tY} 1{Y > 0}]``, ``K = E_Q[Y e^{-tY} 1{Y > 0}]``, ``Y = S -
s``.  The forward direction's ``eta = P_{D_m}[S > s]`` (000 (3.6): ``R = S`` is the likelihood
ratio of ``D_m`` to ``D``, so ``P_{D_m}[S > s] = E_D[S; S > s]``) is ``m(t)^N e^{-ts}`` times
``E_Q[(s + Y) e^{-tY}; Y > 0] = s J + K``: one integral with the kernel ``s / (t - iu) + 1 /
(t - iu)^2`` (the smoothing bracket is linear in the function, with ``Q_a (s + 1/(e t))``).
The tilted law puts a few users at the top categories (L = 40, N = 10^7, lam = e^2, q = 0.43:
~810 at ``w = 7.9e-3`` against the other users' spread ~1e-3), so ``|f|^N`` returns near the
multiples of ``2 pi / w``; the quadrature runs past those lobes (:func:`_lumpy_window`, a float
scan) and the decay proof starts beyond; where they reach past ``MAX_LOBE_SPAN / sd`` (L = 64,
N = 10^9, q = 0.43: ~94 users at ``w = 0.067`` against the others' spread 3e-4) the route refuses at
once and the heavy/light strategy's certified upper bound stands (that count would be enumerated
under the tilt: not built).  Each integral carries both ends of the smoothing bracket (shifts
``c -+ a`` as the real and imaginary parts of one integrand).  At L = 40,
N = 10^7, lam = e^2: q = 0.41 ``[1.14419585e-293, 1.14420012e-293]`` in 23 s, q = 0.42 ~3.46e-1555
in 13 s, q = 0.45 ~1.53e-223791 in 0.3 s (``benchmarks/RESULTS.md``); q = 0.40 overlaps the
heavy/light strategy's ``[3.3101311e-56, 3.3101372e-56]``.

**Routing and cost.**  ``PrivacyRatio`` (reverse direction, beyond the tree) sends
``P[S < s]`` and ``E(s - S)+`` here when the saddle-point Chernoff estimate is below
``10^CHERNOFF_ROUTE``, and the forward direction's eta and delta below ``10^FORWARD_ROUTE``
(the heavy/light strategy's widths are absolute, ~its truncation); below ``10^TILT_FLOOR``
the certified bound :func:`chernoff_bounds` is the answer.  One decay
proof may use ``DECAY_BANDS`` band bounds before ``a`` is coarsened (a cost choice).

Every piece (prefactor, quadrature, tails, smoothing, ``Q_a``, rounding) is an arb
ball or an explicit bound: the result is an enclosure, never a saddlepoint
approximation.

>>> from fractions import Fraction
>>> r = tilted_sums(Mechanism(4, "1/4"), 200, Fraction(1, 4), excess=True, rel=1e-8)
>>> 1e-6 < float(r.p.mid) < 1e-4, r.p.relative_width() < 1e-6
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
from ..core.threads import one_blas_thread
from ..model.mechanism import Mechanism
from .largen import K_SMOOTH, LightLaw, band_decay_bound, cf_pair

__all__ = ["TiltedSums", "tilted_sums", "saddle_point", "tilt_saddle", "UpperTail", "upper_tail",
           "log10_chernoff", "chernoff_bounds", "prefactor", "CHERNOFF_ROUTE", "FORWARD_ROUTE", "DECAY_BANDS",
           "TILT_FLOOR"]

#: below this Chernoff bound (log10) the reverse direction's lower tail goes to the
#: tilted strategy: the heavy/light strategy's absolute resolution ends near 1e-30
CHERNOFF_ROUTE = -30.0
#: the same for the forward direction's upper tail: the heavy/light strategy reaches ~1e-280 (its
#: truncation floor) in a second (L = 40, N = 10^7, q = 0.40, lam = e^2: 3.3e-56 in 0.1 s against
#: 30 s tilted), so only values beyond it are tilted
FORWARD_ROUTE = -250.0
#: below 10^TILT_FLOOR (a certified Chernoff bound) the value is reported as that bound: an
#: exact-rational enclosure of a number below 1e-1000000 (a Fraction with millions of bits)
#: is slow to handle and print, and no query needs its digits
TILT_FLOOR = -10**6
#: coarsenings of the smoothing resolution tried when the decay proof fails
MAX_COARSEN = 6
#: how far past the Gaussian window the quadrature may go for a lumpy tilted law (:func:`_lumpy_window`)
WINDOW_GROWTH = 1000.0
#: the longest quadrature window in units of 1 / sd (L = 40, N = 10^7, lam = e^2: q = 0.41 2,710, 23 s;
#: L = 64, N = 10^9, q = 0.45 3,280, 3 s; q = 0.43 15,000: refused, the heavy/light strategy's bound)
MAX_LOBE_SPAN = 5000.0
#: band bounds one decay proof may evaluate before the resolution is coarsened tenfold
#: (a cost choice: a coarser resolution only widens the enclosure)
DECAY_BANDS = 250_000


@dataclass(frozen=True)
class TiltedSums:
    """Certified ``p = P[S < s]`` (also ``P[S <= s]``) and ``ex = E(s - S)+`` (``None``
    unless asked) under the null law; ``upper``: ``p = P[S > s]`` (also ``>=``) and ``ex = E(S -
    s)+``, or in place of ``p`` the forward direction's ``p_forward = P_{D_m}[S > s] = E[S; S >
    s]`` (``R = S`` is the likelihood ratio of ``D_m`` to ``D``, 000 (3.6)).  With the pieces of
    the certificate: the tilt ``t``, ``log10`` of the prefactor ``m(t)^N e^{ts}``, the
    enclosures ``J`` (of the first function asked: ``h``, or ``s h + h2`` for ``p_forward``) and
    ``K`` (of ``h2``), the smoothing half-width ``a`` (0 on the exact-lattice route) and the
    integrals computed.  ``p`` is ``m(t)^N e^{ts}`` (000 (3.6)-(3.7)) times ``J``.

    >>> r = tilted_sums(Mechanism(3, "1/4"), 200, Fraction(1, 3))
    >>> r.a, r.J.upper <= 1, round(r.log10_prefactor) <= 0, r.upper
    (0.0, True, True, False)
    """

    p: Interval | None
    ex: Interval | None
    t: float
    log10_prefactor: float
    J: Interval
    K: Interval | None
    a: float
    integrals: int
    seconds: float
    upper: bool = False
    p_forward: Interval | None = None


def _light(mech: Mechanism, N: int, s: arb, upper: bool = False):
    """The categories that enter: for the lower tail those not certainly above ``s`` (``w_l > s``
    forces ``S > s``: the set ``A``); for the upper tail every category, in descending weight
    (so that the signed weights ``-w_l`` ascend, as the decay proof's pairs expect)."""
    if upper:
        return list(range(mech.L, -1, -1))
    return [l for l in range(mech.L + 1) if not (fmpq(mech.c[l].numerator, mech.c[l].denominator * N) > s)]


def _sign(upper: bool) -> int:
    """The side as a sign: the upper tail of ``S`` is the lower tail of ``-S`` (module doc)."""
    return -1 if upper else 1


def _float_law(mech: Mechanism, N: int, cats, upper: bool = False):
    import numpy as np
    lpi = np.array([math.log(mech.pi0[l].numerator) - math.log(mech.pi0[l].denominator) for l in cats])
    w = np.array([_sign(upper) * float(mech.c[l]) / N for l in cats])
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


def saddle_point(mech: Mechanism, N: int, s, *, upper: bool = False) -> float:
    """The tilt ``t > 0`` with tilted mean ``E_Q S = s`` (float; any ``t > 0`` is valid,
    this one makes ``J`` moderate).  Raises :class:`PrecisionError` when ``s`` is not
    below the mean of ``S`` restricted to ``A`` (not a lower tail; ``upper``: not above the
    mean, not an upper tail).

    >>> t = saddle_point(Mechanism(40, "0.351"), 10**7, Fraction(1, 7))
    >>> 1e5 < t < 1e6
    True
    >>> 100 < saddle_point(Mechanism(40, "0.42"), 10**7, Fraction(15, 2), upper=True) < 1e4
    True
    """
    sa = _s_arb(s)
    cats = _light(mech, N, sa, upper)
    lpi, w = _float_law(mech, N, cats, upper)
    sf = _sign(upper) * float(sa)
    if not N * _tilted_moments(0.0, lpi, w)[1] > sf:
        side = "upper tail of S; the tilted strategy applies above" if upper else \
            "lower tail of S; the tilted strategy applies below"
        raise PrecisionError(f"the threshold is not in the {side} the mean only")
    return tilt_saddle(lpi, w, N, sf)


def tilt_saddle(lpi, w, n: int, s: float) -> float:
    """The tilt ``t > 0`` with ``E_Q sum = s`` for ``n`` draws of the signed weights ``w`` under
    ``Q_l ~ e^(lpi_l - t w_l)`` (floats: ``lpi`` the log probabilities): the lower tail of the
    signed sum (an upper tail with ``-w`` and ``-s``).  Raises :class:`PrecisionError` when ``s``
    is not below the untilted mean.

    >>> import numpy as np
    >>> t = tilt_saddle(np.log([0.5, 0.5]), np.array([0.0, 1.0]), 10, 2.0)
    >>> abs(10 / (1 + math.exp(t)) - 2.0) < 1e-9
    True
    """
    def mean(t):
        return n * _tilted_moments(t, lpi, w)[1]

    sf = float(s)
    if not mean(0.0) > sf:
        raise PrecisionError("the threshold is not below the mean: no saddle point")
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


def log10_chernoff(mech: Mechanism, N: int, s, *, upper: bool = False) -> float:
    """``log10`` of the Chernoff bound ``m(t)^N e^{ts} >= P[S < s]`` (``upper``: of ``P[S >
    s]``) at the saddle point (float, for routing: not a certificate); ``0.0`` when ``s`` is not
    in that tail.

    >>> log10_chernoff(Mechanism(40, "0.351"), 10**7, Fraction(1, 7)) < -1000
    True
    >>> log10_chernoff(Mechanism(40, "0.351"), 10**7, Fraction(2))
    0.0
    >>> -1700 < log10_chernoff(Mechanism(40, "0.42"), 10**7, Fraction(15, 2), upper=True) < -1400
    True
    """
    try:
        t = saddle_point(mech, N, s, upper=upper)
    except PrecisionError:
        return 0.0
    cats = _light(mech, N, _s_arb(s), upper)
    lpi, w = _float_law(mech, N, cats, upper)
    lm = _tilted_moments(t, lpi, w)[0]
    return min(0.0, (N * lm + t * _sign(upper) * float(_s_arb(s))) / math.log(10))


def chernoff_bounds(mech: Mechanism, N: int, s, prec: int = 160, *, upper: bool = False):
    """Certified upper bounds ``(P[S < s], E(s - S)+)`` (``upper``: ``(P[S > s], E(S - s)+)``)
    as arb balls: ``m(t)^N e^{ts}`` times ``J <= 1`` and ``K <= 1/(e t)`` (module doc) at the
    saddle point; ``None`` when ``s`` is not in that tail.  Cheap (no integral): for scans that
    only compare with a target.

    >>> b, e = chernoff_bounds(Mechanism(40, "0.351"), 10**7, Fraction(1, 7))
    >>> b < arb(10) ** -1000 and e < b
    True
    """
    try:
        t = saddle_point(mech, N, s, upper=upper)
    except PrecisionError:
        return None
    with ctx.workprec(prec):
        lp = prefactor(mech, N, s, t, prec, upper=upper)[0]
        b = lp.exp()
        return b, b / (arb(1).exp() * arb(t))


def prefactor(mech: Mechanism, N: int, s, t: float, prec: int = 160, *, upper: bool = False):
    """``(log m(t)^N e^{ts}, A, tilted probabilities, weights)`` in arb at ``prec`` bits:
    ``m(t) = sum_{l in A} pi0_l e^{-t w_l}`` (000 (3.7), (3.2)), ``pi_l(t) = pi0_l e^{-t w_l} / m(t)``.
    ``upper``: the same for ``-S`` (weights ``-w_l`` over every category, threshold ``-s``:
    ``m(t) = sum pi0_l e^{t w_l}`` and ``e^{-ts}``).

    >>> lp, cats, pr, w = prefactor(Mechanism(2, "1/3"), 1, Fraction(1, 2), 1.0)
    >>> cats, abs(float(lp) - math.log(4/9 * math.exp(-1/4)) - 0.5) < 1e-12
    ([0], True)
    """
    if not t > 0:
        raise ParameterError(f"t must be positive, got {t!r}")
    with ctx.workprec(prec):
        sa = _s_arb(s) * _sign(upper)
        cats = _light(mech, N, sa, upper)
        th = arb(t)
        w = [_sign(upper) * arb(fmpq(mech.c[l].numerator, mech.c[l].denominator * N)) for l in cats]
        lg = [arb(fmpq(mech.pi0[l].numerator, mech.pi0[l].denominator)).log() - th * x
              for l, x in zip(cats, w)]
        mx = arb(max(float(x) for x in lg))
        terms = [(x - mx).exp() for x in lg]
        z = sum(terms, arb(0))
        probs = [x / z for x in terms]
        logm = mx + z.log()
        return N * logm + th * sa, cats, probs, w


def _integrate(law, N: int, *, shifts, kernel, upper: float, eps: float, prec: int) -> list:
    """``(1/pi) int_0^upper Re[f(u)^N e^{iu shift} kernel(u)] du`` for one or two ``shifts``
    by arb's rigorous quadrature, ``f`` the centred user's characteristic function (``law``'s
    one factor), ``kernel(z, +1)`` the kernel and ``kernel(z, -1)`` its reflection ``conj k(conj
    z)``.  Two shifts are one integral of ``G_1 + i G_2`` (each ``G_j = (g_j + g_j*) / 2`` is real
    on the real line, so the enclosure's real part holds ``int G_1`` and its imaginary part
    ``int G_2``): the characteristic function once per node for both ends of the smoothing
    bracket.  A list, one arb per shift."""
    assert 1 <= len(shifts) <= 2
    with ctx.workprec(prec):
        (probs, _), = law.factors
        mu = law.fmeans[0]
        xs = [x - mu for x in law.w]
        i = acb(0, 1)

        def F(z, analytic):
            fp, fm = cf_pair(probs, xs, z)
            fpN, fmN, kp, km = fp ** N, fm ** N, kernel(z, 1), kernel(z, -1)
            out = acb(0)
            for j, shift in enumerate(shifts):
                sh = (i * z * shift).exp()
                g = (fpN * sh * kp + fmN / sh * km) / 2
                out += g if j == 0 else i * g
            return out

        I = acb.integral(F, arb(0), arb(upper), abs_tol=arb(eps) / 16, rel_tol=arb(2) ** -60,
                         eval_limit=2_000_000, deg_limit=200)
        return [I.real / arb.pi(), I.imag / arb.pi()][:len(shifts)]


def _window(sd: float, eps: float) -> float:
    """Where the quadrature stops: ``|f|^N`` is below ``eps`` beyond (the band proof checks)."""
    return (math.sqrt(2 * math.log(1 / eps) + 10) + 4) / sd


def _lumpy_window(law, N: int, U1: float, sg: float, eps: float) -> float:
    """Where the quadrature stops for a lumpy law: past the last lobe of ``|f|^N`` (float scan,
    step ``1 / (4 sd)``, up to ``WINDOW_GROWTH`` times the Gaussian window ``U1``) above ``e^-8``
    times the decay proof's final band bound ``eps / 64``.  A tilted upper tail puts a few users at
    the top categories (L = 40, N = 10^7, q = 0.43, lam = e^2: ~810 at ``w = 7.9e-3`` against
    the others' sd ~1e-3), so ``|f|^N`` returns near every multiple of ``2 pi / w`` with
    lobes that the others' spread damps only slowly; the decay proof then starts past them and
    the quadrature integrates them.  A choice, not a bound: the proof beyond is what certifies.
    Raises :class:`PrecisionError` where the lobes reach past ``WINDOW_GROWTH`` times ``U1`` or
    ``MAX_LOBE_SPAN / sd`` (the quadrature's cost grows with ``U sd``): a top category with few
    users far apart (L = 64, N = 10^9, q = 0.43: ~94 users at ``w = 0.067`` against the others'
    3e-4) needs its count enumerated under the tilt (not built)."""
    import numpy as np
    (probs, _), = law.ff
    wf = np.array(law.wf) - law.meanf / N
    pf = np.array(probs)
    sd = law.sdf
    step = 0.25 / sd
    last, u0 = U1, U1
    top = U1 * WINDOW_GROWTH
    quiet = False
    while u0 < top:
        u = u0 + step * np.arange(1, 20_001)
        with one_blas_thread():
            ph = np.abs(np.exp(1j * np.outer(u, wf)) @ pf)
        lv = N * np.log(np.maximum(ph, 1e-300)) - sg * sg * u * u / 2
        hot = np.nonzero(lv > math.log(eps / 64) - 8)[0]      # the proof's final bands, a margin
        if len(hot):
            last = float(u[hot[-1]])
        u0 = float(u[-1])
        if u0 - last > 64 / sd and u0 > 2 * last:
            quiet = True
            break
    end = last + 8 / sd if last > U1 else U1
    if not quiet or end * sd > MAX_LOBE_SPAN:
        raise PrecisionError("the tilted law is lumpy beyond the quadrature's reach (a top category "
                             "with few users far apart: its count would be enumerated under the tilt, "
                             "not built)")
    return end


def _smoothed(law, N, t, s, *, kernels, rel, eps, prec, max_bands, lumpy: bool = False):
    """Enclosures ``(lo, hi)`` of ``E_Q[c1 h(Y) + c2 h2(Y) + c3 h3(Y) + ...]`` per ``(c1, c2)``,
    ``(c1, c2, c3)`` or longer in ``kernels`` (``c >= 0``: ``(1, 0)`` gives ``J``, ``(0, 1)`` gives
    ``K``; ``h_(j+1) = x^j e^(-tx)`` on ``x > 0``, the transform ``j! / (t - iu)^(j+1)``: any degree,
    the smoothing bracket holds for each, ``x^j`` rising and ``e^(-tx)`` falling) by the smoothed Fourier
    route (module doc; the bracket is linear in the function), ``a`` and the integrals.
    ``lumpy``: the window past the law's lobes (:func:`_lumpy_window`; the upper tail's tilted
    law), else the Gaussian one (the lower tail's, as before)."""
    th = arb(t)
    sd = law.sdf
    c = N * law.fmeans[0] - s           # centred shift: N mu - s
    qa = (arb(K_SMOOTH) / arb(2).sqrt()).erfc()       # P[|G| > a]
    a = rel / (8 * t)
    for _ in range(MAX_COARSEN):
        sg = a / K_SMOOTH
        U1 = _lumpy_window(law, N, _window(sd, eps), sg, eps) if lumpy else _window(sd, eps)
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
    for coef in kernels:
        cs = _coefs(coef)

        def kern(z, sign, cs=cs):
            d = th - sign * i * z
            # sum_j c_j j! / d^(j+1): the transform of x^j e^(-tx) on x > 0, Horner in 1 / d
            inv, acc = 1 / d, acb(0)
            for j in range(len(cs) - 1, -1, -1):
                acc = (acc * (j + 1) + cs[j]) * inv
            return (-sg2h * z * z).exp() * acc
        tail = arb(0, float(_kernel_tail(cs, t, T1, T2).upper())) / arb.pi()
        ek = float(sum((c * math.factorial(j) / th ** j for j, c in enumerate(cs)), arb(0)).upper()) * eps
        lo, hi = _integrate(law, N, shifts=[c + aa, c - aa], kernel=kern, upper=U1, eps=ek, prec=prec)
        extra = qa * _kernel_sup(cs, th)
        out.append(((-2 * th * aa).exp() * (lo + tail) - extra, (2 * th * aa).exp() * (hi + tail) + extra))
    return out, a, len(out)


#: largest lattice ``scale N / h`` (the span of S's lattice, 1/Delta) handled exactly
LATTICE_MAX = 10**13
#: the upper tail's lattice spans every category (the lower tail's drops those above ``s``): its
#: largest step ``V_L`` bounded too (L = 8, q = 3/10, N = 1000: ``V_L = 8.3e11``, the period's
#: quadrature ran 292 s to a non-finite ball; L = 4, q = 1/4: 820)
UPPER_LATTICE_VMAX = 10**5


def _lattice_of(mech: Mechanism, N: int, cats, upper: bool = False):
    """``(h, V)`` when ``S = c_0 + Delta U`` on a lattice coarse enough for the exact
    lattice route: ``U = sum_i V(Y_i)`` integer, ``V_l = (W_l - W_0) / h`` with ``h`` the
    gcd of the integer weights' differences (000 (3.6): ``Z = sum T_l W_l``), ``Delta =
    h / (scale N)``; else ``None``.  ``upper``: the same for ``-S = -c_L + Delta U`` (``cats``
    from the top, ``V_l = (W_L - W_l) / h``)."""
    W = [mech.weights[l] for l in cats]
    h = 0
    for x in W[1:]:
        h = math.gcd(h, x - W[0])
    if h == 0 or mech.scale * N // h > LATTICE_MAX:
        return None
    V = [_sign(upper) * (x - W[0]) // h for x in W]
    if upper and max(V) > UPPER_LATTICE_VMAX:
        return None
    return h, V


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


def _lattice(mech, N, t, s, *, lat, probs, excess, eps, prec, exact=None, upper=False):
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
        # the base category: the smallest weight (category 0), or the largest for the upper tail
        # (``-S = -c_L + Delta U``: ``s' = c_L - s``, the same formulas below)
        cb = mech.c[mech.L if upper else 0]
        sp = _sign(upper) * (s - arb(fmpq(cb.numerator, cb.denominator)))
        if not sp > 0:
            raise PrecisionError("the threshold is at the smallest value of S")
        if exact is not None:           # a rational threshold: the lattice point exactly
            zq = _sign(upper) * (exact - cb) * mech.scale * N / h
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
                I, = _integrate(law, N, shifts=[shift], kernel=kern, upper=U1,
                                eps=eps if kind == 1 else eps / t, prec=prec)
                tail = C * (T1 / (2 * rho.sqrt())) if kind == 1 else \
                    C * (gap * T1 / (2 * rho.sqrt()) + delta * arb.pi() * T2 / 4)
                ends.append(I + arb(0, float(tail.upper()) * (1 + 1e-9)))
            res.append((ends[0], ends[-1]))
        return res


def _coefs(coef):
    """A kernel's coefficients ``(c_0, c_1, ..., c_m)`` in arb (the function ``sum_j c_j x^j e^(-tx)``
    on ``x > 0``; ``(c1, c2)``, ``(c1, c2, c3)`` as before, any degree)."""
    cs = tuple(arb(x) for x in coef)
    return cs if cs else (arb(0),)


def _kernel_sup(cs, th):
    """``sum_j c_j (j / (e t))^j``: the kernel function's sup over ``x > 0`` bounded term by term
    (``0 <= x^j e^(-tx) <= (j / (e t))^j``, ``c_j >= 0``; ``c1 + c2 / (e t) + 4 c3 / (e t)^2`` for
    degree 2)."""
    e1t = arb(1).exp() * th
    return sum((c * (arb(j) / e1t) ** j if j else c for j, c in enumerate(cs)), arb(0))


def _kernel_tail(cs, t: float, T1: float, T2: float):
    """A bound of ``sum_j c_j |j! / (t - iu)^(j+1)|`` integrated against ``|phi_V|`` beyond the
    window (``T1 = int |phi_V| / u``, ``T2 = int |phi_V| / u^2``): ``|1/d| <= 1/u``, ``|1/d^2| <=
    min(1/u^2, 1/(2tu))``, ``|2/d^3| <= min(1/(t u^2), 1/(t^2 u))`` (``|d|^2 >= 2tu``, ``|d| >= u,
    t``; ``|d|^3 >= 2 t u^2`` by AM-GM), and ``|j!/d^(j+1)| <= (j!/2) t^(2-j) |2/d^3|`` from ``j =
    3`` on (``t`` the tilt, an exact float)."""
    th = arb(t)
    out = arb(0)
    for j, c in enumerate(cs):
        if j == 0:
            out += c * T1
        elif j == 1:
            out += c * min(T2, T1 / (2 * t))
        else:
            out += c * (math.factorial(j) / 2) / th ** (j - 2) * min(T2 / t, T1 / (t * t))
    return out


def _clipped(pairs, coefs, th):
    """Intervals from arb ends ``(lo, hi)`` of ``E_Q[c1 h + c2 h2 + c3 h3]``, clipped to ``[0, c1 +
    c2 / (e t) + 4 c3 / (e t)^2]`` (``0 <= h <= 1``, ``0 <= h2 <= 1/(e t)``, ``0 <= h3 <= (2/(e
    t))^2``)."""
    out = []
    for (lo, hi), coef in zip(pairs, coefs):
        cap = _kernel_sup(_coefs(coef), th)
        out.append(Interval(max(arb_to_interval(lo).lower, Fraction(0)),
                            max(min(arb_to_interval(hi).upper, arb_to_interval(cap).upper), Fraction(0))))
    return out


def tilted_sums(mech: Mechanism, N: int, s, *, excess: bool = False, rel: float = 1e-8,
                prec: int = 160, max_bands: int = DECAY_BANDS, upper: bool = False,
                forward: bool = False) -> TiltedSums:
    """Certified ``P[S < s]`` (the enclosure holds for ``P[S <= s]`` too) and, when
    ``excess``, ``E(s - S)+`` under the null law, ``S`` the sum of ``N`` users' weights
    (000 (3.6)), by tilting (module doc); ``upper``: ``P[S > s]`` (and ``>=``) and ``E(S -
    s)+``; ``forward`` (with ``upper``): the forward direction's ``P_{D_m}[S > s] = E[S; S >
    s]`` instead of ``P[S > s]``, by one integral (module doc, "The upper tail").  ``rel`` is
    the relative width aimed at (smoothing ``4ta`` and quadrature); the result is an enclosure
    whatever width it reaches.  S on a lattice of at most :data:`LATTICE_MAX` points per unit
    goes the exact lattice route (no smoothing; the lower tail only).  ``max_bands``: the band
    bounds one decay proof may use before the smoothing resolution ``a`` is coarsened tenfold
    (``r.a`` says where it ended).

    >>> r = tilted_sums(Mechanism(3, "1/4"), 50, Fraction(1, 4))
    >>> r.p.lower > 0, r.t > 0
    (True, True)
    >>> r = tilted_sums(Mechanism(40, "0.45"), 10**7, Fraction(15, 2), upper=True, forward=True, rel=1e-4)
    >>> -228000 < r.log10_prefactor < -227000, r.p is None, r.p_forward.relative_width() < 1e-3
    (True, True, True)
    """
    if not isinstance(N, int) or isinstance(N, bool) or N < 1:
        raise ParameterError(f"N must be a positive integer, got {N!r}")
    if not (isinstance(rel, (int, float)) and 0 < rel < 1):
        raise ParameterError(f"rel must be in (0, 1), got {rel!r}")
    if forward and not upper:
        raise ParameterError("forward needs upper=True (the forward direction's upper tail)")
    t0 = time.time()
    with ctx.workprec(prec):
        sa = _s_arb(s)
        if not sa > 0:
            raise ParameterError(f"s must be positive, got {s!r}")
        t = saddle_point(mech, N, sa, upper=upper)
        logpref, cats, probs, w = prefactor(mech, N, sa, t, prec, upper=upper)
        law = LightLaw(w, [(probs, N)], prec)
        th = arb(t)
        # J's scale, to turn the relative aim into absolute tolerances (a choice, not a bound)
        j_est = min(1.0, 1.0 / max(t * law.sdf * math.sqrt(2 * math.pi), 1e-300))
        eps = rel * j_est * 1e-2
        # the functions c1 h + c2 h2 asked (module doc): P (1, 0), E excess (0, 1), and forward
        # E[S; S > s] = E_Q[(s + |Y|) e^{-t|Y|}; S > s] times the prefactor, i.e. (s, 1)
        names = (["forward"] if forward else ["p"]) + (["ex"] if excess else [])
        coef = {"p": (arb(1), arb(0)), "ex": (arb(0), arb(1)), "forward": (sa, arb(1))}
        lat = _lattice_of(mech, N, cats, upper)
        got = None
        if lat is not None:
            try:
                # J and K (kinds 1, 2), the forward function s h + h2 from the two
                jk = _lattice(mech, N, t, sa, lat=lat, probs=probs, excess=excess or forward, eps=eps,
                              prec=prec, exact=None if isinstance(s, arb) else Fraction(s), upper=upper)
                parts = dict(zip(["p", "ex"], _clipped(jk, [coef["p"], coef["ex"]], th)))
            except PrecisionError:
                # a period out of the quadrature's reach (the upper tail's lattice spans every
                # category: L = 8, q = 3/10, N = 1000 gave a non-finite ball): smoothed instead
                parts = None
            if parts is not None:
                a, integrals = 0.0, (3 if excess or forward else 2)
                got = {n: parts[n] for n in names if n in parts}
                if forward:
                    sv, J, K = arb_to_interval(sa), parts["p"], parts["ex"]
                    got["forward"] = Interval(sv.lower * J.lower + K.lower, sv.upper * J.upper + K.upper)
        if got is None:
            pairs, a, integrals = _smoothed(law, N, t, _sign(upper) * sa, kernels=[coef[n] for n in names],
                                            rel=rel, eps=eps, prec=prec, max_bands=max_bands, lumpy=upper)
            got = dict(zip(names, _clipped(pairs, [coef[n] for n in names], th)))
        pv = arb_to_interval(logpref.exp())

        def scaled(name):
            iv = got.get(name)
            return None if iv is None else Interval(iv.lower * pv.lower, iv.upper * pv.upper)

        l10 = float(logpref / arb(10).log())
    return TiltedSums(scaled("p"), scaled("ex"), t, l10, got[names[0]], got.get("ex"), a, integrals,
                      time.time() - t0, upper, scaled("forward"))


@dataclass(frozen=True)
class UpperTail:
    """The upper tail of a sum ``S`` of ``n`` i.i.d. draws over categories (probabilities
    ``pi0_l``, weights ``w_l``) under the tilt ``t``: ``n_log_m = n log m(t)``, ``m(t) = sum pi0_l
    e^(t w_l)``, and per point ``(s, c1, c2[, c3, ...])`` an enclosure ``values[i]`` of ``E_Q[(c1 + c2 x
    + c3 x^2 + ...) e^(-tx); x > 0]``, ``x = S - s`` (``Q_l = pi0_l e^(t w_l) / m(t)``), so that for any function
    ``g`` of ``S`` (module doc, "The upper tail")

        E[g(S); S > s] = m(t)^n e^(-ts) E_Q[g(S) e^(-tx); x > 0].

    ``a``: the smoothing half-width reached; ``integrals``: the integrals computed; ``probs``: the
    tilted law ``Q_l`` (arb, in the categories' given order; 0 where ``pi0_l = 0``)."""

    t: float
    n_log_m: arb
    values: tuple
    a: float
    integrals: int
    probs: tuple = ()

    def log_prefactor(self, s) -> arb:
        """``log(m(t)^n e^(-ts))`` as an arb ball."""
        return self.n_log_m - arb(self.t) * _s_arb(s)


def upper_tail(pi0, w, n: int, points, *, t: float, rel: float = 1e-8, prec: int = 160,
               max_bands: int = DECAY_BANDS) -> UpperTail:
    """:class:`UpperTail` of ``n`` draws over the categories ``pi0`` (arb or Fraction
    masses: probabilities, or a sub-law's untilted masses, whose total then enters ``n_log_m``)
    with arb weights ``w`` (any order), at the tilt ``t > 0``
    (:func:`tilt_saddle` of ``-w`` at ``-s`` makes the values moderate; any ``t`` is valid), for
    the points ``(s, c1, c2)``, ``(s, c1, c2, c3)`` or longer (``c >= 0``; the function ``(c1 + c2 x +
    c3 x^2 + ...) e^(-tx)`` on ``x = Y - s > 0``): the smoothed Fourier route of the forward
    direction (module doc: the lumpy window, the proved decay, the smoothing bracket), the law
    of the k-copies strategy's tilted statistic (:mod:`exactdp.reductions.kfourier.tilt`).

    >>> import numpy as np
    >>> m = Mechanism(8, "0.2446")
    >>> w = [arb(fmpq(c.numerator, c.denominator * 2000)) for c in m.c]
    >>> lpi = np.log([float(p) for p in m.pi0])
    >>> t = tilt_saddle(lpi, -np.array([float(x) for x in w]), 2000, -1.5)
    >>> r = upper_tail(m.pi0, w, 2000, [(arb(1.5), 1, 0)], t=t, rel=1e-6)
    >>> pv = arb_to_interval(r.log_prefactor(Fraction(3, 2)).exp())
    >>> p = Interval(r.values[0].lower * pv.lower, r.values[0].upper * pv.upper)     # P[S > 3/2]
    >>> p.overlaps(tilted_sums(m, 2000, Fraction(3, 2), upper=True, rel=1e-6).p), p.relative_width() < 1e-4
    (True, True)
    """
    if not (isinstance(t, (int, float)) and t > 0):
        raise ParameterError(f"t must be positive, got {t!r}")
    if not isinstance(n, int) or n < 1:
        raise ParameterError(f"n must be a positive integer, got {n!r}")
    with ctx.workprec(prec):
        th = arb(t)
        pa = [p if isinstance(p, arb) else _s_arb(p) for p in pi0]
        order = sorted(range(len(w)), key=lambda i: -float(w[i]))     # descending: -w ascends
        keep = [i for i in order if pa[i] > 0]
        lg = [pa[i].log() + th * w[i] for i in keep]
        mx = arb(max(float(x) for x in lg))
        terms = [(x - mx).exp() for x in lg]
        z = sum(terms, arb(0))
        probs = [x / z for x in terms]
        law = LightLaw([-w[i] for i in keep], [(probs, n)], prec)
        j_est = min(1.0, 1.0 / max(t * law.sdf * math.sqrt(2 * math.pi), 1e-300))
        eps = rel * j_est * 1e-2
        values, a, count = [], 0.0, 0
        for s, *cs in points:
            coef = tuple(arb(c) for c in cs)
            pairs, a1, k = _smoothed(law, n, t, -_s_arb(s), kernels=[coef], rel=rel, eps=eps, prec=prec,
                                     max_bands=max_bands, lumpy=True)
            values.append(_clipped(pairs, [coef], th)[0])
            a, count = max(a, a1), count + k
        given = [arb(0)] * len(w)
        for i, p in zip(keep, probs):
            given[i] = p
        return UpperTail(t, n * (mx + z.log()), tuple(values), a, count, tuple(given))
