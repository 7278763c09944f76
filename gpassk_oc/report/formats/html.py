"""The leaderboard page of ``gpassk-oc report --format html``: data first, text last.

:func:`page_data` turns a :class:`~gpassk_oc.report.data.report_model.Report` into plain JSON-able data
(every row's identity, estimates and intervals per question subset, warnings);
:func:`render_html` embeds that data, the figures as inline SVG, a style sheet and a small
script into one file. The only files it loads are its rows' drill-down scripts
(:mod:`.drilldown`), beside it, when a row is clicked: no external script, font or image,
and ``data:`` for the icon (a browser asks for ``/favicon.ico`` otherwise).
"""

from __future__ import annotations

import html
import math
from typing import Any

from gpassk_oc.core.runs.run_record import value_text
from gpassk_oc.core.uncertainty.interval_kinds import SHOWN
from gpassk_oc.core.uncertainty.metric_intervals import INTERVAL_KINDS, Estimate
from gpassk_oc.report.auditing.audit_verdicts import SHEET_COLUMNS
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.published_section import add_column, notes_lines
from gpassk_oc.report.data.report_model import Report, sorted_rows
from gpassk_oc.report.data.sweep import sweep_note, sweep_sections
from gpassk_oc.report.data.tables import (
    POSTERIOR,
    SHORT_N_NOTE,
    UNRELIABLE,
    WIDE,
    accounting_note,
    accounting_rows,
    greedy_rows,
    identity_cells,
    identity_columns,
    no_width_note,
    sensitivity_note,
    sensitivity_rows,
    setting_text,
)
from gpassk_oc.report.formats.corrections_out import sections
from gpassk_oc.report.formats.format_spec import Format, RenderOptions
from gpassk_oc.report.page.drilldown import page_rows, script_json
from gpassk_oc.report.page.page_assets import PAGE_SCRIPT, PAGE_STYLE

__all__ = ["page_data", "render_html"]


def _num(value: float | None) -> float | None:
    """A fraction as a percentage for the page (JSON has no NaN)."""
    if value is None or not math.isfinite(value):
        return None
    return round(100.0 * value, 4)


def _estimate(est: Estimate | None, ci: bool, kinds: tuple[str, ...]) -> dict[str, Any] | None:
    """Value and intervals (percent) of one estimate; an interval without a width, or
    without one at n < 2k, is kept without bounds (the page says "[no width]" or "[n<2k]"
    and why, as the markdown does), a posterior one says so."""
    if est is None:
        return None
    out: dict[str, Any] = {"value": _num(est.value), "intervals": []}
    if not ci:
        return out
    for kind in kinds:
        low, high, status = est.interval(kind)
        if status in SHOWN and math.isfinite(low) and math.isfinite(high):
            out["intervals"].append(
                {"kind": kind, "low": _num(low), "high": _num(high), "status": status}
            )
        elif status in ("no width", "n < 2k"):  # shown without bounds, as the markdown does
            out["intervals"].append({"kind": kind, "low": None, "high": None, "status": status})
    return out


def _row_data(report: Report, row: Row, rid: str, ci: bool, kinds: tuple[str, ...]) -> dict:
    columns = report.headline_columns()  # (key, header): G-Pass@1 at every τ is one
    greedy = tuple(kind for kind in kinds if kind != "rerun")
    cells = {}
    for subset in report.subsets[row.dataset_abbr]:
        cell = report.cells.get((row.label, row.dataset_abbr, subset))
        if cell is None:
            continue
        # greedy (one sample per question) has no rerun interval: the markdown shows none
        values = {"Greedy": _estimate(cell.greedy, ci, greedy)}
        values.update({h: _estimate(cell.metrics.get(key), ci, kinds) for key, h in columns})
        cells[subset] = {"questions": cell.num_questions, "values": values}
    s = row.setting
    return {
        "label": row.label,
        "model": row.base_model if s else row.label,
        "identity": identity_cells(report, row),
        "filters": {
            "model": row.base_model if s else row.label,
            "temperature": value_text(s.temperature) if s else "?",
            "top_p": value_text(s.top_p) if s else "?",
        },
        "setting": setting_text(row),
        "n": int(row.n.max()) if len(row.n) else 0,
        "warnings": list(row.warnings),  # run health; row notes are in report.notes
        "cells": cells,
        "drill": rid,
    }


