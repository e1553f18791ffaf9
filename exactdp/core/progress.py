"""Progress bars for long runs: one helper used by every command that can take seconds.

:class:`Progress` is a callable ``progress(done, info=None)`` -- the protocol the
engine already uses (:func:`exactdp.engine.kernel.tail_sums` reports ``(nodes, mass)``,
scans report ``(i, total)``) -- and a context manager.  It draws a tqdm bar on
stderr when

* it is enabled (commands pass ``enabled=not (args.quiet or args.json)``),
* stderr is a terminal (never into logs, pipes or captured test output), and
* tqdm is installed (an optional dependency: ``pip install exactdp[progress]``);

otherwise every call is a no-op.  The bar appears only after ``delay`` seconds
(default 2), so quick runs stay silent.

>>> p = Progress("demo", enabled=True)      # under doctest stderr is no terminal
>>> p.active
False
>>> with Progress("scan", total=3, enabled=False) as bar:
...     for i in range(3):
...         bar.update()
>>> bar.n
3
"""

from __future__ import annotations

import io
import os
import sys
import time

__all__ = ["Progress", "tqdm_available", "iterate"]


def tqdm_available() -> bool:
    """True when the optional dependency tqdm can be imported."""
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


class Progress:
    """A tqdm bar on stderr, or nothing (see the module doc).

    ``label``: text before the bar; ``total``: number of steps when known
    (``None``: a counter, e.g. tree nodes); ``unit``: what is counted.
    """

    def __init__(self, label: str, total: int | None = None, *, unit: str = "it",
                 enabled: bool = True, delay: float = 2.0, stream=None):
        self.label = label
        self.total = total
        self.unit = unit
        self.delay = delay
        self.n = 0
        self._bar = None
        self._postfix = None
        self._t0 = time.perf_counter()
        stream = sys.stderr if stream is None else stream
        try:
            tty = bool(stream.isatty())
        except (AttributeError, ValueError):     # closed or replaced streams
            tty = False
        self.stream = stream
        self.active = bool(enabled and tty and tqdm_available())

    # -------------------------------------------------------------- drawing
    def _ensure(self):
        if self._bar is None:
            from tqdm import tqdm
            size = {"dynamic_ncols": True}
            try:                                 # a terminal reporting no size: 80 x 24
                if os.get_terminal_size(self.stream.fileno()).columns == 0:
                    size = {"ncols": 80, "nrows": 24}
            except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
                pass
            self._bar = tqdm(total=self.total, desc=self.label, unit=self.unit, file=self.stream,
                             leave=False, initial=self.n, **size)
        return self._bar

    def _draw(self):
        if not self.active or time.perf_counter() - self._t0 < self.delay:
            return
        bar = self._ensure()
        if self.total is not None and bar.total != self.total:
            bar.total = self.total
        bar.n = self.n
        if self._postfix is not None:
            bar.set_postfix_str(self._postfix, refresh=False)
        bar.refresh()

    # ------------------------------------------------------------- protocol
    def __call__(self, done, info=None):
        """``progress(done, total)`` (a step count of a known total) or
        ``progress(nodes[, anything])`` (a counter; a smaller count starts a new
        evaluation and is shown as is)."""
        if isinstance(info, int) and not isinstance(info, bool):
            self.total = info
        self.n = int(done)
        self._draw()

    def update(self, k: int = 1):
        """Advance by ``k`` steps."""
        self.n += k
        self._draw()

    def note(self, text: str):
        """Text after the bar (e.g. the current bracket of a bisection)."""
        self._postfix = text
        self._draw()

    def write(self, msg: str):
        """Print a line on the stream without breaking the bar (tqdm.write when drawn)."""
        if self._bar is not None:
            from tqdm import tqdm
            tqdm.write(msg, file=self.stream)
        else:
            print(msg, file=self.stream, flush=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def iterate(items, label: str, *, enabled: bool = True, unit: str = "it", delay: float = 2.0):
    """Yield ``items`` while a :class:`Progress` bar counts them."""
    items = list(items)
    with Progress(label, total=len(items), unit=unit, enabled=enabled, delay=delay) as bar:
        for x in items:
            yield x
            bar.update()
