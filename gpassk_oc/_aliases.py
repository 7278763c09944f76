"""The one table of old module paths: what releases 0.1.0 and 0.2.0 documented and later
releases moved. ``gpassk_oc/_alias_finder.py`` serves it: ``import OLD`` gives a module
whose every name read is the object of its new module, with a ``DeprecationWarning``
naming the new path and the release that removes the old one.

A move is one line here (old path -> new path, since, removal release); no shim file.
Paths that were never documented are not kept (CHANGELOG.md lists them).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

#: the release that drops every path below (the next major release)
REMOVAL = "1.0.0"


class Alias(NamedTuple):
    """An old module path's new home: *new* is ``None`` for an old package that only
    holds aliased modules; *elsewhere* maps a name that moved on to its own module."""

    new: str | None
    since: str
    removal: str = REMOVAL
    elsewhere: Mapping[str, str] = MappingProxyType({})


_CHECKING = "gpassk_oc.core.answers.checking"
_COMPARE = "gpassk_oc.report.commands.compare_command"
#: the metric spec and its parsers moved on from metric_keys to the metric registry
_REGISTRY = "gpassk_oc.core.metrics.registry"
_METRIC_NAMES_ELSEWHERE = MappingProxyType(
    dict.fromkeys(
        (
            "KINDS",
            "MetricSpec",
            "headline_metrics",
            "parse_metric",
            "parse_result_key",
            "report_metrics",
        ),
        _REGISTRY,
    )
)

ALIASES: dict[str, Alias] = {
    # 0.1.0's paths (0.1.0 README, 0.2.0 CHANGELOG "Moved" table)
    "gpassk_oc.metrics": Alias("gpassk_oc.core.metrics.gpass_exact", "0.2.0"),
    "gpassk_oc.metric_names": Alias(
        "gpassk_oc.core.metrics.metric_keys", "0.2.0", elsewhere=_METRIC_NAMES_ELSEWHERE
    ),
    "gpassk_oc.compare": Alias(_COMPARE, "0.2.0"),
    "gpassk_oc.core.canonical": Alias("gpassk_oc.core.answers.canonical", "0.2.0"),
    "gpassk_oc.core.extraction": Alias("gpassk_oc.core.answers.extraction", "0.2.0"),
    "gpassk_oc.core.forms": Alias("gpassk_oc.core.answers.forms", "0.2.0"),
    "gpassk_oc.core.mv_pool": Alias("gpassk_oc.core.answers.mv_pool", "0.2.0"),
    "gpassk_oc.core.numeric": Alias("gpassk_oc.core.answers.numeric", "0.2.0"),
    "gpassk_oc.core.rules": Alias(
        "gpassk_oc.core.answers.rules",
        "0.2.0",
        elsewhere=MappingProxyType(
            dict.fromkeys(("check_answer", "check_answers", "answers_equivalent"), _CHECKING)
        ),
    ),
    "gpassk_oc.core.structures": Alias("gpassk_oc.core.answers.structures", "0.2.0"),
    "gpassk_oc.core.grading": Alias("gpassk_oc.core.judging.grading", "0.2.0"),
    "gpassk_oc.core.judge": Alias("gpassk_oc.core.judging.judge", "0.2.0"),
    "gpassk_oc.core.judge_cache": Alias("gpassk_oc.core.judging.judge_cache", "0.2.0"),
    "gpassk_oc.core.verdict": Alias("gpassk_oc.core.judging.verdict", "0.2.0"),
    "gpassk_oc.core.gpass_eval": Alias("gpassk_oc.core.runs.run_scoring", "0.2.0"),
    "gpassk_oc.core.results": Alias("gpassk_oc.core.runs.results_file", "0.2.0"),
    "gpassk_oc.core.stats": Alias("gpassk_oc.core.uncertainty.metric_intervals", "0.2.0"),
    "gpassk_oc.core.livemath_data": Alias("gpassk_oc.core.data.livemath_data", "0.2.0"),
    "gpassk_oc.core.naming": Alias("gpassk_oc.core.data.naming", "0.2.0"),
    # 0.2.0's paths (0.2.0 CHANGELOG "Moved" table, "now" column)
    "gpassk_oc.core.scoring": Alias(None, "0.3.0"),
    "gpassk_oc.core.scoring.metrics": Alias("gpassk_oc.core.metrics.gpass_exact", "0.3.0"),
    "gpassk_oc.core.scoring.metric_names": Alias(
        "gpassk_oc.core.metrics.metric_keys", "0.3.0", elsewhere=_METRIC_NAMES_ELSEWHERE
    ),
    "gpassk_oc.core.scoring.results": Alias("gpassk_oc.core.runs.results_file", "0.3.0"),
    "gpassk_oc.core.scoring.stats": Alias("gpassk_oc.core.uncertainty.metric_intervals", "0.3.0"),
    "gpassk_oc.core.scoring.gpass_eval": Alias("gpassk_oc.core.runs.run_scoring", "0.3.0"),
    "gpassk_oc.report.compare": Alias(_COMPARE, "0.3.0"),
    # report/ by job (0.4.0): the report modules 0.2.0 and 0.3.0 documented (their
    # CHANGELOGs' "now" column; docs/reports.md: plots.write_all, numbers, identity)
    "gpassk_oc.report.compare_command": Alias(_COMPARE, "0.4.0"),
    "gpassk_oc.report.plots": Alias("gpassk_oc.report.page.plots", "0.4.0"),
    "gpassk_oc.report.numbers": Alias("gpassk_oc.report.data.numbers", "0.4.0"),
    "gpassk_oc.report.identity": Alias("gpassk_oc.report.data.identity", "0.4.0"),
    # documented in 0.3.0 (docs/metrics.md: the error a bad argument raises)
    "gpassk_oc.core.arguments": Alias("gpassk_oc.core.answers.arguments", "0.4.0"),
}
