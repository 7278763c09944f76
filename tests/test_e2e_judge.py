"""The LLM judge end to end through the real ``opencompass`` CLI (LocalRunner), offline.

Two CLI runs in one work dir (``-w outputs``):

1. a full run (infer + eval) of a small local-layout dataset whose golds include answers
   the rules cannot decide (text, a symbolic answer with a variable, Chinese text); the
   model is the simulated endpoint (exactly ``c_q`` of n samples correct per question) and
   the evaluator's judge is ``tests/judge_server.py`` on 127.0.0.1, configured only as
   ``GPassKEvaluator(judge=dict(urls=[...], model=...))`` (no ``check``: the judge turns
   cascade checking on);
2. the eval stage only, in a NEW timestamp dir of the same work dir: it must take every
   label from the shared judgement cache (zero judge requests) and give identical
   metrics. The same run evaluates a second dataset abbr whose judge endpoint is down:
   that eval task must fail with the UnjudgedError message in its task log; and a third
   abbr judged by a model named LiveMath-Judge: its judge must receive exactly
   OpenCompass's own LiveMathBench judge prompts (``prompt='auto'`` picks them by the
   name), English and Chinese by item, and give the same metrics.

Expected metrics come from brute force over k-subsets with fractions (conftest), judge
call counts from the data table below — never from gpassk_oc's own rule code.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
import time
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import brute_g_pass, brute_mg_pass, offline_env, run_cli, write_layout
from judge_server import JudgeServer
from opencompass.datasets.livemathbench.prompts import JUDGE_PROMPT_CN, JUDGE_PROMPT_EN

from gpassk_oc.core.judging.judge import PROMPT_CN, PROMPT_EN
from gpassk_oc.core.judging.judge_cache import judgement_key
from gpassk_oc.demo.sim_endpoint import (
    NO_ANSWER_REPLY,
    WRONG_ANSWER,
    ExactCountsResponder,
    SimEndpoint,
    SimQuestion,
)

pytestmark = pytest.mark.e2e

N = 8
KS = [2, 4]
TAUS = ["0.0", "0.25", "0.5", "0.75", "1.0"]
MODEL_ABBR = "sim-model_t0-7_p0-9_k-1_rp1-0_rs0_l512"
ABBR = "LiveMathBench-v202412-k2_4-r2"
DOWN_ABBR = "LiveMathBench-v202412-k2_4-r2-judgedown"
JUDGE_MODEL = "sim-judge"
LMJ_ABBR = "LiveMathBench-v202412-k2_4-r2-lmjudge"
LMJ_MODEL = "opencompass/LiveMath-Judge-sim"  # 'auto' → OpenCompass's judge prompt
CACHE_DIRNAME = ".gpassk_judge_cache"  # spelled out: the test pins the documented location

#: (split, lang, question, gold, correct forms the model writes, c_q,
#:  forms the rules cannot decide (hand-labelled), whether the model's wrong answer
#:  -987654321 is undecidable against this gold (text/symbolic golds) or plainly wrong)
QUESTIONS = [
    (
        "AMC",
        "en",
        "Which day of the week comes right after Monday?",
        r"\text{Tuesday}",
        ("Tuesday is the day", r"\text{Tuesday}"),
        5,
        {"Tuesday is the day"},
        True,
    ),
    (
        "AMC",
        "en",
        "In how many ways can 2 of n+1 people be chosen?",
        r"\frac{n(n+1)}{2}",
        ("C_{n+1}^{2}", "n(n+1)/2"),
        3,
        {"C_{n+1}^{2}"},
        True,
    ),
    ("AMC", "cn", "计算 3 乘以 4。", "12", ("12",), 3, set(), False),
    ("CCEE", "en", "Compute 7 + 5.", "12", ("12", "12.0"), 8, set(), False),
    (
        "CCEE",
        "cn",
        "星期一的下一天是星期几？",
        r"\text{星期二}",
        ("答案是星期二这一天", r"\text{星期二}"),
        2,
        {"答案是星期二这一天"},
        True,
    ),
]


def produced_answers(forms, c):
    """The distinct answers ExactCountsResponder gives over N calls (see its docstring):
    call j < c boxes forms[j % len(forms)]; a wrong call j >= c boxes WRONG_ANSWER when j
    is even and, when j is odd, writes NO_ANSWER_REPLY — no answer to extract, so in
    cascade mode the judge sees that reply itself."""
    answers = {forms[j % len(forms)] for j in range(c)}
    if any(j % 2 == 0 for j in range(c, N)):
        answers.add(WRONG_ANSWER)
    if any(j % 2 for j in range(c, N)):
        answers.add(NO_ANSWER_REPLY)
    return answers


def judge_truth():
    """The judge's labels: one per (question, answer) the rules cannot decide."""
    truth = {}
    for _s, _l, question, _g, forms, c, judge_forms, wrong_needs_judge in QUESTIONS:
        for answer in produced_answers(forms, c):
            if answer in judge_forms:
                truth[(question, answer)] = True
            elif answer == WRONG_ANSWER and wrong_needs_judge or answer == NO_ANSWER_REPLY:
                truth[(question, answer)] = False
    return truth


