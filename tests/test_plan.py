"""gpassk-oc plan: the variance split against simulated reruns (≥ 200, within 15%), a pilot
run fitted and extrapolated to another n, and every bad input as one line, exit 2."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from report_support import abbr, run_cli, write_run

from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.sample_size import Difficulty, fit_beta, split

Z95 = 1.959963984540054
RUNS = 300


def _simulated_halfwidths(a, b, q, n, metric, seed):
    """z × the empirical SD of the score over RUNS simulated runs: rerun (questions fixed)
    and benchmark (questions redrawn each run)."""
    rng = np.random.default_rng(seed)
    f = metric_per_c(metric, n)
    p = rng.beta(a, b, q)
    rerun = f[rng.binomial(n, p, size=(RUNS, q))].mean(axis=1).std(ddof=1)
    fresh = rng.beta(a, b, size=(RUNS, q))
    bench = f[rng.binomial(n, fresh)].mean(axis=1).std(ddof=1)
    return Z95 * rerun, Z95 * bench


def _plan_json(capsys, *argv):
    code, out, err = run_cli(capsys, "plan", *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "q,n,metric",
    [(280, 16, "G-Pass@8_1.0"), (280, 48, "mG-Pass@16"), (64, 8, "G-Pass@4_0.5")],
)
def test_assumed_plan_matches_simulated_spread(capsys, q, n, metric):
    plan = _plan_json(
        capsys,
        "--beta",
        "0.6,0.6",
        "--questions",
        q,
        "--n",
        n,
        "--metrics",
        metric,
        "--grid-questions",
        q,
        "--grid-n",
        n,
    )
    assert any("Beta(0.6, 0.6)" in line for line in plan["assumptions"])
    predicted = plan["grid"][metric]
    rerun, bench = _simulated_halfwidths(0.6, 0.6, q, n, metric, seed=q + n)
    assert predicted["rerun"][0][0] == pytest.approx(rerun, rel=0.15)
    assert predicted["benchmark"][0][0] == pytest.approx(bench, rel=0.15)


def test_pilot_is_fitted_and_extrapolated_to_another_n(tmp_path, capsys):
    """A pilot at n = 16 predicts the spread at n = 48 of the population it came from."""
    rng = np.random.default_rng(4)
    q, a, b = 200, 0.6, 0.6
    qs = [("AMC", "en", i, f"problem {i}") for i in range(q)]
    cs = rng.binomial(16, rng.beta(a, b, q))
    path = write_run(tmp_path, abbr("m", "0-7"), "LiveMathBench-v202412-k4_8_16-r1", cs, 16, qs=qs)
    plan = _plan_json(
        capsys, path, "--metrics", "G-Pass@8_1.0", "--grid-questions", q, "--grid-n", "16,48"
    )
    fitted = plan["difficulty"]
    assert fitted["source"].startswith("fitted to") and plan["questions"] == q and plan["n"] == 16
    check = plan["pilot"]["G-Pass@8_1.0"]  # the pilot's own intervals beside the model's
    assert check["rerun"] == pytest.approx(check["model_rerun"], rel=0.25)
    assert check["benchmark"] == pytest.approx(check["model_benchmark"], rel=0.25)
    rerun, bench = _simulated_halfwidths(a, b, q, 48, "G-Pass@8_1.0", seed=9)
    grid = plan["grid"]["G-Pass@8_1.0"]
    assert grid["rerun"][0][1] == pytest.approx(rerun, rel=0.15)
    assert grid["benchmark"][0][1] == pytest.approx(bench, rel=0.15)


def test_beta_fit_recovers_known_parameters():
    rng = np.random.default_rng(1)
    c = rng.binomial(24, rng.beta(2.0, 5.0, 4000))
    d = fit_beta(np.full(c.shape, 24), c, "test")
    assert d.a == pytest.approx(2.0, rel=0.1) and d.b == pytest.approx(5.0, rel=0.1)


def test_beta_fit_without_spread_keeps_the_mean(tmp_path, capsys):
    """Counts with no extra-binomial spread (every question at p = 0.9): the fit runs to a
    large a + b at the mean rate Σc/Σn, which the pilot plan reports (not 50%)."""
    rng = np.random.default_rng(3)
    c = rng.binomial(16, 0.9, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the optimiser's overflow warnings stay silent
        d = fit_beta(np.full(40, 16), c, "test")
    assert d.mean == pytest.approx(c.sum() / 640, abs=1e-4) and d.a + d.b > 1000
    qs = [("AMC", "en", i, f"problem {i}") for i in range(40)]
    path = write_run(tmp_path, abbr("m", "0-7"), "LiveMathBench-v202412-k4_8_16-r1", c, 16, qs=qs)
    plan = _plan_json(capsys, path, "--metrics", "pass@1", "--grid-n", "16")
    assert plan["split"]["pass@1"]["mean"] == pytest.approx(c.sum() / 640, abs=1e-4)


def test_avg_is_planned_as_pass_at_1(capsys):
    """avg@n = c/n: under Beta(1, 1), mean 1/2, between Var p = 1/12, within E p(1−p)/n =
    (1/2 − 1/3)/n; rerun half-width z·sqrt(within/Q)."""
    s = split("avg@4", Difficulty(1.0, 1.0, "assumed"), 8)
    assert (s.mean, s.between, s.within) == pytest.approx((0.5, 1 / 12, 1 / 48), rel=1e-12)
    plan = _plan_json(
        capsys, "--beta", "1,1", "--questions", 100, "--n", 8, "--metrics", "avg@8",
        "--grid-questions", 100, "--grid-n", 8,
    )  # fmt: skip
    assert plan["grid"]["avg@8"]["rerun"][0][0] == pytest.approx(Z95 * (1 / 4800) ** 0.5)


def test_split_closed_form_for_pass_at_1():
    """pass@1 = c/n: between = Var p = ab/((a+b)²(a+b+1)); within = E p(1−p)/n."""
    a, b, n = 2.0, 3.0, 10
    s = split("pass@1", Difficulty(a, b, "assumed"), n)
    var_p = a * b / ((a + b) ** 2 * (a + b + 1))
    mean_p = a / (a + b)
    e_pq = mean_p - (var_p + mean_p**2)
    assert s.mean == pytest.approx(mean_p, rel=1e-12)
    assert s.between == pytest.approx(var_p, rel=1e-12)
    assert s.within == pytest.approx(e_pq / n, rel=1e-12)


def test_target_halfwidth_and_difference(capsys):
    plan = _plan_json(
        capsys,
        "--beta",
        "0.6,0.6",
        "--questions",
        "280",
        "--k",
        "8",
        "--metrics",
        "G-Pass@8_1.0",
        "--interval",
        "rerun",
        "--halfwidth",
        "1.5",
        "--difference",
        "3",
    )
    found = plan["smallest"]["G-Pass@8_1.0"]["rerun"]
    d = Difficulty(0.6, 0.6, "assumed")
    # the smallest n: reaches ±1.5 points, n − 1 does not
    assert split("G-Pass@8_1.0", d, found).halfwidth(280, "rerun", Z95) <= 0.015
    assert split("G-Pass@8_1.0", d, found - 1).halfwidth(280, "rerun", Z95) > 0.015
    n_diff = plan["resolve"]["G-Pass@8_1.0"]["rerun"]
    se = np.sqrt(2 * split("G-Pass@8_1.0", d, n_diff).within / 280)
    assert (Z95 + 0.8416212335729143) * se <= 0.03


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--beta", "0.6,0.6", "--questions", "280", "--halfwidth", "0"], "--halfwidth 0:"),
        (["--beta", "0.6,0.6", "--questions", "280", "--halfwidth", "-1"], "--halfwidth -1:"),
        (
            [
                "--beta",
                "0.6,0.6",
                "--questions",
                "280",
                "--halfwidth",
                "0.5",
                "--interval",
                "benchmark",
            ],
            "unreachable",
        ),
        (["--beta", "0.6,0.6", "--questions", "280", "--level", "150"], "--level 150:"),
        (["--beta", "0.6,0.6", "--questions", "280", "--level", "0"], "--level 0:"),
        (["--beta", "0.6", "--questions", "280"], "--beta 0.6:"),
        (["--beta", "0.6,0.6"], "--questions"),
        ([], "need a pilot run"),
        (["--beta", "1,1", "--questions", "50", "--metrics", "G-Pass@x"], "--metrics:"),
        (["--beta", "1,1", "--questions", "50", "--metrics", "pass@99"], "--metrics pass@99:"),
        (["--beta", "1,1", "--questions", "50", "--metrics", "maj@4"], "--metrics maj@4:"),
    ],
)
def test_bad_input_is_one_line(capsys, argv, needle):
    code, out, err = run_cli(capsys, "plan", *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and needle in err, err


def test_bad_pilots_and_kinds_are_one_line(tmp_path, capsys):
    one = write_run(
        tmp_path / "one",
        abbr("m", "0-7"),
        "LiveMathBench-v202412-k1-r1",
        [3],
        4,
        qs=[("AMC", "en", 0, "q")],
    )
    code, _, err = run_cli(capsys, "plan", one)
    assert code == 2 and len(err.splitlines()) == 1 and "1 question" in err, err
    single = write_run(
        tmp_path / "n1",
        abbr("m", "0-7"),
        "LiveMathBench-v202412-k1-r1",
        [1, 0, 1],
        1,
        qs=[("AMC", "en", i, f"q{i}") for i in range(3)],
    )
    code, _, err = run_cli(capsys, "plan", single)
    assert code == 2 and len(err.splitlines()) == 1 and "n >= 2" in err, err
    write_run(
        tmp_path / "n1",
        abbr("m2", "0-7"),
        "LiveMathBench-v202412-k1-r1",
        [1, 1],
        1,
        qs=[("AMC", "en", i, f"q{i}") for i in range(2)],
    )
    code, _, err = run_cli(capsys, "plan", tmp_path / "n1")  # two runs: name the flag
    assert code == 2 and len(err.splitlines()) == 1 and "choose one with --model " in err, err
    with pytest.raises(SystemExit) as info:
        run_cli(capsys, "plan", "--beta", "1,1", "--questions", "9", "--interval", "bayes")
    assert info.value.code == 2 and len(capsys.readouterr().err.splitlines()) == 1


def test_difference_with_a_paired_pilot_b(tmp_path, capsys):
    rng = np.random.default_rng(6)
    q = 120
    qs = [("AMC", "en", i, f"problem {i}") for i in range(q)]
    p = rng.beta(0.6, 0.6, q)
    dataset = "LiveMathBench-v202412-k4_8_16-r1"
    a = write_run(tmp_path, abbr("a", "0-7"), dataset, rng.binomial(16, p), 16, qs=qs)
    shifted = np.clip(p + rng.normal(0, 0.1, q), 0, 1)
    b = write_run(tmp_path, abbr("b", "0-7"), dataset, rng.binomial(16, shifted), 16, qs=qs)
    argv = ["--metrics", "G-Pass@4_0.5", "--difference", "10", "--grid-n", "16"]
    plan = _plan_json(capsys, a, "--pilot-b", b, *argv)
    found = plan["resolve"]["G-Pass@4_0.5"]
    # questions resampled too adds the spread of per-question differences: never fewer n
    assert isinstance(found["rerun"], int)
    assert found["benchmark"] is None or found["benchmark"] >= found["rerun"]
    alone = _plan_json(capsys, a, *argv)["resolve"]["G-Pass@4_0.5"]
    assert alone["benchmark"] == "needs --pilot-b"
