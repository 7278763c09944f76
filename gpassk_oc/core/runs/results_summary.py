"""A results file's summary: what the report's tables need, without the samples (pure core).

A results file (:mod:`.results_file`) holds every sample's answer, verdict, source and vote; a
table needs per question only its identity, the counts ``c``/``n``/undecided/unjudged and
the vote profile. :func:`summarize_results` makes that :class:`RunSummary` (~5% of the
file); :func:`read_summary` reads it for a results file, from the file's sidecar when the
sidecar matches it, else from the file itself; :func:`save_summary` writes the sidecar.

The sidecar ``{dataset}.json.summary`` sits beside ``{dataset}.json`` (it does not end in
``.json``, so nothing takes it for a results file). It records the results file's size and
SHA-256, and its modification time (ns) when the file was read: a file whose size and
mtime are unchanged is taken as unchanged without reading it (hashing 240 results files
means reading 400 MB); otherwise its SHA-256 decides. A results file that changed since
(rerun, edited, replaced) no longer matches, so its summary is made afresh. A sidecar is written only where none is, or over one this
module wrote (its ``schema`` tag), never over a user's file; a folder that cannot be
written just means the next read parses the results file again.

Files of every results schema (1-3) summarise: older ones are read by :mod:`.results_file`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpassk_oc.core.metrics.question_scorer import count_verdicts
from gpassk_oc.core.metrics.registry import MetricSpec, parse_result_key
from gpassk_oc.core.runs.drill_fragment import DrillFragment, make_fragment
from gpassk_oc.core.runs.gc_pause import gc_paused
from gpassk_oc.core.runs.results_file import Results, ResultsError, RunInfo
from gpassk_oc.core.runs.run_record import RecordError, RunRecord
from gpassk_oc.core.runs.token_stats import token_stats

__all__ = [
    "SUMMARY_SCHEMA",
    "SUMMARY_SUFFIX",
    "RunSummary",
    "quick_summary",
    "read_summary",
    "save_summary",
    "summarize_results",
    "summary_path",
]

SUMMARY_SCHEMA = "gpassk_oc.summary/3"  # 2: the run spec lives in info only; 3: tokens
SUMMARY_SUFFIX = ".summary"
Profile = tuple[int, tuple[int, ...], int]

try:  # a C parser: ~3x faster on a 1.7 MB results file (bench/bench_report_grid.py)
    import orjson

    def _loads(data: bytes) -> Any:
        return orjson.loads(data)

    def _dumps(data: Any) -> bytes:
        # in C: a grid's first report wrote its 240 sidecars in 0.3 s with json (after the
        # report, so every second of it is the user's); the stdlib takes what orjson
        # refuses (a key that is not text, an integer beyond 64 bits). No NaN or infinity
        # can be in a summary: orjson refuses them in the results file it is made from
        try:
            return orjson.dumps(data)
        except TypeError:
            return _stdlib_dumps(data)

except ImportError:  # pragma: no cover - orjson is a dependency; stdlib works too

    def _loads(data: bytes) -> Any:
        return json.loads(data)

    def _dumps(data: Any) -> bytes:
        return _stdlib_dumps(data)


def _stdlib_dumps(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@dataclass
class RunSummary:
    """One results file without its samples: run metadata, metrics, accounting, record,
    health, the reader's notes, and per question (file order) identity and counts."""

    info: RunInfo
    metrics: dict[str, float]
    accounting: dict[str, Any]
    record: RunRecord | None
    health: dict[str, Any] | None
    notes: list[str]
    schema_version: int
    #: 'exact', 'upper bound' or 'unknown' (see Results.undecided_basis)
    undecided_basis: str
    question_ids: list[str] = field(default_factory=list)
    splits: list[str] = field(default_factory=list)
    languages: list[str] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)
    texts: list[str | None] = field(default_factory=list)
    golds: list[str | None] = field(default_factory=list)
    c: list[int] = field(default_factory=list)
    n: list[int] = field(default_factory=list)
    undecided: list[int] = field(default_factory=list)
    unjudged: list[int] = field(default_factory=list)
    #: the vote profile over judged samples (None: no votes or none judged)
    profiles: list[Profile | None] = field(default_factory=list)
    has_votes: bool = False
    #: the reader's cross-check of the file's metrics against its details (one note per
    #: disagreement); None: not checked yet. Kept in the sidecar, so it runs once per file
    checks: list[str] | None = None
    #: (size, SHA-256) of the results file this summarises; set by :func:`read_summary`
    source: tuple[int, str] | None = None
    #: the results file's st_mtime_ns when its bytes were read (None: unknown)
    mtime_ns: int | None = field(default=None, compare=False)
    from_sidecar: bool = False
    #: read from a sidecar that lacks something worth keeping (the mtime, the checks):
    #: saved again after the command succeeds
    resave: bool = field(default=False, compare=False)
    #: output-token statistics (:func:`~.token_stats.token_stats`); None: no counts
    tokens: dict[str, Any] | None = None
    #: the page's drill-down share of the file (:mod:`.drill_fragment`), made by a read of
    #: the whole file or loaded for a page; not part of the summary sidecar
    drill: DrillFragment | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.c)

    def metric_specs(self) -> list[tuple[str, float, str, MetricSpec]]:
        """``(key, value, group, spec)`` per top-level metric: the file's keys parsed once,
        here at the file edge (the reader kept only keys that parse)."""
        return [(key, value, *parse_result_key(key)) for key, value in self.metrics.items()]

    def to_json(self) -> dict[str, Any]:
        return {
            "info": self.info.to_json(),
            "metrics": self.metrics,
            "accounting": self.accounting,
            "record": None if self.record is None else self.record.to_json(),
            "health": self.health,
            "notes": self.notes,
            "schema_version": self.schema_version,
            "undecided_basis": self.undecided_basis,
            "has_votes": self.has_votes,
            "checks": self.checks,
            "tokens": self.tokens,
            "questions": {
                "question_id": self.question_ids,
                "split": self.splits,
                "language": self.languages,
                "index": self.indices,
                "question": self.texts,
                "gold": self.golds,
                "c": self.c,
                "n": self.n,
                "undecided": self.undecided,
                "unjudged": self.unjudged,
                "profile": [None if p is None else [p[0], list(p[1]), p[2]] for p in self.profiles],
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSummary:
        """The sidecar's content (KeyError/TypeError/ValueError when it is not one)."""
        info = dict(data["info"])
        q = data["questions"]
        try:
            record = None if data["record"] is None else RunRecord.from_json(data["record"])
        except RecordError as exc:
            raise ValueError(str(exc)) from None
        return cls(
            info=RunInfo.from_json(info),
            metrics=dict(data["metrics"]),
            accounting=dict(data["accounting"]),
            record=record,
            health=data["health"],
            notes=list(data["notes"]),
            schema_version=int(data["schema_version"]),
            undecided_basis=str(data["undecided_basis"]),
            question_ids=list(q["question_id"]),
            splits=list(q["split"]),
            languages=list(q["language"]),
            indices=list(q["index"]),
            texts=list(q["question"]),
            golds=list(q["gold"]),
            c=list(q["c"]),
            n=list(q["n"]),
            undecided=list(q["undecided"]),
            unjudged=list(q["unjudged"]),
            profiles=[None if p is None else (p[0], tuple(p[1]), p[2]) for p in q["profile"]],
            has_votes=bool(data["has_votes"]),
            checks=None if data["checks"] is None else list(data["checks"]),
            tokens=None if data.get("tokens") is None else dict(data["tokens"]),
        )


def summarize_results(results: Results) -> RunSummary:
    """The summary of a read results file."""
    basis = results.undecided_basis
    out = RunSummary(
        info=results.info,
        metrics=dict(results.metrics),
        accounting=dict(results.accounting),
        record=results.record,
        health=results.health,
        notes=list(results.notes),
        schema_version=results.schema_version,
        undecided_basis=basis,
        has_votes=any(q.vote is not None for q in results.questions),
        tokens=token_stats(results.questions),
    )
    for q in results.questions:
        out.question_ids.append(q.question_id)
        out.splits.append(q.split)
        out.languages.append(q.language)
        out.indices.append(q.index)
        out.texts.append(q.question)
        out.golds.append(q.gold)
        c, n, unjudged = count_verdicts(q.correct)  # once: q.c, q.n, q.unjudged each count
        out.c.append(c)
        out.n.append(n)
        out.unjudged.append(unjudged)
        out.undecided.append(0 if basis == "unknown" else q.undecided(basis == "exact"))
        out.profiles.append(q.vote_profile())
    return out


def summary_path(results_path: Path | str) -> Path:
    """The sidecar of a results file: ``{dataset}.json.summary`` beside it."""
    path = Path(results_path)
    return path.with_name(path.name + SUMMARY_SUFFIX)


def _sidecar(
    path: Path, size: int, sha: str | None, mtime_ns: int | None = None
) -> RunSummary | None:
    """The sidecar's summary when it was written for exactly these bytes (their *sha*),
    or, with *mtime_ns*, for a file of this size and modification time; else None."""
    try:
        data = _loads(summary_path(path).read_bytes())
        if data.get("schema") != SUMMARY_SCHEMA:
            return None
        source = data["results_file"]
        if source["size"] != size:
            return None
        if mtime_ns is not None and source.get("mtime_ns") != mtime_ns:
            return None
        if mtime_ns is None and source["sha256"] != sha:
            return None
        summary = RunSummary.from_json(data["summary"])
        summary.source, summary.from_sidecar = (size, source["sha256"]), True
        summary.mtime_ns = source.get("mtime_ns")
        return summary
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save_summary(path: Path | str, summary: RunSummary) -> bool:
    """Write *summary* as the sidecar of the results file at *path* (read by
    :func:`read_summary`, which set its ``source``). Best effort: never over a file this
    module did not write; False when not written (the summary is a cache: the results
    file stays the truth)."""
    path = Path(path)
    target = summary_path(path)
    if summary.source is None:
        return False
    try:
        # ours (any summary schema: an older one is replaced), never another file
        if target.exists() and not str(_loads(target.read_bytes()).get("schema")).startswith(
            SUMMARY_SCHEMA.split("/")[0] + "/"
        ):
            return False
    except (OSError, ValueError, AttributeError):
        return False
    size, sha = summary.source
    body = {
        "schema": SUMMARY_SCHEMA,
        "results_file": {"name": path.name, "size": size, "sha256": sha}
        | ({} if summary.mtime_ns is None else {"mtime_ns": summary.mtime_ns}),
        "summary": summary.to_json(),
    }
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(_dumps(body))
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True


def quick_summary(path: Path | str) -> RunSummary | None:
    """The summary from the sidecar of the results file at *path* when the sidecar was
    written for a file of this size and modification time (no hashing: the file itself is
    not read); None when it was not, or either cannot be read."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return None
    return _sidecar(path, stat.st_size, None, stat.st_mtime_ns)


def read_summary(path: Path | str) -> RunSummary:
    """The summary of the results file at *path*: from its sidecar when that matches the
    file's size and SHA-256 (``from_sidecar``), else by reading the file
    (:class:`~.results_file.ResultsError` with one line naming it when it cannot be read);
    :func:`save_summary` then keeps it for the next read."""
    path = Path(path)
    quick = quick_summary(path)
    if quick is not None:
        return quick
    try:
        before = path.stat()
        data = path.read_bytes()
        after = path.stat()
    except OSError as exc:
        raise ResultsError(f"{path}: unreadable results file ({exc})") from None
    source = (len(data), hashlib.sha256(data).hexdigest())
    # the mtime vouches for these bytes only if the file did not change while read
    unchanged = (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, len(data))
    mtime_ns = after.st_mtime_ns if unchanged else None
    cached = _sidecar(path, *source)
    if cached is not None:
        cached.mtime_ns = mtime_ns
        cached.resave = mtime_ns is not None  # with the mtime: the next read is quick
        return cached
    with gc_paused():  # ~40,000 containers and no cycle (see gc_pause)
        return _summary_of(path, data, source, mtime_ns)


def _summary_of(
    path: Path, data: bytes, source: tuple[int, str], mtime_ns: int | None
) -> RunSummary:
    """The summary of the results file at *path* from its bytes *data* (SHA-256 in
    *source*), with its drill-down share."""
    try:
        parsed = _loads(data)
    except ValueError as exc:
        why: Exception = exc
        try:  # name the encoding the way read_results does ('utf-8' codec can't decode…)
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            why = bad
        raise ResultsError(f"{path}: unreadable results file ({why})") from None
    results = Results.from_json(parsed, str(path))
    summary = summarize_results(results)
    summary.source, summary.mtime_ns = source, mtime_ns
    # the whole file is read now: its drill-down share costs little more here than later
    summary.drill = make_fragment(results, source)
    return summary
