"""The heavy/light Fourier strategy (exactdp.engine.largen) against independent routes.

* overlap with the tree kernel where both run (small N, L), both directions, eta and delta;
* a seeded Monte Carlo at deployment scale (L = 40, N = 10^7), fixed wide tolerance;
* auto-selection: the tree below capacity, the Fourier strategy above it.
"""

from fractions import Fraction as F

import numpy as np
import pytest

from exactdp import from_randomized_response
from exactdp.apps.cli import main
from exactdp.core.errors import DigitsNotMetError
from exactdp.engine.largen import split_plan
from exactdp.model.mechanism import Mechanism


def _reached(query, **kw):
    """The Fourier enclosure, also when it falls short of the digits asked (at N = 3000
    it reaches fewer than 4: a DigitsNotMetError carrying the enclosure)."""
    try:
        return query(**kw)
    except DigitsNotMetError as e:
        return e.reached


@pytest.mark.parametrize("direction", ["forward", "reverse"])
def test_overlaps_tree_eta(direction):
    d = from_randomized_response(3000, 3, "0.2446", direction)
    a = _reached(d.eta, lam=F(6, 5), digits=4, method="fourier")
    b = d.eta(lam=F(6, 5), digits=12)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert a.upper < 1 and a.width < F(1, 100)      # informative, not [0, 1]


@pytest.mark.parametrize("direction", ["forward", "reverse"])
def test_overlaps_tree_delta(direction):
    d = from_randomized_response(3000, 3, "0.2446", direction)
    a = _reached(d.delta, lam=F(6, 5), digits=4, method="fourier")
    b = d.delta(lam=F(6, 5), digits=12)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert a.width < F(1, 100)


def test_monte_carlo_at_deployment_scale():
    d = from_randomized_response(10**7, 40, "0.351")
    assert d.choose_method() == "fourier"
    iv = d.eta(eps=2, digits=3)
    assert iv.relative_width() < 1e-3
    m = Mechanism(40, "0.351")
    r = m.sample_ratio(10**7, 400_000, rng=20261124)
    p = float((r > np.exp(2.0)).mean())
    se = np.sqrt(p * (1 - p) / r.size)
    assert abs(p - float(iv.mid)) < 5 * se + 1e-4


def test_plan_heavy_categories_are_the_top_ones():
    p = split_plan(Mechanism(40, "0.351"), 10**7)
    assert p.heavy == tuple(range(40, 40 - len(p.heavy), -1))
    assert set(p.light) | set(p.heavy) == set(range(41))


def test_cli_reports_strategy(capsys):
    assert main(["eta", "-N", "10000000", "-L", "40", "-q", "0.351", "--eps", "2",
                 "--digits", "3", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"strategy": "fourier"' in out
    assert main(["eta", "-N", "200", "-L", "3", "-q", "0.25", "--lam", "2", "--json"]) == 0
    assert '"strategy": "tree"' in capsys.readouterr().out


def test_unknown_method_is_a_clear_error():
    d = from_randomized_response(100, 3, "1/4")
    with pytest.raises(ValueError, match="method"):
        d.eta(lam=2, method="nope")


def random_light_law(rng):
    """A light law of 3 .. 40 levels (weights over five decades, some levels unused) with a
    null factor of up to 10^7 users and a changed-user factor of up to 16."""
    from flint import arb
    from exactdp.engine.largen import _Light
    L = rng.randint(3, 40)
    w = [arb(rng.random() * 10 ** rng.uniform(-5, 0)) for _ in range(L)]

    def probs():
        p = [rng.random() * (rng.random() > 0.2) for _ in range(L)]
        p[0] += 0.1
        return [arb(x / sum(p)) for x in p]
    return _Light(w, [(probs(), rng.randint(1, 10**7)), (probs(), rng.randint(1, 16))], 160)


def test_light_cumulants_match_the_plain_sums():
    """``_Light._cumulants`` and ``_logmgf`` (numpy, the shift ``max(t w)`` as ``t max(w)`` or
    ``t min(w)``, dot products) agree to 1e-12 with the plain sums in mpmath (40 digits): they only choose the saddle points
    (any point gives a valid Chernoff bound), but a wrong tilt would make every bound loose.
    Fails with the shift's ``min``/``max`` swapped or the variance's centring dropped."""
    import random
    import mpmath

    def plain(law, t):
        k1 = k2 = 0.0
        K = mpmath.mpf(0)
        for pr, m in law.ff:
            ws = [mpmath.mpf(x) for p, x in zip(pr, law.wf) if p > 0]
            ps = [mpmath.mpf(p) for p in pr if p > 0]
            with mpmath.workdps(40):
                e = [p * mpmath.exp(t * x) for p, x in zip(ps, ws)]
                z = mpmath.fsum(e)
                mu = mpmath.fsum(a * x for a, x in zip(e, ws)) / z
                var = mpmath.fsum(a * (x - mu) ** 2 for a, x in zip(e, ws)) / z
                k1 += m * float(mu)
                k2 += m * float(var)
                K += m * mpmath.log(z)
        return k1, k2, float(K)
    rng = random.Random(5)
    for _ in range(40):
        law = random_light_law(rng)
        for _ in range(10):
            t = rng.choice([-1, 1]) * 10 ** rng.uniform(-3, 6)
            k1, k2, K = plain(law, t)
            got1, got2 = law._cumulants(t)
            assert got1 == pytest.approx(k1, rel=1e-12), t
            assert got2 == pytest.approx(k2, rel=1e-9, abs=1e-12 * abs(k1) ** 2), t
            mass = sum(m for _, m in law.ff)      # each factor's log to ~1e-16, times its count
            assert law._logmgf(t) == pytest.approx(K, rel=1e-12, abs=1e-14 * mass), t
