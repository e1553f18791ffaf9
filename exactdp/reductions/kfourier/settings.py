"""The tunable constants of the large-N k-copies strategy (:mod:`exactdp.reductions.kfourier`).

Every other module reads them at call time as ``settings.NAME`` (an attribute of this module), so
that a test or a benchmark may set ``settings.NAME`` and the code sees it.  The package doc and
the modules' docs say what each one trades."""

#: the last heavy split keeps children down to this fraction of ``tol`` (they become
#: leaves, one Fourier item each, not further splits)
LEAF_FRACTION = 1e-2

#: the second-to-last heavy split keeps undecided children down to this fraction of ``tol``
#: (their mass would be bounded in a group; each is split once more, into a few leaves), and the
#: split before it down to ``ANTEPENULT_FRACTION``.  Where ``eta`` is large the groups of those two
#: splits held most of the width: at ``L = 40``, ``N = 10^7``, ``k = 8``, ``q = 0.30``, ``tol = 1e-4`` their
#: groups gave 1.46e-3 of the width 1.68e-3; with 1e-2 and 0.1 (were 0.1 and 1) the width is 3.1e-4
#: at about the same CPU (k = 16: 7.7e-4 -> 3.3e-4; ``benchmarks/RESULTS.md``, session 9).  (Until
#: session 19 the antepenultimate fraction was 1 from k = 64, not measured there; with 0.1, k = 64,
#: q = 0.38, tol 3.3e-9: width 5.0e-8 -> 2.6e-8 at the same cost; k = 200, q = 0.38, tol 1e-4:
#: 7.7e-4 -> 5.0e-4, 138 -> 132 s.)
PENULT_FRACTION = 1e-2
ANTEPENULT_FRACTION = 0.1

