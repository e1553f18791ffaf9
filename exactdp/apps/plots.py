"""Pictures (matplotlib, Agg backend): the law of R with the lambda line.

Reproduces the lost figures of 000 §3.3 from exact bin masses.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["plot_law"]


def plot_law(edges, masses, path, *, lam=None, beyond=None, N=None, L=None, q=None,
             direction="forward", exact=True, ax=None):
    """Bar chart of bin masses of R; ``edges`` has one more entry than ``masses``.

    ``beyond`` (an Interval or Estimate of P[R > lam]) is written in the legend.
    Returns the path written (or the axes when ``ax`` is given and path is None).
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(7, 4))
    x = [float(e) for e in edges]
    widths = [b - a for a, b in zip(x, x[1:])]
    ax.bar(x[:-1], masses, width=widths, align="edge", color="#4c72b0", edgecolor="white",
           linewidth=0.3, label="bin mass of R" + (" (certified)" if exact else " (fast)"))
    if lam is not None:
        lab = f"$\\lambda$ = {float(lam):.4g}"
        if beyond is not None:
            v = float((Fraction(beyond.lower) + Fraction(beyond.upper)) / 2)
            lab += f";  P[R > $\\lambda$] = {v:.4g}"
        ax.axvline(float(lam), color="#c44e52", linestyle="--", label=lab)
    ax.set_xlabel("privacy ratio R")
    ax.set_ylabel("probability mass per bin")
    title = f"Law of R ({direction})"
    if N is not None:
        title += f": N={N}, L={L}, q={q}"
    ax.set_title(title)
    ax.legend(fontsize=8)
    if own:
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path
    return ax
