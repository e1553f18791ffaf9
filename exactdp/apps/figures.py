"""The papers' lost figures, regenerated from exact computation.

``exactdp figures OUTDIR`` (or ``python -m exactdp.apps.figures OUTDIR``) writes
PNG files and two indexes, ``figures.json`` (captions and every number a
caption states) and ``figures.md``:

(a) ``law_of_R_section33.png`` and one ``law_of_R_N*_q*_lam*.png`` per
    setting: the law of R(S) for the six settings of
    ``000_3d8ddaba8b46cf9c.txt`` §3.3 (L = 5), with the line at lambda and the
    mass beyond it.  P[R > lambda] is the **certified** value (12 digits);
    the bin masses are fast-mode (float64) estimates with their error bound
    stated (``fast_curves=False``: certified bin masses).
(b) ``sigma_dhat_vs_q.png``: sigma(d_hat)/sqrt(N) = sqrt(qp)/(p - q) of 000 §4
    against q, with the local-DP q (4.2) and sufficient-DP q marked.
(c) ``k_randomization_q_vs_k.png``: q against k for 000 §6.1 (L = 40,
    N = 10^7, lambda = e^2).  The engine does *not* compute k-randomization;
    this is the paper's heuristic formula (6.3) = (8.38), solved with
    certified arithmetic (:func:`exactdp.apps.heuristics.kr_q`), and labelled so.
(d) ``calibration_q_vs_N.png``: the noise needed for eta = P[R > e^eps] <= 0.01
    (L = 5, forward) against N for eps = ln 2 (lambda = 2) and eps = 2:
    exact (fast mode, error stated) vs the paper's 3-sigma rule (3.12) and the
    local-DP q (4.2); below, the exact eta that the 3-sigma q achieves.

The exact calibrated q is found by :func:`exact_q_fast`: eta(q) need not be
monotone in q (the atoms of R move with q), so a coarse grid is scanned, the
*last* crossing from eta > target to eta <= target is refined on a finer
grid and then bisected.
"""

from __future__ import annotations

import json
import math
import sys
import textwrap
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from . import heuristics as H
from ..law.distribution import from_randomized_response
from ..core.interval import fraction_to_decimal_str

__all__ = ["SETTINGS_33", "Setting", "certified_eta", "law_data", "draw_law", "exact_q_fast",
           "eta_curve", "calibration_data", "make_figures", "main"]

PAPER = "000_3d8ddaba8b46cf9c.txt"
CERT_DIGITS = 12
ETA_TARGET = Fraction(1, 100)


@dataclass(frozen=True)
class Setting:
    """One row of 000 §3.3: N, q (as printed), lambda, and the printed p(R(S) >= lambda)."""

    N: int
    q: str
    lam: str                 # "2" (exact) or "e^2"
    printed: str             # the paper's Monte Carlo p(R(S) >= lambda)

    @property
    def lam_kw(self) -> dict:
        return {"eps": 2} if self.lam == "e^2" else {"lam": Fraction(self.lam)}

    @property
    def lam_float(self) -> float:
        return math.exp(2) if self.lam == "e^2" else float(Fraction(self.lam))

    @property
    def lam_tex(self) -> str:
        return "$e^2$" if self.lam == "e^2" else self.lam

    @property
    def slug(self) -> str:
        return f"N{self.N}_q{self.q}_lam{'e2' if self.lam == 'e^2' else self.lam}"


SETTINGS_33 = (
    Setting(1000, "0.2446", "2", "0.006"),
    Setting(3000, "0.2109", "2", "0.0048"),
    Setting(5000, "0.1778", "2", "0.0045"),
    Setting(1000, "0.1692", "e^2", "0.0037"),
    Setting(3000, "0.1424", "e^2", "0.0062"),
    Setting(5000, "0.1310", "e^2", "0.0074"),
)

# colours (colour-blind safe pairs)
C_EXACT = "#0072b2"
C_HEUR = "#d55e00"
C_LOCAL = "#009e73"
C_PAPER = "#000000"
C_TAIL = "#cc3311"


# ----------------------------------------------------------------- computation
def certified_eta(s: Setting, digits: int = CERT_DIGITS):
    """Certified ``P[R > lambda]`` (forward) at a §3.3 setting, as an Interval."""
    d = from_randomized_response(s.N, 5, s.q)
    return d.eta(digits=digits, **s.lam_kw)


def _fast_quantile(d, prob: float, lo: float, hi: float, iters: int = 24) -> float:
    """Coarse (relative ~1e-3) quantile of R by bisection on fast cdf, in log scale."""
    for _ in range(iters):
        mid = math.sqrt(lo * hi)
        if d.cdf(Fraction(mid), method="fast").value >= prob:
            hi = mid
        else:
            lo = mid
    return hi


