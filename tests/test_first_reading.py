"""What a first-time reader of the issue-35 surfaces met, each pinned by the sentence that
was wrong (a flag the user did not give, a flag that would not help, numbers beside each
other that disagree), on synthetic work dirs (no OpenCompass run)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from scipy.special import betaln, gammaln

from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit
from tests.report_support import (  # noqa: F401
    DATASET,
    abbr,
    questions,
    report_json,
    run_cli,
    workdir,
    write_run,
)
from tests.test_audit import _add_sources, _sheet, _write
from tests.test_audit import _label as _label_samples
from tests.test_audit_classes import _add_votes, _class_sheet
from tests.test_audit_classes import _label as _label_classes

PILOT = abbr("pilot", "1-0")


def _compare(capsys, root, a: str, b: str, *argv) -> tuple[int, str, str]:
    """`compare ROOT ROOT --model-a A --model-b B ARGV…`."""
    return run_cli(capsys, "compare", root, root, "--model-a", a, "--model-b", b, *argv)


def _plan_json(capsys, root, *argv) -> tuple[dict, str]:
    code, out, err = run_cli(capsys, "plan", root, "--model", PILOT, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out), err


def _corrected_caption(markdown: str) -> str:
    """The caption under '## Corrected for verdict error'."""
    section = markdown.split("## Corrected for verdict error", 1)[1]
    return next(line for line in section.splitlines() if line.strip())


def test_maj_only_correction_names_the_flag_that_shows_its_interval(capsys, workdir, tmp_path):  # noqa: F811
    """Only maj@k corrected (a class audit alone), default --interval rerun, resamples on:
    its cells show no interval because maj@k has no rerun one; the caption said "none was
    computed (--resamples 0)", a flag the user did not give and that would not help."""
    root, _ = workdir
    _add_votes(root)
    sheet = tmp_path / "classes.csv"
    _write(sheet, _label_classes(_class_sheet(capsys, root, sheet)))
    code, out, err = run_cli(capsys, "report", root, "--audit-classes", sheet, "--resamples", "200")
    assert code == 0, err
    caption = _corrected_caption(out)
    assert "--resamples 0" not in caption
    assert "no rerun interval" in caption and "--interval benchmark" in caption
    code, out, err = run_cli(
        capsys,
        "report",
        root,
        "--audit-classes",
        sheet,
        "--resamples",
        "200",
        "--interval",
        "benchmark",
    )
    assert code == 0, err
    caption = _corrected_caption(out)
    assert "Brackets: the corrected value's benchmark interval" in caption
    assert "No interval" not in caption


def _well_fitted_pilot(root, n: int = 48) -> None:
    """A pilot whose difficulties are Beta(1, 1) draws: the fitted Beta describes it."""
    p = np.random.default_rng(11).beta(1.0, 1.0, len(questions()))
    write_run(root, PILOT, DATASET, np.random.default_rng(12).binomial(n, p), n)


def test_pilot_check_compares_at_the_pilots_own_size(capsys, tmp_path):
    """The check sets the model beside the data it was fitted to. With --questions 280
    (or --n 96) the model's half-widths were taken at the plan's size and the pilot's at
    its own, so a pilot the Beta fits well drew 'does not describe these questions'
    warnings (√(280/24) ≈ 3.4× apart); the check must not depend on what is planned."""
    _well_fitted_pilot(tmp_path)
    base, err = _plan_json(capsys, tmp_path)
    assert "pilot check" not in err
    for extra in (("--questions", "280"), ("--n", "96")):
        plan, err = _plan_json(capsys, tmp_path, *extra)
        assert "pilot check" not in err, err
        assert plan["pilot"] == base["pilot"]


