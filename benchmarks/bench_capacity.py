"""Capacity predictor vs measured tree size (issue 14): exactdp.engine.capacity.estimate_nodes
(Knuth's estimator, tol = 1e-16, at the query's own threshold) against the node count of the
certified tree (exactdp.engine.kernel.tail_sums at tol = 1e-16), both directions (forward: the
threshold on Z under D_m's change of measure; reverse: R = N/X), at lambda = 1 + 2 sd(R) (where
the tree is widest among typical queries) and lambda = e^2.  Prints one JSON line per case, then
the largest ratio either way.  Cases predicted above --limit are skipped (reported as such).

Usage: python3 benchmarks/bench_capacity.py [--limit NODES] [--quick]
"""

import argparse
import json
import math
import time
from fractions import Fraction

GRID = [(N, L, q) for L, qs, Ns in (
    (2, ("1/4", "0.1"), (100, 1000, 10000)),
    (3, ("1/4", "0.1"), (100, 1000, 10000)),
    (4, ("1/4", "0.2446"), (100, 1000, 3000)),
    (5, ("1/4", "0.2446"), (100, 300, 1000, 3000)),
    (6, ("1/4",), (100, 300, 1000)),
    (8, ("1/4", "0.35"), (50, 100, 300)),
    (16, ("1/4", "0.3"), (100, 1000)),
    (40, ("0.351",), (43, 300)),
) for q in qs for N in Ns]
QUICK = [(1000, 3, "1/4"), (1000, 4, "1/4"), (300, 5, "0.2446"), (300, 6, "1/4"), (100, 8, "1/4")]


def cases(quick=False):
    """(N, L, q, direction, lam name) of the grid."""
    for N, L, q in (QUICK if quick else GRID):
        for direction in ("forward", "reverse"):
            for lam in ("1+2sd", "e^2"):
                yield N, L, q, direction, lam


def measure(N, L, q, direction, lam_name, limit=2e6):
    """One record: predicted and actual node counts (actual only when predicted <= limit)."""
    from exactdp import from_randomized_response
    from exactdp.engine.capacity import estimate_nodes
    from exactdp.engine.kernel import tail_sums
    d = from_randomized_response(N, L, q, direction)
    if lam_name == "e^2":
        lam = math.exp(2)
    else:
        sd = math.sqrt(float(d.var() if direction == "forward" else d.var_inverse()))
        lam = 1 + 2 * sd
    s = lam * N if direction == "forward" else N / lam
    rec = {"N": N, "L": L, "q": q, "direction": direction, "lam": round(lam, 5)}
    t = time.perf_counter()
    pred = estimate_nodes(d.mechanism, N, 1e-16, s=s)
    rec["predict_seconds"] = round(time.perf_counter() - t, 3)
    rec["predicted"] = pred
    if pred > limit:
        rec["skipped"] = True
        return rec
    thr = d._threshold(Fraction(lam).limit_denominator(10**6), None, 128)
    t = time.perf_counter()
    ts = tail_sums(d.mechanism, N, thr, prec=128, tol=1e-16)
    rec.update({"actual": ts.nodes, "ratio": round(pred / max(ts.nodes, 1), 3),
                "seconds": round(time.perf_counter() - t, 3)})
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=2e6, help="skip cases predicted above this")
    ap.add_argument("--quick", action="store_true", help="a few small cases only")
    a = ap.parse_args()
    worst = 1.0
    for case in cases(a.quick):
        rec = measure(*case, limit=a.limit)
        if "actual" in rec:
            r = rec["ratio"]
            worst = max(worst, r, 1 / r)
        print(json.dumps(rec), flush=True)
    print(json.dumps({"max_ratio_either_way": round(worst, 3)}))


if __name__ == "__main__":
    main()