def law_data(s: Setting, nbins: int = 80, fast: bool = True, digits: int = CERT_DIGITS) -> dict:
    """Bin masses of R at a §3.3 setting, with lambda on a bin edge, plus the
    certified eta and the exact moments.

    Bins cover the central ``1 - 2e-4`` of the law (and lambda); the mass
    outside is reported.  Fast bins carry ``error`` (float64 bound per bin).
    """
    d = from_randomized_response(s.N, 5, s.q)
    rmax = float(d.support_max())
    lo_x = _fast_quantile(d, 1e-4, 1 / rmax, 1.0, iters=14)
    hi_x = _fast_quantile(d, 1 - 1e-4, 1.0, rmax, iters=18)
    lam = s.lam_float
    hi_x = max(hi_x, lam * 1.08)
    lam_edge = Fraction(lam).limit_denominator(10**9) if s.lam == "e^2" else Fraction(s.lam)
    step = (hi_x - lo_x) / nbins
    j0 = math.floor((lo_x - lam) / step)
    j1 = math.ceil((hi_x - lam) / step)
    step_q = Fraction(step).limit_denominator(10**9)
    edges = [lam_edge + j * step_q for j in range(j0, j1 + 1)]
    edges = [e for e in edges if e > 0]
    # lower part from cdf differences, upper part from sf differences, so that
    # every bin mass (and its error) is a difference of *small* numbers
    split = min(range(len(edges)), key=lambda i: abs(float(edges[i]) - float(d.mean())))
    kw = {"method": "fast"} if fast else {"method": "exact", "digits": 6}
    low = [d.cdf(e, **kw) for e in edges[:split + 1]]
    high = [d.sf(e, **kw) for e in edges[split:]]

    def val(v):
        return (v.value, v.error) if fast else (float(v.mid), float(v.width) / 2)

    masses, errors = [], []
    for a, b in zip(low, low[1:]):
        (va, ea), (vb, eb) = val(a), val(b)
        masses.append(max(vb - va, 0.0))
        errors.append(ea + eb)
    for a, b in zip(high, high[1:]):
        (va, ea), (vb, eb) = val(a), val(b)
        masses.append(max(va - vb, 0.0))
        errors.append(ea + eb)
    below = val(low[0])[0]
    above = val(high[-1])[0]
    eta = d.eta(digits=digits, **s.lam_kw)
    mean, var = d.mean(), d.var()
    return {"setting": s, "edges": [float(e) for e in edges], "masses": masses,
            "errors": errors, "max_bin_error": max(errors), "below": below, "above": above,
            "eta": eta, "eta_str": eta.to_dict(digits), "digits": digits,
            "mean": float(mean), "sd": math.sqrt(float(var)), "bins_fast": fast}


def _eta_fast(N: int, L: int, q: Fraction, lam_kw: dict):
    return from_randomized_response(N, L, q).eta(method="fast", **lam_kw)


def exact_q_fast(N: int, L: int, lam_kw: dict, target=ETA_TARGET, *, coarse: Fraction = Fraction(1, 100),
                 fine: Fraction = Fraction(1, 1000), tol: Fraction = Fraction(1, 10**6),
                 qmax: Fraction = Fraction(49, 100), max_cells: int = 4) -> dict:
    """Noise level for ``eta = P[R > lambda] <= target`` (forward), fast mode.

    ``lam_kw`` is ``{"lam": Fraction}`` or ``{"eps": ...}``.  eta(q) is *not*
    monotone in q (a saw-tooth: it drops when an atom of R crosses lambda and
    creeps up in between), so:

    1. scan ``q = coarse, 2 coarse, ..., qmax`` and take the last grid point
       with eta > target;
    2. rescan with step ``fine`` from there over up to ``max_cells`` coarse
       cells (until the coarse eta is below target/4) and again take the last
       point with eta > target;
    3. bisect that fine cell to width ``tol``.

    Returns a dict with the bracket ``q_lo < q* <= q_hi`` (eta(q_lo) > target
    >= eta(q_hi), fast estimates): q_hi is the smallest q beyond which eta <=
    target on the scanned grids.  Also ``max_error`` (largest float64 error
    bound met), ``min_margin`` (smallest |eta - target| at the decided points),
    and ``pockets``: scanned q *below* q_lo where eta <= target already -- the
    plain "smallest q with eta <= target" would be the first of them.

    >>> r = exact_q_fast(500, 5, {"lam": Fraction(2)}, coarse=Fraction(1, 20), tol=Fraction(1, 100))
    >>> float(r["q_lo"]), float(r["q_hi"])      # eta(0.264) > 0.01 >= eta(0.265)
    (0.264, 0.265)
    """
    target = Fraction(target)
    t = float(target)
    stats = {"max_error": 0.0, "min_margin": math.inf, "evals": 0}

    def eta(q: Fraction) -> float:
        e = _eta_fast(N, L, q, lam_kw)
        stats["max_error"] = max(stats["max_error"], e.error)
        stats["min_margin"] = min(stats["min_margin"], abs(e.value - t))
        stats["evals"] += 1
        return e.value

    n = int(qmax / coarse)
    grid = [coarse * j for j in range(1, n + 1)]
    vals = [eta(q) for q in grid]
    base = {"N": N, "target": float(target)}
    if vals[-1] > t:
        return {**base, "q_lo": None, "q_hi": None, "feasible": False, "pockets": [], **stats}
    bad = [i for i, v in enumerate(vals) if v > t]
    pockets: list[float] = []
    if not bad:
        a, b = Fraction(0), grid[0]
    else:
        i = bad[-1]
        pockets = [float(q) for q, v in zip(grid[:i], vals[:i]) if v <= t]
        last = i + 1
        while last < len(grid) - 1 and last - i < max_cells and vals[last] > t / 4:
            last += 1
        m = int((grid[last] - grid[i]) / fine)
        fgrid = [grid[i] + fine * j for j in range(0, m + 1)]
        fvals = [vals[i]] + [eta(q) for q in fgrid[1:-1]] + [vals[last]]
        j = max(k for k, v in enumerate(fvals) if v > t)
        pockets += [float(q) for q, v in zip(fgrid[:j], fvals[:j]) if v <= t and q > grid[i]]
        a, b = fgrid[j], fgrid[j + 1]
    while b - a > tol:
        mid = (a + b) / 2
        if eta(mid) > t:
            a = mid
        else:
            b = mid
    return {**base, "q_lo": a, "q_hi": b, "feasible": True, "pockets": sorted(pockets), **stats}


def eta_curve(N: int, L: int, lam_kw: dict, q_from: Fraction, q_to: Fraction, step: Fraction):
    """Fast eta(q) on ``q_from, q_from + step, ..., q_to`` as (q floats, values, max error)."""
    qs, vs, err = [], [], 0.0
    q = q_from
    while q <= q_to:
        e = _eta_fast(N, L, q, lam_kw)
        qs.append(float(q))
        vs.append(e.value)
        err = max(err, e.error)
        q += step
    return qs, vs, err


