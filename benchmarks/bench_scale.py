"""Deployment-scale grid (issue 14): certified eta (and delta) by the strategy `method="exact"`
picks, forward, reverse and worst (the larger of the two), over an N x L grid.

For each (N, L, q, eps) and direction: the strategy, wall time, the certified interval and its
relative width, the tree's predicted node count (exactdp.engine.capacity.estimate_nodes at the
query's threshold) and the actual cost (tree: nodes of the certified kernel; fourier: heavy
nodes and Fourier integrals of exactdp.engine.largen.split_sums, summed over its attempts), and a
seeded Monte Carlo estimate of eta with its z-score against the interval's midpoint.
Each case runs in a child process with a time limit; a refusal or time-out is printed as such,
with the peak RSS of the child.  Prints one JSON line per row, then a markdown table.

``--reverse``: the reverse direction's lower tail at deployment scale (issue 14's last gap),
eta and delta at the digits asked, with the strategy used (``tilted``: exactdp.engine.tilted),
time, relative width, load average and peak RSS, and a seeded importance-sampled (tilted) Monte
Carlo estimate of J = P[S < s] / (m(t)^N e^{ts}) with its z-score against the certified J.

``--far-forward``: the forward direction's far upper tail (below ~1e-250, L = 40, N = 10^7,
q = 0.41 ... 0.45; ``tilted`` as the lower tail of -S), the same columns, the Monte Carlo of the
forward function's J = E_Q[S e^{-t(S - s)}; S > s].

Usage: python3 benchmarks/bench_scale.py [--mc SAMPLES] [--limit SECONDS] [--delta] [--only L]
       python3 benchmarks/bench_scale.py --reverse [--mc SAMPLES] [--limit SECONDS]
       python3 benchmarks/bench_scale.py --far-forward [--mc SAMPLES] [--limit SECONDS]
"""

import argparse
import json
import math
import multiprocessing as mp
import time
from fractions import Fraction

CASES = [  # (N, L, q, eps, digits); the L = 5 and 8 eps are about 3 sd of R above 1
    (10**7, 40, "0.30", 2, 3), (10**7, 40, "0.351", 2, 3), (10**7, 40, "0.40", 2, 3),
    (10**9, 64, "0.35", 2, 3), (10**6, 16, "1/4", 2, 3),
    (10**6, 8, "1/5", "0.3", 3), (10**6, 8, "0.2446", "0.15", 3),
    (10**5, 5, "0.2446", "0.08", 6), (10**6, 5, "0.2446", "0.025", 6),
    (10**7, 5, "0.2446", "0.008", 6), (10**8, 5, "0.2446", "0.0025", 6),
    (10**9, 5, "0.2446", "0.0008", 6),
]


def isolated(target, args, limit):
    """``target(*args, queue)`` in a fresh process (its own peak RSS, no shared cache), killed
    after ``limit`` seconds: the record it put on the queue, or a time-out record."""
    qu = mp.Queue()
    p = mp.Process(target=target, args=(*args, qu))
    p.start()
    p.join(limit)
    if p.is_alive():
        p.kill()
        return {"error": f"time-out after {limit} s"}
    return qu.get()


def timed_query(d, quantity, eps, digits, rec, summary):
    """``d.<quantity>(eps=eps, digits=digits)`` into ``rec``: ``seconds`` and ``summary(iv)``
    of the enclosure (the reached one, flagged ``digits_not_met``, when the digits are not
    met), or ``error`` and ``seconds`` when it (or the summary) raises."""
    from exactdp.core.errors import DigitsNotMetError
    t = time.perf_counter()
    try:
        try:
            iv = getattr(d, quantity)(eps=eps, digits=digits)
        except DigitsNotMetError as e:
            iv = e.reached
            rec["digits_not_met"] = True
        rec.update({"seconds": round(time.perf_counter() - t, 2), **summary(iv)})
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        rec.update({"error": f"{type(e).__name__}: {str(e)[:200]}",
                    "seconds": round(time.perf_counter() - t, 2)})


