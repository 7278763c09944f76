"""Tests of the config generator (gpassk_oc.configgen, dump_opencompass_configs.py):
names, grid expansion, file contents, the grid config, determinism, the CLI, OpenCompass.

Expected names and counts are computed here independently of the generator: the exact
file name is the literal string from issue 4, counts come from itertools.product over the
template's own lists. Contents are checked on the config *data*; the rendered text is read
back with mmengine exactly as the `opencompass` CLI reads it and must equal that data.
Validation: test_configgen_schema.py; GPassK-style templates: test_configgen_gpassk.py."""

from __future__ import annotations

import itertools
import os

import pytest
from configgen_support import (
    BASE,
    EXAMPLE,
    GRID,
    SHIPPED,
    TEMPLATES,
    _all_shipped,
    dump,
    load,
    write,
)

from gpassk_oc import configgen
from gpassk_oc.configgen import build, generate
from gpassk_oc.core.data.naming import parse_dataset_abbr, parse_model_abbr


def test_exact_name_of_the_issue_example(tmp_path):
    configs = generate(write(tmp_path, BASE))
    assert [c.name for c in configs] == [EXAMPLE]


def test_abbrs_are_the_two_halves_of_the_file_name(tmp_path):
    out = tmp_path / "out"
    configgen.write_configs(generate(write(tmp_path, BASE)), out)
    cfg = load(out / EXAMPLE)
    model_half, dataset_half = EXAMPLE[:-3].split("@")
    assert [m["abbr"] for m in cfg["models"]] == [model_half]
    assert [d["abbr"] for d in cfg["datasets"]] == [dataset_half]


@pytest.mark.parametrize("temps", [[0.3, 0.7, 1.0], [0.0, 0.5, 1.2]])
def test_grid_count_is_the_full_product(tmp_path, temps):
    models = ["model-a", "model-b", "served-c"]
    sampled = [t for t in temps if t > 0]
    expected = len(
        list(itertools.product(models, sampled, [0.8, 0.95], [(4, 8), (4, 8, 16)], [1, 2]))
    )
    expected += len(models) if 0.0 in temps else 0  # one greedy config per model
    configs = generate(write(tmp_path, GRID.format(temps=temps)))
    assert len(configs) == expected
    assert len({c.name for c in configs}) == expected


def test_n_alias_gives_one_replication_per_k_list(tmp_path):
    path = write(
        tmp_path,
        """
        llm_infos = [('org/m', 1, 8)]
        temperature = 0.7
        top_p = 0.8
        ks = [[4, 8, 16], [6, 12]]
        n = 48
    """,
    )
    names = sorted(c.name for c in generate(path))
    assert names == sorted(
        [
            "m_t0-7_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py",
            "m_t0-7_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k6_12-r4.py",
        ]
    )


def test_integer_k_alias(tmp_path):
    path = write(tmp_path, BASE.replace("ks = [[4, 8, 16]]", "k = 16"))
    assert [c.name for c in generate(path)] == [EXAMPLE.replace("-k4_8_16-", "-k16-")]


def test_gpassk_scalar_aliases(tmp_path):
    path = write(
        tmp_path,
        """
        llm_infos = [('org/m', 1, 8)]
        temperatures = [1.0]
        top_p = 0.8
        k = [4, 8, 16]
        replication = 3
    """,
    )
    assert [c.name for c in generate(path)] == [
        "m_t1-0_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py"
    ]


def test_greedy_is_one_config_per_model_with_k1_n1(tmp_path):
    path = write(tmp_path, GRID.format(temps=[0, 0.7]))
    out = tmp_path / "out"
    configgen.write_configs(generate(path), out)
    greedy = sorted(p.name for p in out.glob("*_t0-0_*"))
    assert len(greedy) == 3
    for name in greedy:
        cfg = load(out / name)
        dataset = cfg["datasets"][0]
        assert (dataset["k"], dataset["n"]) == ([1], 1)
        assert dataset["abbr"].endswith("-k1-r1")
        assert dataset["eval_cfg"]["evaluator"]["k"] == [1]
        model = cfg["models"][0]
        if "gen_config" in model:
            assert model["gen_config"]["do_sample"] is False
        else:
            assert model["temperature"] == 0 and "openai_extra_kwargs" not in model


