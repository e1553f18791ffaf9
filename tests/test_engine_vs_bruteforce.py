"""The certified engine against the independent brute force.

Written against the engine API contract::

    from exactdp import from_randomized_response
    d = from_randomized_response(N, L, q, direction="forward")   # "reverse", "worst"
    d.eta(lam=Fraction, inclusive=False, digits=20) -> Interval   # also d.eta(eps=...)
    d.delta(lam=Fraction, digits=20) -> Interval
    d.sf(x) -> Interval      # P[R > x];   d.cdf(x) -> Interval   # P[R <= x]
    d.eta(lam=..., method="fast")  # .lower/.upper enclosing the truth (float-based)
    d.mean(), d.var()        # forward: exact Fractions
    d.bin_masses(edges, digits=20) -> list[Interval]   # P[edges[i] < R <= edges[i+1]]

Every certified answer must *contain* the exact brute-force Fraction and be
narrow: exact, or of width at most ``10^-(digits-2)`` relative to the truth
(absolute when the truth is 0).  The engine is imported inside each test, so
while it does not exist every test here fails with ImportError individually
(collection of the rest of the suite is unaffected).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest
from hypothesis import example, given

from exactdp.oracles import bruteforce as bf
from exactdp.core.interval import Interval

from strategies import PINNED_Q, case_with_lam

F = Fraction
DIGITS = 20
DIRS = ("forward", "reverse", "worst")
#: All small cases: N <= 6, L <= 3, q in {1/3, 1/4, 2/7}.
GRID = [(N, L, q) for L in (1, 2, 3) for N in range(1, 7) for q in PINNED_Q]


def _ids(case):
    N, L, q = case
    return f"N{N}-L{L}-q{q.numerator}_{q.denominator}"


@functools.lru_cache(maxsize=None)
def engine(N: int, L: int, q, direction: str):
    """The engine's distribution object (imported lazily: see module docstring)."""
    from exactdp import from_randomized_response
    return from_randomized_response(N, L, q, direction=direction)


def assert_certified(iv, truth: Fraction, digits: int = DIGITS, what: str = ""):
    """``iv`` is an Interval containing ``truth``, exact or narrow to ``digits``."""
    assert isinstance(iv, Interval), f"{what}: expected an Interval, got {type(iv).__name__}"
    assert iv.contains(truth), f"{what}: [{iv.lower}, {iv.upper}] does not contain {truth}"
    if iv.width == 0:
        return
    tol = F(1, 10 ** (digits - 2))
    bound = tol * abs(truth) if truth != 0 else tol
    assert iv.width <= bound, (
        f"{what}: width {float(iv.width):.3g} exceeds {float(bound):.3g} "
        f"(truth {truth}, digits {digits})")


def _ratio_max(L, q):
    return ((1 - q) / q) ** L


def lambda_grid(N, L, q, direction, k: int = 24) -> list[Fraction]:
    """Thresholds lam >= 1: 1, atoms of R (exactly), midpoints between atoms,
    (p/q)^L and beyond; thinned deterministically to about ``k`` atoms."""
    dirs = ("forward", "reverse") if direction == "worst" else (direction,)
    atoms = sorted({a for d in dirs for a in bf.canonical(N, L, q, d).atoms if a >= 1})
    if len(atoms) > k:
        step = len(atoms) / k
        atoms = sorted({atoms[int(i * step)] for i in range(k)} | {atoms[0], atoms[-1]})
    mids = [(a + b) / 2 for a, b in zip(atoms, atoms[1:])]
    rmax = _ratio_max(L, q)
    return sorted({F(1), rmax, rmax + F(1, 3), 2 * rmax, *atoms, *mids})


def x_grid(N, L, q, direction, k: int = 24) -> list[Fraction]:
    """Points x > 0 for sf/cdf: atoms of R (also below 1) and midpoints."""
    atoms = bf.canonical(N, L, q, direction).atoms
    if len(atoms) > k:
        step = len(atoms) / k
        atoms = sorted({atoms[int(i * step)] for i in range(k)} | {atoms[0], atoms[-1]})
    mids = [(a + b) / 2 for a, b in zip(atoms, atoms[1:])]
    return sorted({atoms[0] / 2, F(1), *atoms, *mids, atoms[-1] + 1})


