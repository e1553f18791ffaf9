"""Independent brute-force reference: the exact law of the privacy ratio R.

This module is deliberately *naive*.  It does not use the paper's sufficient
statistic (000 (3.3)-(3.4): counts ``T_l`` of synthetic vectors by number of
set bits); instead it enumerates every histogram ``S = (s_1, ..., s_{2^L})``
over all ``2^L`` vector types, exactly as in the definition of the mechanism
(000 §1.3):

* each user's bit vector ``x`` becomes ``s`` with probability
  ``p(s|x) = q^(L-m) p^m``, ``m`` the number of agreeing bits;
* the server sees only the histogram of the randomized vectors, whose law
  ``P(S|D)`` is built *by exact convolution, user by user*.

For neighbouring collections ``D, D_m`` the privacy ratio is
``R(S) = P(S|D_m) / P(S|D)`` with ``S ~ A(D_m)`` (the *sampling law*).
For the canonical pair (``D`` = N zero vectors, ``D_m`` = N-1 zero vectors and
one all-ones vector) the *forward* direction is ``(D, D_m)`` as given and the
*reverse* direction (003 §2.1) swaps the roles: ``S ~ A(D)`` and
``R = P(S|D) / P(S|D_m)``.  ``worst`` takes the larger of the two, separately
for ``eta`` and ``delta``.

    eta(lam)   = P[R > lam]            (inclusive: P[R >= lam])
    delta(lam) = E[(1 - lam/R)+] = sum_S (P(S|sampling) - lam P(S|other))+

Everything is exact: vector-transition probabilities are integers over the
common denominator ``den^L`` (``q = u/den``), histogram probabilities integers
over ``den^(N L)``, and every public result is a :class:`fractions.Fraction`.
No floating point is used anywhere.

Vector types are numbered as in 000 §1.3: type ``i`` has bit ``j`` equal to
``(i >> j) & 1`` (``v_1 = 00..0``, ``v_2 = 10..0``, ``v_3 = 01..0``, ...), and
histograms are tuples of length ``2^L`` in that order.

>>> law = canonical_law(2, 1, "1/3", "forward")
>>> sorted(law.items())
[(Fraction(1, 2), Fraction(2, 9)), (Fraction(5, 4), Fraction(5, 9)), (Fraction(2, 1), Fraction(2, 9))]
>>> mean_R(law), var_R(law)
(Fraction(5, 4), Fraction(1, 4))
>>> canonical_eta(2, 1, "1/3", 1, "worst"), canonical_delta(2, 1, "1/3", 1, "worst")
(Fraction(7, 9), Fraction(2, 9))

The size guard refuses enumerations beyond :data:`MAX_HISTOGRAMS` histograms
before any work starts:

>>> canonical_law(40, 3, "1/4")
Traceback (most recent call last):
...
exactdp.core.errors.CapacityError: brute force: N=40, L=3 has C(47, 7) = 62891499 histograms, more than the cap 200000; use a smaller N or L (or the certified engine)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Mapping

from ..core import domains
from ..core.errors import CapacityError, ParameterError

__all__ = [
    "MAX_HISTOGRAMS", "vectors", "type_index", "hamming", "transition",
    "collection_counts", "num_histograms", "check_capacity",
    "histogram_law", "law_of_R", "eta", "delta", "eta_from_law", "delta_from_law",
    "mean_R", "var_R", "canonical_pair", "canonical", "canonical_law",
    "canonical_eta", "canonical_delta", "RatioLaw", "WorstCase",
]

#: Largest number of histograms ``C(N + 2^L - 1, 2^L - 1)`` the brute force enumerates.
MAX_HISTOGRAMS = 200_000


# --------------------------------------------------------------------- vectors
def vectors(L: int) -> list[tuple[int, ...]]:
    """All ``2^L`` bit vectors in the paper's enumeration order (000 §1.3).

    >>> vectors(2)
    [(0, 0), (1, 0), (0, 1), (1, 1)]
    """
    L = domains.L.parse(L)
    return [tuple((i >> j) & 1 for j in range(L)) for i in range(1 << L)]


def type_index(v: Iterable[int]) -> int:
    """Index of a bit vector in :func:`vectors` order.

    >>> type_index((0, 1)), type_index((1, 1, 0))
    (2, 3)
    """
    idx = 0
    for j, b in enumerate(v):
        if b not in (0, 1) or isinstance(b, bool):
            raise ParameterError(f"bit vectors must contain 0/1 integers, got {b!r}")
        idx |= b << j
    return idx


def hamming(i: int, j: int) -> int:
    """Hamming distance between vector types ``i`` and ``j``."""
    return bin(i ^ j).count("1")


def transition(x: Iterable[int], s: Iterable[int], q) -> Fraction:
    """``p(s|x) = q^(L-m) p^m``, ``m`` the number of agreeing bits (000 §1.3).

    >>> transition((0, 0, 0), (1, 0, 0), "1/4")
    Fraction(9, 64)
    """
    q = domains.Q.parse(q)
    x, s = tuple(x), tuple(s)
    if len(x) != len(s):
        raise ParameterError("bit vectors must have the same length")
    agree = sum(1 for a, b in zip(x, s) if a == b)
    return q ** (len(x) - agree) * (1 - q) ** agree


def _transition_int(L: int, q: Fraction) -> tuple[tuple[int, ...], ...]:
    """Integer numerators of ``p(s|x)`` over the common denominator ``den^L``."""
    u, den = q.numerator, q.denominator
    v = den - u
    return tuple(tuple(u ** hamming(x, s) * v ** (L - hamming(x, s)) for s in range(1 << L))
                 for x in range(1 << L))


# ----------------------------------------------------------------- collections
def collection_counts(D, L: int | None = None) -> tuple[int, tuple[int, ...]]:
    """Normalise a collection to ``(L, counts)`` with ``counts[i]`` the number of
    users holding vector type ``i``.

    ``D`` is a sequence of bit-vector tuples, or a mapping from a bit-vector
    tuple (or a type index, then ``L`` is required) to a multiplicity.

    >>> collection_counts([(0, 0), (0, 0), (1, 1)])
    (2, (2, 0, 0, 1))
    >>> collection_counts({0: 2, 3: 1}, L=2)
    (2, (2, 0, 0, 1))
    """
    if isinstance(D, Mapping):
        items = list(D.items())
    else:
        items = [(v, 1) for v in D]
    if not items:
        raise ParameterError("a collection must contain at least one vector")
    lengths = {len(k) for k, _ in items if not isinstance(k, int)}
    if len(lengths) > 1:
        raise ParameterError(f"bit vectors of different lengths {sorted(lengths)}")
    if lengths:
        (L0,) = lengths
        if L is not None and domains.L.parse(L) != L0:
            raise ParameterError(f"bit vectors have length {L0}, but L={L}")
        L = L0
    if L is None:
        raise ParameterError("L is required when vector types are given as integers")
    L = domains.L.parse(L)
    counts = [0] * (1 << L)
    for k, m in items:
        if isinstance(k, bool) or not isinstance(m, int) or isinstance(m, bool) or m < 0:
            raise ParameterError(f"bad collection entry {k!r}: {m!r}")
        if isinstance(k, int):
            if not 0 <= k < (1 << L):
                raise ParameterError(f"vector type {k} outside [0, 2^L) for L={L}")
            i = k
        else:
            i = type_index(k)
        counts[i] += m
    domains.N.parse(sum(counts))
    return L, tuple(counts)


def num_histograms(N: int, L: int, cap: int | None = None) -> int:
    """``C(N + 2^L - 1, 2^L - 1)``, the number of histograms of ``N`` vectors.

    With ``cap`` the count stops early and returns ``cap + 1`` once it exceeds
    ``cap`` (so that huge ``L`` costs nothing).

    >>> num_histograms(6, 3), num_histograms(10**9, 64, cap=10)
    (1716, 11)
    """
    k = min(N, (1 << L) - 1)   # C(n, k) with n = N + 2^L - 1
    n = N + (1 << L) - 1
    c = 1
    for i in range(1, k + 1):
        c = c * (n - k + i) // i
        if cap is not None and c > cap:
            return cap + 1
    return c


def check_capacity(N: int, L: int, cap: int = MAX_HISTOGRAMS) -> int:
    """Raise :class:`~exactdp.core.errors.CapacityError` if the enumeration is too big."""
    c = num_histograms(N, L, cap)
    if c > cap:
        exact = num_histograms(N, L, 10**12)
        what = f"{exact}" if exact <= 10**12 else f"more than {10**12}"
        raise CapacityError(
            f"brute force: N={N}, L={L} has C({N + (1 << L) - 1}, {(1 << L) - 1}) = {what} "
            f"histograms, more than the cap {cap}; use a smaller N or L (or the certified engine)")
    return c


@lru_cache(maxsize=512)
def _law_int(counts: tuple[int, ...], L: int, q: Fraction) -> tuple[dict, int]:
    """Histogram law as ``({histogram: integer numerator}, denominator)``.

    Exact convolution, one user at a time; denominator ``den^(N L)``.
    """
    N = sum(counts)
    check_capacity(N, L)
    trans = _transition_int(L, q)
    K = 1 << L
    cur = {(0,) * K: 1}
    for x, m in enumerate(counts):
        row = trans[x]
        for _ in range(m):
            nxt: dict = defaultdict(int)
            for h, w in cur.items():
                for s in range(K):
                    h2 = h[:s] + (h[s] + 1,) + h[s + 1:]
                    nxt[h2] += w * row[s]
            cur = dict(nxt)
    return cur, q.denominator ** (N * L)


def histogram_law(D, q, L: int | None = None) -> dict[tuple[int, ...], Fraction]:
    """The exact law of ``A(D)``: ``{histogram: probability}``.

    >>> law = histogram_law([(0,), (1,)], "1/3")
    >>> law[(2, 0)], law[(1, 1)], law[(0, 2)]
    (Fraction(2, 9), Fraction(5, 9), Fraction(2, 9))
    """
    q = domains.Q.parse(q)
    L, counts = collection_counts(D, L)
    nums, den = _law_int(counts, L, q)
    return {h: Fraction(w, den) for h, w in nums.items()}


def _pair(D, D_m, q, L, check_neighbouring):
    q = domains.Q.parse(q)
    L1, c = collection_counts(D, L)
    L2, cm = collection_counts(D_m, L1)
    if sum(c) != sum(cm):
        raise ParameterError(f"D has {sum(c)} vectors but D_m has {sum(cm)}")
    if check_neighbouring and sum(abs(a - b) for a, b in zip(c, cm)) > 2:
        raise ParameterError("D and D_m must differ in at most one user's vector")
    law_D, den = _law_int(c, L1, q)
    law_m, _ = _law_int(cm, L1, q)
    return law_D, law_m, den


def law_of_R(D, D_m, q, *, L: int | None = None, under: str = "D_m",
             check_neighbouring: bool = True) -> dict[Fraction, Fraction]:
    """Exact law ``{R value: probability}`` of ``R(S) = P(S|D_m) / P(S|D)``.

    By default ``S ~ A(D_m)`` (the sampling law); ``under="D"`` gives the law of
    the same function ``R`` under ``S ~ A(D)`` (useful for change of measure:
    ``E_D[R] = 1``).  Since ``0 < q < 1/2`` every histogram has positive
    probability under both collections, so ``R`` is finite and positive.

    >>> sorted(law_of_R([(0,)], [(1,)], "1/4").items())
    [(Fraction(1, 3), Fraction(1, 4)), (Fraction(3, 1), Fraction(3, 4))]
    >>> sorted(law_of_R([(0,)], [(1,)], "1/4", under="D").items())
    [(Fraction(1, 3), Fraction(3, 4)), (Fraction(3, 1), Fraction(1, 4))]
    """
    if under not in ("D_m", "D"):
        raise ParameterError(f"under must be 'D_m' or 'D', got {under!r}")
    law_D, law_m, den = _pair(D, D_m, q, L, check_neighbouring)
    weights = law_m if under == "D_m" else law_D
    out: dict = defaultdict(int)
    for h, wd in law_D.items():
        out[Fraction(law_m[h], wd)] += weights[h]
    return {r: Fraction(w, den) for r, w in sorted(out.items())}


# ------------------------------------------------------------- eta and delta
def _lam(lam) -> Fraction:
    return Fraction(domains.LAM.parse(lam))


def eta_from_law(law: Mapping, lam, inclusive: bool = False) -> Fraction:
    """``P[R > lam]`` (``P[R >= lam]`` when ``inclusive``) from a law of R."""
    lam = _lam(lam)
    return sum((w for r, w in law.items() if r > lam or (inclusive and r == lam)), Fraction(0))


def delta_from_law(law: Mapping, lam) -> Fraction:
    """``E[(1 - lam/R)+]`` from a law of R (under the sampling law)."""
    lam = _lam(lam)
    return sum((w * (1 - lam / r) for r, w in law.items() if r > lam), Fraction(0))


def eta(D, D_m, q, lam, inclusive: bool = False, *, L: int | None = None,
        check_neighbouring: bool = True) -> Fraction:
    """``P[R > lam]`` with ``S ~ A(D_m)``, ``R = P(S|D_m)/P(S|D)``; inclusive: ``P[R >= lam]``.

    >>> eta([(0,)], [(1,)], "1/4", 3), eta([(0,)], [(1,)], "1/4", 3, inclusive=True)
    (Fraction(0, 1), Fraction(3, 4))
    """
    law = law_of_R(D, D_m, q, L=L, check_neighbouring=check_neighbouring)
    return eta_from_law(law, lam, inclusive)


def delta(D, D_m, q, lam, *, L: int | None = None, check_neighbouring: bool = True) -> Fraction:
    """Hockey-stick divergence ``sum_S (P(S|D_m) - lam P(S|D))+`` computed
    directly on histograms (not through the law of R).

    >>> delta([(0,)], [(1,)], "1/4", 1), delta([(0,)], [(1,)], "1/4", 2)
    (Fraction(1, 2), Fraction(1, 4))
    """
    lam = _lam(lam)
    law_D, law_m, den = _pair(D, D_m, q, L, check_neighbouring)
    a, b = lam.numerator, lam.denominator
    tot = sum(max(b * law_m[h] - a * wd, 0) for h, wd in law_D.items())
    return Fraction(tot, den * b)


def mean_R(law) -> Fraction:
    """``E[R]`` of a law ``{R: probability}`` (or a :class:`RatioLaw`)."""
    law = law.law if isinstance(law, RatioLaw) else law
    return sum((r * w for r, w in law.items()), Fraction(0))


def var_R(law) -> Fraction:
    """``Var[R]`` of a law ``{R: probability}`` (or a :class:`RatioLaw`)."""
    law = law.law if isinstance(law, RatioLaw) else law
    m = mean_R(law)
    return sum(((r - m) ** 2 * w for r, w in law.items()), Fraction(0))


# ------------------------------------------------------------ canonical pair
def canonical_pair(N: int, L: int) -> tuple[list, list]:
    """``(D, D_m)``: N zero vectors; N-1 zero vectors and one all-ones vector.

    >>> canonical_pair(2, 3)
    ([(0, 0, 0), (0, 0, 0)], [(0, 0, 0), (1, 1, 1)])
    """
    N = domains.N.parse(N)
    L = domains.L.parse(L)
    zero, one = (0,) * L, (1,) * L
    return [zero] * N, [zero] * (N - 1) + [one]


@dataclass(frozen=True)
class RatioLaw:
    """An exact finite law of the privacy ratio ``R`` (one direction).

    ``law`` maps each attained value of ``R`` to its probability, sorted by value.
    """

    law: Mapping
    direction: str = "forward"

    @property
    def atoms(self) -> list[Fraction]:
        """Attained values of R, increasing."""
        return sorted(self.law)

    @property
    def max(self) -> Fraction:
        return max(self.law)

    def eta(self, lam, inclusive: bool = False) -> Fraction:
        return eta_from_law(self.law, lam, inclusive)

    def delta(self, lam) -> Fraction:
        return delta_from_law(self.law, lam)

    def sf(self, x) -> Fraction:
        """``P[R > x]`` for any rational ``x``."""
        x = domains.to_fraction(x, "x")
        return sum((w for r, w in self.law.items() if r > x), Fraction(0))

    def cdf(self, x) -> Fraction:
        """``P[R <= x]`` for any rational ``x``."""
        x = domains.to_fraction(x, "x")
        return sum((w for r, w in self.law.items() if r <= x), Fraction(0))

    def bin_masses(self, edges) -> list[Fraction]:
        """``[P[edges[i] < R <= edges[i+1]]]``."""
        e = [domains.to_fraction(x, "edge") for x in edges]
        return [sum((w for r, w in self.law.items() if lo < r <= hi), Fraction(0))
                for lo, hi in zip(e, e[1:])]

    def mean(self) -> Fraction:
        return mean_R(self.law)

    def var(self) -> Fraction:
        return var_R(self.law)


@dataclass(frozen=True)
class WorstCase:
    """``max`` of the forward and reverse directions, separately for eta and delta."""

    forward: RatioLaw
    reverse: RatioLaw
    direction: str = "worst"

    def eta(self, lam, inclusive: bool = False) -> Fraction:
        return max(self.forward.eta(lam, inclusive), self.reverse.eta(lam, inclusive))

    def delta(self, lam) -> Fraction:
        return max(self.forward.delta(lam), self.reverse.delta(lam))


@lru_cache(maxsize=256)
def _canonical(N: int, L: int, q: Fraction, direction: str):
    D, D_m = canonical_pair(N, L)
    if direction == "forward":
        return RatioLaw(law_of_R(D, D_m, q), "forward")
    if direction == "reverse":
        return RatioLaw(law_of_R(D_m, D, q), "reverse")
    return WorstCase(_canonical(N, L, q, "forward"), _canonical(N, L, q, "reverse"))


def canonical(N: int, L: int, q, direction: str = "forward"):
    """Brute-force law of R for the canonical pair in a direction.

    Returns a :class:`RatioLaw` (forward, reverse) or a :class:`WorstCase`.

    >>> c = canonical(1, 2, "1/3", "reverse")
    >>> c.atoms, c.eta(4), c.eta(4, inclusive=True), c.delta(1)
    ([Fraction(1, 4), Fraction(1, 1), Fraction(4, 1)], Fraction(0, 1), Fraction(4, 9), Fraction(1, 3))
    """
    N = domains.N.parse(N)
    L = domains.L.parse(L)
    q = Fraction(domains.Q.parse(q))
    direction = domains.parse_direction(direction)
    check_capacity(N, L)
    return _canonical(N, L, q, direction)


def canonical_law(N: int, L: int, q, direction: str = "forward") -> dict[Fraction, Fraction]:
    """``{R: probability}`` for the canonical pair (forward or reverse)."""
    c = canonical(N, L, q, direction)
    if isinstance(c, WorstCase):
        raise ParameterError("the worst case is a max of eta/delta, not a law; "
                             "use direction 'forward' or 'reverse'")
    return dict(c.law)


def canonical_eta(N: int, L: int, q, lam, direction: str = "forward",
                  inclusive: bool = False) -> Fraction:
    """eta for the canonical pair; ``direction`` forward, reverse or worst."""
    return canonical(N, L, q, direction).eta(lam, inclusive)


def canonical_delta(N: int, L: int, q, lam, direction: str = "forward") -> Fraction:
    """delta for the canonical pair; ``direction`` forward, reverse or worst."""
    return canonical(N, L, q, direction).delta(lam)
