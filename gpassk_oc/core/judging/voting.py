"""Vote classes: which samples of a question cast the same vote (pure core).

maj@k (:mod:`gpassk_oc.core.metrics.majority_vote`) needs, per question, the samples grouped
into answers that count as one vote — ``1/2``, ``2^{-1}`` and ``\\frac12`` are one answer.
The grouping uses the checker that grades (:mod:`gpassk_oc.core.answers.rules`, with
math-verify for what the fast rules leave open), so a vote and a verdict never disagree
about what an answer means:

* **Correct class (id 0).** Every sample graded correct, whoever decided it (rules, judge,
  cache): they all match the gold, so they are one answer. Nothing else joins it, so its
  size is exactly the ``c`` that G-Pass@k uses.
* **Wrong classes (ids 1, 2, …).** The distinct canonical forms of the wrong answers,
  most frequent first, are clustered greedily: each joins the first class whose
  representative (its most frequent member) the checker finds ``'equal'`` to it, else it
  opens a new class. Checks run only between distinct canonical answers, once each
  (memoised across questions) — never over pairs of samples.
* **Undecided is kept apart.** When the checker cannot decide two wrong answers
  (``'undecided'``, a math-verify timeout) they stay separate classes: never merged on a
  guess, and no judge is asked (judge calls are spent on verdicts, not on wrong-vs-wrong
  pairs). Splitting a wrong answer's votes can only help the correct class, so where this
  errs, maj@k errs high; :func:`vote_classes` counts the undecided pairs. A merge that
  math-verify decides can change a representative, so the grouping is redone and the pairs
  it newly needs are checked (fast rules, then math-verify, a few rounds); a pair still
  open at the end is counted as undecided, never split silently.
* **Inconsistent samples vote for nothing.** With a judge, equal answers can get different
  verdicts (it saw different paragraphs). A wrong sample whose canonical answer is a
  correct sample's, or that the checker finds ``'equal'`` to one, would form a class whose
  answer is the gold, competing with the correct class: it votes for nothing and is counted
  as ``vote_inconsistent``.
* **No vote (None).** A sample with no answer (``found`` ``'none'``, truncated, empty) votes
  for nothing but still occupies a draw; an unjudged sample (verdict None) is left out of
  the question altogether, exactly as G-Pass@k leaves it out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.checking import math_verify_outcomes
from gpassk_oc.core.answers.mv_pool import MathVerifyPool, default_pool
from gpassk_oc.core.answers.rules import Outcome, fast_check
from gpassk_oc.core.vocabulary import COUNT_KEYS, CheckMode, Found

__all__ = [
    "CORRECT_CLASS",
    "NO_VOTE_FOUND",
    "VoteClasses",
    "vote_classes",
    "votes_and_accounting",
]

#: the class id of the samples graded correct
CORRECT_CLASS = 0
#: ``found`` values whose sample votes for nothing
NO_VOTE_FOUND = (Found.NONE, Found.TRUNCATED)

_Outcome = Callable[[str, str], "Outcome | None"]


@dataclass
class VoteClasses:
    """Per question: one class id (or None: no vote) per sample, and the correct class's id
    (None when no sample is correct). ``counts``: ``vote_checks`` (distinct answer pairs
    checked), ``vote_mv_calls`` (of them, sent to math-verify), ``vote_undecided`` (pairs
    the final grouping consulted and left apart because the checker could not decide),
    ``vote_inconsistent`` (wrong samples voting for nothing: a correct sample's answer)."""

    votes: list[list[int | None]]
    correct_class: list[int | None]
    counts: dict[str, int] = field(default_factory=dict)


def _wrong_answers(
    extracted: Sequence[str | None],
    correct: Sequence[bool | None],
    found: Sequence[str] | None,
    memo: dict[str, str],
) -> list[str | None]:
    """The canonical answer of each wrong sample that votes; None for every other."""
    out: list[str | None] = []
    for i, (answer, verdict) in enumerate(zip(extracted, correct)):
        how = found[i] if found is not None else None
        if verdict is not False or not answer or how in NO_VOTE_FOUND:
            out.append(None)
            continue
        canon = memo.get(answer)
        if canon is None:
            canon = memo[answer] = canonical_answer(answer)
        out.append(canon or None)
    return out


def _right_answers(
    extracted: Sequence[str | None], correct: Sequence[bool | None], memo: dict[str, str]
) -> list[str | None]:
    """The canonical answer of each sample graded correct; None for every other."""
    out: list[str | None] = []
    for answer, verdict in zip(extracted, correct):
        if verdict is not True or not answer:
            out.append(None)
            continue
        canon = memo.get(answer)
        if canon is None:
            canon = memo[answer] = canonical_answer(answer)
        out.append(canon or None)
    return out


def _order(answers: Sequence[str | None]) -> list[str]:
    """Distinct answers, most frequent first (ties: first seen)."""
    counts: dict[str, int] = {}
    for a in answers:
        if a is not None:
            counts[a] = counts.get(a, 0) + 1
    return sorted(counts, key=lambda a: -counts[a])


def _cluster(distinct: Sequence[str], outcome: _Outcome) -> dict[str, int]:
    """Greedy clustering against class representatives; ``outcome(answer, rep)`` gives the
    checker's word or None (unknown: treated as undecided)."""
    reps: list[str] = []
    cls: dict[str, int] = {}
    for answer in distinct:
        for j, rep in enumerate(reps):
            if outcome(answer, rep) == "equal":
                cls[answer] = j
                break
        else:
            cls[answer] = len(reps)
            reps.append(answer)
    return cls


def _question_classes(
    distinct: Sequence[str], right: Sequence[str], outcome: _Outcome
) -> tuple[dict[str, int], set[str]]:
    """A question's wrong-answer classes, and the wrong answers that are inconsistent: the
    same as (or checked equal to) a correct sample's answer — they vote for nothing."""
    same = set(right)
    bad = {w for w in distinct if w in same or any(outcome(w, c) == "equal" for c in right)}
    return _cluster([w for w in distinct if w not in bad], outcome), bad


#: math-verify rounds: a merge can change a class's representative, so the next clustering
#: may need pairs no round checked yet; what is still open after the last is undecided
_MV_ROUNDS = 4


def vote_classes(
    extracted: Sequence[Sequence[str | None]],
    correct: Sequence[Sequence[bool | None]],
    found: Sequence[Sequence[str]] | None = None,
    *,
    math_verify: bool = True,
    pool: MathVerifyPool | None = None,
    rule_timeout: float = 5.0,
) -> VoteClasses:
    """Vote classes of every question (see the module docstring).

    *extracted*, *correct* (and *found*) are per question, per sample, as
    :func:`gpassk_oc.core.judging.grading.grade` returns them. Pairs the fast rules leave
    open go to math-verify in batches (*pool*, default the shared pool) unless
    *math_verify* is False; then they stay apart.
    """
    memo: dict[str, str] = {}
    wrong = [
        _wrong_answers(ex, co, found[qi] if found is not None else None, memo)
        for qi, (ex, co) in enumerate(zip(extracted, correct))
    ]
    right = [_order(_right_answers(ex, co, memo)) for ex, co in zip(extracted, correct)]
    ordered = [_order(answers) for answers in wrong]
    pairs = _Pairs()

    def classify() -> list[tuple[dict[str, int], set[str]]]:
        pairs.new_pass()
        return [_question_classes(d, r, pairs.outcome) for d, r in zip(ordered, right)]

    per_question = classify()
    mv_calls = 0
    for _ in range(_MV_ROUNDS if math_verify else 0):
        todo = sorted(pairs.to_mv)
        if not todo:
            break
        pairs.slow.update(
            zip(todo, math_verify_outcomes(todo, pool or default_pool(), rule_timeout))
        )
        mv_calls += len(todo)
        per_question = classify()
    votes, correct_class, inconsistent = _vote_rows(per_question, correct, wrong)
    counts = {
        "vote_checks": len(pairs.fast),
        "vote_mv_calls": mv_calls,
        # pairs the final grouping consulted and could not decide (never merged on a guess)
        "vote_undecided": len(pairs.open),
        "vote_inconsistent": inconsistent,
    }
    return VoteClasses(votes, correct_class, counts)


class _Pairs:
    """What the checker said of each (answer, representative) pair the clustering asked
    about: the fast rules once per pair, math-verify's word on those they left open."""

    def __init__(self) -> None:
        self.fast: dict[tuple[str, str], Outcome | None] = {}  # None: the fast rules left it open
        self.slow: dict[tuple[str, str], Outcome] = {}  # math-verify's word on the open ones
        self.open: set[tuple[str, str]] = set()  # consulted in the latest pass, still open
        self.to_mv: set[tuple[str, str]] = set()  # of them, left to math-verify by the rules

    def new_pass(self) -> None:
        self.open.clear()
        self.to_mv.clear()

    def outcome(self, answer: str, rep: str) -> Outcome | None:
        key = (answer, rep)
        if key in self.slow:
            out: Outcome | None = self.slow[key]
        else:
            if key not in self.fast:
                self.fast[key] = fast_check(answer, rep)
            out = self.fast[key]
        if out is None or out == "undecided":  # the fast rules' 'undecided' is final
            self.open.add(key)
            if out is None:
                self.to_mv.add(key)
        return out


def _vote_rows(
    per_question: list[tuple[dict[str, int], set[str]]],
    correct: Sequence[Sequence[bool | None]],
    wrong: list[list[str | None]],
) -> tuple[list[list[int | None]], list[int | None], int]:
    """Each sample's vote (a class id; None: no vote) and each question's correct class
    from its classes; how many wrong answers were inconsistent."""
    votes: list[list[int | None]] = []
    correct_class: list[int | None] = []
    inconsistent = 0
    for qi, (cls, bad) in enumerate(per_question):
        row: list[int | None] = []
        for verdict, answer in zip(correct[qi], wrong[qi]):
            if verdict is True:
                row.append(CORRECT_CLASS)
            elif answer is None or answer in bad:
                inconsistent += answer is not None
                row.append(None)
            else:
                row.append(cls[answer] + 1)
        votes.append(row)
        correct_class.append(CORRECT_CLASS if any(v is True for v in correct[qi]) else None)
    return votes, correct_class, inconsistent


def votes_and_accounting(
    graded: Any, check: CheckMode, rule_timeout: float = 5.0
) -> tuple[VoteClasses, dict[str, Any]]:
    """The vote classes of a graded run (:class:`~.grading.GradeResult`: maj@k groups its
    answers with the same checker) and the run's accounting: every grading count (who
    decided, how answers were found), the vote counts, and the judgement cache's path in
    the judge modes. One owner for the evaluator and ``rescore``."""
    classes = vote_classes(
        graded.extracted, graded.correct, graded.found, rule_timeout=rule_timeout
    )
    accounting: dict[str, Any] = {key: int(graded.counts.get(key, 0)) for key in COUNT_KEYS}
    accounting.update(classes.counts)
    if check != CheckMode.RULES:
        accounting["judge_cache"] = graded.cache_path
    return classes, accounting
