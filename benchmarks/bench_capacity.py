"""Capacity predictor vs measured tree size (issue 14): exactdp.engine.capacity.estimate_nodes
(at tol = 1e-16) against the node count of the certified tree (exactdp.engine.kernel.tail_sums
at tol = 1e-16), both directions (forward: the threshold on Z under D_m's change of
measure; reverse: R = N/X), lambda = 1 + 2 sd(R) (the threshold where the tree is widest
among typical queries).  Prints one JSON line per case and the max ratio.

Usage: python3 benchmarks/bench_capacity.py [--limit NODES]
"""

import argparse
import json
import math
import time

GRID = [(N, L, q) for L, qs, Ns in (
    (2, ("1/4", "0.1"), (100, 1000, 10000)),
    (3, ("1/4", "0.1"), (100, 1000, 10000)),
    (4, ("1/4", "0.2446"), (100, 1000, 3000)),
    (5, ("1/4", "0.2446"), (100, 300, 1000)),
    (6, ("1/4",), (100, 300)),
    (8, ("1/4", "0.35"), (50, 100)),
) for q in qs for N in Ns]


def main():
    from exactdp import from_randomized_response
    from exactdp.engine.capacity import estimate_nodes
    from exactdp.engine.kernel import tail_sums
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=2e6, help="skip cases predicted above this")
    a = ap.parse_args()
    worst = 1.0
    for N, L, q in GRID:
        for direction in ("forward", "reverse"):
            d = from_randomized_response(N, L, q, direction)
            pred = estimate_nodes(d.mechanism, N)
            if pred > a.limit:
                print(json.dumps({"N": N, "L": L, "q": q, "direction": direction,
                                  "predicted": pred, "skipped": True}), flush=True)
                continue
            sd = math.sqrt(float(d.var())) if direction == "forward" else \
                math.sqrt(float(d.var_inverse()))
            lam = 1 + 2 * sd
            from fractions import Fraction
            thr = d._threshold(Fraction(lam).limit_denominator(10**6), None, 128)
            t = time.perf_counter()
            ts = tail_sums(d.mechanism, N, thr, prec=128, tol=1e-16)
            sec = time.perf_counter() - t
            ratio = max(pred / max(ts.nodes, 1), max(ts.nodes, 1) / pred)
            worst = max(worst, ratio)
            print(json.dumps({"N": N, "L": L, "q": q, "direction": direction, "lam": round(lam, 5),
                              "predicted": round(pred), "actual": ts.nodes,
                              "ratio": round(pred / max(ts.nodes, 1), 3),
                              "seconds": round(sec, 3)}), flush=True)
    print(json.dumps({"max_ratio_either_way": round(worst, 3)}))


if __name__ == "__main__":
    main()
