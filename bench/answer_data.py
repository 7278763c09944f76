"""Labelled real model outputs for ``bench_answers_real.py``: where they are and how to read them.

Two sets, reported separately because they fail in different ways:

* **non-reasoning** (``bench/data/dev.jsonl.gz``): step-by-step outputs or pre-extracted
  answers with a correctness label (ProcessBench, TinyV HardVerify-Math, GAOKAO-Bench).
* **reasoning** (``bench/data/reasoning-dev.jsonl.gz``): o1-style outputs with a chain of
  thought in ``<think> … </think>`` (DeepSeek-R1 distills), some cut by the token budget.

Both files are the development halves shipped with the repository (``bench/data/README.md``
gives sources, licences and row counts); ``../shared/answer-checking/`` beside a checkout
holds the same files uncompressed (``--shared``). Plain ``.jsonl`` and gzipped ``.jsonl.gz``
are both read.

Every record becomes a :class:`Row` whose ``text`` is what each checker is given: the full
response, or for a record with only a pre-extracted ``pred`` that answer as ``\\boxed{pred}``
(so every checker reads the same string).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "bench" / "data"
SHARED_DIR = ROOT.parent / "shared" / "answer-checking"
DEFAULT_DATA = DATA_DIR / "dev.jsonl.gz"
DEFAULT_REASONING = DATA_DIR / "reasoning-dev.jsonl.gz"

# The reasoning file names its sources by repository, commit and path; the bench reports
# them under these short names (prefix of the record's ``source``).
REASONING_SOURCES = {
    "interp-reasoning/thought-anchors": "thought_anchors",
    "uzaymacar/understanding-reasoning-models": "r1_distill_1p5b_math",
}


class DataError(ValueError):
    """A data file cannot be used; the message is one line naming the file and the field."""


@dataclass(frozen=True)
class Row:
    source: str
    id: str
    question: str
    gold: str
    label: bool
    text: str
    lang: str  # 'en' | 'zh'
    truncated: bool  # reasoning set: the output hit the token budget (always labelled false)
    model: str = ""  # the model that wrote it, when the record names one

    @property
    def evaluation(self) -> str:
        """The evaluation this row belongs to (its source and model): the unit in which
        ``reasoning='auto'`` decides how replies are read, as one OpenCompass
        (model, dataset) evaluation would."""
        return f"{self.source}/{self.model}" if self.model else self.source


def source_name(raw: str) -> str:
    """Short source name: the dev set's names as they are, the reasoning set's by prefix."""
    for prefix, name in REASONING_SOURCES.items():
        if raw.startswith(prefix):
            return name
    return raw


def _lines(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            yield from enumerate(fh, 1)
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot be read ({exc})") from exc


def load(path: Path, limit: int | None = None) -> list[Row]:
    """Records of *path* (``limit``: at most that many per source, in file order).

    Raises:
        DataError: the file is missing, not JSON lines, or a record lacks a field.
    """
    if not path.is_file():
        raise DataError(f"{path}: no such file (see bench/data/README.md)")
    rows: list[Row] = []
    per_source: dict[str, int] = {}
    for lineno, line in _lines(path):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise DataError(f"{path}:{lineno}: not JSON ({exc})") from exc
        if not isinstance(rec, dict):
            raise DataError(f"{path}:{lineno}: a record must be a JSON object")
        for key in ("source", "gold", "label"):
            if key not in rec:
                raise DataError(f"{path}:{lineno}: field '{key}' is missing")
        if not isinstance(rec["label"], bool):
            raise DataError(f"{path}:{lineno}: field 'label' must be true or false")
        response, pred = rec.get("response"), rec.get("pred")
        if response is None and pred is None:
            raise DataError(f"{path}:{lineno}: needs 'response' or 'pred'")
        name = source_name(str(rec["source"]))
        if limit is not None and per_source.get(name, 0) >= limit:
            continue
        per_source[name] = per_source.get(name, 0) + 1
        text = str(response) if response is not None else "\\boxed{" + str(pred).strip("$ ") + "}"
        rows.append(
            Row(
                source=name,
                id=str(rec.get("id", lineno)),
                question=str(rec.get("question", rec.get("problem", ""))),
                gold=str(rec["gold"]),
                label=rec["label"],
                text=text,
                lang="zh" if rec.get("lang") == "zh" else "en",
                truncated=bool(rec.get("truncated", False)),
                model=str(rec.get("model") or ""),
            )
        )
    if not rows:
        raise DataError(f"{path}: holds no records")
    return rows


def counts_by_source(path: Path) -> dict[str, tuple[int, int]]:
    """``{source: (rows, rows labelled true)}`` of one data file."""
    out: dict[str, tuple[int, int]] = {}
    for row in load(path):
        n, t = out.get(row.source, (0, 0))
        out[row.source] = (n + 1, t + int(row.label))
    return out
