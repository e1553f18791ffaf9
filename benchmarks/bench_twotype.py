"""Benchmark of certified eta for bases of two types at Hamming distance one
(``exactdp.reductions.twotype``, issue 4): prints one JSON object.

    python benchmarks/bench_twotype.py [--quick]

Base ``0^(N-1-j) + 10000^j`` at L = 5, q = 0.2446 (000 §3.3), lambda = 2, the
changed user 00000 -> 11111 (000's outlier) and 11000 -> 01111 (shared bits),
for j = 1 (one minority user) and j = (N - 1) / 2; N = 20 with --quick,
also N = 50 and 100 without (the shared-bit pair takes minutes there).  Each
row: the enclosure, its width and wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from exactdp.reductions.pairs import Pair
from exactdp.reductions.twotype import twotype_eta


def _bits(s: str) -> int:
    return sum(1 << i for i, ch in enumerate(s) if ch == "1")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="N = 20 only")
    args = ap.parse_args()
    rows = []
    for N in (20,) if args.quick else (20, 50, 100):
        for j in (1, (N - 1) // 2):
            for x, xm in (("00000", "11111"), ("11000", "01111")):
                base = [0] * 32
                base[0], base[1] = N - 1 - j, j
                P = Pair(5, tuple(base), _bits(x), _bits(xm))
                t = time.perf_counter()
                iv = twotype_eta(P, "0.2446", 2, tol=1e-10, mass_tol=1e-10)
                rows.append({"pair": P.describe(), "lower": float(iv.lower), "upper": float(iv.upper),
                             "width": float(iv.width), "seconds": round(time.perf_counter() - t, 2)})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"bench": "twotype", "q": "0.2446", "lam": 2, "L": 5, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
