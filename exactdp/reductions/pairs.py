"""General neighbouring pairs: exact and certified eta, delta and the law of R.

A *pair* is two collections of ``N`` bit vectors of length ``L`` that differ in
one user: a base ``D'`` of ``N - 1`` vectors, the changed user's vector ``x`` in
``D = D' + {x}`` and ``x_m`` in ``D_m = D' + {x_m}``.  As everywhere in exactdp
``R(S) = P(S|D_m) / P(S|D)`` with ``S ~ A(D_m)`` and

    eta(lam)   = P[R > lam]        (inclusive: P[R >= lam])
    delta(lam) = E[(1 - lam/R)+] = sum_S (P(S|D_m) - lam P(S|D))+

With ``k``-randomization (000 §6, 003 §1) every user submits ``k`` independent
randomizations of its vector; the histogram of the ``kN`` synthetic vectors has
the law of ``A`` applied to the collection in which every vector is repeated
``k`` times, so the same machinery applies with all multiplicities times ``k``.

Symmetry reductions (proved in ``proofs/symmetry_reductions.py``):

* **bit relabelling and flips**: for a permutation ``g`` of the ``L`` positions
  and a mask ``m``, ``v -> g(v) XOR m`` maps ``A(D)`` to ``A(gD XOR m)``; the law
  of R is invariant (:func:`canonical_key` picks one representative);
* **column classes** (sufficient statistic): flip every column so that the
  changed user's ``x`` is 0 there and group the columns by their pattern over
  the distinct vectors of ``D`` and ``D_m``.  Within a class every vector is
  constant, so ``p(v|u)`` depends on a synthetic ``v`` only through its numbers
  of ones per class (its *coarse type*), and ``R`` is a function of the
  histogram of coarse types; constant columns drop out (:func:`reduce_pair`);
* **homogeneous base** (000 (2.4)): for ``D' = z^(N-1)`` write ``r_y(v) =
  p(v|y)/p(v|z)``; then ``P(S|D' + y) = P(S|z^N) (1/N) sum_i s_i r_y(v_i)`` and

      R > lam  <=>  Z = sum_i s_i (r_{x_m}(v_i) - lam r_x(v_i)) > 0,
      delta    =   E_{z^N}[Z+] / N,

  a linear statistic of a multinomial histogram, summed by the certified
  kernel (:func:`exactdp.engine.kernel.tail_sums`).  With ``z = 0`` the weights only
  depend on the numbers of ones in ``B = x \\ x_m``, ``C = x_m \\ x`` and
  ``E = x & x_m``; a homogeneous-base pair is the triple ``(b, c, e)`` =
  their sizes (:class:`HomogeneousPair`).  A user's weight is
  ``u(j + k) + v(i + k)`` with independent binomial counts ``i, j, k`` in
  ``B, C, E``, so mixed pairs are summed over independent blocks
  (:func:`exactdp.engine.kernel.block_tail_sums`, :func:`split_blocks`).

>>> from exactdp.oracles import bruteforce
>>> P = Pair.from_collections([(0, 0), (0, 0)], [(0, 0), (1, 1)])
>>> law = law_of_R(P, "1/3")
>>> law == dict(bruteforce.law_of_R(*P.collections(), "1/3"))
True
>>> eta_exact(P, "1/3", 2) == bruteforce.eta(*P.collections(), "1/3", 2)
True
>>> HomogeneousPair.of(P)
HomogeneousPair(N=2, b=0, c=2, e=0)
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Iterator

from flint import fmpz_poly

from ..core import domains
from ..core.errors import CapacityError, ParameterError
from ..core.interval import Interval
from ..engine.kernel import Block, Mixture, Threshold, block_tail_sums, tail_sums
from ..engine.lattice import Group, chernoff_upper, lattice_tail
from ..core.lam import exp_interval, gt_exp, parse_lam_eps
from ..model.pair import Pair, bits_of, canonical_pair, reverse_canonical_pair, type_of, weight

__all__ = [
    "Pair", "HomogeneousPair", "Reduced", "reduce_pair", "canonical_key", "enumerate_pairs",
    "law_of_R", "eta_exact", "delta_exact", "route", "canonical_pair", "reverse_canonical_pair",
    "exp_interval", "gt_exp", "MAX_COARSE_HISTOGRAMS", "weight", "bits_of", "type_of",
]

#: Largest number of coarse-type histograms the exact enumeration visits.
MAX_COARSE_HISTOGRAMS = 400_000


# ----------------------------------------------------------------------------- symmetry
def _perm_type(t: int, perm: tuple, mask: int) -> int:
    out = 0
    for j, pj in enumerate(perm):
        if (t >> j) & 1:
            out |= 1 << pj
    return out ^ mask


@lru_cache(maxsize=64)
def _group(L: int, flips: bool) -> tuple:
    masks = range(1 << L) if flips else (0,)
    return tuple((perm, m) for perm in itertools.permutations(range(L)) for m in masks)


def canonical_key(P: Pair, flips: bool = True) -> tuple:
    """Smallest image of the pair under bit permutations (and XOR masks when ``flips``).

    Pairs with equal keys have the same law of R (theorem ``sym-group`` of
    ``proofs/symmetry_reductions.py``).

    >>> a = Pair.homogeneous(3, 2, 0, 0, 1); b = Pair.homogeneous(3, 2, 3, 3, 1)
    >>> canonical_key(a) == canonical_key(b)
    True
    """
    best = None
    for perm, m in _group(P.L, flips):
        base = [0] * (1 << P.L)
        for t, c in P.base:
            base[_perm_type(t, perm, m)] += c
        key = (P.k, tuple(base), _perm_type(P.x, perm, m), _perm_type(P.x_m, perm, m))
        if best is None or key < best:
            best = key
    return (P.L,) + best


# ----------------------------------------------------------------------------- column classes
@dataclass(frozen=True)
class Reduced:
    """A pair reduced to column classes (see the module doc).

    ``sizes[c]`` is the number of columns in class ``c``; every vector is
    described by one bit per class (after flipping columns so that ``x`` is 0);
    ``base`` is a tuple of ``(class-bits, multiplicity)``.
    """

    sizes: tuple
    base: tuple
    x: tuple
    x_m: tuple
    k: int = 1

    @property
    def N(self) -> int:
        return sum(m for _, m in self.base) + 1

    @property
    def num_coarse_types(self) -> int:
        return math.prod(s + 1 for s in self.sizes)

    def is_homogeneous_base(self) -> bool:
        return len(self.base) <= 1


def reduce_pair(P: Pair) -> Reduced:
    """Column-class reduction (drops constant columns, sorts classes).

    >>> reduce_pair(Pair.homogeneous(4, 3, 0, 0, 7))
    Reduced(sizes=(3,), base=(((0,), 3),), x=(0,), x_m=(1,), k=1)
    """
    distinct = [t for t, _ in P.base]
    counts = P.counts()
    vecs = [P.x, P.x_m] + [t for t in distinct if t not in (P.x, P.x_m)]
    classes: dict = defaultdict(int)
    for j in range(P.L):
        flip = (P.x >> j) & 1
        pattern = tuple(((t >> j) & 1) ^ flip for t in vecs)
        if any(pattern):
            classes[pattern] += 1
    pats = sorted(classes)
    sizes = tuple(classes[pt] for pt in pats)

    def cls_bits(t):
        i = vecs.index(t)
        return tuple(pt[i] for pt in pats)

    base = tuple(sorted((cls_bits(t), counts[t]) for t in distinct))
    return Reduced(sizes, base, cls_bits(P.x), cls_bits(P.x_m), P.k)


# ----------------------------------------------------------------------------- exact law
def _q_ints(q: Fraction) -> tuple[int, int, int]:
    return q.numerator, q.denominator - q.numerator, q.denominator


@lru_cache(maxsize=4096)
def _coarse_row(sizes: tuple, bits: tuple, q: Fraction) -> tuple:
    """Integer numerators (over den^sum(sizes)) of the coarse-type law of one vector."""
    u, v, _ = _q_ints(q)
    per = []
    for s, b in zip(sizes, bits):
        if b:   # vector has 1 in the class: ones ~ Bin(s, p)
            per.append([math.comb(s, c) * v**c * u**(s - c) for c in range(s + 1)])
        else:
            per.append([math.comb(s, c) * u**c * v**(s - c) for c in range(s + 1)])
    return tuple(math.prod(x) for x in itertools.product(*per))


def _count_histograms(n: int, K: int, cap: int) -> int:
    c = 1
    for i in range(1, min(n, K - 1) + 1):
        c = c * (n + K - 1 - min(n, K - 1) + i) // i
        if c > cap:
            return cap + 1
    return c


def check_capacity(red: Reduced, cap: int = MAX_COARSE_HISTOGRAMS) -> int:
    n = red.N * red.k
    K = red.num_coarse_types
    c = _count_histograms(n, K, cap)
    if c > cap:
        raise CapacityError(
            f"exact enumeration: {n} synthetic vectors over {K} coarse types give more than "
            f"{cap} histograms; use the homogeneous-base kernel, L = 1, or a smaller N")
    return c


@lru_cache(maxsize=256)
def _histogram_law(sizes: tuple, users: tuple, q: Fraction) -> dict:
    """``{coarse histogram: integer numerator}`` for users ``((bits, mult), ...)``."""
    K = math.prod(s + 1 for s in sizes)
    cur = {(0,) * K: 1}
    for bits, m in users:
        row = _coarse_row(sizes, bits, q)
        for _ in range(m):
            nxt: dict = defaultdict(int)
            for h, w in cur.items():
                for s, ws in enumerate(row):
                    if ws:
                        h2 = h[:s] + (h[s] + 1,) + h[s + 1:]
                        nxt[h2] += w * ws
            cur = dict(nxt)
    return cur


def _users(red: Reduced, changed: tuple) -> tuple:
    d: dict = defaultdict(int)
    for bits, m in red.base:
        d[bits] += m * red.k
    d[changed] += red.k
    return tuple(sorted(d.items()))


def _exact_laws(P: Pair, q) -> tuple[dict, dict, int]:
    q = Fraction(domains.Q.parse(q))
    red = reduce_pair(P)
    if red.x == red.x_m:
        return {(): 1}, {(): 1}, 1
    check_capacity(red)
    LD = _histogram_law(red.sizes, _users(red, red.x), q)
    LM = _histogram_law(red.sizes, _users(red, red.x_m), q)
    den = q.denominator ** (sum(red.sizes) * red.N * red.k)
    return LD, LM, den


def law_of_R(P: Pair, q, under: str = "D_m") -> dict:
    """Exact law ``{R: probability}`` by enumerating coarse-type histograms.

    Raises :class:`~exactdp.core.errors.CapacityError` beyond
    :data:`MAX_COARSE_HISTOGRAMS` (L = 1 pairs of any size: :func:`eta`).
    """
    LD, LM, den = _exact_laws(P, q)
    W = LM if under == "D_m" else LD
    out: dict = defaultdict(int)
    for h, wd in LD.items():
        out[Fraction(LM[h], wd)] += W[h]
    return {r: Fraction(w, den) for r, w in sorted(out.items())}


# ----------------------------------------------------------------------------- e^eps
def _above(r: Fraction, lam, eps, inclusive: bool) -> bool:
    if lam is not None:
        return r > lam or (inclusive and r == lam)
    # e^eps is irrational unless eps == 0, so only then can R tie with it
    return gt_exp(r, eps) or (inclusive and eps == 0 and r == 1)


def eta_from_law(law: dict, lam=None, eps=None, inclusive: bool = False) -> Fraction:
    lam, eps = parse_lam_eps(lam, eps)
    return sum((w for r, w in law.items() if _above(r, lam, eps, inclusive)), Fraction(0))


def delta_from_law(law: dict, lam) -> Fraction:
    lam = Fraction(domains.LAM.parse(lam))
    return sum((w * (1 - lam / r) for r, w in law.items() if r > lam), Fraction(0))


def eta_exact(P: Pair, q, lam=None, eps=None, inclusive: bool = False) -> Fraction:
    """Exact eta (a Fraction) by the coarse enumeration or, for effective L = 1, polynomials."""
    red = reduce_pair(P)
    if len(red.sizes) == 1 and red.sizes[0] == 1:
        return _l1(red, q)[0](lam, eps, inclusive)
    return eta_from_law(law_of_R(P, q), lam, eps, inclusive)


def delta_exact(P: Pair, q, lam) -> Fraction:
    red = reduce_pair(P)
    if len(red.sizes) == 1 and red.sizes[0] == 1:
        return _l1(red, q)[1](lam)
    return delta_from_law(law_of_R(P, q), lam)


# ----------------------------------------------------------------------------- L = 1
@lru_cache(maxsize=64)
def _l1(red: Reduced, q):
    """Exact eta/delta for a pair whose reduction is one column (effective L = 1).

    The synthetic count of ones is ``Bin(#ones, p) + Bin(#zeros, q)``; both laws
    are integer polynomials ``(u + v z)^a (v + u z)^b`` (``q = u/den``) multiplied
    with FLINT, so N in the thousands (times k) is exact and fast.
    """
    q = Fraction(domains.Q.parse(q))
    u, v, den = _q_ints(q)
    ones = sum(m for bits, m in red.base if bits[0]) * red.k
    zeros = sum(m for bits, m in red.base if not bits[0]) * red.k
    k = red.k

    def law(changed_bit):
        a = ones + (k if changed_bit else 0)
        b = zeros + (0 if changed_bit else k)
        return (fmpz_poly([u, v]) ** a) * (fmpz_poly([v, u]) ** b)

    PD = law(red.x[0])
    PM = law(red.x_m[0])
    n = (ones + zeros + k)
    D = den ** n
    cD = [int(c) for c in PD.coeffs()] + [0] * (n + 1 - PD.length())
    cM = [int(c) for c in PM.coeffs()] + [0] * (n + 1 - PM.length())

    def eta_fn(lam=None, eps=None, inclusive=False):
        lam, eps = parse_lam_eps(lam, eps)
        tot = 0
        if lam is not None:
            a, b = lam.numerator, lam.denominator
            for pm, pd in zip(cM, cD):
                if pm * b > a * pd or (inclusive and pm * b == a * pd):
                    tot += pm
        else:
            for pm, pd in zip(cM, cD):
                if gt_exp(Fraction(pm, pd), eps):
                    tot += pm
        return Fraction(tot, D)

    def delta_fn(lam):
        lam = Fraction(domains.LAM.parse(lam))
        a, b = lam.numerator, lam.denominator
        tot = sum(max(pm * b - a * pd, 0) for pm, pd in zip(cM, cD))
        return Fraction(tot, D * b)

    return eta_fn, delta_fn


# ----------------------------------------------------------------------------- homogeneous base
@dataclass(frozen=True)
class HomogeneousPair:
    """Homogeneous base ``0^(N-1)``, changed user ``x -> x_m`` with
    ``b = |x \\ x_m|``, ``c = |x_m \\ x|``, ``e = |x & x_m|`` (all other columns are
    constant and drop out).  Every homogeneous-base pair reduces to one of these
    (flip the columns where the base vector has a 1).

    000's canonical pair is ``(0, L, 0)``; its reverse (003 §2.1) is ``(L, 0, 0)``.
    """

    N: int
    b: int
    c: int
    e: int

    @classmethod
    def of(cls, P: Pair) -> "HomogeneousPair":
        if P.k != 1:
            raise ParameterError("the linear statistic needs k = 1")
        z = P.base[0][0] if P.base else P.x
        if len(P.base) > 1:
            raise ParameterError("the base is not homogeneous")
        x, xm = P.x ^ z, P.x_m ^ z
        return cls(P.N, weight(x & ~xm), weight(xm & ~x), weight(x & xm))

    def pair(self) -> Pair:
        """A representative :class:`Pair` (L = b + c + e, base 0)."""
        L = max(1, self.b + self.c + self.e)
        x = sum(1 << j for j in range(self.b)) | sum(1 << (self.b + self.c + j) for j in range(self.e))
        xm = sum(1 << (self.b + j) for j in range(self.c)) | sum(1 << (self.b + self.c + j) for j in range(self.e))
        return Pair.homogeneous(self.N, L, 0, x, xm)

    def reverse(self) -> "HomogeneousPair":
        return HomogeneousPair(self.N, self.c, self.b, self.e)


def _binom_row(m: int, prob: Fraction) -> list[Fraction]:
    return [math.comb(m, i) * prob**i * (1 - prob)**(m - i) for i in range(m + 1)]


def uv_weights(b: int, c: int, e: int, q: Fraction, lam: Fraction):
    """Integer parts of a user's weight ``u(al) + v(be)`` (``al`` ones among the
    ``c + e`` columns of ``x_m``, ``be`` among the ``b + e`` of ``x``): ``scale``
    times ``r_{x_m}`` and ``-lam r_x``, and the common ``scale``."""
    r = q / (1 - q)
    a_, b_ = r.numerator, r.denominator          # p/q = b_/a_
    M = max(b, c) + e
    u = [lam.denominator * a_**(M - k) * b_**(M + k) for k in (2 * al - c - e for al in range(c + e + 1))]
    v = [-lam.numerator * a_**(M - k) * b_**(M + k) for k in (2 * be - b - e for be in range(b + e + 1))]
    return u, v, lam.denominator * (a_ * b_)**M


@lru_cache(maxsize=512)
def _hom_categories(b: int, c: int, e: int, q: Fraction, lam: Fraction):
    """Merged categories of the linear statistic: sorted integer weights, base law,
    law of the changed user's category under D_m, and the integer scale."""
    p = 1 - q
    u, v, scale = uv_weights(b, c, e, q, lam)
    Bq, Cq, Eq = _binom_row(b, q), _binom_row(c, q), _binom_row(e, q)
    Cp, Ep = _binom_row(c, p), _binom_row(e, p)
    base: dict = defaultdict(Fraction)
    out: dict = defaultdict(Fraction)
    for i in range(b + 1):
        for j in range(c + 1):
            for kk in range(e + 1):
                W = u[j + kk] + v[i + kk]
                base[W] += Bq[i] * Cq[j] * Eq[kk]
                out[W] += Bq[i] * Cp[j] * Ep[kk]
    Ws = tuple(sorted(base))
    return Ws, tuple(base[w] for w in Ws), tuple(out[w] for w in Ws), scale


