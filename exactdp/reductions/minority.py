"""Bases of two types with one minority user: certified eta at any N.

Pairs ``D = z^(N-2) + y + x``, ``D_m = z^(N-2) + y + x_m`` (a base of two types,
one of them held by a single user).  Flipping the columns where ``z`` has a 1
(a symmetry, ``proofs/symmetry_reductions.py``) makes ``z = 0``.  With
``r_w(v) = p(v|w) / p(v|0)`` and outputs ``v_1..v_N``, summing over which two
outputs came from ``y`` and from the changed user (as 000 (2.4) does for one
outlier),

    P(S | z^(N-2) + y + w) / P(S | 0^N) = (A_y A_w - sum_i r_y(v_i) r_w(v_i)) / (N (N - 1)),
    A_w = sum_i r_w(v_i),

so with ``a = r_y``, ``u = r_{x_m} - lam r_x``, ``Z1 = sum_i u(v_i)``,
``Z2 = sum_i a(v_i) u(v_i)``:

    R > lam  <=>  A_y Z1 - Z2 > 0          (A_y > 0).

``Z2 / A_y`` is an ``a``-weighted mean of the ``u(v_i)``: it concentrates at
``rho = E[a u] / E[a]`` while ``Z1`` spreads like ``sqrt(N)``.  For any rationals
``c_lo``, ``c_hi`` the event is sandwiched between linear ones:

    {Z1 > c_hi} and {Z2 < c_hi A_y}   implies  R > lam,
    R > lam  implies  {Z1 > c_lo} or {Z2 < c_lo A_y}     (also for R >= lam with <=),

hence

    P[Z1 > c_hi] - P[Z2 - c_hi A_y >= 0]  <=  eta  <=  P[Z1 > c_lo] + P[c_lo A_y - Z2 > 0],

four tails of linear statistics of independent users, each enclosed by
:func:`exactdp.engine.lattice.lattice_tail` (or bounded above by
:func:`exactdp.engine.lattice.chernoff_upper`).  ``c_lo < rho < c_hi`` are chosen a few
standard deviations of ``Z2 / A_y`` away from ``rho``; the choice affects the
width only, never the validity.

>>> from exactdp.reductions.pairs import Pair, eta_exact
>>> P = Pair.from_collections([(0, 0), (1, 0), (0, 0)], [(0, 0), (1, 0), (1, 1)])
>>> iv = minority_eta(P, "1/4", 2, h="1/64")
>>> iv.contains(eta_exact(P, "1/4", 2))
True
"""
from __future__ import annotations

import math
from fractions import Fraction

from ..core import domains
from ..core.errors import ParameterError
from ..core.interval import Interval
from ..engine.lattice import Group, chernoff_upper, lattice_tail
from ..model.pair import Pair, bits_of

__all__ = ["one_minority", "minority_eta", "MINORITY_METHODS"]

MINORITY_METHODS = ("lattice", "chernoff")


def one_minority(P: Pair):
    """``(z, y)`` if ``P``'s base is ``z^(N-2) + y`` with ``y != z`` (``N >= 3``),
    else ``None``."""
    types = list(P.base)
    if len(types) != 2 or P.k != 1:
        return None
    (t0, m0), (t1, m1) = types
    if m1 == 1:
        return t0, t1
    if m0 == 1:
        return t1, t0
    return None


def _laws(L: int, q: Fraction, vecs):
    """Per output ``v``: ``p(v|w)`` for each ``w`` in ``vecs`` (exact)."""
    p = 1 - q
    out = []
    for w in vecs:
        wb = bits_of(w, L)
        row = []
        for v in range(1 << L):
            vb = bits_of(v, L)
            f = Fraction(1)
            for a, b in zip(wb, vb):
                f *= p if a == b else q
            row.append(f)
        out.append(row)
    return out