def expected_metrics(counts):
    out = {}
    for k in KS:
        for tau in TAUS:
            out[f"G-Pass@{k}_{tau}"] = float(
                sum(brute_g_pass(N, c, k, tau) for c in counts) / len(counts) * 100
            )
        out[f"mG-Pass@{k}"] = float(sum(brute_mg_pass(N, c, k) for c in counts) / len(counts) * 100)
    out["pass@1"] = float(Fraction(sum(counts), N * len(counts)) * 100)
    return out


def expected_all():
    expected = expected_metrics([q[5] for q in QUESTIONS])
    groups = {}
    for split, lang, *_rest in QUESTIONS:
        groups.setdefault(f"{split}/{lang}", []).append(_rest[3])
    for group, counts in groups.items():
        expected.update({f"{group}/{k}": v for k, v in expected_metrics(counts).items()})
    return expected


def dataset_block(abbr, judge):
    return f"""dict(
    type=LiveMathBenchDataset, abbr={abbr!r}, path='data/LiveMathBench', version='202412',
    dataset_splits=['AMC', 'CCEE'], dataset_languages=['en', 'cn'], cot=True, k={KS!r}, n={N},
    reader_cfg=dict(input_columns=['prompt'], output_column='answer'),
    infer_cfg=dict(
        prompt_template=dict(type=PromptTemplate,
                             template=dict(round=[dict(role='HUMAN', prompt='{{prompt}}')])),
        retriever=dict(type=ZeroRetriever),
        inferencer=dict(type=GenInferencer, max_out_len=512)),
    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, judge={judge!r})),
)"""


def config(model_url, datasets):
    """A user-style config; the judge is configured only through ``judge=dict(...)``."""
    return f"""
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_oc.datasets import LiveMathBenchDataset
from gpassk_oc.evaluators import GPassKEvaluator
from gpassk_oc.models import OpenAICompatible

datasets = [{", ".join(dataset_block(abbr, judge) for abbr, judge in datasets)}]
models = [dict(
    type=OpenAICompatible, abbr={MODEL_ABBR!r}, path='sim-model',
    openai_api_base={model_url!r}, key='ENV', temperature=0.7, top_p=0.9,
    query_per_second=200, retry=1, max_seq_len=4096, max_out_len=512, batch_size=24,
    run_cfg=dict(num_gpus=0),
)]
"""


def timestamps(work_dir: Path):
    return sorted(p.name for p in work_dir.iterdir() if re.fullmatch(r"\d{8}_\d{6}", p.name))


def task_logs(run_dir: Path) -> str:
    return "\n".join(
        f"--- {p}\n{p.read_text(errors='replace')}"
        for p in sorted((run_dir / "logs").rglob("*.out"))
    )


