"""The page's per-sample drill-down, written as files next to the page and loaded on demand.

A grid's samples do not fit in one page (240 runs × 280 questions × 48 samples is 3.2
million), so the page (:mod:`.html`) carries only the leaderboard and each row's
drill-down goes to ``{page stem}_files/row-{id}.js``: one script per row, which calls
``window.gpasskDrill(id, data)``. A ``<script>`` element loads it from ``file://`` too
(``fetch`` is blocked there), only when the row is clicked. The page says so when a file
is missing (opened without its folder, or printed to stdout).

Per question: identity, ``c`` / ``n`` over the pooled runs, and every sample as
``[answer, found code, verdict, decided-by code, run code]`` with the codes' names in
``codes`` (short arrays keep a row's file small). Samples are read from the results files
one row at a time, so memory holds one row's samples, not the grid's.

For the drill-down's audit-sheet export (the columns of :data:`.audit_command.SHEET_COLUMNS`,
sample ids as :attr:`.audit_command.Verdict.sample_id` builds them) each question also carries its
index in the file ``ix`` (``ixr``: {run code: index} for a run whose index differs), its
split × language group ``g`` (absent when the file names none), and the row its
``dataset``; a sample's replica is its position among the question's samples of its run.
The reply's end is not carried (600 characters × every sample would outgrow the files):
the export leaves that column empty.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpassk_oc.core.runs.results_file import ResultsError, read_results
from gpassk_oc.report.collect import Row, subset_name
from gpassk_oc.report.report_model import Report, sorted_rows

__all__ = ["MAX_ANSWER_CHARS", "drill_files", "drill_folder", "page_rows", "row_drill"]

#: answers are cut to this many characters in the drill-down
MAX_ANSWER_CHARS = 300
CALLBACK = "gpasskDrill"


def page_rows(report: Report, descending: bool = False) -> Iterator[tuple[str, Row, str]]:
    """(dataset, row, drill id) of every leaderboard row, in the page's order; the id
    names the row's drill-down file."""
    number = 0
    for dataset_abbr in report.subsets:
        for row in sorted_rows(report, dataset_abbr, descending=descending):
            yield dataset_abbr, row, f"{number:04d}"
            number += 1


def drill_folder(page: Path) -> Path:
    """The folder of a page's drill-down files: ``{stem}_files`` beside it."""
    return page.with_name(f"{page.stem}_files")


class _Codes:
    """Small integer codes for repeated strings (found kinds, sources, run abbrs)."""

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


def row_drill(row: Row) -> dict[str, Any]:
    """One row's drill-down data, read from its runs' results files."""
    codes = {name: _Codes() for name in ("found", "by", "run")}
    seen: dict[str, dict[str, Any]] = {}
    problems = []
    for run in row.runs:
        run_code = codes["run"](run.model_abbr)
        try:
            results = read_results(run.path)
        except ResultsError as exc:  # changed since the report read it
            problems.append(str(exc))
            continue
        for q in results.questions:
            key = _qid(q.question_id, q.split, q.language)
            entry = seen.setdefault(
                key,
                {
                    "id": key,
                    "subset": subset_name((q.split, q.language, q.question_id)),
                    "question": q.question,
                    "gold": q.gold,
                    "ix": q.index,
                    "c": 0,
                    "n": 0,
                    "samples": [],
                },
            )
            if q.group:
                entry["g"] = q.group
            if q.index != entry["ix"]:  # pooled runs that number the question differently
                entry.setdefault("ixr", {})[str(run_code)] = q.index
            entry["c"] += q.c
            entry["n"] += q.n
            size = len(q.correct)
            none: list[str | None] = [None] * size
            found = list(q.found) if q.found else none
            source = list(q.source) if q.source else none
            entry["samples"] += [
                [
                    _answer(q.extracted[i]),
                    codes["found"](found[i]),
                    q.correct[i],
                    codes["by"](source[i]),
                    run_code,
                ]
                for i in range(size)
            ]
    return {
        "label": row.label,
        "dataset": row.dataset_abbr,
        "questions": list(seen.values()),
        "codes": {name: table.names for name, table in codes.items()},
        "problems": problems,
    }


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` or ``<!--`` in strings)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def drill_files(report: Report, page: Path, descending: bool = False) -> dict[Path, bytes]:
    """{path: bytes} of every row's drill-down script for the page at *page*."""
    folder = drill_folder(page)
    out = {}
    for _, row, rid in page_rows(report, descending):
        body = f"window.{CALLBACK}({json.dumps(rid)},{script_json(row_drill(row))});\n"
        out[folder / f"row-{rid}.js"] = body.encode("utf-8")
    return out
