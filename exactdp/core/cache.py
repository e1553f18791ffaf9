"""An explicit memo for the expensive intermediate results of one distribution.

:class:`~exactdp.law.distribution.PrivacyRatio` is a frozen value object; the tail
sums, Fourier enclosures and exact laws its queries compute are kept in the public
``cache`` field, an instance of :class:`Cache`, rather than in hidden state.  The
cache never changes a result, only whether it is recomputed: every entry is keyed by
everything the computation depends on (threshold, truncation, working precision).
Pass ``cache=Cache()`` to start fresh, share one between equal distributions, or call
:meth:`Cache.clear` to release memory.

>>> c = Cache()
>>> c["tail", 1] = 42
>>> ("tail", 1) in c, c.get(("tail", 2)), len(c)
(True, None, 1)
>>> c.last_method = "tree"
>>> c.clear(); len(c), c.last_method
(0, None)
"""

from __future__ import annotations

__all__ = ["Cache"]


class Cache:
    """A dict of computed intermediate results plus the name of the strategy the last
    query used (``last_method``; ``None`` before any query)."""

    __slots__ = ("entries", "last_method")

    def __init__(self):
        self.entries: dict = {}
        self.last_method: str | None = None

    def __contains__(self, key) -> bool:
        return key in self.entries

    def __getitem__(self, key):
        return self.entries[key]

    def __setitem__(self, key, value) -> None:
        self.entries[key] = value

    def get(self, key, default=None):
        return self.entries.get(key, default)

    def __len__(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        """Forget every entry (and the last method)."""
        self.entries.clear()
        self.last_method = None

    def __repr__(self) -> str:
        return f"Cache({len(self.entries)} entries, last_method={self.last_method!r})"
