"""The compiled certified kernel: :func:`exactdp.engine.kernel.tail_sums` in C.

Same search tree, same classification, same closed-form sums as the python-flint
kernel (:mod:`exactdp.engine.kernel`, 000 §3.1 sufficient statistic), run by the
optional C extension ``exactdp.engine._ckernel`` (``exactdp/engine/_ckernel.c``,
built by ``pip install -e .``; no dependency beyond a C compiler).  When the
extension is absent or a case is outside its range, the arb kernel runs instead;
:data:`ENGINE` and ``TailSums.engine`` name the engine that ran.

The certificate (why the enclosures are rigorous):

* **Numbers.** A 128-bit software float ``M 2^e`` (``2^127 <= M < 2^128``,
  64-bit exponent) with *directed* rounding: every lower bound is rounded down,
  every upper bound up.  Every quantity of the walk is a nonnegative mass or
  moment, so interval products and sums of nonnegative intervals are monotone
  and need no sign cases.
* **Subtraction** never meets cancellation: a node's excess ``E[Z - tau | node]``
  is written as ``(Z_min - tau) + m (mu - W_0)``, an exact nonnegative integer
  (the classification's own) plus a nonnegative constant; likewise below tau
  with ``Z_max`` and ``W_l - mu``.  Only an irrational tau's enclosure
  ``tau - P/Q in [e_lo, e_hi]`` (tiny) is subtracted, with clamping at 0.
* **Binomial rows** store round-down values only, with a count ``K`` of the
  roundings on the longest chain (``v >= exact (1 - 2^-127)^K``), so that
  ``exact <= v (1 + 4 K 2^-127)`` -- the row's factor, applied rounded up.
  A row's window ends at the first cell of mass ``p`` (outward ratio ``r < 1``, the
  ratios decreasing outward) with ``p r <= row_tol (1 - r)^2``: the mass beyond,
  ``<= p r / (1 - r)``, and the second-order tail, ``<= p r / (1 - r)^2``, are then
  both at most ``row_tol`` (the arb rows wait for ``r <= 1/2``, which runs rows
  with ``theta`` near 1/2 out to ``2m/3``).  Rows are evicted least recently used
  beyond :data:`MAX_CELLS`; each row's mode value is kept as the anchor its
  neighbours start from.  Row cells come from one memory arena kept between walks (with
  transparent huge pages asked for: ``madvise``, advice only); a
  cell holds only the arrays the walk reads (60 bytes for a one-sided query, 100 for both
  sides; the arithmetic is unchanged).
* **Rows cut by mass** (certified walks and magnitude runs, ``mass_cut``): a row is read
  only by the nodes of its level and size (or, at level 1, the leaves of that size), and
  a cell contributes its value times the reader's mass.  A row built for readers of
  mass ``<= 2^w`` stops at ``row_tol tol 2^-w``: every reader's share of its tails is
  still ``<= row_tol tol`` in absolute terms (the leaves' tails are added per leaf,
  ``2 nt`` times the per-unit bounds after the product with the parent's mass), and the
  tree is unchanged (a child beyond the window has mass ``< row_tol tol < tol``).  A
  heavier reader rebuilds the row (exactness never depends on the guess of the heaviest
  reader, ``Bin(n, S_l)(m)`` times the largest conditional path probability, which only
  sets how much is built).  N = 5000, L = 5: ~20 % fewer row cells.
* **Comparisons** with the threshold are exact: integers of ``NL`` 64-bit limbs
  (two's complement); :func:`compiled_tail_sums` refuses (returns ``None``) when a
  value could exceed them.
* **Leaves** (the nodes whose children are points, ~95 % of a walk) are summed inside
  their level-2 parent: per unit of the parent's mass, the sums over its children of
  ``pmf_2(t) * (tail of Bin(m - t, theta_1) at the child's threshold)`` are taken with
  round-down operations on lower ends only; the upper ends are the lower sums times one
  factor (the rows' factors and ``(1 - 2^-127)^-(13 + terms)``) plus the rows' tails
  (the children's masses sum to at most 1).  The tree, node and leaf counts are the arb
  walk's.  Children not expanded are bounded per group (before / after the first
  expanded child) by their total mass times the extreme conditional mean and excesses,
  which are monotone in ``t``.
* **One side** (``side``): a query reads the sums of one side of tau only (forward
  eta and delta: above; reverse: below); the walk then builds only that side's row
  sums (suffix or prefix) and accumulates only that side (``excess=False``, reverse eta:
  its probabilities only, without second-order row sums or excess bounds).  The tree, the drops and
  ``eq_P`` are unchanged; the other side is reported as not summed (``None``), which
  :func:`exactdp.engine.kernel.tail_sums` turns into trivial enclosures.
* **Constants** (theta, rho, conditional means, ``1/Q``) are rounded outward here,
  in Python, from their exact rationals (:func:`to_uf`).

Range: weights strictly increasing and nonnegative (000's pair, its reverse and the
homogeneous-base laws of :mod:`exactdp.reductions.pairs`), ``tau >= 0``, and a
working precision of at most :data:`MAX_PREC` bits (beyond, the 128-bit float
cannot deliver the digits asked for, and the arb kernel runs).

>>> from exactdp.model.mechanism import Mechanism
>>> r = compiled_tail_sums(Mechanism(1, "1/3"), 2, 5, 1, True, tol=Fraction(1, 10**40), prec=64)
>>> r is None or (r["lo_P"][0] <= Fraction(4, 9) <= r["lo_P"][1])
True
"""