#: undecided children too light to expand are bounded in monotone groups by Chernoff bounds at
#: the first of these deviations that decides a side (:meth:`walk.Walk.bound_group`), not dropped whole
PARTIAL_DROP = True
#: (half-steps from 4 down: at L = 40, N = 10^7, k = 16, q = 0.30, tol = 1e-4 the groups' width
#: falls from 1.34e-3 to 1.22e-3, eta's from 1.50e-3 to 1.37e-3; ``benchmarks/RESULTS.md``, kq30)
PARTIAL_Z = (6.0, 5.0, 4.5, 4.0, 3.5, 3.0, 2.5, 2.0, 1.5, 1.0, 0.5)
#: the Fourier items' smoothing and decay bands are asked for ``tol * max(1, SMOOTH_MASS / W)``,
#: ``W`` the items' total mass: their errors enter the width times ``W``, so below this mass (tiny
#: eta) they keep a hundredth of the width's share of a mass-1 walk at no more cost (walk module doc,
#: "Far decisions").  Until session 23 1e-3: at ``k = 8``, ``q = 0.415``, ``tol = 5.42e-219`` the decay
#: bands (their count grows as ``1 / sg``) took 35 of the walk's ~90 s, the same enclosure to six
#: digits with 3e-2 or 0.3 (walk 93 -> 58 s side by side); 0.1 widened ``delta --k 2 -q 0.351`` 2x
#: (5.0e-11 -> 1.0e-10, 1.8 -> 2.4 s), 1e-2 by a third (1.6 s; ``benchmarks/RESULTS.md``, session 23)
SMOOTH_MASS = 1e-2
#: a node is decided (:meth:`walk.Walk.decision`) at the first of these deviations whose Chernoff
#: bound, times the node's mass, is below ``tol / 100``; the check fails for every later one once
#: it fails for one (walk module doc, "Far decisions")
DECIDE_Z = (8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0, 192.0, 256.0, 384.0, 512.0, 768.0, 1024.0)
#: the Fourier integral of a bin is asked for an absolute error of ``max(eps_int W, tol *
#: INT_ITEM * items)`` (at most ``1e-3 W``; ``W`` the items' mass, :func:`integral.mixture_tails`).
#: Until session 19 ``INT_ITEM`` was 1e-2: with ~60,000 items a walk's integrals were allowed
#: ~600 tol, and their error bound (the enclosure's radius) was the width's floor at large k
#: (``L = 40``, ``N = 10^7``, ``k = 64``, ``q = 0.38``, tol 3.3e-9: 4.4e-8 of the width 6.0e-8, and
#: growing as tol fell); the integral costs hardly more at ``eps_int W`` (125 s either way;
#: ``benchmarks/RESULTS.md``, session 19)
INT_ITEM = 0.0
#: a leaf's threshold point far out is decided by a Chernoff bound ``B`` (not an integral item)
#: where ``B`` times its mass is below ``tol * TAIL_DECIDE`` (:meth:`walk.Walk.tail`): each such
#: decision adds up to that much to the width (was 1e-2 until session 19: at ``k = 64``,
#: ``q = 0.38``, tol 3.3e-9, 1e-4 takes the width from 2.6e-8 to 1.6e-8, ~10 % more items)
TAIL_DECIDE = 1e-4
#: a group of such children whose bounds leave more than this fraction of its mass open is cut in
#: halves, at most GROUP_DEPTH times
GROUP_SPLIT = 0.25
GROUP_DEPTH = 3
#: an open group of the last split's children (its Chernoff ends leave more than
#: ``tol * HULL_OPEN`` of mass open) is bounded item by item under one shared light-law pair and
#: box set (:meth:`walk.Walk.hull_group`)
GROUP_HULL = True
HULL_OPEN = 1e-4
#: ... and only when its open mass is above ``tol * HULL_ITEM`` per child (each child costs a leaf:
#: at ``k = 8``, ``q = 0.30``, ``tol = 1e-4`` the ~5 % of the open groups' children in the groups with
#: the least open mass per child hold ~3e-5 of their open width).  Until session 21 ``1e-3`` and
#: ``1e-4``: at ``k = 200``, ``q = 0.38``, tol 1e-4 the many small groups left open below them held
#: ~1 tol (width 2.49 -> 1.51 tol, 74 -> 86 s); ``k = 64``, ``q = 0.38``, tol 1e-7: 1.63 -> 1.35 tol
#: (43 -> 47 s); ``k = 8``, ``q = 0.30``, tol 1e-4: 1.37e-4 -> 1.12e-4 (73 -> 78 s)
HULL_ITEM = 1e-5
#: ... in runs of consecutive children of mass at most ``tol * HULL_SEG`` (a run bounded by its
#: first child's lower side and its last child's upper side: :func:`walk.hull_segments`), cut
#: where a float estimate of ``f`` says a run leaves more than ``tol * HULL_RUN_WIDTH`` open
#: (:meth:`walk.Walk.hull_runs`).  At ``k = 8``, ``q = 0.30``, ``tol = 1e-4`` (two runs at a time):
#: child by child 72,094 Fourier items, width 3.21e-4, 229 CPU s; (1e-3, 0) 44,005, 4.16e-4, 179 s;
#: (3e-2, 1e-4) 44,048, 3.67e-4, 147 s; (0.1, 1e-3) 29,170, 7.37e-4, 129 s.  ``HULL_RUN_WIDTH``
#: was 1e-4 until session 36: where eta is near 1 the last split's groups hold ~10^5 runs, each
#: allowed its ``tol * HULL_RUN_WIDTH`` (``L = 40``, ``N = 10^7``, ``lam = e^2``, ``k = 64``,
#: ``q = 0.32``, tol 1e-3, one walk, with ``REP_OPEN`` 1e-3: width 5.1e-3 -> 1.8e-3 with 1e-6,
#: Fourier items 125k -> 374k, 194 -> 271 s; with ``REP_OPEN`` 1e-2: 9.4e-3 -> 6.7e-3 with 1e-5
#: (232k items) and 6.3e-3 with 1e-6 (351k): 1e-5 taken; ``benchmarks/RESULTS.md``, session 36)
HULL_SEG = 3e-2
HULL_RUN_WIDTH = 1e-5

