"""Reading a filled-in audit sheet (:mod:`gpassk_oc.report.commands.audit_command`) into per-source audit counts, and a
class sheet (``audit --by class``, :mod:`.audit_classes`) into per-source class audits.

A line with an empty ``label`` was not audited. ``yes``/``1`` means the reply is truly
correct, ``no``/``0`` truly wrong (any case). The verdict and source of each line are
taken from the results files, not from the sheet, so an edited ``verdict`` cell cannot
skew the rates. Every failure is one line naming the sheet and the field: an unreadable
file, missing columns, a label that is not yes/no/1/0, a sample id that none of the
report's runs has, and a source with fewer than :data:`~gpassk_oc.core.uncertainty.verdict_rates.
MIN_AUDITED` audited verdicts (too few to correct with). Labels the correction cannot use
(of a source that gives one verdict only) and a source labelled on one verdict side only
are warnings: the report still runs.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

from gpassk_oc.core.uncertainty.corrected_majority import ClassAudit
from gpassk_oc.core.uncertainty.verdict_rates import MIN_AUDITED, SourceAudit
from gpassk_oc.log import logger
from gpassk_oc.report.auditing.audit_classes import collect_classes
from gpassk_oc.report.auditing.audit_verdicts import tally_verdicts
from gpassk_oc.report.auditing.audit_workbook import reinterpreted, workbook_bytes, workbook_rows
from gpassk_oc.report.data.collect import Run
from gpassk_oc.worker_pool import Mapper, in_process

__all__ = ["AuditError", "audits_of", "class_audits_of", "read_labels", "sheet_bytes"]

_YES, _NO = ("yes", "1"), ("no", "0")
_SEPARATORS = (",", ";", "\t")
_STAMP = "# gpassk-oc"  # a line the package may add, never a sheet line
_ZIP = b"PK\x03\x04"


class AuditError(ValueError):
    """A sheet that cannot be used; the message is one line naming sheet and field."""


def sheet_bytes(out: Path, rows: list[list[str | int]]) -> bytes:
    """A workbook for a name ending in .xlsx; else the CSV, in UTF-8 with a byte-order
    mark (Excel then reads the questions' Chinese text), saying which of its cells a
    spreadsheet would show as another value."""
    if out.suffix.lower() == ".xlsx":
        return workbook_bytes(rows)
    parsed = [
        (line, rows[0][col], cell)
        for line, row in enumerate(rows[1:], start=2)
        for col, cell in enumerate(row)
        if isinstance(cell, str) and reinterpreted(cell)
    ]
    if parsed:
        line, column, cell = parsed[0]
        logger.warning(
            f"-o {out}: {len(parsed)} cells (e.g. {column} {cell!r} on line {line}) may show "
            "in a spreadsheet as a number, date or formula result, not as written; to label "
            f"in Excel or LibreOffice, write the sheet with -o {out.with_suffix('.xlsx')}"
        )
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode("utf-8-sig")


def read_labels(path: Path, id_column: str = "sample_id", flag: str = "--audit") -> dict[str, bool]:
    """{id: truly correct} for the labelled lines of the sheet at *path* (*id_column*:
    ``sample_id``, or ``class_id`` for a class sheet; *flag* names the option in errors).
    The sheet may come back from a spreadsheet: a byte-order mark is skipped, a
    semicolon- or tab-separated save is read by its separator, and an .xlsx workbook
    (``audit -o SHEET.xlsx``, saved by Excel or LibreOffice) by its first worksheet."""
    fieldnames, lines = _sheet_lines(path, flag, {id_column, "label"})
    missing = {id_column, "label"} - set(fieldnames)
    if missing:
        by = " --by class" if id_column == "class_id" else ""
        raise AuditError(
            f"{flag} {path}: no {' or '.join(sorted(missing))} column (an audit sheet of "
            f"`gpassk-oc audit{by}`, separated by commas, semicolons or tabs)"
        )
    out: dict[str, bool] = {}
    first: dict[str, int] = {}  # the line each id was first labelled on
    for line_no, line in enumerate(lines, start=2):
        label = (line.get("label") or "").strip().lower()
        if not label:
            continue
        if label not in _YES + _NO:
            raise AuditError(
                f"{flag} {path}: line {line_no}: label {line['label']!r} is not yes, no, 1 or 0"
            )
        key, truly = (line.get(id_column) or "").strip(), label in _YES
        if key in out and out[key] != truly:  # two sheets pasted together, say
            raise AuditError(
                f"{flag} {path}: line {line_no}: {id_column} {key!r} is labelled "
                f"{line['label'].strip()!r} here and the other way on line {first[key]}; "
                "keep one label per " + ("class" if id_column == "class_id" else "sample")
            )
        out[key] = truly
        first.setdefault(key, line_no)
    return out


def _sheet_lines(
    path: Path, flag: str, needed: set[str]
) -> tuple[list[str], Iterable[dict[str, str]]]:
    """The sheet's column names and its (non-empty) lines as dicts by column: a
    workbook's first worksheet, or CSV text."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AuditError(f"{flag} {path}: cannot be read ({exc.strerror or exc})") from None
    if data.startswith(_ZIP):  # an .xlsx (a zip), whatever its name
        try:
            rows = workbook_rows(data)
        except ValueError as exc:
            raise AuditError(f"{flag} {path}: {exc}") from None
        header = rows[0] if rows else []
        return header, (dict(zip(header, row)) for row in rows[1:] if any(row))
    # lines end at "\n" alone (the decode made every CRLF and CR one): str.splitlines()
    # would also cut at a form feed, NEL or U+2028 in a cell, and lose that line's label
    text = _sheet_text(data, path, flag).replace("\r\n", "\n").replace("\r", "\n")
    lines = [line for line in text.split("\n") if not line.startswith(_STAMP)]
    reader = csv.DictReader(lines, delimiter=_separator(lines[0] if lines else "", needed))
    return list(reader.fieldnames or ()), reader


def _sheet_text(data: bytes, path: Path, flag: str) -> str:
    """The sheet's text: UTF-8, with or without the byte-order mark Excel's "CSV UTF-8"
    writes (and ``gpassk-oc audit`` writes, so that Excel reads the text right)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AuditError(
            f'{flag} {path}: not UTF-8 text (in Excel, save it as "CSV UTF-8")'
        ) from None


def _separator(header: str, needed: set[str]) -> str:
    """The separator whose split of *header* holds the *needed* columns: a comma, or the
    semicolon (or tab) a spreadsheet saves with in locales whose decimal mark is a comma;
    a comma when none does (the caller then names the missing columns)."""
    for delimiter in _SEPARATORS:
        if needed <= {cell.strip() for cell in next(csv.reader([header], delimiter=delimiter))}:
            return delimiter
    return ","


def audits_of(
    runs: Sequence[Run], labels: dict[str, bool], path: Path, mapper: Mapper = in_process
) -> list[SourceAudit]:
    """Per source: its verdict counts over *runs* and its audit counts from *labels*
    (each run's file read once, through *mapper*: the report's workers' ``map``)."""
    verdicts, by_id = tally_verdicts(runs, labels, mapper)
    unknown = [sid for sid in labels if sid not in by_id]
    if unknown:
        raise AuditError(
            f"--audit {path}: sample_id {unknown[0]!r} is not a sample of the runs reported"
            + (f" (+{len(unknown) - 1} more)" if len(unknown) > 1 else "")
        )
    totals = {source: [*both, 0, 0, 0, 0] for source, both in verdicts.items()}
    for sid, truly in labels.items():
        source, graded_correct = by_id[sid]
        counts = totals[source]
        if graded_correct:
            counts[2] += 1
            counts[3] += not truly
        else:
            counts[4] += 1
            counts[5] += truly
    out = []
    for source, c in sorted(totals.items()):
        if c[2] + c[4] == 0:
            continue  # not audited: its verdicts are taken as they are
        audit = SourceAudit(source, *c)
        if audit.one_verdict:  # left as it is whatever its labels say: say so
            logger.warning(_ignored(path, audit))
            out.append(audit)
            continue
        if c[2] + c[4] < MIN_AUDITED:
            raise AuditError(
                f"--audit {path}: source {source!r} has only {c[2] + c[4]} audited verdicts; "
                f"need at least {MIN_AUDITED} to correct its verdicts (audit more, or "
                "clear its labels)"
            )
        if c[2] == 0 or c[4] == 0:
            logger.warning(_one_side(path, audit))
        out.append(audit)
    return out


def _ignored(path: Path, audit: SourceAudit) -> str:
    """Why the labels of a one-verdict source change nothing."""
    only = "correct" if audit.n_wrong == 0 else "wrong"
    return (
        f"--audit {path}: the {audit.audited} labels of source {audit.source!r} are not "
        f"used: it gives only {only!r} verdicts, which the correction leaves as they are "
        "(the verdict sensitivity bounds them); `gpassk-oc audit` leaves such sources out"
    )


def _one_side(path: Path, audit: SourceAudit) -> str:
    """What a source labelled on one verdict side only cannot tell."""
    side, other, rate = (
        ("correct", "wrong", "fn") if audit.audited_wrong == 0 else ("wrong", "correct", "fp")
    )
    return (
        f"--audit {path}: source {audit.source!r} has labels on its {side!r} verdicts only: "
        f"its {rate} rests on no label (0, with an interval from the prior alone); label "
        f"some of its {other!r} verdicts too"
    )


def class_audits_of(runs: Sequence[Run], path: Path, k: int) -> list[ClassAudit]:
    """Per source: the labelled classes of the sheet at *path*, each with its weight (its
    chance to win a k-sample vote). AuditError (one line) for a bad label, an unknown
    class id, or a source with fewer than :data:`MIN_AUDITED` labels."""
    flag = "--audit-classes"
    labels = read_labels(path, id_column="class_id", flag=flag)
    by_id = {c.class_id: c for c in collect_classes(runs)}
    unknown = [cid for cid in labels if cid not in by_id]
    if unknown:
        raise AuditError(
            f"{flag} {path}: class_id {unknown[0]!r} is not a class of the runs reported"
            + (f" (+{len(unknown) - 1} more)" if len(unknown) > 1 else "")
        )
    per_source: dict[str, tuple[list[tuple[float, bool]], list[tuple[float, bool]]]] = {}
    for cid, is_gold in labels.items():
        c = by_id[cid]
        graded_correct, graded_wrong = per_source.setdefault(c.source, ([], []))
        # mis-graded: graded correct but not the gold, or graded wrong but the gold
        (graded_correct if c.correct else graded_wrong).append((c.win(k), c.correct != is_gold))
    out = []
    for source, (right, wrong) in sorted(per_source.items()):
        if len(right) + len(wrong) < MIN_AUDITED:
            raise AuditError(
                f"{flag} {path}: source {source!r} has only {len(right) + len(wrong)} "
                f"audited classes; need at least {MIN_AUDITED} to correct maj@k with its "
                "class rates (audit more, or clear its labels)"
            )
        out.append(ClassAudit(source, tuple(right), tuple(wrong)))
    return out
