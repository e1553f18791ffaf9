"""eps(delta) of shuffled L-bit RR: exact pair, guarantee bracket and peers' bounds.

    python benchmarks/bench_peers.py [--n 1000 100000] [--L 1] [--q 1/4] [--delta 1e-6] [--json]

For each n: the certified eps of 000's canonical pair (worst direction), the
certified bracket of :func:`exactdp.apps.guarantee.guarantee` (and which bound gave
its upper end), and each implemented peer bound (:mod:`exactdp.apps.peers`):
FMT 2021 closed form (float, mpmath), FMT 2021 clone, FMT 2023 stronger
clone, Wang et al. 2024 variation ratio, Balle et al. 2019 blanket (Hoeffding
and Bennett), Su-Cheng-Wang S&P 2026 (optimal decomposition; evaluated at L = 1
only) and Koskela et al. 2021 (the pair their accountant evaluates) -- all but the
closed form certified upper ends.  Prints a markdown table (docs/peers.md).
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction

from exactdp.apps.guarantee import guarantee
from exactdp.core.interval import fraction_to_decimal_str


def row(n, L, q, delta):
    t = time.perf_counter()
    g = guarantee(n, L, q, delta=delta, digits=7)
    sec = time.perf_counter() - t
    p = g.peers
    up = lambda k: float(Fraction(p[k]["upper"]))  # noqa: E731
    return {"n": n, "L": L, "q": q, "delta": delta,
            "exact_pair": [fraction_to_decimal_str(g.lower_interval.lower, 7, "floor"),
                           fraction_to_decimal_str(g.lower_interval.upper, 7, "ceiling")],
            "guarantee": [fraction_to_decimal_str(g.lower, 6, "floor"),
                          fraction_to_decimal_str(g.upper, 6, "ceiling")],
            "upper_from": g.upper_bound, "lower_direction": g.lower_direction,
            "clone_fmt23": up("clone-fmt23"), "clone_fmt21": up("clone-fmt21"),
            "variation_ratio": up("variation-ratio"), "blanket_hoeffding": up("blanket-hoeffding"),
            "blanket_bennett": up("blanket-bennett"),
            # Su-Cheng-Wang is evaluated at L = 1 only (exactdp.apps.peers.scw_delta)
            "scw": up("scw-blanket") if "scw-blanket" in p else None,
            "koskela": up("pld-koskela21"),
            "fmt21_closed": None if p["fmt21-closed"] is None else float(p["fmt21-closed"]),
            "seconds": round(sec, 1)}


def markdown(rows):
    out = ["| n | L | exact pair (canonical, worst dir.) | guarantee [lower, upper] (upper from) "
           "| FMT'23 stronger clone | FMT'21 clone | Wang'24 variation ratio | Balle'19 blanket "
           "(Hoeffding) | Balle'19 blanket (Bennett) | Su–Cheng–Wang S&P'26 | Koskela et al. 2021 "
           "| FMT'21 closed form (Thm 3.1) | s |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lo = float(r["guarantee"][0])

        def rel(x, na="n/a (condition fails)"):
            return na if x is None else f"{x:.5f} (+{100 * (x / lo - 1):.1f} %)"
        out.append(f"| {r['n']:,} | {r['L']} | [{r['exact_pair'][0]}, {r['exact_pair'][1]}] "
                   f"({r['lower_direction']}) | [{r['guarantee'][0]}, {r['guarantee'][1]}] "
                   f"({r['upper_from']}) | {rel(r['clone_fmt23'])} | {rel(r['clone_fmt21'])} "
                   f"| {rel(r['variation_ratio'])} | {rel(r['blanket_hoeffding'])} "
                   f"| {rel(r['blanket_bennett'])} | {rel(r['scw'], 'n/a (L ≥ 2: not evaluated)')} "
                   f"| {rel(r['koskela'])} "
                   f"| {rel(r['fmt21_closed'])} | {r['seconds']} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", nargs="+", type=int, default=[1000, 100000])
    ap.add_argument("--L", nargs="+", type=int, default=[1])
    ap.add_argument("--q", default="1/4")
    ap.add_argument("--delta", default="1e-6")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [row(n, L, a.q, a.delta) for L in a.L for n in a.n]
    print(json.dumps(rows, indent=2) if a.json else markdown(rows))


if __name__ == "__main__":
    main()
