"""exactdp — the exact truth about the privacy of shuffled randomized response.

See README.md for the quick start.
"""

__version__ = "0.1.0"

from .distribution import Estimate, PrivacyRatio, WorstCase, from_randomized_response  # noqa: E402
from .errors import (CapacityError, ExactdpError, InexactInputError, ParameterError,  # noqa: E402
                     PrecisionError)
from .interval import Interval  # noqa: E402
from .mechanism import Mechanism  # noqa: E402

__all__ = ["from_randomized_response", "PrivacyRatio", "WorstCase", "Estimate", "Interval",
           "Mechanism", "ExactdpError", "ParameterError", "InexactInputError",
           "CapacityError", "PrecisionError"]
