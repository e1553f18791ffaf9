"""The time budget of the large-N k-copies strategy (``deadline``; walk module doc, "The time
budget"): a walk cut short stays certified -- its enclosure holds the full walk's -- and the
command line's ``--max-seconds`` ends a ``--k`` query with the enclosure reached."""

import json
import time
from fractions import Fraction as F

import pytest

from exactdp.apps.cli import main
from exactdp.apps.kflag import k_epsilon
from exactdp.core.errors import DigitsNotMetError, ParameterError
from exactdp.reductions.kfourier import kfourier_details
from exactdp.reductions.kfourier import walk as walk_mod
from exactdp.reductions.pairs import canonical_pair, reverse_canonical_pair

CASE = (reverse_canonical_pair(5000, 5, 2), "1/5", F(11, 10))


class _Clock:
    """A stand-in for the walk's ``time`` module: ``monotonic()`` counts its calls, so a deadline
    of ``c`` falls after the ``c``-th look at the clock (deterministic cut points)."""

    def __init__(self):
        self.calls = 0

    def monotonic(self):
        self.calls += 1
        return float(self.calls)


@pytest.fixture(scope="module")
def full():
    P, q, lam = CASE
    return kfourier_details(P, q, lam, tol=1e-6)


@pytest.mark.parametrize("cut", list(range(1, 25)) + [10**9])
def test_a_walk_cut_short_holds_the_full_enclosure(monkeypatch, full, cut):
    # alpha and extra_light as the full run's: the same walk up to the cut, so every node
    # dropped (mass to the upper end) or pending integral skipped only widens the enclosure;
    # the cuts run through the heavy nodes and the integrals' bins (C looks at the clock)
    P, q, lam = CASE
    kw = dict(tol=1e-6, alpha=full.alpha, extra_light=full.extra_light)
    clock = _Clock()
    monkeypatch.setattr(walk_mod, "time", clock)
    assert kfourier_details(P, q, lam, deadline=1e18, **kw).eta == full.eta
    C = clock.calls
    monkeypatch.setattr(walk_mod, "time", _Clock())
    r = kfourier_details(P, q, lam, deadline=float(cut), **kw)
    assert r.eta.lower <= full.eta.lower and full.eta.upper <= r.eta.upper
    assert r.stopped == (cut < C)
    if not r.stopped:
        assert r.eta == full.eta
    elif cut < C // 2:
        assert r.eta.width > 10 * full.eta.width


def test_past_the_deadline_the_walk_answers_at_once():
    t0 = time.monotonic()
    r = kfourier_details(canonical_pair(10**7, 40, 16), "0.36", eps=2, tol=1e-4, deadline=t0)
    assert r.stopped and (r.eta.lower, r.eta.upper) == (0, 1)
    assert time.monotonic() - t0 < 30
    with pytest.raises(ParameterError, match="deadline"):
        kfourier_details(canonical_pair(10**7, 40, 16), "0.36", eps=2, deadline=float("nan"))


