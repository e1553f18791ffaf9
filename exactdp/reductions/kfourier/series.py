r"""The series enclosure of the light elementary symmetric functions (part of
:mod:`exactdp.reductions.kfourier`; the statistic ``R``, ``kappa``, ``E_H`` and the light outputs
are defined there, the Bonferroni bracket and its ``alpha`` in
:mod:`~exactdp.reductions.kfourier.bracket`): the power-sum boxes (:class:`Box`), the enclosure
of ``F(Y)`` over them (:class:`Series`) and its certificate of monotonicity in ``Y``
(:func:`monotone_pieces`).

**The series enclosure (default, ``ENCLOSURE = "series"``).**  The bracket above loses
two ways as ``k`` grows: its gap (the ``p_2^2`` and ``w_max p_2`` terms) is relative
``O(k^4 p_2^2 + k^3 w_max p_2)``, and ``p_2`` is *not* concentrated: at ``L = 40``,
``N = 10^7`` it is dominated by the top light level (a Poisson count of mean ~ 7 at
``k = 16``; relative sd ~ 0.2, Chernoff range ``[0.2, 2.8] E p_2``).  The exact relation
replaces it.  Newton's identities as formal power series (the coefficients of
``prod (1 + t w_j)`` are the ``e_m`` of 000 (8.20)-(8.21))

    prod_j (1 + t w_j) = exp(sum_(i>=1) (-1)^(i-1) p_i t^i / i),

and, for ``0 <= tau <= 1 / (2 w_max)``, the light statistic
``Y = sum_j log(1 + tau w_j) / tau = sum_(i>=1) (-1)^(i-1) tau^(i-1) p_i / i``
(``Y = p_1`` at ``tau = 0``) give, exactly,

    prod_j (1 + t w_j) = e^(tY) G(t),   log G(t) = sum_(i>=2) (-1)^(i-1) p_i (t^i - tau^(i-1) t) / i,

    R = kappa [t^k] E_H(t) e^(tY) G(t) =: F(Y; p_2, ..., p_I),   E_H(t) = sum_i e_i(H) t^i.

Modulo ``t^(k+1)`` the terms ``i <= I = SERIES_VARS`` keep ``p_i`` as variables (``t^i`` dropped
when ``i > k``), the terms ``I < i <= k`` enter as balls with ``0 <= p_i <= min(w_max^(i-3) p_3,
w_max^(i-2) p_2)`` (every light weight is at most ``w_max``), and the ``t`` terms of ``i > max(I, k)``
as one ball ``|sum p_i tau^(i-1) / i| <= p_3 tau^2 (tau w_max)^(i0-3) / (i0 (1 - tau w_max))``.
On the event ``p_2 in [P2lo, P2hi]``, ``p_3 in [P3lo, P3hi]``, ``Y in [Ymin, Ymax]`` (Chernoff
bounds of the light laws of ``w^2``, ``w^3`` and ``Y``, each at most ``tol * TOL_FAIL``; the
complement's mass is ``F`` as before) ``F`` is enclosed by the second-order Taylor form around
the box's centre ``pbar``:

    F(Y; p) in F(Y; pbar) + sum_i dF_i(Y; pbar) [-r_i, r_i] + sum_(i<=i') c_ii' |dF_ii'(Y; box)| r_i r_i',
    dF_i = kappa [t^k] E_H e^(tY) G d_i,   d_i = (-1)^(i-1) (t^i - tau^(i-1) t) / i,

(``c = 1/2`` on the diagonal, 1 off it; the Hessian with ``exp(log G over the box)``; ``G`` by
``g_j = (1/j) sum_i i q_i g_(j-i)``; all arb).  The ``p_2`` range is cut into ``SERIES_SPLIT``
sub-boxes, on each of which ``p_3 <= w_max p_2 <= w_max (its top)``; the enclosure is the
union.  *Monotonicity in Y*: ``dF/dY = kappa sum_m e_(k-m)(H) D_(m-1)``, ``D_j = [t^j] e^(tY) G(t)``,
and ``e_i(H) >= 0``; ``D_j >= 0`` (``j < k``) for every ``Y >= Ymin`` follows from
``D_j(Ymin') >= 0`` at one point ``Ymin' <= Ymin`` (``dD_j/dY = D_(j-1)``, ``D_0 = 1``: induction
on ``j``), certified in arb over a box 25 % wider, once per region (every light law inside it
reuses the check), at one corner of the box: with the tilt taken out of ``G``, each ``D_j`` is
monotone in every ``p_i`` (:func:`monotone_pieces`; an exact series at that point, where the
Taylor form used before could not separate ``D_j`` from 0 near ``j = k`` at ``k = 200``, ``q =
0.34``, and cost 20 % of the walk at ``q = 0.30``, ``k = 16``: 75.7 -> 47.7 CPU s for the same
enclosure, ``benchmarks/RESULTS.md``, session 12).  *Sharing*: the check at ``Ymin'`` over a
region box ``B`` proves ``D_j(Ymin', p) >= 0`` for every power-sum point ``p`` of ``B`` (its
intervals of ``p_2 .. p_I``, the caps ``p_i <= min(w_max^(i-3) P3hi, w_max^(i-2) P2hi)`` of the
rest) and every statistic ``(tau, beta)`` in ``B``'s balls (evaluated in arb with them); a law's
box ``B'`` with every interval, cap and ball inside ``B``'s (:meth:`Box.contains`, in arb) has
only such points, so with ``Ymin' <= Ymin`` of that law the certificate is its own.  (Balls are
compared by containment: ``beta = g BETA_STEP tau^2 / 3`` is an inexact ball, not ``==`` even to
itself, which had made every law with ``beta != 0`` pay its own certificate.)  So on the event
``F`` is nondecreasing in ``Y``, and points ``s_dn`` (``F_lo(s_dn) > lam``) and ``s_up`` (``F_up(s_up) < lam``) give the
bounds above with ``Y`` in place of ``x`` (``Y <= Ymin`` and ``Y >= Ymax`` lie in the failure event).
*The choice of tau*: ``d_2 = -(t^2 - tau t) / 2`` vanishes at the saddle ``t = tau`` of
``[t^k] e^(tY) ...``, so ``tau = 2 alpha`` (the first-order cancelling ``alpha`` below at the
leaf's threshold point) removes ``p_2`` to first order.  Leaves go to bins
``tau_b = tau_0 (1 + TAU_BIN)^b`` nearest their own ``tau``; each bin has its own light law
(weights ``log(1 + tau_b w) / tau_b``) and its own Fourier integral.  Any ``tau`` gives a
valid enclosure.  The decisions before splitting keep the bracket in ``x = p_1 >= Y``
(``log(1 + u) <= u``).  At ``L = 40``, ``N = 10^7``, ``q = 0.351``, ``lambda = e^2`` the relative
width of eta falls from 2.5e-2 to 7.7e-4 at ``k = 16`` (``benchmarks/RESULTS.md``, issue 20
continued).

**What the series enclosure's width is made of (kwid7).**  At ``L = 40``, ``N = 10^7``,
``k = 16``, ``q = 0.351``, ``lambda = e^2`` the largest leaf's boxes showed the centre values
``F(Y; pbar)`` drifting by 5e-4 (relative) across the ``p_2`` range, i.e. a *first-order*
residual in ``p_2``, not the second-order term: the leaf's ``tau`` (the Bonferroni main term's
``2 alpha`` at ``p_2 -> 0``, then its bin) was ~1 % off the series' own cancelling value.
Enumerating the top light level (``EXTRA_LIGHT = 0``) narrowed the width by only 23 % at 8x the
CPU.  Two changes instead:

* *tau from the series* (``TAU_REFINE``, :meth:`walk.Walk.refine_bin`).
  ``e^(tY) G(t) = prod_j (1 + t w_j)`` whatever ``tau``, so
  ``dF/dp_2 = kappa [t^k] E_H e^(tY) G d_2`` with ``d_2 = -(t^2 - tau t) / 2`` vanishes at
  ``tau* = [t^(k-2)] / [t^(k-1)]`` of ``E_H(t) e^(tY) G0(t)``, evaluated once (arb, the middle
  box's ``G0``) at the float root of the first bin's lower end; the leaf then uses the bin nearest
  ``tau*``, with ``TAU_BIN`` = 0.005 (was 0.02: a residual of up to 1 % of the uncancelled slope)
  below ``FINE_MAX_K`` = 64.  It only chooses the statistic: every ``tau`` in
  ``[0, 1 / (2 w_max)]`` is valid.
* *p_3 from p_2* (``P3_BELOW``).  With the cancelled ``p_2`` the first-order terms of ``p_3`` (box
  range ``[P3lo, w_max b]``, ``P3lo`` ~ 0) and ``p_4`` dominated.  The top light level's outputs all
  weigh ``w_max``, so with ``B_i`` the power sums of the outputs below it, exactly
  ``p_i = w_max^(i-2) (p_2 - B_2) + B_i``; on the event ``B_2 in [B2lo, B2hi]``,
  ``B_3 in [B3lo, B3hi]`` (Chernoff levels of the light law with the top weight set to 0, each
  failing with mass ``<= tol * TOL_FAIL``, added to the law's failure mass), a box with
  ``p_2 in [a, b]`` has ``w_max (a - B2hi) + B3lo <= p_3 <= w_max (b - B2lo) + B3hi`` and, as
  ``0 <= B_i <= w_2^(i-3) B_3`` (``w_2`` the second light weight),
  ``w_max^(i-2) (a - B2hi) <= p_i <= w_max^(i-2) (b - B2lo) + w_2^(i-3) B3hi`` (``i >= 4``).  The
  ``p_3``, ``p_4`` ranges now shrink with the box's ``p_2`` range, so ``SERIES_SPLIT`` = 8 (was 4)
  pays below ``FINE_MAX_K``.  In the hull (:meth:`walk.Walk.hull_group`) ``B_2``, ``B_3`` are
  monotone in ``n`` like ``p_2``, ``p_3``: ``n_lo``'s lower and ``n_hi``'s upper levels.
* *p_3 cancelled too* (``BETA_STEP``).  The log statistic cancels ``p_3`` only through ``tau^2``
  (``d_3 = (t^3 - tau^2 t) / 3``): at that leaf 93 %, and the rest was the largest first-order term.
  Any positive weights give a valid light statistic, so a leaf may use
  ``Y = sum_j (log(1 + tau w_j) / tau + beta w_j^3)``: ``log G`` gains ``-beta p_3 t``, i.e.
  ``d_3 = (t^3 - tau^2 t) / 3 - beta t``, which vanishes against ``E_H e^(tY) G`` at
  ``beta = (c_3 / c_1 - tau^2) / 3`` (``c_j = [t^(k-j)] E_H(t) e^(tY) G0(t)``, again independent of
  the statistic).  ``beta = g BETA_STEP tau^2 / 3`` on a grid, ``|g BETA_STEP| <= 1/2``, so
  ``|beta| w^3 <= w / 24 < log(1 + tau w) / tau`` (``tau w <= 1/2``): every weight of ``Y`` stays
  positive (the hull's and the count grid's pathwise orderings need only that).  Bins ``(b, g)``
  have their own light law and integral; the decisions keep bin 0 (``beta = 0``, ``Y <= p_1``).
  At ``k = 16``, ``q = 0.351``, ``tol = 1e-6`` the relative width of ``eta`` falls from 8.0e-4
  (before all three) to 3.7e-4 (tau, ``p_3`` tie) and 2.3e-4 (with ``beta``); CPU 48 -> 86 ->
  156 s (``benchmarks/RESULTS.md``, kwid7).

*Off by default* (``FINE_MAX_K = 0``, ``P3_BELOW = False``; opt in with ``FINE_MAX_K = 64``,
``P3_BELOW = True``).  With them the slow test at ``k = 8``, ``tol = 1e-7``
(``test_deployment_scale_k8``) once took 580 s, 97 % in :meth:`laws.LightLaws.ensure_monotone`:
not the tied boxes but :meth:`Box.contains` comparing ``beta`` with arb ``==``, false for the
inexact ball ``g BETA_STEP tau^2 / 3``, so every law with ``beta != 0`` paid its own certificate.
With the balls compared by containment (*Sharing* above) the certificates fall from 6,912 to 208
at ``k = 8``, ``tol = 1e-4`` (71 -> 2 CPU s of 92).  What the fine settings still cost is their
own work (twice the boxes, ``refine_bin``'s series per leaf, more bins and integrals): at
``k = 8``, ``q = 0.351``, ``tol = 1e-6`` 253 CPU s against 127 (width 6.8e-4 -> 5.9e-4), at
``k = 16`` 122 against 37 (8.3e-4 -> 2.3e-4): more than the 1.3x the switch was to be worth, so
they stay off (``benchmarks/RESULTS.md``, fine).

The series enclosure's width grows with ``k`` through the second-order term
``~ k^3 (P2hi - P2lo)^2`` (relative in ``R``) of the top light levels' spread ``p_2``; the
measured widths per ``k`` are in ``benchmarks/RESULTS.md``.  Near the least ``q`` at
``tol = 1e-5`` the monotone groups dominated instead: 95 % of the width at ``k = 64`` (the last
split's ~1.7e5 children below ``tol * LEAF_FRACTION``), 64 % at ``k = 128``, 88 % at ``k = 200``.
With ``GROUP_HULL`` and ``PENULT_FRACTION = 1e-2`` the last split's groups are ~2 % of the
width at ``k = 64`` (relative width 13 % -> 2.8 %); what remains is the earlier splits' groups
(children below ``tol``, 73 %) and the series enclosure (24 %).

**Corner bounds (``SERIES_CORNERS``).**  The certificate of monotonicity gives more than
monotonicity in ``Y``: with ``c = p_1 - Y`` (:meth:`Box.y_shift`) and ``F'(Z, p) = kappa [t^k]
E_H(t) e^(tZ) G'_p(t)``, ``F(Y, p) = F'(Y + c, p)``, and on the certified range ``dF'/dZ >= 0``,
``dF'/dp_i = (-1)^(i-1) kappa [t^(k-i)] E_H e^(tZ) G'_p / i`` has the sign of ``(-1)^(i-1)``
(``e_i(H) >= 0``, ``D'_j >= 0``).  So over the box ``F(Y, p)`` lies between ``F'(Y + min c, p*)``
and ``F'(Y + max c, p**)`` at its two corners (:meth:`Box.corners`: ``p*`` with the even ``p_i``
at their upper ends and the odd at their lower, ``p**`` the opposite): two more rows per box,
and each box's Taylor enclosure is intersected with them (:meth:`Series.value`; the float image
too).  At large ``k`` the Taylor form's second-order term over the box exceeds ``F`` itself
(``k = 200``, ``q = 0.34``: no leaf's lower side certified, eta in [0, 0.97] at ``tol = 1e-3``);
the corners lose only the decoupling of ``c`` from ``p`` (``tau (P2hi - P2lo) / 2`` in ``Z``).

**The remainder by a majorant (``SERIES_MAJORANT``).**  The Taylor form above took its
second-order coefficients from ``exp(Q(box))`` and its centre from ``exp(Q(pbar))`` with the
capped ``p_i`` and the tail as balls: arb sums those series coefficient by coefficient, and
``G``'s coefficients alternate in sign (``-p_2 t^2 / 2`` against ``tau p_2 t / 2``), so each ball
grew like ``exp(|Q|)`` against ``exp(Q)`` and then again by the saddle's cancellation in ``d_i
d_i'``: at ``L = 40``, ``N = 10^7``, ``k = 200``, ``q = 0.34`` the centre carried a radius of 11 %,
the Hessian's bound exceeded its value 4,400 times, and only the corner bounds were left (``F``
within a factor ~3, the leaves' two points 0.76 sd of ``Y`` apart).  Now every row is a *point's*
polynomial: ``G0 = exp(Q_0)`` with ``Q_0`` the variables at ``pbar`` and no balls, the pairs
``G0 d_i d_i'``.  With ``Delta = Q - Q_0 = sum_i delta_i d_i + rho`` (``|delta_i| <= r_i``,
``rho`` the balls: ``|[t^j] rho| <= rhohat_j``) exactly ``G = G0 e^Delta`` and

    e^Delta = 1 + Delta + Delta^2 / 2 + R_3,   |[t^j] R_3| <= [t^j] (e^D - 1 - D - D^2 / 2),

``D = sum_i r_i |d_i| + rhohat`` (coefficientwise absolute values: ``|[t^j] f g| <= [t^j] |f| |g|``).
So ``F = kappa [t^k] A e^Delta`` with ``A = E_H e^(tY) G0`` is the Taylor form with point
coefficients plus ``kappa sum_j |A_(k-j)| W_j``, ``W = rhohat + (sum r_i |d_i|) rhohat + rhohat^2 / 2
+ (e^D - 1 - D - D^2 / 2)``.  On the certified monotone range ``A_(k-j) >= 0`` for ``j >= 1``
(``A_m = sum_i e_i(H) D_(m-i)`` and ``D_j(Y, p) >= 0``, ``j < k``, at every ``p`` of the box, the
centre with the capped ``p_i = 0`` among them; "Monotonicity in Y" above), and ``W_0 = 0``, so the
remainder is ``kappa [t^k] E_H e^(tY) (G0 W)``: one more row per box (:attr:`Box.rest`, weight
``[-1, 1]``) in the same matrix product.  At that leaf the box's enclosure fell from ``[0.19, 10.2]`` to
``[4.91, 5.50]`` (``F ~ 5.2``; now the first-order terms and the majorant's ``p_5`` cap and third
order share it), the leaves' gap to 0.11 sd, and ``eta``'s relative width at ``tol = 1e-2`` with
the pilot's shift from 0.111 to 0.052 in the same time (``benchmarks/RESULTS.md``, session 35).

**Precision.**  :meth:`Series.value` is one matrix product per point: the boxes' coefficient
matrix (every box polynomial's coefficients) times the column ``u_r(Y)``, then the enclosure
matrix (:func:`enclosure_matrix`: the Taylor form's balls) times that.  The products run at
``VALUE_PREC`` = 64 bits (one limb), the coefficient matrix rounded outward to it once per box
set (:func:`box_matrix_at`): every entry and every product is still a ball containing the exact
number, and the rounding (~1e-19 of the terms) is far below the enclosure's own radius (~1e-4 ..
1e-3 relative).  Sampled at ``L = 40``, ``N = 10^7``, ``k = 8`` and ``k = 128``, the radii at 64
bits and at the walk's 160 agree to 3e-9 (relative); the product takes half the time.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

from flint import arb, arb_mat, arb_poly, arb_series, ctx

from ...core.errors import PrecisionError
from . import settings
from .arbs import float_hi
from .bracket import Threshold


def _exp_series(q, n):
    """``exp(Q) mod t^n`` for ``Q(0) = 0`` (arb coefficients ``q``):
    ``g_j = (1/j) sum_(i=1)^j i q_i g_(j-i)`` (``G' = Q' G``)."""
    nz = [i for i in range(1, n) if i < len(q) and not q[i].is_zero()]
    g = [arb(1)] + [arb(0)] * (n - 1)
    for j in range(1, n):
        s = arb(0)
        for i in nz:
            if i > j:
                break
            s += i * q[i] * g[j - i]
        g[j] = s / j
    return g


@contextmanager
def _series_cap(n: int):
    """flint's series length cap ``ctx.cap`` at least ``n`` inside the block, restored after."""
    old = ctx.cap
    ctx.cap = max(old, n)
    try:
        yield
    finally:
        ctx.cap = old


