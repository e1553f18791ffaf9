r"""k-randomization at deployment scale: certified eta of the k-copies statistic for any N.

The k-copies tree (:mod:`exactdp.reductions.kcopies`) conditions on every class
count and stops near ``N ~ 10^3`` at ``L = 5``.  This module is the
large-``N`` strategy of :mod:`exactdp.engine.largen` extended to the k-copies
statistic; its cost does not grow with ``N``.

**The statistic.**  For a pair with one homogeneous collection (000's pair at
Hamming distance ``d``, forward, or 003's reverse; :func:`~exactdp.reductions.kcopies.kcopies`)
every user submits ``k`` randomizations and (000 (8.21) as corrected in
``proofs/k_randomization.py``, id 000-8.21)

    R(S) = e_k(c(v_1), ..., c(v_M)) / C(M, k),   M = kN,   c(v) = (q/p)^(d - 2 j(v)),

``j(v)`` the number of the changed columns set in output ``v`` (its *level*).
With ``w = c / M`` and ``kappa = M^k / C(M, k)``: ``R = kappa e_k(w)``.  The
``M`` outputs are independent: forward (``S ~ A(D_m)``) ``k(N - 1)`` of them
have the null level law ``pi0_j = C(d,j) q^j p^(d-j)`` and the changed user's
``k`` have ``pi1_j = pi0_j c_j`` (000 (3.5)); reverse (``S ~ A(D_m) = A(z^N)``)
all ``kN`` are null.  ``eta = P[R > lam]`` forward and ``P[R < 1/lam]``
reverse (``R`` here always ``P(S | z^(N-1) + w) / P(S | z^N)``).

**Heavy and light levels.**  As in :func:`exactdp.engine.largen.split_plan`
(with ``M`` outputs in place of ``N`` users) the top levels are *heavy*: their
counts (null and changed-user outputs separately, binomial chain rule from the
top level down) are enumerated exactly, nodes of mass below ``tol`` and the
binomial windows' tails entering the width.  Given the heavy counts,

    e_k(w) = sum_i e_i(H) e_(k-i)(Lt),     e_i(H) = [t^i] prod_(heavy l) (1 + w_l t)^(n_l)

(exact arb polynomials), where ``Lt`` are the light outputs, all of weight at
most ``w_max`` (the top light level's).

**Light elementary symmetric functions by power sums.**  With ``x = p_1``,
``p_2``, ``p_3`` the power sums of the light weights and Bonferroni's
inequalities applied to ``m! e_m = sum over m-tuples of distinct indices``
(the bad event "two positions coincide" is the union of ``C(m, 2)`` events;
two of them together are a triple coincidence, ``3 C(m, 3)`` pairs of events,
or two disjoint ones, ``3 C(m, 4)`` pairs):

    x^m - C(m,2) p_2 x^(m-2)  <=  m! e_m  <=  x^m - C(m,2) p_2 x^(m-2)
                                          + 3 C(m,4) p_2^2 x^(m-4) + 3 C(m,3) p_3 x^(m-3),

and ``p_3 <= w_max p_2`` (checked exhaustively on small cases in
``tests/test_kfourier.py::test_bonferroni_brackets``).  On the event
``p_2 in [P2lo, P2hi]`` this gives ``Lo(x) <= R <= Up(x)`` with

    Lo(x) = kappa sum_m e_(k-m)(H) max(0, x^m - C(m,2) P2hi x^(m-2)) / m!      (nondecreasing in x >= 0),
    Up(x) = kappa sum_m e_(k-m)(H) (x^m - C(m,2) P2lo x^(m-2)
                                    + 3 C(m,4) P2hi^2 x^(m-4) + 3 C(m,3) w_max P2hi x^(m-3)) / m!,

``Up`` nondecreasing for ``x >= x* = sqrt(C(k,2) P2lo)`` (its derivative is
``x^(m-3) (m x^2 - (m-2) C(m,2) P2lo) + (nonnegative terms)`` per ``m``).
For a threshold ``t`` (``lam`` forward, ``1/lam`` reverse) take points with
``Lo(s_dn) > t`` and ``x* <= s_up``, ``Up(s_up) < t`` (certified in arb, found by
Newton's method in ``log x``); then, with ``F = P[p_2 not in [P2lo, P2hi]] + P[p_1 < x*]``,

    forward:  P[x > s_dn] - F  <=  P[R > lam]   <=  P[x >= s_up] + F,
    reverse:  P[x <= s_up] - F <=  P[R < 1/lam] <=  P[x <= s_dn] + F,

and the same for ``>=`` / ``<=`` (the points are strict).  ``F`` is bounded by
Chernoff bounds of the light law of ``p_2`` (weights ``w^2``) and ``p_1``
(``LightLaw.chernoff``, arb), each at most ``tol * 1e-3``.

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

**The shifted light statistic (optional, ``ALPHA_SHIFT``).**  For any constant
``alpha`` in ``[0, 1 / w_max)`` the light sum can be replaced by
``y = p_1 - alpha p_2 = sum (w - alpha w^2)`` (a light law of the same kind): with
``x = y + alpha p_2`` the brackets above are functions ``A(y + alpha p_2, p_2)`` and
their range over ``p_2 in [P2lo, P2hi]`` is enclosed in mean-value form
``f(pbar) + f'([P2lo, P2hi]) (p_2 - pbar)`` (``_Threshold``).  ``Lo`` stays
nondecreasing in ``y`` (each term is nondecreasing in ``x >= 0`` and ``x`` increases
with ``y``), ``Up`` for ``y >= x* = sqrt(C(k,2) P2hi)`` (``x >= y``).  The choice
``alpha = -(dR/dp_2)/(dR/dx)`` at a leaf's threshold cancels the ``p_2`` range to
first order there; a coarse pilot walk picks one mass-weighted ``alpha``.  At
``L = 40``, ``N = 10^7``, ``q = 0.351``, ``lambda = e^2``, ``tol = 1e-7`` it narrows the
enclosure at ``k = 8`` from 9.7e-3 to 1.9e-3 relative, at ``k = 16`` from 1.0e-1 to
2.5e-2 (``benchmarks/bench_kfourier.py``); on by default (``ALPHA_SHIFT``).

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
on ``j``), certified in arb (same Taylor form) over a box 25 % wider, once per region (every
light law inside it reuses the check).  So on the event ``F`` is nondecreasing
in ``Y``, and points ``s_dn`` (``F_lo(s_dn) > lam``) and ``s_up`` (``F_up(s_up) < lam``) give the
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

**Guesses in floats (``GUESS_FLOATS``).**  Where a point only has to be *chosen* (the
threshold points ``s_dn``, ``s_up`` of a leaf, a leaf's ``tau``) Newton's method runs on a
double-precision image of the same quantity: the boxes' coefficient matrix and ``E_H`` with
``t = u s``, ``s = k / E Y``, so that ``(sY)^j / j!`` and the terms near ``[u^k]`` stay inside
the double range at ``k = 200`` (``_SeriesFloat``; the entries' own arb radii included; it
matches the arb ends to ~1e-11 in ``log R`` at ``k = 16``).  The point is then certified in
arb exactly as before (``F_lo(s_dn) > lam``, ``F_up(s_up) < lam``, stepping outward from the
guess), so a wrong guess can only cost width.  The same image *skips* arb checks that cannot
pass: ``Lo(y) <= Up0(y + alpha P2hi)`` (``m! e_m <= x^m``) and ``Up0`` is a polynomial with
nonnegative coefficients, so where its float image misses the threshold by more than
``GUESS_MARGIN`` (relative; the float error is ~1e-12) the check ``Lo > thr`` (or
``Up0 < thr``) would fail and is not run (:meth:`_Run.decide`, :meth:`_Run.side_bounds`, the
leaf's ``Ymin``/``Ymax`` checks).  A skipped check leaves a bound at its trivial value (0 or 1):
valid whatever the floats say.  The steps from a float root to a certified point below
``_STEP_ALWAYS`` are checked in arb only where the float image clears the threshold by
``GUESS_CUSHION`` (a skipped step costs a step of width, nothing else), and ``Ymin`` is tried
for ``s_up`` only when no step is certified: two arb evaluations per leaf instead of five
(``k = 8``, ``q = 0.34``, ``tol = 1e-4``; the enclosure moves by 4e-11).  At ``L = 40``,
``N = 10^7`` the enclosures agree with the arb
root finders' to ~1e-15 (``k = 16``) at a fraction of the leaf cost (``benchmarks/RESULTS.md``).
At large ``k`` ``Lo`` lies far below ``Up0`` (``C(k, 2) p_2`` reaches ``x^2`` at ``k = 32``), so
``Lo``'s own float image screens it too (:class:`_LoScreen`: an upper bound of the arb ball's
lower end from the bracket at both ends of the ``p_2`` range).  With ``alpha = 0`` (the series
walk) the node checks are two arb polynomials each instead (:class:`_NodePoly`: ``Lo`` at
``p_2 = P2hi`` over the terms positive there, a lower bound of the bracket), cheaper than
either screen, which is then not used (``NODE_POLY``): at ``L = 40``, ``N = 10^7``, ``k = 16``,
``q = 0.30``, ``tol = 1e-4`` the decisions took 35 of 255 CPU s with the mean-value form and its
screens (``benchmarks/RESULTS.md``, kq32).

**Decisions before splitting.**  Every child of a split is first offered to the
node decision below (cached Chernoff bounds per light law); an undecided child
of mass below ``tol`` is dropped (its mass enters the width), except at the last
heavy split, where children down to ``tol * LEAF_FRACTION`` become leaves (and
``tol * PENULT_FRACTION`` at the split before it).  The
lowest heavy level of :func:`~exactdp.engine.largen.split_plan` goes back to the
light law (``EXTRA_LIGHT``; a Poisson-like count whose enumeration spreads the
mass over many small nodes).  Where that spreads the light statistic too widely for the
monotonicity certificate below (small ``q``: at ``q = 0.30``, ``k = 16`` its Chernoff range is
``[0.17, 1.26]``), the walk is run again with the level heavy; the certificate is asked at the
region's margin below ``Ymin`` first, then at ``Ymin`` itself (each suffices for its laws).

**Light undecided children in monotone groups.**  Such a child's mass need not enter the
width whole.  Among the children of one node with the same changed-user count,
``f(A) = P[R > thr | A]`` is nondecreasing in the count ``A`` at the split level (couple
the ``(A + 1)``-th output there with one below it: every weight below is smaller and
``e_k`` is nondecreasing in every weight).  A run of consecutive such children of mass
``D`` contributes between ``D f(first)`` and ``D f(last)``; the two decisions above at
fewer deviations (``PARTIAL_Z``) give ``f(first) >= 1 - B`` or ``f(last) <= B`` with
``B`` a Chernoff bound, and a run left open by more than ``GROUP_SPLIT`` is cut in
halves (``_Run.bound_group``).  At ``L = 40``, ``N = 10^7``, ``k = 16``, ``q = 0.356``,
``tol = 1e-6`` the relative width falls from 3.2e-3 to 7.4e-4 (with
``PENULT_FRACTION = 0.1``) at the same cost (``benchmarks/RESULTS.md``).  (An earlier variant,
``GROUP_LEAVES``, bounded ``f(first)`` and ``f(last)`` of a last-split group by the leaf
enclosure, one side each; the hull below bounds every child instead and replaced it.)

**The last split's open groups child by child (``GROUP_HULL``, default).**  A group of the last
split's children whose Chernoff ends leave more than ``tol * HULL_OPEN`` of mass open is bounded
child by child without a light law per child (:meth:`_Run.hull_group`).  Its children differ
only in the count ``A`` at the split level; their null light counts run from ``n_lo`` (the last
child) to ``n_hi`` (the first), the changed-user count ``m`` is shared.  ``Y``, ``p_2``, ``p_3``
are sums of nonnegative terms of i.i.d. outputs, so with ``n`` outputs taken as the first ``n``
of one sequence ``Y_(n_lo) <= Y_n <= Y_(n_hi)`` pathwise (and the same for ``p_2``, ``p_3``):
the box made of ``n_lo``'s lower and ``n_hi``'s upper Chernoff levels fails, for every child,
with mass at most the two laws' failure bounds summed, and

    P[Y_(n_lo) > s_dn] <= P[Y_n > s_dn],      P[Y_n >= s_up] <= P[Y_(n_hi) >= s_up].

Each child keeps its own ``E_H``, its own certified points ``s_dn``, ``s_up`` over the shared
box set (certified monotone as above) and its own mass: the group's width is the children's
enclosure widths, not ``D (f(last) - f(first))``.  At ``L = 40``, ``N = 10^7``, ``k = 64``,
``q = 0.3643``, ``tol = 1e-5`` the last split's groups fall from 8.6e-4 to 5e-6 of the width
(``benchmarks/RESULTS.md``, kbig6).

**Rounded counts in the integral (``N_GRID_REL``).**  The same coupling lets a Fourier item use
another null count: rounded down to a multiple of ``g`` for the lower side (``P[Y > s]`` of fewer
outputs is smaller) and up for the upper, ``g = 2^j <= N_GRID_REL sqrt(n_users)`` (``n_users``
the null outputs; the count stays at least the decay bands' ``n_min``).  The integrand's cost
grows with the number of distinct counts ``(n, m)``; the shift of at most ``g`` outputs out of
``n`` moves ``Y`` by ``O(g / sqrt(n))`` of its deviation; used from ``N_GRID_FROM = 10^8`` null
outputs (``k >= 10`` at ``N = 10^7``; at ``L = 12``, ``N = 2 * 10^5``, ``g = 2``, a delta of two
mid-range etas widened 3x).  ``k = 16``, ``q = 0.356``, ``tol = 1e-4`` (``g = 32``): CPU 32.9 ->
18.1 s, width 1.730e-4 -> 1.725e-4 (the integrals' own error moves); ``q = 0.34``: 70.3 -> 43.1 CPU
s, width 2.35e-4 -> 2.17e-4; ``q = 0.30``: width 7.743e-4 either way (``benchmarks/RESULTS.md``).

**What the series enclosure's width is made of (kwid7).**  At ``L = 40``, ``N = 10^7``,
``k = 16``, ``q = 0.351``, ``lambda = e^2`` the largest leaf's boxes showed the centre values
``F(Y; pbar)`` drifting by 5e-4 (relative) across the ``p_2`` range, i.e. a *first-order*
residual in ``p_2``, not the second-order term: the leaf's ``tau`` (the Bonferroni main term's
``2 alpha`` at ``p_2 -> 0``, then its bin) was ~1 % off the series' own cancelling value.
Enumerating the top light level (``EXTRA_LIGHT = 0``) narrowed the width by only 23 % at 8x the
CPU.  Two changes instead:

* *tau from the series* (``TAU_REFINE``, :meth:`_Run.refine_bin`).
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
  pays below ``FINE_MAX_K``.  In the hull (:meth:`_Run.hull_group`) ``B_2``, ``B_3`` are
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
``P3_BELOW = True``): at ``k = 8``, ``tol = 1e-7`` (``test_deployment_scale_k8``) the walk took
580 s, 97 % in :meth:`_Run.ensure_monotone` — the tied boxes and the ``(tau, beta)`` bins differ
from law to law, so a certified region no longer serves its neighbours and every law pays its own
certificate.  Sharing the certificate (e.g. one region per bin over the untied ``p_3`` range, which
contains every tied box) is the next step.

The series enclosure's width grows with ``k`` through the second-order term
``~ k^3 (P2hi - P2lo)^2`` (relative in ``R``) of the top light levels' spread ``p_2``; the
measured widths per ``k`` are in ``benchmarks/RESULTS.md``.  Near the least ``q`` at
``tol = 1e-5`` the monotone groups dominated instead: 95 % of the width at ``k = 64`` (the last
split's ~1.7e5 children below ``tol * LEAF_FRACTION``), 64 % at ``k = 128``, 88 % at ``k = 200``.
With ``GROUP_HULL`` and ``PENULT_FRACTION_LARGE_K`` the last split's groups are ~2 % of the
width at ``k = 64`` (relative width 13 % -> 2.8 %); what remains is the earlier splits' groups
(children below ``tol``, 73 %) and the series enclosure (24 %).

**Small q (eta near 1).**  Clipping every weight at a cap, ``w -> min(w, w_cap)``, lowers ``R``
pointwise (``e_k`` has nonnegative coefficients and is linear in each weight), so
``P[R <= lam] <= P[R_clip <= lam]``, and with ``w_cap`` the top light level's weight ``R_clip`` is a
statistic of light outputs only.  Checked, not used: at ``L = 40``, ``N = 10^7`` the heavy levels
carry a large share of ``E p_1 = sum pi1`` (000 (3.5)): 44 % at ``q = 0.30``, ``k = 16`` (31 % at
``k = 200``), so ``E p_1`` of the clipped law is 0.59 (0.72) and ``R_clip ~ 0.59^16 = 2e-4`` (``7e-30``)
is far below ``lam = e^2``: the bound is 1.  The same coupling, applied after the heavy levels
that matter are placed, is the node decision below ("every unplaced output lowered to the light
law").  A relative budget for those decisions (decide a node when its Chernoff failure ``B`` is
below ``tol``, total width ``<= tol``) was tried and never fired at ``q = 0.30``, ``k = 16``: the
undecided nodes fail the coupling, not the deviation count.  What the small-q end costs instead
is the certificate of monotonicity (its margin, now given up after repeated failures:
``MARGIN_TRIES``), the leaves and the groups' width (``benchmarks/RESULTS.md``, kq30).

**delta.**  The walk takes the law (null, or with the changed user) and the side (``R > lam``
or ``R < 1/lam``) separately (:class:`_Run`), so ``delta = P_1[E] - lam P_2[E]`` is the
difference of two certified etas (:func:`kfourier_delta`): at ``L = 40``, ``N = 10^7``,
``k = 2``, ``q = 0.351``, ``eps = 2`` relative width ~1e-4 in ~12 s, where the monotone grid of
16 etas gave 8e-2 in 40 s (``benchmarks/RESULTS.md``, kdelta).

>>> from exactdp.reductions.pairs import reverse_canonical_pair
>>> iv = kfourier_eta(reverse_canonical_pair(5000, 5, 2), "1/5", Fraction(11, 10), tol=1e-6)
>>> 0.46 < float(iv.lower) <= float(iv.upper) < 0.48
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
from flint import acb, acb_poly, arb, arb_mat, arb_poly, ctx, fmpq

from ..core.errors import CapacityError, ParameterError, PrecisionError
from ..core.interval import Interval, arb_to_interval
from ..core.lam import lam_interval, parse_lam_eps
from ..engine.largen import K_SMOOTH, LightLaw, pmf_window, split_plan
from ..model.mechanism import Mechanism
from ..model.pair import Pair
from .kcopies import delta_of_two_masses, parse_query

__all__ = ["KFourier", "KDelta", "kfourier_eta", "kfourier_details", "kfourier_delta",
           "kfourier_delta_details", "MIN_OUTPUTS"]

#: the last heavy split keeps children down to this fraction of ``tol`` (they become
#: leaves, one Fourier item each, not further splits)
LEAF_FRACTION = 1e-2

#: the second-to-last heavy split keeps undecided children down to this fraction of ``tol``
#: (their mass would be dropped whole; each is split once more, into a few leaves)
PENULT_FRACTION = 0.1
#: ... and from ``k >= PENULT_FROM_K`` (with the last split's groups bounded child by child,
#: ``GROUP_HULL``, the split before it holds most of the groups' width there)
PENULT_FRACTION_LARGE_K = 1e-2
PENULT_FROM_K = 64

#: undecided children too light to expand are bounded in monotone groups by Chernoff bounds at
#: the first of these deviations that decides a side (:meth:`_Run.bound_group`), not dropped whole
PARTIAL_DROP = True
#: (half-steps from 4 down: at L = 40, N = 10^7, k = 16, q = 0.30, tol = 1e-4 the groups' width
#: falls from 1.34e-3 to 1.22e-3, eta's from 1.50e-3 to 1.37e-3; ``benchmarks/RESULTS.md``, kq30)
PARTIAL_Z = (6.0, 5.0, 4.5, 4.0, 3.5, 3.0, 2.5, 2.0, 1.5, 1.0, 0.5)
#: a group of such children whose bounds leave more than this fraction of its mass open is cut in
#: halves, at most GROUP_DEPTH times
GROUP_SPLIT = 0.25
GROUP_DEPTH = 3
#: an open group of the last split's children (its Chernoff ends leave more than
#: ``tol * HULL_OPEN`` of mass open) is bounded item by item under one shared light-law pair and
#: box set (:meth:`_Run.hull_group`)
GROUP_HULL = True
HULL_OPEN = 1e-3

#: a leaf's null count in the Fourier integral rounded to a multiple of ``2^j``, the largest
#: power of two at most ``N_GRID_REL * sqrt(n)`` (``n`` the null outputs), down for the lower side
#: and up for the upper (:meth:`_Run.tail`; 0: exact counts)
N_GRID_REL = 5e-3
#: ... from this many null outputs on (``k >= 10`` at ``N = 10^7``; far below it the shift is not
#: negligible against the delta passes' widths: ``L = 12``, ``N = 2 * 10^5``, ``k = 2``, delta at
#: ``rel = 1e-4``)
N_GRID_FROM = 10**8

#: the mixture's items in clusters: Taylor order and half-width ``|z delta| <= TAYLOR_RADIUS``
#: at the window's end ``z = U1`` (remainder ``<= TAYLOR_RADIUS^R / (R R!)`` per unit mass)
TAYLOR_ORDER = 48
TAYLOR_RADIUS = 10.0
#: ... each cluster at the least order whose remainder per unit mass is below this (at most
#: ``TAYLOR_ORDER``; ``10^48 / (48 * 48!) ~ 1.7e-15`` at the full radius): a cluster of one item,
#: the common case at exact counts, is a constant
TAYLOR_REM = 1e-16

#: the mass outside the ``p_2`` (and ``p_1 < x*``) levels, per light law, as a fraction of ``tol``
TOL_FAIL = 1e-2

#: :meth:`_Run.ensure_monotone` stops trying the region's margin after this many failures, if
#: they outnumber the passes this many times: the check at ``Ymin`` itself is then asked first
MARGIN_TRIES = 20
MARGIN_RATIO = 4

#: heavy levels of :func:`exactdp.engine.largen.split_plan` returned to the light law
#: (measured at L = 40, N = 10^7: at k = 4, tol = 1e-7, width 1.6e-3 in 18 s with one,
#: 5.9e-3 in 77 s with none, 5.6e-3 with two)
EXTRA_LIGHT = 1

#: from this k on the top heavy level stays heavy (series enclosure: the top light level's
#: Poisson count dominates p_2's spread; at L = 40, N = 10^7, k = 64, tol = 1e-5 the relative
#: width falls from 0.19 to 1.3e-2, 463 CPU s)
EXTRA_LIGHT_MAX_K = 64

#: light statistic ``y = p_1 - alpha p_2`` (True) or ``x = p_1`` (False); module doc
ALPHA_SHIFT = True

#: fewest outputs ``kN`` for which the strategy is offered (the light law must be smooth)
MIN_OUTPUTS = 2000

#: the light e_m by the exact generating function (``"series"``, module doc) or by the
#: Bonferroni power-sum bracket (``"bonferroni"``)
ENCLOSURE = "series"

#: power sums ``p_2 .. p_SERIES_VARS`` are Taylor variables of the series enclosure; higher
#: ones enter as intervals directly
SERIES_VARS = 8

#: from this k on only ``p_2 .. p_SERIES_VARS_LARGE_K`` are Taylor variables: at L = 40,
#: N = 10^7 the higher power sums' balls move R by ~1e-6 relative at k = 200 (``p_5 <=
#: w_max^2 p_3``, ``w_max ~ 1.6e-4``), and the enclosure's cost is ~ (number of variables)^2
#: polynomials of degree k per box
SERIES_VARS_FROM_K = 64
SERIES_VARS_LARGE_K = 4

#: relative width of the bins of ``tau`` (series): each leaf's light statistic uses the bin
#: nearest its own first-order cancelling ``tau``; one Fourier integral per bin (below
#: FINE_MAX_K; from it TAU_BIN_LARGE_K)
TAU_BIN = 0.005
TAU_BIN_LARGE_K = 0.02
#: TAU_BIN, TAU_REFINE and SERIES_SPLIT (finer) below this k; from it the cheaper settings
#: (at L = 40, N = 10^7, k = 128, q = 0.3684, tol = 1e-5 the fine ones gave relative width
#: 1.6e-2 -> 1.26e-2 at 171 -> 386 CPU s: the hull groups' boxes, twice as many).  Off (0) by
#: default, like P3_BELOW: with them (64, True) the slow test at k = 8, tol = 1e-7 took 580 s,
#: 97 % in ensure_monotone (module doc, "What the series enclosure's width is made of")
FINE_MAX_K = 0

#: a series leaf's bin of ``tau`` from the series' own first-order cancelling value at its
#: threshold point (:meth:`_Run.refine_bin`), not only the Bonferroni main term's
TAU_REFINE = True

#: a series leaf's statistic ``Y`` gains ``beta p_3`` cancelling ``p_3`` to first order
#: (:meth:`_Run.refine_bin`), ``beta = g BETA_STEP tau^2 / 3``, ``|g| <= BETA_MAX``
#: (``|g BETA_STEP| <= 1/2`` keeps every weight of ``Y`` positive); 0: off
BETA_STEP = 0.03
BETA_MAX = 16

#: each series box's ``p_3`` range from its ``p_2`` range and the Chernoff levels of the light
#: outputs below the top light level (:meth:`_Run.below_levels`, module doc "p_3 from p_2")
P3_BELOW = False

#: the ``p_2`` range of the series enclosure in this many sub-boxes (union of enclosures)
SERIES_SPLIT = 8
SERIES_SPLIT_LARGE_K = 4


@dataclass(frozen=True)
class KFourier:
    """A certified eta with the run's bookkeeping: ``heavy`` levels enumerated,
    ``nodes`` visited, ``fourier`` leaves left to the integrals, ``dropped`` mass;
    ``alpha`` (the light statistic's shift, from the pilot walk) and ``extra_light`` (the
    heavy levels returned to the light law) the walk used: a later pass at another ``tol``
    may take them as they are (:func:`kfourier_details`)."""

    eta: Interval
    heavy: tuple
    nodes: int
    fourier: int
    dropped: float
    seconds: float
    alpha: float = 0.0
    extra_light: int = 0


def _arb(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _hi(x: arb) -> float:
    """A float at or above the upper end of ``x`` (the endpoint is exact in arb; its
    conversion to the nearest double is off by at most one part in ``2^53``)."""
    u = float(x.upper())
    return u + abs(u) * 1e-12 + 1e-300


_CONSTS = {}


def _threshold_consts(k):
    """``C(m, 2)``, ``3 C(m, 3)``, ``3 C(m, 4)`` for ``m = 0 .. k`` as exact arbs, cached."""
    if k not in _CONSTS:
        _CONSTS[k] = ([arb(comb(m, 2)) for m in range(k + 1)], [arb(3 * comb(m, 3)) for m in range(k + 1)],
                      [arb(3 * comb(m, 4)) for m in range(k + 1)])
    return _CONSTS[k]


class _Threshold:
    """``Lo`` and ``Up`` of the module doc for one heavy configuration, as functions of
    ``y = p_1 - alpha p_2`` (``alpha = 0``: of ``x = p_1``), over every
    ``p_2 in [P2lo, P2hi]`` (mean-value form in ``p_2``)."""

    def __init__(self, E, kappa, k, P2lo, P2hi, wmax, *, alpha=None):
        self.E, self.kappa, self.k = E, kappa, k
        self.alpha = arb(0) if alpha is None else alpha
        self.P2 = P2lo.union(P2hi)                 # a ball containing [P2lo, P2hi]
        self.pbar = arb(self.P2.mid())
        self.D = self.P2 - self.pbar               # p_2 - pbar, a ball around 0
        self.wmax = wmax
        # exact integer constants per k, cached (built per node before: ~12 % of a k = 64 run)
        self.c2, self.c3b, self.c4 = _threshold_consts(k)
        self.fact = _fact(k)
        self.nz = [m for m in range(k + 1) if E[k - m] != 0]
        self._plain = P2lo.is_zero() and P2hi.is_zero() and wmax.is_zero() and self.alpha.is_zero()
        self._poly = None

    def _pows(self, x):
        pw = [arb(1)]
        for _ in range(self.k):
            pw.append(pw[-1] * x)
        return pw

    def _parts(self, y: arb, upper: bool):
        """Per ``m``: a ball containing ``A_m`` (``upper``: the upper bracket ``U_m``)
        at ``x = y + alpha p_2`` for every ``p_2`` in the range:
        ``f(pbar) + f'(P2) (P2 - pbar)``."""
        al, pb, P2 = self.alpha, self.pbar, self.P2
        xs = y + al * pb
        xb = y + al * P2
        ps, pB = self._pows(xs), self._pows(xb)

        def pw(v, j):
            return v[j] if j >= 0 else arb(0)
        out = {}
        for m in self.nz:
            c2, c4 = self.c2[m], self.c4[m]
            f = ps[m] - c2 * pb * pw(ps, m - 2)
            d = m * al * pw(pB, m - 1) - c2 * (pw(pB, m - 2) + (m - 2) * al * P2 * pw(pB, m - 3))
            if upper:
                c3 = self.c3b[m] * self.wmax
                if m >= 4:
                    f += c4 * pb * pb * pw(ps, m - 4)
                    d += c4 * (2 * P2 * pw(pB, m - 4) + (m - 4) * al * P2 * P2 * pw(pB, m - 5))
                if m >= 3:
                    f += c3 * pb * pw(ps, m - 3)
                    d += c3 * (pw(pB, m - 3) + (m - 3) * al * P2 * pw(pB, m - 4))
            out[m] = f + d * self.D
        return out

    def up(self, y: arb) -> arb:
        if self._plain:
            # p_2 = 0, w_max = 0, alpha = 0 (the bound e_k <= sum_m e_(k-m)(H) p_1^m / m!): the
            # brackets are x^m; one polynomial, built once
            if self._poly is None:
                self._poly = arb_poly([self.E[self.k - m] / self.fact[m] for m in range(self.k + 1)])
            return self.kappa * self._poly(y)
        tot = arb(0)
        for m, v in self._parts(y, True).items():
            tot += self.E[self.k - m] * v / self.fact[m]
        return self.kappa * tot

    def lo(self, y: arb) -> arb:
        tot = arb(0)
        for m, v in self._parts(y, False).items():
            if m >= 2 and not v > 0:     # max(0, v): 0, or the ball [0, upper end of v]
                v = arb(0) if v < 0 else arb(0).union(v.upper())
            tot += self.E[self.k - m] * v / self.fact[m]
        return self.kappa * tot

    def lo_end(self, y: arb) -> arb:
        """The lower end of :meth:`lo` (the root finder's target)."""
        return arb(self.lo(y).lower())

    def up_end(self, y: arb) -> arb:
        """The upper end of :meth:`up`."""
        return arb(self.up(y).upper())

    def dlog(self, x: arb) -> float:
        """``d log R / d log x`` of the main term (a Newton slope only)."""
        pw, num, den = self._pows(x + self.alpha * self.pbar), arb(0), arb(0)
        for m in self.nz:
            t = self.E[self.k - m] * pw[m] / self.fact[m]
            den += t
            num += m * t
        return float(num / den) if den > 0 else 1.0

    def root(self, f, thr: arb, x0: float) -> float:
        """``x`` with ``f(x) ~ thr`` (Newton in ``log x``; a float guess only)."""
        t = math.log(max(x0, 1e-300))
        lthr = float(thr.log())
        with ctx.workprec(80):
            for _ in range(40):
                x = arb(math.exp(t))
                v = f(x)
                if not v > 0:
                    step = 1.0
                else:
                    slope = max(self.dlog(x), 1e-3)
                    step = -(float(v.log()) - lthr) / slope
                step = max(-2.0, min(2.0, step))
                t += step
                if abs(step) < 1e-13:
                    break
        return math.exp(t)


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


