"""Tests of the config generator (gpassk_oc.configgen, dump_opencompass_configs.py):
names, grid expansion, file contents, the grid config, determinism, the CLI, OpenCompass.

Expected names and counts are computed here independently of the generator: the exact
file name is the literal string from issue 4, counts come from itertools.product over the
template's own lists. Contents are checked on the config *data*; the rendered text is read
back with mmengine exactly as the `opencompass` CLI reads it and must equal that data.
Validation: test_configgen_schema.py; GPassK-style templates: test_configgen_gpassk.py.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mmengine.config import Config

from gpassk_oc import cli, configgen
from gpassk_oc.configgen import TemplateError, build, generate, resolve_template
from gpassk_oc.core.data.naming import parse_dataset_abbr, parse_model_abbr

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "opencompass_config_templates"
SHIPPED = ["nono1.py", "o1.py", "close.py", "demo.py"]
EXAMPLE = (
    "deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192"
    "@LiveMathBench-v202412-k4_8_16-r3.py"
)  # verbatim from the issue
SECRET = "sk-test-0123456789abcdef-do-not-leak"


def write(tmp_path: Path, body: str, name: str = "tpl.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def load(path: Path) -> dict:
    """Read a generated file the way `opencompass FILE` does (lazy imports -> dotted
    strings); importing gpassk_oc.datasets is never attempted."""
    return Config.fromfile(str(path), format_python_code=False).to_dict()


def dump(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, str(ROOT / "dump_opencompass_configs.py"), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


BASE = """
llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]
temperatures = [0.3]
top_ps = [0.8]
ks = [[4, 8, 16]]
replications = [3]
top_k = 50; repetition_penalty = 1.0; random_seed = 42; max_out_len = 8192
version = '202412'
"""


# ------------------------------------------------------------------------------ names


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


GRID = """
llm_infos = [('org/model-a', 1, 8), ('other/model-b', 2, 16)]
api_models = [dict(path='served-c', openai_api_base='http://127.0.0.1:9/v1')]
temperatures = {temps}
top_ps = [0.8, 0.95]
ks = [[4, 8], [4, 8, 16]]
replications = [1, 2]
"""


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


# ------------------------------------------------------------------ generated contents

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


def _all_shipped(tmp_path: Path, grid: bool = False) -> list[Path]:
    files = []
    for name in SHIPPED:
        out = tmp_path / name
        plan = build(TEMPLATES / name)
        configgen.write_configs(plan.configs + ([plan.grid] if grid else []), out)
        files += sorted(out.glob("*.py"))
    return files


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


# ------------------------------------------------------------------------ the grid


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


# --------------------------------------------------------------------- determinism


def test_byte_identical_reruns_across_processes(tmp_path):
    outs = []
    for seed in ("1", "2"):  # different hash seeds catch set/dict-order dependence
        out = tmp_path / f"out{seed}"
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
        for name in SHIPPED:
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "dump_opencompass_configs.py"),
                    "-tc",
                    name,
                    "--output-dir",
                    str(out),
                    "--grid",
                ],
                env=env,
                check=True,
                capture_output=True,
                timeout=120,
            )
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outs[0] == outs[1]
    assert len(outs[0]) == sum(len(generate(TEMPLATES / n)) + 1 for n in SHIPPED)


def test_rerun_into_same_directory_is_identical(tmp_path):
    out = tmp_path / "out"
    configgen.write_configs(generate(TEMPLATES / "nono1.py"), out)
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    configgen.write_configs(generate(TEMPLATES / "nono1.py"), out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging dir left


# ------------------------------------------------------------- no paths, no secrets


def test_no_secret_and_no_unstated_path_in_output(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    files = _all_shipped(tmp_path / "shipped", grid=True)
    configgen.write_configs(
        generate(write(tmp_path, GRID.format(temps=[0, 1.0]))), tmp_path / "grid"
    )
    files += sorted((tmp_path / "grid").glob("*.py"))
    forbidden = [SECRET, str(tmp_path), str(ROOT), str(Path.home()), os.getcwd()]
    for path in files:
        text = path.read_text()
        for needle in forbidden:
            assert needle not in text, (path.name, needle)
        assert not re.search(r"""['"]/""", text), path.name  # no absolute path literal
        assert "key='ENV'" in text or "OpenAICompatible" not in text


def test_api_model_with_literal_key_is_refused(tmp_path):
    path = write(
        tmp_path,
        BASE.replace(
            "llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]",
            f"api_models = [dict(path='m', key='{SECRET}', openai_api_base='http://x/v1')]",
        ),
    )
    with pytest.raises(TemplateError, match="never carry keys"):
        generate(path)


# ------------------------------------------------------------------- resolution, CLI


def test_bare_name_resolves_to_the_repo_templates(tmp_path):
    assert resolve_template("nono1.py", cwd=tmp_path) == TEMPLATES / "nono1.py"
    assert resolve_template("o1", cwd=tmp_path) == TEMPLATES / "o1.py"
    assert (
        resolve_template("opencompass_config_templates/close.py", cwd=tmp_path)
        == TEMPLATES / "close.py"
    )


def test_cwd_file_wins_over_the_shipped_template(tmp_path):
    local = write(tmp_path, BASE, "nono1.py")
    assert resolve_template("nono1.py", cwd=tmp_path) == local


def test_cli_bare_name_from_another_directory(tmp_path):
    result = dump(["--config_template_file", "demo.py"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in (tmp_path / "opencompass_configs").iterdir())
    lines = result.stdout.splitlines()
    assert lines[-1] == "4 config(s) from demo.py written to ./opencompass_configs"
    assert sorted(Path(line).name for line in lines[:-1]) == written
    assert len(written) == 4


def test_dry_run_writes_nothing(tmp_path):
    result = dump(["-tc", "nono1.py", "--dry-run"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []
    names = result.stdout.splitlines()[:-1]
    assert names == [c.name for c in generate(TEMPLATES / "nono1.py")]
    assert result.stdout.splitlines()[-1].startswith(f"{len(names)} config(s) from nono1.py")


def test_gpassk_oc_dump_subcommand(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["dump", "-tc", str(write(tmp_path, BASE)), "--output-dir", str(out)]) == 0
    assert [p.name for p in out.iterdir()] == [EXAMPLE]
    assert capsys.readouterr().out.splitlines()[-1].startswith("1 config(s) from tpl.py")


def test_write_failure_leaves_nothing_half_written(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.py").write_text("old\n")
    configs = generate(TEMPLATES / "demo.py")
    real_open = open
    calls = []

    def failing_open(file, mode="r", *args, **kwargs):
        if "w" in mode:
            calls.append(file)
            if len(calls) == 3:
                raise OSError("disk full")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    with pytest.raises(OSError, match="disk full"):
        configgen.write_configs(configs, out)
    monkeypatch.undo()
    assert sorted(p.name for p in out.iterdir()) == ["keep.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_new_output_directory_has_normal_permissions(tmp_path):
    out = tmp_path / "fresh"
    configgen.write_configs(generate(write(tmp_path, BASE)), out)
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask


# ------------------------------------------------------------------- OpenCompass CLI

# Stand-ins for the adapters (written on another branch), created only in the test's tmp
# dir: a `gpassk_oc` package that adds the real package to its __path__, so gpassk_oc.core
# is real and gpassk_oc.{datasets,evaluators,models} are stubs.
STUBS = {
    "__init__.py": "import os\n__path__.append(os.environ['GPASSK_REAL_PKG'])\n",
    "datasets.py": textwrap.dedent("""
        from datasets import Dataset
        from opencompass.datasets.base import BaseDataset


        class LiveMathBenchDataset(BaseDataset):
            @staticmethod
            def load(**kwargs):
                assert kwargs['version'] and kwargs['dataset_splits']
                return Dataset.from_list([{'prompt': '1+1?', 'answer': '2'}] * 3)
    """),
    "evaluators.py": textwrap.dedent("""
        from opencompass.openicl.icl_evaluator import BaseEvaluator


        class GPassKEvaluator(BaseEvaluator):
            def __init__(self, k=(1,), judge=None):
                super().__init__()
    """),
    "models.py": "from opencompass.models import OpenAISDK as OpenAICompatible\n",
}


@pytest.mark.e2e
@pytest.mark.parametrize(
    "template,pick", [("demo.py", "gpassk-demo-steady_t0-5_"), ("nono1.py", EXAMPLE)]
)
def test_generated_config_passes_opencompass_dry_run(tmp_path, template, pick):
    """`opencompass FILE --dry-run` parses the file, resolves the dotted types through its
    registry, builds the dataset (to size it) and partitions the tasks."""
    stub = tmp_path / "stub" / "gpassk_oc"
    stub.mkdir(parents=True)
    for name, text in STUBS.items():
        (stub / name).write_text(text)
    out = tmp_path / "configs"
    configgen.write_configs(generate(TEMPLATES / template), out)
    config = next(p for p in sorted(out.iterdir()) if p.name.startswith(pick))
    env = dict(
        os.environ,
        PYTHONPATH=str(stub.parent),
        GPASSK_REAL_PKG=str(ROOT / "gpassk_oc"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "opencompass.cli.main",
            str(config),
            "-w",
            str(tmp_path / "work"),
            "--dry-run",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    assert re.search(r"Partitioned into [1-9]\d* tasks", log), log[-3000:]


# ------------------------------------------------------------------- real CLI run


class _PerModel:
    """Endpoint responder dispatching on the requested model name."""

    def __init__(self, responders: dict):
        self.responders = responders

    def __call__(self, model, messages, params):
        return self.responders[model](model, messages, params)


@pytest.mark.e2e
def test_grid_config_runs_every_pair_through_opencompass(tmp_path):
    """`dump_opencompass_configs.py --grid` (the real CLI), then one `opencompass GRID -w`
    run: two models, each answering question q correctly in exactly c_q of its n calls
    (different counts per model), each paired only with its own dataset; every results
    file must equal brute-force values for its own counts."""
    from conftest import brute_g_pass, brute_mg_pass, offline_env, run_cli

    from gpassk_oc.demo import problems
    from gpassk_oc.demo.sim_endpoint import (
        ExactCountsResponder,
        SimEndpoint,
        questions_from_records,
    )

    n = 8  # k = [4, 8], replications = [1]
    records = [
        r
        for split in problems.SPLITS
        for lang in problems.LANGUAGES
        for r in problems.rows(split, lang)
    ]
    questions = questions_from_records(records)
    counts = {
        "sim-a": {q.text: (3 * i) % (n + 1) for i, q in enumerate(questions)},
        "sim-b": {q.text: (5 * i + 2) % (n + 1) for i, q in enumerate(questions)},
    }
    problems.write_dataset(tmp_path / "data")
    responder = _PerModel({m: ExactCountsResponder(questions, c, n) for m, c in counts.items()})
    with SimEndpoint(responder, models=list(counts)) as endpoint:
        template = write(
            tmp_path,
            f"""
            api_models = [dict(path=m, openai_api_base={endpoint.url!r}, batch_size=8,
                               query_per_second=1000, retry=1, timeout=60)
                          for m in ['sim-a', 'sim-b']]
            temperatures = [0.7]
            top_ps = [0.95]
            ks = [[4, 8]]
            replications = [1]
            max_out_len = 512
            data_path = {str(tmp_path / "data")!r}
            version = '202412'
            dataset_splits = {list(problems.SPLITS)!r}
            dataset_languages = {list(problems.LANGUAGES)!r}
            max_num_workers = 2
        """,
            "two.py",
        )
        out = tmp_path / "configs"
        dumped = dump(["--config_template_file", str(template), "--output_dir", str(out), "--grid"])
        assert dumped.returncode == 0, dumped.stderr
        grid = Path(dumped.stdout.splitlines()[-1])
        assert grid == out / "grid_two.py" and grid.is_file()
        assert len(list(out.glob("sim-*@*.py"))) == 2
        proc = run_cli(tmp_path, [str(grid), "-w", "work"], offline_env(), timeout=900)
    log = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode == 0, log
    dataset = "LiveMathBench-v202412-k4_8-r1"
    for model, per_q in counts.items():
        abbr = f"{model}_t0-7_p0-95_k50_rp1-0_rs42_l512"
        results = list((tmp_path / "work").glob(f"*/results/{abbr}/*.json"))
        assert [p.name for p in results] == [f"{dataset}.json"], log  # only its own pair
        got = json.loads(results[0].read_text())
        cs = [per_q[r["question"]] for r in records]
        assert got["run"]["n"] == n and [d["c"] for d in got["details"]] == cs
        for k in (4, 8):
            for tau in ("0.5", "1.0"):
                expected = sum(brute_g_pass(n, c, k, tau) for c in cs) / len(cs)
                assert got[f"G-Pass@{k}_{tau}"] == pytest.approx(100 * float(expected), abs=1e-9)
            expected = sum(brute_mg_pass(n, c, k) for c in cs) / len(cs)
            assert got[f"mG-Pass@{k}"] == pytest.approx(100 * float(expected), abs=1e-9)


# ------------------------------------------------------------------------ packaging


def test_every_subpackage_is_listed_in_pyproject():
    """pyproject lists packages explicitly (needed to map gpassk_oc.templates onto
    opencompass_config_templates/); a new sub-package must be added there."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "gpassk_oc").rglob("__init__.py")
    }
    assert found | {"gpassk_oc.templates"} == listed


def test_wheel_ships_the_templates_as_package_data(tmp_path):
    """`pip wheel` of a copy of the sources (so nothing is built inside the checkout): the
    templates are real files at gpassk_oc/templates/, byte-identical to the repository's."""
    import shutil
    import zipfile

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("gpassk_oc", "opencompass_config_templates"):
        shutil.copytree(
            ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        cwd=tmp_path,
    )
    (wheel,) = (tmp_path / "dist").glob("gpassk_oc-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        shipped = {
            Path(n).name: zf.read(n)
            for n in zf.namelist()
            if n.startswith("gpassk_oc/templates/") and n.endswith(".py")
        }
    assert shipped == {name: (TEMPLATES / name).read_bytes() for name in SHIPPED}


def test_importing_the_generator_imports_neither_opencompass_nor_mmengine():
    code = (
        "import sys, gpassk_oc.configgen, gpassk_oc.configgen.schema; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('opencompass', 'mmengine', 'datasets', 'torch')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert out.strip() == "[]"
