"""Fast mode: the kernel's search at a coarse truncation -- compiled, or in float64 with numpy.

When the compiled kernel is built (:mod:`exactdp.engine.ckernel`), fast mode is
*the same search* as the certified mode at the fast truncation: the compiled walk
with 128-bit directed rounding (so its values are in fact enclosures, and the
stated error bound below holds with a wide margin), within a node budget
(:data:`COMPILED_MAX_NODES`).  Otherwise, or beyond that budget, it is the
numpy float tree described next (numpy is imported only then).

The numpy float tree: the kernel's algorithm in float64, vectorized with numpy.

Same search tree as :mod:`exactdp.engine.kernel` (conditioning category by category,
closed-form binomial tails for the ranges wholly on one side, binomial tail at
the leaves), processed level by level as numpy arrays.  Results are
**estimates**: each comes with an error bound made of

* the truncated mass (subtrees below ``tol``, rows outside the
  ``mode +- K sigma`` window), summed exactly as in the certified kernel but in
  float64, and
* a rounding allowance of ``REL_ROUNDING`` relative error for the float64
  binomial tails (pmf rows from one ``math.lgamma`` triple per row and the
  ratio recurrence, tails as cumulative sums; a stated a-priori allowance,
  validated against the certified kernel in the tests, not a proof).

Ties ``Z == tau`` are resolved exactly: a leaf whose float threshold is within
``1e-9`` of an integer is recomputed in integer arithmetic from its counts.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from fractions import Fraction

from ..model.mechanism import Mechanism

__all__ = ["FastTailSums", "fast_tail_sums", "REL_ROUNDING", "COMPILED_MAX_NODES"]

REL_ROUNDING = 1e-9
#: node budget of the compiled walk in fast mode (~1 s); beyond it the numpy tree runs
COMPILED_MAX_NODES = 600_000


class _LazyNumpy:
    """numpy, imported on first use (the compiled route never needs it)."""

    def __getattr__(self, name):
        import numpy
        globals()["np"] = numpy
        return getattr(numpy, name)


np = _LazyNumpy()


@dataclass
class FastTailSums:
    """Float64 tail sums of X = Z/scale around tau_x (fields as in
    :class:`exactdp.engine.kernel.TailSums`, in X units), with truncation bounds."""

    up_P: float
    up_X: float
    eq_P: float
    lo_P: float
    lo_X: float
    drop_P: float
    drop_E: float
    drop_up: float
    drop_lo: float
    tau_x: float
    nodes: int
    leaves: int
    seconds: float
    #: the truncation the run used (subtrees below it not expanded)
    tol: float = 1e-16


def _gammaln(x: np.ndarray) -> np.ndarray:
    """``log Gamma(x)`` elementwise with :func:`math.lgamma` (no scipy import; one
    call per row, so the Python loop is negligible)."""
    x = np.asarray(x, dtype=float)
    return np.fromiter((math.lgamma(v) if not (v <= 0 and v == math.floor(v)) else math.inf
                        for v in x.ravel().tolist()), dtype=float, count=x.size).reshape(x.shape)


def _logpmf(t, m, th):
    lt, l1t = math.log(th), math.log1p(-th)
    return (_gammaln(m + 1.0) - _gammaln(t + 1.0) - _gammaln(m - t + 1.0)
            + t * lt + (m - t) * l1t)


class _FloatRows:
    """pmf, prefix and suffix sums of Bin(m, th) for many m at once (float64).

    Rows cover ``mode +- K sigma``; the mass outside is below ``exp(-K^2/2)``
    (Chernoff) and enters the error bound through ``tol``.  Suffix sums are
    accumulated from the right, so small upper tails keep their relative
    accuracy (tails computed directly, never ``1 - cdf``).
    """

    def __init__(self, th: float, ms: np.ndarray, K: float):
        self.th = th
        self.ms = np.unique(ms)
        mf = self.ms.astype(float)
        sd = np.sqrt(mf * th * (1 - th))
        mode = np.floor((mf + 1) * th)
        half = int(math.ceil(K * (sd.max() if sd.size else 0))) + 3
        self.k0 = np.maximum(mode - half, 0).astype(np.int64)
        self.width = 2 * half + 1
        ks = self.k0[:, None] + np.arange(self.width)[None, :]
        valid = ks <= self.ms[:, None]
        # log pmf along each row: one lgamma triple per row, then the ratio recurrence
        # pmf(k+1)/pmf(k) = (m-k)/(k+1) * th/(1-th)  (one log per cell instead of three lgammas)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            lp0 = _logpmf(self.k0.astype(float), mf, th)
            kk = ks[:, :-1].astype(float)
            lr = np.log((mf[:, None] - kk) / (kk + 1.0)) + math.log(th / (1 - th))
            lr = np.where(valid[:, 1:], lr, -np.inf)
            lp = np.concatenate([lp0[:, None], lp0[:, None] + np.cumsum(lr, axis=1)], axis=1)
        pmf = np.where(valid, np.exp(np.where(valid, lp, -np.inf)), 0.0)
        self.pmf = pmf
        self.suf = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
        self.pre = np.cumsum(pmf, axis=1)
        self.suf2 = np.cumsum(self.suf[:, ::-1], axis=1)[:, ::-1]
        self.pre2 = np.cumsum(np.where(valid, self.pre, 1.0), axis=1)

    def _idx(self, m, k):
        memo = getattr(self, "_memo", None)
        if memo is not None and memo[0] is m:
            mi = memo[1]
        else:
            mi = np.searchsorted(self.ms, m)
            self._memo = (m, mi)
        j = k.astype(np.int64) - self.k0[mi]
        return mi, j

    def sf_ge(self, m, k):
        """P[Bin(m) >= k] for arrays m (in the table) and k."""
        mi, j = self._idx(m, k)
        jj = np.clip(j, 0, self.width - 1)
        v = self.suf[mi, jj]
        v = np.where(j >= self.width, 0.0, v)
        v = np.where(k <= 0, 1.0, v)
        return np.where(k > m, 0.0, v)

    def cdf_le(self, m, k):
        """P[Bin(m) <= k]."""
        mi, j = self._idx(m, k)
        jj = np.clip(j, 0, self.width - 1)
        v = self.pre[mi, jj]
        v = np.where(j < 0, 0.0, v)
        v = np.where(k >= m, 1.0, v)
        return np.where(k < 0, 0.0, v)

    def ssum_ge(self, m, k):
        """sum_{j >= k} P[Bin(m) >= j], for k >= 1 inside or above the window."""
        mi, j = self._idx(m, k)
        below = j < 0
        jj = np.clip(j, 0, self.width - 1)
        v = self.suf2[mi, jj]
        v = np.where(j >= self.width, 0.0, v)
        # below the window every P[T >= j] is ~ suf[0] (= 1 - negligible)
        v = np.where(below, self.suf2[mi, 0] + (-j) * self.suf[mi, 0], v)
        return np.where(k > m, 0.0, v)

    def csum_le(self, m, k):
        """sum_{j <= k} P[Bin(m) <= j]."""
        mi, j = self._idx(m, k)
        jj = np.clip(j, 0, self.width - 1)
        v = self.pre2[mi, jj]
        v = np.where(j < 0, 0.0, v)
        v = np.where(j >= self.width, self.pre2[mi, -1] + (j - self.width + 1) * 1.0, v)
        return np.where(k < 0, 0.0, v)

    def pmf_at(self, m, k):
        mi, j = self._idx(m, k)
        ok = (j >= 0) & (j < self.width)
        return np.where(ok, self.pmf[mi, np.clip(j, 0, self.width - 1)], 0.0)


CELL_LIMIT = 4_000_000


class _ChunkedRows:
    """Same queries as :class:`_FloatRows`, for many distinct m: the table is
    built chunk by chunk of m values (bounded memory) and discarded."""

    def __init__(self, th: float, ms: np.ndarray, K: float):
        self.th, self.K = th, K
        self.ums = np.unique(ms)
        sd = math.sqrt(float(self.ums.max()) * th * (1 - th))
        width = 2 * int(math.ceil(K * sd)) + 7
        if width > CELL_LIMIT:
            from ..core.errors import CapacityError
            raise CapacityError(f"fast mode: a binomial row of {width} cells exceeds the "
                                "engine's capacity; use smaller N")
        self.rows_per_chunk = max(1, CELL_LIMIT // width)

    def _apply(self, name, m, k):
        out = np.zeros(np.shape(m), dtype=float)
        u = self.ums
        for a in range(0, u.size, self.rows_per_chunk):
            chunk = u[a:a + self.rows_per_chunk]
            sel = (m >= chunk[0]) & (m <= chunk[-1])
            if sel.any():
                t = _FloatRows(self.th, chunk, self.K)
                out[sel] = getattr(t, name)(m[sel], k[sel])
        return out

    def sf_ge(self, m, k):
        return self._apply("sf_ge", m, k)

    def cdf_le(self, m, k):
        return self._apply("cdf_le", m, k)

    def ssum_ge(self, m, k):
        return self._apply("ssum_ge", m, k)

    def csum_le(self, m, k):
        return self._apply("csum_le", m, k)

    def pmf_at(self, m, k):
        return self._apply("pmf_at", m, k)


def _rows(th: float, ms: np.ndarray, K: float):
    """A binomial table for the m values ``ms``: whole, or chunked when large."""
    ums = np.unique(ms)
    sd = math.sqrt(float(ums.max()) * th * (1 - th)) if ums.size else 0.0
    if ums.size * (2 * K * sd + 7) <= CELL_LIMIT:
        return _FloatRows(th, ums, K)
    return _ChunkedRows(th, ums, K)


def _compiled(mech, n, tau_num, tau_den, tau_exact, tol, *, side=None, excess=True, row_tol=1e-6,
              max_nodes=COMPILED_MAX_NODES):
    """The compiled walk (:func:`exactdp.engine.ckernel.compiled_tail_sums`) as a
    :class:`FastTailSums` (midpoints of its enclosures in X units; drops as upper
    bounds), or ``None`` when it is not built, does not apply or exceeds
    :data:`COMPILED_MAX_NODES`.  As the numpy tree, it measures excesses from the
    rational ``num/den`` (for an irrational threshold, the midpoint of the lattice
    cell that holds it, :class:`exactdp.engine.kernel.Threshold`: no integer Z
    meets it, so the classification is the certified one); ``max_nodes``: its node
    budget.  With ``side``, only that
    side is summed (:func:`fast_tail_sums`), with ``excess=False`` only probabilities;
    the fields not summed are NaN."""
    from .ckernel import available, compiled_tail_sums
    if not available():
        return None
    from ..core.errors import CapacityError
    t0 = time.perf_counter()
    P, Q = int(tau_num), int(tau_den)
    # a magnitude run (row_tol >= 1/2: its lower sums are all its callers read) bounds its
    # dropped children per group and cuts its rows by mass, as the certified walks; a fast
    # estimate keeps single-child drop bounds and whole rows (its stated error)
    magnitude = row_tol >= 0.5
    try:
        r = compiled_tail_sums(mech, n, P, Q, True, tol=Fraction(tol), prec=128, max_nodes=max_nodes,
                               side=side, excess=excess, row_tol=row_tol, drop_bits=0 if magnitude else 20,
                               mass_cut=magnitude)
    except CapacityError:
        return None
    if r is None:
        return None
    sc = mech.scale
    tau_x = Fraction(P, Q * sc)
    # values: the lower ends (the expanded sums, as the numpy tree's); the widths (row
    # tails, roundings) join the truncation terms the stated error is made of
    wP = max(r[k][1] - r[k][0] for k in ("up_P", "eq_P", "lo_P") if r[k] is not None)
    wX = max((r[k][1] - r[k][0] for k in ("up_X", "lo_X") if r[k] is not None), default=0) / sc
    nan = float("nan")

    def low(k, div=1):                  # a side not summed (``side``) is NaN
        return nan if r[k] is None else float(r[k][0] / div)

    def drop(k, extra):
        return nan if r[k] is None else float(r[k] / sc + extra)

    return FastTailSums(low("up_P"), low("up_X", sc), float(r["eq_P"][0]), low("lo_P"), low("lo_X", sc),
                        float(r["drop_P"] + wP), drop("drop_E", tau_x * wP + wX),
                        drop("drop_up", wX), drop("drop_lo", wX), float(tau_x),
                        r["nodes"], r["leaves"], time.perf_counter() - t0)


def fast_tail_sums(mech: Mechanism, n: int, tau_num: int, tau_den: int, tau_exact: bool,
                   *, tol: float = 1e-16, max_children: int = 30_000_000,
                   side: str | None = None, excess: bool = True, row_tol: float = 1e-6,
                   compiled: bool | None = None,
                   compiled_max_nodes: int = COMPILED_MAX_NODES) -> FastTailSums | None:
    """Float tail sums of ``X = sum_l T_l c_l`` with ``T ~ MN(n, pi0)`` around
    ``tau = tau_num / (tau_den * scale)`` (the same rational threshold the
    certified kernel classifies with).  ``side`` (``"above"``, ``"below"``) lets the
    compiled walk sum only the side a query reads, ``excess=False`` only its
    probabilities (the fields not summed are then NaN); the numpy tree sums all.
    ``row_tol``: the compiled walk's binomial rows stop where the mass beyond is below
    ``row_tol * tol`` (their tails join the stated error; ``1/2`` for a magnitude
    estimate: fewer cells, an error a few times larger for values far below ``tol``).
    ``compiled``: ``None`` tries the compiled walk, then the numpy tree; ``True`` only the
    compiled walk (``None`` when it is not built or exceeds :data:`COMPILED_MAX_NODES`;
    numpy is then never imported); ``False`` only the numpy tree.  ``compiled_max_nodes``:
    the compiled walk's node budget."""
    from ..core.errors import CapacityError
    t0 = time.perf_counter()
    if compiled is not False:
        r = _compiled(mech, n, tau_num, tau_den, tau_exact, tol, side=side, excess=excess, row_tol=row_tol,
                      max_nodes=compiled_max_nodes)
        if r is not None:
            r.tol = tol
            return r
        if compiled:
            return None
    L = mech.L
    W = mech.weights
    scale = mech.scale
    c = np.array([float(x) for x in mech.c])
    pi = mech.pi0
    S = [sum(pi[: l + 1]) for l in range(L + 1)]
    theta = [float(pi[l] / S[l]) for l in range(L + 1)]
    mu = [float(sum(pi[i] * mech.c[i] for i in range(l + 1)) / S[l]) for l in range(L + 1)]
    tau = float(Fraction(tau_num, tau_den * scale))
    K = math.sqrt(2 * math.log(1 / tol)) + 3.0
    margin = 1e-11

    up_P = up_X = eq_P = lo_P = lo_X = 0.0
    drop_P = drop_E = drop_up = drop_lo = 0.0
    nodes = leaves = 0

    m = np.array([n], dtype=np.int64)
    Xs = np.zeros(1)
    logP = np.zeros(1)
    # parent pointers and T_l values per level, to rebuild exact counts of near-ties
    parents: list[np.ndarray] = []
    tvals: list[np.ndarray] = []
    idx = np.zeros(1, dtype=np.int64)           # position of each node in its level arrays
    for l in range(L, 0, -1):
        if m.size == 0:
            break
        nodes += m.size
        P = np.exp(logP)
        mf = m.astype(float)
        ez = Xs + mf * mu[l]
        tol_rel = margin * max(abs(tau), 1.0)
        above = Xs + mf * c[0] > tau + tol_rel
        below = Xs + mf * c[l] < tau - tol_rel
        up_P += P[above].sum()
        up_X += (P[above] * (ez[above] - tau)).sum()
        lo_P += P[below].sum()
        lo_X += (P[below] * (tau - ez[below])).sum()
        keep = ~(above | below)
        m, Xs, logP, P, mf, idx = m[keep], Xs[keep], logP[keep], P[keep], mf[keep], idx[keep]
        if m.size == 0:
            break
        th = theta[l]
        tab = _rows(th, m, K)
        if l == 1:
            leaves += m.size
            d = c[1] - c[0]
            base = Xs + mf * c[0]
            tstar = (tau - base) / d
            fl = np.floor(tstar)
            near = np.abs(tstar - np.round(tstar)) < 1e-9 * np.maximum(1.0, np.abs(tstar))
            k_up = fl + 1                  # t >= k_up  <=>  t > t*
            k_lo = fl.copy()               # t <= k_lo  <=>  t < t*  (no tie)
            tie = np.zeros(m.size, dtype=bool)
            if near.any():
                for i in np.nonzero(near)[0]:
                    Zs, pos = 0, int(idx[i])
                    for lev in range(len(tvals) - 1, -1, -1):   # walk up: levels 2.., L
                        Zs += int(tvals[lev][pos]) * W[L - lev]
                        pos = int(parents[lev][pos])
                    base_z = Zs + int(m[i]) * W[0]
                    dq = (W[1] - W[0]) * tau_den
                    num = tau_num - base_z * tau_den
                    f = num // dq
                    ex = (num % dq == 0) and tau_exact
                    k_up[i] = f + 1
                    k_lo[i] = f - 1 if ex else f
                    tie[i] = ex and 0 <= f <= m[i]
                    fl[i] = f
            sf = tab.sf_ge(m, k_up)
            cdf = tab.cdf_le(m, k_lo)
            gap_up = np.maximum(base + k_up * d - tau, 0.0)
            gap_lo = np.maximum(tau - base - k_lo * d, 0.0)
            up_P += (P * sf).sum()
            up_X += (P * (gap_up * sf + d * tab.ssum_ge(m, k_up + 1))).sum()
            lo_P += (P * cdf).sum()
            lo_X += (P * (gap_lo * cdf + d * tab.csum_le(m, k_lo - 1))).sum()
            if tie.any():
                ti = np.nonzero(tie)[0]
                eq_P += (P[ti] * tab.pmf_at(m[ti], fl[ti])).sum()
            break
        # ---- internal level: aggregated ranges and straddle expansion
        A = (tau - Xs - mf * c[0]) / (c[l] - c[0])
        B = (tau - Xs - mf * c[l - 1]) / (c[l] - c[l - 1])
        # conservative integer ranges (the margin keeps near-ties in the straddle zone)
        ta = np.floor(A + 1e-9 * np.maximum(1, np.abs(A))) + 1
        tb = np.ceil(B - 1e-9 * np.maximum(1, np.abs(B))) - 1
        cbase = Xs + mf * mu[l - 1]
        slope = c[l] - mu[l - 1]
        va = ta <= mf
        s = tab.sf_ge(m, ta)
        gap = np.maximum(cbase + slope * ta - tau, 0.0)
        up_P += (P * s)[va].sum()
        up_X += (P * (gap * s + slope * tab.ssum_ge(m, ta + 1)))[va].sum()
        vb = tb >= 0
        cb = tab.cdf_le(m, tb)
        gapb = np.maximum(tau - cbase - slope * tb, 0.0)
        lo_P += (P * cb)[vb].sum()
        lo_X += (P * (gapb * cb + slope * tab.csum_le(m, tb - 1)))[vb].sum()
        # straddle zone intersected with the mode +- K sigma window
        sd = np.sqrt(mf * th * (1 - th))
        mode = np.floor((mf + 1) * th)
        w_lo = np.maximum(0, np.floor(mode - K * sd - 2))
        w_hi = np.minimum(mf, np.ceil(mode + K * sd + 2))
        z_lo = np.maximum(tb + 1, 0)
        z_hi = np.minimum(ta - 1, mf)
        e_lo = np.maximum(z_lo, w_lo)
        e_hi = np.minimum(z_hi, w_hi)
        out = np.zeros(m.size)
        left_cut = (z_lo < w_lo) & (z_hi >= z_lo)
        out += np.where(left_cut, tab.cdf_le(m, w_lo - 1), 0.0)
        right_cut = (z_hi > w_hi) & (z_hi >= z_lo)
        out += np.where(right_cut, tab.sf_ge(m, w_hi + 1), 0.0)
        zmax = Xs + mf * c[l]
        drop_P += (P * out).sum()
        drop_E += (P * out * zmax).sum()
        drop_up += (P * out * np.maximum(zmax - tau, 0)).sum()
        drop_lo += (P * out * np.maximum(tau - Xs - mf * c[0], 0)).sum()
        cnt = np.maximum(e_hi - e_lo + 1, 0).astype(np.int64)
        total = int(cnt.sum())
        if total > max_children:
            raise CapacityError(
                f"fast mode: level {l} would expand {total} nodes (> {max_children}); "
                f"N={n}, L={L} is beyond the engine's capacity at this tolerance")
        if total == 0:
            m = m[:0]
            break
        rep = np.repeat(np.arange(m.size), cnt)
        starts = np.cumsum(cnt) - cnt
        tt = (np.arange(total) - np.repeat(starts, cnt)).astype(float) + np.repeat(e_lo, cnt)
        mr = mf[rep]
        with np.errstate(divide="ignore"):
            clogP = logP[rep] + np.log(tab.pmf_at(m[rep], tt))
        cXs = Xs[rep] + tt * c[l]
        cm = mr - tt
        small = clogP < math.log(tol)
        if small.any():
            dP = np.exp(clogP[small])
            cez = cXs[small] + cm[small] * mu[l - 1]
            drop_P += dP.sum()
            drop_E += (dP * cez).sum()
            drop_up += (dP * np.minimum(np.maximum(cXs[small] + cm[small] * c[l - 1] - tau, 0), cez)).sum()
            drop_lo += (dP * np.maximum(tau - cXs[small] - cm[small] * c[0], 0)).sum()
        big = ~small
        m = cm[big].astype(np.int64)
        Xs = cXs[big]
        logP = clogP[big]
        parents.append(idx[rep][big])
        tvals.append(tt[big].astype(np.int64))
        idx = np.arange(m.size, dtype=np.int64)
    return FastTailSums(up_P, up_X, eq_P, lo_P, lo_X, drop_P, drop_E, drop_up, drop_lo, tau,
                        nodes, leaves, time.perf_counter() - t0, tol)
