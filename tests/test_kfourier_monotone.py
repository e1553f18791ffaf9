"""The series enclosure's monotonicity certificate (exactdp.reductions.kfourier, module doc:
"Monotonicity in Y"): certified at a point at or below the law's Ymin."""

from types import SimpleNamespace

import pytest
from flint import arb, ctx

import exactdp.reductions.kfourier as K
from exactdp.reductions.kfourier import series, settings, walk
from exactdp.core.errors import PrecisionError

# a light law of 000's pair at L = 40, N = 10^7, k = 16, q = 0.30 (EXTRA_LIGHT = 0): the
# power-sum box, w_max and tau of the leaf where the check with its margin below Ymin failed
BOX = {2: (0.0013512557859031468, 0.0017066919176270583), 3: (8.391579029954462e-07, 7.685997580566271e-06),
       4: (0.0, 3.7085900217773785e-08), 5: (0.0, 1.789441097976468e-10), 6: (0.0, 8.63427724370727e-13),
       7: (0.0, 4.166146826822326e-15), 8: (0.0, 2.010217982668034e-17)}
WMAX, TAU, YMIN, YMAX = 0.004825125148556757, 17.84, 0.3186964354132509, 0.8220888348557132
#: a lower Ymin for the same box, where the region's margin fails (and the box itself passes) with
#: the check at the box's corner, as at YMIN with the Taylor form before it
YMIN_LOW = 0.262


def _box():
    iv = {i: (arb(a), arb(b)) for i, (a, b) in BOX.items()}
    return series.Box(16, arb(TAU), iv, arb(WMAX), iv[2][1], iv[3][1])


def test_monotone_at_ymin_when_the_margin_fails():
    old = ctx.prec
    ctx.prec = 160
    try:
        box = _box()
        # at the law's own Ymin the region's margin (a box 25 % wider, a point below Ymin) is
        # certified since the check at the box's corner (session 12); with the Taylor form it failed
        run = SimpleNamespace(regions=[], margin=[0, 0], certified={})
        assert walk.Walk.ensure_monotone(run, box, YMIN, YMAX) is None
        (ylo, yhi, rb), = run.regions
        assert ylo < YMIN and rb is not box and run.margin == [1, 0]
        # a law reaching lower: below its Ymin (where the margin puts the point) the wider box
        # fails, at Ymin the box itself passes
        ymin = YMIN_LOW
        assert not series.monotone_pieces(box.enlarged(0.25), 0.26)
        assert series.monotone_pieces(box, ymin)
        run = SimpleNamespace(regions=[], margin=[0, 0], certified={})
        assert walk.Walk.ensure_monotone(run, box, ymin, YMAX) is None
        (ylo, yhi, rb), = run.regions
        assert ylo == ymin and rb is box and run.margin == [0, 1]
        # a law reaching below the certified point is checked anew (and fails here)
        with pytest.raises(PrecisionError):
            walk.Walk.ensure_monotone(run, box, 0.2, YMAX)
    finally:
        ctx.prec = old


def test_walk_retried_with_the_extra_light_level_heavy(monkeypatch):
    """Where the certificate fails with EXTRA_LIGHT's level light, the walk is run again with
    it heavy (the same enclosure as a walk asked with ``EXTRA_LIGHT = 0``); where it fails
    without it too, with the top light level heavy (``extra_light = -1``, EXTRA_HEAVY); where
    it fails with no level left to move, the error stands."""
    from fractions import Fraction
    from exactdp.reductions.pairs import canonical_pair
    P = canonical_pair(5000, 6, 2)
    q, lam = Fraction(1, 4), Fraction(2)
    orig = walk.Walk.ensure_monotone
    seen = []

    def flaky(self, box, ymin, ymax):
        seen.append(self.extra_light)
        if self.extra_light:
            raise series.NotMonotone("kfourier: cannot certify that R increases with the light statistic")
        return orig(self, box, ymin, ymax)
    monkeypatch.setattr(walk.Walk, "ensure_monotone", flaky)
    got = K.kfourier_eta(P, q, lam, tol=1e-4)
    assert seen[0] == 1 and seen[-1] == 0
    monkeypatch.setattr(walk.Walk, "ensure_monotone", orig)
    monkeypatch.setattr(settings, "EXTRA_LIGHT", 0)
    assert got == K.kfourier_eta(P, q, lam, tol=1e-4)

    # failing without the extra light level too: the top light level goes heavy (EXTRA_HEAVY)
    seen.clear()

    def flakier(self, box, ymin, ymax):
        seen.append(self.extra_light)
        if self.extra_light >= 0:
            raise series.NotMonotone("kfourier: cannot certify that R increases with the light statistic")
        return orig(self, box, ymin, ymax)
    monkeypatch.setattr(walk.Walk, "ensure_monotone", flakier)
    monkeypatch.setattr(settings, "EXTRA_LIGHT", 1)
    more = K.kfourier_details(P, q, lam, tol=1e-4)
    assert seen[0] == 1 and 0 in seen and seen[-1] == -1 and more.extra_light == -1
    monkeypatch.setattr(walk.Walk, "ensure_monotone", orig)
    zero = K.kfourier_details(P, q, lam, tol=1e-4, alpha=more.alpha, extra_light=0)
    assert len(more.heavy) == len(zero.heavy) + 1
    again = K.kfourier_details(P, q, lam, tol=1e-4, alpha=more.alpha, extra_light=-1)
    assert again.eta == more.eta and again.eta.overlaps(got)

    def never(self, box, ymin, ymax):
        raise series.NotMonotone("kfourier: cannot certify that R increases with the light statistic")
    monkeypatch.setattr(walk.Walk, "ensure_monotone", never)
    with pytest.raises(PrecisionError):
        K.kfourier_eta(P, q, lam, tol=1e-4)
