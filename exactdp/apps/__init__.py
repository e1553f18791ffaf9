"""Applications: calibration, heuristics, peers, guarantee, audit, conjectures, figures, sweeps, CLI."""
