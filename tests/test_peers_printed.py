"""Peers against numbers printed by their authors (issue 19, "each tested against numbers
printed in its paper").  The papers are not available offline; the numbers below are the
ones printed in the authors' official repositories (sources in each test's docstring and
in docs/peers.md, "Printed numbers").  Only the peers' *formulas* are checked here; no
printed number is the expected value of an exact exactdp computation.

Su-Cheng-Wang (arXiv 2504.07414) and Koskela-Heikkila-Honkela (arXiv 2106.00477): no printed
number was reachable offline (stored pages: abstract and introduction only; authors' code:
no stored output) -- docs/peers.md, "Printed numbers"; their reductions for L-bit RR are
tested against exact computations in tests/test_peers_scw_koskela.py instead.
"""

from fractions import Fraction as F

import mpmath
import pytest

from exactdp.apps.peers import (blanket_delta, blanket_epsilon, clone_epsilon, fmt21_closed_form,
                                rr_blanket_parameters)


def _rat(x, digits=35) -> F:
    return F(mpmath.nstr(x, digits))


E4_LO, E4_HI = F(54598150033, 10**9), F(54598150034, 10**9)    # e^4 = 54.598150033144...


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(40):
        yield


def test_e4_bracket():
    assert mpmath.mpf(E4_LO.numerator) / E4_LO.denominator < mpmath.e ** 4 \
        < mpmath.mpf(E4_HI.numerator) / E4_HI.denominator


def test_fmt21_clone_inside_the_interval_printed_by_the_authors_code():
    """apple/ml-shuffling-amplification, README.md ("Getting Started"): for n = 10^5,
    eps0 = 4, delta = 1e-6 the FMT'21 clone analysis (example.py, 10 bisection steps
    from the closed form 0.5378040242374512) prints eps between 0.1675385583317841 (its
    lower-bound mode) and 0.172790550755978 (upper-bound mode).  The lower mode's end is
    only known to one bisection step, 0.5378040242374512 / 2^10, so the clone's eps lies
    in [0.16753856 - 5.2520e-4, 0.17279055]."""
    lo_printed, hi_printed = 0.1675385583317841, 0.172790550755978
    step = 0.5378040242374512 / 2 ** 10
    a = clone_epsilon(10**5, E4_LO, F(1, 10**6), variant="fmt21", rel=1e-7)
    b = clone_epsilon(10**5, E4_HI, F(1, 10**6), variant="fmt21", rel=1e-7)
    # the bound grows with eps0: [a.lower, b.upper] encloses it at e^4
    assert lo_printed - step <= float(a.lower) <= float(b.upper) <= hi_printed
    assert float(b.upper) - float(a.lower) < 1e-5


def test_fmt21_closed_form_differs_from_the_authors_code():
    """Same README: the closed form prints 0.5378040242374512.  The authors' code evaluates
    log(1 + (1 - e^-eps0)(a + c) / (1 + e^(-eps0 - eps')))  with  a = 8 sqrt(e^eps0 log(4/delta)/n),
    c = 8 e^eps0 / n,  eps' = log(1 + a + c);  exactdp transcribes Theorem 3.1 with the
    factor (e^eps0 - 1)/(e^eps0 + 1), i.e. eps' = 0 in that denominator, which is *smaller*:
    0.5346340 against 0.5378040 (-0.59 %).  A documented discrepancy (docs/peers.md): the
    closed form is only reported, never used as the guarantee's upper end."""
    printed = mpmath.mpf("0.5378040242374512")
    n, e0, delta = 10**5, mpmath.e ** 4, mpmath.mpf("1e-6")
    a = 8 * mpmath.sqrt(e0 * mpmath.log(4 / delta) / n)
    c = 8 * e0 / n
    code_form = mpmath.log(1 + (1 - 1 / e0) * (a + c) / (1 + mpmath.exp(-4 - mpmath.log(1 + a + c))))
    assert abs(code_form - printed) < 1e-14          # the printed number is that formula
    ours_lo = fmt21_closed_form(n, E4_LO, F(1, 10**6))
    ours_hi = fmt21_closed_form(n, E4_HI, F(1, 10**6))
    assert abs(float(ours_lo) - 0.5346340) < 1e-6 and abs(float(ours_hi) - 0.5346340) < 1e-6
    assert ours_hi < printed                         # the discrepancy, stated


def test_blanket_parameters_printed_in_the_authors_notebook():
    """BorjaBalle/amplification-by-shuffling, "Bounds on Privacy Amplification by
    Shuffling.ipynb" (cell 16): RR on two values (RR-2), eps0 = 4, eps = 0.25 prints
    gamma = 0.03597241992418312, max l = 1.9178380785934013, range of l =
    4.403726990562285, variance bound 4.928873289176336.  L-bit RR at L = 1 is RR-2 with
    q = 1/(1 + e^eps0)."""
    q = _rat(1 / (1 + mpmath.e ** 4))
    lam = _rat(mpmath.e ** mpmath.mpf("0.25"))
    pr = rr_blanket_parameters(1, q, lam)
    printed = {"gamma": 0.03597241992418312, "b_plus": 1.9178380785934013,
               "b_range": 4.403726990562285, "c": 4.928873289176336}
    for key, val in printed.items():
        assert abs(float(pr[key]) - val) <= 1e-14 * val, key


@pytest.mark.parametrize("method,printed", [("hoeffding", 0.005642546362741425),
                                            ("bennett", 0.005686529997978448)])
def test_blanket_delta_printed_in_the_authors_notebook(method, printed):
    """Same notebook, cell 19: n = 5000, eps0 = 0.4, delta at eps = 0.005 for
    'Hoeffding, RR-2' and 'Bennett, RR-2'.  Agreement to 11 significant digits (the
    notebook computes in floats)."""
    q = _rat(1 / (1 + mpmath.e ** mpmath.mpf("0.4")))
    lam = _rat(mpmath.e ** mpmath.mpf("0.005"))
    iv = blanket_delta(5000, 1, q, lam, method=method)
    assert abs(float(iv.upper) - printed) <= 1e-11 * printed
    assert abs(float(iv.lower) - printed) <= 1e-11 * printed


@pytest.mark.parametrize("method,printed", [("hoeffding", 0.02397882347116631),
                                            ("bennett", 0.02428301504607527)])
def test_blanket_epsilon_printed_in_the_authors_notebook(method, printed):
    """Same notebook, cell 20: n = 5000, eps0 = 0.4, eps at delta = 1e-6 for
    'Hoeffding, RR-2' and 'Bennett, RR-2': inside exactdp's certified enclosure of the
    same bound (relative width 1e-9)."""
    q = _rat(1 / (1 + mpmath.e ** mpmath.mpf("0.4")))
    iv = blanket_epsilon(5000, 1, q, F(1, 10**6), method=method, rel=1e-9)
    assert float(iv.lower) - 1e-12 <= printed <= float(iv.upper) + 1e-12
