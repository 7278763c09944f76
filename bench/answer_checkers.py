"""The answer checkers ``bench_answers_real.py`` compares, and the adversarial reading test.

* :func:`run_ours` — :func:`gpassk_oc.core.judging.grading.grade` in rules mode, the
  production path (extraction, deduplicated rules, the math-verify pool). Cascade needs no
  second pass: rules mode marks ``rule_undecided`` exactly the samples cascade sends to the
  judge, every other verdict is what cascade settles without one.
* :func:`run_default` — the same with the evaluator's default settings: rows grouped into
  evaluations (source and model), each read by the rule ``reasoning='auto'`` detects
  (:func:`gpassk_oc.core.answers.reasoning.reading_rule`).
* :func:`run_math_verify` — plain math-verify, ``verify(parse(gold), parse(text))``.
* :func:`run_opencompass` — OpenCompass's own rule path for LiveMathBench:
  ``LiveMathBenchEvaluator.judge`` built without a judge model, which extracts with
  ``math_postprocess_v2`` and compares with ``MATHAgentEvaluator(version='v2').is_equiv``
  (imported from the installed OpenCompass, in the bench only).
* :func:`adversarial_timing` — how long reading one hostile reply takes.

Judge input is counted in characters of the *model's reply* shown to a judge; the question,
the gold answer and the prompt template are the same for both sides and left out. Ours: what
grading shows the judge (:attr:`Extraction.candidate`: the extracted answer, or the last
paragraph when no answer was found, bounded as grading bounds it); OpenCompass's LLM-judge
configs for LiveMathBench (``GenericLLMEvaluator``) put the whole prediction into the prompt.
"""

from __future__ import annotations

import inspect
import math
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from answer_data import Row

from gpassk_oc.core.answers.mv_pool import default_pool
from gpassk_oc.core.answers.reasoning import ReadingRule, reading_rule
from gpassk_oc.core.judging.grading import GradingPolicy, grade, policy_reading, rule_decisions
from gpassk_oc.core.vocabulary import Decision, Source


@dataclass
class Verdicts:
    """One checker's verdict per row.

    ``settled`` is False where cascade mode would ask the judge (ours only); ``judge_chars``
    the reply characters a judge would be shown if every sample went to it, ``cascade_chars``
    those cascade mode sends (0 for a settled sample).
    """

    correct: list[bool]
    seconds: float
    settled: list[bool] = field(default_factory=list)
    judge_chars: list[int] = field(default_factory=list)
    cascade_chars: list[int] = field(default_factory=list)
    note: str = ""

    def __post_init__(self) -> None:
        n = len(self.correct)
        self.settled = self.settled or [True] * n
        self.judge_chars = self.judge_chars or [0] * n
        self.cascade_chars = self.cascade_chars or [0] * n


def policy_for(reasoning: bool) -> GradingPolicy:
    """Rules-mode policy; a reasoning set declares its model a reasoning model, the
    others read every reply whole (the bench's sets are labelled with that reading)."""
    return GradingPolicy(check="rules", progress=False, reasoning=reasoning)


def _items(rows: Sequence[Row]) -> list[dict]:
    return [
        {
            "question": r.question,
            "gold": r.gold,
            "language": "cn" if r.lang == "zh" else "en",
            "responses": [r.text],
        }
        for r in rows
    ]


def _read(items: list[dict], policy: GradingPolicy):
    """Extraction as grading does it, in judge mode (no rule or math-verify call): what the
    judge would be shown. Policy fields that ``rule_decisions`` also takes as parameters
    (e.g. reasoning settings) are passed through, so the count follows the policy."""
    params = inspect.signature(rule_decisions).parameters
    extra = {
        name: getattr(policy, name)
        for name in params
        if name not in ("items", "check") and hasattr(policy, name)
    }
    extra["reasoning"] = policy_reading(items, policy).reasoning  # the call's one rule
    return rule_decisions(items, "judge", **extra)


def _shown(candidate: str) -> str:
    """What grading puts into the judge prompt for *candidate*: a bounded excerpt where the
    grading has one (``judge_excerpt``), else the candidate whole."""
    try:
        from gpassk_oc.core.answers.reasoning import judge_excerpt
    except ImportError:
        return candidate
    return judge_excerpt(candidate)


def run_ours(rows: Sequence[Row], reasoning: bool) -> Verdicts:
    items = _items(rows)
    policy = policy_for(reasoning)
    # start the math-verify workers outside the timing
    default_pool().check_many([("1", "1"), ("2", "2")])
    t0 = time.perf_counter()
    res = grade(items, policy)
    seconds = time.perf_counter() - t0
    settled = [src[0] != Source.RULE_UNDECIDED for src in res.source]
    ruled = _read(items, policy)
    judge_chars = [
        len(_shown(str(cand[0]))) if fate[0] == Decision.JUDGE and cand[0] is not None else 0
        for cand, fate in zip(ruled.candidates, ruled.decision)
    ]
    c = res.counts
    note = (
        f"{c['rule_checks']} distinct (answer, gold) checks, {c['rule_mv_calls']} needed "
        f"math-verify, {c['rule_timeouts']} hit the {policy.rule_timeout:g} s deadline"
    )
    return Verdicts(
        correct=[bool(x[0]) for x in res.correct],
        seconds=seconds,
        settled=settled,
        judge_chars=judge_chars,
        cascade_chars=[0 if s else j for s, j in zip(settled, judge_chars)],
        note=note,
    )


