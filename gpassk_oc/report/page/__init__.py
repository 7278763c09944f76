"""The leaderboard page's parts: figures (:mod:`.plots`, drawn by :mod:`.plots_draw`), the per-sample drill-down files, the page's script and style."""
