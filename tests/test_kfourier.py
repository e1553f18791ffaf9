"""The large-N k-copies strategy (exactdp.reductions.kfourier): its inequalities, the tree,
the exact law, a seeded Monte Carlo, and its place under method="auto"."""

from __future__ import annotations

import itertools
import math
import random
import sys
from fractions import Fraction
from math import comb, factorial
from types import SimpleNamespace

import numpy as np
import pytest
from flint import arb

from exactdp.core.errors import CapacityError, ParameterError
from exactdp.model.mechanism import Mechanism
from exactdp.reductions import methods
from exactdp.reductions.kcopies import kcopies, kcopies_eta
from exactdp.reductions.kfourier import api, kfourier_details, kfourier_eta, settings, walk
from exactdp.reductions.pairs import Pair, canonical_pair, reverse_canonical_pair


def _esym(ys, m):
    e = [Fraction(1)] + [Fraction(0)] * m
    for y in ys:
        for j in range(m, 0, -1):
            e[j] += e[j - 1] * y
    return e[m]


def test_bonferroni_brackets():
    """The bracket of the module doc, exhaustively on small vectors of small rationals:
    x^m - C(m,2) p2 x^(m-2) <= m! e_m <= ... + 3C(m,4) p2^2 x^(m-4) + 3C(m,3) w_max p2 x^(m-3)."""
    vals = [Fraction(1, 3), Fraction(1), Fraction(2), Fraction(7, 2)]
    checked = 0
    for n in range(1, 6):
        for ys in itertools.product(vals, repeat=n):
            x = sum(ys)
            p2 = sum(y * y for y in ys)
            wmax = max(ys)
            for m in range(2, 7):
                e = factorial(m) * _esym(ys, m)
                lo = x ** m - comb(m, 2) * p2 * x ** (m - 2)
                hi = (lo + 3 * comb(m, 4) * p2 ** 2 * x ** max(m - 4, 0)
                      + 3 * comb(m, 3) * wmax * p2 * x ** max(m - 3, 0))
                assert lo <= e <= hi, (ys, m)
                checked += 1
    assert checked > 6000


def test_bracket_is_not_trivial():
    # the lower bracket is tight to second order: it fails if the p2 term is dropped
    ys = [Fraction(1)] * 3
    assert factorial(3) * _esym(ys, 3) < sum(ys) ** 3


@pytest.mark.parametrize("fac", [canonical_pair, reverse_canonical_pair])
def test_overlaps_the_tree(fac):
    """Where both run (L = 5, N = 5000, k = 2) the enclosures overlap."""
    P = fac(5000, 5, 2)
    a = kfourier_eta(P, "1/5", Fraction(11, 10), tol=1e-6)
    b = kcopies_eta(P, "1/5", Fraction(11, 10), tol=1e-5)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert float(a.width) < 0.02


@pytest.mark.slow
def test_k1_agrees_with_the_fourier_strategy():
    """k = 1: the statistic is 000's R = S; the enclosure overlaps the large-N Fourier
    strategy's P[S > lam] (forward: N - 1 null users and the changed one)."""
    from exactdp.engine.largen import split_sums
    P = canonical_pair(10**5, 10, 1)
    a = kfourier_eta(P, "3/10", Fraction(6, 5), tol=1e-7)
    b = split_sums(Mechanism(10, "3/10"), 10**5, Fraction(6, 5), outlier=True, tol=1e-8).p_above
    assert a.lower <= b.upper and b.lower <= a.upper
    assert float(a.width) < 1e-3 and float(b.lower) > 1e-3


def _simulate_R(N, L, k, q, forward, n, seed):
    """Seeded Monte Carlo of R = kappa e_k(w) (floats; level counts multinomial)."""
    rng = np.random.default_rng(seed)
    mech = Mechanism(L, q)
    pi0 = np.array([float(x) for x in mech.pi0])
    pi1 = np.array([float(x) for x in mech.pi1])
    M = k * N
    w = np.array([float(c) for c in mech.c]) / M
    kappa = math.exp(k * math.log(M) - (math.lgamma(M + 1) - math.lgamma(k + 1) - math.lgamma(M - k + 1)))
    out = np.empty(n)
    for s in range(n):
        if forward:
            cnt = rng.multinomial(k * (N - 1), pi0) + rng.multinomial(k, pi1 / pi1.sum())
        else:
            cnt = rng.multinomial(k * N, pi0)
        poly = np.zeros(k + 1)
        poly[0] = 1.0
        for l in range(L + 1):
            c = int(cnt[l])
            if c == 0:
                continue
            j = np.arange(min(c, k) + 1)
            lg = np.array([math.lgamma(c + 1) - math.lgamma(i + 1) - math.lgamma(c - i + 1) for i in j])
            b = np.exp(lg + j * math.log(w[l]))
            poly = np.convolve(poly, b)[:k + 1]
            if len(poly) < k + 1:
                poly = np.pad(poly, (0, k + 1 - len(poly)))
        out[s] = kappa * poly[k]
    return out


@pytest.mark.parametrize("fwd", [True, False])
def test_monte_carlo_agrees(fwd):
    """A seeded Monte Carlo of R (2 * 10^5 users, L = 12, k = 2) falls within 5
    standard errors of the enclosure."""
    _agrees_with_monte_carlo(fwd, k=2, draws=3000, seed=20261125 + fwd, width=0.01)


def _agrees_with_monte_carlo(fwd, *, k, draws, seed, width):
    """kfourier's enclosure at N = 2 * 10^5, L = 12, q = 3/10, lam = 6/5 against a seeded
    Monte Carlo of R: within 5 standard errors, and narrower than ``width``."""
    N, L, q, lam = 200_000, 12, Fraction(3, 10), Fraction(6, 5)
    P = (canonical_pair if fwd else reverse_canonical_pair)(N, L, k)
    iv = kfourier_eta(P, q, lam, tol=1e-5)
    R = _simulate_R(N, L, k, q, fwd, draws, seed=seed)
    hit = np.mean(R > float(lam)) if fwd else np.mean(R < 1 / float(lam))
    se = math.sqrt(max(hit * (1 - hit), 1e-4) / len(R))
    assert float(iv.lower) - 5 * se <= hit <= float(iv.upper) + 5 * se
    assert float(iv.width) < width


def test_auto_prefers_it_at_scale():
    P = canonical_pair(10**7, 40, 4)
    assert methods.supported(P)[:2] == ("ktilt", "kfourier")       # the tilted one for far tails
    assert methods.supported(P.reverse())[:2] == ("ktilt", "kfourier")      # 003's reverse too
    assert methods.supported(canonical_pair(100, 5, 2)) == ("kcopies",)


def test_bad_input():
    with pytest.raises(ParameterError):
        kfourier_eta(Pair.from_mapping({"00": 3, "01": 1}, {"00": 3, "11": 1}), "1/4", 2)
    with pytest.raises(CapacityError):
        kfourier_eta(canonical_pair(100, 5, 2), "1/4", 2)
    with pytest.raises(ParameterError):
        kfourier_eta(canonical_pair(10**5, 5, 2), "1/4", 2, tol=2.0)


def test_details_bookkeeping():
    r = kfourier_details(reverse_canonical_pair(200_000, 12, 2), "3/10", Fraction(6, 5), tol=1e-6)
    assert r.heavy and r.heavy[0] == 12 and r.nodes > 0 and r.dropped < 1e-3
    assert r.eta.lower > 0


def _delta_mc(R, lam, forward):
    Rt = R if forward else 1 / R
    return np.maximum(0.0, 1 - float(lam) / Rt)


@pytest.mark.parametrize("fwd", [pytest.param(True, marks=pytest.mark.slow),
                                 pytest.param(False, marks=pytest.mark.slow)])
