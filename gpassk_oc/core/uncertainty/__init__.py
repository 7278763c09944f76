"""Uncertainty beyond sampling noise (pure core): verdict error rates and what they do to
the estimates (:mod:`.rates`, :mod:`.channel`, :mod:`.corrected`), and rank intervals
(:mod:`.ranks`)."""
