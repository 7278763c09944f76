"""The paper's published values (gpassk_oc/data/published/): transcription, name map,
consistency flags, and ``gpassk-oc report --published`` against the run's intervals.

The transcription oracle is the README text itself: tests/fixtures/published/ keeps its
five tables verbatim (checked against the seed file where that is at hand), parsed here by
splitting lines on '|', independently of the package. Interval verdicts are expected from
the report's own interval bounds, compared by hand in this file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from report_support import N, oracle, run_cli, write_run

from gpassk_oc.core.data.published import (
    PublishedRow,
    consistency_flags,
    load_leaderboard,
    load_names,
    match_model,
    name_table,
)
from gpassk_oc.report.data.published_section import inside

ROOT = Path(__file__).resolve().parents[1]
TABLES = ROOT / "tests" / "fixtures" / "published" / "gpassk_readme_2025_tables.txt"
SEED = Path("/work/shared/seeds/gpassk_readme_2025_with_results.txt")
# the README's table headings, in order (the seed text lost them)
BENCHMARKS = [
    "LiveMathBench-202412",
    "LiveMathBench-Hard-202412",
    "MATH500-L5",
    "AIME2024-45",
    "AIME2025",
]
COLUMNS = ["Greedy", "G-Pass@16_0.5", "G-Pass@16_0.75", "G-Pass@16_1.0", "mG-Pass@16"]


def readme_tables() -> list[tuple[str, str, list[str]]]:
    """(benchmark, model, values as printed) of every README table row."""
    out, table = [], -1
    for line in TABLES.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if cells[0] == "LLMs":
            table += 1
            assert cells[1:6] == COLUMNS
        elif not line.startswith("---"):
            model = cells[0].rsplit(" ", 1)[0]  # drop the model-kind emoji
            out.append((BENCHMARKS[table], model, cells[1:6]))
    assert table == len(BENCHMARKS) - 1
    return out


@pytest.mark.skipif(not SEED.is_file(), reason="the seed README is not at hand")
def test_fixture_is_a_verbatim_slice_of_the_seed():
    assert TABLES.read_text(encoding="utf-8") in SEED.read_text(encoding="utf-8")


def test_shipped_values_are_the_readme_tables_exactly():
    board = load_leaderboard()
    assert board.k == 16 and board.columns == COLUMNS
    assert list(board.benchmarks) == BENCHMARKS
    shipped = [(r.benchmark, r.model, [f"{r.values[c]:.1f}" for c in COLUMNS]) for r in board.rows]
    assert shipped == readme_tables()
    source = board.source_line()
    assert "Are Your LLMs Capable of Stable Reasoning?" in source and "2412.13147" in source


def test_every_published_model_is_in_the_name_map():
    names = load_names()
    assert {r.model for r in load_leaderboard().rows} <= set(names)
    for published, aliases in names.items():
        assert match_model([published.upper()], names) == published
        for alias in aliases:
            assert match_model([alias], names) == published


@pytest.mark.parametrize(
    "candidates, expected",
    [
        (["deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"], "DeepSeek-Distill-Qwen-7B"),
        ([None, "DeepSeek-R1-Distill-Qwen-7B"], "DeepSeek-Distill-Qwen-7B"),
        (["qwen2.5-7b-instruct-turbomind"], "Qwen2.5-7B-Instruct"),
        (["llama-3_1-8b-instruct-hf"], "Llama-3.1-8B-Instruct"),
        (["o1-mini"], "OpenAI-o1-mini"),
        (["deepseek-ai/DeepSeek-R1"], "DeepSeek-R1"),
        # no guessing: near names and other sizes are not the published model
        (["DeepSeek-R1-Distill-Qwen-7B-GGUF"], None),
        (["Qwen2.5-14B-Instruct"], None),
        (["my-model", ""], None),
    ],
)
def test_name_map_matches_listed_names_only(candidates, expected):
    assert match_model(candidates, load_names()) == expected


def test_docs_list_the_name_map():
    page = (ROOT / "docs" / "published.md").read_text(encoding="utf-8")
    assert name_table() in page


def _row(model: str, values: list[float], benchmark: str = "B") -> PublishedRow:
    return PublishedRow(benchmark, model, dict(zip(COLUMNS, values)))


def test_the_shipped_flags_are_the_rows_with_notes():
    board = load_leaderboard()
    noted = {(r.benchmark, r.model) for r in board.rows if r.notes}
    assert set(board.flags) == noted == {("AIME2024-45", "Qwen2.5-Math-7B-Instruct")}
    # no two models of one benchmark share every G-Pass value in these tables
    assert not any("identical" in f for fs in board.flags.values() for f in fs)


def test_identical_rows_of_two_models_are_both_flagged():
    rows = [
        _row("A", [50.0, 40.0, 30.0, 20.0, 25.0]),
        _row("B", [45.0, 40.0, 30.0, 20.0, 25.0]),  # greedy differs, the rest is A's
        _row("C", [50.0, 40.0, 30.0, 20.0, 25.1]),
        _row("A", [45.0, 40.0, 30.0, 20.0, 25.0], benchmark="other"),
    ]
    flags = consistency_flags(rows)
    assert set(flags) == {("B", "A"), ("B", "B")}
    assert "identical G-Pass values to B" in flags[("B", "A")][0]


@pytest.mark.parametrize(
    "values, phrase",
    [
        ([10.0, 20.0, 30.0, 5.0, 20.0], "must not rise with τ"),
        ([11.1, 4.6, 2.6, 2.2, 3.7], "mG-Pass@16 3.7 lies outside"),  # above its maximum
        ([50.0, 40.0, 30.0, 20.0, 24.8], "mG-Pass@16 24.8 lies outside"),  # below its minimum
    ],
)
def test_impossible_rows_are_flagged(values, phrase):
    (why,) = consistency_flags([_row("M", values)])[("B", "M")]
    assert phrase in why


def test_values_of_real_counts_are_never_flagged():
    # G-Pass values of actual per-question counts (exact brute force), rounded as printed
    rng = np.random.default_rng(3)
    rows = []
    for m in range(60):
        counts = rng.binomial(16, rng.beta(0.5, 0.5, size=rng.integers(1, 40)))
        values = [50.0] + [
            round(float(100 * sum(oracle(key, 16, int(c)) for c in counts) / len(counts)), 1)
            for key in COLUMNS[1:]
        ]
        rows.append(_row(f"m{m}", values, benchmark=f"b{m}"))
    assert consistency_flags(rows) == {}


@pytest.mark.parametrize(
    "value, low, high, expected",
    [
        (50.0, 40.0, 60.0, True),
        (60.04, 40.0, 60.0, True),  # within half a unit of the printed digit
        (60.06, 40.0, 60.0, False),
        (39.9, 40.0, 60.0, False),
        (50.0, None, 60.0, None),
        (50.0, math.nan, math.nan, None),
    ],
)
def test_inside_allows_the_rounding_only(value, low, high, expected):
    assert inside(value, low, high) is expected


# ------------------------------------------------------------------- the report
SPLITS4 = [(s, lang) for s in ("AMC", "CCEE", "CNMO", "WLPMC") for lang in ("en", "cn")]
RUN = "DeepSeek-R1_t0-6_p0-95_k-1_rp1-0_rs42_l8192"
DATASET = "LiveMathBench-v202412-k4_8_16-r3"


@pytest.fixture()
def r1_work(tmp_path):
    """DeepSeek-R1 on every split of LiveMathBench 202412 (n = 48), and an unlisted model."""
    qs = [(s, lang, i, f"[{s}/{lang}] q{i}") for s, lang in SPLITS4 for i in range(5)]
    rng = np.random.default_rng(11)
    cs = rng.binomial(N, rng.beta(2, 1, len(qs)))
    write_run(tmp_path, RUN, DATASET, cs, N, qs=qs, rng=rng)
    write_run(tmp_path, RUN.replace("DeepSeek-R1", "mine"), DATASET, cs, N, qs=qs, rng=rng)
    return tmp_path


def _report(capsys, *argv):
    code, out, err = run_cli(capsys, "report", *argv, "--resamples", "400")
    assert code == 0, err
    return out


def test_report_marks_each_published_value_against_the_benchmark_interval(
    capsys, tmp_path, r1_work
):
    rows = json.loads(_report(capsys, r1_work, "--format", "json"))
    (r1,) = [r for r in rows if r["base_model"] == "DeepSeek-R1"]
    bench = {c: r1["metrics"][c]["benchmark"] for c in COLUMNS[1:]}
    g5, g75, g1, mg = (bench[c] for c in COLUMNS[1:])
    # a user file placing values around the run's own bounds
    chosen = [
        50.0,  # no greedy run: no interval
        g5["low"] - 1,  # outside
        g75["high"] + 0.04,  # inside by rounding
        g1["high"] + 0.06,  # outside
        (mg["low"] + mg["high"]) / 2,  # inside
    ]
    board = json.loads(
        (ROOT / "gpassk_oc" / "data" / "published" / "gpassk_leaderboard_2025.json").read_text()
    )
    board["rows"] = [{"benchmark": BENCHMARKS[0], "model": "DeepSeek-R1", "values": chosen}]
    board["notes"] = []
    user = tmp_path / "mine.json"
    user.write_text(json.dumps(board))
    rows = json.loads(_report(capsys, r1_work, "--format", "json", "--published-file", user))
    by_model = {r["base_model"]: r for r in rows}
    assert by_model["mine"]["published"] is None
    got = by_model["DeepSeek-R1"]["published"]
    assert got["model"] == "DeepSeek-R1" and got["benchmark"] == BENCHMARKS[0]
    expected = [None, False, True, False, True]
    assert [got["values"][c]["inside"] for c in COLUMNS] == expected
    assert got["values"]["G-Pass@16_0.5"]["benchmark_low"] == pytest.approx(g5["low"])
    md = _report(capsys, r1_work, "--published-file", user, "--no-ci")
    assert "Published (✓ inside benchmark interval)" in md
    assert f"{chosen[1]:.1f}✗" in md and f"{chosen[4]:.1f}✓" in md and "50.0?" in md
    # the shipped values: the paper's DeepSeek-R1 row, source named
    md = _report(capsys, r1_work, "--published")
    assert "81.1? 83.6" in md and "arXiv:2412.13147" in md
    csv = _report(capsys, r1_work, "--published", "--format", "csv").splitlines()
    header = csv[0].split(",")
    assert "published mG-Pass@16 inside" in header
    r1_line = next(line for line in csv if line.startswith(RUN + ",") and ",overall," in line)
    assert r1_line.split(",")[header.index("published mG-Pass@16")] == "77.6"


def test_a_flagged_published_row_is_marked(capsys, tmp_path, r1_work):
    board = json.loads(
        (ROOT / "gpassk_oc" / "data" / "published" / "gpassk_leaderboard_2025.json").read_text()
    )
    same = [80.0, 70.0, 60.0, 50.0, 55.0]
    board["rows"] = [
        {"benchmark": BENCHMARKS[0], "model": "DeepSeek-R1", "values": same},
        {"benchmark": BENCHMARKS[0], "model": "OpenAI-o3-mini", "values": [70.0, *same[1:]]},
    ]
    board["notes"] = []
    user = tmp_path / "twins.json"
    user.write_text(json.dumps(board))
    md = _report(capsys, r1_work, "--published-file", user)
    assert "⚑" in md and "identical G-Pass values to OpenAI-o3-mini" in md


@pytest.mark.parametrize(
    "content, phrase",
    [
        (None, "cannot be read"),
        ("{not json", "not JSON"),
        ('{"source": {}, "k": 16, "columns": ["Greedy"], "benchmarks": []}', "benchmarks"),
        (
            '{"source": {}, "k": 16, "columns": ["Greedy"], "benchmarks": [{"name": "B"}],'
            ' "rows": [{"benchmark": "B", "model": "m", "values": [101]}]}',
            "rows[0].values: need 1 percent values in [0, 100]",
        ),
    ],
)
def test_a_bad_published_file_is_one_line_and_exit_2(capsys, tmp_path, r1_work, content, phrase):
    path = tmp_path / "published.json"
    if content is not None:
        path.write_text(content)
    code, out, err = run_cli(capsys, "report", r1_work, "--published-file", path)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and phrase in lines[0], err
