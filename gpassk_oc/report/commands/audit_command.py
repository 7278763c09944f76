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
correct) or ``no``, then pass the sheet to ``report --audit`` (:mod:`gpassk_oc.report.auditing.audit_sheet`).
The sheet is written as the package writes every file (:mod:`gpassk_oc.ownership`), in
UTF-8 with a byte-order mark, so that Excel shows its Chinese questions as text. A
spreadsheet program parses a CSV's cells (``1/2`` becomes a date, ``=…`` a formula), so
``-o SHEET.xlsx`` writes a workbook whose text cells show exactly what was written
(:mod:`gpassk_oc.report.auditing.audit_workbook`); a CSV holding such cells says so.

The sheet asks only for labels the report uses: a source that gives one verdict only
(rules mode's ``rule_undecided`` is always "wrong") is left out, saying so — its verdicts
say nothing about the truth, so the correction cannot use labels of them.

``--by class`` audits answer classes instead, for maj@k (:mod:`gpassk_oc.report.auditing.audit_classes`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gpassk_oc.argtypes import seed_number
from gpassk_oc.core.uncertainty.verdict_rates import MIN_AUDITED
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused, write_files
from gpassk_oc.report.auditing.audit_sheet import sheet_bytes
from gpassk_oc.report.auditing.audit_verdicts import (
    collect_verdicts,
    correctable_verdicts,
    draw_sample,
    sheet_rows,
)
from gpassk_oc.report.data.collect import Run, find_result_files, load_run


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
        help="the audit sheet to write: a CSV, or an Excel workbook when the name ends in "
        ".xlsx (its text cells show exactly what the model wrote: no 1/2 read as a date)",
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
    verdicts, left_out = correctable_verdicts(verdicts)
    for source, verdict in left_out.items():
        logger.info(
            f"left out of the sheet: source {source!r} (gives only {verdict!r} verdicts: "
            "report --audit cannot correct it from labels; its verdict sensitivity bounds it)"
        )
    if not verdicts:
        return fail(
            f"{args.work_dir}: no source gives both verdicts (correct and wrong); an audit "
            "has nothing to correct"
        )
    sample = draw_sample(verdicts, args.size, args.seed)
    return _write(
        args,
        sheet_rows(sample),
        [(v.source, v.correct) for v in sample],
        len(verdicts),
        "verdicts",
    )


def _run_classes(args: argparse.Namespace, runs: list[Run]) -> int:
    """``--by class``: a stratified sample of the runs' answer classes."""
    from gpassk_oc.report.auditing.audit_classes import (
        class_sheet_rows,
        collect_classes,
        draw_classes,
    )

    classes = collect_classes(runs)
    if not classes:
        return fail(
            f"{args.work_dir}: no answer classes to audit (the results files record no "
            "votes: maj@k's classes; rescore them to add votes)"
        )
    sample = draw_classes(classes, args.size, args.seed)
    strata = [(c.source, c.correct) for c in sample]
    return _write(args, class_sheet_rows(sample), strata, len(classes), "classes")


def _write(
    args: argparse.Namespace,
    rows: list[list[str | int]],
    strata: list[tuple[str, bool]],
    total: int,
    what: str,
) -> int:
    try:
        write_files({args.out: sheet_bytes(args.out, rows)}, args.force, "-o")
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
    _too_few(args, strata, what)
    return 0


def _too_few(args: argparse.Namespace, strata: list[tuple[str, bool]], what: str) -> None:
    """Warn where a source has fewer lines than the report needs labelled to correct with
    it: such a sheet, however fully labelled, is refused when read back."""
    lines: dict[str, int] = {}
    for source, _ in strata:
        lines[source] = lines.get(source, 0) + 1
    flag = "--audit-classes" if what == "classes" else "--audit"
    for source, n in sorted(lines.items()):
        if n < MIN_AUDITED:
            logger.warning(
                f"-o {args.out}: source {source!r} has {n} line{'s' * (n != 1)}; report "
                f"{flag} needs at least {MIN_AUDITED} labels in a source to correct with "
                "it (a larger --size gives more; else leave its lines unlabelled)"
            )