def _mul(a, b, n):
    """Coefficients ``0 .. n-1`` of the product of two coefficient lists."""
    cf = (arb_poly(a) * arb_poly(b)).coeffs()
    return [cf[j] if j < len(cf) else arb(0) for j in range(n)]


def _ball(r) -> arb:
    """The ball ``[-r, r]`` (``r`` an arb or float, its upper end taken)."""
    return arb(0, _hi(r if isinstance(r, arb) else arb(r)))


def _aball(r: arb) -> arb:
    """The ball ``[-r, r]`` (``r`` an arb, its upper end taken; no float conversion)."""
    return arb(0, r.upper())


class _Box:
    """The power-sum box of one light law for the series enclosure (module doc): Taylor
    variables ``p_i``, ``i = 2 .. I``, in ``[lo_i, hi_i]``; ``p_i`` for ``I < i`` bounded by
    ``w_max^(i-3) P3hi`` (and ``w_max^(i-2) P2hi``).  Holds the polynomials (degree ``<= k``)

        G0 = exp(Q(pbar)),   G_i = G0 d_i,   H_(ii') = exp(Q(box)) d_i d_(i'),
        Q(t) = sum_(i=2)^I (-1)^(i-1) p_i (t^i - tau^(i-1) t) / i  +  (the rest, as balls),
        d_i = dQ/dp_i = (-1)^(i-1) (t^i - tau^(i-1) t) / i."""

    def __init__(self, k, tau, iv, wmax, P2hi, P3hi, *, beta=None):
        n = k + 1
        self.k, self.tau, self.iv = k, tau, dict(iv)
        self.beta = arb(0) if beta is None else beta    # Y's extra beta p_3 (module doc)
        self.wmax, self.P2hi, self.P3hi = wmax, P2hi, P3hi
        self.vars = sorted(iv)
        self.pbar, self.rad = {}, {}
        for i, (lo, hi) in iv.items():
            pb = arb((float(lo) + float(hi)) / 2)
            self.pbar[i] = pb
            self.rad[i] = arb(max(_hi(hi - pb), _hi(pb - lo)))
        I = max(self.vars) if self.vars else 1
        fixed = [arb(0)] * n
        for i in range(I + 1, n):
            # in arb (no float): w_max^i underflows a double at large k, and a float floor
            # times tau^(i-1) would swamp the series
            u3, u2 = P3hi * wmax ** (i - 3), P2hi * wmax ** (i - 2)
            ub = arb((u3 if u3.upper() < u2.upper() else u2).upper())
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
        self.d = {}
        for i in self.vars:
            s = arb(-1) ** (i - 1) / i
            c = [arb(0)] * n
            if i < n:
                c[i] += s               # t^i beyond t^k: only its t term is kept
            c[1] -= s * tau ** (i - 1)
            if i == 3:
                c[1] -= self.beta       # Y = (log statistic) + beta p_3: log G gets -beta p_3 t
            self.d[i] = c

        def Q(vals):
            q = list(fixed)
            for i in self.vars:
                for j, c in enumerate(self.d[i]):
                    if not c.is_zero():
                        q[j] += c * vals[i]
            return q
        self.G0 = _exp_series(Q(self.pbar), n)
        GB = _exp_series(Q({i: lo.union(hi) for i, (lo, hi) in iv.items()}), n)
        self.polys = [self.G0] + [_mul(self.G0, self.d[i], n) for i in self.vars]
        self.pairs = []
        for a, i in enumerate(self.vars):
            Gi = _mul(GB, self.d[i], n)
            for i2 in self.vars[a:]:
                c = arb(1) if i2 != i else arb(0.5)
                self.pairs.append((c * self.rad[i] * self.rad[i2], _mul(Gi, self.d[i2], n)))

    def enlarged(self, frac: float) -> "_Box":
        """A box containing this one, every interval widened by ``frac`` of its width."""
        iv = {}
        for i in (2, 3):
            if i in self.iv:
                lo, hi = self.iv[i]
                w = (hi - lo) * frac
                iv[i] = (arb(max(float((lo - w).lower()), 0.0)), arb(_hi(hi + w)))
        P2hi = iv[2][1] if 2 in iv else self.P2hi
        P3hi = iv[3][1] if 3 in iv else self.P3hi * (1 + frac)
        for i in self.vars:
            if i >= 4:
                iv[i] = (arb(0), arb(min(_hi(P3hi * self.wmax ** (i - 3)), _hi(P2hi * self.wmax ** (i - 2)))))
        return _Box(self.k, self.tau, iv, self.wmax, P2hi, P3hi, beta=self.beta)

    def halves(self):
        """The box cut in two at the middle of its ``p_2`` range (``p_3 <= w_max p_2`` on each)."""
        lo, hi = self.iv[2]
        mid = arb(float(((lo + hi) / 2).mid()))
        out = []
        for a, b in ((lo, mid), (mid, hi)):
            iv = dict(self.iv)
            iv[2] = (a, b)
            p3hi = arb(min(_hi(self.P3hi), _hi(self.wmax * b)))
            if 3 in iv:
                iv[3] = (iv[3][0], p3hi)
            for i in self.vars:
                if i >= 4:
                    iv[i] = (arb(0), arb(min(_hi(p3hi * self.wmax ** (i - 3)), _hi(b * self.wmax ** (i - 2)))))
            out.append(_Box(self.k, self.tau, iv, self.wmax, b, p3hi, beta=self.beta))
        return out

    def contains(self, other: "_Box") -> bool:
        return (self.k == other.k and self.tau == other.tau and self.vars == other.vars
                and self.beta == other.beta
                and _hi(other.P2hi) <= float(self.P2hi.lower()) and _hi(other.P3hi) <= float(self.P3hi.lower())
                and all(self.iv[i][0] <= other.iv[i][0] and other.iv[i][1] <= self.iv[i][1]
                        for i in self.vars))

    def enclose(self, vals):
        """``vals[0] + sum_i vals_i [-r_i, r_i] + sum_(i<=i') c |vals_(ii')| r_i r_i'``: the
        second-order Taylor enclosure over the box from the polynomials' values (same order)."""
        nv = len(self.vars)
        tot = vals[0]
        for a, i in enumerate(self.vars):
            tot += vals[1 + a] * _ball(self.rad[i])
        e = arb(0)
        for (c, _), v in zip(self.pairs, vals[1 + nv:]):
            e += c * v.abs_upper()
        return tot + _aball(e)          # no float: the values are ~ Y^j / j!, below 1e-300 at large k

    def all_polys(self):
        return self.polys + [p for _, p in self.pairs]

    def all_arb_polys(self):
        """:meth:`all_polys` as ``arb_poly`` (converted once per box, reused by every leaf)."""
        if not hasattr(self, "_arb_polys"):
            self._arb_polys = [arb_poly(P) for P in self.all_polys()]
        return self._arb_polys


