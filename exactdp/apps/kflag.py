"""k-randomization (003 §1) from the command line: ``--k K`` for eta, delta, epsilon, calibrate.

Under k-randomization every user submits ``k`` independent randomizations of
its vector.  The pairs are 000's canonical pair (``forward``: ``D = 0^N``,
``D_m = 0^(N-1) + 1^L``) and its reverse (003 §1.2's choice), or the worse
of the two (``worst``), built by :func:`exactdp.reductions.pairs.canonical_pair` with
``k``.  Values come from the certified pair engines:

* ``k = 1``: the pair's own distribution (:func:`exactdp.from_pair`: tree or
  Fourier strategy, any size);
* ``k > 1``: the strategies of :mod:`exactdp.reductions.methods` -- the exact enumeration
  of the pair's law where it fits, else the k-copies search
  (:func:`exactdp.reductions.kcopies.kcopies_eta`; delta: the difference of two searches,
  :func:`exactdp.reductions.kcopies.kcopies_delta`, before an enumeration of more than
  ``methods.KCOPIES_BEFORE_EXACT`` histograms) capped at :data:`MAX_NODES` nodes, and
  from ``kN >= 10^4`` outputs first the large-N k-copies strategy
  (:func:`exactdp.reductions.kfourier.kfourier_eta`; e.g. L = 40, N = 10^7); delta there
  is the difference of two such certified etas
  (:func:`exactdp.reductions.kfourier.kfourier_delta`: ``delta = P_1[E] - lam P_2[E]``, relative
  width :data:`DELTA_REL` where the etas reach it), also from ``kN >= MIN_OUTPUTS`` when the
  searches give up; else it is refused.

Beyond the engines' capacity the answer is a one-line
:class:`~exactdp.core.errors.CapacityError` (exit code 2 on the command line).
eps is found by bisection on rational ``lam`` in ``[1, e^(k eps0)]``
(:func:`exactdp.apps.peers.bisect_epsilon`), q by a certified scan and bisection
(:func:`k_calibrate`); with an eta target where the large-N strategy comes first
(``k N >= 10^4``, e.g. 000 §6.1's L = 40, N = 10^7) both by the certified secant of
:func:`_root_bracket` instead: a seeded Monte Carlo estimate
(:func:`exactdp.apps.kscale.mc_eta`, not certified) places the start, each certified eta is
as precise as its comparison with the target needs, and the bracket's ends are certified
evaluations on either side of the target whatever the start.  A delta target there takes the
same route with certified deltas (two etas each, :func:`_delta_rel`; start
:func:`exactdp.apps.kscale.mc_delta`).

>>> iv = k_eta(10, 2, "1/4", 2, lam=2)
>>> float(iv.lower) > 0.39
True
"""

from __future__ import annotations

import json
import math
import time
from fractions import Fraction

from ..core import domains
from ..core.errors import CapacityError, ParameterError
from ..core.interval import Interval, small_in_e

__all__ = ["k_eta", "k_delta", "k_epsilon", "k_calibrate", "MAX_NODES", "command", "COMMANDS"]

#: search-node cap of the k-copies tree per query (beyond it: CapacityError); the
#: budget :mod:`exactdp.reductions.methods` gives every search under ``method="auto"``
from ..reductions.methods import KCOPIES_AUTO_MAX_NODES as MAX_NODES  # noqa: E402
COMMANDS = ("eta", "delta", "epsilon", "calibrate")
#: relative digits of each eta that calibrate compares with its target
CAL_DIGITS = 3
#: delta beyond the enumeration (large k N): the relative width asked of
#: :func:`exactdp.reductions.kfourier.kfourier_delta` (the difference of two certified etas;
#: its passes stop earlier at the etas' precision floor)
DELTA_REL = 1e-4


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


def _eta_one(P, q, lam, eps, inclusive, digits, *, progress=None, deadline=None):
    """One pair's eta: k = 1 through :func:`exactdp.from_pair` (tree / Fourier), k > 1
    through :mod:`exactdp.reductions.methods` (exact enumeration, else the k-copies search;
    ``deadline``: the large-N strategy's time budget)."""
    from ..law.distribution import from_pair
    from ..reductions import methods
    if P.k == 1:
        return from_pair(P, q=q).eta(lam, eps, inclusive=inclusive, digits=digits)
    try:
        return methods.eta(P, q, lam, eps, inclusive=inclusive, digits=digits, progress=progress,
                           deadline=deadline)
    except CapacityError:
        raise _too_big(P, "eta") from None