# Field names of lmdeploy 0.18.0's TurbomindEngineConfig / GenerationConfig, copied by hand
# from its lmdeploy/messages.py (OpenCompass silently drops unknown keys, so a misspelt
# knob would vanish without an error).
LMDEPLOY_018_ENGINE_FIELDS = {
    "dtype",
    "model_format",
    "tp",
    "dp",
    "cp",
    "ep",
    "session_len",
    "max_batch_size",
    "cache_max_entry_count",
    "cache_chunk_size",
    "cache_block_seq_len",
    "enable_prefix_caching",
    "quant_policy",
    "rope_scaling_factor",
    "use_logn_attn",
    "download_dir",
    "revision",
    "max_prefill_token_num",
    "num_tokens_per_iter",
    "max_prefill_iters",
    "devices",
    "empty_init",
    "communicator",
    "hf_overrides",
}


LMDEPLOY_018_GEN_FIELDS = {
    "n",
    "max_new_tokens",
    "do_sample",
    "top_p",
    "top_k",
    "min_p",
    "temperature",
    "repetition_penalty",
    "ignore_eos",
    "random_seed",
    "stop_words",
    "bad_words",
    "stop_token_ids",
    "bad_token_ids",
    "min_new_tokens",
    "skip_special_tokens",
    "logprobs",
}


def test_shipped_templates_expand_and_every_file_loads(tmp_path):
    files = _all_shipped(tmp_path)
    assert files
    pairs = set()
    for path in files:
        cfg = load(path)
        assert len(cfg["models"]) == 1 and len(cfg["datasets"]) == 1
        assert "work_dir" not in cfg
        model, dataset = cfg["models"][0], cfg["datasets"][0]
        pairs.add((model["abbr"], dataset["abbr"]))
        assert path.name == f"{model['abbr']}@{dataset['abbr']}.py"
        # n = r * max(k), with r and k read back from the name, not from the generator
        parsed = parse_dataset_abbr(dataset["abbr"])
        assert parsed is not None and list(parsed.ks) == dataset["k"]
        assert dataset["n"] == parsed.replication * max(parsed.ks)
        assert dataset["eval_cfg"]["evaluator"]["k"] == dataset["k"]
        setting = parse_model_abbr(model["abbr"])
        assert setting is not None
        assert dataset["type"] == "gpassk_oc.datasets.LiveMathBenchDataset"
        assert dataset["eval_cfg"]["evaluator"]["type"] == "gpassk_oc.evaluators.GPassKEvaluator"
        assert (
            dataset["infer_cfg"]["inferencer"]["type"]
            == "opencompass.openicl.icl_inferencer.GenInferencer"
        )
        if model["type"] == "opencompass.models.TurboMindModelwithChatTemplate":
            gen = model["gen_config"]
            assert gen["do_sample"] is (setting.temperature > 0)
            assert gen["temperature"] == setting.temperature
            assert gen["top_p"] == setting.top_p and gen["top_k"] == setting.top_k
            assert model["run_cfg"]["num_gpus"] == model["engine_config"]["tp"] >= 1
            assert model["engine_config"]["max_batch_size"] == model["batch_size"]
            assert "random_seed" not in gen  # a fixed per-request seed repeats samples
            assert model["engine_config"]["enable_prefix_caching"] is True
            assert set(model["engine_config"]) <= LMDEPLOY_018_ENGINE_FIELDS
            assert set(gen) <= LMDEPLOY_018_GEN_FIELDS
        else:
            assert model["type"] == "gpassk_oc.models.OpenAICompatible"
            assert model["key"] == "ENV" and model["run_cfg"] == {"num_gpus": 0}
            assert model["temperature"] == setting.temperature
    assert len(pairs) == len(files)  # abbrs unique across every generated file


