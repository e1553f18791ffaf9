"""Certified strategies for a general :class:`~exactdp.model.pair.Pair`, chosen by ``method="auto"``.

Every strategy returns an :class:`~exactdp.core.interval.Interval` enclosing the same
value -- ``eta = P[R > lam]`` (``inclusive``: ``>=``) or ``delta = E[(1 - lam/R)+]``
with ``S ~ A(D_m)`` (000 (1.6)-(1.7)) -- so they can be intersected
(``refine=True``).  Which strategies a pair supports follows from its reduction
(``proofs/symmetry_reductions.py``):

========== ============================================== ==================================
method     pairs                                          module
========== ============================================== ==================================
exact      a coarse-type enumeration within capacity, or   :mod:`exactdp.reductions.pairs` (exact rational)
           one effective column (polynomials)
kernel     homogeneous base ``z^(N-1)``, ``k = 1``          :func:`exactdp.reductions.pairs.hom_eta`
lattice    homogeneous base (eta): dominance bracket       :func:`exactdp.reductions.pairs.hom_eta`
chernoff   homogeneous base or one minority (eta):         :func:`~exactdp.reductions.pairs.hom_eta`,
           ``[0, bound]``                                 :func:`~exactdp.reductions.minority.minority_eta`
kcopies    one homogeneous collection, ``k >= 1``          :func:`exactdp.reductions.kcopies.kcopies_eta`,
           (delta: the difference of two searches)        :func:`~exactdp.reductions.kcopies.kcopies_delta`
kfourier   the same pairs at large ``kN`` (eta)           :func:`exactdp.reductions.kfourier.kfourier_eta`
ktilt      the same at large ``kN``, ``k >= 2``, eta      :func:`exactdp.reductions.kfourier.ktilted_eta`
           below ``10^ROUTE`` (forward) or
           ``10^REVERSE_ROUTE`` (reverse): far tails;
           forward from ``k = 64`` where the walk is
           weak too (tilt module doc, "The light cut")
twotype    base of two types at distance one (eta, lam)  :func:`exactdp.reductions.twotype.twotype_eta`
minority   base ``z^(N-2) + y`` (eta, lam)                 :func:`exactdp.reductions.minority.minority_eta`
========== ============================================== ==================================

000's pair and its reverse (any ``N``, ``L``) have their own faster strategies
(the tree kernel and the large-N Fourier strategy); :func:`exactdp.from_pair`
sends them there and every other pair here.

``method`` is ``"auto"`` (every supported method, best first, each within a node
budget), one name, or a tuple of names tried in that order (the conjecture checkers
use this to state their own preferences); the first enclosure that runs is returned,
or with ``refine=True`` the intersection of all that run.  The knobs ``tol``
(per-node truncation, default from ``digits``), ``max_nodes`` and ``step`` (grid step
of the lattice brackets) are the same for every method.

>>> from exactdp.model.pair import Pair
>>> P = Pair.from_mapping({"00": 3, "01": 1}, {"00": 3, "11": 1})
>>> supported(P, "eta")
('exact', 'kernel', 'lattice', 'chernoff')
>>> eta(P, "1/4", lam=2)
Interval[12329/32768, 12329/32768]
>>> eta(P, "1/4", lam=2, method="kernel").contains(eta(P, "1/4", lam=2).lower)
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from ..core import domains
from . import pairs
from ..core.errors import CapacityError, ParameterError
from ..core.interval import Interval
from ..core.lam import exp_interval, parse_lam_eps
from ..model.pair import Pair
from .minority import one_minority

__all__ = ["METHODS", "Options", "supported", "eta", "delta"]

#: Every method name, in the order ``"auto"`` tries them.
METHODS = ("exact", "kernel", "kcopies", "ktilt", "kfourier", "twotype", "minority", "lattice", "chernoff")

#: From this many outputs ``kN`` on, ``auto`` tries the large-N k-copies strategy before the tree.
KFOURIER_FIRST = 10_000
#: The large-N k-copies strategy's heavy-node tolerance: a first coarse pass, then each pass's
#: tol from the width asked (``10^-digits`` of eta) over the width per tol the
#: last pass showed, between KFOURIER_SHRINK and KFOURIER_JUMP times finer, down to the floor; at most
#: KFOURIER_PASSES passes, ended early when two passes in a row are not 20 % narrower (the
#: enclosure's floor).  Each pass aims at KFOURIER_AIM of the width asked, so that one targeted
#: pass usually suffices and the printed digits rarely straddle a rounding boundary.
#: (Was a fixed 1e-7, 3e-9, 1e-10 whatever eta's size: at L = 40, N = 10^7, k = 4, q = 0.30,
#: eta ~ 0.54 needs only ~5e-4 absolute; `eta --k 4 --digits 3` took 72 CPU s, now 29.)
#: The width is far from proportional to tol while a floor of the enclosure's own is near, and a
#: pass's cost grows slowly with 1/tol, so the aim is low: at k = 16, q = 0.34 (eta ~ 0.141) the
#: passes were 1e-4, 1.8e-5 (not narrower), 3.5e-6 with KFOURIER_AIM = 0.3 and are 1e-4, 6e-6
#: (relative width 9.4e-4) with 0.1: 281 -> 173 CPU s, both under load ~3 (``benchmarks/RESULTS.md``).
KFOURIER_TOL0 = 1e-4
#: With a time budget (``deadline``) and from ``kfourier.settings.COARSE_FROM_K`` on (why and what
#: it gave: there), one pass at KFOURIER_TOL0_COARSE comes first, then KFOURIER_TOL0 (or coarser if
#: the coarse pass's width per tol says it suffices) and the rule above.  The coarse pass's shift
#: and light levels are not handed on (its pilot walk would run at 100 tol: it has none).
KFOURIER_TOL0_COARSE = 1e-2
KFOURIER_TOL_FLOOR = 1e-10
KFOURIER_SHRINK = 3.0
KFOURIER_JUMP = 30.0
KFOURIER_AIM = 0.1
KFOURIER_PASSES = 6
#: ... besides at most this many passes that locate eta: its upper end below the pass's tol (tiny
#: eta: each takes the next tol from eta's scale, several decades down) or its ends more than
#: KFOURIER_LOCATED apart (L = 40, N = 10^7, lam = e^2, q = 0.415: eta ~2e-214 at k = 8 and ~1e-193
#: at k = 16 are reached after ~18 such passes, each at most TINY_JUMP below the last, whose lower
#: ends stay ~15 decades below eta until tol nears it; with 16 of them and every pass with a
#: lower end counted, the passes ended at [1.38e-214, 4.70e-214] and [9.76e-194, 3.43e-192])
KFOURIER_TINY_PASSES = 32
KFOURIER_LOCATED = 10.0

#: The tilted k-copies strategy's relative width aimed at, ``KTILT_AIM`` of the width asked, no
#: finer than ``KTILT_FLOOR`` (its floor: the series' threshold gap, ~1e-6 at L = 40, N = 10^7)
KTILT_AIM = 0.1
KTILT_FLOOR = 1e-7
#: ... and where its width is more than asked and than KTILT_WALK_WIDTH above 10^-KTILT_WALK_REACH
#: (the walk's passes reach ~1e-300: their tolerances are doubles) the walk's passes run too (the
#: intersection; not for a width between the two: at q = 0.415 the walk takes minutes for what the
#: tilt gives to 7e-4 in seconds)
KTILT_WALK_REACH = 290
KTILT_WALK_WIDTH = 1e-3
#: ... at k up to this (beyond, a walk at eta ~1e-150 runs for many minutes: k = 128, q = 0.415,
#: the tilt's answer, 2.1e-4 with the two top levels since session 28), or at any k where the tilt's upper
#: end is above 10^-KTILT_WALK_NEAR (003's reverse, k = 200, q = 0.38: the tilt 2.7e-3 around
#: 3.1e-11, the walk 1e-3 in ~15 s)
KTILT_WALK_MAX_K = 16
KTILT_WALK_NEAR = 20

#: Grid step of the lattice brackets when ``method="lattice"`` or ``"minority"``.
LATTICE_STEP = Fraction(1, 64)

#: Node budget of the kernel searches under ``method="auto"`` (about 20 s); beyond it
#: ``auto`` goes on to the next applicable method (a mixed pair's kernel can be far slower).
AUTO_MAX_NODES = 2_000_000
#: the k-copies search's budget under ``method="auto"``: its nodes cost ~0.1-1 ms (Python,
#: e_k of k floats per guess), so 2e6 nodes would be a silent half hour; beyond it auto goes on
#: to the next method (kfourier) or says the case is out of reach
KCOPIES_AUTO_MAX_NODES = 50_000
#: from this many coarse histograms on (k > 1), eta tries the k-copies search before the exact
#: enumeration (~0.2 ms per histogram: N = 50, L = 3, k = 2 has 176851, 38 CPU s; its k-copies
#: search takes 0.1 s); the enumeration stays next when the search's budget runs out
KCOPIES_BEFORE_EXACT = 20_000


def supported(P: Pair, quantity: str = "eta") -> tuple[str, ...]:
    """The methods that apply to ``P`` for ``quantity`` (``"eta"`` or ``"delta"``), best first."""
    from .kcopies import kcopies
    from .twotype import MAX_N as TWOTYPE_MAX_N, distance_one
    if quantity not in ("eta", "delta"):
        raise ParameterError(f"quantity must be 'eta' or 'delta', got {quantity!r}")
    out = []
    rt = pairs.route(P)
    if rt in ("exact", "l1"):
        out.append("exact")
    homogeneous = len(P.base) <= 1 and P.k == 1 and P.x != P.x_m
    if homogeneous:
        out.append("kernel")
    if quantity == "eta":
        if homogeneous:
            out += ["lattice", "chernoff"]
        if kcopies(P) is not None:
            from .kfourier import MIN_OUTPUTS
            big = P.k * P.N >= MIN_OUTPUTS
            if big and P.k * P.N >= KFOURIER_FIRST:
                if P.k > 1:
                    out.append("ktilt")          # far tails only: it declines above its route
                out.append("kfourier")
            out.append("kcopies")
            if big and P.k * P.N < KFOURIER_FIRST:
                out.append("kfourier")
            if (out[:1] == ["exact"] and rt == "exact" and P.k > 1
                    and pairs.check_capacity(pairs.reduce_pair(P)) > KCOPIES_BEFORE_EXACT):
                out.remove("exact")          # the k-copies search first, the enumeration next
                out.insert(out.index("kcopies") + 1, "exact")
        if P.k == 1 and distance_one(P) is not None and P.N <= TWOTYPE_MAX_N:
            out.append("twotype")
        if one_minority(P) is not None:
            out += ["minority", "chernoff"]
    elif kcopies(P) is not None and P.k > 1:
        # delta = P_1[E] - lam P_2[E] from two k-copies searches (kcopies_delta); before a large
        # enumeration (N = 50, L = 3, k = 2: 0.1 s against 38 s), after a small one
        out.append("kcopies")
        if (out[0] == "exact" and rt == "exact"
                and pairs.check_capacity(pairs.reduce_pair(P)) > KCOPIES_BEFORE_EXACT):
            out.remove("exact")
            out.append("exact")
    return tuple(out)


def _tol(digits: int) -> float:
    return max(10.0 ** -(digits + 6), 1e-300)


def _pick(P: Pair, quantity: str, method) -> list[str]:
    avail = supported(P, quantity)
    if method == "auto":
        if not avail:
            pairs.check_capacity(pairs.reduce_pair(P))      # raises with the sizes
            raise CapacityError(f"no certified method for {P.describe()}")
        return list(avail)
    names = (method,) if isinstance(method, str) else tuple(method)
    if not names:
        raise ParameterError("method must be 'auto', a method name or a non-empty tuple of names")
    for name in names:
        if name not in METHODS:
            raise ParameterError(f"method must be 'auto' or one of {', '.join(METHODS)}, got {name!r}")
        if name not in avail:
            raise ParameterError(f"method {name!r} does not apply to {P.describe()} for {quantity}; "
                                 f"it supports: {', '.join(avail) or 'none'}")
    return list(names)


@dataclass(frozen=True)
class Options:
    """The knobs every method shares: per-node truncation ``tol``, node budget
    ``max_nodes`` (``None``: unlimited) and lattice grid ``step``."""
    tol: float
    max_nodes: int | None
    step: Fraction
    digits: int = 10
    auto: bool = False


def _options(method, digits: int, tol, max_nodes, step) -> Options:
    if tol is None:
        tol = _tol(digits)
    elif not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise ParameterError(f"tol must be a number in (0, 1), got {tol!r}")
    if max_nodes is None and method == "auto":
        max_nodes = AUTO_MAX_NODES
    step = LATTICE_STEP if step is None else domains.to_fraction(step, "step")
    if step <= 0:
        raise ParameterError(f"step must be a positive rational, got {step}")
    return Options(float(tol), max_nodes, step, digits, method == "auto")


def _eta_by(name: str, P: Pair, q: Fraction, lam, eps, inclusive: bool, *, opt: Options,
            progress=None, deadline=None) -> Interval:
    tol, max_nodes = opt.tol, opt.max_nodes
    if name == "exact":
        return Interval.exact(pairs.eta_exact(P, q, lam, eps, inclusive))
    homogeneous = name in ("kernel", "lattice") or (name == "chernoff" and one_minority(P) is None)
    if homogeneous:
        kw = {"tol": tol, "max_nodes": max_nodes} if name == "kernel" else {
            "method": name, "h": opt.step if name == "lattice" else None}
        return pairs.hom_eta(pairs.HomogeneousPair.of(P), q, lam, eps, inclusive, **kw)
    if name == "kcopies":
        from .kcopies import kcopies_eta
        if opt.auto:
            max_nodes = KCOPIES_AUTO_MAX_NODES if max_nodes is None else min(max_nodes, KCOPIES_AUTO_MAX_NODES)
        return kcopies_eta(P, q, lam, eps=eps, inclusive=inclusive, tol=max(tol, 1e-15),
                           max_nodes=max_nodes, progress=progress)
    if name == "kfourier":
        return _kfourier_passes(P, q, lam, eps, inclusive, opt.digits, progress=progress,
                                deadline=deadline)
    if name == "ktilt":
        from ..core.errors import PrecisionError
        from .kfourier import ktilted_eta
        try:
            # the same enclosure for ">=" (inclusive): the sandwich's events are strict and
            # inclusive alike (the smoothed integrals see no atom)
            iv = ktilted_eta(P, q, lam, eps, rel=max(KTILT_AIM * 10.0 ** -opt.digits, KTILT_FLOOR),
                             deadline=deadline).eta
        except PrecisionError as e:
            raise CapacityError(str(e)) from None
        # wider than asked where the walk still reaches: its passes too, the intersection
        # (L = 40, N = 10^7, lam = e^2, k = 2, q = 0.41 until session 28: the tilt with the top
        # level alone [1.4e-153, 9.7e-147], the walk 1.394e-153 to 2e-4; now the two top levels
        # give 3.7e-5 alone)
        return with_walk(iv, 10.0 ** -opt.digits, P.k, lambda: _kfourier_passes(
            P, q, lam, eps, inclusive, opt.digits, progress=progress, deadline=deadline))
    if lam is None:
        # the two-type and minority searches compare with a rational lam: enclose e^eps
        e = exp_interval(eps)
        a = _eta_by(name, P, q, e.upper, None, False, opt=opt)
        b = _eta_by(name, P, q, e.lower, None, False, opt=opt)
        return Interval(a.lower, max(a.lower, b.upper))
    if name == "twotype":
        from .twotype import twotype_eta
        return twotype_eta(P, q, lam, inclusive=inclusive, tol=max(tol, 1e-20),
                           mass_tol=max(tol, 1e-20), max_nodes=max_nodes)
    from .minority import minority_eta
    if name == "chernoff":
        return minority_eta(P, q, lam, inclusive=inclusive, method="chernoff")
    return minority_eta(P, q, lam, inclusive=inclusive, h=opt.step)


def with_walk(iv: Interval, rel: float, k: int, walk) -> Interval:
    """The tilted strategy's enclosure ``iv`` (of eta or delta at ``k`` copies), intersected
    with ``walk()``'s (the walk's passes: a certified enclosure of the same quantity) where
    ``iv`` is wider than ``rel`` and than ``KTILT_WALK_WIDTH`` and lies within the walk's
    reach (``KTILT_WALK_REACH``; beyond ``KTILT_WALK_MAX_K`` copies only above
    ``10^-KTILT_WALK_NEAR``); a walk out of reach (``CapacityError`` or ``PrecisionError``)
    leaves ``iv``.

    >>> wide = Interval(Fraction(1, 10), Fraction(2, 10))
    >>> w = with_walk(wide, 1e-3, 2, lambda: Interval(Fraction(15, 100), Fraction(3, 10)))
    >>> (w.lower, w.upper)
    (Fraction(3, 20), Fraction(1, 5))
    >>> with_walk(wide, 1.0, 2, lambda: Interval(Fraction(15, 100), Fraction(3, 10))) is wide
    True
    """
    from ..core.errors import PrecisionError
    if (iv.relative_width() > max(rel, KTILT_WALK_WIDTH)
            and iv.upper > Fraction(1, 10**KTILT_WALK_REACH)
            and (k <= KTILT_WALK_MAX_K or iv.upper > Fraction(1, 10**KTILT_WALK_NEAR))):
        try:
            return iv.intersect(walk())
        except (CapacityError, PrecisionError):
            pass
    return iv


def _kfourier_passes(P: Pair, q: Fraction, lam, eps, inclusive: bool, digits: int, *,
                     progress=None, deadline=None) -> Interval:
    """Certified eta by the large-N k-copies strategy with relative width ``10^-digits``:
    heavy-node tolerance passes (``KFOURIER_TOL0`` ...; each enclosure is
    certified, so the result is their intersection); a first pass that cannot certify
    (``PrecisionError``) is out of the strategy's reach (``CapacityError``: auto goes on).  A pass
    not 20 % narrower than the last, or one wider than ``FLOOR_TOLS`` times its tol, marks the
    default series enclosure's floor: below
    ``FINE_K_LIMIT`` (from it, where the first pass walked more than ``HEAVIER_FIRST_NODES``)
    the next passes take the fine series settings (from the same tol); one more
    such pass (two where the fine settings are not taken) ends the passes, and so does a pass
    answered by the lower-tail product bound alone (``eta`` near 1:
    :mod:`~exactdp.reductions.kfourier.lowertail`).  ``progress(nodes)`` is
    reported by each pass's walk.  ``deadline`` (a ``time.monotonic()`` instant): the time budget;
    the pass it cuts short returns a wider certified enclosure and ends the passes; with it, from
    ``kfourier.settings.COARSE_FROM_K`` on, a coarse pass (``KFOURIER_TOL0_COARSE``) comes first, so that a
    budget too short for the first fine pass still leaves a two-sided enclosure, every next
    pass is no finer than the time left allows (:func:`~exactdp.reductions.kfourier.budget_tol`),
    and one expected to outlast the budget is not started
    (:func:`~exactdp.reductions.kfourier.pass_out_of_time`; with the growth of the last two located
    passes' times where it was slower than assumed:
    :func:`~exactdp.reductions.kfourier.measured_exponent`).
    A pass whose tol lies above its own upper end (tiny eta: ~1e-33 at L = 40, N = 10^7, k = 2,
    q = 0.40), or whose ends lie more than ``KFOURIER_LOCATED`` apart, does not count against
    ``KFOURIER_PASSES`` (at most ``KFOURIER_TINY_PASSES`` of them); after a tiny one
    the next tol comes from eta's scale (:func:`~exactdp.reductions.kfourier.tiny_scale`: its upper
    end from ``kfourier.settings.TINY_UPPER_FROM_K`` copies on), below the upper end by a growing
    leap while no lower end is known (kfourier walk module doc, "Far
    decisions").  A pass with one more light level enumerated as heavy (at the series enclosure's
    floor) that is not narrower than the pass before it ends the passes.  (Until session 17 the
    passes stopped at an absolute width of 1e-9.)"""
    from ..core.errors import PrecisionError
    from .kfourier import kfourier_details, measured_exponent, next_pass_tol, settings as kf_settings, tiny_scale
    rel = Fraction(1, 10 ** digits)
    coarse = deadline is not None and P.k >= kf_settings.COARSE_FROM_K
    iv, t, last, strikes, hint = None, KFOURIER_TOL0_COARSE if coarse else KFOURIER_TOL0, None, 0, {}
    normal = 0                                 # passes counted against KFOURIER_PASSES
    fine_floor = False                         # the fine settings taken at the default one's floor
    leap = 1.0                                 # tiny eta without a lower end: the passes' leap
    shift_located = False                      # the shift handed on came from a located pass
    heavier_from = None                        # the width of the pass after which a level went heavy
    first_pass = None                          # (tol, nodes) of the first pass at KFOURIER_TOL0 or finer,
                                               # or the first after the coarse one
    timed = None                               # (tol, seconds) of the last located walk pass
    began = time.monotonic()
    for walked in range(KFOURIER_PASSES + coarse + KFOURIER_TINY_PASSES):
        if normal >= KFOURIER_PASSES + coarse:
            break
        normal += 1
        start = time.monotonic()
        try:
            run = kfourier_details(P, q, lam, eps=eps, tol=t, progress=progress, deadline=deadline, **hint)
        except (PrecisionError, CapacityError) as e:
            if iv is not None:
                break                          # a finer pass out of reach: the last enclosure
            raise CapacityError(str(e)) from None
        got = run.eta                          # the same enclosure holds for ">=" (inclusive)
        iv = got if iv is None else iv.intersect(got)
        up, lo = float(iv.upper), float(iv.lower)
        located = 0 < up <= KFOURIER_LOCATED * lo
        if "alpha" not in hint and t <= KFOURIER_TOL0 and run.eta.upper >= t:
            # later passes keep the first fine pass's shift and light levels (no pilot walk, no
            # retry); not a coarse pass's (no pilot walk at its tol: no shift), nor one whose tol
            # is above eta (its pilot walk, at 100 tol, hardly sees eta's leaves: k = 16,
            # q = 0.38, eta = 2.4e-6, the shift of the pass at 1e-4 left the next passes at a
            # width of 8.8e-9, their own 1.1e-10 at 1e-11)
            hint = {**hint, "alpha": run.alpha, "extra_light": run.extra_light, **({"fine": True} if run.fine else {})}
            shift_located = located
        elif "alpha" in hint and located and not shift_located:
            # a shift taken before eta was located: the next pass runs its own pilot walk and
            # hands that on (k = 8, q = 0.415, eta = 1.48e-214: the shift of the pass at 6e-211,
            # [9.8e-227, 8.2e-211], held the passes at 2.47e-218 and 8.23e-220 to [1.458e-214,
            # 1.487e-214]; one walk at 2.47e-218 with its own gives [1.47879e-214, 1.48143e-214])
            hint = {key: v for key, v in hint.items() if key not in ("alpha", "extra_light")}
        floor = KFOURIER_TOL_FLOOR * min(1.0, lo if lo > 0 else up)
        if iv.width <= rel * iv.upper or t <= floor:
            break
        if run.stopped:
            break                              # the time budget ran out
        if run.method == "lower tail":
            # eta near 1 by the product bound alone (kfourier.lowertail; B = 1 - eta's lower end),
            # taken where it beat the walk's width at this tol (LOWER_TAIL_ACCEPT): final from
            # KFOURIER_TOL0 on (a finer walk there costs hours) and where a pass at KFOURIER_TOL0
            # would take it too; after a coarse pass (where it is taken far more readily: k = 64,
            # q = 0.30, B = 0.12) the walk at the coarsest tol that does not take it, no walk's
            # time or width per tol being known yet
            B = 1 - float(got.lower)
            if t <= KFOURIER_TOL0 or B <= kf_settings.LOWER_TAIL_ACCEPT * KFOURIER_TOL0:
                break
            last, t = float(got.width), min(t / KFOURIER_SHRINK, B / (1.01 * kf_settings.LOWER_TAIL_ACCEPT))
            continue
        w = float(got.width)
        coarse_pass = coarse and walked == 0
        if first_pass is None and not coarse_pass and run.method != "lower tail":
            # at KFOURIER_TOL0 or, where the budget keeps the pass after the coarse one coarser
            # (k = 200, q = 0.34, 1800 s: 1.9e-4), that one
            first_pass = (t, run.nodes)
        if heavier_from is not None and w > 0.8 * heavier_from:
            # one more level enumerated as heavy did not narrow the enclosure: the floor is not the
            # light law's power sums (003's reverse, k = 8, q = 0.351: [3.7e-40, 1.1e-37] from
            # 18 nodes, then 87 ... 6,169 nodes for [0, 3.8e-23] ... [0, 4.8e-32], 28 of 34 s)
            break
        heavier_from = None
        strikes = strikes + 1 if last is not None and w > 0.8 * last else 0
        if located and not coarse_pass and w > kf_settings.FLOOR_TOLS * t:
            # a width of this many tols is the series enclosure's floor, not the walk's
            # allowances (a few tols): the strike without a finer pass to show it (forward,
            # k = 200, q = 0.34: 1.53e-2 at 1e-4, then 1.68e-2 at 3.3e-5 in 842 s; the fine
            # settings at 1e-3 2.6e-3 in 401 s)
            strikes = max(strikes, 1)
        large_first = first_pass is not None and first_pass[1] > kf_settings.HEAVIER_FIRST_NODES
        if strikes and not run.fine and (P.k < kf_settings.FINE_K_LIMIT or large_first):
            # the default series enclosure's floor: the next passes with the fine one (narrower,
            # ~2-3x the cost; kfourier.series module doc), from the same tol; from FINE_K_LIMIT on
            # only where the first pass was too large to go one level heavier (forward, k = 200,
            # q = 0.36: 3.5e-3 -> 1.8e-3, 6,756 nodes at 1e-4)
            hint["fine"], strikes, last, fine_floor = True, 0, None, True
            continue
        small_now = (strikes == 2 or (strikes and fine_floor)) and run.nodes <= kf_settings.HEAVIER_NODES
        small_first = (strikes == 2 and first_pass is not None and P.k >= kf_settings.FINE_K_LIMIT
                       and first_pass[1] <= kf_settings.HEAVIER_FIRST_NODES)
        if (small_now or small_first) and run.extra_light > -kf_settings.EXTRA_HEAVY:
            # the series enclosure's floor where the heavy enumeration is small (tiny eta at large
            # k): one more light level enumerated as heavy concentrates the light law's power
            # sums (k = 32, 003's reverse, q = 0.360444: relative width 7.2e-3 -> 1.0e-3, 15 ->
            # 1,175 nodes, seconds), from the same tol; where this pass's walk is too large to go
            # heavier but the first was small, at the first pass's tol (003's reverse, k = 200,
            # q = 0.34, eta ~0.87: 599 / 1,169 / 2,112 nodes at 1e-4 / 3e-6 / 1e-7 gave
            # [0.81, 0.915] and wider; one level heavier at 1e-4 [0.86963, 0.87007], 7,386 nodes, 12 s)
            hint = {"alpha": run.alpha, "extra_light": run.extra_light - 1,
                    **({"fine": True} if run.fine else {})}
            strikes, last, shift_located, heavier_from = 0, None, True, w
            if not small_now:
                t = first_pass[0]
            continue
        if strikes == 2 or (strikes and fine_floor):
            # twice not narrower, or once after the fine settings were taken at the default
            # one's floor: the enclosure's own floor (k = 16, q = 0.39: 1.0e-10 from tol 4e-14
            # to 1.5e-18, the last pass alone 148 of 320 s, before the pilot followed eta down)
            break
        last = w
        tiny = up < t
        if tiny or not located:
            normal -= 1                        # eta not yet located: the pass does not count
        if tiny:
            # eta below this pass's own resolution (q >= 0.40; ~2.55e-33 at k = 2, q = 0.40): the
            # next tol from eta's scale (kfourier.tiny_scale), no jump limit (such a pass decides
            # nearly every node far out and costs little more at a far finer tol:
            # kfourier.settings.COST_EXPONENT_TINY); while no lower end is known, each such pass
            # leaps further below the upper end (the leap multiplied by the last up / tol)
            if not lo > 0:
                leap *= up / t
            nxt = max(KFOURIER_AIM * float(rel) * tiny_scale(lo, up, k=P.k) * (1.0 if lo > 0 else leap),
                      t * kf_settings.TINY_JUMP)
        else:
            goal = KFOURIER_AIM * float(rel) * (lo if lo > 0 else up)
            if t > KFOURIER_TOL0:
                # after the coarse pass: the usual first tol, or coarser if that suffices
                nxt = max(goal / max(w / t, 1.0), KFOURIER_TOL0)
            else:
                nxt = max(goal / max(w / t, 1.0), t / KFOURIER_JUMP)
        # no finer than the time left allows (a pass far above eta only past a share of the
        # budget: kfourier.pass_budget_tol); whether it fits, by the growth of the last two located
        # passes' times where it was slower (kfourier.measured_exponent)
        now = time.monotonic()
        exponent = None
        if located and not tiny:
            exponent = None if timed is None else measured_exponent(*timed, t, now - start)
            timed = (t, now - start)
        t = next_pass_tol(t, nxt, shrink=KFOURIER_SHRINK, floor=floor, start=start, began=began,
                          now=now, deadline=deadline, up=up, exponent=exponent)
        if t is None:
            break                              # it would be cut short: the answer now
    return iv


def _delta_exact(P: Pair, q: Fraction, lam, eps) -> Interval:
    """The exact rational delta, enclosed over the ball of ``e^eps`` when ``eps`` is given
    (delta decreases in lam)."""
    if lam is None:
        e = exp_interval(eps)
        return Interval(pairs.delta_exact(P, q, e.upper), pairs.delta_exact(P, q, e.lower))
    return Interval.exact(pairs.delta_exact(P, q, lam))


def eta(P: Pair, q, lam=None, eps=None, *, inclusive: bool = False, digits: int = 20,
        method="auto", refine: bool = False, with_method: bool = False,
        tol: float | None = None, max_nodes: int | None = None, step=None, progress=None,
        deadline: float | None = None):
    """Certified ``eta`` of any pair by ``method`` (``"auto"``: the first supported
    method that runs within :data:`AUTO_MAX_NODES`; a name; or a tuple of names tried
    in order; ``refine=True`` intersects every listed method's enclosure).
    ``with_method=True`` returns ``(interval, names)`` with the names of the methods
    whose enclosures it is.  ``progress(nodes, dropped)`` is passed to the searches that report
    (the k-copies search).  ``deadline`` (a ``time.monotonic()`` instant) is the large-N k-copies
    strategy's time budget (:func:`~exactdp.reductions.kfourier.kfourier_details`).

    >>> P = Pair.homogeneous(200, 3, 0, 0, 7)          # 000's pair, N = 200, L = 3
    >>> iv = eta(P, "1/4", lam=2, tol=1e-20)
    >>> from exactdp import from_randomized_response
    >>> iv.overlaps(from_randomized_response(200, 3, "1/4").eta(lam=2)), iv.width < Fraction(1, 10**12)
    (True, True)
    """
    q = Fraction(domains.Q.parse(q))
    lam, eps = parse_lam_eps(lam, eps)
    digits = domains.DIGITS.parse(digits)
    names = _pick(P, "eta", method)
    opt = _options(method, digits, tol, max_nodes, step)
    return _run(P, names, lambda name: _eta_by(name, P, q, lam, eps, inclusive, opt=opt,
                                               progress=progress, deadline=deadline),
                refine, with_method)


def delta(P: Pair, q, lam=None, eps=None, *, digits: int = 20, method="auto",
          refine: bool = False, with_method: bool = False,
          tol: float | None = None, max_nodes: int | None = None):
    """Certified ``delta`` of any pair (methods ``exact`` and ``kernel``; see :func:`eta`)."""
    q = Fraction(domains.Q.parse(q))
    lam, eps = parse_lam_eps(lam, eps)
    digits = domains.DIGITS.parse(digits)
    names = _pick(P, "delta", method)
    opt = _options(method, digits, tol, max_nodes, None)

    def by(name):
        if name == "exact":
            return _delta_exact(P, q, lam, eps)
        if name == "kcopies":
            from .kcopies import kcopies_delta
            mn = opt.max_nodes
            if opt.auto:
                mn = KCOPIES_AUTO_MAX_NODES if mn is None else min(mn, KCOPIES_AUTO_MAX_NODES)
            return kcopies_delta(P, q, lam, eps=eps, tol=max(opt.tol, 1e-15), max_nodes=mn)
        return pairs.hom_delta(pairs.HomogeneousPair.of(P), q, lam, eps, tol=opt.tol,
                               max_nodes=opt.max_nodes)
    return _run(P, names, by, refine, with_method)


def _run(P: Pair, names, enclose, refine: bool, with_method: bool):
    """Enclosures by ``names`` in order: the first that runs within its budget, or
    (``refine``) the intersection of all that run; ``(interval, names used)`` on request."""
    out, last, used = None, None, []
    for name in names:
        try:
            iv = enclose(name)
        except CapacityError as e:
            last = e
            continue
        out = iv if out is None else out.intersect(iv)
        used.append(name)
        if not refine:
            break
    if out is None:
        raise last if last is not None else CapacityError(f"no certified method for {P.describe()}")
    return (out, tuple(used)) if with_method else out
