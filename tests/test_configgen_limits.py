"""Issue 36, limits: max_out_len / max_seq_len against what the named models accept (a
note; a refusal with --strict), a local model directory's config.json, unknown models said
once; per-model settings in llm_infos (reasoning, lengths) as in api_models."""

from __future__ import annotations

import json

import pytest
from configgen_support import SHIPPED, dump_here

from gpassk_oc import configgen
from gpassk_oc.configgen.model_limits import KNOWN_LIMITS

GRID = "temperatures = [0.5]\nks = [[4]]\nreplications = [1]\ndata_path = '/d'\n"


@pytest.mark.parametrize("template", SHIPPED)
def test_shipped_templates_pass_strict_without_a_limit_note(template, tmp_path, capsys):
    code, _, err = dump_here(["-tc", template, "-o", str(tmp_path / "o"), "--strict"], capsys)
    assert code == 0, err
    assert "above its" not in err
    unknown = [line for line in err.splitlines() if "limit unknown" in line]
    assert len(unknown) == (1 if template == "demo.py" else 0)  # simulated models: unknown


def test_every_model_of_the_shipped_templates_has_limits_with_a_source():
    from gpassk_oc.configgen.loader import templates_dir
    from gpassk_oc.configgen.pipeline import build

    for template in SHIPPED[:3]:  # demo.py serves simulated models
        for spec in build(templates_dir() / template).settings.models:
            assert spec.path in KNOWN_LIMITS and KNOWN_LIMITS[spec.path].source, spec.path


def test_output_limit_note_and_strict_refusal(tmp_path, capsys):
    template = tmp_path / "t.py"
    template.write_text(
        "api_models = [\n    dict(path='gpt-4o-2024-11-20', openai_api_base='http://h/v1'),\n]\n"
        + GRID
        + "max_out_len = 32768\n",
        encoding="utf-8",
    )
    line = (
        "api_models[0] (line 2): gpt-4o-2024-11-20: max_out_len = 32,768 is above its output "
        "limit of 16,384 (OpenAI API docs, model page of gpt-4o)"
    )
    code, _, err = dump_here(["-tc", str(template), "-o", str(tmp_path / "o")], capsys)
    assert code == 0 and f"note: t.py: {line}" in err.splitlines()
    strict = tmp_path / "s"
    code, out, err = dump_here(["-tc", str(template), "-o", str(strict), "--strict"], capsys)
    assert (code, out, err.splitlines()) == (2, "", [f"error: t.py: {line}"])
    assert not strict.exists()


def test_local_directory_config_json_and_its_absence(tmp_path, capsys):
    model = tmp_path / "ckpt"
    model.mkdir()
    template = tmp_path / "t.py"
    template.write_text(f"llm_infos = [({str(model)!r}, 1, 8)]\n" + GRID, encoding="utf-8")
    code, out, err = dump_here(["-tc", str(template), "--dry-run"], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"error: t.py: llm_infos[0] (line 1): {model} is a local directory without config.json "
        "(a Hugging Face model directory has one; its max_position_embeddings is the context "
        "length)"
    ]
    (model / "config.json").write_text(json.dumps({"max_position_embeddings": 2048}))
    code, _, err = dump_here(["-tc", str(template), "--dry-run"], capsys)
    # default max_seq_len = 8192 + 4096
    assert (
        code == 0
        and "max_seq_len (session_len) = 12,288 is above its context length of 2,048" in err
    )
    assert f"max_position_embeddings in {model / 'config.json'}" in err


def test_unknown_models_are_said_once(tmp_path, capsys):
    template = tmp_path / "t.py"
    template.write_text(
        "llm_infos = [('org/a', 1, 8), ('org/b', 1, 8)]\n" + GRID + "max_out_len = 10**6\n"
        "max_seq_len = 2 * 10**6\n",
        encoding="utf-8",
    )
    code, _, err = dump_here(["-tc", str(template), "--dry-run", "--strict"], capsys)
    assert code == 0, err
    said = [line for line in err.splitlines() if "limit unknown" in line]
    assert said == [
        "t.py: limit unknown for org/a (llm_infos[0], line 1), org/b (llm_infos[1], line 1): "
        "max_out_len and max_seq_len not checked against them (known: the models of the "
        "shipped templates and local directories with a config.json)"
    ]
    assert "above its" not in err


def test_llm_infos_mix_reasoning_and_ordinary_models_with_own_lengths(tmp_path):
    template = tmp_path / "t.py"
    template.write_text(
        "llm_infos = [\n"
        "    dict(path='deepseek-ai/DeepSeek-R1-Distill-Qwen-7B', tp=1, batch_size=8,\n"
        "         reasoning=True, max_out_len=32768),\n"
        "    ('Qwen/Qwen2.5-7B-Instruct', 1, 8),\n"
        "    dict(path='deepseek-ai/deepseek-math-7b-rl', max_out_len=3072, max_seq_len=4096),\n"
        "]\n" + GRID,
        encoding="utf-8",
    )
    plan = configgen.build(template)
    assert plan.limit_notes == []
    got = {}
    for config in plan.configs:
        (model,), (dataset,) = config.data["models"], config.data["datasets"]
        evaluator = dataset["eval_cfg"]["evaluator"]
        got[config.name.split("_t")[0]] = (
            evaluator.get("reasoning"),
            model["max_out_len"],
            model["engine_config"]["session_len"],
            model["gen_config"]["max_new_tokens"],
            config.name.split("@")[0].rsplit("_l", 1)[1],
        )
    assert got == {
        "DeepSeek-R1-Distill-Qwen-7B": (True, 32768, 32768 + 4096, 32768, "32768"),
        "Qwen2.5-7B-Instruct": (None, 8192, 8192 + 4096, 8192, "8192"),
        "deepseek-math-7b-rl": (None, 3072, 4096, 3072, "3072"),
    }


def test_a_models_own_max_seq_len_below_the_templates_max_out_len_is_refused(tmp_path):
    template = tmp_path / "t.py"
    template.write_text(
        "llm_infos = [dict(path='org/m', max_seq_len=4096)]\n" + GRID, encoding="utf-8"
    )
    with pytest.raises(configgen.TemplateError) as info:
        configgen.build(template)
    assert str(info.value) == (
        "llm_infos[0] (line 1): max_seq_len 4096 is not above max_out_len = 8192"
    )