def run(case, direction, quantity, out):
    import resource
    import exactdp.engine.largen as LG
    import exactdp.law.distribution as D
    from exactdp import from_randomized_response
    from exactdp.engine.capacity import estimate_nodes
    cost = {"heavy_nodes": 0, "integrals": 0, "tree_nodes": 0}
    orig_split, orig_tree = LG.split_sums, D.tail_sums

    def split(*a, **kw):
        r = orig_split(*a, **kw)
        cost["heavy_nodes"] += r.nodes
        cost["integrals"] += r.integrals
        return r

    def tree(*a, **kw):
        r = orig_tree(*a, **kw)
        cost["tree_nodes"] += r.nodes
        return r
    LG.split_sums, D.tail_sums = split, tree
    N, L, q, eps, digits = case
    d = from_randomized_response(N, L, q, direction)
    rec = {}
    one = d.forward if direction == "worst" else d
    lam = math.exp(float(Fraction(eps)))
    s = lam * N if direction != "reverse" else N / lam
    rec["tree_nodes_predicted"] = estimate_nodes(one.mechanism, N, s=s)
    rec["strategy"] = one.choose_method()
    timed_query(d, quantity, eps, digits, rec,
                lambda iv: {"lower": float(iv.lower), "upper": float(iv.upper),
                            "rel_width": iv.relative_width()})
    rec.update(cost)
    rec["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out.put(rec)


def mc(case, direction, samples, seed=1):
    import numpy as np
    from exactdp.model.mechanism import Mechanism
    N, L, q, eps, _ = case
    m = Mechanism(L, q)
    lam = np.exp(float(Fraction(eps)))
    ps = {}
    for dr in ("forward", "reverse"):
        if direction in (dr, "worst"):
            r = m.sample_ratio(N, samples, dr, rng=seed)
            p = float((r > lam).mean())
            ps[dr] = (p, math.sqrt(max(p * (1 - p), 1e-300) / samples))
    return max(ps.values())


FAR_FORWARD_CASES = [  # (N, L, q, eps, digits): the forward direction's far tail at lam = e^eps
    (10**7, 40, "0.41", 2, 3), (10**7, 40, "0.415", 2, 3), (10**7, 40, "0.42", 2, 3),
    (10**7, 40, "0.43", 2, 3), (10**7, 40, "0.45", 2, 3), (10**7, 40, "0.42", 2, 6),
    (10**9, 64, "0.40", 2, 3), (10**9, 64, "0.45", 2, 3),
]

REVERSE_CASES = [  # (N, L, q, eps, digits): the reverse direction at lam = e^eps
    (10**7, 40, "0.30", 2, 4), (10**7, 40, "0.351", 2, 4), (10**7, 40, "0.40", 2, 4),
    (10**9, 64, "0.35", 2, 4), (10**6, 16, "0.351", 2, 4), (10**6, 16, "1/4", 2, 4),
    (10**6, 8, "0.351", 2, 4), (10**5, 5, "0.2", 2, 4), (10**5, 5, "0.2446", 2, 4),
]


def run_reverse(case, quantity, direction, out):
    import os
    import resource
    from exactdp import from_randomized_response
    N, L, q, eps, digits = case
    d = from_randomized_response(N, L, q, direction)
    rec = {"load": os.getloadavg()[0]}

    def summary(iv):
        sh = iv.to_dict(digits + 1)
        return {"lower": sh["lower"], "upper": sh["upper"],
                "rel_width": iv.relative_width() if iv.upper > 0 else None}
    timed_query(d, quantity, eps, digits, rec, summary)
    rec["strategy"] = "tilted" if ("tilted used",) in d.cache else d.choose_method()
    rec["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out.put(rec)


def mc_tilted(case, samples, seed=20261126, upper=False):
    """Importance sampling under the tilted law: J = E_Q[e^{t(S-s)} 1{S<s}] (``upper``: the
    forward function's E_Q[S e^{-t(S-s)} 1{S>s}]) against the certified J of
    exactdp.engine.tilted (z-score)."""
    import numpy as np
    from flint import arb
    from exactdp.engine.tilted import prefactor, saddle_point, tilted_sums
    from exactdp.model.mechanism import Mechanism
    N, L, q, eps, _ = case
    m = Mechanism(L, q)
    s = arb(float(Fraction(eps))).exp()          # the cases' eps are exact in binary
    s = s if upper else 1 / s
    t = saddle_point(m, N, s, upper=upper)
    _, cats, probs, w = prefactor(m, N, s, t, upper=upper)
    pr = np.array([float(p) for p in probs])
    T = np.random.default_rng(seed).multinomial(N, pr / pr.sum(), size=samples)
    S = T @ np.array([float(x) for x in w])      # -S for the upper tail (prefactor's weights)
    if upper:
        Y = -S - float(s)
        h = -S * np.exp(-t * np.maximum(Y, 0)) * (Y > 0)
    else:
        Y = S - float(s)
        h = np.exp(t * np.minimum(Y, 0)) * (Y < 0)
    J = float(tilted_sums(m, N, s, rel=1e-6, upper=upper, forward=upper).J.mid)
    se = h.std() / math.sqrt(samples)
    return float(h.mean()), float(se), J, (float(h.mean()) - J) / se if se > 0 else None


def reverse_main(a, direction="reverse"):
    rows = []
    for case in (REVERSE_CASES if direction == "reverse" else FAR_FORWARD_CASES):
        for quantity in ("eta", "delta"):
            rec = isolated(run_reverse, (case, quantity, direction), a.limit)
            rec.update(dict(zip(("N", "L", "q", "eps", "digits"), case)))
            rec["quantity"] = quantity
            if quantity == "eta" and a.mc and rec.get("strategy") == "tilted":
                est, se, J, z = mc_tilted(case, min(a.mc, 40_000), upper=direction == "forward")
                rec.update({"mc_J": est, "mc_se": se, "J": J, "z": z})
            print(json.dumps(rec), flush=True)
            rows.append(rec)
    reverse_table(rows)


def reverse_table(rows):
    """The markdown table of the reverse rows."""
    print("\n| N | L | q | eps | quantity | strategy | certified | rel. width | time | load | "
          "peak RSS | tilted MC of J (z) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "lower" in r:
            val = f"[{r['lower']}, {r['upper']}]"
            rw = fmt(r["rel_width"]) if r.get("rel_width") is not None else "upper bound"
        else:
            val, rw = r.get("error", "?")[:60], "-"
        z = f"{r['mc_J']:.4g} vs {r['J']:.4g} ({r['z']:+.2f})" if r.get("z") is not None else "-"
        print(f"| {fmt(r['N'])} | {r['L']} | {r['q']} | {r['eps']} | {r['quantity']} | "
              f"{r.get('strategy', '-')} | {val} | {rw} | {r.get('seconds', '-')} s | "
              f"{r.get('load', 0):.1f} | {r.get('peak_rss_mb', '-')} MB | {z} |")


def fmt(x):
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    return f"{x / 10**e:.2g}e{e}" if abs(e) > 3 else f"{x:.4g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mc", type=int, default=200_000)
    ap.add_argument("--limit", type=float, default=300)
    ap.add_argument("--delta", action="store_true", help="delta as well as eta")
    ap.add_argument("--only", type=int, help="only the cases with this L")
    ap.add_argument("--directions", default="forward,reverse,worst")
    ap.add_argument("--table", help="only print the markdown table of a file of JSON rows")
    ap.add_argument("--reverse", action="store_true",
                    help="the reverse direction's lower tail at deployment scale (tilted)")
    ap.add_argument("--far-forward", action="store_true",
                    help="the forward direction's far upper tail at deployment scale (tilted)")
    a = ap.parse_args()
    if a.reverse or a.far_forward:
        reverse_main(a, "reverse" if a.reverse else "forward")
        return
    if a.table:
        with open(a.table) as f:
            table([json.loads(x) for x in f if x.startswith('{"')])
        return
    rows = []
    for case in CASES:
        if a.only is not None and case[1] != a.only:
            continue
        for quantity in (("eta", "delta") if a.delta else ("eta",)):
            for direction in a.directions.split(","):
                rec = isolated(run, (case, direction, quantity), a.limit)
                rec.update(dict(zip(("N", "L", "q", "eps", "digits"), case)))
                rec.update({"direction": direction, "quantity": quantity})
                if "lower" in rec and a.mc and quantity == "eta":
                    m, se = mc(case, direction, a.mc)
                    mid = (rec["lower"] + rec["upper"]) / 2
                    rec.update({"mc": m, "mc_se": se, "mc_samples": a.mc,
                                "z": (m - mid) / se if m > 0 else None})
                print(json.dumps(rec), flush=True)
                rows.append(rec)
    table(rows)


def table(rows):
    """The markdown table of the JSON rows."""
    print("\n| N | L | q | eps | quantity | direction | method | time | certified | rel. width | "
          "tree nodes predicted | actual cost | MC (z) | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "lower" in r:
            val = f"[{fmt(r['lower'])}, {fmt(r['upper'])}]"
            rw = "upper bound" if r["lower"] == 0 else fmt(r["rel_width"])
        else:
            val, rw = r.get("error", "?")[:60], "-"
        cost = (f"{r.get('heavy_nodes', 0)} heavy nodes, {r.get('integrals', 0)} integrals"
                if r.get("strategy") == "fourier" else f"{r.get('tree_nodes', 0)} nodes")
        if r.get("mc") == 0 and r.get("upper", 1) < 3 / r.get("mc_samples", 200_000):
            z = "0 (no hit; consistent)"
        else:
            z = f"{fmt(r['mc'])} ({r['z']:+.2f})" if r.get("z") is not None else "-"
        print(f"| {fmt(r['N'])} | {r['L']} | {r['q']} | {r['eps']} | {r['quantity']} | "
              f"{r['direction']} | {r.get('strategy', '-')} | {r.get('seconds', '-')} s | {val} | "
              f"{rw} | {fmt(r.get('tree_nodes_predicted', 0))} | {cost} | {z} | "
              f"{r.get('peak_rss_mb', '-')} MB |")


if __name__ == "__main__":
    main()