_FACT = {}


def _fact(k):
    """``[0!, 1!, ..., k!]`` as arbs (exact), cached."""
    if k not in _FACT:
        _FACT[k] = [arb(math.factorial(j)) for j in range(k + 1)]
    return _FACT[k]


class _Series:
    """``F(Y) = kappa [t^k] E_H(t) e^(tY) G(t)`` (module doc) for one heavy configuration,
    enclosed over the light law's power-sum boxes.

    Every box polynomial ``P`` (:meth:`_Box.all_polys`) enters through
    ``[t^k] P(t) E_H(t) e^(tY) = sum_r P_r u_r(Y)``, ``u_r = [t^(k-r)] E_H(t) e^(tY)``: one
    product ``E_H e^(tY)`` per point and one matrix-vector product with the boxes' coefficient
    matrix (built once per box set, shared by every leaf of the light law), instead of
    ``E_H P`` for every polynomial per leaf.  Same quantity, arb throughout."""

    def __init__(self, E, kappa, k, boxes):
        self.E, self.kappa, self.k = E, kappa, k
        self.EP = arb_poly(E)
        self.boxes = boxes
        self.mat, self.offsets, self.main_row = _box_matrix(boxes, k)
        self._last = self._lastB = None

    def _coeffs(self, y: arb):
        """``B_j = [t^j] E_H(t) e^(tY)``, ``j = 0 .. k`` (cached for the last exact point: the
        root finders ask for the value and the slope at the same point)."""
        exact = y.rad() == 0
        if exact and self._lastB is not None and self._lastB[0] == float(y):
            return self._lastB[1]
        k = self.k
        ey = [arb(1)]
        for j in range(1, k + 1):
            ey.append(ey[-1] * y / j)
        B = (self.EP * arb_poly(ey)).coeffs()
        B = [B[j] if j < len(B) else arb(0) for j in range(k + 1)]
        if exact:
            self._lastB = (float(y), B)
        return B

    def _u(self, y: arb, shift: int = 0) -> arb_mat:
        """The column ``u_r = [t^(k - shift - r)] E_H(t) e^(tY)``, ``r = 0 .. k``."""
        k, B = self.k, self._coeffs(y)
        zero = arb(0)
        return arb_mat([[B[k - shift - r] if k - shift - r >= 0 else zero] for r in range(k + 1)])

    def _values(self, y: arb):
        exact = y.rad() == 0
        if exact and self._last is not None and self._last[0] == float(y):
            return self._last[1]
        col = self.mat * self._u(y)
        vals = [col[i, 0] for i in range(col.nrows())]
        if exact:
            self._last = (float(y), vals)
        return vals

    def value(self, y: arb) -> arb:
        """A ball containing ``F(y, p)`` for every ``p`` in the union of the boxes."""
        vals = self._values(y)
        out = None
        for box, (a, b) in zip(self.boxes, self.offsets):
            v = box.enclose(vals[a:b])
            out = v if out is None else out.union(v)
        return self.kappa * out

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

    root = _Threshold.root


def _box_matrix(boxes, k):
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


class _Boxes(list):
    """The series boxes of one light law (a list; carries the cached coefficient matrix)."""


# ------------------------------------------------------------------ float guesses
# Floats only *choose* points and skip checks that cannot pass (module doc, "Guesses in
# floats"); every bound that enters the result is an arb evaluation.

_LN2 = math.log(2.0)
_LGAM = {}

#: Newton guesses and check screens in floats (:class:`_SeriesFloat`); False: the arb root finders
GUESS_FLOATS = True

#: a float guess may skip an arb check only when it misses the threshold by this much
#: (relative; the float images are accurate to ~1e-12 relative)
GUESS_MARGIN = 1e-6


#: the Bonferroni ``Lo`` checks of the node decisions screened by their own float image
#: (:class:`_LoScreen`), not only by ``Up0`` (:class:`_PlainScreen`)
LO_SCREEN = True

#: with ``alpha = 0`` (the series walk) the node decisions' checks as polynomials
#: (:class:`_NodePoly`), without float screens
NODE_POLY = True


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


def _log_coeffs(E) -> np.ndarray:
    """``log E_i`` of nonnegative arb coefficients (``-inf`` at 0; floats, guesses only)."""
    mid = np.array([float(c) for c in E])
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(mid > 0, np.log(np.abs(mid)), -math.inf)
    # outside the double range as floats (0 or inf): the log from the exponent
    for i in np.nonzero((mid == 0) | ~np.isfinite(mid) | (np.abs(mid) < 1e-300))[0]:
        sg, lg = _flog(E[i])
        out[i] = lg if sg > 0 else -math.inf
    return out


def _plain_log(logE: np.ndarray, lkappa: float, k: int, y: float):
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


def _log_newton(f, lthr: float, y0: float, iters: int = 60) -> float:
    """``y`` with ``log F(y) ~ lthr`` by Newton's method in ``log y`` (``f(y) = (log F,
    d log F / d log y)``, ``F`` nondecreasing; a float guess only)."""
    t = math.log(max(y0, 1e-300))
    for _ in range(iters):
        lv, sl = f(math.exp(t))
        if not math.isfinite(lv):
            step = 1.0
        else:
            step = -(lv - lthr) / max(sl, 1e-3)
        step = max(-2.0, min(2.0, step))
        t += step
        if abs(step) < 1e-14:
            break
    return math.exp(t)


def _box_floats(boxes, k, y0):
    """Float image of the boxes' coefficient matrix (:func:`_box_matrix`) for guesses:
    entries ``P_r s^r`` with ``s = k / y0`` (the scale that keeps ``(sY)^j / j!`` and the
    products near ``j = k`` inside the double range at large ``k``), divided by a common
    ``e^shift``; the enclosure's weights per row; cached on the box list."""
    cache = getattr(boxes, "_kf_float", None)
    if cache is not None and cache[0] == k:
        return cache[1]
    mat, offsets, _ = _box_matrix(boxes, k)
    s = k / y0 if y0 > 0 else 1.0
    ls = math.log(s)
    nr, nc = mat.nrows(), k + 1
    ents = mat.entries()
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
    wts = []
    for box, (a, b) in zip(boxes, offsets):
        w = [0.0] + [_hi(box.rad[i]) for i in box.vars] + [_hi(c) for c, _ in box.pairs]
        wts.append(np.array(w[1:]))
    out = (s, shift, Mf, Rf, offsets, wts)
    if hasattr(boxes, "__dict__"):
        boxes._kf_float = (k, out)
    return out


