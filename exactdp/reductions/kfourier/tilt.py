r"""The k-copies statistic's far tail by tilting (part of :mod:`exactdp.reductions.kfourier`):
certified ``eta`` (forward and 003's reverse) far below the walk's reach (~1e-300) with relative
precision.

**Why the walk stops.**  The walk (:mod:`~exactdp.reductions.kfourier.walk`) enumerates the heavy
levels under the untilted law; where ``eta`` is a large deviation of many outputs (``L = 40``,
``N = 10^7``, ``lam = e^2``: ``k = 2`` from ``q = 0.42``, ``k <= 16`` from ~0.42) its decisions
give only an upper bound.  Here the whole law is tilted instead, as for ``k = 1``
(:mod:`exactdp.engine.tilted`, "The upper tail").

**The identity.**  Forward, ``R = kappa e_k(w)`` is the likelihood ratio of ``D_m`` to ``D``
(000 (8.21) as corrected, id 000-8.21; the package doc), and under ``D`` the ``M = kN`` outputs
are i.i.d. with the null level law ``pi0_j`` (weights ``w_j = c_j / M``).  So ``eta = P_{D_m}[R >
lam] = E_D[R; R > lam]``.  For the light statistic of the series enclosure
(:mod:`~exactdp.reductions.kfourier.series`), ``Y = sum_outputs phi(w)``, ``phi(w) = log(1 + tau w)
/ tau + beta w^3 + gamma w^4``, and any tilt ``t > 0`` with ``m(t) = sum_j pi0_j e^(t phi_j)`` and
``Q_j = pi0_j e^(t phi_j) / m(t)``,

    E_D[g] = m(t)^M E_Q[g e^(-tY)]          for every function g of the outputs.

**The sandwich.**  On the box ``B`` of the power sums ``p_2, p_3, p_4`` (Chernoff levels, below)
the series enclosure gives ``R = F(Y; p)``, nondecreasing and convex in ``Y`` from ``ylo`` on (its
certificate, :func:`~exactdp.reductions.kfourier.series.monotone_pieces`: every ``D_j = [t^j] e^(tY)
G_p(t) >= 0``, ``j < k``, and ``F^(i) = kappa D_(k-i)``), and points ``s_dn`` (``F > lam`` at
``s_dn`` over the box) and ``s_up`` (``F < lam``).  Below ``ylo`` the box has ``R <= kappa p_1^k /
k! < lam`` (Maclaurin, ``p_1 <= Y + max c``, ``c = p_1 - Y`` over the box), so on ``B``: ``Y >=
s_dn`` implies ``R > lam`` and ``R > lam`` implies ``Y > s_up``.  With ``x = Y - s``:

* lower: on ``B`` and ``Y >= s_dn``, ``R >= F(s_dn) + sigma x`` (convexity; ``sigma = kappa min
  D_(k-1)`` at ``s_dn``, the box's lower corner), so ``eta >= m^M e^(-t s_dn) (E_Q[(F(s_dn) +
  sigma x) e^(-tx); x > 0] - E_Q[...; x > 0, not B])``, the last at most ``(F(s_dn) + 2 sigma / (e
  t))`` times ``E_Q[e^(-theta x) e^(+-b (V - edge))]`` per box edge (``1{x > 0} e^(-tx) <= e^(-theta
  x)`` for every ``x``, ``0 <= theta <= t / 2``, ``b >= 0``: a joint Chernoff bound; the rare
  configurations beyond an edge are far above the threshold, where ``e^(-tx)`` is tiny);
* upper: on ``B`` and ``Y > s_up``, ``R = F(s_up + x) <= F(s_up) e^(rho x)`` with ``rho = max_i
  (D_(k-i) / D_k)^(1/i)`` (``F(s_up + x) = kappa sum_i x^i D_(k-i) / i!``, bounded over the box by
  its two corners, :meth:`~exactdp.reductions.kfourier.series.Box.corners`), and ``e^(rho x) <= 1
  + rho x + (rho x)^2 e^(rho x) / 2``, ``x^2 e^(-(t - rho) x) <= (2 / (e (t - rho)))^2``, so

      eta <= F(s_up) m^M e^(-t s_up) (E_Q[(1 + rho x) e^(-tx); x > 0] + 2 rho^2 / (e (t - rho))^2)
             + P_{D_m}[R > lam, not B].

  The last term: ``R > lam`` implies ``p_1 > x_min = (lam k! / kappa)^(1/k)`` (Maclaurin), so each
  side of each box edge is a two-dimensional Chernoff bound under ``D_m`` (``M - k`` null outputs,
  ``k`` of ``pi1_j = pi0_j c_j``): ``P[p_1 > x_min, p_i > P] <= E e^(a (p_1 - x_min) + b (p_i - P))``
  (and ``-b`` below), ``a, b >= 0`` chosen in floats, the bound in arb.

The two expectations under ``Q`` are the integrals of :func:`exactdp.engine.tilted.upper_tail`
(smoothing, quadrature, proved decay).  **eta's Taylor terms.**  ``F`` is a polynomial of degree
``k`` in ``Y``, ``F(s + x) = kappa sum_i x^i D_(k-i)(s) / i!`` exactly, every ``D_j >= 0`` on the
monotone range, so the kernels carry its terms through :data:`ETA_ORDER` with coefficients over the
box, the better of its corners' and the series' coupled Taylor form
(:meth:`~exactdp.reductions.kfourier.series.Series.derivatives`: the corners alone decouple ``c =
p_1 - Y`` from ``p_2``; ``F' / F`` was 6 % wide over a light box at ``k = 128``, ``q = 0.38``, now
0.08 %): from below at ``s_dn`` (the terms beyond dropped), from above at ``s_up`` (the terms
beyond bounded by ``f_up (rho x)^(m+1) e^(rho x) / (m+1)!``, a kernel sup ``f_up rho^(m+1) / (m+1)!
((m+1) / (e (t - rho)))^(m+1)``); the slope and ``e^(rho x)`` of order 1 cost ``~(rho / t)^2``
where a count's light tilt is near ``rho``, and a count's light tilt is at least
:data:`LIGHT_TILT_RHO` ``rho``.  L = 40, N = 10^7, lam = e^2, rel 1e-3 asked: ``k = 16``, ``q =
0.42`` 1.55e-4 -> 1.32e-4, ``q = 0.415`` 6.6e-4 -> 5.5e-4; ``k = 128``, ``q = 0.415`` the top level
alone 1.13e-3 -> 9.5e-4 (``benchmarks/RESULTS.md``, session 30).  Each box edge (per statistic and side) is the least of ``BOX_Z`` standard deviations
under ``Q`` whose failure bound is below ``FAIL_SHARE`` of the width asked.  ``tau``, ``beta``,
``gamma`` (first-order cancelling of ``p_2``, ``p_3``, ``p_4``: series module doc, "The choice of
tau"; ``gamma = -(c_4 / c_1 - tau^3) / 4`` from ``d_4 = -(t^4 - tau^3 t) / 4 - gamma t``), the
threshold point and the tilt (``E_Q Y = y``, the saddle point) are a float fixed point: any values
give a valid enclosure, these make it narrow (the width is ``~ t (s_dn - s_up)``, and ``t`` is ~1e6
at ``q = 0.45``, so the series must hold ``R`` to ~1e-10 relative: hence the cancellations; without
``gamma`` the cap of ``p_4`` was most of the width: ``k = 16``, ``q = 0.42``, 2.2e-3 -> 8.6e-4).

**The top level.**  Where the tilted law puts few outputs at the top level (``q = 0.42``: ~85 at
``k = 2``, ~52 at ``k = 16``) those carry all of ``p_2``'s spread (relative sd ~0.1), and the one
box's threshold gap is second order in it (``k = 2``: relative width 2.2e-2).  So (``heavy = 1``,
chosen where the one box is too wide and the tilted count is at most ``TOP_COUNT_MAX``) the top
level's count ``n`` is enumerated: ``E_D[g; n] = C(M, n) pi0_d^n m_L(t_n)^(M - n) E_(Q_L)[g
e^(-t_n Y_L)]`` over the light levels (``m_L`` their untilted masses tilted, a tilt ``t_n`` of its
own: the saddle point where the light threshold is a far tail, else ``1 / (gap + sd)``), the
heavy polynomial ``E_H = (1 + w_d t)^n`` in the series, the box over the light power sums (its
failure under ``D_m`` joint with ``p_1 > x_min``, the count's range too), each count's own
cancelling statistic (``REFINE_COUNT``: ``k = 16``, ``q = 0.42``, 8.6e-4 -> 1.0e-4).  A count is
settled without an integral where it can be: ``kappa e_k(H) > lam`` (the heavy outputs alone:
``E[R | n]`` exactly, ``kappa [t^k] E_H(t) (1 + t mu)^(M - n)``, the outputs independent); a light
threshold far below the light mean (``[E[R | n] - lam P[R <= lam | n], E[R | n]]``, Chernoff); a
Chernoff cap (``J <= 1``) below its share of the width.  At ``k = 2``, ``q = 0.42`` five counts of
~130 need integrals, relative width 1.0e-5 in 8 s.

**The top levels.**  Where the top level's enumeration is still wider than asked (by
:data:`TOP_TWO_WIDER`, and than :data:`TOP_TWO_WIDTH`) because the light box is lumpy at its own
top level (``k = 128``, ``q = 0.415``: the light ``p_2`` ranges over 0 .. 17 times its tilted mean,
carried by a few dozen outputs at level 39; each top count 1.2e-3 wide), the two top levels'
counts are enumerated together: per count vector ``(n_(d-1), n_d)`` the multinomial weight ``M! /
(n_(d-1)! n_d! n'!) pi0_(d-1)^(n_(d-1)) pi0_d^(n_d) m_L^(n')``, ``E_H = (1 + w_(d-1) t)^(n_(d-1))
(1 + w_d t)^(n_d)`` and the same certificates, each window from the box choice (a count beyond its
edge is a failure under ``D_m`` jointly with ``p_1 > x_min``); a vector whose ``P_D[n] E[R | n]``
(exact: the outputs are independent) is below its share is capped by it without a series.  ``k =
128``, ``q = 0.415``: 1.13e-3 -> 2.1e-4 (840 vectors, 36 with integrals, 46 s); ``k = 2``, ``q =
0.41`` [1.4e-153, 9.7e-147] (level 39 rare and heavy) -> 3.7e-5; delta at ``k = 16``, ``q = 0.42``
2.2e-3 -> 7.2e-4.

**delta.**  Forward, ``delta = P_(D_m)[R > lam] - lam P_D[R > lam] = E_D[(R - lam)+]``
(:func:`ktilted_delta`): the same plan and certificates with the function ``(R - lam)+``.
``delta / eta`` is ~``rho / t`` (R's growth over the tilt), so R's higher orders matter: eta's
Taylor terms serve both ends (``F(s + x) = kappa sum_i x^i D_(k-i)(s) / i!``, every ``D_j``
nonnegative and nondecreasing in ``Y`` on the monotone range): above ``s_dn`` on the box ``(R -
lam_hi)+ >= (f_lo - lam_hi) + sum_i lo_i x^i``, above ``s_up`` ``(R - lam_lo)+ <= F(s_up + x) -
F(s_up) <= sum_i up_i x^i`` plus the remainder past ``ETA_ORDER`` (``<= f_up (rho x)^(m+1) e^(rho x)
/ (m+1)!``, its kernel bounded by its sup as eta's), through the polynomial kernels of
:func:`~exactdp.engine.tilted.upper_tail`.  A count whose heavy outputs alone exceed ``lam``:
``E[R | n] - lam`` exactly.  At ``L = 40``, ``N = 10^7``, ``lam = e^2`` (rel 1e-4 asked): ``k =
2``, ``q = 0.45`` relative width 5.3e-5, ``k = 16`` 5.4e-5; ``q = 0.42`` 1.3e-4 (``k = 2``),
2.0e-4 (``k = 16``); ``k = 8``, ``q = 0.415`` 2.2e-4 in 11 s.  (Until session 33 the upper end
was ``f_up (e^(rho x) - 1)`` with ``rho`` the box corners' growth, folded to ``rho x + c3 x^2``
below ``DELTA_X0 / t``, and the lower end stopped at ``x^2``: 2.5e-3 at ``k = 8``, ``q = 0.415``
with the two top levels, 7.2e-4 at ``k = 16``, ``q = 0.42``.)

**The light cut.**  Forward, from ``k ~ 64`` at ``q <= 0.40`` (``L = 40``, ``N = 10^7``, ``lam =
e^2``) the whole law's statistic is out of range: ``x_min`` is so small that one output of the top
level doubles ``R`` (``tau w_max >= 1/2``, the series' condition).  Then the levels ``cut + 1 ..
d`` are enumerated (:meth:`_Run.top`) and the plan (statistic, tilt, box) comes from the light
levels ``0 .. cut`` alone, for a *lead* count vector of the levels above (:func:`_light_plan`: the
fixed point of the series with the lead's ``E_H``; the lead the vector of the largest saddle-point
estimate of ``E_D[R; R > lam, counts]``, :func:`_lead`).  The enumerated levels' ``phi`` is
``log(1 + tau w) / tau`` (their part of ``Y`` is fixed by the counts).  The cut goes down from the
highest whose light statistic holds until the series' gap of the vectors near the lead, weighted
by their estimates, is below the width asked (:data:`CUT_GAP`; a lower cut smooths the light
law's power sums, at the cost of more vectors).  The certificate is the top levels' one with two
changes: each count window is the least ``m_j`` with ``P_{D_m}[p_1 > x_min, n_j > m_j]`` below
the target, and the light box's failure is bounded once for all count vectors,

    sum_n E_D[R; R > lam, counts n, not B] <= P_{D_m}[p_1 > x_min, not B],

``p_1`` over all outputs (``R > lam`` forces it, Maclaurin) and the box's power sums over the
light outputs only (``v = 0`` at the enumerated levels): the two-dimensional Chernoff bounds of
the full law's ``D_m``, whose edges widen (``z`` up to 28) until the bound is below the target.
``L = 40``, ``N = 10^7``, ``lam = e^2``, ``k = 64``, ``q = 0.40``: cut 35, lead ``(0, 0, 0, 0,
3)``, 16,800 vectors (the tree bounds some subtrees whole, :meth:`_Run._tree`), relative width
2.0e-4 in 75 s (the walk's passes: 0.34 in 300 s).  A vector whose own certificate fails (no
monotone range on the light box, far from the lead) or that comes after the ``deadline`` counts
``[0, E_D[R; counts]]``.  With a deadline the cuts are deepened in turn (:func:`_cut_answer`, each
certified, the results intersected) while the next cut's gap is below the width reached and the
time left allows it.  At ``q = 0.38`` (``k = 128``, cut 34, rel 1e-3 asked) the width was first the
kernels' coefficients (corners: 1.6e-2), then the series' gap (the threshold points' doubling
search overshot up to 2x: bisected, :data:`ROOT_BISECT`; ``p_5`` a ball ``[0, cap]`` of first
order: a box variable, :data:`FORWARD_POWERS`) and the integrals' own precision
(:data:`INTEGRAL_REL`): 1.6e-2 -> 6.2e-4 at that cut.

**The reverse direction.**  003's reverse asks ``eta = P_D[R < thr]``, ``thr = 1 / lam``, over
``M = kN`` null outputs: a lower tail of ``R``, so the tilt is ``-t`` (``Q_j ~ pi0_j e^(-t
phi_j)``, :func:`~exactdp.engine.tilted.upper_tail` of ``-Y`` at ``-s``) and the function is 1 (no
``rho``, ``sigma``).  The top levels' weights are too large for the series (``tau w_max`` up to
~1e6 at ``q = 0.35``), but the tilt makes them rare, so the levels ``0 .. J`` are *light* (``J``:
the top level the tilted law visits at least :data:`COUNT_TOP` times, lowered while a bound
fails) and

    P[R < thr, all light]  <=  eta  <=  P[R < thr, all light] + P[R < thr, some heavy output].

On the light box ``B``: ``Y < s_up`` implies ``R < thr`` (below ``ylo`` by Maclaurin, ``R <= kappa
p_1^k / k!``; above by monotonicity) and ``R < thr`` implies ``Y < s_dn``.  The lower end is
``P[Y < s_up, all light]`` less the joint failure (``_joint_fail`` of ``-Y``); the upper end
``P[Y < s_dn, all light]`` plus the box failures under ``D`` jointly with a bound on ``p_1``.  That
bound is Bonferroni's (over the repeated indices of ``p_1^k``, every weight ``>= 0``):

    k! e_k >= p_1^k - C(k,2) p_2 p_1^(k-2),

so ``R < thr`` and ``p_2 <= P`` force ``p_1 < X(P)`` (``x^(k-2) (x^2 - C(k,2) P) = T``, ``T = thr
k! / kappa``), and with every weight at most ``om`` (``p_2 <= om p_1``) ``p_1 < X_cap(om)``
(``x^(k-1) (x - C(k,2) om) = T``); each failure is a two-dimensional Chernoff bound ``E_D[e^(a (X -
p_1) +- b (V - edge))]`` (``a, b >= 0`` in floats, the bound in arb): ``p_2`` above its edge
peeled in slabs ``(P_(i-1), P_i]`` (``X(P_i)`` jointly with ``p_2 > P_(i-1)``, beyond the last
``X_cap(w_J)``), the others with ``X(P2hi)``.  A heavy output at level ``h`` (a union bound: ``M
pi0_h`` times the others' law, their heavy weights lowered to ``w_(J+1)``, ``e_k`` only falls)
adds ``w_h e_(k-1)`` of the others, so ``R < thr`` forces their ``p_1 < X_heavy`` (the root of
``x^(k-2) (x^2 - C(k,2) P) + k w_h x^(k-3) (x^2 - C(k-1,2) P) = T``): ``w_h`` below ``y``, a factor
``~e^(-t w_h)``.  The others' ``p_2`` is peeled in slabs ``(P_(i-1), P_i]`` from ``P2hi`` up
(ratio :data:`HEAVY_RATIO`, each ``X_heavy(P_i)`` jointly with ``p_2 > P_(i-1)``) until the cap
bound beyond the last is negligible.  Where Bonferroni's loss (``C(k,2) p_2``) makes that too
weak (large ``k``, a heavy top light level), the heavy outputs are bounded by their count ``n``
instead: all lowered to ``w_(J+1)``, ``R >= kappa [t^k] (1 + w_(J+1) t)^n E_L(t)``, whose series
over the same light box gives its own point ``s_dn(n)`` (no Bonferroni), so ``C(M, n) pi_H^n
m_L(t)^(M-n) e^(t s_dn(n))`` plus the box failures bound the count (or, from ``n = k - 1``, the
linear ``e_k >= e_k(H) + e_(k-1)(H) p_1(L)``), in groups of counts up to the one where the heavy
outputs alone exceed ``thr``.  Both bounds together must stay below :data:`HEAVY_SHARE` of the
width asked.  Where neither holds (a level above the cut the tilted law still visits: at ``k =
128``, ``q = 0.38`` level 34 ~0.03 times, level 35 ~1e-5 times, a share of ``eta`` no bound can
hide) those levels ``J + 1 .. H`` (tilted count at least :data:`ENUM_COUNT` times the width asked)
are *enumerated*: for each count vector ``n`` in a window ``n_j <= m_j``

    P_D[counts n, the rest light, R < thr] = (multinomial) prod pi0_j^(n_j) P[Y_L < s(n)]

over the ``M - |n|`` light draws, the series with ``E_H(t) = prod (1 + w_j t)^(n_j)`` giving the
points ``s_dn(n)``, ``s_up(n)`` (monotone above Maclaurin's ``kappa [t^k] E_H(t) e^(t p_1(L)) <
thr``), its own tilt, a Chernoff cap in place of the integral where that is below its share;
the levels above ``H`` by the union bound; the light box's failures and the window's (``n_j >
m_j``, jointly with ``p_1(L) < X(P2hi)``) as two-dimensional Chernoff bounds under ``D`` with the
enumerated outputs of weight 0 in the light statistics (``e_k`` only falls; their untilted count
``M pi0_j`` then enters the bound as a factor ``~e^(M pi0_j)``: small at deployment scale, large at
``N ~ 10^3``, where the plain cut wins the comparison).  Of the light cuts whose bounds pass, the
first :data:`CUTS_COMPARED` (from the top) are compared by their expected relative width, the
series' gap ``t (s_dn - s_up)`` plus the upper end's failures over ``eta``'s scale.  ``L = 40``,
``N = 10^7``, ``lam = e^2`` (``benchmarks/RESULTS.md``, session 27): every ``q`` from 0.34 (``k <=
8``), 0.351 (``k = 16``), 0.36 (``k = 32``), 0.37 (``k = 64``), 0.38 (``k = 128``, ``200``) to 0.45,
relative width 5e-5 .. 3e-4 in seconds to a minute (on that grid of ``q``), but ``k = 200``, ``q =
0.38`` 2.7e-3 (there the walk runs too); above :data:`REVERSE_ROUTE` the walk answers.

**delta of the reverse.**  003's reverse ``delta = P_D[R < thr] - lam P_(D_m)[R < thr] = E_D[(1 -
lam R)+]`` (:func:`ktilted_delta`; ``P_(D_m)[A] = E_D[R; A]``) lies in ``[lam_hi E(thr_lo - R)+,
lam_lo E(thr_hi - R)+]``; the same plan (light cut, union bound or enumerated levels, box) with
the function ``(thr - R)+`` under the downward tilt, ``x = s - Y``.  ``R < thr`` is a small ``R``:
the Maclaurin point lies within ~0.2 / t of the threshold, so the series is certified monotone
(every ``D_j >= 0``) from ``s_up - DELTA_X0 / t`` on instead, and there ``F(s - x) = sum_i (-x)^i
F^(i)(s) / i!`` with every derivative nonnegative and nondecreasing gives, by Lagrange's remainders
(cut after an odd order at most 0, after an even one at least 0),

    (thr - R)+ <= sigma x - F2_lo x^2 / 2 + F3_hi x^3 / 6                        at s_dn, 0 < x <= x0,
    thr - R   >= (thr_lo - f_up) + sigma_lo x - F2_hi x^2 / 2 + F3_lo x^3 / 6 - F4_hi x^4 / 24
                                                                                 at s_up, 0 < x <= xl,

(``F2`` .. ``F4`` the derivatives; ``x0 = s_dn - ylo``, ``xl = s_up - ylo``; beyond them the sup
``thr e^(-t x0)`` and 0), the negative even terms kernels ``x^2 e^(-tx)``, ``x^4 e^(-tx)`` of their
own, subtracted (until session 32 the third order was folded into ``x^2`` below ``x0 = X / t`` and
the lower end stopped at the second: ``k = 8``, ``q = 0.34`` 3.75e-3 -> 1.0e-3, ``k = 128``, ``q =
0.38`` 3.1e-3 -> 2.1e-4).  The derivatives over the box are the better of the corners' and the
series' coupled Taylor form (:meth:`~exactdp.reductions.kfourier.series.Series.derivatives`; the
corners alone decouple ``c = p_1 - Y`` from ``p_2``: 6.4e-3 -> 3.75e-3, 1.3e-2 -> 3.1e-3).  R's
slope varies with ``p_2`` across the box at first order (~1e-3 at ``k = 8``, ``q = 0.36``: the
statistic cancels ``p_2`` in R's value at the threshold, not in its slope), so the coefficients are
an inner box's (``p_2`` within
:data:`DELTA_INNER_Z` sd, ``p_3``, ``p_4`` cut too where that pays), the shell between it and the
box bounded by the joint Chernoff bounds of the inner edges.  The failures (the box's, the union
bound's, the windows') count at most 1 each (``(1 - lam R)+ <= 1``).  ``delta / eta`` is ~``k / (y
t)``.  L = 40, N = 10^7, lam = e^2 (rel 1e-4 asked): the far tail (``k = 16``, ``q = 0.38``; ``k =
2``, ``q = 0.34``) relative width 1.7e-4 and 7.4e-5 (the walk's difference gave only ``[0,
5.9e-73]`` at ``k = 16``); near the route (``eta`` ~1e-11 .. 1e-20, levels enumerated, ``k / (y
t)`` ~0.03) 0.6 .. 2.5 % before session 32 (the walk's difference there ~90 %); now ``k = 8``, ``q =
0.34`` 1.0e-3, ``k = 16``, ``q = 0.351`` 9.5e-4, ``k = 32``, ``q = 0.36`` 8.2e-4, ``k = 64``, ``q =
0.37`` 4.5e-4, ``k = 128``, ``q = 0.38`` 2.1e-4, ``k = 200``, ``q = 0.38`` 2.7e-4, 9-40 s
(``benchmarks/RESULTS.md``, sessions 32, 33).

Every piece is an arb ball or an explicit bound: the result is an enclosure, not a saddlepoint
approximation.  ``tests/test_ktilt.py`` checks it against the exact k-copies tree (small ``N``),
the walk where both reach (``q = 0.41``) and an importance-sampled Monte Carlo of its own tilted
law (of the light cut's too: its light tilt and cross-entropy counts for the enumerated levels).
At ``L = 40``, ``N = 10^7``, ``lam = e^2`` (``benchmarks/RESULTS.md``): ``k = 2 .. 16`` at
``q = 0.45`` relative width 1.5e-6 .. 3.4e-6 in 4-7 s, ``q = 0.42`` 1e-5 .. 1e-4 in 5-8 s, ``q =
0.415`` 9.5e-5 .. 6.6e-4; ``k = 200``: ``q = 0.45`` 4e-5 in 2 s, ``q = 0.42`` 2.4e-3 in 38 s.

>>> from exactdp.model.pair import canonical_pair
>>> r = ktilted_eta(canonical_pair(10**7, 40, 2), "0.45", 7, rel=1e-4)
>>> r.eta.relative_width() < 1e-3, -120000 < r.log10_eta < -100000
(True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
from flint import arb, ctx

from ...core.errors import CapacityError, ParameterError, PrecisionError
from ...core.interval import Interval, arb_to_interval
from ...core.lam import parse_lam_eps
from ...core.threads import one_blas_thread
from ...engine.tilted import tilt_saddle, upper_tail
from ...model.mechanism import Mechanism
from ...model.pair import Pair
from ..kcopies import kcopies
from .arbs import exact_arb, float_hi
from .series import Box, Boxes, Series, monotone_pieces, padded_coeffs

__all__ = ["KTilted", "ktilted_eta", "ktilted_delta", "ktilted_estimate", "ROUTE", "REVERSE_ROUTE", "BOX_Z", "FAIL_SHARE"]

#: the strategy answers where the forward Chernoff bound ``P_{D_m}[p_1 > x_min]`` is below
#: ``10^ROUTE`` (log10); above, the walk reaches eta (``auto`` goes on to it).  L = 40, N = 10^7,
#: lam = e^2: the bound is -145 (k = 2) ... -59 (k = 200) at q = 0.41 (eta 1.4e-153 ... ), -324 ...
#: -127 at q = 0.415 (eta 1.3e-346 ... 5.6e-145)
ROUTE = -120.0
#: 003's reverse: the strategy answers where the Chernoff bound of ``P_D[p_1 < x_min(1 / lam)]`` is
#: below ``10^REVERSE_ROUTE``, the walk above (its reverse etas ~1e-3 .. 1e-4 in seconds).  L = 40,
#: N = 10^7, lam = e^2: the bound is -9.3 at k = 8, q = 0.34 (eta 5.0e-11: the walk 1.6e-3, the tilt
#: 2.4e-4), -8.9 at k = 32, q = 0.36 (eta 1.3e-10: the walk wider than 1e-3, the tilt 2.6e-4), -5.6
#: at k = 64, q = 0.36449 and -3.0 at k = 200, q = 0.3712 (eta 4e-7, 2.3e-4: the walk's)
REVERSE_ROUTE = -8.0
#: the box edges tried, in standard deviations under the tilted law (per statistic and side: the
#: power sums ``p_2``, ``p_3``, ``p_4`` and the top level's count)
BOX_Z = (6.0, 8.0, 11.0, 15.0, 20.0, 28.0, 40.0, 60.0, 90.0, 135.0, 200.0)
#: the failure bounds' share of the relative width asked
FAIL_SHARE = 1e-2
#: the float fixed point's iterations (threshold point, tilt, tau, beta, gamma)
MAX_ITER = 12
#: sub-boxes of the p_2 range (2^SPLIT)
SPLIT = 2
#: the top level's count is enumerated only up to this tilted mean (a cost choice: the counts
#: within reach each cost an integral; L = 40, N = 10^7, lam = e^2, k = 16: q = 0.42 ~52, 14
#: integrals; q = 0.45 ~5,220, 402 integrals, 520 s, where the one box gives 1.7e-5 in 3 s)
TOP_COUNT_MAX = 1000
#: the second level from the top enumerated too (its count with the top one's) where the top
#: level's enumeration is wider than TOP_TWO_WIDER times the width asked (and TOP_TWO_WIDTH) and
#: its tilted count is at most TOP_COUNT_MAX (k = 128, q = 0.415: the light box's p_2 is lumpy,
#: 0 .. 17x its mean)
TOP_TWO_WIDER = 10.0
#: ... and than this (below it the top level alone meets the issue's width: a second level's
#: counts cost ~5x the time)
TOP_TWO_WIDTH = 1e-3
#: 003's reverse delta: the series certified monotone from s_up - DELTA_X0 / t where it can be
#: (delta's kernels need a longer range than eta's)
DELTA_X0 = 40.0
#: 003's reverse delta: the fold's cut x0 = X / t, X the least estimated cost of these (the fold's
#: ~F3 X / (3 t^2 sigma) against the sup beyond, ~e^-X)
DELTA_X0S = tuple(float(x) for x in range(6, 61, 2))
#: 003's reverse delta: the upper end's third order is a kernel of its own (not folded into x^2 below
#: X / t) where the monotone range is at least this many 1 / t long (the cubic kernel counts x^3 beyond
#: it too: L = 5, N = 1000, t (s - ylo) ~ 4, the upper end 0.0025 against the fold's 3.8e-4)
DELTA_CUBIC_TX = 12.0
#: 003's reverse delta: the inner box's p_2 edges tried (standard deviations under the tilted law;
#: the slope of R varies ~1e-3 over the box's p_2 range at k = 8, q = 0.36)
DELTA_INNER_Z = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 11.0)
#: eta's kernels: the Taylor terms of F = kappa e_k in Y through this order (F is a polynomial of
#: degree k in Y with every D_j >= 0 on the monotone range: exact coefficients from the box's
#: corners, the rest bounded through rho; order 1 was the slope and f e^(rho x), whose (rho / t)^2
#: loss mattered where a count's light tilt is near rho)
ETA_ORDER = 8
#: a count's light tilt is at least this many times rho (any tilt is valid; near a light mean the
#: floor 1 / (gap + sd) can fall below rho at k >= 64, where no kernel converges: L = 40, N = 10^7,
#: k = 128, q = 0.38, the levels above 35 enumerated)
LIGHT_TILT_RHO = 4.0
#: forward: the power sums that are the box's Taylor variables (the rest enter as balls ``[0,
#: cap]``, first order: L = 40, N = 10^7, k = 128, q = 0.38, the series' gap over a light box at 11
#: sd 9.1e-4 with p_2 .. p_4, 3.1e-4 with p_5 too)
FORWARD_POWERS = (2, 3, 4, 5)
#: the count vectors' integrals are asked for this share of the relative width (k = 128, q = 0.38,
#: cut 34, rel 1e-3: at 1 the integrals' own width was ~6e-4 of each near-lead vector's)
INTEGRAL_REL = 0.1
#: the threshold points' doubling search is followed by this many bisection steps
ROOT_BISECT = 6
#: each count's own cancelling statistic (its light power sums at its own threshold point)
REFINE_COUNT = True


@dataclass(frozen=True)
class KTilted:
    """A certified ``eta`` (``delta`` where ``quantity`` is ``"delta"``: :func:`ktilted_delta`, its
    enclosure in the field ``eta``) by the tilted strategy, with its certificate's pieces: the
    tilt ``t``, the statistic ``stat = (tau, beta, gamma)``, the points ``s_dn``, ``s_up`` (the
    top count's route: the mode's, in total ``Y``), the growth ``rho``, the widest box edge ``z``
    (standard deviations), ``log10`` of the failure bound relative to ``eta`` (``fail``),
    ``log10_eta`` (the middle, a float), the integrals and the seconds; 003's reverse and the
    forward light cut: the top light level ``light`` (reverse: ``rho = 0``) and the levels above
    it whose counts were enumerated (``enumerated``; empty where the union bound or the count
    bound held)."""

    eta: Interval
    t: float
    stat: tuple
    s_dn: float
    s_up: float
    rho: float
    z: float
    fail: float
    log10_eta: float
    integrals: int
    seconds: float
    light: int | None = None
    enumerated: tuple = ()
    quantity: str = "eta"


class _Law:
    """The null level law in floats and arb: ``pi0_j``, ``c_j``, ``w_j = c_j / M``."""

    def __init__(self, d: int, q: Fraction, M: int, prec: int):
        mech = Mechanism(d, q)
        self.M = M
        self.pi0 = [exact_arb(Fraction(p)) for p in mech.pi0]
        self.c = [exact_arb(Fraction(c)) for c in mech.c]
        self.w = [exact_arb(Fraction(c) / M) for c in mech.c]
        self.lpi = np.array([math.log(Fraction(p).numerator) - math.log(Fraction(p).denominator)
                             for p in mech.pi0])
        self.cf = np.array([float(c) for c in mech.c])
        self.wf = self.cf / M
        self.prec = prec
        self.sums = {}

    def below(self, d: int):
        """``(mass, mean weight)`` of the levels below ``d`` under the untilted law (arb; once per
        ``d``: every count vector asks)."""
        if d not in self.sums:
            mass = sum(self.pi0[:d], arb(0))
            self.sums[d] = (mass, sum((x / mass * w for x, w in zip(self.pi0[:d], self.w[:d])), arb(0)))
        return self.sums[d]

    def phi(self, tau: float, beta: float, gamma: float):
        return np.log1p(tau * self.wf) / tau + beta * self.wf ** 3 + gamma * self.wf ** 4

    def phi_arb(self, tau: float, beta: float, gamma: float):
        ta, be, ga = arb(tau), arb(beta), arb(gamma)
        return [(1 + ta * w).log() / ta + be * w ** 3 + ga * w ** 4 for w in self.w]

    def tilted(self, t: float, phi):
        e = self.lpi + t * phi
        e = np.exp(e - e.max())
        return e / e.sum()

    def light(self, top: int) -> "_Law":
        """The sub-law of the levels ``0 .. top`` (untilted masses ``pi0_j``, total below 1)."""
        sub = object.__new__(_Law)
        sub.M, sub.prec, sub.sums = self.M, self.prec, {}
        for name in ("pi0", "c", "w", "lpi", "cf", "wf"):
            setattr(sub, name, getattr(self, name)[:top + 1])
        return sub


def _log_m(lpi, x):
    """``log sum exp(lpi + x)`` (floats)."""
    e = lpi + x
    mx = e.max()
    return float(mx + math.log(np.exp(e - mx).sum()))


def _kappa(M: int, k: int) -> Fraction:
    return Fraction(M ** k, comb(M, k))


def _lam_arb(lam, eps) -> arb:
    return exact_arb(Fraction(lam)) if lam is not None else exact_arb(Fraction(eps)).exp()


def _x_min(kappa: arb, k: int, lam: arb) -> arb:
    """``(lam k! / kappa)^(1/k)``: ``R > lam`` forces ``p_1`` above it (``e_k <= p_1^k / k!``)."""
    return ((lam * arb.fac_ui(k) / kappa).log() / k).exp()


def _chernoff_p1(law: _Law, k: int, x: float) -> float:
    """Float ``log`` of the Chernoff bound of ``P_{D_m}[p_1 > x]`` (routing only)."""
    M = law.M
    lp1 = law.lpi + np.log(law.cf)
    # the convex exponent on a grid of a (0.1 decades from 1 to 1e9): a routing estimate only
    vals = [(M - k) * _log_m(law.lpi, a * law.wf) + k * _log_m(lp1, a * law.wf) - a * x
            for a in 10.0 ** np.linspace(0, 9, 91)]
    return min(0.0, min(vals))


def ktilted_estimate(P: Pair, q, lam=None, eps=None) -> float:
    """``log10`` of the Chernoff bound ``P_{D_m}[p_1 > x_min] >= eta`` (floats, for routing:
    :data:`ROUTE`); 003's reverse: of ``P_D[p_1 < x_min(1 / lam)]`` (Maclaurin: ``R`` is then
    below ``1 / lam``; :data:`REVERSE_ROUTE`); ``0.0`` where it is not small.

    >>> from exactdp.model.pair import canonical_pair
    >>> bool(ktilted_estimate(canonical_pair(10**7, 40, 16), "0.45", 7) < -1000)
    True
    """
    red = kcopies(P)
    if red is None:
        return 0.0
    q = Fraction(q)
    lam, eps = parse_lam_eps(lam, eps)
    M = red.k * red.N
    law = _Law(red.d, q, M, 64)
    lk = math.log(float(lam)) if lam is not None else float(eps)
    k = red.k
    kap = k * math.log(M) - (math.lgamma(M + 1) - math.lgamma(k + 1) - math.lgamma(M - k + 1))
    if not red.forward:
        # P_D[p_1 < x_min(1 / lam)] (R <= kappa p_1^k / k!: a lower bound's scale, for routing)
        x = math.exp((-lk + math.lgamma(k + 1) - kap) / k)
        vals = [M * _log_m(law.lpi, -a * law.wf) + a * x for a in 10.0 ** np.linspace(0, 9, 91)]
        return min(0.0, min(vals)) / math.log(10)
    x = math.exp((lk + math.lgamma(k + 1) - kap) / k)
    return _chernoff_p1(law, red.k, x) / math.log(10)


def _box_stats(law: _Law, Q, i: int):
    """Mean and sd of ``p_i`` under ``Q`` (floats)."""
    wi = law.wf ** i
    m1 = float((Q * wi).sum())
    m2 = float((Q * wi * wi).sum())
    return law.M * m1, math.sqrt(max(law.M * (m2 - m1 * m1), 0.0))


def _box_ivs(law: _Law, Q, z: float, powers=(2, 3, 4)) -> list:
    """The ranges of the power sums ``p_i``, ``i`` in ``powers``, within ``z`` sd of their means
    under ``Q`` (floats, the lower ends at least 0)."""
    return [(max(m - z * sd, 0.0), m + z * sd) for m, sd in (_box_stats(law, Q, i) for i in powers)]


def _boxes(k, stat, wmax: arb, ivs, split: int = SPLIT):
    """The series boxes over ``p_i in ivs[i - 2]`` (floats, ``i = 2, 3, ...``: the Taylor variables;
    every light weight at most ``wmax``) for the statistic ``stat = (tau, beta, gamma)``: the
    ``p_2`` range cut in ``2^split`` pieces, on each ``p_(i+1) <= wmax p_i`` at its top."""
    ta, be, ga = (arb(x) for x in stat)
    iv2 = ivs[0]
    cuts = [iv2[0] + (iv2[1] - iv2[0]) * j / 2 ** split for j in range(2 ** split + 1)]
    cuts[-1] = iv2[1]
    boxes = []
    for a, b in zip(cuts, cuts[1:]):
        box = {2: (arb(a), arb(b))}
        for i, iv in enumerate(ivs[1:], 3):
            box[i] = (arb(iv[0]), arb(min(iv[1], float_hi(wmax * box[i - 1][1]))))
        if any(hi < lo for lo, hi in box.values()):
            continue                    # empty: p_(i+1) >= its lower end > w_max p_i
        # the ball form (series module doc): with the majorant the light cut at L = 40, N = 10^7,
        # k = 64, q = 0.40 printed [2.07e-21, 2.2e-21] instead of [2.11e-21, 2.12e-21] (session 35;
        # not yet looked into), k = 128, q = 0.38 [6.05e-5, 6.06e-5] instead of [6.05e-5, 6.07e-5]
        boxes.append(Box(k, ta, box, wmax, box[2][1], box[3][1], beta=be, gamma=ga, majorant=False))
    if not boxes:
        raise PrecisionError("ktilt: an empty power-sum box")
    return Boxes(boxes)         # the series' matrices cached on it (one per box set)


def _cancel(th: Series, y: float):
    """The statistic ``(tau, beta, gamma)`` cancelling ``p_2``, ``p_3``, ``p_4`` to first order at
    ``y`` (series module doc, "The choice of tau": ``c_j = [t^(k-j)] E_H(t) e^(tY) G0(t)``,
    ``tau = c_2 / c_1``, ``beta = (c_3 / c_1 - tau^2) / 3``, ``gamma = -(c_4 / c_1 - tau^3) / 4``,
    the last from ``d_4 = -(t^4 - tau^3 t) / 4 - gamma t``); floats."""
    ya = arb(y)
    c = [(th.main_row * th._u(ya, j))[0, 0] for j in (1, 2, 3, 4)]
    tau = float((c[1] / c[0]).mid())
    ta = arb(tau)
    beta = float(((c[2] / c[0] - ta ** 2) / 3).mid())
    gamma = float((-(c[3] / c[0] - ta ** 3) / 4).mid())
    return tau, beta, gamma


def _statistic_point(law: _Law, E, kappa: arb, k: int, lam: arb, *, y: float, tau: float, z: float, tol: float,
                     tilted):
    """Floats ``(y, (tau, beta, gamma))``: from ``y`` and ``(tau, 0, 0)``, the threshold point of
    the middle box of the series with ``E_H = E`` over the box of ``law`` within ``z`` sd under
    ``tilted(phi, y)`` (the tilted law for the statistic's ``phi`` and the point) and the
    statistic cancelling the power sums there (:func:`_cancel`), iterated to ``tol`` (relative)."""
    stat = (tau, 0.0, 0.0)
    for _ in range(MAX_ITER):
        th = Series(E, kappa, k, _boxes(k, stat, law.w[-1], _box_ivs(law, tilted(law.phi(*stat), y), z)))
        y1 = th.root(th.main_value, lam, y)
        if not (math.isfinite(y1) and y1 > 0):
            raise PrecisionError("ktilt: no threshold point for the tilted statistic")
        stat1 = _cancel(th, y1)
        done = abs(y1 - y) <= tol * y and abs(stat1[0] - stat[0]) <= 1e3 * tol * stat[0]
        y, stat = y1, stat1
        if not 0 < stat[0] * law.wf[-1] < 0.5:
            raise PrecisionError("ktilt: the statistic's tau is out of range")
        if done:
            break
    return y, stat


def _fixed_point(law: _Law, k: int, kappa: arb, lam: arb, z: float, *, reverse: bool = False):
    """Floats ``(y, (tau, beta, gamma), t)``: the threshold point of the middle box, the
    cancelling statistic there and the saddle-point tilt (module doc; ``reverse``: the threshold
    ``lam`` is 003's ``1 / lam`` and the tilt ``-t`` puts ``Y`` at ``y`` from above)."""
    sg = -1.0 if reverse else 1.0
    y = float(_x_min(kappa, k, lam)) * (1 + 1e-9)
    y, stat = _statistic_point(law, [arb(1)], kappa, k, lam, y=y, tau=k / y, z=z, tol=1e-15, tilted=lambda phi, y: law.tilted(
        sg * tilt_saddle(law.lpi, -sg * phi, law.M, -sg * y), phi))
    t = tilt_saddle(law.lpi, -sg * law.phi(*stat), law.M, -sg * y)
    return y, stat, t


def _fail_dm(law: _Law, k: int, x: float, v, edge: float, *, above: bool, t0: float, sd: float):
    """Float ``(a, b, exponent)`` minimising the Chernoff exponent of ``P_{D_m}[p_1 > x, V >
    edge]`` (``above``; else ``V < edge``), ``V = sum_outputs v(level)`` (``a, b >= 0``)."""
    from scipy.optimize import minimize
    M, sg = law.M, (1.0 if above else -1.0)
    lp1 = law.lpi + np.log(law.cf)

    def f(u):
        if not (abs(u[0]) < 700 and abs(u[1]) < 700):
            return math.inf
        a, b = t0 * math.exp(u[0]), math.exp(u[1]) / sd
        e = a * law.wf + sg * b * v
        return (M - k) * _log_m(law.lpi, e) + k * _log_m(lp1, e) - a * x - sg * b * edge

    best = None
    # also from a with a w_max = 1: a heavy level's a w overflows at t0 (L = 40, k = 128, q = 0.36:
    # w_40 ~ 7.8, the simplex stuck on an infinite plateau, level 40's count window at its cap)
    low = math.log(1.0 / (t0 * float(law.wf.max())))
    for u0 in ([0.0, 1.0], [0.0, 3.0], [-0.5, 2.0], [low, 1.0], [low, 3.0]):
        r = minimize(f, u0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-6, "maxiter": 4000})
        if best is None or r.fun < best.fun:
            best = r
    return t0 * math.exp(best.x[0]), math.exp(best.x[1]) / sd, float(best.fun)


def _fail_dm_arb(law: _Law, k: int, x: arb, v, edge: arb, *, above: bool, a: float, b: float) -> arb:
    """The certified ``log`` of that Chernoff bound at ``(a, b)`` (``v`` arb)."""
    aa, bb = arb(a), arb(b) * (1 if above else -1)
    e = [aa * w + bb * vi for w, vi in zip(law.w, v)]
    m0 = sum((p * u.exp() for p, u in zip(law.pi0, e)), arb(0))
    m1 = sum((p * c * u.exp() for p, c, u in zip(law.pi0, law.c, e)), arb(0))
    return (law.M - k) * m0.log() + k * m1.log() - aa * x - bb * edge


def _fail_q(lq, v, n: int, edge: float, *, above: bool, sd: float):
    """Float ``(b, exponent)`` of the Chernoff bound of ``Q[V > edge]`` (``above``; else ``<``),
    ``V`` the sum of ``n`` draws of ``v`` under the law ``e^lq``."""
    from scipy.optimize import minimize_scalar
    sg = 1.0 if above else -1.0

    def f(u):
        b = math.exp(u) / sd
        return n * _log_m(lq, sg * b * v) - sg * b * edge

    r = minimize_scalar(f, bounds=(-10.0, 12.0), method="bounded", options={"xatol": 1e-9})
    return math.exp(r.x) / sd, float(r.fun)


def _fail_q_arb(probs, v, n: int, edge: arb, *, above: bool, b: float) -> arb:
    bb = arb(b) * (1 if above else -1)
    m = sum((p * (bb * x).exp() for p, x in zip(probs, v)), arb(0))
    return n * m.log() - bb * edge


def _joint_fail(probs, phia, v, n: int, s: arb, *, edge: float, above: bool, t: float) -> arb:
    """A bound of ``E_Q[e^(-theta x); V beyond edge]``-type failure for the lower end: ``E_Q[1{x >
    0} e^(-tx); V > edge]`` (``above``; else ``V < edge``) ``<= E_Q[e^(-theta x) e^(+-b (V -
    edge))]`` for ``0 <= theta <= t / 2``, ``b >= 0`` (``1{x > 0} e^(-tx) <= e^(-theta x)`` for every
    ``x``), ``x = Y - s``, ``Y`` and ``V`` sums of ``n`` draws of ``phi``, ``v`` under ``probs``
    (arb); ``theta``, ``b`` chosen in floats."""
    from scipy.optimize import minimize
    sg = 1.0 if above else -1.0
    lq = np.log(np.maximum(np.array([float(p) for p in probs]), 1e-320))
    ph = np.array([float(x) for x in phia])
    vf = np.array([float(x) for x in v])
    pr = np.exp(lq)
    sd = math.sqrt(max(n * float((pr * vf * vf).sum() - (pr * vf).sum() ** 2), 1e-300))
    sf, ef = float(s), edge

    def f(u):
        if not (abs(u[0]) < 700 and abs(u[1]) < 700):
            return math.inf
        th = 0.5 * t / (1 + math.exp(-u[0]))
        b = math.exp(u[1]) / sd
        return n * _log_m(lq, -th * ph + sg * b * vf) + th * sf - sg * b * ef

    best = None
    for u0 in ([0.0, 1.0], [3.0, 2.0], [-3.0, 2.0]):
        r = minimize(f, u0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-6, "maxiter": 4000})
        if best is None or r.fun < best.fun:
            best = r
    th = arb(0.5 * t / (1 + math.exp(-best.x[0])))
    if not th <= arb(t) / 2:
        th = arb(t) / 4
    bb = arb(math.exp(best.x[1]) / sd) * (1 if above else -1)
    m = sum((p * (-th * x + bb * y).exp() for p, x, y in zip(probs, phia, v)), arb(0))
    return (n * m.log() + th * s - bb * arb(edge)).exp()


