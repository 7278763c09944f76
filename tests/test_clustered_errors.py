"""Clustered verdict errors (issue 35, item 2): the report flags every value corrected with
sample-level rates (they assume each sample errs on its own), and the bench's simulation
draws errors by answer form at the sample-level rates it names."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tests.report_support import report_json, run_cli, workdir  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_verdict_clusters as bench  # noqa: E402


def test_markdown_flags_sample_level_corrections(capsys, workdir):  # noqa: F811
    root, _ = workdir
    code, out, err = run_cli(
        capsys, "report", root, "--verdict-error", "fp=0.01,fn=0.05", "--resamples", "200"
    )
    assert code == 0, err
    section = out.split("## Corrected for verdict error")[1]
    header = next(line for line in section.splitlines() if line.startswith("| Model"))
    corrected = [c.strip() for c in header.split("|") if c.strip().endswith("corrected†")]
    raw = [c.strip() for c in header.split("|") if c.strip().endswith(" raw")]
    assert corrected and len(corrected) == len(raw)  # every corrected column, no raw one
    assert "† assumes independent errors" in section
    assert "docs/verdict-error-and-ranks.md, 'Clustered errors'" in section


def test_json_names_the_error_model(capsys, workdir):  # noqa: F811
    root, _ = workdir
    rows, _ = report_json(capsys, root, "--verdict-error", "fp=0.01,fn=0.05")
    for row in rows:
        models = {m["errors"] for m in row["corrected"]["metrics"].values()}
        assert models == {"independent"}


def test_simulated_forms_give_the_named_sample_rates() -> None:
    """Over many questions the share of truly correct samples graded wrong is fn and of
    wrong samples graded correct fp (each form errs in all its samples)."""
    rng = np.random.default_rng(0)
    run = bench.simulate(rng, 20000, 16, 0.03, 0.12)
    t, c, kept = run["t"], run["c"], run["kept"]
    fn = (t - kept).sum() / t.sum()
    fp = (c - kept).sum() / (16 - t).sum()
    assert abs(fn - 0.12) < 0.006 and abs(fp - 0.03) < 0.003


def test_simulated_classes_add_up_to_the_graded_counts() -> None:
    rng = np.random.default_rng(1)
    run = bench.simulate(rng, 300, 16, 0.03, 0.12)
    for (classes, abstain), c in zip(run["classes"], run["c"]):
        assert sum(s for s, _, _ in classes) + abstain == 16
        assert sum(s for s, graded, _ in classes if graded) == c
        assert sum(graded for _, graded, _ in classes) <= 1  # one graded-correct class


def test_sample_level_correction_misses_under_clusters_but_raw_misses_more() -> None:
    """At fp 3%, fn 12% the raw G-Pass@4_1.0 is several points low; the sample-level
    correction removes most of that bias, which the docs' table then measures exactly."""
    res = bench.cell(6, seed=4, q=280, n=16, fp=0.03, fn=0.12)
    raw = res["raw"]["G-Pass@4_1.0"][0]
    assert raw < -4
    assert abs(res["sample, stated"]["G-Pass@4_1.0"][0]) < abs(raw) / 2