def test_delta_agrees_with_monte_carlo(fwd):
    """kfourier_delta (the difference of two etas intersected with the monotone grid of
    certified etas) contains a seeded Monte Carlo estimate of E[(1 - lam / R~)+] within 5
    standard errors, and is not trivially wide."""
    from exactdp.reductions.kfourier import kfourier_delta
    N, L, k, q, lam = 200_000, 12, 2, Fraction(3, 10), Fraction(11, 10)
    P = (canonical_pair if fwd else reverse_canonical_pair)(N, L, k)
    iv = kfourier_delta(P, q, lam, tol=1e-5, grid=8)
    R = _simulate_R(N, L, k, q, fwd, 3000, seed=4242 + fwd)
    d = _delta_mc(R, lam, fwd)
    est, se = float(d.mean()), max(float(d.std()) / math.sqrt(len(d)), 1e-5)
    assert float(iv.lower) - 5 * se <= est <= float(iv.upper) + 5 * se
    # the grid's width: at most eta(lam) / grid (telescoping), plus the etas' own widths
    eta_hi = float(kfourier_eta(P, q, lam, tol=1e-5).upper)
    assert 0 < float(iv.lower) and float(iv.width) <= 1.2 * eta_hi / 8 + 1e-4


def test_delta_grid_narrows():
    """More grid points: a narrower enclosure inside the coarser one's hull (up to the etas' width)."""
    from exactdp.reductions.kfourier.api import _grid_delta
    P = reverse_canonical_pair(5000, 5, 2)
    a = _grid_delta(P, "1/5", Fraction(11, 10), grid=2, tol=1e-5)
    b = _grid_delta(P, "1/5", Fraction(11, 10), grid=8, tol=1e-5)
    assert b.width < a.width and a.lower <= b.upper and b.lower <= a.upper


@pytest.mark.slow
def test_alpha_shift_is_valid(monkeypatch):
    """The shifted light statistic y = p1 - alpha p2 (module doc) gives an enclosure that
    overlaps the unshifted one (both are certified)."""
    P = canonical_pair(200_000, 12, 3)
    monkeypatch.setattr(settings, "ALPHA_SHIFT", False)
    a = kfourier_eta(P, "3/10", Fraction(6, 5), tol=1e-6)
    monkeypatch.setattr(settings, "ALPHA_SHIFT", True)
    b = kfourier_eta(P, "3/10", Fraction(6, 5), tol=1e-6)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert float(b.width) < 0.05 * float(b.upper)


@pytest.mark.slow
def test_taylor_clusters_match_single_items(monkeypatch):
    """The mixture's Taylor clusters (module doc) against clusters of one item each
    (radius ~ 0: the plain per-item integrand): the enclosures overlap."""
    P = canonical_pair(200_000, 12, 2)
    a = kfourier_eta(P, "3/10", Fraction(6, 5), tol=1e-6)
    monkeypatch.setattr(settings, "TAYLOR_RADIUS", 1e-12)
    monkeypatch.setattr(settings, "TAYLOR_ORDER", 2)
    b = kfourier_eta(P, "3/10", Fraction(6, 5), tol=1e-6)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert abs(float(a.lower) - float(b.lower)) < 1e-3 * float(a.upper)


@pytest.mark.slow
def test_dropped_children_bounded_in_groups(monkeypatch):
    """Undecided children too light to expand, bounded in monotone groups by Chernoff bounds
    (``Walk.bound_group``) instead of dropped whole: a narrower enclosure that overlaps the
    dropped one's and contains a finer run's (forward, L = 12, N = 2 * 10^5, k = 2)."""
    P, q, lam = canonical_pair(200_000, 12, 2), "3/10", Fraction(6, 5)
    monkeypatch.setattr(settings, "PENULT_FRACTION", 1.0)          # isolate the groups
    monkeypatch.setattr(settings, "PARTIAL_DROP", False)
    a = kfourier_eta(P, q, lam, tol=1e-4)
    fine = kfourier_eta(P, q, lam, tol=1e-6)
    monkeypatch.setattr(settings, "PARTIAL_DROP", True)
    b = kfourier_eta(P, q, lam, tol=1e-4)
    assert float(b.width) < 0.7 * float(a.width)
    assert a.lower <= b.upper and b.lower <= a.upper
    # the finer run (dropped mass ~1e-6) lies inside, up to its own width
    assert b.lower <= fine.upper and fine.lower <= b.upper
    assert float(fine.width) < 0.2 * float(b.width)


@pytest.mark.slow
def test_group_bounds_take_the_right_ends(monkeypatch):
    """``bound_group``'s order matters: the lower bound of ``f(A) = P[R > thr | A]`` comes from
    the group's first child (fewest outputs at the split level), the upper from its last.
    At tol 1e-2 (L = 12, N = 2 * 10^5, k = 2) the groups carry most of the width, the enclosure
    must contain a tol-1e-4 run's; with the two ends swapped it does not (checked: the swapped
    code gives [0.0434, 0.0449] against [0.04214, 0.04231])."""
    P, q, lam = canonical_pair(200_000, 12, 2), "3/10", Fraction(6, 5)
    monkeypatch.setattr(settings, "PENULT_FRACTION", 1.0)          # isolate the groups
    monkeypatch.setattr(settings, "GROUP_HULL", False)             # the Chernoff ends (test_hull_groups)
    fine = kfourier_eta(P, q, lam, tol=1e-4)
    calls, groups = [], []
    side, group = walk.Walk.side_bounds, walk.Walk.bound_group

    def rec_side(self, l, n, m, poly, *, lower):
        calls.append((lower, n, m))
        return side(self, l, n, m, poly, lower=lower)

    def rec_group(self, l, items, depth):
        groups.append([(n, m) for n, m, *_ in items])
        k0 = len(calls)
        out = group(self, l, items, depth)
        # this call's own two bounds come first (halves follow)
        (lo1, n1, m1), (lo2, n2, m2) = calls[k0], calls[k0 + 1]
        assert lo1 and not lo2
        assert (n1, m1) == (items[0][0], items[0][1]) and (n2, m2) == (items[-1][0], items[-1][1])
        return out
    monkeypatch.setattr(walk.Walk, "side_bounds", rec_side)
    monkeypatch.setattr(walk.Walk, "bound_group", rec_group)
    b = kfourier_eta(P, q, lam, tol=1e-2)
    assert groups and any(len(g) > 1 for g in groups)
    for g in groups:
        # ascending count A at the split level: the null outputs left decrease
        assert all(a[1] == g[0][1] and a[0] > c[0] for a, c in zip(g, g[1:]))
    assert b.lower <= fine.lower and fine.upper <= b.upper


def test_hull_groups(monkeypatch):
    """``Walk.hull_group``: an open group of the last split's children bounded child by child
    under one law pair (module doc): the lower side's Fourier items take the group's fewest null
    outputs (its last child's), the upper side's the most (its first child's), over one box set;
    narrower than the Chernoff ends (3.1e-3 -> 2.0e-3) and overlapping them (L = 12,
    N = 2 * 10^5, k = 2, tol 1e-2).  Fails with the two laws swapped."""
    P, q, lam = canonical_pair(200_000, 12, 2), "3/10", Fraction(6, 5)
    monkeypatch.setattr(settings, "HULL_SEG", 0.0)               # child by child
    monkeypatch.setattr(settings, "HULL_ITEM", 0.0)
    monkeypatch.setattr(settings, "GROUP_HULL", False)
    a = kfourier_eta(P, q, lam, tol=1e-2)
    monkeypatch.setattr(settings, "GROUP_HULL", True)
    seen, hull, points = [], walk.Walk.hull_group, walk.Walk.series_points

    def rec_hull(self, items):
        seen.append([])
        assert all(it[1] == items[0][1] and it[0] > nx[0] for it, nx in zip(items, items[1:]))
        hull(self, items)
        assert len(seen[-1]) == len(items)
        for dn, up in seen[-1]:
            assert dn[0] == items[-1][0] and up[0] == items[0][0]
            assert dn[1] == up[1] == items[0][1]

    def rec_points(self, E, boxes, ymin, ymax, y0, *, dn, up, **kw):
        if sys._getframe(1).f_code.co_name == "hull_group":
            seen[-1].append((dn, up))
        return points(self, E, boxes, ymin, ymax, y0, dn=dn, up=up, **kw)
    monkeypatch.setattr(walk.Walk, "hull_group", rec_hull)
    monkeypatch.setattr(walk.Walk, "series_points", rec_points)
    b = kfourier_eta(P, q, lam, tol=1e-2)
    assert seen and sum(map(len, seen)) > 20
    assert a.lower <= b.upper and b.lower <= a.upper
    assert float(b.width) < 0.8 * float(a.width)
    # a finer run (tol 1e-3) overlaps
    monkeypatch.setattr(walk.Walk, "hull_group", hull)
    monkeypatch.setattr(walk.Walk, "series_points", points)
    c = kfourier_eta(P, q, lam, tol=1e-3)
    assert c.lower <= b.upper and b.lower <= c.upper


