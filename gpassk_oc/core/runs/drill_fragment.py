"""A run's drill-down fragment: its samples as the page's drill-down files carry them (pure core).

The leaderboard page's drill-down (``gpassk_oc.report.page.drilldown``) shows every sample of a
row: 3.2 million at 240 runs × 280 questions × n = 48, too many to touch one by one each
time a page is written. So each results file's share is made once, when the file is read
in full anyway (the summary's cold read, :mod:`.results_summary`), as ready JSON text per
question, and kept in a sidecar ``{dataset}.json.drill`` beside the file; a page then only
joins those texts (one per run × question).

Per question the fragment holds its identity, ``c`` / ``n`` and one JSON text
``[[answers], [found codes], [verdicts], [decided-by codes]]`` (columns, not one array per
sample); the codes index the run's ``found`` and ``by`` name lists. Where the results file
records them (:mod:`.reply_facts`), two more columns follow: each sample's finish reason
and its output tokens (``null`` where unknown). Answers are cut to
:data:`MAX_ANSWER_CHARS`. The text is safe inside a ``<script>`` element (``<``, ``>``,
``&`` escaped).

The sidecar is the JSON header on the first line (schema tag, the results file's size and
SHA-256, the code names, per question its identity and the length of its text), then the
texts back to back. It is valid for the results file whose size and SHA-256 it records
(the caller compares them with the summary's, which the summary's own rule vouches for:
size + mtime, else SHA-256). It is written only where none is or over one this module
wrote (its schema tag), never over another file; it is a cache: the results file stays
the truth.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpassk_oc.core.metrics.question_scorer import count_verdicts
from gpassk_oc.core.runs.results_file import Results, ResultsError

__all__ = [
    "DRILL_SCHEMA",
    "DRILL_SUFFIX",
    "MAX_ANSWER_CHARS",
    "DrillFragment",
    "DrillQuestion",
    "drill_path",
    "fragment_of_file",
    "make_fragment",
    "read_drill",
    "save_drill",
    "script_safe",
]

#: /2: the finish reason and output-token columns (a /1 sidecar lacks them: made again)
DRILL_SCHEMA = "gpassk_oc.drill/2"
DRILL_SUFFIX = ".drill"
#: answers are cut to this many characters in the drill-down
MAX_ANSWER_CHARS = 300

try:  # a C codec: the fragments are most of a grid's drill-down bytes
    import orjson

    def _dumps(data: Any) -> bytes:
        return orjson.dumps(data)

    def _loads(data: bytes) -> Any:
        return orjson.loads(data)

except ImportError:  # pragma: no cover - orjson is a dependency; stdlib works too

    def _dumps(data: Any) -> bytes:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def _loads(data: bytes) -> Any:
        return json.loads(data)


def script_safe(text: bytes) -> bytes:
    """JSON text made safe inside a ``<script>`` element (no ``</script>`` or ``<!--``):
    ``<``, ``>`` and ``&`` occur in JSON only inside strings, where ``\\u`` escapes mean
    the same characters."""
    return text.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")


@dataclass
class DrillQuestion:
    """One question of a run: identity, counts and its samples' JSON text."""

    key: str  # split/language/question_id: how pooled runs find the same question
    group: str  # split × language ('' when the file names neither)
    question: str | None
    gold: str | None
    index: int
    c: int
    n: int
    #: ``[[answers],[found codes],[verdicts],[decided-by codes]]`` (then ``[finish reasons],
    #: [output tokens]`` where recorded), script-safe JSON
    samples: bytes


@dataclass
class DrillFragment:
    """A run's drill-down share: code names and its questions in file order."""

    found: list[str | None]
    by: list[str | None]
    questions: list[DrillQuestion]
    #: (size, SHA-256) of the results file it was made from (None: unknown, not saved)
    source: tuple[int, str] | None = None
    #: read from its sidecar (so not saved again)
    from_sidecar: bool = field(default=False, compare=False)


def _cut(text: str) -> str:
    return text[:MAX_ANSWER_CHARS] + f"… ({len(text) - MAX_ANSWER_CHARS} more characters)"


def _codes(table: dict[str | None, int], names: list[str] | None, size: int) -> list[int]:
    """*names* (None: *size* unknowns) as codes into *table*, which grows as needed."""
    if not names:
        return [table.setdefault(None, len(table))] * size
    try:  # after a run's first questions every name is known: one pass in C
        return list(map(table.__getitem__, names))
    except KeyError:
        pass
    for name in dict.fromkeys(names):
        table.setdefault(name, len(table))
    return list(map(table.__getitem__, names))