#: a leaf's null count in the Fourier integral rounded to a multiple of ``2^j``, the largest
#: power of two at most ``N_GRID_REL * sqrt(n)`` (``n`` the null outputs), down for the lower side
#: and up for the upper (:meth:`walk.Walk.tail`; 0: exact counts)
N_GRID_REL = 5e-3
#: ... from this many null outputs on (``k >= 6`` at ``N = 10^7``, ``k (N - 1)`` null outputs; far
#: below it the shift is not negligible against the delta passes' widths: ``L = 12``, ``N = 2 * 10^5``, ``k = 2``, delta at
#: ``rel = 1e-4``; at ``k = 8``, ``q = 0.30``, ``tol = 3.5e-5`` (``g = 32``) the integrals take
#: 100 -> 33 CPU s and the width 5.92e-4 -> 5.89e-4: ``benchmarks/RESULTS.md``, session 9)
N_GRID_FROM = 5 * 10**7
#: ... and the grid halved for an item while its mass times ``g`` exceeds ``N_GRID_ITEM * tol``
#: (a heavy item's shift is a share of the width: at ``k = 8``, ``q = 0.415``, ``tol = 7.86e-219``,
#: eta ~1.48e-214, the width 23.7 -> 6.7 tol for 53 -> 70 s; ``k = 16``, ``q = 0.41``, ``tol =
#: 2.59e-92``: 6.1 -> 2.2 tol, 41 -> 51 s; ``k = 8``, ``q = 0.30``, ``tol = 3.5e-5``: unchanged;
#: ``benchmarks/RESULTS.md``, session 23)
N_GRID_ITEM = 3200.0

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

#: :meth:`laws.LightLaws.ensure_monotone` stops trying the region's margin after this many failures, if
#: they outnumber the passes this many times: the check at ``Ymin`` itself is then asked first
MARGIN_TRIES = 20
MARGIN_RATIO = 4

#: the series enclosure's balls and third-order remainder by a majorant (series module doc, "The
#: remainder by a majorant"): every Taylor row a point's polynomial
SERIES_MAJORANT = True

#: the series enclosure of each box intersected with its corner bounds (series module doc,
#: "corner bounds"; valid on the certified monotone range)
SERIES_CORNERS = True

#: heavy levels of :func:`exactdp.engine.largen.split_plan` returned to the light law
#: (measured at L = 40, N = 10^7: at k = 4, tol = 1e-7, width 1.6e-3 in 18 s with one,
#: 5.9e-3 in 77 s with none, 5.6e-3 with two)
EXTRA_LIGHT = 1

#: from this k on the top heavy level stays heavy (series enclosure: the top light level's
#: Poisson count dominates p_2's spread; at L = 40, N = 10^7, k = 64, tol = 1e-5 the relative
#: width falls from 0.19 to 1.3e-2, 463 CPU s)
EXTRA_LIGHT_MAX_K = 64

#: the pilot walk that chooses ``alpha`` (api ``_pilot_alpha``) runs at ``max(100 tol, PILOT_TOL)``,
#: and where it weighs no leaf (eta far below that) again at ``PILOT_BELOW`` times the scale of its
#: own ends (``tiny_scale``), at most ``PILOT_TRIES`` walks, the last at ``100 tol``
PILOT_TOL = 1e-5
#: ... and at most at PILOT_MAX: at tol 1e-2 (the coarse pass) a pilot at 100 tol = 1 decides
#: everything and weighs no leaf, so the walk ran with alpha = 0 (p_2 uncancelled; forward, L =
#: 40, N = 10^7, lam = e^2, k = 200, q = 0.34: relative width 0.134 at tol 1e-2; with a pilot at
#: 0.1, 3 s, alpha = 99.07, 0.052; session 35)
PILOT_MAX = 0.1
PILOT_BELOW = 1e-2
PILOT_TRIES = 4
#: ... and with a time budget, within this share of the time left
PILOT_SHARE = 0.25

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
#: ... but the fine settings from FINE_K_LIMIT on take p_2 .. p_SERIES_VARS_FINE_LARGE_K: the higher
#: power sums enter the linear coefficient as [0, cap] balls (p_1 - Y = sum +-tau^(i-1) p_i / i,
#: tau w_max up to 1/2), a good part of the leaves' gap at k = 200 (forward, L = 40, N = 10^7,
#: lam = e^2, q = 0.36, tol 1e-4, fine: relative width 1.78e-3 -> 8.4e-4, 34 -> 54 s; 8 variables:
#: the same; session 34)
SERIES_VARS_FINE_LARGE_K = 6
#: ... and below this k (the Taylor terms of ``p_i``, ``i >= 5``, grow with ``k``): at L = 40,
#: N = 10^7, q = 0.30, tol = 1e-4 the width of eta is the same to 4e-6 at k = 9 with p_2 .. p_4
#: as with p_2 .. p_8 (3 against 7 variables: 10 polynomials per box instead of 36, ~10 % of the
#: CPU), but 1.6 % wider at k = 16 for 4 % of the CPU (``benchmarks/RESULTS.md``, session 10)
SERIES_VARS_SMALL_BELOW_K = 12