@pytest.mark.parametrize("run_width", [0.0, 1e-2])
def test_hull_runs_bound_by_their_ends(monkeypatch, run_width):
    """``HULL_SEG``: a run of light children of a hull group is one item, its mass at the first
    child's lower side and the last child's upper side (``f`` nondecreasing in the count at the
    split level; :func:`walk.hull_segments`; with ``HULL_RUN_WIDTH`` the runs are also cut where
    a float estimate of ``f`` moves, :meth:`walk.Walk.hull_runs`).  That only loosens the
    child-by-child bounds: the enclosure contains theirs up to the integrals' own error.  Fails
    with the ends swapped."""
    P, q, lam = canonical_pair(200_000, 12, 2), "3/10", Fraction(6, 5)
    monkeypatch.setattr(settings, "HULL_ITEM", 0.0)
    monkeypatch.setattr(settings, "HULL_SEG", 0.0)
    # no representatives above the last split: their children carry a lower side's mass
    # without the upper's (walk.Walk.rep_group), and the runs' pairing below asks for both
    monkeypatch.setattr(settings, "GROUP_REPS", False)
    a = kfourier_eta(P, q, lam, tol=1e-2)
    monkeypatch.setattr(settings, "HULL_SEG", 1.0)
    monkeypatch.setattr(settings, "HULL_RUN_WIDTH", run_width)
    runs, hull, points = [], walk.Walk.hull_group, walk.Walk.series_points

    def rec_points(self, E, boxes, ymin, ymax, y0, *, dn, up, **kw):
        if sys._getframe(1).f_code.co_name == "hull_group" and (dn is None) != (up is None):
            runs.append((E, dn, up))
        return points(self, E, boxes, ymin, ymax, y0, dn=dn, up=up, **kw)
    monkeypatch.setattr(walk.Walk, "series_points", rec_points)
    b = kfourier_eta(P, q, lam, tol=1e-2)
    assert len(runs) >= 10
    # the lower side first (the run's first child), then the upper (its last), the same mass
    for (E1, dn, up), (E2, dn2, up2) in zip(runs[::2], runs[1::2]):
        assert up is None and dn2 is None and dn[3] is up2[3] and E1 != E2
    slack = Fraction(1, 10**6)
    assert b.lower <= a.lower + slack and a.upper - slack <= b.upper
    assert b.width < 2 * a.width


@pytest.mark.parametrize("name, coarse, fine", [("REP_OPEN", 1e-2, 1e-3),
                                                  ("HULL_RUN_WIDTH", 1e-4, 1e-5)])
def test_group_allowances_narrow_the_width(monkeypatch, name, coarse, fine):
    """The light groups' allowances (settings ``REP_OPEN``: an open group above the last split
    is bounded by representatives once it leaves ``tol * REP_OPEN`` open; ``HULL_RUN_WIDTH``:
    the last split's hull runs are cut where ``f`` moves by ``tol * HULL_RUN_WIDTH``) at a
    small scale where each is felt (``N = 10^6``, ``L = 16``, ``k = 4``, ``q = 0.3``,
    ``lam = 2``, tol 1e-2; benchmarks/RESULTS.md, session 36, measured them at ``L = 40``,
    ``N = 10^7``, ``k = 64``): the finer allowance narrows the enclosure by more than 10 %
    (measured: ``REP_OPEN`` 6.75e-4 -> 4.22e-4, ``HULL_RUN_WIDTH`` 6.75e-4 -> 5.89e-4), and
    the two enclosures of the same eta overlap.  Fails where the setting is not read."""
    P, q = canonical_pair(10**6, 16, 4), "3/10"
    monkeypatch.setattr(settings, "REP_OPEN", 1e-2)
    monkeypatch.setattr(settings, "HULL_RUN_WIDTH", 1e-4)
    a = kfourier_eta(P, q, 2, tol=1e-2)
    monkeypatch.setattr(settings, name, fine)
    b = kfourier_eta(P, q, 2, tol=1e-2)
    assert b.lower <= a.upper and a.lower <= b.upper
    assert b.width < Fraction(9, 10) * a.width


def test_fourier_counts_rounded_outward():
    """``Walk.tail`` rounds a Fourier item's null count to the grid (``N_GRID_REL``): down for
    the lower side (fewer outputs: a smaller light statistic), up for the upper (module doc)."""
    from exactdp.reductions.kcopies import parse_query
    from flint import arb, ctx
    with ctx.workprec(ctx.prec):                  # Walk sets the working precision
        red = parse_query(canonical_pair(10**7, 40, 4), "0.356", None, 2, 1e-4, "t")[0]
        assert walk.Walk(red, Fraction(356, 1000), None, 2, 1e-4, 160, max_nodes=10).n_grid == 1
        red = parse_query(canonical_pair(10**7, 40, 8), "0.356", None, 2, 1e-4, "t")[0]
        assert walk.Walk(red, Fraction(356, 1000), None, 2, 1e-4, 160, max_nodes=10).n_grid == 32
        red = parse_query(canonical_pair(10**7, 40, 16), "0.356", None, 2, 1e-4, "t")[0]
        assert walk.Walk(red, Fraction(356, 1000), None, 2, 1e-4, 160, max_nodes=10).n_grid == 32
        red = parse_query(canonical_pair(10**7, 40, 64), "0.356", None, 2, 1e-4, "t")[0]
        run = walk.Walk(red, Fraction(356, 1000), None, 2, 1e-4, 160, max_nodes=10)
        assert run.n_grid == 64
        n, m = run.n_users - 1000 - 7, 3
        law = run.law(n, m)[0]
        s = arb(law.meanf)
        run.tail(n, m, law, s, arb(1e-3), "up")
        run.tail(n, m, law, s, arb(1e-3), "dn")
    (up,), (dn,) = run.pend[0]
    assert up[0] % 64 == 0 and n < up[0] < n + 64
    assert dn[0] % 64 == 0 and n - 64 < dn[0] < n


def test_fourier_counts_of_heavy_items_on_a_finer_grid():
    """A Fourier item's grid is halved while its mass times ``g`` exceeds ``N_GRID_ITEM * tol``
    (walk module doc, "Rounded counts"): a heavy item keeps its own count, a middling one a finer
    grid, still rounded outward."""
    from exactdp.reductions.kcopies import parse_query
    from exactdp.reductions.kfourier import settings
    from flint import arb, ctx
    tol = 1e-4
    with ctx.workprec(ctx.prec):                  # Walk sets the working precision
        red = parse_query(canonical_pair(10**7, 40, 64), "0.356", None, 2, tol, "t")[0]
        run = walk.Walk(red, Fraction(356, 1000), None, 2, tol, 160, max_nodes=10)
        assert run.n_grid == 64
        n, m = run.n_users - 1000 - 7, 3
        law = run.law(n, m)[0]
        s = arb(law.meanf)
        for P in (0.5, 0.021):
            run.tail(n, m, law, s, arb(P), "up")
            run.tail(n, m, law, s, arb(P), "dn")
    ups, dns = run.pend[0]
    assert ups[0][0] == dns[0][0] == n           # 0.5 * g > N_GRID_ITEM * tol down to g = 1
    g = 64
    while 0.021 * g > settings.N_GRID_ITEM * tol:
        g //= 2
    assert 1 < g < 64
    assert ups[1][0] % g == 0 and n < ups[1][0] < n + g
    assert dns[1][0] % g == 0 and n - g < dns[1][0] < n


