"""From n replicated predictions per question to G-Pass@k results and details (pure core).

OpenCompass's ``BaseDataset`` repeats the whole dataset n times as contiguous blocks, so
row ``r * q + i`` (q questions) is replica r of question i. :func:`group_replicas`
checks that layout against ``question_id`` instead of trusting it, and
:func:`build_results` turns per-sample verdicts into the result dict our evaluator
returns (percent values, like OpenCompass).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional, Sequence

from ..metrics import DEFAULT_THRESHOLDS, format_threshold, g_pass_table

__all__ = ["DETAIL_KEYS", "build_results", "group_replicas", "group_key"]

#: The details schema, one entry per question in dataset order (report tools rely on it).
DETAIL_KEYS = ("index", "question_id", "split", "language", "question_type", "question",
               "gold", "extracted", "correct", "c", "n")


def group_key(split: str, language: str) -> str:
    """Prefix of per split × language result keys, e.g. ``AMC_en``."""
    return f"{split}_{language}"


def group_replicas(values: Sequence[Any], n: int,
                   question_ids: Optional[Sequence[str]] = None) -> list[list[Any]]:
    """``values`` (length q·n, replica-major) → q lists of n values, question order kept.

    When *question_ids* are given, every replica block must list the same ids in the
    same order; otherwise the grouping would silently mix questions.
    """
    total = len(values)
    if n < 1 or total % n:
        raise ValueError(f"{total} predictions cannot be split into n={n} replicas")
    size = total // n
    if question_ids is not None:
        if len(question_ids) != total:
            raise ValueError(f"{len(question_ids)} question ids for {total} predictions")
        first = list(question_ids[:size])
        for r in range(1, n):
            block = list(question_ids[r * size:(r + 1) * size])
            if block != first:
                bad = next(i for i, (a, b) in enumerate(zip(first, block)) if a != b)
                raise ValueError(
                    f"replica {r} is not a copy of replica 0: row {r * size + bad} has "
                    f"question_id {block[bad]!r}, expected {first[bad]!r}")
    return [[values[r * size + i] for r in range(n)] for i in range(size)]


def _percent_table(n: int, counts: Sequence[int], ks: Sequence[int],
                   thresholds: Sequence[Any], mg_mode: str) -> dict[str, float]:
    """Mean × 100 per metric, rounded once.

    Each per-question value from the core is the exact rational rounded to a double;
    summing those doubles as Fractions and scaling by 100/q in rationals leaves a single
    final rounding, so e.g. a mean of exactly 3/5 is reported as 60.0, not
    59.999999999999986 (float dot product, then × 100).
    """
    table = g_pass_table(n, list(counts), ks=ks, thresholds=thresholds, mg_mode=mg_mode)
    q = len(counts)
    return {key: float(sum(Fraction(float(v)) for v in values) * 100 / q)
            for key, values in table.per_question.items()}


def _metrics(n: int, ks: Sequence[int], thresholds: Sequence[Any], mg_mode: str,
             correct: Sequence[Sequence[Optional[bool]]]) -> dict[str, float]:
    counts = [sum(1 for v in row if v is True) for row in correct]
    samples = n * len(correct)
    pass1 = 100 * sum(counts) / samples  # int / int: correctly rounded
    if n == 1:
        return {"accuracy": pass1, "pass@1": pass1}
    out = _percent_table(n, counts, ks, thresholds, mg_mode)
    out["pass@1"] = pass1
    return out


def build_results(*, n: int, ks: Sequence[int], rows: Sequence[dict],
                  extracted: Sequence[Sequence[Optional[str]]],
                  correct: Sequence[Sequence[Optional[bool]]],
                  thresholds: Sequence[Any] = DEFAULT_THRESHOLDS,
                  mg_mode: str = "documented") -> dict[str, Any]:
    """The evaluator's result dict.

    *rows* are the q question rows of replica 0 (``question_id``, ``split``, ``language``,
    ``question_type``, ``question``, ``answer``); *extracted*/*correct* are q lists of n.
    ``None`` in *correct* means unjudged: it is not counted in c (so it weighs as
    incorrect in G-Pass) and is reported in ``unjudged``.

    Keys: overall ``G-Pass@{k}_{τ}``, ``mG-Pass@{k}``, ``pass@1`` (``accuracy`` and
    ``pass@1`` when n = 1), the same per split × language as ``{split}_{lang}/{metric}``,
    then ``n``, ``num_questions``, ``ks``, ``unjudged`` and ``details``. Plain Python
    types only, so the result is JSON-serialisable.
    """
    q = len(rows)
    if not (len(extracted) == len(correct) == q) or q == 0:
        raise ValueError(f"need one extracted/correct list per question: {q} rows, "
                         f"{len(extracted)} extracted, {len(correct)} correct")
    if any(len(e) != n or len(c) != n for e, c in zip(extracted, correct)):
        raise ValueError(f"every question needs n={n} extracted answers and verdicts")
    ks = [int(k) for k in ks]
    results: dict[str, Any] = dict(_metrics(n, ks, thresholds, mg_mode, correct))
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(group_key(row["split"], row["language"]), []).append(i)
    for key, members in groups.items():
        for metric, value in _metrics(n, ks, thresholds, mg_mode, [correct[i] for i in members]).items():
            results[f"{key}/{metric}"] = value
    results["n"] = int(n)
    results["num_questions"] = q
    results["ks"] = ks if n > 1 else [1]
    results["thresholds"] = [float(format_threshold(t)) for t in thresholds]
    results["unjudged"] = sum(1 for row in correct for v in row if v is None)
    results["details"] = [
        {
            "index": i,
            "question_id": str(row["question_id"]),
            "split": str(row["split"]),
            "language": str(row["language"]),
            "question_type": str(row.get("question_type") or ""),
            "question": str(row["question"]),
            "gold": str(row["answer"]),
            "extracted": [None if e is None else str(e) for e in extracted[i]],
            "correct": [None if v is None else bool(v) for v in correct[i]],
            "c": sum(1 for v in correct[i] if v is True),
            "n": int(n),
        }
        for i, row in enumerate(rows)
    ]
    return results
