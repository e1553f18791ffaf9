"""Float screens of the node decisions' arb checks (exactdp.reductions.kfourier, module doc
"Guesses in floats"): a screen may only skip a check that would fail; it never decides."""

import math
from fractions import Fraction

import pytest
from flint import arb

import exactdp.reductions.kfourier as K
from exactdp.reductions.kfourier import bracket, floats, integral, series, settings, walk
from exactdp.reductions.kcopies import parse_query
from exactdp.reductions.pairs import canonical_pair


def _run(k, q, *, pilot):
    red, q, lam, eps = parse_query(canonical_pair(10**5, 12, k), q, None, 2, 1e-2, "test")
    run = walk.Walk(red, q, lam, eps, 1e-2, 160, max_nodes=1000, pilot=pilot)
    if not pilot:
        return run                   # the series walk: alpha = 0
    # the Bonferroni bracket with a shift alpha != 0 (alpha w_max = 0.3)
    return walk.Walk(red, q, lam, eps, 1e-2, 160, max_nodes=1000, alpha=0.3 / float(run.wmax),
                  pilot=pilot)


def _heavy_polys(run, n_top):
    """Heavy polynomials of a few placements of the top heavy levels' outputs."""
    out = []
    for c0 in range(n_top):
        for c1 in (0, 2, 5, 9):
            p = walk._binom_poly(run.w[run.heavy[0]], c0, run.k) * walk._binom_poly(run.w[run.heavy[1]], c1, run.k)
            cf = p.coeffs()
            out.append([cf[i] if i < len(cf) else arb(0) for i in range(run.k + 1)])
    return out


@pytest.mark.parametrize("pilot", [False, True])
def test_lo_screen_skips_only_failing_checks(prec160, pilot):
    """The screen's float is at or above the log of the arb ``Lo``'s lower end (every node and
    point tried), so a skipped check would have failed; it skips checks the ``Up0`` screen lets
    through (k = 32), and the checks it keeps include passing ones.  Fails with a screen at a
    ``p_2`` outside ``[P2lo, P2hi]`` (2 P2hi: below the ball's lower end) or one that skips
    passing checks (a margin of the wrong sign)."""
    run = _run(32, "1/4", pilot=pilot)
    n, m = run.n_users - 40, run.m_users
    law, P2lo, P2hi, _, _ = run.law(n, m)
    skipped = only_lo = passed = 0
    for E in _heavy_polys(run, 12):
        scr = run._screen(E)
        lscr = run._lo_screen(scr, P2lo, P2hi)
        th = bracket.Threshold(E, run.kappa, run.k, P2lo, P2hi, run.wmax, alpha=run.alpha)
        for z in [x / 2 for x in range(-20, 21)]:
            y = law.meanf + z * law.sdf
            if not y > 0:
                continue
            v = th.lo(arb(y))
            low = v.lower()
            if low > 0:
                assert lscr.log_lo(y) >= float(arb(low).log().upper()) - 1e-15
            if lscr.below(y):
                skipped += 1
                assert not v > run.thr
                only_lo += not scr.below(y + run._alpha_p2(P2hi))
            elif v > run.thr:
                passed += 1
    assert skipped and only_lo and passed


def test_lo_screen_off_runs_every_check(monkeypatch):
    """``LO_SCREEN`` off (or ``GUESS_FLOATS`` off): no Lo screen."""
    run = _run(8, "1/4", pilot=True)
    scr = run._screen([arb(1)] * (run.k + 1))
    assert run._lo_screen(scr, arb(0), arb(0)) is not floats.NO_SCREEN
    monkeypatch.setattr(settings, "LO_SCREEN", False)
    assert run._lo_screen(scr, arb(0), arb(0)) is floats.NO_SCREEN


def test_node_poly_lower_bound(prec160):
    """:class:`NodePoly`'s ``Lo`` is at most the bracket ``sum_m A_m max(0, x^m - C(m, 2) p_2
    x^(m-2))`` at every ``x >= y`` and ``p_2 <= P2hi`` tried (fails with ``P2lo`` in place of
    ``P2hi``), inside :class:`Threshold`'s mean-value ball where that is above 0 and at or
    above its lower end; its ``Up0`` is the plain bound's."""
    run = _run(32, "1/4", pilot=False)
    k = run.k
    law, P2lo, P2hi, _, _ = run.law(run.n_users - 40, run.m_users)
    c2, fact = bracket._threshold_consts(k)[0], bracket._fact(k)
    close = 0
    for E in _heavy_polys(run, 8):
        npoly = bracket.NodePoly(E, run.kappa, k)
        th = bracket.Threshold(E, run.kappa, k, P2lo, P2hi, run.wmax)
        th0 = bracket.Threshold(E, run.kappa, k, arb(0), arb(0), arb(0))
        for z in (-6, -3, 0, 3):
            y = law.meanf + z * law.sdf
            v = npoly.lo(y, P2hi)
            for x in (y, y * 1.01):
                for p2 in (P2lo, (P2lo + P2hi) / 2, P2hi):
                    X = arb(x)
                    br = sum((E[k - m] / fact[m] * max(arb(0), X ** m - c2[m] * p2 * X ** (m - 2))
                              if m >= 2 else E[k - m] / fact[m] * X ** m for m in range(k + 1)), arb(0))
                    assert v.lower() <= (run.kappa * br).upper()
            t = th.lo(arb(y))
            # at or above the mean-value form's lower end (its ball contains the value at P2hi)
            assert v.lower() >= t.lower() - 1e-12 * abs(float(t.mid()))
            if t.lower() > 0:
                close += 1
                assert v.upper() <= t.upper() + 1e-12 * abs(float(t.mid()))
            assert npoly.up0(y).overlaps(th0.up(arb(y)))
    assert close


