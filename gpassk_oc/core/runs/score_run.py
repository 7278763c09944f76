"""One step from sampled replies to a results file (pure core).

Every way a run reaches this package goes through :func:`score_run`: the OpenCompass
evaluator, ``rescore`` of an OpenCompass work dir, and every importer of another harness's
samples. In: the question rows, each question's replies (any number per question, in
replica order), the run spec and run record, and how to grade (:class:`Grading`). Out: the
samples graded in one :func:`~gpassk_oc.core.judging.grading.grade` call, grouped into vote
classes for maj@k, health-checked, and the results file's JSON
(:func:`~.run_scoring.build_results`).

A question with fewer replies than the run's n keeps its missing slots as unjudged samples:
they are excluded from its ``n_q`` (exactly as an unjudged sample is), counted in
``accounting.missing_replies``, and never scored wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpassk_oc.core.answers.reasoning import ReadingRule
from gpassk_oc.core.judging.grading import GradeResult, GradingPolicy, grade
from gpassk_oc.core.judging.voting import votes_and_accounting
from gpassk_oc.core.runs.reply_facts import ReplyFacts, with_reply_facts
from gpassk_oc.core.runs.run_health import group_names, run_health
from gpassk_oc.core.runs.run_record import RunRecord
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.core.vocabulary import CheckMode, Found, Source, plain

__all__ = ["Grading", "Question", "Reply", "RunSamples", "ScoredRun", "score_run"]


@dataclass(frozen=True)
class Reply:
    """One sampled reply of a model, with the server's facts about it where the tool that
    sampled it kept them (finish reason, token counts; None: not recorded): they describe
    the reply, decide length truncation in run health, and never change how it is graded."""

    text: str
    facts: ReplyFacts | None = None


@dataclass(frozen=True)
class Question:
    """One question: its row (``question_id``, ``split``, ``language``, ``question_type``,
    ``question``, ``answer``) and its replies in replica order (at most the run's n)."""

    row: Mapping[str, Any]
    replies: Sequence[Reply]


@dataclass(frozen=True)
class RunSamples:
    """One run's samples: its spec at its n, its questions and its run record."""

    spec: RunSpec
    questions: Sequence[Question]
    record: RunRecord


@dataclass(frozen=True)
class Grading:
    """How to grade: the policy (rules or cascade), the reading rule applied, the judge's
    identity (recorded only when a judge may decide), and health settings."""

    policy: GradingPolicy
    rule: ReadingRule
    judge: Mapping[str, Any] | None = None
    mg_mode: str = "documented"
    count_tokens: Callable[[str], int] | None = None
    length_truncation: bool | None = None
    #: grades the items under the policy (the evaluator passes its own, which names the
    #: task when too many samples stay unjudged)
    grader: Callable[[list[dict[str, Any]], GradingPolicy], GradeResult] = grade


@dataclass
class ScoredRun:
    """The results file's JSON, the grading and the replies per question (texts)."""

    results: dict[str, Any]
    graded: GradeResult
    replies: list[list[str]] = field(default_factory=list)


def _pad(rows: Sequence[Sequence[Any]], n: int, fill: Any) -> list[list[Any]]:
    """Each row filled up to n entries (missing replies)."""
    return [list(row) + [fill] * (n - len(row)) for row in rows]


def _health_replies(replies: Sequence[Sequence[str]], n: int) -> list[list[str]]:
    """Replies padded to n for the health figures: each missing slot a distinct non-empty
    placeholder, so it counts neither as an empty reply nor as a duplicate (its unjudged
    verdict is what health reports)."""
    return [
        list(row) + [f"\0missing {qi}/{si}" for si in range(len(row), n)]
        for qi, row in enumerate(replies)
    ]


def _finish_reasons(facts: Sequence[Sequence[ReplyFacts | None]]) -> list[list[str | None]] | None:
    """The server's finish reason of each sample (None: not sent); None when no sample has
    a fact at all (a model class or tool that records none)."""
    if not any(f is not None for row in facts for f in row):
        return None
    return [[f.finish_reason if f else None for f in row] for row in facts]


def _grading_items(
    rows: Sequence[Mapping[str, Any]], replies: Sequence[list[str]]
) -> list[dict[str, Any]]:
    """What :func:`grade` takes: per question its text, gold, language and replies."""
    return [
        {
            "question": str(row["question"]),
            "gold": str(row["answer"]),
            "language": str(row["language"]),  # picks the judge prompt ('auto')
            "responses": texts,
        }
        for row, texts in zip(rows, replies)
    ]


def score_run(run: RunSamples, how: Grading) -> ScoredRun:
    """Grade, vote, health-check and build the results file of *run* (see module doc)."""
    spec, policy = run.spec, how.policy
    n = spec.n
    if n is None:
        raise ValueError("score_run needs the run spec at its n (RunSpec.at_n)")
    rows = [q.row for q in run.questions]
    replies = [[r.text for r in q.replies] for q in run.questions]
    if any(len(row) > n for row in replies):
        raise ValueError(f"a question has more replies than the run's n={n}")
    graded = how.grader(_grading_items(rows, replies), policy)
    # maj@k: the same checker groups the answers into vote classes
    classes, accounting = votes_and_accounting(graded, policy.check, policy.rule_timeout)
    missing = sum(n - len(row) for row in replies)
    if missing:
        accounting["missing_replies"] = missing
    correct = _pad(graded.correct, n, None)
    facts = _pad([[r.facts for r in q.replies] for q in run.questions], n, None)
    found = None if graded.found is None else _pad(plain(graded.found) or [], n, Found.NONE.value)
    health = run_health(
        _health_replies(replies, n) if missing else replies,
        group_names([str(r["split"]) for r in rows], [str(r["language"]) for r in rows]),
        correct,
        spec.ks,
        found=found,
        max_out_len=run.record.max_out_len,
        count_tokens=how.count_tokens,
        length_truncation=how.length_truncation,
        finish_reasons=_finish_reasons(facts),
    )
    rules = policy.check == CheckMode.RULES
    results = build_results(
        ScoringInput(
            spec=spec,
            rows=rows,
            extracted=_pad(graded.extracted, n, None),
            correct=correct,
            source=_pad(plain(graded.source) or [], n, Source.UNJUDGED.value),
            found=found,
            mg_mode=how.mg_mode,
            accounting=accounting,
            check=str(policy.check),
            judge=None if rules or how.judge is None else dict(how.judge),
            undecided_marked=True,  # grade() marks rule_undecided
            votes=_pad(classes.votes, n, None),
            vote_correct=classes.correct_class,
            record=run.record,
            health=health,
            reasoning=how.rule.to_json(),
        )
    )
    return ScoredRun(with_reply_facts(results, facts), graded, replies)