def _delta_one(P, q, lam, eps, rel=None, *, deadline=None):
    from ..law.distribution import from_pair
    from ..reductions import methods
    if P.k == 1:
        return from_pair(P, q=q).delta(lam, eps)
    from ..reductions.kfourier import kfourier_delta
    rel = DELTA_REL if rel is None else rel
    if _kfourier_applies(P) and P.k * P.N >= methods.KFOURIER_FIRST:
        tilted = _delta_tilted(P, q, lam, eps, rel, deadline=deadline)
        if tilted is not None:
            return tilted
        # the large-N strategy first (the k-copies searches would spend their budget first)
        from ..core.errors import PrecisionError
        try:
            return kfourier_delta(P, q, lam, eps=eps, rel=rel, deadline=deadline)
        except (CapacityError, PrecisionError):
            pass
    try:
        return methods.delta(P, q, lam, eps)
    except CapacityError:
        if _kfourier_applies(P):
            return kfourier_delta(P, q, lam, eps=eps, rel=rel, deadline=deadline)
        raise CapacityError(f"--k: delta for N={P.N}, L={P.L}, k={P.k} is beyond capacity (the exact "
                            f"enumeration, the k-copies searches' {MAX_NODES} nodes; the large-N "
                            f"strategy needs k N >= {_min_outputs()} outputs)") from None


def _delta_tilted(P, q, lam, eps, rel, *, deadline=None):
    """The far tail's delta by tilting, forward and 003's reverse
    (:func:`exactdp.reductions.kfourier.tilt.ktilted_delta`, below its route), intersected with the walk's difference of etas where the walk runs for eta
    too (:func:`exactdp.reductions.methods.with_walk`); ``None`` off its route or where a
    certificate fails."""
    from ..core.errors import PrecisionError
    from ..reductions import methods
    from ..reductions.kfourier import kfourier_delta
    from ..reductions.kfourier.tilt import ktilted_delta
    try:
        iv = ktilted_delta(P, q, lam, eps, rel=max(rel * methods.KTILT_AIM, methods.KTILT_FLOOR)).eta
    except (CapacityError, PrecisionError):
        return None
    return methods.with_walk(iv, rel, P.k, lambda: kfourier_delta(P, q, lam, eps=eps, rel=rel, deadline=deadline))


def _min_outputs() -> int:
    from ..reductions.kfourier import MIN_OUTPUTS
    return MIN_OUTPUTS


def _kfourier_applies(P) -> bool:
    from ..reductions.kcopies import kcopies
    return kcopies(P) is not None and P.k * P.N >= _min_outputs()


def k_eta(N, L, q, k, lam=None, eps=None, *, direction="forward", inclusive=False,
          digits: int = 10, progress=None, deadline=None) -> Interval:
    """Certified eta = P[R > lam] of the canonical pair under k-randomization
    (``progress(nodes, dropped)``: reported by the k-copies search about twice a second;
    ``deadline``: a ``time.monotonic()`` instant, the large-N strategy's time budget, past which
    it returns the enclosure reached: certified, wider than asked)."""
    q = domains.Q.parse(q)
    digits = domains.DIGITS.parse(digits)
    return _worst([_eta_one(P, q, lam, eps, inclusive, digits, progress=progress, deadline=deadline)
                   for P in _pairs(N, L, k, direction)])


def k_delta(N, L, q, k, lam=None, eps=None, *, direction="forward", rel=None,
            deadline=None) -> Interval:
    """Certified delta = E[(1 - lam/R)+] of the canonical pair under k-randomization (``rel``:
    the relative width asked where delta is the difference of two large-N etas; default
    :data:`DELTA_REL`; ``deadline``: the time budget of :func:`k_eta`)."""
    q = domains.Q.parse(q)
    if rel is not None and not (isinstance(rel, (int, float)) and 0 < rel < 1):
        raise ParameterError(f"rel must lie in (0, 1), got {rel!r}")
    return _worst([_delta_one(P, q, lam, eps, rel, deadline=deadline) for P in _pairs(N, L, k, direction)])