#: relative width of the bins of ``tau`` (series): each leaf's light statistic uses the bin
#: nearest its own first-order cancelling ``tau``; one Fourier integral per bin (below
#: FINE_MAX_K; from it TAU_BIN_LARGE_K)
TAU_BIN = 0.005
TAU_BIN_LARGE_K = 0.02
#: TAU_BIN, TAU_REFINE and SERIES_SPLIT (finer) below this k; from it the cheaper settings
#: (at L = 40, N = 10^7, k = 128, q = 0.3684, tol = 1e-5 the fine ones gave relative width
#: 1.6e-2 -> 1.26e-2 at 171 -> 386 CPU s: the hull groups' boxes, twice as many).  Off (0) by
#: default, like P3_BELOW: with them (64, True) k = 8, tol = 1e-6 costs 2.0x the CPU (k = 16:
#: 3.3x; the certificates are shared since session 7; series module doc, "Off by default")
FINE_MAX_K = 0
#: the eta passes at the default enclosure's floor ask for the fine settings (``fine=True``:
#: :func:`~exactdp.reductions.kfourier.api.kfourier_details`) below this k (was 64 until session
#: 19; at k = 64, q = 0.35, tol 1e-5 they take the width from 2.35e-4, the default enclosure's
#: floor, to 1.04e-4 at ~2x the walk's time), and from it only where the first pass was too large
#: to go one level heavier (HEAVIER_FIRST_NODES; session 34: forward, L = 40, N = 10^7, lam = e^2,
#: k = 200, q = 0.36, tol 1e-4: 3.5e-3 -> 1.8e-3, 20 -> 34 s, with SERIES_VARS_FINE_LARGE_K
#: 8.4e-4, 48 s; at k = 128, q = 0.36, tol 1.7e-4 the width is the heavy walk's, not the
#: series': 1.0e-2 either way); delta's passes below it only
FINE_K_LIMIT = 128

#: a series leaf's bin of ``tau`` from the series' own first-order cancelling value at its
#: threshold point (:meth:`walk.Walk.refine_bin`), not only the Bonferroni main term's
TAU_REFINE = True

#: a series leaf's statistic ``Y`` gains ``beta p_3`` cancelling ``p_3`` to first order
#: (:meth:`walk.Walk.refine_bin`), ``beta = g BETA_STEP tau^2 / 3``, ``|g| <= BETA_MAX``
#: (``|g BETA_STEP| <= 1/2`` keeps every weight of ``Y`` positive); 0: off
BETA_STEP = 0.03
BETA_MAX = 16

#: each series box's ``p_3`` range from its ``p_2`` range and the Chernoff levels of the light
#: outputs below the top light level (:meth:`laws.LightLaws.below_levels`, module doc "p_3 from p_2")
P3_BELOW = False

#: the series boxes' power-sum ranges widened outward to this many significant bits, so that
#: neighbouring light laws share one box set (:meth:`laws.LightLaws.box_set`); 0: each law its own
BOX_GRID_BITS = 16

#: the series enclosure's matrix products (:meth:`series.Series.value`) at this many bits (the
#: boxes' coefficient matrix rounded outward to it once per box set; 0: the walk's precision):
#: the enclosure's own radius is ~1e-4 .. 1e-3 relative, the rounding ~1e-19 of the terms
VALUE_PREC = 64

#: the ``p_2`` range of the series enclosure in this many sub-boxes (union of enclosures)
SERIES_SPLIT = 8
SERIES_SPLIT_LARGE_K = 4

#: Newton guesses and check screens in floats (:class:`SeriesFloat`); False: the arb root finders
GUESS_FLOATS = True

