"""``gpassk-oc demo``: checks of one real run through the OpenCompass CLI — the README
Quickstart's full demo, which tests/readme_copy.py runs once per session in the README's
clean copy (for the docs tests too) — plus fast unit tests of the truth computation and
the config plumbing (among them what ``--quick`` changes: the plan).

The truth oracle here enumerates all 2^k Bernoulli outcome vectors with exact
fractions — independently of scipy and of the hypergeometric metric core.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import socket
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from readme_copy import ReadmeCopy

from gpassk_oc import configgen
from gpassk_oc.core.metrics.registry import report_metrics as metric_keys
from gpassk_oc.demo import opencompass_run, problems, simulation
from gpassk_oc.demo import run as demo
from gpassk_oc.log import use_cli_format

#: the demo's grid (opencompass_config_templates/demo.py): 2 models x 2 temperatures,
#: k-list [4, 8] with replications = [2], so n = 16 samples per question
CONFIGS, N = 4, 16
TEMPERATURES = [0.5, 1.0]
#: the report's headline k: the largest configured k below n (8 of [4, 8] at n = 16), so
#: its intervals are not the approximate ones of k = n
K = 8


# --------------------------------------------------------------------------- oracle
def _tail_by_enumeration(k: int, p: Fraction, m: int) -> Fraction:
    """P(at least m successes among k Bernoulli(p)), summing over all 2^k outcomes."""
    total = Fraction(0)
    for outcome in itertools.product((0, 1), repeat=k):
        if sum(outcome) >= m:
            prob = Fraction(1)
            for x in outcome:
                prob *= p if x else 1 - p
            total += prob
    return total


def brute_truth(key: str, p: Fraction) -> Fraction:
    kind, _, rest = key.partition("@")
    if kind == "G-Pass":
        k_text, tau = rest.split("_")
        k = int(k_text)
        return _tail_by_enumeration(k, p, max(math.ceil(Fraction(tau) * k), 1))
    k = int(rest)
    if kind == "mG-Pass":
        lo = math.ceil(Fraction(k, 2)) + 1
        return Fraction(2, k) * sum(_tail_by_enumeration(k, p, i) for i in range(lo, k + 1))
    if kind == "pass":
        return _tail_by_enumeration(k, p, 1)
    if kind == "agree":  # all k outcomes alike: none or every one a success
        return 1 - _tail_by_enumeration(k, p, 1) + _tail_by_enumeration(k, p, k)
    assert kind == "gap"
    return _tail_by_enumeration(k, p, 1) - _tail_by_enumeration(k, p, k)


# --------------------------------------------------------------------------- unit tests
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_truth_matches_bernoulli_enumeration(k):
    ps = [Fraction(0), Fraction(13, 100), Fraction(1, 2), Fraction(77, 100), Fraction(1)]
    keys = metric_keys(k) + [f"G-Pass@{k}_0.55", f"G-Pass@{k}_1/3"]
    for key in keys:
        expected = sum(brute_truth(key, p) for p in ps) / len(ps)
        assert simulation.true_metric(key, [float(p) for p in ps]) == pytest.approx(
            float(expected), abs=1e-12
        ), key


@pytest.mark.parametrize("n,k", [(8, 4), (8, 8), (16, 8), (10, 3)])
def test_estimators_are_unbiased_for_the_truth(n, k):
    """E[estimator(c)] over c ~ Binomial(n, p), summed exactly, equals the closed-form
    truth: the report's hypergeometric estimators and the demo's truth agree."""
    from scipy.stats import binom

    from gpassk_oc.core.uncertainty.metric_intervals import metric_per_c

    ps = [0.03, 0.35, 0.5, 0.9295]
    for key in metric_keys(k):
        if key == "pass@1":
            continue  # k=1 metric; covered by the k=1 case of the enumeration test
        per_c = metric_per_c(key, n)
        expected = sum(float(binom.pmf(range(n + 1), n, p) @ per_c) for p in ps) / len(ps)
        assert simulation.true_metric(key, ps) == pytest.approx(expected, abs=1e-12), key


def test_truth_distinguishes_threshold_rounding():
    # k=5, τ=0.5 needs m=3 (not 2): a wrong ceiling moves the value by P(X = 2)
    p = 0.4
    assert simulation.true_metric("G-Pass@5_0.5", [p]) == pytest.approx(
        float(_tail_by_enumeration(5, Fraction(2, 5), 3))
    )
    assert simulation.true_metric("G-Pass@5_0.5", [p]) != pytest.approx(
        float(_tail_by_enumeration(5, Fraction(2, 5), 2))
    )


def test_simulated_probabilities_are_as_documented():
    for position in range(8):
        assert simulation.success_probability(simulation.SHAKY, position, 0) == pytest.approx(
            0.5 + 0.05 * position
        )
        assert simulation.success_probability(simulation.STEADY, position, 0) == (
            0.97 if position < 3 else 0.03
        )
    # hotter sampling pulls toward 0.5 (never past it)
    for model in simulation.MODELS:
        for position in range(8):
            ps = [simulation.success_probability(model, position, t) for t in (0, 0.5, 1.0, 2.0)]
            dist = [abs(p - 0.5) for p in ps]
            assert dist == sorted(dist, reverse=True)
            assert all((p - 0.5) * (ps[0] - 0.5) >= 0 for p in ps)


def test_demo_plan_overrides_url_data_and_quick(tmp_path):
    template = configgen.resolve_template("demo.py")
    plan = demo.demo_plan(template, "http://127.0.0.1:1234/v1/", tmp_path / "data", quick=True)
    assert len(plan.configs) == 2  # two models x one temperature
    grid = demo.demo_grid(plan)
    assert [f"{m}@{d}.py" for m, d in grid.pairs] == [c.name for c in plan.configs]
    for config in plan.configs:
        (model,), (dataset,) = config.data["models"], config.data["datasets"]
        assert model["openai_api_base"] == "http://127.0.0.1:1234/v1/"
        assert dataset["path"] == str(tmp_path / "data") and dataset["n"] == 8
    assert grid.data["infer"]["partitioner"]["num_worker"] == 1


def test_quick_only_cuts_the_full_plan(tmp_path):
    """What ``--quick`` changes (the real run below is the full demo): the plan, to the
    full grid's first temperature with n = max(k) = 8 instead of N."""

    def grid_points(quick: bool) -> set[tuple[str, float, int]]:
        plan = demo.demo_plan(template, "http://127.0.0.1:1/v1/", tmp_path, quick=quick)
        points = [(c.data["models"][0], c.data["datasets"][0]) for c in plan.configs]
        return {(m["path"], m["temperature"], d["n"]) for m, d in points}

    template = configgen.resolve_template("demo.py")
    assert grid_points(quick=False) == set(itertools.product(simulation.MODELS, TEMPERATURES, [N]))
    assert grid_points(quick=True) == set(
        itertools.product(simulation.MODELS, TEMPERATURES[:1], [8])
    )