def k_epsilon(N, L, q, k, *, delta=None, eta=None, direction="forward",
              digits: int = 6, strategy: str = "auto", guess=None, log=None,
              deadline=None) -> Interval:
    """Certified ``[eps_lo, eps_hi]``: the target is met at ``eps_hi`` and
    certified violated at ``eps_lo`` (or ``eps_lo = 0``).

    ``strategy``: ``"bisect"`` (bisection on rational ``lam`` in ``[1, e^(k eps0)]``,
    :func:`exactdp.apps.peers.bisect_epsilon`), ``"secant"`` (the secant in ``log eta`` or
    ``log delta`` of :func:`_root_bracket` from ``guess`` or a seeded Monte Carlo estimate, each
    certified eta or delta only as precise as its comparison with the target needs; for delta
    the large-N k-copies strategy is needed, ``k N >= MIN_OUTPUTS``), or ``"auto"`` (the secant
    where the large-N k-copies strategy comes first, ``k N >= 10^4``).  ``log(line)``
    receives one line per certified evaluation (secant).  ``deadline`` (a ``time.monotonic()``
    instant; secant only): the time budget: no evaluation starts after it, the one running returns
    a wider certified enclosure, and the bracket reached is reported (``DigitsNotMetError``)."""
    from .peers import bisect_epsilon, exp_eps0_rr
    if (delta is None) == (eta is None):
        raise ParameterError("give exactly one of delta or eta as the target")
    q = domains.Q.parse(q)
    digits = domains.DIGITS.parse(digits)
    kk = domains.K.parse(k)
    strategy = _strategy(strategy)
    top = exp_eps0_rr(L, q) ** kk
    target = delta if delta is not None else eta
    pairs = _pairs(N, L, k, direction)
    if strategy == "secant" or (strategy == "auto" and _secant_route(pairs)):
        if delta is not None and not all(_kfourier_applies(P) for P in pairs):
            raise ParameterError("strategy 'secant' with a delta target needs the large-N k-copies "
                                 f"strategy (k N >= {_min_outputs()}); use 'bisect' or 'auto'")
        return _epsilon_secant(pairs, q, kk, domains.TARGET.parse(target), top, digits, guess=guess,
                               log=log, direction=direction,
                               quantity="delta" if delta is not None else "eta", deadline=deadline)
    if delta is not None:
        fn = _delta_fn(pairs, q)
    else:
        def fn(lam):
            return _worst([_eta_one(P, q, lam, None, False, digits) for P in pairs])
    return bisect_epsilon(fn, top, target, rel=10.0 ** -digits)


def _strategy(s) -> str:
    if s not in ("auto", "secant", "bisect"):
        raise ParameterError(f"strategy must be 'auto', 'secant' or 'bisect', got {s!r}")
    return s


def _epsilon_secant(pairs, q, k, target, top, digits, *, guess, log, direction,
                    quantity="eta", deadline=None) -> Interval:
    """eps for an eta (or delta) target by :func:`_root_bracket` in ``u = eps`` (rational ``lam``
    near ``e^u``, 40 bits); the ends' ``ln lam`` enclosed exactly."""
    from ..core.lam import ln_interval
    P0 = pairs[0]
    eps_max = math.log(top.numerator) - math.log(top.denominator)
    value = _delta_rel if quantity == "delta" else _eta_rel
    if guess is None:
        guess = _mc_guess(direction, P0.N, P0.L, k, target, q=q, log=log, quantity=quantity)
        if guess is None:
            guess = min(2.0, eps_max / 2)
            if log:
                log(f"  no Monte Carlo estimate came near the target; starting at eps = {guess:g}")
    else:
        guess = float(guess)
        if not 0 <= guess:
            raise ParameterError(f"guess must be an eps >= 0, got {guess}")
    ratio = [8.0, 2.0]            # width / tol seen: eta, delta

    def f(u, relw):
        # (beyond e^650 floats overflow: the top, where eta = 0)
        lam = max(Fraction(round(math.exp(u) * 2**40), 2**40), Fraction(1)) if u < 650 else top
        lam = min(lam, top)
        return (value(pairs, q, lam, None, relw, target, ratio=ratio, deadline=deadline), lam,
                math.log(lam.numerator) - math.log(lam.denominator))

    res = _root_bracket(f, target, guess, rel=10.0 ** -digits, lo=0.0, hi=eps_max, step=0.1,
                        slope=-4.0, log=log, what="eps", max_evals=MAX_EVALS, quantity=quantity,
                        deadline=deadline)
    # lam = top = e^(k eps0) is met (R <= top): the upper end when none was found
    hi = ln_interval(top if res["b"] is None else res["b"][0]).upper
    lo = Fraction(0) if res["a"] is None else ln_interval(res["a"][0]).lower
    out = Interval(max(lo, Fraction(0)), max(hi, Fraction(0)))
    if not res["done"]:
        _not_reached(res, digits, out, "eps")
    return out