def _root_point(th: Series, lam: arb, y0: float, *, above: bool) -> arb:
    """An exact point ``s`` with ``F > lam`` over every box at ``s`` (``above``: ``s_dn``) or ``F <
    lam`` (``s_up``), found from the float root ``y0`` outwards."""
    step = max(abs(y0) * 1e-15, 1e-300)

    def holds(s: float) -> bool:
        v = th.value(arb(s))
        return (above and v > lam) or (not above and v < lam)

    s, last = y0, None
    for _ in range(200):
        if holds(s):
            # the doubling overshoots by up to its last step: bisect back towards the last miss
            # (the gap t (s_dn - s_up) is a share of the width: k = 128, q = 0.38, 1.5e-3 -> )
            for _ in range(ROOT_BISECT if last is not None else 0):
                mid = (s + last) / 2
                if mid in (s, last):
                    break
                if holds(mid):
                    s = mid
                else:
                    last = mid
            return arb(s)
        last = s
        s = s + step if above else s - step
        step *= 2
    raise PrecisionError("ktilt: the series enclosure does not separate lam near the threshold")


def _corner_columns(boxes, E, k: int, s: arb):
    """Per box the coefficients ``0 .. k`` of ``E_H(t) e^(ts)`` times its lower and upper corner
    (:meth:`~exactdp.reductions.kfourier.series.Box.corners`): the ``D_j`` at ``s`` bounded over
    the box from below and above (``e_i(H) >= 0``)."""
    from flint import arb_poly
    EY = [arb(1)]
    for j in range(1, k + 1):
        EY.append(EY[-1] * s / j)
    ey = arb_poly(EY) * arb_poly(E)
    for box in boxes:
        yield tuple(padded_coeffs(ey * arb_poly(c), k + 1) for c in box.corners())


