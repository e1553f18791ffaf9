"""The Fourier strategy at L = 5 (issue 14): the proved decay of the characteristic function
through near returns, the mean-value enclosure of the users' characteristic function, the
widths reached at deployment scale, and agreement with the tree and a seeded Monte Carlo.
"""

import math
import random
import time
from fractions import Fraction as F

import numpy as np
import pytest
from flint import acb, arb

from exactdp import from_randomized_response
from exactdp.core.errors import DigitsNotMetError, PrecisionError
from exactdp.engine import largen
from exactdp.engine.largen import LightLaw
from exactdp.model.mechanism import Mechanism


def _null_light_law(N, L=5, q="0.2446"):
    m = Mechanism(L, q)
    pi = [arb(x.numerator) / x.denominator for x in m.pi0]
    w = [arb((x / N).numerator) / (x / N).denominator for x in m.c]
    return LightLaw(w, [(pi, N)], 160)


def test_decay_is_proved_through_near_returns():
    # N = 1e5, L = 5: |phi|^N comes back to ~e^-17.6 near u = 6.3e9 (a near return of the
    # six phases); the proof integrates that lobe in narrow bands instead of refusing
    law = _null_light_law(10**5)
    U1 = 400.0
    T1, T2 = law.decay_bands(10**5 - 1, U1, 4e-10, 2.5e-10)
    assert 0 < T1 < 1e-11 and 0 < T2 < 1e-19
    assert law.decay_evals < 200_000


def test_decay_of_a_lattice_law_is_refused_quickly():
    # two categories at weights 0 and 1: |phi(2 pi k)| = 1, no resolution below 1 is provable
    law = LightLaw([arb(0), arb(1)], [([arb(F(1, 2).numerator) / 2, arb(1) / 2], 10_000)], 128)
    t = time.perf_counter()
    with pytest.raises(PrecisionError):
        law.decay_bands(10_000, 0.5, 1e-3, 1e-10)
    assert time.perf_counter() - t < 5


def test_mean_value_enclosure_contains_the_values():
    rng = random.Random(5)
    probs = [arb(1) / 3, arb(1) / 2, arb(1) / 6]
    xs = [arb(-0.7), arb(0.1), arb(1.9)]
    for _ in range(50):
        m = acb(rng.uniform(0, 30), rng.uniform(-0.5, 0.5))
        r = rng.choice([1e-6, 1e-3, 0.1, 0.5])
        ball = m + acb(arb(0, r), arb(0, r)) * acb(1, 0) / 2 ** 0.5
        fp, fm = largen._cf_pair(probs, xs, ball)
        for _ in range(5):
            t = rng.uniform(0, 2 * math.pi)
            rho = rng.uniform(0, r)
            z = m + acb(rho * math.cos(t), rho * math.sin(t)) / 2 ** 0.5
            i = acb(0, 1)
            vp = sum((p * (i * z * x).exp() for p, x in zip(probs, xs)), acb(0))
            vm = sum((p * (-i * z * x).exp() for p, x in zip(probs, xs)), acb(0))
            assert fp.overlaps(vp) and fm.overlaps(vm)
        # and tighter than evaluating each exponential on the ball when the ball is small
        if r <= 1e-3:
            i = acb(0, 1)
            naive = sum((p * (i * ball * x).exp() for p, x in zip(probs, xs)), acb(0))
            assert fp.rad() <= naive.rad() * 1.01


def test_l5_million_users_six_digits_fast():
    d = from_randomized_response(10**6, 5, "0.2446")
    assert d.choose_method() == "fourier"
    t = time.perf_counter()
    iv = d.eta(eps="0.025", digits=6)
    assert iv.relative_width() <= 1e-6
    assert time.perf_counter() - t < 60
    r = Mechanism(5, "0.2446").sample_ratio(10**6, 100_000, rng=20261125)
    p = float((r > math.exp(0.025)).mean())
    se = math.sqrt(p * (1 - p) / r.size)
    assert abs(p - float(iv.mid)) < 5 * se


def test_l5_tree_and_fourier_overlap():
    d = from_randomized_response(2000, 5, "0.2446", "reverse")
    try:
        a = d.eta(eps="0.6", digits=3, method="fourier")
    except DigitsNotMetError as e:
        a = e.reached
    b = d.eta(eps="0.6", digits=8)
    assert a.lower <= b.upper and b.lower <= a.upper
    assert a.relative_width() < 0.05


def test_fast_pass_refusal_no_longer_refuses_the_tree(monkeypatch):
    # the float tree's level cap hit at the first magnitude pass: the certified query
    # still answers (the certified tree starts from magnitude 1 and refines), it does not
    # raise CapacityError, and the float tree is not retried (its memory is the limit)
    from exactdp.engine import fastkernel
    ref = from_randomized_response(300, 4, "1/4").eta(lam=2, digits=10)
    orig = fastkernel.fast_tail_sums
    calls = []

    def capped(mech, N, num, den, exact, tol, **kw):
        calls.append(tol)
        if tol < 1e-6:      # every magnitude pass (the first is at 1e-8)
            from exactdp.core.errors import CapacityError
            raise CapacityError("fast mode: level 2 would expand too many nodes")
        return orig(mech, N, num, den, exact, tol=tol, **kw)

    monkeypatch.setattr(fastkernel, "fast_tail_sums", capped)
    d = from_randomized_response(300, 4, "1/4")
    iv = d.eta(lam=2, digits=10)
    assert iv.lower <= ref.upper and ref.lower <= iv.upper
    assert len(calls) == 1          # not retried


@pytest.mark.slow
@pytest.mark.parametrize("N, eps", [(10**5, "0.08"), (10**7, "0.008"), (10**9, "0.0008")])
def test_l5_deployment_grid_worst_direction(N, eps):
    d = from_randomized_response(N, 5, "0.2446", "worst")
    t = time.perf_counter()
    iv = d.eta(eps=eps, digits=6)
    assert iv.relative_width() <= 1e-6
    assert time.perf_counter() - t < 60
