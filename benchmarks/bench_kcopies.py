"""Benchmark of certified eta under k-randomization for 000's pair and its
reverse (``exactdp.reductions.kcopies``, issue 4): prints one JSON object.

    python benchmarks/bench_kcopies.py [--quick]

L = 5, q = 0.2446 (000 §3.3), lambda = 6/5 and 2, truncation 1e-12, the
changed vector at Hamming distance d = 5 (hardest) and d = 3; k = 2 at
N = 100 with --quick, also N = 1000 (k = 2) and N = 300 (k = 3) without.
Each row: the enclosure, its width and wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from exactdp.reductions.kcopies import kcopies_eta
from exactdp.reductions.pairs import Pair


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="N = 100, k = 2 only")
    args = ap.parse_args()
    rows = []
    grid = [(100, 2)] if args.quick else [(100, 2), (1000, 2), (300, 3)]
    for N, k in grid:
        for d in (5, 3):
            w = (1 << d) - 1
            for forward in (True, False):
                P = Pair.homogeneous(N, 5, 0, 0, w, k) if forward else Pair.homogeneous(N, 5, 0, w, 0, k)
                for lam in ("6/5", "2"):
                    t = time.perf_counter()
                    iv = kcopies_eta(P, "0.2446", lam, tol=1e-12)
                    rows.append({"N": N, "k": k, "d": d, "direction": "forward" if forward else "reverse",
                                 "lam": lam, "lower": float(iv.lower), "upper": float(iv.upper),
                                 "width": float(iv.width), "seconds": round(time.perf_counter() - t, 2)})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"bench": "kcopies", "q": "0.2446", "L": 5, "tol": 1e-12, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