def _low(a: arb) -> arb:
    """The lower end of ``a``, at least 0 (an exact point: the derivatives are nonnegative on the
    monotone range)."""
    x = arb(a.lower())
    return x if x > 0 else arb(0)


def _rho(cols, k: int) -> arb:
    """``max_i (D_(k-i) / D_k)^(1/i)`` over :func:`_corner_columns`' columns ``cols`` (module doc):
    the upper corner's over the lower corner's."""
    best = arb(0)
    for lo, up in cols:
        if not lo[k] > 0:
            raise PrecisionError("ktilt: the lower corner's D_k is not positive")
        for i in range(1, k + 1):
            r = arb((up[k - i] / lo[k]).upper())
            if r > 0:
                g = (r.log() / i).exp()
                best = arb(max(float_hi(best), float_hi(g)))
    return best


def _heavy_poly(n: int, w: arb, k: int):
    """``[t^i] (1 + w t)^n``, ``i = 0 .. k`` (arb)."""
    out = [arb(1)]
    for i in range(min(n, k)):              # C(n, i + 1) w^(i + 1) from C(n, i) w^i
        out.append(out[-1] * w * (n - i) / (i + 1))
    return out + [arb(0)] * (k - min(n, k))


def _heavy_vector(law: _Law, levels, counts, k: int):
    """``(E_H, log weight)`` of a count vector of enumerated levels: ``[t^i] prod_j (1 + w_j
    t)^(n_j)``, ``i = 0 .. k``, and ``log`` of the multinomial factor ``prod_j C(M - n_<j, n_j)
    pi0_j^(n_j)`` (times ``light mass^(M - n)``: ``P_D`` of the vector)."""
    from flint import arb_poly
    E, weight_log, rest = arb_poly([1]), arb(0), law.M
    for j, c in zip(levels, counts):
        E = E * arb_poly(_heavy_poly(c, law.w[j], k))
        weight_log += arb(comb(rest, c)).log() + c * law.pi0[j].log()
        rest -= c
    return padded_coeffs(E, k + 1), weight_log


def ktilted_eta(P: Pair, q, lam=None, eps=None, *, rel: float = 1e-6, prec: int = 192,
                route: float | str | None = "auto", heavy: int | None = None,
                light: int | None = None, cut: int | None = None,
                deadline: float | None = None) -> KTilted:
    """Certified ``eta`` of a k-copies pair (:func:`~exactdp.reductions.kcopies.kcopies`) by
    tilting (module doc): forward ``P[R > lam]``, 003's reverse ``P[R < 1 / lam]`` ("The reverse
    direction"); relative width about ``rel`` (a target; the result is an enclosure whatever
    width it reaches).  ``heavy`` (forward): 0 (no level enumerated), 1 (the top level's count
    enumerated) or 2 (the top two levels' counts); ``None`` chooses by the series width (module
    doc, "The top levels").  ``light`` (reverse): the top light level
    (``None``: the module doc's choice; a level ``0 .. d``).  ``cut`` (forward): the top light
    level of the light-cut plan (module doc, "The light cut": the levels above it enumerated, the
    plan from the levels below; a level ``1 .. d - 1``); ``None``: taken (the cut chosen) where
    the whole law's statistic is out of range (``tau w_max >= 1/2``), there also within the
    walk's range (``route``) from :data:`CUT_ROUTE_K` copies on (:func:`_cut_route`); ``deadline`` (a
    ``time.monotonic()`` instant) ends its enumeration early, the vectors left bounded by
    ``E_D[R; counts]`` (a wider enclosure).  Raises
    :class:`~exactdp.core.errors.CapacityError` where the pair is not k-copies with ``k >= 2``
    or (``route``; ``"auto"``: :data:`ROUTE` forward, :data:`REVERSE_ROUTE` reverse; ``None``:
    none) where :func:`ktilted_estimate` is above ``10^route`` (the walk's range: ``auto`` goes on
    to it), :class:`PrecisionError` where a certificate fails (the monotonicity, the box, the
    decay of the tilted law; reverse: no light cut with small failure bounds)."""
    return _solve(P, q, lam, eps, rel=rel, prec=prec, route=route, heavy=heavy, light=light, cut=cut,
                  deadline=deadline)


def ktilted_delta(P: Pair, q, lam=None, eps=None, *, rel: float = 1e-6, prec: int = 192,
                  route: float | str | None = "auto", heavy: int | None = None) -> KTilted:
    """Certified ``delta`` of a k-copies pair by tilting (000 (1.1) with an additive ``delta``,
    :func:`~exactdp.reductions.kfourier.kfourier_delta`).  Forward ``delta = P_(D_m)[R > lam] - lam
    P_D[R > lam] = E_D[(R - lam)+]``, the same certificate as :func:`ktilted_eta` with the function
    ``(R - lam)+`` in place of ``R``: on the box ``(R - lam_hi)+ >= (f_lo - lam_hi) + sigma x``
    above ``s_dn`` (convexity) and ``(R - lam_lo)+ <= f_up (e^(rho x) - 1)`` above ``s_up``
    (``f_up < lam_lo``); a top count whose heavy outputs alone exceed ``lam`` gives ``E[R | n] -
    lam`` exactly.  003's reverse ``delta = E_D[(1 - lam R)+]`` (module doc, "delta of the
    reverse").  The result's ``eta`` field holds ``delta`` (``quantity`` ``"delta"``).  Raises as
    :func:`ktilted_eta`.

    >>> from exactdp.model.pair import canonical_pair
    >>> d = ktilted_delta(canonical_pair(10**7, 40, 2), "0.45", 7, rel=1e-4)
    >>> e = ktilted_eta(canonical_pair(10**7, 40, 2), "0.45", 7, rel=1e-4)
    >>> d.quantity, d.eta.relative_width() < 1e-3, d.eta.upper < e.eta.lower
    ('delta', True, True)
    """
    return _solve(P, q, lam, eps, rel=rel, prec=prec, route=route, heavy=heavy, light=None, delta=True)


