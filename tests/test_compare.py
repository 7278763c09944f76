"""gpassk-oc report / compare / plots on synthetic OpenCompass work dirs written in
tmp_path. Expected table values are recomputed here from the synthetic c's with an
independent Fraction oracle."""

from __future__ import annotations

import json

import pytest
from report_support import DATASET, SPLITS, TS, N, abbr, oracle_mean, questions, run_cli, write_run


# --------------------------------------------------------------------------- compare
def test_compare_paired_difference(workdir, capsys):
    root, cs = workdir
    a, b = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")
    code, out, err = run_cli(
        capsys,
        "compare",
        root,
        root / TS / "results" / b / f"{DATASET}.json",
        "--model-a",
        a,
        "--format",
        "json",
        "--by-split",
        "--resamples",
        "2000",
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["a"] == a and result["b"] == b and result["num_questions"] == len(questions())
    d = result["metrics"]["mG-Pass@16"]
    expected = oracle_mean("mG-Pass@16", [(N, int(c)) for c in cs[a]]) - oracle_mean(
        "mG-Pass@16", [(N, int(c)) for c in cs[b]]
    )
    assert d["diff"] == pytest.approx(expected, abs=1e-3)
    assert d["ci_low"] <= d["diff"] <= d["ci_high"] and 0 <= d["p_value"] <= 1
    # both named kinds; the benchmark block is the paired bootstrap (same as ci_low/ci_high)
    bench, rerun = d["benchmark"], d["rerun"]
    assert (bench["low"], bench["high"], bench["p_value"]) == (
        d["ci_low"],
        d["ci_high"],
        d["p_value"],
    )
    # n = 48 = 3k < 4k: unbiased variances combined with the fitted ones ('posterior')
    assert rerun["status"] == "posterior" and rerun["low"] < d["diff"] < rerun["high"]
    assert 0 <= rerun["p_value"] <= 1 and rerun["se"] == d["sampling_se"]
    # questions fixed: the rerun interval is narrower than the one over new questions
    assert rerun["high"] - rerun["low"] < bench["high"] - bench["low"]
    assert set(result["splits"]) == {f"{s}/{lang}" for s, lang in SPLITS}
    code, out, _ = run_cli(
        capsys, "compare", root, root, "--model-a", a, "--model-b", b, "--resamples", "200"
    )
    assert code == 0 and "| mG-Pass@16 |" in out
    assert "| rerun 95% | rerun p | benchmark 95% | benchmark p |" in out


def test_compare_refuses_different_question_sets_and_ambiguity(workdir, capsys):
    root, _ = workdir
    qs = questions()
    other = root / "other"
    write_run(other, abbr("x", "0-7"), DATASET, [3] * (len(qs) - 1), N, qs=qs[1:])
    code, _, err = run_cli(capsys, "compare", root, other, "--model-a", abbr("qwen-7b", "0-7"))
    assert code == 2 and "question sets differ" in err
    code, _, err = run_cli(capsys, "compare", root, other)
    assert code == 2 and "--model-a" in err


def test_compare_refuses_metrics_it_cannot_compute(workdir, capsys):
    root, _ = workdir
    a, b = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")
    for metric, message in (
        (
            "pass@99",
            f"error: --metrics pass@99: k=99 exceeds the n={N} judged samples per "
            f"question of A ({a}); it cannot be computed",
        ),
        (
            "G-Pass@4",
            "error: --metrics: unknown metric 'G-Pass@4' (expected G-Pass@K_TAU, "
            "mG-Pass@K, pass@K, gap@K, maj@K, avg@N or agree@K, e.g. G-Pass@16_0.75)",
        ),
        (
            "maj@4",
            "error: --metrics maj@4: compare pairs (n, c) counts, and a vote needs the "
            "answer classes; see maj@k in gpassk-oc report",
        ),
    ):
        code, out, err = run_cli(
            capsys, "compare", root, root, "--model-a", a, "--model-b", b, "--metrics", metric
        )
        assert (code, out, err) == (2, "", message + "\n")
    code, _, err = run_cli(
        capsys, "compare", root, root, "--model-a", a, "--model-b", b, "--k", "64"
    )
    assert code == 2 and err.startswith("error: --metrics pass@64: k=64 exceeds")


def test_compare_avg_is_pass_at_1_not_posterior(workdir, capsys):
    """avg@48 on n = 48 is c/n: an unbiased rerun variance exists (n ≥ 2), so its rerun
    interval is pass@1's, 'ok' and unstarred (it was 'posterior', as if k = 48)."""
    root, _ = workdir
    a, b = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")
    argv = ("compare", root, root, "--model-a", a, "--model-b", b, "--resamples", "200")
    code, out, err = run_cli(capsys, *argv, "--metrics", "avg@48", "pass@1", "--format", "json")
    assert code == 0, err
    metrics = json.loads(out)["metrics"]
    assert metrics["avg@48"]["rerun"]["status"] == "ok"
    assert metrics["avg@48"] == metrics["pass@1"]
    code, out, err = run_cli(capsys, *argv, "--metrics", "avg@48")
    row = next(line for line in out.splitlines() if line.startswith("| avg@48 |"))
    assert code == 0 and "*" not in row, row