def run_default(rows: Sequence[Row]) -> tuple[list[bool], dict[str, ReadingRule]]:
    """Rules-mode verdicts with default settings: each evaluation of *rows* (see
    :attr:`Row.evaluation`) read by the rule detected from its own replies; the verdicts
    in row order and the rule of each evaluation."""
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.evaluation, []).append(i)
    correct = [False] * len(rows)
    rules: dict[str, ReadingRule] = {}
    for name, idx in groups.items():
        rule = rules[name] = reading_rule([rows[i].text for i in idx])
        policy = GradingPolicy(check="rules", progress=False, reasoning=rule.reasoning)
        res = grade(_items([rows[i] for i in idx]), policy)
        for i, verdict in zip(idx, res.correct):
            correct[i] = bool(verdict[0])
    return correct, rules


def _mv_gold(gold: str) -> str:
    return gold if "$" in gold or "\\boxed" in gold else f"${gold}$"


def run_math_verify(rows: Sequence[Row]) -> Verdicts:
    from math_verify import parse, verify

    out = []
    t0 = time.perf_counter()
    for r in rows:
        try:
            ok = bool(verify(parse(_mv_gold(r.gold)), parse(r.text)))
        except Exception:  # a parser failure is a 'no', as math-verify's callers treat it
            ok = False
        out.append(ok)
    return Verdicts(correct=out, seconds=time.perf_counter() - t0)


def run_opencompass(rows: Sequence[Row]) -> Verdicts:
    """OpenCompass's LiveMathBench evaluator without a judge model (its rule fallback)."""
    from opencompass.datasets.livemathbench import LiveMathBenchEvaluator

    evaluator = LiveMathBenchEvaluator(model_name="", url=[])
    preds = [r.text for r in rows]
    refs = [r.gold for r in rows]
    # judge() reads the language from the subdivision's second '_' field
    test_set = {
        "question": [r.question for r in rows],
        "question_type": ["" for _ in rows],
        "subdivision": [f"bench_{'cn' if r.lang == 'zh' else 'en'}" for r in rows],
    }
    errors = 0
    with tempfile.TemporaryDirectory() as tmp:
        evaluator._out_dir = tmp  # judge() creates it even when no judge model is set
        t0 = time.perf_counter()
        try:
            labels = [bool(x) for x in evaluator.judge(preds, refs, test_set)]
        except Exception:  # one bad row must not hide the others: score row by row
            labels = []
            for i in range(len(rows)):
                one = {key: [col[i]] for key, col in test_set.items()}
                try:
                    labels.append(bool(evaluator.judge([preds[i]], [refs[i]], one)[0]))
                except Exception:
                    labels.append(False)
                    errors += 1
        seconds = time.perf_counter() - t0
    return Verdicts(
        correct=labels,
        seconds=seconds,
        judge_chars=[len(t) for t in preds],  # GenericLLMEvaluator: the whole prediction
        note=f"{errors} rows raised inside OpenCompass (scored wrong)" if errors else "",
    )


# ---------------------------------------------------------------- adversarial reading

ADVERSARIAL = {
    "unclosed \\boxed{": "\\boxed{",
    "\\boxed{\\frac{1}{": "\\boxed{\\frac{1}{",
    "open braces": "{",
    "dollars": "$x",
    "\\( openers": "\\(",
    "bold markers": "**",
    "answer markers": "The answer is ",
    "Chinese markers": "【答案】",
    "think tags": "<think>",
    "one long line": "x + 1 = ",
}
ADV_CHARS = 200_000
_ADV_START = 2_500
_ADV_STOP_SECONDS = 1.0  # a rung slower than this ends the ladder: the rest is extrapolated


@dataclass
class AdversarialCase:
    name: str
    chars: int  # the largest size measured
    ms: float  # measured at ``chars``
    ms_at_target: float  # measured, or extrapolated when ``chars`` < target
    extrapolated: bool


def _read_ms(text: str, policy: GradingPolicy) -> float:
    items = [{"question": "", "gold": "1", "language": "en", "responses": [text]}]
    t0 = time.perf_counter()
    _read(items, policy)
    return 1000.0 * (time.perf_counter() - t0)


def adversarial_timing(target: int = ADV_CHARS) -> list[AdversarialCase]:
    """Read one reply made of each hostile pattern, doubling its length up to *target*.

    Reading is what grading does to a reply before any rule runs (extraction and the
    canonical form of what it found, :func:`_read`), with the non-reasoning policy (the
    whole reply is read); a time is the median of three reads (the last character varied)
    unless one read already takes over a second. A size slower than a second stops the
    ladder (a quadratic reader would otherwise stall the bench for minutes); the time at
    *target* is then extrapolated with the growth exponent of the last two sizes (at least
    linear) and marked as such.
    """
    policy = GradingPolicy(check="rules", progress=False, reasoning=False)
    cases = []
    for name, unit in ADVERSARIAL.items():
        sizes, times = [], []
        size = min(_ADV_START, target)
        while True:
            text = (unit * (size // len(unit) + 1))[:size]
            ms = _read_ms(text, policy)
            if ms < 1000.0 * _ADV_STOP_SECONDS:  # median of three: one read is load noise
                # the last character varies so that no memo of the first read can serve
                again = [_read_ms(text[:-1] + str(k), policy) for k in (1, 2)]
                ms = sorted([ms, *again])[1]
            sizes.append(size)
            times.append(ms)
            if size >= target or ms > 1000.0 * _ADV_STOP_SECONDS:
                break
            size = min(2 * size, target)
        if sizes[-1] >= target:
            cases.append(AdversarialCase(name, sizes[-1], times[-1], times[-1], False))
            continue
        exponent = 2.0
        if len(sizes) >= 2 and times[-2] > 0:
            exponent = math.log(times[-1] / times[-2]) / math.log(sizes[-1] / sizes[-2])
        exponent = min(max(exponent, 1.0), 3.0)
        est = times[-1] * (target / sizes[-1]) ** exponent
        cases.append(AdversarialCase(name, sizes[-1], times[-1], est, True))
    return cases
