"""One set of judge-setting checks behind all three doors: JudgeConfig, the evaluator's
judge=dict(...) and the generator's eval_* variables give the same one-line problem."""

import pytest

from gpassk_oc.configgen.checks import TemplateError, judge_model, judge_prompt, urls
from gpassk_oc.core.judging.judge import JudgeConfig
from gpassk_oc.evaluators import validate_judge

OK = dict(urls=["http://h/v1"], model="m")

# (field, bad value, the problem every door reports) — written out, not computed
BAD = [
    (
        "urls",
        ["127.0.0.1:8000"],
        "must be a non-empty list of http(s) URLs, got ['127.0.0.1:8000']",
    ),
    ("urls", [], "must be a non-empty list of http(s) URLs, got []"),
    ("model", "", "must be the judge model name served at the urls, got ''"),
    ("model", "a\nb", "must be the judge model name served at the urls, got 'a\\nb'"),
    ("prompt", "paper", "must be one of 'auto', 'opencompass', 'gpassk', 'en', 'cn', got 'paper'"),
    ("concurrency", 0, "must be an integer >= 1, got 0"),
    ("max_retries", True, "must be an integer >= 0, got True"),
    ("timeout", 0, "must be a finite number > 0, got 0"),
    ("temperature", float("nan"), "must be a finite number >= 0, got nan"),
    ("api_key_env", 3, "must be a string, got 3"),
]


@pytest.mark.parametrize("field, value, problem", BAD)
def test_judge_config_and_the_evaluator_say_the_same(field, value, problem):
    with pytest.raises(ValueError) as core:
        JudgeConfig(**{**OK, field: value})
    assert str(core.value) == f"JudgeConfig.{field}: {problem}"
    with pytest.raises(ValueError) as evaluator:
        validate_judge({**OK, field: value})
    assert str(evaluator.value) == f"judge.{field}: {problem}"


@pytest.mark.parametrize(
    "check, field, value, problem",
    [
        (urls, "eval_urls", ["ftp://x"], "must be a list of http(s) URLs, got ['ftp://x']"),
        (judge_model, "eval_model_name", "", BAD[2][2]),
        (judge_prompt, "eval_prompt", "paper", BAD[4][2]),
    ],
)
def test_the_generator_runs_the_same_checks(check, field, value, problem):
    with pytest.raises(TemplateError) as err:
        check(field, value)
    assert (err.value.field, err.value.message) == (field, problem)


def test_accepted_values_are_normalised_alike():
    assert urls("eval_urls", []) == [] and urls("eval_urls", ("http://a",)) == ["http://a"]
    cfg = JudgeConfig(urls="http://a", model="m", timeout=3)
    assert cfg.urls == ["http://a"] and cfg.timeout == 3.0 and isinstance(cfg.timeout, float)
    assert validate_judge({"urls": ("http://a",), "model": "m"}).urls == ["http://a"]
