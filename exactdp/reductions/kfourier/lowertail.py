r"""The lower tail of the k-copies statistic by one product bound (part of
:mod:`exactdp.reductions.kfourier`): a certified ``B >= P[R <= thr]`` without enumerating
anything, for the small-``q``, large-``k`` corner where ``eta = P[R > lam]`` is within ``1e-3``
of 1 and the walk's enumeration of the heavy levels does not close.

**The bound.**  Take ``R = kappa e_k(w)``, ``e_k(w) = [z^k] prod_l (1 + w_l z)^(T_l)`` with
``T_l`` the count of outputs at level ``l`` (package doc).  Split the levels at ``l_cut``: the
light ones (below) give ``G(z) = prod (1 + w_l z)^(T_l)`` with power sums ``p_1``, ``p_2``; the
heavy ones (from ``l_cut`` up) ``H(z)``.

1. ``j! G_j = p_1^j P[j draws from the light outputs, with replacement and weights w, are
   distinct]``, so ``j! G_j >= p_1^j - C(j, 2) p_2 p_1^(j-2)`` (Bonferroni over the pairs of
   draws) and ``j! G_j >= p_1^j prod_(i < j) (1 - i w_max / p_1)`` (each next draw misses the
   ``i`` drawn, of mass at most ``i w_max``).  With Chernoff levels ``p_1 >= a``, ``p_2 <= b``
   (failing with probabilities ``beta_1``, ``beta_2``) ``g_j`` is the larger of the two at
   ``p_1 = a``, ``p_2 = b`` where positive: both are nondecreasing in ``p_1`` there (the first
   once ``a^2 > C(j, 2) b``) and nonincreasing in ``p_2``.
2. One term per heavy level.  For quotas ``m_l`` (``S = sum m_l``, ``j_0 = k - S >= 0``) and the
   deficits ``d_l = m_l - min(T_l, m_l)``, ``D = sum d_l``: ``e_k >= G_(j_0 + D) H_(S - D)``,
   ``H_(S - D) >= prod_l C(T_l, min(T_l, m_l)) w_l^min(T_l, m_l)`` (the subsets with exactly that
   many outputs at each level), and ``g_(j_0 + D) >= g_(j_0) rho^D`` with ``rho`` the least
   ratio ``g_(j+1) / g_j`` over ``j_0 <= j < k`` (every ``g_j`` there positive).  More terms:
   letting each level take ``j`` outputs anywhere in ``0 .. m_l + Delta_l`` (``sum Delta_l <=
   j_0``), with ``r_+ = rho`` per output below its quota and ``r_-`` (the least ``g_(j-1) /
   g_j`` over ``j_0 - sum Delta_l < j <= j_0``, lowered to ``r_+ r_- <= 1``) per output above,
   ``g_(j_0 + D - E) >= g_(j_0) r_+^D r_-^E`` for ``D`` outputs below the quotas and ``E`` above
   (``r_+ r_- <= 1`` covers the mixed case), and the terms are distinct terms of ``e_k``.  So
   outside the light failure event ``R >= kappa g_(j_0) prod_l phi_l(T_l)`` with

       phi_l(T) = sum_(j = 0)^(m_l + Delta_l) C(T, j) w_l^j r_+^(m_l - j) (j < m_l), r_-^(j - m_l) (j >= m_l),

   positive and nondecreasing in ``T`` (:func:`product_bound`; ``tests/test_kfourier_lowertail.py``
   checks ``R >= `` it for every count vector of a small case, by exact enumeration).
3. Markov and negative association: the level counts of one multinomial are negatively
   associated (Joag-Dev and Proschan 1983), so are two independent families (the null outputs
   and the changed user's), and so are the sums ``T_l = T0_l + T1_l`` (nondecreasing functions of
   disjoint sets).  For nonincreasing nonnegative ``f_l``, ``E prod f_l(T_l) <= prod E
   f_l(T_l)``; with ``f_l = phi_l^(-s)``, ``s > 0``:

       P[R <= thr] <= beta_1 + beta_2 + (thr / (kappa g_(j_0)))^s prod_l E[phi_l(T_l)^(-s)].

Each ``E[phi_l(T_l)^(-s)]`` is a finite sum (:func:`expected_power`) over the law of ``T_l`` (the convolution of two
binomials) plus its tail at the last term's value (``phi_l^(-s)`` is nonincreasing).  The
split, quotas, ``s`` and Chernoff parameters are chosen in floats; every number of the bound
is then evaluated in arb, so the choice only moves the bound, never its validity
(``tests/test_kfourier_lowertail.py`` checks it against exact enumeration in ``Fraction``).

At ``L = 40``, ``N = 10^7``, ``lam = e^2``, forward, ``q = 0.30``: ``P[R <= lam] <= 3.6e-6`` at
``k = 200`` and ``1.09e-3`` at ``k = 128`` in a few CPU seconds, where the walk gave ``[0.47, 1]``
(``tol = 1e-2``, 728 CPU s) and ``[0.93, 1]`` (``tol = 1e-3``, 1141 s); at ``k = 64`` only 0.15
(the walk: 2.2e-2).  Where it is weak: the Bonferroni pool needs ``C(k, 2) p_2 < p_1^2`` (or the
distinct-draws product) up to ``j = k``, which keeps the levels from about 29 up in the quotas,
and one ratio ``r_+`` prices every deficit (``benchmarks/RESULTS.md``, session 14).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
from flint import arb, ctx
from scipy.optimize import minimize_scalar
from scipy.special import gammaln
from scipy.stats import binom as binom_dist

from ...model.mechanism import Mechanism
from . import settings
from .arbs import exact_arb, float_hi


@dataclass(frozen=True)
class Choice:
    """The free parameters of the bound (module doc): the first heavy level ``cut``, the quotas
    ``quota`` and the excesses ``excess`` (level -> ``m_l``, ``Delta_l``), the light Chernoff
    levels ``a`` (``p_1 >= a``) and ``b`` (``p_2 <= b``), exact as floats or rationals, and the
    Markov exponent ``s``.  Any choice gives a valid bound; the floats only pick a good one."""

    cut: int
    quota: dict
    excess: dict
    a: float | Fraction
    b: float | Fraction
    s: float = 1.0


@dataclass(frozen=True)
class LowerTail:
    """A certified ``bound >= P[R <= thr]`` (:func:`lower_tail`), its :class:`Choice` and the
    light Chernoff levels' failure bound ``beta`` (part of ``bound``)."""

    bound: float
    choice: Choice
    beta: float


