"""Metric definitions and per-question scoring: metric keys, exact G-Pass@k / mG-Pass@k / pass@k, maj@k, the scorer (pure core)."""
