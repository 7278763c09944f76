"""GPassKEvaluator's judge wiring: argument checks, the cache location, unjudged samples, cascade with a real judge endpoint."""

from __future__ import annotations

import socket
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import E2E_QUESTIONS, brute_g_pass, brute_mg_pass
from evaluator_support import READER, assert_json_plain, predictions_for, replicated, run
from judge_server import JudgeServer

import gpassk_oc.evaluators as evaluators_module
from gpassk_oc.core.judging.grading import GradeResult, UnjudgedError
from gpassk_oc.datasets import LiveMathBenchDataset
from gpassk_oc.evaluators import CACHE_DIRNAME, GPassKEvaluator, default_cache_location

JUDGE = dict(urls=["http://127.0.0.1:9/v1"], model="judge-m")


def test_bad_arguments():
    with pytest.raises(
        ValueError, match="check: 'vibes' is not one of 'rules', 'judge', 'cascade'"
    ):
        GPassKEvaluator(check="vibes")
    with pytest.raises(ValueError, match="k: need an integer >= 1"):
        GPassKEvaluator(k=[0])
    with pytest.raises(ValueError, match="thresholds"):
        GPassKEvaluator(thresholds=[1.5])
    with pytest.raises(ValueError, match="mg_mode"):
        GPassKEvaluator(mg_mode="area")
    with pytest.raises(ValueError, match="max_unjudged"):
        GPassKEvaluator(max_unjudged=1.5)
    with pytest.raises(ValueError, match="rule_timeout"):
        GPassKEvaluator(rule_timeout=0)


def test_check_is_inferred_from_judge():
    """configgen writes judge=dict(urls, model) without a check: that turns the judge on."""
    assert GPassKEvaluator().check == "rules"
    assert GPassKEvaluator(judge=JUDGE).check == "cascade"
    assert GPassKEvaluator(check="judge", judge=JUDGE).check == "judge"
    assert GPassKEvaluator(check="rules", judge=JUDGE).check == "rules"


@pytest.mark.parametrize("check", ["judge", "cascade"])
def test_judge_checks_need_a_judge(check):
    with pytest.raises(ValueError, match=f"check='{check}' needs a judge"):
        GPassKEvaluator(check=check)


@pytest.mark.parametrize(
    "judge, field",
    [
        (dict(model="m"), "judge.urls"),
        (dict(urls=[], model="m"), "judge.urls"),
        (dict(urls=["127.0.0.1:8000"], model="m"), "judge.urls"),
        (dict(urls=["http://h/v1"]), "judge.model"),
        (dict(urls=["http://h/v1"], model=""), "judge.model"),
        (dict(urls=["http://h/v1"], model="m", temprature=0), "judge.temprature"),
        (dict(urls=["http://h/v1"], model="m", concurrency=0), "judge.concurrency"),
        (dict(urls=["http://h/v1"], model="m", max_retries=-1), "judge.max_retries"),
        (dict(urls=["http://h/v1"], model="m", timeout=0), "judge.timeout"),
        (dict(urls=["http://h/v1"], model="m", prompt="fr"), "judge.prompt"),
        (dict(urls=["http://h/v1"], model="m", api_key_env=3), "judge.api_key_env"),
        (dict(urls=["http://h/v1"], model="m", api_key="sk-..."), "no API key"),
        ("http://h/v1", "judge must be a dict"),
    ],
)
def test_judge_validated_at_construction(judge, field):
    with pytest.raises(ValueError) as info:
        GPassKEvaluator(judge=judge)
    message = str(info.value)
    assert field in message and "\n" not in message, message


def test_judge_dict_accepts_config_fields():
    evaluator = GPassKEvaluator(
        judge=dict(
            urls="http://h:1/v1", model="m", prompt="cn", concurrency=2, timeout=5, max_retries=1
        )
    )
    assert evaluator.judge_config.urls == ["http://h:1/v1"]
    assert (evaluator.judge_config.prompt, evaluator.judge_config.concurrency) == ("cn", 2)


