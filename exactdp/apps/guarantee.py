"""A deployable bracket on the true eps(delta) (or delta(eps)) of shuffled L-bit RR.

The *true* privacy curve of the shuffled mechanism is the worst over every
pair of collections differing in one user.  :func:`guarantee` encloses it:

* ``lower`` -- the certified value of the worst pair exactdp evaluates: 000's
  canonical pair (N-1 zero vectors + one ones vector vs N zero vectors) in the
  forward and reverse directions (000 §1.3, 003 §2.1), via
  :func:`exactdp.law.distribution.from_randomized_response`.  Any pair's curve is
  a lower bound on the worst pair's, so the *lower end* of that certified
  interval is a certified lower bound on the true value.
* ``upper`` -- a bound valid for *all* neighbouring pairs: the least of the
  certified published bounds of :mod:`exactdp.apps.peers` (FMT 2021 clone,
  Balle et al. 2019 blanket in its Hoeffding and Bennett forms; the FMT 2023
  stronger clone is reported but not used, :data:`exactdp.apps.peers.UNPROVED`:
  the paper's erratum restricts its theorem to a class of randomizers that L-bit
  RR is not shown to belong to), each specialised to L-bit RR with exactly computed parameters and
  evaluated in ball arithmetic; the *upper end* of the chosen enclosure is
  reported and named, so the upper end is certified (relative to the peer's
  theorem).  The Wang et al. 2024 variation-ratio pair is reported among the
  peers but **never used** (:data:`exactdp.apps.peers.REFUTED`): as implemented
  it is below the exact divergence of a neighbouring pair at L = 2
  (``proofs/split_clone.py``, ``vr-forgetful-pair``); its corrected form,
  :mod:`exactdp.apps.split_clone` (proved), is never below the stronger clone
  at the parameters tried, so it is not evaluated here.

At L = 1 and N <= ``all_pairs_max_n`` (default 1000) the bracket is closed
exactly: :mod:`exactdp.apps.allpairs` evaluates the maximum over *every*
neighbouring pair (N pair classes, exact rationals), so both ends are the true
value (upper end name ``exact-all-pairs-L1``).  At L = 1 beyond that range the
upper end comes from the block lemma (:mod:`exactdp.apps.blockbound`, proved in
``proofs/block_bound_l1.py``; name ``all-pairs-blocks-L1``): a certified bound
on the maximum over every pair at ``(1 + eta)`` times the canonical pair's
upper end, ``eta`` refined from 10 % down to ``block_rel`` (default 0.1 %)
while the certification succeeds, so the bracket's relative gap is about
``block_rel`` and the upper end is strictly below every published bound
(n = 10^5, q = 1/4, delta = 1e-6: 0.011359 against 0.014091 for the best).
At any L a further candidate is Balle et al.'s blanket lemma evaluated with
the exact MGF of L-bit RR's privacy amplification variable
(:mod:`exactdp.apps.blanket_mgf`; name ``blanket-exact-mgf``), below both
published blanket forms: at L = 5, q = 1/4, delta = 1e-6 it is the least
bound from n = 10^3 on (n = 10^3: 2.19037 against 2.6598 for the variation
ratio, which is refuted).  For L > 1 the gap ``upper - lower`` stays wide:
maximality of the canonical pair is not proved (the project found it false in
general) and no reduction is tight.  Where few reports are blanket or clone
(n (2q)^L and n (q/p)^L small: L = 5, n = 10^2; L = 40, n = 10^7) every valid
published bound is within 10^-5 of eps0 = L log(p/q); there the upper end is
exactdp's blanket count (:mod:`exactdp.apps.blanket_count`, proved in
``proofs/blanket_count.py``; name ``blanket-exact-count``): the blanket
decomposition conditioned on the number of uniform reports, with the exact
divergence of the changed report among them (L = 5, n = 10^2: 5.4929732 against
5.4930599; L = 40, n = 10^7: 17.108305 against 24.5858587; docs/peers.md, "Where
the published bounds do not amplify").

>>> g = guarantee(50, 2, "1/4", delta="1e-3")
>>> g.lower <= g.upper, g.upper_bound
(True, 'blanket-exact-mgf')
>>> guarantee(50, 1, "1/4", delta="1e-3").upper_bound
'exact-all-pairs-L1'
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from fractions import Fraction

from ..core import domains
from ..core.errors import CapacityError, ParameterError
from dataclasses import replace as _replace
from ..core.interval import Interval, fraction_to_decimal_str
from .peers import (REFUTED, UNPROVED, certified_peer_deltas, certified_peer_epsilons,
                    exp_eps0_rr, fmt21_closed_form)

_DELTA = _replace(domains.TARGET, name="delta")

__all__ = ["Guarantee", "guarantee", "add_arguments", "command", "main"]

LOWER_PAIR = ("000 canonical pair: D = N zero vectors, D_m = N-1 zero vectors + one all-ones "
              "vector, worst of forward and reverse")


@dataclass(frozen=True)
class Guarantee:
    """A certified bracket ``[lower, upper]`` on the true eps(delta) or delta(eps).

    ``quantity`` is ``"epsilon"`` (``target`` = delta) or ``"delta"``
    (``target`` = eps).  ``lower_interval``/``upper_interval`` are the full
    certified enclosures the two ends come from.
    """

    N: int
    L: int
    q: Fraction
    quantity: str
    target: Fraction
    lower: Fraction
    upper: Fraction
    lower_pair: str
    lower_direction: str
    upper_bound: str
    lower_interval: Interval
    upper_interval: Interval
    peers: dict

    @property
    def gap(self) -> Fraction:
        return self.upper - self.lower

    def to_dict(self, digits: int = 8) -> dict:
        lo = fraction_to_decimal_str(self.lower, digits, "floor")
        hi = fraction_to_decimal_str(self.upper, digits, "ceiling")
        return {"N": self.N, "L": self.L, "q": str(self.q), "quantity": self.quantity,
                ("delta" if self.quantity == "epsilon" else "eps"): str(self.target),
                "lower": lo, "upper": hi,
                "relative_gap": f"{float(self.gap / self.lower):.4g}" if self.lower > 0 else None,
                "lower_pair": self.lower_pair, "lower_direction": self.lower_direction,
                "upper_bound": self.upper_bound,
                "lower_interval": self.lower_interval.to_dict(digits),
                "upper_interval": self.upper_interval.to_dict(digits),
                "peers": self.peers,
                "note": ("lower: certified value of the named pair (a lower bound on the worst "
                         "pair); upper: certified bound valid for every neighbouring pair -- a "
                         "published bound, or exactdp's all-pairs-blocks-L1 (proofs/"
                         "block_bound_l1.py) / blanket-exact-mgf (the blanket lemma with the "
                         "exact MGF) / blanket-exact-count (proofs/blanket_count.py), as named "
                         "in upper_bound")}


#: name of the exact all-pairs upper end (L = 1, small N)
ALL_PAIRS = "exact-all-pairs-L1"
#: name of the block-lemma all-pairs upper end (L = 1, any N; exactdp.apps.blockbound)
BLOCK_L1 = "all-pairs-blocks-L1"
#: name of the exact-MGF blanket upper end (exactdp.apps.blanket_mgf)
MGF_NAME = "blanket-exact-mgf"
#: name of the blanket-count upper end (exactdp.apps.blanket_count, proofs/blanket_count.py)
COUNT_NAME = "blanket-exact-count"


def guarantee(N, L, q, *, delta=None, eps=None, digits: int = 6, max_seconds=None,
              all_pairs_max_n: int = 1000, block_rel: float = 1e-3) -> Guarantee:
    """Certified bracket on the shuffled mechanism's eps(delta) (``delta=``) or
    delta(eps) (``eps=``) over all neighbouring pairs; see the module doc.
    """
    from ..law.distribution import from_randomized_response
    N = domains.N.parse(N)
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    if (delta is None) == (eps is None):
        raise ParameterError("give exactly one of delta (in (0, 1)) or eps (>= 0)")
    e0 = exp_eps0_rr(L, q)
    worst = from_randomized_response(N, L, q, "worst")
    rel = 10.0 ** (-digits)
    peers = {}
    if delta is not None:
        d = _DELTA.parse(delta)
        f, r = _both_directions_epsilon(worst, L, d, e0, digits, max_seconds)
        lower_iv, direction = _worse(f, r, N, L)
        ups = certified_peer_epsilons(N, L, q, d, rel=rel)
        cf = fmt21_closed_form(N, e0, d)
        peers["fmt21-closed"] = None if cf is None else repr(float(cf))
        quantity, target = "epsilon", d
    else:
        e = domains.EPS.parse(eps)
        f = _pair_query(worst.forward, "delta", e, e0, digits, max_seconds)
        r = _pair_query(worst.reverse, "delta", e, e0, digits, max_seconds)
        lower_iv, direction = _worse(f, r, N, L)
        lam_lo = _exp_lower(e)
        ups = certified_peer_deltas(N, L, q, lam_lo)
        quantity, target = "delta", e
    for v, iv in ups.items():
        peers[v] = iv.to_dict(digits + 2)
        if v in REFUTED:
            peers[v]["refuted"] = REFUTED[v]
        if v in UNPROVED:
            peers[v]["unproved"] = UNPROVED[v]
    best = _least_valid(ups)
    upper_iv = ups[best]
    lower_pair, upper_name = LOWER_PAIR, best
    mgf = _blanket_mgf(N, L, q, quantity, target, upper_iv.upper, rel=rel)
    if mgf is not None:
        peers[MGF_NAME] = mgf.to_dict(digits + 2)
        if mgf.upper < upper_iv.upper:
            upper_iv, upper_name = mgf, MGF_NAME
    cnt = _blanket_count(N, L, q, quantity, target, upper_iv.upper, rel=rel)
    if cnt is not None:
        peers[COUNT_NAME] = cnt.to_dict(digits + 2)
        if cnt.upper < upper_iv.upper:
            upper_iv, upper_name = cnt, COUNT_NAME
    if L == 1 and N <= all_pairs_max_n:
        lower_iv, upper_iv, lower_pair, direction = _all_pairs_l1(
            N, q, quantity, target, lower_iv, rel)
        upper_name = ALL_PAIRS
    elif L == 1:
        blk = _block_bound_l1(N, q, quantity, target, lower_iv, upper_iv.upper,
                              block_rel=block_rel, max_seconds=max_seconds)
        if blk is not None and blk.upper < upper_iv.upper:
            upper_iv, upper_name = blk, BLOCK_L1
    return Guarantee(N, L, q, quantity, target, lower_iv.lower, upper_iv.upper, lower_pair,
                     direction, upper_name, lower_iv, upper_iv, peers)


def _least_valid(ups: dict) -> str:
    """Name of the least upper end among the peer bounds in neither :data:`REFUTED` nor
    :data:`UNPROVED` (the SODA'23 stronger clone, whose theorem its erratum restricts)."""
    return min((v for v in ups if v not in REFUTED and v not in UNPROVED),
               key=lambda v: ups[v].upper)


def _pair_query(dist, what, target, e0, digits, max_seconds):
    """The canonical pair's certified eps(delta) or delta(eps) in one direction.

    The ordinary engine first; where it refuses (tree beyond capacity, or a
    float screening it cannot resolve) the deployment-scale Fourier strategy
    (:mod:`exactdp.engine.largen`, ``method="fourier"``) at a few digits, bisected on
    rational lambda for eps.  ``None`` when neither can evaluate it."""
    from ..core.errors import CapacityError, PrecisionError
    from .peers import bisect_epsilon
    from ..law.queries import FOURIER_EPS_DIGITS
    if dist.choose_method() == "fourier":       # beyond the tree: a few digits is the most
        digits = min(digits, FOURIER_EPS_DIGITS)
    try:
        if what == "epsilon":
            return dist.epsilon(delta=target, digits=digits, max_seconds=max_seconds)
        if what == "delta_lam":
            return dist.delta(lam=target, digits=digits, max_seconds=max_seconds)
        return dist.delta(eps=target, digits=digits, max_seconds=max_seconds)
    except (CapacityError, PrecisionError):
        pass
    from ..core.errors import DigitsNotMetError

    def coarse(**kw):                 # a certified enclosure, whatever digits it reaches
        try:
            return dist.delta(digits=3, method="fourier", **kw)
        except DigitsNotMetError as e:
            return e.reached
    try:
        if what == "epsilon":
            return bisect_epsilon(lambda lam: coarse(lam=lam), e0, target, rel=1e-3)
        if what == "delta_lam":
            return coarse(lam=target)
        return coarse(eps=target)
    except (CapacityError, PrecisionError):
        return None


def _both_directions_epsilon(worst, L, d, e0, digits, max_seconds):
    """The canonical pair's certified eps(d) forward and reverse.

    Beyond the tree (Fourier strategy) one direction -- the usually worse one,
    reverse at L = 1, forward otherwise -- is computed first; the other is skipped
    (``None``) when a single certified delta query shows it is not worse: its
    delta at a rational ``lam <= e^(first's upper end)`` is ``<= d``, so its eps
    is at most the first's upper end and cannot change the bracket."""
    if worst.forward.choose_method() != "fourier":
        return (_pair_query(worst.forward, "epsilon", d, e0, digits, max_seconds),
                _pair_query(worst.reverse, "epsilon", d, e0, digits, max_seconds))
    names = ("reverse", "forward") if L == 1 else ("forward", "reverse")
    dists = {"forward": worst.forward, "reverse": worst.reverse}
    out = {names[0]: _pair_query(dists[names[0]], "epsilon", d, e0, digits, max_seconds)}
    first = out[names[0]]
    other = dists[names[1]]
    if first is not None and first.upper > 0:
        lam = _exp_lower(first.upper)
        probe = _pair_query(other, "delta_lam", lam, e0, 3, max_seconds)
        if probe is not None and probe.upper <= d:
            return out.get("forward"), out.get("reverse")
    out[names[1]] = _pair_query(other, "epsilon", d, e0, digits, max_seconds)
    return out["forward"], out["reverse"]


def _worse(f, r, N, L):
    """The worse of the two directions' certified intervals (by lower end)."""
    if f is None and r is None:
        raise CapacityError(f"guarantee: the canonical pair at N={N}, L={L} is beyond both the "
                            "tree and the Fourier strategy; no certified lower end")
    if r is None or (f is not None and f.lower >= r.lower):
        return f, "forward"
    return r, "reverse"


def _all_pairs_l1(N, q, quantity, target, lower_iv, rel):
    """L = 1, small N: the exact maximum over every neighbouring pair
    (:mod:`exactdp.apps.allpairs`).  Returns (lower interval, upper interval, pair, direction)."""
    from . import allpairs
    if quantity == "epsilon":
        ok, m, _ = allpairs.certify_epsilon(N, q, target, lower_iv.upper)
        if ok:  # the canonical pair is the worst at this delta: bracket closed
            return lower_iv, lower_iv, LOWER_PAIR, "reverse" if m == N - 1 else "forward"
        iv, m = allpairs.epsilon_all_pairs(N, q, target, rel=rel)
        return iv, iv, _m_pair(m, N), _m_dir(m, N)
    lam_lo = _exp_lower(target)
    lam_hi = _exp_upper(target)
    up, _ = allpairs.worst_delta(N, q, lam_lo)
    lo, m = allpairs.worst_delta(N, q, lam_hi)
    if lo > lower_iv.lower:
        return Interval(lo, up), Interval(lo, up), _m_pair(m, N), _m_dir(m, N)
    return lower_iv, Interval(lower_iv.lower, max(up, lower_iv.lower)), LOWER_PAIR, "worst"


def _blanket_mgf(N, L, q, quantity, target, best_upper, *, rel):
    """The blanket lemma with the exact MGF (:mod:`exactdp.apps.blanket_mgf`): its
    certified enclosure when it may beat ``best_upper`` (one evaluation decides
    whether the eps bisection is worth running), else ``None``."""
    from .blanket_mgf import blanket_mgf_delta, blanket_mgf_epsilon
    if quantity == "delta":
        return blanket_mgf_delta(N, L, q, _exp_lower(target))
    lam = _exp_lower(best_upper)
    if lam <= 1 or blanket_mgf_delta(N, L, q, lam).upper > target:
        return None        # its eps is above the best bound already in hand
    return blanket_mgf_epsilon(N, L, q, target, rel=rel)


def _blanket_count(N, L, q, quantity, target, best_upper, *, rel):
    """The blanket-count bound (:mod:`exactdp.apps.blanket_count`, proved in
    ``proofs/blanket_count.py``): its certified enclosure when one evaluation at
    ``best_upper`` shows it may beat it, else ``None``."""
    from .blanket_count import blanket_count_delta, blanket_count_epsilon
    if quantity == "delta":
        return blanket_count_delta(N, L, q, _exp_lower(target))
    lam = _exp_lower(best_upper)
    if lam <= 1 or blanket_count_delta(N, L, q, lam).upper > target:
        return None
    return blanket_count_epsilon(N, L, q, target, rel=rel)


def _block_bound_l1(N, q, quantity, target, lower_iv, peer_upper, *, block_rel, max_seconds):
    """L = 1 beyond the exact all-pairs range: an upper end valid for every pair from the
    block lemma (:func:`exactdp.apps.blockbound.epsilon_upper` / ``delta_upper``,
    ``proofs/block_bound_l1.py``), started from the canonical pair's certified
    upper end; ``Interval(lower end, c)`` or ``None`` (then the published bounds stand)."""
    from .blockbound import delta_upper, epsilon_upper
    if lower_iv is None or lower_iv.upper <= 0:
        return None
    fn = epsilon_upper if quantity == "epsilon" else delta_upper
    c = fn(N, q, target, lower_iv.upper, rel=block_rel, ceiling=peer_upper,
           max_seconds=max_seconds)
    return None if c is None else Interval(min(lower_iv.lower, c), c)


def _m_dir(m, N):
    return "reverse" if m == N - 1 else "forward"


def _m_pair(m, N):
    if m in (0, N - 1):
        return LOWER_PAIR
    return (f"L = 1 pair: one user's bit 1 vs 0, the other {N - 1} users hold {m} ones "
            f"(exact maximiser over all pairs)")


def _exp_upper(eps: Fraction) -> Fraction:
    from flint import arb, ctx
    from ..core.interval import arb_to_interval
    with ctx.workprec(256):
        return arb_to_interval((arb(eps.numerator) / eps.denominator).exp()).upper


def _exp_lower(eps: Fraction) -> Fraction:
    """A rational ``<= e^eps`` (certified, from an arb ball); delta is
    decreasing in lambda, so the clone delta there bounds delta(e^eps) above."""
    from flint import arb, ctx
    from ..core.interval import arb_to_interval
    with ctx.workprec(256):
        x = arb_to_interval((arb(eps.numerator) / eps.denominator).exp()).lower
    return max(Fraction(1), x)


# ------------------------------------------------------------------------ CLI
DESCRIPTION = ("certified bracket on the true eps(delta) of shuffled L-bit RR over all "
               "neighbouring pairs")


def add_arguments(p) -> None:
    """The arguments of ``exactdp guarantee`` (``--json``/``--quiet`` come from the CLI tree)."""
    p.add_argument("-N", required=True, help=domains.N.describe())
    p.add_argument("-L", required=True, help=domains.L.describe())
    p.add_argument("-q", required=True, help=domains.Q.describe())
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--delta", help="target delta in (0, 1): bracket eps(delta)")
    g.add_argument("--eps", help=domains.EPS.describe() + ": bracket delta(eps)")
    p.add_argument("--digits", default="6", help=domains.DIGITS.describe())
    p.add_argument("--max-seconds", default="1800",
                   help="give up (one line, exit 2) after this many seconds; default 1800")


def _timed_guarantee(args, digits):
    """guarantee() under a wall-clock limit: it runs in a daemon worker thread;
    on timeout a one-line ParameterError that still reports the least published
    bound (cheap to evaluate, valid for every pair).  The worker is abandoned
    (the command line exits right after)."""
    import threading
    try:
        ms = float(args.max_seconds)
    except ValueError:
        ms = -1.0
    if not 0 < ms < 10**7:
        raise ParameterError(f"--max-seconds must be a number in (0, 1e7), got {args.max_seconds!r}")
    kw = dict(delta=args.delta, eps=args.eps, digits=digits)
    box = {}

    def work():
        try:
            box["g"] = guarantee(args.N, args.L, args.q, **kw)
        except BaseException as e:  # handed to the caller's thread
            box["e"] = e
    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(ms)
    if "e" in box:
        raise box["e"]
    if "g" in box:
        return box["g"]
    from .peers import CITATIONS
    what = "eps" if args.delta is not None else "delta"
    if args.delta is not None:
        ups = certified_peer_epsilons(args.N, args.L, args.q, _DELTA.parse(args.delta), rel=1e-4)
    else:
        ups = certified_peer_deltas(args.N, args.L, args.q, _exp_lower(domains.EPS.parse(args.eps)))
    best = _least_valid(ups)
    assert best in CITATIONS
    raise ParameterError(
        f"guarantee: the canonical pair's certified value (lower end) did not finish within "
        f"--max-seconds {args.max_seconds} at N={args.N}, L={args.L}; the least published bound "
        f"alone gives {what} <= {fraction_to_decimal_str(ups[best].upper, 6, 'ceiling')} "
        f"({best}, valid for every pair)")


def main(argv=None) -> int:
    """``exactdp guarantee ARGS`` (the one CLI parser tree, :mod:`exactdp.apps.cli`)."""
    from .cli import main as cli_main
    return cli_main(["guarantee", *(sys.argv[1:] if argv is None else argv)])


def command(args) -> int:
    """``exactdp guarantee -N -L -q (--delta D | --eps E) [--json]``."""
    digits = domains.DIGITS.parse(args.digits)
    g = _timed_guarantee(args, digits)
    rec = g.to_dict(digits + 2)
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        name = "eps(delta=" + str(args.delta) + ")" if g.quantity == "epsilon" else \
            "delta(eps=" + str(args.eps) + ")"
        print(f"{name} for N={g.N}, L={g.L}, q={args.q}: in [{rec['lower']}, {rec['upper']}]"
              f"  (relative gap {rec['relative_gap']})")
        print(f"  lower: {g.lower_pair} ({g.lower_direction} is worse), certified")
        print(f"  upper: {g.upper_bound} bound (valid for every pair), certified")
        if rec["peers"].get("fmt21-closed"):
            print(f"  FMT 2021 closed form (float): {rec['peers']['fmt21-closed']}")
    return 0
