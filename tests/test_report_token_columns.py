"""The output-token statistics in ``gpassk-oc report --format csv``: on each row's overall
line, equal to plain arithmetic over the counts evalscope recorded (real fixtures
``shaky_n4_cut``: replies cut, none right; ``steady_n8``: right ones), empty for a run whose tool recorded none (lm-eval)."""

from __future__ import annotations

import csv
import io
import json
import statistics

import importer_support as imp
import pytest

from gpassk_oc.cli import main

EVALSCOPE = imp.HARNESSES / "evalscope"
COLUMNS = ["tokens_mean", "tokens_median", "tokens_p95", "tokens_max"]


def _samples(name: str) -> list[tuple[int, str, bool, bool]]:
    """(output tokens, stop reason, cut, right) per sample, from the tool's own files."""
    (reviews,) = (EVALSCOPE / name).glob("*/reviews/*/*.jsonl")
    (predictions,) = (EVALSCOPE / name).glob("*/predictions/*/*.jsonl")
    outputs = {}
    for line in predictions.read_text().splitlines():
        record = json.loads(line)
        outputs[record["index"]] = record["model_output"]
    out = []
    for line in reviews.read_text().splitlines():
        record = json.loads(line)
        reply = record["sample_score"]["score"]["prediction"]
        output = outputs[record["index"]]
        reason = output["choices"][0]["stop_reason"]
        right = imp.right(reply, record["target"][0], thinks=False)
        out.append((output["usage"]["output_tokens"], reason, reason == "max_tokens", right))
    return out


@pytest.mark.parametrize("name", ["shaky_n4_cut", "steady_n8"])
def test_csv_token_columns_equal_arithmetic_over_the_fixture(name, tmp_path, capsys):
    imp.rescore(EVALSCOPE / name, tmp_path / "a")
    imp.rescore(imp.HARNESSES / "lm_eval" / "shaky_n8", tmp_path / "b")
    capsys.readouterr()
    argv = ["report", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "csv"]
    assert main([*argv, "--k", "2", "--resamples", "20"]) == 0
    lines = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    overall = {r["model"]: r for r in lines if r["subset"] == "overall"}
    cut = overall[f"gpassk-demo-{name.split('_')[0]}@evalscope"]
    samples = _samples(name)
    counts = sorted(t for t, *_ in samples)
    m = len(counts)
    assert float(cut["tokens_mean"]) == pytest.approx(sum(counts) / m, rel=1e-3)
    assert float(cut["tokens_median"]) == pytest.approx(statistics.median(counts))
    assert int(cut["tokens_p95"]) == counts[-(-95 * m // 100) - 1]
    assert int(cut["tokens_max"]) == max(counts)
    cuts = sum(c for _, _, c, _ in samples)
    assert float(cut["tokens_cut_share"]) == pytest.approx(cuts / m, rel=1e-3)
    rights = sum(r for *_, r in samples)
    assert bool(rights) == (name == "steady_n8")
    if rights:
        assert float(cut["tokens_per_correct"]) == pytest.approx(sum(counts) / rights, rel=1e-3)
    else:
        assert cut["tokens_per_correct"] == "NA"
    none = overall["gpassk-demo-shaky@lm-eval"]
    assert [none[c] for c in COLUMNS + ["tokens_cut_share"]] == [""] * 5
    assert all(r[c] == "" for r in lines if r["subset"] != "overall" for c in COLUMNS)
