"""Judging: the LLM-judge client, its cache, verdict parsing and the grading cascade (pure core)."""