def _solve(P: Pair, q, lam, eps, *, rel: float, prec: int, route, heavy, light, delta: bool = False,
           cut: int | None = None, deadline: float | None = None) -> KTilted:
    t0 = time.time()
    if not (isinstance(rel, (int, float)) and 0 < rel < 1):
        raise ParameterError(f"rel must be in (0, 1), got {rel!r}")
    if heavy not in (None, 0, 1, 2):
        raise ParameterError(f"heavy must be None, 0, 1 or 2, got {heavy!r}")
    red = kcopies(P)
    if red is None or red.k < 2:
        raise CapacityError("ktilt: k-copies pairs with k >= 2 only")
    q = Fraction(q)
    lam, eps = parse_lam_eps(lam, eps)
    if cut is not None:
        if not (isinstance(cut, int) and 1 <= cut < red.d):
            raise ParameterError(f"cut must be a level in 1 .. {red.d - 1}, got {cut!r}")
        if not red.forward or delta or heavy is not None:
            raise ParameterError("cut applies to the forward eta alone, without heavy")
    if (red.forward and light is not None) or (not red.forward and heavy is not None):
        raise ParameterError("heavy applies to the forward direction, light to the reverse")
    if route == "auto":
        route = ROUTE if red.forward else REVERSE_ROUTE
    # the light cut where the whole law's statistic refuses (forward eta): within the walk's
    # range too (the walk is slow there: k >= 64, q 0.32 .. 0.40)
    est = ktilted_estimate(P, q, lam, eps)
    walk_range = route is not None and est > route
    may_cut = red.forward and not delta and heavy is None and (not walk_range or _cut_route(red.k, est))
    if walk_range and not may_cut:
        raise CapacityError(f"ktilt: eta is above 10^{route:g} (the walk's range)")
    k, M = red.k, red.k * red.N
    with one_blas_thread(), ctx.workprec(prec):
        law = _Law(red.d, q, M, prec)
        lam_a = _lam_arb(lam, eps)
        if red.forward and cut is None and may_cut:
            try:
                run = _Run(law, k, lam_a, rel, delta=delta)
            except PrecisionError:
                cut = "auto"
            else:
                if walk_range:
                    raise CapacityError(f"ktilt: eta is above 10^{route:g} (the walk's range)")
        if cut is not None:
            res, crun = _cut_answer(_cut_runs(law, k, lam_a, rel, None if cut == "auto" else cut), rel, deadline)
            return _ktilted(res, crun, t0, light=crun.cut, enumerated=tuple(range(crun.cut + 1, red.d + 1)))
        if not red.forward:
            if light is not None and not (isinstance(light, int) and 0 <= light <= red.d):
                raise ParameterError(f"light must be a level in 0 .. {red.d}, got {light!r}")
            run = _ReverseRun(law, k, lam_a, rel, light=light, delta=delta)
            res = run.answer()
            return _ktilted(res, run, t0, light=len(run.law.wf) - 1,
                            enumerated=tuple(run.enum["levels"]) if run.enum is not None else (),
                            quantity="delta" if delta else "eta")
        if not (red.forward and may_cut):
            run = _Run(law, k, lam_a, rel, delta=delta)
        if heavy is None:
            # the top level's count enumerated where the one box is too wide and the count is
            # small (each count within reach costs an integral)
            few = M * float(run.Q[-1]) <= TOP_COUNT_MAX
            heavy = 1 if few and run.single_width() > rel / 4 else 0
            two = heavy == 1 and M * float(run.Q[-2]) <= TOP_COUNT_MAX
        else:
            two = heavy == 2
        d = len(law.wf) - 1
        res = run.single() if heavy == 0 else run.top(d - 1 if heavy == 2 else d)
        if heavy == 1 and two and res["eta"].relative_width() > max(TOP_TWO_WIDER * rel, TOP_TWO_WIDTH):
            # the light box lumpy at its top level: that level's count enumerated too
            two_res = run.top(d - 1)
            if two_res["eta"].width < res["eta"].width:
                res = {**two_res, "eta": res["eta"].intersect(two_res["eta"])}
    return _ktilted(res, run, t0, quantity="delta" if delta else "eta")


def _ktilted(res: dict, run, t0: float, **kw) -> KTilted:
    """The result of a run's answer ``res`` (started at ``t0``)."""
    return KTilted(res["eta"], run.t, run.stat, res["s_dn"], res["s_up"], res["rho"], run.z, res["fail"],
                   res["log10"], res["integrals"], time.time() - t0, **kw)