# ------------------------------------------------------------------ rendering
def _up(x: float) -> str:
    """One significant digit, rounded up (for stated error bounds).

    >>> _up(1.2e-07), _up(9.5e-10), _up(0.0)
    ('2e-07', '1e-09', '0')
    """
    if x <= 0:
        return "0"
    e = math.floor(math.log10(x))
    m = math.ceil(x / 10.0**e - 1e-12)
    if m >= 10:
        m, e = 1, e + 1
    return f"{m}e{e:+03d}"


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 10.5, "axes.labelsize": 10,
                         "legend.fontsize": 8.5, "figure.dpi": 100})
    return plt


def _save(fig, path: Path, title: str, caption: str, width_chars: int = 120) -> Path:
    """Write ``caption`` under the axes (wrapped) and into the PNG metadata."""
    text = "\n".join(textwrap.fill(par, width_chars) for par in caption.split("\n"))
    fig.text(0.01, -0.01, text, ha="left", va="top", fontsize=8.3, family="DejaVu Sans",
             transform=fig.transFigure)
    fig.savefig(path, dpi=130, bbox_inches="tight", pad_inches=0.15,
                metadata={"Title": title, "Description": caption, "Software": "exactdp"})
    import matplotlib.pyplot as plt
    plt.close(fig)
    return path


def _eta_text(ld: dict) -> str:
    e = ld["eta_str"]
    return f"[{e['lower']}, {e['upper']}]"


def draw_law(ax, ld: dict, *, logy: bool = False, legend: bool = True, title: bool = True):
    """Draw the law of R from :func:`law_data` on ``ax`` (bars, lambda line, mu + 3 sigma)."""
    s: Setting = ld["setting"]
    x = ld["edges"]
    m = ld["masses"]
    if logy:   # drop bins not resolved by the stated error bound
        m = [v if v > 2 * e else 0.0 for v, e in zip(m, ld["errors"])]
    lam = s.lam_float
    widths = [b - a for a, b in zip(x, x[1:])]
    body = [(a, w, v) for a, w, v in zip(x, widths, m) if a < lam - 1e-12]
    tail = [(a, w, v) for a, w, v in zip(x, widths, m) if a >= lam - 1e-12]
    kind = "fast" if ld["bins_fast"] else "certified"
    ax.bar([a for a, _, _ in body], [v for _, _, v in body], width=[w for _, w, _ in body],
           align="edge", color=C_EXACT, edgecolor="white", linewidth=0.2,
           label=f"bin mass of R ({kind})")
    eta_mid = float(ld["eta"].mid)
    ax.bar([a for a, _, _ in tail], [v for _, _, v in tail], width=[w for _, w, _ in tail],
           align="edge", color=C_TAIL, edgecolor="white", linewidth=0.2,
           label=f"P[R > $\\lambda$] = {eta_mid:.6f} (certified)")
    ax.axvline(lam, color=C_TAIL, linestyle="--", linewidth=1.1,
               label=f"$\\lambda$ = {s.lam_tex}")
    ms3 = ld["mean"] + 3 * ld["sd"]
    ax.axvline(ms3, color="0.35", linestyle=":", linewidth=1.1,
               label=f"$\\mu + 3\\sigma$ = {ms3:.3f} (exact moments)")
    ax.plot([], [], " ", label=f"paper: p(R $\\geq\\lambda$) = {s.printed} (MC)")
    if logy:
        ax.set_yscale("log")
        pos = [v for v in m if v > 0]
        ax.set_ylim(max(min(pos), 1e-14) * 0.5, max(m) * (1e5 if legend else 3))
    else:
        ax.set_ylim(0, max(m) * 1.75)
    ax.set_xlabel("privacy ratio R(S)")
    ax.set_ylabel("probability per bin" + (" (log)" if logy else ""))
    if title:
        ax.set_title(f"N = {s.N}, q = {s.q}, $\\lambda$ = {s.lam_tex}")
    if legend:
        ax.legend(loc="upper right", frameon=True, framealpha=0.9)
    ax.grid(alpha=0.25, linewidth=0.5)


def _fig_laws(laws: list, outdir: Path, quick: bool) -> tuple[list, dict]:
    plt = _plt()
    paths, meta = [], {}
    fast = laws[0]["bins_fast"]
    binnote = (f"Bin masses: fast mode (float64), each within {max(l['max_bin_error'] for l in laws):.1e}"
               if fast else "Bin masses: certified enclosures (midpoints drawn)")
    # overview, 2 x 3
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.2))
    for ax, ld in zip(axes.flat, laws):
        # lambda = e^2: the tail is invisible on a linear scale -> log scale
        draw_law(ax, ld, legend=True, logy=(ld["setting"].lam == "e^2"))
    fig.suptitle("Law of the privacy ratio R(S), forward direction, L = 5: the six settings of "
                 f"{PAPER} §3.3", fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    lines = [f"N={ld['setting'].N}, q={ld['setting'].q}, lambda={ld['setting'].lam}: "
             f"certified eta = P[R > lambda] in {_eta_text(ld)} (paper's Monte Carlo p(R>=lambda): "
             f"{ld['setting'].printed})" for ld in laws]
    cap = ("(a) Exact law of R(S) = P(S|D_m)/P(S|D) at the six settings of 000 §3.3 (q as printed "
           "by the paper, which chose it by the 3-sigma rule). Top row linear, bottom row log scale "
           "(bins below their error bound omitted); the per-setting figures show both. Red: bins "
           "beyond lambda. "
           f"{binnote}; the mass beyond lambda is the certified value ({CERT_DIGITS} digits) "
           "from the exact engine. Dotted: mu + 3 sigma from the exact moments. "
           "lambda = 2 exactly; lambda = e^2 enclosed in a ball.\n" + "\n".join(lines))
    p = _save(fig, outdir / "law_of_R_section33.png", "Law of R, 000 §3.3", cap, 150)
    paths.append(p)
    meta[p.name] = {"caption": cap, "kind": "law", "settings": [_law_meta(ld) for ld in laws]}
    # one per setting: linear and log scale
    for ld in laws:
        s = ld["setting"]
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.3))
        draw_law(a1, ld, legend=True, title=False)
        draw_law(a2, ld, logy=True, legend=False, title=False)
        a1.set_title("linear scale")
        a2.set_title("log scale (the tail beyond $\\lambda$)")
        fig.suptitle(f"Law of R(S): N = {s.N}, L = 5, q = {s.q}, $\\lambda$ = {s.lam_tex} "
                     f"({PAPER} §3.3)", fontsize=11.5)
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        cap = (f"(a) Exact law of R(S), forward, N={s.N}, L=5, q={s.q}, lambda={s.lam}. "
               f"Certified eta = P[R > lambda] in {_eta_text(ld)} ({CERT_DIGITS} digits, exact engine); "
               f"the paper's Monte Carlo p(R>=lambda) = {s.printed}. {binnote}; "
               f"mass outside the plotted range: {ld['below'] + ld['above']:.1e}. "
               f"Dotted: mu + 3 sigma = {ld['mean'] + 3 * ld['sd']:.4f} from the exact moments.")
        p = _save(fig, outdir / f"law_of_R_{s.slug}.png", f"Law of R, {s.slug}", cap, 130)
        paths.append(p)
        meta[p.name] = {"caption": cap, "kind": "law", "settings": [_law_meta(ld)]}
    return paths, meta


