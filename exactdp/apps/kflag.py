"""k-randomization (003 §1) from the command line: ``--k K`` for eta, delta, epsilon, calibrate.

Under k-randomization every user submits ``k`` independent randomizations of
its vector.  The pairs are 000's canonical pair (``forward``: ``D = 0^N``,
``D_m = 0^(N-1) + 1^L``) and its reverse (003 §1.2's choice), or the worse
of the two (``worst``), built by :func:`exactdp.reductions.pairs.canonical_pair` with
``k``.  Values come from the certified pair engines:

* ``k = 1``: the pair's own distribution (:func:`exactdp.from_pair`: tree or
  Fourier strategy, any size);
* ``k > 1``: the strategies of :mod:`exactdp.reductions.methods` -- the exact enumeration
  of the pair's law where it fits, else (eta) the k-copies search
  (:func:`exactdp.reductions.kcopies.kcopies_eta`) capped at :data:`MAX_NODES` nodes, and
  from ``kN >= 10^4`` outputs first the large-N k-copies strategy
  (:func:`exactdp.reductions.kfourier.kfourier_eta`; e.g. L = 40, N = 10^7); delta
  beyond the enumeration comes from certified etas on a grid
  (:func:`exactdp.reductions.kfourier.kfourier_delta`, coarse: relative width about
  ``1 / DELTA_GRID``) where ``kN >= MIN_OUTPUTS``, else it is refused.

Beyond the engines' capacity the answer is a one-line
:class:`~exactdp.core.errors.CapacityError` (exit code 2 on the command line).
eps is found by bisection on rational ``lam`` in ``[1, e^(k eps0)]``
(:func:`exactdp.apps.peers.bisect_epsilon`), q by a certified scan and bisection
(:func:`k_calibrate`).

>>> iv = k_eta(10, 2, "1/4", 2, lam=2)
>>> float(iv.lower) > 0.39
True
"""

from __future__ import annotations

import json
from fractions import Fraction

from ..core import domains
from ..core.errors import CapacityError, ParameterError
from ..core.interval import Interval

__all__ = ["k_eta", "k_delta", "k_epsilon", "k_calibrate", "MAX_NODES", "command", "COMMANDS"]

#: search-node cap of the k-copies tree per query (beyond it: CapacityError); the
#: budget :mod:`exactdp.reductions.methods` gives every search under ``method="auto"``
from ..reductions.methods import KCOPIES_AUTO_MAX_NODES as MAX_NODES  # noqa: E402
COMMANDS = ("eta", "delta", "epsilon", "calibrate")
#: relative digits of each eta that calibrate compares with its target
CAL_DIGITS = 3
#: delta beyond the enumeration (large k N): grid points and heavy-node tolerance of
#: :func:`exactdp.reductions.kfourier.kfourier_delta` (relative width about 1 / DELTA_GRID)
DELTA_GRID = 16
DELTA_TOL = 1e-6


def _pairs(N, L, k, direction):
    from ..reductions.pairs import canonical_pair, reverse_canonical_pair
    N = domains.N.parse(N)
    L = domains.L.parse(L)
    k = domains.K.parse(k)
    direction = domains.parse_direction(direction)
    fwd, rev = canonical_pair(N, L, k), reverse_canonical_pair(N, L, k)
    return {"forward": [fwd], "reverse": [rev], "worst": [fwd, rev]}[direction]


def _worst(ivs):
    out = ivs[0]
    for iv in ivs[1:]:
        out = Interval.hull_max(out, iv)
    return out


def _too_big(P, what):
    big = P.k * P.N >= _min_outputs()
    return CapacityError(f"--k: N={P.N}, L={P.L}, k={P.k} is beyond the k-copies engines' capacity "
                         f"for {what} (the k-copies search stops at {MAX_NODES} nodes"
                         + ("; the large-N strategy could not certify it" if big else
                            f"; the large-N strategy needs k N >= {_min_outputs()} outputs")
                         + "); use a smaller N, L or k")


def _eta_one(P, q, lam, eps, inclusive, digits, *, progress=None):
    """One pair's eta: k = 1 through :func:`exactdp.from_pair` (tree / Fourier), k > 1
    through :mod:`exactdp.reductions.methods` (exact enumeration, else the k-copies search)."""
    from ..law.distribution import from_pair
    from ..reductions import methods
    if P.k == 1:
        return from_pair(P, q=q).eta(lam, eps, inclusive=inclusive, digits=digits)
    try:
        return methods.eta(P, q, lam, eps, inclusive=inclusive, digits=digits, progress=progress)
    except CapacityError:
        raise _too_big(P, "eta") from None