# ---- cache path arithmetic (OpenICLEvalTask: _out_dir = {work}/{ts}/results/{model}/{dataset})
def test_default_cache_is_above_the_timestamp(tmp_path):
    out_dir = tmp_path / "outputs" / "20250101_120000" / "results" / "model-a" / "ds-k4-r1"
    cache, task = default_cache_location(str(out_dir))
    assert cache == tmp_path / "outputs" / CACHE_DIRNAME
    assert task == "model-a/ds-k4-r1"
    # another timestamp (a new run, or -r of an old one) of the same -w: same cache
    other = tmp_path / "outputs" / "20250102_000000" / "results" / "model-b" / "ds"
    assert default_cache_location(str(other))[0] == cache


def test_default_cache_relative_work_dir_and_slash_abbr(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "outputs" / "ts"
    (run / "predictions").mkdir(parents=True)
    # an abbr with '/' adds a level; the results dir is found next to predictions/
    cache, task = default_cache_location("outputs/ts/results/org/model/ds")
    assert cache == tmp_path / "outputs" / CACHE_DIRNAME and task == "org/model/ds"
    with pytest.raises(ValueError, match="cache_dir"):
        default_cache_location("somewhere/else")


def test_cache_dir_override_is_relative_to_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evaluator = GPassKEvaluator(judge=JUDGE, cache_dir="my_cache")
    evaluator._out_dir = str(tmp_path / "w" / "ts" / "results" / "m" / "d")
    assert evaluator._cache_location() == (str(tmp_path / "my_cache"), "m/d")
    evaluator = GPassKEvaluator(judge=JUDGE)
    evaluator._out_dir = "w/ts/results/m/d"
    assert evaluator._cache_location() == (str(tmp_path / "w" / CACHE_DIRNAME), "m/d")
    assert GPassKEvaluator(judge=JUDGE)._cache_location() == (None, None)  # outside OpenCompass


# ---- rules go through grade(), once for all questions × replicas
def test_rules_mode_calls_grade_once(livemath_dir, monkeypatch):
    calls = []
    real = evaluators_module.grade

    def spy(items, policy):  # records, then runs the real pipeline
        calls.append((items, policy))
        return real(items, policy)

    monkeypatch.setattr(evaluators_module, "grade", spy)
    n, counts = 3, [3, 2, 0, 1, 3, 2, 1, 0, 3]
    test_set = replicated(livemath_dir, n, 3)
    result = run(
        GPassKEvaluator(progress=False), test_set, predictions_for(test_set, counts, n), 3, n
    )
    assert len(calls) == 1
    items, policy = calls[0]
    assert policy.check == "rules" and policy.judge is None and policy.cache_dir is None
    assert len(items) == len(E2E_QUESTIONS) and all(len(i["responses"]) == n for i in items)
    assert [i["language"] for i in items] == [lang for _s, lang, *_ in E2E_QUESTIONS]
    assert [d["c"] for d in result["details"]] == counts
    samples = n * len(counts)
    acc = result["accounting"]
    assert (
        result["run"]["check"],
        acc["samples"],
        acc["rule_decided"],
        acc["judge_calls"],
        acc["unjudged"],
        acc["cache_hits"],
    ) == ("rules", samples, samples, 0, 0, 0)
    # predictions_for gives each question 2 distinct answers at most: gold and -4242
    assert acc["rule_checks"] <= 2 * len(counts)


def test_duplicate_answer_logic_is_gone():
    """The evaluator delegates grading; no per-sample rule loop of its own."""
    source = Path(evaluators_module.__file__).read_text()
    assert "answers_equivalent" not in source and "extract_final_answer" not in source


# ---- unjudged allowance: excluded per question, never wrong (oracle: brute force)
def oracle_metrics(correct_rows, ks, taus):
    """Independent: per question c = #True, n_q = #(not None); G-Pass@k averages the
    questions with n_q >= k; pass@1 = mean c/n_q over questions with n_q >= 1."""
    cn = [(sum(v is True for v in r), sum(v is not None for v in r)) for r in correct_rows]
    out = {}
    for k in ks:
        eligible = [(c, m) for c, m in cn if m >= k]
        for tau in taus:
            if eligible:
                out[f"G-Pass@{k}_{tau}"] = float(
                    sum(brute_g_pass(m, c, k, tau) for c, m in eligible) / len(eligible) * 100
                )
        if eligible:
            out[f"mG-Pass@{k}"] = float(
                sum(brute_mg_pass(m, c, k) for c, m in eligible) / len(eligible) * 100
            )
        out[f"excluded@{k}"] = sum(1 for _, m in cn if m < k)
    judged = [(c, m) for c, m in cn if m]
    out["pass@1"] = float(sum(Fraction(c, m) for c, m in judged) / len(judged) * 100)
    return out


def test_unjudged_samples_are_excluded_per_question(livemath_dir):
    T, F, U = True, False, None
    rows = [
        [T, T, F, T, U, U],  # n_q 4
        [U, U, U, U, U, T],  # n_q 1: only k <= 1 would count
        [U] * 6,  # n_q 0: excluded everywhere, also from pass@1
        [T, F, T, F, T, F],
        [F, F, U, F, F, F],
        [T, T, T, U, T, T],
        [T] * 6,
        [F] * 6,
        [U, T, U, F, U, T],
    ]
    n, ks = 6, [2, 4, 6]

    class Fixed(GPassKEvaluator):  # a grader with a known unjudged pattern
        def _grade(self, items, reasoning=False):
            return GradeResult(
                extracted=[["1"] * n for _ in items],
                correct=rows,
                source=[["judge" if v is not None else "unjudged" for v in r] for r in rows],
                counts={},
            )

    test_set = replicated(livemath_dir, n, ks)
    result = run(Fixed(progress=False), test_set, ["x"] * len(test_set), ks, n)
    taus = ["0.0", "0.25", "0.5", "0.75", "1.0"]
    expected = oracle_metrics(rows, ks, taus)
    for k in ks:
        assert result["accounting"]["excluded_questions"][str(k)] == expected.pop(f"excluded@{k}")
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=1e-12), key
    # n_q: 4 1 0 6 5 5 6 6 3
    assert result["accounting"]["excluded_questions"] == {"2": 2, "4": 3, "6": 6}
    assert result["accounting"]["unjudged"] == sum(v is None for r in rows for v in r)
    assert [(d["c"], d["n"]) for d in result["details"]] == [
        (sum(v is True for v in r), sum(v is not None for v in r)) for r in rows
    ]
    # group AMC/cn = questions 3, 4 (n_q 6, 5): k=6 only question 3 counts
    assert result["AMC/cn/G-Pass@6_1.0"] == 0.0
    assert result["AMC/cn/G-Pass@6_0.0"] == 100.0
    # group AMC/en = questions 0..2 (n_q 4, 1, 0): no question has 6 judged samples
    assert "AMC/en/G-Pass@6_0.5" not in result and "AMC/en/G-Pass@4_0.5" in result
    assert_json_plain(result)


