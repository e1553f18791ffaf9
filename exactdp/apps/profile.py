"""The privacy profile delta(eps) of shuffled L-bit RR: guarantee bracket and peers.

``exactdp profile -N -L -q [--eps-max E] [--points K] [--plot FILE] [--json]``
evaluates, on a grid of eps values, the certified bracket of
:func:`exactdp.apps.guarantee.guarantee` (``eps=`` mode: lower end from the
canonical pair, or the exact all-pairs maximum at L = 1, N <= 1000; upper end
the least certified published bound) and every certified peer bound of
:mod:`exactdp.apps.peers` (FMT 2021/2023 clones, Wang et al. 2024 variation ratio,
Balle et al. 2019 blanket), each at ``lam`` just below ``e^eps`` so that the
reported peer values are upper bounds on the peer's ``delta(eps)``.  The
variation-ratio pair is refuted at L >= 2 (:data:`exactdp.apps.peers.REFUTED`):
it is shown for comparison, labelled so in the plot, and never the upper end.

The default grid runs from 0 to 1.2 times the stronger-clone eps at
delta = 1e-10 (capped at eps0), with 12 points.

>>> rows = profile(30, 1, "1/4", eps_grid=["0.5"])
>>> rows[0]["eps"], rows[0]["lower"] <= rows[0]["upper"]
('0.5', True)
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

from ..core import domains
from ..core.errors import ParameterError
from ..core.interval import fraction_to_decimal_str

__all__ = ["profile", "default_grid", "plot_profile", "add_arguments", "command", "main"]

MAX_POINTS = 200


def default_grid(N, L, q, *, points: int = 12, eps_max=None) -> list[Fraction]:
    """``points`` evenly spaced eps in ``[0, eps_max]`` (rationals, 6 decimals).

    ``eps_max`` defaults to 1.2 x the stronger-clone eps(1e-10), capped at eps0.
    """
    from .peers import clone_epsilon, exp_eps0_rr, eps0_rr
    N = domains.N.parse(N)
    points = _parse_points(points)
    if eps_max is None:
        e0 = exp_eps0_rr(L, q)
        top = float(clone_epsilon(N, e0, "1e-10", rel=1e-3).upper) * 1.2
        eps_max = Fraction(min(top, eps0_rr(L, q))).limit_denominator(10**6)
    else:
        eps_max = domains.EPS.parse(eps_max)
        if eps_max <= 0:
            raise ParameterError(f"--eps-max must be a number in (0, 700], got {eps_max}")
    return [Fraction(round(eps_max * i / (points - 1) * 10**6), 10**6) for i in range(points)]


def _parse_points(points) -> int:
    try:
        k = int(str(points))
    except ValueError:
        k = None
    if k is None or not 2 <= k <= MAX_POINTS:
        raise ParameterError(f"--points must be an integer in [2, {MAX_POINTS}], got {points!r}")
    return k


def profile(N, L, q, *, eps_grid=None, points: int = 12, eps_max=None, digits: int = 4,
            progress=None) -> list[dict]:
    """One record per eps: guarantee bracket on the true delta(eps) and every peer's delta.

    Each record: ``eps``, ``lower``/``upper`` (Fractions, certified),
    ``upper_bound`` (which bound gave the upper end), ``lower_pair``,
    ``peers`` (name -> certified upper end of the peer's delta, a Fraction).
    """
    from .guarantee import guarantee
    from .peers import certified_peer_deltas
    N = domains.N.parse(N)
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    digits = domains.DIGITS.parse(digits)
    grid = (default_grid(N, L, q, points=points, eps_max=eps_max) if eps_grid is None
            else [domains.EPS.parse(e) for e in eps_grid])
    rows = []
    for i, e in enumerate(grid):
        g = guarantee(N, L, q, eps=e, digits=digits)
        lam_lo = _exp_lower(e)
        peers = {k: iv.upper for k, iv in certified_peer_deltas(N, L, q, lam_lo).items()}
        rows.append({"eps": fraction_to_decimal_str(e, 12, "nearest"), "eps_value": e,
                     "lower": g.lower, "upper": g.upper, "upper_bound": g.upper_bound,
                     "lower_pair": g.lower_pair, "lower_direction": g.lower_direction,
                     "peers": peers})
        if progress:
            progress(i + 1, len(grid))
    return rows


def _exp_lower(e: Fraction) -> Fraction:
    from flint import arb, ctx
    from ..core.interval import arb_to_interval
    with ctx.workprec(256):
        return max(Fraction(1), arb_to_interval((arb(e.numerator) / e.denominator).exp()).lower)


def plot_profile(rows, path, *, N=None, L=None, q=None):
    """Semilog plot of delta(eps): the guarantee bracket (band) and each peer bound."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def pos(v):
        v = float(v)
        return v if v > 0 else float("nan")
    x = [float(r["eps_value"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lo = [pos(r["lower"]) for r in rows]
    hi = [pos(r["upper"]) for r in rows]
    ax.fill_between(x, [v if v == v else 1e-300 for v in lo], hi, color="#4c72b0", alpha=0.25,
                    label="guarantee bracket (certified)")
    ax.plot(x, lo, color="#4c72b0", lw=2, label="lower: worst evaluated pair")
    styles = ["--", ":", "-.", (0, (3, 1, 1, 1)), (0, (5, 2))]
    from .peers import REFUTED
    for k, name in enumerate(rows[0]["peers"]):
        ax.plot(x, [pos(r["peers"][name]) for r in rows], ls=styles[k % len(styles)],
                lw=1.3, label=name + (" (refuted: not a bound)" if name in REFUTED else ""))
    ax.set_yscale("log")
    ymin = min([v for r in rows for v in (pos(r["lower"]),) if v == v] + [1e-12])
    ax.set_ylim(max(ymin, 1e-16), 1.5)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    if N is not None:
        ax.set_title(f"privacy profile of shuffled {L}-bit RR: N={N}, q={q}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# ------------------------------------------------------------------------ CLI
DESCRIPTION = ("delta(eps) of shuffled L-bit RR: certified guarantee bracket and published "
               "bounds")


def add_arguments(p) -> None:
    """The arguments of ``exactdp profile`` (``--json``/``--quiet`` come from the CLI tree)."""
    p.add_argument("-N", required=True, help=domains.N.describe())
    p.add_argument("-L", required=True, help=domains.L.describe())
    p.add_argument("-q", required=True, help=domains.Q.describe())
    p.add_argument("--eps-max", default=None, help="largest eps of the grid, in (0, 700]")
    p.add_argument("--points", default="12", help=f"grid points, integer in [2, {MAX_POINTS}]")
    p.add_argument("--digits", default="4", help=domains.DIGITS.describe())
    p.add_argument("--plot", default=None, help="write a PNG figure to this file")


def main(argv=None) -> int:
    """``exactdp profile ARGS`` (the one CLI parser tree, :mod:`exactdp.apps.cli`)."""
    from .cli import main as cli_main
    return cli_main(["profile", *(sys.argv[1:] if argv is None else argv)])


def command(args) -> int:
    """``exactdp profile -N -L -q [--eps-max E] [--points K] [--plot FILE] [--json]``."""
    if args.plot is not None:
        from ..core.writable import writable_file
        writable_file(args.plot, "--plot")
    points = _parse_points(args.points)
    rows = profile(args.N, args.L, args.q, points=points, eps_max=args.eps_max,
                   digits=args.digits)
    dg = int(args.digits) + 2
    out = []
    for r in rows:
        out.append({"eps": r["eps"],
                    "lower": fraction_to_decimal_str(r["lower"], dg, "floor"),
                    "upper": fraction_to_decimal_str(r["upper"], dg, "ceiling"),
                    "upper_bound": r["upper_bound"], "lower_direction": r["lower_direction"],
                    "peers": {k: fraction_to_decimal_str(v, dg, "ceiling")
                              for k, v in r["peers"].items()}})
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        names = list(rows[0]["peers"])
        print("eps\tlower\tupper\tupper_from\t" + "\t".join(names))
        for r in out:
            print("\t".join([r["eps"], r["lower"], r["upper"], r["upper_bound"]]
                            + [r["peers"][k] for k in names]))
    if args.plot is not None:
        plot_profile(rows, args.plot, N=args.N, L=args.L, q=args.q)
        if not args.json:
            print(f"wrote {args.plot}", file=sys.stderr)
    return 0