def _exp_series_flint(q, n):
    """:func:`_exp_series` by flint's ``arb_series.exp`` (the same enclosure problem in C: at
    ``k = 200`` 0.26 ms against 7 ms; the corners of every box, :meth:`Box.corners`)."""
    with _series_cap(n):
        g = arb_series(list(q[:n]), prec=n).exp().coeffs()
    return g[:n] + [arb(0)] * (n - len(g))


def padded_coeffs(p: arb_poly, n: int) -> list:
    """Coefficients ``0 .. n-1`` of an ``arb_poly`` (zeros beyond its length; one shared exact 0).

    >>> [float(c) for c in padded_coeffs(arb_poly([1, 2]), 4)]
    [1.0, 2.0, 0.0, 0.0]
    """
    cf = p.coeffs()
    return cf[:n] + [arb(0)] * (n - len(cf)) if len(cf) < n else cf[:n]


def _mul(a, b, n):
    """Coefficients ``0 .. n-1`` of the product of two coefficient lists."""
    return padded_coeffs(arb_poly(a) * arb_poly(b), n)


def _ball(r) -> arb:
    """The ball ``[-r, r]`` (``r`` an arb or float, its upper end taken)."""
    return arb(0, float_hi(r if isinstance(r, arb) else arb(r)))


def _aball(r: arb) -> arb:
    """The ball ``[-r, r]`` (``r`` an arb, its upper end taken; no float conversion)."""
    return arb(0, r.upper())