def _not_reached(res, digits, reached, what):
    from ..core.errors import DigitsNotMetError
    why = "the time budget (--max-seconds) ran out" if res.get("stopped") else "ask fewer --digits"
    raise DigitsNotMetError(f"--k: {what} in [{float(reached.lower):.8g}, {float(reached.upper):.8g}] "
                            f"(certified{'' if res['a'] and res['b'] else '; one end not found'}; "
                            f"relative width {res['width']:.2g}) after {res['evals']} "
                            f"certified etas, not 10^-{digits}; {why}", reached)


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
                digits: int = 4, grid: int = 16, strategy: str = "auto", guess=None,
                log=None, deadline=None) -> dict:
    """Largest-privacy-safe noise: the least q such that the certified target holds
    at q and at every scanned q above it (``grid`` points in ``[1/1000, 1/2)``),
    refined by bisection in the last cell to relative width ``10^-digits``.

    Returns ``{"q": Interval [q_lo, q_hi], "value_at_q": Interval}`` where the
    target is certified met at ``q_hi`` and not certified at ``q_lo``.

    ``strategy="secant"`` (``"auto"`` where the large-N k-copies strategy comes first,
    ``k N >= 10^4``; a delta target needs it, ``k N >= MIN_OUTPUTS``): no scan;
    :func:`_root_bracket` in ``q`` from ``guess`` or a seeded Monte Carlo estimate of the least
    q, and the target is certified *violated* at ``q_lo`` (``"scan"``: the scan above).
    ``deadline``: the secant's time budget (:func:`k_epsilon`).
    """
    if (eta is None) == (delta is None):
        raise ParameterError("give exactly one of eta or delta as the target")
    digits = domains.DIGITS.parse(digits)
    grid = domains.GRID.parse(grid)
    target = domains.TARGET.parse(eta if eta is not None else delta)
    if (lam is None) == (eps is None):
        raise ParameterError("give exactly one of lam or eps")
    if strategy not in ("auto", "secant", "scan"):
        raise ParameterError(f"strategy must be 'auto', 'secant' or 'scan', got {strategy!r}")
    pairs = _pairs(N, L, k, direction)
    if strategy == "secant" or (strategy == "auto" and _secant_route(pairs)):
        if delta is not None and not all(_kfourier_applies(P) for P in pairs):
            raise ParameterError("strategy 'secant' with a delta target needs the large-N k-copies "
                                 f"strategy (k N >= {_min_outputs()}); use 'scan' or 'auto'")
        return _calibrate_secant(pairs, domains.K.parse(k), lam, eps, target, digits, guess=guess,
                                 log=log, direction=direction,
                                 quantity="delta" if delta is not None else "eta", deadline=deadline)

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


