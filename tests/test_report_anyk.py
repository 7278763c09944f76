"""``gpassk-oc report --k 1,2,… --tau …``: every metric at ks the run was not configured
with, recomputed from the saved counts and votes, against k-subset enumeration."""

from __future__ import annotations

import csv
import io
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from oracles import brute_maj, exact_g_tau, exact_mg_documented, exact_pass
from report_support import abbr, record_for, run_cli

N = 8
DATASET = "LiveMathBench-v202412-k4_8-r1"
TS = "20261123_010000"


def labels_for(rng: random.Random, q: int) -> list[list[int | None]]:
    """Per question, per sample: 0 = correct, 1/2/3 = wrong answers, None = no answer."""
    out = []
    for _ in range(q):
        weights = [rng.random() for _ in range(5)]
        out.append(rng.choices([0, 1, 2, 3, None], weights=weights, k=N))
    return out


def write_run(root: Path, model: str, labels, votes: bool = True, ts: str = TS) -> Path:
    details = []
    for i, row in enumerate(labels):
        detail = {
            "index": i,
            "question_id": f"AMC_en_{i}",
            "split": "AMC" if i % 2 else "CCEE",
            "language": "en",
            "question": f"problem {i}",
            "gold": "1",
            "extracted": [None if v is None else str(v + 1) for v in row],
            "correct": [v == 0 for v in row],
        }
        if votes:
            detail["vote"] = list(row)
            detail["vote_correct"] = 0 if 0 in row else None
        details.append(detail)
    data = {
        "schema": "gpassk_oc.results/3",
        "run": {"n": N, "num_questions": len(labels), "ks": [4, 8], "check": "rules"},
        "record": record_for(model, DATASET),  # the report reads settings from the record only
        "details": details,
    }
    path = root / ts / "results" / model / f"{DATASET}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.fixture()
def anyk_dir(tmp_path):
    rng = random.Random(11)
    runs = {
        abbr("qwen-7b", "0-7"): labels_for(rng, 10),
        abbr("llama-8b", "0-7"): labels_for(rng, 10),
    }
    for model, labels in runs.items():
        write_run(tmp_path, model, labels)
    return tmp_path, runs


def mean(values) -> float:
    values = list(values)
    return float(100 * sum(values, Fraction(0)) / len(values))


