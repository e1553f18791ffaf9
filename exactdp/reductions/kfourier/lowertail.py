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
2. One box of terms per heavy level.  ``e_k = sum_(m') G_(k - sum m') prod_l C(T_l, m'_l)
   w_l^(m'_l)`` over the numbers ``m'_l`` of outputs taken at each heavy level (outputs of one
   level weigh the same).  For quotas ``m_l`` (``S = sum m_l``, ``j_0 = k - S >= 0``) keep, per
   level, ``m'_l = T_l`` where ``T_l < m_l`` (a *deficit* ``d_l = m_l - T_l``) and ``m'_l`` in
   ``m_l .. m_l + Delta_l`` otherwise (``sum Delta_l <= j_0``): distinct terms, so a lower
   bound.  With ``D = sum d_l`` at most a cap ``D_max`` and ``E`` the outputs above the quotas,
   ``g_(j_0 + D - E) >= g_(j_0) r_+^D r_-^E``: ``r_+`` the least ratio ``g_(j+1) / g_j`` over
   ``j_0 <= j < j_0 + D_max``, ``r_-`` the least ``g_(j-1) / g_j`` over ``j_0 - sum Delta_l < j
   <= j_0``, lowered until ``r_+ r_- <= 1`` (which covers ``D`` and ``E`` mixed; every ``g_j``
   there positive).  So outside the light failure event and ``{D > D_max}``, ``R >= kappa
   g_(j_0) prod_l psi_l(T_l)``, ``psi_l`` the nondecreasing lower envelope of

       phi_l(T) = w_l^T r_+^(m_l - T)  (T < m_l),   sum_(j = m_l)^(m_l + Delta_l) C(T, j) w_l^j r_-^(j - m_l)  (T >= m_l)

   (:func:`product_bound`; ``tests/test_kfourier_lowertail.py`` checks ``R >=`` it by exact
   enumeration for every count vector of small cases within the cap).
3. Markov and negative association: the level counts of one multinomial are negatively
   associated (Joag-Dev and Proschan 1983), so are two independent families (the null outputs
   and the changed user's), and so are the sums ``T_l = T0_l + T1_l`` (nondecreasing functions of
   disjoint sets).  For nonincreasing nonnegative ``f_l``, ``E prod f_l(T_l) <= prod E
   f_l(T_l)``: with ``f_l = psi_l^(-s)``, ``s > 0``, and with ``f_l = e^(t d_l)`` (Chernoff for
   the deficits, :func:`deficit_tail`),

       P[R <= thr] <= beta_1 + beta_2 + P[D > D_max] + (thr / (kappa g_(j_0)))^s prod_l E[psi_l(T_l)^(-s)].

Each ``E[psi_l(T_l)^(-s)]`` is a finite sum (:func:`expected_power`) over the law of ``T_l``
(:func:`count_law`, the convolution of two binomials) plus its tail at the last term's value
(``psi_l^(-s)`` is nonincreasing).  The split, quotas, excesses, cap, ``s`` and Chernoff
parameters are chosen in floats; every number of the bound is then evaluated in arb, so the
choice only moves the bound, never its validity (``tests/test_kfourier_lowertail.py`` checks it
against exact enumeration in ``Fraction``).

At ``L = 40``, ``N = 10^7``, ``lam = e^2``, forward, ``q = 0.30``: ``P[R <= lam] <= 1.0e-6`` at
``k = 200`` and ``6.3e-4`` at ``k = 128`` in a few CPU seconds, where the walk gave ``[0.47, 1]``
(``tol = 1e-2``, 728 CPU s) and ``[0.93, 1]`` (``tol = 1e-3``, 1141 s); at ``k = 64`` only 0.12
(the walk: 2.2e-2).  Where it is weak: the pool's ``g_j`` must stay positive up to ``j_0 +
D_max`` (Bonferroni ``C(j, 2) p_2 < p_1^2``, or the distinct-draws product), which keeps the
levels from about 28 up in the quotas, and one ratio ``r_+`` prices every deficit
(``benchmarks/RESULTS.md``, session 14).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
from flint import arb, arb_poly, ctx
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
    Markov exponent ``s`` and the deficit cap ``dmax``.  Any choice gives a valid bound; the
    floats only pick a good one."""

    cut: int
    quota: dict
    excess: dict
    a: float | Fraction
    b: float | Fraction
    s: float = 1.0
    dmax: int | None = None

    @property
    def cap(self) -> int:
        """The deficit cap ``D_max`` (``None``: the sum of the quotas, no cap)."""
        S = sum(self.quota.values())
        return S if self.dmax is None else min(self.dmax, S)


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
    (True, 2, {2: 2})
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
    with ctx.workprec(prec):
        bound, beta = _certify(mech, k, n, m, arb(thr), choice)
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


def _ratios_f(lg, j0, hi, E):
    """Float ``(log r_+, log r_-)`` (module doc, step 2) over ``[j0 - E, hi]``, or None where a
    ``g_j`` there is not positive."""
    if j0 - E < 0 or not all(math.isfinite(lg[j]) for j in range(j0 - E, hi + 1)):
        return None
    lrp = min((lg[j + 1] - lg[j] for j in range(j0, hi)), default=0.0)
    lrm = min((lg[j - 1] - lg[j] for j in range(j0 - E + 1, j0 + 1)), default=0.0)
    return lrp, min(lrm, -lrp)


def _log_psi(T, ml, dl, lwl, lr):
    """``log psi_l`` on the counts ``T = 0, 1, ...`` (floats; module doc, step 2; ``lr = (log r_+,
    log r_-)``): below the quota ``w_l^T r_+^(m_l - T)``, from it the terms ``m_l .. m_l + Delta_l``,
    then the nondecreasing envelope from below."""
    mp = np.arange(ml, ml + dl + 1)
    with np.errstate(invalid="ignore"):
        lc = gammaln(T[:, None] + 1) - gammaln(mp[None, :] + 1) - gammaln(np.maximum(T[:, None] - mp[None, :], 0) + 1)
    lc = np.where(mp[None, :] <= T[:, None], lc, -np.inf)
    x = lc + mp[None, :] * lwl + ((mp - ml) * lr[1])[None, :]
    mx = np.maximum(x.max(axis=1), -1e300)
    above = mx + np.log(np.maximum(np.exp(x - mx[:, None]).sum(axis=1), 1e-300))
    out = np.where(T < ml, T * lwl + (ml - T) * lr[0], above)
    return np.minimum.accumulate(out[::-1])[::-1]


def _log_deficit(ch: Choice, pmfs: dict) -> float:
    """Float log of the Chernoff bound of ``P[D > D_max]`` (module doc, step 3), ``-inf`` without a cap."""
    if ch.cap >= sum(ch.quota.values()):
        return -math.inf
    return _deficit_f(ch, pmfs)(_deficit_t(ch, pmfs))


def _deficit_t(ch: Choice, pmfs: dict) -> float:
    """The float Chernoff parameter ``t`` of ``P[D > D_max]`` (a choice only)."""
    if ch.cap >= sum(ch.quota.values()):
        return 1.0
    return float(minimize_scalar(_deficit_f(ch, pmfs), bounds=(1e-4, 30.0), method="bounded").x)


def _deficit_f(ch: Choice, pmfs: dict):
    def f(t):
        tot = -t * (ch.cap + 1)
        for l, ml in ch.quota.items():
            pm = pmfs[l][:ml]
            # log E e^(t d_l) = log(P[T >= m_l] + sum_(T < m_l) P[T] e^(t (m_l - T))), in logs
            with np.errstate(divide="ignore"):
                x = np.log(pm) + t * (ml - np.arange(len(pm)))
            rest = max(1.0 - float(pm.sum()), 0.0)
            mx = float(x.max()) if len(x) else -math.inf
            tot += float(np.logaddexp(math.log(rest) if rest > 0 else -math.inf,
                                      mx + math.log(float(np.exp(x - mx).sum())) if mx > -math.inf else -math.inf))
        return tot
    return f


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
    saddle point of ``e_k`` at the mean counts over a grid of ``z``, ``s`` over a grid, then the
    deficit cap over a grid for the best quotas."""
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
    if best is not None:
        # the deficit cap for the best quotas (module doc, step 3)
        c = best[1]
        S = sum(c.quota.values())
        for dmax in range(0, S, max(1, S // 8)):
            f = _markov(fl, Choice(cut, c.quota, c.excess, c.a, c.b, c.s, dmax), pmfs)
            if f is None:
                continue
            for s in (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0):
                v = f(s)
                if v < best[0]:
                    best = (v, Choice(cut, c.quota, c.excess, c.a, c.b, s, dmax))
    if best is None:
        return None
    return math.log(2 * beta + math.exp(min(best[0], 0.0))), best[1]


def _markov(fl: _Floats, ch: Choice, pmfs: dict):
    """``s -> `` the float log of the deficit and Markov terms of the bound for ``ch`` at ``s``;
    None where the pool's ``g_j`` are not positive."""
    k = fl.k
    j0 = k - sum(ch.quota.values())
    lg = _log_g(k, ch.a, ch.b, math.exp(fl.lw[ch.cut - 1]))
    lr = _ratios_f(lg, j0, j0 + ch.cap, sum(ch.excess.values())) if j0 >= 0 else None
    if lr is None:
        return None
    logs = []
    for l, ml in ch.quota.items():
        if l not in pmfs:
            pmfs[l] = _count_pmf(fl, l, _tmax(fl.mean[l], k))
        pm = pmfs[l]
        logs.append((_log_psi(np.arange(len(pm) + 1), ml, ch.excess[l], fl.lw[l], lr),
                     np.concatenate([np.log(np.maximum(pm, 1e-300)),
                                     [math.log(max(1.0 - float(pm.sum()), 1e-300))]])))
    ld = _log_deficit(ch, pmfs)

    def f(s):
        tot = s * (fl.lthr - fl.lkappa - lg[j0])
        for lpsi, lp in logs:
            x = -s * lpsi + lp
            mx = float(x.max())
            tot += mx + math.log(float(np.exp(x - mx).sum()))
        return float(np.logaddexp(tot, ld))
    return f


def _best_s(fl: _Floats, ch: Choice, pmfs: dict):
    """``(float log of the deficit and Markov terms, s)`` at the best ``s`` for ``ch`` (not worse than
    ``ch.s``), or None."""
    f = _markov(fl, ch, pmfs)
    if f is None:
        return None
    r = minimize_scalar(f, bounds=(1e-3, 5.0), method="bounded")
    return (float(r.fun), float(r.x)) if r.fun < f(ch.s) else (f(ch.s), ch.s)


def _refine(fl: _Floats, ch: Choice, pmfs: dict) -> Choice:
    """``ch`` improved by moving one quota by -2 .. 2 at a time while the float bound falls, ``s``
    optimised for each (at most ``LOWER_TAIL_REFINE`` rounds)."""
    best, s = _best_s(fl, ch, pmfs)
    ch = Choice(ch.cut, ch.quota, ch.excess, ch.a, ch.b, s, ch.cap)
    for _ in range(settings.LOWER_TAIL_REFINE):
        moved = False
        moves = [(l, d, 0) for l in ch.quota for d in (-2, -1, 1, 2)] + [(None, 0, e) for e in (-4, -2, -1, 1, 2, 4)]
        for l, d, e in moves:
            quota = dict(ch.quota)
            if l is not None:
                quota[l] += d
            j0 = fl.k - sum(quota.values())
            if (l is not None and quota[l] <= 0) or j0 < 0 or ch.cap + e < 0:
                continue
            c = Choice(ch.cut, quota, _excess(quota, j0), ch.a, ch.b, ch.s, ch.cap + e)
            r = _best_s(fl, c, pmfs)
            if r is not None and r[0] < best - 1e-9:
                best, ch, moved = r[0], Choice(c.cut, c.quota, c.excess, c.a, c.b, r[1], c.cap), True
        if not moved:
            break
    return ch


# ----------------------------------------------------------------- the bound, in arb
def _binom_pmfs(n: int, p: arb, tmax: int) -> list:
    """``P[Bin(n, p) = t]`` for ``t = 0 .. tmax`` in arb, by the ratio ``(n - t) p / ((t + 1) (1 - p))``
    from ``(1 - p)^n`` (one power, not one per term)."""
    out = [((1 - p).log() * n).exp()]
    r = p / (1 - p)
    for t in range(min(tmax, n)):
        out.append(out[-1] * r * (n - t) / (t + 1))
    return out + [arb(0)] * (tmax + 1 - len(out))


def _least(points):
    """The least of exact arb points (ties: either), or None."""
    out = None
    for p in points:
        out = p if out is None or p < out else out
    return out


def _pool(k, window, A, Bb, wmax):
    """``(g, r_+, r_-)`` of the module doc (step 2) in arb for ``window = (j0 - E, j0, j0 + D_max)``:
    ``g[j] <= G_j`` for ``j0 - E <= j <= j0 + D_max`` wherever the light outputs have ``p_1 >=
    A``, ``p_2 <= Bb`` (``wmax``: their largest weight), and exact points ``r_+``, ``r_-`` with
    ``g[j0 + d] >= g[j0] r_+^d`` (``d <= D_max``), ``g[j0 - e] >= g[j0] r_-^e`` (``e <= E``) and
    ``r_+ r_- <= 1``; None where a ``g_j`` is not certified positive."""
    lo, j0, hi = window
    g = {}
    prod = arb(1)                               # prod_(i < j) (1 - i w_max / A)
    for j in range(min(hi, k) + 1):
        if j >= lo:
            f = 1 - arb(comb(j, 2)) * Bb / (A * A) if j >= 2 else arb(1)
            f = f if f > prod else prod         # the larger of two lower bounds (either valid)
            if not f > 0:
                return None
            g[j] = A ** j * f / arb.fac_ui(j)
        x = 1 - j * wmax / A
        prod = prod * x if x > 0 else arb(0)
    rp = _least((g[j + 1] / g[j]).lower() for j in range(j0, min(hi, k)))
    rm = _least((g[j - 1] / g[j]).lower() for j in range(lo + 1, j0 + 1))
    rp = arb(1) if rp is None else rp
    rm = arb(1) if rm is None else rm
    if not (rp > 0 and rm > 0):
        return None
    rm = _least([rm, (1 / rp).lower()])
    if not rp * rm <= 1:
        return None
    return g, rp, rm


def _window(k, choice: Choice):
    j0 = k - sum(choice.quota.values())
    return j0 - sum(choice.excess.values()), j0, j0 + choice.cap


def _psi(tmax, wl, ml, dl, r):
    """``psi_l(T)`` for ``T = 0 .. tmax`` (module doc, step 2; ``r = (r_+, r_-)``) as exact lower
    points: ``w_l^T r_+^(m_l - T)`` below the quota, ``sum_(j = m_l)^(m_l + Delta_l) C(T, j) w_l^j
    r_-^(j - m_l)`` from it, then the least value at or above each ``T`` (nondecreasing)."""
    rp, rm = r
    coef = [wl ** j * rm ** (j - ml) for j in range(ml, ml + dl + 1)]
    out = []
    for t in range(tmax + 1):
        if t < ml:
            v = wl ** t * rp ** (ml - t)
        else:
            v = sum((arb(comb(t, ml + i)) * c for i, c in enumerate(coef) if ml + i <= t), arb(0))
        out.append(v.lower())
    for t in range(tmax - 1, -1, -1):
        out[t] = _least([out[t], out[t + 1]])
    return out


def product_bound(mech: Mechanism, k: int, counts, choice: Choice) -> arb:
    """The lower bound ``kappa g_(j0) prod_l psi_l(T_l)`` of ``R`` (module doc, step 2) at the
    level counts ``counts`` (``T_0 .. T_L`` of ``M`` outputs) for ``choice``: valid wherever the
    light outputs' (levels below ``choice.cut``) power sums have ``p_1 >= choice.a``, ``p_2 <=
    choice.b`` and the deficits ``D = sum (m_l - min(T_l, m_l))`` are at most ``choice.cap``; 0
    where the pool's ``g_j`` are not all positive.

    >>> m = Mechanism(2, "1/10")
    >>> R = Fraction(28, 81**2) + 16 + 81**2        # e_2 of the ratios 1/81 (8 times), 81, 81
    >>> float(R / 45)
    146.1556...
    >>> ch = Choice(1, {2: 1}, {2: 1}, Fraction(8, 810), Fraction(8, 810**2))
    >>> 145 < float(product_bound(m, 2, (8, 0, 2), ch)) <= 146.1556
    True
    """
    M = sum(counts)
    w = [exact_arb(x / M) for x in mech.c]
    window = _window(k, choice)
    pool = _pool(k, window, _exact(choice.a), _exact(choice.b), w[choice.cut - 1])
    if window[1] < 0 or pool is None:
        return arb(0)
    g, rp, rm = pool
    out = arb(M) ** k / arb(comb(M, k)) * g[window[1]]
    for l, ml in choice.quota.items():
        out *= _psi(counts[l], w[l], ml, choice.excess[l], (rp, rm))[counts[l]]
    return out


def count_law(n: int, p0: arb, m: int, p1: arb, tmax: int) -> list:
    """``P[T = t]``, ``t = 0 .. tmax``, of ``T = Bin(n, p0) + Bin(m, p1)`` (independent), in arb."""
    p0t = _binom_pmfs(n, p0, tmax)
    if not m:
        return p0t
    coeffs = (arb_poly(p0t) * arb_poly(_binom_pmfs(m, p1, m))).coeffs()
    return [coeffs[t] if t < len(coeffs) else arb(0) for t in range(tmax + 1)]


def expected_power(pmf: list, psi: list, *, s: arb) -> arb:
    """An upper bound of ``E[psi(T)^(-s)]`` for a count ``T`` with ``P[T = t] = pmf[t]`` (``t <=
    tmax``) and ``psi`` positive, nondecreasing, given on ``0 .. tmax + 1``: the terms summed, the
    rest of the mass at ``psi(tmax + 1)``.

    >>> law = count_law(3, arb(1) / 2, 0, arb(0), 5)
    >>> expected_power(law, [arb(1 + t) for t in range(7)], s=arb(1)).contains(arb(15) / 32)   # E 1/(1 + T)
    True
    """
    tmax = len(pmf) - 1
    tail = arb(max(float_hi(1 - sum(pmf, arb(0))), 0.0))
    return sum((pmf[t] * (-s * psi[t].log()).exp() for t in range(tmax + 1)), arb(0)) \
        + tail * (-s * psi[tmax + 1].log()).exp()


def deficit_tail(laws: dict, quota: dict, cap: int, t: float) -> arb:
    """The Chernoff bound ``e^(-t (cap + 1)) prod_l E[e^(t d_l)]`` of ``P[D > cap]``, ``D = sum_l
    (m_l - min(T_l, m_l))`` (module doc, step 3; ``laws[l]``: the law of ``T_l`` from 0 at least to
    ``m_l - 1``); 0 when ``cap`` reaches the sum of the quotas.

    >>> law = count_law(3, arb(1) / 2, 0, arb(0), 4)                # D = 2 - min(T, 2)
    >>> exact = arb(1) / 8 + arb(3) / 8 * arb(-1).exp() + arb(-2).exp() / 2
    >>> deficit_tail({0: law}, {0: 2}, 1, 1.0).contains(exact)
    True
    """
    if cap >= sum(quota.values()):
        return arb(0)
    ta = arb(t)
    out = (-ta * (cap + 1)).exp()
    for l, ml in quota.items():
        out *= 1 + sum((laws[l][T] * ((ta * (ml - T)).exp() - 1) for T in range(ml)), arb(0))
    return out


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
    window = _window(k, ch)
    pool = _pool(k, window, _exact(ch.a), _exact(ch.b), w[cut - 1])
    if pool is None:
        return arb(1), beta
    g, rp, rm = pool
    sa = arb(ch.s)
    lkappa = arb(M).log() * k - arb(comb(M, k)).log()
    log_prod = sa * (arb(thr.upper()).log() - lkappa - g[window[1]].log())
    laws = {}
    for l, ml in ch.quota.items():
        tmax = _tmax(n * float(pi0[l]) + m * float(pi1[l]), k)
        laws[l] = count_law(n, pi0[l], m, pi1[l], tmax)
        log_prod += expected_power(laws[l], _psi(tmax + 1, w[l], ml, ch.excess[l], (rp, rm)), s=sa).log()
    # the deficits' Chernoff parameter in floats (any t > 0 is valid)
    pm = {l: np.array([float(x) for x in law]) for l, law in laws.items()}
    t = _deficit_t(ch, pm)
    return beta + deficit_tail(laws, ch.quota, ch.cap, t) + log_prod.exp(), beta

