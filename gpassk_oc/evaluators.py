"""OpenCompass evaluator adapter: ``gpassk_oc.evaluators.GPassKEvaluator``.

Registered in ``ICL_EVALUATORS`` as ``GPassKEvaluator`` (OpenCompass has no such name).
It replaces ``BaseEvaluator.evaluate`` entirely: OpenCompass's own grouping keys
questions by ``subdivision`` + ``idx`` and groups per-subdivision rows by
``abbr.split('_')[0]``, which breaks on abbrs such as ``LiveMathBench-v202412-k4_8_16-r3``.
Here replicas are grouped by position (checked against ``question_id``), every sample is
graded by the core pipeline (:func:`gpassk_oc.core.judging.grading.grade`: rules, then the cached
LLM judge) in one call, and every metric comes from the exact core
(:func:`gpassk_oc.core.metrics.gpass_exact.g_pass_table`). This module only adapts OpenCompass's calling
convention and locates the judgement cache under the work dir.

Config::

    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator))            # rules, k from dataset
    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, k=[4, 16],
                                 judge=dict(urls=['http://judge:23333/v1'],
                                            model='Qwen2.5-72B-Instruct',
                                            prompt='opencompass')))  # cascade, paper's prompt

``judge.prompt='opencompass'`` (also what ``'auto'`` picks for a LiveMath-Judge model) is
OpenCompass's LiveMathBench judge prompt: its text is read here from the installed
OpenCompass and handed to the core (:attr:`~gpassk_oc.core.judging.judge.JudgeConfig.prompt_texts`),
which never imports OpenCompass and keeps no copy of it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from gpassk_oc._plugin import guarded_import, missing_name_hook
from gpassk_oc.core.answers.reasoning import (
    ReadingRule,
    ThinkTags,
    check_reasoning_setting,
    no_closing_tag_warning,
    reading_rule,
)
from gpassk_oc.core.judging.grading import (
    GradeResult,
    GradingPolicy,
    UnjudgedError,
    grade,
)
from gpassk_oc.core.judging.judge import JudgeConfig, resolve_prompt
from gpassk_oc.core.metrics.gpass_exact import MG_MODES
from gpassk_oc.core.metrics.metric_keys import ACCURACY
from gpassk_oc.core.runs.reply_facts import ReplyFacts
from gpassk_oc.core.runs.run_scoring import group_replicas
from gpassk_oc.core.runs.run_spec import (
    DEFAULT_THRESHOLDS,
    RunSpec,
    RunSpecError,
    parse_ks,
    parse_thresholds,
)
from gpassk_oc.core.runs.score_run import Grading, Question, Reply, RunSamples, score_run
from gpassk_oc.core.vocabulary import CheckMode
from gpassk_oc.evaluator_facts import reply_facts_of
from gpassk_oc.evaluator_record import check_run_record, resolve_record, token_counter
from gpassk_oc.log import logger
from gpassk_oc.workdir import CACHE_DIRNAME, default_cache_location

try:
    import math_verify  # noqa: F401  (rule checking needs it: fail at import, not mid-run)
    from opencompass.openicl.icl_evaluator import BaseEvaluator
    from opencompass.registry import ICL_EVALUATORS
except ImportError as _exc:  # surface the real cause in the task log (see _plugin)
    raise guarded_import(__name__, _exc) from _exc

__all__ = [
    "CACHE_DIRNAME",
    "CHECK_MODES",
    "GPassKEvaluator",
    "default_cache_location",
    "opencompass_judge_prompts",
    "validate_judge",
]

#: Ways of deciding whether a sample is correct (see :mod:`gpassk_oc.core.judging.grading`).
CHECK_MODES = CheckMode.values()

#: JudgeConfig fields a config may set (prompt_texts is filled here, from OpenCompass)
_JUDGE_FIELDS = {f.name for f in dataclasses.fields(JudgeConfig)} - {"prompt_texts"}

#: where OpenCompass keeps LiveMathBench's judge prompts (0.5.x)
OC_PROMPTS_MODULE = "opencompass.datasets.livemathbench.prompts"


def judge_identity(config: JudgeConfig) -> dict[str, Any]:
    """What the results file records about the judge (``run.judge``): its model, the prompt
    asked for and the one used, and each language's prompt version (name + hash of the
    exact text, as in the cache key) — never URLs, key variables or the prompt texts."""
    return {
        "model": config.model,
        "prompt": config.prompt,
        "prompt_name": config.prompt_name,
        "prompt_versions": {lang: config.prompt_for(lang)[1] for lang in ("en", "cn")},
    }


def opencompass_judge_prompts() -> dict[str, str]:
    """``{'en': JUDGE_PROMPT_EN, 'cn': JUDGE_PROMPT_CN}`` from the installed OpenCompass's
    LiveMathBench module (imported here, at run time: never copied into this package), or a
    one-line ValueError when this OpenCompass has no such prompts."""
    import importlib

    try:
        module = importlib.import_module(OC_PROMPTS_MODULE)
        return {"en": module.JUDGE_PROMPT_EN, "cn": module.JUDGE_PROMPT_CN}
    except (ImportError, AttributeError) as exc:
        raise ValueError(
            f"judge.prompt: 'opencompass' needs JUDGE_PROMPT_EN/JUDGE_PROMPT_CN "
            f"from {OC_PROMPTS_MODULE}, which the installed OpenCompass does not "
            f"provide ({type(exc).__name__}: {exc}); set judge.prompt='gpassk' "
            "or judge.template"
        ) from None


def validate_judge(judge: Mapping[str, Any]) -> JudgeConfig:
    """``GPassKEvaluator(judge=dict(...))`` → :class:`JudgeConfig`, or a one-line ValueError
    naming the bad field (configs arrive as mmengine ConfigDicts, lists possibly as tuples)."""
    if not isinstance(judge, Mapping):
        raise ValueError(f"judge must be a dict of JudgeConfig fields, got {type(judge).__name__}")
    fields = dict(judge)
    if "api_key" in fields or "key" in fields:
        raise ValueError(
            "judge: no API key in configs; export it and name the variable with "
            "judge=dict(api_key_env='MY_KEY_VAR', ...)"
        )
    if "prompt_texts" in fields:
        raise ValueError(
            "judge.prompt_texts: filled from the installed OpenCompass for "
            "prompt='opencompass'; for a prompt of your own set judge.template"
        )
    unknown = sorted(set(fields) - _JUDGE_FIELDS)
    if unknown:
        raise ValueError(
            f"judge.{unknown[0]}: unknown field; known: {', '.join(sorted(_JUDGE_FIELDS))}"
        )
    # JudgeConfig checks every field (the same checks as the generator's eval_* variables)
    fields.setdefault("urls", None)
    fields.setdefault("model", None)
    if (
        fields.get("template") is None
        and resolve_prompt(fields.get("prompt") or "auto", str(fields["model"])) == "opencompass"
    ):
        fields["prompt_texts"] = opencompass_judge_prompts()
    try:
        return JudgeConfig(**fields)
    except ValueError as exc:  # JudgeConfig's own messages already name the field
        raise ValueError(str(exc).replace("JudgeConfig.", "judge.")) from None


def _check_settings(
    max_unjudged: Any, cache_dir: Any, mg_mode: Any, rule_timeout: Any, length_truncation: Any
) -> None:
    """One-line ValueError naming the first bad ``GPassKEvaluator`` setting."""
    if (
        isinstance(max_unjudged, bool)
        or not isinstance(max_unjudged, (int, float))
        or not 0 <= max_unjudged <= 1
    ):
        raise ValueError(f"max_unjudged is a fraction in [0, 1], got {max_unjudged!r}")
    if cache_dir is not None and (not isinstance(cache_dir, str) or not cache_dir):
        raise ValueError(f"cache_dir must be a directory path, got {cache_dir!r}")
    if mg_mode not in MG_MODES:
        raise ValueError(f"mg_mode must be one of {MG_MODES}, got {mg_mode!r}")
    if (
        isinstance(rule_timeout, bool)
        or not isinstance(rule_timeout, (int, float))
        or rule_timeout <= 0
    ):
        raise ValueError(f"rule_timeout must be a positive number of seconds, got {rule_timeout!r}")
    if length_truncation is not None and not isinstance(length_truncation, bool):
        raise ValueError(f"length_truncation: need true, false or None, got {length_truncation!r}")


@ICL_EVALUATORS.register_module(name="GPassKEvaluator", force=False)
class GPassKEvaluator(BaseEvaluator):
    """G-Pass@k / mG-Pass@k / pass@1, maj@k and avg@n over n replicas, overall and per
    split × language (maj@k: :mod:`gpassk_oc.core.judging.voting` groups the answers).

    Args:
        k: ks to report; default: the dataset config's ``k``.
        thresholds: τ values for ``G-Pass@k_τ`` (floats, strings like ``"3/4"``); the
            results file records them and the report shows them (templates: ``thresholds``).
        check: ``'rules'``, ``'judge'`` or ``'cascade'`` (see :mod:`gpassk_oc.core.judging.grading`);
            default: ``'cascade'`` when *judge* is given, else ``'rules'``.
        judge: :class:`~gpassk_oc.core.judging.judge.JudgeConfig` fields as a dict (``urls`` and
            ``model`` required; ``api_key_env``, ``prompt`` — ``'auto'``, ``'opencompass'``
            (the paper's), ``'gpassk'``, ``'en'``, ``'cn'`` —, ``template``, ``concurrency``,
            ``timeout``, ``max_retries``, …), validated here.
        max_unjudged: allowed fraction of unjudged samples (default 0: any unjudged sample
            fails the task with :class:`~gpassk_oc.core.judging.grading.UnjudgedError`). Allowed
            unjudged samples are excluded, never scored as wrong.
        cache_dir: judgement cache directory (absolute, or relative to the directory the
            CLI runs in); default ``{work_dir}/.gpassk_judge_cache``.
        mg_mode: ``'documented'`` (paper/OpenCompass, default) or ``'integral'``.
        progress: tqdm bar while grading (in the eval task log).
        rule_timeout: per-call math-verify deadline in seconds.
        reasoning: ``'auto'`` (default): the model thinks if any reply of the evaluation
            closes a think tag, and then a reply without the closing tag is truncated —
            scored wrong, never judged; if none does, replies are read whole. ``True`` /
            ``False`` force either reading. Replies are split at their last closing tag
            whatever this says; ``run.reasoning`` of the results records the rule applied
            and why (:func:`gpassk_oc.core.answers.reasoning.reading_rule`).
        think_tags: the (opening, closing) thinking markers.
        pred_postprocessor: OpenCompass postprocessor applied before extraction; leave
            it unset: extraction of ``\\boxed{}`` answers is done by the grader.
        run_record: the run's settings as :class:`~gpassk_oc.core.runs.run_record.RunRecord`
            fields (plain dict; ``gpassk-oc dump`` writes it); unset: read from the config
            OpenCompass dumped into the work dir (see :mod:`gpassk_oc.evaluator_record`).
        length_truncation: count replies whose length reaches the run's ``max_out_len`` as
            truncated in ``health``; None (default): when max_out_len is known.
    """

    def __init__(
        self,
        k: int | list[int] | None = None,
        thresholds: Sequence[Any] | None = DEFAULT_THRESHOLDS,
        check: CheckMode | str | None = None,
        judge: Mapping[str, Any] | None = None,
        max_unjudged: int | float = 0.0,
        cache_dir: str | None = None,
        mg_mode: str = "documented",
        progress: bool = True,
        rule_timeout: float = 5.0,
        reasoning: bool | str = "auto",
        think_tags: Sequence[str] = ("<think>", "</think>"),
        pred_postprocessor: dict[str, Any] | None = None,
        run_record: Mapping[str, Any] | None = None,
        length_truncation: bool | None = None,
    ) -> None:
        super().__init__(pred_postprocessor=pred_postprocessor)
        self.reasoning = check_reasoning_setting(reasoning, "GPassKEvaluator.reasoning")
        self.think_tags = ThinkTags.coerce(think_tags, "GPassKEvaluator.think_tags")
        if check is None:  # configgen writes judge=dict(...) without a check: turn it on
            check = CheckMode.CASCADE if judge is not None else CheckMode.RULES
        check = CheckMode.parse(check, "check")
        if check != CheckMode.RULES and judge is None:
            raise ValueError(
                f"check={check!r} needs a judge: GPassKEvaluator(judge=dict("
                "urls=['http://host:port/v1'], model='judge-model-name'))"
            )
        self.judge_config = validate_judge(judge) if judge is not None else None
        # the run spec of the kwargs, parsed once; evaluate() fixes its n (and, without k
        # here, takes the dataset config's k)
        try:
            taus = DEFAULT_THRESHOLDS if thresholds is None else thresholds
            self.thresholds = parse_thresholds(taus, "thresholds")
            self.spec = None if k is None else RunSpec(parse_ks(k, "k"), self.thresholds)
        except RunSpecError as exc:
            raise ValueError(str(exc)) from None
        _check_settings(max_unjudged, cache_dir, mg_mode, rule_timeout, length_truncation)
        self.run_record = None if run_record is None else check_run_record(run_record)
        self.length_truncation = length_truncation
        self.check = check
        self.judge = judge
        self.max_unjudged = float(max_unjudged)
        self.cache_dir = cache_dir
        self.mg_mode = mg_mode
        self.progress = bool(progress)
        self.rule_timeout = float(rule_timeout)

    # ----------------------------------------------------------------- grading
    def _cache_location(self) -> tuple[str | None, str | None]:
        """(cache dir, task id). Outside an OpenCompass eval task (no ``_out_dir``) and
        without ``cache_dir`` the judgements are kept in memory only."""
        out_dir = getattr(self, "_out_dir", None)
        task_id = None
        default = None
        if out_dir:
            default, task_id = default_cache_location(out_dir)
        if self.cache_dir is not None:
            return os.path.abspath(self.cache_dir), task_id
        return (str(default) if default is not None else None), task_id

    def _policy(
        self,
        check: CheckMode | None = None,
        progress: bool | None = None,
        reasoning: bool = False,
    ) -> GradingPolicy:
        check = check or self.check
        rules = check == CheckMode.RULES
        cache_dir, task_id = self._cache_location() if not rules else (None, None)
        return GradingPolicy(
            check=check,
            judge=self.judge_config if not rules else None,
            cache_dir=cache_dir,
            max_unjudged=self.max_unjudged,
            task_id=task_id,
            progress=self.progress if progress is None else progress,
            rule_timeout=self.rule_timeout,
            reasoning=reasoning,
            think_tags=self.think_tags,
        )

    def _reading(self, replies: Sequence[str]) -> ReadingRule:
        """The reading rule of this evaluation's *replies* (detected under ``'auto'``)."""
        rule = reading_rule(replies, self.reasoning, self.think_tags)
        logger.info(f"gpassk_oc: replies read as {rule.applied!r}: {rule.why}")
        return rule

    def _grade(self, items: list[dict[str, Any]], reasoning: bool = False) -> GradeResult:
        """Grade every response of every item in ONE :func:`grade` call, so identical
        (question, gold, answer) pairs across replicas are checked/judged once;
        *reasoning* is the evaluation's reading rule (:meth:`_reading`).

        Raises:
            UnjudgedError: more than ``max_unjudged`` of the samples could not be judged;
                the eval task fails with its message (the cache keeps every label got).
        """
        policy = self._policy(reasoning=reasoning)
        try:
            return grade(items, policy)
        except UnjudgedError as exc:
            # the exception's own message says what to do; name the task it belongs to
            # (leading newline: the progress bar leaves its line open in the task log)
            logger.error(
                f"\ngpassk_oc: GPassKEvaluator({policy.task_id or 'evaluation'}) failed: {exc}"
            )
            raise

    # ----------------------------------------------------------------- OpenCompass API
    def _run_spec(self, k: int | list[int], n: int) -> RunSpec:
        """The kwargs' spec (else the dataset's k) at the dataset's n, checked once."""
        try:
            spec = self.spec or RunSpec(parse_ks(k, "dataset k"), self.thresholds)
            return spec.at_n(n, "dataset n")
        except RunSpecError as exc:
            raise ValueError(str(exc)) from None

    def _questions(
        self, test_set: Any, predictions: list[Any], n: int, score_kwargs: dict[str, Any]
    ) -> list[Question]:
        """Replica-0 rows of *test_set* with each question's n predictions (grouped by
        position, checked against ``question_id``/``idx``), each with the server's facts
        where the model recorded them."""
        columns = set(test_set.column_names)
        size = len(test_set) // n if n else 0
        if "question_id" in columns:
            ids = [str(v) for v in test_set["question_id"]]
        elif "idx" in columns:  # a foreign dataset: BaseDataset's per-replica row index
            ids = [str(v) for v in test_set["idx"]]
        else:
            ids = None
        grouped = group_replicas(predictions, n, ids)
        # the server's word on each reply (finish reason, token counts), by (prompt, reply)
        facts = reply_facts_of(getattr(self, "_out_dir", None), score_kwargs, n, ids)
        first = test_set.select(range(size))

        def column(name: str, default: Any) -> list[Any]:
            return list(first[name]) if name in columns else [default] * size

        golds = column("answer", None)
        references = score_kwargs.get("references")
        if any(g is None for g in golds) and references is not None:
            golds = list(references[:size])
        fields = zip(
            ids[:size] if ids else [str(i) for i in range(size)],
            column("split", "all"),
            column("language", "unknown"),
            column("question_type", ""),
            column("question", ""),
            golds,
        )
        keys = ("question_id", "split", "language", "question_type", "question", "answer")
        no_facts: list[list[ReplyFacts | None]] = [[None] * n for _ in range(size)]
        return [
            Question(
                dict(zip(keys, values)),
                [
                    Reply(p if isinstance(p, str) else str(p or ""), f)
                    for p, f in zip(preds, row_facts)
                ],
            )
            for values, preds, row_facts in zip(fields, grouped, facts or no_facts)
        ]

    def evaluate(
        self, k: int | list[int], n: int, original_dataset: Any, **score_kwargs: Any
    ) -> dict[str, Any]:
        """Called once by OpenCompass's eval task with all q·n predictions."""
        predictions = list(score_kwargs["predictions"])
        test_set = score_kwargs.get("test_set")
        if test_set is None:
            test_set = original_dataset
        if len(predictions) != len(test_set):
            raise ValueError(f"{len(predictions)} predictions for {len(test_set)} rows")
        spec = self._run_spec(k, n)
        n = int(n)
        if self.pred_postprocessor:
            predictions = self.pred_postprocess(predictions)
        questions = self._questions(test_set, predictions, n, score_kwargs)
        # one reading rule for the whole evaluation; reasoning=True with no closing tag
        # anywhere zeros the run: say so, loudly ('auto' never applies it then)
        replies = [r.text for q in questions for r in q.replies]
        rule = self._reading(replies)
        forced = self.reasoning is True
        if warn := no_closing_tag_warning(replies, reasoning=forced, tags=self.think_tags):
            logger.warning(warn)
        judge = None
        if self.check != CheckMode.RULES and self.judge_config is not None:  # always both
            judge = judge_identity(self.judge_config)
        out_dir = getattr(self, "_out_dir", None)
        record = resolve_record(self.run_record, out_dir, check=str(self.check), judge=judge)
        how = Grading(
            policy=self._policy(reasoning=rule.reasoning),
            rule=rule,
            judge=judge,
            mg_mode=self.mg_mode,
            count_tokens=token_counter(record.tokenizer_path),
            length_truncation=self.length_truncation,
            grader=lambda items, _policy: self._grade(items, rule.reasoning),
        )
        return score_run(RunSamples(spec, questions, record), how).results

    def score(
        self,
        predictions: list[Any],
        references: list[Any],
        test_set: Any = None,
        origin_prompt: Any = None,
    ) -> dict[str, Any]:
        """Per-sample rule check (usable as a CascadeEvaluator rule evaluator).

        *origin_prompt* is not used here: naming it makes OpenCompass's eval task hand the
        stored prompts to :meth:`evaluate`, which finds each reply's server facts by them.

        Returns ``accuracy`` in percent and ``details`` with ``pred`` (extracted answer),
        ``answer`` (gold) and ``correct`` per sample. Always rules: OpenCompass's own
        cascade calls its LLM judge on what this marks wrong.
        """
        if len(predictions) != len(references):
            return {"error": "predictions and references have different length"}
        golds = [str(r) for r in references]
        questions = (
            list(test_set["question"])
            if test_set is not None and "question" in test_set.column_names
            else [""] * len(golds)
        )
        items = [
            {
                "question": str(q),
                "gold": g,
                "language": "",
                "responses": [p if isinstance(p, str) else str(p or "")],
            }
            for q, g, p in zip(questions, golds, predictions)
        ]
        replies = [str(item["responses"][0]) for item in items]
        rule = reading_rule(replies, self.reasoning, self.think_tags)
        policy = self._policy(check=CheckMode.RULES, progress=False, reasoning=rule.reasoning)
        graded = grade(items, policy)
        details = [
            {"pred": e[0], "answer": g, "correct": bool(v[0])}
            for e, g, v in zip(graded.extracted, golds, graded.correct)
        ]
        accuracy = 100.0 * sum(bool(v[0]) for v in graded.correct) / max(len(details), 1)
        return {ACCURACY: accuracy, "details": details}


__getattr__ = missing_name_hook(__name__, __all__)
