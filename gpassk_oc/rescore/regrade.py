"""Re-grade one OpenCompass LiveMathBench task with this package's checker.

The samples go through the same pipeline as ``GPassKEvaluator``: one
:func:`~gpassk_oc.core.judging.grading.grade` call (rules, or rules then the cached judge),
vote classes for maj@k, run health, and :func:`~gpassk_oc.core.runs.run_scoring.build_results`
for a results file of the current schema whose run record says where its facts came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from gpassk_oc import __version__
from gpassk_oc.core.answers.reasoning import ReadingRule, reading_rule
from gpassk_oc.core.judging.grading import GradeResult, GradingPolicy, grade
from gpassk_oc.core.judging.judge import JudgeConfig
from gpassk_oc.core.judging.voting import votes_and_accounting
from gpassk_oc.core.runs.run_record import RunRecord, dataset_facts, model_facts
from gpassk_oc.core.runs.run_scoring import build_results, group_replicas
from gpassk_oc.core.vocabulary import CheckMode, plain
from gpassk_oc.evaluator_record import run_health_of
from gpassk_oc.rescore.source import OCTask, Samples

__all__ = ["REASONING_CHOICES", "Options", "Regraded", "reasoning_flag", "regrade"]

REASONING_CHOICES = ("auto", "true", "false")
RECORD_SOURCE = "rescore: work-dir config"


@dataclass(frozen=True)
class Options:
    """How rescore grades: rules, or cascade with a judge (its cache under OUT)."""

    check: CheckMode = CheckMode.RULES
    judge: JudgeConfig | None = None
    judge_identity: dict[str, Any] | None = None
    cache_dir: str | None = None
    reasoning: str = "auto"
    rule_timeout: float = 5.0
    max_unjudged: float = 0.0
    progress: bool = False


@dataclass
class Regraded:
    """One task re-graded: the results file's JSON, the grading, the replies per question."""

    results: dict[str, Any]
    graded: GradeResult
    replies: list[list[str]]
    reasoning: bool
    reasoning_why: str


def reasoning_flag(option: str, replies: Iterable[str]) -> ReadingRule:
    """The reading rule for ``--reasoning`` *option* over all of a run's *replies*: the
    evaluator's own rule (:func:`gpassk_oc.core.answers.reasoning.reading_rule`), so a
    re-scored run is read exactly as the evaluator would read it."""
    setting: bool | str = {"true": True, "false": False}.get(option, "auto")
    return reading_rule(replies, setting)


def _versions() -> str | None:
    try:
        return metadata.version("opencompass")
    except metadata.PackageNotFoundError:
        return None


def _record(task: OCTask, opts: Options) -> RunRecord:
    facts: dict[str, Any] = {**model_facts(task.model), **dataset_facts(task.dataset)}
    judge = opts.judge_identity
    facts.update(
        check=str(opts.check),
        judge_model=judge.get("model") if judge else None,
        judge_prompt=None if not judge else str(judge.get("prompt_name") or judge.get("prompt")),
        plugin_version=__version__,
        opencompass_version=_versions(),
        source=RECORD_SOURCE,
    )
    return RunRecord.from_json(facts, f"{task.config_path}: record")


def regrade(
    task: OCTask, samples: Samples, rows: Sequence[dict[str, Any]], opts: Options
) -> Regraded:
    """Grade every sample of *task* (*rows*: the question rows of replica 0)."""
    spec = task.spec
    n = task.n
    # read_predictions checked the layout (entry r·Q + q is replica r of question q)
    grouped = group_replicas(samples.replies, n)
    rule = reasoning_flag(opts.reasoning, samples.replies)
    reasoning, why = rule.reasoning, f"{opts.reasoning}: read as {rule.applied!r} ({rule.why})"
    items = [
        {
            "question": str(r["question"]),
            "gold": str(r["answer"]),
            "language": str(r["language"]),
            "responses": replies,
        }
        for r, replies in zip(rows, grouped)
    ]
    policy = GradingPolicy(
        check=opts.check,
        judge=opts.judge if opts.check != CheckMode.RULES else None,
        cache_dir=opts.cache_dir if opts.check != CheckMode.RULES else None,
        max_unjudged=opts.max_unjudged,
        task_id=task.name,
        progress=opts.progress,
        rule_timeout=opts.rule_timeout,
        reasoning=reasoning,
    )
    graded = grade(items, policy)
    # maj@k: the same checker groups the answers into vote classes
    classes, accounting = votes_and_accounting(graded, opts.check, opts.rule_timeout)
    record = _record(task, opts)
    health = run_health_of(grouped, rows, graded, spec.ks, record, None)
    results = build_results(
        spec=spec,
        rows=rows,
        extracted=graded.extracted,
        correct=graded.correct,
        source=plain(graded.source),
        found=plain(graded.found),
        accounting=accounting,
        check=str(opts.check),
        judge=opts.judge_identity if opts.check != CheckMode.RULES else None,
        undecided_marked=True,
        votes=classes.votes,
        vote_correct=classes.correct_class,
        record=record,
        health=health,
        reasoning=rule.to_json(),
    )
    return Regraded(results, graded, grouped, reasoning, why)
