"""The rule stage of grading: read every reply, check answers by rules, decide who settles
each sample (pure core; no judge is called here — :mod:`.grading` calls it).

Split from :mod:`.grading`, which re-exports everything here; the contract (decisions per
mode, deduplication, the meaning of every count in :data:`COUNT_KEYS`) is documented there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.checking import RuleConfig, check_pairs
from gpassk_oc.core.answers.extraction import Extraction, extract_reply
from gpassk_oc.core.answers.mv_pool import MathVerifyPool, default_pool
from gpassk_oc.core.answers.numeric import Outcome
from gpassk_oc.core.answers.reasoning import DEFAULT_THINK_TAGS, ThinkTags
from gpassk_oc.core.vocabulary import COUNT_KEYS, CheckMode, Decision, Found, found_key

__all__ = ["COUNT_KEYS", "Check", "RuleDecisions", "decide", "rule_decisions"]

Check = CheckMode  # the old name


@dataclass
class RuleDecisions:
    """What the rules settle on their own (see :func:`rule_decisions`)."""

    extracted: list[list[str | None]]
    found: list[list[Found]]
    candidates: list[list[str | None]]
    decision: list[list[Decision]]
    counts: dict[str, int]


def decide(
    check: CheckMode | str,
    found: Found | str,
    outcome: Outcome | None,
    has_answer: bool,
    has_response: bool = True,
) -> Decision:
    """One sample's fate under *check*: 'correct', 'wrong', 'undecided', 'no_answer' or
    'judge'.

    Cascade: 'equal' → correct; 'wrong' → wrong only for a boxed or stated answer (a
    fallback guess may have read the wrong expression); everything else → judge, including
    a non-empty response without an answer. Rules mode: what cascade sends to the judge is
    'undecided' (scored wrong). Judge mode: every non-empty response → judge. An empty
    response, and a truncated thought (nothing for the judge: *has_response* False), is
    'no_answer' in every mode.
    """
    if not has_response:
        return Decision.NO_ANSWER
    if check == CheckMode.JUDGE:
        return Decision.JUDGE
    if has_answer and outcome == "equal":
        return Decision.CORRECT
    if has_answer and outcome == "wrong" and found in (Found.BOXED, Found.STATEMENT):
        return Decision.WRONG
    return Decision.UNDECIDED if check == CheckMode.RULES else Decision.JUDGE


def rule_decisions(
    items: Sequence[Mapping[str, Any]],
    check: CheckMode | str = CheckMode.CASCADE,
    rule_workers: int | None = None,
    rule_timeout: float = 5.0,
    reasoning: bool = False,
    think_tags: ThinkTags = DEFAULT_THINK_TAGS,
) -> RuleDecisions:
    """Extraction and the rule check of every sample, and what *check* does with it.

    Each distinct reply is read once (:func:`~gpassk_oc.core.answers.extraction.extract_reply`
    with *reasoning* and *think_tags*), each distinct (canonical answer, canonical gold) is
    checked once; math-verify runs in
    the shared pool (``rule_workers=None``) or a private one. No judge is called: samples
    whose decision is 'judge' are the ones :func:`grade` sends to the judge.
    """
    check = CheckMode.parse(check, "rule_decisions check")
    counts = dict.fromkeys(COUNT_KEYS, 0)
    rows = _read_replies(items, reasoning, think_tags)
    extracted = [[e.answer for e in row] for row in rows]
    found = [[e.found for e in row] for row in rows]
    candidates = [[e.candidate for e in row] for row in rows]
    canon = _canonical_answers(extracted)
    gold_canon = [canonical_answer(str(item["gold"])) for item in items]
    counts["samples"] = sum(len(ex) for ex in extracted)
    for how, n in Counter(how for row in found for how in row).items():
        counts[found_key(how)] += n

    rule: dict[tuple[str, str], Outcome] = {}
    if check in (CheckMode.RULES, CheckMode.CASCADE):
        pairs = ((c, gold_canon[qi]) for qi, cs in enumerate(canon) for c in cs)
        rule = _check_rules(pairs, rule_workers, rule_timeout, counts)

    ruled_rows = zip(found, canon, candidates, gold_canon)
    return RuleDecisions(extracted, found, candidates, _decisions(check, rule, ruled_rows), counts)


def _read_replies(
    items: Sequence[Mapping[str, Any]], reasoning: bool, think_tags: ThinkTags
) -> list[list[Extraction]]:
    """Each item's replies read (answer part, extraction); a reply repeated across samples
    and replicas is read once."""
    read: dict[str, Extraction] = {}
    rows = []
    for item in items:
        row: list[Extraction] = []
        for reply in item["responses"]:
            e = read.get(reply)
            if e is None:
                e = read[reply] = extract_reply(reply, reasoning=reasoning, tags=think_tags)
            row.append(e)
        rows.append(row)
    return rows


def _canonical_answers(extracted: list[list[str | None]]) -> list[list[str]]:
    """The canonical form of every extracted answer ('' for none), each distinct once."""
    memo: dict[str, str] = {}
    out = []
    for row in extracted:
        cs = []
        for answer in row:
            if answer is None:
                cs.append("")
            else:
                c = memo.get(answer)
                if c is None:
                    c = memo[answer] = canonical_answer(answer)
                cs.append(c)
        out.append(cs)
    return out


def _check_rules(
    pairs: Iterable[tuple[str, str]],
    rule_workers: int | None,
    rule_timeout: float,
    counts: dict[str, int],
) -> dict[tuple[str, str], Outcome]:
    """The rules' outcome of each distinct (answer, gold) pair, through the one pipeline;
    math-verify in the shared pool (``rule_workers=None``) or a private one."""
    pool = default_pool() if rule_workers is None else MathVerifyPool(rule_workers, rule_timeout)
    try:  # a private pool starts its workers only if a pair needs math-verify
        checked = check_pairs(pairs, pool, RuleConfig(mv_timeout=rule_timeout))
    finally:
        if rule_workers is not None:
            pool.close()
    counts["rule_checks"] = checked.checks
    counts["rule_mv_calls"] = checked.mv_calls
    counts["rule_timeouts"] = checked.timeouts
    return checked.outcomes


def _decisions(
    check: CheckMode,
    rule: Mapping[tuple[str, str], Outcome],
    rows: Iterable[tuple[list[Found], list[str], list[str | None], str]],
) -> list[list[Decision]]:
    """:func:`decide` for every sample, once per distinct (how found, canonical answer,
    gold, has a response): samples repeat those many times over."""
    memo: dict[tuple[Found, str, str, bool], Decision] = {}
    out = []
    for found, canon, candidates, gold in rows:
        row = []
        for how, c, candidate in zip(found, canon, candidates):
            key = (how, c, gold, candidate is not None)
            fate = memo.get(key)
            if fate is None:
                fate = memo[key] = decide(check, how, rule.get((c, gold)), bool(c), key[3])
            row.append(fate)
        out.append(row)
    return out