@dataclass(frozen=True)
class _Law:
    """Duck-typed law for :func:`exactdp.engine.kernel.tail_sums`."""

    L: int
    pi0: tuple
    weights: tuple


def _orient(Ws, pis) -> int:
    """+1 or -1: the orientation putting the weight farthest from the mean on top.

    The kernel conditions on the top category first; it is fast when the rare,
    extreme categories come first (000's forward pair as given; its reverse
    negated).  Both orientations give the same (certified) answer.
    """
    mean = sum(p * w for p, w in zip(pis, Ws))
    return 1 if Ws[-1] - mean >= mean - Ws[0] else -1


def _tail(Ws, pis, n, t, prec, tol, *, sign=1, max_nodes=None):
    """Certified ``TailSums`` of ``sign * Z`` with ``Z = sum_c T_c W_c``
    (``T ~ MN(n, pis)``) around ``sign * t``, or ``(None, Z)`` when Z is
    deterministic (one category or n = 0)."""
    if n == 0 or len(Ws) == 1:
        return None, n * Ws[0]
    if sign < 0:
        Ws, pis, t = tuple(-w for w in reversed(Ws)), tuple(reversed(pis)), -t
    w0 = Ws[0]
    law = _Law(len(Ws) - 1, pis, tuple(w - w0 for w in Ws))
    thr = Threshold.from_fraction(Fraction(t - n * w0), prec)
    return tail_sums(law, n, thr, prec=prec, tol=tol, max_nodes=max_nodes), None


