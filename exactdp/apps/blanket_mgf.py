"""The privacy-blanket bound of Balle et al. (2019) evaluated with the exact MGF (L-bit RR).

Balle, Bell, Gascon, Nissim, "The privacy blanket of the shuffle model",
CRYPTO 2019: for every pair of neighbouring datasets whose changed user moves
from ``x1`` to ``x1'``,

    delta(lam) <= 1/(gamma n) E[(sum_{i=1}^M l_i)_+],   M ~ Bin(n, gamma),

with ``l_i`` iid copies of the privacy amplification variable
``l(W) = (R(x1)(W) - lam R(x1')(W)) / omega(W)``, ``W ~ omega`` (the
statement implemented in :func:`exactdp.apps.peers.blanket_delta`).  The
paper bounds the expectation with Hoeffding's and Bennett's inequalities.
Here, instead, for every ``t > 0`` (``x_+ <= e^(t x)/(e t)``, the maximum of
``x e^(-t x)`` being ``1/(e t)``, and ``S = 0`` when ``M = 0``):

    E[(S)_+] <= E[e^(t S) 1{M >= 1}] / (e t)
             = ((1 - gamma + gamma m(t))^n - (1 - gamma)^n) / (e t),

with ``m(t) = E e^(t l)`` the *exact* moment generating function of ``l``.
For L-bit RR, ``omega`` is uniform on ``{0,1}^L``, ``gamma = (2q)^L`` and, for
a pair at Hamming distance ``h`` (by bit flips and permutations every pair is
``0^L`` vs ``1^h 0^(L-h)``; the reverse order has the same law of ``l``),
``l = (2p)^L rho^b (rho^a - lam rho^(h-a))`` with ``rho = q/p`` and
``(a, b) ~ (Bin(h, 1/2), Bin(L-h, 1/2))`` (ones of ``W`` inside / outside the
``h`` changed coordinates) -- :func:`exactdp.apps.peers.rr_blanket_parameters`
uses the same variable.  So ``m(t)`` is a finite sum of exponentials of
rationals, evaluated in arb; the bound is the maximum over ``h`` of the
minimum over ``t`` (``t`` chosen by a float search; any ``t > 0`` is valid,
so only the evaluation at the chosen rational ``t`` needs to be certified).

Both published forms are the same Chernoff step with an upper bound on
``m(t)`` (Hoeffding's lemma, Bennett's inequality) at one ``t`` and without the
``1/e``, so this evaluation is below both at every parameter (tested).  It is
*not* a published bound: it is the published blanket lemma evaluated more
tightly; its validity rests on the blanket lemma as stated above.

>>> from fractions import Fraction as F
>>> from exactdp.apps.peers import blanket_delta
>>> mine = blanket_mgf_delta(10**5, 5, F(1, 4), F(6, 5))
>>> mine.upper < blanket_delta(10**5, 5, F(1, 4), F(6, 5)).lower
True
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from ..core import domains
from ..core.interval import Interval, arb_to_interval
from .peers import bisect_epsilon, exp_eps0_rr

__all__ = ["blanket_mgf_delta", "blanket_mgf_epsilon", "NAME", "CITATION"]

NAME = "blanket-exact-mgf"
CITATION = ("Balle-Bell-Gascon-Nissim CRYPTO 2019 blanket lemma, evaluated with the exact MGF "
            "of L-bit RR's privacy amplification variable (exactdp, not a published bound)")


def _support(L: int, q: Fraction, lam: Fraction, h: int) -> list[tuple[Fraction, Fraction]]:
    """``[(probability, l value)]`` of the privacy amplification variable at distance ``h``."""
    p = 1 - q
    rho = q / p
    K = (2 * p) ** L
    out = []
    for a in range(h + 1):
        for b in range(L - h + 1):
            w = Fraction(math.comb(h, a) * math.comb(L - h, b), 2 ** L)
            out.append((w, K * rho ** b * (rho ** a - lam * rho ** (h - a))))
    return out


def _best_t(n: int, g: float, sup) -> float:
    """Golden-section search of the log bound over log t in floats (numpy); any
    t > 0 gives a valid bound, so this only chooses where to certify."""
    import numpy as np
    w = np.array([float(x) for x, _ in sup])
    v = np.array([float(y) for _, y in sup])
    vmax = float(np.max(np.abs(v)))

    def f(s):
        t = math.exp(s)
        e = t * v
        mx = float(e.max())
        m = float(np.dot(w, np.exp(e - mx)))           # m(t) e^-mx
        inner = (1 - g) * math.exp(-mx) + g * m        # (1 - g + g m(t)) e^-mx
        return n * (math.log(inner) + mx) - s - 1      # log of (1-g+g m)^n / (e t)
    gr = (math.sqrt(5) - 1) / 2
    a, b = math.log(1e-12 / vmax), math.log(700.0 / vmax)
    c, d = b - gr * (b - a), a + gr * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(60):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - gr * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + gr * (b - a)
            fd = f(d)
    return math.exp((a + b) / 2)


def _certified_bound(n: int, gamma: Fraction, sup, t: Fraction, prec: int) -> Interval:
    with ctx.workprec(prec):
        T = arb(t.numerator) / t.denominator
        m = arb(0)
        for w, v in sup:
            m += (arb(w.numerator) / w.denominator) * (T * arb(v.numerator) / v.denominator).exp()
        G = arb(gamma.numerator) / gamma.denominator
        num = (1 - G + G * m) ** n - (1 - G) ** n
        d = num / (G * n * T * arb(1).exp())
        return arb_to_interval(d)


def blanket_mgf_delta(n, L, q, lam, *, prec: int = 128) -> Interval:
    """Certified enclosure of this module's bound on ``delta(lam)`` (max over the
    Hamming distance ``h`` of the changed user's pair); ``[0, 0]`` from ``lam >= e^eps0``."""
    n = domains.N.parse(n)
    L = domains.L.parse(L)
    q = domains.Q.parse(q)
    lam = domains.LAM.parse(lam)
    if lam >= exp_eps0_rr(L, q):
        return Interval.exact(0)
    gamma = (2 * q) ** L
    best = None
    for h in range(1, L + 1):
        sup = _support(L, q, lam, h)
        t = Fraction(_best_t(n, float(gamma), sup)).limit_denominator(2**40)
        if t <= 0:
            t = Fraction(1, 2**40)
        iv = _certified_bound(n, gamma, sup, t, prec)
        if best is None or iv.upper > best.upper:
            best = iv
    one = Fraction(1)
    return Interval(min(max(best.lower, Fraction(0)), one), min(max(best.upper, Fraction(0)), one))


def blanket_mgf_epsilon(n, L, q, delta, *, rel: float = 1e-6) -> Interval:
    """Certified ``[eps_lo, eps_hi]`` of this bound's ``eps(delta)`` (bisection on rational lam)."""
    e0 = exp_eps0_rr(L, q)
    return bisect_epsilon(lambda lam: blanket_mgf_delta(n, L, q, lam), e0, delta, rel=rel)
