"""The float images of the Chernoff saddle search (exactdp.engine.cfloat): the compiled
extension and the numpy route compute the same cumulants, and both match a direct sum."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings as hsettings, strategies as st

from exactdp.engine import cfloat


def _direct(t, factors):
    """``K, K', K''`` by plain Python sums (no shift), for moderate ``t``."""
    k0 = k1 = k2 = 0.0
    for w, p, m in factors:
        z = sum(pi * math.exp(t * wi) for wi, pi in zip(w, p))
        mu = sum(pi * wi * math.exp(t * wi) for wi, pi in zip(w, p)) / z
        var = sum(pi * (wi - mu) ** 2 * math.exp(t * wi) for wi, pi in zip(w, p)) / z
        k0, k1, k2 = k0 + m * math.log(z), k1 + m * mu, k2 + m * var
    return k0, k1, k2


@hsettings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), t=st.floats(-3.0, 3.0), n=st.integers(1, 40))
@example(seed=1, t=0.0, n=1)
@example(seed=2, t=-2.5, n=40)
def test_both_routes_match_the_direct_sums(seed, t, n):
    rng = np.random.default_rng(seed)
    factors = [(rng.random(n) * 2, rng.random(n) + 1e-3, 1000), (rng.random(n) * 2, rng.random(n) + 1e-3, 3)]
    ref = _direct(t, factors)
    packed = cfloat.pack(factors)
    for compiled in (True, False):
        got = cfloat.cumulants(t, packed, compiled=compiled)
        for a, b in zip(got, ref):
            assert a == pytest.approx(b, rel=1e-9, abs=1e-9)


def test_far_tilts_stay_finite_and_entries_without_mass_are_left_out():
    # t w up to 2e4: without the shift exp overflows; p = 0 entries do not enter (their w is
    # the maximum here: with it the shift would be off and K' wrong)
    factors = [([0.0, 1.0, 50.0], [0.3, 0.7, 0.0], 5)]
    packed = cfloat.pack(factors)
    for compiled in (True, False):
        k0, k1, k2 = cfloat.cumulants(400.0, packed, compiled=compiled)
        assert math.isfinite(k0) and k1 == pytest.approx(5.0) and k2 >= 0
        assert k0 == pytest.approx(5 * (400.0 + math.log(0.7)), rel=1e-12)


@pytest.mark.skipif(not cfloat.available(), reason="compiled float images not built")
def test_malformed_buffer_is_a_value_error():
    with pytest.raises(ValueError, match="malformed"):
        cfloat.cumulants(0.5, cfloat.Packed([], np.array([2.0, 1.0, 3.0, 1.0, 0.0, 0.5, 0.5, 0.5])))