@pytest.mark.slow
def test_node_checks_keep_the_enclosure(monkeypatch):
    """A walk at k = 32 (41 s for the three): the polynomial checks (:class:`NodePoly`),
    the mean-value form with both float screens, and with the ``Up0`` screen only give the same
    Fractions (each check decides the same nodes); the ``Lo`` screen runs fewer arb ``Lo``s."""
    calls = [0]
    orig = bracket.Threshold.lo

    def lo(self, y):
        calls[0] += 1
        return orig(self, y)
    monkeypatch.setattr(bracket.Threshold, "lo", lo)
    out = []
    for poly, screen in ((True, True), (False, True), (False, False)):
        monkeypatch.setattr(settings, "NODE_POLY", poly)
        monkeypatch.setattr(settings, "LO_SCREEN", screen)
        calls[0] = 0
        r = K.kfourier_details(canonical_pair(10**5, 12, 32), "1/4", eps=2, tol=1e-2)
        out.append((r.eta, calls[0]))
    (a, ca), (b, cb), (c, cc) = out
    assert a == b == c and 0.5 < float(a.lower) < float(a.upper) < 0.6
    assert ca == 0 < cb < cc


def _small():
    return K.kfourier_details(canonical_pair(2 * 10**5, 12, 2), "3/10", Fraction(6, 5), tol=1e-2).eta


def test_series_points_never_decided_by_floats(monkeypatch):
    """The threshold points are certified in arb whatever the float image says: with the arb
    enclosure of every leaf made useless (a ball around 0 of radius 1e300: every check fails)
    the leaves' bounds fall to 0 and 1 and the enclosure widens on both sides; with every float
    step checked (``STEP_ALWAYS = 0``, the old order) it stays within 1e-8 of the default."""
    base = _small()
    monkeypatch.setattr(settings, "STEP_ALWAYS", 0.0)
    old = _small()
    assert base.overlaps(old) and abs(float(base.width - old.width)) < 1e-8
    monkeypatch.setattr(series.Series, "value", lambda self, y: arb(0, 1e300))
    bad = _small()
    assert bad.lower < base.lower and bad.upper > base.upper


def test_taylor_order_per_cluster(monkeypatch):
    """A cluster's order is the least whose remainder per unit mass (x^R / (R R!), x = its
    spread times U1) is below TAYLOR_REM, capped at TAYLOR_ORDER (1 for a lone item); the
    enclosure with every cluster at the full order (TAYLOR_REM = 0, the old rule) agrees to 1e-9."""
    assert integral.taylor_order(0.0) == 1
    for x in (1e-30, 1e-3, 0.5, 3.0, 10.0):
        R = integral.taylor_order(x)
        assert (R == settings.TAYLOR_ORDER
                or R * math.log(x) - math.log(R) - math.lgamma(R + 1) <= math.log(settings.TAYLOR_REM))
        assert R == 1 or (R - 1) * math.log(x) - math.log(R - 1) - math.lgamma(R) > math.log(settings.TAYLOR_REM)
    assert integral.taylor_order(1e6) == settings.TAYLOR_ORDER
    base = _small()
    monkeypatch.setattr(settings, "TAYLOR_REM", 0.0)
    assert integral.taylor_order(1e-30) == settings.TAYLOR_ORDER
    full = _small()
    assert base.overlaps(full) and abs(float(base.lower - full.lower)) < 1e-9
    assert abs(float(base.upper - full.upper)) < 1e-9


def test_both_sides_in_one_integral(monkeypatch):
    """:func:`integral.mixture_tails` of a bin's two sides in one integral (``F_0 + i F_1``)
    encloses what each side's own integral (:func:`integral.mixture_tail`) encloses: the real
    part side 0, the imaginary part side 1.  Fails with the parts swapped (checked on a second
    side of half the first one's masses, so that the two values lie apart)."""
    calls, orig = [], integral.mixture_tails

    def rec(sides, **kw):
        out = orig(sides, **kw)
        calls.append((sides, kw, out))
        return out
    monkeypatch.setattr(integral, "mixture_tails", rec)
    _small()
    two = [c for c in calls if len(c[0]) == 2]
    assert two
    for sides, kw, out in two[:4]:
        for (items, W), got in zip(sides, out):
            alone = integral.mixture_tail(items, W=W, **kw)
            assert got.overlaps(alone)
            assert float(abs(got - alone).upper()) <= 1e-3 * float(W.upper())
    # the parts not swapped: a second side of half the first one's masses (their values apart)
    sides, kw, _ = two[0]
    items, W = sides[0]
    half = [(n, m, x, P / 2) for n, m, x, P in items]
    out = orig([(items, W), (half, W / 2)], **kw)
    alone = [integral.mixture_tail(items, W=W, **kw), integral.mixture_tail(half, W=W / 2, **kw)]
    assert not alone[0].overlaps(alone[1])
    assert out[0].overlaps(alone[0]) and out[1].overlaps(alone[1])
    assert not out[0].overlaps(alone[1]) and not out[1].overlaps(alone[0])


def test_walk_leaves_the_callers_precision():
    """A :class:`walk.Walk` works at its own precision and leaves python-flint's where it was (it
    had set 160 bits for good: a later test's exact values then lay outside its 53-bit boxes)."""
    from flint import ctx
    old = ctx.prec
    run = _run(8, "1/4", pilot=False)
    assert ctx.prec == old
    run.run()
    assert ctx.prec == old and run.nodes > 0
