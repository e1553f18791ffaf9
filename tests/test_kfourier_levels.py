"""The Chernoff levels of the large-N k-copies strategy (exactdp.reductions.kfourier) and the
light law's saddle points (exactdp.engine.largen): warm starts find the same saddle point, the
bound at any point bounds the exact tail, the float screen of the level scan never changes the
level, the box sets shared on a grid of ranges hold every law's own ranges, and the float and
real-line shortcuts (the series' float ends, the integrand on the real line) match their plain forms."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from types import SimpleNamespace

import pytest
from flint import arb, ctx

from exactdp.engine.largen import LightLaw
from exactdp.reductions.kfourier import settings, walk
from exactdp.reductions.kfourier.arbs import float_hi, grid_arb
from exactdp.reductions.kfourier.laws import LightLaws
from exactdp.reductions.pairs import canonical_pair


def _law(rng):
    from test_largen import random_light_law
    return random_light_law(rng)


def _levels(rng, n, sides):
    """``(law, z, above, s)``: ``n`` random light laws, each at the levels ``s = mean +- z sd``
    of ``sides`` (``(z, above)``) that are positive."""
    for _ in range(n):
        law = _law(rng)
        for z, above in sides:
            s = law.meanf + (z if above else -z) * law.sdf
            if s > 0:
                yield law, z, above, s


def test_warm_started_saddle_points_agree():
    """From any start ``t0`` (far below, near, far above the saddle point) the saddle point is
    the cold start's to 1e-9, and there ``K'(t) = s``.  Fails when the bracket from ``t0`` is
    taken on the wrong side."""
    for law, z, above, s in _levels(random.Random(8), 40, ((4.0, True), (9.0, True), (4.0, False),
                                                        (7.5, False))):
        t = law.saddle(s, above)
        assert t is not None and t > 0
        k1, _ = law._cumulants(t if above else -t)
        assert abs(k1 - s) <= 1e-8 * abs(s) + 1e-9 * law.sdf
        for f in (1e-4, 0.3, 0.97, 1.0, 1.6, 40.0):
            tw = law.saddle(s, above, t0=f * t)
            assert tw is not None and abs(tw - t) <= 1e-9 * t, (f, tw, t)
        assert law.saddle(law.meanf - 0.5 * law.sdf, True, t0=1.0) is None   # not beyond the mean


def test_bound_at_any_point_bounds_the_exact_tail():
    """``bound_at(t, s)`` at every ``t > 0`` (not only the saddle point) bounds ``P[S >= s]``
    (``P[S <= s]`` below) of a small law enumerated exactly; the saddle point's bound is the
    least of them (where there is one).  Fails with the sign of ``t s`` flipped."""
    rng = random.Random(3)
    for _ in range(12):
        L, n = rng.randint(2, 4), rng.randint(2, 5)
        wq = [Fraction(rng.randint(1, 40), 40) for _ in range(L - 1)] + [Fraction(41, 40)]
        pq = [Fraction(rng.randint(1, 9)) for _ in range(L)]
        pq = [p / sum(pq) for p in pq]
        law = LightLaw([arb(x.numerator) / x.denominator for x in wq],
                       [([arb(p.numerator) / p.denominator for p in pq], n)], 160)
        dist = {}
        for c in itertools.product(range(L), repeat=n):
            x = sum(wq[i] for i in c)
            dist[x] = dist.get(x, 0) + math.prod(pq[i] for i in c)
        mean = float(sum(x * p for x, p in dist.items()))
        for s, above in ((mean * 1.3, True), (mean * 0.7, False)):
            exact = sum(p for x, p in dist.items() if (x >= s if above else x <= s))
            ts = law.saddle(s, above)
            best = law.bound_at(ts, s, above)[0] if ts is not None else None
            for t in (0.01, 0.3, 1.0, 3.0, 12.0):
                B, _ = law.bound_at(t, s, above)
                assert float(B.upper()) >= float(exact) * (1 - 1e-12)
                assert best is None or float(best.lower()) <= float(B.upper()) * (1 + 1e-9)


def _plain_level(law, above, levels, tol_f):
    """The level scan without warm starts or float screen: a cold Chernoff bound per level."""
    for s in levels:
        B, _ = law.chernoff(s, above)
        if float_hi(B) < tol_f:
            return s, B
    return None


@pytest.mark.parametrize("tol_f", [1e-6, 1e-12, 1e-30])
def test_first_level_is_the_plain_scans(tol_f):
    """:meth:`LightLaws.first_level` (warm starts, the arb bound only where the float one may
    pass) picks the plain scan's level, with the same bound to 1e-9.  Fails when the float
    screen's comparison is reversed or its margin dropped below the threshold."""
    rng = random.Random(11)
    for _ in range(25):
        law = _law(rng)
        for above in (True, False):
            sign = 1 if above else -1
            levels = [law.meanf + sign * z * law.sdf for z in (3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 48)]
            levels = [s for s in levels if s > 0]
            # tol_f as given, and a hair above one level's own bound (the screen's edge)
            B3 = law.chernoff(levels[min(3, len(levels) - 1)], above)[0]
            for owner in (SimpleNamespace(tol_f=tol_f), SimpleNamespace(tol_f=float_hi(B3) * (1 + 1e-8))):
                got = LightLaws.first_level(owner, law, above, levels)
                want = _plain_level(law, above, levels, owner.tol_f)
                assert (got is None) == (want is None)
                if got is not None:
                    assert got[0] == want[0]
                    assert abs(float(got[1].mid()) - float(want[1].mid())) <= 1e-9 * float(want[1].mid())