@pytest.mark.slow
def test_deployment_scale_k8():
    """L = 40, N = 10^7, k = 8, q = 0.351, lambda = e^2 (000 §6.1's setting): a certified
    eta with relative width below 2 % (tol 1e-7)."""
    r = kfourier_details(canonical_pair(10**7, 40, 8), "0.351", eps=2, tol=1e-7)
    assert 0 < r.eta.lower and float(r.eta.width) < 0.02 * float(r.eta.upper)


# ------------------------------------------------------------------ the series enclosure

def _box_for(ws, k, tau, pad, nvars=None, beta=None):
    """A series box around the true power sums of ``ws`` (arb), widened by ``pad``
    (Taylor variables ``p_2 .. p_nvars``, default ``SERIES_VARS``; ``Y``'s extra ``beta p_3``)."""
    from flint import arb
    from exactdp.reductions.kfourier.arbs import float_hi
    from exactdp.reductions.kfourier.series import Box as _Box
    from exactdp.reductions.kfourier.settings import SERIES_VARS
    nvars = SERIES_VARS if nvars is None else nvars
    wmax = max(ws)
    p = {i: sum((w ** i for w in ws), arb(0)) for i in range(2, max(nvars, 3) + 2)}
    iv = {}
    for i in range(2, nvars + 1 if k >= 2 else 2):
        lo, hi = p[i] * (1 - pad), p[i] * (1 + pad) + arb(1e-30)
        # the ends as exact arbs (a float of an end rounds to nearest: at 160 bits it could
        # fall inside the true p_i and the box miss it)
        iv[i] = (lo.lower(), hi.upper())
    P2hi = iv[2][1] if 2 in iv else arb(float_hi(p[2]) * (1 + pad))
    P3hi = iv[3][1] if 3 in iv else arb(float_hi(p[3]) * (1 + pad))
    return _Box(k, arb(tau), iv, wmax, P2hi, P3hi, beta=beta)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 9])
@pytest.mark.parametrize("tau", [0.0, 0.7, 2.5])
def test_series_enclosure_contains_e_k(k, tau):
    """e_k(heavy + light) = [t^k] E_H(t) e^(tY) G(t) (module doc): the series enclosure of
    random light vectors contains the exact e_k, is narrow for a point box and still
    contains it over a padded box."""
    from flint import arb
    from exactdp.reductions.kfourier.series import Series as _Series
    rng = random.Random(1000 * k + int(10 * tau))
    for _ in range(4):
        exact, ws, E = _random_light_and_heavy(rng, k)
        Y = sum(((1 + arb(tau) * w).log() / arb(tau) if tau else w for w in ws), arb(0))
        ex = arb(exact.numerator) / exact.denominator
        # a point box: exact up to rounding (tau = 0, k <= SERIES_VARS), else up to the balls
        # of the p_i beyond the Taylor variables (k = 1 has none: only containment)
        rel0 = None if (k == 1 and tau) else (1e-12 if tau == 0 and k <= 8 else 1e-4)
        for pad, rel in ((0.0, rel0), (0.3, None)):
            th = _Series(E, arb(1), k, [_box_for(ws, k, tau, pad)])
            v = th.value(Y)
            assert v.contains(ex), (k, tau, pad)
            if rel is not None:
                assert float(v.rad()) <= rel * float(ex) + 1e-25


@pytest.mark.parametrize("k", [3, 9, 40])
@pytest.mark.parametrize("tau", [0.0, 0.7])
def test_series_corner_bounds_contain_e_k(k, tau):
    """The corner bounds (series module doc): on a box certified monotone from ``ylo`` on,
    ``[t^k] E_H e^(tY) lower <= e_k <= [t^k] E_H e^(tY) upper`` (:meth:`Box.corners`) for the
    true ``Y >= ylo`` of random light weights inside a padded box, tight for a point box at
    ``tau = 0``, ``k < 10`` (1e-6: the capped ``p_i`` beyond the Taylor variables).  Fails with the corners
    exchanged or a parity flipped."""
    from flint import arb, arb_poly
    from exactdp.reductions.kfourier.series import monotone_pieces as _monotone
    rng = random.Random(31 * k + int(10 * tau))
    checked = 0
    for _ in range(3):
        exact, ws, E = _random_light_and_heavy(rng, k)
        Y = sum(((1 + arb(tau) * w).log() / arb(tau) if tau else w for w in ws), arb(0))
        ex = arb(exact.numerator) / exact.denominator
        for pad in (0.0, 0.05, 0.3):
            box = _box_for(ws, k, tau, pad)
            ylo = float(Y.lower())
            if not _monotone(box, ylo):
                continue
            EY = [arb(1)]
            for j in range(1, k + 1):
                EY.append(EY[-1] * Y / j)
            base = arb_poly(E) * arb_poly(EY)
            lo, up = ((base * arb_poly(c)).coeffs()[k] for c in box.corners())
            assert lo.lower() <= ex.upper() and ex.lower() <= up.upper(), (k, tau, pad)
            checked += 1
            if pad == 0 and tau == 0 and k < 10:
                assert float((up - lo).upper()) <= 1e-6 * float(ex)
    assert checked >= 6


@pytest.mark.parametrize("k", [9, 40, 120])
def test_series_enclosure_contains_every_point_of_the_box(k, monkeypatch):
    """The series enclosure (with the majorant's remainder: module doc, "The remainder by a
    majorant") contains ``F(Y, p) = [t^k] E_H(t) e^(tY) G_p(t)`` at random points ``p`` of a box
    certified monotone from ``Y`` on: the Taylor variables anywhere in their ranges, the capped
    ``p_i`` anywhere in ``[0, cap_i]`` (the balls; mostly the vertices), exact series at each
    point; the Taylor form alone, without the corner bounds.  Fails with the majorant's row or
    its third order left out (k = 120)."""
    from flint import arb, arb_poly
    from exactdp.reductions.kfourier.series import Series as _Series, monotone_pieces as _monotone
    rng = random.Random(5 * k)
    tau = 0.7 if k < 100 else 0.3
    checked = 0
    for _ in range(4):
        _, ws, E = _random_light_and_heavy(rng, k)
        Y = sum(((1 + arb(tau) * w).log() / arb(tau) for w in ws), arb(0))
        for pad in (0.05, 0.3):
            box = _box_for(ws, k, tau, pad, 4)
            if not _monotone(box, float(Y.lower())):
                continue
            # the Taylor form alone (the corner bounds would hide a missing term)
            monkeypatch.setattr(settings, "SERIES_CORNERS", False)
            v = _Series(E, arb(1), k, [box]).value(Y)
            monkeypatch.setattr(settings, "SERIES_CORNERS", True)
            EY = arb_poly([arb(1)] + [Y ** j / math.factorial(j) for j in range(1, k + 1)])
            for _ in range(12):
                q = [arb(0)] * (k + 1)
                for i in range(2, k + 1):
                    # the box's vertices (the Taylor form's worst points), now and then inside
                    x = rng.choice((0.0, 1.0, 1.0, rng.random()))
                    if i in box.iv:
                        lo, hi = box.iv[i]
                        p_i = lo + (hi - lo) * x
                    else:
                        p_i = box.caps[i] * x
                    sg = 1 if i % 2 == 1 else -1
                    q[i] += sg * p_i / i
                    q[1] -= sg * p_i * arb(tau) ** (i - 1) / i
                G = arb_poly(_exp_series_ref(q, k + 1))
                F = (arb_poly(E) * EY * G).coeffs()[k]
                assert v.contains(F), (k, pad, F, v)
                checked += 1
    assert checked >= 10


