"""Test configuration: hypothesis profiles and the import path of test helpers.

Profiles
--------
``ci``  -- derandomized (reproducible), bounded number of examples, no deadline,
           failing examples printed as reproduce-blobs.  Loaded when ``CI`` is set.
``dev`` -- random, also bounded, no deadline.  Loaded otherwise.
``release`` -- random, 10^4 examples per property test, no deadline: the release
           check of the certified engine against the brute force
           (tests/test_release_enclosure.py: 10^4 cases, 54 070 certified answers, 0 misses;
           92 s CPU, 5.3 min wall on the shared 2 cores, 2026-11-24)::

               HYPOTHESIS_PROFILE=release python3 -m pytest -q -s tests/test_release_enclosure.py

           (``--hypothesis-profile=release`` works too).  Run it on the other test
           files only deliberately: every property test then draws 10^4 examples.

``HYPOTHESIS_PROFILE=<name>`` overrides the choice.
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

# pytest runs with --import-mode=importlib, which does not put tests/ on
# sys.path; the test modules import their helpers as ``strategies``.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci", derandomize=True, max_examples=40, deadline=None, print_blob=True,
    suppress_health_check=_SLOW_OK)
settings.register_profile(
    "dev", max_examples=25, deadline=None, print_blob=True,
    suppress_health_check=_SLOW_OK)
settings.register_profile(
    "release", max_examples=10_000, deadline=None, print_blob=True,
    suppress_health_check=_SLOW_OK + [HealthCheck.filter_too_much])


def _truthy(v: str | None) -> bool:
    return bool(v) and v.strip().lower() not in ("0", "false", "no", "off")


settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if _truthy(os.environ.get("CI")) else "dev"))


# Doctests cannot carry a marker in their source; the slow ones (> ~5 s on
# 2 cores) are marked here by their pytest name so the default run skips them.
SLOW_DOCTESTS = {"exactdp.reductions.minority.minority_eta"}


def pytest_collection_modifyitems(config, items):
    import pytest
    for item in items:
        if item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def prec160():
    """python-flint's working precision at 160 bits for one test, restored after it."""
    from flint import ctx
    old = ctx.prec
    ctx.prec = 160
    yield
    ctx.prec = old


@pytest.fixture(autouse=True, scope="session")
def _one_blas_thread_per_worker():
    """The README's test command runs two workers on two cores; BLAS threads started by numpy or
    scipy inside one worker spin beside the other's (the engines hold BLAS to one thread where
    they were measured to spin: :mod:`exactdp.core.threads`; this covers the rest).  The fast
    suite on a quiet machine: 5:31 -> 4:19 with both (``benchmarks/RESULTS.md``, session 30)."""
    from exactdp.core.threads import one_blas_thread
    with one_blas_thread():
        yield
