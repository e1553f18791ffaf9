"""Benchmark of the large-N k-copies strategy (exactdp.reductions.kfourier).

Certified eta of 000's pair (forward) and 003's reverse under k-randomization at
L = 40, N = 10^7, q = 0.351, lambda = e^2: time, relative width, heavy nodes,
Fourier leaves, dropped mass and method (the walk, or the lower-tail product bound alone where
eta is near 1) per k and tolerance.  Prints a markdown table (with ``uptime``: the machine is
shared).

    python benchmarks/bench_kfourier.py [--k 1 2 4] [--tol 1e-7 1e-8] [--q 0.351 0.30] [--direction forward]

With ``--digits D`` each row is the route of ``exactdp eta --k K ... --digits D`` instead
(:func:`exactdp.reductions.methods.eta` with ``method="kfourier"``: its passes of tolerances,
a coarse first pass, then passes aimed at the width asked: ``methods._kfourier_passes``);
``--tol`` is then ignored; ``--method auto`` is the command line's own route (the tilted strategy
``ktilt`` first where forward eta is a far tail, :mod:`exactdp.reductions.kfourier.tilt`), e.g.
``--digits 3 --method auto --k 2 16 200 --q 0.42 0.45 --direction forward``.  The issue's budget (issue 20: <= 120 s per eta at k <= 16, relative
width <= 1e-3, q in [0.30, 0.45]) is this route's row, e.g.
``--digits 3 --k 16 --q 0.30 0.34 0.351 0.40 --direction forward``.
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
    ap.add_argument("--q", nargs="+", default=["0.351"])
    ap.add_argument("--N", type=int, default=10**7)
    ap.add_argument("--L", type=int, default=40)
    ap.add_argument("--direction", choices=("both", "forward", "reverse"), default="both")
    ap.add_argument("--digits", type=int, default=None)
    ap.add_argument("--method", default="kfourier", help="with --digits: kfourier (the walk's passes) or auto")
    ap.add_argument("--max-seconds", type=float, default=None, help="with --digits: a time budget per eta (the CLI's --max-seconds)")
    args = ap.parse_args(argv)
    if args.digits is not None:
        return _route(args)
    print(f"load average at start: {os.getloadavg()}")
    print("| k | q | direction | tol | eta | relative width | seconds | CPU s | nodes | Fourier leaves | dropped | method | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, q, tol in ((k, q, tol) for k in args.k for q in args.q for tol in args.tol):
        for name, fac in (("forward", canonical_pair), ("reverse", reverse_canonical_pair)):
            if args.direction not in ("both", name):
                continue
            t, c = time.time(), time.process_time()
            r = kfourier_details(fac(args.N, args.L, k), q, eps=2, tol=tol)
            dt, dc = time.time() - t, time.process_time() - c
            iv = r.eta
            rel = float(iv.width) / float(iv.upper) if iv.upper > 0 else 0.0
            print(f"| {k} | {q} | {name} | {tol:.0e} | [{float(iv.lower):.6g}, {float(iv.upper):.6g}] | "
                  f"{rel:.2e} | {dt:.1f} | {dc:.1f} | {r.nodes} | {r.fourier} | {r.dropped:.1e} | "
                  f"{r.method} | {os.getloadavg()[0]:.1f} |", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    return 0


def _route(args) -> int:
    from exactdp.reductions import methods
    print(f"load average at start: {os.getloadavg()}")
    print("| k | q | direction | digits | eta | relative width | seconds | CPU s | load | method |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, q in ((k, q) for k in args.k for q in args.q):
        for name, fac in (("forward", canonical_pair), ("reverse", reverse_canonical_pair)):
            if args.direction not in ("both", name):
                continue
            t, c = time.time(), time.process_time()
            deadline = time.monotonic() + args.max_seconds if args.max_seconds else None
            iv, used = methods.eta(fac(args.N, args.L, k), q, eps=2, digits=args.digits, method=args.method,
                                   with_method=True, deadline=deadline)
            dt, dc = time.time() - t, time.process_time() - c
            rel = iv.relative_width() if iv.upper > 0 else 0.0
            ends = iv.to_dict(6)           # exponent-safe (far tails underflow a double)
            print(f"| {k} | {q} | {name} | {args.digits} | [{ends['lower']}, {ends['upper']}] | "
                  f"{rel:.2e} | {dt:.1f} | {dc:.1f} | {os.getloadavg()[0]:.1f} | {'+'.join(used)} |", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
