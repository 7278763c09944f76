"""What the verdict-error corrections need from the runs' whole results files, read once
per run and in the report's worker processes.

The tables read only each file's summary; a correction needs the samples themselves: per
question, how many samples each channel (a source with rates; channel 0: sources without)
holds and how many of them were graded correct, and, for maj@k, the vote classes. A
240-run grid's files are ~1.7 MB each: reading each twice in one process (once per
correction) cost more than the tables. Here each row's files are read in one task,
reduced to those small tables and dropped, so memory stays one file per worker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpassk_oc.core.runs.results_file import read_results
from gpassk_oc.core.uncertainty.verdict_channel import Question
from gpassk_oc.core.uncertainty.verdict_rates import ALL_SOURCES
from gpassk_oc.report.auditing.audit_classes import SourcedClasses, sourced_classes
from gpassk_oc.report.data.collect import Row, question_key
from gpassk_oc.worker_pool import Mapper, in_process

__all__ = ["RowInputs", "channel_questions", "row_inputs"]

#: (the row's results files, its question keys in order, the sources with rates, whether
#: to collect vote classes)
RowTask = tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...], bool]


@dataclass(frozen=True)
class RowInputs:
    """One row's samples as the corrections read them."""

    #: per question of the row (its key order): ``(n_s, c_s)`` for channel 0 and one
    #: channel per source with rates
    questions: list[Question]
    #: per question with votes, in file order: its classes with their sources (None: the
    #: row is not one run with votes, so maj@k is not corrected)
    classes: list[SourcedClasses] | None


def _task(row: Row, sources: Sequence[str], classes: bool) -> RowTask:
    with_votes = classes and len(row.runs) == 1 and row.runs[0].summary.has_votes
    return tuple(str(r.path) for r in row.runs), tuple(row.keys), tuple(sources), with_votes


def read_row(task: RowTask) -> RowInputs:
    """A row's :class:`RowInputs`, each of its files read once (runs in a worker)."""
    paths, keys, sources, with_votes = task
    everything = list(sources) == [ALL_SOURCES]
    counts: dict[Any, list[list[int]]] = {
        k: [[0, 0] for _ in range(len(sources) + 1)] for k in keys
    }
    classes: list[SourcedClasses] | None = [] if with_votes else None
    for path in paths:
        for q in read_results(path).questions:
            key = question_key(q.split, q.language, q.index, q.question)
            if key not in counts:
                continue
            srcs = q.source or ["unknown"] * len(q.correct)
            for v, s in zip(q.correct, srcs):
                if v is None:
                    continue
                ch = 1 if everything else (sources.index(s) + 1 if s in sources else 0)
                counts[key][ch][0] += 1
                counts[key][ch][1] += bool(v)
            if classes is not None and (got := sourced_classes(q)) is not None:
                classes.append(got)
    return RowInputs([tuple((n, c) for n, c in counts[k]) for k in keys], classes)


def row_inputs(
    rows: Sequence[Row], sources: Sequence[str], classes: bool, mapper: Mapper = in_process
) -> list[RowInputs]:
    """Every row's :class:`RowInputs` (vote classes where *classes*), through *mapper*
    (e.g. :meth:`gpassk_oc.worker_pool.Workers.map`; default: here, in order)."""
    tasks = [_task(row, sources, classes) for row in rows]
    return mapper(read_row, tasks)


def channel_questions(row: Row, sources: Sequence[str]) -> list[Question]:
    """Per question of *row* (its key order): ``(n_s, c_s)`` for channel 0 (sources
    without rates: exact) and one channel per source of *sources*."""
    return read_row(_task(row, sources, False)).questions
