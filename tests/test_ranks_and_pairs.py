"""Issue 35, items 3 and 6: rank intervals no wider than the data need, and a ``compare``
that tells the truth about itself (a run with itself, identical counts, p beside its
interval). Expected values are derived here from closed forms, not from the code."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from report_support import DATASET, N, abbr, questions, run_cli, write_run

from gpassk_oc.core.uncertainty.metric_intervals import compare
from gpassk_oc.core.uncertainty.rank_intervals import rank_intervals
from gpassk_oc.report.commands.compare_command import _ci_text, _p_text


# --------------------------------------------------------------------------- ranks
def test_two_rows_1_8_standard_errors_apart_get_their_own_ranks() -> None:
    """Two rows 1.8 SE of their difference apart, rerun draws exact normals. 0.3.0's rule
    (Bonferroni percentile test, one-sided 2.5%: needs 1.96 SE) gave both [1, 2]. The
    marginal rule: in the draws' world the difference is shrunk to d·(1 − 1/t²), so the
    lower row's draws need c ≥ −(t(1 − 1/t²) + Z), whose 95% quantile is
    1.645 − t + 1/t = 0.40 at t = 1.8 < 1.8: each row gets its own rank."""
    t = 1.8
    assert 1.645 - t + 1 / t < t < 1.96  # the case sits between the two rules
    rng = np.random.default_rng(5)
    se = 0.01
    points = np.array([0.5, 0.5 + t * se * math.sqrt(2)])
    draws = points + se * rng.standard_normal((4000, 2))
    assert rank_intervals(points, draws) == [(2, 2), (1, 1)]


def test_rows_within_noise_of_each_other_stay_unseparated() -> None:
    """Four rows 0.3 SE apart: the observed spread is no more than noise, so the draws'
    world takes them as tied, where any row declared above another is wrong: the one-sided
    max of three t's at 95% exceeds 0.9 (the widest gap here), so nothing is declared."""
    rng = np.random.default_rng(6)
    se = 0.01
    points = 0.5 + 0.3 * se * np.arange(4)
    draws = points + se * rng.standard_normal((4000, 4))
    assert rank_intervals(points, draws) == [(1, 4)] * 4


# --------------------------------------------------------------------------- compare
def test_an_interval_touching_zero_has_p_at_least_alpha() -> None:
    """A beats B on 2 of 26 questions and ties the rest, so a resample holds neither with
    chance (24/26)^26 = 0.124 > 0.025 and its mean is then exactly 0: the 95% interval's
    lower bound is 0 (touching), and its p must not read below 0.05 (0.3.0: 0.014)."""
    c_b = np.array([1, 0, 7, 0, 4, 0, 2, 4, 3, 3, 0, 0, 1, 0, 6, 4, 5, 2, 5, 6, 3, 4, 8, 7, 8, 3])
    c_a = c_b.copy()
    c_a[16], c_a[21] = 8, 5
    assert (24 / 26) ** 26 > 0.1
    for key in ("pass@1", "G-Pass@4_1.0"):
        d = compare(8, c_a, 8, c_b, [key], n_boot=2000, seed=1)[key]
        assert d.ci_low == 0.0 and d.ci_high > 0
        assert d.p_value >= 0.05


@pytest.mark.parametrize(
    ("low", "high", "p", "shown"),
    [
        (-4.6e-11, 0.686, 0.0588, ("[-0.0, +68.6]", "0.059")),  # just below 0: holds 0
        (3.5e-6, 0.367, 0.0004, ("[+0.0, +36.7]", "0.000")),  # just above 0: leaves it out
        (0.0, 0.276, 0.05, ("[0.0, +27.6]", "0.050")),  # touches 0: p = alpha
        (-0.2, 0.3, 0.0496, ("[-20.0, +30.0]", "0.0496")),  # 3 decimals would read 0.050
        (-0.2, 0.3, 0.05004, ("[-20.0, +30.0]", "0.05004")),
        (0.01, 0.3, float(np.nextafter(0.05, 0)), ("[+1.0, +30.0]", "<0.05")),
    ],
)
def test_bounds_and_p_show_their_side(low, high, p, shown) -> None:
    assert (_ci_text(low, high, "ok"), _p_text(p, "ok")) == shown  # alpha 0.05 by default


def test_compare_refuses_a_run_with_itself(workdir, capsys) -> None:
    root, _ = workdir
    a = abbr("qwen-7b", "0-7")
    code, out, err = run_cli(capsys, "compare", root, root, "--model-a", a, "--model-b", a)
    assert code == 2 and out == ""
    assert err.startswith("error: A and B are the same run") and len(err.splitlines()) == 1


def test_compare_flags_two_runs_with_the_same_counts(tmp_path, capsys) -> None:
    """Two greedy-like runs of one setting, saved under two seeds: the same counts on every
    question. The rerun interval would treat them as independent; the output says so."""
    c = np.random.default_rng(3).integers(0, N + 1, len(questions()))
    for seed in (1, 2):
        write_run(tmp_path, abbr("qwen-7b", "0-7", seed=seed), DATASET, c, N)
    a, b = abbr("qwen-7b", "0-7", seed=1), abbr("qwen-7b", "0-7", seed=2)
    argv = ["compare", tmp_path, tmp_path, "--model-a", a, "--model-b", b, "--resamples", "200"]
    code, out, err = run_cli(capsys, *argv, "--no-pool-seeds")
    assert code == 0, err
    assert "Note: A and B have the same number of correct samples on every question" in out
    code, out, err = run_cli(capsys, *argv, "--no-pool-seeds", "--format", "json")
    assert code == 0 and json.loads(out)["identical_counts"] is True
    write_run(tmp_path, abbr("llama-8b", "0-7"), DATASET, np.clip(c - 1, 0, N), N)
    argv[6] = abbr("llama-8b", "0-7")
    code, out, err = run_cli(capsys, *argv, "--no-pool-seeds")
    assert code == 0 and "Note:" not in out, err


def test_p_a_better_of_a_known_t_difference() -> None:
    """The rerun P(A better) is T_ν(diff / se), the t distribution of the rerun interval
    and its p (a flat-prior reading; the bench's reliability table checks it over
    simulated pairs): here from the t statistic of a constructed pair."""
    from scipy.stats import t as student

    from gpassk_oc.core.metrics.registry import parse_metric
    from gpassk_oc.report.ranking.compare_ranks import prob_a_better

    rng = np.random.default_rng(2)
    q = 60
    c_a, c_b = rng.integers(2, 15, q), rng.integers(2, 15, q)
    n = np.full(q, 16)
    spec = parse_metric("pass@1")
    d = compare(n, c_a, n, c_b, [spec], n_boot=0)["pass@1"]
    # pass@1's unbiased per-question variance of c/n is c(n − c)/(n²(n − 1)); A's and B's
    # add per question, and ν = 3 (Σ V)² / Σ V²
    v = (c_a * (16 - c_a) + c_b * (16 - c_b)) / (16**2 * 15)
    se, df = math.sqrt(v.sum()) / q, 3 * v.sum() ** 2 / (v**2).sum()
    got = prob_a_better({"pass@1": d}, [spec], 0)["pass@1"]["rerun"]
    assert got == pytest.approx(float(student.cdf((c_a.sum() - c_b.sum()) / (16 * q) / se, df)))
