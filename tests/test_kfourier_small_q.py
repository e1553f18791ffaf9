"""The small-q end of issue 20 (exactdp.reductions.kfourier, exactdp.reductions.methods):
the monotonicity certificate's margin given up where it keeps failing, and the tolerance of
kfourier's passes chosen from the size of eta."""

from fractions import Fraction
from types import SimpleNamespace

import pytest
from flint import arb, ctx

import exactdp.reductions.kfourier as K
from exactdp.core.errors import PrecisionError
from exactdp.reductions import methods
from exactdp.reductions.pairs import canonical_pair, reverse_canonical_pair

from test_kfourier_monotone import YMAX, YMIN, _box


@pytest.fixture
def prec160():
    old = ctx.prec
    ctx.prec = 160
    yield
    ctx.prec = old


def test_margin_skipped_after_repeated_failures(prec160, monkeypatch):
    """After MARGIN_TRIES failures outnumbering the passes MARGIN_RATIO times the margin is not
    tried; the point Ymin itself is still certified (and a failure there still raises)."""
    box = _box()
    calls = []
    orig = K._monotone_pieces

    def rec(b, ylo, yhi=float("inf")):
        calls.append(ylo)
        return orig(b, ylo, yhi)
    monkeypatch.setattr(K, "_monotone_pieces", rec)
    run = SimpleNamespace(regions=[], margin=[0, 0])
    K._Run.ensure_monotone(run, box, YMIN, YMAX)
    assert calls[0] < YMIN and calls[-1] == YMIN and run.margin == [0, 1]
    run = SimpleNamespace(regions=[], margin=[0, K.MARGIN_TRIES])
    calls.clear()
    K._Run.ensure_monotone(run, box, YMIN, YMAX)
    assert calls == [YMIN] and run.margin == [0, K.MARGIN_TRIES]
    (ylo, _, rb), = run.regions
    assert ylo == YMIN and rb is box
    # a margin that passed often enough is still tried
    run = SimpleNamespace(regions=[], margin=[K.MARGIN_TRIES, K.MARGIN_TRIES])
    calls.clear()
    K._Run.ensure_monotone(run, box, YMIN, YMAX)
    assert calls[0] < YMIN
    # skipping the margin never skips the certificate
    monkeypatch.setattr(K, "_monotone_pieces", lambda b, ylo, yhi=None: False)
    run = SimpleNamespace(regions=[], margin=[0, K.MARGIN_TRIES])
    with pytest.raises(PrecisionError):
        K._Run.ensure_monotone(run, box, YMIN, YMAX)
    assert run.regions == []


def test_margin_skip_keeps_the_enclosure(monkeypatch):
    """The margin only lets neighbouring laws share a region: with it never tried the walk
    gives the same enclosure (every law certified at its own Ymin)."""
    P = canonical_pair(5000, 6, 2)
    q, lam = Fraction(1, 4), Fraction(2)
    a = K.kfourier_eta(P, q, lam, tol=1e-4)
    monkeypatch.setattr(K, "MARGIN_TRIES", 0)
    monkeypatch.setattr(K, "MARGIN_RATIO", -1)
    b = K.kfourier_eta(P, q, lam, tol=1e-4)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert abs(float(a.width) - float(b.width)) <= 0.05 * float(a.width) + 1e-12


def test_start_tolerance_follows_eta():
    """Large eta (q = 0.30, k = 16: eta ~ 0.93) starts coarser than KFOURIER_TOLS[0]; small eta
    (q = 0.351: ~0.03 at digits 3; q = 0.45: ~0) keeps the old first tolerance."""
    P = canonical_pair(10**7, 40, 16)
    t = methods._kfourier_start(P, Fraction(3, 10), None, 2, 3)
    assert methods.KFOURIER_TOLS[0] < t <= methods.KFOURIER_TOL_MAX
    assert t >= 0.9 * 1e-3 / methods.KFOURIER_WIDTH_PER_TOL * 0.85
    assert methods._kfourier_start(P, Fraction(3, 10), None, 2, 12) is None
    assert methods._kfourier_start(P, Fraction(9, 20), None, 2, 3) is None
    R = reverse_canonical_pair(10**7, 40, 16)
    assert methods._kfourier_start(R, Fraction(9, 20), None, 2, 3) is None


def test_passes_refine_from_the_last_width(monkeypatch):
    """A coarse pass that misses the width sets the next tolerance from its own width; below
    KFOURIER_TOLS[0] the fixed tolerances follow; a pass within the width stops."""
    from exactdp.core.interval import Interval
    asked = []

    def fake(P, q, lam, *, eps=None, inclusive=False, tol):
        asked.append(tol)
        w = Fraction(14) * Fraction(tol)                  # width ~ 14 tol, eta ~ 0.93
        return Interval(Fraction(93, 100) - w, Fraction(93, 100))
    monkeypatch.setattr(K, "kfourier_eta", fake)
    monkeypatch.setattr(methods, "_kfourier_start", lambda *a: 1e-4)
    P = canonical_pair(10**7, 40, 16)
    iv = methods._kfourier_passes(P, Fraction(3, 10), None, 2, False, 3)
    assert asked[0] == 1e-4 and methods.KFOURIER_TOLS[0] < asked[1] < 1e-4 and len(asked) == 2
    assert iv.width <= Fraction(1, 1000) * iv.upper
    asked.clear()
    monkeypatch.setattr(methods, "_kfourier_start", lambda *a: None)
    methods._kfourier_passes(P, Fraction(3, 10), None, 2, False, 12)
    assert asked == list(methods.KFOURIER_TOLS)
