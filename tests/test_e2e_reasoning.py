"""Reasoning traces end to end through the real ``opencompass`` CLI, offline, ONE run.

A local endpoint serves reasoning replies: thoughts closed by ``</think>`` with the answer
after them, thoughts cut by the budget (no closing tag) whose draft ``\\boxed{}`` *matches*
the gold, and replies split into ``reasoning_content`` + ``content`` that OpenCompass's
OpenAISDK joins with ``</think>`` (or returns alone when ``content`` is empty). Each
question gets a known plan of reply kinds, so its correct count is known in advance;
metrics are checked against brute force over k-subsets with exact fractions.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from fractions import Fraction

import pytest
from conftest import _MODEL_BLOCK, brute_g_pass, offline_env, run_cli, write_layout

from gpassk_oc.demo.sim_endpoint import SimEndpoint

pytestmark = pytest.mark.e2e

N, KS = 4, [2, 4]
MODEL_ABBR = "sim-r1"
DATASET_ABBR = "LiveMathBench-v202412-k2_4-r1"
WRONG = "-987654321"
# (split, language, question, gold, plan of the n replies)
QUESTIONS = [
    ("AMC", "en", "Compute 7 + 5.", "12", ["closed", "rc", "cut", "rc_cut"]),
    ("AMC", "cn", "计算 9 减 4。", "5", ["closed", "closed", "rc", "closed_wrong"]),
    ("CCEE", "en", "Compute 3 times 4.", "12", ["cut", "cut", "rc_cut", "closed_wrong"]),
    ("CCEE", "cn", "计算 10 除以 5。", "2", ["rc", "rc", "rc", "rc"]),
]
CORRECT_KINDS = {"closed", "rc"}
TRUNCATED_KINDS = {"cut", "rc_cut"}


def reply(kind: str, gold: str) -> str | dict:
    draft = f"Let me think. Is it \\boxed{{{gold}}}? The carry needs another look"
    if kind == "closed":  # a wrong draft in the thought, the gold after it
        return f"<think>Maybe \\boxed{{{WRONG}}}? No.</think>\n\nSo $\\boxed{{{gold}}}$."
    if kind == "closed_wrong":  # the gold only as a draft: the final answer is wrong
        return f"<think>{draft}.</think>\n\nSo $\\boxed{{{WRONG}}}$."
    if kind == "cut":  # budget ran out while thinking: matching draft, must be wrong
        return f"<think>{draft}"
    if kind == "rc":  # OpenAISDK returns reasoning_content + '</think>' + content
        return {"reasoning_content": draft, "content": f"The answer is $\\boxed{{{gold}}}$."}
    if kind == "rc_cut":  # empty content: OpenAISDK returns reasoning_content alone
        return {"reasoning_content": draft, "content": ""}
    raise ValueError(kind)


class PlanResponder:
    """Call j for a question gets the reply kind plan[j % n] (counted under a lock)."""

    def __init__(self) -> None:
        self.calls: Counter = Counter()
        self.lock = threading.Lock()

    def __call__(self, model: str, messages: list, params: dict) -> str | dict:
        prompt = str(messages[-1]["content"])
        hits = [q for q in QUESTIONS if q[2] in prompt]
        if not hits:
            raise LookupError("prompt contains no known question")
        _, _, question, gold, plan = max(hits, key=lambda q: len(q[2]))
        with self.lock:
            call = self.calls[question]
            self.calls[question] += 1
        return reply(plan[call % N], gold)


CONFIG = f"""
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_oc.datasets import LiveMathBenchDataset
from gpassk_oc.evaluators import GPassKEvaluator
from gpassk_oc.models import OpenAICompatible

datasets = [dict(
    type=LiveMathBenchDataset,
    abbr={DATASET_ABBR!r},
    path='data/LiveMathBench',
    version='202412',
    dataset_splits=['AMC', 'CCEE'],
    dataset_languages=['en', 'cn'],
    cot=True,
    k={KS!r},
    n={N},
    reader_cfg=dict(input_columns=['prompt'], output_column='answer'),
    infer_cfg=dict(
        prompt_template=dict(type=PromptTemplate,
                             template=dict(round=[dict(role='HUMAN', prompt='{{prompt}}')])),
        retriever=dict(type=ZeroRetriever),
        inferencer=dict(type=GenInferencer, max_out_len=512),
    ),
    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, reasoning=True)),
)]
"""


@pytest.fixture(scope="module")
def reasoning_run(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("oc_reasoning")
    write_layout(cwd / "data" / "LiveMathBench", QUESTIONS)
    with SimEndpoint(PlanResponder(), models=["sim-model"]) as endpoint:
        model = _MODEL_BLOCK.format(abbr=MODEL_ABBR, url=endpoint.url, temperature=0.7, top_p=0.9)
        (cwd / "cfg.py").write_text(CONFIG + model)
        start = time.monotonic()
        proc = run_cli(cwd, ["cfg.py", "-w", "outputs", "--dump-eval-details"], offline_env())
        seconds = time.monotonic() - start
    results = sorted((cwd / "outputs").glob(f"*/results/{MODEL_ABBR}/{DATASET_ABBR}.json"))
    if proc.returncode != 0 or not results:
        logs = "\n".join(p.read_text(errors="replace") for p in cwd.rglob("logs/**/*.out"))
        pytest.fail(
            f"opencompass run failed (rc={proc.returncode}):\n{proc.stderr[-3000:]}\n{logs[-6000:]}"
        )
    return json.loads(results[-1].read_text(encoding="utf-8")), seconds


def counts_of(rows) -> list[int]:
    return [sum(kind in CORRECT_KINDS for kind in plan) for *_, plan in rows]


def test_metrics_match_brute_force_from_the_known_counts(reasoning_run):
    result, _ = reasoning_run
    counts = counts_of(QUESTIONS)
    assert counts == [2, 3, 0, 4]
    assert [d["c"] for d in result["details"]] == counts
    groups = {"": QUESTIONS, **{f"{q[0]}/{q[1]}/": [q] for q in QUESTIONS}}
    for prefix, rows in groups.items():
        cs = counts_of(rows)
        for k in KS:
            for tau in ("0.0", "0.5", "1.0"):
                exact = sum(brute_g_pass(N, c, k, tau) for c in cs) / len(cs)
                assert result[f"{prefix}G-Pass@{k}_{tau}"] == pytest.approx(float(exact * 100))
        pass1 = Fraction(sum(cs), N * len(cs)) * 100
        assert result[f"{prefix}pass@1"] == pytest.approx(float(pass1))


def test_truncated_thoughts_are_wrong_unjudged_and_recorded(reasoning_run):
    result, _ = reasoning_run
    truncated = sum(kind in TRUNCATED_KINDS for *_, plan in QUESTIONS for kind in plan)
    assert truncated == 5
    accounting = result["accounting"]
    assert accounting["found_truncated"] == truncated == accounting["no_answer"]
    assert accounting["judge_input_chars"] == 0 and accounting["unjudged"] == 0
    for detail, (*_, gold, plan) in zip(result["details"], QUESTIONS):
        # replicas arrive in any order: compare the multisets of outcomes per question
        got = Counter(zip(detail["found"], detail["correct"], detail["extracted"]))
        want = Counter(
            ("truncated", False, None)
            if kind in TRUNCATED_KINDS
            else ("boxed", kind in CORRECT_KINDS, gold if kind in CORRECT_KINDS else WRONG)
            for kind in plan
        )
        assert got == want, detail
    assert result["run"]["n"] == N and result["run"]["check"] == "rules"
