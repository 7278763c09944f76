"""bench/bench_answers_real.py runs from a checkout on the shipped data and reports what the
checkers did; on a hand-made set every figure is known in advance."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "bench_answers_real.py"


def _run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def _results(stdout: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            out.update(kv.split("=", 1) for kv in line.split()[1:])
    return out


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def _has_reasoning_policy() -> bool:
    sys.path.insert(0, str(ROOT))
    from gpassk_oc.core.judging.grading import GradingPolicy

    return "reasoning" in {f.name for f in dataclasses.fields(GradingPolicy)}


def test_runs_on_a_slice_of_the_shipped_data():
    proc = _run("--limit", "2", "--no-baselines", "--adversarial-chars", "3000")
    assert proc.returncode == 0, proc.stderr
    res = _results(proc.stdout)
    for key in (
        "nonreasoning_rules_agreement",
        "nonreasoning_cascade_confident_errors",
        "reasoning_rules_agreement",
        "reasoning_cascade_confident_errors",
        "reasoning_truncated_scored_correct",
        "reasoning_default_truncated_scored_correct",
        "reasoning_default_changed",
        "nonreasoning_default_changed",
        "reasoning_judge_chars_ours",
        "ms_per_distinct_sample",
        "adversarial_max_ms",
        "goals_met",
    ):
        assert key in res, f"no RESULT {key}"
    assert res["adversarial_chars"] == "3000"
    # two rows of every shipped source, each in its own table row
    for source in (
        "processbench_final_answer",
        "tinyv_hardverify_math",
        "gaokao_bench_math_cloze",
        "thought_anchors",
        "r1_distill_1p5b_math",
    ):
        assert re.search(rf"^{source}\s+2\s", proc.stdout, re.M), source
    assert re.search(r"^overall\s+6\s", proc.stdout, re.M)  # non-reasoning: 3 sources
    assert re.search(r"^overall\s+4\s", proc.stdout, re.M)  # reasoning: 2 sources


# a finished trace whose thinking held an earlier box, and a trace cut inside its thinking
FINISHED = (
    "<think>\nLet me think. Maybe \\boxed{3}? No, recount.\n</think>\n\nThe answer is \\boxed{7}."
)
CUT = "<think>\nLet me think. So far \\boxed{7}, but wait, let me check the other case"


def test_exact_figures_on_a_hand_made_set(tmp_path):
    plain = _write(
        tmp_path / "plain.jsonl",
        [
            {"source": "hand", "gold": "5", "label": True, "response": "So \\boxed{5}."},
            {"source": "hand", "gold": "5", "label": False, "response": "So \\boxed{6}."},
            # labelled false although equal: every checker disagrees, ours confidently
            {"source": "hand", "gold": "5", "label": False, "response": None, "pred": "5"},
        ],
    )
    reasoning = _write(
        tmp_path / "reasoning.jsonl",
        [
            {"source": "r", "gold": "7", "label": True, "response": FINISHED, "truncated": False},
            {"source": "r", "gold": "7", "label": False, "response": CUT, "truncated": True},
        ],
    )
    proc = _run("--data", str(plain), "--reasoning-data", str(reasoning), "--no-adversarial")
    assert proc.returncode == 0, proc.stderr
    res = _results(proc.stdout)
    assert res["nonreasoning_rules_agreement"] == "66.7"
    assert res["nonreasoning_cascade_confident_errors"] == "33.33"
    assert res["nonreasoning_math_verify_agreement"] == "66.7"
    assert res["nonreasoning_opencompass_agreement"] == "66.7"
    assert res["nonreasoning_rules_minus_math_verify_min"] == "0.0"
    # OpenCompass's LLM-judge configs send the whole prediction
    assert res["reasoning_judge_chars_opencompass"] == f"{(len(FINISHED) + len(CUT)) / 2:.0f}"
    # both baselines read the box inside the unfinished thinking
    assert res["reasoning_opencompass_agreement"] == "50.0"
    if _has_reasoning_policy():  # the cut trace has no answer and never reaches a judge
        assert res["reasoning_rules_agreement"] == "100.0"
        assert res["reasoning_truncated_scored_correct"] == "0"
        assert res["reasoning_truncated_to_judge"] == "0"
    else:  # today's behaviour: the box in the unfinished thought is taken as the answer
        assert res["reasoning_rules_agreement"] == "50.0"
        assert res["reasoning_truncated_scored_correct"] == "1"
    assert int(res["reasoning_judge_chars_ours"]) <= 1  # '7', or nothing for the cut trace
    # default settings: the hand-made reasoning source is detected as thinking (one reply
    # closes </think>), the plain one is read whole; neither changes a declared verdict
    assert res["reasoning_default_truncated_scored_correct"] == "0"
    assert res["reasoning_default_changed"] == res["nonreasoning_default_changed"] == "0"
    assert res["nonreasoning_default_agreement"] == "66.7"
    assert (
        "r: thinking (1 of 2 non-empty replies close </think>; 1 open <think> without "
        "closing it (truncated either way))" in proc.stdout
    )
    assert "hand: whole (0 of 3 non-empty replies close </think>)" in proc.stdout
    assert "adversarial_max_ms" not in res


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    missing = _run("--data", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert missing.stderr.count("\n") == 1 and "--data" in missing.stderr

    bad = _write(tmp_path / "bad.jsonl", [{"source": "s", "label": True, "response": "x"}])
    proc = _run("--data", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert f"{bad}:1" in proc.stderr and "'gold'" in proc.stderr
    assert proc.stdout == ""

    zero = _run("--limit", "0")
    assert zero.returncode == 2 and "--limit" in zero.stderr