def _delta_one(P, q, lam, eps):
    from ..law.distribution import from_pair
    from ..reductions import methods
    if P.k == 1:
        return from_pair(P, q=q).delta(lam, eps)
    try:
        return methods.delta(P, q, lam, eps)
    except CapacityError:
        if _kfourier_applies(P):
            from ..reductions.kfourier import kfourier_delta
            return kfourier_delta(P, q, lam, eps=eps, tol=DELTA_TOL, grid=DELTA_GRID)
        raise CapacityError(f"--k: delta for N={P.N}, L={P.L}, k={P.k} needs the exact enumeration "
                            "of the pair's law, which is beyond capacity (the k-copies search gives "
                            f"eta only below k N = {_min_outputs()} outputs)") from None


def _min_outputs() -> int:
    from ..reductions.kfourier import MIN_OUTPUTS
    return MIN_OUTPUTS


def _kfourier_applies(P) -> bool:
    from ..reductions.kcopies import kcopies
    return kcopies(P) is not None and P.k * P.N >= _min_outputs()


def k_eta(N, L, q, k, lam=None, eps=None, *, direction="forward", inclusive=False,
          digits: int = 10, progress=None) -> Interval:
    """Certified eta = P[R > lam] of the canonical pair under k-randomization
    (``progress(nodes, dropped)``: reported by the k-copies search about twice a second)."""
    q = domains.Q.parse(q)
    digits = domains.DIGITS.parse(digits)
    return _worst([_eta_one(P, q, lam, eps, inclusive, digits, progress=progress)
                   for P in _pairs(N, L, k, direction)])


def k_delta(N, L, q, k, lam=None, eps=None, *, direction="forward") -> Interval:
    """Certified delta = E[(1 - lam/R)+] of the canonical pair under k-randomization."""
    q = domains.Q.parse(q)
    return _worst([_delta_one(P, q, lam, eps) for P in _pairs(N, L, k, direction)])


def k_epsilon(N, L, q, k, *, delta=None, eta=None, direction="forward",
              digits: int = 6) -> Interval:
    """Certified ``[eps_lo, eps_hi]``: the target is met at ``eps_hi`` and
    certified violated at ``eps_lo`` (or ``eps_lo = 0``)."""
    from .peers import bisect_epsilon, exp_eps0_rr
    if (delta is None) == (eta is None):
        raise ParameterError("give exactly one of delta or eta as the target")
    q = domains.Q.parse(q)
    digits = domains.DIGITS.parse(digits)
    kk = domains.K.parse(k)
    top = exp_eps0_rr(L, q) ** kk
    target = delta if delta is not None else eta
    pairs = _pairs(N, L, k, direction)
    if delta is not None:
        fn = _delta_fn(pairs, q)
    else:
        def fn(lam):
            return _worst([_eta_one(P, q, lam, None, False, digits) for P in pairs])
    return bisect_epsilon(fn, top, target, rel=10.0 ** -digits)


def _delta_fn(pairs, q):
    """delta(lam) of the worse pair; exact laws enumerated once when they fit."""
    from ..reductions.pairs import route, law_of_R, delta_from_law
    laws = []
    for P in pairs:
        rt = route(P)
        if rt == "exact":
            laws.append(law_of_R(P, q))
        elif rt in ("l1", "kernel") or _kfourier_applies(P):
            laws.append(P)
        else:
            _delta_one(P, q, 1, None)   # raises the capacity message
    def fn(lam):
        out = []
        for law in laws:
            if isinstance(law, dict):
                out.append(Interval.exact(delta_from_law(law, lam)))
            else:
                out.append(_delta_one(law, q, lam, None))
        return _worst(out)
    return fn