def test_max_seconds_ends_a_k_query_with_the_enclosure_reached(capsys):
    argv = ["eta", "--k", "16", "-N", "10000000", "-L", "40", "-q", "0.36", "--eps", "2",
            "--max-seconds", "0.001"]
    assert main(argv) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("eta in [0, 1]") and "time budget (--max-seconds 0.001) ran out" in out
    assert main(argv + ["--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["stopped"] == 0.001 and rec["certified"] is True and rec["wider_than_asked"] == 6


@pytest.mark.slow
def test_a_budget_with_room_to_finish_adds_no_note(capsys):
    assert main(["eta", "--k", "16", "-N", "10000000", "-L", "40", "-q", "0.40", "--eps", "2",
                 "--max-seconds", "600", "--digits", "2"]) == 0
    assert "time budget" not in capsys.readouterr().out


#: nine digits at k = 2 end before the budget (the enclosure's floor, or a next pass predicted to
#: outlast the budget: kfourier.pass_out_of_time)
NINE_DIGITS = ["eta", "--k", "2", "-N", "10000000", "-L", "40", "-q", "0.36", "--eps", "2",
               "--max-seconds", "60", "--digits", "9"]


def test_a_k_query_wider_than_asked_says_so_within_the_budget(capsys):
    # said, without blaming the clock
    assert main(NINE_DIGITS) == 0
    out = capsys.readouterr().out.strip()
    assert out.endswith("certified; wider than 9 digits: a finer pass would not fit in the time "
                        "budget or is out of reach)") and "ran out" not in out


@pytest.mark.slow
def test_a_k_query_wider_than_asked_says_so_in_json(capsys):
    argv = NINE_DIGITS
    assert main(argv + ["--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["wider_than_asked"] == 9 and "stopped" not in rec
    lo, up = F(rec["eta"]["lower"]), F(rec["eta"]["upper"])
    assert (up - lo) * 10**9 > up
    # delta's width asked is kflag.DELTA_REL, not --digits (which only rounds what is printed)
    assert main(["delta", "--k", "2", "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2",
                 "--digits", "9", "--json"]) == 0
    assert "wider_than_asked" not in json.loads(capsys.readouterr().out)


def test_the_secant_route_reports_the_bracket_reached():
    with pytest.raises(DigitsNotMetError, match="time budget") as e:
        k_epsilon(10**7, 40, "0.36", 16, eta="0.01", deadline=time.monotonic())
    assert e.value.reached.lower <= e.value.reached.upper


def test_a_budget_starts_the_delta_passes_coarse(monkeypatch):
    """With a deadline, from settings.COARSE_FROM_K on, the difference route's first pass is at
    DELTA_TOL0_COARSE (a budget too short for a fine pass still gets a two-sided delta), the
    next at DELTA_TOL0; without a deadline, or below that k, the passes start at DELTA_TOL0."""
    from types import SimpleNamespace
    from exactdp.core.interval import Interval
    from exactdp.reductions.kfourier import api, settings
    asked = []

    def fake(red, q, lam, eps, tol, *, prec, max_nodes, changed=None, upper=None, fine=None,
             deadline=None):
        asked.append(tol)
        c, w = (F(1, 10) if changed is None else F(1, 100)), 10 * F(tol).limit_denominator(10**12)
        return SimpleNamespace(eta=Interval(c - w, c + w), stopped=False)
    monkeypatch.setattr(api, "_details", fake)
    far = time.monotonic() + 3600
    P = canonical_pair(10**7, 40, settings.COARSE_FROM_K)
    r = api.kfourier_delta_details(P, "0.351", eps=2, deadline=far)
    tols = asked[::2]
    assert tols[:2] == [settings.DELTA_TOL0_COARSE, settings.DELTA_TOL0]
    assert r.passes == len(tols) <= settings.DELTA_PASSES + 1
    for Q, dl in ((P, None), (canonical_pair(10**7, 40, settings.COARSE_FROM_K - 1), far)):
        asked.clear()
        api.kfourier_delta_details(Q, "0.351", eps=2, deadline=dl)
        assert asked[0] == settings.DELTA_TOL0


def test_the_delta_passes_fit_the_next_pass_in_the_budget_left(monkeypatch):
    """A pass at tol t takes 100 (1e-3 / t)^COST_EXPONENT s of a fake clock: after the coarse
    pass with 400 s left the next pass is the one predicted to take 200 s (budget_tol), not
    DELTA_TOL0's (which the budget would cut short), and none is started that would outlast it."""
    from types import SimpleNamespace
    from exactdp.core.interval import Interval
    from exactdp.reductions.kfourier import api, settings
    now, asked = [0.0], []

    def fake(red, q, lam, eps, tol, *, prec, max_nodes, changed=None, upper=None, fine=None,
             deadline=None):
        now[0] += 50 * (1e-3 / tol) ** settings.COST_EXPONENT      # two etas per pass
        asked.append(tol)
        c, w = (F(1, 10) if changed is None else F(1, 100)), 10 * F(tol).limit_denominator(10**12)
        return SimpleNamespace(eta=Interval(c - w, c + w), stopped=False)
    monkeypatch.setattr(api, "_details", fake)
    monkeypatch.setattr(api, "time", SimpleNamespace(monotonic=lambda: now[0], time=lambda: now[0]))
    api.kfourier_delta_details(canonical_pair(10**7, 40, settings.COARSE_FROM_K), "0.351", eps=2,
                               deadline=500.0)
    tols = asked[::2]
    assert tols[0] == settings.DELTA_TOL0_COARSE
    assert tols[1] == pytest.approx(1e-3 * 2.0 ** (-1 / settings.COST_EXPONENT))
    assert now[0] <= 500.0          # no pass started that the budget would cut (pass_out_of_time)
