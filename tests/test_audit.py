"""``gpassk-oc audit`` and the report's ``--audit`` / ``--verdict-error`` and rank columns,
end to end on a synthetic work dir (no OpenCompass run)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from gpassk_oc.ownership import STAMP_PREFIX
from tests.report_support import abbr, report_json, run_cli, workdir  # noqa: F401

SOURCES = ("rule", "judge")


def _add_sources(root: Path) -> None:
    """Give every sample of every results file a source: odd samples the judge's."""
    for path in root.rglob("results/*/*.json"):
        data = json.loads(path.read_text())
        for row in data.get("details", []):
            row["source"] = [SOURCES[i % 2] for i in range(len(row["correct"]))]
        path.write_text(json.dumps(data))


def _sheet(capsys, root: Path, size: int, out: Path, seed: int = 0) -> list[dict]:
    code, _, err = run_cli(capsys, "audit", root, "--size", size, "--seed", seed, "-o", out)
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))


def _label(path: Path, rows: list[dict], flip: int = 0) -> None:
    """Label each line with its verdict (flipping the first *flip* lines of each stratum)."""
    seen: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (row["source"], row["verdict"])
        seen[key] = seen.get(key, 0) + 1
        truly = row["verdict"] == "correct"
        row["label"] = (
            ("no" if truly else "yes") if seen[key] <= flip else ("yes" if truly else "no")
        )
    _write(path, rows)


def _write(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buf.getvalue())