def _law_meta(ld: dict) -> dict:
    s = ld["setting"]
    return {"N": s.N, "L": 5, "q": s.q, "lam": s.lam, "direction": "forward",
            "eta": ld["eta_str"], "eta_digits": ld["digits"], "eta_certified": True,
            "paper_printed": s.printed, "bins_fast": ld["bins_fast"],
            "max_bin_error": ld["max_bin_error"], "mass_outside": ld["below"] + ld["above"]}


def _fig_sigma(outdir: Path, calib5000: dict | None, quick: bool) -> tuple[list, dict]:
    plt = _plt()
    n = 120 if quick else 400
    qs = [Fraction(j, 2 * (n + 1)) for j in range(1, n + 1)]
    ys = [float(H.sigma_factor(q).mid) for q in qs]
    fig, ax = plt.subplots(figsize=(9, 5.6))
    ax.plot([float(q) for q in qs], ys, color="0.2", linewidth=1.6,
            label="$\\sigma(\\hat d)/\\sqrt{N} = \\sqrt{qp}/(p-q)$  (000 §4; an identity)")
    pts = []

    def mark(q, label, color, marker, off):
        q = Fraction(q) if not hasattr(q, "mid") else q.mid
        y = float(H.sigma_factor(q).mid)
        ax.plot([float(q)], [y], marker=marker, color=color, markersize=8, linestyle="none",
                label=label)
        ax.annotate(f"q={float(q):.4f}\n$\\sigma$={y:.3g}$\\sqrt{{N}}$", (float(q), y),
                    textcoords="offset points", xytext=off, fontsize=8, color=color,
                    arrowprops=dict(arrowstyle="-", color=color, lw=0.6))
        pts.append({"label": label, "q": float(q), "sigma_factor": y})

    loc5 = H.local_dp_q(5, 2)
    loc40 = H.local_dp_q(40, "e^2")
    mark(loc5, "local DP (4.2), L=5, $\\lambda$=2", C_LOCAL, "s", (-140, -5))
    mark(loc40, "local DP (4.2), L=40, $\\lambda=e^2$", C_LOCAL, "D", (-100, 10))
    mark(Fraction("0.1778"), "sufficient DP, paper's q for N=5000, L=5, $\\lambda$=2", C_PAPER, "o",
         (-60, 40))
    mark(H.sigma3_q(5000, 5, "2", form="3.12", digits=8).interval,
         "3$\\sigma$ rule (3.12) recomputed, N=5000, L=5, $\\lambda$=2", C_HEUR, "^", (45, -75))
    if calib5000 is not None and calib5000.get("feasible"):
        mark(Fraction(calib5000["q_hi"]), "exact: smallest q with $\\eta\\leq$0.01, N=5000, L=5, "
             "$\\lambda$=2 (fast)", C_EXACT, "*", (50, -30))
    mark(H.kr_q(10**7, 40, "e^2", 1, digits=8).interval,
         "sufficient DP (3$\\sigma$ heuristic), N=$10^7$, L=40, $\\lambda=e^2$", C_HEUR, "v", (-110, 5))
    ax.set_yscale("log")
    ax.set_xlim(0, 0.5)
    ax.set_ylim(0.08, 100)
    ax.set_xlabel("flip probability q")
    ax.set_ylabel("$\\sigma(\\hat d)/\\sqrt{N}$  (log scale)")
    ax.set_title("Precision of the count estimate $\\hat d = (M - qN)/(p-q)$ against the noise q "
                 f"({PAPER} §4)")
    ax.grid(alpha=0.3, which="both", linewidth=0.5)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    loc5v = float(H.sigma_factor(loc5.mid).mid)
    suf = float(H.sigma_factor(Fraction("0.1778")).mid)
    cap = ("(b) sigma(d_hat)/sqrt(N) = sqrt(qp)/(p-q) against q (000 §4; exact formula, evaluated "
           "with certified arithmetic). Marked: the local-DP noise (4.2) q = 1/(1+lambda^(1/L)) for "
           f"L=5, lambda=2 (q={float(loc5.mid):.4f}, sigma={loc5v:.2f} sqrt(N); the paper prints 7.5) "
           f"and L=40, lambda=e^2 (q={float(loc40.mid):.4f}); the sufficient-DP q of the paper "
           f"(0.1778, sigma={suf:.3f} sqrt(N), a {loc5v / suf:.1f}-fold gain); the 3-sigma rule (3.12) "
           "recomputed for N=5000 (0.1963); the exact smallest q with eta <= 0.01 at N=5000 (fast "
           "mode, from figure (d)); and the paper's 3-sigma q for L=40, N=10^7 (0.351, heuristic: "
           "the engine cannot do L=40, N=10^7).")
    p = _save(fig, outdir / "sigma_dhat_vs_q.png", "sigma(d_hat) against q, 000 §4", cap, 125)
    return [p], {p.name: {"caption": cap, "kind": "sigma", "points": pts}}


