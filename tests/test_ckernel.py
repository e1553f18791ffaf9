"""The compiled certified kernel (exactdp.engine.ckernel) against the arb kernel and exact sums.

* every enclosure of the compiled walk contains the exact value, summed over the
  multinomial law of T by enumeration (small cases), and overlaps the arb
  kernel's enclosure (hypothesis, pinned examples);
* the canonical queries through ``PrivacyRatio`` contain the brute force
  (``exactdp.oracles.bruteforce``) with the compiled engine doing the work;
* the 128-bit directed roundings bracket the exact results;
* precision beyond the compiled float, or the extension disabled, runs the arb kernel.
"""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from exactdp import CapacityError, Mechanism, from_randomized_response
from exactdp.engine import ckernel
from exactdp.engine.kernel import Threshold, lam_threshold, tail_sums

pytestmark = pytest.mark.skipif(not ckernel.available(), reason="compiled kernel not built")


def exact_sums(mech, n, tau: Fraction):
    """P[Z > tau], E[(Z - tau)+], P[Z = tau], P[Z < tau], E[(tau - Z)+] by enumerating T."""
    L, W, pi = mech.L, mech.weights, mech.pi0
    up_P = up_X = eq_P = lo_P = lo_X = Fraction(0)
    for cut in itertools.combinations(range(n + L), L):          # stars and bars
        T, prev = [], -1
        for c in cut + (n + L,):
            T.append(c - prev - 1)
            prev = c
        p = Fraction(math.factorial(n))
        for t, x in zip(T, pi):
            p = p * x**t / math.factorial(t)
        Z = sum(t * w for t, w in zip(T, W))
        if Z > tau:
            up_P += p
            up_X += p * (Z - tau)
        elif Z < tau:
            lo_P += p
            lo_X += p * (tau - Z)
        else:
            eq_P += p
    return up_P, up_X, eq_P, lo_P, lo_X


def tree_engines(d):
    """Engines of the tree runs a distribution memoized (its cache, whatever its form)."""
    memo = getattr(d, "cache", None) or getattr(d, "_cache", {})
    return {v.engine for k, v in getattr(memo, "entries", memo).items()
            if isinstance(k, tuple) and k[0] == "exact"}


def queries(ts):
    return (ts.p_above(), ts.excess_above(), ts.p_equal(), ts.p_below(), ts.excess_below())


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 7), L=st.integers(1, 3), qd=st.integers(3, 12), qn=st.integers(1, 5),
       where=st.integers(-2, 40), half=st.booleans())