def _check_lam(N, L, q, direction, lam, digits=DIGITS):
    d = engine(N, L, q, direction)
    ref = bf.canonical(N, L, q, direction)
    tag = f"N={N} L={L} q={q} {direction} lam={lam}"
    assert_certified(d.eta(lam=lam, inclusive=False, digits=digits), ref.eta(lam), digits,
                     f"eta strict {tag}")
    assert_certified(d.eta(lam=lam, inclusive=True, digits=digits), ref.eta(lam, inclusive=True),
                     digits, f"eta inclusive {tag}")
    assert_certified(d.delta(lam=lam, digits=digits), ref.delta(lam), digits, f"delta {tag}")


# ------------------------------------------------------------- exhaustive grid
@pytest.mark.parametrize("direction", DIRS)
@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_eta_delta_contain_bruteforce(case, direction):
    N, L, q = case
    for lam in lambda_grid(N, L, q, direction):
        _check_lam(N, L, q, direction, lam)


@pytest.mark.parametrize("direction", ("forward", "reverse"))
@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_sf_cdf_contain_bruteforce_and_enclose_one(case, direction):
    N, L, q = case
    d = engine(N, L, q, direction)
    ref = bf.canonical(N, L, q, direction)
    for x in x_grid(N, L, q, direction):
        sf, cdf = d.sf(x), d.cdf(x)
        tag = f"N={N} L={L} q={q} {direction} x={x}"
        assert_certified(sf, ref.sf(x), DIGITS, f"sf {tag}")
        assert_certified(cdf, ref.cdf(x), DIGITS, f"cdf {tag}")
        assert sf.lower + cdf.lower <= 1 <= sf.upper + cdf.upper, f"sf + cdf != 1: {tag}"


@pytest.mark.parametrize("case", GRID, ids=_ids)
def test_forward_mean_var_exact(case):
    N, L, q = case
    d = engine(N, L, q, "forward")
    ref = bf.canonical(N, L, q, "forward")
    mean, var = d.mean(), d.var()
    assert isinstance(mean, Fraction) and isinstance(var, Fraction)
    assert mean == ref.mean()
    assert var == ref.var()


