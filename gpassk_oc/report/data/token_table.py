"""The report's "Output tokens" section: per run, what it cost beside what it scored.

Figures come from the run's summary (:func:`gpassk_oc.core.runs.token_stats.token_stats`,
counted from the server's per-sample ``output_tokens`` and ``finish_reason`` in the
results file); a run whose file has no token counts is listed as such. The CSV carries
the same figures as columns of each row's ``overall`` line (:func:`token_csv_cells`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpassk_oc.report.data.collect import Run
from gpassk_oc.report.data.report_model import Report

__all__ = ["TOKEN_CSV_HEADER", "TOKEN_HEADER", "token_csv_cells", "token_rows"]

#: the CSV's token columns and the summary's keys they show (a share as a fraction 0..1)
_CSV_KEYS = {
    "tokens_mean": "mean",
    "tokens_median": "median",
    "tokens_p95": "p95",
    "tokens_max": "max",
    "tokens_cut_share": "at_limit_share",
    "tokens_per_correct": "per_correct",
}
TOKEN_CSV_HEADER = list(_CSV_KEYS)

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


def _csv_value(value: Any) -> str:
    if value is None:
        return "NA"
    return str(value) if isinstance(value, int) else f"{value:.4g}"


def token_csv_cells(runs: Sequence[Run], subset: str) -> list[str]:
    """The CSV's token columns for one line: the runs' statistics on the ``overall`` line
    (a row pooling several runs lists each run's, space-separated, as ``seeds`` does;
    ``NA`` for a run or figure without one), empty elsewhere and where no run has counts."""
    stats = [run.summary.tokens for run in runs]
    if subset != "overall" or all(s is None for s in stats):
        return [""] * len(_CSV_KEYS)
    return [
        " ".join(_csv_value(None if s is None else s[key]) for s in stats)
        for key in _CSV_KEYS.values()
    ]