@example(n=2, L=1, qd=3, qn=1, where=5, half=False)          # the kernel's doctest law
@example(n=7, L=3, qd=4, qn=1, where=0, half=False)          # tau = 0: everything above
@example(n=5, L=2, qd=7, qn=2, where=13, half=True)
@example(n=1, L=3, qd=12, qn=5, where=40, half=False)
def test_compiled_encloses_exact_sums(n, L, qd, qn, where, half):
    q = Fraction(min(qn, (qd - 1) // 2), qd)
    if q <= 0:
        q = Fraction(1, qd)
    m = Mechanism(L, q)
    # thresholds at the atoms of Z, halfway between them, and beyond
    atoms = sorted({sum(t * w for t, w in zip(T, m.weights))
                    for T in itertools.product(range(n + 1), repeat=L + 1) if sum(T) == n})
    i = max(0, min(where, len(atoms) - 1))
    tau = Fraction(atoms[i]) + (Fraction(1, 2) if half else 0) if where >= 0 else Fraction(0)
    truth = exact_sums(m, n, tau)
    thr = Threshold.from_fraction(tau, 128)
    c = tail_sums(m, n, thr, prec=128, tol=1e-30, engine="compiled")
    a = tail_sums(m, n, thr, prec=128, tol=1e-30, engine="arb")
    assert c.engine == "compiled" and a.engine == "arb"
    for name, ci, ai, t in zip(("up_P", "up_X", "eq_P", "lo_P", "lo_X"), queries(c), queries(a), truth):
        assert ci.contains(t), (name, ci, t)
        assert ci.overlaps(ai), (name, ci, ai)
        assert ci.width <= Fraction(1, 10**25) * max(1, abs(t)), (name, ci)


@pytest.mark.parametrize("N,L,q,eps", [(5, 2, "1/3", Fraction(693, 1000)), (40, 3, "1/5", Fraction(1)),
                                       (200, 4, "0.22", Fraction(3, 2))])
def test_irrational_threshold_overlaps_arb(N, L, q, eps):
    m = Mechanism(L, q)
    thr = lam_threshold(Fraction(N * m.scale), eps=eps, prec=160)
    assert not thr.exact
    c = tail_sums(m, N, thr, prec=160, tol=1e-35, engine="compiled")
    a = tail_sums(m, N, thr, prec=160, tol=1e-35, engine="arb")
    for ci, ai in zip(queries(c), queries(a)):
        assert ci.overlaps(ai)
        if ai.upper > 0:
            assert ci.width <= 10 * ai.width + Fraction(1, 10**28) * ai.upper


@pytest.mark.parametrize("N,L,q,lam", [(300, 4, "0.22", 2), (1000, 5, "0.2446", 2), (1000, 1, "1/7", "3/2")])
def test_same_tree_as_arb(N, L, q, lam):
    """Same nodes and leaves (the same search), and enclosures that overlap."""
    m = Mechanism(L, q)
    thr = Threshold.from_fraction(Fraction(lam) * N * m.scale, 128)
    c = tail_sums(m, N, thr, prec=128, tol=1e-25, engine="compiled")
    a = tail_sums(m, N, thr, prec=128, tol=1e-25, engine="arb")
    assert (c.nodes, c.leaves) == (a.nodes, a.leaves)
    for ci, ai in zip(queries(c), queries(a)):
        assert ci.overlaps(ai)
        assert ci.width <= 2 * ai.width + Fraction(1, 10**30) * max(1, ai.upper)   # 2 p r tails: looser


@pytest.mark.parametrize("N,L,q,lam", [(300, 4, "0.22", 2), (1000, 5, "0.2446", 2), (40, 2, "1/7", "3/2")])
def test_one_side_is_the_same_walk(N, L, q, lam):
    """``side``: the same tree, ``drop_P`` and ``eq_P``, that side's sums and drop bounds bit
    for bit as when both sides are summed, and the other side's fields trivial bounds (true)."""
    m = Mechanism(L, q)
    thr = Threshold.from_fraction(Fraction(lam) * N * m.scale, 128)
    both = tail_sums(m, N, thr, prec=128, tol=1e-25, engine="compiled")
    for side, same, other in (("above", ("up_P", "up_X", "drop_E", "drop_up"), ("lo_P", "lo_X", "drop_lo")),
                              ("below", ("lo_P", "lo_X", "drop_E", "drop_lo"), ("up_P", "up_X", "drop_up"))):
        one = tail_sums(m, N, thr, prec=128, tol=1e-25, engine="compiled", side=side)
        assert (one.nodes, one.leaves) == (both.nodes, both.leaves)
        for k in same + ("eq_P", "drop_P"):
            assert getattr(one, k).mid() == getattr(both, k).mid()
            assert getattr(one, k).rad() == getattr(both, k).rad()
        for k in other:
            if k.startswith("drop"):        # upper bounds
                assert getattr(one, k).upper() >= getattr(both, k).upper()
            else:
                assert getattr(one, k).contains(getattr(both, k))
        # probabilities only (reverse eta): the side's P bit for bit, the rest trivial
        p_only = tail_sums(m, N, thr, prec=128, tol=1e-25, engine="compiled", side=side, excess=False)
        assert (p_only.nodes, p_only.leaves) == (both.nodes, both.leaves)
        for k in (same[0], "eq_P", "drop_P"):
            assert (getattr(p_only, k).mid(), getattr(p_only, k).rad()) == \
                (getattr(both, k).mid(), getattr(both, k).rad())
        for k in ("up_X", "lo_X"):
            assert getattr(p_only, k).contains(getattr(both, k))
        for k in ("drop_E", "drop_up", "drop_lo"):
            assert getattr(p_only, k).upper() >= getattr(both, k).upper()


@pytest.mark.parametrize("N,L,q,lam", [(300, 4, "0.22", 2), (60, 2, "1/7", "3/2")])
def test_every_cell_layout_gives_the_same_sums(N, L, q, lam):
    """A row's cell holds only the arrays its walk reads (``row_layout`` in _ckernel.c: 5
    values for both sides with excesses, 3 for one side or for both sides' probabilities, 2
    for one side's probabilities): the probabilities of every layout equal those of the
    5-value layout bit for bit (a wrong offset or stride reads another array)."""
    m = Mechanism(L, q)
    tau = Fraction(lam) * N * m.scale + Fraction(1, 3)
    args = (m, N, tau.numerator, tau.denominator, True)
    kw = dict(tol=Fraction(1, 10**25), prec=128)
    ref = ckernel.compiled_tail_sums(*args, **kw)
    for side in (None, "above", "below"):
        for excess in (True, False):
            r = ckernel.compiled_tail_sums(*args, side=side, excess=excess, **kw)
            assert (r["nodes"], r["leaves"]) == (ref["nodes"], ref["leaves"])
            for k in ("up_P", "lo_P", "eq_P", "drop_P") + (("up_X", "lo_X") if excess else ()):
                if r[k] is not None:
                    assert r[k] == ref[k], (side, excess, k)
            assert (side in (None, "above")) == (r["up_P"] is not None)
            assert (side in (None, "below")) == (r["lo_P"] is not None)


@pytest.mark.parametrize("n,L,q,frac,tol", [(37, 2, "5/37", Fraction(1, 8), Fraction(1, 10**8)),
                                            (37, 2, "5/37", Fraction(1, 4), Fraction(1, 10**14)),
                                            (30, 3, "1/6", Fraction(1, 8), Fraction(1, 10**8)),
                                            (25, 4, "3/11", Fraction(1, 4), Fraction(1, 10**14)),
                                            (25, 4, "3/11", Fraction(1, 8), Fraction(1, 10**30))])
def test_rows_cut_by_mass(n, L, q, frac, tol):
    """Rows cut by the mass of their readers (``mass_cut``, the certified default): the same
    tree as whole rows, enclosures of the exact sums (their dropped mass added), and the
    extra width of the rows' tails at most ~4 row_tol tol per leaf (absolute)."""
    m = Mechanism(L, q)
    tau = Fraction(int(n * m.weights[-1] * frac)) + Fraction(1, 2)      # cases where rows are cut by mass
    ex = exact_sums(m, n, tau)
    for side in (None, "above", "below"):
        cut = ckernel.compiled_tail_sums(m, n, tau.numerator, tau.denominator, True, tol=tol, prec=128, side=side)
        whole = ckernel.compiled_tail_sums(m, n, tau.numerator, tau.denominator, True, tol=tol, prec=128,
                                           side=side, mass_cut=False)
        assert (cut["nodes"], cut["leaves"]) == (whole["nodes"], whole["leaves"])
        for k, e in zip(("up_P", "up_X", "eq_P", "lo_P", "lo_X"), ex):
            if cut[k] is None:
                continue
            slack = {"up_X": cut["drop_up"], "lo_X": cut["drop_lo"]}.get(k, cut["drop_P"])
            assert cut[k][0] <= e <= cut[k][1] + slack
            if k.endswith("P"):
                assert cut[k][1] - cut[k][0] <= whole[k][1] - whole[k][0] + 5 * (cut["leaves"] + 1) * tol * Fraction(1, 10**6)


@pytest.mark.parametrize("direction", ["forward", "reverse"])
@pytest.mark.parametrize("query", ["eta", "delta", "sf", "cdf", "cdf_strict", "eta_inclusive"])
def test_one_side_walks_meet_the_digits_at_once(direction, query):
    """Each query reads only the sums its side provides (``sums``): one certified walk
    meets 25 digits (a sum it needed but did not get would be a trivial bound and force
    refinements), and the value contains the brute force."""
    from exactdp.oracles import bruteforce as bf
    N, L, q, lam = 12, 2, Fraction(1, 5), Fraction(3, 2)
    d = from_randomized_response(N, L, q, direction)
    law = bf.canonical(N, L, q, direction)
    call, want = {
        "eta": (lambda: d.eta(lam=lam, digits=25), law.eta(lam)),
        "delta": (lambda: d.delta(lam=lam, digits=25), law.delta(lam)),
        "sf": (lambda: d.sf(lam, digits=25), law.eta(lam)),
        "cdf": (lambda: d.cdf(lam, digits=25), 1 - law.eta(lam)),
        "cdf_strict": (lambda: d.cdf(lam, inclusive=False, digits=25), 1 - law.eta(lam, inclusive=True)),
        "eta_inclusive": (lambda: d.eta(lam=lam, inclusive=True, digits=25), law.eta(lam, inclusive=True)),
    }[query]
    iv = call()
    walks = [k for k in d.cache.entries if isinstance(k, tuple) and k[0] == "exact"]
    assert len(walks) == 1, walks
    assert iv.contains(want)
    assert iv.relative_width() <= Fraction(1, 10**25) or iv.upper == 0
    assert tree_engines(d) == {"compiled"}
    # fast mode (the same compiled walk, one side): a finite estimate within its error
    kw = {"eta": dict(lam=lam), "delta": dict(lam=lam), "eta_inclusive": dict(lam=lam, inclusive=True),
          "sf": dict(x=lam), "cdf": dict(x=lam), "cdf_strict": dict(x=lam, inclusive=False)}[query]
    name = {"cdf_strict": "cdf", "eta_inclusive": "eta"}.get(query, query)
    f = getattr(from_randomized_response(N, L, q, direction), name)(method="fast", **kw)
    assert math.isfinite(f.value) and math.isfinite(f.error)
    assert abs(Fraction(f.value) - want) <= Fraction(f.error) + Fraction(1, 10**12)


@pytest.mark.parametrize("direction", ["forward", "reverse"])
@pytest.mark.parametrize("N,L,q", [(3, 2, "1/3"), (5, 3, "1/4"), (6, 2, "2/7"), (7, 1, "1/5")])
def test_queries_contain_bruteforce_with_the_compiled_engine(N, L, q, direction):
    from exactdp.oracles import bruteforce as bf
    law = bf.canonical(N, L, Fraction(q), direction)
    d = from_randomized_response(N, L, q, direction)
    for lam in (Fraction(11, 10), Fraction(3, 2), Fraction(2)):
        e, de = d.eta(lam=lam, digits=25), d.delta(lam=lam, digits=25)
        assert e.contains(law.eta(lam)) and de.contains(law.delta(lam))
    engines = tree_engines(d)
    assert engines == {"compiled"}


def test_beyond_the_compiled_precision_runs_arb():
    d = from_randomized_response(60, 3, "1/4", "forward")
    iv = d.eta(lam=2, digits=60)
    assert iv.relative_width() <= Fraction(1, 10**60)
    engines = tree_engines(d)
    assert engines == {"arb"}
    m = Mechanism(3, "1/4")
    thr = Threshold.from_fraction(Fraction(2 * 60 * m.scale), ckernel.MAX_PREC + 1)
    assert tail_sums(m, 60, thr, prec=ckernel.MAX_PREC + 1).engine == "arb"
    with pytest.raises(ValueError, match="compiled kernel does not apply"):
        tail_sums(m, 60, thr, prec=ckernel.MAX_PREC + 1, engine="compiled")


def test_disabled_extension_falls_back_and_says_so():
    code = ("from exactdp.engine import ckernel; from exactdp import from_randomized_response as f;"
            "d = f(30, 3, '1/4'); e = d.eta(lam=2, digits=20); print(ckernel.ENGINE); print(e.lower, e.upper)")
    env = dict(os.environ, EXACTDP_NO_CKERNEL="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("arb (compiled kernel unavailable: disabled by EXACTDP_NO_CKERNEL)")
    d = from_randomized_response(30, 3, "1/4")
    lo, hi = map(Fraction, out.stdout.splitlines()[1].split())
    e = d.eta(lam=2, digits=20)
    assert lo <= e.upper and e.lower <= hi


def test_node_budget():
    m = Mechanism(5, "0.2446")
    thr = Threshold.from_fraction(Fraction(2 * 1000 * m.scale), 128)
    with pytest.raises(CapacityError, match="nodes"):
        tail_sums(m, 1000, thr, prec=128, tol=1e-30, max_nodes=1000, engine="compiled")


fractions = st.fractions(min_value=Fraction(1, 10**40), max_value=Fraction(10**40), max_denominator=10**45)


@settings(max_examples=200, deadline=None)
@given(x=fractions, y=fractions, k=st.integers(1, 2**64 - 1))
@example(x=Fraction(2**128 - 1, 2**127), y=Fraction(1, 2**200), k=1)     # all-ones mantissa, tiny addend
@example(x=Fraction(1), y=Fraction(1), k=2**64 - 1)
def test_directed_roundings_bracket_the_exact_result(x, y, k):
    from exactdp.engine._ckernel import uf_op
    a_lo, a_hi = ckernel.to_uf(x, False), ckernel.to_uf(x, True)
    b_lo, b_hi = ckernel.to_uf(y, False), ckernel.to_uf(y, True)
    v = ckernel.from_uf
    cases = [("mul", x * y, b_lo, b_hi), ("add", x + y, b_lo, b_hi),
             ("mulk", x * k, None, None), ("divk", x / k, None, None)]
    if x > y:
        cases.append(("sub", x - y, b_hi, b_lo))
    for op, exact, blo, bhi in cases:
        lo = v(uf_op(op, a_lo, blo, 0, k))
        hi = v(uf_op(op, a_hi, bhi, 1, k))
        assert lo <= exact <= hi, op
        assert hi - lo <= exact * Fraction(1, 2**120) + (Fraction(1, 2**120) * x if op == "sub" else 0), op


@pytest.mark.parametrize("q,n", [("9/20", 2000), ("1/3", 700), ("1/10", 1500)])
@pytest.mark.parametrize("sds", [-9, -3, 0, 2, 7, 11])
def test_binomial_tails_against_integer_sums(q, n, sds):
    """L = 1: Z = T_0 W_0 + T_1 W_1 with T_1 ~ Bin(n, q); P[Z > tau], E[(Z - tau)+] and
    the lower side against exact integer sums, thresholds from 9 sd below the mean to
    11 sd above it (where the row windows are cut and their tails bounded)."""
    m = Mechanism(1, q)
    qq = Fraction(q)
    W0, W1 = m.weights
    sd = math.sqrt(n * float(qq) * (1 - float(qq)))
    k = int(n * float(qq) + sds * sd)
    if not 0 <= k <= n:
        pytest.skip("threshold outside the support")
    tau = Fraction(k * W1 + (n - k) * W0) + Fraction(1, 3)          # between atoms
    a, b = qq.numerator, qq.denominator
    den = b**n
    w = [math.comb(n, t) * a**t * (b - a)**(n - t) for t in range(n + 1)]
    up = sum(w[k + 1:])
    up_X = sum(wt * (Fraction(t * W1 + (n - t) * W0) - tau) for t, wt in zip(range(k + 1, n + 1), w[k + 1:]))
    lo_X = sum(wt * (tau - Fraction(t * W1 + (n - t) * W0)) for t, wt in zip(range(k + 1), w[:k + 1]))
    ts = tail_sums(m, n, Threshold.from_fraction(tau, 128), prec=128, tol=1e-30, engine="compiled")
    assert ts.engine == "compiled"
    assert ts.p_above().contains(Fraction(up, den)) and ts.p_below().contains(Fraction(den - up, den))
    assert ts.excess_above().contains(up_X / den) and ts.excess_below().contains(lo_X / den)
    for iv in (ts.p_above(), ts.excess_above(), ts.p_below(), ts.excess_below()):
        assert iv.width <= Fraction(1, 10**25) * max(iv.upper, Fraction(1, 10**4))
