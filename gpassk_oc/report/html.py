"""The leaderboard page of ``gpassk-oc report --format html``: data first, text last.

:func:`page_data` turns a :class:`~gpassk_oc.report.model.Report` into plain JSON-able data
(every row's estimates and intervals per question subset, warnings, and per question the
verdict behind every sample); :func:`render_html` embeds that data, the figures as inline
SVG, a style sheet and a small script into one self-contained file. The page makes no
request: no external script, font or image, and ``data:`` for the icon (a browser asks
for ``/favicon.ico`` otherwise).
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

from gpassk_oc.core.scoring.metric_names import headline_metrics
from gpassk_oc.core.scoring.stats import INTERVAL_KINDS
from gpassk_oc.report.collect import Row, subset_name
from gpassk_oc.report.corrections_out import sections
from gpassk_oc.report.model import Report, sorted_rows
from gpassk_oc.report.page_assets import PAGE_SCRIPT, PAGE_STYLE
from gpassk_oc.report.sweep import sweep_note, sweep_sections
from gpassk_oc.report.tables import (
    accounting_rows,
    greedy_rows,
    sensitivity_note,
    sensitivity_rows,
    setting_text,
)

__all__ = ["page_data", "render_html"]


def _num(value: float | None) -> float | None:
    """A fraction as a percentage for the page (JSON has no NaN)."""
    if value is None or not math.isfinite(value):
        return None
    return round(100.0 * value, 4)


def _estimate(est: Any, ci: bool, kinds: tuple[str, ...]) -> dict[str, Any] | None:
    """Value and intervals (percent) of one estimate; an interval without a width is left
    out, a posterior one says so."""
    if est is None:
        return None
    out: dict[str, Any] = {"value": _num(est.value), "intervals": []}
    if not ci:
        return out
    for kind in kinds:
        low, high, status = est.interval(kind)
        if status in ("ok", "posterior") and math.isfinite(low) and math.isfinite(high):
            out["intervals"].append(
                {"kind": kind, "low": _num(low), "high": _num(high), "status": status}
            )
    return out


#: drill-down budget: samples embedded in one page (beyond it, rows keep their numbers and
#: say where the verdicts are); answers are cut to this many characters
MAX_PAGE_SAMPLES = 200_000
MAX_ANSWER_CHARS = 300


class _Codes:
    """Small integer codes for repeated strings (found kinds, sources, run abbrs), so a
    sample is a short array and a page of 1,000 questions × 48 samples stays small."""

    def __init__(self) -> None:
        self.names: list[str | None] = []
        self._index: dict[str | None, int] = {}

    def __call__(self, name: str | None) -> int:
        if name not in self._index:
            self._index[name] = len(self.names)
            self.names.append(name)
        return self._index[name]


def _answer(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_ANSWER_CHARS:
        return text
    return text[:MAX_ANSWER_CHARS] + f"… ({len(text) - MAX_ANSWER_CHARS} more characters)"


def _qid(question_id: str, split: str, language: str) -> str:
    return "/".join(part for part in (split, language, question_id) if part)


def _questions(row: Row, codes: dict[str, _Codes], with_samples: bool) -> list[dict[str, Any]]:
    """Per question: identity, c / n over the pooled runs and (when *with_samples*) every
    sample as ``[answer, found code, verdict, decided-by code, run code]``."""
    seen: dict[str, dict[str, Any]] = {}
    for run in row.runs:
        run_code = codes["run"](run.model_abbr)
        for q in run.results.questions:
            key = _qid(q.question_id, q.split, q.language)
            entry = seen.setdefault(
                key,
                {
                    "id": key,
                    "subset": subset_name((q.split, q.language, q.question_id)),
                    "question": q.question,
                    "gold": q.gold,
                    "c": 0,
                    "n": 0,
                    "samples": [],
                },
            )
            entry["c"] += q.c
            entry["n"] += q.n
            if not with_samples:
                continue
            n = len(q.correct)
            found = list(q.found) if q.found else [None] * n
            source = list(q.source) if q.source else [None] * n
            entry["samples"] += [
                [
                    _answer(q.extracted[i]),
                    codes["found"](found[i]),
                    q.correct[i],
                    codes["by"](source[i]),
                    run_code,
                ]
                for i in range(n)
            ]
    return list(seen.values())


def page_data(report: Report, ci: bool = True, descending: bool = False) -> dict[str, Any]:
    """Everything the page shows, as plain data (no HTML): rows in the report's order."""
    columns = ["Greedy"] + headline_metrics(report.k)
    # the report's chosen kind first: the page shows it by default and offers the other
    kinds = tuple(sorted(INTERVAL_KINDS, key=lambda kind: kind != report.interval))
    codes = {name: _Codes() for name in ("found", "by", "run")}
    budget = MAX_PAGE_SAMPLES
    datasets = []
    for dataset_abbr, subsets in report.subsets.items():
        rows = []
        for row in sorted_rows(report, dataset_abbr, descending=descending):
            cells = {}
            for subset in subsets:
                cell = report.cells.get((row.label, dataset_abbr, subset))
                if cell is None:
                    continue
                values = {"Greedy": _estimate(cell.greedy, ci, kinds)}
                values.update(
                    {key: _estimate(cell.metrics.get(key), ci, kinds) for key in columns[1:]}
                )
                cells[subset] = {"questions": cell.num_questions, "values": values}
            size = sum(len(q.correct) for run in row.runs for q in run.results.questions)
            with_samples = size <= budget
            budget -= size if with_samples else 0
            rows.append(
                {
                    "label": row.label,
                    "model": row.base_model if row.setting else row.label,
                    "setting": setting_text(row),
                    "n": int(row.n.max()) if len(row.n) else 0,
                    "warnings": list(row.warnings),  # run health; row notes are in report.notes
                    "cells": cells,
                    "questions": _questions(row, codes, with_samples),
                    "samples_shown": with_samples,
                }
            )
        datasets.append({"name": dataset_abbr, "subsets": list(subsets), "rows": rows})
    return {
        "title": f"G-Pass@{report.k} leaderboard",
        "k": report.k,
        "level": report.level,
        "columns": columns,
        "datasets": datasets,
        "codes": {name: table.names for name, table in codes.items()},
        "max_samples": MAX_PAGE_SAMPLES,
        "notes": list(report.notes),
    }


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` or ``<!--`` in strings)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _table(title: str, header: list[str], body: list[list[str]], note: str = "") -> str:
    esc = html.escape
    out = [f"<h2>{esc(title)}</h2>"] + ([f"<p>{esc(note)}</p>"] if note else [])
    out.append('<table class="static"><tr>' + "".join(f"<th>{esc(h)}</th>" for h in header))
    out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>" for cells in body]
    return "\n".join(out + ["</table>"])


def _static_tables(report: Report, ci: bool, descending: bool) -> str:
    """The any-k sweep, verdict sensitivity, accounting and greedy runs: the tables every
    format shows."""
    parts = []
    for title, header, body in sweep_sections(report, ci):
        parts.append(_table(title, header, body, sweep_note(report)))
    for dataset_abbr in report.subsets:
        header, body = sensitivity_rows(report, dataset_abbr, descending)
        if body:
            title = f"Verdict sensitivity — {dataset_abbr}"
            parts.append(_table(title, header, body, sensitivity_note(report)))
        header, body = accounting_rows(report, dataset_abbr, descending)
        if body:
            parts.append(_table(f"Accounting — {dataset_abbr}", header, body))
    header, body = greedy_rows(report, ci)
    if body:
        parts.append(_table("Greedy runs", header, body))
    for title, note, header, body in sections(report):  # ranks, corrected values
        parts.append(_table(title, header, body, note))
    return "\n".join(parts)


def _figures_html(figures: list[tuple[str, str]]) -> str:
    parts = []
    for title, svg in figures:
        parts.append(f"<figure><figcaption>{html.escape(title)}</figcaption>{svg}</figure>")
    return "\n".join(parts)


def render_html(
    report: Report,
    ci: bool = True,
    descending: bool = False,
    figures: list[tuple[str, str]] | None = None,
) -> str:
    """One self-contained HTML page: the leaderboard data, the figures as inline SVG
    (*figures*: (title, svg text) pairs; drawn from *report* when None), style and script.
    *ci* False leaves the interval bars out; *descending* sorts by mG-Pass@k descending."""
    data = page_data(report, ci=ci, descending=descending)
    if figures is None:
        from gpassk_oc.report.plots import figure_svgs

        figures = figure_svgs(report)
    title = html.escape(data["title"])
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<link rel="icon" href="data:,">',
            f"<title>{title}</title>",
            f"<style>{PAGE_STYLE}</style></head><body>",
            f"<h1>{title}</h1>",
            '<div id="controls"></div><div id="warnings"></div>',
            '<div id="board"></div><div id="detail" hidden></div>',
            f'<section id="tables">{_static_tables(report, ci, descending)}</section>',
            '<section id="figures"><h2>Figures</h2>',
            _figures_html(figures or []),
            "</section>",
            '<section id="notes"></section>',
            f'<script id="page-data" type="application/json">{_script_json(data)}</script>',
            f"<script>{PAGE_SCRIPT}</script>",
            "</body></html>",
        ]
    )