from __future__ import annotations

import importlib
import os
from fractions import Fraction

__all__ = ["ENGINE", "MAX_PREC", "MAX_CELLS", "MAX_N", "available", "applies", "seconds_per_node",
           "compiled_tail_sums", "to_uf", "from_uf"]

#: the largest working precision (bits) the compiled kernel serves: its float has a
#: 128-bit mantissa, ~32 correct digits after 10^6 roundings (digits <= 34 in
#: ``PrivacyRatio``'s ``3.33 digits + 64`` bits); beyond, the arb kernel runs
MAX_PREC = 180
#: row cells kept (100 bytes each) before the row cache is emptied
MAX_CELLS = 1_500_000
#: largest n served: the walk keeps ~(80 + 50 L) bytes per possible row size 0..n
MAX_N = 200_000

try:
    if os.environ.get("EXACTDP_NO_CKERNEL"):
        raise ImportError("disabled by EXACTDP_NO_CKERNEL")
    _EXT = importlib.import_module(__name__.rsplit(".", 1)[0] + "._ckernel")
    ENGINE = "compiled"
except ImportError as exc:          # not built (no compiler at install) or disabled
    _EXT = None
    ENGINE = f"arb (compiled kernel unavailable: {exc})"

_BITS = 128
_NL = _EXT.NL if _EXT is not None else 8


def available() -> bool:
    """Whether the compiled kernel is importable."""
    return _EXT is not None


def applies(n: int, prec: int | None = None) -> bool:
    """Whether the compiled kernel serves a canonical walk of ``n`` users at ``prec`` bits
    (``None``: any precision it serves): built, ``n <= MAX_N``, ``prec <= MAX_PREC``."""
    return _EXT is not None and n <= MAX_N and (prec is None or prec <= MAX_PREC)


#: measured CPU seconds per node of the certified walk (leaves and binomial rows
#: included; L = 5, N = 1000..5000, 30 digits: 0.3-0.45 us), with a margin
COMPILED_SECONDS_PER_NODE = 1.0e-6
#: the same for the python-flint walk (13-30 us per node at N = 5000)
ARB_SECONDS_PER_NODE = 1.2e-5


def seconds_per_node(n: int, prec: int | None = None) -> float:
    """Predicted seconds per node of the certified tree walk for ``n`` users at ``prec``
    bits: the compiled kernel's when it runs (:func:`applies`), else the arb kernel's.
    For capacity predictions (nodes times this), not a measurement.

    >>> seconds_per_node(1000, 128) <= ARB_SECONDS_PER_NODE
    True
    """
    return COMPILED_SECONDS_PER_NODE if applies(n, prec) else ARB_SECONDS_PER_NODE


