"""Tiny eta at deployment scale (walk module doc, "Far decisions"; issue 20): at L = 40,
N = 10^7, lam = e^2, q = 0.40 the k-copies eta is ~1e-33 (k = 2), far below the walk's default
tolerances.  The node decisions go out to the deviation their Chernoff bound needs
(``settings.DECIDE_Z``), the integrals' smoothing follows the items' mass
(``settings.SMOOTH_MASS``) and the passes take the tol from eta's scale: relative width 1e-3.
Checked against an independent route, an importance-sampling Monte Carlo (seeded, floats)."""

import math
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.model.mechanism import Mechanism
from exactdp.reductions import methods
from exactdp.reductions.kfourier import kfourier_details, settings
from exactdp.reductions.pairs import canonical_pair, reverse_canonical_pair

DEPLOY = canonical_pair(10**7, 40, 2)


def test_decide_z_ascends_from_eight():
    """The check's outcome is monotone in z, so the grid must ascend (the first failure ends)."""
    z = settings.DECIDE_Z
    assert z[0] == 8.0 and all(a < b for a, b in zip(z, z[1:]))


def test_far_decisions_reach_relative_width():
    """Two tolerances far below eta: both enclosures certified (they overlap), the finer one
    narrower than 1e-3 of eta and above 0 (a lower end: the walk found the heavy counts that
    carry eta, not only a bound)."""
    a = kfourier_details(DEPLOY, "0.40", eps=2, tol=1e-30).eta
    b = kfourier_details(DEPLOY, "0.40", eps=2, tol=1e-38).eta
    assert a.lower <= b.upper and b.lower <= a.upper
    assert b.lower > 0 and b.width <= F(1, 1000) * b.lower
    assert 1e-34 < float(b.lower) < 1e-31


def test_passes_take_tol_from_eta_scale():
    """The passes (CLI and ``eta(..., digits=3)``) meet a relative 1e-3 for tiny eta; they used to
    stop at an absolute 1e-9 (``[5.22e-36, 3.72e-10]``)."""
    iv = methods.eta(DEPLOY, F(2, 5), eps=2, digits=3, method="kfourier")
    assert iv.lower > 0 and iv.width <= F(1, 1000) * iv.upper


def test_pilot_reaches_leaves_below_its_first_tol():
    """eta ~ 3.9e-9 (k = 16, q = 0.39): the pilot's first walk (at 1e-5) weighs no leaf; it goes
    down to eta's scale, so ``alpha`` (and the leaves' tau) cancels p_2.  With ``alpha = 0`` the
    relative width at tol 1e-11 is 2.7e-2 (measured), with the pilot's 4e-3."""
    r = kfourier_details(canonical_pair(10**7, 40, 16), "0.39", eps=2, tol=1e-11)
    assert r.alpha > 0 and r.eta.lower > 0
    assert r.eta.width <= F(1, 100) * r.eta.lower


@pytest.mark.slow
def test_pilot_alpha_narrows_and_agrees_with_alpha_zero():
    """The same at tol 1e-13: relative width <= 1e-3 (with ``alpha = 0``: 2.5e-2, measured), and
    the walk with ``alpha = 0`` (valid too, only wider) overlaps it."""
    P = canonical_pair(10**7, 40, 16)
    a = kfourier_details(P, "0.39", eps=2, tol=1e-13)
    b = kfourier_details(P, "0.39", eps=2, tol=1e-13, alpha=0.0, extra_light=a.extra_light)
    assert a.eta.width <= F(1, 1000) * a.eta.lower
    assert a.eta.lower <= b.eta.upper and b.eta.lower <= a.eta.upper
    assert 10 * a.eta.width < b.eta.width


def _importance_sampled_eta(N, L, k, q, lam, n, seed):
    """``P[R > lam]`` (forward, k = 2) by exponential tilting of every output's level law towards
    ``E S = sqrt(lam)`` (``S = sum w``), floats: ``(estimate, standard error)``.  For k = 2,
    ``e_2 = (S^2 - p_2) / 2``; the likelihood ratio is ``m_0^n0 m_1^n1 e^(-theta S)``."""
    assert k == 2
    rng = np.random.default_rng(seed)
    mech = Mechanism(L, q)
    pi0 = np.array([float(x) for x in mech.pi0])
    pi1 = np.array([float(x) for x in mech.pi1])
    pi1 /= pi1.sum()
    M = k * N
    w = np.array([float(x) for x in mech.c]) / M
    n0, n1 = k * (N - 1), k

    def tilted(th):
        a0, a1 = pi0 * np.exp(th * w), pi1 * np.exp(th * w)
        return a0, a1, n0 * (a0 @ w) / a0.sum() + n1 * (a1 @ w) / a1.sum()
    lo, hi = 0.0, 1.0
    while tilted(hi)[2] < math.sqrt(lam):
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tilted(mid)[2] < math.sqrt(lam) else (lo, mid)
    a0, a1, _ = tilted(hi)
    lm = n0 * math.log(a0.sum()) + n1 * math.log(a1.sum())
    cnt = rng.multinomial(n0, a0 / a0.sum(), size=n) + rng.multinomial(n1, a1 / a1.sum(), size=n)
    S, p2 = cnt @ w, cnt @ (w * w)
    kappa = M / (M - 1) * 2                        # M^2 / C(M, 2)
    hit = kappa * (S * S - p2) / 2 > lam
    lw = np.where(hit, lm - hi * S, -np.inf)
    top = lw.max()
    x = np.exp(lw - top)
    return float(x.mean()) * math.exp(top), float(x.std() / math.sqrt(n)) * math.exp(top)


