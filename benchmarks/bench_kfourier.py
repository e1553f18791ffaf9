"""Benchmark of the large-N k-copies strategy (exactdp.reductions.kfourier).

Certified eta of 000's pair (forward) and 003's reverse under k-randomization at
L = 40, N = 10^7, q = 0.351, lambda = e^2: time, relative width, heavy nodes,
Fourier leaves and dropped mass per k and tolerance.  Prints a markdown table
(with ``uptime``: the machine is shared).

    python benchmarks/bench_kfourier.py [--k 1 2 4] [--tol 1e-7 1e-8] [--q 0.351] [--direction forward]
"""

from __future__ import annotations

import argparse
import os
import time

from exactdp.reductions.kfourier import kfourier_details
from exactdp.reductions.pairs import canonical_pair, reverse_canonical_pair


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--tol", type=float, nargs="+", default=[1e-7, 1e-8])
    ap.add_argument("--q", default="0.351")
    ap.add_argument("--N", type=int, default=10**7)
    ap.add_argument("--L", type=int, default=40)
    ap.add_argument("--direction", choices=("both", "forward", "reverse"), default="both")
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()}")
    print("| k | direction | tol | eta | relative width | seconds | CPU s | nodes | Fourier leaves | dropped | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in args.k:
        for tol in args.tol:
            for name, fac in (("forward", canonical_pair), ("reverse", reverse_canonical_pair)):
                if args.direction not in ("both", name):
                    continue
                t, c = time.time(), time.process_time()
                r = kfourier_details(fac(args.N, args.L, k), args.q, eps=2, tol=tol)
                dt, dc = time.time() - t, time.process_time() - c
                iv = r.eta
                rel = float(iv.width) / float(iv.upper) if iv.upper > 0 else 0.0
                print(f"| {k} | {name} | {tol:.0e} | [{float(iv.lower):.6g}, {float(iv.upper):.6g}] | "
                      f"{rel:.2e} | {dt:.1f} | {dc:.1f} | {r.nodes} | {r.fourier} | {r.dropped:.1e} | "
                      f"{os.getloadavg()[0]:.1f} |", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
