"""``report --verdict-error`` reads each run's whole results file once, and corrects its
rows in the report's worker processes with the same numbers as in one process.

On a 240-run grid the corrections read every file twice in one process (the samples per
source, then the vote classes for maj@k): 20 of the report's 65 s. The count here is of
full parses (``Results.from_json``) after a first report has written the summary
sidecars, so the tables themselves parse nothing."""

from __future__ import annotations

import json
from collections import Counter

from gpassk_oc.core.runs import results_file
from tests.report_support import report_json, run_cli, workdir  # noqa: F401
from tests.test_audit_classes import _add_votes

RATES = "fp=0.02,fn=0.08"


def test_each_results_file_is_parsed_once_for_the_corrections(capsys, workdir, monkeypatch):  # noqa: F811
    root, _ = workdir
    _add_votes(root)  # maj@k's classes too, so both corrections need the samples
    code, _, err = run_cli(capsys, "report", root, "--workers", "1")  # sidecars written
    assert code == 0, err
    parsed: Counter = Counter()
    original = results_file.Results.from_json.__func__

    def counting(cls, data, where=""):
        parsed[where] += 1
        return original(cls, data, where)

    monkeypatch.setattr(results_file.Results, "from_json", classmethod(counting))
    code, out, err = run_cli(
        capsys, "report", root, "--verdict-error", RATES, "--workers", "1", "--format", "json"
    )
    assert code == 0, err
    rows = [r for r in json.loads(out) if not r["greedy"]]  # greedy rows are not corrected
    files = sorted({str(root / p) if not p.startswith("/") else p for r in rows for p in r["runs"]})
    assert len(files) == len(rows) >= 2
    assert sorted(parsed) == files and set(parsed.values()) == {1}
    assert all(r["corrected"]["metrics"]["G-Pass@16_1.0"]["status"] == "ok" for r in rows)


def test_workers_give_the_same_corrected_report(capsys, workdir):  # noqa: F811
    root, _ = workdir
    _add_votes(root)
    one, _ = report_json(capsys, root, "--verdict-error", RATES, "--workers", "1")
    two, _ = report_json(capsys, root, "--verdict-error", RATES, "--workers", "2")
    assert one == two
    assert any(m["model_check"] for r in one for m in r["corrected"]["metrics"].values())


def test_the_audits_tally_counts_what_every_verdict_says(capsys, workdir):  # noqa: F811
    """``report --audit`` counts verdicts per source and finds its labelled samples without
    an object per sample (:func:`tally_verdicts`): the same counts and (source, verdict)
    as :func:`collect_verdicts`, the audit command's list of every judged sample; a label
    naming no sample (unknown run, question or replica) is not found."""
    from gpassk_oc.report.auditing.audit_verdicts import collect_verdicts, tally_verdicts
    from gpassk_oc.report.data.collect import collect
    from tests.test_audit import _add_sources

    root, _ = workdir
    _add_sources(root)
    rows, greedy, _ = collect([root])
    runs = [run for row in rows for run in row.runs] + list(greedy)
    verdicts = collect_verdicts(runs)
    want: dict[str, list[int]] = {}
    for v in verdicts:
        want.setdefault(v.source, [0, 0])[0 if v.correct else 1] += 1
    picked = verdicts[::97]
    some = verdicts[0].sample_id.rsplit("/", 1)[0]
    bogus = ["nobody/nothing/1/0", f"{some}/999", some.rsplit("/", 1)[0] + "/99999/0"]
    totals, found = tally_verdicts(runs, [v.sample_id for v in picked] + bogus)
    assert totals == want and len(picked) > 10
    assert found == {v.sample_id: (v.source, v.correct) for v in picked}
    assert any("/" in v.group for v in picked)  # ids with a split × language group too
