"""Which LiveMathBench question each prediction answers: split, language, id, text.

OpenCompass's ``BaseDataset`` overwrites every row's ``subdivision`` with the dataset abbr,
so its predictions and results no longer say which split × language a question belongs
to. Only the prompt (which contains the question) and the gold answer remain. With the
local LiveMathBench files (``--data``, layout ``{path}/{version}/{split}_{lang}.jsonl``)
each question is found again: first at the position the config's split × language order
gives it, else by its text among the questions with the same gold answer, else by its
text alone. Without ``--data`` a config naming one split and one language still says it;
otherwise the groups stay unknown and the caller says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpassk_oc.core.data.livemath_data import LiveMathDataError, read_jsonl
from gpassk_oc.rescore.source import OCTask, Prediction, RescoreError

__all__ = ["Located", "local_rows", "locate_questions"]

DEFAULT_VERSION = "202412"


@dataclass
class Located:
    """The question rows of replica 0 (the keys :func:`build_results` takes) and how their
    split × language were known: ``data`` (--data), ``config`` (one split and language
    configured) or ``unknown``."""

    rows: list[dict[str, Any]]
    how: str
    note: str | None = None


@dataclass(frozen=True)
class _Known:
    split: str
    language: str
    index: int
    question: str
    answer: str
    question_type: str

    def row(self) -> dict[str, Any]:
        return {
            "question_id": f"{self.split}_{self.language}_{self.index}",
            "split": self.split,
            "language": self.language,
            "question_type": self.question_type,
            "question": self.question,
            "answer": self.answer,
        }


def local_rows(files: Sequence[Path]) -> list[tuple[str, str, int, dict[str, Any]]]:
    """``(split, language, index, row)`` of every question of the local LiveMathBench
    *files* (``{split}_{lang}.jsonl``); RescoreError naming a bad file."""
    out = []
    for file in files:
        split, _, lang = file.stem.rpartition("_")
        try:
            rows = read_jsonl(file)
        except LiveMathDataError as exc:
            raise RescoreError(str(exc)) from None
        out += [(split, lang, i, r) for i, r in enumerate(rows)]
    return out


def _load(data: Path, version: str) -> tuple[Path, list[_Known]]:
    folder = data / version
    files = sorted(folder.glob("*_*.jsonl")) if folder.is_dir() else []
    if not files:
        raise RescoreError(
            f"--data {data}: no {version}/{{split}}_{{lang}}.jsonl files (the local "
            "LiveMathBench layout)"
        )
    known = [
        _Known(split, lang, i, r["question"], r["answer"], r["question_type"])
        for split, lang, i, r in local_rows(files)
    ]
    return folder, known


def _ordered(known: Sequence[_Known], splits: list[str], langs: list[str]) -> list[_Known]:
    """The rows in the order OpenCompass's loader concatenates them (splits outer)."""
    by_file: dict[tuple[str, str], list[_Known]] = {}
    for k in known:
        by_file.setdefault((k.split, k.language), []).append(k)
    return [k for s in splits for lang in langs for k in by_file.get((s, lang), [])]


def _find(
    pred: Prediction, guess: _Known | None, by_gold: dict[str, list[_Known]], known: list[_Known]
) -> _Known | None:
    if guess is not None and guess.answer == pred.gold and guess.question in pred.prompt:
        return guess
    for pool in (by_gold.get(pred.gold, []), known):
        hits = [k for k in pool if k.question in pred.prompt]
        if hits:  # the longest question contained in the prompt is the one asked
            return max(hits, key=lambda k: len(k.question))
    return None


def locate_questions(task: OCTask, first: Sequence[Prediction], data: Path | None) -> Located:
    """Rows for the Q questions whose replica-0 predictions are *first* (see the module
    docstring); RescoreError naming the prediction file when --data lacks a question."""
    splits, langs = task.strings("dataset_splits"), task.strings("dataset_languages")
    if data is None:
        one = len(splits) == 1 and len(langs) == 1
        rows = [
            {
                "question_id": f"{splits[0]}_{langs[0]}_{q}" if one else str(q),
                "split": splits[0] if one else "",
                "language": langs[0] if one else "",
                "question_type": "",
                "question": p.prompt,
                "answer": p.gold,
            }
            for q, p in enumerate(first)
        ]
        if one:
            return Located(rows, "config")
        return Located(
            rows,
            "unknown",
            f"{task.name}: split × language dropped by OpenCompass (it overwrites each "
            "row's subdivision with the abbr); pass --data LIVEMATH_DIR to recover them",
        )
    version = str(task.dataset.get("version") or DEFAULT_VERSION)
    folder, known = _load(data, version)
    ordered = _ordered(known, splits, langs)
    by_gold: dict[str, list[_Known]] = {}
    for k in known:
        by_gold.setdefault(k.answer, []).append(k)
    rows = []
    for q, pred in enumerate(first):
        hit = _find(pred, ordered[q] if q < len(ordered) else None, by_gold, known)
        if hit is None:
            raise RescoreError(
                f"{task.predictions[0]}: question {q} (gold {pred.gold!r:.40}) is missing "
                f"from --data {folder}: no question there occurs in its prompt"
            )
        rows.append(hit.row())
    ids = [r["question_id"] for r in rows]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise RescoreError(
            f"{task.predictions[0]}: two questions match {dup} of --data {folder}; "
            "the data is not the one this run used"
        )
    return Located(rows, "data", f"{task.name}: split × language recovered from {folder}")
