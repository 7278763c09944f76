"""``gpassk-oc report --published``: the paper's published values beside a run (data first).

For every table row whose model is in the name map (:mod:`gpassk_oc.core.data.published`)
and whose questions are a published LiveMathBench benchmark (its version and exactly its
splits), :func:`build_published` pairs each published column (Greedy, G-Pass@16_τ,
mG-Pass@16) with the run's estimate and says whether the published value lies inside the
run's **benchmark** interval (new questions too): inside when it is within half a unit of
its last printed digit (0.05 points) of ``[low, high]``; unknown (None) when the run has
no such interval or no such metric (a report at another k, no greedy run). An interval
the table prints with ``!`` (unreliable) is compared too, and the comparison keeps the
``!`` (the entry's ``status``). Rows the
published data flags as inconsistent carry the reasons.

Renderers add one column with :func:`cell_text` (markdown), a few columns
(:func:`csv_columns`) or one object (:func:`cell_json`); :func:`notes_lines` names the
source and the flags.
"""

from __future__ import annotations

import math
from typing import Any

from gpassk_oc.core.data.naming import parse_dataset_abbr
from gpassk_oc.core.data.published import (
    ROUNDING,
    Leaderboard,
    load_leaderboard,
    load_names,
    match_model,
)
from gpassk_oc.core.uncertainty.interval_kinds import SHOWN
from gpassk_oc.core.uncertainty.metric_intervals import Estimate
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.numbers import pct
from gpassk_oc.report.data.report_model import Report, sorted_rows
from gpassk_oc.report.data.report_parts import Entry, PublishedCell, PublishedView
from gpassk_oc.report.data.tables import MARKS

__all__ = [
    "PublishedCell",
    "PublishedView",
    "add_column",
    "build_published",
    "cell_json",
    "cell_text",
    "csv_columns",
    "csv_header",
    "inside",
    "notes_lines",
    "unmatched_json",
]

HEADER = "Published (✓ inside benchmark interval)"


