"""Certified kernel: tail sums of the integer statistic Z under the null law.

Everything exactdp reports about the canonical pair reduces to four partial
sums of one law.  Let ``T ~ MN(n, pi0)`` (the synthetic set-bit counts of ``n``
zero vectors, 000 (3.5)/(3.7)) and ``Z = sum_l T_l W_l`` with the integer
weights of :class:`~exactdp.model.mechanism.Mechanism` (``Z = (ab)^L X``).  For a
threshold ``tau`` the kernel returns certified enclosures of

    P[Z > tau],  E[Z; Z > tau],  P[Z = tau],  E[Z; Z = tau],  P[Z < tau],  E[Z; Z < tau]

(each tail computed *directly*, never as one minus the other).  The forward
direction follows by the change of measure ``P_{D_m}[S] = R(S) P_D[S]``
(``E_D[R 1{R > lam}]``), the reverse direction directly (003 (2.10)).

Algorithm (conditioning category by category, 000 §3.1 sufficient statistic):
``T_L ~ Bin(n, theta_L)``; given it, ``T_{L-1} ~ Bin(n - T_L, theta_{L-1})`` with
``theta_l = pi_l / (pi_0 + ... + pi_l)``, and so on.  A node of the search tree
fixes ``T_L..T_{l+1}``; the rest of ``Z`` then lies in
``[Zs + m W_0, Zs + m W_l]``, so a node wholly on one side of ``tau`` is
classified at once with its exact conditional mean.  Within a node, the values
of ``T_l`` whose child is wholly on one side form two ranges summed in closed
form from binomial tails; only the straddling values are expanded.  The last
two categories are a binomial tail at the leaf.  Children of mass below
``tol`` are not expanded: their mass (and a bound on their contribution to
each sum) is added to the *dropped* accumulators, which widen the final
intervals -- a rigorous bound, not an estimate.  Threshold comparisons are
exact integer arithmetic; masses are python-flint ``arb`` balls.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, ctx, fmpq

from ..core.errors import PrecisionError
from ..core.interval import Interval, arb_to_interval
from ..core.lam import exp_ball
from ..model.mechanism import Mechanism  # noqa: F401  (the doctests use it)
from .search import Schedule, walk

__all__ = ["Threshold", "TailSums", "tail_sums", "Block", "Mixture", "block_tail_sums", "BinomialRows",
           "lam_threshold"]


# --------------------------------------------------------------------------- thresholds
@dataclass(frozen=True)
class Threshold:
    """A threshold ``tau`` for the integer statistic Z.

    ``num/den`` is an exact rational used for *classification*: when ``exact``
    it is ``tau`` itself (ties ``Z == tau`` possible); otherwise ``tau`` is
    irrational and lies strictly inside ``(floor, floor+1)/den`` with
    ``num/den`` the midpoint, so every integer Z compares to both identically
    and no tie can occur.  ``ball`` is an arb enclosure of ``tau`` used for
    values (e.g. ``E[(Z - tau)+]``).
    """

    num: int
    den: int
    exact: bool
    ball: object = field(compare=False)

    @classmethod
    def from_fraction(cls, x: Fraction, prec: int) -> "Threshold":
        with ctx.workprec(prec):
            ball = arb(fmpq(x.numerator, x.denominator))
        return cls(x.numerator, x.denominator, True, ball)

    @classmethod
    def from_ball(cls, make_ball, prec: int, max_prec: int = 1 << 16) -> "Threshold":
        """Enclose an irrational threshold.  ``make_ball(prec)`` returns an arb."""
        p = prec
        while p <= max_prec:
            with ctx.workprec(p):
                b = make_ball(p)
                if not b.is_finite():
                    p *= 2
                    continue
                # choose a dyadic grid 2^-s fine enough that b avoids grid points
                iv = arb_to_interval(b)
                width = iv.width
                if width > 0:
                    s = width.denominator.bit_length() - width.numerator.bit_length() - 3
                else:
                    s = p
                s = max(s, 8)
                D = 1 << s
                lo = math.floor(iv.lower * D)
                hi = math.floor(iv.upper * D)
                if lo == hi and Fraction(lo) != iv.lower * D:
                    return cls(2 * lo + 1, 2 * D, False, b)
            p *= 2
        raise PrecisionError("cannot separate an irrational threshold from the lattice "
                             f"at {max_prec} bits")

    @property
    def value(self) -> Fraction:
        return Fraction(self.num, self.den)


def lam_threshold(factor: Fraction, lam=None, eps=None, invert: bool = False, prec: int = 128) -> Threshold:
    """Threshold ``factor * lam`` (or ``factor / lam`` when ``invert``).

    ``lam`` exact rational, or ``eps`` exact rational with ``lam = e^eps``
    enclosed in a ball (irrational unless ``eps == 0``).
    """
    if lam is not None:
        v = factor / lam if invert else factor * lam
        return Threshold.from_fraction(v, prec)
    if eps == 0:
        return Threshold.from_fraction(factor, prec)
    f = fmpq(factor.numerator, factor.denominator)

    def make(p):
        with ctx.workprec(p):
            lamb = exp_ball(eps)
            return arb(f) / lamb if invert else arb(f) * lamb

    return Threshold.from_ball(make, prec)


# --------------------------------------------------------------------------- binomial rows
#: checkpoint spacing of a row's running sums: memory 1 + 4/_STRIDE arb balls per
#: cell; a query repeats at most _STRIDE - 1 additions (twice for second-order sums)
_STRIDE = 8


class _Row:
    """pmf, prefix and suffix sums of Bin(m, theta) on a window ``[ka, kb]``.

    ``tail_left`` bounds ``P[T < ka]`` and ``tail_right`` bounds ``P[T > kb]``
    (geometric bounds from the monotone pmf ratio).

    Only the pmf is stored for every cell.  The suffix sums
    ``suf[i] = tail_right + pmf[n-1] + ... + pmf[i]`` (summed from the right,
    so small upper tails keep their relative accuracy), the prefix sums
    ``pre[i]`` and the second-order sums ``suf2[i] = tail_right2 + suf[n-1] +
    ... + suf[i]``, ``pre2`` are kept at every ``_STRIDE``-th index
    (checkpoints) and resumed from the nearest checkpoint on demand, repeating
    the very additions of the full running sum: the balls returned are
    identical, bit for bit, to full stored arrays, at about a third of the
    memory (1 + 4 / _STRIDE balls per cell instead of 5).
    """

    __slots__ = ("m", "ka", "kb", "pmf", "suf_ck", "suf2_ck", "pre_ck", "pre2_ck",
                 "suf0", "suf2_0", "pre_last", "pre2_last", "tail_left",
                 "tail_right", "tail_left_pos", "tail_right_pos", "tail_left2", "tail_right2",
                 "_zero", "_one")

    def _suf(self, i):
        """``suf[i]`` (``0 <= i < n``), resumed from the checkpoint at ``c >= i``."""
        pmf = self.pmf
        n = len(pmf)
        j = (n - i) // _STRIDE
        acc = self.suf_ck[j]
        for idx in range(n - _STRIDE * j - 1, i - 1, -1):
            acc = acc + pmf[idx]
        return acc

    def _suf2(self, i):
        """``suf2[i]`` (``0 <= i < n``)."""
        pmf = self.pmf
        n = len(pmf)
        j = (n - i) // _STRIDE
        acc = self.suf_ck[j]
        acc2 = self.suf2_ck[j]
        for idx in range(n - _STRIDE * j - 1, i - 1, -1):
            acc = acc + pmf[idx]
            acc2 = acc2 + acc
        return acc2

    def _pre(self, i):
        """``pre[i]`` (``0 <= i < n``), resumed from the checkpoint at ``c <= i``."""
        pmf = self.pmf
        j = (i + 1) // _STRIDE
        acc = self.pre_ck[j]
        for idx in range(_STRIDE * j, i + 1):
            acc = acc + pmf[idx]
        return acc

    def _pre2(self, i):
        """``pre2[i]`` (``0 <= i < n``)."""
        pmf = self.pmf
        j = (i + 1) // _STRIDE
        acc = self.pre_ck[j]
        acc2 = self.pre2_ck[j]
        for idx in range(_STRIDE * j, i + 1):
            acc = acc + pmf[idx]
            acc2 = acc2 + acc
        return acc2

    def sf_ge(self, k):
        """Enclosure of ``P[T >= k]``."""
        if k <= 0:
            return self._one
        if k > self.m:
            return self._zero
        if k > self.kb:
            return self.tail_right
        if k < self.ka:
            return self.suf0 + self.tail_left_pos
        return self._suf(k - self.ka)

    def cdf_le(self, k):
        """Enclosure of ``P[T <= k]``."""
        if k < 0:
            return self._zero
        if k >= self.m:
            return self._one
        if k < self.ka:
            return self.tail_left
        if k > self.kb:
            return self.pre_last + self.tail_right_pos
        return self._pre(k - self.ka)

    def ssum_ge(self, k):
        """Enclosure of ``sum_{j >= k} P[T >= j]`` (= ``E[(T - k + 1)+]``)."""
        if k > self.m:
            return self._zero
        if k > self.kb:
            return self.tail_right2
        if k >= self.ka:
            return self._suf2(k - self.ka)
        n_one = max(0, min(self.ka - 1, 0) - k + 1)
        n_mid = max(0, self.ka - 1 - max(k, 1) + 1)
        return self.suf2_0 + n_one + n_mid * (self.suf0 + self.tail_left_pos)

    def csum_le(self, k):
        """Enclosure of ``sum_{j <= k} P[T <= j]`` (= ``E[(k + 1 - T)+]``)."""
        if k < 0:
            return self._zero
        if k < self.ka:
            return self.tail_left2
        if k <= self.kb:
            return self._pre2(k - self.ka)
        n_one = max(0, k - max(self.kb + 1, self.m) + 1)
        n_mid = max(0, min(k, self.m - 1) - (self.kb + 1) + 1)
        return self.pre2_last + n_one + n_mid * (self.pre_last + self.tail_right_pos)

    def pmf_at(self, k):
        if k < 0 or k > self.m:
            return self._zero
        if k < self.ka:
            return self.tail_left
        if k > self.kb:
            return self.tail_right
        return self.pmf[k - self.ka]

    def set_sums(self, tl, tr, tl2, tr2):
        """Run the four running sums over the pmf once, keeping the checkpoints
        and the end values (``suf[0]``, ``suf2[0]``, ``pre[-1]``, ``pre2[-1]``)."""
        # suffix sums from the right end; checkpoint j holds index n - _STRIDE j (index n: the start)
        self.suf_ck, self.suf2_ck, self.suf0, self.suf2_0 = _running_sums(reversed(self.pmf), tr, tr2)
        # prefix sums from the left end; checkpoint j holds index _STRIDE j - 1 (index -1: the start)
        self.pre_ck, self.pre2_ck, self.pre_last, self.pre2_last = _running_sums(self.pmf, tl, tl2)


def _running_sums(values, acc, acc2):
    """The running sums ``acc + v_1 + ... + v_i`` and their running sums, from the start
    values ``acc``, ``acc2``: checkpoints at every ``_STRIDE``-th step (the start included)
    and the two end values."""
    ck, ck2 = [acc], [acc2]
    c = 0
    for v in values:
        acc = acc + v
        acc2 = acc2 + acc
        c += 1
        if c == _STRIDE:
            ck.append(acc)
            ck2.append(acc2)
            c = 0
    return ck, ck2, acc, acc2


class BinomialRows:
    """Cache of windowed Bin(m, theta) rows with certified tails (arb)."""

    def __init__(self, theta: Fraction, prec: int, tol: float):
        self.theta_q = theta
        self.prec = prec
        with ctx.workprec(prec):
            self.theta = arb(fmpq(theta.numerator, theta.denominator))
            self.one_minus = 1 - self.theta
            self.rho = self.theta / self.one_minus
            self.zero = arb(0)
            self.one = arb(1)
        with ctx.workprec(prec):
            self.tol = arb(tol)
        self.cache: OrderedDict[int, _Row] = OrderedDict()
        self.cells = 0

    #: bound on the cached row cells (each cell holds 1 + 4/_STRIDE arb balls)
    MAX_CELLS = 4_000_000

    def row(self, m: int) -> _Row:
        r = self.cache.get(m)
        if r is None:
            r = self._make(m)
            self.cache[m] = r
            self.cells += len(r.pmf)
            while self.cells > self.MAX_CELLS and len(self.cache) > 2:
                _, old = self.cache.popitem(last=False)      # least recently used
                self.cells -= len(old.pmf)
        else:
            self.cache.move_to_end(m)
        return r

    def _make(self, m: int) -> _Row:
        th = float(self.theta_q)
        with ctx.workprec(self.prec):
            row = _Row()
            row.m = m
            row._zero = self.zero
            row._one = self.one
            if m == 0:
                row.ka = row.kb = 0
                row.pmf = [self.one]
                row.tail_left = row.tail_right = self.zero
                row.tail_left_pos = row.tail_right_pos = self.zero
                row.tail_left2 = row.tail_right2 = self.zero
                row.suf_ck = row.suf2_ck = row.pre_ck = row.pre2_ck = [self.zero]
                row.suf0 = row.suf2_0 = row.pre_last = row.pre2_last = self.one
                return row
            mode = min(m, int((m + 1) * th))
            pm = arb.bin_uiui(m, mode) * self.theta ** mode * self.one_minus ** (m - mode)
            rho = self.rho
            # walk right
            right = [pm]
            k = mode
            cur = pm
            tol = self.tol
            tail_right = self.zero
            # ratios rho (m-k)/(k+1): arb(m - k) / (k + 1) is the correctly rounded quotient of
            # exact integers, the same ball as arb(fmpq(m - k, k + 1)) (arb_fmpz_div_fmpz), at
            # half the cost of building an fmpq per cell
            while k < m:
                ratio = rho * (arb(m - k) / (k + 1))
                cur = cur * ratio
                k += 1
                right.append(cur)
                if cur < tol:
                    rnext = rho * fmpq(m - k, k + 1)
                    if k < m and rnext.upper() < 0.5:
                        tail_right = cur * rnext / (1 - rnext)
                        break
            if k >= m:
                tail_right = self.zero
            kb = k
            # walk left
            left = []
            k = mode
            cur = pm
            tail_left = self.zero
            irho = 1 / rho
            while k > 0:
                ratio = irho * (arb(k) / (m - k + 1))
                cur = cur * ratio
                k -= 1
                left.append(cur)
                if cur < tol:
                    rnext = irho * fmpq(k, m - k + 1)
                    if k > 0 and rnext.upper() < 0.5:
                        tail_left = cur * rnext / (1 - rnext)
                        break
            if k <= 0:
                tail_left = self.zero
            ka = k
            left.reverse()
            pmf = left + right
            row.ka, row.kb = ka, kb
            row.pmf = pmf
            # enclosures of the tails as balls [0, bound]
            tl = _zero_to(tail_left)
            tr = _zero_to(tail_right)
            row.tail_left = tl
            row.tail_right = tr
            row.tail_left_pos = tl
            row.tail_right_pos = tr
            # second-order sums; beyond the window sum_j P[T >= j] <= 2 * tail (ratio < 1/2)
            tr2 = _zero_to(2 * tail_right)
            tl2 = _zero_to(2 * tail_left)
            row.tail_left2 = tl2
            row.tail_right2 = tr2
            row.set_sums(tl, tr, tl2, tr2)
            return row


def _zero_to(b):
    """A ball enclosing ``[0, upper(b)]``."""
    u = b.upper()
    if not u > 0:
        return arb(0)
    return arb(0).union(u)


def positive_part(x):
    """A ball enclosing ``max(x, 0)`` for every point of ``x``."""
    if x > 0:
        return x
    if x <= 0:
        return arb(0)
    return arb(0).union(x.upper())


# --------------------------------------------------------------------------- accumulators
@dataclass
class TailSums:
    """Certified partial sums of Z around a threshold.

    Core sums are arb balls; ``drop_*`` bound what the unexpanded subtrees
    could add (they are added to the upper ends only).  Excess sums
    ``E[(Z - tau)+]`` and ``E[(tau - Z)+]`` are accumulated directly as sums of
    nonnegative terms, so tiny deltas keep their relative accuracy.
    """

    up_P: object          # P[Z > tau]
    up_X: object          # E[(Z - tau)+]
    eq_P: object          # P[Z = tau]
    lo_P: object          # P[Z < tau]
    lo_X: object          # E[(tau - Z)+]
    drop_P: object        # total mass of unexpanded subtrees
    drop_E: object        # sum of mass * E[Z | subtree]
    drop_up: object       # bound on their contribution to E[(Z - tau)+]
    drop_lo: object       # bound on their contribution to E[(tau - Z)+]
    tau: Threshold
    prec: int
    nodes: int = 0
    leaves: int = 0
    seconds: float = 0.0
    engine: str = "arb"   # "compiled" (exactdp.engine.ckernel) or "arb" (python-flint)

    def _iv(self, core, extra) -> Interval:
        a = arb_to_interval(core)
        e = arb_to_interval(extra)
        return Interval(a.lower, a.upper + max(e.upper, 0))

    def p_above(self, inclusive=False) -> Interval:
        """``P[Z > tau]`` (``inclusive``: ``P[Z >= tau]``)."""
        with ctx.workprec(self.prec):
            core = self.up_P + self.eq_P if inclusive else self.up_P
        return self._iv(core, self.drop_P).clip(0, 1)

    def p_below(self, inclusive=False) -> Interval:
        """``P[Z < tau]`` (``inclusive``: ``P[Z <= tau]``)."""
        with ctx.workprec(self.prec):
            core = self.lo_P + self.eq_P if inclusive else self.lo_P
        return self._iv(core, self.drop_P).clip(0, 1)

    def p_equal(self) -> Interval:
        return self._iv(self.eq_P, self.drop_P).clip(0, 1)

    def e_above(self, inclusive=False) -> Interval:
        """``E[Z; Z > tau] = tau P[Z > tau] + E[(Z - tau)+]`` (all terms >= 0)."""
        with ctx.workprec(self.prec):
            P = self.up_P + self.eq_P if inclusive else self.up_P
            core = self.tau.ball * P + self.up_X
        return self._iv(core, self.drop_E).clip(0)

    def e_below(self, inclusive=False) -> Interval:
        """``E[Z; Z < tau] = tau P[Z < tau] - E[(tau - Z)+]``."""
        with ctx.workprec(self.prec):
            P = self.lo_P + self.eq_P if inclusive else self.lo_P
            core = self.tau.ball * P - self.lo_X
        return self._iv(core, self.drop_E).clip(0)

    def excess_above(self) -> Interval:
        """``E[(Z - tau)+]``."""
        return self._iv(self.up_X, self.drop_up).clip(0)

    def excess_below(self) -> Interval:
        """``E[(tau - Z)+]``."""
        return self._iv(self.lo_X, self.drop_lo).clip(0)


# --------------------------------------------------------------------------- the kernel
def _cond_data(pi, values):
    """theta_l = pi_l / (pi_0 + ... + pi_l) and the conditional mean mu_l of
    ``values`` given the category is in 0..l (exact)."""
    S = [sum(pi[: l + 1]) for l in range(len(pi))]
    theta = [pi[l] / S[l] for l in range(len(pi))]
    mu = [sum(pi[i] * values[i] for i in range(l + 1)) / S[l] for l in range(len(pi))]
    return theta, mu


def level_data(mech):
    """theta_l and the conditional mean mu_l of a weight, categories 0..l (exact)."""
    return _cond_data(mech.pi0, mech.weights)


def _halfline(c0: int, c1: int):
    """``{t : c0 + c1 t > 0}`` for ``c1 != 0``: ``(True, k)`` for ``t >= k``
    (a suffix), ``(False, k)`` for ``t <= k`` (a prefix)."""
    if c1 > 0:
        return True, (-c0) // c1 + 1
    return False, -((-c0) // (-c1)) - 1


def _segment(row, suffix: bool, k: int):
    """``(P[T in seg], sum_{t in seg} p_t |t - k|)`` for ``seg = [k, m]`` or ``[0, k]``."""
    if suffix:
        return row.sf_ge(k), row.ssum_ge(k + 1)
    return row.cdf_le(k), row.csum_le(k - 1)


def _split_node(row, m, above, below, cbase, slope, *, tb_):
    """Split the children ``T = t`` (``t`` in ``0..m``) of a node.

    ``above = (suffix, k)`` are the values whose child is wholly above tau,
    ``below`` those wholly below (:func:`_halfline`); ``E[Z | T = t] = cbase +
    slope t``.  Returns the closed-form sums of those two ranges per unit node
    mass, ``(P_above, X_above)`` and ``(P_below, X_below)`` (``None`` when the
    range is empty), and the straddling values ``[t_first, t_last]``.
    """
    a_suf, ka = above
    b_suf, kb = below
    up = lo = None
    if (ka <= m) if a_suf else (ka >= 0):
        s0, s1 = _segment(row, a_suf, ka)
        up = s0, (cbase + slope * ka - tb_) * s0 + (slope * s1 if a_suf else -slope * s1)
    if (kb <= m) if b_suf else (kb >= 0):
        s0, s1 = _segment(row, b_suf, kb)
        lo = s0, (tb_ - cbase - slope * kb) * s0 + (-slope * s1 if b_suf else slope * s1)
    t_first, t_last = 0, m
    for suf, k in (above, below):
        if suf:
            t_last = min(t_last, k - 1)
        else:
            t_first = max(t_first, k + 1)
    return up, lo, t_first, t_last


def _ckernel_engine() -> str:
    from .ckernel import ENGINE
    return ENGINE


def _compiled(mech, n, tau, *, prec, tol, max_nodes, t0, side=None, excess=True):
    """:func:`tail_sums` by the compiled kernel (:mod:`exactdp.engine.ckernel`), or
    ``None`` when it does not apply.  With ``side``, the other side's sums are the
    trivial enclosures ``P in [0, 1]``, ``X in [0, n max(W) + tau]`` and its drop bounds
    ``drop_P`` times ``n max(W)`` (``drop_E``, ``drop_up``) or ``tau`` (``drop_lo``):
    true, and never read by the query that asked for one side."""
    from .ckernel import compiled_tail_sums
    if isinstance(tol, arb):
        tol = arb_to_interval(tol).upper
    tau_iv = None
    if not tau.exact:
        iv = arb_to_interval(tau.ball)
        tau_iv = (iv.lower, iv.upper)
    r = compiled_tail_sums(mech, n, tau.num, tau.den, tau.exact, tau_iv=tau_iv, tol=tol, prec=prec,
                           max_nodes=max_nodes, side=side, excess=excess)
    if r is None:
        return None
    if side is not None or not excess:
        # Z in [0, n max(W)]: (Z - tau)+ and Z are at most z_max, (tau - Z)+ at most tau
        tau_hi = max(Fraction(tau_iv[1] if tau_iv is not None else Fraction(tau.num, tau.den)), Fraction(0))
        z_max = n * max(int(w) for w in mech.weights)
        for k in ("up_P", "up_X", "lo_P", "lo_X"):
            if r[k] is None:
                r[k] = (Fraction(0), Fraction(1) if k.endswith("P") else z_max + tau_hi)
        for k in ("drop_E", "drop_up", "drop_lo"):
            if r[k] is None:
                r[k] = r["drop_P"] * (tau_hi if k == "drop_lo" else z_max)
    # exact dyadic bounds (128-bit mantissas) into balls, exactly at >= 200 bits
    with ctx.workprec(max(prec, 200)):
        def ball(lo, hi):
            a = arb(fmpq(lo.numerator, lo.denominator))
            return a if hi == lo else a.union(arb(fmpq(hi.numerator, hi.denominator)))
        f = {k: ball(*r[k]) for k in ("up_P", "up_X", "eq_P", "lo_P", "lo_X")}
        d = {k: ball(Fraction(0), r[k]) for k in ("drop_P", "drop_E", "drop_up", "drop_lo")}
    return TailSums(f["up_P"], f["up_X"], f["eq_P"], f["lo_P"], f["lo_X"], d["drop_P"], d["drop_E"],
                    d["drop_up"], d["drop_lo"], tau, prec, r["nodes"], r["leaves"],
                    time.perf_counter() - t0, "compiled")


def tail_sums(mech, n: int, tau: Threshold, *, prec: int = 128,
              tol: float = 1e-40, max_nodes: int | None = None, progress=None,
              engine: str = "auto", side: str | None = None, excess: bool = True) -> TailSums:
    """Certified tail sums of ``Z = sum_l T_l W_l``, ``T ~ MN(n, pi0)``, around ``tau``.

    ``mech`` is a :class:`~exactdp.model.mechanism.Mechanism` or any object with
    ``L``, ``pi0`` (``L + 1`` exact probabilities) and ``weights`` (``L + 1``
    distinct integers, in any order).  Category ``L`` is conditioned on first,
    then ``L - 1``, ...; a node's range is bounded with the minimum and maximum
    weight of the categories still free, so the order only affects speed:
    putting rare categories with extreme weights first prunes best (a
    Mechanism's increasing weights are that order).

    ``tol`` is the mass below which a subtree is not expanded (its mass is
    accounted for rigorously in the dropped accumulators).  ``prec`` is the
    working precision in bits (an argument, never global state).

    ``engine``: ``"auto"`` runs the compiled kernel (:mod:`exactdp.engine.ckernel`,
    128-bit directed rounding) when it is built and applies (``prec <=
    ckernel.MAX_PREC``, increasing nonnegative weights, ``tau >= 0``), else this
    module's python-flint walk; ``"arb"`` forces the latter, ``"compiled"`` the
    former (ValueError when it does not apply).  ``TailSums.engine`` names the one
    that ran; both return certified enclosures.

    ``side`` (``"above"``: ``up_*``; ``"below"``: ``lo_*``; ``None``: both) is the side of
    tau the caller will read: the compiled walk then sums only that side (same tree,
    ``eq_P`` and ``drop_P``; the other side's fields are trivial bounds, see
    :func:`_compiled`), and ``excess=False`` only the probabilities (``*_X`` and the drop
    bounds other than ``drop_P`` trivial); the arb walk always sums everything.

    >>> m = Mechanism(1, "1/3")          # L = 1: Z = T_0 * 1 + T_1 * 4
    >>> ts = tail_sums(m, 2, Threshold.from_fraction(Fraction(5), 64))
    >>> # Z in {2, 5, 8} with P = 4/9, 4/9, 1/9
    >>> [ts.p_below().contains(Fraction(4, 9)), ts.p_equal().contains(Fraction(4, 9)),
    ...  ts.p_above().contains(Fraction(1, 9)), ts.excess_below().contains(Fraction(4, 3))]
    [True, True, True, True]
    >>> float(ts.p_above().width) < 1e-18
    True
    """
    t0 = time.perf_counter()
    L = mech.L
    W = tuple(mech.weights)
    if len(set(W)) != len(W):
        raise ValueError("tail_sums: the weights must be distinct")
    if engine != "arb":
        res = _compiled(mech, n, tau, prec=prec, tol=tol, max_nodes=max_nodes, t0=t0, side=side,
                        excess=excess)
        if res is not None:
            if progress is not None:
                progress(res.nodes, res.drop_P)
            return res
        if engine == "compiled":
            raise ValueError("tail_sums: the compiled kernel does not apply here "
                             f"({_ckernel_engine()}; prec <= its maximum, increasing weights >= 0, tau >= 0)")
    unit = _Unit(tuple(mech.pi0), W, W, [Fraction(w) for w in W])
    stat = LinearStatistic([unit], [(0, l) for l in range(L, 0, -1)], 0, tau, prec=prec, tol=tol)
    with ctx.workprec(prec):
        acc = walk(stat, (n,), 0, tol=tol, max_nodes=max_nodes, progress=progress, what="tail_sums")
        return stat.result(acc, time.perf_counter() - t0)


# --------------------------------------------------------------------------- independent blocks
@dataclass(frozen=True)
class Block:
    """``n`` users, each independently in category ``c`` with probability
    ``pi[c]`` (exact), contributing the integer ``weights[c]`` to Z.

    The categories are conditioned on from the last to the first (put rare,
    extreme weights last for speed); category 0 takes the remaining users.
    """

    n: int
    pi: tuple
    weights: tuple

    def __post_init__(self):
        if self.n < 0 or len(self.pi) != len(self.weights) or not self.pi:
            raise ValueError("Block: need n >= 0 and one probability per weight")
        if len(set(self.weights)) != len(self.weights):
            raise ValueError("Block: the weights must be distinct")
        if sum(self.pi) != 1 or any(p <= 0 for p in self.pi):
            raise ValueError("Block: the probabilities must be positive and sum to 1")

    @property
    def L(self) -> int:
        return len(self.pi) - 1

    @property
    def pi0(self) -> tuple:
        return self.pi


@dataclass(frozen=True)
class Mixture:
    """``n`` users, each first in group ``g`` with probability ``pi[g]``; a
    user of group ``g`` then contributes one independent draw from each block
    of ``parts[g]`` (whose own ``n`` is ignored).  Conditioned on the group
    histogram the groups are independent :class:`Block` s of random sizes."""

    n: int
    pi: tuple
    parts: tuple

    def __post_init__(self):
        if self.n < 0 or len(self.pi) != len(self.parts) or len(self.pi) < 2:
            raise ValueError("Mixture: need n >= 0 and one tuple of parts per group (>= 2 groups)")
        if sum(self.pi) != 1 or any(p <= 0 for p in self.pi):
            raise ValueError("Mixture: the probabilities must be positive and sum to 1")


class _Unit:
    """A block (or a mixture's group selector) as the search sees it: per
    level ``l`` the range and conditional mean of one free user in categories
    ``0..l``; per category its own range (``lo == hi`` for a block)."""

    def __init__(self, pi, clo, chi, cmu):
        self.L = L = len(pi) - 1
        self.theta, self.mu = _cond_data(pi, cmu)
        self.mn = [min(clo[: l + 1]) for l in range(L + 1)]
        self.mx = [max(chi[: l + 1]) for l in range(L + 1)]
        self.clo, self.chi, self.cmu = clo, chi, cmu
        self.children = None          # for a selector: unit indices per group
        self.expected = None          # for a selector: expected group sizes


def _units(blocks):
    """Flatten blocks and mixtures: units, initial sizes and the constant part."""
    units, sizes, const = [], [], 0

    def add_block(b, n):
        units.append(_Unit(b.pi, b.weights, b.weights,
                           [Fraction(w) for w in b.weights]))
        sizes.append(n)
        return len(units) - 1

    for b in blocks:
        if isinstance(b, Mixture):
            if b.n == 0:
                continue
            lo, hi, mu = [], [], []
            for parts in b.parts:
                lo.append(sum(min(p.weights) for p in parts))
                hi.append(sum(max(p.weights) for p in parts))
                mu.append(sum((sum(pi * w for pi, w in zip(p.pi, p.weights)) for p in parts), Fraction(0)))
            sel = _Unit(b.pi, lo, hi, mu)
            units.append(sel)
            sizes.append(b.n)
            sel.children = [[add_block(p, 0) for p in parts] for parts in b.parts]
            sel.expected = [Fraction(pi) * b.n for pi in b.pi]
        elif b.L == 0:
            const += b.n * b.weights[0]
        elif b.n > 0:
            add_block(b, b.n)
    return units, sizes, const


def _schedule(units, sizes) -> list:
    """Conditioning steps ``(unit, level)``: the group selectors first, then
    always the block whose free part spans the widest range (a heuristic;
    any order is correct)."""
    nominal = list(sizes)
    steps = []
    for i, u in enumerate(units):
        if u.children is not None:
            steps += [(i, l) for l in range(u.L, 0, -1)]
            for g, kids in enumerate(u.children):
                for k in kids:
                    nominal[k] = u.expected[g]
    level = [0 if u.children is not None else u.L for u in units]
    while any(level):
        t = max((i for i, l in enumerate(level) if l),
                key=lambda i: nominal[i] * (units[i].mx[level[i]] - units[i].mn[level[i]]))
        steps.append((t, level[t]))
        level[t] -= 1
    return steps


def _halfline0(c0: int, c1: int, m: int):
    """:func:`_halfline`, also for ``c1 == 0`` (all of ``0..m`` or nothing)."""
    if c1 == 0:
        return (True, 0) if c0 > 0 else (True, m + 1)
    return _halfline(c0, c1)


def block_tail_sums(blocks, tau: Threshold, *, prec: int = 128, tol: float = 1e-40,
                    max_nodes: int | None = None) -> TailSums:
    """Certified tail sums of ``Z = Z_1 + ... + Z_B`` around ``tau`` for
    independent :class:`Block` s (``Z_b = sum_c T_{b,c} w_{b,c}``,
    ``T_b ~ MN(n_b, pi_b)``) and :class:`Mixture` s.

    The same search as :func:`tail_sums`, with the categories of all blocks
    conditioned on in one interleaved sequence (:func:`_schedule`) and a node's
    range the sum of every block's free range; a mixture's group histogram is
    conditioned on first (each group's range bounding its users), then its
    groups are blocks of known size.  A statistic linear in two independent
    marginal histograms (a homogeneous base whose changed user gains some bits
    and loses others, :mod:`exactdp.reductions.pairs`) needs ``b + c`` conditioning steps
    this way instead of ``(b + 1)(c + 1) - 1`` on the merged categories.

    >>> B = Block(2, (Fraction(2, 3), Fraction(1, 3)), (1, 4))     # as tail_sums' example
    >>> ts = block_tail_sums([B], Threshold.from_fraction(Fraction(5), 64))
    >>> [ts.p_below().contains(Fraction(4, 9)), ts.p_equal().contains(Fraction(4, 9)),
    ...  ts.p_above().contains(Fraction(1, 9))]
    [True, True, True]
    >>> U = Block(1, (Fraction(1, 2), Fraction(1, 2)), (0, 3))     # Z = U + V in {-2, -1, 1, 2}
    >>> V = Block(1, (Fraction(3, 4), Fraction(1, 4)), (-1, -2))
    >>> ts = block_tail_sums([U, V], Threshold.from_fraction(Fraction(0), 64))
    >>> ts.p_above().contains(Fraction(1, 2)), ts.p_below().contains(Fraction(1, 2))
    (True, True)
    """
    t0 = time.perf_counter()
    units, sizes, const = _units(blocks)
    stat = LinearStatistic(units, _schedule(units, sizes), const, tau, prec=prec, tol=tol)
    with ctx.workprec(prec):
        acc = walk(stat, tuple(sizes), const, tol=tol, max_nodes=max_nodes, what="block_tail_sums")
        return stat.result(acc, time.perf_counter() - t0)


class LinearStatistic:
    """``Z = const + sum_u sum_c T_{u,c} w_{u,c}`` against a threshold: the
    *linear-range* classifier of :func:`exactdp.engine.search.walk` (see its module doc
    for the hooks).  A node's ``Z`` lies in ``[lo_r, hi_r]`` (every free user at its
    unit's smallest / largest weight still possible), so a node wholly on one side
    is settled with its exact conditional mean; within a node the values of ``T_l``
    whose child is wholly on one side are two half-lines of integers summed in
    closed form from binomial tails (:func:`_split_node`).  The state is the
    partial sum ``Zs`` (an integer); the accumulators are the masses and excess
    sums of :class:`TailSums`."""

    def __init__(self, units, steps, const, tau: Threshold, *, prec: int, tol: float):
        self.units = units
        self.B = len(units)
        children = {i: u.children for i, u in enumerate(units) if u.children is not None}
        self.schedule = Schedule([u.L for u in units], steps, children)
        self.levels = self.schedule.levels
        self.steps = self.schedule.steps
        self.mn = [u.mn for u in units]
        self.mx = [u.mx for u in units]
        self.tau, self.prec = tau, prec
        self.P_, self.Q_ = tau.num, tau.den
        # (Z - tau)+ <= Z bounds a dropped child's excess when Z >= 0 and tau >= 0
        self.excess_le_z = tau.num >= 0 and const >= 0 and all(u.mn[u.L] >= 0 for u in units)
        with ctx.workprec(prec):
            self.tb = tau.ball
            self.rows = {(t, l): BinomialRows(units[t].theta[l], prec, tol * 1e-6) for t, l in steps}
            self.mu_arb = [[arb(fmpq(x.numerator, x.denominator)) for x in u.mu] for u in units]
            self.cmu_arb = [[arb(fmpq(x.numerator, x.denominator)) for x in u.cmu] for u in units]
            # E[Z | T_l = x] = cbase + slope x, one ball per step
            self.slope = {(t, l): self.cmu_arb[t][l] - self.mu_arb[t][l - 1] for t, l in steps}
        if self.B == 1 and not children:
            # one unit (000's pair): the same hooks without the loops over units
            self.settle, self.split, self.drop_child = self._settle1, self._split1, self._drop_child1
            self.lev1 = [lv[0] for lv in self.levels]
            self.w1 = units[0].clo

    def _settle1(self, acc, s, ms, Zs, P) -> bool:
        l, m = self.lev1[s], ms[0]
        Q_, P_ = self.Q_, self.P_
        if (Zs + m * self.mn[0][l]) * Q_ > P_:             # wholly above
            acc.up_P += P
            acc.up_X += P * (arb(Zs) + m * self.mu_arb[0][l] - self.tb)
            return True
        if (Zs + m * self.mx[0][l]) * Q_ < P_:             # wholly below
            acc.lo_P += P
            acc.lo_X += P * (self.tb - arb(Zs) - m * self.mu_arb[0][l])
            return True
        return False

    def _split1(self, acc, s, ms, Zs, P, row):
        l, m = self.lev1[s], ms[0]
        mn, mx = self.mn[0], self.mx[0]
        Wl, mn1, mx1 = self.w1[l], mn[l - 1], mx[l - 1]
        Q_, P_ = self.Q_, self.P_
        above = _halfline((Zs + m * mn1) * Q_ - P_, (Wl - mn1) * Q_)
        below = _halfline(P_ - (Zs + m * mx1) * Q_, (mx1 - Wl) * Q_)
        mu_c = self.mu_arb[0][l - 1]
        up, lo, first, last = _split_node(row, m, above, below, arb(Zs) + m * mu_c, self.slope[(0, l)],
                                          tb_=self.tb)
        if up is not None:
            acc.up_P += P * up[0]
            acc.up_X += P * up[1]
        if lo is not None:
            acc.lo_P += P * lo[0]
            acc.lo_X += P * lo[1]
        return first, last, (s, ms, Zs, 0, l, m, Zs + m * mn[l], Zs + m * mx[l], mu_c, Wl, mn1, mx1)

    def _drop_child1(self, acc, nd, x, cm):
        Zs, m, mu_c, Wl, mn1, mx1 = nd[2], nd[5], nd[8], nd[9], nd[10], nd[11]
        tb_ = self.tb
        czs = Zs + x * Wl
        ez = arb(czs) + (m - x) * mu_c                    # exact conditional mean
        acc.d_P += cm
        acc.d_E += cm * ez
        up_b = positive_part(arb(czs + (m - x) * mx1) - tb_)
        acc.d_up += cm * (up_b if not self.excess_le_z or up_b < ez else ez)
        acc.d_lo += cm * positive_part(tb_ - arb(czs + (m - x) * mn1))

    def row(self, t, l, m):
        return self.rows[(t, l)].row(m)

    def _range(self, s, ms, Zs):
        lv = self.levels[s]
        if self.B == 1:
            m, l = ms[0], lv[0]
            return Zs + m * self.mn[0][l], Zs + m * self.mx[0][l]
        mn, mx = self.mn, self.mx
        return (Zs + sum(ms[i] * mn[i][lv[i]] for i in range(self.B)),
                Zs + sum(ms[i] * mx[i][lv[i]] for i in range(self.B)))

    def _mean(self, s, ms, Zs, skip=-1):
        lv = self.levels[s]
        ez = arb(Zs)
        for i in range(self.B):
            if i != skip and ms[i]:
                ez += ms[i] * self.mu_arb[i][lv[i]]
        return ez

    def settle(self, acc, s, ms, Zs, P) -> bool:
        lo_r, hi_r = self._range(s, ms, Zs)
        Q_, P_ = self.Q_, self.P_
        if lo_r * Q_ > P_:                                 # wholly above
            acc.up_P += P
            acc.up_X += P * (self._mean(s, ms, Zs) - self.tb)
            return True
        if hi_r * Q_ < P_:                                 # wholly below
            acc.lo_P += P
            acc.lo_X += P * (self.tb - self._mean(s, ms, Zs))
            return True
        return False

    def point(self, acc, ms, Zs, P):
        acc.eq_P += P                                      # not settled: Z == tau

    def split(self, acc, s, ms, Zs, P, row):
        t, l = self.steps[s]
        u = self.units[t]
        m = ms[t]
        lo_r, hi_r = self._range(s, ms, Zs)
        mn1, mx1 = self.mn[t][l - 1], self.mx[t][l - 1]
        wlo, whi = u.clo[l], u.chi[l]
        o_lo = lo_r - m * self.mn[t][l]                    # Zs plus the other units' range
        o_hi = hi_r - m * self.mx[t][l]
        o_mu = self._mean(s, ms, Zs, skip=t)
        Q_, P_ = self.Q_, self.P_
        above = _halfline0((o_lo + m * mn1) * Q_ - P_, (wlo - mn1) * Q_, m)
        below = _halfline0(P_ - (o_hi + m * mx1) * Q_, (mx1 - whi) * Q_, m)
        cbase = o_mu + m * self.mu_arb[t][l - 1]
        up, lo, first, last = _split_node(row, m, above, below, cbase, self.slope[(t, l)], tb_=self.tb)
        if up is not None:
            acc.up_P += P * up[0]
            acc.up_X += P * up[1]
        if lo is not None:
            acc.lo_P += P * lo[0]
            acc.lo_X += P * lo[1]
        return first, last, (s, ms, Zs, t, l, m, lo_r, hi_r, o_lo, o_hi, o_mu)

    def points(self, acc, nd, P, row, first, last) -> bool:
        s, ms, Zs, t, l, m = nd[:6]
        if l != 1 or self.units[t].children is not None:
            return False
        if self.B > 1:
            nxt = self.levels[s + 1]
            if any(ms[i] and nxt[i] for i in range(self.B) if i != t):
                return False
        # the child is a point, so a straddling value has Z == tau exactly
        for x in range(first, last + 1):
            acc.eq_P += P * row.pmf_at(x)
        return True

    def drop(self, acc, nd, mass):
        zlo, zhi, tb_ = arb(nd[6]), arb(nd[7]), self.tb
        acc.d_P += mass
        acc.d_E += mass * zhi
        acc.d_up += mass * positive_part(zhi - tb_)
        acc.d_lo += mass * positive_part(tb_ - zlo)

    def drop_child(self, acc, nd, x, cm):
        s, ms, Zs, t, l, m, lo_r, hi_r, o_lo, o_hi, o_mu = nd
        u = self.units[t]
        tb_ = self.tb
        ez = o_mu + x * self.cmu_arb[t][l] + (m - x) * self.mu_arb[t][l - 1]   # exact conditional mean
        acc.d_P += cm
        acc.d_E += cm * ez
        up_b = positive_part(arb(o_hi + x * u.chi[l] + (m - x) * self.mx[t][l - 1]) - tb_)
        acc.d_up += cm * (up_b if not self.excess_le_z or up_b < ez else ez)
        acc.d_lo += cm * positive_part(tb_ - arb(o_lo + x * u.clo[l] + (m - x) * self.mn[t][l - 1]))

    def child(self, nd, x):
        t, l = nd[3], nd[4]
        u = self.units[t]
        return nd[2] if u.children is not None else nd[2] + x * u.clo[l]

    def result(self, acc, seconds: float) -> TailSums:
        return TailSums(acc.up_P, acc.up_X, acc.eq_P, acc.lo_P, acc.lo_X, acc.d_P, acc.d_E, acc.d_up,
                        acc.d_lo, self.tau, self.prec, acc.nodes, acc.leaves, seconds)