@pytest.mark.parametrize("bits", [1, 4, 16, 30])
def test_grid_arb_lies_beyond_the_end_on_the_grid(bits):
    """``grid_arb`` is exact, beyond the ball's end (above its upper end with ``up``, below its
    lower end else), within ``2^(1 - bits)`` relative of it and has at most ``bits`` significant
    bits; values within one grid step share it."""
    rng = random.Random(bits)
    for _ in range(200):
        x = arb(rng.uniform(-1, 1) * 10 ** rng.uniform(-200, 200), 10 ** rng.uniform(-250, -150))
        up, dn = grid_arb(x, bits, up=True), grid_arb(x, bits, up=False)
        assert up.rad() == 0 and dn.rad() == 0
        assert up >= x.upper() and dn <= x.lower()
        for g, e in ((up, float(x.upper())), (dn, float(x.lower()))):
            f = float(g)
            assert abs(f - e) <= 2.0 ** (2 - bits) * abs(e)
            m = abs(math.frexp(f)[0]) * 2 ** bits
            assert m == int(m)
    assert grid_arb(arb(1000.3), 4, up=True) == grid_arb(arb(1001.7), 4, up=True) == 1024
    assert grid_arb(arb(0), 8, up=True) == 0 and grid_arb(arb(7.25), 0, up=True).mid() == 7.25


def test_neighbouring_laws_share_a_box_set_holding_their_ranges(monkeypatch):
    """Light laws of neighbouring null counts get one box set (the same object, its certificates
    and matrices shared), whose ``p_2`` and ``p_3`` ranges hold each law's own Chernoff levels;
    ``BOX_GRID_BITS = 0`` gives each law its own set at its own levels.  Fails when the grid
    rounds inward (``up`` swapped) or the cache ignores the ranges."""
    with ctx.workprec(ctx.prec):
        from exactdp.reductions.kcopies import parse_query
        red = parse_query(canonical_pair(200_000, 12, 4), "3/10", Fraction(6, 5), None, 1e-4, "t")[0]
        run = walk.Walk(red, Fraction(3, 10), Fraction(6, 5), None, 1e-4, 160, max_nodes=10)
        m = 2
        ns = [run.n_users - 40 - d for d in range(20)]      # 5e-6 apart relative
        sets, levels = [], []
        for n in ns:
            _, P2lo, P2hi, (boxes, *_), _ = run.law(n, m)
            P3lo, P3hi, _ = run.power_levels(3, n, m, [(run.pl0, n), (run.pl1, m)])
            sets.append(boxes())
            levels.append((P2lo, P2hi, P3lo, P3hi))
        assert len({id(s) for s in sets}) < len(sets) / 2          # shared
        for bs, (P2lo, P2hi, P3lo, P3hi) in zip(sets, levels):
            lo2 = min(float(b.iv[2][0].lower()) for b in bs)
            hi2 = max(float(b.iv[2][1].upper()) for b in bs)
            lo3 = min(float(b.iv[3][0].lower()) for b in bs)
            hi3 = max(float(b.iv[3][1].upper()) for b in bs)
            assert lo2 <= float(P2lo.lower()) and float(P2hi.upper()) <= hi2
            assert lo3 <= float(P3lo.lower()) and float(P3hi.upper()) <= hi3
        monkeypatch.setattr(settings, "BOX_GRID_BITS", 0)
        run0 = walk.Walk(red, Fraction(3, 10), Fraction(6, 5), None, 1e-4, 160, max_nodes=10)
        own = [run0.law(n, m)[3][0]() for n in ns[:4]]
        assert len({id(s) for s in own}) == 4
        assert float(own[0][0].iv[2][0].mid()) == float(run0.law(ns[0], m)[1].mid())



