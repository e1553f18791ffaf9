"""The ``exactdp`` command line.

Subcommands (``exactdp SUB --help`` for each):

* ``eta`` / ``delta``: certified eta(eps) = P[R > e^eps] or delta(eps) for the
  canonical pair (``--direction forward|reverse|worst``, ``--fast`` for the
  float64 estimate);
* ``epsilon``: the smallest eps with delta(eps) <= target (``--delta``) or
  eta(eps) <= target (``--eta``), certified;
* ``dist``: exact bin masses of R, optionally a picture (``--plot FILE.png``);
* ``proofs``: the machine-checked identities of the papers.

Invalid input gives one line naming the parameter and exit code 2, before any
long work starts.  ``--json`` prints a JSON object; decimal values are strings
rounded outward.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from fractions import Fraction

from ..core import domains
from ..core.errors import CapacityError, ExactdpError, PrecisionError
from ..core.interval import Interval

__all__ = ["main", "build_parser"]


def _Progress(label: str, enabled: bool = True):
    """Progress bar on stderr for long runs (:mod:`exactdp.core.progress`: tqdm on a terminal, else silent)."""
    from ..core.progress import Progress
    return Progress(label, enabled=enabled)


def _fail(msg: str) -> int:
    print(f"exactdp: error: {msg}", file=sys.stderr)
    return 2


def _package_version() -> str:
    """The installed distribution's version (importlib.metadata), else ``exactdp.__version__``."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("exactdp")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        from .. import __version__
        return __version__