def test_importance_sampling_agrees():
    """The independent route: a seeded importance-sampling Monte Carlo lands within four
    standard errors of the certified enclosure (its own spread is ~40 %: a weak check of the
    scale, which a tol-sized or a dropped-mass answer would fail by orders of magnitude)."""
    iv = kfourier_details(DEPLOY, "0.40", eps=2, tol=1e-36).eta
    est, se = _importance_sampled_eta(10**7, 40, 2, "0.40", math.exp(2), 40_000, seed=7)
    assert se < 0.6 * est and float(iv.width) < se
    assert float(iv.lower) - 4 * se <= est <= float(iv.upper) + 4 * se


def _readme() -> str:
    from pathlib import Path
    return " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())


def _printed(capsys, quantity: str, q: str, k: int = 2, direction: str = "forward", digits: int = 3) -> str:
    """What ``exactdp QUANTITY --k K -N 10000000 -L 40 -q Q --eps 2 --digits D`` prints, up to
    its parenthesis (e.g. ``eta in [2.55e-33, 2.56e-33]``)."""
    from exactdp.apps.cli import main
    assert main([quantity, "--k", str(k), "-N", "10000000", "-L", "40", "-q", q, "--eps", "2",
                 "--digits", str(digits), "--direction", direction, "--quiet"]) == 0
    return capsys.readouterr().out.split("  (")[0].strip()


def test_readme_quote_of_the_tiny_eta(capsys):
    """README's tiny-eta quote (k = 2, q = 0.40), fresh from the command line."""
    printed = _printed(capsys, "eta", "0.40")
    assert f"prints `{printed}`" in _readme(), printed


@pytest.mark.slow
@pytest.mark.parametrize("quantity, q, k, lead", [("delta", "0.40", 2, "prints "), ("eta", "0.42", 2, ""),
                                                  ("eta", "0.39", 16, "prints ")])
def test_readme_quotes_of_tiny_delta_and_the_upper_bound_regime(capsys, quantity, q, k, lead):
    """README's tiny-delta quote (k = 2, q = 0.40; ~30 s), its quote where only an upper bound
    is reached (eta, k = 2, q = 0.42) and the k = 16, q = 0.39 eta (~30 s), fresh from the
    command line."""
    printed = _printed(capsys, quantity, q, k)
    assert f"{lead}`{printed}`" in _readme(), printed


@pytest.mark.parametrize("k", [2, 4, 8, pytest.param(16, marks=pytest.mark.slow)])
def test_readme_quotes_of_the_reverse_at_q_0351(capsys, k):
    """README's 003's-reverse etas at q = 0.351 (seconds each, by the tilt; k = 16 with the levels
    above its light cut enumerated), fresh from the command line."""
    printed = _printed(capsys, "eta", "0.351", k, "reverse")
    assert f"`{printed}` at k = {k}" in _readme(), printed


def test_a_reverse_walks_integrals_resolve_the_complement():
    """A walk of P[R < thr] takes W - S from its integrals: asked with arb's relative goal 2^-60
    (and a lone item's float centre, a Taylor remainder ~1e-16 of its mass) the k = 8, q = 0.351
    walk at tol 3.13e-38 gave [0, 1.87e-18]; now both ends are positive and the upper below 1e-36
    (integral module doc, ``complement``)."""
    r = kfourier_details(reverse_canonical_pair(10**7, 40, 8), "0.351", eps=2, tol=3.13e-38)
    assert 0 < r.eta.lower and r.eta.upper < F(1, 10**36)


def test_a_reverse_walk_resolves_below_its_default_precision():
    """A walk of P[R < thr] takes its bounds as 1 - B: at 160 bits its upper end stayed at
    1.37e-48 (the ball of 1 - (1 - B)) at every tol; with log2(1/tol) + COMPLEMENT_BITS bits it
    follows tol (k = 2, q = 0.351: 6.4e-61 at tol 1e-55)."""
    r = kfourier_details(reverse_canonical_pair(10**7, 40, 2), "0.351", eps=2, tol=1e-55)
    assert r.eta.lower == 0 and 0 < r.eta.upper < F(1, 10**55)


