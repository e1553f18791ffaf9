r"""k-randomization at deployment scale: certified eta of the k-copies statistic for any N.

The k-copies tree (:mod:`exactdp.reductions.kcopies`) conditions on every class
count and stops near ``N ~ 10^3`` at ``L = 5``.  This module is the
large-``N`` strategy of :mod:`exactdp.engine.largen` extended to the k-copies
statistic; its cost does not grow with ``N``.

**The statistic.**  For a pair with one homogeneous collection (000's pair at
Hamming distance ``d``, forward, or 003's reverse; :func:`~exactdp.reductions.kcopies.kcopies`)
every user submits ``k`` randomizations and (000 (8.21) as corrected in
``proofs/k_randomization.py``, id 000-8.21)

    R(S) = e_k(c(v_1), ..., c(v_M)) / C(M, k),   M = kN,   c(v) = (q/p)^(d - 2 j(v)),

``j(v)`` the number of the changed columns set in output ``v`` (its *level*).
With ``w = c / M`` and ``kappa = M^k / C(M, k)``: ``R = kappa e_k(w)``.  The
``M`` outputs are independent: forward (``S ~ A(D_m)``) ``k(N - 1)`` of them
have the null level law ``pi0_j = C(d,j) q^j p^(d-j)`` and the changed user's
``k`` have ``pi1_j = pi0_j c_j`` (000 (3.5)); reverse (``S ~ A(D_m) = A(z^N)``)
all ``kN`` are null.  ``eta = P[R > lam]`` forward and ``P[R < 1/lam]``
reverse (``R`` here always ``P(S | z^(N-1) + w) / P(S | z^N)``).

**Heavy and light levels.**  As in :func:`exactdp.engine.largen.split_plan`
(with ``M`` outputs in place of ``N`` users) the top levels are *heavy*: their
counts (null and changed-user outputs separately, binomial chain rule from the
top level down) are enumerated exactly, nodes of mass below ``tol`` and the
binomial windows' tails entering the width.  Given the heavy counts,

    e_k(w) = sum_i e_i(H) e_(k-i)(Lt),     e_i(H) = [t^i] prod_(heavy l) (1 + w_l t)^(n_l)

(exact arb polynomials), where ``Lt`` are the light outputs, all of weight at
most ``w_max`` (the top light level's).

**The parts.**  The tunable constants are in :mod:`~exactdp.reductions.kfourier.settings`
(read at call time as ``settings.NAME``).  The light elementary symmetric functions are
enclosed by the Bonferroni power-sum bracket (:mod:`~exactdp.reductions.kfourier.bracket`) or,
by default, by the exact series relation over power-sum boxes
(:mod:`~exactdp.reductions.kfourier.series`); points are chosen in floats
(:mod:`~exactdp.reductions.kfourier.floats`) and certified in arb.  The walk
(:mod:`~exactdp.reductions.kfourier.walk`) enumerates the heavy levels, decides nodes and bounds
groups over the light laws of :mod:`~exactdp.reductions.kfourier.laws` (their Chernoff levels
and series boxes); each leaf's light tail goes to one Fourier integral per bin of the light
statistic (:mod:`~exactdp.reductions.kfourier.integral`).  Where ``eta`` is near 1 (small ``q``,
large ``k``) a product bound on the lower tail of ``R`` answers without a walk
(:mod:`~exactdp.reductions.kfourier.lowertail`).  The entry points are in
:mod:`~exactdp.reductions.kfourier.api`.  The dependencies point one way: ``settings`` and
``arbs`` below everything; ``bracket`` <- ``series`` <- ``floats``; ``series`` <- ``laws``;
``bracket``, ``series``, ``floats``, ``laws``, ``integral`` <- ``walk`` <- ``api`` <- this package;
``lowertail`` <- ``api``; ``series`` <- ``tilt`` (the forward far tail by tilting, below).

**Far tails (``tilt``).**  Where forward ``eta`` is a large deviation of many outputs (a Chernoff
bound below ``10^tilt.ROUTE``; at ``L = 40``, ``N = 10^7``, ``lam = e^2``: ``q >= 0.415``) the walk's
decisions give only an upper bound; :func:`~exactdp.reductions.kfourier.tilt.ktilted_eta` tilts the whole law instead
(the series enclosure under the tilted law, the top level's count enumerated where it is small;
``method="ktilt"``, before the walk under ``auto``, declining above its route); the forward
``delta = E_D[(R - lam)+]`` the same way (:func:`~exactdp.reductions.kfourier.tilt.ktilted_delta`,
``delta --k`` below the route).  003's reverse the
same way below ``10^tilt.REVERSE_ROUTE`` (the lower tail of ``R``: the light levels by one box, the
heavy ones by a union bound, by their count, or the levels the tilted law still visits enumerated;
at ``L = 40``, ``N = 10^7``, ``lam = e^2`` every ``q`` measured from 0.34 at ``k <= 8``, 0.351 at
``k = 16``, 0.36 at ``k = 32``, 0.37 at ``k = 64``, 0.38 at ``k = 128, 200``; above the route, the
walk's range).

>>> from exactdp.reductions.pairs import reverse_canonical_pair
>>> iv = kfourier_eta(reverse_canonical_pair(5000, 5, 2), "1/5", Fraction(11, 10), tol=1e-6)
>>> 0.46 < float(iv.lower) <= float(iv.upper) < 0.48
True
"""

from __future__ import annotations

from fractions import Fraction  # noqa: F401  (the doctest above)

from .api import KDelta, KFourier, budget_tol, kfourier_delta, kfourier_delta_details, kfourier_details, \
    kfourier_eta, measured_exponent, next_pass_tol, pass_budget_tol, pass_out_of_time, tiny_scale
from .settings import MIN_OUTPUTS
from .tilt import KTilted, ktilted_delta, ktilted_eta

__all__ = ["KFourier", "KDelta", "kfourier_eta", "kfourier_details", "kfourier_delta",
           "kfourier_delta_details", "budget_tol", "pass_budget_tol", "pass_out_of_time", "measured_exponent", "next_pass_tol",
           "tiny_scale", "MIN_OUTPUTS", "KTilted", "ktilted_eta", "ktilted_delta"]