class _PlainScreen:
    """The plain bound ``Up0(x) = kappa sum_m E_(k-m) x^m / m!`` in floats, to skip arb checks
    that cannot pass: ``Lo(y) <= Up0(y + alpha P2hi)`` (Bonferroni: ``m! e_m <= x^m``; the
    shifted ``x = y + alpha p_2``), so ``Lo > thr`` needs ``Up0 > thr``; the upper checks
    evaluate ``Up0`` itself.  A float off by less than ``GUESS_MARGIN`` cannot flip a skip."""

    def __init__(self, logE, lkappa, k, lthr):
        self.logE, self.lk, self.k, self.lthr = logE, lkappa, k, lthr

    def below(self, x: float) -> bool:
        """``Up0(x)`` surely below the threshold (so ``Lo(.) > thr`` fails there)."""
        return _plain_log(self.logE, self.lk, self.k, x)[0] < self.lthr - GUESS_MARGIN

    def above(self, x: float) -> bool:
        """``Up0(x)`` surely above the threshold (so ``Up0(x) < thr`` fails)."""
        return _plain_log(self.logE, self.lk, self.k, x)[0] > self.lthr + GUESS_MARGIN


class _LoScreen:
    """The Bonferroni ``Lo`` of :class:`_Threshold` in floats, to skip its arb checks
    ``Lo(y) > thr`` that cannot pass (:meth:`_Run.decide`, :meth:`_Run.side_bounds`): at large
    ``k`` ``Lo`` lies far below :class:`_PlainScreen`'s ``Up0`` (its ``C(m, 2) p_2 x^(m-2)`` term
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
        return self.log_lo(y) < self.lthr - GUESS_MARGIN


class _NodePoly:
    """The node decisions' arb checks as polynomials in the light level ``y`` (``alpha = 0``,
    the series walk): with ``A_m = E_(k-m) / m!`` (``E`` the heavy polynomial),

        Up0(y) = kappa sum_m A_m y^m,
        Lo(y) >= kappa sum_(m <= m*) A_m (y^m - C(m, 2) P2hi y^(m-2))

    for every ``p_1 >= y`` and ``p_2 <= P2hi`` and any ``m*``: Bonferroni's
    ``m! e_m >= x^m - C(m, 2) p_2 x^(m-2)`` (module doc) and ``e_m >= 0``, each included term is
    at most ``max(0, x^(m-2) (x^2 - C(m, 2) p_2))``, which is nondecreasing in ``x`` and
    nonincreasing in ``p_2`` (a term below 0 is at most 0).  ``m*`` (the last ``m`` with
    ``C(m, 2) P2hi < y^2``, where the terms turn negative) is chosen in floats: any choice is
    valid.  Two polynomial evaluations in arb instead of :class:`_Threshold`'s mean-value form
    per ``m`` (cheaper than the float screens, which are not used on this path)."""

    def __init__(self, E, kappa, k):
        fact = _fact(k)
        self.A = [E[k - m] / fact[m] for m in range(k + 1)]
        self.kappa, self.k = kappa, k
        self._B, self._up = [], None

    def lo(self, y: float, P2hi: arb) -> arb:
        p, yy = _hi(P2hi), y * y
        ms = 1
        while ms < self.k and (ms + 1) * ms / 2 * p < yy:
            ms += 1
        c2 = _threshold_consts(self.k)[0]
        while len(self._B) < ms - 1:
            m = len(self._B) + 2
            self._B.append(self.A[m] * c2[m])
        Y = arb(y)
        v = arb_poly(self.A[:ms + 1])(Y)
        if ms >= 2:
            v -= P2hi * arb_poly(self._B[:ms - 1])(Y)
        return self.kappa * v

    def up0(self, y: float) -> arb:
        if self._up is None:
            self._up = arb_poly(self.A)
        return self.kappa * self._up(arb(y))


class _NoScreen:
    def below(self, x):
        return False

    def above(self, x):
        return False


_NO_SCREEN = _NoScreen()


class _SeriesFloat:
    """Float image of :meth:`_Series.value`'s two ends (the boxes' Taylor forms at double
    precision, scaled by ``t = u s`` so that nothing over- or underflows at ``k`` = 200):
    Newton guesses for the certified points and screens that skip arb checks which cannot
    pass.  Never enters a bound."""

    def __init__(self, series: "_Series", y0: float):
        k = self.k = series.k
        self.s, shM, self.Mf, self.Rf, self.offsets, self.wts = _box_floats(series.boxes, k, y0)
        le = _log_coeffs(series.E) + np.arange(k + 1) * math.log(self.s)
        shE = float(le.max())
        self.e = np.exp(le - shE)
        self.lk = float(series.kappa.log().mid()) - k * math.log(self.s) + shE + shM
        self.lgam = _lgam(k)
        self.j = np.arange(k + 1)

    def ends(self, y: float):
        """``((log lo, dlog lo), (log up, dlog up))``: ``log`` of the enclosure's ends at ``y``
        (``-inf`` where not positive) and their slopes in ``log y``."""
        k, s = self.k, self.s
        lg = self.j * math.log(s * y) - self.lgam
        shg = float(lg.max())
        B = np.convolve(self.e, np.exp(lg - shg))[:k + 1]
        U = np.zeros((k + 1, 2))
        U[:, 0] = B[::-1]
        U[:k, 1] = B[k - 1::-1]
        V = self.Mf @ U
        Rr = self.Rf @ U[:, 0]            # the entries' own radii (the Hessian rows' balls)
        best_lo = best_up = None
        for (a, b), w in zip(self.offsets, self.wts):
            v, dv, rr = V[a:b, 0], V[a:b, 1], Rr[a:b]
            r = w @ (np.abs(v[1:]) + rr[1:]) + rr[0]
            dr = w @ (np.sign(v[1:]) * dv[1:])
            lo, dlo, up, dup = v[0] - r, dv[0] - dr, v[0] + r, dv[0] + dr
            if best_lo is None or lo < best_lo[0]:
                best_lo = (lo, dlo)
            if best_up is None or up > best_up[0]:
                best_up = (up, dup)
        sc = self.lk + shg
        out = []
        for v, dv in (best_lo, best_up):
            if v > 0:
                out.append((sc + math.log(v), y * s * dv / v))
            else:
                out.append((-math.inf, 1.0))
        return out

    def root(self, which: int, lthr: float, y0: float) -> float:
        """``y`` with the lower (``which`` 0) or upper (1) end near the threshold (a guess)."""
        return _log_newton(lambda y: self.ends(y)[which], lthr, y0)


class _FloatGuesses:
    """A series leaf's guesses from :class:`_SeriesFloat`: Newton roots of the float ends, and
    screens: ``may_pass_*`` is False only where the float image misses the threshold by
    ``GUESS_MARGIN`` (the arb check would fail; skipping it keeps a bound at 0 or 1)."""

    def __init__(self, th, y0: float, thr, ymin: float):
        self.fl, self.y0 = _SeriesFloat(th, y0), y0
        self.lthr = float(thr.log().mid())
        self.cache = {ymin: self.fl.ends(ymin)}

    def _ends(self, y):
        if y not in self.cache:
            self.cache[y] = self.fl.ends(y)
        return self.cache[y]

    def may_pass_lo(self, y) -> bool:
        return self._ends(y)[0][0] > self.lthr - GUESS_MARGIN

    def may_pass_up(self, y) -> bool:
        return self._ends(y)[1][0] < self.lthr + GUESS_MARGIN

    def clears_lo(self, y) -> bool:
        """The float lower end above the threshold by ``GUESS_CUSHION`` (the arb check will
        likely pass; only picks which steps are checked)."""
        return self._ends(y)[0][0] > self.lthr + GUESS_CUSHION

    def clears_up(self, y) -> bool:
        return self._ends(y)[1][0] < self.lthr - GUESS_CUSHION

    def root_lo(self) -> float:
        return self.fl.root(0, self.lthr, self.y0)

    def root_up(self) -> float:
        return self.fl.root(1, self.lthr, self.y0)


class _ArbGuesses:
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


#: relative steps from a Newton guess to a certified threshold point (series)
_STEPS = (1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3)
#: steps below this are checked in arb only where the float image clears the threshold by
#: ``GUESS_CUSHION`` in ``log R`` (the float ends match arb's to ~1e-11 at ``k = 16``): one arb
#: evaluation per side instead of two or three; from it on every step is checked
_STEP_ALWAYS = 1e-5
GUESS_CUSHION = 1e-9


def _monotone_pieces(box: _Box, ylo: float, yhi: float = math.inf) -> bool:
    """``D_j(Y, p) = [t^j] e^(tY) G_p(t) >= 0`` for ``j < k``, every ``Y >= ylo`` (``yhi`` is
    not needed) and ``p`` in the box; then ``dF/dY = kappa sum_m e_(k-m)(H) D_(m-1) >= 0`` for
    every heavy configuration.

    One point suffices: ``dD_j/dY = D_(j-1)`` and ``D_0 = G_p(0) = 1``, so by induction on ``j``
    ``D_j(ylo, p) >= 0`` for every ``j < k`` makes each ``D_j`` nondecreasing, hence ``>= 0``,
    on ``[ylo, oo)``.  The values at the point ``Y = ylo`` are enclosed over the box by its
    Taylor form (:meth:`_Box.enclose`)."""
    k = box.k
    if k < 2:
        return True
    polys = box.all_polys()
    Y = arb(ylo)
    EY = [arb(1)]
    for j in range(1, k + 1):
        EY.append(EY[-1] * Y / j)
    prods = [_mul(EY, P, k) for P in polys]
    return all(box.enclose([p[j] for p in prods]) > 0 for j in range(k))


class _NotMonotone(PrecisionError):
    """The series enclosure's monotonicity in ``Y`` could not be certified (module doc)."""


