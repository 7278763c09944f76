"""The one per-question scorer: verdicts → counts → metric values (pure core).

Every place that turns a question's verdicts into ``(c_q, n_q)`` or counts into G-Pass
values goes through here: the evaluator (:mod:`gpassk_oc.core.runs.run_scoring`) when it writes a results
file, the results reader (:mod:`gpassk_oc.core.runs.results_file`) when it checks a file's ``c``/``n`` fields, and
the report (:mod:`gpassk_oc.report.data.collect`) when it cross-checks the file's top-level
values against the recorded verdicts — so that cross-check compares the same code, not two.

A verdict is ``True`` (correct), ``False`` (wrong) or ``None`` (unjudged: excluded from
``n_q``, never counted as wrong). A metric at k is defined only for questions with
``n_q >= k``; means are summed as exact Fractions of the per-question doubles and rounded
once (an exact mean of 3/5 is 60.0, not 59.999999999999986).
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from gpassk_oc.core.metrics.gpass_exact import as_fraction, g_pass_table
from gpassk_oc.core.metrics.metric_keys import ACCURACY, PASS_AT_1, avg_key
from gpassk_oc.core.metrics.registry import METRICS

__all__ = [
    "QuestionCounts",
    "count_checked_verdicts",
    "count_verdicts",
    "excluded_questions",
    "metric_means",
    "only_verdicts",
    "question_values",
]

Verdict = bool | None


class QuestionCounts(NamedTuple):
    """One question's verdict counts: ``c`` correct of ``n`` judged, ``unjudged`` without
    a verdict."""

    c: int
    n: int
    unjudged: int


#: what a verdict may be: true, false or null
_VERDICT_TYPES = {bool, type(None)}


def only_verdicts(values: Sequence[object]) -> bool:
    """Whether every entry is true, false or null — checked by type, not per entry in
    Python (a grid's first read checks ~13,000 verdicts a file)."""
    return set(map(type, values)) <= _VERDICT_TYPES


def count_checked_verdicts(verdicts: list[Verdict]) -> QuestionCounts:
    """:func:`count_verdicts` of a list that :func:`only_verdicts` has passed: list.count's
    == is `is` here, in C (a grid's first read counts ~3 million verdicts three times)."""
    unjudged = verdicts.count(None)
    return QuestionCounts(verdicts.count(True), len(verdicts) - unjudged, unjudged)


def count_verdicts(verdicts: Sequence[Verdict]) -> QuestionCounts:
    """``(c, n, unjudged)`` of one question's verdicts (only ``True`` counts as correct)."""
    if type(verdicts) is list and only_verdicts(verdicts):  # a results file's
        return count_checked_verdicts(verdicts)
    c = sum(1 for v in verdicts if v is True)
    unjudged = sum(1 for v in verdicts if v is None)
    return QuestionCounts(c, len(verdicts) - unjudged, unjudged)


def excluded_questions(ks: Sequence[int], ns: Sequence[int]) -> dict[str, int]:
    """Per k (as a string key): questions with fewer than k judged samples (*ns*), left out
    of that k's G-Pass means."""
    return {str(k): sum(1 for nq in ns if nq < k) for k in ks}


def question_values(
    ns: Sequence[int],
    cs: Sequence[int],
    ks: Sequence[int],
    thresholds: Sequence[Any],
    mg_mode: str,
) -> dict[str, list[tuple[int, float]]]:
    """metric key → [(question position, value in [0, 1])] for every question with
    ``n_q >= k``; one exact table per distinct ``n_q`` (vectorised per distinct n)."""
    by_n: dict[int, list[int]] = {}
    for i, nq in enumerate(ns):
        if nq >= 1:
            by_n.setdefault(nq, []).append(i)
    values: dict[str, list[tuple[int, float]]] = {}
    for nq, members in sorted(by_n.items()):
        eligible = [k for k in ks if k <= nq]
        if not eligible:
            continue
        table = g_pass_table(
            nq, [cs[i] for i in members], ks=eligible, thresholds=thresholds, mg_mode=mg_mode
        )
        for key, column in table.per_question.items():
            values.setdefault(key, []).extend(zip(members, (float(v) for v in column)))
    return values


def _metric_keys(ks: Sequence[int], thresholds: Sequence[Any]) -> tuple[str, ...]:
    """:func:`_keys_of` of *ks* and *thresholds*, cached (τs keyed with their types: 0.5 and
    Fraction(1, 2) are equal keys to a cache, and need not spell alike)."""
    return _keys_of(tuple(ks), tuple((type(t), t) for t in thresholds))


@lru_cache(maxsize=256)
def _keys_of(ks: tuple[int, ...], typed: tuple[tuple[type, Any], ...]) -> tuple[str, ...]:
    """The keys of the exact table (the registry's metrics OpenCompass's evaluator writes:
    G-Pass@k at every τ, mG-Pass@k), per k in order; τ read as :func:`as_fraction` does.
    A metric that does not exist at a k (mG-Pass@1) has no key: written as 0 it would
    read as a score in OpenCompass's summary."""
    taus = [as_fraction(t) for t in dict.fromkeys(t for _, t in typed)]
    keys: list[str] = []
    for k in dict.fromkeys(ks):
        for m in METRICS:
            if m.opencompass and m.undefined_at(k) is None:
                keys += [m.key(k, t) for t in taus] if m.has_tau else [m.key(k)]
    return tuple(keys)


def metric_means(
    n: int,
    ns: Sequence[int],
    cs: Sequence[int],
    ks: Sequence[int],
    thresholds: Sequence[Any],
    mg_mode: str,
    weights: Sequence[int] | None = None,
) -> dict[str, float]:
    """Percent means of one question group from its counts (*ns* judged, *cs* correct).

    ``pass@1`` is the mean of ``c_q / n_q`` over questions with ``n_q >= 1``; with *n*
    (samples per question) 1 it is also ``accuracy``, otherwise ``avg@n`` and every
    ``G-Pass@k_τ``/``mG-Pass@k`` over the questions with ``n_q >= k`` (a key is absent
    when no question qualifies). Empty when no question has a judged sample.
    *weights*: question i stands for ``weights[i]`` questions of these counts (a group's
    distinct ``(n_q, c_q)`` pairs with their multiplicities give the same exact means at
    a fraction of the cost); None: 1 each.
    """
    w = [1] * len(ns) if weights is None else list(weights)
    # per distinct n_q: how many questions (weighted) have each c
    by_n: dict[int, Counter[int]] = {}
    for nq, c, m in zip(ns, cs, w):
        if nq:  # plain ints: the sums below are exact integers of any size
            by_n.setdefault(int(nq), Counter())[int(c)] += int(m)
    out: dict[str, float] = {}
    if not by_n:
        return out
    # the exact mean of c_q / n_q, rounded once: one fraction per distinct n_q
    total = sum((Fraction(sum(c * m for c, m in per_c.items()), nq) for nq, per_c in by_n.items()))
    pass1 = float(total * 100 / sum(sum(per_c.values()) for per_c in by_n.values()))
    if n == 1:
        out[ACCURACY] = pass1
    else:
        sums = _exact_sums(by_n, ks, tuple(thresholds), mg_mode)
        for key in _metric_keys(ks, thresholds):
            if key in sums:
                part, exponent, count = sums[key]
                # the exact mean (part / 2^exponent / count, in percent) rounded once:
                # int / int is correctly rounded, as float(Fraction) is
                out[key] = part * 100 / (count << exponent)
        out[avg_key(n)] = pass1
    out[PASS_AT_1] = pass1
    return out


def _exact_sums(
    by_n: dict[int, Counter[int]], ks: Sequence[int], thresholds: tuple[Any, ...], mg_mode: str
) -> dict[str, tuple[int, int, int]]:
    """Per metric key, the exact sum of the per-question doubles as ``(numerator, exponent,
    questions)`` (the sum is numerator / 2^exponent): each double is an integer over a power
    of two (:func:`_scaled_columns`), so sums stay plain integers, with no Fraction's gcd
    per term (that was most of a cold report's cross-check)."""
    sums: dict[str, tuple[int, int, int]] = {}
    for nq, per_c in sorted(by_n.items()):
        eligible = tuple(k for k in dict.fromkeys(ks) if k <= nq)
        if not eligible:
            continue
        counts, weights = list(per_c), list(per_c.values())
        weight = sum(weights)
        for key, (numerators, exponent) in _scaled_columns(
            nq, eligible, thresholds, mg_mode
        ).items():
            part = sum(map(operator.mul, map(numerators.__getitem__, counts), weights))
            if key in sums:  # another n_q's: over the larger power of two
                total, top, questions = sums[key]
                if exponent > top:
                    total, top = total << (exponent - top), exponent
                sums[key] = (total + (part << (top - exponent)), top, questions + weight)
            else:
                sums[key] = (part, exponent, weight)
    return sums


@lru_cache(maxsize=256)
def _scaled_columns(
    nq: int, ks: tuple[int, ...], thresholds: tuple[Any, ...], mg_mode: str
) -> dict[str, tuple[list[int], int]]:
    """Per metric key, the per-question double of every count c = 0..nq as an integer
    over one power of two, ``(numerators, exponent)``: a question group's exact sum is then
    one integer dot product with its counts of c (the same exact sums as adding the doubles
    as Fractions, which was most of a cold report's cross-check). Cached: every group and
    every file of a run share the n's tables."""
    table = g_pass_table(nq, range(nq + 1), ks=ks, thresholds=thresholds, mg_mode=mg_mode)
    out = {}
    for key, column in table.per_question.items():
        ratios = [float(v).as_integer_ratio() for v in column]
        # a double is p / 2^e (q = 2^e): over the largest e, the numerator is p << (top − e)
        top = max(q.bit_length() - 1 for _, q in ratios)
        out[key] = ([p << (top - (q.bit_length() - 1)) for p, q in ratios], top)
    return out