class Box:
    """The power-sum box of one light law for the series enclosure (module doc): Taylor
    variables ``p_i``, ``i = 2 .. I``, in ``[lo_i, hi_i]``; ``p_i`` for ``I < i`` bounded by
    ``w_max^(i-3) P3hi`` (and ``w_max^(i-2) P2hi``).  Holds the polynomials (degree ``<= k``)

        G0 = exp(Q(pbar)),   G_i = G0 d_i,   H_(ii') = exp(Q(box)) d_i d_(i'),
        Q(t) = sum_(i=2)^I (-1)^(i-1) p_i (t^i - tau^(i-1) t) / i  +  (the rest, as balls),
        d_i = dQ/dp_i = (-1)^(i-1) (t^i - tau^(i-1) t) / i."""

    def __init__(self, k, tau, iv, wmax, P2hi, P3hi, *, beta=None, gamma=None, majorant=None):
        n = k + 1
        # the remainder by a majorant (module doc) or the ball form: by the settings (None)
        self.majorant = settings.SERIES_MAJORANT if majorant is None else bool(majorant)
        self.k, self.tau, self.iv = k, tau, dict(iv)
        self.beta = arb(0) if beta is None else beta    # Y's extra beta p_3 (module doc)
        # Y's extra gamma p_4 (the tilted strategy, :mod:`~exactdp.reductions.kfourier.tilt`; needs
        # p_4 among the variables): log G gets -gamma p_4 t
        self.gamma = arb(0) if gamma is None else gamma
        self.wmax, self.P2hi, self.P3hi = wmax, P2hi, P3hi
        self.vars = sorted(iv)
        self.pbar, self.rad = {}, {}
        for i, (lo, hi) in iv.items():
            pb = arb((float(lo) + float(hi)) / 2)
            self.pbar[i] = pb
            self.rad[i] = arb(max(float_hi(hi - pb), float_hi(pb - lo)))
        self.balls = [_ball(self.rad[i]) for i in self.vars]     # [-r_i, r_i], for enclose
        I = max(self.vars) if self.vars else 1
        fixed = [arb(0)] * n
        self.caps = {}                  # i > I: 0 <= p_i <= caps[i]
        for i in range(I + 1, n):
            # in arb (no float): w_max^i underflows a double at large k, and a float floor
            # times tau^(i-1) would swamp the series
            u3, u2 = P3hi * wmax ** (i - 3), P2hi * wmax ** (i - 2)
            ub = arb((u3 if u3.upper() < u2.upper() else u2).upper())
            self.caps[i] = ub
            fixed[i] += _aball(ub / i)
            fixed[1] += _aball(tau ** (i - 1) * ub / i)
        # i > k: t terms only, sum_(i > k) p_i tau^(i-1) / i <= (geometric bound)
        if n > 1 and tau > 0:
            tw = tau * wmax
            if not tw < 1:
                raise PrecisionError("kfourier: tau w_max >= 1")
            i0 = max(I + 1, n, 3)
            T = P3hi * tau ** 2 * tw ** (i0 - 3) / (i0 * (1 - tw))
            if not self.vars and n <= 2:
                T += P2hi * tau / 2
            fixed[1] += _aball(T)
        self.fixed1 = fixed[1]          # the t term's balls (monotone_pieces: the shift of Y)
        self.d = {}
        for i in self.vars:
            s = arb(-1) ** (i - 1) / i
            c = [arb(0)] * n
            if i < n:
                c[i] += s               # t^i beyond t^k: only its t term is kept
            c[1] -= s * tau ** (i - 1)
            if i == 3:
                c[1] -= self.beta       # Y = (log statistic) + beta p_3: log G gets -beta p_3 t
            if i == 4:
                c[1] -= self.gamma
            self.d[i] = c

        def Q(vals, base):
            q = list(base)
            for i in self.vars:
                for j, c in enumerate(self.d[i]):
                    if not c.is_zero():
                        q[j] += c * vals[i]
            return q
        dp = {i: arb_poly(self.d[i]) for i in self.vars}
        if self.majorant:
            # the centre's G0 without the balls (module doc, "The remainder by a majorant"): every
            # row a point's polynomial, the balls and the third order in the majorant W
            self.G0 = _exp_series(Q(self.pbar, [arb(0)] * n), n)
            g0 = gb = arb_poly(self.G0)
            rho = [f.abs_upper() for f in fixed]
            dhat = list(rho)
            for i in self.vars:
                for j, c in enumerate(self.d[i]):
                    if not c.is_zero():
                        dhat[j] += c.abs_upper() * self.rad[i]
            dhat[0] = arb(0)
            lin = [dhat[j] - rho[j] for j in range(n)]
            with _series_cap(n):
                ex = _exp_series_flint(dhat, n)
                sq = padded_coeffs(arb_poly(dhat) * arb_poly(dhat), n)
                cross = padded_coeffs(arb_poly(lin) * arb_poly(rho), n)
                rr = padded_coeffs(arb_poly(rho) * arb_poly(rho), n)
            W = []
            for j in range(n):
                # exp(D) - 1 - D - D^2 / 2 (D = dhat, nonnegative; 0 below t^3), the first
                # order's and the second order's ball terms
                m3 = ex[j] - dhat[j] - sq[j] / 2 if j >= 3 else arb(0)
                m3 = arb(m3.upper()) if m3.upper() > 0 else arb(0)
                # in arb (no float): the terms near t^k lie below the double range at large k
                W.append(arb((rho[j] + cross[j] + rr[j] / 2 + m3).upper()))
            self.W = arb_poly(W)
            self.rest = padded_coeffs(g0 * self.W, n)
        else:
            self.G0 = _exp_series(Q(self.pbar, fixed), n)
            GB = _exp_series(Q({i: lo.union(hi) for i, (lo, hi) in iv.items()}, fixed), n)
            g0, gb = arb_poly(self.G0), arb_poly(GB)
            self.W = self.rest = None
        # every operand converted to arb_poly once (G0, GB, each d_i; G_i kept as its truncated
        # arb_poly): the products of _mul without its list <-> arb_poly round trips
        self.polys = [self.G0] + [padded_coeffs(g0 * dp[i], n) for i in self.vars]
        self.pairs = []
        for a, i in enumerate(self.vars):
            Gi = (gb * dp[i]).truncate(n)
            for i2 in self.vars[a:]:
                c = arb(1) if i2 != i else arb(0.5)
                self.pairs.append((c * self.rad[i] * self.rad[i2], padded_coeffs(Gi * dp[i2], n)))

    def enlarged(self, frac: float) -> "Box":
        """A box containing this one, every interval widened by ``frac`` of its width."""
        iv = {}
        for i in (2, 3):
            if i in self.iv:
                lo, hi = self.iv[i]
                w = (hi - lo) * frac
                iv[i] = (arb(max(float((lo - w).lower()), 0.0)), arb(float_hi(hi + w)))
        P2hi = iv[2][1] if 2 in iv else self.P2hi
        P3hi = iv[3][1] if 3 in iv else self.P3hi * (1 + frac)
        for i in self.vars:
            if i >= 4:
                iv[i] = (arb(0), arb(min(float_hi(P3hi * self.wmax ** (i - 3)), float_hi(P2hi * self.wmax ** (i - 2)))))
        return Box(self.k, self.tau, iv, self.wmax, P2hi, P3hi, beta=self.beta, gamma=self.gamma,
                   majorant=self.majorant)

    def halves(self):
        """The box cut in two at the middle of its ``p_2`` range (``p_3 <= w_max p_2`` on each)."""
        lo, hi = self.iv[2]
        mid = arb(float(((lo + hi) / 2).mid()))
        out = []
        for a, b in ((lo, mid), (mid, hi)):
            iv = dict(self.iv)
            iv[2] = (a, b)
            p3hi = arb(min(float_hi(self.P3hi), float_hi(self.wmax * b)))
            if 3 in iv:
                iv[3] = (iv[3][0], p3hi)
            for i in self.vars:
                if i >= 4:
                    iv[i] = (arb(0), arb(min(float_hi(p3hi * self.wmax ** (i - 3)), float_hi(b * self.wmax ** (i - 2)))))
            out.append(Box(self.k, self.tau, iv, self.wmax, b, p3hi, beta=self.beta, gamma=self.gamma,
                           majorant=self.majorant))
        return out

    def contains(self, other: "Box") -> bool:
        """Every power-sum point of ``other`` is one of this box's, for a statistic ``(tau,
        beta)`` in this box's balls: a certificate over this box (:func:`monotone_pieces`)
        serves ``other``.  The balls by containment, not ``==`` (an inexact ball, e.g. ``beta =
        g BETA_STEP tau^2 / 3``, is not ``==`` even to itself: no region would serve a law); the
        caps in arb (``<=``: every point of one below every point of the other)."""
        return (self.k == other.k and self.vars == other.vars
                and self.tau.contains(other.tau) and self.beta.contains(other.beta)
                and self.gamma.contains(other.gamma)
                and other.P2hi <= self.P2hi and other.P3hi <= self.P3hi
                and all(self.iv[i][0] <= other.iv[i][0] and other.iv[i][1] <= self.iv[i][1]
                        for i in self.vars))

    def enclose(self, vals):
        """``vals[0] + sum_i vals_i [-r_i, r_i] + sum_(i<=i') c |vals_(ii')| r_i r_i'``: the
        second-order Taylor enclosure over the box from the polynomials' values (same order)."""
        nv = len(self.vars)
        tot = vals[0]
        for a, ball in enumerate(self.balls):
            tot += vals[1 + a] * ball
        e = arb(0)
        for (c, _), v in zip(self.pairs, vals[1 + nv:]):
            e += c * v.abs_upper()
        return tot + _aball(e)          # no float: the values are ~ Y^j / j!, below 1e-300 at large k

    def y_shift(self) -> arb:
        """An enclosure of ``[t] log G`` over the box (the ``t`` coefficient of ``Q``: the
        ``p_i`` terms' ``-(-1)^(i-1) tau^(i-1) p_i / i``, ``-beta p_3`` and the balls of the
        rest), so that ``e^(tY) G(t) = e^(t (Y + c)) G'(t)`` with ``log G'`` the terms
        ``(-1)^(i-1) p_i t^i / i``, ``i >= 2``, and ``c`` in this ball (``c = p_1 - Y``;
        :func:`monotone_pieces`)."""
        c = self.fixed1
        for i in self.vars:
            lo, hi = self.iv[i]
            c += self.d[i][1] * lo.union(hi)
        return c

    def corners(self):
        """``(lower, upper)``: the coefficients ``0 .. k`` of ``e^(t c) G'_p(t)`` at the box's two
        corners (cached), ``lower`` with ``c = min c`` (:meth:`y_shift`) and ``p*`` (even ``p_i`` at
        their upper ends, odd at their lower, the capped ``p_i`` in ``[0, caps_i]`` alike),
        ``upper`` with ``max c`` and the opposite corner.  Where the box is certified monotone from
        ``ylo`` on (:func:`monotone_pieces`), ``kappa [t^k] E_H e^(tY) lower <= F(Y, p) <= kappa
        [t^k] E_H e^(tY) upper`` for every ``p`` in the box and ``Y >= ylo`` (module doc, "corner
        bounds")."""
        if not hasattr(self, "_corners"):
            n = self.k + 1
            c = self.y_shift()
            out = []
            for lower in (True, False):
                q = [arb(0)] * n
                if n > 1:
                    q[1] = arb(c.lower() if lower else c.upper())
                for i in range(2, n):
                    even = i % 2 == 0
                    top = even == lower          # the end of p_i that lowers (raises) D'_j
                    if i in self.iv:
                        p = self.iv[i][1] if top else self.iv[i][0]
                    else:
                        p = self.caps.get(i, arb(0)) if top else arb(0)
                    q[i] = (-p if even else p) / i
                out.append(_exp_series_flint(q, n))
            self._corners = tuple(out)
        return self._corners

    def all_polys(self):
        return self.polys + [p for _, p in self.pairs] + ([self.rest] if self.rest is not None else [])


