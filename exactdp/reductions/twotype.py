"""Bases of two types at Hamming distance one: certified eta at any N.

Pairs ``D = z^(n_z) + y^(n_y) + x``, ``D_m = z^(n_z) + y^(n_y) + x_m`` whose two
base vectors differ in one column (``|z XOR y| = 1``; ``n_y = 1`` is a base with
one minority user, :mod:`exactdp.reductions.minority`).  Flip the columns where ``z`` has
a 1 (``proofs/symmetry_reductions.py``, sym-group) so that ``z = 0`` and ``y``
is the unit vector of the *special* column ``s``.  Write an output as
``v = (v_s, w)``: every base user's ``w`` (the other ``L - 1`` bits) is
``Bern(q)`` per column whatever its type; only the law of ``v_s`` depends on
the type.  So under the base ``D'`` the number ``M`` of outputs with
``v_s = 1`` has the law ``P_M = Bin(n_z, q) * Bin(n_y, p)`` (convolution), and
given ``M = m`` the ``w`` of the two groups (``v_s = 1``, ``v_s = 0``) are
independent multinomials.  Summing over which output came from the changed
user (as 000 (2.4) does for a homogeneous base; identity ``sym-distance-one``)

    P(S | D' + u) / F(S) = alpha_1(m) p(1|u_s) A_1(u') + alpha_0(m) p(0|u_s) A_0(u'),
    alpha_1(m) = P_M(m - 1) / m,   alpha_0(m) = P_M(m) / (N - m),
    A_b(u') = sum over the outputs with v_s = b of r_{u'}(w),

with ``r_{u'}(w) = p(w | u') / p(w | 0)`` on the other columns, ``F(S)`` a factor
common to every ``u`` and ``m`` the number of outputs of ``S`` with ``v_s = 1``.
Hence, given ``m``,

    R > lam  <=>  alpha_1 [p(1|x_m,s) A_1(x_m') - lam p(1|x_s) A_1(x')]
                + alpha_0 [p(0|x_m,s) A_0(x_m') - lam p(0|x_s) A_0(x')] > 0,

a linear statistic of two independent groups, each of the homogeneous-base
form of :mod:`exactdp.reductions.pairs` (``(b, c, e)`` of ``x'``, ``x_m'`` on the other
columns, with ``lam`` replaced by ``lam p(b|x_s) / p(b|x_m,s)``).  Conditioning
on ``M`` and on the changed user's ``v_s`` (``S ~ A(D_m)``) every term is
summed by the certified block kernel (:func:`exactdp.engine.kernel.block_tail_sums`);
the values of ``M`` outside a window of base mass ``mass_tol`` count as
``[0, 1]``, so the result is a rigorous enclosure.

>>> from exactdp.reductions.pairs import Pair, eta_exact
>>> P = Pair.from_collections([(0, 0), (1, 0), (1, 0), (0, 1)], [(0, 0), (1, 0), (1, 0), (1, 1)])
>>> iv = twotype_eta(P, "1/4", "3/2")
>>> iv.contains(eta_exact(P, "1/4", "3/2")), float(iv.width) < 1e-12
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm

from flint import fmpz_poly

from ..core import domains
from ..core.errors import CapacityError, ParameterError
from ..core.interval import Interval
from ..engine.kernel import Block, Mixture, Threshold, block_tail_sums
from ..model.pair import Pair, weight
from .pairs import split_blocks, uv_weights

__all__ = ["DistanceOne", "distance_one", "twotype_eta", "MAX_N"]

#: Default largest ``N`` :func:`twotype_eta` accepts.  One value of ``M`` costs a
#: block-kernel search over two groups: measured (L = 5, q = 0.2446, lam = 2,
#: 00000 -> 11111, tol 1e-10) about 10-16 s per pair at N = 50, 150-320 s at
#: N = 100 and about 12 s per value of ``M`` (~300 values) at N = 1000.
MAX_N = 100


@dataclass(frozen=True)
class DistanceOne:
    """A pair with a base of two types at Hamming distance one, reduced:
    ``n_z`` users of 0 and ``n_y`` of the unit vector of the special column;
    the changed user's special bit ``x_s -> xm_s`` and ``(b, c, e)`` of its
    other bits (as :class:`exactdp.reductions.pairs.HomogeneousPair`)."""

    n_z: int
    n_y: int
    x_s: int
    xm_s: int
    b: int
    c: int
    e: int

    @property
    def N(self) -> int:
        return self.n_z + self.n_y + 1


def distance_one(P: Pair) -> DistanceOne | None:
    """The reduction of ``P`` if its base has exactly two types at Hamming
    distance one (and ``k = 1``), else ``None``.

    >>> P = Pair.from_collections([(0, 1), (1, 1), (0, 0)], [(0, 1), (1, 1), (1, 0)])
    >>> distance_one(P)
    DistanceOne(n_z=1, n_y=1, x_s=0, xm_s=1, b=0, c=0, e=1)
    """
    types = list(P.base)
    if len(types) != 2 or P.k != 1:
        return None
    (z, nz), (y, ny) = types
    d = z ^ y
    if weight(d) != 1:
        return None
    x, xm = P.x ^ z, P.x_m ^ z
    x_s, xm_s = int(bool(x & d)), int(bool(xm & d))
    x2, xm2 = x & ~d, xm & ~d
    return DistanceOne(nz, ny, x_s, xm_s, weight(x2 & ~xm2), weight(xm2 & ~x2), weight(x2 & xm2))


def _base_law(n_z: int, n_y: int, q: Fraction) -> list[int]:
    """Integer coefficients ``c_j`` proportional to ``P_M(j)`` (``j = 0..n_z + n_y``)."""
    a, d = q.numerator, q.denominator
    poly = fmpz_poly([d - a, a]) ** n_z * fmpz_poly([a, d - a]) ** n_y
    cs = [int(c) for c in poly.coeffs()]
    return cs + [0] * (n_z + n_y + 1 - len(cs))


def _scaled(blocks, factor: int):
    out = []
    for B in blocks:
        if isinstance(B, Mixture):
            out.append(Mixture(B.n, B.pi, tuple(tuple(Block(p.n, p.pi, tuple(factor * w for w in p.weights))
                                                       for p in parts) for parts in B.parts)))
        else:
            out.append(Block(B.n, B.pi, tuple(factor * w for w in B.weights)))
    return out


def _window(cs: list[int], mass_tol: Fraction) -> tuple[int, int, Fraction]:
    """Smallest-ish index window ``[lo, hi]`` whose complement has mass
    ``<= mass_tol`` (split between the two tails), and that mass (exact)."""
    T = sum(cs)
    lo, acc = 0, 0
    while lo < len(cs) - 1 and Fraction(acc + cs[lo], T) <= mass_tol / 2:
        acc += cs[lo]
        lo += 1
    hi, acc2 = len(cs) - 1, 0
    while hi > lo and Fraction(acc2 + cs[hi], T) <= mass_tol / 2:
        acc2 += cs[hi]
        hi -= 1
    return lo, hi, Fraction(acc + acc2, T)


def twotype_eta(P: Pair, q, lam, *, inclusive: bool = False, tol: float = 1e-12,
                mass_tol: float = 1e-12, prec: int = 128, max_nodes: int | None = None,
                max_n: int = MAX_N, progress=None) -> Interval:
    """Certified enclosure of ``eta = P[R > lam]`` (``>=`` if ``inclusive``),
    ``S ~ A(D_m)``, for a pair whose base has two types at Hamming distance one
    (module doc).  ``tol`` is the kernel's truncation per value of ``M``,
    ``mass_tol`` the base mass of the values of ``M`` not summed; the width is
    at most about their sum.  ``progress(done, total)`` is called per term.
    Pairs with ``N > max_n`` raise :class:`~exactdp.core.errors.CapacityError`
    before any work (the cost grows like ``N^1.5`` kernel searches; see
    :data:`MAX_N`); pass a larger ``max_n`` to run them anyway.

    >>> from exactdp.reductions.pairs import Pair
    >>> base = [0] * 32; base[0], base[1] = 18, 1              # 18 x 00000 + 10000
    >>> iv = twotype_eta(Pair(5, tuple(base), 0, 31), "0.2446", 2, tol=1e-10, mass_tol=1e-10)
    >>> 0.41 < float(iv.lower) < float(iv.upper) < 0.42, float(iv.width) < 1e-8
    (True, True)
    """
    red = distance_one(P)
    if red is None:
        raise ParameterError("twotype_eta needs a base of two types at Hamming distance one and k = 1 "
                             f"(got {P.describe()})")
    if red.N > max_n:
        raise CapacityError(f"twotype_eta: N = {red.N} > max_n = {max_n} (one block-kernel search per value "
                            "of M, minutes per pair at N = 100); pass max_n={red.N} to run it anyway, or bound "
                            "eta with exactdp.reductions.minority.minority_eta for one minority user")
    q = Fraction(domains.Q.parse(q))
    lam = Fraction(domains.LAM.parse(lam))
    if not 0 < tol < 1 or not 0 < mass_tol < 1:
        raise ParameterError(f"tol and mass_tol must lie in (0, 1), got {tol}, {mass_tol}")
    if P.x == P.x_m:                      # R = 1
        return Interval.exact(1 if (lam < 1 or (inclusive and lam == 1)) else 0)
    p = 1 - q
    N = red.N

    def ps(b, bit):                       # p(v_s = b | vector bit)
        one = p if bit else q
        return one if b else 1 - one

    beta = [ps(b, red.xm_s) for b in (0, 1)]
    lams = [lam * ps(b, red.x_s) / ps(b, red.xm_s) for b in (0, 1)]
    cs = _base_law(red.n_z, red.n_y, q)
    T = sum(cs)
    lo, hi, dropped = _window(cs, Fraction(mass_tol))
    thr = Threshold.from_fraction(Fraction(0), prec)
    scales = [uv_weights(red.b, red.c, red.e, q, lams[g])[2] for g in (0, 1)]   # integer weights / scale
    total = (hi - lo + 1) * 2
    acc_lo = acc_hi = Fraction(0)
    done = 0
    for j in range(lo, hi + 1):
        for c in (0, 1):
            m = j + c
            sizes = [N - 1 - j, j]                      # base users per group (v_s = 0, 1)
            om = [Fraction(0), Fraction(0)]
            if N - m > 0:
                om[0] = Fraction(cs[m], N - m) * beta[0]
            if m > 0:
                om[1] = Fraction(cs[m - 1], m) * beta[1]
            groups = [(split_blocks(red.b, red.c, red.e, q, lams[g], sizes[g], changed=c == g), om[g] / scales[g])
                      for g in (0, 1) if sizes[g] > 0 or c == g]
            w = Fraction(cs[j], T) * ps(c, red.xm_s)
            cond = _conditional(groups, thr, inclusive, prec, tol, max_nodes)
            acc_lo += w * cond.lower
            acc_hi += w * cond.upper
            done += 1
            if progress is not None:
                progress(done, total)
    return Interval(max(acc_lo, Fraction(0)), min(acc_hi + dropped, Fraction(1)))


def _conditional(groups, thr, inclusive, prec, tol, max_nodes) -> Interval:
    """``P[sum_g omega_g Z_g > 0]`` for ``(blocks, omega_g)`` pairs (``omega_g > 0``
    rationals turned into coprime integers)."""
    den = lcm(*(om.denominator for _, om in groups))
    ints = [int(om * den) for _, om in groups]
    g = gcd(*ints)
    blocks = []
    for (bl, _), f in zip(groups, ints):
        blocks += _scaled(bl, f // g)
    ts = block_tail_sums(blocks, thr, prec=prec, tol=tol, max_nodes=max_nodes)
    return ts.p_above(inclusive)
