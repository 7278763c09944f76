"""Scoring: exact metrics, their names, per-question scorer, results file, statistics (pure core)."""