def test_plan_k_errors_name_k_and_leave_out_what_k_cannot_define(capsys, tmp_path):
    """--k 1 planned nothing ("--metrics mG-Pass@1: not defined", a flag not given);
    now G-Pass@1 is planned (once: at k = 1 every τ is pass@1, and the plan says so)
    and mG-Pass@1 left out with a warning, as compare does. A --k beyond n names --k."""
    _well_fitted_pilot(tmp_path, n=16)
    plan, err = _plan_json(capsys, tmp_path, "--k", "1")
    assert plan["metrics"] == ["G-Pass@1_1.0"]
    assert plan["same_as"]["G-Pass@1_1.0"]["keys"] == ["G-Pass@1_0.5", "G-Pass@1_0.75"]
    assert "mG-Pass@1 left out: not defined at k = 1" in err
    assert any(w.startswith("mG-Pass@1 left out") for w in plan["warnings"])
    code, _, err = run_cli(capsys, "plan", tmp_path, "--model", PILOT, "--k", "99")
    assert code == 2 and err.startswith("error: --k 99:") and "--metrics" not in err
    assert len(err.strip().splitlines()) == 1


def _count_law(x: int, m: int, total: int) -> tuple[np.ndarray, np.ndarray]:
    """A stratum's error count: x plus BetaBinomial(total − m, x + ½, m − x + ½), its pmf
    written out in log-gammas (not scipy's betabinom)."""
    rest = total - m
    j = np.arange(rest + 1)
    a, b = x + 0.5, m - x + 0.5
    log = gammaln(rest + 1) - gammaln(j + 1) - gammaln(rest - j + 1)
    log += betaln(j + a, rest - j + b) - betaln(a, b)
    return x + j, np.exp(log)


def _brute_quantile(own: tuple[int, int, int], other: tuple[int, int, int], q: float) -> float:
    """The q point of K / (K + N′ − C) over every pair of error counts (K, C)."""
    k, pk = _count_law(*own)
    c, pc = _count_law(*other)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.nan_to_num(k[:, None] / (k[:, None] + other[2] - c[None, :])).ravel()
    weight = (pk[:, None] * pc[None, :]).ravel()
    order = np.argsort(rate, kind="stable")
    cumulative = np.cumsum(weight[order]) / weight.sum()
    return float(rate[order][np.searchsorted(cumulative, q - 1e-12)])


def test_audited_rate_intervals_are_the_exact_quantiles_of_their_law():
    """fp and fn intervals with errors found on both sides, on one side, on none."""
    from gpassk_oc.core.uncertainty.verdict_rates import rate_intervals

    for audit in (
        SourceAudit("judge", 300, 160, 30, 3, 25, 2),
        SourceAudit("rule", 250, 120, 20, 0, 40, 5),
        SourceAudit("rule", 180, 140, 25, 0, 25, 0),
    ):
        ones = (audit.false_correct, audit.audited_correct, audit.n_correct)
        zeros = (audit.false_wrong, audit.audited_wrong, audit.n_wrong)
        got = rate_intervals(audit, 0.9)
        for (low, high), own, other in zip(got, (ones, zeros), (zeros, ones)):
            assert low == pytest.approx(_brute_quantile(own, other, 0.05), abs=1e-9)
            assert high == pytest.approx(_brute_quantile(own, other, 0.95), abs=1e-9)


def test_an_error_free_audit_prints_one_bound_not_two(capsys, workdir, tmp_path):  # noqa: F811
    """The corrected table named each audited rate's interval from 100 draws and, beside
    it, the exact bound an error-free side cannot rule out: two different numbers for the
    same 97.5% point (on the demo: 'fp 0.00% [0.00, 16.58]' and 'fp up to 14.89%')."""
    root, _ = workdir
    _add_sources(root)
    sheet = tmp_path / "sheet.csv"
    _label_samples(sheet, _sheet(capsys, root, 120, sheet))  # no errors anywhere
    data, _ = report_json(capsys, root, "--audit", sheet)
    block = data[0]["corrected"]
    assert block["no_errors_found"]
    for found in block["no_errors_found"]:
        span = block["rates"][found["source"]][f"{found['rate']}_interval"]
        assert span[0] == 0.0 and span[1] == found["upper_bound"]
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet)
    assert code == 0, err
    found = block["no_errors_found"][0]
    assert f"{found['rate']} 0.00% [0.00, {100 * found['upper_bound']:.2f}]" in out
    assert f"up to {100 * found['upper_bound']:.2f}%" in out