def test_every_metric_at_unconfigured_ks_matches_brute_force(anyk_dir, capsys):
    root, runs = anyk_dir
    ks = [1, 2, 3, 5, 7, 8]
    code, out, err = run_cli(
        capsys, "report", root, "--k", "8,1,2,3,5,7,2", "--tau", "1.0,0.5", "--format", "json"
    )
    assert code == 0, err
    rows = {r["model"]: r for r in json.loads(out)}
    for model, labels in runs.items():
        sweep = rows[model]["k_sweep"]
        assert sweep["ks"] == ks and sweep["taus"] == [0.5, 1.0]
        counts = [(N, row.count(0)) for row in labels]
        for k in ks:
            got = sweep["metrics"][str(k)]
            expect = {
                f"maj@{k}": mean(brute_maj(row, k) for row in labels),
                f"pass@{k}": mean(exact_pass(n, c, k) for n, c in counts),
                f"G-Pass@{k}_0.5": mean(exact_g_tau(n, c, k, Fraction(1, 2)) for n, c in counts),
                f"G-Pass@{k}_1.0": mean(exact_g_tau(n, c, k, Fraction(1)) for n, c in counts),
                # the documented sum runs from ⌈k/2⌉ + 1 to k: empty at k = 1, no metric
                f"mG-Pass@{k}": None
                if -(-k // 2) + 1 > k
                else mean(exact_mg_documented(n, c, k) for n, c in counts),
            }
            assert set(got) == set(expect)
            for key, value in expect.items():
                est = got[key]
                if value is None:  # "—" with the reason (tests/test_undefined_metrics.py)
                    assert est["value"] is None and est["undefined"], (model, key)
                    continue
                assert est["value"] == pytest.approx(value, abs=5e-5), (model, key)
                if est["ci"] == "ok":
                    assert est["ci_low"] <= est["value"] <= est["ci_high"]
            assert got[f"maj@{k}"]["n_questions"] == len(labels)
            assert got[f"maj@{k}"]["sampling_se"] is None  # not estimated for a vote


def test_markdown_table_and_figure(anyk_dir, capsys, tmp_path):
    root, runs = anyk_dir
    plots = tmp_path / "plots"
    code, out, err = run_cli(capsys, "report", root, "--k", "1,4,8", "--plots", plots)
    assert code == 0, err
    section = out[out.index(f"## Any k — {DATASET}") :]
    section = section[: section.index("\n## ")]
    header = section.splitlines()[4]
    assert header.startswith(
        "| Model | k | pass@k [rerun 95%] | G-Pass@k_0.5 [rerun 95%] | G-Pass@k_0.75 [rerun 95%]"
    )
    assert header.endswith("| mG-Pass@k [rerun 95%] | maj@k |")  # a vote has no rerun
    assert sum(1 for line in section.splitlines() if line.startswith("| qwen-7b | ")) == 3
    # the tables keep the default k: the largest declared k below n = 8
    assert out.startswith("# G-Pass@4 report")
    curves = json.loads((plots / "metrics_vs_k.json").read_text())
    assert (plots / "metrics_vs_k.png").stat().st_size > 0
    assert (plots / "metrics_vs_k.svg").stat().st_size > 0
    metrics = {c["metric"] for c in curves}
    assert metrics == {"pass@k", "G-Pass@k_0.5", "G-Pass@k_0.75", "G-Pass@k_1.0", "maj@k"}
    assert all(c["x"] == [1, 4, 8] for c in curves)


def test_one_k_keeps_the_plain_report(anyk_dir, capsys):
    root, _ = anyk_dir
    code, out, _ = run_cli(capsys, "report", root, "--k", "4", "--resamples", "0")
    assert code == 0 and "Any k" not in out
    code, out, _ = run_cli(capsys, "report", root, "--k", "4", "--tau", "1", "--resamples", "0")
    assert code == 0 and "| G-Pass@k_1.0 [rerun 95%] | mG-Pass@k [rerun 95%] | maj@k |" in out
    code, out, _ = run_cli(capsys, "report", root, "--k", "2,4", "--format", "html")
    assert code == 0 and f"<h2>Any k — {DATASET}</h2>" in out and "<th>maj@k</th>" in out


def _section_rows(out: str, title: str) -> tuple[list[str], list[list[str]]]:
    section = out[out.index(f"## {title}") :]
    lines = [line for line in section.split("\n## ")[0].splitlines() if line.startswith("| ")]
    split = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return split[0], split[1:]


@pytest.mark.parametrize("interval", ["rerun", "benchmark", "both"])
def test_sweep_shows_the_intervals_of_the_main_table(anyk_dir, capsys, interval):
    """At the tables' k (the default, 4 < n = 8) the any-k table repeats the main table's cells, brackets included,
    for every --interval, and its headers name the kinds like the main table's."""
    root, _ = anyk_dir
    code, out, err = run_cli(capsys, "report", root, "--k", "4,8", "--interval", interval)
    assert code == 0, err
    main_header, main_rows = _section_rows(out, f"{DATASET} — overall")
    sweep_header, sweep_rows = _section_rows(out, f"Any k — {DATASET}")
    bracket = {"rerun": "[rerun 95%]", "benchmark": "[benchmark 95%]"}
    named = " ".join(bracket[kind] for kind in bracket if interval in (kind, "both"))
    assert f"G-Pass@4_0.5 {named}" in main_header and f"G-Pass@k_0.5 {named}" in sweep_header
    vote = "maj@k" + ("" if interval == "rerun" else " [benchmark 95%]")
    assert sweep_header[-1] == vote
    for main in main_rows:
        sweep = next(r for r in sweep_rows if r[0] == main[0] and r[1] == "4")
        for key in ("G-Pass@4_0.5", "G-Pass@4_0.75", "G-Pass@4_1.0", "mG-Pass@4"):
            column = key.replace("@4", "@k")
            got = sweep[next(i for i, h in enumerate(sweep_header) if h.startswith(column))]
            want = main[next(i for i, h in enumerate(main_header) if h.startswith(key + " "))]
            assert got == want and "[" in got, (interval, key)


def test_files_without_votes_and_pooled_seeds_have_no_maj(tmp_path, capsys):
    rng = random.Random(3)
    write_run(tmp_path, abbr("old", "0-7"), labels_for(rng, 4), votes=False)
    for seed in (1, 2):
        write_run(tmp_path, abbr("pooled", "0-7", seed=seed), labels_for(rng, 4))
    code, out, err = run_cli(
        capsys, "report", tmp_path, "--k", "1,2", "--format", "json", "--resamples", "0"
    )
    assert code == 0, err
    for row in json.loads(out):
        assert row["k_sweep"]["metrics"]["2"]["maj@2"]["value"] is None
        assert row["k_sweep"]["metrics"]["2"]["pass@2"]["value"] is not None
    assert "records no votes" in err and "seeds are pooled" in err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--k", "0,2"], "error: --k 0,2: need an integer >= 1 or a non-empty list"),
        (["--k", "-1"], "error: --k -1: need an integer >= 1 or a non-empty list"),
        (["--k", "2,x"], "error: --k 2,x: need an integer >= 1 or a comma-separated list"),
        (["--k", "1,9"], "error: --k 9: "),
        (["--tau", "0.5,1.5"], "error: --tau 0.5,1.5: every τ must be a number in [0, 1]"),
        (["--tau", "-0.1"], "error: --tau -0.1: every τ must be a number in [0, 1]"),
        (["--tau", "half"], "error: --tau half: every τ must be a number in [0, 1]"),
    ],
)
def test_bad_k_and_tau_fail_in_one_line(anyk_dir, capsys, tmp_path, flags, message):
    root, _ = anyk_dir
    out_file = tmp_path / "out" / "report.md"
    code, out, err = run_cli(capsys, "report", root, *flags, "--out", out_file)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err
    assert not out_file.exists()


def test_csv_carries_every_k_on_overall_lines(anyk_dir, capsys):
    root, runs = anyk_dir
    code, out, err = run_cli(capsys, "report", root, "--k", "1,3,8", "--format", "csv")
    assert code == 0, err
    lines = list(csv.DictReader(io.StringIO(out)))
    for model, labels in runs.items():
        mine = [line for line in lines if line["model"] == model]
        overall = next(line for line in mine if line["subset"] == "overall")
        expect = mean(brute_maj(row, 3) for row in labels)
        assert float(overall["maj@3"]) == pytest.approx(expect, abs=5e-5)
        assert float(overall["maj@3 ci_low"]) <= float(overall["maj@3"])
        assert overall["maj@3 sampling_se"] == ""  # not estimated for a vote
        assert overall["pass@3"] != "" and "G-Pass@3_0.75" in overall
        assert all(line["maj@3"] == "" for line in mine if line["subset"] != "overall")
