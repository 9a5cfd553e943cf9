"""Experiments: splits, the runner, per-split records and summary tables."""
