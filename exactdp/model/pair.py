"""The one model: a neighbouring pair of collections of L-bit vectors.

A *pair* is two collections of ``N`` bit vectors of length ``L`` that differ in
one user (000 §1.3, definition of neighbouring collections): a base ``D'`` of
``N - 1`` vectors, the changed user's vector ``x`` in ``D = D' + {x}`` and ``x_m``
in ``D_m = D' + {x_m}``.  Everywhere in exactdp ``R(S) = P(S|D_m) / P(S|D)``
with ``S ~ A(D_m)`` (000 (1.6)-(1.7)); the reverse pair swaps ``D`` and ``D_m``
(003 §2.1).  With ``k``-randomization (000 §6, 003 §1) every user submits ``k``
independent randomizations of its vector.

A vector is an integer *type* ``t`` whose bit ``j`` is ``(t >> j) & 1`` (000 §1.3
order), written as a bit string with bit 0 first: type 1 at L = 3 is ``"100"``.
The base is stored sparsely as sorted ``(type, count)`` items, so a pair at
deployment scale (L = 64, N = 10^9) is a few integers.

000's pair ``D* = 0^N``, ``D_m* = 0^(N-1) + 1^L`` and its reverse are factories
(:func:`canonical_pair`, :func:`reverse_canonical_pair`); :meth:`Pair.canonical_form`
recognises every pair equivalent to them under bit flips and constant columns.

>>> P = Pair.from_mapping({"000": 2, "111": 1}, {"000": 3})
>>> P.describe()
'base [2x000], 111 -> 000 (N=3, L=3)'
>>> P.canonical_form()
('reverse', 3, 3)
>>> canonical_pair(10**9, 64).canonical_form()
('forward', 1000000000, 64)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Iterable

from ..core import domains
from ..core.errors import CapacityError, ParameterError

__all__ = [
    "Pair", "canonical_pair", "reverse_canonical_pair", "bits_of", "type_of", "weight",
    "parse_vector", "MAX_EXPLICIT_USERS",
]

#: Largest N for which :meth:`Pair.collections` writes the users out one by one.
MAX_EXPLICIT_USERS = 10**6


def bits_of(t: int, L: int) -> tuple[int, ...]:
    """Bit vector of type ``t`` (bit ``j`` is ``(t >> j) & 1``).

    >>> bits_of(6, 3)
    (0, 1, 1)
    """
    return tuple((t >> j) & 1 for j in range(L))


def type_of(v: Iterable[int]) -> int:
    """Type of a bit vector given as a sequence of 0/1 integers (inverse of :func:`bits_of`).

    >>> type_of((0, 1, 1))
    6
    """
    t = 0
    for j, b in enumerate(v):
        if isinstance(b, bool) or b not in (0, 1):
            raise ParameterError(f"bit vectors must contain 0/1 integers, got {b!r}")
        t |= b << j
    return t


def weight(t: int) -> int:
    """Number of set bits of type ``t``."""
    return bin(t).count("1")


def parse_vector(v, L: int | None = None) -> tuple[int, int]:
    """``(L, type)`` of a vector given as a bit string ``"0110"``, a 0/1 tuple or
    (with ``L``) a type index.

    >>> parse_vector("011"), parse_vector((1, 0)), parse_vector(5, 3)
    ((3, 6), (2, 1), (3, 5))
    """
    if isinstance(v, str):
        s = v.strip()
        if not s or set(s) - {"0", "1"}:
            raise ParameterError(f"a bit vector is a string of 0s and 1s, got {v!r}")
        return len(s), type_of(int(ch) for ch in s)
    if isinstance(v, int) and not isinstance(v, bool):
        if L is None:
            raise ParameterError("vector types given as integers need L")
        if not 0 <= v < 1 << L:
            raise ParameterError(f"vector type {v} outside [0, 2^L) for L={L}")
        return L, v
    v = tuple(v)
    return len(v), type_of(v)


def _counts(D, L: int | None) -> tuple[int, dict]:
    """``(L, {type: count})`` of a collection: a sequence of vectors or a mapping
    from vectors to counts (vectors as in :func:`parse_vector`)."""
    items = list(D.items()) if isinstance(D, Mapping) else [(v, 1) for v in D]
    out: dict = defaultdict(int)
    for v, m in items:
        Lv, t = parse_vector(v, L)
        if L is None:
            L = Lv
        elif Lv != L:
            raise ParameterError(f"bit vectors have length {Lv}, but L={L}")
        if isinstance(m, bool) or not isinstance(m, int) or m < 0:
            raise ParameterError(f"counts must be nonnegative integers, got {m!r} for {v!r}")
        if m:
            out[t] += m
    if L is None or not out:
        raise ParameterError("a collection must contain at least one vector")
    return domains.L.parse(L), dict(out)


@dataclass(frozen=True)
class Pair:
    """A neighbouring pair ``D = base + {x}``, ``D_m = base + {x_m}`` of L-bit vectors.

    ``base`` holds the ``N - 1`` unchanged users as sorted ``(type, count)``
    items with positive counts (a dense tuple of ``2^L`` counts is accepted and
    converted); ``k`` is the number of randomizations per user (1: the plain
    mechanism).

    >>> Pair(2, (1, 0, 0, 0), 0, 3) == Pair(2, ((0, 1),), 0, 3)
    True
    """

    L: int
    base: tuple
    x: int
    x_m: int
    k: int = 1

    def __post_init__(self):
        L = domains.L.parse(self.L)
        base = tuple(self.base)
        if base and all(isinstance(c, int) and not isinstance(c, bool) for c in base):
            if len(base) != 1 << L:
                raise ParameterError(f"base must have 2^L = {1 << L} counts, got {len(base)}")
            if any(c < 0 for c in base):
                raise ParameterError("base counts must be nonnegative integers")
            base = tuple((t, c) for t, c in enumerate(base) if c)
        else:
            merged: dict = defaultdict(int)
            for item in base:
                try:
                    t, c = item
                except (TypeError, ValueError):
                    raise ParameterError(f"base items are (type, count) pairs, got {item!r}") from None
                if isinstance(c, bool) or not isinstance(c, int) or c < 0:
                    raise ParameterError("base counts must be nonnegative integers")
                if not isinstance(t, int) or not 0 <= t < 1 << L:
                    raise ParameterError(f"vector type {t!r} outside [0, 2^L) for L={L}")
                merged[t] += c
            base = tuple(sorted((t, c) for t, c in merged.items() if c))
        for t in (self.x, self.x_m):
            if not isinstance(t, int) or not 0 <= t < 1 << L:
                raise ParameterError(f"vector type {t!r} outside [0, 2^L) for L={L}")
        object.__setattr__(self, "L", L)
        object.__setattr__(self, "base", base)
        domains.K.parse(self.k)
        domains.N.parse(self.N)

    @property
    def N(self) -> int:
        return sum(c for _, c in self.base) + 1

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_mapping(cls, D, D_m, *, L: int | None = None, k: int = 1) -> "Pair":
        """From two collections given as mappings from vectors to counts (or as
        sequences of vectors), e.g. ``{"00000": 999, "10000": 1}``.

        >>> Pair.from_mapping({"00": 2, "11": 1}, {"00": 3}).x
        3
        """
        L1, c = _counts(D, L)
        _, cm = _counts(D_m, L1)
        if sum(c.values()) != sum(cm.values()):
            raise ParameterError(f"D has {sum(c.values())} vectors but D_m has {sum(cm.values())}")
        diff = {t: c.get(t, 0) - cm.get(t, 0) for t in set(c) | set(cm)}
        pos = [t for t, d in diff.items() if d > 0]
        neg = [t for t, d in diff.items() if d < 0]
        if not pos:
            x = x_m = min(c)          # identical collections: a user "changed" to itself
        elif len(pos) != 1 or len(neg) != 1 or diff[pos[0]] != 1 or diff[neg[0]] != -1:
            raise ParameterError("D and D_m must differ in exactly one user's vector")
        else:
            x, x_m = pos[0], neg[0]
        base = dict(c)
        base[x] -= 1
        return cls(L1, tuple(base.items()), x, x_m, k)

    @classmethod
    def from_collections(cls, D, D_m, L: int | None = None, k: int = 1) -> "Pair":
        """From two explicit collections (lists of bit tuples or vector-count mappings)."""
        return cls.from_mapping(D, D_m, L=L, k=k)

    @classmethod
    def homogeneous(cls, N: int, L: int, z: int, x: int, x_m: int, k: int = 1) -> "Pair":
        """Base of ``N - 1`` copies of ``z``; the changed user goes ``x -> x_m``."""
        N = domains.N.parse(N)
        return cls(L, ((z, N - 1),) if N > 1 else (), x, x_m, k)

    @classmethod
    def parse(cls, text: str, *, k: int = 1) -> "Pair":
        """From the ``--pair`` syntax ``"BASE; X -> X_M"``: ``BASE`` is ``empty`` or
        ``+``-separated terms ``[Mx]BITS`` (``M`` users holding the bit string
        ``BITS``, bit 0 first), ``X`` and ``X_M`` the changed user's vector in ``D``
        and in ``D_m``.  :meth:`spec` writes it back.

        >>> P = Pair.parse("999x00000; 00000 -> 11111")
        >>> P == canonical_pair(1000, 5), P.spec()
        (True, '999x00000; 00000 -> 11111')
        >>> Pair.parse("2x00 + 01; 11 -> 10").describe()
        'base [2x00 + 01], 11 -> 10 (N=4, L=2)'
        """
        if not isinstance(text, str) or text.count(";") != 1 or "->" not in text:
            raise ParameterError(f"pair: expected 'BASE; X -> X_M' such as '999x00000; 00000 -> 11111', "
                                 f"got {text!r}")
        base_s, change = (part.strip() for part in text.split(";"))
        x_s, _, xm_s = (part.strip() for part in change.partition("->"))
        L, x = parse_vector(x_s)
        _, x_m = parse_vector(xm_s)
        if len(xm_s) != L:
            raise ParameterError(f"pair: X and X_M have lengths {L} and {len(xm_s)}")
        base: dict = defaultdict(int)
        if base_s not in ("", "empty"):
            for term in base_s.split("+"):
                m_s, sep, bits = term.strip().rpartition("x")
                if sep and not m_s.strip().isdigit():
                    raise ParameterError(f"pair: a base term is [COUNTx]BITS, got {term.strip()!r}")
                Lb, t = parse_vector(bits)
                if Lb != L:
                    raise ParameterError(f"pair: base vector {bits.strip()!r} has length {Lb}, not L={L}")
                base[t] += int(m_s) if sep else 1
        return cls(L, tuple(base.items()), x, x_m, k)

    def spec(self) -> str:
        """This pair in the :meth:`parse` syntax."""
        base = " + ".join(f"{m}x{self._bits(t)}" if m > 1 else self._bits(t) for t, m in self.base)
        return f"{base or 'empty'}; {self._bits(self.x)} -> {self._bits(self.x_m)}"

    # ------------------------------------------------------------ views
    def counts(self) -> dict:
        """The base as a ``{type: count}`` dict."""
        return dict(self.base)

    def collections(self) -> tuple[list, list]:
        """``(D, D_m)`` as lists of bit tuples (base first, changed user last)."""
        if self.N > MAX_EXPLICIT_USERS:
            raise CapacityError(f"N={self.N} users are too many to list one by one "
                                f"(at most {MAX_EXPLICIT_USERS}); use counts()")
        out = []
        for t, m in self.base:
            out += [bits_of(t, self.L)] * m
        return out + [bits_of(self.x, self.L)], out + [bits_of(self.x_m, self.L)]

    def repeated(self) -> tuple[dict, dict]:
        """``(D^k, D_m^k)`` as type-count dicts (every vector repeated ``k`` times)."""
        D = {t: self.k * m for t, m in self.base}
        Dm = dict(D)
        D[self.x] = D.get(self.x, 0) + self.k
        Dm[self.x_m] = Dm.get(self.x_m, 0) + self.k
        return D, Dm

    def reverse(self) -> "Pair":
        """The pair with ``D`` and ``D_m`` swapped (003 §2.1's direction)."""
        return Pair(self.L, self.base, self.x_m, self.x, self.k)

    def with_k(self, k: int) -> "Pair":
        return Pair(self.L, self.base, self.x, self.x_m, k)

    def max_weight(self) -> int:
        ts = [t for t, _ in self.base] + [self.x, self.x_m]
        return max(weight(t) for t in ts)

    def canonical_form(self) -> tuple[str, int, int] | None:
        """``(direction, N, L_eff)`` when this pair has the law of 000's pair
        (``"forward"``) or its reverse (``"reverse"``) with ``L_eff`` bits, else None.

        Flipping every column where the base vector ``z`` has a one maps ``z`` to 0
        (bit flips preserve the law of R, ``proofs/symmetry_reductions.py``); the
        columns where ``x`` and ``x_m`` agree are then constant and drop out, so a
        homogeneous base with ``x = z`` is 000's pair on the ``popcount(x ^ x_m)``
        differing bits, and one with ``x_m = z`` its reverse.  ``k > 1`` is never canonical.
        """
        if self.k != 1 or self.x == self.x_m or len(self.base) > 1:
            return None
        d = weight(self.x ^ self.x_m)
        if not self.base:                      # N = 1: both directions have one law
            return "forward", 1, d
        z = self.base[0][0]
        if self.x == z:
            return "forward", self.N, d
        if self.x_m == z:
            return "reverse", self.N, d
        return None

    # ------------------------------------------------------------ text
    def _bits(self, t: int) -> str:
        return "".join(map(str, bits_of(t, self.L)))

    def to_json(self) -> dict:
        """``{"L", "N", "k", "D", "D_m"}``; a vector held by m > 1 users is written ``"m*bits"``
        (base first, the changed user last)."""
        base = [self._bits(t) if m == 1 else f"{m}*{self._bits(t)}" for t, m in self.base]
        return {"L": self.L, "N": self.N, "k": self.k,
                "D": base + [self._bits(self.x)], "D_m": base + [self._bits(self.x_m)]}

    @classmethod
    def from_json(cls, d: dict) -> "Pair":
        def counts(items):
            out: dict = defaultdict(int)
            for s in items:
                m, _, v = s.rpartition("*")
                out[v] += int(m) if m else 1
            return dict(out)
        return cls.from_mapping(counts(d["D"]), counts(d["D_m"]), L=d["L"], k=d.get("k", 1))

    def describe(self) -> str:
        bs = sorted((self._bits(t), m) for t, m in self.base)
        base = " + ".join(f"{m}x{v}" if m > 1 else v for v, m in bs)
        ks = f", k={self.k}" if self.k != 1 else ""
        return (f"base [{base or 'empty'}], {self._bits(self.x)} -> {self._bits(self.x_m)} "
                f"(N={self.N}, L={self.L}{ks})")


def canonical_pair(N: int, L: int, k: int = 1) -> Pair:
    """000's ``D* = 0^N``, ``D_m* = 0^(N-1) + 1`` (000 §1.3, (3.5))."""
    return Pair.homogeneous(N, L, 0, 0, (1 << domains.L.parse(L)) - 1, k)


def reverse_canonical_pair(N: int, L: int, k: int = 1) -> Pair:
    """003's choice: ``D = 0^(N-1) + 1``, ``D_m = 0^N`` (003 §2.1)."""
    return canonical_pair(N, L, k).reverse()