def split_blocks(b: int, c: int, e: int, q: Fraction, lam: Fraction, n_base: int, *, changed: bool):
    """Independent blocks of ``Z`` (integer weights as in :func:`_hom_categories`).

    A user with ``j`` ones among the ``c`` columns of ``x_m \\ x``, ``i`` among
    the ``b`` of ``x \\ x_m`` and ``k`` among the ``e`` of ``x & x_m`` has weight
    ``u(j + k) + v(i + k)``; ``i``, ``j``, ``k`` are independent binomials.  For
    ``e = 0``, ``Z = U + V`` with ``U``, ``V`` linear in two independent marginal
    histograms (two :class:`~exactdp.engine.kernel.Block` s); for ``e > 0`` the users
    are a :class:`~exactdp.engine.kernel.Mixture` over ``k``.  ``n_base`` users come from
    the base; the ``changed`` user (randomized ``x_m``) has ``j ~ Bin(c, p)``,
    ``i ~ Bin(b, q)``, ``k ~ Bin(e, p)``.
    """
    p = 1 - q
    u, v, _ = uv_weights(b, c, e, q, lam)

    def parts(k, pj, n):
        return (Block(n, tuple(_binom_row(c, pj)), tuple(u[k: k + c + 1])),
                Block(n, tuple(_binom_row(b, q)), tuple(v[k: k + b + 1])))

    if e == 0:
        blocks = list(parts(0, q, n_base))
        if changed:
            blocks += parts(0, p, 1)
        return blocks
    blocks = [Mixture(n_base, tuple(_binom_row(e, q)), tuple(parts(k, q, 0) for k in range(e + 1)))]
    if changed:
        blocks.append(Mixture(1, tuple(_binom_row(e, p)), tuple(parts(k, p, 0) for k in range(e + 1))))
    return blocks