def _fig_kr(outdir: Path, quick: bool) -> tuple[list, dict]:
    plt = _plt()
    ks = list(range(1, 201)) if not quick else [1, 2, 3, 5, 10, 20, 50, 100, 200]
    qs = [H.kr_q(10**7, 40, "e^2", k, digits=10) for k in ks]
    qf = [float(b.interval.mid) for b in qs]
    sig = [float(H.sigma_dhat(1, b.interval, k).mid) for k, b in zip(ks, qs)]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.8))
    a1.plot(ks, qf, color=C_HEUR, linewidth=1.6, marker="." if quick else None,
            label="q solving (6.3) = (8.38): paper's heuristic formula (6.3), not exact")
    a1.set_xlabel("k (randomizations per user)")
    a1.set_ylabel("flip probability q")
    a1.set_title("Noise q against k: paper's heuristic (6.3), not exact")
    a1.grid(alpha=0.3, linewidth=0.5)
    a1.legend(loc="upper right", fontsize=8)
    a2.plot(ks, sig, color=C_HEUR, linewidth=1.6, marker="." if quick else None,
            label="$\\sqrt{qp/k}/(p-q)$ at the (6.3) q (heuristic)")
    a2.plot(ks, [sig[0] / math.sqrt(k) for k in ks], color="0.4", linestyle=":",
            label="$\\sigma$ at k=1 divided by $\\sqrt{k}$")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("k (log scale)")
    a2.set_ylabel("$\\sigma(\\hat d)/\\sqrt{N}$ (log scale)")
    a2.set_title("Resulting estimate deviation (003 (1.4) with the (6.3) q)")
    a2.grid(alpha=0.3, which="both", linewidth=0.5)
    a2.legend(loc="upper right", fontsize=8)
    fig.suptitle(f"k-randomization, L = 40, N = $10^7$, $\\lambda = e^2$ ({PAPER} §6.1) -- "
                 "heuristic formula, not an exact computation", fontsize=11.5)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    cap = ("(c) q against k for 000 §6.1 (L=40, N=10^7, lambda=e^2, k=1..200): the smallest q "
           "satisfying the paper's heuristic formula (6.3) = (8.38), 'mean bound (6.1) + 3 sqrt(variance "
           "bound (6.2)) <= lambda', solved with certified arithmetic (exactdp.apps.heuristics.kr_q). NOT an "
           "exact privacy computation: the engine does not compute k-randomization, and docs/proofs.md "
           "refutes (6.1), (6.2) and (6.3) (ids 000-6.1, 000-6.2, 000-6.3; the true variance of R(S^k) "
           f"is of order k/N, not N^-k). q falls from {qf[0]:.4f} (k=1) to {qf[-1]:.4f} (k={ks[-1]}), "
           "so by the formula the gain comes almost entirely from the 1/sqrt(k) factor (right). The "
           "kink near k = 123: the variance bound (6.2) is O((phi^L/(kN))^k) and vanishes, and q is "
           "then fixed by the mean bound alone, (1 + phi^L/(kN))^k <= lambda.")
    p = _save(fig, outdir / "k_randomization_q_vs_k.png", "q against k, 000 §6.1 (heuristic)", cap,
              150)
    return [p], {p.name: {"caption": cap, "kind": "k-randomization", "heuristic": True,
                          "k": ks, "q": qf}}


N_GRID = (500, 750, 1000, 1500, 2000, 3000, 5000, 7000, 10000, 14000, 20000)
N_GRID_QUICK = (500, 2000, 5000)
EPS_CASES = (("ln 2", {"lam": Fraction(2)}, "2", "$\\varepsilon = \\ln 2$ ($\\lambda = 2$)"),
             ("2", {"eps": 2}, "e^2", "$\\varepsilon = 2$ ($\\lambda = e^2$)"))


def calibration_data(n_grid=N_GRID, *, L: int = 5, target=ETA_TARGET, on_row=None) -> dict:
    """Exact (fast-mode) q, 3-sigma (3.12) q, local-DP q and the eta the 3-sigma q achieves.

    ``on_row()`` is called after each (lambda, N) row (progress)."""
    out = {}
    for name, lam_kw, lam_str, _ in EPS_CASES:
        rows = []
        for N in n_grid:
            r = exact_q_fast(N, L, lam_kw, target)
            try:
                s3 = H.sigma3_q(N, L, lam_str, form="3.12", digits=8)
                q3 = s3.hi
                e3 = _eta_fast(N, L, q3, lam_kw)
                r.update({"q_3sigma": float(q3), "eta_at_3sigma": e3.value,
                          "eta_at_3sigma_err": e3.error})
            except Exception:  # no feasible q for the 3-sigma rule at this N
                r.update({"q_3sigma": None, "eta_at_3sigma": None})
            rows.append(r)
            if on_row is not None:
                on_row()
        out[name] = {"lam": lam_str, "rows": rows,
                     "local_dp_q": float(H.local_dp_q(L, lam_str).mid)}
    return out