def test_screened_bound_decides_as_the_plain_bound():
    """``screened_bound`` (the arb bound only where the float bound is at most ``limit`` to a
    relative 1e-6; else the trivial 1) is below a ``limit`` exactly where :meth:`chernoff`'s
    bound is, with the same bound to 1e-9 -- also with the limit a hair above or below the
    bound itself.  Fails when the screen's comparison is reversed or its margin taken inside."""
    for law, z, above, s in _levels(random.Random(17), 30, ((5.0, True), (9.0, True), (5.0, False),
                                                         (8.0, False))):
        B0 = law.chernoff(s, above)[0]
        for limit in (1e-3, 1e-12, float_hi(B0) * (1 + 1e-8), float(B0.lower()) * (1 - 1e-8)):
            B, _ = law.screened_bound(s, above, limit, t0=z / law.sdf)
            assert (float_hi(B) < limit) == (float_hi(B0) < limit), (z, above, limit)
            if float_hi(B0) < limit:
                assert abs(float(B.mid()) - float(B0.mid())) <= 1e-9 * float(B0.mid())


def _four_box_series(rng, k, pad):
    """A series enclosure (tau = 0.7) of random light and heavy weights over four boxes of
    slightly scaled weights, padded ``pad``, ``2 pad`` ..: ``(series, boxes, Y of the weights)``."""
    from exactdp.reductions.kfourier.series import Boxes, Series
    from test_kfourier import _box_for, _random_light_and_heavy
    _, ws, E = _random_light_and_heavy(rng, k)
    boxes = Boxes(_box_for([w * (1 + 0.02 * j) for w in ws], k, 0.7, pad * (j + 1)) for j in range(4))
    y0 = float(sum((((1 + arb(0.7) * w).log() / arb(0.7)) for w in ws), arb(0)))
    return Series(E, arb(1), k, boxes), boxes, y0


def _plain_ends(fl, boxes, k, y):
    """The float ends box by box (the form before the boxes were stacked into one matrix)."""
    import numpy as np
    from exactdp.reductions.kfourier.series import box_matrix
    _, offsets, _ = box_matrix(boxes, k)
    lg = np.arange(k + 1) * math.log(fl.s * y) - fl.lgam
    shg = float(lg.max())
    B = np.convolve(fl.e, np.exp(lg - shg))[:k + 1]
    U = np.zeros((k + 1, 2))
    U[:, 0] = B[::-1]
    U[:k, 1] = B[k - 1::-1]
    V, Rr = fl.Mf @ U, fl.Rf @ U[:, 0]
    ends = []
    for box, (a, b) in zip(boxes, offsets):
        w = np.array([float_hi(box.rad[i]) for i in box.vars] + [float_hi(c) for c, _ in box.pairs]
                     + ([1.0] if box.rest is not None else []))      # the majorant's remainder
        v, dv, rr = V[a:b, 0], V[a:b, 1], Rr[a:b]
        r = w @ (np.abs(v[1:]) + rr[1:]) + rr[0]
        dr = w @ (np.sign(v[1:]) * dv[1:])
        dr += w @ (fl.Rf[a + 1:b] @ U[:, 1]) + fl.Rf[a] @ U[:, 1]     # the balls' own slopes
        ends.append((v[0] - r, dv[0] - dr, v[0] + r, dv[0] + dr))
    lo = min(ends, key=lambda e: e[0])
    up = max(ends, key=lambda e: e[2])
    sc = fl.lk + shg
    return [(sc + math.log(x), y * fl.s * d / x) if x > 0 else (-math.inf, 1.0)
            for x, d in ((lo[0], lo[1]), (up[2], up[3]))]