def _mixed(H: HomogeneousPair) -> bool:
    """True unless the pair is 000's (``x`` = base) or its reverse at some
    Hamming distance: those have one binomial law with rare extreme
    categories, which :func:`tail_sums` on the merged categories handles best."""
    return not (H.e == 0 and (H.b == 0 or H.c == 0))


def _split_eta_lam(H: HomogeneousPair, q: Fraction, lam: Fraction, inclusive: bool,
                   prec: int, tol: float, *, max_nodes=None) -> Interval:
    """``P[Z > 0]`` over all ``N`` users (the changed one included) by
    :func:`~exactdp.engine.kernel.block_tail_sums`: ``b + c`` conditioning steps
    instead of ``(b + 1)(c + 1) - 1`` merged categories."""
    blocks = split_blocks(H.b, H.c, H.e, q, lam, H.N - 1, changed=True)
    ts = block_tail_sums(blocks, Threshold.from_fraction(Fraction(0), prec), prec=prec, tol=tol,
                         max_nodes=max_nodes)
    return ts.p_above(inclusive)


def _lattice_groups(H: HomogeneousPair, q: Fraction, lam: Fraction) -> list:
    """``Z`` (in units of ``r``) as two groups for :mod:`exactdp.engine.lattice`: the
    ``N - 1`` base users and the changed user under ``D_m``."""
    Ws, pi0, pio, scale = _hom_categories(H.b, H.c, H.e, q, lam)
    vals = tuple(Fraction(w, scale) for w in Ws)
    return [Group(H.N - 1, vals, pi0), Group(1, vals, pio)]