# ---- cascade with a real judge endpoint on 127.0.0.1, through the real grade()
TEXT_Q = "Which day of the week comes right after Monday?"


def text_dataset(tmp_path):
    from conftest import write_layout

    rows = [("AMC", "en", TEXT_Q, r"\text{Tuesday}"), ("AMC", "en", "Compute 7 + 5.", "12")]
    return LiveMathBenchDataset(
        path=str(write_layout(tmp_path / "lmb", rows)),
        dataset_splits=["AMC"],
        dataset_languages=["en"],
        k=2,
        n=4,
        abbr="LiveMathBench-v202412-k2-r2",
        reader_cfg=READER,
    ).test


TEXT_PREDS = [  # replica-major: (text question, numeric question) per replica
    "so \\boxed{Tuesday is the day}",
    "\\boxed{12}",
    "so \\boxed{Tuesday is the day}",
    "\\boxed{13}",
    "\\boxed{\\text{Tuesday}}",
    "",  # an empty reply: nothing to judge (no_answer)
    "\\boxed{Wednesday for sure}",
    "\\boxed{12.0}",
]


def in_task_dir(evaluator, tmp_path):
    evaluator._out_dir = str(tmp_path / "outputs" / "20250101_000000" / "results" / "m" / "d")
    return tmp_path / "outputs" / CACHE_DIRNAME


