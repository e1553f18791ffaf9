"""The tree's capacity predictor (exactdp.engine.capacity, issue 14): predicted vs actual
node counts of the certified kernel within 3x, both directions, at the query's threshold."""

import math
import time

import pytest

from exactdp.core.errors import CapacityError
from exactdp.engine.capacity import MAX_NODES, check_capacity, estimate_nodes
from exactdp.model.mechanism import Mechanism


def _ratio(N, L, q, direction, lam_name):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "bench_capacity.py"
    spec = importlib.util.spec_from_file_location("bench_capacity", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rec = mod.measure(N, L, q, direction, lam_name, limit=math.inf)
    return rec["ratio"]


@pytest.mark.parametrize("N,L,q,direction,lam", [
    (1000, 2, "0.1", "forward", "1+2sd"), (1000, 3, "1/4", "reverse", "1+2sd"),
    (300, 5, "0.2446", "forward", "1+2sd"), (100, 8, "1/4", "reverse", "1+2sd"),
    (300, 6, "1/4", "forward", "e^2"),
])
def test_predictor_within_3x_small(N, L, q, direction, lam):
    r = _ratio(N, L, q, direction, lam)
    assert 1 / 3 <= r <= 3, r


@pytest.mark.slow
@pytest.mark.parametrize("N,L,q", [(10000, 2, "1/4"), (10000, 3, "0.1"), (3000, 4, "1/4"),
                                   (1000, 5, "1/4"), (1000, 6, "1/4"), (100, 8, "0.35"),
                                   (100, 16, "0.3")])
@pytest.mark.parametrize("direction", ["forward", "reverse"])
def test_predictor_within_3x_grid(N, L, q, direction):
    for lam in ("1+2sd", "e^2"):
        r = _ratio(N, L, q, direction, lam)
        assert 1 / 3 <= r <= 3, (lam, r)


def test_deployment_sizes_are_beyond_the_tree_and_predicted_quickly():
    for L, q, N in [(64, "0.35", 10**9), (40, "0.351", 10**7), (16, "1/4", 10**6)]:
        t = time.perf_counter()
        assert estimate_nodes(Mechanism(L, q), N) > MAX_NODES
        assert time.perf_counter() - t < 10
    with pytest.raises(CapacityError, match="L=64"):
        check_capacity(Mechanism(64, "0.35"), 10**9)


def test_l64_weak_noise_is_a_small_tree():
    """q = 0.2 at L = 64, N = 10^7: R > e^2 almost surely and the tree decides it in a few
    hundred nodes (the former analytic predictor refused it)."""
    assert estimate_nodes(Mechanism(64, "0.2"), 10**7) < 1e4


def test_prediction_follows_the_threshold():
    m = Mechanism(5, "1/4")
    # far beyond the support: the root is wholly on one side
    assert estimate_nodes(m, 1000, s=1e12) == 1.0
    assert estimate_nodes(m, 1000, s=1200.0) > 100 * estimate_nodes(m, 1000, s=1000 * math.exp(2))