@pytest.mark.parametrize("direction", ("forward", "reverse"))
@pytest.mark.parametrize("case", [c for c in GRID if c[0] in (1, 3, 6)], ids=_ids)
def test_bin_masses_contain_bruteforce(case, direction):
    N, L, q = case
    d = engine(N, L, q, direction)
    ref = bf.canonical(N, L, q, direction)
    atoms = ref.atoms
    # edges on atoms (R = edge falls in the lower bin) and between atoms
    on_atoms = [atoms[0] / 2] + atoms[:: max(1, len(atoms) // 8)] + [atoms[-1]]
    between = [atoms[0] / 2] + [(a + b) / 2 for a, b in zip(atoms, atoms[1:])][::3] + [atoms[-1] + 1]
    for edges in (sorted(set(on_atoms)), sorted(set(between)), [F(1), _ratio_max(L, q)]):
        got = d.bin_masses(edges, digits=DIGITS)
        want = ref.bin_masses(edges)
        assert len(got) == len(want) == len(edges) - 1
        for i, (iv, w) in enumerate(zip(got, want)):
            assert_certified(iv, w, DIGITS, f"bin {i} ({edges[i]}, {edges[i + 1]}] N={N} L={L} "
                                            f"q={q} {direction}")


@pytest.mark.parametrize("direction", DIRS)
@pytest.mark.parametrize("case", [c for c in GRID if c[0] in (1, 2, 5, 6)], ids=_ids)
def test_fast_mode_contains_bruteforce(case, direction):
    N, L, q = case
    d = engine(N, L, q, direction)
    ref = bf.canonical(N, L, q, direction)
    for lam in lambda_grid(N, L, q, direction, k=10):
        iv = d.eta(lam=lam, method="fast")
        truth = ref.eta(lam)
        assert iv.lower <= truth <= iv.upper, (
            f"fast eta N={N} L={L} q={q} {direction} lam={lam}: "
            f"[{iv.lower}, {iv.upper}] misses {truth} = {float(truth)}")


# ------------------------------------------------------------------ eps input
def exp_bounds(eps: Fraction, terms: int = 60) -> tuple[Fraction, Fraction]:
    """Exact rationals ``lo < e^eps < hi`` for ``0 < eps <= 3`` (Taylor series,
    remainder <= eps^n/n! * e^eps < eps^n/n! * 21)."""
    assert 0 < eps <= 3
    s, t = F(0), F(1)
    for k in range(terms):
        s += t
        t = t * eps / (k + 1)
    return s, s + 21 * t


@pytest.mark.parametrize("direction", DIRS)
@pytest.mark.parametrize("case", [(1, 2, F(1, 3)), (4, 2, F(1, 4)), (6, 3, F(2, 7)), (5, 1, F(1, 3))],
                         ids=_ids)
def test_eta_eps_matches_eta_lam(case, direction):
    N, L, q = case
    d = engine(N, L, q, direction)
    ref = bf.canonical(N, L, q, direction)
    # eps = 0 is lam = 1 exactly
    assert_certified(d.eta(eps=F(0), digits=DIGITS), ref.eta(1), DIGITS, "eta(eps=0)")
    for eps in (F(1, 10), F(1, 2), F(1), F(2), F(3)):
        lo, hi = exp_bounds(eps)
        assert lo < hi and hi - lo < F(1, 10 ** 30)
        # e^eps is irrational, hence never an atom; eta is constant on [lo, hi]
        # unless an atom falls inside the (tiny) bracket
        upper_truth, lower_truth = ref.eta(lo), ref.eta(hi)
        iv = d.eta(eps=eps, digits=DIGITS)
        assert isinstance(iv, Interval)
        assert iv.upper >= lower_truth and iv.lower <= upper_truth, f"eta(eps={eps}) = {iv}"
        if upper_truth == lower_truth:
            assert_certified(iv, upper_truth, DIGITS, f"eta(eps={eps}) N={N} L={L} q={q} {direction}")


# -------------------------------------------------------------- other inputs
def test_q_as_string_equals_fraction():
    a = engine(3, 2, "1/3", "forward")
    b = engine(3, 2, F(1, 3), "forward")
    for lam in lambda_grid(3, 2, F(1, 3), "forward"):
        ia, ib = a.eta(lam=lam, digits=DIGITS), b.eta(lam=lam, digits=DIGITS)
        truth = bf.canonical(3, 2, F(1, 3), "forward").eta(lam)
        assert_certified(ia, truth)
        assert_certified(ib, truth)


@pytest.mark.parametrize("digits", [5, 10, 40])
def test_other_digit_counts(digits):
    for direction in DIRS:
        for lam in lambda_grid(5, 3, F(2, 7), direction, k=8):
            _check_lam(5, 3, F(2, 7), direction, lam, digits)


# ------------------------------------------------------- hypothesis properties
@given(c=case_with_lam(max_n=6))
@example(c=(3, 2, F(1, 3), F(7, 4), "forward"))       # lam exactly at an atom (R = 7/4)
@example(c=(2, 1, F(1, 3), F(5, 4), "forward"))       # atom, N = 2, L = 1
@example(c=(6, 3, F(2, 7), F(1), "worst"))            # lam = 1
@example(c=(4, 2, F(1, 4), F(9), "forward"))          # lam = (p/q)^L: strict 0, inclusive > 0
@example(c=(4, 2, F(1, 4), F(9), "reverse"))
@example(c=(3, 3, F(1, 3), F(9), "worst"))            # lam > (p/q)^L = 8: eta = delta = 0
@example(c=(1, 3, F(1, 4), F(27), "forward"))         # N = 1: local randomized response
@example(c=(1, 2, F(2, 7), F(25, 4), "reverse"))      # N = 1 at the largest atom
def test_engine_contains_bruteforce_property(c):
    N, L, q, lam, direction = c
    _check_lam(N, L, q, direction, lam)
    iv = engine(N, L, q, direction).eta(lam=lam, method="fast")
    truth = bf.canonical(N, L, q, direction).eta(lam)
    assert iv.lower <= truth <= iv.upper