@pytest.mark.parametrize("corners", [False, True])
@pytest.mark.parametrize("k", [3, 9, 40])
def test_float_ends_follow_the_arb_enclosure(k, corners, monkeypatch):
    """:meth:`SeriesFloat.ends` (every box at once) equals the box-by-box form to 1e-9 (the
    Taylor forms alone) and follows the arb enclosure's ends over the union of the boxes
    (:meth:`Series.value`, with or without the corner bounds; the float image of the radius is
    not the same sum, so to 1e-6), and its slopes in ``log y`` (the balls' own included) a finite
    difference of the same ends.  Fails when the radius omits the value rows' own balls, the
    boxes' weights are misplaced, or the min/max are swapped."""
    from exactdp.reductions.kfourier.floats import SeriesFloat
    monkeypatch.setattr(settings, "SERIES_CORNERS", corners)
    rng = random.Random(k)
    for _ in range(3):
        th, boxes, y0 = _four_box_series(rng, k, 0.05)
        fl = SeriesFloat(th, y0)
        for y in (0.7 * y0, y0, 1.4 * y0):
            v = th.value(arb(y))
            (llo, dlo), (lup, dup) = got = fl.ends(y)
            for (a, da), (b, db) in zip(got, _plain_ends(fl, boxes, k, y) if not corners else ()):
                # (to 1e-9: at k = 40 the majorant's lower end cancels ~100x in floats)
                assert a == pytest.approx(b, rel=1e-9, abs=1e-9) and da == pytest.approx(db, rel=1e-9)
            assert lup == pytest.approx(math.log(float(v.upper())), abs=1e-6)
            if v.lower() > 0:
                assert llo == pytest.approx(math.log(float(v.lower())), abs=1e-6)
            h = 1e-6
            (llo2, _), (lup2, _) = fl.ends(y * math.exp(h))
            assert dup == pytest.approx((lup2 - lup) / h, rel=1e-4, abs=1e-4)
            if v.lower() > 0 and math.isfinite(llo2):
                assert dlo == pytest.approx((llo2 - llo) / h, rel=1e-4, abs=1e-4)


def test_real_line_integrand_pieces():
    """At a real ``z`` the integrand's pieces in real arithmetic are the complex ones:
    :func:`integral.phi_real` contains ``sum p e^(izx)`` and the conjugate is the minus side
    (``sum p e^(-izx)``); :func:`integral.cluster_polys`' ``ev``, ``od`` give ``pp(z)``.  Fails
    with ``sin`` and ``cos`` swapped or a sign of ``ev`` / ``od`` flipped."""
    from flint import acb
    from exactdp.reductions.kfourier.integral import cluster_polys, phi_real
    rng = random.Random(4)
    i = acb(0, 1)
    with ctx.workprec(160):
        _real_line_cases(rng, i, cluster_polys, phi_real)


def _real_line_cases(rng, i, cluster_polys, phi_real):
    from flint import acb
    for _ in range(20):
        xs = [arb(rng.uniform(-3, 3)) for _ in range(rng.randint(1, 12))]
        ps = [arb(rng.random()) for _ in xs]
        z = arb(rng.uniform(0.01, 20))
        plus = sum((p * (i * z * x).exp() for p, x in zip(ps, xs)), acb(0))
        minus = sum((p * (-i * z * x).exp() for p, x in zip(ps, xs)), acb(0))
        got = phi_real(z, xs, ps)
        assert (got - plus).contains(0) and (got.conjugate() - minus).contains(0)
        assert float(abs(got - plus).upper()) < 1e-35
        mu = [arb(rng.uniform(-1, 1)) for _ in range(rng.randint(2, 30))]
        pp, pm, (ev, od) = cluster_polys(mu)
        want = sum((m_ * (-i * z) ** r for r, m_ in enumerate(mu)), acb(0))
        got = acb(ev(z * z), z * od(z * z))
        assert (got - want).contains(0) and (pp(acb(z)) - want).contains(0)
        assert float(abs(got - want).upper()) <= 1e-35 * max(1.0, float(abs(want).upper()))


@pytest.mark.parametrize("k", [3, 9, 40])
def test_step_screens_match_the_float_ends(k):
    """After a float root, :class:`FloatGuesses`' step screens (``clears_lo`` / ``clears_up``
    at ``x (1 +- dlt)``), which skip the float ends where the linear image from the root's last
    Newton point falls short of the cushion, answer as the float ends themselves would.  Fails
    when the linear image's sign is flipped or its margin widened to several cushions."""
    from exactdp.reductions.kfourier.floats import FloatGuesses
    rng = random.Random(100 + k)
    skipped = 0
    for _ in range(4):
        th, _, y0 = _four_box_series(rng, k, 0.01)
        thr = arb(th.value(arb(y0 * rng.uniform(0.9, 1.1))).mid())
        g = FloatGuesses(th, y0, thr, 0.5 * y0)
        for which, sign, screen in ((0, 1, g.clears_lo), (1, -1, g.clears_up)):
            x = g.root_lo() if which == 0 else g.root_up()
            for dlt in settings.STEPS:
                if dlt >= settings.STEP_ALWAYS:
                    break
                y = x * (1 + sign * dlt)
                plain = g.fl.ends(y)[which][0]
                want = (plain > g.lthr + settings.GUESS_CUSHION if which == 0
                        else plain < g.lthr - settings.GUESS_CUSHION)
                skipped += y not in g.cache and not screen(y) and y not in g.cache
                assert screen(y) == want, (k, which, dlt)
    assert skipped > 0                     # the screen did skip some evaluations
