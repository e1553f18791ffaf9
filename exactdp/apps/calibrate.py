"""Calibration: the noise q that really meets a privacy target.

A practitioner asks: which q do I need for N users, L bits, privacy level
eps (lambda = e^eps) and cut-off eta (or delta)?  The papers answer with
heuristics (000 (3.12)-(3.16) mean + 3 sigma, (3.17) Maurer, (4.2) local DP);
:func:`calibrate` answers exactly:

* ``method="exact"``: the smallest q with ``eta(q) <= target`` (or delta),
  certified as a bracket ``[q_lo, q_hi]`` with ``eta(q_lo) > target`` and
  ``eta(q_hi) <= target`` both proved by the certified engine.  eta is *not*
  monotone in q (atoms of R cross lambda as q moves, so eta jumps), so a grid
  scan in fast mode first finds every crossing of the target at grid
  resolution; each is reported, and the first down-crossing is certified.
* ``method="sigma3" | "maurer" | "local"``: the paper's heuristic q, with the
  certified eta (or delta) it really gives.

>>> c = calibrate(40, 2, lam=2, eta="0.05", grid=24, digits=4)
>>> c.value_at_q.upper <= Fraction(1, 20) and c.value_below_q.lower > Fraction(1, 20)
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..core import domains
from ..law.distribution import from_randomized_response
from ..core.errors import DigitsNotMetError, ParameterError, PrecisionError
from ..core.estimate import Estimate
from ..core.interval import Interval

__all__ = ["Calibration", "calibrate", "calibrate_digits", "METHODS", "FOURIER_Q_DIGITS"]

METHODS = ("exact", "sigma3", "maurer", "local")


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibrate` (all probabilities certified intervals)."""

    N: int
    L: int
    lam: Fraction | None
    eps: Fraction | None
    target_kind: str            # "eta" or "delta"
    target: Fraction
    direction: str
    method: str
    q: Interval                 # exact: [q_lo, q_hi]; heuristic: enclosure of its q
    q_used: Fraction            # the rational q at which value_at_q is certified
    value_at_q: Interval        # certified eta/delta at q_used
    value_below_q: Interval | None = None   # exact: certified value at q_lo (> target)
    meets_target: bool | None = None
    crossings: list = field(default_factory=list)
    monotone_on_grid: bool | None = None
    grid_points: int = 0
    q_safe: Interval | None = None          # exact: last down-crossing (certified)
    value_at_q_safe: Interval | None = None
    grid_resolution: float | None = None
    seconds: float = 0.0
    note: str = ""

    def to_dict(self, digits: int = 10) -> dict:
        d = {"N": self.N, "L": self.L, "direction": self.direction, "method": self.method,
             self.target_kind + "_target": str(self.target),
             "q": (self.q.to_dict(digits) if self.method == "exact"
                   else _dec(self.q_used, digits)),
             "q_used": _dec(self.q_used, digits),
             self.target_kind + "_at_q": self.value_at_q.to_dict(digits),
             "meets_target": self.meets_target, "seconds": round(self.seconds, 3)}
        if self.lam is not None:
            d["lam"] = str(self.lam)
        if self.eps is not None:
            d["eps"] = str(self.eps)
        if self.method != "exact":
            d["q_interval"] = self.q.to_dict(digits)
        if self.value_below_q is not None:
            d[self.target_kind + "_at_q_lower"] = self.value_below_q.to_dict(digits)
        if self.method == "exact":
            d["crossings"] = [{"q": c["q"].to_dict(8), "kind": c["kind"],
                               "certified": c.get("certified", False)} for c in self.crossings]
            d["monotone_on_grid"] = self.monotone_on_grid
            d["grid_points"] = self.grid_points
            d["grid_resolution"] = self.grid_resolution
            if self.q_safe is not None:
                d["q_safe"] = self.q_safe.to_dict(digits)
                d[self.target_kind + "_at_q_safe"] = self.value_at_q_safe.to_dict(digits)
        if self.note:
            d["note"] = self.note
        return d


def _dec(x: Fraction, digits: int) -> str:
    from ..core.interval import fraction_to_decimal_str
    return fraction_to_decimal_str(Fraction(x), digits, "nearest")


