"""Reading a filled-in audit sheet (:mod:`.audit`) into per-source audit counts.

A line with an empty ``label`` was not audited. ``yes``/``1`` means the reply is truly
correct, ``no``/``0`` truly wrong (any case). The verdict and source of each line are
taken from the results files, not from the sheet, so an edited ``verdict`` cell cannot
skew the rates. Every failure is one line naming the sheet and the field: an unreadable
file, missing columns, a label that is not yes/no/1/0, a sample id that none of the
report's runs has, and a source with fewer than :data:`~gpassk_oc.core.uncertainty.rates.
MIN_AUDITED` audited verdicts (too few to correct with).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from gpassk_oc.core.uncertainty.rates import MIN_AUDITED, SourceAudit
from gpassk_oc.report.audit import Verdict, collect_verdicts
from gpassk_oc.report.collect import Run

__all__ = ["AuditError", "audits_of", "read_labels"]

_YES, _NO = ("yes", "1"), ("no", "0")


class AuditError(ValueError):
    """A sheet that cannot be used; the message is one line naming sheet and field."""


def read_labels(path: Path) -> dict[str, bool]:
    """{sample id: truly correct} for the labelled lines of the sheet at *path*."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(
            f"--audit {path}: cannot be read ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    reader = csv.DictReader(
        line for line in text.splitlines() if not line.startswith("# gpassk-oc")
    )
    missing = {"sample_id", "label"} - set(reader.fieldnames or ())
    if missing:
        raise AuditError(
            f"--audit {path}: no {' or '.join(sorted(missing))} column (an audit sheet of `gpassk-oc audit`)"
        )
    out: dict[str, bool] = {}
    for line_no, line in enumerate(reader, start=2):
        label = (line.get("label") or "").strip().lower()
        if not label:
            continue
        if label not in _YES + _NO:
            raise AuditError(
                f"--audit {path}: line {line_no}: label {line['label']!r} is not yes, no, 1 or 0"
            )
        out[(line.get("sample_id") or "").strip()] = label in _YES
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
