"""Release check: the certified engine against the independent brute force on random cases.

One hypothesis example is one case ``(N, L, q, direction, x)`` with ``x`` usually an
atom of R (exactly, or nudged by 1/10^k, or a midpoint between atoms); each case
checks seven certified answers against the exact brute-force Fraction
(:mod:`exactdp.oracles.bruteforce`, histogram enumeration, no code shared with the kernel):

    eta strict P[R > x] and inclusive P[R >= x]   (x >= 1)
    delta E[(1 - x/R)+]                           (x >= 1)
    sf  P[R > x] and P[R >= x]
    cdf P[R <= x] and P[R < x]

each in the forward and the reverse direction (drawn), at 20 digits: the enclosure
must contain the truth and be exact or at most 10^-18 relative wide.

The number of cases follows the hypothesis profile (tests/conftest.py): a few
dozen under ``ci``/``dev``; 10^4 under ``release``::

    HYPOTHESIS_PROFILE=release python3 -m pytest -q -s tests/test_release_enclosure.py

(``-s`` shows the tally line: cases, answers checked, misses, seconds).
"""

from __future__ import annotations

import functools
import time
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from exactdp.oracles import bruteforce as bf
from exactdp.core.interval import Interval

from strategies import qs

DIGITS = 20
TALLY = {"cases": 0, "answers": 0, "misses": 0, "t0": None}


@functools.lru_cache(maxsize=None)
def _truth(N, L, q, direction):
    return bf.canonical(N, L, q, direction)


@functools.lru_cache(maxsize=4096)
def _engine(N, L, q, direction):
    from exactdp import from_randomized_response
    return from_randomized_response(N, L, q, direction=direction)


@st.composite
def cases(draw):
    L = draw(st.integers(1, 3))
    N = draw(st.integers(1, 7 if L < 3 else 6))
    q = draw(qs())
    direction = draw(st.sampled_from(("forward", "reverse")))
    atoms = _truth(N, L, q, direction).atoms
    at = st.sampled_from(atoms)
    x = draw(st.one_of(
        at, at,                                                    # atoms: strict != inclusive
        st.tuples(at, st.integers(3, 15), st.sampled_from((-1, 1))).map(
            lambda t: t[0] + t[2] * F(1, 10 ** t[1])),             # just beside an atom
        st.integers(0, max(0, len(atoms) - 2)).map(
            lambda i: (atoms[i] + atoms[min(i + 1, len(atoms) - 1)]) / 2),
        st.just(F(1)), st.just(atoms[-1] + 1), st.just(atoms[0] / 2)))
    return N, L, q, direction, x


def _check(iv, truth, what):
    TALLY["answers"] += 1
    ok = isinstance(iv, Interval) and iv.contains(truth) and (
        iv.width == 0 or iv.width <= F(1, 10 ** (DIGITS - 2)) * (abs(truth) if truth else 1))
    if not ok:
        TALLY["misses"] += 1
    assert ok, f"{what}: {iv!r} vs truth {truth} = {float(truth):.17g}"


@given(cases())
def test_engine_encloses_bruteforce(case):
    if TALLY["t0"] is None:
        TALLY["t0"] = time.perf_counter()
    N, L, q, direction, x = case
    d, ref = _engine(N, L, q, direction), _truth(N, L, q, direction)
    tag = f"N={N} L={L} q={q} {direction} x={x}"
    TALLY["cases"] += 1
    if x >= 1:
        _check(d.eta(lam=x, digits=DIGITS), ref.eta(x), f"eta strict {tag}")
        _check(d.eta(lam=x, inclusive=True, digits=DIGITS), ref.eta(x, inclusive=True),
               f"eta inclusive {tag}")
        _check(d.delta(lam=x, digits=DIGITS), ref.delta(x), f"delta {tag}")
    _check(d.sf(x, digits=DIGITS), ref.sf(x), f"sf {tag}")
    below = ref.cdf(x) - ref.law.get(x, 0)
    _check(d.sf(x, inclusive=True, digits=DIGITS), 1 - below, f"sf inclusive {tag}")
    _check(d.cdf(x, digits=DIGITS), ref.cdf(x), f"cdf {tag}")
    _check(d.cdf(x, inclusive=False, digits=DIGITS), below, f"cdf strict {tag}")


def test_tally(capsys):
    """Runs after the property test (file order): prints the tally (skipped when the
    property test was not selected)."""
    if TALLY["cases"] == 0:
        pytest.skip("the property test did not run in this session")
    secs = time.perf_counter() - TALLY["t0"] if TALLY["t0"] else 0.0
    with capsys.disabled():
        print(f"\nrelease enclosure: {TALLY['cases']} cases, {TALLY['answers']} certified answers "
              f"vs brute force, {TALLY['misses']} misses, {secs:.0f} s "
              f"(max_examples={settings.default.max_examples})")
    assert TALLY["misses"] == 0
