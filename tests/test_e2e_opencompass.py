"""End to end through the real ``opencompass`` CLI (LocalRunner task subprocesses), offline.

Expected values are computed here by brute force over every k-subset of the n samples
with exact fractions — independently of ``gpassk_oc.core.metrics.gpass_exact``.
"""

from __future__ import annotations

import csv
import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import (
    E2E_DATASET_ABBR,
    E2E_KS,
    E2E_MODEL_ABBR,
    E2E_N,
    E2E_QUESTIONS,
    E2E_TEMPERATURE,
    E2E_TOP_P,
    brute_g_pass,
    brute_mg_pass,
    e2e_config,
    offline_env,
    run_cli,
)
from oracles import brute_maj

pytestmark = pytest.mark.e2e

THRESHOLDS = ["0.0", "0.25", "0.5", "0.75", "1.0"]
DETAIL_SCHEMA = {
    "index": int,
    "question_id": str,
    "split": str,
    "language": str,
    "question_type": str,
    "question": str,
    "gold": str,
    "extracted": list,
    "correct": list,
    "c": int,
    "n": int,
    "source": list,
    "found": list,
}


def expected_metrics(counts: list[int]) -> dict[str, float]:
    out = {}
    for k in E2E_KS:
        for tau in THRESHOLDS:
            mean = sum(brute_g_pass(E2E_N, c, k, tau) for c in counts) / len(counts)
            out[f"G-Pass@{k}_{tau}"] = float(mean * 100)
        out[f"mG-Pass@{k}"] = float(
            sum(brute_mg_pass(E2E_N, c, k) for c in counts) / len(counts) * 100
        )
    out["pass@1"] = float(Fraction(sum(counts), E2E_N * len(counts)) * 100)
    return out


def expected_all(counts: list[int] | None = None) -> dict[str, float]:
    """Brute-force values, overall and per split × language group (``AMC/en/...``), for
    the E2E questions answered correctly *counts* times (default: their own c_q)."""
    counts = [c for *_, c in E2E_QUESTIONS] if counts is None else counts
    expected = expected_metrics(counts)
    groups: dict[str, list[int]] = {}
    for (split, lang, *_), c in zip(E2E_QUESTIONS, counts):
        groups.setdefault(f"{split}/{lang}", []).append(c)
    for group, group_counts in groups.items():
        for key, value in expected_metrics(group_counts).items():
            expected[f"{group}/{key}"] = value
    return expected


def expected_votes(details: list[dict]) -> dict[str, float]:
    """maj@k (k-subset enumeration) and avg@n, overall and per group, with the samples
    labelled from the file's verdicts and answer strings alone: correct → one class, each
    distinct wrong answer string → a class (the simulated model has one wrong answer, so
    string identity is the checker's grouping), no answer → no vote."""
    labels = []
    for d in details:
        wrong = sorted({e for e, v in zip(d["extracted"], d["correct"]) if e and v is False})
        labels.append(
            [
                0 if v else (wrong.index(e) + 1 if e else None)
                for e, v in zip(d["extracted"], d["correct"])
            ]
        )
    groups: dict[str, list[int]] = {"": list(range(len(details)))}
    for i, d in enumerate(details):
        groups.setdefault(f"{d['split']}/{d['language']}/", []).append(i)
    out = {}
    for prefix, members in groups.items():
        for k in E2E_KS:
            total = sum(brute_maj(labels[i], k) for i in members)
            out[f"{prefix}maj@{k}"] = float(total / len(members) * 100)
        right = sum(labels[i].count(0) for i in members)
        out[f"{prefix}avg@{E2E_N}"] = float(Fraction(right, E2E_N * len(members)) * 100)
    return out


# --------------------------------------------------------------------------- tests
def test_results_equal_independent_values(oc_run):
    results = json.loads(oc_run.results_file.read_text())
    expected = expected_all()
    assert len(expected) == (len(E2E_KS) * 6 + 1) * 5  # overall + 4 split × language groups
    expected.update(expected_votes(results["details"]))
    for key, value in expected.items():
        assert key in results, f"missing {key}; have {sorted(results)[:20]}"
        assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    assert results["run"]["n"] == E2E_N
    assert results["run"]["num_questions"] == len(E2E_QUESTIONS)
    assert results["run"]["ks"] == E2E_KS
    assert results["accounting"]["unjudged"] == 0
    # OpenCompass's summary shows every top-level int/float as a metric row: only metrics
    # may live there (counts are nested under run/accounting)
    numbers = [k for k, v in results.items() if isinstance(v, (int, float))]
    assert set(numbers) == set(expected), sorted(set(numbers) ^ set(expected))
    # nothing of OpenCompass's own (broken) per-replica averaging or grouping leaks in
    assert not [k for k in results if "runs average" in k or k.startswith("LiveMathBench")]


