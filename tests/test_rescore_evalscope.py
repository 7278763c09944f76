"""``gpassk-oc rescore`` of evalscope reviews (real files of evalscope 1.14.1,
tests/fixtures/harnesses/evalscope/): replies put in generation_index order per
group_id, every metric equal to brute force, also where a question kept fewer replies."""

from __future__ import annotations

import json
from pathlib import Path

import importer_support as imp
import pytest

FIXTURES = imp.HARNESSES / "evalscope"


def _reviews(folder: Path) -> Path:
    (path,) = folder.glob("*/reviews/*/*.jsonl")
    return path


def _cn(path: Path) -> list[tuple[int, int]]:
    by_group: dict[int, dict[int, str]] = {}
    golds: dict[int, str] = {}
    for line in path.read_text().splitlines():
        score = json.loads(line)["sample_score"]
        by_group.setdefault(score["group_id"], {})[score["generation_index"]] = score["score"][
            "prediction"
        ]
        golds[score["group_id"]] = json.loads(line)["target"][0]
    return imp.counts([(golds[g], [r[i] for i in sorted(r)]) for g, r in by_group.items()])


@pytest.mark.parametrize("name", ["shaky_n8", "steady_n8", "shaky_n1", "shaky_n4_cut"])
def test_rescore_and_report_equal_brute_force(name, tmp_path, capsys):
    folder = FIXTURES / name
    out = tmp_path / "out"
    imp.rescore(folder, out)
    path = imp.only_results(out)
    cn = _cn(_reviews(folder))
    imp.assert_brute_force(path, cn)
    rows = imp.report_rows(out, capsys, max(json.loads(path.read_text())["run"]["ks"]))
    assert [r["model"] for r in rows] == [f"gpassk-demo-{name.split('_')[0]}@evalscope"]
    side = imp.sidecar(path)
    assert side["tool"] == {"name": "evalscope", "version": "1.14.1"}


def test_questions_with_fewer_replies_than_n(tmp_path, capsys):
    """A copy DERIVED from the real shaky_n8 reviews, some lines dropped: those questions
    are scored over the replies they kept (n_q < n), never as wrong."""
    folder = imp.derived(FIXTURES / "shaky_n8", tmp_path)
    path = _reviews(folder)
    lines = path.read_text().splitlines()
    keep = [
        line
        for line in lines
        if not (
            json.loads(line)["sample_score"]["group_id"] in (1, 3)
            and json.loads(line)["sample_score"]["generation_index"] >= 5
        )
    ]
    path.write_text("\n".join(keep) + "\n")
    out = tmp_path / "out"
    imp.rescore(folder, out)
    cn = _cn(path)
    assert sorted({m for _, m in cn}) == [5, 8]
    imp.assert_brute_force(imp.only_results(out), cn)
    results = json.loads(imp.only_results(out).read_text())
    assert results["accounting"]["missing_replies"] == 2 * 3


def test_compare_pairs_two_tools_by_question_text(tmp_path, capsys):
    """lm-eval's shaky run against a copy DERIVED from evalscope's steady run with its
    questions in reverse order: with --data both are put in the local files' order, so
    compare pairs the 8 questions by text, not by where each tool listed them."""
    from gpassk_oc.cli import main
    from gpassk_oc.demo.problems import write_dataset

    data = write_dataset(tmp_path / "data").parent
    folder = imp.derived(FIXTURES / "steady_n8", tmp_path)
    path = _reviews(folder)
    path.write_text("\n".join(reversed(path.read_text().splitlines())) + "\n")
    imp.rescore(imp.HARNESSES / "lm_eval" / "shaky_n8", tmp_path / "a", "--data", str(data))
    imp.rescore(folder, tmp_path / "b", "--data", str(data))
    a, b = imp.only_results(tmp_path / "a"), imp.only_results(tmp_path / "b")
    assert a.name == b.name == "LiveMathBench_v202412.json"  # one dataset: one report table
    ids = [[d["question_id"] for d in json.loads(p.read_text())["details"]] for p in (a, b)]
    assert ids[0] == ids[1] == [f"AMC_en_{i}" for i in range(8)]
    capsys.readouterr()
    assert (
        main(["compare", str(a), str(b), "--format", "json", "--k", "4", "--resamples", "50"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["num_questions"] == 8


def test_report_over_two_tools_names_each_rows_tool(tmp_path, capsys):
    """One model re-scored from lm-eval and from evalscope: two rows, each naming its tool
    (the identity adds the run's label, model@tool, where the settings alike)."""
    from gpassk_oc.cli import main

    imp.rescore(imp.HARNESSES / "lm_eval" / "shaky_n8", tmp_path / "a")
    imp.rescore(FIXTURES / "shaky_n8", tmp_path / "b")
    capsys.readouterr()
    argv = ["report", str(tmp_path / "a"), str(tmp_path / "b"), "--k", "4", "--resamples", "50"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "gpassk-demo-shaky@lm-eval" in text and "gpassk-demo-shaky@evalscope" in text
    assert "| lm-eval 0.4.13 reported |" in text


def _predictions(folder: Path) -> list[dict]:
    (path,) = folder.glob("*/predictions/*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("name", ["shaky_n4_cut", "shaky_n8"])
def test_stop_reasons_and_token_counts_reach_health_and_token_stats(name, tmp_path):
    """evalscope's own stop reasons (``max_tokens``: cut by the output limit) and ``usage``
    in its predictions file: run health counts exactly its cut replies, and the token
    statistics are plain arithmetic over its output_tokens."""
    from gpassk_oc.core.runs.results_summary import read_summary

    lines = _predictions(FIXTURES / name)
    reasons = [line["model_output"]["choices"][0]["stop_reason"] for line in lines]
    counts = sorted(line["model_output"]["usage"]["output_tokens"] for line in lines)
    imp.rescore(FIXTURES / name, tmp_path / "out")
    path = imp.only_results(tmp_path / "out")
    health = json.loads(path.read_text())["health"]
    assert health["length_basis"] == "finish_reason"
    assert health["overall"]["truncated_length"] == reasons.count("max_tokens")
    tokens = read_summary(path).tokens
    assert tokens is not None
    m = len(counts)
    assert tokens["counted"] == m == len(lines)
    assert tokens["mean"] == pytest.approx(sum(counts) / m)
    assert tokens["max"] == counts[-1]
    assert tokens["p95"] == counts[-(-95 * m // 100) - 1]
    assert tokens["at_limit"] == reasons.count("max_tokens")
    assert tokens["at_limit_share"] == pytest.approx(reasons.count("max_tokens") / m)


def test_review_token_counts_without_predictions_file(tmp_path):
    """A copy DERIVED from the real shaky_n4_cut run without its predictions folder: the
    counts of each review's assistant message are kept, the stop reason is unknown."""
    import shutil

    folder = imp.derived(FIXTURES / "shaky_n4_cut", tmp_path)
    (predictions,) = folder.glob("*/predictions")
    shutil.rmtree(predictions)
    reviews = [json.loads(line) for line in _reviews(folder).read_text().splitlines()]
    counts = [r["messages"][-1]["perf_metrics"]["output_tokens"] for r in reviews]
    imp.rescore(folder, tmp_path / "out")
    results = json.loads(imp.only_results(tmp_path / "out").read_text())
    found = [t for d in results["details"] for t in d["output_tokens"]]
    assert sorted(found) == sorted(counts)
    assert {r for d in results["details"] for r in d["finish_reason"]} == {None}
    assert results["health"]["length_basis"] != "finish_reason"
