"""gpassk-oc report / compare / plots on synthetic OpenCompass work dirs written in
tmp_path. Expected table values are recomputed here from the synthetic c's with an
independent Fraction oracle."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gpassk_oc.cli import main
from gpassk_oc.log import use_cli_format

N = 48
KS = [4, 8, 16]
DATASET = "LiveMathBench-v202412-k4_8_16-r3"
GREEDY_DATASET = "LiveMathBench-v202412-k1-r1"
SPLITS = [("AMC", "en"), ("AMC", "cn"), ("CNMO", "en"), ("CNMO", "cn")]
PER_SPLIT = 6
TS = "20261122_031500"


def oracle_g(n: int, c: int, k: int, tau: Fraction) -> Fraction:
    m = max(math.ceil(tau * k), 1)
    return sum(
        (Fraction(math.comb(c, j) * math.comb(n - c, k - j)) for j in range(m, min(c, k) + 1)),
        Fraction(0),
    ) / math.comb(n, k)


def oracle(key: str, n: int, c: int) -> Fraction:
    if key.startswith("G-Pass@"):
        k, tau = key[len("G-Pass@") :].split("_")
        return oracle_g(n, c, int(k), Fraction(tau))
    k = int(key.split("@")[1])
    if key.startswith("mG-Pass@"):
        return Fraction(2, k) * sum(
            oracle_g(n, c, k, Fraction(i, k)) for i in range(k // 2 + 1, k + 1)
        )
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))  # pass@k


def oracle_mean(key: str, pairs) -> float:
    pairs = list(pairs)
    return float(100 * sum(oracle(key, n, c) for n, c in pairs) / len(pairs))


def questions():
    return [
        (split, lang, i, f"[{split}/{lang}] problem {i}: compute x.")
        for split, lang in SPLITS
        for i in range(PER_SPLIT)
    ]


def write_run(
    root: Path,
    model: str,
    dataset: str,
    cs,
    n: int,
    *,
    ts: str = TS,
    qs=None,
    rng=None,
    unjudged: int = 0,
    details: bool = True,
    top: dict | None = None,
) -> Path:
    """One results JSON following the evaluator contract."""
    rng = rng or np.random.default_rng(0)
    qs = qs or questions()
    out = root / ts / "results" / model / f"{dataset}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for (split, lang, index, text), c in zip(qs, cs):
        correct: list = [True] * int(c) + [False] * (n - int(c))
        rng.shuffle(correct)
        correct += [None] * unjudged  # unjudged samples are excluded from n
        rows.append(
            {
                "index": index,
                "split": split,
                "language": lang,
                "question_type": "short",
                "question": text,
                "gold": "1",
                "extracted": ["1"] * len(correct),
                "correct": correct,
                "c": int(c),
                "n": n,
            }
        )
    data = {
        "n": n + unjudged,
        "num_questions": len(qs),
        "ks": KS if n > 1 else [1],
        "unjudged": unjudged * len(qs),
        **(top or {}),
    }
    if details:
        data["details"] = rows
    out.write_text(json.dumps(data))
    return out


def abbr(model: str, t: str, seed: int = 42, top_p: str = "0-95") -> str:
    return f"{model}_t{t}_p{top_p}_k-1_rp1-0_rs{seed}_l8192"


@pytest.fixture()
def workdir(tmp_path):
    """2 models × 2 temperatures + one greedy run per model, 2 splits × 2 languages."""
    rng = np.random.default_rng(7)
    q = len(questions())
    truth = {"qwen-7b": rng.beta(1.2, 1, q), "llama-8b": rng.beta(0.6, 1.4, q)}
    cs = {}
    for model, p in truth.items():
        for t in ("0-7", "1-0"):
            cs[abbr(model, t)] = rng.binomial(N, p)
            write_run(tmp_path, abbr(model, t), DATASET, cs[abbr(model, t)], N, rng=rng)
        greedy = abbr(model, "0-0", top_p="1-0")
        cs[greedy] = rng.binomial(1, p)
        write_run(tmp_path, greedy, GREEDY_DATASET, cs[greedy], 1, ts="20261122_051500", rng=rng)
    return tmp_path, cs


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    finally:  # the CLI's log sink is this test's captured stderr: do not leave it behind
        use_cli_format(sys.__stderr__)
    out, err = capsys.readouterr()
    return code, out, err


def report_json(capsys, *argv, greedy: bool = False) -> tuple[list[dict], str]:
    """The JSON rows (sampled rows only unless *greedy*) and stderr."""
    code, out, err = run_cli(capsys, "report", *argv, "--format", "json", "--resamples", "500")
    assert code == 0, err
    return [r for r in json.loads(out) if greedy or not r["greedy"]], err


# --------------------------------------------------------------------------- tables
def test_json_table_matches_oracle_overall_and_per_split(workdir, capsys):
    root, cs = workdir
    rows, _ = report_json(capsys, root)
    assert len(rows) == 4 and {r["model"] for r in rows} == {
        abbr(m, t) for m in ("qwen-7b", "llama-8b") for t in ("0-7", "1-0")
    }
    qs = questions()
    for row in rows:
        c = cs[row["model"]]
        assert row["dataset"] == DATASET and row["k"] == 16 and row["n"] == N
        assert row["num_questions"] == len(qs)
        for key in (
            "G-Pass@16_0.5",
            "G-Pass@16_0.75",
            "G-Pass@16_1.0",
            "mG-Pass@16",
            "pass@16",
            "G-Pass@16_0.25",
            "G-Pass@16_0.0",
        ):
            m = row["metrics"][key]
            assert m["value"] == pytest.approx(oracle_mean(key, [(N, int(x)) for x in c]), abs=1e-3)
            assert m["ci_low"] <= m["value"] <= m["ci_high"]
            assert m["sampling_se"] > 0
        assert row["metrics"]["pass@1"]["value"] == pytest.approx(100 * c.mean() / N, abs=1e-3)
        greedy = cs[abbr(row["base_model"], "0-0", top_p="1-0")]
        assert row["metrics"]["Greedy"]["value"] == pytest.approx(100 * greedy.mean(), abs=1e-3)
        for split, lang in SPLITS:
            sub = row["splits"][f"{split}/{lang}"]
            idx = [i for i, q in enumerate(qs) if (q[0], q[1]) == (split, lang)]
            assert sub["num_questions"] == PER_SPLIT
            assert sub["metrics"]["mG-Pass@16"]["value"] == pytest.approx(
                oracle_mean("mG-Pass@16", [(N, int(c[i])) for i in idx]), abs=1e-3
            )
            assert sub["metrics"]["Greedy"]["value"] == pytest.approx(
                100 * greedy[idx].mean(), abs=1e-3
            )
    mg = [r["metrics"]["mG-Pass@16"]["value"] for r in rows]
    assert mg == sorted(mg), "rows are sorted by mG-Pass@k (ascending, like the paper)"


def test_markdown_has_paper_columns_and_dash_without_greedy(workdir, capsys):
    root, _ = workdir
    # drop qwen's greedy run: its rows must show "—" in the Greedy column
    (
        root
        / "20261122_051500"
        / "results"
        / abbr("qwen-7b", "0-0", top_p="1-0")
        / f"{GREEDY_DATASET}.json"
    ).unlink()
    code, out, err = run_cli(capsys, "report", root, "--resamples", "300", "--no-ci")
    assert code == 0, err
    header = "| Model | Setting | n | Q | Greedy | G-Pass@16_0.5 | G-Pass@16_0.75 | G-Pass@16_1.0 | mG-Pass@16 |"
    assert header in out

    def table_lines(model):  # rows of the paper-style tables (their Setting column)
        return [
            line
            for line in out.splitlines()
            if line.startswith(f"| {model}") and line.split(" | ")[1].startswith("T=")
        ]

    lines = table_lines("qwen-7b")
    assert len(lines) == 2 * (1 + len(SPLITS)) and all(
        line.split(" | ")[4] == "—" for line in lines
    )
    assert all(line.split(" | ")[4] != "—" for line in table_lines("llama-8b"))
    assert f"## {DATASET} — AMC/cn" in out and f"## {DATASET} — overall" in out


def test_csv_and_html_outputs(workdir, capsys, tmp_path_factory):
    root, _ = workdir
    out_file = tmp_path_factory.mktemp("out") / "table.csv"
    code, _, err = run_cli(
        capsys, "report", root, "--format", "csv", "--out", out_file, "--resamples", "200"
    )
    assert code == 0, err
    records = list(csv.DictReader(io.StringIO(out_file.read_text())))
    assert len(records) == 4 * (1 + len(SPLITS)) + 2  # + the two greedy runs
    overall = [r for r in records if r["subset"] == "overall" and r["n"] != "1"]
    assert {r["temperature"] for r in overall} == {"0.7", "1.0"}
    assert all(
        float(r["mG-Pass@16 ci_low"]) <= float(r["mG-Pass@16"]) <= float(r["mG-Pass@16 ci_high"])
        for r in overall
    )
    code, out, _ = run_cli(capsys, "report", root, "--format", "html", "--resamples", "200")
    # overall + per split, the verdict sensitivity, accounting and greedy tables
    assert code == 0 and out.count("<table>") == 1 + len(SPLITS) + 3 and "mG-Pass@16" in out


def test_k_option_and_k_larger_than_n(workdir, capsys):
    root, cs = workdir
    rows, _ = report_json(capsys, root, "--k", "8")
    row = rows[0]
    assert set(row["metrics"]) >= {"G-Pass@8_0.5", "mG-Pass@8"}
    assert row["metrics"]["G-Pass@8_0.75"]["value"] == pytest.approx(
        oracle_mean("G-Pass@8_0.75", [(N, int(x)) for x in cs[row["model"]]]), abs=1e-3
    )
    # a k no run can reach is a bad input: one line, non-zero exit, no table
    code, out, err = run_cli(capsys, "report", root, "--k", "64", "--resamples", "100")
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"error: --k 64: {abbr('llama-8b', '0-7')} on {DATASET} has only "
        "n=48 samples per question, so G-Pass@64 cannot be computed "
        "(largest usable k: 48)"
    ]


# --------------------------------------------------------------------------- partial runs
def test_partial_runs_are_noted_not_crashed(workdir, capsys):
    root, cs = workdir
    qs = questions()
    rng = np.random.default_rng(3)
    # a model with fewer questions (one split×language missing)
    short = abbr("mistral-7b", "0-7")
    write_run(
        root, short, DATASET, rng.integers(0, N + 1, len(qs) - PER_SPLIT), N, qs=qs[:-PER_SPLIT]
    )
    # a results file without details
    write_run(
        root,
        abbr("phi-3", "0-7"),
        DATASET,
        [1] * len(qs),
        N,
        details=False,
        top={"mG-Pass@16": 12.0},
    )
    # predictions but no results (evaluation never ran)
    pred = root / TS / "predictions" / abbr("gemma-9b", "0-7")
    pred.mkdir(parents=True)
    (pred / f"{DATASET}_0.json").write_text("{}")
    rows, err = report_json(capsys, root)
    models = {r["model"]: r for r in rows}
    assert short in models and abbr("phi-3", "0-7") not in models
    assert models[short]["num_questions"] == len(qs) - PER_SPLIT
    assert any(
        f"covers {len(qs) - PER_SPLIT}/{len(qs)} questions" in n for n in models[short]["notes"]
    )
    assert "phi-3" in err and "no per-question details" in err
    assert "gemma-9b" in err and "no results file" in err
    # the short row is averaged over its own questions only
    assert models[short]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(
        oracle_mean(
            "mG-Pass@16",
            [(N, int(c)) for c in json_cs(root / TS / "results" / short / f"{DATASET}.json")],
        ),
        abs=1e-3,
    )


def json_cs(path: Path) -> list[int]:
    return [d["c"] for d in json.loads(path.read_text())["details"]]


def test_unjudged_samples_reduce_n_and_c_is_read_from_correct_lists(tmp_path, capsys):
    cs = np.random.default_rng(1).integers(0, 41, len(questions()))
    write_run(tmp_path, abbr("m", "0-7"), DATASET, cs, 40, unjudged=8)  # 40 judged of 48
    rows, _ = report_json(capsys, tmp_path)
    assert rows[0]["n"] == 40
    assert rows[0]["metrics"]["G-Pass@16_0.5"]["value"] == pytest.approx(
        oracle_mean("G-Pass@16_0.5", [(40, int(c)) for c in cs]), abs=1e-3
    )


def test_top_level_numbers_are_cross_checked_not_trusted(tmp_path, capsys):
    cs = np.random.default_rng(2).integers(0, N + 1, len(questions()))
    true_mg = oracle_mean("mG-Pass@16", [(N, int(c)) for c in cs])
    write_run(
        tmp_path,
        abbr("m", "0-7"),
        DATASET,
        cs,
        N,
        top={
            "mG-Pass@16": true_mg + 5,
            "G-Pass@16_0.5": oracle_mean("G-Pass@16_0.5", [(N, int(c)) for c in cs]),
        },
    )
    rows, err = report_json(capsys, tmp_path)
    assert rows[0]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(true_mg, abs=1e-3)
    assert "top-level mG-Pass@16" in err and "G-Pass@16_0.5 =" not in err


def test_seeds_pool_when_questions_match_and_refuse_otherwise(tmp_path, capsys):
    rng = np.random.default_rng(4)
    qs = questions()
    c1, c2 = rng.integers(0, N + 1, len(qs)), rng.integers(0, N + 1, len(qs))
    write_run(tmp_path, abbr("m", "0-7", seed=1), DATASET, c1, N)
    write_run(tmp_path, abbr("m", "0-7", seed=2), DATASET, c2, N)
    rows, _ = report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["n"] == 2 * N and rows[0]["setting"]["seeds"] == [1, 2]
    assert rows[0]["model"] == "m_t0-7_p0-95_k-1_rp1-0_rs1+2_l8192"
    assert rows[0]["metrics"]["G-Pass@16_1.0"]["value"] == pytest.approx(
        oracle_mean("G-Pass@16_1.0", [(2 * N, int(a + b)) for a, b in zip(c1, c2)]), abs=1e-3
    )
    # a third seed on a different dataset version (same indices, other question texts)
    other = [(s, lang, i, text + " (v2)") for s, lang, i, text in qs]
    write_run(tmp_path, abbr("m", "0-7", seed=3), DATASET, c1, N, qs=other)
    rows, err = report_json(capsys, tmp_path)
    assert len(rows) == 3 and "NOT pooled" in err and "question sets differ" in err
    assert all(r["n"] == N for r in rows)


def test_latest_timestamp_wins(tmp_path, capsys):
    qs = questions()
    write_run(tmp_path, abbr("m", "0-7"), DATASET, [0] * len(qs), N, ts="20261122_010000")
    write_run(tmp_path, abbr("m", "0-7"), DATASET, [N] * len(qs), N, ts="20261122_020000")
    rows, err = report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(100)
    assert "several timestamps" in err
    # a timestamp dir or its results dir work as inputs too
    for path in (tmp_path / "20261122_010000", tmp_path / "20261122_010000" / "results"):
        rows, _ = report_json(capsys, path)
        assert rows[0]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(0)


def test_no_runs_is_an_error(tmp_path, capsys):
    code, _, err = run_cli(capsys, "report", tmp_path)
    assert code == 2 and err.splitlines()[-1] == f"error: no usable runs found under {tmp_path}"


# --------------------------------------------------------------------------- plots
def test_plots_written_with_one_curve_per_model(workdir, capsys, tmp_path_factory):
    root, cs = workdir
    plots = tmp_path_factory.mktemp("plots")
    code, out, err = run_cli(
        capsys, "report", root, "--plots", plots, "--resamples", "300", "--format", "json"
    )
    assert code == 0, err
    table = {r["model"]: r for r in json.loads(out) if not r["greedy"]}
    for name in ("gpass_vs_tau", "mg_vs_temperature", "stability_gap"):
        for ext in ("png", "svg", "json"):
            assert (plots / f"{name}.{ext}").stat().st_size > 0
    assert (plots / "gpass_vs_tau.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (plots / "gpass_vs_tau.svg").read_text()

    tau = json.loads((plots / "gpass_vs_tau.json").read_text())
    assert sorted(c["model"] for c in tau) == sorted(table)
    assert len({c["label"] for c in tau}) == 4
    for curve in tau:
        assert curve["x"] == pytest.approx([i / 16 for i in range(17)])
        assert all(
            lo <= y <= hi for y, lo, hi in zip(curve["y"], curve["ci_low"], curve["ci_high"])
        )
        assert curve["y"][8] == pytest.approx(
            table[curve["model"]]["metrics"]["G-Pass@16_0.5"]["value"]
        )
        assert curve["y"][0] == pytest.approx(table[curve["model"]]["metrics"]["pass@16"]["value"])
        assert curve["y"] == sorted(curve["y"], reverse=True)  # G-Pass falls as τ rises

    temp = json.loads((plots / "mg_vs_temperature.json").read_text())
    assert sorted(c["label"] for c in temp) == ["llama-8b", "qwen-7b"]
    for curve in temp:
        assert curve["x"] == [0.7, 1.0]
        for model, y in zip(curve["model"], curve["y"]):
            assert y == pytest.approx(table[model]["metrics"]["mG-Pass@16"]["value"])

    gap = json.loads((plots / "stability_gap.json").read_text())
    assert len(gap) == 4
    for curve in gap:
        assert curve["x"] == list(range(1, 17)) and curve["y"][0] == pytest.approx(0)
        assert curve["y"][-1] == pytest.approx(
            oracle_mean("pass@16", [(N, int(c)) for c in cs[curve["model"]]])
            - oracle_mean("G-Pass@16_1.0", [(N, int(c)) for c in cs[curve["model"]]]),
            abs=1e-3,
        )


# --------------------------------------------------------------------------- compare
def test_compare_paired_difference(workdir, capsys):
    root, cs = workdir
    a, b = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")
    code, out, err = run_cli(
        capsys,
        "compare",
        root,
        root / TS / "results" / b / f"{DATASET}.json",
        "--model-a",
        a,
        "--format",
        "json",
        "--by-split",
        "--resamples",
        "2000",
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["a"] == a and result["b"] == b and result["num_questions"] == len(questions())
    d = result["metrics"]["mG-Pass@16"]
    expected = oracle_mean("mG-Pass@16", [(N, int(c)) for c in cs[a]]) - oracle_mean(
        "mG-Pass@16", [(N, int(c)) for c in cs[b]]
    )
    assert d["diff"] == pytest.approx(expected, abs=1e-3)
    assert d["ci_low"] <= d["diff"] <= d["ci_high"] and 0 <= d["p_value"] <= 1
    assert set(result["splits"]) == {f"{s}/{lang}" for s, lang in SPLITS}
    code, out, _ = run_cli(
        capsys, "compare", root, root, "--model-a", a, "--model-b", b, "--resamples", "200"
    )
    assert code == 0 and "| mG-Pass@16 |" in out


def test_compare_refuses_different_question_sets_and_ambiguity(workdir, capsys):
    root, _ = workdir
    qs = questions()
    other = root / "other"
    write_run(other, abbr("x", "0-7"), DATASET, [3] * (len(qs) - 1), N, qs=qs[1:])
    code, _, err = run_cli(capsys, "compare", root, other, "--model-a", abbr("qwen-7b", "0-7"))
    assert code == 2 and "question sets differ" in err
    code, _, err = run_cli(capsys, "compare", root, other)
    assert code == 2 and "--model-a" in err


def test_per_split_top_level_numbers_are_cross_checked(tmp_path, capsys):
    qs = questions()
    cs = np.random.default_rng(5).integers(0, N + 1, len(qs))
    amc_en = [(N, int(c)) for q, c in zip(qs, cs) if (q[0], q[1]) == ("AMC", "en")]
    good = oracle_mean("G-Pass@16_1.0", amc_en)
    write_run(
        tmp_path,
        abbr("m", "0-7"),
        DATASET,
        cs,
        N,
        top={"AMC_en/G-Pass@16_1.0": good, "AMC_en/mG-Pass@16": 99.0},
    )
    _, err = report_json(capsys, tmp_path)
    # a schema-1 file: its AMC_en/… keys are read as the group AMC/en
    assert "top-level AMC/en/mG-Pass@16 = 99.00" in err and "AMC/en/G-Pass@16_1.0" not in err


def test_details_without_split_or_language_give_only_the_overall_table(tmp_path, capsys):
    qs = [("", "", i, f"problem {i}") for i in range(10)]
    write_run(tmp_path, "plain-model", "my-dataset", list(range(10)), N, qs=qs)
    rows, _ = report_json(capsys, tmp_path)
    assert rows[0]["model"] == "plain-model" and rows[0]["setting"] is None
    assert rows[0]["splits"] == {} and rows[0]["k"] == 16
    code, out, _ = run_cli(capsys, "report", tmp_path, "--resamples", "100")
    assert code == 0 and out.count("## my-dataset") == 1 and "| plain-model | — | 48 | 10 |" in out


# --------------------------------------------------------------------------- bad inputs
def test_level_as_percentage_equals_fraction_and_bad_levels_fail_in_one_line(workdir, capsys):
    root, _ = workdir
    as_fraction, _ = report_json(capsys, root, "--level", "0.9")
    as_percent, _ = report_json(capsys, root, "--level", "90")
    assert as_percent == as_fraction and as_percent[0]["confidence_level"] == 0.9
    for bad in ("150", "0", "100", "-0.5", "1"):
        code, out, err = run_cli(capsys, "report", root, "--level", bad)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (bad, err)
        assert err.startswith(f"error: --level {float(bad):g}: need a confidence level")


def test_negative_resamples_fail_and_zero_says_no_intervals(workdir, capsys):
    root, _ = workdir
    code, out, err = run_cli(capsys, "report", root, "--resamples", "-5")
    assert (code, out, err) == (2, "", "error: --resamples -5: need 0 (no intervals) or more\n")
    code, out, _ = run_cli(capsys, "report", root, "--resamples", "0")
    assert code == 0 and "no confidence intervals (--resamples 0)" in out and " [" not in out


def test_compare_refuses_metrics_it_cannot_compute(workdir, capsys):
    root, _ = workdir
    a, b = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")
    for metric, message in (
        (
            "pass@99",
            f"error: --metrics pass@99: k=99 exceeds the n={N} judged samples per "
            f"question of A ({a}); it cannot be computed",
        ),
        (
            "G-Pass@4",
            "error: --metrics: unknown metric 'G-Pass@4' (expected G-Pass@K_TAU, "
            "mG-Pass@K, pass@K or gap@K, e.g. G-Pass@16_0.75)",
        ),
    ):
        code, out, err = run_cli(
            capsys, "compare", root, root, "--model-a", a, "--model-b", b, "--metrics", metric
        )
        assert (code, out, err) == (2, "", message + "\n")
    code, _, err = run_cli(
        capsys, "compare", root, root, "--model-a", a, "--model-b", b, "--k", "64"
    )
    assert code == 2 and err.startswith("error: --metrics pass@64: k=64 exceeds")


def test_greedy_only_runs_give_a_greedy_table(tmp_path, capsys):
    rng = np.random.default_rng(9)
    cs = {m: rng.integers(0, 2, len(questions())) for m in ("qwen-7b", "llama-8b")}
    for model, c in cs.items():
        write_run(tmp_path, abbr(model, "0-0", top_p="1-0"), GREEDY_DATASET, c, 1)
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "200")
    assert code == 0, err
    assert "## Greedy runs" in out and "| Model | Dataset | Q | accuracy |" in out
    rows, _ = report_json(capsys, tmp_path, greedy=True)
    assert {r["model"]: r["metrics"]["accuracy"]["value"] for r in rows} == {
        abbr(m, "0-0", top_p="1-0"): pytest.approx(100 * c.mean(), abs=1e-4) for m, c in cs.items()
    }


def test_one_rounding_rule_everywhere(tmp_path, capsys):
    """17 of 80 correct = 21.25 %: every table shows 21.3 (half up), none 21.2."""
    qs = [("AMC", "en", i, f"q{i}") for i in range(20)]
    c = [1] * 17 + [0] * 3  # n = 4: pass@1 = 17/80
    write_run(tmp_path, abbr("m", "0-7"), DATASET, c, 4, qs=qs)
    greedy = [1] * 17 + [0] * 63
    write_run(
        tmp_path,
        abbr("m", "0-0", top_p="1-0"),
        GREEDY_DATASET,
        greedy,
        1,
        qs=[("AMC", "en", i, f"g{i}") for i in range(80)],
    )
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "0", "--k", "4")
    assert code == 0, err
    sens_part = out[out.index("## Verdict sensitivity") :]
    sens_line = next(line for line in sens_part.splitlines() if line.startswith("| m |"))
    greedy_line = next(line for line in out.splitlines() if "LiveMathBench-v202412-k1-r1" in line)
    assert sens_line.split(" | ")[-1].startswith("21.3") and greedy_line.endswith("| 21.3 |")
    assert "21.2" not in out
    code, out, _ = run_cli(
        capsys,
        "compare",
        tmp_path,
        tmp_path,
        "--model-a",
        abbr("m", "0-7"),
        "--model-b",
        abbr("m", "0-7"),
        "--metrics",
        "pass@1",
    )
    assert code == 0 and "| pass@1 | 21.3 | 21.3 | +0.0 |" in out
    # the demo's leaderboard writes estimates with the report's own cell text
    from gpassk_oc.core.scoring.stats import Estimate
    from gpassk_oc.report.tables import estimate_text

    est = Estimate(value=0.2125, ci_low=0.2125, ci_high=0.2135, sampling_se=0.0, n_questions=20)
    assert estimate_text(est, ci=True) == "21.3 [21.3, 21.4]"


def test_a_ci_without_spread_says_so_instead_of_zero_width(tmp_path, capsys):
    qs = questions()
    write_run(tmp_path, abbr("m", "0-7"), DATASET, [0] * len(qs), N)  # never correct
    code, out, _ = run_cli(capsys, "report", tmp_path, "--resamples", "200")
    assert code == 0 and "0.0 [no width]" in out and "[0.0, 0.0]" not in out
    rows, _ = report_json(capsys, tmp_path)
    metric = rows[0]["metrics"]["mG-Pass@16"]
    assert (metric["value"], metric["ci_low"], metric["ci_high"], metric["ci"]) == (
        0.0,
        None,
        None,
        "no width",
    )


def test_bad_flag_values_are_one_line_too(workdir, capsys):
    root, _ = workdir
    code, out, err = run_cli(capsys, "report", root, "--seed", "-1")
    assert (code, out, err) == (2, "", "error: --seed -1: need a non-negative integer\n")
    with pytest.raises(SystemExit) as info:
        run_cli(capsys, "report", root, "--k", "sixteen")
    err = capsys.readouterr().err
    assert info.value.code == 2 and err == (
        "error: gpassk-oc report: argument --k: invalid int value: 'sixteen'\n"
    )


def test_unwritable_outputs_are_one_line(workdir, capsys, tmp_path):
    """--out or --plots onto something that is not a writable folder/file: one line, exit 2."""
    root, _ = workdir
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, out, err = run_cli(capsys, "report", root, "--resamples", "0", "--out", tmp_path)
    assert (code, out) == (2, "") and err == f"error: --out {tmp_path}: Is a directory\n"
    code, out, err = run_cli(
        capsys, "report", root, "--resamples", "0", "--plots", blocker / "figures"
    )
    assert (
        code == 2
        and err.splitlines()[-1] == f"error: --plots {blocker / 'figures'}: Not a directory"
    )
    models = sorted(
        {p.parent.name for p in root.glob("*/results/*/*.json") if "t0-0" not in p.parent.name}
    )
    code, out, err = run_cli(
        capsys,
        "compare",
        root,
        root,
        "--model-a",
        models[0],
        "--model-b",
        models[1],
        "--resamples",
        "0",
        "--out",
        tmp_path,
    )
    assert (code, out) == (2, "") and err.splitlines()[
        -1
    ] == f"error: --out {tmp_path}: Is a directory"


def test_model_never_imports_its_renderers_or_plots():
    """Plots and renderers depend on the model, never the reverse (no import cycle)."""
    import ast

    package = Path(__file__).parents[1] / "gpassk_oc" / "report"
    graph = {
        f.stem: {
            n.module or ""
            for n in ast.walk(ast.parse(f.read_text()))
            if isinstance(n, ast.ImportFrom) and n.level == 1
        }
        for f in package.glob("*.py")
    }
    renderers = {"markdown", "html", "csvout", "jsonout", "tables", "plots", "cli"}
    assert not renderers & (graph["model"] | graph["collect"] | graph["numbers"])
    assert not {"plots", "cli"} & graph["__init__"]  # importing the package draws nothing
    assert all("cli" not in deps for deps in graph.values())
