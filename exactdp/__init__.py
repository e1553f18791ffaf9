"""exactdp — the exact truth about the privacy of shuffled randomized response.

See README.md for the quick start.

The public names are loaded on first use (PEP 562 module ``__getattr__``), so
``import exactdp`` and ``exactdp --version`` do not pay for flint, numpy,
scipy, sympy or matplotlib:

>>> import exactdp
>>> exactdp.from_randomized_response.__name__
'from_randomized_response'
>>> "Interval" in dir(exactdp)
True
"""

__version__ = "0.1.0"

# public name -> submodule defining it (imported on first attribute access)
_LAZY = {
    "from_randomized_response": "law.distribution",
    "from_pair": "law.distribution",
    "Pair": "model.pair",
    "PrivacyRatio": "law.distribution",
    "WorstCase": "law.distribution",
    "Estimate": "core.estimate",
    "Interval": "core.interval",
    "Mechanism": "model.mechanism",
    "ExactdpError": "core.errors",
    "ParameterError": "core.errors",
    "InexactInputError": "core.errors",
    "CapacityError": "core.errors",
    "PrecisionError": "core.errors",
    "DigitsNotMetError": "core.errors",
}

__all__ = ["from_randomized_response", "from_pair", "Pair", "PrivacyRatio", "WorstCase", "Estimate", "Interval",
           "Mechanism", "ExactdpError", "ParameterError", "InexactInputError",
           "CapacityError", "PrecisionError", "DigitsNotMetError"]


def __getattr__(name):
    """Import the submodule defining ``name`` on first access (PEP 562)."""
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value  # later accesses skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