#: a float guess may skip an arb check only when it misses the threshold by this much
#: (relative; the float images are accurate to ~1e-12 relative)
GUESS_MARGIN = 1e-6


#: the Bonferroni ``Lo`` checks of the node decisions screened by their own float image
#: (:class:`LoScreen`), not only by ``Up0`` (:class:`PlainScreen`)
LO_SCREEN = True

#: with ``alpha = 0`` (the series walk) the node decisions' checks as polynomials
#: (:class:`NodePoly`), without float screens
NODE_POLY = True

#: relative steps from a Newton guess to a certified threshold point (series)
STEPS = (1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3)
#: steps below this are checked in arb only where the float image clears the threshold by
#: ``GUESS_CUSHION`` in ``log R`` (the float ends match arb's to ~1e-11 at ``k = 16``): one arb
#: evaluation per side instead of two or three; from it on every step is checked
STEP_ALWAYS = 1e-5
GUESS_CUSHION = 1e-9

#: with a time budget (``deadline``) and from this k on, the passes start with one coarse pass
#: (eta: ``methods.KFOURIER_TOL0_COARSE``; delta: DELTA_TOL0_COARSE): a first fine pass that the
#: budget cuts short leaves a one-sided enclosure (the depth-first walk settles one end of the heavy
#: counts first), a coarse one that finishes a two-sided one.  At L = 40, N = 10^7, lam = e^2,
#: forward, ``--max-seconds``: eta at k = 64, q = 0.32, 300 s [0.903, 0.978] (a fine first pass:
#: [0.206, 1] in 150 s); k = 128, q = 0.34, 600 s [0.66, 0.792] (was [0.125, 1]); delta at k = 64,
#: q = 0.3643, 120 s [0, 0.0086] (was [0, 1]); ``benchmarks/RESULTS.md``, session 16
COARSE_FROM_K = 32
DELTA_TOL0_COARSE = 1e-3
#: ... and each next pass's tol no finer than the time left allows (:func:`~exactdp.reductions.
#: kfourier.api.budget_tol`): a pass's time grows about as tol^-COST_EXPONENT (L = 40, N = 10^7,
#: lam = e^2: k = 64, q = 0.32 142 s at 1e-2, 389 s at 1e-3; q = 0.3643 20.6 s at 1e-2, 136 s at
#: 1e-4: exponents 0.44, 0.41), and the next pass is to take at most 1/BUDGET_SAFETY of the time
#: left: a pass the budget cuts short settles one side only, a coarser one that finishes both
COST_EXPONENT = 0.5
BUDGET_SAFETY = 2.0
#: ... and whether the next eta pass would outlast the budget is predicted with the growth the last
#: two walk passes measured, where it is slower, but no slower than this
#: (:func:`~exactdp.reductions.kfourier.api.measured_exponent`)
COST_EXPONENT_MEASURED_MIN = 0.2
#: ... and where eta lies below the pass's own tol (tiny eta, q >= 0.40) as tol^-COST_EXPONENT_TINY:
#: the walk decides nearly every node far out (walk module doc, "Far decisions"); k = 2, q = 0.40:
#: 1.7 s at 1e-34, 5.8 s at 1e-38 (0.13)
COST_EXPONENT_TINY = 0.2
#: ... applied to those passes only once the passes have spent this share of the budget (before,
#: each pass's leap, below 1e-15 at ~0.5 s a pass, followed the clock: the same query printed
#: different enclosures by the machine's load); a walk still stops at the deadline itself
TINY_BUDGET_FROM = 0.1
#: ... and only where eta's upper end lies below this fraction of the pass's tol (far below: the
#: walk decides nearly every node far out); a pass whose upper end lies just below its tol is
#: limited from the start (k = 200, q = 0.38: the coarse pass at 1e-2 gave [0, 6.7e-3] in 16 s and
#: the next, at 5.7e-7 unlimited, was cut short by a 300 s budget with no answer).  Not 1e-2: a
#: tiny pass's upper end lies 1e-3 .. 0.07 of its tol (k = 16, q = 0.41: 0.0167 at tol 2.6e-60,
#: eta = 6.9e-88), and with 1e-2 those passes crept down by the budget (2.6e-60 -> 4.8e-65 ->
#: 1.3e-69 ...: 15 passes, 336 s, against 7 passes)
TINY_FAR = 0.1
#: ... and each such pass's tol at least this times the last one's: a leap from the lower end's scale
#: alone can land where the walk explodes (k = 2, q = 0.41: from 3.3e-92, [4e-197, 2e-94], to 4e-195,
#: > 300,000 nodes; the budget rule had bounded the leaps, by the clock, to ~1e-16)
TINY_JUMP = 1e-16
#: a tiny eta's or delta's size is guessed at most this many times its certified lower end
#: (:func:`~exactdp.reductions.kfourier.api.tiny_scale`): k = 2, q = 0.40, a first pass at 1e-4 gives
#: [5.2e-36, 4e-12] for eta = 2.55e-33
TINY_ABOVE_LOWER = 1e6
#: ... except from this many copies on, where ends more than TINY_ABOVE_LOWER apart guess it at the
#: upper end: a walk far below eta explodes there (L = 40, N = 10^7, lam = e^2, k = 64, q = 0.40: a
#: pass at 5.76e-15 gave [2.5e-29, 1.8e-17] for eta ~2.2e-21, the guess 1e6 times the lower end took
#: the next pass to 2.15e-27 and a 600 s budget ran out in it; one walk at 1e-21 takes ~100 s, at
#: 1e-22 ~300 s); ends closer keep the geometric mean (k = 64, q = 0.38: [7.7e-6, 1.9e-4] for
#: eta = 1.835e-5, the upper end cost one more pass, 41 -> 81 s)
TINY_UPPER_FROM_K = 32
#: a walk of P[R < thr] (003's reverse) works at no fewer than log2(1/tol) + this many bits: its
#: bounds enter as 1 - B (kfourier.api._details)
COMPLEMENT_BITS = 64

