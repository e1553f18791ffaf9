"""Benchmark of the three certified routes for homogeneous-base pairs (issue 4):
prints one JSON object.

    python benchmarks/bench_pairs.py [--quick]

For mixed pairs (b, c, e) at N = 1000, L = 5, q = 0.2446 (000 §3.3), lambda = 2
(and 6/5 without --quick): the block kernel within a node budget (or
"over budget"), the Chernoff bound, and the lattice dominance bracket at
several grid steps h -- each enclosure with its width and wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction

from exactdp.core.errors import CapacityError
from exactdp.reductions.pairs import HomogeneousPair, hom_eta

TRIPLES = [(0, 4, 1), (0, 3, 2), (1, 1, 1), (4, 0, 1), (2, 2, 1)]


def _rec(iv):
    return {"lower": float(iv.lower), "upper": float(iv.upper), "width": float(iv.width)}


def _timed(fn):
    t = time.perf_counter()
    try:
        iv = fn()
        return {**_rec(iv), "seconds": round(time.perf_counter() - t, 2)}
    except CapacityError as e:
        return {"over_budget": str(e), "seconds": round(time.perf_counter() - t, 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="lambda = 2, h down to 1/64 only")
    args = ap.parse_args()
    lams = ["2"] if args.quick else ["2", "6/5"]
    steps = ["1/16", "1/64"] if args.quick else ["1/16", "1/64", "1/256", "1/1024"]
    out = []
    for lam in lams:
        for b, c, e in TRIPLES:
            H = HomogeneousPair(1000, b, c, e)
            rec = {"b": b, "c": c, "e": e, "N": 1000, "q": "0.2446", "lam": lam,
                   "kernel_tol_1e-8_200k_nodes": _timed(
                       lambda: hom_eta(H, "0.2446", lam=lam, tol=1e-8, max_nodes=200_000)),
                   "chernoff": _timed(lambda: hom_eta(H, "0.2446", lam=lam, method="chernoff"))}
            for h in steps:
                rec[f"lattice_h={h}"] = _timed(
                    lambda: hom_eta(H, "0.2446", lam=lam, method="lattice", h=Fraction(h)))
            out.append(rec)
            print(json.dumps(rec), file=sys.stderr, flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