class _Run:
    """One certified run: the float plan (threshold point, statistic, tilt, box half-width) and
    the two certificates, without enumeration (:meth:`single`) or with the top level's count
    enumerated (:meth:`top`)."""

    #: the power sums that are the box's Taylor variables
    POWERS = FORWARD_POWERS

    def __init__(self, law: _Law, k: int, lam: arb, rel: float, *, delta: bool = False):
        self._threshold(law, k, lam, rel, delta)
        self._tilt(law, *_fixed_point(law, k, self.kappa, lam, BOX_Z[1]), sign=1.0)
        self.z = None

    def _threshold(self, law: _Law, k: int, lam: arb, rel: float, delta: bool):
        """The forward run's constants: ``kappa``, ``lam``'s ends and Maclaurin's ``x_min`` at
        ``lam``'s lower end (every ``R > lam`` has ``p_1 > x_min``)."""
        self.law, self.k, self.rel, self.delta = law, k, rel, delta
        self.kappa = exact_arb(_kappa(law.M, k))
        self.lam, self.lam_lo, self.lam_hi = lam, arb(lam.lower()), arb(lam.upper())
        self.xmin_lo = arb(_x_min(self.kappa, k, self.lam_lo).lower())

    def _tilt(self, law: _Law, y: float, stat, t: float, *, sign: float):
        """The float plan's state: the threshold point ``y``, the statistic, the tilt ``sign t``
        (forward ``+``, reverse ``-``), the tilted law and ``eta``'s scale (``m^M e^(-sign t y) /
        (t sd sqrt(2 pi))``, times ``lam`` forward; floats, the failure bounds' target)."""
        M = law.M
        self.y, self.stat, self.t = y, stat, t
        self.tau, self.beta, self.gamma = stat
        self.phi = law.phi(*stat)
        self.phia = law.phi_arb(*stat)
        self.Q = law.tilted(sign * t, self.phi)
        sdy = self.sdy = math.sqrt(M * float((self.Q * self.phi ** 2).sum() - (self.Q * self.phi).sum() ** 2))
        lead = math.log(float(self.lam)) if sign > 0 else 0.0
        self.log_eta = (lead + M * _log_m(law.lpi, sign * t * self.phi) - sign * t * y
                        - math.log(max(t * sdy * math.sqrt(2 * math.pi), 1.0)))
        if self.delta:
            # delta = E_D[(R - lam)+]: R's growth k / y over the tilt t of eta's scale
            self.log_eta += math.log(min(1.0, self.k / (y * t)))
        self.target = self.log_eta + math.log(self.rel * FAIL_SHARE)

    def _gap(self, boxes, E=None, y: float | None = None) -> float:
        """``t (s_dn - s_up)`` of the one-box series over ``boxes`` (``E``: the enumerated outputs'
        polynomial, default none; ``y`` the guess, default the plan's point; floats: the series'
        share of the relative width, for the choices; ``inf`` where the points do not separate)."""
        th = Series([arb(1)] if E is None else E, self.kappa, self.k, boxes)
        y = self.y if y is None else y
        try:
            s_dn = _root_point(th, self.lam_hi, y, above=True)
            s_up = _root_point(th, self.lam_lo, y, above=False)
        except PrecisionError:
            return math.inf
        return self.t * float(s_dn - s_up)

    # ---------------------------------------------------------------- the box
    def _choose_box(self, light: int, extra=()):
        """``(z, edges, fails)``: per statistic and side the least ``BOX_Z`` whose failure bound
        is below the target, under ``D_m`` (upper end) and ``Q`` (lower end); the statistics are
        the power sums ``p_2``, ``p_3`` of the levels below ``light`` and the ``extra`` ``(name,
        v)`` (``V = sum_outputs v(level)``).  ``z``: the largest taken."""
        law, k, M, Q = self.law, self.k, self.law.M, self.Q
        lq = np.log(np.maximum(Q, 1e-320))
        mask = np.arange(len(law.wf)) < light
        stats = {}
        for i in self.POWERS:
            stats[i] = np.where(mask, law.wf ** i, 0.0)
        for name, v in extra:
            stats[name] = v
        edges, fails, zmax = {}, [], 0.0
        for key, v in stats.items():
            m1, m2 = float((Q * v).sum()), float((Q * v * v).sum())
            m, s = M * m1, math.sqrt(max(M * (m2 - m1 * m1), 1e-300))
            ends = []
            for above in (True, False):
                edge, z, fit = self._edge(BOX_Z, m, s, v, lq, above=above, upper=lambda edge, above: _fail_dm(
                    law, k, float(self.xmin_lo), v, edge, above=above, t0=self.t, sd=s))
                if fit is not None:
                    fails.append((key, v, edge, above, fit[0], fit[1], fit[3]))
                ends.append(edge)
                zmax = max(zmax, z)
            edges[key] = (ends[1], ends[0])
        self.z = zmax
        return zmax, edges, fails

    def _edge(self, zs, m: float, s: float, v, lq, *, above: bool, upper):
        """``(edge, z, (a, b, exponent, bq))``: the first ``z`` in ``zs`` whose edge ``m +- z s``
        has the upper end's failure ``upper(edge, above)`` (float ``(a, b, exponent)``) below the
        target and the tilted law's below the width (``(0, 0, None)`` where the edge below is
        at 0: no failure)."""
        for z in zs:
            edge = m + z * s if above else m - z * s
            if not above and edge <= 0:
                return 0.0, 0.0, None
            a, b, e = upper(edge, above)
            bq, eq = _fail_q(lq, v, self.law.M, edge, above=above, sd=s)
            if e <= self.target and eq <= math.log(self.rel * FAIL_SHARE) - 5:
                return edge, z, (a, b, e, bq)
        raise PrecisionError("ktilt: no box of the power sums with a small enough failure bound")

    def _fail_arb(self, fails, probs, n):
        """``(D_m failure, Q failure)`` bounds in arb for the chosen edges (``probs``: the tilted
        law the lower end's integral uses, ``n`` its draws)."""
        law = self.law
        dm, qf = arb(0), arb(0)
        for key, v, edge, above, a, b, bq in fails:
            va = [exact_arb(Fraction(x)) for x in v] if not isinstance(key, int) else \
                [w ** key if x > 0 else arb(0) for w, x in zip(law.w, v)]
            ea = arb(edge)
            dm += _fail_dm_arb(law, self.k, self.xmin_lo, va, ea, above=above, a=a, b=b).exp()
            if probs is not None:
                qf += _fail_q_arb(probs, va[:len(probs)], n, ea, above=above, b=bq).exp()
        return dm, qf

    # ---------------------------------------------------------------- no enumeration
    def single_width(self) -> float:
        """``t (s_dn - s_up)`` of the one-box series at ``BOX_Z[1]`` (floats: the relative width
        without enumeration, for the choice)."""
        law, z = self.law, BOX_Z[1]
        return self._gap(_boxes(self.k, self.stat, law.w[-1], _box_ivs(law, self.Q, z, self.POWERS)))

    def single(self) -> dict:
        law, k, M = self.law, self.k, self.law.M
        z, edges, fails = self._choose_box(len(law.wf))
        boxes = _boxes(k, self.stat, law.w[-1], [edges[i] for i in self.POWERS])
        th = Series([arb(1)], self.kappa, k, boxes)
        self._monotone(boxes, self.xmin_lo)
        s_dn = _root_point(th, self.lam_hi, self.y, above=True)
        s_up = _root_point(th, self.lam_lo, self.y, above=False)
        ends = self._ends(th, boxes, [arb(1)], s_dn, s_up)
        th_t = arb(self.t)
        if not th_t > 2 * ends[2]:
            raise PrecisionError("ktilt: the tilt is not above the growth of R")
        ut = upper_tail(law.pi0, self.phia, M, self._points(s_dn, s_up, ends, self.t), t=self.t, rel=self.rel,
                        prec=law.prec)
        fail_dm, _ = self._fail_arb(fails, None, M)
        qf = self._lower_fail(fails, ut.probs, self.phia, len(law.w), n=M,
                              s_dn=s_dn, t=self.t)
        lower, upper = self._combine(ut, s_dn, s_up, ends, qf)
        return self._result(lower, upper + fail_dm, fail_dm, points=(s_dn, s_up, ends[2]), integrals=ut.integrals)

    def _ends(self, th, boxes, E, s_dn, s_up):
        """``(f_lo, f_up, rho, lo_terms, up_terms)``: ``F`` at ``s_dn`` from below, ``F`` at
        ``s_up`` from above, the growth ``rho`` there and the Taylor terms ``kappa D_(k-i) / i!``,
        ``i = 1 .. ETA_ORDER``, at ``s_dn`` from below and at ``s_up`` from above (``F(s + x) =
        kappa sum_i x^i D_(k-i)(s) / i!`` exactly: ``F`` is a polynomial of degree ``k`` in ``Y``;
        each ``D_j`` is nondecreasing in ``Y`` on the monotone range)."""
        k = self.k
        f_lo = arb(th.value(s_dn).lower())
        f_up = arb(th.value(s_up).upper())
        cols_up = list(_corner_columns(boxes, E, k, s_up))
        rho = _rho(cols_up, k)
        top = min(ETA_ORDER, k)
        # F^(i) over the box: the series' coupled Taylor form within the corners' bound
        lows = [_low(d) for d in th.derivatives(s_dn, top)]
        der_up = th.derivatives(s_up, top)
        lo_terms = tuple(arb((c / math.factorial(i)).lower()) for i, c in enumerate(lows, 1))
        up_terms = tuple(arb((arb(d.upper()) / math.factorial(i)).upper()) for i, d in enumerate(der_up, 1))
        return f_lo, f_up, rho, lo_terms, up_terms

    def _points(self, s_dn, s_up, ends, t: float):
        """The kernels' points ``(s, c_0, c_1, ...)`` (``E_Q[sum_i c_i x^i e^(-tx); x > 0]``):
        eta's functions over ``f`` (``_combine`` multiplies); delta's ``(f_lo - lam_hi) + sum_i lo_i
        x^i`` at ``s_dn`` and ``sum_i up_i x^i`` at ``s_up`` (``(R - lam_lo)+ <= F(s_up + x) -
        F(s_up)`` on the box, ``F(s_up) < lam_lo``; the remainder past the terms in
        :meth:`_combine`)."""
        f_lo, f_up, rho, lo_terms, up_terms = ends
        if self.delta:
            return [(s_dn, arb((f_lo - self.lam_hi).lower())) + lo_terms, (s_up, 0) + up_terms]
        return [(s_dn, 1) + tuple(arb((c / f_lo).lower()) for c in lo_terms),
                (s_up, 1) + tuple(arb((c / f_up).upper()) for c in up_terms)]

    def _lower_fail(self, fails, probs, phia, d: int, *, n: int, s_dn, t: float) -> arb:
        """The lower end's failure (in units of its function): the box's statistics beyond their
        edges jointly with ``x > 0`` (:func:`_joint_fail`), under the tilted law ``probs`` of the
        ``n`` draws over the levels below ``d``."""
        law = self.law
        qf = arb(0)
        for key, v, edge, above, a, b, bq in fails:
            if not isinstance(key, int):
                continue                    # an enumerated level's count
            va = [w ** key if x > 0 else arb(0) for w, x in zip(law.w[:d], v[:d])]
            qf += _joint_fail(probs, phia[:d], va, n, s_dn, edge=edge, above=above, t=t)
        return qf

    def _monotone(self, boxes, xmax: arb, ylo=None):
        """The series certified nondecreasing from ``ylo`` (default ``xmax - max c``) over the boxes,
        with ``kappa (ylo + max c)^k / k! <= lam`` there (``xmax`` at most ``x_min``); ``ylo``."""
        cmax = max(float_hi(b.y_shift()) for b in boxes)
        if ylo is None:
            ylo = arb(math.nextafter(float(xmax.lower()) - cmax, -math.inf))
        if not (ylo + arb(cmax) <= xmax and ylo > 0):
            raise PrecisionError("ktilt: no monotone range below the threshold")
        for b in boxes:
            if not monotone_pieces(b, float(ylo)):
                raise PrecisionError("ktilt: the series is not certified monotone over the box")
        return ylo

    def _combine(self, ut, s_dn, s_up, ends, fail_q, *, weight=None):
        """``(lower, upper)`` arbs of one integral pair (module doc), times ``weight``: ``ends``
        of :meth:`_ends`; eta's lower end's function ``f_lo + sum_i lo_i x^i`` (the Taylor terms
        from below, every ``D_j >= 0``), less its failure ``fail_q (f_lo + sum_i lo_i (2i / (e
        t))^i)`` (``x^j e^(-tx) <= (2j / (e t))^j e^(-tx / 2)``); the upper end's ``f_up + sum_i up_i
        x^i`` plus the remainder ``sum_(i > m) <= f_up (rho x)^(m+1) e^(rho x) / (m+1)!`` (``D_(k-i)
        <= D_k rho^i``), whose kernel is at most ``f_up rho^(m+1) / (m+1)! ((m+1) / (e (t -
        rho)))^(m+1)``."""
        f_lo, f_up, rho, lo_terms, up_terms = ends
        th_t = arb(ut.t)
        e1 = arb(1).exp()
        jk_dn, jk_up = ut.values
        pre_dn = ut.log_prefactor(s_dn).exp()
        pre_up = ut.log_prefactor(s_up).exp()
        # the lower end's failure: its function at x^i <= (2i / (e t))^i e^(tx / 2)
        tail = sum((c * (2 * i / (e1 * th_t)) ** i for i, c in enumerate(lo_terms, 1)), arb(0))
        if self.delta:
            lower = exact_arb(jk_dn.lower) - fail_q * (arb((f_lo - self.lam_hi).lower()) + tail)
        else:
            lower = f_lo * exact_arb(jk_dn.lower) - fail_q * (f_lo + tail)
        lower = pre_dn * lower if lower > 0 else arb(0)
        # the remainder past the kernel's terms (both: F(s_up + x) - F(s_up) - sum_i up_i x^i)
        m1 = len(up_terms) + 1
        rem = rho ** m1 / math.factorial(m1) * (m1 / (e1 * (th_t - rho))) ** m1
        jk = exact_arb(jk_up.upper)
        upper = pre_up * (jk + f_up * rem) if self.delta else f_up * pre_up * (jk + rem)
        if weight is not None:
            lower, upper = lower * weight, upper * weight
        return lower, upper

    def _result(self, lower, upper, fail_dm, *, points, integrals) -> dict:
        s_dn, s_up, rho = points
        lo_iv = arb_to_interval(arb(lower.lower())) if lower > 0 else Interval.exact(Fraction(0))
        up_iv = arb_to_interval(arb(upper.upper()))
        eta = Interval(max(lo_iv.lower, Fraction(0)), up_iv.upper)
        l10 = arb(10).log()
        mid = float(((lower + upper) / 2).log() / l10) if lower > 0 else float(upper.log() / l10)
        frel = float((fail_dm / upper).log() / l10) if fail_dm > 0 else -math.inf
        return {"eta": eta, "s_dn": float(s_dn), "s_up": float(s_up), "rho": float(rho), "fail": frel,
                "log10": mid, "integrals": integrals}

    # ---------------------------------------------------------------- the top level's count
    def _certain(self, n: int, E, s_dn: arb, fails, *, d: int, weight_log: arb, phi, phia):
        """A top count whose light threshold ``s_dn`` lies far below the light mean (the count has
        done the deviation): ``E[R 1{R > lam} | n]`` lies in ``[E[R | n] - lam P[R <= lam | n],
        E[R | n]]`` with ``E[R | n] = kappa [t^k] E_H(t) (1 + t mu)^(n')`` exactly (independent
        outputs: ``E prod (1 + t w) = prod E (1 + t w)``; ``mu`` the light mean weight) and
        ``P[R <= lam | n] <= P[Y < s_dn | n] + P[not B | n]`` (Chernoff bounds of the untilted
        light law).  ``(lower, upper)`` times the count's mass, or ``None`` where the bound is not
        below ``FAIL_SHARE rel`` of ``E[R | n]`` (or the threshold is not far out)."""
        law, M = self.law, self.law.M
        nl = M - n
        lpi = law.lpi[:d] - _log_m(law.lpi[:d], 0.0)
        p = np.exp(lpi)
        phi = phi[:d]
        mean = nl * float((p * phi).sum())
        sd = math.sqrt(max(nl * float((p * phi * phi).sum() - (p * phi).sum() ** 2), 1e-300))
        if not float(s_dn) < mean - 6 * sd:
            return None
        rest = self._light_mass(d)
        probs = [x / rest for x in law.pi0[:d]]
        er = self._mean_r(n, E, d)
        # P[Y < s_dn]: Chernoff of the lower tail, theta in floats
        from scipy.optimize import minimize_scalar
        f = (lambda u: nl * _log_m(lpi, -math.exp(u) / sd * phi) + math.exp(u) / sd * float(s_dn))
        r = minimize_scalar(f, bounds=(-5.0, 12.0), method="bounded", options={"xatol": 1e-9})
        th = arb(math.exp(r.x) / sd)
        m = sum((x * (-th * v).exp() for x, v in zip(probs, phia[:d])), arb(0))
        plow = (nl * m.log() + th * s_dn).exp()
        pf = self._light_fail(fails, probs, d, nl)
        gap = self.lam_hi * (plow + pf)
        wt = self._weight(weight_log, n, d)      # P_D[counts]
        if self.delta:
            # E[(R - lam)+ | n] = E[R | n] - lam + E[(lam - R)+ | n], the last in [0, gap]
            if not (er > self.lam_hi and gap < (er - self.lam_hi) * self.rel * FAIL_SHARE):
                return None
            return (er - self.lam_hi) * wt, (er - self.lam_lo + gap) * wt
        if not gap < er * self.rel * FAIL_SHARE:
            return None
        return (er - gap) * wt, er * wt

    @staticmethod
    def _light_tilt(lpi, phi, n: int, s: float) -> float:
        """The light law's tilt for the threshold ``s``: the saddle point where ``s`` is a far
        upper tail, else ``1 / (max(mean - s, 0) + sd)`` (any ``t > 0`` is valid: this keeps the
        integral moderate where the top count has done most of the deviation)."""
        p = np.exp(lpi - lpi.max())
        p /= p.sum()
        mean = n * float((p * phi).sum())
        sd = math.sqrt(max(n * float((p * phi * phi).sum() - (p * phi).sum() ** 2), 1e-300))
        floor = 1.0 / (max(mean - s, 0.0) + sd)
        if s > mean:
            try:
                return max(tilt_saddle(lpi, -phi, n, -s), floor)
            except PrecisionError:
                pass
        return floor

    def top(self, first: int | None = None) -> dict:
        """The counts of the levels ``first .. d`` enumerated (module doc, "The top level" and
        "The top levels"; default the top level alone): per count vector its own series (``E_H =
        prod_j (1 + w_j t)^(n_j)``), points and tilt of the light law (the levels below
        ``first``)."""
        import itertools
        law, k, M = self.law, self.k, self.law.M
        D = len(law.wf) - 1
        first = D if first is None else first
        levels = list(range(first, D + 1))
        extra = [(("count", j), (np.arange(D + 1) == j).astype(float)) for j in levels]
        _, edges, fails = self._choose_box(first, extra=extra)
        windows = [range(math.ceil(edges[key][0]), math.floor(edges[key][1]) + 1) for key, _ in extra]
        boxes = _boxes(k, self.stat, law.w[first - 1], [edges[i] for i in self.POWERS])
        self.cmax = max(float_hi(b.y_shift()) for b in boxes)
        self.p3hi, self.p4hi = arb(edges[3][1]), arb(edges[4][1])
        # a count outside its window is in `fails` (key ("count", j): edges at the float ends;
        # the integer range lies inside them), with the light box's
        fail_dm, _ = self._fail_arb(fails, None, M)
        self._ylo_ok, self._keep, self.edges = {}, [boxes], edges
        mode = self._modes(levels)
        nodes = math.prod(len(w) for w in windows)
        vectors, upper = self._tree(levels, windows, nodes) if len(levels) > 1 else (
            list(itertools.product(*windows)), arb(0))
        vectors.sort(key=lambda n: sum(abs(c - m) / math.sqrt(m + 1) for c, m in zip(n, mode)))
        lower, integrals = arb(0), 0
        first_pts = None
        for n in vectors:
            lo_n, up_n, got, pts = self._count(n, levels, boxes, fails, nodes)
            lower += lo_n
            upper += up_n
            integrals += got
            if first_pts is None and pts is not None:
                first_pts = pts
        upper += fail_dm
        s_dn, s_up, rho = first_pts if first_pts is not None else (arb(0), arb(0), arb(0))
        return self._result(lower, upper, fail_dm, points=(s_dn, s_up, rho), integrals=integrals)

    def _tree(self, levels, windows, nodes: int):
        """``(vectors, bound)``: the count vectors of ``levels`` in their ``windows`` as a tree (the
        top level's count first, then the next level's, ...), a subtree whose fixed counts (levels
        ``levels[j:]``) have ``E_D[R; those counts] = P_D[counts] kappa [t^k] E_H(t) (1 + t
        mu)^(n')`` (the other outputs free over the levels below ``levels[j]``, :meth:`_mean_r`)
        below its share of the target (``FAIL_SHARE rel`` of ``eta``'s scale over ``nodes``,
        times its leaves) bounded by that (``bound``, their sum) instead of enumerated."""
        law, k = self.law, self.k
        share = self.log_eta + math.log(self.rel * FAIL_SHARE / nodes)
        vectors, bound = [], arb(0)

        def walk(j, counts):
            nonlocal bound
            if j == 0:
                vectors.append(counts)
                return
            if counts:
                E, weight_log = _heavy_vector(law, levels[j:], counts, k)
                n = sum(counts)
                b = self._mean_r(n, E, levels[j]) * self._weight(weight_log, n, levels[j])
                if float(b.upper().log()) < share + math.log(math.prod(len(w) for w in windows[:j])):
                    bound += b
                    return
            for c in windows[j - 1]:
                walk(j - 1, (c,) + counts)

        walk(len(levels), ())
        return vectors, bound

    def _modes(self, levels) -> list:
        """The enumerated levels' tilted counts (floats: the vectors' order, nearest first)."""
        return [self.law.M * float(self.Q[j]) for j in levels]

    def _count(self, counts, levels, boxes, fails, nodes: int):
        """One count vector ``counts`` of the enumerated ``levels``: ``(lower, upper, integrals,
        (s_dn, s_up, rho) in total Y or None)``."""
        law, k, M = self.law, self.k, self.law.M
        d, n = levels[0], sum(counts)
        E, weight_log = _heavy_vector(law, levels, counts, k)
        heavy_w = sum((c * law.w[j] for j, c in zip(levels, counts)), arb(0))
        heavy_phi = float(sum((c * self.phia[j] for j, c in zip(levels, counts)), arb(0)))
        er = self._mean_r(n, E, d)
        wt = self._weight(weight_log, n, d)         # P_D[counts]
        # the heavy outputs alone decide: R >= kappa e_k(H) (e_k grows with every output)
        if self.kappa * E[k] > self.lam_hi:
            if self.delta:                  # (R - lam)+ = R - lam there
                return (er - self.lam_hi) * wt, (er - self.lam_lo) * wt, 0, None
            return er * wt, er * wt, 0, None
        if len(levels) > 1 and float((er * wt).upper().log()) < \
                self.log_eta + math.log(self.rel * FAIL_SHARE / nodes):
            return arb(0), er * wt, 0, None     # E_D[R; counts] below its share (no series)
        xmax = self.xmin_lo - heavy_w
        stat, phi, phia = self.stat, self.phi, self.phia
        first = None
        for refine in (True, False):
            cmax = max(float_hi(b.y_shift()) for b in boxes)
            ylo = arb(math.nextafter(float(xmax.lower()) - cmax, -math.inf)) if xmax > 0 else arb(-1)
            try:
                if id(boxes) not in self._ylo_ok or ylo < self._ylo_ok[id(boxes)]:
                    self._monotone(boxes, xmax, ylo)
                    self._ylo_ok[id(boxes)] = ylo
            except PrecisionError:
                if not refine:
                    if first is None:
                        raise
                    # the refined statistic's boxes not certified: the first statistic's (certified)
                    # (L = 5, N = 1000, k = 2, q = 0.2446: a count with x_max ~ 0.018)
                    boxes, stat, phi, phia, th, y0 = first
                    break
                # no monotone range: the linear bound R >= kappa (e_k(H) + e_(k-1)(H) p_1(L))
                sure = self._certain(n, E, self._linear_point(E), fails, d=d, weight_log=weight_log, phi=phi, phia=phia)
                if sure is None:
                    raise
                return sure[0], sure[1], 0, None
            th = Series(E, self.kappa, k, boxes)
            guess = max(self.y - heavy_phi, float(ylo) * 1.0001 + 1e-300)
            y0 = th.root(th.main_value, self.lam, guess)
            if not (refine and REFINE_COUNT):
                break
            first = (boxes, stat, phi, phia, th, y0)
            # the statistic cancelling this count's light power sums (a float choice)
            stat = _cancel(th, y0)
            phi, phia = law.phi(*stat), law.phi_arb(*stat)
            boxes = _boxes(k, stat, law.w[d - 1], [self.edges[i] for i in self.POWERS])
            self._keep.append(boxes)
        s_dn = _root_point(th, self.lam_hi, y0, above=True)
        s_up = _root_point(th, self.lam_lo, y0, above=False)
        ends = self._ends(th, boxes, E, s_dn, s_up)
        f_up, rho = ends[1], ends[2]
        heavy_y = sum((c * phia[j] for j, c in zip(levels, counts)), arb(0))
        pts = (s_dn + heavy_y, s_up + heavy_y, rho)
        sure = self._certain(n, E, s_dn, fails, d=d, weight_log=weight_log, phi=phi, phia=phia)
        if sure is not None:
            return sure[0], sure[1], 0, pts
        nl = M - n
        lpi_l, phi_l = law.lpi[:d], phi[:d]
        pi0_l, phia_l = law.pi0[:d], phia[:d]
        # at least LIGHT_TILT_RHO rho: the kernels' remainder falls as (rho / (t - rho))^(m+1)
        tn = max(self._light_tilt(lpi_l, phi_l, nl, float(s_dn)), LIGHT_TILT_RHO * float(rho.upper()))
        if not arb(tn) > 2 * rho:
            raise PrecisionError("ktilt: the light tilt is not above the growth of R")
        thn = arb(tn)
        # a Chernoff bound first: J <= 1, J + rho K <= 1 + rho / (e t) (no integral)
        mlog = nl * sum((p * (thn * x).exp() for p, x in zip(pi0_l, phia_l)), arb(0)).log()
        e1 = arb(1).exp()
        cap = (weight_log + mlog - thn * s_up).exp() * f_up * ((0 if self.delta else 1) + rho / (e1 * thn)
                                                               + 2 * rho * rho / (e1 * (thn - rho)) ** 2)
        if float(cap.upper().log()) < self.log_eta + math.log(self.rel * FAIL_SHARE / nodes):
            return arb(0), cap, 0, pts
        points = self._points(s_dn, s_up, ends, tn)
        try:
            ut = upper_tail(pi0_l, phia_l, nl, points, t=tn, rel=self.rel * INTEGRAL_REL, prec=law.prec)
        except PrecisionError:
            # a lumpy light law (small N): its decay proved only at the width asked
            ut = upper_tail(pi0_l, phia_l, nl, points, t=tn, rel=self.rel, prec=law.prec)
        qf = self._lower_fail(fails, ut.probs, phia_l, d, n=nl, s_dn=s_dn, t=tn)
        lo_n, up_n = self._combine(ut, s_dn, s_up, ends, qf, weight=weight_log.exp())
        return lo_n, up_n, ut.integrals, pts

    def _light_fail(self, fails, probs, d: int, nl: int) -> arb:
        """``P[not B]`` of the light box under the light law ``probs`` (``nl`` draws; Chernoff)."""
        law = self.law
        lq = np.log(np.maximum(np.array([float(p) for p in probs]), 1e-320))
        qf = arb(0)
        for key, v, edge, above, a, b, bq in fails:
            if not isinstance(key, int):
                continue                    # an enumerated level's count
            vl = v[:d]
            sd = math.sqrt(max(nl * float((np.exp(lq) * vl * vl).sum()), 1e-300))
            bq2, _ = _fail_q(lq, vl, nl, edge, above=above, sd=sd)
            qf += _fail_q_arb(probs, [w ** key for w in law.w[:d]], nl, arb(edge), above=above, b=bq2).exp()
        return qf

    def _mean_r(self, n: int, E, d: int) -> arb:
        """``E[R | n] = kappa [t^k] E_H(t) (1 + t mu)^(n')`` (independent outputs: ``E prod (1 +
        t w) = prod E (1 + t w)``; ``mu`` the light mean weight under the untilted law)."""
        from flint import arb_poly
        k, nl = self.k, self.law.M - n
        mu = self.law.below(d)[1]
        return self.kappa * (arb_poly(E) * arb_poly(_heavy_poly(nl, mu, k))).coeffs()[k]

    def _weight(self, weight_log: arb, n: int, d: int) -> arb:
        """``P_D`` of a count vector: its multinomial factor (``weight_log``,
        :func:`_heavy_vector`) times the light mass to the ``M - n``."""
        return (weight_log + (self.law.M - n) * self._light_mass(d).log()).exp()

    def _light_mass(self, d: int) -> arb:
        """``P_D`` of one output at a light level (below ``d``)."""
        return self.law.below(d)[0]


    def _linear_point(self, E) -> arb:
        """A light level ``s`` from which ``R > lam`` on the box without the series:
        ``R >= kappa (e_k(H) + e_(k-1)(H) p_1(L))`` and ``p_1(L) >= Y - max(beta, 0) P3hi - max(gamma,
        0) P4hi`` (``log(1 + u) <= u``)."""
        k = self.k
        b, g = max(self.beta, 0.0), max(self.gamma, 0.0)
        return (self.lam_hi / self.kappa - E[k]) / E[k - 1] + arb(b) * self.p3hi + arb(g) * self.p4hi


# ---------------------------------------------------------------- the light cut (forward)

#: forward light cut: the cuts go down from the highest whose light statistic holds to the first
#: whose weighted series gap (_CutRun.lead_gap) is below CUT_GAP times the width asked, at most
#: CUT_DEPTH cuts (then the narrowest of them)
CUT_GAP = 1.0
CUT_DEPTH = 4
#: forward light cut: taken within the walk's range (ROUTE) from CUT_ROUTE_K copies on where
#: ktilted_estimate is below CUT_ROUTE_FAR, from CUT_ROUTE_K_ALL copies where it is below
#: CUT_ROUTE_NEAR (L = 40, N = 10^7, lam = e^2: the walk's passes reach k = 16, q = 0.40 and k = 64,
#: q = 0.38 in minutes, not k = 64, q = 0.40 nor k >= 128, q = 0.38, 0.40)
CUT_ROUTE_K = 64
CUT_ROUTE_FAR = -5.0
CUT_ROUTE_K_ALL = 128
CUT_ROUTE_NEAR = -0.1


def _cut_route(k: int, est: float) -> bool:
    """Whether the light cut is taken within the walk's range (:data:`CUT_ROUTE_K`, ...)."""
    return (k >= CUT_ROUTE_K and est < CUT_ROUTE_FAR) or (k >= CUT_ROUTE_K_ALL and est < CUT_ROUTE_NEAR)
#: forward light cut: with a deadline, a first pass at the highest cut whose gap is below CUT_PASS
#: times the chosen one's bar (L = 40, N = 10^7, k = 128, q = 0.38: cut 34, 1.6e-2 in 73 s, before
#: cut 33, 5.0e-3 in 768 s)
CUT_PASS = 100.0
#: forward light cut: with a deadline a deeper cut is run only while the time left is at least this
#: many times the last cut's
CUT_GROWTH = 4.0
#: forward light cut: with a deadline the deepening stops once the width is below this many times
#: the width asked (the callers ask a tenth of what they need, methods.KTILT_AIM; k = 128, q = 0.38
#: at --digits 3: cut 34 gives 5.7e-4 in ~90 s, and the budget of 900 s went on cuts 33, 32 for the
#: tenth)
CUT_ENOUGH = 10.0
#: forward light cut: the lead vector's search takes at most this many steps
LEAD_STEPS = 40
#: forward light cut: at most this many count vectors of the enumerated levels
CUT_VECTORS = 100_000
#: forward light cut: a count window stops growing here (its failure bound then stays as it is)
CUT_WINDOW = 200


def _light_plan(law: _Law, k: int, kappa: arb, lam: arb, xmin: float, *, cut: int, lead, z: float):
    """Floats ``(y, stat, t, log_est)`` of the forward plan on the light levels ``0 .. cut`` for the
    count vector ``lead`` of the levels above (module doc, "The light cut"): the light threshold
    point ``y`` of the series with ``E_H`` of ``lead``, the statistic cancelling the light power
    sums there, the light law's tilt and ``log`` of the saddle-point estimate of ``E_D[R; R >
    lam, counts = lead]``; ``None`` where the lead's heavy outputs alone exceed ``lam`` (no light
    plan).  Raises :class:`PrecisionError` where the light statistic is out of range."""
    M = law.M
    levels = list(range(cut + 1, len(law.wf)))
    E, wlog = _heavy_vector(law, levels, lead, k)
    if kappa * E[k] > lam:
        return None
    n = sum(lead)
    light = law.light(cut)
    heavy_w = sum(c * law.wf[j] for j, c in zip(levels, lead))
    y, stat = _statistic_point(light, E, kappa, k, lam, y=max(xmin - heavy_w, 1e-3 * xmin), tau=k / xmin, z=z,
                               tol=1e-13, tilted=lambda phi, y: light.tilted(
                                   _Run._light_tilt(light.lpi, phi, M - n, y), phi))
    phi = light.phi(*stat)
    t = _Run._light_tilt(light.lpi, phi, M - n, y)
    lpn = light.lpi - _log_m(light.lpi, 0.0)
    p = np.exp(lpn + t * phi - _log_m(lpn, t * phi))
    sdy = math.sqrt(max((M - n) * float((p * phi * phi).sum() - (p * phi).sum() ** 2), 1e-300))
    mass = float(sum(law.pi0[:cut + 1], arb(0)).log().mid())
    est = (float(wlog.mid()) + (M - n) * mass + math.log(float(lam.mid())) + (M - n) * _log_m(lpn, t * phi)
           - t * y - math.log(max(t * sdy * math.sqrt(2 * math.pi), 1.0)))
    return y, stat, t, est