@pytest.fixture(scope="module")
def judged_runs(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("oc_judge")
    write_layout(cwd / "data" / "LiveMathBench", QUESTIONS)
    sims = [
        SimQuestion(text=q, gold=g, correct_forms=forms) for _s, _l, q, g, forms, *_ in QUESTIONS
    ]
    responder = ExactCountsResponder(sims, {q[2]: q[5] for q in QUESTIONS}, n=N)
    with SimEndpoint(responder, models=["sim-model"]) as sim, JudgeServer(judge_truth()) as judge:
        judge_cfg = dict(urls=[judge.url], model=JUDGE_MODEL)
        (cwd / "cfg.py").write_text(config(sim.url, [(ABBR, judge_cfg)]))
        start = time.monotonic()
        first = run_cli(cwd, ["cfg.py", "-w", "outputs", "--dump-eval-details"], offline_env())
        first_seconds = time.monotonic() - start
        work = cwd / "outputs"
        stamps = timestamps(work) if work.exists() else []
        ts1 = stamps[-1] if stamps else ""
        results1 = work / ts1 / "results" / MODEL_ABBR / f"{ABBR}.json"
        if first.returncode != 0 or not results1.exists():
            pytest.fail(
                f"first run failed (rc={first.returncode}):\n{first.stdout[-3000:]}\n"
                f"{first.stderr[-3000:]}\n{task_logs(work / ts1)[-6000:] if ts1 else ''}"
            )
        judge_requests_1 = judge.requests
        judge_calls_1 = dict(judge.calls)
        judge_models_1 = dict(judge.models)

        # Second run, eval stage only, in a NEW timestamp of the same work dir. The
        # cheapest honest way: a new timestamp dir holding the first run's predictions
        # (byte-identical inputs, so "identical metrics" is a meaningful check), then
        # `-m eval -r latest`. That dir has no results, so OpenCompass really evaluates;
        # it is not the first run's dir, so nothing but the shared judgement cache can
        # carry labels over; and `-r latest` must pick it (not the cache dir) as newest.
        # Inference (another ~10 s of sim calls) would add nothing to what is tested.
        ts2 = "29991231_235959"
        shutil.copytree(work / ts1 / "predictions", work / ts2 / "predictions")
        # a second dataset abbr over the same predictions, judged by a dead endpoint
        for abbr in (DOWN_ABBR, LMJ_ABBR):
            shutil.copy(
                work / ts2 / "predictions" / MODEL_ABBR / f"{ABBR}.json",
                work / ts2 / "predictions" / MODEL_ABBR / f"{abbr}.json",
            )
        with socket.socket() as s:  # a port nothing listens on once this socket closes
            s.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        down_cfg = dict(
            urls=[dead], model="down-judge", max_retries=1, backoff_base=0.01, timeout=5
        )
        lmj_cfg = dict(urls=[judge.url], model=LMJ_MODEL)
        (cwd / "cfg2.py").write_text(
            config(sim.url, [(ABBR, judge_cfg), (DOWN_ABBR, down_cfg), (LMJ_ABBR, lmj_cfg)])
        )
        sim_requests = sim.num_requests
        received_1 = len(judge.received)
        start = time.monotonic()
        second = run_cli(
            cwd,
            ["cfg2.py", "-w", "outputs", "--dump-eval-details", "-m", "eval", "-r", "latest"],
            offline_env(),
        )
        second_seconds = time.monotonic() - start
        yield dict(
            cwd=cwd,
            work=work,
            ts1=ts1,
            ts2=ts2,
            first=first,
            second=second,
            results1=json.loads(results1.read_text()),
            results2_path=work / ts2 / "results" / MODEL_ABBR / f"{ABBR}.json",
            down_path=work / ts2 / "results" / MODEL_ABBR / f"{DOWN_ABBR}.json",
            judge_requests_1=judge_requests_1,
            judge_calls_1=judge_calls_1,
            received_2=judge.received[received_1:],
            lmj_path=work / ts2 / "results" / MODEL_ABBR / f"{LMJ_ABBR}.json",
            judge_unknown=list(judge.unknown),
            judge_models_1=judge_models_1,
            sim_requests_2=sim.num_requests - sim_requests,
            dead=dead,
            seconds=(first_seconds, second_seconds),
        )


def test_metrics_equal_independent_values(judged_runs):
    results = judged_runs["results1"]
    for key, value in expected_all().items():
        assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    details = results["details"]
    assert [d["c"] for d in details] == [q[5] for q in QUESTIONS]
    assert all(d["n"] == N and None not in d["correct"] for d in details)
    assert (
        results["run"]["check"],
        results["accounting"]["unjudged"],
        results["run"]["judge"]["model"],
    ) == ("cascade", 0, JUDGE_MODEL)


def test_judge_called_once_per_unique_undecided_pair(judged_runs):
    truth = judge_truth()
    # both text golds and the symbolic gold need the judge for some answers
    # ... and every question with a wrong call that gives no answer (all but question 3)
    assert {q for q, _ in truth} == {QUESTIONS[i][2] for i in (0, 1, 2, 4)}
    assert judged_runs["judge_unknown"] == []  # never asked about a rule-decidable pair
    assert judged_runs["judge_calls_1"] == {pair: 1 for pair in truth}
    assert judged_runs["judge_requests_1"] == len(truth)
    assert judged_runs["judge_models_1"] == {JUDGE_MODEL: len(truth)}
    results = judged_runs["results1"]
    acc = results["accounting"]
    assert acc["judge_calls"] == acc["judged"] == acc["unique_pairs"] == len(truth)
    # samples decided by the judge = samples whose answer is one of the judged pairs
    for detail, (_s, _l, question, *_r) in zip(results["details"], QUESTIONS):
        # what the judge saw: the answer, or the whole reply when none was extracted
        shown = [NO_ANSWER_REPLY if e is None else e for e in detail["extracted"]]
        judged = [a for a, src in zip(shown, detail["source"]) if src == "judge"]
        assert all((question, a) in truth for a in judged)
        assert sum(src == "judge" for src in detail["source"]) == sum(
            (question, a) in truth for a in shown
        )


def test_accounting_is_consistent(judged_runs):
    r = dict(judged_runs["results1"]["accounting"], details=judged_runs["results1"]["details"])
    samples = N * len(QUESTIONS)
    assert r["samples"] == samples
    assert r["rule_decided"] + r["cache_hits"] + r["judged_samples"] + r["unjudged"] == samples
    assert r["cache_hits"] == 0 and r["cache_hit_pairs"] == 0 and r["unjudged_pairs"] == 0
    sources = [s for d in r["details"] for s in d["source"]]
    assert sources.count("judge") == r["judged_samples"]
    assert sources.count("rule") == r["rule_decided"]
    # every reply is non-empty: a reply without an answer goes to the judge, not no_answer
    assert r["no_answer"] == r["rule_undecided"] == 0
    assert sources.count("judge") >= sum(
        1 for *_x, c, _f, _w in QUESTIONS for j in range(c, N) if j % 2
    )
    assert r["excluded_questions"] == {str(k): 0 for k in KS}


def cache_records(work: Path):
    return [
        json.loads(line)
        for f in (work / CACHE_DIRNAME).glob("judgements-*.jsonl")
        for line in f.read_text().splitlines()
        if line.strip()
    ]


def sha16(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_cache_lives_in_the_work_dir(judged_runs):
    cache = judged_runs["work"] / CACHE_DIRNAME
    assert judged_runs["results1"]["accounting"]["judge_cache"] == str(cache)
    records = cache_records(judged_runs["work"])
    # provenance: the task id is model abbr / dataset abbr (run 2 adds the LiveMath-Judge task)
    assert {rec["task"] for rec in records} == {f"{MODEL_ABBR}/{ABBR}", f"{MODEL_ABBR}/{LMJ_ABBR}"}
    lines = [rec for rec in records if rec["task"] == f"{MODEL_ABBR}/{ABBR}"]
    assert len(lines) == len(judge_truth())
    # the dataset's language column picked our own prompt ('auto', a judge not named
    # LiveMath-Judge): its name and the hash of its text are in the key
    language = {q[2]: q[1] for q in QUESTIONS}
    for rec in lines:
        lang = language[rec["question"]]
        version = f"gpassk-{lang}:{sha16(PROMPT_EN if lang == 'en' else PROMPT_CN)}"
        assert rec["key"] == judgement_key(
            JUDGE_MODEL, version, rec["question"], rec["gold"], rec["answer"]
        ), rec
    assert not any((judged_runs["work"] / judged_runs["ts1"]).rglob("judgements-*.jsonl"))


def test_livemath_judge_receives_exactly_opencompass_prompt(judged_runs):
    """The judge named LiveMath-Judge gets OpenCompass's own prompt text, formatted here
    from the constants OpenCompass ships, once per undecided pair, in the item's language."""
    sent = [
        (prompt, tokens)
        for model, prompt, tokens in judged_runs["received_2"]
        if model == LMJ_MODEL
    ]
    gold = {q[2]: q[3] for q in QUESTIONS}
    language = {q[2]: q[1] for q in QUESTIONS}
    expected = sorted(
        (JUDGE_PROMPT_EN if language[q] == "en" else JUDGE_PROMPT_CN).format(
            question=q, gold_answer=gold[q], answer=a
        )
        for q, a in judge_truth()
    )
    assert sorted(p for p, _ in sent) == expected
    assert {tokens for _, tokens in sent} == {8192}  # OpenCompass's request size
    assert {language[q] for q, _ in judge_truth()} == {"en", "cn"}  # both prompts exercised
    assert judged_runs["judge_unknown"] == []
    # the fake judge's verdicts, read as OpenCompass reads them, give the same metrics
    path = judged_runs["lmj_path"]
    assert path.exists(), task_logs(judged_runs["work"] / judged_runs["ts2"])[-5000:]
    results = json.loads(path.read_text())
    for key, value in expected_all().items():
        assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    judge, acc = results["run"]["judge"], results["accounting"]
    assert (judge["model"], judge["prompt_name"], acc["unjudged"]) == (LMJ_MODEL, "opencompass", 0)
    assert judge["prompt_versions"] == {
        lang: f"opencompass-{lang}:{sha16(text)}"
        for lang, text in (("en", JUDGE_PROMPT_EN), ("cn", JUDGE_PROMPT_CN))
    }
    assert acc["judged"] == len(judge_truth()) and acc["cache_hit_pairs"] == 0
    assert judged_runs["results1"]["run"]["judge"]["prompt_name"] == "gpassk"
    lines = [
        rec
        for rec in cache_records(judged_runs["work"])
        if rec["task"] == f"{MODEL_ABBR}/{LMJ_ABBR}"
    ]
    assert len(lines) == len(judge_truth())
    for rec in lines:
        lang = language[rec["question"]]
        version = (
            f"opencompass-{lang}:{sha16(JUDGE_PROMPT_EN if lang == 'en' else JUDGE_PROMPT_CN)}"
        )
        assert rec["key"] == judgement_key(
            LMJ_MODEL, version, rec["question"], rec["gold"], rec["answer"]
        ), rec


def test_new_timestamp_reuses_cache_with_zero_judge_calls(judged_runs):
    second = judged_runs["second"]
    path = judged_runs["results2_path"]
    assert path.exists(), (
        f"{second.stdout[-3000:]}\n{task_logs(judged_runs['work'] / judged_runs['ts2'])[-5000:]}"
    )
    assert [m for m, *_ in judged_runs["received_2"] if m == JUDGE_MODEL] == []
    assert judged_runs["sim_requests_2"] == 0
    results = json.loads(path.read_text())
    first = judged_runs["results1"]
    for key in expected_all():
        assert results[key] == first[key], key
    acc, first_acc = results["accounting"], first["accounting"]
    assert (acc["judge_calls"], acc["judged"], acc["cache_hit_pairs"]) == (0, 0, len(judge_truth()))
    assert acc["cache_hits"] == first_acc["judged_samples"]
    assert [d["correct"] for d in results["details"]] == [d["correct"] for d in first["details"]]
    # `-r latest` took the new timestamp, not the cache dir
    assert sorted(p.name for p in judged_runs["work"].iterdir())[-1] == judged_runs["ts2"]


def test_judge_down_fails_the_eval_task_with_its_message(judged_runs):
    logs = task_logs(judged_runs["work"] / judged_runs["ts2"])
    assert not judged_runs["down_path"].exists()
    log = next(
        (
            p
            for p in (judged_runs["work"] / judged_runs["ts2"] / "logs" / "eval").rglob(
                f"{DOWN_ABBR}.out"
            )
        ),
        None,
    )
    assert log is not None, logs[-3000:]
    text = log.read_text(errors="replace")
    undecided = sum(
        1 for d in judged_runs["results1"]["details"] for s in d["source"] if s == "judge"
    )
    assert "UnjudgedError" in text, text[-3000:]
    assert f"{undecided} of {N * len(QUESTIONS)} samples" in text
    assert "ConnectError" in text and judged_runs["dead"].split("//")[1].split("/")[0] in text
    assert str(judged_runs["work"] / CACHE_DIRNAME) in text
    assert "rerun the same command; judged pairs are cached" in text
    assert f"GPassKEvaluator({MODEL_ABBR}/{DOWN_ABBR}) failed" in text
    print("CLI seconds (full run, eval-only run):", judged_runs["seconds"])