def _exp_series_ref(q, n):
    """``exp(Q) mod t^n`` for ``Q(0) = 0`` by the plain recursion (a reference)."""
    from flint import arb
    g = [arb(1)] + [arb(0)] * (n - 1)
    for j in range(1, n):
        g[j] = sum((i * q[i] * g[j - i] for i in range(1, j + 1)), arb(0)) / j
    return g


def _random_light_and_heavy(rng, k):
    """Random light weights and a few heavy ones: the exact ``e_k`` of all, the light weights and
    the heavy ``e_i`` as arbs."""
    from flint import arb
    ws_q = [Fraction(rng.randint(1, 40), 400) for _ in range(rng.randint(4 * k + 4, 8 * k + 8))]
    hs_q = [Fraction(rng.randint(1, 30), 10) for _ in range(rng.randint(0, 3))]
    ws = [arb(w.numerator) / w.denominator for w in ws_q]
    E = [arb(_esym(hs_q, i).numerator) / _esym(hs_q, i).denominator for i in range(k + 1)]
    return _esym(ws_q + hs_q, k), ws, E


@pytest.mark.parametrize("k", [3, 5, 9])
@pytest.mark.parametrize("g", [-0.4, 0.25])
def test_series_enclosure_with_beta_contains_e_k(k, g):
    """``Y = sum (log(1 + tau w) / tau + beta w^3)`` (module doc, "p_3 cancelled too"): the box
    with ``beta`` (``log G`` gains ``-beta p_3 t``) contains the exact ``e_k``, tightly for a point
    box.  Fails with the sign of ``beta`` in the box flipped."""
    from flint import arb
    from exactdp.reductions.kfourier.series import Series as _Series
    rng = random.Random(77 * k + int(100 * g))
    tau = arb(1.7)
    beta = arb(g) * tau * tau / 3
    for _ in range(3):
        exact, ws, E = _random_light_and_heavy(rng, k)
        Y = sum(((1 + tau * w).log() / tau + beta * w ** 3 for w in ws), arb(0))
        ex = arb(exact.numerator) / exact.denominator
        for pad, rel in ((0.0, 1e-4), (0.3, None)):
            v = _Series(E, arb(1), k, [_box_for(ws, k, float(tau), pad, beta=beta)]).value(Y)
            assert v.contains(ex), (k, g, pad)
            if rel is not None:
                assert float(v.rad()) <= rel * float(ex) + 1e-25


def test_series_enclosure_large_k_below_double_range():
    """At k = 200 (deployment-like: ~2 * 10^4 light weights <= 1e-4, Y ~ 1) the terms
    ~ Y^j / j! lie far below 1e-300 and w_max^i underflows a double: the enclosure stays
    relative (no float floor), narrow for a point box, and contains the exact e_k."""
    from flint import arb
    from exactdp.reductions.kfourier.series import Series as _Series
    k, tau, D = 200, 100.0, 10**5
    levels = [(j, 1500 + 100 * j) for j in range(1, 11)]           # weight j / D, count n
    ex_int = [1] + [0] * k                                          # prod (1 + j t)^n, integers
    for j, n in levels:
        b = [comb(n, i) * j ** i for i in range(k + 1)]
        ex_int = [sum(ex_int[a] * b[m - a] for a in range(m + 1)) for m in range(k + 1)]
    hs_q = [Fraction(3, 10), Fraction(7, 5)]
    exact = sum(Fraction(ex_int[k - i], D ** (k - i)) * _esym(hs_q, i) for i in range(len(hs_q) + 1))
    assert 0 < exact < Fraction(1, 10**300)
    ws = [arb(j) / D for j, n in levels for _ in range(n)]
    E = [arb(_esym(hs_q, i).numerator) / _esym(hs_q, i).denominator for i in range(k + 1)]
    Y = sum((n * (1 + arb(tau) * j / D).log() / arb(tau) for j, n in levels), arb(0))
    ex = arb(exact.numerator) / exact.denominator
    for nvars in (8, 4):         # SERIES_VARS, SERIES_VARS_LARGE_K (3 gives ~1e-3 here)
        v = _Series(E, arb(1), k, [_box_for(ws, k, tau, 0.0, nvars)]).value(Y)
        assert v.contains(ex), nvars
        assert v.rad() < 1e-4 * ex, nvars
    # a box 20 % wide, certified monotone from the true Y on: every enclosure contains e_k; the
    # corner bounds narrow the ball Taylor form (relative radius 0.373 -> 0.348), and the
    # majorant's form is far narrower than both (0.110: series module doc, "The remainder by a
    # majorant")
    from exactdp.reductions.kfourier import settings as _settings
    from exactdp.reductions.kfourier.series import monotone_pieces as _monotone
    box = _box_for(ws, k, tau, 0.2, 4)
    assert _monotone(box, float(Y.lower()))
    v = _Series(E, arb(1), k, [box]).value(Y)
    _settings.SERIES_MAJORANT = False
    try:
        old = _box_for(ws, k, tau, 0.2, 4)
        vb = _Series(E, arb(1), k, [old]).value(Y)
        _settings.SERIES_CORNERS = False
        try:
            v0 = _Series(E, arb(1), k, [old]).value(Y)
        finally:
            _settings.SERIES_CORNERS = True
    finally:
        _settings.SERIES_MAJORANT = True
    assert v.contains(ex) and vb.contains(ex) and v0.contains(ex)
    assert vb.rad() < 0.95 * v0.rad()
    assert v.rad() < 0.5 * vb.rad()


def test_alpha_at_large_k():
    """The first-order cancelling alpha at k = 200 (200! overflows a double) equals the
    exact ratio sum e_(k-m) C(m,2) x^(m-2) / m! / sum e_(k-m) m x^(m-1) / m!."""
    from flint import arb
    from exactdp.reductions.kfourier.bracket import Threshold as _Threshold, alpha_at as _alpha_at
    k, x = 200, Fraction(9, 10)
    hs = [Fraction(3, 10), Fraction(7, 5), Fraction(1, 50)]
    Eq = [_esym(hs, i) for i in range(k + 1)]
    E = [arb(e.numerator) / e.denominator for e in Eq]
    th = _Threshold(E, arb(1), k, arb(0), arb(0), arb(0))
    num = sum(Eq[k - m] * comb(m, 2) * x ** (m - 2) / factorial(m) for m in range(2, k + 1))
    den = sum(Eq[k - m] * m * x ** (m - 1) / factorial(m) for m in range(1, k + 1))
    assert _alpha_at(th, k, float(x)) == pytest.approx(float(num / den), rel=1e-9)


def test_series_monotone_pieces():
    """The certified monotonicity of F in Y (module doc) holds on a realistic box and the
    check refuses a box where the light part's e_j go negative (p_2 huge against Y^2)."""
    from flint import arb
    from exactdp.reductions.kfourier.series import Box as _Box, monotone_pieces as _monotone_pieces
    k, tau = 12, 12.0
    good = _Box(k, arb(tau), {2: (arb(1e-4), arb(5e-4)), 3: (arb(0), arb(2e-6))}, arb(4e-3),
                arb(5e-4), arb(2e-6))
    assert _monotone_pieces(good, 0.9, 1.1)
    bad = _Box(k, arb(0.0), {2: (arb(0.5), arb(0.6)), 3: (arb(0), arb(0.3))}, arb(0.5),
               arb(0.6), arb(0.3))
    assert not _monotone_pieces(bad, 0.9, 1.1)


def _d_j(k, Y, tau, p):
    """``D_j(Y, p) = [t^j] e^(tY) G_p(t)``, ``j < k``, exactly (fractions): ``log G_p = sum_i
    (-1)^(i-1) p_i (t^i - tau^(i-1) t) / i`` (the series module doc)."""
    q = [Fraction(0)] * k
    q[1] = Fraction(Y)
    for i, pi in p.items():
        s = Fraction((-1) ** (i - 1), i) * pi
        if i < k:
            q[i] += s
        q[1] -= s * Fraction(tau) ** (i - 1)
    g = [Fraction(1)] + [Fraction(0)] * (k - 1)
    for j in range(1, k):
        g[j] = sum(i * q[i] * g[j - i] for i in range(1, j + 1)) / j
    return g