def _statistics(P: Pair, q: Fraction, lam: Fraction):
    z, y = one_minority(P)
    L = P.L
    y, x, xm = y ^ z, P.x ^ z, P.x_m ^ z
    f0, fy, fx, fxm = _laws(L, q, (0, y, x, xm))
    a = [fy[v] / f0[v] for v in range(1 << L)]
    u = [(fxm[v] - lam * fx[v]) / f0[v] for v in range(1 << L)]
    return f0, fy, fxm, a, u


def _groups(P: Pair, f0, fy, fxm, w):
    vals = tuple(w)
    return [Group(P.N - 2, vals, tuple(f0)), Group(1, vals, tuple(fy)), Group(1, vals, tuple(fxm))]


def _cuts(P: Pair, f0, a, u, spread: float):
    """``c_lo < rho < c_hi``: ``rho = E0[a u] / E0[a]`` -/+ ``spread`` standard
    deviations of ``Z2 / A_y`` (delta method), as rationals."""
    fa = [float(x) for x in a]
    fu = [float(x) for x in u]
    pf = [float(x) for x in f0]
    ea = sum(p * x for p, x in zip(pf, fa))
    rho = sum(p * x * y for p, x, y in zip(pf, fa, fu)) / ea
    var = sum(p * (x * (y - rho)) ** 2 for p, x, y in zip(pf, fa, fu))
    sd = math.sqrt(var / P.N) / ea
    lo = Fraction(rho - spread * sd - 1e-9).limit_denominator(1 << 20)
    hi = Fraction(rho + spread * sd + 1e-9).limit_denominator(1 << 20)
    return lo, hi


def minority_eta(P: Pair, q, lam, *, inclusive: bool = False, method: str = "lattice", h="1/64",
                 spread: float = 5.0, tol: float = 1e-12) -> Interval:
    """Certified enclosure of ``eta = P[R > lam]`` (``>=`` if ``inclusive``),
    ``S ~ A(D_m)``, for a pair whose base is ``z^(N-2) + y`` (see the module
    doc for the sandwich).  ``method="chernoff"`` gives ``[0, upper]`` in
    milliseconds; ``"lattice"`` a two-sided enclosure with grid step ``h``.

    >>> from exactdp.reductions.pairs import Pair
    >>> P = Pair(5, tuple(998 if t == 0 else 1 if t == 1 else 0 for t in range(32)), 0, 31)
    >>> iv = minority_eta(P, "0.2446", 2, h="1/16")
    >>> 0.005 < float(iv.lower) < float(iv.upper) < 0.01
    True
    """
    if one_minority(P) is None:
        raise ParameterError("minority_eta needs a base z^(N-2) + y with y != z and k = 1 "
                             f"(got {P.describe()})")
    if method not in MINORITY_METHODS:
        raise ParameterError(f"method must be one of {', '.join(MINORITY_METHODS)}, got {method!r}")
    q = Fraction(domains.Q.parse(q))
    lam = Fraction(domains.LAM.parse(lam))
    h = domains.to_fraction(h, "h")
    if h <= 0:
        raise ParameterError(f"h must be a positive rational, got {h}")
    f0, fy, fxm, a, u = _statistics(P, q, lam)
    c_lo, c_hi = _cuts(P, f0, a, u, spread)
    z1 = _groups(P, f0, fy, fxm, u)
    dev_lo = _groups(P, f0, fy, fxm, [ai * (c_lo - ui) for ai, ui in zip(a, u)])   # c_lo A - Z2
    dev_hi = _groups(P, f0, fy, fxm, [ai * (ui - c_hi) for ai, ui in zip(a, u)])   # Z2 - c_hi A
    if method == "chernoff":
        up = chernoff_upper(z1, threshold=c_lo) + chernoff_upper(dev_lo)
        return Interval(Fraction(0), min(up, Fraction(1)))
    kw = dict(h=h, tol=tol)
    up = lattice_tail(z1, threshold=c_lo, **kw).upper + \
        lattice_tail(dev_lo, inclusive=inclusive, **kw).upper
    lo = lattice_tail(z1, threshold=c_hi, **kw).lower - \
        lattice_tail(dev_hi, inclusive=True, **kw).upper
    return Interval(max(lo, Fraction(0)), min(up, Fraction(1)))
