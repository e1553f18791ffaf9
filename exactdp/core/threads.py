"""One BLAS thread for the float screens of the certified engines.

The float scans beside the certified integrals (a characteristic function on a grid of points,
``exp(1j * outer(u, w)) @ p``) are matrix products large enough for OpenBLAS to start its threads,
which then spin beside single-threaded arb work: at L = 40, N = 10^7, the k = 16, q = 0.38
reverse tail by tilting took 7 s wall and 12.6 CPU s with them, 7 s and 7 CPU s without, and two
test workers side by side lost a core to the spinning (``benchmarks/RESULTS.md``, session 30).
:func:`one_blas_thread` holds BLAS to one thread while the engine works and restores the caller's
setting after (no hidden global state).

>>> with one_blas_thread():
...     pass
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits

__all__ = ["one_blas_thread"]


def one_blas_thread():
    """A context manager: BLAS held to one thread inside, the caller's limits restored after."""
    return threadpool_limits(limits=1, user_api="blas")