HOM_ETA_METHODS = ("kernel", "lattice", "chernoff")


def _hom_eta_lam(H: HomogeneousPair, q: Fraction, lam: Fraction, inclusive: bool,
                 prec: int, tol: float, *, max_nodes=None, method: str = "kernel", h=None) -> Interval:
    if H.b == H.c == 0:                     # x == x_m: R = 1
        return Interval.exact(1 if (lam < 1 or (inclusive and lam == 1)) else 0)
    if method == "lattice":
        return lattice_tail(_lattice_groups(H, q, lam), h=h, inclusive=inclusive, tol=min(tol, 1e-12))
    if method == "chernoff":
        return Interval(Fraction(0), chernoff_upper(_lattice_groups(H, q, lam)))
    if _mixed(H):
        return _split_eta_lam(H, q, lam, inclusive, prec, tol, max_nodes=max_nodes)
    Ws, pi0, pio, _ = _hom_categories(H.b, H.c, H.e, q, lam)
    sign = _orient(Ws, pi0)
    lo = hi = Fraction(0)
    for W, po in zip(Ws, pio):
        if po == 0:
            continue
        ts, det = _tail(Ws, pi0, H.N - 1, -W, prec, tol, sign=sign, max_nodes=max_nodes)
        if ts is None:
            v = 1 if (det > -W or (inclusive and det == -W)) else 0
            lo += po * v
            hi += po * v
        else:
            iv = ts.p_above(inclusive) if sign > 0 else ts.p_below(inclusive)
            lo += po * iv.lower
            hi += po * iv.upper
    return Interval(lo, min(hi, Fraction(1)))