@dataclass(frozen=True)
class _Floats:
    """Float images of the problem for the choice (``lw``: log weights, ``mean``: mean counts)."""

    k: int
    n: int
    m: int
    pi0: list
    pi1: list
    lw: list
    mean: list
    lthr: float
    lkappa: float


def lower_tail(mech: Mechanism, k: int, n: int, m: int, thr, *, prec: int = 128) -> LowerTail | None:
    """A certified upper bound of ``P[R <= thr]`` (module doc) for ``R = kappa e_k(w)`` of ``n``
    outputs of the null level law ``pi0`` and ``m`` of ``pi1`` (``M = n + m``, ``w_l = c_l / M``),
    ``thr`` an arb (its upper end is used); ``None`` where no split gives a bound below 1.

    At ``L = 2``, ``q = 1/10``, 60 null outputs and 2 of the changed user, ``k = 2``, the exact
    ``P[R <= 1/2]`` is 0.0792 (``tests/test_kfourier_lowertail.py``):

    >>> from exactdp.model.mechanism import Mechanism
    >>> r = lower_tail(Mechanism(2, "1/10"), 2, 60, 2, arb(1) / 2)
    >>> 0.0792 < r.bound < 0.8, r.choice.cut, r.choice.quota
    (True, 2, {2: 1})
    """
    M = n + m
    if not (isinstance(k, int) and 1 <= k <= M):
        raise ValueError(f"lower_tail needs 1 <= k <= n + m, got k={k!r}, n + m = {M}")
    pi0 = [float(x) for x in mech.pi0]
    pi1 = [float(x) for x in mech.pi1]
    fl = _Floats(k, n, m, pi0, pi1, [math.log(float(c)) - math.log(M) for c in mech.c],
                 [n * pi0[l] + m * pi1[l] for l in range(mech.L + 1)], math.log(float_hi(arb(thr))),
                 k * math.log(M) - (math.lgamma(M + 1) - math.lgamma(k + 1) - math.lgamma(M - k + 1)))
    best = None
    for cut in range(mech.L, 0, -1):
        if fl.mean[cut] > settings.LOWER_TAIL_MAX_COUNT:
            break                   # a heavy level this full: its sum would cost too much in arb
        plan = _plan(fl, cut)
        if plan is not None and (best is None or plan[0] < best[0]):
            best = plan
    if best is None or best[0] >= 0.0:
        return None
    choice = _refine(fl, best[1], {})
    old = ctx.prec
    ctx.prec = prec
    try:
        bound, beta = _certify(mech, k, n, m, arb(thr), choice)
    finally:
        ctx.prec = old
    if not bound < 1:
        return None
    return LowerTail(float_hi(bound), choice, float_hi(beta))