def _lead(law: _Law, k: int, kappa: arb, lam: arb, xmin: float, *, cut: int, z: float):
    """``(lead, plan, near)``: the count vector of the levels above ``cut`` with the largest
    estimate of :func:`_light_plan` (an ascent over single steps from the empty vector; floats, a
    choice: any lead gives a certified run), its plan and the estimates met on the way (``{vector:
    log estimate}``).  Raises :class:`PrecisionError` where no vector
    on the way has a light plan."""
    h = len(law.wf) - 1 - cut
    seen = {}

    def value(v):
        if v not in seen:
            try:
                seen[v] = _light_plan(law, k, kappa, lam, xmin, cut=cut, lead=v, z=z)
            except PrecisionError:
                seen[v] = None
        return seen[v][3] if seen[v] is not None else -math.inf

    cur = (0,) * h
    if value(cur) == -math.inf:
        raise PrecisionError(f"ktilt: no light plan below level {cut + 1}")
    for _ in range(LEAD_STEPS):
        steps = [cur[:i] + (cur[i] + s,) + cur[i + 1:] for i in range(h) for s in (1, -1) if cur[i] + s >= 0]
        best = max(steps, key=value)
        if not value(best) > value(cur):
            break
        cur = best
    return cur, seen[cur], {v: p[3] for v, p in seen.items() if p is not None}


class _CutRun(_Run):
    """Forward, the levels ``cut + 1 .. d`` enumerated with the plan of the light levels (module
    doc, "The light cut"); :meth:`answer` is :meth:`_Run.top` from ``cut + 1``."""

    def __init__(self, law: _Law, k: int, lam: arb, rel: float, *, cut: int, lead, plan):
        self._threshold(law, k, lam, rel, False)
        self.cut, self.lead = cut, lead
        y, stat, t, est = plan
        tau = stat[0]
        levels = range(cut + 1, len(law.wf))
        self.phi = law.phi(*stat)
        self.phi[cut + 1:] = np.log1p(tau * law.wf[cut + 1:]) / tau      # heavy: no beta, gamma
        self.phia = law.phi_arb(*stat)
        ta = arb(tau)
        for j in levels:
            self.phia[j] = (1 + ta * law.w[j]).log() / ta
        # the threshold point in total Y for the lead (each vector's guess: less its heavy phi)
        self.y = y + sum(c * self.phi[j] for j, c in zip(levels, lead))
        self.stat, self.t = stat, t
        self.tau, self.beta, self.gamma = stat
        # the light law tilted (0 at the enumerated levels: the box's statistics are light)
        Q = law.light(cut).tilted(t, self.phi[:cut + 1])
        self.Q = np.concatenate([Q, np.zeros(len(law.wf) - cut - 1)])
        self.log_eta = est
        self.target = est + math.log(rel * FAIL_SHARE)
        self.z, self.deadline, self.bounded = None, None, 0

    def _modes(self, levels) -> list:
        return [float(c) for c in self.lead]

    def _choose_box(self, light: int, extra=()):
        """The light box as :meth:`_Run._choose_box` (its failure under ``D_m`` a group bound over
        every count vector: the light statistics are 0 at the enumerated levels) and each count
        window the least ``m`` with ``P_{D_m}[p_1 > x_min, n_j > m]`` below the target."""
        z, edges, fails = super()._choose_box(light)
        law, k = self.law, self.k
        for key, v in extra:
            for m in range(CUT_WINDOW + 1):
                a, b, e = _fail_dm(law, k, float(self.xmin_lo), v, m + 0.5, above=True, t0=self.t, sd=1.0)
                if e <= self.target:
                    break
            fails.append((key, v, m + 0.5, True, a, b, 0.0))
            edges[key] = (0.0, m + 0.5)
        return z, edges, fails

    def lead_gap(self, near: dict) -> float:
        """The series gap ``t (s_dn - s_up)`` (:meth:`_Run._gap`, the statistic refined once per
        vector as :meth:`_Run._count` does) averaged over the vectors ``near`` (``{vector: log
        estimate}``, :func:`_light_plan`'s; those within 1e-3 of the largest) by their estimates,
        on the plan's light box at ``BOX_Z[1]`` (floats: the cut's choice)."""
        law, k, cut = self.law, self.k, self.cut
        z = BOX_Z[1]
        ivs = _box_ivs(law, self.Q, z, self.POWERS)
        boxes = _boxes(k, self.stat, law.w[cut], ivs)
        levels = list(range(cut + 1, len(law.wf)))
        top = max(near.values())
        total = weight = 0.0
        for v, est in near.items():
            if est < top + math.log(1e-3):
                continue
            E, _ = _heavy_vector(law, levels, v, k)
            guess = max(self.y - sum(c * self.phi[j] for j, c in zip(levels, v)), 1e-3 * self.y)   # as _count's
            th = Series(E, self.kappa, k, boxes)
            try:
                y0 = th.root(th.main_value, self.lam, guess)
                own = _boxes(k, _cancel(th, y0), law.w[cut], ivs)
            except PrecisionError:
                return math.inf
            u = math.exp(est - top)
            total += u * self._gap(own, E, y0)
            weight += u
        return total / weight

    def _count(self, counts, levels, boxes, fails, nodes: int):
        """:meth:`_Run._count`, or ``[0, E_D[R; counts]]`` where its certificate fails for this
        vector (no monotone range on the light box: a vector far from the lead) or the time
        budget has run out (``deadline``, a ``time.monotonic()`` instant)."""
        if self.deadline is None or time.monotonic() < self.deadline:
            try:
                return super()._count(counts, levels, boxes, fails, nodes)
            except PrecisionError:
                pass
        E, weight_log = _heavy_vector(self.law, levels, counts, self.k)
        n = sum(counts)
        self.bounded += 1
        return arb(0), self._mean_r(n, E, levels[0]) * self._weight(weight_log, n, levels[0]), 0, None

    def answer(self, deadline: float | None = None) -> dict:
        """The run (:meth:`_Run.top` from ``cut + 1``); past ``deadline`` every vector left is
        bounded by ``E_D[R; counts]`` (a wider enclosure, certified all the same)."""
        self.bounded, self.deadline = 0, deadline
        return self.top(self.cut + 1)


def _cut_runs(law: _Law, k: int, lam: arb, rel: float, cut: int | None) -> list:
    """The light-cut candidates ``[(gap, run)]``, the chosen last: at ``cut``, or (``None``) down
    from the highest cut whose light statistic holds, the first whose vectors near the lead have a
    series gap (:meth:`_CutRun.lead_gap`, floats) below :data:`CUT_GAP` times ``rel``, else the
    narrowest of the first :data:`CUT_DEPTH`; before it the cuts from the highest with a gap below
    :data:`CUT_PASS` times that whose gap falls (cheaper passes, run where a deadline is given:
    :func:`_cut_answer`)."""
    kappa = exact_arb(_kappa(law.M, k))
    xmin = float(_x_min(kappa, k, arb(lam.lower())).lower())
    d = len(law.wf) - 1
    cuts = [cut] if cut is not None else list(range(d - 1, 0, -1))
    best, tried, seen = None, 0, []
    for c in cuts:
        try:
            lead, plan, near = _lead(law, k, kappa, lam, xmin, cut=c, z=BOX_Z[1])
        except PrecisionError:
            if best is not None or cut is not None:
                break
            continue
        run = _CutRun(law, k, lam, rel, cut=c, lead=lead, plan=plan)
        gap = run.lead_gap(near) if cut is None else 0.0
        tried += 1
        seen.append((gap, run))
        if best is None or gap < best[0]:
            best = (gap, run)
        if gap <= CUT_GAP * rel or tried >= CUT_DEPTH:
            break
    if best is None:
        raise PrecisionError("ktilt: no light cut with a light plan")
    out = []
    for gap, run in seen:
        if run is best[1]:
            break
        if gap <= CUT_PASS * CUT_GAP * rel and (not out or gap < out[-1][0]):
            out.append((gap, run))
    return out + [best]


def _cut_answer(cands: list, rel: float, deadline: float | None):
    """``(result, run)``: without a deadline the last candidate of :func:`_cut_runs` alone; with
    one, the candidates in turn (each certified, the results intersected) until the width is below
    :data:`CUT_ENOUGH` times ``rel``, the next's gap is not below the width reached, or the time left is below
    :data:`CUT_GROWTH` times the last run's (a deeper cut costs more: L = 40, N = 10^7, k = 128,
    q = 0.38, cut 35 19 s, cut 34 64 s)."""
    if deadline is None:
        run = cands[-1][1]
        return run.answer(None), run
    res = None
    for i, (gap, run) in enumerate(cands):
        start = time.monotonic()
        got = run.answer(deadline)
        if res is not None:             # both certified: the intersection
            got = {**got, "eta": got["eta"].intersect(res["eta"])}
        res, last = got, run
        width = float(res["eta"].relative_width())
        if i + 1 == len(cands) or width <= CUT_ENOUGH * rel or not cands[i + 1][0] < width:
            break
        if CUT_GROWTH * (time.monotonic() - start) > deadline - time.monotonic():
            break
    return res, last


# ---------------------------------------------------------------- 003's reverse direction

#: the reverse: lighter cuts tried below the first (the top light level's tilted count must be
#: large enough for a smooth box, the levels above it rare enough for the union bound)
LIGHT_TRIES = 8
#: the reverse: the first light cut is the top level whose tilted count is at least this
COUNT_TOP = 1e-20
#: the reverse: the light cuts whose bounds pass compared (by the expected width) before choosing
CUTS_COMPARED = 2
#: the reverse: the heavy levels' union bound peels the others' p_2 in slabs of this ratio, at
#: most HEAVY_TERMS bounds in all
HEAVY_RATIO = 1.5
HEAVY_TERMS = 400
#: the reverse: the union bound's share of the relative width asked (its terms summed)
HEAVY_SHARE = 0.1
#: the reverse: the box edges tried (the forward's and wider: a light top level the tilted law
#: visits rarely moves p_3, p_4 by many standard deviations)
REVERSE_BOX_Z = BOX_Z + (300.0, 450.0, 700.0, 1000.0, 1500.0, 2500.0)
#: the reverse: where both heavy bounds fail, the levels above the cut whose tilted count is at
#: least ENUM_COUNT times the width asked are enumerated (at most ENUM_LEVELS levels, their count
#: vectors at most ENUM_VECTORS, each count at most ENUM_MAX_COUNT)
ENUM_COUNT = 1e-4
ENUM_LEVELS = 3
ENUM_VECTORS = 4000
ENUM_MAX_COUNT = 200


def _chernoff_fit(lpi, u, v, n: int, x: float, edge: float, *, above: bool, a0: float, sd: float):
    """Float ``(a, b, exponent)`` minimising ``n log sum_j e^(lpi_j - a u_j +- b v_j) + a x -+ b
    edge`` over ``a, b >= 0`` (convex; ``v`` None: ``b = 0``): the Chernoff bound of ``P[sum u <
    x, sum v beyond edge]`` over ``n`` draws of a (sub-)law."""
    from scipy.optimize import minimize
    sg = 1.0 if above else -1.0
    vv = np.zeros_like(u) if v is None else v

    def f(z):
        a, b = a0 * z[0], z[1] / sd
        e = lpi - a * u + sg * b * vv
        mx = float(e.max())
        p = np.exp(e - mx)
        tot = float(p.sum())
        p /= tot
        val = n * (mx + math.log(tot)) + a * x - sg * b * edge
        return val, np.array([(x - n * float((p * u).sum())) * a0, sg * (n * float((p * vv).sum()) - edge) / sd])

    best = (math.inf, (1.0, 0.0))
    starts = ([1.0, 0.0],) if v is None else ([1.0, 0.0], [1.0, 1.0], [1.0, 10.0], [0.5, 3.0])
    bounds = [(0.0, 1e6), (0.0, 0.0 if v is None else 1e15)]
    for z0 in starts:
        r = minimize(f, z0, jac=True, method="L-BFGS-B", bounds=bounds,
                     options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000})
        # each candidate valued here (the optimizer's reported value need not be its point's)
        for z in (tuple(z0), (float(r.x[0]), float(r.x[1]))):
            z = (min(max(z[0], 0.0), 1e6), max(z[1], 0.0) if v is not None else 0.0)
            val = f(np.array(z))[0]
            if math.isfinite(val) and val < best[0]:
                best = (val, z)
    return a0 * best[1][0], best[1][1] / sd, best[0]


def _chernoff_arb(pi0, u, v, n: int, x: arb, edge, *, above: bool, a: float, b: float) -> arb:
    """The certified ``log`` of that bound at ``(a, b)`` (``pi0`` arb masses, ``u``, ``v`` arb
    values; ``v`` None: no second statistic)."""
    aa = arb(a)
    bb = arb(b) * (1 if above else -1)
    if v is None:
        v, bb, edge = [arb(0)] * len(u), arb(0), arb(0)
    m = sum((p * (-aa * ui + bb * vi).exp() for p, ui, vi in zip(pi0, u, v)), arb(0))
    return n * m.log() + aa * x - bb * edge


def _x_point(g, gf, lo: float, T: arb) -> arb:
    """An exact ``x >= lo`` with ``g(x) > T`` (``g`` nondecreasing from ``lo`` on; ``gf`` its
    float version for the root): ``g(p_1) <= T`` then forces ``p_1 < x``."""
    from scipy.optimize import brentq
    tf = float(T.upper())
    if g(arb(lo)) > T:
        return arb(lo)
    hi = max(2.0 * lo, 1.0)
    while gf(hi) < tf:
        hi *= 2
    x = brentq(lambda z: gf(z) - tf, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps)
    step = max(abs(x) * 1e-15, 1e-300)
    for _ in range(400):
        xa = arb(x)
        if x >= lo and g(xa) > T:
            return xa
        x, step = x + step, 2 * step
    raise PrecisionError("ktilt: no certified bound of p_1 below the reverse threshold")


def _peel(P: float, fit, xs, cap, floor: float):
    """The slabs ``(P_(i-1), P_i]`` of ``p_2`` from ``P_0 = P``, ``P_i = HEAVY_RATIO P_(i-1)``
    (module doc): a slab's terms ``fit(tag, X, P_(i-1))`` for ``(tag, X)`` in ``xs(P_i)``, until
    the cap's ``fit(None, cap, P_(i-1))`` (``p_2`` beyond the slabs) is at most ``floor`` and closes
    the list; ``[(tag, X, P_(i-1), a, b, log bound)]``, or ``None`` past :data:`HEAVY_TERMS`."""
    terms = []
    while len(terms) < HEAVY_TERMS:
        a, b, e = fit(None, cap, P)
        if e <= floor:
            return terms + [(None, cap, P, a, b, e)]
        P1 = P * HEAVY_RATIO
        terms += [(tag, X, P) + tuple(fit(tag, X, P)) for tag, X in xs(P1)]
        P = P1
    return None


def _trim(point: tuple) -> tuple:
    """A kernel's point ``(s, c1, c2, ...)`` without its trailing zero coefficients (at least
    ``(s, c1, c2)``)."""
    n = len(point)
    while n > 3 and (point[n - 1] == 0 if not isinstance(point[n - 1], arb) else point[n - 1].is_zero()):
        n -= 1
    return point[:n]


def _delta_g(coefs, x0: arb) -> arb:
    """The upper end's ``g`` of 003's reverse delta (``U = sigma x + g x^2`` on ``(0, x0]``, ``g =
    -F2_lo / 2 + F3_hi x0 / 6``), kept where ``U`` stays nonnegative there, else ``F3_hi x0 / 6``."""
    sig_hi, f2_lo, f3_hi = coefs[:3]
    f3 = f3_hi * x0 / 6
    g = arb((f3 - f2_lo / 2).upper())
    return g if g >= 0 or sig_hi + g * x0 >= 0 else arb(f3.upper())