@pytest.mark.parametrize("tau", [Fraction(0), Fraction(1, 4)])
def test_series_monotone_one_point_suffices(tau):
    """The one-point criterion (module doc: ``D'_j(Z_0, p*) >= 0`` at the box's corner, then
    ``D_j >= 0`` for every ``Y >= ylo`` and ``p`` in the box): where it certifies, exact
    ``D_j`` (fractions) are nonnegative at random points of the box (the capped ``p_i`` too)
    on a grid of ``Y`` from ``ylo`` to ``50 ylo``; at ``Y = 0.9`` it fails, and a point of the box
    has a negative ``D_j`` there."""
    import random
    from flint import arb
    from exactdp.reductions.kfourier.series import Box as _Box, monotone_pieces as _monotone_pieces
    k = 12
    bad = _Box(k, arb(float(tau)), {2: (arb(0.5), arb(0.6)), 3: (arb(0), arb(0.3))}, arb(0.5), arb(0.6),
               arb(0.3))
    assert not _monotone_pieces(bad, 0.9)
    ylo = next(y for y in (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0) if _monotone_pieces(bad, y))
    rng = random.Random(20261128)
    caps = {i: Fraction(float(c.upper())) for i, c in bad.caps.items()}

    def point(corner=False):
        p = {2: Fraction(6, 10) if corner else Fraction(5, 10) + Fraction(rng.random()) / 10,
             3: Fraction(0) if corner else Fraction(rng.random()) * Fraction(3, 10)}
        for i in range(4, 2 * k):
            c = caps.get(i, Fraction(0))
            p[i] = (c if i % 2 == 0 else 0) if corner else c * Fraction(rng.random())
        return p
    for f in (1.0, 1.01, 1.3, 2.0, 5.0, 50.0):
        for _ in range(20):
            assert min(_d_j(k, Fraction(ylo * f), tau, point())) >= 0, (ylo, f)
    # below the certified point some D_j is negative at a point of the box (its corner)
    assert min(_d_j(k, Fraction(9, 10), tau, point(corner=True))) < 0
    if tau == 0:
        # the criterion is sharp: just below its least certified Y the corner has a D_j < 0
        a, b = 0.9, ylo
        while b - a > 1e-4 * b:
            a, b = (a, (a + b) / 2) if _monotone_pieces(bad, (a + b) / 2) else ((a + b) / 2, b)
        assert min(_d_j(k, Fraction(a), tau, point(corner=True))) < 0
        assert min(_d_j(k, Fraction(b), tau, point(corner=True))) >= 0


@pytest.mark.slow
def test_series_overlaps_bonferroni(monkeypatch):
    """Both enclosures are certified: at k = 4 they overlap, the series one is narrower."""
    P = canonical_pair(200_000, 12, 4)
    a = kfourier_eta(P, "3/10", Fraction(6, 5), tol=1e-6)
    monkeypatch.setattr(settings, "ENCLOSURE", "bonferroni")
    b = kfourier_eta(P, "3/10", Fraction(6, 5), tol=1e-6)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert a.width <= b.width


@pytest.mark.slow
@pytest.mark.parametrize("fwd", [True, False])
def test_series_monte_carlo_k8(fwd):
    """k = 8 (series enclosure, tau bins): a seeded Monte Carlo of R within 5 standard errors."""
    _agrees_with_monte_carlo(fwd, k=8, draws=2000, seed=20261126 + fwd, width=0.02)


@pytest.mark.slow
def test_deployment_reverse_k32_monte_carlo():
    """L = 40, N = 10^7, k = 32, q = 0.351, lambda = e^2, 003's reverse: the series enclosure
    (eta ~ 4.7e-4, far above the k <= 16 values ~ 1e-9) against a seeded Monte Carlo of R
    (20 000 draws; 5 standard errors)."""
    iv = kfourier_eta(reverse_canonical_pair(10**7, 40, 32), "0.351", eps=2, tol=1e-7)
    R = _simulate_R(10**7, 40, 32, Fraction("0.351"), False, 20_000, seed=7)
    hit = float(np.mean(R < math.exp(-2)))
    se = math.sqrt(max(hit * (1 - hit), 1e-4) / len(R))
    assert float(iv.lower) - 5 * se <= hit <= float(iv.upper) + 5 * se
    assert float(iv.width) < 0.05 * float(iv.upper)



@pytest.mark.slow
def test_deployment_forward_k64_moderate_eta_monte_carlo():
    """L = 40, N = 10^7, k = 64, q = 0.36, lambda = e^2, 000's direction, where eta ~ 0.03 is
    neither far tail nor near 1 (the tilt's plans are not routed there: the walk's passes, 37 s
    at --digits 2): against a seeded Monte Carlo of R under D_m (10 000 draws, ~5.5 %; 5
    standard errors)."""
    from exactdp.reductions import methods
    iv = methods.eta(canonical_pair(10**7, 40, 64), "0.36", eps=2, digits=2, method="kfourier")
    R = _simulate_R(10**7, 40, 64, Fraction("0.36"), True, 10_000, seed=20261207)
    hit = float(np.mean(R > math.exp(2)))
    se = math.sqrt(hit * (1 - hit) / len(R))
    assert hit > 10 * se and float(iv.width) < 0.01 * float(iv.upper)
    assert float(iv.lower) - 5 * se <= hit <= float(iv.upper) + 5 * se

@pytest.mark.slow
def test_fine_settings_narrow_the_floor_at_k_200():
    """L = 40, N = 10^7, k = 200, q = 0.36, lambda = e^2, 000's direction: the walk's width at
    tol 1e-4 is the light series' gap between its two threshold points (~0.0045 standard
    deviations of Y per leaf), not the heavy tree's; the fine series settings, which the passes
    now take there too (the first pass too large to go one level heavier), with p_5 and p_6 as
    Taylor variables from k = 128 (SERIES_VARS_FINE_LARGE_K), narrow it more than 2x inside the
    default enclosure (~20 s and ~40 s)."""
    P = canonical_pair(10**7, 40, 200)
    kw = dict(eps=2, tol=1e-4, alpha=98.69874777132635, extra_light=0)
    plain = kfourier_details(P, "0.36", **kw)
    fine = kfourier_details(P, "0.36", fine=True, **kw)
    assert fine.fine and not plain.fine and plain.nodes > settings.HEAVIER_FIRST_NODES
    assert plain.eta.lower <= fine.eta.lower <= fine.eta.upper <= plain.eta.upper
    # (3.5e-3 -> 8.4e-4 with the series' ball form; with the majorant 1.9e-3 -> 7.3e-4)
    assert float(fine.eta.width) < 0.45 * float(plain.eta.width)
    assert float(fine.eta.width) < 1e-3 * float(fine.eta.upper)


@pytest.mark.slow
def test_majorant_and_pilot_narrow_k_200_q_034(monkeypatch):
    """L = 40, N = 10^7, k = 200, q = 0.34, lambda = e^2, 000's direction (eta ~ 0.88), tol 1e-2:
    the pilot walk at PILOT_MAX (not at 100 tol = 1, where it weighed no leaf) gives a shift, and
    the series' remainder by a majorant (series module doc) halves the width against the ball
    form with the same shift (0.111 -> 0.052: the leaves' two points 0.76 -> 0.11 sd of Y apart);
    both enclosures overlap a seeded Monte Carlo estimate (0.8791 +- 0.0023, session 34)."""
    P = canonical_pair(10**7, 40, 200)
    new = kfourier_details(P, "0.34", eps=2, tol=1e-2)
    assert new.alpha > 50
    monkeypatch.setattr(settings, "SERIES_MAJORANT", False)
    old = kfourier_details(P, "0.34", eps=2, tol=1e-2, alpha=new.alpha, extra_light=new.extra_light)
    for r in (new, old):
        assert r.eta.lower < Fraction("0.8906") and r.eta.upper > Fraction("0.8676"), r.eta
    assert float(new.eta.width) < 0.07 * float(new.eta.upper)
    assert float(new.eta.width) < 0.6 * float(old.eta.width)