#: relative width asked of :func:`kfourier_delta` by default (difference route)
DELTA_REL = 1e-3
#: first heavy-node tolerance of the difference route, its floor, and its most passes
DELTA_TOL0 = 1e-6
DELTA_TOL_FLOOR = 1e-11
DELTA_PASSES = 3
#: ... besides at most this many passes whose tol lies above delta's upper end (tiny delta: each
#: takes the next tol from delta's scale, several decades down; methods.KFOURIER_TINY_PASSES)
DELTA_TINY_PASSES = 8

#: an open group of light children above the last split (its Chernoff ends leave more than
#: ``tol * REP_OPEN`` of mass open) is bounded by representatives (:meth:`walk.Walk.rep_group`):
#: runs of mass at most ``tol * REP_SEG``, each run's lower side its first child's ``f`` and its
#: upper side the next run's first child's (a run of one child: its own), those children expanded
#: with the runs' masses.  ``REP_SEG`` was 1 until session 21: where eta is tiny a group holds one
#: to three children of up to ~tol together, ``f`` jumps from ~0 to ~1 across them, and each such
#: group's one run left its whole mass open (``L = 40``, ``N = 10^7``, ``lam = e^2``, one walk:
#: ``k = 16``, ``q = 0.41``, tol 1e-90: width 7.47 -> 1.08 tol; ``k = 64``, ``q = 0.40``, tol 1e-19:
#: 1.83 -> 0.16 tol; ``k = 200``, ``q = 0.38``, tol 1e-4: 4.99 -> 2.49 tol; ``k = 64``, ``q = 0.38``,
#: tol 1e-7: 4.75 -> 1.63 tol; nodes and time the same; ``benchmarks/RESULTS.md``, session 21).
#: ``REP_OPEN`` was 1e-2 until session 36: the groups left below it are many where eta is near 1
#: (``k = 64``, ``q = 0.32``, tol 1e-3: 7,152 groups above the last split held 5.1e-3 of a width of
#: 6.3e-3; with 1e-3 2.3e-4, nodes 13,374 -> 16,358)
GROUP_REPS = True
REP_OPEN = 1e-3
REP_SEG = 1e-2

#: a walk with a ``progress`` callable reports its node count at most this often (seconds)
PROGRESS_SECONDS = 0.5

