"""The results-file schema: what ``GPassKEvaluator`` writes and every reader reads.

One file per (model, dataset), ``{work_dir}/{timestamp}/results/{model}/{dataset}.json``.
Schema 4 (this release)::

    {
      "schema": "gpassk_oc.results/4",          # a string: OpenCompass's summary skips it
      "G-Pass@16_0.5": 41.2, "mG-Pass@16": 30.1, "pass@1": 52.0, ...   # percent
      "AMC/en/G-Pass@16_0.5": 38.0, ...          # per split × language group
      "run": {"n": 48, "num_questions": 100, "ks": [4, 8, 16],    # the run spec, once
              "thresholds": [0.0, 0.25, 0.5, 0.75, 1.0], "mg_mode": "documented",
              "check": "cascade", "judge": {"model": "...", "prompt": "..."} | null,
              "undecided_marked": false, "writer": "gpassk_oc 0.1.0",
              "reasoning": {"setting": "auto", "applied": "thinking", "why": "..."}},
      "accounting": {"samples": 4800, "rule_decided": ..., "judge_calls": ...,
                     "unjudged": 0, "excluded_questions": {"16": 0}, ...},
      "details": [{"index": 0, "question_id": "...", "split": "AMC", "language": "en",
                   "question_type": "...", "question": "...", "gold": "...",
                   "extracted": [...], "correct": [true, false, null, ...],
                   "source": ["rule", "judge", "unjudged", ...],      # optional
                   "found": ["boxed", "statement", ...],              # optional
                   "vote": [0, 1, null, ...], "vote_correct": 0,      # optional
                   "finish_reason": ["stop", "length", null, ...],   # optional: the
                   "output_tokens": [412, 8192, null, ...],          # server's word
                   "prompt_tokens": [96, 96, null, ...],             # (.reply_facts)
                   "c": 1, "n": 2}, ...],
      "record": {...},   # the run's other settings: gpassk_oc.core.runs.run_record.RunRecord
      "health": {...}    # truncated / empty / identical replies: see .health
    }

Every field, its meaning and the older schemas: ``docs/results-file.md``. Only metrics
live at the top level, because OpenCompass's summarizer shows every top-level number as a
metric row; counts and run metadata are nested dicts, which it skips. ``correct`` ``null``
means unjudged: excluded from ``n``, never scored wrong.

Schemas 1, 2 and 3 are still read (schema 3 repeated ``ks``, ``thresholds``, ``n`` and
``replication`` in ``record``: read past; ``run`` holds the spec); a newer schema is refused with one line naming its
version, and a file without this package's marker (OpenCompass's own results, another
tool's, an unmarked one) with one line saying what it is (:mod:`.file_kind`).
Pure core: no third-party imports.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpassk_oc.core.answers.reasoning import ReadingRule
from gpassk_oc.core.metrics.majority_vote import judged_profile
from gpassk_oc.core.metrics.metric_keys import ACCURACY, group_name, legacy_group, result_key
from gpassk_oc.core.metrics.question_scorer import (
    count_checked_verdicts,
    count_verdicts,
    only_verdicts,
)
from gpassk_oc.core.metrics.registry import parse_result_key
from gpassk_oc.core.runs.file_kind import SCHEMA_NAME, identify, refusal
from gpassk_oc.core.runs.reply_facts import FACT_FIELDS, read_sample_facts
from gpassk_oc.core.runs.run_info import RunInfo
from gpassk_oc.core.runs.run_record import RecordError, RunRecord
from gpassk_oc.core.runs.run_spec import RunSpec, RunSpecError
from gpassk_oc.core.runs.vote_fields import read_votes
from gpassk_oc.core.vocabulary import CheckMode, Found, Source

__all__ = [
    "FOUND_VALUES",
    "QuestionResult",
    "Results",
    "ResultsError",
    "RunInfo",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "SOURCES",
    "read_results",
    "schema_tag",
]

SCHEMA_VERSION = 4
#: who decided a sample (``source``); ``rule_undecided`` only in rules mode
SOURCES = Source.values()
#: how the answer was found in the response (``found``)
FOUND_VALUES = Found.values()
#: schema-1 top-level keys that were run metadata or accounting, not metrics
_V1_RUN_KEYS = ("n", "num_questions", "ks", "thresholds")
_V1_SKIP = ("details",)


class ResultsError(ValueError):
    """A results file that cannot be read; the message is one line naming file and field."""


def schema_tag(version: int = SCHEMA_VERSION) -> str:
    """The top-level ``schema`` value, e.g. ``gpassk_oc.results/2``."""
    return f"{SCHEMA_NAME}/{version}"


@dataclass
class QuestionResult:
    """One question: its identity and one entry per sample (replica)."""

    index: int
    question_id: str
    split: str
    language: str
    question_type: str
    question: str | None
    gold: str | None
    extracted: list[str | None]
    correct: list[bool | None]
    source: list[str] | None = None
    found: list[str] | None = None
    vote: list[int | None] | None = None
    vote_correct: int | None = None
    #: the server's word per sample (:mod:`.reply_facts`): None = not recorded
    finish_reason: list[str | None] | None = None
    output_tokens: list[int | None] | None = None
    prompt_tokens: list[int | None] | None = None

    @property
    def group(self) -> str:
        """The split × language group name (``AMC/en``; '' when the file names neither)."""
        return group_name(self.split, self.language)

    @property
    def c(self) -> int:
        """Samples judged correct."""
        return count_verdicts(self.correct).c

    @property
    def n(self) -> int:
        """Judged samples (unjudged ones are excluded)."""
        return count_verdicts(self.correct).n

    @property
    def unjudged(self) -> int:
        """Samples without a verdict (``correct`` is null)."""
        return count_verdicts(self.correct).unjudged

    def undecided(self, exact: bool) -> int:
        """Samples scored wrong although no rule decided them and no judge labelled them.

        *exact* (the file marks them ``rule_undecided``, or a judge saw every sample the
        rules left open): those. Otherwise — a rules-mode
        run of schema 1, where ``rule`` covers both — every sample the rules scored wrong
        although an answer was extracted: an upper bound (it includes the confidently
        wrong answers)."""
        sources = self.source or [Source.RULE] * len(self.correct)
        if exact:
            # only the marked samples are looked at: list.index finds them in C
            correct = self.correct
            marked = _positions(sources[: len(correct)], Source.RULE_UNDECIDED)
            return sum(1 for i in marked if correct[i] is False)
        return sum(
            1
            for s, v, e in zip(sources, self.correct, self.extracted)
            if s == Source.RULE and v is False and e not in (None, "")
        )

    def vote_profile(self) -> tuple[int, tuple[int, ...], int] | None:
        """(correct votes, wrong class sizes, abstentions) over the judged samples — what
        :mod:`gpassk_oc.core.metrics.majority_vote` takes; None without votes or judged samples."""
        if self.vote is None:
            return None
        return judged_profile(self.vote, self.vote_correct, self.correct)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "question_id": self.question_id,
            "split": self.split,
            "language": self.language,
            "question_type": self.question_type,
            "question": self.question,
            "gold": self.gold,
            "extracted": list(self.extracted),
            "correct": list(self.correct),
        }
        if self.source is not None:
            out["source"] = list(self.source)
        if self.found is not None:
            out["found"] = list(self.found)
        if self.vote is not None:
            out["vote"], out["vote_correct"] = list(self.vote), self.vote_correct
        for name in FACT_FIELDS:
            if (values := getattr(self, name)) is not None:
                out[name] = list(values)
        out["c"], out["n"] = self.c, self.n
        return out


@dataclass
class Results:
    """A results file as data. ``metrics`` maps result keys (``G-Pass@16_0.5``,
    ``AMC/en/mG-Pass@16``) to percent values; ``notes`` are the reader's remarks."""

    info: RunInfo
    metrics: dict[str, float]
    accounting: dict[str, Any]
    questions: list[QuestionResult]
    schema_version: int = SCHEMA_VERSION
    notes: list[str] = field(default_factory=list)
    record: RunRecord | None = None  # None: an older file, settings unknown
    health: dict[str, Any] | None = None

    @property
    def undecided_basis(self) -> str:
        """How well the file tells undecided samples apart: 'exact' (see
        :attr:`marks_undecided`), 'upper bound' (a rules-mode file that does not mark them:
        every rule-wrong sample with an answer counts) or 'unknown' (the file does not say
        how samples were checked: only unjudged samples are known)."""
        if self.marks_undecided:
            return "exact"
        return "upper bound" if self.info.check == CheckMode.RULES else "unknown"

    @property
    def marks_undecided(self) -> bool:
        """Whether undecided samples are told apart from decided ones exactly: written by
        schema 2 (``rule_undecided`` in rules mode), or judged (cascade/judge: only the
        unjudged remain)."""
        if self.info.check in (CheckMode.JUDGE, CheckMode.CASCADE) or self.info.undecided_marked:
            return True
        return any(Source.RULE_UNDECIDED in (q.source or ()) for q in self.questions)

    def to_json(self) -> dict[str, Any]:
        """The JSON object the evaluator returns, always in the current schema (plain
        Python types only); a file read from an older schema is written upgraded."""
        out: dict[str, Any] = {"schema": schema_tag()}
        out.update(self.metrics)
        out["run"] = self.info.to_json()
        out["accounting"] = dict(self.accounting)
        out["details"] = [q.to_json() for q in self.questions]
        if self.record is not None:
            out["record"] = self.record.to_json()
        if self.health is not None:
            out["health"] = self.health
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "results") -> Results:
        """Read schema 4, 3, 2 or 1; :class:`ResultsError` (naming *where* and the field)
        else. The run spec is read once, from ``run`` (schema 1: the top level)."""
        if not isinstance(data, Mapping):
            raise ResultsError(f"{where}: not a JSON object")
        version = identify(data)  # the marker: schema (+ writer), or schema 1's shape
        if isinstance(version, str):
            raise ResultsError(refusal(where, version))
        if version > SCHEMA_VERSION:
            raise ResultsError(
                f"{where}: schema: written by a newer gpassk_oc (results schema "
                f"{version}; this one reads up to {SCHEMA_VERSION}); upgrade "
                "gpassk_oc to read it"
            )
        details = data.get("details")
        if not isinstance(details, list) or not details:
            raise ResultsError(
                f"{where}: details: no per-question details (re-run the "
                "evaluation with gpassk_oc's evaluator and --dump-eval-details)"
            )
        notes: list[str] = []
        questions = [_question(d, i, where, notes) for i, d in enumerate(details)]
        if version == 1:
            info, metrics, accounting = _v1_top(data, questions, where)
        else:
            info, metrics, accounting = _v2_top(data, questions, where)
        if info.num_questions != len(questions):
            notes.append(
                f"{where}: num_questions={info.num_questions} but details hold "
                f"{len(questions)} questions"
            )
        record, health = _v3_parts(data, where) if version >= 3 else (None, None)
        return cls(info, metrics, accounting, questions, version, notes, record, health)


