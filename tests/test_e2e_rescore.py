"""``gpassk-oc rescore`` on a work dir made by OpenCompass's OWN LiveMathBench config.

ONE session-scoped run of the real ``opencompass`` CLI (LocalRunner) on a config that
imports ``opencompass.configs.datasets.livemathbench.livemathbench_gen_9befbf`` through
``read_base()`` — the file unchanged — and sets what a user sets: the local data path,
n = 4 and k = [2, 4], an abbr holding ``_`` (with the config's own abbr OpenCompass's
evaluation crashes on ``key.split('_')[1]``), and its judge: OpenCompass's
``LiveMathBenchEvaluator`` asks ``tests/judge_server.py`` on 127.0.0.1, which answers yes
exactly when the candidate is the gold. The model is OpenCompass's own ``OpenAISDK`` with
a local tokenizer directory (no tiktoken download) against the simulated endpoint, which
is right in exactly c_q of the n calls for question q.

Expected values: c_q counted from the saved replies by the simulated endpoint's reply
format (a right reply boxes the gold verbatim), G-Pass@k_τ enumerated over k-subsets
(conftest.brute_g_pass) — never from gpassk_oc's own checker.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import brute_g_pass, offline_env, run_cli, write_layout
from judge_server import JudgeServer

from gpassk_oc.cli import main
from gpassk_oc.core.runs.results_file import read_results
from gpassk_oc.demo.sim_endpoint import WRONG_ANSWER, ExactCountsResponder, SimEndpoint, SimQuestion
from gpassk_oc.rescore.sidecar import read_sidecar

pytestmark = pytest.mark.e2e

N = 4
KS = [2, 4]
TAUS = ["0.0", "0.25", "0.5", "0.75", "1.0"]
MODEL = "oc-sim-model"
ABBR = "LiveMathBench_v202412"
#: the config's own splits × languages (CNMO, CCEE, AMC, WLPMC × cn, en): one question each
QUESTIONS = [
    ("CNMO", "cn", "计算 2 加 3。", "5", 4),
    ("CNMO", "en", "Compute 7 + 5.", "12", 3),
    ("CCEE", "cn", "计算 6 乘以 7。", "42", 2),
    ("CCEE", "en", "How many degrees are in a right angle?", "90", 1),
    ("AMC", "cn", "一个三角形的内角和是多少度？", "180", 0),
    ("AMC", "en", "What is 9 squared?", "81", 3),
    ("WLPMC", "cn", "计算 100 减 1。", "99", 1),
    ("WLPMC", "en", "How many sides does a hexagon have?", "6", 2),
]

CONFIG = """
from mmengine.config import read_base
from opencompass.models import OpenAISDK

with read_base():
    from opencompass.configs.datasets.livemathbench.livemathbench_gen_9befbf import (
        livemathbench_datasets,
    )

livemathbench_datasets[0].update(dict(path={data!r}, n={n}, k={ks!r}, abbr={abbr!r}))
livemathbench_datasets[0]['infer_cfg']['inferencer']['max_out_len'] = 512
livemathbench_datasets[0]['eval_cfg']['evaluator'].update(
    dict(model_name={tok!r}, url=[{judge!r}]))
datasets = livemathbench_datasets

models = [dict(
    type=OpenAISDK, abbr={model!r}, path='sim-model', tokenizer_path={tok!r},
    openai_api_base={url!r}, key='ENV', temperature=0.7, query_per_second=200, retry=1,
    max_seq_len=4096, max_out_len=512, batch_size=8, run_cfg=dict(num_gpus=0),
)]
"""


def _tokenizer(folder: Path) -> Path:
    """A tiny local Hugging Face tokenizer (OpenAISDK loads one eagerly; no download)."""
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers import models as tok_models
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(tok_models.WordLevel({"[UNK]": 0, "the": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def oc_own_run(tmp_path_factory):
    """OpenCompass's own config run once (infer + eval with its judge), then rescored."""
    cwd = tmp_path_factory.mktemp("oc_own")
    data = write_layout(
        cwd / "LiveMathBench", [(s, lang, q, g, (g,), c) for s, lang, q, g, c in QUESTIONS]
    )
    sims = [SimQuestion(text=q, gold=g) for _, _, q, g, _ in QUESTIONS]
    counts = {q: c for _, _, q, _, c in QUESTIONS}
    truth = {(q, g): True for _, _, q, g, _ in QUESTIONS}
    truth.update({(q, WRONG_ANSWER): False for _, _, q, _, _ in QUESTIONS})
    tok = _tokenizer(cwd / "tokenizer")
    with (
        SimEndpoint(ExactCountsResponder(sims, counts, n=N), models=["sim-model"]) as model,
        JudgeServer(truth) as judge,
    ):
        text = CONFIG.format(
            data=str(data),
            n=N,
            ks=KS,
            abbr=ABBR,
            tok=str(tok),
            judge=judge.url,
            model=MODEL,
            url=model.url,
        )
        (cwd / "cfg.py").write_text(text)
        start = time.monotonic()
        proc = run_cli(cwd, ["cfg.py", "-w", "outputs"], offline_env(), timeout=600)
        seconds = time.monotonic() - start
        judge_requests = judge.requests
    work = cwd / "outputs"
    runs = sorted(p for p in work.iterdir() if p.is_dir()) if work.is_dir() else []
    oc_results = runs[-1] / "results" / MODEL / f"{ABBR}.json" if runs else None
    if not oc_results or not oc_results.is_file():
        logs = [p.read_text(errors="replace")[-3000:] for p in work.rglob("*.out")]
        pytest.fail(f"opencompass run failed ({proc.returncode}):\n{proc.stderr[-3000:]}{logs}")
    out = cwd / "rescored"
    code = main(["rescore", str(work), "-o", str(out), "--data", str(data)])
    assert code == 0
    return {
        "work": work,
        "run": runs[-1],
        "out": out,
        "oc_results": oc_results,
        "judge_requests": judge_requests,
        "seconds": seconds,
    }


