"""The report's "Output tokens" section: per run, what it cost beside what it scored.

Figures come from the run's summary (:func:`gpassk_oc.core.runs.token_stats.token_stats`,
counted from the server's per-sample ``output_tokens`` and ``finish_reason`` in the
results file); a run whose file has no token counts is listed as such.
"""

from __future__ import annotations

from typing import Any

from gpassk_oc.report.data.report_model import Report

__all__ = ["TOKEN_HEADER", "token_rows"]

TOKEN_HEADER = [
    "run",
    "samples counted",
    "mean",
    "median",
    "p95",
    "max",
    "cut by the limit",
    "tokens per correct sample",
]


def _number(value: Any, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def token_rows(report: Report) -> tuple[list[str], list[list[str]], bool]:
    """(header, one row per run, whether any run has counts)."""
    runs = [run for row in report.rows for run in row.runs] + list(report.greedy)
    body: list[list[str]] = []
    for run in runs:
        stats = run.summary.tokens
        name = f"{run.model_abbr}/{run.dataset_abbr} ({run.timestamp})"
        if stats is None:
            body.append([name, "no token counts recorded"] + [""] * (len(TOKEN_HEADER) - 2))
            continue
        share = stats["at_limit_share"]
        cut = "—" if share is None else f"{stats['at_limit']} ({100 * share:.1f}%)"
        body.append(
            [
                name,
                str(stats["counted"]),
                _number(stats["mean"]),
                _number(stats["median"]),
                str(stats["p95"]),
                str(stats["max"]),
                cut,
                _number(stats["per_correct"]),
            ]
        )
    return TOKEN_HEADER, body, any(run.summary.tokens is not None for run in runs)