def _hom_delta_lam(H: HomogeneousPair, q: Fraction, lam: Fraction, prec: int, tol: float,
                   max_nodes: int | None = None) -> Interval:
    if H.b == H.c == 0:
        return Interval.exact(max(Fraction(0), 1 - lam))
    if _mixed(H):
        ts = block_tail_sums(split_blocks(H.b, H.c, H.e, q, lam, H.N, changed=False),
                             Threshold.from_fraction(Fraction(0), prec), prec=prec, tol=tol,
                             max_nodes=max_nodes)
        scale = uv_weights(H.b, H.c, H.e, q, lam)[2]
        return ts.excess_above().scale(Fraction(1, H.N * scale))
    Ws, pi0, _, scale = _hom_categories(H.b, H.c, H.e, q, lam)
    sign = _orient(Ws, pi0)
    ts, det = _tail(Ws, pi0, H.N, 0, prec, tol, sign=sign, max_nodes=max_nodes)
    if ts is None:
        return Interval.exact(Fraction(max(det, 0), H.N * scale))
    ex = ts.excess_above() if sign > 0 else ts.excess_below()
    return ex.scale(Fraction(1, H.N * scale))


def hom_eta(H: HomogeneousPair, q, lam=None, eps=None, inclusive: bool = False,
            prec: int = 160, *, tol: float = 1e-40, max_nodes: int | None = None,
            method: str = "kernel", h=None) -> Interval:
    """Certified eta of a homogeneous-base pair (any N) by the linear statistic.

    ``method``:

    * ``"kernel"`` (default): the branch-and-bound kernel; ``tol`` is its
      truncation mass (accounted for in the width), ``max_nodes`` bounds the
      work per kernel call (:class:`~exactdp.core.errors.CapacityError` beyond it).
      Mixed pairs (both ``b > 0`` and ``c > 0``, or ``e > 0``) go through the
      block kernel; with ``e >= 1`` they can be far slower than 000's pair or
      its reverse at large N.
    * ``"lattice"``: the dominance bracket of :func:`exactdp.engine.lattice.lattice_tail`
      with grid step ``h`` (a rational, in units of the likelihood ratios
      ``r``; the width shrinks about linearly with ``h``, the cost grows like
      ``1/h``).  At N = 1000, L = 5 and ``h = 1/64`` it takes seconds for every
      ``(b, c, e)``.
    * ``"chernoff"``: ``[0, Chernoff bound]`` (:func:`exactdp.engine.lattice.chernoff_upper`),
      a certified upper bound in milliseconds.

    Every method returns an enclosure of the same value, so they can be
    intersected (:meth:`~exactdp.core.interval.Interval.intersect`).

    >>> H = HomogeneousPair(8, 1, 2, 1)
    >>> exact = eta_exact(H.pair(), "1/4", lam=2)
    >>> a = hom_eta(H, "1/4", lam=2, tol=1e-30)
    >>> b = hom_eta(H, "1/4", lam=2, method="lattice", h="1/64")
    >>> c = hom_eta(H, "1/4", lam=2, method="chernoff")
    >>> a.contains(exact), b.contains(exact), c.contains(exact), float(b.width) < 0.02
    (True, True, True, True)
    """
    if method not in HOM_ETA_METHODS:
        raise ParameterError(f"method must be one of {', '.join(HOM_ETA_METHODS)}, got {method!r}")
    if method == "lattice":
        if h is None:
            raise ParameterError("method='lattice' needs the grid step h (a positive rational, e.g. '1/64')")
        h = domains.to_fraction(h, "h")
        if h <= 0:
            raise ParameterError(f"h must be a positive rational, got {h}")
    q = Fraction(domains.Q.parse(q))
    lam, eps = parse_lam_eps(lam, eps)
    kw = dict(method=method, h=h)
    if lam is not None:
        return _hom_eta_lam(H, q, lam, inclusive, prec, tol, max_nodes=max_nodes, **kw)
    if eps == 0:
        return _hom_eta_lam(H, q, Fraction(1), False, prec, tol, max_nodes=max_nodes, **kw)
    e = exp_interval(eps, prec + 96)           # e^eps in (lo, hi); no tie possible
    a = _hom_eta_lam(H, q, e.upper, False, prec, tol, max_nodes=max_nodes, **kw)
    b = _hom_eta_lam(H, q, e.lower, False, prec, tol, max_nodes=max_nodes, **kw)
    return Interval(a.lower, max(a.lower, b.upper))