def test_cascade_judges_each_undecided_pair_once_and_caches(tmp_path):
    truth = {(TEXT_Q, "Tuesday is the day"): True, (TEXT_Q, "Wednesday for sure"): False}
    test_set = text_dataset(tmp_path)
    with JudgeServer(truth) as server:
        evaluator = GPassKEvaluator(judge=dict(urls=[server.url], model="judge-m"), progress=False)
        cache = in_task_dir(evaluator, tmp_path)
        result = run(evaluator, test_set, TEXT_PREDS, 2, 4)
        assert dict(server.calls) == {pair: 1 for pair in truth}  # replicas share a label
        assert result["details"][0]["correct"] == [True, True, True, False]
        assert result["details"][0]["source"] == ["judge", "judge", "rule", "judge"]
        assert result["details"][1]["correct"] == [True, False, False, True]
        acc = result["accounting"]
        assert (
            result["run"]["check"],
            acc["judge_calls"],
            acc["judged"],
            acc["samples"],
            acc["judged_samples"],
            acc["rule_decided"],
            acc["no_answer"],
        ) == ("cascade", 2, 2, 8, 3, 5, 1)
        assert result["run"]["judge"]["model"] == "judge-m"
        assert acc["judge_cache"] == str(cache) and list(cache.glob("judgements-*.jsonl"))
        # a new evaluator (another task / rerun) in another timestamp of the same work dir
        again = GPassKEvaluator(judge=dict(urls=[server.url], model="judge-m"), progress=False)
        again._out_dir = str(tmp_path / "outputs" / "20250202_000000" / "results" / "m" / "d")
        second = run(again, test_set, TEXT_PREDS, 2, 4)
        assert sum(server.calls.values()) == 2
        acc = second["accounting"]
        assert (acc["judge_calls"], acc["cache_hits"], acc["cache_hit_pairs"]) == (0, 3, 2)
    for key in ("G-Pass@2_0.5", "mG-Pass@2", "pass@1"):
        assert second[key] == result[key]


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens after the socket closed


def test_judge_down_fails_with_unjudged_error(tmp_path):
    test_set = text_dataset(tmp_path)
    evaluator = GPassKEvaluator(
        judge=dict(
            urls=[closed_port_url()], model="judge-m", max_retries=1, backoff_base=0.01, timeout=2
        ),
        progress=False,
    )
    cache = in_task_dir(evaluator, tmp_path)
    with pytest.raises(UnjudgedError) as info:
        run(evaluator, test_set, TEXT_PREDS, 2, 4)
    message = str(info.value)
    assert "3 of 8 samples" in message and "ConnectError" in message
    assert str(cache) in message and "rerun the same command" in message


def test_judge_down_within_allowance_excludes_unjudged(tmp_path):
    test_set = text_dataset(tmp_path)
    evaluator = GPassKEvaluator(
        judge=dict(urls=[closed_port_url()], model="judge-m", max_retries=0, timeout=2),
        max_unjudged=0.5,
        progress=False,
    )
    in_task_dir(evaluator, tmp_path)
    result = run(evaluator, test_set, TEXT_PREDS, 2, 4)
    text, numeric = result["details"]
    assert text["correct"] == [None, None, True, None] and (text["c"], text["n"]) == (1, 1)
    assert text["source"] == ["unjudged", "unjudged", "rule", "unjudged"]
    assert (numeric["c"], numeric["n"]) == (2, 4)
    acc = result["accounting"]
    assert acc["unjudged"] == 3 and acc["unjudged_pairs"] == 2
    assert acc["excluded_questions"] == {"2": 1}
    # k=2: only the numeric question (c=2 of 4) counts; pass@1 = mean(1/1, 2/4)
    assert result["G-Pass@2_1.0"] == pytest.approx(float(brute_g_pass(4, 2, 2, "1.0") * 100))
    assert result["pass@1"] == 75.0


def test_cache_dir_is_never_taken_for_the_latest_timestamp():
    """``opencompass -r latest`` picks sorted(os.listdir(work_dir))[-1]."""
    assert sorted(["20250101_000000", "29991231_235959", CACHE_DIRNAME])[-1] == "29991231_235959"