def test_details_schema_and_counts(oc_run):
    details = json.loads(oc_run.results_file.read_text())["details"]
    assert isinstance(details, list) and len(details) == len(E2E_QUESTIONS)
    seen_ids = set()
    for index, (detail, (split, lang, question, gold, _forms, c)) in enumerate(
        zip(details, E2E_QUESTIONS)
    ):
        # 'found' (how the answer was located) is optional in the results schema, and so
        # are the server's per-sample facts (finish reason, token counts)
        optional = {"found", "vote", "vote_correct", "finish_reason", "output_tokens"}
        optional |= {"prompt_tokens"}
        assert set(DETAIL_SCHEMA) <= set(detail) <= set(DETAIL_SCHEMA) | optional, detail.keys()
        for key, typ in DETAIL_SCHEMA.items():
            assert isinstance(detail[key], typ), (key, detail[key])
        assert detail["index"] == index
        assert (detail["split"], detail["language"], detail["question"], detail["gold"]) == (
            split,
            lang,
            question,
            gold,
        )
        assert detail["n"] == E2E_N == len(detail["extracted"]) == len(detail["correct"])
        assert detail["c"] == c == sum(v is True for v in detail["correct"])
        assert all(v in (True, False, None) for v in detail["correct"])
        assert all(e is None or isinstance(e, str) for e in detail["extracted"])
        assert detail["question_id"].startswith(f"{split}_{lang}_")
        seen_ids.add(detail["question_id"])
    assert len(seen_ids) == len(details)


def test_endpoint_saw_every_sample_with_sampling_params(oc_run):
    assert oc_run.calls_after >= len(E2E_QUESTIONS) * E2E_N
    for _split, _lang, question, *_ in E2E_QUESTIONS:
        assert oc_run.responder.calls(question) == E2E_N
    bodies = list(oc_run.endpoint.requests)
    assert {b.get("temperature") for b in bodies} == {E2E_TEMPERATURE}
    assert {b.get("top_p") for b in bodies} == {E2E_TOP_P}


def test_summary_lists_every_metric(oc_run):
    summaries = sorted((oc_run.run_dir / "summary").glob("summary_*.csv"))
    assert summaries, "no summary csv written"
    with open(summaries[-1], newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    table = {(r["dataset"], r["metric"]): r[E2E_MODEL_ABBR] for r in rows}
    expected = expected_all()
    expected.update(expected_votes(json.loads(oc_run.results_file.read_text())["details"]))
    for key, value in expected.items():
        assert table.get((E2E_DATASET_ABBR, key)) == f"{value:.2f}", key
    # metrics only: the counts (rule_checks, judge_calls, n, …) stay out of the summary
    shown = {metric for dataset, metric in table if dataset == E2E_DATASET_ABBR}
    assert shown == set(expected), sorted(shown ^ set(expected))


def test_rerun_with_reuse_makes_no_new_calls(oc_rerun):
    assert oc_rerun.calls_after == oc_rerun.extra["calls_before"]
    assert oc_rerun.results_file.stat().st_mtime_ns == oc_rerun.extra["results_mtime_before"]
    results = json.loads(oc_rerun.results_file.read_text())
    assert results["G-Pass@4_0.5"] == pytest.approx(expected_all()["G-Pass@4_0.5"], abs=1e-12)


def test_broken_plugin_import_is_reported_in_task_log(oc_run, tmp_path):
    """A dependency of our evaluator fails to import inside the eval subprocess.

    mmengine's registry fallback swallows ImportError ('not in the registry'); the
    task log must show the real ImportError text instead.
    """
    # reuse the predictions of the main run; only the eval task runs (-m eval -r)
    cwd = tmp_path / "broken"
    shutil.copytree(oc_run.cwd / "data", cwd / "data")
    shutil.copytree(
        oc_run.run_dir / "predictions", cwd / "outputs" / oc_run.timestamp / "predictions"
    )
    shadow = tmp_path / "shadow"
    (shadow / "math_verify").mkdir(parents=True)
    (shadow / "math_verify" / "__init__.py").write_text(
        "raise ImportError('simulated: libmathverify.so is missing')\n"
    )
    # evaluator given as a dotted string, as in a dumped config: only the task imports it
    (cwd / "cfg.py").write_text(
        e2e_config(oc_run.endpoint.url, evaluator_type="'gpassk_oc.evaluators.GPassKEvaluator'")
    )
    proc = run_cli(
        cwd,
        ["cfg.py", "-w", "outputs", "-m", "eval", "-r", oc_run.timestamp, "--max-num-workers", "1"],
        offline_env([str(shadow)]),
    )
    logs = [proc.stdout, proc.stderr] + [
        p.read_text(errors="replace") for p in (cwd / "outputs").rglob("logs/eval/**/*.out")
    ]
    text = "\n".join(logs)
    assert "simulated: libmathverify.so is missing" in text, text[-4000:]
    assert "gpassk_oc: importing gpassk_oc.evaluators failed" in text
    assert not (
        cwd / "outputs" / oc_run.timestamp / "results" / E2E_MODEL_ABBR / f"{E2E_DATASET_ABBR}.json"
    ).exists()


def test_relative_data_path_resolved_in_the_cli_cwd(oc_run):
    """Task subprocesses run in the directory the CLI was started in."""
    assert "path='data/LiveMathBench'" in (oc_run.cwd / "cfg.py").read_text()
    assert Path.cwd() != oc_run.cwd and not (Path.cwd() / "data" / "LiveMathBench").exists()
    assert oc_run.results_file.exists()
    assert (oc_run.cwd / "tmp").is_dir()  # LocalRunner's params files live in the cwd too