def _calibrate_secant(pairs, k, lam, eps, target, digits, *, guess, log, direction,
                      quantity="eta", deadline=None) -> dict:
    """The least q for an eta (or delta) target by :func:`_root_bracket` in ``u = q`` (rationals
    with ``digits + 4`` decimals)."""
    lam = domains.LAM.parse(lam) if lam is not None else None
    eps = domains.EPS.parse(eps) if eps is not None else None
    P0 = pairs[0]
    if guess is None:
        e = eps if eps is not None else math.log(lam)
        guess = _mc_guess(direction, P0.N, P0.L, k, target, eps=e, log=log, quantity=quantity)
        if guess is None:
            guess = 0.36
            if log:
                log(f"  no Monte Carlo estimate came near the target; starting at q = {guess:g}")
    else:
        guess = domains.Q.parse(guess)
        if guess >= Fraction(1, 2):
            raise ParameterError(f"guess must be a q in (0, 1/2), got {guess}")
        guess = float(guess)
    ratio = [8.0, 2.0]            # width / tol seen: eta, delta
    scale = 10 ** (digits + 4)
    lo, hi = Fraction(1, 1000), Fraction(scale // 2 - 1, scale)

    value = _delta_rel if quantity == "delta" else _eta_rel

    def f(u, relw):
        qq = min(max(Fraction(round(u * scale), scale), lo), hi)
        return value(pairs, qq, lam, eps, relw, target, ratio=ratio, deadline=deadline), qq, float(qq)

    res = _root_bracket(f, target, guess, rel=10.0 ** -digits, lo=float(lo), hi=float(hi),
                        step=0.002, slope=-200.0, log=log, what="q", max_evals=MAX_EVALS,
                        quantity=quantity, deadline=deadline)
    if not res["done"]:                # (at q = 1/2, R = 1: eta = 0 for lam >= 1)
        _not_reached(res, digits, Interval(res["a"][0] if res["a"] else 0,
                                           res["b"][0] if res["b"] else Fraction(1, 2)), "q")
    if res["a"] is None:
        return {"q": Interval(0, res["b"][0]), "value_at_q": res["b"][1],
                "note": "met at q = 1/1000 already", "evaluations": res["evals"]}
    return {"q": Interval(res["a"][0], res["b"][0]), "value_at_q": res["b"][1],
            "value_at_q_lo": res["a"][1], "note": "certified violated at q_lo (secant route)",
            "evaluations": res["evals"]}


# ------------------------------------------------------------------------ CLI
def command(cmd: str, args) -> int:
    """``exactdp (eta|delta|epsilon|calibrate) --k K ...`` (the CLI tree's ``--k`` route;
    errors propagate to :func:`exactdp.apps.cli.main`, which prints one line and exits 2)."""
    rec = _run(cmd, args)
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        v = rec[rec["quantity"]]
        note = (f"; the time budget (--max-seconds {rec['stopped']:g}) ran out: wider than asked"
                if "stopped" in rec else
                f"; wider than {rec['wider_than_asked']} digits: a finer pass would not fit in the time "
                f"budget or is out of reach" if "wider_than_asked" in rec else "")
        print(f"{rec['quantity']} in [{small_in_e(v['lower'])}, {small_in_e(v['upper'])}]  (k={rec['k']}, "
              f"{rec['direction']}, N={rec['N']}, L={rec['L']}"
              + (f", q={rec['q']}" if rec["quantity"] != "q" else "") + f"; certified{note})")
    return 0


def _run(cmd, args) -> dict:
    k = domains.K.parse(args.k)
    N, L = domains.N.parse(args.N), domains.L.parse(args.L)
    direction = domains.parse_direction(args.direction)
    if args.digits is not None:
        digits = domains.DIGITS.parse(args.digits)
    elif cmd in ("epsilon", "calibrate") and _secant_route(_pairs(N, L, k, direction)):
        digits = LARGE_DIGITS
    else:
        digits = 6
    rec = {"N": N, "L": L, "k": k, "direction": direction, "certified": True}
    # --max-seconds: the time budget of the large-N k-copies strategy (walk module doc)
    budget = getattr(args, "max_seconds", None)
    deadline = None if budget is None else time.monotonic() + float(budget)
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
                       digits=digits, progress=prog, deadline=deadline)
        rec.update({"quantity": "eta", "eta": iv.to_dict(digits)})
    elif cmd == "delta":
        iv = k_delta(N, L, args.q, k, lam, eps, direction=direction, deadline=deadline)
        rec.update({"quantity": "delta", "delta": iv.to_dict(digits)})
    elif cmd == "epsilon":
        with _Lines("epsilon --k", args) as log:
            iv = k_epsilon(N, L, args.q, k, delta=args.delta, eta=args.eta, direction=direction,
                           digits=digits, log=log, deadline=deadline)
        rec.update({"quantity": "eps", "eps": iv.to_dict(digits + 1),
                    "target": {"delta" if args.delta is not None else "eta":
                               str(args.delta if args.delta is not None else args.eta)}})
    else:
        with _Lines("calibrate --k", args) as log:
            c = k_calibrate(N, L, k, lam=lam, eps=eps, eta=args.eta, delta=args.delta,
                            direction=direction, digits=digits, grid=args.grid, log=log,
                            deadline=deadline)
        rec.update({"quantity": "q", "q": c["q"].to_dict(digits + 2),
                    "value_at_q": c["value_at_q"].to_dict(digits + 2), "note": c["note"]})
        if "value_at_q_lo" in c:
            rec["value_at_q_lo"] = c["value_at_q_lo"].to_dict(digits + 2)
        if "evaluations" in c:
            rec["evaluations"] = c["evaluations"]
    # the digits asked: --digits for eta; delta's relative width is DELTA_REL (its --digits only
    # rounds the output)
    asked = digits if cmd == "eta" else round(-math.log10(DELTA_REL))
    if cmd in ("eta", "delta") and iv.width * 10 ** asked > iv.upper:
        rec["wider_than_asked"] = asked        # the digits asked were not reached
        if deadline is not None and time.monotonic() > deadline:
            rec["stopped"] = float(budget)     # the budget cut the work short
    return rec


class _Lines:
    """The inverse routes' per-evaluation lines on stderr through :class:`~exactdp.core.progress.Progress`
    (a counter of certified evaluations with the last line as its note; the lines themselves
    are printed only where the bar is drawn: a terminal, not ``--quiet`` / ``--json``)."""

    def __init__(self, label, args):
        from ..core.progress import Progress
        self.prog = Progress(label, unit="eval", delay=0.0,
                             enabled=not (getattr(args, "quiet", False) or args.json))

    def __enter__(self):
        self.prog.__enter__()
        return self if self.prog.active else None

    def __call__(self, line: str):
        if line.lstrip().startswith("["):
            self.prog.update()
        self.prog.write(line)

    def __exit__(self, *exc):
        return self.prog.__exit__(*exc)


