"""Core: exact boundary types, parameter domains, errors, the one e^eps enclosure."""
