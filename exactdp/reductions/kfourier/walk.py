r"""The certified walk of the large-N k-copies strategy (part of :mod:`exactdp.reductions.kfourier`):
:class:`Walk` enumerates the heavy levels, decides nodes by Chernoff bounds, bounds light
undecided children in monotone groups, and sends each leaf's threshold points (from
:mod:`~exactdp.reductions.kfourier.bracket` or :mod:`~exactdp.reductions.kfourier.series`) to the
Fourier integrals of :mod:`~exactdp.reductions.kfourier.integral`.

**Decisions before splitting.**  Every child of a split is first offered to the
node decision below (cached Chernoff bounds per light law); an undecided child
of mass below ``tol`` is dropped (its mass enters the width), except at the last
heavy split, where children down to ``tol * LEAF_FRACTION`` become leaves (and
``tol * PENULT_FRACTION``, ``tol * ANTEPENULT_FRACTION`` at the two splits before it).  The
lowest heavy level of :func:`~exactdp.engine.largen.split_plan` goes back to the
light law (``EXTRA_LIGHT``; a Poisson-like count whose enumeration spreads the
mass over many small nodes).  Where that spreads the light statistic too widely for the
monotonicity certificate below (small ``q``: at ``q = 0.30``, ``k = 16`` its Chernoff range is
``[0.17, 1.26]``), the walk is run again with the level heavy; the certificate is asked at the
region's margin below ``Ymin`` first, then at ``Ymin`` itself (each suffices for its laws).

**Far decisions (tiny eta).**  A node decision (below: ``Up0`` of the unplaced outputs' sum at
its ``mean + z sd`` under the threshold; above: ``Lo`` of the light sum at ``mean - z sd`` over it)
is asked at ``z = 8`` first and, where its Chernoff bound times the node's mass is not below
``tol / 100``, further out (``settings.DECIDE_Z``, up to 1024) while the check holds (``Up0`` rises
with its point and ``Lo`` falls, so once it fails it fails further out).  Where eta is tiny
(``L = 40``, ``N = 10^7``, ``lam = e^2``, ``q = 0.40``: ~2.55e-33 at ``k = 2``) the bound at 8
deviations (~1e-14) was the walk's floor: the upper end followed tol (8.9e-14, 4.2e-17 at tol
1e-12, 1e-16, 1232 nodes at 1e-16, lower end 0).  Now the root is decided at tol 1e-9 and at tol
1e-38 the walk gives [2.55184e-33, 2.55193e-33] (818 nodes, 5.8 s).  The Fourier items' smoothing
and decay bands are asked for ``tol * max(1, SMOOTH_MASS / W)``, ``W`` the items' total mass (their
errors enter the width times ``W``): at tol 1e-34 the decay bands of a smoothing at tol's own
resolution took 298 of the walk's 300 s, the walk now 1.7 s.  Further out the passes still reach
eta (``k = 2``, ``q = 0.41``: [1.39e-153, 1.40e-153] in seconds; ``k = 16``: [6.89422e-88,
6.89462e-88] (session 36; 53 s in session 23, seven passes, the last at tol 2.6e-92)), but where eta is a
large deviation of many heavy outputs (``k = 2`` from ``q = 0.42``) the decisions give only an
upper bound (the root decided below; the passes' float tols end near 1e-300) and a walk at eta's scale is out of reach (``k = 2``, ``q = 0.41``, tol 4e-195, 40 decades
below eta: over 600 s); the forward direction's far tails are tilted instead
(:mod:`~exactdp.reductions.kfourier.tilt`).

**Decisions by the coupling.**  Among the children of one node with the same changed-user
count, ``f(A) = P[R > thr | A]`` is nondecreasing in the count ``A`` at the split level (next
paragraph).  So a child decided above (``P[R <= thr | A0] <= B``) decides every child with
``A >= A0`` with the same ``B``, and a child decided below every child with ``A <= A1``: one
decision per end of each row, found by bisection (:meth:`Walk.split_row`), the end's mass summed,
instead of one decision per child.  At ``L = 40``, ``N = 10^7``, ``k = 32``, ``q = 0.30``, ``tol =
1e-3``: 1,321,576 decisions (one per child) -> 101,406 settled ends (each a few bisection steps),
118.6 -> 93.2 CPU s, the mass left to the binomial windows' tiny children 1.6e-4 -> 2.1e-5 (the
ends take them too).

**Light undecided children in monotone groups.**  Such a child's mass need not enter the
width whole.  Among the children of one node with the same changed-user count,
``f(A) = P[R > thr | A]`` is nondecreasing in the count ``A`` at the split level (couple
the ``(A + 1)``-th output there with one below it: every weight below is smaller and
``e_k`` is nondecreasing in every weight).  A run of consecutive such children of mass
``D`` contributes between ``D f(first)`` and ``D f(last)``; the two decisions above at
fewer deviations (``PARTIAL_Z``) give ``f(first) >= 1 - B`` or ``f(last) <= B`` with
``B`` a Chernoff bound, and a run left open by more than ``GROUP_SPLIT`` is cut in
halves (``Walk.bound_group``).  At ``L = 40``, ``N = 10^7``, ``k = 16``, ``q = 0.356``,
``tol = 1e-6`` the relative width falls from 3.2e-3 to 7.4e-4 (with
``PENULT_FRACTION = 0.1``) at the same cost (``benchmarks/RESULTS.md``).  (An earlier variant,
``GROUP_LEAVES``, bounded ``f(first)`` and ``f(last)`` of a last-split group by the leaf
enclosure, one side each; the hull below bounds every child instead and replaced it.)

**The last split's open groups child by child (``GROUP_HULL``, default).**  A group of the last
split's children whose Chernoff ends leave more than ``tol * HULL_OPEN`` of mass open is bounded
child by child without a light law per child (:meth:`Walk.hull_group`).  Its children differ
only in the count ``A`` at the split level; their null light counts run from ``n_lo`` (the last
child) to ``n_hi`` (the first), the changed-user count ``m`` is shared.  ``Y``, ``p_2``, ``p_3``
are sums of nonnegative terms of i.i.d. outputs, so with ``n`` outputs taken as the first ``n``
of one sequence ``Y_(n_lo) <= Y_n <= Y_(n_hi)`` pathwise (and the same for ``p_2``, ``p_3``):
the box made of ``n_lo``'s lower and ``n_hi``'s upper Chernoff levels fails, for every child,
with mass at most the two laws' failure bounds summed, and

    P[Y_(n_lo) > s_dn] <= P[Y_n > s_dn],      P[Y_n >= s_up] <= P[Y_(n_hi) >= s_up].

Each child keeps its own ``E_H``, its own certified points ``s_dn``, ``s_up`` over the shared
box set (certified monotone as above) and its own mass: the group's width is the children's
enclosure widths, not ``D (f(last) - f(first))``.  Runs of consecutive light children (mass at
most ``tol * HULL_SEG`` together) are one item: the run's mass at its first child's lower side
and its last child's upper side (``f`` nondecreasing; :func:`hull_segments`).  At ``L = 40``,
``N = 10^7``, ``k = 64``, ``q = 0.3643``, ``tol = 1e-5`` the last split's groups fall from 8.6e-4
to 5e-6 of the width (``benchmarks/RESULTS.md``, kbig6); at ``k = 8``, ``q = 0.30``, ``tol = 1e-4``
the runs (cut where a float estimate of ``f`` moves: :meth:`Walk.hull_runs`) take 72,094 Fourier
items to 44,048 and 229 to 147 CPU s, for a width of 3.2e-4 -> 3.7e-4 (``settings.HULL_SEG``).

**Open groups above the last split by representatives (``GROUP_REPS``, default).**  Above the
last split a group's Chernoff ends are weak: the unplaced heavy levels are lowered to the light
law for the lower end (at ``q = 0.30`` each level's weight is ``(p / q)^2 = 5.4`` times the next
one's) and the upper end drops ``e_k``'s negative terms.  Where they leave more than ``tol *
REP_OPEN`` of mass open, the group is cut into runs of mass at most ``tol * REP_SEG`` and each run
is bounded by two of its row's children expanded as nodes (:meth:`Walk.rep_group`): its lower
side (``D f(first)``, ``D`` the run's mass) by its own first child and its upper side by the next
run's first child (``f`` is nondecreasing in ``A``; the last run's own last child, and a run of
one child its own: no step).  A node therefore carries two masses, ``P`` for its lower side and
``Q`` for its upper (equal but at the representatives), and every bound below it takes the mass
of its side.  The runs' steps ``f(next first) - f(first)`` sum to at most 1 per group, so the runs
add at most ``tol * REP_SEG`` per group besides the representatives' own widths.  Where eta is
tiny that bound is what the groups cost: a group holds one to three children of up to ~tol
together and ``f`` jumps from ~0 to ~1 across them, so with ``REP_SEG = 1`` (until session 21)
each group's single run left its whole mass open (``k = 16``, ``q = 0.41``, tol 1e-90: 161
groups, ~3 of the width's 7.47 tol; now each such child is its own run, the width 1.08 tol, with
fewer nodes: 6,392 -> 6,025).  Where eta is near 1 the groups left below ``REP_OPEN`` are many
instead (``k = 64``, ``q = 0.32``, tol 1e-3: 7,152 of them held 5.1e-3 of a width of 6.3e-3 with
``REP_OPEN`` 1e-2, 2.3e-4 with 1e-3; and the last split's ~10^5 hull runs each their ``tol *
HULL_RUN_WIDTH``: ``benchmarks/RESULTS.md``, session 36).

**Rounded counts in the integral (``N_GRID_REL``).**  The same coupling lets a Fourier item use
another null count: rounded down to a multiple of ``g`` for the lower side (``P[Y > s]`` of fewer
outputs is smaller) and up for the upper, ``g = 2^j <= N_GRID_REL sqrt(n_users)`` (``n_users``
the null outputs; the count stays at least the decay bands' ``n_min``), halved for an item while
its mass times ``g`` exceeds ``N_GRID_ITEM * tol`` (at tiny eta the heaviest items' shift was most
of the width).  The integrand's cost grows with the number of distinct counts ``(n, m)``; the shift of at most ``g`` outputs out of
``n`` moves ``Y`` by ``O(g / sqrt(n))`` of its deviation; used from ``N_GRID_FROM = 5 * 10^7`` null
outputs (``k >= 6`` at ``N = 10^7``; at ``L = 12``, ``N = 2 * 10^5``, ``g = 2``, a delta of two
mid-range etas widened 3x).  ``k = 16``, ``q = 0.356``, ``tol = 1e-4`` (``g = 32``): CPU 32.9 ->
18.1 s, width 1.730e-4 -> 1.725e-4 (the integrals' own error moves); ``q = 0.34``: 70.3 -> 43.1 CPU
s, width 2.35e-4 -> 2.17e-4; ``q = 0.30``: width 7.743e-4 either way; ``k = 8``, ``q = 0.30``, ``tol =
3.5e-5``: the integrals 100 -> 33 CPU s, width 5.92e-4 -> 5.89e-4 (``benchmarks/RESULTS.md``).

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

**Floor counts (``FLOOR_COUNTS``).**  Lowering every unplaced output to the light law throws away
the unplaced heavy levels, whose outputs are not rare at small ``q`` and large ``k``: at ``L = 40``,
``N = 10^7``, ``k = 64``, ``q = 0.30`` the lowest heavy level (29) holds ~20 null outputs on average
at 5.4 times the light law's top weight, and a node's changed-user outputs sit mostly at 27 ... 31.
Where a decision above (or a group's lower end) fails, it is asked again with guaranteed counts:
for each unplaced heavy level ``lv`` from the top down, ``a_lv`` with ``P[fewer than a_lv of the
node's n unplaced null outputs at levels >= lv] <= beta_lv`` (binomial ``(n, theta)``, ``theta``
the law's conditional mass of ``[lv, l]``; the sum enclosed in arb, :func:`_binom_lower_tail`),
the same for the changed-user outputs.  Outside an event of mass ``sum beta_lv``, taking top down
the first ``a_lv - a_(lv+1)`` not yet taken outputs at levels ``>= lv`` (there are enough: every
earlier one is at a higher level) gives outputs of weight at least ``w_lv``; given which indices
were taken, the other outputs are independent, each of the unplaced law conditioned on a lower set
of levels (or not at all), so each is stochastically above the light law.  So ``P[R <= thr] <=
sum beta_lv + P[R' <= thr]`` with ``R'`` the taken outputs at their levels' weights in ``E_H`` and
the others (null counts rounded down to the grid ``n_grid``: fewer outputs, a smaller ``R``) in the
light law (``tests/test_kfourier_floors.py`` checks it by exact enumeration).  At ``k = 64``,
``q = 0.30``, ``tol = 1e-3`` without representatives: ``[0.0507, 1]`` -> ``[0.745, 1]``
(``benchmarks/RESULTS.md``, session 13).

**The time budget (``deadline``).**  Past a ``time.monotonic()`` instant every node still on the
stack is dropped (its mass enters the width whole, as any undecided node's) and every pending
Fourier item is bounded by ``0 <= P[Y > s] <= 1`` (its mass to the side that bounds ``eta`` from
above): the enclosure stays certified, only wider (``stopped``).  The command line's
``--max-seconds`` sets it for ``--k`` (:mod:`exactdp.apps.kflag`).

**One BLAS thread.**  The float screens' matrix products (:mod:`~exactdp.reductions.kfourier.floats`)
are large enough from ``k ~ 100`` for OpenBLAS to start its threads, which spin beside the walk:
at ``L = 40``, ``N = 10^7``, ``k = 128``, ``q = 0.34`` a 90 s budget cost 130 CPU s for the same
nodes, and two walks side by side (``k = 128``, ``q = 0.34`` and ``k = 200``, ``q = 0.36``, 60 s each)
reached 799 and 1,449 nodes against 1,880 and the whole walk (2,700 nodes, 35.6 s) with one thread
each.  So :meth:`Walk.run` holds BLAS to one thread (``threadpoolctl``) while it walks.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from math import comb

from flint import arb, arb_poly, ctx
from scipy.stats import binom as binom_dist

from ...core.errors import CapacityError, PrecisionError
from ...core.threads import one_blas_thread
from ...engine.largen import K_SMOOTH, pmf_window, split_plan
from ...model.mechanism import Mechanism
from . import integral, settings
from .arbs import exact_arb, float_hi
from .bracket import NodePoly, Threshold, alpha_at, log_newton, node_column, prefix_rows
from .floats import NO_SCREEN, ArbGuesses, FloatGuesses, LoScreen, PlainScreen, SeriesFloat, log_coeffs, \
    plain_log
from .laws import LightLaws
from .series import Series, padded_coeffs


class Walk(LightLaws):
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
                 upper: bool | None = None, extra_light: int | None = None, fine: bool | None = None,
                 progress=None, deadline: float | None = None):
        # at the walk's own precision, the caller's restored after (no global precision: a
        # Walk built outside the api had left python-flint at 160 bits for whatever came next)
        with ctx.workprec(prec):
            self._setup(red, q, lam, eps, tol, prec, max_nodes=max_nodes, alpha=alpha, pilot=pilot,
                        changed=changed, upper=upper, extra_light=extra_light, fine=fine,
                        progress=progress, deadline=deadline)

    def _setup(self, red, q, lam, eps, tol, prec, *, max_nodes, alpha, pilot, changed, upper,
               extra_light, fine, progress, deadline):
        self.red, self.tol, self.prec, self.max_nodes = red, tol, prec, max_nodes
        self.progress, self.reported = progress, time.monotonic()
        # a time.monotonic() instant (module doc, "The time budget"): past it every node left and
        # every pending integral enters the width whole; ``stopped`` says it happened
        self.deadline, self.stopped = deadline, False
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
            extra_light = settings.EXTRA_LIGHT if k < settings.EXTRA_LIGHT_MAX_K else 0
        self.extra_light = extra_light
        for _ in range(extra_light):
            if len(self.heavy) >= 6:
                self.light.append(self.heavy.pop())
        # negative: the top light levels to the heavy enumeration (a retry where the light
        # statistic is too spread for the monotonicity certificate: api, EXTRA_HEAVY)
        for _ in range(-extra_light):
            if len(self.light) > 2:
                self.heavy.append(self.light.pop())
        self.heavy_set = frozenset(self.heavy)
        self.pi0 = [exact_arb(x) for x in mech.pi0]
        self.pi1 = [exact_arb(x) for x in mech.pi1]
        self.w = [exact_arb(x / M) for x in mech.c]
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
            L_ = exact_arb(Fraction(lam))
        else:
            L_ = exact_arb(Fraction(eps)).exp()
        self.thr = L_ if self.upper else 1 / L_
        # y = p_1 - alpha p_2 with alpha = (k - 1) / (2 E p_1): the p_2 term of k! e_k
        # cancels to first order (module doc), so the bracket's width in p_2 shrinks
        self.pilot, self.pilot_num, self.pilot_den = pilot, 0.0, 0.0
        self.series = settings.ENCLOSURE == "series" and not pilot
        self.w3 = [x * x * x for x in self.wl]
        self.regions = []
        self.certified = {}                     # box -> its certified range of Y (ensure_monotone)
        self.saddles = {}                       # (id of a cached light law, side) -> last tail saddle
        self.binoms = {}                        # (level, count) -> (1 + w t)^count to degree k
        self.root_ratio = 1.0                   # the last leaf's plain root / its light mean (a start)
        self.b = 0                              # the current bin of tau (series)
        # the fine series settings (series module doc): by the settings (None), or asked for
        # (True, with the p_3 tie) or refused (False)
        if fine is None:
            fine, self.p3_below = k < settings.FINE_MAX_K, settings.P3_BELOW
        else:
            fine = bool(fine)
            self.p3_below = fine
        self.fine = fine
        self.tau_bin = settings.TAU_BIN if fine else settings.TAU_BIN_LARGE_K
        self.series_split = settings.SERIES_SPLIT if fine else settings.SERIES_SPLIT_LARGE_K
        self.tau_refine = settings.TAU_REFINE and fine
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
        x = settings.N_GRID_REL * math.sqrt(self.n_users)
        self.n_grid = 2 ** int(math.floor(math.log2(x))) if x >= 2 and self.n_users >= settings.N_GRID_FROM else 1
        self.leaf_tol = tol * settings.LEAF_FRACTION
        # an undecided child of mass below this is dropped: tol, tol * ANTEPENULT_FRACTION and
        # tol * PENULT_FRACTION for the children of the third- and second-to-last splits, and
        # leaf_tol at the last split
        nh = len(self.heavy)
        pf = settings.PENULT_FRACTION
        af = settings.ANTEPENULT_FRACTION
        self.drop_below = [tol if i + 1 < nh - 2 else tol * af if i + 1 == nh - 2 else tol * pf
                           if i + 1 == nh - 1 else self.leaf_tol for i in range(nh)]
        self.eps_int = tol / 4
        self.tol_f = tol * settings.TOL_FAIL
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
        self.rep_nodes = 0                     # representatives expanded by rep_group
        self.floor_used = 0                    # decisions and group ends settled by floor counts
        self.smooth_scale = 1.0                # flush: the smoothing's tol over the items' mass

    def leaf_bin(self, E, x0) -> tuple:
        """``(b, x)``: the bin of the leaf's own ``tau = 2 alpha`` (``pilot_leaf``'s first-order
        cancelling value at its threshold point ``x``, ``None`` if not found; floats, it only
        chooses the statistic, and ``x`` starts the later Newton roots of the leaf)."""
        if self.tau0 <= 0 or self.tau_bin <= 0:
            return 0, None
        th = Threshold(E, self.kappa, self.k, arb(0), arb(0), arb(0))
        try:
            if settings.GUESS_FLOATS:
                scr = self._screen(E)
                x = log_newton(lambda y: plain_log(scr.logE, scr.lk, self.k, y), scr.lthr, x0)
            else:
                x = th.root(th.up, self.thr, x0)
            a = alpha_at(th, self.k, x)
        except (ValueError, OverflowError, ZeroDivisionError):
            return 0, None
        if not (a and a > 0 and math.isfinite(a)):
            return 0, x
        tau = min(2 * a, self.tau_max)
        b = round(math.log(tau / self.tau0) / math.log(1 + self.tau_bin))
        b = max(-200, min(b, 200))
        while self.tau0 * (1 + self.tau_bin) ** b > self.tau_max:
            b -= 1
        self.add_bin(b)
        return b, x
    # ----------------------------------------------------------------- walk
    def run(self):
        """The walk, with one BLAS thread (module doc, "One BLAS thread"), at the walk's precision."""
        with one_blas_thread(), ctx.workprec(self.prec):
            self.walk()

    def walk(self):
        # a node: (split index, null and changed-user outputs left, E_H, P, Q) with P the mass of
        # its lower side and Q of its upper (None: P; they differ at a group's representatives)
        stack = [(0, self.n_users, self.m_users, arb_poly([1]), arb(1), None)]
        while stack:
            idx, n_rem, m_rem, poly, P, Q = stack.pop()
            if self.expired():
                self.drop(P, Q, arb(1))
                continue
            self.nodes += 1
            if self.progress is not None and time.monotonic() - self.reported >= settings.PROGRESS_SECONDS:
                self.reported = time.monotonic()
                self.progress(self.nodes)
            if self.nodes > self.max_nodes:
                raise CapacityError(f"kfourier: the heavy enumeration exceeds {self.max_nodes} nodes; "
                                    "ask for fewer digits")
            if n_rem < self.n_users - self.n_slack:
                raise CapacityError("kfourier: the heavy levels hold too many outputs; use the tree")
            if idx == len(self.heavy):
                self.leaf(n_rem, m_rem, poly, P, Q)
                continue
            l = self.heavy[idx]
            nxt = self.heavy[idx + 1] if idx + 1 < len(self.heavy) else self.light[-1]
            th0 = self.pi0[l] / self.cum0[l]
            vals0, tail0 = pmf_window(n_rem, th0, float(th0), self.tol * 1e-3)
            self.drop(P, Q, arb(tail0))
            if m_rem > 0:
                th1 = self.pi1[l] / self.cum1[l]
                vals1, tail1 = pmf_window(m_rem, th1, float(th1), self.tol * 1e-3)
                self.drop(P, Q, arb(tail1))
            else:
                vals1 = [(0, arb(1))]
            groups = []                # runs of consecutive dropped children (ascending A)
            PAs = [(A, P * pA, None if Q is None else Q * pA) for A, pA in vals0]
            for B, pB in vals1:
                groups += self.split_row(idx, l, nxt, poly, (n_rem, m_rem, B),
                                         [(A, PA * pB, None if QA is None else QA * pB) for A, PA, QA in PAs],
                                         stack=stack)
            self.leaf_kids = idx + 1 == len(self.heavy)
            for items in groups:
                if items:
                    stack += [(idx + 1, *it) for it in self.bound_group(nxt, items, 0)]
        self.flush()

    def split_row(self, idx, l, nxt, poly, counts, kids, *, stack):
        """The children of one node with one changed-user count ``B`` at the split level ``l``
        (``kids``: ``(A, P, Q)``, ascending null count ``A``; ``counts = (n_rem, m_rem, B)``).
        ``f(A) = P[R > thr | A]`` is nondecreasing in ``A`` (module doc, "Decisions by the
        coupling"), so one decision settles a whole end of the row: the least ``A`` decided
        above (found by bisection) bounds every child from it on, the greatest decided below
        every child up to it, each end's mass at once.  The children between are dropped into
        runs (returned, for :meth:`bound_group`) or expanded (pushed on ``stack``)."""
        k = self.k
        n_rem, m_rem, B = counts
        K = len(kids)
        mass = [_mass(kid[1:]) for kid in kids]
        pre = list(itertools.accumulate(mass))
        made = {}

        def child(i):
            if i not in made:
                A, Pk, Qk = kids[i]
                c = A + B
                npoly = poly
                if c:
                    bp = self.binoms.get((l, c))
                    if bp is None:
                        bp = self.binoms[(l, c)] = _binom_poly(self.w[l], c, k)
                    npoly = (poly * bp).truncate(k + 1)
                made[i] = (n_rem - A, m_rem - B, npoly, Pk, Qk)
            return made[i]

        def decision(i, above, pm):
            n, m, npoly, *_ = child(i)
            return self.decision(nxt, n, m, npoly, pm, above=above)
        # the least child decided above, the greatest below it decided below (bisection: the
        # decisions are monotone in A up to the screens; any decided child is a valid end)
        a, b, up = 0, K, None
        while a < b:
            i = (a + b) // 2
            cert = decision(i, True, pre[-1] - (pre[i - 1] if i else 0.0))
            if cert is not None:
                b, up = i, cert
            else:
                a = i + 1
        top = b
        a, b, dn = -1, top - 1, None
        while a < b:
            i = (a + b + 1) // 2
            cert = decision(i, False, pre[i])
            if cert is not None:
                a, dn = i, cert
            else:
                b = i - 1
        bottom = a
        if up is not None:
            self.settle(up, *_sums(kids[top:], 1))
        if dn is not None:
            self.settle(dn, *_sums(kids[:bottom + 1], 1))
        runs = [[]]
        for i in range(bottom + 1, top):
            _, Pk, Qk = kids[i]
            if mass[i] < self.tol * 1e-6:
                self.drop(Pk, Qk, arb(1))
                continue
            if mass[i] < self.drop_below[idx]:
                st = self.drop_stats.setdefault(idx, [0, 0.0])
                st[0] += 1
                st[1] += mass[i]
                if settings.PARTIAL_DROP:
                    runs[-1].append(child(i))
                else:
                    self.drop(Pk, Qk, arb(1))
                continue
            if runs[-1]:
                runs.append([])
            stack.append((idx + 1, *child(i)))
        return runs

    def bound_group(self, l, items, depth):
        """Children of one node too light to expand (same changed-user count, ascending count
        ``A`` at the split level): ``f(A) = P[R > thr | A]`` is nondecreasing in ``A`` (couple
        the ``A + 1``-th output at the split level with one below it: every weight is at most
        the split level's, and ``e_k`` is nondecreasing in every weight), so the group's mass
        ``D`` contributes ``D f(first)`` and ``D f(last)`` at most: a lower bound of ``f`` at
        its first child and an upper bound at its last (:meth:`side_bounds`), each child's
        mass else entering the width whole.  A group whose bounds leave more than
        ``GROUP_SPLIT`` of its mass open is cut in halves (``GROUP_DEPTH`` times).  Returns the
        nodes to expand (:meth:`rep_group`; ``(n, m, E_H, P, Q)``, at the split after ``l``'s)."""
        D, U = _sums(items, 3)
        n, m, poly, *_ = items[0]
        lo = self.side_bounds(l, n, m, poly, lower=True)
        n, m, poly, *_ = items[-1]
        up = self.side_bounds(l, n, m, poly, lower=False)
        f_lo = 1 - float_hi(lo[0]) if lo else 0.0
        f_up = float_hi(up) if up is not None else 1.0
        open_ = max(float_hi(D), float_hi(U)) * (f_up - f_lo)
        if (settings.GROUP_HULL and self.series and self.leaf_kids and open_ > self.tol * settings.HULL_OPEN
                and open_ > self.tol * settings.HULL_ITEM * len(items)):
            self.hull_group(items)
            return []
        if settings.GROUP_REPS and not (self.leaf_kids or self.pilot) and open_ > self.tol * settings.REP_OPEN:
            return self.rep_group(items)
        if len(items) > 1 and depth < settings.GROUP_DEPTH and f_up - f_lo > settings.GROUP_SPLIT:
            h = len(items) // 2
            return self.bound_group(l, items[:h], depth + 1) + self.bound_group(l, items[h:], depth + 1)
        if lo:
            self.fail += D * lo[1]
            self.add_dn_exact(D, 1 - arb(float_hi(lo[0])))
        else:
            self.add_dn_exact(D, arb(0))
        self.add_up_exact(U, arb(float_hi(up)) if up is not None else arb(1))
        return []

    def rep_group(self, items):
        """An open group of light children above the last split (ascending count ``A`` at the
        split level) bounded by representatives (module doc, "Open groups above the last split"): cut into runs
        of mass at most ``tol * REP_SEG`` (:func:`hull_segments`), each run's lower side is its
        first child's ``f`` with the run's mass and its upper side the next run's first child's
        (its own last child's for the last run and for a run of one child): ``f`` is
        nondecreasing in ``A``, and the runs' ``f(next first) - f(first)`` sum to at most 1, so
        they add at most ``tol * REP_SEG`` to the width.  Returns the representatives as nodes ``(n, m, E_H, P, Q)`` with ``P`` the
        lower side's mass and ``Q`` the upper's, to be expanded like any child."""
        runs = hull_segments(items, self.tol * settings.REP_SEG)
        reps = {}                                      # item index -> [P, Q]
        i = 0
        for j, run in enumerate(runs):
            D, U = _sums(run, 3)
            reps.setdefault(i, [arb(0), arb(0)])[0] += D
            i += len(run)
            # a run of one child (or the last run) is its own upper side: no step at all
            up_at = i - 1 if len(run) == 1 or j + 1 == len(runs) else i
            reps.setdefault(up_at, [arb(0), arb(0)])[1] += U
        self.rep_nodes += len(reps)
        return [(*items[i][:3], P, Q) for i, (P, Q) in sorted(reps.items(), reverse=True)]

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
            return padded_coeffs(poly, k + 1)
        ib = max(range(len(items)), key=lambda i: _mass(items[i][3:]))
        self.b, x = self.leaf_bin(coeffs(items[ib][2]), self.law(n_hi, m)[0].meanf)
        try:
            law_hi, _, P2hi, (_, _, ymax, _), f_hi = self.law(n_hi, m)
            law_lo, P2lo, _, (_, ymin, _, _), f_lo = self.law(n_lo, m)
            P3lo = self.laws[("p3", n_lo, m)][0]
            P3hi = self.laws[("p3", n_hi, m)][1]
            below = None
            if self.p3_below:
                # B_2, B_3 of n outputs between n_lo's and n_hi's pathwise, like p_2, p_3
                (b2lo, _, b3lo, _), _ = self.laws[("below", n_lo, m)]
                (_, b2hi, _, b3hi), _ = self.laws[("below", n_hi, m)]
                below = (b2lo, b2hi, b3lo, b3hi)
            boxes = self.box_set(P2lo, P2hi, P3lo, P3hi, below=below)
            for box in boxes:
                self.ensure_monotone(box, ymin, ymax)
            fail = f_hi + f_lo
            # each item's Newton roots start from the last item's (the roots move little
            # from one count to the next)
            for seg in self.hull_runs(items, coeffs, law_hi, boxes, ymin):
                # f(A) nondecreasing in A: a run's mass between D f(first) and U f(last) (D, U:
                # its lower and upper sides' masses)
                D, U = _sums(seg, 3)
                self.fail += _both(D, U) * fail
                if len(seg) == 1:
                    x = self.series_points(coeffs(seg[0][2]), boxes, ymin, ymax, law_hi.meanf,
                                           dn=(n_lo, m, law_lo, D), up=(n_hi, m, law_hi, U), x0=x)
                else:
                    x = self.series_points(coeffs(seg[0][2]), boxes, ymin, ymax, law_hi.meanf,
                                           dn=(n_lo, m, law_lo, D), up=None, x0=x)
                    x = self.series_points(coeffs(seg[-1][2]), boxes, ymin, ymax, law_hi.meanf,
                                           dn=None, up=(n_hi, m, law_hi, U), x0=x)
                self.hull_items += len(seg)
        finally:
            self.b = 0

    def hull_runs(self, items, coeffs, law, boxes, ymin):
        """The runs of :meth:`hull_group`'s ``items`` (:func:`hull_segments`, mass at most
        ``tol * HULL_SEG``), cut further where a float estimate of ``f`` says a run would leave
        more than ``tol * HULL_RUN_WIDTH`` open: ``f(A) ~ Q(z)`` at the root of the plain bound
        ``Up0`` of each child, moved by the series root's ratio to it at the heaviest child.
        Floats only choose the runs; every run is bounded as :meth:`hull_group` says.  Without
        float guesses (``GUESS_FLOATS`` off) there is no estimate: child by child."""
        runs = hull_segments(items, self.tol * settings.HULL_SEG)
        budget = self.tol * settings.HULL_RUN_WIDTH
        if not budget > 0 or all(len(r) == 1 for r in runs):
            return runs
        if not settings.GUESS_FLOATS:
            return [[it] for it in items]
        try:
            xs = []
            for _, _, poly, *_ in items:
                scr = self._screen(coeffs(poly))       # the plain bound's float image (leaf_bin's)
                # from the second item on, one Newton step from the last two roots' secant
                # (the roots move smoothly with the count; the estimate only chooses runs)
                fn = lambda y: plain_log(scr.logE, scr.lk, self.k, y)      # noqa: E731
                if len(xs) >= 2:
                    x0 = xs[-1] * xs[-1] / xs[-2]
                    x = log_newton(fn, scr.lthr, x0, iters=1)
                    if not abs(math.log(x / x0)) < 1e-2:
                        x = log_newton(fn, scr.lthr, x)      # a large step: to convergence
                else:
                    x = log_newton(fn, scr.lthr, xs[-1] if xs else law.meanf)
                xs.append(x)
            ib = max(range(len(items)), key=lambda i: _mass(items[i][3:]))
            g = FloatGuesses(Series(coeffs(items[ib][2]), self.kappa, self.k, boxes), law.meanf, self.thr, ymin)
            ratio = g.root_lo() / xs[ib]
            f = [0.5 * math.erfc((x * ratio - law.meanf) / (law.sdf * math.sqrt(2))) for x in xs]
        except (ValueError, OverflowError, ZeroDivisionError):
            return [[it] for it in items]
        if not all(map(math.isfinite, f)):
            return [[it] for it in items]
        out, i = [], 0
        for run in runs:
            cur, mass = [], 0.0
            for it in run:
                p = _mass(it[3:])
                if cur and (mass + p) * abs(f[i] - f0) > budget:
                    out.append(cur)
                    cur, mass = [], 0.0
                if not cur:
                    f0 = f[i]
                cur.append(it)
                mass += p
                i += 1
            out.append(cur)
        return out

    def _alpha_p2(self, P2hi) -> float:
        """``alpha P2hi`` (float, upper end): ``x = y + alpha p_2 <= y + alpha P2hi``."""
        return float_hi(self.alpha * P2hi) if not self.alpha.is_zero() else 0.0

    def _screen(self, E):
        """Float screens of the arb checks in :meth:`decide` and :meth:`side_bounds`
        (:class:`PlainScreen`); off with ``GUESS_FLOATS``."""
        if not settings.GUESS_FLOATS:
            return NO_SCREEN
        if self._lkappa is None:
            self._lkappa = float(self.kappa.log().mid())
            self._lthr = float(self.thr.log().mid())
        return PlainScreen(log_coeffs(E), self._lkappa, self.k, self._lthr)

    def _lo_screen(self, scr, P2lo, P2hi):
        """The float screen of the Bonferroni ``Lo`` checks (:class:`LoScreen`) beside ``scr``
        (the same heavy polynomial); off with ``GUESS_FLOATS`` or ``LO_SCREEN``."""
        if not (settings.GUESS_FLOATS and settings.LO_SCREEN) or scr is NO_SCREEN:
            return NO_SCREEN
        return LoScreen(scr.logE, scr.lk, self.k, scr.lthr, P2lo=P2lo, P2hi=P2hi,
                         alpha=float(self.alpha))

    def side_bounds(self, l, n, m, poly, *, lower: bool):
        """One side of :meth:`decide` at fewer deviations (``PARTIAL_Z``, the first that
        decides): ``lower``: ``(B, fail)`` with ``P[R > thr] >= 1 - B`` up to the light law's
        failure mass ``fail`` (``Lo`` of the light sum above the threshold at ``mean - z sd``,
        ``B`` the Chernoff bound below it); else ``B`` with ``P[R > thr] <= B`` (``Up0`` of the
        rest's sum below the threshold at ``mean + z sd``); ``None`` when no ``z`` decides."""
        res = self._side_bounds(l, n, m, poly, lower=lower)
        if not lower or (res is not None and float_hi(res[0]) <= settings.FLOOR_BETA):
            return res
        fl = self.floored(l, n, m, poly, settings.FLOOR_BETA)
        if fl is None:
            return res
        n2, m2, poly2, beta, _ = fl
        res2 = self._side_bounds(l, n2, m2, poly2, lower=True)
        if res2 is None:
            return res
        B2 = res2[0] + beta
        if res is None or float_hi(B2 + res2[1]) < float_hi(res[0] + res[1]):
            self.floor_used += 1
            return B2, res2[1]
        return res

    def _side_bounds(self, l, n, m, poly, *, lower: bool):
        """:meth:`side_bounds` without the floor counts."""
        k, thr = self.k, self.thr
        if self.alpha.is_zero() and settings.NODE_POLY:
            return self._side_bounds_poly(l, n, m, NodePoly(poly.coeffs(), self.kappa, k), lower)
        E = padded_coeffs(poly, k + 1)
        scr = self._screen(E)
        if lower:
            law, P2lo, P2hi, xstar, fail = self.law(n, m)
            th = None
            lscr = self._lo_screen(scr, P2lo, P2hi)
            for z in settings.PARTIAL_Z:
                xz = law.meanf - z * law.sdf
                if xz > 0 and not scr.below(xz + self._alpha_p2(P2hi)) and not lscr.below(xz):
                    if th is None:
                        th = Threshold(E, self.kappa, k, P2lo, P2hi, self.wmax, alpha=self.alpha)
                    if not th.lo(arb(xz)) > thr:
                        continue
                    return self._partial_lo(law, n, m, z, xz, fail)
            return None
        rl = self.rest_law(l, n, m)
        th0 = Threshold(E, self.kappa, k, arb(0), arb(0), arb(0))
        for z in settings.PARTIAL_Z:
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
        """:meth:`side_bounds` with the checks of :class:`NodePoly` (``alpha = 0``): every
        ``z`` at once (the weights' columns built once per light law)."""
        thr = self.thr
        if lower:
            law, P2lo, P2hi, xstar, fail = self.law(n, m)
            pts = [(z, law.meanf - z * law.sdf) for z in settings.PARTIAL_Z]
            pts = [(z, xz) for z, xz in pts if xz > 0]
            if not pts:
                return None
            cols = self._node_cols(("nsl", n, m), [(xz, P2hi) for _, xz in pts], npoly.n)
            for (z, xz), v in zip(pts, npoly.values(cols)):
                if v > thr:
                    return self._partial_lo(law, n, m, z, xz, fail)
            return None
        rl = self.rest_law(l, n, m)
        pts = [(z, rl.meanf + z * rl.sdf) for z in settings.PARTIAL_Z]
        cols = self._node_cols(("nsu", l, n, m), [(xz, None) for _, xz in pts], npoly.n)
        for (z, xz), v in zip(pts, npoly.values(cols)):
            if v < thr:
                return self._partial_up(rl, l, n, m, z, xz)
        return None

    def _node_cols(self, key, pts, n):
        """:func:`~exactdp.reductions.kfourier.bracket.node_column` at the points ``pts``
        (``(y, P2hi or None)``), its first ``n`` rows (:class:`NodePoly`'s length), cached under
        ``key`` (the points are the light law's) and ``n``."""
        cols = self.laws.get((key, n))
        if cols is None:
            full = self.laws.get(key)
            if full is None:
                (y, p2), *more = pts
                full = self.laws[key] = node_column(self.k, y, p2, more=more)
            cols = self.laws[(key, n)] = prefix_rows(full, n)
        return cols

    def floored(self, l, n, m, poly, beta_max):
        """``(n', m', E', beta, kept)``: :meth:`floor_count`'s guaranteed counts of the node's ``n``
        unplaced null and ``m`` unplaced changed-user outputs at every unplaced heavy level or
        above, taken top down, each at its level's weight in ``E'``; the rest (``n' <= n - a``
        null, ``m' = m - b``) left to the light law; ``beta`` the counts' failure bounds summed
        (at most ``beta_max``), ``kept`` the ``(level, count)`` pairs; ``None`` without a floor
        (module doc, "Floor counts")."""
        if not settings.FLOOR_COUNTS or l not in self.heavy_set:
            return None
        levels = [h for h in self.heavy if h <= l]
        share = beta_max / (2 * len(levels))
        beta, taken, kept = arb(0), [0, 0], []
        for lv in levels:
            for side, cnt in ((0, n), (1, m)):
                fc = self.floor_count(l, lv, cnt, share, changed=bool(side))
                if fc is None or fc[0] <= taken[side]:
                    continue
                a, b = fc
                c = a - taken[side]
                taken[side] = a
                kept.append((lv, c))
                beta += b
        if not kept:
            return None
        kept = tuple(kept)
        fp = self.laws.get(("fpoly", kept))
        if fp is None:
            fp = arb_poly([1])
            for lv, c in kept:
                fp = (fp * _binom_poly(self.w[lv], c, self.k)).truncate(self.k + 1)
            self.laws[("fpoly", kept)] = fp
        poly2 = (poly * fp).truncate(self.k + 1)
        g = self.n_grid
        return (n - taken[0]) // g * g, m - taken[1], poly2, beta, kept

    def floor_count(self, l, lv, n, beta_max: float, *, changed: bool):
        """A guaranteed count of the unplaced outputs at level ``lv`` or above (levels ``> l``
        placed) for the decisions above (module doc, "Floor counts"): ``(a, beta)`` with
        ``P[fewer than a of the n unplaced null (changed-user: ``changed``) outputs at levels >=
        lv] <= beta`` (an arb upper bound, at most ``beta_max``), or ``None`` (``a = 0``)."""
        if n <= 0 or not beta_max > 0:
            return None
        sh = max(0, n.bit_length() - 14)
        n = n >> sh << sh               # P[Bin(n, theta) < a] decreases in n: valid for every larger n
        dec = _decade(min(beta_max, 0.1))
        key = ("floor", changed, l, lv, n, dec)
        if key in self.laws:
            return self.laws[key]
        cum = self.cum1 if changed else self.cum0
        theta = (cum[l] - cum[lv - 1]) / cum[l]
        bmax = 10.0 ** dec
        # the largest a with P[Bin(n, theta) < a] <= bmax: scipy's quantile guesses, arb decides
        a = int(binom_dist.ppf(bmax, n, float(theta.mid()))) + 1
        res = None
        while a > 0:
            beta = _binom_lower_tail(n, theta, a)
            if float_hi(beta) <= bmax:
                res = (a, arb(float_hi(beta)))
                break
            a -= 1 if a < 8 else max(1, a // 16)
        self.laws[key] = res
        return res

    def decision(self, l, n, m, poly, pm, *, above: bool):
        """The decision of a partial node (levels ``> l`` placed, mass at most ``pm``) on one
        side, when the rest cannot move ``R`` across the threshold except with mass below
        ``tol * 1e-2``: ``("above", B, fail)`` or ``("below", B)`` (:meth:`settle`), else ``None``.

        * ``above``, surely ``Lo > thr``: every unplaced output lowered to the light law
          (stochastically smaller; ``e_k`` is nondecreasing in every weight) and ``Lo`` of the
          light sum at ``mean - 8 sd`` above the threshold: ``P[R <= thr] <= B + fail``;
        * below, surely ``Up0 < thr``: ``e_k <= sum_i e_i(H) p_1^(k-i) / (k-i)!`` with ``p_1``
          the unplaced outputs' sum, at ``mean + 8 sd`` of its law: ``P[R > thr] <= B``."""
        cert = self._decision(l, n, m, poly, pm, above=above)
        if cert is not None or not above:
            return cert
        fl = self.floored(l, n, m, poly, self.tol * settings.FLOOR_SHARE / max(pm, 1e-300))
        if fl is None:
            return None
        n2, m2, poly2, beta, _ = fl
        cert = self._decision(l, n2, m2, poly2, pm, above=True, beta=beta)
        if cert is not None:
            self.floor_used += 1
        return cert

    def _decision(self, l, n, m, poly, pm, *, above: bool, beta=None):
        """:meth:`decision` at the given counts, ``beta`` (a floor count's failure) added to ``B``.
        The check is asked at ``DECIDE_Z[0]`` deviations, then further out while its Chernoff
        bound is too weak for the node's mass (module doc, "Far decisions"): the check's outcome
        is monotone in ``z`` (``Up0`` rises with the point, ``Lo`` falls), so the first failure ends."""
        k, thr = self.k, self.thr
        cf = poly.coeffs()
        if above:
            law, P2lo, P2hi, xstar, fail = self.law(n, m)
        else:
            rl = self.rest_law(l, n, m)
        npoly = E = None
        for z in settings.DECIDE_Z:
            if above:
                xz = law.meanf - z * law.sdf
                if not xz > 0:
                    return None
            else:
                xz = rl.meanf + z * rl.sdf
            if self.alpha.is_zero() and settings.NODE_POLY:
                # the series walk: the check as a polynomial (NodePoly), no screens (the weights
                # at each light law's point built once)
                if npoly is None:
                    npoly = NodePoly(cf, self.kappa, k)
                if above:
                    ok = npoly.values(self._node_cols(("ndl", n, m, z), [(xz, P2hi)], npoly.n))[0] > thr
                else:
                    ok = npoly.values(self._node_cols(("ndu", l, n, m, z), [(xz, None)], npoly.n))[0] < thr
            else:
                if E is None:
                    E = padded_coeffs(poly, k + 1)
                    scr = self._screen(E)
                if above:
                    lscr = self._lo_screen(scr, P2lo, P2hi)
                    ok = not (scr.below(xz + self._alpha_p2(P2hi)) or lscr.below(xz)) and \
                        Threshold(E, self.kappa, k, P2lo, P2hi, self.wmax, alpha=self.alpha).lo(arb(xz)) > thr
                else:
                    ok = not scr.above(xz) and \
                        Threshold(E, self.kappa, k, arb(0), arb(0), arb(0)).up(arb(xz)) < thr
            if not ok:
                return None
            key = ("dlo", n, m, z) if above else ("dup", l, n, m, z)
            if key not in self.laws:
                self.laws[key] = (law.chernoff(xz, False) if above else rl.chernoff(xz, True))[0]
            B = self.laws[key]
            if beta is not None:
                B = B + beta
            if pm * float_hi(B) < self.tol * 1e-2:
                return ("above", arb(float_hi(B)), fail) if above else ("below", arb(float_hi(B)))
        return None

    def settle(self, cert, P, Q):
        """Add a :meth:`decision` for a row's end (:meth:`split_row`) of masses ``P`` (lower
        side) and ``Q`` (upper)."""
        if cert[0] == "above":
            _, Bu, fail = cert
            self.fail += P * fail
            self.add_dn_exact(P, 1 - Bu)
            self.add_up_exact(Q, arb(1))
        else:
            self.add_up_exact(Q, cert[1])
            self.add_dn_exact(P, arb(0))

    def expired(self) -> bool:
        """True (and ``stopped`` set) once the time budget's ``deadline`` has passed."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = True
        return self.stopped

    def drop(self, P, Q, x):
        """Mass ``x`` of a node of masses ``P``, ``Q`` (``None``: ``P``) left undecided: it
        enters the side that bounds ``eta`` from above whole (``dropped``)."""
        self.dropped += (P if Q is None or not self.upper else Q) * x

    def leaf(self, n, m, poly, P, Q=None):
        """A node with every heavy level placed: its two sides' threshold points (series or
        bracket) to the integrals, ``P`` the lower side's mass, ``Q`` the upper's (``None``: ``P``)."""
        Q = P if Q is None else Q
        k = self.k
        E = padded_coeffs(poly, k + 1)
        law, P2lo, P2hi, xstar, fail = self.law(n, m)
        if self.series:
            return self.series_leaf(n, m, E, P, Q)
        th = Threshold(E, self.kappa, k, P2lo, P2hi, self.wmax, alpha=self.alpha)
        thr = self.thr
        self.fail += _both(P, Q) * fail
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
            self.add_up_exact(Q, arb(1))
        else:
            self.tail(n, m, law, s_up, Q, "up")

    def series_leaf(self, n, m, E, P, Q):
        """A leaf under the series enclosure (module doc): ``F(Y) = R`` increasing in ``Y`` on
        ``[Ymin, Ymax]`` for every ``p`` in the box; points ``s_dn``, ``s_up`` certified in arb."""
        # the plain root's Newton from the last leaf's root relative to its light mean (the
        # leaves come in siblings, their roots close; a float start only)
        mf = self.law(n, m)[0].meanf
        self.b, x = self.leaf_bin(E, mf * self.root_ratio)
        if x is not None and math.isfinite(x) and x > 0 and mf > 0:
            self.root_ratio = x / mf
        try:
            if self.tau_refine:
                self.b, x = self.refine_bin(n, m, E, x)
            self.series_bin_leaf(n, m, E, (P, Q), x0=x)
        finally:
            self.b = 0

    def refine_bin(self, n, m, E, x0=None) -> tuple:
        """The bin nearest the leaf's first-order cancelling ``tau`` from the series itself
        (module doc, "The choice of tau"): ``tau* = [t^(k-2)] / [t^(k-1)]`` of
        ``E_H(t) e^(tY) G0(t)`` (the middle box's ``G0``) at the float root of the current bin's
        lower end.  ``e^(tY) G(t) = prod (1 + t w_j)`` whatever ``tau``, so ``tau*`` is the zero of
        ``dF/dp_2 = kappa [t^k] E_H e^(tY) G d_2``, ``d_2 = -(t^2 - tau t) / 2``, at that point.
        A float choice only (any ``tau`` gives a valid enclosure); the current bin where it
        fails.  ``(b, y)``: ``y`` the root (else ``x0``, the Newton's start when given)."""
        b0 = self.b
        if self.tau0 <= 0 or self.tau_bin <= 0 or self.k < 3:
            return b0, x0
        try:
            law, _, _, (boxes, ymin, _, _), _ = self.law(n, m)
            th = Series(E, self.kappa, self.k, boxes())
            y0 = x0 if x0 is not None and math.isfinite(x0) and x0 > 0 else law.meanf
            y = SeriesFloat(th, law.meanf).root(0, float(self.thr.log().mid()), y0)
            if not (math.isfinite(y) and y > 0):
                return b0, x0
            ya = arb(y)
            c1 = (th.main_row * th._u(ya, 1))[0, 0]
            c2 = (th.main_row * th._u(ya, 2))[0, 0]
            c3 = (th.main_row * th._u(ya, 3))[0, 0]
            if not (c1 > 0 and c2 > 0):
                return b0, y
            tau = min(float((c2 / c1).mid()), self.tau_max)
            r3 = float((c3 / c1).mid())
        except (ValueError, OverflowError, ZeroDivisionError):
            return b0, x0
        b = round(math.log(tau / self.tau0) / math.log(1 + self.tau_bin))
        b = max(-200, min(b, 200))
        while self.tau0 * (1 + self.tau_bin) ** b > self.tau_max:
            b -= 1
        if settings.BETA_STEP > 0 and math.isfinite(r3):
            # d_3 = t^3 / 3 - (tau^2 / 3 + beta) t cancels at beta = (c_3 / c_1 - tau_b^2) / 3
            tb = self.tau0 * (1 + self.tau_bin) ** b
            g = round((r3 / (tb * tb) - 1) / settings.BETA_STEP)
            g = max(-settings.BETA_MAX, min(g, settings.BETA_MAX))
            if g:
                b = (b, g)
        self.add_bin(b)
        return b, y

    def series_bin_leaf(self, n, m, E, PQ, *, x0=None):
        law, _, _, (boxes, ymin, ymax, _), fail = self.law(n, m)
        boxes = boxes()
        for box in boxes:
            self.ensure_monotone(box, ymin, ymax)
        P, Q = PQ
        self.fail += _both(P, Q) * fail
        self.series_points(E, boxes, ymin, ymax, law.meanf,
                           dn=(n, m, law, P), up=(n, m, law, Q), x0=x0)

    def series_points(self, E, boxes, ymin, ymax, y0, *, dn, up, x0=None):
        """The two sides of a series leaf (module doc) with heavy polynomial ``E`` over the
        power-sum ``boxes`` (certified monotone on ``[ymin, ymax]``; the caller adds the failure
        mass): ``dn = (n, m, law, P)`` takes ``P[R > thr] >= P[Y > s_dn]`` with ``Y`` of that
        law, ``up`` ``P[R > thr] <= P[Y >= s_up]``; ``None`` skips a side.  The float Newton
        roots start from ``x0`` (a nearby root; floats only) when given, else ``y0``; returns
        the last float root (``None`` without one) for the next leaf's start."""
        # a side of mass zero (a representative's other side: rep_group) is skipped
        dn = None if dn is None or dn[3].is_zero() else dn
        up = None if up is None or up[3].is_zero() else up
        th = Series(E, self.kappa, self.k, boxes)
        thr = self.thr
        a0, a1 = arb(ymin), arb(ymax)
        g = (FloatGuesses(th, y0, thr, ymin, x0=x0) if settings.GUESS_FLOATS
             else ArbGuesses(th, y0, thr))
        if dn is None:
            pass
        elif g.may_pass_lo(ymin) and th.lo(a0) > thr:
            self.add_dn_exact(dn[3], arb(1))      # Y <= Ymin lies in the failure event
        else:
            x = g.root_lo()
            s_dn = None
            for dlt in settings.STEPS:
                c = arb(x * (1 + dlt))
                if not c < a1:
                    break
                # a step the float image does not clear by GUESS_CUSHION is not checked in arb
                # (it would likely fail; skipping it costs a step of width), up to STEP_ALWAYS
                if dlt < settings.STEP_ALWAYS and not g.clears_lo(float(c)):
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
        elif (x := g.root_up()) >= ymax and th.up(a1) < thr:
            # (the float root at or beyond Ymax: the check at Ymax may pass; below it the
            # float end at Ymax is above the threshold and the check is not run)
            self.add_up_exact(up[3], arb(0))      # R > thr only on the failure event
        else:
            s_up = None
            for dlt in settings.STEPS:
                c = arb(x * (1 - dlt))
                if not c > a0:
                    break
                if dlt < settings.STEP_ALWAYS and not g.clears_up(float(c)):
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
        return getattr(g, "x_last", None)

    def pilot_leaf(self, th, law, P):
        """Pilot run: the leaf's ``alpha = -(dR/dp_2) / (dR/dx)`` at its threshold point,
        weighted by its mass near the point (floats; it only chooses ``alpha``)."""
        try:
            x0 = law.meanf
            if settings.GUESS_FLOATS:
                # Newton from the float root of Up0 (near Up's): fewer arb steps, the same root
                scr = self._screen(th.E)
                x0 = log_newton(lambda y: plain_log(scr.logE, scr.lk, self.k, y), scr.lthr, x0)
            x = th.root(th.up, self.thr, x0)
        except (ValueError, OverflowError, ZeroDivisionError):
            return
        z = (x - law.meanf) / law.sdf
        if not math.isfinite(z) or abs(z) > 8:
            return
        a = alpha_at(th, self.k, x)
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
        if P.is_zero():
            return
        z = (float(s) - law.meanf) / law.sdf
        pm = float_hi(P)
        # a Chernoff bound ~ e^(-z^2/2) can decide only beyond this many deviations
        z_need = math.sqrt(2 * max(math.log(pm / (self.tol * settings.TAIL_DECIDE)), 0.0)) - 1.0
        if abs(z) > max(3.0, z_need) and pm > 0:
            above = z > 3
            sf = float(s)
            sf = sf * (1 - 1e-15) if above else sf * (1 + 1e-15)
            # the saddle point from this law's last one on this side (a hull group's items share
            # their laws and lie close), else the normal law's z / sd; the arb bound only where
            # the float one may decide (LightLaw.screened_bound)
            key = (id(law), above)
            B, t = law.screened_bound(sf, above, self.tol * settings.TAIL_DECIDE / pm,
                                      t0=self.saddles.get(key, abs(z) / law.sdf))
            if t is not None:
                self.saddles[key] = t
            if pm * float_hi(B) < self.tol * settings.TAIL_DECIDE:
                Bu = arb(float_hi(B))
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
            while g > 1 and pm * g > settings.N_GRID_ITEM * self.tol:
                g //= 2
            if side == "up":
                n = -(-n // g) * g
            elif n >= n_min:
                n = max(n // g * g, n_min)
        self.pend.setdefault(self.b, ([], []))[0 if side == "up" else 1].append((n, m, s, P))
        self.fourier += 1

    # ----------------------------------------------------------------- Fourier
    def flush(self):
        """One Gil-Pelaez integral per bin of the light statistic."""
        # the smoothing and the decay bands' accuracy relative to the items' total mass (module
        # doc, "Far decisions"): their errors enter the width times the items' mass
        W = max(sum(max(sum(float_hi(P) for *_, P in its) for its in sides) for sides in self.pend.values()),
                1e-300)
        # and so is each integral's own error (eps_int W per bin of mass W): where every item is
        # tiny (tiny eta) eps_int alone asked each integral for ~tol relative, i.e. arb's 2^-60
        # (k = 16, q = 0.41, tol 1e-90: 73.3 -> 66.3 s, the same enclosure)
        self.smooth_scale = max(1.0, settings.SMOOTH_MASS / W)
        for b in sorted(self.pend, key=lambda b: b if isinstance(b, tuple) else (b, 0)):
            self.b = b
            self.pend_up, self.pend_dn = self.pend[b]
            self.flush_bin()
        self.b = 0

    def flush_bin(self):
        items = self.pend_up + self.pend_dn
        if not items:
            return
        if self.expired():
            # past the time budget: each item's P[Y > s] is only known to lie in [0, 1], so the
            # side bounding eta from above takes the items' mass whole and the other nothing
            side = self.pend_up if self.upper else self.pend_dn
            self.hi += sum((P for *_, P in side), arb(0))
            return
        n0 = min(n for n, _, _, _ in items)
        # the smoothing for the light laws with at least n0 null outputs (module doc of integral)
        a, sg, U1, T1, T2 = integral.smoothing(self.law(n0, 0)[0], n_min=max(2, self.n_users - self.n_slack),
                                               sg_base=self.sg_base, tol=self.tol * self.smooth_scale,
                                               eps_int=self.eps_int * self.smooth_scale,
                                               decay=self.decay, key=self.b)
        aa = arb(a)
        sides = []
        if self.pend_up:
            W = sum((P for *_, P in self.pend_up), arb(0))
            sides.append(("up", [(n, m, s - aa, P) for n, m, s, P in self.pend_up], W))
        if self.pend_dn:
            W = sum((P for *_, P in self.pend_dn), arb(0))
            sides.append(("dn", [(n, m, s + aa, P) for n, m, s, P in self.pend_dn], W))
        # both sides in one integral (the light laws' characteristic functions shared)
        Ss = self.mix([(its, W) for _, its, W in sides], sg, U1, T1)
        for (name, _, W), S in zip(sides, Ss):
            if name == "up":
                # sum P P[x >= s] <= S + W Q
                if self.upper:
                    self.hi += S + W * self.gtail
                else:
                    self.lo += W - S - W * self.gtail
            else:
                # sum P P[x > s] >= S - W Q
                if self.upper:
                    self.lo += S - W * self.gtail
                else:
                    self.hi += W - S + W * self.gtail

    def mix(self, sides, sg, U1, T1):
        """Certified ``sum P P[V > x]`` over ``(n, m, x, P)`` of the current bin, for each side
        ``(items, W)`` (:func:`~exactdp.reductions.kfourier.integral.mixture_tails` with this
        walk's laws: one integral for both sides)."""
        return integral.mixture_tails(sides, laws=lambda n, m: self.law(n, m)[0], wy=self.wy, pl0=self.pl0,
                                      pl1=self.pl1, sg=sg, U1=U1, T1=T1,
                                      eps_int=self.eps_int * self.smooth_scale, tol=self.tol, prec=self.prec,
                                      complement=not self.upper)


def _mass(PQ) -> float:
    """The larger side's mass (float, upper end) of ``(P, Q)`` (``Q`` missing or ``None``: ``P``)."""
    P = float_hi(PQ[0])
    return P if len(PQ) < 2 or PQ[1] is None else max(P, float_hi(PQ[1]))


def _sums(items, i):
    """``(sum P, sum Q)`` of ``items`` whose masses ``P``, ``Q`` are at positions ``i``, ``i + 1``
    (``Q`` ``None``: ``P``)."""
    D = sum((it[i] for it in items), arb(0))
    if all(it[i + 1] is None for it in items):
        return D, D
    return D, sum((it[i] if it[i + 1] is None else it[i + 1] for it in items), arb(0))


def _both(P, Q):
    """A mass at least each side's (``P`` when the sides share it)."""
    return P if Q is None or Q is P else P + Q


def hull_segments(items, cap: float):
    """Consecutive runs of a hull group's ``items`` (ascending count at the split level) whose
    masses sum to at most ``cap`` (an item heavier than ``cap`` alone): :meth:`Walk.hull_group`
    bounds a run by its first item's lower side and its last item's upper side, with the run's
    mass.  Within a group the runs' ``f(last) - f(first)`` sum to at most 1, so the width they add
    is at most ``cap``.

    >>> items = [(0, 0, None, arb(p)) for p in (0.5, 0.3, 2.0, 0.1, 0.1)]
    >>> [len(r) for r in hull_segments(items, 1.0)]
    [2, 1, 2]
    """
    runs, cur, mass = [], [], 0.0
    for it in items:
        p = _mass(it[3:])
        if cur and mass + p > cap:
            runs.append(cur)
            cur, mass = [], 0.0
        cur.append(it)
        mass += p
    if cur:
        runs.append(cur)
    return runs


def _decade(x: float) -> int:
    return math.floor(math.log10(x))


def _binom_lower_tail(n: int, theta: arb, a: int) -> arb:
    """``P[Bin(n, theta) < a]`` enclosed in arb (``a`` terms)."""
    q1 = 1 - theta
    term = (q1.log() * n).exp()
    tot = arb(0)
    r = theta / q1
    for j in range(a):
        tot += term
        term = term * (n - j) / (j + 1) * r
    return tot


def _binom_poly(w: arb, c: int, k: int) -> arb_poly:
    """``(1 + w t)^c`` truncated at degree ``k``."""
    cf = [arb(1)]
    b = 1
    for j in range(1, min(c, k) + 1):
        b = b * (c - j + 1) // j
        cf.append(arb(b) * w ** j)
    return arb_poly(cf)
