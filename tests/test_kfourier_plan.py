"""An earlier pass's plan (the light statistic's shift ``alpha`` and the heavy levels returned to
the light law) handed to a later pass of the large-N k-copies strategy
(:func:`exactdp.reductions.kfourier.kfourier_details`)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.core.errors import ParameterError
from exactdp.reductions.kfourier import kfourier_details
from exactdp.reductions.pairs import canonical_pair

P = canonical_pair(20_000, 8, 2)
LAM = Fraction(6, 5)


def test_the_plan_reproduces_the_walk_and_any_plan_is_valid():
    first = kfourier_details(P, "3/10", LAM, tol=1e-2)
    assert first.alpha > 0 and first.extra_light in (0, 1)
    again = kfourier_details(P, "3/10", LAM, tol=1e-2, alpha=first.alpha,
                             extra_light=first.extra_light)
    assert again.eta == first.eta                     # the same walk without the pilot
    other = kfourier_details(P, "3/10", LAM, tol=1e-2, alpha=0.0, extra_light=0)
    assert other.eta != first.eta and other.eta.overlaps(first.eta)
    heavier = kfourier_details(P, "3/10", LAM, tol=1e-2, alpha=0.0, extra_light=-1)
    assert len(heavier.heavy) == len(other.heavy) + 1 and heavier.eta.overlaps(first.eta)


@pytest.mark.parametrize("kw, word", [
    ({"alpha": 0.1}, "together"),
    ({"extra_light": 0}, "together"),
    ({"alpha": -1.0, "extra_light": 0}, "alpha"),
    ({"alpha": float("nan"), "extra_light": 0}, "alpha"),
    ({"alpha": "0.1", "extra_light": 0}, "alpha"),
    ({"alpha": 0.1, "extra_light": 5}, "extra_light"),
    ({"alpha": 0.1, "extra_light": -5}, "extra_light"),
    ({"alpha": 0.1, "extra_light": True}, "extra_light"),
])
def test_bad_plans_are_refused(kw, word):
    with pytest.raises(ParameterError, match=word):
        kfourier_details(P, "3/10", LAM, tol=1e-2, **kw)