def test_cli_failure_is_one_line_with_log_path(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(
        opencompass_run,
        "opencompass_command",
        lambda: [sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"],
    )
    args = demo.build_parser().parse_args(["--quick", "--output", str(tmp_path / "out")])
    use_cli_format()  # as `gpassk-oc demo` does, onto the captured stderr
    assert demo.run(args) == 1
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.strip()]
    log = tmp_path / "out" / "opencompass.log"
    assert errors == [f"error: opencompass exited with code 3; log: {log}"]
    assert "boom" in log.read_text()
    # the configs were written before opencompass ran: --quick reached the plan
    assert len(list((tmp_path / "out" / "configs").glob("*.py"))) == len(simulation.MODELS)
    port = int(re.search(r"127\.0\.0\.1:(\d+)/v1", captured.out).group(1))
    assert not _listening(port)


# --------------------------------------------------------------------------- one real run
def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def demo_run(readme_copy: ReadmeCopy) -> tuple[Path, str]:
    """The Quickstart's ``gpassk-oc demo`` (default output folder) in the README's clean
    copy: the folder and what the demo printed (stdout and stderr)."""
    return (readme_copy.root / "gpassk_demo_output").resolve(), readme_copy.demo_output


@pytest.mark.e2e
def test_demo_finishes_fast_and_names_its_folder(demo_run):
    out, printed = demo_run
    # the time it prints (README: "the demo about 1-1.5" minutes on 2 cores, alone)
    seconds = int(re.search(r"^Done in (\d+) s\. ", printed, re.MULTILINE).group(1))
    assert seconds < 300, f"the demo took {seconds} s"
    assert "SIMULATION" in printed
    assert f"Everything is in {out}" in printed
    assert "lmdeploy serve api_server" in printed
    # a line per stage
    assert [f"[{i}/5]" in printed for i in range(1, 6)] == [True] * 5
    # the page is among the outputs listed at the end, with its path
    assert re.search(
        r"leaderboard page +" + re.escape(str(out / "report" / "leaderboard.html")), printed
    )


@pytest.mark.e2e
def test_the_printed_words_match_the_files(demo_run):
    """Undecided vs no_answer, the sensitivity range and the figure bands are said in the
    accounting's own terms, with the accounting's own counts (issue 25)."""
    out, printed = demo_run
    rows = _rows(out)
    undecided = sum(r["accounting"]["rule_undecided"] for r in rows)
    no_answer = sum(r["accounting"]["no_answer"] for r in rows)
    assert undecided > 0 and no_answer == 0  # the simulated "I am not sure" replies
    line = next(x for x in printed.splitlines() if x.startswith("Checking:"))
    assert f"{undecided} replies stated no answer" in line
    assert f"no_answer = {no_answer}" in line and "not a confidence interval" in line
    assert "Figure bands are 95% benchmark intervals" in line
    assert "figures (95% benchmark bands)" in printed
    leaderboard = (out / "report" / "leaderboard.md").read_text()
    assert "rule_undecided" in leaderboard and "not a confidence interval" in leaderboard
    titles = json.loads((out / "plots" / "gpass_vs_tau.json").read_text())
    assert all("95% benchmark interval" in c["title"] for c in titles)


@pytest.mark.e2e
def test_output_folder_has_everything(demo_run):
    out, _ = demo_run
    for split in problems.SPLITS:
        for lang in problems.LANGUAGES:
            assert (out / "data" / problems.VERSION / f"{split}_{lang}.jsonl").is_file()
    configs = sorted((out / "configs").glob("*.py"))
    assert len(configs) == CONFIGS
    (run_dir,) = [p for p in (out / "outputs").iterdir() if p.is_dir()]
    for config in configs:
        model, dataset = config.stem.split("@")
        result = json.loads((run_dir / "results" / model / f"{dataset}.json").read_text())
        assert result["run"]["n"] == N and result["run"]["num_questions"] == 32
    for name in ("leaderboard.md", "report.json", "report.csv", "leaderboard.html"):
        assert (out / "report" / name).stat().st_size > 0
    page = (out / "report" / "leaderboard.html").read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html") and "gpassk-demo-steady" in page
    for figure in ("gpass_vs_tau", "mg_vs_temperature", "stability_gap"):
        for ext in ("png", "svg", "json"):
            assert (out / "plots" / f"{figure}.{ext}").stat().st_size > 0
    assert (out / "opencompass.log").is_file() and (out / "grid_demo.py").is_file()


def _rows(out: Path) -> list[dict]:
    return json.loads((out / "report" / "report.json").read_text())["rows"]


@pytest.mark.e2e
def test_estimates_are_within_sampling_noise_of_the_truth(demo_run):
    out, _ = demo_run
    rows = _rows(out)
    assert json.loads((out / "report" / "report.json").read_text())["k"] == K
    assert sorted((r["base_model"], r["simulation"]["temperature"]) for r in rows) == sorted(
        itertools.product(simulation.MODELS, TEMPERATURES)
    )
    checked = 0
    for row in rows:
        # overall (32 questions): every metric; per split x language (8 questions, too
        # few for the skewed @8 estimators): accuracy only
        blocks = [(row["metrics"], row["truth"], metric_keys(K))] + [
            (s["metrics"], s["truth"], ["pass@1"]) for s in row["splits"].values()
        ]
        assert len(blocks) == 1 + 4  # overall + AMC/CCEE x en/cn
        for metrics, truth, keys in blocks:
            q = metrics["pass@1"]["n_questions"]
            for key in keys:
                est, true = metrics[key]["value"], truth[key]
                # rerun_se is the estimator's exact SE under the simulation. The estimate is
                # a mean of q skewed, bounded terms (p near 0 or 1 makes rare misses), so
                # one question's worth (100/q points) is allowed on top of 4 SE.
                tolerance = 4 * true["rerun_se"] + 100 / q
                # 4 SE is wide on the @8 metrics near p = 0.5 (the shaky model); a wrong
                # truth (threshold, weights, p mapping) is still off by more on several
                assert tolerance < 40, (row["model"], key, true)
                assert abs(est - true["value"]) <= tolerance, (row["model"], key, est, true)
                checked += 1
    assert checked == CONFIGS * (len(metric_keys(K)) + 4)


@pytest.mark.e2e
def test_no_interval_excludes_its_estimate_or_claims_zero_width(demo_run):
    """Every interval holds its estimate with a real width; a metric equal on every
    question says "no width" instead of a [v, v] interval that would exclude the truth
    (the demo has a few: the shaky model's pass@8 at T = 0.5 is 100 on every question
    of a split; test_stats and test_report_options cover the flat case too), and the
    leaderboard's legends explain "[no width]" where, and only where, a cell shows it."""
    out, _ = demo_run
    flat = 0
    for row in _rows(out):
        for block in [row["metrics"]] + [s["metrics"] for s in row["splits"].values()]:
            for key, m in block.items():
                if m is None or m["value"] is None:
                    continue
                if m["ci"] == "no width":
                    flat += 1
                    assert m["ci_low"] is None and m["ci_high"] is None, key
                else:
                    assert m["ci_low"] <= m["value"] <= m["ci_high"], (key, m)
                    assert m["ci_low"] < m["ci_high"], (key, m)
    # a flat metric may sit in a column the markdown does not show (its benchmark interval):
    # the legends explain "[no width]" exactly where a cell shows it
    leaderboard = (out / "report" / "leaderboard.md").read_text()
    shown = any("[no width]" in line for line in leaderboard.splitlines() if line[:1] == "|")
    assert shown == ("- [no width]: " in leaderboard)


@pytest.mark.e2e
def test_truth_uses_the_documented_probabilities(demo_run):
    out, _ = demo_run
    for row in _rows(out):
        sim = row["simulation"]
        lam = min(1.0, simulation.TEMPERATURE_PULL * sim["temperature"])
        for qid, _p in sim["p"].items():
            split, lang, _ = qid.split("/")
            assert split in problems.SPLITS and lang in problems.LANGUAGES
        values = sorted(set(round(p, 6) for p in sim["p"].values()))
        if sim["model"] == simulation.STEADY:
            assert values == sorted({round(0.03 + lam * 0.47, 6), round(0.97 - lam * 0.47, 6)})
        else:
            assert values == sorted({round(0.5 + 0.05 * j * (1 - lam), 6) for j in range(8)})
        # independent recomputation of one headline number from those p
        ps = [Fraction(p).limit_denominator(10**6) for p in sim["p"].values()]
        expected = float(sum(brute_truth(f"G-Pass@{K}_1.0", p) for p in ps) / len(ps))
        assert row["truth"][f"G-Pass@{K}_1.0"]["value"] == pytest.approx(100 * expected, abs=1e-3)


@pytest.mark.e2e
def test_stable_model_has_the_smaller_stability_gap(demo_run):
    out, _ = demo_run
    rows = _rows(out)
    for temperature in TEMPERATURES:
        by_model = {
            r["base_model"]: r["metrics"]
            for r in rows
            if r["simulation"]["temperature"] == temperature
        }
        gap = {m: by_model[m][f"gap@{K}"]["value"] for m in simulation.MODELS}
        assert gap[simulation.STEADY] < gap[simulation.SHAKY], temperature
        direct = {
            m: by_model[m][f"pass@{K}"]["value"] - by_model[m][f"G-Pass@{K}_1.0"]["value"]
            for m in simulation.MODELS
        }
        assert direct[simulation.STEADY] < direct[simulation.SHAKY], temperature


@pytest.mark.e2e
def test_report_says_it_is_a_simulation(demo_run):
    out, printed = demo_run
    leaderboard = (out / "report" / "leaderboard.md").read_text()
    assert "SIMULATION" in leaderboard and "truth" in leaderboard
    assert json.loads((out / "report" / "report.json").read_text())["simulation"] is True
    assert "truth" in printed
    for figure in ("gpass_vs_tau", "mg_vs_temperature", "stability_gap"):
        curves = json.loads((out / "plots" / f"{figure}.json").read_text())
        assert curves and all(c["title"].startswith("SIMULATED models") for c in curves)


@pytest.mark.e2e
def test_nothing_left_listening(demo_run):
    _, printed = demo_run
    port = int(re.search(r"127\.0\.0\.1:(\d+)/v1", printed).group(1))
    assert not _listening(port)