def test_audit_sheet_is_stratified_and_reproducible(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _add_sources(root)
    rows = _sheet(capsys, root, 200, tmp_path / "a.csv")
    assert len(rows) == 200 and len({r["sample_id"] for r in rows}) == 200
    strata = {(r["source"], r["verdict"]) for r in rows}
    assert strata == {(s, v) for s in SOURCES for v in ("correct", "wrong")}
    counts = [sum((r["source"], r["verdict"]) == s for r in rows) for s in strata]
    assert max(counts) - min(counts) <= 1  # even split: every stratum is large enough
    assert all(r["label"] == "" and r["gold"] == "1" and r["question"] for r in rows)
    again = _sheet(capsys, root, 200, tmp_path / "b.csv")
    assert [r["sample_id"] for r in again] == [r["sample_id"] for r in rows]


def test_audit_sheet_shows_the_reply_end(capsys, workdir, tmp_path):  # noqa: F811
    """Replica r of question q is prediction r·Q + q (OpenCompass's repeated dataset)."""
    root, _ = workdir
    results = next(root.rglob("results/*/LiveMathBench-v202412-k4_8_16-r3.json"))
    data = json.loads(results.read_text())
    for position, row in enumerate(data["details"]):
        row["index"] = position  # as the evaluator writes it: the dataset row
    results.write_text(json.dumps(data))
    q_count = len(data["details"])
    preds = {
        str(r * q_count + row["index"]): {"prediction": f"... so the answer is R{r}Q{row['index']}"}
        for row in data["details"]
        for r in range(len(row["correct"]))
    }
    folder = results.parents[2] / "predictions" / results.parent.name
    folder.mkdir(parents=True)
    (folder / results.name).write_text(json.dumps(preds))
    rows = _sheet(capsys, root, 400, tmp_path / "a.csv")
    mine = [r for r in rows if r["model"] == results.parent.name and r["dataset"] == results.stem]
    assert mine and all(
        r["reply_end"].endswith(f"R{r['replica']}Q{r['question_index']}") for r in mine
    )


def test_audit_never_overwrites_a_foreign_file(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    foreign = tmp_path / "mine.csv"
    foreign.write_text("my notes\n")
    code, _, err = run_cli(capsys, "audit", root, "--size", 10, "-o", foreign)
    assert code == 2 and "not written by gpassk-oc" in err and len(err.strip().splitlines()) == 1
    assert foreign.read_text() == "my notes\n"
    assert STAMP_PREFIX not in foreign.read_text()


def test_zero_stated_error_leaves_every_value_exact(capsys, workdir):  # noqa: F811
    root, _ = workdir
    plain, _ = report_json(capsys, root)
    rows, _ = report_json(capsys, root, "--verdict-error", "fp=0,fn=0")
    assert all("corrected" not in r for r in plain)
    for before, after in zip(plain, rows):
        assert before["metrics"] == after["metrics"]  # raw values never change
        for key, value in after["corrected"]["metrics"].items():
            assert value["value"] == before["metrics"][key]["value"]


def test_audited_rates_correct_upwards_where_verdicts_reject(capsys, workdir, tmp_path):  # noqa: F811
    """Audit lines that say some 'wrong' verdicts were truly correct (fn > 0) raise the
    corrected G-Pass@16_1.0 above the raw value; the markdown labels both."""
    root, _ = workdir
    _add_sources(root)
    sheet = tmp_path / "sheet.csv"
    rows = _sheet(capsys, root, 240, sheet)
    _label(sheet, rows, flip=6)
    data, _ = report_json(capsys, root, "--audit", sheet)
    for row in data:
        corrected = row["corrected"]["metrics"]["G-Pass@16_1.0"]
        assert corrected["value"] > row["metrics"]["G-Pass@16_1.0"]["value"]
        assert corrected["rerun_low"] <= corrected["value"] <= corrected["rerun_high"]
    rates = data[0]["corrected"]["rates"]
    assert set(rates) == set(SOURCES)
    for rate in rates.values():  # each audited rate with its own interval
        for name in ("fp", "fn"):
            low, high = rate[f"{name}_interval"]
            assert 0 <= low <= high < 1
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet, "--resamples", "300")
    assert code == 0, err
    assert "## Corrected for verdict error" in out and "G-Pass@16_1.0 raw" in out


def test_rank_column_in_every_format(capsys, workdir):  # noqa: F811
    root, _ = workdir
    code, out, err = run_cli(capsys, "report", root, "--resamples", "400", "--interval", "both")
    assert code == 0, err
    assert "## Ranks" in out
    assert re.search(r"\| \d+ \(\d+–\d+; \d+–\d+\) \|", out)
    rows, _ = report_json(capsys, root)
    for row in rows:
        for cell in row["ranks"].values():
            for kind in ("rerun", "benchmark"):
                lo, hi = cell[kind]
                assert 1 <= lo <= cell["rank"] <= hi <= len(rows)
    code, out, err = run_cli(capsys, "report", root, "--format", "html", "--resamples", "300")
    assert code == 0, err
    assert "<h2>Ranks — " in out and re.search(r"<td>\d+ \(\d+–\d+\)</td>", out)
    code, out, err = run_cli(capsys, "report", root, "--format", "csv", "--resamples", "300")
    assert code == 0, err
    header = next(csv.reader(io.StringIO(out)))
    assert "mG-Pass@16 rank" in header and "mG-Pass@16 rank_benchmark_high" in header


def test_compare_prints_p_a_greater(capsys, workdir):  # noqa: F811
    root, _ = workdir
    a, b = abbr("qwen-7b", "1-0"), abbr("llama-8b", "1-0")
    argv = ("compare", root, root, "--model-a", a, "--model-b", b, "--resamples", "400")
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert "## P(A better than B)" in out
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    probs = json.loads(out)["p_a_greater"]
    for p in probs.values():
        assert 0 <= p["rerun"] <= 1 and 0 <= p["benchmark"] <= 1
    code, out, err = run_cli(capsys, *argv, "--format", "json", "--verdict-error", "fp=0,fn=0")
    data = json.loads(out)
    for side in ("a", "b"):  # zero error: each side's corrected value is its raw value
        for key, got in data["corrected"][side.upper()].items():
            assert got["value"] == data["metrics"][key][side]


def test_compare_says_which_is_better_by_the_metrics_direction(capsys, workdir):  # noqa: F811
    """P(A better than B) (rerun kind: Φ of the difference over its SE) is above one half
    exactly when A's value is the better one: higher for mG-Pass@k, lower for gap@k (a
    smaller gap is the steadier model), read from the values compare prints."""
    root, _ = workdir
    argv = ("--metrics", "gap@4", "mG-Pass@4", "--resamples", "400", "--format", "json")
    a, b = abbr("qwen-7b", "1-0"), abbr("llama-8b", "1-0")
    code, out, err = run_cli(capsys, "compare", root, root, "--model-a", a, "--model-b", b, *argv)
    assert code == 0, err
    data = json.loads(out)
    values = {key: (m["a"], m["b"]) for key, m in data["metrics"].items()}
    gap_a, gap_b = values["gap@4"]
    mg_a, mg_b = values["mG-Pass@4"]
    assert gap_a != gap_b and mg_a != mg_b  # the check below can go either way
    assert (data["p_a_better"]["gap@4"]["rerun"] > 0.5) == (gap_a < gap_b)
    assert (data["p_a_better"]["mG-Pass@4"]["rerun"] > 0.5) == (mg_a > mg_b)


def test_rank_one_is_the_best_by_the_metrics_direction():
    """Ranks of a lower-is-better metric (gap@k) put the smallest value first; of a
    higher-is-better one the largest; rows are told apart by known values (no draws)."""
    from gpassk_oc.core.metrics.registry import parse_metric
    from gpassk_oc.core.uncertainty.metric_intervals import Estimate
    from gpassk_oc.report.data.collect import Row
    from gpassk_oc.report.ranking.corrections import rank_cells

    rows = [Row(f"m{i}", "d", [], [], None, None, None, None, []) for i in range(3)]  # type: ignore[arg-type]
    ests = [Estimate(v, v, v, 0.0, 10) for v in (0.2, 0.05, 0.4)]
    gap = rank_cells(rows, ests, parse_metric("gap@4"), (0, 0), 0.95, 0)
    mg = rank_cells(rows, ests, parse_metric("mG-Pass@4"), (0, 0), 0.95, 0)
    assert {label: cell.rank for label, cell in gap.items()} == {"m0": 2, "m1": 1, "m2": 3}
    assert {label: cell.rank for label, cell in mg.items()} == {"m0": 2, "m1": 3, "m2": 1}


# --------------------------------------------------------------------------- bad input
def _bad_sheet(kind: str, rows: list[dict]) -> list[dict]:
    if kind == "unknown-id":
        rows[0]["sample_id"] = "nosuch/model/0/0"
        rows[0]["label"] = "yes"
    elif kind == "bad-label":
        rows[3]["label"] = "maybe"
    elif kind == "too-few":
        for row in rows[15:]:
            row["label"] = ""
    elif kind == "inverted":  # every verdict wrong: fp = 1, the rates invert the verdicts
        for row in rows:
            row["label"] = "no" if row["verdict"] == "correct" else "yes"
    return rows


BAD = [
    ("unknown-id", ("--audit", "{sheet}"), ("{sheet}", "sample_id", "nosuch/model/0/0")),
    ("bad-label", ("--audit", "{sheet}"), ("{sheet}", "line 5", "yes, no, 1 or 0")),
    ("too-few", ("--audit", "{sheet}"), ("{sheet}", "15 audited", "at least 20")),
    ("inverted", ("--audit", "{sheet}"), ("--audit {sheet}", "fp=1", "[0, 1)")),
    ("fp-fn-sum", ("--verdict-error", "fp=0.5,fn=0.5"), ("--verdict-error", ">= 1")),
    ("rate-above", ("--verdict-error", "fp=1.2,fn=0"), ("--verdict-error", "fp=1.2", "[0, 1)")),
    ("rate-negative", ("--verdict-error", "fp=0,fn=-0.1"), ("fn=-0.1", "[0, 1)")),
    ("rate-by-empty", ("--verdict-error", "fp=0.1"), ("--verdict-error", "fn=")),
]


@pytest.mark.parametrize(("kind", "argv", "expect"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_exit_2(capsys, workdir, tmp_path, kind, argv, expect):  # noqa: F811
    root, _ = workdir
    _add_sources(root)
    sheet = tmp_path / "sheet.csv"
    if "{sheet}" in argv:
        rows = _sheet(capsys, root, 40, sheet)
        _label(sheet, rows)
        rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8-sig"))))
        rows = [r for r in rows if r["source"] == "judge"][:20] + [
            r for r in rows if r["source"] == "rule"
        ]
        _write(sheet, _bad_sheet(kind, rows))
    args = [a.replace("{sheet}", str(sheet)) for a in argv]
    code, out, err = run_cli(capsys, "report", root, "--resamples", "0", *args)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    for phrase in expect:
        assert phrase.replace("{sheet}", str(sheet)) in lines[0], lines[0]
