"""Rank intervals and verdict-error corrections attached to a report; P(A better than B) for ``compare``."""