# ----------------------------------------------------------------- the choice, in floats
def _log_mgf(fl: _Floats, x, t: float) -> float:
    """``log E e^(t X)`` of the ``n + m`` outputs, ``X = x_l`` on the light levels (``len(x)``
    of them), 0 above (floats)."""
    cut = len(x)
    k0 = fl.n * math.log1p(float(np.array(fl.pi0[:cut]) @ np.expm1(t * x)))
    return k0 + (fl.m * math.log1p(float(np.array(fl.pi1[:cut]) @ np.expm1(t * x))) if fl.m else 0.0)


def _best_t(fl: _Floats, x, level: float, below: bool) -> float:
    """The Chernoff parameter ``t > 0`` minimising the float bound of ``P[sum X < level]``
    (``below``) or ``P[sum X > level]`` (a choice only)."""
    sgn = -1.0 if below else 1.0
    scale = 1.0 / float(x.max())
    u = minimize_scalar(lambda u: _log_mgf(fl, x, sgn * math.exp(u) * scale) - sgn * math.exp(u) * scale * level,
                        bounds=(-12, 6), method="bounded").x
    return math.exp(u) * scale


def _chernoff_levels(fl: _Floats, cut: int, beta: float):
    """Floats ``(a, b)``: ``P[p_1 < a] <~ beta`` and ``P[p_2 > b] <~ beta`` for the light outputs
    (levels below ``cut``), by Chernoff's bound at its best ``t`` (a choice only)."""
    w = np.exp(np.array(fl.lw[:cut]))
    lb = math.log(beta)
    s1 = 1.0 / float(w.max())
    a = -minimize_scalar(lambda u: -((lb - _log_mgf(fl, w, -math.exp(u) * s1)) / (math.exp(u) * s1)),
                         bounds=(-12, 6), method="bounded").fun
    w2 = w * w
    s2 = 1.0 / float(w2.max())
    b = minimize_scalar(lambda u: (_log_mgf(fl, w2, math.exp(u) * s2) - lb) / (math.exp(u) * s2),
                        bounds=(-12, 6), method="bounded").fun
    return float(a), float(b)


