"""Grading cascade: extraction → deduplicated rule check → cached, deduplicated LLM judge.

Usage (what the OpenCompass evaluator calls)::

    from gpassk_oc.core.judging.grading import GradingPolicy, grade
    from gpassk_oc.core.judging.judge import JudgeConfig

    policy = GradingPolicy(
        check="cascade",                       # 'rules' | 'judge' | 'cascade'
        judge=JudgeConfig(urls=["http://judge-1:23333/v1", "http://judge-2:23333/v1"],
                          model="Qwen2.5-72B-Instruct", api_key_env="OPENAI_API_KEY",
                          prompt="auto", concurrency=8, timeout=60, max_retries=5),
        cache_dir="outputs/<work_dir>/judge_cache",   # shared by all tasks / reruns
        max_unjudged=0.0, task_id="model-x/livemath-k16-n48", progress=True)
    items = [{"question": q, "gold": a, "language": "en", "responses": [r1, ..., r48]}, ...]
    result = grade(items, policy)
    result.extracted   # list[list[str | None]]   final answer per question, per sample
    result.correct     # list[list[bool | None]]  None = unjudged (never silently False)
    result.found       # list[list[str]]   'boxed' | 'statement' | 'fallback' | 'none' | 'truncated'
    result.counts      # see below

Reasoning traces
    Each distinct reply is split at its last closing think tag (:mod:`.reasoning`;
    ``policy.think_tags``): only the answer part is read. One reading rule holds for the
    whole call, as in the evaluator: with ``policy.reasoning='auto'`` (the default) the
    model thinks if any reply given closes a think tag, and then a reply without the
    closing tag is a thought cut short; ``True``/``False`` force either rule
    (``result.reading`` says which applied and why). A thought that never closed (an
    unclosed opening tag; or, under the thinking rule, no closing tag) is
    ``found='truncated'``: no answer, scored wrong as ``no_answer``, never judged.

Checks
    Extraction (:mod:`.extraction`) finds each sample's answer and records how
    (``result.found``: 'boxed', 'statement', 'fallback', 'none'); the rules
    (:mod:`.rules`) give 'equal', 'wrong' (confidently wrong) or 'undecided'.
    ``'cascade'``: ``'equal'`` → correct; ``'wrong'`` for a boxed or stated answer → wrong;
    everything a competent judge could still accept goes to the judge: undecided pairs,
    fallback guesses that do not match, and non-empty responses where no answer was found
    (a prose answer has no formula to pick). The judge is shown the answer, or for a
    fallback guess and a response without an answer the response's last paragraph
    (:attr:`.extraction.Extraction.candidate`).
    ``'rules'``: the same extraction and rules; a sample is correct iff the rules say
    ``'equal'``. What cascade would send to the judge is scored wrong and marked
    ``rule_undecided`` (so reports can show how far those verdicts could move a metric).
    ``'judge'``: every non-empty response is decided by the judge (deduplicated, cached).
    An empty or truncated response is wrong without a judge call in every mode
    (``no_answer``). The judge sees at most the last
    :data:`~gpassk_oc.core.answers.reasoning.JUDGE_INPUT_LIMIT` characters of a candidate,
    with a line saying how many were cut.

Deduplication
    Rule checks run once per distinct (canonical gold, canonical answer). Judge pairs are
    (question, gold, canonical answer): one judgement serves every sample, replica and
    config with that pair, and through the persistent cache (:mod:`.judge_cache`, keyed by a
    content hash of judge model, prompt version, question, gold, answer) every rerun.

Accounting (``result.counts``)
    Per *sample* — these partition ``samples``:
    ``rule_decided`` (includes ``no_answer`` and, rules mode, ``rule_undecided``),
    ``cache_hits``, ``judged_samples`` (decided by a fresh judge label in this run),
    ``unjudged``.
    Per *pair*: ``unique_pairs`` (distinct pairs that needed the judge), ``cache_hit_pairs``,
    ``judged`` (fresh judge requests that produced a label), ``unjudged_pairs``;
    ``judge_calls`` counts HTTP attempts (retries included); ``rule_checks`` distinct
    (gold, answer) pairs checked by the rules, ``rule_mv_calls`` those that needed math-verify,
    ``rule_timeouts`` math-verify calls that hit the deadline; ``found_boxed``,
    ``found_statement``, ``found_fallback``, ``found_none``, ``found_truncated`` how answers
    were found; ``judge_input_chars`` / ``judge_input_max`` the total / largest reply
    excerpt (characters) shown to the judge over the samples it decides (cache hits and
    unjudged included: per sample, divide by ``cache_hits + judged_samples + unjudged``).

Failures
    A pair whose judge requests all failed is *unjudged*: its samples are ``None`` in
    ``correct``, never False. If ``unjudged / samples > max_unjudged``, :class:`UnjudgedError`
    is raised after every label that could be obtained has been committed to the cache, so
    rerunning the same command resumes where it stopped.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.reasoning import (
    DEFAULT_THINK_TAGS,
    ReadingRule,
    ThinkTags,
    check_reasoning_setting,
    judge_excerpt,
    reading_rule,
)
from gpassk_oc.core.judging.decisions import RuleDecisions as RuleDecisions
from gpassk_oc.core.judging.decisions import decide as decide
from gpassk_oc.core.judging.decisions import rule_decisions
from gpassk_oc.core.judging.judge import JudgeClient, JudgeConfig
from gpassk_oc.core.judging.judge_cache import JudgeCache, judgement_key
from gpassk_oc.core.vocabulary import COUNT_KEYS as COUNT_KEYS  # re-exported
from gpassk_oc.core.vocabulary import CheckMode, Decision, Found, Source


@dataclass
class GradingPolicy:
    """How samples are graded (see the module docstring).

    Attributes:
        check: 'rules' | 'judge' | 'cascade'.
        judge: judge settings; required for 'judge' and 'cascade'.
        cache_dir: directory of the persistent judgement cache (the evaluator passes one under
            the work dir); None keeps judgements in memory for this call only.
        max_unjudged: allowed fraction of unjudged samples before :class:`UnjudgedError`.
        task_id: recorded with every cached judgement (provenance only).
        progress: show a tqdm progress bar.
        rule_workers: math-verify worker processes; None uses the shared default pool
            (min(2, CPUs) workers).
        rule_timeout: per-call math-verify deadline in seconds (a timeout is 'undecided').
        reasoning: ``'auto'`` (default): the model thinks if any reply of the call closes
            a think tag, and then a reply without one is truncated; ``True``/``False``
            force either reading (see "Reasoning traces" in the module docstring).
        think_tags: the thinking markers, a :class:`ThinkTags` or an (open, close) pair.
    """

    check: CheckMode = CheckMode.CASCADE
    judge: JudgeConfig | None = None
    cache_dir: str | None = None
    max_unjudged: float = 0.0
    task_id: str | None = None
    progress: bool = True
    rule_workers: int | None = None
    rule_timeout: float = 5.0
    reasoning: bool | str = "auto"
    think_tags: ThinkTags = DEFAULT_THINK_TAGS

    def __post_init__(self) -> None:
        check_reasoning_setting(self.reasoning, "GradingPolicy.reasoning")
        self.think_tags = ThinkTags.coerce(self.think_tags, "GradingPolicy.think_tags")
        self.check = CheckMode.parse(self.check, "GradingPolicy.check")
        if isinstance(self.judge, Mapping):
            self.judge = JudgeConfig(**self.judge)
        if self.check != CheckMode.RULES and self.judge is None:
            raise ValueError(f"GradingPolicy.check={self.check!r} needs a judge=JudgeConfig(...)")
        if not 0.0 <= float(self.max_unjudged) <= 1.0:
            raise ValueError("GradingPolicy.max_unjudged is a fraction in [0, 1]")


@dataclass
class GradeResult:
    """Per-question, per-sample outcome of :func:`grade`.

    ``source`` says who decided each sample: 'rule', 'rule_undecided' (rules mode: scored
    wrong, no rule decided), 'no_answer' (empty or truncated), 'cache', 'judge' or
    'unjudged'; ``found`` how its answer was extracted: 'boxed', 'statement', 'fallback',
    'none' or 'truncated' (:mod:`.extraction`); ``reading`` the reading rule of the call.
    """

    extracted: list[list[str | None]]
    correct: list[list[bool | None]]
    source: list[list[Source | str]]
    counts: dict[str, int]
    found: list[list[Found]] | None = None
    errors: Counter = field(default_factory=Counter)
    cache_path: str = ""
    reading: ReadingRule | None = None


class UnjudgedError(RuntimeError):
    """Too many samples could not be judged; ``result`` holds the partial grading."""

    def __init__(self, result: GradeResult, max_unjudged: float) -> None:
        counts = result.counts
        errors = ", ".join(f"{kind} ×{n}" for kind, n in result.errors.most_common(8)) or "none"
        message = (
            f"{counts['unjudged']} of {counts['samples']} samples "
            f"({counts['unjudged'] / max(counts['samples'], 1):.1%}) are unjudged "
            f"({counts['unjudged_pairs']} distinct answers; allowed: {max_unjudged:.1%}). "
            f"Judge endpoint errors seen: {errors}. "
            f"Judgements cache: {result.cache_path}. "
            "To resume, fix the judge endpoint and rerun the same command; judged pairs are "
            "cached and will not be sent again."
        )
        super().__init__(message)
        self.result = result
        self.unjudged = counts["unjudged"]
        self.samples = counts["samples"]
        self.errors = result.errors
        self.cache_path = result.cache_path


class _NoBar:
    """The bar when progress is off: tqdm, even disabled, makes a multiprocessing lock (a
    semaphore a worker process that is ended would leave behind)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, **values: Any) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(total: int, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        disable=not enabled,
        desc="grading",
        unit="sample",
        dynamic_ncols=True,
        leave=False,
    )