# ------------------------------------------------------------------ delta as a difference of etas

def _run_eta(P, lam, tol, *, changed, upper, q="1/5"):
    """One certified walk with the law (``changed``) and side (``upper``) given."""
    red = kcopies(P)
    return api._details(red, Fraction(q), Fraction(lam), None, tol, changed=changed, upper=upper).eta


@pytest.mark.parametrize("changed", [False, True])
def test_second_etas_are_the_complements_of_the_first(changed):
    """The two new law/side combinations of Walk (the second etas of kfourier_delta) against
    the complements of the two tested ones (L = 5, N = 5000, k = 2):
    P_law[R > t] = 1 - P_law[R < t] up to P[R = t], and the enclosures hold for both.  With the
    side or the law of the second eta wrong, this fails (the values are ~0.33 and ~0.48)."""
    P = canonical_pair(5000, 5, 2)
    t = Fraction(11, 10)
    # the new combination: (null law, upper side) or (changed-user law, lower side)
    new = _run_eta(P, t if not changed else 1 / t, 1e-6, changed=changed, upper=not changed)
    # the tested one with the same law: reverse's (null, lower) or forward's (changed, upper)
    old = _run_eta(P, 1 / t if not changed else t, 1e-6, changed=changed, upper=changed)
    assert new.lower <= 1 - old.lower and 1 - old.upper <= new.upper
    assert 0.2 < float(new.lower) and float(new.upper) < 0.8 and float(new.width) < 5e-3
    # the law matters: the other law's eta at the same threshold and side is far off
    other = _run_eta(P, t if not changed else 1 / t, 1e-6, changed=not changed, upper=not changed)
    assert other.lower > new.upper + Fraction(1, 100) or other.upper < new.lower - Fraction(1, 100)


@pytest.mark.parametrize("fac", [canonical_pair, reverse_canonical_pair])
def test_delta_difference_agrees_with_the_ordinary_engine_at_k1(fac):
    """k = 1 (R = 000's S): the difference of two etas contains the ordinary engine's certified
    delta (exactdp.from_pair, its own Fourier strategy) at L = 10, N = 10^5, q = 3/10,
    lam = 11/10 (forward delta ~ 1.27e-3, reverse ~ 4.31e-4), within 3 % of it."""
    from exactdp.law.distribution import from_pair
    from exactdp.reductions.kfourier import kfourier_delta_details
    P = fac(10**5, 10, 1)
    lam = Fraction(11, 10)
    ref = from_pair(P, q="3/10").delta(lam, None, digits=4)
    r = kfourier_delta_details(P, "3/10", lam, tol=1e-5)
    assert r.delta.overlaps(ref)
    assert float(r.delta.width) < 0.03 * float(ref.upper)
    # the pieces: delta = first - lam second (rational lam: the ends are exact)
    assert r.delta.lower == max(r.first.lower - lam * r.second.upper, 0)
    assert r.delta.upper == r.first.upper - lam * r.second.lower


@pytest.mark.slow
@pytest.mark.parametrize("fac", [canonical_pair, reverse_canonical_pair])
def test_delta_difference_inside_the_grid(fac):
    """L = 5, N = 5000, k = 2: the difference route overlaps the certified grid enclosure and is
    far narrower; with grid asked the result is the intersection; for eps the lam interval
    e^eps enters (it overlaps the rational neighbour's enclosure)."""
    from exactdp.reductions.kfourier import kfourier_delta
    from exactdp.reductions.kfourier.api import _grid_delta
    P, q, lam = fac(5000, 5, 2), "1/5", Fraction(11, 10)
    d = kfourier_delta(P, q, lam, tol=1e-6)
    g = _grid_delta(P, q, lam, grid=4, tol=1e-5)
    assert d.overlaps(g) and 5 * d.width < g.width
    both = kfourier_delta(P, q, lam, tol=1e-5, grid=4)
    assert both == kfourier_delta(P, q, lam, tol=1e-5).intersect(g)
    e = kfourier_delta(P, q, eps=Fraction(1, 10), tol=1e-5)     # e^0.1 = 1.10517...
    r = kfourier_delta(P, q, Fraction(110517, 100000), tol=1e-5)
    assert e.overlaps(r) and not e.overlaps(kfourier_delta(P, q, Fraction(3, 2), tol=1e-5))


@pytest.mark.slow
def test_delta_passes_reach_the_width_asked():
    """Without tol the passes lower tol until the relative width rel: L = 40, N = 10^7, k = 2,
    q = 0.351, eps = 2 (000 §6.1's setting; ~17 s), rel 1e-5 (one pass at tol 1e-6 gives 5.4e-5
    since session 19's integrals, ~1.6e-4 before, ~5e-4 before the representatives; three passes
    reach 1.0e-6 at tol 1.5e-8);
    at L = 12, N = 2 * 10^5 the etas' width stops following tol near 1.2e-3 relative in delta,
    and the passes stop there, after one pass with the fine series settings (no narrower here)."""
    from exactdp.reductions.kfourier import kfourier_delta, kfourier_delta_details
    P = canonical_pair(10**7, 40, 2)
    r = kfourier_delta_details(P, "0.351", eps=2, rel=1e-5)
    assert float(r.delta.width) <= 1e-5 * float(r.delta.upper) and r.tol < 1e-6 and r.passes >= 2
    assert r.delta.overlaps(kfourier_delta(P, "0.351", eps=2, tol=1e-6))
    r = kfourier_delta_details(reverse_canonical_pair(200_000, 12, 2), "3/10", Fraction(11, 10), rel=1e-4)
    assert r.passes == 3 and r.fine and float(r.delta.width) < 2e-3 * float(r.delta.upper)


def test_delta_passes_stop_at_the_strategys_reach(monkeypatch):
    """Where a finer pass is out of reach (L = 5, N = 5000: the light law's smoothness fails
    at small tol) the last enclosure stands; bad rel is refused."""
    from exactdp.reductions import kfourier as kf
    monkeypatch.setattr(settings, "DELTA_TOL0", 1e-5)
    P = reverse_canonical_pair(5000, 5, 2)
    r = kf.kfourier_delta_details(P, "1/5", Fraction(11, 10), rel=1e-7)
    assert r.delta.lower > 0 and 1 <= r.passes <= settings.DELTA_PASSES
    assert r.delta.overlaps(kf.kfourier_delta(P, "1/5", Fraction(11, 10), tol=1e-5))
    with pytest.raises(ParameterError):
        kf.kfourier_delta_details(P, "1/5", 2, rel=0)


def test_delta_passes_take_the_fine_settings_at_the_floor(monkeypatch):
    """Two etas of constant width (the default enclosure's floor): the pass not narrower than
    the last is followed by one with the fine series settings (both etas), which ends the passes
    when it is not narrower either; from FINE_K_LIMIT on (k = 128) no pass asks for them."""
    from types import SimpleNamespace
    from exactdp.core.interval import Interval
    fines = []

    def fake(red, q, lam, eps, tol, *, prec, max_nodes, changed=None, upper=None, fine=None,
             deadline=None):
        fines.append(fine)
        c, w = (Fraction(1, 10) if changed is None else Fraction(1, 100)), Fraction(1, 10**3)
        return SimpleNamespace(eta=Interval(c - w / 2, c + w / 2), stopped=False)
    monkeypatch.setattr(api, "_details", fake)
    r = api.kfourier_delta_details(canonical_pair(10**7, 40, 16), "0.351", eps=2)
    assert r.fine and r.passes == 3 and fines == [None] * 4 + [True] * 2
    fines.clear()
    r = api.kfourier_delta_details(canonical_pair(10**7, 40, 128), "0.351", eps=2)
    assert not r.fine and r.passes == 2 and fines == [None] * 4