def _log_g(k, a, b, wmax):
    """``log g_j`` (module doc, step 1) for ``j = 0 .. k``; ``-inf`` where ``g_j <= 0``."""
    out = []
    lp = 0.0                                    # log prod_(i < j) (1 - i w_max / a)
    for j in range(k + 1):
        f = 1.0 - comb(j, 2) * b / (a * a) if j >= 2 else 1.0
        v = max(f, math.exp(lp)) if lp > -math.inf else f
        out.append(j * math.log(a) - math.lgamma(j + 1) + math.log(v) if v > 0 else -math.inf)
        x = 1.0 - j * wmax / a
        lp = lp + math.log(x) if x > 0 and lp > -math.inf else -math.inf
    return out


def _count_pmf(fl: _Floats, l: int, tmax: int):
    """Float pmf of ``T_l = Bin(n, pi0_l) + Bin(m, pi1_l)`` on ``0 .. tmax``."""
    a = binom_dist.pmf(np.arange(tmax + 1), fl.n, fl.pi0[l])
    b = binom_dist.pmf(np.arange(fl.m + 1), fl.m, fl.pi1[l]) if fl.m else np.ones(1)
    return np.convolve(a, b)[:tmax + 1]


def _tmax(mu: float, top: int) -> int:
    return int(top + mu + 12 * math.sqrt(mu + 1) + 40)


def _excess(quota: dict, j0: int) -> dict:
    """``Delta_l``: how far above its quota each heavy level's term may go (module doc, step 2),
    ``sum Delta_l <= j0``."""
    share = j0 // len(quota) if quota else 0
    return {l: min(share, ml + 8) for l, ml in quota.items()}


def _ratios_f(lg, j0, k, E):
    """Float ``(log r_+, log r_-)`` (module doc, step 2), or None where a ``g_j`` is not positive."""
    if j0 - E < 0 or not all(math.isfinite(lg[j]) for j in range(j0 - E, k + 1)):
        return None
    lrp = min((lg[j + 1] - lg[j] for j in range(j0, k)), default=0.0)
    lrm = min((lg[j - 1] - lg[j] for j in range(j0 - E + 1, j0 + 1)), default=0.0)
    return lrp, min(lrm, -lrp)


def _log_phi(T, ml, dl, lwl, lr):
    """``log phi_l`` on the counts ``T`` (floats; module doc, step 2; ``lr = (log r_+, log r_-)``)."""
    mp = np.arange(ml + dl + 1)
    with np.errstate(invalid="ignore"):
        lc = gammaln(T[:, None] + 1) - gammaln(mp[None, :] + 1) - gammaln(np.maximum(T[:, None] - mp[None, :], 0) + 1)
    lc = np.where(mp[None, :] <= T[:, None], lc, -np.inf)
    x = lc + mp[None, :] * lwl + np.where(mp < ml, (ml - mp) * lr[0], (mp - ml) * lr[1])[None, :]
    mx = x.max(axis=1)
    return mx + np.log(np.exp(x - mx[:, None]).sum(axis=1))


def _plan(fl: _Floats, cut: int):
    """The best float ``(log bound, Choice)`` for one split, or None."""
    best = None
    pmfs = {}
    for beta in (1e-2, 1e-4, 1e-6, 1e-9):
        try:
            a, b = _chernoff_levels(fl, cut, beta)
        except (ValueError, OverflowError):
            continue
        if not (a > 0 and b > 0):
            continue
        plan = _plan_at(fl, Choice(cut, {}, {}, a, b), beta, pmfs)
        if plan is not None and (best is None or plan[0] < best[0]):
            best = plan
    return best


