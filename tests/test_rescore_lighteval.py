"""``gpassk-oc rescore`` of lighteval details (real parquet files of lighteval 0.13.0,
tests/fixtures/harnesses/lighteval/): every metric equal to brute force, lighteval's own
G-Pass numbers beside ours, its nominal n named where a question kept fewer replies."""

from __future__ import annotations

import json
from pathlib import Path

import importer_support as imp
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gpassk_oc.cli import main

FIXTURES = imp.HARNESSES / "lighteval"


def _details(folder: Path) -> Path:
    (path,) = folder.glob("details/*/*/*/details_*.parquet")
    return path


def _cn(path: Path) -> list[tuple[int, int]]:
    rows = pq.read_table(path).to_pylist()
    return imp.counts([(r["doc"]["choices"][0], r["model_response"]["text"]) for r in rows])


@pytest.mark.parametrize("name", ["shaky_n8", "steady_n8", "shaky_n1"])
def test_rescore_and_report_equal_brute_force(name, tmp_path, capsys):
    folder = FIXTURES / name
    out = tmp_path / "out"
    imp.rescore(folder, out)
    path = imp.only_results(out)
    imp.assert_brute_force(path, _cn(_details(folder)))
    rows = imp.report_rows(out, capsys, max(json.loads(path.read_text())["run"]["ks"]))
    assert [r["model"] for r in rows] == [f"gpassk-demo-{name.split('_')[0]}@lighteval"]


def test_lightevals_own_numbers_beside_ours(tmp_path):
    folder = FIXTURES / "shaky_n8"
    out = tmp_path / "out"
    imp.rescore(folder, out)
    (results,) = folder.glob("results/*/*/results_*.json")
    tasks = json.loads(results.read_text())["results"]
    (own,) = [v for k, v in tasks.items() if k != "all"]
    reported = {
        m["metric"]: m["opencompass"] for m in imp.sidecar(imp.only_results(out))["metrics"]
    }
    for tau in ("0.5", "0.75", "1.0"):
        assert reported[f"G-Pass@4_{tau}"] == pytest.approx(100 * own[f"math_g-pass@4_{tau}"])
    assert reported["mG-Pass@4"] == pytest.approx(100 * own["mmath_g-pass@4"])


def test_fewer_replies_than_its_nominal_n(tmp_path):
    """A copy DERIVED from the real shaky_n8 details: two questions keep 3 of their 8
    replies (num_samples still 8, as lighteval#771 writes them)."""
    folder = imp.derived(FIXTURES / "shaky_n8", tmp_path)
    path = _details(folder)
    table = pq.read_table(path)
    rows = table.to_pylist()
    for r in rows[1:3]:
        for key in ("text", "text_post_processed"):
            r["model_response"][key] = r["model_response"][key][:3]
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    out = tmp_path / "out"
    imp.rescore(folder, out)
    cn = _cn(path)
    assert [m for _, m in cn] == [8, 3, 3, 8, 8, 8, 8, 8]
    imp.assert_brute_force(imp.only_results(out), cn)
    nominal = next(
        r for r in imp.sidecar(imp.only_results(out))["reasons"] if r["kind"] == "nominal_n"
    )
    assert (nominal["questions"], nominal["n"], nominal["samples"]) == (2, 8, 6 * 8 + 2 * 3)


def test_truncated_parquet_is_one_line_exit_2(tmp_path, capsys):
    folder = imp.derived(FIXTURES / "shaky_n8", tmp_path)
    path = _details(folder)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    capsys.readouterr()
    assert main(["rescore", str(folder), "-o", str(tmp_path / "out")]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0] and "parquet" in lines[0]
    assert not (tmp_path / "out").exists()


def test_token_ids_it_kept_become_output_token_counts(tmp_path):
    """A copy DERIVED from the real shaky_n8 details with ``output_tokens`` filled as a
    local backend (transformers, vLLM) writes them, one list of ids per reply: each
    reply's count is its list's length, and the statistics plain arithmetic over them."""
    from gpassk_oc.core.runs.results_summary import read_summary

    folder = imp.derived(FIXTURES / "shaky_n8", tmp_path)
    path = _details(folder)
    table = pq.read_table(path)
    rows = table.to_pylist()
    for q, r in enumerate(rows):
        texts = r["model_response"]["text"]
        r["model_response"]["output_tokens"] = [[7] * (q * 10 + j + 1) for j in range(len(texts))]
        r["model_response"]["input_tokens"] = [1] * (q + 5)
    fields = [f for f in table.schema if f.name != "model_response"]
    schema = pa.schema(
        [
            *fields,
            pa.field(
                "model_response",
                pa.struct(
                    [
                        *[
                            f
                            for f in table.schema.field("model_response").type
                            if f.name not in ("output_tokens", "input_tokens")
                        ],
                        pa.field("output_tokens", pa.list_(pa.list_(pa.int64()))),
                        pa.field("input_tokens", pa.list_(pa.int64())),
                    ]
                ),
            ),
        ]
    )
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    imp.rescore(folder, tmp_path / "out")
    results = json.loads(imp.only_results(tmp_path / "out").read_text())
    expected = [[q * 10 + j + 1 for j in range(8)] for q in range(len(rows))]
    assert [d["output_tokens"] for d in results["details"]] == expected
    assert [d["prompt_tokens"] for d in results["details"]] == [[q + 5] * 8 for q in range(8)]
    counts = sorted(t for row in expected for t in row)
    tokens = read_summary(imp.only_results(tmp_path / "out")).tokens
    assert tokens is not None
    assert (tokens["counted"], tokens["max"]) == (64, counts[-1])
    assert tokens["mean"] == pytest.approx(sum(counts) / 64)
    assert tokens["at_limit_share"] is None  # lighteval records no finish reason


def test_no_token_ids_no_token_statistics(tmp_path):
    """The real files (an API backend) keep no token ids: no counts, no statistics."""
    from gpassk_oc.core.runs.results_summary import read_summary

    imp.rescore(FIXTURES / "shaky_n8", tmp_path / "out")
    path = imp.only_results(tmp_path / "out")
    assert "output_tokens" not in json.loads(path.read_text())["details"][0]
    assert read_summary(path).tokens is None
