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
from gpassk_oc.core.judging.grading import GradeResult, GradingPolicy
from gpassk_oc.core.judging.judge import JudgeConfig
from gpassk_oc.core.runs.run_record import RunRecord, dataset_facts, model_facts
from gpassk_oc.core.runs.run_scoring import group_replicas
from gpassk_oc.core.runs.score_run import Grading, Question, RunSamples, ScoredRun, score_run
from gpassk_oc.core.vocabulary import CheckMode
from gpassk_oc.evaluator_record import token_counter
from gpassk_oc.rescore.importer import ReplyCache, shared_replies
from gpassk_oc.rescore.source import OCTask, Samples

__all__ = ["REASONING_CHOICES", "Options", "Regraded", "reasoning_flag", "regrade", "score_with"]

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
    # read_predictions checked the layout (entry r·Q + q is replica r of question q)
    grouped = group_replicas(samples.replies, task.n)
    record = _record(task, opts)
    facts = group_replicas(samples.facts or [None] * len(samples.replies), task.n)
    made: ReplyCache = {}  # replies repeat: one object each
    questions = [
        Question(row, shared_replies(zip(texts, known), made))
        for row, texts, known in zip(rows, grouped, facts)
    ]
    scored, rule = score_with(RunSamples(task.spec, questions, record), opts, task.name)
    why = f"{opts.reasoning}: read as {rule.applied!r} ({rule.why})"
    return Regraded(scored.results, scored.graded, scored.replies, rule.reasoning, why)


def score_with(run: RunSamples, opts: Options, task_id: str) -> tuple[ScoredRun, ReadingRule]:
    """*run* through the core step with rescore's *opts* (any importer's runs too)."""
    replies = [r.text for q in run.questions for r in q.replies]
    rule = reasoning_flag(opts.reasoning, replies)
    rules = opts.check == CheckMode.RULES
    policy = GradingPolicy(
        check=opts.check,
        judge=None if rules else opts.judge,
        cache_dir=None if rules else opts.cache_dir,
        max_unjudged=opts.max_unjudged,
        task_id=task_id,
        progress=opts.progress,
        rule_timeout=opts.rule_timeout,
        reasoning=rule.reasoning,
    )
    how = Grading(
        policy,
        rule,
        judge=opts.judge_identity,
        count_tokens=token_counter(run.record.tokenizer_path),
    )
    return score_run(run, how), rule
