"""The verdicts an audit sheet samples (:mod:`gpassk_oc.report.commands.audit_command`
writes it): every judged sample of a run, the stratified draw by (source, verdict), and
the sheet's CSV text with each sampled reply's end from ``predictions/``. The columns
(:data:`SHEET_COLUMNS`) are also what the page's audit export writes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpassk_oc.core.runs.results_file import read_results
from gpassk_oc.report.auditing.audit_strata import allocate, draw_stratified
from gpassk_oc.report.data.collect import Run, run_results
from gpassk_oc.workdir import PREDICTIONS_DIR
from gpassk_oc.worker_pool import Mapper, in_process

__all__ = [
    "SHEET_COLUMNS",
    "Verdict",
    "allocate",
    "collect_verdicts",
    "tally_verdicts",
    "correctable_verdicts",
    "draw_sample",
    "sheet_rows",
]

SHEET_COLUMNS = (
    "sample_id",
    "model",
    "dataset",
    "question_index",
    "replica",
    "source",
    "verdict",
    "question",
    "gold",
    "extracted",
    "reply_end",
    "label",
)
#: characters of the reply's end shown in the sheet
REPLY_END = 600


@dataclass(frozen=True)
class Verdict:
    """One judged sample (the question's index and split × language group are kept so
    the sample id needs no re-read of the results file)."""

    run: Run
    question: int  # position in the run's results-file questions
    replica: int
    source: str
    correct: bool
    index: int  # the question's index in the file
    group: str  # its split × language group ('' when the file names none)

    @property
    def sample_id(self) -> str:
        where = _question_id(self.group, self.index)
        return f"{self.run.model_abbr}/{self.run.dataset_abbr}/{where}/{self.replica}"


def _question_id(group: str, index: int) -> str:
    """A question's part of a sample id: ``[group/]index`` (indices may restart per
    split × language group)."""
    return f"{group}/{index}" if group else str(index)


def collect_verdicts(runs: list[Run]) -> list[Verdict]:
    """Every judged sample of *runs* (unjudged ones have no verdict to audit); one run's
    samples in memory at a time."""
    out = []
    for run in runs:
        for qi, q in enumerate(run_results(run).questions):
            sources = q.source or ["unknown"] * len(q.correct)
            for r, (v, s) in enumerate(zip(q.correct, sources)):
                if v is not None:
                    out.append(Verdict(run, qi, r, str(s), bool(v), q.index, q.group))
    return out


#: a run's verdicts as ``report --audit`` counts them: per source [graded correct, graded
#: wrong], and per labelled sample id found in the run, (its source, graded correct)
Tally = tuple[dict[str, list[int]], dict[str, tuple[str, bool]]]


def _tally_run(task: tuple[str, str, tuple[str, ...]]) -> Tally:
    """One run's :data:`Tally` (runs in a worker): the results file at *path*, whose
    sample ids start with *prefix*, and the labelled ids' tails after it."""
    path, prefix, tails = task
    questions = read_results(path).questions
    totals: dict[str, list[int]] = {}
    for q in questions:
        sources = q.source or ["unknown"] * len(q.correct)
        for v, s in zip(q.correct, sources):
            if v is not None:
                totals.setdefault(str(s), [0, 0])[0 if v else 1] += 1
    by_tail = {}
    if tails:  # a sample id's tail: "[group/]index/replica" (as Verdict.sample_id)
        by_tail = {_question_id(q.group, q.index): q for q in questions}
    found = {}
    for tail in tails:
        where, _, replica = tail.rpartition("/")
        hit = by_tail.get(where)
        if hit is None or not replica.isdigit() or int(replica) >= len(hit.correct):
            continue
        verdict = hit.correct[int(replica)]
        if verdict is not None:
            source = hit.source[int(replica)] if hit.source else "unknown"
            found[prefix + tail] = (str(source), bool(verdict))
    return totals, found


