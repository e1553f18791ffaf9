r"""The public entry points of the large-N k-copies strategy (:mod:`exactdp.reductions.kfourier`):
certified eta (:func:`kfourier_eta`, :func:`kfourier_details`) from one
:class:`~exactdp.reductions.kfourier.walk.Walk` after a pilot walk that picks the light statistic's
shift, and certified delta (:func:`kfourier_delta`, :func:`kfourier_delta_details`) as the
difference of two etas.

**delta.**  The walk takes the law (null, or with the changed user) and the side (``R > lam``
or ``R < 1/lam``) separately (:class:`walk.Walk`), so ``delta = P_1[E] - lam P_2[E]`` is the
difference of two certified etas (:func:`kfourier_delta`): at ``L = 40``, ``N = 10^7``,
``k = 2``, ``q = 0.351``, ``eps = 2`` relative width ~1e-4 in ~12 s, where the monotone grid of
16 etas gave 8e-2 in 40 s (``benchmarks/RESULTS.md``, kdelta).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from ...core.errors import CapacityError, ParameterError, PrecisionError
from ...core.interval import Interval, arb_to_interval
from ...core.lam import lam_interval, parse_lam_eps
from ...model.mechanism import Mechanism
from ...model.pair import Pair
from ..kcopies import delta_of_two_masses, parse_query
from . import settings
from .arbs import exact_arb, float_hi
from .lowertail import lower_tail
from .series import NotMonotone
from .walk import Walk


@dataclass(frozen=True)
class KFourier:
    """A certified eta with the run's bookkeeping: ``heavy`` levels enumerated,
    ``nodes`` visited, ``fourier`` leaves left to the integrals, ``dropped`` mass;
    ``alpha`` (the light statistic's shift, from the pilot walk), ``extra_light`` (the
    heavy levels returned to the light law) and ``fine`` (the fine series settings) the walk
    used: a later pass at another ``tol`` may take them as they are (:func:`kfourier_details`).
    ``method``: ``"walk"``, or ``"lower tail"`` where the product bound of
    :mod:`~exactdp.reductions.kfourier.lowertail` alone gave ``eta >= 1 - B`` (no walk ran).
    ``stopped``: the time budget (``deadline``) ran out, the enclosure is wider than ``tol`` asked
    (walk module doc, "The time budget")."""

    eta: Interval
    heavy: tuple
    nodes: int
    fourier: int
    dropped: float
    seconds: float
    alpha: float = 0.0
    extra_light: int = 0
    fine: bool = False
    method: str = "walk"
    stopped: bool = False


def _pilot_alpha(red, q, lam, eps, tol, prec, *, max_nodes, changed=None, upper=None,
                 deadline=None) -> float:
    """``alpha`` of ``y = p_1 - alpha p_2`` from a coarse pilot walk (no integrals): the
    mass-weighted mean of every leaf's first-order cancelling ``alpha`` (module doc).
    A float, used exactly; any ``alpha`` in ``[0, 1 / w_max)`` gives a valid enclosure.

    The pilot runs at ``max(100 tol, settings.PILOT_TOL)``, at most at ``settings.PILOT_MAX``
    (or ``tol``, if coarser); where it weighs no leaf (eta far below that tol: every node
    decided or dropped) it runs again at ``settings.PILOT_BELOW``
    times the scale of its own ends (:func:`tiny_scale`; at least ``100 tol``), at most
    ``settings.PILOT_TRIES`` walks in all, the last at ``100 tol``; with a ``deadline``, within
    ``settings.PILOT_SHARE`` of the time left (a pilot cut short gives the ``alpha`` of the
    leaves it weighed); where no walk weighs a leaf, the first-order shift at the Maclaurin
    threshold point (eta near 1: every node of a coarse pilot decided).  (With the first pilot
    only, every walk at eta below ~1e-7 ran with ``alpha = 0``: ``p_2`` uncancelled, the relative
    width stuck at 2.5e-2 at ``k = 16``, ``q = 0.39``; ``benchmarks/RESULTS.md``, session 18.)"""
    if deadline is not None:
        # a share of the time left: the walk after it needs the rest (k = 64, q = 0.40: a pilot
        # at 100 tol = 2e-25 took the whole 600 s)
        now = time.monotonic()
        deadline = now + settings.PILOT_SHARE * max(deadline - now, 0.0)
    t = min(max(tol * 100, settings.PILOT_TOL), max(settings.PILOT_MAX, tol))
    for i in range(settings.PILOT_TRIES):
        try:
            run = Walk(red, q, lam, eps, t, prec, max_nodes=max_nodes, pilot=True,
                       changed=changed, upper=upper, deadline=deadline)
            run.run()
        except (CapacityError, PrecisionError):
            return 0.0
        if run.pilot_den > 0 or run.expired() or t <= tol * 100:
            break
        # no leaf weighed: eta lies below this tol, within the pilot's decided ends (its leaves'
        # mass, none here, is all it leaves out)
        t = max(tol * 100, settings.PILOT_BELOW * tiny_scale(max(float(run.lo.lower()), 0.0),
                                                            float_hi(run.hi + run.dropped)))
        if i == settings.PILOT_TRIES - 2:
            t = tol * 100
    wmax = float(run.wmax)
    if not run.pilot_den > 0:
        # no leaf weighed (eta near 1 at a coarse pilot: every node decided): the first-order
        # shift at the Maclaurin threshold point x = (thr k! / kappa)^(1/k), alpha = (k - 1) / (2 x)
        # (bracket module doc; forward, L = 40, N = 10^7, lam = e^2, k = 64, q = 0.32, tol 3e-4:
        # relative width 9.7e-3 with alpha = 0, 3.6e-3 with this 30.5 or the pilot's 33.2 at 3e-6)
        x = float(((run.thr * arb.fac_ui(run.k) / run.kappa).log() / run.k).exp())
        a = (run.k - 1) / (2 * x) if x > 0 and math.isfinite(x) else 0.0
        return float(min(max(a, 0.0), 0.5 / wmax)) if wmax > 0 else 0.0
    a = run.pilot_num / run.pilot_den
    return float(min(max(a, 0.0), 0.5 / wmax)) if wmax > 0 else 0.0


def kfourier_details(P: Pair, q, lam=None, *, eps=None, tol: float = 1e-9, prec: int = 160,
                     max_nodes: int = 300_000, alpha: float | None = None,
                     extra_light: int | None = None, fine: bool | None = None, progress=None,
                     deadline: float | None = None) -> KFourier:
    """:func:`kfourier_eta` with the run's bookkeeping (:class:`KFourier`).

    ``alpha`` and ``extra_light`` (both or neither; e.g. an earlier pass's
    :attr:`KFourier.alpha` and :attr:`KFourier.extra_light`) skip the pilot walk and the
    retry with the extra light level heavy.  Any ``alpha`` in ``[0, 1 / (2 w_max)]`` and any
    ``extra_light`` give a valid enclosure (module doc); they only move its width and cost.
    ``fine``: the fine series settings (``True``; series module doc), none (``False``) or as
    ``settings`` say (``None``); valid either way, a narrower enclosure at a higher cost.
    ``progress(nodes)``: called about every ``settings.PROGRESS_SECONDS`` by the walk (nodes
    visited so far; a new walk starts again).
    ``deadline``: a ``time.monotonic()`` instant after which the walk stops and returns the
    enclosure reached, still certified (:attr:`KFourier.stopped`; walk module doc).  ``prec``: the
    walk's working precision in bits; a walk of ``P[R < thr]`` (003's reverse) takes at least
    ``log2(1 / tol) + settings.COMPLEMENT_BITS`` (its bounds enter as ``1 - B``).

    >>> import time
    >>> from exactdp.reductions.pairs import canonical_pair
    >>> r = kfourier_details(canonical_pair(10**7, 40, 16), "0.36", eps=2, tol=1e-4,
    ...                      deadline=time.monotonic())
    >>> r.stopped, float(r.eta.lower), float(r.eta.upper)
    (True, 0.0, 1.0)
    """
    red, q, lam, eps = _checked(P, q, lam, eps, tol)
    if deadline is not None and not (isinstance(deadline, (int, float)) and not isinstance(deadline, bool)
                                     and math.isfinite(deadline)):
        raise ParameterError(f"kfourier: deadline must be a finite time.monotonic() value, got {deadline!r}")
    if fine is not None and not isinstance(fine, bool):
        raise ParameterError(f"kfourier: fine must be True, False or None, got {fine!r}")
    if (alpha is None) != (extra_light is None):
        raise ParameterError("kfourier: give alpha and extra_light together (an earlier pass's), "
                             "or neither")
    if alpha is not None:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) \
                or not math.isfinite(alpha) or alpha < 0:
            raise ParameterError(f"kfourier: alpha must be a finite float >= 0, got {alpha!r}")
        if isinstance(extra_light, bool) or not isinstance(extra_light, int) \
                or not -settings.EXTRA_HEAVY <= extra_light <= settings.EXTRA_LIGHT:
            raise ParameterError(f"kfourier: extra_light must be an int in [{-settings.EXTRA_HEAVY}, "
                                 f"{settings.EXTRA_LIGHT}], "
                                 f"got {extra_light!r}")
    return _details(red, q, lam, eps, tol, prec=prec, max_nodes=max_nodes, alpha=alpha,
                    extra_light=extra_light, fine=fine, progress=progress, deadline=deadline)


def _checked(P, q, lam, eps, tol):
    red, q, lam, eps = parse_query(P, q, lam, eps, tol, "kfourier_eta")
    if red.k * red.N < settings.MIN_OUTPUTS:
        raise CapacityError(f"kfourier: k N = {red.k * red.N} < {settings.MIN_OUTPUTS} outputs; "
                            "use the k-copies tree")
    return red, q, lam, eps


def _details(red, q, lam, eps, tol, *, prec=160, max_nodes=300_000, changed=None,
             upper=None, alpha=None, extra_light=None, fine=None, progress=None,
             deadline=None) -> KFourier:
    """One certified walk (:class:`walk.Walk`; ``changed``, ``upper``: its law and side, by default
    the pair's direction's; ``alpha``, ``extra_light``, ``fine``, ``progress``: see
    :func:`kfourier_details`; ``deadline``: the time budget, walk module doc)."""
    t0 = time.time()
    if not (red.forward if upper is None else upper):
        # P[R < thr] (003's reverse): every bound enters the ends as 1 - B, whose ball keeps a
        # radius ~2^-prec: at least settings.COMPLEMENT_BITS bits below tol (k = 2, q = 0.351 at
        # 160 bits: [0, 1.37e-48] at every tol from 1e-50 on; at 400 bits 6.4e-61 at 1e-55)
        prec = max(prec, math.ceil(-math.log2(tol)) + settings.COMPLEMENT_BITS)
    tail = _lower_tail(red, q, lam, eps, prec, changed=changed, upper=upper)
    if tail is not None and tail.bound <= tol * settings.LOWER_TAIL_ACCEPT:
        return KFourier(Interval(1 - Fraction(tail.bound), Fraction(1)), (), 0, 0, 0.0,
                        time.time() - t0, method="lower tail")
    if alpha is None:
        alpha = 0.0
        if settings.ALPHA_SHIFT and red.k > 1:
            alpha = _pilot_alpha(red, q, lam, eps, tol, prec, max_nodes=max_nodes,
                                 changed=changed, upper=upper, deadline=deadline)
    run = Walk(red, q, lam, eps, tol, prec, max_nodes=max_nodes, alpha=alpha, changed=changed,
               upper=upper, extra_light=extra_light, fine=fine, progress=progress, deadline=deadline)
    while True:
        try:
            run.run()
            break
        except NotMonotone:
            if run.expired():
                # no retry past the time budget: only the lower tail's bound is known
                return KFourier(Interval(_tail_floor(tail), Fraction(1)), tuple(run.heavy),
                                run.nodes, 0, 0.0, time.time() - t0, float(alpha),
                                run.extra_light, run.fine, stopped=True)
            if run.extra_light <= -settings.EXTRA_HEAVY:
                raise
            # a light statistic spread too widely for the certificate (small q, e.g. 0.30
            # at k = 16: its Chernoff range spans a factor ~8): the extra light level back to
            # the heavy enumeration concentrates it (EXTRA_LIGHT's trade-off, other way
            # round); without one, the top light level (k = 128, q = 0.30: EXTRA_HEAVY)
            run = Walk(red, q, lam, eps, tol, prec, max_nodes=max_nodes, alpha=alpha,
                       changed=changed, upper=upper, extra_light=min(run.extra_light - 1, 0),
                       fine=fine, progress=progress, deadline=deadline)
    with ctx.workprec(prec):
        dm = run.dropped + run.fail
        lo = arb_to_interval(run.lo - run.fail).lower
        hi = arb_to_interval(run.hi + dm).upper
    lo = max(lo, _tail_floor(tail))
    hi = min(hi, Fraction(1))
    return KFourier(Interval(min(lo, hi), hi), tuple(run.heavy), run.nodes,
                    run.fourier, float_hi(run.dropped), time.time() - t0, float(alpha),
                    run.extra_light, run.fine, stopped=run.stopped)


def _tail_floor(tail) -> Fraction:
    """The lower end ``max(0, 1 - B)`` that the product bound ``tail`` (or None) gives ``eta``."""
    return max(Fraction(0), 1 - Fraction(tail.bound)) if tail is not None else Fraction(0)


def _lower_tail(red, q, lam, eps, prec, *, changed=None, upper=None):
    """The product bound ``B >= P[R <= lam]`` (:func:`~exactdp.reductions.kfourier.lowertail.lower_tail`)
    of the walk's law where its side is ``P[R > lam]`` and ``k >= settings.LOWER_TAIL_FROM_K``
    (below it the bound is far above the walk's width: ``benchmarks/RESULTS.md``, session 14);
    else None.  ``eta >= 1 - B`` either way."""
    if not (red.forward if upper is None else upper) or red.k < settings.LOWER_TAIL_FROM_K:
        return None
    with_changed = red.forward if changed is None else bool(changed)
    n = red.k * (red.N - 1) if with_changed else red.k * red.N
    m = red.k if with_changed else 0
    with ctx.workprec(prec):
        thr = exact_arb(Fraction(lam)) if lam is not None else exact_arb(Fraction(eps)).exp()
        return lower_tail(Mechanism(red.d, q), red.k, n, m, thr, prec=prec)


def kfourier_eta(P: Pair, q, lam=None, *, eps=None, inclusive: bool = False, tol: float = 1e-9,
                 prec: int = 160, max_nodes: int = 300_000, deadline: float | None = None) -> Interval:
    """Certified ``eta`` of a pair with one homogeneous collection under
    ``P.k``-randomization, for large ``kN`` (module doc): ``P[R > lam]``
    (forward) or ``P[R < 1/lam]`` (reverse); the same enclosure holds for
    ``inclusive`` (``>=``, ``<=``).  ``tol`` is the mass below which a heavy
    node is dropped (its mass enters the width); ``deadline``: the time budget
    (:func:`kfourier_details`)."""
    return kfourier_details(P, q, lam, eps=eps, tol=tol, prec=prec, max_nodes=max_nodes,
                            deadline=deadline).eta



@dataclass(frozen=True)
class KDelta:
    """A certified delta from two certified etas (:func:`kfourier_delta_details`): ``first``
    ``= P_1[E]``, ``second = P_2[E]`` with ``delta = first - lam second`` (the event ``E`` and the
    laws in :func:`kfourier_delta`), ``tol`` the heavy-node tolerance of the last pass, ``fine``
    whether a pass took the fine series settings, ``stopped`` whether the time budget ran out."""

    delta: Interval
    first: Interval
    second: Interval
    tol: float
    passes: int
    seconds: float
    fine: bool = False
    stopped: bool = False


def kfourier_delta_details(P: Pair, q, lam=None, *, eps=None, tol: float | None = None,
                           rel: float = settings.DELTA_REL, prec: int = 160, max_nodes: int = 300_000,
                           deadline: float | None = None) -> KDelta:
    """:func:`kfourier_delta`'s difference route with its two etas (:class:`KDelta`).

    ``tol`` given: one pass, both etas at heavy-node tolerance ``tol``.  Else passes from
    :data:`DELTA_TOL0`, each next ``tol`` scaled by the width asked (``rel`` times delta) over
    the width obtained (the width is about proportional to ``tol``), down to
    :data:`DELTA_TOL_FLOOR`, at most :data:`DELTA_PASSES` passes; the passes' enclosures are
    intersected (each is certified).  A finer pass out of the strategy's reach (its
    ``CapacityError`` or ``PrecisionError``), or one not 20 % narrower than the last (the
    etas' precision floor), ends the passes; at the default settings' floor (below
    ``settings.FINE_K_LIMIT``) one more pass takes the fine series settings first (series
    module doc: a narrower enclosure of the light e_m at about 2-3x the cost).  ``deadline``: the
    time budget (:func:`kfourier_details`): a pass it cuts short is the last; with it, from
    ``settings.COARSE_FROM_K`` on, a pass at ``DELTA_TOL0_COARSE`` comes first (a budget too short
    for the first fine pass still leaves a two-sided enclosure), every next pass is no finer
    than the time left allows (:func:`budget_tol`), and one expected to outlast the budget is not
    started (:func:`pass_out_of_time`)."""
    red, q, lam, eps = _checked(P, q, lam, eps, 0.5 if tol is None else tol)
    if not (isinstance(rel, (int, float)) and 0 < rel < 1):
        raise ParameterError(f"rel must lie in (0, 1), got {rel!r}")
    lam_iv = lam_interval(lam, eps)
    t0 = time.time()
    # a time budget from COARSE_FROM_K on: one coarse pass first (settings.COARSE_FROM_K)
    coarse = tol is None and deadline is not None and red.k >= settings.COARSE_FROM_K
    t = settings.DELTA_TOL0_COARSE if coarse else settings.DELTA_TOL0 if tol is None else tol
    out = None
    passes = 0
    tiny_left = settings.DELTA_TINY_PASSES
    began = time.monotonic()
    fine = None                     # the settings' series enclosure until its floor
    while True:
        passes += 1
        start = time.monotonic()
        try:
            ra = _details(red, q, lam, eps, t, prec=prec, max_nodes=max_nodes, fine=fine, deadline=deadline)
            # the second law and the same side: forward P_D[R > lam], reverse P_(D_m)[R < 1/lam]
            rb = _details(red, q, lam, eps, t, prec=prec, max_nodes=max_nodes, changed=not red.forward,
                          upper=red.forward, fine=fine, deadline=deadline)
            a, b = ra.eta, rb.eta
            stopped = ra.stopped or rb.stopped
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
        if stalled and fine is None and tol is None and red.k < settings.FINE_K_LIMIT \
                and iv.width > rel * iv.upper:
            fine, stalled = True, False     # the default enclosure's floor: a pass with the fine one
        up, lo = float(iv.upper), float(iv.lower)
        # delta below the pass's own tol (tiny delta, q >= 0.40): the pass does not count, and
        # the next tol comes from delta's scale (methods' eta passes do the same)
        tiny = up < t and tiny_left > 0
        if tiny:
            tiny_left -= 1
        limit = settings.DELTA_PASSES + (1 if fine else 0) + coarse + settings.DELTA_TINY_PASSES - tiny_left
        floor = settings.DELTA_TOL_FLOOR * min(1.0, lo if lo > 0 else up)
        if tol is not None or stalled or stopped or passes >= limit or t <= floor:
            break
        want = rel * up
        got = float(iv.width)
        if got <= want:
            break
        if tiny:
            nxt = max(0.5 * rel * tiny_scale(lo, up, k=red.k), t * settings.TINY_JUMP)
        elif t > settings.DELTA_TOL0:
            # after the coarse pass: the usual first tol, or coarser if that suffices
            nxt = min(max(t * 0.5 * want / got, settings.DELTA_TOL0), t / 3)
        else:
            nxt = t * max(0.5 * want / got, 1e-2)            # at most t / 2: got > want
        t = next_pass_tol(t, nxt, shrink=2.0, floor=floor, start=start, began=began,
                          now=time.monotonic(), deadline=deadline, up=up)
        if t is None:
            break                   # it would be cut short: the answer now
    iv, a, b, t = out
    return KDelta(iv, a, b, t, passes, time.time() - t0, bool(fine), stopped)


def budget_tol(t: float, spent: float, left: float, *, exponent: float | None = None) -> float:
    """The finest heavy-node tolerance whose pass takes at most ``left / settings.BUDGET_SAFETY``
    seconds if a pass at ``t`` took ``spent`` and the time grows as ``tol^-exponent`` (by default
    ``settings.COST_EXPONENT``: ``settings.COARSE_FROM_K``'s note); ``t`` where none finer would, 0
    without a measured pass.  A float choice of the passes (any tol gives a certified enclosure).

    >>> budget_tol(1e-2, 100.0, 200.0 * 10 ** settings.COST_EXPONENT) == 1e-3
    True
    """
    if not spent > 0:
        return 0.0
    ratio = left / (settings.BUDGET_SAFETY * spent)
    if ratio <= 1:
        return t
    return t * ratio ** (-1 / (settings.COST_EXPONENT if exponent is None else exponent))


def pass_budget_tol(t: float, start: float, began: float, now: float, deadline: float | None, *,
                    up: float) -> float:
    """The finest tol the time budget allows the next pass (:func:`budget_tol`; 0: no limit), for
    a pass at ``t`` started at ``start`` with upper end ``up``, the passes at ``began``, now ``now``
    (``time.monotonic()`` instants, the caller's clock).
    A pass whose tol lay far above its quantity (``up < settings.TINY_FAR * t``: tiny, seconds
    each) is limited only once the passes have spent ``settings.TINY_BUDGET_FROM`` of the budget,
    with ``settings.COST_EXPONENT_TINY``: their leaps had followed the clock (k = 2, q = 0.42
    printed 1.94e-291 or 3.86e-282 by load); ``settings.TINY_JUMP`` bounds them instead.  Shared by
    the eta passes (methods) and :func:`kfourier_delta_details`.

    >>> pass_budget_tol(1e-2, 0.0, 0.0, 10.0, 100.0, up=1e-5), pass_budget_tol(1e-2, 0.0, 0.0, 10.0, 100.0, up=5e-3) > 0
    (0.0, True)
    """
    if deadline is None:
        return 0.0
    far = up < settings.TINY_FAR * t
    if far and now - began <= settings.TINY_BUDGET_FROM * (deadline - began):
        return 0.0
    return budget_tol(t, now - start, deadline - now,
                      exponent=settings.COST_EXPONENT_TINY if far else None)


def pass_out_of_time(t: float, nxt: float, start: float, now: float, deadline: float | None, *,
                     up: float, exponent: float | None = None) -> bool:
    """Whether a pass at ``nxt`` is expected to outlast the time budget, a pass at ``t`` (upper end
    ``up``) having run from ``start`` to ``now`` (``time.monotonic()`` instants) and the time
    growing as ``tol^-settings.COST_EXPONENT``.  Such a pass is not started: cut short at the
    deadline it narrows nothing and only delays the answer (k = 64, q = 0.40, 600 s: a pass at
    6.7e-24 ran the last 227 s for [7e-22, 1] after one at 2.0e-23 had taken 200 s).  False
    without a budget, and after a pass far above its quantity (``up < settings.TINY_FAR * t``:
    such a pass says little of the next one's cost, which a leap may take to the quantity's scale;
    :func:`pass_budget_tol`).  ``exponent``: the growth measured by the passes so far
    (:func:`measured_exponent`), in place of ``settings.COST_EXPONENT``.

    >>> [pass_out_of_time(1e-6, 1e-7, 0.0, 10.0, dl, up=1e-5) for dl in (50.0, 30.0)]
    [False, True]
    >>> pass_out_of_time(1e-6, 1e-7, 0.0, 10.0, 30.0, up=1e-9)      # far above: no prediction
    False
    """
    if deadline is None or not nxt < t or up < settings.TINY_FAR * t:
        return False
    e = settings.COST_EXPONENT if exponent is None else exponent
    return (now - start) * (t / nxt) ** e > deadline - now


def measured_exponent(t1: float, s1: float, t2: float, s2: float) -> float:
    """The growth of a pass's time as ``tol^-e`` measured by two passes (at ``t1`` in ``s1``
    seconds, then at a finer ``t2`` in ``s2``), at most ``settings.COST_EXPONENT`` and at least
    ``settings.COST_EXPONENT_MEASURED_MIN``; ``settings.COST_EXPONENT`` where the two say nothing
    (``t2`` not finer, a time not positive).  It only lowers the predicted cost of the next pass
    where the walk's own passes grew slower (``L = 40``, ``N = 10^7``, ``lam = e^2``, ``k = 128``,
    ``q = 0.36``: 184 s at 1.9e-4, 242 s at 6.5e-5, ``e`` = 0.25: with 0.5 the pass at 2.2e-5 was
    predicted to take 419 s of the 416 left and the passes stopped at relative width 1.4e-3;
    ``benchmarks/RESULTS.md``, session 36).  A float choice of the passes: every pass is certified,
    and one cut short by the deadline still returns its wider enclosure.

    >>> round(measured_exponent(1.94e-4, 184.0, 6.48e-5, 242.0), 2)
    0.25
    >>> measured_exponent(1e-4, 10.0, 1e-4, 20.0) == settings.COST_EXPONENT
    True
    """
    if not (0 < t2 < t1 and s1 > 0 and s2 > 0):
        return settings.COST_EXPONENT
    e = math.log(s2 / s1) / math.log(t1 / t2)
    return min(settings.COST_EXPONENT, max(e, settings.COST_EXPONENT_MEASURED_MIN))


def next_pass_tol(t: float, nxt: float, *, shrink: float, floor: float, start: float, began: float,
                  now: float, deadline: float | None, up: float, exponent: float | None = None) -> float | None:
    """The next pass's tol from the one aimed at, ``nxt``: no finer than the budget allows
    (:func:`pass_budget_tol`), at least ``shrink`` times finer than ``t``, not below ``floor``;
    ``None`` where that pass is expected to outlast the budget (:func:`pass_out_of_time`, with
    ``exponent``: :func:`measured_exponent`).  Shared by the eta passes (methods) and
    :func:`kfourier_delta_details`.

    >>> kw = dict(shrink=3.0, floor=0.0, start=0.0, began=0.0, now=10.0, up=1e-5)
    >>> next_pass_tol(1e-6, 1e-9, deadline=None, **kw), next_pass_tol(1e-6, 1e-9, deadline=25.0, **kw)
    (1e-09, None)
    """
    nxt = max(min(max(nxt, pass_budget_tol(t, start, began, now, deadline, up=up)), t / shrink), floor)
    return None if pass_out_of_time(t, nxt, start, now, deadline, up=up, exponent=exponent) else nxt


def tiny_scale(lo: float, up: float, *, k: int = 1) -> float:
    """A float guess of a tiny quantity's size from its certified ends ``[lo, up]`` (its passes'
    next tol is this times the relative width asked): the geometric mean, but at most
    ``settings.TINY_ABOVE_LOWER`` times the lower end where that is known (the upper end of a walk
    far coarser than the quantity follows the walk's tol, not the quantity); ``up`` where ``lo`` is 0,
    and from ``k = settings.TINY_UPPER_FROM_K`` copies on where the ends lie more than that factor
    apart (a walk far below the quantity costs little at small k and explodes at large k: there
    the guess errs high).

    >>> [f"{tiny_scale(lo, up):.3g}" for lo, up in [(0.0, 1e-12), (1e-30, 1e-26), (5e-36, 4e-12)]]
    ['1e-12', '1e-28', '5e-30']
    >>> [f"{tiny_scale(lo, up, k=64):.3g}" for lo, up in [(2.5e-29, 1.8e-17), (7.7e-6, 1.9e-4)]]
    ['1.8e-17', '3.82e-05']
    """
    if not lo > 0 or (k >= settings.TINY_UPPER_FROM_K and up > settings.TINY_ABOVE_LOWER * lo):
        return up
    return min(math.sqrt(lo * up), settings.TINY_ABOVE_LOWER * lo)


def kfourier_delta(P: Pair, q, lam=None, *, eps=None, tol: float | None = None,
                   rel: float = settings.DELTA_REL, grid: int | None = None, prec: int = 160,
                   max_nodes: int = 300_000, deadline: float | None = None) -> Interval:
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
    the same side (:class:`walk.Walk`).  With ``a in [a_lo, a_hi]``, ``b in [b_lo, b_hi]`` and ``lam
    in [lam_lo, lam_hi]`` (``lam = e^eps``: :func:`~exactdp.core.lam.exp_interval`)

        delta in [a_lo - lam_hi b_hi, a_hi - lam_lo b_lo]   (clipped to [0, 1]).

    The width is that of ``a`` plus ``lam`` times that of ``b`` (each a few times ``tol``), not
    relative to delta: ``tol`` is chosen by passes until the relative width ``rel``
    (:func:`kfourier_delta_details`).  Strict and inclusive thresholds give the same enclosures.

    ``deadline``: the time budget (:func:`kfourier_delta_details`).

    ``grid`` (explicit only): also the monotone grid of ``grid`` certified etas (:func:`_grid_delta`,
    at ``tol`` or 1e-6) and the intersection of the two enclosures.

    >>> from exactdp.reductions.pairs import reverse_canonical_pair
    >>> iv = kfourier_delta(reverse_canonical_pair(5000, 5, 2), "1/5", Fraction(11, 10), tol=1e-5)
    >>> 0.1 < float(iv.lower) < float(iv.upper) < 0.12
    True
    """
    iv = kfourier_delta_details(P, q, lam, eps=eps, tol=tol, rel=rel, prec=prec,
                                max_nodes=max_nodes, deadline=deadline).delta
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
