"""The figure of output lengths: per row, the cumulative share of its samples with at most
x output tokens (an empirical distribution function), drawn with the report's other
figures (``--plots`` and the page, :mod:`.plots`).

Only rows whose runs recorded token counts (the results file's per-sample
``output_tokens``, :mod:`gpassk_oc.core.runs.reply_facts`) are drawn; with none, the
figure is absent. The counts are read from the runs' drill-down fragments, which carry
them per sample (:mod:`gpassk_oc.core.runs.drill_fragment`): no results file is read again
when the page was written first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from gpassk_oc.core.runs.results_file import ResultsError
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.page.drilldown import run_fragment
from gpassk_oc.report.page.plots_draw import Curve, FigureSpec

__all__ = ["output_tokens_spec", "row_token_counts"]

#: where a fragment's samples keep their output tokens: [answers, found, verdicts, by,
#: finish reasons, output tokens]
_TOKENS = 5


def row_token_counts(row: Row) -> list[int]:
    """Every recorded output-token count of the row's runs (a run that recorded none, or
    whose file cannot be read now, adds none)."""
    counts: list[int] = []
    for run in row.runs:
        if run.summary.tokens is None:
            continue
        try:
            fragment = run_fragment(run)
        except ResultsError:
            continue
        for q in fragment.questions:
            columns = json.loads(q.samples)
            if len(columns) > _TOKENS:
                counts += [t for t in columns[_TOKENS] if isinstance(t, int)]
    return counts


def _curve(row: Row, label: str, counts: list[int]) -> Curve:
    """The staircase of the empirical distribution function of *counts* (y in percent)."""
    values = sorted(counts)
    x: list[float] = []
    y: list[float | None] = []
    below = 0.0
    for i, value in enumerate(values):
        if i + 1 < len(values) and values[i + 1] == value:
            continue
        share = 100.0 * (i + 1) / len(values)
        x += [value, value]
        y += [below, share]
        below = share
    return {
        "label": label,
        "model": row.label,
        "group": row.base_model,
        "dataset": row.dataset_abbr,
        "counted": len(values),
        "x": x,
        "y": y,
        "ci_low": [None] * len(x),
        "ci_high": [None] * len(x),
    }


def output_tokens_spec(
    rows: Sequence[Row], labels: dict[str, str], dataset_abbr: str, prefix: str, suffix: str
) -> FigureSpec | None:
    """The figure of *rows* (legend *labels*), None when none of them recorded counts."""
    curves, left_out = [], []
    for row in rows:
        counts = row_token_counts(row)
        if counts:
            curves.append(_curve(row, labels[row.label], counts))
        else:
            left_out.append(labels[row.label])
    if not curves:
        return None
    note = f"; {len(left_out)} rows without token counts left out" if left_out else ""
    return (
        f"output_tokens{suffix}",
        curves,
        f"{prefix}Output tokens per sample — {dataset_abbr}\n(cumulative share{note})",
        "output tokens",
        "samples with at most x output tokens (%)",
        False,
        left_out,
    )