#: floor counts (walk module doc, "Floor counts"): a decision above that fails with every
#: unplaced output lowered to the light law is asked again with guaranteed counts of the unplaced
#: heavy outputs kept at their levels' weights, failing with mass at most ``tol * FLOOR_SHARE /
#: pm`` (node decisions of mass ``pm``) or ``FLOOR_BETA`` (a group's lower end) in all.  At
#: ``L = 40``, ``N = 10^7``, ``k = 32``, ``q = 0.30``, ``tol = 1e-3`` (one walk): without floors
#: 5.89e-3 relative width, 7,235 nodes; ``FLOOR_SHARE`` 1e-3 6.39e-3, 4,890 nodes (each floored
#: decision settles its node with a larger failure); 1e-4 5.49e-3, 5,771 nodes
FLOOR_COUNTS = True
FLOOR_SHARE = 1e-4
FLOOR_BETA = 1e-4


#: where the walk without an extra light level still fails the monotonicity certificate, it is
#: retried with up to this many of the top light levels enumerated as heavy (``extra_light`` down
#: to ``-EXTRA_HEAVY``; api).  At ``L = 40``, ``N = 10^7``, ``k = 128``, ``q = 0.30`` the light
#: law down from level 29 fails it (``benchmarks/RESULTS.md``, session 13)
EXTRA_HEAVY = 1
#: the eta passes (methods) at the series enclosure's floor go on with one light level more
#: enumerated as heavy (``extra_light`` one lower, down to ``-EXTRA_HEAVY``) where the pass that
#: floored walked at most this many nodes (the heavier walk's nodes grow ~10-80x: 15 -> 1,175 at
#: k = 32, 003's reverse, q = 0.360444; 4,198 -> 51,084 at k = 16, q = 0.39, 9x the time)
HEAVIER_NODES = 1000
#: ... and from FINE_K_LIMIT on, where the floored pass walked more but the first pass at most
#: this many (more: the fine settings instead): one level heavier at the first pass's tol (003's
#: reverse, L = 40, N = 10^7, lam = e^2, k = 200: q = 0.34 599 -> 7,386 nodes, relative width
#: 0.12 -> 5.0e-4, 12 s; q = 0.351 1,575 -> 24,262 nodes, 2.1e-3 -> 4.1e-4, 45 s; k = 128,
#: q = 0.351 2.3e-3 -> 4.9e-4)
HEAVIER_FIRST_NODES = 2000

#: a located eta pass (not the coarse one) wider than this many times its tol is at the series
#: enclosure's floor (:func:`~exactdp.reductions.methods._kfourier_passes`): the walk's own
#: allowances leave a few tols (forward, L = 40, N = 10^7, lam = e^2: 2.6 .. 9.6 tol at k = 128,
#: q = 0.34 from 1e-2 to 1e-4; ~9 at k = 64, q = 0.32 before session 36's allowances), the
#: series' floor far more at fine tols (k = 200, q = 0.34: 153 tol at 1e-4, 505 at 3.3e-5), but
#: the floor is an absolute width (~1.4e-2 there), so a budget's coarser passes stay under (28.9
#: tol at 4.8e-4, 18.8 at 7.1e-4; benchmarks/RESULTS.md, session 37)
FLOOR_TOLS = 30.0

#: the lower-tail product bound (:mod:`~exactdp.reductions.kfourier.lowertail`): its heavy levels
#: hold at most this many outputs on average (each level's count law is summed term by term in arb)
LOWER_TAIL_MAX_COUNT = 2000
#: ... tried from this k on (at L = 40, N = 10^7, q = 0.30 it is 0.12 at k = 64, 6.3e-4 at 128,
#: 1.0e-6 at 200; None or far wider than the walk below), and taken alone, without a walk, when
#: it is at most this many times the walk's tol: there the walk's width is 20-70 tol (q = 0.30,
#: tol = 1e-3: 2.2e-2 at k = 64 in 299 CPU s, 7e-2 at k = 128 in 1141 s; ``benchmarks/RESULTS.md``)
LOWER_TAIL_FROM_K = 64
LOWER_TAIL_ACCEPT = 30.0
#: ... the float choice's quotas and deficit cap refined one move at a time, at most this many rounds
LOWER_TAIL_REFINE = 8
