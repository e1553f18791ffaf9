"""Capacity predictor vs measured tree size (issue 14): exactdp.engine.capacity.estimate_nodes
(Chen's stratified sampling, tol = 1e-16, at the query's own threshold) against the node count of the
certified tree (exactdp.engine.kernel.tail_sums at tol = 1e-16), both directions (forward: the
threshold on Z under D_m's change of measure; reverse: R = N/X), at lambda = 1 + 2 sd(R) (where
the tree is widest among typical queries at small L), lambda = e^2 and lambda = 1.1 (near 1: the
widest at L = 16).  Prints one JSON line per case (with the coarse pass's prediction, the one
`within=` shortcuts use, and both passes' cost), then a summary.

Every case predicted at or below --limit is measured, whatever its prediction (the kernel stops
at --max-nodes, the routing limit MAX_NODES by default: such a case is checked one-sided, the
prediction must then be above max-nodes / 3).  Above --limit (3 * max-nodes by default) a case is
skipped: even a kernel run to its end could not confirm the ratio.  (Skipping on the prediction
alone at a low limit hides over-predictions: a tree predicted 5x too large is never measured.)

Usage: python3 benchmarks/bench_capacity.py [--limit NODES] [--max-nodes NODES] [--quick]
           [--only L] [--lam NAME]
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
    (16, ("1/4", "0.3"), (100, 300, 1000)),
    (40, ("0.351",), (43, 300)),
) for q in qs for N in Ns]
QUICK = [(1000, 3, "1/4"), (1000, 4, "1/4"), (300, 5, "0.2446"), (300, 6, "1/4"), (100, 8, "1/4")]


LAMS = ("1+2sd", "e^2", "1.1")


def cases(quick=False, only=None, lams=LAMS):
    """(N, L, q, direction, lam name) of the grid."""
    for N, L, q in (QUICK if quick else GRID):
        if only is not None and L != only:
            continue
        for direction in ("forward", "reverse"):
            for lam in lams:
                yield N, L, q, direction, lam


def measure(N, L, q, direction, lam_name, limit=1.5e8, max_nodes=5e7):
    """One record: predicted (full and coarse pass) and actual node counts (actual only
    when predicted <= limit; the kernel stops past max_nodes: then ``actual_over``)."""
    from exactdp import from_randomized_response
    from exactdp.core.errors import CapacityError
    from exactdp.engine import capacity
    from exactdp.engine.kernel import tail_sums
    estimate_nodes = capacity.estimate_nodes
    d = from_randomized_response(N, L, q, direction)
    if lam_name == "e^2":
        lam = math.exp(2)
    elif lam_name == "1.1":
        lam = 1.1
    else:
        sd = math.sqrt(float(d.var() if direction == "forward" else d.var_inverse()))
        lam = 1 + 2 * sd
    s = lam * N if direction == "forward" else N / lam
    rec = {"N": N, "L": L, "q": q, "direction": direction, "lam": round(lam, 5)}
    capacity.clear_cache()                 # cold: the cost of a first query
    t = time.perf_counter()
    coarse = estimate_nodes(d.mechanism, N, 1e-16, s=s, within=math.inf)
    rec["coarse_seconds"] = round(time.perf_counter() - t, 4)
    t = time.perf_counter()
    pred = estimate_nodes(d.mechanism, N, 1e-16, s=s)
    rec["predict_seconds"] = round(time.perf_counter() - t, 4)
    rec["predicted"], rec["coarse"] = pred, coarse
    if pred > limit:
        rec["skipped"] = True
        return rec
    thr = d._threshold(Fraction(lam).limit_denominator(10**6), None, 128)
    t = time.perf_counter()
    try:
        ts = tail_sums(d.mechanism, N, thr, prec=128, tol=1e-16, max_nodes=int(max_nodes))
    except CapacityError:
        rec.update({"actual_over": int(max_nodes), "seconds": round(time.perf_counter() - t, 3),
                    "within_3x": pred >= max_nodes / 3})
        return rec
    rec.update({"actual": ts.nodes, "ratio": round(pred / max(ts.nodes, 1), 3),
                "coarse_ratio": round(coarse / max(ts.nodes, 1), 3),
                "seconds": round(time.perf_counter() - t, 3)})
    rec["within_3x"] = 1 / 3 <= rec["ratio"] <= 3
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=1.5e8, help="skip cases predicted above this")
    ap.add_argument("--max-nodes", type=float, default=5e7, help="stop the kernel past this")
    ap.add_argument("--quick", action="store_true", help="a few small cases only")
    ap.add_argument("--only", type=int, help="only this L")
    ap.add_argument("--lam", action="append", choices=LAMS, help="only these lambdas")
    a = ap.parse_args()
    recs = []
    for case in cases(a.quick, a.only, tuple(a.lam or LAMS)):
        rec = measure(*case, limit=a.limit, max_nodes=a.max_nodes)
        recs.append(rec)
        print(json.dumps(rec), flush=True)
    print(json.dumps(summary(recs)))


def summary(recs):
    """Counts, the ratio range and the cost of the predictor over the records."""
    ratios = [r["ratio"] for r in recs if "ratio" in r]
    coarse = [r["coarse_ratio"] for r in recs if "coarse_ratio" in r]
    return {"trees": len(recs), "measured": len(ratios),
            "over_max_nodes": sum("actual_over" in r for r in recs),
            "skipped": sum(bool(r.get("skipped")) for r in recs),
            "within_3x": sum(bool(r.get("within_3x")) for r in recs),
            "ratio_range": [min(ratios, default=None), max(ratios, default=None)],
            "coarse_ratio_range": [min(coarse, default=None), max(coarse, default=None)],
            "max_ratio_either_way": round(max((max(x, 1 / x) for x in ratios), default=1.0), 3),
            "predict_seconds_max": max((r["predict_seconds"] for r in recs), default=None),
            "coarse_seconds_max": max((r["coarse_seconds"] for r in recs), default=None)}


if __name__ == "__main__":
    main()
