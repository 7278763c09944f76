"""Markdown output of ``gpassk-oc report`` (the default)."""

from __future__ import annotations

from collections.abc import Iterable

from gpassk_oc.report.data.health_warnings import MARKER
from gpassk_oc.report.data.published_section import add_column, notes_lines
from gpassk_oc.report.data.report_model import Report
from gpassk_oc.report.data.sweep import sweep_note, sweep_sections
from gpassk_oc.report.data.tables import (
    Entry,
    accounting_note,
    accounting_rows,
    greedy_rows,
    legend,
    sensitivity_note,
    sensitivity_rows,
    shown_statuses,
    table_rows,
    titles,
)
from gpassk_oc.report.data.token_table import token_rows
from gpassk_oc.report.formats.corrections_out import markdown_sections
from gpassk_oc.report.formats.format_spec import Format, RenderOptions


def _marked(text: str) -> str:
    """A legend entry with its leading mark in code (``*`` or ``+`` after a bullet's ``- ``
    would start a nested list)."""
    mark, sep, rest = text.partition(" = ")
    return f"`{mark}`{sep}{rest}" if sep and mark in ("*", "+", "!") else text


def legend_lines(entries: Iterable[Entry]) -> list[str]:
    """Markdown bullets of legend entries (:func:`.tables.legend`), each entry's items
    nested under it."""
    out = []
    for text, items in entries:
        out += [f"- {_marked(text)}"] + [f"  - {item}" for item in items]
    return out


TOKEN_NOTE = (
    "Output tokens per sample as the server counted them (`usage.completion_tokens`); cut "
    "by the limit: replies it stopped with finish_reason `length`; p95: nearest rank."
)


def _table(header: list[str], body: list[list[str]]) -> list[str]:
    return (
        ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        + ["| " + " | ".join(cells) + " |" for cells in body]
        + [""]
    )


def warning_lines(report: Report) -> list[str]:
    """The run-health warnings of the rows (marked ⚠ in the tables) and greedy runs, each
    once: the page lists them above its board and the JSON rows carry them (``warnings``);
    stderr alone would leave a saved markdown file with marks it does not explain."""
    lines = [w for row in report.rows for w in row.warnings]
    lines += [w for run in report.greedy for w in run.warnings]
    found = list(dict.fromkeys(lines))
    if not found:
        return []
    lead = f"Run health: the rows marked{MARKER} in the tables have these warnings."
    return ["## Warnings", "", lead, ""] + [f"- {w}" for w in found] + [""]


def render_markdown(report: Report, ci: bool = True, descending: bool = True) -> str:
    out = [f"# G-Pass@{report.k} report", ""]
    out += legend_lines(legend(report, descending, shown_statuses(report, ci))) + [""]
    out += warning_lines(report)
    for dataset_abbr, subset in titles(report):
        header, body = add_column(
            report,
            dataset_abbr,
            subset,
            descending,
            table_rows(report, dataset_abbr, subset, ci, descending),
        )
        if body:
            out += [f"## {dataset_abbr} — {subset}", ""] + _table(header, body)
    for title, header, body in sweep_sections(report, ci):
        out += [f"## {title}", "", sweep_note(report), ""] + _table(header, body)
    for dataset_abbr in report.subsets:
        header, body = sensitivity_rows(report, dataset_abbr, descending)
        if body:
            out += [
                f"## Verdict sensitivity — {dataset_abbr}",
                "",
                sensitivity_note(report),
                "",
            ] + _table(header, body)
    for dataset_abbr in report.subsets:
        header, body = accounting_rows(report, dataset_abbr, descending)
        if body:
            note = accounting_note(header)
            out += [f"## Accounting — {dataset_abbr}", "", note, ""] + _table(header, body)
    header, body = greedy_rows(report, ci)
    if body:
        out += ["## Greedy runs", ""] + _table(header, body)
    header, body, counted = token_rows(report)
    if counted:  # runs without counts are listed only beside runs that have them
        out += ["## Output tokens", "", TOKEN_NOTE, ""] + _table(header, body)
    out += markdown_sections(report)  # ranks, corrected values (report.corrections_out)
    if published := notes_lines(report):
        out += ["## Published numbers", ""] + [f"- {line}" for line in published] + [""]
    if report.notes:
        out += ["## Notes", ""] + [f"- {note}" for note in report.notes] + [""]
    return "\n".join(out)


def _render(report: Report, options: RenderOptions) -> str:
    return render_markdown(report, options.ci, options.descending)


FORMAT = Format("markdown", (".md", ".markdown"), _render, also_in=("compare", "plan"))
