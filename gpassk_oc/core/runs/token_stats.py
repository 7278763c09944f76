"""Output-token statistics of a run, from its results file (pure core).

What a run cost beside what it scored, as NeMo-Skills and MathArena show it: output tokens
per sample (mean, median, 95th percentile, max), the share of replies that hit the output
limit and output tokens per correct sample. Counted from the per-sample ``output_tokens``
and ``finish_reason`` lists of the results file's ``details`` (the server's ``usage`` and
finish reasons, :mod:`.reply_facts`), so any run whose file has them — evaluated or
rescored — gets them; a run without them gets None, and readers say so.

Definitions (each over the samples whose count the server sent):

* ``p95``: the nearest-rank 95th percentile, the ⌈0.95·m⌉-th smallest of m counts;
* ``median``: the middle count (the mean of the two middle ones for even m);
* ``at_limit``: replies whose finish reason says the output limit cut them, over the
  replies with a known finish reason (``at_limit_share``, None when none is known);
* ``per_correct``: all counted output tokens over the counted samples judged correct
  (None when none is correct): what one right answer costs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gpassk_oc.core.runs.reply_facts import stopped_by_length

__all__ = ["TOKEN_STAT_FIELDS", "nearest_rank", "token_stats"]

#: the keys of :func:`token_stats`, in display order
TOKEN_STAT_FIELDS = (
    "counted",
    "mean",
    "median",
    "p95",
    "max",
    "at_limit",
    "at_limit_share",
    "per_correct",
)


def nearest_rank(sorted_values: Sequence[int], share: float) -> int:
    """The nearest-rank percentile: the ⌈share·m⌉-th smallest of m sorted values."""
    return sorted_values[max(math.ceil(share * len(sorted_values)), 1) - 1]


def _median(values: Sequence[int]) -> float:
    m = len(values)
    middle = m // 2
    return float(values[middle]) if m % 2 else (values[middle - 1] + values[middle]) / 2


def token_stats(questions: Sequence[Any]) -> dict[str, Any] | None:
    """The statistics of a run's *questions* (:class:`~.results_file.QuestionResult`
    objects: ``output_tokens``, ``finish_reason``, ``correct``), or None when no sample
    has a token count."""
    if all(question.output_tokens is None for question in questions):
        return None  # no counts recorded: nothing to walk sample by sample
    counts: list[int] = []
    correct = 0
    reasons: list[bool] = []
    for question in questions:
        tokens = question.output_tokens or [None] * len(question.correct)
        finish = question.finish_reason or [None] * len(question.correct)
        for value, verdict, reason in zip(tokens, question.correct, finish):
            if value is not None:
                counts.append(int(value))
                correct += verdict is True
            if (cut := stopped_by_length(reason)) is not None:
                reasons.append(cut)
    if not counts:
        return None
    ordered = sorted(counts)
    at_limit = sum(reasons)
    return {
        "counted": len(counts),
        "mean": sum(counts) / len(counts),
        "median": _median(ordered),
        "p95": nearest_rank(ordered, 0.95),
        "max": ordered[-1],
        "at_limit": at_limit,
        "at_limit_share": at_limit / len(reasons) if reasons else None,
        "per_correct": sum(counts) / correct if correct else None,
    }
