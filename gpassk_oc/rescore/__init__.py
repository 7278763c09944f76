"""``gpassk-oc rescore``: re-grade a work dir made by OpenCompass's own LiveMathBench configs.

A tool layer on top of the core: :mod:`.source` finds the LiveMathBench tasks of the work
dir and reads their predictions (layout: :mod:`gpassk_oc.workdir`), :mod:`.reported` reads
OpenCompass's own results files, :mod:`.questions` recovers split × language,
:mod:`.regrade` grades every sample with this package's checker into a results file of the
current schema, :mod:`.reasons` names why OpenCompass's numbers differ, and
:mod:`.rescore_command` is the CLI. See ``docs/rescore.md``.
"""
