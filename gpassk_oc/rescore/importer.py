"""The importer interface: what ``rescore`` needs from another tool's files.

An importer is one module under :mod:`gpassk_oc.rescore.importers` that sets
``IMPORTER = Importer(...)`` and is named once in that package's registry. It

* (a) **recognises** its tool's files in a folder (``recognise(folder)``: the files, empty
  when the folder holds none of them);
* (b) **finds runs** (``find_runs(folder)``: jobs — small picklable values, e.g. a path —
  and notes about what it skipped), and re-scores each (``rescore_run(job, data, opts)``:
  this package's results file and the sidecar comparing the tool's own numbers);
* (c) reports the tool's own numbers in that sidecar, with the reasons they differ that it
  can name.

Most importers read a run into a :class:`ForeignRun` — per question the text, gold,
split/language where known and the replies in replica order; the run's settings, tool and
version; the tool's own numbers — and let :func:`gpassk_oc.rescore.foreign.rescore_foreign`
do the rest (:func:`gpassk_oc.rescore.foreign.foreign_importer`). The OpenCompass importer keeps its own richer
comparison (per-sample labels).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpassk_oc.core.runs.reply_facts import ReplyFacts
from gpassk_oc.core.runs.run_record import Sampled
from gpassk_oc.core.runs.score_run import Reply

#: one Reply object per distinct (text, facts) of a run (see :func:`shared_replies`)
ReplyCache = dict[tuple[str, ReplyFacts | None], Reply]

__all__ = ["ForeignQuestion", "ForeignRun", "Importer", "Scored", "shared_replies"]

#: (the results file's JSON, the sidecar's data)
Scored = tuple[dict[str, Any], dict[str, Any]]


@dataclass(frozen=True)
class Importer:
    """One tool's importer (see the module docstring)."""

    name: str
    recognise: Callable[[Path], list[Path]]
    find_runs: Callable[[Path], tuple[list[Any], list[str]]]
    rescore_run: Callable[[Any, Path | None, Any], Scored]


@dataclass
class ForeignQuestion:
    """One question of another tool's run. *where* names its record (``file:line``) for
    error messages; *gold* None is refused by the re-scorer; *replies* may be fewer than
    the run's n (the missing ones are left out of that question's n_q)."""

    question: str
    gold: str | None
    replies: list[Reply]
    where: str
    split: str = ""
    language: str = ""
    question_id: str | None = None
    #: the tool's own verdict per reply (None: it graded none, or not this one)
    labels: list[bool | None] | None = None


@dataclass
class ForeignRun:
    """One run of another tool, as its files say it.

    *run* names the folder the tool wrote the run into (a date or timestamp), *n* the
    replies per question the tool declared (repeats, num_samples); *reported* the tool's
    own numbers under this package's metric names (percent); *reasons* why they differ,
    as the importer can count them (``{"kind": ..., counts}``).
    """

    tool: str
    tool_version: str | None
    model: str
    task: str
    run: str
    n: int
    questions: list[ForeignQuestion]
    files: list[Path]
    ks: tuple[int, ...] | None = None
    temperature: Sampled = None
    top_p: Sampled = None
    max_tokens: int | None = None
    reported: dict[str, float] = field(default_factory=dict)
    reasons: list[dict[str, Any]] = field(default_factory=list)
    #: the tool's own task name, when *task* was renamed after the local data (--data)
    tool_task: str | None = None


def shared_replies(
    replies: Iterable[tuple[str, ReplyFacts | None]],
    made: ReplyCache,
) -> list[Reply]:
    """A :class:`Reply` per (text, the server's facts), one (immutable) object per distinct
    pair kept in *made* across a run's questions: a run's replies repeat many times over,
    and two samples of one text keep their own facts."""
    out = []
    for key in replies:
        reply = made.get(key)
        if reply is None:
            reply = made[key] = Reply(*key)
        out.append(reply)
    return out