def _quantity(N, L, q, direction, kind, lam, *, eps, method, digits=10, max_seconds=None,
              fourier=False, target=None):
    """eta or delta at q: ``fast`` (an estimate) or certified (an enclosure, possibly wider
    than ``digits`` asks).  ``fourier``: beyond the tree's capacity, straight to the Fourier
    strategy (no per-q capacity prediction; the fast value is its 3-digit enclosure),
    the automatic choice only where that strategy cannot smooth the light law."""
    d = from_randomized_response(N, L, q, direction)
    f = d.eta if kind == "eta" else d.delta
    if fourier and method == "fast" and direction == "reverse" and target is not None:
        # the scan compares with the target only: a far lower tail (exactdp.engine.tilted)
        # far below it is placed by its certified Chernoff bound, not computed to 3 digits
        from flint import arb, ctx, fmpq
        from ..core.lam import exp_ball
        from ..engine.tilted import chernoff_bounds
        with ctx.workprec(160):
            lam_b = exp_ball(eps) if eps is not None else arb(fmpq(lam.numerator, lam.denominator))
            cb = chernoff_bounds(d.mechanism, N, 1 / lam_b)
            if cb is not None:
                bound = cb[0] if kind == "eta" else cb[1] * lam_b
                if bound < arb(1e-30) and bound < arb(fmpq(target.numerator, target.denominator)) / 1000:
                    u = float(bound.upper()) * (1 + 1e-9) + 1e-300
                    return Estimate(u / 2, u / 2, "fast estimate (certified Chernoff bound)")
    if fourier:
        try:
            iv = f(lam, eps, digits=3 if method == "fast" else digits, method="fourier")
        except DigitsNotMetError as e:
            iv = e.reached
        except PrecisionError:
            iv = None
        if iv is not None:
            if method == "fast":
                return Estimate(float(iv.mid), float(iv.width / 2) * (1 + 1e-12),
                                "fast estimate (coarse Fourier enclosure)")
            return iv
    if method == "fast":
        return f(lam, eps, method="fast")
    try:
        return f(lam, eps, digits=digits, max_seconds=max_seconds)
    except DigitsNotMetError as e:      # calibration compares and reports: an enclosure suffices
        return e.reached


