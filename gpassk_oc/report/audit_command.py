"""``gpassk-oc audit``: a stratified random sample of verdicts, written as an audit sheet.

Every judged sample of every results file under WORK_DIR is a verdict with a source (who
settled it: ``rule``, ``judge``, ``cache``, ``no_answer``, …; see
:class:`gpassk_oc.core.vocabulary.Source`) and a verdict (correct or wrong). The sample is
stratified by (source, verdict): ``--size`` is split evenly over the strata, a stratum
smaller than its share gives all it has, and the rest goes to the others — so rare strata
(the judge's "wrong" verdicts, say) are audited enough to estimate their error rate.

The sheet is a CSV, one line per sampled verdict: ``sample_id`` (``model/dataset/index/
replica``, with the split × language group before the index when the file names one),
the question, the gold answer, the extracted answer, the reply's last part
(from ``predictions/``; empty when the predictions are not there), ``source``,
``verdict`` and an empty ``label`` column. Fill ``label`` with ``yes`` (the reply is truly
correct) or ``no``, then pass the sheet to ``report --audit`` (:mod:`.audit_sheet`).
The sheet is written as the package writes every file (:mod:`gpassk_oc.ownership`).

``--by class`` audits answer classes instead, for maj@k (:mod:`.audit_classes`).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from gpassk_oc.argtypes import seed_number
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused, write_files
from gpassk_oc.report.audit_strata import allocate, draw_stratified
from gpassk_oc.report.collect import Run, find_result_files, load_run, run_results
from gpassk_oc.workdir import PREDICTIONS_DIR

__all__ = ["SHEET_COLUMNS", "Verdict", "allocate", "collect_verdicts", "draw_sample"]

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
        where = f"{self.group}/" if self.group else ""  # indices may restart per group
        return f"{self.run.model_abbr}/{self.run.dataset_abbr}/{where}{self.index}/{self.replica}"


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


def render_sheet(sample: list[Verdict]) -> str:
    """The audit sheet as CSV text."""
    fields = _sheet_fields(sample)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    for i, v in enumerate(sample):
        question, gold, extracted, reply_end = fields[i]
        writer.writerow(
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
    return buf.getvalue()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("work_dir", metavar="WORK_DIR", help="OpenCompass work dir (or results)")
    parser.add_argument("--size", type=int, required=True, help="verdicts to sample")
    parser.add_argument("--seed", type=seed_number, default=0, help="sampling seed (default 0)")
    parser.add_argument(
        "--by",
        choices=("sample", "class"),
        default="sample",
        help="what one line audits: a sample's verdict (default; report --audit), or an "
        "answer class of a question (report --audit-classes: corrects maj@k)",
    )
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        required=True,
        metavar="SHEET.csv",
        help="the audit sheet to write",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite the sheet even if gpassk-oc did not write it",
    )


def run(args: argparse.Namespace) -> int:
    if args.size < 1:
        return fail(f"--size {args.size}: need at least 1 verdict to sample")
    if args.out.is_dir():
        return fail(f"-o {args.out}: is a folder; need a file name")
    files, notes = find_result_files([args.work_dir])
    runs = [r for r in (load_run(p)[0] for p in files) if r is not None]
    if args.by == "class":
        return _run_classes(args, runs)
    verdicts = collect_verdicts(runs)
    if not verdicts:
        why = f": {notes[0]}" if notes else ""
        return fail(f"{args.work_dir}: no judged verdicts to audit{why}")
    sample = draw_sample(verdicts, args.size, args.seed)
    return _write(
        args,
        render_sheet(sample),
        [(v.source, v.correct) for v in sample],
        len(verdicts),
        "verdicts",
    )


def _run_classes(args: argparse.Namespace, runs: list[Run]) -> int:
    """``--by class``: a stratified sample of the runs' answer classes."""
    from gpassk_oc.report.audit_classes import collect_classes, draw_classes, render_class_sheet

    classes = collect_classes(runs)
    if not classes:
        return fail(
            f"{args.work_dir}: no answer classes to audit (the results files record no "
            "votes: maj@k's classes; rescore them to add votes)"
        )
    sample = draw_classes(classes, args.size, args.seed)
    strata = [(c.source, c.correct) for c in sample]
    return _write(args, render_class_sheet(sample), strata, len(classes), "classes")


def _write(
    args: argparse.Namespace, text: str, strata: list[tuple[str, bool]], total: int, what: str
) -> int:
    try:
        write_files({args.out: text.encode("utf-8")}, args.force, "-o")
    except Refused as exc:
        return fail(exc.lines[-1])
    except OSError as exc:
        return fail(f"-o {args.out}: {exc.strerror or exc}")
    counts: dict[tuple[str, str], int] = {}
    for source, correct in strata:
        key = (source, "correct" if correct else "wrong")
        counts[key] = counts.get(key, 0) + 1
    shown = ", ".join(f"{s} {w}: {n}" for (s, w), n in sorted(counts.items()))
    logger.info(f"wrote {args.out}: {len(strata)} of {total} {what} ({shown})")
    return 0
