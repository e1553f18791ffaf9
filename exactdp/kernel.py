"""Certified kernel: tail sums of the integer statistic Z under the null law.

Everything exactdp reports about the canonical pair reduces to four partial
sums of one law.  Let ``T ~ MN(n, pi0)`` (the synthetic set-bit counts of ``n``
zero vectors, 000 (3.5)/(3.7)) and ``Z = sum_l T_l W_l`` with the integer
weights of :class:`~exactdp.mechanism.Mechanism` (``Z = (ab)^L X``).  For a
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

from .errors import CapacityError, PrecisionError
from .interval import Interval, arb_to_interval
from .mechanism import Mechanism

__all__ = ["Threshold", "TailSums", "tail_sums", "BinomialRows", "lam_threshold"]


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
    e = fmpq(eps.numerator, eps.denominator)

    def make(p):
        with ctx.workprec(p):
            lamb = arb(e).exp()
            return arb(f) / lamb if invert else arb(f) * lamb

    return Threshold.from_ball(make, prec)


# --------------------------------------------------------------------------- binomial rows
class _Row:
    """pmf, prefix and suffix sums of Bin(m, theta) on a window ``[ka, kb]``.

    ``tail_left`` bounds ``P[T < ka]`` and ``tail_right`` bounds ``P[T > kb]``
    (geometric bounds from the monotone pmf ratio).
    """

    __slots__ = ("m", "ka", "kb", "pmf", "suf", "pre", "suf2", "pre2", "tail_left",
                 "tail_right", "tail_left_pos", "tail_right_pos", "tail_left2", "tail_right2",
                 "_zero", "_one")

    def sf_ge(self, k):
        """Enclosure of ``P[T >= k]``."""
        if k <= 0:
            return self._one
        if k > self.m:
            return self._zero
        if k > self.kb:
            return self.tail_right
        if k < self.ka:
            return self.suf[0] + self.tail_left_pos
        return self.suf[k - self.ka]

    def cdf_le(self, k):
        """Enclosure of ``P[T <= k]``."""
        if k < 0:
            return self._zero
        if k >= self.m:
            return self._one
        if k < self.ka:
            return self.tail_left
        if k > self.kb:
            return self.pre[-1] + self.tail_right_pos
        return self.pre[k - self.ka]

    def ssum_ge(self, k):
        """Enclosure of ``sum_{j >= k} P[T >= j]`` (= ``E[(T - k + 1)+]``)."""
        if k > self.m:
            return self._zero
        if k > self.kb:
            return self.tail_right2
        if k >= self.ka:
            return self.suf2[k - self.ka]
        n_one = max(0, min(self.ka - 1, 0) - k + 1)
        n_mid = max(0, self.ka - 1 - max(k, 1) + 1)
        return self.suf2[0] + n_one + n_mid * (self.suf[0] + self.tail_left_pos)

    def csum_le(self, k):
        """Enclosure of ``sum_{j <= k} P[T <= j]`` (= ``E[(k + 1 - T)+]``)."""
        if k < 0:
            return self._zero
        if k < self.ka:
            return self.tail_left2
        if k <= self.kb:
            return self.pre2[k - self.ka]
        n_one = max(0, k - max(self.kb + 1, self.m) + 1)
        n_mid = max(0, min(k, self.m - 1) - (self.kb + 1) + 1)
        return self.pre2[-1] + n_one + n_mid * (self.pre[-1] + self.tail_right_pos)

    def pmf_at(self, k):
        if k < 0 or k > self.m:
            return self._zero
        if k < self.ka:
            return self.tail_left
        if k > self.kb:
            return self.tail_right
        return self.pmf[k - self.ka]


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

    #: bound on the cached row cells (each cell holds five arb balls)
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
                row.suf = [self.one]
                row.pre = [self.one]
                row.tail_left = row.tail_right = self.zero
                row.tail_left_pos = row.tail_right_pos = self.zero
                row.tail_left2 = row.tail_right2 = self.zero
                row.suf2 = [self.one]
                row.pre2 = [self.one]
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
            while k < m:
                ratio = rho * fmpq(m - k, k + 1)
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
                ratio = irho * fmpq(k, m - k + 1)
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
            suf = _running_sums(pmf, tr, from_right=True)
            pre = _running_sums(pmf, tl, from_right=False)
            row.suf = suf
            row.pre = pre
            # second-order sums; beyond the window sum_j P[T >= j] <= 2 * tail (ratio < 1/2)
            tr2 = _zero_to(2 * tail_right)
            tl2 = _zero_to(2 * tail_left)
            row.tail_left2 = tl2
            row.tail_right2 = tr2
            suf2 = _running_sums(suf, tr2, from_right=True)
            pre2 = _running_sums(pre, tl2, from_right=False)
            row.suf2 = suf2
            row.pre2 = pre2
            return row


def _running_sums(values, start, from_right: bool):
    """Cumulative sums of ``values`` (arb balls) starting from ``start``; from the
    right end (suffix sums) or the left end (prefix sums), each summed directly."""
    out = [None] * len(values)
    acc = start
    idx = range(len(values) - 1, -1, -1) if from_right else range(len(values))
    for i in idx:
        acc = acc + values[i]
        out[i] = acc
    return out


def _zero_to(b):
    """A ball enclosing ``[0, upper(b)]``."""
    u = b.upper()
    if not u > 0:
        return arb(0)
    return arb(0).union(u)


def _pos(x):
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
def _level_data(mech: Mechanism):
    """theta_l and the conditional mean mu_l of a weight, categories 0..l (exact)."""
    L = mech.L
    pi = mech.pi0
    W = mech.weights
    S = [sum(pi[: l + 1]) for l in range(L + 1)]
    theta = [pi[l] / S[l] for l in range(L + 1)]
    mu = [sum(pi[i] * W[i] for i in range(l + 1)) / S[l] for l in range(L + 1)]
    return theta, mu


def tail_sums(mech: Mechanism, n: int, tau: Threshold, *, prec: int = 128,
              tol: float = 1e-40, max_nodes: int | None = None, progress=None) -> TailSums:
    """Certified tail sums of ``Z = sum_l T_l W_l``, ``T ~ MN(n, pi0)``, around ``tau``.

    ``tol`` is the mass below which a subtree is not expanded (its mass is
    accounted for rigorously in the dropped accumulators).  ``prec`` is the
    working precision in bits (an argument, never global state).

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
    W = mech.weights
    theta, mu = _level_data(mech)
    P_, Q_ = tau.num, tau.den
    WQ = [w * Q_ for w in W]
    row_tol = tol * 1e-6
    with ctx.workprec(prec):
        rows = [None] + [BinomialRows(theta[l], prec, row_tol) for l in range(1, L + 1)]
        mu_arb = [arb(fmpq(x.numerator, x.denominator)) for x in mu]
        W_arb = [arb(w) for w in W]
        tb_ = tau.ball
        zero = arb(0)
        up_P = up_X = eq_P = lo_P = lo_X = zero
        d_P = d_E = d_up = d_lo = zero
        tol_arb = arb(tol)
        nodes = leaves = 0
        stack = [(L, n, 0, arb(1))]
        last_report = t0
        while stack:
            l, m, Zs, P = stack.pop()
            nodes += 1
            if max_nodes is not None and nodes > max_nodes:
                raise CapacityError(f"tail_sums: more than {max_nodes} nodes; "
                                    "use method='fast' or fewer digits")
            if progress is not None and (nodes & 0x3FFF) == 0:
                now = time.perf_counter()
                if now - last_report > 0.5:
                    progress(nodes, d_P)
                    last_report = now
            if (Zs + m * W[0]) * Q_ > P_:             # wholly above
                ez = arb(Zs) + m * mu_arb[l]
                up_P += P
                up_X += P * (ez - tb_)
                continue
            if (Zs + m * W[l]) * Q_ < P_:             # wholly below
                ez = arb(Zs) + m * mu_arb[l]
                lo_P += P
                lo_X += P * (tb_ - ez)
                continue
            if m == 0:                                 # Z = Zs = tau
                eq_P += P
                continue
            R = rows[l]
            row = R.row(m)
            if l == 1:
                # leaf: Z = base + t d with t = T_1 ~ Bin(m, theta_1)
                leaves += 1
                base = Zs + m * W[0]
                d = W[1] - W[0]
                dq = WQ[1] - WQ[0]
                num = P_ - base * Q_
                fl = num // dq                 # t* = num/dq; above: t > t*, below: t < t*
                tie = (num % dq == 0)
                k_up = fl + 1
                k_lo = fl - 1 if tie else fl
                if k_up <= m:
                    s = row.sf_ge(k_up)
                    up_P += P * s
                    up_X += P * ((arb(base + k_up * d) - tb_) * s + d * row.ssum_ge(k_up + 1))
                if k_lo >= 0:
                    c = row.cdf_le(k_lo)
                    lo_P += P * c
                    lo_X += P * ((tb_ - arb(base + k_lo * d)) * c + d * row.csum_le(k_lo - 1))
                if tie and 0 <= fl <= m:
                    eq_P += P * row.pmf_at(fl)
                continue
            # ---- internal node, level l >= 2: enumerate t = T_l ~ Bin(m, theta_l)
            Wq_l, Wq_0, Wq_m1 = WQ[l], WQ[0], WQ[l - 1]
            # child wholly above iff t > A ; wholly below iff t < B
            ta = (P_ - (Zs * Q_ + m * Wq_0)) // (Wq_l - Wq_0) + 1
            tb = -((-(P_ - (Zs * Q_ + m * Wq_m1))) // (Wq_l - Wq_m1)) - 1
            # E[Z | T_l = t] = cbase + slope * t
            mu1 = mu_arb[l - 1]
            slope = W_arb[l] - mu1
            cbase = arb(Zs) + m * mu1
            if ta <= m:
                s = row.sf_ge(ta)
                up_P += P * s
                up_X += P * ((cbase + slope * ta - tb_) * s + slope * row.ssum_ge(ta + 1))
            if tb >= 0:
                c = row.cdf_le(tb)
                lo_P += P * c
                lo_X += P * ((tb_ - cbase - slope * tb) * c + slope * row.csum_le(tb - 1))
            t_first = max(tb + 1, 0)
            t_last = min(ta - 1, m)
            if t_first > t_last:
                continue
            lo_w = max(t_first, row.ka)
            hi_w = min(t_last, row.kb)
            outside = None
            if lo_w > hi_w:
                outside = row.tail_left + row.tail_right
            else:
                if t_first < row.ka:
                    outside = row.tail_left
                if t_last > row.kb:
                    outside = row.tail_right if outside is None else outside + row.tail_right
            if outside is not None:
                dm = P * outside
                zmax = arb(Zs + m * W[l])
                d_P += dm
                d_E += dm * zmax
                d_up += dm * _pos(zmax - tb_)
                d_lo += dm * _pos(tb_ - arb(Zs + m * W[0]))
            if lo_w > hi_w:
                continue
            pm = row.pmf
            ka = row.ka
            Wl_raw = W[l]
            mu_c = mu_arb[l - 1]
            for t in range(lo_w, hi_w + 1):
                cm = P * pm[t - ka]
                czs = Zs + t * Wl_raw
                if cm < tol_arb:
                    # not expanded: bound its contributions rigorously
                    ez = arb(czs) + (m - t) * mu_c           # exact conditional mean
                    d_P += cm
                    d_E += cm * ez
                    zmax = arb(czs + (m - t) * W[l - 1])
                    up_b = _pos(zmax - tb_)
                    d_up += cm * (up_b if up_b < ez else ez)
                    d_lo += cm * _pos(tb_ - arb(czs + (m - t) * W[0]))
                else:
                    stack.append((l - 1, m - t, czs, cm))
        res = TailSums(up_P, up_X, eq_P, lo_P, lo_X, d_P, d_E, d_up, d_lo,
                       tau, prec, nodes, leaves, time.perf_counter() - t0)
    return res