def _plan_at(fl: _Floats, ch: Choice, beta: float, pmfs: dict):
    """The best float ``(log bound, Choice)`` at the split and Chernoff levels of ``ch`` (their
    failures ``beta`` each; ``pmfs``: the levels' count laws, cached), or None: quotas from the
    saddle point of ``e_k`` at the mean counts over a grid of ``z``, ``s`` over a grid."""
    k, cut = fl.k, ch.cut
    heavy = range(cut, len(fl.lw))
    best = None
    lz0 = math.log(k / ch.a)
    for lz in np.linspace(lz0 - 4, lz0 + 10, 29):
        z = math.exp(lz)
        quota = {l: int(fl.mean[l] * math.exp(fl.lw[l]) * z / (1 + math.exp(fl.lw[l]) * z)) for l in heavy}
        quota = {l: v for l, v in quota.items() if v > 0}
        j0 = k - sum(quota.values())
        if j0 < 0:
            continue
        c = Choice(cut, quota, _excess(quota, j0), ch.a, ch.b)
        f = _markov(fl, c, pmfs)
        if f is None:
            continue
        for s in (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0):
            v = f(s)
            if best is None or v < best[0]:
                best = (v, Choice(cut, quota, c.excess, ch.a, ch.b, s))
    if best is None:
        return None
    return math.log(2 * beta + math.exp(min(best[0], 0.0))), best[1]


def _markov(fl: _Floats, ch: Choice, pmfs: dict):
    """``s -> `` the float log of the Markov term of the bound for ``ch`` at ``s``; None where the
    pool's ``g_j`` are not positive."""
    k = fl.k
    j0 = k - sum(ch.quota.values())
    lg = _log_g(k, ch.a, ch.b, math.exp(fl.lw[ch.cut - 1]))
    lr = _ratios_f(lg, j0, k, sum(ch.excess.values())) if j0 >= 0 else None
    if lr is None:
        return None
    logs = []
    for l, ml in ch.quota.items():
        if l not in pmfs:
            pmfs[l] = _count_pmf(fl, l, _tmax(fl.mean[l], k))
        pm = pmfs[l]
        logs.append((_log_phi(np.arange(len(pm) + 1), ml, ch.excess[l], fl.lw[l], lr),
                     np.concatenate([np.log(np.maximum(pm, 1e-300)),
                                     [math.log(max(1.0 - float(pm.sum()), 1e-300))]])))

    def f(s):
        tot = s * (fl.lthr - fl.lkappa - lg[j0])
        for lphi, lp in logs:
            x = -s * lphi + lp
            mx = float(x.max())
            tot += mx + math.log(float(np.exp(x - mx).sum()))
        return tot
    return f


def _best_s(fl: _Floats, ch: Choice, pmfs: dict):
    """``(float log Markov term, s)`` at the best ``s`` for ``ch`` (not worse than ``ch.s``), or None."""
    f = _markov(fl, ch, pmfs)
    if f is None:
        return None
    r = minimize_scalar(f, bounds=(1e-3, 5.0), method="bounded")
    return (float(r.fun), float(r.x)) if r.fun < f(ch.s) else (f(ch.s), ch.s)


def _refine(fl: _Floats, ch: Choice, pmfs: dict) -> Choice:
    """``ch`` improved by moving one quota by -2 .. 2 at a time while the float bound falls, ``s``
    optimised for each (at most ``LOWER_TAIL_REFINE`` rounds)."""
    best, s = _best_s(fl, ch, pmfs)
    ch = Choice(ch.cut, ch.quota, ch.excess, ch.a, ch.b, s)
    for _ in range(settings.LOWER_TAIL_REFINE):
        moved = False
        for l in list(ch.quota):
            for d in (-2, -1, 1, 2):
                quota = dict(ch.quota)
                quota[l] += d
                j0 = fl.k - sum(quota.values())
                if quota[l] <= 0 or j0 < 0:
                    continue
                c = Choice(ch.cut, quota, _excess(quota, j0), ch.a, ch.b, ch.s)
                r = _best_s(fl, c, pmfs)
                if r is not None and r[0] < best - 1e-9:
                    best, ch, moved = r[0], Choice(c.cut, c.quota, c.excess, c.a, c.b, r[1]), True
        if not moved:
            break
    return ch


# ----------------------------------------------------------------- the bound, in arb
def _binom_pmf(n: int, p: arb, t: int) -> arb:
    if t > n:
        return arb(0)
    return arb(comb(n, t)) * p ** t * ((1 - p).log() * (n - t)).exp()