def policy_reading(items: Sequence[Mapping[str, Any]], policy: GradingPolicy) -> ReadingRule:
    """The one reading rule of a :func:`grade` call: ``policy.reasoning`` applied to every
    reply of every item (the evaluator's rule, :func:`.reasoning.reading_rule`)."""
    replies = (reply for item in items for reply in item["responses"])
    return reading_rule(replies, policy.reasoning, policy.think_tags)


def grade(items: Sequence[Mapping[str, Any]], policy: GradingPolicy) -> GradeResult:
    """Grade every response of every item; see the module docstring for the contract.

    Args:
        items: per question ``{"question": str, "gold": str, "language": 'en'|'cn',
            "responses": [str, ...]}``; repeated questions (replicas) share judgements.
        policy: a :class:`GradingPolicy`.

    Raises:
        UnjudgedError: more than ``policy.max_unjudged`` of the samples are unjudged.
    """
    reading = policy_reading(items, policy)
    ruled = rule_decisions(
        items,
        policy.check,
        policy.rule_workers,
        policy.rule_timeout,
        reading.reasoning,
        policy.think_tags,
    )
    counts = ruled.counts
    correct: list[list[bool | None]] = [[None] * len(row) for row in ruled.extracted]
    source: list[list[Source | str]] = [[""] * len(row) for row in ruled.extracted]
    pairs = _settle_by_rules(items, ruled, counts, correct, source)
    progress = _Progress(counts, policy.progress)
    progress.advance(counts["rule_decided"])

    cache = JudgeCache(policy.cache_dir, policy.task_id) if pairs else None
    errors: Counter = Counter()
    counts["unique_pairs"] = len(pairs)
    try:
        if cache is not None:  # made exactly when there are pairs to judge
            _judge_pairs(pairs, policy, cache, (counts, correct, source, errors), progress)
    finally:
        progress.close()  # the final counts are always shown once
        if cache is not None:
            cache.close()

    result = GradeResult(
        extracted=ruled.extracted,
        correct=correct,
        source=source,
        counts=counts,
        found=ruled.found,
        errors=errors,
        cache_path=cache.location
        if cache is not None
        else str(policy.cache_dir or "(in memory only: no cache_dir)"),
        reading=reading,
    )
    if counts["samples"] and counts["unjudged"] / counts["samples"] > policy.max_unjudged:
        raise UnjudgedError(result, policy.max_unjudged)
    return result