def tally_verdicts(
    runs: Sequence[Run], labelled: Iterable[str], mapper: Mapper = in_process
) -> Tally:
    """Every judged sample of *runs* counted per (source, verdict), and the (source,
    verdict) of each *labelled* sample id that is one of them: what
    :func:`collect_verdicts` would give, without an object per sample. Each run's file is
    read once, through *mapper* (the report's workers' ``map``; default: here)."""
    prefixes = [f"{run.model_abbr}/{run.dataset_abbr}/" for run in runs]
    tails: list[list[str]] = [[] for _ in runs]
    # a sample id two runs share (the same abbrs in two work dirs) is the later run's, as
    # in :func:`collect_verdicts`' lookup
    last = {prefix: i for i, prefix in enumerate(prefixes)}
    for sid in labelled:
        head = sid.split("/", 2)
        at = last.get(f"{head[0]}/{head[1]}/") if len(head) == 3 else None
        if at is not None:
            tails[at].append(head[2])
    tasks = [(str(run.path), pre, tuple(t)) for run, pre, t in zip(runs, prefixes, tails)]
    done = mapper(_tally_run, tasks)
    totals: dict[str, list[int]] = {}
    found: dict[str, tuple[str, bool]] = {}
    for run_totals, run_found in done:
        for source, (right, wrong) in run_totals.items():
            both = totals.setdefault(source, [0, 0])
            both[0] += right
            both[1] += wrong
        found.update(run_found)
    return totals, found


def correctable_verdicts(verdicts: list[Verdict]) -> tuple[list[Verdict], dict[str, str]]:
    """The verdicts of the sources that give both verdicts, and {source: its one verdict}
    for the others: the correction leaves a one-verdict source as it is
    (:attr:`~gpassk_oc.core.uncertainty.verdict_rates.SourceAudit.one_verdict`), so
    labels of its verdicts would be ignored."""
    sides: dict[str, set[bool]] = {}
    for v in verdicts:
        sides.setdefault(v.source, set()).add(v.correct)
    one = {
        s: ("correct" if True in seen else "wrong") for s, seen in sides.items() if len(seen) < 2
    }
    return [v for v in verdicts if v.source not in one], one


def draw_sample(verdicts: list[Verdict], size: int, seed: int) -> list[Verdict]:
    """The stratified sample (see the module docstring), ordered by stratum then id."""
    return draw_stratified(
        verdicts, lambda v: (v.source, v.correct), lambda v: v.sample_id, size, seed
    )


def _replies(run: Run) -> dict[str, str]:
    """The run's predictions by key ("0".."Q·n−1"), shards merged; {} when absent."""
    if len(run.path.parents) < 3:
        return {}
    folder = run.path.parents[2] / PREDICTIONS_DIR / run.model_abbr
    out: dict[str, str] = {}
    for path in [
        folder / f"{run.dataset_abbr}.json",
        *sorted(folder.glob(f"{run.dataset_abbr}_*.json")),
    ]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(value, dict) and isinstance(value.get("prediction"), str):
                    out[key] = value["prediction"]
    return out


def _sheet_fields(sample: list[Verdict]) -> dict[int, tuple[str, str, str, str]]:
    """(question, gold, extracted, reply end) per sampled verdict, by position in *sample*:
    each run's results file and predictions are read once, one run at a time."""
    by_run: dict[int, list[int]] = {}
    for i, v in enumerate(sample):
        by_run.setdefault(id(v.run), []).append(i)
    out: dict[int, tuple[str, str, str, str]] = {}
    for positions in by_run.values():
        run = sample[positions[0]].run
        questions = run_results(run).questions
        replies = _replies(run)
        for i in positions:
            v = sample[i]
            q = questions[v.question]
            # replica r of question q is prediction r·Q + q (OpenCompass's repeated dataset)
            reply = replies.get(str(v.replica * len(questions) + q.index), "")
            extracted = q.extracted[v.replica] if v.replica < len(q.extracted) else None
            out[i] = (q.question or "", q.gold or "", extracted or "", reply[-REPLY_END:])
    return out


def sheet_rows(sample: list[Verdict]) -> list[list[str | int]]:
    """The audit sheet's rows, the header first."""
    fields = _sheet_fields(sample)
    rows: list[list[str | int]] = [list(SHEET_COLUMNS)]
    for i, v in enumerate(sample):
        question, gold, extracted, reply_end = fields[i]
        rows.append(
            [
                v.sample_id,
                v.run.model_abbr,
                v.run.dataset_abbr,
                v.index,
                v.replica,
                v.source,
                "correct" if v.correct else "wrong",
                question,
                gold,
                extracted,
                reply_end,
                "",
            ]
        )
    return rows
