"""An audit by answer class: ``gpassk-oc audit WORK_DIR --by class``, and reading it back.

maj@k asks whether the gold *class* wins a vote, so its verdict error is measured per
class (docs/verdict-error-and-ranks.md): a question's vote classes (the samples graded
correct, and each group of equal wrong answers; ``vote`` in the results file) are drawn
stratified by (source, verdict) — a class's source is the one most of its samples came
from — and each sheet line shows the class's answer (its most frequent extracted answer),
its size and the gold. The labeller says whether that answer is the gold (``yes``/``no``,
``1``/``0``). ``report --audit-classes SHEET`` turns the labels into class rates
(:mod:`gpassk_oc.core.uncertainty.corrected_majority`) and corrects maj@k.

A class's id is ``model/dataset/[group/]index/class{vote}``. Only runs whose results file
records votes have classes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.majority_vote import maj_curve
from gpassk_oc.core.uncertainty.corrected_majority import ClassQuestion
from gpassk_oc.report.auditing.audit_strata import draw_stratified
from gpassk_oc.report.data.collect import Run, run_results

__all__ = [
    "CLASS_COLUMNS",
    "VoteClass",
    "SourcedClasses",
    "class_channels",
    "collect_classes",
    "sourced_classes",
    "draw_classes",
    "mean_raw",
    "class_sheet_rows",
]

CLASS_COLUMNS = (
    "class_id",
    "model",
    "dataset",
    "question_index",
    "class",
    "source",
    "verdict",
    "size",
    "question",
    "gold",
    "answer",
    "label",
)


@dataclass(frozen=True)
class VoteClass:
    """One vote class of one question of one run."""

    run: Run
    index: int  # the question's index in the file
    group: str  # its split × language group ('' when the file names none)
    vote: int  # the class id in the file's ``vote`` lists
    correct: bool  # graded correct (the file's ``vote_correct`` class)
    source: str  # the source most of its samples came from
    sizes: tuple[int, ...]  # its size first, then the question's other classes' sizes
    abstain: int  # the question's judged samples that vote for nothing
    question: str
    gold: str
    answer: str  # its most frequent extracted answer

    @property
    def class_id(self) -> str:
        where = f"{self.group}/" if self.group else ""
        return f"{self.run.model_abbr}/{self.run.dataset_abbr}/{where}{self.index}/class{self.vote}"

    def win(self, k: int) -> float:
        """The chance this class wins a vote among k of the question's samples (0 when k
        exceeds them): the class's weight in the class rates."""
        size, others = self.sizes[0], self.sizes[1:]
        if k > sum(self.sizes) + self.abstain:
            return 0.0
        return float(maj_curve((size, others, self.abstain))[k - 1])


#: one question's vote classes as the corrections read them: ((size, graded correct, the
#: source most of its samples came from) per class, in vote order; abstentions)
SourcedClasses = tuple[tuple[tuple[int, bool, str], ...], int]


def _members(q: Any) -> tuple[dict[int, list[int]], int]:
    """A results-file question's judged samples per vote class (in vote order), and how
    many judged samples vote for nothing."""
    members: dict[int, list[int]] = {}
    abstain = 0
    for r, (v, verdict) in enumerate(zip(q.vote, q.correct)):
        if verdict is None:
            continue
        if v is None:
            abstain += 1
        else:
            members.setdefault(v, []).append(r)
    return dict(sorted(members.items())), abstain


def _main_source(sources: Sequence[str], rs: Sequence[int]) -> str:
    """The source most of samples *rs* came from (ties: the first by name)."""
    by_source = Counter(sources[r] for r in rs)
    top = max(by_source.values())
    return min(s for s, c in by_source.items() if c == top)


def sourced_classes(q: Any) -> SourcedClasses | None:
    """A results-file question's :data:`SourcedClasses` (None: no votes, or no class)."""
    if q.vote is None:
        return None
    members, abstain = _members(q)
    if not members:
        return None
    sources = q.source or ["unknown"] * len(q.correct)
    return (
        tuple(
            (len(rs), v == q.vote_correct, _main_source(sources, rs)) for v, rs in members.items()
        ),
        abstain,
    )


def class_channels(
    questions: Sequence[SourcedClasses], sources: Sequence[str]
) -> list[ClassQuestion]:
    """*questions* with each class's channel: 1 + its source's position in *sources*, 0
    for a source without rates."""
    return [
        (
            tuple((size, ok, sources.index(s) + 1 if s in sources else 0) for size, ok, s in cls),
            abstain,
        )
        for cls, abstain in questions
    ]


def _question_classes(run: Run, q: Any) -> list[VoteClass]:
    """The vote classes of one results-file question over its judged samples."""
    if q.vote is None:
        return []
    sources = q.source or ["unknown"] * len(q.correct)
    members, abstain = _members(q)
    out = []
    for vote, rs in members.items():
        answers = Counter(q.extracted[r] or "" for r in rs if r < len(q.extracted))
        others = tuple(len(m) for v, m in members.items() if v != vote)
        out.append(
            VoteClass(
                run,
                q.index,
                q.group,
                vote,
                vote == q.vote_correct,
                _main_source(sources, rs),
                (len(rs), *others),
                abstain,
                q.question or "",
                q.gold or "",
                answers.most_common(1)[0][0] if answers else "",
            )
        )
    return out


def collect_classes(runs: Sequence[Run]) -> list[VoteClass]:
    """Every vote class of *runs* (runs without votes have none)."""
    out: list[VoteClass] = []
    for run in runs:
        for q in run_results(run).questions:
            out += _question_classes(run, q)
    return out


def draw_classes(classes: list[VoteClass], size: int, seed: int) -> list[VoteClass]:
    """A sample stratified by (source, verdict), as the sample sheet draws verdicts."""
    return draw_stratified(
        classes, lambda c: (c.source, c.correct), lambda c: c.class_id, size, seed
    )


def class_sheet_rows(sample: list[VoteClass]) -> list[list[str | int]]:
    """The class audit sheet's rows, the header first."""
    rows: list[list[str | int]] = [list(CLASS_COLUMNS)]
    for c in sample:
        verdict = "correct" if c.correct else "wrong"
        row: list[str | int] = [c.class_id, c.run.model_abbr, c.run.dataset_abbr, c.index]
        row += [c.vote, c.source, verdict, c.sizes[0], c.question, c.gold, c.answer, ""]
        rows.append(row)
    return rows


def mean_raw(questions: Sequence[ClassQuestion], k: int) -> float:
    """The raw maj@k over *questions* (the graded-correct class as the gold), NaN when
    none has k samples: what the report's maj@k column shows for the same questions."""
    values = []
    for classes, abstain in questions:
        sizes = [s for s, _, _ in classes]
        if k > sum(sizes) + abstain:
            continue
        right = [j for j, (_, correct, _) in enumerate(classes) if correct]
        if not right:
            values.append(0.0)
            continue
        j = right[0]
        others = tuple(s for i, s in enumerate(sizes) if i != j)
        values.append(float(maj_curve((sizes[j], others, abstain))[k - 1]))
    return float(np.mean(values)) if values else math.nan
