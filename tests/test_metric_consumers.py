"""Every consumer handles every registered metric: the report's markdown, CSV, JSON, page,
any-k table and figures show exactly the metrics whose definition asks for that surface,
with values from k-subset enumeration; compare and the planner compute every counts
metric and refuse a vote metric in one line. The registry is enumerated, so a new metric
is checked here without editing this file (its oracle lives in test_metric_registry)."""

from __future__ import annotations

import csv
import io
import json
import random
from fractions import Fraction

import pytest
from oracles import brute_maj
from report_support import abbr, run_cli
from test_metric_registry import brute
from test_report_anyk import DATASET, N, labels_for, write_run

from gpassk_oc.core.metrics.registry import METRICS, MetricDef, MetricSpec

K = 4
KS = "2,4"
TAUS = (Fraction(1, 2), Fraction(1))
A, B = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")


@pytest.fixture(scope="module")
def voted(tmp_path_factory):
    """Two models, 10 questions of N = 8 samples each, with vote classes."""
    root = tmp_path_factory.mktemp("registry_consumers")
    rng = random.Random(26)
    runs = {A: labels_for(rng, 10), B: labels_for(rng, 10)}
    for model, labels in runs.items():
        write_run(root, model, labels)
    return root, runs


def oracle(spec: MetricSpec, labels) -> float:
    """The mean over questions, in percent, by enumeration (votes for a vote metric)."""
    d = spec.definition
    if d.needs_votes:
        values = [brute_maj(row, spec.k) for row in labels]
    else:
        k = 1 if d.sample_mean else spec.k
        values = [brute(d.name, N, row.count(0), k, spec.tau) for row in labels]
    return float(100 * sum(values, Fraction(0)) / len(values))


def specs(d: MetricDef, k: int, taus=TAUS) -> list[MetricSpec]:
    return [d.spec(k, t) for t in taus] if d.has_tau else [d.spec(k)]


def report_specs_of(d: MetricDef) -> list[MetricSpec]:
    """What the report computes per cell for *d* (its flags say which)."""
    from gpassk_oc.core.metrics.metric_keys import ALL_TAUS

    if not d.in_report:
        return []
    return specs(d, K, ALL_TAUS) + [d.spec(extra) for extra in d.report_ks]


@pytest.fixture(scope="module")
def outputs(voted, tmp_path_factory):
    """One report per format (the same settings), and the figures."""
    root, _ = voted
    plots = tmp_path_factory.mktemp("registry_plots")
    got = {}
    for fmt in ("markdown", "csv", "json", "html"):
        capsys = _Capture()
        argv = ["report", root, "--k", KS, "--tau", "0.5,1.0", "--resamples", "200"]
        argv += ["--format", fmt] + (["--plots", plots] if fmt == "markdown" else [])
        code, out, err = capsys.run(argv)
        assert code == 0, err
        got[fmt] = out
    return got, plots


class _Capture:
    """run_cli needs pytest's capsys; module fixtures cannot take it, so read the CLI's
    output through a redirected stdout instead."""

    def run(self, argv):
        import contextlib
        import sys

        from gpassk_oc.cli import main
        from gpassk_oc.log import use_cli_format

        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                use_cli_format(err)
                code = main([str(a) for a in argv])
        finally:
            use_cli_format(sys.__stderr__)
        return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("d", METRICS, ids=lambda d: d.name)
def test_json_and_csv_hold_the_report_metrics_with_exact_values(d, voted, outputs):
    _, runs = voted
    got, _ = outputs
    rows = {r["model"]: r for r in json.loads(got["json"]) if not r["greedy"]}
    table = list(csv.DictReader(io.StringIO(got["csv"])))
    lines = {r["model"]: r for r in table if r["subset"] == "overall"}
    for model, labels in runs.items():
        cells = rows[model]["metrics"]
        for spec in report_specs_of(d):
            want = oracle(spec, labels)
            assert cells[spec.key]["value"] == pytest.approx(want, abs=5e-5), spec.key
            assert float(lines[model][spec.key]) == pytest.approx(want, abs=5e-3), spec.key
            # n = 8 = 2k: the unbiased variance, combined with the fitted one (posterior;
            # wide where the Beta sets the width, unreliable where fewer than 4 vary)
            rerun = cells[spec.key]["rerun"]["status"]
            allowed = (
                ("ok", "posterior", "wide", "unreliable", "no width")
                if d.rerun_variance
                else ("off",)
            )
            assert rerun in allowed, spec.key
        if not d.in_report:
            assert not any(s.key in cells for s in specs(d, K))
        sweep = rows[model]["k_sweep"]["metrics"]
        for k in (2, 4):
            for spec in specs(d, k):
                shown = sweep[str(k)].get(spec.key)
                assert (shown is not None) == (d.any_k is not None), spec.key
                if shown is not None:
                    assert shown["value"] == pytest.approx(oracle(spec, labels), abs=5e-5)
                    assert (shown["sampling_se"] is None) == (not d.rerun_variance)
                    assert spec.key in lines[model]  # the CSV adds the sweep's columns