def page_data(
    report: Report, ci: bool = True, descending: bool = True, drill: str | None = None
) -> dict[str, Any]:
    """Everything the page shows, as plain data (no HTML): rows in the report's order.
    *drill* is the folder (relative to the page) of the drill-down files
    (:mod:`.drilldown`); None when none are written."""
    # the report's chosen kind first: the page shows it by default and offers the other
    kinds = tuple(sorted(INTERVAL_KINDS, key=lambda kind: kind != report.interval))
    by_dataset: dict[str, list[dict[str, Any]]] = {name: [] for name in report.subsets}
    for dataset_abbr, row, rid in page_rows(report, descending):
        by_dataset[dataset_abbr].append(_row_data(report, row, rid, ci, kinds))
    return {
        "title": f"G-Pass@{report.k} leaderboard",
        "k": report.k,
        "level": report.level,
        "columns": ["Greedy"] + [header for _, header in report.headline_columns()],
        "identity": identity_columns(report),
        "datasets": [
            {"name": name, "subsets": list(report.subsets[name]), "rows": rows}
            for name, rows in by_dataset.items()
        ],
        "drill": drill,
        "sheet_columns": list(SHEET_COLUMNS),  # the drill-down's audit-sheet export
        "notes": list(report.notes) + report.same_metric_notes(),  # why a column is merged
        "unreliable_note": UNRELIABLE,  # why a rerun interval is marked '!'
        "wide_note": WIDE,  # why one is marked '+'
        "posterior_note": POSTERIOR,  # why one is marked '*'
        # what a cell without an interval means, per kind (the markdown's [no width])
        "no_width_note": {kind: no_width_note(kind) for kind in INTERVAL_KINDS},
        "short_note": SHORT_N_NOTE,  # why a rerun cell reads [n<2k]
    }


def _table(title: str, header: list[str], body: list[list[str]], note: str = "") -> str:
    esc = html.escape
    out = [f"<h2>{esc(title)}</h2>"] + ([f"<p>{esc(note)}</p>"] if note else [])
    out.append(
        '<div class="scroll"><table class="static"><tr>'
        + "".join(f"<th>{esc(h)}</th>" for h in header)
    )
    out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>" for cells in body]
    return "\n".join(out + ["</table></div>"])


def _static_tables(report: Report, ci: bool, descending: bool) -> str:
    """The any-k sweep, verdict sensitivity, accounting, greedy runs, ranks, corrected and
    published values: the tables every format shows."""
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
            note = accounting_note(header)
            parts.append(_table(f"Accounting — {dataset_abbr}", header, body, note))
    header, body = greedy_rows(report, ci)
    if body:
        parts.append(_table("Greedy runs", header, body))
    for title, note, header, body in sections(report):  # ranks, corrected values
        parts.append(_table(title, header, body, note))
    parts += _published_tables(report, descending)
    return "\n".join(parts)


def _published_tables(report: Report, descending: bool) -> list[str]:
    """With ``--published``: per dataset, each row's published values as the markdown's
    overall table shows them in its last column, and the markdown's *Published numbers*
    lines as the note."""
    if report.published is None:
        return []
    out = []
    note = " ".join(notes_lines(report))
    for dataset_abbr in report.subsets:
        rows = sorted_rows(report, dataset_abbr, "overall", descending)
        names = (identity_columns(report), [identity_cells(report, row) for row in rows])
        header, body = add_column(report, dataset_abbr, "overall", descending, names)
        if body:
            out.append(_table(f"Published numbers — {dataset_abbr}", header, body, note))
    return out


def _figures_html(figures: list[tuple[str, str, list[str]]]) -> str:
    parts = []
    for title, svg, rest in figures:
        listed = ""
        if rest:
            items = "".join(f"<li>{html.escape(name)}</li>" for name in rest)
            listed = (
                f"<details><summary>{len(rest)} not drawn (see the tables)</summary>"
                f"<ul>{items}</ul></details>"
            )
        caption = f"<figcaption>{html.escape(title)}</figcaption>"
        parts.append(f"<figure>{caption}{svg}{listed}</figure>")
    return "\n".join(parts)


def render_html(
    report: Report,
    ci: bool = True,
    descending: bool = True,
    figures: list[tuple[str, str, list[str]]] | None = None,
    drill: str | None = None,
) -> str:
    """One self-contained HTML page: the leaderboard data, the figures as inline SVG
    (*figures*: (title, svg text, rows left out) triples; drawn from *report* when None), style and script.
    *ci* False leaves the interval bars out; *descending* lists the best first by mG-Pass@k (False: ascending);
    *drill* names the folder of the drill-down files (:func:`.drilldown.drill_files`)."""
    data = page_data(report, ci=ci, descending=descending, drill=drill)
    if figures is None:
        from gpassk_oc.report.page.plots import figure_svgs

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
            f'<header id="top"><h1>{title}</h1><div id="controls"></div></header>',
            '<div id="warnings"></div>',
            '<div id="board"></div><div id="detail" hidden></div>',
            f'<section id="tables">{_static_tables(report, ci, descending)}</section>',
            '<section id="figures"><h2>Figures</h2>',
            _figures_html(figures or []),
            "</section>",
            '<section id="notes"></section>',
            f'<script id="page-data" type="application/json">{script_json(data)}</script>',
            f"<script>{PAGE_SCRIPT}</script>",
            "</body></html>",
        ]
    )


def _render(report: Report, options: RenderOptions) -> str:
    return render_html(report, options.ci, options.descending, drill=options.drill)


FORMAT = Format("html", (".html", ".htm"), _render)