def k_calibrate(N, L, k, *, lam=None, eps=None, eta=None, delta=None, direction="forward",
                digits: int = 4, grid: int = 16) -> dict:
    """Largest-privacy-safe noise: the least q such that the certified target holds
    at q and at every scanned q above it (``grid`` points in ``[1/1000, 1/2)``),
    refined by bisection in the last cell to relative width ``10^-digits``.

    Returns ``{"q": Interval [q_lo, q_hi], "value_at_q": Interval}`` where the
    target is certified met at ``q_hi`` and not certified at ``q_lo``.
    """
    if (eta is None) == (delta is None):
        raise ParameterError("give exactly one of eta or delta as the target")
    digits = domains.DIGITS.parse(digits)
    grid = domains.GRID.parse(grid)
    target = domains.TARGET.parse(eta if eta is not None else delta)
    if (lam is None) == (eps is None):
        raise ParameterError("give exactly one of lam or eps")

    def value(q):
        if eta is not None:
            # the comparison with the target needs a few digits only (an undecided q counts
            # as not met: the bracket stays certified)
            return k_eta(N, L, q, k, lam, eps, direction=direction, digits=min(digits + 2, CAL_DIGITS))
        return k_delta(N, L, q, k, lam, eps, direction=direction)

    lo_q, hi_q = Fraction(1, 1000), Fraction(1, 2)
    qs = [lo_q + (hi_q - lo_q) * i / grid for i in range(grid)]
    # scanned from the top down, stopping at the first q where the target is not certified
    # met (or beyond the engines' capacity: small q at large L), so that the far-from-
    # private end of the grid is never computed
    vals = {}
    i = grid - 1
    while i >= 0:
        try:
            vals[i] = value(qs[i])
        except CapacityError:
            if i == grid - 1:
                raise
            break
        if not vals[i].upper <= target:
            break
        i -= 1
    top = grid - 1
    if not vals[top].upper <= target:
        raise ParameterError(f"no q in [1/1000, 1/2) meets the target {float(target):.3g} "
                             f"(at q = {float(qs[top]):.4g} the value is >= {float(vals[top].lower):.3g})")
    if i < 0:
        return {"q": Interval(0, qs[0]), "value_at_q": vals[0], "note": "every scanned q meets it"}
    i += 1                            # least scanned q of the run of certified ones
    a, b = qs[i - 1], qs[i]          # target fails (or is undecided, or beyond capacity) at a, met at b
    vb = vals[i]
    while (b - a) / b > Fraction(1, 10 ** digits):
        m = Fraction(round((a + b) / 2 * 2 ** 64), 2 ** 64)
        try:
            vm = value(m)
        except CapacityError:
            a = m
            continue
        if vm.upper <= target:
            b, vb = m, vm
        else:
            a = m
    return {"q": Interval(a, b), "value_at_q": vb, "note": ""}


# ------------------------------------------------------------------------ CLI
def command(cmd: str, args) -> int:
    """``exactdp (eta|delta|epsilon|calibrate) --k K ...`` (the CLI tree's ``--k`` route;
    errors propagate to :func:`exactdp.apps.cli.main`, which prints one line and exits 2)."""
    rec = _run(cmd, args)
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        v = rec[rec["quantity"]]
        print(f"{rec['quantity']} in [{v['lower']}, {v['upper']}]  (k={rec['k']}, "
              f"{rec['direction']}, N={rec['N']}, L={rec['L']}"
              + (f", q={rec['q']}" if rec["quantity"] != "q" else "") + "; certified)")
    return 0


def _run(cmd, args) -> dict:
    k = domains.K.parse(args.k)
    N, L = domains.N.parse(args.N), domains.L.parse(args.L)
    digits = domains.DIGITS.parse(args.digits)
    direction = domains.parse_direction(args.direction)
    rec = {"N": N, "L": L, "k": k, "direction": direction, "certified": True}
    if cmd != "calibrate":
        rec["q"] = str(args.q)
    lam = eps = None
    if cmd != "epsilon":
        lam = domains.LAM.parse(args.lam) if args.lam is not None else None
        eps = domains.EPS.parse(args.eps) if args.eps is not None else None
    if cmd == "eta":
        from ..core.progress import Progress
        with Progress("eta --k", enabled=not (getattr(args, "quiet", False) or args.json)) as prog:
            iv = k_eta(N, L, args.q, k, lam, eps, direction=direction, inclusive=args.inclusive,
                       digits=digits, progress=prog)
        rec.update({"quantity": "eta", "eta": iv.to_dict(digits)})
    elif cmd == "delta":
        iv = k_delta(N, L, args.q, k, lam, eps, direction=direction)
        rec.update({"quantity": "delta", "delta": iv.to_dict(digits)})
    elif cmd == "epsilon":
        iv = k_epsilon(N, L, args.q, k, delta=args.delta, eta=args.eta, direction=direction,
                       digits=digits)
        rec.update({"quantity": "eps", "eps": iv.to_dict(digits + 1),
                    "target": {"delta" if args.delta is not None else "eta":
                               str(args.delta if args.delta is not None else args.eta)}})
    else:
        c = k_calibrate(N, L, k, lam=lam, eps=eps, eta=args.eta, delta=args.delta,
                        direction=direction, digits=digits, grid=args.grid)
        rec.update({"quantity": "q", "q": c["q"].to_dict(digits + 2),
                    "value_at_q": c["value_at_q"].to_dict(digits + 2), "note": c["note"]})
    return rec
