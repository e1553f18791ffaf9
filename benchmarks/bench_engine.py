"""Benchmark of the engine (issue 2): prints one JSON object.

    python benchmarks/bench_engine.py [--quick] [--out FILE]

For the six settings of 000 §3.3 (L=5; N in {1000, 3000, 5000}; lambda in
{2, e^2}; q as printed): the certified eta at 30 digits and its wall time,
the fast-mode eta and time, and a 10^6-sample Monte Carlo estimate with its
wall time, all measured in this run (fast and Monte Carlo: best of 3 runs,
caches cleared before each; the first fast call of a process also pays numpy's
first-touch allocations, ~50 ms; the certified run: one cold run).  Then the larger cases (N=20000, L=5,
q=0.15 and N=2000, L=8, q=0.2 at lambda=2), eps(delta=1e-6, worst) at a §3.3
setting and for L=1, N=10^5, and how the cost grows with N and L.
Not a test: numbers depend on the machine.

    python benchmarks/bench_engine.py --processes [--repeats 2] [--out FILE]

(issue 16) first, in this process: the certified 30-digit query on fresh objects against
a 10^6-sample Monte Carlo of the same quantity (eta and delta, forward and reverse, N = 1000
and 5000), printed as one markdown table (``--inprocess`` alone: only that table; ``--cpu``: CPU time of the calling thread instead
of wall time for both sides, on a loaded machine); then
whole processes, back to back: for N = 1000 and 5000 (L = 5, lambda = 2)
and each of eta forward, delta forward, eta reverse, delta reverse, the certified
30-digit CLI query with the compiled kernel ("after") and with it disabled
(``EXACTDP_NO_CKERNEL=1``: the python-flint kernel and the numpy fast tree, "before"),
the ``--fast`` query (after / before) and a 10^6-sample numpy Monte Carlo process of
the same quantity; peak RSS of each process; ``exactdp --version``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from fractions import Fraction

import numpy as np

from exactdp import from_randomized_response
from exactdp.engine.capacity import estimate_nodes
from exactdp.engine.kernel import Threshold, tail_sums

SETTINGS = [(1000, "0.2446", "2"), (3000, "0.2109", "2"), (5000, "0.1778", "2"),
            (1000, "0.1692", "e2"), (3000, "0.1424", "e2"), (5000, "0.1310", "e2")]


def lam_kw(lam):
    return {"eps": 2} if lam == "e2" else {"lam": Fraction(lam)}


#: the clock of ``timed``: wall time, or with ``--cpu`` this thread's CPU time (the
#: certified walk and the Monte Carlo both run in the calling thread), which does not count
#: the time spent waiting for a core on a shared machine
CLOCK = time.perf_counter


def timed(fn):
    t = CLOCK()
    r = fn()
    return r, CLOCK() - t


def best_of(fn, repeats=3, reset=None):
    """Result and the best wall time of ``repeats`` runs (caches reset before each)."""
    best = None
    for _ in range(repeats):
        if reset is not None:
            reset()
        r, t = timed(fn)
        best = t if best is None else min(best, t)
    return r, best


def monte_carlo(d, lam, samples, seed=12345):
    lam_f = math.exp(2) if lam == "e2" else float(Fraction(lam))
    r = d.mechanism.sample_ratio(d.N, samples, "forward", rng=seed)
    p = float((r > lam_f).mean())
    return p, math.sqrt(max(p * (1 - p), 1e-300) / samples)


MC_CODE = """
import sys
from fractions import Fraction
from exactdp import from_randomized_response
N, q, direction, what = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
d = from_randomized_response(N, 5, q, direction)
r = d.mechanism.sample_ratio(N, 10**6, direction, rng=12345)
v = (r > 2).mean() if what == "eta" else (1 - 2 / r).clip(0).mean()
print(float(v))
"""


def run_process(argv, env_extra=None):
    """Wall time and peak RSS (MB) of one process.  The RSS comes from ``/usr/bin/time``
    (a small parent: a child forked from this grown benchmark process would report
    the benchmark's own size); 0 without it."""
    import os
    import shutil
    import subprocess
    env = dict(os.environ, **(env_extra or {}))
    gtime = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    pre = [gtime, "-f", "MAXRSS %M"] if gtime else []
    t = time.perf_counter()
    r = subprocess.run(pre + argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{argv} failed: {r.stderr[-500:]}")
    rss = [int(x.split()[1]) for x in r.stderr.splitlines() if x.startswith("MAXRSS ")]
    return wall, (rss[-1] / 1024 if rss else 0.0), r.stdout.strip()


def processes(repeats):
    """Issue 16: certified / fast / Monte Carlo as whole processes, before and after."""
    py = sys.executable
    before = {"EXACTDP_NO_CKERNEL": "1"}
    rows = []
    ver = [min(run_process([py, "-m", "exactdp", "--version"], e)[0] for _ in range(repeats))
           for e in (None, before)]
    rows.append({"what": "exactdp --version", "after_s": round(ver[0], 3), "before_s": round(ver[1], 3)})
    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    for N, q in [(1000, "0.2446"), (5000, "0.1778")]:
        for direction in ("forward", "reverse"):
            for what in ("eta", "delta"):
                cli = [py, "-m", "exactdp", what, "-N", str(N), "-L", "5", "-q", q, "--lam", "2",
                       "--direction", direction, "--quiet"]
                rec = {"N": N, "q": q, "direction": direction, "query": what}
                best = {}
                for name, argv, env in [("mc", [py, "-c", MC_CODE, str(N), q, direction, what], None),
                                        ("cert_after", cli + ["--digits", "30"], None),
                                        ("fast_after", cli + ["--fast"], None),
                                        ("fast_before", cli + ["--fast"], before),
                                        ("cert_before", cli + ["--digits", "30"], before)]:
                    reps = 1 if name == "cert_before" else repeats
                    res = [run_process(argv, env) for _ in range(reps)]
                    best[name] = min(res)
                    rec[name + "_s"] = round(best[name][0], 3)
                    rec[name + "_MB"] = round(max(r[1] for r in res))
                    if name in ("mc", "cert_after"):
                        rec[name + "_value"] = best[name][2][:60]
                mc = best["mc"][0]
                for name in ("cert_after", "cert_before", "fast_after", "fast_before"):
                    rec[name + "_over_mc"] = round(best[name][0] / mc, 2)
                rows.append(rec)
                print(json.dumps(rec), file=sys.stderr, flush=True)
    return rows


def inprocess(repeats):
    """Issue 16: in one process, the certified 30-digit query on a fresh object (the law
    layer's work included: magnitude run, threshold, kernel) against a 10^6-sample Monte
    Carlo of the same quantity, for eta and delta, forward and reverse, N = 1000 and 5000
    (L = 5, lambda = 2).  ``first``: the first certified query of its kind in the process;
    ``best``: the best of ``repeats`` fresh objects (the compiled kernel keeps its row
    memory between walks, so later runs do not fault it in); Monte Carlo: best of
    ``repeats``."""
    rows = []
    # the modules a certified query imports lazily, imported first (numpy is already in)
    for direction in ("forward", "reverse"):
        w = from_randomized_response(50, 5, "0.2446", direction)
        w.eta(lam=2, digits=30), w.delta(lam=2, digits=30)
    for N, q in [(1000, "0.2446"), (5000, "0.1778")]:
        for direction in ("forward", "reverse"):
            for what in ("eta", "delta"):
                times, d = [], None
                for _ in range(max(1, repeats)):
                    d = from_randomized_response(N, 5, q, direction)
                    fn = d.eta if what == "eta" else d.delta
                    times.append(timed(lambda: fn(lam=2, digits=30))[1])
                memo = d.cache
                ts = [v for k, v in memo.entries.items() if k[0] == "exact"]
                fast = [v for k, v in memo.entries.items() if k[0] == "fast"]
                rng_d = from_randomized_response(N, 5, q, direction)

                def mc_in():
                    r = rng_d.mechanism.sample_ratio(N, 10**6, direction, rng=12345)
                    return (r > 2).mean() if what == "eta" else (1 - 2 / r).clip(0).mean()

                _, t_mc = best_of(mc_in, repeats)
                rec = {"N": N, "direction": direction, "query": what,
                       "cert_first_s": round(times[0], 4), "cert_best_s": round(min(times), 4),
                       "mc_s": round(t_mc, 4), "ratio_first": round(times[0] / t_mc, 3),
                       "ratio_best": round(min(times) / t_mc, 3),
                       "kernel": [{"engine": t.engine, "nodes": t.nodes, "leaves": t.leaves,
                                   "seconds": round(t.seconds, 4),
                                   "us_per_node": round(1e6 * t.seconds / max(t.nodes, 1), 3)} for t in ts],
                       "magnitude_run": [{"tol": f.tol, "nodes": f.nodes, "seconds": round(f.seconds, 4)}
                                         for f in fast]}
                rows.append(rec)
                print(json.dumps(rec), file=sys.stderr, flush=True)
    return rows


def inprocess_table(rows) -> str:
    """The in-process rows as a markdown table."""
    out = ["| N | direction | query | certified 30 digits, first (s) | best (s) | MC 10^6 (s) "
           "| first / MC | best / MC | kernel nodes | us / node |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        k = r["kernel"][-1] if r["kernel"] else {"nodes": 0, "us_per_node": 0}
        out.append(f"| {r['N']} | {r['direction']} | {r['query']} | {r['cert_first_s']:.3f} | "
                   f"{r['cert_best_s']:.3f} | {r['mc_s']:.3f} | {r['ratio_first']:.3f} | "
                   f"{r['ratio_best']:.3f} | {k['nodes']} | {k['us_per_node']:.2f} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the larger cases and growth")
    ap.add_argument("--out")
    ap.add_argument("--processes", action="store_true", help="issue 16: whole processes, before/after")
    ap.add_argument("--inprocess", action="store_true",
                    help="issue 16: only the in-process table (certified / Monte Carlo)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--cpu", action="store_true",
                    help="in-process table in CPU time (time.thread_time) for both sides")
    args = ap.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = time.thread_time
    if args.processes or args.inprocess:
        import os
        load = os.getloadavg()
        # the in-process table first (this process is still small), then the processes
        inproc = inprocess(max(args.repeats, 3))
        load_mid = os.getloadavg()
        res = {"machine": {"python": sys.version.split()[0], "platform": platform.platform(),
                           "load_before": load, "load_after_inprocess": load_mid},
               "inprocess": inproc}
        if args.processes:
            res["processes"] = processes(args.repeats)
        res["load_after"] = os.getloadavg()
        s = json.dumps(res, indent=2, default=str)
        if args.out:
            with open(args.out, "w") as f:
                f.write(s + "\n")
        print(s)
        print("\n" + inprocess_table(inproc), file=sys.stderr)
        return
    out = {"machine": {"python": sys.version.split()[0], "platform": platform.platform(),
                       "numpy": np.__version__}, "section_3_3": [], "larger": [], "epsilon": [],
           "growth": []}
    for N, q, lam in SETTINGS:
        d = from_randomized_response(N, 5, q, "forward")
        kw = lam_kw(lam)
        ex, t_ex = timed(lambda: d.eta(**kw, digits=30))
        fa, t_fa = best_of(lambda: d.eta(**kw, method="fast"), reset=d._cache.clear)
        (mc, mc_se), t_mc = best_of(lambda: monte_carlo(d, lam, 10**6))
        rec = {"N": N, "L": 5, "q": q, "lam": "e^2" if lam == "e2" else lam,
               "eta_exact": ex.to_dict(32), "digits": ex.correct_digits(),
               "exact_seconds": round(t_ex, 3),
               "eta_fast": fa.value, "fast_error_bound": fa.error, "fast_seconds": round(t_fa, 4),
               "fast_within_bound": abs(Fraction(fa.value) - ex.mid) <= Fraction(fa.error),
               "mc_eta": mc, "mc_stderr": mc_se, "mc_seconds": round(t_mc, 3),
               "fast_speedup_vs_mc": round(t_mc / t_fa, 1),
               "exact_time_over_mc": round(t_ex / t_mc, 2)}
        out["section_3_3"].append(rec)
        print(json.dumps(rec), file=sys.stderr, flush=True)
    if not args.quick:
        for N, L, q in [(20000, 5, "0.15"), (2000, 8, "0.2")]:
            d = from_randomized_response(N, L, q, "forward")
            ex, t = timed(lambda: d.eta(lam=2, digits=14))
            fa, tf = timed(lambda: d.eta(lam=2, method="fast"))
            rec = {"N": N, "L": L, "q": q, "lam": "2", "eta_exact": ex.to_dict(20),
                   "width": float(ex.width), "digits": ex.correct_digits(),
                   "exact_seconds": round(t, 2), "eta_fast": fa.value,
                   "fast_seconds": round(tf, 3)}
            out["larger"].append(rec)
            print(json.dumps(rec), file=sys.stderr, flush=True)
        for N, L, q in [(1000, 5, "0.2446"), (100000, 1, "1/4"), (100000, 1, "0.1")]:
            d = from_randomized_response(N, L, q, "worst")
            e, t = timed(lambda: d.epsilon(delta=Fraction(1, 10**6), digits=10))
            rec = {"N": N, "L": L, "q": q, "direction": "worst", "delta": "1e-6",
                   "eps": e.to_dict(12), "digits": e.correct_digits(), "seconds": round(t, 2)}
            out["epsilon"].append(rec)
            print(json.dumps(rec), file=sys.stderr, flush=True)
        # growth of the cost with N and L (q fixed, lam = 2, tol 1e-30, 110 bits)
        for L, Ns in [(3, [1000, 4000, 16000, 64000]), (5, [500, 1000, 2000, 4000, 8000]),
                      (7, [250, 500, 1000, 2000])]:
            from exactdp.model.mechanism import Mechanism
            m = Mechanism(L, "0.2")
            for N in Ns:
                thr = Threshold.from_fraction(Fraction(2 * N * m.scale), 110)
                ts, t = timed(lambda: tail_sums(m, N, thr, prec=110, tol=1e-30))
                rec = {"L": L, "N": N, "q": "0.2", "nodes": ts.nodes, "leaves": ts.leaves,
                       "estimate_nodes": round(estimate_nodes(m, N)), "seconds": round(t, 3),
                       "engine": ts.engine, "us_per_node": round(1e6 * t / max(ts.nodes, 1), 2)}
                out["growth"].append(rec)
                print(json.dumps(rec), file=sys.stderr, flush=True)
    s = json.dumps(out, indent=2, default=str)
    if args.out:
        with open(args.out, "w") as f:
            f.write(s + "\n")
    print(s)


if __name__ == "__main__":
    main()
