"""The distribution's memo is explicit (a public ``cache`` field), never changes a result."""

from fractions import Fraction

from exactdp import from_pair, from_randomized_response
from exactdp.core.cache import Cache


def test_cache_is_public_and_explicit():
    d = from_randomized_response(200, 3, "1/4")
    assert isinstance(d.cache, Cache) and len(d.cache) == 0
    a = d.eta(lam=2, digits=15)
    assert len(d.cache) > 0
    b = d.eta(lam=2, digits=15)
    assert a == b
    d.cache.clear()
    assert len(d.cache) == 0 and d.eta(lam=2, digits=15) == a
    # the cache takes no part in equality or hashing of the value object
    assert d == from_randomized_response(200, 3, "1/4")


def test_shared_cache_and_last_method():
    c = Cache()
    d = from_pair({"00": 3, "01": 1}, {"00": 3, "11": 1}, q="1/4")
    import dataclasses
    d2 = dataclasses.replace(d, cache=c)
    iv = d2.eta(lam=2)
    assert c.last_method == "exact" and iv == Interval_exact(Fraction(12329, 32768))


def Interval_exact(v):
    from exactdp.core.interval import Interval
    return Interval.exact(v)
