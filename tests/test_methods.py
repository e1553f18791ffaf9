"""The one dispatcher for general pairs (exactdp.reductions.methods): names, tuples of
names, the shared knobs (tol, max_nodes, step), and agreement with the exact rationals."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from exactdp.core.errors import ParameterError
from exactdp.model.pair import Pair
from exactdp.reductions import methods, pairs
from exactdp.reductions.pairs import canonical_pair


def _minority_pair():
    # base 0^(N-2) + y with y = 111, changed user 000 -> 110 (L = 3, N = 12): small enough to enumerate
    return Pair(3, ((0, 10), (7, 1)), 0, 6)


def test_tuple_of_names_tries_in_order():
    P = Pair.from_mapping({"00": 3, "01": 1}, {"00": 3, "11": 1})
    iv, used = methods.eta(P, "1/4", lam=2, method=("kernel", "exact"), with_method=True)
    assert used == ("kernel",)
    exact = methods.eta(P, "1/4", lam=2, method="exact")
    assert exact.is_exact and iv.contains(exact.lower)
    both, used = methods.eta(P, "1/4", lam=2, method=("kernel", "exact"), refine=True, with_method=True)
    assert used == ("kernel", "exact") and both == exact


def test_chernoff_applies_to_one_minority_bases():
    P = _minority_pair()
    avail = methods.supported(P, "eta")
    assert "minority" in avail and "chernoff" in avail
    ch = methods.eta(P, "1/4", lam=2, method="chernoff")
    assert ch.lower == 0 and 0 < ch.upper <= 1
    lat = methods.eta(P, "1/4", lam=2, method="minority", step="1/16")
    assert lat.upper <= ch.upper or lat.overlaps(ch)
    ex = pairs.eta_exact(P, Fraction(1, 4), 2)
    assert ch.contains(ex) and lat.contains(ex)


def test_tol_and_max_nodes_reach_the_kernel():
    P = pairs.canonical_pair(300, 3)
    coarse = methods.eta(P, "1/4", lam=2, method="kernel", tol=1e-6)
    fine = methods.eta(P, "1/4", lam=2, method="kernel", tol=1e-24)
    assert fine.width < coarse.width and coarse.contains(fine.lower) and coarse.contains(fine.upper)
    from exactdp.core.errors import CapacityError
    with pytest.raises(CapacityError):
        methods.eta(P, "1/4", lam=2, method="kernel", tol=1e-24, max_nodes=2)


@pytest.mark.parametrize("kw, word", [
    ({"method": ()}, "method"), ({"method": ("exact", "nope")}, "method"),
    ({"tol": 0}, "tol"), ({"tol": 2.0}, "tol"), ({"step": "-1/4"}, "step"),
])
def test_bad_options_name_the_parameter(kw, word):
    P = Pair.from_mapping({"00": 3, "01": 1}, {"00": 3, "11": 1})
    with pytest.raises(ParameterError, match=word):
        methods.eta(P, "1/4", lam=2, **kw)


def test_delta_exact_encloses_over_eps_ball():
    P = Pair.from_mapping({"00": 3, "01": 1}, {"00": 3, "11": 1})
    iv = methods.delta(P, "1/4", eps=Fraction(1, 2))
    assert not iv.is_exact and iv.width < Fraction(1, 10**20)
    lo = pairs.delta_exact(P, Fraction(1, 4), Fraction(165, 100))    # e^0.5 = 1.6487... < 1.65
    hi = pairs.delta_exact(P, Fraction(1, 4), Fraction(164, 100))
    assert lo <= iv.lower <= iv.upper <= hi


def _fake_kfourier(monkeypatch, widths, *, fail_at=(), hints=None, fines=None, heavier=None,
                   seconds=None):
    """kfourier_details replaced by certified-looking enclosures of eta = 1/10 whose width is
    ``widths(tol)`` (``heavier(tol)`` for a pass with a light level enumerated as heavy, when
    given); records the tolerances asked (and in ``hints`` the pilot's shift and light
    levels each pass was given, in ``fines`` its ``fine``).  ``seconds(tol)``: each pass takes
    that long on a fake clock starting at 0 (``methods.time``)."""
    from exactdp.core.errors import PrecisionError
    from exactdp.core.interval import Interval
    from exactdp.reductions import kfourier
    asked, now = [], [0.0]
    if seconds is not None:
        from types import SimpleNamespace
        monkeypatch.setattr(methods, "time", SimpleNamespace(monotonic=lambda: now[0]))

    def fake(P, q, lam, *, eps=None, tol, alpha=None, extra_light=None, fine=None, progress=None,
             deadline=None):
        asked.append(tol)
        if seconds is not None:
            now[0] += seconds(tol)
        if hints is not None:
            hints.append((alpha, extra_light))
        if fines is not None:
            fines.append(fine)
        if len(asked) in fail_at:
            raise PrecisionError("cannot certify")
        wf = heavier if heavier is not None and extra_light is not None and extra_light < 0 else widths
        w = Fraction(wf(tol)).limit_denominator(10 ** 15)
        iv = Interval(Fraction(1, 10) - w / 2, Fraction(1, 10) + w / 2)
        return kfourier.KFourier(iv, (), 1, 1, 0.0, 0.0, 0.25 if alpha is None else alpha,
                                 0 if extra_light is None else extra_light,
                                 bool(fine))

    monkeypatch.setattr(kfourier, "kfourier_details", fake)
    return asked


_K16 = canonical_pair(10**7, 40, 16)


def test_kfourier_passes_reuse_the_first_pass_plan(monkeypatch):
    # the first pass runs the pilot walk (no hint); every later one is given its alpha and
    # extra_light, so no pilot walk and no retry is repeated (the step to a heavier walk at the
    # floor off: its own test)
    from exactdp.reductions.kfourier import settings as kf_settings
    monkeypatch.setattr(kf_settings, "HEAVIER_NODES", 0)
    hints = []
    _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), hints=hints)
    methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    assert len(hints) >= 3
    assert hints[0] == (None, None) and all(h == (0.25, 0) for h in hints[1:])


def test_kfourier_passes_coarse_first_then_aimed(monkeypatch):
    # width = 10 tol: the first pass is coarse, the second aimed at KFOURIER_AIM of the width
    # asked (1e-3 of 0.1), and it ends there; more passes would mean the aim is ignored
    asked = _fake_kfourier(monkeypatch, lambda t: 10 * t)
    iv = methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 3)
    assert asked[0] == methods.KFOURIER_TOL0 and len(asked) == 2
    assert asked[1] < methods.KFOURIER_TOL0 / methods.KFOURIER_SHRINK
    assert float(iv.width) <= 1e-3 * float(iv.upper)


def test_kfourier_passes_coarse_pass_first_under_a_budget(monkeypatch):
    # with a deadline, from kfourier.settings.COARSE_FROM_K on: one pass at KFOURIER_TOL0_COARSE, then
    # KFOURIER_TOL0 (the usual sequence), and the shift is taken from the first fine pass only;
    # without a deadline, or below that k, the passes start at KFOURIER_TOL0 as before
    import time
    from exactdp.reductions.kfourier import settings as kf_settings
    P32 = canonical_pair(10**7, 40, kf_settings.COARSE_FROM_K)
    far = time.monotonic() + 3600
    hints = []
    asked = _fake_kfourier(monkeypatch, lambda t: 10 * t, hints=hints)
    iv = methods._kfourier_passes(P32, Fraction(1, 3), 2, None, False, 3, deadline=far)
    assert asked[:2] == [methods.KFOURIER_TOL0_COARSE, methods.KFOURIER_TOL0] and len(asked) == 3
    assert hints[:2] == [(None, None), (None, None)] and hints[2] == (0.25, 0)
    assert float(iv.width) <= 1e-3 * float(iv.upper)
    # a width asked (one digit) that a tol above KFOURIER_TOL0 meets by the coarse pass's width
    # per tol: that tol, not KFOURIER_TOL0
    asked = _fake_kfourier(monkeypatch, lambda t: 2 * t)
    methods._kfourier_passes(P32, Fraction(1, 3), 2, None, False, 1, deadline=far)
    assert len(asked) == 2 and methods.KFOURIER_TOL0 < asked[1] < methods.KFOURIER_TOL0_COARSE
    for P, dl in ((P32, None), (_K16, far)):
        asked = _fake_kfourier(monkeypatch, lambda t: 10 * t)
        methods._kfourier_passes(P, Fraction(1, 3), 2, None, False, 3, deadline=dl)
        assert asked[0] == methods.KFOURIER_TOL0


def test_kfourier_passes_go_on_after_a_coarse_lower_tail(monkeypatch):
    # the lower-tail product bound B >= P[R <= lam] is taken alone at tol when B <= LOWER_TAIL_ACCEPT
    # tol: at the coarse pass that does not end the passes unless a pass at KFOURIER_TOL0 would
    # take it too; else the next is the walk at the coarsest tol that does not take it (at most
    # KFOURIER_SHRINK times finer), whose time and width then lead the passes
    import time
    from exactdp.core.interval import Interval
    from exactdp.reductions import kfourier
    from exactdp.reductions.kfourier import settings as kf_settings
    P32 = canonical_pair(10**7, 40, kf_settings.COARSE_FROM_K)
    acc = kf_settings.LOWER_TAIL_ACCEPT

    def passes(B):
        asked = []

        def with_tail(P, q, lam, *, eps=None, tol, progress=None, deadline=None, **kw):
            if B <= acc * tol:
                return kfourier.KFourier(Interval(1 - Fraction(B), Fraction(1)), (), 0, 0, 0.0, 0.0,
                                         method="lower tail")
            asked.append(tol)                  # a walk: eta = 0.999 +- 5 tol
            w = 5 * Fraction(tol).limit_denominator(10**15)
            return kfourier.KFourier(Interval(Fraction(999, 1000) - w, min(Fraction(999, 1000) + w, Fraction(1))),
                                     (), 1, 1, 0.0, 0.0, 0.25, 0)
        monkeypatch.setattr(kfourier, "kfourier_details", with_tail)
        methods._kfourier_passes(P32, Fraction(1, 3), 2, None, False, 4, deadline=time.monotonic() + 3600)
        return asked
    c = methods.KFOURIER_TOL0_COARSE
    assert passes(acc * methods.KFOURIER_TOL0 * 0.9) == []             # final, as at KFOURIER_TOL0
    assert passes(0.12)[0] == pytest.approx(c / methods.KFOURIER_SHRINK)  # k = 64, q = 0.30
    assert passes(0.05)[0] == pytest.approx(0.05 / (1.01 * acc))
    assert passes(acc * c * 1.5)[:2] == [c, methods.KFOURIER_TOL0]      # not taken: walks


def test_kfourier_passes_fit_the_next_pass_in_the_budget_left(monkeypatch):
    # a pass at tol t takes 100 (1e-2 / t)^COST_EXPONENT s of a fake clock: after the
    # coarse pass (100 s) with 400 s left the next tol is the one predicted to take 200 s, not
    # KFOURIER_TOL0 (whose pass would be cut short); with ample time left, KFOURIER_TOL0
    from exactdp.reductions.kfourier import settings as kf_settings
    P32 = canonical_pair(10**7, 40, kf_settings.COARSE_FROM_K)
    for left, second in ((500.0, 1e-2 * (2.0 ** (-1 / kf_settings.COST_EXPONENT))),
                         (1e6, methods.KFOURIER_TOL0)):
        asked = _fake_kfourier(monkeypatch, lambda t: 10 * t,
                               seconds=lambda t: 100 * (1e-2 / t) ** kf_settings.COST_EXPONENT)
        methods._kfourier_passes(P32, Fraction(1, 3), 2, None, False, 3, deadline=left)
        assert asked[0] == methods.KFOURIER_TOL0_COARSE and asked[1] == pytest.approx(second)


def test_kfourier_passes_predict_by_the_growth_they_measured(monkeypatch):
    # passes whose time grows as tol^-0.25 (k = 128, q = 0.36: 184 s at 1.9e-4, 242 s at 6.5e-5):
    # after the coarse pass (1 s), one at KFOURIER_TOL0 (100 s) and one 3x finer (132 s) with
    # 200 s left, COST_EXPONENT's 0.5 predicts the next, 3x finer again, at 228 s and does not
    # start it; the growth the last two passes measured (0.25) predicts 173 s, and it is started.
    # Passes growing as assumed (0.5) still stop there.  Width 10 tol: eta = 1/10 to 3 digits
    # only from tol 1e-5 on
    from types import SimpleNamespace
    from exactdp.reductions import kfourier
    P32 = canonical_pair(10**7, 40, 32)

    def run(growth):
        now = [0.0]
        monkeypatch.setattr(methods, "time", SimpleNamespace(monotonic=lambda: now[0]))
        asked = _fake_kfourier(monkeypatch, lambda t: 10 * t)
        fake = kfourier.kfourier_details

        def timed(*a, tol, **kw):
            now[0] += 1.0 if tol > methods.KFOURIER_TOL0 else 100 * (methods.KFOURIER_TOL0 / tol) ** growth
            return fake(*a, tol=tol, **kw)
        monkeypatch.setattr(kfourier, "kfourier_details", timed)
        deadline = 1.0 + 100.0 + 100 * methods.KFOURIER_SHRINK ** growth + 200.0
        methods._kfourier_passes(P32, Fraction(1, 3), 2, None, False, 3, deadline=deadline)
        return asked
    slow, assumed = run(0.25), run(0.5)
    assert assumed[:2] == [methods.KFOURIER_TOL0_COARSE, methods.KFOURIER_TOL0] and len(assumed) == 3
    assert len(slow) == 4 and slow[3] == pytest.approx(slow[2] / methods.KFOURIER_SHRINK)


def _upper_only_passes(monkeypatch, P, q, deadline, seconds, upper):
    """The tols ``methods._kfourier_passes`` asks of fake walks on a fake clock: a walk at ``tol``
    takes ``seconds(tol)`` and returns ``[0, upper(tol)]``."""
    from types import SimpleNamespace
    from exactdp.core.interval import Interval
    from exactdp.reductions import kfourier
    now, asked = [0.0], []
    monkeypatch.setattr(methods, "time", SimpleNamespace(monotonic=lambda: now[0]))

    def fake(P, q, lam, *, eps=None, tol, progress=None, deadline=None, **kw):
        asked.append(tol)
        now[0] += seconds(tol)
        return kfourier.KFourier(Interval(Fraction(0), upper(tol)), (), 1, 0, 0.0, 0.0, 0.0, 0)
    monkeypatch.setattr(kfourier, "kfourier_details", fake)
    methods._kfourier_passes(P, q, 2, None, False, 3, deadline=deadline)
    return asked


def test_kfourier_tiny_passes_do_not_follow_the_clock(monkeypatch):
    # eta ~ 1e-400, far below every pass: each pass returns [0, 1e-3 tol].  The tols asked are the
    # same whether a pass takes 0.1 or 5 s of a 900 s budget (the budget rule's leaps followed the
    # clock: the same query printed 1.94e-291 or 3.86e-282 by load), and each is at least
    # TINY_JUMP times the last
    from exactdp.reductions.kfourier import settings as kf_settings

    def run(per_pass):
        return _upper_only_passes(
            monkeypatch, _K16, Fraction(1, 3), 900.0, lambda tol: per_pass,
            lambda tol: Fraction(tol / 1000).limit_denominator(10 ** 30) if tol > 1e-290 else Fraction(0))
    fast, slow = run(0.1), run(5.0)
    assert fast == slow and len(fast) > 3
    assert all(b >= a * kf_settings.TINY_JUMP * (1 - 1e-12) for a, b in zip(fast, fast[1:]))


def test_kfourier_pass_just_above_eta_is_held_to_the_budget(monkeypatch):
    # k = 200, q = 0.38: the coarse pass (1e-2) gave [0, 6.7e-3] in 16 s and the next, at
    # 5.7e-7 (a tiny pass's leap, not held to the budget), was cut short by a 300 s budget.  An
    # upper end above TINY_FAR tol is not far below: the next tol is the budget's (the pass
    # predicted to take half the time left), not the leap's; with the upper end far below
    # (1e-5), the leap's
    from exactdp.reductions.kfourier import settings as kf_settings

    def second(up_ratio):
        return _upper_only_passes(
            monkeypatch, canonical_pair(10**7, 40, 200), Fraction(19, 50), 300.0,
            lambda tol: 16.0 * (1e-2 / tol) ** kf_settings.COST_EXPONENT,
            lambda tol: Fraction(up_ratio * tol).limit_denominator(10 ** 30))[1]
    held = 1e-2 * ((300.0 - 16.0) / (kf_settings.BUDGET_SAFETY * 16.0)) ** (-1 / kf_settings.COST_EXPONENT)
    assert second(0.67) == pytest.approx(held)
    assert second(1e-3) < 1e-6 < held
    # k = 16, q = 0.41: tiny passes' upper ends at 0.0167 .. 0.07 of their tol are far (with
    # TINY_FAR = 1e-2 they crept down by the budget: 15 passes instead of 7)
    assert second(0.05) < 1e-6 < held


def test_kfourier_passes_stop_at_the_floor_and_keep_the_intersection(monkeypatch):
    # width never below 1e-3: two passes in a row not narrower end the search (not all
    # KFOURIER_PASSES), and the answer is the intersection (here the narrowest); the step to a
    # heavier walk at the floor off (its own test)
    from exactdp.reductions.kfourier import settings as kf_settings
    monkeypatch.setattr(kf_settings, "HEAVIER_NODES", 0)
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3))
    iv = methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    assert len(asked) < methods.KFOURIER_PASSES
    assert float(iv.width) == pytest.approx(1e-3, rel=1e-9)


def test_kfourier_passes_take_the_fine_settings_at_the_floor(monkeypatch):
    # width never below 1e-3: the first pass not narrower switches to the fine series settings
    # (the next pass at the same tol), once; the later passes keep them; from FINE_K_LIMIT on
    # (k = 128) no pass asks for them where the first pass was small enough to go heavier (one
    # node here), and they do where it was not (HEAVIER_FIRST_NODES = 0)
    from exactdp.reductions.kfourier import settings as kf_settings
    fines = []
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), fines=fines)
    methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    i = fines.index(True)
    assert i >= 2 and not any(fines[:i]) and all(fines[i:]) and asked[i] == asked[i - 1]
    fines.clear()
    _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), fines=fines)
    methods._kfourier_passes(canonical_pair(10**7, 40, 128), Fraction(1, 3), 2, None, False, 4)
    assert fines and not any(fines)
    monkeypatch.setattr(kf_settings, "HEAVIER_FIRST_NODES", 0)
    fines.clear()
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), fines=fines)
    methods._kfourier_passes(canonical_pair(10**7, 40, 200), Fraction(1, 3), 2, None, False, 4)
    i = fines.index(True)
    assert i >= 2 and not any(fines[:i]) and all(fines[i:]) and asked[i] == asked[i - 1]


def test_kfourier_passes_take_a_width_of_many_tols_for_the_floor(monkeypatch):
    # a located pass wider than FLOOR_TOLS times its tol (here 50 tol at the first pass) is at
    # the series' floor at once: the next pass takes the fine settings at the same tol, not a
    # finer default pass first (forward, k = 200, q = 0.34: 153 tol at 1e-4, then 842 s at
    # 3.3e-5 for no narrower); with the rule off (FLOOR_TOLS infinite) the second pass is finer
    from exactdp.reductions.kfourier import settings as kf_settings
    fines = []
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 5e-3), fines=fines)
    methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    assert fines[:2] == [None, True] and asked[1] == asked[0]
    monkeypatch.setattr(kf_settings, "FLOOR_TOLS", math.inf)
    fines.clear()
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 5e-3), fines=fines)
    methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    assert not fines[1] and asked[1] < asked[0]


def test_kfourier_passes_take_the_floor_under_a_budget(monkeypatch):
    # under a budget the pass after the coarse one may be coarser than KFOURIER_TOL0 (forward,
    # k = 200, q = 0.34, 1800 s: 1.9e-4, 74 tol wide): it still counts as the first pass (its
    # walk's size decides the fine settings from FINE_K_LIMIT on) and its width of many tols
    # as the floor, so the next pass takes the fine settings at its tol; the coarse pass's
    # width (10 tol here, it may be more) is never taken for the floor
    from exactdp.reductions.kfourier import settings as kf_settings
    monkeypatch.setattr(kf_settings, "HEAVIER_FIRST_NODES", 0)
    fines = []
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 0.09), fines=fines,
                           seconds=lambda t: 100 * (1e-2 / t) ** kf_settings.COST_EXPONENT)
    methods._kfourier_passes(canonical_pair(10**7, 40, 200), Fraction(1, 3), 2, None, False, 3,
                             deadline=900.0)
    assert asked[0] == methods.KFOURIER_TOL0_COARSE and asked[1] > methods.KFOURIER_TOL0
    assert fines[:3] == [None, None, True] and asked[2] == asked[1]


def test_kfourier_passes_go_heavier_at_the_fine_floor(monkeypatch):
    # width never below 1e-3, a small walk (one node): after the fine settings' floor the next
    # pass, at the same tol, enumerates one light level more (extra_light one lower, once:
    # -EXTRA_HEAVY is the end); with HEAVIER_NODES = 0 (every walk too large) none does
    from exactdp.reductions.kfourier import settings as kf_settings
    hints, fines = [], []
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), hints=hints, fines=fines)
    methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    light = [h[1] for h in hints]
    i = light.index(-kf_settings.EXTRA_HEAVY)
    assert fines[i] and asked[i] == asked[i - 1] and light[i - 1] == 0
    assert light.count(-kf_settings.EXTRA_HEAVY) == len(light) - i
    hints.clear()
    monkeypatch.setattr(kf_settings, "HEAVIER_NODES", 0)
    _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), hints=hints)
    methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    assert all(h[1] in (None, 0) for h in hints)


def test_kfourier_passes_end_where_the_heavier_walk_is_not_narrower(monkeypatch):
    # at the floor (1e-3) one light level more is enumerated; a heavier walk no narrower ends the
    # passes at once, the answer the intersection (003's reverse, k = 8, q = 0.351: 28 of 34 s
    # went to heavier walks 1e15 times wider); one narrower is taken (here it reaches the width asked)
    hints = []
    _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), hints=hints, heavier=lambda t: 5e-2)
    iv = methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    assert hints[-1][1] == -1 and [h[1] for h in hints].count(-1) == 1
    assert float(iv.width) == pytest.approx(1e-3, rel=1e-9)
    hints.clear()
    _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), hints=hints, heavier=lambda t: max(10 * t, 1e-5))
    iv = methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 4)
    assert hints[-1][1] == -1 and float(iv.width) <= 1e-5


def test_kfourier_passes_out_of_reach(monkeypatch):
    from exactdp.core.errors import CapacityError
    asked = _fake_kfourier(monkeypatch, lambda t: 10 * t, fail_at=(1,))
    with pytest.raises(CapacityError):
        methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 3)
    # a later pass out of reach: the enclosure so far
    asked = _fake_kfourier(monkeypatch, lambda t: 1e3 * t, fail_at=(2,))
    iv = methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 3)
    assert len(asked) == 2 and float(iv.width) == pytest.approx(1e3 * methods.KFOURIER_TOL0)


def _fake_tiny(monkeypatch, ends):
    """kfourier_details replaced by enclosures ``ends(tol)`` (float ends); records the tols."""
    from exactdp.core.interval import Interval
    from exactdp.reductions import kfourier
    asked = []

    def fake(P, q, lam, *, eps=None, tol, progress=None, deadline=None, **kw):
        asked.append(tol)
        lo, up = ends(tol)
        iv = Interval(Fraction(lo).limit_denominator(10**300), Fraction(up))
        return kfourier.KFourier(iv, (), 1, 1, 0.0, 0.0, 0.25, 0)
    monkeypatch.setattr(kfourier, "kfourier_details", fake)
    return asked


def test_kfourier_tiny_passes_guess_eta_at_the_upper_end_from_large_k(monkeypatch):
    # a tiny pass (its upper end below its tol) with a far lower end: below
    # kfourier.settings.TINY_UPPER_FROM_K the next tol is aimed at eta guessed from the lower end
    # (here held by TINY_JUMP), from it on at the upper end (k = 64, q = 0.40: a pass at 5.76e-15
    # gave [2.5e-29, 1.8e-17] for eta ~2.2e-21, and the lower-end guess took the next pass to
    # 2.15e-27, where the walk explodes)
    from exactdp.reductions.kfourier import settings as kf_settings

    def ends(t):
        return (2.5e-29, 1.8e-13) if t >= 1e-10 else (2e-21, 2e-21 + 10 * t)
    aim = methods.KFOURIER_AIM * 1e-3
    for k, second in ((16, methods.KFOURIER_TOL0 * kf_settings.TINY_JUMP),
                      (kf_settings.TINY_UPPER_FROM_K, aim * 1.8e-13)):
        asked = _fake_tiny(monkeypatch, ends)
        methods._kfourier_passes(canonical_pair(10**7, 40, k), Fraction(2, 5), 2, None, False, 3)
        assert asked[0] == methods.KFOURIER_TOL0 and asked[1] == pytest.approx(second)


def test_kfourier_passes_do_not_start_a_pass_the_budget_would_cut(monkeypatch):
    # a pass at tol t takes 10 (1e-4 / t)^COST_EXPONENT s of a fake clock and never looks at the
    # deadline: the passes must end before it, each next pass started only if predicted to fit
    # (before, a pass at least KFOURIER_SHRINK finer than the last was started whatever the time
    # left: k = 64, q = 0.40, 600 s, a last pass ran 227 s for nothing)
    from types import SimpleNamespace
    from exactdp.reductions.kfourier import settings as kf_settings
    now = [0.0]

    def ends(t):
        now[0] += 10 * (1e-4 / t) ** kf_settings.COST_EXPONENT
        return 0.1 - 10 * t, 0.1 + 10 * t
    asked = _fake_tiny(monkeypatch, ends)
    monkeypatch.setattr(methods, "time", SimpleNamespace(monotonic=lambda: now[0]))
    methods._kfourier_passes(_K16, Fraction(1, 3), 2, None, False, 12, deadline=100.0)
    assert len(asked) >= 2 and now[0] <= 100.0


def test_kfourier_passes_take_the_shift_from_a_pass_that_located_eta(monkeypatch):
    # passes whose ends lie more than KFOURIER_LOCATED apart do not count against
    # KFOURIER_PASSES, and a shift handed on from one of them is dropped once eta is located: the
    # next pass runs its own pilot walk and hands that on (the early pilot, at 100 tol, saw leaves
    # far above eta: k = 8, q = 0.415 stayed at a relative width of 2e-2 with it, one walk with its
    # own shift 1.8e-3)
    from exactdp.core.interval import Interval
    from exactdp.reductions import kfourier
    asked, alphas = [], []

    def fake(P, q, lam, *, eps=None, tol, progress=None, deadline=None, alpha=None, **kw):
        asked.append(tol)
        alphas.append(alpha)
        lo, up = (1e-40, 2 * tol) if tol > 1e-14 else (1e-13, 1e-13 + tol)
        iv = Interval(Fraction(lo), Fraction(up))
        return kfourier.KFourier(iv, (), 1, 1, 0.0, 0.0, 0.25, 0)
    monkeypatch.setattr(kfourier, "kfourier_details", fake)
    methods._kfourier_passes(_K16, Fraction(2, 5), 2, None, False, 3)
    first = next(i for i, t in enumerate(asked) if t <= 1e-14)
    assert first >= methods.KFOURIER_PASSES - 1            # the locating passes did not count
    assert alphas[0] is None and set(alphas[1:first + 1]) == {0.25}   # the early shift
    assert alphas[first + 1] is None and alphas[first + 2:] and set(alphas[first + 2:]) == {0.25}


def test_kfourier_passes_go_heavier_from_the_first_tol_at_large_k(monkeypatch):
    # from FINE_K_LIMIT on (no fine settings) a floor reached by passes too large to go heavier
    # (HEAVIER_NODES = 0 here) goes one level heavier at the first pass's tol where that pass was
    # small (003's reverse, k = 200, q = 0.34: [0.81, 0.915] -> 5.0e-4); not with
    # HEAVIER_FIRST_NODES = 0, nor below FINE_K_LIMIT (the fine settings' route there)
    from exactdp.reductions.kfourier import settings as kf_settings
    monkeypatch.setattr(kf_settings, "HEAVIER_NODES", 0)
    hints = []
    asked = _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), hints=hints)
    methods._kfourier_passes(canonical_pair(10**7, 40, 200), Fraction(1, 3), 2, None, False, 4)
    light = [h[1] for h in hints]
    i = light.index(-1)
    assert i >= 3 and asked[i] == asked[0] == methods.KFOURIER_TOL0 and light.count(-1) == len(light) - i
    for k, first in ((200, 0), (16, kf_settings.HEAVIER_FIRST_NODES)):
        monkeypatch.setattr(kf_settings, "HEAVIER_FIRST_NODES", first)
        hints.clear()
        _fake_kfourier(monkeypatch, lambda t: max(10 * t, 1e-3), hints=hints)
        methods._kfourier_passes(canonical_pair(10**7, 40, k), Fraction(1, 3), 2, None, False, 4)
        assert all(h[1] in (None, 0) for h in hints), (k, hints)


@pytest.mark.slow
def test_reverse_near_one_at_k_200_to_the_width_asked():
    # 003's reverse, L = 40, N = 10^7, lam = e^2, k = 200, q = 0.34: eta ~0.8697, the walk's passes
    # floored at [0.81, 0.915] (~6 s); one level heavier from the first tol: [0.86963, 0.87007] (~20 s)
    from exactdp.model.pair import reverse_canonical_pair
    iv = methods.eta(reverse_canonical_pair(10**7, 40, 200), "0.34", eps=2, digits=3)
    assert iv.relative_width() < 1e-3 and Fraction(86, 100) < iv.lower < iv.upper < Fraction(88, 100)
