"""Uncertainty beyond sampling noise (pure core): verdict error rates and what they do to
the estimates (:mod:`.verdict_rates`, :mod:`.verdict_channel`, :mod:`.corrected_estimates`), and rank intervals
(:mod:`.rank_intervals`)."""