# ------------------------------------------------- inverse queries at large k N
#: the inverse queries (epsilon, calibrate with an eta target) take the secant route below when
#: every pair's first strategy is the large-N k-copies one (k N >= methods.KFOURIER_FIRST)
#: Monte Carlo draws and seed of the starting estimate (:func:`exactdp.apps.kscale.mc_eta`;
#: 20000 draws: ~1-2 s per estimate at L = 40, N = 10^7, k <= 16)
MC_DRAWS = 20_000
MC_SEED = 3
#: the finest relative eta width one certified evaluation is asked for (kfourier tol ~1e-10 at
#: eta ~ 1 %), and the most certified evaluations of one bracket
REL_FLOOR = 1e-7
MAX_EVALS = 40
#: this many certified etas in a row more than 3x wider than asked end the search (the engine's
#: precision floor: at L = 40, N = 10^7, k = 16 about 6e-4 relative; eps's bracket at 10^-4 would
#: need ~3e-4 where log eta falls by only ~1.6 per unit eps): the reached bracket is reported
STUCK = 2
#: digits of eps / q by default on the secant route (each digit costs a tighter certified eta)
LARGE_DIGITS = 4


def _secant_route(pairs) -> bool:
    """True when every pair's first eta strategy is the large-N k-copies one."""
    from ..reductions import methods
    return all(P.k > 1 and methods.supported(P, "eta")[:1] in (("kfourier",), ("ktilt",)) for P in pairs)


def _eta_rel(pairs, q, lam, eps, relw, target, *, ratio, deadline=None) -> Interval:
    """Certified eta of the worse pair with relative width about ``relw`` near ``target``:
    the large-N k-copies strategy at heavy-node tolerance ``relw target / ratio`` (its width is a
    few times ``tol``; ``ratio`` is updated with what is seen), else :mod:`~exactdp.reductions.methods`."""
    from ..core.errors import PrecisionError
    from ..reductions.kfourier import kfourier_eta
    out = []
    for P in pairs:
        if _kfourier_applies(P):
            tol = min(max(relw * float(target) / ratio[0], 1e-11), 1e-3)
            try:
                iv = kfourier_eta(P, q, lam, eps=eps, tol=tol, deadline=deadline)
            except (PrecisionError, CapacityError):
                iv = None                    # out of the strategy's reach here: auto's other methods
            if iv is not None and iv.width > 0:
                ratio[0] = max(ratio[0], min(float(iv.width) / tol, 100.0))
        else:
            iv = None
        if iv is None:
            iv = _eta_one(P, q, lam, eps, False, max(2, math.ceil(-math.log10(relw)) + 1), deadline=deadline)
        out.append(iv)
    return _worst(out)


def _delta_rel(pairs, q, lam, eps, relw, target, *, ratio, deadline=None) -> Interval:
    """Certified delta of the worse pair with relative width about ``relw`` near ``target``: the
    difference of two large-N etas (:func:`exactdp.reductions.kfourier.kfourier_delta`, one pass)
    at heavy-node tolerance ``relw target / ratio`` (``ratio``: the width over ``tol`` seen, updated),
    else :func:`_delta_one` (the exact enumeration, or kfourier's passes)."""
    from ..core.errors import PrecisionError
    from ..reductions.kfourier import kfourier_delta
    out = []
    for P in pairs:
        iv = None
        if _kfourier_applies(P):
            tol = min(max(relw * float(target) / ratio[1], 1e-12), 1e-3)
            try:
                iv = kfourier_delta(P, q, lam, eps=eps, tol=tol, deadline=deadline)
            except (PrecisionError, CapacityError):
                iv = None
            if iv is not None and iv.width > 0:
                ratio[1] = max(ratio[1], min(float(iv.width) / tol, 100.0))
        if iv is None:
            iv = _delta_one(P, q, lam, eps, max(relw, 1e-6), deadline=deadline)
        out.append(iv)
    return _worst(out)