def to_uf(x: Fraction, up: bool) -> tuple:
    """``x >= 0`` as ``(hi, lo, e)`` with ``M = hi 2^64 + lo`` in ``[2^127, 2^128)``
    and ``M 2^e`` rounded down (``up`` False) or up; ``(0, 0, 0)`` for zero.

    >>> from_uf(to_uf(Fraction(1, 3), False)) < Fraction(1, 3) < from_uf(to_uf(Fraction(1, 3), True))
    True
    >>> to_uf(Fraction(1), False) == to_uf(Fraction(1), True) == (1 << 63, 0, -127)
    True
    """
    x = Fraction(x)
    if x < 0:
        raise ValueError("to_uf: x must be >= 0")
    if x == 0:
        return (0, 0, 0)
    num, den = x.numerator, x.denominator
    e = num.bit_length() - den.bit_length() - _BITS
    while True:
        if e >= 0:
            M, r = divmod(num, den << e)
        else:
            M, r = divmod(num << -e, den)
        if M >= 1 << _BITS:
            e += 1
        elif M < 1 << (_BITS - 1):
            e -= 1
        else:
            break
    if up and r:
        M += 1
        if M == 1 << _BITS:
            M, e = 1 << (_BITS - 1), e + 1
    return (M >> 64, M & ((1 << 64) - 1), e)


def from_uf(t) -> Fraction:
    """The exact value of ``(hi, lo, e)``."""
    hi, lo, e = t
    M = (hi << 64) | lo
    return Fraction(M << e) if e >= 0 else Fraction(M, 1 << -e)


def _iv(x: Fraction) -> tuple:
    return (to_uf(x, False), to_uf(x, True))


