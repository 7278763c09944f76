"""``gpassk-oc rescore`` of an OpenCompass work dir keeps each reply's facts: the server's
from the sidecar :class:`gpassk_oc.models.OpenAICompatible` writes beside the predictions,
else OpenCompass's own ``res_length``. Expected values come from how the files were built."""

from __future__ import annotations

import json

from rescore_support import ABBR, MODEL, QUESTIONS, TS, right, write_oc_workdir, wrong

from gpassk_oc.cli import main
from gpassk_oc.core.runs.reply_facts import ReplyFacts, facts_line, reply_key

#: per question: which of its 4 replicas are right
PATTERN = [[1, 1, 0, 1], [0, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 1, 0]]


def _work(tmp_path):
    replies = [
        [right(QUESTIONS[q][3]) if ok else wrong(QUESTIONS[q][3]) for ok in row]
        for q, row in enumerate(PATTERN)
    ]
    run = write_oc_workdir(tmp_path / "oc", replies)
    return run / "predictions" / MODEL / f"{ABBR}.json"


def _rescore(tmp_path) -> dict:
    assert main(["rescore", str(tmp_path / "oc"), "-o", str(tmp_path / "out")]) == 0
    path = tmp_path / "out" / TS / "results" / MODEL / f"{ABBR}.json"
    return json.loads(path.read_text())


def test_server_facts_from_the_sidecar(tmp_path):
    """A wrong reply was cut by the limit (``length``, 512 tokens), a right one ended
    (``stop``, 30 + q tokens): health counts the wrong replies as truncated, exactly."""
    predictions = _work(tmp_path)
    entries = json.loads(predictions.read_text())
    lines = []
    for entry in entries.values():
        q = next(i for i, row in enumerate(QUESTIONS) if row[3] == entry["gold"])
        cut = entry["prediction"] == wrong(entry["gold"])
        facts = ReplyFacts("length" if cut else "stop", 9, 512 if cut else 30 + q)
        lines.append(facts_line(reply_key(entry["origin_prompt"], entry["prediction"]), facts))
    sidecar = predictions.with_name(f"{ABBR}.gpassk-replies.jsonl")
    sidecar.write_text("".join(lines), encoding="utf-8")
    results = _rescore(tmp_path)
    wrongs = sum(row.count(0) for row in PATTERN)
    assert results["health"]["length_basis"] == "finish_reason"
    assert results["health"]["overall"]["truncated_length"] == wrongs
    for q, (entry, row) in enumerate(zip(results["details"], PATTERN)):
        assert entry["finish_reason"] == ["stop" if ok else "length" for ok in row]
        assert entry["output_tokens"] == [30 + q if ok else 512 for ok in row]
        assert entry["prompt_tokens"] == [9] * 4


def test_res_length_without_a_sidecar(tmp_path):
    """OpenCompass's ``res_length`` (``dump_res_length=True``) is each reply's output count;
    no finish reason is known."""
    predictions = _work(tmp_path)
    entries = json.loads(predictions.read_text())
    for key, entry in entries.items():
        entry["res_length"] = 100 + int(key)
    predictions.write_text(json.dumps(entries), encoding="utf-8")
    results = _rescore(tmp_path)
    q = len(QUESTIONS)
    for i, entry in enumerate(results["details"]):
        assert entry["output_tokens"] == [100 + r * q + i for r in range(4)]
        assert entry["finish_reason"] == [None] * 4


def test_no_facts_recorded_no_fact_lists(tmp_path):
    _work(tmp_path)
    assert "output_tokens" not in _rescore(tmp_path)["details"][0]