@pytest.mark.parametrize("d", METRICS, ids=lambda d: d.name)
def test_markdown_page_and_any_k_table(d, outputs):
    got, _ = outputs
    md, page = got["markdown"], got["html"]
    anyk = md[md.index(f"## Any k — {DATASET}") :].split("\n## ")[0]
    for spec in specs(d, K, (Fraction(1, 2), Fraction(3, 4), Fraction(1))):
        assert (f"| {spec.key} " in md) == d.headline, spec.key  # the paper's columns
        assert (f'"{spec.key}"' in page) == d.headline, spec.key
    for spec in specs(d, K):
        column = d.column(spec.tau)
        assert (f"| {column}" in anyk) == (d.any_k is not None), column
        assert (f"<th>{column}" in page) == (d.any_k is not None), column


@pytest.mark.parametrize("d", METRICS, ids=lambda d: d.name)
def test_figures_draw_the_metrics_that_ask_for_a_curve(d, outputs):
    _, plots = outputs
    curves = json.loads((plots / "metrics_vs_k.json").read_text())
    drawn = {c["metric"] for c in curves}
    for spec in specs(d, K):
        assert (d.column(spec.tau) in drawn) == d.k_curve, spec.key


@pytest.mark.parametrize("d", METRICS, ids=lambda d: d.name)
def test_compare_computes_counts_metrics_and_refuses_votes(d, voted, capsys):
    root, runs = voted
    for spec in specs(d, K):
        argv = ["compare", root, root, "--model-a", A, "--model-b", B, "--metrics", spec.key]
        code, out, err = run_cli(capsys, *argv, "--format", "json", "--resamples", "200")
        if d.needs_votes:
            assert code == 2 and out == "" and err.count("\n") == 1 and spec.key in err
            continue
        assert code == 0, err
        diff = json.loads(out)["metrics"][spec.key]
        a, b = oracle(spec, runs[A]), oracle(spec, runs[B])
        assert diff["a"] == pytest.approx(a, abs=5e-5) and diff["b"] == pytest.approx(b, abs=5e-5)
        assert diff["rerun"]["status"] in ("ok", "posterior", "wide", "unreliable", "no width")


@pytest.mark.parametrize("d", METRICS, ids=lambda d: d.name)
def test_planner_models_counts_metrics_and_refuses_votes(d, capsys):
    """Under p ~ Beta(1, 1) the mean of any counts metric is the average of its values on
    k draws over i = 0..k correct (each i has probability 1/(k+1))."""
    for spec in specs(d, K):
        argv = ["plan", "--beta", "1,1", "--questions", "50", "--n", "8", "--metrics", spec.key]
        code, out, err = run_cli(capsys, *argv, "--format", "json")
        if d.needs_votes:
            assert code == 2 and out == "" and err.count("\n") == 1 and spec.key in err
            continue
        assert code == 0, err
        k = spec.estimator.k
        kernel = [brute(d.name, k, i, k, spec.tau) for i in range(k + 1)]
        mean = float(sum(kernel, Fraction(0)) / (k + 1))
        assert json.loads(out)["split"][spec.key]["mean"] == pytest.approx(mean, abs=1e-9)


class _ParseRecorder:
    """Stands in for the registry's key pattern and records who asked to parse a key: the
    first package frame outside the registry."""

    def __init__(self, real):
        self.real, self.callers = real, set()

    def match(self, text):
        import inspect

        for frame in inspect.stack()[1:]:
            path = frame.filename.replace("\\", "/")
            if "/gpassk_oc/" in path and not path.endswith("core/metrics/registry.py"):
                self.callers.add(path.split("/gpassk_oc/")[-1])
                break
        return self.real.match(text)


#: where the report, compare and plan may turn text into specs: the results file (and its
#: summary) and the --metrics flags
EDGES = {
    "core/runs/results_file.py",
    "core/runs/results_summary.py",
    "report/commands/compare_command.py",
    "report/commands/plan_command.py",
}


def test_keys_are_parsed_only_at_the_edges(voted, monkeypatch, capsys, tmp_path):
    """At run time, not only in the source: every parse of a key during a report, a
    compare and a plan comes from the file or CLI edge; the layers between pass specs."""
    from gpassk_oc.core.metrics import registry

    root, _ = voted
    recorder = _ParseRecorder(registry._KEY_RE)
    monkeypatch.setattr(registry, "_KEY_RE", recorder)
    # uncached: a parse answered from the cache would never reach the recorder
    monkeypatch.setattr(registry, "_parse_key", registry._parse_key.__wrapped__)
    runs = [
        ["report", root, "--k", KS, "--format", "json", "--plots", tmp_path / "p"],
        ["report", root, "--format", "csv", "--resamples", "50"],
        ["compare", root, root, "--model-a", A, "--model-b", B, "--resamples", "50"],
        ["plan", "--beta", "1,1", "--questions", "50", "--n", "8", "--metrics", "gap@4"],
    ]
    for argv in runs:
        code, _, err = run_cli(capsys, *argv)
        assert code == 0, err
    assert recorder.callers and recorder.callers <= EDGES, recorder.callers
