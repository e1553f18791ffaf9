"""Reference oracles (brute force, moments, PGF, proofs): beside the engine, imported only by apps and tests."""
