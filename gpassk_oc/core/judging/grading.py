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
    result.found       # list[list[str]]          'boxed' | 'statement' | 'fallback' | 'none'
    result.counts      # see below

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
    An empty response is wrong without a judge call in every mode (``no_answer``).

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
    ``found_statement``, ``found_fallback``, ``found_none`` how answers were found.

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
from typing import Any, Literal

from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.extraction import extract_answer
from gpassk_oc.core.answers.mv_pool import MathVerifyPool, default_pool
from gpassk_oc.core.answers.rules import Outcome, fast_check
from gpassk_oc.core.judging.judge import JudgeClient, JudgeConfig
from gpassk_oc.core.judging.judge_cache import JudgeCache, judgement_key

Check = Literal["rules", "judge", "cascade"]
COUNT_KEYS = (
    "samples",
    "rule_decided",
    "no_answer",
    "rule_undecided",
    "cache_hits",
    "judged_samples",
    "unjudged",
    "unique_pairs",
    "cache_hit_pairs",
    "judged",
    "unjudged_pairs",
    "judge_calls",
    "rule_checks",
    "rule_mv_calls",
    "rule_timeouts",
    "found_boxed",
    "found_statement",
    "found_fallback",
    "found_none",
)


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
    """

    check: Check = "cascade"
    judge: JudgeConfig | None = None
    cache_dir: str | None = None
    max_unjudged: float = 0.0
    task_id: str | None = None
    progress: bool = True
    rule_workers: int | None = None
    rule_timeout: float = 5.0

    def __post_init__(self) -> None:
        if self.check not in ("rules", "judge", "cascade"):
            raise ValueError(
                f"GradingPolicy.check: {self.check!r} is not 'rules', 'judge' or 'cascade'"
            )
        if isinstance(self.judge, Mapping):
            self.judge = JudgeConfig(**self.judge)
        if self.check != "rules" and self.judge is None:
            raise ValueError(f"GradingPolicy.check={self.check!r} needs a judge=JudgeConfig(...)")
        if not 0.0 <= float(self.max_unjudged) <= 1.0:
            raise ValueError("GradingPolicy.max_unjudged is a fraction in [0, 1]")


@dataclass
class GradeResult:
    """Per-question, per-sample outcome of :func:`grade`.

    ``source`` says who decided each sample: 'rule', 'rule_undecided' (rules mode: scored
    wrong, no rule decided), 'no_answer', 'cache', 'judge' or 'unjudged'; ``found`` how its answer was extracted: 'boxed', 'statement', 'fallback'
    or 'none' (:mod:`.extraction`).
    """

    extracted: list[list[str | None]]
    correct: list[list[bool | None]]
    source: list[list[str]]
    counts: dict[str, int]
    found: list[list[str]] | None = None
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


def _bar(total: int, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        disable=not enabled,
        desc="grading",
        unit="sample",
        dynamic_ncols=True,
        leave=False,
    )


@dataclass
class RuleDecisions:
    """What the rules settle on their own (see :func:`rule_decisions`)."""

    extracted: list[list[str | None]]
    found: list[list[str]]
    candidates: list[list[str | None]]
    decision: list[list[str]]  # 'correct' | 'wrong' | 'undecided' | 'no_answer' | 'judge'
    counts: dict[str, int]


def decide(
    check: Check, found: str, outcome: Outcome | None, has_answer: bool, has_response: bool = True
) -> str:
    """One sample's fate under *check*: 'correct', 'wrong', 'undecided', 'no_answer' or
    'judge'.

    Cascade: 'equal' → correct; 'wrong' → wrong only for a boxed or stated answer (a
    fallback guess may have read the wrong expression); everything else → judge, including
    a non-empty response without an answer. Rules mode: what cascade sends to the judge is
    'undecided' (scored wrong). Judge mode: every non-empty response → judge. An empty
    response is 'no_answer' in every mode.
    """
    if not has_response:
        return "no_answer"
    if check == "judge":
        return "judge"
    if has_answer and outcome == "equal":
        return "correct"
    if has_answer and outcome == "wrong" and found in ("boxed", "statement"):
        return "wrong"
    return "undecided" if check == "rules" else "judge"


def rule_decisions(
    items: Sequence[Mapping[str, Any]],
    check: Check = "cascade",
    rule_workers: int | None = None,
    rule_timeout: float = 5.0,
) -> RuleDecisions:
    """Extraction and the rule check of every sample, and what *check* does with it.

    Each distinct (canonical answer, canonical gold) is checked once; math-verify runs in
    the shared pool (``rule_workers=None``) or a private one. No judge is called: samples
    whose decision is 'judge' are the ones :func:`grade` sends to the judge.
    """
    counts = dict.fromkeys(COUNT_KEYS, 0)
    extracted: list[list[str | None]] = []
    found: list[list[str]] = []
    candidates: list[list[str | None]] = []
    canon: list[list[str]] = []
    canon_memo: dict[str, str] = {}
    gold_canon = [canonical_answer(str(item["gold"])) for item in items]

    for item in items:
        row = [extract_answer(r) for r in item["responses"]]
        extracted.append([e.answer for e in row])
        found.append([e.found for e in row])
        candidates.append([e.candidate for e in row])
        cs = []
        for e in row:
            if e.answer is None:
                cs.append("")
            else:
                c = canon_memo.get(e.answer)
                if c is None:
                    c = canon_memo[e.answer] = canonical_answer(e.answer)
                cs.append(c)
        canon.append(cs)
    counts["samples"] = sum(len(ex) for ex in extracted)
    for row in found:
        for how in row:
            counts["found_" + how] += 1

    # ---- rules: each distinct (answer, gold) once
    rule: dict[tuple[str, str], Outcome] = {}
    if check in ("rules", "cascade"):
        slow: list[tuple[str, str]] = []
        for qi, cs in enumerate(canon):
            g = gold_canon[qi]
            for c in cs:
                key = (c, g)
                if c and key not in rule:
                    quick = fast_check(c, g)
                    rule[key] = quick if quick is not None else "undecided"
                    if quick is None:
                        slow.append(key)
        counts["rule_checks"] = len(rule)
        counts["rule_mv_calls"] = len(slow)
        if slow:
            pool: MathVerifyPool = (
                default_pool()
                if rule_workers is None
                else MathVerifyPool(rule_workers, rule_timeout)
            )
            before = pool.timeouts
            try:
                outcomes = pool.check_many(slow, rule_timeout)
            finally:
                counts["rule_timeouts"] = pool.timeouts - before
                if rule_workers is not None:
                    pool.close()
            rule.update(zip(slow, outcomes))

    decision = [
        [
            decide(
                check,
                found[qi][si],
                rule.get((c, gold_canon[qi])),
                bool(c),
                candidates[qi][si] is not None,
            )
            for si, c in enumerate(cs)
        ]
        for qi, cs in enumerate(canon)
    ]
    return RuleDecisions(extracted, found, candidates, decision, counts)


def grade(items: Sequence[Mapping[str, Any]], policy: GradingPolicy) -> GradeResult:
    """Grade every response of every item; see the module docstring for the contract.

    Args:
        items: per question ``{"question": str, "gold": str, "language": 'en'|'cn',
            "responses": [str, ...]}``; repeated questions (replicas) share judgements.
        policy: a :class:`GradingPolicy`.

    Raises:
        UnjudgedError: more than ``policy.max_unjudged`` of the samples are unjudged.
    """
    ruled = rule_decisions(items, policy.check, policy.rule_workers, policy.rule_timeout)
    counts = ruled.counts
    extracted = ruled.extracted
    correct: list[list[bool | None]] = [[None] * len(row) for row in extracted]
    source: list[list[str]] = [[""] * len(row) for row in extracted]
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
            if fate == "no_answer":
                correct[qi][si], source[qi][si] = False, "no_answer"
                counts["no_answer"] += 1
                counts["rule_decided"] += 1
            elif fate in ("correct", "wrong"):
                correct[qi][si], source[qi][si] = fate == "correct", "rule"
                counts["rule_decided"] += 1
            elif fate == "undecided":
                correct[qi][si], source[qi][si] = False, "rule_undecided"
                counts["rule_undecided"] += 1
                counts["rule_decided"] += 1
            else:
                shown = str(ruled.candidates[qi][si])
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
        if pairs:
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
            _assign(entry, label, "cache", correct, source)
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
                            source[qi][si] = "unjudged"
                    else:
                        _assign(entry, outcome.label, "judge", correct, source)
                        counts["judged_samples"] += n
                        counts["judged"] += 1
                    counts["judge_calls"] = client.calls
                    bar.update(n)
                    postfix()
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        counts["judge_calls"] = client.calls
        client.close()


def _assign(entry, label: str, how: str, correct, source) -> None:
    for qi, si in entry["samples"]:
        correct[qi][si] = label == "yes"
        source[qi][si] = how