def _limbs(v: int) -> tuple:
    """``v`` in ``_NL`` 64-bit limbs, two's complement, least significant first."""
    v &= (1 << (64 * _NL)) - 1
    return tuple((v >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(_NL))


def _signed(e: Fraction, lower: bool) -> tuple:
    """``(negative, |e|)`` rounded so the result is a lower (or upper) bound of ``e``."""
    neg = e < 0
    # a lower bound of e: round |e| up when negative, down when positive
    return (int(neg), to_uf(abs(e), up=(neg == lower)))


#: ``side`` of :func:`compiled_tail_sums` -> the C walk's mask (1: above tau, 2: below)
SIDES = {None: 3, "above": 1, "below": 2}


def compiled_tail_sums(mech, n: int, tau_num: int, tau_den: int, tau_exact: bool, *, tau_iv=None,
                       tol, prec: int, max_nodes: int | None = None, row_tol: float = 1e-6,
                       side: str | None = None, excess: bool = True, drop_bits: int = 2,
                       mass_cut: bool = True):
    """The compiled walk, or ``None`` when it does not apply (extension absent,
    weights not increasing and nonnegative, ``tau < 0``, ``prec > MAX_PREC``,
    ``n > MAX_N``, or an integer beyond the fixed width).

    ``tau_num / tau_den`` classifies (as :class:`exactdp.engine.kernel.Threshold`);
    ``tau_iv = (lower, upper)`` (Fractions) encloses an irrational tau.  Returns a
    dict of exact dyadic bounds: ``up_P, up_X, eq_P, lo_P, lo_X`` as ``(lower,
    upper)``, ``drop_P, drop_E, drop_up, drop_lo`` as upper bounds, ``nodes``,
    ``leaves``.  Raises :class:`exactdp.core.errors.CapacityError` beyond
    ``max_nodes``.  ``side`` (``"above"`` or ``"below"``; ``None``: both) names the one
    side of tau a query needs: the walk (same tree, nodes, ``eq_P`` and ``drop_P``) then
    sums only ``up_*``, ``drop_up`` (above) or ``lo_*``, ``drop_lo`` (below) and ``drop_E``,
    and the other entries are ``None`` (about a third less work: the leaves' sums, the
    rows' prefix or suffix sums, the dropped children's bounds).  ``excess=False``: the
    probabilities only (``*_P``); every ``*_X``, ``drop_E``, ``drop_up`` and ``drop_lo``
    is then ``None`` (no second-order row sums, no excess sums, no drop bounds).

    Binomial rows stop where the mass beyond falls below ``row_tol * tol`` (their tails
    are bounded and added to the upper ends, as in the arb rows).  Any ``row_tol < 1``
    keeps the tree the arb walk's (a child beyond a row's window has mass ``< row_tol tol
    < tol`` and is dropped by both); the certified queries keep ``1e-6`` (tails far below
    the widths the arb walk reaches), the magnitude runs use ``1/2`` (fewer cells).
    Children not expanded of mass at least ``tol 2^-drop_bits`` are bounded one by one,
    the lighter ones per group (before / after the first expanded child: a few per cent
    looser on their own small share; certified walks: 2, the issue-16 enclosures ~0.3 %
    wider than at 8 for ~2 % fewer instructions); fast estimates keep 20 (their stated errors).
    ``mass_cut`` (certified walks): a row read only by light users (nodes or leaves of mass
    ``<= 2^w``) stops at ``row_tol tol 2^-w`` instead, rebuilt for a heavier user; every
    user's share of its tails is still ``<= row_tol tol`` (the leaves' tails are added per
    leaf, see ``_ckernel.c``, ``SIDE_MASSCUT``); fast estimates pass ``False``.
    """
    if _EXT is None or prec > MAX_PREC or n > MAX_N:
        return None
    sides = SIDES[side] | (0 if excess else 4) | (8 if mass_cut else 0)
    L = mech.L
    W = tuple(int(w) for w in mech.weights)
    pi = tuple(Fraction(p) for p in mech.pi0)
    P, Q = int(tau_num), int(tau_den)
    if (L < 1 or L > 64 or W[0] < 0 or any(W[i] >= W[i + 1] for i in range(L)) or P < 0 or Q <= 0
            or any(p <= 0 for p in pi)):
        return None
    bits = (2 * (n + 2) * W[L] * Q + P).bit_length() + 2       # every integer of the walk, with sign
    if bits > 64 * _NL:
        return None
    nl = max(2, -(-bits // 64))
    S = [sum(pi[: l + 1]) for l in range(L + 1)]
    theta = [pi[l] / S[l] for l in range(L + 1)]
    mu = [sum(pi[i] * W[i] for i in range(l + 1)) / S[l] for l in range(L + 1)]
    Wq = [w * Q for w in W]
    zero = (0, 0, 0)
    rowc = [(zero,) * 7]
    for l in range(1, L + 1):
        th = theta[l]
        rho = pi[l] / S[l - 1]
        rowc.append((to_uf(th, False), to_uf(1 - th, False), to_uf(rho, False), to_uf(rho, True),
                     to_uf(1 / rho, False), to_uf(1 / rho, True), to_uf(1 / (1 - th), False)))
    if tau_exact:
        e = (0, zero, 0, zero)
    else:
        c = Fraction(P, Q)
        e_lo, e_hi = Fraction(tau_iv[0]) - c, Fraction(tau_iv[1]) - c
        a, b = _signed(e_lo, True), _signed(e_hi, False)
        e = (a[0], a[1], b[0], b[1])
    tol_q = Fraction(tol)
    args = (L, nl, n, int(max_nodes or 0), MAX_CELLS, 1, sides, int(drop_bits),
            [_limbs(x) for x in Wq], [_limbs(x - Wq[0]) for x in Wq],
            [_limbs(Wq[l] - Wq[l - 1]) if l else _limbs(0) for l in range(L + 1)],
            _limbs(P), _limbs(-P), _iv(Fraction(1, Q)),
            [_iv(x) for x in mu], [_iv(x - W[0]) for x in mu], [_iv(W[l] - mu[l]) for l in range(L + 1)],
            [_iv(W[l] - mu[l - 1]) if l else (zero, zero) for l in range(L + 1)],
            e, to_uf(tol_q, False), to_uf(tol_q * Fraction(row_tol), False), rowc, [float(t) for t in theta])
    r = _EXT.tail_sums(*args)
    if r[11]:
        from ..core.errors import CapacityError
        raise CapacityError(f"tail_sums: more than {max_nodes} nodes; use method='fast' or fewer digits")
    names = ("up_P", "up_X", "eq_P", "lo_P", "lo_X")
    out = {k: (from_uf(r[i][0]), from_uf(r[i][1])) for i, k in enumerate(names)}
    for i, k in enumerate(("drop_P", "drop_E", "drop_up", "drop_lo")):
        out[k] = from_uf(r[5 + i])
    not_summed = {"above": ("lo_P", "lo_X", "drop_lo"), "below": ("up_P", "up_X", "drop_up")}
    for k in not_summed.get(side, ()) + (() if excess else ("up_X", "lo_X", "drop_E", "drop_up", "drop_lo")):
        out[k] = None
    out["nodes"], out["leaves"] = r[9], r[10]
    return out
