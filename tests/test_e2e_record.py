"""The run record, run health and missing results through the real ``opencompass`` CLI:
ONE invocation of a hand-written config (not from the generator) serves every test here.

Models (all ``OpenAICompatible`` on a simulated endpoint, n = 4 replies per question):

* ``alpha-hot`` / ``alpha-cold`` — one model (path ``alpha``) at T = 1.0 and T = 0.3, with
  names that follow no convention: the report must take T from the run record;
* ``odd-one`` — T = 1.0 but every reply to a question byte-identical: one constant reply to
  the AMC questions (longer than its ``max_out_len=8``: the endpoint cuts it to 8 tokens
  with ``finish_reason: "length"``) and an empty one to the CCEE questions ("stop"):
  identical-replica, truncation (exact, from the finish reasons) and empty-reply warnings
  with known counts;
* ``alpha-hot`` is also paired with a dataset whose data path does not exist: that pair has
  no results, and the report names its inference log.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import brute_mg_pass, offline_env, run_cli, write_layout

from gpassk_oc.demo.sim_endpoint import ExactCountsResponder, SimEndpoint, SimQuestion

pytestmark = pytest.mark.e2e

# (split, language, question, gold, forms, c_q at T=1.0, c_q at T=0.3) of N = 4 replies
QUESTIONS = [
    ("AMC", "en", "Compute 7 + 5.", "12", ("12", "12.0"), 1, 3),
    ("AMC", "en", "How many sides does a hexagon have?", "6", ("6", "6.0"), 2, 3),
    ("CCEE", "en", "Compute 3 times 4.", "12", ("12", "12.0"), 0, 2),
    (
        "CCEE",
        "en",
        "How many degrees do a triangle's angles add up to?",
        "180",
        ("180", "180.0"),
        3,
        3,
    ),
]
N, KS = 4, [2, 4]
DATASET, BROKEN = "tiny-math", "tiny-math-gone"
CONSTANT = "I think the answer is $\\boxed{7}$ because seven is my lucky number."

CONFIG = """
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever
from opencompass.partitioners import NaivePartitioner
from opencompass.runners import LocalRunner
from opencompass.tasks import OpenICLEvalTask, OpenICLInferTask

from gpassk_oc.datasets import LiveMathBenchDataset
from gpassk_oc.evaluators import GPassKEvaluator
from gpassk_oc.models import OpenAICompatible

def dataset(abbr, path):
    return dict(
        type=LiveMathBenchDataset, abbr=abbr, path=path, version='202412',
        dataset_splits=['AMC', 'CCEE'], dataset_languages=['en'], cot=True,
        k={ks}, n={n},
        reader_cfg=dict(input_columns=['prompt'], output_column='answer'),
        infer_cfg=dict(
            prompt_template=dict(type=PromptTemplate,
                                 template=dict(round=[dict(role='HUMAN', prompt='{{prompt}}')])),
            retriever=dict(type=ZeroRetriever),
            inferencer=dict(type=GenInferencer)),
        eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, k={ks})))

def model(abbr, path, temperature, max_out_len=512):
    return dict(type=OpenAICompatible, abbr=abbr, path=path, openai_api_base={url!r},
                key='ENV', temperature=temperature, top_p=0.9, query_per_second=200, retry=1,
                max_seq_len=4096, max_out_len=max_out_len, batch_size=16,
                run_cfg=dict(num_gpus=0))

good = dataset({dataset!r}, 'data/tiny')
models = [model('alpha-hot', 'alpha', 1.0), model('alpha-cold', 'alpha', 0.3),
          model('odd-one', 'odd', 1.0, max_out_len=8)]
datasets = [good, dataset({broken!r}, 'data/nowhere')]
model_dataset_combinations = [
    dict(models=models, datasets=[good]),
    dict(models=[models[0]], datasets=[datasets[1]]),
]
infer = dict(partitioner=dict(type=NaivePartitioner),
             runner=dict(type=LocalRunner, max_num_workers=2, task=dict(type=OpenICLInferTask)))
eval = dict(partitioner=dict(type=NaivePartitioner),
            runner=dict(type=LocalRunner, max_num_workers=2, task=dict(type=OpenICLEvalTask)))