def _root_bracket(f, target, guess: float, *, rel: float, lo: float, hi: float, step: float,
                  slope: float, log=None, max_evals: int = MAX_EVALS, what: str = "u",
                  quantity: str = "eta", deadline=None) -> dict:
    """Certified bracket of the root of a nonincreasing ``f(u) = target`` (u a float coordinate:
    q or eps).  ``f(u, relw) -> (Interval, key, u_used)`` evaluates at the rational ``key`` near
    ``u`` with relative width about ``relw``.

    A secant in ``log f`` through the evaluations' midpoints predicts the root ``r`` (start:
    ``guess``, e.g. a Monte Carlo estimate, only a guide; first slope ``slope``); the next
    evaluation lies at ``r -+ d`` (``d``: the root's current uncertainty, at least 0.4 of the
    final width ``rel r``) with just the precision that decides it against ``target``
    (``|log f(r -+ d) - log target| ~ |slope| d``).  Every decided evaluation moves an end:
    ``a`` (certified violated, ``f.lower > target``) or ``b`` (certified met, ``f.upper <=
    target``), whatever the guess; undecided ones only feed the secant.  Returns
    ``{"a": (key, Interval) or None, "b": ..., "evals": n, "width": (b - a) / b, "done": bool}``
    (``done``: the width ``rel`` reached within ``max_evals``, and before :data:`STUCK`
    enclosures in a row within a factor 2 of the target come back more than 3 times wider than
    asked; when done, ``a`` is None only if
    ``f`` is met at ``lo``; when not, an end not found is None).  When the secant stalls
    (eta is a step function of lam and q at small N: R has atoms) every third evaluation
    bisects the bracket.  ``deadline`` (a ``time.monotonic()`` instant): no evaluation starts
    after it (``"stopped"`` in the result; ``done`` False unless the width was reached)."""
    t = Fraction(target)
    lt = math.log(t)
    t0 = time.time()
    pts = []
    ends = {"a": None, "b": None}          # (u, key, iv)
    seen = {}
    n = stuck = 0

    def ev(u, relw):
        nonlocal n, stuck
        relw = min(max(relw, REL_FLOOR), 0.2)
        iv, key, u = f(u, relw)
        n += 1
        # an enclosure near the target far wider than asked (the engine's floor, e.g. k >= 8 at
        # L = 40): counted; far from the target (eta tiny or large) the width does not matter
        wide = (t / 2 <= iv.upper and iv.lower <= 2 * t
                and float(iv.width / iv.upper) > 3 * relw)
        stuck = stuck + 1 if wide else 0
        if iv.upper <= t:
            if ends["b"] is None or u < ends["b"][0]:
                ends["b"] = (u, key, iv)
            side = "met"
        elif iv.lower > t:
            if ends["a"] is None or u > ends["a"][0]:
                ends["a"] = (u, key, iv)
            side = "violated"
        else:
            side = "undecided"
        if iv.lower > 0 and iv.upper <= 4 * iv.lower:
            lo_, hi_ = math.log(float(iv.lower)), math.log(float(iv.upper))
            pts.append((u, (lo_ + hi_) / 2, (hi_ - lo_) / 2))
        seen[key] = seen.get(key, 0) + 1
        if log:
            a, b = ends["a"], ends["b"]
            log(f"  [{n}] {what} = {u:.10g}: {quantity} in [{float(iv.lower):.6g}, {float(iv.upper):.6g}] "
                f"(asked {relw:.1g} relative) {side}; {what} in [{'?' if a is None else f'{a[0]:.8g}'}, "
                f"{'?' if b is None else f'{b[0]:.8g}'}] ({time.time() - t0:.0f} s)")
        return side, key

    def predict():
        """(root estimate, its uncertainty, slope): the slope of ``log f`` from the pair of
        points that fixes it best, the root from the point whose enclosure pins it best."""
        if not pts:
            return None
        s, best = slope, 0.5
        for i, (u1, y1, h1) in enumerate(pts):
            for u2, y2, h2 in pts[i + 1:]:
                if u2 != u1:
                    s2 = (y2 - y1) / (u2 - u1)
                    err = (h1 + h2) / abs(u2 - u1) / abs(s2) if s2 < 0 else math.inf
                    if err < best:
                        s, best = s2, err
        out, serr = None, max(best, 0.05)
        for u1, y1, h1 in pts:
            r1 = u1 + (lt - y1) / s
            unc = h1 / abs(s) + serr * abs(r1 - u1)
            if out is None or unc < out[1]:
                out = (r1, unc, s)
        return out

    def done():
        a, b = ends["a"], ends["b"]
        if b is not None and b[0] <= lo:
            return True
        return a is not None and b is not None and b[0] - a[0] <= rel * abs(b[0])

    d = step
    slow, last, boost = 0, math.inf, 1.0
    ev(min(max(guess, lo), hi), 0.5 * abs(slope) * d)
    # two enclosures in a row far wider than asked: the width is out of the engine's reach here
    def expired():
        return deadline is not None and time.monotonic() > deadline

    while not done() and n < max_evals and stuck < STUCK and not expired():
        a, b = ends["a"], ends["b"]
        pr = predict()
        s = slope
        if pr is None:                       # nothing informative: step towards the root
            rp = (a[0] + b[0]) / 2 if a and b else (a[0] + d if a else b[0] - d)
            d *= 2
        else:
            rp, unc, s = pr
            d = unc
        if (a and rp <= a[0]) or (b and rp >= b[0]):
            rp = (a[0] + b[0]) / 2 if a and b else (a[0] + d if a else b[0] - d)
        rp = min(max(rp, lo), hi)
        d = max(d, 0.4 * rel * abs(rp))
        if a and b:
            d = min(d, (b[0] - a[0]) / 2)
        da = rp - a[0] if a else math.inf
        db = b[0] - rp if b else math.inf
        if a and b:
            width = b[0] - a[0]
            slow = slow + 1 if width > 0.7 * last else 0
            last = width
        if slow >= 2:                        # the secant stalls (a step of eta): bisect
            slow = 0
            x = (a[0] + b[0]) / 2
            rp = x + 0.5 * (b[0] - a[0])
        elif da > db:
            x = rp - d
            if a and x <= a[0]:
                x = (a[0] + rp) / 2
        else:
            x = rp + d
            if b and x >= b[0]:
                x = (b[0] + rp) / 2
        x = min(max(x, lo), hi)
        side, key = ev(x, 0.25 * abs(s) * abs(x - rp) * boost)
        # the same rational undecided again: ask for more precision next time
        boost = boost / 10 if side == "undecided" and seen[key] > 1 else 1.0
    a, b = ends["a"], ends["b"]
    width = math.inf if a is None or b is None else (b[0] - a[0]) / abs(b[0]) if b[0] else 0.0
    if b is not None and b[0] <= lo:
        width = 0.0
    return {"a": None if a is None else (a[1], a[2]), "b": None if b is None else (b[1], b[2]),
            "evals": n, "width": width, "done": done(), "stopped": not done() and expired()}