def test_shipped_template_counts(tmp_path):
    # independent of the templates' values: re-read their lists and multiply
    for name in SHIPPED:
        ns: dict = {}
        exec((TEMPLATES / name).read_text(), ns)
        models = len(ns.get("llm_infos", [])) + len(ns.get("api_models", []))
        temps = ns["temperatures"]
        sampled = len([t for t in temps if t > 0])
        expected = models * sampled * len(ns["top_ps"]) * len(ns["ks"]) * len(
            ns["replications"]
        ) + (models if 0 in temps else 0)
        assert len(generate(TEMPLATES / name)) == expected, name


def test_demo_is_offline_and_small(tmp_path):
    out = tmp_path / "demo"
    configgen.write_configs(generate(TEMPLATES / "demo.py"), out)
    files = sorted(out.glob("*.py"))
    assert len(files) == 2 * 2  # two simulated models x two temperatures
    for path in files:
        cfg = load(path)
        model, dataset = cfg["models"][0], cfg["datasets"][0]
        assert model["openai_api_base"].startswith("http://127.0.0.1:")
        assert dataset["k"] == [4, 8] and dataset["n"] <= 32
        assert not os.path.isabs(dataset["path"])
        assert cfg["infer"]["runner"]["type"] == "opencompass.runners.LocalRunner"
        assert cfg["eval"]["runner"]["task"]["type"] == "opencompass.tasks.OpenICLEvalTask"


def test_runner_sections_only_when_asked(tmp_path):
    out = tmp_path / "out"
    configgen.write_configs(generate(write(tmp_path, BASE)), out)
    assert set(load(out / EXAMPLE)) == {"models", "datasets"}


def test_api_model_sampling_knobs(tmp_path):
    path = write(
        tmp_path,
        """
        api_models = [
            dict(path='o3-mini', openai_api_base='https://api.example.com/v1',
                 send_top_p=False),
            dict(path='org/served', abbr='served', openai_api_base=['http://h1/v1', 'http://h2/v1'],
                 extra_sampling=True, tokenizer_path='tok'),
        ]
        temperatures = [0.6]
        top_ps = [0.9]
        ks = [[4]]
        replications = [2]
        top_k = 20
        repetition_penalty = 1.05
        send_random_seed = True
    """,
    )
    out = tmp_path / "out"
    configgen.write_configs(generate(path), out)
    o3 = load(next(out.glob("o3-mini_*")))["models"][0]
    served = load(next(out.glob("served_*")))["models"][0]
    assert o3["openai_extra_kwargs"] == {"seed": 42}
    assert "extra_body" not in o3 and "tokenizer_path" not in o3
    assert served["openai_extra_kwargs"] == {"top_p": 0.9, "seed": 42}
    assert served["extra_body"] == {"top_k": 20, "repetition_penalty": 1.05}
    assert served["openai_api_base"] == ["http://h1/v1", "http://h2/v1"]
    assert served["tokenizer_path"] == "tok" and served["path"] == "org/served"


def test_judge_run_carries_the_judge_in_its_names(tmp_path):
    judged = BASE + (
        "eval_urls = ['http://127.0.0.1:8000/v1']\neval_model_name = 'Qwen/Qwen2.5-72B-Instruct'\n"
    )
    (config,) = generate(write(tmp_path, judged))
    assert config.name == EXAMPLE[:-3] + "-judge-Qwen2-5-72B-Instruct.py"
    dataset = config.data["datasets"][0]
    assert dataset["abbr"] == "LiveMathBench-v202412-k4_8_16-r3-judge-Qwen2-5-72B-Instruct"
    assert "_" not in dataset["abbr"].split("-judge-")[1]  # OpenCompass splits abbrs on '_'
    assert dataset["eval_cfg"]["evaluator"]["judge"] == {
        "urls": ["http://127.0.0.1:8000/v1"],
        "model": "Qwen/Qwen2.5-72B-Instruct",
    }
    parsed = parse_dataset_abbr(dataset["abbr"])
    assert (parsed.ks, parsed.replication, parsed.judge) == ((4, 8, 16), 3, "Qwen2-5-72B-Instruct")
    (rule,) = generate(write(tmp_path, BASE, "rule.py"))
    assert rule.name == EXAMPLE and "judge" not in rule.data["datasets"][0]["eval_cfg"]["evaluator"]
    assert parse_dataset_abbr(rule.data["datasets"][0]["abbr"]).judge is None


