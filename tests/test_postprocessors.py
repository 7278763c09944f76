"""Judge postprocessors: strict verdicts, and OpenCompass's own G-Pass on top of them."""

from __future__ import annotations

import pytest

from gpassk_oc import postprocessors as pp


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("The extracted answer matches. \\boxed{yes}", "yes"),
        ("\\boxed{No}", "no"),
        ("first \\boxed{no} then on reflection \\boxed{yes}", "yes"),
        ("\\boxed{\\text{yes}}", "yes"),
        ("A", ""),  # OpenCompass's A/B regex would say A
        ("Both A and B are wrong", ""),
        ("\\boxed{maybe}", ""),
        ("", ""),
        (None, ""),
    ],
)
def test_text_postprocess(reply, verdict):
    assert pp.livemath_judge_postprocess(reply) == verdict


def test_registered_under_distinct_names():
    from opencompass.registry import DICT_POSTPROCESSORS, TEXT_POSTPROCESSORS

    assert TEXT_POSTPROCESSORS.get("gpassk_livemath_judge") is pp.livemath_judge_postprocess
    assert (
        DICT_POSTPROCESSORS.get("gpassk_livemath_judge_dict") is pp.livemath_judge_dict_postprocess
    )


def judge_output(replies):
    """The shape GenericLLMEvaluator hands to its dict_postprocessor."""
    return {
        str(i): {"prediction": r, "gold": "1", "origin_prompt": "..."}
        for i, r in enumerate(replies)
    }


def test_dict_postprocess_per_sample_correct_in_index_order():
    replies = ["\\boxed{yes}"] * 2 + ["\\boxed{no}"] * 8 + ["A"]  # keys '0'..'10'
    out = pp.livemath_judge_dict_postprocess(judge_output(replies), "unused.json")
    assert [d["correct"] for d in out["details"]] == [True] * 2 + [False] * 8 + [None]
    assert out["unparseable"] == 1
    assert out["accuracy"] == pytest.approx(200 / 11)


def test_opencompass_g_pass_works_with_the_dict_postprocessor():
    """Run OpenCompass's own BaseEvaluator.evaluate on our per-sample `correct`."""
    from datasets import Dataset
    from opencompass.openicl.icl_evaluator import BaseEvaluator

    n, q = 4, 2
    # question 0 judged yes in 3 of 4 replicas, question 1 in 1 of 4
    verdicts = {0: ["yes", "yes", "no", "yes"], 1: ["no", "no", "yes", "no"]}
    test_set = Dataset.from_dict(
        {"subdivision": ["LMB"] * (n * q), "idx": [i for _ in range(n) for i in range(q)]}
    )

    class JudgeLike(BaseEvaluator):
        def score(self, predictions, references, test_set):
            replica = self.dataset_replica_idx
            replies = [f"\\boxed{{{verdicts[i][replica]}}}" for i in range(q)]
            return pp.livemath_judge_dict_postprocess(judge_output(replies), "")

    result = JudgeLike().evaluate(
        k=[2],
        n=n,
        original_dataset=test_set,
        predictions=["p"] * (n * q),
        references=["r"] * (n * q),
        test_set=test_set,
    )
    # G-Pass@2_1.0: P(both of 2 drawn correct) = C(3,2)/C(4,2) = 1/2 and 0 → mean 1/4
    assert result["G-Pass@2_1.0"] == pytest.approx(25.0)
    # G-Pass@2_0.0 (pass@2): 1 and 1 - C(3,2)/C(4,2) = 1/2 → mean 3/4
    assert result["G-Pass@2_0.0"] == pytest.approx(75.0)