def make_fragment(results: Results, source: tuple[int, str] | None = None) -> DrillFragment:
    """The fragment of a read results file (*source*: its size and SHA-256)."""
    found: dict[str | None, int] = {}
    by: dict[str | None, int] = {}
    questions = []
    for q in results.questions:
        size = len(q.correct)
        answers = q.extracted
        # most replies' answers are short: one pass in C says none needs cutting
        if sum(map(len, filter(None, answers))) > MAX_ANSWER_CHARS:
            answers = [a if a is None or len(a) <= MAX_ANSWER_CHARS else _cut(a) for a in answers]
        columns = [answers, _codes(found, q.found, size), q.correct, _codes(by, q.source, size)]
        if q.finish_reason is not None or q.output_tokens is not None:
            columns += [q.finish_reason or [None] * size, q.output_tokens or [None] * size]
        text = script_safe(_dumps(columns))
        # an exact-size copy: orjson's bytes keep its ~8 KB buffer, ten times a question's
        # text, and a grid's first html report holds every run's fragments until it succeeds
        text = bytes(memoryview(text))
        key = "/".join(part for part in (q.split, q.language, q.question_id) if part)
        c, n, _ = count_verdicts(q.correct)
        questions.append(DrillQuestion(key, q.group, q.question, q.gold, q.index, c, n, text))
    return DrillFragment(list(found), list(by), questions, source)


def fragment_of_file(path: Path | str) -> DrillFragment:
    """Read the results file at *path* in full and make its fragment
    (:class:`~.results_file.ResultsError` naming the file when it cannot be read)."""
    path = Path(path)
    try:
        data = path.read_bytes()
        parsed = _loads(data)
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: unreadable results file ({exc})") from None
    results = Results.from_json(parsed, str(path))
    return make_fragment(results, (len(data), hashlib.sha256(data).hexdigest()))


def drill_path(results_path: Path | str) -> Path:
    """The sidecar of a results file: ``{dataset}.json.drill`` beside it."""
    path = Path(results_path)
    return path.with_name(path.name + DRILL_SUFFIX)


def read_drill(path: Path | str, source: tuple[int, str] | None) -> DrillFragment | None:
    """The fragment of the results file at *path* from its sidecar, when the sidecar was
    made from a file of *source* (size, SHA-256); else None."""
    if source is None:
        return None
    try:
        data = drill_path(path).read_bytes()
        cut = data.index(b"\n")
        head = _loads(data[:cut])
        if head.get("schema") != DRILL_SCHEMA:
            return None
        recorded = head["results_file"]
        if (recorded["size"], recorded["sha256"]) != (source[0], source[1]):
            return None
        questions = []
        at = cut + 1
        for key, group, text, gold, index, c, n, length in head["questions"]:
            questions.append(
                DrillQuestion(key, group, text, gold, index, c, n, data[at : at + length])
            )
            at += length
        if at != len(data):
            return None
        return DrillFragment(
            list(head["found"]), list(head["by"]), questions, source, from_sidecar=True
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _ours(target: Path) -> bool:
    """No file at *target*, or one this module wrote (any drill schema)."""
    try:
        with target.open("rb") as handle:
            first = handle.readline()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        tag = _loads(first).get("schema")
    except (ValueError, AttributeError):
        return False
    return str(tag).startswith(DRILL_SCHEMA.split("/")[0] + "/")


def save_drill(path: Path | str, fragment: DrillFragment) -> bool:
    """Write *fragment* as the sidecar of the results file at *path*. Best effort: never
    over a file this module did not write, nor for a fragment of unknown source; False
    when not written."""
    path = Path(path)
    target = drill_path(path)
    if fragment.source is None or not _ours(target):
        return False
    size, sha = fragment.source
    head = {
        "schema": DRILL_SCHEMA,
        "results_file": {"name": path.name, "size": size, "sha256": sha},
        "found": fragment.found,
        "by": fragment.by,
        "questions": [
            [q.key, q.group, q.question, q.gold, q.index, q.c, q.n, len(q.samples)]
            for q in fragment.questions
        ],
    }
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as out:
            out.write(_dumps(head) + b"\n")
            out.writelines(q.samples for q in fragment.questions)
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True
