"""Figure: eps(delta = 1e-6) against n for shuffled L-bit RR (q = 1/4), L = 1 and 5.

    PYTHONPATH=. python benchmarks/fig_peers_vs_n.py [--n 100 1000 ...] [--L 1 5]
        [--digits 3] [--plot-only] [--block-upper] [--new-peers] [--table]

For each (n, L): exactdp's certified eps of 000's canonical pair (worst direction;
the tree engine, or the Fourier strategy of exactdp.engine.largen beyond its capacity),
the certified guarantee bracket of exactdp.apps.guarantee (upper end: exact all-pairs
maximum at L = 1, n <= 1000, else the least certified published bound), and every
certified peer bound of exactdp.apps.peers.  Each (n, L) result is appended to
docs/figures/peers_eps_vs_n.json as soon as it is computed (a rerun skips the
points already there), then docs/figures/peers_eps_vs_n.png is drawn.

``--new-peers``: add the Su-Cheng-Wang (L = 1) and Koskela et al. bounds of
exactdp.apps.peers to the stored rows that predate them (relative tolerance
10^-digits), recording ``peers_seconds``.

``--block-upper``: for the stored L = 1 points whose upper end is a published
bound (n > 1000, computed before the block lemma), recompute the upper end
with :func:`exactdp.apps.blockbound.epsilon_upper` started from the stored
canonical pair's upper end (0.1 % margin; the result is certified for every
pair whatever the start), and record ``block_seconds``; then, for every stored row, the exact-MGF
blanket (:mod:`exactdp.apps.blanket_mgf`) where it is below the stored upper end.
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "docs" / "figures"
JSON = OUT / "peers_eps_vs_n.json"
PNG = OUT / "peers_eps_vs_n.png"


def point(n, L, q, delta, digits):
    from exactdp.apps.guarantee import guarantee
    t = time.perf_counter()
    g = guarantee(n, L, q, delta=delta, digits=digits)
    return {"n": n, "L": L, "q": q, "delta": delta,
            "pair": [float(g.lower_interval.lower), float(g.lower_interval.upper)],
            "pair_name": g.lower_pair, "direction": g.lower_direction,
            "guarantee": [float(g.lower), float(g.upper)], "upper_from": g.upper_bound,
            "peers": {k: float(Fraction(v["upper"])) for k, v in g.peers.items()
                      if isinstance(v, dict)},
            "seconds": round(time.perf_counter() - t, 1)}


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    Ls = sorted({r["L"] for r in rows})
    fig, axes = plt.subplots(1, len(Ls), figsize=(6 * len(Ls), 4.6), squeeze=False)
    names = ["clone-fmt21", "clone-fmt23", "variation-ratio", "blanket-hoeffding",
             "blanket-bennett", "blanket-exact-mgf", "scw-blanket", "pld-koskela21"]
    styles = dict(zip(names, ["--", ":", "-.", (0, (3, 1, 1, 1)), (0, (5, 2)), (0, (1, 1)),
                              (0, (6, 1, 1, 1, 1, 1)), (0, (2, 2))]))
    # what a curve is at L = 1 / L >= 2 (exactdp.apps.peers; docs/peers.md)
    notes = {"variation-ratio": (" (= stronger clone)", " (refuted, not a bound)"),
             "scw-blanket": (" (Su-Cheng-Wang; = stronger clone)", ""),
             "pld-koskela21": (" (Koskela et al.; 2-RR pair)", " (Koskela et al.; = clone-fmt21)")}
    for ax, L in zip(axes[0], Ls):
        rs = sorted((r for r in rows if r["L"] == L), key=lambda r: r["n"])
        n = [r["n"] for r in rs]
        ax.fill_between(n, [r["guarantee"][0] for r in rs], [r["guarantee"][1] for r in rs],
                        color="#4c72b0", alpha=0.2, label="guarantee bracket (certified)")
        mid = [(r["pair"][0] + r["pair"][1]) / 2 for r in rs]
        err = [[m - r["pair"][0] for m, r in zip(mid, rs)], [r["pair"][1] - m for m, r in zip(mid, rs)]]
        ax.errorbar(n, mid, yerr=err, fmt="o-", color="#4c72b0", lw=2, ms=4, capsize=3,
                    label="canonical pair (000): certified interval")
        ax.plot(n, [r["guarantee"][1] for r in rs], "s-", color="#55a868", ms=3, lw=1,
                label="guarantee upper end")
        for k in names:
            if not any(k in r["peers"] for r in rs):
                continue        # not evaluated at this L (Su-Cheng-Wang at L >= 2)
            ax.plot(n, [r["peers"].get(k, float("nan")) for r in rs], ls=styles[k], lw=1.3,
                    label=k + notes.get(k, ("", ""))[L > 1])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (users)")
        ax.set_ylabel(r"$\varepsilon(\delta = 10^{-6})$")
        ax.set_title(f"shuffled {L}-bit RR, q = 1/4")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def block_upper(rows, ns):
    from exactdp.apps.blockbound import epsilon_upper
    for r in rows:
        if r["L"] != 1 or r["n"] not in ns or r["upper_from"] in ("exact-all-pairs-L1",
                                                                   "all-pairs-blocks-L1"):
            continue
        t = time.perf_counter()
        start = Fraction(r["pair"][1]) * (1 + Fraction(1, 10**9))
        c = epsilon_upper(r["n"], Fraction(r["q"]), Fraction(r["delta"]), start,
                          ceiling=Fraction(r["guarantee"][1]))
        sec = round(time.perf_counter() - t, 1)
        if c is None:
            print(f"n={r['n']}: block bound not certified", flush=True)
            continue
        r["guarantee"][1] = float(c) * (1 + 2**-50)      # outward: float of a certified end
        r["upper_from"] = "all-pairs-blocks-L1"
        r["block_seconds"] = sec
        JSON.write_text(json.dumps(rows, indent=1))
        print(json.dumps(r), flush=True)


def mgf_upper(rows, ns):
    """Recompute stored rows' upper end with the exact-MGF blanket where it is smaller."""
    from exactdp.apps.blanket_mgf import NAME, blanket_mgf_epsilon
    for r in rows:
        if r["n"] not in ns or NAME in r["peers"]:
            continue
        t = time.perf_counter()
        e = blanket_mgf_epsilon(r["n"], r["L"], Fraction(r["q"]), Fraction(r["delta"]), rel=1e-4)
        r["peers"][NAME] = float(e.upper) * (1 + 2**-50)
        if float(e.upper) < r["guarantee"][1]:
            r["guarantee"][1] = float(e.upper) * (1 + 2**-50)
            r["upper_from"] = NAME
        r["mgf_seconds"] = round(time.perf_counter() - t, 1)
        JSON.write_text(json.dumps(rows, indent=1))
        print(json.dumps(r), flush=True)


