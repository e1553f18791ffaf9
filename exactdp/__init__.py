"""exactdp — the exact truth about the privacy of shuffled randomized response.

See README.md for the quick start.
"""

__version__ = "0.1.0"