class _VersionAction(argparse.Action):
    """``--version``: print ``exactdp VERSION`` and exit 0 (no numerical imports)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"exactdp {_package_version()}")
        parser.exit()


def _common(p: argparse.ArgumentParser, lam: bool = True):
    p.add_argument("-N", help=domains.N.describe() + " (with -L: 000's pair; or give --pair)")
    p.add_argument("-L", help=domains.L.describe())
    p.add_argument("--pair", help="any neighbouring pair instead of -N/-L: 'BASE; X -> X_M' with "
                   "BASE '+'-separated [COUNTx]BITS terms (bit 0 first), e.g. "
                   "'999x00000; 00000 -> 11111' (000's pair, N=1000, L=5) or "
                   "'998x00000 + 10000; 00000 -> 11111'")
    p.add_argument("-q", required=True, help=domains.Q.describe() + " (exact: '0.2446', '1/5')")
    if lam:
        g = p.add_mutually_exclusive_group(required=True)
        g.add_argument("--lam", help=domains.LAM.describe())
        g.add_argument("--eps", help=domains.EPS.describe() + " (lam = e^eps, enclosed in a ball)")
    p.add_argument("--direction", default="forward", help="forward, reverse or worst")
    p.add_argument("--max-seconds", default="900",
                   help="refuse certified work predicted to take longer (default 900); with --k "
                   "a time budget: past it the enclosure reached is printed (certified, wider)")


#: Subcommands defined by application modules, which provide ``add_arguments(parser)``
#: and ``command(args) -> exit code``: name -> (module, help).  Only the branch of the
#: command being run imports its module (``exactdp eta`` never loads the audit).
APPS = {
    "proofs": ("oracles.proofs", "machine-checked identities of the papers"),
    "conjecture": ("apps.conjectures", "check a conjecture of the papers (certified)"),
    "audit": ("apps.audit", "verdict on every checkable claim of the papers"),
    "figures": ("apps.figures", "regenerate the papers' figures from exact computation"),
    "sweep": ("apps.sweep", "a grid of computations on Dask, resumable SQLite store"),
    "guarantee": ("apps.guarantee", "certified bracket on eps(delta) over all neighbouring pairs"),
    "profile": ("apps.profile", "delta(eps) curve: guarantee bracket and published bounds"),
}


def _output_options() -> argparse.ArgumentParser:
    """``--json`` and ``--quiet``, shared by every subcommand."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The one parser tree of ``exactdp``.  ``command`` names the branch to build in
    full (its application module is imported); ``None`` builds every branch."""
    import importlib
    ap = argparse.ArgumentParser(prog="exactdp", description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", action=_VersionAction, help="print the package version and exit")
    sub = ap.add_subparsers(dest="cmd", required=True)
    out = _output_options()
    for name, helptext in (("eta", "eta = P[R > lam] (inclusive: >=), certified"),
                           ("delta", "delta = E[(1 - lam/R)+], certified")):
        p = sub.add_parser(name, help=helptext, parents=[out])
        _common(p)
        if name == "eta":
            p.add_argument("--inclusive", action="store_true", help="P[R >= lam] instead of >")
        p.add_argument("--digits", default=None, help=domains.DIGITS.describe() + " (default 20; 6 with --k; 4, "
                       "at most 6, beyond the tree's capacity)")
        p.add_argument("--fast", action="store_true", help="float64 estimate with error bound")
        p.add_argument("--k", help="k-randomization: every user submits K randomizations (003 §1); " + domains.K.describe())
    p = sub.add_parser("epsilon", help="smallest eps meeting a delta or eta target", parents=[out])
    _common(p, lam=False)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--delta", help="target delta in (0, 1)")
    g.add_argument("--eta", help="target eta in (0, 1)")
    p.add_argument("--digits", help=domains.DIGITS.describe() + "; default 10 (4, also the most, "
                   "beyond the tree's capacity; 6 with --k, 4 with --k at k N >= 10^4)")
    p.add_argument("--k", help="k-randomization: every user submits K randomizations (003 §1); " + domains.K.describe())
    p = sub.add_parser("dist", help="exact bin masses of R (and a plot)", parents=[out])
    _common(p, lam=False)
    p.add_argument("--lam", help="draw the lambda line and report the mass beyond it")
    p.add_argument("--bins", default=None, help=domains.BINS.describe() + " (default 40; 10 "
                   "beyond the tree's capacity)")
    p.add_argument("--digits", default=None, help=domains.DIGITS.describe() + " (default 10; 3, "
                   "also the most, beyond the tree's capacity)")
    p.add_argument("--fast", action="store_true", help="float64 bin masses")
    p.add_argument("--plot", help="write a PNG picture of the law of R")
    p = sub.add_parser("calibrate", help="noise q that meets an eta or delta target", parents=[out])
    p.add_argument("-N", required=True, help=domains.N.describe())
    p.add_argument("-L", required=True, help=domains.L.describe())
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--lam", help=domains.LAM.describe())
    g.add_argument("--eps", help=domains.EPS.describe())
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--eta", help="target eta in (0, 1)")
    g.add_argument("--delta", help="target delta in (0, 1)")
    p.add_argument("--direction", default="forward", help="forward, reverse or worst")
    p.add_argument("--method", default="exact", help="exact, sigma3, maurer or local")
    p.add_argument("--digits", help="relative width of the certified q bracket (default 6; 4, "
                   "also the most, beyond the tree's capacity; with --k: 6, 4 at k N >= 10^4)")
    p.add_argument("--grid", default=None, help="scan points in [1/1000, 1/2) (default 64 fast-mode points; "
                   "16 certified points with --k); " + domains.GRID.describe())
    p.add_argument("--k", help="k-randomization: every user submits K randomizations (003 §1); " + domains.K.describe())
    p.add_argument("--max-seconds", default="900", help="refuse longer certified runs (default 900); "
                   "with --k a time budget: past it the bracket reached is reported")
    for name, (modname, helptext) in APPS.items():
        if command is not None and command != name:
            sub.add_parser(name, help=helptext)            # listed; built when it runs
            continue
        try:
            mod = importlib.import_module(f"exactdp.{modname}")
        except ModuleNotFoundError:
            p = sub.add_parser(name, help=helptext)
            p.set_defaults(unavailable=name)
            continue
        p = sub.add_parser(name, help=helptext, parents=[out],
                           description=getattr(mod, "DESCRIPTION", helptext))
        mod.add_arguments(p)
        p.set_defaults(run=mod.command)
    return ap


def _dist(args):
    from ..law.distribution import from_pair, from_randomized_response
    if getattr(args, "pair", None) is not None:
        from ..model.pair import Pair
        if args.N is not None or args.L is not None:
            raise ExactdpError("give either --pair or -N and -L, not both")
        P = Pair.parse(args.pair)
        q = domains.Q.parse(args.q)
        direction = domains.parse_direction(args.direction)
        return from_pair(P, q=q, direction=direction), P.N, P.L, q, direction
    if args.N is None or args.L is None:
        raise ExactdpError("-N and -L are required (or --pair 'BASE; X -> X_M')")
    N = domains.N.parse(args.N)
    L = domains.L.parse(args.L)
    q = domains.Q.parse(args.q)
    direction = domains.parse_direction(args.direction)
    return from_randomized_response(N, L, q, direction), N, L, q, direction


def _max_seconds(args):
    try:
        v = float(args.max_seconds)
    except ValueError:
        raise ExactdpError(f"max-seconds must be a positive number, got {args.max_seconds!r}")
    if not (v > 0) or math.isinf(v):
        raise ExactdpError(f"max-seconds must be a positive number, got {args.max_seconds!r}")
    return v


def _base_record(args, N, L, q, direction):
    rec = {"N": N, "L": L, "q": str(args.q).strip(), "q_exact": f"{q.numerator}/{q.denominator}",
           "direction": direction}
    if getattr(args, "pair", None) is not None:
        from ..model.pair import Pair
        rec["pair"] = Pair.parse(args.pair).spec()
    if getattr(args, "lam", None) is not None:
        rec["lam"] = str(args.lam).strip()
    if getattr(args, "eps", None) is not None:
        rec["eps"] = str(args.eps).strip()
    return rec


def _cmd_k(args, which: str) -> int:
    """``--k K``: the k-randomization route (:mod:`exactdp.apps.kflag`)."""
    from .kflag import command
    if getattr(args, "pair", None) is not None:
        raise ExactdpError("--k goes with -N and -L (000's pair and its reverse), not with --pair")
    if getattr(args, "fast", False):
        raise ExactdpError("--k has no fast mode: drop --fast")
    if args.N is None or args.L is None:
        raise ExactdpError("-N and -L are required with --k")
    if args.digits is None and which in ("eta", "delta"):
        args.digits = "6"          # epsilon, calibrate: 6, or 4 on the secant route (kflag)
    if which == "calibrate" and args.grid is None:
        args.grid = "16"
    args.max_seconds = _max_seconds(args)     # the time budget (kflag: deadline)
    return command(which, args)


def _cmd_eta_delta(args, which: str) -> int:
    if args.k is not None:
        return _cmd_k(args, which)
    dist, N, L, q, direction = _dist(args)
    lam = domains.LAM.parse(args.lam) if args.lam is not None else None
    eps = domains.EPS.parse(args.eps) if args.eps is not None else None
    fast = args.fast
    from .scale_digits import query_digits      # beyond the tree: a few digits, said before work
    digits = query_digits(args.digits, not fast and _strategy(dist) == "fourier", N, L, which)
    maxs = _max_seconds(args)
    _precheck(dist, direction, maxs, certified=not fast)
    prog = _Progress(which, enabled=not (args.quiet or getattr(args, "json", False)))
    t0 = time.perf_counter()
    kw = dict(method="fast") if fast else dict(digits=digits, progress=prog, max_seconds=maxs)
    if which == "eta":
        res = dist.eta(lam, eps, inclusive=args.inclusive, **kw)
    else:
        res = dist.delta(lam, eps, **kw)
    seconds = time.perf_counter() - t0
    prog.close()
    rec = _base_record(args, N, L, q, direction)
    rec.update({which: res.to_dict(digits) if not fast else res.to_dict(),
                "method": "fast" if fast else "exact", "seconds": round(seconds, 4)})
    if not fast:
        rec["strategy"] = _label(dist)
        if _engines(dist):
            rec["engine"] = _engines(dist)
    if which == "eta":
        rec["inclusive"] = bool(args.inclusive)
    if not fast:
        rec["digits"] = digits
        rec["certified"] = True
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        thr = f"lam={args.lam}" if lam is not None else f"eps={args.eps}"
        op = ">=" if (which == "eta" and args.inclusive) else ">"
        what = f"P[R {op} {thr.split('=')[1] if lam is not None else 'e^' + str(args.eps)}]" \
            if which == "eta" else f"delta({thr})"
        if fast:
            print(f"{which} {'' if res.bound_only else '= '}{res}  ({what}, {direction}, "
                  f"N={N}, L={L}, q={args.q}; fast estimate, {seconds:.3f} s)")
        else:
            d = res.to_dict(digits)
            print(f"{which} in [{d['lower']}, {d['upper']}]  ({what}, {direction}, N={N}, L={L}, "
                  f"q={args.q}; certified, {_label(dist)}"
                  f"{' (' + _engines(dist) + ' kernel)' if _engines(dist) else ''}, {seconds:.2f} s)")
    return 0


def _engines(dist) -> str:
    """The tree kernel engines that ran (``compiled``, ``arb``; :mod:`exactdp.engine.ckernel`), or ''."""
    parts = [dist.forward, dist.reverse] if hasattr(dist, "forward") else [dist]
    memos = [getattr(d, "cache", None) or getattr(d, "_cache", {}) for d in parts]
    return "+".join(sorted({v.engine for m in memos for k, v in getattr(m, "entries", m).items()
                            if isinstance(k, tuple) and k[0] == "exact" and hasattr(v, "engine")}))


def _precheck(dist, direction, max_seconds=None, certified=True):
    """A-priori capacity estimate (no long work).  Certified queries beyond the
    tree's capacity go to the Fourier strategy (exactdp.engine.largen) instead.

    For 000's pair the choice is ``choose_method`` alone: "tree" means Knuth's estimate
    (:func:`exactdp.engine.capacity.estimate_nodes`, deterministic) is within
    ``MAX_NODES``, so ``check_capacity`` -- the same estimate against the same limit --
    cannot refuse and is not run again; a fast query chooses at its own threshold
    (``choose_method(fast=True, x=...)``, in the query) and its compiled walk has a node
    budget, so nothing is estimated here for it."""
    one = dist.forward if hasattr(dist, "forward") else dist
    if one.direction == "pair":              # a general pair: some certified method must apply
        for d in (dist.forward, dist.reverse) if hasattr(dist, "forward") else (dist,):
            if d.choose_method() == "none":
                from ..reductions.pairs import check_capacity as check_pair, reduce_pair
                check_pair(reduce_pair(d.pair))
                raise ExactdpError(f"no certified method for {d.pair.describe()}")
        return
    if certified:
        # the tree (within MAX_NODES) or Fourier; a time limit is checked by the query
        # itself, from its cheap magnitude pass (``PrivacyRatio._capacity_check``)
        one.choose_method()


def _strategy(dist) -> str:
    """Name of the certified strategy the distribution's auto choice uses."""
    one = dist.forward if hasattr(dist, "forward") else dist
    return one.choose_method()


