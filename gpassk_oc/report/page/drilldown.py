"""The page's per-sample drill-down, written as files next to the page and loaded on demand.

A grid's samples do not fit in one page (240 runs × 280 questions × 48 samples is 3.2
million), so the page (:mod:`.html`) carries only the leaderboard and each row's
drill-down goes to ``{page stem}_files/row-{id}.js``: one script per row, which calls
``window.gpasskDrill(id, data)``. A ``<script>`` element loads it from ``file://`` too
(``fetch`` is blocked there), only when the row is clicked. The page says so when a file
is missing (opened without its folder, or printed to stdout).

Per question: identity, ``c`` / ``n`` over the pooled runs, and per run its samples as
columns ``[run code, [answers], [found codes], [verdicts], [decided-by codes]]`` (then
``[finish reasons], [output tokens]`` where its file records them); ``runs`` lists each
run's ``model``, the names of its ``found`` and ``by`` codes and, where it has token
counts, its output-token statistics ``tokens`` (:mod:`gpassk_oc.core.runs.token_stats`). The columns
are each run's ready JSON text (:mod:`gpassk_oc.core.runs.drill_fragment`, made when the
results file was read in full and kept in a sidecar beside it), so writing a row joins
texts and touches no sample: a grid's 3.2 million samples cost no Python work per sample.

For the drill-down's audit-sheet export (the columns of :data:`~gpassk_oc.report.auditing.audit_verdicts.SHEET_COLUMNS`,
sample ids as :attr:`~gpassk_oc.report.auditing.audit_verdicts.Verdict.sample_id` builds them) each question also carries its
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

from gpassk_oc.core.runs.drill_fragment import (
    MAX_ANSWER_CHARS,
    DrillFragment,
    fragment_of_file,
    read_drill,
    script_safe,
)
from gpassk_oc.core.runs.results_file import ResultsError
from gpassk_oc.report.data.collect import Row, Run
from gpassk_oc.report.data.report_model import Report, sorted_rows

__all__ = [
    "MAX_ANSWER_CHARS",
    "drill_files",
    "drill_folder",
    "page_rows",
    "row_drill",
    "row_script",
    "run_fragment",
]

CALLBACK = "gpasskDrill"

try:
    import orjson

    def _dumps(data: Any) -> bytes:
        return orjson.dumps(data)

except ImportError:  # pragma: no cover - orjson is a dependency; stdlib works too

    def _dumps(data: Any) -> bytes:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def page_rows(report: Report, descending: bool = True) -> Iterator[tuple[str, Row, str]]:
    """(dataset, row, drill id) of every leaderboard row, in the page's order; the id
    names the row's drill-down file."""
    number = 0
    for dataset_abbr in report.subsets:
        for row in sorted_rows(report, dataset_abbr, best_first=descending):
            yield dataset_abbr, row, f"{number:04d}"
            number += 1


def drill_folder(page: Path) -> Path:
    """The folder of a page's drill-down files: ``{stem}_files`` beside it."""
    return page.with_name(f"{page.stem}_files")


def run_fragment(run: Run) -> DrillFragment:
    """The run's drill-down share: made by the summary's read of the whole file, else from
    its sidecar when that was made from the file the report read, else read from the file
    now (kept on the summary; :func:`~gpassk_oc.report.data.collect.keep_summaries` saves it).
    :class:`~gpassk_oc.core.runs.results_file.ResultsError` when the file cannot be read."""
    summary = run.summary
    if summary.drill is None:
        summary.drill = read_drill(run.path, summary.source) or fragment_of_file(run.path)
    return summary.drill


def _questions(row: Row) -> tuple[list[dict[str, Any]], list[bytes], list[str]]:
    """(runs, one JSON text per question, problems) of the row's runs pooled."""
    runs: list[dict[str, Any]] = []
    heads: dict[str, dict[str, Any]] = {}
    parts: dict[str, list[bytes]] = {}
    problems = []
    for code, run in enumerate(row.runs):
        try:
            fragment = run_fragment(run)
        except ResultsError as exc:  # changed since the report read it
            problems.append(str(exc))
            runs.append({"model": run.model_abbr, "found": [], "by": []})
            continue
        runs.append({"model": run.model_abbr, "found": fragment.found, "by": fragment.by})
        if run.summary.tokens is not None:
            runs[-1]["tokens"] = run.summary.tokens
        for q in fragment.questions:
            head = heads.get(q.key)
            if head is None:
                head = heads[q.key] = {
                    "id": q.key,
                    "subset": q.group,
                    "question": q.question,
                    "gold": q.gold,
                    "ix": q.index,
                    "c": 0,
                    "n": 0,
                }
                if q.group:
                    head["g"] = q.group
                parts[q.key] = []
            if q.index != head["ix"]:  # pooled runs that number the question differently
                head.setdefault("ixr", {})[str(code)] = q.index
            head["c"] += q.c
            head["n"] += q.n
            parts[q.key].append(b"[%d,%s" % (code, q.samples[1:]))
    texts = [
        script_safe(_dumps(head))[:-1] + b',"runs":[' + b",".join(parts[key]) + b"]}"
        for key, head in heads.items()
    ]
    return runs, texts, problems


def row_script(row: Row, rid: str) -> bytes:
    """One row's drill-down script: ``window.gpasskDrill(id, data);``."""
    runs, texts, problems = _questions(row)
    meta = script_safe(
        _dumps(
            {"label": row.label, "dataset": row.dataset_abbr, "problems": problems, "runs": runs}
        )
    )
    return b"".join(
        [
            f"window.{CALLBACK}({json.dumps(rid)},".encode(),
            meta[:-1],
            b',"questions":[',
            b",".join(texts),
            b"]});\n",
        ]
    )


def row_drill(row: Row) -> dict[str, Any]:
    """One row's drill-down data as the page reads it (see the module docstring)."""
    text = row_script(row, "0").decode("utf-8")
    return dict(json.loads(text[text.index(",") + 1 : -len(");\n")]))


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` or ``<!--`` in strings)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def drill_files(report: Report, page: Path, descending: bool = True) -> dict[Path, bytes]:
    """{path: bytes} of every row's drill-down script for the page at *page*."""
    folder = drill_folder(page)
    return {
        folder / f"row-{rid}.js": row_script(row, rid)
        for _, row, rid in page_rows(report, descending)
    }