def calibrate(N, L, *, lam=None, eps=None, eta=None, delta=None, direction: str = "forward",
              method: str = "exact", digits: int | None = None, grid: int = 64, refine: int = 10,
              q_min="1/1000", max_seconds=None, progress=None) -> Calibration:
    """Noise q for a target ``eta`` (or ``delta``) at ``lam = e^eps`` (see module doc).

    ``digits``: relative width of the certified q bracket (exact method); default 6,
    or :data:`FOURIER_Q_DIGITS` (also the maximum) beyond the tree's capacity.
    ``grid``: number of fast-mode scan points in ``[q_min, 1/2)``; the stretch
    where eta is within a factor 2 of the target is rescanned ``refine`` times
    finer.  Crossings narrower than the final resolution cannot be seen; the
    resolution is reported.
    """
    t0 = time.perf_counter()
    N = domains.N.parse(N)
    L = domains.L.parse(L)
    direction = domains.parse_direction(direction)
    if (lam is None) == (eps is None):
        raise ParameterError("give exactly one of lam or eps")
    lam = domains.LAM.parse(lam) if lam is not None else None
    eps = domains.EPS.parse(eps) if eps is not None else None
    if (eta is None) == (delta is None):
        raise ParameterError("give exactly one target: eta or delta")
    kind = "eta" if eta is not None else "delta"
    target = domains.TARGET.parse(eta if eta is not None else delta)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if digits is None:
        digits = FOURIER_Q_DIGITS if _beyond_tree(N, L) else 6
    digits = domains.DIGITS.parse(digits)
    grid = domains.GRID.parse(grid)
    q_min = domains.Q.parse(q_min)
    # beyond the tree's capacity every certified value comes from the Fourier strategy
    # (exactdp.engine.largen): the scan is coarser and the q bracket has at most FOURIER_Q_DIGITS
    fourier = _beyond_tree(N, L)
    if fourier and method == "exact" and digits > FOURIER_Q_DIGITS:
        raise ParameterError(
            f"digits must be at most {FOURIER_Q_DIGITS} for calibrate at N={N}, L={L} (Fourier "
            f"strategy, beyond the tree's capacity), got {digits}; use --digits "
            f"{FOURIER_Q_DIGITS} or less")
    vdig = 3 if fourier else 8      # digits of the reported eta/delta values
    if lam is not None and lam > 10**300:
        raise ParameterError(f"lam must be at most 1e300 for calibrate, got {float(lam):.3g}"
                             if lam < Fraction(10)**308 else
                             "lam must be at most 1e300 for calibrate, got a larger value")
    lam_f = float(lam) if lam is not None else math.exp(float(eps))

    if method != "exact":
        q_iv, note = _heuristic_q(N, L, lam, eps, lam_f, target, method=method)
        q_used = _round_up(q_iv.upper, 12)
        val = _quantity(N, L, q_used, direction, kind, lam, eps=eps, method="exact", digits=vdig,
                        max_seconds=max_seconds)
        meets = True if val.upper <= target else (False if val.lower > target else None)
        return Calibration(N, L, lam, eps, kind, target, direction, method, q_iv, q_used, val,
                           None, meets, seconds=time.perf_counter() - t0, note=note)

    # ---- exact: fast scan of the grid, then certify the first down-crossing
    memo = {}       # (q, method, digits) -> value: the bracket's ends are certified once

    def value(qq, method, digits=10):
        key = (Fraction(qq), method, digits)
        if key not in memo:
            memo[key] = _quantity(N, L, qq, direction, kind, lam, eps=eps, method=method,
                                  digits=digits, max_seconds=max_seconds, fourier=fourier,
                                  target=target)
        return memo[key]

    def g_fast(qf: float) -> float:
        qq = Fraction(qf).limit_denominator(10**9)
        qq = min(max(qq, Fraction(1, 10**9)), Fraction(1, 2) - Fraction(1, 10**9))
        est = value(qq, "fast")
        return float(est.value)

    qs = [float(q_min) + (0.5 - float(q_min)) * i / grid for i in range(grid)]
    vals = []
    for i, qf in enumerate(qs):
        vals.append(g_fast(qf))
        if progress is not None:
            progress(i + 1, grid)
    tgt = float(target)
    coarse = (0.5 - float(q_min)) / grid
    # refine where eta is near the target: eta(q) is a saw-tooth (atoms of R cross lambda
    # as q moves), and a tooth narrower than the coarse step can hide a violation
    first = next((i for i in range(1, grid) if vals[i - 1] > tgt >= vals[i]), None)
    resolution = coarse
    if first is not None:
        last_near = max(i for i in range(grid) if vals[i] > tgt / 2)
        lo_i, hi_i = first - 1, min(max(last_near, first) + 1, grid - 1)
        fine = max(1, min(refine, 400 // max(1, hi_i - lo_i)))
        resolution = coarse / fine
        extra = [qs[i] + coarse * j / fine for i in range(lo_i, hi_i) for j in range(1, fine)]
        for j, qf in enumerate(extra):
            qs.append(qf)
            vals.append(g_fast(qf))
            if progress is not None:
                progress(grid + j + 1, grid + len(extra))
        order = sorted(range(len(qs)), key=qs.__getitem__)
        qs = [qs[i] for i in order]
        vals = [vals[i] for i in order]
    above = [v > tgt for v in vals]
    raw = []
    for i in range(1, len(qs)):
        if above[i - 1] != above[i]:
            raw.append((qs[i - 1], qs[i], "down" if above[i - 1] else "up"))
    monotone = all(vals[i] >= vals[i + 1] for i in range(len(vals) - 1))
    if not raw:
        scanned = f"q in [{qs[0]:.4g}, 1/2)"
        if not above[0]:
            raise ParameterError(
                f"calibrate: the target {kind} <= {_show(target)} is already met at every "
                f"scanned {scanned} (fast estimate), even the smallest; give a smaller --{kind} "
                f"target or a smaller --lam/--eps")
        raise ParameterError(
            f"calibrate: the target {kind} <= {_show(target)} is not met at any scanned {scanned} "
            f"(fast estimate); give a larger --{kind} target, a larger --lam/--eps or a larger -N")
    from ..law.queries import crossing
    downs = [i for i, r in enumerate(raw) if r[2] == "down"]
    if not downs:
        raise ParameterError(f"calibrate: {kind}(q) only crosses the target {_show(target)} upwards "
                             f"on the scanned grid; give a larger --{kind} target")
    certify = {downs[0], downs[-1]}
    crossings = []
    brackets = {}
    for idx, (a, b, k) in enumerate(raw):
        if idx in certify:
            def gx(x: Fraction, dg: int):
                if hasattr(progress, "note"):          # exactdp.core.progress.Progress
                    progress.note(f"certifying q = {float(x):.8g}")
                if fourier:     # 3 digits first, more only when they do not decide
                    dg = min(digits + 3, 3 + 2 * (max(0, dg - digits - 6) // 10))
                try:
                    return value(x, "exact", dg)
                except DigitsNotMetError as e:     # a comparison needs an enclosure only
                    return e.reached
            qa, qb = crossing(gx, g_fast, a, b, target, digits, decreasing=True,
                               log_scale=False, coarse=fourier, smooth=fourier)
            brackets[idx] = (qa, qb)
            crossings.append({"q": Interval(qa, qb), "kind": k, "certified": True})
        else:
            lo, hi = a, b          # reported at grid resolution, refined in fast mode only
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                if (g_fast(mid) > tgt) == (k == "down"):
                    lo = mid
                else:
                    hi = mid
            crossings.append({"q": Interval(Fraction(lo), Fraction(hi)), "kind": k,
                              "certified": False})
    qa, qb = brackets[downs[0]]
    val_b = value(qb, "exact", vdig)
    val_a = value(qa, "exact", vdig)
    sa, sb = brackets[downs[-1]]
    val_s = val_b if sb == qb else value(sb, "exact", vdig)
    note = ""
    if len(raw) > 1:
        note = (f"{kind} is not monotone in q: {len(raw)} crossings of the target at grid "
                f"resolution {resolution:.2g}; q is the smallest q meeting the target, q_safe "
                "the last down-crossing (every scanned q above it meets the target)")
    return Calibration(N, L, lam, eps, kind, target, direction, "exact", Interval(qa, qb), qb,
                       val_b, val_a, val_b.upper <= target, crossings, monotone, len(qs),
                       Interval(sa, sb), val_s, resolution, time.perf_counter() - t0, note)


#: Most digits of the certified q bracket beyond the tree's capacity (Fourier strategy)
FOURIER_Q_DIGITS = 4


def _beyond_tree(N: int, L: int) -> bool:
    """True when the tree's predicted node count at q = 1/4 (a typical q) exceeds its
    capacity, so that certified values come from the Fourier strategy."""
    from ..engine.capacity import MAX_NODES, estimate_nodes
    from ..model.mechanism import Mechanism
    return estimate_nodes(Mechanism(L, Fraction(1, 4)), N) > MAX_NODES


def calibrate_digits(N: int, L: int, given=None) -> int:
    """Digits of the q bracket: ``given`` (validated), else 6, or
    :data:`FOURIER_Q_DIGITS` beyond the tree's capacity."""
    if given is not None:
        return domains.DIGITS.parse(given)
    return FOURIER_Q_DIGITS if _beyond_tree(N, L) else 6


def _show(x: Fraction) -> str:
    return f"{float(x):.6g}"


def _round_up(x: Fraction, digits: int) -> Fraction:
    """Smallest decimal with ``digits`` places that is >= x."""
    s = 10**digits
    return Fraction(-((-x.numerator * s) // x.denominator), s)


def _heuristic_q(N, L, lam, eps, lam_f, target, *, method):
    from . import heuristics as H
    lam_h = H.lam_of(lam) if lam is not None else (H.Lam(eps=eps) if eps else H.Lam(exact=Fraction(1)))
    if method == "local":
        return H.local_dp_q(L, lam_h), "local DP (4.2): (p/q)^L <= lambda"
    if method == "sigma3":
        br = H.sigma3_q(N, L, lam_h, form="3.13")
        return Interval(br.lo, br.hi), "mean + 3 sigma (3.13)/(3.15), as the paper computes it"
    # maurer: beta from the large-L form exp(-beta^2/2) = eta (000 §3.4), then mean + beta sigma
    beta = Fraction(math.sqrt(2 * math.log(1 / float(target)))).limit_denominator(10**6)
    beta += Fraction(1, 10**6)   # round up: the bound at beta is then below the target
    br = H.sigma3_q(N, L, lam_h, form="3.13", beta=beta)
    return Interval(br.lo, br.hi), (f"Maurer (3.17), large-L form exp(-beta^2/2) <= eta: "
                                    f"beta = {float(beta):.6f}, then mean + beta sigma (3.13)")