def hom_delta(H: HomogeneousPair, q, lam=None, eps=None, prec: int = 160, tol: float = 1e-40,
              *, max_nodes: int | None = None) -> Interval:
    """Certified delta of a homogeneous-base pair: ``E_{0^N}[Z+] / N`` (``max_nodes``
    bounds each kernel search: :class:`~exactdp.core.errors.CapacityError` beyond it)."""
    q = Fraction(domains.Q.parse(q))
    lam, eps = parse_lam_eps(lam, eps)
    if lam is not None:
        return _hom_delta_lam(H, q, lam, prec, tol, max_nodes)
    e = exp_interval(eps, prec + 96)
    a = _hom_delta_lam(H, q, e.upper, prec, tol, max_nodes)
    b = _hom_delta_lam(H, q, e.lower, prec, tol, max_nodes)
    return Interval(a.lower, max(a.lower, b.upper))


# ----------------------------------------------------------------------------- dispatch
def route(P: Pair) -> str:
    """How ``P`` reduces: ``exact`` (coarse enumeration within capacity), ``l1``
    (polynomials), ``kernel`` (homogeneous base, certified) or ``none``.  The one
    dispatcher over these and the other strategies is
    :mod:`exactdp.reductions.methods`."""
    red = reduce_pair(P)
    if red.x == red.x_m or (len(red.sizes) == 1 and red.sizes[0] == 1):
        return "l1" if red.x != red.x_m else "exact"
    try:
        check_capacity(red)
        return "exact"
    except CapacityError:
        pass
    if red.is_homogeneous_base() and P.k == 1:
        return "kernel"
    return "none"


# ----------------------------------------------------------------------------- enumeration
def enumerate_pairs(N: int, L: int, *, max_weight: int | None = None, homogeneous_base: bool = False,
                    k: int = 1, dedup: bool = True) -> Iterator[Pair]:
    """All neighbouring pairs with ``x != x_m`` (one representative per symmetry class).

    ``max_weight`` restricts every vector to at most that many set bits (then
    only bit permutations are used as symmetries); ``homogeneous_base`` only
    yields bases of ``N - 1`` copies of one vector.
    """
    types = [t for t in range(1 << L) if max_weight is None or weight(t) <= max_weight]
    flips = max_weight is None
    seen = set()
    if homogeneous_base:
        bases = [(z,) * (N - 1) for z in types] if N > 1 else [()]
    else:
        bases = itertools.combinations_with_replacement(types, N - 1)
    for bs in bases:
        base = [0] * (1 << L)
        for t in bs:
            base[t] += 1
        base = tuple(base)
        for x in types:
            for xm in types:
                if x == xm:
                    continue
                P = Pair(L, base, x, xm, k)
                if dedup:
                    key = canonical_key(P, flips)
                    if key in seen:
                        continue
                    seen.add(key)
                yield P