def _truth_c(run: Path) -> list[int]:
    """c_q from the saved replies: a right reply of the simulated endpoint boxes the gold."""
    preds = json.loads((run / "predictions" / MODEL / f"{ABBR}.json").read_text())
    q = len(QUESTIONS)
    assert len(preds) == q * N
    out = []
    for i, (_, _, text, gold, _) in enumerate(QUESTIONS):
        replies = [preds[str(r * q + i)] for r in range(N)]
        assert all(text in json.dumps(p["origin_prompt"], ensure_ascii=False) for p in replies)
        out.append(sum(1 for p in replies if f"\\boxed{{{gold}}}" in p["prediction"]))
    return out


def test_opencompass_reused_its_judge_labels(oc_own_run):
    data = json.loads(oc_own_run["oc_results"].read_text())
    labels = [d["correct"] for d in data["details"]]
    assert all(len(set(row)) == 1 for row in labels)  # every replica: replica 0's label
    assert oc_own_run["judge_requests"] == len(QUESTIONS)  # one request per question
    assert _truth_c(oc_own_run["run"]) == [c for *_, c in QUESTIONS]


def test_rescore_and_report_equal_brute_force(oc_own_run, capsys):
    out = oc_own_run["out"]
    res = read_results(out / oc_own_run["run"].name / "results" / MODEL / f"{ABBR}.json")
    cs = _truth_c(oc_own_run["run"])
    assert [q.c for q in res.questions] == cs
    assert [(q.split, q.language) for q in res.questions] == [
        (s, lang) for s, lang, *_ in QUESTIONS
    ]
    for k in KS:
        for tau in TAUS:
            want = sum((brute_g_pass(N, c, k, tau) for c in cs), Fraction(0)) * 100 / len(cs)
            assert res.metrics[f"G-Pass@{k}_{tau}"] == pytest.approx(float(want), abs=1e-9)
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json", "--k", "4", "--resamples", "200"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if not r["greedy"]]
    assert len(rows) == 1 and rows[0]["k"] == 4
    for tau in ("0.5", "0.75", "1.0"):
        want = sum((brute_g_pass(N, c, 4, tau) for c in cs), Fraction(0)) * 100 / len(cs)
        got = rows[0]["metrics"][f"G-Pass@4_{tau}"]["value"]
        assert got == pytest.approx(float(want), abs=1e-4)  # the JSON's 4 decimals


def test_label_reuse_detected_and_named(oc_own_run, capsys):
    run = oc_own_run["run"].name
    side = read_sidecar(oc_own_run["out"] / run / "rescore" / MODEL / f"{ABBR}.json")
    assert side is not None and side["task"]["judge_configured"] is True
    reused = next(r for r in side["reasons"] if r["kind"] == "labels_reused")
    # the samples whose truth differs from replica 0's: at most min(c, n - c) per question
    assert reused["changed"] > 0 and reused["samples"] == len(QUESTIONS) * N
    assert reused["judge_log_entries"] == len(QUESTIONS)  # OpenCompass's tmp_judge.json
    reported = {m["metric"]: m["opencompass"] for m in side["metrics"]}
    assert reported["G-Pass@4_0.5"] == reported["G-Pass@4_1.0"]  # the same at every τ
    capsys.readouterr()
    assert main(["report", str(oc_own_run["out"]), "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    assert "labels reused across replicas" in text and "OpenCompass reported" in text


def test_report_on_opencompass_work_dir_points_to_rescore(oc_own_run, capsys):
    capsys.readouterr()
    code = main(["report", str(oc_own_run["work"])])
    err = capsys.readouterr().err
    assert code == 2
    assert "OpenCompass's own LiveMathBench" in err and "gpassk-oc rescore" in err
