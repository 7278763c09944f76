"""Tests of the config generator (gpassk_oc.configgen, dump_opencompass_configs.py):
names, grid expansion, file contents, the grid config, determinism, the CLI, OpenCompass.

Expected names and counts are computed here independently of the generator: the exact
file name is the literal string from issue 4, counts come from itertools.product over the
template's own lists. Contents are checked on the config *data*; the rendered text is read
back with mmengine exactly as the `opencompass` CLI reads it and must equal that data.
Validation: test_configgen_schema.py; GPassK-style templates: test_configgen_gpassk.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from configgen_support import ROOT, SHIPPED, TEMPLATES, dump, write

from gpassk_oc import configgen
from gpassk_oc.configgen import generate

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
    "template,pick",
    [("demo.py", "gpassk-demo-steady_t0-5_"), ("nono1.py", "deepseek-math-7b-rl_t0-3_")],
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
    dataset = "LiveMathBench-v202412-CCEE-AMC-k4_8-r1"
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
