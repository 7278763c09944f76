"""A run's drill-down share (:mod:`gpassk_oc.core.runs.drill_fragment`): made when the results
file is read in full, kept in ``{dataset}.json.drill`` beside it, reused only for the bytes
it was made from, never written over another file; the page's row files are the same
whether the share was made now or read back. Expected values come from the results file's
own JSON (the oracle), not from the code under test."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from gpassk_oc.core.runs.drill_fragment import (
    MAX_ANSWER_CHARS,
    drill_path,
    read_drill,
    save_drill,
)
from gpassk_oc.core.runs.results_summary import read_summary
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.report.page.drilldown import row_drill, row_script, run_fragment

LONG = "x" * (MAX_ANSWER_CHARS + 7)
EXTRACTED = [["</script><!--", None, "1 & 2", LONG], ["7", "7", "8", "7"]]
CORRECT: list[list[bool | None]] = [[False, None, True, False], [True, True, False, True]]
SOURCE = [["rule", "unjudged", "judge", "rule"], ["rule", "cache", "rule", "judge"]]
FOUND = [["boxed", "none", "statement", "boxed"], ["boxed", "boxed", "boxed", "boxed"]]


def write(path: Path, extracted: list[list[str | None]] = EXTRACTED) -> dict:
    rows = [
        dict(question_id=f"q{i}", split="AMC", language="en", question=f"Q{i}?", answer="7")
        for i in range(2)
    ]
    data = build_results(
        ScoringInput(
            spec=RunSpec.parse([2]).at_n(4),
            rows=rows,
            extracted=extracted,
            correct=CORRECT,
            source=SOURCE,
            found=FOUND,
        )
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return data


def shown(answer: str | None) -> str | None:
    """How the drill-down shows an answer (cut after MAX_ANSWER_CHARS characters)."""
    if answer is None or len(answer) <= MAX_ANSWER_CHARS:
        return answer
    return answer[:MAX_ANSWER_CHARS] + f"… ({len(answer) - MAX_ANSWER_CHARS} more characters)"


def expected_samples(data: dict) -> list[list[list]]:
    """Per question, every sample as [answer, found, verdict, decided by], from the file."""
    return [
        [list(s) for s in zip(map(shown, d["extracted"]), d["found"], d["correct"], d["source"])]
        for d in data["details"]
    ]


def samples_of(drill: dict) -> list[list[list]]:
    """The row file's columns turned back into samples (what the page's samplesOf does)."""
    out = []
    for q in drill["questions"]:
        rows = []
        for code, answers, found, verdicts, by in q["runs"]:
            run = drill["runs"][code]
            rows += [
                [a, run["found"][f], v, run["by"][b]]
                for a, f, v, b in zip(answers, found, verdicts, by)
            ]
        out.append(rows)
    return out


def row_of(path: Path, summary=None) -> SimpleNamespace:
    run = SimpleNamespace(model_abbr="m", path=path, summary=summary or read_summary(path))
    return SimpleNamespace(label="m", dataset_abbr="ds", runs=[run])


def test_the_cold_read_makes_the_share_and_the_row_holds_every_sample(tmp_path):
    path = tmp_path / "m" / "ds.json"
    data = write(path)
    summary = read_summary(path)
    assert summary.drill is not None and not summary.drill.from_sidecar
    drill = row_drill(row_of(path, summary))  # type: ignore[arg-type]
    assert samples_of(drill) == expected_samples(data)
    assert [(q["c"], q["n"]) for q in drill["questions"]] == [
        (d["c"], d["n"]) for d in data["details"]
    ]
    script = row_script(row_of(path, summary), "0001")  # type: ignore[arg-type]
    assert b"</script>" not in script and b"<!--" not in script and b"&" not in script


def test_the_sidecar_is_reused_for_the_same_bytes_only(tmp_path):
    path = tmp_path / "m" / "ds.json"
    write(path)
    fresh = read_summary(path)
    assert fresh.drill is not None and save_drill(path, fresh.drill)
    assert drill_path(path).name == "ds.json.drill"
    again = read_drill(path, fresh.source)
    assert again is not None and again.from_sidecar
    assert again.questions == fresh.drill.questions
    assert (again.found, again.by) == (fresh.drill.found, fresh.drill.by)
    # the page's row file is byte-identical from the sidecar
    row = row_of(path, fresh)
    before = row_script(row, "0000")  # type: ignore[arg-type]
    row.runs[0].summary.drill = None
    assert row_script(row, "0000") == before  # type: ignore[arg-type]
    assert row.runs[0].summary.drill.from_sidecar
    # the results file changes: the sidecar no longer applies, the file is read again
    changed = [["9"] * 4, ["9"] * 4]
    data = write(path, changed)
    summary = read_summary(path)
    assert read_drill(path, summary.source) is None
    summary.drill = None
    assert samples_of(row_drill(row_of(path, summary))) == expected_samples(data)  # type: ignore[arg-type]


def test_a_sidecar_is_made_by_the_page_when_missing(tmp_path):
    """A summary from its sidecar (no share made) still gets the share, read from the file."""
    path = tmp_path / "m" / "ds.json"
    data = write(path)
    summary = read_summary(path)
    summary.drill = None
    run = row_of(path, summary).runs[0]
    fragment = run_fragment(run)  # type: ignore[arg-type]
    assert not fragment.from_sidecar and fragment.source == summary.source
    assert samples_of(row_drill(row_of(path, summary))) == expected_samples(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("foreign", [b"my notes\n", b'{"schema": "other/1"}\n', b""])
def test_never_over_another_file(tmp_path, foreign):
    path = tmp_path / "m" / "ds.json"
    write(path)
    summary = read_summary(path)
    drill_path(path).write_bytes(foreign)
    assert summary.drill is not None and not save_drill(path, summary.drill)
    assert drill_path(path).read_bytes() == foreign
    assert read_drill(path, summary.source) is None


def test_a_fragment_holds_about_its_text_in_memory(tmp_path):
    """A grid's first html report keeps every run's fragment until it succeeds: a
    fragment must cost about the bytes of its texts, not a JSON encoder's buffer per
    question (orjson's output keeps ~8 KB; 240 runs took the report to ~1 GB)."""
    import tracemalloc

    from gpassk_oc.core.runs.drill_fragment import fragment_of_file

    rows = 300
    path = tmp_path / "results" / "m" / "big.json"
    data = build_results(
        ScoringInput(
            spec=RunSpec.parse([2]).at_n(4),
            rows=[
                dict(question_id=f"q{i}", split="AMC", language="en", question="Q?", answer="7")
                for i in range(rows)
            ],
            extracted=[["7", "8", "7", None]] * rows,
            correct=[[True, False, True, None]] * rows,
            source=[["rule", "rule", "judge", "unjudged"]] * rows,
            found=[["boxed", "boxed", "statement", "none"]] * rows,
        )
    )
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fragment = fragment_of_file(path)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    texts = sum(len(q.samples) for q in fragment.questions)
    assert len(fragment.questions) == rows
    assert held < 2_000 * rows + 3 * texts, (held, texts)