def _least(points):
    """The least of exact arb points (ties: either), or None."""
    out = None
    for p in points:
        out = p if out is None or p < out else out
    return out


def _pool(k, j0, E, A, Bb, wmax):
    """``(g, r_+, r_-)`` of the module doc (step 2) in arb: ``g[j] <= G_j`` for ``j0 - E <= j <= k``
    wherever the light outputs have ``p_1 >= A``, ``p_2 <= Bb`` (``wmax``: their largest weight),
    and exact points ``r_+``, ``r_-`` with ``g[j0 + d] >= g[j0] r_+^d``, ``g[j0 - e] >= g[j0] r_-^e``
    (``0 <= d <= k - j0``, ``0 <= e <= E``) and ``r_+ r_- <= 1``; None where a ``g_j`` is not
    certified positive."""
    g = {}
    prod = arb(1)                               # prod_(i < j) (1 - i w_max / A)
    for j in range(k + 1):
        if j >= j0 - E:
            f = 1 - arb(comb(j, 2)) * Bb / (A * A) if j >= 2 else arb(1)
            f = f if f > prod else prod         # the larger of two lower bounds (either valid)
            if not f > 0:
                return None
            g[j] = A ** j * f / arb.fac_ui(j)
        x = 1 - j * wmax / A
        prod = prod * x if x > 0 else arb(0)
    rp = _least((g[j + 1] / g[j]).lower() for j in range(j0, k))
    rm = _least((g[j - 1] / g[j]).lower() for j in range(j0 - E + 1, j0 + 1))
    rp = arb(1) if rp is None else rp
    rm = arb(1) if rm is None else rm
    if not (rp > 0 and rm > 0):
        return None
    rm = _least([rm, (1 / rp).lower()])
    if not rp * rm <= 1:
        return None
    return g, rp, rm


def _coefs(wl, ml, dl, rp, rm):
    """``phi_l(T) = sum_j C(T, j) coef_j`` (module doc, step 2): ``coef_j = w_l^j r_+^(m_l - j)``
    below the quota, ``w_l^j r_-^(j - m_l)`` above it, up to ``m_l + Delta_l``."""
    return [wl ** j * (rp ** (ml - j) if j < ml else rm ** (j - ml)) for j in range(ml + dl + 1)]


def _phi(t, coef):
    return sum((arb(comb(t, j)) * coef[j] for j in range(min(t, len(coef) - 1) + 1)), arb(0))


def product_bound(mech: Mechanism, k: int, counts, choice: Choice) -> arb:
    """The lower bound ``kappa g_(j0) prod_l phi_l(T_l)`` of ``R`` (module doc, step 2) at the
    level counts ``counts`` (``T_0 .. T_L`` of ``M`` outputs) for the split, quotas and excesses
    of ``choice``: valid wherever the light outputs' (levels below ``choice.cut``) power sums have
    ``p_1 >= choice.a``, ``p_2 <= choice.b``; 0 where the pool's ``g_j`` are not all positive.

    >>> m = Mechanism(2, "1/10")
    >>> R = Fraction(28, 81**2) + 16 + 81**2        # e_2 of the ratios 1/81 (8 times), 81, 81
    >>> float(R / 45)
    146.1556...
    >>> ch = Choice(1, {2: 1}, {2: 1}, Fraction(8, 810), Fraction(8, 810**2))
    >>> float(product_bound(m, 2, (8, 0, 2), ch))
    146.1556...
    """
    M = sum(counts)
    w = [exact_arb(x / M) for x in mech.c]
    j0 = k - sum(choice.quota.values())
    pool = _pool(k, j0, sum(choice.excess.values()), _exact(choice.a), _exact(choice.b), w[choice.cut - 1])
    if j0 < 0 or pool is None:
        return arb(0)
    g, rp, rm = pool
    out = arb(M) ** k / arb(comb(M, k)) * g[j0]
    for l, ml in choice.quota.items():
        out *= _phi(counts[l], _coefs(w[l], ml, choice.excess[l], rp, rm))
    return out


