"""The series enclosure's monotonicity certificate shared between laws (exactdp.reductions.kfourier.series,
module doc "Monotonicity in Y"): a region certified over a box serves exactly the boxes it contains
(power-sum intervals, the ``p_2``/``p_3`` caps of the higher power sums, and the statistic's
``tau`` and ``beta`` balls), whatever their ``beta`` ball's exactness."""

from types import SimpleNamespace

from flint import arb

from exactdp.reductions.kfourier import laws, series, settings, walk

from test_kfourier_monotone import BOX, TAU, WMAX, YMAX, YMIN_LOW as YMIN  # the margin fails there


def _box(tau=TAU, g=2, scale2=(1.0, 1.0), lo3=None, beta=None):
    iv = {i: (arb(a), arb(b)) for i, (a, b) in BOX.items()}
    iv[2] = (arb(BOX[2][0] * scale2[0]), arb(BOX[2][1] * scale2[1]))
    if lo3 is not None:
        iv[3] = (arb(lo3), iv[3][1])
    t = arb(tau)
    if beta is None:
        beta = arb(g * settings.BETA_STEP) * t * t / 3      # inexact, as LightLaws.add_bin makes it
    return series.Box(16, t, iv, arb(WMAX), iv[2][1], iv[3][1], beta=beta)


def test_region_serves_exactly_the_boxes_it_contains(prec160, monkeypatch):
    calls = []
    orig = series.monotone_pieces

    def rec(b, ylo, yhi=float("inf")):
        calls.append(b)
        return orig(b, ylo, yhi)
    monkeypatch.setattr(laws, "monotone_pieces", rec)      # the name ensure_monotone calls
    run = SimpleNamespace(regions=[], margin=[0, 0], certified={})
    box = _box()
    assert not box.beta.is_exact()
    walk.Walk.ensure_monotone(run, box, YMIN, YMAX)
    assert len(run.regions) == 1 and calls
    # the same law again, and a law whose box lies inside (its beta ball rebuilt, not ==):
    # served by the region, no new certificate
    inner = _box(scale2=(1.02, 0.98), lo3=2 * BOX[3][0])
    for b in (box, _box(), inner):
        assert run.regions[0][2].contains(b)
        n = len(calls)
        walk.Walk.ensure_monotone(run, b, YMIN, YMAX)
        assert len(calls) == n and len(run.regions) == 1
    # what the region does not contain pays its own certificate: another beta, another tau,
    # a wider p_2 or p_3 range
    outside = [_box(g=3), _box(g=0), _box(tau=TAU * 1.005, beta=box.beta), _box(scale2=(0.9, 1.0)),
               _box(scale2=(1.0, 1.05)), _box(lo3=0.5 * BOX[3][0])]
    for i, b in enumerate(outside):
        assert not run.regions[0][2].contains(b), i
        n = len(run.regions)
        walk.Walk.ensure_monotone(run, b, YMIN, YMAX)
        assert len(run.regions) == n + 1, i


def test_contained_box_is_certified(prec160):
    """The argument behind the sharing: ``D_j >= 0`` at one point over a box holds over every box
    it contains (the Taylor form's ends only move inward)."""
    box = _box()
    inner = _box(scale2=(1.02, 0.98), lo3=2 * BOX[3][0])
    assert box.contains(inner) and series.monotone_pieces(box, YMIN)
    assert series.monotone_pieces(inner, YMIN)


def test_certified_box_is_remembered_for_its_range(prec160, monkeypatch):
    """A box certified once (a shared set's box, asked by every law that shares it) is served
    from the walk's memo without scanning the regions, but only for ``Y`` ranges inside the one
    certified: a ``ymin`` below it scans and certifies again.  Fails when the memo ignores the
    range."""
    scans = []
    orig = series.Box.contains
    monkeypatch.setattr(series.Box, "contains", lambda self, b: scans.append(b) or orig(self, b))
    run = SimpleNamespace(regions=[], margin=[0, 0], certified={})
    box = _box()
    walk.Walk.ensure_monotone(run, box, YMIN, YMAX)
    n = len(scans)
    walk.Walk.ensure_monotone(run, box, YMIN * 1.01, YMAX)
    assert len(scans) == n and len(run.regions) == 1
    below = run.regions[0][0] * 0.99                 # below the certified region's start
    walk.Walk.ensure_monotone(run, box, below, YMAX)
    assert len(run.regions) == 2
    assert run.certified[box][0] <= below