class Series:
    """``F(Y) = kappa [t^k] E_H(t) e^(tY) G(t)`` (module doc) for one heavy configuration,
    enclosed over the light law's power-sum boxes.

    Every box polynomial ``P`` (:meth:`Box.all_polys`) enters through
    ``[t^k] P(t) E_H(t) e^(tY) = sum_r P_r u_r(Y)``, ``u_r = [t^(k-r)] E_H(t) e^(tY)``: one
    product ``E_H e^(tY)`` per point and one matrix-vector product with the boxes' coefficient
    matrix (built once per box set, shared by every leaf of the light law), instead of
    ``E_H P`` for every polynomial per leaf.  Same quantity, arb throughout."""

    def __init__(self, E, kappa, k, boxes):
        self.E, self.kappa, self.k = E, kappa, k
        self.EP = arb_poly(E)
        self.boxes = boxes
        self.mat, self.offsets, self.main_row = box_matrix(boxes, k)
        self._lastB = self._lastV = None

    def _coeffs(self, y: arb):
        """``B_j = [t^j] E_H(t) e^(tY)``, ``j = 0 .. k`` (cached for the last exact point: the
        root finders ask for the value and the slope at the same point)."""
        exact = y.rad() == 0
        if exact and self._lastB is not None and self._lastB[0] == float(y):
            return self._lastB[1]
        k = self.k
        # E_H(t) e^(tY) mod t^(k+1) as flint series (in C; at k = 200 0.37 ms against 0.49 ms
        # for the Python loop of Y^j / j! and the polynomial product)
        with _series_cap(k + 1):
            B = (arb_series(self.EP, prec=k + 1) * arb_series([0, y], prec=k + 1).exp()).coeffs()
        B = B[:k + 1] + [arb(0)] * (k + 1 - len(B))
        if exact:
            self._lastB = (float(y), B)
        return B

    def _u(self, y: arb, shift: int = 0) -> arb_mat:
        """The column ``u_r = [t^(k - shift - r)] E_H(t) e^(tY)``, ``r = 0 .. k``."""
        k, B = self.k, self._coeffs(y)
        zero = arb(0)
        return arb_mat([[B[k - shift - r] if k - shift - r >= 0 else zero] for r in range(k + 1)])

    def value(self, y: arb) -> arb:
        """A ball containing ``F(y, p)`` for every ``p`` in the union of the boxes: every box's
        :meth:`Box.enclose` at once, as the product of :func:`enclosure_matrix` with the
        polynomials' values (the same sums: ``vals[a] + sum vals_i [-r_i, r_i] + sum
        [-c, c] vals_ii'``, the last a ball of radius ``c |vals_ii'|``)."""
        exact = y.rad() == 0
        if exact and self._lastV is not None and self._lastV[0] == float(y):
            return self._lastV[1]
        p = settings.VALUE_PREC
        # the products at VALUE_PREC bits (module doc, "Precision"): the matrix rounded outward
        # once per box set, the column at this precision (0: the walk's precision and matrix)
        with ctx.workprec(p or ctx.prec):
            mat = box_matrix_at(self.boxes, self.k, p) if p else self.mat
            u = self._u(+y)
            enc = enclosure_matrix(self.boxes, self.k) * (mat * u)
            cv = corner_matrix(self.boxes, self.k) * u if settings.SERIES_CORNERS else None
        out = None
        for i in range(enc.nrows()):
            e = enc[i, 0]
            if cv is not None:
                # the corner bounds (module doc): the box's values lie in both enclosures
                c = arb(cv[2 * i, 0].lower()).union(arb(cv[2 * i + 1, 0].upper()))
                if not e.overlaps(c):
                    raise PrecisionError("kfourier: the series' corner and Taylor enclosures are disjoint")
                e = e.intersection(c)
            out = e if out is None else out.union(e)
        out = self.kappa * out
        if exact:
            self._lastV = (float(y), out)
        return out

    def derivatives(self, y: arb, order: int) -> list:
        """Balls containing ``F^(i)(y, p) = kappa [t^(k-i)] E_H(t) e^(tY) G_p(t)``, ``i = 1 ..
        order``, for every ``p`` in the union of the boxes: :meth:`value`'s Taylor enclosure of
        the shifted coefficient (its first-order terms keep ``p_i`` coupled through ``d_i``,
        ``c = p_1 - Y`` included) intersected with the corner bounds (each ``D_j`` is monotone in
        every ``p_i`` on the certified range: module doc, "Corner bounds").  The corners alone
        decouple ``c`` from ``p_2``: at ``L = 40``, ``N = 10^7``, ``k = 128``, ``q = 0.38`` they
        left ``F' / F`` 6 % wide over a light box, the Taylor form 0.08 %.  One product for all
        orders (columns ``u`` of the shifts)."""
        k = self.k
        p = settings.VALUE_PREC
        with ctx.workprec(p or ctx.prec):
            mat = box_matrix_at(self.boxes, k, p) if p else self.mat
            B = self._coeffs(+y)
            zero = arb(0)
            u = arb_mat([[B[k - i - r] if k - i - r >= 0 else zero for i in range(1, order + 1)]
                         for r in range(k + 1)])
            enc = enclosure_matrix(self.boxes, k) * (mat * u)
            cv = corner_matrix(self.boxes, k) * u
        out = []
        for i in range(order):
            tot = None
            for b in range(enc.nrows()):
                c = arb(cv[2 * b, i].lower()).union(arb(cv[2 * b + 1, i].upper()))
                e = enc[b, i]
                if not e.overlaps(c):
                    raise PrecisionError("kfourier: the series' corner and Taylor enclosures are disjoint")
                e = e.intersection(c)
                tot = e if tot is None else tot.union(e)
            out.append(self.kappa * tot)
        return out

    def main_value(self, y: arb) -> arb:
        """``F(y, pbar)`` of the middle box (a Newton guess only)."""
        r = self.main_row * self._u(y)
        return self.kappa * r[0, 0]

    def lo(self, y: arb) -> arb:
        return self.value(y)

    def up(self, y: arb) -> arb:
        return self.value(y)

    def lo_end(self, y: arb) -> arb:
        return arb(self.value(y).lower())

    def up_end(self, y: arb) -> arb:
        return arb(self.value(y).upper())

    def dlog(self, y: arb) -> float:
        v = (self.main_row * self._u(y))[0, 0]
        d = (self.main_row * self._u(y, 1))[0, 0]
        return float(y * d / v) if v > 0 else 1.0

    root = Threshold.root