def _label(dist) -> str:
    """The strategy for the reports: :func:`_strategy`, plus ``tilted`` when the reverse
    direction's lower tail came from :mod:`exactdp.engine.tilted` (``fourier+tilted``;
    ``tilted`` alone for the reverse direction)."""
    base = _strategy(dist)
    parts = [dist.forward, dist.reverse] if hasattr(dist, "forward") else [dist]
    used = [getattr(d, "cache", None) is not None and ("tilted used",) in d.cache for d in parts]
    if not any(used):
        return base
    return "tilted" if len(parts) == 1 else f"{base}+tilted"


def _cmd_epsilon(args) -> int:
    if args.k is not None:
        return _cmd_k(args, "epsilon")
    dist, N, L, q, direction = _dist(args)
    digits = _eps_digits(dist, args.digits)
    maxs = _max_seconds(args)
    target_name = "delta" if args.delta is not None else "eta"
    target = domains.TARGET.parse(args.delta if args.delta is not None else args.eta)
    _precheck(dist, direction)
    prog = _Progress("epsilon", enabled=not (args.quiet or getattr(args, "json", False)))
    t0 = time.perf_counter()
    kw = {target_name: target}
    res = dist.epsilon(digits=digits, progress=prog, max_seconds=maxs, **kw)
    seconds = time.perf_counter() - t0
    prog.close()
    rec = _base_record(args, N, L, q, direction)
    rec.update({"target": {target_name: str(args.delta if args.delta is not None else args.eta)},
                "eps": res.to_dict(digits + 1), "lam": _lam_dict(res, digits + 1),
                "digits": digits, "certified": True, "strategy": _label(dist),
                "seconds": round(seconds, 4)})
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        d = res.to_dict(digits + 1)
        print(f"smallest eps with {target_name} <= {rec['target'][target_name]}: "
              f"eps in [{d['lower']}, {d['upper']}]  ({direction}, N={N}, L={L}, q={args.q}; "
              f"certified, {_label(dist)}, {seconds:.2f} s)")
    return 0


