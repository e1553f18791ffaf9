"""The law of R as a scipy-shaped distribution object, its inverse queries and export."""
