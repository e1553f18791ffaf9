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
from math import comb

from . import domains

__all__ = ["Mechanism"]


@dataclass(frozen=True)
class Mechanism:
    """Randomized response on ``L``-bit vectors with exact flip probability ``q``.

    Parameters are validated once, here: ``L`` in :data:`exactdp.domains.L`,
    ``q`` in :data:`exactdp.domains.Q` (read exactly; floats are refused).
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
