"""Template settings for reasoning models: `reasoning`, `think_tags`, the api_models
override, what the generated evaluator and API model get, and the docs table.

Expected messages and values are written out by hand.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gpassk_oc import configgen
from gpassk_oc.configgen import TemplateError, generate
from gpassk_oc.configgen.reasoning_settings import reasoning_table
from gpassk_oc.evaluators import GPassKEvaluator

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "opencompass_config_templates"

BASE = """
llm_infos = [('deepseek-ai/DeepSeek-R1-Distill-Qwen-7B', 1, 8)]
temperatures = [0.6]
ks = [[4]]
replications = [1]
data_path = '/data/LiveMathBench'
"""
API = """
api_models = [dict(path='r1', openai_api_base='http://127.0.0.1:1/v1', reasoning=True),
              dict(path='plain', openai_api_base='http://127.0.0.1:1/v1'),
              dict(path='chat', openai_api_base='http://127.0.0.1:1/v1', reasoning=False)]
"""


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "tpl.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def evaluators(path: Path) -> dict[str, dict]:
    """model abbr base -> the evaluator dict of its (one) generated config."""
    out = {}
    for config in generate(path):
        (model,), (dataset,) = config.variables["models"], config.variables["datasets"]
        out[model["abbr"].split("_")[0]] = dict(dataset["eval_cfg"]["evaluator"])
    return out


def extra_keys(evaluator: dict) -> dict:
    # the run record is written for every config (another feature); reasoning keys are the point
    return {k: v for k, v in evaluator.items() if k not in ("type", "k", "run_record")}


def test_defaults_write_nothing_new(tmp_path):
    (ev,) = evaluators(write(tmp_path, BASE)).values()
    assert extra_keys(ev) == {}  # 'auto' is the evaluator's own default
    (ev,) = evaluators(write(tmp_path, BASE + "reasoning = 'auto'\n")).values()
    assert extra_keys(ev) == {}
    assert GPassKEvaluator().reasoning == "auto"


def test_a_forced_false_is_written_since_the_default_detects(tmp_path):
    (ev,) = evaluators(write(tmp_path, BASE + "reasoning = False\n")).values()
    assert extra_keys(ev) == {"reasoning": False}
    assert GPassKEvaluator(**extra_keys(ev)).reasoning is False


def test_template_flag_and_custom_tags_reach_the_evaluator_and_the_api_model(tmp_path):
    body = BASE + "reasoning = True\nthink_tags = ['<reason>', '</reason>']\n"
    (ev,) = evaluators(write(tmp_path, body)).values()
    assert extra_keys(ev) == {"reasoning": True, "think_tags": ["<reason>", "</reason>"]}
    # what the file says builds a working evaluator
    GPassKEvaluator(**extra_keys(ev))
    api = write(tmp_path, API + BASE.split("\n", 2)[2] + "think_tags = ['<r>', '</r>']\n")
    (first, *_) = generate(api)
    (model,) = first.variables["models"]
    assert model["think_tag"] == "</r>"  # OpenAISDK joins reasoning_content with it


def test_api_models_override_the_template_per_model(tmp_path):
    body = API + BASE.split("\n", 2)[2]  # no llm_infos
    got = {name: extra_keys(ev) for name, ev in evaluators(write(tmp_path, body)).items()}
    assert got == {"r1": {"reasoning": True}, "plain": {}, "chat": {"reasoning": False}}
    got = {
        name: extra_keys(ev)
        for name, ev in evaluators(write(tmp_path, body + "reasoning = True\n")).items()
    }
    assert got == {
        "r1": {"reasoning": True},
        "plain": {"reasoning": True},
        "chat": {"reasoning": False},
    }
    auto = body.replace("reasoning=False", "reasoning='auto'") + "reasoning = True\n"
    got = {name: extra_keys(ev) for name, ev in evaluators(write(tmp_path, auto)).items()}
    assert got["chat"] == {}  # an entry's 'auto' wins over the template's True


@pytest.mark.parametrize(
    "extra, message",
    [
        ("reasoning = 'yes'\n", "reasoning: need 'auto', True or False, got 'yes'"),
        ("reasoning = 1\n", "reasoning: need 'auto', True or False, got 1"),
        ("reasoning = 'Auto'\n", "reasoning: need 'auto', True or False, got 'Auto'"),
        (
            "think_tags = '<think>'\n",
            "think_tags: need an (opening, closing) pair of strings such as "
            "('<think>', '</think>'), got '<think>'",
        ),
        ("think_tags = ['', '</t>']\n", "think_tags: the opening tag must be a non-empty string"),
        ("think_tags = ['<t>', '<t>']\n", "think_tags: opening and closing tags must differ"),
        (
            "api_models = [dict(path='m', openai_api_base='http://h/v1', reasoning='no')]\n",
            "api_models[0].reasoning: need 'auto', True or False, got 'no'",
        ),
        (
            "api_models = [dict(path='m', openai_api_base='http://h/v1', reasonng=True)]\n",
            "api_models[0]: unknown key 'reasonng'; did you mean 'reasoning'?",
        ),
    ],
)
def test_bad_settings_fail_in_one_line_and_write_nothing(tmp_path, capsys, extra, message):
    path = write(tmp_path, BASE + extra)
    with pytest.raises(TemplateError) as info:
        generate(path)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
    out = tmp_path / "out"
    assert configgen.main(["-tc", str(path), "--output-dir", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"error: tpl.py: {message}")
    assert not out.exists()


def test_shipped_templates():
    o1 = evaluators(TEMPLATES / "o1.py")
    assert o1 and all(ev.get("reasoning") is True for ev in o1.values())
    close = evaluators(TEMPLATES / "close.py")
    assert {name for name, ev in close.items() if ev.get("reasoning")} == {"DeepSeek-R1"}
    assert all("reasoning" not in ev for ev in evaluators(TEMPLATES / "nono1.py").values())


def test_docs_page_carries_the_generated_table():
    page = (ROOT / "docs" / "reasoning-models.md").read_text(encoding="utf-8")
    assert reasoning_table() in page


def test_model_entries_own_think_tags_and_reasoning(tmp_path):
    """An llm_infos dict and an api_models entry set their own tags and reading; the
    others keep the template's."""
    body = (
        "llm_infos = [dict(path='org/r1', reasoning=True, think_tags=['<t>', '</t>']),\n"
        "             ('org/plain', 1, 8)]\n"
        "api_models = [dict(path='api-r1', openai_api_base='http://127.0.0.1:1/v1',\n"
        "                   think_tags=['<r>', '</r>'])]\n"
        "temperatures = [0.6]\nks = [[4]]\nreplications = [1]\ndata_path = '/d'\n"
    )
    got = {}
    for config in generate(write(tmp_path, body)):
        (model,), (dataset,) = config.data["models"], config.data["datasets"]
        evaluator = dataset["eval_cfg"]["evaluator"]
        got[model["path"]] = (
            evaluator.get("reasoning"),
            evaluator.get("think_tags"),
            model.get("think_tag"),
        )
    assert got == {
        "org/r1": (True, ["<t>", "</t>"], None),
        "org/plain": (None, None, None),
        "api-r1": (None, ["<r>", "</r>"], "</r>"),
    }