def _mc_root(fn, target: float, u0: float, u1: float, *, lo: float, hi: float, draws: int,
             log=None, what="u", quantity="eta") -> tuple[float, bool]:
    """The secant on ``log`` of a seeded Monte Carlo estimate ``fn(u)`` (nonincreasing in u): a
    root *estimate* (not certified) and whether it came near the target."""
    lt = math.log(target)

    def g(u):
        v = fn(u)
        if log:
            log(f"  {what} = {u:.6g}: Monte Carlo {quantity} ~ {v:.4g} ({draws} draws, an estimate)")
        return math.log(max(v, 1.0 / draws)) - lt
    f0, f1 = g(u0), g(u1)
    for _ in range(5):
        if f1 == f0 or abs(f1) < 0.05:
            break
        u2 = u1 - f1 * (u1 - u0) / (f1 - f0)
        span = 4 * abs(u1 - u0) + 1e-9
        u2 = min(max(u2, u1 - span, lo), u1 + span, hi)
        u0, f0, u1 = u1, f1, u2
        f1 = g(u1)
    return u1, abs(f1) < 1.0


def _mc_guess(direction, N, L, k, target, *, q=None, eps=None, log=None,
              quantity="eta") -> float | None:
    """A Monte Carlo estimate (not certified) of the least q (``q is None``) or the least eps
    (``eps is None``) with eta (or delta) = target for the worse pair; ``None`` when none came
    near."""
    from .kscale import mc_delta, mc_eta
    mc = mc_delta if quantity == "delta" else mc_eta
    out = []
    for rev in {"forward": [False], "reverse": [True], "worst": [False, True]}[direction]:
        if q is None:
            e = float(eps)
            fn = lambda u: mc(k, Fraction(u).limit_denominator(10**9), N=N, L=L, eps=e,  # noqa: E731
                                  draws=MC_DRAWS, seed=MC_SEED, reverse=rev)
            u, ok = _mc_root(fn, float(target), 0.36, 0.365, lo=0.01, hi=0.499, draws=MC_DRAWS,
                             log=log, what="q", quantity=quantity)
        else:
            qq = Fraction(q)
            fn = lambda u: mc(k, qq, N=N, L=L, eps=u, draws=MC_DRAWS, seed=MC_SEED,  # noqa: E731
                                  reverse=rev)
            u, ok = _mc_root(fn, float(target), 2.0, 2.2, lo=1e-6, hi=50.0, draws=MC_DRAWS,
                             log=log, what="eps", quantity=quantity)
        if ok:
            out.append(u)
    return max(out) if out else None
