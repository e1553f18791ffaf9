"""WorstCase.epsilon: the larger of the two directions' smallest eps, certified.

The reverse search is skipped when the reverse direction already meets the target at the
forward bracket's lower end; either way the bracket must be certified: the target
violated in some direction at its lower end and met in both at its upper end.
"""

from fractions import Fraction as F

import pytest

from exactdp import from_randomized_response


def _violated_somewhere(w, kind, e, target):
    return any(getattr(d, kind)(eps=e, digits=12).lower > target for d in (w.forward, w.reverse))


def _met_everywhere(w, kind, e, target):
    return all(getattr(d, kind)(eps=e, digits=12).upper <= target for d in (w.forward, w.reverse))


@pytest.mark.parametrize("N,L,q,kind,target", [
    (40, 3, "1/4", "delta", F(1, 1000)),
    (40, 3, "1/4", "eta", F(1, 100)),
    (200, 2, "1/5", "delta", F(1, 10**4)),
    (30, 5, "0.3", "delta", F(1, 1000)),        # forward dominates: the reverse search skipped
    (30, 5, "0.3", "eta", F(1, 100)),
])
def test_worst_epsilon_is_certified(N, L, q, kind, target):
    w = from_randomized_response(N, L, q, "worst")
    e = w.epsilon(**{kind: target}, digits=6)
    f = w.forward.epsilon(**{kind: target}, digits=6)
    r = w.reverse.epsilon(**{kind: target}, digits=6)
    assert e.lower >= min(f.lower, r.lower)
    assert e.overlaps(type(e)(max(f.lower, r.lower), max(f.upper, r.upper)))
    assert _violated_somewhere(w, kind, e.lower, target)
    assert _met_everywhere(w, kind, e.upper, target)
