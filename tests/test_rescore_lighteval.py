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