def _eps_digits(dist, given):
    """--digits of epsilon: default 10, or 4 (its maximum) under the Fourier strategy."""
    from ..law.queries import FOURIER_EPS_DIGITS
    if given is not None:
        return domains.DIGITS.parse(given)
    return FOURIER_EPS_DIGITS if _strategy(dist) == "fourier" else 10


def _lam_dict(eps_iv, digits):
    from ..core.interval import Interval
    from ..core.lam import exp_interval
    lo, hi = exp_interval(eps_iv.lower, 200), exp_interval(eps_iv.upper, 200)
    return Interval(lo.lower, hi.upper).to_dict(digits)


def _cmd_dist(args) -> int:
    from .plots import plot_law
    from ..core.estimate import Estimate
    dist, N, L, q, direction = _dist(args)
    if direction == "worst":
        raise ExactdpError("direction for dist must be forward or reverse")
    from .dist_scale import dist_bins, dist_digits, enclosure, sample_edges
    fourier = _strategy(dist) == "fourier"      # beyond the tree: edges from a sample
    cdf, sf = (enclosure(dist.cdf), enclosure(dist.sf)) if fourier else (dist.cdf, dist.sf)
    bins = dist_bins(args.bins, fourier)
    digits = dist_digits(args.digits, fourier, N, L)
    lam = domains.LAM.parse(args.lam) if args.lam is not None else None
    method = "fast" if args.fast else "exact"
    if args.plot:
        from ..core.writable import writable_file
        writable_file(args.plot, "--plot")
    _precheck(dist, direction)
    if fourier:
        edges = sample_edges(dist, bins, lam)
    else:
        lo_q = dist.quantile(Fraction(1, 10**4), method="fast")
        hi_q = dist.quantile(1 - Fraction(1, 10**4), method="fast")
        lo_x = max(float(lo_q.lower), 1e-12)
        hi_x = float(hi_q.upper)
        if lam is not None:  # R <= ratio_max: a larger lam only widens the picture up to there
            hi_x = max(hi_x, float(min(lam, dist.mechanism.ratio_max)) * 1.05)
        step = (hi_x - lo_x) / bins
        edges = [Fraction(lo_x) + i * Fraction(step) for i in range(bins + 1)]
        edges = [Fraction(e).limit_denominator(10**12) for e in edges]
        edges = sorted(set(edges))
    prog = _Progress("dist", enabled=not (args.quiet or getattr(args, "json", False)))
    t0 = time.perf_counter()
    cdfs = []
    for i, e in enumerate(edges):
        cdfs.append(cdf(e, digits=digits, method=method))
        prog(i + 1, len(edges))
    masses = []
    for a, b in zip(cdfs, cdfs[1:]):
        if method == "exact":
            masses.append({"lower": max(b.lower - a.upper, Fraction(0)),
                           "upper": max(b.upper - a.lower, Fraction(0))})
        else:
            masses.append({"lower": Fraction(max(b.value - a.value - a.error - b.error, 0.0)),
                           "upper": Fraction(b.value - a.value + a.error + b.error)})
    below = cdfs[0]
    above = sf(edges[-1], digits=digits, method=method)
    beyond = sf(lam, digits=digits, method=method) if lam is not None else None
    seconds = time.perf_counter() - t0
    prog.close()

    def dec(x, rounding="nearest"):
        from ..core.interval import fraction_to_decimal_str
        return fraction_to_decimal_str(Fraction(x), digits, rounding)

    def ivd(v):
        if isinstance(v, Estimate):
            return v.to_dict()
        return v.to_dict(digits)

    rec = _base_record(args, N, L, q, direction)
    rec.update({"method": method, "bins": [
        {"left": dec(a), "right": dec(b), "left_exact": f"{a.numerator}/{a.denominator}",
         "right_exact": f"{b.numerator}/{b.denominator}",
         "mass": {"lower": dec(m["lower"], "floor"), "upper": dec(m["upper"], "ceiling")}}
        for a, b, m in zip(edges, edges[1:], masses)],
        "mass_below_first_edge": ivd(below), "mass_above_last_edge": ivd(above),
        "strategy": _label(dist), "seconds": round(seconds, 4)})
    if lam is not None:
        rec["lam"] = str(args.lam)
        rec["mass_beyond_lam"] = ivd(beyond)
    if args.plot:
        mids = [float((m["lower"] + m["upper"]) / 2) for m in masses]
        plot_law(edges, mids, args.plot, lam=lam, beyond=beyond, N=N, L=L, q=args.q,
                 direction=direction, exact=(method == "exact"))
        rec["plot"] = args.plot
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        print(f"law of R ({direction}, N={N}, L={L}, q={args.q}), {len(masses)} bins, "
              f"{'certified, ' + _label(dist) if method == 'exact' else 'fast'}; {seconds:.2f} s")
        width = max(float(m["upper"]) for m in masses) or 1.0
        for a, m in zip(edges, masses):
            bar = "#" * int(round(40 * float(m["upper"]) / width))
            print(f"  {float(a):10.5g}  {float(m['upper']):.4e}  {bar}")
        if lam is not None:
            if isinstance(beyond, Estimate):
                print(f"  P[R > {args.lam}] {'' if beyond.bound_only else '= '}{beyond}")
            else:
                d = beyond.to_dict(digits)
                print(f"  P[R > {args.lam}] in [{d['lower']}, {d['upper']}]  (certified)")
        if args.plot:
            print(f"  picture: {args.plot}")
    return 0