def inside(value: float, low: float | None, high: float | None) -> bool | None:
    """Whether a published percent *value* lies in ``[low, high]`` (percent) up to its
    rounding; None without an interval."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return None
    return low - ROUNDING <= value <= high + ROUNDING


def _benchmark_interval(est: Estimate | None) -> tuple[float | None, float | None, str | None]:
    """The run's benchmark interval in percent (None, None where it prints none) and its
    status: an interval the table prints is compared, an unreliable one (``!``) too, and
    the comparison carries its mark."""
    if est is None:
        return None, None, None
    low, high, status = est.interval("benchmark")
    if status not in SHOWN or not (math.isfinite(low) and math.isfinite(high)):
        return None, None, status
    return 100 * low, 100 * high, status


def _benchmark_of(row: Row, board: Leaderboard) -> str | None:
    """The published LiveMathBench benchmark the row's questions are: same version, the
    same splits (read from the scored questions)."""
    record = row.setting
    version = record.dataset_version if record and record.dataset_version else None
    if version is None:
        parsed = parse_dataset_abbr(row.dataset_abbr)
        version = parsed.version if parsed else None
    splits = {str(key[0]) for key in row.keys}
    for name, lmb in board.benchmarks.items():
        if lmb and str(lmb.get("version")) == str(version) and set(lmb["splits"]) == splits:
            return name
    return None


def _candidates(row: Row) -> list[str | None]:
    record = row.setting
    return [record.model_path if record else None, row.base_model, row.label]


def build_published(
    report: Report,
    board: Leaderboard | None = None,
    names: dict[str, list[str]] | None = None,
) -> PublishedView:
    """The published values beside every overall row of *report* that matches one."""
    board = load_leaderboard() if board is None else board
    names = load_names() if names is None else names
    view = PublishedView(board.source_line(), list(board.columns), {})
    for row in report.rows:
        cell = report.cells.get((row.label, row.dataset_abbr, "overall"))
        model = match_model(_candidates(row), names)
        benchmark = _benchmark_of(row, board)
        published = board.row(benchmark, model) if model and benchmark else None
        if cell is None or published is None:
            if model:
                why = (
                    f"published as {model}, but its questions are not one published "
                    "benchmark (version and splits)"
                )
                view.why_unmatched[(row.label, row.dataset_abbr)] = why
                view.unmatched.append(f"{row.label} ({row.dataset_abbr}): {why}")
            continue
        entries = []
        for column, value in published.values.items():
            est = cell.greedy if column == "Greedy" else cell.metrics.get(column)
            low, high, status = _benchmark_interval(est)
            entries.append(Entry(column, value, low, high, inside(value, low, high), status))
        flags = list(published.notes) + board.flags.get((benchmark, model), [])  # type: ignore[arg-type]
        view.cells[(row.label, row.dataset_abbr)] = PublishedCell(model, benchmark, entries, flags)  # type: ignore[arg-type]
    return view


_MARK = {True: "✓", False: "✗", None: "?"}


def _entry_text(e: Entry) -> str:
    """``79.1✗``; ``79.1✗!`` when the interval compared with is marked ``!`` (unreliable)
    in the table beside it."""
    shown = e.inside is not None and e.status is not None
    return f"{e.published:.1f}{_MARK[e.inside]}{MARKS.get(e.status, '') if shown else ''}"  # type: ignore[arg-type]


def cell_text(cell: PublishedCell | None) -> str:
    """``81.1✓ 83.6✓ 79.1✗ 69.5✓ 77.6✓`` in the table's column order (✓ inside the run's
    benchmark interval, ✗ outside, ? no interval; ``!`` after the mark: that interval is
    unreliable), ``⚑`` when the row is flagged."""
    if cell is None:
        return "—"
    text = " ".join(_entry_text(e) for e in cell.entries)
    return text + (" ⚑" if cell.flags else "")


def add_column(
    report: Report,
    dataset_abbr: str,
    subset: str,
    descending: bool,
    table: tuple[list[str], list[list[str]]],
) -> tuple[list[str], list[list[str]]]:
    """*table* (one of :func:`gpassk_oc.report.data.tables.table_rows`) with the published
    column appended on the overall table; other tables are returned unchanged."""
    view: PublishedView | None = getattr(report, "published", None)
    header, body = table
    if view is None or subset != "overall" or not body:
        return table
    rows = sorted_rows(report, dataset_abbr, subset, descending)
    cells = [cell_text(view.cells.get((row.label, dataset_abbr))) for row in rows]
    return header + [HEADER], [line + [c] for line, c in zip(body, cells)]


def notes_lines(report: Report) -> list[str]:
    """Where the published values come from, the legend and every flag (markdown lines)."""
    view: PublishedView | None = getattr(report, "published", None)
    if view is None:
        return []
    out = [
        f"Published values: {view.source}. Columns in table order (Greedy, G-Pass@16 at "
        "τ = 0.5, 0.75, 1.0, mG-Pass@16); ✓ inside the run's benchmark interval, ✗ outside, "
        "? no interval to compare with; ! after ✓ or ✗: the interval compared with is "
        "marked ! in the table (unreliable: too few questions for that metric's "
        "bootstrap), so the comparison is too; ⚑ the published row cannot all be right."
    ]
    if not view.cells:
        out.append("No row matches a published model and benchmark (see docs/published.md).")
    for (label, dataset), cell in view.cells.items():
        out += [f"{label} ({dataset}, published {cell.model}): ⚑ {f}" for f in cell.flags]
    out += view.unmatched
    return out


def csv_columns(report: Report, row: Row, subset: str) -> list[Any]:
    """CSV values of :func:`csv_header`'s columns for one line ('' off the overall lines)."""
    view: PublishedView | None = getattr(report, "published", None)
    cell = view.cells.get((row.label, row.dataset_abbr)) if view else None
    if view is None:
        return []
    if cell is None or subset != "overall":
        return [""] * (2 + 3 * len(view.columns))
    values: list[Any] = [cell.model, "; ".join(cell.flags)]
    for e in cell.entries:
        values += [e.published, "" if e.inside is None else int(e.inside), e.status or ""]
    return values


def csv_header(report: Report) -> list[str]:
    """The CSV columns :func:`csv_columns` fills (none without ``--published``)."""
    view: PublishedView | None = getattr(report, "published", None)
    if view is None:
        return []
    out = ["published_model", "published_flags"]
    for c in view.columns:
        # the status: 'unreliable' is the ! of the markdown cell
        out += [f"published {c}", f"published {c} inside", f"published {c} benchmark_status"]
    return out


def unmatched_json(report: Report, row: Row) -> dict[str, Any]:
    """``{"published_unmatched": why}`` for a row whose model is published but whose
    questions are no published benchmark (the markdown's *Published numbers* line); {}
    otherwise."""
    view: PublishedView | None = getattr(report, "published", None)
    why = view.why_unmatched.get((row.label, row.dataset_abbr)) if view else None
    return {"published_unmatched": why} if why else {}


def cell_json(report: Report, row: Row) -> dict[str, Any] | None:
    """The JSON report's ``published`` object of one row (None: no published row)."""
    view: PublishedView | None = getattr(report, "published", None)
    cell = view.cells.get((row.label, row.dataset_abbr)) if view else None
    if cell is None:
        return None
    return {
        "model": cell.model,
        "benchmark": cell.benchmark,
        "source": view.source if view else "",
        "values": {
            e.column: {
                "value": e.published,
                # 4 decimals, as every JSON number (the row's own benchmark bounds)
                "benchmark_low": None if e.low is None else pct(e.low / 100),
                "benchmark_high": None if e.high is None else pct(e.high / 100),
                "inside": e.inside,
                # the row's benchmark interval status: 'unreliable' is the cell's "!"
                "benchmark_status": e.status,
            }
            for e in cell.entries
        },
        "flags": cell.flags,
    }
