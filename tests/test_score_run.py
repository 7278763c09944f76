"""The core step (gpassk_oc.core.runs.score_run) with any number of replies per question:
a question with fewer replies than n is scored over the replies it has, never as wrong.

Expected values are exact Fractions from tests/oracles.py over the (n_q, c_q) the replies
were built with (right/wrong), not from the code under test.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracles import exact_g_tau, exact_mg_documented

from gpassk_oc.core.answers.reasoning import reading_rule
from gpassk_oc.core.judging.grading import GradingPolicy
from gpassk_oc.core.runs.run_record import RunRecord
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.core.runs.score_run import Grading, Question, Reply, RunSamples, score_run
from gpassk_oc.core.vocabulary import CheckMode

N, KS = 4, (2, 4)
TAUS = ("0.0", "0.25", "0.5", "0.75", "1.0")
#: per question: gold, and the verdict of each reply it kept (fewer than N for some)
BUILT = [("12", [1, 1, 0, 1]), ("42", [1, 0]), ("5", [0, 0, 1]), ("9", [1, 1, 1, 1]), ("7", [])]


def _reply(gold: str, right: int) -> Reply:
    value = gold if right else str(int(gold) + 1)
    return Reply(f"So the answer is \\boxed{{{value}}}.")


def _run() -> dict:
    questions = [
        Question(
            {
                "question_id": f"q{i}",
                "split": "AMC",
                "language": "en",
                "question": f"Q{i}?",
                "answer": gold,
            },
            [_reply(gold, v) for v in verdicts],
        )
        for i, (gold, verdicts) in enumerate(BUILT)
    ]
    texts = [r.text for q in questions for r in q.replies]
    rule = reading_rule(texts, "auto")
    policy = GradingPolicy(check=CheckMode.RULES, progress=False, reasoning=rule.reasoning)
    record = RunRecord(model_abbr="m", dataset_abbr="d")
    spec = RunSpec.parse(list(KS), n=N)
    return score_run(RunSamples(spec, questions, record), Grading(policy, rule)).results


def test_fewer_replies_than_n_are_left_out_of_n_q():
    results = _run()
    cn = [(sum(v), len(v)) for _, v in BUILT]
    for k in KS:
        eligible = [(c, m) for c, m in cn if m >= k]
        for tau in TAUS:
            want = sum(exact_g_tau(m, c, k, Fraction(tau)) for c, m in eligible) / len(eligible)
            assert results[f"G-Pass@{k}_{tau}"] == pytest.approx(float(want * 100), abs=1e-12)
        mg = sum(exact_mg_documented(m, c, k) for c, m in eligible) / len(eligible)
        assert results[f"mG-Pass@{k}"] == pytest.approx(float(mg * 100), abs=1e-12)
        assert results["accounting"]["excluded_questions"][str(k)] == len(cn) - len(eligible)
    judged = [(c, m) for c, m in cn if m]
    p1 = sum(Fraction(c, m) for c, m in judged) / len(judged)
    assert results["pass@1"] == pytest.approx(float(p1 * 100), abs=1e-12)
    missing = sum(N - m for _, m in cn)
    assert results["accounting"]["missing_replies"] == missing
    assert results["accounting"]["unjudged"] == missing  # the missing slots, never wrong
    assert results["health"]["overall"]["empty"] == 0  # a missing reply is not an empty one
    assert [(d["c"], d["n"]) for d in results["details"]] == cn


def test_more_replies_than_n_is_refused():
    questions = [
        Question(
            {"question_id": "q", "split": "", "language": "", "question": "?", "answer": "1"},
            [Reply("\\boxed{1}")] * 3,
        )
    ]
    rule = reading_rule(["x"], "auto")
    policy = GradingPolicy(check=CheckMode.RULES, progress=False)
    run = RunSamples(
        RunSpec.parse([2], n=2), questions, RunRecord(model_abbr="m", dataset_abbr="d")
    )
    with pytest.raises(ValueError, match="more replies than the run's n=2"):
        score_run(run, Grading(policy, rule))