def _cmd_calibrate(args) -> int:
    if args.k is not None:
        return _cmd_k(args, "calibrate")
    from .calibrate import calibrate, calibrate_digits
    from . import heuristics as H
    N = domains.N.parse(args.N)
    L = domains.L.parse(args.L)
    digits = calibrate_digits(N, L, args.digits)
    grid = domains.GRID.parse(args.grid if args.grid is not None else "64")
    maxs = _max_seconds(args)
    prog = _Progress("calibrate scan", enabled=not (args.quiet or getattr(args, "json", False)))
    c = calibrate(N, L, lam=args.lam, eps=args.eps, eta=args.eta, delta=args.delta,
                  direction=args.direction, method=args.method, digits=digits, grid=grid,
                  max_seconds=maxs, progress=prog)
    prog.close()
    rec = c.to_dict(digits + 2)
    lam_h = H.lam_of(c.lam) if c.lam is not None else H.Lam(eps=c.eps)
    sig = H.sigma_dhat(N, c.q_used)
    q_loc = H.local_dp_q(L, lam_h)
    sig_loc = H.sigma_dhat(N, q_loc.upper)
    rec["utility"] = {
        "sigma_dhat": sig.to_dict(6),
        "sigma_dhat_local_dp": sig_loc.to_dict(6),
        "local_dp_q": q_loc.to_dict(8),
        "precision_gain_vs_local_dp": Interval(sig_loc.lower / sig.upper,
                                               sig_loc.upper / sig.lower).to_dict(5),
        "definition": "sigma(d_hat) = sqrt(N q p)/(p - q), 000 §4; gain = sigma_local/sigma"}
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        what = c.target_kind
        qs = (f"q in [{rec['q']['lower']}, {rec['q']['upper']}]" if c.method == "exact"
              else f"q = {rec['q']}")
        v = rec[what + "_at_q"]
        print(f"{c.method}: {qs}  ({c.direction}, N={N}, L={L}, "
              f"{'lam=' + str(c.lam) if c.lam is not None else 'eps=' + str(c.eps)}, "
              f"{what} <= {c.target})")
        print(f"  certified {what} at q = {rec['q_used']}: [{v['lower']}, {v['upper']}]"
              f"  meets target: {c.meets_target}")
        if c.q_safe is not None and c.q_safe != c.q:
            s_ = rec["q_safe"]
            print(f"  {what}(q) is not monotone: q_safe in [{s_['lower']}, {s_['upper']}] is the last "
                  f"down-crossing (every scanned q above it meets the target)")
        print(f"  sigma(d_hat)/sqrt(N) = {float(sig.mid) / math.sqrt(N):.4g}; local DP needs "
              f"q = {float(q_loc.mid):.4g} (gain x{float(sig_loc.mid / sig.mid):.3g})")
        if c.note:
            print(f"  note: {c.note}")
        print(f"  ({c.seconds:.1f} s)")
    return 0


