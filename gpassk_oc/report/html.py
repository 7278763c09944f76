"""HTML output of ``gpassk-oc report`` (one self-contained page)."""

from __future__ import annotations

import html

from gpassk_oc.report.model import Report
from gpassk_oc.report.sweep import sweep_note, sweep_sections
from gpassk_oc.report.tables import (
    accounting_rows,
    ci_note,
    estimate_text,
    greedy_rows,
    sensitivity_note,
    sensitivity_rows,
    table_rows,
    titles,
)

_STYLE = (
    "body{font-family:sans-serif}table{border-collapse:collapse;margin-bottom:1.5em}"
    "td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
    "td:first-child,td:nth-child(2){text-align:left}"
)


def _table(title: str, header: list[str], body: list[list[str]], note: str = "") -> list[str]:
    esc = html.escape
    out = [f"<h2>{esc(title)}</h2>"] + ([f"<p>{esc(note)}</p>"] if note else []) + ["<table>"]
    out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>")
    out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>" for cells in body]
    return out + ["</table>"]


def render_html(report: Report, ci: bool = True, descending: bool = False) -> str:
    esc = html.escape
    out = [
        "<!DOCTYPE html>",
        "<html><head><meta charset='utf-8'>",
        f"<title>G-Pass@{report.k} report</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>G-Pass@{report.k} report</h1>",
        f"<p>{esc(ci_note(report))}</p>",
    ]
    for dataset_abbr, subset in titles(report):
        header, body = table_rows(report, dataset_abbr, subset, ci, descending)
        if body:
            out += _table(f"{dataset_abbr} — {subset}", header, body)
    for title, header, body in sweep_sections(report, lambda est: estimate_text(est, ci)):
        out += _table(title, header, body, sweep_note(report))
    for dataset_abbr in report.subsets:
        header, body = sensitivity_rows(report, dataset_abbr, descending)
        if body:
            out += _table(
                f"Verdict sensitivity — {dataset_abbr}", header, body, sensitivity_note(report)
            )
    for dataset_abbr in report.subsets:
        header, body = accounting_rows(report, dataset_abbr, descending)
        if body:
            out += _table(f"Accounting — {dataset_abbr}", header, body)
    header, body = greedy_rows(report, ci)
    if body:
        out += _table("Greedy runs", header, body)
    if report.notes:
        out.append(
            "<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>"
        )
    out.append("</body></html>")
    return "\n".join(out)
