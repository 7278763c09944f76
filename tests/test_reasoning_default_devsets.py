"""The evaluator's default settings on real outputs (the answer-checking dev sets shipped in
bench/data/, byte-identical gzip copies of shared/answer-checking/): with
``reasoning='auto'`` no truncated reasoning reply is scored correct, and the verdicts on
non-reasoning outputs are those of ``reasoning=False``.

The oracles are the records themselves: their ``truncated`` flag (the output hit its token
budget; the sources label every such reply wrong) and a plain ``'</think>' in response``
count per evaluation. Each (source, model) is one evaluation with n = 1, as one
OpenCompass (model, dataset) task would be. The files are read here as raw JSON lines,
not through the bench's loader.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from datasets import Dataset
from evaluator_support import run

from gpassk_oc.evaluators import GPassKEvaluator

DATA = Path(__file__).resolve().parents[1] / "bench" / "data"


def _evaluations(name: str) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                key = f"{rec['source'][:40]}/{rec.get('model') or ''}"
                groups.setdefault(key, []).append(rec)
    return groups


def _text(rec: dict) -> str:
    if rec.get("response") is not None:
        return str(rec["response"])
    return "\\boxed{" + str(rec["pred"]).strip("$ ") + "}"  # a pre-extracted answer


def _evaluate(evaluator: GPassKEvaluator, records: list[dict]) -> dict:
    test_set = Dataset.from_dict(
        {
            "question_id": [f"q{i}" for i in range(len(records))],
            "split": ["dev"] * len(records),
            "language": ["cn" if r.get("lang") == "zh" else "en" for r in records],
            "question": [str(r.get("question", r.get("problem", ""))) for r in records],
            "answer": [str(r["gold"]) for r in records],
        }
    )
    evaluator.progress = False
    return run(evaluator, test_set, [_text(r) for r in records], [1], 1)


def _verdicts(result: dict) -> list[bool]:
    return [d["correct"][0] for d in result["details"]]


@pytest.fixture(scope="module")
def reasoning_sets() -> dict[str, list[dict]]:
    return _evaluations("reasoning-dev.jsonl.gz")


def test_default_settings_score_no_truncated_reasoning_reply_correct(reasoning_sets):
    truncated_seen = 0
    for name, records in reasoning_sets.items():
        result = _evaluate(GPassKEvaluator(), records)
        closed = sum("</think>" in _text(r) for r in records)
        assert closed, name  # every evaluation of this set has finished thoughts
        assert result["run"]["reasoning"] == {
            "setting": "auto",
            "applied": "thinking",
            "why": f"{closed} of {len(records)} non-empty replies close </think>",
        }, name
        cut = [v for v, r in zip(_verdicts(result), records) if r["truncated"]]
        truncated_seen += len(cut)
        assert not any(cut), f"{name}: {sum(cut)} truncated replies scored correct"
    assert truncated_seen == 65  # the records flagged truncated (counted from the file)


def test_declared_false_is_what_scored_truncated_replies_before(reasoning_sets):
    # the failure the default removes: read whole, a box in an unfinished thought counts
    records = [r for rs in reasoning_sets.values() for r in rs if r["truncated"]]
    plain = _evaluate(GPassKEvaluator(reasoning=False), records)
    assert any(_verdicts(plain))


def test_default_settings_change_nothing_on_non_reasoning_outputs():
    for name, records in _evaluations("dev.jsonl.gz").items():
        assert not any("</think>" in _text(r) for r in records), name
        default = _evaluate(GPassKEvaluator(), records)
        assert default["run"]["reasoning"]["applied"] == "whole", name
        declared = _evaluate(GPassKEvaluator(reasoning=False), records)
        assert default["details"] == declared["details"], name