def main(argv=None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input, 3 undecided).

    Output into a closed pipe (``exactdp ... | head -1``) ends quietly with
    exit code 0; an unwritable destination is a one-line error (exit 2).
    """
    try:
        rc = _main(argv)
        sys.stdout.flush()
        return rc
    except BrokenPipeError:
        # the reader went away: silence the rest of stdout (also the flush at exit)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
            pass
        return 0
    except OSError as e:
        where = f" '{e.filename}'" if getattr(e, "filename", None) else ""
        return _fail(f"cannot access{where}: {e.strerror or e}")


def _main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv and not argv[0].startswith("-") else None
    ap = build_parser(command if command is not None else "")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code) if e.code is not None else 0
    if getattr(args, "unavailable", None):
        return _fail(f"'{args.unavailable}' is not available in this installation")
    try:
        if getattr(args, "run", None) is not None:
            return args.run(args) or 0
        if args.cmd in ("eta", "delta"):
            return _cmd_eta_delta(args, args.cmd)
        if args.cmd == "epsilon":
            return _cmd_epsilon(args)
        if args.cmd == "dist":
            return _cmd_dist(args)
        if args.cmd == "calibrate":
            return _cmd_calibrate(args)
    except PrecisionError as e:  # reported, never guessed
        what = "digits not reached" if hasattr(e, "reached") else "undecided at working precision"
        print(f"exactdp: {what}: {e}", file=sys.stderr)
        return 3
    except (ValueError, TypeError, ExactdpError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        return _fail(msg)
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