def _verdicts(d: Mapping[str, Any], field_of: str, notes: list[str]) -> list[Any]:
    """A detail's verdicts: its ``correct`` list (checked against ``c``/``n`` where both are
    given), or from integer counts alone (a hand-made or trimmed file)."""
    correct = d.get("correct")
    if correct is not None and not isinstance(correct, list):
        raise ResultsError(
            f"{field_of}.correct: need a list of true/false/null verdicts, got "
            f"{type(correct).__name__} {correct!r:.40}"
        )
    if isinstance(correct, list):
        if not only_verdicts(correct):
            raise ResultsError(f"{field_of}.correct: entries must be true, false or null")
        q_c, q_n, _ = count_checked_verdicts(correct)  # checked just above
        if d.get("c", q_c) != q_c or d.get("n", q_n) != q_n:
            notes.append(
                f"{field_of}: c/n fields disagree with the 'correct' list; the list was used"
            )
    elif _count(d.get("c")) and _count(d.get("n")) and d["c"] <= d["n"]:
        # counts only: the verdicts in count order
        correct = [True] * d["c"] + [False] * (d["n"] - d["c"])
    else:
        raise ResultsError(f"{field_of}.correct: need a list of verdicts (or integer c <= n)")
    return correct


def _question(d: Any, position: int, where: str, notes: list[str]) -> QuestionResult:
    field_of = f"{where}: details[{position}]"
    if not isinstance(d, Mapping):
        raise ResultsError(f"{field_of}: not an object")
    correct = _verdicts(d, field_of, notes)
    size = len(correct)
    extracted = d.get("extracted")
    if extracted is None:  # counts-only files: no answers to show
        extracted = [None] * size
    elif not isinstance(extracted, list) or len(extracted) != size:
        raise ResultsError(f"{field_of}.extracted: need one entry per sample ({size})")
    optional: dict[str, list[str] | None] = {}
    for name in ("source", "found"):
        values = d.get(name)
        if values is None:
            optional[name] = None
        elif isinstance(values, list) and len(values) == size:
            optional[name] = list(map(str, values))
        else:
            raise ResultsError(f"{field_of}.{name}: need one entry per sample ({size})")
    vote, vote_correct = read_votes(d, correct, field_of, ResultsError)
    facts = read_sample_facts(d, size, field_of, ResultsError)
    index = d.get("index", position)
    text = d.get("question")
    gold = d.get("gold")
    return QuestionResult(
        index=index if isinstance(index, int) else position,
        question_id=str(d.get("question_id", index)),
        split=str(d.get("split") or ""),
        language=str(d.get("language") or ""),
        question_type=str(d.get("question_type") or ""),
        question=None if text is None else str(text),
        gold=None if gold is None else str(gold),
        extracted=(
            list(extracted)
            if set(map(type, extracted)) <= _TEXT_TYPES
            else [None if e is None else str(e) for e in extracted]
        ),
        correct=list(correct),
        source=optional["source"],
        found=optional["found"],
        vote=vote,
        vote_correct=vote_correct,
        **facts,
    )