def box_matrix(boxes, k):
    """``(matrix, offsets, main_row)``: the coefficients ``0 .. k`` of every box polynomial as
    rows of one ``arb_mat`` (box ``i``'s rows ``offsets[i]``), and the middle box's ``G0`` as a
    one-row matrix; cached on the box list."""
    cache = getattr(boxes, "_kf_matrix", None)
    if cache is not None and cache[0] == k:
        return cache[1]
    rows, offsets = [], []
    zero = arb(0)
    for box in boxes:
        a = len(rows)
        for P in box.all_polys():
            rows.append([P[r] if r < len(P) else zero for r in range(k + 1)])
        offsets.append((a, len(rows)))
    mid = offsets[len(boxes) // 2][0]
    out = (arb_mat(rows), offsets, arb_mat([rows[mid]]))
    if hasattr(boxes, "__dict__"):
        boxes._kf_matrix = (k, out)
    return out


def corner_matrix(boxes, k) -> arb_mat:
    """The boxes' two corners (:meth:`Box.corners`) as rows ``2 i`` (lower) and ``2 i + 1``
    (upper) of one ``arb_mat``, coefficients ``0 .. k``; cached on the box list."""
    cache = getattr(boxes, "_kf_corners", None)
    if cache is not None and cache[0] == k:
        return cache[1]
    out = arb_mat([c[:k + 1] + [arb(0)] * (k + 1 - len(c)) for box in boxes for c in box.corners()])
    if hasattr(boxes, "__dict__"):
        boxes._kf_corners = (k, out)
    return out


def box_matrix_at(boxes, k, prec: int) -> arb_mat:
    """:func:`box_matrix`'s matrix with every entry rounded (outward: a ball containing it) to
    ``prec`` bits; cached on the box list."""
    cache = getattr(boxes, "_kf_matrix_at", None)
    if cache is not None and cache[0] == (k, prec):
        return cache[1]
    mat = box_matrix(boxes, k)[0]
    with ctx.workprec(prec):
        out = arb_mat([[+mat[i, j] for j in range(mat.ncols())] for i in range(mat.nrows())])
    if hasattr(boxes, "__dict__"):
        boxes._kf_matrix_at = ((k, prec), out)
    return out


def enclosure_matrix(boxes, k) -> arb_mat:
    """The boxes' second-order Taylor enclosures (:meth:`Box.enclose`) as one matrix over the
    rows of :func:`box_matrix`: box ``i``'s row holds 1 at its value row, the ball ``[-r_j, r_j]``
    at its variable ``j``'s row and ``[-c, c]`` at each pair's row (``c |v| <= ..``); cached on the
    box list."""
    cache = getattr(boxes, "_kf_enc", None)
    if cache is not None and cache[0] == k:
        return cache[1]
    _, offsets, _ = box_matrix(boxes, k)
    nr = offsets[-1][1]
    zero = arb(0)
    rows = []
    for box, (a, b) in zip(boxes, offsets):
        row = [zero] * nr
        row[a] = arb(1)
        for j, ball in enumerate(box.balls):
            row[a + 1 + j] = ball
        for j, (c, _) in enumerate(box.pairs):
            row[a + 1 + len(box.balls) + j] = _aball(c)
        if box.rest is not None:
            row[b - 1] = arb(0, 1)              # the majorant's remainder, >= 0 (module doc)
        rows.append(row)
    out = arb_mat(rows)
    if hasattr(boxes, "__dict__"):
        boxes._kf_enc = (k, out)
    return out


class Boxes(list):
    """The series boxes of one light law (a list; carries the cached coefficient matrix)."""


def monotone_pieces(box: Box, ylo: float, yhi: float = math.inf) -> bool:
    """``D_j(Y, p) = [t^j] e^(tY) G_p(t) >= 0`` for ``j < k``, every ``Y >= ylo`` (``yhi`` is
    not needed) and ``p`` in the box; then ``dF/dY = kappa sum_m e_(k-m)(H) D_(m-1) >= 0`` for
    every heavy configuration.

    One point of one corner suffices.  Take the tilt out of ``G``: ``e^(tY) G_p(t) =
    e^(t (Y + c)) G'_p(t)`` with ``c = [t] log G_p`` (``= p_1 - Y``, enclosed over the box by
    :meth:`Box.y_shift`) and ``log G'_p = sum_(i>=2) (-1)^(i-1) p_i t^i / i``, so ``D_j(Y, p) =
    D'_j(Y + c, p)`` with ``D'_j(Z, p) = [t^j] e^(tZ) G'_p(t)``.  Then ``D'_0 = 1``,
    ``dD'_j/dZ = D'_(j-1)`` and ``dD'_j/dp_i = (-1)^(i-1) D'_(j-i) / i``: by induction on ``j``,
    if ``D'_j(Z_0, p*) >= 0`` for every ``j < k`` at ``Z_0 = ylo + min c`` and the corner ``p*``
    (``p_i`` at its upper end for even ``i``, its lower end for odd ``i``; ``p_i``, ``i > I``, in
    ``[0, caps_i]``), each ``D'_j`` is nondecreasing in ``Z`` and in the odd ``p_i``,
    nonincreasing in the even ones, on ``Z >= Z_0`` times the box, so ``D'_j(Z, p) >= D'_j(Z_0,
    p*) >= 0`` there, and ``Y + c >= Z_0`` for ``Y >= ylo``.  One exact series in arb, no Taylor
    form: at ``k = 200``, ``q = 0.34`` (``tau = 210``) the Taylor form over the box (the check
    before this one) could not separate ``D_j`` from 0 near ``j = k``."""
    k = box.k
    if k < 2:
        return True
    EY = [arb(1)]
    Y = arb(ylo)
    for j in range(1, k):
        EY.append(EY[-1] * Y / j)
    # D'_j(Z_0, p*) = [t^j] e^(t ylo) (e^(t min c) G'_(p*)(t)): the box's lower corner
    return all(g > 0 for g in padded_coeffs(arb_poly(EY) * arb_poly(box.corners()[0]), k))


class NotMonotone(PrecisionError):
    """The series enclosure's monotonicity in ``Y`` could not be certified (module doc)."""
