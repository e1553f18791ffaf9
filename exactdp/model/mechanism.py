"""The mechanism: bit-vector randomized response with exact rational noise.

Paper 000 (``000_3d8ddaba8b46cf9c.txt``) §1.3: each of the ``L`` bits of a
user's vector is flipped independently with probability ``q`` (``p = 1 - q``);
the server sees only the histogram of randomized vectors.  For the canonical
pair (D = N zero vectors, D_m = N-1 zeros + one all-ones vector) the privacy
ratio depends on the synthetic collection only through ``T = (T_0..T_L)``,
the counts of synthetic vectors with ``l`` set bits (000 (3.3)-(3.4)):

    R = X / N,   X = sum_l T_l c_l,   c_l = (q/p)^(L-2l)        (000 (3.6))

With ``q/p = a/b`` in lowest terms, ``c_l = W_l / (a b)^L`` with the *integer*
weights ``W_l = a^(2(L-l)) b^(2l)``, so that ``Z = (a b)^L X = sum_l T_l W_l``
is an integer and every threshold comparison is exact.

>>> m = Mechanism(2, "1/3")
>>> m.p, m.a, m.b, m.weights
(Fraction(2, 3), 1, 2, (1, 4, 16))
>>> m.pi0      # Bin(2, q): synthetic set bits of a zero vector  (000 (3.7))
(Fraction(4, 9), Fraction(4, 9), Fraction(1, 9))
>>> m.c        # (q/p)^(L-2l)   (000 (3.2))
(Fraction(1, 4), Fraction(1, 1), Fraction(4, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
import math
from math import comb

from ..core import domains
from ..core.errors import ParameterError

__all__ = ["Mechanism"]


#: Largest privacy ratio ``(p/q)^L`` the engine accepts: its screening and fast
#: mode work in float64, whose range ends near 1.8e308.
RATIO_MAX_LIMIT = 10**300
#: Smallest accepted distance ``1/2 - q``: closer to 1/2, float64 reads q as 1/2.
HALF_GAP = Fraction(1, 2**50)


def q_min(L: int) -> Fraction:
    """Smallest accepted ``q`` for ``L`` bits: ``1/(1 + k)`` with ``k`` the largest
    integer such that ``k^L <= 10^300``, so that ``(p/q)^L <= 10^300`` for every
    accepted ``q``.

    >>> q_min(1) == Fraction(1, 10**300 + 1), float(q_min(2)), float(q_min(5))
    (True, 1e-150, 1e-60)
    """
    L = domains.L.parse(L)
    lo, hi = 1, 10 ** (300 // L + 1)  # lo^L <= limit < hi^L
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if mid ** L <= RATIO_MAX_LIMIT else (lo, mid)
    k = lo
    return Fraction(1, 1 + k)


def check_float_range(L: int, q: Fraction) -> None:
    """Refuse ``q`` outside the float64 range of the engine, in one line.

    ``q`` must satisfy ``(p/q)^L <= 10^300`` (else the ratios overflow float64)
    and ``1/2 - q >= 2^-50`` (else float64 cannot tell q from 1/2).

    >>> check_float_range(2, Fraction(1, 10**400))
    Traceback (most recent call last):
    ...
    exactdp.core.errors.ParameterError: q is too small for L = 2: the ratio (p/q)^L must stay below 1e300 (float64 range), so q must be in [1e-150, 1/2 - 2^-50], got 1e-400
    """
    if Fraction(1, 2) - q < HALF_GAP:
        raise ParameterError(
            f"q is too close to 1/2 (float64 would read it as 1/2): q must be in "
            f"[{_sci(q_min(L))}, 1/2 - 2^-50], got {_show(q)}")
    if q < q_min(L):
        raise ParameterError(
            f"q is too small for L = {L}: the ratio (p/q)^L must stay below 1e300 (float64 "
            f"range), so q must be in [{_sci(q_min(L))}, 1/2 - 2^-50], got {_show(q)}")


def _sci(x: Fraction) -> str:
    return f"{float(x):.3g}" if x > Fraction(1, 10**307) else str(x)


def _show(q: Fraction) -> str:
    num, den = q.numerator, q.denominator
    if num == 1 and den > 10**6 and str(den).rstrip("0") == "1":
        return f"1e-{len(str(den)) - 1}"
    if den > 10**30 or num > 10**30:
        s = f"{num}/{den}"
        return s if len(s) <= 60 else s[:57] + "..."
    return str(q)


@dataclass(frozen=True)
class Mechanism:
    """Randomized response on ``L``-bit vectors with exact flip probability ``q``.

    Parameters are validated once, here: ``L`` in :data:`exactdp.core.domains.L`,
    ``q`` in :data:`exactdp.core.domains.Q` (read exactly; floats are refused).
    """

    L: int
    q: Fraction
    p: Fraction = field(init=False)
    a: int = field(init=False, repr=False)
    b: int = field(init=False, repr=False)
    pi0: tuple = field(init=False, repr=False)
    pi1: tuple = field(init=False, repr=False)
    weights: tuple = field(init=False, repr=False)
    c: tuple = field(init=False, repr=False)

    def __post_init__(self):
        L = domains.L.parse(self.L)
        q = domains.Q.parse(self.q)
        check_float_range(L, q)
        p = 1 - q
        r = q / p
        a, b = r.numerator, r.denominator
        set_ = object.__setattr__
        set_(self, "L", L)
        set_(self, "q", q)
        set_(self, "p", p)
        set_(self, "a", a)
        set_(self, "b", b)
        set_(self, "pi0", tuple(comb(L, l) * q**l * p**(L - l) for l in range(L + 1)))
        set_(self, "pi1", tuple(comb(L, l) * p**l * q**(L - l) for l in range(L + 1)))
        set_(self, "weights", tuple(a**(2 * (L - l)) * b**(2 * l) for l in range(L + 1)))
        set_(self, "c", tuple(r**(L - 2 * l) for l in range(L + 1)))

    # ----------------------------------------------------------------- basics
    @property
    def scale(self) -> int:
        """``(a b)^L``: ``Z = scale * X`` is the integer form of X."""
        return (self.a * self.b) ** self.L

    @property
    def ratio_max(self) -> Fraction:
        """``(p/q)^L``, the largest value of R (local DP ratio, 000 §1.3)."""
        return (self.p / self.q) ** self.L

    def transition(self, x, s) -> Fraction:
        """``P[A_0(x) = s] = q^(L-m) p^m`` with ``m`` the agreeing bits (000 §1.3).

        ``x`` and ``s`` are sequences of 0/1 of length ``L``.

        >>> Mechanism(3, "1/4").transition((0, 0, 0), (1, 0, 0))
        Fraction(9, 64)
        """
        if len(x) != self.L or len(s) != self.L:
            raise ValueError(f"bit vectors must have length L={self.L}")
        agree = sum(1 for u, v in zip(x, s) if u == v)
        return self.q ** (self.L - agree) * self.p ** agree

    # ------------------------------------------------------------- sampling
    def sample_counts(self, n: int, size: int, rng=None, outlier: bool = False) -> np.ndarray:
        """Monte Carlo: ``size`` draws of ``T`` from ``n`` zero vectors (plus one
        all-ones vector when ``outlier``), shape ``(size, L+1)``.  000 (3.5)."""
        import numpy as np
        rng = np.random.default_rng(rng)
        p0 = np.array([float(x) for x in self.pi0])
        p0 /= p0.sum()
        T = rng.multinomial(n, p0, size=size)
        if outlier:
            p1 = np.array([float(x) for x in self.pi1])
            p1 /= p1.sum()
            T += rng.multinomial(1, p1, size=size)
        return T

    def sample_histograms(self, D, size: int, rng=None) -> np.ndarray:
        """Monte Carlo: ``size`` synthetic histograms S = A(D), shape ``(size, 2^L)``.

        ``D`` is a sequence of bit vectors (tuples of 0/1, or ints whose bit j
        is position j).  Each bit of each vector flips independently with
        probability q (000 §1.3); the histogram counts the 2^L vector types.
        Needs ``L <= 20``.

        >>> h = Mechanism(2, "1/4").sample_histograms([(0, 0), (1, 1)], 5, rng=0)
        >>> h.shape, bool((h.sum(axis=1) == 2).all())
        ((5, 4), True)
        """
        if self.L > 20:
            raise ValueError(f"sample_histograms needs L <= 20 (2^L types), got L={self.L}")
        import numpy as np
        rng = np.random.default_rng(rng)
        x = np.array([v if isinstance(v, (int, np.integer))
                      else sum(int(b) << j for j, b in enumerate(v)) for v in D], dtype=np.int64)
        flips = rng.random((size, len(x), self.L)) < float(self.q)
        masks = (flips * (1 << np.arange(self.L))).sum(axis=2)
        types = x[None, :] ^ masks
        out = np.zeros((size, 1 << self.L), dtype=np.int64)
        rows = np.repeat(np.arange(size), len(x))
        np.add.at(out, (rows, types.ravel()), 1)
        return out

    def sample_ratio(self, N: int, size: int, direction: str = "forward", rng=None) -> np.ndarray:
        """Monte Carlo draws of R (float64) in the given direction.

        forward: S ~ A(D_m), R = X/N;  reverse: S ~ A(D), R = N/X  (003 (2.10)).
        """
        import numpy as np
        c = np.array([float(x) for x in self.c])
        if direction == "forward":
            T = self.sample_counts(N - 1, size, rng, outlier=True)
            return (T @ c) / N
        if direction == "reverse":
            T = self.sample_counts(N, size, rng, outlier=False)
            return N / (T @ c)
        raise ValueError(f"direction must be forward or reverse, got {direction!r}")
