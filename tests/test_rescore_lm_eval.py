"""``gpassk-oc rescore`` of lm-evaluation-harness ``--log_samples`` output (real files of
lm-eval 0.4.13, tests/fixtures/harnesses/lm_eval/): every reply re-graded, every metric
equal to brute force, lm-eval's own number beside ours with the reasons it differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from importer_support import (
    HARNESSES,
    assert_brute_force,
    counts,
    derived,
    only_results,
    report_rows,
    rescore,
    sidecar,
)

from gpassk_oc.demo.problems import write_dataset

FIXTURES = HARNESSES / "lm_eval"


def _samples(folder: Path) -> list[dict]:
    (path,) = folder.glob("*/samples_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _cn(folder: Path) -> list[tuple[int, int]]:
    return counts([(str(d["target"]), d["resps"][0]) for d in _samples(folder)])


@pytest.mark.parametrize("name", ["shaky_n8", "steady_n8", "shaky_n1"])
def test_rescore_and_report_equal_brute_force(name, tmp_path, capsys):
    folder = FIXTURES / name
    out = tmp_path / "out"
    rescore(folder, out)
    path = only_results(out)
    cn = _cn(folder)
    assert_brute_force(path, cn)
    k = max(json.loads(path.read_text())["run"]["ks"])
    rows = report_rows(out, capsys, k)
    assert len(rows) == 1 and rows[0]["model"].startswith("gpassk-demo")
    c_over_n = sum(c / n for c, n in cn) / len(cn)
    shown = "accuracy" if rows[0]["greedy"] else "pass@1"
    assert rows[0]["metrics"][shown]["value"] == pytest.approx(100 * c_over_n, abs=1e-4)


def test_lm_evals_own_number_and_reasons_beside_ours(tmp_path):
    folder = FIXTURES / "shaky_n8"
    out = tmp_path / "out"
    rescore(folder, out)
    side = sidecar(only_results(out))
    (results,) = folder.glob("*/results_*.json")
    own = json.loads(results.read_text())["results"]["livemathbench_amc_en"]
    reported = {m["metric"]: m["opencompass"] for m in side["metrics"]}
    assert reported["pass@1"] == pytest.approx(100 * own["exact_match,boxed-first"])
    kinds = {r["kind"]: r for r in side["reasons"]}
    assert kinds["first_k_filter"]["used"] == 1 and kinds["first_k_filter"]["n"] == 8
    cut = sum(a.count("{") > a.count("}") for d in _samples(folder) for a in d["filtered_resps"])
    assert kinds.get("regex_cut_braces", {}).get("samples", 0) == cut
    assert side["tool"]["name"] == "lm-eval" and side["tool"]["version"] == "0.4.13"


def test_data_recovers_split_and_language_by_question_text(tmp_path, capsys):
    data = write_dataset(tmp_path / "data").parent
    out = tmp_path / "out"
    capsys.readouterr()
    rescore(FIXTURES / "shaky_n8", out, "--data", str(data))
    err = capsys.readouterr().err
    assert "warning" not in err and "split × language from --data" in err
    details = json.loads(only_results(out).read_text())["details"]
    assert {(d["split"], d["language"]) for d in details} == {("AMC", "en")}
    assert [d["question_id"] for d in details] == [f"AMC_en_{i}" for i in range(len(details))]


def test_two_models_are_two_rows_named_with_their_tool(tmp_path, capsys):
    both = tmp_path / "both"
    for name in ("shaky_n8", "steady_n8"):
        derived(FIXTURES / name, both)
    out = tmp_path / "out"
    rescore(both, out)
    rows = report_rows(out, capsys, 8)
    want = ["gpassk-demo-shaky@lm-eval", "gpassk-demo-steady@lm-eval"]
    assert sorted(r["model"] for r in rows) == want