def _fig_calibration(outdir: Path, cal: dict, quick: bool) -> tuple[list, dict]:
    plt = _plt()
    fig, axes = plt.subplots(3, 2, figsize=(13, 10.5), sharex=True,
                             gridspec_kw={"height_ratios": [2.2, 1, 1]})
    maxerr = max(r["max_error"] for c in cal.values() for r in c["rows"])
    notes = []
    for col, (name, lam_kw, lam_str, tex) in enumerate(EPS_CASES):
        c = cal[name]
        rows = [r for r in c["rows"] if r["feasible"]]
        Ns = [r["N"] for r in rows]
        ax, dx, bx = axes[0, col], axes[1, col], axes[2, col]
        nmin, nmax = min(Ns), max(Ns)
        dense = sorted({int(round(nmin * (nmax / nmin) ** (i / 60))) for i in range(61)})
        d3 = []
        for N in dense:
            try:
                d3.append((N, float(H.sigma3_q(N, 5, lam_str, form="3.12", digits=7).interval.mid)))
            except Exception:
                pass
        ax.plot([n for n, _ in d3], [v for _, v in d3], color=C_HEUR, linewidth=1.6,
                label="paper's 3$\\sigma$ rule (3.12) (heuristic)")
        ax.plot(Ns, [float(r["q_hi"]) for r in rows], color=C_EXACT, marker="o", markersize=5,
                linewidth=1.6, label=f"exact: smallest q with $\\eta\\leq$0.01 (fast mode, "
                f"error $\\leq$ {_up(maxerr)})")
        pk = [(r["N"], min(r["pockets"])) for r in rows if r.get("pockets")]
        if pk:
            ax.plot([n for n, _ in pk], [v for _, v in pk], linestyle="none", marker="v",
                    color=C_EXACT, markerfacecolor="white", markersize=7,
                    label="smaller q that also meets 0.01 ($\\eta$ not monotone, see (e))")
        ax.axhline(c["local_dp_q"], color=C_LOCAL, linestyle="--", linewidth=1.3,
                   label=f"local DP (4.2): q = {c['local_dp_q']:.4f}")
        pr = [s for s in SETTINGS_33 if s.lam == lam_str]
        ax.plot([s.N for s in pr], [float(s.q) for s in pr], linestyle="none", marker="x",
                color=C_PAPER, markersize=8, mew=1.8, label="q printed in 000 §3.3")
        ax.set_xscale("log")
        ax.set_ylabel("flip probability q")
        ax.set_title(f"{tex}, L = 5: noise needed for $\\eta = P[R > \\lambda] \\leq 0.01$")
        ax.grid(alpha=0.3, which="both", linewidth=0.5)
        ax.set_ylim(0.05, 0.5)
        ax.legend(loc="center right", fontsize=8)
        dq = [(r["N"], float(r["q_hi"]) - r["q_3sigma"]) for r in rows if r.get("q_3sigma")]
        dx.axhline(0, color="0.3", linewidth=0.8)
        dx.plot([n for n, _ in dq], [v for _, v in dq], color=C_EXACT, marker="o", markersize=4,
                linewidth=1.3, label="q exact $-$ q 3$\\sigma$ rule")
        dx.set_ylabel("$\\Delta q$")
        dx.grid(alpha=0.3, which="both", linewidth=0.5)
        dx.legend(loc="best", fontsize=8)
        e3 = [(r["N"], r["eta_at_3sigma"]) for r in c["rows"] if r.get("eta_at_3sigma") is not None]
        bx.plot([n for n, _ in e3], [max(v, 1e-12) for _, v in e3], color=C_HEUR, marker="s",
                markersize=4, linewidth=1.3, label="exact $\\eta$ at the 3$\\sigma$-rule q (fast)")
        bx.axhline(0.01, color="0.3", linestyle=":", linewidth=1.1, label="target 0.01")
        bx.set_yscale("log")
        bx.set_xlabel("number of users N (log scale)")
        bx.set_ylabel("$\\eta$ (log)")
        bx.grid(alpha=0.3, which="both", linewidth=0.5)
        bx.legend(loc="best", fontsize=8)
        # largest gap
        gaps = [(abs(float(r["q_hi"]) - r["q_3sigma"]), r) for r in rows if r.get("q_3sigma")]
        if gaps:
            g, r = max(gaps, key=lambda t: t[0])
            notes.append(f"eps={name}: largest |q_exact - q_3sigma| = {g:.4f} at N={r['N']} "
                         f"(exact {float(r['q_hi']):.4f} vs 3-sigma {r['q_3sigma']:.4f}; eta at the "
                         f"3-sigma q = {r['eta_at_3sigma']:.3g})")
        pk = [r["N"] for r in rows if r.get("pockets")]
        if pk:
            notes.append(f"eps={name}: eta(q) not monotone -- smaller q with eta <= 0.01 exist at "
                         + ", ".join(f"N={r['N']} (q={min(r['pockets']):.3f})"
                                     for r in rows if r.get('pockets')))
    fig.suptitle("Calibration: exact noise vs the paper's heuristics (forward direction, "
                 f"L = 5; {PAPER} §3.2-§4)", fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    cap = ("(d) Noise q needed for eta = P[R > lambda] <= 0.01 against N (L=5, forward). Exact: the "
           "smallest q beyond which eta <= 0.01 on a 0.01 grid, refined on a 0.001 grid and bisected "
           "to 1e-6 (eta is not monotone in q, figure (e), so the last crossing is taken); eta from "
           "the exact engine in fast "
           f"mode (float64, each value within {maxerr:.1e}). Heuristics as printed: the 3-sigma rule "
           "(3.12) (certified solve) and local DP (4.2). Crosses: the q printed in 000 §3.3. Middle: "
           "q_exact - q_3sigma. Bottom: "
           "the exact eta achieved by the 3-sigma-rule q (below the target where Delta q < 0, i.e. the "
           "rule adds more noise than needed; above it where Delta q > 0).\n" + "\n".join(notes))
    p = _save(fig, outdir / "calibration_q_vs_N.png", "Calibration q against N", cap, 150)
    meta = {"caption": cap, "kind": "calibration", "max_error": maxerr, "notes": notes,
            "cases": {name: {"lam": c["lam"], "local_dp_q": c["local_dp_q"],
                             "rows": [_row_json(r) for r in c["rows"]]} for name, c in cal.items()}}
    return [p], {p.name: meta}


ETA_Q_CASES = (
    # N, lam_kw, lam_str, title tex, q range, step, q values certified (the 3-sigma q of
    # (3.12) is computed and certified too, never hard-coded)
    (5000, {"lam": Fraction(2)}, "2", "$\\varepsilon = \\ln 2$ ($\\lambda = 2$), N = 5000",
     (Fraction("0.170"), Fraction("0.210")), Fraction(1, 2000), ("0.1778", "0.1935")),
    (10000, {"eps": 2}, "e^2", "$\\varepsilon = 2$ ($\\lambda = e^2$), N = 10000",
     (Fraction("0.105"), Fraction("0.125")), Fraction(1, 2000), ("0.1168", "0.118")),
)


def _fig_eta_q(outdir: Path, cal: dict, quick: bool) -> tuple[list, dict]:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.9))
    cases_meta, lines = [], []
    for ax, (N, lam_kw, lam_str, tex, (qa, qb), step, certq) in zip(axes, ETA_Q_CASES):
        qs, vs, err = eta_curve(N, 5, lam_kw, qa, qb, step * (4 if quick else 1))
        ax.plot(qs, vs, color=C_EXACT, linewidth=1.5, marker=".", markersize=3,
                label=f"exact $\\eta(q)$ (fast mode, error $\\leq$ {_up(err)})")
        ax.axhline(0.01, color="0.3", linestyle=":", linewidth=1.1, label="target $\\eta$ = 0.01")
        name = "ln 2" if lam_str == "2" else "2"
        row = next((r for r in cal.get(name, {}).get("rows", []) if r["N"] == N), None)
        if row is None:
            row = exact_q_fast(N, 5, lam_kw)
        q3 = H.sigma3_q(N, 5, lam_str, form="3.12", digits=8)
        ax.axvline(float(row["q_hi"]), color=C_EXACT, linestyle="--", linewidth=1.2,
                   label=f"calibrated q = {float(row['q_hi']):.4f} (last crossing)")
        ax.axvline(float(q3.hi), color=C_HEUR, linestyle="-.", linewidth=1.2,
                   label=f"3$\\sigma$ rule (3.12): q = {float(q3.hi):.4f}")
        pts = []
        q3_str = fraction_to_decimal_str(q3.hi, 8, "ceiling")
        for qs_ in sorted(set(certq) | {q3_str}, key=Fraction):
            iv = from_randomized_response(N, 5, qs_).eta(digits=8, **lam_kw)
            pts.append({"q": qs_, "eta": iv.to_dict(8)})
            ax.plot([float(Fraction(qs_))], [float(iv.mid)], marker="D", color=C_TAIL, markersize=6,
                    linestyle="none")
        ax.plot([], [], marker="D", color=C_TAIL, linestyle="none",
                label="certified $\\eta$ (exact engine, 8 digits)")
        ax.set_yscale("log")
        ax.set_xlabel("flip probability q")
        ax.set_ylabel("$\\eta = P[R > \\lambda]$ (log scale)")
        ax.set_title(f"{tex}, L = 5")
        ax.grid(alpha=0.3, which="both", linewidth=0.5)
        ax.legend(loc="lower left", fontsize=8)
        cases_meta.append({"N": N, "lam": lam_str, "certified_points": pts, "max_error": err,
                           "q_calibrated": float(row["q_hi"]), "q_3sigma": float(q3.hi)})
        lines.append(f"N={N}, lambda={lam_str}: certified " + "; ".join(
            f"eta(q={p['q']}) in [{p['eta']['lower']}, {p['eta']['upper']}]" for p in pts))
    fig.suptitle("The exact $\\eta(q)$ is not monotone in the noise q (forward, L = 5)",
                 fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    cap = ("(e) Exact eta(q) = P[R > lambda] against q near the calibration point (fast mode; "
           "diamonds: certified values). eta is a saw-tooth in q: it drops when an atom of R = X/N "
           "crosses lambda and creeps up in between, so MORE noise can give a LARGER eta, and 'the "
           "smallest q with eta <= 0.01' is not a safe calibration; figure (d) uses the last crossing. "
           "Left: the paper's q = 0.1778 for N=5000 sits in a plateau at eta ~ 0.04.\n"
           + "\n".join(lines))
    p = _save(fig, outdir / "eta_vs_q.png", "eta against q (non-monotone)", cap, 150)
    return [p], {p.name: {"caption": cap, "kind": "eta-vs-q", "cases": cases_meta}}


def _row_json(r: dict) -> dict:
    out = {}
    for k, v in r.items():
        if isinstance(v, Fraction):
            out[k] = f"{v.numerator}/{v.denominator}"
            out[k + "_float"] = float(v)
        elif isinstance(v, float) and not math.isfinite(v):
            out[k] = None
        else:
            out[k] = v
    return out


# ----------------------------------------------------------------- entry point
def _fig_kscale(outdir: Path) -> tuple[list, dict]:
    """000 §6.1's figure (certified least q for eta <= 1 % against k at L = 40, N = 10^7)
    drawn from the stored certified rows (:func:`exactdp.apps.kscale.load_rows`; computing
    them takes minutes per k: ``python -m exactdp.apps.kscale K ... --out``); none stored:
    no figure."""
    from .kscale import figure as kscale_figure, load_rows
    rows = load_rows()
    if not rows:
        return [], {}
    ks = sorted(r["k"] for r in rows)
    cap = ("000 §6.1 recomputed: certified least q with eta <= 1 % against k (L = 40, N = 10^7, "
           f"lambda = e^2; certified for k = {ks}, the other k not computed), next to the paper's "
           "(6.3) heuristic curve and the 3 sigma rule with the exact moments of R(S^k); right: "
           "sigma(d_hat)/sqrt(N) (003 (1.4)) and the precision gain.")
    p = kscale_figure(rows, outdir / "k_randomization_certified_q_vs_k.png", caption=cap)
    return [p], {p.name: {"caption": cap, "rows": [{"k": r["k"], "q": [r["q_lo"], r["q_hi"]]}
                                                    for r in sorted(rows, key=lambda r: r["k"])]}}


def make_figures(outdir, *, fast_curves: bool = True, quick: bool = False, log=None,
                 progress=None) -> list[Path]:
    """Regenerate the figures into ``outdir``; returns the PNG paths.

    ``fast_curves``: bin masses (and curves) in fast mode with their error
    bound stated; ``False`` certifies the bin masses too (minutes).  The six
    P[R > lambda] values are always certified.  ``quick``: fewer bins, grid
    points and k values (for tests).  Also writes ``figures.json`` (captions and
    the numbers they state) and ``figures.md``.  ``progress``: an
    :class:`exactdp.core.progress.Progress` counting the steps (laws, calibration rows,
    figures).
    """
    from ..core.progress import Progress
    from ..core.writable import writable_dir
    outdir = writable_dir(outdir, "outdir")
    say = log or (lambda msg: None)
    bar = progress if progress is not None else Progress("figures", enabled=False)
    n_grid = N_GRID_QUICK if quick else N_GRID
    bar.total = len(SETTINGS_33) + len(EPS_CASES) * len(n_grid) + 3
    t0 = time.perf_counter()
    timings = {}
    paths: list[Path] = []
    meta: dict = {}

    t = time.perf_counter()
    laws = []
    for s in SETTINGS_33:
        bar.note(f"law of R, {s.slug}")
        laws.append(law_data(s, nbins=40 if quick else 80, fast=fast_curves))
        bar.update()
    ps, m = _fig_laws(laws, outdir, quick)
    paths += ps
    meta.update(m)
    timings["law"] = time.perf_counter() - t
    say(f"(a) law of R: {timings['law']:.1f} s")

    t = time.perf_counter()
    bar.note("calibration q(N)")
    cal = calibration_data(n_grid, on_row=bar.update)
    ps, m = _fig_calibration(outdir, cal, quick)
    timings["calibration"] = time.perf_counter() - t
    say(f"(d) calibration: {timings['calibration']:.1f} s")
    c5000 = next((r for r in cal["ln 2"]["rows"] if r["N"] == 5000), None)

    t = time.perf_counter()
    ps_b, m_b = _fig_sigma(outdir, c5000, quick)
    timings["sigma"] = time.perf_counter() - t
    bar.update()
    say(f"(b) sigma(d_hat): {timings['sigma']:.1f} s")

    t = time.perf_counter()
    ps_c, m_c = _fig_kr(outdir, quick)
    timings["k_randomization"] = time.perf_counter() - t
    bar.update()
    say(f"(c) k-randomization: {timings['k_randomization']:.1f} s")

    t = time.perf_counter()
    ps_e, m_e = _fig_eta_q(outdir, cal, quick)
    timings["eta_vs_q"] = time.perf_counter() - t
    bar.update()
    say(f"(e) eta against q: {timings['eta_vs_q']:.1f} s")

    paths += ps_b + ps_c + ps + ps_e
    t = time.perf_counter()
    ps_f, m_f = _fig_kscale(outdir)
    paths += ps_f
    meta.update(m_f)
    timings["k_scale"] = time.perf_counter() - t
    meta.update(m_e)
    meta.update(m_b)
    meta.update(m_c)
    meta.update(m)
    timings["total"] = time.perf_counter() - t0
    index = {"generator": "exactdp.apps.figures.make_figures", "paper": PAPER, "quick": quick,
             "fast_curves": fast_curves, "seconds": {k: round(v, 2) for k, v in timings.items()},
             "figures": {p.name: meta[p.name] for p in paths}}
    (outdir / "figures.json").write_text(json.dumps(index, indent=1, default=str) + "\n")
    md = ["# Figures regenerated by exactdp", "",
          f"Generated by `exactdp figures` ({'quick' if quick else 'full'} run, "
          f"{timings['total']:.0f} s). Paper: `{PAPER}`.", ""]
    for p in paths:
        md += [f"## {p.name}", "", f"![{p.name}]({p.name})", "",
               meta[p.name]["caption"].replace("\n", "\n\n"), ""]
    (outdir / "figures.md").write_text("\n".join(md))
    say(f"total: {timings['total']:.1f} s")
    return paths


DESCRIPTION = "Regenerate the papers' lost figures from exact computation (PNG + captions)."


def add_arguments(ap) -> None:
    """The arguments of ``exactdp figures`` (``--json``/``--quiet`` come from the CLI tree)."""
    ap.add_argument("outdir", help="output directory (created if missing)")
    ap.add_argument("--certified-bins", action="store_true",
                    help="certify the bin masses too (slow); default: fast mode, error stated")
    ap.add_argument("--quick", action="store_true", help="fewer grid points (for tests)")


def command(args) -> int:
    """``exactdp figures OUTDIR``: write the figures, print their paths (``--json``: a list)."""
    from ..core.progress import Progress
    quiet = args.quiet or args.json
    with Progress("figures", unit="step", enabled=not quiet) as bar:
        paths = make_figures(args.outdir, fast_curves=not args.certified_bins, quick=args.quick,
                             log=None if quiet else bar.write, progress=bar)
    if args.json:
        print(json.dumps([str(p) for p in paths], indent=2))
    else:
        for p in paths:
            print(p)
    return 0


def main(argv=None) -> int:
    """``exactdp figures ARGS`` (the one CLI parser tree, :mod:`exactdp.apps.cli`)."""
    from .cli import main as cli_main
    return cli_main(["figures", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
