"""Hypothesis strategies of the test-suite, bounded by :mod:`exactdp.core.domains`.

Every strategy draws inside the declared parameter domains (``domains.N``,
``domains.L``, ``domains.Q``, ``domains.LAM``, ``domains.DIRECTIONS``) and
additionally inside the small corner where the brute force
(:mod:`exactdp.oracles.bruteforce`) is cheap.

Thresholds ``lam`` deliberately hit the atoms of R (values R actually takes)
so that strict ``P[R > lam]`` and inclusive ``P[R >= lam]`` differ, plus
``lam = 1``, ``lam = (p/q)^L`` (largest atom) and values beyond it.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from exactdp.oracles import bruteforce
from exactdp.core import domains

__all__ = [
    "SMALL_N", "SMALL_L", "PINNED_Q", "ns", "ls", "qs", "directions", "lam_values",
    "canonical_cases", "lams_for", "case_with_lam", "neighbouring_pairs",
    "bit_permutations", "masks", "bounded_int",
]

#: Size of the brute-force corner (the domains themselves are much larger).
SMALL_N = 7
SMALL_L = 3
MAX_DEN = 12
#: q values every exhaustive test uses.
PINNED_Q = (Fraction(1, 3), Fraction(1, 4), Fraction(2, 7))


def bounded_int(domain: domains.Domain, lo: int, hi: int):
    """Integers of ``domain`` intersected with ``[lo, hi]``."""
    if domain.lower is not None:
        lo = max(lo, int(domain.lower) + (1 if domain.lower_open else 0))
    if domain.upper is not None:
        hi = min(hi, int(domain.upper) - (1 if domain.upper_open else 0))
    return st.integers(lo, hi)


def ns(max_n: int = SMALL_N):
    """Numbers of users N (from ``domains.N``), at most ``max_n``."""
    return bounded_int(domains.N, 1, max_n)


def ls(max_l: int = SMALL_L):
    """Bits per vector L (from ``domains.L``), at most ``max_l``."""
    return bounded_int(domains.L, 1, max_l)


def _q_with_den(d: int):
    return st.integers(1, max(1, (d - 1) // 2)).map(lambda n: Fraction(n, d))


def qs(max_den: int = MAX_DEN):
    """Rational flip probabilities in ``domains.Q`` = (0, 1/2) with small denominators,
    biased towards the pinned values 1/3, 1/4, 2/7."""
    anyq = st.integers(3, max_den).flatmap(_q_with_den)
    return st.one_of(st.sampled_from(PINNED_Q), anyq).filter(domains.Q.contains)


directions = st.sampled_from(domains.DIRECTIONS)


def lam_values(atoms, ratio_max: Fraction):
    """Thresholds in ``domains.LAM`` around the given atoms of R.

    Draws: exactly 1; an atom >= 1 exactly; an atom nudged by +-1/10^k; the
    largest atom ``ratio_max``; values beyond it; rationals in [1, floor(ratio_max) + 2].
    """
    atoms = sorted(a for a in atoms if domains.LAM.contains(a))
    choices = [st.just(Fraction(1)), st.just(ratio_max),
               st.integers(1, 3).map(lambda k: ratio_max + Fraction(k, 2)),
               st.fractions(min_value=Fraction(1), max_value=Fraction(int(ratio_max) + 2),
                            max_denominator=50)]
    if atoms:
        at = st.sampled_from(atoms)
        choices.append(at)
        choices.append(at)  # twice: atoms are the interesting case
        choices.append(st.tuples(at, st.integers(3, 12), st.sampled_from((-1, 1)))
                       .map(lambda t: t[0] + t[2] * Fraction(1, 10 ** t[1])))
    return st.one_of(*choices).filter(domains.LAM.contains)


@st.composite
def canonical_cases(draw, max_n: int = SMALL_N, max_l: int = SMALL_L):
    """``(N, L, q)`` for the canonical pair, inside the brute-force capacity."""
    L = draw(ls(max_l))
    N = draw(ns(max_n))
    q = draw(qs())
    bruteforce.check_capacity(N, L)
    return N, L, q


def lams_for(N: int, L: int, q: Fraction, direction: str = "worst"):
    """Thresholds hitting the atoms of R of the canonical pair in ``direction``
    (both directions' atoms for ``worst``)."""
    dirs = ("forward", "reverse") if direction == "worst" else (direction,)
    atoms = set()
    for d in dirs:
        atoms.update(bruteforce.canonical(N, L, q, d).atoms)
    p = 1 - q
    return lam_values(atoms, (p / q) ** L)


@st.composite
def case_with_lam(draw, max_n: int = SMALL_N, max_l: int = SMALL_L, dirs=domains.DIRECTIONS):
    """``(N, L, q, lam, direction)`` with ``lam`` often exactly at an atom of R."""
    N, L, q = draw(canonical_cases(max_n, max_l))
    direction = draw(st.sampled_from(dirs))
    lam = draw(lams_for(N, L, q, direction))
    return N, L, q, lam, direction


def bit_permutations(L: int):
    """Permutations of the ``L`` bit positions."""
    return st.permutations(list(range(L))).map(tuple)


def masks(L: int):
    """XOR masks: bit-vector tuples of length ``L``."""
    return st.tuples(*[st.integers(0, 1)] * L)


@st.composite
def neighbouring_pairs(draw, max_n: int = 5, max_l: int = SMALL_L):
    """``(L, D, D_m)``: arbitrary collections of ``N`` vectors differing in one user."""
    L = draw(ls(max_l))
    N = draw(ns(max_n))
    vec = masks(L)
    D = draw(st.lists(vec, min_size=N, max_size=N))
    i = draw(st.integers(0, N - 1))
    D_m = list(D)
    D_m[i] = draw(vec)
    bruteforce.check_capacity(N, L)
    return L, D, D_m
