"""Reading a filled-in audit sheet (:mod:`gpassk_oc.report.commands.audit_command`) into per-source audit counts, and a
class sheet (``audit --by class``, :mod:`.audit_classes`) into per-source class audits.

A line with an empty ``label`` was not audited. ``yes``/``1`` means the reply is truly
correct, ``no``/``0`` truly wrong (any case). The verdict and source of each line are
taken from the results files, not from the sheet, so an edited ``verdict`` cell cannot
skew the rates. Every failure is one line naming the sheet and the field: an unreadable
file, missing columns, a label that is not yes/no/1/0, a sample id that none of the
report's runs has, and a source with fewer than :data:`~gpassk_oc.core.uncertainty.verdict_rates.
MIN_AUDITED` audited verdicts (too few to correct with).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from gpassk_oc.core.uncertainty.corrected_majority import ClassAudit
from gpassk_oc.core.uncertainty.verdict_rates import MIN_AUDITED, SourceAudit
from gpassk_oc.report.auditing.audit_classes import collect_classes
from gpassk_oc.report.auditing.audit_verdicts import Verdict, collect_verdicts
from gpassk_oc.report.data.collect import Run

__all__ = ["AuditError", "audits_of", "class_audits_of", "read_labels"]

_YES, _NO = ("yes", "1"), ("no", "0")


class AuditError(ValueError):
    """A sheet that cannot be used; the message is one line naming sheet and field."""


def read_labels(path: Path, id_column: str = "sample_id", flag: str = "--audit") -> dict[str, bool]:
    """{id: truly correct} for the labelled lines of the sheet at *path* (*id_column*:
    ``sample_id``, or ``class_id`` for a class sheet; *flag* names the option in errors)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(
            f"{flag} {path}: cannot be read ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    reader = csv.DictReader(
        line for line in text.splitlines() if not line.startswith("# gpassk-oc")
    )
    missing = {id_column, "label"} - set(reader.fieldnames or ())
    if missing:
        by = " --by class" if id_column == "class_id" else ""
        raise AuditError(
            f"{flag} {path}: no {' or '.join(sorted(missing))} column (an audit sheet of "
            f"`gpassk-oc audit{by}`)"
        )
    out: dict[str, bool] = {}
    for line_no, line in enumerate(reader, start=2):
        label = (line.get("label") or "").strip().lower()
        if not label:
            continue
        if label not in _YES + _NO:
            raise AuditError(
                f"{flag} {path}: line {line_no}: label {line['label']!r} is not yes, no, 1 or 0"
            )
        out[(line.get(id_column) or "").strip()] = label in _YES
    return out


def audits_of(runs: Sequence[Run], labels: dict[str, bool], path: Path) -> list[SourceAudit]:
    """Per source: its verdict counts over *runs* and its audit counts from *labels*."""
    verdicts = collect_verdicts(list(runs))
    by_id: dict[str, Verdict] = {v.sample_id: v for v in verdicts}
    unknown = [sid for sid in labels if sid not in by_id]
    if unknown:
        raise AuditError(
            f"--audit {path}: sample_id {unknown[0]!r} is not a sample of the runs reported"
            + (f" (+{len(unknown) - 1} more)" if len(unknown) > 1 else "")
        )
    totals: dict[str, list[int]] = {}
    for v in verdicts:
        totals.setdefault(v.source, [0] * 6)[0 if v.correct else 1] += 1
    for sid, truly in labels.items():
        v = by_id[sid]
        counts = totals[v.source]
        if v.correct:
            counts[2] += 1
            counts[3] += not truly
        else:
            counts[4] += 1
            counts[5] += truly
    out = []
    for source, c in sorted(totals.items()):
        if c[2] + c[4] == 0:
            continue  # not audited: its verdicts are taken as they are
        if c[2] + c[4] < MIN_AUDITED:
            raise AuditError(
                f"--audit {path}: source {source!r} has only {c[2] + c[4]} audited verdicts; "
                f"need at least {MIN_AUDITED} to correct its verdicts (audit more, or "
                "clear its labels)"
            )
        out.append(SourceAudit(source, *c))
    return out


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
