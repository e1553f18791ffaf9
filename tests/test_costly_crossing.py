"""exactdp.law.costly_crossing: certified brackets from enclosures of chosen digits.

Synthetic decreasing functions with exact values, enclosed with a deliberate offset
inside the stated width (so midpoints are wrong by up to the width): the returned
bracket must be certified by the enclosures (checked with exact values here), meet the
width, and use few evaluations and few digits.
"""

import math
from fractions import Fraction as F

import pytest

from exactdp.core.errors import PrecisionError
from exactdp.core.interval import Interval
from exactdp.law.costly_crossing import decreasing_crossing


def _gauss_tail(x):
    # like eta(lam): a Gaussian tail in ln(lam), from 0.4 at lam = 1
    u = math.log(x)
    return 0.4 * math.exp(-3 * u * u - 2 * u)


FUNS = {
    "power": lambda x: 1 / x ** 2,
    "gauss": _gauss_tail,
    "linear-to-zero": lambda x: max(0.0, 0.5 * (1 - x / 50)),      # like delta: reaches 0
}


def _enclose(fun, log):
    def enc(x, d):
        v = F(fun(float(x)))
        r = F(1, 10**d)
        log.append(d)
        # off-centre by 0.3 of the width: the midpoint is not the value
        return Interval(max(v - v * r * F(13, 10), F(0)), v + v * r * F(7, 10))
    return enc


@pytest.mark.parametrize("name", sorted(FUNS))
@pytest.mark.parametrize("target,rel", [(F(1, 100), 1e-4), (F(1, 10**6), 1e-3), (F(1, 5), 1e-4)])
def test_bracket_is_certified_and_narrow(name, target, rel):
    fun = FUNS[name]
    log = []
    enc = _enclose(fun, log)
    a, b = decreasing_crossing(enc, F(1), F(10**5), target, rel_u=rel, g_lo=enc(F(1), 3))
    n, dmax = len(log), max(log)
    assert fun(float(a)) > target >= fun(float(b))            # the exact values agree
    ua, ub = math.log(a), math.log(b)
    assert 0 < ub - ua <= rel * ua
    assert n <= 30 and dmax <= 7


def test_undecidable_is_an_error_not_a_guess():
    # every enclosure is at least 10 % wide: the width asked can never be certified
    def enc(x, d):
        v = F(1) / (F(x) ** 2)
        return Interval(v * F(9, 10), v * F(11, 10))
    with pytest.raises(PrecisionError):
        decreasing_crossing(enc, F(1), F(10**5), F(1, 100), rel_u=1e-6, g_lo=Interval.exact(1))


def test_lower_end_must_be_violated():
    with pytest.raises(PrecisionError):
        decreasing_crossing(lambda x, d: Interval.exact(0), F(1), F(10), F(1, 2), rel_u=1e-3,
                            g_lo=Interval.exact(F(1, 4)))


@pytest.mark.parametrize("offset", [-0.3, -0.01, 0.0, 0.02, 0.5])
def test_a_guess_only_places_points(offset):
    # a good guess saves evaluations; a wrong one costs some, never the certification
    fun = FUNS["gauss"]
    target = F(1, 100)
    u_true = 0.8245645877
    log = []
    enc = _enclose(fun, log)
    a, b = decreasing_crossing(enc, F(1), F(10**5), target, rel_u=1e-4, g_lo=enc(F(1), 3),
                               guess=(u_true + offset, 0.01))
    assert fun(float(a)) > target >= fun(float(b))
    assert 0 < math.log(b) - math.log(a) <= 1e-4 * math.log(a)
    if offset == 0.0:
        assert len(log) <= 8