class _Run:
    """One certified walk: ``P[R > lam]`` (``upper``) or ``P[R < 1/lam]`` (not ``upper``) under
    the law with the changed user (``changed``: ``k(N - 1)`` null outputs and ``k`` of law
    ``pi1``) or the null law (all ``kN`` null).  By default both follow the pair's direction
    (forward: changed, upper; reverse: null, lower: :func:`kfourier_eta`); the other two
    combinations are the second etas of :func:`kfourier_delta`.

    The law enters only through the counts ``n_users``, ``m_users`` (every node and light law
    carries its own null and changed-user counts), the side only through the threshold ``thr``
    and the conversion of the bounds of ``P[R > thr]`` (:meth:`add_up_exact`,
    :meth:`add_dn_exact`, :meth:`flush_bin`).  The shortcuts hold for every combination: the
    node decisions and :meth:`bound_group` bound ``P[R > thr | node]`` by Chernoff bounds of the
    node's own light / rest laws (any counts ``n``, ``m``) and by couplings of the outputs' levels
    (``e_k`` nondecreasing in every weight, whatever the law); the series' monotonicity in ``Y``
    is a property of ``R`` as a function; the lower side is ``1 - P[R >= thr]``, from the same
    bounds with lower and upper exchanged."""

    def __init__(self, red, q: Fraction, lam, eps, tol: float, prec: int, *, max_nodes: int,
                 alpha: float = 0.0, pilot: bool = False, changed: bool | None = None,
                 upper: bool | None = None, extra_light: int | None = None):
        self.red, self.tol, self.prec, self.max_nodes = red, tol, prec, max_nodes
        self.changed = red.forward if changed is None else bool(changed)
        self.upper = red.forward if upper is None else bool(upper)
        N, k, d = red.N, red.k, red.d
        self.k = k
        mech = Mechanism(d, q)
        M = k * N
        self.M = M
        self.n_users = k * (N - 1) if self.changed else k * N
        self.m_users = k if self.changed else 0
        plan = split_plan(mech, M)
        self.plan = plan
        self.light, self.heavy = list(plan.light), list(plan.heavy)
        # the lowest heavy level(s) back to the light law where many heavy levels remain:
        # their counts are Poisson-like with a sizeable mean, so enumerating them spreads the
        # mass over many small nodes, while their weights are small enough for the bracket
        if extra_light is None:
            extra_light = EXTRA_LIGHT if k < EXTRA_LIGHT_MAX_K else 0
        self.extra_light = extra_light
        for _ in range(extra_light):
            if len(self.heavy) >= 6:
                self.light.append(self.heavy.pop())
        ctx.prec = prec
        self.pi0 = [_arb(x) for x in mech.pi0]
        self.pi1 = [_arb(x) for x in mech.pi1]
        self.w = [_arb(x / M) for x in mech.c]
        self.wl = [self.w[l] for l in self.light]
        self.w2 = [x * x for x in self.wl]
        self.wmax = self.wl[-1]
        t0 = sum((self.pi0[l] for l in self.light), arb(0))
        t1 = sum((self.pi1[l] for l in self.light), arb(0))
        self.pl0 = [self.pi0[l] / t0 for l in self.light]
        self.pl1 = [self.pi1[l] / t1 for l in self.light]
        self.cum0, self.cum1 = {}, {}
        r0 = r1 = arb(0)
        for l in range(d + 1):
            r0 += self.pi0[l]
            r1 += self.pi1[l]
            self.cum0[l], self.cum1[l] = r0, r1
        if lam is not None:
            L_ = _arb(Fraction(lam))
        else:
            L_ = _arb(Fraction(eps)).exp()
        self.thr = L_ if self.upper else 1 / L_
        # y = p_1 - alpha p_2 with alpha = (k - 1) / (2 E p_1): the p_2 term of k! e_k
        # cancels to first order (module doc), so the bracket's width in p_2 shrinks
        xbar = self.n_users * float(sum((p * x for p, x in zip(self.pl0, self.wl)), arb(0)))
        self.pilot, self.pilot_num, self.pilot_den = pilot, 0.0, 0.0
        self.series = ENCLOSURE == "series" and not pilot
        self.w3 = [x * x * x for x in self.wl]
        self.regions = []
        self.b = 0                              # the current bin of tau (series)
        fine = k < FINE_MAX_K
        self.tau_bin = TAU_BIN if fine else TAU_BIN_LARGE_K
        self.series_split = SERIES_SPLIT if fine else SERIES_SPLIT_LARGE_K
        self.tau_refine = TAU_REFINE and fine
        if self.series:
            # Y = sum log(1 + tau w) / tau, tau = 2 alpha (module doc), tau w_max <= 1/2;
            # bins tau_b = tau_0 (1 + TAU_BIN)^b, each leaf in the bin nearest its own tau
            self.alpha = arb(0)
            self.tau_max = 0.5 / float(self.wmax.upper())
            self.tau0 = min(2 * alpha, self.tau_max)
            self.bins = {}
            self.add_bin(0)
        else:
            # any alpha >= 0 with alpha w_max < 1 is valid; a caller's is kept below 1 / (2 w_max)
            self.alpha = arb(min(alpha, 0.5 / float(self.wmax.upper())))
            self.bins = {0: (arb(0), [x - self.alpha * x * x for x in self.wl], arb(0))}
        self.kappa = arb(M) ** k / arb(comb(M, k))
        self.n_slack = min(self.n_users // 2, 10_000)
        x = N_GRID_REL * math.sqrt(self.n_users)
        self.n_grid = 2 ** int(math.floor(math.log2(x))) if x >= 2 and self.n_users >= N_GRID_FROM else 1
        self.leaf_tol = tol * LEAF_FRACTION
        # an undecided child of mass below this is dropped: tol, tol * PENULT_FRACTION for the
        # children of the second-to-last split (they are split once more, into leaves), and
        # leaf_tol at the last split
        nh = len(self.heavy)
        pf = PENULT_FRACTION if k < PENULT_FROM_K else PENULT_FRACTION_LARGE_K
        self.drop_below = [tol if i + 1 < nh - 1 else tol * pf if i + 1 == nh - 1 else self.leaf_tol
                           for i in range(nh)]
        self.eps_int = tol / 4
        self.tol_f = tol * TOL_FAIL
        self.margin = [0, 0]                   # ensure_monotone: margin checks passed, failed
        self.laws = {}
        self.nodes = 0
        self.dropped = arb(0)
        self.drop_stats = {}                   # heavy index -> [undecided children dropped, their mass]
        self.fail = arb(0)
        self.hi = arb(0)
        self.lo = arb(0)
        self.pend = {}                         # bin -> (pending up items, pending dn items)
        self.fourier = 0
        self.sg_base = plan.sigma_light
        self.decay = {}
        self.gtail = arb(0.5) * (arb(K_SMOOTH) / arb(2).sqrt()).erfc()
        self._lkappa = self._lthr = None
        self.leaf_kids = False                 # bound_group: the children are leaves
        self.hull_items = 0                    # children bounded by hull_group

    # ----------------------------------------------------------------- light laws
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
            beta = arb(g * BETA_STEP) * tau * tau / 3
            wy = [(1 + tau * x).log() / tau + beta * x ** 3 if tau > 0 else x for x in self.wl]
            self.bins[b] = (tau, wy, beta)

    def leaf_bin(self, E, x0) -> int:
        """The bin of the leaf's own ``tau = 2 alpha`` (``pilot_leaf``'s first-order
        cancelling value at its threshold point; floats, it only chooses the statistic)."""
        if self.tau0 <= 0 or self.tau_bin <= 0:
            return 0
        th = _Threshold(E, self.kappa, self.k, arb(0), arb(0), arb(0))
        try:
            if GUESS_FLOATS:
                scr = self._screen(E)
                x = _log_newton(lambda y: _plain_log(scr.logE, scr.lk, self.k, y), scr.lthr, x0)
            else:
                x = th.root(th.up, self.thr, x0)
            a = _alpha_at(th, self.k, x)
        except (ValueError, OverflowError, ZeroDivisionError):
            return 0
        if not (a and a > 0 and math.isfinite(a)):
            return 0
        tau = min(2 * a, self.tau_max)
        b = round(math.log(tau / self.tau0) / math.log(1 + self.tau_bin))
        b = max(-200, min(b, 200))
        while self.tau0 * (1 + self.tau_bin) ** b > self.tau_max:
            b -= 1
        self.add_bin(b)
        return b

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
            xstar = math.sqrt(comb(self.k, 2) * _hi(P2hi)) * (1 + 1e-9)
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
        below, fb = self.below_levels(n, m, facs) if P3_BELOW else (None, arb(0))
        tau, beta, built = self.tau, self.beta, []

        def boxes():
            # built on first use (a leaf), not for the decisions, which need only the levels
            if not built:
                built.append(_Boxes(self._make_boxes(k, tau, P2lo, P2hi, P3lo, P3hi, below=below, beta=beta)))
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

    def _make_boxes(self, k, tau, P2lo, P2hi, P3lo, P3hi, *, below=None, beta=None):
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
            a, b = arb(float(cuts[j].lower())) if j else P2lo, arb(_hi(cuts[j + 1])) if j < S - 1 else P2hi
            p3hi = arb(min(_hi(P3hi), _hi(self.wmax * b)))
            p3lo = P3lo
            if below is not None:
                B2lo, B2hi, B3lo, B3hi = below
                p3hi = arb(min(_hi(p3hi), _hi(self.wmax * (b - B2lo) + B3hi)))
                c = self.wmax * (a - B2hi) + B3lo
                if c > P3lo:
                    p3lo = arb(math.nextafter(float(c.lower()), -math.inf))
            if k >= 3 and p3hi < p3lo:
                continue                 # empty: p_3 >= P3lo > w_max p_2
            iv = {}
            nvars = SERIES_VARS if k < SERIES_VARS_FROM_K else min(SERIES_VARS, SERIES_VARS_LARGE_K)
            for i in range(2, nvars + 1 if k >= 2 else 2):
                if i == 2:
                    iv[i] = (a, b)
                elif i == 3:
                    iv[i] = (p3lo, p3hi)
                else:
                    u = min(_hi(p3hi * self.wmax ** (i - 3)), _hi(b * self.wmax ** (i - 2)))
                    v = arb(0)
                    if below is not None:
                        # p_i = w_max^(i-2) (p_2 - B_2) + B_i, 0 <= B_i <= w_2^(i-3) B_3 (w_2: the
                        # second light weight, every weight below the top at most it)
                        w2 = max(self.wl[:-1], key=_hi)
                        u = min(u, _hi(self.wmax ** (i - 2) * (b - B2lo) + w2 ** (i - 3) * B3hi))
                        c = self.wmax ** (i - 2) * (a - B2hi)
                        if c > 0:
                            v = arb(math.nextafter(float(c.lower()), -math.inf))
                    iv[i] = (v, arb(u))
            boxes.append(_Box(k, tau, iv, self.wmax, b, p3hi, beta=beta))
        return boxes

    def _y_level(self, law, sign):
        """A level of the light statistic beyond which the mass is at most ``tol_f``."""
        for z in (9, 10, 11, 12, 14, 16, 20, 24, 32, 48, 64, 128, 256, 512, 1024):
            s = law.meanf + sign * z * law.sdf
            if sign < 0 and s < 0.05 * law.meanf:
                s = 0.05 * law.meanf
            B, _ = law.chernoff(s, sign > 0)
            if _hi(B) < self.tol_f:
                return s, B
            if sign < 0 and s <= 0.05 * law.meanf:
                break
        raise CapacityError("kfourier: the light statistic is not concentrated enough for the series "
                            "enclosure")

    def ensure_monotone(self, box, ymin, ymax):
        """Certify ``dF/dY >= 0`` on ``[ymin, ymax]`` over ``box`` (module doc), once per
        region: a region certified for a slightly larger box and range serves every law in it."""
        for ylo, yhi, rb in self.regions:
            if ylo <= ymin and ymax <= yhi and rb.contains(box):
                return
        span = ymax - ymin
        ylo, yhi = max(ymin - 0.1 * span, 0.5 * ymin), math.inf    # certified for every Y >= ylo
        rb = box.enlarged(0.25)

        def check(b, depth):
            # a box where the Taylor form is too wide is cut in two along p_2 (the union
            # of the halves is the box)
            if _monotone_pieces(b, ylo, yhi):
                return True
            return depth < 4 and 2 in b.iv and all(check(h, depth + 1) for h in b.halves())
        # the margin is skipped once it has failed MARGIN_TRIES times and MARGIN_RATIO times as
        # often as it passed in this walk (small q: each failed try costs a chain of halvings;
        # at q = 0.30, k = 16 it failed 1861 times of 2052, ~20 % of the walk's CPU)
        pas, fal = self.margin
        skip = fal >= MARGIN_TRIES and fal > MARGIN_RATIO * pas
        if skip or not check(rb, 0):
            if not skip:
                self.margin[1] += 1
            # the margin below ymin (kept so that neighbouring laws reuse the region) may be
            # what fails: the point ymin itself suffices for this law
            ylo, rb = ymin, box
            if not check(rb, 0):
                raise _NotMonotone("kfourier: cannot certify that R increases with the light statistic")
        else:
            self.margin[0] += 1
        self.regions.append((ylo, yhi, rb))

    def _chernoff_level(self, law2, sign):
        """A level of ``p_2`` beyond which (``sign`` +1: above, -1: below) the mass
        is at most ``tol_f``, and that bound (arb)."""
        if self.k < 2:
            return arb(0), arb(0)
        for z in (4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 9, 10, 11, 12, 14, 16, 20, 24, 32, 48, 64, 128, 256,
                  512, 1024):
            s = law2.meanf + sign * z * law2.sdf
            if s <= 0:
                break
            B, _ = law2.chernoff(s, sign > 0)
            if _hi(B) < self.tol_f:
                return arb(s), B
        if sign < 0:
            # a spread law: fractions of the mean (any Chernoff level is valid), else 0
            for f in (0.7, 0.5, 0.35, 0.25, 0.15, 0.1, 0.05, 0.02, 0.01):
                s = law2.meanf * f
                B, _ = law2.chernoff(s, False)
                if _hi(B) < self.tol_f:
                    return arb(s), B
            return arb(0), arb(0)
        raise PrecisionError("cannot bound the light sum of squares; ask for fewer digits")

    def smoothing(self, n0):
        """``(a, sg, U1, T1, T2)`` for the light laws with at least ``n0`` null outputs."""
        law = self.law(n0, 0)[0]
        U1 = (math.sqrt(2 * math.log(1 / self.eps_int) + 10) + 4) / law.sdf
        aa = max(self.sg_base * self.tol, self.sg_base * 1e-14)
        n_min = max(2, self.n_users - self.n_slack)
        while True:
            sg = aa / K_SMOOTH
            key = (aa, U1, self.b)
            try:
                if key not in self.decay:
                    self.decay[key] = law.decay_bands(n_min, U1, sg, self.eps_int)
                T1, T2 = self.decay[key]
                return aa, sg, U1, T1, T2
            except PrecisionError:
                if aa > law.sdf * 1e-2:
                    raise CapacityError("kfourier: cannot certify the light law's smoothness at any "
                                        "useful resolution; use the k-copies tree") from None
                aa *= 100

    # ----------------------------------------------------------------- walk
    def run(self):
        stack = [(0, self.n_users, self.m_users, arb_poly([1]), arb(1))]
        k = self.k
        while stack:
            idx, n_rem, m_rem, poly, P = stack.pop()
            self.nodes += 1
            if self.nodes > self.max_nodes:
                raise CapacityError(f"kfourier: the heavy enumeration exceeds {self.max_nodes} nodes; "
                                    "ask for fewer digits")
            if n_rem < self.n_users - self.n_slack:
                raise CapacityError("kfourier: the heavy levels hold too many outputs; use the tree")
            if idx == len(self.heavy):
                self.leaf(n_rem, m_rem, poly, P)
                continue
            l = self.heavy[idx]
            nxt = self.heavy[idx + 1] if idx + 1 < len(self.heavy) else self.light[-1]
            th0 = self.pi0[l] / self.cum0[l]
            vals0, tail0 = pmf_window(n_rem, th0, float(th0), self.tol * 1e-3)
            self.dropped += P * arb(tail0)
            if m_rem > 0:
                th1 = self.pi1[l] / self.cum1[l]
                vals1, tail1 = pmf_window(m_rem, th1, float(th1), self.tol * 1e-3)
                self.dropped += P * arb(tail1)
            else:
                vals1 = [(0, arb(1))]
            wl = self.w[l]
            runs = {}                  # B -> runs of consecutive dropped children (ascending A)
            for A, pA in vals0:
                PA = P * pA
                if _hi(PA) < self.tol * 1e-6:
                    self.dropped += PA
                    continue
                for B, pB in vals1:
                    Pk = PA * pB
                    if _hi(Pk) < self.tol * 1e-6:
                        self.dropped += Pk
                        continue
                    c = A + B
                    npoly = poly
                    if c:
                        npoly = poly * _binom_poly(wl, c, k)
                        cf = npoly.coeffs()[:k + 1]
                        npoly = arb_poly(cf)
                    # every child is first offered to the cheap decision; only an
                    # undecided one of mass >= tol is expanded (else dropped)
                    rb = runs.setdefault(B, [[]])
                    if self.decide(nxt, n_rem - A, m_rem - B, npoly, Pk):
                        if rb[-1]:
                            rb.append([])
                        continue
                    if _hi(Pk) < self.drop_below[idx]:
                        st = self.drop_stats.setdefault(idx, [0, 0.0])
                        st[0] += 1
                        st[1] += float(Pk)
                        if PARTIAL_DROP:
                            rb[-1].append((n_rem - A, m_rem - B, npoly, Pk))
                        else:
                            self.dropped += Pk
                        continue
                    if rb[-1]:
                        rb.append([])
                    stack.append((idx + 1, n_rem - A, m_rem - B, npoly, Pk))
            self.leaf_kids = idx + 1 == len(self.heavy)
            for rb in runs.values():
                for items in rb:
                    if items:
                        self.bound_group(nxt, items, 0)
        self.flush()

    def bound_group(self, l, items, depth):
        """Children of one node too light to expand (same changed-user count, ascending count
        ``A`` at the split level): ``f(A) = P[R > thr | A]`` is nondecreasing in ``A`` (couple
        the ``A + 1``-th output at the split level with one below it: every weight is at most
        the split level's, and ``e_k`` is nondecreasing in every weight), so the group's mass
        ``D`` contributes ``D f(first)`` and ``D f(last)`` at most: a lower bound of ``f`` at
        its first child and an upper bound at its last (:meth:`side_bounds`), each child's
        mass else entering the width whole.  A group whose bounds leave more than
        ``GROUP_SPLIT`` of its mass open is cut in halves (``GROUP_DEPTH`` times)."""
        D = sum((it[3] for it in items), arb(0))
        n, m, poly, _ = items[0]
        lo = self.side_bounds(l, n, m, poly, lower=True)
        n, m, poly, _ = items[-1]
        up = self.side_bounds(l, n, m, poly, lower=False)
        f_lo = 1 - _hi(lo[0]) if lo else 0.0
        f_up = _hi(up) if up is not None else 1.0
        if (GROUP_HULL and self.series and self.leaf_kids
                and _hi(D) * (f_up - f_lo) > self.tol * HULL_OPEN):
            self.hull_group(items)
            return
        if len(items) > 1 and depth < GROUP_DEPTH and f_up - f_lo > GROUP_SPLIT:
            h = len(items) // 2
            self.bound_group(l, items[:h], depth + 1)
            self.bound_group(l, items[h:], depth + 1)
            return
        if lo:
            self.fail += D * lo[1]
            self.add_dn_exact(D, 1 - arb(_hi(lo[0])))
        else:
            self.add_dn_exact(D, arb(0))
        self.add_up_exact(D, arb(_hi(up)) if up is not None else arb(1))

    def hull_group(self, items):
        """A group of the last split's children (leaves; ascending count ``A`` at the split
        level, so descending null count ``n``, one changed-user count ``m``) bounded item by
        item with one shared light law pair and one box set (module doc, "hull"): the light
        statistic ``Y``, ``p_2``, ``p_3`` of ``n`` outputs lie between those of ``n_lo`` and
        ``n_hi`` outputs (the group's last and first counts) pathwise, so the box from
        ``n_lo``'s lower and ``n_hi``'s upper Chernoff levels fails with mass at most the two
        laws' failure bounds, and ``P[Y_(n_lo) > s] <= P[Y_n > s] <= P[Y_(n_hi) > s]``."""
        k = self.k
        n_hi, m = items[0][0], items[0][1]
        n_lo = items[-1][0]

        def coeffs(poly):
            cf = poly.coeffs()
            return [cf[i] if i < len(cf) else arb(0) for i in range(k + 1)]
        ib = max(range(len(items)), key=lambda i: _hi(items[i][3]))
        self.b = self.leaf_bin(coeffs(items[ib][2]), self.law(n_hi, m)[0].meanf)
        try:
            law_hi, _, P2hi, (_, _, ymax, _), f_hi = self.law(n_hi, m)
            law_lo, P2lo, _, (_, ymin, _, _), f_lo = self.law(n_lo, m)
            P3lo = self.laws[("p3", n_lo, m)][0]
            P3hi = self.laws[("p3", n_hi, m)][1]
            below = None
            if P3_BELOW:
                # B_2, B_3 of n outputs between n_lo's and n_hi's pathwise, like p_2, p_3
                (b2lo, _, b3lo, _), _ = self.laws[("below", n_lo, m)]
                (_, b2hi, _, b3hi), _ = self.laws[("below", n_hi, m)]
                below = (b2lo, b2hi, b3lo, b3hi)
            boxes = _Boxes(self._make_boxes(k, self.tau, P2lo, P2hi, P3lo, P3hi, below=below, beta=self.beta))
            for box in boxes:
                self.ensure_monotone(box, ymin, ymax)
            fail = f_hi + f_lo
            for n, _, poly, P in items:
                self.fail += P * fail
                self.series_points(coeffs(poly), boxes, ymin, ymax, law_hi.meanf,
                                   dn=(n_lo, m, law_lo, P), up=(n_hi, m, law_hi, P))
                self.hull_items += 1
        finally:
            self.b = 0

    def _alpha_p2(self, P2hi) -> float:
        """``alpha P2hi`` (float, upper end): ``x = y + alpha p_2 <= y + alpha P2hi``."""
        return _hi(self.alpha * P2hi) if not self.alpha.is_zero() else 0.0

    def _screen(self, E):
        """Float screens of the arb checks in :meth:`decide` and :meth:`side_bounds`
        (:class:`_PlainScreen`); off with ``GUESS_FLOATS``."""
        if not GUESS_FLOATS:
            return _NO_SCREEN
        if self._lkappa is None:
            self._lkappa = float(self.kappa.log().mid())
            self._lthr = float(self.thr.log().mid())
        return _PlainScreen(_log_coeffs(E), self._lkappa, self.k, self._lthr)

    def _lo_screen(self, scr, P2lo, P2hi):
        """The float screen of the Bonferroni ``Lo`` checks (:class:`_LoScreen`) beside ``scr``
        (the same heavy polynomial); off with ``GUESS_FLOATS`` or ``LO_SCREEN``."""
        if not (GUESS_FLOATS and LO_SCREEN) or scr is _NO_SCREEN:
            return _NO_SCREEN
        return _LoScreen(scr.logE, scr.lk, self.k, scr.lthr, P2lo=P2lo, P2hi=P2hi,
                         alpha=float(self.alpha))

    def side_bounds(self, l, n, m, poly, *, lower: bool):
        """One side of :meth:`decide` at fewer deviations (``PARTIAL_Z``, the first that
        decides): ``lower``: ``(B, fail)`` with ``P[R > thr] >= 1 - B`` up to the light law's
        failure mass ``fail`` (``Lo`` of the light sum above the threshold at ``mean - z sd``,
        ``B`` the Chernoff bound below it); else ``B`` with ``P[R > thr] <= B`` (``Up0`` of the
        rest's sum below the threshold at ``mean + z sd``); ``None`` when no ``z`` decides."""
        k, thr = self.k, self.thr
        cf = poly.coeffs()
        E = [cf[i] if i < len(cf) else arb(0) for i in range(k + 1)]
        if self.alpha.is_zero() and NODE_POLY:
            return self._side_bounds_poly(l, n, m, _NodePoly(E, self.kappa, k), lower)
        scr = self._screen(E)
        if lower:
            law, P2lo, P2hi, xstar, fail = self.law(n, m)
            th = None
            lscr = self._lo_screen(scr, P2lo, P2hi)
            for z in PARTIAL_Z:
                xz = law.meanf - z * law.sdf
                if xz > 0 and not scr.below(xz + self._alpha_p2(P2hi)) and not lscr.below(xz):
                    if th is None:
                        th = _Threshold(E, self.kappa, k, P2lo, P2hi, self.wmax, alpha=self.alpha)
                    if not th.lo(arb(xz)) > thr:
                        continue
                    return self._partial_lo(law, n, m, z, xz, fail)
            return None
        rl = self.rest_law(l, n, m)
        th0 = _Threshold(E, self.kappa, k, arb(0), arb(0), arb(0))
        for z in PARTIAL_Z:
            xz = rl.meanf + z * rl.sdf
            if not scr.above(xz) and th0.up(arb(xz)) < thr:
                return self._partial_up(rl, l, n, m, z, xz)
        return None

    def _partial_lo(self, law, n, m, z, xz, fail):
        """:meth:`side_bounds`' lower side decided at ``z`` deviations: ``(B, fail)`` with ``B``
        the (cached) Chernoff bound of ``P[light sum <= xz]``; ``None`` when ``B`` is trivial."""
        key = ("plo", n, m, z)
        if key not in self.laws:
            self.laws[key] = law.chernoff(xz, False)[0]
        B = self.laws[key]
        return (B, fail) if B < 1 else None

    def _partial_up(self, rl, l, n, m, z, xz):
        """:meth:`side_bounds`' upper side decided at ``z`` deviations: the (cached) Chernoff
        bound of ``P[rest's sum >= xz]``; ``None`` when it is trivial."""
        key = ("pup", l, n, m, z)
        if key not in self.laws:
            self.laws[key] = rl.chernoff(xz, True)[0]
        B = self.laws[key]
        return B if B < 1 else None

    def _side_bounds_poly(self, l, n, m, npoly, lower):
        """:meth:`side_bounds` with the checks of :class:`_NodePoly` (``alpha = 0``)."""
        thr = self.thr
        if lower:
            law, P2lo, P2hi, xstar, fail = self.law(n, m)
            for z in PARTIAL_Z:
                xz = law.meanf - z * law.sdf
                if xz > 0 and npoly.lo(xz, P2hi) > thr:
                    return self._partial_lo(law, n, m, z, xz, fail)
            return None
        rl = self.rest_law(l, n, m)
        for z in PARTIAL_Z:
            xz = rl.meanf + z * rl.sdf
            if npoly.up0(xz) < thr:
                return self._partial_up(rl, l, n, m, z, xz)
        return None

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

    def decide(self, l, n, m, poly, P) -> bool:
        """Decide a partial node (levels ``> l`` placed) when the rest cannot move
        ``R`` across the threshold except with mass below ``tol * 1e-2``:

        * surely ``Lo > thr``: every unplaced output lowered to the light law
          (stochastically smaller; ``e_k`` is nondecreasing in every weight) and
          ``Lo`` of the light sum at ``mean - 8 sd`` above the threshold;
        * surely ``Up0 < thr``: ``e_k <= sum_i e_i(H) p_1^(k-i) / (k-i)!`` with
          ``p_1`` the unplaced outputs' sum, at ``mean + 8 sd`` of its law."""
        k, thr = self.k, self.thr
        pm = _hi(P)
        cf = poly.coeffs()
        E = [cf[i] if i < len(cf) else arb(0) for i in range(k + 1)]
        law, P2lo, P2hi, xstar, fail = self.law(n, m)
        xz = law.meanf - 8 * law.sdf
        if self.alpha.is_zero() and NODE_POLY:
            # the series walk: both checks as two polynomials each (_NodePoly), no screens
            scr, npoly = _NO_SCREEN, _NodePoly(E, self.kappa, k)
            lo_ok = lambda y: npoly.lo(y, P2hi) > thr               # noqa: E731
            up_ok = lambda y: npoly.up0(y) < thr                    # noqa: E731
        else:
            scr = self._screen(E)
            lscr = self._lo_screen(scr, P2lo, P2hi)

            def lo_ok(y):
                if scr.below(y + self._alpha_p2(P2hi)) or lscr.below(y):
                    return False
                th = _Threshold(E, self.kappa, k, P2lo, P2hi, self.wmax, alpha=self.alpha)
                return th.lo(arb(y)) > thr

            def up_ok(y):
                th0 = _Threshold(E, self.kappa, k, arb(0), arb(0), arb(0))
                return th0.up(arb(y)) < thr
        if xz > 0:
            if lo_ok(xz):
                key = ("dlo", n, m)
                if key not in self.laws:
                    self.laws[key] = law.chernoff(xz, False)[0]
                B = self.laws[key]
                if pm * _hi(B) < self.tol * 1e-2:
                    Bu = arb(_hi(B))
                    self.fail += P * fail
                    self.add_dn_exact(P, 1 - Bu)
                    self.add_up_exact(P, arb(1))
                    return True
        rl = self.rest_law(l, n, m)
        xz = rl.meanf + 8 * rl.sdf
        if scr.above(xz):
            return False
        if up_ok(xz):
            key = ("dup", l, n, m)
            if key not in self.laws:
                self.laws[key] = rl.chernoff(xz, True)[0]
            B = self.laws[key]
            if pm * _hi(B) < self.tol * 1e-2:
                Bu = arb(_hi(B))
                self.add_up_exact(P, Bu)
                self.add_dn_exact(P, arb(0))
                return True
        return False

    def leaf(self, n, m, poly, P):
        k = self.k
        cf = poly.coeffs()
        E = [cf[i] if i < len(cf) else arb(0) for i in range(k + 1)]
        law, P2lo, P2hi, xstar, fail = self.law(n, m)
        if self.series:
            return self.series_leaf(n, m, E, P)
        th = _Threshold(E, self.kappa, k, P2lo, P2hi, self.wmax, alpha=self.alpha)
        thr = self.thr
        self.fail += P * fail
        if self.pilot:
            self.pilot_leaf(th, law, P)
            return
        # s_dn: Lo(s_dn) > thr
        if th.lo(arb(0)) > thr:
            s_dn = None                      # P[x > s_dn] = 1
        else:
            x = th.root(th.lo_end, thr, law.meanf)
            s_dn = None
            for dlt in (1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3):
                c = arb(x * (1 + dlt))
                if th.lo(c) > thr:
                    s_dn = c
                    break
            if s_dn is None:
                raise PrecisionError("kfourier: cannot certify a threshold point (Lo)")
        # s_up: Up(s_up) < thr, s_up >= x*
        xs = arb(xstar)
        if not th.up(xs) < thr:
            s_up = None                      # P[x >= s_up] <= 1 only
        else:
            x = th.root(th.up_end, thr, law.meanf)
            s_up = xs
            for dlt in (1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3):
                c = arb(x * (1 - dlt))
                if c > xs and th.up(c) < thr:
                    s_up = c
                    break
        # dn side: need a lower bound of P[x > s_dn]; up side: an upper bound of P[x >= s_up]
        if s_dn is None:
            self.add_dn_exact(P, arb(1))
        else:
            self.tail(n, m, law, s_dn, P, "dn")
        if s_up is None:
            self.add_up_exact(P, arb(1))
        else:
            self.tail(n, m, law, s_up, P, "up")

    def series_leaf(self, n, m, E, P):
        """A leaf under the series enclosure (module doc): ``F(Y) = R`` increasing in ``Y`` on
        ``[Ymin, Ymax]`` for every ``p`` in the box; points ``s_dn``, ``s_up`` certified in arb."""
        self.b = self.leaf_bin(E, self.law(n, m)[0].meanf)
        try:
            if self.tau_refine:
                self.b = self.refine_bin(n, m, E)
            self.series_bin_leaf(n, m, E, P)
        finally:
            self.b = 0

    def refine_bin(self, n, m, E) -> int:
        """The bin nearest the leaf's first-order cancelling ``tau`` from the series itself
        (module doc, "The choice of tau"): ``tau* = [t^(k-2)] / [t^(k-1)]`` of
        ``E_H(t) e^(tY) G0(t)`` (the middle box's ``G0``) at the float root of the current bin's
        lower end.  ``e^(tY) G(t) = prod (1 + t w_j)`` whatever ``tau``, so ``tau*`` is the zero of
        ``dF/dp_2 = kappa [t^k] E_H e^(tY) G d_2``, ``d_2 = -(t^2 - tau t) / 2``, at that point.
        A float choice only (any ``tau`` gives a valid enclosure); the current bin where it
        fails."""
        b0 = self.b
        if self.tau0 <= 0 or self.tau_bin <= 0 or self.k < 3:
            return b0
        try:
            law, _, _, (boxes, ymin, _, _), _ = self.law(n, m)
            th = _Series(E, self.kappa, self.k, boxes())
            y = _SeriesFloat(th, law.meanf).root(0, float(self.thr.log().mid()), law.meanf)
            if not (math.isfinite(y) and y > 0):
                return b0
            ya = arb(y)
            c1 = (th.main_row * th._u(ya, 1))[0, 0]
            c2 = (th.main_row * th._u(ya, 2))[0, 0]
            c3 = (th.main_row * th._u(ya, 3))[0, 0]
            if not (c1 > 0 and c2 > 0):
                return b0
            tau = min(float((c2 / c1).mid()), self.tau_max)
            r3 = float((c3 / c1).mid())
        except (ValueError, OverflowError, ZeroDivisionError):
            return b0
        b = round(math.log(tau / self.tau0) / math.log(1 + self.tau_bin))
        b = max(-200, min(b, 200))
        while self.tau0 * (1 + self.tau_bin) ** b > self.tau_max:
            b -= 1
        if BETA_STEP > 0 and math.isfinite(r3):
            # d_3 = t^3 / 3 - (tau^2 / 3 + beta) t cancels at beta = (c_3 / c_1 - tau_b^2) / 3
            tb = self.tau0 * (1 + self.tau_bin) ** b
            g = round((r3 / (tb * tb) - 1) / BETA_STEP)
            g = max(-BETA_MAX, min(g, BETA_MAX))
            if g:
                b = (b, g)
        self.add_bin(b)
        return b

    def series_bin_leaf(self, n, m, E, P):
        law, _, _, (boxes, ymin, ymax, _), fail = self.law(n, m)
        boxes = boxes()
        for box in boxes:
            self.ensure_monotone(box, ymin, ymax)
        self.fail += P * fail
        self.series_points(E, boxes, ymin, ymax, law.meanf,
                           dn=(n, m, law, P), up=(n, m, law, P))

    def series_points(self, E, boxes, ymin, ymax, y0, *, dn, up):
        """The two sides of a series leaf (module doc) with heavy polynomial ``E`` over the
        power-sum ``boxes`` (certified monotone on ``[ymin, ymax]``; the caller adds the failure
        mass): ``dn = (n, m, law, P)`` takes ``P[R > thr] >= P[Y > s_dn]`` with ``Y`` of that
        law, ``up`` ``P[R > thr] <= P[Y >= s_up]``; ``None`` skips a side."""
        th = _Series(E, self.kappa, self.k, boxes)
        thr = self.thr
        a0, a1 = arb(ymin), arb(ymax)
        g = _FloatGuesses(th, y0, thr, ymin) if GUESS_FLOATS else _ArbGuesses(th, y0, thr)
        if dn is None:
            pass
        elif g.may_pass_lo(ymin) and th.lo(a0) > thr:
            self.add_dn_exact(dn[3], arb(1))      # Y <= Ymin lies in the failure event
        else:
            x = g.root_lo()
            s_dn = None
            for dlt in _STEPS:
                c = arb(x * (1 + dlt))
                if not c < a1:
                    break
                # a step the float image does not clear by GUESS_CUSHION is not checked in arb
                # (it would likely fail; skipping it costs a step of width), up to _STEP_ALWAYS
                if dlt < _STEP_ALWAYS and not g.clears_lo(float(c)):
                    continue
                if th.lo(c) > thr:
                    s_dn = c
                    break
            if s_dn is None:
                self.add_dn_exact(dn[3], arb(0))  # no certified point below Ymax: bound 0
            else:
                n, m, law, P = dn
                self.tail(n, m, law, s_dn, P, "dn")
        if up is None:
            pass
        elif not g.may_pass_up(ymin):
            self.add_up_exact(up[3], arb(1))      # (a float far above: the check cannot pass)
        elif g.may_pass_up(ymax) and th.up(a1) < thr:
            self.add_up_exact(up[3], arb(0))      # R > thr only on the failure event
        else:
            x = g.root_up()
            s_up = None
            for dlt in _STEPS:
                c = arb(x * (1 - dlt))
                if not c > a0:
                    break
                if dlt < _STEP_ALWAYS and not g.clears_up(float(c)):
                    continue
                if th.up(c) < thr:
                    s_up = c
                    break
            # no certified step above Ymin: Ymin itself, checked last (before: first, every leaf)
            if s_up is None and th.up(a0) < thr:
                s_up = a0
            n, m, law, P = up
            if s_up is None:
                self.add_up_exact(P, arb(1))
            else:
                self.tail(n, m, law, s_up, P, "up")

    def pilot_leaf(self, th, law, P):
        """Pilot run: the leaf's ``alpha = -(dR/dp_2) / (dR/dx)`` at its threshold point,
        weighted by its mass near the point (floats; it only chooses ``alpha``)."""
        try:
            x0 = law.meanf
            if GUESS_FLOATS:
                # Newton from the float root of Up0 (near Up's): fewer arb steps, the same root
                scr = self._screen(th.E)
                x0 = _log_newton(lambda y: _plain_log(scr.logE, scr.lk, self.k, y), scr.lthr, x0)
            x = th.root(th.up, self.thr, x0)
        except (ValueError, OverflowError, ZeroDivisionError):
            return
        z = (x - law.meanf) / law.sdf
        if not math.isfinite(z) or abs(z) > 8:
            return
        a = _alpha_at(th, self.k, x)
        if a is not None:
            wt = float(P) * math.exp(-z * z / 2)
            self.pilot_num += wt * a
            self.pilot_den += wt

    def add_up_exact(self, P, A):
        """``A`` bounds ``P[x >= s_up]`` from above, for a node of mass ``P``."""
        if self.upper:
            self.hi += P * A
        else:
            self.lo += P * (1 - A)

    def add_dn_exact(self, P, A):
        """``A`` bounds ``P[x > s_dn]`` from below."""
        if self.upper:
            self.lo += P * A
        else:
            self.hi += P * (1 - A)

    def tail(self, n, m, law, s: arb, P, side):
        z = (float(s) - law.meanf) / law.sdf
        pm = _hi(P)
        # a Chernoff bound ~ e^(-z^2/2) can decide only beyond this many deviations
        z_need = math.sqrt(2 * max(math.log(pm * 100 / self.tol), 0.0)) - 1.0
        if abs(z) > max(3.0, z_need):
            above = z > 3
            sf = float(s)
            B, _ = law.chernoff(sf * (1 - 1e-15) if above else sf * (1 + 1e-15), above)
            if pm * _hi(B) < self.tol * 1e-2:
                Bu = arb(_hi(B))
                if side == "up":
                    self.add_up_exact(P, Bu if above else arb(1))
                else:
                    self.add_dn_exact(P, arb(0) if above else 1 - Bu)
                return
        if self.n_grid > 1:
            # fewer distinct laws in the integral (its cost grows with them): a lower bound of
            # P[Y > s] from fewer null outputs, an upper bound of P[Y >= s] from more (module doc)
            n_min = max(2, self.n_users - self.n_slack)
            g = self.n_grid
            if side == "up":
                n = -(-n // g) * g
            elif n >= n_min:
                n = max(n // g * g, n_min)
        self.pend.setdefault(self.b, ([], []))[0 if side == "up" else 1].append((n, m, s, P))
        self.fourier += 1

    # ----------------------------------------------------------------- Fourier
    def flush(self):
        """One Gil-Pelaez integral per bin of the light statistic."""
        for b in sorted(self.pend, key=lambda b: b if isinstance(b, tuple) else (b, 0)):
            self.b = b
            self.pend_up, self.pend_dn = self.pend[b]
            self.flush_bin()
        self.b = 0

    def flush_bin(self):
        items = self.pend_up + self.pend_dn
        if not items:
            return
        n0 = min(n for n, _, _, _ in items)
        a, sg, U1, T1, T2 = self.smoothing(n0)
        aa = arb(a)
        if self.pend_up:
            W = sum((P for *_, P in self.pend_up), arb(0))
            S = self.mix([(n, m, s - aa, P) for n, m, s, P in self.pend_up], sg, U1, T1, T2, W)
            # sum P P[x >= s] <= S + W Q
            if self.upper:
                self.hi += S + W * self.gtail
            else:
                self.lo += W - S - W * self.gtail
        if self.pend_dn:
            W = sum((P for *_, P in self.pend_dn), arb(0))
            S = self.mix([(n, m, s + aa, P) for n, m, s, P in self.pend_dn], sg, U1, T1, T2, W)
            # sum P P[x > s] >= S - W Q
            if self.upper:
                self.lo += S - W * self.gtail
            else:
                self.hi += W - S + W * self.gtail

    def mix(self, items, sg, U1, T1, T2, W):
        """Certified ``sum P P[V > x]`` over ``(n, m, x, P)``, ``V = x_light(n, m) + N(0, sg^2)``:
        one Gil-Pelaez integral of the mixed characteristic function."""
        with ctx.workprec(self.prec):
            law0 = self.law(min(n for n, *_ in items), 0)[0]
            mf0 = law0.fmeans[0]
            wc0 = [x - mf0 for x in self.wy]
            mf1 = sum((p * x for p, x in zip(self.pl1, self.wy)), arb(0))
            wc1 = [x - mf1 for x in self.wy]
            groups = {}
            for n, m, x, P in items:
                law = self.law(n, m)[0]
                groups.setdefault((n, m), []).append((P, x - law.mean))
            keys = sorted(groups)
            sg2h = arb(sg) ** 2 / 2
            i = acb(0, 1)
            pl0, pl1 = self.pl0, self.pl1
            # the items of a group in clusters of width <= h: sum P e^(-izc) =
            # e^(-iz c0) sum_r mu_r (-iz)^r + (Taylor remainder, module doc)
            h = 2 * TAYLOR_RADIUS / U1
            clusters, taylor_err = {}, arb(0)
            aU1 = arb(U1)
            for key in keys:
                its = sorted(groups[key], key=lambda t: float(t[1]))
                out, j = [], 0
                while j < len(its):
                    c_start = float(its[j][1])
                    e = j
                    while e < len(its) and float(its[e][1]) - c_start <= h:
                        e += 1
                    c0f = 0.5 * (c_start + float(its[e - 1][1]))
                    c0 = arb(c0f)
                    dls = [(P, c - c0) for P, c in its[j:e]]
                    # the cluster's own order (module doc): its remainder per unit mass below
                    # TAYLOR_REM, at most TAYLOR_ORDER (a lone item's spread is a rounding ball)
                    R = _taylor_order(max(_hi(dl.abs_upper()) for _, dl in dls) * U1)
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
                        out.append((c0, mu[0], mu[0]))
                    else:
                        pp = acb_poly([m_ * (-i) ** r for r, m_ in enumerate(mu)])
                        pm = acb_poly([m_ * i ** r for r, m_ in enumerate(mu)])
                        out.append((c0, pp, pm))
                    j = e
                clusters[key] = out

            def F(z, analytic):
                e0 = [(i * z * x).exp() for x in wc0]
                f0p = sum((p * e for p, e in zip(pl0, e0)), acb(0))
                f0m = sum((p / e for p, e in zip(pl0, e0)), acb(0))
                if any(m for _, m in keys):
                    e1 = [(i * z * x).exp() for x in wc1]
                    f1p = sum((p * e for p, e in zip(pl1, e1)), acb(0))
                    f1m = sum((p / e for p, e in zip(pl1, e1)), acb(0))
                gp = gm = acb(0)
                n_last = None
                for n, m in keys:
                    # the keys ascend in n: phi_0^n from the last key's power (a few products
                    # for the difference instead of a full power per key; the same balls' product)
                    if n_last is None:
                        p0p, p0m = f0p ** n, f0m ** n
                    elif n != n_last:
                        p0p, p0m = p0p * f0p ** (n - n_last), p0m * f0m ** (n - n_last)
                    n_last = n
                    cp, cm = p0p, p0m
                    if m:
                        cp = cp * f1p ** m
                        cm = cm * f1m ** m
                    sp = sm = acb(0)
                    for c0, pp, pmn in clusters[(n, m)]:
                        h = (-i * z * c0).exp()
                        if isinstance(pp, arb):
                            sp += h * pp
                            sm += pp / h
                        else:
                            sp += h * pp(z)
                            sm += pmn(z) / h
                    gp += cp * sp
                    gm += cm * sm
                ga = (-sg2h * z * z).exp()
                return (gp - gm) * ga / (2 * i * z)

            sg2 = arb(sg) ** 2
            SD = SM3 = arb(0)
            Mmax = 1e-300
            for n, m, x, P in items:
                law = self.law(n, m)[0]
                d = law.mean - x
                vv = law.var + sg2
                m4 = 8 * (d ** 4 + 3 * vv * vv + law.k4)
                SD += P * d
                SM3 += P * m4 ** arb(0.75)
                Mmax = max(Mmax, float(m4.upper()) ** 0.25)
            Wf = max(float(W.upper()), 1e-300)
            eps_c = min(max(self.eps_int * Wf, self.tol * 1e-2 * len(items)), 1e-3 * Wf)
            d0 = min((eps_c / Wf / 10) ** (1 / 3) / Mmax, U1 / 4)
            a0 = arb(d0)
            I = acb.integral(F, a0, arb(U1), abs_tol=arb(eps_c) / 16, rel_tol=arb(2) ** -60,
                             eval_limit=2_000_000, deg_limit=200)
            I1 = (I.real + SD * a0 + arb(0, float((a0 ** 3 * SM3 / 18).upper()))
                  + arb(0, _hi(taylor_err))
                  + arb(0, float((W * T1).upper())))
            return W / 2 + I1 / arb.pi()


def _taylor_order(x: float) -> int:
    """The least ``R <= TAYLOR_ORDER`` with ``x^R / (R R!) <= TAYLOR_REM`` (``x = |delta|_max U1``
    of a cluster; :meth:`_Run.mix`); the remainder actually added is computed in arb for the
    ``R`` chosen, so any ``R >= 1`` is valid: this only picks the cheapest one."""
    if not x > 0:
        return 1
    if not TAYLOR_REM > 0:
        return TAYLOR_ORDER
    lx, lt = math.log(x), math.log(TAYLOR_REM)
    for R in range(1, TAYLOR_ORDER):
        if R * lx - math.log(R) - math.lgamma(R + 1) <= lt:
            return R
    return TAYLOR_ORDER


def _alpha_at(th, k, x):
    """``alpha = -(dR/dp_2) / (dR/dx)`` of the main term at ``x`` (floats), or None."""
    # in logs: e_(k-m)(H) x^m / m! over- or underflows a float at large k (200! > 1e308)
    if not x > 0:
        return None
    lx, logs = math.log(x), []
    for m in th.nz:
        e = th.E[k - m]
        if m >= 1 and e > 0:
            logs.append((m, float(e.log()) + m * lx - math.lgamma(m + 1)))
    if not logs:
        return None
    top = max(v for _, v in logs)
    num = den = 0.0
    for m, v in logs:
        t = math.exp(v - top)
        num += t * comb(m, 2) / (x * x)
        den += t * m / x
    return num / den if den > 0 else None


def _binom_poly(w: arb, c: int, k: int) -> arb_poly:
    """``(1 + w t)^c`` truncated at degree ``k``."""
    cf = [arb(1)]
    b = 1
    for j in range(1, min(c, k) + 1):
        b = b * (c - j + 1) // j
        cf.append(arb(b) * w ** j)
    return arb_poly(cf)


def _pilot_alpha(red, q, lam, eps, tol, prec, *, max_nodes, changed=None, upper=None) -> float:
    """``alpha`` of ``y = p_1 - alpha p_2`` from a coarse pilot walk (no integrals): the
    mass-weighted mean of every leaf's first-order cancelling ``alpha`` (module doc).
    A float, used exactly; any ``alpha`` in ``[0, 1 / w_max)`` gives a valid enclosure."""
    try:
        run = _Run(red, q, lam, eps, max(tol * 100, 1e-5), prec, max_nodes=max_nodes, pilot=True,
                   changed=changed, upper=upper)
        run.run()
    except (CapacityError, PrecisionError):
        return 0.0
    if not run.pilot_den > 0:
        return 0.0
    a = run.pilot_num / run.pilot_den
    wmax = float(run.wmax)
    return float(min(max(a, 0.0), 0.5 / wmax)) if wmax > 0 else 0.0


def kfourier_details(P: Pair, q, lam=None, *, eps=None, tol: float = 1e-9, prec: int = 160,
                     max_nodes: int = 300_000, alpha: float | None = None,
                     extra_light: int | None = None) -> KFourier:
    """:func:`kfourier_eta` with the run's bookkeeping (:class:`KFourier`).

    ``alpha`` and ``extra_light`` (both or neither; e.g. an earlier pass's
    :attr:`KFourier.alpha` and :attr:`KFourier.extra_light`) skip the pilot walk and the
    retry with the extra light level heavy.  Any ``alpha`` in ``[0, 1 / (2 w_max)]`` and any
    ``extra_light`` give a valid enclosure (module doc); they only move its width and cost."""
    red, q, lam, eps = _checked(P, q, lam, eps, tol)
    if (alpha is None) != (extra_light is None):
        raise ParameterError("kfourier: give alpha and extra_light together (an earlier pass's), "
                             "or neither")
    if alpha is not None:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) \
                or not math.isfinite(alpha) or alpha < 0:
            raise ParameterError(f"kfourier: alpha must be a finite float >= 0, got {alpha!r}")
        if isinstance(extra_light, bool) or not isinstance(extra_light, int) \
                or not 0 <= extra_light <= EXTRA_LIGHT:
            raise ParameterError(f"kfourier: extra_light must be an int in [0, {EXTRA_LIGHT}], "
                                 f"got {extra_light!r}")
    return _details(red, q, lam, eps, tol, prec=prec, max_nodes=max_nodes, alpha=alpha,
                    extra_light=extra_light)


def _checked(P, q, lam, eps, tol):
    red, q, lam, eps = parse_query(P, q, lam, eps, tol, "kfourier_eta")
    if red.k * red.N < MIN_OUTPUTS:
        raise CapacityError(f"kfourier: k N = {red.k * red.N} < {MIN_OUTPUTS} outputs; "
                            "use the k-copies tree")
    return red, q, lam, eps


def _details(red, q, lam, eps, tol, *, prec=160, max_nodes=300_000, changed=None,
             upper=None, alpha=None, extra_light=None) -> KFourier:
    """One certified walk (:class:`_Run`; ``changed``, ``upper``: its law and side, by default
    the pair's direction's; ``alpha``, ``extra_light``: an earlier pass's, see
    :func:`kfourier_details`)."""
    t0 = time.time()
    old = ctx.prec
    try:
        if alpha is None:
            alpha = 0.0
            if ALPHA_SHIFT and red.k > 1:
                alpha = _pilot_alpha(red, q, lam, eps, tol, prec, max_nodes=max_nodes,
                                     changed=changed, upper=upper)
        run = _Run(red, q, lam, eps, tol, prec, max_nodes=max_nodes, alpha=alpha, changed=changed,
                   upper=upper, extra_light=extra_light)
        try:
            run.run()
        except _NotMonotone:
            if not run.extra_light:
                raise
            # a light statistic spread too widely for the certificate (small q, e.g. 0.30 at
            # k = 16: its Chernoff range spans a factor ~8): the extra light level back to the
            # heavy enumeration concentrates it (EXTRA_LIGHT's trade-off, other way round)
            run = _Run(red, q, lam, eps, tol, prec, max_nodes=max_nodes, alpha=alpha,
                       changed=changed, upper=upper, extra_light=0)
            run.run()
        with ctx.workprec(prec):
            dm = run.dropped + run.fail
            lo = arb_to_interval(run.lo - run.fail).lower
            hi = arb_to_interval(run.hi + dm).upper
    finally:
        ctx.prec = old
    lo = max(lo, Fraction(0))
    hi = min(hi, Fraction(1))
    return KFourier(Interval(min(lo, hi), hi), tuple(run.heavy), run.nodes,
                    run.fourier, _hi(run.dropped), time.time() - t0, float(alpha),
                    run.extra_light)


def kfourier_eta(P: Pair, q, lam=None, *, eps=None, inclusive: bool = False, tol: float = 1e-9,
                 prec: int = 160, max_nodes: int = 300_000) -> Interval:
    """Certified ``eta`` of a pair with one homogeneous collection under
    ``P.k``-randomization, for large ``kN`` (module doc): ``P[R > lam]``
    (forward) or ``P[R < 1/lam]`` (reverse); the same enclosure holds for
    ``inclusive`` (``>=``, ``<=``).  ``tol`` is the mass below which a heavy
    node is dropped (its mass enters the width)."""
    return kfourier_details(P, q, lam, eps=eps, tol=tol, prec=prec, max_nodes=max_nodes).eta


#: relative width asked of :func:`kfourier_delta` by default (difference route)
DELTA_REL = 1e-3
#: first heavy-node tolerance of the difference route, its floor, and its most passes
DELTA_TOL0 = 1e-6
DELTA_TOL_FLOOR = 1e-11
DELTA_PASSES = 3


@dataclass(frozen=True)
class KDelta:
    """A certified delta from two certified etas (:func:`kfourier_delta_details`): ``first``
    ``= P_1[E]``, ``second = P_2[E]`` with ``delta = first - lam second`` (the event ``E`` and the
    laws in :func:`kfourier_delta`), ``tol`` the heavy-node tolerance of the last pass."""

    delta: Interval
    first: Interval
    second: Interval
    tol: float
    passes: int
    seconds: float


def kfourier_delta_details(P: Pair, q, lam=None, *, eps=None, tol: float | None = None,
                           rel: float = DELTA_REL, prec: int = 160, max_nodes: int = 300_000) -> KDelta:
    """:func:`kfourier_delta`'s difference route with its two etas (:class:`KDelta`).

    ``tol`` given: one pass, both etas at heavy-node tolerance ``tol``.  Else passes from
    :data:`DELTA_TOL0`, each next ``tol`` scaled by the width asked (``rel`` times delta) over
    the width obtained (the width is about proportional to ``tol``), down to
    :data:`DELTA_TOL_FLOOR`, at most :data:`DELTA_PASSES` passes; the passes' enclosures are
    intersected (each is certified).  A finer pass out of the strategy's reach (its
    ``CapacityError`` or ``PrecisionError``), or one not 20 % narrower than the last (the
    etas' precision floor), ends the passes."""
    red, q, lam, eps = _checked(P, q, lam, eps, 0.5 if tol is None else tol)
    if not (isinstance(rel, (int, float)) and 0 < rel < 1):
        raise ParameterError(f"rel must lie in (0, 1), got {rel!r}")
    lam_iv = lam_interval(lam, eps)
    t0 = time.time()
    t = DELTA_TOL0 if tol is None else tol
    out = None
    passes = 0
    while True:
        passes += 1
        try:
            a = _details(red, q, lam, eps, t, prec=prec, max_nodes=max_nodes).eta
            # the second law and the same side: forward P_D[R > lam], reverse P_(D_m)[R < 1/lam]
            b = _details(red, q, lam, eps, t, prec=prec, max_nodes=max_nodes, changed=not red.forward,
                         upper=red.forward).eta
        except (CapacityError, PrecisionError):
            if out is None:
                raise
            passes -= 1
            break                   # a finer pass is out of reach: the last enclosure stands
        iv = delta_of_two_masses(a, b, lam_iv)
        stalled = False
        if out is not None:
            if not out[0].overlaps(iv):
                raise PrecisionError("kfourier_delta: two certified enclosures do not overlap")
            # the etas' width no longer follows tol (the strategy's floor here): stop
            stalled = iv.width > Fraction(4, 5) * out[0].width
            iv = out[0].intersect(iv)
        out = (iv, a, b, t)
        if tol is not None or stalled or passes >= DELTA_PASSES or t <= DELTA_TOL_FLOOR:
            break
        want = rel * float(iv.upper)
        got = float(iv.width)
        if got <= want:
            break
        t = max(t * max(0.5 * want / got, 1e-2), DELTA_TOL_FLOOR)
    iv, a, b, t = out
    return KDelta(iv, a, b, t, passes, time.time() - t0)


def kfourier_delta(P: Pair, q, lam=None, *, eps=None, tol: float | None = None,
                   rel: float = DELTA_REL, grid: int | None = None, prec: int = 160,
                   max_nodes: int = 300_000) -> Interval:
    """Certified ``delta`` at large ``kN`` as the difference of two certified etas.

    **The difference.**  For a pair ``(D_1, D_2)`` (first, second) with privacy ratio
    ``R~ = P(S | D_1) / P(S | D_2)`` (000 (1.5)), the least ``delta`` with
    ``P_1[B] <= lam P_2[B] + delta`` for every ``B`` (000 (1.1) with an additive ``delta``) is
    ``sum_S (P_1(S) - lam P_2(S))_+``, the sum over ``E = {R~ > lam}``; and
    ``P_2(S) = P_1(S) / R~(S)``:

        delta(lam) = P_1[R~ > lam] - lam P_2[R~ > lam] = E_1[(1 - lam / R~)_+].

    With ``R = P(S | D_m) / P(S | D)`` the k-copies statistic of the module doc (000 (8.21)):

    * forward (``D_1 = D_m``, ``D_2 = D``, ``R~ = R``): ``delta = P_(D_m)[R > lam] - lam P_D[R > lam]``
      (the second eta: every output null, the *upper* threshold ``lam``);
    * reverse (``D_1 = D``, ``D_2 = D_m``, ``R~ = 1/R``): ``delta = P_D[R < 1/lam] - lam
      P_(D_m)[R < 1/lam]`` (the second eta: the changed user's ``k`` outputs of law ``pi1``
      (000 (3.5), (3.9)), the *lower* threshold ``1/lam``).

    (The first eta is 000 (1.6)-(1.7)'s eta of the pair.)

    The first eta is :func:`kfourier_eta`'s; the second is the same walk with the other law and
    the same side (:class:`_Run`).  With ``a in [a_lo, a_hi]``, ``b in [b_lo, b_hi]`` and ``lam
    in [lam_lo, lam_hi]`` (``lam = e^eps``: :func:`~exactdp.core.lam.exp_interval`)

        delta in [a_lo - lam_hi b_hi, a_hi - lam_lo b_lo]   (clipped to [0, 1]).

    The width is that of ``a`` plus ``lam`` times that of ``b`` (each a few times ``tol``), not
    relative to delta: ``tol`` is chosen by passes until the relative width ``rel``
    (:func:`kfourier_delta_details`).  Strict and inclusive thresholds give the same enclosures.

    ``grid`` (explicit only): also the monotone grid of ``grid`` certified etas (:func:`_grid_delta`,
    at ``tol`` or 1e-6) and the intersection of the two enclosures.

    >>> from exactdp.reductions.pairs import reverse_canonical_pair
    >>> iv = kfourier_delta(reverse_canonical_pair(5000, 5, 2), "1/5", Fraction(11, 10), tol=1e-5)
    >>> 0.1 < float(iv.lower) < float(iv.upper) < 0.12
    True
    """
    iv = kfourier_delta_details(P, q, lam, eps=eps, tol=tol, rel=rel, prec=prec,
                                max_nodes=max_nodes).delta
    if grid is not None:
        g = _grid_delta(P, q, lam, eps=eps, tol=1e-6 if tol is None else tol, grid=grid, prec=prec,
                        max_nodes=max_nodes)
        if not g.overlaps(iv):
            raise PrecisionError("kfourier_delta: the grid and difference enclosures do not overlap")
        iv = g.intersect(iv)
    return iv


def _grid_delta(P: Pair, q, lam=None, *, eps=None, tol: float = 1e-6, grid: int = 16,
                prec: int = 160, max_nodes: int = 300_000) -> Interval:
    """Certified ``delta = E[(1 - lam / R~)+]`` at large ``kN`` from ``grid`` certified etas,
    where ``R~`` is the statistic whose upper tail :func:`kfourier_eta` encloses
    (``P[R~ > r] = eta(r)``: ``R`` forward, ``1 / R`` reverse).

    ``delta = int_0^inf lam / r^2 P[R~ > r] dr = int_0^1 eta(lam / u) du`` and
    ``u -> eta(lam / u)`` is nondecreasing, so on a partition ``0 = u_0 < ... < u_n = 1``

        sum_(i >= 1) (u_(i+1) - u_i) eta_lo(lam / u_i)  <=  delta  <=  sum_(i >= 0) (u_(i+1) - u_i) eta_hi(lam / u_(i+1)).

    Both sums use the same points ``r_i``: the upper one the partition ``u_i = lam_lo / r_i``,
    the lower one ``u_i = lam_hi / r_i`` (``lam = e^eps`` in ``[lam_lo, lam_hi]``; delta
    decreases in ``lam``; for rational ``lam`` the two coincide), so one eta per point.  The
    partition is refined greedily: the cell contributing most to the width
    (``~ du (eta(r_left) - eta(r_right))``) is halved, one new eta each, until ``grid`` etas;
    the width is about ``eta(lam) / grid`` at worst (first order: a coarse but certified
    enclosure; :func:`kfourier_delta`'s difference route is the default).

    >>> from exactdp.reductions.pairs import reverse_canonical_pair
    >>> iv = _grid_delta(reverse_canonical_pair(5000, 5, 2), "1/5", Fraction(11, 10), grid=4, tol=1e-5)
    >>> 0 < float(iv.lower) < float(iv.upper) < 0.5
    True
    """
    lam, eps = parse_lam_eps(lam, eps)
    if not (isinstance(grid, int) and 1 <= grid <= 10_000):
        raise ParameterError(f"grid must be an integer in [1, 10000], got {grid!r}")
    lam_iv = lam_interval(lam, eps)
    lam_lo, lam_hi = lam_iv.lower, lam_iv.upper
    cache = {}

    def eta(u):                                      # eta at r = lam_lo / u
        if u not in cache:
            cache[u] = kfourier_eta(P, q, lam_lo / u, tol=tol, prec=prec, max_nodes=max_nodes)
        return cache[u]

    def bounds(us):
        """(lower, upper) sums on the points ``us`` (0 < u_1 < ... < u_n = 1)."""
        hi = sum(((b - a) * eta(b).upper for a, b in zip([Fraction(0)] + us[:-1], us)), Fraction(0))
        lo = Fraction(0)
        for a, b in zip(us[:-1], us[1:]):
            ua = lam_hi / (lam_lo / a)                   # lam_hi / r_a <= 1 (r_a > lam_hi)
            ub = Fraction(1) if b == 1 else lam_hi / (lam_lo / b)
            lo += (ub - ua) * eta(a).lower
        return lo, hi

    us = [Fraction(1)]
    eta(Fraction(1))
    while len(cache) < grid:
        # the cell whose term contributes most to the width, halved
        cells = [(Fraction(0), us[0])] + list(zip(us[:-1], us[1:]))
        def gap(c):
            a, b = c
            return (b - a) * (eta(b).upper - (eta(a).lower if a > 0 else 0))
        a, b = max(cells, key=gap)
        m = Fraction(round((a + b) / 2 * 2**32), 2**32)
        if not a < m < b or lam_lo / m <= lam_hi:
            break
        us = sorted(us + [m])
        eta(m)
    lo, hi = bounds(us)
    return Interval(lo, max(lo, min(hi, Fraction(1))))