class _Progress:
    """The tqdm bar of one :func:`grade` call, its postfix showing the running counts."""

    def __init__(self, counts: dict[str, int], enabled: bool) -> None:
        self.counts = counts
        self.bar = _bar(counts["samples"], enabled)

    def advance(self, samples: int = 0, refresh: bool = False) -> None:
        if samples:
            self.bar.update(samples)
        c = self.counts
        self.bar.set_postfix(
            rule=c["rule_decided"],
            cache=c["cache_hits"],
            judged=c["judged"],
            unjudged=c["unjudged"],
            refresh=refresh,
        )

    def close(self) -> None:
        self.advance(refresh=True)
        self.bar.close()


#: a judge pair (question, gold, canonical shown answer) -> its answers, samples, language
Pairs = dict[tuple[str, str, str], dict[str, Any]]


def _settle_by_rules(
    items: Sequence[Mapping[str, Any]],
    ruled: RuleDecisions,
    counts: dict[str, int],
    correct: list[list[bool | None]],
    source: list[list[Source | str]],
) -> Pairs:
    """Record every sample the rules settle; collect the rest as judge pairs (what the
    judge sees: the candidate's excerpt, deduplicated by its canonical form)."""
    pairs: Pairs = {}
    shown_canon: dict[str, str] = {}  # candidates repeat across samples and replicas
    for qi, item in enumerate(items):
        for si, fate in enumerate(ruled.decision[qi]):
            if fate == Decision.NO_ANSWER:
                correct[qi][si], source[qi][si] = False, Source.NO_ANSWER
                counts["no_answer"] += 1
                counts["rule_decided"] += 1
            elif fate in (Decision.CORRECT, Decision.WRONG):
                correct[qi][si], source[qi][si] = fate == Decision.CORRECT, Source.RULE
                counts["rule_decided"] += 1
            elif fate == Decision.UNDECIDED:
                correct[qi][si], source[qi][si] = False, Source.RULE_UNDECIDED
                counts["rule_undecided"] += 1
                counts["rule_decided"] += 1
            else:
                shown = judge_excerpt(str(ruled.candidates[qi][si]))
                counts["judge_input_chars"] += len(shown)
                counts["judge_input_max"] = max(counts["judge_input_max"], len(shown))
                canon = shown_canon.get(shown)
                if canon is None:
                    canon = shown_canon[shown] = canonical_answer(shown)
                pkey = (str(item["question"]), str(item["gold"]), canon)
                entry = pairs.setdefault(
                    pkey, {"answers": set(), "samples": [], "language": item.get("language")}
                )
                entry["answers"].add(shown)
                entry["samples"].append((qi, si))
    return pairs


