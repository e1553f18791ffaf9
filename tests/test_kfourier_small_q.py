"""The small-q end of issue 20 (exactdp.reductions.kfourier): the monotonicity certificate's
margin given up where it keeps failing (the passes' tolerances: tests/test_methods.py)."""

from fractions import Fraction
from types import SimpleNamespace

import pytest
from flint import arb

import exactdp.reductions.kfourier as K
from exactdp.reductions.kfourier import laws, series, settings, walk
from exactdp.core.errors import PrecisionError
from exactdp.reductions.pairs import canonical_pair

from test_kfourier_monotone import YMAX, YMIN_LOW as YMIN, _box  # the margin fails there


def test_margin_skipped_after_repeated_failures(prec160, monkeypatch):
    """After MARGIN_TRIES failures outnumbering the passes MARGIN_RATIO times the margin is not
    tried; the point Ymin itself is still certified (and a failure there still raises)."""
    box = _box()
    calls = []
    orig = series.monotone_pieces

    def rec(b, ylo, yhi=float("inf")):
        calls.append(ylo)
        return orig(b, ylo, yhi)
    monkeypatch.setattr(laws, "monotone_pieces", rec)
    run = SimpleNamespace(regions=[], margin=[0, 0], certified={})
    walk.Walk.ensure_monotone(run, box, YMIN, YMAX)
    assert calls[0] < YMIN and calls[-1] == YMIN and run.margin == [0, 1]
    run = SimpleNamespace(regions=[], margin=[0, settings.MARGIN_TRIES], certified={})
    calls.clear()
    walk.Walk.ensure_monotone(run, box, YMIN, YMAX)
    assert calls == [YMIN] and run.margin == [0, settings.MARGIN_TRIES]
    (ylo, _, rb), = run.regions
    assert ylo == YMIN and rb is box
    # a margin that passed often enough is still tried
    run = SimpleNamespace(regions=[], margin=[settings.MARGIN_TRIES, settings.MARGIN_TRIES], certified={})
    calls.clear()
    walk.Walk.ensure_monotone(run, box, YMIN, YMAX)
    assert calls[0] < YMIN
    # skipping the margin never skips the certificate
    monkeypatch.setattr(laws, "monotone_pieces", lambda b, ylo, yhi=None: False)
    run = SimpleNamespace(regions=[], margin=[0, settings.MARGIN_TRIES], certified={})
    with pytest.raises(PrecisionError):
        walk.Walk.ensure_monotone(run, box, YMIN, YMAX)
    assert run.regions == []


def test_margin_skip_keeps_the_enclosure(monkeypatch):
    """The margin only lets neighbouring laws share a region: with it never tried the walk
    gives the same enclosure (every law certified at its own Ymin)."""
    P = canonical_pair(5000, 6, 2)
    q, lam = Fraction(1, 4), Fraction(2)
    a = K.kfourier_eta(P, q, lam, tol=1e-4)
    monkeypatch.setattr(settings, "MARGIN_TRIES", 0)
    monkeypatch.setattr(settings, "MARGIN_RATIO", -1)
    b = K.kfourier_eta(P, q, lam, tol=1e-4)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert abs(float(a.width) - float(b.width)) <= 0.05 * float(a.width) + 1e-12
