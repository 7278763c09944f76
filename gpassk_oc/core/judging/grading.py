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
    ``policy.think_tags``): only the answer part is read. A thought that never closed (an
    unclosed opening tag; or, with ``policy.reasoning=True``, no closing tag) is
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
    ThinkTags,
    check_reasoning_flag,
    judge_excerpt,
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
        reasoning: the model always thinks first: a reply without a closing think tag is
            truncated (see "Reasoning traces" in the module docstring).
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
    reasoning: bool = False
    think_tags: ThinkTags = DEFAULT_THINK_TAGS

    def __post_init__(self) -> None:
        check_reasoning_flag(self.reasoning, "GradingPolicy.reasoning")
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
    'none' or 'truncated' (:mod:`.extraction`).
    """

    extracted: list[list[str | None]]
    correct: list[list[bool | None]]
    source: list[list[Source | str]]
    counts: dict[str, int]
    found: list[list[Found]] | None = None
    errors: Counter = field(default_factory=Counter)
    cache_path: str = ""


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


def grade(items: Sequence[Mapping[str, Any]], policy: GradingPolicy) -> GradeResult:
    """Grade every response of every item; see the module docstring for the contract.

    Args:
        items: per question ``{"question": str, "gold": str, "language": 'en'|'cn',
            "responses": [str, ...]}``; repeated questions (replicas) share judgements.
        policy: a :class:`GradingPolicy`.

    Raises:
        UnjudgedError: more than ``policy.max_unjudged`` of the samples are unjudged.
    """
    ruled = rule_decisions(
        items,
        policy.check,
        policy.rule_workers,
        policy.rule_timeout,
        policy.reasoning,
        policy.think_tags,
    )
    counts = ruled.counts
    extracted = ruled.extracted
    correct: list[list[bool | None]] = [[None] * len(row) for row in extracted]
    source: list[list[Source | str]] = [[""] * len(row) for row in extracted]
    bar = _bar(counts["samples"], policy.progress)

    def postfix(refresh: bool = False) -> None:
        bar.set_postfix(
            rule=counts["rule_decided"],
            cache=counts["cache_hits"],
            judged=counts["judged"],
            unjudged=counts["unjudged"],
            refresh=refresh,
        )

    # ---- decide by rules; collect judge pairs (what the judge sees: the candidate)
    pairs: dict[tuple[str, str, str], dict[str, Any]] = {}
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
    bar.update(counts["rule_decided"])
    postfix()

    cache = JudgeCache(policy.cache_dir, policy.task_id) if pairs else None
    errors: Counter = Counter()
    counts["unique_pairs"] = len(pairs)
    try:
        if cache is not None:  # made exactly when there are pairs to judge
            _judge_pairs(pairs, policy, cache, counts, correct, source, errors, bar, postfix)
    finally:
        postfix(refresh=True)  # the final counts are always shown once
        bar.close()
        if cache is not None:
            cache.close()

    result = GradeResult(
        extracted=extracted,
        correct=correct,
        source=source,
        counts=counts,
        found=ruled.found,
        errors=errors,
        cache_path=cache.location
        if cache is not None
        else str(policy.cache_dir or "(in memory only: no cache_dir)"),
    )
    if counts["samples"] and counts["unjudged"] / counts["samples"] > policy.max_unjudged:
        raise UnjudgedError(result, policy.max_unjudged)
    return result


def _judge_pairs(
    pairs,
    policy: GradingPolicy,
    cache: JudgeCache,
    counts,
    correct,
    source,
    errors: Counter,
    bar,
    postfix,
) -> None:
    cfg = policy.judge
    assert cfg is not None
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
            bar.update(len(entry["samples"]))
        else:
            # a deterministic representative of the identical answer forms
            todo.append((key, question, gold, c, min(entry["answers"]), entry))
    postfix()
    if not todo:
        return

    client = JudgeClient(cfg)
    lock = threading.Lock()

    def run(task):
        key, question, gold, c, answer, entry = task
        outcome = client.judge(question, gold, answer, entry["language"])
        if outcome.label is not None:  # commit before anything else can go wrong
            cache.put(key, outcome.label, model=cfg.model, question=question, gold=gold, answer=c)
        return task, outcome

    ex = ThreadPoolExecutor(max_workers=cfg.concurrency, thread_name_prefix="judge")
    try:
        pending = {ex.submit(run, t) for t in todo}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                (_, _, _, _, _, entry), outcome = fut.result()
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
                    bar.update(n)
                    postfix()
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        counts["judge_calls"] = client.calls
        client.close()


def _assign(entry, label: str, how: Source, correct, source) -> None:
    for qi, si in entry["samples"]:
        correct[qi][si] = label == "yes"
        source[qi][si] = how