def test_stated_rates_for_a_source_no_sample_came_from_say_so(capsys, workdir):  # noqa: F811
    """`--verdict-error ...,by=cache` on runs checked by rule and judge only: every
    corrected value equalled its raw one beside "cache: fp 1.00%, fn 2.00%", silently."""
    root, _ = workdir
    _add_sources(root)
    rates = "fp=0.01,fn=0.02,by="
    code, out, err = run_cli(capsys, "report", root, "--verdict-error", rates + "cache")
    assert code == 0, err
    line = "--verdict-error by=cache: no sample of the rows reported came from 'cache'"
    assert line in err and line in out.split("## Notes", 1)[1]
    code, out, err = run_cli(capsys, "report", root, "--verdict-error", rates + "judge")
    assert code == 0 and "no sample of the rows reported" not in err + out
    extra = ("--verdict-error", rates + "cache", "--resamples", "0")
    code, out, err = _compare(capsys, root, "qwen-7b_t0-7", "llama-8b_t0-7", *extra)
    assert code == 0 and line in err


def _legend(markdown: str) -> str:
    return markdown.split("\n## ", 1)[0]


def test_the_legend_lists_only_the_marks_a_cell_shows(capsys, tmp_path):
    """A model right in every sample: every cell reads `[no width]`; the legend explained
    `*`, `!` (with its n < 2k reason at n = 48 ≥ 2k), `[n<2k]` as well, which no cell
    showed. Under --no-ci no interval is shown, and none is explained."""
    q = len(questions())
    write_run(tmp_path, abbr("perfect", "1-0"), DATASET, [48] * q, 48)
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "0")
    assert code == 0, err
    assert "| 100.0 [no width] |" in out
    legend = _legend(out)
    assert "- [no width]: no interval is given" in legend
    for absent in ("`*` = ", "`!` = ", "[n<2k]: ", "n < 2k for a metric"):
        assert absent not in legend, absent
    code, out, err = run_cli(capsys, "report", tmp_path, "--no-ci")
    assert code == 0, err
    assert "[rerun" not in _legend(out) and "[no width]" not in out


def test_the_n_below_2k_reason_only_beside_rows_below_2k(capsys, tmp_path):
    """Three varying questions among 24 mark '!' at n = 48 (fewer than 4 vary); the
    reason 'n < 2k' does not apply there and is left out; at --k 16 of n = 24 it is listed."""
    counts = [48] * 21 + [20, 25, 30]
    write_run(tmp_path, abbr("few", "1-0"), DATASET, counts, 48)
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "0", "--k", "16")
    assert code == 0, err
    legend = _legend(out)
    assert "]!" in out and "`!` = unreliable" in legend
    assert "fewer than 4 of the table's questions vary" in legend
    assert "n < 2k for a metric" not in legend
    short = tmp_path / "short"
    write_run(short, abbr("few", "1-0"), DATASET, [24] * 21 + [10, 12, 14], 24)
    code, out, err = run_cli(capsys, "report", short, "--resamples", "0", "--k", "16")
    assert code == 0, err
    assert "]!" in out and "n < 2k for a metric" in _legend(out)


def _marks(markdown: str) -> tuple[set[str], set[str]]:
    """(marks the table cells show, marks the legend explains) of a compare's markdown."""
    legend, tables = markdown.split("\n## ", 1)
    cells = {m for m in ("*", "+", "!") if f"]{m} |" in tables}
    cells |= {"no width"} if "| no width |" in tables else set()
    explained = {m for m in ("*", "+", "!") if f"- `{m}` = " in legend}
    explained |= {"no width"} if "- no width: " in legend else set()
    return cells, explained


def test_compare_legend_explains_the_marks_its_cells_show(capsys, tmp_path):
    """A model right in every sample against one never right: cells read `no width`
    (unexplained before) and no `*` (explained before); a pair of ordinary runs: `*` only."""
    q = len(questions())
    write_run(tmp_path, abbr("perfect", "1-0"), DATASET, [48] * q, 48)
    write_run(tmp_path, abbr("hopeless", "1-0"), DATASET, [0] * q, 48)
    rng = np.random.default_rng(5)
    for name in ("left", "right"):
        write_run(tmp_path, abbr(name, "1-0"), DATASET, rng.binomial(48, rng.beta(1, 1, q)), 48)
    for a, b in (("perfect", "hopeless"), ("left", "right")):
        code, out, err = _compare(capsys, tmp_path, a, b, "--resamples", "300")
        assert code == 0, err
        cells, explained = _marks(out)
        assert cells == explained, (a, b, cells, explained)
        assert "n < 2k for a metric" not in out  # n = 48 ≥ 2k = 32


