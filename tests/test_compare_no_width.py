"""`compare` where a run was answered right in all or in none of every question's samples.

`report` gives such a run `[no width]`: its counts cannot say how far a rerun would move
it. `compare` of a model right on every question against one never right printed
`[+100.0, +100.0]!` for the rerun kind (a zero-width interval, from a difficulty prior
fitted to counts at 0 and n), and `no width` beside `p 0.000` for the benchmark kind (a p
of 1 / (resamples + 1): every resample gives the point). Where only one run is so, the
interval must still have a width, from the other run, and say that it rests on it.

Expected values are computed here: closed forms for pass@1 (per question the unbiased
variance of c/n is c(n − c) / (n²(n − 1)); scipy.stats' t quantile), plain means."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from report_support import DATASET, GREEDY_DATASET, abbr, questions, run_cli, write_run
from scipy import stats as scipy_stats

N = 48
Q = len(questions())
METRICS = ["G-Pass@16_0.5", "G-Pass@16_1.0", "mG-Pass@16", "pass@16", "pass@1"]
A, B = abbr("a", "0-7"), abbr("b", "0-7")


def _compare(capsys, root, counts_a, counts_b, *extra) -> tuple[dict, str]:
    """Both outputs of `compare` of two runs of these counts: (JSON, markdown)."""
    write_run(root, A, DATASET, counts_a, N)
    write_run(root, B, DATASET, counts_b, N)
    args = ["compare", root, root, "--model-a", A, "--model-b", B, "--metrics", *METRICS]
    args += ["--resamples", "400", *extra]
    code, out, err = run_cli(capsys, *args, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    code, markdown, err = run_cli(capsys, *args)
    assert code == 0, err
    return data, markdown


def _row(markdown: str, key: str, table: str = "overall") -> list[str]:
    """The cells of *key*'s row in the markdown table *table*."""
    section = markdown.split(f"\n## {table}\n", 1)[1].split("\n## ", 1)[0]
    line = next(x for x in section.splitlines() if x.startswith(f"| {key} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_all_right_against_never_right_has_no_rerun_width_and_no_p(capsys, tmp_path):
    data, markdown = _compare(capsys, tmp_path, [N] * Q, [0] * Q)
    for key in METRICS:
        d = data["metrics"][key]
        assert d["diff"] == 100.0
        assert d["rerun"]["status"] == "no width", (key, d["rerun"])
        assert d["rerun"]["low"] is None and d["rerun"]["high"] is None
        assert d["rerun"]["p_value"] is None and d["rerun"]["rests_on"] == ""
        # every question's difference is +100: no benchmark width, and no p beside it
        assert d["benchmark"]["status"] == "no width" and d["benchmark"]["p_value"] is None
        assert d["p_value"] is None
        assert _row(markdown, key)[4:] == ["no width", "—", "no width", "—"], key
    assert "+100.0, +100.0" not in markdown
    legend = markdown.split("\n## ", 1)[0]
    assert "- no width: no interval is given: rerun: " in legend
    assert "and no p-value (—) unless every A − B is 0 (p = 1)" in legend
    assert "`!` = unreliable" not in legend  # no cell shows '!'
    # report says the same of each run alone
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "0", "--k", "16")
    assert code == 0, err
    assert "| 100.0 [no width] |" in out and "| 0.0 [no width] |" in out


def test_both_runs_flat_but_questions_differ_keeps_the_benchmark_width(capsys, tmp_path):
    """A right in every sample of half the questions and in none of the rest, B never:
    a rerun moves neither run (no rerun width), but new questions would move A − B."""
    counts_a = [N] * (Q // 2) + [0] * (Q - Q // 2)
    data, markdown = _compare(capsys, tmp_path, counts_a, [0] * Q)
    for key in METRICS:
        d = data["metrics"][key]
        assert d["diff"] == pytest.approx(100 * (Q // 2) / Q)
        assert d["rerun"]["status"] == "no width" and d["rerun"]["p_value"] is None
        bench = d["benchmark"]
        # a width either way ('!' where the metric needs all k right: 24 < 32 questions)
        assert bench["status"] in ("ok", "unreliable")
        assert bench["low"] < d["diff"] < bench["high"]
        # the p is held to the interval beside it: here both say A − B > 0
        assert bench["low"] > 0 and bench["p_value"] < 0.05
        assert _row(markdown, key)[4:6] == ["no width", "—"]


def _pass1_rerun_interval(counts_b: np.ndarray) -> tuple[float, float]:
    """(A − B) ± t·SE for pass@1, A right in every sample: only B's samples vary, with the
    unbiased variance of c/n per question and ν = 3 (Σ V)² / Σ V² (percent)."""
    c = counts_b.astype(float)
    v = c * (N - c) / (N**2 * (N - 1))
    se = math.sqrt(v.sum()) / Q
    df = max(3 * v.sum() ** 2 / (v**2).sum(), 1.0)
    diff = 1 - c.mean() / N
    half = scipy_stats.t.ppf(0.975, df) * se
    return 100 * (diff - half), 100 * (diff + half)


def test_one_run_flat_keeps_the_other_runs_width_and_says_so(capsys, tmp_path):
    rng = np.random.default_rng(3)
    counts_b = rng.binomial(N, rng.beta(1, 1, Q))
    assert np.any((counts_b > 0) & (counts_b < N))
    data, markdown = _compare(capsys, tmp_path, [N] * Q, counts_b, "--by-split")
    low, high = _pass1_rerun_interval(counts_b)
    rerun = data["metrics"]["pass@1"]["rerun"]
    assert rerun["status"] == "ok" and rerun["rests_on"] == "B"
    assert rerun["low"] == pytest.approx(low, abs=2e-4)
    assert rerun["high"] == pytest.approx(high, abs=2e-4)
    for key in METRICS:
        r = data["metrics"][key]["rerun"]
        assert r["status"] != "no width" and r["high"] - r["low"] > 1.0, (key, r)
        assert r["rests_on"] == "B"
    # A adds no rerun variance: B's own width, as its report prints it
    code, out, err = run_cli(
        capsys, "report", tmp_path, "--format", "json", "--resamples", "0", "--k", "16"
    )
    assert code == 0, err
    row_b = next(r for r in json.loads(out) if r["model"] == B)
    for key in ("G-Pass@16_1.0", "mG-Pass@16"):
        own, d = row_b["metrics"][key], data["metrics"][key]
        # half-widths (B's own interval is clipped at 0, that of A − B is not)
        half = d["rerun"]["high"] - d["diff"]
        assert half == pytest.approx(own["rerun"]["high"] - own["value"], abs=2e-4), key
    legend = markdown.split("\n## ", 1)[0]
    assert (
        "- A was answered right in all or in none of its samples on every question of "
        "overall, " in legend
    )
    assert "rests on B's samples alone" in legend and "- no width:" not in legend


def test_ordinary_runs_rest_on_both(capsys, tmp_path):
    rng = np.random.default_rng(8)
    counts = [rng.binomial(N, rng.beta(1, 1, Q)) for _ in range(2)]
    data, markdown = _compare(capsys, tmp_path, *counts)
    assert {d["rerun"]["rests_on"] for d in data["metrics"].values()} == {"A and B"}
    assert "samples alone" not in markdown.split("\n## ", 1)[0]


def test_equal_flat_runs_keep_p_one(capsys, tmp_path):
    """Every A − B is 0 (two runs right in every sample): no width for either kind, and
    the benchmark p is 1 (no sign of a difference), not a number set by --resamples."""
    data, markdown = _compare(capsys, tmp_path, [N] * Q, [N] * Q)
    d = data["metrics"]["pass@1"]
    assert d["diff"] == 0 and d["benchmark"]["status"] == "no width"
    assert d["benchmark"]["p_value"] == 1.0 and d["rerun"]["p_value"] is None
    assert _row(markdown, "pass@1")[3:] == ["0.0", "no width", "—", "no width", "1.000"]


def _prob_row(markdown: str, key: str) -> list[str]:
    """The cells of *key*'s row in the markdown's P(A better than B) table."""
    return _row(markdown, key, "P(A better than B)")


def test_no_width_gives_no_p_a_better(capsys, tmp_path):
    """P(A better than B) is read off the interval of A − B: where that interval has no
    width (a zero SE, or every question's A − B alike) there is none (it printed 1.000,
    the sign of A − B, for the rerun kind), with its reason."""
    counts_a = [N] * (Q // 2) + [0] * (Q - Q // 2)
    data, markdown = _compare(capsys, tmp_path, [N] * Q, counts_a)
    for key in METRICS:
        p = data["p_a_better"][key]
        assert p == data["p_a_greater"][key]
        assert p["rerun"] is None and p["reason"]["rerun"].startswith("no width: ")
        # questions differ (A − B is +100 on half of them, 0 elsewhere): a benchmark P
        assert 0.99 < p["benchmark"] <= 1 and p["reason"]["benchmark"] is None
        assert _prob_row(markdown, key)[1] == "—", key
    assert f"— under rerun: {p['reason']['rerun']}." in markdown
    assert "— under benchmark" not in markdown
    # every question +100: neither kind has width, so neither has a P
    data, markdown = _compare(capsys, tmp_path / "all", [N] * Q, [0] * Q)
    for key in METRICS:
        p = data["p_a_better"][key]
        assert p["rerun"] is None and p["benchmark"] is None, (key, p)
        assert p["reason"]["benchmark"].startswith("no width: every question has the same")
        assert _prob_row(markdown, key)[1:] == ["—", "—"], key


def test_a_greedy_side_says_why_its_rerun_cells_read_n_2k(capsys, tmp_path):
    """A sampled run against a greedy one (n = 1): every rerun cell reads `n<2k`, which the
    legend did not explain (the report's does); it does now, and P's rerun kind is —."""
    rng = np.random.default_rng(1)
    p = rng.beta(0.5, 0.5, Q)
    write_run(tmp_path, A, DATASET, rng.binomial(N, p), N)
    greedy = abbr("a", "0")
    write_run(tmp_path, greedy, GREEDY_DATASET, rng.binomial(1, p), 1)
    argv = ["compare", tmp_path, tmp_path, "--model-a", A, "--model-b", greedy]
    code, markdown, err = run_cli(capsys, *argv, "--resamples", "300")
    assert code == 0, err
    assert _row(markdown, "pass@1")[4:6] == ["n<2k", "—"]
    legend = markdown.split("\n## ", 1)[0]
    assert "- n<2k: no rerun interval, nor a p-value (—): a side has fewer than 2k" in legend
    assert _prob_row(markdown, "pass@1")[1] == "—"
