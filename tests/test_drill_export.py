"""The drill-down files carry what the page's audit-sheet export needs (:mod:`gpassk_oc.
report.drilldown`): per question its index in the file (``ix``, and ``ixr`` per run for a
pooled run that numbers it differently) and its split × language group (``g``, absent when
the file names none), and the row's dataset. The page's export itself is tested in a real
browser (tests/test_report_page.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from gpassk_oc.core.runs.results_summary import read_summary
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.report.page.drilldown import row_drill


def write(path: Path, indices: list[int], split: str) -> None:
    rows = [
        dict(
            question_id=f"q{i}",
            split=split,
            language="en" if split else "",
            question="?",
            answer="1",
        )
        for i in range(2)
    ]
    data = build_results(
        ScoringInput(
            spec=RunSpec.parse([1]).at_n(2),
            rows=rows,
            extracted=[["1", "2"], ["1", "1"]],
            correct=[[True, False], [True, True]],
        )
    )
    for detail, index in zip(data["details"], indices):
        detail["index"] = index
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def run(model: str, path: Path) -> SimpleNamespace:
    """What row_drill reads of a run: its name, file and summary."""
    return SimpleNamespace(model_abbr=model, path=path, summary=read_summary(path))


def test_pooled_runs_keep_each_runs_question_index(tmp_path):
    a, b = tmp_path / "a" / "ds.json", tmp_path / "b" / "ds.json"
    write(a, [0, 1], "AMC")
    write(b, [0, 7], "AMC")  # the second run numbers question q1 differently
    runs = [run(m, p) for m, p in (("m-s1", a), ("m-s2", b))]
    drill = row_drill(SimpleNamespace(label="m", dataset_abbr="ds", runs=runs))  # type: ignore[arg-type]
    assert drill["dataset"] == "ds"
    q0, q1 = drill["questions"]
    assert (q0["ix"], q0["g"], "ixr" in q0) == (0, "AMC/en", False)
    second = [r["model"] for r in drill["runs"]].index("m-s2")
    assert (q1["ix"], q1["ixr"]) == (1, {str(second): 7})
    # per run, in run order, its samples as columns (replicas in order)
    assert [(p[0], p[1], p[3]) for p in q1["runs"]] == [
        (1 - second, ["1", "1"], [True, True]),
        (second, ["1", "1"], [True, True]),
    ]
    assert (q1["c"], q1["n"]) == (4, 4)


def test_no_group_when_the_file_names_none(tmp_path):
    path = tmp_path / "a" / "ds.json"
    write(path, [0, 1], "")
    drill = row_drill(SimpleNamespace(label="m", dataset_abbr="ds", runs=[run("m", path)]))  # type: ignore[arg-type]
    assert all("g" not in q for q in drill["questions"])
