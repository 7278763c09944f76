"""Tests of the config generator (gpassk_oc.configgen, dump_opencompass_configs.py).

Expected names and counts are computed here independently of the generator: the exact
file name is the literal string from issue 4, counts come from itertools.product over the
template's own lists, and generated files are read back with mmengine exactly as the
`opencompass` CLI reads them (lazy parsing, so gpassk_oc.datasets need not exist yet).
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
from gpassk_oc.configgen import TemplateError, generate, resolve_template
from gpassk_oc.core.naming import parse_dataset_abbr, parse_model_abbr

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "opencompass_config_templates"
SHIPPED = ["nono1.py", "o1.py", "close.py", "demo.py"]
EXAMPLE = ("deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192"
           "@LiveMathBench-v202412-k4_8_16-r3.py")  # verbatim from the issue
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
    return subprocess.run([sys.executable, str(ROOT / "dump_opencompass_configs.py"), *argv],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


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
    expected = len(list(itertools.product(models, sampled, [0.8, 0.95],
                                          [(4, 8), (4, 8, 16)], [1, 2])))
    expected += len(models) if 0.0 in temps else 0  # one greedy config per model
    configs = generate(write(tmp_path, GRID.format(temps=temps)))
    assert len(configs) == expected
    assert len({c.name for c in configs}) == expected


def test_n_alias_gives_one_replication_per_k_list(tmp_path):
    path = write(tmp_path, """
        llm_infos = [('org/m', 1, 8)]
        temperature = 0.7
        top_p = 0.8
        ks = [[4, 8, 16], [6, 12]]
        n = 48
    """)
    names = sorted(c.name for c in generate(path))
    assert names == sorted([
        "m_t0-7_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py",
        "m_t0-7_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k6_12-r4.py",
    ])


def test_integer_k_alias(tmp_path):
    path = write(tmp_path, BASE.replace("ks = [[4, 8, 16]]", "k = 16"))
    assert [c.name for c in generate(path)] == [EXAMPLE.replace("-k4_8_16-", "-k16-")]


def test_gpassk_scalar_aliases(tmp_path):
    path = write(tmp_path, """
        llm_infos = [('org/m', 1, 8)]
        temperatures = [1.0]
        top_p = 0.8
        k = [4, 8, 16]
        replication = 3
    """)
    assert [c.name for c in generate(path)] == [
        "m_t1-0_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py"]


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


def _all_shipped(tmp_path: Path) -> list[Path]:
    files = []
    for name in SHIPPED:
        out = tmp_path / name
        configgen.write_configs(generate(TEMPLATES / name), out)
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
        assert dataset["infer_cfg"]["inferencer"]["type"] == \
            "opencompass.openicl.icl_inferencer.GenInferencer"
        if model["type"] == "opencompass.models.TurboMindModelwithChatTemplate":
            gen = model["gen_config"]
            assert gen["do_sample"] is (setting.temperature > 0)
            assert gen["temperature"] == setting.temperature
            assert gen["top_p"] == setting.top_p and gen["top_k"] == setting.top_k
            assert model["run_cfg"]["num_gpus"] == model["engine_config"]["tp"] >= 1
            assert model["engine_config"]["max_batch_size"] == model["batch_size"]
            assert "random_seed" not in gen  # a fixed per-request seed repeats samples
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
            ns["replications"]) + (models if 0 in temps else 0)
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
    path = write(tmp_path, """
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
    """)
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


def test_judge_kwargs_only_with_urls(tmp_path):
    path = write(tmp_path, BASE + "eval_urls = ['http://127.0.0.1:8000/v1']\n"
                                  "eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'\n")
    out = tmp_path / "out"
    configgen.write_configs(generate(path), out)
    evaluator = load(out / EXAMPLE)["datasets"][0]["eval_cfg"]["evaluator"]
    assert evaluator["judge"] == {"urls": ["http://127.0.0.1:8000/v1"],
                                  "model": "Qwen/Qwen2.5-72B-Instruct"}
    out2 = tmp_path / "out2"
    configgen.write_configs(generate(write(tmp_path, BASE, "rule.py")), out2)
    assert "judge" not in load(out2 / EXAMPLE)["datasets"][0]["eval_cfg"]["evaluator"]


def test_files_are_readable_python_with_one_kwarg_per_line(tmp_path):
    text = generate(write(tmp_path, BASE))[0].text
    compile(text, "generated", "exec")
    assert text.startswith("# Generated by `gpassk-oc dump` from template tpl.py")
    assert "from gpassk_oc.datasets import LiveMathBenchDataset\n" in text
    assert "from gpassk_oc.evaluators import GPassKEvaluator\n" in text
    assert "\n        abbr='deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192',\n" in text
    assert "\n        n=48,\n" in text


# --------------------------------------------------------------------- determinism


def test_byte_identical_reruns_across_processes(tmp_path):
    outs = []
    for seed in ("1", "2"):  # different hash seeds catch set/dict-order dependence
        out = tmp_path / f"out{seed}"
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
        for name in SHIPPED:
            subprocess.run([sys.executable, str(ROOT / "dump_opencompass_configs.py"),
                            "-tc", name, "--output-dir", str(out)],
                           env=env, check=True, capture_output=True, timeout=120)
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outs[0] == outs[1]
    assert len(outs[0]) == sum(len(generate(TEMPLATES / n)) for n in SHIPPED)


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
    files = _all_shipped(tmp_path / "shipped")
    configgen.write_configs(generate(write(tmp_path, GRID.format(temps=[0, 1.0]))),
                            tmp_path / "grid")
    files += sorted((tmp_path / "grid").glob("*.py"))
    forbidden = [SECRET, str(tmp_path), str(ROOT), str(Path.home()), os.getcwd()]
    for path in files:
        text = path.read_text()
        for needle in forbidden:
            assert needle not in text, (path.name, needle)
        assert not re.search(r"""['"]/""", text), path.name  # no absolute path literal
        assert "key='ENV'" in text or "OpenAICompatible" not in text


def test_api_model_with_literal_key_is_refused(tmp_path):
    path = write(tmp_path, BASE.replace("llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]",
                                        f"api_models = [dict(path='m', key='{SECRET}', "
                                        "openai_api_base='http://x/v1')]"))
    with pytest.raises(TemplateError, match="never carry keys"):
        generate(path)


# ----------------------------------------------------------------------- validation


ERRORS = {
    "unknown variable": ("temperatuers = [0.3]\n", "unknown variable 'temperatuers'; did you "
                                                    "mean 'temperatures'?"),
    "empty list": ("temperatures = []\n", "temperatures is empty"),
    "empty models": ("llm_infos = []\n", "llm_infos is empty"),
    "duplicate model": ("llm_infos = [('a/deepseek-math-7b-rl', 1, 8), "
                        "('b/deepseek-math-7b-rl', 1, 8)]\n", "duplicate model"),
    "duplicate temperature": ("temperatures = [0.3, 0.30]\n", "lists 0.3 twice"),
    "k > n": ("n = 8\ndel replications\n", "k = 16 > n = 8"),
    "n not multiple": ("n = 40\ndel replications\n",
                       "n = 40 is not a multiple of max(k) = 16"),
    "negative temperature": ("temperatures = [-0.1]\n", "temperature -0.1 is negative"),
    "top_p zero": ("top_ps = [0.0]\n", "top_p 0.0 is not in (0, 1]"),
    "top_p above one": ("top_ps = [1.5]\n", "top_p 1.5 is not in (0, 1]"),
    "judge without urls": ("eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'\n",
                           "judge model 'Qwen/Qwen2.5-72B-Instruct' set but eval_urls is empty"),
    "urls without judge": ("eval_urls = ['http://127.0.0.1:8000/v1']\n",
                           "eval_urls set but eval_model_name is not"),
    "bad tp": ("llm_infos = [('a/m', 0, 8)]\n", "tensor parallel must be a positive integer"),
    "k not increasing": ("ks = [[8, 4]]\n", "must be strictly increasing"),
    "both n and replications": ("n = 48\n", "set either n or replications, not both"),
    "alias and plural": ("top_p = 0.8\n", "set either top_p or top_ps, not both"),
    "unnameable value": ("temperatures = [1e-05]\n", "cannot be written in a config name"),
    "at sign in model name": ("llm_infos = [('org/a@b', 1, 8)]\n", "contains '@'"),
    "unknown api model key": ("api_models = [dict(path='m', openai_api_base='http://x/v1', "
                              "tokenizer='t')]\n",
                              "api_models[0]: unknown key 'tokenizer'; did you mean "
                              "'tokenizer_path'?"),
    "missing grid axis": ("del ks\n", "missing variable 'ks' (or k)"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_each_validation_error_is_one_clear_line(tmp_path, case):
    extra, message = ERRORS[case]
    path = write(tmp_path, BASE + extra, "bad.py")
    with pytest.raises(TemplateError) as info:
        generate(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    # CLI: `error: <template name>: <message>` on stderr, exit 2, nothing written
    out = tmp_path / "out"
    result = dump(["-tc", str(path), "--output-dir", str(out)])
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: bad.py: {info.value}"
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.py"]


def test_syntax_error_shows_the_line(tmp_path):
    path = write(tmp_path, "temperatures = [0.3]\nks = [[4, 8]\nreplications = [1]\n", "bad.py")
    with pytest.raises(TemplateError, match=r"^line 2: "):
        generate(path)


def test_runtime_error_shows_python_error_and_line(tmp_path):
    path = write(tmp_path, BASE + "x = undefined_name + 1\n", "bad.py")
    line = (BASE + "x = undefined_name + 1\n").splitlines().index("x = undefined_name + 1") + 1
    with pytest.raises(TemplateError,
                       match=rf"^line {line}: NameError: name 'undefined_name' is not defined$"):
        generate(path)


def test_unreadable_template(tmp_path):
    path = tmp_path / "bin.py"
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(TemplateError, match="cannot read template"):
        generate(path)


def test_missing_template_lists_the_shipped_ones(tmp_path):
    result = dump(["-tc", "nono9.py"], cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: nono9.py: template not found")
    for name in SHIPPED:
        assert name in result.stderr


# ------------------------------------------------------------------- resolution, CLI


def test_bare_name_resolves_to_the_repo_templates(tmp_path):
    assert resolve_template("nono1.py", cwd=tmp_path) == TEMPLATES / "nono1.py"
    assert resolve_template("o1", cwd=tmp_path) == TEMPLATES / "o1.py"
    assert resolve_template("opencompass_config_templates/close.py", cwd=tmp_path) == \
        TEMPLATES / "close.py"


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


# --------------------------------------------------------------- GPassK-style templates


LEGACY = """
from itertools import product
from mmengine.config import read_base

with read_base():
    from opencompass.configs.datasets.livemathbench.livemathbench_gen import livemathbench_datasets

from opencompass.models import OpenAISDK

k = [4, 8, 16]
replication = 3
temperatures = [0.5, 1.0]
models = [
    dict(type=OpenAISDK, abbr=f'served-model_t{t}', path='served-model',
         key='%s', openai_api_base='http://127.0.0.1:9/v1', temperature=t,
         run_cfg=dict(num_gpus=0))
    for t in temperatures
]
lmb = livemathbench_datasets[0]
lmb.update(dict(k=k, n=48, abbr='LiveMathBench-v202412-k4_8_16-r3'))
datasets = [lmb]
""" % SECRET


def test_gpassk_style_template_one_file_per_pair(tmp_path):
    path = write(tmp_path, LEGACY, "legacy.py")
    out = tmp_path / "out"
    result = dump(["-tc", str(path), "--output-dir", str(out)])
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["served-model_t0-5@LiveMathBench-v202412-k4_8_16-r3.py",
                     "served-model_t1-0@LiveMathBench-v202412-k4_8_16-r3.py"]
    assert "'key' replaced by 'ENV'" in result.stderr
    for name in names:
        text = (out / name).read_text()
        assert SECRET not in text
        cfg = load(out / name)
        model, dataset = cfg["models"][0], cfg["datasets"][0]
        assert f"{model['abbr']}@{dataset['abbr']}.py" == name
        assert model["key"] == "ENV"
        assert model["type"] == "opencompass.models.OpenAISDK"
        assert dataset["type"].startswith("opencompass.datasets.")
        assert dataset["type"].endswith(".LiveMathBenchDataset")
        assert (dataset["k"], dataset["n"]) == ([4, 8, 16], 48)


def test_gpassk_style_duplicate_names_are_refused(tmp_path):
    body = LEGACY.replace("abbr=f'served-model_t{t}'", "abbr='served-model'")
    with pytest.raises(TemplateError, match="duplicate config name"):
        generate(write(tmp_path, body, "legacy.py"))


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
@pytest.mark.parametrize("template,pick", [("demo.py", "gpassk-demo-steady_t0-5_"),
                                           ("nono1.py", EXAMPLE)])
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
    env = dict(os.environ, PYTHONPATH=str(stub.parent), GPASSK_REAL_PKG=str(ROOT / "gpassk_oc"),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    result = subprocess.run([sys.executable, "-m", "opencompass.cli.main", str(config),
                             "-w", str(tmp_path / "work"), "--dry-run"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    assert re.search(r"Partitioned into [1-9]\d* tasks", log), log[-3000:]


# ------------------------------------------------------------------- real CLI run


@pytest.mark.e2e
def test_demo_config_runs_through_opencompass(tmp_path):
    """One generated demo config, run as its header says (`opencompass FILE -w DIR`)
    against a simulated endpoint that answers question q correctly in exactly c_q of
    its n calls; the results must equal brute-force values for those c_q."""
    from conftest import brute_g_pass, brute_mg_pass, offline_env, run_cli
    from gpassk_oc.core.sim_endpoint import ExactCountsResponder, SimEndpoint, questions_from_records
    from gpassk_oc.demo import problems
    from gpassk_oc.demo.run import derived_template

    n = 8  # the demo template with --quick overrides: k = [4, 8], replications = [1]
    records = [r for split in problems.SPLITS for lang in problems.LANGUAGES
               for r in problems.rows(split, lang)]
    questions = questions_from_records(records)
    counts = {q.text: (3 * i) % (n + 1) for i, q in enumerate(questions)}
    problems.write_dataset(tmp_path / "data")
    with SimEndpoint(ExactCountsResponder(questions, counts, n),
                     models=["gpassk-demo-steady", "gpassk-demo-shaky"]) as endpoint:
        template = write(tmp_path, derived_template((TEMPLATES / "demo.py").read_text(),
                                                    endpoint.url, tmp_path / "data", quick=True))
        configs = configgen.write_configs(generate(template), tmp_path / "configs")
        config = configs[0]  # one model: ExactCountsResponder counts calls per question
        proc = run_cli(tmp_path, [str(config), "-w", "work"], offline_env(), timeout=600)
    model, dataset = config.stem.split("@")
    results = list((tmp_path / "work").glob(f"*/results/{model}/{dataset}.json"))
    assert proc.returncode == 0 and len(results) == 1, (proc.stdout + proc.stderr)[-4000:]
    got = json.loads(results[0].read_text())
    cs = [counts[r["question"]] for r in records]
    assert got["run"]["n"] == n and [d["c"] for d in got["details"]] == cs
    for k in (4, 8):
        for tau in ("0.5", "1.0"):
            expected = sum(brute_g_pass(n, c, k, tau) for c in cs) / len(cs)
            assert got[f"G-Pass@{k}_{tau}"] == pytest.approx(100 * float(expected), abs=1e-9)
        expected = sum(brute_mg_pass(n, c, k) for c in cs) / len(cs)
        assert got[f"mG-Pass@{k}"] == pytest.approx(100 * float(expected), abs=1e-9)
