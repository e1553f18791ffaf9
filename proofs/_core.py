"""Shared machinery of the proof scripts: the Identity record and the checks.

Status vocabulary (issue 3):

* ``proved``  -- a symbolic argument covering the whole parameter range: sympy
  reduces the difference to zero (or an inequality to a manifestly signed
  form), possibly combined with a named standard fact stated in ``reason``
  (binomial theorem, independence, Vandermonde's identity).
* ``checked`` -- exact rational evidence only (many random points, or an
  exhaustive finite range); ``reason`` says why it is not a proof.
* ``refuted`` -- a concrete exact counterexample (parameters and both sides as
  exact strings) plus a corrected form that is itself proved.
* ``open``    -- undecided; ``reason`` says why computation cannot decide it.

Every check is exact: ``fractions.Fraction`` / sympy ``Rational``; floats never
enter a verdict.  Random points come from ``random.Random(seed)`` with fixed
seeds.  Each script declares the status it expects; a different outcome raises
:class:`ProofError`, so a regression (or a sympy change) fails the build
instead of silently changing the table.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, asdict, field
from fractions import Fraction

import sympy as sp

P000 = "000_3d8ddaba8b46cf9c.txt"
P001 = "001_941cee538ccfd264.txt"
P003 = "003_602e16ce409ec962.txt"
P004 = "004_2dc0f03e3090471b.txt"

STATUSES = ("proved", "checked", "refuted", "open")

# common symbols: q the flip probability, p = 1 - q unless a script uses P
q = sp.Symbol("q", positive=True)
p = 1 - q
L = sp.Symbol("L", positive=True, integer=True)
N = sp.Symbol("N", positive=True, integer=True)
k = sp.Symbol("k", positive=True, integer=True)
l = sp.Symbol("l", nonnegative=True, integer=True)
t = sp.Symbol("t", positive=True)


class ProofError(AssertionError):
    """A proof script did not reach the status it declares."""


@dataclass
class Identity:
    id: str
    source: str
    equation: str
    statement: str
    status: str
    reason: str
    counterexample: dict | None = None
    corrected: str | None = None
    topic: str = ""

    def as_dict(self) -> dict:
        d = asdict(self)
        return {key: d[key] for key in ("id", "source", "equation", "statement", "status",
                                        "counterexample", "corrected", "reason", "topic")}

    def validate(self):
        if self.status not in STATUSES:
            raise ProofError(f"{self.id}: bad status {self.status!r}")
        if not self.reason or not self.reason.strip():
            raise ProofError(f"{self.id}: every record needs a reason")
        if self.status == "refuted":
            if not self.counterexample or not self.corrected:
                raise ProofError(f"{self.id}: refuted needs counterexample and corrected")
            for key, val in self.counterexample.items():
                if not isinstance(val, str):
                    raise ProofError(f"{self.id}: counterexample {key} must be an exact string")
        return self


class Recorder:
    """Collects the records of one script; ``expect`` guards the declared status."""

    def __init__(self, topic: str):
        self.topic = topic
        self.records: list[Identity] = []
        self._ids: set[str] = set()

    def add(self, id, source, equation, statement, status, reason, *, expect,
            counterexample=None, corrected=None):
        if id in self._ids:
            raise ProofError(f"duplicate id {id}")
        self._ids.add(id)
        if status != expect:
            raise ProofError(f"{id}: expected status {expect!r}, got {status!r} ({reason})")
        rec = Identity(id, source, equation, statement, status, reason,
                       counterexample, corrected, self.topic).validate()
        self.records.append(rec)
        return rec


# --------------------------------------------------------------------- algebra
def is_zero(expr) -> bool:
    """True when sympy reduces ``expr`` to 0 symbolically (never numerically)."""
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    attempts = (
        lambda e: sp.cancel(sp.together(e)),
        lambda e: sp.cancel(sp.expand(sp.powsimp(sp.expand_power_base(e, force=True), force=True))),
        lambda e: sp.simplify(e),
        lambda e: sp.simplify(sp.gammasimp(sp.combsimp(e))),
        lambda e: sp.simplify(sp.powsimp(sp.powdenest(sp.expand_log(e, force=True), force=True), force=True)),
    )
    for f in attempts:
        try:
            if f(expr) == 0:
                return True
        except Exception:  # pragma: no cover - sympy internals
            continue
    return False


def to_fraction(x) -> Fraction:
    x = sp.nsimplify(x) if not isinstance(x, (int, Fraction)) else x
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    x = sp.sympify(x)
    if not x.is_Rational:
        raise ProofError(f"not an exact rational: {x}")
    return Fraction(int(x.p), int(x.q))


def R(x) -> sp.Rational:
    """Fraction/int/str -> sympy Rational."""
    f = Fraction(x)
    return sp.Rational(f.numerator, f.denominator)


def exact_value(expr, point: dict) -> Fraction:
    """Exact rational value of ``expr`` at ``point`` (symbol -> Fraction/int)."""
    subs = {s: (R(v) if not isinstance(v, sp.Basic) else v) for s, v in point.items()}
    val = sp.sympify(expr).subs(subs)
    val = sp.nsimplify(sp.simplify(val)) if not val.is_Rational else val
    if not val.is_Rational:
        raise ProofError(f"value is not rational at {point}: {val}")
    return Fraction(int(val.p), int(val.q))


def fmt(x) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return str(x)


def random_q(seed: int, n: int, denominators=(7, 10, 13, 64, 97, 1000, 4099)) -> list[Fraction]:
    """``n`` reproducible exact points in (0, 1/2)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        d = rng.choice(denominators)
        num = rng.randint(1, (d - 1) // 2)
        f = Fraction(num, d)
        if 0 < f < Fraction(1, 2) and f not in out:
            out.append(f)
    return out


def points(seed: int, n: int, first: dict | None = None, **ranges) -> list[dict]:
    """Reproducible sample points: ``q=None`` -> random q in (0,1/2); an int
    range ``(lo, hi)`` -> random integer; a list -> random choice."""
    rng = random.Random(seed)
    qs = random_q(seed + 1, n)
    out = []
    for i in range(n):
        pt = {}
        for name, spec in ranges.items():
            if spec is None:
                pt[name] = qs[i]
            elif isinstance(spec, tuple):
                pt[name] = rng.randint(*spec)
            else:
                pt[name] = rng.choice(list(spec))
        out.append(pt)
    return ([first] if first else []) + out


def decide_equal(lhs, rhs, samples: list[dict], symbols: dict, *, symbolic=True):
    """Symbolic proof of ``lhs == rhs`` or exact evidence at ``samples``.

    ``symbols`` maps sample keys to sympy symbols.  Returns
    ``(status, counterexample_or_None)`` with status in proved/checked/refuted.
    ``lhs``/``rhs`` may be sympy expressions or callables of a sample dict
    returning exact values (then only checking is possible).
    """
    if symbolic and not callable(lhs) and not callable(rhs) and is_zero(sp.sympify(lhs) - sp.sympify(rhs)):
        # belt and braces: the proof must also agree with exact evaluation
        for pt in samples[:3]:
            if _val(lhs, pt, symbols) != _val(rhs, pt, symbols):
                raise ProofError("symbolic zero disagrees with exact evaluation")
        return "proved", None
    for pt in samples:
        a, b = _val(lhs, pt, symbols), _val(rhs, pt, symbols)
        if a != b:
            cex = {name: fmt(v) for name, v in pt.items()}
            cex.update(lhs=fmt(a), rhs=fmt(b))
            return "refuted", cex
    return "checked", None


def _val(side, pt, symbols):
    if callable(side):
        return Fraction(side(pt))
    return exact_value(side, {symbols[name]: v for name, v in pt.items() if name in symbols})


def cex(**kw) -> dict:
    """Counterexample dict of exact strings."""
    return {key: fmt(v) for key, v in kw.items()}


def nonneg_poly_in(poly_expr, var) -> bool:
    """True if ``poly_expr`` (a polynomial in ``var``) has only nonnegative
    coefficients -- a certificate of ``poly_expr >= 0`` for ``var >= 0``."""
    P = sp.Poly(sp.expand(poly_expr), var)
    return all(c >= 0 for c in P.all_coeffs())


def positive_on_interval(poly_expr, var, lo, hi) -> bool:
    """Certified: polynomial has no root in the open interval (lo, hi) and is
    positive at its midpoint (Sturm count via sympy ``count_roots``)."""
    P = sp.Poly(sp.expand(poly_expr), var)
    if P.is_zero:
        return False
    mid = (sp.Rational(lo) + sp.Rational(hi)) / 2
    if P.eval(mid) <= 0:
        return False
    roots = P.count_roots(lo, hi)
    # count_roots counts closed-interval roots; exclude endpoint roots
    ends = sum(1 for e in (lo, hi) if P.eval(e) == 0)
    return roots - ends == 0


def sqrt_le(a: Fraction, b: Fraction, c: Fraction) -> bool:
    """Exact test of ``a + sqrt(b) <= c`` for rationals (b >= 0)."""
    if b < 0:
        raise ValueError("negative radicand")
    d = c - a
    return d >= 0 and b <= d * d


def format_table(records) -> str:
    """Plain-text table of records (dicts or Identity)."""
    rows = [r.as_dict() if isinstance(r, Identity) else r for r in records]
    w_id = max([len("id")] + [len(r["id"]) for r in rows])
    w_eq = max([len("equation")] + [len(r["equation"]) for r in rows])
    w_st = max(len("status"), 7)
    lines = [f"{'id':<{w_id}}  {'equation':<{w_eq}}  {'status':<{w_st}}  statement",
             f"{'-' * w_id}  {'-' * w_eq}  {'-' * w_st}  {'-' * 9}"]
    for r in rows:
        lines.append(f"{r['id']:<{w_id}}  {r['equation']:<{w_eq}}  {r['status']:<{w_st}}  {r['statement']}")
        if r["status"] == "refuted":
            ce = ", ".join(f"{a}={b}" for a, b in r["counterexample"].items())
            lines.append(f"{'':<{w_id}}  {'':<{w_eq}}  {'':<{w_st}}    counterexample: {ce}")
            lines.append(f"{'':<{w_id}}  {'':<{w_eq}}  {'':<{w_st}}    corrected: {r['corrected']}")
    counts = {s: sum(1 for r in rows if r["status"] == s) for s in STATUSES}
    lines.append("")
    lines.append(", ".join(f"{s}: {c}" for s, c in counts.items()) + f"  (total {len(rows)})")
    return "\n".join(lines)


def main_for(identities_fn):
    """``python proofs/NAME.py`` entry point."""
    recs = identities_fn()
    print(format_table(recs))


def binomial_sum_closed(f, lsym=l, Lsym=L):
    """Closed form of ``sum_{l=0}^{L} C(L,l) f(l)`` for a geometric summand.

    Proof obligation discharged symbolically: ``f(l) == f(0) * r**l`` with
    ``r = f(l+1)/f(l)`` free of ``l``; then the binomial theorem gives
    ``f(0) (1 + r)^L``.  Raises ProofError if the summand is not geometric.
    """
    f = sp.sympify(f)
    f0 = f.subs(lsym, 0)
    r = sp.simplify(sp.powsimp(sp.expand_power_base(f.subs(lsym, lsym + 1) / f, force=True), force=True))
    if r.has(lsym):
        raise ProofError(f"summand not geometric in {lsym}: ratio {r}")
    if not is_zero(f - f0 * r**lsym):
        raise ProofError("summand is not f(0) r^l")
    return f0 * (1 + r) ** Lsym


def check_binomial_sum_small(f, closed, Ls=range(0, 7), seed=0, n=4):
    """Exact cross-check of a binomial-sum closed form for small integer L."""
    for Lv in Ls:
        for qv in random_q(seed + Lv, n):
            lhs = sum(sp.binomial(Lv, j) * f.subs({l: j, L: Lv}) for j in range(Lv + 1))
            a = exact_value(lhs, {q: qv})
            b = exact_value(sp.sympify(closed).subs(L, Lv), {q: qv})
            if a != b:
                raise ProofError(f"binomial sum mismatch at L={Lv}, q={qv}: {a} != {b}")
    return True


def sqrt_in(w: Fraction, lo: Fraction, hi: Fraction) -> bool:
    """Exact test of ``lo <= sqrt(w) <= hi`` (w >= 0)."""
    if w < 0:
        raise ValueError("negative radicand")
    if hi < 0:
        return False
    return (lo <= 0 or lo * lo <= w) and w <= hi * hi


def rounds_to(fn_iv, printed: str, prec: int = 200):
    """Certified check that a real number rounds (half-unit of the printed last
    digit) to ``printed``.  ``fn_iv(iv)`` evaluates the number with mpmath interval
    arithmetic ``iv``.  Returns (verdict, enclosure_string) with verdict True /
    False / None (None: enclosure straddles a rounding boundary)."""
    from decimal import Decimal
    import mpmath
    ctx = mpmath.iv
    old = ctx.prec
    ctx.prec = prec
    try:
        x = fn_iv(ctx)
        d = Decimal(printed)
        half = Decimal(1).scaleb(d.as_tuple().exponent) / 2
        xa, xb = mpmath.mpf(x.a.a), mpmath.mpf(x.b.b)
        lo_iv, hi_iv = ctx.mpf(str(d - half)), ctx.mpf(str(d + half))
        lo_a, lo_b = mpmath.mpf(lo_iv.a.a), mpmath.mpf(lo_iv.b.b)
        hi_a, hi_b = mpmath.mpf(hi_iv.a.a), mpmath.mpf(hi_iv.b.b)
        enc = f"[{mpmath.nstr(xa, 15)}, {mpmath.nstr(xb, 15)}]"
        if xa >= lo_b and xb <= hi_a:
            return True, enc
        if xb < lo_a or xa > hi_b:
            return False, enc
        return None, enc
    finally:
        ctx.prec = old


# ------------------------------------------------ exact oracles shared by the proof scripts
def report_prob(x, y, q) -> Fraction:
    """P(report y | input x) for L-bit RR with flip probability q (000 (3.1)), exactly."""
    p = 1 - q
    out = Fraction(1)
    for a, b in zip(x, y):
        out *= p if a == b else q
    return out


def hockey(P, Q, lam) -> Fraction:
    """The hockey-stick divergence sum_k (P(k) - lam Q(k))+ of two finite laws (dicts)."""
    return sum((max(Fraction(0), P.get(k, 0) - lam * Q.get(k, 0)) for k in set(P) | set(Q)),
               Fraction(0))


def shuffled_law(xs, q, L) -> dict:
    """Exact law of the multiset of reports of the users ``xs`` (tuples of ``L`` bits), keyed by
    the sorted tuple of reports (the histogram the server sees, 000 §1.3)."""
    import itertools
    from collections import defaultdict
    ys = list(itertools.product((0, 1), repeat=L))
    law = {(): Fraction(1)}
    for x in xs:
        nxt = defaultdict(Fraction)
        for hist, pr in law.items():
            for y in ys:
                nxt[tuple(sorted(hist + (y,)))] += pr * report_prob(x, y, q)
        law = nxt
    return law
