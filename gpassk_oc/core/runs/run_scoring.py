"""From n replicated predictions per question to G-Pass@k results and details (pure core).

OpenCompass's ``BaseDataset`` repeats the whole dataset n times as contiguous blocks, so
row ``r * q + i`` (q questions) is replica r of question i. :func:`group_replicas`
checks that layout against ``question_id`` instead of trusting it, and
:func:`build_results` turns per-sample verdicts into the result dict our evaluator
returns (percent values, like OpenCompass), in the results-file schema owned by
:mod:`.results_file`.

Unjudged samples (``None`` verdicts) are excluded, never counted as wrong: question q has
``c_q`` correct among ``n_q`` judged samples, and a G-Pass@k mean only covers questions with
``n_q >= k`` (``excluded_questions`` counts the others per k). With nothing unjudged every
``n_q`` is n and the results are the plain G-Pass@k of the paper.

Given per-sample vote classes (:mod:`gpassk_oc.core.judging.voting`), ``maj@k`` is reported
for the same ks (exact, :mod:`gpassk_oc.core.metrics.majority_vote`, over the same judged samples and questions), and
``avg@n`` (mean accuracy over all samples: the value of ``pass@1``) whenever n > 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from gpassk_oc._version import __version__
from gpassk_oc.core.metrics.majority_vote import Profile, judged_profile, maj_numerators
from gpassk_oc.core.metrics.metric_keys import (
    PASS_AT_1,
    avg_key,
    group_name,
    maj_key,
    result_key,
)
from gpassk_oc.core.metrics.question_scorer import count_verdicts, metric_means
from gpassk_oc.core.metrics.question_scorer import excluded_questions as scorer_excluded
from gpassk_oc.core.runs.results_file import QuestionResult, Results, RunInfo
from gpassk_oc.core.runs.run_record import RunRecord
from gpassk_oc.core.runs.run_spec import RunSpec

__all__ = ["ScoringInput", "build_results", "excluded_questions", "group_replicas"]


def group_replicas(
    values: Sequence[Any], n: int, question_ids: Sequence[str] | None = None
) -> list[list[Any]]:
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
            block = list(question_ids[r * size : (r + 1) * size])
            if block != first:
                bad = next(i for i, (a, b) in enumerate(zip(first, block)) if a != b)
                raise ValueError(
                    f"replica {r} is not a copy of replica 0: row {r * size + bad} has "
                    f"question_id {block[bad]!r}, expected {first[bad]!r}"
                )
    return [[values[r * size + i] for r in range(n)] for i in range(size)]


def _maj_means(ks: Sequence[int], profiles: Sequence[Profile | None]) -> dict[str, float]:
    """Percent maj@k per k over the questions with votes and at least k judged samples;
    each mean is an exact Fraction rounded once (numerators summed per denominator
    ``L · C(n, k)``: the same rational as the sum of every question's Fraction)."""
    parts = [maj_numerators(p) for p in profiles if p is not None]
    out: dict[str, float] = {}
    for k in dict.fromkeys(ks):
        by_den: dict[int, int] = {}
        count = 0
        for nums, scale in parts:
            n = len(nums) - 1
            if n >= k:
                den = scale * comb(n, k)
                by_den[den] = by_den.get(den, 0) + nums[k]
                count += 1
        if count:
            total = sum((Fraction(v, d) for d, v in by_den.items()), Fraction(0))
            out[maj_key(k)] = float(total * 100 / count)
    return out


def _profiles(
    votes: Sequence[Sequence[int | None]] | None,
    vote_correct: Sequence[int | None] | None,
    correct: Sequence[Sequence[bool | None]],
) -> list[Profile | None]:
    """Vote profile of each question over its judged samples (None: no votes / no judged)."""
    if votes is None or vote_correct is None:
        return [None] * len(correct)
    return [judged_profile(*q) for q in zip(votes, vote_correct, correct)]


def _metrics(
    n: int,
    ks: Sequence[int],
    thresholds: Sequence[Any],
    mg_mode: str,
    correct: Sequence[Sequence[bool | None]],
    profiles: Sequence[Profile | None] = (),
) -> dict[str, float]:
    """Percent metrics of one question group.

    ``None`` verdicts (unjudged) are excluded: question q has ``c_q`` True among its
    ``n_q`` judged samples. ``G-Pass@k``/``mG-Pass@k`` average over the questions with
    ``n_q >= k`` (a question with fewer judged samples has no defined value at that k and is
    left out rather than scored 0); a key is absent when no question qualifies. ``pass@1``
    is the mean of ``c_q / n_q`` over questions with ``n_q >= 1`` — with nothing unjudged
    that is the mean accuracy over all samples. Means are summed as Fractions of the
    per-question doubles and rounded once, so an exact mean of 3/5 is 60.0, not
    59.999999999999986.
    """
    tallies = [count_verdicts(row) for row in correct]
    out = metric_means(n, [t.n for t in tallies], [t.c for t in tallies], ks, thresholds, mg_mode)
    if n > 1 and out:  # maj@k sits before avg@n and pass@1, as files always listed it
        tail = {key: out.pop(key) for key in (avg_key(n), PASS_AT_1)}
        out.update(_maj_means(ks, profiles))
        out.update(tail)
    return out


def excluded_questions(
    ks: Sequence[int], correct: Sequence[Sequence[bool | None]]
) -> dict[str, int]:
    """Per k (as a string key): questions with fewer than k judged samples (left out of
    that k's G-Pass means)."""
    return scorer_excluded(ks, [count_verdicts(row).n for row in correct])


def _per_sample(
    name: str, values: Sequence[Sequence[Any]] | None, q: int, n: int
) -> list[list[str]] | None:
    if values is None:
        return None
    if len(values) != q or any(len(v) != n for v in values):
        raise ValueError(f"{name} needs q={q} lists of n={n} entries")
    return [[str(v) for v in row] for row in values]


@dataclass(frozen=True)
class ScoringInput:
    """Everything :func:`build_results` turns into a results file.

    *spec* is the run spec, its n set (:meth:`~.run_spec.RunSpec.at_n`: k = 1 at n = 1);
    *rows* are the q question rows of replica 0 (``question_id``, ``split``, ``language``,
    ``question_type``, ``question``, ``answer``); *extracted*/*correct* (and the optional
    *source*, who decided each sample, and *found*, how its answer was located) are q lists
    of n. ``None`` in *correct* means unjudged: the sample is excluded — question q counts
    ``c_q`` True among its ``n_q`` judged samples (see :func:`_metrics` for questions with
    ``n_q < k``) — and is counted in ``accounting.unjudged``. *votes* and *vote_correct*
    (per question, from :func:`gpassk_oc.core.judging.voting.vote_classes`) add ``maj@k``;
    *check*, *judge* (identity), *reasoning* (the reading rule's JSON) and *mg_mode* go to
    ``run``; *record* and *health* to their sections.
    """

    spec: RunSpec
    rows: Sequence[Mapping[str, Any]]
    extracted: Sequence[Sequence[str | None]]
    correct: Sequence[Sequence[bool | None]]
    mg_mode: str = "documented"
    source: Sequence[Sequence[str]] | None = None
    found: Sequence[Sequence[str]] | None = None
    accounting: Mapping[str, Any] | None = None
    check: str | None = None
    judge: Mapping[str, Any] | None = None
    undecided_marked: bool = False
    votes: Sequence[Sequence[int | None]] | None = None
    vote_correct: Sequence[int | None] | None = None
    record: RunRecord | None = None
    health: Mapping[str, Any] | None = None
    reasoning: Mapping[str, Any] | None = None

    def check_shape(self) -> tuple[int, int]:
        """(q, n) after checking every per-question list has n entries (ValueError)."""
        if self.spec.n is None:
            raise ValueError("build_results needs the run spec at its n (RunSpec.at_n)")
        n, q = self.spec.n, len(self.rows)
        extracted, correct = self.extracted, self.correct
        if not (len(extracted) == len(correct) == q) or q == 0:
            raise ValueError(
                f"need one extracted/correct list per question: {q} rows, "
                f"{len(extracted)} extracted, {len(correct)} correct"
            )
        if any(len(e) != n or len(c) != n for e, c in zip(extracted, correct)):
            raise ValueError(f"every question needs n={n} extracted answers and verdicts")
        votes, vote_correct = self.votes, self.vote_correct
        if votes is not None and (
            vote_correct is None
            or len(votes) != q
            or len(vote_correct) != q
            or any(len(v) != n for v in votes)
        ):
            raise ValueError(f"votes need q={q} lists of n={n} entries and q vote_correct ids")
        return q, n


def _all_metrics(scoring: ScoringInput, n: int) -> dict[str, float]:
    """Overall metrics, then each split × language group's under ``{split}/{lang}/``."""
    spec, correct = scoring.spec, scoring.correct
    profiles = _profiles(scoring.votes, scoring.vote_correct, correct)
    args = (n, spec.ks, spec.thresholds, scoring.mg_mode)
    metrics: dict[str, float] = dict(_metrics(*args, correct, profiles))
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(scoring.rows):
        groups.setdefault(group_name(str(row["split"]), str(row["language"])), []).append(i)
    for group, members in groups.items():
        if not group:  # rows without split and language: their keys are the overall ones
            continue
        picked = _metrics(*args, [correct[i] for i in members], [profiles[i] for i in members])
        for metric, value in picked.items():
            metrics[result_key(metric, group)] = value
    return metrics


def _questions(scoring: ScoringInput, q: int, n: int) -> list[QuestionResult]:
    """One :class:`QuestionResult` per row, in row order."""
    source = _per_sample("source", scoring.source, q, n)
    found = _per_sample("found", scoring.found, q, n)
    votes, vote_correct = scoring.votes, scoring.vote_correct
    return [
        QuestionResult(
            index=i,
            question_id=str(row["question_id"]),
            split=str(row["split"]),
            language=str(row["language"]),
            question_type=str(row.get("question_type") or ""),
            question=str(row["question"]),
            gold=str(row["answer"]),
            extracted=[None if e is None else str(e) for e in scoring.extracted[i]],
            correct=[None if v is None else bool(v) for v in scoring.correct[i]],
            source=source[i] if source is not None else None,
            found=found[i] if found is not None else None,
            vote=list(votes[i]) if votes is not None else None,
            vote_correct=vote_correct[i] if vote_correct is not None else None,
        )
        for i, row in enumerate(scoring.rows)
    ]


def build_results(scoring: ScoringInput) -> dict[str, Any]:
    """The evaluator's result dict, in the results-file schema of :mod:`.results_file`.

    Top-level keys are metrics only: overall ``G-Pass@{k}_{τ}``, ``mG-Pass@{k}``, ``pass@1``
    (``accuracy`` and ``pass@1`` when n = 1), and the same per split × language group as
    ``{split}/{lang}/{metric}``; with votes also ``maj@{k}``, and ``avg@{n}`` when n > 1.
    ``run`` holds the spec (n, ks, thresholds), mg_mode, the check mode, the judge identity
    and the reading rule applied (:meth:`gpassk_oc.core.answers.reasoning.ReadingRule.to_json`);
    ``accounting`` the given items plus ``unjudged`` and ``excluded_questions`` (per k);
    ``details`` one entry per question. Plain Python types only (JSON-serialisable).
    """
    q, n = scoring.check_shape()
    metrics = _all_metrics(scoring, n)
    questions = _questions(scoring, q, n)
    info = RunInfo(
        spec=scoring.spec,
        num_questions=q,
        mg_mode=scoring.mg_mode,
        check=scoring.check,
        judge=dict(scoring.judge) if scoring.judge else None,
        undecided_marked=bool(scoring.undecided_marked),
        writer=f"gpassk_oc {__version__}",
        reasoning=dict(scoring.reasoning) if scoring.reasoning else None,
    )
    counts: dict[str, Any] = dict(scoring.accounting or {})
    counts["unjudged"] = sum(count_verdicts(row).unjudged for row in scoring.correct)
    counts["excluded_questions"] = excluded_questions(scoring.spec.ks, scoring.correct)
    health = None if scoring.health is None else dict(scoring.health)
    return Results(info, metrics, counts, questions, record=scoring.record, health=health).to_json()
