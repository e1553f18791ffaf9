"""Float images for the Chernoff saddle search (:meth:`exactdp.engine.largen._Light.saddle`):
``K(t) = log E e^{tS}``, ``K'(t)``, ``K''(t)`` of a sum of independent factors, in doubles.

These numbers only *choose* the point ``t`` of a Chernoff bound (any ``t > 0`` gives a valid
bound; the bound itself is an arb evaluation), so a double-precision image suffices.  The
optional C extension ``exactdp.engine._cfloat`` (``exactdp/engine/_cfloat.c``, built by
``pip install -e .``) computes them in one call; where it is absent (or
``EXACTDP_NO_CFLOAT`` is set) numpy does, with the same formulas: each factor's exponents
shifted by the largest (``t max w`` for ``t >= 0``, ``t min w`` below), ``K = sum m (shift + log
z)``, ``K' = sum m mu``, ``K'' = sum m var`` over the factors' tilted laws.  At ``L = 40``,
``N = 10^7``, ``k = 16``, ``q = 0.41`` a walk asks ~590,000 of them (16 of its 124 s with numpy).

>>> f = pack([([0.0, 1.0], [0.5, 0.5], 2)])       # two fair coins
>>> [round(x, 12) for x in cumulants(0.0, f)]
[0.0, 1.0, 0.5]
>>> [round(x, 12) for x in cumulants(0.0, f, compiled=False)]
[0.0, 1.0, 0.5]
"""

from __future__ import annotations

import importlib
import math
import os

import numpy as np

try:
    if os.environ.get("EXACTDP_NO_CFLOAT"):
        raise ImportError("disabled by EXACTDP_NO_CFLOAT")
    _EXT = importlib.import_module(__name__.rsplit(".", 1)[0] + "._cfloat")
except ImportError:                 # not built (no compiler at install) or disabled
    _EXT = None


def available() -> bool:
    """Whether the compiled images are importable."""
    return _EXT is not None


class Packed:
    """The factors ``(w, p, m)`` (weights and probabilities of the used entries, multiplicity)
    as numpy arrays and as one buffer for the extension (:func:`pack`)."""

    __slots__ = ("arrays", "buffer")

    def __init__(self, arrays, buffer):
        self.arrays, self.buffer = arrays, buffer


def pack(factors) -> Packed:
    """:class:`Packed` of ``[(w, p, m), ...]`` (entries with ``p = 0`` left out)."""
    arrays, flat = [], [float(len(factors))]
    for w, p, m in factors:
        w, p = np.asarray(w, dtype=float), np.asarray(p, dtype=float)
        used = p > 0
        wu, pu = w[used], p[used]
        arrays.append((wu, pu, m, float(wu.max()), float(wu.min())))
        flat += [float(m), float(len(wu)), float(wu.max()), float(wu.min())]
        flat += wu.tolist() + pu.tolist()
    return Packed(arrays, np.array(flat, dtype=float))


def cumulants(t: float, packed: Packed, *, compiled: bool = True):
    """``(K(t), K'(t), K''(t))`` of the packed factors (floats): by the extension where built
    (and ``compiled``), else numpy."""
    if compiled and _EXT is not None:
        return _EXT.cumulants(t, packed.buffer)
    dot = np.dot
    k0 = k1 = k2 = 0.0
    for w, pr, m, wmx, wmn in packed.arrays:
        sh = t * wmx if t >= 0 else t * wmn
        e = np.exp(t * w - sh) * pr
        z = e.sum()
        mu = dot(e, w) / z
        d = w - mu
        k0 += m * (float(sh) + math.log(float(z)))
        k1 += m * float(mu)
        k2 += m * max(float(dot(e, d * d) / z), 0.0)
    return k0, k1, k2