del dataset, model
"""


class Responder:
    """alpha: exact counts per temperature; odd: a constant reply (AMC) or '' (CCEE)."""

    def __init__(self) -> None:
        questions = [SimQuestion(q, g, forms) for _, _, q, g, forms, _, _ in QUESTIONS]
        self.alpha = {
            t: ExactCountsResponder(questions, {q[2]: q[col] for q in QUESTIONS}, n=N)
            for t, col in ((1.0, 5), (0.3, 6))
        }

    def __call__(self, model: str, messages: list, params: dict) -> str:
        if model == "alpha":
            return self.alpha[float(params["temperature"])](model, messages, params)
        amc = any(q in str(messages) for split, _, q, *_ in QUESTIONS if split == "AMC")
        return CONSTANT if amc else ""


@pytest.fixture(scope="module")
def record_run(tmp_path_factory) -> tuple[Path, Path]:
    cwd = tmp_path_factory.mktemp("record_e2e")
    write_layout(cwd / "data" / "tiny", QUESTIONS)
    with SimEndpoint(Responder(), models=["alpha", "odd"]) as endpoint:
        config = CONFIG.format(url=endpoint.url, ks=KS, n=N, dataset=DATASET, broken=BROKEN)
        (cwd / "cfg.py").write_text(config)
        start = time.monotonic()
        proc = run_cli(
            cwd, ["cfg.py", "-w", "outputs", "--dump-eval-details"], offline_env(), timeout=900
        )
        seconds = time.monotonic() - start
    (run_dir,) = [p for p in (cwd / "outputs").iterdir() if p.is_dir()]
    results = run_dir / "results"
    if proc.returncode != 0 or len(list(results.glob(f"*/{DATASET}.json"))) != 3:
        logs = "\n".join(p.read_text()[-2000:] for p in sorted(run_dir.rglob("*.out")))
        pytest.fail(f"opencompass run failed (rc={proc.returncode}, {seconds:.0f} s):\n{logs}")
    return cwd, run_dir


def report_cli(capsys, *args) -> tuple[int, str, str]:
    from report_support import run_cli as gpassk_cli

    return gpassk_cli(capsys, "report", *args)


def mg(counts: list[int], k: int) -> float:
    return float(100 * sum(brute_mg_pass(N, c, k) for c in counts) / len(counts))


def test_hand_written_config_records_its_settings(record_run):
    _, run_dir = record_run
    data = json.loads((run_dir / "results" / "alpha-cold" / f"{DATASET}.json").read_text())
    assert data["schema"] == "gpassk_oc.results/4"
    record = data["record"]
    assert record["source"] == "work-dir config"  # no run_record kwarg: read from the dump
    assert (record["model_abbr"], record["model_path"], record["engine"]) == (
        "alpha-cold",
        "alpha",
        "openai-api",
    )
    assert (record["temperature"], record["top_p"], record["seed"]) == (0.3, 0.9, "not sent")
    # the run spec is stored once, in run (replication = n / max(k) = 1)
    assert record["max_out_len"] == 512
    assert not {"ks", "thresholds", "n", "replication"} & set(record)
    assert (data["run"]["ks"], data["run"]["n"], N // max(KS)) == (KS, N, 1)
    assert (record["splits"], record["languages"], record["dataset_version"]) == (
        ["AMC", "CCEE"],
        ["en"],
        "202412",
    )
    assert record["opencompass_version"] == "0.5.4" and record["check"] == "rules"


def test_leaderboard_and_plot_take_temperature_from_the_record(record_run, capsys):
    cwd, run_dir = record_run
    code, out, err = report_cli(capsys, cwd / "outputs", "--format", "json", "--resamples", "0")
    assert code == 0, err
    rows = {r["model"]: r for r in json.loads(out)}
    assert rows["alpha-hot"]["setting"]["temperature"] == 1.0
    assert rows["alpha-cold"]["setting"]["temperature"] == 0.3
    assert rows["alpha-hot"]["base_model"] == rows["alpha-cold"]["base_model"] == "alpha"
    from gpassk_oc.report import build_report
    from gpassk_oc.report.page.plots import mg_vs_temperature_curves

    report = build_report([cwd / "outputs"], n_boot=0)
    (curve,) = [c for c in mg_vs_temperature_curves(report, report.rows) if c["label"] == "alpha"]
    assert curve["x"] == [0.3, 1.0]
    expected = [mg([q[col] for q in QUESTIONS], report.k) for col in (6, 5)]
    assert curve["y"] == pytest.approx(expected, abs=1e-4)  # figure data: 4 decimals


def test_report_warns_with_exact_counts_and_marks_rows(record_run, capsys):
    cwd, run_dir = record_run
    code, out, err = report_cli(capsys, cwd / "outputs", "--resamples", "0")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    odd, q, samples = f"odd-one/{DATASET}", len(QUESTIONS), len(QUESTIONS) * N
    half = samples // 2  # the AMC half is the constant reply, the CCEE half empty
    expected = [
        f"warning: {odd}: {q} of {q} (100.0%) questions have all {N} replies byte-identical "
        f"({q * (N - 1)} of {samples} (75.0%) replies repeat an earlier one) at T=1: the "
        "engine ignores temperature or a fixed seed is sent",
        f"warning: {odd}: {half} of {samples} (50.0%) samples truncated (0 thinking never "
        f"closed, {half} reached max_out_len=8 by the server's finish reason): raise "
        "max_out_len; "
        "G-Pass here measures the budget as much as the model",
        f"warning: {odd}: {half} of {samples} (50.0%) replies are empty: the endpoint",
    ]
    for start in expected:
        assert any(w.startswith(start) for w in warnings), (start, warnings)
    assert not any(
        w.startswith(("warning: alpha-cold/", f"warning: alpha-hot/{DATASET}")) for w in warnings
    )
    # the pair whose data is missing: named with its inference log
    (missing,) = [w for w in warnings if BROKEN in w]
    log = run_dir / "logs" / "infer" / "alpha-hot" / f"{BROKEN}.out"
    assert f"configured alpha-hot/{BROKEN} has no results file (inference failed" in missing
    assert str(log) in missing and log.is_file()
    # rows with warnings are marked; the healthy ones are not
    assert "| odd ⚠ |" in out and "| alpha |" in out


def test_health_section_counts(record_run):
    _, run_dir = record_run
    path = run_dir / "results" / "odd-one" / f"{DATASET}.json"
    health = json.loads(path.read_text())["health"]
    overall = health["overall"]
    assert (overall["samples"], overall["empty"], overall["identical_questions"]) == (16, 8, 4)
    assert (overall["truncated_length"], overall["duplicate_responses"]) == (8, 12)
    assert (
        health["groups"]["AMC/en"]["truncated"] == 8 and health["groups"]["CCEE/en"]["empty"] == 8
    )
    assert health["length_basis"] == "finish_reason" and health["max_out_len"] == 8
    # each sample's facts as the endpoint sent them: AMC cut at 8 whitespace tokens
    details = json.loads(path.read_text())["details"]
    amc = [d for d in details if d["split"] == "AMC"]
    assert all(d["finish_reason"] == ["length"] * N for d in amc)
    assert all(d["output_tokens"] == [8] * N for d in amc)
    assert all(d["finish_reason"] == ["stop"] * N for d in details if d["split"] == "CCEE")