def expected_power(n: int, p0: arb, m: int, p1: arb, coef, *, s: arb, tmax: int) -> arb:
    """An upper bound of ``E[phi(T)^(-s)]``, ``T = Bin(n, p0) + Bin(m, p1)`` (independent),
    ``phi(T) = sum_j C(T, j) coef_j`` (nonnegative ``coef``, ``coef_0 > 0``; nondecreasing in
    ``T``): the terms ``T <= tmax`` summed, the rest at ``phi(tmax + 1)`` with the mass left.

    >>> e = expected_power(3, arb(1) / 2, 0, arb(0), [arb(1), arb(1)], s=arb(1), tmax=5)  # E 1/(1 + T)
    >>> e.contains(arb(15) / 32)
    True
    """
    p0t = [_binom_pmf(n, p0, t) for t in range(tmax + 1)]
    p1t = [_binom_pmf(m, p1, t) for t in range(m + 1)] if m else [arb(1)]
    pmf = [sum((p1t[b] * p0t[t - b] for b in range(min(t, len(p1t) - 1) + 1)), arb(0))
           for t in range(tmax + 1)]
    # phi nondecreasing in T: its value at tmax + 1 bounds the tail's terms
    phi = [_phi(t, coef) for t in range(tmax + 2)]
    tail = arb(max(float_hi(1 - sum(pmf, arb(0))), 0.0))
    return sum((pmf[t] * (-s * phi[t].log()).exp() for t in range(tmax + 1)), arb(0)) \
        + tail * (-s * phi[tmax + 1].log()).exp()


def _exact(x) -> arb:
    return x if isinstance(x, arb) else exact_arb(Fraction(x))


def _certify(mech, k, n, m, thr, ch: Choice):
    """The bound of the module doc in arb for the float choice ``ch``; ``(bound, beta_1 +
    beta_2)``."""
    M = n + m
    pi0 = [exact_arb(x) for x in mech.pi0]
    pi1 = [exact_arb(x) for x in mech.pi1]
    w = [exact_arb(x / M) for x in mech.c]
    cut = ch.cut
    fl = _Floats(k, n, m, [float(x) for x in mech.pi0], [float(x) for x in mech.pi1], [], [], 0.0, 0.0)
    # the light Chernoff levels' failures at their best t (floats; any t > 0 is valid)
    beta = arb(0)
    for power, level, below in ((1, _exact(ch.a), True), (2, _exact(ch.b), False)):
        xs = [w[l] ** power for l in range(cut)]
        t = _best_t(fl, np.array([float(x) for x in xs]), float(level), below)
        tt = arb(-t if below else t)
        K = n * (1 + sum((pi0[l] * ((tt * xs[l]).exp() - 1) for l in range(cut)), arb(0))).log()
        if m:
            K += m * (1 + sum((pi1[l] * ((tt * xs[l]).exp() - 1) for l in range(cut)), arb(0))).log()
        beta += (K - tt * level).exp()
    j0 = k - sum(ch.quota.values())
    pool = _pool(k, j0, sum(ch.excess.values()), _exact(ch.a), _exact(ch.b), w[cut - 1])
    if pool is None:
        return arb(1), beta
    g, rp, rm = pool
    sa = arb(ch.s)
    lkappa = arb(M).log() * k - arb(comb(M, k)).log()
    log_prod = sa * (arb(thr.upper()).log() - lkappa - g[j0].log())
    for l, ml in ch.quota.items():
        coef = _coefs(w[l], ml, ch.excess[l], rp, rm)
        tmax = _tmax(n * float(pi0[l]) + m * float(pi1[l]), k)
        log_prod += expected_power(n, pi0[l], m, pi1[l], coef, s=sa, tmax=tmax).log()
    return beta + log_prod.exp(), beta