def test_audit_warns_when_its_sheet_is_too_small_to_be_read_back(capsys, workdir, tmp_path):  # noqa: F811
    """`audit --size 30` over two sources wrote about 15 lines each, silently; labelled
    in full, the sheet was then refused by `report --audit` (20 per source needed)."""
    root, _ = workdir
    _add_sources(root)
    sheet = tmp_path / "small.csv"
    code, _, err = run_cli(capsys, "audit", root, "--size", "30", "-o", sheet)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8-sig"))))
    for source in ("judge", "rule"):
        n = sum(r["source"] == source for r in rows)
        assert (
            n < 20 and f"source {source!r} has {n} lines; report --audit needs at least 20" in err
        )
    _label_samples(sheet, rows)
    code, _, err = run_cli(capsys, "report", root, "--audit", sheet)
    assert code == 2 and "need at least 20" in err  # the warning was true
    code, _, err = run_cli(capsys, "audit", root, "--size", "80", "-o", tmp_path / "ok.csv")
    assert code == 0 and "needs at least" not in err


def test_demo_leaderboard_legend_lists_only_the_marks_its_cells_show(tmp_path):
    """The demo's leaderboard (docs/generated/demo-leaderboard.md) listed `[no width]` and
    the "n < 2k" reason for `!` at n = 2k, where no cell shows either."""
    from gpassk_oc.demo.leaderboard import shown_metrics, truth_markdown
    from gpassk_oc.report import build_report

    q = len(questions())
    rng = np.random.default_rng(3)
    counts = [48] * (q - 3) + [20, 25, 30]  # '!' at k = 16 (3 varying questions)
    write_run(tmp_path / "few", abbr("few", "1-0"), DATASET, counts, 48)
    many = rng.binomial(48, rng.beta(1, 1, q))
    write_run(tmp_path / "many", abbr("many", "1-0"), DATASET, many, 48)
    for name, marks in (("few", {"!"}), ("many", {"*"})):
        report = build_report([tmp_path / name], 16, n_boot=0)
        row = report.rows[0]
        entry = {
            "model": row.label,
            "dataset": row.dataset_abbr,
            "setting": {},
            "base_model": name,
            "n": 48,
            "num_questions": q,
            "truth": {m: {"value": 0.5} for m in shown_metrics(16)},
        }
        table, legend = truth_markdown(report, [entry]).split("\n\n", 1)
        assert ("]!" in table) == ("!" in marks) == ("`!` = unreliable" in legend)
        assert "[no width]" not in table + legend and "n < 2k for a metric" not in legend


def test_demo_summary_counts_the_intervals_that_hold_the_truth(tmp_path):
    """The demo's terminal summary printed `*` and `!` with no word on them, and claimed
    "Estimates match the truth up to sampling noise" whatever the numbers were; it now
    counts the rerun intervals that hold the truth and names the marks shown."""
    from gpassk_oc.demo.leaderboard import shown_metrics, truth_text
    from gpassk_oc.report import build_report

    q = len(questions())
    write_run(tmp_path, abbr("few", "1-0"), DATASET, [48] * (q - 3) + [20, 25, 30], 48)
    report = build_report([tmp_path], 16, n_boot=0)
    row = report.rows[0]
    cell = report.cells[(row.label, row.dataset_abbr, "overall")]
    metrics = shown_metrics(16) + ["pass@1"]
    given = [m for m in metrics if cell.metrics[m].rerun_low == cell.metrics[m].rerun_low]

    def summary(truth: dict[str, float]) -> str:
        entry = {"model": row.label, "dataset": row.dataset_abbr, "setting": {}}
        entry |= {"base_model": "few", "n": 48, "num_questions": q}
        entry["truth"] = {m: {"value": truth[m]} for m in metrics}
        return truth_text(report, [entry]).splitlines()[-1]

    inside = summary({m: 100 * cell.metrics[m].value for m in metrics})
    assert inside.startswith(f"{len(given)} of {len(given)} rerun intervals hold the truth.")
    assert "! = unreliable" in inside and "* = approximate" not in inside
    outside = summary({m: 100 * cell.metrics[m].value - 30 for m in metrics})
    assert outside.startswith(f"0 of {len(given)} rerun intervals hold the truth.")