#: what an extracted answer already is when it needs no conversion
_TEXT_TYPES = {str, type(None)}


def _positions(values: Sequence[Any], target: Any) -> list[int]:
    """The indices of the entries of *values* equal to *target*, found by ``index`` (in C:
    a few marked samples among many cost a few calls, not a Python loop over all)."""
    out: list[int] = []
    if not isinstance(values, list):
        return [i for i, v in enumerate(values) if v == target]
    at = -1
    while True:
        try:
            at = values.index(target, at + 1)
        except ValueError:
            return out
        out.append(at)


def _count(value: Any) -> bool:
    """A non-negative integer (JSON true/false are not counts)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _metric_items(items: Any, legacy: bool) -> dict[str, float]:
    """Top-level numbers that are metric keys (overall or per group)."""
    metrics: dict[str, float] = {}
    for key, value in items:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        group, _, metric = str(key).rpartition("/")
        try:
            name = ACCURACY if metric == ACCURACY else parse_result_key(metric)[1].key
        except ValueError:
            continue
        metrics[result_key(name, legacy_group(group) if legacy else group)] = float(value)
    return metrics


def _v1_top(
    data: Mapping[str, Any], questions: Sequence[QuestionResult], where: str = "results"
) -> tuple[RunInfo, dict[str, float], dict[str, Any]]:
    n = data.get("n")
    if n is not None and not (_count(n) and n >= 1):
        raise ResultsError(f"{where}: n: need an integer >= 1, got {n!r}")
    ks = data.get("ks")
    recorded = {
        "n": n if isinstance(n, int) else max(len(q.correct) for q in questions),
        "ks": [k for k in ks if isinstance(k, int)] if isinstance(ks, list) else None,
        "thresholds": data.get("thresholds"),
    }
    given = data.get("num_questions")
    info = RunInfo(
        spec=_spec(recorded, f"{where}: ", lenient=True),
        num_questions=given if isinstance(given, int) else len(questions),
        check=CheckMode.recorded(data.get("check"), f"{where}: check", ResultsError),
        judge={"model": data["judge_model"]} if isinstance(data.get("judge_model"), str) else None,
    )
    metrics = _metric_items(data.items(), legacy=True)
    accounting = {
        k: v
        for k, v in data.items()
        if k not in metrics
        and k not in _V1_RUN_KEYS
        and k not in _V1_SKIP
        and "/" not in k
        and k not in ("check", "judge_model", ACCURACY)
    }
    return info, metrics, accounting


def _v2_top(
    data: Mapping[str, Any], questions: Sequence[QuestionResult], where: str
) -> tuple[RunInfo, dict[str, float], dict[str, Any]]:
    run = data.get("run")
    if not isinstance(run, Mapping):
        raise ResultsError(f"{where}: run: missing (schema 2 keeps n, ks, … under 'run')")
    for name, least in (("n", 1), ("num_questions", 1)):
        value = run.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ResultsError(f"{where}: run.{name}: need an integer >= {least}, got {value!r}")
    judge = run.get("judge")
    try:  # how replies were read; absent in older files
        rule = ReadingRule.from_json(run.get("reasoning"), f"{where}: run.reasoning")
    except ValueError as exc:
        raise ResultsError(str(exc)) from None
    info = RunInfo(
        spec=_spec(run, f"{where}: run."),
        num_questions=run["num_questions"],
        mg_mode=str(run.get("mg_mode") or "documented"),
        check=CheckMode.recorded(run.get("check"), f"{where}: run.check", ResultsError),
        judge=dict(judge) if isinstance(judge, Mapping) else None,
        undecided_marked=run.get("undecided_marked") is True,
        writer=run.get("writer") if isinstance(run.get("writer"), str) else None,
        reasoning=None if rule is None else rule.to_json(),
    )
    accounting = data.get("accounting")
    if accounting is not None and not isinstance(accounting, Mapping):
        raise ResultsError(f"{where}: accounting: need an object")
    return info, _metric_items(data.items(), legacy=False), dict(accounting or {})


def _spec(run: Mapping[str, Any], where: str, lenient: bool = False) -> RunSpec:
    """The file's run spec (``n``, ``ks``, ``thresholds``), read once here."""
    try:
        return RunSpec.from_json(run, where, lenient=lenient)
    except RunSpecError as exc:
        raise ResultsError(str(exc)) from None


def _v3_parts(
    data: Mapping[str, Any], where: str
) -> tuple[RunRecord | None, dict[str, Any] | None]:
    """The schema-3 ``record`` (type-checked) and ``health`` (an object with ``overall``);
    either may be absent (a file built without them)."""
    try:
        record = (
            None
            if data.get("record") is None
            else RunRecord.from_json(data["record"], f"{where}: record")
        )
    except RecordError as exc:
        raise ResultsError(str(exc)) from None
    health = data.get("health")
    if health is not None and (
        not isinstance(health, Mapping) or not isinstance(health.get("overall"), Mapping)
    ):
        raise ResultsError(f"{where}: health: need an object with an 'overall' object")
    return record, None if health is None else dict(health)


def read_results(path: Path | str) -> Results:
    """Read one results file; :class:`ResultsError` with one line naming it otherwise."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: unreadable results file ({exc})") from None
    return Results.from_json(data, str(path))
