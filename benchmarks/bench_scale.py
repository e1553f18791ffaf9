"""Deployment-scale grid (issue 14): certified eta by the strategy `method="exact"` picks.

For each (N, L, q) at lambda = e^2 (or the given lam): the strategy, wall time, the
certified interval and its relative width, the tree's predicted node count, and a
seeded Monte Carlo estimate with its z-score against the interval's midpoint.
Each case runs in a child process with a time limit; a refusal or time-out is printed
as such.  Usage: python3 benchmarks/bench_scale.py [--mc SAMPLES] [--limit SECONDS]
"""

import argparse
import json
import multiprocessing as mp
import time

CASES = [  # (N, L, q, eps, digits); the L = 5 and 8 eps are about 3 sd of R above 1
    (10**7, 40, "0.30", 2, 3), (10**7, 40, "0.351", 2, 4), (10**7, 40, "0.40", 2, 3),
    (10**9, 64, "0.35", 2, 3), (10**6, 16, "1/4", 2, 3), (10**6, 8, "1/5", "0.3", 3),
    (10**6, 8, "0.2446", "0.15", 3),
    (10**5, 5, "0.2446", "0.08", 3), (10**6, 5, "0.2446", "0.025", 3),
    (10**7, 5, "0.2446", "0.008", 3), (10**9, 5, "0.2446", "0.0008", 3),
]


def run(case, out):
    from exactdp import from_randomized_response
    from exactdp.engine.capacity import estimate_nodes
    N, L, q, eps, digits = case
    d = from_randomized_response(N, L, q)
    t = time.perf_counter()
    try:
        iv = d.eta(eps=eps, digits=digits)
        out.put({"strategy": d.choose_method(), "seconds": round(time.perf_counter() - t, 2),
                 "lower": float(iv.lower), "upper": float(iv.upper),
                 "rel_width": iv.relative_width(),
                 "tree_nodes_predicted": estimate_nodes(d.mechanism, N)})
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        out.put({"error": f"{type(e).__name__}: {e}", "seconds": round(time.perf_counter() - t, 2)})


def mc(case, samples, seed=1):
    import numpy as np
    from exactdp.model.mechanism import Mechanism
    N, L, q, eps, _ = case
    r = Mechanism(L, q).sample_ratio(N, samples, rng=seed)
    from fractions import Fraction
    p = float((r > np.exp(float(Fraction(eps)))).mean())
    return p, (p * (1 - p) / samples) ** 0.5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mc", type=int, default=200_000)
    ap.add_argument("--limit", type=float, default=120)
    a = ap.parse_args()
    for case in CASES:
        q = mp.Queue()
        p = mp.Process(target=run, args=(case, q))
        p.start()
        p.join(a.limit)
        if p.is_alive():
            p.kill()
            rec = {"error": f"time-out after {a.limit} s"}
        else:
            rec = q.get()
        rec.update(dict(zip(("N", "L", "q", "eps", "digits"), case)))
        if "lower" in rec and a.mc:
            m, se = mc(case, a.mc)
            mid = (rec["lower"] + rec["upper"]) / 2
            rec.update({"mc": m, "mc_se": se, "z": (m - mid) / se if se > 0 else None})
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
