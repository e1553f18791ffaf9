"""Reductions: pair families compiled to statistics, and the method dispatcher."""
