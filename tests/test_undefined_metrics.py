"""A metric that does not exist at a k is never printed as a number (issue 35, item 5).

mG-Pass@k = (2/k)·Σ_{i=⌈k/2⌉+1}^{k} G-Pass@k_{i/k}: at k = 1 the sum runs from i = 2 to 1,
so before this change every model's mG-Pass@1 read 0.0 — also a model that is always
right. Every output now shows "—" (JSON null) with the reason, and ``--metrics`` refuses
it with one line, exit 2. The expected definedness is derived here from the sum's bounds,
not read from the registry.
"""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from report_support import DATASET, abbr, questions, run_cli, write_run

from gpassk_oc.core.metrics.registry import METRICS, MG_PASS

MODEL = abbr("always-right", "1-0")
OTHER = abbr("sometimes-right", "1-0")
N = 8


def _documented_sum_is_empty(k: int) -> bool:
    return math.ceil(k / 2) + 1 > k


@pytest.fixture()
def perfect(tmp_path):
    """One model that answers every sample of every question correctly, one half of them."""
    write_run(tmp_path, MODEL, DATASET, [N] * len(questions()), N)
    write_run(tmp_path, OTHER, DATASET, [N // 2] * len(questions()), N)
    return tmp_path


def test_registry_says_where_mg_pass_does_not_exist():
    for k in range(1, 17):
        spec = MG_PASS.spec(k)
        assert (spec.undefined is not None) == _documented_sum_is_empty(k), k
        assert (spec.per_c(16) is None) == _documented_sum_is_empty(k)
    assert "k = 1" in MG_PASS.spec(1).undefined
    # no other metric is declared undefined at any k it can be computed at
    for d in METRICS:
        if d is not MG_PASS:
            assert all(d.undefined_at(k) is None for k in range(1, 17)), d.name


def test_report_shows_a_dash_with_the_reason_in_every_format(capsys, perfect):
    code, md, err = run_cli(capsys, "report", perfect, "--k", "1,2", "--resamples", "50")
    assert code == 0, err
    k1 = next(
        line
        for line in md.splitlines()
        if line.startswith(f"| {MODEL.split('_')[0]}") and "| 1 |" in line
    )
    cells = [c.strip() for c in k1.strip("|").split("|")]
    header = next(line for line in md.splitlines() if "| k |" in line)
    names = [c.strip() for c in header.strip("|").split("|")]
    mg = cells[next(i for i, name in enumerate(names) if name.startswith("mG-Pass@k"))]
    assert mg == "—"  # was "0.0 [no width]" for a model that is always right
    assert "mG-Pass@1 shows —: not defined at k = 1" in md
    assert "mG-Pass@1: — (no such metric at that k" in md  # the any-k caption points there
    assert "mG-Pass@1 shows —" in err  # the note reaches the terminal too

    code, out, err = run_cli(
        capsys, "report", perfect, "--k", "1,2", "--resamples", "50", "--format", "json"
    )
    assert code == 0, err
    row = json.loads(out)[0]
    entry = row["k_sweep"]["metrics"]["1"]["mG-Pass@1"]
    assert entry["value"] is None and "k = 1" in entry["undefined"]
    assert row["k_sweep"]["metrics"]["2"]["mG-Pass@2"]["value"] == 100.0
    assert "undefined" not in row["k_sweep"]["metrics"]["2"]["mG-Pass@2"]

    code, out, err = run_cli(
        capsys, "report", perfect, "--k", "1,2", "--resamples", "50", "--format", "csv"
    )
    assert code == 0, err
    line = next(csv.DictReader(io.StringIO(out)))
    assert line["mG-Pass@1"] == "" and line["mG-Pass@1 rerun_status"] == "undefined"
    assert line["mG-Pass@2"] == "100.0"


def test_report_at_k_1_ranks_and_sorts_by_a_metric_that_exists(capsys, perfect):
    code, md, err = run_cli(capsys, "report", perfect, "--k", "1", "--resamples", "50")
    assert code == 0, err
    assert "Rows sorted by G-Pass@1_1.0" in md
    ranks = md.split("## Ranks")[1].split("##")[0]
    body = [line for line in ranks.splitlines() if line.startswith("| ") and "Model" not in line]
    assert [line.split("|")[1].strip() for line in body] == ["always-right", "sometimes-right"]
    assert all(line.rstrip(" |").endswith("—") for line in body)  # the mG-Pass@1 column


@pytest.mark.parametrize("command", ["compare", "plan"])
def test_metrics_flag_refuses_it_in_one_line(capsys, perfect, command):
    pick = ["--model", MODEL]
    if command == "compare":
        pick = [perfect, "--model-a", MODEL, "--model-b", OTHER]
    code, out, err = run_cli(capsys, command, perfect, *pick, "--metrics", "mG-Pass@1")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: --metrics mG-Pass@1: not defined at k = 1"
    )


def test_compare_at_k_1_leaves_it_out_saying_why(capsys, perfect):
    code, out, err = run_cli(
        capsys,
        "compare",
        perfect,
        perfect,
        "--model-a",
        MODEL,
        "--model-b",
        OTHER,
        "--k",
        "1",
        "--resamples",
        "50",
    )
    assert code == 0, err
    assert "mG-Pass@1 left out: not defined at k = 1" in err
    assert "| mG-Pass@1 |" not in out and "| pass@1 |" in out


def test_results_files_hold_no_key_for_a_metric_that_does_not_exist():
    """The evaluator's numbers (what OpenCompass's summary prints) leave mG-Pass@1 out
    rather than writing 0; mG-Pass@2 is there, and equals its documented sum by hand."""
    from gpassk_oc.core.metrics.question_scorer import metric_means

    n, cs = 4, [4, 2, 0]
    out = metric_means(n, [n] * len(cs), cs, [1, 2], [0.5, 0.75, 1.0], "documented")
    assert not any(key.startswith("mG-Pass@1") for key in out)
    # k = 2: the sum has one term, i = 2: (2/2)·G-Pass@2_1.0; G-Pass@2_1.0 of c of 4 is
    # C(c, 2)/C(4, 2) — 1, 1/6, 0 for these questions
    assert out["mG-Pass@2"] == pytest.approx(100 * (1 + 1 / 6 + 0) / 3)
    assert "G-Pass@1_1.0" in out and "pass@1" in out
