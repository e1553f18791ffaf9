"""Benchmark of exact calibration (issue 5): prints one JSON object.

    python benchmarks/bench_calibrate.py [--quick]

Certified exact q with eta(q) <= 0.01 for the six settings of 000 §3.3 and for
(N = 10^4, L = 5) at eps in {ln 2 (lam = 2), 2}, in the forward, reverse and
worst directions, with wall times, next to the paper's 3-sigma q.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from exactdp.apps.calibrate import calibrate

CASES = [(1000, "2"), (3000, "2"), (5000, "2"), (1000, "e2"), (3000, "e2"), (5000, "e2"),
         (10000, "2"), (10000, "e2")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="forward direction only")
    args = ap.parse_args()
    out = []
    dirs = ["forward"] if args.quick else ["forward", "reverse", "worst"]
    for N, lab in CASES:
        kw = {"eps": 2} if lab == "e2" else {"lam": 2}
        s3 = calibrate(N, 5, eta="0.01", method="sigma3", **kw)
        for direction in dirs:
            t = time.perf_counter()
            c = calibrate(N, 5, eta="0.01", direction=direction, **kw)
            rec = {"N": N, "L": 5, "lam": "e^2" if lab == "e2" else "2", "eta": "0.01",
                   "direction": direction, "q_exact": c.q.to_dict(8),
                   "eta_at_q": c.value_at_q.to_dict(6), "crossings": len(c.crossings),
                   "q_sigma3": float(s3.q_used), "eta_at_q_sigma3": s3.value_at_q.to_dict(4)
                   if direction == "forward" else None,
                   "seconds": round(time.perf_counter() - t, 2)}
            out.append(rec)
            print(json.dumps(rec), file=sys.stderr, flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