def test_compare_reads_the_audit_sheet_of_the_work_dir(capsys, workdir, tmp_path):  # noqa: F811
    """`audit WORKDIR`, labelled, then `compare WORKDIR WORKDIR --audit SHEET` was refused
    ("sample_id … is not a sample of the runs reported": the sheet holds every run's
    samples). The rates are now counted over the runs `report` reads there, so both take
    the same correction from one sheet."""
    root, _ = workdir
    _add_sources(root)
    sheet = tmp_path / "sheet.csv"
    _label_samples(sheet, _sheet(capsys, root, 120, sheet), flip=2)
    a, b = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")
    extra = ("--audit", sheet, "--resamples", "0", "--format", "json")
    code, out, err = _compare(capsys, root, a, b, *extra)
    assert code == 0, err
    fixed = json.loads(out)["corrected"]
    rows, _ = report_json(capsys, root, "--audit", sheet)
    by_model = {r["model"]: r["corrected"]["metrics"] for r in rows}
    for side, model in (("A", a), ("B", b)):
        for key, got in fixed[side].items():
            assert got["value"] == by_model[model][key]["value"], (side, key)


def test_plan_power_without_difference_is_checked_and_said_to_be_unused(capsys, tmp_path):
    """`plan --power 1.5` (no --difference) printed a plan, exit 0: the flag was read
    only with --difference and otherwise dropped in silence, even out of range."""
    _well_fitted_pilot(tmp_path, n=16)
    code, _, err = run_cli(capsys, "plan", tmp_path, "--model", PILOT, "--power", "1.5")
    assert code == 2 and err == "error: --power 1.5: need a probability in (0, 1)\n"
    plan, err = _plan_json(capsys, tmp_path, "--power", "0.9")
    assert "--power 0.9: used only with --difference; ignored" in plan["warnings"]
    plan, err = _plan_json(capsys, tmp_path, "--power", "0.9", "--difference", "5")
    assert plan["power"] == 0.9 and not any("--power" in w for w in plan["warnings"])


def test_compare_prints_an_exact_zero_difference_as_zero(capsys, tmp_path):
    """Two runs equal on G-Pass@16_1.0 (every question right in all or none of its
    samples, the same in both) but not on pass@1: A − B read `+0.0`, which the legend
    says means "just above 0"; exactly 0 is `0.0`."""
    q = len(questions())
    base = np.array([48, 0] * (q // 2))
    write_run(tmp_path, abbr("left", "1-0"), DATASET, base, 48)
    write_run(tmp_path, abbr("right", "1-0"), DATASET, np.where(base == 0, 1, 48), 48)
    code, out, err = _compare(capsys, tmp_path, "left", "right", "--resamples", "0")
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("| G-Pass@16_1.0 |"))
    assert row.split(" | ")[3] == "0.0", row


def test_compare_names_the_rates_its_corrected_values_rest_on(capsys, tmp_path):
    """`compare --verdict-error` / `--audit` printed corrected values without the rates
    behind them (the report's table names them, with an audit's intervals)."""
    rng = np.random.default_rng(8)
    q = len(questions())
    for name in ("left", "right"):
        write_run(tmp_path, abbr(name, "1-0"), DATASET, rng.binomial(48, rng.beta(1, 1, q)), 48)
    extra = ("--verdict-error", "fp=0.01,fn=0.02", "--resamples", "0")
    code, out, err = _compare(capsys, tmp_path, "left", "right", *extra)
    assert code == 0, err
    section = out.split("## Corrected for verdict error", 1)[1]
    assert "Rates: stated; every source: fp 1.00%, fn 2.00%; taken as exact." in section
    code, out, err = _compare(capsys, tmp_path, "left", "right", *extra, "--format", "json")
    assert json.loads(out)["corrected"]["rates"]["*"] == {
        "fp": 0.01,
        "fn": 0.02,
        "fp_interval": None,
        "fn_interval": None,
    }