class _ReverseRun(_Run):
    """003's reverse (module doc, "The reverse direction"): ``eta = P_D[R < 1 / lam]`` over the
    ``M`` null outputs, the light levels ``0 .. J`` by one box, the heavy ones by a union bound."""

    POWERS = (2, 3, 4)

    def __init__(self, law: _Law, k: int, lam: arb, rel: float, *, light: int | None = None,
                 delta: bool = False):
        self.full, self.k, self.rel, self.delta = law, k, rel, delta
        M = law.M
        self.kappa = exact_arb(_kappa(M, k))
        thr = 1 / lam
        # delta = E_D[(1 - lam R)+] lies in [lam_hi E(thr_lo - R)+, lam_lo E(thr_hi - R)+]
        self.lam_ends = (arb(lam.lower()), arb(lam.upper()))
        self.lam, self.lam_lo, self.lam_hi = thr, arb(thr.lower()), arb(thr.upper())
        self.xmin_lo = arb(_x_min(self.kappa, k, self.lam_lo).lower())
        # R < thr forces g(p_1) < T (Bonferroni bounds below): T at the threshold's upper end
        self.T = self.lam_hi * arb.fac_ui(k) / self.kappa
        self.K, self.K1 = comb(k, 2), comb(k - 1, 2)
        if light is not None:
            self._plan(light)
            return
        x0 = float(_x_min(self.kappa, k, thr))
        # the first cut: every level if the statistic allows (tau w_max < 1/2), else those with
        # (k / x_min) w below 1/4; then the top level the tilted law still visits (a count of at
        # least COUNT_TOP)
        for first in (len(law.wf) - 1, max(j for j in range(len(law.wf)) if k / x0 * law.wf[j] < 0.25)):
            sub = law.light(first)
            try:
                _, stat, t = _fixed_point(sub, k, self.kappa, thr, BOX_Z[1], reverse=True)
                break
            except PrecisionError:
                continue
        else:
            raise PrecisionError("ktilt (reverse): no light law for the statistic")
        counts = M * sub.tilted(-t, sub.phi(*stat))
        first = max(j for j in range(first + 1) if counts[j] >= COUNT_TOP)
        err, passed, planned = None, [], None
        for top in range(first, max(first - LIGHT_TRIES, 0), -1):
            planned = None
            try:
                self._plan(top)
                passed.append((self._width(), top))
                planned = top
            except PrecisionError as e:
                err = e
            if len(passed) == CUTS_COMPARED:
                break
        if not passed:
            raise PrecisionError(f"ktilt (reverse): no light cut gives small failure bounds ({err})")
        self.order = [top for _, top in sorted(passed)]
        if self.order[0] != planned:
            self._plan(self.order[0])   # the state is the last cut tried's

    def answer(self) -> dict:
        """:meth:`single` of the cut chosen, else of the next one compared where a certificate
        fails in its integrals (a tilted law whose decay is not proved)."""
        err = None
        for top in getattr(self, "order", [len(self.law.wf) - 1]):
            if top != len(self.law.wf) - 1:
                self._plan(top)
            try:
                return self.single()
            except PrecisionError as e:
                err = e
        raise err

    def _plan(self, top: int):
        law = self.law = self.full.light(top)
        k = self.k
        self._tilt(law, *_fixed_point(law, k, self.kappa, self.lam, BOX_Z[1], reverse=True), sign=-1.0)
        self.z, self.edges, self.fails = self._choose_box(len(law.wf))
        edges = self.edges
        self.boxes = _boxes(k, self.stat, law.w[-1], [edges[i] for i in self.POWERS])
        self.enum, self._delta_from, self._inner = None, {}, None
        try:
            self.heavy = self._heavy_fail()
        except PrecisionError:
            try:
                self.heavy = self._heavy_counts()
            except PrecisionError:
                self._plan_enum()
        # the upper end's failures (no integral): with the series' gap, the cuts' comparison
        self.fail = self._box_fail() if self.enum is None else self.heavy + self._enum_fail()

    def _width(self) -> float:
        """The plan's relative width expected (floats, for the choice of the cut): the series'
        gap ``t (s_dn - s_up)`` and the upper end's failures against ``eta``'s scale."""
        lf = float(self.fail.upper().log()) if self.fail > 0 else -math.inf
        return self._gap(self.boxes) + math.exp(min(lf - self.log_eta, 700.0))

    # ------------------------------------------------ the bounds of p_1 (Bonferroni)
    def _x_two(self, P: float) -> arb:
        """``X(P)``: ``R < thr`` and ``p_2 <= P`` force ``p_1 < X`` (``k! e_k >= p_1^k - C(k,2) p_2
        p_1^(k-2)``, Bonferroni over the repeated indices; ``g(x) = x^(k-2) (x^2 - C(k,2) P)``
        increases from ``sqrt(C(k,2) P)``)."""
        k, K = self.k, self.K
        Pa = arb(P)
        return _x_point(lambda x: x ** (k - 2) * (x * x - K * Pa), lambda x: x ** (k - 2) * (x * x - K * P),
                        math.sqrt(K * P) * (1 + 1e-12), self.T)

    def _x_cap(self, om: arb) -> arb:
        """``X``: ``R < thr`` with every weight at most ``om`` forces ``p_1 < X`` (``p_2 <= om
        p_1``: ``g(x) = x^(k-1) (x - C(k,2) om)``)."""
        k, K, of = self.k, self.K, float(om)
        return _x_point(lambda x: x ** (k - 1) * (x - K * om), lambda x: x ** (k - 1) * (x - K * of),
                        K * float_hi(om) * (1 + 1e-12), self.T)

    def _x_heavy(self, P: float, wh: arb) -> arb:
        """``X``: ``R < thr``, one more output of weight at least ``wh`` and ``p_2 <= P`` for the
        others force their ``p_1 < X`` (``e_k >= e_k(L) + wh e_(k-1)(L)``, both by Bonferroni)."""
        k, K, K1, Pa, wf = self.k, self.K, self.K1, arb(P), float(wh)

        def g(x):
            return x ** (k - 3) * (x * (x * x - K * Pa) + k * wh * (x * x - K1 * Pa))

        def gf(x):
            return x ** (k - 3) * (x * (x * x - K * P) + k * wf * (x * x - K1 * P))
        return _x_point(g, gf, math.sqrt(K * P) * (1 + 1e-12), self.T)

    # ------------------------------------------------ the box and its failures
    def _choose_box(self, light: int, extra=()):
        """As the forward's (``REVERSE_BOX_Z``), the upper end's failures under ``D`` jointly
        with ``p_1 < X`` (module doc): ``X`` by the light weights' cap for ``p_2`` above its edge,
        else ``X(P2hi)``; ``(z, edges, fails)``."""
        law, M, Q = self.law, self.law.M, self.Q
        lq = np.log(np.maximum(Q, 1e-320))
        edges, fails, zmax = {}, [], 0.0
        for key, above in ((2, True), (2, False), (3, True), (3, False), (4, True), (4, False)):
            v = law.wf ** key
            m1, m2 = float((Q * v).sum()), float((Q * v * v).sum())
            m, s = M * m1, math.sqrt(max(M * (m2 - m1 * m1), 1e-300))
            if (key, above) == (2, True):
                # p_2 above its edge: peeled in slabs (chosen first); the others with p_2 <= P2hi
                slabs = {}
                edge, z, fit = self._edge(REVERSE_BOX_Z, m, s, v, lq, above=True,
                                          upper=lambda edge, above: self._p2_slabs(edge, s, slabs))
                fails.append((key, v, edge, above, None, None, None))
                self.slabs = slabs[edge]
            else:
                X = self._x_two(edges[2][1])
                edge, z, fit = self._edge(
                    REVERSE_BOX_Z, m, s, v, lq, above=above,
                    upper=lambda edge, above: _chernoff_fit(law.lpi, law.wf, v, M, float(X), edge,
                                                            above=above, a0=self.t, sd=s))
                if fit is not None:
                    fails.append((key, v, edge, above, fit[0], fit[1], X))
            lo, hi = edges.get(key, (None, None))
            edges[key] = (lo, edge) if above else (edge, hi)
            zmax = max(zmax, z)
        return zmax, edges, fails

    def _p2_slabs(self, edge: float, sd: float, plans: dict):
        """Float ``(0, 0, exponent)`` of ``P[R < thr, all light, p_2 > edge]`` peeled in slabs
        ``(P_(i-1), P_i]`` (``P_0 = edge``, ratio :data:`HEAVY_RATIO`): in a slab ``p_1 < X(P_i)``
        jointly with ``p_2 > P_(i-1)``, beyond the last ``p_1 < X_cap(w_J)`` (Bonferroni, module
        doc); the slabs' ``(P_(i-1), X, a, b)`` go to ``plans[edge]``."""
        law, M = self.law, self.law.M
        v = law.wf ** 2

        def fit(tag, X, P):
            return _chernoff_fit(law.lpi, law.wf, v, M, float(X), P, above=True, a0=self.t, sd=sd)

        terms = _peel(edge, fit, lambda P: [(2, self._x_two(P))], self._x_cap(law.w[-1]),
                      self.target - math.log(HEAVY_TERMS))
        if terms is None:
            return 0.0, 0.0, math.inf
        plans[edge] = [(P, X, a, b, e) for _, X, P, a, b, e in terms]
        logs = np.array([t[-1] for t in terms])
        return 0.0, 0.0, float(logs.max() + math.log(np.exp(logs - logs.max()).sum()))

    def _upper_fits(self):
        """The upper end's box failure bounds ``(values, edge, above, a, b, X)`` (arb edge; the
        slabs of ``p_2`` above its edge in place of its one edge)."""
        out = [(self._values(key), arb(edge), above, a, b, X)
               for key, v, edge, above, a, b, X in self.fails if X is not None]
        return out + [(self._values(2), arb(P), True, a, b, X) for P, X, a, b, _ in self.slabs]

    def _heavy_fail(self, first: int | None = None):
        """Float check and arb bound of ``P[R < thr, some output above the light levels]``: the
        union over the output and its level ``h`` (``M pi_h``), the others' heavy weights
        lowered to the least heavy one ``w_(J+1)`` (``e_k`` only falls).  The others' ``p_2`` is
        peeled in slabs ``(P_(i-1), P_i]``, ``P_0 = P2hi`` (the box's), ``P_i = HEAVY_RATIO
        P_(i-1)``: in a slab their ``p_1 < X_heavy(P_i, w_h)`` jointly with ``p_2 > P_(i-1)`` (a
        two-dimensional Chernoff bound; below ``P2hi`` ``p_1`` alone); beyond the last, ``p_1 <
        X_cap(w_(J+1))`` jointly with ``p_2 > P_m``.  All terms together must stay below
        ``HEAVY_SHARE`` of the width asked.  ``first``: the union over the levels from ``first`` on
        (default ``J + 1``; the levels between enumerated, :meth:`_plan_enum`)."""
        full, law, M = self.full, self.law, self.law.M
        top = len(law.wf) - 1
        first = top + 1 if first is None else first
        if first == len(full.wf):
            return arb(0)
        piH = sum(full.pi0[top + 1:], arb(0))
        lpiH = math.log(float(piH))
        wh = full.w[top + 1]
        lpi = np.append(law.lpi, lpiH)
        u = np.append(law.wf, full.wf[top + 1])
        v = u * u
        pa = list(law.pi0) + [piH]
        ua = list(law.w) + [wh]
        va = [w * w for w in ua]
        xc = self._x_cap(wh)
        sd = math.sqrt(max(M * float((self.Q * law.wf ** 4).sum()), 1e-300))
        lm = math.log(M)
        # the union bound's share of the width asked (all its terms together)
        budget = self.log_eta + math.log(self.rel * HEAVY_SHARE)
        heavy = range(first, len(full.wf))
        terms = []                      # (level or None, two-dimensional?, x, edge, a, b, log bound)
        P = self.edges[2][1]
        for h in heavy:
            xh = self._x_heavy(P, full.w[h])
            a, _, e = _chernoff_fit(lpi, u, None, M - 1, float(xh), 0.0, above=True, a0=self.t, sd=1.0)
            terms.append((h, None, xh, 0.0, a, 0.0, e + lm + float(full.lpi[h])))

        def fit(h, X, P):
            a, b, e = _chernoff_fit(lpi, u, v, M - 1, float(X), P, above=True, a0=self.t, sd=sd)
            return a, b, e + lm + (lpiH if h is None else float(full.lpi[h]))

        slabs = _peel(P, fit, lambda P1: [(h, self._x_heavy(P1, full.w[h])) for h in heavy], xc,
                      budget - math.log(HEAVY_TERMS))
        if slabs is None:
            raise PrecisionError("ktilt: the heavy levels' union bound is not small")
        terms += [(h, True, X, P, a, b, e) for h, X, P, a, b, e in slabs]
        logs = np.array([tm[-1] for tm in terms])
        worst = float(logs.max() + math.log(np.exp(logs - logs.max()).sum()))
        if worst > budget:
            raise PrecisionError("ktilt: the heavy levels' union bound is not small")
        total = arb(0)
        for h, two, x, edge, a, b, _ in terms:
            mass = piH if h is None else full.pi0[h]
            total += M * mass * _chernoff_arb(pa, ua, va if two else None, M - 1, x,
                                              arb(edge) if two else None, above=True, a=a, b=b).exp()
        return total

    def _heavy_counts(self) -> arb:
        """``P[R < thr, some output above the light levels]`` by their count ``n`` (module doc):
        with every heavy weight lowered to ``w_(J+1)`` (``e_k`` only falls) and the others light,
        ``R >= R_n = kappa [t^k] (1 + w_(J+1) t)^n E_L(t)``, which grows with ``n``; zero from the
        count where the heavy outputs alone exceed ``thr``.  The counts go in groups ``[n_a, n_b]``
        (ratio :data:`HEAVY_RATIO`): ``sum C(M, n) pi_H^n`` times the least of (the light box's series
        with ``E_H = (1 + w_(J+1) t)^(n_a)``, monotone from its point ``s_dn``) ``m_L(t)^(M - n)
        e^(t s_dn)`` plus the box failures over ``M - n`` draws, and (``n_a >= k - 1``, ``e_k >=
        e_k(H) + e_(k-1)(H) p_1(L)``) the Chernoff bound of ``p_1(L)`` below its linear point, each
        at the group's worse end of ``M - n``.  Raises :class:`PrecisionError` where the sum is not
        below ``HEAVY_SHARE`` of the width asked."""
        full, law, M, k = self.full, self.law, self.law.M, self.k
        top = len(law.wf) - 1
        if top == len(full.wf) - 1:
            return arb(0)
        piH = sum(full.pi0[top + 1:], arb(0))
        wh = full.w[top + 1]
        budget = self.log_eta + math.log(self.rel * HEAVY_SHARE)
        th0 = arb(self.t)
        mlog = sum((p * (-th0 * x).exp() for p, x in zip(law.pi0, self.phia)), arb(0)).log()
        fits = self._upper_fits()
        certified = math.inf               # the series is certified monotone from here on
        total, logs = arb(0), []
        na, mass_a = 1, M * piH            # C(M, n) pi_H^n at n = na
        while True:
            E = _heavy_poly(na, wh, k)
            if self.kappa * E[k] > self.lam_hi:
                break                       # R >= kappa e_k(H) > thr from this count on
            nb = max(na, int(na * HEAVY_RATIO))
            group, mass = arb(0), mass_a
            for n in range(na, nb + 1):
                group += mass
                mass = mass * (M - n) / (n + 1) * piH
            ends = (M - nb, M - na)
            best = None
            th = Series(E, self.kappa, k, self.boxes)
            try:
                y0 = th.root(th.main_value, self.lam, self.y)
                s_dn = _root_point(th, self.lam_hi, y0, above=True)
                lo = float(s_dn.lower())
                if lo < certified:
                    if not (lo > 0 and all(monotone_pieces(b, lo) for b in self.boxes)):
                        raise PrecisionError("ktilt: no monotone range at a heavy count")
                    certified = lo
                best = max((nl * mlog + th0 * s_dn).exp() for nl in ends)
                for va, ea, above, a, b, X in fits:
                    best += max(_chernoff_arb(law.pi0, law.w, va, nl, X, ea, above=above, a=a, b=b).exp()
                                for nl in ends)
            except PrecisionError:
                pass
            if na >= k - 1:
                xf = float(((self.lam_hi / self.kappa - E[k]) / E[k - 1]).upper())
                a, _, e = _chernoff_fit(law.lpi, law.wf, None, ends[0], xf, 0.0, above=True, a0=self.t, sd=1.0)
                b2 = max(_chernoff_arb(law.pi0, law.w, None, nl, arb(xf), None, above=True, a=a, b=0.0).exp()
                         for nl in ends)
                best = b2 if best is None or b2 < best else best
            if best is None:
                raise PrecisionError("ktilt: a heavy count without a bound")
            term = group * best
            total += term
            logs.append(float(term.upper().log()) if term > 0 else -math.inf)
            if float(np.logaddexp.reduce(np.array(logs))) > budget:
                raise PrecisionError("ktilt: the heavy counts' bound is not small")
            na, mass_a = nb + 1, mass
        return total

    # ------------------------------------------------ the levels above the cut enumerated
    def _plan_enum(self):
        """The levels ``J + 1 .. H`` enumerated (module doc, "The reverse direction"): ``H`` the
        top level whose count under the tilt is at least ``ENUM_COUNT`` times the width asked, the
        levels above it by the union bound; per enumerated level ``j`` the count window ``0 ..
        m_j``, ``m_j`` the least with the Chernoff bound of ``P_D[p_1(L) < X(P2hi), n_j > m_j]``
        below the failures' share.  Raises :class:`PrecisionError` where that is not small."""
        full, law, M = self.full, self.law, self.law.M
        J = len(law.wf) - 1
        counts = M * full.tilted(-self.t, full.phi(*self.stat))
        up = [j for j in range(J + 1, len(full.wf)) if counts[j] >= ENUM_COUNT * self.rel]
        if not up or up[-1] - J > ENUM_LEVELS:
            raise PrecisionError("ktilt (reverse): no levels to enumerate above the cut")
        H = up[-1]
        levels = list(range(J + 1, H + 1))
        self.heavy = self._heavy_fail(first=H + 1)
        # the light p_1 and the box statistics see the enumerated outputs as 0 (e_k only falls)
        lpi = full.lpi[:H + 1]
        u = np.append(law.wf, np.zeros(len(levels)))
        X = self._x_two(self.edges[2][1])
        share = self.target - math.log(len(levels))
        windows, fits = [], []
        for j in levels:
            v = (np.arange(H + 1) == j).astype(float)
            for m in range(math.ceil(counts[j]), ENUM_MAX_COUNT + 1):
                a, b, e = _chernoff_fit(lpi, u, v, M, float(X), m + 1.0, above=True, a0=self.t, sd=1.0)
                if e <= share:
                    break
            else:
                raise PrecisionError("ktilt (reverse): an enumerated level's count window is too wide")
            windows.append(m)
            fits.append((j, m, a, b))
        nvec = math.prod(m + 1 for m in windows)
        if nvec > ENUM_VECTORS:
            raise PrecisionError("ktilt (reverse): too many count vectors to enumerate")
        self.enum = {"levels": levels, "windows": windows, "fits": fits, "X": X}

    def _enum_fail(self) -> arb:
        """``P_D[R < thr, the light box fails]`` with the enumerated outputs (weight 0 in the
        light statistics; the light fits' parameters) plus the count windows' failures."""
        full, law, M = self.full, self.law, self.law.M
        levels = self.enum["levels"]
        pa = list(law.pi0) + [full.pi0[j] for j in levels]
        zero = [arb(0)] * len(levels)
        ua = list(law.w) + zero
        fail = arb(0)
        for va, ea, above, a, b, X in self._upper_fits():
            fail += _chernoff_arb(pa, ua, list(va) + zero, M, X, ea, above=above, a=a, b=b).exp()
        for j, m, a, b in self.enum["fits"]:
            va = [arb(0)] * len(law.w) + [arb(1) if i == j else arb(0) for i in levels]
            fail += _chernoff_arb(pa, ua, va, M, self.enum["X"], arb(m + 1), above=True, a=a, b=b).exp()
        return fail

    def _x_series(self, E) -> arb:
        """An exact ``x`` with ``kappa [t^k] E(t) e^(t x) < thr`` (``e_k <= [t^k] E_H(t) e^(t
        p_1(L))``: ``p_1(L) <= x`` forces ``R < thr``; Maclaurin with the heavy outputs)."""
        from scipy.optimize import brentq
        k, kap = self.k, self.kappa

        def g(x: arb) -> arb:
            return kap * sum((E[i] * x ** (k - i) / arb.fac_ui(k - i) for i in range(k + 1)), arb(0))

        lf = float(self.lam_lo.log())
        Ef = [float(e.log()) if e > 0 else -math.inf for e in E]

        def gl(x: float) -> float:
            lx = math.log(x)
            ls = [Ef[i] + (k - i) * lx - math.lgamma(k - i + 1) for i in range(k + 1)]
            mx = max(ls)
            return float(kap.log()) + mx + math.log(sum(math.exp(v - mx) for v in ls)) - lf

        if not g(arb(0)) < self.lam_lo:
            raise PrecisionError("ktilt: the enumerated outputs alone reach the threshold")
        lo, hi = float(self.xmin_lo) * 1e-12, float(self.xmin_lo) * 2
        if not gl(lo) < 0 < gl(hi):
            raise PrecisionError("ktilt: no Maclaurin point with the enumerated outputs")
        x = brentq(gl, lo, hi, xtol=1e-300, rtol=1e-14)
        for _ in range(200):
            xa = arb(x)
            if g(xa) < self.lam_lo:
                return xa
            x *= 1 - 1e-12
        raise PrecisionError("ktilt: no certified Maclaurin point with the enumerated outputs")

    def _single_enum(self) -> dict:
        """``eta`` as the sum over the enumerated count vectors ``n``: ``P_D[counts n, the rest
        light, R < thr] = multinomial weight x P[Y_L < s(n)]`` over ``M - |n|`` light draws (the
        series with ``E_H = prod_j (1 + w_j t)^(n_j)``, its own tilt), a Chernoff cap where that is
        below its share; plus the box, window and union failures."""
        import itertools
        full, law, k, M = self.full, self.law, self.k, self.law.M
        boxes, levels = self.boxes, self.enum["levels"]
        fail = self.fail
        vectors = list(itertools.product(*(range(m + 1) for m in self.enum["windows"])))
        cap_log = self.log_eta + math.log(self.rel * FAIL_SHARE / len(vectors))
        lower, upper, integrals = arb(0), arb(0), 0
        certified, first = math.inf, None
        for n in sorted(vectors, key=sum):
            E, wlog = _heavy_vector(full, levels, n, k)
            if self.kappa * E[k] > self.lam_hi:
                continue                            # R >= kappa e_k(H) > thr
            nl = M - sum(n)
            th = Series(E, self.kappa, k, boxes)
            y0 = th.root(th.main_value, self.lam, self.y)
            s_dn = _root_point(th, self.lam_hi, y0, above=True)
            s_up = _root_point(th, self.lam_lo, y0, above=False)
            try:
                tn = tilt_saddle(law.lpi, self.phi, nl, float(s_dn))
            except PrecisionError:
                tn = self.t
            thn = arb(tn)
            mlog = nl * sum((p * (-thn * x).exp() for p, x in zip(law.pi0, self.phia)), arb(0)).log()
            cap = (wlog + mlog + thn * s_dn).exp()
            if float(cap.upper().log()) < cap_log:
                upper += cap
                continue
            ylo = float((self._x_series(E) - arb(self.cmax_enum)).lower())
            if not ylo > 0:
                raise PrecisionError("ktilt: no monotone range at an enumerated count")
            if ylo < certified:
                if not all(monotone_pieces(b, ylo) for b in boxes):
                    raise PrecisionError("ktilt: the series is not certified monotone at an enumerated count")
                certified = ylo
            if not (s_up >= arb(ylo) and s_dn > s_up):
                raise PrecisionError("ktilt: an enumerated count's threshold points are outside the monotone range")
            try:
                lo, up, got = self._integrals(law.pi0, nl, th, E, s_dn, s_up, ylo=arb(ylo), t=tn)
            except PrecisionError:
                upper += cap                        # no integral certified: the cap alone
                continue
            integrals += got
            W = wlog.exp()
            lower += W * lo
            upper += W * up
            if first is None:
                first = (s_dn, s_up)
        if first is None:
            raise PrecisionError("ktilt (reverse): no enumerated count needs an integral")
        return self._result(lower, upper + fail, fail, points=(first[0], first[1], arb(0)), integrals=integrals)

    def _values(self, key: int):
        """The box statistic ``p_key`` per light level in arb."""
        return [w ** key for w in self.law.w]

    def _box_fail(self) -> arb:
        """The upper end's box failures under ``D`` (jointly with ``p_1 < X``; module doc) and
        the heavy levels' union bound."""
        law, M = self.law, self.law.M
        fail = self.heavy
        for va, ea, above, a, b, X in self._upper_fits():
            fail += _chernoff_arb(law.pi0, law.w, va, M, X, ea, above=above, a=a, b=b).exp()
        return fail

    def single(self) -> dict:
        law, k, M = self.law, self.k, self.law.M
        boxes = self.boxes
        if self.enum is not None:
            self.cmax_enum = max(float_hi(b.y_shift()) for b in boxes)
            return self._single_enum()
        th = Series([arb(1)], self.kappa, k, boxes)
        ylo = self._monotone(boxes, self.xmin_lo)
        s_dn = _root_point(th, self.lam_hi, self.y, above=True)
        s_up = _root_point(th, self.lam_lo, self.y, above=False)
        if not (s_up >= ylo and s_dn > s_up):
            raise PrecisionError("ktilt: the reverse threshold points are outside the monotone range")
        lower, upper, integrals = self._integrals(law.pi0, M, th, [arb(1)], s_dn, s_up, ylo=ylo, t=self.t)
        fail = self.fail
        return self._result(lower, upper + fail, fail, points=(s_dn, s_up, arb(0)), integrals=integrals)

    def _integrals(self, pi0, n: int, th, E, s_dn: arb, s_up: arb, *, ylo: arb, t: float):
        """``(lower, upper, integrals)`` of ``P_D[R < thr; B]`` (eta) or ``E_D[(1 - lam R)+; B]``
        (delta, :meth:`_delta_kernels`) over the ``n`` light draws ``pi0`` at the tilt ``t`` (the
        series ``th`` with the heavy polynomial ``E``): the lower end less its box failure under
        ``Q`` (jointly with ``x > 0``), the upper end without the failures under ``D``."""
        neg = [-x for x in self.phia[:len(pi0)]]
        if self.delta:
            dr = self._delta_range(s_up, ylo, t)
            points, finish = self._delta_kernels(th, E, s_dn, s_up, dr, t)
        else:
            points = [(-s_dn, 1, 0), (-s_up, 1, 0)]
        try:
            ut = upper_tail(pi0, neg, n, points, t=t, rel=self.rel, prec=self.law.prec)
        except PrecisionError:
            if not self.delta:
                raise
            # the higher kernels' integrals not proved (a lumpy law, small N): the second order
            points, finish = self._delta_kernels(th, E, s_dn, s_up, dr, t, high=False)
            ut = upper_tail(pi0, neg, n, points, t=t, rel=self.rel, prec=self.law.prec)
        qf = arb(0)
        for key, v, edge, above, a, b, X in self.fails:
            qf += _joint_fail(ut.probs, neg, self._values(key), n, -s_up, edge=edge, above=above, t=t)
        if self.delta:
            lower, upper = finish(ut, qf, n)
        else:
            j_dn, j_up = ut.values
            lower = exact_arb(j_up.lower) - qf
            lower = ut.log_prefactor(-s_up).exp() * lower if lower > 0 else arb(0)
            upper = ut.log_prefactor(-s_dn).exp() * exact_arb(j_dn.upper)
        return lower, upper, ut.integrals

    def _delta_range(self, s_up: arb, ylo: arb, t: float) -> arb:
        """delta's monotone range: from ``s_up - DELTA_X0 / t`` (the Maclaurin point ``ylo`` lies
        within ~0.2 / t of the threshold: eta needs no more) where the series is certified
        nondecreasing there over the boxes (every ``D_j >= 0``), else from ``ylo``."""
        y = float(s_up) - DELTA_X0 / t
        if not (0 < y < float(ylo)):
            return ylo
        if y < self._delta_from.get(id(self.boxes), math.inf):
            if not all(monotone_pieces(b, y) for b in self.boxes):
                return ylo
            self._delta_from[id(self.boxes)] = y
        return arb(y)

    def _delta_kernels(self, th, E, s_dn: arb, s_up: arb, ylo: arb, t: float, *, high: bool = True):
        """delta's kernels (module doc, "delta of the reverse") and the function turning the
        integrals, the lower end's failure ``qf`` and the draws ``n`` into ``(lower, upper)`` of
        ``E_D[(1 - lam R)+; B]``.  With ``x = s - Y``, ``thr - F(s - x) = (thr - F(s)) + sum_i
        (-1)^(i+1) F^(i)(s) x^i / i!``, every ``F^(i) = kappa D_(k-i)`` nonnegative and
        nondecreasing on the monotone range (from ``ylo``), so cut after an odd order the
        (Lagrange) remainder is at most 0, after an even one at least 0:

        * above (``s = s_dn``, ``0 < x <= x0 = s_dn - ylo``): ``(thr - R)+ <= U(x) = sigma x -
          F2_lo x^2 / 2 + F3_hi x^3 / 6`` (the slope and the third derivative from above, the
          second from below); beyond ``x0`` at most ``thr``;
        * below (``s = s_up``, ``0 < x <= xl = s_up - ylo``): ``thr - R >= L(x) = (thr_lo - f_up) +
          sigma_lo x - F2_hi x^2 / 2 + F3_lo x^3 / 6 - F4_hi x^4 / 24``; beyond ``xl`` at least 0.

        (Until session 32 the upper end folded the third order into ``x^2`` below a cut ``x0 = X /
        t``, ``x^3 <= x0 x^2``, and the lower end stopped at the second: ``k = 8``, ``q = 0.34``,
        3.75e-3 of the width.)  The coefficients are the inner box's (:meth:`_delta_inner`:
        ``p_2``, ``p_3``, ``p_4`` cut nearer their means, where the slope varies less); on the shell
        between it and the box the differences ``(U_B - U_I)+``, ``(L_I - L_B)+`` (polynomials in
        ``x`` with nonnegative coefficients) are bounded by the joint Chernoff bounds of the inner
        edges (``x^j e^(-tx) <= (2j / (e t))^j e^(-tx / 2)``).  The kernels of
        :func:`~exactdp.engine.tilted.upper_tail` take ``c >= 0``: the negative even terms are
        kernels ``x^2 e^(-tx)``, ``x^4 e^(-tx)`` of their own (at ``s_up``, for both ends: ``x_dn
        = x_up + (s_dn - s_up) >= x_up``), subtracted.  ``high=False``: the third order folded and
        the lower end at the second (three integrals; where the integrals of the higher kernels
        cannot be proved, a lumpy law at small ``N``)."""
        tt = arb(t)
        lam_lo, lam_hi = self.lam_ends
        outer = self._delta_coefficients(self.boxes, th, E, s_dn, s_up)
        inner_edges, inner_boxes = self._delta_inner()
        inner = outer if inner_boxes is None else \
            self._delta_coefficients(inner_boxes, Series(E, self.kappa, self.k, inner_boxes), E, s_dn, s_up)
        x0 = arb((s_dn - ylo).lower())
        xl = arb((s_up - ylo).lower())
        if not (tt * x0 >= 2 and tt * xl >= 3):
            raise PrecisionError("ktilt (reverse delta): the monotone range is too short for the kernels")
        sig_hi, f2_lo, f3_hi, c1, sig_lo, f2_hi, f3_lo, f4_hi = inner
        if not high:
            f3_lo = f4_hi = arb(0)
        if not c1 > 0:
            raise PrecisionError("ktilt (reverse delta): R is not below the threshold at s_up")
        e1t = arb(1).exp() * tt

        def pos(v):
            return arb(v.upper()) if v > 0 else arb(0)

        # the shell's polynomials: (U_B - U_I)+ at s_dn, (L_I - L_B)+ at s_up, each x^j through
        # its sup (2j / (e t))^j
        if high and tt * x0 >= DELTA_CUBIC_TX:
            neg_g, pos_g, c3 = f2_lo / 2, arb(0), f3_hi / 6
            shell_dn = (pos(outer[0] - sig_hi) * 2 / e1t + pos(f2_lo - outer[1]) / 2 * 16 / e1t ** 2
                        + pos(outer[2] - f3_hi) / 6 * 216 / e1t ** 3)
        else:
            # a short monotone range (small N): the third order folded into x^2 below x0 = X / t,
            # X balancing the fold's cost F3 X / (3 t^2 sigma) against the sup beyond (floats)
            sig, f3 = float(sig_hi), float(f3_hi)
            j1 = 1.0 / (t * t * self.sdy * math.sqrt(2 * math.pi))
            X0 = min(DELTA_X0S, key=lambda X: f3 * X / (3 * t * t * sig) + float(self.lam_hi) * math.exp(-X) / (sig * j1))
            x0 = min(arb((arb(X0) / tt).lower()), x0)
            g_outer, g = _delta_g(outer, x0), _delta_g(inner, x0)
            neg_g, pos_g, c3 = (arb(0), g, arb(0)) if g >= 0 else (-g, arb(0), arb(0))
            shell_dn = pos(outer[0] - sig_hi) * 2 / e1t + pos(g_outer - g) * 16 / e1t ** 2
        # (a kernel's degree costs: trailing zero terms dropped)
        points = [_trim((-s_dn, 0, sig_hi, pos_g, c3)), _trim((-s_up, c1, sig_lo, 0, f3_lo / 6)), (-s_up, 0, 0, 1)]
        if high:
            points.append((-s_up, 0, 0, 0, 0, 1))
        shell_up = (pos(c1 - outer[3]) + pos(sig_lo - outer[4]) * 2 / e1t + pos(outer[5] - f2_hi) / 2 * 16 / e1t ** 2
                    + pos(f3_lo - outer[6]) / 6 * 216 / e1t ** 3 + pos(outer[7] - f4_hi) / 24 * 4096 / e1t ** 4)

        def finish(ut, qf, n: int):
            j_dn, j_up, j_up2 = ut.values[:3]
            j_up4 = ut.values[3] if high else None
            neg = [-x for x in self.phia[:len(ut.probs)]]
            sh_dn, sh_up = arb(0), arb(0)
            for key, edge, above in inner_edges:
                v = self._values(key)
                sh_dn += _joint_fail(ut.probs, neg, v, n, -s_dn, edge=edge, above=above, t=t)
                sh_up += _joint_fail(ut.probs, neg, v, n, -s_up, edge=edge, above=above, t=t)
            # beyond x0: (thr - R)+ <= thr, and U's negative part neg_g x^2 dropped there (x^2
            # e^(-tx) falls from 2 / t on: t x0 >= 2)
            beyond = (self.lam_hi + neg_g * x0 * x0) * (-tt * x0).exp()
            pre_up = ut.log_prefactor(-s_up).exp()
            upper = lam_lo * (ut.log_prefactor(-s_dn).exp() * (exact_arb(j_dn.upper) + beyond + sh_dn * shell_dn)
                              - neg_g * pre_up * exact_arb(j_up2.lower))
            # beyond xl: L's positive part c1 + sigma_lo x + F3_lo x^3 / 6 (falls from 3 / t on)
            tail = (c1 + sig_lo * xl + f3_lo * xl ** 3 / 6) * (-tt * xl).exp()
            low = (exact_arb(j_up.lower) - f2_hi / 2 * exact_arb(j_up2.upper)
                   - (f4_hi / 24 * exact_arb(j_up4.upper) if high else 0)
                   - qf * (c1 + 2 * sig_lo / e1t + f3_lo / 6 * 216 / e1t ** 3) - tail - sh_up * shell_up)
            lower = lam_hi * pre_up * low if low > 0 else arb(0)
            return lower, upper
        return points, finish

    def _delta_coefficients(self, boxes, th, E, s_dn: arb, s_up: arb):
        """``(sigma, F2_lo, F3_hi, c1, sigma_lo, F2_hi, F3_lo, F4_hi)`` of :meth:`_delta_kernels`
        over ``boxes``: at ``s_dn`` the slope from above, the second derivative from below and the
        third from above (the upper end's ``U``); at ``s_up`` the lower end's ``L = c1 + sigma_lo x -
        F2_hi x^2 / 2 + F3_lo x^3 / 6 - F4_hi x^4 / 24``."""
        # F^(i): the series' coupled Taylor form within the corners' bound (Series.derivatives)
        dn, up = th.derivatives(s_dn, 3), th.derivatives(s_up, 4)
        c1 = arb((self.lam_lo - arb(th.value(s_up).upper())).lower())
        return (arb(dn[0].upper()), _low(dn[1]), arb(dn[2].upper()),
                c1, _low(up[0]), arb(up[1].upper()), _low(up[2]), arb(up[3].upper()))

    def _delta_inner(self):
        """The inner box of delta's coefficients (:meth:`_delta_kernels`), chosen once per plan:
        ``((key, edge, above), ...)`` of the box's edges cut (``p_2`` both sides at
        ``DELTA_INNER_Z`` standard deviations, then the upper edges of ``p_3``, ``p_4`` at ``BOX_Z``:
        each the choice whose slope spread plus shell bound is least, in floats at the plan's
        threshold point), and its boxes (``None``: the box itself)."""
        if self._inner is not None:
            return self._inner
        k, law, t = self.k, self.law, self.t
        E = [arb(1)] + [arb(0)] * k
        s = arb(self.y)
        probs = [arb(float(x)) for x in self.Q]
        neg = [-x for x in self.phia]
        sdy = math.sqrt(law.M * float((self.Q * self.phi ** 2).sum() - (self.Q * self.phi).sum() ** 2))
        j1 = 1.0 / (t * t * sdy * math.sqrt(2 * math.pi))      # E_Q[x e^(-tx); x > 0], roughly
        full = {i: tuple(self.edges[i]) for i in (2, 3, 4)}

        def slopes(ed):
            boxes = _boxes(k, self.stat, law.w[-1], [ed[i] for i in self.POWERS])
            # as _delta_coefficients (in arb: D_(k-1) ~ Y^(k-1) / (k-1)! underflows a double)
            d1 = Series(E, self.kappa, k, boxes).derivatives(s, 1)[0]
            return _low(d1), arb(d1.upper())

        sig_full = slopes(full)[1]

        def cuts(ed):
            return [(key, ed[key][i], i == 1) for key in (2, 3, 4) for i in (0, 1)
                    if ed[key][i] != full[key][i]]

        def cost(ed):
            lo, hi = slopes(ed)
            shell = sum(float(_joint_fail(probs, neg, self._values(key), law.M, -s, edge=edge, above=above, t=t))
                        for key, edge, above in cuts(ed))
            return float((hi - lo) / lo) + shell * 2 / (math.e * t) * float((sig_full - lo) / lo) / j1

        edges = dict(full)
        for key, zs in ((2, DELTA_INNER_Z), (3, BOX_Z), (4, BOX_Z)):
            m, sd = _box_stats(law, self.Q, key)
            best = (cost(edges), edges[key])
            for z in zs:
                ed = {**edges, key: (max(m - z * sd, full[key][0]) if key == 2 else full[key][0],
                                     min(m + z * sd, full[key][1]))}
                if ed[key] == full[key]:
                    break
                try:
                    c = cost(ed)
                except PrecisionError:
                    continue
                if c < best[0]:
                    best = (c, ed[key])
            edges[key] = best[1]
        if edges == full:
            self._inner = ((), None)
        else:
            self._inner = (tuple(cuts(edges)), _boxes(k, self.stat, law.w[-1], [edges[i] for i in self.POWERS]))
        return self._inner