def new_peers(rows, ns, Ls, digits):
    """Add Su-Cheng-Wang (L = 1; not evaluated at L >= 2) and Koskela et al. to stored rows
    computed before :mod:`exactdp.apps.peers` had them, at the rows' tolerance
    (``10^-digits``, as :func:`point`'s guarantee), and record ``peers_seconds``."""
    from exactdp.apps.peers import koskela_epsilon, scw_epsilon
    for r in rows:
        todo = {"scw-blanket": scw_epsilon} if r["L"] == 1 else {}     # SCW: L = 1 only
        todo = {k: f for k, f in (todo | {"pld-koskela21": koskela_epsilon}).items()
                if k not in r["peers"]}
        if r["n"] not in ns or r["L"] not in Ls or not todo:
            continue
        t = time.perf_counter()
        for k, f in todo.items():
            e = f(r["n"], r["L"], Fraction(r["q"]), Fraction(r["delta"]), rel=10.0 ** -digits)
            r["peers"][k] = float(e.upper) * (1 + 2**-50)      # outward: float of a certified end
        r["peers_seconds"] = round(time.perf_counter() - t, 1)
        JSON.write_text(json.dumps(rows, indent=1))
        print(json.dumps(r), flush=True)


def table(rows) -> str:
    """The markdown table of docs/peers.md (computed points)."""
    cols = ["clone-fmt21", "clone-fmt23", "variation-ratio", "blanket-hoeffding",
            "blanket-bennett", "scw-blanket", "pld-koskela21", "blanket-exact-mgf",
            "blanket-exact-count"]
    out = ["| n | L | canonical pair | guarantee [lower, upper] (upper from) | FMT'21 clone "
           "| FMT'23 stronger clone | Wang'24 variation ratio (refuted) | Balle'19 blanket Hoeffding "
           "| Balle'19 blanket Bennett | Su–Cheng–Wang S&P'26 | Koskela et al. 2021 "
           "| blanket, exact MGF (exactdp) | blanket count (exactdp) | s |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["L"], r["n"])):
        g = r["guarantee"]
        vals = " | ".join(f"{r['peers'][k]:.{8 if k == 'blanket-exact-count' else 5}g}"
                          if k in r["peers"] else "–" for k in cols)
        extra = sum(r.get(k, 0) for k in ("block_seconds", "mgf_seconds", "peers_seconds"))
        sec = f"{r['seconds']}" + (f" + {extra:.1f}" if extra else "")
        out.append(f"| {r['n']:.0e} | {r['L']} | [{r['pair'][0]:.5g}, {r['pair'][1]:.5g}] | "
                   f"[{g[0]:.5g}, {g[1]:.{8 if r['upper_from'] == 'blanket-exact-count' else 5}g}] "
                   f"({r['upper_from']}) | {vals} | {sec} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", nargs="+", type=int, default=[10**k for k in range(2, 9)])
    ap.add_argument("--L", nargs="+", type=int, default=[1, 5])
    ap.add_argument("--q", default="1/4")
    ap.add_argument("--delta", default="1e-6")
    ap.add_argument("--digits", type=int, default=3)
    ap.add_argument("--plot-only", action="store_true")
    ap.add_argument("--block-upper", action="store_true")
    ap.add_argument("--new-peers", action="store_true",
                    help="add Su-Cheng-Wang and Koskela et al. to the stored rows, then draw")
    ap.add_argument("--table", action="store_true", help="print the markdown table and exit")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    rows = json.loads(JSON.read_text()) if JSON.exists() else []
    if a.table:
        print(table(rows))
        return
    if a.block_upper:
        block_upper(rows, a.n)
        mgf_upper(rows, a.n)
    if a.new_peers:
        new_peers(rows, a.n, a.L, a.digits)
    if not a.plot_only:
        for L in a.L:
            for n in a.n:
                if any(r["n"] == n and r["L"] == L for r in rows):
                    continue
                try:
                    r = point(n, L, a.q, a.delta, a.digits)
                except Exception as e:  # recorded, not hidden
                    print(f"n={n} L={L}: {type(e).__name__}: {e}", flush=True)
                    continue
                rows.append(r)
                JSON.write_text(json.dumps(rows, indent=1))
                print(json.dumps(r), flush=True)
    plot(rows, PNG)
    print(f"wrote {PNG}")


if __name__ == "__main__":
    main()
