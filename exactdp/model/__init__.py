"""Model: the neighbouring pair and the bit-vector randomizer."""
