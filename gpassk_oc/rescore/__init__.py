"""``gpassk-oc rescore``: re-grade runs that OpenCompass's own LiveMathBench configs or
another harness (lm-evaluation-harness, lighteval, evalscope) wrote.

A tool layer on top of the core: one importer per tool (:mod:`.importers`, the interface
in :mod:`.importer`) recognises its files and yields runs; OpenCompass work dirs are read
by :mod:`.source` (layout: :mod:`gpassk_oc.workdir`) and :mod:`.reported`, other tools' runs
go through :mod:`.foreign`; :mod:`.questions` recovers split × language from ``--data``;
every run is graded through the core step (:mod:`gpassk_oc.core.runs.score_run`) into a
results file of the current schema; :mod:`.reasons` names why the tool's own numbers
differ (worded in :mod:`.reason_words`), and :mod:`.rescore_command` is the CLI. See
``docs/rescore.md``.
"""