#: what the judge stage writes into: counts, per-sample verdicts and sources, error kinds
Outcome = tuple[dict[str, int], list[list[bool | None]], list[list[Source | str]], Counter]


def _judge_pairs(
    pairs: Pairs, policy: GradingPolicy, cache: JudgeCache, out: Outcome, progress: _Progress
) -> None:
    """Settle each pair from the cache, else by a (concurrent) judge request."""
    cfg = policy.judge
    assert cfg is not None
    todo = _from_cache(pairs, cfg, cache, out, progress)
    if todo:
        _ask_judge(todo, cfg, cache, out, progress)


def _from_cache(
    pairs: Pairs, cfg: JudgeConfig, cache: JudgeCache, out: Outcome, progress: _Progress
) -> list[tuple[str, str, str, str, str, dict[str, Any]]]:
    """Assign every cached label; the pairs still to ask, with their cache keys."""
    counts, correct, source, _ = out
    cache.refresh()  # pick up labels committed by concurrent tasks since we opened it
    todo = []
    for (question, gold, c), entry in pairs.items():
        _, version = cfg.prompt_for(entry["language"])
        key = judgement_key(cfg.model, version, question, gold, c)
        label = cache.get(key)
        if label is not None:
            _assign(entry, label, Source.CACHE, correct, source)
            counts["cache_hits"] += len(entry["samples"])
            counts["cache_hit_pairs"] += 1
            progress.bar.update(len(entry["samples"]))
        else:
            # a deterministic representative of the identical answer forms
            todo.append((key, question, gold, c, min(entry["answers"]), entry))
    progress.advance()
    return todo


def _ask_judge(
    todo: list[tuple[str, str, str, str, str, dict[str, Any]]],
    cfg: JudgeConfig,
    cache: JudgeCache,
    out: Outcome,
    progress: _Progress,
) -> None:
    """Judge the pairs on ``cfg.concurrency`` threads; each label is cached at once."""
    counts, correct, source, errors = out
    client = JudgeClient(cfg)
    lock = threading.Lock()

    def run(task):
        key, question, gold, c, answer, entry = task
        outcome = client.judge(question, gold, answer, entry["language"])
        if outcome.label is not None:  # commit before anything else can go wrong
            cache.put(key, outcome.label, model=cfg.model, question=question, gold=gold, answer=c)
        return entry, outcome

    ex = ThreadPoolExecutor(max_workers=cfg.concurrency, thread_name_prefix="judge")
    try:
        pending = {ex.submit(run, t) for t in todo}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                entry, outcome = fut.result()
                with lock:
                    errors.update(outcome.errors)
                    n = len(entry["samples"])
                    if outcome.label is None:
                        counts["unjudged"] += n
                        counts["unjudged_pairs"] += 1
                        for qi, si in entry["samples"]:
                            source[qi][si] = Source.UNJUDGED
                    else:
                        _assign(entry, outcome.label, Source.JUDGE, correct, source)
                        counts["judged_samples"] += n
                        counts["judged"] += 1
                    counts["judge_calls"] = client.calls
                    progress.advance(n)
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        counts["judge_calls"] = client.calls
        client.close()


def _assign(entry, label: str, how: Source, correct, source) -> None:
    for qi, si in entry["samples"]:
        correct[qi][si] = label == "yes"
        source[qi][si] = how