@pytest.mark.parametrize("k", [4, 16])
def test_series_boxes_tie_p3_to_p2(k, monkeypatch):
    """``P3_BELOW`` (module doc, "p_3 from p_2"): on samples of a light law (``n`` null and ``m``
    changed-user outputs, L = 12, N = 2 * 10^5) whose power sums and ``B_2``, ``B_3`` (the outputs
    below the top light level) lie in their Chernoff levels, some box holds ``p_2 .. p_I``
    (``p_i = w_max^(i-2) (p_2 - B_2) + B_i``); the boxes' ``p_3`` ranges are narrower than without
    the tie.  Fails with ``w_2`` in place of ``w_max`` in the identity, or ``B2lo``, ``B2hi``
    swapped."""
    from flint import ctx
    from exactdp.reductions.kcopies import parse_query
    monkeypatch.setattr(settings, "P3_BELOW", True)
    monkeypatch.setattr(settings, "FINE_MAX_K", 64)
    with ctx.workprec(ctx.prec):
        red = parse_query(canonical_pair(200_000, 12, k), "3/10", Fraction(6, 5), None, 1e-4,
                          "t")[0]
        run = walk.Walk(red, Fraction(3, 10), Fraction(6, 5), None, 1e-4, 160, max_nodes=10)
        n, m = run.n_users - 40, k // 2
        facs = [(run.pl0, n), (run.pl1, m)]
        _, P2lo, P2hi, (boxes, *_), _ = run.law(n, m)
        P3lo, P3hi, _ = run.power_levels(3, n, m, facs)
        below, _ = run.below_levels(n, m, facs)
        tied = boxes()
        loose = run.make_boxes(k, run.tau, P2lo, P2hi, P3lo, P3hi, below=None)
        lv = [float(x) for x in (P2lo, P2hi, P3lo, P3hi) + below]
        ivs = [{i: (float(a), float(b)) for i, (a, b) in bx.iv.items()} for bx in tied]
        w = np.array([float(x) for x in run.wl])
        p0 = np.array([float(x) for x in run.pl0])
        p1 = np.array([float(x) for x in run.pl1])
    assert len(w) >= 4 and len(tied) == settings.SERIES_SPLIT
    width = lambda bxs: sum(float(b.iv[3][1] - b.iv[3][0]) for b in bxs)
    assert width(tied) < 0.8 * width(loose)
    rng = np.random.default_rng(20)
    counts = (rng.multinomial(n, p0 / p0.sum(), size=4000)
              + rng.multinomial(m, p1 / p1.sum(), size=4000))
    inside = 0
    for c in counts:
        p = {i: float(c @ w ** i) for i in range(2, 9)}
        B2, B3 = float(c[:-1] @ w[:-1] ** 2), float(c[:-1] @ w[:-1] ** 3)
        if not (lv[0] <= p[2] <= lv[1] and lv[2] <= p[3] <= lv[3]
                and lv[4] <= B2 <= lv[5] and lv[6] <= B3 <= lv[7]):
            continue
        inside += 1
        assert any(all(a * (1 - 1e-9) <= p[i] <= b * (1 + 1e-9) for i, (a, b) in iv.items())
                   for iv in ivs), p
    assert inside > 3000


@pytest.mark.slow
def test_series_tau_beta_and_p3_tie_overlap_the_old_enclosure(monkeypatch):
    """The leaf statistic from the series (``TAU_REFINE``, ``BETA_STEP``) and the ``p_3`` tie
    (``P3_BELOW``, ``SERIES_SPLIT`` 8; opted in by ``FINE_MAX_K = 64``) at L = 40, N = 10^7,
    k = 16, q = 0.356, tol 1e-4: the enclosure overlaps the default one and is narrower."""
    P = canonical_pair(10**7, 40, 16)
    a = kfourier_eta(P, "0.356", eps=2, tol=1e-4)            # the defaults (off)
    monkeypatch.setattr(settings, "P3_BELOW", True)
    monkeypatch.setattr(settings, "FINE_MAX_K", 64)
    b = kfourier_eta(P, "0.356", eps=2, tol=1e-4)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert b.width < a.width


def test_rep_groups(monkeypatch):
    """``Walk.rep_group``: open groups above the last split bounded by representatives (module
    doc) instead of their Chernoff ends: each run's lower side from its first child, its upper
    side from the next run's first child (a run of one child: its own), those children expanded
    with the runs' masses.  With
    every split's light children in groups (``PENULT_FRACTION``, ``ANTEPENULT_FRACTION`` 1) at
    tol 1e-2 (L = 12, N = 2 * 10^5, k = 4) the width falls from 1.6e-2 to 2.8e-3 (4.6e-3 with
    ``REP_SEG = 1``, until session 21) and the enclosure contains a tol-1e-5 run's [0.101958,
    0.101962]; with the representatives' sides swapped it does not."""
    P, q, lam = canonical_pair(200_000, 12, 4), "3/10", Fraction(6, 5)
    monkeypatch.setattr(settings, "PENULT_FRACTION", 1.0)
    monkeypatch.setattr(settings, "ANTEPENULT_FRACTION", 1.0)
    fine = kfourier_eta(P, q, lam, tol=1e-5)
    monkeypatch.setattr(settings, "GROUP_REPS", False)
    a = kfourier_eta(P, q, lam, tol=1e-2)
    monkeypatch.setattr(settings, "GROUP_REPS", True)
    made, init = [], walk.Walk.__init__

    def rec_init(self, *args, **kw):
        init(self, *args, **kw)
        made.append(self)
    monkeypatch.setattr(walk.Walk, "__init__", rec_init)
    b = kfourier_eta(P, q, lam, tol=1e-2)
    assert sum(w.rep_nodes for w in made) > 0
    assert a.lower <= b.upper and b.lower <= a.upper
    assert float(b.width) < 0.5 * float(a.width)
    assert b.lower <= fine.lower and fine.upper <= b.upper


def test_rep_group_runs_of_one_child_bound_both_sides_by_it(monkeypatch):
    """``Walk.rep_group``'s runs (``hull_segments`` of mass at most ``tol * REP_SEG``): a run's
    lower side goes to its first child and its upper side to the next run's first child (the last
    run's to its own last child), but a run of one child bounds both its sides by itself: no step
    ``f(next) - f(own)`` for it (until session 21 its upper side went to the next child too, and
    where eta is tiny those steps were most of the width: ``settings.REP_SEG``)."""
    monkeypatch.setattr(settings, "REP_SEG", 1.0)
    fake = SimpleNamespace(tol=1.0, rep_nodes=0)
    items = [(i, 0, None, arb(p), None) for i, p in enumerate((0.5, 0.3, 2.0, 0.1, 0.1))]
    reps = {n: (round(float(P), 9), round(float(Q), 9)) for n, _, _, P, Q in walk.Walk.rep_group(fake, items)}
    assert reps == {0: (0.8, 0.0), 2: (2.0, 2.8), 3: (0.2, 0.0), 4: (0.0, 0.2)}
    assert fake.rep_nodes == 4


def test_walks_report_progress(monkeypatch):
    """A long walk is not silent: ``progress(nodes)`` is called by the walk (at most every
    ``PROGRESS_SECONDS``; 0 here: every node), from ``kfourier_details`` and from the passes of
    ``methods.eta`` (which the CLI's bar is), the count increasing within a walk up to its nodes."""
    monkeypatch.setattr(settings, "PROGRESS_SECONDS", 0.0)
    P, q, lam = canonical_pair(200_000, 12, 2), "3/10", Fraction(6, 5)
    seen = []
    r = kfourier_details(P, q, lam, tol=1e-2, progress=seen.append)
    assert seen and seen[-1] == r.nodes and seen == sorted(seen)
    seen.clear()
    methods.eta(P, q, lam, method="kfourier", digits=2, progress=seen.append)
    assert len(seen) >= r.nodes
