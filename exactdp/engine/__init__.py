"""Engine: certified searches and strategies over a linear statistic."""