def test_rendered_text_reads_back_as_the_data(tmp_path):
    """mmengine (what the `opencompass` CLI uses) parses every rendered file of every
    shipped template, and the grid config, into exactly the config data."""
    for name in SHIPPED:
        plan = build(TEMPLATES / name)
        out = tmp_path / name
        written = configgen.write_configs(plan.configs + [plan.grid], out)
        for config, path in zip(plan.configs + [plan.grid], written):
            assert load(path) == config.data, path.name


def test_prefix_caching_knob(tmp_path):
    (on,) = generate(write(tmp_path, BASE))
    (off,) = generate(write(tmp_path, BASE + "enable_prefix_caching = False\n", "off.py"))
    assert on.data["models"][0]["engine_config"]["enable_prefix_caching"] is True
    assert off.data["models"][0]["engine_config"]["enable_prefix_caching"] is False
    assert "# TurboMind enable_prefix_caching=True: every prompt is sent n times" in on.text
    assert "# TurboMind enable_prefix_caching=False" in off.text


def test_files_are_readable_python_with_one_kwarg_per_line(tmp_path):
    text = generate(write(tmp_path, BASE))[0].text
    compile(text, "generated", "exec")
    assert text.startswith("# Generated by `gpassk-oc dump` from template tpl.py")
    assert "from gpassk_oc.datasets import LiveMathBenchDataset\n" in text
    assert "from gpassk_oc.evaluators import GPassKEvaluator\n" in text
    assert "\n        abbr='deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192',\n" in text
    assert "\n        n=48,\n" in text


def test_grid_pairs_each_model_only_with_its_own_datasets(tmp_path):
    plan = build(write(tmp_path, GRID.format(temps=[0, 0.7])))
    grid = plan.grid
    assert grid.name == "grid_tpl.py"
    tail = "_k50_rp1-0_rs42_l8192"
    expected: dict[str, set[str]] = {}
    for m in ["model-a", "model-b", "served-c"]:
        expected[f"{m}_t0-0_p0-8{tail}"] = {"LiveMathBench-v202412-k1-r1"}  # greedy
        for p in ["0-8", "0-95"]:
            expected[f"{m}_t0-7_p{p}{tail}"] = {
                f"LiveMathBench-v202412-k{ks}-r{r}" for ks in ["4_8", "4_8_16"] for r in [1, 2]
            }
    data = grid.data
    combos = data["model_dataset_combinations"]
    assert all(len(c["models"]) == 1 for c in combos)
    assert {c["models"][0]["abbr"]: {d["abbr"] for d in c["datasets"]} for c in combos} == expected
    assert sorted(m["abbr"] for m in data["models"]) == sorted(expected)
    assert sorted(d["abbr"] for d in data["datasets"]) == sorted(set().union(*expected.values()))
    assert sorted(grid.pairs) == sorted(
        (c.data["models"][0]["abbr"], c.data["datasets"][0]["abbr"]) for c in plan.configs
    )
    assert len(grid.pairs) == sum(len(v) for v in expected.values())


def test_grid_flag_writes_grid_file_and_prints_its_path_last(tmp_path):
    out = tmp_path / "out"
    result = dump(
        ["--config_template_file", str(write(tmp_path, BASE)), "--output_dir", str(out), "--grid"]
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        str(out / EXAMPLE),
        f"1 config(s) + 1 grid config from tpl.py written to {out}",
        str(out / "grid_tpl.py"),
    ]
    assert sorted(p.name for p in out.iterdir()) == sorted([EXAMPLE, "grid_tpl.py"])
    cfg = load(out / "grid_tpl.py")
    assert cfg["model_dataset_combinations"] == [
        {"models": cfg["models"], "datasets": cfg["datasets"]}
    ]
    assert cfg["models"] == load(out / EXAMPLE)["models"]