@pytest.mark.slow
def test_readme_quote_of_the_large_deviation_at_k8(capsys):
    """README's k = 8, q = 0.415 eta, fresh from the command line: since session 25 by the tilted
    strategy (~5 s; kfourier.tilt); the walk's passes (~2 min) gave the same printed digits once
    they located eta (methods.KFOURIER_LOCATED; before that: [1.38e-214, 4.70e-214])."""
    printed = _printed(capsys, "eta", "0.415", 8, digits=2)
    assert f"prints `{printed}`" in _readme(), printed


@pytest.mark.slow
def test_readme_quote_of_the_two_top_levels_at_k128(capsys):
    """README's k = 128, q = 0.415 eta, fresh from the command line (~17 s: the top level's count
    alone 9.5e-4 with eta's Taylor kernels, within the 1e-3 asked; it was 1.13e-3, and then the two
    top levels' counts together gave 2.1e-4; kfourier.tilt, "The top levels")."""
    printed = _printed(capsys, "eta", "0.415", 128)
    assert f"prints `{printed}`" in _readme(), printed


@pytest.mark.slow
def test_readme_quote_of_the_light_cut_at_k64(capsys):
    """README's k = 64, q = 0.40 eta, fresh from the command line (~75 s: the whole law's
    statistic out of range, the light cut taken within the walk's range; kfourier.tilt, "The light
    cut"; the walk's passes had reached [1.93e-21, 2.71e-21] in 300 s)."""
    printed = _printed(capsys, "eta", "0.40", 64)
    assert f"prints `{printed}`" in _readme(), printed


@pytest.mark.slow
def test_readme_quote_of_the_light_cut_at_k128(capsys):
    """README's k = 128, q = 0.38 eta, fresh from the command line (~100 s: the light cut, its
    kernels' derivatives from the series' coupled Taylor form, the cuts deepened under the budget;
    kfourier.tilt, "The light cut"; session 31's corners gave 1.4e-2)."""
    printed = _printed(capsys, "eta", "0.38", 128)
    assert f"prints `{printed}`" in _readme(), printed


@pytest.mark.slow
def test_far_decisions_agree_with_decisions_at_eight(monkeypatch):
    """The route before far decisions (every decision at 8 deviations) and the default give
    overlapping certified enclosures at k = 2, q = 0.385 (eta ~ 7.8e-9), tol 1e-14; the default
    with fewer nodes (2,064 against 3,543 when measured)."""
    a = kfourier_details(DEPLOY, "0.385", eps=2, tol=1e-14)
    monkeypatch.setattr(settings, "DECIDE_Z", (8.0,))
    b = kfourier_details(DEPLOY, "0.385", eps=2, tol=1e-14)
    assert a.eta.lower <= b.eta.upper and b.eta.lower <= a.eta.upper
    assert a.nodes < b.nodes and a.eta.width <= b.eta.width


@pytest.mark.slow
def test_readme_quote_of_the_reverse_k16_eta(capsys):
    """README's 003-reverse eta at k = 16, q = 0.351 (~11 s; one walk at tol 1e-7 gave only an
    upper bound there), fresh from the command line."""
    printed = _printed(capsys, "eta", "0.351", 16, "reverse")
    assert f"`{printed}` at k = 16" in " ".join(_readme().split()), printed


@pytest.mark.slow
def test_walk_doc_quote_of_k16_q041():
    """The walk module doc's "Far decisions" quote: ``k = 16``, ``q = 0.41`` by the passes at
    digits 3 gives [6.89422e-88, 6.89462e-88] (session 36's settings), relative width <= 1e-3."""
    iv = methods.eta(canonical_pair(10**7, 40, 16), F(41, 100), eps=2, digits=3, method="kfourier")
    assert iv.lower > 0 and iv.width <= F(1, 1000) * iv.upper
    assert (f"{float(iv.lower):.5e}", f"{float(iv.upper):.5e}") == ("6.89422e-88", "6.89462e-88")


@pytest.mark.parametrize("k, q, direction", [(16, "0.45", "forward"), (2, "0.42", "forward"),
                                              pytest.param(16, "0.38", "reverse", marks=pytest.mark.slow)])
def test_readme_quotes_of_the_far_tail_delta(capsys, k, q, direction):
    """README's far-tail delta quotes (the tilt's (R - lam)+ forward, (1 - lam R)+ reverse), fresh
    from the command line."""
    printed = _printed(capsys, "delta", q, k, direction)
    assert f"prints `{printed}`" in _readme(), printed
