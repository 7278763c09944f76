"""gpassk_oc: G-Pass@k and LiveMathBench for OpenCompass.

The stable Python API is the names in ``__all__`` (docs/api.md)::

    from gpassk_oc import g_pass_at_k, mg_pass_at_k, pass_at_k, maj_at_k, grade, \\
        GradingPolicy, JudgeConfig, read_results

They are loaded on first use, so ``import gpassk_oc`` stays light (no numpy, no
OpenCompass): OpenCompass's task subprocesses import the adapters by their dotted paths
(``gpassk_oc.evaluators.GPassKEvaluator``) through this package.

The stable surface (docs/api.md, "What the promise covers") is these names, the
OpenCompass component paths that configs name (``gpassk_oc.datasets``, ``.evaluators``,
``.models``, ``.postprocessors``, ``gpassk_oc.configs.*``), the ``gpassk-oc`` command line
and the results-file schema. Every other module is internal and may move between minor
releases; an old path a release documented keeps working, with a warning, through the
alias table (``gpassk_oc/_aliases.py``).

Layout:
* pure core (no OpenCompass import): ``gpassk_oc.core.*``;
* OpenCompass adapters: ``gpassk_oc.datasets``, ``.evaluators``, ``.postprocessors``,
  ``.models``, ``.configs``;
* tools: ``gpassk_oc.configgen``, ``gpassk_oc.report``, ``gpassk_oc.rescore``,
  ``gpassk_oc.demo``, ``gpassk_oc.cli``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpassk_oc import _alias_finder
from gpassk_oc._lazy_names import lazy_names
from gpassk_oc._version import __version__

_alias_finder.install()  # old module paths (gpassk_oc/_aliases.py) import, with a warning

#: public name -> the module that defines it (one owner each)
_API = {
    "g_pass_at_k": "gpassk_oc.core.metrics.gpass_exact",
    "mg_pass_at_k": "gpassk_oc.core.metrics.gpass_exact",
    "pass_at_k": "gpassk_oc.core.metrics.gpass_exact",
    "g_pass_table": "gpassk_oc.core.metrics.gpass_exact",
    "GPassTable": "gpassk_oc.core.metrics.gpass_exact",
    "maj_at_k": "gpassk_oc.core.metrics.majority_vote",
    "profile": "gpassk_oc.core.metrics.majority_vote",
    "grade": "gpassk_oc.core.judging.grading",
    "GradingPolicy": "gpassk_oc.core.judging.grading",
    "GradeResult": "gpassk_oc.core.judging.grading",
    "UnjudgedError": "gpassk_oc.core.judging.grading",
    "JudgeConfig": "gpassk_oc.core.judging.judge",
    "read_results": "gpassk_oc.core.runs.results_file",
    "Results": "gpassk_oc.core.runs.results_file",
    "summarize": "gpassk_oc.core.uncertainty.metric_intervals",
}

__all__ = [  # a literal, for linters and type checkers; test_api checks it matches _API
    "__version__",
    "g_pass_at_k",
    "mg_pass_at_k",
    "pass_at_k",
    "g_pass_table",
    "GPassTable",
    "maj_at_k",
    "profile",
    "grade",
    "GradingPolicy",
    "GradeResult",
    "UnjudgedError",
    "JudgeConfig",
    "read_results",
    "Results",
    "summarize",
]

if TYPE_CHECKING:  # the static view of what __getattr__ provides
    from gpassk_oc.core.judging.grading import GradeResult, GradingPolicy, UnjudgedError, grade
    from gpassk_oc.core.judging.judge import JudgeConfig
    from gpassk_oc.core.metrics.gpass_exact import (
        GPassTable,
        g_pass_at_k,
        g_pass_table,
        mg_pass_at_k,
        pass_at_k,
    )
    from gpassk_oc.core.metrics.majority_vote import maj_at_k, profile
    from gpassk_oc.core.runs.results_file import Results, read_results
    from gpassk_oc.core.uncertainty.metric_intervals import summarize


__getattr__, __dir__ = lazy_names(globals(), _API)
